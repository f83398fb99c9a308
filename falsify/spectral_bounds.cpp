// attncheck: falsification tests of spectral-bounds-v1 (contracts/spectral-bounds-v1.yaml).
// Obligations: SPEC-EQV-001 Σσ_i² = ‖A‖_F², SPEC-BND-001 σ_k² <= ‖A‖_F²/k, SPEC-EQV-002 the
// rank-(k−1) truncation errs by σ_k (spectral) and √(Σ_{i>=k} σ_i²) (Frobenius), SPEC-BND-002
// Weyl, SPEC-BND-003 ‖·‖₂ <= ‖·‖_F and submultiplicativity, SPEC-EQV-003 the Jacobi SVD's accuracy.
// The SVD under test runs in T (f32, f64); the reference is the same kernel at mpfr200, whose own
// a-priori bound (u = 2^-200) is part of every allowance. All norms of exact matrices (A, residuals)
// are evaluated in mpfr200 from the T entries, which convert exactly.
#include <cmath>
#include <string>
#include <vector>

#include "attncheck/bounds/svd.hpp"
#include "attncheck/linalg/svd.hpp"
#include "attncheck/property/property.hpp"
#include "falsify/svd_kernels.hpp"
#include "falsify/svd_support.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using namespace svdcheck;  // NOLINT: the helpers of svd_support.hpp
using bounds::real;
using linalg::Matrix;

// A rows×cols matrix of T: dense random; rank one (an outer product, rounded); diagonal with a
// repeated value (equal singular values); or random with one column a copy of another (rank-deficient).
template <class T>
Matrix<T> draw_matrix(double sigma = 4) {
  const auto rows = static_cast<std::size_t>(*rc::gen::inRange(1, 9)), cols = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  const int kind = *rc::gen::inRange(0, 6);
  Matrix<T> a(rows, cols);
  if (kind == 3) {
    const auto x = draw_vector<T>(rows, sigma), y = draw_vector<T>(cols, 1);
    for (std::size_t i = 0; i < rows; ++i)
      for (std::size_t j = 0; j < cols; ++j) a(i, j) = x[i] * y[j];
  } else if (kind == 4) {
    const auto d = draw_vector<T>(std::min(rows, cols), sigma);
    for (std::size_t i = 0; i < d.size(); ++i) a(i, i) = d[i / 2 * 2];  // pairs of equal entries
  } else {
    a.a = draw_vector<T>(rows * cols, sigma);
    if (kind == 5 && cols > 1)
      for (std::size_t i = 0; i < rows; ++i) a(i, cols - 1) = a(i, 0);
  }
  return a;
}

const std::vector<Dtype> svd_dtypes = {Dtype::f32, Dtype::f64};

// ---- SPEC-EQV-001: Σ s_i² = ‖A‖_F² ----------------------------------------------------------------
// ‖W‖_F is within ρ_F of ‖A‖_F (rotations keep the Frobenius norm) and each s_j within e of c_j.
struct Spec001 {
  static constexpr const char* id = "FALSIFY-SPEC-001";
  static constexpr const char* title = "energy identity: Σσ_i² = ‖A‖_F² for the SVD kernel, within its derived bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto lk = linalg_for(k);
    const auto a = draw_matrix<T>();
    const auto c = certify<T>(id, lk, a);
    mpfr200 e2 = 0;
    for (const T& s : c.d.s) e2 += mpfr200(to_double(s)) * mpfr200(to_double(s));
    const real fa2 = val(mpfr200(linalg::frobenius_squared(exact(a))));
    const real err = std::abs(val(mpfr200(e2 - linalg::frobenius_squared(exact(a)))));
    real allowed = c.b.w_drift * (2 * c.frob_a + c.b.w_drift);
    for (real cj : c.col) allowed += (2 * cj + c.b.norm_error) * c.b.norm_error;
    allowed *= bounds::evaluation_slack;
    if (!c.b.bounded) allowed = std::numeric_limits<real>::infinity();
    observe(ratio(err, allowed), "Σs² vs ‖A‖_F², " + shape(a.rows, a.cols));
    if (!(err <= allowed))
      report(id, "svd<" + scalar_name<T>() + ">, " + shape(a.rows, a.cols), a)
          .line("s = " + values(c.d.s) + ", Σs² = " + decimal(static_cast<double>(val(e2))) + ", ‖A‖_F² = " + decimal(static_cast<double>(fa2)))
          .error(err, allowed).raise();
  }
  static inline const bool registered = property::register_property<Spec001>(svd_dtypes);
};

// ---- SPEC-EQV-003: the kernel's singular values against the reference ---------------------------
struct Spec002 {
  static constexpr const char* id = "FALSIFY-SPEC-002";
  static constexpr const char* title = "the Jacobi SVD's singular values are within the derived bound of the exact ones (MPFR)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto lk = linalg_for(k);
    const auto a = draw_matrix<T>();
    const auto c = certify<T>(id, lk, a);
    const auto r = reference(id, a);
    for (std::size_t i = 0; i < c.d.s.size(); ++i) {
      const real err = std::abs(val(mpfr200(mpfr200(to_double(c.d.s[i])) - r.d.s[i])));
      const real allowed = (c.b.value + r.b.value) * bounds::evaluation_slack;
      observe(ratio(err, allowed), "σ_" + std::to_string(i + 1) + " of " + shape(a.rows, a.cols));
      if (!(err <= allowed))
        report(id, "svd<" + scalar_name<T>() + ">, σ_" + std::to_string(i + 1) + " of " + shape(a.rows, a.cols), a)
            .line("kernel s = " + values(c.d.s)).line("exact  σ = " + values(r.d.s) + "  (Jacobi at mpfr200)")
            .line(std::to_string(c.d.rotations) + " rotations, ω = " + decimal(static_cast<double>(c.b.omega)))
            .error(err, allowed).raise();
    }
  }
  static inline const bool registered = property::register_property<Spec002>(svd_dtypes);
};

// ---- SPEC-BND-001: σ_k <= ‖A‖_F/√k ----------------------------------------------------------------
struct Spec003 {
  static constexpr const char* id = "FALSIFY-SPEC-003";
  static constexpr const char* title = "σ_k² <= ‖A‖_F²/k for every k: the kernel's s_k <= ‖A‖_F/√k within its derived bound";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto lk = linalg_for(k);
    const auto a = draw_matrix<T>();
    const auto c = certify<T>(id, lk, a);
    const mpfr200 fa = linalg::frobenius(exact(a));
    for (std::size_t i = 0; i < c.d.s.size(); ++i) {
      const mpfr200 cap = fa / sqrt(mpfr200(i + 1));
      const real excess = val(mpfr200(mpfr200(to_double(c.d.s[i])) - cap));
      const real allowed = c.b.value * bounds::evaluation_slack;
      observe(ratio(std::max<real>(0, excess), allowed), "s_k vs ‖A‖_F/√k, k = " + std::to_string(i + 1));
      if (!(excess <= allowed))
        report(id, "svd<" + scalar_name<T>() + ">, k = " + std::to_string(i + 1) + " of " + shape(a.rows, a.cols), a)
            .line("s = " + values(c.d.s) + ", ‖A‖_F/√k = " + decimal(static_cast<double>(val(cap))))
            .error(excess, allowed).raise();
    }
  }
  static inline const bool registered = property::register_property<Spec003>(svd_dtypes);
};

// ---- SPEC-EQV-002: the rank-(k−1) truncation ------------------------------------------------------
// B̂ = truncate(svd(A), k−1) in T; R = A − B̂ exactly. The exact B = W_{<k}V_{<k}ᵀ has rank <= k−1,
// so by Eckart–Young–Mirsky ‖A − B‖₂ >= σ_k and ‖A − B‖_F >= √(Σ_{i>=k} σ_i²); B̂ is B up to the
// truncation's own rounding, round = γ_{k−1}‖W_{<k}‖_F‖V_{<k}‖_F + (k−1)η√(mn). Upper sides:
// A − B̂ = (A − WVᵀ) + (B − B̂) + W_{>=k}V_{>=k}ᵀ, the first term at most g = ‖A‖_F ε_V + ρ_F(1 + ε_V),
// the last at most (√(1+ω)(σ_k + a + e) + ‖Z‖_F)(1+ε_V) in the 2-norm and (1+ε_V)(√(Σ_{i>=k}σ_i²) + √(r−k+1)(a + e))
// in the Frobenius norm. σ come from the reference, which adds its own bound.
struct Spec004 {
  static constexpr const char* id = "FALSIFY-SPEC-004";
  static constexpr const char* title = "the rank-(k-1) truncated SVD has spectral error σ_k and Frobenius error √(Σ_{i>=k} σ_i²)";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto lk = linalg_for(k);
    const auto a = draw_matrix<T>();
    const auto c = certify<T>(id, lk, a);
    const auto ref = reference(id, a);
    const std::size_t r = c.d.s.size();
    const auto kk = static_cast<std::size_t>(*rc::gen::inRange<int>(1, static_cast<int>(r) + 1));
    const Matrix<T> bhat = lk.truncate(c.d, kk - 1);
    const M200 res = linalg::subtract(exact(a), exact(bhat));
    const auto rs = run_svd<mpfr200>([](const M200& m) { return linalg::jacobi_svd<mpfr200>(m); }, res);
    if (!rs.problem.empty()) report(id, "reference svd<mpfr200> of the residual: " + rs.problem, a).raise();
    const real spec = val(rs.d.s[0]), fro = frob(res);
    const real sk = val(ref.d.s[kk - 1]);
    mpfr200 tail2 = 0;
    for (std::size_t i = kk - 1; i < r; ++i) tail2 += ref.d.s[i] * ref.d.s[i];
    const real tail = val(mpfr200(sqrt(tail2)));
    // The kernel-side terms of the upper bounds.
    const bool tall = a.rows >= a.cols;
    const Matrix<T>& w = tall ? c.d.w : c.d.v;
    const Matrix<T>& v = tall ? c.d.v : c.d.w;
    mpfr200 wl = 0, vl = 0;
    for (std::size_t j = 0; j + 1 < kk; ++j) {
      for (std::size_t i = 0; i < w.rows; ++i) wl += mpfr200(to_double(w(i, j))) * mpfr200(to_double(w(i, j)));
      for (std::size_t i = 0; i < v.rows; ++i) vl += mpfr200(to_double(v(i, j))) * mpfr200(to_double(v(i, j)));
    }
    const auto md = bounds::model_of<T>();
    const real eps_v = c.b.v_drift, g = c.frob_a * eps_v + c.b.w_drift * (1 + eps_v);
    const real round = bounds::gamma(kk - 1, md.u) * val(mpfr200(sqrt(wl) * sqrt(vl))) +
                       static_cast<real>(kk - 1) * md.eta * std::sqrt(static_cast<real>(a.rows * a.cols));
    const real ae = c.b.value + c.b.norm_error, tails = std::sqrt(static_cast<real>(r - kk + 1));
    const real spec_hi = g + round + (std::sqrt(1 + c.b.omega) * (sk + ref.b.value + ae) + c.b.negligible) * (1 + eps_v) + rs.b.value;
    const real fro_hi = g + round + (1 + eps_v) * (tail + tails * (ref.b.value + ae));
    const real spec_lo = sk - ref.b.value - rs.b.value - round, fro_lo = tail - tails * ref.b.value - round;
    const real slack = bounds::evaluation_slack;
    observe(ratio(std::max<real>(0, std::max(spec_lo - spec, spec - sk)), (spec_hi - sk) * slack), "‖A − A_{k−1}‖₂ vs σ_k");
    observe(ratio(std::max<real>(0, std::max(fro_lo - fro, fro - tail)), (fro_hi - tail) * slack), "‖A − A_{k−1}‖_F vs tail");
    const bool ok = c.b.bounded && spec >= sk - (sk - spec_lo) * slack && spec <= sk + (spec_hi - sk) * slack &&
                    fro >= tail - (tail - fro_lo) * slack && fro <= tail + (fro_hi - tail) * slack;
    if (!ok && c.b.bounded)
      report(id, "truncate<" + scalar_name<T>() + ">(svd, k − 1 = " + std::to_string(kk - 1) + ") of " + shape(a.rows, a.cols), a)
          .line("σ = " + values(ref.d.s) + " (reference)")
          .line("‖A − B̂‖₂ = " + decimal(static_cast<double>(spec)) + ", allowed [" + decimal(static_cast<double>(spec_lo)) + ", " +
                decimal(static_cast<double>(spec_hi)) + "] around σ_k = " + decimal(static_cast<double>(sk)))
          .line("‖A − B̂‖_F = " + decimal(static_cast<double>(fro)) + ", allowed [" + decimal(static_cast<double>(fro_lo)) + ", " +
                decimal(static_cast<double>(fro_hi)) + "] around √(Σ_{i>=k}σ_i²) = " + decimal(static_cast<double>(tail)))
          .raise();
  }
  static inline const bool registered = property::register_property<Spec004>(svd_dtypes);
};

// ---- SPEC-BND-002: Weyl ---------------------------------------------------------------------------
// A' = fl(A + E) in T, the perturbation actually applied is A' − A (exact). Half the cases use
// E = εA, where Weyl is an equality for σ_1: σ_1((1+ε)A) − σ_1(A) = εσ_1(A) = ‖E‖₂.
struct Spec005 {
  static constexpr const char* id = "FALSIFY-SPEC-005";
  static constexpr const char* title = "Weyl: |σ_i(A + E) − σ_i(A)| <= ‖E‖₂ <= ‖E‖_F for the kernel's singular values";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto lk = linalg_for(k);
    const auto a = draw_matrix<T>();
    const double eps = *rc::gen::element(1e-3, 0.03, 0.5);
    Matrix<T> a2 = a;
    const bool scaled = *rc::gen::arbitrary<bool>();
    const auto e = draw_vector<T>(a.a.size(), 4 * eps);
    for (std::size_t i = 0; i < a.a.size(); ++i)
      a2.a[i] = scaled ? T(a.a[i] + a.a[i] * lit<T>(eps)) : T(a.a[i] + e[i]);
    const auto c = certify<T>(id, lk, a), c2 = certify<T>(id, lk, a2);
    const M200 ex = linalg::subtract(exact(a2), exact(a));
    const auto re = run_svd<mpfr200>([](const M200& m) { return linalg::jacobi_svd<mpfr200>(m); }, ex);
    const real e2 = val(re.d.s[0]) + re.b.value, ef = frob(ex);
    if (!(val(re.d.s[0]) - re.b.value <= ef * bounds::evaluation_slack))
      report(id, "reference: ‖E‖₂ > ‖E‖_F", a).raise();
    for (std::size_t i = 0; i < c.d.s.size(); ++i) {
      const real diff = std::abs(val(mpfr200(mpfr200(to_double(c2.d.s[i])) - mpfr200(to_double(c.d.s[i])))));
      const real allowed = (e2 + c.b.value + c2.b.value) * bounds::evaluation_slack;
      observe(ratio(diff, allowed), std::string(scaled ? "E = εA" : "random E") + ", σ_" + std::to_string(i + 1));
      if (!(diff <= allowed))
        report(id, "svd<" + scalar_name<T>() + ">, σ_" + std::to_string(i + 1) + " of A and A + E, " + shape(a.rows, a.cols), a)
            .input("A + E", a2.a).line("s(A) = " + values(c.d.s) + ", s(A + E) = " + values(c2.d.s))
            .line("‖E‖₂ = " + decimal(static_cast<double>(val(re.d.s[0]))) + " (reference), ‖E‖_F = " + decimal(static_cast<double>(ef)))
            .error(diff, allowed).raise();
    }
  }
  static inline const bool registered = property::register_property<Spec005>(svd_dtypes);
};

// ---- SPEC-BND-003: ‖M‖₂ <= ‖M‖_F, ‖MN‖_F <= ‖M‖₂‖N‖_F, ‖MN‖_F <= ‖M‖_F‖N‖₂, ‖MN‖₂ <= ‖M‖₂‖N‖₂ --------
// ‖·‖₂ of M and N from the kernel (s_1 ± a); MN and every Frobenius norm exactly; ‖MN‖₂ from the reference.
struct Spec006 {
  static constexpr const char* id = "FALSIFY-SPEC-006";
  static constexpr const char* title = "‖M‖₂ <= ‖M‖_F and ‖MN‖ <= ‖M‖‖N‖ in the mixed spectral/Frobenius forms";
  template <class T>
  static void check(const KernelSet<T>& k) {
    const auto lk = linalg_for(k);
    const auto m = draw_matrix<T>();
    const auto cols = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
    Matrix<T> n(m.cols, cols);
    n.a = draw_vector<T>(m.cols * cols, 4);
    const auto cm = certify<T>(id, lk, m), cn = certify<T>(id, lk, n);
    const M200 mn = linalg::multiply(exact(m), exact(n));
    const auto rmn = run_svd<mpfr200>([](const M200& x) { return linalg::jacobi_svd<mpfr200>(x); }, mn);
    const real m2 = to_double(cm.d.s[0]), n2 = to_double(cn.d.s[0]), am = cm.b.value, an = cn.b.value;
    const real mf = cm.frob_a, nf = cn.frob_a, mnf = frob(mn), mn2 = val(rmn.d.s[0]) - rmn.b.value;
    const real slack = bounds::evaluation_slack;
    struct Claim { const char* what; real lhs, rhs; };
    const Claim claims[] = {{"‖M‖₂ <= ‖M‖_F", m2 - am, mf},
                            {"‖MN‖_F <= ‖M‖₂‖N‖_F", mnf, (m2 + am) * nf},
                            {"‖MN‖_F <= ‖M‖_F‖N‖₂", mnf, mf * (n2 + an)},
                            {"‖MN‖₂ <= ‖M‖₂‖N‖₂", mn2, (m2 + am) * (n2 + an)}};
    for (const Claim& cl : claims) {
      observe(ratio(std::max<real>(0, cl.lhs), cl.rhs * slack), cl.what);
      if (!(cl.lhs <= cl.rhs * slack))
        report(id, std::string(cl.what) + " with svd<" + scalar_name<T>() + ">, M " + shape(m.rows, m.cols) + ", N " + shape(n.rows, n.cols), m)
            .input("N", n.a).line("s(M) = " + values(cm.d.s) + ", s(N) = " + values(cn.d.s))
            .line("lhs " + decimal(static_cast<double>(cl.lhs)) + " > rhs " + decimal(static_cast<double>(cl.rhs)) + " (kernel bounds a_M = " +
                  decimal(static_cast<double>(am)) + ", a_N = " + decimal(static_cast<double>(an)) + " included)")
            .raise();
    }
  }
  static inline const bool registered = property::register_property<Spec006>(svd_dtypes);
};

}  // namespace

}  // namespace attncheck::falsify
