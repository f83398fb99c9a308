// attncheck audit: one call of an untrusted kernel (kind, dtype, shape, raw input bits) and what
// came back, independent of how the kernel is reached (a dlopen'd library or an exec'd program).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/scalar/dtype.hpp"
#include "attncheck/kernels/attention_problem.hpp"

namespace attncheck::audit {

// The kernel kinds of include/attncheck/abi.h, numbered as in the exec protocol. attention_v2 is
// the kind `attention` of ABI version 2 (attncheck_attention_v2_*_fn): users spell it `attention`
// and the source's ABI version decides which signature is meant (Backend::has, abi_kind).
// attention_backward (ABI version 2 only) is the backward pass of attention_v2's problem
// (attncheck_attention_backward_v2_*_fn); attention_merge (ABI version 2 only) the merge of
// split-KV partial results (attncheck_attention_merge_v2_*_fn); attention_varlen (ABI version 2
// only) attention over a packed variable-length batch (attncheck_attention_varlen_v2_*_fn);
// attention_paged (ABI version 2 only) attention over a paged KV cache
// (attncheck_attention_paged_v2_*_fn); attention_fp8kv (ABI version 2 only) attention over an FP8
// KV cache (attncheck_attention_fp8kv_v2_*_fn) and kv_quantize (ABI version 2 only) the write of
// such a cache (attncheck_kv_quantize_v2_*_fn).
enum class Kind : std::uint8_t {
  softmax = 1,
  log_softmax,
  scores,
  rmsnorm,
  entropy,
  attention,
  softmax_jvp,
  attention_v2,
  attention_backward,
  attention_merge,
  attention_varlen,
  attention_paged,
  attention_fp8kv,
  kv_quantize
};

// What each kind is lives in its descriptor (attncheck/audit/kinds/): the questions below read it.
// Every registered kind, in the order of abi.h (kinds/registry.cpp, one line each).
const std::vector<Kind>& registered_kinds();
// The kinds a library must be of ABI version 2 to bind (version 1 has no signature for them).
bool abi2_only(Kind k);
// The kinds that take the attention problem struct (ABI version 2's).
bool takes_problem(Kind k);
// The kinds whose result is o and, when asked, the LSE (a RESULT with an LSE part, outputs o and lse).
bool returns_o_lse(Kind k);
// The kinds that read or write FP8 codes (a format, and scales).
bool takes_fp8(Kind k);

// The ABI versions this attncheck speaks (include/attncheck/abi.h, ATTNCHECK_ABI_VERSION).
inline constexpr int min_abi_version = 1, max_abi_version = 2;

// "attention" for both attention kinds (as users spell them); kind_label adds " (ABI 2)" for
// attention_v2, for messages that must tell them apart.
std::string_view kind_name(Kind k);
std::string kind_label(Kind k);
// A kind as spelt (never attention_v2: `attention` is resolved by abi_kind).
std::optional<Kind> parse_kind(std::string_view s);
// The kind a spelt kind is called as by a source of ABI version abi: attention -> attention_v2 from 2.
inline Kind abi_kind(Kind spelt, int abi) { return spelt == Kind::attention && abi >= 2 ? Kind::attention_v2 : spelt; }
// The spelt kind of k (attention_v2 -> attention).
inline Kind spelt_kind(Kind k) { return k == Kind::attention_v2 ? Kind::attention : k; }
// Bytes of one LSE element of attention_v2 at storage d: 4 (float) for 16-bit and f32, 8 for f64.
std::size_t lse_size(Dtype d);
std::size_t dtype_size(Dtype d);   // bytes per element: 2, 4 or 8
// Bytes per output element of kind k at storage d: 1 for kv_quantize (FP8 codes), else dtype_size(d).
std::size_t output_size(Kind k, Dtype d);
std::uint8_t dtype_code(Dtype d);  // exec protocol code of the storage format: f16 1, bf16 2, f32 3, f64 4
std::uint8_t arithmetic_code(Dtype d);  // of the arithmetic format: 0 the storage format's own, 3 f32
std::optional<Dtype> dtype_from_code(std::uint8_t storage, std::uint8_t arithmetic);

// The arguments of one call, in the ABI's order. Inputs hold raw little-endian element bits.
struct Call {
  Kind kind = Kind::softmax;
  Dtype dtype = Dtype::f32;
  std::uint64_t n = 0, m = 0, d = 0, dv = 0;  // the size_t arguments the kind takes (others 0)
  double eps = 0;                             // rmsnorm's S eps (float for f16/bf16/f32: exact in double)
  bool causal = false;                        // attention only (attention_v2: problem.mask.causal)
  std::vector<std::vector<unsigned char>> inputs;
  std::uint64_t output_count = 0;             // elements the kernel must write
  // attention_v2 only: everything but q, k, v (problem.shape gives n, m, d, dv above too), and the
  // LSE elements asked for (0: lse is NULL; else problem.shape.lse_size(), of lse_size(dtype) bytes).
  // attention_backward: the problem too; inputs q, k, v, o, dO (T) and the LSE (inputs[5],
  // lse_size(dtype) bytes per element); output_count = q + k + v elements: dQ, dK, dV in turn.
  // attention_merge: no problem; n = splits, m = rows, dv = dv (d 0); inputs o_parts (T,
  // splits × rows × dv) and lse_parts (inputs[1], splits × rows elements of lse_size(dtype)
  // bytes); output_count = rows · dv (o); lse_count = rows, or 0 when lse is NULL (--no-lse).
  // attention_varlen: the problem (shape.batch = B sequences, shape.n and .m the largest n_b and
  // m_b; n, m, d, dv above as attention_v2's); inputs q, k, v (T, packed: total_q × H × d,
  // total_k × H_kv × d, total_k × H_kv × dv), then cu_seqlens_q and cu_seqlens_k (inputs[3] and
  // [4]: B + 1 int32 offsets each, 4 little-endian bytes apiece, as the kernel is given them and
  // compared after the call like q, k, v); output_count = total_q · H · dv (o); lse_count =
  // H · total_q (the LSE, H × total_q), or 0 when lse is NULL. The offsets travel as inputs, not
  // as fields, so that every backend places, guards and compares them like the tensors.
  // attention_paged: the problem as attention_varlen's (shape.batch = B, .n and .m the largest n_b
  // and m_b), and paging's three scalars; inputs q (T, total_q × H × d), k_cache and v_cache (T,
  // num_pages × page_size × H_kv × d and × dv), then cu_seqlens_q (inputs[3], B + 1 int32),
  // seqused_k ([4], B int32) and block_table ([5], B × pages_per_sequence int32), compared after
  // the call like the tensors (as varlen's offsets); output_count and lse_count as varlen's.
  // attention_fp8kv: the problem as attention_v2's and fp8.format; inputs q (T, B × n × H × d), the
  // codes k and v (one byte each, B × m × H_kv × d and × dv), then k_scale and v_scale (inputs[3]
  // and [4]: scale_count floats each, 1 or H_kv, 4 little-endian bytes apiece), compared after the
  // call like q; output_count and lse_count as attention_v2's.
  // kv_quantize: n values; fp8's format, saturating and scale; input x (T, n); output_count = n
  // codes of one byte each (output_size).
  kernels::AttentionProblem problem;
  std::uint64_t lse_count = 0;
  struct Paging {
    std::uint64_t page_size = 0, num_pages = 0, pages_per_sequence = 0;  // abi.h's size_t arguments
  } paging;
  struct Fp8 {
    std::uint8_t format = 0;  // ATTNCHECK_FP8_E4M3FN (0) or ATTNCHECK_FP8_E5M2 (1)
    bool saturating = false;  // kv_quantize: the declared overflow rule
    float scale = 0;          // kv_quantize: the one scale
  } fp8;
};

// The seconds one call may take: the --timeout base plus one second per 2·10^7 multiply-adds the
// call needs (a batched attention call at shipped sizes is 10^8–10^11 of them; 2·10^7 a second is
// a slow scalar loop on a busy core, so a correct kernel is never cut short by its size, and a
// hang still ends); a merge is splits · rows · dv of them (one per weighted element of o_parts), a
// packed or paged batch Σ_b H · n_b · m_b · (d + dv) (each sequence attends to its own keys only),
// attention over an FP8 cache the dense count. Every other kind is O(n) or O(n m d) at the audit's
// small sizes: the base.
double call_timeout_seconds(const Call& c, double base_seconds);

// How a call ended. Everything but `done` is a fault of the kernel (or a refusal, for declined),
// except out_of_memory: the kernel process reported an allocation failure under the address-space
// limit (--memory), which is attncheck's limit, not a finding against the kernel.
enum class Status { done, declined, crashed, timed_out, out_of_bounds, modified_input, protocol_error, out_of_memory };

struct Reply {
  Status status = Status::protocol_error;
  int code = 0;         // the kernel's return value (declined) or the signal number (crashed)
  std::string detail;   // what exactly went wrong, for the report
  std::vector<unsigned char> output;  // output_count elements when done (attention_backward: dQ, dK, dV)
  std::vector<unsigned char> lse;     // the kinds of returns_o_lse: lse_count elements when done
};

// A way to reach the audited kernels. Implementations keep the kernel out of this process.
class Backend {
 public:
  virtual ~Backend() = default;
  // Whether kind k (attention_v2 included) at d is provided: a bound `attention` is attention_v2
  // when the source's ABI version is 2, attention otherwise.
  virtual bool has(Kind k, Dtype d) const = 0;
  virtual Reply call(const Call& c) = 0;
  virtual std::string describe() const = 0;  // "library ./libx.so" / "program 'python3 a.py'"
  // Whether a stray write (out of bounds, into an input) is observable with this backend.
  virtual bool sees_memory() const = 0;
};

// A fault of the audited kernel, thrown out of the KernelSet function that made the call, so
// RapidCheck counts the case as failing and shrinks it to the smallest input that faults.
class KernelFault : public std::runtime_error {
 public:
  KernelFault(Status s, const std::string& message) : std::runtime_error(message), status(s) {}
  Status status;
};

// Thrown when a property needs a kernel kind the user did not provide: the obligation is then
// "not applicable", never passed.
class KindAbsent : public std::runtime_error {
 public:
  explicit KindAbsent(Kind k) : KindAbsent(kind_name(k)) {}
  explicit KindAbsent(std::string_view name) : std::runtime_error(std::string(marker) + std::string(name)) {}
  static constexpr const char* marker = "kernel kind not provided by the audited set: ";
};

}  // namespace attncheck::audit
