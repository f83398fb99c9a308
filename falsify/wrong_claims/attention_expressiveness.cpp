// attncheck: the claims of the attention-expressiveness contract's source documents that are false, each shown
// false by a counterexample computed with the project's own kernels (doctest cases of falsify_tests).
#include <cmath>
#include <vector>

#include <doctest/doctest.h>

#include "attncheck/kernels/attention.hpp"

namespace attncheck::falsify {

// The expressiveness exercise (d) says head 1 with q_1 = ln(n/ε)u retrieves v_1 (α_1 ≈ 1) even at c = 1/2. For
// n = 16, ε = 1/2: α_1 = √32/(√32 + 15) = 0.274, computed by the attention kernel itself.
TEST_CASE("SEED-004 wrong claim: head 1 with q_1 = ln(n/eps) u at c = 1/2 does not retrieve v_1 (n = 16, eps = 1/2)") {
  constexpr std::size_t n = 16, d = 16;  // √16 = 4 exactly
  std::vector<double> keys(n * d, 0.0), v(n * n, 0.0), q(d, 0.0), o(n);
  keys[0] = 0.5;  // k_1 = u/2
  for (std::size_t i = 1; i < n; ++i) keys[i * d + i] = 1;
  for (std::size_t i = 0; i < n; ++i) v[i * n + i] = 1;
  q[0] = 4 * std::log(16 / 0.5);  // √d·t·u
  kernels::attention(q.data(), keys.data(), v.data(), 1, n, d, n, false, o.data());
  const double expected = std::sqrt(32.0) / (std::sqrt(32.0) + 15);
  MESSAGE("alpha_1 of head 1 = " << o[0] << " (seed: ~1)");
  CHECK(o[0] == doctest::Approx(expected).epsilon(1e-12));
  CHECK(o[0] < 0.5);
}

}  // namespace attncheck::falsify
