// attncheck: wrong paged-KV attention kernels that the attention-paged-v1 tests must catch: one per
// bug class of shipped paged kernels (src/attncheck/kernels/broken_attention_paged.hpp).
#include <string>
#include <type_traits>
#include <vector>

#include "attncheck/kernels/broken_attention_merge.hpp"
#include "attncheck/kernels/broken_attention_paged.hpp"
#include "attncheck/property/registry.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;
namespace broken = kernels::broken;

// The broken paging in the run's arithmetic: at 16-bit storage under f32 arithmetic, the f32
// template with the inputs widened and the outputs rounded once, as the reference.
// Steps: the attention steps (a split-KV bug of broken_attention_merge.hpp, or the correct ones).
template <class Pages, class Steps = kernels::AttentionSteps>
struct Paged {
  template <class T>
  static void set(KernelSet<T>& k) {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      if (current_arithmetic() == Arithmetic::f32) {
        KernelSet<float> wide = reference_kernels_in_storage<float>();
        wide.attention_paged = attention_paged_kernel<float, Steps, Pages>();
        k.attention_paged = computed_in<T, float>(wide).attention_paged;
        return;
      }
    }
    k.attention_paged = attention_paged_kernel<T, Steps, Pages>();
  }
};

template <class Steps>
using PagedSplit = Paged<kernels::PagedSteps, Steps>;

#define ATTNCHECK_PAGED_MUTANT_IN(Struct, Setter, Name, Description, ...) \
  struct Struct {                                                         \
    static constexpr const char* name = Name;                             \
    static constexpr const char* description = Description;               \
    static std::vector<std::string> caught_by() { return {__VA_ARGS__}; } \
    template <class T>                                                    \
    static void apply(KernelSet<T>& k) { Setter::set(k); }                \
  };                                                                      \
  const bool Struct##_registered = register_mutant<Struct>();
#define ATTNCHECK_PAGED_MUTANT(Struct, Pages, Name, Description, ...) \
  ATTNCHECK_PAGED_MUTANT_IN(Struct, Paged<Pages>, Name, Description, __VA_ARGS__)
// A split-KV decoding bug in a paged kernel: the pages read correctly, the split wrong.
#define ATTNCHECK_PAGED_SPLIT_MUTANT(Struct, Steps, Name, Description, ...) \
  ATTNCHECK_PAGED_MUTANT_IN(Struct, PagedSplit<Steps>, Name, Description, __VA_ARGS__)

ATTNCHECK_PAGED_MUTANT(LastPageFromPreviousBlock, broken::PagedLastPageFromPreviousBlock, "attention_paged_last_page_from_previous_block",
                       "the keys of a partly filled last page read from the page before it", "FALSIFY-PAGED-001")
ATTNCHECK_PAGED_MUTANT(TableRowStride, broken::PagedTableRowStride, "attention_paged_table_row_stride",
                       "the block table's rows walked with the width the longest sequence needs instead of the table's own",
                       "FALSIFY-PAGED-001", "FALSIFY-PAGED-002", "FALSIFY-PAGED-004")
ATTNCHECK_PAGED_MUTANT(WholeLastPage, broken::PagedWholeLastPage, "attention_paged_whole_last_page",
                       "every slot of the last page attended to, the stale ones after the sequence's last key included",
                       "FALSIFY-PAGED-001", "FALSIFY-PAGED-002", "FALSIFY-PAGED-003")
ATTNCHECK_PAGED_MUTANT(IgnoresBlockTable, broken::PagedIgnoresBlockTable, "attention_paged_ignores_block_table",
                       "the block table ignored: each sequence's pages assumed to follow the previous sequences' in the cache",
                       "FALSIFY-PAGED-001", "FALSIFY-PAGED-002", "FALSIFY-PAGED-004")
ATTNCHECK_PAGED_MUTANT(PageSize16, broken::PagedPageSize16, "attention_paged_page_size_16",
                       "a page size of 16 assumed whatever the cache's", "FALSIFY-PAGED-001")
ATTNCHECK_PAGED_MUTANT(BlocksFollowPages, broken::PagedBlocksFollowPages, "attention_paged_blocks_follow_pages",
                       "the online softmax's key blocks follow the pages (one per page) while the kernel claims page-size invariance",
                       "FALSIFY-PAGED-002")
ATTNCHECK_PAGED_MUTANT(StaleValueTimesZero, broken::PagedStaleValueTimesZero, "attention_paged_stale_value_times_zero",
                       "P·V over whole pages: the stale slots' values multiplied by their weight 0 and added (0 · NaN = NaN)",
                       "FALSIFY-PAGED-003")

ATTNCHECK_PAGED_SPLIT_MUTANT(PagedSplitEmptyPartialNan, broken::SplitEmptyPartialNan, "attention_paged_split_empty_partial_nan",
                             "split-KV decoding over pages: a part that holds no key of a short sequence returns O_s = 0/0 = NaN, "
                             "which the merge's weight 0 keeps NaN",
                             "FALSIFY-PAGED-005")
ATTNCHECK_PAGED_SPLIT_MUTANT(PagedSplitRangeRoundedDown, broken::SplitRangeRoundedDown, "attention_paged_split_range_rounded_down",
                             "split-KV decoding over pages: ⌊m_b/S⌋ keys per part, so a sequence's last keys are in no part",
                             "FALSIFY-PAGED-005")
ATTNCHECK_PAGED_SPLIT_MUTANT(PagedSplitRangesOverlap, broken::SplitRangesOverlap, "attention_paged_split_ranges_overlap",
                             "split-KV decoding over pages: each part one key too long, the next part's first key counted twice",
                             "FALSIFY-PAGED-005")

}  // namespace
}  // namespace attncheck::mutants
