// attncheck audit: the FP8 KV cache: attention over it (attention_fp8kv) and its write
// (kv_quantize), ABI version 2.
#include "attncheck/audit/kinds/kind_descriptor.hpp"

namespace attncheck::audit {

extern const KindDescriptor attention_fp8kv_kind, kv_quantize_kind;

// q, the codes k and v (one byte each) in CALL; the scales travel in the fp8 block (Call::inputs[3], [4]).
constinit const KindDescriptor attention_fp8kv_kind{
    .kind = Kind::attention_fp8kv,
    .name = "attention_fp8kv",
    .abi2_only = true,
    .takes_problem = true,
    .returns_o_lse = true,
    .blocks = wire_block::fp8_kv_scales,
    .wire_inputs = 3,
    .smallest_call =
        [](Call& c) {  // one query and one key, d = dv = 1, E4M3FN codes 0, scales 1 per tensor, no LSE asked
          one_query_one_key(c);
          const std::vector<unsigned char> one = {0x00, 0x00, 0x80, 0x3f};  // 1.0f LE
          c.inputs = {zero_elements(c, 1), {0}, {0}, one, one};
          c.output_count = 1;
        },
    .call_inputs = 5,
    .arrays = {{"q"}, {"k", Element::byte}, {"v", Element::byte}, {"k_scale", Element::f32}, {"v_scale", Element::f32}},
    .invoke =
        [](void* fn, const LibraryArgs& a, Dtype d) {
          return with_abi_types(d, [&]<class T, class S>() {
            return reinterpret_cast<int (*)(const attncheck_attention_problem*, int, std::size_t, const float*, const float*, const T*,
                                            const std::uint8_t*, const std::uint8_t*, T*, S*)>(fn)(
                a.problem(), a.r.fp8_format, a.r.scale_count, a.in<float>(3), a.in<float>(4), a.in<T>(0), a.in<std::uint8_t>(1),
                a.in<std::uint8_t>(2), a.out<T>(0), a.lse<S>());
          });
        }};

// x in CALL; n codes of one byte out.
constinit const KindDescriptor kv_quantize_kind{
    .kind = Kind::kv_quantize,
    .name = "kv_quantize",
    .abi2_only = true,
    .blocks = wire_block::fp8_one_scale,
    .byte_output = true,
    .smallest_call =
        [](Call& c) {  // one value +0, E4M3FN saturating, scale 1
          c.n = 1;
          c.fp8 = {.format = 0, .saturating = true, .scale = 1.0f};
          c.inputs = {zero_elements(c, 1)};
          c.output_count = 1;
        },
    .call_inputs = 1,
    .arrays = {{"x"}},
    .invoke =
        [](void* fn, const LibraryArgs& a, Dtype d) {
          return with_abi_types(d, [&]<class T, class S>() {
            return reinterpret_cast<int (*)(int, int, std::size_t, float, const T*, std::uint8_t*)>(fn)(
                a.r.fp8_format, a.r.fp8_saturating, a.r.n, a.r.fp8_scale, a.in<T>(0), a.out<std::uint8_t>(0));
          });
        }};

}  // namespace attncheck::audit
