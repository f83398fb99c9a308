// attncheck audit: dense attention: ABI version 1's (attention), version 2's batched problem
// (attention_v2, spelt `attention` and reached through abi_kind) and its backward pass.
#include "attncheck/audit/kinds/kind_descriptor.hpp"

namespace attncheck::audit {

extern const KindDescriptor attention_kind, attention_v2_kind, attention_backward_kind;

namespace {
void q_k_v(Call& c) {  // one query and one key, d = dv = 1, no LSE asked
  one_query_one_key(c);
  c.inputs = {zero_elements(c, 1), zero_elements(c, 1), zero_elements(c, 1)};
  c.output_count = 1;
}
}  // namespace

constinit const KindDescriptor attention_kind{
    .kind = Kind::attention,
    .name = "attention",
    .wire_inputs = 3,
    .smallest_call = q_k_v,
    .call_inputs = 3,
    .invoke = [](void* fn, const LibraryArgs& a, Dtype d) {
      return with_abi_types(d, [&]<class T, class S>() {
        return reinterpret_cast<int (*)(const T*, const T*, const T*, std::size_t, std::size_t, std::size_t, std::size_t, int, T*)>(fn)(
            a.in<T>(0), a.in<T>(1), a.in<T>(2), a.r.n, a.r.m, a.r.d, a.r.dv, static_cast<int>(a.r.causal), a.out<T>(0));
      });
    }};

constinit const KindDescriptor attention_v2_kind{
    .kind = Kind::attention_v2,
    .name = "attention",
    .spelt = false,
    .takes_problem = true,
    .returns_o_lse = true,
    .wire_inputs = 3,
    .smallest_call = q_k_v,
    .call_inputs = 3,
    .arrays = {{"q"}, {"k"}, {"v"}},
    .invoke = [](void* fn, const LibraryArgs& a, Dtype d) {
      return with_abi_types(d, [&]<class T, class S>() {
        return reinterpret_cast<int (*)(const attncheck_attention_problem*, const T*, const T*, const T*, T*, S*)>(fn)(
            a.problem(), a.in<T>(0), a.in<T>(1), a.in<T>(2), a.out<T>(0), a.lse<S>());
      });
    }};

// q, k, v, o, dO in CALL (the LSE travels in the attention block: Call::inputs[5]); dQ, dK, dV out.
constinit const KindDescriptor attention_backward_kind{
    .kind = Kind::attention_backward,
    .name = "attention_backward",
    .abi2_only = true,
    .takes_problem = true,
    .blocks = wire_block::lse_given,
    .wire_inputs = 5,
    .smallest_call =
        [](Call& c) {
          one_query_one_key(c);
          const auto one = zero_elements(c, 1);
          c.inputs = {one, one, one, one, one, std::vector<unsigned char>(lse_size(c.dtype), 0)};
          c.lse_count = 1;
          c.output_count = 3;
        },
    .call_inputs = 6,
    .arrays = {{"q"}, {"k"}, {"v"}, {"o"}, {"dout"}, {"lse", Element::lse}},
    .invoke =
        [](void* fn, const LibraryArgs& a, Dtype d) {
          return with_abi_types(d, [&]<class T, class S>() {
            return reinterpret_cast<int (*)(const attncheck_attention_problem*, const T*, const T*, const T*, const T*, const T*, const S*,
                                            T*, T*, T*)>(fn)(a.problem(), a.in<T>(0), a.in<T>(1), a.in<T>(2), a.in<T>(3), a.in<T>(4),
                                                             a.in<S>(5), a.out<T>(0), a.out<T>(1), a.out<T>(2));
          });
        }};

}  // namespace attncheck::audit
