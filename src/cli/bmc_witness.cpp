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

std::string trivial_text(const std::string& bound_name, std::size_t bound, const std::vector<std::string>& why) {
  return fmt::format("trivial at {} = {}: no mutant it catches is refuted there through the asserted bound with "
                     "finite values ({})",
                     bound_name, bound, why.empty() ? "it catches no mutant" : join(why, "; "));
}

}  // namespace

Witness smt_witness(const bmc::harness_def& h, Dtype f, std::size_t bound, bmc::solver_choice solver,
                    double timeout_seconds) {
  Witness w;
  std::vector<std::string> why;
  for (const bmc::mutant_def& m : bmc::mutants()) {
    if (!catches(m.caught_by, h.id)) continue;
    bmc::run_options o;
    o.bound = bound;
    o.solver = solver;
    o.timeout_seconds = timeout_seconds;
    o.mutant = &m;
    o.finite_witness = true;
    const bmc::run_result r = bmc::prove(h, f, o);
    w.seconds += r.seconds;
    if (r.v == bmc::verdict::counterexample && !r.nonfinite_widened) {
      w.nontrivial = true;
      w.text = fmt::format("non-trivial at {}={}: mutant {} fails '{}' on the concrete kernel, no value compared with a "
                           "derived bound NaN or infinite (replay: {})",
                           h.bound_name,
                           bound, m.name, join(r.failed_on_replay, "; "), bmc::replay_command(r, &m));
      return w;
    }
    why.push_back(m.name + ": " +
                  (r.v == bmc::verdict::proved           ? std::string("no counterexample with finite compared values")
                   : r.v == bmc::verdict::counterexample ? std::string("refuted only through a NaN or infinity")
                                                         : std::string(bmc::name_of(r.v)) +
                                                               (r.reason.empty() ? "" : " (" + r.reason + ")")));
  }
  w.text = trivial_text(h.bound_name, bound, why);
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
    // "gappa could not prove: <goal>, best: [...]": the broken kernel's error exceeds the bound.
    if (r.v != bmc::verdict::proved && r.reason.rfind("gappa could not prove", 0) == 0) {
      w.nontrivial = true;
      w.text = fmt::format("non-trivial at d={}: for mutant {} gappa cannot prove the asserted bound ({})", d, m.name,
                           r.reason);
      return w;
    }
    why.push_back(m.name + ": " + (r.v == bmc::verdict::proved ? std::string("proved") : r.reason));
  }
  w.text = trivial_text("d", d, why);
  return w;
}

}  // namespace attncheck::cli
