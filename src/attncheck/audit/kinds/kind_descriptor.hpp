// attncheck audit: what one kernel kind is, in one place. Each kind's descriptor is defined in the
// file of its family under this folder and registered in registry.cpp; the generic code (the names
// and codes of call.cpp, the exec codec of protocol.cpp, the exec backend's question whether a kind
// is served) reads the descriptor instead of switching on the kind. docs/architecture.md ("Kernel
// kinds") lists what a new kind still has to add outside its descriptor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "attncheck/audit/call.hpp"
#include "attncheck/audit/kinds/library_call.hpp"

namespace attncheck::audit {

// How one element of an input array is stored, for the exec codec and the library backend's
// messages: in the storage format, as the ABI's LSE scalar S, int32, one byte (FP8 codes) or float.
enum class Element : std::uint8_t { storage, lse, i32, byte, f32 };
struct ArrayOf {
  const char* name = nullptr;  // as messages name it ("modified its input k_cache"); null: by its index
  Element element = Element::storage;
};
// Bytes of one element e at storage d.
inline std::size_t element_size(Element e, Dtype d) {
  return e == Element::storage ? dtype_size(d) : e == Element::lse ? lse_size(d) : e == Element::byte ? 1 : 4;
}

// CALL's blocks after the attention block (docs/audit-protocol.md, wire_format.tsv), as the bits
// of KindDescriptor::blocks: the exec codec reads and writes a kind's blocks by them.
namespace wire_block {
inline constexpr std::uint8_t lse_given = 1;       // the LSE given, right after the attention block (Call::inputs[5])
inline constexpr std::uint8_t merge = 2;           // the LSE asked for and lse_parts (Call::inputs[1])
inline constexpr std::uint8_t varlen = 4;          // cu_seqlens_q, cu_seqlens_k (Call::inputs[3], [4])
inline constexpr std::uint8_t paged = 8;           // Call::paging, cu_seqlens_q, seqused_k, block_table (inputs[3] to [5])
inline constexpr std::uint8_t fp8_kv_scales = 16;  // the fp8 block with k_scale and v_scale (Call::inputs[3], [4])
inline constexpr std::uint8_t fp8_one_scale = 32;  // the fp8 block with one scale and the overflow rule (Call::fp8)
}  // namespace wire_block

struct KindDescriptor {
  Kind kind;                    // its number in the exec protocol (CALL's first byte) and in abi.h's order
  std::string_view name;        // as users spell it and reports print it (attention_v2: "attention")
  bool spelt = true;            // parse_kind finds it by name (attention_v2 is reached through abi_kind)
  bool abi2_only = false;       // only ABI version 2 has a signature for it
  bool takes_problem = false;   // it takes ABI version 2's attention problem (CALL's attention block)
  bool returns_o_lse = false;   // its result is o and, when asked, the LSE (RESULT's LSE part)
  std::uint8_t blocks = 0;      // its CALL blocks besides the attention block (wire_block's bits)
  std::size_t wire_inputs = 1;  // CALL's input arrays (src/attncheck/audit/wire_format.tsv)
  bool byte_output = false;     // its output is one byte per element (FP8 codes)
  // The smallest call of the kind at c.dtype (one element, +0), which the exec backend sends to ask
  // whether a program serves it (docs/audit-protocol.md, "Conversation"): fills c's sizes and inputs.
  void (*smallest_call)(Call& c) = nullptr;
  // The Call::inputs the kernel is given (CALL's arrays and those of its blocks), which the library
  // backend places in the shared region and compares after the call.
  std::size_t call_inputs = 1;
  // Those inputs' names and elements (the first wire_inputs travel as CALL's input arrays).
  ArrayOf arrays[max_library_inputs] = {};
  // The library backend's call of the kind's C signature (abi.h) in its child process.
  LibraryInvoke invoke = nullptr;
};

// count elements +0 of c.dtype's storage (the smallest calls' inputs).
inline std::vector<unsigned char> zero_elements(const Call& c, std::size_t count) {
  return std::vector<unsigned char>(count * dtype_size(c.dtype), 0);
}
// The attention problem of one query and one key, d = dv = 1, in the fixed fields and the problem.
inline void one_query_one_key(Call& c) {
  c.n = c.m = c.d = c.dv = 1;
  c.problem.shape.n = c.problem.shape.m = c.problem.shape.d = c.problem.shape.dv = 1;
}

}  // namespace attncheck::audit
