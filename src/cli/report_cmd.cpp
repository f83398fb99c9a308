// attncheck CLI: `attncheck report --html OUT --from REPORT.json` — a self-contained HTML page
// (verdict table and plots) from the JSON report of a gate or audit run.
#include <iostream>
#include <memory>

#include "cli/cli.hpp"
#include "cli/report_html.hpp"
#include "cli/report_reader.hpp"

namespace attncheck::cli {

bool add_html_report(ReportFiles& files, const std::string& path, const std::string& json) {
  std::string error;
  const auto report = parse_report(json, path, &error);
  if (!report) {  // the run's own JSON always reads; if not, that is a bug to report, not to hide
    std::cerr << "error: --html: the run's JSON report could not be read back: " << error << "\n";
    return false;
  }
  const HtmlReport page = render_html(*report);
  // A plot that could not be drawn (e.g. no gnuplot) is said here and in the page; the run's
  // verdict and exit status stay those of its checks.
  for (const auto& w : page.warnings) std::cerr << "warning: --html: plot not drawn: " << w << "\n";
  files.emplace_back(path, page.html);
  return true;
}

namespace {
struct ReportOptions {
  std::string html, from;
};

int run_report(const ReportOptions& opt) {
  std::string error;
  const auto report = read_report(opt.from, &error);
  if (!report) {
    std::cerr << "error: " << error << "\n";
    return exit_usage;
  }
  const HtmlReport page = render_html(*report);
  write_atomically(opt.html, page.html);
  for (const auto& w : page.warnings) std::cerr << "warning: plot not drawn: " << w << "\n";
  std::cout << "wrote " << opt.html << " (" << report->rows.size() << " results, " << page.plot_ids.size()
            << (page.plot_ids.size() == 1 ? " plot" : " plots") << ")\n";
  // A page without the plots it should have is not the report asked for: say so in the status.
  return page.warnings.empty() ? exit_pass : exit_usage;
}
}  // namespace

Command setup_report(CLI::App& parent, const Global&) {
  auto* app = parent.add_subcommand(
      "report", "Turn the JSON report of a gate or audit run into one self-contained HTML file (verdicts and plots)");
  auto opt = std::make_shared<ReportOptions>();
  app->add_option("--html", opt->html, "The HTML file to write")->required();
  app->add_option("--from", opt->from, "The JSON report of `attncheck gate --json` or `attncheck audit --json`")
      ->required();
  app->footer("Plots are drawn with gnuplot (Debian's gnuplot-nox; ATTNCHECK_GNUPLOT overrides the program) and "
              "inlined as SVG: the page needs no network access and no script library to view.\n"
              "Exit status: 0 written, 2 an unreadable report, an unwritable file or a plot gnuplot could not draw "
              "(the page is still written, with the reason in place of the plot).");
  return {app, [opt] { return run_report(*opt); }};
}

}  // namespace attncheck::cli
