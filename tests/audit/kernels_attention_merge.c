/* attncheck audit tests: merge kernels of split-KV partial results (flash-decoding) with ABI version
 * 2's signature (include/attncheck/abi.h, attncheck_attention_merge_v2_*_fn), compiled into
 * libattncheck_audit_testkernels_merge.so, which exports the version marker.
 *
 * For each row r: lse[r] = log sum_s exp(lse_parts[s, r]), o[r, :] = sum_s exp(lse_parts[s, r] -
 * lse[r]) o_parts[s, r, :]. A split whose lse is -inf carries no weight and is skipped; a row whose
 * every split is -inf gives o = 0 and lse = -inf (the zeros policy).
 *
 * Correct kernels (f32 and f64 compute in their format; f16 and bf16 widen to f32 and round o to
 * nearest even once, the LSE stays f32):
 *   merge_fa2_{f32,f64,f16,bf16}   FlashAttention-2's combine: M = max, Z = sum exp(l - M),
 *                                  lse = M + log Z, o = sum exp(l_s - lse) O_s
 *   merge_vllm_{f32,f64,f16,bf16}  vLLM's merge_attn_states order: M = max, o = (sum exp(l_s - M)
 *                                  O_s) / Z, the division at the end, over all S splits at once
 *   merge_online_{f32,f64,bf16}    FlashInfer's merge_states: a running state over the splits in
 *                                  turn, rescaled when the maximum grows
 *   merge_cascade_{f32,f64,bf16}   S - 1 two-way merges, the running LSE rounded every step (the
 *                                  bound is not derived for these two orders; measured within it)
 *
 * Broken kernels (the FA2 combine with one bug each, at f32 and bf16; the tests that must catch
 * each are listed in tests/audit/attention_merge_test.cpp):
 *   bug_merge_no_max_*             exp(l) directly (no max subtraction): overflows past l = 88.7
 *   bug_merge_empty_nan_*          an all-empty row computes -inf - -inf: NaN o and lse
 *   bug_merge_lse_log2_*           the partial LSEs read as base-2 logarithms (exp2, log2)
 *   bug_merge_last_split_dropped_* the last split never read (splits > 1)
 *   bug_merge_not_normalised_*     o = sum exp(l_s - M) O_s, never divided by Z
 *   bug_merge_max_init_zero_*      the running max starts at 0: every l far below 0 underflows
 *   bug_merge_lse_stride_*         lse_parts read as rows x splits instead of splits x rows
 * and stray writes: bug_merge_o_overrun_{f32,bf16} (one element past o), bug_merge_lse_overrun_f32
 * (one element past lse, when it is asked), bug_merge_writes_lse_parts_f32 (into its input).
 *
 * The arithmetic is written once below and compiled for float and double by including this file
 * twice into itself (MERGE_F defined), as tests/audit/attention_backward_impl.h is for the backward.
 */
#ifndef MERGE_F

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"
#include "bits16.h"

ATTNCHECK_EXPORT_ABI_VERSION

enum merge_bug {
  BUG_MERGE_NONE,
  BUG_MERGE_NO_MAX,
  BUG_MERGE_EMPTY_NAN,
  BUG_MERGE_LSE_LOG2,
  BUG_MERGE_LAST_SPLIT_DROPPED,
  BUG_MERGE_NOT_NORMALISED,
  BUG_MERGE_MAX_INIT_ZERO,
  BUG_MERGE_LSE_STRIDE
};

#define MERGE_F float
#define SFX f32
#define EXP expf
#define EXP2 exp2f
#define LOG logf
#define LOG2 log2f
#include __FILE__
#undef MERGE_F
#undef SFX
#undef EXP
#undef EXP2
#undef LOG
#undef LOG2

#define MERGE_F double
#define SFX f64
#define EXP exp
#define EXP2 exp2
#define LOG log
#define LOG2 log2
#include __FILE__
#undef MERGE_F
#undef SFX
#undef EXP
#undef EXP2
#undef LOG
#undef LOG2

#define MERGE_ARGS(T, S) size_t splits, size_t rows, size_t dv, const T *o_parts, const S *lse_parts, T *o, S *lse

/* ---- correct kernels ------------------------------------------------------------------------- */
int merge_fa2_f32(MERGE_ARGS(float, float)) { return merge_fa2_rows_f32(splits, rows, dv, o_parts, lse_parts, o, lse, BUG_MERGE_NONE); }
int merge_fa2_f64(MERGE_ARGS(double, double)) { return merge_fa2_rows_f64(splits, rows, dv, o_parts, lse_parts, o, lse, BUG_MERGE_NONE); }
int merge_vllm_f32(MERGE_ARGS(float, float)) { return merge_vllm_rows_f32(splits, rows, dv, o_parts, lse_parts, o, lse); }
int merge_vllm_f64(MERGE_ARGS(double, double)) { return merge_vllm_rows_f64(splits, rows, dv, o_parts, lse_parts, o, lse); }

/* 16-bit storage, f32 arithmetic: widen o_parts, merge in f32, round o once (the LSE is f32 in the
 * ABI already). vllm: 0 the FA2 combine, 1 vLLM's order, 2 the online state, 3 the cascade. */
static int merge_16bit(MERGE_ARGS(uint16_t, float), float (*from)(uint16_t), uint16_t (*to)(float), int vllm, enum merge_bug bug) {
  const size_t in = splits * rows * dv, out = rows * dv;
  float *of = widen16(o_parts, in, from), *res = malloc((out ? out : 1) * sizeof(float));
  int rc = 2;
  if (of && res) {
    rc = vllm == 1   ? merge_vllm_rows_f32(splits, rows, dv, of, lse_parts, res, lse)
         : vllm >= 2 ? merge_chain_rows_f32(splits, rows, dv, of, lse_parts, res, lse, vllm - 2)
                     : merge_fa2_rows_f32(splits, rows, dv, of, lse_parts, res, lse, bug);
    if (rc == 0)
      for (size_t i = 0; i < out; ++i) o[i] = to(res[i]);
  }
  free(of), free(res);
  return rc;
}
int merge_fa2_bf16(MERGE_ARGS(uint16_t, float)) { return merge_16bit(splits, rows, dv, o_parts, lse_parts, o, lse, from_bf16, to_bf16, 0, BUG_MERGE_NONE); }
int merge_fa2_f16(MERGE_ARGS(uint16_t, float)) { return merge_16bit(splits, rows, dv, o_parts, lse_parts, o, lse, from_f16, to_f16, 0, BUG_MERGE_NONE); }
int merge_vllm_bf16(MERGE_ARGS(uint16_t, float)) { return merge_16bit(splits, rows, dv, o_parts, lse_parts, o, lse, from_bf16, to_bf16, 1, BUG_MERGE_NONE); }
int merge_vllm_f16(MERGE_ARGS(uint16_t, float)) { return merge_16bit(splits, rows, dv, o_parts, lse_parts, o, lse, from_f16, to_f16, 1, BUG_MERGE_NONE); }
int merge_online_f32(MERGE_ARGS(float, float)) { return merge_chain_rows_f32(splits, rows, dv, o_parts, lse_parts, o, lse, 0); }
int merge_cascade_f32(MERGE_ARGS(float, float)) { return merge_chain_rows_f32(splits, rows, dv, o_parts, lse_parts, o, lse, 1); }
int merge_online_f64(MERGE_ARGS(double, double)) { return merge_chain_rows_f64(splits, rows, dv, o_parts, lse_parts, o, lse, 0); }
int merge_cascade_f64(MERGE_ARGS(double, double)) { return merge_chain_rows_f64(splits, rows, dv, o_parts, lse_parts, o, lse, 1); }
int merge_online_bf16(MERGE_ARGS(uint16_t, float)) { return merge_16bit(splits, rows, dv, o_parts, lse_parts, o, lse, from_bf16, to_bf16, 2, BUG_MERGE_NONE); }
int merge_cascade_bf16(MERGE_ARGS(uint16_t, float)) { return merge_16bit(splits, rows, dv, o_parts, lse_parts, o, lse, from_bf16, to_bf16, 3, BUG_MERGE_NONE); }

/* The signatures are abi.h's. */
_Static_assert(_Generic(&merge_fa2_f32, attncheck_attention_merge_v2_f32_fn: 1, default: 0), "merge f32 signature");
_Static_assert(_Generic(&merge_fa2_f64, attncheck_attention_merge_v2_f64_fn: 1, default: 0), "merge f64 signature");
_Static_assert(_Generic(&merge_fa2_bf16, attncheck_attention_merge_v2_bf16_fn: 1, default: 0), "merge bf16 signature");
_Static_assert(_Generic(&merge_fa2_f16, attncheck_attention_merge_v2_f16_fn: 1, default: 0), "merge f16 signature");

/* ---- broken kernels: the FA2 combine with one bug, at f32 and bf16 ---------------------------- */
#define BROKEN(name, bug)                                                                                                   \
  int bug_merge_##name##_f32(MERGE_ARGS(float, float)) { return merge_fa2_rows_f32(splits, rows, dv, o_parts, lse_parts, o, lse, bug); } \
  int bug_merge_##name##_bf16(MERGE_ARGS(uint16_t, float)) {                                                                \
    return merge_16bit(splits, rows, dv, o_parts, lse_parts, o, lse, from_bf16, to_bf16, 0, bug);                           \
  }
BROKEN(no_max, BUG_MERGE_NO_MAX)
BROKEN(empty_nan, BUG_MERGE_EMPTY_NAN)
BROKEN(lse_log2, BUG_MERGE_LSE_LOG2)
BROKEN(last_split_dropped, BUG_MERGE_LAST_SPLIT_DROPPED)
BROKEN(not_normalised, BUG_MERGE_NOT_NORMALISED)
BROKEN(max_init_zero, BUG_MERGE_MAX_INIT_ZERO)
BROKEN(lse_stride, BUG_MERGE_LSE_STRIDE)

/* ---- stray writes the library backend must see (AUDIT-SAFE-001) ------------------------------- */
int bug_merge_o_overrun_f32(MERGE_ARGS(float, float)) {
  const int rc = merge_fa2_f32(splits, rows, dv, o_parts, lse_parts, o, lse);
  if (rc == 0) o[rows * dv] = 1.0f;
  return rc;
}
int bug_merge_o_overrun_bf16(MERGE_ARGS(uint16_t, float)) {
  const int rc = merge_fa2_bf16(splits, rows, dv, o_parts, lse_parts, o, lse);
  if (rc == 0) o[rows * dv] = to_bf16(1.0f);
  return rc;
}
int bug_merge_lse_overrun_f32(MERGE_ARGS(float, float)) {
  const int rc = merge_fa2_f32(splits, rows, dv, o_parts, lse_parts, o, lse);
  if (rc == 0 && lse) lse[rows] = 0.0f;
  return rc;
}
int bug_merge_writes_lse_parts_f32(MERGE_ARGS(float, float)) {
  const int rc = merge_fa2_f32(splits, rows, dv, o_parts, lse_parts, o, lse);
  if (rc == 0) ((float*)lse_parts)[0] = 0.0f;
  return rc;
}

#else /* MERGE_F: the arithmetic at MERGE_F, named with the suffix SFX ------------------------------ */

#define MERGE_CAT2(a, b) a##_##b
#define MERGE_CAT(a, b) MERGE_CAT2(a, b)
#define MERGE_FN(name) MERGE_CAT(name, SFX)

/* The FlashAttention-2 combine of every row, with one bug (BUG_MERGE_NONE: correct). lse may be
 * NULL. A NaN anywhere in a row's partial LSEs reaches its o and lse (NaN compares false). */
static int MERGE_FN(merge_fa2_rows)(size_t splits, size_t rows, size_t dv, const MERGE_F* o_parts, const MERGE_F* lse_parts, MERGE_F* o,
                                    MERGE_F* lse, enum merge_bug bug) {
  const size_t S = bug == BUG_MERGE_LAST_SPLIT_DROPPED && splits > 1 ? splits - 1 : splits;
  const int guard = bug != BUG_MERGE_EMPTY_NAN;  /* skip -inf splits, and treat all-empty rows apart */
  for (size_t r = 0; r < rows; ++r) {
#define MERGE_L(s) lse_parts[bug == BUG_MERGE_LSE_STRIDE ? r * splits + (s) : (s) * rows + r]
    MERGE_F* orow = o + r * dv;
    MERGE_F M = bug == BUG_MERGE_MAX_INIT_ZERO ? (MERGE_F)0 : (MERGE_F)-INFINITY;
    int any = 0;
    for (size_t s = 0; s < S; ++s) {
      const MERGE_F l = MERGE_L(s);
      if (!(l == -INFINITY)) any = 1;
      if (l > M) M = l;
    }
    for (size_t c = 0; c < dv; ++c) orow[c] = 0;
    if (!any && guard) {
      if (lse) lse[r] = (MERGE_F)-INFINITY;
      continue;
    }
    MERGE_F Z = 0;
    for (size_t s = 0; s < S; ++s) {
      const MERGE_F l = MERGE_L(s);
      if (l == -INFINITY && guard) continue;
      Z += bug == BUG_MERGE_NO_MAX ? EXP(l) : bug == BUG_MERGE_LSE_LOG2 ? EXP2(l - M) : EXP(l - M);
    }
    const MERGE_F L = bug == BUG_MERGE_NO_MAX ? LOG(Z) : bug == BUG_MERGE_LSE_LOG2 ? M + LOG2(Z) : M + LOG(Z);
    for (size_t s = 0; s < S; ++s) {
      const MERGE_F l = MERGE_L(s);
      if (l == -INFINITY && guard) continue;
      const MERGE_F w = bug == BUG_MERGE_NO_MAX          ? EXP(l) / Z
                        : bug == BUG_MERGE_LSE_LOG2      ? EXP2(l - L)
                        : bug == BUG_MERGE_NOT_NORMALISED ? EXP(l - M)
                                                          : EXP(l - L);
      const MERGE_F* part = o_parts + (s * rows + r) * dv;
      for (size_t c = 0; c < dv; ++c) orow[c] += w * part[c];
    }
    if (lse) lse[r] = L;
#undef MERGE_L
  }
  return 0;
}

/* vLLM's merge_attn_states order (the bound's order B): the max subtracted, the unnormalised sum
 * sum_s exp(l_s - M) O_s accumulated, divided by Z at the end. vLLM merges two partial results per
 * call; here all S at once (a cascade of two-way calls over S > 2 splits, each re-reading a rounded
 * LSE, compounds its errors and is not what attention-merge-v1's bound is derived for). */
static int MERGE_FN(merge_vllm_rows)(size_t splits, size_t rows, size_t dv, const MERGE_F* o_parts, const MERGE_F* lse_parts, MERGE_F* o,
                                     MERGE_F* lse) {
  for (size_t r = 0; r < rows; ++r) {
    MERGE_F* acc = o + r * dv;
    MERGE_F M = (MERGE_F)-INFINITY;
    int any = 0, nan = 0;
    for (size_t s = 0; s < splits; ++s) {
      const MERGE_F l = lse_parts[s * rows + r];
      if (l != l) nan = 1;
      if (!(l == -INFINITY)) any = 1;
      if (l > M) M = l;
    }
    for (size_t c = 0; c < dv; ++c) acc[c] = 0;
    if (!any) {
      if (lse) lse[r] = (MERGE_F)-INFINITY;
      continue;
    }
    if (nan) M = (MERGE_F)NAN;  /* a NaN partial LSE reaches the whole row */
    MERGE_F Z = 0;
    for (size_t s = 0; s < splits; ++s) {
      const MERGE_F l = lse_parts[s * rows + r];
      if (l == -INFINITY) continue;  /* an empty split */
      const MERGE_F a = EXP(l - M);
      const MERGE_F* part = o_parts + (s * rows + r) * dv;
      for (size_t c = 0; c < dv; ++c) acc[c] += a * part[c];
      Z += a;
    }
    for (size_t c = 0; c < dv; ++c) acc[c] /= Z;
    if (lse) lse[r] = M + LOG(Z);
  }
  return 0;
}

/* Two orders the bound is not derived for, kept because correct libraries use them (measured
 * within it, docs/audit.md; a proof for the cascade is open, docs/roadmap.md). A NaN partial LSE
 * reaches the whole row in both.
 * cascade 0, FlashInfer's merge_states: one running state (m, d, acc) over the splits in turn,
 *   rescaled by exp(m - m') whenever the maximum grows (an online softmax over the partials); o =
 *   acc / d and lse = m + log d at the end.
 * cascade 1, S - 1 two-way merges (vLLM's merge_attn_states or FlashInfer's merge_state_in_place
 *   called split by split, the running result kept in f32): each step merges the running (o, l)
 *   with the next split, and the running LSE l is recomputed, rounded, every step. */
static int MERGE_FN(merge_chain_rows)(size_t splits, size_t rows, size_t dv, const MERGE_F* o_parts, const MERGE_F* lse_parts, MERGE_F* o,
                                      MERGE_F* lse, int cascade) {
  for (size_t r = 0; r < rows; ++r) {
    MERGE_F* acc = o + r * dv;
    MERGE_F m = (MERGE_F)-INFINITY, d = 0;
    int nan = 0;
    for (size_t c = 0; c < dv; ++c) acc[c] = 0;
    for (size_t s = 0; s < splits; ++s) {
      const MERGE_F l = lse_parts[s * rows + r];
      const MERGE_F* part = o_parts + (s * rows + r) * dv;
      if (l != l) nan = 1;
      if (l == -INFINITY || l != l) continue; /* an empty split; a NaN one poisons the row below */
      if (m == -INFINITY) { /* the first non-empty split */
        m = l, d = 1;
        for (size_t c = 0; c < dv; ++c) acc[c] = part[c];
        continue;
      }
      const MERGE_F top = l > m ? l : m, a = EXP(m - top), b = EXP(l - top);
      if (cascade) { /* merge2((acc, m), (part, l)) -> (acc, m): normalised, the LSE rounded */
        const MERGE_F z = a + b;
        for (size_t c = 0; c < dv; ++c) acc[c] = (acc[c] * a + part[c] * b) / z;
        m = top + LOG(z);
      } else { /* the running state, unnormalised */
        d = d * a + b;
        for (size_t c = 0; c < dv; ++c) acc[c] = acc[c] * a + part[c] * b;
        m = top;
      }
    }
    if (m == -INFINITY && !nan) {
      if (lse) lse[r] = (MERGE_F)-INFINITY;
      continue;
    }
    if (!cascade)
      for (size_t c = 0; c < dv; ++c) acc[c] /= d;
    if (nan) {
      for (size_t c = 0; c < dv; ++c) acc[c] = (MERGE_F)NAN;
      m = (MERGE_F)NAN;
    }
    if (lse) lse[r] = cascade || nan ? m : m + LOG(d);
  }
  return 0;
}

#undef MERGE_FN
#undef MERGE_CAT
#undef MERGE_CAT2

#endif
