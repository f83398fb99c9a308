// attncheck: directional derivative (JVP) of single-head attention by the chain rule (softmax-jvp-v1):
//   Ṡ = (Q̇Kᵀ + QK̇ᵀ)/√d,   Ṗ_i = p_i ⊙ (ṡ_i − ⟨ṡ_i⟩_{p_i}) per row,   Ȯ = ṖV + PV̇.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"

namespace attncheck::kernels {

// The chain rule is written once, over the parts it is handed (scores, softmax and softmax JVP
// with the signatures of kernels/scores.hpp, softmax.hpp, softmax_jvp.hpp), so that a kernel
// set's own parts can be composed and checked against the derivative of the reference attention;
// attention_jvp below hands it the reference templates.

// Ṡ = scores(Q̇, K) + scores(Q, K̇): by bilinearity of q·k this is (Q̇Kᵀ + QK̇ᵀ)/√d. Two score
// matrices (each divided by the rounded √d) and one addition per entry.
// q, dq: n x d; k, dk: m x d; ds: n x m, all row-major.
template <Scalar T, class ScoresFn>
void scores_jvp_with(const ScoresFn& scores_fn, const T* q, const T* k, const T* dq, const T* dk,
                     std::size_t n, std::size_t m, std::size_t d, T* ds) {
  std::vector<T> a(n * m), b(n * m);
  scores_fn(dq, k, n, m, d, a.data());
  scores_fn(q, dk, n, m, d, b.data());
  for (std::size_t i = 0; i < n * m; ++i) ds[i] = a[i] + b[i];
}

// Ȯ for O = softmax(QKᵀ/√d + mask)V (kernels/attention.hpp) along (Q̇, K̇, V̇).
// v, dv: m x dv_dim; dout: n x dv_dim. A masked key (causal, j > i) has score −inf, whose
// perturbation is 0 (the mask does not move), so it gets p_j = ṗ_j = 0 exactly. Each output is
// one 2m-term dot product Σ_j ṗ_j V_jc + p_j V̇_jc, accumulated left to right. As in attention,
// a query that sees no key (m = 0) gets an all-NaN row.
template <Scalar T, class ScoresFn, class SoftmaxFn, class SoftmaxJvpFn>
void attention_jvp_with(const ScoresFn& scores_fn, const SoftmaxFn& softmax_fn, const SoftmaxJvpFn& softmax_jvp_fn,
                        const T* q, const T* k, const T* v, const T* dq, const T* dk, const T* dv,
                        std::size_t n, std::size_t m, std::size_t d, std::size_t dv_dim, bool causal, T* dout) {
  const T minus_inf = lit<T>(-std::numeric_limits<double>::infinity());
  const T zero = lit<T>(0);
  std::vector<T> s(n * m), ds(n * m), row(m), drow(m), p(m), dp(m);
  scores_fn(q, k, n, m, d, s.data());
  scores_jvp_with(scores_fn, q, k, dq, dk, n, m, d, ds.data());
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < m; ++j) {
      const bool visible = !causal || j <= i;
      row[j] = select(visible, s[i * m + j], minus_inf);
      drow[j] = select(visible, ds[i * m + j], zero);
    }
    softmax_fn(row.data(), p.data(), m);
    softmax_jvp_fn(row.data(), drow.data(), m, dp.data());
    for (std::size_t c = 0; c < dv_dim; ++c) {
      T acc = zero;
      for (std::size_t j = 0; j < m; ++j) {
        acc = dot_step(acc, dp[j], v[j * dv_dim + c]);
        acc = dot_step(acc, p[j], dv[j * dv_dim + c]);
      }
      dout[i * dv_dim + c] = select(m > 0, acc, lit<T>(std::numeric_limits<double>::quiet_NaN()));
    }
  }
}

// The reference attention JVP: the chain rule over the reference templates.
template <Scalar T>
void attention_jvp(const T* q, const T* k, const T* v, const T* dq, const T* dk, const T* dv, std::size_t n,
                   std::size_t m, std::size_t d, std::size_t dv_dim, bool causal, T* dout) {
  attention_jvp_with<T>(scores<T>, softmax<T>, softmax_jvp<T>, q, k, v, dq, dk, dv, n, m, d, dv_dim, causal, dout);
}

}  // namespace attncheck::kernels
