// attncheck: derived error bound of the reference RMSNorm y = x/√(mean(x²)+ε) ⊙ w.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "attncheck/bounds/error_model.hpp"

namespace attncheck::bounds {

// kernels/rmsnorm.hpp: m̂s = fl(dot̂(x,x)/fl(d)), r̂ = fl(sqrt(fl(m̂s + ε))), ŷ_i = fl(fl(x_i/r̂)·w_i)
// (proofs/bounds/rmsnorm.md). Each rounding is fl(z) = z(1+δ) + e, |δ| <= u, |e| <= η/2.
//   dot̂(x,x) = Σx²(1+θ) + Σe_j(1+θ'), |θ| <= γ_d, |θ'| <= γ_{d-1} (all terms >= 0); the division by
//   d adds two roundings (d to T, quotient, with one more e) and the +ε one more, so
//   r̂² = (ms+ε)·f ± η·f', f within [(1-u)^{d+2}/(1+u), (1+u)^{d+2}/(1-u)] (and 1 ± γ_{d+3}), f' <= the
//   upper end (and 1 + γ_{d+2}); relative to ms+ε: [lo, hi] (rmsnorm_bound; finite at every d, where
//   ρ = γ_{d+3} + η(1+γ_{d+2})/(ms+ε) reached 1 at (d+3)u = 1/2).
//   Then r̂/r ∈ [√lo(1-u), √hi(1+u)] (a square root of a positive float is normal).
//   q_i = fl(x_i/r̂) = (x_i/r̂)(1+δ₁) + e₁ and ŷ_i = fl(q_i·w_i) = q_i w_i(1+δ₂) + e₂, so the
//   quotient's underflow granule e₁ is multiplied by the gain:
//   |ŷ_i - y_i| <= |y_i|·φ + ((1+u)|w_i| + 1)·η/2,  φ = (1+u)² / ((1-u)√lo) - 1 (the farther end).
// (A flat 3η in place of the second term is unsound once |w_i| > 5/(1+u): tests/bounds_test.cpp.)
// ms_plus_eps is mean(x²)+ε of the exact input (oracle); w_i is the gain of the element.
// 16-bit storage with f32 arithmetic (proofs/bounds/mixed_precision.md): the f32 bound, and the
// normalised value may be stored in S before the gain is applied, as Hugging Face's LlamaRMSNorm
// does (w * h.to(dtype)): ŷ = RN_S(RN_S(q)·w), two roundings to S, so
//   φ' = (1+φ)(1+u_S)² - 1 and the absolute part (1+u_S)² of f32's plus ((1+u)(1+u_S)|w_i| + 1)η_S.
struct RmsnormBound {
  real phi = 0;
  real eta = 0;
  real u = 0;
  real out_u = 0, out_eta = 0;  // the storage format's, under f32 arithmetic (bounds::Model)
  // The absolute (underflow) part of the bound of an element with gain w_i.
  real absolute(real gain) const {
    const real in_arithmetic = ((1 + u) * std::abs(gain) + 1) * eta / 2;
    if (out_u == 0) return in_arithmetic;
    return in_arithmetic * (1 + out_u) * (1 + out_u) + ((1 + u) * (1 + out_u) * std::abs(gain) + 1) * out_eta;
  }
  // An infinite φ (r̂² not known to be positive: ms + ε tiny against η) bounds nothing: infinite allowance.
  real allowed(real exact_y, real gain) const {
    if (!(phi < std::numeric_limits<real>::infinity())) return std::numeric_limits<real>::infinity();
    return (std::abs(exact_y) * phi + absolute(gain)) * evaluation_slack;
  }
};

inline RmsnormBound rmsnorm_bound(std::size_t d, real ms_plus_eps, const Model& md) {
  const real u = md.u, inf = std::numeric_limits<real>::infinity();
  // r̂² = (ms+ε)·f + E: f the product of d+2 roundings (1+δ) (the squares, the sum, the quotient,
  // the +ε) and the division by fl(d), (1+δ_d)^-1, so f ∈ [(1−u)^{d+2}/(1+u), (1+u)^{d+2}/(1−u)]
  // at every d, within 1 ± γ_{d+3} (Higham Lemma 3.1: the narrower of the two is kept where γ is
  // finite); E the underflow part, at most η times such a factor of d+2 roundings.
  real rel_lo = growth_lo(d + 2, u) / (1 + u), rel_hi = growth_hi(d + 2, u) / (1 - u), eta_mult = rel_hi;
  if (const real g3 = gamma(d + 3, u); g3 < 1) rel_lo = std::max(rel_lo, 1 - g3), rel_hi = std::min(rel_hi, 1 + g3);
  if (const real g2 = gamma(d + 2, u); g2 < inf) eta_mult = std::min(eta_mult, 1 + g2);
  if (!(ms_plus_eps > 0)) return {inf, md.eta, md.u, md.out_u, md.out_eta};
  const real lo = rel_lo - md.eta * eta_mult / ms_plus_eps, hi = rel_hi + md.eta * eta_mult / ms_plus_eps;
  if (!(lo > 0)) return {inf, md.eta, md.u, md.out_u, md.out_eta};
  // r̂/r ∈ [√lo(1−u), √hi(1+u)] (the square root of a positive float is normal), then the quotient
  // and the gain: the factor of y_i lies in [(1−u)²/((1+u)√hi), (1+u)²/((1−u)√lo)].
  const real phi = std::max((1 + u) * (1 + u) / ((1 - u) * std::sqrt(lo)) - 1, 1 - (1 - u) * (1 - u) / ((1 + u) * std::sqrt(hi)));
  return {(1 + phi) * (1 + md.out_u) * (1 + md.out_u) - 1, md.eta, md.u, md.out_u, md.out_eta};
}

}  // namespace attncheck::bounds
