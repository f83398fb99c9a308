// attncheck CLI: what every report says of a check that did not pass, in the same words: the
// counterexample without RapidCheck's draw log, the labelled error/allowance figures, and the
// likely cause the contract names (its test's if_fails, as `attncheck show TEST` prints it).
#include <cmath>
#include <sstream>

#include "attncheck/text/numbers.hpp"
#include "cli/gate.hpp"

namespace attncheck::cli {

std::string ratio_figure(double r) { return std::isfinite(r) ? decimal(r, 4) : std::string("inf"); }

std::string without_draws(const std::string& counterexample) {
  std::string out;
  std::istringstream in(counterexample);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("  Drawn ", 0) != 0) out += line + "\n";
  return out;
}

std::string failure_figures(const property::Outcome& o) {
  if (o.worst_ratio == 0 && o.counterexample_ratio == 0) return "";
  if (o.counterexample_ratio == o.worst_ratio) return "Error/allowance: " + ratio_figure(o.worst_ratio) + " in the shrunk counterexample, the largest seen";
  std::string s = "Error/allowance: largest seen " + ratio_figure(o.worst_ratio);
  if (!o.worst_case.empty()) s += " (" + o.worst_case + ")";
  if (o.counterexample_ratio != 0) s += ", shrunk counterexample " + ratio_figure(o.counterexample_ratio);
  else if (!o.counterexample.empty()) s += "; the counterexample's failure is not an error against an allowance";
  if (!o.worst_failure.empty())
    s += "; shrinking keeps the smallest failing input, not the largest error: the worst failing case found follows the replay line";
  return s;
}

std::string likely_cause(const GateReport& report, const property::Outcome& o) {
  if (o.counterexample.rfind("exception: ", 0) == 0 && o.counterexample_ratio == 0) {
    const std::string first = o.counterexample.substr(0, o.counterexample.find('\n'));
    if (first.find(" no answer ") != std::string::npos)
      return "the call did not finish, not an accuracy failure: a hang, or a kernel slower than --timeout allows (the counterexample "
             "says how long it ran and how much CPU time it used)";
    return "the call itself failed, not an accuracy failure: the counterexample's first line says how";
  }
  const auto at = report.test_causes.find(o.test_id);
  return at == report.test_causes.end() ? std::string() : at->second;
}

}  // namespace attncheck::cli
