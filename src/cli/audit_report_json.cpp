// attncheck CLI: the JSON report of `attncheck audit --json FILE` (schema "attncheck-audit/1",
// schema_version 7; docs/audit.md and docs/report-schema.json). Fixed key order and number
// formatting, like the gate's report, whose run metadata and per-obligation summary it shares.
#include "attncheck/text/numbers.hpp"
#include "cli/audit.hpp"
#include "cli/gate.hpp"
#include "cli/json.hpp"

namespace attncheck::cli {

namespace {
std::string string_list(const std::vector<std::string>& items) {
  std::string s = "[";
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + json_quoted(items[i]);
  return s + "]";
}

std::string verdict(const audit::AuditRow& r) {
  if (r.state == audit::RowState::not_applicable) return "N/A";
  if (r.state == audit::RowState::not_judged) return "NOT-JUDGED";
  return std::string(property::verdict_name(r.outcome.verdict));
}

std::string result(const audit::AuditRow& r, const GateReport& report) {
  const property::Outcome& o = r.outcome;
  const bool ran = r.state != audit::RowState::not_applicable;  // not judged: it ran (its seed replays it)
  std::string s = "    {";
  s += "\"contract\": " + json_quoted(r.contract);
  s += ", \"obligations\": " + string_list(r.obligations);
  s += ", \"test\": " + json_quoted(o.test_id);
  s += ", \"kinds\": " + string_list(r.kinds);
  s += ", \"dtype\": " + json_quoted(dtype_name(o.dtype));
  s += ", \"verdict\": " + json_quoted(verdict(r));
  s += ", \"reason\": " + json_quoted(r.reason);
  s += ", \"cases\": " + std::to_string(ran ? o.cases : 0);
  s += ", \"seconds\": " + json_number(ran ? o.seconds : 0);
  s += ", \"seed\": " + (ran ? json_quoted(hex_u64(o.seed)) : std::string("null"));
  s += ", \"calls\": " + std::to_string(r.stats.calls);
  s += ", \"timeouts\": " + std::to_string(r.stats.timeouts);
  s += ", \"declined\": " + std::to_string(r.stats.declines);
  s += ", \"first_declined\": " + json_quoted(r.stats.first_decline);
  s += ", \"worst_ratio\": " + json_number(o.worst_ratio);
  s += ", \"worst_case\": " + json_quoted(o.worst_case);
  s += ", \"median_ratio\": " + json_number(o.median_ratio);
  s += ", \"counterexample\": " + json_quoted(o.counterexample);
  s += ", \"message\": " + json_quoted(o.message);
  s += ", \"replay\": " + json_quoted(o.replay);
  if (!r.masked_policy.empty()) s += ", \"masked_policy\": " + json_quoted(r.masked_policy);
  if (r.stats.not_drawn > 0)
    s += ", \"not_drawn\": " + std::to_string(r.stats.not_drawn) + ", \"not_drawn_features\": " + json_quoted(audit::tally_text(r.stats.not_drawn_features));
  GateRow g;
  g.contract = r.contract;
  g.obligations = r.obligations;
  g.outcome = o;
  return s + render_row_extras_json(report, g) + "}";
}
}  // namespace

std::string render_audit_json(const AuditReportInfo& info, const std::vector<audit::AuditRow>& rows, const GateReport& report) {
  int passed = 0, failed = 0, na = 0, not_judged = 0;
  for (const auto& r : rows) {
    if (r.state == audit::RowState::not_applicable) ++na;
    else if (r.state == audit::RowState::not_judged) ++not_judged;
    else if (r.outcome.verdict == property::Verdict::pass) ++passed;
    else ++failed;
  }
  std::string s = "{\n";
  s += "  \"schema\": \"attncheck-audit/1\",\n";
  s += "  \"schema_version\": " + std::to_string(report_schema_version) + ",\n";
  s += "  \"version\": " + json_quoted(info.version) + ",\n";
  s += "  \"kernels\": " + json_quoted(info.source) + ",\n";
  s += "  \"seed\": " + json_quoted(info.seed) + ",\n";
  s += "  \"cases\": " + std::to_string(info.cases) + ",\n";
  s += "  \"timeout_seconds\": " + json_number(info.timeout) + ",\n";
  s += "  \"masked_policy\": " + json_quoted(info.masked) + ",\n";
  s += "  \"tolerance\": " + json_quoted(info.tolerance) + ",\n";
  s += "  \"results\": [";
  std::vector<std::pair<std::string, std::string>> na_checks;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s += (i ? ",\n" : "\n") + result(rows[i], report);
    if (rows[i].state != audit::RowState::ran)  // N/A or not judged: no check of it could judge
      for (const auto& id : rows[i].obligations)
        na_checks.emplace_back(id, rows[i].outcome.test_id + " [" + std::string(dtype_name(rows[i].outcome.dtype)) + "]");
  }
  s += rows.empty() ? "],\n" : "\n  ],\n";
  s += "  \"summary\": {\"passed\": " + std::to_string(passed) + ", \"failed\": " + std::to_string(failed) +
       ", \"not_applicable\": " + std::to_string(na) + ", \"not_judged\": " + std::to_string(not_judged) + "},\n";
  s += "  \"obligations\": " + render_obligations_json(report, na_checks) + ",\n";
  s += "  \"run\": " + render_run_json(report);
  if (report.timings) s += ",\n  \"timings\": " + render_timings_json(report);
  return s + "\n}\n";
}

}  // namespace attncheck::cli
