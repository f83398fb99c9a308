// attncheck audit: the C++ side of the wire-format check (tools/check_wire_format.py). Reads lines
//   call HEX                                   a CALL payload
//   result STORAGE ARITH COUNT LSE WIDTH HEX   a RESULT payload (LSE: the count expected, or -)
// decodes each with protocol.cpp, and prints one JSON line: the fields it read, named as in
// src/attncheck/audit/wire_format.tsv (scalars as integers, floats as their bits, arrays as hex),
// and the payload it encodes from what it read. The checker builds the payloads from the table
// and compares both, so a field protocol.cpp reads or writes out of step with the table fails.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "attncheck/audit/protocol.hpp"

using namespace attncheck;
using namespace attncheck::audit;

namespace {
std::vector<unsigned char> unhex(const std::string& s) {
  std::vector<unsigned char> b;
  for (std::size_t i = 0; i + 1 < s.size(); i += 2) b.push_back(static_cast<unsigned char>(std::stoul(s.substr(i, 2), nullptr, 16)));
  return b;
}
std::string hex(const std::vector<unsigned char>& b) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (unsigned char c : b) s += digits[c >> 4], s += digits[c & 15];
  return s;
}
std::uint64_t bits(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, 8);
  return b;
}

// One JSON object, built field by field.
struct Json {
  std::ostringstream o;
  bool first = true;
  void key(const char* k) {
    o << (first ? "{" : ", ") << '"' << k << "\": ";
    first = false;
  }
  void num(const char* k, std::uint64_t v) { key(k), o << v; }
  void inum(const char* k, long long v) { key(k), o << v; }
  void str(const char* k, const std::string& v) { key(k), o << '"' << v << '"'; }
  std::string done() { return (first ? "{" : "") + o.str() + "}"; }
};

std::string call_json(const std::vector<unsigned char>& payload) {
  const Call c = protocol::decode_call(payload);
  Json j;
  j.num("kind", static_cast<unsigned>(c.kind));
  j.num("dtype", dtype_code(c.dtype));
  j.num("arithmetic", arithmetic_code(c.dtype));
  j.num("causal", c.causal);
  j.num("n", c.n), j.num("m", c.m), j.num("d", c.d), j.num("dv", c.dv);
  j.num("eps", bits(c.eps));
  j.num("output_count", c.output_count);
  j.num("lse_count", c.lse_count);
  const auto& a = c.problem;
  if (takes_problem(c.kind)) {
    j.num("batch", a.shape.batch), j.num("heads", a.shape.heads), j.num("kv_heads", a.shape.kv_heads);
    j.num("scale", bits(a.scale));
    j.num("alignment", a.mask.alignment == kernels::Alignment::bottom_right ? 1 : 0);
    j.num("num_splits", a.num_splits);
    j.num("slope_count", a.alibi_slopes.size());
    j.inum("window_left", a.mask.window_left), j.inum("window_right", a.mask.window_right);
    j.num("softcap", bits(a.softcap));
    std::vector<unsigned char> slopes(8 * a.alibi_slopes.size());
    if (!slopes.empty()) std::memcpy(slopes.data(), a.alibi_slopes.data(), slopes.size());
    j.str("alibi_slopes", hex(slopes));
  }
  if (takes_fp8(c.kind)) {
    j.num("format", c.fp8.format), j.num("saturating", c.fp8.saturating);
    if (c.kind == Kind::kv_quantize) {
      std::vector<unsigned char> s(4);
      std::memcpy(s.data(), &c.fp8.scale, 4);
      j.str("k_scale", hex(s));
    }
  }
  if (c.kind == Kind::attention_paged)
    j.num("page_size", c.paging.page_size), j.num("num_pages", c.paging.num_pages), j.num("pages_per_sequence", c.paging.pages_per_sequence);
  // The inputs as Call holds them: the kind's arrays, then those that travel in its blocks.
  std::ostringstream inputs;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) inputs << (i ? " " : "") << hex(c.inputs[i]);
  j.str("inputs", inputs.str());
  j.str("encoded", hex(protocol::encode_call(c)).substr(2 * protocol::header_bytes));
  return j.done();
}

std::string result_json(std::istringstream& in) {
  unsigned storage = 0, arith = 0, width = 0;
  std::uint64_t count = 0;
  std::string lse, payload;
  in >> storage >> arith >> count >> lse >> width >> payload;
  const auto d = dtype_from_code(static_cast<std::uint8_t>(storage), static_cast<std::uint8_t>(arith));
  if (!d) throw std::runtime_error("unknown dtype");
  std::optional<std::uint64_t> lse_count;
  if (lse != "-") lse_count = std::stoull(lse);
  const auto r = protocol::decode_result(unhex(payload), *d, count, lse_count, width);
  Json j;
  j.inum("status", r.status);
  j.str("output", hex(r.output));
  j.str("lse", hex(r.lse));
  const auto frame = protocol::encode_result(r.status, *d, r.output, lse_count ? &r.lse : nullptr, width);
  j.str("encoded", hex(frame).substr(2 * protocol::header_bytes));
  return j.done();
}
}  // namespace

int main() {
  std::string line;
  while (std::getline(std::cin, line)) {
    std::istringstream in(line);
    std::string what;
    in >> what;
    try {
      if (what == "call") {
        std::string payload;
        in >> payload;
        std::cout << call_json(unhex(payload)) << '\n';
      } else if (what == "result") {
        std::cout << result_json(in) << '\n';
      } else {
        std::cout << "{\"error\": \"unknown request\"}\n";
      }
    } catch (const std::exception& e) {
      Json j;
      std::string msg = e.what();
      for (auto& ch : msg)
        if (ch == '"' || ch == '\\') ch = '\'';
      j.str("error", msg);
      std::cout << j.done() << '\n';
    }
  }
}
