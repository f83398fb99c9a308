// attncheck: derived error bound of the reference RMSNorm y = x/√(mean(x²)+ε) ⊙ w.
#pragma once

#include <cmath>
#include <cstddef>

#include "attncheck/bounds/error_model.hpp"

namespace attncheck::bounds {

// kernels/rmsnorm.hpp: m̂s = fl(dot̂(x,x)/fl(d)), r̂ = fl(sqrt(fl(m̂s + ε))), ŷ_i = fl(fl(x_i/r̂)·w_i).
//   dot̂(x,x) = Σx²(1+θ) ± dη/2 with |θ| <= γ_d (all terms >= 0), the division by d adds two
//   roundings (d to T, quotient) and the +ε one more, so r̂² = (ms+ε)(1±ν) ± η, ν = γ_{d+3};
//   relative: ρ = ν + η/(ms+ε). Then r̂/r ∈ [√(1-ρ)(1-u), √(1+ρ)(1+u)] and two more roundings:
//   |ŷ_i - y_i| <= |y_i|·φ + 3η,  φ = (1+u)² / ((1-u)√(1-ρ)) - 1.
// ms_plus_eps is mean(x²)+ε of the exact input (oracle).
struct RmsnormBound {
  real phi = 0;
  real eta = 0;
  // An infinite φ (γ_{d+3} >= 1: d too long for the format) bounds nothing: infinite allowance.
  real allowed(real exact_y) const {
    if (!(phi < std::numeric_limits<real>::infinity())) return std::numeric_limits<real>::infinity();
    return (std::abs(exact_y) * phi + 3 * eta) * evaluation_slack;
  }
};

inline RmsnormBound rmsnorm_bound(std::size_t d, real ms_plus_eps, const Model& md) {
  const real rho = gamma(d + 3, md.u) + (ms_plus_eps > 0 ? md.eta / ms_plus_eps : 1.0);
  if (rho >= 1) return {std::numeric_limits<real>::infinity(), md.eta};
  return {(1 + md.u) * (1 + md.u) / ((1 - md.u) * std::sqrt(1 - rho)) - 1, md.eta};
}

}  // namespace attncheck::bounds
