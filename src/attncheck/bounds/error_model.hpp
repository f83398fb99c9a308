// attncheck: the standard model of floating-point error used by every derived bound.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::bounds {

// Standard model (Higham, Accuracy and Stability of Numerical Algorithms, §2.2): for round to
// nearest, fl(a op b) = (a op b)(1 + δ), |δ| <= u, as long as the result is normal; in the
// subnormal range an absolute error of at most half the subnormal spacing η is added
// (addition and subtraction of floats are then exact). exp/log add their own relative error.
struct Model {
  double u;        // unit roundoff of the working format
  double eta;      // subnormal spacing (absolute error granule); 0 for the oracle
  double exp_rel;  // relative error of exp (from the libm's documented maximum, see traits)
  double log_rel;  // relative error of log
};

template <class T>
constexpr Model model_of() {
  return {format_of<T>.unit_roundoff, format_of<T>.denorm_min, scalar_traits<T>::exp_rel,
          scalar_traits<T>::log_rel};
}

// γ_k = k u / (1 - k u) (Higham Lemma 3.1): the relative error of k chained roundings.
// Infinite once k u >= 1: the a-priori bound says nothing there, and says so.
inline double gamma(std::size_t k, double u) {
  const double ku = static_cast<double>(k) * u;
  return ku < 1 ? ku / (1 - ku) : std::numeric_limits<double>::infinity();
}

// The bounds are evaluated in double from oracle values rounded to double; both add relative
// errors of a few 2^-53. Every allowance is multiplied by this factor (2^-40 of headroom, i.e.
// about 8000 double roundings) so that evaluating the bound can never make it unsound.
inline constexpr double evaluation_slack = 1.0 + 0x1p-40;

}  // namespace attncheck::bounds
