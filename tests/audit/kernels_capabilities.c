/* attncheck audit tests: kernels that compute only what ONNX Runtime's GroupQueryAttention can
 * (declared capabilities, docs/audit.md "Capabilities"), compiled into the varlen library
 * (CAP_VARLEN) and the paged library (CAP_PAGED) beside their correct kernels, which they call.
 * GQA takes a KV cache whose new keys are its queries, so it declines (returns 3):
 *   ALiBi slopes (it has none); no causal mask (causal only); causal aligned top-left where some
 *   n_b != m_b (its mask is bottom-right); a sequence with queries and n_b > m_b (its past would be
 *   negative: m_b = 0 included, so no row is ever without a key).
 * Declared --supports alibi=no --supports non_causal=no --supports top_left=no --supports n_gt_m=no
 * every input it is sent is one it computes.
 *   gqa_like_{varlen,paged}_f32, gqa_like_varlen_f16   the above over the correct kernels
 *   gqa_like_no_softcap_varlen_f32                     also declines a soft-cap (returns 4), which
 *                                                      the declaration above says it supports */
#include <stddef.h>
#include <stdint.h>

#include "attncheck/abi.h"

/* Nonzero when GQA cannot compute sequence (n, m) of problem p (the list above). */
static int gqa_cannot(const attncheck_attention_problem *p, size_t n, size_t m) {
  if (n == 0) return 0; /* no queries: nothing to compute */
  if (n > m) return 1;
  return p->causal && p->alignment == 0 && n != m;
}

static int gqa_declines(const attncheck_attention_problem *p) { return p->alibi_slopes != NULL || !p->causal; }

#ifdef CAP_VARLEN
int varlen_plain_f32(const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *cu_k, const float *q, const float *k,
                     const float *v, float *o, float *lse);
int varlen_plain_f16(const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *cu_k, const uint16_t *q,
                     const uint16_t *k, const uint16_t *v, uint16_t *o, float *lse);

static int gqa_varlen_cannot(const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *cu_k) {
  if (gqa_declines(p)) return 1;
  for (size_t b = 0; b < p->batch; ++b)
    if (gqa_cannot(p, (size_t)(cu_q[b + 1] - cu_q[b]), (size_t)(cu_k[b + 1] - cu_k[b]))) return 1;
  return 0;
}

int gqa_like_varlen_f32(const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *cu_k, const float *q, const float *k,
                        const float *v, float *o, float *lse) {
  return gqa_varlen_cannot(p, cu_q, cu_k) ? 3 : varlen_plain_f32(p, cu_q, cu_k, q, k, v, o, lse);
}
int gqa_like_varlen_f16(const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *cu_k, const uint16_t *q,
                        const uint16_t *k, const uint16_t *v, uint16_t *o, float *lse) {
  return gqa_varlen_cannot(p, cu_q, cu_k) ? 3 : varlen_plain_f16(p, cu_q, cu_k, q, k, v, o, lse);
}
int gqa_like_no_softcap_varlen_f32(const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *cu_k, const float *q,
                                   const float *k, const float *v, float *o, float *lse) {
  return p->softcap > 0 ? 4 : gqa_like_varlen_f32(p, cu_q, cu_k, q, k, v, o, lse);
}
_Static_assert(_Generic(&gqa_like_varlen_f32, attncheck_attention_varlen_v2_f32_fn: 1, default: 0), "varlen f32 signature");
#endif

#ifdef CAP_PAGED
int paged_plain_f32(const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *seqused_k, const int32_t *block_table,
                    size_t pps, size_t ps, size_t num_pages, const float *q, const float *k_cache, const float *v_cache, float *o,
                    float *lse);

int gqa_like_paged_f32(const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *seqused_k, const int32_t *block_table,
                       size_t pps, size_t ps, size_t num_pages, const float *q, const float *k_cache, const float *v_cache, float *o,
                       float *lse) {
  if (gqa_declines(p)) return 3;
  for (size_t b = 0; b < p->batch; ++b)
    if (gqa_cannot(p, (size_t)(cu_q[b + 1] - cu_q[b]), (size_t)seqused_k[b])) return 3;
  return paged_plain_f32(p, cu_q, seqused_k, block_table, pps, ps, num_pages, q, k_cache, v_cache, o, lse);
}
_Static_assert(_Generic(&gqa_like_paged_f32, attncheck_attention_paged_v2_f32_fn: 1, default: 0), "paged f32 signature");
#endif
