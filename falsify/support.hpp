// attncheck: what every falsification file shares: drawing rows in T, exact sums, and the
// failure report (bits first, then values, the exact value, the error and the allowance).
#pragma once

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/check/format.hpp"
#include "attncheck/check/registry.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/scalar/mpfr.hpp"
#include "falsify/gen/values.hpp"

namespace attncheck::falsify {

using check::fail;
using check::observe;

template <class T>
std::string scalar_name() { return std::string(format_of<T>.name); }

// Draws a finite score row of T (see gen::row).
template <class T>
std::vector<T> draw_row(std::size_t max_long = 4096) {
  return gen::to_row<T>(*gen::row(format_of<T>, max_long));
}

// A vector of n finite values of T with magnitudes at most sigma (no overflow in products).
template <class T>
std::vector<T> draw_vector(std::size_t n, double sigma) {
  return gen::to_row<T>(*rc::gen::container<std::vector<double>>(n, gen::moderate_value(format_of<T>, sigma)));
}

// The softmax JVP of the kernel set under test, as a new row.
template <class T>
std::vector<T> jvp(const KernelSet<T>& k, const std::vector<T>& x, const std::vector<T>& dx) {
  std::vector<T> dy(x.size());
  k.softmax_jvp(x.data(), dx.data(), x.size(), dy.data());
  return dy;
}

// A row and a direction of the same length; directions stay moderate so products stay finite.
template <class T>
std::pair<std::vector<T>, std::vector<T>> draw_row_and_direction() {
  const auto x = draw_row<T>(512);
  return {x, draw_vector<T>(x.size(), 4)};
}

// Σ x_i evaluated exactly enough (200-bit MPFR) to judge a sum-to-one claim.
template <class T>
double exact_sum(const std::vector<T>& x) {
  mpfr200 s = 0;
  for (const T& v : x) s += mpfr200(to_double(v));
  return s.convert_to<double>();
}

template <class T>
std::vector<oracle::real> widen(const std::vector<T>& x) {
  std::vector<oracle::real> r;
  for (const T& v : x) r.push_back(to_double(v));
  return r;
}

inline double ratio(long double err, long double allowed) {
  if (err != err) return std::numeric_limits<double>::infinity();
  if (allowed <= 0) return err > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  if (allowed == std::numeric_limits<long double>::infinity()) check::note_unbounded();
  return static_cast<double>(err / allowed);
}

// The standard failure block. `what` names the kernel call and the element.
template <class T>
struct Report {
  std::ostringstream s;
  Report(const std::string& id, const std::string& what) {
    s << id << " failed: " << what << "\n";
  }
  Report& input(const std::string& name, const std::vector<T>& x) {
    s << "  " << name << " bits:  " << row_bits(x) << "\n";
    s << "  " << name << ":       " << row_values(x) << "\n";
    return *this;
  }
  Report& kernel(T got) {
    s << "  Kernel:      " << bits_of(got) << "  " << decimal(to_double(got)) << "\n";
    return *this;
  }
  Report& exact(long double v, const std::string& how = "MPFR 200 bits") {
    s << "  Exact:       " << decimal_long(v, 20) << "  (" << how << ")\n";
    return *this;
  }
  Report& error(long double err, long double allowed) {
    s << "  Error:       " << decimal(static_cast<double>(err), 6) << "  (allowed " << decimal(static_cast<double>(allowed), 6)
      << ", derived; ratio " << decimal(ratio(err, allowed), 4) << ")\n";
    return *this;
  }
  Report& line(const std::string& l) {
    s << "  " << l << "\n";
    return *this;
  }
  [[noreturn]] void raise() { fail(s.str()); }
};

// Checks |got - exact| <= allowed for one element; records the ratio; fails with the report.
template <class T>
void expect_close(const std::string& id, const std::string& what, const std::string& input_name,
                  const std::vector<T>& input, T got, long double exact, long double allowed) {
  const long double err = std::abs(static_cast<long double>(to_double(got)) - exact);
  const double r = ratio(err, allowed);
  observe(r, what);
  if (!(err <= allowed)) Report<T>(id, what).input(input_name, input).kernel(got).exact(exact).error(err, allowed).raise();
}

}  // namespace attncheck::falsify
