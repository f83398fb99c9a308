// attncheck: the reference backward pass of batched attention as shipped (attention_batched.hpp):
// given q, k, v, the output o, its cotangent dO and the row log-sum-exp, the gradients dQ, dK, dV
// (include/attncheck/abi.h states the semantics). One loop serves the plain kernel and
// FlashAttention-2's tiled one (key blocks outer, dQ accumulated across them): the plain kernel
// is one block of every key. The weights are recomputed from the LSE, P = exp(s − LSE), with the
// forward's own score function (attention_score_parts), so the mask, the soft-cap and ALiBi are
// those of the forward, not a second copy of them.
//
//   D_i  = Σ_c dO_ic O_ic                       (preprocessed once per row)
//   P_ij = exp(s_ij − LSE_i),  dP_ij = dO_i · v_j,  dS_ij = P_ij (dP_ij − D_i)
//   dS_ij ← dS_ij (1 − tanh²(s¹_ij / c))         with a soft-cap c (s¹ the scaled score)
//   dV_j += P_ij dO_i,   dQ_i += dS_ij k_j,   dK_j += dS_ij q_i   (then dQ, dK times the scale)
// ALiBi slopes and the mask carry no gradient; a row that sees no key adds nothing; dK and dV of a
// key/value head are summed over the query heads of its group.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

#include "attncheck/kernels/attention_batched.hpp"

namespace attncheck::kernels {

// The steps of attention_backward, each static so that a broken kernel (broken_attention_backward.hpp)
// replaces exactly one and inherits the rest (as AttentionSteps does for the forward).
struct AttentionBackwardSteps : AttentionSteps {
  // D_i = dO_i · O_i.
  template <Scalar T>
  static T row_delta(const T* dout, const T* o, std::size_t dv) { return dot(dout, o, dv); }
  // P_ij = exp(s_ij − LSE_i): the weight recomputed from the forward's log-sum-exp.
  template <Scalar T>
  static T weight(T s, T lse) { return shifted_exp_step(s, lse); }
  // dS_ij = P_ij (dP_ij − D_i).
  template <Scalar T>
  static T score_grad(T p, T dp, T delta) { return T(p * T(dp - delta)); }
  // The soft-cap's chain rule: d(c tanh(x/c))/dx = 1 − tanh²(x/c).
  template <Scalar T>
  static T cap_grad(T ds, T tanh) { return T(ds * T(lit<T>(1) - T(tanh * tanh))); }
  // Called when head h of batch b begins, with the whole dK and dV: the reference adds every
  // head of a group into its key/value head's rows, so it does nothing here.
  template <Scalar T>
  static void head_begins(const AttentionShape&, std::size_t /*b*/, std::size_t /*h*/, T* /*dk*/, T* /*dv*/) {}
  // Called after each key block with the dQ row of query i: the reference keeps it in T.
  template <Scalar T>
  static void dq_block_done(T* /*dq_i*/, std::size_t /*d*/) {}
  // The scale, applied once to every accumulated dQ and dK element.
  template <Scalar T>
  static T scale_dq(T acc, T scale) { return T(acc * scale); }
  template <Scalar T>
  static T scale_dk(T acc, T scale) { return T(acc * scale); }
};

// dQ (q's layout), dK (k's), dV (v's) of problem p at the cotangent dout (o's layout); o and lse
// the forward's output and row log-sum-exp. tiling.bc = 0: one block of every key (plain);
// otherwise key blocks of bc (outer) and query tiles of br (0: all n), FlashAttention-2's order.
template <Scalar T, class Steps = AttentionBackwardSteps>
void attention_backward(const AttentionProblem& p, const T* q, const T* k, const T* v, const T* o, const T* dout, const T* lse, T* dq,
                        T* dk, T* dv, Tiling tiling = {}) {
  const AttentionShape& sh = p.shape;
  const std::size_t n = sh.n, m = sh.m, d = sh.d, dvn = sh.dv;
  const std::size_t bc = tiling.bc ? tiling.bc : std::max<std::size_t>(m, 1);
  const std::size_t br = tiling.br ? tiling.br : std::max<std::size_t>(n, 1);
  const ScoreParams<T> sp(p);
  std::fill(dq, dq + sh.q_size(), lit<T>(0));
  std::fill(dk, dk + sh.k_size(), lit<T>(0));
  std::fill(dv, dv + sh.v_size(), lit<T>(0));
  std::vector<T> delta(n);
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t h = 0; h < sh.heads; ++h) {
      const std::size_t g = Steps::kv_head(sh, h);
      Steps::head_begins(sh, b, h, dk, dv);
      for (std::size_t i = 0; i < n; ++i) delta[i] = Steps::row_delta(dout + sh.o_at(b, i, h), o + sh.o_at(b, i, h), dvn);
      for (std::size_t j0 = 0; j0 < m; j0 += bc) {
        const std::size_t j1 = std::min(m, j0 + bc);
        for (std::size_t i0 = 0; i0 < n; i0 += br) {
          const std::size_t i1 = std::min(n, i0 + br);
          if (!Steps::tile(p, i0, i1, j0, j1)) continue;
          for (std::size_t i = i0; i < i1; ++i) {
            const auto r = Steps::visible(p, i);
            const std::size_t lo = std::max(j0, r.first), hi = std::min(j1, r.last);
            if (r.empty() || lo >= hi) continue;
            const T* qi = q + sh.q_at(b, i, h);
            const T* doi = dout + sh.o_at(b, i, h);
            T* dqi = dq + sh.q_at(b, i, h);
            const long long diag = p.mask.diagonal(i, n, m);
            const T li = lse[sh.lse_at(b, h, i)];
            for (std::size_t j = lo; j < hi; ++j) {
              const T* kj = k + sh.k_at(b, j, g);
              const T* vj = v + sh.v_at(b, j, g);
              const ScoreParts<T> sc = attention_score_parts(p, sp, qi, kj, h, diag, j);
              const T pij = Steps::weight(sc.s, li);
              const T dp = dot(doi, vj, dvn);
              T ds = Steps::score_grad(pij, dp, delta[i]);
              if (sp.capped) ds = Steps::cap_grad(ds, sc.tanh);
              T* dvj = dv + sh.v_at(b, j, g);
              for (std::size_t c = 0; c < dvn; ++c) dvj[c] = dot_step(dvj[c], pij, doi[c]);
              T* dkj = dk + sh.k_at(b, j, g);
              for (std::size_t t = 0; t < d; ++t) {
                dqi[t] = dot_step(dqi[t], ds, kj[t]);
                dkj[t] = dot_step(dkj[t], ds, qi[t]);
              }
            }
            Steps::dq_block_done(dqi, d);
          }
        }
      }
    }
  for (std::size_t e = 0; e < sh.q_size(); ++e) dq[e] = Steps::scale_dq(dq[e], sp.scale);
  for (std::size_t e = 0; e < sh.k_size(); ++e) dk[e] = Steps::scale_dk(dk[e], sp.scale);
}

}  // namespace attncheck::kernels
