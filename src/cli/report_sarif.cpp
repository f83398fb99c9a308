// attncheck CLI: the SARIF 2.1.0 report (`--sarif FILE`) of the gate and the audit. One result per
// (failing check, obligation it attacks), located at the line of the contract YAML that states
// the obligation, so code-scanning UIs (GitHub, GitLab, VS Code's SARIF viewer) annotate the
// contract. Passing checks produce no result; the rules are the obligations that have results.
#include <algorithm>
#include <cctype>
#include <cstdio>

#include "attncheck/text/numbers.hpp"
#include "cli/gate.hpp"
#include "cli/json.hpp"

namespace attncheck::cli {

namespace {
std::string text(const std::string& s) { return "{\"text\": " + json_quoted(s) + "}"; }

std::string string_list(const std::vector<std::string>& items) {
  std::string s = "[";
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? ", " : "") + json_quoted(items[i]);
  return s + "]";
}

// file:// URI of an absolute path, percent-encoding all but the unreserved characters and '/'.
std::string file_uri(const std::string& path) {
  std::string uri = "file://";
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '_' || c == '.' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      char buf[4];
      std::snprintf(buf, sizeof buf, "%%%02X", c);
      uri += buf;
    }
  }
  return uri;
}

// A base URI must end with a slash (SARIF §3.14.14).
std::string directory_uri(const std::string& dir) {
  const std::string uri = file_uri(dir);
  return uri.back() == '/' ? uri : uri + "/";
}

// The obligation a result is about: its ID, or the test's when the test names none.
struct Target {
  std::string rule;
  const contract::Location* where = nullptr;
};

std::string physical_location(const GateReport& r, const contract::Location& where) {
  const std::string path = report_path(r, where.file);
  const bool relative = !path.empty() && path.front() != '/';
  std::string s = "{\"physicalLocation\": {\"artifactLocation\": {\"uri\": " +
                  json_quoted(relative ? path : file_uri(path)) +
                  (relative ? ", \"uriBaseId\": \"SRCROOT\"" : "") + "}";
  if (where.line > 0)
    s += ", \"region\": {\"startLine\": " + std::to_string(where.line) +
         (where.column > 0 ? ", \"startColumn\": " + std::to_string(where.column) : std::string()) + "}";
  return s + "}}";
}

std::string message(const GateRow& row) {
  const property::Outcome& o = row.outcome;
  std::string m = o.test_id + " [" + row.dtype() + "] " + verdict_text(row) + " on " + o.kernels;
  if (o.verdict == property::Verdict::fail)
    m += ": counterexample after " + std::to_string(o.cases) + " cases.\n" + without_draws(o.counterexample);
  else
    m += ": " + o.message + "\n";
  return m + "Replay: " + o.replay;
}
}  // namespace

std::string render_sarif(const GateReport& r) {
  // Rules: the obligations with at least one failing check, in first-failure order.
  std::vector<std::string> rules;
  std::vector<std::pair<const GateRow*, Target>> results;
  for (const GateRow& row : r.rows) {
    if (row.passed()) continue;
    std::vector<Target> targets;
    for (const auto& id : row.obligations) {
      const auto known = r.obligations.find(id);
      targets.push_back({id, known == r.obligations.end() ? nullptr : &known->second.where});
    }
    if (targets.empty()) {
      const auto t = r.test_locations.find(row.outcome.test_id);
      targets.push_back({row.outcome.test_id, t == r.test_locations.end() ? nullptr : &t->second});
    }
    for (const Target& t : targets) {
      if (std::find(rules.begin(), rules.end(), t.rule) == rules.end()) rules.push_back(t.rule);
      results.emplace_back(&row, t);
    }
  }

  std::string s = "{\n";
  s += "  \"$schema\": \"https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json\",\n";
  s += "  \"version\": \"2.1.0\",\n";
  s += "  \"runs\": [{\n";
  s += "    \"tool\": {\"driver\": {\"name\": \"attncheck\", \"version\": " + json_quoted(r.version) +
       ", \"semanticVersion\": " + json_quoted(r.version) + ", \"rules\": [";
  for (std::size_t i = 0; i < rules.size(); ++i) {
    const auto known = r.obligations.find(rules[i]);
    const std::string statement = known == r.obligations.end() ? "" : known->second.statement;
    const std::string contract = known == r.obligations.end() ? "" : known->second.contract;
    s += (i ? ",\n" : "\n") + std::string("      {\"id\": ") + json_quoted(rules[i]) + ", \"shortDescription\": " +
         text(statement.empty() ? "obligation " + rules[i] : statement) +
         ", \"defaultConfiguration\": {\"level\": \"error\"}, \"properties\": {\"contract\": " + json_quoted(contract) + "}}";
  }
  s += rules.empty() ? "]}},\n" : "\n    ]}},\n";
  if (!r.repo_root.empty())
    s += "    \"originalUriBaseIds\": {\"SRCROOT\": {\"uri\": " + json_quoted(directory_uri(r.repo_root)) + "}},\n";
  s += "    \"invocations\": [{\"executionSuccessful\": true, \"commandLine\": " +
       json_quoted("attncheck " + r.command + " --seed " + hex_u64(r.seed) + " --cases " + std::to_string(r.cases)) +
       ", \"properties\": {\"kernels\": " + json_quoted(r.kernels) + ", \"tolerance\": " + json_quoted(r.tolerance) +
       ", \"passed\": " + std::to_string(r.passed()) + ", \"failed\": " + std::to_string(r.failed()) +
       ", \"skipped\": " + std::to_string(r.skipped) + "}}],\n";
  s += "    \"results\": [";
  for (std::size_t i = 0; i < results.size(); ++i) {
    const GateRow& row = *results[i].first;
    const Target& t = results[i].second;
    const property::Outcome& o = row.outcome;
    const auto rule_index = std::find(rules.begin(), rules.end(), t.rule) - rules.begin();
    s += (i ? ",\n" : "\n") + std::string("      {\"ruleId\": ") + json_quoted(t.rule) + ", \"ruleIndex\": " +
         std::to_string(rule_index) + ", \"level\": \"error\", \"kind\": \"fail\", \"message\": " + text(message(row));
    s += ", \"locations\": [" + (t.where && !t.where->file.empty() ? physical_location(r, *t.where) : std::string()) + "]";
    // Checks are identified by (contract or audited kind, test, dtype, kernels): a stable fingerprint lets code scanning
    // match one run's alert to the next one's.
    s += ", \"partialFingerprints\": {\"attncheckCheck/v1\": " +
         json_quoted(t.rule + ":" + row.contract + ":" + o.test_id + ":" + row.dtype() + ":" + o.kernels) + "}";
    std::string values = "[";
    const auto cv = counterexample_values(o.counterexample, o.dtype);
    for (std::size_t k = 0; k < cv.size(); ++k)
      values += (k ? ", " : "") + std::string("{\"label\": ") + json_quoted(cv[k].label) + ", \"bits\": " + string_list(cv[k].bits) +
                ", \"values\": " + string_list(cv[k].values) + ", \"elided\": " + std::to_string(cv[k].elided) + "}";
    values += "]";
    s += ", \"properties\": {\"verdict\": " + json_quoted(verdict_text(row)) + ", \"contract\": " + json_quoted(row.contract) +
         ", \"test\": " + json_quoted(o.test_id) + ", \"dtype\": " + json_quoted(row.dtype()) + ", \"kernels\": " +
         json_quoted(o.kernels) + ", \"cases\": " + std::to_string(o.cases) + ", \"worst_ratio\": " + json_number(o.worst_ratio) +
         ", \"counterexample_values\": " + values + ", \"replay\": " + json_quoted(o.replay) + "}}";
  }
  s += results.empty() ? "]\n" : "\n    ]\n";
  s += "  }]\n}\n";
  return s;
}

}  // namespace attncheck::cli
