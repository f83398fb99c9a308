// attncheck: RapidCheck generator of RMSNorm gains w (qk-norm-v1, and the audit's rmsnorm calls).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/scalar/traits.hpp"
#include "attncheck/property/gen/values.hpp"

namespace attncheck::gen {

// The largest gain drawn for rows of d elements: RMSNorm's outputs obey |y_i| <= √d·|w_i|, so
// |w_i| <= max_finite/(2√d) keeps every output (and its rounding) finite in the format (f16,
// d = 256: 2047), and no gain exceeds 1e4 (the size of the largest learned gains in practice).
inline double max_gain(const format_info& f, std::size_t d) {
  return std::min(1e4, f.max_finite / (2 * std::sqrt(static_cast<double>(std::max<std::size_t>(d, 1)))));
}

// One gain: mostly O(1) (|w| <= 4, like learned gains near their initialisation), with weight on
// the whole range up to max_gain and on magnitudes in [max_gain/10, max_gain] (1e3..1e4 for f32,
// f64 and bf16). A large gain multiplies the underflow error of a subnormal x_i/r̂
// (proofs/bounds/rmsnorm.md), which gains capped at 4 never exposed.
inline rc::Gen<double> gain(const format_info& f, std::size_t d) {
  const double big = max_gain(f, d);
  return rc::gen::weightedOneOf<double>({
      {6, moderate_value(f, 4)},
      {1, moderate_value(f, big)},
      {2, rc::gen::map(rc::gen::pair(unit(), rc::gen::arbitrary<bool>()), [big](std::pair<double, bool> us) {
         const double v = big * std::pow(10.0, -std::abs(us.first));
         return us.second ? -v : v;
       })},
  });
}

// d gains of T (rounded to nearest: every drawn magnitude is below max_finite/2, so finite).
template <class T>
std::vector<T> draw_gains(std::size_t d) {
  return to_row<T>(*rc::gen::container<std::vector<double>>(d, gain(format_of<T>, d)));
}

}  // namespace attncheck::gen
