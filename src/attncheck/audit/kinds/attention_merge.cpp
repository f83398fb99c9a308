// attncheck audit: the merge of split-KV partial results (attention_merge, ABI version 2).
#include "attncheck/audit/kinds/kind_descriptor.hpp"

namespace attncheck::audit {

extern const KindDescriptor attention_merge_kind;

// o_parts in CALL (lse_parts travel in the merge block: Call::inputs[1]); n = splits, m = rows.
constinit const KindDescriptor attention_merge_kind{
    .kind = Kind::attention_merge,
    .name = "attention_merge",
    .abi2_only = true,
    .returns_o_lse = true,
    .blocks = wire_block::merge,
    .wire_inputs = 1,
    .smallest_call =
        [](Call& c) {  // one split of one row, dv = 1, no LSE asked
          c.n = c.m = c.dv = 1;
          c.inputs = {zero_elements(c, 1), std::vector<unsigned char>(lse_size(c.dtype), 0)};
          c.output_count = 1;
        },
    .call_inputs = 2,
    .arrays = {{"o_parts"}, {"lse_parts", Element::lse}},
    .invoke =
        [](void* fn, const LibraryArgs& a, Dtype d) {
          return with_abi_types(d, [&]<class T, class S>() {
            return reinterpret_cast<int (*)(std::size_t, std::size_t, std::size_t, const T*, const S*, T*, S*)>(fn)(
                a.r.n, a.r.m, a.r.dv, a.in<T>(0), a.in<S>(1), a.out<T>(0), a.lse<S>());
          });
        }};

}  // namespace attncheck::audit
