// attncheck: ball<S>, midpoint-radius arithmetic over a centre type S (double, dd, mpfr200) with a
// rigorous double radius: the scalar the tiered oracle (oracle/tiered.cpp) runs the kernels at.
#pragma once

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <utility>

#include "attncheck/scalar/double_double.hpp"
#include "attncheck/scalar/mpfi.hpp"  // undecided_comparisons
#include "attncheck/scalar/mpfr.hpp"
#include "attncheck/scalar/traits.hpp"

namespace attncheck {

namespace ball_radius {
inline constexpr double inf = std::numeric_limits<double>::infinity();
// Radii are doubles computed in round-to-nearest. up() turns the result of at most 8 such
// operations on non-negative terms into a certain upper bound (8 * 2^-53 < 2^-48 relative;
// 2^-1070 absolute covers underflow); down() is the matching lower bound.
inline double up(double x) { return x * (1 + 0x1p-48) + 0x1p-1070; }
inline double down(double x) { return std::max(0.0, x * (1 - 0x1p-48) - 0x1p-1070); }
}  // namespace ball_radius

// What a ball needs from its centre type: per-operation error bounds (relative, plus an
// absolute eta where the type underflows) and certain bounds on |c| as doubles.
template <class S>
struct ball_centre;

template <>
struct ball_centre<dd> {
  using tr = scalar_traits<dd>;
  static constexpr double arith = tr::arith_rel, exp = tr::exp_rel, log = tr::log_rel,
                          sqrt = tr::sqrt_rel, eta = tr::eta;
  static double mag_up(const dd& c) { return ball_radius::up(std::fabs(c.hi)); }  // |lo| <= ulp(hi) / 2
  static double mag_down(const dd& c) { return ball_radius::down(std::fabs(c.hi)); }
  static bool is_inf(const dd& c) { return std::isinf(c.hi); }
  static bool finite(const dd& c) { return std::isfinite(c.hi); }
  static void to_mpfr(mpfr_ptr r, const dd& c, mpfr_rnd_t rnd) {
    mpfr_set_d(r, c.hi, rnd);
    mpfr_add_d(r, r, c.lo, rnd);
  }
};

// Plain double, round to nearest, u = 2^-53: + - * / and sqrt are correctly rounded (IEEE 754),
// so each is within u of its exact result while it is normal; in the subnormal range + and -
// are exact and * / sqrt err by at most 2^-1075 absolute (eta). exp and log are glibc's: its
// manual documents at most 1 ulp (<= 2u relative) for both on x86_64 ("Known Maximum Errors in
// Math Functions"; the same figure traits.hpp uses for the derived bounds), and the
// "Oracle: double tier, libm" test measures them against MPFR. The constants take 4x that
// (2^-50), a margin that costs no certification: f32's rounding needs only 2^-25. Results of exp
// in the subnormal range err by at most 1 ulp = 2^-1074 absolute, inside eta too.
template <>
struct ball_centre<double> {
  static constexpr double arith = 0x1p-53, exp = 0x1p-50, log = 0x1p-50, sqrt = 0x1p-53, eta = 0x1p-1072;
  static double mag_up(double c) { return ball_radius::up(std::fabs(c)); }
  static double mag_down(double c) { return ball_radius::down(std::fabs(c)); }
  static bool is_inf(double c) { return std::isinf(c); }
  static bool finite(double c) { return std::isfinite(c); }
  static void to_mpfr(mpfr_ptr r, double c, mpfr_rnd_t rnd) { mpfr_set_d(r, c, rnd); }
};

// Round to nearest at 200 bits: 2^-200 relative for every operation, MPFR's exp and log being
// correctly rounded. MPFR underflows only below 2^-(2^30), inside ball_radius::up()'s absolute 2^-1070.
template <>
struct ball_centre<mpfr200> {
  static constexpr double arith = 0x1p-200, exp = 0x1p-200, log = 0x1p-200, sqrt = 0x1p-200,
                          eta = 0;
  static mpfr_srcptr p(const mpfr200& c) { return c.backend().data(); }
  static double mag_up(const mpfr200& c) {
    return mpfr_sgn(p(c)) >= 0 ? mpfr_get_d(p(c), MPFR_RNDU) : -mpfr_get_d(p(c), MPFR_RNDD);
  }
  static double mag_down(const mpfr200& c) {
    return mpfr_sgn(p(c)) >= 0 ? mpfr_get_d(p(c), MPFR_RNDD) : -mpfr_get_d(p(c), MPFR_RNDU);
  }
  static bool is_inf(const mpfr200& c) { return mpfr_inf_p(p(c)) != 0; }
  static bool finite(const mpfr200& c) { return mpfr_number_p(p(c)) != 0; }
  static void to_mpfr(mpfr_ptr r, const mpfr200& c, mpfr_rnd_t rnd) { mpfr_set(r, p(c), rnd); }
};

// Midpoint-radius arithmetic: every real value the kernel's exact evaluation can take lies in
// [c - r, c + r]. Each operation adds the propagated radius of its operands and its own
// rounding error (ball_centre<S>); an operation that cannot bound its result gets r = inf.
template <class S>
struct ball {
  using C = ball_centre<S>;
  S c{};
  double r = 0;

  static ball settle(S c, double prop, double rel) {
    if (!C::finite(c)) return {std::move(c), ball_radius::inf};
    const double m = C::mag_up(c);
    return {std::move(c), ball_radius::up(prop + rel * m + C::eta)};
  }
  bool exact_inf() const { return r == 0 && C::is_inf(c); }

  friend ball operator+(const ball& a, const ball& b) {
    // x + (-inf) is -inf exactly for every finite x: keeps masked attention scores exact.
    auto bounded = [](const ball& x) { return C::finite(x.c) && std::isfinite(x.r); };
    if (a.exact_inf() && (bounded(b) || b.exact_inf())) return {a.c + b.c, 0};
    if (b.exact_inf() && bounded(a)) return {a.c + b.c, 0};
    return settle(a.c + b.c, a.r + b.r, C::arith);
  }
  friend ball operator-(const ball& a) { return {-a.c, a.r}; }
  friend ball operator-(const ball& a, const ball& b) { return a + (-b); }
  friend ball operator*(const ball& a, const ball& b) {
    return settle(a.c * b.c, C::mag_up(a.c) * b.r + C::mag_up(b.c) * a.r + a.r * b.r, C::arith);
  }
  friend ball operator/(const ball& a, const ball& b) {
    S c = a.c / b.c;
    const double den = ball_radius::down(C::mag_down(b.c) - b.r);
    if (!(den > 0)) return {std::move(c), ball_radius::inf};  // the divisor's ball may contain 0
    const double q = ball_radius::up(C::mag_up(c) + C::eta);  // >= |a.c / b.c|
    return settle(std::move(c), ball_radius::up(ball_radius::up(a.r + q * b.r) / den), C::arith);
  }

  // Order of two balls: certain, or undecided (counted in undecided_comparisons). Points
  // (every lifted input) compare exactly, with IEEE's unordered NaN.
  enum ord { less, equal, greater, unordered, undecided };
  static ord order(const ball& a, const ball& b) {
    if (a.r == 0 && b.r == 0)
      return a.c < b.c ? less : a.c > b.c ? greater : a.c == b.c ? equal : unordered;
    const S d = a.c - b.c;
    const double slack = ball_radius::up(a.r + b.r + C::arith * C::mag_up(d) + C::eta);
    if (C::mag_down(d) > slack) return d > S(0) ? greater : less;
    ++undecided_comparisons;
    return undecided;
  }
  friend bool operator>(const ball& a, const ball& b) { return order(a, b) == greater; }
  friend bool operator<(const ball& a, const ball& b) { return order(a, b) == less; }
  friend bool operator>=(const ball& a, const ball& b) {
    const ord o = order(a, b);
    return o == greater || o == equal;
  }
  friend bool operator<=(const ball& a, const ball& b) { return b >= a; }

  // The kernels' running maximum, found by ADL: max is 1-Lipschitz in each argument, so
  // max(a, b) lies within max(a.r, b.r) of max(a.c, b.c) and nothing needs deciding.
  // Kernel NaN rule: a NaN running maximum propagates, a NaN candidate is ignored.
  friend ball max_step(const ball& m, const ball& xi) {
    if (!(m.c == m.c) || !(xi.c == xi.c)) return m;
    return {xi.c > m.c ? xi.c : m.c, std::max(m.r, xi.r)};
  }

  static ball exp(const ball& a) {
    if (a.exact_inf()) return {scalar_traits<S>::exp(a.c), 0};  // exp(-inf) = 0, exp(inf) = inf
    // Far below underflow: every point x <= c + r < -750 has 0 < exp(x) < 2^-1082, so the ball
    // (0, 2^-1074) encloses it (the radius is a double: 2^-1074 is its smallest positive value;
    // the literal 0x1p-1076 written here before rounded to a radius of 0, which did not enclose).
    // Without this, x_i - m in a row near overflow (|c| ~ 1e38, r ~ u |c|) made expm1(r), and so
    // the radius, infinite: those zeros went to the next tier.
    if (a.c < scalar_traits<S>::from_double(0) && ball_radius::down(C::mag_down(a.c) - a.r) > 750)
      return {scalar_traits<S>::from_double(0), std::numeric_limits<double>::denorm_min()};
    S c = scalar_traits<S>::exp(a.c);
    // |exp(x) - exp(a.c)| <= exp(a.c) expm1(a.r) for |x - a.c| <= a.r, and for r <= 1
    // expm1(r) = r + r^2 (1/2! + 1/3! + ...) <= r + r^2 (e - 2) < r + r^2: no libm call on the
    // common path (this was a tenth of the double tier's time).
    const double e = ball_radius::up(C::mag_up(c) + C::eta);
    const double g = a.r <= 1 ? ball_radius::up(a.r + a.r * a.r) : ball_radius::up(std::expm1(a.r));
    return settle(std::move(c), e * g, C::exp);
  }
  static ball log(const ball& a) {
    S c = scalar_traits<S>::log(a.c);
    if (a.r == 0 && a.c == S(0)) return {std::move(c), 0};  // log(0) = -inf exactly
    const double lo = C::mag_down(a.c);
    if (a.c < S(0) || !(lo > a.r)) return {std::move(c), ball_radius::inf};
    // |log(x) - log(a.c)| <= -log(1 - a.r / |a.c|).
    const double rho = ball_radius::up(a.r / ball_radius::down(lo));
    if (!(rho < 1)) return {std::move(c), ball_radius::inf};
    return settle(std::move(c), ball_radius::up(-std::log1p(-rho)), C::log);
  }
  static ball sqrt(const ball& a) {
    S c = scalar_traits<S>::sqrt(a.c);
    if (a.c < S(0)) return {std::move(c), ball_radius::inf};
    if (a.r == 0) return settle(std::move(c), 0, C::sqrt);
    // |sqrt(x) - sqrt(a.c)| = |x - a.c| / (sqrt(x) + sqrt(a.c)) <= a.r / sqrt(a.c - a.r).
    const double den = ball_radius::down(std::sqrt(ball_radius::down(C::mag_down(a.c) - a.r)));
    if (!(den > 0)) return {std::move(c), ball_radius::inf};
    return settle(std::move(c), ball_radius::up(a.r / den), C::sqrt);
  }
};

template <class S>
struct scalar_traits<ball<S>> {
  using B = ball<S>;
  static constexpr format_info format = scalar_traits<S>::format;
  static constexpr double exp_rel = 0, log_rel = 0;  // carried in the radius
  static B exp(const B& x) { return B::exp(x); }
  static B log(const B& x) { return B::log(x); }
  static B sqrt(const B& x) { return B::sqrt(x); }
  static B from_double(double x) { return {scalar_traits<S>::from_double(x), 0}; }
  static double to_double(const B& x) { return scalar_traits<S>::to_double(x.c); }
};

}  // namespace attncheck
