// attncheck: the claims of the softmax-lipschitz contract's source documents that are false, each shown
// false by a counterexample computed with the project's own kernels (doctest cases of falsify_tests).
#include <cmath>
#include <vector>

#include <doctest/doctest.h>

#include "attncheck/kernels/softmax_jvp.hpp"

namespace attncheck::falsify {

// The softmax-filtering-bound derivation says the bound is tight for uniform attention. For T = 4 keys the
// Jacobian norm there is 1/4, half of the 1/2 the bound uses: the claim is false for T > 2.
TEST_CASE("SEED-000 wrong claim: uniform attention over T > 2 keys does not reach the Lipschitz constant 1/2") {
  const std::vector<double> uni(4, 0.0), v{1, -1, 0, 0};
  std::vector<double> dy(4);
  kernels::softmax_jvp(uni.data(), v.data(), 4, dy.data());
  const double r = std::hypot(dy[0], dy[1]) / std::sqrt(2.0);
  MESSAGE("uniform T = 4: ||Jv||/||v|| = " << r << " (the bound uses 1/2)");
  CHECK(r == doctest::Approx(0.25).epsilon(1e-15));
  CHECK(r < 0.5);
}

}  // namespace attncheck::falsify
