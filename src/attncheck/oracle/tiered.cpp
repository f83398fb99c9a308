// attncheck: the tiered oracle's engine: kernels at ball<dd>, ball<mpfr200>, then 256-bit intervals.
#include "attncheck/oracle/tiered.hpp"

#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/log_softmax.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"
#include "attncheck/oracle/ulp.hpp"
#include "attncheck/scalar/double_double.hpp"
#include "attncheck/scalar/mpfi.hpp"
#include "attncheck/scalar/mpfr.hpp"

namespace attncheck::oracle::tiered {

std::string_view tier_name(tier t) {
  switch (t) {
    case tier::dbl: return "double";
    case tier::dd: return "dd";
    case tier::mpfr: return "mpfr";
    case tier::mpfi: return "mpfi";
  }
  return "?";
}

namespace {
thread_local tally* innermost_tally = nullptr;
}  // namespace

tally::tally() : outer_(innermost_tally) { innermost_tally = this; }
tally::~tally() {
  innermost_tally = outer_;
  if (outer_) outer_->counts += counts;
}

namespace {

constexpr double inf = std::numeric_limits<double>::infinity();
// Tier 3 runs at 256 bits, then once more at 2048 bits for what is still open: results within
// 2^-250 of a rounding boundary are common in log_softmax (x_i - m a tie, minus a log(1 + tiny)).
using mpfi256 = mpfr_interval<256>;
using mpfi2048 = mpfr_interval<2048>;

// Precision of the MPFR endpoints an enclosure is copied to (outward, so any is sound).
template <class S>
constexpr int enclosure_bits = 256;
template <int Bits>
constexpr int enclosure_bits<mpfr_interval<Bits>> = Bits < 256 ? 256 : Bits;

// Radii are doubles computed in round-to-nearest. up() turns the result of at most 8 such
// operations on non-negative terms into a certain upper bound (8 * 2^-53 < 2^-48 relative;
// 2^-1070 absolute covers underflow); down() is the matching lower bound.
double up(double x) { return x * (1 + 0x1p-48) + 0x1p-1070; }
double down(double x) { return std::max(0.0, x * (1 - 0x1p-48) - 0x1p-1070); }

// What a ball needs from its centre type: per-operation error bounds (relative, plus an
// absolute eta where the type underflows) and certain bounds on |c| as doubles.
template <class S>
struct centre;

template <>
struct centre<dd> {
  using tr = scalar_traits<dd>;
  static constexpr double arith = tr::arith_rel, exp = tr::exp_rel, log = tr::log_rel,
                          sqrt = tr::sqrt_rel, eta = tr::eta;
  static double mag_up(const dd& c) { return up(std::fabs(c.hi)); }  // |lo| <= ulp(hi) / 2
  static double mag_down(const dd& c) { return down(std::fabs(c.hi)); }
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
struct centre<double> {
  static constexpr double arith = 0x1p-53, exp = detail::libm_exp_rel,
                          log = detail::libm_log_rel, sqrt = 0x1p-53, eta = 0x1p-1072;
  static double mag_up(double c) { return up(std::fabs(c)); }
  static double mag_down(double c) { return down(std::fabs(c)); }
  static bool is_inf(double c) { return std::isinf(c); }
  static bool finite(double c) { return std::isfinite(c); }
  static void to_mpfr(mpfr_ptr r, double c, mpfr_rnd_t rnd) { mpfr_set_d(r, c, rnd); }
};

// Round to nearest at 200 bits: 2^-200 relative for every operation, MPFR's exp and log being
// correctly rounded. MPFR underflows only below 2^-(2^30), inside up()'s absolute 2^-1070.
template <>
struct centre<mpfr200> {
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
// rounding error (centre<S>); an operation that cannot bound its result gets r = inf.
template <class S>
struct ball {
  using C = centre<S>;
  S c{};
  double r = 0;

  static ball settle(S c, double prop, double rel) {
    if (!C::finite(c)) return {std::move(c), inf};
    const double m = C::mag_up(c);
    return {std::move(c), up(prop + rel * m + C::eta)};
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
    const double den = down(C::mag_down(b.c) - b.r);
    if (!(den > 0)) return {std::move(c), inf};  // the divisor's ball may contain 0
    const double q = up(C::mag_up(c) + C::eta);  // >= |a.c / b.c|
    return settle(std::move(c), up(up(a.r + q * b.r) / den), C::arith);
  }

  // Order of two balls: certain, or undecided (counted in undecided_comparisons). Points
  // (every lifted input) compare exactly, with IEEE's unordered NaN.
  enum ord { less, equal, greater, unordered, undecided };
  static ord order(const ball& a, const ball& b) {
    if (a.r == 0 && b.r == 0)
      return a.c < b.c ? less : a.c > b.c ? greater : a.c == b.c ? equal : unordered;
    const S d = a.c - b.c;
    const double slack = up(a.r + b.r + C::arith * C::mag_up(d) + C::eta);
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
    if (a.c < scalar_traits<S>::from_double(0) && down(C::mag_down(a.c) - a.r) > 750)
      return {scalar_traits<S>::from_double(0), std::numeric_limits<double>::denorm_min()};
    S c = scalar_traits<S>::exp(a.c);
    // |exp(x) - exp(a.c)| <= exp(a.c) expm1(a.r) for |x - a.c| <= a.r, and for r <= 1
    // expm1(r) = r + r^2 (1/2! + 1/3! + ...) <= r + r^2 (e - 2) < r + r^2: no libm call on the
    // common path (this was a tenth of the double tier's time).
    const double e = up(C::mag_up(c) + C::eta);
    const double g = a.r <= 1 ? up(a.r + a.r * a.r) : up(std::expm1(a.r));
    return settle(std::move(c), e * g, C::exp);
  }
  static ball log(const ball& a) {
    S c = scalar_traits<S>::log(a.c);
    if (a.r == 0 && a.c == S(0)) return {std::move(c), 0};  // log(0) = -inf exactly
    const double lo = C::mag_down(a.c);
    if (a.c < S(0) || !(lo > a.r)) return {std::move(c), inf};
    // |log(x) - log(a.c)| <= -log(1 - a.r / |a.c|).
    const double rho = up(a.r / down(lo));
    if (!(rho < 1)) return {std::move(c), inf};
    return settle(std::move(c), up(-std::log1p(-rho)), C::log);
  }
  static ball sqrt(const ball& a) {
    S c = scalar_traits<S>::sqrt(a.c);
    if (a.c < S(0)) return {std::move(c), inf};
    if (a.r == 0) return settle(std::move(c), 0, C::sqrt);
    // |sqrt(x) - sqrt(a.c)| = |x - a.c| / (sqrt(x) + sqrt(a.c)) <= a.r / sqrt(a.c - a.r).
    const double den = down(std::sqrt(down(C::mag_down(a.c) - a.r)));
    if (!(den > 0)) return {std::move(c), inf};
    return settle(std::move(c), up(a.r / den), C::sqrt);
  }
};

}  // namespace
}  // namespace attncheck::oracle::tiered

namespace attncheck {
template <class S>
struct scalar_traits<oracle::tiered::ball<S>> {
  using B = oracle::tiered::ball<S>;
  static constexpr format_info format = scalar_traits<S>::format;
  static constexpr double exp_rel = 0, log_rel = 0;  // carried in the radius
  static B exp(const B& x) { return B::exp(x); }
  static B log(const B& x) { return B::log(x); }
  static B sqrt(const B& x) { return B::sqrt(x); }
  static B from_double(double x) { return {scalar_traits<S>::from_double(x), 0}; }
  static double to_double(const B& x) { return scalar_traits<S>::to_double(x.c); }
};
}  // namespace attncheck

namespace attncheck::oracle::tiered {
namespace {

struct mp {  // one MPFR temporary
  mpfr_t v;
  explicit mp(int bits) { mpfr_init2(v, bits); }
  ~mp() { mpfr_clear(v); }
  mp(const mp&) = delete;
  mp& operator=(const mp&) = delete;
};

// The enclosure [lo, hi] of one output, its centre, and its half-width (an upper bound).
template <class S>
double enclose(const ball<S>& b, mp& lo, mp& hi, mp& mid) {
  centre<S>::to_mpfr(lo.v, b.c, MPFR_RNDD);
  mpfr_sub_d(lo.v, lo.v, b.r, MPFR_RNDD);
  centre<S>::to_mpfr(hi.v, b.c, MPFR_RNDU);
  mpfr_add_d(hi.v, hi.v, b.r, MPFR_RNDU);
  centre<S>::to_mpfr(mid.v, b.c, MPFR_RNDN);
  return b.r;
}
template <int Bits>
double enclose(const mpfr_interval<Bits>& x, mp& lo, mp& hi, mp& mid) {
  mpfr_set(lo.v, x.lower(), MPFR_RNDD);
  mpfr_set(hi.v, x.upper(), MPFR_RNDU);
  mpfr_add(mid.v, lo.v, hi.v, MPFR_RNDN);
  mpfr_div_2ui(mid.v, mid.v, 1, MPFR_RNDN);
  mp w(Bits);
  mpfr_sub(w.v, hi.v, lo.v, MPFR_RNDU);
  mpfr_div_2ui(w.v, w.v, 1, MPFR_RNDU);
  const double half = mpfr_get_d(w.v, MPFR_RNDU);
  return half;
}

// The certification rule: certified iff both ends of the enclosure round to the same T value
// (+0 and -0 count as the same; NaN never certifies). The reported value rounds the centre,
// which lies inside the enclosure, so for a certified element it is that same value. A tier
// whose centre is NaN keeps an earlier tier's guess (has_guess).
void judge(element<double>& e, mp& lo, mp& hi, mp& mid, mp& tail, double half,
           const format_info& f, tier t, bool trusted, bool has_guess) {
  const double rl = round_to_format(lo.v, f), rh = round_to_format(hi.v, f);
  e.certified = trusted && rl == rh;
  if (!e.certified && mpfr_nan_p(mid.v) && has_guess) return;
  e.decided_by = t;
  e.rounded = e.certified && rl != 0 ? rl : round_to_format(mid.v, f);
  e.exact = mpfr_get_d(mid.v, MPFR_RNDN);
  e.exact_tail = 0;
  e.exact_wide = std::numeric_limits<long double>::quiet_NaN();
  if (std::isfinite(e.exact)) {
    mpfr_sub_d(tail.v, mid.v, e.exact, MPFR_RNDN);
    e.exact_tail = mpfr_get_d(tail.v, MPFR_RNDN);
  } else if (mpfr_number_p(mid.v)) {
    e.exact_wide = mpfr_get_ld(mid.v, MPFR_RNDN);  // an f64 result beyond double's range
  }
  e.radius = trusted && !mpfr_nan_p(mid.v) ? half : inf;
}

// The same rule for the double and dd tiers with T narrower than double, in double arithmetic:
// MPFR certification cost five times the dd evaluation itself. For p < 53, T's values and the
// midpoints between neighbours are doubles, and every point of the enclosure lies within
// R = |tail| + r of the centre's leading double c (tail: dd's lo, 0 for a double centre). With
// t = RN_T(c), the enclosure rounds to t throughout if it lies strictly between the midpoints
// below and above t (the boundary itself is left to the next tier: ties need the exact value).
// Each difference is one rounding, bounded with down()/up().
inline double lead(double c) { return c; }
inline double lead(const dd& c) { return c.hi; }
inline double tail_of(double) { return 0; }
inline double tail_of(const dd& c) { return c.lo; }

// 2^k for a normal exponent k, from its bits (no libm call).
inline double pow2i(int k) {
  const std::uint64_t bits = static_cast<std::uint64_t>(k + 1023) << 52;
  double x;
  std::memcpy(&x, &bits, 8);
  return x;
}
inline int binade(double x) {  // floor(log2 |x|) for a normal double x
  std::uint64_t bits;
  std::memcpy(&bits, &x, 8);
  return static_cast<int>((bits >> 52) & 0x7ff) - 1023;
}

// RN_T(c) and the midpoints to its neighbours, with bit operations, where c lies in T's normal
// range at least one binade above its smallest normal (so the binade below t is normal too) and
// t is finite; false elsewhere (the caller then uses ulp_of). Same values as the general path:
// the spacing at |t| = 2^k is 2^(k-p+1) away from zero and, if t is a power of two, half that
// toward zero. ulp_of, nextafter and their scalbn were a third of the double tier's time.
inline bool grid_near(double c, const format_info& f, double& t, double& below, double& above) {
  const double a = std::fabs(c);
  if (!(a >= pow2i(f.min_exponent + 1) && a <= f.max_finite)) return false;
  const double q = pow2i(binade(c) - f.precision + 1);
  t = std::nearbyint(c / q) * q;  // c / q exact (a power of two); ties to even
  if (std::fabs(t) > f.max_finite) return false;
  const int k = binade(t);
  const double away = pow2i(k - f.precision), toward = std::fabs(t) == pow2i(k) ? away / 2 : away;
  above = t + (t > 0 ? away : toward);
  below = t - (t > 0 ? toward : away);
  return true;
}

template <class S>
void judge_fast(element<double>& e, const ball<S>& b, const format_info& f, tier t,
                bool trusted, bool has_guess) {
  const double c = lead(b.c);
  if (c != c && has_guess) return;  // keep the earlier tier's guess (uncertified, like judge())
  e.decided_by = t;
  e.exact = c;
  e.exact_tail = std::isfinite(c) ? tail_of(b.c) : 0;
  e.certified = false;
  e.radius = trusted && std::isfinite(b.r) && c == c ? b.r : inf;
  if (!std::isfinite(c) || std::fabs(c) > 2 * f.max_finite) {  // out of T's range: the next tier
    e.rounded = c;
    return;
  }
  double r, below, above;
  if (!grid_near(c, f, r, below, above)) {
    const double q = ulp_of(c, f);
    r = std::nearbyint(c / q) * q;  // c / q exact (a power of two); ties to even
    if (std::fabs(r) > f.max_finite) {
      e.rounded = std::copysign(inf, c);
      return;
    }
    above = r + ulp_of(std::nextafter(r, inf), f) / 2;
    below = r - ulp_of(std::nextafter(r, -inf), f) / 2;
  }
  e.rounded = r;
  if (!trusted || !std::isfinite(b.r)) return;
  const double reach = up(std::fabs(e.exact_tail) + b.r);
  e.certified = down(c - below) > reach && down(above - c) > reach;
}

template <class S>
struct as {
  using type = S;
};

// Run the tiers in order; each re-evaluates the whole kernel (outputs depend on whole rows)
// and judges only the elements still uncertified. A tier during which a comparison could not
// be decided certifies nothing.
template <class Eval>
detail::raw run(const format_info& f, const options& o, Eval&& eval) {
  detail::raw res;
  std::vector<char> done;
  std::size_t open = 0;
  bool first = true;
  auto attempt = [&](tier t, auto tag) {
    using S = typename decltype(tag)::type;
    const unsigned long before = undecided_comparisons;
    const auto out = eval(tag);
    const bool trusted = undecided_comparisons == before;
    if (res.values.empty() && !out.empty()) {
      res.values.resize(out.size());
      done.assign(out.size(), 0);
      open = out.size();
    }
    auto settle = [&](std::size_t i) {
      if (!res.values[i].certified) return;
      done[i] = 1;
      --open;
      ++(t == tier::dbl  ? res.counts.dbl
         : t == tier::dd ? res.counts.dd
         : t == tier::mpfr ? res.counts.mpfr
                           : res.counts.mpfi);
    };
    if constexpr (std::is_same_v<S, ball<double>> || std::is_same_v<S, ball<dd>>) {
      if (f.precision < 53) {
        for (std::size_t i = 0; i < out.size(); ++i) {
          if (done[i]) continue;
          judge_fast(res.values[i], out[i], f, t, trusted, !first);
          settle(i);
        }
        first = false;
        return;
      }
    }
    constexpr int bits = enclosure_bits<S>;
    mp lo(bits), hi(bits), mid(bits), tail(bits);
    for (std::size_t i = 0; i < out.size(); ++i) {
      if (done[i]) continue;
      const double half = enclose(out[i], lo, hi, mid);
      judge(res.values[i], lo, hi, mid, tail, half, f, t, trusted, !first);
      settle(i);
    }
    first = false;
  };
  // Tier 0 only for targets narrower than double: a double centre cannot round to f64.
  auto wanted = [&](tier t) { return t >= o.first && (res.values.empty() || open > 0); };
  if (f.precision < 53 && wanted(tier::dbl)) attempt(tier::dbl, as<ball<double>>{});
  if ((f.precision < 53 || o.dd_for_f64) && wanted(tier::dd)) attempt(tier::dd, as<ball<dd>>{});
  if (wanted(tier::mpfr)) attempt(tier::mpfr, as<ball<mpfr200>>{});
  if (res.values.empty() || open > 0) attempt(tier::mpfi, as<mpfi256>{});
  if (open > 0) attempt(tier::mpfi, as<mpfi2048>{});
  res.counts.uncertified = open;
  if (innermost_tally) innermost_tally->counts += res.counts;
  return res;
}

template <class S>
std::vector<S> lift(const detail::vec& x) {
  std::vector<S> r;
  r.reserve(x.size());
  for (double v : x) r.push_back(scalar_traits<S>::from_double(v));
  return r;
}

void expect(bool ok, const char* what) {
  if (!ok) throw std::invalid_argument(std::string("tiered oracle: ") + what);
}

}  // namespace

namespace detail {

std::string decimal_dd(double hi, double lo, int digits) {
  if (!std::isfinite(hi)) return std::isnan(hi) ? "nan" : hi < 0 ? "-inf" : "inf";
  mp x(2200);  // hi + lo exactly: two doubles span at most 2^1024 / 2^-1074
  mpfr_set_d(x.v, hi, MPFR_RNDN);
  mpfr_add_d(x.v, x.v, lo, MPFR_RNDN);
  return decimal(x.v, digits);
}

raw softmax(const vec& x, const format_info& f, const options& o) {
  return run(f, o, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const auto X = lift<S>(x);
    std::vector<S> Y(X.size());
    kernels::softmax(X.data(), Y.data(), X.size());
    return Y;
  });
}

raw log_softmax(const vec& x, const format_info& f, const options& o) {
  return run(f, o, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const auto X = lift<S>(x);
    std::vector<S> Y(X.size());
    kernels::log_softmax(X.data(), Y.data(), X.size());
    return Y;
  });
}

raw scores(const vec& q, const vec& k, std::size_t n, std::size_t m, std::size_t d,
           const format_info& f, const options& o) {
  expect(q.size() == n * d && k.size() == m * d, "scores: q must be n x d and k m x d");
  return run(f, o, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const auto Q = lift<S>(q), K = lift<S>(k);
    std::vector<S> Y(n * m);
    kernels::scores(Q.data(), K.data(), n, m, d, Y.data());
    return Y;
  });
}

raw rmsnorm(const vec& x, const vec& w, double eps, const format_info& f, const options& o) {
  expect(w.size() == x.size(), "rmsnorm: w must have x's length");
  return run(f, o, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const auto X = lift<S>(x), W = lift<S>(w);
    std::vector<S> Y(X.size());
    kernels::rmsnorm(X.data(), W.data(), X.size(), scalar_traits<S>::from_double(eps), Y.data());
    return Y;
  });
}

raw entropy(const vec& p, const format_info& f, const options& o) {
  return run(f, o, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const auto P = lift<S>(p);
    std::vector<S> Y;
    Y.push_back(kernels::entropy(P.data(), P.size()));
    return Y;
  });
}

raw softmax_jvp(const vec& x, const vec& dx, const format_info& f, const options& o) {
  expect(dx.size() == x.size(), "softmax_jvp: dx must have x's length");
  return run(f, o, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const auto X = lift<S>(x), DX = lift<S>(dx);
    std::vector<S> Y(X.size());
    kernels::softmax_jvp(X.data(), DX.data(), X.size(), Y.data());
    return Y;
  });
}

raw attention(const vec& q, const vec& k, const vec& v, std::size_t n, std::size_t m,
              std::size_t d, std::size_t dv, bool causal, const format_info& f,
              const options& o) {
  expect(q.size() == n * d && k.size() == m * d && v.size() == m * dv,
         "attention: q must be n x d, k m x d and v m x dv");
  return run(f, o, [&](auto tag) {
    using S = typename decltype(tag)::type;
    const auto Q = lift<S>(q), K = lift<S>(k), V = lift<S>(v);
    std::vector<S> Y(n * dv);
    kernels::attention(Q.data(), K.data(), V.data(), n, m, d, dv, causal, Y.data());
    return Y;
  });
}

}  // namespace detail
}  // namespace attncheck::oracle::tiered
