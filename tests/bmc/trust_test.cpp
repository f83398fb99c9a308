// attncheck BMC: why the proofs can be trusted. Each harness is non-vacuous; each finds a real
// counterexample on a broken kernel (replayed on the concrete broken kernel); a vacuous harness
// and a stub-only counterexample are recognised as such; exhaustive enumeration agrees.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "attncheck/bmc/engine.hpp"

using namespace attncheck;
using namespace attncheck::bmc;

namespace {

std::string describe(const run_result& r) {
  std::string s = r.id + " [" + name_of(r.format) + ", d=" + std::to_string(r.bound) + "]: " + name_of(r.v) + " " +
                  r.reason + " (" + std::to_string(r.seconds) + " s)";
  for (const auto& f : r.failed_on_replay) s += "\n  fails on the kernel: " + f;
  return s;
}

run_result run(const std::string& id, Dtype f, std::size_t bound, const std::string& mutant = "") {
  const harness_def* h = find_harness(id);
  REQUIRE_MESSAGE(h, "no harness " << id);
  run_options o;
  o.bound = bound;
  o.timeout_seconds = 60;
  if (!mutant.empty()) {
    o.mutant = find_mutant(mutant);
    REQUIRE_MESSAGE(o.mutant, "no mutant " << mutant);
  }
  return prove(*h, f, o);
}

// Test-only harnesses: one whose assumptions contradict each other, one whose assertion is true
// of the real exp but not implied by the axioms (so the solver's counterexample is a stub artefact).
struct contradictory {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T x = h.any("x");
    h.assume(x > lit<T>(1));
    h.assume(x < lit<T>(0));
    h.check(x == x, "x = x");
  }
};
struct exp_of_one_above_two {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T x = h.any("x");
    h.assume(x == lit<T>(1));
    h.check(exp(x) > lit<T>(2), "exp(1) > 2");
  }
};
const bool registered =
    register_harness({"TEST-VACUOUS", "", "contradictory assumptions", false, false, 1, {}, "", make_body<contradictory>()}) &&
    register_harness({"TEST-STUB", "", "exp(1) > 2 (true, not implied by the axioms)", false, true, 1, {}, "",
                      make_body<exp_of_one_above_two>()});

}  // namespace

TEST_CASE("BMC-TRUST-VACUITY: every harness and lemma has satisfiable assumptions at its smallest bound") {
  for (const harness_def& h : harnesses()) {
    // KANI-ASCL-001 takes ~40 s in f16: its non-vacuity is checked by the CLI run (bmc.contract-bounds).
    if (h.id.rfind("TEST-", 0) == 0 || h.id == "KANI-ASCL-001") continue;
    if (h.id == "KANI-AEQ-001") {
      // Its whole-vector query does not finish (the claim is by composition): the non-vacuity
      // query, which runs first, must still succeed.
      run_options o;
      o.bound = h.min_bound;
      o.timeout_seconds = 5;
      const run_result r = prove(h, Dtype::f16, o);
      INFO(describe(r));
      CHECK(r.assumptions_satisfiable);
      CHECK(r.reachable_assertions == r.assertions);
      CHECK(r.assertions > 0);
      continue;
    }
    for (Dtype f : {Dtype::f16}) {
      const run_result r = run(h.id, f, h.min_bound);
      INFO(describe(r));
      CHECK(r.assumptions_satisfiable);
      CHECK(r.reachable_assertions == r.assertions);
      CHECK(r.assertions > 0);
      CHECK(r.v == verdict::proved);
    }
  }
}

TEST_CASE("BMC-TRUST-VACUOUS: contradictory assumptions give the verdict vacuous, never proved") {
  const run_result r = run("TEST-VACUOUS", Dtype::f16, 1);
  INFO(describe(r));
  CHECK(r.v == verdict::vacuous);
  CHECK_FALSE(r.assumptions_satisfiable);
  CHECK(r.reachable_assertions == 0);
}

TEST_CASE("BMC-TRUST-STUB: a counterexample that only the stub admits is reported as an artefact") {
  const run_result r = run("TEST-STUB", Dtype::f16, 1);
  INFO(describe(r));
  CHECK(r.v == verdict::stub_artefact);
  CHECK(r.failed_on_replay.empty());
  CHECK_FALSE(r.failed_in_model.empty());
}

TEST_CASE("BMC-TRUST-F64: exp/log harnesses refuse binary64 (axioms not validated there)") {
  const run_result r = run("KANI-SM-002", Dtype::f64, 1);
  CHECK(r.v == verdict::unsupported);
}

// A mutant against every harness it names, at the smallest bound where its bug shows, in f16
// (the cheapest format; bf16 for the score harness, whose f16 formula is the slowest to solve).
void expect_caught(const std::string& mutant, std::size_t bound) {
  const mutant_def* m = find_mutant(mutant);
  REQUIRE_MESSAGE(m, "no mutant " << mutant);
  CHECK_MESSAGE(!m->caught_by.empty(), m->name << " names no harness");
  for (const std::string& id : m->caught_by) {
    const harness_def* h = find_harness(id);
    REQUIRE_MESSAGE(h, m->name << " names unknown harness " << id);
    const Dtype f = id == "KANI-ASCL-001" ? Dtype::bf16 : Dtype::f16;
    const run_result r = run(id, f, h->lemma ? 1 : bound, m->name);
    INFO(m->name << " vs " << describe(r));
    CHECK(r.v == verdict::counterexample);
    CHECK_FALSE(r.failed_on_replay.empty());
    // The counterexample's bits fail on the concrete broken kernel and pass on the reference.
    const replay_result on_mutant = replay(*h, f, r.bound, r.input_bits, m);
    const replay_result on_reference = replay(*h, f, r.bound, r.input_bits, nullptr);
    CHECK(on_mutant.assumptions_hold);
    CHECK_FALSE(on_mutant.failed.empty());
    CHECK(on_reference.failed.empty());
  }
}

TEST_CASE("BMC-MUTANT-softmax_no_max_subtraction: caught by KANI-SM-001, KANI-SM-002") {
  expect_caught("softmax_no_max_subtraction", 1);
}
TEST_CASE("BMC-MUTANT-row_max_is_min: caught by KANI-ASCL-002, LEM-ASCL-001") { expect_caught("row_max_is_min", 2); }
TEST_CASE("BMC-MUTANT-exp_step_unshifted: caught by LEM-SM-001") { expect_caught("exp_step_unshifted", 1); }
// Two exps: the sum then misses one that is not negligible (e = (1, 1): outputs 1 and 1).
TEST_CASE("BMC-MUTANT-normalise_sum_skips_last: caught by KANI-SM-004") { expect_caught("normalise_sum_skips_last", 2); }
TEST_CASE("BMC-MUTANT-scores_unscaled: caught by KANI-ASCL-001") { expect_caught("scores_unscaled", 2); }
TEST_CASE("BMC-MUTANT-entropy_log_zero: caught by LEM-ASCL-003") { expect_caught("entropy_log_zero", 1); }
TEST_CASE("BMC-MUTANT-entropy_sign_flipped: caught by BMC-ASCL-003, LEM-ASCL-003") {
  expect_caught("entropy_sign_flipped", 2);
}
TEST_CASE("BMC-MUTANT-entropy_normalised: caught by BMC-ASCL-004") { expect_caught("entropy_normalised", 1); }
TEST_CASE("BMC-MUTANT-rmsnorm_no_eps: caught by KANI-QKN-001, KANI-QKN-002, KANI-ASCL-001") {
  expect_caught("rmsnorm_no_eps", 1);
}
TEST_CASE("BMC-MUTANT-jvp_uncentred: caught by BMC-SLIP-001") { expect_caught("jvp_uncentred", 1); }

TEST_CASE("BMC-MUTANT-softmax_drops_last: caught by KANI-AEQ-001") { expect_caught("softmax_drops_last", 2); }

// Two keys are the fewest where the causal mask hides one from the first query.
TEST_CASE("BMC-MUTANT-attention_always_causal: caught by KANI-AEQ-002") { expect_caught("attention_always_causal", 2); }

TEST_CASE("BMC-TRUST-MUTANT-LIST: every registered mutant has its own test case above") {
  const std::vector<std::string> tested = {"softmax_no_max_subtraction", "row_max_is_min", "exp_step_unshifted",
                                           "normalise_sum_skips_last", "scores_unscaled", "entropy_log_zero", "entropy_sign_flipped",
                                           "entropy_normalised", "rmsnorm_no_eps", "jvp_uncentred",
                                           "softmax_drops_last", "attention_always_causal"};
  for (const mutant_def& m : mutants())
    CHECK_MESSAGE(std::find(tested.begin(), tested.end(), m.name) != tested.end(), m.name << " has no test case");
}

TEST_CASE("BMC-TRUST-HARNESSES: every vector harness is named by a mutant") {
  for (const harness_def& h : harnesses()) {
    if (h.id.rfind("TEST-", 0) == 0) continue;
    bool named = false;
    for (const mutant_def& m : mutants())
      for (const auto& id : m.caught_by) named = named || id == h.id;
    if (!h.lemma) CHECK_MESSAGE(named, h.id << " has no mutant that shows it can fail");
  }
}

TEST_CASE("BMC-EXHAUSTIVE-F16: every f16 input at d = 1, on the concrete kernel") {
  for (const char* id : {"KANI-SM-001", "KANI-SM-002", "KANI-ASCL-002", "BMC-ASCL-003"}) {
    const harness_def* h = find_harness(id);
    REQUIRE(h);
    run_options o;
    o.bound = 1;
    const run_result r = exhaustive(*h, Dtype::f16, o);
    INFO(describe(r));
    CHECK(r.v == verdict::exhaustive_pass);
    CHECK(r.cases == 63488);  // every finite f16 (2^16 minus 2048 NaN/inf patterns)
  }
  // The enumeration finds the overflow of softmax without max subtraction.
  run_options o;
  o.bound = 1;
  o.mutant = find_mutant("softmax_no_max_subtraction");
  const run_result bad = exhaustive(*find_harness("KANI-SM-002"), Dtype::f16, o);
  INFO(describe(bad));
  CHECK(bad.v == verdict::exhaustive_fail);
}

// The 8-bit OCP formats run on the concrete kernel over every input: finite rows of length 2 are
// 254^2 (E4M3: one NaN code per sign, no infinities) and 248^2 (E5M2: IEEE-like) cases.
run_result enumerate(const char* id, Dtype f, std::size_t d, const char* mutant = nullptr) {
  run_options o;
  o.bound = d;
  if (mutant) o.mutant = find_mutant(mutant);
  return exhaustive(*find_harness(id), f, o);
}

TEST_CASE("BMC-EXHAUSTIVE-FP8: every E4M3 and E5M2 row at d = 2, on the concrete kernel, and mutants fail") {
  for (const char* id : {"KANI-SM-001", "KANI-SM-002", "KANI-ASCL-002", "BMC-ASCL-003", "KANI-AEQ-001"}) {
    const run_result r = enumerate(id, Dtype::e5m2, 2);
    INFO(describe(r));
    CHECK(r.v == verdict::exhaustive_pass);
    CHECK(r.cases == 248u * 248u);
  }
  for (const char* id : {"BMC-ASCL-003", "KANI-AEQ-001"}) {
    const run_result r = enumerate(id, Dtype::e4m3, 2);
    INFO(describe(r));
    CHECK(r.v == verdict::exhaustive_pass);
    CHECK(r.cases == 254u * 254u);
  }
  for (Dtype f : {Dtype::e4m3, Dtype::e5m2}) {
    // Overflow without max subtraction (E4M3: NaN, non-saturating; E5M2: inf / inf = NaN), and
    // the off-by-one softmax breaks the swap.
    for (const auto& [mutant, id] : {std::pair{"softmax_no_max_subtraction", "KANI-SM-002"},
                                     std::pair{"softmax_drops_last", "KANI-AEQ-001"}}) {
      const run_result bad = enumerate(id, f, 2, mutant);
      INFO(describe(bad));
      CHECK(bad.v == verdict::exhaustive_fail);
      CHECK(replay(*find_harness(id), f, 2, bad.input_bits, nullptr).failed.empty());
    }
  }
  // The symbolic engine refuses them (no SMT model without infinities) rather than guessing.
  CHECK(run("KANI-SM-002", Dtype::e4m3, 1).v == verdict::unsupported);
}

// A finding, kept as a test: E4M3 has no infinities, so under OCP's non-saturating conversion the
// shift x_i - max overflows to NaN once |x_i - max| > 464 (e.g. x = (-448, 18)), where IEEE formats
// give -inf and exp(-inf) = 0. Max subtraction is therefore not NaN-free in E4M3: the harnesses say
// so on the concrete kernel, with an input whose spread exceeds 464.
TEST_CASE("BMC-EXHAUSTIVE-E4M3-OVERFLOW: x_i - max overflows to NaN in E4M3 (no infinities)") {
  for (const char* id : {"KANI-ASCL-002", "KANI-SM-002"}) {
    const run_result r = enumerate(id, Dtype::e4m3, 2);
    INFO(describe(r));
    REQUIRE(r.v == verdict::exhaustive_fail);
    REQUIRE(r.input_bits.size() == 2);
    const double a = double(e4m3::from_bits(static_cast<std::uint8_t>(r.input_bits[0])));
    const double b = double(e4m3::from_bits(static_cast<std::uint8_t>(r.input_bits[1])));
    CHECK(std::fabs(a - b) > 464);
  }
}

// E4M3 with OCP's saturating conversion (--format e4m3sat): x_i - max clamps to -448 instead of
// NaN, so max subtraction and softmax in [0, 1] hold on every row at d = 2 where E4M3 fails. The
// saturation can hide an overflow: softmax without max subtraction gives y_0 = 448/448 = 1 for
// x = (6.5, 4.5) (e^6.5 = 665 clamps to 448, the sum 538 too), which only the sum's derived bound
// (KANI-SM-001) rejects; and its exp underflows to 0 for x = (-7, -7), 0/0 = NaN (KANI-SM-002).
TEST_CASE("BMC-EXHAUSTIVE-E4M3SAT: saturating E4M3 passes max subtraction and softmax, and mutants still fail") {
  for (const char* id : {"KANI-ASCL-002", "KANI-SM-001", "KANI-SM-002", "BMC-ASCL-003", "KANI-AEQ-001"}) {
    const run_result r = enumerate(id, Dtype::e4m3sat, 2);
    INFO(describe(r));
    CHECK(r.v == verdict::exhaustive_pass);
    CHECK(r.cases == 254u * 254u);
  }
  for (const auto& [mutant, id] : {std::pair{"softmax_no_max_subtraction", "KANI-SM-001"},
                                   std::pair{"softmax_no_max_subtraction", "KANI-SM-002"},
                                   std::pair{"softmax_drops_last", "KANI-AEQ-001"}}) {
    const run_result bad = enumerate(id, Dtype::e4m3sat, 2, mutant);
    INFO(describe(bad));
    CHECK(bad.v == verdict::exhaustive_fail);
  }
  const std::vector<std::uint64_t> hidden{e4m3sat(6.5).bits(), e4m3sat(4.5).bits()};
  const mutant_def* no_max = find_mutant("softmax_no_max_subtraction");
  REQUIRE(no_max);
  CHECK(replay(*find_harness("KANI-SM-002"), Dtype::e4m3sat, 2, hidden, no_max).failed.empty());
  CHECK_FALSE(replay(*find_harness("KANI-SM-001"), Dtype::e4m3sat, 2, hidden, no_max).failed.empty());
  CHECK(replay(*find_harness("KANI-SM-001"), Dtype::e4m3sat, 2, hidden, nullptr).failed.empty());
}

namespace {
// Test-only harnesses for the non-triviality witness rule (issue 29): a witness must refute the
// asserted bound with every value compared with a derived bound (h.widen) finite. x/x for finite
// x breaks "x/x <= 1" only at x = 0, through 0/0 = NaN: the only counterexample goes through a
// NaN, so there is no witness. "x <= 1" is broken by finite values (x = 2): there is one.
struct nan_only_counterexample {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T x = h.any("x");
    h.assume(is_finite(x));
    h.check(h.widen(x / x) <= h.wide_const(1), "x/x <= 1");
  }
};
struct finite_counterexample {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T x = h.any("x");
    h.assume(is_finite(x));
    h.check(h.widen(x) <= h.wide_const(1), "x <= 1");
  }
};
const bool witness_harnesses_registered =
    register_harness({"TEST-NAN-ONLY", "", "x/x <= 1 (false only at x = 0, through NaN)", false, false, 1, {}, "",
                      make_body<nan_only_counterexample>()}) &&
    register_harness({"TEST-FINITE-CEX", "", "x <= 1 (false at finite x > 1)", false, false, 1, {}, "",
                      make_body<finite_counterexample>()});
}  // namespace

TEST_CASE("BMC-TRUST-WITNESS-FINITE: a counterexample only through a NaN is no witness, by solver and by enumeration") {
  REQUIRE(witness_harnesses_registered);
  const harness_def* nan_only = find_harness("TEST-NAN-ONLY");
  const harness_def* finite = find_harness("TEST-FINITE-CEX");
  REQUIRE(nan_only);
  REQUIRE(finite);
  run_options o;
  o.bound = 1;
  o.timeout_seconds = 60;
  // Without the witness rule the NaN counterexample counts (the harness can fail: not vacuous).
  const run_result plain = prove(*nan_only, Dtype::f16, o);
  INFO(describe(plain));
  CHECK(plain.v == verdict::counterexample);
  CHECK(plain.nonfinite_widened);
  o.finite_witness = true;
  // With it the solver finds no counterexample with finite compared values ...
  const run_result smt = prove(*nan_only, Dtype::f16, o);
  INFO(describe(smt));
  CHECK(smt.v == verdict::proved);
  // ... and the enumeration of all 2^16 inputs finds only failures through a NaN.
  const run_result all = exhaustive(*nan_only, Dtype::f16, o);
  INFO(describe(all));
  CHECK(all.v == verdict::exhaustive_fail);
  CHECK(all.nonfinite_widened);
  // A bound broken by finite values has a witness either way.
  const run_result smt_finite = prove(*finite, Dtype::f16, o);
  INFO(describe(smt_finite));
  CHECK(smt_finite.v == verdict::counterexample);
  CHECK(!smt_finite.nonfinite_widened);
  const run_result all_finite = exhaustive(*finite, Dtype::f16, o);
  INFO(describe(all_finite));
  CHECK(all_finite.v == verdict::exhaustive_fail);
  CHECK(!all_finite.nonfinite_widened);
}
