// attncheck CLI: the generator coverage figure of a run (property::cover): the `--coverage` text,
// each result's JSON "coverage" list, and the notes for regions a generator named but never reached.
#include "cli/cli.hpp"
#include "cli/gate.hpp"
#include "cli/json.hpp"

namespace attncheck::cli {

namespace {
std::string check_name(const GateRow& row) { return row.outcome.test_id + " [" + row.dtype() + "]"; }
}  // namespace

std::string render_coverage_json(const std::vector<property::CoverageSeries>& coverage) {
  std::string s = "[";
  for (std::size_t i = 0; i < coverage.size(); ++i) {
    const property::CoverageSeries& c = coverage[i];
    s += (i ? ", " : "") + std::string("{\"generator\": ") + json_quoted(c.generator) + ", \"draws\": " + std::to_string(c.draws) +
         ", \"regions\": [";
    for (std::size_t k = 0; k < c.regions.size(); ++k)
      s += (k ? ", " : "") + std::string("{\"region\": ") + json_quoted(c.regions[k]) + ", \"count\": " + std::to_string(c.counts[k]) + "}";
    s += "]}";
  }
  return s + "]";
}

std::string render_coverage_text(const GateReport& r) {
  constexpr std::size_t width = 100;  // wrap the region lists like the rest of the terminal report
  std::string s = "\nGenerator coverage: per check and generator, the inputs drawn and how many reached each region\n"
                  "(0: the generator can produce it for this check, but this run never did):\n";
  bool any = false;
  for (const GateRow& row : r.rows)
    for (const property::CoverageSeries& c : row.outcome.coverage) {
      any = true;
      std::string line = check_name(row) + " " + c.generator + ", " + std::to_string(c.draws) + " drawn:";
      for (std::size_t k = 0; k < c.regions.size(); ++k) {
        const std::string item = " " + c.regions[k] + " " + std::to_string(c.counts[k]) + (k + 1 < c.regions.size() ? "," : "");
        if (line.size() + item.size() > width) s += line + "\n", line = "   ";
        line += item;
      }
      s += line + "\n";
    }
  if (!any) s += "  (no check in this run draws its inputs through a generator that records regions)\n";
  return s;
}

std::vector<std::string> coverage_notes(const std::vector<GateRow>& rows) {
  std::vector<std::string> notes;
  for (const GateRow& row : rows) {
    // A check that failed stopped drawing at its counterexample: its unreached regions say nothing.
    if (!row.passed()) continue;
    for (const property::CoverageSeries& c : row.outcome.coverage) {
      std::vector<std::string> never;
      for (std::size_t k = 0; k < c.regions.size(); ++k)
        if (c.counts[k] == 0) never.push_back(c.regions[k]);
      if (!never.empty())
        notes.push_back("note: " + check_name(row) + ": its " + c.generator + " generator never reached " + join(never, ", ") +
                        " in " + std::to_string(c.draws) + " draws (--coverage shows every region)");
    }
  }
  return notes;
}

}  // namespace attncheck::cli
