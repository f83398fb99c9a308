/* attncheck audit tests: attention backward kernels of ABI version 2 (include/attncheck/abi.h,
 * attncheck_attention_backward_v2_*_fn), compiled into libattncheck_audit_testkernels_bwd.so, which
 * exports the version marker.
 *
 * Correct kernels (attention_backward_impl.h: FlashAttention-2's backward pass in C, every mask,
 * alignment, window, soft-cap, ALiBi and grouped heads):
 *   bwd_plain_{f32,f64}    one block of every key
 *   bwd_tiled_{f32,f64}    key tiles of 2 (outer), query tiles of 2, dQ accumulated across key tiles
 *   bwd_fa2_{bf16,f16}     16-bit storage, f32 arithmetic, tiles of 2: P and dS rounded to the
 *                          storage format before the products (the tensor-core operands), dQ, dK, dV
 *                          accumulated in f32 and rounded once
 *   bwd_fa2_gqa_{bf16,f16} FlashAttention-2's grouped-query recipe (flash_api.cpp, mha_bwd): as
 *                          bwd_fa2_*, but dK and dV of each query head accumulated in f32 over every
 *                          query row, scaled, rounded to the storage format into dk_expanded /
 *                          dv_expanded, then summed over the group in f32 and rounded once (torch's
 *                          sum_out of a 16-bit tensor); dQ accumulated in f32 across key tiles
 *   bwd_atomic_f32         tiled, the key tiles in reverse order on every other call: correct, but
 *                          not deterministic (declare --nondeterministic)
 *   bwd_no_alibi_softcap_f32  bwd_tiled_f32 that declines ALiBi and a soft-cap (declared capabilities)
 *
 * Broken kernels (f32, tiled, one bug each; the tests that must catch each are listed in
 * tests/audit/attention_backward_test.cpp):
 *   bug_bwd_delta_omitted_f32         dS = P dP (no D term)
 *   bug_bwd_delta_from_bf16_o_f32     D from O rounded to bf16
 *   bug_bwd_dq_scale_missing_f32      dQ not multiplied by the scale
 *   bug_bwd_dk_scale_doubled_f32      dK multiplied by the scale twice
 *   bug_bwd_cap_grad_omitted_f32      no 1 - tanh^2 factor with a soft-cap
 *   bug_bwd_group_last_head_wins_f32  each query head overwrites its group's dK, dV
 *   bug_bwd_mask_not_reapplied_f32    P recomputed for masked keys of a row that sees any
 *   bug_bwd_dq_acc_bf16_f32           dQ rounded to bf16 after every key tile
 *   bug_bwd_dk_acc_bf16_f32           dK rounded to bf16 after every query row (a 16-bit dK accumulator)
 *   bug_bwd_fa2_gqa_dk_acc_bf16       bwd_fa2_gqa_bf16 with that bug: each head's dK accumulator rounded
 *                                     to bf16 after every query row. It passes FALSIFY-ATTBWD-001 (the small
 *                                     cases have few query rows per key) and fails AUDIT-ATTBWD-002
 *                                     (tests/audit/attention_backward_drift_test.cpp; issue 49)
 *   bug_bwd_lse_log2_f32              the LSE read in log2 units
 *   bug_bwd_nan_to_zero_f32          the gradients' NaNs replaced by 0 (nan_to_num)
 * and stray writes: bug_bwd_dk_overrun_f32 (one element past dK), bug_bwd_dv_far_f32 (4 KiB past
 * dV), bug_bwd_writes_lse_f32 (writes into its input lse).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"
#include "attention_backward_kernel.h"
#include "bits16.h"

ATTNCHECK_EXPORT_ABI_VERSION

#define F float
#define SFX f32
#define EXP expf
#define TANH tanhf
#include "attention_backward_impl.h"
#undef F
#undef SFX
#undef EXP
#undef TANH

#define F double
#define SFX f64
#define EXP exp
#define TANH tanh
#include "attention_backward_impl.h"
#undef F
#undef SFX
#undef EXP
#undef TANH

enum { TILE = 2 };

#define BWD_ARGS(T, S)                                                                                                          \
  const attncheck_attention_problem *p, const T *q, const T *k, const T *v, const T *o, const T *dout, const S *lse, T *dq, T *dk, \
      T *dv

/* ---- correct kernels ------------------------------------------------------------------------- */
int bwd_plain_f32(BWD_ARGS(float, float)) { return bwd_attention_f32(p, q, k, v, o, dout, lse, dq, dk, dv, 0, 0, BUG_BWD_NONE, NULL, 0); }
int bwd_tiled_f32(BWD_ARGS(float, float)) { return bwd_attention_f32(p, q, k, v, o, dout, lse, dq, dk, dv, TILE, TILE, BUG_BWD_NONE, NULL, 0); }
int bwd_plain_f64(BWD_ARGS(double, double)) { return bwd_attention_f64(p, q, k, v, o, dout, lse, dq, dk, dv, 0, 0, BUG_BWD_NONE, NULL, 0); }
int bwd_tiled_f64(BWD_ARGS(double, double)) {
  return bwd_attention_f64(p, q, k, v, o, dout, lse, dq, dk, dv, TILE, TILE, BUG_BWD_NONE, NULL, 0);
}

/* 16-bit storage, f32 arithmetic: widen, run the f32 kernel with tiles of `tile` and the roundings
 * of st, round once. Shared with kernels_attention_backward_drift.c (blocks of 64), same library. */
int attncheck_test_bwd_16bit_tiles(BWD_ARGS(uint16_t, float), size_t tile, float (*from)(uint16_t), uint16_t (*to)(float),
                                   const bwd_stores* st) {
  const size_t qs = p->batch * p->n * p->heads * p->d, ks = p->batch * p->m * p->kv_heads * p->d;
  const size_t vs = p->batch * p->m * p->kv_heads * p->dv, os = p->batch * p->n * p->heads * p->dv;
  float *qf = widen16(q, qs, from), *kf = widen16(k, ks, from), *vf = widen16(v, vs, from), *of = widen16(o, os, from), *df = widen16(dout, os, from);
  float *gq = malloc((qs ? qs : 1) * sizeof(float)), *gk = malloc((ks ? ks : 1) * sizeof(float)), *gv = malloc((vs ? vs : 1) * sizeof(float));
  int rc = 2;
  if (qf && kf && vf && of && df && gq && gk && gv) {
    rc = bwd_attention_f32(p, qf, kf, vf, of, df, lse, gq, gk, gv, tile, tile, BUG_BWD_NONE, st, 0);
    if (rc == 0) {
      for (size_t i = 0; i < qs; ++i) dq[i] = to(gq[i]);
      for (size_t i = 0; i < ks; ++i) dk[i] = to(gk[i]);
      for (size_t i = 0; i < vs; ++i) dv[i] = to(gv[i]);
    }
  }
  free(qf), free(kf), free(vf), free(of), free(df), free(gq), free(gk), free(gv);
  return rc;
}
static int bwd_16bit(BWD_ARGS(uint16_t, float), float (*from)(uint16_t), uint16_t (*to)(float), const bwd_stores* st) {
  return attncheck_test_bwd_16bit_tiles(p, q, k, v, o, dout, lse, dq, dk, dv, TILE, from, to, st);
}
static const bwd_stores stored_bf16 = {round_bf16, round_bf16, NULL, NULL};
static const bwd_stores stored_f16 = {round_f16, round_f16, NULL, NULL};
int bwd_fa2_bf16(BWD_ARGS(uint16_t, float)) { return bwd_16bit(p, q, k, v, o, dout, lse, dq, dk, dv, from_bf16, to_bf16, &stored_bf16); }
int bwd_fa2_f16(BWD_ARGS(uint16_t, float)) { return bwd_16bit(p, q, k, v, o, dout, lse, dq, dk, dv, from_f16, to_f16, &stored_f16); }

/* FlashAttention-2's grouped-query backward (csrc/flash_attn/flash_api.cpp, mha_bwd): when
 * heads != kv_heads it runs the kernel as if every query head had its own key/value head, writing
 * each head's dK and dV (accumulated in f32 registers over every query block, dK times the scale)
 * into dk_expanded / dv_expanded in the input dtype, then at::sum_out over the group (f32
 * accumulation, one rounding at the end). Here: the f32 kernel on the repeated-heads problem with P
 * and dS stored, each head's dK, dV rounded to storage, the group summed in f32 and rounded once. */
static int bwd_16bit_expanded(BWD_ARGS(uint16_t, float), float (*from)(uint16_t), uint16_t (*to)(float), const bwd_stores* st, int bug) {
  const size_t B = p->batch, H = p->heads, Hkv = p->kv_heads, m = p->m, d = p->d, dvn = p->dv;
  if (Hkv == 0 || H % Hkv != 0) return 1;
  const size_t group = H / Hkv;
  const size_t qs = B * p->n * H * d, ks = B * m * Hkv * d, vs = B * m * Hkv * dvn, os = B * p->n * H * dvn;
  const size_t kx = B * m * H * d, vx = B * m * H * dvn; /* the expanded (repeated-heads) sizes */
  float *qf = widen16(q, qs, from), *kf = widen16(k, ks, from), *vf = widen16(v, vs, from), *of = widen16(o, os, from), *df = widen16(dout, os, from);
  float *ke = malloc((kx ? kx : 1) * sizeof(float)), *ve = malloc((vx ? vx : 1) * sizeof(float));
  float *gq = malloc((qs ? qs : 1) * sizeof(float)), *gk = malloc((kx ? kx : 1) * sizeof(float)), *gv = malloc((vx ? vx : 1) * sizeof(float));
  int rc = 2;
  if (qf && kf && vf && of && df && ke && ve && gq && gk && gv) {
    for (size_t b = 0; b < B; ++b)
      for (size_t j = 0; j < m; ++j)
        for (size_t h = 0; h < H; ++h) {
          memcpy(ke + ((b * m + j) * H + h) * d, kf + ((b * m + j) * Hkv + h / group) * d, d * sizeof(float));
          memcpy(ve + ((b * m + j) * H + h) * dvn, vf + ((b * m + j) * Hkv + h / group) * dvn, dvn * sizeof(float));
        }
    attncheck_attention_problem px = *p;
    px.kv_heads = H;
    rc = bwd_attention_f32(&px, qf, ke, ve, of, df, lse, gq, gk, gv, TILE, TILE, bug, st, 0);
    if (rc == 0) {
      for (size_t i = 0; i < qs; ++i) dq[i] = to(gq[i]);
      for (size_t b = 0; b < B; ++b)
        for (size_t j = 0; j < m; ++j)
          for (size_t g = 0; g < Hkv; ++g) {
            for (size_t t = 0; t < d; ++t) {
              float acc = 0.0f; /* dk_expanded in storage, summed in f32 */
              for (size_t h = g * group; h < (g + 1) * group; ++h) acc += from(to(gk[((b * m + j) * H + h) * d + t]));
              dk[((b * m + j) * Hkv + g) * d + t] = to(acc);
            }
            for (size_t c = 0; c < dvn; ++c) {
              float acc = 0.0f;
              for (size_t h = g * group; h < (g + 1) * group; ++h) acc += from(to(gv[((b * m + j) * H + h) * dvn + c]));
              dv[((b * m + j) * Hkv + g) * dvn + c] = to(acc);
            }
          }
    }
  }
  free(qf), free(kf), free(vf), free(of), free(df), free(ke), free(ve), free(gq), free(gk), free(gv);
  return rc;
}
int bwd_fa2_gqa_bf16(BWD_ARGS(uint16_t, float)) {
  return bwd_16bit_expanded(p, q, k, v, o, dout, lse, dq, dk, dv, from_bf16, to_bf16, &stored_bf16, BUG_BWD_NONE);
}
int bwd_fa2_gqa_f16(BWD_ARGS(uint16_t, float)) {
  return bwd_16bit_expanded(p, q, k, v, o, dout, lse, dq, dk, dv, from_f16, to_f16, &stored_f16, BUG_BWD_NONE);
}
/* The same recipe with each head's dK accumulator kept in bf16 (rounded after every query row). */
int bug_bwd_fa2_gqa_dk_acc_bf16(BWD_ARGS(uint16_t, float)) {
  return bwd_16bit_expanded(p, q, k, v, o, dout, lse, dq, dk, dv, from_bf16, to_bf16, &stored_bf16, BUG_BWD_DK_ACC_BF16);
}

/* ---- nondeterministic: every other call takes the key tiles in reverse order (as atomic adds of
 * dQ from parallel key blocks land in any order): correct each time, not the same bits twice ---- */
int bwd_atomic_f32(BWD_ARGS(float, float)) {
  static int calls = 0;
  return bwd_attention_f32(p, q, k, v, o, dout, lse, dq, dk, dv, TILE, TILE, BUG_BWD_NONE, NULL, calls++ % 2);
}

/* ---- a backward kernel that computes part of what is drawn, as many shipped ones do (PyTorch's
 * SDPA flash backward has no ALiBi, cuDNN's none of the soft-cap): it declines (returns 3) ALiBi
 * slopes and a soft-cap, correct elsewhere. Declared --supports alibi=no --supports softcap=no
 * (tests/audit/capabilities_test.cpp) it is sent nothing it declines. ------------------------- */
int bwd_no_alibi_softcap_f32(BWD_ARGS(float, float)) {
  if (p->alibi_slopes != NULL || p->softcap > 0) return 3;
  return bwd_tiled_f32(p, q, k, v, o, dout, lse, dq, dk, dv);
}

/* ---- broken kernels: f32, tiled, one bug each ------------------------------------------------ */
#define BROKEN(name, bug) \
  int bug_bwd_##name##_f32(BWD_ARGS(float, float)) { return bwd_attention_f32(p, q, k, v, o, dout, lse, dq, dk, dv, TILE, TILE, bug, NULL, 0); }
BROKEN(delta_omitted, BUG_BWD_DELTA_OMITTED)
BROKEN(delta_from_bf16_o, BUG_BWD_DELTA_FROM_BF16_O)
BROKEN(dq_scale_missing, BUG_BWD_DQ_SCALE_MISSING)
BROKEN(dk_scale_doubled, BUG_BWD_DK_SCALE_DOUBLED)
BROKEN(cap_grad_omitted, BUG_BWD_CAP_GRAD_OMITTED)
BROKEN(group_last_head_wins, BUG_BWD_GROUP_LAST_HEAD_WINS)
BROKEN(mask_not_reapplied, BUG_BWD_MASK_NOT_REAPPLIED)
BROKEN(dq_acc_bf16, BUG_BWD_DQ_ACC_BF16)
BROKEN(lse_log2, BUG_BWD_LSE_LOG2)
BROKEN(dk_acc_bf16, BUG_BWD_DK_ACC_BF16)

/* ---- NaN hidden: the gradients passed through nan_to_num (a NaN becomes 0), as a training loop
 * that "sanitizes" its gradients does: a diverging step goes unseen (AUDIT-NAN-001) ------------- */
int bug_bwd_nan_to_zero_f32(BWD_ARGS(float, float)) {
  const int rc = bwd_tiled_f32(p, q, k, v, o, dout, lse, dq, dk, dv);
  const size_t sizes[3] = {p->batch * p->n * p->heads * p->d, p->batch * p->m * p->kv_heads * p->d, p->batch * p->m * p->kv_heads * p->dv};
  float* outs[3] = {dq, dk, dv};
  for (int o3 = 0; o3 < 3 && rc == 0; ++o3)
    for (size_t e = 0; e < sizes[o3]; ++e)
      if (outs[o3][e] != outs[o3][e]) outs[o3][e] = 0.0f;
  return rc;
}

/* ---- stray writes the library backend must see (AUDIT-SAFE-001) ------------------------------- */
int bug_bwd_dk_overrun_f32(BWD_ARGS(float, float)) {
  const int rc = bwd_tiled_f32(p, q, k, v, o, dout, lse, dq, dk, dv);
  if (rc == 0) dk[p->batch * p->m * p->kv_heads * p->d] = 1.0f;
  return rc;
}
int bug_bwd_dv_far_f32(BWD_ARGS(float, float)) {
  const int rc = bwd_tiled_f32(p, q, k, v, o, dout, lse, dq, dk, dv);
  if (rc == 0) dv[p->batch * p->m * p->kv_heads * p->dv + 1024] = 1.0f;
  return rc;
}
int bug_bwd_writes_lse_f32(BWD_ARGS(float, float)) {
  const int rc = bwd_tiled_f32(p, q, k, v, o, dout, lse, dq, dk, dv);
  if (rc == 0) ((float*)lse)[0] = 1.0f;
  return rc;
}
