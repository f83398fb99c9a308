// attncheck: RapidCheck generators for scalars and rows that reach the hard cases of each format.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::gen {

// RapidCheck's own float generator never yields -0, subnormals, values near overflow or ties,
// so values are built here from the format's table and then rounded into T (round to nearest).
// Every generator returns finite values of T; non-finite inputs have their own generators.

// Debian's RapidCheck scales gen::inRange, gen::container and gen::arbitrary<integer> with the
// test size s, which runs from 0 to 100 over a run: inRange(a, b) draws from [a, a + (b - a)·s/100]
// and shrinks towards a. A generator built on them reaches its stated range only in the last
// cases. Every generator here draws from its full stated range at every size (uniform_int), so
// what its comment says is what it does; tests/generators_test.cpp measures it.

// An integer uniform in [lo, hi] whatever the test size, shrinking towards `simplest`. The modulo
// favours no value by more than a factor 1 + (hi - lo + 1)/2^64 (at most 1 + 2^-11 here).
template <class I>
rc::Gen<I> uniform_int(I lo, I hi, I simplest) {
  return [=](const rc::Random& random, int /*size: ignored on purpose*/) {
    const std::uint64_t span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo) + 1;
    const std::uint64_t bits = rc::Random(random).next();
    const I v = static_cast<I>(static_cast<std::uint64_t>(lo) + (span == 0 ? bits : bits % span));
    return rc::shrinkable::shrinkRecur(v, [simplest](I x) { return rc::shrink::towards<I>(x, simplest); });
  };
}
template <class I>
rc::Gen<I> uniform_int(I lo, I hi) {
  return uniform_int<I>(lo, hi, lo);
}

// Uniform in [-1, 1] with 2^-52 resolution (shrinks towards 0).
inline rc::Gen<double> unit() {
  constexpr std::int64_t one = std::int64_t{1} << 52;
  return rc::gen::map(uniform_int<std::int64_t>(-one, one, 0), [](std::int64_t v) { return std::ldexp(static_cast<double>(v), -52); });
}

// Uniform in [lo, hi] (2^-53 of the width resolution), shrinking towards the middle.
inline rc::Gen<double> uniform_real(double lo, double hi) {
  return rc::gen::map(unit(), [lo, hi](double u) { return std::clamp((lo + hi) / 2 + (hi - lo) / 2 * u, lo, hi); });
}

// A finite value of format f: mostly moderate, with weight on ±0, subnormals, small integers
// (ties), powers of ten across the range and values within a factor 2 of overflow.
inline rc::Gen<double> value(const format_info& f, double sigma) {
  const double sub_max = static_cast<double>((std::int64_t{1} << (f.precision - 1)) - 1);
  return rc::gen::weightedOneOf<double>({
      {50, rc::gen::map(unit(), [sigma](double u) { return sigma * u; })},
      {10, rc::gen::map(uniform_int(-4, 4, 0), [](int i) { return static_cast<double>(i); })},
      {4, rc::gen::element(0.0, -0.0)},
      {4, rc::gen::map(rc::gen::pair(uniform_int<std::int64_t>(1, static_cast<std::int64_t>(sub_max)),
                                     rc::gen::arbitrary<bool>()),
                       [f](std::pair<std::int64_t, bool> kv) {
                         const double v = static_cast<double>(kv.first) * f.denorm_min;
                         return kv.second ? -v : v;
                       })},
      {6, rc::gen::map(rc::gen::pair(unit(), uniform_int(-6, 6, 0)),
                       [f](std::pair<double, int> ue) {
                         const double v = ue.first * std::pow(10.0, ue.second);
                         return std::abs(v) < f.max_finite ? v : std::copysign(f.max_finite, v);
                       })},
      {4, rc::gen::map(unit(), [f](double u) { return f.max_finite * (u >= 0 ? 0.5 + 0.5 * u : -0.5 + 0.5 * u); })},
  });
}

// Like value(), but every magnitude stays within sigma·10^0..sigma (no values near overflow): for
// inputs whose products or squares must stay finite (dot products, RMSNorm, gains).
inline rc::Gen<double> moderate_value(const format_info& f, double sigma) {
  const double sub_max = static_cast<double>((std::int64_t{1} << (f.precision - 1)) - 1);
  return rc::gen::weightedOneOf<double>({
      {60, rc::gen::map(unit(), [sigma](double u) { return sigma * u; })},
      {10, rc::gen::map(uniform_int(-4, 4, 0), [sigma](int i) { return std::min(sigma, 4.0) * i / 4; })},
      {4, rc::gen::element(0.0, -0.0)},
      {4, rc::gen::map(uniform_int<std::int64_t>(1, static_cast<std::int64_t>(sub_max)),
                       [f](std::int64_t k) { return static_cast<double>(k) * f.denorm_min; })},
      {6, rc::gen::map(rc::gen::pair(unit(), uniform_int(-8, 0, 0)),
                       [sigma](std::pair<double, int> ue) { return sigma * ue.first * std::pow(10.0, ue.second); })},
  });
}

template <class T>
T to(double v) {
  T t = scalar_traits<T>::from_double(v);
  // Rounding a finite value near max_finite can overflow in narrow formats: clamp it; NaN and
  // infinities asked for on purpose pass through.
  if (std::isfinite(v) && !std::isfinite(to_double(t))) t = scalar_traits<T>::from_double(std::copysign(format_of<T>.max_finite, v));
  return t;
}

template <class T>
std::vector<T> to_row(const std::vector<double>& v) {
  std::vector<T> r;
  r.reserve(v.size());
  for (double x : v) r.push_back(to<T>(x));
  return r;
}

// n elements drawn from g, n uniform in [lo, hi] (shrinks towards short rows).
inline rc::Gen<std::vector<double>> sized_row(int lo, int hi, rc::Gen<double> g) {
  return rc::gen::mapcat(uniform_int(lo, hi), [g](int n) {
    return rc::gen::container<std::vector<double>>(static_cast<std::size_t>(n), g);
  });
}

// Rows holding values near -max beside values near +max (and up to 14 more): x_i - max x
// overflows, and log_softmax's exact result lies beyond the format's range (about -1.5 max for
// [-max, max/2]), where a correct kernel returns its rounding, -inf.
inline rc::Gen<std::vector<double>> mixed_extremes(const format_info& f) {
  const auto low = rc::gen::map(unit(), [f](double u) { return -f.max_finite * (0.75 + 0.25 * std::abs(u)); });
  const auto high = rc::gen::map(unit(), [f](double u) { return f.max_finite * (0.5 + 0.25 * u); });
  const auto rest = sized_row(0, 14, rc::gen::weightedOneOf<double>({{1, low}, {1, high}, {1, value(f, 8)}}));
  return rc::gen::map(rc::gen::pair(rc::gen::pair(low, high), rest), [](std::pair<std::pair<double, double>, std::vector<double>> lhr) {
    std::vector<double> v{lhr.first.first};  // one entry near -max first, one near +max last
    v.insert(v.end(), lhr.second.begin(), lhr.second.end());
    v.push_back(lhr.first.second);
    return v;
  });
}

// Rows where subtracting the maximum changes the result (FALSIFY-ASCL-004, max subtraction):
// exp(max x) overflows (max x > ln max_finite) or underflows into subnormals or zero
// (max x < ln min_normal) unshifted, while exp(x_i - max x) = exp(0) = 1 at the maximum does not.
// The thresholds are those of the arithmetic format a (where exp is computed: f32 for f16@f32),
// the magnitudes at most the storage format f's max_finite.
// The magnitude of the maximum is drawn from every decade the format has, not only near overflow:
// a bucket uniformly among max_subtraction_buckets(f) (those the format reaches), a side (overflow
// or underflow) uniformly among those reaching the bucket, then |max| log-uniform in the bucket's
// part of that side's range, which starts 1 % beyond the threshold (ln max_finite, ln min_normal)
// so that rounding into the format keeps the row on its side. The first entry is the maximum; the
// others (0 to 31 more) lie below it by gaps uniform in [0, G], G in {1, 10, 100}, clamped at
// -max_finite (so a huge maximum gives a row of equal entries, whose softmax is 1/n).
struct MagnitudeBucket {
  std::string_view name;  // the coverage region (gen/regions.hpp: max_subtraction_regions)
  double lo, hi;          // |max| in (lo, hi]
};
inline std::vector<MagnitudeBucket> max_subtraction_buckets(const format_info& f, const format_info& a) {
  const double low = std::min(std::log(a.max_finite), -std::log(std::ldexp(1.0, a.min_exponent)));
  const std::vector<MagnitudeBucket> all = {{"max subtraction matters, |max| <= 1e3", 0, 1e3},
                                           {"max subtraction matters, |max| in (1e3, 1e6]", 1e3, 1e6},
                                           {"max subtraction matters, |max| in (1e6, 1e12]", 1e6, 1e12},
                                           {"max subtraction matters, |max| in (1e12, 1e24]", 1e12, 1e24},
                                           {"max subtraction matters, |max| > 1e24", 1e24, std::numeric_limits<double>::infinity()}};
  std::vector<MagnitudeBucket> r;
  for (const MagnitudeBucket& b : all)
    if (b.lo < f.max_finite && b.hi > low) r.push_back(b);
  return r;
}

inline rc::Gen<std::vector<double>> max_subtraction_row(const format_info& f, const format_info& a) {
  const auto buckets = max_subtraction_buckets(f, a);
  // |max| ranges of the two sides: overflow (max > 0) and underflow (max < 0).
  const double over_lo = 1.01 * std::log(a.max_finite), under_lo = -1.01 * std::log(std::ldexp(1.0, a.min_exponent));
  return rc::gen::mapcat(rc::gen::noShrink(uniform_int<std::size_t>(0, buckets.size() - 1)), [f, buckets, over_lo, under_lo](std::size_t bi) {
    const MagnitudeBucket b = buckets[bi];
    std::vector<std::pair<double, double>> sides;  // (sign, lower end of |max|) of the sides reaching the bucket
    for (const auto& [sign, lo] : {std::pair{1.0, over_lo}, std::pair{-1.0, under_lo}})
      if (std::max(lo, b.lo) < std::min(b.hi, f.max_finite)) sides.push_back({sign, lo});
    const auto magnitude = rc::gen::mapcat(uniform_int<std::size_t>(0, sides.size() - 1), [f, b, sides](std::size_t si) {
      const double lo = std::max(sides[si].second, b.lo), hi = std::min(b.hi, f.max_finite), sign = sides[si].first;
      return rc::gen::map(uniform_real(std::log(lo), std::log(hi)), [sign, lo, hi](double e) { return sign * std::clamp(std::exp(e), lo, hi); });
    });
    const auto gaps = rc::gen::mapcat(rc::gen::element(1.0, 10.0, 100.0), [](double g) {
      return sized_row(0, 31, rc::gen::map(unit(), [g](double u) { return g * std::abs(u); }));
    });
    return rc::gen::map(rc::gen::pair(magnitude, gaps), [f](std::pair<double, std::vector<double>> mg) {
      std::vector<double> x{mg.first};
      for (double g : mg.second) x.push_back(std::max(mg.first - g, -f.max_finite));
      return x;
    });
  });
}

// Rows where the shift matters at a moderate maximum (FALSIFY-ASCL-004, the third of its rows): the
// maximum uniform in [-60, -4], the other entries (1 to 31) uniform in [max + ln min_normal + 1,
// min(max, ln min_normal - 1)], ln min_normal of the arithmetic format a (-87.3 for f32 and
// bf16@f32, -9.7 for f16). exp(x_i) unshifted is subnormal there (a few significant bits, or 0)
// while exp(x_i - max) is normal: only the shifted formula gets these entries right, and their
// weights are normal numbers in f32 and bf16. max_subtraction_row's maxima sit beyond exp's range
// and row()'s negative rows spread by about 17, so neither catches a kernel that skips the shift
// while |max| is moderate (below 50, say; issue 49). The margins of 1 keep each entry on its side
// when rounded into a 16-bit format (spacing at most 1 below 256).
inline rc::Gen<std::vector<double>> shift_region_row(const format_info& a) {
  const double ln_mn = std::log(std::ldexp(1.0, a.min_exponent));
  return rc::gen::mapcat(uniform_real(-60, -4), [ln_mn](double top) {
    const double lo = top + ln_mn + 1, hi = std::min(top, ln_mn - 1);
    return rc::gen::map(sized_row(1, 31, rc::gen::map(unit(), [lo, hi](double u) { return lo + (hi - lo) * std::abs(u); })),
                        [top](std::vector<double> rest) {
                          rest.insert(rest.begin(), top);
                          return rest;
                        });
  });
}

// One kind of score row that row() draws, with its weight.
struct RowBucket {
  std::string_view name;
  std::size_t weight;
  rc::Gen<std::vector<double>> gen;
};

// The buckets of row(): random values, constant rows, ties, single entries, long rows
// (257..max_long, weight 0 when max_long < 257), rows whose every entry is very negative, rows
// whose maximum lies in [-104, -5], rows near overflow, nearly uniform rows (spread at most 1),
// wide Gaussian-like spreads (σ = 10 and σ = 1e4). Only long rows and constant rows of 257..299
// entries are longer than 256, and neither when max_long < 257. gen/regions.hpp names the regions
// each drawn row reaches.
inline std::vector<RowBucket> row_buckets(const format_info& f, std::size_t max_long = 4096) {
  using V = std::vector<double>;
  const auto sized = sized_row;
  const double big = std::min(f.max_finite * 0.5, 1e30);
  const auto spread = [](double sigma) {  // uniform with standard deviation sigma
    return rc::gen::map(unit(), [sigma](double u) { return sigma * 1.7320508 * u; });
  };
  return {
      {"values", 30, sized(1, 24, value(f, 8))},
      {"constant", 8, rc::gen::mapcat(rc::gen::pair(uniform_int(1, max_long >= 257 ? 299 : static_cast<int>(std::max<std::size_t>(max_long, 1))), value(f, 50)),
                                      [](std::pair<int, double> nc) { return rc::gen::just(V(static_cast<std::size_t>(nc.first), nc.second)); })},
      {"ties", 8, sized(2, 40, rc::gen::element(-1.0, 0.0, 2.0))},
      {"single", 6, rc::gen::map(value(f, 100), [](double c) { return V{c}; })},
      {"long", max_long >= 257 ? 4u : 0u, sized(257, static_cast<int>(std::max<std::size_t>(max_long, 257)), spread(10))},
      {"very negative", 8, rc::gen::mapcat(rc::gen::element(-100.0, -1e4, -big, -f.max_finite),
                                           [f, sized](double base) {
                                             return sized(1, 30, rc::gen::map(unit(), [base, f](double u) {
                                               const double v = base * (1 + 0.25 * std::abs(u));
                                               return std::max(v, -f.max_finite);
                                             }));
                                           })},
      // The row's maximum is moved into [-104, -5]: exp(x_i) alone is subnormal or zero there at
      // f16 (below e^-9.7) and, near -104, at bf16 and f32 (below e^-87.3), while exp(x_i - max)
      // is not: the rows that catch a kernel skipping its max subtraction. -104 and -5 are exact
      // in every format, so rounding into T keeps the maximum in the interval.
      {"negative max", 8, rc::gen::map(rc::gen::pair(sized(1, 64, spread(10)), uniform_real(-104, -5)),
                                       [](std::pair<V, double> rt) {
                                         const double top = *std::max_element(rt.first.begin(), rt.first.end());
                                         for (double& v : rt.first) v = v - top + rt.second;
                                         return rt.first;
                                       })},
      {"near overflow", 8, sized(1, 30, rc::gen::map(unit(), [f](double u) { return f.max_finite * (0.75 + 0.25 * u); }))},
      // Nearly uniform rows: a centre in [-8, 8] and entries within h <= 1/2 of it, so the softmax
      // is close to 1/n everywhere (the spread (0, 1] region; random rows rarely land there).
      {"narrow", 8, rc::gen::mapcat(rc::gen::pair(uniform_real(-8, 8), uniform_real(0, 0.5)),
                                    [sized](std::pair<double, double> ch) {
                                      return sized(2, 64, rc::gen::map(unit(), [ch](double u) { return ch.first + ch.second * u; }));
                                    })},
      {"sigma 10", 8, sized(2, 128, spread(10))},
      {"sigma 1e4", 4, sized(2, 64, spread(1e4))},
      {"mixed extremes", 4, mixed_extremes(f)},
  };
}

// A row of row() with the index of the bucket that drew it. The bucket is drawn at its weight
// whatever the test size and is not shrunk (a counterexample stays in its bucket, as with
// gen::weightedOneOf); the row shrinks within its bucket.
inline rc::Gen<std::pair<std::size_t, std::vector<double>>> tagged_row(std::vector<RowBucket> buckets) {
  std::vector<std::size_t> upto;  // upto[i]: total weight of buckets 0..i
  for (const RowBucket& b : buckets) upto.push_back((upto.empty() ? 0 : upto.back()) + b.weight);
  return rc::gen::mapcat(rc::gen::noShrink(uniform_int<std::size_t>(0, upto.back() - 1)), [buckets, upto](std::size_t k) {
    const auto i = static_cast<std::size_t>(std::upper_bound(upto.begin(), upto.end(), k) - upto.begin());
    return rc::gen::map(buckets[i].gen, [i](std::vector<double> v) { return std::make_pair(i, std::move(v)); });
  });
}

inline rc::Gen<std::pair<std::size_t, std::vector<double>>> tagged_row(const format_info& f, std::size_t max_long = 4096) {
  return tagged_row(row_buckets(f, max_long));
}

// A row of row() from every bucket but those named in `without`, at the same relative weights
// (e.g. without "single" and "constant" for a check about rows of several distinct values).
inline rc::Gen<std::vector<double>> row_without(const format_info& f, std::size_t max_long, std::vector<std::string_view> without) {
  std::vector<RowBucket> buckets = row_buckets(f, max_long);
  std::erase_if(buckets, [&](const RowBucket& b) { return std::find(without.begin(), without.end(), b.name) != without.end(); });
  return rc::gen::map(tagged_row(std::move(buckets)), [](std::pair<std::size_t, std::vector<double>> r) { return std::move(r.second); });
}

// A score row for softmax-like kernels, n >= 1 (row_buckets says which kinds, at which weights).
inline rc::Gen<std::vector<double>> row(const format_info& f, std::size_t max_long = 4096) {
  return rc::gen::map(tagged_row(f, max_long), [](std::pair<std::size_t, std::vector<double>> r) { return std::move(r.second); });
}

// One NaN or infinity inserted at a uniform position into a row of row(f, 100) (every kind of row
// but the long ones), or alone (1 in 16): the special-value obligations.
inline rc::Gen<std::vector<double>> row_with_nonfinite(const format_info& f) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const auto finite = rc::gen::weightedOneOf<std::vector<double>>({{1, rc::gen::just(std::vector<double>{})}, {15, row(f, 100)}});
  return rc::gen::mapcat(rc::gen::pair(finite, rc::gen::element(nan, inf, -inf)),
                         [](std::pair<std::vector<double>, double> rs) {
                           return rc::gen::map(uniform_int<std::size_t>(0, rs.first.size()), [rs](std::size_t at) {
                             auto v = rs.first;
                             v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), rs.second);
                             return v;
                           });
                         });
}

}  // namespace attncheck::gen
