// attncheck: falsification tests of softmax-jvp-v1's attention Hessian-vector products
// (contracts/softmax-jvp-v1.yaml), judged against the mixed second partial of kernels::attention
// from two-variable autodiff jets at MPFR (oracle/autodiff_hvp.hpp). For L = ⟨W, attention(Q, K, V)⟩ and directions a, b in (Q, K, V):
// SJVP-EQV-006 aᵀ∇²L b = the autodiff value, SJVP-INV-002 symmetry aᵀ∇²L b = bᵀ∇²L a,
// SJVP-INV-003 ∇²_VV L = 0 (L is linear in V), SJVP-INV-004 shifting every key, or every value,
// by one common vector is a null direction of ∇²L.
//
// Allowance: the running error bound of the reference kernel (scalar/running_error.hpp: the same
// kernels::attention_hvp template run on running<T>, whose value part is bit for bit the kernel's
// result in T and whose bound part is derived operation by operation from the standard model),
// widened by bounds::evaluation_slack. No tolerance is typed in.
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "attncheck/bounds/error_model.hpp"
#include "attncheck/kernels/attention_hvp.hpp"
#include "attncheck/oracle/autodiff_hvp.hpp"
#include "attncheck/scalar/running_error.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using real = bounds::real;
constexpr const char* hvp_oracle = "two-variable autodiff jets of attention over MPFR";

// What a direction moves: everything, or Q, K or V alone.
enum class Along { all = 0, q = 1, k = 2, v = 3 };

template <class T>
struct Dir {
  std::vector<T> q, k, v;
  kernels::HeadDirection<T> view() const { return {q.data(), k.data(), v.data()}; }
};

// n queries, m keys, head dim d, value dim dv; W the loss weights (n x dv).
template <class T>
struct HvpCase {
  std::size_t n = 0, m = 0, d = 0, dv = 0;
  bool causal = false;
  std::vector<T> q, k, v, w;
  Dir<T> a, b;
};

template <class T>
Dir<T> draw_direction(const HvpCase<T>& c, Along along) {
  const auto part = [along](Along mine, std::size_t size, double sigma) {
    return along == Along::all || along == mine ? draw_vector<T>(size, sigma) : std::vector<T>(size, lit<T>(0));
  };
  return {part(Along::q, c.n * c.d, 2), part(Along::k, c.m * c.d, 2), part(Along::v, c.m * c.dv, 4)};
}

// Shapes as the JVP tests (FALSIFY-SJVP-006); each direction along everything or one input.
template <class T>
HvpCase<T> draw_shape() {
  HvpCase<T> c;
  c.n = static_cast<std::size_t>(*rc::gen::inRange(1, 6));
  c.m = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  c.d = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  c.dv = static_cast<std::size_t>(*rc::gen::inRange(1, 4));
  c.causal = *rc::gen::arbitrary<bool>();
  c.q = draw_vector<T>(c.n * c.d, 2);
  c.k = draw_vector<T>(c.m * c.d, 2);
  c.v = draw_vector<T>(c.m * c.dv, 4);
  c.w = draw_vector<T>(c.n * c.dv, 2);
  return c;
}

template <class T>
Along draw_along() { return static_cast<Along>(*rc::gen::inRange(0, 4)); }

template <class T>
void add_inputs(Report<T>& r, const HvpCase<T>& c) {
  r.line("n = " + std::to_string(c.n) + ", m = " + std::to_string(c.m) + ", d = " + std::to_string(c.d) +
         ", dv = " + std::to_string(c.dv) + (c.causal ? ", causal" : ""));
  r.input("Q", c.q).input("K", c.k).input("V", c.v).input("W", c.w);
  r.input("a.Q", c.a.q).input("a.K", c.a.k).input("a.V", c.a.v).input("b.Q", c.b.q).input("b.K", c.b.k).input("b.V", c.b.v);
}

template <class T>
T hvp(const KernelSet<T>& k, const HvpCase<T>& c, const Dir<T>& a, const Dir<T>& b) {
  return k.attention_hvp(c.q.data(), c.k.data(), c.v.data(), c.w.data(), a.view(), b.view(), c.n, c.m, c.d, c.dv, c.causal);
}

// The derived allowance: the reference kernel on running<T> (same operations, same branches).
template <class T>
real reference_bound(const HvpCase<T>& c, const Dir<T>& a, const Dir<T>& b) {
  using R = running<T>;
  const auto up = [](const std::vector<T>& x) { return std::vector<R>(x.begin(), x.end()); };
  const auto Q = up(c.q), K = up(c.k), V = up(c.v), W = up(c.w);
  const auto AQ = up(a.q), AK = up(a.k), AV = up(a.v), BQ = up(b.q), BK = up(b.k), BV = up(b.v);
  const R r = kernels::attention_hvp<R>(Q.data(), K.data(), V.data(), W.data(), {AQ.data(), AK.data(), AV.data()},
                                        {BQ.data(), BK.data(), BV.data()}, c.n, c.m, c.d, c.dv, c.causal);
  return r.e * bounds::evaluation_slack;
}

template <class T>
mpfr200 hvp_exact(const HvpCase<T>& c) {
  using oracle::lift;
  return oracle::attention_hvp_ad(lift(c.q), lift(c.k), lift(c.v), lift(c.w), lift(c.a.q), lift(c.a.k), lift(c.a.v),
                                  lift(c.b.q), lift(c.b.k), lift(c.b.v), c.n, c.m, c.d, c.dv, c.causal);
}

template <class T>
std::string call(const char* what) {
  return "attention_hvp<" + scalar_name<T>() + ">, " + what;
}

// excess <= allowed, else the standard report (bits first, then values).
template <class T>
void expect_within(const char* id, const std::string& what, const HvpCase<T>& c, T got, real exact, real allowed,
                   const std::string& how) {
  const real err = format_error(got, exact);
  observe(ratio(err, allowed), what);
  if (err <= allowed || is_correctly_rounded(got, exact)) return;
  Report<T> r(id, what);
  add_inputs(r, c);
  r.kernel(got).exact(exact, how).error(err, allowed, "running error bound of the reference").raise();
}

// The HVP's running error bounds count roundings in T (kernels/attention_hvp.hpp computes in T):
// storage-arithmetic formats only.
const std::vector<Dtype> in_storage(storage_dtypes.begin(), storage_dtypes.end());

// (g) aᵀ∇²L b from the kernel set vs the two-variable jets of the reference attention.
struct Sjvp008 {
  static constexpr const char* id = "FALSIFY-SJVP-008";
  static constexpr const char* title = "the attention HVP aᵀ∇²⟨W, O⟩b is within its running error bound of order-2 autodiff of attention";
  template <class T>
  static void check(const KernelSet<T>& k) {
    auto c = draw_shape<T>();
    c.a = draw_direction(c, draw_along<T>());
    c.b = draw_direction(c, draw_along<T>());
    const T got = hvp(k, c, c.a, c.b);
    const real exact = oracle::dbl(hvp_exact(c));
    expect_within<T>(id, call<T>("aᵀ∇²L b"), c, got, exact, reference_bound(c, c.a, c.b), hvp_oracle);
  }
  static inline const bool registered = property::register_property<Sjvp008>(in_storage);
};

// (h) ∇²L is symmetric: |ĥ(a, b) − ĥ(b, a)| <= bound(a, b) + bound(b, a) (both are within their
// bound of the same exact value).
struct Sjvp009 {
  static constexpr const char* id = "FALSIFY-SJVP-009";
  static constexpr const char* title = "the attention HVP is symmetric: aᵀ∇²L b = bᵀ∇²L a within the two running error bounds";
  template <class T>
  static void check(const KernelSet<T>& k) {
    auto c = draw_shape<T>();
    c.a = draw_direction(c, draw_along<T>());
    c.b = draw_direction(c, draw_along<T>());
    const T ab = hvp(k, c, c.a, c.b), ba = hvp(k, c, c.b, c.a);
    const real allowed = reference_bound(c, c.a, c.b) + reference_bound(c, c.b, c.a);
    expect_within<T>(id, call<T>("aᵀ∇²L b against bᵀ∇²L a"), c, ab, static_cast<real>(to_double(ba)), allowed,
                     "the kernel's own bᵀ∇²L a");
  }
  static inline const bool registered = property::register_property<Sjvp009>(in_storage);
};

// (i) O is linear in V, so ∇²_VV L = 0: along two V-only directions the exact value is 0, the
// jets of attention give exactly 0, and the reference's bound is 0 too (every score derivative
// is an exact 0, so every term it multiplies is an exact 0): the kernel must return 0.
struct Sjvp010 {
  static constexpr const char* id = "FALSIFY-SJVP-010";
  static constexpr const char* title = "∇²_VV⟨W, O⟩ = 0: the attention HVP along two value directions is 0 (attention is linear in V)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    auto c = draw_shape<T>();
    c.a = draw_direction(c, Along::v);
    c.b = draw_direction(c, Along::v);
    const mpfr200 ex = hvp_exact(c);
    if (ex != 0) fail(std::string(id) + " failed: the autodiff jets of attention give a non-zero V–V curvature " + decimal(static_cast<double>(oracle::dbl(ex))));
    expect_within<T>(id, call<T>("aᵀ∇²_VV L b"), c, hvp(k, c, c.a, c.b), 0, reference_bound(c, c.a, c.b),
                     "0: attention is linear in V");
  }
  static inline const bool registered = property::register_property<Sjvp010>(in_storage);
};

// (j) Null directions. Adding one vector c to every key adds q_i·c/√d to every visible score of
// row i — a row constant, which softmax ignores — and adding c to every value adds c to every
// output row (Σ_j p_j = 1): L(x + t·a₀) − L(x) does not depend on x, so ∇L·a₀ is constant and
// a₀ᵀ∇²L b = 0 for every b. a₀ = (0, 1cᵀ, 1c'ᵀ) with c or c' possibly 0; b drawn as in (g).
struct Sjvp011 {
  static constexpr const char* id = "FALSIFY-SJVP-011";
  static constexpr const char* title = "shifting every key, or every value, by one common vector is a null direction of the attention Hessian";
  template <class T>
  static void check(const KernelSet<T>& k) {
    auto c = draw_shape<T>();
    const int kind = *rc::gen::inRange(0, 3);  // 0: keys, 1: values, 2: both
    const auto ck = draw_vector<T>(c.d, 2), cv = draw_vector<T>(c.dv, 4);
    c.a.q.assign(c.n * c.d, lit<T>(0));
    c.a.k.assign(c.m * c.d, lit<T>(0));
    c.a.v.assign(c.m * c.dv, lit<T>(0));
    for (std::size_t j = 0; j < c.m; ++j) {
      if (kind != 1) std::copy(ck.begin(), ck.end(), c.a.k.begin() + j * c.d);
      if (kind != 0) std::copy(cv.begin(), cv.end(), c.a.v.begin() + j * c.dv);
    }
    c.b = draw_direction(c, draw_along<T>());
    RC_CLASSIFY(kind == 0, "keys shifted");
    RC_CLASSIFY(kind == 1, "values shifted");
    expect_within<T>(id, call<T>(kind == 0 ? "a = keys shifted by c" : kind == 1 ? "a = values shifted by c" : "a = keys and values shifted"),
                     c, hvp(k, c, c.a, c.b), 0, reference_bound(c, c.a, c.b), "0: a null direction");
  }
  static inline const bool registered = property::register_property<Sjvp011>(in_storage);
};

}  // namespace

}  // namespace attncheck::falsify
