// attncheck CLI: JSON reports read back with yaml-cpp. JSON is YAML 1.2 flow syntax, yaml-cpp is
// already a dependency of the contract loader, and the reports are attncheck's own output (fixed
// shape, every string double-quoted with JSON escapes): no second parser is needed for them.
#include "cli/report_reader.hpp"

#include <cmath>
#include <cstdlib>
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

// A result's "samples": malformed entries (a point of the wrong width, a value that is not a
// number) make the whole report unreadable rather than a plot silently wrong.
bool read_samples(const YAML::Node& x, std::vector<ReportSeries>& out, std::string* why) {
  const YAML::Node list = x["samples"];
  if (!list) return true;
  if (!list.IsSequence()) return *why = "\"samples\" is not a list", false;
  for (const auto& e : list) {
    ReportSeries s;
    s.name = str(e, "series");
    s.subject = str(e, "subject");
    s.offered = static_cast<unsigned long long>(integer(e, "offered"));
    s.nonfinite = static_cast<unsigned long long>(integer(e, "nonfinite"));
    if (const YAML::Node c = e["columns"]; c && c.IsSequence())
      for (const auto& n : c) s.columns.push_back(n.IsScalar() ? n.Scalar() : "");
    const YAML::Node pts = e["points"];
    if (s.name.empty() || s.columns.empty() || !pts || !pts.IsSequence())
      return *why = "a \"samples\" entry lacks series, columns or points", false;
    for (const auto& p : pts) {
      if (!p.IsSequence() || p.size() != s.columns.size())
        return *why = "a point of series \"" + s.name + "\" does not have " + std::to_string(s.columns.size()) + " values", false;
      std::vector<double> v;
      for (const auto& n : p) {
        // strtod, not stod: a subnormal (e.g. 5e-324) is a valid value, which stod refuses (ERANGE).
        const std::string t = n.IsScalar() ? n.Scalar() : "";
        char* end = nullptr;
        const double d = std::strtod(t.c_str(), &end);
        if (t.empty() || end != t.c_str() + t.size() || !std::isfinite(d))
          return *why = "a value of series \"" + s.name + "\" is not a finite number: '" + t + "'", false;
        v.push_back(d);
      }
      s.points.push_back(std::move(v));
    }
    out.push_back(std::move(s));
  }
  return true;
}

}  // namespace

int ReportSeries::column(const std::string& c) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == c) return static_cast<int>(i);
  return -1;
}

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
    row.likely_cause = str(x, "likely_cause");
    row.worst_failure = str(x, "worst_failure");
    row.counterexample_ratio = ratio(x, "counterexample_ratio");
    row.worst_failure_ratio = ratio(x, "worst_failure_ratio");
    if (const YAML::Node k = x["kinds"]; k && k.IsSequence())
      for (const auto& n : k) row.kinds.push_back(n.IsScalar() ? n.Scalar() : "");
    std::string why;
    if (!read_samples(x, row.samples, &why)) {
      *error = "'" + path + "': result " + std::to_string(i + 1) + " (" + row.test + "): " + why;
      return std::nullopt;
    }
    r.rows.push_back(std::move(row));
  }
  return r;
}

}  // namespace attncheck::cli
