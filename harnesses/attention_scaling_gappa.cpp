// Gappa harness of attention-scaling-v1 (ASCL-INV-002: each score within the derived dot-product
// bound): the reference kernels::scores, recorded at gappa_scalar<C>, for every q, k of the
// format with |q_t|, |k_t| <= 1 and row lengths d far beyond bit-blasting (KANI-ASCL-001 reaches
// d = 1-2). Gappa proves |ŝ − q·k/√d| <= score_bound(√d, d, d) (bounds/scores.hpp), the derived
// allowance at the range's worst case: score_bound grows with |q·k/√d| <= √d and Σ|q_t k_t| <= d.
// q·k/√d is the specification, written here as a Gappa expression of the inputs; Gappa checks
// that the kernel's recorded exact expression is equal to it (gappa.hpp, script()).
// GAPPA-ASCL-002 proves the relative form for positive normal products (relative_score_problem).
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

// The kernel (or a mutant) on the recorded q, k of one row length d: the recorded score.
template <class C>
gappa_scalar<C> recorded_score(const std::vector<gappa_scalar<C>>& q, const std::vector<gappa_scalar<C>>& k,
                               const std::string& mutant) {
  using T = gappa_scalar<C>;
  T s;
  auto kernel = mutant == "gappa_scores_over_d"              ? scores_over_d<T>
                : mutant == "gappa_accumulator_narrowed" ? scores_narrow_accumulator<C>
                                                             : kernels::scores<T>;
  kernel(q.data(), k.data(), 1, 1, q.size(), &s);
  return s;
}

// The specification: (Σ_t q_t k_t) / √d in exact arithmetic, as a Gappa expression.
std::string score_spec(std::size_t d) {
  std::string dot;
  for (std::size_t t = 0; t < d; ++t) dot += fmt::format("{}q{} * k{}", t ? " + " : "", t, t);
  return fmt::format("({}) / sqrt({})", dot, gappa_literal(static_cast<double>(d)));
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
  const T s = recorded_score<C>(q, k, mutant);
  const double bound = up(allowance);
  return {rec.script(s.node(), bound, score_spec(d)), bound, rec.roundings(), false, {}};
}

// GAPPA-ASCL-002: the relative form of the same derived bound. score_bound(s, A, d) with
// A = Σ_t |q_t k_t| is linear in (|s|, A) once its underflow terms (d·η, η, out_η) are 0, so
// where every product q_t k_t has one sign (then A = |q·k| = √d·|s|) and no operation
// underflows, it is |s| · score_bound(1, √d, d) at η = 0: ŝ = s (1 + θ), |θ| <= that. The box
// q_t, k_t in [lo, 1] with lo = 2^⌈(e_min + 1)/2⌉ has both: every product is >= 2^(e_min + 1),
// a normal number (at lo² = 2^e_min exactly, gappa's relative rounding bound does not apply:
// measured in f16), so every partial sum, √d and the quotient are normal too. Mixed signs are
// not covered (the relative error of a sum with cancellation is unbounded; what the derivation
// bounds is the error relative to A, which gappa's interval reasoning does not track), nor are
// products below 2^(e_min + 1): GAPPA-ASCL-001's absolute form holds there.
template <class C>
double relative_score_low() {
  return std::ldexp(1.0, (format_of<C>.min_exponent + 2) / 2);  // e_min even: (e_min + 2)/2 = ⌈(e_min + 1)/2⌉
}

template <class C>
gappa_problem relative_score_problem(std::size_t d, const std::string& mutant) {
  static_assert(format_of<C>.min_exponent % 2 == 0, "relative_score_low assumes an even e_min");
  using T = gappa_scalar<C>;
  bounds::Model md = bounds::model_of<C>();
  md.eta = 0;
  md.out_eta = 0;
  real allowance = bounds::score_bound(1, std::sqrt(static_cast<real>(d)), d, md);
  if (mutant == "gappa_score_bound_quarter") allowance /= 4;
  if (!std::isfinite(allowance)) return {"", std::numeric_limits<double>::infinity(), 0, true, {}};
  gappa_recorder rec(format_of<C>);
  const double lo = relative_score_low<C>();
  std::vector<T> q, k;
  for (std::size_t t = 0; t < d; ++t) q.emplace_back(rec.input("q" + std::to_string(t), lo, 1));
  for (std::size_t t = 0; t < d; ++t) k.emplace_back(rec.input("k" + std::to_string(t), lo, 1));
  const T s = recorded_score<C>(q, k, mutant);
  const double bound = up(allowance);
  return {rec.script(s.node(), bound, score_spec(d), /*relative=*/true), bound, rec.roundings(), true, {}};
}

gappa_problem build(Dtype f, std::size_t d, const std::string& mutant) {
  return with_gappa_format(f, [&](auto t) { return score_problem<decltype(t)>(d, mutant); });
}

gappa_problem build_relative(Dtype f, std::size_t d, const std::string& mutant) {
  return with_gappa_format(f, [&](auto t) { return relative_score_problem<decltype(t)>(d, mutant); });
}

const bool registered =
    register_gappa_harness({"GAPPA-ASCL-001", "attention-scaling-v1",
                            "score q.k/sqrt(d) within the derived dot-product bound for |q_t|, |k_t| <= 1 (Gappa)",
                            "q_t, k_t in [-1, 1] (e.g. the point q = k = 0)", build}) &&
    register_gappa_harness({"GAPPA-ASCL-002", "attention-scaling-v1",
                            "score q.k/sqrt(d), relative form: fl(q.k/sqrt(d)) = (q.k/sqrt(d))(1 + theta) with "
                            "|theta| <= score_bound(1, sqrt(d), d) at eta = 0 (the derived bound with "
                            "sum|q_t k_t| = |q.k|) for q_t, k_t in [lo, 1], lo = 2^ceil((e_min + 1)/2) (positive "
                            "products, none underflows), no overflow (Gappa)",
                            "q_t, k_t in [lo, 1] (e.g. the point q = k = 1)", build_relative}) &&
    register_gappa_mutant({"gappa_scores_over_d",
                           "scores = q.k / d instead of q.k / sqrt(d) (the exact expression is not the specification)",
                           {"GAPPA-ASCL-001", "GAPPA-ASCL-002"}}) &&
    register_gappa_mutant({"gappa_accumulator_narrowed",
                           "the dot product's accumulator keeps 4 significand bits fewer (16x the rounding error)",
                           {"GAPPA-ASCL-001", "GAPPA-ASCL-002"}}) &&
    register_gappa_mutant({"gappa_score_bound_quarter",
                           "the claimed bound is a quarter of the derived score allowance (too tight)",
                           {"GAPPA-ASCL-001", "GAPPA-ASCL-002"}});

}  // namespace
}  // namespace attncheck::harnesses
