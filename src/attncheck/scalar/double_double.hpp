// attncheck: double-double scalar, a value as the unevaluated sum hi + lo of two doubles (~106 bits).
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <cmath>
#include <limits>

#include <mpfr.h>

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

namespace dd_detail {
// exp's reduction: x = (k/N) ln2 + r, |r| <= ln2/(2N) ~ 2^-9.5, exp(x) = 2^(k div N) 2^((k mod N)/N) exp(r).
inline constexpr int exp_table_bits = 8, exp_table_size = 1 << exp_table_bits;  // N = 256

struct exp_constants {
  // ln2/N = (C1 + C2 + C3) / N with C1 of 32 significant bits, so k C1 is exact for |k| < 2^21
  // (|x| < 745 needs |k| < 2^18); C2 = RN(ln2 - C1), C3 = RN(ln2 - C1 - C2): 117 + 53 bits.
  double c1, c2, c3;
  double n_over_ln2;  // picks k; any nearby value keeps |r| small
  std::array<dd, exp_table_size> pow2;  // 2^(j/N), each correctly rounded to 106 bits
};

// Computed once with MPFR (correctly rounded), not typed in.
inline const exp_constants& exp_tables() {
  static const exp_constants k = [] {
    exp_constants c{};
    mpfr_t v, w;
    mpfr_init2(v, 300);
    mpfr_init2(w, 300);
    mpfr_const_log2(v, MPFR_RNDN);
    mpfr_set(w, v, MPFR_RNDN);
    mpfr_prec_round(w, 32, MPFR_RNDN);
    c.c1 = mpfr_get_d(w, MPFR_RNDN);
    mpfr_sub_d(v, v, c.c1, MPFR_RNDN);
    c.c2 = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(v, v, c.c2, MPFR_RNDN);
    c.c3 = mpfr_get_d(v, MPFR_RNDN);
    c.n_over_ln2 = exp_table_size / (c.c1 + c.c2);
    for (int j = 0; j < exp_table_size; ++j) {
      mpfr_set_si(v, j, MPFR_RNDN);
      mpfr_div_2ui(v, v, exp_table_bits, MPFR_RNDN);
      mpfr_exp2(v, v, MPFR_RNDN);
      const double hi = mpfr_get_d(v, MPFR_RNDN);
      mpfr_sub_d(v, v, hi, MPFR_RNDN);
      c.pow2[static_cast<std::size_t>(j)] = dd(hi, mpfr_get_d(v, MPFR_RNDN));
    }
    mpfr_clear(v);
    mpfr_clear(w);
    return c;
  }();
  return k;
}
}  // namespace dd_detail

// exp(x) = 2^(k div N) 2^((k mod N)/N) (1 + p), p = expm1(r), |r| <= ln2/(2N) < 2^-9.4:
// - r = x - k ln2/N in double-double from the 170-bit split of ln 2 (x - k C1/N is exact);
// - p = r + r^2/2 + r^3/6 + r^4/24 + t in double-double, where t, the degree 5..9 Taylor terms,
//   is below 2^-54 and needs only double Horner (its error < 2^-106); truncation after degree 9:
//   |r|^10/10! < 2^-115. Every error is absolute on 1 + p ~ 1, i.e. relative on exp(x);
// - 2^(j/N) is a correctly rounded double-double (2^-107), and 2^(k div N) is exact.
// Error: reduction ~3u^2 |r|, polynomial a few u^2 |r|, product and sum ~8u^2: ~12u^2 in all
// (u = 2^-53). This replaced a degree-9 Taylor series with ten doublings (~5x slower).
inline dd exp_dd(dd x) {
  if (std::isnan(x.hi)) return x;
  if (x.hi > 709.79) return dd(std::numeric_limits<double>::infinity());
  if (x.hi < -745.2) return dd(0.0);  // exp(x) < 2^-1075: rounds to 0 even in double
  const auto& c = dd_detail::exp_tables();
  constexpr double N = dd_detail::exp_table_size;
  const double k = std::nearbyint(x.hi * c.n_over_ln2);
  double m2, e2;
  eft::two_prod(k, c.c2 / N, m2, e2);  // c2 / N: exact, a power of two
  const dd r = ((x - dd(k * (c.c1 / N))) - dd(m2, e2)) - dd(k * (c.c3 / N));
  const double rh = r.hi;
  // 1/120 ... 1/362880 as doubles: t's own rounding is far below 2^-106 (see above).
  const double t =
      rh * rh * rh * rh * rh *
      (1.0 / 120 + rh * (1.0 / 720 + rh * (1.0 / 5040 + rh * (1.0 / 40320 + rh * (1.0 / 362880)))));
  static const dd inv6 = dd(1.0) / dd(6.0), inv24 = dd(1.0) / dd(24.0);
  dd acc = inv6 + r * inv24;  // Horner: r (1 + r (1/2 + r (1/6 + r/24)))
  acc = dd(0.5) + r * acc;
  acc = dd(1.0) + r * acc;
  const dd p = r * acc + dd(t);  // r + r^2/2 + r^3/6 + r^4/24 + t
  const long kk = static_cast<long>(k);
  const long j = kk & (dd_detail::exp_table_size - 1);  // k mod N in [0, N), also for k < 0
  const int e = static_cast<int>((kk - j) / dd_detail::exp_table_size);
  const dd& tj = c.pow2[static_cast<std::size_t>(j)];
  const dd z = tj + tj * p;
  if (e > -1022 && e < 1024) {  // 2^e is a normal double: scaling by it is exact (ldexp is a call)
    const double s = std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
    return dd::finite_or(z.hi * s, z.lo * s);
  }
  const dd y = ldexp(z, e);
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
