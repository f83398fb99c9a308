// attncheck CLI: the options `gate` and `audit` share to choose what runs (--contract, --test,
// --dtype, --seed, --cases; -j/--jobs), declared and checked once. The report files they share
// are in report_files.hpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "attncheck/scalar/dtype.hpp"

namespace CLI {
class App;
}

namespace attncheck::cli {

struct CheckSelectionOptions {
  std::vector<std::string> contracts, tests, dtypes;
  std::string seed = "0x5eed2026";
  int cases = 200;
  int jobs = 0;  // 0: one worker per core (property/parallel.hpp)
};

// Where the two commands' help texts differ.
struct CheckSelectionHelp {
  std::string contract;  // e.g. "Only this contract (repeatable; default: all)"
  std::string test;
  std::string dtype;
  std::string seed;   // e.g. "Run seed, decimal or 0x hex; same seed, same verdicts"
  std::string cases;  // e.g. "Successful random cases per (test, dtype)"
};

// --contract, --test, --dtype (each repeatable and comma-separated), --seed and --cases on app, into o.
void add_check_selection_options(CLI::App& app, CheckSelectionOptions& o, const CheckSelectionHelp& help);

// -j/--jobs on app, into o.jobs.
void add_jobs_option(CLI::App& app, CheckSelectionOptions& o, const std::string& help, bool show_default);

// Each of these checks one option; on failure it prints the problem and its fix to stderr.
std::optional<std::uint64_t> checked_seed(const CheckSelectionOptions& o);
// cases_note: what the limit protects, appended to the message (e.g. "; the statistical tests' ...").
bool checked_cases(const CheckSelectionOptions& o, std::string_view cases_note);
bool checked_jobs(const CheckSelectionOptions& o);
// The --dtype names as dtypes, in order (each once when dedupe is set).
std::optional<std::vector<Dtype>> checked_dtypes(const CheckSelectionOptions& o, bool dedupe);

}  // namespace attncheck::cli
