// attncheck: the high-precision reference scalar (Boost.Multiprecision over MPFR).
#pragma once

#include <boost/multiprecision/mpfr.hpp>

#include "attncheck/scalar/traits.hpp"

namespace attncheck {

// At least 200 bits: far beyond the 2p+few bits needed to round an f64 result correctly in all
// but pathological cases; expression templates are off so that kernel code `T t = a - b;` means
// one rounded operation, exactly as for the hardware types. Boost's template argument counts
// DECIMAL digits: 61 digits give ceil(61·log2(10)) + 1 = 204 bits >= oracle_bits. (It used to be
// <200>, i.e. 666 bits: sound, but three times the cost and a wrong label.)
inline constexpr int oracle_bits = 200;
inline constexpr int oracle_digits10 = 61;
using mpfr200 = boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<oracle_digits10>,
                                              boost::multiprecision::et_off>;

template <>
struct scalar_traits<mpfr200> {
  // The exponent range of MPFR is about ±2^30: treated as unbounded (no subnormals, no overflow).
  static constexpr format_info format = {"mpfr200", oracle_bits, -1073741822, 1073741822,
                                         detail::pow2(-oracle_bits), 0.0,
                                         std::numeric_limits<double>::infinity()};
  static constexpr double exp_rel = 0;  // MPFR's exp and log are correctly rounded at 200 bits;
  static constexpr double log_rel = 0;  // their 2^-200 error is far below every tolerance here
  static mpfr200 exp(const mpfr200& x) { return boost::multiprecision::exp(x); }
  static mpfr200 log(const mpfr200& x) { return boost::multiprecision::log(x); }
  static mpfr200 sqrt(const mpfr200& x) { return boost::multiprecision::sqrt(x); }
  static double to_double(const mpfr200& x) { return x.convert_to<double>(); }
  static mpfr200 from_double(double x) { return mpfr200(x); }
};

}  // namespace attncheck
