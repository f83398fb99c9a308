// attncheck: the standard model of floating-point error used by every derived bound.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <type_traits>

#include "attncheck/oracle/exact.hpp"
#include "attncheck/scalar/arithmetic.hpp"
#include "attncheck/scalar/traits.hpp"

namespace attncheck::bounds {

using oracle::real;

// Standard model (Higham, Accuracy and Stability of Numerical Algorithms, §2.2): for round to
// nearest, fl(a op b) = (a op b)(1 + δ), |δ| <= u, as long as the result is normal; in the
// subnormal range an absolute error of at most half the subnormal spacing η is added
// (addition and subtraction of floats are then exact). exp/log add their own relative error.
struct Model {
  real u;        // unit roundoff of the arithmetic format
  real eta;      // its subnormal spacing (absolute error granule); 0 for the oracle
  real exp_rel;  // relative error of exp (from the libm's documented maximum, see traits)
  real log_rel;  // relative error of log
  // The final rounding of each output to the storage format, for 16-bit storage with f32
  // arithmetic (scalar/arithmetic.hpp); 0 when the arithmetic is the storage format itself.
  // |RN_S(z) - z| <= out_u |z| + out_eta/2, so an output within B of y in the arithmetic is
  // within round_out(|y|, B) after it (proofs/bounds/mixed_precision.md).
  real out_u = 0;
  real out_eta = 0;
  // Attention under f32 arithmetic: whether the scores are stored in the storage format too
  // (Intermediates::unfused, scalar/arithmetic.hpp); the weights P are stored in both models.
  bool scores_stored = false;
  // The relative error of each key and value element as the kernel sees it, against the inputs
  // the exact value is computed from: 0, except for a kernel that dequantizes them first (an FP8
  // cache: decode(code) · scale rounded in the arithmetic, bounds/attention_fp8kv.hpp).
  real input_rel = 0;
  // And the absolute part of that error: a dequantized value that underflows in the arithmetic
  // (|fl(x) − x| <= u|x| + η/2), or whose scale is subnormal there.
  real input_abs = 0;

  // (Without a final rounding, B itself: an infinite B must not become inf·0 = NaN.)
  real round_out(real y_abs, real B) const { return mixed() ? B + out_u * (y_abs + B) + out_eta : B; }
  // The model of the arithmetic alone: for the intermediate values of a composite kernel, which
  // stay in the arithmetic format (only outputs are rounded to storage).
  Model arithmetic() const { return {u, eta, exp_rel, log_rel, 0, 0, false, input_rel, input_abs}; }
  // The same model with the scores stored (the unfused one), for "passes if declared unfused".
  Model unfused() const { Model m = *this; m.scores_stored = mixed(); return m; }
  bool mixed() const { return out_u != 0; }
};

namespace detail {
template <class T>
constexpr Model plain_model() {
  return {format_of<T>.unit_roundoff, format_of<T>.denorm_min, scalar_traits<T>::exp_rel, scalar_traits<T>::log_rel};
}
}  // namespace detail

// The error model of kernels whose values are stored in T, under the current arithmetic: T's
// own, or for 16-bit T with f32 arithmetic, f32's with a final rounding to T.
// Flush to zero (Subnormals::flush, proofs/bounds/flush_to_zero.md): a result z below the smallest
// normal N may be 0, |fl(z) - z| <= max(u|z|, N) <= u|z| + N. The standard model holds with the
// subnormal granule η replaced by 2N: each place η/2 (or η) bounds one operation's absolute error,
// N does. So the model's η, and for mixed precision the storage rounding's η_S, become twice the
// smallest normal of their formats. Inputs are read as given (no denormals-are-zero).
inline real flushed_eta(const format_info& f) { return 2 * static_cast<real>(std::ldexp(1.0, f.min_exponent)); }

template <class T>
Model model_of() {
  const bool flush = current_subnormals() == Subnormals::flush;
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
    if (current_arithmetic() == Arithmetic::f32) {
      Model m = detail::plain_model<float>();
      m.out_u = format_of<T>.unit_roundoff;
      m.out_eta = flush ? flushed_eta(format_of<T>) : static_cast<real>(format_of<T>.denorm_min);
      if (flush) m.eta = flushed_eta(format_of<float>);
      m.scores_stored = current_intermediates() == Intermediates::unfused;
      return m;
    }
  }
  Model m = detail::plain_model<T>();
  if (flush) m.eta = flushed_eta(format_of<T>);
  return m;
}

// γ_k = k u / (1 - k u) (Higham Lemma 3.1): the relative error of k chained roundings.
// Infinite once k u >= 1: the a-priori bound says nothing there, and says so.
inline real gamma(std::size_t k, real u) {
  const real ku = static_cast<real>(k) * u;
  return ku < 1 ? ku / (1 - ku) : std::numeric_limits<real>::infinity();
}

// The factor (1+δ_1)…(1+δ_k), |δ_i| <= u, that k chained roundings of a product or sum put on one
// term (no division among them): within [(1 − u)^k, (1 + u)^k] at every k, where 1 ± γ_k encloses
// it only while ku < 1/2 (below 0 after) and never more tightly ((1+u)^k <= 1 + γ_k by Higham's
// Lemma 3.1, Coq ScoresRounding.pow_sub_1_le_gamma; (1−u)^k >= 1 − ku >= 1 − γ_k by Bernoulli).
inline real growth_hi(std::size_t k, real u) { return std::pow(1 + u, static_cast<real>(k)); }
inline real growth_lo(std::size_t k, real u) { return std::pow(1 - u, static_cast<real>(k)); }
// |log((1+δ_1)…(1+δ_k))| <= k·|log(1 − u)|, finite at every k (for lg(γ_k) = −log(1 − γ_k)).
inline real growth_log(std::size_t k, real u) { return -static_cast<real>(k) * std::log1p(-u); }

// The bounds are evaluated in `real` (long double, u = 2^-64) from oracle values rounded to
// real. Every allowance is at least u_T >= 2^-53 relative to the value it bounds, and the
// evaluation (sums of at most 2^12 terms) errs by at most about 2^-52 relative to it: so
// widening every allowance by 2^-8 makes evaluating the bound itself never unsound.
inline constexpr real evaluation_slack = 1.0L + 0x1p-8L;

}  // namespace attncheck::bounds
