// attncheck tests: runs a property body under property::detail::run_rapidcheck with a fixed seed, as
// the gate does, for tests of the generators and of what a run records (tests/generators_test.cpp,
// tests/coverage_test.cpp).
#pragma once

#include <functional>

#include "attncheck/property/registry.hpp"

namespace attncheck::testing {

inline property::Outcome run_body(const std::function<void()>& body, int cases) {
  property::RunParams params;
  params.cases = cases;
  property::Outcome out;
  out.test_id = "GENERATORS-TEST";
  out.seed = 0x5eed5000u;
  property::detail::run_rapidcheck(body, params, out);
  return out;
}

}  // namespace attncheck::testing
