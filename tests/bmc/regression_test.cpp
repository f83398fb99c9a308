// attncheck BMC: counterexamples kept as regression cases. The committed corpus
// (tests/bmc/regressions/*.case, written by `attncheck bmc --save-regression`) is replayed on the
// concrete kernels: the reference kernel passes every case and each case's mutant still fails it.
// A fresh mutant counterexample survives the write/read round trip and replays the same way.
#include <doctest/doctest.h>

#include <string>

#include "attncheck/bmc/engine.hpp"
#include "attncheck/bmc/regression.hpp"
#include "tests/test_paths.hpp"

using namespace attncheck;
using namespace attncheck::bmc;

TEST_CASE("BMC-REGRESSION-CORPUS: every saved counterexample passes on the reference kernel and fails on its mutant") {
  const corpus_result corpus = read_corpus(std::string(ATTNCHECK_SOURCE_DIR) + "/tests/bmc/regressions");
  for (const auto& e : corpus.errors) FAIL_CHECK(e);
  REQUIRE_FALSE(corpus.cases.empty());
  for (const regression_case& c : corpus.cases) {
    INFO(c.source);
    const case_replay r = replay_case(c);
    CHECK(r.known_harness);
    CHECK(r.known_mutant);
    CHECK(r.on_reference.assumptions_hold);
    CHECK(r.on_reference.failed.empty());
    if (r.has_mutant) CHECK_FALSE(r.on_mutant.failed.empty());
    CHECK(r.passed());
  }
}

TEST_CASE("BMC-REGRESSION-ROUNDTRIP: a mutant's counterexample is saved, read back and replayed") {
  const harness_def* h = find_harness("KANI-SM-002");
  const mutant_def* m = find_mutant("softmax_no_max_subtraction");
  REQUIRE(h);
  REQUIRE(m);
  run_options o;
  o.bound = 1;
  o.mutant = m;
  const run_result r = prove(*h, Dtype::f16, o);
  REQUIRE(r.v == verdict::counterexample);
  const regression_case c = case_of(r, m);
  const std::string text = render_case(c);
  std::string why;
  const auto back = parse_case(text, &why);
  REQUIRE_MESSAGE(back, why);
  CHECK(back->harness == "KANI-SM-002");
  CHECK(back->format == Dtype::f16);
  CHECK(back->bound == 1);
  CHECK(back->mutant == "softmax_no_max_subtraction");
  CHECK(back->bits == r.input_bits);
  CHECK(back->failed == r.failed_on_replay);
  CHECK(replay_case(*back).passed());
  CHECK(case_file_name(*back).rfind("KANI-SM-002-f16-d1-softmax_no_max_subtraction-", 0) == 0);
}

TEST_CASE("BMC-REGRESSION-STALE: a case whose bits no longer fail on its mutant does not pass") {
  regression_case c;
  c.harness = "KANI-SM-002";
  c.format = Dtype::f16;
  c.bound = 1;
  c.mutant = "softmax_no_max_subtraction";
  c.bits = {0x3c00};  // x = 1: exp(1)/exp(1) = 1, no overflow, so the mutant passes
  const case_replay r = replay_case(c);
  CHECK(r.on_reference.failed.empty());
  CHECK(r.on_mutant.failed.empty());
  CHECK_FALSE(r.passed());
  c.mutant = "no_such_mutant";
  CHECK_FALSE(replay_case(c).passed());
  c.mutant.clear();
  c.harness = "KANI-SM-999";
  CHECK_FALSE(replay_case(c).passed());
}

TEST_CASE("BMC-REGRESSION-PARSE: malformed case files are rejected with the line and the reason") {
  std::string why;
  CHECK_FALSE(parse_case("harness: KANI-SM-002\nformat: f8\nbound: 1\nbits: 7bff\n", &why));
  CHECK(why.find("unknown format 'f8'") != std::string::npos);
  CHECK_FALSE(parse_case("harness: KANI-SM-002\nformat: f16\nbound: 0\nbits: 7bff\n", &why));
  CHECK(why.find("bound") != std::string::npos);
  CHECK_FALSE(parse_case("harness: KANI-SM-002\nformat: f16\nbound: 1\nbits: 7bff,zz\n", &why));
  CHECK(why.find("hex") != std::string::npos);
  CHECK_FALSE(parse_case("harness: KANI-SM-002\nformat: f16\nbound: 1\n", &why));
  CHECK(why.find("needs harness, format, bound and bits") != std::string::npos);
  CHECK_FALSE(parse_case("harness KANI-SM-002\n", &why));
  CHECK(why.find("line 1") != std::string::npos);
  CHECK_FALSE(parse_case("colour: blue\n", &why));
  CHECK(why.find("unknown key 'colour'") != std::string::npos);
}
