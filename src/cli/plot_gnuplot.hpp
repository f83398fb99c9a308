// attncheck CLI: SVG plots drawn by gnuplot (Debian's gnuplot-nox), for the HTML report.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace attncheck::cli {

// One labelled row of a dot plot: worst and median error/allowance (0 = not measured).
struct DotRow {
  std::string label;
  double worst = 0, median = 0;
};

// One point of a strip plot: its group (a row of the plot) and its value.
struct StripPoint {
  std::string group;
  double value = 0;
};

// A gnuplot script for a horizontal dot plot, one line per row, worst and median markers, the
// x axis logarithmic (or linear on [0, max(1, largest)]), a dashed line at ratio 1 (the allowance).
std::string dot_plot_script(const std::string& title, const std::vector<DotRow>& rows, bool log_x);
// A gnuplot script for a strip plot: every value as a dot on its group's line, spread vertically
// by a fixed (deterministic) jitter so equal values stay visible; x logarithmic.
std::string strip_plot_script(const std::string& title, const std::vector<std::string>& groups,
                              const std::vector<StripPoint>& points,
                              const std::string& xlabel = "worst error / allowance of each check (log scale; 1 = the allowance)");

// One data set of an x-y plot: its rows (each of the width `using_` reads) and how it is drawn.
struct XYLayer {
  std::string title;                      // the key entry; empty: none
  std::string style;                      // e.g. "points pointtype 7 pointsize 0.5 linecolor rgb \"#1f77b4\""
  std::string using_ = "1:2";             // gnuplot's `using` for the rows
  std::vector<std::vector<double>> rows;  // finite values only
};

// The axes and decorations of an x-y plot.
struct XYAxes {
  std::string xlabel, ylabel;
  bool log_x = false, log_y = false;
  std::string xrange, yrange;                // gnuplot ranges, e.g. "[0:1.05]"; empty: automatic
  std::vector<std::string> settings;         // further `set ...` lines (tics, arrows)
  std::vector<std::string> functions;        // extra plot terms, e.g. "x/2 with lines title \"‖δ‖/2\""
  int width = 900, height = 440;
};

// A gnuplot script for an x-y plot of layers (points, steps, vectors...) on the given axes.
std::string xy_plot_script(const std::string& title, const XYAxes& axes, const std::vector<XYLayer>& layers);

// A colour per scalar format (the same in every plot) and for anything else.
std::string dtype_colour(const std::string& dtype);

// Runs gnuplot ($ATTNCHECK_GNUPLOT, else `gnuplot` on PATH) on the script and returns the SVG,
// ready to inline into HTML: the XML prolog dropped and every id prefixed with id_prefix, so two
// plots in one page do not share ids. nullopt with *error when gnuplot is missing or fails.
std::optional<std::string> gnuplot_svg(const std::string& script, const std::string& id_prefix, std::string* error);

}  // namespace attncheck::cli
