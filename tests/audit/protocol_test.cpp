// attncheck audit: the exec protocol's framing carries every bit pattern unchanged and refuses
// malformed or oversized frames before allocating for them.
#include <cmath>
#include <cstring>
#include <limits>

#include <doctest/doctest.h>

#include "attncheck/audit/protocol.hpp"

using namespace attncheck;
using namespace attncheck::audit;

namespace {
template <class U>
std::vector<unsigned char> bytes_of(const std::vector<U>& v) {
  std::vector<unsigned char> b(v.size() * sizeof(U));
  std::memcpy(b.data(), v.data(), b.size());
  return b;
}
std::vector<unsigned char> payload_of(const std::vector<unsigned char>& frame) {
  return {frame.begin() + protocol::header_bytes, frame.end()};
}
}  // namespace

TEST_CASE("a CALL frame round-trips NaN payloads, signed zeros, subnormals and infinities bit for bit") {
  // f32: quiet NaN with payload, signalling NaN, -0, smallest subnormal, -inf, largest finite.
  const std::vector<std::uint32_t> f32 = {0x7fc12345u, 0x7f800001u, 0x80000000u, 0x00000001u, 0xff800000u, 0x7f7fffffu};
  // f16/bf16 travel as raw 16-bit patterns.
  const std::vector<std::uint16_t> f16 = {0x7e01u, 0x8000u, 0x0001u, 0xfc00u, 0x7bffu};
  // The arithmetic travels in its own byte: f16@f32 and bf16@f32 come back as themselves.
  for (const auto& [d, in] : {std::pair{Dtype::f32, bytes_of(f32)}, std::pair{Dtype::f16, bytes_of(f16)}, std::pair{Dtype::bf16, bytes_of(f16)},
                              std::pair{Dtype::f16_f32, bytes_of(f16)}, std::pair{Dtype::bf16_f32, bytes_of(f16)}}) {
    Call c;
    c.kind = Kind::softmax_jvp;
    c.dtype = d;
    c.n = in.size() / dtype_size(d);
    c.inputs = {in, in};
    c.output_count = c.n;
    c.eps = -0.0;
    const auto frame = protocol::encode_call(c);
    unsigned char head[protocol::header_bytes];
    std::memcpy(head, frame.data(), sizeof head);
    const auto h = protocol::decode_header(head);
    CHECK(h.type == protocol::Type::call);
    CHECK(h.length == frame.size() - protocol::header_bytes);
    const Call back = protocol::decode_call(payload_of(frame));
    CHECK(back.kind == c.kind);
    CHECK(back.dtype == d);
    CHECK(back.n == c.n);
    CHECK(back.inputs == c.inputs);
    CHECK(std::signbit(back.eps));
  }
}

TEST_CASE("a RESULT frame round-trips its values and must hold exactly the expected count") {
  const std::vector<std::uint64_t> f64 = {0x7ff8000000000badull, 0x8000000000000000ull, 0x0000000000000001ull};
  const auto out = bytes_of(f64);
  const auto frame = protocol::encode_result(0, Dtype::f64, out);
  const auto r = protocol::decode_result(payload_of(frame), Dtype::f64, 3);
  CHECK(r.status == 0);
  CHECK(r.output == out);
  CHECK_THROWS_WITH_AS(protocol::decode_result(payload_of(frame), Dtype::f64, 4), "result holds 3 elements, the call expects 4",
                       protocol::ProtocolError);
  auto cut = payload_of(frame);
  cut.resize(cut.size() - 1);
  CHECK_THROWS_AS(protocol::decode_result(cut, Dtype::f64, 3), protocol::ProtocolError);
  // A declined result may carry no values.
  CHECK(protocol::decode_result(payload_of(protocol::encode_result(5, Dtype::f64, {})), Dtype::f64, 3).status == 5);
}

TEST_CASE("headers with a wrong magic, version, reserved bits, type or an oversized length are refused") {
  const auto good = protocol::encode_header(protocol::Type::result, 16);
  unsigned char h[protocol::header_bytes];
  const auto with = [&](std::size_t at, unsigned char v) {
    std::memcpy(h, good.data(), sizeof h);
    h[at] = v;
  };
  with(0, 'X');
  CHECK_THROWS_WITH_AS(protocol::decode_header(h), "bad magic: expected \"ATCK\" (41 54 43 4b), got 58 54 43 4b", protocol::ProtocolError);
  with(4, 3);
  CHECK_THROWS_AS(protocol::decode_header(h), protocol::ProtocolError);
  with(4, 1);  // version 1: no arithmetic byte; the message says what changed
  CHECK_THROWS_WITH_AS(protocol::decode_header(h), doctest::Contains("which adds the arithmetic format to CALL"), protocol::ProtocolError);
  with(6, 1);
  CHECK_THROWS_AS(protocol::decode_header(h), protocol::ProtocolError);
  with(5, 9);
  CHECK_THROWS_AS(protocol::decode_header(h), protocol::ProtocolError);
  with(11, 0x7f);  // 2 GiB
  CHECK_THROWS_WITH_AS(protocol::decode_header(h), doctest::Contains("exceeds the limit"), protocol::ProtocolError);
  with(0, 'A');
  CHECK(protocol::decode_header(h).length == 16);
}

TEST_CASE("kind 8 (attention of ABI version 2): the attention block and the LSE round-trip, and the LSE count is checked") {
  Call c;
  c.kind = Kind::attention_v2;
  c.dtype = Dtype::bf16;
  auto& p = c.problem;
  p.shape = {2, 4, 2, 3, 5, 2, 1};
  p.scale = 0.125;
  p.mask.causal = true;
  p.mask.alignment = kernels::Alignment::bottom_right;
  p.mask.window_left = 2;
  p.mask.window_right = -1;
  p.softcap = 30;
  p.alibi_slopes = {0.5, 0.25, -0.0, std::numeric_limits<double>::denorm_min()};
  c.n = 3, c.m = 5, c.d = 2, c.dv = 1, c.causal = true;
  c.inputs = {std::vector<unsigned char>(p.shape.q_size() * 2, 1), std::vector<unsigned char>(p.shape.k_size() * 2, 2),
              std::vector<unsigned char>(p.shape.v_size() * 2, 3)};
  c.output_count = p.shape.o_size();
  c.lse_count = p.shape.lse_size();
  const Call back = protocol::decode_call(payload_of(protocol::encode_call(c)));
  CHECK(back.kind == Kind::attention_v2);
  CHECK(back.problem.shape.batch == 2);
  CHECK(back.problem.shape.heads == 4);
  CHECK(back.problem.shape.kv_heads == 2);
  CHECK(back.problem.shape.n == 3);
  CHECK(back.problem.scale == 0.125);
  CHECK(back.problem.mask.causal);
  CHECK(back.problem.mask.alignment == kernels::Alignment::bottom_right);
  CHECK(back.problem.mask.window_left == 2);
  CHECK(back.problem.mask.window_right == -1);
  CHECK(back.problem.softcap == 30);
  REQUIRE(back.problem.alibi_slopes.size() == 4);
  CHECK(std::signbit(back.problem.alibi_slopes[2]));
  CHECK(back.problem.alibi_slopes[3] == std::numeric_limits<double>::denorm_min());
  CHECK(back.lse_count == 24);
  CHECK(back.inputs == c.inputs);

  // RESULT: o (bf16) and the LSE (f32 for 16-bit storage) with its count.
  const std::vector<std::uint16_t> o(24, 0x3f80);
  const std::vector<float> lse(24, -std::numeric_limits<float>::infinity());
  const auto lb = bytes_of(lse);
  const auto r = protocol::decode_result(payload_of(protocol::encode_result(0, Dtype::bf16, bytes_of(o), &lb)), Dtype::bf16, 24, 24);
  CHECK(r.output == bytes_of(o));
  CHECK(r.lse == lb);
  // The wrong LSE count, or none when one is expected, is a protocol error.
  CHECK_THROWS_AS(protocol::decode_result(payload_of(protocol::encode_result(0, Dtype::bf16, bytes_of(o), &lb)), Dtype::bf16, 24, 23),
                  protocol::ProtocolError);
  CHECK_THROWS_AS(protocol::decode_result(payload_of(protocol::encode_result(0, Dtype::bf16, bytes_of(o))), Dtype::bf16, 24, 24),
                  protocol::ProtocolError);
  // A bad alignment byte is refused.
  auto bad = payload_of(protocol::encode_call(c));
  bad[4 + 4 + 6 * 8 + 3 * 8 + 8] = 2;
  CHECK_THROWS_AS(protocol::decode_call(bad), protocol::ProtocolError);
}

TEST_CASE("kind 9 (attention backward): the attention block, the LSE it is given and five inputs round-trip") {
  Call c;
  c.kind = Kind::attention_backward;
  c.dtype = Dtype::bf16;
  auto& p = c.problem;
  p.shape = {1, 2, 1, 3, 4, 2, 2};
  p.scale = 0.5;
  p.softcap = 5;
  c.n = 3, c.m = 4, c.d = 2, c.dv = 2;
  const std::vector<float> lse{-std::numeric_limits<float>::infinity(), 0.0f, -0.0f, 1.5f, std::numeric_limits<float>::denorm_min(), 7.0f};
  c.inputs = {std::vector<unsigned char>(p.shape.q_size() * 2, 1), std::vector<unsigned char>(p.shape.k_size() * 2, 2),
              std::vector<unsigned char>(p.shape.v_size() * 2, 3), std::vector<unsigned char>(p.shape.o_size() * 2, 4),
              std::vector<unsigned char>(p.shape.o_size() * 2, 5), bytes_of(lse)};
  c.output_count = p.shape.q_size() + p.shape.k_size() + p.shape.v_size();
  c.lse_count = p.shape.lse_size();
  const Call back = protocol::decode_call(payload_of(protocol::encode_call(c)));
  CHECK(back.kind == Kind::attention_backward);
  CHECK(back.problem.shape.heads == 2);
  CHECK(back.problem.softcap == 5);
  CHECK(back.lse_count == 6);
  CHECK(back.output_count == 12 + 8 + 8);
  CHECK(back.inputs == c.inputs);  // q, k, v, o, dO and the LSE (its bits: -inf, -0, a subnormal kept)
  // The RESULT is a plain one: dQ, dK, dV in turn, no LSE part.
  const std::vector<std::uint16_t> g(28, 0x3f80);
  const auto r = protocol::decode_result(payload_of(protocol::encode_result(0, Dtype::bf16, bytes_of(g))), Dtype::bf16, 28);
  CHECK(r.output == bytes_of(g));
  // A payload cut inside the LSE is refused.
  auto cut = payload_of(protocol::encode_call(c));
  cut.resize(4 + 4 + 6 * 8 + 3 * 8 + 8 + 4 + 8 + 8 + 8 + 8 + 10);
  CHECK_THROWS_AS(protocol::decode_call(cut), protocol::ProtocolError);
}
