// Gappa harness of attention-scaling-v1 (ASCL-INV-002: each score within the derived dot-product
// bound): the reference kernels::scores, recorded at gappa_scalar<C>, for every q, k of the
// format with |q_t|, |k_t| <= 1 and row lengths d far beyond bit-blasting (KANI-ASCL-001 reaches
// d = 1-2). Gappa proves |ŝ − q·k/√d| <= score_bound(√d, d, d) (bounds/scores.hpp), the derived
// allowance at the range's worst case: score_bound grows with |q·k/√d| <= √d and Σ|q_t k_t| <= d.
// q·k/√d is the specification, written here as a Gappa expression of the inputs; Gappa checks
// that the kernel's recorded exact expression is equal to it (gappa.hpp, script()).
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "attncheck/bmc/gappa_harness.hpp"
#include "attncheck/bounds/scores.hpp"
#include "harnesses/support.hpp"

namespace attncheck::harnesses {
namespace {

// Mutant kernel: divides by d instead of √d (the "1/d instead of 1/√d").
template <class T>
void scores_over_d(const T* q, const T* k, std::size_t n, std::size_t m, std::size_t d, T* s) {
  const T scale = lit<T>(static_cast<double>(d));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) s[i * m + j] = kernels::dot(q + i * d, k + j * d, d) / scale;
}

// Mutant kernel: the accumulator is stored with 4 significand bits fewer than the format has
// (a narrower storage type), 16 times the reference's rounding error per step. Gappa-only: it
// needs the recorder's second rounding operator.
template <class C>
void scores_narrow_accumulator(const gappa_scalar<C>* q, const gappa_scalar<C>* k, std::size_t n, std::size_t m,
                               std::size_t d, gappa_scalar<C>* s) {
  using T = gappa_scalar<C>;
  const T scale = sqrt(lit<T>(static_cast<double>(d)));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) {
      T acc = lit<T>(0);
      for (std::size_t t = 0; t < d; ++t)
        acc = T(gappa_recorder::current().narrowed(kernels::dot_step(acc, q[i * d + t], k[j * d + t]).node(), 4));
      s[i * m + j] = acc / scale;
    }
}

// The derived allowance for |q_t|, |k_t| <= 1 at row length d (the mutant: a quarter of it).
template <class C>
real score_allowance(std::size_t d, const std::string& mutant) {
  const real sd = std::sqrt(static_cast<real>(d));
  const real b = bounds::score_bound(sd, static_cast<real>(d), d, bounds::model_of<C>());
  return mutant == "gappa_score_bound_quarter" ? b / 4 : b;
}

template <class C>
gappa_problem score_problem(std::size_t d, const std::string& mutant) {
  using T = gappa_scalar<C>;
  gappa_recorder rec(format_of<C>);
  std::vector<T> q, k;
  for (std::size_t t = 0; t < d; ++t) q.emplace_back(rec.input("q" + std::to_string(t), -1, 1));
  for (std::size_t t = 0; t < d; ++t) k.emplace_back(rec.input("k" + std::to_string(t), -1, 1));
  const real allowance = score_allowance<C>(d, mutant);
  // γ_d is infinite once d·u >= 1 (e.g. bf16 at d = 256): the derived bound then says nothing.
  if (!std::isfinite(allowance)) return {"", std::numeric_limits<double>::infinity(), 0, false, {}};
  T s;
  auto kernel = mutant == "gappa_scores_over_d"              ? scores_over_d<T>
                : mutant == "gappa_accumulator_narrowed" ? scores_narrow_accumulator<C>
                                                             : kernels::scores<T>;
  kernel(q.data(), k.data(), 1, 1, d, &s);
  // The specification: (Σ_t q_t k_t) / √d in exact arithmetic.
  std::string dot;
  for (std::size_t t = 0; t < d; ++t) dot += fmt::format("{}q{} * k{}", t ? " + " : "", t, t);
  const std::string spec = fmt::format("({}) / sqrt({})", dot, gappa_literal(static_cast<double>(d)));
  const double bound = up(allowance);
  return {rec.script(s.node(), bound, spec), bound, rec.roundings(), false, {}};
}

gappa_problem build(Dtype f, std::size_t d, const std::string& mutant) {
  return with_gappa_format(f, [&](auto t) { return score_problem<decltype(t)>(d, mutant); });
}

const bool registered =
    register_gappa_harness({"GAPPA-ASCL-001", "attention-scaling-v1",
                            "score q.k/sqrt(d) within the derived dot-product bound for |q_t|, |k_t| <= 1 (Gappa)",
                            "q_t, k_t in [-1, 1] (e.g. the point q = k = 0)", build}) &&
    register_gappa_mutant({"gappa_scores_over_d",
                           "scores = q.k / d instead of q.k / sqrt(d) (the exact expression is not the specification)",
                           {"GAPPA-ASCL-001"}}) &&
    register_gappa_mutant({"gappa_accumulator_narrowed",
                           "the dot product's accumulator keeps 4 significand bits fewer (16x the rounding error)",
                           {"GAPPA-ASCL-001"}}) &&
    register_gappa_mutant({"gappa_score_bound_quarter",
                           "the claimed bound is a quarter of the derived score allowance (too tight)",
                           {"GAPPA-ASCL-001"}});

}  // namespace
}  // namespace attncheck::harnesses
