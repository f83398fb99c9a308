// attncheck CLI: writing report files so that no reader ever sees a partial one, and stopping a
// run cleanly on SIGINT / SIGTERM.
#pragma once

#include <string>
#include <vector>

namespace CLI {
class App;
}

namespace attncheck::cli {

// The report files and output switches `gate` and `audit` share (their option structs derive
// from it), declared once by add_report_options.
struct ReportFileOptions {
  std::string json, junit, sarif, markdown, html;
  bool no_timings = false;
  bool quiet = false;
  bool coverage = false;
  bool verbose = false;
};

// Where the two commands' help texts differ.
struct ReportFileOptionHelp {
  std::string json_schema;  // e.g. "schema attncheck-gate/1, schema_version 7: docs/report-schema.json"
  std::string junit_cases;  // e.g. "one testcase per test and dtype"
  std::string sarif_note;   // appended to the SARIF help, e.g. " (AUDIT-* obligations: docs/audit.md)"
  std::string same_inputs;  // what must be the same for byte-identical reports, e.g. "seed and inputs"
};

// --json, --junit, --sarif, --markdown, --html, --no-timings, -q/--quiet, -v/--verbose and --coverage on app, into o.
void add_report_options(CLI::App& app, ReportFileOptions& o, const ReportFileOptionHelp& help);

// The report files a run writes: (path, content), written in order by write_reports.
using ReportFiles = std::vector<std::pair<std::string, std::string>>;

// Writes each file atomically (write_atomically, cli.hpp). Returns false after printing the
// reason on the first failure; stops without writing anything more once interrupted().
bool write_reports(const ReportFiles& files);

// From now on, the first SIGINT or SIGTERM only sets a flag (the run finishes the check in
// progress, prints what it finished and writes no report); a second one ends the process at once,
// removing the temporary file of a report being written. A signal the parent set to be ignored
// (e.g. `nohup`) stays ignored.
void stop_on_interrupt();

// The signal that asked the run to stop, or 0.
int interrupted();

// The exit status of an interrupted run: 128 + the signal, as a shell reports it.
int interrupted_exit_status();

}  // namespace attncheck::cli
