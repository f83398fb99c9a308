// attncheck: the concrete twins of the symbolic predicates, so that one harness body or axiom,
// written as a template over the value type, runs both symbolically and on real numbers.
#pragma once

#include <cmath>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::bmc {

template <Scalar C> bool is_nan(C x) { return std::isnan(to_double(x)); }
template <Scalar C> bool is_inf(C x) { return std::isinf(to_double(x)); }
template <Scalar C> bool is_finite(C x) { return std::isfinite(to_double(x)); }
template <Scalar C> bool sign_bit(C x) { return !is_nan(x) && std::signbit(to_double(x)); }
template <Scalar C> C abs_of(C x) { return select(x < lit<C>(0), C(-x), x); }
// Bit-for-bit equality (signed zeros differ), every NaN equal to every NaN: the SMT theory has a
// single NaN, so a payload is not something a symbolic run can talk about.
template <Scalar C> bool same_bits(C a, C b) {
  return (is_nan(a) && is_nan(b)) || scalar_traits<C>::bits(a) == scalar_traits<C>::bits(b);
}

}  // namespace attncheck::bmc
