// attncheck: derived error bound of the reference scaled dot product q·k/√d.
#pragma once

#include <cmath>
#include <cstddef>

#include "attncheck/bounds/error_model.hpp"

namespace attncheck::bounds {

// kernels/scores.hpp: ŝ = fl(dot̂ / fl(sqrt(fl(d)))).
//   dot̂ = q·k + E, |E| <= γ_d Σ_t |q_t k_t| + dη       (recursive dot product, Higham §3.1)
//   ĉ = √d (1 + ε_c), |ε_c| <= (1+u)^{3/2} - 1          (d rounded to T, then sqrt rounded)
//   ŝ = dot̂/ĉ (1+δ) ± η.
// So |ŝ - q·k/√d| <= |E|/√d · κ' + |q·k/√d| (κ' - 1) + η with κ' = (1+u)/(1-ε_c).
// abs_dot = Σ_t |q_t k_t| and exact = q·k/√d come from the oracle.
inline real score_bound(real exact, real abs_dot, std::size_t d, const Model& md) {
  // (1+u)·√(1+u) rather than powl(1+u, 1.5): the same value to a few ulps of real (2^-64, within
  // evaluation_slack), at a tenth of the cost (FALSIFY-ASCL-001 evaluates this per score).
  const real eps_c = (1 + md.u) * std::sqrt(1 + md.u) - 1;
  const real kappa = (1 + md.u) / (1 - eps_c);
  const real E = gamma(d, md.u) * abs_dot + static_cast<real>(d) * md.eta;
  const real sd = std::sqrt(static_cast<real>(d));
  const real B = E / sd * kappa + std::abs(exact) * (kappa - 1) + md.eta;
  if (!md.mixed()) return B * evaluation_slack;
  // 16-bit storage, f32 arithmetic (proofs/bounds/mixed_precision.md): the kernels people ship
  // store what they compute in the storage format S along the way, and each is allowed: a scale
  // folded into q or k and stored in S (u_S Σ|q_t k_t|/√d), the product q·k stored in S, and the
  // scaled score stored in S once more (two round_out). What is not allowed is a sum in S.
  const real folded = B + md.out_u * abs_dot / sd * kappa;
  return md.round_out(std::abs(exact), md.round_out(std::abs(exact), folded)) * evaluation_slack;
}

}  // namespace attncheck::bounds
