// attncheck BMC: the exp/log axioms hold for the real functions on every input of each format
// (the stub is never trusted unvalidated), and the validation catches a function that breaks one.
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <thread>

#include "attncheck/bmc/axioms.hpp"

using namespace attncheck;
using namespace attncheck::bmc;

namespace {

unsigned threads() { return std::max(1u, std::thread::hardware_concurrency()); }

std::string describe(const validation_report& r) {
  std::string s = r.format + ": " + std::to_string(r.inputs) + " inputs, " + std::to_string(r.seconds) + " s";
  for (const auto& f : r.failures)
    s += "\n  " + f.function + ": '" + f.axiom + "' fails on " + std::to_string(f.count) + " inputs, first bits 0x" +
         [&] { char b[32]; std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(f.first_bits)); return std::string(b); }();
  return s;
}

template <class C>
void expect_valid(std::uint64_t expected_inputs) {
  const validation_report r = validate_axioms<C>(threads());
  INFO(describe(r));
  CHECK(r.inputs == expected_inputs);
  CHECK(r.axioms_checked.size() == static_cast<std::size_t>(exp_axiom_count + log_axiom_count + 2 + log_tangent_max));
  CHECK(r.failures.empty());
}

// Broken stand-ins for exp: each violates one axiom the real function satisfies.
f16 exp_flushes_at_minus_one(f16 x) { return to_double(x) == -1 ? lit<f16>(0) : scalar_traits<f16>::exp(x); }
f16 exp_off_at_zero(f16 x) { return to_double(x) == 0 ? lit<f16>(0.5) : scalar_traits<f16>::exp(x); }
bf16 exp_not_monotone(bf16 x) {  // a dip just above 1: exp(1.5) returned as 2
  return to_double(x) == 1.5 ? lit<bf16>(2.0) : scalar_traits<bf16>::exp(x);
}
f16 log_positive_below_one(f16 x) { return to_double(x) == 0.5 ? lit<f16>(0.25) : scalar_traits<f16>::log(x); }

}  // namespace

TEST_CASE("BMC-AXIOMS-F16: the exp/log axioms hold for the real f16 exp and log on every input") {
  expect_valid<f16>(1u << 16);
}

TEST_CASE("BMC-AXIOMS-BF16: the exp/log axioms hold for the real bf16 exp and log on every input") {
  expect_valid<bf16>(1u << 16);
}

TEST_CASE("BMC-AXIOMS-F32: the exp/log axioms hold for expf and logf on all 2^32 inputs" * doctest::test_suite("bmc-long")) {
  expect_valid<float>(1ull << 32);
}

TEST_CASE("BMC-AXIOMS-NAIVE: exp(x) > 0 is false (underflow), so it is not an axiom") {
  // The largest f16 whose exp is 0 exists: the naive stub "exp(x) > 0" would prove false things.
  const exp_thresholds t = find_exp_thresholds<f16>();
  CHECK(to_double(scalar_traits<f16>::exp(lit<f16>(t.underflow))) == 0);
  CHECK(std::isfinite(t.underflow));
}

TEST_CASE("BMC-AXIOMS-CATCH: validation fails for an exp or log that breaks an axiom") {
  const auto fails = [](const validation_report& r, const std::string& axiom) {
    for (const auto& f : r.failures)
      if (f.axiom == axiom) return true;
    return false;
  };
  const validation_report a = validate_axioms<f16>(threads(), exp_flushes_at_minus_one);
  INFO(describe(a));
  CHECK(fails(a, "x1 <= x2 => exp(x1) <= exp(x2)"));
  const validation_report b = validate_axioms<f16>(threads(), exp_off_at_zero);
  INFO(describe(b));
  CHECK(fails(b, "exp(+-0) = 1"));
  const validation_report c = validate_axioms<bf16>(threads(), exp_not_monotone);
  INFO(describe(c));
  CHECK(fails(c, "x1 <= x2 => exp(x1) <= exp(x2)"));
  const validation_report d = validate_axioms<f16>(threads(), scalar_traits<f16>::exp, log_positive_below_one);
  INFO(describe(d));
  CHECK(fails(d, "0 < x <= 1 => log(x) <= 0"));
}
