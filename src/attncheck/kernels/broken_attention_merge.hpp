// attncheck: broken split-KV merge kernels, beside the kernel they break. Each replaces one step of
// kernels::MergeSteps (attention_merge.hpp) with a bug class of shipped combine kernels (the
// trackers of FlashAttention, vLLM, FlashInfer and llama.cpp): the max not subtracted, the
// empty-split sentinel turned into NaN, the LSE's units, a split dropped, the weights not
// normalised, the running maximum started at 0. Below them, broken split-KV decoding kernels: steps
// of kernels::AttentionSteps' split path (attention_batched.hpp) replaced. The tests that must catch each are named in
// falsify/mutants/attention_merge.cpp and tests/audit/attention_merge_test.cpp.
#pragma once

#include <cstddef>
#include <limits>
#include <numbers>

#include "attncheck/kernels/attention_batched.hpp"
#include "attncheck/kernels/attention_merge.hpp"

namespace attncheck::kernels::broken {

// No max subtraction: a_s = exp(ℓ_s), LSE = log Σ a_s. Overflows once some ℓ_s exceeds the
// format's exp range (88.7 in f32), underflows to 0/0 when every ℓ_s is below it.
struct MergeNoMaxSubtraction : MergeSteps {
  template <Scalar T>
  static T weights(const T* l, std::size_t S, T* w) {
    for (std::size_t s = 0; s < S; ++s) w[s] = exp(l[s]);
    const T Z = row_sum(w, S);
    for (std::size_t s = 0; s < S; ++s) w[s] = T(w[s] / Z);
    return log(Z);
  }
};

// The empty-row policy not applied: a row whose every split is empty computes −inf − −inf and
// returns NaN for O and for the LSE (which must be −inf whatever the policy).
struct MergeEmptyRowNan : MergeSteps {
  template <Scalar T>
  static void finish(bool, T lse_in, T*, std::size_t, T* lse) {
    if (lse) *lse = lse_in;
  }
};

// The LSEs read as base-2 logarithms (FlashInfer's internal convention) while the ABI's are
// natural: a_s = 2^{ℓ_s − M}, LSE = M + log₂ Z.
struct MergeLseLog2 : MergeSteps {
  template <Scalar T>
  static T weights(const T* l, std::size_t S, T* w) {
    const T M = row_max(l, S), ln2 = lit<T>(std::numbers::ln2);
    for (std::size_t s = 0; s < S; ++s) w[s] = exp(T(T(l[s] - M) * ln2));
    const T Z = row_sum(w, S);
    for (std::size_t s = 0; s < S; ++s) w[s] = T(w[s] / Z);
    return T(M + T(log(Z) / ln2));
  }
};

// The last split dropped (a loop bound of S − 1, or a split count rounded down).
struct MergeLastSplitDropped : MergeSteps {
  static std::size_t splits_read(std::size_t S) { return S > 1 ? S - 1 : S; }
};

// The weights not normalised: O = Σ_s e^{ℓ_s − M} O_s (the division by Z forgotten).
struct MergeUnnormalised : MergeSteps {
  template <Scalar T>
  static T weights(const T* l, std::size_t S, T* w) {
    const T M = row_max(l, S);
    for (std::size_t s = 0; s < S; ++s) w[s] = shifted_exp_step(l[s], M);
    return T(M + log(row_sum(w, S)));
  }
};

// The running maximum started at 0 instead of −inf: right while some ℓ_s >= 0; when every ℓ_s is
// far below 0 (strongly negative scores, ALiBi far from the diagonal) every weight underflows and
// the row becomes 0/0.
struct MergeMaxFromZero : MergeSteps {
  template <Scalar T>
  static T weights(const T* l, std::size_t S, T* w) {
    T M = lit<T>(0);
    for (std::size_t s = 0; s < S; ++s) M = max_step(M, l[s]);
    for (std::size_t s = 0; s < S; ++s) w[s] = shifted_exp_step(l[s], M);
    const T Z = row_sum(w, S);
    for (std::size_t s = 0; s < S; ++s) w[s] = T(w[s] / Z);
    return T(M + log(Z));
  }
};

// ---- Split-KV decoding (attention_batched with p.num_splits > 1) ------------------------------

// A split that saw no key of a row divides 0 by 0: O_s = NaN with ℓ_s = −inf. The merge weighs it
// 0, and 0 · NaN is NaN (the sentinel bug of shipped split kernels).
struct SplitEmptyPartialNan : AttentionSteps {
  template <Scalar T>
  static void partial_finish(const OnlineRow<T>& st, T* o, T* lse) {
    for (std::size_t c = 0; c < st.acc.size(); ++c) o[c] = T(st.acc[c] / st.sum);
    *lse = T(st.max + log(st.sum));
  }
};

// The keys per split rounded down (m / S): the keys past S·⌊m/S⌋ are in no split.
struct SplitRangeRoundedDown : AttentionSteps {
  static std::pair<std::size_t, std::size_t> split_range(std::size_t m, std::size_t S, std::size_t s) {
    const std::size_t c = m / S;
    return {std::min(m, s * c), std::min(m, (s + 1) * c)};
  }
};

// Each split's range one key too long (an inclusive end): the first key of the next split is
// counted twice.
struct SplitRangesOverlap : AttentionSteps {
  static std::pair<std::size_t, std::size_t> split_range(std::size_t m, std::size_t S, std::size_t s) {
    const std::size_t c = (m + S - 1) / S;
    return {std::min(m, s * c), std::min(m, (s + 1) * c + 1)};
  }
};

// The partial LSE without its maximum: ℓ_s = log Σ exp(s_j − m_s) (the shifted sum's log), so the
// merge weighs the splits as if every maximum were 0.
struct SplitLseWithoutMax : AttentionSteps {
  template <Scalar T>
  static void partial_finish(const OnlineRow<T>& st, T* o, T* lse) {
    online_finish(st, o, lse);
    if (st.keys) *lse = log(st.sum);
  }
};

// The partials merged by their maxima: ℓ_s reported as m_s, the split's largest score, not its
// log-sum-exp (weights e^{m_s} ignore how much mass each split holds).
struct SplitMergedByMax : AttentionSteps {
  template <Scalar T>
  static void partial_finish(const OnlineRow<T>& st, T* o, T* lse) {
    online_finish(st, o, lse);
    if (st.keys) *lse = st.max;
  }
};

}  // namespace attncheck::kernels::broken
