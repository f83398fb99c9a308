// attncheck: running registered properties as doctest cases (RapidCheck has no doctest glue).
#pragma once

#include <algorithm>
#include <cstdlib>
#include <string>

#include <doctest/doctest.h>

#include "attncheck/check/format.hpp"
#include "attncheck/check/registry.hpp"

namespace attncheck::falsify {

// The suite's run parameters: fixed defaults, overridable for a replay or a longer soak with
// ATTNCHECK_SEED / ATTNCHECK_CASES (the gate prints both in every replay line).
inline check::RunParams suite_params() {
  check::RunParams p;
  if (const char* s = std::getenv("ATTNCHECK_SEED")) p.seed = std::strtoull(s, nullptr, 0);
  // Same range as `attncheck gate --cases`: the χ² tests' false-alarm budget assumes <= 10^4.
  if (const char* c = std::getenv("ATTNCHECK_CASES")) p.cases = std::clamp(std::atoi(c), 1, 10000);
  return p;
}

// One FALSIFY test: the property must hold on the reference kernels at every dtype, and must
// FAIL on every mutant that names it in caught_by (a test that never catches anything is not
// evidence). Each mutant needs to be caught at one dtype at least: some bugs only show where
// a format's range or precision exposes them.
inline void falsify_test(const std::string& id) {
  const check::PropertyInfo* p = check::find_property(id);
  REQUIRE_MESSAGE(p != nullptr, id << " has no registered property");
  check::RunParams params = suite_params();
  MESSAGE(id << ": seed " << hex_u64(params.seed) << ", " << params.cases << " cases per dtype");
  for (Dtype d : p->dtypes) {
    const check::Outcome o = check::run_property(*p, d, params);
    CHECK_MESSAGE(o.verdict == check::Verdict::pass,
                  id << " [" << dtype_name(d) << "] " << check::verdict_name(o.verdict) << "\n"
                     << o.counterexample << o.message << "  Largest error seen: ratio " << o.worst_ratio
                     << " at " << o.worst_case << "\n  Replay: " << o.replay);
    for (const std::string& f : o.findings) {
      MESSAGE(id << " [" << dtype_name(d) << "]: " << f);
      static_cast<void>(f);  // MESSAGE is empty where doctest is disabled (the CLI)
    }
  }
  for (const check::MutantInfo& m : check::mutants()) {
    if (std::find(m.caught_by.begin(), m.caught_by.end(), id) == m.caught_by.end()) continue;
    check::RunParams mp = params;
    mp.mutant = m.name;
    std::string where;
    bool caught = false;
    for (Dtype d : p->dtypes) {
      const check::Outcome o = check::run_property(*p, d, mp);
      if (o.verdict == check::Verdict::fail) {
        caught = true;
        where = std::string(dtype_name(d));
        break;
      }
    }
    CHECK_MESSAGE(caught, id << " did not catch mutant " << m.name << " (" << m.description << ")");
    if (caught) MESSAGE(id << " catches mutant " << m.name << " [" << where << "]");
  }
}

}  // namespace attncheck::falsify
