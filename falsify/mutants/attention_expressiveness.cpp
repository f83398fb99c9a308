// attncheck: wrong attention kernels that the attention-expressiveness-v1 tests must catch.
// kernels::attention calls kernels::softmax directly, so softmax-slot mutants never reach it:
// these replace the `attention` slot. A sharper kernel passes every lower bound on α and is caught
// only by the least-length (tightness) tests; a flatter one fails the lower bounds.
#include <vector>

#include "attncheck/property/registry.hpp"

namespace attncheck::mutants {
namespace {

// The reference kernel on a query matrix scaled by f (each q entry times f).
template <class T>
void attention_query_scaled(const T* q, const T* k, const T* v, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal, T* o,
                            T f) {
  std::vector<T> qs(q, q + n * d);
  for (T& x : qs) x = x * f;
  kernels::attention(qs.data(), k, v, n, m, d, dv, causal, o);
}

struct AttentionUnscaled {
  static constexpr const char* name = "attention_unscaled";
  static constexpr const char* description = "attention without the 1/√d scaling of the scores (softmax(QKᵀ)V)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-EXPR-002", "FALSIFY-EXPR-004", "FALSIFY-EXPR-005", "FALSIFY-EXPR-007"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.attention = [](const T* q, const T* kk, const T* v, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal, T* o) {
      attention_query_scaled(q, kk, v, n, m, d, dv, causal, o, sqrt(lit<T>(static_cast<double>(d))));
    };
  }
};

struct AttentionHotTemperature {
  static constexpr const char* name = "attention_temperature_2";
  static constexpr const char* description = "attention at temperature 2: scores QKᵀ/(2√d)";
  static std::vector<std::string> caught_by() {
    return {"FALSIFY-EXPR-001", "FALSIFY-EXPR-003", "FALSIFY-EXPR-005", "FALSIFY-EXPR-006", "FALSIFY-EXPR-007"};
  }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.attention = [](const T* q, const T* kk, const T* v, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal, T* o) {
      attention_query_scaled(q, kk, v, n, m, d, dv, causal, o, lit<T>(0.5));
    };
  }
};

// The mean of the visible values, whatever the scores: "attention" that cannot select.
struct AttentionMean {
  static constexpr const char* name = "attention_mean";
  static constexpr const char* description = "attention that averages the visible values uniformly instead of weighting them by softmax";
  static std::vector<std::string> caught_by() {
    return {"FALSIFY-EXPR-001", "FALSIFY-EXPR-003", "FALSIFY-EXPR-005", "FALSIFY-EXPR-006", "FALSIFY-EXPR-007"};
  }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.attention = [](const T*, const T*, const T* v, std::size_t n, std::size_t m, std::size_t, std::size_t dv, bool causal, T* o) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t seen = causal ? std::min(m, i + 1) : m;
        for (std::size_t c = 0; c < dv; ++c) {
          T acc = lit<T>(0);
          for (std::size_t j = 0; j < seen; ++j) acc = acc + v[j * dv + c];
          o[i * dv + c] = acc / lit<T>(static_cast<double>(seen));
        }
      }
    };
  }
};

// An off-by-one over the keys: the last key takes no part (its weight and value are dropped).
struct AttentionDropsLastKey {
  static constexpr const char* name = "attention_drops_last_key";
  static constexpr const char* description = "attention over keys 1..m−1 only (off-by-one in the key loop)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-EXPR-002", "FALSIFY-EXPR-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.attention = [](const T* q, const T* kk, const T* v, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal, T* o) {
      kernels::attention(q, kk, v, n, m > 1 ? m - 1 : m, d, dv, causal, o);
    };
  }
};

const bool registered = property::register_mutant<AttentionUnscaled>() && property::register_mutant<AttentionHotTemperature>() &&
                        property::register_mutant<AttentionMean>() && property::register_mutant<AttentionDropsLastKey>();

}  // namespace
}  // namespace attncheck::mutants
