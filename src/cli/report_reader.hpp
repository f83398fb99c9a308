// attncheck CLI: reading back a JSON report of `attncheck gate --json` (schema attncheck-gate/N)
// or `attncheck audit --json` (attncheck-audit/N), for the generated contract pages and the HTML
// report. Only the fields those need are read; unknown fields are ignored, so a later schema
// version that adds fields still reads.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attncheck::cli {

// One sampled series of a result ("samples", schema_version 3): points as rows of columns.
struct ReportSeries {
  std::string name, subject;
  std::vector<std::string> columns;
  std::vector<std::vector<double>> points;
  unsigned long long offered = 0, nonfinite = 0;
  // The index of a column, or -1.
  int column(const std::string& c) const;
};

struct ReportRow {
  std::string contract;
  std::vector<std::string> obligations;
  std::string test;
  std::string dtype;
  std::string verdict;  // PASS, FAIL, ERROR, GAVE_UP, N/A, ... as written
  std::string reason;   // audit: why a row is not applicable
  long long cases = 0;
  double seconds = 0;
  std::string seed;
  // error / allowance: 0 when nothing was measured, +inf when written as "inf" (NaN or overflow)
  double worst_ratio = 0, median_ratio = 0;
  std::string worst_case, counterexample, message, replay;
  // What a failure says first (schema_version 7; empty and 0 in earlier reports): the contract's
  // likely cause, the shrunk counterexample's ratio and the worst failing case found.
  std::string likely_cause, worst_failure;
  double counterexample_ratio = 0, worst_failure_ratio = 0;
  std::vector<std::string> kinds;     // audit: the kernel kinds the check calls
  std::vector<ReportSeries> samples;  // empty in reports before schema_version 3
};

struct ReportData {
  std::string path;
  std::string schema;  // "attncheck-gate/1", "attncheck-audit/1"
  std::string version, seed, kernels, tolerance;
  long long cases = 0;
  std::vector<ReportRow> rows;
  bool is_audit() const { return schema.rfind("attncheck-audit/", 0) == 0; }
};

// The report at path, or nullopt with *error saying what is wrong (unreadable, not JSON, not an
// attncheck gate or audit report, a result without contract/test/verdict).
std::optional<ReportData> read_report(const std::string& path, std::string* error);
// The same from the report's text; path only names it in messages. gate/audit --html render the
// page from their own JSON this way, so the HTML shows exactly what the JSON report says.
std::optional<ReportData> parse_report(const std::string& text, const std::string& path, std::string* error);

}  // namespace attncheck::cli
