// attncheck: what every falsification file shares: drawing rows in T, exact sums, and the
// failure report (bits first, then values, the exact value, the error and the allowance).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/text/numbers.hpp"
#include "attncheck/property/registry.hpp"
#include "attncheck/property/tolerance.hpp"
#include "attncheck/oracle/certified.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/oracle/tiered.hpp"
#include "attncheck/oracle/ulp.hpp"
#include "attncheck/scalar/mpfr.hpp"
#include "attncheck/property/gen/attention.hpp"
#include "attncheck/property/gen/regions.hpp"
#include "attncheck/property/gen/values.hpp"

namespace attncheck::property {

template <class T>
std::string scalar_name() { return std::string(format_of<T>.name); }

// Draws a finite score row of T (see gen::row) and records the regions it reaches (gen::cover_row).
template <class T>
std::vector<T> draw_row(std::size_t max_long = 4096) {
  std::vector<T> x = gen::to_row<T>(*gen::row(format_of<T>, max_long));
  gen::cover_row("row", x, {.max_length = max_long});
  return x;
}

// A vector of n finite values of T with magnitudes at most sigma (no overflow in products).
template <class T>
std::vector<T> draw_vector(std::size_t n, double sigma) {
  return gen::moderate_vector<T>(n, sigma);
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

// max x over a row, NaN when the row holds a NaN: top - x_i (rounded to double) is where an element
// sits in its row, the x axis of the report's error plots (softmax's error grows with it).
template <class T>
double row_top(const std::vector<T>& x) {
  double top = -std::numeric_limits<double>::infinity();
  for (const T& v : x) {
    const double d = to_double(v);
    if (d != d) return d;
    top = std::max(top, d);
  }
  return top;
}

// The error of got against the exact value by the one rule of oracle::error_in_format: the plain
// distance for a finite output, and for an infinite or NaN one the rule measured from RN_T(exact)
// (ref, when certified, supplies it; else it is rounded here).
template <class T>
long double format_error(T got, long double exact, const oracle::tiered::element<T>* ref = nullptr) {
  const double g = to_double(got);
  if (std::isfinite(g) && std::isfinite(exact)) return std::abs(static_cast<long double>(g) - exact);
  return ref && ref->certified ? oracle::error_in_format<T>(got, exact, ref->rounded) : oracle::error_in_format<T>(got, exact);
}

// got is RN_T(exact), the correctly rounded value: never an error, whatever the allowance.
template <class T>
bool is_correctly_rounded(T got, long double exact, const oracle::tiered::element<T>* ref = nullptr) {
  const T rn = ref && ref->certified ? ref->rounded : scalar_traits<T>::from_double(oracle::detail::round_long_double(exact, format_of<T>));
  const double g = to_double(got), r = to_double(rn);
  return g == r || (g != g && r != r);
}

inline double ratio(long double err, long double allowed) {
  if (err != err) return std::numeric_limits<double>::infinity();
  if (allowed <= 0) return err > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  if (allowed == std::numeric_limits<long double>::infinity()) property::note_unbounded();
  return static_cast<double>(err / allowed);
}

// The standard failure block. `what` names the kernel call and the element.
template <class T>
struct Report {
  std::ostringstream s;
  std::string what_;
  Report(const std::string& id, const std::string& what) : what_(what) {
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
  // The tiered oracle's reference: RN_T(exact) and whether it is certified, and the kernel's
  // error in ULP (LLVM libc's conventions, oracle/ulp.hpp).
  Report& rounded(const oracle::tiered::element<T>& e, T got) {
    const std::string how = e.certified ? "certified by the " + std::string(oracle::tiered::tier_name(e.decided_by)) + " tier"
                                        : "NOT certified: best guess of the " + std::string(oracle::tiered::tier_name(e.decided_by)) + " tier";
    s << "  Rounded:     " << bits_of(e.rounded) << "  " << decimal(to_double(e.rounded)) << "  (RN_" << scalar_name<T>()
      << " of the exact value, " << how << ")\n";
    s << "  ULP error:   " << decimal(oracle::ulp_error<T>(got, e.exact, e.exact_tail), 4) << " against the exact value; "
      << decimal(oracle::ulp_distance(got, e.rounded)) << " ULP from the correctly rounded value\n";
    return *this;
  }
  // The ratio printed is the case's ratio in the report, and counts in the largest error seen.
  Report& error(long double err, long double allowed, const std::string& how = "derived") {
    observe_failure(ratio(err, allowed), what_);
    s << "  Error:       " << decimal(static_cast<double>(err), 6) << "  (allowed " << decimal(static_cast<double>(allowed), 6)
      << ", " << how << "; ratio " << decimal(ratio(err, allowed), 4) << ")\n";
    return *this;
  }
  Report& line(const std::string& l) {
    s << "  " << l << "\n";
    return *this;
  }
  [[noreturn]] void raise() { fail(s.str()); }
};

// The plain same-precision reference computation for tolerance mode baseline:K: run(reference
// kernels at T) -> its output, computed only in that mode; then the largest error of that output
// against the exact values (ex[i], i < its length). Outside baseline mode: NaN (not needed).
template <class T, class Run, class Exact>
long double baseline_error(Run&& run, const Exact& ex) {
  if (property::current_tolerance().mode != property::Tolerance::Mode::baseline) return std::numeric_limits<long double>::quiet_NaN();
  const std::vector<T> b = run(current_reference_kernels<T>());
  long double worst = 0;
  for (std::size_t i = 0; i < b.size(); ++i) worst = std::max(worst, format_error(b[i], static_cast<long double>(ex[i])));
  return worst;
}

// The allowance of one accuracy comparison under the current tolerance mode (property/tolerance.hpp).
template <class T>
long double mode_allowance(long double derived, long double exact, long double baseline_err) {
  const property::Tolerance& t = property::current_tolerance();
  switch (t.mode) {
    case property::Tolerance::Mode::derived: return derived;
    case property::Tolerance::Mode::ulp: return t.ulps * oracle::ulp_of(static_cast<double>(exact), format_of<T>);
    case property::Tolerance::Mode::abs_rel: return t.abs + t.rel * std::abs(exact);
    case property::Tolerance::Mode::baseline:
      if (baseline_err != baseline_err) throw std::logic_error("tolerance baseline:K at a comparison that computes no baseline");
      return t.factor * baseline_err;
  }
  return derived;
}

// Checks |got - exact| <= allowed for one element; records the ratio and a sample point (with gap,
// the element's |x_i - max x| in a row, as "error-vs-gap"); fails with the report.
// derived_allowed is the derived bound. With ref (the tiered oracle's element for exact,
// oracle/certified.hpp) this is an accuracy comparison against the oracle: the current tolerance
// mode decides the allowance (baseline_err: see baseline_error) and the report shows the
// correctly rounded value. Without ref (structural identities) the derived bound always applies.
// inputs: every input of the call, by name (a failure shows them all, so it can be replayed).
// A 0 where the exact value lies below the smallest normal N of T is what flush-to-zero
// arithmetic gives, and its error (below N) is within every allowance of the flush model
// (bounds/error_model.hpp: model_of, η = 2N): under the IEEE model (the default) the failure
// says so and names the declaration that judges the kernel by that model.
template <class T>
void flush_to_zero_hint(Report<T>& rep, T got, long double exact) {
  const long double n = std::ldexp(1.0L, format_of<T>.min_exponent);
  if (current_subnormals() == Subnormals::ieee && to_double(got) == 0 && exact != 0 && std::abs(exact) < n)
    rep.line("Flushes subnormal results to zero (0 where the exact value is below the smallest normal, " + decimal(static_cast<double>(n), 3) +
             "): passes if declared flush-to-zero (--subnormals flush, bindings subnormals: flush), if every failure is one.");
}

template <class T>
void expect_close(const std::string& id, const std::string& what,
                  const std::vector<std::pair<std::string, const std::vector<T>*>>& inputs, T got, long double exact,
                  long double derived_allowed, const oracle::tiered::element<T>* ref = nullptr,
                  long double baseline_err = std::numeric_limits<long double>::quiet_NaN(),
                  std::optional<double> gap = std::nullopt) {
  const long double allowed = ref ? mode_allowance<T>(derived_allowed, exact, baseline_err) : derived_allowed;
  const long double err = format_error(got, exact, ref);
  // The exact value is known to within ref->radius (below): the ratio recorded is that of the
  // error the verdict judges, err - radius, so a "worst" above 1 always means a failure.
  const double r = ratio(std::max<long double>(0, err - (ref ? ref->radius : 0)), allowed);
  observe(r, what);
  // For the HTML report's per-kernel plots; the kernel is what `what` names first ("softmax<f32>, ...").
  const std::string_view kernel = std::string_view(what).substr(0, what.find_first_of("<,"));
  if (gap)
    property::sample("error-vs-gap", kernel, {"gap", "error", "allowance"}, {*gap, static_cast<double>(err), static_cast<double>(allowed)});
  else
    property::sample("error", kernel, {"error", "allowance"}, {static_cast<double>(err), static_cast<double>(allowed)});
  // The exact value is known to within ref->radius (below 2^-90 of it from the dd tier up; ~2^-40 from the double tier,
  // which decides most f16/bf16/f32 values): fail only when the error certainly exceeds the allowance, so an error within
  // the radius of the allowance passes. Never a false alarm; the benefit of the doubt is the radius (< 2^-16 f32 ulp).
  const long double radius = ref ? ref->radius : 0;
  if (err - radius <= allowed || is_correctly_rounded(got, exact, ref)) return;
  Report<T> rep(id, what);
  for (const auto& [name, input] : inputs) rep.input(name, *input);
  rep.kernel(got);
  if (ref)
    rep.exact(exact, "tiered oracle, enclosure half-width " + decimal(ref->radius, 2)).rounded(*ref, got);
  else
    rep.exact(exact);
  rep.error(err, allowed, ref ? property::current_tolerance().text() : "derived");
  flush_to_zero_hint(rep, got, exact);
  rep.raise();
}

// The same for a call with one input row.
template <class T>
void expect_close(const std::string& id, const std::string& what, const std::string& input_name,
                  const std::vector<T>& input, T got, long double exact, long double derived_allowed,
                  const oracle::tiered::element<T>* ref = nullptr,
                  long double baseline_err = std::numeric_limits<long double>::quiet_NaN(),
                  std::optional<double> gap = std::nullopt) {
  expect_close<T>(id, what, {{input_name, &input}}, got, exact, derived_allowed, ref, baseline_err, gap);
}

}  // namespace attncheck::property
