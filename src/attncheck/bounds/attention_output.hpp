// attncheck: derived a-priori error bound of one attention output row, given the scores the
// kernel computed (kernels/attention.hpp: ô_c = fl(Σ_j p̂_j v_jc), p̂ = softmax(ŝ)).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "attncheck/bounds/error_model.hpp"
#include "attncheck/bounds/scores.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/oracle/exact.hpp"

namespace attncheck::bounds {

// Derivation (proofs/attention_equivariance.tex, Lemma "output bound"). Let p = softmax(ŝ)
// exactly, [lo_j, hi_j] the SM-BND-001 interval of p̂_j, w_j = max(hi_j − p_j, p_j − lo_j).
// The output is a recursive dot product with separate multiply and add (dot_step):
//   |fl(Σ p̂_j v_j) − Σ p̂_j v_j| <= γ_m Σ |p̂_j v_j| + m η   (Higham §3.1; η per subnormal product),
//   |Σ p̂_j v_j − Σ p_j v_j|     <= Σ w_j |v_j|,               |p̂_j| <= hi_j,
// so |ô_c − Σ_j p_j v_jc| <= Σ_j (w_j + γ_m hi_j)|v_jc| + m η. Every term is symmetric in j:
// permuting the keys and values together permutes the summands and leaves the bound unchanged.
// row: the oracle's softmax of the computed scores ŝ (length m); v: m x dv row-major, as reals.
// sb: an interval [lo_j, hi_j] for the kernel's weights around row.p (SM-BND-001 at the computed
// scores, or softmax_bound with input errors when the scores are only known up to their bound).
inline std::vector<real> attention_output_bound(const oracle::SoftmaxRow& row, const SoftmaxBound& sb, const std::vector<real>& v,
                                                std::size_t dv, const Model& md) {
  const std::size_t m = row.p.size();
  const real g = gamma(m, md.u);
  std::vector<real> out(dv, 0);
  for (std::size_t c = 0; c < dv; ++c) {
    real s = static_cast<real>(m) * md.eta;
    for (std::size_t j = 0; j < m; ++j) {
      const real w = std::max(sb.hi[j] - row.p[j], row.p[j] - sb.lo[j]);
      s += (w + g * sb.hi[j]) * std::abs(v[j * dv + c]);
    }
    // Mixed precision: the output rounded once more, to storage (round_out with |o_c| <= max|v_jc|).
    real vmax = 0;
    for (std::size_t j = 0; j < m; ++j) vmax = std::max(vmax, std::abs(v[j * dv + c]));
    out[c] = std::isfinite(g) ? md.round_out(vmax, s) * evaluation_slack : std::numeric_limits<real>::infinity();
  }
  return out;
}

inline std::vector<real> attention_output_bound(const oracle::SoftmaxRow& row, const std::vector<real>& v, std::size_t dv,
                                                const Model& md) {
  return attention_output_bound(row, softmax_bound(row, md), v, dv, md);
}

// The allowance of every output of an attention call whose scores are not observable (an audited
// kernel, or any kernel judged against the exact o_ic = Σ_j softmax(s_i)_j v_jc with s_ij = q_i·k_j/√d
// exact; proofs/bounds/attention_output.md, "Whole row, scores unknown"): each computed score lies
// within δ_ij = score_bound of s_ij (any summation order, divided by the rounded √d); softmax_bound
// with those input errors bounds the weights around softmax(s_i), and the bound above adds the
// value sum (γ_m holds for any summation order). Causal: query i sees keys 0..min(i, m-1) only; a
// masked weight is exactly exp(-inf) = 0 and adds nothing, so the row is that of the visible keys.
// Every term is symmetric in the keys (δ_ij travels with key j). Row-major n x dv, like the output.
template <class T>
std::vector<real> attention_output_allowance(const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v,
                                             std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal,
                                             const Model& md) {
  const auto S = oracle::scores_exact(q, k, n, m, d);
  const auto Q = oracle::lift(q), K = oracle::lift(k);
  std::vector<real> out;
  out.reserve(n * dv);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t visible = causal ? std::min(i + 1, m) : m;
    std::vector<mpfr200> row(S.begin() + static_cast<std::ptrdiff_t>(i * m), S.begin() + static_cast<std::ptrdiff_t>(i * m + visible));
    std::vector<real> delta(visible), vv(visible * dv);
    for (std::size_t j = 0; j < visible; ++j) {
      mpfr200 abs_dot = 0;
      for (std::size_t t = 0; t < d; ++t) abs_dot += abs(Q[i * d + t] * K[j * d + t]);
      delta[j] = score_bound(oracle::dbl(row[j]), oracle::dbl(abs_dot), d, md);
      for (std::size_t c = 0; c < dv; ++c) vv[j * dv + c] = scalar_traits<T>::to_double(v[j * dv + c]);
    }
    const auto exact = oracle::softmax_row_exact(row);
    const auto b = attention_output_bound(exact, softmax_bound(exact, md, delta), vv, dv, md);
    out.insert(out.end(), b.begin(), b.end());
  }
  return out;
}

}  // namespace attncheck::bounds
