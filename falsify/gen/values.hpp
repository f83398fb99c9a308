// attncheck: RapidCheck generators for scalars and rows that reach the hard cases of each format.
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::gen {

// RapidCheck's own float generator never yields -0, subnormals, values near overflow or ties,
// so values are built here from the format's table and then rounded into T (round to nearest).
// Every generator returns finite values of T; non-finite inputs have their own generators.

// Uniform in [-1, 1] with 2^-52 resolution (shrinks towards 0).
inline rc::Gen<double> unit() {
  return rc::gen::map(rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 52), (std::int64_t{1} << 52) + 1),
                      [](std::int64_t v) { return std::ldexp(static_cast<double>(v), -52); });
}

// A finite value of format f: mostly moderate, with weight on ±0, subnormals, small integers
// (ties), powers of ten across the range and values within a factor 2 of overflow.
inline rc::Gen<double> value(const format_info& f, double sigma) {
  const double sub_max = static_cast<double>((std::int64_t{1} << (f.precision - 1)) - 1);
  return rc::gen::weightedOneOf<double>({
      {50, rc::gen::map(unit(), [sigma](double u) { return sigma * u; })},
      {10, rc::gen::map(rc::gen::inRange(-4, 5), [](int i) { return static_cast<double>(i); })},
      {4, rc::gen::element(0.0, -0.0)},
      {4, rc::gen::map(rc::gen::pair(rc::gen::inRange<std::int64_t>(1, static_cast<std::int64_t>(sub_max) + 1),
                                     rc::gen::arbitrary<bool>()),
                       [f](std::pair<std::int64_t, bool> kv) {
                         const double v = static_cast<double>(kv.first) * f.denorm_min;
                         return kv.second ? -v : v;
                       })},
      {6, rc::gen::map(rc::gen::pair(unit(), rc::gen::inRange(-6, 7)),
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
      {10, rc::gen::map(rc::gen::inRange(-4, 5), [sigma](int i) { return std::min(sigma, 4.0) * i / 4; })},
      {4, rc::gen::element(0.0, -0.0)},
      {4, rc::gen::map(rc::gen::inRange<std::int64_t>(1, static_cast<std::int64_t>(sub_max) + 1),
                       [f](std::int64_t k) { return static_cast<double>(k) * f.denorm_min; })},
      {6, rc::gen::map(rc::gen::pair(unit(), rc::gen::inRange(-8, 1)),
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

// n in [lo, hi] elements drawn from g.
inline rc::Gen<std::vector<double>> sized_row(int lo, int hi, rc::Gen<double> g) {
  return rc::gen::mapcat(rc::gen::inRange(lo, hi + 1), [g](int n) {
    return rc::gen::container<std::vector<double>>(static_cast<std::size_t>(n), g);
  });
}

// Rows holding values near -max beside values near +max (and a few moderate ones): x_i - max x
// overflows, and log_softmax's exact result lies beyond the format's range (about -1.5 max for
// [-max, max/2]), where a correct kernel returns its rounding, -inf.
inline rc::Gen<std::vector<double>> mixed_extremes(const format_info& f) {
  return sized_row(2, 16, rc::gen::weightedOneOf<double>({
                              {2, rc::gen::map(unit(), [f](double u) { return -f.max_finite * (0.75 + 0.25 * std::abs(u)); })},
                              {2, rc::gen::map(unit(), [f](double u) { return f.max_finite * (0.5 + 0.25 * u); })},
                              {1, value(f, 8)},
                          }));
}

// A score row for softmax-like kernels, n >= 1: random values, constant rows, ties, single
// entries, long rows (257..4096), rows whose every entry is very negative, rows near overflow,
// wide Gaussian-like spreads (σ = 10 and σ = 1e4).
inline rc::Gen<std::vector<double>> row(const format_info& f, std::size_t max_long = 4096) {
  using V = std::vector<double>;
  const auto sized = sized_row;
  const double big = std::min(f.max_finite * 0.5, 1e30);
  return rc::gen::weightedOneOf<V>({
      {30, sized(1, 24, value(f, 8))},
      {8, rc::gen::mapcat(rc::gen::pair(rc::gen::inRange(1, 300), value(f, 50)),
                          [](std::pair<int, double> nc) { return rc::gen::just(V(static_cast<std::size_t>(nc.first), nc.second)); })},
      {8, sized(2, 40, rc::gen::element(-1.0, 0.0, 2.0))},
      {6, rc::gen::map(value(f, 100), [](double c) { return V{c}; })},
      {4, sized(257, static_cast<int>(max_long), rc::gen::map(unit(), [](double u) { return 10 * 1.7320508 * u; }))},
      {8, rc::gen::mapcat(rc::gen::element(-100.0, -1e4, -big, -f.max_finite),
                          [f, sized](double base) {
                            return sized(1, 30, rc::gen::map(unit(), [base, f](double u) {
                              const double v = base * (1 + 0.25 * std::abs(u));
                              return std::max(v, -f.max_finite);
                            }));
                          })},
      {8, sized(1, 30, rc::gen::map(unit(), [f](double u) { return f.max_finite * (0.75 + 0.25 * u); }))},
      {8, sized(2, 128, rc::gen::map(unit(), [](double u) { return 10 * 1.7320508 * u; }))},
      {4, sized(2, 64, rc::gen::map(unit(), [](double u) { return 1e4 * 1.7320508 * u; }))},
      {4, mixed_extremes(f)},
  });
}

// A row containing at least one NaN or infinity (special-value obligations).
inline rc::Gen<std::vector<double>> row_with_nonfinite(const format_info& f) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  return rc::gen::mapcat(rc::gen::pair(rc::gen::container<std::vector<double>>(value(f, 8)), rc::gen::element(nan, inf, -inf)),
                         [](std::pair<std::vector<double>, double> rs) {
                           return rc::gen::map(rc::gen::inRange<std::size_t>(0, rs.first.size() + 1), [rs](std::size_t at) {
                             auto v = rs.first;
                             v.insert(v.begin() + static_cast<std::ptrdiff_t>(at), rs.second);
                             return v;
                           });
                         });
}

}  // namespace attncheck::gen
