// attncheck audit: attention over a paged KV cache (attention_paged, ABI version 2).
#include "attncheck/audit/kinds/kind_descriptor.hpp"

namespace attncheck::audit {

extern const KindDescriptor attention_paged_kind;

// q, k_cache, v_cache in CALL (the page table travels in the paged block: Call::inputs[3] to [5]).
constinit const KindDescriptor attention_paged_kind{
    .kind = Kind::attention_paged,
    .name = "attention_paged",
    .abi2_only = true,
    .takes_problem = true,
    .returns_o_lse = true,
    .blocks = wire_block::paged,
    .wire_inputs = 3,
    .smallest_call =
        [](Call& c) {  // one sequence of one query and one key in one page of one token, no LSE asked
          one_query_one_key(c);
          c.paging = {.page_size = 1, .num_pages = 1, .pages_per_sequence = 1};
          const std::vector<unsigned char> cu_q = {0, 0, 0, 0, 1, 0, 0, 0}, one = {1, 0, 0, 0}, page0 = {0, 0, 0, 0};  // int32 LE
          c.inputs = {zero_elements(c, 1), zero_elements(c, 1), zero_elements(c, 1), cu_q, one, page0};
          c.output_count = 1;
        },
    .call_inputs = 6,
    .arrays = {{"q"}, {"k_cache"}, {"v_cache"}, {"cu_seqlens_q", Element::i32}, {"seqused_k", Element::i32}, {"block_table", Element::i32}},
    .invoke =
        [](void* fn, const LibraryArgs& a, Dtype d) {
          return with_abi_types(d, [&]<class T, class S>() {
            return reinterpret_cast<int (*)(const attncheck_attention_problem*, const std::int32_t*, const std::int32_t*,
                                            const std::int32_t*, std::size_t, std::size_t, std::size_t, const T*, const T*, const T*, T*,
                                            S*)>(fn)(a.problem(), a.in<std::int32_t>(3), a.in<std::int32_t>(4), a.in<std::int32_t>(5),
                                                     a.r.pages_per_sequence, a.r.page_size, a.r.num_pages, a.in<T>(0), a.in<T>(1),
                                                     a.in<T>(2), a.out<T>(0), a.lse<S>());
          });
        }};

}  // namespace attncheck::audit
