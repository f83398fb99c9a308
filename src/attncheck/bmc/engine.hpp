// attncheck: runs a harness: builds its formula from the kernel templates, checks non-vacuity,
// asks the solver for a counterexample, and replays any counterexample on the concrete kernel.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attncheck/bmc/harness.hpp"

namespace attncheck::bmc {

enum class verdict {
  proved,          // no input satisfying the assumptions violates an assertion (unsat)
  counterexample,  // the solver found one AND it fails on the concrete kernel
  stub_artefact,   // the solver found one that passes on the concrete kernel: the axioms are too weak
  vacuous,         // the assumptions (or an assertion's path condition) are unsatisfiable
  unknown,         // timeout or solver gave up: reason says which
  unsupported,     // e.g. exp/log at a format whose axioms are not validated
  exhaustive_pass, // concrete enumeration of every input: no failure
  exhaustive_fail,
};
const char* name_of(verdict v);

// Which solver answers: Z3 in-process, cvc5 as a child process on Z3's SMT-LIB2 export
// (cvc5_cli.hpp), or both at once with the first definite answer (sat/unsat) taken.
enum class solver_choice { z3, cvc5, portfolio };
const char* name_of(solver_choice s);

struct run_options {
  std::size_t bound = 0;       // 0: the harness's min_bound (the contract's bound is the CLI's to pass)
  solver_choice solver = solver_choice::z3;
  double timeout_seconds = 60;
  const mutant_def* mutant = nullptr;
  // A non-triviality witness (attncheck bmc runs one per proved row, with a mutant the harness
  // catches): the counterexample must also keep every value the harness compares with a derived
  // bound (h.widen) finite, so that it refutes the bound itself and not through a NaN or infinity.
  bool finite_witness = false;
};

struct run_result {
  std::string id;
  Dtype format = Dtype::f32;
  std::size_t bound = 0;
  verdict v = verdict::unknown;
  std::string reason;        // unknown/unsupported/vacuous: why; counterexample: the failed checks
  std::string solver;        // which solver answered ("z3 4.8.12", "cvc5 1.0.3", "portfolio: cvc5 1.0.3 first")
  double seconds = 0;
  std::size_t assertions = 0, axioms = 0;
  bool assumptions_satisfiable = false;
  std::size_t reachable_assertions = 0;
  // Counterexample (solver model) as input bits, in any() order, and the replay on the kernel.
  std::vector<input_var> inputs;
  std::vector<std::uint64_t> input_bits;
  std::vector<std::string> failed_in_model, failed_on_replay;
  std::uint64_t cases = 0;  // exhaustive: inputs enumerated
  // Counterexample: whether, replayed on the concrete kernel, a value the harness compared with a
  // derived bound (through h.widen) was NaN or infinite.
  bool nonfinite_widened = false;
};

// Symbolic check of one harness at one format and bound (Z3).
run_result prove(const harness_def& h, Dtype f, const run_options& o);

// Concrete replay of input bits (a counterexample) on the real kernel (or the mutant's).
struct replay_result {
  bool assumptions_hold = false;
  std::vector<std::string> failed;
  bool nonfinite_widened = false;  // a value compared with a derived bound was NaN or infinite
};
replay_result replay(const harness_def& h, Dtype f, std::size_t bound, const std::vector<std::uint64_t>& bits,
                     const mutant_def* mutant);

// Concrete enumeration of every input bit pattern (only when the inputs total <= max_bits bits).
run_result exhaustive(const harness_def& h, Dtype f, const run_options& o, int max_bits = 24);

// The largest row length d <= max_d (and >= the harness's min_bound) whose inputs total at most
// max_bits bits, i.e. what exhaustive() can enumerate; 0 if none.
std::size_t exhaustive_bound(const harness_def& h, Dtype f, std::size_t max_d, int max_bits = 24);

// The replay command for a counterexample.
std::string replay_command(const run_result& r, const mutant_def* mutant);

std::string solver_version();

}  // namespace attncheck::bmc
