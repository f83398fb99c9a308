// attncheck audit: names and codes of kernel kinds and dtypes.
#include "attncheck/audit/call.hpp"
#include "attncheck/audit/kinds/registry.hpp"

#include <algorithm>
#include <cstring>

namespace attncheck::audit {

namespace {
// The kind's descriptor, or null for a number no kind is registered under: the questions below then
// answer as they did before the registry ("?", false), never throw.
const KindDescriptor* known(Kind k) { return find_kind(static_cast<std::uint8_t>(k)); }
}  // namespace

std::string_view kind_name(Kind k) { return known(k) ? known(k)->name : "?"; }
bool abi2_only(Kind k) { return known(k) && known(k)->abi2_only; }
bool takes_problem(Kind k) { return known(k) && known(k)->takes_problem; }
bool returns_o_lse(Kind k) { return known(k) && known(k)->returns_o_lse; }
bool takes_fp8(Kind k) { return known(k) && (known(k)->blocks & (wire_block::fp8_kv_scales | wire_block::fp8_one_scale)) != 0; }
std::size_t output_size(Kind k, Dtype d) { return known(k) && known(k)->byte_output ? 1 : dtype_size(d); }

std::string kind_label(Kind k) { return std::string(kind_name(k)) + (k == Kind::attention_v2 ? " (ABI 2)" : ""); }

std::optional<Kind> parse_kind(std::string_view s) {
  for (Kind k : registered_kinds())
    if (descriptor_of(k).spelt && kind_name(k) == s) return k;
  return std::nullopt;
}

std::size_t lse_size(Dtype d) { return d == Dtype::f64 ? 8 : 4; }

std::size_t dtype_size(Dtype d) {
  switch (d) {
    case Dtype::f16:
    case Dtype::bf16:
    case Dtype::f16_f32:
    case Dtype::bf16_f32: return 2;
    case Dtype::f32: return 4;
    case Dtype::f64: return 8;
    case Dtype::e4m3:  // bmc's formats: no ABI code, never bound
    case Dtype::e5m2:
    case Dtype::e4m3sat: return 1;
  }
  return 8;
}

std::uint8_t dtype_code(Dtype d) {
  switch (d) {
    case Dtype::f16:
    case Dtype::f16_f32: return 1;
    case Dtype::bf16:
    case Dtype::bf16_f32: return 2;
    case Dtype::f32: return 3;
    case Dtype::f64: return 4;
    case Dtype::e4m3:
    case Dtype::e5m2:
    case Dtype::e4m3sat: break;
  }
  return 0;
}

std::uint8_t arithmetic_code(Dtype d) { return arithmetic_of(d) == Arithmetic::f32 ? 3 : 0; }

std::optional<Dtype> dtype_from_code(std::uint8_t storage, std::uint8_t arithmetic) {
  for (Dtype d : all_dtypes)
    if (dtype_code(d) == storage && arithmetic_code(d) == arithmetic) return d;
  // f32 and f64 may name themselves as their arithmetic too.
  if (arithmetic == storage && (storage == 3 || storage == 4)) return dtype_from_code(storage, 0);
  return std::nullopt;
}

double call_timeout_seconds(const Call& c, double base_seconds) {
  double work = 0;  // multiply-adds
  // int32 LE element i of an input, as the kernel is given it.
  const auto at = [](const std::vector<unsigned char>& v, std::size_t i) {
    std::int32_t x;
    std::memcpy(&x, v.data() + 4 * i, 4);
    return static_cast<double>(x);
  };
  const auto& s = c.problem.shape;
  if (c.kind == Kind::attention_varlen && c.inputs.size() >= 5 && c.inputs[3].size() == c.inputs[4].size()) {
    // Σ_b H · n_b · m_b · (d + dv), from the offsets.
    for (std::size_t b = 0; b + 1 < c.inputs[3].size() / 4; ++b)
      work += std::max(0.0, at(c.inputs[3], b + 1) - at(c.inputs[3], b)) * std::max(0.0, at(c.inputs[4], b + 1) - at(c.inputs[4], b));
    work *= static_cast<double>(s.heads) * static_cast<double>(s.d + s.dv);
  } else if (c.kind == Kind::attention_paged && c.inputs.size() >= 5 && c.inputs[3].size() == c.inputs[4].size() + 4) {
    // The same sum, n_b from cu_seqlens_q and m_b = seqused_k[b].
    for (std::size_t b = 0; b < c.inputs[4].size() / 4; ++b)
      work += std::max(0.0, at(c.inputs[3], b + 1) - at(c.inputs[3], b)) * std::max(0.0, at(c.inputs[4], b));
    work *= static_cast<double>(s.heads) * static_cast<double>(s.d + s.dv);
  } else if (takes_problem(c.kind)) {
    work = static_cast<double>(s.batch) * static_cast<double>(s.heads) * static_cast<double>(s.n) * static_cast<double>(s.m) *
           static_cast<double>(s.d + s.dv);
    if (c.kind == Kind::attention_backward) work *= 3;  // the scores again, dP, and three products
  } else if (c.kind == Kind::attention) {
    work = static_cast<double>(c.n) * static_cast<double>(c.m) * static_cast<double>(c.d + c.dv);
  } else if (c.kind == Kind::attention_merge) {
    work = static_cast<double>(c.n) * static_cast<double>(c.m) * static_cast<double>(c.dv);  // splits · rows · dv
  }
  return base_seconds + work / 2e7;
}

}  // namespace attncheck::audit
