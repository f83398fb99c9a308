// attncheck: the Gappa script recorder (gappa.hpp).
#include "attncheck/bmc/gappa.hpp"

#include <cmath>
#include <cstdint>
#include <stdexcept>

#include <fmt/format.h>

namespace attncheck::bmc {
namespace {
thread_local gappa_recorder* current_recorder = nullptr;
}

std::string gappa_rounding(const format_info& f) {
  // 2^(e_min - p + 1) is the smallest subnormal: Gappa's second parameter.
  return fmt::format("float<{},{},ne>", f.precision, f.min_exponent - f.precision + 1);
}

std::string gappa_literal(double v) {
  if (!std::isfinite(v)) throw std::invalid_argument("a Gappa literal must be finite");
  if (v == 0) return "0";
  int e = 0;
  const double m = std::frexp(v, &e);  // v = m 2^e, 0.5 <= |m| < 1
  auto mant = static_cast<std::int64_t>(std::ldexp(m, 53));  // exact: a double has 53 bits
  e -= 53;
  while (mant % 2 == 0) mant /= 2, ++e;
  return e == 0 ? fmt::format("{}", mant) : fmt::format("{}b{}", mant, e);
}

gappa_recorder::gappa_recorder(const format_info& f) : format_(f), previous_(current_recorder) {
  current_recorder = this;
}
gappa_recorder::~gappa_recorder() { current_recorder = previous_; }

gappa_recorder& gappa_recorder::current() {
  if (!current_recorder) throw std::logic_error("no Gappa recorder is open on this thread");
  return *current_recorder;
}

std::string gappa_recorder::fresh() { return std::to_string(++next_); }

gappa_recorder::node gappa_recorder::input(const std::string& name, double lo, double hi) {
  if (!(lo <= hi)) throw std::invalid_argument("empty input range for " + name);
  // The kernel's input is a value of the format: the rounding of an unconstrained real in [lo, hi]
  // (lo and hi representable, so the input ranges over exactly the format's values in [lo, hi]).
  lines_.push_back(fmt::format("{0} = rnd({0}_in);", name));
  hypotheses_.push_back(fmt::format("{}_in in [{}, {}]", name, gappa_literal(lo), gappa_literal(hi)));
  return {name, name};
}

gappa_recorder::node gappa_recorder::constant(double v) {
  if (v == 0) return {"0", "0"};
  const std::string id = fresh();
  lines_.push_back(fmt::format("r{} = rnd({});", id, gappa_literal(v)));
  rounded_names_.push_back("r" + id);
  return {"r" + id, gappa_literal(v)};
}

gappa_recorder::node gappa_recorder::binary(char op, const node& a, const node& b) {
  const std::string id = fresh(), r = "r" + id, x = "x" + id;
  lines_.push_back(fmt::format("{} = rnd({} {} {});", r, a.rounded, op, b.rounded));
  lines_.push_back(fmt::format("{} = {} {} {};", x, a.exact, op, b.exact));
  rounded_names_.push_back(r);
  if (op == '/')
    // Gappa does not split the error of a quotient by a rounded divisor by itself: the error of
    // the division, the numerator's error over the divisor, and the divisor's error.
    hints_.push_back(fmt::format("{0} - {1} -> ({0} - {2} / {3}) + ({2} - {4}) / {3} + {4} * (1 / {3} - 1 / {5}) "
                                 "{{ {3} <> 0, {5} <> 0 }};",
                                 r, x, a.rounded, b.rounded, a.exact, b.exact));
  return {r, x};
}

gappa_recorder::node gappa_recorder::square_root(const node& a) {
  const std::string id = fresh(), r = "r" + id;
  lines_.push_back(fmt::format("{} = rnd(sqrt({}));", r, a.rounded));
  rounded_names_.push_back(r);
  // The exact square root stays inline: Gappa's normaliser treats a named sqrt as an opaque
  // atom, and the check that the kernel's exact expression is the specification needs to see it.
  return {r, fmt::format("sqrt({})", a.exact)};
}

gappa_recorder::node gappa_recorder::narrowed(const node& a, int fewer_bits) {
  const std::string id = fresh(), r = "r" + id;
  const int p = format_.precision - fewer_bits;
  if (p < 2) throw std::invalid_argument("cannot narrow the format below 2 significand bits");
  lines_.push_back(fmt::format("{} = float<{},{},ne>({});", r, p, format_.min_exponent - format_.precision + 1, a.rounded));
  rounded_names_.push_back(r);
  return {r, a.exact};
}

gappa_recorder::node gappa_recorder::negate(const node& a) {
  const std::string id = fresh();
  lines_.push_back(fmt::format("r{0} = -{1};", id, a.rounded));
  lines_.push_back(fmt::format("x{0} = -{1};", id, a.exact));
  return {"r" + id, "x" + id};
}

std::string gappa_recorder::script(const node& out, double claimed_bound, const std::string& spec, bool relative) const {
  std::string s = fmt::format("@rnd = {};\n", gappa_rounding(format_));
  for (const auto& l : lines_) s += l + "\n";
  // The goal compares with the specification S when one is given; the hint r - S -> r - x
  // reduces it to the kernel's own rounding error, and Gappa accepts that hint silently only if
  // x = S as rational functions (else it warns "not trivially equal", which run_gappa reports
  // as not proved): the kernel's exact expression must be the specification.
  const std::string target = spec.empty() ? out.exact : "S_spec";
  if (!spec.empty()) s += fmt::format("S_spec = {};\n", spec);
  std::string hyp;
  for (const auto& h : hypotheses_) hyp += (hyp.empty() ? "" : " /\\ ") + h;
  const std::string m = gappa_literal(format_.max_finite);
  // A relative goal names the kernel's exact term: Gappa takes no -/ in a rewriting hint, so the
  // hint below (r - S_spec -> r - x) is there only for its check that x = S, which Gappa makes
  // for every hint, used or not (measured: the gappa_sum_drops_last mutant gets the warning).
  const std::string b = gappa_literal(claimed_bound);
  std::string goal = relative ? fmt::format("{} -/ {} in [-{}, {}]", out.rounded, out.exact, b, b)
                              : fmt::format("|{} - {}| <= {}", out.rounded, target, b);
  for (const auto& r : rounded_names_) goal += fmt::format(" /\\ {} in [-{}, {}]", r, m, m);
  s += hyp.empty() ? fmt::format("{{ {} }}\n", goal) : fmt::format("{{ {} ->\n  {} }}\n", hyp, goal);
  if (!spec.empty()) s += fmt::format("{0} - S_spec -> {0} - {1};\n", out.rounded, out.exact);
  for (const auto& h : hints_) s += h + "\n";
  return s;
}

}  // namespace attncheck::bmc
