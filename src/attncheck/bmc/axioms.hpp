// attncheck: the axioms that stand in for exp and log in symbolic queries, written once as
// templates over the value type so that the very same statements are (a) instantiated on every
// uninterpreted-function application of a formula and (b) checked exhaustively against the real
// function the concrete kernels call (scalar_traits<C>::exp / ::log), format by format.
#pragma once

#include <cstdint>
#include <type_traits>
#include <string>
#include <utility>
#include <vector>

#include <z3++.h>

#include "attncheck/bmc/predicates.hpp"
#include "attncheck/bmc/symbolic.hpp"

namespace attncheck::bmc {

// Format-specific thresholds of the real functions, found by scanning them (validation then
// checks the axioms that use them on every input, so a wrong threshold cannot go unnoticed).
struct exp_thresholds {
  double overflow;   // smallest x with exp(x) = +inf
  double underflow;  // largest x with exp(x) = 0
};
struct log_thresholds {
  double lowest;   // log(denorm_min): the smallest finite value log takes
  double highest;  // log(max_finite)
};
template <class C> exp_thresholds find_exp_thresholds(C (*exp_fn)(C) = scalar_traits<C>::exp);
template <class C> log_thresholds find_log_thresholds(C (*log_fn)(C) = scalar_traits<C>::log);

// The axioms. implies(a, b) is !a || b for both bool and sym_bool.
template <class B> B implies(const B& a, const B& b) { return !a || b; }

// The axioms are visited rather than returned, so that exhaustive validation over 2^32 inputs
// allocates nothing: f(index, name, condition) is called once per axiom.
inline constexpr int exp_axiom_count = 10;
inline constexpr int log_axiom_count = 7;

// exp(x) = e. "exp(x) > 0" is NOT an axiom: it is false (exp underflows to +0).
template <class V, class F>
void for_each_exp_axiom(const V& x, const V& e, const exp_thresholds& t, F&& f) {
  using B = decltype(x < x);
  const V zero = lit<V>(0), one = lit<V>(1);
  const V ovf = lit<V>(t.overflow), unf = lit<V>(t.underflow);
  const B nan_x = is_nan(x);
  f(0, "exp(NaN) is NaN", implies<B>(nan_x, is_nan(e)));
  f(1, "exp(x) >= 0 for x not NaN", implies<B>(!nan_x, e >= zero));
  f(2, "x <= 0 => exp(x) <= 1", implies<B>(x <= zero, e <= one));
  f(3, "x >= 0 => exp(x) >= 1", implies<B>(x >= zero, e >= one));
  f(4, "exp(+-0) = 1", implies<B>(x == zero, e == one));
  f(5, "x >= overflow threshold => exp(x) = +inf", implies<B>(x >= ovf, is_inf(e) && e > zero));
  f(6, "x < overflow threshold => exp(x) finite", implies<B>(x < ovf, is_finite(e)));
  f(7, "x <= underflow threshold => exp(x) = 0", implies<B>(x <= unf, e == zero));
  f(8, "x > underflow threshold => exp(x) > 0", implies<B>(x > unf, e > zero));
  // The underflow is +0, never -0: without this a stub may return -0 where the real exp returns
  // +0, and bit-exact statements (KANI-AEQ-001's LEM-AEQ-003) see a difference the kernel never has.
  f(9, "exp(x) is never -0", implies<B>(!nan_x, !sign_bit(e)));
}

// log(x) = e.
template <class V, class F>
void for_each_log_axiom(const V& x, const V& e, const log_thresholds& t, F&& f) {
  using B = decltype(x < x);
  const V zero = lit<V>(0), one = lit<V>(1);
  const V lo = lit<V>(t.lowest), hi = lit<V>(t.highest);
  f(0, "log(NaN or x < 0) is NaN", implies<B>(is_nan(x) || x < zero, is_nan(e)));
  f(1, "log(+-0) = -inf", implies<B>(x == zero, is_inf(e) && e < zero));
  f(2, "log(+inf) = +inf", implies<B>(is_inf(x) && x > zero, is_inf(e) && e > zero));
  f(3, "log(1) = 0", implies<B>(x == one, e == zero));
  f(4, "0 < x <= 1 => log(x) <= 0", implies<B>(x > zero && x <= one, e <= zero));
  f(5, "x >= 1 => log(x) >= 0", implies<B>(x >= one, e >= zero));
  f(6, "x > 0 finite => log(denorm_min) <= log(x) <= log(max)",
    implies<B>(x > zero && is_finite(x), e >= lo && e <= hi));
}

// Monotonicity, stated on pairs of applications: exp non-decreasing everywhere, log on x >= 0.
inline constexpr const char* exp_monotone_name = "x1 <= x2 => exp(x1) <= exp(x2)";
inline constexpr const char* log_monotone_name = "0 <= x1 <= x2 => log(x1) <= log(x2)";
template <class V>
auto exp_monotone(const V& x1, const V& e1, const V& x2, const V& e2) {
  return implies<decltype(x1 < x2)>(x1 <= x2, e1 <= e2);
}
template <class V>
auto log_monotone(const V& x1, const V& e1, const V& x2, const V& e2) {
  return implies<decltype(x1 < x2)>(x1 >= lit<V>(0) && x1 <= x2, e1 <= e2);
}

// Gibbs' inequality through tangents, for entropy upper bounds: f(t) = -t ln t is concave, so
// on [0, 1] it lies below its tangent at t = 1/k, f(t) <= 1/k + t(ln k - 1) (summed over a row
// this gives H(p) <= ln k + (ln k - 1)(Σp - 1)). The computed log has relative error <= log_rel,
// so for 0 < x <= 1: -x·log(x) <= (1/k + x(ln k - 1))(1 + log_rel) = c1 + x·c2. Both sides are
// evaluated in binary64, where the product of two values of f16, bf16 or f32 is exact; c1, c2
// are rounded up. The points k = 1..log_tangent_max are validated on every input of each format;
// a harness asks for the ones it uses (symbolic_run::use_log_tangent).
inline constexpr int log_tangent_max = 4;  // whole-vector entropy bounds reach d = 1 (bench/bmc_scaling.md)
struct log_tangent {
  int k = 1;
  double c1 = 0, c2 = 0;
};
log_tangent log_tangent_at(int k, double log_rel);
std::string log_tangent_name(int k);

// Binary64 view of a value: exact (every f16, bf16, f32 value is a double).
template <Scalar C> double wide_of(C x) { return to_double(x); }
template <class C> sym<double> wide_of(const sym<C>& x) { return sym<double>::widen(x); }

template <class V>
auto log_tangent_axiom(const V& x, const V& e, const log_tangent& t) {
  using B = decltype(x < x);
  const auto X = wide_of(x), E = wide_of(e);
  using W = std::remove_cv_t<decltype(X)>;
  const B in_unit = x > lit<V>(0) && x <= lit<V>(1);
  return implies<B>(in_unit, B(W(-(X * E)) <= W(lit<W>(t.c1) + W(X * lit<W>(t.c2)))));
}

// Every axiom instance for the exp/log applications recorded in the current session, named for
// unsat cores and reports. Throws std::runtime_error for a format whose axioms are not validated
// (binary64: exhaustive validation is out of reach, and an unvalidated stub is not allowed).
std::vector<z3::expr> instantiate_axioms(session& s);

// Exhaustive validation of the axioms against scalar_traits<C>::exp/log over every input of the
// format (every bit pattern; monotonicity along the ordered sequence of values).
struct axiom_failure {
  std::string function, axiom;
  std::uint64_t count = 0, first_bits = 0;
};
struct validation_report {
  std::string format;
  std::uint64_t inputs = 0;
  double seconds = 0;
  std::vector<std::string> axioms_checked;
  std::vector<axiom_failure> failures;
};
// exp_fn/log_fn default to the real functions; a test passes broken ones to show validation fails.
template <class C> using unary_fn = C (*)(C);
template <class C>
validation_report validate_axioms(unsigned threads, unary_fn<C> exp_fn = scalar_traits<C>::exp,
                                  unary_fn<C> log_fn = scalar_traits<C>::log);

}  // namespace attncheck::bmc
