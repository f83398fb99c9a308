// attncheck: the claims of the attention-equivariance contract's source documents that are false, each shown
// false by a counterexample computed with the project's own kernels (doctest cases of falsify_tests).
#include <cmath>
#include <cstdint>
#include <vector>

#include <doctest/doctest.h>

#include "attncheck/bounds/softmax.hpp"
#include "attncheck/text/numbers.hpp"
#include "attncheck/kernels/position_encoding.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/oracle/exact.hpp"

namespace attncheck::falsify {
namespace {
using bounds::real;

// The equivariance exercise states softmax(PAPᵀ) = P softmax(A) Pᵀ as an equality. In floating point it is not
// bit-exact once a permutation reorders the normalising sum: a deterministic search finds a row
// of three f32 entries whose softmax changes bits under the cyclic shift (0 1 2) -> (1 2 0).
TEST_CASE("SEED-004 equality is not bit-exact: a reordered softmax sum changes the last bit") {
  std::uint32_t state = 2026;
  const auto next = [&] { return state = state * 1664525u + 1013904223u; };
  bool found = false;
  for (int trial = 0; trial < 100000 && !found; ++trial) {
    std::vector<float> x(3);
    for (float& v : x) v = static_cast<float>(next() % 2001) / 256.0f - 4.0f;
    const std::vector<float> px = {x[1], x[2], x[0]};
    std::vector<float> y(3), yp(3);
    kernels::softmax(x.data(), y.data(), 3);
    kernels::softmax(px.data(), yp.data(), 3);
    if (!identical_bits(yp[0], y[1]) || !identical_bits(yp[1], y[2]) || !identical_bits(yp[2], y[0])) {
      found = true;
      MESSAGE("softmax(x) for x = " << row_values(x) << " and for its cyclic shift differ in bits: " << row_bits(y) << " vs "
                                    << row_bits(std::vector<float>{yp[2], yp[0], yp[1]}) << " (unshifted back)");
      // ... and the difference is within the derived widths (FALSIFY-AEQ-001's allowance: the width of SM-BND-001's interval).
      const auto b = bounds::softmax_bound(oracle::softmax_row(x), bounds::model_of<float>());
      for (std::size_t i = 0; i < 3; ++i)
        CHECK(std::abs(static_cast<real>(yp[(i + 2) % 3]) - static_cast<real>(y[i])) <= (b.hi[i] - b.lo[i]) * bounds::evaluation_slack);
    }
  }
  CHECK_MESSAGE(found, "no bit difference found: the obligation could then be stated as an equality");
}

// The position-encoding exercise's distinctness argument is about real t. In f16 and bf16 the position itself rounds
// once t exceeds 2^11 (f16) or 2^8 (bf16): positions 2048 and 2049 (f16), 256 and 257 (bf16)
// become the same number and get the same row. The correct claim: distinct rows for t < 2^p in a
// format of precision p (and, exhaustively, for t < 2^20 in f32 and f64: FALSIFY-AEQ-007).
TEST_CASE("SEED-004 distinct encodings fail in f16 and bf16: positions round before the sine") {
  const auto same_row = [](auto zero, std::size_t t1, std::size_t t2) {
    using T = decltype(zero);
    std::vector<T> a(8), b(8);
    kernels::position_encoding<T>(t1, 8, a.data());
    kernels::position_encoding<T>(t2, 8, b.data());
    for (std::size_t i = 0; i < 8; ++i)
      if (!identical_bits(a[i], b[i])) return false;
    return true;
  };
  CHECK(same_row(f16{}, 2048, 2049));
  CHECK(same_row(bf16{}, 256, 257));
  CHECK_FALSE(same_row(f16{}, 2047, 2048));  // below 2^11 the positions are exact and the rows differ
  CHECK_FALSE(same_row(bf16{}, 255, 256));
}

}  // namespace
}  // namespace attncheck::falsify
