// attncheck audit: names and codes of kernel kinds and dtypes.
#include "attncheck/audit/call.hpp"

namespace attncheck::audit {

std::string_view kind_name(Kind k) {
  switch (k) {
    case Kind::softmax: return "softmax";
    case Kind::log_softmax: return "log_softmax";
    case Kind::scores: return "scores";
    case Kind::rmsnorm: return "rmsnorm";
    case Kind::entropy: return "entropy";
    case Kind::attention: return "attention";
    case Kind::softmax_jvp: return "softmax_jvp";
  }
  return "?";
}

std::optional<Kind> parse_kind(std::string_view s) {
  for (Kind k : all_kinds)
    if (kind_name(k) == s) return k;
  return std::nullopt;
}

std::size_t dtype_size(Dtype d) {
  switch (d) {
    case Dtype::f16:
    case Dtype::bf16: return 2;
    case Dtype::f32: return 4;
    case Dtype::f64: return 8;
  }
  return 8;
}

std::uint8_t dtype_code(Dtype d) {
  switch (d) {
    case Dtype::f16: return 1;
    case Dtype::bf16: return 2;
    case Dtype::f32: return 3;
    case Dtype::f64: return 4;
  }
  return 0;
}

std::optional<Dtype> dtype_from_code(std::uint8_t c) {
  for (Dtype d : all_dtypes)
    if (dtype_code(d) == c) return d;
  return std::nullopt;
}

}  // namespace attncheck::audit
