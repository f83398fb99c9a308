// attncheck CLI: the result of one `attncheck gate` (or the checks that ran in one
// `attncheck audit`), as the text, JSON, JUnit, SARIF and Markdown writers see it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "attncheck/property/registry.hpp"
#include "attncheck/contract/model.hpp"

namespace attncheck::cli {

// One (test, dtype) check: the contract context plus the registry's outcome.
struct GateRow {
  std::string contract;
  std::vector<std::string> obligations;
  bool has_property = true;  // false: the test ID has no property in this build (verdict ERROR)
  property::Outcome outcome;

  std::string dtype() const;  // "f32", or "-" when there was no property to run at any dtype
  bool passed() const { return outcome.verdict == property::Verdict::pass; }
};

// A contract as the run metadata names it.
struct ContractInfo {
  std::string id, version, file;
};

// Where an obligation is stated, for SARIF and the per-obligation summary of the JSON report.
struct ObligationInfo {
  std::string contract;
  std::string statement;  // the obligation's one-line property
  contract::Location where;
};

struct GateReport {
  std::string command = "gate";  // "gate" or "audit": names the JUnit suite and the reports
  std::string version;
  std::uint64_t seed = 0;
  int cases = 0;
  std::string kernels;   // "reference" or the mutant's name
  std::string tolerance = "derived";  // the accuracy tolerance mode (property/tolerance.hpp)
  bool timings = true;   // false with --no-timings: seconds are 0 and the table has no time column
  std::vector<GateRow> rows;
  std::vector<std::string> notes;  // printed just before the summary (e.g. whether a mutant was caught)
  int skipped = 0;                 // checks planned but not run (the audit's not-applicable ones, an interrupt)
  std::vector<GateRow> skipped_rows;  // those checks, outcome.message saying why (JUnit <skipped/>)
  bool color = false;              // ANSI colours in the text report (a terminal, NO_COLOR unset)
  bool quiet = false;              // --quiet: no table, only problems, notes and the summary line
  bool coverage = false;           // --coverage: print each check's generator coverage after the table
  bool verbose = false;            // --verbose: the text report keeps RapidCheck's draw log ("Drawn ...")

  // Run metadata (JSON "run" object) and where things are stated (JSON, SARIF).
  std::string repo_root;  // file paths in reports are relative to it when they lie under it
  std::vector<ContractInfo> contracts;
  std::map<std::string, ObligationInfo> obligations;  // by obligation ID
  std::map<std::string, contract::Location> test_locations;  // by falsification test ID
  std::map<std::string, std::string> test_causes;  // by test ID (AUDIT-* too): the contract's if_fails
  double wall_seconds = 0;   // the whole run (omitted from reports with --no-timings)
  std::string started_utc;   // ISO 8601, likewise omitted with --no-timings

  int passed() const;
  int failed() const { return static_cast<int>(rows.size()) - passed(); }
};

// Fills repo_root, contracts, obligations and test_locations from the loaded contracts.
void describe_contracts(GateReport& report, const std::vector<contract::Contract>& contracts,
                        const std::string& contracts_dir);

// A path as reports write it: relative to the report's repo_root when it lies under it.
std::string report_path(const GateReport& report, const std::string& path);

// One labelled line of bit patterns in a counterexample, decoded to exact hex floats (%a).
struct CounterexampleValues {
  std::string label;                // "Input bits", "Kernel", ...
  std::vector<std::string> bits;    // as printed, e.g. "0x3f800000"
  std::vector<std::string> values;  // the same values, exactly: "0x1p+0"
  std::size_t elided = 0;           // entries the text report cut out of a long row ("... N more")
};
// Every bit pattern of dtype d's width in a counterexample text, line by line. The derived
// seeds and RapidCheck's own "Drawn" lines are skipped: they are not values of the format.
std::vector<CounterexampleValues> counterexample_values(const std::string& text, Dtype d);

// Machine and dependency versions (from the headers this binary was compiled with).
std::vector<std::pair<std::string, std::string>> machine_info();
std::vector<std::pair<std::string, std::string>> dependency_versions();

// What every report says of a check that did not pass (report_failure.cpp).
// The counterexample as people read it: without RapidCheck's draw log ("  Drawn TYPE: ..." lines),
// which only the JSON report and --verbose keep.
std::string without_draws(const std::string& counterexample);
// The check's error/allowance figures, each labelled: the largest seen (and where), the shrunk
// counterexample's, the worst failing case's; "" when the check measured none.
std::string failure_figures(const property::Outcome& o);
// A ratio as a failure's text prints it (Report::error: 4 significant digits), "inf" for NaN or overflow.
std::string ratio_figure(double ratio);
// The likely cause of the check's failure, in the contract's words (if_fails), or "". When the
// failing case is a fault of the call (the kernel hung, crashed, wrote out of bounds: the
// counterexample is an exception and states no error/allowance), the contract's accuracy cause
// would mislead: it says so instead.
std::string likely_cause(const GateReport& report, const property::Outcome& o);

// The terminal report: header, one block per non-PASS row (the failures first), the table, and
// the summary line.
std::string render_text(const GateReport& report);
std::string render_json(const GateReport& report);
std::string render_junit(const GateReport& report);
std::string render_sarif(const GateReport& report);
std::string render_markdown(const GateReport& report);

// The JSON shared by the gate's and the audit's reports (schema_version 7, docs/report-schema.json).
inline constexpr int report_schema_version = 7;
std::string render_run_json(const GateReport& report);            // the "run" object, indented by 2
std::string render_obligations_json(const GateReport& report, const std::vector<std::pair<std::string, std::string>>& na);
std::string render_timings_json(const GateReport& report);        // the "timings" object
std::string render_row_extras_json(const GateReport& report, const GateRow& row);  // ", \"location\": ..."
std::string render_samples_json(const std::vector<property::SampleSeries>& samples);   // a row's "samples" list

// Generator coverage (report_coverage.cpp): a row's JSON "coverage" list; the `--coverage` text
// block; one note per passed check and generator that named a region it never reached.
std::string render_coverage_json(const std::vector<property::CoverageSeries>& coverage);
std::string render_coverage_text(const GateReport& report);
std::vector<std::string> coverage_notes(const std::vector<GateRow>& rows);

// The row's verdict as reports name it.
std::string verdict_text(const GateRow& row);

// Whether the text report on this stream may use colour: a terminal, and NO_COLOR unset or empty
// (https://no-color.org), and TERM not "dumb".
bool use_color(int fd);

// "0.42" (error / allowed), "-" for 0 (nothing measured), "inf" when a NaN or overflow was seen.
std::string error_ratio_text(double ratio);

}  // namespace attncheck::cli
