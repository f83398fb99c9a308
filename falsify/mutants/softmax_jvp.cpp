// attncheck: the mutants of softmax-jvp-v1: wrong softmax-JVP and score kernels, and wrong attention
// Hessian-vector products (FALSIFY-SJVP-008…011), each naming the tests that must fail on it
// (falsify_test checks that they do).
#include <cmath>
#include <vector>

#include "attncheck/property/registry.hpp"
#include "attncheck/kernels/broken.hpp"
#include "attncheck/kernels/attention_hvp.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;

// dy_i = p_i · combine(dx_i, <dx>_p): the reference's shape with the centring step swapped out.
template <class T, class Combine>
void jvp_with(const T* x, const T* dx, std::size_t n, T* dy, Combine combine) {
  if (n == 0) return;
  std::vector<T> p(n);
  kernels::softmax(x, p.data(), n);
  T mean = lit<T>(0);
  for (std::size_t j = 0; j < n; ++j) mean = mean + T(p[j] * dx[j]);
  for (std::size_t i = 0; i < n; ++i) dy[i] = p[i] * combine(dx[i], mean);
}

// The missing mean term: dy = p ⊙ ṡ (Diag(p) without −ppᵀ). Σṗ = ⟨ṡ⟩_p, and ‖ṗ‖ reaches ‖ṡ‖ on
// one-hot rows.
struct MissingMean {
  static constexpr const char* name = "sjvp_missing_mean";
  static constexpr const char* description = "softmax JVP without the mean term: dy = p * ds";
  static std::vector<std::string> caught_by() {
    return {"FALSIFY-SJVP-001", "FALSIFY-SJVP-002", "FALSIFY-SJVP-004", "FALSIFY-SJVP-006", "FALSIFY-SJVP-007"};
  }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax_jvp = kernels::broken::softmax_jvp_missing_mean<T>;
  }
};

// Centres with the plain mean of ṡ instead of the p-weighted one: right on uniform rows only.
// The one mutant of this kind: softmax-lipschitz-v1's J1 = 0 test (FALSIFY-SLIP-001) catches it too.
struct UnweightedMean {
  static constexpr const char* name = "jvp_unweighted_mean";
  static constexpr const char* description = "centres ds with its plain mean (1/n) sum ds_j instead of <ds>_p";
  static std::vector<std::string> caught_by() {
    return {"FALSIFY-SJVP-001", "FALSIFY-SJVP-002", "FALSIFY-SJVP-006", "FALSIFY-SJVP-007", "FALSIFY-SLIP-001"};
  }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax_jvp = [](const T* x, const T* dx, std::size_t n, T* dy) {
      if (n == 0) return;
      kernels::softmax(x, dy, n);
      T mean = lit<T>(0);
      for (std::size_t j = 0; j < n; ++j) mean = mean + dx[j];
      mean = mean / lit<T>(static_cast<double>(n));
      for (std::size_t i = 0; i < n; ++i) dy[i] = dy[i] * T(dx[i] - mean);
    };
  }
};

// Sign error: p ⊙ (⟨ṡ⟩_p − ṡ) = −Jṡ. Still sums to 0 and keeps the norm: only the value, the
// attention derivative and vᵀJv = −Var_p(v) <= 0 give it away.
struct Negated {
  static constexpr const char* name = "sjvp_sign_error";
  static constexpr const char* description = "softmax JVP with the sign flipped: dy = p * (<ds>_p - ds)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-001", "FALSIFY-SJVP-006", "FALSIFY-SJVP-007"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax_jvp = [](const T* x, const T* dx, std::size_t n, T* dy) {
      jvp_with(x, dx, n, dy, [](T d, T mean) { return T(mean - d); });
    };
  }
};

// Sign error on the mean term only: p ⊙ (ṡ + ⟨ṡ⟩_p). Σṗ = 2⟨ṡ⟩_p, and ṗ = 2ṡ on a one-entry row.
struct MeanAdded {
  static constexpr const char* name = "sjvp_mean_added";
  static constexpr const char* description = "adds the weighted mean instead of subtracting it: dy = p * (ds + <ds>_p)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-001", "FALSIFY-SJVP-002", "FALSIFY-SJVP-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax_jvp = [](const T* x, const T* dx, std::size_t n, T* dy) {
      jvp_with(x, dx, n, dy, [](T d, T mean) { return T(d + mean); });
    };
  }
};

// Forgets the outer factor p: ṡ − ⟨ṡ⟩_p. Its norm is about ‖ṡ‖, twice what ‖J‖ <= 1/2 allows.
struct MissingP {
  static constexpr const char* name = "sjvp_missing_p_factor";
  static constexpr const char* description = "softmax JVP without the factor p: dy = ds - <ds>_p";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-001", "FALSIFY-SJVP-002", "FALSIFY-SJVP-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax_jvp = [](const T* x, const T* dx, std::size_t n, T* dy) {
      if (n == 0) return;
      std::vector<T> p(n);
      kernels::softmax(x, p.data(), n);
      T mean = lit<T>(0);
      for (std::size_t j = 0; j < n; ++j) mean = mean + T(p[j] * dx[j]);
      for (std::size_t i = 0; i < n; ++i) dy[i] = dx[i] - mean;
    };
  }
};

// A JVP by forward difference, (softmax(x + hṡ) − softmax(x))/h with h = 2^-8: plausible, close
// for small ṡ, but not linear in ṡ (its error is h/2·D²softmax[ṡ, ṡ] plus rounding/h).
struct FiniteDifference {
  static constexpr const char* name = "sjvp_finite_difference";
  static constexpr const char* description = "softmax JVP by forward difference with step 2^-8";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-001", "FALSIFY-SJVP-003"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax_jvp = [](const T* x, const T* dx, std::size_t n, T* dy) {
      if (n == 0) return;
      const T h = lit<T>(0x1p-8);
      std::vector<T> xh(n), p0(n), p1(n);
      for (std::size_t i = 0; i < n; ++i) xh[i] = x[i] + T(h * dx[i]);
      kernels::softmax(x, p0.data(), n);
      kernels::softmax(xh.data(), p1.data(), n);
      for (std::size_t i = 0; i < n; ++i) dy[i] = T(p1[i] - p0[i]) / h;
    };
  }
};

// Scores multiplied by √d_k instead of divided: S and hence Ṡ = (Q̇Kᵀ + QK̇ᵀ)·√d_k are d_k times
// too large (invisible at d_k = 1).
struct ScoresTimesSqrtD {
  static constexpr const char* name = "scores_times_sqrt_d";
  static constexpr const char* description = "scores = Q K^T * sqrt(d_k): the scale inverted";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-005", "FALSIFY-SJVP-006"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.scores = [](const T* q, const T* kk, std::size_t n, std::size_t m, std::size_t d, T* s) {
      const T scale = sqrt(lit<T>(static_cast<double>(d)));
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j) s[i * m + j] = kernels::dot(q + i * d, kk + j * d, d) * scale;
    };
  }
};

const bool registered = register_mutant<MissingMean>() && register_mutant<UnweightedMean>() &&
                        register_mutant<Negated>() && register_mutant<MeanAdded>() && register_mutant<MissingP>() &&
                        register_mutant<FiniteDifference>() && register_mutant<ScoresTimesSqrtD>();

// The attention Hessian-vector products (FALSIFY-SJVP-008…011).
namespace hessian {

// The reference row of kernels/attention_hvp.hpp with one term switched: curvature keeps
// ȧ_j b'_j − C, cov_sign is the sign C enters with, cross_a/cross_b keep ȧ_j⟨W, V'_j⟩ and
// b'_j⟨W, V̇_j⟩, centre_mixed subtracts ⟨s̈⟩_p, centre_cross centres ṡ, s' in the cross terms.
struct Terms {
  bool curvature = true;
  int cov_sign = -1;
  bool cross_a = true, cross_b = true;
  bool centre_mixed = true, centre_cross = true;
};

template <class T>
T row_variant(const T* s, const T* sa, const T* sb, const T* sab, const T* g, const T* ga, const T* gb, std::size_t L,
              Terms t) {
  std::vector<T> p(L), ca(L), cb(L);
  kernels::softmax(s, p.data(), L);
  T mu_a = lit<T>(0), mu_b = lit<T>(0), mu_ab = lit<T>(0), cov = lit<T>(0);
  for (std::size_t j = 0; j < L; ++j) {
    mu_a = mu_a + T(p[j] * sa[j]);
    mu_b = mu_b + T(p[j] * sb[j]);
    mu_ab = mu_ab + T(p[j] * sab[j]);
  }
  for (std::size_t j = 0; j < L; ++j) {
    ca[j] = sa[j] - mu_a;
    cb[j] = sb[j] - mu_b;
    cov = cov + T(p[j] * T(ca[j] * cb[j]));
  }
  const T zero = lit<T>(0);
  T h = zero;
  for (std::size_t j = 0; j < L; ++j) {
    const T second = t.curvature ? T(T(ca[j] * cb[j]) + T(t.cov_sign > 0 ? cov : T(-cov))) : zero;
    const T mixed = t.centre_mixed ? T(sab[j] - mu_ab) : sab[j];
    const T xa = t.centre_cross ? ca[j] : sa[j], xb = t.centre_cross ? cb[j] : sb[j];
    const T cross = T(t.cross_a ? T(xa * gb[j]) : zero) + T(t.cross_b ? T(xb * ga[j]) : zero);
    h = h + T(p[j] * T(T(g[j] * T(second + mixed)) + cross));
  }
  return h;
}

template <class T, class M>
void set_row(KernelSet<T>& k) {
  k.attention_hvp = [](const T* q, const T* kk, const T* v, const T* w, kernels::HeadDirection<T> a,
                       kernels::HeadDirection<T> b, std::size_t n, std::size_t m, std::size_t d, std::size_t dv,
                       bool causal) {
    const auto row = [](const T* s, const T* sa, const T* sb, const T* sab, const T* g, const T* ga, const T* gb,
                        std::size_t L) { return row_variant(s, sa, sb, sab, g, ga, gb, L, M::terms()); };
    return kernels::attention_hvp_with<T>(row, q, kk, v, w, a, b, n, m, d, dv, causal);
  };
}

// Drops softmax's own curvature ȧ_j b'_j − C: keeps only what the first-order chain rule gives.
struct MissingCurvature {
  static constexpr const char* name = "hvp_missing_softmax_curvature";
  static constexpr const char* description = "attention HVP without the second-order softmax term p(ȧb' − Cov_p(ȧ, b'))";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-008"}; }
  static Terms terms() { Terms t; t.curvature = false; return t; }
  template <class T> static void apply(KernelSet<T>& k) { set_row<T, MissingCurvature>(k); }
};

// The covariance added instead of subtracted: D²p_j[a, b] = p_j(ȧ_j b'_j + C). Symmetric, and
// zero along the null directions, so only the comparison with autodiff sees it.
struct CovarianceSign {
  static constexpr const char* name = "hvp_covariance_sign_error";
  static constexpr const char* description = "attention HVP with +Cov_p instead of -Cov_p in the softmax curvature";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-008"}; }
  static Terms terms() { Terms t; t.cov_sign = +1; return t; }
  template <class T> static void apply(KernelSet<T>& k) { set_row<T, CovarianceSign>(k); }
};

// Drops both V–score cross terms ṗ⟨W, V'⟩ + p'⟨W, V̇⟩ (the mixed V–K and V–Q blocks of ∇²L).
struct MissingValueCross {
  static constexpr const char* name = "hvp_missing_value_cross_terms";
  static constexpr const char* description = "attention HVP without the V-K/V-Q cross terms";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-008"}; }
  static Terms terms() { Terms t; t.cross_a = t.cross_b = false; return t; }
  template <class T> static void apply(KernelSet<T>& k) { set_row<T, MissingValueCross>(k); }
};

// Keeps one cross term only (ȧ⟨W, V'⟩, not b'⟨W, V̇⟩): the form is no longer symmetric.
struct OneSidedCross {
  static constexpr const char* name = "hvp_one_sided_value_cross";
  static constexpr const char* description = "attention HVP with only the a-side V cross term (asymmetric)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-008", "FALSIFY-SJVP-009"}; }
  static Terms terms() { Terms t; t.cross_b = false; return t; }
  template <class T> static void apply(KernelSet<T>& k) { set_row<T, OneSidedCross>(k); }
};

// The mixed score s̈ enters uncentred: p ⊙ s̈ instead of J s̈. A row-constant s̈ (keys shifted by
// a common vector) then moves the loss, which it cannot.
struct UncentredMixed {
  static constexpr const char* name = "hvp_uncentred_mixed_score";
  static constexpr const char* description = "attention HVP with p*s'' instead of p*(s'' - <s''>_p)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-008", "FALSIFY-SJVP-011"}; }
  static Terms terms() { Terms t; t.centre_mixed = false; return t; }
  template <class T> static void apply(KernelSet<T>& k) { set_row<T, UncentredMixed>(k); }
};

// The cross terms use ṗ = p ⊙ ṡ (the softmax JVP without its mean): Σṗ ≠ 0, so shifting every
// value by a common vector changes the result.
struct UncentredCross {
  static constexpr const char* name = "hvp_cross_terms_missing_mean";
  static constexpr const char* description = "attention HVP whose V cross terms use p*s' instead of p*(s' - <s'>_p)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-008", "FALSIFY-SJVP-011"}; }
  static Terms terms() { Terms t; t.centre_cross = false; return t; }
  template <class T> static void apply(KernelSet<T>& k) { set_row<T, UncentredCross>(k); }
};

// The HVP by a second-order finite difference of the loss with step h = 2^-8:
// (L(x + ha + hb) − L(x + ha) − L(x + hb) + L(x))/h². Truncation O(h) and rounding O(u/h²): close
// but not the derivative, and not 0 along V–V, where L is linear.
struct FiniteDifference {
  static constexpr const char* name = "hvp_finite_difference";
  static constexpr const char* description = "attention HVP by a second-order forward difference of the loss, h = 2^-8";
  static std::vector<std::string> caught_by() { return {"FALSIFY-SJVP-008", "FALSIFY-SJVP-010"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.attention_hvp = [](const T* q, const T* kk, const T* v, const T* w, kernels::HeadDirection<T> a,
                         kernels::HeadDirection<T> b, std::size_t n, std::size_t m, std::size_t d, std::size_t dv,
                         bool causal) {
      const T h = lit<T>(0x1p-8);
      const auto loss = [&](T ta, T tb) {
        std::vector<T> Q(n * d), K(m * d), V(m * dv), O(n * dv);
        for (std::size_t i = 0; i < Q.size(); ++i) Q[i] = q[i] + T(T(ta * a.q[i]) + T(tb * b.q[i]));
        for (std::size_t i = 0; i < K.size(); ++i) K[i] = kk[i] + T(T(ta * a.k[i]) + T(tb * b.k[i]));
        for (std::size_t i = 0; i < V.size(); ++i) V[i] = v[i] + T(T(ta * a.v[i]) + T(tb * b.v[i]));
        kernels::attention(Q.data(), K.data(), V.data(), n, m, d, dv, causal, O.data());
        T l = lit<T>(0);
        for (std::size_t i = 0; i < O.size(); ++i) l = l + T(w[i] * O[i]);
        return l;
      };
      const T z = lit<T>(0);
      return T(T(T(loss(h, h) - loss(h, z)) - T(loss(z, h) - loss(z, z))) / T(h * h));
    };
  }
};

const bool registered = register_mutant<MissingCurvature>() && register_mutant<CovarianceSign>() &&
                        register_mutant<MissingValueCross>() && register_mutant<OneSidedCross>() &&
                        register_mutant<UncentredMixed>() && register_mutant<UncentredCross>() &&
                        register_mutant<FiniteDifference>();
}  // namespace hessian
}  // namespace
}  // namespace attncheck::mutants
