/* attncheck audit tests: what the attention backward test kernels share (kernels_attention_backward.c,
 * kernels_attention_backward_drift.c): the roundings a 16-bit kernel makes to its storage format
 * (bwd_stores) and the bug classes the broken kernels switch on (enum bwd_bug), both read by the
 * kernel body attention_backward_impl.h. */
#ifndef ATTNCHECK_TESTS_ATTENTION_BACKWARD_KERNEL_H
#define ATTNCHECK_TESTS_ATTENTION_BACKWARD_KERNEL_H

typedef float (*bwd_round_fn)(float);
typedef struct {
  bwd_round_fn p;  /* P before the dV product */
  bwd_round_fn ds; /* dS before the dQ and dK products */
  /* Accumulators kept in the storage format (a bug: FlashAttention-2 keeps them in f32), NULL in
   * a correct kernel: each row's dQ after every key tile (atomic adds of 16-bit dQ partials), each
   * key's dK after every query tile (16-bit atomic adds of dK partials from query blocks). */
  bwd_round_fn dq_acc;
  bwd_round_fn dk_acc;
} bwd_stores;

enum bwd_bug {
  BUG_BWD_NONE,
  BUG_BWD_DELTA_OMITTED,
  BUG_BWD_DELTA_FROM_BF16_O,
  BUG_BWD_DQ_SCALE_MISSING,
  BUG_BWD_DK_SCALE_DOUBLED,
  BUG_BWD_CAP_GRAD_OMITTED,
  BUG_BWD_GROUP_LAST_HEAD_WINS,
  BUG_BWD_MASK_NOT_REAPPLIED,
  BUG_BWD_DQ_ACC_BF16,
  BUG_BWD_LSE_LOG2,
  BUG_BWD_DK_ACC_BF16
};

#endif
