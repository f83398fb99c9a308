// attncheck: ULP distance and error on a target format's grid, and the mismatch report.
#pragma once

#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::oracle {

// Conventions (LLVM libc's MPFR matcher): +0 and -0 are equal; NaN matches NaN whatever the
// payload; an infinity equals only itself and is infinitely far from any finite value (and from
// the other infinity); subnormals are measured on T's grid, whose spacing stops shrinking at
// 2^(emin - p + 1).

// ulp_T(x): 2^(max(e, emin) - p + 1) with e = floor(log2 |x|); ulp_T(0) = the subnormal spacing.
// x need not lie on T's grid; above T's range the top binade's rule continues.
double ulp_of(double x, const format_info& f);
double ulp_of(mpfr_srcptr x, const format_info& f);

// x rounded to nearest, ties to even, onto T's grid (subnormals; |x| >= (2 - 2^-p) 2^emax goes to
// ±inf), returned as the double holding that T value exactly. NaN stays NaN.
double round_to_format(mpfr_srcptr x, const format_info& f);

// x to `digits` significant digits, printf-%g style ("1.5000001788139343262", "2.5e-30");
// mpfr_get_str underneath, several times faster than mpfr_snprintf.
std::string decimal(mpfr_srcptr x, int digits = 20);

namespace detail {
double ulp_distance_bits(std::uint64_t a, std::uint64_t b, int bit_width, bool a_nan, bool b_nan,
                         bool a_inf, bool b_inf);
double ulp_error(double computed, double exact, double exact_tail, const format_info& f);
double ulp_error(double computed, mpfr_srcptr exact, const format_info& f);
}  // namespace detail

template <class T>
T round_to(mpfr_srcptr x) {
  return scalar_traits<T>::from_double(round_to_format(x, format_of<T>));
}

// The one rule by which every comparison of a computed T value with an exact real value measures
// the error (gate and audit alike; falsify/support.hpp's expect_close and the audit's obligations
// call it). The reference is the exact value's rounding to T, RN_T(exact), overflow included: an
// exact value beyond the overflow threshold (2 - 2^-p) 2^emax rounds to ±inf (E4M3: to NaN;
// saturating formats: to ±max, as T's own conversion of ±inf defines). Then
//   - a finite got errs by |got - exact|, the real distance (so a finite output where the exact
//     value overflows errs by at least the distance to the largest finite value);
//   - a non-finite got equal to RN_T(exact) (±inf, or NaN where T overflows to NaN) errs by 0;
//   - got = ±inf where RN_T(exact) is finite errs by the distance from the exact value to the
//     threshold on that side, the nearest real that rounds to that infinity: an output within its
//     allowance of a value that overflows may overflow;
//   - anything else (NaN, or the infinity of the other sign) errs by +inf.
// And whatever the allowance, an output equal to RN_T(exact) is never an error: the callers pass
// it (falsify::is_correctly_rounded), so identities judged with allowance 0 accept it too.
// `rounded` is RN_T(exact) when the caller has it certified (the tiered oracle's element); else
// it is computed here from exact.
long double overflow_threshold(const format_info& f);
namespace detail {
long double error_in_format(double got, long double exact, double rounded, const format_info& f);
double round_long_double(long double exact, const format_info& f);
}  // namespace detail

template <class T>
long double error_in_format(T got, long double exact, T rounded) {
  return detail::error_in_format(scalar_traits<T>::to_double(got), exact, scalar_traits<T>::to_double(rounded), format_of<T>);
}
template <class T>
long double error_in_format(T got, long double exact) {
  // T's own conversion maps an infinity to its overflow value (±inf, NaN or ±max).
  const T rounded = scalar_traits<T>::from_double(detail::round_long_double(exact, format_of<T>));
  return error_in_format<T>(got, exact, rounded);
}

// Whole steps between two T values on T's grid (0 for ±0, and for NaN against NaN).
template <class T>
double ulp_distance(T a, T b) {
  const double da = scalar_traits<T>::to_double(a), db = scalar_traits<T>::to_double(b);
  return detail::ulp_distance_bits(scalar_traits<T>::bits(a), scalar_traits<T>::bits(b),
                                   scalar_traits<T>::bit_width, std::isnan(da), std::isnan(db),
                                   std::isinf(da), std::isinf(db));
}

// Fractional error |computed - exact| / ulp_T(exact) against the exact (unrounded) value, given
// as exact + exact_tail (a double-double, ~106 bits) or at MPFR precision.
template <class T>
double ulp_error(T computed, double exact, double exact_tail = 0) {
  return detail::ulp_error(scalar_traits<T>::to_double(computed), exact, exact_tail, format_of<T>);
}
template <class T>
double ulp_error(T computed, mpfr_srcptr exact) {
  return detail::ulp_error(scalar_traits<T>::to_double(computed), exact, format_of<T>);
}

// One failing element, reported like style.md's "A failure message": bits first, then decimal,
// then the exact value, the correctly rounded one and the error.
template <class T>
struct mismatch {
  std::string what;          // headline, e.g. "FALSIFY-SM-003 failed: softmax<f32>, element 2 of 3"
  std::vector<T> input;
  T computed{};
  T rounded{};               // the correctly rounded exact value
  std::string exact_text;    // 20 significant digits
  std::string exact_source;  // e.g. "certified by mpfi, 256 bits"
  double ulp_error = 0;      // against the exact value
  std::string bound;         // optional, e.g. "bound 1.5 ULP, derived"
};

namespace detail {
struct shown_value {
  std::uint64_t bits;
  double value;
};
struct report_fields {
  std::string_view what, exact_text, exact_source, bound;
  std::vector<shown_value> input;
  shown_value computed, rounded;
  double ulp_error, ulp_distance;
  int bit_width;
  format_info format;
};
std::string format_mismatch(const report_fields& r);
}  // namespace detail

template <class T>
std::string format_mismatch(const mismatch<T>& m) {
  using tr = scalar_traits<T>;
  auto show = [](T v) { return detail::shown_value{tr::bits(v), tr::to_double(v)}; };
  detail::report_fields r{m.what, m.exact_text, m.exact_source, m.bound, {}, show(m.computed),
                          show(m.rounded), m.ulp_error, ulp_distance(m.computed, m.rounded),
                          tr::bit_width, format_of<T>};
  for (const T& v : m.input) r.input.push_back(show(v));
  return detail::format_mismatch(r);
}

}  // namespace attncheck::oracle
