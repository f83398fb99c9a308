// attncheck CLI: one self-contained HTML file from a gate or audit JSON report. Everything is
// inline (CSS, the gnuplot SVGs, a ten-line self-check script) and a Content-Security-Policy
// forbids every network fetch, so the page opens offline and a stray external reference would
// show up as a console error in the headless-browser test (tests/docs/check_html.sh).
#include "cli/report_html.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "cli/cli.hpp"
#include "cli/plot_gnuplot.hpp"

namespace attncheck::cli {

namespace {

std::string esc(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string ratio_text(double v) {
  if (std::isinf(v)) return "inf";
  if (v == 0) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string verdict_class(const std::string& v) {
  if (v == "PASS") return "pass";
  if (v == "N/A") return "na";
  return "fail";
}

const char* style = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 1.5em auto; max-width: 1200px; color: #1b1b1b; padding: 0 1em; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 1.6em; }
table { border-collapse: collapse; width: 100%; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 6px; text-align: left; vertical-align: top; }
th { background: #f3f3f3; position: sticky; top: 0; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
.pass { color: #11702b; font-weight: 600; } .fail { color: #b00020; font-weight: 600; } .na { color: #777; }
.summary span { margin-right: 1.5em; font-size: 1.1em; }
figure.plot { margin: 1em 0; } figure.plot svg { max-width: 100%; height: auto; }
figcaption { color: #444; max-width: 900px; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
.warning { color: #8a5300; }
details { margin: 0.5em 0 1em 0; }
)";

const char* self_check = R"(
// Self-check read by the headless-browser test: marks each plot whose SVG has a non-empty
// rendered box, and logs one line, so the test also knows that console capture works.
window.addEventListener("load", function () {
  var figures = document.querySelectorAll("figure.plot"), drawn = 0;
  figures.forEach(function (f) {
    var svg = f.querySelector("svg"), box = svg ? svg.getBBox() : null;
    var ok = box !== null && box.width > 0 && box.height > 0;
    f.setAttribute("data-rendered", ok ? "yes" : "no");
    if (ok) drawn++;
  });
  document.body.setAttribute("data-plots-rendered", String(drawn));
  console.log("attncheck-report: " + drawn + " of " + figures.length + " plots rendered");
});
)";

int dtype_rank(const std::string& d) {
  static const std::vector<std::string> order = {"f16", "bf16", "f32", "f64"};
  const auto it = std::find(order.begin(), order.end(), d);
  return it == order.end() ? static_cast<int>(order.size()) : static_cast<int>(it - order.begin());
}

struct Plot {
  std::string id, title, caption, script;
};

// The plots this report has data for. Ratios of 0 were not measured (exact checks) and N/A rows
// did not run: neither is plotted; an infinite ratio (NaN or overflow seen) cannot be placed on
// the axis and is named in the caption instead.
std::vector<Plot> plots_for(const ReportData& r) {
  std::vector<Plot> plots;
  std::vector<const ReportRow*> ran;
  for (const auto& row : r.rows)
    if (row.verdict != "N/A") ran.push_back(&row);

  // 1. Tightness per obligation.
  std::vector<std::string> keys;
  std::map<std::string, DotRow> by_obligation;
  std::set<std::string> infinite;
  for (const ReportRow* row : ran)
    for (const auto& o : row->obligations) {
      if (!by_obligation.count(o)) {
        keys.push_back(o);
        by_obligation[o].label = o;
      }
      DotRow& d = by_obligation[o];
      if (std::isinf(row->worst_ratio)) infinite.insert(o);
      else d.worst = std::max(d.worst, row->worst_ratio);
      if (std::isfinite(row->median_ratio)) d.median = std::max(d.median, row->median_ratio);
    }
  std::vector<DotRow> rows;
  std::size_t unmeasured = 0;
  for (const auto& k : keys)
    if (by_obligation[k].worst > 0)
      rows.push_back(by_obligation[k]);
    else if (!infinite.count(k))
      ++unmeasured;
  if (!rows.empty()) {
    std::string caption =
        "Per obligation: the largest error/allowance seen over all its checks (worst, ▲) and the largest of its "
        "checks' medians (median, ●). Left of the dashed line at 1 the measured errors stay within the derived "
        "allowance; a point near 1 means the allowance is tight.";
    if (unmeasured) caption += " " + std::to_string(unmeasured) + " obligations have no measured ratio (exact checks) and are not shown.";
    if (!infinite.empty())
      caption += " Infinite ratio (NaN or overflow seen), not placeable on the axis: " +
                 join(std::vector<std::string>(infinite.begin(), infinite.end()), ", ") + ".";
    plots.push_back({"plot-tightness-per-obligation", "Tightness per obligation", caption,
                     dot_plot_script("Tightness per obligation (error / allowance)", rows, true)});
  }

  // 2. The worst ratio of every check, per scalar format.
  std::vector<std::string> groups;
  std::vector<StripPoint> points;
  for (const ReportRow* row : ran)
    if (row->worst_ratio > 0 && std::isfinite(row->worst_ratio)) {
      if (std::find(groups.begin(), groups.end(), row->dtype) == groups.end()) groups.push_back(row->dtype);
      points.push_back({row->dtype, row->worst_ratio});
    }
  std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return dtype_rank(a) < dtype_rank(b); });
  if (!points.empty())
    plots.push_back({"plot-tightness-per-format", "Worst error / allowance of every check, per format",
                     "One dot per check (falsification test at one scalar format): its largest error/allowance. "
                     "The spread shows how much of the derived allowance each format uses; " +
                         std::to_string(points.size()) + " checks with a finite measured ratio.",
                     strip_plot_script("Worst error / allowance per check, by scalar format", groups, points)});

  // 3. The softmax-filtering bound's stages: measured / bound (seed 000's chain).
  std::vector<DotRow> stages;
  for (const ReportRow* row : ran)
    if (row->contract == "softmax-filtering-bound-v1" && (row->worst_ratio > 0 || row->median_ratio > 0))
      stages.push_back({row->test + " [" + row->dtype + "]", std::isfinite(row->worst_ratio) ? row->worst_ratio : 0,
                        row->median_ratio});
  if (!stages.empty())
    plots.push_back({"plot-softmax-filtering-bound", "Softmax-filtering bound: measured / bound per stage",
                     "For each stage test of softmax-filtering-bound-v1 and format: the largest (▲) and median (●) "
                     "ratio of the measured perturbation to the bound. Values near 1 show the bound is reached "
                     "(stage 1 on two-point rows); the distribution over all cases is not in the JSON report yet.",
                     dot_plot_script("Softmax-filtering bound: measured / bound", stages, false)});
  return plots;
}

}  // namespace

HtmlReport render_html(const ReportData& r) {
  HtmlReport out;
  int passed = 0, failed = 0, na = 0;
  for (const auto& row : r.rows) {
    if (row.verdict == "PASS") ++passed;
    else if (row.verdict == "N/A") ++na;
    else ++failed;
  }
  const std::string kind = r.is_audit() ? "audit" : "gate";
  std::string h = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  h += "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
       "script-src 'unsafe-inline'; img-src data:\">\n";
  h += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>attncheck " + kind + " report</title>\n<style>" + std::string(style) + "</style>\n";
  h += "<script>" + std::string(self_check) + "</script>\n</head>\n<body>\n";
  h += "<h1>attncheck " + kind + " report</h1>\n";
  h += "<p>attncheck " + esc(r.version) + " · schema " + esc(r.schema) + " · seed " + esc(r.seed) + " · " +
       std::to_string(r.cases) + " cases · kernels " + esc(r.kernels) + " · tolerance " + esc(r.tolerance) + "</p>\n";
  h += "<p class=\"summary\"><span class=\"pass\">" + std::to_string(passed) + " passed</span><span class=\"fail\">" +
       std::to_string(failed) + " failed</span>" +
       (r.is_audit() ? "<span class=\"na\">" + std::to_string(na) + " not applicable</span>" : std::string()) + "</p>\n";

  h += "<h2>Plots</h2>\n";
  const std::vector<Plot> plots = plots_for(r);
  if (plots.empty()) h += "<p>No check in this report measured an error/allowance ratio: nothing to plot.</p>\n";
  for (const Plot& p : plots) {
    std::string error;
    const auto svg = gnuplot_svg(p.script, p.id + "-", &error);
    if (!svg) {
      out.warnings.push_back(p.title + ": " + error);
      h += "<p class=\"warning\">Plot \"" + esc(p.title) + "\" not drawn: " + esc(error) + "</p>\n";
      continue;
    }
    out.plot_ids.push_back(p.id);
    h += "<figure class=\"plot\" id=\"" + p.id + "\">\n" + *svg + "\n<figcaption>" + esc(p.caption) +
         "</figcaption>\n</figure>\n";
  }

  h += "<h2>Verdicts</h2>\n<table>\n<thead><tr><th>contract</th><th>obligations</th><th>test</th><th>dtype</th>"
       "<th>verdict</th><th>cases</th><th>worst</th><th>median</th></tr></thead>\n<tbody>\n";
  for (const auto& row : r.rows) {
    const std::string cls = verdict_class(row.verdict);
    h += "<tr><td>" + esc(row.contract) + "</td><td>" + esc(join(row.obligations, " ")) + "</td><td>" +
         (cls == "fail" ? "<a href=\"#" + esc(row.test + "-" + row.dtype) + "\">" + esc(row.test) + "</a>" : esc(row.test)) +
         "</td><td>" + esc(row.dtype) + "</td><td class=\"" + cls + "\">" + esc(row.verdict) + "</td><td class=\"num\">" +
         std::to_string(row.cases) + "</td><td class=\"num\">" + ratio_text(row.worst_ratio) + "</td><td class=\"num\">" +
         ratio_text(row.median_ratio) + "</td></tr>\n";
  }
  h += "</tbody>\n</table>\n";

  if (failed) {
    h += "<h2>Failures</h2>\n";
    for (const auto& row : r.rows) {
      if (verdict_class(row.verdict) != "fail") continue;
      h += "<h3 id=\"" + esc(row.test + "-" + row.dtype) + "\"><span class=\"fail\">" + esc(row.verdict) + "</span> " +
           esc(row.test) + " [" + esc(row.dtype) + "]</h3>\n<p>contract " + esc(row.contract) + ", obligations " +
           esc(join(row.obligations, ", ")) + (row.seed.empty() ? "" : ", seed " + esc(row.seed)) + "</p>\n";
      if (!row.message.empty()) h += "<pre>" + esc(row.message) + "</pre>\n";
      if (!row.counterexample.empty() && row.counterexample != row.message)
        h += "<details open><summary>Counterexample</summary><pre>" + esc(row.counterexample) + "</pre></details>\n";
      if (!row.worst_case.empty())
        h += "<details><summary>Largest error seen</summary><pre>" + esc(row.worst_case) + "</pre></details>\n";
      if (!row.replay.empty()) h += "<p>Replay:</p><pre>" + esc(row.replay) + "</pre>\n";
    }
  }
  h += "</body>\n</html>\n";
  out.html = std::move(h);
  return out;
}

}  // namespace attncheck::cli
