// attncheck audit: what a kind's descriptor needs to call its C signature in the library backend's
// child process (library_backend.cpp): the request that travels over the pipe, the element types of
// a storage format, and the inputs and outputs at their offsets in the shared region.
#pragma once

#include <cstdint>

#include "attncheck/abi.h"
#include "attncheck/scalar/dtype.hpp"

namespace attncheck::audit {

// What travels over the request pipe: plain data, offsets into the shared region.
constexpr int max_library_inputs = 6, max_library_outputs = 3;
struct LibraryRequest {
  std::uint32_t binding;
  std::uint32_t causal;
  std::uint64_t n, m, d, dv;
  double eps;
  std::uint64_t in_off[max_library_inputs];
  std::uint64_t out_off[max_library_outputs];  // [0] the output (o, dQ); [1] attention_v2's or the merge's LSE, or dK; [2] dV
  std::uint32_t kind;                          // the Kind to call the binding as (attention_v2 for `attention` of ABI 2)
  std::uint32_t outputs;                       // how many of out_off are used (attention_v2, attention_merge without LSE: 1, lse NULL)
  std::uint64_t problem_off;                   // attention_v2, attention_backward: the attncheck_attention_problem
  std::uint64_t guard_off[max_library_outputs - 1];        // outputs 1 and 2: the pages to protect during the call
  std::uint64_t page_size, num_pages, pages_per_sequence;  // attention_paged's scalars
  std::uint64_t scale_count;                               // attention_fp8kv: k_scale and v_scale elements
  std::int32_t fp8_format, fp8_saturating;                 // attention_fp8kv, kv_quantize (saturating: kv_quantize)
  float fp8_scale;                                         // kv_quantize's scale
};

// f.template operator()<T, S>() with T the element type of storage d as it crosses the ABI and S
// its scalar (float for 16-bit storage and f32, double for f64); -1 for formats no binding has.
template <class F>
int with_abi_types(Dtype d, F&& f) {
  switch (d) {
    case Dtype::f32:
      return f.template operator()<float, float>();
    case Dtype::f64:
      return f.template operator()<double, double>();
    case Dtype::f16:
    case Dtype::bf16:
    case Dtype::f16_f32:
    case Dtype::bf16_f32:
      return f.template operator()<std::uint16_t, float>();
    case Dtype::e4m3:  // bmc's formats: no binding has them (parse_dtype refuses them)
    case Dtype::e5m2:
    case Dtype::e4m3sat:
      break;
  }
  return -1;
}

// The request's arrays in the region at base, as the kernel is given them.
struct LibraryArgs {
  const LibraryRequest& r;
  unsigned char* base;
  template <class U>
  const U* in(int i) const {
    return reinterpret_cast<const U*>(base + r.in_off[i]);
  }
  template <class U>
  U* out(int i) const {
    return reinterpret_cast<U*>(base + r.out_off[i]);
  }
  // The second output when asked (the LSE), else NULL.
  template <class S>
  S* lse() const {
    return r.outputs > 1 ? out<S>(1) : nullptr;
  }
  const attncheck_attention_problem* problem() const { return reinterpret_cast<const attncheck_attention_problem*>(base + r.problem_off); }
};

// A kind's call of its bound symbol fn at storage d.
using LibraryInvoke = int (*)(void* fn, const LibraryArgs& a, Dtype d);

}  // namespace attncheck::audit
