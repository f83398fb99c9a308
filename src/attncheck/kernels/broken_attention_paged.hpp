// attncheck: broken paged-KV attention kernels, beside the kernel they break. Each replaces one
// paging step of kernels::PagedSteps (attention_paged.hpp) with a bug class of shipped paged
// kernels: the partly filled last page read from the wrong block, the block table walked with the
// wrong row stride, the whole last page attended to, the block table ignored (pages assumed
// allocated in order), the page size assumed, the stale slots of the last page multiplied by
// their zero weight (NaN · 0 = NaN: vLLM zeroes those values for this reason), and key blocks that
// follow the pages in a kernel that claims page-size invariance. The tests that must
// catch each are named in falsify/mutants/attention_paged.cpp.
#pragma once

#include <algorithm>
#include <cstddef>

#include "attncheck/kernels/attention_paged.hpp"

namespace attncheck::kernels::broken {

// The keys of a partly filled last page read from the page before it: the last page's table index
// taken as m_b / page_size − 1 (the full pages' count) instead of m_b / page_size.
struct PagedLastPageFromPreviousBlock : PagedSteps {
  static std::size_t token_at(const PageTable& pt, std::size_t b, std::size_t t) {
    const std::size_t full = pt.m_of(b) / pt.page_size;
    if (full > 0 && pt.m_of(b) % pt.page_size != 0 && t / pt.page_size == full) return pt.page(b, full - 1) * pt.page_size + t % pt.page_size;
    return pt.token_at(b, t);
  }
};

// The block table's rows walked with the stride of the pages the longest sequence uses instead of
// the table's own width (pages_per_seq, often larger: vLLM and FlashAttention size it for the
// longest possible sequence); the index is kept inside the table.
struct PagedTableRowStride : PagedSteps {
  static std::size_t token_at(const PageTable& pt, std::size_t b, std::size_t t) {
    std::size_t used = 1;
    for (std::size_t s = 0; s < pt.sequences(); ++s) used = std::max(used, pt.pages_of(s));
    const std::size_t entry = (b * used + t / pt.page_size) % pt.block_table.size();
    return static_cast<std::size_t>(pt.block_table[entry]) * pt.page_size + t % pt.page_size;
  }
};

// Every key of the last page attended to, the stale slots after m_b included (the key count
// rounded up to whole pages, as a kernel that masks only by page).
struct PagedWholeLastPage : PagedSteps {
  static std::size_t keys(const PageTable& pt, std::size_t b) { return pt.pages_of(b) * pt.page_size; }
};

// The block table ignored: sequence b's pages assumed to follow those of sequences 0 .. b − 1 in
// the cache (right only for a freshly allocated, unfragmented cache).
struct PagedIgnoresBlockTable : PagedSteps {
  static std::size_t token_at(const PageTable& pt, std::size_t b, std::size_t t) {
    std::size_t first = 0;
    for (std::size_t s = 0; s < b; ++s) first += pt.pages_of(s);
    return ((first + t / pt.page_size) * pt.page_size + t % pt.page_size) % pt.tokens();
  }
};

// A page size of 16 assumed (the common default), whatever the cache says; the token index is
// kept inside the cache.
struct PagedPageSize16 : PagedSteps {
  static std::size_t token_at(const PageTable& pt, std::size_t b, std::size_t t) {
    const std::size_t entry = std::min(b * pt.pages_per_seq + t / 16, pt.block_table.size() - 1);
    return (static_cast<std::size_t>(pt.block_table[entry]) * 16 + t % 16) % pt.tokens();
  }
};

// The online softmax's key blocks following the pages, one block per page (as a kernel that walks
// a sequence's block table page by page, vLLM's paged attention v1 among them): correct within the
// bound, but its bits depend on the page size, so such a kernel must not claim page-size
// invariance. This one keeps the reference's claim (KernelSet::attention_paged_page_size_invariant).
struct PagedBlocksFollowPages : PagedSteps {
  static Tiling tiling(const PageTable& pt, Tiling t) { return {std::max<std::size_t>(t.br, 1), pt.page_size}; }
};

// P·V over whole pages: the stale slots after m_b in the last page get weight 0, and 0 · v is
// added to every output of the sequence, which is exact for finite stale values and NaN for NaN.
struct PagedStaleValueTimesZero : PagedSteps {
  template <Scalar T>
  static void after_sequence(const AttentionProblem& s, const PageTable& pt, std::size_t b, const T* v_cache, T* o) {
    const auto& sh = s.shape;
    for (std::size_t t = pt.m_of(b); t < pt.pages_of(b) * pt.page_size; ++t) {
      const std::size_t at = pt.token_at(b, t);
      for (std::size_t i = 0; i < sh.n; ++i)
        for (std::size_t h = 0; h < sh.heads; ++h) {
          const std::size_t g = h / (sh.heads / sh.kv_heads);
          for (std::size_t c = 0; c < sh.dv; ++c) {
            T& out = o[(i * sh.heads + h) * sh.dv + c];
            out = out + lit<T>(0) * v_cache[(at * sh.kv_heads + g) * sh.dv + c];
          }
        }
    }
  }
};

}  // namespace attncheck::kernels::broken
