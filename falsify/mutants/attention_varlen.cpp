// attncheck: wrong packed-batch (varlen) attention kernels that the attention-varlen-v1 tests must
// catch: one per bug class of shipped varlen kernels (src/attncheck/kernels/broken_attention_varlen.hpp).
#include <string>
#include <type_traits>
#include <vector>

#include "attncheck/kernels/broken_attention_varlen.hpp"
#include "attncheck/property/registry.hpp"

namespace attncheck::mutants {
namespace {
using property::register_mutant;
namespace broken = kernels::broken;

// The broken packing in the run's arithmetic: at 16-bit storage under f32 arithmetic, the f32
// template with the inputs widened and the outputs rounded once, as the reference.
template <class Pack>
struct Varlen {
  template <class T>
  static void set(KernelSet<T>& k) {
    if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>) {
      if (current_arithmetic() == Arithmetic::f32) {
        KernelSet<float> wide = reference_kernels_in_storage<float>();
        wide.attention_varlen = attention_varlen_kernel<float, kernels::AttentionSteps, Pack>();
        k.attention_varlen = computed_in<T, float>(wide).attention_varlen;
        return;
      }
    }
    k.attention_varlen = attention_varlen_kernel<T, kernels::AttentionSteps, Pack>();
  }
};

#define ATTNCHECK_VARLEN_MUTANT(Struct, Pack, Name, Description, ...)     \
  struct Struct {                                                         \
    static constexpr const char* name = Name;                             \
    static constexpr const char* description = Description;               \
    static std::vector<std::string> caught_by() { return {__VA_ARGS__}; } \
    template <class T>                                                    \
    static void apply(KernelSet<T>& k) { Varlen<Pack>::set(k); }          \
  };                                                                      \
  const bool Struct##_registered = register_mutant<Struct>();

ATTNCHECK_VARLEN_MUTANT(KeysOfNextSequence, broken::VarlenKeysOfNextSequence, "attention_varlen_keys_of_next_sequence",
                        "each sequence but the last also attends to the next sequence's keys (its upper offset read two entries on)",
                        "FALSIFY-VARLEN-001", "FALSIFY-VARLEN-002", "FALSIFY-VARLEN-003")
ATTNCHECK_VARLEN_MUTANT(KeysAtQueryOffset, broken::VarlenKeysAtQueryOffset, "attention_varlen_keys_at_query_offset",
                        "keys and values addressed by cu_seqlens_q instead of cu_seqlens_k", "FALSIFY-VARLEN-001", "FALSIFY-VARLEN-002",
                        "FALSIFY-VARLEN-003")
ATTNCHECK_VARLEN_MUTANT(TopLeftPerSequence, broken::VarlenTopLeftPerSequence, "attention_varlen_top_left_per_sequence",
                        "every sequence's causal mask aligned top-left, whatever the declared alignment", "FALSIFY-VARLEN-001",
                        "FALSIFY-VARLEN-003")
ATTNCHECK_VARLEN_MUTANT(LastSequenceSkipped, broken::VarlenLastSequenceSkipped, "attention_varlen_last_sequence_skipped",
                        "the last sequence never computed (a loop bound of B − 1)", "FALSIFY-VARLEN-001", "FALSIFY-VARLEN-003")
ATTNCHECK_VARLEN_MUTANT(LseDenseLayout, broken::VarlenLseDenseLayout, "attention_varlen_lse_dense_layout",
                        "the LSE written in the padded dense layout B × H × max_n instead of H × total_q", "FALSIFY-VARLEN-001",
                        "FALSIFY-VARLEN-002")

ATTNCHECK_VARLEN_MUTANT(BlocksNotDense, broken::VarlenBlocksNotDense, "attention_varlen_blocks_not_dense",
                        "the packed path's key blocks differ from the dense path's while the kernel claims packing invariance",
                        "FALSIFY-VARLEN-003")

}  // namespace
}  // namespace attncheck::mutants
