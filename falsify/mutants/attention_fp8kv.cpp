// attncheck: wrong FP8 KV-cache kernels that the attention-fp8kv-v1 tests must catch: one per bug
// class of shipped FP8 paths (src/attncheck/kernels/broken_attention_fp8kv.hpp).
#include <string>
#include <type_traits>
#include <vector>

#include "attncheck/kernels/broken_attention_fp8kv.hpp"
#include "attncheck/property/registry.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;
namespace broken = kernels::broken;

// The broken steps in the run's arithmetic: at 16-bit storage under f32 arithmetic, the f32
// template with the inputs widened and the outputs rounded once, as the reference.
template <class F, bool Write>
struct Fp8 {
  template <class T>
  static void set(KernelSet<T>& k) {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      if (current_arithmetic() == Arithmetic::f32) {
        KernelSet<float> wide = reference_kernels_in_storage<float>();
        if constexpr (Write) {
          wide.fp8_quantize = fp8_quantize_kernel<float, F>();
          k.fp8_quantize = computed_in<T, float>(wide).fp8_quantize;
        } else {
          wide.attention_fp8kv = attention_fp8kv_kernel<float, kernels::AttentionSteps, F>();
          k.attention_fp8kv = computed_in<T, float>(wide).attention_fp8kv;
        }
        return;
      }
    }
    if constexpr (Write) k.fp8_quantize = fp8_quantize_kernel<T, F>();
    else k.attention_fp8kv = attention_fp8kv_kernel<T, kernels::AttentionSteps, F>();
  }
};

#define ATTNCHECK_FP8_MUTANT(Struct, F, Write, Name, Description, ...)    \
  struct Struct {                                                         \
    static constexpr const char* name = Name;                             \
    static constexpr const char* description = Description;               \
    static std::vector<std::string> caught_by() { return {__VA_ARGS__}; } \
    template <class T>                                                    \
    static void apply(KernelSet<T>& k) { Fp8<F, Write>::set(k); }         \
  };                                                                      \
  const bool Struct##_registered = register_mutant<Struct>();

ATTNCHECK_FP8_MUTANT(KScaleMissing, broken::Fp8KScaleMissing, false, "attention_fp8kv_k_scale_missing",
                     "the K scale never applied: the codes' values used as keys", "FALSIFY-FP8-001")
ATTNCHECK_FP8_MUTANT(VScaleTwice, broken::Fp8VScaleTwice, false, "attention_fp8kv_v_scale_twice", "the V scale applied twice",
                     "FALSIFY-FP8-001")
ATTNCHECK_FP8_MUTANT(PerHeadScaleAsTensor, broken::Fp8PerHeadScaleAsTensor, false, "attention_fp8kv_per_head_scale_as_tensor",
                     "per-head scales read as one per-tensor scale (the first head's)", "FALSIFY-FP8-001")
ATTNCHECK_FP8_MUTANT(KScaleForV, broken::Fp8KScaleForV, false, "attention_fp8kv_k_scale_for_v", "the K scale used for V as well",
                     "FALSIFY-FP8-001")
ATTNCHECK_FP8_MUTANT(DecodedAsE5m2, broken::Fp8DecodedAsE5m2, false, "attention_fp8kv_decoded_as_e5m2",
                     "E4M3 codes decoded as E5M2 (the cache's dtype confused)", "FALSIFY-FP8-001")
ATTNCHECK_FP8_MUTANT(NeverSaturates, broken::Fp8QuantizeNeverSaturates, true, "fp8_quantize_never_saturates",
                     "saturation declared, the non-saturating conversion done: an overflow becomes NaN (E4M3) or ±inf", "FALSIFY-FP8-003")
ATTNCHECK_FP8_MUTANT(AlwaysSaturates, broken::Fp8QuantizeAlwaysSaturates, true, "fp8_quantize_always_saturates",
                     "non-saturation declared, saturation done: an overflow becomes a plausible ±max", "FALSIFY-FP8-003")
ATTNCHECK_FP8_MUTANT(OverflowLate, broken::Fp8QuantizeOverflowLate, true, "fp8_quantize_overflow_late",
                     "non-saturating overflow detected one code late: values that round past ±max become ±max below the next "
                     "binade's midpoint (E4M3FN 480–496 → 448)",
                     "FALSIFY-FP8-003")
ATTNCHECK_FP8_MUTANT(Truncates, broken::Fp8QuantizeTruncates, true, "fp8_quantize_truncates",
                     "truncation toward zero instead of rounding to nearest even", "FALSIFY-FP8-002")
ATTNCHECK_FP8_MUTANT(TiesAway, broken::Fp8QuantizeTiesAway, true, "fp8_quantize_ties_away",
                     "ties rounded away from zero (C's round()) instead of to even: wrong only at an exact midpoint between two codes",
                     "FALSIFY-FP8-002")
ATTNCHECK_FP8_MUTANT(E4m3Max240, broken::Fp8QuantizeE4m3Max240, true, "fp8_quantize_e4m3_max_240",
                     "E4M3 saturated at ±240 (the IEEE-like variant's largest finite) instead of ±448", "FALSIFY-FP8-002")
ATTNCHECK_FP8_MUTANT(NanClamped, broken::Fp8QuantizeNanClamped, true, "fp8_quantize_nan_clamped",
                     "saturation as fmin(fmax(y, −max), max): a NaN stored as −max", "FALSIFY-FP8-003")
ATTNCHECK_FP8_MUTANT(Multiplies, broken::Fp8QuantizeMultiplies, true, "fp8_quantize_multiplies",
                     "the scale multiplied instead of divided", "FALSIFY-FP8-002", "FALSIFY-FP8-003")

}  // namespace
}  // namespace attncheck::mutants
