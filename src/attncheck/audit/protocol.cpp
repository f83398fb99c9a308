// attncheck audit: encoding and strict decoding of exec-protocol frames.
#include "attncheck/audit/protocol.hpp"
#include "attncheck/audit/kinds/registry.hpp"

#include <cstring>

namespace attncheck::audit::protocol {

namespace {
void put(std::vector<unsigned char>& b, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) b.push_back(static_cast<unsigned char>(v >> (8 * i)));
}

// Reads little-endian fields from a payload, refusing to run past its end.
struct Reader {
  const std::vector<unsigned char>& b;
  std::size_t at = 0;
  std::uint64_t get(int bytes, const char* what) {
    if (b.size() - at < static_cast<std::size_t>(bytes))
      throw ProtocolError(std::string("frame ends inside field '") + what + "' (payload of " + std::to_string(b.size()) + " bytes)");
    std::uint64_t v = 0;
    for (int i = 0; i < bytes; ++i) v |= static_cast<std::uint64_t>(b[at + i]) << (8 * i);
    at += bytes;
    return v;
  }
  std::vector<unsigned char> bytes_of(std::uint64_t count, std::size_t width, const char* what) {
    if (count > (b.size() - at) / width)
      throw ProtocolError(std::string("field '") + what + "' announces " + std::to_string(count) + " elements but the frame holds " +
                          std::to_string((b.size() - at) / width));
    std::vector<unsigned char> v(b.begin() + static_cast<std::ptrdiff_t>(at), b.begin() + static_cast<std::ptrdiff_t>(at + count * width));
    at += count * width;
    return v;
  }
  void end() const {
    if (at != b.size()) throw ProtocolError(std::to_string(b.size() - at) + " unexpected bytes after the last field");
  }
};

// CALL's input arrays of kind k, and the bytes per element of input i at storage d (attention_fp8kv's
// codes k and v are one byte each; every other input is in the storage format): the kind's descriptor.
std::size_t expected_inputs(Kind k) { return descriptor_of(k).wire_inputs; }
std::size_t input_width(Kind k, std::size_t i, Dtype d) { return element_size(descriptor_of(k).arrays[i].element, d); }
}  // namespace

std::string version_note(unsigned peer) {
  return peer == 1 ? ", which adds the arithmetic format to CALL: update the program's side of the protocol, "
                     "docs/audit-protocol.md" : "";
}

std::vector<unsigned char> encode_header(Type t, std::uint32_t length) {
  std::vector<unsigned char> b{'A', 'T', 'C', 'K', version, static_cast<unsigned char>(t), 0, 0};
  put(b, length, 4);
  return b;
}

Header decode_header(const unsigned char (&h)[header_bytes]) {
  if (std::memcmp(h, "ATCK", 4) != 0) {
    char seen[64];
    std::snprintf(seen, sizeof seen, "%02x %02x %02x %02x", h[0], h[1], h[2], h[3]);
    throw ProtocolError(std::string("bad magic: expected \"ATCK\" (41 54 43 4b), got ") + seen);
  }
  if (h[4] != version)
    throw ProtocolError("protocol version " + std::to_string(h[4]) + " is not supported (attncheck speaks version " +
                        std::to_string(version) + version_note(h[4]) + ")");
  if (h[5] < 1 || h[5] > 4) throw ProtocolError("unknown frame type " + std::to_string(h[5]));
  if (h[6] != 0 || h[7] != 0) throw ProtocolError("reserved header bytes are not zero");
  Header r;
  r.type = static_cast<Type>(h[5]);
  r.length = static_cast<std::uint32_t>(h[8]) | static_cast<std::uint32_t>(h[9]) << 8 | static_cast<std::uint32_t>(h[10]) << 16 |
             static_cast<std::uint32_t>(h[11]) << 24;
  if (r.length > max_payload)
    throw ProtocolError("frame of " + std::to_string(r.length) + " bytes exceeds the limit of " + std::to_string(max_payload) + " bytes");
  return r;
}

std::vector<unsigned char> encode_hello() {
  auto b = encode_header(Type::hello, 4);
  put(b, version, 4);
  return b;
}

std::vector<unsigned char> encode_call(const Call& c) {
  std::vector<unsigned char> p;
  const auto has = [blocks = descriptor_of(c.kind).blocks](std::uint8_t b) { return (blocks & b) != 0; };  // its blocks
  p.push_back(static_cast<unsigned char>(c.kind));
  p.push_back(dtype_code(c.dtype));
  p.push_back(c.causal ? 1 : 0);
  p.push_back(arithmetic_code(c.dtype));
  put(p, expected_inputs(c.kind), 4);
  put(p, c.n, 8), put(p, c.m, 8), put(p, c.d, 8), put(p, c.dv, 8);
  std::uint64_t eps_bits;
  std::memcpy(&eps_bits, &c.eps, 8);
  put(p, eps_bits, 8);
  put(p, c.output_count, 8);
  if (takes_problem(c.kind)) {  // the attention block (docs/audit-protocol.md)
    const auto& a = c.problem;
    const auto f64 = [&](double v) {
      std::uint64_t bits;
      std::memcpy(&bits, &v, 8);
      put(p, bits, 8);
    };
    put(p, a.shape.batch, 8), put(p, a.shape.heads, 8), put(p, a.shape.kv_heads, 8);
    f64(a.scale);
    p.push_back(a.mask.alignment == kernels::Alignment::bottom_right ? 1 : 0);
    put(p, a.num_splits, 2);  // 0 unless the kernel was declared with --splits (kinds 8 and 12 only)
    put(p, 0, 1);
    put(p, a.alibi_slopes.size(), 4);
    put(p, static_cast<std::uint64_t>(a.mask.window_left), 8), put(p, static_cast<std::uint64_t>(a.mask.window_right), 8);
    f64(a.softcap);
    for (double s : a.alibi_slopes) f64(s);
    put(p, c.lse_count, 8);
    // Kind 9: the LSE given to the backward pass, lse_count elements of lse_size(dtype) bytes.
    if (has(wire_block::lse_given)) p.insert(p.end(), c.inputs.at(5).begin(), c.inputs.at(5).end());
  }
  if (has(wire_block::varlen)) {  // the varlen block: B + 1, then cu_seqlens_q and cu_seqlens_k (int32)
    const auto& cu_q = c.inputs.at(3);
    const auto& cu_k = c.inputs.at(4);
    if (cu_q.size() != cu_k.size() || cu_q.size() != 4 * (c.problem.shape.batch + 1))
      throw std::logic_error("attention_varlen call with offsets of " + std::to_string(cu_q.size()) + " and " + std::to_string(cu_k.size()) +
                             " bytes for B = " + std::to_string(c.problem.shape.batch));
    put(p, cu_q.size() / 4, 8);
    p.insert(p.end(), cu_q.begin(), cu_q.end());
    p.insert(p.end(), cu_k.begin(), cu_k.end());
  }
  if (has(wire_block::paged)) {  // the paged block: the three scalars, then three int32 arrays
    const auto& cu_q = c.inputs.at(3);
    const auto& used = c.inputs.at(4);
    const auto& table = c.inputs.at(5);
    const std::uint64_t B = c.problem.shape.batch;
    if (cu_q.size() != 4 * (B + 1) || used.size() != 4 * B || table.size() != 4 * B * c.paging.pages_per_sequence)
      throw std::logic_error("attention_paged call with arrays of " + std::to_string(cu_q.size()) + ", " + std::to_string(used.size()) +
                             " and " + std::to_string(table.size()) + " bytes for B = " + std::to_string(B) + " and " +
                             std::to_string(c.paging.pages_per_sequence) + " pages per sequence");
    put(p, c.paging.page_size, 8), put(p, c.paging.num_pages, 8), put(p, c.paging.pages_per_sequence, 8);
    for (const auto* a : {&cu_q, &used, &table}) {
      put(p, a->size() / 4, 8);
      p.insert(p.end(), a->begin(), a->end());
    }
  }
  if (takes_fp8(c.kind)) {  // the fp8 block: format, saturating, reserved, scale count, then the scales (f32)
    std::vector<unsigned char> scales;
    if (has(wire_block::fp8_kv_scales)) {
      const auto& ks = c.inputs.at(3);
      const auto& vs = c.inputs.at(4);
      if (ks.size() != vs.size() || ks.empty() || ks.size() % 4 != 0)
        throw std::logic_error("attention_fp8kv call with scales of " + std::to_string(ks.size()) + " and " + std::to_string(vs.size()) + " bytes");
      scales = ks;
      scales.insert(scales.end(), vs.begin(), vs.end());
    } else {
      scales.resize(4);
      std::memcpy(scales.data(), &c.fp8.scale, 4);
    }
    p.push_back(c.fp8.format);
    p.push_back(has(wire_block::fp8_one_scale) && c.fp8.saturating ? 1 : 0);
    put(p, 0, 2);
    put(p, has(wire_block::fp8_kv_scales) ? scales.size() / 8 : 1, 4);
    p.insert(p.end(), scales.begin(), scales.end());
  }
  if (has(wire_block::merge)) {  // the merge block: the LSE asked for, then lse_parts
    const auto& parts = c.inputs.at(1);
    put(p, c.lse_count, 8);
    put(p, parts.size() / lse_size(c.dtype), 8);
    p.insert(p.end(), parts.begin(), parts.end());
  }
  for (std::size_t i = 0; i < c.inputs.size() && i < expected_inputs(c.kind); ++i) {
    const auto& in = c.inputs[i];
    put(p, in.size() / input_width(c.kind, i, c.dtype), 8);
    p.insert(p.end(), in.begin(), in.end());
  }
  if (p.size() > max_payload) throw ProtocolError("test case of " + std::to_string(p.size()) + " bytes exceeds the frame limit");
  auto b = encode_header(Type::call, static_cast<std::uint32_t>(p.size()));
  b.insert(b.end(), p.begin(), p.end());
  return b;
}

Call decode_call(const std::vector<unsigned char>& payload) {
  Reader r{payload};
  Call c;
  const auto kind = r.get(1, "kind");
  if (!find_kind(static_cast<std::uint8_t>(kind))) throw ProtocolError("unknown kernel kind " + std::to_string(kind));
  c.kind = static_cast<Kind>(kind);
  const auto storage = static_cast<std::uint8_t>(r.get(1, "dtype"));
  c.causal = r.get(1, "causal") != 0;
  const auto arithmetic = static_cast<std::uint8_t>(r.get(1, "arithmetic"));
  const auto d = dtype_from_code(storage, arithmetic);
  if (!d)
    throw ProtocolError("unknown dtype code " + std::to_string(storage) + " with arithmetic code " + std::to_string(arithmetic));
  c.dtype = *d;
  const auto has = [blocks = descriptor_of(c.kind).blocks](std::uint8_t b) { return (blocks & b) != 0; };  // its blocks
  const auto inputs = r.get(4, "input count");
  if (inputs != expected_inputs(c.kind)) throw ProtocolError("wrong input count " + std::to_string(inputs));
  c.n = r.get(8, "n"), c.m = r.get(8, "m"), c.d = r.get(8, "d"), c.dv = r.get(8, "dv");
  const std::uint64_t eps_bits = r.get(8, "eps");
  std::memcpy(&c.eps, &eps_bits, 8);
  c.output_count = r.get(8, "output count");
  std::vector<unsigned char> lse_in;
  if (takes_problem(c.kind)) {
    auto& a = c.problem;
    const auto f64 = [&](const char* what) {
      const std::uint64_t bits = r.get(8, what);
      double v;
      std::memcpy(&v, &bits, 8);
      return v;
    };
    a.shape.n = c.n, a.shape.m = c.m, a.shape.d = c.d, a.shape.dv = c.dv;
    a.mask.causal = c.causal;
    a.shape.batch = r.get(8, "batch"), a.shape.heads = r.get(8, "heads"), a.shape.kv_heads = r.get(8, "kv_heads");
    a.scale = f64("scale");
    const auto alignment = r.get(1, "alignment");
    if (alignment > 1) throw ProtocolError("unknown alignment " + std::to_string(alignment) + " (0 top-left, 1 bottom-right)");
    a.mask.alignment = alignment ? kernels::Alignment::bottom_right : kernels::Alignment::top_left;
    a.num_splits = static_cast<std::size_t>(r.get(2, "num_splits"));
    if (r.get(1, "reserved") != 0) throw ProtocolError("reserved attention bytes are not zero");
    const auto slopes = r.get(4, "slope count");
    a.mask.window_left = static_cast<long long>(r.get(8, "window_left"));
    a.mask.window_right = static_cast<long long>(r.get(8, "window_right"));
    a.softcap = f64("softcap");
    const auto bytes = r.bytes_of(slopes, 8, "alibi slopes");
    a.alibi_slopes.resize(slopes);
    if (slopes) std::memcpy(a.alibi_slopes.data(), bytes.data(), bytes.size());
    c.lse_count = r.get(8, "lse count");
    if (has(wire_block::lse_given)) lse_in = r.bytes_of(c.lse_count, lse_size(c.dtype), "lse");
  }
  if (has(wire_block::merge)) {  // n = splits, m = rows
    c.lse_count = r.get(8, "lse count");
    if (c.lse_count != 0 && c.lse_count != c.m)
      throw ProtocolError("merge asks for " + std::to_string(c.lse_count) + " LSE elements (0 or rows = " + std::to_string(c.m) + " allowed)");
    const auto parts = r.get(8, "lse_parts count");
    if (parts != c.n * c.m)
      throw ProtocolError("merge block holds " + std::to_string(parts) + " partial LSEs, splits x rows is " + std::to_string(c.n * c.m));
    lse_in = r.bytes_of(parts, lse_size(c.dtype), "lse_parts");
  }
  std::vector<unsigned char> cu_q, cu_k;
  if (has(wire_block::varlen)) {  // B + 1 offsets each (the B of the attention block)
    const auto count = r.get(8, "offset count");
    if (count != c.problem.shape.batch + 1)
      throw ProtocolError("varlen block holds " + std::to_string(count) + " offsets per array, B + 1 is " +
                          std::to_string(c.problem.shape.batch + 1));
    cu_q = r.bytes_of(count, 4, "cu_seqlens_q");
    cu_k = r.bytes_of(count, 4, "cu_seqlens_k");
  }
  std::vector<unsigned char> used, table;
  if (has(wire_block::paged)) {  // the page table: each array's count fixed by B and pages_per_sequence
    c.paging.page_size = r.get(8, "page_size");
    c.paging.num_pages = r.get(8, "num_pages");
    c.paging.pages_per_sequence = r.get(8, "pages_per_sequence");
    const std::uint64_t B = c.problem.shape.batch;
    const auto array = [&](const char* name, std::uint64_t want) {
      const auto count = r.get(8, name);
      if (count != want)
        throw ProtocolError(std::string("paged block holds ") + std::to_string(count) + " elements of " + name +
                            ", the call's B and pages_per_sequence give " + std::to_string(want));
      return r.bytes_of(count, 4, name);
    };
    cu_q = array("cu_seqlens_q", B + 1);
    used = array("seqused_k", B);
    // B × pages_per_sequence, refused before it could wrap: no frame holds more than max_payload / 4.
    if (c.paging.pages_per_sequence > max_payload || B > max_payload)
      throw ProtocolError("paged block announces a block table of " + std::to_string(B) + " x " + std::to_string(c.paging.pages_per_sequence) +
                          " entries, more than a frame holds");
    table = array("block_table", B * c.paging.pages_per_sequence);
  }
  std::vector<unsigned char> k_scale, v_scale;
  if (takes_fp8(c.kind)) {  // the fp8 block
    const auto format = r.get(1, "format");
    if (format > 1) throw ProtocolError("unknown FP8 format " + std::to_string(format) + " (0 E4M3FN, 1 E5M2)");
    c.fp8.format = static_cast<std::uint8_t>(format);
    const auto saturating = r.get(1, "saturating");
    if (saturating > 1 || (saturating && !has(wire_block::fp8_one_scale)))
      throw ProtocolError("FP8 saturating byte " + std::to_string(saturating) + " (0 or 1, and 0 for kind 13)");
    c.fp8.saturating = saturating != 0;
    if (r.get(2, "reserved") != 0) throw ProtocolError("reserved FP8 bytes are not zero");
    const auto count = r.get(4, "scale count");
    if (has(wire_block::fp8_one_scale)) {
      if (count != 1) throw ProtocolError("kv_quantize's fp8 block holds " + std::to_string(count) + " scales (1 allowed)");
      const auto bits = r.bytes_of(1, 4, "scale");
      std::memcpy(&c.fp8.scale, bits.data(), 4);
    } else {
      if (count == 0 || (count != 1 && count != c.problem.shape.kv_heads))
        throw ProtocolError("attention_fp8kv's fp8 block holds " + std::to_string(count) + " scales per cache (1 or kv_heads = " +
                            std::to_string(c.problem.shape.kv_heads) + " allowed)");
      k_scale = r.bytes_of(count, 4, "k_scale");
      v_scale = r.bytes_of(count, 4, "v_scale");
    }
  }
  for (std::uint64_t i = 0; i < inputs; ++i) {
    const auto count = r.get(8, "input length");
    c.inputs.push_back(r.bytes_of(count, input_width(c.kind, i, c.dtype), "input"));
  }
  if (has(wire_block::lse_given | wire_block::merge)) c.inputs.push_back(std::move(lse_in));
  if (has(wire_block::varlen)) {
    c.inputs.push_back(std::move(cu_q));
    c.inputs.push_back(std::move(cu_k));
  }
  if (has(wire_block::paged)) {
    c.inputs.push_back(std::move(cu_q));
    c.inputs.push_back(std::move(used));
    c.inputs.push_back(std::move(table));
  }
  if (has(wire_block::fp8_kv_scales)) {
    c.inputs.push_back(std::move(k_scale));
    c.inputs.push_back(std::move(v_scale));
  }
  r.end();
  return c;
}

std::vector<unsigned char> encode_result(std::int32_t status, Dtype d, const std::vector<unsigned char>& output,
                                         const std::vector<unsigned char>* lse, std::size_t output_width) {
  std::vector<unsigned char> p;
  put(p, static_cast<std::uint32_t>(status), 4);
  put(p, 0, 4);
  put(p, output.size() / (output_width ? output_width : dtype_size(d)), 8);
  p.insert(p.end(), output.begin(), output.end());
  if (lse) {
    put(p, lse->size() / lse_size(d), 8);
    p.insert(p.end(), lse->begin(), lse->end());
  }
  auto b = encode_header(Type::result, static_cast<std::uint32_t>(p.size()));
  b.insert(b.end(), p.begin(), p.end());
  return b;
}

Result decode_result(const std::vector<unsigned char>& payload, Dtype d, std::uint64_t count, std::optional<std::uint64_t> lse_count,
                     std::size_t output_width) {
  Reader r{payload};
  Result res;
  res.status = static_cast<std::int32_t>(r.get(4, "status"));
  r.get(4, "reserved");
  const auto n = r.get(8, "element count");
  if (res.status == 0 && n != count)
    throw ProtocolError("result holds " + std::to_string(n) + " elements, the call expects " + std::to_string(count));
  if (n != count && n != 0) throw ProtocolError("declined result holds " + std::to_string(n) + " elements (0 or " + std::to_string(count) + " allowed)");
  res.output = r.bytes_of(n, output_width ? output_width : dtype_size(d), "output");
  if (lse_count) {
    const auto l = r.get(8, "lse element count");
    if (res.status == 0 && l != *lse_count)
      throw ProtocolError("result holds " + std::to_string(l) + " LSE elements, the call expects " + std::to_string(*lse_count));
    if (l != *lse_count && l != 0)
      throw ProtocolError("declined result holds " + std::to_string(l) + " LSE elements (0 or " + std::to_string(*lse_count) + " allowed)");
    res.lse = r.bytes_of(l, lse_size(d), "lse");
  }
  r.end();
  return res;
}

}  // namespace attncheck::audit::protocol
