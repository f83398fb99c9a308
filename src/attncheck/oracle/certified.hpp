// attncheck: the reference values the gate judges kernels against: the tiered oracle's
// enclosures (oracle/tiered.hpp), accepted only when tight enough to judge an error.
#pragma once

#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/kernels/softmax.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/oracle/tiered.hpp"

namespace attncheck::oracle::certified {

// Same layouts as oracle/exact.hpp, same kernel templates; what differs is where the values come
// from: exact.hpp runs the kernel once at 200-bit MPFR and trusts it, this runs the tiered
// oracle, which encloses every output with a rigorous error radius and certifies its rounding
// to T. A check compares the kernel's output with v[i] (the enclosure's centre, to 64 bits) and
// reports ref[i] (RN_T of the exact value, certified or not, by which tier) when it fails.
template <class T>
struct Values {
  std::vector<real> v;
  std::vector<tiered::element<T>> ref;
  real operator[](std::size_t i) const { return v[i]; }
  std::size_t size() const { return v.size(); }
};

// A finite centre without an enclosure (every tier hit an undecidable comparison or a divisor
// ball containing 0) cannot be used to judge anything: the check errors out rather than pass
// or fail on it. How tight an enclosure must be depends on the allowance it is compared with:
// falsify/support.hpp's expect_close decides that per comparison (the radius enters the error).
template <class T>
Values<T> accept(tiered::result<T>&& r, std::string_view kernel) {
  Values<T> out;
  out.v.reserve(r.values.size());
  for (std::size_t i = 0; i < r.values.size(); ++i) {
    const auto& e = r.values[i];
    if (std::isfinite(e.exact) && !std::isfinite(e.radius))
      throw tiered::no_verdict("the tiered oracle found no enclosure for output " + std::to_string(i) + " of " +
                               std::string(kernel) + " (centre " + e.exact_text() + "): no verdict");
    out.v.push_back(std::isfinite(e.exact) || e.exact_wide != e.exact_wide ? static_cast<real>(e.exact) + static_cast<real>(e.exact_tail)
                                                                            : e.exact_wide);
  }
  out.ref = std::move(r.values);
  return out;
}

// Exact softmax and log-softmax of a row, with what the bounds need (oracle::SoftmaxRow), and
// the tiered elements of both.
template <class T>
struct SoftmaxRow : oracle::SoftmaxRow {
  std::vector<tiered::element<T>> p_ref, logp_ref;
};

template <class T>
SoftmaxRow<T> softmax_row(const std::vector<T>& x) {
  auto p = accept(tiered::softmax(x), "softmax");
  auto lp = accept(tiered::log_softmax(x), "log_softmax");
  SoftmaxRow<T> r;
  r.p = std::move(p.v);
  r.logp = std::move(lp.v);
  r.p_ref = std::move(p.ref);
  r.logp_ref = std::move(lp.ref);
  const std::size_t n = x.size();
  std::vector<double> xd(n);
  for (std::size_t j = 0; j < n; ++j) xd[j] = to_double(x[j]);
  const double m = n ? kernels::row_max(xd.data(), n) : 0;  // the kernels' own max (NaN rule)
  r.gap.reserve(n);
  for (double v : xd) r.gap.push_back(static_cast<real>(m) - static_cast<real>(v));  // 2^-64 rel.
  r.log_sum = n ? (static_cast<real>(xd[0]) - static_cast<real>(m)) - r.logp[0] : 0;
  return r;
}

template <class T>
Values<T> scores(const std::vector<T>& q, const std::vector<T>& k, std::size_t n, std::size_t m,
                 std::size_t d) {
  return accept(tiered::scores(q, k, n, m, d), "scores");
}

template <class T>
Values<T> rmsnorm(const std::vector<T>& x, const std::vector<T>& w, T eps) {
  return accept(tiered::rmsnorm(x, w, eps), "rmsnorm");
}

template <class T>
real entropy(const std::vector<T>& p) {
  return accept(tiered::entropy(p), "entropy").v.at(0);
}

// The entropy as a one-element Values, with its tiered element (what an accuracy check reports).
template <class T>
Values<T> entropy_values(const std::vector<T>& p) {
  return accept(tiered::entropy(p), "entropy");
}

// o = softmax(q kᵀ/√d (+ causal mask)) v, n x dv row-major, as kernels/attention.hpp lays it out.
template <class T>
Values<T> attention(const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v, std::size_t n,
                    std::size_t m, std::size_t d, std::size_t dv, bool causal) {
  return accept(tiered::attention(q, k, v, n, m, d, dv, causal), "attention");
}

template <class T>
Values<T> softmax_jvp(const std::vector<T>& x, const std::vector<T>& dx) {
  return accept(tiered::softmax_jvp(x, dx), "softmax_jvp");
}

}  // namespace attncheck::oracle::certified
