/* attncheck audit tests: ABI-version-2 attention kernels that decline inputs (return nonzero: the
 * input is not judged, docs/audit.md), compiled into libattncheck_audit_testkernels_v2.so beside
 * kernels_attention_v2.c (which exports the version marker for the library). As ONNX Runtime's
 * GroupQueryAttention, which cannot express a row that sees no key:
 *   v2_declines_all_f32          declines every input (every check it takes part in is NOT-JUDGED)
 *   v2_declines_empty_rows_f32   v2_plain_f32, but declines a problem with a row that sees no key
 *                                (AUDIT-ATTB-001, whose every input has one, is NOT-JUDGED; the
 *                                other checks judge the inputs it accepts) */
#include <stddef.h>

#include "attncheck/abi.h"

int v2_plain_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse);

int v2_declines_all_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o,
                        float* lse) {
  (void)p, (void)q, (void)k, (void)v, (void)o, (void)lse;
  return 3;
}

/* Whether query i sees at least one key (abi.h's masks). */
static int row_sees_a_key(const attncheck_attention_problem* p, size_t i) {
  const long long c = (long long)i + (p->alignment == 1 ? (long long)p->m - (long long)p->n : 0);
  for (long long j = 0; j < (long long)p->m; ++j) {
    if (p->causal && j > c) continue;
    if (p->window_left >= 0 && j < c - p->window_left) continue;
    if (p->window_right >= 0 && j > c + p->window_right) continue;
    return 1;
  }
  return 0;
}

int v2_declines_empty_rows_f32(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o,
                               float* lse) {
  for (size_t i = 0; i < p->n; ++i)
    if (!row_sees_a_key(p, i)) return 4;
  return v2_plain_f32(p, q, k, v, o, lse);
}
