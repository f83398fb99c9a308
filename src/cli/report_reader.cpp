// attncheck CLI: JSON reports read back with yaml-cpp. JSON is YAML 1.2 flow syntax, yaml-cpp is
// already a dependency of the contract loader, and the reports are attncheck's own output (fixed
// shape, every string double-quoted with JSON escapes): no second parser is needed for them.
#include "cli/report_reader.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <yaml-cpp/yaml.h>

namespace attncheck::cli {

namespace {

std::string str(const YAML::Node& n, const char* key) {
  const YAML::Node v = n[key];
  if (!v || v.IsNull() || !v.IsScalar()) return "";
  return v.Scalar();
}

double ratio(const YAML::Node& n, const char* key) {
  const std::string s = str(n, key);
  if (s.empty()) return 0;
  if (s == "inf") return std::numeric_limits<double>::infinity();
  try {
    return std::stod(s);
  } catch (...) {
    return 0;
  }
}

long long integer(const YAML::Node& n, const char* key) {
  try {
    return std::stoll(str(n, key));
  } catch (...) {
    return 0;
  }
}

}  // namespace

std::optional<ReportData> read_report(const std::string& path, std::string* error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    *error = "cannot read the report '" + path + "': check the path (write one with `attncheck gate --json FILE`)";
    return std::nullopt;
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse_report(text.str(), path, error);
}

std::optional<ReportData> parse_report(const std::string& text, const std::string& path, std::string* error) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    *error = "'" + path + "' is not valid JSON (line " + std::to_string(e.mark.line + 1) + "): " + e.msg;
    return std::nullopt;
  }
  if (!root.IsMap()) {
    *error = "'" + path + "' is not a JSON object: expected the report of `attncheck gate --json` or `attncheck audit --json`";
    return std::nullopt;
  }
  ReportData r;
  r.path = path;
  r.schema = str(root, "schema");
  if (r.schema.rfind("attncheck-gate/", 0) != 0 && r.schema.rfind("attncheck-audit/", 0) != 0) {
    *error = "'" + path + "' has schema '" + r.schema +
             "', not attncheck-gate/N or attncheck-audit/N: pass the file written by `attncheck gate --json` "
             "or `attncheck audit --json`";
    return std::nullopt;
  }
  r.version = str(root, "version");
  r.seed = str(root, "seed");
  r.kernels = str(root, "kernels");
  r.tolerance = str(root, "tolerance");
  r.cases = integer(root, "cases");
  const YAML::Node results = root["results"];
  if (!results || !results.IsSequence()) {
    *error = "'" + path + "' has no \"results\" list";
    return std::nullopt;
  }
  for (std::size_t i = 0; i < results.size(); ++i) {
    const YAML::Node x = results[i];
    ReportRow row;
    row.contract = str(x, "contract");
    row.test = str(x, "test");
    row.verdict = str(x, "verdict");
    if (!x.IsMap() || row.contract.empty() || row.test.empty() || row.verdict.empty()) {
      *error = "'" + path + "': result " + std::to_string(i + 1) + " lacks contract, test or verdict";
      return std::nullopt;
    }
    if (const YAML::Node o = x["obligations"]; o && o.IsSequence())
      for (const auto& id : o) row.obligations.push_back(id.IsScalar() ? id.Scalar() : "");
    row.dtype = str(x, "dtype");
    row.reason = str(x, "reason");
    row.cases = integer(x, "cases");
    row.seconds = ratio(x, "seconds");
    row.seed = str(x, "seed");
    row.worst_ratio = ratio(x, "worst_ratio");
    row.median_ratio = ratio(x, "median_ratio");
    row.worst_case = str(x, "worst_case");
    row.counterexample = str(x, "counterexample");
    row.message = str(x, "message");
    row.replay = str(x, "replay");
    r.rows.push_back(std::move(row));
  }
  return r;
}

}  // namespace attncheck::cli
