// attncheck: the high-precision oracle: the SAME kernel templates evaluated at 200-bit MPFR.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/log_softmax.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"
#include "attncheck/scalar/mpfr.hpp"

namespace attncheck::oracle {

// Every T value is exactly representable at 200 bits, so the oracle sees the kernel's input
// bit for bit. Its own rounding (at most ~n·2^-200 relative) is far below every allowance, and
// its results are treated as exact. They are handed out as `real` (x87 long double, 64-bit
// significand): rounding an exact value to double would cost 2^-54 relative, as much as an f64
// kernel's own error, while 2^-65 is covered by the bounds' headroom (bounds/error_model.hpp).
template <class T>
std::vector<mpfr200> lift(const std::vector<T>& x) {
  std::vector<mpfr200> r;
  r.reserve(x.size());
  for (const T& v : x) r.emplace_back(to_double(v));  // T -> double is exact for f16/bf16/f32/f64
  return r;
}

using real = long double;
static_assert(std::numeric_limits<real>::digits >= 64, "x87 extended precision expected");

inline real dbl(const mpfr200& v) { return v.convert_to<real>(); }

inline std::vector<real> lower(const std::vector<mpfr200>& x) {
  std::vector<real> r;
  r.reserve(x.size());
  for (const auto& v : x) r.push_back(dbl(v));
  return r;
}

// Exact softmax of one row and what the bounds need alongside it.
struct SoftmaxRow {
  std::vector<real> p;     // softmax(x)
  std::vector<real> logp;  // log softmax(x), finite even where p underflows
  std::vector<real> gap;   // |x_j - max x| >= 0
  real log_sum = 0;        // log sum_j exp(x_j - max x) >= 0
};

// The same for a row given exactly (e.g. exact scores q·k/√d, which no format holds).
inline SoftmaxRow softmax_row_exact(const std::vector<mpfr200>& X) {
  const std::size_t n = X.size();
  std::vector<mpfr200> P(n), LP(n);
  kernels::softmax(X.data(), P.data(), n);
  kernels::log_softmax(X.data(), LP.data(), n);
  const mpfr200 m = kernels::row_max(X.data(), n);
  SoftmaxRow r{lower(P), lower(LP), {}, 0};
  r.gap.reserve(n);
  for (const auto& v : X) r.gap.push_back(dbl(mpfr200(m - v)));
  r.log_sum = n ? dbl(mpfr200(X[0] - m) - LP[0]) : 0;
  return r;
}

template <class T>
SoftmaxRow softmax_row(const std::vector<T>& x) {
  return softmax_row_exact(lift(x));
}

// Exact scores q_i·k_j/√d, not rounded (n x m, row-major).
template <class T>
std::vector<mpfr200> scores_exact(const std::vector<T>& q, const std::vector<T>& k, std::size_t n, std::size_t m, std::size_t d) {
  const auto Q = lift(q), K = lift(k);
  std::vector<mpfr200> S(n * m);
  kernels::scores(Q.data(), K.data(), n, m, d, S.data());
  return S;
}

template <class T>
std::vector<real> scores(const std::vector<T>& q, const std::vector<T>& k, std::size_t n,
                           std::size_t m, std::size_t d) {
  const auto Q = lift(q), K = lift(k);
  std::vector<mpfr200> S(n * m);
  kernels::scores(Q.data(), K.data(), n, m, d, S.data());
  return lower(S);
}

template <class T>
std::vector<real> rmsnorm(const std::vector<T>& x, const std::vector<T>& w, T eps) {
  const auto X = lift(x), W = lift(w);
  std::vector<mpfr200> Y(X.size());
  kernels::rmsnorm(X.data(), W.data(), X.size(), mpfr200(to_double(eps)), Y.data());
  return lower(Y);
}

template <class T>
real entropy(const std::vector<T>& p) {
  const auto P = lift(p);
  return dbl(kernels::entropy(P.data(), P.size()));
}

template <class T>
std::vector<real> softmax_jvp(const std::vector<T>& x, const std::vector<T>& dx) {
  const auto X = lift(x), DX = lift(dx);
  std::vector<mpfr200> DY(X.size());
  kernels::softmax_jvp(X.data(), DX.data(), X.size(), DY.data());
  return lower(DY);
}

}  // namespace attncheck::oracle
