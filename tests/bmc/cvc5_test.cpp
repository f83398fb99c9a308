// attncheck BMC: cvc5 as a second solver (the cvc5 CLI on Z3's SMT-LIB2 export) and the
// portfolio. cvc5 proves what Z3 proves, its counterexamples come back as input bits that fail
// on the concrete broken kernel, and the portfolio says which solver answered first.
#include <doctest/doctest.h>

#include <string>

#include "attncheck/bmc/cvc5_cli.hpp"
#include "attncheck/bmc/engine.hpp"

using namespace attncheck;
using namespace attncheck::bmc;

namespace {

run_result run_with(solver_choice s, const std::string& id, Dtype f, std::size_t bound, const std::string& mutant = "") {
  run_options o;
  o.bound = bound;
  o.timeout_seconds = 60;
  o.solver = s;
  if (!mutant.empty()) o.mutant = find_mutant(mutant);
  const harness_def* h = find_harness(id);
  REQUIRE(h);
  return prove(*h, f, o);
}

std::string describe(const run_result& r) {
  return r.id + " [" + name_of(r.format) + ", d=" + std::to_string(r.bound) + "]: " + name_of(r.v) + " " + r.reason +
         " (" + r.solver + ", " + std::to_string(r.seconds) + " s)";
}

}  // namespace

TEST_CASE("BMC-CVC5-VALUES: cvc5's printed floating-point values become IEEE bits") {
  CHECK(parse_fp_bits("(fp #b0 #b01110 #b0011001101)", 5, 11) == 0x38cdu);
  CHECK(parse_fp_bits("(fp #b1 #b11110 #b1111111111)", 5, 11) == 0xfbffu);  // -65504
  CHECK(parse_fp_bits("(_ +zero 5 11)", 5, 11) == 0x0000u);
  CHECK(parse_fp_bits("(_ -zero 8 8)", 8, 8) == 0x8000u);
  CHECK(parse_fp_bits("(_ +oo 8 24)", 8, 24) == 0x7f800000u);
  CHECK(parse_fp_bits("(_ -oo 5 11)", 5, 11) == 0xfc00u);
  CHECK(parse_fp_bits("(_ NaN 5 11)", 5, 11) == 0x7e00u);
  CHECK_FALSE(parse_fp_bits("(_ NaN 8 24)", 5, 11));      // wrong sort
  CHECK_FALSE(parse_fp_bits("(fp #b2 #b01110 #b0)", 5, 11));
  CHECK_FALSE(parse_fp_bits("17", 5, 11));
}

TEST_CASE("BMC-CVC5-SCRIPT: Z3's export gets the logic, models and a get-value of the constants") {
  const std::string s = cvc5_script("(set-info :status unknown)\n(declare-fun |x[0]| () (_ FloatingPoint 5 11))\n"
                                    "(assert true)\n(check-sat)\n",
                                    {"|x[0]|"});
  CHECK(s.find("(set-logic QF_FP)") != std::string::npos);
  CHECK(s.find("(set-option :produce-models true)") != std::string::npos);
  CHECK(s.find("set-info") == std::string::npos);
  CHECK(s.find("(check-sat)\n(get-value (|x[0]|))") != std::string::npos);
}

TEST_CASE("BMC-CVC5-PROVES: cvc5 proves a harness Z3 proves (f16 softmax in [0, 1], d = 2)") {
  REQUIRE_MESSAGE(cvc5_binary(), "cvc5 is not installed (tools/install-deps.sh installs it)");
  const run_result r = run_with(solver_choice::cvc5, "KANI-SM-002", Dtype::f16, 2);
  INFO(describe(r));
  CHECK(r.v == verdict::proved);
  CHECK(r.assumptions_satisfiable);
  CHECK(r.solver.rfind("cvc5 ", 0) == 0);
}

TEST_CASE("BMC-CVC5-COUNTEREXAMPLE: cvc5's counterexample is read back as input bits and fails on the broken kernel") {
  REQUIRE(cvc5_binary());
  const run_result r = run_with(solver_choice::cvc5, "KANI-SM-002", Dtype::f16, 1, "softmax_no_max_subtraction");
  INFO(describe(r));
  REQUIRE(r.v == verdict::counterexample);
  CHECK(r.solver.rfind("cvc5 ", 0) == 0);
  const replay_result on_mutant = replay(*find_harness("KANI-SM-002"), Dtype::f16, 1, r.input_bits,
                                         find_mutant("softmax_no_max_subtraction"));
  CHECK_FALSE(on_mutant.failed.empty());
  CHECK(replay(*find_harness("KANI-SM-002"), Dtype::f16, 1, r.input_bits, nullptr).failed.empty());
}

TEST_CASE("BMC-CVC5-F32: binary32 formulas run without --fp-exp (bf16 and f16 need it)") {
  REQUIRE(cvc5_binary());
  const run_result r = run_with(solver_choice::cvc5, "LEM-ASCL-002", Dtype::f32, 1);
  INFO(describe(r));
  CHECK(r.v == verdict::proved);
}

TEST_CASE("BMC-PORTFOLIO: both solvers run, the first definite answer counts and the row names its solver") {
  REQUIRE(cvc5_binary());
  const run_result r = run_with(solver_choice::portfolio, "KANI-SM-002", Dtype::bf16, 2);
  INFO(describe(r));
  CHECK(r.v == verdict::proved);
  CHECK(r.solver.rfind("portfolio: ", 0) == 0);
  CHECK(r.solver.find(" first") != std::string::npos);
  const run_result bad = run_with(solver_choice::portfolio, "LEM-ASCL-001", Dtype::f16, 1, "row_max_is_min");
  INFO(describe(bad));
  CHECK(bad.v == verdict::counterexample);
}
