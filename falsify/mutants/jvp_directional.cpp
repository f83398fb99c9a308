// attncheck: wrong softmax-JVP and score kernels that softmax-jvp-v1's tests must catch
// (each names the FALSIFY-SJVP tests that fail on it; falsify_test checks that they do).
#include <vector>

#include "attncheck/check/registry.hpp"

namespace attncheck::mutants {
namespace {
using check::register_mutant;

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
    k.softmax_jvp = [](const T* x, const T* dx, std::size_t n, T* dy) { jvp_with(x, dx, n, dy, [](T d, T) { return d; }); };
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
}  // namespace
}  // namespace attncheck::mutants
