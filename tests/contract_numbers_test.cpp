// attncheck: a contract states the numbers its test runs with. FALSIFY-ASCL-001's sample size,
// d_k range, false-alarm levels, acceptance intervals and power are computed here from
// falsify/variance_test.hpp (what the property uses) and must appear, written the same way, in
// contracts/attention-scaling-v1.yaml: change one without the other and this fails.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "attncheck/contract/loader.hpp"
#include "falsify/variance_test.hpp"
#include "tests/test_paths.hpp"

namespace {

using namespace attncheck::falsify::variance_test;

std::string sci(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3g", v);
  return b;
}

std::string interval(const Acceptance& a, double nu) {
  return "[" + fixed_digits(a.lo / nu, 4) + ", " + fixed_digits(a.hi / nu, 4) + "]";
}

// The phrases the contract must contain, computed from the constants the property runs with.
std::vector<std::string> ascl001_phrases() {
  const double nu = static_cast<double>(default_cases) * samples;
  const Power case_half = power(samples, alpha_case, 0.5);
  const Power pooled = power(nu, alpha_pool, miss), pooled_half = power(nu, alpha_pool, 0.5);
  return {
      "N = " + std::to_string(samples),
      "d_k uniform in [" + std::to_string(min_d) + ", " + std::to_string(max_d) + "]",
      "α_case = " + sci(alpha_case),
      "T/N ∈ " + interval(acceptance(samples, alpha_case), samples),
      "α_pool = " + sci(alpha_pool),
      "C = " + std::to_string(default_cases) + ", ν = " + std::to_string(static_cast<long long>(nu)),
      "T/ν ∈ " + interval(acceptance(nu, alpha_pool), nu),
      "s ≥ " + percent(pooled.up) + " or ≤ " + percent(pooled.down) + " with probability ≥ 1 − " + sci(miss),
      "(" + percent(pooled_half.up) + " / " + percent(pooled_half.down) + " with probability ≥ 1/2)",
      "one case of the per-case test detects s ≥ " + percent(case_half.up) + " or ≤ " + percent(case_half.down) +
          " with probability ≥ 1/2",
      "≤ " + sci(alpha_run) + " per run of ≤ " + std::to_string(max_cases) + " cases at all " + std::to_string(formats) + " formats",
  };
}

}  // namespace

TEST_CASE("FALSIFY-ASCL-001: the contract states the numbers the χ² test runs with") {
  using namespace attncheck::contract;
  const LoadResult r = load_file(std::string(ATTNCHECK_SOURCE_DIR) + "/contracts/attention-scaling-v1.yaml");
  REQUIRE(r.contracts.size() == 1);
  const FalsificationTest* t = nullptr;
  for (const auto& x : r.contracts[0].tests)
    if (x.id == "FALSIFY-ASCL-001") t = &x;
  REQUIRE(t != nullptr);
  const std::string text = t->prediction + "\n" + t->test;
  for (const std::string& phrase : ascl001_phrases()) {
    INFO("contracts/attention-scaling-v1.yaml, FALSIFY-ASCL-001 prediction/test: " << text);
    CHECK_MESSAGE(text.find(phrase) != std::string::npos, "missing: " << phrase);
  }
}
