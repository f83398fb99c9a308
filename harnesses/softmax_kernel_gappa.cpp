// Gappa harness of softmax-kernel-v1 (SM-INV-001, normalisation): the softmax denominator, the
// reference kernels::row_sum (the loop softmax and log_softmax both call), recorded at
// gappa_scalar<C> over exps e_j in [0, 1] at row lengths far beyond bit-blasting (KANI-SM-001
// reaches d = 2-4). Gappa proves |ŝ − Σ e_j| <= γ_{d−1}·d, with no overflow: the derived
// summation bound ŝ = Σ ê_j (1 + θ), |θ| <= γ_{d−1} (bounds/softmax.hpp, gamma_sum), on which
// the normalisation bound of SM-INV-001 and the accuracy bound of SM-BND-001 rest, taken at the
// range's worst case Σ e_j <= d.
//
// Why [0, 1]: after max subtraction every exp argument is <= 0 (KANI-ASCL-002, all d) and the
// validated exp axioms put exp of a non-positive value in [0, 1]; so every row of exps the kernel
// sums lies in this box, wherever its maximum is.
//
// GAPPA-SM-002 proves the relative form itself, ŝ = Σ e_j (1 + θ), |θ| <= γ_{d−1}: the form
// SM-INV-001's and SM-BND-001's proofs use (proofs/softmax_kernel.tex, step (3)), for every row of
// the box, wherever its maximum is. Gappa proves a relative sum bound as soon as the first summand
// is nonzero (then no partial sum is 0; a sum of subnormals is exact, which gappa knows), but not
// when a partial sum may be 0 (it cannot chain relative errors through 0 + 0, and `$` splits on
// the inputs did not help; measured). So the box is split by the position f of the first nonzero
// exp: case f has e_0 = … = e_{f−1} = 0, e_f in [η, 1] (η the smallest subnormal: the nonzero
// values of the format) and the rest in [0, 1]; the d cases and the zero row (case f = d, all
// inputs [0, 0], goal ŝ = 0 exactly: gappa has no relative error at 0) cover the box [0, 1]^d,
// and each is a gappa run of the kernel's whole d-term loop (no hand argument about leading
// zeros). The cost, d + 1 runs, grows about 7 times per doubling of d (bench/bmc_scaling.md).
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "attncheck/bmc/gappa_harness.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "harnesses/support.hpp"

namespace attncheck::harnesses {
namespace {

// Mutant kernel: the sum stops one short (a loop bound of n - 1), so the exact expression is
// not Σ e_j and Gappa's check of the specification fails.
template <class T>
T row_sum_drops_last(const T* e, std::size_t n) {
  return kernels::row_sum(e, n - 1);
}

// Mutant kernel: the running sum is stored with 4 significand bits fewer than the format has.
template <class C>
gappa_scalar<C> row_sum_narrow_accumulator(const gappa_scalar<C>* e, std::size_t n) {
  using T = gappa_scalar<C>;
  T s = lit<T>(0);
  for (std::size_t i = 0; i < n; ++i) s = T(gappa_recorder::current().narrowed((s + e[i]).node(), 4));
  return s;
}

template <class C>
gappa_scalar<C> recorded_sum(const std::vector<gappa_scalar<C>>& e, const std::string& mutant);

template <class C>
real sum_allowance(std::size_t d, const std::string& mutant) {
  const real b = bounds::gamma(d - 1, bounds::model_of<C>().u) * static_cast<real>(d);
  return mutant == "gappa_sum_bound_quarter" ? b / 4 : b;
}

template <class C>
gappa_problem sum_problem(std::size_t d, const std::string& mutant) {
  using T = gappa_scalar<C>;
  gappa_recorder rec(format_of<C>);
  std::vector<T> e;
  for (std::size_t j = 0; j < d; ++j) e.emplace_back(rec.input("e" + std::to_string(j), 0, 1));
  const real allowance = sum_allowance<C>(d, mutant);
  // γ_{d-1} is infinite once (d - 1)·u >= 1 (bf16 at d = 257): the derived bound says nothing.
  if (!std::isfinite(allowance)) return {"", std::numeric_limits<double>::infinity(), 0, false, {}};
  const T s = recorded_sum<C>(e, mutant);
  std::string spec;
  for (std::size_t j = 0; j < d; ++j) spec += fmt::format("{}e{}", j ? " + " : "", j);
  const double bound = up(allowance);
  return {rec.script(s.node(), bound, spec), bound, rec.roundings(), false, {}};
}

gappa_problem build(Dtype f, std::size_t d, const std::string& mutant) {
  return with_gappa_format(f, [&](auto t) { return sum_problem<decltype(t)>(d, mutant); });
}

// The kernel (or a mutant) on the recorded exps e.
template <class C>
gappa_scalar<C> recorded_sum(const std::vector<gappa_scalar<C>>& e, const std::string& mutant) {
  return mutant == "gappa_sum_drops_last"             ? row_sum_drops_last(e.data(), e.size())
         : mutant == "gappa_sum_accumulator_narrowed" ? row_sum_narrow_accumulator<C>(e.data(), e.size())
                                                      : kernels::row_sum(e.data(), e.size());
}

// Case first_nonzero of the relative sum bound (first_nonzero = d: the zero row): the script.
template <class C>
std::string relative_case(std::size_t d, std::size_t first_nonzero, double bound, const std::string& mutant,
                          std::size_t* roundings) {
  using T = gappa_scalar<C>;
  gappa_recorder rec(format_of<C>);
  const double eta = std::ldexp(1.0, format_of<C>.min_exponent - format_of<C>.precision + 1);
  std::vector<T> e;
  for (std::size_t j = 0; j < d; ++j)
    e.emplace_back(rec.input("e" + std::to_string(j), j == first_nonzero ? eta : 0, j < first_nonzero ? 0 : 1));
  const T s = recorded_sum<C>(e, mutant);
  std::string spec;
  for (std::size_t j = 0; j < d; ++j) spec += fmt::format("{}e{}", j ? " + " : "", j);
  *roundings = rec.roundings();
  // The zero row: gappa has no relative error at S = 0, where ŝ = S (1 + θ) means ŝ = 0 = S,
  // which is the absolute goal |ŝ − S| <= 0.
  if (first_nonzero == d) return rec.script(s.node(), 0, spec);
  // The loop's first step is fl(0 + e_0): gappa bounds its relative error only when told that
  // 0 + e_0 is e_0 (a rewriting it checks is an identity; without it case f = 0 fails, measured).
  return rec.script(s.node(), bound, spec, /*relative=*/true) + "0 + e0 -> e0;\n";
}

template <class C>
gappa_problem relative_sum_problem(std::size_t d, const std::string& mutant) {
  real allowance = bounds::gamma(d - 1, bounds::model_of<C>().u);
  if (mutant == "gappa_sum_bound_quarter") allowance /= 4;
  if (!std::isfinite(allowance)) return {"", std::numeric_limits<double>::infinity(), 0, false, {}};
  gappa_problem p;
  p.relative = true;
  p.bound = up(allowance);
  p.script = relative_case<C>(d, 0, p.bound, mutant, &p.roundings);
  std::size_t unused = 0;
  for (std::size_t f = 1; f <= d; ++f) p.cases.push_back(relative_case<C>(d, f, p.bound, mutant, &unused));
  return p;
}

gappa_problem build_relative(Dtype f, std::size_t d, const std::string& mutant) {
  return with_gappa_format(f, [&](auto t) { return relative_sum_problem<decltype(t)>(d, mutant); });
}

const bool registered =
    register_gappa_harness({"GAPPA-SM-001", "softmax-kernel-v1",
                            "softmax denominator: the left-to-right sum of d exps in [0, 1] within gamma_{d-1}*d "
                            "of the exact sum (the derived summation bound at its worst case), no overflow (Gappa)",
                            "e_j in [0, 1] (e.g. the point e = 0, or the one-hot row of a softmax)", build}) &&
    register_gappa_harness({"GAPPA-SM-002", "softmax-kernel-v1",
                            "softmax denominator, relative form: the left-to-right sum of d exps in [0, 1] is "
                            "(sum e_j)(1 + theta) with |theta| <= gamma_{d-1}, no overflow (Gappa; the box split by "
                            "the position of the first nonzero exp into d + 1 cases, each a gappa run)",
                            "e_j in [0, 1], split: e_0..e_{f-1} = 0, e_f in [eta, 1], the rest in [0, 1], f = 0..d "
                            "(e.g. the one-hot row, case f = 0)",
                            build_relative}) &&
    register_gappa_mutant({"gappa_sum_drops_last",
                           "the denominator sums e_0 .. e_{d-2} and forgets the last exp (the exact expression is "
                           "not the specification)",
                           {"GAPPA-SM-001", "GAPPA-SM-002"}}) &&
    register_gappa_mutant({"gappa_sum_accumulator_narrowed",
                           "the denominator's running sum keeps 4 significand bits fewer (16x the rounding error)",
                           {"GAPPA-SM-001", "GAPPA-SM-002"}}) &&
    register_gappa_mutant({"gappa_sum_bound_quarter",
                           "the claimed bound is a quarter of the derived summation allowance (too tight)",
                           {"GAPPA-SM-001", "GAPPA-SM-002"}});

}  // namespace
}  // namespace attncheck::harnesses
