// attncheck: a symbolic scalar over Z3's IEEE floating-point theory, so that the kernel templates
// of src/attncheck/kernels build the exact formula of what they compute (RNE after every
// operation, in the order the source writes them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <z3++.h>

#include "attncheck/scalar/traits.hpp"

namespace attncheck::bmc {

// Exponent and significand widths (with the hidden bit) of the SMT sort that models C exactly.
template <class C> struct sort_of;
template <> struct sort_of<f16> { static constexpr unsigned ebits = 5, sbits = 11; };
template <> struct sort_of<bf16> { static constexpr unsigned ebits = 8, sbits = 8; };
template <> struct sort_of<float> { static constexpr unsigned ebits = 8, sbits = 24; };
template <> struct sort_of<double> { static constexpr unsigned ebits = 11, sbits = 53; };

// One application of an uninterpreted function (exp or log), kept so that the axioms of
// axioms.hpp can be instantiated on exactly the terms a formula uses.
struct uf_application {
  enum class fn { exp, log } which;
  unsigned ebits, sbits;
  z3::expr arg, result;
};

// The Z3 context of one query and everything the symbolic scalars record while a kernel runs.
// A session is bound to the thread that creates it (Z3 contexts are not thread-safe); the
// scalars find it through a thread-local pointer, so kernels need no extra parameter.
class session {
 public:
  session();
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;

  static session& current();  // throws std::logic_error if no session is open on this thread

  z3::context& ctx() { return ctx_; }
  z3::expr rne() { return z3::expr(ctx_, Z3_mk_fpa_rne(ctx_)); }
  z3::sort sort(unsigned ebits, unsigned sbits) { return ctx_.fpa_sort(ebits, sbits); }
  z3::expr apply(uf_application::fn f, unsigned ebits, unsigned sbits, const z3::expr& arg);
  const std::vector<uf_application>& applications() const { return apps_; }
  // The validated tangent axioms of log (axioms.hpp, log_tangent_axiom) this query may use.
  void use_log_tangent(int k) { log_tangents_.push_back(k); }
  const std::vector<int>& log_tangents() const { return log_tangents_; }
  // A fresh constant of the given sort; names are made unique by the caller.
  z3::expr constant(const std::string& name, unsigned ebits, unsigned sbits) {
    return ctx_.constant(name.c_str(), sort(ebits, sbits));
  }

 private:
  z3::context ctx_;
  std::vector<uf_application> apps_;
  std::vector<int> log_tangents_;
  session* previous_;
};

// A symbolic truth value: the result of comparing symbolic scalars.
class sym_bool {
 public:
  explicit sym_bool(z3::expr e) : e_(std::move(e)) {}
  sym_bool(bool b) : e_(session::current().ctx().bool_val(b)) {}  // NOLINT: constants mix in
  const z3::expr& expr() const { return e_; }
  // A kernel that branches in C++ on a symbolic comparison cannot be model-checked; say where
  // rather than silently picking a branch. Kernels use select() for data-dependent choices.
  operator bool() const {  // NOLINT: must be implicit to satisfy the Scalar concept
    throw std::logic_error("a kernel branched on a symbolic comparison (use select(), not if/?:)");
  }
  friend sym_bool operator&&(const sym_bool& a, const sym_bool& b) { return sym_bool(a.e_ && b.e_); }
  friend sym_bool operator||(const sym_bool& a, const sym_bool& b) { return sym_bool(a.e_ || b.e_); }
  friend sym_bool operator!(const sym_bool& a) { return sym_bool(!a.e_); }

 private:
  z3::expr e_;
};

// A symbolic value of floating-point format C (f16, bf16, float, double).
template <class C>
class sym {
 public:
  static constexpr unsigned ebits = sort_of<C>::ebits, sbits = sort_of<C>::sbits;

  sym() : sym(constant_of(0.0)) {}  // +0, like a value-initialised float
  explicit sym(z3::expr e) : e_(std::move(e)) {}
  const z3::expr& expr() const { return e_; }

  // The value v rounded to C with round-to-nearest-even, as static_cast<C>(v) does.
  static sym constant_of(double v) {
    session& s = session::current();
    z3::context& c = s.ctx();
    const z3::expr wide(c, Z3_mk_fpa_numeral_double(c, v, c.fpa_sort(11, 53)));
    return sym(z3::expr(c, Z3_mk_fpa_to_fp_float(c, s.rne(), wide, s.sort(ebits, sbits))).simplify());
  }
  // The exact value of a narrower symbolic scalar in this format (widening never rounds).
  template <class N>
  static sym widen(const sym<N>& x) {
    session& s = session::current();
    z3::context& c = s.ctx();
    return sym(z3::expr(c, Z3_mk_fpa_to_fp_float(c, s.rne(), x.expr(), s.sort(ebits, sbits))));
  }

#define ATTNCHECK_SYM_BINARY(op, fn)                                             \
  friend sym operator op(const sym& a, const sym& b) {                           \
    session& s = session::current();                                             \
    return sym(z3::expr(s.ctx(), fn(s.ctx(), s.rne(), a.e_, b.e_)));             \
  }
  ATTNCHECK_SYM_BINARY(+, Z3_mk_fpa_add)
  ATTNCHECK_SYM_BINARY(-, Z3_mk_fpa_sub)
  ATTNCHECK_SYM_BINARY(*, Z3_mk_fpa_mul)
  ATTNCHECK_SYM_BINARY(/, Z3_mk_fpa_div)
#undef ATTNCHECK_SYM_BINARY
  friend sym operator-(const sym& a) { return sym(z3::expr(a.e_.ctx(), Z3_mk_fpa_neg(a.e_.ctx(), a.e_))); }
  sym& operator+=(const sym& o) { return *this = *this + o; }
  sym& operator-=(const sym& o) { return *this = *this - o; }
  sym& operator*=(const sym& o) { return *this = *this * o; }
  sym& operator/=(const sym& o) { return *this = *this / o; }

  // IEEE comparisons: false whenever an operand is NaN; -0 == +0.
#define ATTNCHECK_SYM_COMPARE(op, fn, a, b) \
  friend sym_bool operator op(const sym& x, const sym& y) { return sym_bool(z3::expr(x.e_.ctx(), fn(x.e_.ctx(), a.e_, b.e_))); }
  ATTNCHECK_SYM_COMPARE(<, Z3_mk_fpa_lt, x, y)
  ATTNCHECK_SYM_COMPARE(<=, Z3_mk_fpa_leq, x, y)
  ATTNCHECK_SYM_COMPARE(>, Z3_mk_fpa_lt, y, x)
  ATTNCHECK_SYM_COMPARE(>=, Z3_mk_fpa_leq, y, x)
  ATTNCHECK_SYM_COMPARE(==, Z3_mk_fpa_eq, x, y)
#undef ATTNCHECK_SYM_COMPARE
  friend sym_bool operator!=(const sym& x, const sym& y) { return !(x == y); }

  // Found by argument-dependent lookup from the kernels' unqualified select(c, a, b).
  friend sym select(const sym_bool& c, const sym& a, const sym& b) { return sym(z3::ite(c.expr(), a.e_, b.e_)); }

 private:
  z3::expr e_;
};

// Predicates on symbolic values used by harness assertions (the concrete twins are in
// harness.hpp, so one harness body serves both).
template <class C> sym_bool is_nan(const sym<C>& x) { return sym_bool(x.expr().mk_is_nan()); }
template <class C> sym_bool is_inf(const sym<C>& x) { return sym_bool(x.expr().mk_is_inf()); }
template <class C> sym_bool is_finite(const sym<C>& x) { return !is_nan(x) && !is_inf(x); }
// The sign bit of a number (false for NaN, true for -0): fp.isNegative.
template <class C> sym_bool sign_bit(const sym<C>& x) {
  return sym_bool(z3::expr(x.expr().ctx(), Z3_mk_fpa_is_negative(x.expr().ctx(), x.expr())));
}
// SMT equality (=), not IEEE equality (fp.eq): +0 and -0 differ, NaN equals NaN.
template <class C> sym_bool same_bits(const sym<C>& a, const sym<C>& b) { return sym_bool(a.expr() == b.expr()); }
template <class C> sym<C> abs_of(const sym<C>& x) { return sym<C>(z3::expr(x.expr().ctx(), Z3_mk_fpa_abs(x.expr().ctx(), x.expr()))); }

}  // namespace attncheck::bmc

namespace attncheck {

// The symbolic scalar goes through the same door as every other scalar: exp and log become
// applications of uninterpreted functions (constrained later by validated axioms), sqrt is the
// IEEE square root of the SMT theory (exact, correctly rounded like glibc's sqrt/sqrtf).
template <class C>
struct scalar_traits<bmc::sym<C>> {
  using S = bmc::sym<C>;
  static constexpr format_info format = scalar_traits<C>::format;
  static constexpr double exp_rel = scalar_traits<C>::exp_rel;
  static constexpr double log_rel = scalar_traits<C>::log_rel;
  static S exp(const S& x) {
    return S(bmc::session::current().apply(bmc::uf_application::fn::exp, S::ebits, S::sbits, x.expr()));
  }
  static S log(const S& x) {
    return S(bmc::session::current().apply(bmc::uf_application::fn::log, S::ebits, S::sbits, x.expr()));
  }
  static S sqrt(const S& x) {
    bmc::session& s = bmc::session::current();
    return S(z3::expr(s.ctx(), Z3_mk_fpa_sqrt(s.ctx(), s.rne(), x.expr())));
  }
  static S from_double(double v) { return S::constant_of(v); }
  static constexpr int bit_width = scalar_traits<C>::bit_width;
};

}  // namespace attncheck
