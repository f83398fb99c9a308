/* attncheck: the C ABI a third-party kernel exports so that `attncheck audit --lib` can call it.
 *
 * Include this header in the library under audit (C or C++), implement any subset of the kernels
 * below under any symbol names, and name them on the command line:
 *
 *     attncheck audit --lib ./libmine.so --kernel softmax:f32:my_softmax_f32
 *
 * Conventions, the same for every kernel:
 *   - Arrays are row-major and contiguous; the kernel reads only its inputs and writes only its
 *     output, exactly the number of elements stated (attncheck places a guard page and canary
 *     words after each output and compares every input after the call).
 *   - T is the element type: float (f32), double (f64), or uint16_t holding the bits of an IEEE
 *     binary16 (f16) or bfloat16 (bf16) value. S is float for f16, bf16 and f32, double for f64.
 *   - Return 0 when the output is written. Any other value means "declined this input": the
 *     audit reports it and judges nothing from that call (it is not a crash).
 *   - The kernel runs in a child process under a time and memory limit; it must be re-entrant
 *     and must not rely on state kept between calls (the same input twice must give the same bits).
 *
 * Typedefs are provided per kernel kind and dtype, e.g. attncheck_softmax_f32_fn, so that an
 * implementation can be checked against the signature at compile time:
 *
 *     static const attncheck_softmax_f32_fn check_sig = my_softmax_f32;
 */
#ifndef ATTNCHECK_ABI_H
#define ATTNCHECK_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this ABI; it changes only when a signature below changes. */
#define ATTNCHECK_ABI_VERSION 1

/* f16 and bf16 values travel as their 16 raw bits. */
typedef uint16_t attncheck_f16_bits;
typedef uint16_t attncheck_bf16_bits;

/* Declares the seven kernel signatures for element type T and parameter type S under suffix SFX.
 *
 * softmax:     y_i = exp(x_i) / sum_j exp(x_j), i < n.
 * log_softmax: y_i = x_i - log(sum_j exp(x_j)), i < n.
 * scores:      s[i*m + j] = (q_i . k_j) / sqrt(d); q is n x d, k is m x d, s is n x m.
 * rmsnorm:     y_i = x_i / sqrt(mean(x^2) + eps) * w_i, i < d.
 * entropy:     *h = -sum_i p_i log p_i (natural log, 0 log 0 = 0), i < n.
 * attention:   o = softmax(q k^T / sqrt(d)) v row by row; q is n x d, k is m x d, v is m x dv,
 *              o is n x dv; when causal != 0, key j is visible to query i iff j <= i.
 * softmax_jvp: dy = (Diag(p) - p p^T) dx with p = softmax(x), i < n.
 *
 * Special values (softmax and log_softmax; docs/audit.md, AUDIT-MASK-* and AUDIT-INF-001): a -inf
 * entry is masked (softmax 0, log_softmax -inf, exactly); a fully masked row gives all 0 (log_softmax
 * all -inf) or all NaN, as the audit's masked-row policy for the kernel says; a row with k entries
 * +inf gives all NaN or the limit (1/k there and 0 elsewhere; log_softmax -ln k and -inf).
 */
#define ATTNCHECK_ABI_DECLARE(T, S, SFX)                                                          \
  typedef int (*attncheck_softmax_##SFX##_fn)(const T* x, T* y, size_t n);                        \
  typedef int (*attncheck_log_softmax_##SFX##_fn)(const T* x, T* y, size_t n);                    \
  typedef int (*attncheck_scores_##SFX##_fn)(const T* q, const T* k, size_t n, size_t m, size_t d, \
                                             T* s);                                               \
  typedef int (*attncheck_rmsnorm_##SFX##_fn)(const T* x, const T* w, size_t d, S eps, T* y);     \
  typedef int (*attncheck_entropy_##SFX##_fn)(const T* p, size_t n, T* h);                        \
  typedef int (*attncheck_attention_##SFX##_fn)(const T* q, const T* k, const T* v, size_t n,      \
                                                size_t m, size_t d, size_t dv, int causal, T* o); \
  typedef int (*attncheck_softmax_jvp_##SFX##_fn)(const T* x, const T* dx, size_t n, T* dy);

ATTNCHECK_ABI_DECLARE(float, float, f32)
ATTNCHECK_ABI_DECLARE(double, double, f64)
ATTNCHECK_ABI_DECLARE(attncheck_f16_bits, float, f16)
ATTNCHECK_ABI_DECLARE(attncheck_bf16_bits, float, bf16)

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTNCHECK_ABI_H */
