// attncheck: the run of a Gappa harness (gappa_harness.hpp); they are registered in bmc/registry.cpp.
#include "attncheck/bmc/gappa_harness.hpp"

#include <cmath>

#include <fmt/format.h>

#include "attncheck/bmc/gappa_run.hpp"

namespace attncheck::bmc {
bool gappa_supports(Dtype f) { return f == Dtype::f16 || f == Dtype::bf16 || f == Dtype::f32 || f == Dtype::f64; }

run_result prove_gappa(const gappa_harness_def& h, Dtype f, std::size_t d, double timeout_seconds,
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
