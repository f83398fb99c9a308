// attncheck: the error model of 16-bit storage with f32 arithmetic (proofs/bounds/mixed_precision.md)
// is sound (the reference kernel computed in f32 and rounded once to storage never exceeds it),
// not vacuous (every class reaches a stated fraction of it), and finite where 16-bit arithmetic
// says nothing: at every n up to 4096 the softmax allowance of a row of equal entries is the
// number of ulps docs/formats.md prints.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <vector>

#include <doctest/doctest.h>

#include "attncheck/bounds/attention_output.hpp"
#include "attncheck/bounds/rmsnorm.hpp"
#include "attncheck/bounds/scores.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/bounds/softmax_allowance_in_ulps.hpp"
#include "attncheck/kernels/kernel_set.hpp"
#include "attncheck/oracle/certified.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/oracle/ulp.hpp"
#include "attncheck/property/gen/normal.hpp"

namespace attncheck {
namespace {

using oracle::real;

template <class T>
std::vector<T> normal_row(gen::NormalStream& g, std::size_t n, double sigma) {
  std::vector<T> r(n);
  for (auto& v : r) v = scalar_traits<T>::from_double(sigma * g.next());
  return r;
}

struct Seen {
  double max = 0;
  std::vector<double> ratios;
  void add(real err, real bound) {
    const double r = bound > 0 ? static_cast<double>(err / bound) : (err > 0 ? INFINITY : 0);
    ratios.push_back(r);
    max = std::max(max, r);
  }
  double median() {
    std::sort(ratios.begin(), ratios.end());
    return ratios[ratios.size() / 2];
  }
};

// One class of rows (n, σ) at storage T with f32 arithmetic: the reference computed in f32 and
// rounded once (computed_in), judged against the exact softmax within the mixed bound.
template <class T>
Seen softmax_mixed(std::size_t n, double sigma, int rows, std::uint64_t seed) {
  const arithmetic_scope f32_arithmetic(Arithmetic::f32);
  const auto k = current_reference_kernels<T>();
  const auto md = bounds::model_of<T>();
  REQUIRE(md.mixed());
  gen::NormalStream g(seed);
  Seen s;
  for (int r = 0; r < rows; ++r) {
    const auto x = normal_row<T>(g, n, sigma);
    std::vector<T> y(n);
    k.softmax(x.data(), y.data(), n);
    const auto ex = oracle::softmax_row(x);
    const auto b = bounds::softmax_bound(ex, md);
    // Outputs in T's normal range: below it the allowance is the subnormal granule, which an
    // output that underflows to 0 uses only in part (f16 rows of σ = 10 are mostly such).
    const real normal_min = std::ldexp(1.0L, format_of<T>.min_exponent);
    for (std::size_t i = 0; i < n; ++i)
      if (ex.p[i] >= normal_min) s.add(std::abs(to_double(y[i]) - ex.p[i]), std::max(b.hi[i] - ex.p[i], ex.p[i] - b.lo[i]));
  }
  return s;
}

// Fractions, over outputs in the normal range: measured (MESSAGE lines; bf16: max 0.93-0.97,
// median 0.33-0.35; f16: max 0.64-0.98, median 0.16-0.34 over these classes) and set at about half, so a bound that became twice as
// loose fails. The final rounding to 16 bits dominates the mixed bound, so every class of every
// length comes close to it: the median is far above the tenth the issue asks of a sharp bound.
TEST_CASE_TEMPLATE("Mixed precision: the 16-bit-storage, f32-arithmetic softmax bound is sound and sharp on every class", T, bf16, f16) {
  struct Class {
    std::size_t n;
    double sigma;
    int rows;
  };
  for (const Class c : {Class{8, 1, 200}, Class{128, 1, 20}, Class{128, 10, 20}, Class{1024, 1, 4}, Class{4096, 3, 2}}) {
    auto s = softmax_mixed<T>(c.n, c.sigma, c.rows, 0x5eed + c.n);
    const double md = s.median();
    MESSAGE(format_of<T>.name << "@f32 softmax n=" << c.n << " sigma=" << c.sigma << ": max ratio " << s.max << ", median " << md);
    CHECK_MESSAGE(s.max <= 1.0, "mixed softmax bound exceeded (n = " << c.n << ")");
    CHECK_MESSAGE(s.max >= 0.3, "mixed softmax bound loose for n = " << c.n << ": max ratio " << s.max);
    CHECK_MESSAGE(md >= 0.1, "mixed softmax bound loose for n = " << c.n << ": median ratio " << md);
  }
}

// log_softmax, scores, RMSNorm and attention under the same model: the reference computed in f32
// and rounded once (computed_in) within the mixed bound of each (sound), and each kind's largest
// ratio reaching a stated fraction, set at about half of what was measured (MESSAGE lines;
// bf16 | f16: log_softmax 0.83 | 0.79, scores 0.22 | 0.11, rmsnorm 0.49 | 0.49, attention 0.061 |
// 0.050). Attention's allowance is the loosest: it admits P and the scores stored in 16 bits
// (FlashAttention, PyTorch), which the reference does not do.
TEST_CASE_TEMPLATE("Mixed precision: log_softmax, scores, RMSNorm and attention bounds are sound and not vacuous", T, bf16, f16) {
  const arithmetic_scope f32_arithmetic(Arithmetic::f32);
  const auto k = current_reference_kernels<T>();
  const auto md = bounds::model_of<T>();
  gen::NormalStream g(0x5eed17);
  Seen ls, sc, rn, at;
  for (int r = 0; r < 40; ++r) {
    const std::size_t n = 4 + static_cast<std::size_t>(r) * 6;
    const auto x = normal_row<T>(g, n, 2);
    std::vector<T> y(n);
    k.log_softmax(x.data(), y.data(), n);
    const auto ex = oracle::softmax_row(x);
    const auto lb = bounds::log_softmax_bound(ex, md);
    for (std::size_t i = 0; i < n; ++i) ls.add(std::abs(to_double(y[i]) - ex.logp[i]), lb[i]);

    const std::size_t d = 8 + static_cast<std::size_t>(r) * 6;
    const auto q = normal_row<T>(g, d, 1), kk = normal_row<T>(g, d, 1);
    T s{};
    k.scores(q.data(), kk.data(), 1, 1, d, &s);
    const auto es = oracle::scores(q, kk, 1, 1, d);
    real abs_dot = 0;
    for (std::size_t t = 0; t < d; ++t) abs_dot += std::abs(static_cast<real>(to_double(q[t])) * to_double(kk[t]));
    sc.add(std::abs(to_double(s) - es[0]), bounds::score_bound(es[0], abs_dot, d, md));

    const auto w = normal_row<T>(g, d, 2);
    const T eps = scalar_traits<T>::from_double(1e-5);
    std::vector<T> yr(d);
    k.rmsnorm(q.data(), w.data(), d, eps, yr.data());
    const auto er = oracle::rmsnorm(q, w, eps);
    real ms = 0;
    for (std::size_t t = 0; t < d; ++t) ms += static_cast<real>(to_double(q[t])) * to_double(q[t]);
    const auto rb = bounds::rmsnorm_bound(d, ms / static_cast<real>(d) + to_double(eps), md);
    for (std::size_t i = 0; i < d; ++i) rn.add(std::abs(to_double(yr[i]) - er[i]), rb.allowed(er[i], to_double(w[i])));
  }
  for (int r = 0; r < 6; ++r) {
    const std::size_t nq = 3, m = 8 + static_cast<std::size_t>(r) * 20, d = 16, dv = 8;
    const auto q = normal_row<T>(g, nq * d, 1), kk = normal_row<T>(g, m * d, 1), v = normal_row<T>(g, m * dv, 2);
    std::vector<T> o(nq * dv);
    k.attention(q.data(), kk.data(), v.data(), nq, m, d, dv, r % 2 == 1, o.data());
    const auto eo = oracle::certified::attention(q, kk, v, nq, m, d, dv, r % 2 == 1);
    const auto allowed = bounds::attention_output_allowance(q, kk, v, nq, m, d, dv, r % 2 == 1, md);
    for (std::size_t i = 0; i < o.size(); ++i) at.add(std::abs(to_double(o[i]) - eo[i]), allowed[i]);
  }
  MESSAGE(format_of<T>.name << "@f32 max ratio: log_softmax " << ls.max << ", scores " << sc.max << ", rmsnorm " << rn.max
                            << ", attention " << at.max);
  for (const auto& [name, seen, fraction] : {std::tuple{"log_softmax", &ls, 0.3}, std::tuple{"scores", &sc, 0.05},
                                             std::tuple{"rmsnorm", &rn, 0.2}, std::tuple{"attention", &at, 0.02}}) {
    INFO(name);
    CHECK(seen->max <= 1.0);
    CHECK(seen->max >= fraction);
  }
}

// The closed-form row of n equal entries (bounds/softmax_allowance_in_ulps.hpp, which the figures
// below use to avoid n MPFR exps per row) is the oracle's row of n zeros, to real's precision.
TEST_CASE("Mixed precision: the closed-form row of n equal entries is the oracle's row of n zeros") {
  for (std::size_t n : {1, 2, 3, 7, 64, 1000, 2049, 4096}) {
    INFO("n = " << n);
    const auto closed = bounds::equal_entries_row(n);
    const auto ex = oracle::softmax_row(std::vector<float>(n, 0.0f));
    const real tol = std::ldexp(real(1), -60);  // real has 64 bits; the oracle's 200 rounded once
    for (std::size_t i = 0; i < n; i += std::max<std::size_t>(1, n / 5)) {
      CHECK(std::abs(closed.p[i] - ex.p[i]) <= tol * ex.p[i]);
      CHECK(std::abs(closed.logp[i] - ex.logp[i]) <= tol * std::abs(ex.logp[i]) + tol);
      CHECK(closed.gap[i] == ex.gap[i]);
    }
    CHECK(std::abs(closed.log_sum - ex.log_sum) <= tol * ex.log_sum + tol);
  }
}

// The allowance of a row of n equal entries (p = 1/n: no exp error grows with a gap), in ulps of
// the storage format at p, at EVERY n up to 4096: finite, and its largest value and the values at
// n = 3, 2048 and 4096 are the figures docs/formats.md prints (block softmax-ulps, printed by
// tools/softmax_ulp_figures.cpp and compared by docs.figures), to the 3 decimals printed there.
// The figures are exact functions of the bound (no sampling): a change of the bound that moves
// one by 0.0005 ulp fails here. Most of each is the final rounding to 16 bits (half an ulp of p
// when p = 1/n is a power of two, nearly one just below: the largest is at n = 2049); the f32
// terms weigh 8 times more in f16 ulps (3 bits more) than in bf16 ulps.
struct UlpFigures {
  std::size_t worst_n;
  double worst, at3, at2048, at4096;
};

template <class T>
constexpr UlpFigures docs_figures();
template <>
constexpr UlpFigures docs_figures<bf16>() { return {2049, 1.035, 0.669, 0.518, 0.533}; }
template <>
constexpr UlpFigures docs_figures<f16>() { return {2049, 1.506, 0.670, 0.753, 1.004}; }

// x to 3 decimals, as printf's %.3f prints it.
double three_decimals(double x) { return std::round(x * 1000) / 1000; }

TEST_CASE_TEMPLATE("Mixed precision: at every n up to 4096 the softmax allowance is finite and the ulp figures are the documented ones", T,
                   bf16, f16) {
  const arithmetic_scope f32_arithmetic(Arithmetic::f32);
  const auto md = bounds::model_of<T>();
  const auto f = format_of<T>;
  bounds::UlpFigure worst, worst_to_64;
  for (std::size_t n = 1; n <= 4096; ++n) {
    const double in_ulps = bounds::equal_row_allowance_in_ulps(n, md, f);
    if (!std::isfinite(in_ulps)) FAIL_CHECK("infinite or NaN allowance at n = " << n);
    if (!std::isfinite(static_cast<double>(bounds::normalisation_bound(n, md)))) FAIL_CHECK("infinite normalisation bound at n = " << n);
    if (in_ulps > worst.ulps) worst = {n, in_ulps};
    if (n == 64) worst_to_64 = worst;
  }
  // The tool's search (worst_equal_row_allowance, which prints the block) is this loop's.
  const auto tool_64 = bounds::worst_equal_row_allowance(64, md, f);
  CHECK(tool_64.n == worst_to_64.n);
  CHECK(tool_64.ulps == worst_to_64.ulps);
  const auto ex = bounds::equal_entries_row(4096);
  CHECK(std::isfinite(static_cast<double>(bounds::log_softmax_bound(ex, md)[0])));
  const UlpFigures shown = docs_figures<T>();
  MESSAGE(f.name << "@f32: the largest softmax allowance of a row of n equal entries, n <= 4096, is " << worst.ulps << " ulp at n = "
                 << worst.n);
  CHECK(worst.n == shown.worst_n);
  CHECK(three_decimals(worst.ulps) == shown.worst);
  CHECK(three_decimals(bounds::equal_row_allowance_in_ulps(3, md, f)) == shown.at3);
  CHECK(three_decimals(bounds::equal_row_allowance_in_ulps(2048, md, f)) == shown.at2048);
  CHECK(three_decimals(bounds::equal_row_allowance_in_ulps(4096, md, f)) == shown.at4096);
  // Under 16-bit arithmetic the sum's enclosure (1 ± u)^{n−1} keeps the interval finite from
  // n = 2^p on, where 1 ± γ_{n−1} had no finite value and the interval was [0, 1] ("checked
  // nothing"): at f16 it holds the exact 1/4096 and excludes most of [0, 1] ((1 − 2^-11)^4095
  // = 0.135); at bf16, (1 − 2^-8)^4095 ≈ 1e-7, it is [0, 1] again: a row of 4096 summed in bf16
  // can lose nearly all of its sum.
  const arithmetic_scope storage(Arithmetic::storage);
  const auto ex16 = oracle::softmax_row(std::vector<T>(4096, scalar_traits<T>::from_double(0)));
  const auto b16 = bounds::softmax_bound(ex16, bounds::model_of<T>());
  CHECK(b16.lo[0] <= 1.0L / 4096);
  CHECK(b16.hi[0] >= 1.0L / 4096);
  if constexpr (std::is_same_v<T, f16>)
    CHECK(b16.hi[0] < 0.5L);
  else
    CHECK(b16.hi[0] == 1);
}

}  // namespace
}  // namespace attncheck
