// attncheck: interval scalar with MPFI's semantics: [lo, hi], MPFR endpoints rounded outward.
#pragma once

#include <mpfr.h>

#include <initializer_list>
#include <limits>
#include <utility>

#include "attncheck/scalar/traits.hpp"

namespace attncheck {

// Why not Boost's mpfi_float_backend: it calls libmpfi, which the build does not link (Debian 12
// ships no mpfi.pc). MPFI's arithmetic is itself one MPFR operation per endpoint, rounded down
// for lo and up for hi; that is what this class does, on the MPFR the build already links.
// Every result encloses every real result of the operation on points of the operands; an
// operation with no real result anywhere in the box (log or sqrt of a negative part, a divisor
// containing 0, inf - inf) yields [NaN, NaN], which no caller certifies.
//
// Comparisons. The oracle's inputs are points (lifted exactly from T), so comparisons between
// inputs are exact and decidable. On computed intervals that overlap, a < b is undecidable: the
// comparison answers false and counts itself in undecided_comparisons; a caller that sees the
// count move must not certify anything it computed since (e.g. entropy's p > 0 on an interval
// straddling 0). The row maximum is the exception: max_step below returns the hull maximum
// [max lo, max hi], which encloses max(a, b) for every a, b in the operands, so row_max never
// needs to decide a comparison (and softmax is independent of which maximum is subtracted).
inline thread_local unsigned long undecided_comparisons = 0;

template <int Bits>
class mpfr_interval {
  static_assert(Bits >= 53, "endpoints must hold every double exactly");

 public:
  mpfr_interval() : mpfr_interval(0.0) {}
  explicit mpfr_interval(double v) {
    init();
    mpfr_set_d(lo_, v, MPFR_RNDD);
    mpfr_set_d(hi_, v, MPFR_RNDU);
  }
  mpfr_interval(const mpfr_interval& o) {
    init();
    mpfr_set(lo_, o.lo_, MPFR_RNDD);
    mpfr_set(hi_, o.hi_, MPFR_RNDU);
  }
  mpfr_interval(mpfr_interval&& o) noexcept : mpfr_interval(Blank{}) { swap(o); }
  mpfr_interval& operator=(mpfr_interval o) noexcept {
    swap(o);
    return *this;
  }
  ~mpfr_interval() {
    mpfr_clear(lo_);
    mpfr_clear(hi_);
  }

  mpfr_srcptr lower() const { return lo_; }
  mpfr_srcptr upper() const { return hi_; }
  bool is_nan() const { return mpfr_nan_p(lo_) || mpfr_nan_p(hi_); }

  friend mpfr_interval operator+(const mpfr_interval& a, const mpfr_interval& b) {
    mpfr_interval r(Blank{});
    mpfr_add(r.lo_, a.lo_, b.lo_, MPFR_RNDD);
    mpfr_add(r.hi_, a.hi_, b.hi_, MPFR_RNDU);
    return r.checked();
  }
  friend mpfr_interval operator-(const mpfr_interval& a, const mpfr_interval& b) {
    mpfr_interval r(Blank{});
    mpfr_sub(r.lo_, a.lo_, b.hi_, MPFR_RNDD);
    mpfr_sub(r.hi_, a.hi_, b.lo_, MPFR_RNDU);
    return r.checked();
  }
  friend mpfr_interval operator-(const mpfr_interval& a) {
    mpfr_interval r(Blank{});
    mpfr_neg(r.lo_, a.hi_, MPFR_RNDD);  // exact
    mpfr_neg(r.hi_, a.lo_, MPFR_RNDU);
    return r;
  }
  friend mpfr_interval operator*(const mpfr_interval& a, const mpfr_interval& b) {
    return corners(a, b, mpfr_mul);
  }
  friend mpfr_interval operator/(const mpfr_interval& a, const mpfr_interval& b) {
    if (mpfr_sgn(b.lo_) <= 0 && mpfr_sgn(b.hi_) >= 0) return nan();  // divisor may be 0
    return corners(a, b, mpfr_div);
  }

  // Monotone functions: apply to each endpoint, rounded outward (reached via scalar_traits).
  static mpfr_interval exp(const mpfr_interval& a) { return monotone(a, mpfr_exp); }
  static mpfr_interval log(const mpfr_interval& a) {
    return mpfr_sgn(a.lo_) < 0 ? nan() : monotone(a, mpfr_log);
  }
  static mpfr_interval sqrt(const mpfr_interval& a) {
    return mpfr_sgn(a.lo_) < 0 ? nan() : monotone(a, mpfr_sqrt);
  }

  // Certainly true / certainly false; otherwise counted as undecided and answered false.
  friend bool operator>(const mpfr_interval& a, const mpfr_interval& b) {
    return decide(mpfr_greater_p(a.lo_, b.hi_), mpfr_lessequal_p(a.hi_, b.lo_));
  }
  friend bool operator<(const mpfr_interval& a, const mpfr_interval& b) { return b > a; }
  friend bool operator>=(const mpfr_interval& a, const mpfr_interval& b) {
    return decide(mpfr_greaterequal_p(a.lo_, b.hi_), mpfr_less_p(a.hi_, b.lo_));
  }
  friend bool operator<=(const mpfr_interval& a, const mpfr_interval& b) { return b >= a; }

  // The kernels' running maximum (kernels/softmax.hpp), found by ADL and preferred over the
  // generic template: the hull maximum, with the kernel's NaN rule (a NaN running maximum
  // propagates, a NaN candidate is ignored).
  friend mpfr_interval max_step(mpfr_interval m, mpfr_interval xi) {
    if (m.is_nan() || xi.is_nan()) return m;
    mpfr_max(m.lo_, m.lo_, xi.lo_, MPFR_RNDD);  // exact: same precision
    mpfr_max(m.hi_, m.hi_, xi.hi_, MPFR_RNDU);
    return m;
  }

 private:
  struct Blank {};
  explicit mpfr_interval(Blank) { init(); }
  void init() {
    mpfr_init2(lo_, Bits);
    mpfr_init2(hi_, Bits);
  }
  void swap(mpfr_interval& o) noexcept {
    mpfr_swap(lo_, o.lo_);
    mpfr_swap(hi_, o.hi_);
  }
  static mpfr_interval nan() {
    mpfr_interval r(Blank{});  // mpfr_init2 leaves both endpoints NaN
    return r;
  }
  mpfr_interval checked() {
    if (is_nan()) return nan();
    return std::move(*this);
  }
  static bool decide(bool certainly, bool certainly_not) {
    if (certainly) return true;
    if (!certainly_not) ++undecided_comparisons;
    return false;
  }
  using binary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_srcptr, mpfr_rnd_t);
  using unary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
  // * and /: the extremes over the four endpoint combinations (the operation is monotone in
  // each argument on the box, given the divisor excludes 0), each rounded outward.
  static mpfr_interval corners(const mpfr_interval& a, const mpfr_interval& b, binary op) {
    mpfr_interval r(Blank{});
    mpfr_t t;
    mpfr_init2(t, Bits);
    bool first = true, bad = false;
    for (mpfr_srcptr x : {a.lo_, a.hi_})
      for (mpfr_srcptr y : {b.lo_, b.hi_}) {
        op(t, x, y, MPFR_RNDD);
        bad |= mpfr_nan_p(t) != 0;
        if (first) mpfr_set(r.lo_, t, MPFR_RNDD); else mpfr_min(r.lo_, r.lo_, t, MPFR_RNDD);
        op(t, x, y, MPFR_RNDU);
        bad |= mpfr_nan_p(t) != 0;
        if (first) mpfr_set(r.hi_, t, MPFR_RNDU); else mpfr_max(r.hi_, r.hi_, t, MPFR_RNDU);
        first = false;
      }
    mpfr_clear(t);
    return bad ? nan() : r.checked();
  }
  static mpfr_interval monotone(const mpfr_interval& a, unary f) {
    mpfr_interval r(Blank{});
    f(r.lo_, a.lo_, MPFR_RNDD);
    f(r.hi_, a.hi_, MPFR_RNDU);
    return r.checked();
  }

  mpfr_t lo_, hi_;
};

template <int Bits>
struct scalar_traits<mpfr_interval<Bits>> {
  // MPFR's exponent range (about ±2^30) is treated as unbounded, as for mpfr200.
  static constexpr format_info format = {"mpfi", Bits, -1073741822, 1073741822,
                                         detail::pow2(-Bits), 0.0,
                                         std::numeric_limits<double>::infinity()};
  static constexpr double exp_rel = 0;  // enclosures carry their error in their width
  static constexpr double log_rel = 0;
  using I = mpfr_interval<Bits>;
  static I exp(const I& x) { return I::exp(x); }
  static I log(const I& x) { return I::log(x); }
  static I sqrt(const I& x) { return I::sqrt(x); }
  static I from_double(double x) { return I(x); }
  static double to_double(const I& x) {  // the midpoint, rounded to nearest
    mpfr_t m;
    mpfr_init2(m, Bits + 1);
    mpfr_add(m, x.lower(), x.upper(), MPFR_RNDN);
    const double d = mpfr_get_d(m, MPFR_RNDN) / 2;
    mpfr_clear(m);
    return d;
  }
};

using mpfi128 = mpfr_interval<128>;

}  // namespace attncheck
