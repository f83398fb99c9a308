// attncheck: the kernels a harness calls, as replaceable slots, so that the same harness body can
// be run on a broken kernel (a mutant) to show that it finds the bug.
#pragma once

#include <cstddef>
#include <functional>
#include <type_traits>

#include "attncheck/kernels/kernel_set.hpp"
#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"

namespace attncheck::bmc {

// Why this is not KernelSet<T> (kernels/kernel_set.hpp), the gate's and audit's bundle. Measured
// (g++ 12, -O2, the four symbolic formats): KernelSet of every kernel but position_encoding at
// sym<C> compiles in 21.6 s against 19.7 s for these slots, so compile time is not the reason:
//  - KernelSet<sym<C>> does not compile as it is: position_encoding needs sin and cos, which the
//    symbolic scalar has no model of (only exp and log, through validated axioms: axioms.hpp);
//  - the step slots (max_step, row_max, shifted_exp_step, normalise_row, entropy_term) are the
//    reference kernels' own decomposition, which the all-d composition lemmas prove one element at
//    a time (and KANI-SM-004 one step at a time).
//    A KernelSet also holds a user's library (`attncheck audit`), which has no steps: on it these
//    slots would silently stay the reference's;
//  - what KernelSet adds for storage × arithmetic (computed_in: f16 storage, f32 arithmetic) has
//    no symbolic meaning: bmc runs each format in itself.
// What both share is written once: the kernel templates these slots default to, and the broken
// kernels both mutant registries plug in (kernels/broken.hpp). A slot here has the signature of
// the KernelSet slot of the same name.
template <class T>
struct kernel_slots {
  T (*max_step)(T, T) = kernels::max_step<T>;
  T (*row_max)(const T*, std::size_t) = kernels::row_max<T>;
  T (*shifted_exp_step)(T, T) = kernels::shifted_exp_step<T>;
  void (*normalise_row)(T*, std::size_t) = kernels::normalise_row<T>;
  void (*softmax)(const T*, T*, std::size_t) = kernels::softmax<T>;
  void (*scores)(const T*, const T*, std::size_t, std::size_t, std::size_t, T*) = kernels::scores<T>;
  void (*attention)(const T*, const T*, const T*, std::size_t, std::size_t, std::size_t, std::size_t, bool,
                    T*) = kernels::attention<T>;
  void (*rmsnorm)(const T*, const T*, std::size_t, T, T*) = kernels::rmsnorm<T>;
  T (*entropy_term)(T) = kernels::entropy_term<T>;
  T (*entropy)(const T*, std::size_t) = kernels::entropy<T>;
  void (*softmax_jvp)(const T*, const T*, std::size_t, T*) = kernels::softmax_jvp<T>;
};

// The whole-row slots have KernelSet's signatures.
#define ATTNCHECK_SAME_SLOT(slot)                                                                        \
  static_assert(std::is_same_v<decltype(KernelSet<float>::slot),                                        \
                               std::function<std::remove_pointer_t<decltype(kernel_slots<float>::slot)>>>, \
                "kernel_slots::" #slot " and KernelSet::" #slot " differ")
ATTNCHECK_SAME_SLOT(softmax);
ATTNCHECK_SAME_SLOT(scores);
ATTNCHECK_SAME_SLOT(attention);
ATTNCHECK_SAME_SLOT(rmsnorm);
ATTNCHECK_SAME_SLOT(entropy);
ATTNCHECK_SAME_SLOT(softmax_jvp);
#undef ATTNCHECK_SAME_SLOT

}  // namespace attncheck::bmc
