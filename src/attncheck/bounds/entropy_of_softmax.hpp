// attncheck: how far the computed entropy of a computed softmax row can be from H(softmax(x)).
#pragma once

#include <algorithm>
#include <cmath>

#include "attncheck/bounds/entropy.hpp"
#include "attncheck/bounds/softmax.hpp"

namespace attncheck::bounds {

// f(t) = -t ln t is concave on [0, 1] with its maximum at 1/e, so over an interval [lo, hi] the
// largest |f(ξ) - f(p)| is reached at an end point (or 1/e when it is inside). Summing that over
// the row bounds |H(p̂) - H(p)| for any p̂ inside the softmax bound; the entropy kernel's own
// rounding (bounds/entropy.hpp) is then applied to H(p̂) <= H(p) + that sum.
inline real neg_t_log_t(real t) { return t > 0 ? -t * std::log(t) : 0.0; }

inline real entropy_of_softmax_allowance(const oracle::SoftmaxRow& r, const Model& md) {
  const SoftmaxBound sb = softmax_bound(r, md);
  real dev = 0, h = 0;
  for (std::size_t i = 0; i < r.p.size(); ++i) {
    const real lo = std::max<real>(0, sb.lo[i]), hi = std::min<real>(1, sb.hi[i]);
    if (!std::isfinite(hi) || !std::isfinite(lo)) return std::numeric_limits<real>::infinity();
    const real fp = neg_t_log_t(r.p[i]);
    real d = std::max(std::abs(neg_t_log_t(lo) - fp), std::abs(neg_t_log_t(hi) - fp));
    if (lo < 1 / M_E && hi > 1 / M_E) d = std::max(d, std::abs(1 / M_E - fp));
    dev += d;
    h += fp;
  }
  const EntropyBound eb = entropy_bound(r.p.size(), md);
  return (dev + eb.allowed(h + dev)) * evaluation_slack;
}

}  // namespace attncheck::bounds
