// attncheck BMC: Gappa harnesses. The script a kernel template records is the expected one, the
// rounding operators are the formats', gappa proves the derived score bound of the reference
// kernel, each mutant (a wrong exact expression, a larger rounding error, a too-tight claimed
// bound) makes it fail, and the proved statement holds at concrete points of its input ranges.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "attncheck/bmc/gappa_harness.hpp"
#include "attncheck/bmc/gappa_run.hpp"
#include "attncheck/bounds/scores.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"

using namespace attncheck;
using namespace attncheck::bmc;

namespace {

const gappa_harness_def& score_harness() {
  const gappa_harness_def* h = find_gappa_harness("GAPPA-ASCL-001");
  REQUIRE(h);
  return *h;
}

const gappa_harness_def& relative_score_harness() {
  const gappa_harness_def* h = find_gappa_harness("GAPPA-ASCL-002");
  REQUIRE(h);
  return *h;
}

const gappa_harness_def& sum_harness() {
  const gappa_harness_def* h = find_gappa_harness("GAPPA-SM-001");
  REQUIRE(h);
  return *h;
}

const gappa_harness_def& relative_sum_harness() {
  const gappa_harness_def* h = find_gappa_harness("GAPPA-SM-002");
  REQUIRE(h);
  return *h;
}

std::string describe(const run_result& r) {
  return r.id + " [" + name_of(r.format) + ", d=" + std::to_string(r.bound) + "]: " + name_of(r.v) + " " + r.reason +
         " (" + r.solver + ", " + std::to_string(r.seconds) + " s)";
}

// What gappa says about one closed statement (no inputs).
bool gappa_proves(const std::string& script) { return run_gappa(script, 30).result == gappa_answer::status::proved; }

}  // namespace

TEST_CASE("BMC-GAPPA-SCRIPT: kernels::scores at d = 2 records the expected binary32 Gappa script") {
  // The kernel's order: the scale fl(sqrt(fl(2))) first, then acc = fl(0 + fl(q0 k0)),
  // acc = fl(acc + fl(q1 k1)), and the quotient; the exact terms mirror it, the sqrt inline.
  // The bound is score_bound(√2, 2, 2) for binary32, rounded up to a double, printed exactly.
  const std::string bound = gappa_literal(score_harness().build(Dtype::f32, 2, "").bound);
  const std::string m = "[-16777215b104, 16777215b104]";  // ±max_finite of binary32
  const std::string expected =
      "@rnd = float<24,-149,ne>;\n"
      "q0 = rnd(q0_in);\nq1 = rnd(q1_in);\nk0 = rnd(k0_in);\nk1 = rnd(k1_in);\n"
      "r1 = rnd(1b1);\nr2 = rnd(sqrt(r1));\n"
      "r3 = rnd(q0 * k0);\nx3 = q0 * k0;\n"
      "r4 = rnd(0 + r3);\nx4 = 0 + x3;\n"
      "r5 = rnd(q1 * k1);\nx5 = q1 * k1;\n"
      "r6 = rnd(r4 + r5);\nx6 = x4 + x5;\n"
      "r7 = rnd(r6 / r2);\nx7 = x6 / sqrt(1b1);\n"
      "S_spec = (q0 * k0 + q1 * k1) / sqrt(1b1);\n"
      "{ q0_in in [-1, 1] /\\ q1_in in [-1, 1] /\\ k0_in in [-1, 1] /\\ k1_in in [-1, 1] ->\n"
      "  |r7 - S_spec| <= " + bound + " /\\ r1 in " + m + " /\\ r2 in " + m + " /\\ r3 in " + m + " /\\ r4 in " + m +
      " /\\ r5 in " + m + " /\\ r6 in " + m + " /\\ r7 in " + m + " }\n"
      "r7 - S_spec -> r7 - x7;\n"
      "r7 - x7 -> (r7 - r6 / r2) + (r6 - x6) / r2 + x6 * (1 / r2 - 1 / sqrt(1b1)) { r2 <> 0, sqrt(1b1) <> 0 };\n";
  const gappa_problem p = score_harness().build(Dtype::f32, 2, "");
  CHECK(p.script == expected);
  CHECK(p.roundings == 7);
  // The bound is the derived allowance, not a number of its own.
  const bounds::Model md = bounds::model_of<float>();
  CHECK(p.bound >= static_cast<double>(bounds::score_bound(std::sqrt(2.0L), 2, 2, md)));
  CHECK(p.bound <= static_cast<double>(bounds::score_bound(std::sqrt(2.0L), 2, 2, md)) * (1 + 0x1p-50));
}

TEST_CASE("BMC-GAPPA-FORMATS: the rounding operators are binary16, bfloat16, binary32, binary64 (checked by gappa)") {
  CHECK(gappa_rounding(format_of<f16>) == "float<11,-24,ne>");
  CHECK(gappa_rounding(format_of<bf16>) == "float<8,-133,ne>");
  CHECK(gappa_rounding(format_of<float>) == "float<24,-149,ne>");
  CHECK(gappa_rounding(format_of<double>) == "float<53,-1074,ne>");
  CHECK(gappa_literal(0.75) == "3b-2");
  CHECK(gappa_literal(-65504) == "-2047b5");
  CHECK(gappa_literal(2) == "1b1");
  // Landmarks, each proved by gappa and each compared with the hardware/emulated type:
  // binary16: 1 + 2^-11 is a tie that rounds to even (1); the smallest subnormal is 2^-24.
  CHECK(static_cast<double>(static_cast<f16>(1 + 0x1p-11)) == 1.0);
  CHECK(gappa_proves("{ float<11,-24,ne>(1 + 1b-11) in [1, 1] }"));
  CHECK(gappa_proves("{ float<11,-24,ne>(3b-26) in [1b-24, 1b-24] }"));  // 0.75 · 2^-24 rounds up to 2^-24
  CHECK(static_cast<double>(static_cast<f16>(0.75 * 0x1p-24)) == 0x1p-24);
  // bfloat16: 8 significand bits, smallest subnormal 2^-133.
  CHECK(to_double(bf16(1 + 0x1p-7)) == 1 + 0x1p-7);
  CHECK(gappa_proves("{ float<8,-133,ne>(1 + 1b-7) in [129b-7, 129b-7] }"));
  CHECK(gappa_proves("{ float<8,-133,ne>(3b-135) in [1b-133, 1b-133] }"));
  CHECK(to_double(bf16(0.75 * 0x1p-133)) == 0x1p-133);
  // binary32 is Gappa's ieee_32.
  CHECK(gappa_proves("x = float<24,-149,ne>(a); y = float<ieee_32,ne>(a); { a in [-1b10, 1b10] -> x - y in [0, 0] }"));
  // And a false landmark is not proved.
  CHECK_FALSE(gappa_proves("{ float<11,-24,ne>(1 + 1b-10) in [1, 1] }"));
}

TEST_CASE("BMC-GAPPA-PROVES: gappa proves the derived score bound of kernels::scores for |q_t|, |k_t| <= 1") {
  for (Dtype f : {Dtype::f16, Dtype::bf16, Dtype::f32}) {
    const run_result r = prove_gappa(score_harness(), f, 16, 60, "");
    INFO(describe(r));
    CHECK(r.v == verdict::proved);
    CHECK(r.solver.rfind("gappa ", 0) == 0);
    CHECK(r.assertions == 1 + 35);  // the error goal and the 35 no-overflow goals at d = 16
    CHECK(r.assumptions_satisfiable);
  }
}

TEST_CASE("BMC-GAPPA-MUTANTS: every Gappa mutant makes gappa fail to prove the harness it names") {
  REQUIRE(gappa_mutants().size() == 6);
  for (const auto& m : gappa_mutants()) {
    REQUIRE(!m.caught_by.empty());
    for (const auto& id : m.caught_by) {
      const gappa_harness_def* h = find_gappa_harness(id);
      REQUIRE(h);
      const run_result r = prove_gappa(*h, Dtype::f16, 8, 60, m.name);
      INFO(m.name << ": " << describe(r));
      CHECK(r.v == verdict::unknown);
      CHECK(r.reason.find("not proved") == 0);
    }
  }
  // Every Gappa harness has a mutant that breaks its kernel, not only its claimed bound.
  for (const auto& h : gappa_harnesses()) {
    int kernel_mutants = 0;
    for (const auto& m : gappa_mutants())
      if (std::find(m.caught_by.begin(), m.caught_by.end(), h.id) != m.caught_by.end() &&
          m.name.find("bound") == std::string::npos)
        ++kernel_mutants;
    INFO(h.id);
    CHECK(kernel_mutants >= 2);
  }
  // The reasons: the wrong kernel is caught by the specification check, the others by the bound.
  CHECK(prove_gappa(score_harness(), Dtype::f16, 8, 60, "gappa_scores_over_d").reason.find("not the specification") !=
        std::string::npos);
  CHECK(prove_gappa(score_harness(), Dtype::f16, 8, 60, "gappa_accumulator_narrowed").reason.find("best: [") !=
        std::string::npos);
}

TEST_CASE("BMC-GAPPA-NONVACUOUS: the input ranges hold at a point, and the proved bound holds at sampled points") {
  // The hypotheses are q_t, k_t in [-1, 1], independent non-empty intervals: q = k = 0 (and
  // q = k = 1) satisfy them. The proved statement must hold at every point of them, so compare
  // the concrete kernel with q·k/√d in long double at q = k = 1 and at random points.
  constexpr std::size_t d = 64;
  const double bound = score_harness().build(Dtype::f16, d, "").bound;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<f16> q(d), k(d);
    long double exact = 0;
    for (std::size_t t = 0; t < d; ++t) {
      q[t] = static_cast<f16>(trial == 0 ? 1.0 : u(rng));
      k[t] = static_cast<f16>(trial == 0 ? 1.0 : u(rng));
      exact += static_cast<long double>(static_cast<double>(q[t])) * static_cast<double>(k[t]);
    }
    exact /= std::sqrt(static_cast<long double>(d));
    f16 s{};
    kernels::scores(q.data(), k.data(), 1, 1, d, &s);
    INFO("trial " << trial);
    CHECK(std::abs(static_cast<long double>(static_cast<double>(s)) - exact) <= bound);
    if (trial == 0) CHECK(static_cast<double>(s) == 8.0);
  }
  // An empty range is refused, not turned into a vacuous proof.
  gappa_recorder rec(format_of<float>);
  CHECK_THROWS_AS(rec.input("x", 1, -1), std::invalid_argument);
}

TEST_CASE("BMC-GAPPA-LIMITS: an infinite derived bound is unsupported, a slow gappa times out") {
  const run_result inf = prove_gappa(score_harness(), Dtype::bf16, 256, 60, "");  // 256 u = 1 in bf16
  INFO(describe(inf));
  CHECK(inf.v == verdict::unsupported);
  CHECK(inf.reason.find("infinite") != std::string::npos);
  const gappa_answer slow = run_gappa(score_harness().build(Dtype::f64, 64, "").script, 0.05);
  CHECK(slow.result == gappa_answer::status::timeout);
  CHECK(slow.reason.find("timeout") != std::string::npos);
  CHECK(prove_gappa(score_harness(), Dtype::e4m3, 2, 60, "").v == verdict::unsupported);
}

TEST_CASE("BMC-GAPPA-SUM: gappa proves the derived summation bound of kernels::row_sum (the softmax denominator)") {
  // The script: the sum from +0 in the kernel's order, the specification Σ e_j, the bound
  // γ_{d-1}·d of the format, printed exactly.
  const gappa_problem p = sum_harness().build(Dtype::f16, 3, "");
  const bounds::Model md = bounds::model_of<f16>();
  const double b = static_cast<double>(bounds::gamma(2, md.u) * 3);
  CHECK(p.bound >= b);
  CHECK(p.bound <= b * (1 + 0x1p-50));
  CHECK(p.roundings == 3);  // the three additions
  CHECK(p.script.find(" = rnd(0 + e0);") != std::string::npos);
  CHECK(p.script.find("S_spec = e0 + e1 + e2;") != std::string::npos);
  CHECK(p.script.find("e2_in in [0, 1]") != std::string::npos);
  for (Dtype f : {Dtype::f16, Dtype::bf16, Dtype::f32}) {
    const run_result r = prove_gappa(sum_harness(), f, 32, 60, "");
    INFO(describe(r));
    CHECK(r.v == verdict::proved);
    CHECK(r.assumptions_satisfiable);
  }
  // bf16 at d = 258: (d - 1)·u > 1, no finite derived bound.
  CHECK(prove_gappa(sum_harness(), Dtype::bf16, 258, 60, "").v == verdict::unsupported);
}

TEST_CASE("BMC-GAPPA-SUM-NONVACUOUS: the proved summation bound holds at sampled rows of exps, and is not loose") {
  // The hypotheses e_j in [0, 1] hold at e = 0 and at every softmax row's exps. Check the
  // proved statement on the concrete kernel against the exact sum (long double holds every f16
  // sum of 64 terms exactly), and that the bound is within a small factor of what is reached.
  constexpr std::size_t d = 64;
  const double bound = sum_harness().build(Dtype::f16, d, "").bound;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(0, 1);
  long double worst = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<f16> e(d);
    long double exact = 0;
    for (std::size_t j = 0; j < d; ++j) {
      e[j] = static_cast<f16>(trial == 0 ? 1.0 : u(rng));
      exact += static_cast<double>(e[j]);
    }
    const long double err = std::abs(static_cast<long double>(static_cast<double>(kernels::row_sum(e.data(), d))) - exact);
    INFO("trial " << trial);
    CHECK(err <= bound);
    worst = std::max(worst, err);
  }
  // Rows of 1s (trial 0) sum exactly; random rows reach a fair fraction of the bound.
  CHECK(worst > 0);
  CHECK(worst <= bound);
}

TEST_CASE("BMC-GAPPA-SUM-REL: gappa proves the relative summation bound (sum)(1 + theta), |theta| <= gamma_{d-1}") {
  // The split: d + 1 scripts, case f with e_0..e_{f-1} = 0 and e_f >= the smallest subnormal
  // (f16: 2^-24), the zero row with the exact goal; every one with the kernel's whole loop.
  constexpr std::size_t d = 4;
  const gappa_problem p = relative_sum_harness().build(Dtype::f16, d, "");
  REQUIRE(p.cases.size() == d);
  const double g = static_cast<double>(bounds::gamma(d - 1, bounds::model_of<f16>().u));
  CHECK(p.bound >= g);
  CHECK(p.bound <= g * (1 + 0x1p-50));
  CHECK(p.script.find("e0_in in [1b-24, 1]") != std::string::npos);
  CHECK(p.script.find(" -/ ") != std::string::npos);
  CHECK(p.cases[1].find("e1_in in [0, 0]") != std::string::npos);
  CHECK(p.cases[1].find("e2_in in [1b-24, 1]") != std::string::npos);
  CHECK(p.cases[d - 1].find("e3_in in [0, 0]") != std::string::npos);
  CHECK(p.cases[d - 1].find("<= 0 ") != std::string::npos);  // the zero row: ŝ = 0 exactly
  for (Dtype f : {Dtype::f16, Dtype::bf16, Dtype::f32}) {
    const run_result r = prove_gappa(relative_sum_harness(), f, 8, 60, "");
    INFO(describe(r));
    CHECK(r.v == verdict::proved);
  }
  // A failing case is named in the reason.
  const run_result q = prove_gappa(relative_sum_harness(), Dtype::f16, 8, 60, "gappa_sum_bound_quarter");
  INFO(describe(q));
  CHECK(q.v == verdict::unknown);
  CHECK(q.reason.find("case 1 of 9: gappa could not prove: REL(") != std::string::npos);
}

TEST_CASE("BMC-GAPPA-SUM-REL-NONVACUOUS: the relative bound holds at sampled rows and is stronger than the absolute one") {
  // Rows of the box at d = 16 in f16: a one-hot 1 at a random position (the softmax maximum)
  // and the rest tiny (sum about 1-2: the rows the issue names, where gamma*d is d/sum times
  // looser) or uniform in [0, 1]; leading zeros in some. Long double holds every f16 sum exactly.
  constexpr std::size_t d = 16;
  const double rel = relative_sum_harness().build(Dtype::f16, d, "").bound;
  const double abs_bound = sum_harness().build(Dtype::f16, d, "").bound;
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(0, 1);
  double worst = 0, loosest_ratio = 0;
  for (int trial = 0; trial < 2000; ++trial) {
    std::vector<f16> e(d);
    const std::size_t zeros = trial % 4 == 0 ? trial % d : 0, max_at = zeros + rng() % (d - zeros);
    const double scale = trial % 2 ? 1.0 / 64 : 1.0;
    long double exact = 0;
    for (std::size_t j = 0; j < d; ++j) {
      e[j] = static_cast<f16>(j < zeros ? 0.0 : j == max_at ? 1.0 : scale * u(rng));
      exact += static_cast<double>(e[j]);
    }
    const long double err = std::abs(static_cast<long double>(static_cast<double>(kernels::row_sum(e.data(), d))) - exact);
    INFO("trial " << trial);
    CHECK(err <= rel * exact);
    worst = std::max(worst, static_cast<double>(err / exact));
    loosest_ratio = std::max(loosest_ratio, static_cast<double>(abs_bound / (rel * exact)));
  }
  CHECK(worst > 0);
  // At rows with sum about 1-2 the absolute statement allows 8 or more times the relative one.
  CHECK(loosest_ratio >= 8);
  // The bound is nearly reached, so the quarter mutant claims something false (not only
  // unprovable): e = (1, x, ..., x), x = 2^-11 + 2^-20 just above half an ulp of 1, rounds up
  // at every step: relative error 0.98 gamma_15.
  std::vector<f16> e(d, static_cast<f16>(0x1p-11 + 0x1p-20));
  e[0] = static_cast<f16>(1.0);
  long double exact = 0;
  for (const f16 v : e) exact += static_cast<double>(v);
  const long double err = static_cast<long double>(static_cast<double>(kernels::row_sum(e.data(), d))) - exact;
  CHECK(err > 0.95L * rel * exact);
  CHECK(err <= rel * exact);
}

TEST_CASE("BMC-GAPPA-SCORE-REL: gappa proves the relative score bound for positive normal products") {
  // The box q_t, k_t in [lo, 1], lo = 2^-6 in f16 (every product >= 2^-12 > 2^-14, normal), the
  // relative goal, and the claimed bound score_bound(1, √d, d) with η = 0: the derived bound per
  // unit of |s| when Σ|q_t k_t| = |q·k| and nothing underflows.
  constexpr std::size_t d = 4;
  const gappa_problem p = relative_score_harness().build(Dtype::f16, d, "");
  CHECK(p.relative);
  CHECK(p.cases.empty());
  CHECK(p.script.find("q0_in in [1b-6, 1]") != std::string::npos);
  CHECK(p.script.find("k3_in in [1b-6, 1]") != std::string::npos);
  CHECK(p.script.find(" -/ ") != std::string::npos);
  CHECK(p.script.find("S_spec = (q0 * k0 + q1 * k1 + q2 * k2 + q3 * k3) / sqrt(1b2);") != std::string::npos);
  bounds::Model md = bounds::model_of<f16>();
  md.eta = 0;
  const double k = static_cast<double>(bounds::score_bound(1, 2, d, md));
  CHECK(p.bound >= k);
  CHECK(p.bound <= k * (1 + 0x1p-50));
  CHECK(relative_score_harness().build(Dtype::bf16, d, "").script.find("q0_in in [1b-62, 1]") != std::string::npos);
  CHECK(relative_score_harness().build(Dtype::f64, d, "").script.find("q0_in in [1b-510, 1]") != std::string::npos);
  for (Dtype f : {Dtype::f16, Dtype::bf16, Dtype::f32}) {
    const run_result r = prove_gappa(relative_score_harness(), f, 16, 60, "");
    INFO(describe(r));
    CHECK(r.v == verdict::proved);
    CHECK(r.assumptions_satisfiable);
  }
  // bf16 at d = 128: the derived relative bound exceeds 1 (γ_128 = 1 there), which says nothing.
  const run_result none = prove_gappa(relative_score_harness(), Dtype::bf16, 128, 60, "");
  INFO(describe(none));
  CHECK(none.v == verdict::unsupported);
  CHECK(none.reason.find(">= 1") != std::string::npos);
  // The too-tight bound fails through the relative goal itself.
  const run_result q = prove_gappa(relative_score_harness(), Dtype::f16, 8, 60, "gappa_score_bound_quarter");
  INFO(describe(q));
  CHECK(q.v == verdict::unknown);
  CHECK(q.reason.find("gappa could not prove: REL(") != std::string::npos);
}

TEST_CASE("BMC-GAPPA-SCORE-REL-NONVACUOUS: the relative score bound holds at sampled points and is stronger than the absolute one") {
  // Points of the box at d = 64 in f16: q = k = 1, uniform in [lo, 1], and rows with small
  // Σ q_t k_t (entries near lo), where the absolute statement (Σ|q_t k_t| = d) is far looser.
  // Long double holds every f16 product and their sum of 64 terms exactly; the division by √d
  // adds one long double rounding (2^-64 relative), far below the bound.
  constexpr std::size_t d = 64;
  const double rel = relative_score_harness().build(Dtype::f16, d, "").bound;
  const double abs_bound = score_harness().build(Dtype::f16, d, "").bound;
  const double lo = 0x1p-6;
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> u(lo, 1);
  double worst = 0, loosest_ratio = 0;
  for (int trial = 0; trial < 500; ++trial) {
    std::vector<f16> q(d), k(d);
    const double top = trial % 3 == 2 ? 4 * lo : 1.0;  // a third of the rows: entries in [lo, 4 lo]
    std::uniform_real_distribution<double> v(lo, top);
    long double exact = 0;
    for (std::size_t t = 0; t < d; ++t) {
      q[t] = static_cast<f16>(trial == 0 ? 1.0 : v(rng));
      k[t] = static_cast<f16>(trial == 0 ? 1.0 : trial % 3 == 1 ? u(rng) : v(rng));
      exact += static_cast<long double>(static_cast<double>(q[t])) * static_cast<double>(k[t]);
    }
    exact /= std::sqrt(static_cast<long double>(d));
    f16 s{};
    kernels::scores(q.data(), k.data(), 1, 1, d, &s);
    const long double err = std::abs(static_cast<long double>(static_cast<double>(s)) - exact);
    INFO("trial " << trial);
    CHECK(err <= rel * exact);
    worst = std::max(worst, static_cast<double>(err / exact));
    loosest_ratio = std::max(loosest_ratio, static_cast<double>(abs_bound / (rel * exact)));
  }
  CHECK(worst > 0);
  // Rows with entries in [lo, 4 lo] have |s| about 64 (2.5 lo)^2 / 8 = 0.012: there the absolute
  // statement (0.27 at d = 64) allows several hundred times the relative one (K |s|, K = 0.034).
  CHECK(loosest_ratio >= 300);
  // The bound is nearly reached, so the quarter mutant claims something false (not only
  // unprovable): q_0 = k_0 = 1, then q_t = 2^-5 + 2^-14, k_t = 2^-6 (in the box), products
  // 2^-11 + 2^-20, just above half an ulp of the accumulator in [1, 2): every step rounds up by
  // almost 2^-11, and √64 = 8 divides exactly; relative error about 0.89 of the bound.
  std::vector<f16> q(d, static_cast<f16>(0x1p-5 + 0x1p-14)), k(d, static_cast<f16>(0x1p-6));
  q[0] = k[0] = static_cast<f16>(1.0);
  long double exact = 0;
  for (std::size_t t = 0; t < d; ++t) exact += static_cast<long double>(static_cast<double>(q[t])) * static_cast<double>(k[t]);
  exact /= 8;
  f16 s{};
  kernels::scores(q.data(), k.data(), 1, 1, d, &s);
  const long double err = static_cast<long double>(static_cast<double>(s)) - exact;
  CHECK(err > 0.85L * rel * exact);
  CHECK(err <= rel * exact);
}
