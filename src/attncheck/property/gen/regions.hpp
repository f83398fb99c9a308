// attncheck: the input regions of a softmax-like row, for the generator coverage figure
// (property::cover; `attncheck gate --coverage`, the JSON report's "coverage").
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string_view>
#include <type_traits>
#include <vector>

#include "attncheck/property/gen/values.hpp"
#include "attncheck/property/registry.hpp"
#include "attncheck/scalar/arithmetic.hpp"
#include "attncheck/scalar/traits.hpp"

namespace attncheck::gen {

// Which regions a row generator can produce, beyond those every row generator here reaches.
struct RowCan {
  std::size_t max_length = 4096;  // longest row it draws: length buckets above it are not named
  bool masked = false;            // it inserts -inf entries (masking)
  bool nan_or_inf = false;        // it inserts a NaN or +inf entry
};

// The regions of row x (as the kernel sees it, in T) that a generator able to produce `can` names,
// each with whether x is in it. The spread, the maximum, ties and "near overflow" are taken over
// the finite entries.
//  - length 1, 2-16, 17-256, 257-4096;
//  - spread = max - min: 0, (0,1], (1,30], (30,1e3], >1e3 (exp(-30) is below f16's and bf16's
//    resolution next to 1, exp(-1e3) underflows in every format);
//  - max in [-104,-5]: exp(x_i) alone is tiny or underflows (f16 below e^-9.7, f32 and bf16
//    below e^-87.3) while exp(x_i - max) does not, so only the max subtraction gets it right;
//  - subnormal entry; tie at the max (the maximum repeated); near overflow (max > max_finite/4);
//  - a row spanning -max to +max (x_i - max overflows; log_softmax's exact value may overflow);
//  - masked (-inf) entry, NaN or +inf entry, when the generator inserts them.
template <class T>
std::vector<property::Region> row_regions(const std::vector<T>& x, RowCan can = {}) {
  const format_info& f = format_of<T>;
  const double min_normal = std::ldexp(1.0, f.min_exponent);
  double top = -std::numeric_limits<double>::infinity(), bottom = std::numeric_limits<double>::infinity();
  std::size_t finite = 0, at_top = 0;
  bool subnormal = false, masked = false, nan_or_inf = false;
  for (const T& t : x) {
    const double v = to_double(t);
    if (!std::isfinite(v)) {
      (v == -std::numeric_limits<double>::infinity() ? masked : nan_or_inf) = true;
      continue;
    }
    ++finite;
    subnormal |= v != 0 && std::abs(v) < min_normal;
    if (v > top) top = v, at_top = 0;
    if (v == top) ++at_top;
    bottom = std::min(bottom, v);
  }
  const std::size_t n = x.size();
  const double spread = finite ? top - bottom : std::numeric_limits<double>::quiet_NaN();
  std::vector<property::Region> r = {
      {"length 1", n == 1},
      {"length 2-16", n >= 2 && n <= 16},
      {"length 17-256", n >= 17 && n <= 256},
  };
  if (can.max_length >= 257) r.push_back({"length 257-4096", n >= 257 && n <= 4096});
  r.insert(r.end(), {
                        {"spread 0", spread == 0},
                        {"spread (0,1]", spread > 0 && spread <= 1},
                        {"spread (1,30]", spread > 1 && spread <= 30},
                        {"spread (30,1e3]", spread > 30 && spread <= 1e3},
                        {"spread >1e3", spread > 1e3},
                        {"max in [-104,-5] (needs max subtraction)", finite && top >= -104 && top <= -5},
                        {"subnormal entry", subnormal},
                        {"tie at the max", at_top >= 2},
                        {"near overflow (max > max_finite/4)", finite && top > f.max_finite / 4},
                        // x_i - max overflows, log_softmax's exact value may lie beyond the range.
                        {"spans -max to +max (min < -max_finite/2, max > max_finite/4)",
                         finite && bottom < -f.max_finite / 2 && top > f.max_finite / 4},
                    });
  if (can.masked) r.push_back({"masked (-inf) entry", masked});
  if (can.nan_or_inf) r.push_back({"NaN or +inf entry", nan_or_inf});
  return r;
}

// The format a kernel of storage T computes its exps in: f32 for 16-bit storage with f32
// arithmetic (f16@f32, bf16@f32), else T's own.
template <class T>
const format_info& arithmetic_format() {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
    if (current_arithmetic() == Arithmetic::f32) return format_of<float>;
  return format_of<T>;
}

// The regions of a row for max subtraction (FALSIFY-ASCL-004; gen::max_subtraction_row): whether
// exp(max x) overflows in the arithmetic format (max > ln max_finite) or underflows into
// subnormals or zero (max < ln min_normal), where only the shifted formula exp(x_i - max) gets
// the row right, and, for such rows, the decade bucket of |max| (max_subtraction_buckets: those
// the format reaches).
template <class T>
std::vector<property::Region> max_subtraction_regions(const std::vector<T>& x) {
  const format_info& f = format_of<T>;
  const format_info& a = arithmetic_format<T>();
  double top = -std::numeric_limits<double>::infinity();
  for (const T& t : x)
    if (std::isfinite(to_double(t))) top = std::max(top, to_double(t));
  const bool finite = std::isfinite(top);
  const bool over = finite && top > std::log(a.max_finite), under = finite && top < std::log(std::ldexp(1.0, a.min_exponent));
  std::vector<property::Region> r = {{"exp(max) overflows unshifted (max > ln max_finite)", over},
                                     {"exp(max) underflows unshifted (max < ln min_normal)", under}};
  for (const MagnitudeBucket& b : max_subtraction_buckets(f, a)) r.push_back({b.name, (over || under) && std::abs(top) > b.lo && std::abs(top) <= b.hi});
  return r;
}

// The region of gen::shift_region_row: some finite entry whose exp is below the arithmetic
// format's normal range unshifted (x_i < ln min_normal) and within it shifted (x_i - max >= ln
// min_normal), at a maximum in [-60, 0).
template <class T>
std::vector<property::Region> shift_regions(const std::vector<T>& x) {
  const double ln_mn = std::log(std::ldexp(1.0, arithmetic_format<T>().min_exponent));
  double top = -std::numeric_limits<double>::infinity();
  for (const T& t : x)
    if (std::isfinite(to_double(t))) top = std::max(top, to_double(t));
  bool reached = false;
  if (top >= -60 && top < 0)
    for (const T& t : x) reached |= std::isfinite(to_double(t)) && to_double(t) < ln_mn && to_double(t) - top >= ln_mn;
  return {{"shift matters at a moderate max (max in [-60,0), an exp subnormal unshifted, normal shifted)", reached}};
}

// Records the regions of row x for the generator coverage of the running check.
template <class T>
void cover_row(std::string_view generator, const std::vector<T>& x, RowCan can = {}) {
  property::cover(generator, row_regions(x, can));
}

}  // namespace attncheck::gen
