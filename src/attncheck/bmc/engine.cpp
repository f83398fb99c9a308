// attncheck: the BMC engine (Z3): formula from the kernel templates, validated axioms for exp/log,
// non-vacuity, the counterexample query, and the concrete replay of what the solver returns.
#include "attncheck/bmc/engine.hpp"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <chrono>
#include <cmath>
#include <optional>

#include <fmt/format.h>

#include "attncheck/bmc/axioms.hpp"
#include "attncheck/bmc/cvc5_cli.hpp"

namespace attncheck::bmc {
namespace {

using clock_type = std::chrono::steady_clock;

template <class C> struct slot {};
#define ATTNCHECK_BMC_SLOT(C, suffix)                                                          \
  template <> struct slot<C> {                                                                 \
    static const auto& sym_body(const harness_body& b) { return b.sym_##suffix; }              \
    static const auto& con_body(const harness_body& b) { return b.con_##suffix; }              \
    static const auto& sym_mutant(const mutant_def& m) { return m.sym_##suffix; }              \
    static const auto& con_mutant(const mutant_def& m) { return m.con_##suffix; }              \
  };
ATTNCHECK_BMC_SLOT(f16, f16)
ATTNCHECK_BMC_SLOT(bf16, bf16)
ATTNCHECK_BMC_SLOT(float, f32)
ATTNCHECK_BMC_SLOT(double, f64)
#undef ATTNCHECK_BMC_SLOT
// The 8-bit formats: concrete only.
#define ATTNCHECK_BMC_SLOT8(C, suffix)                                                         \
  template <> struct slot<C> {                                                                 \
    static const auto& con_body(const harness_body& b) { return b.con_##suffix; }              \
    static const auto& con_mutant(const mutant_def& m) { return m.con_##suffix; }              \
  };
ATTNCHECK_BMC_SLOT8(e4m3, e4m3)
ATTNCHECK_BMC_SLOT8(e5m2, e5m2)
ATTNCHECK_BMC_SLOT8(e4m3sat, e4m3sat)
#undef ATTNCHECK_BMC_SLOT8

// Formats with a symbolic model (the SMT floating-point theory).
template <class F>
auto dispatch(Dtype f, F&& fn) {
  switch (f) {
    case Dtype::f16: return fn(f16{});
    case Dtype::bf16: return fn(bf16{});
    case Dtype::f32: return fn(float{});
    case Dtype::f64:
    case Dtype::f16_f32:  // not a bmc format (all_formats())
    case Dtype::bf16_f32:
    case Dtype::e4m3:
    case Dtype::e5m2:
    case Dtype::e4m3sat: break;
  }
  return fn(double{});
}
// Every format, for what runs on the concrete kernel (replay, enumeration).
template <class F>
auto dispatch_concrete(Dtype f, F&& fn) {
  if (f == Dtype::e4m3) return fn(e4m3{});
  if (f == Dtype::e5m2) return fn(e5m2{});
  if (f == Dtype::e4m3sat) return fn(e4m3sat{});
  return dispatch(f, std::forward<F>(fn));
}

template <class C>
std::uint64_t canonical_nan_bits() {
  return scalar_traits<C>::bits(lit<C>(std::numeric_limits<double>::quiet_NaN()));
}

template <class C>
std::uint64_t model_bits(const z3::model& m, const z3::expr& var) {
  z3::context& c = var.ctx();
  if (m.eval(var.mk_is_nan(), true).is_true()) return canonical_nan_bits<C>();
  const z3::expr v = m.eval(z3::expr(c, Z3_mk_fpa_to_ieee_bv(c, var)), true);
  std::uint64_t b = 0;
  if (!Z3_get_numeral_uint64(c, v, &b)) throw std::runtime_error("solver model gave no numeral for " + var.to_string());
  return b;
}

template <class C>
replay_result replay_as(const harness_def& h, std::size_t bound, const std::vector<std::uint64_t>& bits,
                        const mutant_def* mutant) {
  kernel_slots<C> slots;
  if (mutant) slot<C>::con_mutant(*mutant)(slots);
  concrete_run<C> run(bound, slots, bits);
  slot<C>::con_body(h.body)(run);
  return {run.assumptions_hold(), run.failed(), run.nonfinite_widened()};
}

// The solver queries of one proof: the formula (axioms, inputs, assumptions) asked with a prefix of
// the assumptions and optionally a negated property, on Z3, on cvc5 (its answer pinned in Z3) or
// on both at once. A fresh, non-incremental solver per query: Z3 switches to its much slower
// incremental core for floating point once push/pop is used.
class prover {
 public:
  prover(z3::context& c, const session& s, const std::vector<z3::expr>& axioms, const std::vector<z3::expr>& vars,
         const std::vector<z3::expr>& assumptions, Dtype f, const run_options& o, clock_type::time_point t0)
      : c_(c), axioms_(axioms), vars_(vars), assumptions_(assumptions), o_(o), t0_(t0),
        fp_exp_(f == Dtype::f16 || f == Dtype::bf16) {  // cvc5 needs --fp-exp for 5/11 and 8/8
    // Every declared constant (inputs and exp/log results): what cvc5 is asked the values of.
    consts_ = vars;
    for (const uf_application& a : s.applications()) consts_.push_back(a.result);
    for (const z3::expr& e : consts_) names_.push_back(e.to_string());
  }

  std::string answered_by;
  std::string last_reason;
  std::optional<z3::model> model;

  z3::check_result solve(std::size_t n_assumptions, const z3::expr* negated_property) {
    z3::solver sol = make_solver(n_assumptions, negated_property);
    if (o_.solver == solver_choice::z3) {
      answered_by = solver_version();
      const z3::check_result res = sol.check();
      if (res == z3::unknown) last_reason = sol.reason_unknown();
      if (res == z3::sat) model = sol.get_model();
      return res;
    }
    cvc5_run cv;
    try {
      cv.start(cvc5_script(sol.to_smt2(), names_), names_.size(), fp_exp_, remaining());
    } catch (const std::runtime_error& e) {
      answered_by = cvc5_version();
      last_reason = e.what();
      return z3::unknown;
    }
    if (o_.solver == solver_choice::cvc5) return take_cvc5(cv.wait(), n_assumptions, negated_property);
    return race(sol, cv, n_assumptions, negated_property);
  }

 private:
  double remaining() const {
    return std::max(1.0, o_.timeout_seconds - std::chrono::duration<double>(clock_type::now() - t0_).count());
  }

  z3::solver make_solver(std::size_t n_assumptions, const z3::expr* negated_property) const {
    // Z3's default solver: measured no slower here than its QF_FP solver on these formulas.
    z3::solver sol(c_);
    z3::params p(c_);
    p.set("timeout", static_cast<unsigned>(remaining() * 1000));
    sol.set(p);
    for (const z3::expr& a : axioms_) sol.add(a);
    // Every input appears in the query even when no assumption mentions it (a lemma over all
    // values): Z3's SMT-LIB2 export declares only the constants its assertions use, and cvc5's
    // (get-value ...) of an undeclared input is a parse error.
    for (const z3::expr& v : vars_) sol.add(v == v);
    for (std::size_t i = 0; i < n_assumptions; ++i) sol.add(assumptions_[i]);
    if (negated_property) sol.add(*negated_property);
    return sol;
  }

  // cvc5's answer as a check_result; a sat answer's values are pinned in a Z3 solver over the
  // same formula, so the model the engine replays is one Z3 confirms (a disagreement is unknown).
  z3::check_result take_cvc5(const cvc5_answer& a, std::size_t n_assumptions, const z3::expr* negated_property) {
    answered_by = cvc5_version();
    if (a.result == cvc5_answer::status::unsat) return z3::unsat;
    if (a.result == cvc5_answer::status::unknown) {
      last_reason = a.reason;
      return z3::unknown;
    }
    z3::solver pin = make_solver(n_assumptions, negated_property);
    for (std::size_t i = 0; i < consts_.size(); ++i) {
      const z3::sort srt = consts_[i].get_sort();
      const unsigned eb = Z3_fpa_get_ebits(c_, srt), sb = Z3_fpa_get_sbits(c_, srt);
      const auto bits = parse_fp_bits(a.value_text[i], eb, sb);
      if (!bits) {
        last_reason = "cannot read cvc5's value of " + names_[i] + ": " + a.value_text[i];
        return z3::unknown;
      }
      const z3::expr bv = c_.bv_val(static_cast<std::uint64_t>(*bits), eb + sb);
      pin.add(consts_[i] == z3::expr(c_, Z3_mk_fpa_to_fp_bv(c_, bv, srt)));
    }
    if (pin.check() != z3::sat) {
      last_reason = "cvc5's model is not a model of the formula for Z3 (solvers disagree)";
      return z3::unknown;
    }
    model = pin.get_model();
    return z3::sat;
  }

  z3::check_result race(z3::solver& sol, cvc5_run& cv, std::size_t n_assumptions, const z3::expr* negated_property) {
    // Portfolio: Z3 here, cvc5 in its process; a watcher stops Z3 as soon as cvc5 has a definite
    // answer, and cvc5 is killed as soon as Z3 has one.
    // bmc.json-solver-portfolio once failed under load with "error: canceled": the watcher's
    // interrupt escaped as an exception. So the interrupt is sent only while Z3 is inside check()
    // (under the lock that also marks the check's end, never onto a later call), and an exception
    // from an interrupted check() is cvc5 having answered first, not an error.
    std::mutex z3_state;
    bool z3_done = false, interrupted = false;
    std::optional<cvc5_answer> cv_answer;
    clock_type::time_point cv_time{}, z3_time{};
    std::thread watcher([&] {
      for (;;) {
        {
          const std::lock_guard<std::mutex> lock(z3_state);
          if (z3_done) return;
        }
        if (cv.finished()) {
          cv_answer = cv.wait();
          cv_time = clock_type::now();
          const std::lock_guard<std::mutex> lock(z3_state);
          if (!z3_done && cv_answer->result != cvc5_answer::status::unknown) {
            interrupted = true;
            c_.interrupt();
          }
          return;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
      }
    });
    // An interrupt that lands in Z3's preprocessing can surface as an exception ("canceled")
    // instead of an unknown result: that is cvc5 having answered first, not an error.
    z3::check_result zres = z3::unknown;
    std::string z3_exception;
    try {
      zres = sol.check();
    } catch (const z3::exception& e) {
      z3_exception = e.msg();
    }
    {
      const std::lock_guard<std::mutex> lock(z3_state);
      z3_time = clock_type::now();
      z3_done = true;
    }
    watcher.join();
    if (!z3_exception.empty() && !interrupted) throw z3::exception(z3_exception.c_str());
    const bool cv_definite = cv_answer && cv_answer->result != cvc5_answer::status::unknown;
    const std::string portfolio = "portfolio: ";
    if (zres != z3::unknown && (!cv_definite || z3_time <= cv_time)) {
      cv.kill();
      if (cv_definite && (zres == z3::sat) != (cv_answer->result == cvc5_answer::status::sat)) {
        last_reason = "Z3 and cvc5 disagree";
        answered_by = portfolio + "z3 and cvc5";
        return z3::unknown;
      }
      answered_by = portfolio + solver_version() + " first";
      if (zres == z3::sat) model = sol.get_model();
      return zres;
    }
    if (!cv_answer) cv_answer = cv.wait();  // Z3 gave up (timeout): cvc5 may still answer
    const std::string z3_reason = !z3_exception.empty() ? "canceled" : zres == z3::unknown ? sol.reason_unknown() : "";
    const z3::check_result res = take_cvc5(*cv_answer, n_assumptions, negated_property);
    answered_by = portfolio + cvc5_version() + " first";
    if (res == z3::unknown) {
      answered_by = portfolio + "neither";
      last_reason = fmt::format("z3: {}; {}: {}", z3_reason == "canceled" ? "timeout" : z3_reason, cvc5_version(), last_reason);
    }
    return res;
  }

  z3::context& c_;
  const std::vector<z3::expr>& axioms_;
  const std::vector<z3::expr>& vars_;
  const std::vector<z3::expr>& assumptions_;
  const run_options& o_;
  clock_type::time_point t0_;
  bool fp_exp_;
  std::vector<z3::expr> consts_;
  std::vector<std::string> names_;
};

template <class C>
run_result prove_as(const harness_def& h, Dtype f, const run_options& o) {
  const auto t0 = clock_type::now();
  run_result r;
  r.id = h.id;
  r.format = f;
  r.bound = o.bound ? o.bound : h.min_bound;
  r.solver = o.solver == solver_choice::z3 ? solver_version() : o.solver == solver_choice::cvc5 ? cvc5_version() : "portfolio";
  std::string answered_by;
  const auto finish = [&](verdict v, std::string reason) {
    if (!answered_by.empty()) r.solver = answered_by;
    r.v = v;
    r.reason = std::move(reason);
    r.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
    return r;
  };
  if (h.uses_transcendentals && f == Dtype::f64)
    return finish(verdict::unsupported, "exp/log axioms are validated for f16, bf16 and f32 only");

  session s;
  kernel_slots<sym<C>> slots;
  if (o.mutant) slot<C>::sym_mutant(*o.mutant)(slots);
  symbolic_run<C> run(s, r.bound, slots);
  slot<C>::sym_body(h.body)(run);
  std::vector<z3::expr> axioms;
  try {
    axioms = instantiate_axioms(s);
  } catch (const std::runtime_error& e) {
    return finish(verdict::unsupported, e.what());
  }
  r.axioms = axioms.size();
  r.assertions = run.checks().size();
  for (const input_var& v : run.vars()) r.inputs.push_back(v);

  z3::context& c = s.ctx();
  prover q(c, s, axioms, run.var_exprs(), run.assumptions(), f, o, t0);
  const auto solve = [&](std::size_t n_assumptions, const z3::expr* negated_property) {
    const z3::check_result res = q.solve(n_assumptions, negated_property);
    answered_by = q.answered_by;
    return res;
  };
  const auto timeout_text = [&](const std::string& why) {
    return why == "canceled" || why == "timeout" || why.rfind("timeout after", 0) == 0
               ? fmt::format("timeout after {:g} s", o.timeout_seconds)
               : why;
  };

  // Non-vacuity: the assumptions alone are satisfiable (then every assertion, which in a
  // straight-line harness is guarded only by the assumptions made before it, is reachable).
  const std::size_t n_as = run.assumptions().size();
  const z3::check_result vac = solve(n_as, nullptr);
  if (vac == z3::unknown) return finish(verdict::unknown, "non-vacuity check: " + timeout_text(q.last_reason));
  r.assumptions_satisfiable = vac == z3::sat;
  if (!r.assumptions_satisfiable) {
    // Which assertions are still reachable: those whose prefix of assumptions is satisfiable.
    for (const auto& ch : run.checks())
      if (solve(ch.assumptions_before, nullptr) == z3::sat) ++r.reachable_assertions;
    return finish(verdict::vacuous, fmt::format("the assumptions are unsatisfiable; {} of {} assertions reachable",
                                                r.reachable_assertions, r.assertions));
  }
  r.reachable_assertions = r.assertions;

  // The property: is there an input satisfying the assumptions that violates an assertion?
  z3::expr all = c.bool_val(true);
  for (const auto& ch : run.checks()) all = all && ch.condition;
  z3::expr violated = !all;
  if (o.finite_witness)  // a witness of non-triviality: the compared values stay finite
    for (const z3::expr& e : run.widened_finite()) violated = violated && e;
  q.model.reset();
  const z3::check_result res = solve(n_as, &violated);
  if (res == z3::unsat) return finish(verdict::proved, "");
  if (res == z3::unknown) return finish(verdict::unknown, timeout_text(q.last_reason));
  const z3::model& m = *q.model;
  for (const z3::expr& v : run.var_exprs()) r.input_bits.push_back(model_bits<C>(m, v));
  for (const auto& ch : run.checks())
    if (m.eval(ch.condition, true).is_false()) r.failed_in_model.push_back(ch.what);
  const replay_result rep = replay_as<C>(h, r.bound, r.input_bits, o.mutant);
  r.failed_on_replay = rep.failed;
  r.nonfinite_widened = rep.nonfinite_widened;
  if (rep.assumptions_hold && !rep.failed.empty())
    return finish(verdict::counterexample, fmt::format("{}", fmt::join(rep.failed, "; ")));
  return finish(verdict::stub_artefact,
                rep.assumptions_hold
                    ? fmt::format("the solver's counterexample ({}) passes on the concrete kernel: the exp/log "
                                  "axioms admit a function the real one is not",
                                  fmt::join(r.failed_in_model, "; "))
                    : "the solver's counterexample violates an assumption when replayed concretely");
}

template <class C>
run_result exhaustive_as(const harness_def& h, Dtype f, const run_options& o, int max_bits) {
  const auto t0 = clock_type::now();
  run_result r;
  r.id = h.id;
  r.format = f;
  r.bound = o.bound ? o.bound : h.min_bound;
  r.solver = "concrete enumeration";
  kernel_slots<C> slots;
  if (o.mutant) slot<C>::con_mutant(*o.mutant)(slots);
  std::vector<std::uint64_t> bits;
  {
    concrete_run<C> probe(r.bound, slots, bits);
    slot<C>::con_body(h.body)(probe);
    r.inputs = probe.vars();
  }
  const int width = scalar_traits<C>::bit_width;
  const int total = width * static_cast<int>(r.inputs.size());
  const auto done = [&](verdict v, std::string why) {
    r.v = v;
    r.reason = std::move(why);
    r.seconds = std::chrono::duration<double>(clock_type::now() - t0).count();
    return r;
  };
  if (total > max_bits)
    return done(verdict::unsupported, fmt::format("{} input bits: more than the {} an exhaustive run enumerates", total, max_bits));
  bits.assign(r.inputs.size(), 0);
  const std::uint64_t mask = width >= 64 ? ~0ull : (1ull << width) - 1;  // f64 never gets here (total > max_bits), but is instantiated
  std::uint64_t failures = 0, held = 0;
  for (std::uint64_t code = 0; code < (1ull << total); ++code) {
    for (std::size_t i = 0; i < bits.size(); ++i) bits[i] = (code >> (i * width)) & mask;
    concrete_run<C> run(r.bound, slots, bits);
    run.skip_names();
    slot<C>::con_body(h.body)(run);
    if (!run.assumptions_hold()) continue;
    ++held;
    if (run.failed().empty()) continue;
    const bool first = failures++ == 0;
    // The reported input: the first failing one; for a witness (finite_witness) the first whose
    // compared values are finite, which ends the search (the mutant's verdict is then known).
    if (first || (o.finite_witness && r.nonfinite_widened && !run.nonfinite_widened())) {
      r.input_bits = bits;
      r.failed_on_replay = run.failed();
      r.nonfinite_widened = run.nonfinite_widened();
    }
    if (o.finite_witness && !r.nonfinite_widened) break;
  }
  r.cases = held;
  r.assumptions_satisfiable = held > 0;
  if (held == 0) return done(verdict::vacuous, "no input satisfies the assumptions");
  if (failures && o.finite_witness && !r.nonfinite_widened)
    return done(verdict::exhaustive_fail, fmt::format("fails with finite compared values (the search stops at the "
                                                      "first such input): {}", fmt::join(r.failed_on_replay, "; ")));
  if (failures)
    return done(verdict::exhaustive_fail, fmt::format("{} of {} inputs fail: {}", failures, held, fmt::join(r.failed_on_replay, "; ")));
  return done(verdict::exhaustive_pass, fmt::format("all {} inputs satisfying the assumptions", held));
}

}  // namespace

const char* name_of(verdict v) {
  switch (v) {
    case verdict::proved: return "proved";
    case verdict::counterexample: return "counterexample";
    case verdict::stub_artefact: return "stub-artefact";
    case verdict::vacuous: return "vacuous";
    case verdict::unknown: return "unknown";
    case verdict::unsupported: return "unsupported";
    case verdict::exhaustive_pass: return "exhaustive-pass";
    case verdict::exhaustive_fail: return "exhaustive-fail";
  }
  return "?";
}

run_result prove(const harness_def& h, Dtype f, const run_options& o) {
  if (is_8bit(f)) {
    run_result r;
    r.id = h.id;
    r.format = f;
    r.bound = o.bound ? o.bound : h.min_bound;
    r.v = verdict::unsupported;
    r.reason = "the 8-bit formats have no SMT model (E4M3 has no infinities); they are checked exhaustively";
    return r;
  }
  return dispatch(f, [&](auto tag) { return prove_as<decltype(tag)>(h, f, o); });
}

std::size_t exhaustive_bound(const harness_def& h, Dtype f, std::size_t max_d, int max_bits) {
  return dispatch_concrete(f, [&](auto tag) -> std::size_t {
    using C = decltype(tag);
    const kernel_slots<C> slots;
    const std::vector<std::uint64_t> none;
    for (std::size_t d = max_d; d >= h.min_bound && d > 0; --d) {
      concrete_run<C> probe(d, slots, none);
      slot<C>::con_body(h.body)(probe);
      if (static_cast<int>(probe.vars().size()) * scalar_traits<C>::bit_width <= max_bits) return d;
    }
    return 0;
  });
}

replay_result replay(const harness_def& h, Dtype f, std::size_t bound, const std::vector<std::uint64_t>& bits,
                     const mutant_def* mutant) {
  return dispatch_concrete(f, [&](auto tag) { return replay_as<decltype(tag)>(h, bound, bits, mutant); });
}

run_result exhaustive(const harness_def& h, Dtype f, const run_options& o, int max_bits) {
  return dispatch_concrete(f, [&](auto tag) { return exhaustive_as<decltype(tag)>(h, f, o, max_bits); });
}

std::string replay_command(const run_result& r, const mutant_def* mutant) {
  std::vector<std::string> hex;
  for (std::uint64_t b : r.input_bits) hex.push_back(fmt::format("{:x}", b));
  return fmt::format("attncheck bmc --harness {} --format {} --bound {} --replay {}{}", r.id, name_of(r.format), r.bound,
                     fmt::join(hex, ","), mutant ? " --mutant " + mutant->name : "");
}

const char* name_of(solver_choice s) {
  switch (s) {
    case solver_choice::z3: return "z3";
    case solver_choice::cvc5: return "cvc5";
    case solver_choice::portfolio: return "portfolio";
  }
  return "?";
}

std::string solver_version() {
  unsigned major, minor, build, rev;
  Z3_get_version(&major, &minor, &build, &rev);
  return fmt::format("z3 {}.{}.{}", major, minor, build);
}

}  // namespace attncheck::bmc
