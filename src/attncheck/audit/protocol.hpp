// attncheck audit: the exec protocol (docs/audit-protocol.md), version 2. Little-endian frames
//   "ATCK" | u8 version | u8 type | u16 reserved (0) | u32 payload length | payload
// carry test cases to a program and results back, every value as its raw bits.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "attncheck/audit/call.hpp"

namespace attncheck::audit::protocol {

// Version 2 gave CALL's fourth byte, reserved in version 1, the arithmetic format (call.hpp).
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
};
std::vector<unsigned char> encode_result(std::int32_t status, Dtype d, const std::vector<unsigned char>& output);  // header included
// Decodes a RESULT payload for a call that expects `count` elements of dtype d (status != 0
// may carry 0 elements); throws ProtocolError on any mismatch.
Result decode_result(const std::vector<unsigned char>& payload, Dtype d, std::uint64_t count);

}  // namespace attncheck::audit::protocol
