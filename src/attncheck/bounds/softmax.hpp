// attncheck: derived a-priori error bounds of the reference softmax and log-softmax.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "attncheck/bounds/error_model.hpp"
#include "attncheck/oracle/exact.hpp"

namespace attncheck::bounds {

// Derivation (proofs/softmax_kernel.tex, SM-BND-001), for the algorithm of kernels/softmax.hpp:
//   t̂_j = fl(x_j - m) = t_j(1+δ), so exp's argument moves by a_j = u|t_j|;
//   ê_j = exp(t̂_j)(1+η_j) ± η,   |η_j| <= exp_rel;
//   ŝ in [(1-u)^{n-1}, (1+u)^{n-1}] · Σ ê_j   (a sum of n non-negatives in any order: each term
//                                  goes through at most n − 1 roundings; SoftmaxRounding.
//                                  row_sum_fl_enclosure. Finite at every n, where the γ_{n−1}
//                                  form 1 ± γ_{n-1} has no finite value from (n−1)u = 1);
//   ŷ_i = ê_i/ŝ (1+ρ) ± η,       |ρ| <= u.
// With S = Σ e^{t_j} >= 1 and p_j = e^{t_j}/S, Σ ê_j / S lies in [L, U] where
//   L = (1-exp_rel) Σ p_j e^{-a_j} - nη,  U = (1+exp_rel) Σ p_j e^{a_j} + nη,
// and p_j e^{±a_j} = exp(log p_j ± a_j) is evaluated from the oracle's log-softmax (no overflow).
struct SoftmaxBound {
  std::vector<real> lo, hi;  // ŷ_i must lie in [lo_i, hi_i]
  real sum_lo = 0, sum_hi = 0;  // Σ ê_j / S range
  real den_lo = 0, den_hi = 0;  // ŝ / S range: the sum's enclosure times [sum_lo, sum_hi] (used by log-softmax)
};

namespace detail {
// SM-BND-001 with the argument of exp uncertain by a(j) around logp_j (see softmax_bound).
template <class ArgErr>
SoftmaxBound softmax_bound_with(const oracle::SoftmaxRow& r, const Model& md, const ArgErr& arg_err) {
  const std::size_t n = r.p.size();
  SoftmaxBound b;
  const real k = static_cast<real>(n > 0 ? n - 1 : 0);
  real wl = 0, wu = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const real a = arg_err(j);
    wl += std::exp(r.logp[j] - a);
    wu += std::exp(r.logp[j] + a);
  }
  const real neta = static_cast<real>(n) * md.eta;
  b.sum_lo = std::max<real>(0, (1 - md.exp_rel) * wl - neta);
  b.sum_hi = (1 + md.exp_rel) * wu + neta;
  b.den_lo = std::pow(1 - md.u, k) * b.sum_lo;
  b.den_hi = std::pow(1 + md.u, k) * b.sum_hi;
  b.lo.resize(n);
  b.hi.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const real a = arg_err(i);
    const real num_hi = (std::exp(r.logp[i] + a) * (1 + md.exp_rel) + md.eta) * (1 + md.u);
    const real num_lo = std::max<real>(0, (std::exp(r.logp[i] - a) * (1 - md.exp_rel) - md.eta) * (1 - md.u));
    const real hi = b.den_lo > 0 ? num_hi / b.den_lo + md.eta : std::numeric_limits<real>::infinity();
    const real lo = std::max<real>(0, num_lo / b.den_hi - md.eta);
    // Headroom for evaluating this in real (error_model.hpp): widen both half-widths.
    const real p = r.p[i];
    // Capped at 1: a quotient ê_i/ŝ with ê_i one of ŝ's non-negative summands never exceeds 1
    // (and so does its rounding to a storage format).
    // Mixed precision: the output rounded once more, to storage (error_model.hpp, round_out).
    const real hi_out = md.mixed() ? hi * (1 + md.out_u) + md.out_eta : hi;
    const real lo_out = md.mixed() ? std::max<real>(0, lo * (1 - md.out_u) - md.out_eta) : lo;
    b.hi[i] = std::min<real>(1, p + std::max<real>(0, hi_out - p) * evaluation_slack);
    b.lo[i] = std::max<real>(0, p - std::max<real>(0, p - lo_out) * evaluation_slack);
  }
  return b;
}
}  // namespace detail

inline SoftmaxBound softmax_bound(const oracle::SoftmaxRow& r, const Model& md) {
  return detail::softmax_bound_with(r, md, [&](std::size_t j) { return md.u * r.gap[j]; });
}

// The same interval for a kernel that was handed inputs ŝ_j only known to lie within input_err[j]
// of the exact row s whose softmax r is (e.g. scores it computed itself), around p = softmax(s).
// SM-BND-001 holds at ŝ; its ingredients are exp(log p_j(ŝ) ± u gap_j(ŝ)). With Δ = ŝ − s,
// |Δ_j| <= δ_j, δ = max_j δ_j and c = log Σ_k p_k(s) e^{Δ_k} in [−δ, δ]:
//   log p_j(ŝ) = log p_j(s) + Δ_j − c          moves by at most δ_j + δ,
//   gap_j(ŝ) = max ŝ − ŝ_j <= gap_j(s) + δ_j + δ,
// so each ingredient lies within exp(log p_j(s) ± a_j), a_j = δ_j + δ + u(gap_j(s) + δ_j + δ);
// the formulas are monotone in them, so evaluating them with a_j bounds the kernel's output.
inline SoftmaxBound softmax_bound(const oracle::SoftmaxRow& r, const Model& md, const std::vector<real>& input_err) {
  real worst = 0;
  for (real e : input_err) worst = std::max(worst, e);
  return detail::softmax_bound_with(r, md, [&](std::size_t j) {
    const real shift = input_err[j] + worst;
    return shift + md.u * (r.gap[j] + shift);
  });
}

// |Σ_i ŷ_i - 1|: the computed outputs are ê_i/ŝ(1+ρ_i) ± η, so Σ ŷ = (Σ ê/ŝ)(1 ± u) ± nη with
// Σ ê / ŝ in [1/(1+u)^{n-1}, 1/(1-u)^{n-1}]: ŝ, a sum of n non-negative floats in any order,
// has each term through at most n − 1 roundings (1 + δ) (SoftmaxRounding.row_sum_fl_enclosure,
// proofs/coq). Finite at every n, where the γ form [1/(1+γ_{n-1}), 1/(1-γ_{n-1})] it sharpens
// is infinite from (n−1)u = 1 (bf16 rows of 257, f16 rows of 2049) and loose well before. The
// exact sum of the outputs (evaluated by the caller in high precision) must lie within this of 1.
inline real normalisation_bound(std::size_t n, const Model& md) {
  const real k = static_cast<real>(n > 0 ? n - 1 : 0);
  const real up = (1 + md.u) / std::pow(1 - md.u, k) - 1, down = 1 - (1 - md.u) / std::pow(1 + md.u, k);
  const real in_arithmetic = std::max(up, down) + static_cast<real>(n) * md.eta;
  // Mixed precision: each output rounded to storage, Σŷ_S = Σŷ (1 ± out_u) ± n out_eta/2.
  return (md.round_out(1, in_arithmetic) + static_cast<real>(n) * md.out_eta) * evaluation_slack;
}

// log_softmax: ŷ_i = fl(fl(x_i - m) - fl(log ŝ)), exact y_i = t_i - log S with ŝ = S·r,
// r in [(1-u)^{n-1} L, (1+u)^{n-1} U]:  |ŷ_i - y_i| <= B + u(|y_i| + B),
// B = u|t_i| + |log r|max (1 + log_rel) + log_rel·log S.
inline std::vector<real> log_softmax_bound(const oracle::SoftmaxRow& r, const Model& md) {
  const SoftmaxBound sb = softmax_bound(r, md.arithmetic());  // the sum stays in the arithmetic
  const real r_lo = sb.den_lo, r_hi = sb.den_hi;
  const real log_r = r_lo > 0 ? std::max(std::abs(std::log(r_lo)), std::abs(std::log(r_hi)))
                                : std::numeric_limits<real>::infinity();
  // Mixed precision: the normaliser and its log may be stored in the storage format S on the
  // way, as PyTorch's CPU log_softmax does for bf16 (log of the sum rounded to bf16):
  // log(ŝ(1+δ)) moves by |log(1+δ)| <= u_S/(1-u_S), and the stored log by u_S|log ŝ| + η_S, so
  // the subtracted log errs by stored_ls more (proofs/bounds/mixed_precision.md).
  const real ls_hi = r.log_sum + log_r * (1 + md.log_rel) + md.log_rel * r.log_sum;
  const real stored_ls = md.mixed() ? md.out_u / (1 - md.out_u) + md.out_u * (ls_hi + md.out_u) + md.out_eta : 0;
  std::vector<real> out(r.p.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const real B = md.u * r.gap[i] + log_r * (1 + md.log_rel) + md.log_rel * r.log_sum + stored_ls;
    out[i] = md.round_out(std::abs(r.logp[i]), B + md.u * (std::abs(r.logp[i]) + B)) * evaluation_slack;
  }
  return out;
}

}  // namespace attncheck::bounds
