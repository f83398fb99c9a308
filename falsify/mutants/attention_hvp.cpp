// attncheck: wrong attention Hessian-vector products that softmax-jvp-v1's HVP tests must catch
// (FALSIFY-SJVP-008…011; each names the tests that fail on it; falsify_test checks that they do).
#include <cmath>
#include <vector>

#include "attncheck/check/registry.hpp"
#include "attncheck/kernels/attention_hvp.hpp"

namespace attncheck::mutants {
namespace {
using check::register_mutant;

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
}  // namespace
}  // namespace attncheck::mutants
