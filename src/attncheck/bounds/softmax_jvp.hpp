// attncheck: derived error bound of the reference softmax JVP dy = p ⊙ (dx - <dx>_p).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "attncheck/bounds/softmax.hpp"

namespace attncheck::bounds {

// kernels/softmax_jvp.hpp computes p̂ = softmax(x) (element bound A_j from softmax_bound), then
// μ̂ = Σ p̂_j dx_j (recursive), then dŷ_i = p̂_i·fl(dx_i - μ̂). With μ = Σ p_j dx_j and
// S = Σ (p_j + A_j)|dx_j|:
//   Δμ <= Σ A_j|dx_j| + min(γ_n S + nη, ((1+u)^n − 1) S + n(η/2)(1+u)^n)  (the first only while nu < 1),
//   |dŷ_i - dy_i| <= [A_i(|dx_i - μ| + Δμ) + p_iΔμ](1+u)² + (p_i + A_i)(|dx_i - μ| + Δμ)((1+u)² - 1) + η.
inline std::vector<real> softmax_jvp_bound(const oracle::SoftmaxRow& r, const std::vector<real>& dx,
                                             const Model& md) {
  const SoftmaxBound sb = softmax_bound(r, md.arithmetic());  // p̂ stays in the arithmetic
  const std::size_t n = r.p.size();
  std::vector<real> A(n);
  real mu = 0, s1 = 0, s2 = 0;
  for (std::size_t j = 0; j < n; ++j) {
    A[j] = std::max(sb.hi[j] - r.p[j], r.p[j] - sb.lo[j]);
    mu += r.p[j] * dx[j];
    // A term with dx_j = 0 is exactly 0 in the kernel (p̂_j·0), however large A_j is: skip it,
    // or an infinite A_j (γ_n >= 1 on a long bf16 row) would make 0·∞ = NaN an allowance that
    // every result fails (seed 1 found it: FALSIFY-SLIP-002 [bf16] with dx = -0·1).
    if (dx[j] == 0) continue;
    s1 += A[j] * std::abs(dx[j]);
    s2 += (r.p[j] + A[j]) * std::abs(dx[j]);
  }
  // μ̂'s rounding (ScoresRounding.v): γ_n·s2 + nη while n·u < 1 (dot_fl_error_gamma), and at every
  // n ((1+u)^n − 1)·s2 + n(η/2)(1+u)^n (dot_fl_error): the smaller of the two where both hold, the
  // second alone where γ_n is infinite. A term is 0 when s2 = 0 (μ̂ sums exact zeros).
  const real nn = static_cast<real>(n), pw = std::pow(1 + md.u, nn);
  const real e_pow = (s2 > 0 ? (pw - 1) * s2 : 0) + nn * (md.eta / 2) * pw;
  const real e = nn * md.u < 1 ? std::min((s2 > 0 ? gamma(n, md.u) * s2 : 0) + nn * md.eta, e_pow) : e_pow;
  const real dmu = (s1 + e) * evaluation_slack;
  const real r2 = (1 + md.u) * (1 + md.u);
  std::vector<real> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    // |dx_i - μ| with μ summed in real (2^-64) from real-rounded p: add that evaluation's error.
    const real c = std::abs(dx[i] - mu) + static_cast<real>(n + 2) * 0x1p-63L * (std::abs(dx[i]) + s2) + dmu;
    // Mixed precision: dŷ_i rounded once more, to storage (round_out, |dy_i| <= p_i|dx_i - μ|).
    const real B = (A[i] * c + r.p[i] * dmu) * r2 + (r.p[i] + A[i]) * c * (r2 - 1) + md.eta;
    out[i] = md.round_out(r.p[i] * std::abs(dx[i] - mu), B) * evaluation_slack;
  }
  return out;
}

}  // namespace attncheck::bounds
