/* attncheck audit tests: attention kernels over a packed variable-length batch with ABI version 2's
 * signature (include/attncheck/abi.h, attncheck_attention_varlen_v2_*_fn; FlashAttention's
 * flash_attn_varlen_func), compiled into libattncheck_audit_testkernels_varlen.so, which exports
 * the version marker.
 *
 * Sequence b holds the queries cu_q[b] .. cu_q[b+1] - 1 and the keys cu_k[b] .. cu_k[b+1] - 1
 * (n_b and m_b tokens); it is attention's dense problem on its own tokens: query i of it is aligned
 * with key c(i) = i (top-left) or i + m_b - n_b (bottom-right), the window and the ALiBi distances
 * are counted from c(i), and no key of another sequence is seen. Each (query, head) row is a plain
 * two-pass softmax: the visible scores scale·(q·k), soft-capped c·tanh(s/c), ALiBi-biased
 * s - slope_h·|c(i) - j|; M their maximum, e_j = exp(s_j - M), Z = Σ e_j, o = (Σ e_j v_j) / Z,
 * lse = M + log Z (natural log; layout H × total_q). A row that sees no key gives o = 0 and
 * lse = -inf (the zeros policy). The operation order is the plain ABI-2 attention test kernel's
 * with one key tile (tests/audit/attention_v2_impl.h), which the reference shares.
 *
 * Correct kernels (f32 and f64 compute in their format; f16 and bf16 widen q, k, v to f32, compute
 * in f32 and round o once to nearest even; the LSE is f32 in the ABI already):
 *   varlen_plain_{f32,f64,f16,bf16}
 *
 * Broken kernels (one bug each, of a class packed kernels have had; the tests that must catch each
 * are listed in tests/audit/attention_varlen_test.cpp):
 *   bug_varlen_next_visible_{f32,bf16}  sequence b < B - 1 reads the keys cu_k[b] .. cu_k[b+2] - 1:
 *                                       the next sequence's keys leak into it (its m_b is read as
 *                                       m_b + m_{b+1} for the mask too)
 *   bug_varlen_max_alignment_f32        bottom-right alignment from the batch maxima, c(i) = i +
 *                                       p->m - p->n, instead of i + m_b - n_b (wrong for a causal
 *                                       or windowed sequence shorter than the longest)
 *   bug_varlen_lse_dense_f32            the LSE written in the dense layout B × H × max_n,
 *                                       (b·H + h)·p->n + i, instead of H × total_q: wrong places,
 *                                       and past the end of lse when the sequences differ in n
 *   bug_varlen_last_skipped_f32         the loop over sequences stops at B - 1: the last one's o
 *                                       and lse are never written
 *   bug_varlen_kv_at_q_offset_f32       k and v of sequence b read from token cu_q[b] instead of
 *                                       cu_k[b] (right only while every n_b = m_b)
 *   bug_varlen_reversed_order_f32       each row's sums from its last key to its first: correct within
 *                                       the bound, but not the dense kernel's bits, so wrong only when
 *                                       declared --packing-invariant
 *   varlen_nan_rows_{f32,bf16}          a row that sees no key gives all NaN (the nan policy): right
 *                                       undeclared or declared --masked nan, wrong under --masked zeros
 * The dense kernel of the library, dense_plain_{f32,bf16} (attention of ABI 2), is the varlen kernel
 * on equal-length sequences (FALSIFY-VARLEN-003 needs both kinds).
 * and stray writes: bug_varlen_o_overrun_{f32,bf16} (one element past the end of o),
 * bug_varlen_writes_cu_k_f32 (cu_seqlens_k[B] incremented after the call: into its input).
 *
 * The arithmetic is written once below and compiled for float and double by including this file
 * twice into itself (VL_F defined), as tests/audit/kernels_attention_merge.c does.
 */
#ifndef VL_F

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"
#include "bits16.h"

ATTNCHECK_EXPORT_ABI_VERSION

enum varlen_bug {
  BUG_VL_NONE,
  BUG_VL_NEXT_VISIBLE,
  BUG_VL_MAX_ALIGNMENT,
  BUG_VL_LSE_DENSE,
  BUG_VL_LAST_SKIPPED,
  BUG_VL_KV_AT_Q_OFFSET,
  BUG_VL_REVERSED_ORDER,
  BUG_VL_NAN_ROWS
};

#define VL_F float
#define SFX f32
#define EXP expf
#define LOG logf
#define TANH tanhf
#include __FILE__
#undef VL_F
#undef SFX
#undef EXP
#undef LOG
#undef TANH

#define VL_F double
#define SFX f64
#define EXP exp
#define LOG log
#define TANH tanh
#include __FILE__
#undef VL_F
#undef SFX
#undef EXP
#undef LOG
#undef TANH

#define VL_ARGS(T, S) \
  const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *cu_k, const T *q, const T *k, const T *v, T *o, S *lse
#define VL_PASS p, cu_q, cu_k

/* ---- correct kernels ------------------------------------------------------------------------- */
int varlen_plain_f32(VL_ARGS(float, float)) { return varlen_rows_f32(VL_PASS, q, k, v, o, lse, BUG_VL_NONE); }
int varlen_plain_f64(VL_ARGS(double, double)) { return varlen_rows_f64(VL_PASS, q, k, v, o, lse, BUG_VL_NONE); }

/* 16-bit storage, f32 arithmetic: widen q, k, v (their packed sizes from the offsets), attend in
 * f32, round o once (the LSE is f32 in the ABI already). */
static int varlen_16bit(VL_ARGS(uint16_t, float), float (*from)(uint16_t), uint16_t (*to)(float), enum varlen_bug bug) {
  if (p->struct_size < sizeof(attncheck_attention_problem)) return 1;
  const size_t tq = (size_t)cu_q[p->batch], tk = (size_t)cu_k[p->batch];
  const size_t out = tq * p->heads * p->dv;
  float *qf = widen16(q, tq * p->heads * p->d, from), *kf = widen16(k, tk * p->kv_heads * p->d, from),
        *vf = widen16(v, tk * p->kv_heads * p->dv, from), *res = malloc((out ? out : 1) * sizeof(float));
  int rc = 2;
  if (qf && kf && vf && res) {
    rc = varlen_rows_f32(VL_PASS, qf, kf, vf, res, lse, bug);
    if (rc == 0)
      for (size_t i = 0; i < out; ++i) o[i] = to(res[i]);
  }
  free(qf), free(kf), free(vf), free(res);
  return rc;
}
int varlen_plain_bf16(VL_ARGS(uint16_t, float)) { return varlen_16bit(VL_PASS, q, k, v, o, lse, from_bf16, to_bf16, BUG_VL_NONE); }
int varlen_plain_f16(VL_ARGS(uint16_t, float)) { return varlen_16bit(VL_PASS, q, k, v, o, lse, from_f16, to_f16, BUG_VL_NONE); }

/* The signatures are abi.h's. */
_Static_assert(_Generic(&varlen_plain_f32, attncheck_attention_varlen_v2_f32_fn: 1, default: 0), "varlen f32 signature");
_Static_assert(_Generic(&varlen_plain_f64, attncheck_attention_varlen_v2_f64_fn: 1, default: 0), "varlen f64 signature");
_Static_assert(_Generic(&varlen_plain_bf16, attncheck_attention_varlen_v2_bf16_fn: 1, default: 0), "varlen bf16 signature");
_Static_assert(_Generic(&varlen_plain_f16, attncheck_attention_varlen_v2_f16_fn: 1, default: 0), "varlen f16 signature");

/* ---- broken kernels: the plain kernel with one bug --------------------------------------------- */
#define BROKEN_F32(name, bug) \
  int bug_varlen_##name##_f32(VL_ARGS(float, float)) { return varlen_rows_f32(VL_PASS, q, k, v, o, lse, bug); }
#define BROKEN_BF16(name, bug) \
  int bug_varlen_##name##_bf16(VL_ARGS(uint16_t, float)) { return varlen_16bit(VL_PASS, q, k, v, o, lse, from_bf16, to_bf16, bug); }
BROKEN_F32(next_visible, BUG_VL_NEXT_VISIBLE)
BROKEN_BF16(next_visible, BUG_VL_NEXT_VISIBLE)
BROKEN_F32(max_alignment, BUG_VL_MAX_ALIGNMENT)
BROKEN_F32(lse_dense, BUG_VL_LSE_DENSE)
BROKEN_F32(last_skipped, BUG_VL_LAST_SKIPPED)
BROKEN_F32(kv_at_q_offset, BUG_VL_KV_AT_Q_OFFSET)
BROKEN_F32(reversed_order, BUG_VL_REVERSED_ORDER)

/* The nan policy: a row that sees no key gives all NaN (the plain formula's 0/0), lse -inf; right
 * undeclared (either) and declared --masked nan, wrong declared --masked zeros. */
int varlen_nan_rows_f32(VL_ARGS(float, float)) { return varlen_rows_f32(VL_PASS, q, k, v, o, lse, BUG_VL_NAN_ROWS); }
int varlen_nan_rows_bf16(VL_ARGS(uint16_t, float)) { return varlen_16bit(VL_PASS, q, k, v, o, lse, from_bf16, to_bf16, BUG_VL_NAN_ROWS); }

/* ---- this library's dense kernel (attention of ABI 2) ------------------------------------------
 * The varlen kernel on B sequences of n queries and m keys each, whose packed layout is the dense
 * one (only the LSE moves, from H x B*n to B x H x n): its order is the varlen kernel's by
 * construction. So varlen_plain_* declared --packing-invariant passes FALSIFY-VARLEN-003 bit for
 * bit beside it, and bug_varlen_reversed_order_f32 (correct within the bound) fails it only so. */
static int dense_offsets(const attncheck_attention_problem* p, int32_t** cu_q, int32_t** cu_k) {
  *cu_q = malloc((p->batch + 1) * sizeof(int32_t));
  *cu_k = malloc((p->batch + 1) * sizeof(int32_t));
  if (!*cu_q || !*cu_k) {
    free(*cu_q), free(*cu_k);
    return 2;
  }
  for (size_t b = 0; b <= p->batch; ++b) (*cu_q)[b] = (int32_t)(b * p->n), (*cu_k)[b] = (int32_t)(b * p->m);
  return 0;
}
static void dense_lse(const attncheck_attention_problem* p, const float* from, float* to) {
  const size_t B = p->batch, H = p->heads, n = p->n;
  for (size_t b = 0; b < B; ++b)
    for (size_t h = 0; h < H; ++h)
      for (size_t i = 0; i < n; ++i) to[(b * H + h) * n + i] = from[h * B * n + b * n + i];
}
int dense_plain_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse) {
  int32_t *cu_q, *cu_k;
  if (p->struct_size < sizeof(attncheck_attention_problem)) return 1;
  if (dense_offsets(p, &cu_q, &cu_k)) return 2;
  const size_t rows = p->batch * p->heads * p->n;
  float* l = lse ? malloc((rows ? rows : 1) * sizeof(float)) : NULL;
  const int rc = lse && !l ? 2 : varlen_rows_f32(p, cu_q, cu_k, q, k, v, o, l, BUG_VL_NONE);
  if (rc == 0 && lse) dense_lse(p, l, lse);
  free(cu_q), free(cu_k), free(l);
  return rc;
}
int dense_plain_bf16(const attncheck_attention_problem* p, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o, float* lse) {
  int32_t *cu_q, *cu_k;
  if (p->struct_size < sizeof(attncheck_attention_problem)) return 1;
  if (dense_offsets(p, &cu_q, &cu_k)) return 2;
  const size_t rows = p->batch * p->heads * p->n;
  float* l = lse ? malloc((rows ? rows : 1) * sizeof(float)) : NULL;
  const int rc = lse && !l ? 2 : varlen_16bit(p, cu_q, cu_k, q, k, v, o, l, from_bf16, to_bf16, BUG_VL_NONE);
  if (rc == 0 && lse) dense_lse(p, l, lse);
  free(cu_q), free(cu_k), free(l);
  return rc;
}
_Static_assert(_Generic(&dense_plain_f32, attncheck_attention_v2_f32_fn: 1, default: 0), "dense f32 signature");
_Static_assert(_Generic(&dense_plain_bf16, attncheck_attention_v2_bf16_fn: 1, default: 0), "dense bf16 signature");

/* ---- stray writes the library backend must see (AUDIT-SAFE-001) ------------------------------- */
int bug_varlen_o_overrun_f32(VL_ARGS(float, float)) {
  const int rc = varlen_plain_f32(VL_PASS, q, k, v, o, lse);
  if (rc == 0) o[(size_t)cu_q[p->batch] * p->heads * p->dv] = 1.0f;
  return rc;
}
int bug_varlen_o_overrun_bf16(VL_ARGS(uint16_t, float)) {
  const int rc = varlen_plain_bf16(VL_PASS, q, k, v, o, lse);
  if (rc == 0) o[(size_t)cu_q[p->batch] * p->heads * p->dv] = to_bf16(1.0f);
  return rc;
}
int bug_varlen_writes_cu_k_f32(VL_ARGS(float, float)) {
  const int rc = varlen_plain_f32(VL_PASS, q, k, v, o, lse);
  if (rc == 0) ((int32_t*)cu_k)[p->batch] += 1;
  return rc;
}

#else /* VL_F: the arithmetic at VL_F, named with the suffix SFX ---------------------------------- */

#define VL_CAT2(a, b) a##_##b
#define VL_CAT(a, b) VL_CAT2(a, b)
#define VL_FN(name) VL_CAT(name, SFX)

/* Every sequence of the batch, with one bug (BUG_VL_NONE: correct). lse may be NULL. */
static int VL_FN(varlen_rows)(const attncheck_attention_problem* p, const int32_t* cu_q, const int32_t* cu_k, const VL_F* q, const VL_F* k,
                              const VL_F* v, VL_F* o, VL_F* lse, enum varlen_bug bug) {
  const size_t B = p->batch, H = p->heads, Hkv = p->kv_heads, d = p->d, dv = p->dv;
  if (p->struct_size < sizeof(attncheck_attention_problem) || Hkv == 0 || H % Hkv != 0) return 1;
  for (size_t b = 0; b <= B; ++b)
    if (cu_q[b] < 0 || cu_k[b] < 0 || (b > 0 && (cu_q[b] < cu_q[b - 1] || cu_k[b] < cu_k[b - 1]))) return 1;
  const size_t total_q = (size_t)cu_q[B];
  VL_F* e = malloc(((size_t)cu_k[B] + 1) * sizeof(VL_F)); /* one row's scores, then weights */
  if (!e) return 2;
  const VL_F neg_inf = (VL_F)-INFINITY;
  const size_t sequences = bug == BUG_VL_LAST_SKIPPED && B > 0 ? B - 1 : B;
  for (size_t b = 0; b < sequences; ++b) {
    const size_t q0 = (size_t)cu_q[b], n = (size_t)(cu_q[b + 1] - cu_q[b]);
    const size_t k0 = bug == BUG_VL_KV_AT_Q_OFFSET ? (size_t)cu_q[b] : (size_t)cu_k[b];
    const size_t m = (size_t)((bug == BUG_VL_NEXT_VISIBLE && b + 1 < B ? cu_k[b + 2] : cu_k[b + 1]) - cu_k[b]);
    /* c(i) = i + shift: the sequence's own lengths (the bug: the batch maxima) */
    const long long shift = p->alignment != 1           ? 0
                            : bug == BUG_VL_MAX_ALIGNMENT ? (long long)p->m - (long long)p->n
                                                          : (long long)m - (long long)n;
    for (size_t i = 0; i < n; ++i)
      for (size_t h = 0; h < H; ++h) {
        const size_t g = h / (H / Hkv);
        const long long c = (long long)i + shift;
        long long lo = 0, hi = (long long)m; /* the visible keys [lo, hi) */
        if (p->window_left >= 0 && c - p->window_left > lo) lo = c - p->window_left;
        if (p->causal && c + 1 < hi) hi = c + 1;
        if (p->window_right >= 0 && c + p->window_right + 1 < hi) hi = c + p->window_right + 1;
        VL_F* oi = o + ((q0 + i) * H + h) * dv;
        VL_F* li = !lse ? NULL : bug == BUG_VL_LSE_DENSE ? lse + (b * H + h) * p->n + i : lse + h * total_q + q0 + i;
        if (hi <= lo) { /* a row that sees no key: zeros (BUG_VL_NAN_ROWS: NaN, 0/0), lse -inf */
          for (size_t cc = 0; cc < dv; ++cc) oi[cc] = bug == BUG_VL_NAN_ROWS ? (VL_F)NAN : 0;
          if (li) *li = neg_inf;
          continue;
        }
        const VL_F* qi = q + ((q0 + i) * H + h) * d;
        VL_F M = neg_inf;
        for (long long j = lo; j < hi; ++j) {
          const VL_F* kj = k + ((k0 + (size_t)j) * Hkv + g) * d;
          VL_F acc = 0;
          for (size_t t = 0; t < d; ++t) acc = acc + qi[t] * kj[t];
          VL_F s = acc * (VL_F)p->scale;
          if (p->softcap > 0) {
            const VL_F cap = (VL_F)p->softcap;
            s = s / cap;
            s = TANH(s);
            s = cap * s;
          }
          if (p->alibi_slopes) {
            const long long dist = c > j ? c - j : j - c;
            s = s - (VL_F)p->alibi_slopes[h] * (VL_F)dist;
          }
          e[j - lo] = s;
          if (s > M) M = s; /* a NaN score never becomes M, but reaches Z through its exp below */
        }
        VL_F Z = 0;
        for (long long j = lo; j < hi; ++j) e[j - lo] = EXP(e[j - lo] - M);
        /* BUG_VL_REVERSED_ORDER: both sums from the last key to the first (correct within the
         * bound; not the dense kernel's bits). */
        const int rev = bug == BUG_VL_REVERSED_ORDER;
        for (long long t = lo; t < hi; ++t) Z = Z + e[(rev ? hi - 1 - (t - lo) : t) - lo];
        for (size_t cc = 0; cc < dv; ++cc) {
          VL_F a = 0;
          for (long long t = lo; t < hi; ++t) {
            const long long j = rev ? hi - 1 - (t - lo) : t;
            a = a + e[j - lo] * v[((k0 + (size_t)j) * Hkv + g) * dv + cc];
          }
          oi[cc] = a / Z;
        }
        if (li) *li = M + LOG(Z);
      }
  }
  free(e);
  return 0;
}

#undef VL_FN
#undef VL_CAT
#undef VL_CAT2

#endif
