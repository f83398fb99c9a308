/* attncheck audit tests: attention kernels of ABI version 2 (include/attncheck/abi.h), compiled
 * into libattncheck_audit_testkernels_v2.so, which says so with ATTNCHECK_EXPORT_ABI_VERSION: its
 * `attention` kernels have the version-2 signature (the version-1 library,
 * libattncheck_audit_testkernels.so, exports no marker and keeps version 1's).
 *
 * Correct kernels, each handling both alignments, GQA, windows, soft-cap, ALiBi and the LSE (natural
 * log); fully masked rows give zeros and LSE -inf (masked: zeros):
 *   v2_plain_{f32,f64,bf16,f16}   one block of every key (the plain algorithm)
 *   v2_tiled_{f32,f64,bf16,f16}   FlashAttention's online softmax over 2 x 2 tiles of queries and keys,
 *                                 causal tiles after the diagonal skipped
 * (bf16 and f16: 16-bit storage, f32 arithmetic: the f32 kernel on widened inputs, O rounded once.)
 *
 * Broken kernels (f32, tiled, one bug each; the tests that must catch each are listed in
 * tests/audit/attention_v2_test.cpp, kBrokenKernels):
 *   bug_v2_acc_not_rescaled_f32      the accumulator is not multiplied by exp(m_old - m_new) when
 *                                    the running maximum grows in a later key tile
 *   bug_v2_max_starts_at_zero_f32    the running maximum starts at 0 instead of -inf (wrong only
 *                                    when every score of a row is far below 0: exp underflows)
 *   bug_v2_causal_tile_skip_f32      causal tile skipping rounds c/bc up: the key tile that starts
 *                                    at the last query's diagonal key is skipped
 *   bug_v2_alignment_swapped_f32     top-left for bottom-right and back (wrong when n != m)
 *   bug_v2_window_left_f32           the window's left end one key too short (j >= c - wl + 1)
 *   bug_v2_window_right_f32          the window's right end one key too short (j <= c + wr - 1)
 *   bug_v2_softcap_before_scale_f32  c tanh(q.k / c) * scale instead of c tanh(scale q.k / c)
 *   bug_v2_softcap_after_mask_f32    the cap applied to masked scores too: -inf becomes -c, so masked
 *                                    keys in a tile with a visible one get weight
 *   bug_v2_gqa_modulo_f32            query head h reads key/value head h % H_kv, not h / (H / H_kv)
 *   bug_v2_lse_log2_f32              LSE in log2 units
 *   bug_v2_lse_no_scale_f32          LSE with the running maximum in unscaled units (max / scale)
 *   bug_v2_last_block_undivided_f32  the rows of the last query tile are not divided by the normaliser
 *   bug_v2_lse_plus_inf_f32          LSE +inf for a row that sees no key (FlashAttention 2's convention)
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"
#include "bits16.h"

ATTNCHECK_EXPORT_ABI_VERSION

/* What a kernel stores in 16 bits along the way: each non-null member rounds an f32 to the storage
 * format (and back) at that point of attention_v2_impl.h. */
typedef float (*v2_round_fn)(float);
typedef struct {
  v2_round_fn dot;   /* q.k, before the scale (unfused: q @ k^T as a 16-bit tensor) */
  v2_round_fn score; /* each score step: scaled, soft-cap steps, the bias (unfused) */
  v2_round_fn p;     /* the weights P before the P.V product (fused and unfused) */
  v2_round_fn acc;   /* the O accumulator after each key tile (a bug) */
  v2_round_fn sum;   /* the normaliser after each key tile (a bug) */
  v2_round_fn pv;    /* every addition of the P.V product (a bug) */
  int normalise;     /* P normalised before it is stored, O = P.V undivided (unfused; one key tile) */
  int fold_scale;    /* the scale folded into q (stored), then q'.k (stored by dot) */
} v2_stores;

enum v2_bug {
  BUG_NONE,
  BUG_ACC_NOT_RESCALED,
  BUG_MAX_STARTS_AT_ZERO,
  BUG_CAUSAL_TILE_SKIP,
  BUG_ALIGNMENT_SWAPPED,
  BUG_WINDOW_LEFT,
  BUG_WINDOW_RIGHT,
  BUG_SOFTCAP_BEFORE_SCALE,
  BUG_SOFTCAP_AFTER_MASK,
  BUG_GQA_MODULO,
  BUG_LSE_LOG2,
  BUG_LSE_NO_SCALE,
  BUG_LAST_BLOCK_UNDIVIDED,
  BUG_LSE_PLUS_INF,
  BUG_MAX_SENTINEL,
  BUG_TAIL_PADDED
};

#define F float
#define SFX f32
#define EXP expf
#define LOG logf
#define TANH tanhf
#include "attention_v2_impl.h"
#undef F
#undef SFX
#undef EXP
#undef LOG
#undef TANH

#define F double
#define SFX f64
#define EXP exp
#define LOG log
#define TANH tanh
#include "attention_v2_impl.h"
#undef F
#undef SFX
#undef EXP
#undef LOG
#undef TANH

enum { TILE = 2 }; /* br = bc = 2: small enough that the audit's small shapes span several tiles */

/* ---- correct kernels ------------------------------------------------------------------------- */
int v2_plain_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse) {
  return v2_attention_f32(p, q, k, v, o, lse, 0, 0, BUG_NONE, NULL);
}
int v2_tiled_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse) {
  return v2_attention_f32(p, q, k, v, o, lse, TILE, TILE, BUG_NONE, NULL);
}
int v2_plain_f64(const attncheck_attention_problem* p, const double* q, const double* k, const double* v, double* o, double* lse) {
  return v2_attention_f64(p, q, k, v, o, lse, 0, 0, BUG_NONE, NULL);
}
int v2_tiled_f64(const attncheck_attention_problem* p, const double* q, const double* k, const double* v, double* o, double* lse) {
  return v2_attention_f64(p, q, k, v, o, lse, TILE, TILE, BUG_NONE, NULL);
}

/* 16-bit storage, f32 arithmetic: widen, run the f32 kernel, round O once (to nearest even). */


static int v2_16bit(const attncheck_attention_problem* p, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o,
                    float* lse, size_t tile, float (*from)(uint16_t), uint16_t (*to)(float), int bug, const v2_stores* st) {
  const size_t qs = p->batch * p->n * p->heads * p->d, ks = p->batch * p->m * p->kv_heads * p->d;
  const size_t vs = p->batch * p->m * p->kv_heads * p->dv, os = p->batch * p->n * p->heads * p->dv;
  float *qf = widen16(q, qs, from), *kf = widen16(k, ks, from), *vf = widen16(v, vs, from), *of = malloc((os ? os : 1) * sizeof(float));
  int rc = 2;
  if (qf && kf && vf && of) {
    rc = v2_attention_f32(p, qf, kf, vf, of, lse, tile, tile, bug, st);
    if (rc == 0)
      for (size_t i = 0; i < os; ++i) o[i] = to(of[i]);
  }
  free(qf), free(kf), free(vf), free(of);
  return rc;
}

int v2_plain_bf16(const attncheck_attention_problem* p, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o,
                  float* lse) {
  return v2_16bit(p, q, k, v, o, lse, 0, from_bf16, to_bf16, BUG_NONE, NULL);
}
int v2_tiled_bf16(const attncheck_attention_problem* p, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o,
                  float* lse) {
  return v2_16bit(p, q, k, v, o, lse, TILE, from_bf16, to_bf16, BUG_NONE, NULL);
}
int v2_plain_f16(const attncheck_attention_problem* p, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o,
                 float* lse) {
  return v2_16bit(p, q, k, v, o, lse, 0, from_f16, to_f16, BUG_NONE, NULL);
}
int v2_tiled_f16(const attncheck_attention_problem* p, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o,
                 float* lse) {
  return v2_16bit(p, q, k, v, o, lse, TILE, from_f16, to_f16, BUG_NONE, NULL);
}

/* ---- 16-bit kernels that really store what their model allows (docs/formats.md) -------------------
 * FlashAttention-2 as it runs on tensor cores, with tiles of 64 keys and 64 queries (and 2 x 2 for
 * shapes small enough that one tile of 64 would hide the tiling): scores, normaliser and O in f32,
 * P rounded to the storage format for the P.V product (fused, the default model). The unfused
 * kernel is PyTorch's math path: the scale folded into q (stored, so that q.k cannot overflow where
 * the scores do not), q' @ k^T stored, each soft-cap and bias step stored, P normalised and stored,
 * then P @ V (declared stores: scores,p). */
static const v2_stores fused_bf16 = {NULL, NULL, round_bf16, NULL, NULL, NULL, 0, 0};
static const v2_stores fused_f16 = {NULL, NULL, round_f16, NULL, NULL, NULL, 0, 0};
static const v2_stores unfused_bf16 = {round_bf16, round_bf16, round_bf16, NULL, NULL, NULL, 1, 1};
static const v2_stores unfused_f16 = {round_f16, round_f16, round_f16, NULL, NULL, NULL, 1, 1};

#define V2_16(name, tile, fmt, bug, stores)                                                                                \
  int name(const attncheck_attention_problem* p, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o, \
           float* lse) {                                                                                                \
    return v2_16bit(p, q, k, v, o, lse, tile, from_##fmt, to_##fmt, bug, stores);                                      \
  }
V2_16(v2_fa2_bf16, 64, bf16, BUG_NONE, &fused_bf16)
V2_16(v2_fa2_f16, 64, f16, BUG_NONE, &fused_f16)
V2_16(v2_fa2_small_bf16, TILE, bf16, BUG_NONE, &fused_bf16)
V2_16(v2_fa2_small_f16, TILE, f16, BUG_NONE, &fused_f16)
V2_16(v2_unfused_bf16, 0, bf16, BUG_NONE, &unfused_bf16)
V2_16(v2_unfused_f16, 0, f16, BUG_NONE, &unfused_f16)

/* ---- broken 16-bit kernels: the fused kernel with one bug each ------------------------------------
 *   bug_v2_acc16_bf16      the O accumulator kept in bf16 across key tiles (rounded after each tile)
 *   bug_v2_sum16_bf16      the normaliser l kept in bf16 across key tiles
 *   bug_v2_pv16_bf16       the P.V product accumulated in bf16 (every addition rounded)
 *   bug_v2_dot16_f16       q.k stored in f16 before the scale (overflows to inf beyond 65504)
 *   bug_v2_sentinel_bf16   the running maximum starts at the finite sentinel -1e4 instead of -inf
 *   bug_v2_tail_padded_bf16  tiles of 64 keys; the last, partial tile is padded with unmasked score-0
 *                          keys (values 0) when the keys span more than one tile */
static const v2_stores acc16_bf16 = {NULL, NULL, round_bf16, round_bf16, NULL, NULL, 0, 0};
static const v2_stores sum16_bf16 = {NULL, NULL, round_bf16, NULL, round_bf16, NULL, 0, 0};
static const v2_stores pv16_bf16 = {NULL, NULL, round_bf16, NULL, NULL, round_bf16, 0, 0};
static const v2_stores dot16_f16 = {round_f16, NULL, round_f16, NULL, NULL, NULL, 0, 0};
V2_16(bug_v2_acc16_bf16, TILE, bf16, BUG_NONE, &acc16_bf16)
V2_16(bug_v2_sum16_bf16, TILE, bf16, BUG_NONE, &sum16_bf16)
V2_16(bug_v2_pv16_bf16, TILE, bf16, BUG_NONE, &pv16_bf16)
V2_16(bug_v2_dot16_f16, TILE, f16, BUG_NONE, &dot16_f16)
V2_16(bug_v2_sentinel_bf16, TILE, bf16, BUG_MAX_SENTINEL, &fused_bf16)
V2_16(bug_v2_tail_padded_bf16, 64, bf16, BUG_TAIL_PADDED, &fused_bf16)

/* ---- broken kernels: f32, tiled, one bug each ------------------------------------------------ */
#define BROKEN(name, bug)                                                                                              \
  int bug_v2_##name##_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, \
                          float* lse) {                                                                                \
    return v2_attention_f32(p, q, k, v, o, lse, TILE, TILE, bug, NULL);                                                    \
  }
BROKEN(acc_not_rescaled, BUG_ACC_NOT_RESCALED)
BROKEN(max_starts_at_zero, BUG_MAX_STARTS_AT_ZERO)
BROKEN(causal_tile_skip, BUG_CAUSAL_TILE_SKIP)
BROKEN(alignment_swapped, BUG_ALIGNMENT_SWAPPED)
BROKEN(window_left, BUG_WINDOW_LEFT)
BROKEN(window_right, BUG_WINDOW_RIGHT)
BROKEN(softcap_before_scale, BUG_SOFTCAP_BEFORE_SCALE)
BROKEN(softcap_after_mask, BUG_SOFTCAP_AFTER_MASK)
BROKEN(gqa_modulo, BUG_GQA_MODULO)
BROKEN(lse_log2, BUG_LSE_LOG2)
BROKEN(lse_no_scale, BUG_LSE_NO_SCALE)
BROKEN(last_block_undivided, BUG_LAST_BLOCK_UNDIVIDED)
BROKEN(lse_plus_inf, BUG_LSE_PLUS_INF)

/* ---- stray writes the library backend must see (AUDIT-SAFE-001): one LSE element past the end
 * (the canary after lse) and 4 KiB past it (the guard page after lse) ---------------------------- */
static int v2_lse_overrun(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse,
                          size_t past) {
  const int rc = v2_attention_f32(p, q, k, v, o, lse, TILE, TILE, BUG_NONE, NULL);
  if (rc == 0 && lse) lse[p->batch * p->heads * p->n + past] = 1.0f;
  return rc;
}
int bug_v2_lse_overrun_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse) {
  return v2_lse_overrun(p, q, k, v, o, lse, 0);
}
int bug_v2_lse_far_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse) {
  return v2_lse_overrun(p, q, k, v, o, lse, 1024);
}
/* writes into the problem struct it was given (an input) */
int bug_v2_writes_problem_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o,
                              float* lse) {
  ((attncheck_attention_problem*)p)->reserved = 7;
  return v2_attention_f32(p, q, k, v, o, lse, TILE, TILE, BUG_NONE, NULL);
}

/* ---- split-KV decoding (flash-decoding; abi.h, num_splits) -------------------------------------
 * p->num_splits = S > 1: the keys cut into S ranges of ceil(m / S) keys in blocks of 2 (FlashAttention's
 * split of the key blocks), each range's partial (O_s, LSE_s) by the tiled kernel above (kept in f32:
 * FlashAttention's oaccum), then the combine step in FlashAttention's order: LSE = M + log sum
 * exp(LSE_s - M), w_s = exp(LSE_s - LSE), O = sum w_s O_s.
 *   v2_split_f32, v2_split_bf16       correct (bf16: widened, O rounded once)
 *   bug_v2_split_empty_nan_f32        a split with no visible key of a row returns O_s = 0/0 = NaN
 *   bug_v2_split_rounded_down_f32     floor(m / S) keys per split: the last keys are in no split
 *   bug_v2_split_unnormalised_f32     O = sum exp(LSE_s - M) O_s, the division by the sum forgotten
 *   v2_split_nan_rows_f32             correct under the nan policy: a row no split saw a key of gives all
 *                                     NaN (the others give zeros); wrong under --masked zeros */
enum split_bug { SPLIT_OK, SPLIT_EMPTY_NAN, SPLIT_ROUNDED_DOWN, SPLIT_UNNORMALISED, SPLIT_NAN_ROWS };
static int v2_split(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse,
                    enum split_bug bug) {
  if (p->struct_size < sizeof(attncheck_attention_problem)) return 1;
  const size_t S = p->num_splits > 1 ? p->num_splits : 1, m = p->m, dv = p->dv;
  const size_t rows = p->batch * p->n * p->heads, blocks = (m + 1) / 2;
  const size_t per = bug == SPLIT_ROUNDED_DOWN ? 2 * (blocks / S) : 2 * ((blocks + S - 1) / S);
  float* po = malloc((S * rows * dv + 1) * sizeof(float));
  float* pl = malloc((S * rows + 1) * sizeof(float));
  if (!po || !pl) {
    free(po), free(pl);
    return 2;
  }
  int rc = 0;
  for (size_t s = 0; s < S && rc == 0; ++s) {
    const size_t lo = s * per < m ? s * per : m, hi = (s + 1) * per < m ? (s + 1) * per : m;
    rc = v2_attention_range_f32(p, q, k, v, po + s * rows * dv, pl + s * rows, TILE, TILE, BUG_NONE, NULL, lo, hi);
  }
  for (size_t b = 0; rc == 0 && b < p->batch; ++b)
    for (size_t i = 0; i < p->n; ++i)
      for (size_t h = 0; h < p->heads; ++h) {
        const size_t r = (b * p->n + i) * p->heads + h, li = (b * p->heads + h) * p->n + i; /* o's row, the LSE's index */
        float M = -INFINITY;
        for (size_t s = 0; s < S; ++s) M = isnan(pl[s * rows + li]) || pl[s * rows + li] > M ? pl[s * rows + li] : M; /* NaN stays */
        float* oi = o + r * dv;
        if (M == -INFINITY) { /* no split saw a key: the masked-row policy (zeros; SPLIT_NAN_ROWS: nan) */
          for (size_t c = 0; c < dv; ++c) oi[c] = bug == SPLIT_NAN_ROWS ? NAN : 0;
          if (lse) lse[li] = -INFINITY;
          continue;
        }
        float Z = 0;
        for (size_t s = 0; s < S; ++s) Z += expf(pl[s * rows + li] - M);
        const float L = M + logf(Z);
        for (size_t c = 0; c < dv; ++c) oi[c] = 0;
        for (size_t s = 0; s < S; ++s) {
          const float ls = pl[s * rows + li];
          const float w = bug == SPLIT_UNNORMALISED ? expf(ls - M) : expf(ls - L);
          const float* os = po + (s * rows + r) * dv;
          for (size_t c = 0; c < dv; ++c) oi[c] += w * (bug == SPLIT_EMPTY_NAN && ls == -INFINITY ? NAN : os[c]);
        }
        if (lse) lse[li] = L;
      }
  free(po), free(pl);
  return rc;
}
int v2_split_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse) {
  return v2_split(p, q, k, v, o, lse, SPLIT_OK);
}
int v2_split_bf16(const attncheck_attention_problem* p, const uint16_t* q, const uint16_t* k, const uint16_t* v, uint16_t* o,
                  float* lse) {
  const size_t qs = p->batch * p->n * p->heads * p->d, ks = p->batch * p->m * p->kv_heads * p->d;
  const size_t vs = p->batch * p->m * p->kv_heads * p->dv, os = p->batch * p->n * p->heads * p->dv;
  float *qf = widen16(q, qs, from_bf16), *kf = widen16(k, ks, from_bf16), *vf = widen16(v, vs, from_bf16), *of = malloc((os ? os : 1) * sizeof(float));
  int rc = 2;
  if (qf && kf && vf && of) {
    rc = v2_split(p, qf, kf, vf, of, lse, SPLIT_OK);
    if (rc == 0)
      for (size_t i = 0; i < os; ++i) o[i] = to_bf16(of[i]);
  }
  free(qf), free(kf), free(vf), free(of);
  return rc;
}
int bug_v2_split_empty_nan_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse) {
  return v2_split(p, q, k, v, o, lse, SPLIT_EMPTY_NAN);
}
int bug_v2_split_rounded_down_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o,
                                  float* lse) {
  return v2_split(p, q, k, v, o, lse, SPLIT_ROUNDED_DOWN);
}
int bug_v2_split_unnormalised_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o,
                                  float* lse) {
  return v2_split(p, q, k, v, o, lse, SPLIT_UNNORMALISED);
}
int v2_split_nan_rows_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse) {
  return v2_split(p, q, k, v, o, lse, SPLIT_NAN_ROWS);
}

/* ABI checks at compile time: each kernel has the version-2 signature of its dtype. */
static const attncheck_attention_v2_f32_fn check_f32[] = {v2_plain_f32, v2_tiled_f32, bug_v2_acc_not_rescaled_f32, v2_split_f32};
static const attncheck_attention_v2_f64_fn check_f64[] = {v2_plain_f64, v2_tiled_f64};
static const attncheck_attention_v2_bf16_fn check_bf16[] = {v2_plain_bf16, v2_tiled_bf16, v2_split_bf16};
static const attncheck_attention_v2_f16_fn check_f16[] = {v2_plain_f16, v2_tiled_f16};
const void* attncheck_v2_signature_checks[] = {check_f32, check_f64, check_bf16, check_f16};
