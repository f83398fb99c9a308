// attncheck CLI: the self-contained HTML report of a gate or audit run (`attncheck report --html`;
// gate and audit `--html` are meant to call the same renderer).
#pragma once

#include <string>
#include <vector>

#include "cli/report_files.hpp"
#include "cli/report_reader.hpp"

namespace attncheck::cli {

struct HtmlReport {
  std::string html;                   // one file: inline CSS and SVG, no network access to view it
  std::vector<std::string> plot_ids;  // the <figure> ids of the plots drawn, in page order
  std::vector<std::string> warnings;  // plots that could not be drawn, and why (also shown in the page)
};

// The verdict table (every row; the counterexample, message and replay command of each non-PASS
// row), and the plots the report has data for: tightness per obligation (worst and median
// error/allowance), the worst ratio of every check per scalar format, and the measured/bound
// ratios of the softmax-filtering bound's stages when that contract was run.
HtmlReport render_html(const ReportData& report);

// gate/audit --html: renders the page from the run's own JSON report text (so the page shows what
// the JSON says) and queues it with the run's other report files. False, after saying why, only
// if that JSON cannot be read back.
bool add_html_report(ReportFiles& files, const std::string& path, const std::string& json);

}  // namespace attncheck::cli
