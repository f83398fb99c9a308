// attncheck: a scalar that runs a kernel template in T and carries, next to every value, a
// rigorous bound on its distance to the exact value of the same sequence of operations
// (running error analysis, Higham, Accuracy and Stability of Numerical Algorithms, §3.3).
//
// Why: a kernel with a long chain (the attention HVP: scores, softmax, three weighted means, a
// covariance, products) has an a-priori bound that is tedious to derive by hand and loose when
// written out in closed form. Here the bound is derived one operation at a time by the standard
// model (bounds/error_model.hpp) along the very operations the kernel performs in T, so the
// value part is bit for bit the plain kernel's result and the bound part is the derived
// allowance for it. For x̂ with |x̂ − x| <= e_x, ŷ with |ŷ − y| <= e_y and ẑ = fl(x̂ ∘ ŷ):
//   x ± y:  e_x + e_y                                    + rounding(ẑ)
//   x · y:  |x̂|e_y + |ŷ|e_x + e_x e_y                     + rounding(ẑ)
//   x / y:  (e_x|ŷ| + |x̂|e_y) / (|ŷ|(|ŷ| − e_y))  if e_y < |ŷ|, else ∞   + rounding(ẑ)
//   exp x:  E(exp_rel + e^{e_x} − 1) (+ η below the normal range), E = (|ẑ| + η)/(1 − exp_rel) >= e^{x̂}
//   sqrt x: e_x/√x̂ (√e_x at x̂ = 0) + 2u|ẑ|;  log x: −log(1 − e_x/x̂) + log_rel(|ẑ| + η)/(1 − log_rel)
// rounding(ẑ) = u|ẑ| when |ẑ| is normal (fl(a) = a/(1 + δ), |δ| <= u: Higham Thm 2.3); below it,
// η/2 for × and ÷ and 0 for ± (sums of floats are exact there); 0 when an operand is an exact 0.
// Comparisons look at the computed values, so the tracked program takes the kernel's branches;
// the exact value it is compared with is that of the same branches on the exact inputs (for
// row_max this is harmless: softmax does not depend on which tied entry is the shift).
// The bound itself is evaluated in long double; callers widen it by bounds::evaluation_slack.
#pragma once

#include <cmath>
#include <limits>

#include "attncheck/scalar/traits.hpp"

namespace attncheck {

template <class T>
struct running {
  using real = long double;
  T v{};       // the value the kernel computes in T
  real e = 0;  // |v − exact| <= e

  running() = default;
  running(T value, real err = 0) : v(value), e(err) {}  // an input: exact unless told otherwise

  static constexpr format_info fmt = format_of<T>;
  static real val(T x) { return static_cast<real>(to_double(x)); }
  static real min_normal() { return std::ldexp(real(1), fmt.min_exponent); }
  static constexpr real inf() { return std::numeric_limits<real>::infinity(); }
  // a·b for bound terms, with 0·∞ = 0: an exactly-zero factor contributes nothing.
  static real mulz(real a, real b) { return a == 0 || b == 0 ? real(0) : a * b; }
  // The rounding of one operation's result z (see the header): sum_like = ± (exact below normal).
  static real rounding(T z, bool sum_like) {
    const real a = std::abs(val(z));
    if (a >= min_normal()) return static_cast<real>(fmt.unit_roundoff) * a;
    return sum_like ? real(0) : static_cast<real>(fmt.denorm_min) / 2;
  }
  static running make(T z, real e) {
    const real zz = val(z);
    return running(z, std::isfinite(zz) && !std::isnan(e) ? e : inf());
  }
};

template <class T>
running<T> operator+(const running<T>& x, const running<T>& y) {
  const T z = T(x.v + y.v);
  return running<T>::make(z, x.e + y.e + running<T>::rounding(z, true));
}
template <class T>
running<T> operator-(const running<T>& x, const running<T>& y) {
  const T z = T(x.v - y.v);
  return running<T>::make(z, x.e + y.e + running<T>::rounding(z, true));
}
template <class T>
running<T> operator-(const running<T>& x) { return running<T>(T(-x.v), x.e); }
template <class T>
running<T> operator*(const running<T>& x, const running<T>& y) {
  using R = running<T>;
  const T z = T(x.v * y.v);
  const typename R::real ax = std::abs(R::val(x.v)), ay = std::abs(R::val(y.v));
  const bool exact_zero = (ax == 0 && x.e == 0) || (ay == 0 && y.e == 0);
  const typename R::real prop = R::mulz(ax, y.e) + R::mulz(ay, x.e) + R::mulz(x.e, y.e);
  return R::make(z, prop + (exact_zero ? 0 : R::rounding(z, false)));
}
template <class T>
running<T> operator/(const running<T>& x, const running<T>& y) {
  using R = running<T>;
  const T z = T(x.v / y.v);
  const typename R::real ax = std::abs(R::val(x.v)), ay = std::abs(R::val(y.v));
  if (!(y.e < ay)) return R::make(z, R::inf());
  const typename R::real prop = (R::mulz(x.e, ay) + R::mulz(ax, y.e)) / (ay * (ay - y.e));
  return R::make(z, prop + (ax == 0 && x.e == 0 ? 0 : R::rounding(z, false)));
}
template <class T> bool operator<(const running<T>& x, const running<T>& y) { return x.v < y.v; }
template <class T> bool operator>(const running<T>& x, const running<T>& y) { return x.v > y.v; }
template <class T> bool operator<=(const running<T>& x, const running<T>& y) { return x.v <= y.v; }
template <class T> bool operator>=(const running<T>& x, const running<T>& y) { return x.v >= y.v; }
template <class T> bool operator==(const running<T>& x, const running<T>& y) { return x.v == y.v; }

template <class T>
struct scalar_traits<running<T>> {
  using R = running<T>;
  using real = typename R::real;
  static constexpr format_info format = format_of<T>;
  static constexpr double exp_rel = scalar_traits<T>::exp_rel;
  static constexpr double log_rel = scalar_traits<T>::log_rel;
  static R exp(const R& x) {
    const T z = scalar_traits<T>::exp(x.v);
    const real eta = static_cast<real>(format.denorm_min), a = std::abs(R::val(z));
    const real big_e = (a + eta) / (1 - static_cast<real>(exp_rel));  // >= e^{x̂}
    const real own = static_cast<real>(exp_rel) * big_e + (a < R::min_normal() ? eta : 0);
    return R::make(z, own + R::mulz(big_e, std::expm1(x.e)));
  }
  static R log(const R& x) {
    const T z = scalar_traits<T>::log(x.v);
    const real eta = static_cast<real>(format.denorm_min), ax = R::val(x.v);
    if (!(x.e < ax)) return R::make(z, R::inf());
    const real own = static_cast<real>(log_rel) * (std::abs(R::val(z)) + eta) / (1 - static_cast<real>(log_rel));
    return R::make(z, own - std::log1p(-x.e / ax));
  }
  static R sqrt(const R& x) {
    const T z = scalar_traits<T>::sqrt(x.v);
    const real ax = R::val(x.v);
    const real prop = x.e == 0 ? 0 : ax > 0 ? x.e / std::sqrt(ax) : std::sqrt(x.e);
    // 2u: f16/bf16 take the float root and round again (two roundings).
    return R::make(z, prop + 2 * static_cast<real>(format.unit_roundoff) * std::abs(R::val(z)));
  }
  static double to_double(const R& x) { return scalar_traits<T>::to_double(x.v); }
  // A constant of the program: exact is the double given, the kernel sees it rounded to T.
  static R from_double(double x) {
    const T t = scalar_traits<T>::from_double(x);
    const real d = R::val(t) - static_cast<real>(x);
    return R(t, d == d ? std::abs(d) : real(0));  // NaN and ±∞ constants: error 0 (they are themselves)
  }
};

}  // namespace attncheck
