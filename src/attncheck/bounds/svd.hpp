// attncheck: a-priori error bounds of the one-sided Jacobi SVD (linalg/svd.hpp), in the standard
// model with subnormal granule η (error_model.hpp). Derivation: proofs/spectral_bounds.tex,
// Theorem SPEC-EQV-003. Inputs the bound needs from a run: the working shape m >= n, the number N
// of rotations applied, ‖A‖_F, and the exact column norms c_j of the scaled factor W (computed
// from the kernel's output in MPFR; they enter as the scale of the bound, not as the answer).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "attncheck/bounds/error_model.hpp"

namespace attncheck::bounds {

struct SvdBound {
  real rotation_delta = 0;  // δ: one applied rotation is an orthogonal map plus a Frobenius-relative error δ
  real w_drift = 0;         // ρ_F: ‖W − M·Q‖_F, Q the product of the exact rotations
  real v_drift = 0;         // ε_V: ‖V − Q‖_F
  real omega = 0;           // ‖NᵀN − I‖_F for N the normalised non-negligible columns of W
  real negligible = 0;      // ‖Z‖_F, Z the columns of W the kernel may have treated as negligible
  real norm_error = 0;      // max_j |s_j − c_j| (the rounded column norms)
  real value = 0;           // a: |s_i − σ_i(A)| <= a for every i
  bool bounded = true;      // false when ω >= 1 or a γ_k is infinite: the bound says nothing
};

// m, n: working shape (m >= n); tol: the kernel's stopping tolerance; c: exact column norms of W.
inline SvdBound svd_bound(std::size_t m, std::size_t n, std::size_t rotations, real tol, real frob_a,
                          const std::vector<real>& c, const Model& md) {
  SvdBound b;
  const real u = md.u, eta = md.eta, N = static_cast<real>(rotations);
  const real g2 = gamma(2, u), g4 = gamma(4, u), g5 = gamma(5, u), gm = gamma(m, u), gm1 = gamma(m + 1, u);
  // c̃ = c(1+θ_4), s̃ = s(1+θ_5) ± η/2: G̃ = G + Δ, ‖Δ‖₂ <= √2(γ_5 + η/2); each output c̃x − s̃y errs by
  // γ_2(|c̃x| + |s̃y|) <= γ_2(1 + γ_5 + η/2)‖(x, y)‖ plus η(1+u) (two products in the subnormal range).
  b.rotation_delta = std::sqrt(2.0L) * (g5 + eta / 2 + g2 * (1 + g5 + eta / 2));
  const real grow = std::pow(1 + b.rotation_delta, N);
  const real abs_w = std::sqrt(2.0L * static_cast<real>(m)) * eta * (1 + u);
  const real abs_v = std::sqrt(2.0L * static_cast<real>(n)) * eta * (1 + u);
  b.w_drift = (grow - 1) * frob_a + N * abs_w * grow;
  b.v_drift = (grow - 1) * std::sqrt(static_cast<real>(n)) + N * abs_v * grow;
  // Columns the kernel may have found negligible (√α̂ <= fl(tol·fl(‖A‖_F))) go into Z; the others
  // obeyed the stopping rule |γ̂| <= tol·√α̂·√β̂ (4 roundings on the right) in the last sweep.
  const real mEta = static_cast<real>(m) * eta;
  const real thr = tol * (1 + u) * (frob_a * (1 + gamma(m * n + 1, u)) + std::sqrt(static_cast<real>(m * n) * eta) * (1 + u));
  std::vector<bool> small(c.size());
  real z2 = 0, cmax = 0;
  for (std::size_t i = 0; i < c.size(); ++i) {
    small[i] = (1 - u) * std::sqrt(std::max<real>(0, (1 - gm) * c[i] * c[i] - mEta)) <= thr;
    if (small[i]) z2 += c[i] * c[i];
    cmax = std::max(cmax, c[i]);
  }
  real om2 = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    for (std::size_t j = 0; j < c.size(); ++j) {
      if (i == j || small[i] || small[j]) continue;
      const real ai = std::sqrt((1 + gm) * c[i] * c[i] + mEta), aj = std::sqrt((1 + gm) * c[j] * c[j] + mEta);
      const real cosb = (tol * (1 + g4) * ai * aj + gm * c[i] * c[j] + mEta) / (c[i] * c[j]);
      om2 += cosb * cosb;
    }
  b.omega = std::sqrt(om2);
  b.negligible = std::sqrt(z2);
  b.norm_error = gm1 * cmax + std::sqrt(mEta) * (1 + u);
  b.value = b.w_drift + b.norm_error + b.omega * cmax + 2 * b.negligible;
  b.bounded = b.omega < 1 && std::isfinite(b.value) && std::isfinite(b.v_drift);
  if (!b.bounded) b.value = std::numeric_limits<real>::infinity();
  return b;
}

}  // namespace attncheck::bounds
