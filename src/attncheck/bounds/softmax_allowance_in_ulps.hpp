// attncheck: the softmax allowance (softmax_bound) of a row of n equal entries, in ulps of the
// storage format: the figures docs/formats.md prints (tools/softmax_ulp_figures.cpp, checked by
// docs.figures) and tests/mixed_bounds_test.cpp asserts, for every n up to a limit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "attncheck/bounds/error_model.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/oracle/ulp.hpp"

namespace attncheck::bounds {

// softmax of n equal entries in closed form: p_j = 1/n, log p_j = -log n, gap_j = 0,
// log Σ e^{x_j - max} = log n (the oracle's row of n zeros, without n MPFR exps per row;
// tests/mixed_bounds_test.cpp checks the two agree).
inline oracle::SoftmaxRow equal_entries_row(std::size_t n) {
  const real nn = static_cast<real>(n);
  return {std::vector<real>(n, 1 / nn), std::vector<real>(n, -std::log(nn)), std::vector<real>(n, 0), std::log(nn)};
}

// The larger half-width of softmax_bound's interval around an output p, in ulps of format f at p.
inline double allowance_in_ulps(const SoftmaxBound& b, const oracle::SoftmaxRow& r, std::size_t i, const format_info& f) {
  const real p = r.p[i];
  const real half_width = std::max(b.hi[i] - p, p - b.lo[i]);
  return static_cast<double>(half_width / static_cast<real>(oracle::ulp_of(static_cast<double>(p), f)));
}

struct UlpFigure {
  std::size_t n = 0;   // the row length
  double ulps = 0;     // the allowance there, in ulps of the storage format
};

// The allowance of a row of n equal entries under model md, in ulps of f.
inline double equal_row_allowance_in_ulps(std::size_t n, const Model& md, const format_info& f) {
  const auto r = equal_entries_row(n);
  return allowance_in_ulps(softmax_bound(r, md), r, 0, f);
}

// The largest of equal_row_allowance_in_ulps over n = 1..max_n (the first n that attains it).
inline UlpFigure worst_equal_row_allowance(std::size_t max_n, const Model& md, const format_info& f) {
  UlpFigure w;
  for (std::size_t n = 1; n <= max_n; ++n) {
    const double a = equal_row_allowance_in_ulps(n, md, f);
    if (a > w.ulps) w = {n, a};
  }
  return w;
}

}  // namespace attncheck::bounds
