// attncheck: the scalar concept every kernel is written against, and its traits per type.
#pragma once

#include <cmath>
#include <concepts>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string_view>

#include "attncheck/scalar/bfloat16.hpp"

namespace attncheck {

using f16 = _Float16;
using bf16 = bfloat16;

// The format of a scalar: significand precision p (with the hidden bit), exponent range, and the
// quantities of rounding-error analysis derived from them. u = 2^-p is the unit roundoff of
// round-to-nearest. For the oracle types, p is the working precision.
struct format_info {
  std::string_view name;
  int precision;         // p, significand bits including the hidden one
  int min_exponent;      // exponent of the smallest normal, 2^(emin)
  int max_exponent;      // largest finite < 2^(emax+1)
  double unit_roundoff;  // u = 2^-p
  double denorm_min;     // 2^(emin - p + 1): spacing of the subnormal grid
  double max_finite;
};

// scalar_traits<T> is the only door through which kernels reach exp, log, sqrt, comparison with
// select and conversions. Symbolic and interval scalars add a specialisation; kernels never call
// std:: functions directly (a symbolic scalar cannot go through them).
template <class T>
struct scalar_traits;

namespace detail {
constexpr double pow2(int e) {
  double r = 1.0;
  if (e >= 0)
    for (int i = 0; i < e; ++i) r *= 2.0;
  else
    for (int i = 0; i < -e; ++i) r /= 2.0;
  return r;
}
constexpr format_info make_format(std::string_view name, int p, int emin, int emax) {
  return {name, p, emin, emax, pow2(-p), pow2(emin - p + 1), (2.0 - pow2(1 - p)) * pow2(emax)};
}
}  // namespace detail

// exp and log for the hardware formats come from glibc (float: expf/logf, double: exp/log).
// exp_ulps/log_ulps are the documented worst-case errors of those routines in ULPs of the result
// (glibc manual, "Known Maximum Errors in Math Functions", x86_64: expf 1, exp 1, logf 1, log 1);
// the derived bounds use them as the function's own error. f16/bf16 call the float routine and
// round once more, so their error is u_T + (1 ulp of float) relative, folded into exp_rel below.
template <>
struct scalar_traits<double> {
  static constexpr format_info format = detail::make_format("f64", 53, -1022, 1023);
  static constexpr double exp_rel = 2 * format.unit_roundoff;  // 1 ulp <= 2u relative
  static constexpr double log_rel = 2 * format.unit_roundoff;
  static double exp(double x) { return std::exp(x); }
  static double log(double x) { return std::log(x); }
  static double sqrt(double x) { return std::sqrt(x); }
  static double to_double(double x) { return x; }
  static double from_double(double x) { return x; }
  static std::uint64_t bits(double x) { std::uint64_t b; std::memcpy(&b, &x, 8); return b; }
  static double from_bits(std::uint64_t b) { double x; std::memcpy(&x, &b, 8); return x; }
  static constexpr int bit_width = 64;
};

template <>
struct scalar_traits<float> {
  static constexpr format_info format = detail::make_format("f32", 24, -126, 127);
  static constexpr double exp_rel = 2 * format.unit_roundoff;
  static constexpr double log_rel = 2 * format.unit_roundoff;
  static float exp(float x) { return std::exp(x); }
  static float log(float x) { return std::log(x); }
  static float sqrt(float x) { return std::sqrt(x); }
  static double to_double(float x) { return x; }
  static float from_double(double x) { return static_cast<float>(x); }
  static std::uint64_t bits(float x) { std::uint32_t b; std::memcpy(&b, &x, 4); return b; }
  static float from_bits(std::uint64_t b) { auto v = static_cast<std::uint32_t>(b); float x; std::memcpy(&x, &v, 4); return x; }
  static constexpr int bit_width = 32;
};

// _Float16: g++ 12 on x86-64 without AVX512-FP16 computes each operation in float and rounds
// once (24 >= 2*11+2 bits, so correctly rounded); std::numeric_limits<_Float16> is not
// specialised, hence the explicit format table.
template <>
struct scalar_traits<f16> {
  static constexpr format_info format = detail::make_format("f16", 11, -14, 15);
  static constexpr double exp_rel = format.unit_roundoff + 2 * 5.9604644775390625e-08 * 1.001;
  static constexpr double log_rel = format.unit_roundoff + 2 * 5.9604644775390625e-08 * 1.001;
  static f16 exp(f16 x) { return static_cast<f16>(std::exp(static_cast<float>(x))); }
  static f16 log(f16 x) { return static_cast<f16>(std::log(static_cast<float>(x))); }
  static f16 sqrt(f16 x) { return static_cast<f16>(std::sqrt(static_cast<float>(x))); }
  static double to_double(f16 x) { return static_cast<double>(x); }
  static f16 from_double(double x) { return static_cast<f16>(x); }
  static std::uint64_t bits(f16 x) { std::uint16_t b; std::memcpy(&b, &x, 2); return b; }
  static f16 from_bits(std::uint64_t b) { auto v = static_cast<std::uint16_t>(b); f16 x; std::memcpy(&x, &v, 2); return x; }
  static constexpr int bit_width = 16;
};

template <>
struct scalar_traits<bf16> {
  static constexpr format_info format = detail::make_format("bf16", 8, -126, 127);
  static constexpr double exp_rel = format.unit_roundoff + 2 * 5.9604644775390625e-08 * 1.001;
  static constexpr double log_rel = format.unit_roundoff + 2 * 5.9604644775390625e-08 * 1.001;
  static bf16 exp(bf16 x) { return bf16(std::exp(static_cast<float>(x))); }
  static bf16 log(bf16 x) { return bf16(std::log(static_cast<float>(x))); }
  static bf16 sqrt(bf16 x) { return bf16(std::sqrt(static_cast<float>(x))); }
  static double to_double(bf16 x) { return static_cast<float>(x); }
  static bf16 from_double(double x) { return bf16(x); }
  static std::uint64_t bits(bf16 x) { return x.bits(); }
  static bf16 from_bits(std::uint64_t b) { return bf16::from_bits(static_cast<std::uint16_t>(b)); }
  static constexpr int bit_width = 16;
};

// What a kernel may do with a scalar: field arithmetic, ordering, and the traits above.
template <class T>
concept Scalar = requires(T a, T b, bool c) {
  { a + b } -> std::convertible_to<T>;
  { a - b } -> std::convertible_to<T>;
  { a * b } -> std::convertible_to<T>;
  { a / b } -> std::convertible_to<T>;
  { -a } -> std::convertible_to<T>;
  { a < b } -> std::convertible_to<bool>;
  { scalar_traits<T>::exp(a) } -> std::convertible_to<T>;
  { scalar_traits<T>::log(a) } -> std::convertible_to<T>;
  { scalar_traits<T>::sqrt(a) } -> std::convertible_to<T>;
  { scalar_traits<T>::from_double(1.0) } -> std::convertible_to<T>;
};

// Kernel-facing helpers. select() evaluates both arms (a symbolic scalar builds an ite term), so
// kernels express data-dependent choices with it rather than with early exits.
template <Scalar T> T exp(T x) { return scalar_traits<T>::exp(x); }
template <Scalar T> T log(T x) { return scalar_traits<T>::log(x); }
template <Scalar T> T sqrt(T x) { return scalar_traits<T>::sqrt(x); }
template <Scalar T> T lit(double v) { return scalar_traits<T>::from_double(v); }
template <Scalar T> T select(bool c, T a, T b) { return c ? a : b; }
template <Scalar T> double to_double(T x) { return scalar_traits<T>::to_double(x); }

template <class T> inline constexpr format_info format_of = scalar_traits<T>::format;

// Bit-for-bit equality: -0 differs from +0, a NaN equals only a NaN of the same payload.
template <Scalar T> bool identical_bits(T a, T b) { return scalar_traits<T>::bits(a) == scalar_traits<T>::bits(b); }

}  // namespace attncheck
