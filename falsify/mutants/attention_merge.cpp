// attncheck: wrong split-KV merge kernels that the attention-merge-v1 tests must catch: one per bug
// class of shipped combine kernels (src/attncheck/kernels/broken_attention_merge.hpp).
#include <string>
#include <type_traits>
#include <vector>

#include "attncheck/kernels/broken_attention_merge.hpp"
#include "attncheck/property/registry.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;
namespace broken = kernels::broken;

// The broken steps in the run's arithmetic: at 16-bit storage under f32 arithmetic, the f32
// template with the partials widened and the output rounded once, as the reference.
template <class Steps>
struct Merge {
  template <class T>
  static void set(KernelSet<T>& k) {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      if (current_arithmetic() == Arithmetic::f32) {
        KernelSet<float> wide = reference_kernels_in_storage<float>();
        wide.attention_merge = attention_merge_kernel<float, Steps>();
        k.attention_merge = computed_in<T, float>(wide).attention_merge;
        return;
      }
    }
    k.attention_merge = attention_merge_kernel<T, Steps>();
  }
};

// A split-KV decoding kernel's broken steps (attention_batched's split path), in the run's
// arithmetic as above.
template <class Steps>
struct Split {
  template <class T>
  static void set(KernelSet<T>& k) {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      if (current_arithmetic() == Arithmetic::f32) {
        KernelSet<float> wide = reference_kernels_in_storage<float>();
        wide.attention_batched = attention_batched_kernel<float, Steps>();
        k.attention_batched = computed_in<T, float>(wide).attention_batched;
        return;
      }
    }
    k.attention_batched = attention_batched_kernel<T, Steps>();
  }
};

#define ATTNCHECK_MERGE_MUTANT_IN(Struct, Set, Name, Description, ...)    \
  struct Struct {                                                         \
    static constexpr const char* name = Name;                             \
    static constexpr const char* description = Description;               \
    static std::vector<std::string> caught_by() { return {__VA_ARGS__}; } \
    template <class T>                                                    \
    static void apply(KernelSet<T>& k) { Set::set(k); }                   \
  };                                                                      \
  const bool Struct##_registered = register_mutant<Struct>();
#define ATTNCHECK_MERGE_MUTANT(Struct, Steps, Name, Description, ...) \
  ATTNCHECK_MERGE_MUTANT_IN(Struct, Merge<Steps>, Name, Description, __VA_ARGS__)
#define ATTNCHECK_SPLIT_MUTANT(Struct, Steps, Name, Description, ...) \
  ATTNCHECK_MERGE_MUTANT_IN(Struct, Split<Steps>, Name, Description, __VA_ARGS__)

ATTNCHECK_MERGE_MUTANT(NoMaxSubtraction, broken::MergeNoMaxSubtraction, "attention_merge_no_max_subtraction",
                       "weights exp(ℓ_s) / Σ exp(ℓ_s) without subtracting the largest ℓ_s (overflow and underflow)", "FALSIFY-MERGE-001",
                       "FALSIFY-MERGE-003")
ATTNCHECK_MERGE_MUTANT(EmptyRowNan, broken::MergeEmptyRowNan, "attention_merge_empty_row_nan",
                       "a row no split saw a key of computes −inf − −inf: NaN output and NaN LSE", "FALSIFY-MERGE-002")
ATTNCHECK_MERGE_MUTANT(LseLog2, broken::MergeLseLog2, "attention_merge_lse_log2",
                       "the partial LSEs read as base-2 logarithms: weights 2^(ℓ_s − M), LSE = M + log₂ Z", "FALSIFY-MERGE-001",
                       "FALSIFY-MERGE-003")
ATTNCHECK_MERGE_MUTANT(LastSplitDropped, broken::MergeLastSplitDropped, "attention_merge_last_split_dropped",
                       "the last split not merged (a loop bound of S − 1)", "FALSIFY-MERGE-001", "FALSIFY-MERGE-003")
ATTNCHECK_MERGE_MUTANT(Unnormalised, broken::MergeUnnormalised, "attention_merge_unnormalised",
                       "O = Σ e^{ℓ_s − M} O_s: the division by Σ e^{ℓ_s − M} forgotten", "FALSIFY-MERGE-001", "FALSIFY-MERGE-003")
ATTNCHECK_MERGE_MUTANT(MaxFromZero, broken::MergeMaxFromZero, "attention_merge_max_from_zero",
                       "the running maximum started at 0, not −inf: every weight underflows when all ℓ_s are far below 0",
                       "FALSIFY-MERGE-001", "FALSIFY-MERGE-003")

ATTNCHECK_SPLIT_MUTANT(SplitEmptyPartialNan, broken::SplitEmptyPartialNan, "attention_split_empty_partial_nan",
                       "split-KV decoding: a split that saw no key of a row returns O_s = 0/0 = NaN, which the merge's weight 0 keeps NaN",
                       "FALSIFY-MERGE-004")
ATTNCHECK_SPLIT_MUTANT(SplitRangeRoundedDown, broken::SplitRangeRoundedDown, "attention_split_range_rounded_down",
                       "split-KV decoding: ⌊m/S⌋ keys per split, so the keys past S·⌊m/S⌋ are in no split", "FALSIFY-MERGE-004")
ATTNCHECK_SPLIT_MUTANT(SplitRangesOverlap, broken::SplitRangesOverlap, "attention_split_ranges_overlap",
                       "split-KV decoding: each split's range one key too long, the next split's first key counted twice", "FALSIFY-MERGE-004")
ATTNCHECK_SPLIT_MUTANT(SplitLseWithoutMax, broken::SplitLseWithoutMax, "attention_split_lse_without_max",
                       "split-KV decoding: each partial LSE returned without its split's maximum (log Σ exp(s_j − m_s))", "FALSIFY-MERGE-004")
ATTNCHECK_SPLIT_MUTANT(SplitMergedByMax, broken::SplitMergedByMax, "attention_split_merged_by_max",
                       "split-KV decoding: each partial's largest score handed to the merge as its LSE", "FALSIFY-MERGE-004")

}  // namespace
}  // namespace attncheck::mutants
