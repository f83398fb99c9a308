// attncheck: the arithmetic format of a computation, beside the storage format of its values.
//
// Mainstream kernels keep 16-bit (and 8-bit) values in memory and compute in f32: PyTorch's CPU
// kernels, oneDNN, cuBLAS/cuDNN's "compute type", FlashAttention. Such a kernel converts its
// inputs to f32 (exactly), computes in f32 and rounds each output once to the storage format.
// Others really compute in 16 bits (NumPy on float16 arrays). The two are judged by different
// error models (bounds/error_model.hpp: model_of), and the gate runs the reference kernels in
// both (kernels/kernel_set.hpp: reference_kernels). Which one applies is a property of the run,
// not of the C++ storage type, so it is carried here, per thread, by property::visit_dtype.
#pragma once

namespace attncheck {

enum class Arithmetic : unsigned char {
  storage,  // every operation rounds to the storage format (f32 and f64 always; 16-bit on request)
  f32,      // 16-bit storage, f32 arithmetic, one final rounding to the storage format
};

// What a 16-bit-storage, f32-arithmetic attention kernel stores in its storage format along the
// way, beside its outputs (docs/formats.md, "Stored intermediates"). Declared per audited kernel
// (audit --stores, bindings `stores:`), carried per thread like the arithmetic.
//   fused:   the scores and the O accumulator stay in f32; the weights P are rounded to storage
//            for the P·V product (FlashAttention's tensor-core product). In the backward pass
//            (FlashAttention-2) P and dS are stored for the products, dP, D and the dQ, dK, dV
//            accumulators stay in f32 (with grouped heads each head's dK, dV may be stored before
//            the group's sum). The default.
//   unfused: a graph of separate ops, every op's output a 16-bit tensor (PyTorch's math path and
//            its autograd): the scores are stored too (q @ kᵀ, the scale folded into q or into q
//            and k, each soft-cap and bias step), then P; in the backward dP = dO·Vᵀ, D from the
//            stored P and dP (or from O), dS, each soft-cap and scale step of its chain rule, and
//            each product before a final scale multiply (proofs/attention_backward.tex, Lemma
//            "unfused backward"). Spelt scores,p or scores,p,dp,ds.
// A kernel that stores less (P kept in f32) passes either model; one that accumulates O, the
// normaliser, P·V or a gradient across blocks in 16 bits passes neither.
enum class Intermediates : unsigned char { fused, unfused };

// What the kernel's arithmetic does with results below the smallest normal number (docs/formats.md,
// "Flush to zero"). Declared for a whole audit (audit --subnormals, bindings `subnormals:`),
// carried per thread like the arithmetic.
//   ieee:  gradual underflow (IEEE 754's default): a subnormal result is rounded to the subnormal
//          grid, absolute error at most half its spacing. The default.
//   flush: a result below the smallest normal may be 0 (flush-to-zero, as most vectorised exp
//          implementations and GPU kernels built with FTZ give), absolute error below the smallest
//          normal. Inputs are read as they are (denormals-are-zero is not modelled).
enum class Subnormals : unsigned char { ieee, flush };

namespace detail {
// One per-thread value of a run property V (its default outside any scope: V's first
// enumerator, storage and fused).
template <class V>
V& thread_slot() {
  thread_local V v{};
  return v;
}
}  // namespace detail

// Sets the thread's value of V for the lifetime of the scope, and restores the outer one.
template <class V>
class thread_scope {
 public:
  explicit thread_scope(V v) : outer_(detail::thread_slot<V>()) { detail::thread_slot<V>() = v; }
  ~thread_scope() { detail::thread_slot<V>() = outer_; }
  thread_scope(const thread_scope&) = delete;
  thread_scope& operator=(const thread_scope&) = delete;

 private:
  V outer_;
};

// The arithmetic of 16-bit storage formats on this thread (storage outside any scope).
inline Arithmetic current_arithmetic() { return detail::thread_slot<Arithmetic>(); }
using arithmetic_scope = thread_scope<Arithmetic>;

// The stored intermediates of attention on this thread (fused outside any scope).
inline Intermediates current_intermediates() { return detail::thread_slot<Intermediates>(); }
using intermediates_scope = thread_scope<Intermediates>;

// The subnormal arithmetic of the audited kernels on this thread (ieee outside any scope).
inline Subnormals current_subnormals() { return detail::thread_slot<Subnormals>(); }
using subnormals_scope = thread_scope<Subnormals>;

}  // namespace attncheck
