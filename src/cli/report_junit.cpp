// attncheck CLI: the JUnit XML report of `attncheck gate --junit FILE` and `attncheck audit
// --junit FILE`: one <testcase> per (falsification test or audit obligation, dtype) so CI
// dashboards show which format failed; checks that did not apply are <skipped/> with the reason.
#include <cstdio>

#include "attncheck/text/numbers.hpp"
#include "cli/cli.hpp"
#include "cli/gate.hpp"

namespace attncheck::cli {

namespace {
// Escapes for both text and attribute values. XML 1.0 cannot carry most control characters at
// all, so they become '?'; newlines in attributes are kept as character references.
std::string xml(std::string_view s, bool attribute) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '\n': out += attribute ? "&#10;" : "\n"; break;
      case '\t': out += attribute ? "&#9;" : "\t"; break;
      case '\r': out += "&#13;"; break;
      default: out += (c < 0x20) ? '?' : static_cast<char>(c);
    }
  }
  return out;
}

std::string seconds(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", s);
  return buf;
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// The one-line summary CI dashboards show; the full text goes in the element body.
std::string summary(const GateRow& row) {
  const property::Outcome& o = row.outcome;
  const std::string what = o.test_id + "[" + row.dtype() + "] " + std::string(property::verdict_name(o.verdict));
  if (o.verdict == property::Verdict::fail)
    return what + ": counterexample after " + std::to_string(o.cases) + " cases; replay: " + o.replay;
  return what + ": " + first_line(o.message);
}

std::string testcase(const GateReport& report, const GateRow& row) {
  const property::Outcome& o = row.outcome;
  std::string s = "    <testcase classname=\"" + xml(row.contract, true) + "\" name=\"" +
                  xml(o.test_id + "[" + row.dtype() + "]", true) + "\" time=\"" + seconds(o.seconds) + "\"";
  if (row.passed()) return s + "/>\n";
  // A wrong result is a <failure>; a check that could not judge (ERROR) is an <error>.
  const bool is_error = o.verdict == property::Verdict::error;
  const std::string tag = is_error ? "error" : "failure";
  std::string detail = o.counterexample.empty() ? o.message : without_draws(o.counterexample);
  if (!detail.empty() && detail.back() != '\n') detail += '\n';
  if (const std::string cause = likely_cause(report, o); !cause.empty() && o.verdict == property::Verdict::fail)
    detail = "Likely cause: " + cause + "\n" + detail;
  // The exact values too, so this report carries the same counterexample as the JSON and SARIF ones.
  for (const auto& v : counterexample_values(o.counterexample, o.dtype))
    detail += "Exact values" + (v.label.empty() ? std::string() : " (" + v.label + ")") + ": " + join(v.values, ", ") +
              (v.elided ? " (" + std::to_string(v.elided) + " more not shown)" : "") + "\n";
  const std::string figures = failure_figures(o);
  std::string body = detail + (figures.empty() ? "" : figures + "\n") + "Replay: " + o.replay + "\n";
  if (!o.worst_failure.empty())
    body += "Worst failing case found (error/allowance " + ratio_figure(o.worst_failure_ratio) + "):\n" + o.worst_failure;
  s += ">\n      <" + tag + " type=\"" + std::string(property::verdict_name(o.verdict)) + "\" message=\"" +
       xml(summary(row), true) + "\">" + xml(body, false) + "</" + tag + ">\n";
  return s + "    </testcase>\n";
}

std::string skipped_case(const GateRow& row) {
  return "    <testcase classname=\"" + xml(row.contract, true) + "\" name=\"" +
         xml(row.outcome.test_id + "[" + row.dtype() + "]", true) + "\" time=\"0.000\">\n      <skipped message=\"" +
         xml(first_line(row.outcome.message), true) + "\"/>\n    </testcase>\n";
}
}  // namespace

std::string render_junit(const GateReport& r) {
  int errors = 0;
  double total = 0;
  for (const GateRow& row : r.rows) {
    errors += row.outcome.verdict == property::Verdict::error ? 1 : 0;
    total += row.outcome.seconds;
  }
  const std::string counts = "tests=\"" + std::to_string(r.rows.size() + r.skipped_rows.size()) + "\" failures=\"" +
                             std::to_string(r.failed() - errors) + "\" errors=\"" + std::to_string(errors) +
                             "\" skipped=\"" + std::to_string(r.skipped_rows.size()) + "\" time=\"" + seconds(total) + "\"";
  std::string s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  s += "<testsuites name=\"attncheck\" " + counts + ">\n";
  s += "  <testsuite name=\"attncheck " + xml(r.command, true) + "\" " + counts + ">\n";
  s += "    <properties>\n";
  s += "      <property name=\"version\" value=\"" + xml(r.version, true) + "\"/>\n";
  s += "      <property name=\"seed\" value=\"" + hex_u64(r.seed) + "\"/>\n";
  s += "      <property name=\"cases\" value=\"" + std::to_string(r.cases) + "\"/>\n";
  s += "      <property name=\"kernels\" value=\"" + xml(r.kernels, true) + "\"/>\n";
  s += "      <property name=\"tolerance\" value=\"" + xml(r.tolerance, true) + "\"/>\n";
  s += "    </properties>\n";
  for (const GateRow& row : r.rows) s += testcase(r, row);
  for (const GateRow& row : r.skipped_rows) s += skipped_case(row);
  s += "  </testsuite>\n</testsuites>\n";
  return s;
}

}  // namespace attncheck::cli
