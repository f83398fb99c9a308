// attncheck: the one registry of `attncheck bmc` (filled by harnesses/*.cpp): SMT harnesses and
// lemmas, Gappa harnesses, and the mutants of both. One store per kind of entry, one ID space
// across the SMT and Gappa sides, and each entry records where it was registered.
#include <stdexcept>

#include "attncheck/bmc/gappa_harness.hpp"
#include "attncheck/bmc/harness.hpp"

namespace attncheck::bmc {
namespace {

std::string key_of(const harness_def& h) { return h.id; }
std::string key_of(const gappa_harness_def& h) { return h.id; }
std::string key_of(const mutant_def& m) { return m.name; }
std::string key_of(const gappa_mutant_def& m) { return m.name; }

// Entries are added during static initialisation only, so pointers into the vector stay valid
// once main() runs.
template <class T>
std::vector<T>& store() {
  static std::vector<T> v;
  return v;
}
template <class T>
const T* find_in(const std::string& key) {
  for (const T& x : store<T>())
    if (key_of(x) == key) return &x;
  return nullptr;
}
template <class T>
bool add(T x, std::source_location where, bool taken, const char* what) {
  if (taken) throw std::logic_error(std::string(what) + " registered twice: " + key_of(x));
  x.where = where;
  store<T>().push_back(std::move(x));
  return true;
}

}  // namespace

const char* name_of(Dtype f) {
  if (arithmetic_of(f) != Arithmetic::storage) return "?";  // not a bmc format
  return storage_name(f).data();  // a string literal
}
std::vector<Dtype> all_formats() {
  return {Dtype::f16, Dtype::bf16, Dtype::f32, Dtype::f64, Dtype::e4m3, Dtype::e4m3sat, Dtype::e5m2};
}

bool register_harness(harness_def h, std::source_location where) {
  const bool taken = find_harness(h.id) || find_gappa_harness(h.id);
  return add(std::move(h), where, taken, "harness");
}
bool register_gappa_harness(gappa_harness_def h, std::source_location where) {
  const bool taken = find_harness(h.id) || find_gappa_harness(h.id);
  return add(std::move(h), where, taken, "harness");
}
bool register_mutant(mutant_def m, std::source_location where) {
  const bool taken = find_mutant(m.name) || find_gappa_mutant(m.name);
  return add(std::move(m), where, taken, "bmc mutant");
}
bool register_gappa_mutant(gappa_mutant_def m, std::source_location where) {
  const bool taken = find_mutant(m.name) || find_gappa_mutant(m.name);
  return add(std::move(m), where, taken, "bmc mutant");
}

const std::vector<harness_def>& harnesses() { return store<harness_def>(); }
const std::vector<gappa_harness_def>& gappa_harnesses() { return store<gappa_harness_def>(); }
const std::vector<mutant_def>& mutants() { return store<mutant_def>(); }
const std::vector<gappa_mutant_def>& gappa_mutants() { return store<gappa_mutant_def>(); }
const harness_def* find_harness(const std::string& id) { return find_in<harness_def>(id); }
const gappa_harness_def* find_gappa_harness(const std::string& id) { return find_in<gappa_harness_def>(id); }
const mutant_def* find_mutant(const std::string& name) { return find_in<mutant_def>(name); }
const gappa_mutant_def* find_gappa_mutant(const std::string& name) { return find_in<gappa_mutant_def>(name); }

}  // namespace attncheck::bmc
