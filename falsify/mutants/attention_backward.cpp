// attncheck: wrong attention backward kernels that the attention-backward-v1 tests must catch: one
// per bug class of shipped backward kernels (src/attncheck/kernels/broken_attention_backward.hpp).
#include <string>
#include <type_traits>
#include <vector>

#include "attncheck/kernels/broken_attention_backward.hpp"
#include "attncheck/property/registry.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;
namespace broken = kernels::broken;

// The broken steps in the run's arithmetic: at 16-bit storage under f32 arithmetic, the f32
// template with the inputs widened and the gradients rounded once, as the reference.
template <class Steps>
struct Backward {
  template <class T>
  static void set(KernelSet<T>& k) {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      if (current_arithmetic() == Arithmetic::f32) {
        KernelSet<float> wide = reference_kernels_in_storage<float>();
        wide.attention_backward = attention_backward_kernel<float, Steps>();
        k.attention_backward = computed_in<T, float>(wide).attention_backward;
        return;
      }
    }
    k.attention_backward = attention_backward_kernel<T, Steps>();
  }
};

#define ATTNCHECK_BACKWARD_MUTANT(Struct, Steps, Name, Description, ...) \
  struct Struct {                                                       \
    static constexpr const char* name = Name;                           \
    static constexpr const char* description = Description;             \
    static std::vector<std::string> caught_by() { return {__VA_ARGS__}; } \
    template <class T>                                                  \
    static void apply(KernelSet<T>& k) { Backward<Steps>::set(k); }     \
  };                                                                    \
  const bool Struct##_registered = register_mutant<Struct>();

ATTNCHECK_BACKWARD_MUTANT(DeltaOmitted, broken::BackwardDeltaOmitted, "attention_backward_delta_omitted",
                          "dS = P ∘ dP: the D = rowsum(dO ∘ O) term omitted", "FALSIFY-ATTBWD-001", "FALSIFY-ATTBWD-002",
                          "FALSIFY-ATTBWD-004")
ATTNCHECK_BACKWARD_MUTANT(DeltaFromBf16O, broken::BackwardDeltaFromBf16O, "attention_backward_delta_from_bf16_o",
                          "D computed from O rounded to bfloat16 (a 16-bit copy of O where the kernel claims f32)", "FALSIFY-ATTBWD-001")
ATTNCHECK_BACKWARD_MUTANT(DqScaleMissing, broken::BackwardDqScaleMissing, "attention_backward_dq_scale_missing",
                          "dQ not multiplied by the scale", "FALSIFY-ATTBWD-001", "FALSIFY-ATTBWD-004")
ATTNCHECK_BACKWARD_MUTANT(DkScaleDoubled, broken::BackwardDkScaleDoubled, "attention_backward_dk_scale_doubled",
                          "dK multiplied by the scale twice", "FALSIFY-ATTBWD-001", "FALSIFY-ATTBWD-004")
ATTNCHECK_BACKWARD_MUTANT(CapGradOmitted, broken::BackwardCapGradOmitted, "attention_backward_cap_grad_omitted",
                          "the soft-cap's derivative 1 − tanh² omitted from dS", "FALSIFY-ATTBWD-001", "FALSIFY-ATTBWD-004")
ATTNCHECK_BACKWARD_MUTANT(GroupLastHeadWins, broken::BackwardGroupLastHeadWins, "attention_backward_group_last_head_wins",
                          "grouped heads not summed: each query head overwrites its key/value head's dK, dV", "FALSIFY-ATTBWD-001",
                          "FALSIFY-ATTBWD-003")
ATTNCHECK_BACKWARD_MUTANT(MaskNotReapplied, broken::BackwardMaskNotReapplied, "attention_backward_mask_not_reapplied",
                          "the mask not re-applied when P is recomputed from the LSE", "FALSIFY-ATTBWD-001", "FALSIFY-ATTBWD-002")
ATTNCHECK_BACKWARD_MUTANT(DqAccumulatedBf16, broken::BackwardDqAccumulatedBf16, "attention_backward_dq_accumulated_bf16",
                          "dQ accumulated in bfloat16 across key blocks", "FALSIFY-ATTBWD-001")
ATTNCHECK_BACKWARD_MUTANT(LseLog2, broken::BackwardLseLog2, "attention_backward_lse_log2",
                          "the LSE read in log2 units: P = exp(s − LSE·ln 2)", "FALSIFY-ATTBWD-001")

}  // namespace
}  // namespace attncheck::mutants
