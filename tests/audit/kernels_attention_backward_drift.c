/* attncheck audit tests: attention backward kernels of ABI version 2 with FlashAttention-2's block
 * sizes, built into libattncheck_audit_testkernels_bwd beside kernels_attention_backward.c: the
 * accumulator-drift cases of AUDIT-ATTBWD-002 (issue 49) need kernels whose accumulators really
 * cross blocks of 64 keys and 64 query rows, not the tiles of 2 of the other file.
 *
 * Correct (attention_backward_impl.h, 16-bit storage and f32 arithmetic, P and dS rounded to the
 * storage format before the products, every accumulator in f32 and rounded once at the end):
 *   bwd_fa2_b64_{bf16,f16}       key blocks of 64 (outer), query blocks of 64 (inner)
 * Broken (the same, with one accumulator kept in the storage format, as atomic adds of 16-bit
 * partials do, e.g. tl.atomic_add on a bf16 dQ buffer):
 *   bug_bwd_dq_acc16_{bf16,f16}  each row's dQ rounded to storage after every key block of 64
 *   bug_bwd_dk_acc16_{bf16,f16}  each key's dK rounded to storage after every query block of 64
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"
#include "attention_backward_kernel.h"
#include "bits16.h"

#define F float
#define SFX f32
#define EXP expf
#define TANH tanhf
#include "attention_backward_impl.h"
#undef F
#undef SFX
#undef EXP
#undef TANH

enum { BLOCK = 64 }; /* FlashAttention-2's Br = Bc = 64 (head dimension 64 to 128 on A100) */

#define BWD_ARGS                                                                                                             \
  const attncheck_attention_problem *p, const uint16_t *q, const uint16_t *k, const uint16_t *v, const uint16_t *o,          \
      const uint16_t *dout, const float *lse, uint16_t *dq, uint16_t *dk, uint16_t *dv

/* Widen to f32, run the f32 kernel with blocks of 64 and the given roundings, narrow once. */
static int bwd_blocks16(BWD_ARGS, float (*from)(uint16_t), uint16_t (*to)(float), const bwd_stores* st) {
  const size_t qs = p->batch * p->n * p->heads * p->d, ks = p->batch * p->m * p->kv_heads * p->d;
  const size_t vs = p->batch * p->m * p->kv_heads * p->dv, os = p->batch * p->n * p->heads * p->dv;
  float *qf = widen16(q, qs, from), *kf = widen16(k, ks, from), *vf = widen16(v, vs, from), *of = widen16(o, os, from), *df = widen16(dout, os, from);
  float *gq = malloc((qs ? qs : 1) * sizeof(float)), *gk = malloc((ks ? ks : 1) * sizeof(float)), *gv = malloc((vs ? vs : 1) * sizeof(float));
  int rc = 2;
  if (qf && kf && vf && of && df && gq && gk && gv) {
    rc = bwd_attention_f32(p, qf, kf, vf, of, df, lse, gq, gk, gv, BLOCK, BLOCK, BUG_BWD_NONE, st, 0);
    if (rc == 0) {
      for (size_t i = 0; i < qs; ++i) dq[i] = to(gq[i]);
      for (size_t i = 0; i < ks; ++i) dk[i] = to(gk[i]);
      for (size_t i = 0; i < vs; ++i) dv[i] = to(gv[i]);
    }
  }
  free(qf), free(kf), free(vf), free(of), free(df), free(gq), free(gk), free(gv);
  return rc;
}

static const bwd_stores fa2_bf16 = {round_bf16, round_bf16, NULL, NULL};
static const bwd_stores fa2_f16 = {round_f16, round_f16, NULL, NULL};
static const bwd_stores dq_acc_bf16 = {round_bf16, round_bf16, round_bf16, NULL};
static const bwd_stores dq_acc_f16 = {round_f16, round_f16, round_f16, NULL};
static const bwd_stores dk_acc_bf16 = {round_bf16, round_bf16, NULL, round_bf16};
static const bwd_stores dk_acc_f16 = {round_f16, round_f16, NULL, round_f16};

int bwd_fa2_b64_bf16(BWD_ARGS) { return bwd_blocks16(p, q, k, v, o, dout, lse, dq, dk, dv, from_bf16, to_bf16, &fa2_bf16); }
int bwd_fa2_b64_f16(BWD_ARGS) { return bwd_blocks16(p, q, k, v, o, dout, lse, dq, dk, dv, from_f16, to_f16, &fa2_f16); }
int bug_bwd_dq_acc16_bf16(BWD_ARGS) { return bwd_blocks16(p, q, k, v, o, dout, lse, dq, dk, dv, from_bf16, to_bf16, &dq_acc_bf16); }
int bug_bwd_dq_acc16_f16(BWD_ARGS) { return bwd_blocks16(p, q, k, v, o, dout, lse, dq, dk, dv, from_f16, to_f16, &dq_acc_f16); }
int bug_bwd_dk_acc16_bf16(BWD_ARGS) { return bwd_blocks16(p, q, k, v, o, dout, lse, dq, dk, dv, from_bf16, to_bf16, &dk_acc_bf16); }
int bug_bwd_dk_acc16_f16(BWD_ARGS) { return bwd_blocks16(p, q, k, v, o, dout, lse, dq, dk, dv, from_f16, to_f16, &dk_acc_f16); }
