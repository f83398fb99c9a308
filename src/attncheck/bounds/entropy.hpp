// attncheck: derived error bound of the reference entropy kernel.
#pragma once

#include <cstddef>

#include "attncheck/bounds/error_model.hpp"

namespace attncheck::bounds {

// kernels/entropy.hpp computes H = Σ -(p_i·fl(log p_i)), each term rounded twice (log, product)
// and then summed left to right: all terms are >= 0, so each term's factor from the n - 1 additions
// lies in [(1-u)^{n-1}, (1+u)^{n-1}] (growth_hi; within 1 ± γ_{n-1}, and finite at every n) and
//   |Ĥ - H(p)| <= H(p)·((1+log_rel)(1+u)(1+u)^{n-1} - 1) + nη(1+u)^{n-1}
// (the upper deviation is the larger: (1+x)^k - 1 >= 1 - (1-x)^k),
// where H(p) is the exact entropy of the very row p the kernel was given.
struct EntropyBound {
  real rel = 0;  // relative part ρ_H
  real abs = 0;  // absolute part a_H
  // Mixed precision: Ĥ rounded once more, to storage: ρ_H' = (1 + ρ_H)(1 + u_S) - 1, a_H' =
  // a_H(1 + u_S) + η_S (error_model.hpp, round_out with H >= 0).
  real allowed(real exact_h) const { return (exact_h * rel + abs) * evaluation_slack; }
};

inline EntropyBound entropy_bound(std::size_t n, const Model& md) {
  const real f = growth_hi(n > 0 ? n - 1 : 0, md.u);
  const real rel = (1 + md.log_rel) * (1 + md.u) * f - 1, abs = static_cast<real>(n) * md.eta * f;
  return {(1 + rel) * (1 + md.out_u) - 1, abs * (1 + md.out_u) + md.out_eta};
}

}  // namespace attncheck::bounds
