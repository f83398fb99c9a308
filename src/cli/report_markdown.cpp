// attncheck CLI: the Markdown summary (`--markdown FILE`) of the gate and the audit, for a CI
// step summary (GitHub's $GITHUB_STEP_SUMMARY, GitLab's job summary): the headline counts, a table
// of the failures first (a reader wants them at once), then each failure with its exact
// counterexample values, the text of the counterexample and the replay command, and the full
// verdict table folded away under <details>.
#include <cstdio>

#include "attncheck/text/numbers.hpp"
#include "cli/cli.hpp"
#include "cli/gate.hpp"

namespace attncheck::cli {

namespace {
// A table cell: '|' would end the cell and a newline the row.
std::string cell(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += "<br>";
    else out += c;
  }
  return out;
}

std::string code(const std::string& s) { return s.empty() ? std::string() : "`" + cell(s) + "`"; }

// A fenced block long enough not to be closed by backticks inside the text.
std::string fenced(const std::string& text, const std::string& lang = "") {
  std::string fence = "```";
  while (text.find(fence) != std::string::npos) fence += '`';
  return fence + lang + "\n" + text + (text.empty() || text.back() != '\n' ? "\n" : "") + fence + "\n";
}

// "SM-INV-001 at `contracts/softmax-kernel-v1.yaml:40`, ..."
std::string obligations_of(const GateReport& r, const GateRow& row) {
  if (row.obligations.empty()) return "-";
  std::vector<std::string> where;
  for (const auto& id : row.obligations) {
    const auto known = r.obligations.find(id);
    if (known != r.obligations.end() && !known->second.where.file.empty())
      where.push_back(id + " at `" + report_path(r, known->second.where.file) + ":" + std::to_string(known->second.where.line) + "`");
    else
      where.push_back(id);
  }
  return join(where, ", ");
}

std::string table_row(const GateRow& row, bool timings) {
  const property::Outcome& o = row.outcome;
  std::string s = "| " + std::string(row.passed() ? "PASS" : "**" + verdict_text(row) + "**") + " | " + cell(row.contract) +
                  " | " + cell(row.obligations.empty() ? "-" : join(row.obligations, ", ")) + " | " + cell(o.test_id) + " | " +
                  row.dtype() + " | " + std::to_string(o.cases) + " | ";
  if (timings) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f s", o.seconds);
    s += std::string(buf) + " | ";
  }
  return s + error_ratio_text(o.worst_ratio) + " | " + error_ratio_text(o.median_ratio) + " |\n";
}

std::string table(const GateReport& r, bool failures_only) {
  std::string s = std::string("| verdict | contract | obligations | test | dtype | cases | ") + (r.timings ? "time | " : "") +
                  "worst | median |\n|---|---|---|---|---|--:|" + (r.timings ? "--:|" : "") + "--:|--:|\n";
  for (const GateRow& row : r.rows)
    if (!failures_only || !row.passed()) s += table_row(row, r.timings);
  return s;
}
}  // namespace

std::string render_markdown(const GateReport& r) {
  const int failed = r.failed();
  std::string s = "## attncheck " + r.command + ": " + (failed == 0 ? "passed" : "FAILED") + "\n\n";
  s += "**" + std::to_string(r.passed()) + " passed, " + std::to_string(failed) + " failed, " + std::to_string(r.skipped) +
       " skipped**  \n";
  s += "attncheck " + r.version + " · seed `" + hex_u64(r.seed) + "` · cases " + std::to_string(r.cases) + " · kernels " +
       code(r.kernels) + " · tolerance `" + r.tolerance + "`\n\n";

  if (failed > 0) {
    s += "### Failures\n\n" + table(r, true) + "\n";
    for (const GateRow& row : r.rows) {
      if (row.passed()) continue;
      const property::Outcome& o = row.outcome;
      s += "#### " + verdict_text(row) + " " + o.test_id + " [" + row.dtype() + "] — " + row.contract + "\n\n";
      if (const std::string cause = likely_cause(r, o); !cause.empty() && o.verdict == property::Verdict::fail)
        s += "Likely cause: " + cell(cause) + "\n\n";
      s += "Obligations: " + obligations_of(r, row) + "; kernels " + code(o.kernels) + "; cases " + std::to_string(o.cases) + ".\n\n";
      if (const std::string figures = failure_figures(o); !figures.empty()) s += cell(figures) + ".\n\n";
      const auto values = counterexample_values(o.counterexample, o.dtype);
      if (!values.empty()) {
        s += "Counterexample values (exact, C99 hex floats):\n\n| what | values |\n|---|---|\n";
        for (const auto& v : values)
          s += "| " + cell(v.label.empty() ? "-" : v.label) + " | " + code(join(v.values, ", ")) +
               (v.elided ? " (" + std::to_string(v.elided) + " more not shown)" : "") + " |\n";
        s += "\n";
      }
      if (!o.counterexample.empty())
        s += "<details><summary>Counterexample (shrunk)</summary>\n\n" + fenced(without_draws(o.counterexample)) + "\n</details>\n\n";
      if (!o.message.empty()) s += fenced(o.message);
      s += "Replay:\n\n" + fenced(o.replay, "sh") + "\n";
      if (!o.worst_failure.empty())
        s += "<details><summary>Worst failing case found (error/allowance " + ratio_figure(o.worst_failure_ratio) + ")</summary>\n\n" +
             fenced(o.worst_failure) + "\n</details>\n\n";
    }
  }

  s += "<details><summary>All " + std::to_string(r.rows.size()) + " checks</summary>\n\n" + table(r, false) + "\n</details>\n";
  if (!r.notes.empty()) {
    s += "\n";
    for (const auto& n : r.notes) s += "> " + cell(n) + "\n";
  }
  return s;
}

}  // namespace attncheck::cli
