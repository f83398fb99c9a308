// attncheck: the claims of the spectral-bounds contract's source documents that are false, each shown
// false by a counterexample computed with the project's own kernels (doctest cases of falsify_tests).
#include <cmath>

#include <doctest/doctest.h>

#include "attncheck/linalg/matrix.hpp"
#include "attncheck/linalg/svd.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/scalar/mpfr.hpp"

namespace attncheck::falsify {
namespace {
using linalg::Matrix;
using M200 = Matrix<mpfr200>;
}  // namespace

// The Rust contract system states the truncation error in Frobenius norm as ‖A − A_r‖_F <= σ_{r+1}.
// For A = diag(3, 2, 1) and r = 1: ‖A − A_1‖_F = √(2² + 1²) = √5 > 2 = σ_2. (The spectral error is σ_2.)
TEST_CASE("SPEC wrong claim (Rust system): ||A - A_r||_F <= sigma_{r+1} is false for diag(3,2,1), r = 1") {
  Matrix<mpfr200> a(3, 3);
  a(0, 0) = 3;
  a(1, 1) = 2;
  a(2, 2) = 1;
  const auto d = linalg::jacobi_svd<mpfr200>(a);
  const M200 res = linalg::subtract(a, linalg::truncate(d, 1));
  const auto rd = linalg::jacobi_svd<mpfr200>(res);
  const double fro = oracle::dbl(linalg::frobenius(res)), spec = oracle::dbl(rd.s[0]), s2 = oracle::dbl(d.s[1]);
  MESSAGE("diag(3,2,1), r = 1: ||A - A_1||_F = " << fro << " (sqrt 5), ||A - A_1||_2 = " << spec << ", sigma_2 = " << s2);
  CHECK(s2 == doctest::Approx(2.0).epsilon(1e-15));
  CHECK(fro == doctest::Approx(std::sqrt(5.0)).epsilon(1e-15));
  CHECK(spec == doctest::Approx(2.0).epsilon(1e-15));
  CHECK(fro > s2);  // the Rust claim fails
}

}  // namespace attncheck::falsify
