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


enum { BLOCK = 64 }; /* FlashAttention-2's Br = Bc = 64 (head dimension 64 to 128 on A100) */

#define BWD_ARGS                                                                                                             \
  const attncheck_attention_problem *p, const uint16_t *q, const uint16_t *k, const uint16_t *v, const uint16_t *o,          \
      const uint16_t *dout, const float *lse, uint16_t *dq, uint16_t *dk, uint16_t *dv

/* Widen to f32, run the f32 kernel with blocks of 64 and the given roundings, narrow once
 * (kernels_attention_backward.c's wrapper, the same library). */
int attncheck_test_bwd_16bit_tiles(BWD_ARGS, size_t tile, float (*from)(uint16_t), uint16_t (*to)(float), const bwd_stores* st);
static int bwd_blocks16(BWD_ARGS, float (*from)(uint16_t), uint16_t (*to)(float), const bwd_stores* st) {
  return attncheck_test_bwd_16bit_tiles(p, q, k, v, o, dout, lse, dq, dk, dv, BLOCK, from, to, st);
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
