// attncheck harnesses: what every harness file shares (the framework, the derived bounds the
// assertions use, and small helpers that read the same for a symbolic and a concrete run).
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include "attncheck/bmc/harness.hpp"
#include "attncheck/bounds/error_model.hpp"
#include "attncheck/bounds/rmsnorm.hpp"
#include "attncheck/bounds/softmax.hpp"

namespace attncheck::harnesses {

using namespace attncheck::bmc;
using bounds::real;

// The concrete format behind a run's scalar (sym<C> -> C, C -> C).
template <class T> struct concrete_of { using type = T; };
template <class C> struct concrete_of<bmc::sym<C>> { using type = C; };
template <class H> using format_t = typename concrete_of<typename H::scalar>::type;

template <class H> bounds::Model model() { return bounds::model_of<format_t<H>>(); }

// A bound computed in long double, handed to the wide type rounded up to double (outward), so
// that comparing against it never tightens the derived allowance.
inline double up(real v) {
  const double d = static_cast<double>(v);
  return static_cast<real>(d) >= v ? d : std::nextafter(d, std::numeric_limits<double>::infinity());
}

// Harnesses sum outputs in binary64 (H::wide): recursive summation of d terms errs by at most
// γ_{d-1}(2^-53) times the sum of their magnitudes (Higham §4.2), which the caller bounds.
inline real wide_sum_slack(std::size_t d, real magnitude) {
  return bounds::gamma(d > 0 ? d - 1 : 0, 0x1p-53L) * magnitude;
}

template <class H> typename H::cond always(H&) { return typename H::cond(true); }

}  // namespace attncheck::harnesses
