// attncheck: Hessian-vector products of single-head attention (softmax-jvp-v1). For the scalar loss
// L(Q, K, V) = ⟨W, O⟩ = Σ_ic W_ic O_ic, O = softmax_rows(QKᵀ/√d + mask)V (kernels/attention.hpp),
// the bilinear form aᵀ∇²L b along two directions a = (Q̇, K̇, V̇) and b = (Q', K', V'):
//   per query row, with p = softmax(s), g_j = ⟨W_i, V_j⟩, centred ȧ_j = ṡ_j − ⟨ṡ⟩_p,
//   b'_j = s'_j − ⟨s'⟩_p, C = Σ_j p_j ȧ_j b'_j and the mixed score s̈ = (Q̇K'ᵀ + Q'K̇ᵀ)/√d:
//     aᵀ∇²L_i b = Σ_j p_j [ g_j (ȧ_j b'_j − C + s̈_j − ⟨s̈⟩_p) + ȧ_j ⟨W_i, V'_j⟩ + b'_j ⟨W_i, V̇_j⟩ ]
//   (the softmax's second directional derivative, its first along the mixed score, and the two
//   V–score cross terms; V enters linearly, so there is no V–V term). Derivation: proofs/softmax_jvp.tex.
//
// Why an analytic kernel and not attention over a hyper-dual scalar: the closed form is what a
// framework's double-backward computes, and its bugs (a dropped curvature or cross term, a sign,
// an uncentred mean) are the ones worth catching; a hyper-dual evaluation of kernels::attention
// would be the oracle's own computation at lower precision and could only differ from it by
// rounding. The oracle is still the derivative of the SAME attention template (oracle/autodiff.hpp,
// order-2 jets over MPFR); this file writes only the second-order chain rule, over the score,
// softmax and dot-product kernels.
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "attncheck/kernels/attention_jvp.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"

namespace attncheck::kernels {

// One direction in the inputs of attention: q n x d, k m x d, v m x dv, row-major.
template <class T>
struct HeadDirection {
  const T* q;
  const T* k;
  const T* v;
};

// aᵀ∇²L_i b for one query row over its L visible keys. s: scores; sa, sb: their derivatives along
// a and b; sab: the mixed second derivative s̈; g, ga, gb: ⟨W_i, V_j⟩ and its derivatives along a, b.
template <Scalar T>
T attention_hvp_row(const T* s, const T* sa, const T* sb, const T* sab, const T* g, const T* ga, const T* gb,
                    std::size_t L) {
  std::vector<T> p(L), ca(L), cb(L);
  softmax(s, p.data(), L);
  T mu_a = lit<T>(0), mu_b = lit<T>(0), mu_ab = lit<T>(0);
  for (std::size_t j = 0; j < L; ++j) {
    mu_a = dot_step(mu_a, p[j], sa[j]);
    mu_b = dot_step(mu_b, p[j], sb[j]);
    mu_ab = dot_step(mu_ab, p[j], sab[j]);
  }
  T cov = lit<T>(0);
  for (std::size_t j = 0; j < L; ++j) {
    ca[j] = sa[j] - mu_a;
    cb[j] = sb[j] - mu_b;
    cov = dot_step(cov, p[j], T(ca[j] * cb[j]));
  }
  T h = lit<T>(0);
  for (std::size_t j = 0; j < L; ++j) {
    const T curvature = T(T(ca[j] * cb[j]) - cov) + T(sab[j] - mu_ab);
    const T cross = T(ca[j] * gb[j]) + T(cb[j] * ga[j]);
    h = dot_step(h, p[j], T(T(g[j] * curvature) + cross));
  }
  return h;
}

// The chain rule over all rows, written once over the row step it is handed (the reference row
// above, or a mutant's), so that a wrong row formula can be checked against the same scaffolding.
// Masked keys (causal, j > i) are left out of the row: their score is the constant −∞, so their
// weight and every derivative of it are 0. m = 0 gives NaN (no distribution, as in attention).
template <Scalar T, class RowFn>
T attention_hvp_with(const RowFn& row_fn, const T* q, const T* k, const T* v, const T* w, HeadDirection<T> a,
                     HeadDirection<T> b, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal) {
  if (m == 0) return lit<T>(std::numeric_limits<double>::quiet_NaN());
  std::vector<T> s(n * m), sa(n * m), sb(n * m), sab(n * m), g(m), ga(m), gb(m);
  scores(q, k, n, m, d, s.data());
  scores_jvp_with<T>(scores<T>, q, k, a.q, a.k, n, m, d, sa.data());
  scores_jvp_with<T>(scores<T>, q, k, b.q, b.k, n, m, d, sb.data());
  // s̈ = (Q̇K'ᵀ + Q'K̇ᵀ)/√d = scores(Q̇, K') + scores(Q', K̇): the score JVP at (Q', K') along (Q̇, K̇).
  scores_jvp_with<T>(scores<T>, b.q, b.k, a.q, a.k, n, m, d, sab.data());
  T total = lit<T>(0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t L = causal ? (i + 1 < m ? i + 1 : m) : m;
    for (std::size_t j = 0; j < L; ++j) {
      g[j] = dot(w + i * dv, v + j * dv, dv);
      ga[j] = dot(w + i * dv, a.v + j * dv, dv);
      gb[j] = dot(w + i * dv, b.v + j * dv, dv);
    }
    const std::size_t r = i * m;
    total = total + row_fn(s.data() + r, sa.data() + r, sb.data() + r, sab.data() + r, g.data(), ga.data(), gb.data(), L);
  }
  return total;
}

// The reference HVP: the row formula above.
template <Scalar T>
T attention_hvp(const T* q, const T* k, const T* v, const T* w, HeadDirection<T> a, HeadDirection<T> b, std::size_t n,
                std::size_t m, std::size_t d, std::size_t dv, bool causal) {
  return attention_hvp_with<T>(attention_hvp_row<T>, q, k, v, w, a, b, n, m, d, dv, causal);
}

}  // namespace attncheck::kernels
