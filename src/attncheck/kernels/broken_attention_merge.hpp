// attncheck: broken split-KV merge kernels, beside the kernel they break. Each replaces one step of
// kernels::MergeSteps (attention_merge.hpp) with a bug class of shipped combine kernels (the
// trackers of FlashAttention, vLLM, FlashInfer and llama.cpp): the max not subtracted, the
// empty-split sentinel turned into NaN, the LSE's units, a split dropped, the weights not
// normalised, the running maximum started at 0. The tests that must catch each are named in
// falsify/mutants/attention_merge.cpp and tests/audit/attention_merge_test.cpp.
#pragma once

#include <cstddef>
#include <limits>
#include <numbers>

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

}  // namespace attncheck::kernels::broken
