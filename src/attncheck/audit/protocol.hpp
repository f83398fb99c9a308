// attncheck audit: the exec protocol (docs/audit-protocol.md), version 2. Little-endian frames
//   "ATCK" | u8 version | u8 type | u16 reserved (0) | u32 payload length | payload
// carry test cases to a program and results back, every value as its raw bits.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "attncheck/audit/call.hpp"

namespace attncheck::audit::protocol {

// Version 2 gave CALL's fourth byte, reserved in version 1, the arithmetic format (call.hpp).
// Kind 8 (attention of ABI version 2) adds an attention block to CALL and the LSE to RESULT; it
// changes no field of the other kinds, so it needed no new version (a peer that does not serve it
// answers ERROR, and is only sent it when declared with --abi 2). Kind 9 (attention_backward)
// likewise: the attention block followed by the LSE it is given, five inputs, and a RESULT of
// dQ, dK, dV in turn. Kind 10 (attention_merge) likewise: no attention block but a merge block
// (the LSE count asked for, then the partial LSEs), one input (o_parts), and kind 8's RESULT
// (o, then the LSE part). Kind 11 (attention_varlen) likewise: kind 8's attention block (B the
// number of sequences, n and m the largest n_b and m_b), then a varlen block (u64 B + 1, then
// cu_seqlens_q and cu_seqlens_k as B + 1 int32 each), the three packed inputs q, k, v, and kind
// 8's RESULT (o, total_q × H × dv, then the LSE part, H × total_q). Kind 12 (attention_paged)
// likewise: kind 11's attention block, then a paged block (u64 page_size, num_pages,
// pages_per_sequence, then cu_seqlens_q, seqused_k and block_table, each as a u64 count, B + 1, B
// and B × pages_per_sequence, and that many int32), the inputs q, k_cache, v_cache, and kind 11's
// RESULT. Kind 13 (attention_fp8kv) likewise: kind 8's attention block, then an fp8 block (u8
// format, u8 saturating = 0, u16 reserved, u32 scale count, then k_scale and v_scale as that many
// f32 each), the inputs q (T) and the codes k and v (one byte per element), and kind 8's RESULT.
// Kind 14 (kv_quantize): no attention block; the fp8 block (format, saturating, scale count 1, the
// scale), one input x (T), and a RESULT of n one-byte codes.
inline constexpr std::uint8_t version = 2;
inline constexpr std::size_t header_bytes = 12;
// No frame may carry more than this; a peer announcing more is refused before any allocation.
inline constexpr std::uint32_t max_payload = 64u << 20;
inline constexpr std::uint32_t max_error_text = 4096;

enum class Type : std::uint8_t { hello = 1, call = 2, result = 3, error = 4 };

// A frame that breaks the protocol: the message says which rule and what was seen.
class ProtocolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Header {
  Type type = Type::hello;
  std::uint32_t length = 0;
};

std::vector<unsigned char> encode_header(Type t, std::uint32_t length);
// Why a peer of another version is refused, for the message (empty when nothing more is known).
std::string version_note(unsigned peer_version);

// Checks magic, version, reserved bits, type and the size limit; throws ProtocolError.
Header decode_header(const unsigned char (&bytes)[header_bytes]);

std::vector<unsigned char> encode_hello();
std::vector<unsigned char> encode_call(const Call& c);  // header included
Call decode_call(const std::vector<unsigned char>& payload);  // for tests and reference peers

struct Result {
  std::int32_t status = 0;
  std::vector<unsigned char> output;
  std::vector<unsigned char> lse;  // kinds 8, 10, 11, 12 and 13 only
};
// Header included; lse: the LSE part of kinds 8, 10, 11, 12 and 13 (lse_size(d) bytes per element),
// else null. output_width: bytes per output element, 0 for dtype d's (kind 14's codes: 1).
std::vector<unsigned char> encode_result(std::int32_t status, Dtype d, const std::vector<unsigned char>& output,
                                         const std::vector<unsigned char>* lse = nullptr, std::size_t output_width = 0);
// Decodes a RESULT payload for a call that expects `count` elements of dtype d (status != 0
// may carry 0 elements; output_width bytes each, 0 for d's own) and, for kinds 8, 10, 11, 12 and
// 13, `*lse_count` LSE elements (0 when not asked); throws ProtocolError on any mismatch.
Result decode_result(const std::vector<unsigned char>& payload, Dtype d, std::uint64_t count,
                     std::optional<std::uint64_t> lse_count = std::nullopt, std::size_t output_width = 0);

}  // namespace attncheck::audit::protocol
