// attncheck: the exact value and the derived allowance of one output row (b, h, i) of batched
// attention as shipped (kernels/attention_batched.hpp): O and the log-sum-exp, for the plain
// kernel (one block), a tiled one with key tiles of bc, or a third party's whose tiling is unknown.
// Derivation: proofs/attention_kernel.tex, Lemmas "score error", "online softmax error" and
// "log-sum-exp error". The exact row comes from the SAME score function evaluated at 200 bits.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "attncheck/bounds/attention_merge.hpp"
#include "attncheck/bounds/error_model.hpp"
#include "attncheck/kernels/attention_batched.hpp"
#include "attncheck/oracle/exact.hpp"

namespace attncheck::bounds {

// The tiling a bound is derived for. plain: one block per row (T = 1). tiles(bc): key tiles of bc.
// any: a kernel whose tiling is not known (a third party's): the worst case, a block per key.
struct KeyBlocks {
  std::size_t bc = 0;  // 0: plain
  bool unknown = false;
  static KeyBlocks plain() { return {}; }
  static KeyBlocks tiles(std::size_t bc) { return {bc, false}; }
  static KeyBlocks any() { return {0, true}; }
  // How many blocks the visible keys [first, last) of a row fall in.
  std::size_t count(kernels::AttentionMask::Range r) const {
    if (r.empty()) return 0;
    if (unknown) return r.size();
    if (bc == 0) return 1;
    return (r.last - 1) / bc - r.first / bc + 1;
  }
};

// One score's exact value s and the bound δ of |ŝ − s| (Lemma "score error"):
//   dot:       |dot̂ − q·k| <= γ_d Σ|q_t k_t| + dη
//   scale:     ŝ₁ = fl(dot̂ · fl(scale)):  δ₁ = scale((1+γ₂)E_dot + γ₂|q·k|) + η
//   soft-cap:  x̂ = fl(ŝ₁/fl(c)), |x̂ − s₁/c| <= Δx = ((1+γ₁)δ₁ + 2γ₁|s₁|)/c; tanh through exp
//              errs by E_t = 2ρ + u(1 + 2ρ), ρ = (1+u)/((1−ε_exp−η)(1−u)) − 1, and tanh is
//              1-Lipschitz: δ₂ = c(1+u)(E_t + min(Δx, 2)) + cu + uc(1+u)(1+E_t)
//   ALiBi:     b̂ = fl(fl(σ)·fl(dist)) within γ₃σ·dist; ŝ₃ = fl(ŝ₂ − b̂): δ₃ = δ₂ + γ₃σ·dist + u(|s₃| + δ₂ + γ₃σ·dist)
// With 16-bit storage and f32 arithmetic, a kernel declared unfused (md.scores_stored,
// scalar/arithmetic.hpp) may also store each score intermediate in the storage format along the
// way, as a math-path kernel does (the scale folded into q or itself rounded to storage, the score,
// each soft-cap step):
// round_out after each stage (proofs/bounds/mixed_precision.md). A fused kernel (the default)
// keeps its scores in the arithmetic: the callers pass md.arithmetic() for it (score_model).
inline Model score_model(const Model& md) { return md.scores_stored ? md : md.arithmetic(); }

// abs_operand: max(Σ_t|q_t|, Σ_t|k_t|), for the scale folded into q (or k) and stored: each
// element then errs by u_S·scale|q_t| + η_S/2 (its subnormal part), so the dot product by
// u_S·scale·Σ|q_t k_t| + (η_S/2)·Σ|k_t|.
inline real score_error_scaled(real dot_exact, real abs_dot, real abs_operand, std::size_t d, real scale, const Model& md) {
  const Model a = md.arithmetic();
  // Keys seen with an error ρ|k_t| + α (ρ = a.input_rel, α = a.input_abs: dequantized):
  // |q·k̃ − q·k| <= ρΣ|q_t k_t| + αΣ|q_t|, and the dot product's own γ_d applies to
  // Σ|q_t k̃_t| <= (1 + ρ)Σ|q_t k_t| + αΣ|q_t| (Σ|q_t| <= abs_operand).
  const real rho = a.input_rel, g = gamma(d, a.u);
  const real E = (g * (1 + rho) + rho) * abs_dot + (1 + g) * a.input_abs * abs_operand + static_cast<real>(d) * a.eta;
  real delta = scale * ((1 + gamma(2, a.u)) * E + gamma(2, a.u) * std::abs(dot_exact)) + a.eta;
  if (md.mixed()) {
    delta += md.out_u * scale * abs_dot + md.out_eta / 2 * abs_operand;  // the scale folded into q (or k), stored
    // The scale itself rounded to the storage format before it multiplies the stored q·k (PyTorch's
    // CPU ops cast a Python scalar to a bf16 tensor's dtype): u_S·scale·|q·k̂| more.
    delta += md.out_u * scale * (abs_dot + E) * (1 + md.out_u);
    // Or q and k each multiplied by √scale and stored before the product (PyTorch's
    // _scaled_dot_product_attention_math): q'_t = q_t√scale(1 + φ_q) + α_q with |φ_q| <= φ =
    // (1 + u_S)²(1 + u) − 1 (√scale rounded to S, the product, the store) and |α_q| <= η_S, the same
    // for k'; then Σ q'_t k'_t in the arithmetic (γ_d) and no scale after it
    // (proofs/attention_backward.tex, Lemma "unfused backward", scores).
    const real phi = (1 + md.out_u) * (1 + md.out_u) * (1 + a.u) - 1, f2 = (1 + phi) * (1 + phi);
    const real abs_in = (1 + rho) * abs_dot + a.input_abs * abs_operand;  // Σ|q_t k̃_t|
    const real stored_abs = 2 * md.out_eta * std::sqrt(scale) * (1 + phi) * abs_operand + static_cast<real>(d) * md.out_eta * md.out_eta;
    const real pre = scale * f2 * E + scale * (f2 - 1) * abs_in * (1 + g) + (1 + g) * stored_abs + static_cast<real>(d) * a.eta;
    delta = std::max(delta, pre);
  }
  return md.round_out(scale * std::abs(dot_exact), delta);
}

inline real score_error_capped(real s1, real delta1, real c, const Model& md) {
  const Model a = md.arithmetic();
  const real u = a.u, g1 = gamma(1, u);
  const real dx = md.round_out(std::abs(s1) / c, ((1 + g1) * delta1 + 2 * g1 * std::abs(s1)) / c);
  const real rho = (1 + u) / ((1 - a.exp_rel - a.eta) * (1 - u)) - 1;
  const real et = md.round_out(1, 2 * rho + u * (1 + 2 * rho));  // the tanh, stored in a math path
  const real delta = c * (1 + u) * (et + std::min<real>(dx, 2)) + c * u + u * c * (1 + u) * (1 + et);
  return md.round_out(c, delta);
}

inline real score_error_biased(real s3, real delta2, real bias, const Model& md) {
  const Model a = md.arithmetic();
  const real eb = md.round_out(bias, gamma(3, a.u) * bias);
  return md.round_out(std::abs(s3), delta2 + eb + a.u * (std::abs(s3) + delta2 + eb) + a.eta);
}

// The line a failure under the fused model (the default) adds when the unfused model, which lets
// the scores be stored in the storage format too, admits the error: a user must not have to guess.
inline std::string unfused_note(std::string_view storage) {
  return "Passes if declared unfused (the scores stored in " + std::string(storage) +
         " before the softmax, as separate ops do): audit --stores scores,p, or stores: scores,p in the bindings file "
         "(docs/formats.md)";
}

// The weights P stored in the storage format for the P·V product (both models): each numerator
// term errs by u_S relative and, where the weight is subnormal in S, by η_S/2 absolute
// (|RN_S(w) − w| <= u_S|w| + η_S/2). The absolute part is later rescaled by factors <= (1+ε_exp)
// per block (nb blocks) and divided by a normaliser >= (1 − ε_exp)(1 − u)^{K+nb} (its largest
// term is exp(0) and is not rescaled after its block), the numerator's sum adding (1 + u)^{K+nb+1}
// (the sums' roundings as growth_lo/growth_hi, error_model.hpp, where γ_{K+nb} was used before):
// the absolute error per visible key, to be multiplied by |v_jc|. 0 without 16-bit storage.
inline real stored_weight_abs(const Model& md, std::size_t K, std::size_t nb) {
  if (!md.mixed()) return 0;
  const real er = md.exp_rel;
  return md.out_eta / 2 * std::pow(1 + er, static_cast<real>(nb)) * growth_hi(K + nb + 1, md.u) / ((1 - er) * growth_lo(K + nb, md.u));
}

// Lemma "value shift" (proofs/attention_kernel.tex): ô_c − o_c = Σ_j (p̂_j − p_j)(v_jc − c) + c(Σ_j p̂_j − 1)
// for every constant c, p̂_j the weights the kernel multiplies v_j by (before its final division's
// rounding) and Σ_j p_j = 1. The first sum is the bound below with |v_jc − c| for |v_jc|; the second
// needs only |Σ_j p̂_j − 1|, and that does not depend on the score errors, provided the kernel
// normalises with the same computed scores ŝ_j it weights v by (every softmax-then-P·V and online-
// softmax kernel does; a kernel whose normaliser is exp(LSE) of those scores too): with a_j =
// e^{ŝ_j − M} > 0, Σ_j p̂_j = Σ_j a_j φ_j / Σ_j a_j ψ_j lies between min_j φ_j/ψ_j and max_j φ_j/ψ_j
// (mediant), φ_j the numerator's other factors (the subtraction's rounding e^{±u L_j}, exp and the
// rescalings (1 ± ε)^nb, the P·V sum γ_{K+nb+1}, P stored u_S) and ψ_j the normaliser's (the same
// but γ_{K+nb} for the sum, or, normalising by exp(L̂), L̂'s own error B₀ with the subtraction's
// argument grown by ln K + B₀). So |Σ_j p̂_j − 1| <= max_j expm1(a_j + d_j), the log-factors below.
// A value column with a mean (v_jc = c + small) then gets an allowance of about |c|(γ + u_S), not
// |c| times the score errors: that is what shows a 16-bit P·V accumulator, whose error grows with
// |c| and K (audit/attention_at_size.hpp). Not finite (16-bit arithmetic at long rows): infinite.
inline real weight_sum_deviation(const oracle::SoftmaxRow& row, const std::vector<real>& delta, real max_delta, real abs_lse,
                                 const Model& md, std::size_t K, std::size_t nb) {
  const Model a = md.arithmetic();
  const real u = a.u, inf = std::numeric_limits<real>::infinity();
  const auto lg = [inf](real x) { return x < 1 ? -std::log1p(-x) : inf; };  // >= |log(1 ± x)|
  const real nbr = static_cast<real>(nb), lnK = std::log(static_cast<real>(K)), eta_sub = 2 * static_cast<real>(K * (nb + 1)) * a.eta;
  const real ln_exp = nbr * lg(a.exp_rel), ln_den = growth_log(K + nb, u), ln_num = growth_log(K + nb + 1, u);
  const real ln_stored = md.mixed() ? lg(md.out_u) : 0;
  real uL_max = 0;
  for (std::size_t jj = 0; jj < K; ++jj) uL_max = std::max(uL_max, u * (row.gap[jj] + delta[jj] + max_delta));
  // L̂ = m̂ + log(Σ_k e^{ŝ_k − m̂}ψ_k) against M + log Σ_k a_k: the LSE lemma without the score errors.
  const real lam0 = uL_max + ln_exp + ln_den + eta_sub, larg = lnK + lam0;
  const real B0 = lam0 + a.log_rel * larg + u * (abs_lse + max_delta + lam0 + a.log_rel * larg) + a.eta;
  real worst = 0;
  for (std::size_t jj = 0; jj < K; ++jj) {
    const real L = row.gap[jj] + delta[jj] + max_delta;
    const real an = u * (L + lnK + B0) + ln_exp + ln_num + ln_stored;
    const real dn = std::max(u * L + ln_exp + ln_den, B0);
    worst = std::max(worst, std::expm1(an + dn));
  }
  return std::isfinite(worst) ? worst : inf;
}

// The value-shift bound of one output column (without the terms that stay relative to |v|, which
// the caller adds): Σ_j p_j|v_j − c|w_j + |c|W + η-terms at the c minimising the piecewise-linear
// part, a weighted median of the v_j (weights p_j w_j + stored_abs) and 0 (weight W + K·stored_abs +
// sub). Any c gives a valid bound; infinite when W is.
inline real shifted_value_bound(const std::vector<real>& p, const std::vector<real>& v, const std::vector<real>& w, real W, real sub,
                                real stored_abs) {
  const std::size_t K = v.size();
  if (!std::isfinite(W) || K == 0) return std::numeric_limits<real>::infinity();
  std::vector<std::pair<real, real>> pts;
  pts.reserve(K + 1);
  real total = 0;
  for (std::size_t j = 0; j < K; ++j) pts.emplace_back(v[j], p[j] * w[j] + stored_abs), total += pts.back().second;
  pts.emplace_back(0, W + static_cast<real>(K) * stored_abs + sub);
  total += pts.back().second;
  std::sort(pts.begin(), pts.end());
  real acc = 0, c = 0;
  for (const auto& [x, q] : pts)
    if ((acc += q) >= total / 2) {
      c = x;
      break;
    }
  real B = std::abs(c) * (W + static_cast<real>(K) * stored_abs + sub), dmax = 0;
  for (std::size_t j = 0; j < K; ++j) {
    const real dv = std::abs(v[j] - c);
    B += p[j] * dv * w[j] + stored_abs * dv;
    dmax = std::max(dmax, dv);
  }
  return B + sub * dmax;
}

// The exact scores of row (b, h, i) and the bound of each computed score's error, through the
// kernels' own score function at 200 bits (attention_score_parts): for the forward's allowance
// and the backward's (bounds/attention_backward.hpp).
struct RowScores {
  kernels::AttentionMask::Range keys;  // the visible keys
  std::vector<mpfr200> s;              // exact scores of the visible keys
  std::vector<real> delta;             // bound of |ŝ_j − s_j| (Lemma "score error")
  std::vector<real> scaled, delta_scaled;  // scale·(q·k) before any soft-cap, and its error bound
  std::vector<real> tanh;              // tanh(scale·(q·k)/c) with a soft-cap (else 0)
  real max_delta = 0;
};

template <class T>
RowScores row_scores(const kernels::AttentionProblem& p, const std::vector<T>& q, const std::vector<T>& k, std::size_t b, std::size_t h,
                     std::size_t i, const Model& md) {
  const auto& sh = p.shape;
  const std::size_t g = sh.kv_head(h), d = sh.d;
  RowScores r;
  r.keys = p.mask.visible(i, sh.n, sh.m);
  const std::size_t K = r.keys.size();
  const kernels::ScoreParams<mpfr200> sp(p);
  const long long diag = p.mask.diagonal(i, sh.n, sh.m);
  std::vector<mpfr200> qi(d), kj(d);
  real abs_q = 0;
  for (std::size_t t = 0; t < d; ++t) {
    qi[t] = mpfr200(to_double(q[sh.q_at(b, i, h) + t]));
    abs_q += std::abs(static_cast<real>(to_double(q[sh.q_at(b, i, h) + t])));
  }
  const Model smd = score_model(md);
  r.s.resize(K);
  r.delta.resize(K);
  r.scaled.resize(K);
  r.delta_scaled.resize(K);
  r.tanh.assign(K, 0);
  for (std::size_t jj = 0; jj < K; ++jj) {
    const std::size_t j = r.keys.first + jj;
    mpfr200 abs_dot = 0;
    real abs_k = 0;
    for (std::size_t t = 0; t < d; ++t) {
      kj[t] = mpfr200(to_double(k[sh.k_at(b, j, g) + t]));
      abs_dot += abs(qi[t] * kj[t]);
      abs_k += std::abs(static_cast<real>(to_double(k[sh.k_at(b, j, g) + t])));
    }
    const auto parts = kernels::attention_score_parts(p, sp, qi.data(), kj.data(), h, diag, j);
    r.s[jj] = parts.s;
    r.tanh[jj] = oracle::dbl(parts.tanh);
    const mpfr200 dot = kernels::dot(qi.data(), kj.data(), d);
    const real scale = static_cast<real>(p.scale);
    r.scaled[jj] = oracle::dbl(mpfr200(dot * mpfr200(p.scale)));
    real dl = score_error_scaled(oracle::dbl(dot), oracle::dbl(abs_dot), std::max(abs_q, abs_k), d, scale, smd);
    r.delta_scaled[jj] = dl;
    if (p.softcap > 0) dl = score_error_capped(r.scaled[jj], dl, static_cast<real>(p.softcap), smd);
    if (!p.alibi_slopes.empty()) {
      const real bias = static_cast<real>(std::abs(p.alibi_slopes[h])) * static_cast<real>(std::llabs(diag - static_cast<long long>(j)));
      dl = score_error_biased(oracle::dbl(r.s[jj]), dl, bias, smd);
    }
    r.delta[jj] = dl;
  }
  if (K) r.max_delta = *std::max_element(r.delta.begin(), r.delta.end());
  return r;
}

// The exact row and its allowances.
struct AttentionRowAllowance {
  kernels::AttentionMask::Range keys;       // the visible keys
  std::vector<real> o, o_allowance;         // exact o_c and the bound of |ô_c − o_c|
  real lse = -std::numeric_limits<real>::infinity(), lse_allowance = 0;
  real max_score_error = 0;                 // max_j δ_j, for reports
  RowScores scores;                         // the exact scores and their bounds (row_scores)
  std::vector<real> p;                      // the exact weights softmax(s)_j of the visible keys
};

// Lemma "split-KV error" (proofs/attention_merge.tex): a kernel told p.num_splits = S > 1 may cut
// the row's K visible keys into at most S parts of its choosing (the audit sees neither the parts
// nor the partials), finish each part as a partial (O_s, ℓ_s) by the online softmax above, store
// O_s (16-bit storage: rounded to it) and merge. Made uniform over every partition:
//   - within a part, each term's factor lies in [r_lo_j, r_hi_j] (the row's gaps bound the part's,
//     blocks <= nb + 1, a part boundary cutting one more), and the part's normalisers in
//     [D̲, D̄] = [(1 − γ)min_j r_lo_j, (1 + γ)max_j r_hi_j], so Σ_s w_s|Ô_sc − O_sc| is at most
//     the row's Σ_j p_j|v_jc|W̄_j plus the same extras as above (w_s p^s_j = p_j);
//   - each partial LSE errs by δ̄ (the LSE lemma with those normalisers, |ℓ_s| <= ℓ̄ =
//     max(|M| + ln K, |min_j s_j|));
//   - MERGE-EQV-001's propagation with δ = δ̄, then merge_row_error_uniform at |ℓ̂_s| <= ℓ̄ + δ̄.
// A kernel that does not split is covered by the unsplit allowance: the larger of the two is kept.
template <class AbsV>
void split_allowance(AttentionRowAllowance& r, const oracle::SoftmaxRow& row, real M, const Model& md, std::size_t nb,
                     std::size_t S, AbsV abs_v) {
  const Model a = md.arithmetic();
  const std::size_t K = r.keys.size(), dv = r.o.size();
  const real u = a.u, er = a.exp_rel, inf = std::numeric_limits<real>::infinity();
  const std::size_t nbs = std::min(K, nb + 1);
  const real stored = md.mixed() ? md.out_u : 0;
  std::vector<real> hi(K), lo(K);
  real rmax = 0, rmin = inf, gap_max = 0;
  for (std::size_t jj = 0; jj < K; ++jj) {
    const real L = row.gap[jj] + r.scores.delta[jj] + r.max_score_error;
    hi[jj] = std::exp(r.scores.delta[jj] + u * L) * std::pow(1 + er, static_cast<real>(nbs));
    lo[jj] = std::exp(-r.scores.delta[jj] - u * L) * std::pow(1 - er, static_cast<real>(nbs));
    rmax = std::max(rmax, hi[jj]), rmin = std::min(rmin, lo[jj]), gap_max = std::max(gap_max, row.gap[jj]);
  }
  const real Dh = growth_hi(K + nbs, u) * rmax, Dl = growth_lo(K + nbs, u) * rmin;
  const real sub = 2 * static_cast<real>(K * (nbs + 1)) * a.eta, sabs = stored_weight_abs(md, K, nbs);
  const real lnK = std::log(static_cast<real>(K));
  const real ell = std::max(std::abs(M) + lnK, std::abs(M - gap_max));
  const real lam = std::max(std::log(Dh), -std::log(Dl)) + sub;
  const real larg = r.max_score_error + lnK + lam;
  const real dbar = lam + a.log_rel * larg + u * (ell + lam + a.log_rel * larg) + a.eta;
  const MergeRowError me = merge_row_error_uniform(S, ell + dbar, md);
  const real gn_hi = growth_hi(K + nbs + 1, u), gn_lo = growth_lo(K + nbs + 1, u);
  const bool finite = std::isfinite(gn_hi) && Dl > 0 && me.finite && std::isfinite(dbar);
  const real lse_b = finite ? (dbar + me.lse_allowance) * evaluation_slack : inf;
  r.lse_allowance = std::max(r.lse_allowance, lse_b);
  const real grow = std::exp(2 * dbar), rho = me.weight_rel[0], Sr = static_cast<real>(S);
  for (std::size_t c = 0; c < dv; ++c) {
    real R = 0, mag = 0, pw = 0, mass = 0, wmax = 0, vmax = 0, vsum = 0;
    for (std::size_t jj = 0; jj < K; ++jj) {
      const real av = abs_v(jj, c), pv = r.p[jj] * av;
      const real W = std::max(hi[jj] * gn_hi * (1 + stored) / Dl - 1, 1 - lo[jj] * gn_lo * (1 - stored) / Dh);
      R += pv * W, mag += pv * (1 + W), pw += r.p[jj] * (1 + W), mass += pv;
      wmax = std::max(wmax, W), vmax = std::max(vmax, av), vsum += av;
    }
    const real extra = sub * vmax + a.eta + sabs * vsum;
    R += u * mag + extra + a.input_rel * mag + a.input_abs * pw;
    const real E = md.round_out(mass, R);  // Σ_s w_s |Ô_sc − O_sc|: each partial stored
    // One partial's error and magnitude, whatever its part: |Ô_sc| <= vmax + that error.
    const real one = md.round_out(vmax, vmax * wmax + (u + a.input_rel) * vmax * (1 + wmax) + extra + a.input_abs * (1 + wmax));
    const real omax = vmax + one;
    const real prop = grow * E + (grow - 1) * mass;  // MERGE-EQV-001 with δ = δ̄
    const real mw = grow * (mass + E);               // >= Σ_s w̃_s |Ô_sc|
    const real merge = rho * mw + me.weight_abs * Sr * omax + gamma(S + 1, u) * ((1 + rho) * mw + me.weight_abs * Sr * omax) + (Sr + 1) * a.eta;
    const real B = prop + merge;
    const real allow = finite && std::isfinite(B) ? md.round_out(std::abs(r.o[c]), B) * evaluation_slack : inf;
    r.o_allowance[c] = std::max(r.o_allowance[c], allow);
  }
}

// Row (b, h, i) of problem p; q, k, v the kernel's inputs (any scalar type with to_double).
// md: the model of the kernel's O (model_of<T>(): arithmetic and storage); its LSE is returned
// in lse_t<T> and computed in the arithmetic, so md.arithmetic() applies to it.
template <class T>
AttentionRowAllowance attention_row_allowance(const kernels::AttentionProblem& p, const std::vector<T>& q, const std::vector<T>& k,
                                              const std::vector<T>& v, std::size_t b, std::size_t h, std::size_t i, KeyBlocks blocks,
                                              const Model& md) {
  const auto& sh = p.shape;
  const std::size_t g = sh.kv_head(h), dv = sh.dv;
  AttentionRowAllowance r;
  r.keys = p.mask.visible(i, sh.n, sh.m);
  r.o.assign(dv, 0);
  r.o_allowance.assign(dv, 0);
  const std::size_t K = r.keys.size();
  if (K == 0) return r;

  // Exact scores through the kernels' own score function at 200 bits, and each one's δ.
  r.scores = row_scores(p, q, k, b, h, i, md);
  const std::vector<mpfr200>& s = r.scores.s;
  const std::vector<real>& delta = r.scores.delta;
  r.max_score_error = r.scores.max_delta;

  // Exact weights, output and log-sum-exp.
  const auto row = oracle::softmax_row_exact(s);
  r.p = row.p;
  const mpfr200 M = kernels::row_max(s.data(), K);
  r.lse = oracle::dbl(M) + row.log_sum;
  std::vector<real> vmax(dv, 0), vsum(dv, 0);
  for (std::size_t c = 0; c < dv; ++c) {
    mpfr200 acc = 0;
    for (std::size_t jj = 0; jj < K; ++jj) {
      const double vj = to_double(v[sh.v_at(b, r.keys.first + jj, g) + c]);
      acc += mpfr200(row.p[jj]) * vj;  // p to 64 bits: within the bounds' evaluation headroom
      vmax[c] = std::max<real>(vmax[c], std::abs(static_cast<real>(vj)));
      vsum[c] += std::abs(static_cast<real>(vj));
    }
    r.o[c] = oracle::dbl(acc);
  }

  // Lemma "online softmax error": every term's exponential, after its block's exp and the later
  // rescalings (whose arguments telescope to m_final − ŝ_j <= L_j = gap_j + δ_j + δmax), carries
  // a factor common to numerator and denominator in [r_lo_j, r_hi_j]; the sums add K+T roundings
  // (denominator) and K+T+1 (numerator: the products), each term's factor within
  // [(1−u)^k, (1+u)^k] (growth_lo/hi: finite at every k, never looser than 1 ± γ_k); the final
  // division u.
  const Model a = md.arithmetic();
  const std::size_t nb = blocks.count(r.keys);
  const real er = a.exp_rel, u = a.u;
  const real den_hi = growth_hi(K + nb, u), den_lo = growth_lo(K + nb, u), num_hi = growth_hi(K + nb + 1, u),
             num_lo = growth_lo(K + nb + 1, u);
  // Both models store the weights P in the storage format: u_S relative on each numerator term,
  // and the subnormal part stored_abs per visible key (stored_weight_abs).
  const real stored = md.mixed() ? md.out_u : 0;
  std::vector<real> rhi(K), rlo(K);
  real Dhi = 0, Dlo = 0;
  for (std::size_t jj = 0; jj < K; ++jj) {
    const real L = row.gap[jj] + delta[jj] + r.max_score_error;
    rhi[jj] = std::exp(delta[jj] + u * L) * std::pow(1 + er, static_cast<real>(nb));
    rlo[jj] = std::exp(-delta[jj] - u * L) * std::pow(1 - er, static_cast<real>(nb));
    Dhi += row.p[jj] * rhi[jj];
    Dlo += row.p[jj] * rlo[jj];
  }
  Dhi *= den_hi;
  Dlo *= den_lo;
  // Terms whose exp (or a rescaling) underflowed err by η each, against a normaliser >= (1 − u)^{K+nb}
  // (the row's maximal term is exp(0) = 1 in its block and only rescaled by exp(0) after it).
  const real sub = 2 * static_cast<real>(K * (nb + 1)) * a.eta;
  const real stored_abs = stored_weight_abs(md, K, nb);
  const real weight_sum_dev = weight_sum_deviation(row, delta, r.max_score_error, std::abs(r.lse), md, K, nb);
  std::vector<real> vc(K), wj(K);
  for (std::size_t c = 0; c < dv; ++c) {
    real B = 0, mag = 0, pw = 0;
    for (std::size_t jj = 0; jj < K; ++jj) {
      vc[jj] = static_cast<real>(to_double(v[sh.v_at(b, r.keys.first + jj, g) + c]));
      const real pv = row.p[jj] * std::abs(vc[jj]);
      const real nh = rhi[jj] * num_hi * (1 + stored), nl = rlo[jj] * num_lo * (1 - stored);
      const real w = std::max(nh / Dlo - 1, 1 - nl / Dhi);
      wj[jj] = w;
      B += pv * w;
      mag += pv * (1 + w);
      pw += row.p[jj] * (1 + w);
    }
    // Values seen with an error input_rel·|v_j| + input_abs (dequantized): weighted by p_j(1 + w_j).
    const real common = u * mag + a.eta + a.input_rel * mag + a.input_abs * pw;
    B += sub * vmax[c] + stored_abs * vsum[c] + common;
    // Lemma "value shift": the same bound for v − c, plus |c| times the weights' sum deviation.
    B = std::min(B, shifted_value_bound(row.p, vc, wj, weight_sum_dev, sub, stored_abs) + common);
    // Not finite (a factor r_j overflowed: score errors of thousands, where 0·inf made NaN of a
    // zero |v| term): the bound says nothing, and says so.
    r.o_allowance[c] = std::isfinite(num_hi) && Dlo > 0 && std::isfinite(B) ? md.round_out(std::abs(r.o[c]), B) * evaluation_slack
                                                                          : std::numeric_limits<real>::infinity();
  }

  // Lemma "log-sum-exp error": m_final + log(ŝum) = lse + log D, |log D| <= λ; then log's own
  // error on |log ŝum| <= δmax + log K + λ, and the final addition's.
  const real lambda = std::max(std::log(Dhi), -std::log(Dlo)) + sub;
  const real log_arg = r.max_score_error + std::log(static_cast<real>(K)) + lambda;
  const real B = lambda + a.log_rel * log_arg + u * (std::abs(r.lse) + lambda + a.log_rel * log_arg) + a.eta;
  r.lse_allowance = std::isfinite(den_hi) && Dlo > 0 && std::isfinite(B) ? B * evaluation_slack : std::numeric_limits<real>::infinity();
  if (p.num_splits > 1) split_allowance(r, row, oracle::dbl(M), md, nb, p.num_splits, [&](std::size_t jj, std::size_t c) {
    return std::abs(static_cast<real>(to_double(v[sh.v_at(b, r.keys.first + jj, g) + c])));
  });
  return r;
}

}  // namespace attncheck::bounds
