// attncheck audit: AUDIT-BIAS-001, the rounding-bias test. The derived allowance holds for any
// order of operations, so it must leave room for the worst; a kernel that truncates instead of
// rounding to nearest, or accumulates with round-toward-zero, stays inside it (its errors are
// a fraction of the allowance) but errs in one direction. Over many rows the signed error of a
// kernel that rounds to nearest has mean about 0; this test measures that mean.
//
// Statistic. N = 1000 rows, drawn from a seed (printed, and the replay line re-runs it), each
// row from the same distribution, independently of the others: a length uniform in [n_lo, n_hi],
// a scale σ drawn uniformly from {1/2, 1} (every term of the normaliser matters, so a biased sum
// shows), entries σ·N(0, 1) rounded to T. (Until issue 29, σ alternated with the row index, which
// made the rows independent but not identically distributed; the theorem below needs both.)
// For row r, with ŷ the kernel's output, y the exact value and A the derived allowance of each
// element (bounds/softmax.hpp, under the kernel's declared arithmetic),
//     X_r = Σ_i (ŷ_i − y_i) / Σ_i A_i   ∈ [−1, 1] for a kernel within its allowances
// (X_r is clipped to [−1, 1]: a kernel outside them fails the accuracy obligations anyway; a NaN
// X_r counts as 0: NaN rows are the NaN obligations' business). X_r is a fixed function of row r
// (and of the kernel, assumed deterministic), so the X_r are i.i.d.; a row whose allowance is not
// finite is left out, which keeps the rest i.i.d. (they are drawn from the distribution
// conditioned on a finite allowance). y and the allowances come from a long double evaluation
// (relative error < 2^-52 at these lengths, 2^-28 of the smallest allowance, u_f64 = 2^-53 of
// |y|): it moves X_r by < 2^-20, added to the threshold below.
//
// Test. Null hypothesis, an assumption about the kernel and not a theorem: E[X_r] = 0, i.e. the
// signed errors of a kernel that rounds to nearest do not lean one way on these rows (rounding to
// nearest gives errors symmetric about 0 only approximately; the measured means of correct kernels
// are in docs/audit.md). The threshold is the empirical Bernstein bound for i.i.d. variables
// (Maurer & Pontil 2009, Theorem 4; range R = 2, sample variance V, applied to X and −X at δ/2
// each):
//     P(|mean X| ≥ sqrt(2 V ln(4/δ)/N) + 7 R ln(4/δ) / (3 (N − 1))) ≤ δ,   δ = 1e-9,
// per check, i.e. per kind and format (N = 1000: about 0.11 + the variance term); an audit runs
// one check per softmax or log_softmax kernel it is given, so with k of them its probability of
// any false alarm is at most k·1e-9 (union bound). The measured means of correct and biased
// kernels are in docs/audit.md (one copy of them), not here.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/audit/call.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/kernels/kernel_set.hpp"
#include "attncheck/property/registry.hpp"
#include "attncheck/text/numbers.hpp"
#include "attncheck/property/gen/normal.hpp"

namespace attncheck::audit {

struct BiasOutcome {
  std::size_t rows = 0;     // rows with a finite allowance, counted
  double mean = 0, variance = 0, threshold = 0;
};

// Empirical Bernstein threshold for the mean of N values of range R at two-sided level delta.
inline double bernstein_threshold(std::size_t n, double variance, double range, double delta) {
  const double l = std::log(4 / delta), nn = static_cast<double>(n);
  return std::sqrt(2 * variance * l / nn) + 7 * range * l / (3 * (nn - 1));
}

// The exact softmax row in long double (what the bounds need, bounds/softmax.hpp).
inline oracle::SoftmaxRow softmax_row_ld(const std::vector<double>& x) {
  oracle::SoftmaxRow r;
  long double m = -INFINITY, s = 0;
  for (double v : x) m = std::max<long double>(m, v);
  for (double v : x) s += std::exp(static_cast<long double>(v) - m);
  r.log_sum = std::log(s);
  for (double v : x) {
    const long double t = static_cast<long double>(v) - m;
    r.gap.push_back(-t);
    r.logp.push_back(t - r.log_sum);
    r.p.push_back(std::exp(t) / s);
  }
  return r;
}

template <class T>
BiasOutcome measure_bias(Kind k, const KernelSet<T>& ks, std::uint64_t seed, std::size_t rows = 1000) {
  const auto md = bounds::model_of<T>();
  // Lengths whose a-priori allowance is finite and informative: γ_n·8 <= 1 in the arithmetic.
  const std::size_t n_hi = std::min<std::size_t>(512, static_cast<std::size_t>(1 / (8 * md.u))), n_lo = std::max<std::size_t>(2, n_hi / 4);
  gen::NormalStream normal(seed);
  std::uint64_t pick = seed ^ 0x6a09e667f3bcc909ull;
  const auto next = [&] {
    pick += 0x9e3779b97f4a7c15ull;
    std::uint64_t z = pick;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::vector<double> xs;
  BiasOutcome out;
  double sum = 0, sum2 = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    const std::size_t n = n_lo + static_cast<std::size_t>(next() % (n_hi - n_lo + 1));
    const double sigma = next() & 1 ? 1.0 : 0.5;  // drawn per row: the rows are i.i.d.
    std::vector<T> x(n), y(n);
    xs.assign(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      x[i] = scalar_traits<T>::from_double(sigma * normal.next());
      xs[i] = to_double(x[i]);
    }
    (k == Kind::softmax ? ks.softmax : ks.log_softmax)(x.data(), y.data(), n);
    const auto row = softmax_row_ld(xs);
    const auto b = k == Kind::softmax ? bounds::softmax_bound(row, md) : bounds::SoftmaxBound{};
    const auto lb = k == Kind::log_softmax ? bounds::log_softmax_bound(row, md) : std::vector<oracle::real>{};
    long double signed_err = 0, allowance = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const long double exact = k == Kind::softmax ? row.p[i] : row.logp[i];
      signed_err += static_cast<long double>(to_double(y[i])) - exact;
      allowance += k == Kind::softmax ? std::max(b.hi[i] - row.p[i], row.p[i] - b.lo[i]) : lb[i];
    }
    if (!(allowance > 0 && allowance < std::numeric_limits<long double>::infinity())) continue;
    double v = static_cast<double>(signed_err / allowance);
    v = v != v ? 0 : std::clamp(v, -1.0, 1.0);  // NaN rows are the NaN obligations' business
    sum += v, sum2 += v * v;
    ++out.rows;
  }
  if (out.rows < 2) return out;
  const double nn = static_cast<double>(out.rows);
  out.mean = sum / nn;
  out.variance = std::max(0.0, (sum2 - nn * out.mean * out.mean) / (nn - 1));
  out.threshold = bernstein_threshold(out.rows, out.variance, 2.0, 1e-9) + 0x1p-20;
  return out;
}

// The obligation: one run of measure_bias per check (the runner calls it once, AuditProperty::
// one_shot), its seed drawn from the check's derived seed and never shrunk.
template <class T>
void rounding_bias(Kind k, const KernelSet<T>& ks, const Policy&) {
  // At RapidCheck's nominal size every bit of the seed is drawn (at the first case's size, 0,
  // arbitrary<uint64_t> would give 0 whatever the run seed).
  const auto seed = *rc::gen::noShrink(rc::gen::resize(rc::kNominalSize, rc::gen::arbitrary<std::uint64_t>()));
  const BiasOutcome b = measure_bias<T>(k, ks, seed);
  property::observe(b.threshold > 0 ? std::abs(b.mean) / b.threshold : 0, "mean signed error over " + std::to_string(b.rows) + " rows");
  property::note_finding("mean signed error " + decimal(b.mean, 3) + " of the allowance over " + std::to_string(b.rows) +
                      " rows (false-alarm threshold ±" + decimal(b.threshold, 3) + " at 1e-9)");
  if (b.rows < 100) property::fail("AUDIT-BIAS-001: only " + std::to_string(b.rows) + " rows had a finite allowance: no verdict");
  if (std::abs(b.mean) > b.threshold)
    property::fail("AUDIT-BIAS-001 failed: " + std::string(kind_name(k)) + "<" + std::string(format_of<T>.name) + ">, " +
                std::to_string(b.rows) + " rows drawn from row seed " + hex_u64(seed) + " (the replay line re-draws them)\n" +
                "  Mean signed error: " + decimal(b.mean, 3) + " of the derived allowance (sample variance " +
                decimal(b.variance, 3) + ")\n" + "  Allowed:           |mean| <= " + decimal(b.threshold, 3) +
                " (empirical Bernstein, false-alarm probability 1e-9 for errors of mean zero)\n" +
                "  The errors lean " + (b.mean < 0 ? "low" : "high") +
                ": outputs rounded toward zero (truncation) or a sum accumulated with a directed rounding; a kernel that rounds "
                "to nearest has mean about 0.");
}

}  // namespace attncheck::audit
