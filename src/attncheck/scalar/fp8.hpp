// attncheck: emulated 8-bit floating point, OCP FP8 E4M3 and E5M2 (OCP 8-bit Floating Point
// Specification v1.0, 2023), round-to-nearest-even after every operation.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "attncheck/scalar/traits.hpp"

namespace attncheck {

// The two encodings. E5M2 is IEEE-like (infinities, NaNs with exponent 11111). E4M3 has no
// infinities: S.1111.111 is its only NaN, so the largest finite is S.1111.110 = 448.
// Overflow follows OCP's non-saturating conversion: a result beyond the largest finite after
// rounding becomes +-inf (E5M2) or NaN (E4M3). E4M3SAT is E4M3 with OCP's saturating conversion
// applied to every result: beyond ±448 after rounding (and ±infinity) it clamps to ±448, NaN stays
// NaN. It can hide an overflow as a plausible value: softmax without max subtraction returns
// y_0 = 448/448 = 1 for x = (6.5, 4.5) instead of NaN; only the sum's derived bound catches it
// (tests/bmc/trust_test.cpp, BMC-EXHAUSTIVE-E4M3SAT).
struct e4m3_spec {
  static constexpr const char* name = "e4m3";
  static constexpr int precision = 4, min_exponent = -6, max_exponent = 8, bias = 7;
  static constexpr bool has_inf = false, saturating = false;
  static constexpr double max_finite = 448;
};
struct e4m3sat_spec : e4m3_spec {
  static constexpr const char* name = "e4m3sat";
  static constexpr bool saturating = true;
};
struct e5m2_spec {
  static constexpr const char* name = "e5m2";
  static constexpr int precision = 3, min_exponent = -14, max_exponent = 15, bias = 15;
  static constexpr bool has_inf = true, saturating = false;
  static constexpr double max_finite = 57344;
};

template <class Spec>
class float8 {
 public:
  using spec = Spec;
  static constexpr int mant_bits = Spec::precision - 1;

  constexpr float8() = default;
  float8(double d) : bits_(round_from_double(d)) {}  // NOLINT: implicit, like a built-in float
  float8(float f) : float8(static_cast<double>(f)) {}
  float8(int i) : float8(static_cast<double>(i)) {}
  float8(unsigned long n) : float8(static_cast<double>(n)) {}

  static float8 from_bits(std::uint8_t b) {
    float8 r;
    r.bits_ = b;
    return r;
  }
  std::uint8_t bits() const { return bits_; }

  // Exact: every 8-bit value is a double.
  operator double() const { return decode(bits_); }  // NOLINT: exact widening

  // Each operation in double, rounded once to 8 bits. Sums and products of two 8-bit values are
  // exact in double; a quotient or square root rounded to 53 bits and then to p <= 4 bits is
  // still correctly rounded, since 53 >= 2p + 2 (no harmful double rounding).
  friend float8 operator+(float8 a, float8 b) { return float8(double(a) + double(b)); }
  friend float8 operator-(float8 a, float8 b) { return float8(double(a) - double(b)); }
  friend float8 operator*(float8 a, float8 b) { return float8(double(a) * double(b)); }
  friend float8 operator/(float8 a, float8 b) { return float8(double(a) / double(b)); }
  friend float8 operator-(float8 a) { return from_bits(static_cast<std::uint8_t>(a.bits_ ^ 0x80u)); }
  float8& operator+=(float8 o) { return *this = *this + o; }
  float8& operator-=(float8 o) { return *this = *this - o; }
  float8& operator*=(float8 o) { return *this = *this * o; }
  float8& operator/=(float8 o) { return *this = *this / o; }
  friend bool operator<(float8 a, float8 b) { return double(a) < double(b); }
  friend bool operator>(float8 a, float8 b) { return double(a) > double(b); }
  friend bool operator<=(float8 a, float8 b) { return double(a) <= double(b); }
  friend bool operator>=(float8 a, float8 b) { return double(a) >= double(b); }
  friend bool operator==(float8 a, float8 b) { return double(a) == double(b); }
  friend bool operator!=(float8 a, float8 b) { return double(a) != double(b); }

  static double decode(std::uint8_t b) {
    const bool neg = b & 0x80u;
    const int e = (b >> mant_bits) & ((1 << (7 - mant_bits)) - 1);
    const int m = b & ((1 << mant_bits) - 1);
    const int e_top = (1 << (7 - mant_bits)) - 1;
    double v;
    if (Spec::has_inf && e == e_top) v = m == 0 ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
    else if (!Spec::has_inf && e == e_top && m == (1 << mant_bits) - 1) v = std::numeric_limits<double>::quiet_NaN();
    else if (e == 0) v = std::ldexp(m, Spec::min_exponent - mant_bits);
    else v = std::ldexp((1 << mant_bits) + m, e - Spec::bias - mant_bits);
    return neg ? -v : v;
  }

  // Round to nearest, ties to even significand, on the grid of the format: the quantum is
  // 2^(max(e, emin) - (p - 1)) for |d| in [2^e, 2^(e+1)), so subnormals round on the fixed grid
  // 2^(emin - p + 1). std::nearbyint rounds ties to even in the default rounding mode.
  static std::uint8_t round_from_double(double d) {
    const std::uint8_t sign = std::signbit(d) ? 0x80u : 0u;
    const std::uint8_t nan = static_cast<std::uint8_t>(sign | (Spec::has_inf ? 0x7eu : 0x7fu));
    const std::uint8_t inf = static_cast<std::uint8_t>(sign | 0x7cu);
    // The largest finite code: S.1111.110 (E4M3), S.11110.11 (E5M2).
    const std::uint8_t max = static_cast<std::uint8_t>(sign | (Spec::has_inf ? 0x7bu : 0x7eu));
    const std::uint8_t overflow = Spec::saturating ? max : Spec::has_inf ? inf : nan;
    if (std::isnan(d)) return nan;
    if (std::isinf(d)) return overflow;
    const double a = std::fabs(d);
    if (a == 0) return sign;
    const int e = std::max(std::ilogb(a), Spec::min_exponent);
    const double n = std::nearbyint(std::ldexp(a, mant_bits - e));  // significand in units of the quantum
    const double v = std::ldexp(n, e - mant_bits);
    if (v > Spec::max_finite) return overflow;
    if (v == 0) return sign;
    const int ev = std::ilogb(v);
    if (ev < Spec::min_exponent)  // subnormal: biased exponent 0, significand in quanta of 2^(emin-p+1)
      return static_cast<std::uint8_t>(sign | static_cast<int>(std::ldexp(v, mant_bits - Spec::min_exponent)));
    const int m = static_cast<int>(std::ldexp(v, mant_bits - ev)) - (1 << mant_bits);
    return static_cast<std::uint8_t>(sign | ((ev + Spec::bias) << mant_bits) | m);
  }

 private:
  std::uint8_t bits_ = 0;
};

using e4m3 = float8<e4m3_spec>;
using e4m3sat = float8<e4m3sat_spec>;
using e5m2 = float8<e5m2_spec>;

// The scalar door (traits.hpp): exp and log are glibc's double routines (<= 1 ulp of double,
// 2^-52 relative) rounded once more to 8 bits. Kept here, not in traits.hpp: the code that uses
// the 8-bit formats (bmc's exhaustive checks, the FP8 KV cache of kernels/attention_fp8kv.hpp)
// includes this header.
template <class Spec>
struct float8_traits {
  using T = float8<Spec>;
  static constexpr format_info format = {Spec::name, Spec::precision, Spec::min_exponent, Spec::max_exponent,
                                         detail::pow2(-Spec::precision),
                                         detail::pow2(Spec::min_exponent - Spec::precision + 1), Spec::max_finite};
  static constexpr double exp_rel = format.unit_roundoff + 0x1p-52 * 1.001;
  static constexpr double log_rel = format.unit_roundoff + 0x1p-52 * 1.001;
  static T exp(T x) { return T(std::exp(double(x))); }
  static T log(T x) { return T(std::log(double(x))); }
  static T sqrt(T x) { return T(std::sqrt(double(x))); }
  static double to_double(T x) { return double(x); }
  static T from_double(double x) { return T(x); }
  static std::uint64_t bits(T x) { return x.bits(); }
  static T from_bits(std::uint64_t b) { return T::from_bits(static_cast<std::uint8_t>(b)); }
  static constexpr int bit_width = 8;
};
template <> struct scalar_traits<e4m3> : float8_traits<e4m3_spec> {};
template <> struct scalar_traits<e4m3sat> : float8_traits<e4m3sat_spec> {};
template <> struct scalar_traits<e5m2> : float8_traits<e5m2_spec> {};

}  // namespace attncheck
