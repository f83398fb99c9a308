// attncheck: falsification tests of log-sum-exp-v1 (contracts/log-sum-exp-v1.yaml).
// lse(z) = log Σ e^{z_i} is taken from the log-softmax kernel, lse = z_j − log_softmax(z)_j at a
// largest z_j (where the kernel's bound is smallest). Obligations: LSE-INV-001 lse convex,
// LSE-EQV-001 lse(z) = max_{p∈Δ} ⟨z,p⟩ + H(p) attained at softmax(z), LSE-EQV-002 ∇lse = softmax,
// LSE-BND-001 ∇²(lse(λ·)/λ) = λ(Diag(p) − ppᵀ) is PSD with norm <= λ/2, LSE-INV-002 H concave.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "attncheck/bounds/entropy.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/bounds/softmax_jvp.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using bounds::real;

template <class T>
mpfr200 mp(const T& x) { return mpfr200(to_double(x)); }

// lse(z) from the kernel (exactly evaluated z_j − ŷ_j in MPFR) and its derived allowance.
template <class T>
std::pair<mpfr200, real> kernel_lse(const KernelSet<T>& k, const std::vector<T>& z) {
  std::vector<T> ls(z.size());
  k.log_softmax(z.data(), ls.data(), z.size());
  const std::size_t j = static_cast<std::size_t>(std::max_element(z.begin(), z.end(), [](T a, T b) { return a < b; }) - z.begin());
  const auto b = bounds::log_softmax_bound(oracle::softmax_row(z), bounds::model_of<T>());
  return {mp(z[j]) - mp(ls[j]), b[j]};
}

// Exact lse of an MPFR row.
mpfr200 lse(const std::vector<mpfr200>& z) {
  mpfr200 m = z[0], s = 0;
  for (const auto& v : z) m = std::max(m, v);
  for (const auto& v : z) s += exp(v - m);
  return m + log(s);
}

template <class T>
std::vector<T> softmax(const KernelSet<T>& k, const std::vector<T>& z) {
  std::vector<T> p(z.size());
  k.softmax(z.data(), p.data(), z.size());
  return p;
}

// ---- LSE-INV-001: convexity ---------------------------------------------------------------------
// z = fl(θx + (1−θ)y) differs from the exact combination by δ; lse is 1-Lipschitz in the max norm.
struct Lse001 {
  static constexpr const char* id = "FALSIFY-LSE-001";
  static constexpr const char* title = "lse is convex: lse(θx + (1−θ)y) <= θ lse(x) + (1−θ) lse(y) for the kernel's lse";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto x = draw_row<T>(64);
    std::vector<T> y = *rc::gen::inRange(0, 3) == 0 ? std::vector<T>(x.rbegin(), x.rend()) : draw_vector<T>(x.size(), 16);
    const double th = *rc::gen::element(0.25, 0.5, 0.75);
    std::vector<T> z(x.size());
    real dz = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      z[i] = lit<T>(th) * x[i] + lit<T>(1 - th) * y[i];
      RC_PRE(std::isfinite(to_double(z[i])));
      dz = std::max(dz, oracle::dbl(abs(mpfr200(mp(z[i]) - th * mp(x[i]) - (1 - th) * mp(y[i])))));
    }
    const auto [lz, bz] = kernel_lse(k, z);
    const auto [lx, bx] = kernel_lse(k, x);
    const auto [ly, by] = kernel_lse(k, y);
    const real excess = oracle::dbl(mpfr200(lz - th * lx - (1 - th) * ly));
    const real allowed = (bz + th * bx + (1 - th) * by + dz) * bounds::evaluation_slack;
    observe(ratio(std::max<real>(0, excess), allowed), "convexity, n = " + std::to_string(x.size()));
    if (!(excess <= allowed))
      Report<T>(id, "log_softmax<" + scalar_name<T>() + ">-derived lse, θ = " + decimal(th)).input("x", x).input("y", y).input("z", z)
          .line("lse(z) − θlse(x) − (1−θ)lse(y) = " + decimal(static_cast<double>(excess))).error(excess, allowed).raise();
  }
  static inline const bool registered = property::register_property<Lse001>();
};

// ---- LSE-EQV-001: variational form --------------------------------------------------------------
// gap(p) = lse(z) − ⟨z,p⟩ − H(p) = KL(p ‖ softmax z) >= 0 on the simplex. Both halves of the test
// call the kernels under test:
// (1) Random p through the kernel's entropy. For p >= 0 with S = Σp_i > 0 and r = p/S,
//     H(p) = S·H(r) − S log S and Σp_i(lse − z_i) = S·CE(r, q), q = softmax z, so
//       Σp_i(lse − z_i) − S log S − H(p) = S·KL(r ‖ q) >= 0   (Gibbs' inequality),
//     and with the kernel's Ĥ(p) in place of H(p) the left side may fall below 0 by the entropy
//     kernel's derived allowance at H(p) only. p_i = RN_T((1 − t)q_i + t·w_i/Σw), w random integer
//     weights, t ∈ {1, 1/16, 2^-10, 0}: from far from softmax z down to its rounding into T, where
//     S·KL is O(u²) and an entropy kernel a few ulps too high shows (entropy_few_ulps_high).
// (2) At the kernel's p̂ = softmax(z): gap(p̂) = Σp̂_i log(p̂_i/p_i) + lse(z)(1 − Σp̂) and
// Σp̂ − 1 <= Σp̂_i log(p̂_i/p_i) <= Σp̂ − 1 + Σ(p̂_i − p_i)²/p_i (log x >= 1 − 1/x, log x <= x − 1), so
// |gap(p̂)| <= |Σp̂ − 1|(1 + |lse z|) + Σ(p̂_i − p_i)²/p_i; the entropy kernel's Ĥ(p̂) adds its bound.
// (Before, half (1) evaluated H(p) in MPFR on the reference template: it could not fail in an audit.)
// lse(z) − z_i = −log softmax(z)_i comes from the log-softmax template in MPFR (for |z| near the
// overflow threshold, lse(z) − ⟨z,p⟩ would cancel all 200 bits); it and the sums in MPFR err by at
// most (n + 4)·2^-190 relative to the magnitudes summed.
inline constexpr const char* id_lse002 = "FALSIFY-LSE-002";

template <class T>
void expect_gibbs_with_kernel_entropy(const KernelSet<T>& k, const std::vector<T>& z, const std::vector<mpfr200>& LP) {
  const auto w = *rc::gen::container<std::vector<double>>(z.size(), rc::gen::inRange(0, 1000));
  const double t = *rc::gen::element(1.0, 1.0 / 16, 0x1p-10, 0.0);
  mpfr200 ws = 0;
  for (double v : w) ws += v;
  std::vector<T> p(z.size());
  for (std::size_t i = 0; i < z.size(); ++i) {
    const mpfr200 qi = exp(LP[i]), wi = ws > 0 ? mpfr200(w[i]) / ws : qi;  // all weights 0: p = RN(q)
    p[i] = scalar_traits<T>::from_double(static_cast<double>(oracle::dbl(mpfr200((1 - t) * qi + t * wi))));
  }
  mpfr200 ce = 0, S = 0;
  for (std::size_t i = 0; i < z.size(); ++i) {
    ce -= mp(p[i]) * LP[i];
    S += mp(p[i]);
  }
  RC_PRE(S > 0);
  const mpfr200 slogs = S * log(S);
  const T hk = k.entropy(p.data(), p.size());
  const real h = oracle::entropy(p);
  const real allowed = bounds::entropy_bound(p.size(), bounds::model_of<T>()).allowed(h) +
                       static_cast<real>(z.size() + 4) * std::ldexp(1.0L, -190) * oracle::dbl(mpfr200(ce + abs(slogs) + mp(hk) + 1));
  const real d = oracle::dbl(mpfr200(ce - slogs - mp(hk)));
  observe(ratio(std::max<real>(0, -d), allowed), "Gibbs with the kernel's entropy, t = " + decimal(t) + ", n = " + std::to_string(z.size()));
  if (!(d >= -allowed))
    Report<T>(id_lse002, "entropy<" + scalar_name<T>() + "> of p = RN((1 − t)·softmax(z) + t·w/Σw), t = " + decimal(t) + ", n = " + std::to_string(z.size()))
        .input("z", z).input("p", p).kernel(hk).exact(h, "H(p)")
        .line("Σp_i(lse − z_i) − S·log S − Ĥ(p) = " + decimal(static_cast<double>(d)) + " (S·KL(p/S ‖ softmax z) >= 0 minus the entropy kernel's error)")
        .error(-d, allowed).raise();
}

struct Lse002 {
  static constexpr const char* id = id_lse002;
  static constexpr const char* title = "lse(z) = max_p ⟨z,p⟩ + H(p): with the kernels' entropy the gap is >= 0 for random p, and 0 at the kernel's softmax(z)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto z = draw_row<T>(64);
    const auto Z = oracle::lift(z);
    const mpfr200 L = lse(Z);
    std::vector<mpfr200> LP(Z.size());
    kernels::log_softmax(Z.data(), LP.data(), Z.size());
    // The kernel's softmax first: an audit without a softmax kernel makes the whole test N/A
    // (audit::KindAbsent) in its first case, whatever half (1) would have found.
    const auto p = softmax(k, z);
    expect_gibbs_with_kernel_entropy(k, z, LP);
    // At the kernel's softmax: lse − ⟨z,p̂⟩ = lse(1 − Σp̂) + Σp̂_i(lse − z_i).
    const auto row = oracle::softmax_row(z);
    const auto sb = bounds::softmax_bound(row, bounds::model_of<T>());
    mpfr200 zp = 0, sum = 0;
    real chi = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      zp -= mp(p[i]) * LP[i];
      sum += mp(p[i]);
      const real wi = sb.hi[i] - sb.lo[i];
      if (to_double(p[i]) == 0) chi += row.p[i];
      else chi += row.p[i] > 0 ? wi * wi / row.p[i] : std::numeric_limits<real>::infinity();
    }
    zp += L * (1 - sum);
    const T hk = k.entropy(p.data(), p.size());
    const real h_exact = oracle::entropy(p);
    const real allowed = (oracle::dbl(mpfr200(abs(sum - 1) * (1 + abs(L)))) + chi + bounds::entropy_bound(p.size(), bounds::model_of<T>()).allowed(h_exact)) *
                         bounds::evaluation_slack;
    const real gap = oracle::dbl(mpfr200(zp - mp(hk)));
    observe(ratio(std::abs(gap), allowed), "gap at softmax(z), n = " + std::to_string(z.size()));
    if (!(std::abs(gap) <= allowed))
      Report<T>(id, "softmax<" + scalar_name<T>() + "> and entropy<" + scalar_name<T>() + ">, n = " + std::to_string(z.size())).input("z", z).input("p̂", p)
          .line("lse(z) − ⟨z,p̂⟩ − Ĥ(p̂) = " + decimal(static_cast<double>(gap)) + " (must be 0)").error(std::abs(gap), allowed).raise();
  }
  static inline const bool registered = property::register_property<Lse002>();
};

// ---- LSE-EQV-002: ∇lse = softmax ----------------------------------------------------------------
// 0 <= lse(z + hd) − lse(z) − h⟨softmax z, d⟩ <= h²(max d − min d)²/8 (convexity; Hoeffding's lemma
// for log E_p e^{hd}), so a candidate gradient p̂ may differ from softmax by h Σ|d_i|(hi_i − lo_i).
struct Lse003 {
  static constexpr const char* id = "FALSIFY-LSE-003";
  static constexpr const char* title = "∇lse = softmax: lse(z + hd) − lse(z) − h⟨softmax(z), d⟩ ∈ [0, h²(range d)²/8]";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto [z, d] = draw_row_and_direction<T>();
    const real h = 0x1p-10L;
    const auto p = softmax(k, z);
    const auto sb = bounds::softmax_bound(oracle::softmax_row(z), bounds::model_of<T>());
    // lse(z + hd) − lse(z) = log Σ P_i e^{hd_i} with P = softmax(z) in MPFR: no cancellation of lse(z).
    const auto Z = oracle::lift(z);
    std::vector<mpfr200> P(z.size());
    kernels::softmax(Z.data(), P.data(), Z.size());
    mpfr200 pd = 0, mgf = 0;
    real dmax = -INFINITY, dmin = INFINITY, w = 0;
    for (std::size_t i = 0; i < z.size(); ++i) {
      mgf += P[i] * exp(mpfr200(static_cast<double>(h)) * mp(d[i]));
      pd += mp(p[i]) * mp(d[i]);
      dmax = std::max<real>(dmax, to_double(d[i]));
      dmin = std::min<real>(dmin, to_double(d[i]));
      if (to_double(d[i]) != 0) w += std::abs(static_cast<real>(to_double(d[i]))) * (sb.hi[i] - sb.lo[i]);
    }
    const real diff = oracle::dbl(mpfr200(log(mgf) - mpfr200(static_cast<double>(h)) * pd));
    // The MPFR evaluation itself errs by a few 2^-200 relative to the terms (n + 4 roundings).
    const real eval = static_cast<real>(z.size() + 4) * std::ldexp(1.0L, -195) * (1 + h * std::max(std::abs(dmax), std::abs(dmin)));
    const real second = h * h * (dmax - dmin) * (dmax - dmin) / 8, first = h * w * bounds::evaluation_slack + eval;
    observe(ratio(std::max<real>(0, diff), second + first), "Hoeffding second-order term, n = " + std::to_string(z.size()));
    if (!(diff >= -first) || !(diff <= (second + first) * bounds::evaluation_slack))
      Report<T>(id, "softmax<" + scalar_name<T>() + "> as ∇lse, n = " + std::to_string(z.size())).input("z", z).input("d", d)
          .line("lse(z + hd) − lse(z) − h⟨p̂, d⟩ = " + decimal(static_cast<double>(diff)) + ", allowed [" + decimal(static_cast<double>(-first)) + ", " +
                decimal(static_cast<double>(second + first)) + "], h = 2^-10").raise();
  }
  static inline const bool registered = property::register_property<Lse003>();
};

// ---- LSE-BND-001: the Hessian at inverse temperature λ -------------------------------------------
// f(z) = lse(λz)/λ has ∇f = softmax(λz) and ∇²f = λJ(λz); vᵀ∇²f v = λ·vᵀ(J(λz)v) from the JVP kernel.
struct Lse004 {
  static constexpr const char* id = "FALSIFY-LSE-004";
  static constexpr const char* title = "∇²lse at inverse temperature λ is λ(Diag(p) − ppᵀ): PSD with norm <= λ/2";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const double lambda = *rc::gen::element(0.25, 1.0, 4.0);
    std::vector<T> z, v;
    if (*rc::gen::inRange(0, 3) == 0) {  // near two-point row, v = e_1 − e_2: the norm λ/2 is nearly reached
      const auto n = static_cast<std::size_t>(*rc::gen::inRange(2, 17));
      const T c = gen::to<T>(*gen::moderate_value(format_of<T>, 8));
      z.assign(n, T(c - lit<T>(40)));
      z[0] = z[1] = c;
      v.assign(n, lit<T>(0));
      v[0] = lit<T>(1);
      v[1] = lit<T>(-1);
    } else {
      std::tie(z, v) = draw_row_and_direction<T>();
    }
    std::vector<T> zl(z.size());
    for (std::size_t i = 0; i < z.size(); ++i) {
      zl[i] = z[i] * lit<T>(lambda);  // exact: λ is a power of two, barring overflow and underflow
      RC_PRE(std::isfinite(to_double(zl[i])) && mp(zl[i]) == lambda * mp(z[i]));
    }
    const auto jv = jvp(k, zl, v);
    const auto allowed_i = bounds::softmax_jvp_bound(oracle::softmax_row(zl), widen(v), bounds::model_of<T>());
    mpfr200 q = 0, vv = 0;
    real slack = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
      q += lambda * mp(v[i]) * mp(jv[i]);
      vv += mp(v[i]) * mp(v[i]);
      if (to_double(v[i]) != 0) slack += lambda * std::abs(static_cast<real>(to_double(v[i]))) * allowed_i[i];
    }
    const real quad = oracle::dbl(q), cap = oracle::dbl(mpfr200(lambda * vv / 2));
    slack *= bounds::evaluation_slack;
    observe(ratio(std::max<real>(0, quad), cap), "vᵀ∇²f v/(λ‖v‖²/2), λ = " + decimal(lambda));
    if (!(quad >= -slack) || !(quad <= cap + slack))
      Report<T>(id, "softmax_jvp<" + scalar_name<T>() + "> at λz, λ = " + decimal(lambda)).input("z", z).input("v", v)
          .line("vᵀ∇²f v = " + decimal(static_cast<double>(quad)) + ", λ‖v‖²/2 = " + decimal(static_cast<double>(cap)))
          .error(std::max(-quad, quad - cap), slack).raise();
  }
  static inline const bool registered = property::register_property<Lse004>();
};

// ---- LSE-INV-002: entropy concave ----------------------------------------------------------------
// H is concave on the positive orthant (−t log t is concave), so rows need not sum to 1 exactly.
// r = fl(θp + (1−θ)q): the exact |H(r) − H(θp + (1−θ)q)| is added (the kernel is given r).
struct Lse005 {
  static constexpr const char* id = "FALSIFY-LSE-005";
  static constexpr const char* title = "entropy is concave: H(θp + (1−θ)q) >= θH(p) + (1−θ)H(q) for the entropy kernel";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto x = draw_row<T>(64);
    const auto y = draw_vector<T>(x.size(), 8);
    const auto p = softmax(k, x), q = softmax(k, y);
    const double th = *rc::gen::element(0.25, 0.5, 0.75);
    std::vector<T> r(p.size());
    std::vector<mpfr200> re(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      r[i] = lit<T>(th) * p[i] + lit<T>(1 - th) * q[i];
      re[i] = th * mp(p[i]) + (1 - th) * mp(q[i]);
    }
    mpfr200 hr = 0, hre = 0;
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (mp(r[i]) > 0) hr -= mp(r[i]) * log(mp(r[i]));
      if (re[i] > 0) hre -= re[i] * log(re[i]);
    }
    const auto eb = bounds::entropy_bound(p.size(), bounds::model_of<T>());
    const T h_r = k.entropy(r.data(), r.size()), h_p = k.entropy(p.data(), p.size()), h_q = k.entropy(q.data(), q.size());
    const real excess = oracle::dbl(mpfr200(th * mp(h_p) + (1 - th) * mp(h_q) - mp(h_r)));
    const real allowed = (eb.allowed(oracle::entropy(r)) + th * eb.allowed(oracle::entropy(p)) + (1 - th) * eb.allowed(oracle::entropy(q)) +
                          oracle::dbl(mpfr200(abs(hr - hre)))) * bounds::evaluation_slack;
    observe(ratio(std::max<real>(0, excess), allowed), "concavity, n = " + std::to_string(p.size()));
    if (!(excess <= allowed))
      Report<T>(id, "entropy<" + scalar_name<T>() + ">, θ = " + decimal(th)).input("p", p).input("q", q)
          .line("θĤ(p) + (1−θ)Ĥ(q) − Ĥ(r) = " + decimal(static_cast<double>(excess))).error(excess, allowed).raise();
  }
  static inline const bool registered = property::register_property<Lse005>();
};

}  // namespace

}  // namespace attncheck::falsify
