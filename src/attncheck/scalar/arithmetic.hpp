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

namespace detail {
inline Arithmetic& arithmetic_slot() {
  thread_local Arithmetic a = Arithmetic::storage;
  return a;
}
}  // namespace detail

// The arithmetic of 16-bit storage formats on this thread (storage outside any scope).
inline Arithmetic current_arithmetic() { return detail::arithmetic_slot(); }

class arithmetic_scope {
 public:
  explicit arithmetic_scope(Arithmetic a) : outer_(detail::arithmetic_slot()) { detail::arithmetic_slot() = a; }
  ~arithmetic_scope() { detail::arithmetic_slot() = outer_; }
  arithmetic_scope(const arithmetic_scope&) = delete;
  arithmetic_scope& operator=(const arithmetic_scope&) = delete;

 private:
  Arithmetic outer_;
};

// What a 16-bit-storage, f32-arithmetic attention kernel stores in its storage format along the
// way, beside its outputs (docs/formats.md, "Stored intermediates"). Declared per audited kernel
// (audit --stores, bindings `stores:`), carried per thread like the arithmetic.
//   fused:   the scores and the O accumulator stay in f32; the weights P are rounded to storage
//            for the P·V product (FlashAttention's tensor-core product). The default.
//   unfused: the scores are stored too (q @ kᵀ as a 16-bit tensor, the scale folded into q, each
//            soft-cap and bias step), then P (PyTorch's math path, an unfused graph).
// A kernel that stores less (P kept in f32) passes either model; one that accumulates O, the
// normaliser or P·V in 16 bits passes neither.
enum class Intermediates : unsigned char { fused, unfused };

namespace detail {
inline Intermediates& intermediates_slot() {
  thread_local Intermediates s = Intermediates::fused;
  return s;
}
}  // namespace detail

inline Intermediates current_intermediates() { return detail::intermediates_slot(); }

class intermediates_scope {
 public:
  explicit intermediates_scope(Intermediates s) : outer_(detail::intermediates_slot()) { detail::intermediates_slot() = s; }
  ~intermediates_scope() { detail::intermediates_slot() = outer_; }
  intermediates_scope(const intermediates_scope&) = delete;
  intermediates_scope& operator=(const intermediates_scope&) = delete;

 private:
  Intermediates outer_;
};

}  // namespace attncheck
