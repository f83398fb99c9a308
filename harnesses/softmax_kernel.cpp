// Harnesses of softmax-kernel-v1 (SM-INV-001, SM-BND-002): the reference softmax at the
// symbolic scalar, exp an uninterpreted function under the validated axioms (bmc/axioms.hpp).
// Formats f16, bf16, f32. Bound: the row length d; every loop runs exactly d times (no unwinding
// question: the loops' trip counts are d, a C++ constant while the formula is built).
#include "harnesses/support.hpp"

namespace attncheck::harnesses {
namespace {

// The check KANI-SM-001 and KANI-SM-004 share: the outputs y_0..y_{d-1} are finite and their
// binary64 sum is within the derived normalisation bound of 1 (plus the binary64 summation error).
template <class H>
void check_sums_to_one(H& h, const std::vector<typename H::scalar>& y) {
  const std::size_t d = y.size();
  typename H::wide s = h.wide_const(0);
  for (const auto& yi : y) {
    h.check(is_finite(yi), "y_i finite");
    s = s + h.widen(yi);
  }
  const real n = bounds::normalisation_bound(d, model<H>());
  const real b = n + wide_sum_slack(d, 1 + n);  // Σ|y_i| <= 1 + n
  h.check(s <= h.wide_const(up(1 + b)) && s >= h.wide_const(-up(-(1 - b))), "|sum y - 1| <= derived bound");
}

/// KANI-SM-001: the outputs of a finite row sum to 1 within the derived normalisation bound.
struct bmc_sm_001 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    std::vector<T> x = h.any_vector("x", d), y(d);
    for (const T& xi : x) h.assume(is_finite(xi));
    h.k().softmax(x.data(), y.data(), d);
    check_sums_to_one(h, y);
  }
};

/// KANI-SM-004: the kernel's normalisation step (normalise_row: s = row_sum(e), then e_i / s) on
/// every row of exps the exp step can produce gives outputs that sum to 1 within the derived
/// bound. The inputs are the exps themselves: any e in [0, 1]^d with some e_k = 1 — what the
/// softmax kernel hands to normalise_row for every finite row (row_max is some x_k >= every x_i by
/// LEM-ASCL-001, and LEM-SM-001 gives exp(x_i - m) in [0, 1] and exp(m - m) = 1). This leaves
/// row_max, the subtractions and exp's axioms out of the query, which is what stops KANI-SM-001 at
/// d = 1 (bench/bmc_scaling.md); the set of rows is a superset of the reachable ones, so a proof
/// here holds for the kernel's rows.
struct bmc_sm_004 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    std::vector<T> e = h.any_vector("e", d);
    typename H::cond some_one(false);
    for (const T& ei : e) {
      h.assume(ei >= lit<T>(0) && ei <= lit<T>(1));
      some_one = some_one || ei == lit<T>(1);
    }
    h.assume(some_one);
    h.k().normalise_row(e.data(), d);
    check_sums_to_one(h, e);
  }
};

/// KANI-SM-002: every output of a finite row is in [0, 1] (hence not NaN).
struct bmc_sm_002 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const std::size_t d = h.bound();
    std::vector<T> x = h.any_vector("x", d), y(d);
    for (const T& xi : x) h.assume(is_finite(xi));
    h.k().softmax(x.data(), y.data(), d);
    for (const T& yi : y) h.check(yi >= lit<T>(0) && yi <= lit<T>(1), "y_i in [0, 1]");
  }
};

/// LEM-SM-001: for finite x <= m, e = exp(x - m) (the kernel's step) is in [0, 1], and x = m gives 1.
struct lem_sm_001 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T x = h.any("x"), m = h.any("m");
    h.assume(is_finite(x) && is_finite(m) && x <= m);
    const T e = h.k().shifted_exp_step(x, m);
    h.check(e >= lit<T>(0) && e <= lit<T>(1), "exp(x - m) in [0, 1]");
    h.check(!(x == m) || e == lit<T>(1), "exp(m - m) = 1");
  }
};

/// LEM-SM-002: the sum step: for s >= 0 not NaN and e in [0, 1], s' = fl(s + e) has s <= s',
/// e <= s', s' <= fl(s + 1), and s' is not NaN.
struct lem_sm_002 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T s = h.any("s"), e = h.any("e");
    h.assume(s >= lit<T>(0) && e >= lit<T>(0) && e <= lit<T>(1));
    const T s1 = s + e;
    h.check(s1 >= s && s1 >= e && s1 <= T(s + lit<T>(1)), "s <= fl(s + e) <= fl(s + 1), e <= fl(s + e)");
  }
};

/// LEM-SM-003: counting in the format never overflows: for c in [0, 2^p], fl(c + 1) in [0, 2^p].
struct lem_sm_003 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T top = lit<T>(std::ldexp(1.0, format_of<format_t<H>>.precision));
    const T c = h.any("c");
    h.assume(c >= lit<T>(0) && c <= top);
    const T c1 = c + lit<T>(1);
    h.check(c1 >= lit<T>(0) && c1 <= top, "fl(c + 1) in [0, 2^p]");
  }
};

/// LEM-SM-005: rounding is monotone where the composition needs it: for 0 <= s <= c <= 2^p,
/// fl(s + 1) <= fl(c + 1) (so a running sum stays below the floating-point count).
struct lem_sm_005 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T top = lit<T>(std::ldexp(1.0, format_of<format_t<H>>.precision));
    const T s = h.any("s"), c = h.any("c");
    h.assume(s >= lit<T>(0) && s <= c && c <= top);
    h.check(T(s + lit<T>(1)) <= T(c + lit<T>(1)), "fl(s + 1) <= fl(c + 1)");
  }
};

/// LEM-SM-004: the division step: for 0 <= e <= s with s >= 1 finite, fl(e / s) is in [0, 1].
struct lem_sm_004 {
  template <class H> void operator()(H& h) const {
    using T = typename H::scalar;
    const T e = h.any("e"), s = h.any("s");
    h.assume(e >= lit<T>(0) && e <= s && s >= lit<T>(1) && is_finite(s));
    const T y = e / s;
    h.check(y >= lit<T>(0) && y <= lit<T>(1), "fl(e / s) in [0, 1]");
  }
};

const bool registered =
    register_harness({"KANI-SM-001", "softmax-kernel-v1", "softmax outputs sum to 1 within the derived bound",
                      false, true, 1, {}, "", make_body<bmc_sm_001>()}) &&
    register_harness({"KANI-SM-004", "softmax-kernel-v1",
                      "normalisation step: e in [0, 1]^d with some e_k = 1, divided by its sum, sums to 1 within "
                      "the derived bound",
                      false, false, 1, {}, "", make_body<bmc_sm_004>()}) &&
    register_harness({"KANI-SM-002", "softmax-kernel-v1", "softmax outputs in [0, 1] for every finite row", false,
                      true, 1, {"LEM-ASCL-001", "LEM-SM-001", "LEM-SM-002", "LEM-SM-003", "LEM-SM-005", "LEM-SM-004"},
                      "row_max by induction with LEM-ASCL-001 is >= every x_i and equal to some x_k, finite; "
                      "LEM-SM-001 gives e_i in [0, 1] and e_k = 1; LEM-SM-002 by induction makes the running sum "
                      "non-decreasing and >= each e_i, so s >= e_k = 1 and s >= e_i. With the floating-point count "
                      "c_0 = 0, c_i = fl(c_{i-1} + 1), kept in [0, 2^p] by LEM-SM-003, induction gives s_i <= c_i: "
                      "s_i = fl(s_{i-1} + e_i) <= fl(s_{i-1} + 1) (LEM-SM-002) <= fl(c_{i-1} + 1) = c_i "
                      "(LEM-SM-005); so s is finite. LEM-SM-004 then gives y_i = fl(e_i / s) in [0, 1]. Holds for "
                      "every d >= 1.",
                      make_body<bmc_sm_002>()}) &&
    register_harness({"LEM-SM-001", "", "exp step: finite x <= m gives exp(x - m) in [0, 1], and 1 at x = m",
                      true, true, 1, {}, "", make_body<lem_sm_001>()}) &&
    register_harness({"LEM-SM-002", "", "sum step: s <= fl(s + e) <= fl(s + 1) for e in [0, 1]", true, false, 1,
                      {}, "", make_body<lem_sm_002>()}) &&
    register_harness({"LEM-SM-003", "", "count step: fl(c + 1) stays in [0, 2^p]", true, false, 1, {}, "",
                      make_body<lem_sm_003>()}) &&
    register_harness({"LEM-SM-005", "", "monotone rounding: fl(s + 1) <= fl(c + 1) for 0 <= s <= c <= 2^p", true,
                      false, 1, {}, "", make_body<lem_sm_005>()}) &&
    register_harness({"LEM-SM-004", "", "division step: 0 <= e <= s, s >= 1 gives fl(e / s) in [0, 1]", true,
                      false, 1, {}, "", make_body<lem_sm_004>()});

}  // namespace
}  // namespace attncheck::harnesses
