// attncheck: the merge of split-KV partial results (flash-decoding: FlashAttention's combine
// kernel, vLLM's merge_attn_states, FlashInfer's merge_states). A row whose keys were split over
// S workers has from split s a partial output O_s and log-sum-exp ℓ_s over that split's keys
// alone; the row's result over all its keys is
//     LSE = log Σ_s e^{ℓ_s},   O = Σ_s w_s O_s,   w = softmax(ℓ_1, …, ℓ_S)
// since e^{ℓ_s − LSE} is the share of the row's softmax mass that split s holds. A split that saw
// no key has ℓ_s = −inf and weight exactly 0 (its O_s is 0 by the ABI's convention). So the merge
// is the softmax of softmax.hpp over the splits' LSEs, followed by a weighted sum: one source, the
// same steps (max, shifted exp, sum) as every other softmax of the project.
//
// Layout (include/attncheck/abi.h, attncheck_attention_merge_v2_*_fn): rows are independent;
//     o_parts  S × rows × dv     lse_parts  S × rows     o  rows × dv     lse  rows
#pragma once

#include <cstddef>
#include <limits>
#include <vector>

#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"

namespace attncheck::kernels {

// The steps of attention_merge, static so that a broken kernel (broken_attention_merge.hpp)
// replaces one of them and inherits the rest.
struct MergeSteps {
  // The weights w[0..S) of one row from its partial LSEs l[0..S), and the row's LSE:
  //   M = max_s ℓ_s,  a_s = exp(ℓ_s − M),  Z = Σ_s a_s,  w_s = a_s / Z,  LSE = M + log Z.
  // A row whose every ℓ_s is −inf gives NaN here (−inf − −inf); finish() applies the policy.
  template <Scalar T>
  static T weights(const T* l, std::size_t S, T* w) {
    const T M = row_max(l, S);
    for (std::size_t s = 0; s < S; ++s) w[s] = shifted_exp_step(l[s], M);
    const T Z = row_sum(w, S);
    for (std::size_t s = 0; s < S; ++s) w[s] = T(w[s] / Z);
    return T(M + log(Z));
  }
  // o_c = Σ_s w_s O_sc in the order of s; part(s) is split s's row (dv entries).
  template <Scalar T, class Part>
  static void combine(const T* w, std::size_t S, Part part, std::size_t dv, T* o) {
    for (std::size_t c = 0; c < dv; ++c) o[c] = lit<T>(0);
    for (std::size_t s = 0; s < S; ++s) {
      const T* ps = part(s);
      for (std::size_t c = 0; c < dv; ++c) o[c] = dot_step(o[c], w[s], ps[c]);
    }
  }
  // A row with no visible key in any split gets zeros and −inf, as FlashAttention and the forward
  // reference (online_finish) return; the audit asks a third party's kernel for its own policy.
  template <Scalar T>
  static void finish(bool none, T lse_in, T* o, std::size_t dv, T* lse) {
    if (none)
      for (std::size_t c = 0; c < dv; ++c) o[c] = lit<T>(0);
    if (lse) *lse = select(none, lit<T>(-std::numeric_limits<double>::infinity()), lse_in);
  }
  // The splits a kernel reads: all of them (a broken kernel drops one).
  static std::size_t splits_read(std::size_t S) { return S; }
};

// True when every ℓ_s of a row is −inf: no split saw a key.
template <Scalar T>
bool no_visible_key(const T* l, std::size_t S) {
  const T ninf = lit<T>(-std::numeric_limits<double>::infinity());
  for (std::size_t s = 0; s < S; ++s)
    if (ninf < l[s]) return false;
  return true;
}

// (O, LSE) of every row from S partial results; lse may be null (not asked for).
template <Scalar T, class Steps = MergeSteps>
void attention_merge(std::size_t splits, std::size_t rows, std::size_t dv, const T* o_parts, const T* lse_parts, T* o, T* lse) {
  const std::size_t S = Steps::splits_read(splits);
  std::vector<T> l(S), w(S);
  for (std::size_t r = 0; r < rows; ++r) {
    for (std::size_t s = 0; s < S; ++s) l[s] = lse_parts[s * rows + r];
    const bool none = S == 0 || no_visible_key(l.data(), S);
    T L = lit<T>(0);
    if (S > 0) {
      L = Steps::weights(l.data(), S, w.data());
      Steps::combine(w.data(), S, [&](std::size_t s) { return o_parts + (s * rows + r) * dv; }, dv, o + r * dv);
    }
    Steps::finish(none, L, o + r * dv, dv, lse ? lse + r : nullptr);
  }
}

}  // namespace attncheck::kernels
