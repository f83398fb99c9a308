// attncheck: falsification tests of softmax-jvp-v1 (contracts/softmax-jvp-v1.yaml), judged against
// the derivative oracle (oracle/autodiff.hpp: the kernel templates run on autodiff jets over MPFR).
// Obligations: SJVP-EQV-001 JVP = AD JVP, SJVP-INV-001 Σṗ = 0, SJVP-EQV-002 linearity in ṡ,
// SJVP-BND-001 ‖ṗ‖₂ <= ‖ṡ‖₂/2, SJVP-EQV-003 Ṡ = (Q̇Kᵀ + QK̇ᵀ)/√d, SJVP-EQV-004 attention's
// directional derivative, SJVP-EQV-005 d²/dt² lse(x + tv) = vᵀ(Diag(p) − ppᵀ)v = Var_p(v).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "attncheck/bounds/scores.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/bounds/softmax_jvp.hpp"
#include "attncheck/kernels/attention_jvp.hpp"
#include "attncheck/oracle/autodiff.hpp"
#include "attncheck/oracle/exact.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

// The type the bounds are evaluated in (bounds/error_model.hpp).
using real = std::remove_cvref_t<decltype(bounds::Model{}.u)>;
constexpr const char* ad_oracle = "autodiff jet over MPFR";

// |got − exact| <= allowed for one element, else the standard report with the named inputs.
template <class T, class AddInputs>
void expect_near(const char* id, const std::string& what, T got, real exact, real allowed, AddInputs&& add_inputs) {
  const real err = format_error(got, exact);
  observe(ratio(err, allowed), what);
  if (!(err <= allowed) && !is_correctly_rounded(got, exact)) {
    Report<T> r(id, what);
    add_inputs(r);
    r.kernel(got).exact(exact, ad_oracle).error(err, allowed).raise();
  }
}

// excess <= allowed for a derived quantity (a sum, a norm): else the report with a summary line.
template <class T, class AddInputs>
void expect_within(const char* id, const std::string& what, real excess, real allowed, const std::string& line,
                   AddInputs&& add_inputs) {
  observe(ratio(std::max<real>(0, excess), allowed), what);
  if (!(excess <= allowed)) {
    Report<T> r(id, what);
    add_inputs(r);
    r.line(line).error(excess, allowed).raise();
  }
}

template <class T>
std::string call(const char* kernel, std::size_t n) {
  return std::string(kernel) + "<" + scalar_name<T>() + ">, n = " + std::to_string(n);
}

// SJVP-005..007 combine kernel outputs with arithmetic in T (the score JVP's sum, the chain rule
// of attention_jvp_with, vᵀJv): their allowances count T's roundings, not those of a 16-bit
// storage with f32 arithmetic, so they run at the storage-arithmetic formats only.
const std::vector<Dtype> in_storage(storage_dtypes.begin(), storage_dtypes.end());

// (a) ṗ = p ⊙ (ṡ − ⟨ṡ⟩_p) from the kernel vs d/dt softmax(x + tṡ) from the jets.
struct Sjvp001 {
  static constexpr const char* id = "FALSIFY-SJVP-001";
  static constexpr const char* title = "the softmax JVP is within the derived bound of the autodiff JVP d/dt softmax(x + tṡ)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto [x, ds] = draw_row_and_direction<T>();
    const auto dp = jvp(k, x, ds);
    const auto ex = oracle::softmax_jvp_ad(x, ds);
    const auto allowed = bounds::softmax_jvp_bound(oracle::certified::softmax_row(x), widen(ds), bounds::model_of<T>());
    for (std::size_t i = 0; i < dp.size(); ++i)
      expect_near<T>(id, call<T>("softmax_jvp", x.size()) + ", element " + std::to_string(i), dp[i], ex[i], allowed[i],
                     [&](Report<T>& r) { r.input("x", x).input("ṡ", ds); });
  }
  static inline const bool registered = property::register_property<Sjvp001>();
};

// (b) Σ_i ṗ_i = Σ_i p_i(ṡ_i − ⟨ṡ⟩_p) = 0: the exact sum of the kernel's outputs is within Σ_i bound_i.
struct Sjvp002 {
  static constexpr const char* id = "FALSIFY-SJVP-002";
  static constexpr const char* title = "the softmax JVP sums to 0 within the sum of its derived element bounds";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto [x, ds] = draw_row_and_direction<T>();
    const auto dp = jvp(k, x, ds);
    const auto b = bounds::softmax_jvp_bound(oracle::certified::softmax_row(x), widen(ds), bounds::model_of<T>());
    mpfr200 sum = 0;
    for (const T& v : dp) sum += mpfr200(to_double(v));
    real allowed = 0;
    for (real v : b) allowed += v;
    allowed *= bounds::evaluation_slack;  // n terms summed in real
    const real s = oracle::dbl(sum);
    expect_within<T>(id, call<T>("softmax_jvp", x.size()) + ", Σṗ", std::abs(s), allowed, "Σ_i ṗ_i = " + decimal(static_cast<double>(s)) + " (exactly 0 in exact arithmetic)",
                     [&](Report<T>& r) { r.input("x", x).input("ṡ", ds); });
  }
  static inline const bool registered = property::register_property<Sjvp002>();
};

// (c) Linearity. a, b ∈ {±1, ±2, ±4}: aṡ₁ and bṡ₂ are exact in T (no overflow for |ṡ| <= 4).
// ṡ₃ = fl(aṡ₁ + bṡ₂) rounds, by e = ṡ₃ − aṡ₁ − bṡ₂ (exact at MPFR), so exactly
// J ṡ₃ = aJṡ₁ + bJṡ₂ + Je, and the kernel must satisfy |ṗ₃ − aṗ₁ − bṗ₂ − Je| <= B₃ + |a|B₁ + |b|B₂.
struct Sjvp003 {
  static constexpr const char* id = "FALSIFY-SJVP-003";
  static constexpr const char* title = "the softmax JVP is linear in ṡ: J(aṡ₁ + bṡ₂) = aJṡ₁ + bJṡ₂ within the summed derived bounds";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto x = draw_row<T>(512);
    const auto ds1 = draw_vector<T>(x.size(), 4), ds2 = draw_vector<T>(x.size(), 4);
    const double a = *rc::gen::element(1.0, 2.0, 4.0, -1.0, -2.0, -4.0);
    const double b = *rc::gen::element(1.0, 2.0, 4.0, -1.0, -2.0, -4.0);
    const std::size_t n = x.size();
    std::vector<T> ds3(n);
    std::vector<mpfr200> e(n);
    for (std::size_t i = 0; i < n; ++i) {
      const T as1 = scalar_traits<T>::from_double(a * to_double(ds1[i]));  // exact: power of two
      const T bs2 = scalar_traits<T>::from_double(b * to_double(ds2[i]));
      ds3[i] = as1 + bs2;
      e[i] = mpfr200(to_double(ds3[i])) - mpfr200(to_double(as1)) - mpfr200(to_double(bs2));
    }
    const auto p1 = jvp(k, x, ds1), p2 = jvp(k, x, ds2), p3 = jvp(k, x, ds3);
    const auto X = oracle::lift(x);
    const auto je = oracle::softmax_along<1>(X, e).d1;  // J e, exact
    const auto row = oracle::certified::softmax_row(x);
    const auto md = bounds::model_of<T>();
    const auto b1 = bounds::softmax_jvp_bound(row, widen(ds1), md), b2 = bounds::softmax_jvp_bound(row, widen(ds2), md),
               b3 = bounds::softmax_jvp_bound(row, widen(ds3), md);
    for (std::size_t i = 0; i < n; ++i) {
      const mpfr200 dev = mpfr200(to_double(p3[i])) - mpfr200(a) * mpfr200(to_double(p1[i])) -
                          mpfr200(b) * mpfr200(to_double(p2[i])) - je[i];
      const real allowed = (b3[i] + std::abs(static_cast<real>(a)) * b1[i] + std::abs(static_cast<real>(b)) * b2[i]) * bounds::evaluation_slack;
      const real dv = oracle::dbl(dev);
      expect_within<T>(id, call<T>("softmax_jvp", n) + ", element " + std::to_string(i) + ", a = " + decimal(a) + ", b = " + decimal(b),
                       std::abs(dv), allowed,
                       "J(aṡ₁+bṡ₂) − aJṡ₁ − bJṡ₂ − J(rounding of aṡ₁+bṡ₂) = " + decimal(static_cast<double>(dv)),
                       [&](Report<T>& r) { r.input("x", x).input("ṡ₁", ds1).input("ṡ₂", ds2); });
    }
  }
  static inline const bool registered = property::register_property<Sjvp003>();
};

// (d) ‖Jṡ‖₂ <= ‖J‖₂‖ṡ‖₂ <= ‖ṡ‖₂/2 (J = Diag(p) − ppᵀ: vᵀJv = Var_p(v) <= ‖v‖²/2, Popoviciu), so the
// computed ‖ṗ̂‖₂ <= ‖ṡ‖₂/2 + ‖bound‖₂ (triangle inequality). Norms at MPFR from the exact T values.
struct Sjvp004 {
  static constexpr const char* id = "FALSIFY-SJVP-004";
  static constexpr const char* title = "‖ṗ‖₂ <= ‖ṡ‖₂/2 plus the 2-norm of the derived JVP bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto [x, ds] = draw_row_and_direction<T>();
    const auto dp = jvp(k, x, ds);
    const auto b = bounds::softmax_jvp_bound(oracle::certified::softmax_row(x), widen(ds), bounds::model_of<T>());
    mpfr200 pp = 0, ss = 0;
    real bb = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      pp += mpfr200(to_double(dp[i])) * mpfr200(to_double(dp[i]));
      ss += mpfr200(to_double(ds[i])) * mpfr200(to_double(ds[i]));
      bb += b[i] * b[i];
    }
    const real lhs = oracle::dbl(mpfr200(sqrt(pp))), half = oracle::dbl(mpfr200(sqrt(ss) / 2));
    const real allowed = std::sqrt(bb) * bounds::evaluation_slack;
    expect_within<T>(id, call<T>("softmax_jvp", x.size()) + ", ‖ṗ‖₂ − ‖ṡ‖₂/2", lhs - half, allowed,
                     "‖ṗ‖₂ = " + decimal(static_cast<double>(lhs)) + ", ‖ṡ‖₂/2 = " + decimal(static_cast<double>(half)),
                     [&](Report<T>& r) { r.input("x", x).input("ṡ", ds); });
  }
  static inline const bool registered = property::register_property<Sjvp004>();
};

// ---- attention ------------------------------------------------------------------------------

// Shapes and inputs of one attention case: n queries, m keys, head dim d, value dim dv. Which of
// Q̇, K̇, V̇ is non-zero is drawn too (all, or one alone), so each partial derivative is exercised.
template <class T>
struct AttentionCase : gen::AttentionCase<T> {
  bool causal = false;
  std::vector<T> dq, dk, dvv;
};

template <class T>
AttentionCase<T> draw_attention_case() {
  AttentionCase<T> c;
  static_cast<gen::AttentionCase<T>&>(c) = gen::attention_case<T>({.max_n = 5, .max_m = 8, .max_d = 8, .max_dv = 3, .sigma_v = 4});
  c.causal = *rc::gen::arbitrary<bool>();
  const int which = *rc::gen::inRange(0, 4);  // 0: all directions, 1: Q̇ only, 2: K̇ only, 3: V̇ only
  const auto dir = [which](int mine, std::size_t size, double sigma) {
    return which == 0 || which == mine ? draw_vector<T>(size, sigma) : std::vector<T>(size, lit<T>(0));
  };
  c.dq = dir(1, c.n * c.d, 2);
  c.dk = dir(2, c.m * c.d, 2);
  c.dvv = dir(3, c.m * c.dv, 4);
  return c;
}

template <class T>
void add_attention_inputs(Report<T>& r, const AttentionCase<T>& c) {
  r.line("n = " + std::to_string(c.n) + ", m = " + std::to_string(c.m) + ", d = " + std::to_string(c.d) +
         ", dv = " + std::to_string(c.dv) + (c.causal ? ", causal" : ""));
  r.input("Q", c.q).input("K", c.k).input("V", c.v).input("Q̇", c.dq).input("K̇", c.dk).input("V̇", c.dvv);
}

// Exact quantities of the score stage: S, Ṡ (from the jets), the two halves Q̇Kᵀ/√d and QK̇ᵀ/√d
// and the Σ|products| each bound needs, all at MPFR.
struct ScoreStage {
  std::vector<mpfr200> s, ds;
  std::vector<real> a, b;  // derived bounds: |ŝ − s| <= a (scores), |ṡ̂ − ṡ| <= b (score JVP)
};

template <class T>
ScoreStage score_stage(const AttentionCase<T>& c, const bounds::Model& md) {
  const auto Q = oracle::lift(c.q), K = oracle::lift(c.k), DQ = oracle::lift(c.dq), DK = oracle::lift(c.dk);
  const auto jets = oracle::scores_along(Q, K, DQ, DK, c.n, c.m, c.d);
  ScoreStage st{jets.value, jets.d1, {}, {}};
  std::vector<mpfr200> s1(c.n * c.m), s2(c.n * c.m);
  kernels::scores(DQ.data(), K.data(), c.n, c.m, c.d, s1.data());
  kernels::scores(Q.data(), DK.data(), c.n, c.m, c.d, s2.data());
  const auto abs_dot = [&](const std::vector<mpfr200>& a, const std::vector<mpfr200>& b, std::size_t i, std::size_t j) {
    mpfr200 acc = 0;
    for (std::size_t t = 0; t < c.d; ++t) acc += abs(a[i * c.d + t] * b[j * c.d + t]);
    return oracle::dbl(acc) * bounds::evaluation_slack;
  };
  for (std::size_t i = 0; i < c.n; ++i)
    for (std::size_t j = 0; j < c.m; ++j) {
      const std::size_t ij = i * c.m + j;
      st.a.push_back(bounds::score_bound(oracle::dbl(st.s[ij]), abs_dot(Q, K, i, j), c.d, md));
      const real a1 = bounds::score_bound(oracle::dbl(s1[ij]), abs_dot(DQ, K, i, j), c.d, md);
      const real a2 = bounds::score_bound(oracle::dbl(s2[ij]), abs_dot(Q, DK, i, j), c.d, md);
      // ṡ̂ = fl(ŝ₁ + ŝ₂): |ṡ̂ − ṡ| <= a1 + a2 + u(|ṡ| + a1 + a2) (a sum rounds relatively, also when subnormal).
      st.b.push_back(((a1 + a2) * (1 + md.u) + md.u * std::abs(oracle::dbl(st.ds[ij]))) * bounds::evaluation_slack);
    }
  return st;
}

// (e1) Ṡ = (Q̇Kᵀ + QK̇ᵀ)/√d, computed as scores(Q̇, K) + scores(Q, K̇) with the kernel set's scores,
// vs the jets' derivative of the reference scores along (Q̇, K̇).
struct Sjvp005 {
  static constexpr const char* id = "FALSIFY-SJVP-005";
  static constexpr const char* title = "Ṡ = (Q̇Kᵀ + QK̇ᵀ)/√d matches the autodiff derivative of the scores within the derived bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto c = draw_attention_case<T>();
    std::vector<T> ds(c.n * c.m);
    kernels::scores_jvp_with<T>(k.scores, c.q.data(), c.k.data(), c.dq.data(), c.dk.data(), c.n, c.m, c.d, ds.data());
    const auto st = score_stage(c, bounds::model_of<T>());
    for (std::size_t ij = 0; ij < ds.size(); ++ij)
      expect_near<T>(id, "scores_jvp<" + scalar_name<T>() + ">, Ṡ[" + std::to_string(ij / c.m) + "][" + std::to_string(ij % c.m) + "]",
                     ds[ij], oracle::dbl(st.ds[ij]), st.b[ij], [&](Report<T>& r) { add_attention_inputs(r, c); });
  }
  static inline const bool registered = property::register_property<Sjvp005>(in_storage);
};

// (e2) Ȯ by the chain rule over the kernel set's scores, softmax and softmax JVP
// (kernels/attention_jvp.hpp) vs the jets' derivative of the reference attention. The allowance,
// per query row i over its L visible keys, with exact S, Ṡ, p = softmax(s), ṗ = J(s)ṡ and the
// reference's rounded ŝ, ṡ̂ (|ŝ − s| <= a, |ṡ̂ − ṡ| <= b, δ = max a, ε = e^{2δ} − 1):
//   p* = softmax(ŝ):        p*_j/p_j ∈ [e^{−2δ}, e^{2δ}], so |p*_j − p_j| <= εp_j;
//   p̂ = softmax_T(ŝ):       |p̂ − p| <= A*_j + εp_j =: Ep_j        (A*: softmax bound at ŝ);
//   ṗ̂ = softmax_jvp_T(ŝ, ṡ̂): |ṗ̂ − J(ŝ)ṡ̂| <= B*_j                     (JVP bound at ŝ, ṡ̂);
//     |J(ŝ)(ṡ̂ − ṡ)|_j <= p*_j(b_j + Σ_k p*_k b_k),
//     |(J(ŝ) − J(s))ṡ|_j <= εp_j(|ṡ_j − μ| + εD) + εp_jD,  μ = ⟨ṡ⟩_p, D = Σ_k p_k|ṡ_k − μ|
//     (Σ(p* − p) = 0 gives μ* − μ = Σ(p*_k − p_k)(ṡ_k − μ), |μ* − μ| <= εD), together Eṗ_j;
//   ȯ̂_c = fl(Σ_j ṗ̂_j V_jc + p̂_j V̇_jc), a 2m-term dot product (Higham §3.1):
//     |ȯ̂_c − ȯ_c| <= Σ_j (Eṗ_j|V_jc| + Ep_j|V̇_jc|) + γ_{2m} Σ_j ((|ṗ_j| + Eṗ_j)|V_jc| + (p_j + Ep_j)|V̇_jc|) + 2mη.
// Masked keys have p̂ = ṗ̂ = 0 exactly in the reference (exp(−∞) = 0), so the row bounds are
// those of the L-entry prefix.
struct Sjvp006 {
  static constexpr const char* id = "FALSIFY-SJVP-006";
  static constexpr const char* title = "the directional derivative of attention w.r.t. Q, K, V by the chain rule matches autodiff within the derived bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto c = draw_attention_case<T>();
    std::vector<T> dout(c.n * c.dv);
    kernels::attention_jvp_with<T>(k.scores, k.softmax, k.softmax_jvp, c.q.data(), c.k.data(), c.v.data(), c.dq.data(),
                                   c.dk.data(), c.dvv.data(), c.n, c.m, c.d, c.dv, c.causal, dout.data());
    const auto ex = oracle::attention_along(oracle::lift(c.q), oracle::lift(c.k), oracle::lift(c.v), oracle::lift(c.dq),
                                            oracle::lift(c.dk), oracle::lift(c.dvv), c.n, c.m, c.d, c.dv, c.causal);
    const auto md = bounds::model_of<T>();
    const auto st = score_stage(c, md);
    // The reference's own rounded scores and score JVP, from which its softmax and JVP start.
    std::vector<T> s_hat(c.n * c.m), ds_hat(c.n * c.m);
    kernels::scores<T>(c.q.data(), c.k.data(), c.n, c.m, c.d, s_hat.data());
    kernels::scores_jvp_with<T>(kernels::scores<T>, c.q.data(), c.k.data(), c.dq.data(), c.dk.data(), c.n, c.m, c.d, ds_hat.data());
    const real g2m = bounds::gamma(2 * c.m, md.u);
    for (std::size_t i = 0; i < c.n; ++i) {
      const std::size_t L = c.causal ? std::min(i + 1, c.m) : c.m;
      std::vector<mpfr200> s(st.s.begin() + i * c.m, st.s.begin() + i * c.m + L), ds(st.ds.begin() + i * c.m, st.ds.begin() + i * c.m + L);
      const auto pj = oracle::softmax_along<1>(s, ds);  // exact p and ṗ of the row
      std::vector<T> sh(s_hat.begin() + i * c.m, s_hat.begin() + i * c.m + L), dsh(ds_hat.begin() + i * c.m, ds_hat.begin() + i * c.m + L);
      const auto row_hat = oracle::certified::softmax_row(sh);
      const auto sb = bounds::softmax_bound(row_hat, md);
      const auto jb = bounds::softmax_jvp_bound(row_hat, widen(dsh), md);
      real delta = 0, mu = 0, sum_pb = 0;
      std::vector<real> p(L), dp(L), dsr(L), b(L);
      for (std::size_t j = 0; j < L; ++j) {
        delta = std::max(delta, st.a[i * c.m + j]);
        p[j] = oracle::dbl(pj.value[j]);
        dp[j] = oracle::dbl(pj.d1[j]);
        dsr[j] = oracle::dbl(ds[j]);
        b[j] = st.b[i * c.m + j];
        mu += p[j] * dsr[j];
        sum_pb += row_hat.p[j] * b[j];
      }
      real D = 0;
      for (std::size_t j = 0; j < L; ++j) D += p[j] * std::abs(dsr[j] - mu);
      D *= bounds::evaluation_slack;
      const real eps = std::expm1(2 * delta) * bounds::evaluation_slack;
      std::vector<real> ep(L), edp(L);
      for (std::size_t j = 0; j < L; ++j) {
        const real pstar = row_hat.p[j];
        const real astar = std::max(sb.hi[j] - pstar, pstar - sb.lo[j]);
        ep[j] = astar + eps * p[j];
        const real t1 = pstar * (b[j] + sum_pb * bounds::evaluation_slack);
        const real t2 = eps * p[j] * (std::abs(dsr[j] - mu) + eps * D) + eps * p[j] * D;
        edp[j] = jb[j] + t1 + t2;
      }
      for (std::size_t col = 0; col < c.dv; ++col) {
        real prop = 0, mag = 0;
        for (std::size_t j = 0; j < L; ++j) {
          const real vv = std::abs(static_cast<real>(to_double(c.v[j * c.dv + col])));
          const real vd = std::abs(static_cast<real>(to_double(c.dvv[j * c.dv + col])));
          // 0·∞ is 0 here: a zero factor contributes exactly nothing, however loose the other bound.
          if (vv != 0) prop += edp[j] * vv, mag += (std::abs(dp[j]) + edp[j]) * vv;
          if (vd != 0) prop += ep[j] * vd, mag += (p[j] + ep[j]) * vd;
        }
        const real allowed = (prop + g2m * mag + static_cast<real>(2 * c.m) * md.eta) * bounds::evaluation_slack;
        const std::size_t ic = i * c.dv + col;
        expect_near<T>(id, "attention_jvp<" + scalar_name<T>() + ">, Ȯ[" + std::to_string(i) + "][" + std::to_string(col) + "]",
                       dout[ic], oracle::dbl(ex.d1[ic]), allowed, [&](Report<T>& r) { add_attention_inputs(r, c); });
      }
    }
  }
  static inline const bool registered = property::register_property<Sjvp006>(in_storage);
};

// ---- second order ---------------------------------------------------------------------------

// (f) d²/dt² lse(x + tv) at t = 0 from order-2 jets through kernels::log_softmax, against
//   (f1) Var_p(v) = Σ p_i(v_i − μ)², μ = Σ p_i v_i, p = kernels::softmax at MPFR (the identity
//        itself, both sides at the oracle's precision), and
//   (f2) vᵀ·ṗ̂ with ṗ̂ = the kernel set's softmax JVP at (x, v) in T: vᵀJv within Σ|v_i|·bound_i.
// Allowance of (f1): each side is a standard-model computation at the oracle's unit roundoff u_M
// (format_of<mpfr200>: 2^-200, an upper bound of the real one). Both the jets (s''/s − (s'/s)²
// with s = Σ_j exp(x_j − m + t(v_j − v_k))) and the closed form pass every term through at most
// K = 2n + 16 roundings of relative size u_M, and exp turns the rounding of its argument x_j − m
// into a relative error u_M·gap_j; every term is at most (2R)², R = max|v_i|, in size. So
//   |jets − Var_p(v)| <= 32 γ_K(u_M) (1 + Σ_j p_j gap_j) R²,
// generous by the constant, and below 2^-180 R² for every row the generators make.
struct Sjvp007 {
  static constexpr const char* id = "FALSIFY-SJVP-007";
  static constexpr const char* title = "d²/dt² lse(x + tv) from order-2 autodiff = Var_p(v) = vᵀ(Diag(p) − ppᵀ)v, and the kernel's vᵀJv matches it";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto [x, v] = draw_row_and_direction<T>();
    const std::size_t n = x.size();
    const auto X = oracle::lift(x), V = oracle::lift(v);
    const mpfr200 d2 = oracle::lse_along<2>(X, V).d2[0];
    // (f1) the identity at the oracle's precision.
    std::vector<mpfr200> P(n);
    kernels::softmax(X.data(), P.data(), n);
    mpfr200 mu = 0, var = 0;
    for (std::size_t i = 0; i < n; ++i) mu += P[i] * V[i];
    for (std::size_t i = 0; i < n; ++i) var += P[i] * (V[i] - mu) * (V[i] - mu);
    const auto row = oracle::certified::softmax_row(x);
    real R = 0, pgap = 0;
    for (std::size_t i = 0; i < n; ++i) {
      R = std::max(R, std::abs(static_cast<real>(to_double(v[i]))));
      pgap += row.p[i] * row.gap[i];
    }
    const auto mm = bounds::model_of<mpfr200>();
    const real allowed_oracle = 32 * bounds::gamma(2 * n + 16, mm.u) * (1 + pgap) * R * R * bounds::evaluation_slack;
    const real dev1 = oracle::dbl(mpfr200(d2 - var));
    expect_within<T>(id, "d²/dt² lse(x + tv) vs Var_p(v) at MPFR, n = " + std::to_string(n), std::abs(dev1), allowed_oracle,
                     "jets: " + decimal(static_cast<double>(oracle::dbl(d2))) + ", Var_p(v): " + decimal(static_cast<double>(oracle::dbl(var))),
                     [&](Report<T>& r) { r.input("x", x).input("v", v); });
    // (f2) the kernel's JVP contracted with v.
    const auto dp = jvp(k, x, v);
    const auto b = bounds::softmax_jvp_bound(row, widen(v), bounds::model_of<T>());
    mpfr200 q = 0;
    real slack = 0;
    for (std::size_t i = 0; i < n; ++i) {
      q += V[i] * mpfr200(to_double(dp[i]));
      if (to_double(v[i]) != 0) slack += std::abs(static_cast<real>(to_double(v[i]))) * b[i];  // 0·∞ is 0 here
    }
    const real allowed = slack * bounds::evaluation_slack + allowed_oracle;
    const real dev2 = oracle::dbl(mpfr200(q - d2));
    expect_within<T>(id, call<T>("softmax_jvp", n) + ", vᵀṗ vs d²/dt² lse", std::abs(dev2), allowed,
                     "vᵀṗ = " + decimal(static_cast<double>(oracle::dbl(q))) + ", d²/dt² lse(x + tv) = " + decimal(static_cast<double>(oracle::dbl(d2))),
                     [&](Report<T>& r) { r.input("x", x).input("v", v); });
  }
  static inline const bool registered = property::register_property<Sjvp007>(in_storage);
};

}  // namespace

}  // namespace attncheck::falsify
