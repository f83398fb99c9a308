// attncheck: the concrete twins of the symbolic predicates, so that one harness body or axiom,
// written as a template over the value type, runs both symbolically and on real numbers.
#pragma once

#include <cmath>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::bmc {

template <Scalar C> bool is_nan(C x) { return std::isnan(to_double(x)); }
template <Scalar C> bool is_inf(C x) { return std::isinf(to_double(x)); }
template <Scalar C> bool is_finite(C x) { return std::isfinite(to_double(x)); }
template <Scalar C> C abs_of(C x) { return select(x < lit<C>(0), C(-x), x); }

}  // namespace attncheck::bmc
