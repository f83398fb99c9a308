// attncheck: the standard model of floating-point error used by every derived bound.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "attncheck/oracle/exact.hpp"
#include "attncheck/scalar/traits.hpp"

namespace attncheck::bounds {

using oracle::real;

// Standard model (Higham, Accuracy and Stability of Numerical Algorithms, §2.2): for round to
// nearest, fl(a op b) = (a op b)(1 + δ), |δ| <= u, as long as the result is normal; in the
// subnormal range an absolute error of at most half the subnormal spacing η is added
// (addition and subtraction of floats are then exact). exp/log add their own relative error.
struct Model {
  real u;        // unit roundoff of the working format
  real eta;      // subnormal spacing (absolute error granule); 0 for the oracle
  real exp_rel;  // relative error of exp (from the libm's documented maximum, see traits)
  real log_rel;  // relative error of log
};

template <class T>
constexpr Model model_of() {
  return {format_of<T>.unit_roundoff, format_of<T>.denorm_min, scalar_traits<T>::exp_rel,
          scalar_traits<T>::log_rel};
}

// γ_k = k u / (1 - k u) (Higham Lemma 3.1): the relative error of k chained roundings.
// Infinite once k u >= 1: the a-priori bound says nothing there, and says so.
inline real gamma(std::size_t k, real u) {
  const real ku = static_cast<real>(k) * u;
  return ku < 1 ? ku / (1 - ku) : std::numeric_limits<real>::infinity();
}

// The bounds are evaluated in `real` (long double, u = 2^-64) from oracle values rounded to
// real. Every allowance is at least u_T >= 2^-53 relative to the value it bounds, and the
// evaluation (sums of at most 2^12 terms) errs by at most about 2^-52 relative to it: so
// widening every allowance by 2^-8 makes evaluating the bound itself never unsound.
inline constexpr real evaluation_slack = 1.0L + 0x1p-8L;

}  // namespace attncheck::bounds
