// attncheck: the smallest distance between any two rows of a position encoding Φ̂ (rows t < N),
// found exhaustively over all N(N−1)/2 pairs without computing most of them, and soundly.
//
// Why most pairs can be skipped (proofs/attention_equivariance.tex, AEQ-INV-001): in exact
// arithmetic ‖Φ_t − Φ_{t+k}‖² = Σ_i (2 sin(kω_i/2))² =: D(k)² depends on the lag k only
// (sin a sin b + cos a cos b = cos(a − b)). With ε_t >= ‖Φ̂_t − Φ_t‖ (measured against a
// long double reference, plus that reference's own derived error), the triangle inequality gives
//   ‖Φ̂_t − Φ̂_{t+k}‖ >= D(k) − ε_t − ε_{t+k}.
// So a pair can only beat the best distance found so far if D(k) − ε_t − ε_{t+k} < best. Lags are
// visited in increasing D(k); once D(k) − 2 max ε >= best no later lag can contain a closer pair,
// and within a lag only the t whose ε are large enough are computed. Nothing is assumed about the
// kernel under test beyond its rows: ε is measured on them, so a wrong kernel cannot hide a
// collision behind the pruning (it can only make the search slower; a work cap says so).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <mutex>
#include <numeric>
#include <string>
#include <vector>

#include "attncheck/bounds/error_model.hpp"
#include "attncheck/scalar/traits.hpp"

namespace attncheck::falsify {

using ld = long double;

struct RowMinimum {
  std::size_t d = 0, rows = 0;
  bool finite = true;          // every entry of every row is finite
  bool complete = true;        // false: the work cap was hit (rows too inaccurate to prune)
  ld min = 0;                  // smallest ‖Φ̂_t − Φ̂_t'‖ over t < t' < rows, in long double
  std::size_t t1 = 0, t2 = 0;  // where
  std::size_t lags_visited = 0, pairs_computed = 0;
  ld eps_max = 0;              // largest ε_t (the rows' measured error bound)
  std::uint64_t first_pair = 0;  // FNV-1a hash of the bits of (Φ̂_t0, Φ̂_t1) over all t
};

// D̂(k) for k < n, in double, for the frequencies ω_i = 10000^(−2i/d) (the exact encoding's lag
// distance). The lag distances depend on d only: computed once per d and kept.
// Error of D̂: each angle kω_i/2 is within k|ω̂_i − ω_i| + u kω_i of the exact one, where
// |ω̂_i − ω_i| <= 32u ω_i (exp and log 1 ulp each, the argument's three roundings amplified by
// |ln 10^4 · 2i/d| <= 9.3); with k < 2^20, ω <= 1 that is < 2^-27 rad; sin adds 1 ulp <= 2u. So
// each term 2 sin(·) is within 2^-26 of the exact one and ‖error‖ <= √h·2^-26; the squares, the
// sum of h terms and the square root add a relative γ_{h+2} of D̂ (see lag_slack).
inline const std::vector<double>& lag_distances(std::size_t d, std::size_t n) {
  static std::mutex mu;
  static std::map<std::pair<std::size_t, std::size_t>, std::vector<double>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto& D = cache[{d, n}];
  if (!D.empty()) return D;
  const std::size_t h = d / 2;
  std::vector<double> w(h);
  for (std::size_t i = 0; i < h; ++i) w[i] = std::exp(-2.0 * static_cast<double>(i) / static_cast<double>(d) * std::log(10000.0));
  D.assign(n, 0.0);
  for (std::size_t k = 1; k < n; ++k) {
    double s = 0;
    for (std::size_t i = 0; i < h; ++i) {
      const double x = 2 * std::sin(static_cast<double>(k) * w[i] / 2);
      s += x * x;
    }
    D[k] = std::sqrt(s);
  }
  return D;
}

inline ld lag_slack(std::size_t d, double Dk) {
  const std::size_t h = d / 2;
  return std::sqrt(static_cast<ld>(h)) * 0x1p-26L + 2 * bounds::gamma(h + 2, 0x1p-53L) * Dk;
}

// Rows 0..n−1 of the encoding pe (one row per call) at dimension d, and their smallest pairwise
// distance. max_pairs caps the distance evaluations (complete = false when reached).
template <class T>
RowMinimum smallest_row_distance(const std::function<void(std::size_t, std::size_t, T*)>& pe, std::size_t d, std::size_t n,
                                 std::size_t max_pairs = std::size_t{1} << 28) {
  RowMinimum r;
  r.d = d;
  r.rows = n;
  std::vector<T> P(n * d);
  for (std::size_t t = 0; t < n; ++t) pe(t, d, &P[t * d]);
  for (const T& v : P) r.finite = r.finite && std::isfinite(to_double(v));
  r.first_pair = 0xcbf29ce484222325ull;
  for (std::size_t t = 0; t < n; ++t)
    for (std::size_t i = 0; i < 2 && i < d; ++i) r.first_pair = (r.first_pair ^ scalar_traits<T>::bits(P[t * d + i])) * 0x100000001b3ull;
  if (!r.finite) return r;
  const auto dist = [&](std::size_t a, std::size_t b) {
    ld s = 0;
    for (std::size_t i = 0; i < d; ++i) {
      const ld x = static_cast<ld>(to_double(P[a * d + i])) - static_cast<ld>(to_double(P[b * d + i]));
      s += x * x;
    }
    return std::sqrt(s);
  };
  // Identical rows first (distance exactly 0): sort the rows by their bits, compare neighbours.
  std::vector<std::uint32_t> order(n);
  std::iota(order.begin(), order.end(), 0u);
  const auto bits_less = [&](std::uint32_t a, std::uint32_t b) {
    for (std::size_t i = 0; i < d; ++i) {
      const auto x = scalar_traits<T>::bits(P[a * d + i]), y = scalar_traits<T>::bits(P[b * d + i]);
      if (x != y) return x < y;
    }
    return false;
  };
  std::sort(order.begin(), order.end(), bits_less);
  for (std::size_t j = 1; j < n; ++j)
    if (!bits_less(order[j - 1], order[j]) && dist(order[j - 1], order[j]) == 0) {
      r.min = 0;
      r.t1 = std::min(order[j - 1], order[j]);
      r.t2 = std::max(order[j - 1], order[j]);
      r.pairs_computed = 1;
      return r;
    }
  // ε_t: measured distance to a long double evaluation R_t of the exact encoding, plus R's own
  // error: expl/logl err by a few ulps (2^-63 relative), so |ω_R − ω| <= 2^-60 ω and the angle
  // t ω_R is within 2^20 (2^-60 + 2^-64) < 2^-39 of tω for t < 2^20; sinl/cosl add <= 2^-63.
  // Per entry < 2^-38, per row ρ = √d · 2^-38. The norm itself is evaluated in long double
  // (relative error below 2^-56 for d <= 2^6); the factor (1 + 2^-50) covers it.
  const std::size_t h = d / 2;
  std::vector<ld> wl(h);
  for (std::size_t i = 0; i < h; ++i) wl[i] = std::exp(-2.0L * static_cast<ld>(i) / static_cast<ld>(d) * std::log(10000.0L));
  const ld rho = std::sqrt(static_cast<ld>(d)) * 0x1p-38L;
  std::vector<ld> eps(n);
  for (std::size_t t = 0; t < n; ++t) {
    ld s = 0;
    for (std::size_t i = 0; i < h; ++i) {
      const ld a = static_cast<ld>(t) * wl[i];
      const ld e0 = static_cast<ld>(to_double(P[t * d + 2 * i])) - std::sin(a);
      const ld e1 = static_cast<ld>(to_double(P[t * d + 2 * i + 1])) - std::cos(a);
      s += e0 * e0 + e1 * e1;
    }
    eps[t] = std::sqrt(s) * (1 + 0x1p-50L) + rho;
    r.eps_max = std::max(r.eps_max, eps[t]);
  }
  const std::vector<double>& D = lag_distances(d, n);
  std::vector<std::uint32_t> lags(n > 0 ? n - 1 : 0);
  std::iota(lags.begin(), lags.end(), 1u);
  std::sort(lags.begin(), lags.end(), [&](std::uint32_t a, std::uint32_t b) { return D[a] < D[b]; });
  r.min = std::numeric_limits<ld>::infinity();
  for (const std::uint32_t k : lags) {
    const ld lo = static_cast<ld>(D[k]) - lag_slack(d, D[k]);
    if (lo - 2 * r.eps_max >= r.min) break;  // this lag and every later one: no closer pair
    ++r.lags_visited;
    for (std::size_t t = 0; t + k < n; ++t) {
      if (lo - eps[t] - eps[t + k] >= r.min) continue;
      if (++r.pairs_computed > max_pairs) {
        r.complete = false;
        return r;
      }
      const ld x = dist(t, t + k);
      if (x < r.min) {
        r.min = x;
        r.t1 = t;
        r.t2 = t + k;
      }
    }
  }
  return r;
}

}  // namespace attncheck::falsify
