// attncheck: the numbers of FALSIFY-ASCL-001, the χ² test of score variance, in one place. The
// property (falsify/attention_scaling.cpp) runs with them and reports its power from them;
// falsify/runner/contract_numbers.cpp checks that contracts/attention-scaling-v1.yaml states the
// same numbers (N, the d_k range, the acceptance intervals and the power at the default run).
#pragma once

#include <cmath>
#include <cstdio>
#include <string>

#include <boost/math/distributions/chi_squared.hpp>

namespace attncheck::falsify::variance_test {

inline constexpr int samples = 4096;  // N: queries per case, all scored against one key
inline constexpr int min_d = 2, max_d = 64;  // d_k, uniform; the runtime is ∝ N·d_k
// False alarms: at most alpha_run per run of <= max_cases cases at every one of the formats.
// Half of it goes to the per-case tests (α_case each), half to the pooled test (α_pool per format).
inline constexpr int formats = 6;  // f32, f64, f16@f32, bf16@f32, f16@f16, bf16@bf16
inline constexpr int max_cases = 10000;  // `--cases` and ATTNCHECK_CASES are clamped to it
inline constexpr double alpha_run = 1e-9;
inline constexpr double alpha_case = alpha_run / 2 / (formats * max_cases);
inline constexpr double alpha_pool = alpha_run / 2 / formats;
inline constexpr double miss = 1e-9;  // the power is stated at detection probability >= 1 - miss
inline constexpr int default_cases = 200;  // the suite's and the gate's default case count

// The two-sided acceptance region of T ~ χ²_ν at level α: [q(α/2), q(1 − α/2)].
struct Acceptance {
  double lo = 0, hi = 0;
};
inline Acceptance acceptance(double nu, double alpha) {
  const boost::math::chi_squared chi(nu);
  return {boost::math::quantile(chi, alpha / 2), boost::math::quantile(boost::math::complement(chi, alpha / 2))};
}

// A relative scale error s of every score makes T = (1 + s)²·X, X ~ χ²_ν. The test rejects high
// when T_lo > q_hi and low when T_hi < q_lo; with the kernel's rounding allowance T_lo >= r_lo·T
// and T_hi <= r_hi·T. So an upward s is detected with probability >= 1 − β once
// (1 + s)²·r_lo·Q_X(β) >= q_hi, a downward one once (1 + s)²·r_hi·Q_X(1 − β) <= q_lo:
//   up = sqrt(q_hi / (r_lo·Q_X(β))) − 1,  down = sqrt(q_lo / (r_hi·Q_X(1 − β))) − 1 (< 0).
// β = 1/2 gives the scale errors detected with probability >= 1/2 (the median of X).
struct Power {
  double up = 0, down = 0;
};
inline Power power(double nu, double alpha, double beta, double r_lo = 1, double r_hi = 1) {
  const boost::math::chi_squared chi(nu);
  const Acceptance a = acceptance(nu, alpha);
  return {std::sqrt(a.hi / (r_lo * boost::math::quantile(chi, beta))) - 1,
          std::sqrt(a.lo / (r_hi * boost::math::quantile(boost::math::complement(chi, beta)))) - 1};
}

// The figures as the contract writes them: a ratio to 4 decimals, a percentage to 2.
inline std::string fixed_digits(double v, int digits) {
  char b[64];
  std::snprintf(b, sizeof b, "%.*f", digits, v);
  return b;
}
inline std::string percent(double s) { return (s >= 0 ? "+" : "−") + fixed_digits(std::abs(100 * s), 2) + " %"; }

}  // namespace attncheck::falsify::variance_test
