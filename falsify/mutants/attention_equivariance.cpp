// attncheck: wrong kernels that the attention-equivariance-v1 tests must catch: each breaks the
// permutation symmetry in one place (softmax, query rows, key order, position encoding).
#include <cstdint>
#include <limits>
#include <vector>

#include "attncheck/property/registry.hpp"
#include "attncheck/kernels/broken.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;

// A "learned bias" left in the softmax: entry i gets +i/8 before normalising, so the result
// depends on where an entry sits, not only on its value.
struct SoftmaxPositionBias {
  static constexpr const char* name = "softmax_position_bias";
  static constexpr const char* description = "softmax(x)_i computed from x_i + i/8 (a position-dependent bias)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-AEQ-001", "FALSIFY-AEQ-002", "FALSIFY-AEQ-003"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.softmax = [](const T* x, T* y, std::size_t n) {
      std::vector<T> b(x, x + n);
      for (std::size_t i = 0; i < n; ++i) b[i] = b[i] + lit<T>(static_cast<double>(i) / 8);
      kernels::softmax(b.data(), y, n);
    };
  }
};

// The causal flag ignored the other way round: every call masks key j > i, so query i's output
// depends on its row index.
struct AttentionAlwaysCausal {
  static constexpr const char* name = "attention_always_causal";
  static constexpr const char* description = "attention applies the causal mask even when causal = false";
  static std::vector<std::string> caught_by() { return {"FALSIFY-AEQ-004", "FALSIFY-AEQ-005", "FALSIFY-AEQ-006"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.attention = kernels::broken::attention_always_causal<T>;
  }
};

// A recency bias (ALiBi-like, slope 1/4) on the scores: key j gets −(m − 1 − j)/4, so the output
// depends on the order of the keys.
struct AttentionRecencyBias {
  static constexpr const char* name = "attention_recency_bias";
  static constexpr const char* description = "attention scores get −(m − 1 − j)/4 for key j (depends on key order)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-AEQ-005", "FALSIFY-AEQ-006"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.attention = [](const T* q, const T* kk, const T* v, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal, T* o) {
      std::vector<T> s(m), p(m);
      const T scale = sqrt(lit<T>(static_cast<double>(d)));
      for (std::size_t i = 0; i < n; ++i) {
        for (std::size_t j = 0; j < m; ++j)
          s[j] = select(!causal || j <= i, T(kernels::dot(q + i * d, kk + j * d, d) / scale - lit<T>(static_cast<double>(m - 1 - j) / 4)),
                        lit<T>(-std::numeric_limits<double>::infinity()));
        kernels::softmax(s.data(), p.data(), m);
        for (std::size_t c = 0; c < dv; ++c) {
          T acc = lit<T>(0);
          for (std::size_t j = 0; j < m; ++j) acc = kernels::dot_step(acc, p[j], v[j * dv + c]);
          o[i * dv + c] = acc;
        }
      }
    };
  }
};

// State carried across query rows: the value accumulator starts from the previous row's output
// instead of 0 (a reused buffer), so row i depends on the rows before it.
struct AttentionCarriesRowState {
  static constexpr const char* name = "attention_carries_row_state";
  static constexpr const char* description = "each query row's accumulator starts at the previous row's output";
  static std::vector<std::string> caught_by() { return {"FALSIFY-AEQ-004"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.attention = [](const T* q, const T* kk, const T* v, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal, T* o) {
      kernels::attention(q, kk, v, n, m, d, dv, causal, o);
      for (std::size_t i = 1; i < n; ++i)
        for (std::size_t c = 0; c < dv; ++c) o[i * dv + c] = o[i * dv + c] + o[(i - 1) * dv + c];
    };
  }
};

// The position counter kept in 16 bits: positions 65536 apart get the same row.
struct PositionCounter16Bit {
  static constexpr const char* name = "position_counter_16bit";
  static constexpr const char* description = "position_encoding(t) computed for t mod 2^16 (a 16-bit position counter)";
  static std::vector<std::string> caught_by() { return {"FALSIFY-AEQ-007"}; }
  template <class T>
  static void apply(KernelSet<T>& k) {
    k.position_encoding = [](std::size_t t, std::size_t d, T* row) { kernels::position_encoding<T>(static_cast<std::uint16_t>(t), d, row); };
  }
};

const bool registered = register_mutant<SoftmaxPositionBias>() && register_mutant<AttentionAlwaysCausal>() &&
                        register_mutant<AttentionRecencyBias>() && register_mutant<AttentionCarriesRowState>() &&
                        register_mutant<PositionCounter16Bit>();
}  // namespace
}  // namespace attncheck::mutants
