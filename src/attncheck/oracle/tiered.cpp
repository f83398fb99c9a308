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
#include "attncheck/scalar/ball.hpp"
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

using ball_radius::down;
using ball_radius::up;

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
  ball_centre<S>::to_mpfr(lo.v, b.c, MPFR_RNDD);
  mpfr_sub_d(lo.v, lo.v, b.r, MPFR_RNDD);
  ball_centre<S>::to_mpfr(hi.v, b.c, MPFR_RNDU);
  mpfr_add_d(hi.v, hi.v, b.r, MPFR_RNDU);
  ball_centre<S>::to_mpfr(mid.v, b.c, MPFR_RNDN);
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
