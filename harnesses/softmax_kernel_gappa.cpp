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
// Why the absolute form and not the relative |ŝ −/ Σ e| <= γ_{d−1}: Gappa proves the relative
// form only when the first summand is bounded away from 0 (measured: with e_0 = 1 it proves d = 64
// in 4 s; with the 1 in the middle or last it gives up, since the early partial sums may be 0 or
// subnormal and Gappa's relative-rounding rule needs a normal lower bound). The absolute form
// holds for every row, wherever the maximum sits.
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
  if (!std::isfinite(allowance)) return {"", std::numeric_limits<double>::infinity(), 0};
  const T s = mutant == "gappa_sum_drops_last"          ? row_sum_drops_last(e.data(), d)
              : mutant == "gappa_sum_accumulator_narrowed" ? row_sum_narrow_accumulator<C>(e.data(), d)
                                                            : kernels::row_sum(e.data(), d);
  std::string spec;
  for (std::size_t j = 0; j < d; ++j) spec += fmt::format("{}e{}", j ? " + " : "", j);
  const double bound = up(allowance);
  return {rec.script(s.node(), bound, spec), bound, rec.roundings()};
}

gappa_problem build(Dtype f, std::size_t d, const std::string& mutant) {
  return with_gappa_format(f, [&](auto t) { return sum_problem<decltype(t)>(d, mutant); });
}

const bool registered =
    register_gappa_harness({"GAPPA-SM-001", "softmax-kernel-v1",
                            "softmax denominator: the left-to-right sum of d exps in [0, 1] within gamma_{d-1}*d "
                            "of the exact sum (the derived summation bound at its worst case), no overflow (Gappa)",
                            "e_j in [0, 1] (e.g. the point e = 0, or the one-hot row of a softmax)", build}) &&
    register_gappa_mutant({"gappa_sum_drops_last",
                           "the denominator sums e_0 .. e_{d-2} and forgets the last exp (the exact expression is "
                           "not the specification)",
                           {"GAPPA-SM-001"}}) &&
    register_gappa_mutant({"gappa_sum_accumulator_narrowed",
                           "the denominator's running sum keeps 4 significand bits fewer (16x the rounding error)",
                           {"GAPPA-SM-001"}}) &&
    register_gappa_mutant({"gappa_sum_bound_quarter",
                           "the claimed bound is a quarter of the derived summation allowance (too tight)",
                           {"GAPPA-SM-001"}});

}  // namespace
}  // namespace attncheck::harnesses
