// attncheck: double-double scalar, a value as the unevaluated sum hi + lo of two doubles (~106 bits).
#pragma once

#include <array>
#include <cmath>
#include <limits>

#include "attncheck/scalar/traits.hpp"

namespace attncheck {

// Error-free transformations: s + e is exactly a op b (Knuth's TwoSum, Dekker's FastTwoSum,
// TwoProd via fma). std::fma here is an exact EFT, not contraction; -ffp-contract=off keeps every
// other a*b+c in this file two roundings, which the EFTs rely on.
namespace eft {
inline void two_sum(double a, double b, double& s, double& e) {
  s = a + b;
  const double bb = s - a;
  e = (a - (s - bb)) + (b - bb);
}
inline void fast_two_sum(double a, double b, double& s, double& e) {  // requires |a| >= |b|
  s = a + b;
  e = b - (s - a);
}
inline void two_prod(double a, double b, double& p, double& e) {
  p = a * b;
  e = std::fma(a, b, -p);
}
}  // namespace eft

// Normalised: hi = fl(hi + lo), so (hi, lo) orders lexicographically like the value. Non-finite
// results keep lo = 0 (an EFT on an infinity yields NaN in the tail).
struct dd {
  double hi = 0, lo = 0;
  constexpr dd() = default;
  constexpr dd(double h) : hi(h) {}  // NOLINT: exact widening, like a built-in float
  constexpr dd(double h, double l) : hi(h), lo(l) {}
  static dd finite_or(double s, double e) { return std::isfinite(s) ? dd(s, e) : dd(s, 0.0); }
  explicit operator double() const { return hi; }
};

// Accurate sum (Joldes-Muller-Popescu 2017, "AccurateDWPlusDW"): relative error <= 3u^2, u = 2^-53.
inline dd operator+(dd a, dd b) {
  double s, e, t, f;
  eft::two_sum(a.hi, b.hi, s, e);
  eft::two_sum(a.lo, b.lo, t, f);
  e += t;
  eft::fast_two_sum(s, e, s, e);
  e += f;
  eft::fast_two_sum(s, e, s, e);
  return dd::finite_or(s, e);
}
inline dd operator-(dd a) { return {-a.hi, -a.lo}; }
inline dd operator-(dd a, dd b) { return a + (-b); }

// Product with fma (JMP 2017, "DWTimesDW3"): relative error <= 5u^2.
inline dd operator*(dd a, dd b) {
  double p, e;
  eft::two_prod(a.hi, b.hi, p, e);
  const double t = std::fma(a.hi, b.lo, a.lo * b.lo);
  e += std::fma(a.lo, b.hi, t);
  eft::fast_two_sum(p, e, p, e);
  return dd::finite_or(p, e);
}

// Long division: three double quotient digits, each from the remainder of the previous ones;
// the remainder a - q*b is formed in double-double, so the result errs by a few u^2.
inline dd operator/(dd a, dd b) {
  const double q1 = a.hi / b.hi;
  if (!std::isfinite(q1) || q1 == 0) return dd::finite_or(q1, 0.0);
  dd r = a - dd(q1) * b;
  const double q2 = r.hi / b.hi;
  r = r - dd(q2) * b;
  const double q3 = r.hi / b.hi;
  double s, e;
  eft::fast_two_sum(q1, q2, s, e);
  return dd(s, e) + dd(q3);
}

inline bool operator<(dd a, dd b) { return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo); }
inline bool operator>(dd a, dd b) { return b < a; }
inline bool operator<=(dd a, dd b) { return a.hi < b.hi || (a.hi == b.hi && a.lo <= b.lo); }
inline bool operator>=(dd a, dd b) { return b <= a; }
inline bool operator==(dd a, dd b) { return a.hi == b.hi && a.lo == b.lo; }
inline bool operator!=(dd a, dd b) { return !(a == b); }

inline dd ldexp(dd a, int k) { return {std::ldexp(a.hi, k), std::ldexp(a.lo, k)}; }

namespace dd_detail {
// ln 2 = L1 + L2 + L3 + O(2^-157); L1 has 42 significant bits, so k*L1 is exact for |k| < 2^11.
// Split with MPFR at 400 bits: L1 = RN_42(ln 2), L2 = RN_53(ln 2 - L1), L3 = RN_53(ln 2 - L1 - L2).
inline constexpr double ln2_1 = 0x1.62e42fefa38p-1;
inline constexpr double ln2_2 = 0x1.ef35793c7673p-45;
inline constexpr double ln2_3 = 0x1.f97b57a079a19p-103;

// k ln 2 rounded to a double-double (relative error ~2u^2; k*L2 formed exactly by TwoProd).
inline dd k_ln2(double k) {
  double p, e;
  eft::two_prod(k, ln2_2, p, e);
  return (dd(k * ln2_1) + dd(p, e)) + dd(k * ln2_3);
}
}  // namespace dd_detail

// exp(x) = 2^k exp(r), |r| <= ln2/2, r = x - k ln2 with a 148-bit ln 2. Then exp(r) = (1 + p)
// with p = expm1(r), obtained from expm1(r/2^10) (Taylor to degree 9, truncation < 2^-126
// relative) by ten doublings expm1(2s) = 2 expm1(s) + expm1(s)^2, which keep p's relative
// accuracy (no squaring of 1 + p, which would amplify the error 2^10 times).
inline dd exp_dd(dd x) {
  if (std::isnan(x.hi)) return x;
  if (x.hi > 709.79) return dd(std::numeric_limits<double>::infinity());
  if (x.hi < -745.2) return dd(0.0);  // exp(x) < 2^-1075: rounds to 0 even in double
  const double k = std::nearbyint(x.hi / dd_detail::ln2_1);
  // Subtract the parts of k ln2 largest first: x - k L1 is exact (Sterbenz), and rounding the
  // 148-bit k ln2 to 106 bits first would cost |k| 2^-106 absolutely.
  double m2, e2;
  eft::two_prod(k, dd_detail::ln2_2, m2, e2);
  const dd r = ((x - dd(k * dd_detail::ln2_1)) - dd(m2, e2)) - dd(k * dd_detail::ln2_3);
  const dd s = ldexp(r, -10);
  static const auto inv_fact = [] {  // 1/n!, n = 0..9
    std::array<dd, 10> c{dd(1.0)};
    for (int n = 1; n < 10; ++n) c[n] = c[n - 1] / dd(static_cast<double>(n));
    return c;
  }();
  dd acc = inv_fact[9];
  for (int n = 8; n >= 1; --n) acc = inv_fact[n] + s * acc;
  dd p = s * acc;
  for (int i = 0; i < 10; ++i) p = ldexp(p, 1) + p * p;
  const dd y = ldexp(dd(1.0) + p, static_cast<int>(k));
  return dd::finite_or(y.hi, y.lo);  // overflow for x in (log DBL_MAX, 709.79]
}

// log(x) = k ln2 + log(m), x = 2^k m with m in [1/sqrt2, sqrt2]; log(m) = 2 atanh(z),
// z = (m-1)/(m+1), |z| <= 0.1716, summed as the odd series to z^45 (truncation < 2^-110
// relative). Relative accuracy holds near x = 1 too: m - 1 is formed exactly.
inline dd log_dd(dd x) {
  if (std::isnan(x.hi) || x.hi < 0) return dd(std::numeric_limits<double>::quiet_NaN());
  if (x.hi == 0) return dd(-std::numeric_limits<double>::infinity());
  if (std::isinf(x.hi)) return x;
  int e;
  const double f = std::frexp(x.hi, &e);  // x.hi = f 2^e, f in [0.5, 1)
  const int k = f < 0.70710678118654752 ? e - 1 : e;  // so m = x / 2^k is in [1/sqrt2, sqrt2)
  const dd m = ldexp(x, -k);
  double t0, t1;
  eft::two_sum(m.hi, -1.0, t0, t1);  // m.hi - 1 is exact (Sterbenz); keep the tail anyway
  const dd t = dd(t0, t1) + dd(m.lo);
  const dd z = t / (dd(2.0) + t);
  const dd w = z * z;
  static const auto inv_odd = [] {
    std::array<dd, 23> c{};
    for (int j = 0; j < 23; ++j) c[j] = dd(1.0) / dd(2.0 * j + 1.0);
    return c;
  }();
  dd acc = inv_odd[22];
  for (int j = 21; j >= 0; --j) acc = inv_odd[j] + w * acc;
  const dd y = ldexp(z * acc, 1);
  return k == 0 ? y : dd_detail::k_ln2(static_cast<double>(k)) + y;
}

// One Newton step from the double sqrt: y = y0 + (x - y0^2) / (2 y0), y0^2 formed exactly.
inline dd sqrt_dd(dd x) {
  if (x.hi == 0 || std::isinf(x.hi) || std::isnan(x.hi)) return x;
  if (x.hi < 0) return dd(std::numeric_limits<double>::quiet_NaN());
  const double y0 = std::sqrt(x.hi);
  double p, e;
  eft::two_prod(y0, y0, p, e);
  const dd r = x - dd(p, e);
  double s, c;
  eft::fast_two_sum(y0, r.hi / (2 * y0), s, c);
  return {s, c};
}

// Error bounds, relative with u = 2^-53, while results are normal (|x| > 2^-969; below that the
// tail underflows and an absolute error of a few 2^-1074 is added, eta):
//   + -: 3u^2, *: 5u^2 (JMP 2017);  / and sqrt: a few u^2;  exp: ~30u^2 (reduction ~3u^2, Taylor
//   ~10u^2, ~1.5u^2 per doubling);  log: ~40u^2 (series ~15u^2, k ln2 + y doubles it at most).
// The constants carry a margin of 4x or more over those estimates; measured maxima against
// MPFR (tests/oracle_tiered_test.cpp, "Oracle: dd ...") are 2-5u^2.
template <>
struct scalar_traits<dd> {
  static constexpr format_info format = {"dd", 106, -1022, 1023, detail::pow2(-106), 0.0,
                                         std::numeric_limits<double>::max()};
  static constexpr double arith_rel = 0x1p-101;  // 32u^2: any of + - * /
  static constexpr double sqrt_rel = 0x1p-101;
  static constexpr double exp_rel = 0x1p-99;     // 128u^2
  static constexpr double log_rel = 0x1p-99;
  static constexpr double eta = 0x1p-1066;       // absolute error per operation near underflow
  static dd exp(dd x) { return exp_dd(x); }
  static dd log(dd x) { return log_dd(x); }
  static dd sqrt(dd x) { return sqrt_dd(x); }
  static double to_double(dd x) { return x.hi; }
  static dd from_double(double x) { return dd(x); }
};

}  // namespace attncheck
