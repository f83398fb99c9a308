// attncheck audit: the registered draws of the obligations every kind has (AUDIT-SAFE-001, -DET-001,
// -NAN-001): one line per kind, pointing at the functions of its family's *_draws.hpp. A kind
// without a line here (one registered by a test) is not audited by them.
//
// Why a second list beside registry.cpp's: the descriptors are compiled into the fuzzers and the
// library backend, which know nothing of RapidCheck or of the kernel set; these are templates over
// the audited format, instantiated in properties_safety.cpp only.
#pragma once

#include <stdexcept>
#include <string>

#include "attncheck/audit/kinds/attention_draws.hpp"
#include "attncheck/audit/kinds/attention_merge_draws.hpp"
#include "attncheck/audit/kinds/attention_paged_draws.hpp"
#include "attncheck/audit/kinds/attention_varlen_draws.hpp"
#include "attncheck/audit/kinds/fp8_draws.hpp"
#include "attncheck/audit/kinds/rows_draws.hpp"

namespace attncheck::audit::obligations {

template <class T>
struct KindDraws {
  Kind kind;
  // A random call (AUDIT-SAFE-001 calls it, AUDIT-DET-001 twice); null for a kind whose output is
  // not of T, which gives safe and deterministic instead.
  DrawnCall<T> (*call)(Kind, const KernelSet<T>&) = nullptr;
  void (*safe)(Kind, const KernelSet<T>&) = nullptr;
  void (*deterministic)(Kind, const KernelSet<T>&) = nullptr;
  // An AUDIT-NAN-001 case (it may raise on its own, for an LSE or codes).
  NanCase<T> (*nan)(Kind, const KernelSet<T>&, const Policy&) = nullptr;
};

template <class T>
const std::vector<KindDraws<T>>& kind_draws() {
  static const std::vector<KindDraws<T>> table = {
      {.kind = Kind::softmax, .call = softmax_call<T>, .nan = softmax_nan<T>},
      {.kind = Kind::log_softmax, .call = softmax_call<T>, .nan = softmax_nan<T>},
      {.kind = Kind::scores, .call = scores_call<T>, .nan = scores_nan<T>},
      {.kind = Kind::rmsnorm, .call = rmsnorm_call<T>, .nan = rmsnorm_nan<T>},
      {.kind = Kind::entropy, .call = entropy_call<T>, .nan = entropy_nan<T>},
      {.kind = Kind::attention, .call = attention_call<T>, .nan = attention_nan<T>},
      {.kind = Kind::softmax_jvp, .call = softmax_jvp_call<T>, .nan = softmax_jvp_nan<T>},
      {.kind = Kind::attention_v2, .call = attention_v2_call<T>, .nan = attention_v2_nan<T>},
      {.kind = Kind::attention_backward, .call = attention_backward_call<T>, .nan = attention_backward_nan<T>},
      {.kind = Kind::attention_merge, .call = attention_merge_call<T>, .nan = attention_merge_nan<T>},
      {.kind = Kind::attention_varlen, .call = attention_varlen_call<T>, .nan = attention_varlen_nan<T>},
      {.kind = Kind::attention_paged, .call = attention_paged_call<T>, .nan = attention_paged_nan<T>},
      {.kind = Kind::attention_fp8kv, .call = attention_fp8kv_call<T>, .nan = attention_fp8kv_nan<T>},
      {.kind = Kind::kv_quantize, .safe = kv_quantize_safe<T>, .deterministic = kv_quantize_deterministic<T>, .nan = kv_quantize_nan<T>},
  };
  return table;
}

template <class T>
const KindDraws<T>& draws_of(Kind k) {
  for (const auto& d : kind_draws<T>())
    if (d.kind == k) return d;
  throw std::logic_error("kind " + std::string(kind_name(k)) + " has no draws (src/attncheck/audit/kinds/draws_registry.hpp)");
}

}  // namespace attncheck::audit::obligations
