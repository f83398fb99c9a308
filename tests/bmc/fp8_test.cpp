// attncheck: the emulated OCP FP8 formats (scalar/fp8.hpp) against an independent reference:
// the encodings' landmark values from the OCP specification, and rounding checked against a
// brute-force search for the nearest of all 256 codes (ties to the even code) on every midpoint,
// its neighbours, random doubles and the exact result of every operation on every pair of values.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "attncheck/scalar/fp8.hpp"

using namespace attncheck;

namespace {

template <class T> double value(unsigned code) { return double(T::from_bits(static_cast<std::uint8_t>(code))); }

// The non-negative finite codes in increasing order, and the code just above the largest finite
// (0x7f: E4M3's NaN, 0x7c: E5M2's infinity), which stands for "overflow" in the search.
template <class T> unsigned top_code() { return T::spec::has_inf ? 0x7cu : 0x7fu; }

// Reference RNE: the nearest candidate by exhaustive search; on a tie the even code (an even
// code has an even significand). The virtual value above the largest finite is max + ulp(max):
// landing on it is an overflow.
template <class T> std::uint8_t reference_round(double x) {
  const std::uint8_t sign = std::signbit(x) ? 0x80 : 0;
  if (std::isnan(x)) return T::spec::has_inf ? (sign | 0x7e) : (sign | 0x7f);
  const double a = std::fabs(x);
  const unsigned top = top_code<T>();
  const double max = value<T>(top - 1);
  const double above = max + (max - value<T>(top - 2));
  unsigned best = 0;
  double best_err = std::numeric_limits<double>::infinity();
  for (unsigned c = 0; c <= top; ++c) {
    const double v = c == top ? above : value<T>(c);
    const double err = std::fabs(v - a);
    if (err < best_err || (err == best_err && c % 2 == 0)) {
      best = c;
      best_err = err;
    }
  }
  if (a >= above) best = top;  // beyond the virtual value (the distances round together in double)
  if (T::spec::saturating && best == top) best = top - 1;  // OCP's saturating conversion: ±max
  return static_cast<std::uint8_t>(sign | best);
}

template <class T> void check_round(double x) {
  const std::uint8_t got = T(x).bits(), want = reference_round<T>(x);
  INFO(std::string(T::spec::name) << " rounding " << x);
  CHECK(got == want);
}

template <class T> void check_format() {
  const unsigned top = top_code<T>();
  // Codes 0 .. top-1 are the finite non-negative values, strictly increasing; top is NaN or inf.
  for (unsigned c = 1; c < top; ++c) REQUIRE(value<T>(c) > value<T>(c - 1));
  std::vector<double> points;
  for (unsigned c = 0; c < top; ++c) {
    const double v = value<T>(c), next = c + 1 < top ? value<T>(c + 1) : 2 * v - value<T>(c - 1);
    const double mid = (v + next) / 2;
    for (double p : {v, mid, std::nextafter(mid, 0.0), std::nextafter(mid, 1e300), std::nextafter(v, 1e300)})
      points.push_back(p);
  }
  for (double p : {0.0, 1e-300, 1e300, std::numeric_limits<double>::infinity(), std::numeric_limits<double>::denorm_min()})
    points.push_back(p);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> exponent(-20, 20), mantissa(1, 2);
  for (int i = 0; i < 100000; ++i) points.push_back(std::ldexp(mantissa(rng), static_cast<int>(exponent(rng))));
  for (double p : points) {
    check_round<T>(p);
    check_round<T>(-p);
  }
  // Every operation on every pair of 8-bit values: one correct rounding of the exact result
  // (sums, differences and products are exact in double; quotients are rounded to 53 bits first,
  // which cannot change an RNE result at p <= 4 bits since 53 >= 2p + 2).
  std::size_t checked = 0, mismatched = 0;
  for (unsigned i = 0; i < 256; ++i)
    for (unsigned j = 0; j < 256; ++j) {
      const T a = T::from_bits(static_cast<std::uint8_t>(i)), b = T::from_bits(static_cast<std::uint8_t>(j));
      const double x = double(a), y = double(b);
      const std::uint8_t got[4] = {T(a + b).bits(), T(a - b).bits(), T(a * b).bits(), T(a / b).bits()};
      const double exact[4] = {x + y, x - y, x * y, x / y};
      for (int k = 0; k < 4; ++k) {
        ++checked;
        const std::uint8_t want = reference_round<T>(exact[k]);
        const bool both_nan = std::isnan(double(T::from_bits(got[k]))) && std::isnan(exact[k]);
        if (!both_nan && got[k] != want) ++mismatched;
      }
    }
  CHECK(checked == 4 * 65536);
  CHECK(mismatched == 0);
}

}  // namespace

TEST_CASE("BMC-FP8-E4M3: landmarks of the OCP encoding (bias 7, no infinities, max 448, NaN S.1111.111)") {
  CHECK(value<e4m3>(0x38) == 1.0);
  CHECK(value<e4m3>(0x7e) == 448.0);
  CHECK(value<e4m3>(0x08) == std::ldexp(1.0, -6));  // smallest normal
  CHECK(value<e4m3>(0x01) == std::ldexp(1.0, -9));  // smallest subnormal
  CHECK(value<e4m3>(0x78) == 256.0);                 // S.1111.000 is a number, not infinity
  CHECK(std::isnan(value<e4m3>(0x7f)));
  CHECK(std::isnan(value<e4m3>(0xff)));
  CHECK(std::signbit(value<e4m3>(0x80)));
  // Non-saturating overflow: beyond 448 + ulp/2 = 464 is NaN; 464 itself ties to 448 (even code).
  CHECK(e4m3(464.0).bits() == 0x7e);
  CHECK(e4m3(464.5).bits() == 0x7f);
  CHECK(e4m3(std::numeric_limits<double>::infinity()).bits() == 0x7f);
  CHECK(e4m3(-1e-10).bits() == 0x80);  // underflow keeps the sign
}

TEST_CASE("BMC-FP8-E4M3SAT: E4M3 with OCP's saturating conversion: overflow and infinity clamp to ±448, NaN stays") {
  for (unsigned c = 0; c < 256; ++c) {  // the same encoding
    const double a = value<e4m3sat>(c), b = value<e4m3>(c);
    CHECK((a == b || (std::isnan(a) && std::isnan(b))));
  }
  CHECK(e4m3sat(464.0).bits() == 0x7e);
  CHECK(e4m3sat(464.5).bits() == 0x7e);  // NaN (0x7f) in non-saturating E4M3
  CHECK(e4m3sat(1e300).bits() == 0x7e);
  CHECK(e4m3sat(-1e300).bits() == 0xfe);
  CHECK(e4m3sat(std::numeric_limits<double>::infinity()).bits() == 0x7e);
  CHECK(e4m3sat(-std::numeric_limits<double>::infinity()).bits() == 0xfe);
  CHECK(std::isnan(double(e4m3sat(std::numeric_limits<double>::quiet_NaN()))));
  // Arithmetic saturates too (every result is converted): 448 + 448 = 448, -448 - 18 = -448.
  CHECK(double(e4m3sat(448.0) + e4m3sat(448.0)) == 448.0);
  CHECK(double(e4m3sat(-448.0) - e4m3sat(18.0)) == -448.0);
  CHECK(std::isnan(double(e4m3(-448.0) - e4m3(18.0))));  // the E4M3 finding (BMC-EXHAUSTIVE-E4M3-OVERFLOW)
  // Below the overflow threshold the two modes round alike.
  for (double x : {0.1, 1.0625, 300.0, 463.0, -17.3, 1e-3})
    CHECK(e4m3sat(x).bits() == e4m3(x).bits());
}

TEST_CASE("BMC-FP8-E5M2: landmarks of the OCP encoding (bias 15, IEEE-like, max 57344)") {
  CHECK(value<e5m2>(0x3c) == 1.0);
  CHECK(value<e5m2>(0x7b) == 57344.0);
  CHECK(value<e5m2>(0x04) == std::ldexp(1.0, -14));
  CHECK(value<e5m2>(0x01) == std::ldexp(1.0, -16));
  CHECK(std::isinf(value<e5m2>(0x7c)));
  CHECK(std::isnan(value<e5m2>(0x7d)));
  CHECK(e5m2(61440.0).bits() == 0x7c);  // max + ulp/2 ties to the even code: infinity (IEEE)
  CHECK(e5m2(61439.0).bits() == 0x7b);
}

TEST_CASE("BMC-FP8-ROUNDING: RNE of every midpoint, random doubles and every pairwise operation (E4M3)") {
  check_format<e4m3>();
}
TEST_CASE("BMC-FP8-ROUNDING: RNE of every midpoint, random doubles and every pairwise operation (E4M3SAT)") {
  check_format<e4m3sat>();
}
TEST_CASE("BMC-FP8-ROUNDING: RNE of every midpoint, random doubles and every pairwise operation (E5M2)") {
  check_format<e5m2>();
}

TEST_CASE("BMC-FP8-ROUNDING-CATCH: the reference tells a wrong rounding (truncation, ties away) from RNE") {
  // Truncation: the largest code not above |x|. Ties away from zero: differs from RNE on the
  // midpoints whose lower neighbour has an even code.
  std::size_t trunc_differs = 0, away_differs = 0;
  for (unsigned c = 0; c + 1 < top_code<e4m3>(); ++c) {
    const double mid = (value<e4m3>(c) + value<e4m3>(c + 1)) / 2;
    const std::uint8_t want = reference_round<e4m3>(std::nextafter(mid, 1e300));
    trunc_differs += want != c ? 1 : 0;
    away_differs += reference_round<e4m3>(mid) != c + 1 ? 1 : 0;
  }
  CHECK(trunc_differs > 0);
  CHECK(away_differs > 0);
}
