// attncheck: tests of the derivative oracle (oracle/autodiff.hpp): the kernel templates run on
// autodiff jets over MPFR, cross-checked against central finite differences at MPFR and against
// the closed forms (softmax JVP, Var_p(v), (Q̇Kᵀ + QK̇ᵀ)/√d, the attention chain rule).
// Finite differences appear here only, as an independent check of the oracle, never as one.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/attention_jvp.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"
#include "attncheck/oracle/autodiff.hpp"

using namespace attncheck;
using oracle::Directional;

namespace {

using M = mpfr200;

// The oracle's real unit roundoff (mpfr200 carries std::numeric_limits<M>::digits bits).
const M u_oracle = ldexp(M(1), -std::numeric_limits<M>::digits);

// Rows and directions from a fixed stream: moderate rows, spread rows, ties, one entry.
std::vector<M> draw(std::mt19937_64& g, std::size_t n, double sigma) {
  std::normal_distribution<double> N(0, sigma);
  std::vector<M> r;
  for (std::size_t i = 0; i < n; ++i) r.emplace_back(N(g));
  return r;
}

M max_abs(const std::vector<M>& v) {
  M r = 0;
  for (const auto& e : v) r = std::max(r, M(abs(e)));
  return r;
}

M spread(const std::vector<M>& v) { return *std::max_element(v.begin(), v.end()) - *std::min_element(v.begin(), v.end()); }

// x + c·v, entry by entry, at MPFR.
std::vector<M> axpy(const std::vector<M>& x, const M& c, const std::vector<M>& v) {
  std::vector<M> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r[i] = x[i] + c * v[i];
  return r;
}

std::vector<M> softmax(const std::vector<M>& x) {
  std::vector<M> p(x.size());
  kernels::softmax(x.data(), p.data(), x.size());
  return p;
}

// Standard-model allowance for comparing two MPFR evaluations of the same smooth quantity of
// size <= scale: at most K = 4n + 32 roundings of relative size u per path, exp amplifying the
// rounding of its argument by the row's spread. Generous by a constant, ~2^-640 relative here.
M oracle_allowance(std::size_t n, const M& gap, const M& scale) {
  return 64 * M(4 * n + 32) * u_oracle * (1 + gap) * (1 + scale);
}

struct Case {
  std::vector<M> x, v;
};

std::vector<Case> softmax_cases() {
  std::mt19937_64 g(0x5eed2026);
  std::vector<Case> cs;
  for (std::size_t n : {1, 2, 3, 5, 8, 17, 40})
    for (double sx : {0.5, 3.0, 30.0}) cs.push_back({draw(g, n, sx), draw(g, n, 2)});
  cs.push_back({{M(1), M(1), M(0)}, {M(0.5), M(-2), M(3)}});  // a tie at the max
  cs.push_back({{M(7), M(7)}, {M(1), M(-1)}});               // the two-point row
  cs.push_back({{M(0), M(-1e4), M(-2e4)}, {M(1), M(2), M(3)}});  // one-hot: e^{-1e4} is tiny, not 0
  return cs;
}

}  // namespace

TEST_CASE("autodiff oracle: a jet is a Scalar whose constants carry no derivative") {
  using J = oracle::jet<2>;
  static_assert(Scalar<J>);
  const J c = lit<J>(2.5);
  CHECK(to_double(c) == 2.5);
  CHECK(c.derivative(1) == 0);
  CHECK(c.derivative(2) == 0);
  const auto t = boost::math::differentiation::make_fvar<M, 2>(M(0.5));
  const J e = scalar_traits<J>::exp(t);  // d/dt e^t = d²/dt² e^t = e^t
  CHECK(e.derivative(1) == e.derivative(0));
  CHECK(e.derivative(2) == e.derivative(0));
}

TEST_CASE("autodiff oracle: softmax JVP equals the closed form p*(v - <v>_p) at MPFR") {
  for (const auto& c : softmax_cases()) {
    const Directional ad = oracle::softmax_along<1>(c.x, c.v);
    std::vector<M> closed(c.x.size());
    kernels::softmax_jvp(c.x.data(), c.v.data(), c.x.size(), closed.data());
    const M tol = oracle_allowance(c.x.size(), spread(c.x), max_abs(c.v));
    const auto p = softmax(c.x);
    M sum = 0;
    for (std::size_t i = 0; i < c.x.size(); ++i) {
      CHECK(abs(ad.value[i] - p[i]) <= tol);  // the jet's value part is the plain kernel's value
      CHECK(abs(ad.d1[i] - closed[i]) <= tol);
      sum += ad.d1[i];
    }
    CHECK(abs(sum) <= tol);  // 1ᵀJ = 0
  }
}

// Central difference (f(x + hv) − f(x − hv))/2h at MPFR, h = 2^-80. Truncation error: h²/6·|f'''|
// with f(t) = p_i(x + tv), f''' = p_i[(w_i)³ − 3σ²w_i − κ₃] (w = v − ⟨v⟩_p, σ² and κ₃ its
// central moments), so |f'''| <= 3R³ with R = max v − min v: at most h²R³/2. Rounding: two
// softmax evaluations of error <= the oracle allowance each, divided by 2h.
TEST_CASE("autodiff oracle: softmax JVP agrees with central finite differences at MPFR (cross-check)") {
  const M h = ldexp(M(1), -80);
  for (const auto& c : softmax_cases()) {
    const Directional ad = oracle::softmax_along<1>(c.x, c.v);
    const auto hi = softmax(axpy(c.x, h, c.v)), lo = softmax(axpy(c.x, -h, c.v));
    const M R = spread(c.v);
    const M tol = h * h * R * R * R / 2 + oracle_allowance(c.x.size(), spread(c.x) + 2 * h * R, 1) / h;
    for (std::size_t i = 0; i < c.x.size(); ++i) {
      const M fd = (hi[i] - lo[i]) / (2 * h);
      CHECK(abs(fd - ad.d1[i]) <= tol);
    }
  }
}

TEST_CASE("autodiff oracle: d2/dt2 lse(x + tv) = v^T (Diag(p) - pp^T) v = Var_p(v), d/dt lse = <v>_p") {
  for (const auto& c : softmax_cases()) {
    const std::size_t n = c.x.size();
    const auto p = softmax(c.x);
    M mu = 0, var = 0, quad = 0;
    for (std::size_t i = 0; i < n; ++i) mu += p[i] * c.v[i];
    for (std::size_t i = 0; i < n; ++i) var += p[i] * (c.v[i] - mu) * (c.v[i] - mu);
    for (std::size_t i = 0; i < n; ++i) {  // vᵀ(Diag(p) − ppᵀ)v written out
      quad += p[i] * c.v[i] * c.v[i];
      for (std::size_t j = 0; j < n; ++j) quad -= c.v[i] * p[i] * p[j] * c.v[j];
    }
    const Directional l = oracle::lse_along<2>(c.x, c.v);
    const M R = max_abs(c.v);
    const M tol = oracle_allowance(n, spread(c.x), 4 * R * R) * M(n);
    CHECK(abs(l.d1[0] - mu) <= tol);
    CHECK(abs(l.d2[0] - var) <= tol);
    CHECK(abs(quad - var) <= tol);
    CHECK(l.d2[0] >= -tol);                                  // PSD
    CHECK(l.d2[0] <= spread(c.v) * spread(c.v) / 4 + tol);   // Popoviciu
    // Second derivative of softmax itself: d²p_i/dt² = p_i((v_i − μ)² − Var_p(v)).
    const Directional s2 = oracle::softmax_along<2>(c.x, c.v);
    for (std::size_t i = 0; i < n; ++i) CHECK(abs(s2.d2[i] - p[i] * ((c.v[i] - mu) * (c.v[i] - mu) - var)) <= tol);
  }
}

TEST_CASE("autodiff oracle: the two-point row reaches |Jv| = |v|/2 exactly") {
  const Directional ad = oracle::softmax_along<1>({M(7), M(7)}, {M(1), M(-1)});
  CHECK(ad.d1[0] == M(0.5));
  CHECK(ad.d1[1] == M(-0.5));
}

namespace {
struct Attn {
  std::size_t n, m, d, dv;
  bool causal;
  std::vector<M> q, k, v, dq, dk, dvv;
};

std::vector<Attn> attention_cases() {
  std::mt19937_64 g(0xa77e);
  std::vector<Attn> cs;
  for (auto [n, m, d, dv, causal] : {std::tuple{1, 1, 1, 1, false}, std::tuple{2, 3, 4, 2, false}, std::tuple{3, 3, 2, 3, true},
                                     std::tuple{4, 6, 8, 2, true}, std::tuple{5, 2, 3, 1, false}}) {
    Attn a{std::size_t(n), std::size_t(m), std::size_t(d), std::size_t(dv), causal, {}, {}, {}, {}, {}, {}};
    a.q = draw(g, a.n * a.d, 1.5);
    a.k = draw(g, a.m * a.d, 1.5);
    a.v = draw(g, a.m * a.dv, 2);
    a.dq = draw(g, a.n * a.d, 1);
    a.dk = draw(g, a.m * a.d, 1);
    a.dvv = draw(g, a.m * a.dv, 1);
    cs.push_back(a);
  }
  return cs;
}
}  // namespace

TEST_CASE("autodiff oracle: score JVP = (dQ K^T + Q dK^T)/sqrt(d) and the attention chain rule at MPFR") {
  for (const auto& a : attention_cases()) {
    const Directional s = oracle::scores_along(a.q, a.k, a.dq, a.dk, a.n, a.m, a.d);
    std::vector<M> ds(a.n * a.m);
    kernels::scores_jvp_with<M>(kernels::scores<M>, a.q.data(), a.k.data(), a.dq.data(), a.dk.data(), a.n, a.m, a.d, ds.data());
    const M tol = oracle_allowance(a.d, 0, 100);
    for (std::size_t ij = 0; ij < ds.size(); ++ij) CHECK(abs(s.d1[ij] - ds[ij]) <= tol);

    const Directional o = oracle::attention_along(a.q, a.k, a.v, a.dq, a.dk, a.dvv, a.n, a.m, a.d, a.dv, a.causal);
    std::vector<M> chain(a.n * a.dv), plain(a.n * a.dv);
    kernels::attention_jvp(a.q.data(), a.k.data(), a.v.data(), a.dq.data(), a.dk.data(), a.dvv.data(), a.n, a.m, a.d, a.dv,
                           a.causal, chain.data());
    kernels::attention(a.q.data(), a.k.data(), a.v.data(), a.n, a.m, a.d, a.dv, a.causal, plain.data());
    const M tol2 = oracle_allowance(a.m + a.d, 40, 100);
    for (std::size_t ic = 0; ic < chain.size(); ++ic) {
      CHECK(abs(o.value[ic] - plain[ic]) <= tol2);
      CHECK(abs(o.d1[ic] - chain[ic]) <= tol2);
    }
  }
}

// h = 2^-80: whatever the third derivative (up to 2^80 in size), the O(h²) truncation error is
// below h, and rounding (2^-600 / h) is far below that; the check is that AD and FD agree to h.
TEST_CASE("autodiff oracle: attention directional derivative agrees with central finite differences (cross-check)") {
  const M h = ldexp(M(1), -80);
  for (const auto& a : attention_cases()) {
    const Directional o = oracle::attention_along(a.q, a.k, a.v, a.dq, a.dk, a.dvv, a.n, a.m, a.d, a.dv, a.causal);
    std::vector<M> hi(a.n * a.dv), lo(a.n * a.dv);
    const auto qh = axpy(a.q, h, a.dq), kh = axpy(a.k, h, a.dk), vh = axpy(a.v, h, a.dvv);
    const auto ql = axpy(a.q, -h, a.dq), kl = axpy(a.k, -h, a.dk), vl = axpy(a.v, -h, a.dvv);
    kernels::attention(qh.data(), kh.data(), vh.data(), a.n, a.m, a.d, a.dv, a.causal, hi.data());
    kernels::attention(ql.data(), kl.data(), vl.data(), a.n, a.m, a.d, a.dv, a.causal, lo.data());
    for (std::size_t ic = 0; ic < hi.size(); ++ic) {
      const M fd = (hi[ic] - lo[ic]) / (2 * h);
      CHECK(abs(fd - o.d1[ic]) <= h * (1 + abs(o.d1[ic])));
    }
  }
}

TEST_CASE("autodiff oracle: causal masking carries a zero derivative, not NaN") {
  // Query 0 sees key 0 only: its output is V_0, whose derivative is V̇_0 whatever K̇, Q̇ do.
  const std::vector<M> q{M(1), M(2)}, k{M(0.5), M(-1)}, v{M(2), M(-3)};  // n = m = 2, d = dv = 1
  const std::vector<M> dq{M(1), M(1)}, dk{M(1), M(-2)}, dv{M(0.25), M(7)};
  const Directional o = oracle::attention_along(q, k, v, dq, dk, dv, 2, 2, 1, 1, true);
  CHECK(o.value[0] == M(2));
  CHECK(o.d1[0] == M(0.25));
  CHECK(boost::multiprecision::isfinite(o.d1[1]));
}

TEST_CASE("autodiff oracle: softmax_jvp_ad lifts rows of a hardware format bit for bit") {
  const std::vector<float> x{1.0f, -2.5f, 0.125f}, dx{0.5f, 1.0f, -3.0f};
  const auto ad = oracle::softmax_jvp_ad(x, dx);
  std::vector<M> X{M(1.0), M(-2.5), M(0.125)}, DX{M(0.5), M(1.0), M(-3.0)}, closed(3);
  kernels::softmax_jvp(X.data(), DX.data(), 3, closed.data());
  for (std::size_t i = 0; i < 3; ++i) {
    const auto want = oracle::dbl(closed[i]);  // the two agree to ~2^-600: equal after lowering, up to a last-bit tie
    CHECK(std::abs(ad[i] - want) <= std::abs(want) * 0x1p-60L);
  }
}
