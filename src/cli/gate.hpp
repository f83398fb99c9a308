// attncheck CLI: the result of one `attncheck gate` run, as the text, JSON and JUnit writers see it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "attncheck/check/registry.hpp"

namespace attncheck::cli {

// One (test, dtype) check: the contract context plus the registry's outcome.
struct GateRow {
  std::string contract;
  std::vector<std::string> obligations;
  bool has_property = true;  // false: the test ID has no property in this build (verdict ERROR)
  check::Outcome outcome;

  std::string dtype() const;  // "f32", or "-" when there was no property to run at any dtype
  bool passed() const { return outcome.verdict == check::Verdict::pass; }
};

struct GateReport {
  std::string version;
  std::uint64_t seed = 0;
  int cases = 0;
  std::string kernels;   // "reference" or the mutant's name
  std::string tolerance = "derived";  // the accuracy tolerance mode (check/tolerance.hpp)
  bool timings = true;   // false with --no-timings: seconds are 0 and the table has no time column
  std::vector<GateRow> rows;
  std::vector<std::string> notes;  // printed just before the summary (e.g. whether a mutant was caught)

  int passed() const;
  int failed() const { return static_cast<int>(rows.size()) - passed(); }
};

// The terminal report: header, table, one block per non-PASS row, and the summary line.
std::string render_text(const GateReport& report);
std::string render_json(const GateReport& report);
std::string render_junit(const GateReport& report);

// "0.42" (error / allowed), "-" for 0 (nothing measured), "inf" when a NaN or overflow was seen.
std::string format_ratio(double ratio);

}  // namespace attncheck::cli
