// attncheck: the exact gradients of batched attention (kernels/attention_backward.hpp) and the
// derived allowance of every element of dQ, dK and dV. Derivation: proofs/attention_backward.tex
// (each step's error, in the order the kernel computes it); the symbols below are its symbols.
//
// The kernel is given O and the LSE. Whether it uses them (FlashAttention-2: P = exp(s − LSE),
// D from O) or recomputes its own forward (PyTorch's autograd), their deviation from the exact
// values enters through λ_i = max(|LSE given − LSE|, the forward's LSE allowance) and
// ō_ic = max(|O given − O|, the forward's O allowance): one bound covers both.
//
// Two declared recipes at 16-bit storage with f32 arithmetic (scalar/arithmetic.hpp, Intermediates):
// fused (FlashAttention-2: P and dS stored for the products; the default) and unfused
// (md.scores_stored: every op's output stored, as PyTorch's autograd on 16-bit tensors; Lemma
// "unfused backward").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/bounds/error_model.hpp"

namespace attncheck::bounds {

// Exact gradients (q's, k's and v's layouts) and the allowance of each element; the exact O and
// LSE the audit hands a kernel (rounded to its formats by the caller).
struct AttentionBackwardExact {
  std::vector<real> dq, dk, dv;
  std::vector<real> dq_allowance, dk_allowance, dv_allowance;
  std::vector<real> o, lse;  // exact forward output and log-sum-exp
  // Per key row (b, j, g): whether some query sees it (a key no query sees has dK = dV = 0 exactly).
  std::vector<bool> key_seen;
};

// The exact forward (O and LSE) of every row, for the caller to round and hand to the kernel.
template <class T>
void attention_forward_exact(const kernels::AttentionProblem& p, const std::vector<T>& q, const std::vector<T>& k,
                             const std::vector<T>& v, std::vector<real>& o, std::vector<real>& lse) {
  const auto& sh = p.shape;
  o.assign(sh.o_size(), 0);
  lse.assign(sh.lse_size(), -std::numeric_limits<real>::infinity());
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t h = 0; h < sh.heads; ++h)
      for (std::size_t i = 0; i < sh.n; ++i) {
        const auto r = attention_row_allowance(p, q, k, v, b, h, i, KeyBlocks::any(), Model{0, 0, 0, 0});
        std::copy(r.o.begin(), r.o.end(), o.begin() + static_cast<std::ptrdiff_t>(sh.o_at(b, i, h)));
        lse[sh.lse_at(b, h, i)] = r.lse;
      }
}

// Which query rows (b, h, i) attention_backward_exact evaluates (a row costs K·d 200-bit
// multiply-adds): every row by default. With a subset, dQ (and O, LSE) is exact on the rows
// included, and dK, dV on the keys every one of whose viewers is included; elsewhere the
// result holds partial sums, not gradients (the sized audit, audit/attention_backward_at_size.hpp,
// judges only what it included).
using RowFilter = std::function<bool(std::size_t b, std::size_t h, std::size_t i)>;

// The gradients of problem p at cotangent dout, and their allowances for a kernel of model md
// (model_of<T>(): its arithmetic and storage) that is given o_given and lse_given (the values
// the audit handed it: lse in lse_t<T>).
template <class T, class Lse>
AttentionBackwardExact attention_backward_exact(const kernels::AttentionProblem& p, const std::vector<T>& q, const std::vector<T>& k,
                                                const std::vector<T>& v, const std::vector<T>& dout, const std::vector<T>& o_given,
                                                const std::vector<Lse>& lse_given, const Model& md, const RowFilter& include = {}) {
  const auto& sh = p.shape;
  const std::size_t d = sh.d, dv = sh.dv;
  const Model a = md.arithmetic();
  const real u = a.u, eta = a.eta, er = a.exp_rel;
  const real uS = md.mixed() ? md.out_u : 0, etaS = md.mixed() ? md.out_eta : 0;
  const real scale = static_cast<real>(p.scale);
  // Unfused (Lemma "unfused backward"): dP stored, D from O or from the stored P and dP, dS stored,
  // each soft-cap step of the chain rule stored, and each term of dQ and dK carried through at most
  // four more roundings to storage and two in the arithmetic (the scale or √scale rounded to S, its
  // product, the product's store, and a stored product scaled after its sum): ν relative, and the
  // stores' subnormal parts (dq_abs, dk_abs) absolute.
  const bool unfused = md.mixed() && md.scores_stored;
  const real nu = unfused ? std::pow(1 + uS, 4) * (1 + u) * (1 + u) - 1 : 0;
  const auto val = [](const auto& x) { return static_cast<real>(to_double(x)); };

  AttentionBackwardExact r;
  r.dq.assign(sh.q_size(), 0), r.dk.assign(sh.k_size(), 0), r.dv.assign(sh.v_size(), 0);
  r.o.assign(sh.o_size(), 0), r.lse.assign(sh.lse_size(), -std::numeric_limits<real>::infinity());
  r.key_seen.assign(sh.batch * sh.m * sh.kv_heads, false);
  // Σ over the terms of each sum: magnitudes (|term| + its error) and the errors carried in, and
  // the number of terms (for γ): accumulated per element, turned into allowances at the end.
  std::vector<real> dq_err(sh.q_size(), 0), dq_mag(sh.q_size(), 0);
  std::vector<real> dk_err(sh.k_size(), 0), dk_mag(sh.k_size(), 0), dv_err(sh.v_size(), 0), dv_mag(sh.v_size(), 0);
  std::vector<real> dq_abs(sh.q_size(), 0), dk_abs(sh.k_size(), 0);  // unfused: the stores' η_S terms (A)
  std::vector<std::size_t> dq_terms(sh.q_size() / d, 0), kv_terms(sh.batch * sh.m * sh.kv_heads, 0);
  // Grouped heads at 16-bit storage with f32 arithmetic: a kernel may round each query head's
  // dK, dV to the storage format before the group's sum (FlashAttention-2's dk_expanded,
  // dv_expanded; proofs/attention_backward.tex, Lemma "per-head partials stored"). The same sums
  // per head h (exact value, carried errors, magnitudes, terms) for the head in progress, over
  // m keys; folded at the head's end into the group's extra error (k_extra, v_extra: Σ_h u_S Y_h
  // + max(σ,1)·η_S/2; k_z, v_z: Σ_h (1 + u_S) Y_h + max(σ,1)·η_S/2, for γ of the group's sum;
  // Y_h = |partial| + its bound) and the number of heads with a term.
  const bool expanded = md.mixed() && sh.heads > sh.kv_heads;
  std::vector<real> hk_y, hk_err, hk_mag, hk_abs, hv_y, hv_err, hv_mag, k_extra, k_z, v_extra, v_z;
  std::vector<std::size_t> h_terms, kv_heads_with_terms;
  if (expanded) {
    hk_y.assign(sh.m * d, 0), hk_err.assign(sh.m * d, 0), hk_mag.assign(sh.m * d, 0), hk_abs.assign(sh.m * d, 0);
    hv_y.assign(sh.m * dv, 0), hv_err.assign(sh.m * dv, 0), hv_mag.assign(sh.m * dv, 0);
    h_terms.assign(sh.m, 0), kv_heads_with_terms.assign(sh.batch * sh.m * sh.kv_heads, 0);
    k_extra.assign(sh.k_size(), 0), k_z.assign(sh.k_size(), 0), v_extra.assign(sh.v_size(), 0), v_z.assign(sh.v_size(), 0);
  }
  const real sk = std::max<real>(scale, 1);  // the scale's factor on the η terms of dQ and dK
  // The bound of one sum before its final rounding (Theorem ATTBWD-BND-001's bracket): carried
  // errors err, magnitudes mag, N terms, the η terms' factor s_t. Unfused (Lemma "unfused
  // backward"), for dQ and dK (nu_t = ν): ν, the stores' subnormal parts A, and a stored product
  // scaled after its sum (η_S·s_t + η·s_t).
  // The sum's N + 3 roundings per term, all products or sums (no division): γ_{N+3} with (N+1)η·s_t
  // while γ is finite (the theorem), and at every N the product form of the same sum,
  // (1+u)^{N+3} − 1 with (N+1)(η/2)(1+u)^{N+3}·s_t (as ScoresRounding.dot_fl_error): the smaller,
  // never looser, and finite on the long 16-bit rows where γ_{N+3} is not.
  const auto bracket = [&](real err, real mag, real A, std::size_t N, real s_t, real nu_t) {
    const auto with = [&](real g, real Ne) {
      if (nu_t == 0) return err + g * mag + Ne;
      return (1 + nu_t) * (err + A + g * (1 + nu_t) * (mag + A) + Ne) + nu_t * mag + (etaS + eta) * s_t;
    };
    const real pw = growth_hi(N + 3, u), g = gamma(N + 3, u);
    const real by_growth = with(pw - 1, static_cast<real>(N + 1) * (eta / 2) * pw * s_t);
    return std::isfinite(g) ? std::min(with(g, static_cast<real>(N + 1) * eta * s_t), by_growth) : by_growth;
  };
  // Head h of batch b done: fold its partials into the group's extra error, and clear them.
  const auto fold_head = [&](std::size_t b, std::size_t g) {
    for (std::size_t j = 0; j < sh.m; ++j) {
      const std::size_t N = h_terms[j];
      if (N == 0) continue;
      const std::size_t kr = (b * sh.m + j) * sh.kv_heads + g;
      ++kv_heads_with_terms[kr];
      const auto fold = [&](real& y, real& err, real& mag, real& A, real s_t, real nu_t, real& extra, real& z) {
        const real Y = std::abs(y) + bracket(err, mag, A, N, s_t, nu_t);
        extra += uS * Y + s_t * etaS / 2;
        z += (1 + uS) * Y + s_t * etaS / 2;
        y = err = mag = A = 0;
      };
      for (std::size_t t = 0; t < d; ++t)
        fold(hk_y[j * d + t], hk_err[j * d + t], hk_mag[j * d + t], hk_abs[j * d + t], sk, nu, k_extra[sh.k_at(b, j, g) + t],
             k_z[sh.k_at(b, j, g) + t]);
      real no_abs = 0;
      for (std::size_t c = 0; c < dv; ++c)
        fold(hv_y[j * dv + c], hv_err[j * dv + c], hv_mag[j * dv + c], no_abs, 1, 0, v_extra[sh.v_at(b, j, g) + c], v_z[sh.v_at(b, j, g) + c]);
      h_terms[j] = 0;
    }
  };

  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t h = 0; h < sh.heads; ++h) {
      const std::size_t g = sh.kv_head(h);
      for (std::size_t i = 0; i < sh.n; ++i) {
        if (include && !include(b, h, i)) continue;
        const auto fw = attention_row_allowance(p, q, k, v, b, h, i, KeyBlocks::any(), md);
        const std::size_t K = fw.keys.size();
        const std::size_t oi = sh.o_at(b, i, h);
        std::copy(fw.o.begin(), fw.o.end(), r.o.begin() + static_cast<std::ptrdiff_t>(oi));
        r.lse[sh.lse_at(b, h, i)] = fw.lse;
        if (K == 0) continue;
        const RowScores& rs = fw.scores;  // computed once, by the forward's allowance
        // λ_i and ō_ic: the given (or recomputed) LSE's and O's deviation.
        const real L = fw.lse;
        const real lambda = std::max(std::abs(val(lse_given[sh.lse_at(b, h, i)]) - L), fw.lse_allowance);
        // D_i and its error ε^D_i: from the given (or recomputed) O.
        real D = 0, eD = 0, Dmag = 0;
        for (std::size_t c = 0; c < dv; ++c) {
          const real go = val(dout[oi + c]), oc = fw.o[c];
          const real obar = std::max(std::abs(val(o_given[oi + c]) - oc), fw.o_allowance[c]);
          D += go * oc;
          eD += std::abs(go) * obar;
          Dmag += std::abs(go) * (std::abs(oc) + obar);
        }
        eD += gamma(dv, u) * Dmag + static_cast<real>(dv) * eta;
        dq_terms[(oi / dv)] += K;
        // Per key: the recomputed weight P and its error π (stored: πS), dP_ij and its error ε^P
        // (stored too when unfused).
        std::vector<real> Pv(K), piSv(K), dPv(K), ePv(K);
        const real logK = std::log(static_cast<real>(K));
        for (std::size_t jj = 0; jj < K; ++jj) {
          const std::size_t j = fw.keys.first + jj;
          const real P = fw.p[jj], s = oracle::dbl(rs.s[jj]), dl = rs.delta[jj];
          // π: the recomputed weight's error (argument error a, exp's, the subnormal granule),
          // then stored in the storage format for the tensor-core products (πS). a also covers a
          // kernel that normalises its own forward's weights (proofs/attention_backward.tex,
          // Lemma "recomputed weights"): up to K blocks of exps, each rescaling by (1 + ε) at most
          // (K·(−log(1 − ε))), and the running maximum's rounding over |M| <= |lse| + log K.
          const real arg = dl + lambda + static_cast<real>(K) * -std::log1p(-er) +
                           gamma(4, u) * (std::abs(s) + std::abs(L) + logK + dl + rs.max_delta + lambda);
          const real pi = P * ((1 + er) * (1 + er) * std::exp(arg) * (1 + gamma(2, u)) - 1) + 2 * eta;
          Pv[jj] = P;
          piSv[jj] = pi + uS * (P + pi) + etaS / 2;
          real dP = 0, dPmag = 0;
          for (std::size_t c = 0; c < dv; ++c) {
            const real go = val(dout[oi + c]), vc = val(v[sh.v_at(b, j, g) + c]);
            dP += go * vc;
            dPmag += std::abs(go * vc);
          }
          const real eP = gamma(dv, u) * dPmag + static_cast<real>(dv) * eta;
          dPv[jj] = dP;
          ePv[jj] = unfused ? eP + uS * (std::abs(dP) + eP) + etaS / 2 : eP;
        }
        if (unfused) {
          // D from the stored P and dP instead (softmax's backward: Σ_j P̂_ij dP̂_ij in the
          // arithmetic, K terms): its error, and the larger of the two bounds.
          real eDP = 0, mag = 0;
          for (std::size_t jj = 0; jj < K; ++jj) {
            eDP += piSv[jj] * (std::abs(dPv[jj]) + ePv[jj]) + Pv[jj] * ePv[jj];
            mag += (Pv[jj] + piSv[jj]) * (std::abs(dPv[jj]) + ePv[jj]);
          }
          eD = std::max(eD, eDP + gamma(K, u) * mag + static_cast<real>(K) * eta);
        }
        for (std::size_t jj = 0; jj < K; ++jj) {
          const std::size_t j = fw.keys.first + jj;
          const std::size_t kr = (b * sh.m + j) * sh.kv_heads + g;
          r.key_seen[kr] = true;
          kv_terms[kr] += 1;
          if (expanded) ++h_terms[j];
          const real P = Pv[jj], piS = piSv[jj], dP = dPv[jj], eP = ePv[jj];
          // x = dP − D and ξ.
          const real x = dP - D;
          const real xi = eP + eD + gamma(2, u) * (std::abs(dP) + std::abs(D) + eP + eD);
          // dS = P x and its error.
          const real dS = P * x;
          real eS = piS * std::abs(x) + (P + piS) * xi + u * (P + piS) * (std::abs(x) + xi) + eta;
          real dZ = dS, eZ = eS;
          if (p.softcap > 0) {  // dZ = dS (1 − τ²)
            const real c = static_cast<real>(p.softcap), tau = rs.tanh[jj], s1 = std::abs(rs.scaled[jj]);
            const real g1 = gamma(1, u);
            real dx = ((1 + g1) * rs.delta_scaled[jj] + 2 * g1 * s1) / c;
            if (unfused) {  // x = s₁/c with c rounded to S (and its reciprocal, to S: κ), the quotient stored
              const real kappa = (1 + u) * (1 + uS) / (1 - uS);
              dx = (1 + uS) * (kappa * rs.delta_scaled[jj] / c + (kappa - 1) * s1 / c) + uS * s1 / c + etaS / 2;
            }
            const real rho = (1 + u) / ((1 - er - eta) * (1 - u)) - 1;
            real te = 2 * rho + u * (1 + 2 * rho) + std::min<real>(dx, 2);
            if (unfused) {
              te += uS * (std::abs(tau) + te) + etaS / 2;  // tanh stored
              eS += uS * (std::abs(dS) + eS) + etaS / 2;   // dS stored before the chain rule
            }
            const real f = 1 - tau * tau;
            const real fe = (2 * std::abs(tau) + te) * te + gamma(2, u) * (1 + 2 * (std::abs(tau) + te) * (std::abs(tau) + te));
            dZ = dS * f;
            eZ = eS * f + (std::abs(dS) + eS) * fe + u * (std::abs(dS) + eS) * (f + fe) + eta;
            if (unfused) {  // dS·ĉ, then ·(1 − τ̂²), then /ĉ (or ·RN_S(1/ĉ)), the first two stored: ν_c, and the stores' η_S/2
              const real nu_c = std::pow(1 + uS, 4) * (1 + u) * (1 + u) / (1 - uS) - 1;
              eZ = (1 + nu_c) * eZ + nu_c * std::abs(dZ) + etaS * (2 + fe) / c;
            }
          }
          const real eZS = eZ + uS * (std::abs(dZ) + eZ) + etaS / 2;  // dS stored for the products
          // The three products into their sums.
          for (std::size_t t = 0; t < d; ++t) {
            const real kt = val(k[sh.k_at(b, j, g) + t]), qt = val(q[sh.q_at(b, i, h) + t]);
            const std::size_t qe = sh.q_at(b, i, h) + t, ke = sh.k_at(b, j, g) + t;
            r.dq[qe] += scale * dZ * kt;
            dq_err[qe] += scale * eZS * std::abs(kt);
            dq_mag[qe] += scale * (std::abs(dZ) + eZS) * std::abs(kt);
            const real yk = scale * dZ * qt, ek = scale * eZS * std::abs(qt), mk = scale * (std::abs(dZ) + eZS) * std::abs(qt);
            r.dk[ke] += yk, dk_err[ke] += ek, dk_mag[ke] += mk;
            if (expanded) hk_y[j * d + t] += yk, hk_err[j * d + t] += ek, hk_mag[j * d + t] += mk;
            if (unfused) {  // the scaled dS stored (η_S/2 times the operand), or the operand pre-scaled and stored
              dq_abs[qe] += etaS * (std::abs(kt) + sk * (std::abs(dZ) + eZS));
              const real ak = etaS * (std::abs(qt) + sk * (std::abs(dZ) + eZS));
              dk_abs[ke] += ak;
              if (expanded) hk_abs[j * d + t] += ak;
            }
          }
          for (std::size_t c = 0; c < dv; ++c) {
            const real go = val(dout[oi + c]);
            const std::size_t ve = sh.v_at(b, j, g) + c;
            const real yv = P * go, ev = piS * std::abs(go), mv = (P + piS) * std::abs(go);
            r.dv[ve] += yv, dv_err[ve] += ev, dv_mag[ve] += mv;
            if (expanded) hv_y[j * dv + c] += yv, hv_err[j * dv + c] += ev, hv_mag[j * dv + c] += mv;
          }
        }
      }
      if (expanded) fold_head(b, g);
    }
  // Each sum: the carried errors, γ over its terms (the products, the additions in any order,
  // the scale's rounding and product: 3 more), the subnormal granule per term, the final
  // rounding to storage; then the evaluation slack. An infinite γ says the bound says nothing.
  // Unfused, dQ and dK also carry ν and the stores' subnormal parts (bracket).
  const auto finish = [&](real exact, real err, real mag, real A, std::size_t terms, real scale_terms, real nu_t) {
    const real B = bracket(err, mag, A, terms, scale_terms, nu_t);
    const real rb = md.round_out(std::abs(exact), B) * evaluation_slack;
    return std::isfinite(rb) ? rb : std::numeric_limits<real>::infinity();
  };
  r.dq_allowance.resize(sh.q_size());
  for (std::size_t e = 0; e < sh.q_size(); ++e) r.dq_allowance[e] = finish(r.dq[e], dq_err[e], dq_mag[e], dq_abs[e], dq_terms[e / d], sk, nu);
  // With per-head partials stored (expanded): the group's extra error on top of the one-sum bound,
  // which covers a kernel that sums every head in the arithmetic too. G' heads with a term give
  // G' − 1 more η terms (one per head's sum), and the group's sum of the stored partials, in the
  // arithmetic with the scale's rounding and product possibly after it, γ_{G'+1} of their sizes.
  // Unfused, each head's sum also scales its stored product after it (G' − 1 more of those terms),
  // and the group's additions may each round to storage (index_add_ of a 16-bit tensor): γ_{G'−1}
  // of u_S on the stored partials.
  const auto group_extra = [&](std::size_t kr, real extra, real z, real s_t, real nu_t) {
    if (!expanded || kv_heads_with_terms[kr] == 0) return real(0);
    const std::size_t G = kv_heads_with_terms[kr];
    const real per_head = nu_t == 0 ? eta * s_t : (1 + nu_t) * eta * s_t + (etaS + eta) * s_t;
    return static_cast<real>(G - 1) * per_head + extra + gamma(G + 1, u) * z + (unfused ? gamma(G - 1, uS) * z : 0);
  };
  r.dk_allowance.resize(sh.k_size());
  for (std::size_t e = 0; e < sh.k_size(); ++e)
    r.dk_allowance[e] = finish(r.dk[e], dk_err[e] + (expanded ? group_extra(e / d, k_extra[e], k_z[e], sk, nu) : 0), dk_mag[e], dk_abs[e],
                               kv_terms[e / d], sk, nu);
  r.dv_allowance.resize(sh.v_size());
  for (std::size_t e = 0; e < sh.v_size(); ++e)
    r.dv_allowance[e] = finish(r.dv[e], dv_err[e] + (expanded ? group_extra(e / dv, v_extra[e], v_z[e], 1, 0) : 0), dv_mag[e], 0,
                               kv_terms[e / dv], 1, 0);
  return r;
}

// The line a backward failure under the fused model (the default) adds when the unfused model
// admits the error (as the forward's unfused_note): a user must not have to guess.
inline std::string unfused_backward_note(std::string_view storage) {
  return "Passes if declared unfused (every op's output stored in " + std::string(storage) +
         ", as PyTorch's autograd on " + std::string(storage) +
         " tensors does: the scores, P, dP, dS and each product): audit --stores scores,p,dp,ds, or stores: scores,p,dp,ds in "
         "the bindings file (docs/formats.md)";
}

// The allowance of one element of dQ (which 0), dK (1) or dV (2) under the unfused model, for a
// failure under the fused one: whether declaring unfused would admit err.
template <class T, class Lse>
bool unfused_admits(const kernels::AttentionProblem& p, const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v,
                    const std::vector<T>& dout, const std::vector<T>& o_given, const std::vector<Lse>& lse_given, const Model& md, int which,
                    std::size_t e, long double err, const RowFilter& include = {}) {
  if (!md.mixed() || md.scores_stored) return false;
  const auto ex = attention_backward_exact(p, q, k, v, dout, o_given, lse_given, md.unfused(), include);
  const auto& a = which == 0 ? ex.dq_allowance : which == 1 ? ex.dk_allowance : ex.dv_allowance;
  return err <= a[e];
}

}  // namespace attncheck::bounds
