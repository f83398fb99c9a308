// attncheck: harnesses proved by Gappa (IDs GAPPA-…): a kernel template recorded at
// gappa_scalar<C> over stated input ranges, with a goal |rounded − exact| ≤ the project's derived
// bound. They run in `attncheck bmc` beside the SMT harnesses and report the same rows.
#pragma once

#include <cstddef>
#include <functional>
#include <source_location>
#include <string>
#include <vector>

#include "attncheck/bmc/engine.hpp"
#include "attncheck/bmc/gappa.hpp"

namespace attncheck::bmc {

// One script: what Gappa must prove, and what the row reports.
struct gappa_problem {
  std::string script;
  double bound = 0;          // the claimed bound of |rounded - exact|, as printed in the script
  std::size_t roundings = 0; // rounded operations the kernel performed (each also range-checked)
  bool relative = false;     // the goal is the relative error: rounded = exact (1 + θ), |θ| <= bound
  // Further scripts when the input box is split into cases (each with the same goal, the union of
  // their hypotheses and script's is the harness's box): proved only if script and every case are.
  std::vector<std::string> cases;
};

// A Gappa mutant: a broken kernel or a claimed bound that is too tight; the harness applies it.
struct gappa_mutant_def {
  std::string name, description;
  std::vector<std::string> caught_by;
  std::source_location where{};  // where it is registered
};

struct gappa_harness_def {
  std::string id, contract, property;
  std::string ranges;  // the input-range hypotheses, in words (non-vacuity: a point of them)
  // The row length d and the formats are the contract's (`bound:`, `reached:`), not the harness's.
  // The script for format f at row length d; mutant is empty for the reference kernel and bound.
  std::function<gappa_problem(Dtype f, std::size_t d, const std::string& mutant)> build;
  std::source_location where{};  // where it is registered
};

// The same registry as register_harness (bmc/registry.cpp): one ID space, one store per kind.
bool register_gappa_harness(gappa_harness_def h, std::source_location where = std::source_location::current());
bool register_gappa_mutant(gappa_mutant_def m, std::source_location where = std::source_location::current());
const std::vector<gappa_harness_def>& gappa_harnesses();
const std::vector<gappa_mutant_def>& gappa_mutants();
const gappa_harness_def* find_gappa_harness(const std::string& id);
const gappa_mutant_def* find_gappa_mutant(const std::string& name);

// The formats Gappa harnesses run at (binary16, bfloat16, binary32, binary64).
bool gappa_supports(Dtype f);

// fn(T{}) with the scalar type T of the format: the one format switch of the Gappa harnesses'
// builders (a format gappa_supports does not is built as binary64; prove_gappa refuses it first).
template <class F>
auto with_gappa_format(Dtype f, F&& fn) {
  switch (f) {
    case Dtype::f16: return fn(f16{});
    case Dtype::bf16: return fn(bf16{});
    case Dtype::f32: return fn(float{});
    default: return fn(double{});
  }
}

// Builds the script and runs gappa: proved, or unknown with gappa's best enclosure as the reason.
// The row's solver is "gappa 1.4.1"; assertions counts the error goal and the no-overflow goals.
// script_out, if given, receives the script gappa ran.
run_result prove_gappa(const gappa_harness_def& h, Dtype f, std::size_t d, double timeout_seconds,
                       const std::string& mutant, std::string* script_out = nullptr);

}  // namespace attncheck::bmc
