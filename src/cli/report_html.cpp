// attncheck CLI: one self-contained HTML file from a gate or audit JSON report. Everything is
// inline (CSS, the gnuplot SVGs, a ten-line self-check script) and a Content-Security-Policy
// forbids every network fetch, so the page opens offline and a stray external reference would
// show up as a console error in the headless-browser test (tests/docs/check_html.sh).
#include "cli/report_html.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "attncheck/text/numbers.hpp"
#include "cli/cli.hpp"
#include "cli/gate.hpp"
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
  if (v == "N/A" || v == "NOT-JUDGED") return "na";  // neither passed nor failed
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
p.question { font-weight: bold; max-width: 900px; margin: 0.4em 0; }
pre { background: #f7f7f7; padding: 0.6em; overflow-x: auto; white-space: pre-wrap; }
.warning { color: #8a5300; }
pre.counterexample { max-height: 24em; overflow: auto; } p.cause { font-size: 1.05em; }
details { margin: 0.5em 0 1em 0; }
)";

const char* self_check = R"(
// Self-check read by the headless-browser tests: marks each plot whose SVG has a non-empty
// rendered box, names what of the first failure the first screen shows, and logs one line, so the
// test also knows that console capture works.
window.addEventListener("load", function () {
  var figures = document.querySelectorAll("figure.plot"), drawn = 0;
  figures.forEach(function (f) {
    var svg = f.querySelector("svg"), box = svg ? svg.getBBox() : null;
    var ok = box !== null && box.width > 0 && box.height > 0;
    f.setAttribute("data-rendered", ok ? "yes" : "no");
    if (ok) drawn++;
  });
  document.body.setAttribute("data-plots-rendered", String(drawn));
  // What of the first failure lies wholly within the first screen (the window's height).
  var failure = document.querySelector("section.failure"), seen = [];
  if (failure) ["cause", "figures", "counterexample", "replay"].forEach(function (c) {
    var e = failure.querySelector("." + c);
    if (e && e.getBoundingClientRect().bottom <= window.innerHeight) seen.push(c);
  });
  document.body.setAttribute("data-first-screen", seen.join(" "));
  document.body.setAttribute("data-screen-height", String(window.innerHeight));
  console.log("attncheck-report: " + drawn + " of " + figures.length + " plots rendered");
});
)";

int dtype_rank(const std::string& d) {
  static const std::vector<std::string> order = {"f16@f16", "f16@f32", "bf16@bf16", "bf16@f32", "f32", "f64"};
  const auto it = std::find(order.begin(), order.end(), d);
  return it == order.end() ? static_cast<int>(order.size()) : static_cast<int>(it - order.begin());
}

struct Plot {
  std::string id, title, caption, script;
};

// The question each plot answers, said above it (a reader decides from it whether to look).
std::string plot_question(const std::string& id) {
  static const std::pair<const char*, const char*> questions[] = {
      {"plot-error-histogram-", "How much of its derived allowance does each output element of this kernel use?"},
      {"plot-error-vs-entropy-", "Does this kernel's error grow on peaked rows (low entropy), and does it stay under each element's allowance?"},
      {"plot-error-vs-gap-", "Does this kernel's error grow with an entry's distance from the row maximum, and stay under each element's allowance?"},
      {"plot-lipschitz-cone", "Does the computed softmax move at most half as far as its input (the Lipschitz constant 1/2)?"},
      {"plot-entropy-vs-beta", "Does the attention entropy stay in [0, ln n] and never rise as the inverse temperature grows?"},
      {"plot-sfb-tightness-distribution", "How close does each case of the softmax-filtering bound come to the bound?"},
      {"plot-tightness-per-obligation", "Which obligations use most of their allowance (how much margin is left)?"},
      {"plot-tightness-per-format", "Which scalar formats use most of their allowance?"},
      {"plot-softmax-filtering-bound", "Which stage of the softmax-filtering bound is tight?"},
  };
  for (const auto& [prefix, q] : questions)
    if (id.rfind(prefix, 0) == 0) return q;
  return "";
}

// A failure's one-line reason for the failure summary: the first line of its text (what failed,
// on which shape) and the line that says why, when there is one: the error against its
// allowance ("Error: ... ratio 10.6") or the rule that was broken ("... must be ...").
std::string one_line_reason(const std::string& text) {
  std::istringstream in(text);
  std::string first, why, line;
  std::getline(in, first);
  while (why.empty() && std::getline(in, line)) {
    const auto start = line.find_first_not_of(' ');
    if (start == std::string::npos) continue;
    line = line.substr(start);
    if (line.rfind("Error:", 0) == 0 || line.find(" must ") != std::string::npos) why = line;
  }
  std::string reason = why.empty() ? first : first + ": " + why;
  if (reason.size() > 240) reason = reason.substr(0, 237) + "...";
  return reason;
}

// The figures line of a failure, as the text report words it (failure_figures, report_failure.cpp).
std::string figures_of(const ReportRow& row) {
  property::Outcome o;
  o.worst_ratio = row.worst_ratio;
  o.worst_case = row.worst_case;
  o.counterexample_ratio = row.counterexample_ratio;
  o.counterexample = row.counterexample;
  o.worst_failure = row.worst_failure;
  return failure_figures(o);
}

// One failure, in the text report's order; the classes mark what the first-screen test looks for.
std::string failure_block(const ReportRow& row) {
  std::string h = "<section class=\"failure\" id=\"" + esc(row.test + "-" + row.dtype) + "\">\n<h3><span class=\"fail\">" +
                  esc(row.verdict) + "</span> " + esc(row.test) + " [" + esc(row.dtype) + "]</h3>\n";
  if (!row.likely_cause.empty()) h += "<p class=\"cause\"><b>Likely cause:</b> " + esc(row.likely_cause) + "</p>\n";
  if (const std::string figures = figures_of(row); !figures.empty()) h += "<p class=\"figures\">" + esc(figures) + "</p>\n";
  h += "<p>contract " + esc(row.contract) + ", obligations " + esc(join(row.obligations, ", ")) +
       (row.seed.empty() ? "" : ", seed " + esc(row.seed)) + "</p>\n";
  if (!row.counterexample.empty())
    h += "<p>Counterexample (shrunk):</p><pre class=\"counterexample\">" + esc(without_draws(row.counterexample)) + "</pre>\n";
  if (!row.message.empty() && row.message != row.counterexample) h += "<pre class=\"message\">" + esc(row.message) + "</pre>\n";
  if (!row.replay.empty()) h += "<p>Replay:</p><pre class=\"replay\">" + esc(row.replay) + "</pre>\n";
  if (!row.worst_failure.empty())
    h += "<details><summary>Worst failing case found (error/allowance " + esc(ratio_figure(row.worst_failure_ratio)) +
         ")</summary><pre>" + esc(row.worst_failure) + "</pre></details>\n";
  return h + "</section>\n";
}

// Every failure in one table: test (a link to its block), dtype, verdict, the worst ratio and a
// one-line reason each.
std::string failure_summary(const ReportData& r) {
  std::string h = "<table class=\"failure-summary\">\n<thead><tr><th>test</th><th>dtype</th>"
                  "<th>verdict</th><th>worst</th><th>reason</th></tr></thead>\n<tbody>\n";
  for (const auto& row : r.rows) {
    if (verdict_class(row.verdict) != "fail") continue;
    h += "<tr><td><a href=\"#" + esc(row.test + "-" + row.dtype) + "\">" + esc(row.test) + "</a></td><td>" + esc(row.dtype) +
         "</td><td class=\"fail\">" + esc(row.verdict) + "</td><td class=\"num\">" + ratio_text(row.worst_ratio) + "</td><td>" +
         esc(one_line_reason(row.message.empty() ? row.counterexample : row.message)) + "</td></tr>\n";
  }
  return h + "</tbody>\n</table>\n";
}

// ---- plots of the per-case samples (the results' "samples", schema_version 3) ----

// A sampled series together with the result it came from.
struct Sampled {
  const ReportRow* row;
  const ReportSeries* series;
};

std::vector<Sampled> series_named(const std::vector<const ReportRow*>& ran, const std::string& name, const std::string& subject = "*") {
  std::vector<Sampled> out;
  for (const ReportRow* row : ran)
    for (const auto& s : row->samples)
      if (s.name == name && (subject == "*" || s.subject == subject)) out.push_back({row, &s});
  return out;
}

// The formats present among the samples, in the usual order.
std::vector<std::string> dtypes_of(const std::vector<Sampled>& v) {
  std::vector<std::string> d;
  for (const auto& x : v)
    if (std::find(d.begin(), d.end(), x.row->dtype) == d.end()) d.push_back(x.row->dtype);
  std::stable_sort(d.begin(), d.end(), [](const auto& a, const auto& b) { return dtype_rank(a) < dtype_rank(b); });
  return d;
}

// "N points sampled from M measured in K checks": what a sample plot stands on.
std::string provenance(const std::vector<Sampled>& v, std::size_t shown) {
  unsigned long long offered = 0, nonfinite = 0;
  std::set<std::string> checks;
  for (const auto& x : v) {
    offered += x.series->offered;
    nonfinite += x.series->nonfinite;
    checks.insert(x.row->test + " [" + x.row->dtype + "]");
  }
  std::string s = std::to_string(shown) + " points drawn, sampled deterministically from " + std::to_string(offered) +
                  " measured in " + std::to_string(checks.size()) + (checks.size() == 1 ? " check" : " checks") + " (" +
                  join(std::vector<std::string>(checks.begin(), checks.end()), ", ") + ")";
  if (nonfinite) s += "; " + std::to_string(nonfinite) + " measurements with an infinite or NaN value cannot be drawn";
  return s + ".";
}

std::string point_style(const std::string& dtype, int pointtype, double size) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "points pointtype %d pointsize %.2f linecolor rgb \"%s\"", pointtype, size, dtype_colour(dtype).c_str());
  return buf;
}

// The upper end of a log axis a factor 2 above hi, short of infinity (gnuplot cannot read "inf").
std::string above(double hi) { return decimal(std::min(hi * 2, std::numeric_limits<double>::max()), 6); }

std::string plot_id(const std::string& prefix, const std::string& subject) {
  std::string id = prefix;
  for (char c : subject) id += std::isalnum(static_cast<unsigned char>(c)) ? c : '-';
  return id;
}

// Per kernel: a histogram of error/allowance of the sampled element comparisons (one step line per
// format, log-spaced bins, 4 per decade), and error against |x_i - max x| (entropy: against H(p))
// with the allowance drawn.
void add_kernel_plots(const std::vector<const ReportRow*>& ran, std::vector<Plot>& plots) {
  std::vector<std::string> kernels;
  for (const ReportRow* row : ran)
    for (const auto& s : row->samples)
      if ((s.name == "error" || s.name == "error-vs-gap" || s.name == "error-vs-entropy") &&
          std::find(kernels.begin(), kernels.end(), s.subject) == kernels.end())
        kernels.push_back(s.subject);
  for (const std::string& kernel : kernels) {
    // The second plot's x: |x_i - max x| for row kernels ("error-vs-gap"), H(p) for entropy
    // ("error-vs-entropy": one output per row, and its allowance rho_H*H + a_H is a line in H).
    std::vector<Sampled> all = series_named(ran, "error", kernel), gap = series_named(ran, "error-vs-gap", kernel),
                         by_entropy = series_named(ran, "error-vs-entropy", kernel);
    all.insert(all.end(), gap.begin(), gap.end());
    const bool vs_entropy = gap.empty() && !by_entropy.empty();
    if (vs_entropy) gap = by_entropy;
    const std::string x_column = vs_entropy ? "entropy" : "gap";
    const std::vector<std::string> dtypes = dtypes_of(all);
    std::map<std::string, std::vector<double>> ratios;
    std::size_t zeros = 0, shown = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = 0;
    for (const auto& x : all) {
      const int e = x.series->column("error"), a = x.series->column("allowance");
      if (e < 0 || a < 0) continue;
      for (const auto& p : x.series->points) {
        ++shown;
        const double r = p[a] > 0 ? p[e] / p[a] : 0;
        if (!(r >= std::numeric_limits<double>::min()) || !std::isfinite(r)) {
          ++zeros;
          continue;
        }
        ratios[x.row->dtype].push_back(r);
        lo = std::min(lo, r);
        hi = std::max(hi, r);
      }
    }
    if (shown == 0) continue;
    std::vector<XYLayer> layers;
    bool below = false;
    if (hi > 0) {
      // At most 12 decades below the largest ratio (or below 1): smaller ratios, from outputs far
      // below their allowance (underflowing entries), go into the leftmost bin.
      const double floor_at = std::min(0.0, std::ceil(std::log10(hi))) - 12;
      if (std::log10(lo) < floor_at) below = true;
      const double first = std::max(floor_at, std::floor(std::log10(lo) * 4) / 4), last = std::max(first + 0.25, std::min(308.0, std::ceil(std::log10(hi) * 4 + 1e-9) / 4));
      const int bins = static_cast<int>(std::lround((last - first) * 4));
      for (const auto& d : dtypes) {
        if (!ratios.count(d)) continue;
        std::vector<int> count(static_cast<std::size_t>(bins), 0);
        for (double r : ratios[d]) {
          const int b = std::clamp(static_cast<int>(std::floor((std::log10(r) - first) * 4)), 0, bins - 1);
          ++count[static_cast<std::size_t>(b)];
        }
        XYLayer l{d, "steps linewidth 2 linecolor rgb \"" + dtype_colour(d) + "\"", "1:2", {}};
        l.rows.push_back({std::pow(10.0, first), 0});
        for (int b = 0; b < bins; ++b) l.rows.push_back({std::pow(10.0, first + b / 4.0), static_cast<double>(count[static_cast<std::size_t>(b)])});
        l.rows.push_back({std::pow(10.0, last), 0});
        layers.push_back(std::move(l));
      }
    }
    XYAxes axes;
    axes.xlabel = "error / derived allowance of one element (log scale; 1 = the allowance)";
    axes.ylabel = "sampled elements per bin";
    axes.log_x = true;
    axes.height = 380;
    axes.yrange = "[0:*]";
    axes.settings = {"set arrow from 1, graph 0 to 1, graph 1 nohead dashtype 2 linecolor rgb \"#b00020\"", "set format x \"1e%L\""};
    std::string caption = "Kernel " + kernel + ": how much of the derived allowance each compared output element uses, per format "
                          "(bins of a quarter decade). Right of the dashed line at 1 an element is outside its allowance. " +
                          provenance(all, shown);
    if (zeros) caption += " " + std::to_string(zeros) + " of them had error 0 (or no positive allowance) and have no place on the log axis.";
    if (below) caption += " Ratios more than 12 decades below the largest (or below 1) are counted in the leftmost bin.";
    plots.push_back({plot_id("plot-error-histogram-", kernel), "Error histogram: " + kernel, caption,
                     xy_plot_script("Kernel " + kernel + ": error / allowance per element", axes, layers)});

    if (gap.empty()) continue;
    std::vector<XYLayer> points;
    std::size_t gap_shown = 0, gap_zero = 0;
    const double tiny = std::numeric_limits<double>::min();
    double y_lo = std::numeric_limits<double>::infinity(), y_hi = 0, x_lo = std::numeric_limits<double>::infinity(), x_hi = 0;
    for (const auto& d : dtypes_of(gap)) {
      XYLayer err{d + " error", point_style(d, 7, 0.45), "1:2", {}}, bound{d + " derived allowance", point_style(d, 1, 0.45), "1:2", {}};
      for (const auto& x : gap) {
        if (x.row->dtype != d) continue;
        const int g = x.series->column(x_column), e = x.series->column("error"), a = x.series->column("allowance");
        if (g < 0 || e < 0 || a < 0) continue;
        // Subnormal values (below DBL_MIN) are left out: gnuplot's log axis reads them as 0.
        for (const auto& p : x.series->points) {
          ++gap_shown;
          if (p[g] >= tiny) x_lo = std::min(x_lo, p[g]), x_hi = std::max(x_hi, p[g]);
          if (p[e] >= tiny) {
            err.rows.push_back({p[g], p[e]});
            y_lo = std::min(y_lo, p[e]), y_hi = std::max(y_hi, p[e]);
          } else {
            ++gap_zero;
          }
          if (p[a] >= tiny) {
            bound.rows.push_back({p[g], p[a]});
            y_lo = std::min(y_lo, p[a]), y_hi = std::max(y_hi, p[a]);
          }
        }
      }
      points.push_back(std::move(bound));
      points.push_back(std::move(err));
    }
    // What x means for this kernel (falsify/: where each check records its samples). Element-wise
    // row kernels: the element's own |x_i - max x|. attention (FALSIFY-ASCL-009), an output mixing
    // every key: the query's score spread. entropy (FALSIFY-ASCL-008): the exact H(p).
    const std::string gap_text = vs_entropy              ? "the exact entropy H(p) of the row the kernel was given"
                                 : kernel == "attention" ? "the query's score spread max_j s_j - min_j s_j over its visible keys"
                                                         : "how far the element's input lies below the row maximum";
    XYAxes ax;
    ax.xlabel = (vs_entropy ? "H(p) in nats: " : kernel == "attention" ? "largest |x_i - max x| of the row: " : "|x_i - max x|: ") + gap_text +
                " (log scale, 0 at the left)";
    ax.ylabel = "absolute error of the element (log scale)";
    // At most 30 decades of y: errors of entries that underflow would squeeze the rest into a line.
    std::size_t clipped = 0;
    const auto is_error = [](const XYLayer& l) { return l.title.size() > 6 && l.title.substr(l.title.size() - 6) == " error"; };
    if (y_hi > 0) {
      const double bottom = std::max(y_lo / 2, y_hi * 1e-30);
      x_lo = std::numeric_limits<double>::infinity(), x_hi = 0;  // the x range of what is drawn
      for (const auto& l : points)
        for (const auto& r : l.rows) {
          if (is_error(l) && r[1] < bottom) ++clipped;
          else if (r[1] >= bottom && r[0] >= tiny) x_lo = std::min(x_lo, r[0]), x_hi = std::max(x_hi, r[0]);
        }
      ax.yrange = "[" + decimal(bottom, 6) + ":" + above(y_hi) + "]";
    }
    // Gaps span many decades (rows near overflow): log x. The row maximum itself (gap 0) is drawn
    // at a tick labelled 0, a factor 4 left of the smallest positive gap.
    ax.log_x = true;
    if (x_hi == 0) x_lo = x_hi = 1;
    const double zero_at = x_lo / 4;
    for (auto& l : points)
      for (auto& r : l.rows)
        if (!(r[0] >= tiny)) r[0] = zero_at;
    ax.xrange = "[" + decimal(zero_at / 2, 6) + ":" + above(x_hi) + "]";
    ax.settings = {"set format x \"%g\"", "set xtics add (\"0\" " + decimal(zero_at, 17) + ")"};
    ax.log_y = true;

    std::string cap = "Kernel " + kernel + ": the error of each sampled output element (●) against " + gap_text +
                      ", with the derived allowance of the same element (+) in the same colour; every ● should lie below "
                      "its +. " + provenance(gap, gap_shown);
    if (gap_zero) cap += " " + std::to_string(gap_zero) + " elements were exact (error 0, or below the smallest normal double) and are not drawn.";
    if (clipped) cap += " " + std::to_string(clipped) + " errors more than 30 decades below the largest lie under the plotted range (and the x axis ends at the last point drawn).";
    const std::string x_name = vs_entropy ? "H(p)" : "|x_i - max x|";
    plots.push_back({plot_id(vs_entropy ? "plot-error-vs-entropy-" : "plot-error-vs-gap-", kernel), "Error against " + x_name + ": " + kernel,
                     cap, xy_plot_script("Kernel " + kernel + ": error against " + x_name + ", with the derived allowance", ax, points)});
  }
}

// The Lipschitz contract: ‖softmax(x+δ) − softmax(x)‖₂ against ‖δ‖₂, below the line ‖δ‖₂/2.
void add_lipschitz_plot(const std::vector<const ReportRow*>& ran, std::vector<Plot>& plots) {
  const auto v = series_named(ran, "lipschitz");
  if (v.empty()) return;
  std::vector<XYLayer> layers;
  std::size_t shown = 0, zero = 0;
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& d : dtypes_of(v)) {
    XYLayer l{d, point_style(d, 7, 0.5), "1:2", {}};
    for (const auto& x : v) {
      const int dn = x.series->column("delta_norm"), cn = x.series->column("change_norm");
      if (x.row->dtype != d || dn < 0 || cn < 0) continue;
      for (const auto& p : x.series->points) {
        ++shown;
        if (!(p[dn] >= std::numeric_limits<double>::min()) || !(p[cn] >= std::numeric_limits<double>::min())) {
          ++zero;
          continue;
        }
        l.rows.push_back({p[dn], p[cn]});
        lo = std::min(lo, p[dn]);
        hi = std::max(hi, p[dn]);
      }
    }
    layers.push_back(std::move(l));
  }
  XYAxes axes;
  axes.xlabel = "‖δ‖₂ (log scale)";
  axes.ylabel = "‖softmax(x + δ) - softmax(x)‖₂ (log scale)";
  axes.log_x = axes.log_y = true;
  axes.functions = {"x/2 with lines dashtype 2 linewidth 2 linecolor rgb \"#b00020\" title \"‖δ‖₂/2 (the Lipschitz constant 1/2)\""};
  if (hi > 0) axes.xrange = "[" + decimal(lo / 2, 6) + ":" + above(hi) + "]";
  std::string caption = "softmax-lipschitz-v1 (SLIP-BND-002): for each sampled case of FALSIFY-SLIP-004, how far the computed "
                        "softmax moved against how far its input moved. The bound ‖δ‖₂/2 is the dashed line: on linear axes the "
                        "points fill the cone |Δ| ≤ ‖δ‖/2 (the \"double cone\" of the Lipschitz bound), here on log axes the line has slope 1 and "
                        "lies a factor 2 below the diagonal. Points may exceed it only by the rows' derived rounding allowance. " +
                        provenance(v, shown);
  if (zero) caption += " " + std::to_string(zero) + " cases with no change (or δ = 0) have no place on the log axes.";
  plots.push_back({"plot-lipschitz-cone", "Lipschitz: ‖Δsoftmax‖₂ against ‖δ‖₂", caption,
                   xy_plot_script("softmax is 1/2-Lipschitz: ‖Δsoftmax‖₂ against ‖δ‖₂", axes, layers)});
}

// Entropy against inverse temperature β: H(softmax(βz))/ln n at β = 1 and β = 2^j, joined per case.
void add_entropy_plot(const std::vector<const ReportRow*>& ran, std::vector<Plot>& plots) {
  const auto v = series_named(ran, "entropy-vs-beta");
  if (v.empty()) return;
  std::vector<XYLayer> layers;
  XYLayer joins{"one case: β = 1 to β = 2^j", "vectors nohead linewidth 0.6 linecolor rgb \"#bbbbbb\"", "1:2:3:4", {}};
  std::vector<XYLayer> dots;
  std::size_t shown = 0, single = 0, outside = 0;
  for (const auto& d : dtypes_of(v)) {
    XYLayer l{d, point_style(d, 7, 0.5), "1:2", {}};
    for (const auto& x : v) {
      const int b = x.series->column("beta"), hb = x.series->column("entropy_at_beta"), h1 = x.series->column("entropy_at_1"),
                ln = x.series->column("ln_n");
      if (x.row->dtype != d || b < 0 || hb < 0 || h1 < 0 || ln < 0) continue;
      for (const auto& p : x.series->points) {
        ++shown;
        if (!(p[ln] > 0)) {  // a row of one entry: H = ln 1 = 0, nothing to normalise
          ++single;
          continue;
        }
        const double y1 = p[h1] / p[ln], yb = p[hb] / p[ln];
        outside += (y1 < -0.05 || y1 > 1.08) + (yb < -0.05 || yb > 1.08);
        joins.rows.push_back({1, y1, p[b] - 1, yb - y1});
        l.rows.push_back({1, y1});
        l.rows.push_back({p[b], yb});
      }
    }
    dots.push_back(std::move(l));
  }
  layers.push_back(std::move(joins));
  for (auto& l : dots) layers.push_back(std::move(l));
  XYAxes axes;
  axes.xlabel = "inverse temperature β (log scale; β = 2^j multiplies the scores, as dropping 1/√d_k with d_k = 4^j does)";
  axes.ylabel = "H(softmax(βz)) / ln n";
  axes.log_x = true;
  axes.xrange = "[0.8:80]";
  axes.yrange = "[-0.05:1.08]";
  axes.settings = {"set logscale x 2", "set xtics (\"1\" 1, \"2\" 2, \"4\" 4, \"8\" 8, \"16\" 16, \"32\" 32, \"64\" 64)"};
  axes.functions = {"0 with lines dashtype 2 linecolor rgb \"#b00020\" title \"0 (one-hot)\"",
                    "1 with lines dashtype 2 linecolor rgb \"#6a3d9a\" title \"ln n (uniform)\""};
  std::string caption = "attention-scaling-v1 (ASCL-BND-002/003, ASCL-MON-001): the entropy of the computed attention row at "
                        "β = 1 and at β = 2^j for each sampled case of FALSIFY-ASCL-005, divided by ln n so rows of different "
                        "lengths share the axis: the bounds 0 and ln n are the dashed lines at 0 and 1, and each grey segment "
                        "must not rise (entropy never increases with β, up to the derived allowance). " +
                        provenance(v, shown);
  if (single) caption += " " + std::to_string(single) + " cases with a row of one entry (ln 1 = 0) are not drawn.";
  if (outside) caption += " " + std::to_string(outside) + " entropies lie outside the plotted range [-0.05, 1.08]·ln n: far outside its bounds.";
  plots.push_back({"plot-entropy-vs-beta", "Entropy against inverse temperature", caption,
                   xy_plot_script("Attention entropy against inverse temperature β", axes, layers)});
}

// The softmax-filtering bound: per-case measured/bound of every stage, random and adversarial heads.
void add_tightness_plot(const std::vector<const ReportRow*>& ran, std::vector<Plot>& plots) {
  const auto v = series_named(ran, "tightness");
  if (v.empty()) return;
  std::vector<std::string> stages;
  for (const auto& x : v)
    if (std::find(stages.begin(), stages.end(), x.series->subject) == stages.end()) stages.push_back(x.series->subject);
  XYLayer random{"random head", "points pointtype 7 pointsize 0.5 linecolor rgb \"#1f77b4\"", "1:2", {}};
  XYLayer adversarial{"adversarial head", "points pointtype 9 pointsize 0.6 linecolor rgb \"#d62728\"", "1:2", {}};
  std::size_t shown = 0, zero = 0, k = 0;
  double lo = 1, hi = 1;
  for (const auto& x : v) {
    const int r = x.series->column("ratio"), a = x.series->column("adversarial");
    const double g = static_cast<double>(std::find(stages.begin(), stages.end(), x.series->subject) - stages.begin());
    if (r < 0) continue;
    for (const auto& p : x.series->points) {
      ++shown;
      if (!(p[r] >= std::numeric_limits<double>::min())) {
        ++zero;
        continue;
      }
      // Golden-ratio sequence: a fixed, well-spread vertical offset in [-0.3, 0.3] per point.
      const double jitter = (std::fmod(static_cast<double>(k++) * 0.6180339887498949, 1.0) - 0.5) * 0.6;
      (a >= 0 && p[a] != 0 ? adversarial : random).rows.push_back({p[r], g + jitter});
      lo = std::min(lo, p[r]);
      hi = std::max(hi, p[r]);
    }
  }
  XYAxes axes;
  axes.xlabel = "measured / bound of one case (log scale; 1 = the bound)";
  axes.ylabel = "";
  axes.log_x = true;
  axes.height = 140 + 60 * static_cast<int>(stages.size());
  axes.xrange = "[" + decimal(lo / 2, 6) + ":" + above(hi) + "]";
  std::string tics = "set ytics (";
  for (std::size_t i = 0; i < stages.size(); ++i) tics += (i ? ", \"" : "\"") + stages[i] + "\" " + std::to_string(i);
  axes.settings = {tics + ") scale 0", "set arrow from 1, graph 0 to 1, graph 1 nohead dashtype 2 linecolor rgb \"#b00020\"",
                   "set format x \"%g\""};
  // The first stage on top: the y range runs from the last index down to the first.
  axes.yrange = "[" + std::to_string(static_cast<double>(stages.size()) - 0.5) + ":-0.5]";
  std::string caption = "softmax-filtering-bound-v1: the per-case tightness, measured perturbation / bound, of every stage "
                        "(FALSIFY-SFB-001 to -004), random heads (●) and adversarial ones (◆). The bound holds where the "
                        "points stay left of the dashed line at 1; how close they come is how tight the bound is. " +
                        provenance(v, shown);
  if (zero) caption += " " + std::to_string(zero) + " cases with ratio 0 have no place on the log axis.";
  plots.push_back({"plot-sfb-tightness-distribution", "Softmax-filtering bound: tightness distribution", caption,
                   xy_plot_script("Softmax-filtering bound: measured / bound per case", axes, {random, adversarial})});
}

void add_sample_plots(const std::vector<const ReportRow*>& ran, std::vector<Plot>& plots) {
  add_kernel_plots(ran, plots);
  add_lipschitz_plot(ran, plots);
  add_entropy_plot(ran, plots);
  add_tightness_plot(ran, plots);
}

// The plots this report has data for. Ratios of 0 were not measured (exact checks) and N/A rows
// did not run: neither is plotted; an infinite ratio (NaN or overflow seen) cannot be placed on
// the axis and is named in the caption instead.
std::vector<Plot> plots_for(const ReportData& r) {
  std::vector<Plot> plots;
  std::vector<const ReportRow*> ran;
  for (const auto& row : r.rows)
    if (row.verdict != "N/A" && row.verdict != "NOT-JUDGED") ran.push_back(&row);

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

  // 3. The softmax-filtering bound's stages: measured / bound (softmax-filtering-bound-v1's chain).
  std::vector<DotRow> stages;
  for (const ReportRow* row : ran)
    if (row->contract == "softmax-filtering-bound-v1" && (row->worst_ratio > 0 || row->median_ratio > 0))
      stages.push_back({row->test + " [" + row->dtype + "]", std::isfinite(row->worst_ratio) ? row->worst_ratio : 0,
                        row->median_ratio});
  if (!stages.empty())
    plots.push_back({"plot-softmax-filtering-bound", "Softmax-filtering bound: measured / bound per stage",
                     "For each stage test of softmax-filtering-bound-v1 and format: the largest (▲) and median (●) "
                     "ratio of the measured perturbation to the bound. Values near 1 show the bound is reached "
                     "(stage 1 on two-point rows); the distribution over the cases is in the tightness-distribution plot below.",
                     dot_plot_script("Softmax-filtering bound: measured / bound", stages, false)});
  add_sample_plots(ran, plots);
  return plots;
}

}  // namespace

HtmlReport render_html(const ReportData& r) {
  HtmlReport out;
  int passed = 0, failed = 0, na = 0, not_judged = 0;
  for (const auto& row : r.rows) {
    if (row.verdict == "PASS") ++passed;
    else if (row.verdict == "N/A") ++na;
    else if (row.verdict == "NOT-JUDGED") ++not_judged;
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
       (r.is_audit() ? "<span class=\"na\">" + std::to_string(na) + " not applicable</span>" : std::string()) +
       (not_judged ? "<span class=\"na\">" + std::to_string(not_judged) + " not judged (every input declined)</span>" : std::string()) +
       "</p>\n";

  // A failing report opens on its failures, each failure first: the verdict and the check, the likely
  // cause the contract names, the labelled figures, the shrunk counterexample (without RapidCheck's
  // draw log, which only the JSON keeps) and the replay line, so the first screen holds the first
  // failure whole (the browser test tests/docs/check_first_screen.sh). With several failures, the
  // table of all of them follows the first block, then the other blocks; the verdict table and the
  // plots come after.
  if (failed) {
    h += "<h2 id=\"failures\">Failures</h2>\n";
    bool first = true;
    for (const auto& row : r.rows) {
      if (verdict_class(row.verdict) != "fail") continue;
      h += failure_block(row);
      if (first && failed > 1) h += failure_summary(r);
      first = false;
    }
  }
  h += "<h2 id=\"verdicts\">Verdicts</h2>\n<table>\n<thead><tr><th>contract</th><th>obligations</th><th>test</th><th>dtype</th>"
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

  h += "<h2 id=\"plots\">Plots</h2>\n";
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
    const std::string question = plot_question(p.id);
    h += "<figure class=\"plot\" id=\"" + p.id + "\">\n" + (question.empty() ? "" : "<p class=\"question\">" + esc(question) + "</p>\n") +
         *svg + "\n<figcaption>" + esc(p.caption) + "</figcaption>\n</figure>\n";
  }

  h += "</body>\n</html>\n";
  out.html = std::move(h);
  return out;
}

}  // namespace attncheck::cli
