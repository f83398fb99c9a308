// attncheck: the registry of Gappa harnesses and their run (gappa_harness.hpp).
#include "attncheck/bmc/gappa_harness.hpp"

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

#include "attncheck/bmc/gappa_run.hpp"

namespace attncheck::bmc {
namespace {
std::vector<gappa_harness_def>& harness_store() {
  static std::vector<gappa_harness_def> h;
  return h;
}
std::vector<gappa_mutant_def>& mutant_store() {
  static std::vector<gappa_mutant_def> m;
  return m;
}
}  // namespace

bool register_gappa_harness(gappa_harness_def h) {
  if (find_gappa_harness(h.id)) throw std::logic_error("Gappa harness registered twice: " + h.id);
  harness_store().push_back(std::move(h));
  return true;
}
bool register_gappa_mutant(gappa_mutant_def m) {
  if (find_gappa_mutant(m.name)) throw std::logic_error("Gappa mutant registered twice: " + m.name);
  mutant_store().push_back(std::move(m));
  return true;
}
const std::vector<gappa_harness_def>& gappa_harnesses() { return harness_store(); }
const std::vector<gappa_mutant_def>& gappa_mutants() { return mutant_store(); }
const gappa_harness_def* find_gappa_harness(const std::string& id) {
  for (const auto& h : harness_store())
    if (h.id == id) return &h;
  return nullptr;
}
const gappa_mutant_def* find_gappa_mutant(const std::string& name) {
  for (const auto& m : mutant_store())
    if (m.name == name) return &m;
  return nullptr;
}

bool gappa_supports(fmt_id f) { return f == fmt_id::f16 || f == fmt_id::bf16 || f == fmt_id::f32 || f == fmt_id::f64; }

run_result prove_gappa(const gappa_harness_def& h, fmt_id f, std::size_t d, double timeout_seconds,
                       const std::string& mutant, std::string* script_out) {
  run_result r;
  r.id = h.id;
  r.format = f;
  r.bound = d;
  r.solver = gappa_version();
  if (!gappa_supports(f)) {
    r.v = verdict::unsupported;
    r.reason = fmt::format("Gappa harnesses run at f16, bf16, f32 and f64, not {}", name_of(f));
    return r;
  }
  if (d == 0) {
    r.v = verdict::unsupported;
    r.reason = "row length d = 0";
    return r;
  }
  const gappa_problem p = h.build(f, d, mutant);
  if (!std::isfinite(p.bound)) {
    r.v = verdict::unsupported;
    r.reason = fmt::format("the derived bound is infinite at d = {} in {} (d u >= 1): nothing to prove", d, name_of(f));
    return r;
  }
  if (script_out) *script_out = p.script;
  r.assertions = 1 + p.roundings;
  // The hypotheses are independent non-empty intervals (gappa_recorder::input checks it), so
  // they are satisfiable, and a Gappa script has no path conditions: every goal is reached.
  r.assumptions_satisfiable = true;
  r.reachable_assertions = r.assertions;
  const gappa_answer a = run_gappa(p.script, timeout_seconds);
  r.seconds = a.seconds;
  switch (a.result) {
    case gappa_answer::status::proved: r.v = verdict::proved; break;
    case gappa_answer::status::not_proved:
      r.v = verdict::unknown;
      r.reason = fmt::format("not proved: |error| <= {:.6g} claimed; {}", p.bound, a.reason);
      break;
    case gappa_answer::status::timeout:
    case gappa_answer::status::error:
      r.v = verdict::unknown;
      r.reason = a.reason;
      break;
  }
  return r;
}

}  // namespace attncheck::bmc
