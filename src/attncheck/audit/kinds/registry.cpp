// attncheck audit: the registry of kernel kinds. A new kind is its descriptor (a file of this
// folder) and its line in the two lists below.
#include "attncheck/audit/kinds/registry.hpp"

#include <stdexcept>
#include <string>

namespace attncheck::audit {

// The built-in kinds' descriptors, defined in rows.cpp, attention.cpp, attention_merge.cpp,
// attention_varlen.cpp, attention_paged.cpp and fp8.cpp.
extern const KindDescriptor softmax_kind, log_softmax_kind, scores_kind, rmsnorm_kind, entropy_kind, attention_kind, softmax_jvp_kind,
    attention_v2_kind, attention_backward_kind, attention_merge_kind, attention_varlen_kind, attention_paged_kind, attention_fp8kv_kind,
    kv_quantize_kind;

namespace {
// The registration lines, in the order of abi.h (which is the order of the exec kind numbers).
const KindDescriptor* const builtin[] = {
    &softmax_kind,         &log_softmax_kind,      &scores_kind,
    &rmsnorm_kind,         &entropy_kind,          &attention_kind,
    &softmax_jvp_kind,     &attention_v2_kind,     &attention_backward_kind,
    &attention_merge_kind, &attention_varlen_kind, &attention_paged_kind,
    &attention_fp8kv_kind, &kv_quantize_kind,
};

struct Registry {
  std::vector<const KindDescriptor*> descriptors;
  std::vector<Kind> kinds;
  void add(const KindDescriptor& d) {
    for (const auto* e : descriptors)
      if (e->kind == d.kind || (d.spelt && e->spelt && e->name == d.name))
        throw std::logic_error("kind " + std::string(d.name) + " (" + std::to_string(static_cast<unsigned>(d.kind)) +
                               ") is registered twice");
    descriptors.push_back(&d);
    kinds.push_back(d.kind);
  }
};

Registry& registry() {
  static Registry r = [] {
    Registry init;
    for (const auto* d : builtin) init.add(*d);
    return init;
  }();
  return r;
}
}  // namespace

const KindDescriptor* find_kind(std::uint8_t code) {
  for (const auto* d : registry().descriptors)
    if (static_cast<std::uint8_t>(d->kind) == code) return d;
  return nullptr;
}

const KindDescriptor& descriptor_of(Kind k) {
  if (const auto* d = find_kind(static_cast<std::uint8_t>(k))) return *d;
  throw std::logic_error("kernel kind " + std::to_string(static_cast<unsigned>(k)) +
                         " is not registered (src/attncheck/audit/kinds/registry.cpp)");
}

const std::vector<Kind>& registered_kinds() { return registry().kinds; }

void register_kind(const KindDescriptor& d) { registry().add(d); }

}  // namespace attncheck::audit
