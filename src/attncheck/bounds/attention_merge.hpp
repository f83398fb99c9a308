// attncheck: the exact merge of split-KV partial results (kernels/attention_merge.hpp) and the
// derived allowance of every output element and LSE. Derivation: proofs/attention_merge.tex,
// Lemma "merge error"; the symbols below are its symbols.
//
// The merge is judged as a function of the partials it is given: the exact value is the merge of
// exactly those (O_s, ℓ_s), evaluated by the same kernel source at 200 bits. The bound covers the
// orders shipped combine kernels use:
//   (A) weights normalised first, w_s = a_s / Z (FlashInfer, this project's reference);
//   (B) Σ a_s O_s divided by Z at the end (vLLM's merge_attn_states, two splits at a time);
//   (C) the LSE first, then w_s = exp(ℓ_s − LSE) (FlashAttention's combine kernel);
// and the exponent arguments formed either as ℓ_s − M or through base-2 conversions ℓ·log₂e
// (exp2-based kernels): each argument errs by at most θ_s = γ₄(|ℓ_s| + |M|).
// A cascade of two-way merges over S > 2 splits (each step merging the running result, with its
// rounded LSE, into the next split) is a composition of S − 1 such merges: its error compounds
// and is not covered here (docs/roadmap.md); for S = 2 it is order (B).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "attncheck/bounds/error_model.hpp"
#include "attncheck/kernels/attention_merge.hpp"
#include "attncheck/kernels/kernel_set.hpp"

namespace attncheck::bounds {

// The exact merge of every row and the allowances. empty[r]: no split of row r saw a key (every
// ℓ_s = −inf): then o is 0 or NaN by the kernel's policy and the LSE is −inf, exactly.
struct MergeExact {
  std::vector<real> o, o_allowance;      // rows × dv
  std::vector<real> lse, lse_allowance;  // rows
  std::vector<bool> empty;               // rows
};

// The per-row quantities of the lemma, for the allowance of its outputs.
struct MergeRowError {
  real lse_allowance = 0;       // λ
  std::vector<real> weight;     // w_s (exact)
  std::vector<real> weight_rel; // ρ_s: |ŵ_s − w_s| <= w_s ρ_s + η_w
  real weight_abs = 0;          // η_w
  bool finite = true;           // false when ζ >= Z: the a-priori bound says nothing
};

// Lemma "merge error" for one row with partial LSEs ell (exact values; −inf for an empty split),
// exact maximum M, exact weights w and exact LSE L, under model md's arithmetic.
inline MergeRowError merge_row_error(const std::vector<real>& ell, real M, real L, const std::vector<real>& w, const Model& md) {
  const Model a = md.arithmetic();
  const std::size_t S = ell.size();
  const real u = a.u, eta = a.eta, g2 = gamma(2, u), g4 = gamma(4, u), inf = std::numeric_limits<real>::infinity();
  MergeRowError e;
  e.weight = w;
  e.weight_rel.assign(S, 0);
  // a_s = exp(ℓ_s − M), Z = Σ a_s = exp(L − M) >= 1.
  const real Z = std::exp(L - M);
  std::vector<real> r(S, 0);
  real A = 0;  // Σ |â_s − a_s| <= Σ (a_s r_s + η)
  for (std::size_t s = 0; s < S; ++s) {
    if (!(ell[s] > -inf)) continue;  // an empty split: exp(−inf) = 0 exactly, no error
    const real theta = g4 * (std::abs(ell[s]) + std::abs(M));
    r[s] = std::exp(theta) * (1 + a.exp_rel) - 1;
    A += w[s] * Z * r[s] + eta;
  }
  const real zeta = A + gamma(S, u) * (Z + A);  // |Ẑ − Z|
  if (!(zeta < Z)) {
    e.finite = false;
    e.lse_allowance = inf;
    std::fill(e.weight_rel.begin(), e.weight_rel.end(), inf);
    e.weight_abs = inf;
    return e;
  }
  const real lnZ = L - M;                   // >= 0
  const real nu = -std::log1p(-zeta / Z);   // |log Ẑ − log Z|
  const real g = nu + a.log_rel * (lnZ + nu);  // |fl(log Ẑ) − log Z|
  const real lambda = g + gamma(6, u) * (std::abs(M) + lnZ + g);  // γ₆: the LSE formed wholly in base 2 too
  e.lse_allowance = lambda;
  for (std::size_t s = 0; s < S; ++s) {
    if (!(ell[s] > -inf)) continue;
    const real rho_a = (1 + r[s]) * (1 + g2) / (1 - zeta / Z) - 1;                                      // orders A, B
    const real rho_c = std::exp(lambda + g4 * (std::abs(ell[s]) + std::abs(L) + lambda)) * (1 + a.exp_rel) - 1;  // order C
    e.weight_rel[s] = std::max(rho_a, rho_c);
  }
  e.weight_abs = eta * (1 + (1 + g2) / (Z - zeta));
  return e;
}

// Lemma "merge error" made uniform over the partials, for a split-KV kernel whose partials the
// audit never sees (bounds/attention_batched.hpp, split_allowance): at most S splits, every
// partial LSE (and so the maximum) of magnitude <= ell_abs, and only Z = Σ a_s in [1, S] known
// (a_s <= 1): A <= Z·r + Sη gives ζ/Z <= r + Sη + γ_S(1 + r + Sη), and ln Z <= ln S. The weights
// are returned relative only (weight_rel[0] for every split; weight is empty) with η_w bounded
// through Z − ζ >= 1 − ζ/Z; |L| <= ell_abs + ln S in order (C)'s exponent.
inline MergeRowError merge_row_error_uniform(std::size_t S, real ell_abs, const Model& md) {
  const Model a = md.arithmetic();
  const real u = a.u, eta = a.eta, g2 = gamma(2, u), g4 = gamma(4, u), inf = std::numeric_limits<real>::infinity();
  const real Sr = static_cast<real>(S), lnS = std::log(Sr);
  MergeRowError e;
  const real r = std::exp(g4 * 2 * ell_abs) * (1 + a.exp_rel) - 1;
  const real A = r + Sr * eta;             // >= A / Z
  const real zr = A + gamma(S, u) * (1 + A);  // >= ζ / Z
  if (!(zr < 1)) {
    e.finite = false;
    e.lse_allowance = e.weight_abs = inf;
    e.weight_rel.assign(1, inf);
    return e;
  }
  const real nu = -std::log1p(-zr);
  const real g = nu + a.log_rel * (lnS + nu);
  const real lambda = g + gamma(6, u) * (ell_abs + lnS + g);
  e.lse_allowance = lambda;
  const real rho_a = (1 + r) * (1 + g2) / (1 - zr) - 1;
  const real rho_c = std::exp(lambda + g4 * (2 * ell_abs + lnS + lambda)) * (1 + a.exp_rel) - 1;
  e.weight_rel.assign(1, std::max(rho_a, rho_c));
  e.weight_abs = eta * (1 + (1 + g2) / (1 - zr));
  return e;
}

// The exact merge of (o_parts, lse_parts) (the ABI's layouts) and the allowance of each output
// element and LSE for a kernel of model md (model_of<T>(): arithmetic and storage). The LSE is
// returned in lse_t<T>, which holds every arithmetic value: no storage rounding on it.
template <class T>
MergeExact attention_merge_exact(std::size_t S, std::size_t rows, std::size_t dv, const std::vector<T>& o_parts,
                                 const std::vector<lse_t<T>>& lse_parts, const Model& md) {
  MergeExact ex;
  ex.o.assign(rows * dv, 0);
  ex.o_allowance.assign(rows * dv, 0);
  ex.lse.assign(rows, -std::numeric_limits<real>::infinity());
  ex.lse_allowance.assign(rows, 0);
  ex.empty.assign(rows, false);
  const Model a = md.arithmetic();
  std::vector<mpfr200> l(S), W(S), O(dv), P(S * dv);  // P: the row's partials, split by split
  std::vector<real> ell(S), w(S);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t s = 0; s < S; ++s) {
      l[s] = mpfr200(static_cast<double>(lse_parts[s * rows + r]));
      ell[s] = static_cast<real>(lse_parts[s * rows + r]);
    }
    if (S == 0 || kernels::no_visible_key(l.data(), S)) {
      ex.empty[r] = true;
      continue;
    }
    const mpfr200 M = kernels::row_max(l.data(), S);
    const mpfr200 L = kernels::MergeSteps::weights(l.data(), S, W.data());
    for (std::size_t e = 0; e < S * dv; ++e) P[e] = mpfr200(to_double(o_parts[(e / dv * rows + r) * dv + e % dv]));
    kernels::MergeSteps::combine(W.data(), S, [&](std::size_t s) { return P.data() + s * dv; }, dv, O.data());
    for (std::size_t s = 0; s < S; ++s) w[s] = oracle::dbl(W[s]);
    ex.lse[r] = oracle::dbl(L);
    const MergeRowError e = merge_row_error(ell, oracle::dbl(M), ex.lse[r], w, md);
    ex.lse_allowance[r] = e.lse_allowance * evaluation_slack;
    for (std::size_t c = 0; c < dv; ++c) {
      real first = 0, second = 0;  // Σ (w_s ρ_s + η_w)|O_sc| and Σ (w_s(1+ρ_s) + η_w)|O_sc|
      for (std::size_t s = 0; s < S; ++s) {
        if (!(ell[s] > -std::numeric_limits<real>::infinity())) continue;
        const real os = std::abs(static_cast<real>(to_double(o_parts[(s * rows + r) * dv + c])));
        first += (w[s] * e.weight_rel[s] + e.weight_abs) * os;
        second += (w[s] * (1 + e.weight_rel[s]) + e.weight_abs) * os;
      }
      const real oc = oracle::dbl(O[c]);
      ex.o[r * dv + c] = oc;
      const real B = e.finite ? first + gamma(S + 1, a.u) * second + static_cast<real>(S + 1) * a.eta
                              : std::numeric_limits<real>::infinity();
      ex.o_allowance[r * dv + c] = md.round_out(std::abs(oc), B) * evaluation_slack;
    }
  }
  return ex;
}

}  // namespace attncheck::bounds
