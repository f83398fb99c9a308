// attncheck: the run of a Gappa harness (gappa_harness.hpp); they are registered in bmc/registry.cpp.
#include "attncheck/bmc/gappa_harness.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

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
  // A relative bound |θ| >= 1 allows ŝ = 0 or the wrong sign: it says nothing (and gappa refuses a
  // relative range that reaches -1), e.g. the score's relative form in bf16 at d = 128.
  if (p.relative && p.bound >= 1) {
    r.v = verdict::unsupported;
    r.reason = fmt::format("the derived relative bound is {:g} >= 1 at d = {} in {}: nothing to prove", p.bound, d,
                           name_of(f));
    return r;
  }
  std::vector<const std::string*> scripts{&p.script};
  for (const auto& c : p.cases) scripts.push_back(&c);
  if (script_out) {
    *script_out = p.script;
    // The cases, one after the other (each a complete script; gappa reads one at a time).
    for (std::size_t i = 0; i < p.cases.size(); ++i)
      *script_out += fmt::format("\n# case {} of {}: a separate gappa run\n{}", i + 2, scripts.size(), p.cases[i]);
  }
  r.assertions = 1 + p.roundings;
  // The hypotheses are independent non-empty intervals (gappa_recorder::input checks it), so
  // they are satisfiable, and a Gappa script has no path conditions: every goal is reached.
  r.assumptions_satisfiable = true;
  r.reachable_assertions = r.assertions;
  // Every case must be proved, within one time limit for all of them; the first that is not
  // decides the row (its reason names it when the box was split).
  gappa_answer a;
  for (std::size_t i = 0; i < scripts.size(); ++i) {
    a = run_gappa(*scripts[i], std::max(timeout_seconds - r.seconds, 0.01));
    r.seconds += a.seconds;
    if (a.result != gappa_answer::status::proved) {
      if (scripts.size() > 1) a.reason = fmt::format("case {} of {}: {}", i + 1, scripts.size(), a.reason);
      break;
    }
  }
  switch (a.result) {
    case gappa_answer::status::proved: r.v = verdict::proved; break;
    case gappa_answer::status::not_proved:
      r.v = verdict::unknown;
      r.reason = fmt::format("not proved: {} <= {:.6g} claimed; {}", p.relative ? "relative |error|" : "|error|",
                             p.bound, a.reason);
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
