// attncheck CLI: the terminal report of `attncheck gate`.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "attncheck/text/numbers.hpp"
#include "cli/cli.hpp"
#include "cli/gate.hpp"
#include "cli/table.hpp"

namespace attncheck::cli {

std::string error_ratio_text(double ratio) {
  if (ratio == 0) return "-";
  if (std::isinf(ratio) || std::isnan(ratio)) return "inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2g", ratio);
  return buf;
}

bool use_color(int fd) {
  const char* no_color = std::getenv("NO_COLOR");
  if (no_color && *no_color) return false;
  const char* term = std::getenv("TERM");
  if (term && std::strcmp(term, "dumb") == 0) return false;
  return ::isatty(fd) != 0;
}

namespace {
// SGR colours: green for a pass, red for a failure, yellow for a check that could not judge.
std::string paint(const GateReport& r, const std::string& text, property::Verdict v) {
  if (!r.color) return text;
  const char* code = v == property::Verdict::pass ? "32" : v == property::Verdict::fail ? "1;31" : "1;33";
  return std::string("\033[") + code + "m" + text + "\033[0m";
}

std::string seconds_text(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2fs", s);
  return buf;
}

// Prefixes every line of text (the property's multi-line counterexample) with indent.
std::string indented(const std::string& text, const std::string& indent) {
  std::string out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out += line.empty() ? "\n" : indent + line + "\n";
  return out;
}

// A check that did not pass, failure first: the verdict and the check, the likely cause the
// contract names, the labelled figures, the shrunk counterexample, the replay line, then the worst
// failing case found (when shrinking left a milder one) and any message.
std::string problem_block(const GateReport& r, const GateRow& row) {
  const property::Outcome& o = row.outcome;
  std::string s = "\n";
  s += paint(r, std::string(property::verdict_name(o.verdict)), o.verdict) + " " + o.test_id + " [" + row.dtype() + "]  contract " +
       row.contract + ", obligations " + (row.obligations.empty() ? "-" : join(row.obligations, ", ")) +
       ", kernels " + o.kernels + "\n";
  if (const std::string cause = likely_cause(r, o); !cause.empty() && o.verdict == property::Verdict::fail)
    s += "  Likely cause: " + cause + "\n";
  if (row.has_property)
    if (const std::string figures = failure_figures(o); !figures.empty()) s += "  " + figures + "\n";
  if (!o.counterexample.empty())
    s += "  Counterexample (shrunk):\n" + indented(r.verbose ? o.counterexample : without_draws(o.counterexample), "    ");
  if (!o.message.empty()) s += "  Message:\n" + indented(o.message, "    ");
  s += "  Replay: " + o.replay + "\n";
  if (!o.worst_failure.empty())
    s += "  Worst failing case found (error/allowance " + ratio_figure(o.worst_failure_ratio) + "):\n" +
         indented(o.worst_failure, "    ");
  return s;
}
}  // namespace

std::string render_text(const GateReport& r) {
  std::string s = "attncheck " + r.version + "  seed " + hex_u64(r.seed) + "  cases " + std::to_string(r.cases) +
                  "  kernels " + r.kernels +
                  (r.tolerance == "derived" ? std::string() : "  tolerance " + r.tolerance) + "\n\n";

  // What failed comes first, before the table: a reader's first screen holds the cause, the
  // counterexample and the replay line (tests/reports/check_failure_first.py).
  bool any_problem = false;
  for (const GateRow& row : r.rows)
    if (!row.passed()) {
      s += problem_block(r, row).substr(any_problem ? 0 : 1);
      any_problem = true;
    }
  if (any_problem) s += "\n";

  Table t;
  t.header = {"contract", "obligations", "test", "dtype", "verdict", "cases"};
  t.right_aligned = {false, false, false, false, false, true};
  if (r.timings) {
    t.header.push_back("time");
    t.right_aligned.push_back(true);
  }
  // Tightness: error / derived allowance, largest and median over every observation.
  t.header.push_back("worst");
  t.right_aligned.push_back(true);
  t.header.push_back("median");
  t.right_aligned.push_back(true);
  for (const GateRow& row : r.rows) {
    const property::Outcome& o = row.outcome;
    std::vector<std::string> cells = {row.contract, row.obligations.empty() ? "-" : join(row.obligations, ","),
                                      o.test_id,    row.dtype(),
                                      paint(r, std::string(property::verdict_name(o.verdict)), o.verdict), std::to_string(o.cases)};
    if (r.timings) cells.push_back(row.has_property ? seconds_text(o.seconds) : "-");
    cells.push_back(error_ratio_text(o.worst_ratio));
    cells.push_back(error_ratio_text(o.median_ratio));
    t.rows.push_back(std::move(cells));
  }
  if (!r.quiet) s += t.render();
  if (r.coverage) s += render_coverage_text(r);

  // Measured facts the checks reported (e.g. the smallest distance an exhaustive search found).
  for (const GateRow& row : r.rows)
    for (const std::string& f : row.outcome.findings) s += "\n" + row.outcome.test_id + " [" + row.dtype() + "]: " + f;
  if (std::any_of(r.rows.begin(), r.rows.end(), [](const GateRow& row) { return !row.outcome.findings.empty(); })) s += "\n";


  // Where the reference values came from: the tiered oracle's certification counts (a run).
  oracle::tiered::tier_counts c;
  for (const GateRow& row : r.rows) c += row.outcome.certified;
  if (c.total() > 0 && !r.quiet) {
    auto share = [&](std::size_t k) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3g%%", 100.0 * static_cast<double>(k) / static_cast<double>(c.total()));
      return std::string(buf);
    };
    s += "\nReference values: " + std::to_string(c.total()) + " from the tiered oracle, " +
         std::to_string(c.total() - c.uncertified) + " certified correctly rounded (double " + share(c.dbl) + ", dd " + share(c.dd) + ", mpfr " +
         share(c.mpfr) + ", mpfi " + share(c.mpfi) + "), " + std::to_string(c.uncertified) + " uncertified\n";
  }

  if (!r.notes.empty()) s += "\n";
  for (const std::string& note : r.notes) s += note + "\n";
  // CI parsers read this exact line; keep it last and keep its wording.
  const std::string summary = std::to_string(r.passed()) + " passed, " + std::to_string(r.failed()) + " failed, " +
                              std::to_string(r.skipped) + " skipped";
  s += "\n" + paint(r, summary, r.failed() == 0 ? property::Verdict::pass : property::Verdict::fail) + "\n";
  return s;
}

}  // namespace attncheck::cli
