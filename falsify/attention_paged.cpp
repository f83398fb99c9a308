// attncheck: falsification tests of attention-paged-v1 (contracts/attention-paged-v1.yaml):
// attention over a paged KV cache (kernels/attention_paged.hpp). Obligations: PAGED-BND-001 each
// output and LSE within the derived allowance of its sequence's exact dense attention,
// PAGED-INV-001 placement invariance (the same tokens in another placement give the same bits),
// PAGED-INV-002 stale slots never read (NaN in every slot no sequence owns changes no bit),
// PAGED-INV-003 no leakage between sequences (bit for bit), PAGED-SPL-001 split-KV decoding within
// the split bound. The judging is attention_varlen's
// (property/packed_rows.hpp): a paged batch is a packed batch whose keys are found through pages.
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "attncheck/property/gen/attention_paged.hpp"
#include "attncheck/property/packed_rows.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using gen::blocks_of;
using gen::PagedCase;
using gen::Stale;

template <class T>
PackedWhere where(const PagedCase<T>& pc) {
  return [&pc](std::size_t b, std::size_t h, std::size_t i) {
    return "attention_paged<" + std::string(dtype_name(dtype_of<T>())) + ">, sequence " + std::to_string(b) + ", row (h " +
           std::to_string(h) + ", i " + std::to_string(i) + "), " + pc.describe();
  };
}

template <class T>
std::function<void(Report<T>&)> with_inputs(const PagedCase<T>& pc) {
  return [&pc](Report<T>& r) {
    const auto ints = [](const std::vector<std::int32_t>& x) {
      std::string s;
      for (auto e : x) s += (s.empty() ? "" : ", ") + std::to_string(e);
      return s;
    };
    r.input("q", pc.vc.q).input("k_cache", pc.k_cache).input("v_cache", pc.v_cache)
        .line("cu_seqlens_q: " + ints(pc.vc.pk.cu_q))
        .line("seqused_k: " + ints(pc.pt.seqused_k));
  };
}

// ---- PAGED-BND-001: each sequence within the allowance of its exact dense attention -------------
struct Paged001 {
  static constexpr const char* id = "FALSIFY-PAGED-001";
  static constexpr bool judges_masked_policy = true;  // rows that see no key
  static constexpr const char* title =
      "every output and LSE of a paged batch is within the derived allowance of its sequence's exact attention";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto pc = gen::paged_case<T>();
    judge_packed_accuracy<T>(id, pc.vc, pc.run(ks), blocks_of(ks, pc.vc.c.tiling), ks.attention_paged_masked, where(pc), with_inputs(pc));
  }
  static inline const bool registered = property::register_property<Paged001>();
};

// ---- PAGED-INV-001: placement invariance, bit for bit ---------------------------------------------
struct Paged002 {
  static constexpr const char* id = "FALSIFY-PAGED-002";
  static constexpr const char* title =
      "the same tokens in another placement (page order, table width, unused pages, stale values) give the same bits";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto pc = gen::paged_case<T>();
    // The page size stays (a kernel may support only some, and its blocks may follow the pages)
    // unless the kernel claims page-size invariance (the reference does: it gathers, then attends);
    // everything else is drawn again.
    const auto moved =
        pc.placed(gen::draw_placement(pc.vc, Stale::finite, ks.attention_paged_page_size_invariant ? 0 : pc.at.page_size));
    judge_untouched_sequences<T>(id, pc.vc, pc.run(ks), moved.run(ks), std::numeric_limits<std::size_t>::max(),
                                 "the pages were placed as " + moved.pt.describe(), where(pc));
  }
  static inline const bool registered = property::register_property<Paged002>();
};

// ---- PAGED-INV-002: stale slots are never read ------------------------------------------------------
struct Paged003 {
  static constexpr const char* id = "FALSIFY-PAGED-003";
  static constexpr const char* title =
      "NaN in every slot no sequence owns (after its last key, in unused pages) changes no bit of the outputs";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto pc = gen::paged_case<T>();
    auto nan = pc.at;
    nan.stale = Stale::nan;
    judge_untouched_sequences<T>(id, pc.vc, pc.run(ks), pc.placed(nan).run(ks), std::numeric_limits<std::size_t>::max(),
                                 "the stale slots were filled with NaN", where(pc));
  }
  static inline const bool registered = property::register_property<Paged003>();
};

// ---- PAGED-INV-003: no leakage between sequences, bit for bit ------------------------------------
struct Paged004 {
  static constexpr const char* id = "FALSIFY-PAGED-004";
  static constexpr const char* title =
      "redrawing every token of one sequence (its pages rewritten in place) leaves every output of the others bit for bit unchanged";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto pc = gen::paged_case<T>();
    RC_PRE(pc.vc.pk.sequences() >= 2);
    const std::size_t changed = *rc::gen::inRange<std::size_t>(0, pc.vc.pk.sequences());
    std::vector<T> q2, k2, v2;
    redraw_sequence(pc.vc, changed, q2, k2, v2);
    judge_untouched_sequences<T>(id, pc.vc, pc.run(ks), pc.with_tokens(q2, k2, v2).run(ks), changed,
                                 "the tokens of sequence " + std::to_string(changed) + " were redrawn", where(pc));
  }
  static inline const bool registered = property::register_property<Paged004>();
};

// ---- PAGED-SPL-001: split-KV decoding through the pages ----------------------------------------
// FALSIFY-PAGED-001's batches with the kernel told num_splits = S (1 to 6: 1 is the unsplit
// kernel), as flash-decoding over a paged cache runs (vLLM's paged_attention_v2 partitions,
// FlashAttention's flash_attn_with_kvcache with block_table and num_splits): each sequence is
// judged against attention_row_allowance of its own dense problem told S, which for S > 1 is the
// larger of the unsplit allowance and Lemma "split-KV error"'s, uniform over the kernel's parts.
// The split count is one for the whole batch, so a short sequence has empty parts; the stale slots
// are NaN in half the cases.
struct Paged005 {
  static constexpr const char* id = "FALSIFY-PAGED-005";
  static constexpr bool judges_masked_policy = true;  // rows that see no key
  static constexpr const char* title =
      "split-KV decoding over a paged cache: told to split each sequence's keys into at most S parts, every output is within the derived bound";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    // Stale slots NaN in half the cases: a split kernel that reads the rest of a part's last page
    // at weight 0 (0 · NaN) shows only then, and the unsplit checks never run it split.
    auto pc = gen::paged_case<T>(*rc::gen::arbitrary<bool>() ? Stale::nan : Stale::finite);
    pc.vc.c.p.num_splits = *rc::gen::weightedElement<std::size_t>({{1, 1}, {3, 2}, {3, 3}, {2, 4}, {1, 5}, {2, 6}});
    judge_packed_accuracy<T>(id, pc.vc, pc.run(ks), blocks_of(ks, pc.vc.c.tiling), ks.attention_paged_masked, where(pc), with_inputs(pc));
  }
  static inline const bool registered = property::register_property<Paged005>();
};

}  // namespace
}  // namespace attncheck::falsify
