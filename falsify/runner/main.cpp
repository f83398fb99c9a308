// attncheck: falsify_tests, the test executable of the falsification suite.
//   falsify_tests --list          one line per registered property: "ID<TAB>title" (CTest discovery,
//                                 cmake/falsify_discover.cmake, turns each into a test named by its ID)
//   falsify_tests --property ID   the property must hold on the reference kernels at each of its
//                                 formats, and must fail on every mutant that names it (exit 0 / 1)
//   falsify_tests [doctest args]  the doctest cases: the source documents' wrong claims shown false
//                                 (falsify/wrong_claims/) and the suite's meta-tests (runner/meta.cpp)
// The properties themselves (falsify/<stem>.cpp) are library-side content: the attncheck CLI links
// the same objects without any test framework.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include "attncheck/text/numbers.hpp"
#include "attncheck/property/registry.hpp"

namespace attncheck::falsify {
namespace {

// The suite's run parameters: fixed defaults, overridable for a replay or a longer soak with
// ATTNCHECK_SEED / ATTNCHECK_CASES (the gate prints both in every replay line).
property::RunParams suite_params() {
  property::RunParams p;
  if (const char* s = std::getenv("ATTNCHECK_SEED")) p.seed = std::strtoull(s, nullptr, 0);
  // Same range as `attncheck gate --cases`: the χ² tests' false-alarm budget assumes <= 10^4.
  if (const char* c = std::getenv("ATTNCHECK_CASES")) p.cases = std::clamp(std::atoi(c), 1, 10000);
  return p;
}

// One FALSIFY test: the property must hold on the reference kernels at every format it is
// registered for, and must FAIL on every mutant that names it in caught_by (a test that never
// catches anything is not evidence). Each mutant needs to be caught at one format at least: some
// bugs only show where a format's range or precision exposes them.
int falsify_test(const std::string& id) {
  const property::PropertyInfo* p = property::find_property(id);
  if (p == nullptr) {
    std::cout << id << " has no registered property\n";
    return 1;
  }
  int failures = 0;
  const property::RunParams params = suite_params();
  std::cout << id << ": seed " << hex_u64(params.seed) << ", " << params.cases << " cases per format\n";
  for (Dtype d : p->dtypes) {
    const property::Outcome o = property::run_property(*p, d, params);
    const std::string tag = id + " [" + std::string(dtype_name(d)) + "]";
    std::cout << tag << ": " << property::verdict_name(o.verdict) << "\n";
    if (o.verdict != property::Verdict::pass) {
      ++failures;
      std::cout << o.counterexample << o.message << "  Largest error seen: ratio " << o.worst_ratio << " at "
                << o.worst_case << "\n  Replay: " << o.replay << "\n";
    }
    for (const std::string& f : o.findings) std::cout << tag << ": " << f << "\n";
  }
  for (const property::MutantInfo& m : property::mutants()) {
    if (std::find(m.caught_by.begin(), m.caught_by.end(), id) == m.caught_by.end()) continue;
    property::RunParams mp = params;
    mp.mutant = m.name;
    const auto caught_at = std::find_if(p->dtypes.begin(), p->dtypes.end(), [&](Dtype d) {
      return property::run_property(*p, d, mp).verdict == property::Verdict::fail;
    });
    if (caught_at != p->dtypes.end()) {
      std::cout << id << " catches mutant " << m.name << " [" << dtype_name(*caught_at) << "]\n";
    } else {
      ++failures;
      std::cout << id << " did not catch mutant " << m.name << " (" << m.description << ")\n";
    }
  }
  std::cout << id << ": " << (failures == 0 ? "PASSED" : "FAILED") << "\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace
}  // namespace attncheck::falsify

int main(int argc, char** argv) {
  using namespace attncheck;
  if (argc == 2 && std::strcmp(argv[1], "--list") == 0) {
    for (const property::PropertyInfo& p : property::properties()) std::cout << p.id << "\t" << p.title << "\n";
    return 0;
  }
  if (argc == 3 && std::strcmp(argv[1], "--property") == 0) return falsify::falsify_test(argv[2]);
  doctest::Context context(argc, argv);
  return context.run();
}
