// attncheck audit: attention over a packed variable-length batch (attention_varlen, ABI version 2).
#include "attncheck/audit/kinds/kind_descriptor.hpp"

namespace attncheck::audit {

extern const KindDescriptor attention_varlen_kind;

// q, k, v in CALL (the offsets travel in the varlen block: Call::inputs[3] and [4]).
constinit const KindDescriptor attention_varlen_kind{
    .kind = Kind::attention_varlen,
    .name = "attention_varlen",
    .abi2_only = true,
    .takes_problem = true,
    .returns_o_lse = true,
    .blocks = wire_block::varlen,
    .wire_inputs = 3,
    .smallest_call =
        [](Call& c) {  // one sequence of one query and one key, no LSE asked
          one_query_one_key(c);
          const std::vector<unsigned char> offsets = {0, 0, 0, 0, 1, 0, 0, 0};  // int32 LE {0, 1}
          c.inputs = {zero_elements(c, 1), zero_elements(c, 1), zero_elements(c, 1), offsets, offsets};
          c.output_count = 1;
        },
    .call_inputs = 5,
    .arrays = {{"q"}, {"k"}, {"v"}, {"cu_seqlens_q", Element::i32}, {"cu_seqlens_k", Element::i32}},
    .invoke =
        [](void* fn, const LibraryArgs& a, Dtype d) {
          return with_abi_types(d, [&]<class T, class S>() {
            return reinterpret_cast<int (*)(const attncheck_attention_problem*, const std::int32_t*, const std::int32_t*, const T*,
                                            const T*, const T*, T*, S*)>(fn)(a.problem(), a.in<std::int32_t>(3), a.in<std::int32_t>(4),
                                                                             a.in<T>(0), a.in<T>(1), a.in<T>(2), a.out<T>(0), a.lse<S>());
          });
        }};

}  // namespace attncheck::audit
