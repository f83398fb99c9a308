// attncheck: wrong batched attention kernels that the attention-kernel-v1 tests must catch: one per
// bug class of shipped fused and tiled kernels (src/attncheck/kernels/broken_attention.hpp).
#include <string>
#include <type_traits>
#include <vector>

#include "attncheck/property/registry.hpp"
#include "attncheck/kernels/broken_attention.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;
namespace broken = kernels::broken;

// The broken steps in the kernel's own arithmetic T.
template <class Steps>
struct InT {
  template <class T>
  static void set(KernelSet<T>& k) { k.attention_batched = attention_batched_kernel<T, Steps>(); }
};

// The broken steps with f32 arithmetic wherever the run has it: at 16-bit storage under f32
// arithmetic, the f32 template with the inputs widened and O rounded once, as the reference.
template <class Steps>
struct InF32 {
  template <class T>
  static void set(KernelSet<T>& k) {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      if (current_arithmetic() == Arithmetic::f32) {
        KernelSet<float> wide = reference_kernels_in_storage<float>();
        InT<Steps>::set(wide);
        k.attention_batched = computed_in<T, float>(wide).attention_batched;
        return;
      }
    }
    InT<Steps>::set(k);
  }
};

// One registration per broken step set: name, description, the tests that must catch it.
#define ATTNCHECK_ATTENTION_MUTANT_IN(Struct, Set, Name, Description, ...) \
  struct Struct {                                                           \
    static constexpr const char* name = Name;                               \
    static constexpr const char* description = Description;                 \
    static std::vector<std::string> caught_by() { return {__VA_ARGS__}; }   \
    template <class T>                                                      \
    static void apply(KernelSet<T>& k) { Set::set(k); }                     \
  };                                                                        \
  const bool Struct##_registered = register_mutant<Struct>();
#define ATTNCHECK_ATTENTION_MUTANT(Struct, Steps, Name, Description, ...) \
  ATTNCHECK_ATTENTION_MUTANT_IN(Struct, InT<Steps>, Name, Description, __VA_ARGS__)

ATTNCHECK_ATTENTION_MUTANT(AccumulatorNotRescaled, broken::AccumulatorNotRescaled, "attention_accumulator_not_rescaled",
                           "the output accumulator is not rescaled by exp(M_old − M_new) when a later tile raises the running maximum",
                           "FALSIFY-ATTK-001", "FALSIFY-ATTK-005")
ATTNCHECK_ATTENTION_MUTANT(RescaleInverted, broken::RescaleInverted, "attention_rescale_inverted",
                           "the accumulator is rescaled by exp(M_new − M_old) instead of exp(M_old − M_new) after the first tile",
                           "FALSIFY-ATTK-001", "FALSIFY-ATTK-005")
ATTNCHECK_ATTENTION_MUTANT(MaxStartsAtZero, broken::MaxStartsAtZero, "attention_max_starts_at_zero",
                           "the running maximum starts at 0 instead of −inf: every exp underflows when all scores are far below 0",
                           "FALSIFY-ATTK-001", "FALSIFY-ATTK-002")
ATTNCHECK_ATTENTION_MUTANT(TileSkipOffByOne, broken::TileSkipOffByOne, "attention_tile_skip_off_by_one",
                           "a key tile is skipped when only its first key is visible (tile test off by one at the boundary)",
                           "FALSIFY-ATTK-001", "FALSIFY-ATTK-005")
ATTNCHECK_ATTENTION_MUTANT(AlignmentSwapped, broken::AlignmentSwapped, "attention_alignment_swapped",
                           "top-left and bottom-right causal/window alignment swapped (differs when n ≠ m)",
                           "FALSIFY-ATTK-001", "FALSIFY-ATTK-003")
ATTNCHECK_ATTENTION_MUTANT(WindowLeftOffByOne, broken::WindowLeftOffByOne, "attention_window_left_off_by_one",
                           "the sliding window drops the key at its left end, c(i) − left",
                           "FALSIFY-ATTK-001")
ATTNCHECK_ATTENTION_MUTANT(WindowRightOffByOne, broken::WindowRightOffByOne, "attention_window_right_off_by_one",
                           "the sliding window drops the key at its right end, c(i) + right",
                           "FALSIFY-ATTK-001")
ATTNCHECK_ATTENTION_MUTANT(SoftcapBeforeScale, broken::SoftcapBeforeScale, "attention_softcap_before_scale",
                           "the soft-cap is applied to q·k before the scale: scale·c·tanh(q·k/c)",
                           "FALSIFY-ATTK-001", "FALSIFY-ATTK-002")
ATTNCHECK_ATTENTION_MUTANT(SoftcapAfterMask, broken::SoftcapAfterMask, "attention_softcap_after_mask",
                           "the soft-cap is applied after masking: a hidden key's −inf becomes −c and gets weight",
                           "FALSIFY-ATTK-001", "FALSIFY-ATTK-003")
ATTNCHECK_ATTENTION_MUTANT(GqaModulo, broken::GqaModulo, "attention_gqa_modulo",
                           "query head h reads key/value head h % H_kv instead of h / (H / H_kv)",
                           "FALSIFY-ATTK-001", "FALSIFY-ATTK-004")
ATTNCHECK_ATTENTION_MUTANT(LseLog2, broken::LseLog2, "attention_lse_log2",
                           "the log-sum-exp is returned in log2 units",
                           "FALSIFY-ATTK-002")
ATTNCHECK_ATTENTION_MUTANT(LseUnscaled, broken::LseUnscaled, "attention_lse_unscaled",
                           "the log-sum-exp takes the maximum of the unscaled scores",
                           "FALSIFY-ATTK-002")
ATTNCHECK_ATTENTION_MUTANT(LastBlockUndivided, broken::LastBlockUndivided, "attention_last_block_undivided",
                           "the rows of the last query tile are not divided by their normaliser",
                           "FALSIFY-ATTK-001")

// The bug classes of mixed precision: the kernel's arithmetic is f32 (InF32), and one piece of
// its running state is kept in bf16 across key tiles. At f32 the same rounding is a bug too; at
// bf16@bf16 it changes nothing (that state is bf16 already).
using broken::StateIn16;
using AccIn16 = broken::StateStoredIn<bf16, StateIn16::acc>;
using SumIn16 = broken::StateStoredIn<bf16, StateIn16::sum>;
using PvIn16 = broken::StateStoredIn<bf16, StateIn16::pv>;
#define ATTNCHECK_ATTENTION_MUTANT_F32(Struct, Steps, Name, Description, ...) \
  ATTNCHECK_ATTENTION_MUTANT_IN(Struct, InF32<Steps>, Name, Description, __VA_ARGS__)
ATTNCHECK_ATTENTION_MUTANT_F32(AccumulatorInBf16, AccIn16, "attention_accumulator_in_bf16",
                               "the output accumulator O is kept in bf16 across key tiles (f32 arithmetic otherwise)",
                               "FALSIFY-ATTK-001")
ATTNCHECK_ATTENTION_MUTANT_F32(NormaliserInBf16, SumIn16, "attention_normaliser_in_bf16",
                               "the normaliser l is kept in bf16 across key tiles (f32 arithmetic otherwise)",
                               "FALSIFY-ATTK-002")
ATTNCHECK_ATTENTION_MUTANT_F32(PvInBf16, PvIn16, "attention_pv_in_bf16",
                               "the P·V product is accumulated in bf16 (f32 arithmetic otherwise)",
                               "FALSIFY-ATTK-001")

}  // namespace
}  // namespace attncheck::mutants
