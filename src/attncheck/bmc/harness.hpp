// attncheck: harnesses in Kani's style (nondet inputs, assume, assert, a bound), written once as
// a template over the run context H and executed two ways: symbolically (H = symbolic_run<C>,
// building an SMT query over the kernel templates) and concretely (H = concrete_run<C>, replaying
// a counterexample or enumerating every input of a small format on the real kernel).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <source_location>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "attncheck/bmc/kernel_slots.hpp"
#include "attncheck/bmc/predicates.hpp"
#include "attncheck/bmc/symbolic.hpp"
#include "attncheck/scalar/dtype.hpp"
#include "attncheck/scalar/fp8.hpp"

namespace attncheck::bmc {

// A named input of a harness: its bit width and, after a run, its value's bits.
struct input_var {
  std::string name;
  int bits = 0;
};

// Symbolic run: every any() is a fresh SMT constant, assume/check record formulas.
template <class C>
class symbolic_run {
 public:
  using scalar = sym<C>;
  // Sums of outputs are formed in binary64, symbolically and concretely alike (so a replay
  // computes exactly what the solver modelled); harness bounds add the binary64 summation error.
  // (Exact real arithmetic was tried: Z3 4.8.12 then answers "incomplete" instead of a model.)
  using wide = sym<double>;
  using cond = sym_bool;

  symbolic_run(session& s, std::size_t bound, const kernel_slots<scalar>& k) : s_(s), bound_(bound), k_(k) {}

  std::size_t bound() const { return bound_; }
  const kernel_slots<scalar>& k() const { return k_; }
  scalar any(const std::string& name) {
    vars_.push_back({name, scalar_traits<C>::bit_width});
    exprs_.push_back(s_.constant(name, scalar::ebits, scalar::sbits));
    return scalar(exprs_.back());
  }
  std::vector<scalar> any_vector(const std::string& name, std::size_t n) {
    std::vector<scalar> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(any(name + "[" + std::to_string(i) + "]"));
    return v;
  }
  void assume(const cond& c) { assumptions_.push_back(c.expr()); }
  // Add the validated tangent axiom of log at t = 1/k (axioms.hpp) to this query's log stubs.
  void use_log_tangent(std::size_t k) { s_.use_log_tangent(static_cast<int>(k)); }
  void check(const cond& c, const std::string& what) { checks_.push_back({c.expr(), what, assumptions_.size()}); }
  // A value widened is one the harness compares with a derived bound: its finiteness is recorded,
  // so that a non-triviality witness (run_options::finite_witness) can require it.
  wide widen(const scalar& x) const {
    widened_finite_.push_back(is_finite(x).expr());
    return wide::widen(x);
  }
  wide wide_const(double v) const { return wide::constant_of(v); }

  struct recorded_check {
    z3::expr condition;
    std::string what;
    std::size_t assumptions_before;  // the path condition: assumptions made before it
  };
  session& sess() { return s_; }
  const std::vector<input_var>& vars() const { return vars_; }
  const std::vector<z3::expr>& var_exprs() const { return exprs_; }
  const std::vector<z3::expr>& assumptions() const { return assumptions_; }
  const std::vector<recorded_check>& checks() const { return checks_; }
  const std::vector<z3::expr>& widened_finite() const { return widened_finite_; }

 private:
  session& s_;
  std::size_t bound_;
  const kernel_slots<scalar>& k_;
  std::vector<input_var> vars_;
  std::vector<z3::expr> exprs_, assumptions_;
  std::vector<recorded_check> checks_;
  mutable std::vector<z3::expr> widened_finite_;
};

// Concrete run: any() reads the next value from given bits (a counterexample, or the enumerator's
// current input); the checks are evaluated on the real kernel, and failures are recorded only
// while every assumption so far held.
template <class C>
class concrete_run {
 public:
  using scalar = C;
  using wide = double;
  using cond = bool;

  concrete_run(std::size_t bound, const kernel_slots<C>& k, const std::vector<std::uint64_t>& bits)
      : bound_(bound), k_(k), bits_(bits) {}

  std::size_t bound() const { return bound_; }
  const kernel_slots<C>& k() const { return k_; }
  C any(const std::string& name) {
    if (record_names_) vars_.push_back({name, scalar_traits<C>::bit_width});
    const std::size_t i = next_++;
    return scalar_traits<C>::from_bits(i < bits_.size() ? bits_[i] : 0);
  }
  std::vector<C> any_vector(const std::string& name, std::size_t n) {
    std::vector<C> v;
    for (std::size_t i = 0; i < n; ++i) v.push_back(record_names_ ? any(name + "[" + std::to_string(i) + "]") : any(name));
    return v;
  }
  // An enumeration runs the body millions of times and needs the inputs' names only once.
  void skip_names() { record_names_ = false; }
  void assume(bool c) { holds_ = holds_ && c; }
  // The real log satisfies the tangent axioms (validated on every input): nothing to add.
  void use_log_tangent(std::size_t) {}
  void check(bool c, const std::string& what) {
    ++checks_;
    if (holds_ && !c) failed_.push_back(what);
  }
  double widen(C x) const {
    const double v = to_double(x);
    nonfinite_widened_ = nonfinite_widened_ || !std::isfinite(v);
    return v;
  }
  double wide_const(double v) const { return v; }

  bool assumptions_hold() const { return holds_; }
  std::size_t checks() const { return checks_; }
  const std::vector<std::string>& failed() const { return failed_; }
  const std::vector<input_var>& vars() const { return vars_; }
  // Whether a value the harness compared with a derived bound (through widen) was NaN or infinite.
  bool nonfinite_widened() const { return nonfinite_widened_; }

 private:
  std::size_t bound_;
  const kernel_slots<C>& k_;
  const std::vector<std::uint64_t>& bits_;
  std::vector<input_var> vars_;
  std::size_t next_ = 0;
  bool record_names_ = true;
  bool holds_ = true;
  std::size_t checks_ = 0;
  std::vector<std::string> failed_;
  mutable bool nonfinite_widened_ = false;
};

// The formats a harness runs at (all_formats()): the Dtypes whose arithmetic is their storage
// (scalar/dtype.hpp), named by their storage alone ("f16": f16@f16), as --format and every bmc
// report spell them. f64 is offered only for harnesses without exp/log (their axioms cannot be
// validated on every binary64 input). The 8-bit formats E4M3 and E5M2 have no symbolic model (the
// SMT theory has no format without infinities): they run on the concrete kernel only, by
// enumerating every input (exhaustive()).
using attncheck::Dtype;
const char* name_of(Dtype f);
std::vector<Dtype> all_formats();

template <class F> struct type_list {};
using concrete_types = std::tuple<f16, bf16, float, double>;

// A harness body instantiated for every format, symbolically and concretely.
struct harness_body {
  std::function<void(symbolic_run<f16>&)> sym_f16;
  std::function<void(symbolic_run<bf16>&)> sym_bf16;
  std::function<void(symbolic_run<float>&)> sym_f32;
  std::function<void(symbolic_run<double>&)> sym_f64;
  std::function<void(concrete_run<f16>&)> con_f16;
  std::function<void(concrete_run<bf16>&)> con_bf16;
  std::function<void(concrete_run<float>&)> con_f32;
  std::function<void(concrete_run<double>&)> con_f64;
  std::function<void(concrete_run<e4m3>&)> con_e4m3;
  std::function<void(concrete_run<e5m2>&)> con_e5m2;
  std::function<void(concrete_run<e4m3sat>&)> con_e4m3sat;
};
template <class Body>
harness_body make_body() {
  const Body b{};
  return {b, b, b, b, b, b, b, b, b, b, b};
}

// A mutant: a broken kernel plugged into the slots, with the harnesses that must catch it.
struct mutant_def {
  std::string name, description;
  std::vector<std::string> caught_by;
  std::function<void(kernel_slots<sym<f16>>&)> sym_f16;
  std::function<void(kernel_slots<sym<bf16>>&)> sym_bf16;
  std::function<void(kernel_slots<sym<float>>&)> sym_f32;
  std::function<void(kernel_slots<sym<double>>&)> sym_f64;
  std::function<void(kernel_slots<f16>&)> con_f16;
  std::function<void(kernel_slots<bf16>&)> con_bf16;
  std::function<void(kernel_slots<float>&)> con_f32;
  std::function<void(kernel_slots<double>&)> con_f64;
  std::function<void(kernel_slots<e4m3>&)> con_e4m3;
  std::function<void(kernel_slots<e5m2>&)> con_e5m2;
  std::function<void(kernel_slots<e4m3sat>&)> con_e4m3sat;
  std::source_location where{};  // where it is registered (register_mutant's call)
};
template <class M>
mutant_def make_mutant() {
  const auto a = [](auto& k) { M::apply(k); };
  return {M::name, M::description, M::caught_by(), a, a, a, a, a, a, a, a, a, a, a};
}

// A harness or a lemma. A vector harness checks a property of a whole row up to its bound; a
// lemma checks one step (one element) for every value of the format, independent of d. A vector
// harness that names lemmas and a composition argument is reported "proved for all d" when
// every lemma is proved in the same run.
// The bound a harness runs at and the formats it claims are not here: they are the contract's
// (`bound:` and `reached:` of its entry in contracts/<stem>.yaml), the only place they are written.
struct harness_def {
  std::string id;           // KANI-SM-002, BMC-SLIP-001, or a lemma ID LEM-SM-001
  std::string contract;     // contract ID (empty for lemmas)
  std::string property;     // one line
  bool lemma = false;
  bool uses_transcendentals = false;  // exp/log: f16, bf16, f32 only
  std::size_t min_bound = 1;        // the shortest row the body can read (not a claim: the YAML's bound is)
  std::vector<std::string> lemmas;  // for an all-d composition
  std::string composition;          // the argument, in words
  harness_body body;
  std::string bound_name = "d";     // what the bound counts, as rows print it ("d=4"; KANI-AEQ-002: "m=4" keys)
  std::source_location where{};       // where it is registered (register_harness's call)
  // What the all-d row proves when it is less than the bounded harness checks, printed with that
  // row (BMC-ASCL-003: H >= 0 for every d, not the finiteness its bounded rows also check).
  std::string all_d_covers = "";
};

// One registry for every harness, lemma and mutant of `attncheck bmc`, SMT and Gappa alike
// (gappa_harness.hpp registers into it too): IDs and mutant names are unique across both, and
// each entry records where it was registered, for `attncheck show`.
bool register_harness(harness_def h, std::source_location where = std::source_location::current());
bool register_mutant(mutant_def m, std::source_location where = std::source_location::current());
const std::vector<harness_def>& harnesses();
const std::vector<mutant_def>& mutants();
const harness_def* find_harness(const std::string& id);
const mutant_def* find_mutant(const std::string& name);

}  // namespace attncheck::bmc
