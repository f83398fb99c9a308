// attncheck CLI: plots for the HTML report, drawn by gnuplot's SVG terminal.
//
// Why gnuplot rather than Vega-Lite: gnuplot-nox is a Debian package (CI installs it with apt like
// every other dependency; nothing is fetched from a registry at build time and nothing third-party
// is committed), and it writes plain static SVG that is inlined into the page. The page then
// needs no JavaScript library at all: it opens offline in any browser, prints, and cannot fail
// through a script error. Vega-Lite would need vega, vega-lite and vega-embed (about 1 MB of
// minified JavaScript) inlined into every report, fetched from npm during the build.
#include "cli/plot_gnuplot.hpp"

#include <unistd.h>
#include <sys/wait.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <vector>

namespace attncheck::cli {

namespace fs = std::filesystem;

namespace {

// Labels go into gnuplot's data block between tabs: keep them to characters with no meaning there.
std::string label(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || std::string_view("-_.[]:/ ").find(c) != std::string_view::npos) ? c : '?';
  return out;
}

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string gnuplot_quoted(const std::string& s) {
  std::string out = "\"";
  for (char c : s) out += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return out + "\"";
}

std::string header(const std::string& title, int width, int height) {
  return "set terminal svg size " + std::to_string(width) + "," + std::to_string(height) +
         " font \"sans,11\" background \"white\"\n"
         "set encoding utf8\nset termoption noenhanced\nset datafile separator \"\\t\"\n"
         "set title " + gnuplot_quoted(title) + "\nset key outside top center horizontal\nset grid xtics\n";
}

// x range of a log axis covering every positive value and the allowance 1, a factor 2 of margin.
std::pair<double, double> log_range(const std::vector<double>& values) {
  double lo = 1, hi = 1;
  for (double v : values)
    if (v > 0 && std::isfinite(v)) {
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
  return {lo / 2, hi * 2};
}

}  // namespace

std::string dot_plot_script(const std::string& title, const std::vector<DotRow>& rows, bool log_x) {
  const int height = 110 + 18 * static_cast<int>(rows.size());
  std::string s = header(title, 900, height);
  s += "$d << EOD\n";
  std::vector<double> values;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    s += std::to_string(i) + "\t" + label(rows[i].label) + "\t" + num(rows[i].worst) + "\t" + num(rows[i].median) + "\n";
    values.push_back(rows[i].worst);
    values.push_back(rows[i].median);
  }
  s += "EOD\n";
  if (log_x) {
    const auto [lo, hi] = log_range(values);
    s += "set logscale x\nset xrange [" + num(lo) + ":" + num(hi) + "]\n";
    s += "set xlabel \"error / allowance (log scale; 1 = the allowance)\"\n";
  } else {
    double hi = 1;
    for (double v : values)
      if (std::isfinite(v)) hi = std::max(hi, v);
    s += "set xrange [0:" + num(hi * 1.05) + "]\nset xlabel \"measured / bound (1 = the bound)\"\n";
  }
  s += "set yrange [" + num(rows.size() - 0.5) + ":-0.5]\nset ytics scale 0\n";
  s += "set arrow from 1, graph 0 to 1, graph 1 nohead dashtype 2 linecolor rgb \"#b00020\"\n";
  // A 0 means "not measured": NaN leaves the point out.
  s += "plot $d using ($3 > 0 ? $3 : NaN):1:ytic(2) with points pointtype 9 pointsize 1.3 linecolor rgb \"#d62728\" "
       "title \"worst\", \\\n     $d using ($4 > 0 ? $4 : NaN):1 with points pointtype 7 pointsize 0.9 "
       "linecolor rgb \"#1f77b4\" title \"median\"\n";
  return s;
}

std::string strip_plot_script(const std::string& title, const std::vector<std::string>& groups,
                              const std::vector<StripPoint>& points, const std::string& xlabel) {
  const int height = 140 + 50 * static_cast<int>(groups.size());
  std::string s = header(title, 900, height);
  s += "$d << EOD\n";
  std::vector<double> values;
  for (std::size_t i = 0; i < points.size(); ++i) {
    const auto g = std::find(groups.begin(), groups.end(), points[i].group);
    if (g == groups.end() || !(points[i].value > 0) || !std::isfinite(points[i].value)) continue;
    // Golden-ratio sequence: a fixed, well-spread offset in [-0.3, 0.3] per point.
    const double jitter = (std::fmod(static_cast<double>(i) * 0.6180339887498949, 1.0) - 0.5) * 0.6;
    s += num(points[i].value) + "\t" + num(static_cast<double>(g - groups.begin()) + jitter) + "\n";
    values.push_back(points[i].value);
  }
  s += "EOD\n";
  const auto [lo, hi] = log_range(values);
  s += "set logscale x\nset xrange [" + num(lo) + ":" + num(hi) + "]\n";
  s += "set xlabel " + gnuplot_quoted(xlabel) + "\n";
  s += "set yrange [" + num(groups.size() - 0.5) + ":-0.5]\nset ytics (";
  for (std::size_t i = 0; i < groups.size(); ++i) s += (i ? ", " : "") + gnuplot_quoted(label(groups[i])) + " " + std::to_string(i);
  s += ") scale 0\nunset key\n";
  s += "set arrow from 1, graph 0 to 1, graph 1 nohead dashtype 2 linecolor rgb \"#b00020\"\n";
  s += "plot $d using 1:2 with points pointtype 7 pointsize 0.7 linecolor rgb \"#1f77b4\"\n";
  return s;
}

std::string dtype_colour(const std::string& dtype) {
  if (dtype == "f16@f16") return "#d62728";
  if (dtype == "bf16@bf16") return "#ff7f0e";
  if (dtype == "f16@f32") return "#9467bd";
  if (dtype == "bf16@f32") return "#8c564b";
  if (dtype == "f32") return "#1f77b4";
  if (dtype == "f64") return "#2ca02c";
  return "#7f7f7f";
}

std::string xy_plot_script(const std::string& title, const XYAxes& axes, const std::vector<XYLayer>& layers) {
  std::string s = header(title, axes.width, axes.height);
  s += "set grid ytics\n";
  std::vector<std::string> terms;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    const XYLayer& l = layers[i];
    if (l.rows.empty()) continue;
    const std::string block = "$d" + std::to_string(i);
    s += block + " << EOD\n";
    for (const auto& row : l.rows) {
      for (std::size_t k = 0; k < row.size(); ++k) s += (k ? "\t" : "") + num(row[k]);
      s += "\n";
    }
    s += "EOD\n";
    terms.push_back(block + " using " + l.using_ + " with " + l.style + (l.title.empty() ? " notitle" : " title " + gnuplot_quoted(l.title)));
  }
  if (axes.log_x) s += "set logscale x\n";
  if (axes.log_y) s += "set logscale y\n";
  if (!axes.xrange.empty()) s += "set xrange " + axes.xrange + "\n";
  if (!axes.yrange.empty()) s += "set yrange " + axes.yrange + "\n";
  s += "set xlabel " + gnuplot_quoted(axes.xlabel) + "\nset ylabel " + gnuplot_quoted(axes.ylabel) + "\n";
  for (const auto& line : axes.settings) s += line + "\n";
  for (const auto& f : axes.functions) terms.push_back(f);
  if (terms.empty()) terms.push_back("NaN notitle");  // nothing to draw: gnuplot still needs a plot command
  s += "plot ";
  for (std::size_t i = 0; i < terms.size(); ++i) s += (i ? ", \\\n     " : "") + terms[i];
  return s + "\n";
}

std::optional<std::string> gnuplot_svg(const std::string& script, const std::string& id_prefix, std::string* error) {
  const char* env = std::getenv("ATTNCHECK_GNUPLOT");
  const std::string program = env && *env ? env : "gnuplot";
  std::error_code tmp_ec;
  std::string path_text = (fs::temp_directory_path(tmp_ec) / "attncheck-plot-XXXXXX").string();  // honours TMPDIR
  std::vector<char> path_buf(path_text.begin(), path_text.end());
  path_buf.push_back('\0');
  char* script_path = path_buf.data();
  const int fd = ::mkstemp(script_path);
  if (fd < 0) {
    *error = "cannot create a temporary file for the gnuplot script";
    return std::nullopt;
  }
  ::close(fd);
  const std::string err_path = std::string(script_path) + ".err";
  {
    std::ofstream out(script_path, std::ios::binary);
    out << script;
  }
  // Every word is quoted for the shell: TMPDIR and ATTNCHECK_GNUPLOT may hold any character.
  const auto sh = [](const std::string& word) {
    std::string q = "'";
    for (char c : word) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
  };
  const std::string command = sh(program) + " " + sh(script_path) + " 2>" + sh(err_path);
  std::string svg;
  int status = -1;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buf[8192];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) svg.append(buf, n);
    status = ::pclose(pipe);
  }
  std::string diagnostics;
  {
    std::ifstream in(err_path, std::ios::binary);
    std::stringstream t;
    t << in.rdbuf();
    diagnostics = t.str();
  }
  std::error_code ec;
  fs::remove(script_path, ec);
  fs::remove(err_path, ec);
  const int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == 127) {
    *error = "gnuplot not found (" + program + "): install gnuplot-nox (tools/install-deps.sh) or set ATTNCHECK_GNUPLOT";
    return std::nullopt;
  }
  const auto start = svg.find("<svg");
  if (code != 0 || start == std::string::npos || svg.find("</svg>") == std::string::npos) {
    *error = "gnuplot (" + program + ") failed with status " + std::to_string(code) +
             (diagnostics.empty() ? std::string() : ": " + diagnostics);
    return std::nullopt;
  }
  svg = svg.substr(start);
  svg = std::regex_replace(svg, std::regex(R"(\bid=(['"]))"), "id=$1" + id_prefix);
  svg = std::regex_replace(svg, std::regex(R"(href=(['"])#)"), "href=$1#" + id_prefix);
  svg = std::regex_replace(svg, std::regex(R"(url\(#)"), "url(#" + id_prefix);
  return svg;
}

}  // namespace attncheck::cli
