// Harnesses of attention-equivariance-v1 (AEQ-EQV-001: swapping the first two entries of a row
// swaps the softmax outputs bit for bit), on the reference softmax at the symbolic scalar, exp an
// uninterpreted function under the validated axioms (bmc/axioms.hpp).
// The whole-vector encoding asks the solver to see that two softmax computations with exchanged
// operands agree in every bit, which bit-blasting handles badly (two adders, two dividers and the
// exp stubs per output); the claim for every d comes from the step lemmas below and the
// composition argument registered with KANI-AEQ-001 (written out in proofs/attention_equivariance.tex).
#include <utility>

#include "harnesses/support.hpp"

namespace attncheck::harnesses {
namespace {

/// KANI-AEQ-001: for a finite row x of length d >= 2 and x' = x with x_0, x_1 exchanged,
/// softmax(x') is softmax(x) with y_0, y_1 exchanged, bit for bit.
struct bmc_aeq_001 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    std::vector<T> x = h.any_vector("x", d), y(d), ys(d);
    for (const T& xi : x) h.assume(is_finite(xi));
    h.k().softmax(x.data(), y.data(), d);
    std::swap(x[0], x[1]);
    h.k().softmax(x.data(), ys.data(), d);
    h.check(same_bits(ys[0], y[1]) && same_bits(ys[1], y[0]), "softmax(swap x)_0,1 = softmax(x)_1,0 bit for bit");
    for (std::size_t i = 2; i < d; ++i) h.check(same_bits(ys[i], y[i]), "softmax(swap x)_i = softmax(x)_i (i >= 2) bit for bit");
  }
};

/// KANI-AEQ-002: for finite Q (2 x d), K (m x d), V (m x dv), not causal, and Q' = Q with its
/// two rows exchanged, attention(Q', K, V) is attention(Q, K, V) with its two rows exchanged,
/// bit for bit. The bound is m, the number of keys; d = dv = 1 (each output row is one softmax of
/// m scores and one value sum: the row-independence the claim is about, at the smallest width).
struct bmc_aeq_002 {
  static constexpr std::size_t n = 2, d = 1, dv = 1;
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t m = h.bound();
    std::vector<T> q = h.any_vector("q", n * d), k = h.any_vector("k", m * d), v = h.any_vector("v", m * dv);
    for (const auto* xs : {&q, &k, &v})
      for (const T& x : *xs) h.assume(is_finite(x));
    std::vector<T> z(n * dv), zs(n * dv);
    h.k().attention(q.data(), k.data(), v.data(), n, m, d, dv, false, z.data());
    for (std::size_t c = 0; c < d; ++c) std::swap(q[c], q[d + c]);
    h.k().attention(q.data(), k.data(), v.data(), n, m, d, dv, false, zs.data());
    for (std::size_t c = 0; c < dv; ++c)
      h.check(same_bits(zs[c], z[dv + c]) && same_bits(zs[dv + c], z[c]),
              "attention(swap Q)_0,1 = attention(Q)_1,0 bit for bit");
  }
};

/// LEM-AEQ-001: the first max step commutes: for finite a, b, max_step(a, b) and max_step(b, a)
/// are equal as numbers (they may differ in the sign of zero: max(+0, -0) keeps the first).
struct lem_aeq_001 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T a = h.any("a"), b = h.any("b");
    h.assume(is_finite(a) && is_finite(b));
    h.check(h.k().max_step(a, b) == h.k().max_step(b, a), "max_step(a, b) == max_step(b, a)");
  }
};

/// LEM-AEQ-002: later max steps keep equal running maxima equal: for finite m == m' and x,
/// max_step(m, x) == max_step(m', x).
struct lem_aeq_002 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T m = h.any("m"), m2 = h.any("m2"), x = h.any("x");
    h.assume(is_finite(m) && is_finite(m2) && is_finite(x) && m == m2);
    h.check(h.k().max_step(m, x) == h.k().max_step(m2, x), "max_step(m, x) == max_step(m', x)");
  }
};

/// LEM-AEQ-003: the shift inside the exp step does not see the sign of a zero maximum: for finite
/// x and m == m', fl(x - m) == fl(x - m') (they may differ only in the sign of a zero).
struct lem_aeq_003 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T x = h.any("x"), m = h.any("m"), m2 = h.any("m2");
    h.assume(is_finite(x) && is_finite(m) && is_finite(m2) && m == m2);
    h.check(T(x - m) == T(x - m2), "fl(x - m) == fl(x - m')");
  }
};

/// LEM-AEQ-005: exp maps equal numbers to the same bits: for a == b (IEEE; +0 and -0 included),
/// exp(a) and exp(b) have the same bits (under the validated axioms: exp(+-0) = 1, never -0).
struct lem_aeq_005 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T a = h.any("a"), b = h.any("b");
    h.assume(a == b);
    h.check(same_bits(exp(a), exp(b)), "exp(a) = exp(b) bit for bit");
  }
};

/// LEM-AEQ-004: the first two steps of the kernel's sum (s = +0, s = fl(s + e_i)) commute bit for
/// bit: fl(fl(0 + a) + b) = fl(fl(0 + b) + a) for all a, b.
struct lem_aeq_004 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T a = h.any("a"), b = h.any("b");
    const T zero = lit<T>(0);
    h.check(same_bits(T(T(zero + a) + b), T(T(zero + b) + a)), "fl(fl(0 + a) + b) = fl(fl(0 + b) + a) bit for bit");
  }
};

const bool registered =
    register_harness({"KANI-AEQ-001", "attention-equivariance-v1",
                      "swapping x_0 and x_1 swaps softmax outputs 0 and 1 bit for bit (every permutation at d = 2)",
                      false, true, 2, {"LEM-ASCL-001", "LEM-AEQ-001", "LEM-AEQ-002", "LEM-AEQ-003", "LEM-AEQ-005", "LEM-AEQ-004"},
                      "let x' be x with x_0, x_1 exchanged. row_max(x') starts with max_step(x_1, x_0), equal as a "
                      "number to row_max(x)'s max_step(x_0, x_1) (LEM-AEQ-001; finite by LEM-ASCL-001); every later "
                      "max_step(., x_j) keeps the two running maxima equal (LEM-AEQ-002, induction), so m' == m, "
                      "possibly with the other sign of zero. shifted_exp_step(x'_j, m') = exp(fl(x'_j - m')), "
                      "fl(x'_j - m') == fl(x'_j - m) (LEM-AEQ-003), and exp of equal numbers has the same bits "
                      "(LEM-AEQ-005), so e'_j has the bits of shifted_exp_step(x'_j, m): e'_0 = e_1, e'_1 = e_0, e'_j = e_j for j >= 2. The first "
                      "two sum steps from +0 give the same bits (LEM-AEQ-004); each later step adds the same e_j to "
                      "the same bits and each output divides the same bits by the same bits (an IEEE operation is a "
                      "function of its operands' bits), so y'_0 = y_1, y'_1 = y_0, y'_j = y_j bit for bit. Holds for "
                      "every d >= 2; at d = 2 the swap is every permutation.",
                      make_body<bmc_aeq_001>()}) &&
    register_harness({"KANI-AEQ-002", "attention-equivariance-v1",
                      "swapping the two query rows swaps the attention output rows bit for bit (2 queries, bound = m "
                      "keys, d = dv = 1, not causal)",
                      false, true, 1, {}, "", make_body<bmc_aeq_002>(), "m"}) &&
    register_harness({"LEM-AEQ-001", "", "first max step commutes: max_step(a, b) == max_step(b, a) for finite a, b",
                      true, false, 1, {}, "", make_body<lem_aeq_001>()}) &&
    register_harness({"LEM-AEQ-002", "", "max step keeps equal maxima equal: m == m' gives max_step(m, x) == max_step(m', x)",
                      true, false, 1, {}, "", make_body<lem_aeq_002>()}) &&
    register_harness({"LEM-AEQ-003", "", "shift blind to the sign of a zero max: m == m' gives fl(x - m) == fl(x - m')",
                      true, false, 1, {}, "", make_body<lem_aeq_003>()}) &&
    register_harness({"LEM-AEQ-005", "", "exp of equal numbers (+0, -0 included) has the same bits", true, true, 1,
                      {}, "", make_body<lem_aeq_005>()}) &&
    register_harness({"LEM-AEQ-004", "", "first two sum steps commute: fl(fl(0 + a) + b) = fl(fl(0 + b) + a) bit for bit",
                      true, false, 1, {}, "", make_body<lem_aeq_004>()});

}  // namespace
}  // namespace attncheck::harnesses
