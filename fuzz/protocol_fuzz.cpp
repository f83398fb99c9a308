// libFuzzer target: the exec-protocol decoder (src/attncheck/audit/protocol.cpp, docs/audit-protocol.md)
// on a byte stream as a peer program could send it. Byte 0 picks the dtype and byte 1 the element
// count of the call a RESULT answers; the rest is a sequence of frames. Every malformed frame must be
// refused with ProtocolError; any other exception or a crash is a finding. A CALL that decodes must
// survive encode -> decode unchanged (the encoder and decoder agree on the layout).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <vector>

#include "attncheck/audit/protocol.hpp"

namespace p = attncheck::audit::protocol;
using attncheck::audit::Call;

namespace {
// Bitwise, so that NaN parameters compare equal to themselves.
bool same_bits(const double& a, const double& b) { return std::memcmp(&a, &b, sizeof a) == 0; }
bool same(const attncheck::kernels::AttentionProblem& a, const attncheck::kernels::AttentionProblem& b) {
  bool slopes = a.alibi_slopes.size() == b.alibi_slopes.size();
  for (std::size_t i = 0; slopes && i < a.alibi_slopes.size(); ++i) slopes = same_bits(a.alibi_slopes[i], b.alibi_slopes[i]);
  const auto &s = a.shape, &t = b.shape;
  return s.batch == t.batch && s.heads == t.heads && s.kv_heads == t.kv_heads && s.n == t.n && s.m == t.m && s.d == t.d &&
         s.dv == t.dv && same_bits(a.scale, b.scale) && a.mask.causal == b.mask.causal && a.mask.alignment == b.mask.alignment &&
         a.mask.window_left == b.mask.window_left && a.mask.window_right == b.mask.window_right && same_bits(a.softcap, b.softcap) &&
         slopes;
}
bool same(const Call& a, const Call& b) {
  return a.kind == b.kind && a.dtype == b.dtype && a.n == b.n && a.m == b.m && a.d == b.d && a.dv == b.dv &&
         std::memcmp(&a.eps, &b.eps, sizeof a.eps) == 0 && a.causal == b.causal && a.inputs == b.inputs &&
         a.output_count == b.output_count && a.lse_count == b.lse_count && same(a.problem, b.problem) &&
         a.fp8.format == b.fp8.format && a.fp8.saturating == b.fp8.saturating && std::memcmp(&a.fp8.scale, &b.fp8.scale, sizeof a.fp8.scale) == 0;
}

void check_call(const std::vector<unsigned char>& payload) {
  Call c;
  try {
    c = p::decode_call(payload);
  } catch (const p::ProtocolError&) {
    return;
  }
  const auto frame = p::encode_call(c);
  const std::vector<unsigned char> again(frame.begin() + p::header_bytes, frame.end());
  if (!same(c, p::decode_call(again))) {
    std::fprintf(stderr, "CALL changed on encode -> decode\n");
    std::abort();
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  // Any dtype, 16-bit storage with either arithmetic included (the CALL's arithmetic byte).
  const std::optional<attncheck::Dtype> dtype = attncheck::all_dtypes[data[0] % attncheck::all_dtypes.size()];
  const std::uint64_t count = data[1];
  std::size_t at = 2;
  while (size - at >= p::header_bytes) {
    unsigned char head[p::header_bytes];
    std::memcpy(head, data + at, sizeof head);
    at += sizeof head;
    p::Header h;
    try {
      h = p::decode_header(head);
    } catch (const p::ProtocolError&) {
      return 0;  // the backend stops reading this peer here
    }
    if (h.length > size - at) return 0;  // the peer went quiet mid-frame: a timeout, not a decode
    const std::vector<unsigned char> payload(data + at, data + at + h.length);
    at += h.length;
    if (h.type == p::Type::call) {
      check_call(payload);
    } else if (h.type == p::Type::result) {
      try {
        // Byte 1's low bit: the call was of kind 8 (attention of ABI version 2), whose RESULT
        // also carries `count` LSE elements.
        const bool v2 = data[1] & 1;
        const auto r = p::decode_result(payload, *dtype, count, v2 ? std::optional<std::uint64_t>(count) : std::nullopt);
        if (r.status == 0 && r.output.size() != count * attncheck::audit::dtype_size(*dtype)) std::abort();
        if (r.status == 0 && v2 && r.lse.size() != count * attncheck::audit::lse_size(*dtype)) std::abort();
      } catch (const p::ProtocolError&) {
      }
    }
  }
  return 0;
}
