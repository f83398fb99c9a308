// A user's own kernel, written once as a template over attncheck's Scalar concept, so that the
// same source runs on float/f16/bf16/double and on attncheck's symbolic scalar (bmc::sym<C>).
// The midpoint of two finite numbers, two ways.
#pragma once

#include <attncheck/scalar/traits.hpp>

namespace user {

// Naive: (a + b) / 2 overflows to infinity when a + b does (e.g. a = b = the largest finite).
template <attncheck::Scalar T>
T midpoint_naive(T a, T b) {
  return (a + b) / attncheck::lit<T>(2);
}

// Robust (Boldo, "Formal verification of programs computing the floating-point average", 2015):
// (a + b) / 2 is exact-enough when a + b cannot overflow; otherwise halve first (then no
// underflow can happen, because at least one operand is large). Branch-free with select(), so
// a symbolic scalar takes both arms.
template <attncheck::Scalar T>
T midpoint(T a, T b) {
  using attncheck::lit;
  using attncheck::select;  // (f16, bf16 and the symbolic scalar find theirs by ADL too)
  const T half_max = lit<T>(attncheck::format_of<T>.max_finite / 2);
  const T two = lit<T>(2);
  const auto small = a <= half_max && a >= -half_max && b <= half_max && b >= -half_max;
  return select(small, T((a + b) / two), T(a / two + b / two));
}

}  // namespace user
