// attncheck: broken attention backward kernels, beside the kernel they break. Each replaces one
// step of kernels::AttentionBackwardSteps (attention_backward.hpp) with a bug class shipped
// backward kernels have had (FlashAttention, xFormers, Triton tutorials' and PyTorch's trackers):
// the D term, the scale, the soft-cap's chain rule, grouped heads, the mask when P is recomputed,
// the dQ accumulator's precision, the LSE's units. The audit test that must catch each is named
// in tests/audit (attention_backward_test.cpp) and in falsify/mutants/attention_backward.cpp.
#pragma once

#include <cstddef>
#include <numbers>

#include "attncheck/kernels/attention_backward.hpp"
#include "attncheck/scalar/bfloat16.hpp"

namespace attncheck::kernels::broken {

// D omitted: dS = P ∘ dP (the softmax Jacobian without its −P Pᵀ part).
struct BackwardDeltaOmitted : AttentionBackwardSteps {
  template <Scalar T>
  static T score_grad(T p, T dp, T /*delta*/) { return T(p * dp); }
};

// D computed from O rounded to bfloat16 (a kernel that claims f32 but reads a 16-bit copy of O).
struct BackwardDeltaFromBf16O : AttentionBackwardSteps {
  template <Scalar T>
  static T row_delta(const T* dout, const T* o, std::size_t dv) {
    T acc = lit<T>(0);
    for (std::size_t c = 0; c < dv; ++c) {
      const T oc = T(static_cast<double>(static_cast<float>(bf16(to_double(o[c])))));
      acc = dot_step(acc, dout[c], oc);
    }
    return acc;
  }
};

// The scale missing from dQ (applied in the forward's scores, forgotten in the chain rule).
struct BackwardDqScaleMissing : AttentionBackwardSteps {
  template <Scalar T>
  static T scale_dq(T acc, T /*scale*/) { return acc; }
};

// The scale applied twice to dK (once folded into q, once more at the end).
struct BackwardDkScaleDoubled : AttentionBackwardSteps {
  template <Scalar T>
  static T scale_dk(T acc, T scale) { return T(T(acc * scale) * scale); }
};

// The soft-cap's derivative 1 − tanh² omitted.
struct BackwardCapGradOmitted : AttentionBackwardSteps {
  template <Scalar T>
  static T cap_grad(T ds, T /*tanh*/) { return ds; }
};

// Grouped heads not summed: each query head overwrites its key/value head's dK and dV (the last
// head of the group wins), as a kernel that writes instead of accumulating does.
struct BackwardGroupLastHeadWins : AttentionBackwardSteps {
  template <Scalar T>
  static void head_begins(const AttentionShape& sh, std::size_t b, std::size_t h, T* dk, T* dv) {
    const std::size_t g = sh.kv_head(h);
    for (std::size_t j = 0; j < sh.m; ++j) {
      for (std::size_t t = 0; t < sh.d; ++t) dk[sh.k_at(b, j, g) + t] = lit<T>(0);
      for (std::size_t c = 0; c < sh.dv; ++c) dv[sh.v_at(b, j, g) + c] = lit<T>(0);
    }
  }
};

// The mask not re-applied when P is recomputed from the LSE: every key of a row that sees any
// gets exp(s − LSE), masked or not.
struct BackwardMaskNotReapplied : AttentionBackwardSteps {
  static AttentionMask::Range visible(const AttentionProblem& p, std::size_t i) {
    const auto r = p.mask.visible(i, p.shape.n, p.shape.m);
    return r.empty() ? r : AttentionMask::Range{0, p.shape.m};
  }
  static bool tile(const AttentionProblem&, std::size_t, std::size_t, std::size_t, std::size_t) { return true; }
};

// dQ accumulated in bfloat16 across key blocks: the row is rounded to bf16 after every block.
struct BackwardDqAccumulatedBf16 : AttentionBackwardSteps {
  template <Scalar T>
  static void dq_block_done(T* dq_i, std::size_t d) {
    for (std::size_t t = 0; t < d; ++t) dq_i[t] = T(static_cast<double>(static_cast<float>(bf16(to_double(dq_i[t])))));
  }
};

// The LSE read in log2 units: P = exp(s − LSE·ln 2) (a kernel whose forward stores log2 of the
// normaliser, fed the natural-log LSE of the ABI, or the reverse).
struct BackwardLseLog2 : AttentionBackwardSteps {
  template <Scalar T>
  static T weight(T s, T lse) { return shifted_exp_step(s, T(lse * lit<T>(std::numbers::ln2))); }
};

}  // namespace attncheck::kernels::broken
