// Harnesses of attention-scaling-v1 (ASCL-INV-001 max subtraction, ASCL-BND-001 score bound
// after QK-norm, ASCL-BND-002 entropy >= 0, ASCL-BND-003 entropy <= ln d), on the reference
// kernels at the symbolic scalar.
// Formats f16, bf16, f32 (f64 for the harnesses without exp/log). Bound: the row/head length d;
// every loop's trip count is d, a constant while the formula is built.
#include "attncheck/bounds/entropy.hpp"
#include "harnesses/support.hpp"

namespace attncheck::harnesses {
namespace {

/// KANI-ASCL-002: with m = row_max(x) of a finite row, every x_i - m <= 0 and is not NaN, and
/// the maximum maps to exactly 0.
struct bmc_ascl_002 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    const std::vector<T> x = h.any_vector("x", d);
    for (const T& xi : x) h.assume(is_finite(xi));
    const T m = h.k().row_max(x.data(), d);
    typename H::cond some_zero(false);
    for (const T& xi : x) {
      const T t = xi - m;
      h.check(t <= lit<T>(0), "x_i - max <= 0 (not NaN)");
      h.check(!(xi == m) || t == lit<T>(0), "x_i = max maps to exactly 0");
      some_zero = some_zero || t == lit<T>(0);
    }
    h.check(some_zero, "some x_i - max is exactly 0");
  }
};

/// LEM-ASCL-001: the max step: for finite m and x, r = max_step(m, x) is finite, >= m, >= x and
/// equal to one of them.
struct lem_ascl_001 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T m = h.any("m"), x = h.any("x");
    h.assume(is_finite(m) && is_finite(x));
    const T r = h.k().max_step(m, x);
    h.check(is_finite(r) && r >= m && r >= x && (r == m || r == x), "max_step(m, x) = max(m, x)");
  }
};

/// LEM-ASCL-002: the shift: for finite a <= m, fl(a - m) <= 0 (so not NaN), and fl(m - m) = 0.
struct lem_ascl_002 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T a = h.any("a"), m = h.any("m");
    h.assume(is_finite(a) && is_finite(m) && a <= m);
    const T t = a - m;
    h.check(t <= lit<T>(0), "fl(a - m) <= 0");
    h.check(!(a == m) || t == lit<T>(0), "fl(m - m) = 0");
  }
};

// The derived bound of |q̂·k̂/√d| for q̂ = RMSNorm(x_q), k̂ = RMSNorm(x_k), unit gains, eps > 0
// (proofs/bounds: RMSNorm and score derivations, composed). Each computed entry obeys
// |ŷ_i - y_i| <= |y_i|φ + a, a = (2+u)η/2 at unit gain, with ‖y‖ <= √d, so ‖ŷ‖ <= A = √d(1 + φ) + a√d; the recursive dot
// product adds γ_d Σ|q̂_t k̂_t| + dη <= γ_d A² + dη; the divisor fl(sqrt(fl(d))) is at least
// √d(1 - ε_c), ε_c = (1+u)^{3/2} - 1; the quotient rounds once more (1+u) ± η.
inline real score_after_qknorm_bound(std::size_t d, real eps, const bounds::Model& md) {
  const bounds::RmsnormBound rb = bounds::rmsnorm_bound(d, eps, md);
  const real sd = std::sqrt(static_cast<real>(d));
  const real a = sd * (1 + rb.phi) + rb.absolute(1) * sd;
  const real dot = (1 + bounds::gamma(d, md.u)) * a * a + static_cast<real>(d) * md.eta;
  const real eps_c = std::pow(1 + md.u, 1.5L) - 1;
  return (dot / (sd * (1 - eps_c)) * (1 + md.u) + md.eta) * bounds::evaluation_slack;
}

// The epsilon of the QK-norm in these harnesses: the smallest normal number of the format,
// the hardest case for the η/ε term (any larger ε only tightens the bound).
template <class C> double qknorm_eps() { return std::ldexp(1.0, format_of<C>.min_exponent); }

/// KANI-ASCL-001: after QK-norm (RMSNorm, unit gains, ε > 0) of finite q and k, the score
/// q̂·k̂/√d is bounded by √d plus the derived rounding allowance.
struct bmc_ascl_001 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    using C = format_t<H>;
    const std::size_t d = h.bound();
    const std::vector<T> xq = h.any_vector("xq", d), xk = h.any_vector("xk", d);
    for (std::size_t i = 0; i < d; ++i) h.assume(is_finite(xq[i]) && is_finite(xk[i]));
    const std::vector<T> ones(d, lit<T>(1));
    std::vector<T> q(d), k(d), s(1);
    const T eps = lit<T>(qknorm_eps<C>());
    h.k().rmsnorm(xq.data(), ones.data(), d, eps, q.data());
    h.k().rmsnorm(xk.data(), ones.data(), d, eps, k.data());
    h.k().scores(q.data(), k.data(), 1, 1, d, s.data());
    const real b = score_after_qknorm_bound(d, qknorm_eps<C>(), model<H>());
    h.check(is_finite(s[0]), "score finite");
    h.check(h.widen(abs_of(s[0])) <= h.wide_const(up(b)), "|score| <= sqrt(d) + derived allowance");
  }
};

/// BMC-ASCL-003: the entropy of the softmax of a finite row is >= 0 (so not NaN) and finite.
struct bmc_ascl_003 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    std::vector<T> x = h.any_vector("x", d), p(d);
    for (const T& xi : x) h.assume(is_finite(xi));
    h.k().softmax(x.data(), p.data(), d);
    const T e = h.k().entropy(p.data(), d);
    h.check(e >= lit<T>(0), "H(softmax(x)) >= 0");
    h.check(is_finite(e), "H(softmax(x)) finite");
  }
};

// The derived upper bound of the computed entropy of a computed softmax row of length d
// (ASCL-BND-003), in the tangent form the solver can use. The validated tangent axiom of log at
// 1/d (bmc/axioms.hpp) gives -p·log(p) <= (1/d + p(ln d - 1))(1 + log_rel); the kernel's product
// rounds once, |fl(p·l)| <= |p·l|(1 + u) + η, and the d non-negative terms are summed with
// relative error γ_{d-1}. With |Σp̂ - 1| <= δ (normalisation_bound, SM-INV-001):
//   Ĥ <= [(1 + log_rel)(1 + u)(1 + (ln d - 1)Σp̂) + dη](1 + γ_{d-1})
//      <= (ln d + |ln d - 1|·δ)(1 + ρ_H) + a_H            (ρ_H, a_H: bounds/entropy.hpp).
// The contract's form max_{c∈[1-δ,1+δ]} c(ln d - ln c)(1 + ρ_H) + a_H is smaller by at most
// δ²/(2(1 - δ))(1 + ρ_H): c(ln d - ln c) is concave in c and lies below its tangent at c = 1.
inline real entropy_upper_bound(std::size_t d, const bounds::Model& md) {
  const real ln_d = std::log(static_cast<real>(d));
  const real delta = bounds::normalisation_bound(d, md);
  const bounds::EntropyBound eb = bounds::entropy_bound(d, md);
  const real top = (ln_d + std::abs(ln_d - 1) * delta) * (1 + eb.rel) + eb.abs;
  return ln_d + (top - ln_d) * bounds::evaluation_slack;
}

/// BMC-ASCL-004: the entropy of the softmax of a finite row lies in [0, ln d] up to the derived
/// rounding allowance (ASCL-BND-002 and ASCL-BND-003 together). Uses the tangent axiom of log at
/// 1/d, validated on every input (so d <= log_tangent_max).
struct bmc_ascl_004 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    h.use_log_tangent(d);
    std::vector<T> x = h.any_vector("x", d), p(d);
    for (const T& xi : x) h.assume(is_finite(xi));
    h.k().softmax(x.data(), p.data(), d);
    const T e = h.k().entropy(p.data(), d);
    h.check(e >= lit<T>(0), "H(softmax(x)) >= 0");
    h.check(h.widen(e) <= h.wide_const(up(entropy_upper_bound(d, model<H>()))), "H(softmax(x)) <= ln d + derived allowance");
  }
};

/// LEM-ASCL-003: the entropy term: for p in [0, 1], -p log p (the kernel's entropy_term) is >= 0
/// and finite.
struct lem_ascl_003 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T p = h.any("p");
    h.assume(p >= lit<T>(0) && p <= lit<T>(1));
    const T t = h.k().entropy_term(p);
    h.check(t >= lit<T>(0) && is_finite(t), "entropy_term(p) >= 0, finite");
  }
};

/// LEM-ASCL-004: the entropy sum step: for h >= 0 and a finite t >= 0, fl(h + t) >= h (not NaN).
struct lem_ascl_004 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T acc = h.any("h"), t = h.any("t");
    h.assume(acc >= lit<T>(0) && t >= lit<T>(0) && is_finite(t));
    h.check(T(acc + t) >= acc, "fl(h + t) >= h");
  }
};

const bool registered =
    register_harness({"KANI-ASCL-002", "attention-scaling-v1", "max subtraction: x_i - max <= 0, max -> 0, no NaN",
                      false, false, 1, {"LEM-ASCL-001", "LEM-ASCL-002"},
                      "row_max folds max_step over the row; by induction with LEM-ASCL-001 the running max is "
                      "finite, >= every x_j seen and equal to one of them, so m >= x_i for all i and m = x_k for "
                      "some k. LEM-ASCL-002 with a = x_i gives x_i - m <= 0 (not NaN), and x_k - m = 0. Holds "
                      "for every d >= 1.",
                      make_body<bmc_ascl_002>()}) &&
    register_harness({"KANI-ASCL-001", "attention-scaling-v1",
                      "score after QK-norm bounded by sqrt(d) plus the derived rounding allowance", false, false, 1,
                      {}, "", make_body<bmc_ascl_001>()}) &&
    register_harness({"BMC-ASCL-003", "attention-scaling-v1", "entropy of a softmax row is >= 0 and finite", false,
                      true, 1, {"LEM-ASCL-001", "LEM-SM-001", "LEM-SM-002", "LEM-SM-003", "LEM-SM-005", "LEM-SM-004",
                       "LEM-ASCL-003", "LEM-ASCL-004"},
                      "the composition of KANI-SM-002 (its lemmas, all d) gives p_i in [0, 1]; LEM-ASCL-003 gives each term t_i >= 0 finite; "
                      "LEM-ASCL-004 by induction keeps the running sum >= 0 and not NaN, so H >= 0 for every d. "
                      "(Finiteness and the ln d upper bound are not part of the all-d claim.)",
                      make_body<bmc_ascl_003>(), "d", {},
                      "H >= 0 (not NaN) only; not 'H finite', which the bounded rows also check"}) &&
    register_harness({"BMC-ASCL-004", "attention-scaling-v1",
                      "entropy of a softmax row in [0, ln d] up to the derived rounding allowance", false, true, 1,
                      {}, "", make_body<bmc_ascl_004>()}) &&
    register_harness({"LEM-ASCL-001", "", "max step: max_step(m, x) = max(m, x) for finite m, x", true, false, 1,
                      {}, "", make_body<lem_ascl_001>()}) &&
    register_harness({"LEM-ASCL-002", "", "shift: fl(a - m) <= 0 for finite a <= m, and fl(m - m) = 0", true, false,
                      1, {}, "", make_body<lem_ascl_002>()}) &&
    register_harness({"LEM-ASCL-003", "", "entropy term: -p log p >= 0 and finite on [0, 1]", true, true, 1, {},
                      "", make_body<lem_ascl_003>()}) &&
    register_harness({"LEM-ASCL-004", "", "entropy sum step: fl(h + t) >= h for h >= 0, finite t >= 0", true,
                      false, 1, {}, "", make_body<lem_ascl_004>()});

}  // namespace
}  // namespace attncheck::harnesses
