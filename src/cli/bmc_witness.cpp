// attncheck CLI: the non-triviality witness of a proved harness row (bmc_witness.hpp).
#include "cli/bmc_witness.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "attncheck/bmc/gappa_run.hpp"
#include "cli/cli.hpp"

namespace attncheck::cli {

namespace {

bool catches(const std::vector<std::string>& caught_by, const std::string& id) {
  return std::find(caught_by.begin(), caught_by.end(), id) != caught_by.end();
}

// "trivial at d = N" when every mutant's query was answered; "not shown non-trivial" when one
// timed out (the row is not counted either way).
std::string trivial_text(const std::string& bound_name, std::size_t bound, const std::vector<std::string>& why,
                         bool undecided) {
  return fmt::format("{} at {} = {}: no mutant it catches is refuted there through the asserted bound with "
                     "finite values ({})",
                     undecided ? "not shown non-trivial" : "trivial", bound_name, bound,
                     why.empty() ? "it catches no mutant" : join(why, "; "));
}

// The witness text of mutant m's counterexample r (replayed on the concrete mutant).
Witness found(const bmc::harness_def& h, std::size_t bound, const bmc::mutant_def& m, const bmc::run_result& r,
              double seconds) {
  std::vector<std::string> failed;  // each assertion once (a loop's check fails at several i)
  for (const auto& c : r.failed_on_replay)
    if (std::find(failed.begin(), failed.end(), c) == failed.end()) failed.push_back(c);
  return {true,
          fmt::format("non-trivial at {}={}: mutant {} fails '{}' on the concrete kernel, no value compared with a "
                      "derived bound NaN or infinite (replay: {})",
                      h.bound_name, bound, m.name, join(failed, "; "), bmc::replay_command(r, &m)),
          seconds};
}

}  // namespace

Witness smt_witness(const bmc::harness_def& h, Dtype f, std::size_t bound, bool enumerate,
                    bmc::solver_choice solver, double timeout_seconds) {
  Witness w;
  std::vector<std::string> why;
  bool undecided = false;
  for (const bmc::mutant_def& m : bmc::mutants()) {
    if (!catches(m.caught_by, h.id)) continue;
    bmc::run_options o;
    o.bound = bound;
    o.solver = solver;
    o.timeout_seconds = timeout_seconds;
    o.mutant = &m;
    o.finite_witness = true;
    const bmc::run_result r = enumerate ? bmc::exhaustive(h, f, o) : bmc::prove(h, f, o);
    w.seconds += r.seconds;
    undecided = undecided || r.v == bmc::verdict::unknown;
    const bool refuted = r.v == bmc::verdict::counterexample || r.v == bmc::verdict::exhaustive_fail;
    if (refuted && !r.nonfinite_widened) return found(h, bound, m, r, w.seconds);
    why.push_back(m.name + ": " +
                  (r.v == bmc::verdict::proved            ? std::string("no counterexample with finite compared values")
                   : r.v == bmc::verdict::exhaustive_pass ? std::string("passes on every input")
                   : refuted                              ? std::string("refuted only through a NaN or infinity")
                                                          : std::string(bmc::name_of(r.v)) +
                                                                (r.reason.empty() ? "" : " (" + r.reason + ")")));
  }
  w.text = trivial_text(h.bound_name, bound, why, undecided);
  return w;
}

Witness gappa_witness(const bmc::gappa_harness_def& g, Dtype f, std::size_t d, double timeout_seconds) {
  Witness w;
  std::vector<std::string> why;
  for (const bmc::gappa_mutant_def& m : bmc::gappa_mutants()) {
    if (!catches(m.caught_by, g.id)) continue;
    std::string script;
    const bmc::run_result r = bmc::prove_gappa(g, f, d, timeout_seconds, m.name, &script);
    w.seconds += r.seconds;
    // "... gappa could not prove: <goal>, best: [...]": the broken kernel's error exceeds the bound
    // (not "the kernel's exact expression is not the specification", nor a timeout).
    if (r.v != bmc::verdict::proved && r.reason.find("gappa could not prove") != std::string::npos &&
        r.reason.find("not the specification") == std::string::npos) {
      w.nontrivial = true;
      w.text = fmt::format("non-trivial at d={}: for mutant {} gappa cannot prove the asserted bound, its enclosure "
                           "of the error exceeds it; a sign, not a refutation: no input breaking the bound is "
                           "exhibited ({})",
                           d, m.name, r.reason);
      return w;
    }
    why.push_back(m.name + ": " + (r.v == bmc::verdict::proved ? std::string("proved") : r.reason));
  }
  w.text = trivial_text("d", d, why, false);
  return w;
}

}  // namespace attncheck::cli
