// attncheck CLI: the non-triviality witness of a proved harness row (bmc_witness.hpp).
#include "cli/bmc_witness.hpp"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <iostream>
#include <optional>
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

// A recorded witness of (h, f, bound) replayed on its mutant: the witness when it still fails
// there with finite compared values; otherwise nullopt, and *stale says which record no longer
// reproduces and why.
std::optional<Witness> replayed(const bmc::harness_def& h, Dtype f, std::size_t bound, const WitnessRecord& record,
                                std::vector<std::string>* stale) {
  const auto start = std::chrono::steady_clock::now();
  for (const bmc::regression_case& c : record.cases) {
    if (c.harness != h.id || c.format != f || c.bound != bound || c.mutant.empty()) continue;
    const std::string file = std::filesystem::path(c.source).filename().string();
    const bmc::mutant_def* m = bmc::find_mutant(c.mutant);
    if (!m || !catches(m->caught_by, h.id)) {
      stale->push_back(file + ": " + (m ? "the harness no longer catches mutant " : "no mutant named ") + c.mutant);
      continue;
    }
    const bmc::replay_result rr = bmc::replay(h, f, bound, c.bits, m);
    if (!rr.assumptions_hold) stale->push_back(file + ": the bits no longer satisfy the assumptions");
    else if (rr.failed.empty()) stale->push_back(file + ": mutant " + c.mutant + " passes it now");
    else if (rr.nonfinite_widened) stale->push_back(file + ": refutes only through a NaN or infinity now");
    else {
      bmc::run_result r;
      r.id = h.id;
      r.format = f;
      r.bound = bound;
      r.input_bits = c.bits;
      r.failed_on_replay = rr.failed;
      Witness w = found(h, bound, *m, r, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      w.text += " [recorded witness " + file + " replayed, no solver query]";
      return w;
    }
  }
  return std::nullopt;
}

// Writes witness r of mutant m (a search's) to record.dir; says so, or why not, on stderr.
void record_witness(const WitnessRecord& record, const bmc::run_result& r, const bmc::mutant_def& m) {
  const bmc::regression_case c = bmc::case_of(r, &m);
  const std::string path = (std::filesystem::path(record.dir) / bmc::case_file_name(c)).string();
  try {
    std::error_code ec;
    std::filesystem::create_directories(record.dir, ec);
    // The case format, under a header of its own (render_case's speaks of regression cases).
    std::string text = bmc::render_case(c);
    while (text.rfind('#', 0) == 0) text.erase(0, text.find('\n') + 1);
    write_atomically(path, "# attncheck bmc non-triviality witness (docs/bmc.md, \"Recorded witnesses\"): input bits on\n"
                           "# which the mutant fails the harness at this format and bound, found by a solver search\n"
                           "# (`attncheck bmc --witnesses DIR --record-witnesses`) and replayed, without one, by\n"
                           "# `attncheck bmc --witnesses DIR` (CI: bmc.contract-bounds).\n" + text);
    std::cerr << "bmc: recorded witness " << path << "\n";
  } catch (const std::exception& e) {
    std::cerr << "error: cannot record the witness in " << path << ": " << e.what() << "\n";
  }
}

}  // namespace

Witness smt_witness(const bmc::harness_def& h, Dtype f, std::size_t bound, bool enumerate,
                    bmc::solver_choice solver, double timeout_seconds, const WitnessRecord* record) {
  std::vector<std::string> stale;
  if (record) {
    if (auto w = replayed(h, f, bound, *record, &stale)) return *w;
  }
  // "searched again" when a record of this row went stale: a reader then knows to refresh it.
  const std::string again = stale.empty() ? "" : " [recorded witness stale (" + join(stale, "; ") + "): searched again]";
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
    if (refuted && !r.nonfinite_widened) {
      if (record && record->record) record_witness(*record, r, m);
      Witness shown = found(h, bound, m, r, w.seconds);
      shown.text += again;
      return shown;
    }
    why.push_back(m.name + ": " +
                  (r.v == bmc::verdict::proved            ? std::string("no counterexample with finite compared values")
                   : r.v == bmc::verdict::exhaustive_pass ? std::string("passes on every input")
                   : refuted                              ? std::string("refuted only through a NaN or infinity")
                                                          : std::string(bmc::name_of(r.v)) +
                                                                (r.reason.empty() ? "" : " (" + r.reason + ")")));
  }
  w.text = trivial_text(h.bound_name, bound, why, undecided) + again;
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
