// attncheck: the registry of BMC harnesses, lemmas and mutants (filled by harnesses/*.cpp).
#include <stdexcept>

#include "attncheck/bmc/harness.hpp"

namespace attncheck::bmc {
namespace {
std::vector<harness_def>& harness_store() {
  static std::vector<harness_def> h;
  return h;
}
std::vector<mutant_def>& mutant_store() {
  static std::vector<mutant_def> m;
  return m;
}
}  // namespace

const char* name_of(fmt_id f) {
  switch (f) {
    case fmt_id::f16: return "f16";
    case fmt_id::bf16: return "bf16";
    case fmt_id::f32: return "f32";
    case fmt_id::f64: return "f64";
    case fmt_id::e4m3: return "e4m3";
    case fmt_id::e4m3sat: return "e4m3sat";
    case fmt_id::e5m2: return "e5m2";
  }
  return "?";
}
std::vector<fmt_id> all_formats() { return {fmt_id::f16, fmt_id::bf16, fmt_id::f32, fmt_id::f64, fmt_id::e4m3, fmt_id::e4m3sat, fmt_id::e5m2};
}

bool register_harness(harness_def h) {
  if (find_harness(h.id)) throw std::logic_error("harness registered twice: " + h.id);
  harness_store().push_back(std::move(h));
  return true;
}
bool register_mutant(mutant_def m) {
  if (find_mutant(m.name)) throw std::logic_error("bmc mutant registered twice: " + m.name);
  mutant_store().push_back(std::move(m));
  return true;
}
const std::vector<harness_def>& harnesses() { return harness_store(); }
const std::vector<mutant_def>& mutants() { return mutant_store(); }
const harness_def* find_harness(const std::string& id) {
  for (const auto& h : harness_store())
    if (h.id == id) return &h;
  return nullptr;
}
const mutant_def* find_mutant(const std::string& name) {
  for (const auto& m : mutant_store())
    if (m.name == name) return &m;
  return nullptr;
}

}  // namespace attncheck::bmc
