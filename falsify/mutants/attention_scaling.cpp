// attncheck: wrong score, entropy and attention kernels that attention-scaling-v1's tests must catch.
#include <cmath>
#include <vector>

#include "attncheck/bounds/entropy.hpp"
#include "attncheck/property/registry.hpp"
#include "attncheck/kernels/broken.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;

template <class T, class Scale>
void scores_with(const T* q, const T* k, std::size_t n, std::size_t m, std::size_t d, T* s, Scale scale) {
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < m; ++j) s[i * m + j] = scale(kernels::dot(q + i * d, k + j * d, d), d);
}

struct ScoresUnscaled {
  static constexpr const char* name = "scores_unscaled";
  static constexpr const char* description = "scores = Q K^T without the 1/sqrt(d_k) factor";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-001", "FALSIFY-ASCL-002", "FALSIFY-ASCL-006"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.scores = kernels::broken::scores_unscaled<T>;
  }
};

struct ScoresDividedByD {
  static constexpr const char* name = "scores_divided_by_d";
  static constexpr const char* description = "scores = Q K^T / d_k (variance shrinks to 1/d_k)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-001", "FALSIFY-ASCL-006"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.scores = [](const T* q, const T* kk, std::size_t n, std::size_t m, std::size_t d, T* s) {
      scores_with(q, kk, n, m, d, s, [](T v, std::size_t dd) { return T(v / lit<T>(static_cast<double>(dd))); });
    };
  }
};

// Scale errors that FALSIFY-ASCL-001 must detect (falsify/attention_scaling.cpp and
// falsify/variance_test.hpp derive its power): +8 % is above what one case of the per-case test
// detects with probability >= 1/2 (about +8.7 %, N = 4096) and what a 200-case run of it detects
// with probability >= 1 - 1e-9 (about +7.1 %); +2 % is caught only by the pooled test, which at
// 200 cases detects about +1 % with probability >= 1 - 1e-9 at f32 and f64.
template <class T>
void scores_scaled(const T* q, const T* kk, std::size_t n, std::size_t m, std::size_t d, T* s, double factor) {
  kernels::scores(q, kk, n, m, d, s);
  for (std::size_t i = 0; i < n * m; ++i) s[i] = T(s[i] * lit<T>(factor));
}

struct ScoresScale8PercentHigh {
  static constexpr const char* name = "scores_scale_8pc_high";
  static constexpr const char* description = "scores = 1.08 · Q K^T / sqrt(d_k) (variance 1.166)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-001"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.scores = [](const T* q, const T* kk, std::size_t n, std::size_t m, std::size_t d, T* s) { scores_scaled(q, kk, n, m, d, s, 1.08); };
  }
};

struct ScoresScale2PercentHigh {
  static constexpr const char* name = "scores_scale_2pc_high";
  static constexpr const char* description = "scores = 1.02 · Q K^T / sqrt(d_k) (variance 1.0404)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-001"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.scores = [](const T* q, const T* kk, std::size_t n, std::size_t m, std::size_t d, T* s) { scores_scaled(q, kk, n, m, d, s, 1.02); };
  }
};

// Writes S transposed: s[j*n + i]. Invisible when n = m and Q = K.
struct ScoresTransposed {
  static constexpr const char* name = "scores_transposed";
  static constexpr const char* description = "writes S^T (s[j*n+i]) into the n x m output";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-006"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.scores = [](const T* q, const T* kk, std::size_t n, std::size_t m, std::size_t d, T* s) {
      const T scale = sqrt(lit<T>(static_cast<double>(d)));
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < m; ++j) s[j * n + i] = kernels::dot(q + i * d, kk + j * d, d) / scale;
    };
  }
};

struct EntropySignFlipped {
  static constexpr const char* name = "entropy_sign_flipped";
  static constexpr const char* description = "returns sum p log p (the negative entropy)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-003", "FALSIFY-ASCL-005", "FALSIFY-LSE-002", "FALSIFY-LSE-005"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.entropy = kernels::broken::entropy_sign_flipped<T>;
  }
};

// No 0·log 0 = 0 convention: an underflowed probability gives 0·(-inf) = NaN.
struct EntropyLogZero {
  static constexpr const char* name = "entropy_log_of_zero";
  static constexpr const char* description = "computes -p log p also for p = 0 (0 * -inf = NaN)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-003", "FALSIFY-ASCL-007"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.entropy = kernels::broken::entropy_unguarded<T>;
  }
};

struct EntropyLog2 {
  static constexpr const char* name = "entropy_in_bits";
  static constexpr const char* description = "entropy in bits (log2) where the contract says nats";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-007"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.entropy = [](const T* p, std::size_t n) { return T(kernels::entropy(p, n) / lit<T>(0.6931471805599453)); };
  }
};

// Right formula, a few ULPs too high: Ĥ·(1 + 4ρ_H), four times the relative part of the derived
// bound (bounds/entropy.hpp), so at least 3ρ_H·H beyond the exact value while the bound allows ρ_H·H
// + a_H (times 1 + 2^-8). Only an accuracy check against the oracle sees it: H stays in [0, ln n]
// up to the same allowance that ASCL-BND-003 grants. FALSIFY-LSE-002's random-p half sees it too
// (Gibbs' inequality at p = RN(softmax z), where KL is O(u²)).
struct EntropyFewUlpsHigh {
  static constexpr const char* name = "entropy_few_ulps_high";
  static constexpr const char* description = "entropy times (1 + 4 rho_H): a few ULPs beyond the derived bound";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-008", "FALSIFY-LSE-002"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.entropy = [](const T* p, std::size_t n) {
      const double rel = static_cast<double>(bounds::entropy_bound(n, bounds::model_of<T>()).rel);
      return scalar_traits<T>::from_double(to_double(kernels::entropy(p, n)) * (1 + 4 * rel));
    };
  }
};

// Attention whose scores are divided by d instead of √d: the query is pre-scaled by 1/√d (in T)
// before the reference kernel divides by √d again. Right at d = 1 and for rows of equal scores.
struct AttentionDividedByD {
  static constexpr const char* name = "attention_scores_divided_by_d";
  static constexpr const char* description = "attention with softmax(QK^T/d)V: scores divided by d_k, not sqrt(d_k)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-ASCL-009"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.attention = [](const T* q, const T* kk, const T* v, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal,
                     T* o) {
      const T scale = sqrt(lit<T>(static_cast<double>(d)));
      std::vector<T> qs(q, q + n * d);
      for (T& x : qs) x = T(x / scale);
      kernels::attention(qs.data(), kk, v, n, m, d, dv, causal, o);
    };
  }
};

const bool registered = register_mutant<ScoresUnscaled>() && register_mutant<ScoresDividedByD>() &&
                        register_mutant<ScoresScale8PercentHigh>() && register_mutant<ScoresScale2PercentHigh>() &&
                        register_mutant<ScoresTransposed>() && register_mutant<EntropySignFlipped>() &&
                        register_mutant<EntropyLogZero>() && register_mutant<EntropyLog2>() &&
                        register_mutant<EntropyFewUlpsHigh>() && register_mutant<AttentionDividedByD>();
}  // namespace
}  // namespace attncheck::mutants
