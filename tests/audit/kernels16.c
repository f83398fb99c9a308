/* attncheck audit tests: 16-bit storage kernels (f16, bf16 bit patterns, include/attncheck/abi.h)
 * that compute in f32 as PyTorch's CPU kernels, oneDNN and FlashAttention do, and the subtle bugs
 * of such kernels that a vacuous 16-bit-arithmetic allowance let through (issue "Sharp
 * falsification"): a normaliser or a dot product accumulated in 16 bits, outputs rounded by
 * truncation, an f32 sum rounded toward zero, max subtraction skipped for very negative rows.
 * tests/audit/audit_test.cpp asserts each kernel's exact verdicts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"

/* ---- conversions ------------------------------------------------------------------------------ */
static float from_bf16(uint16_t b) {
  const uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint16_t to_bf16(float f) { /* round to nearest even; NaN stays a quiet NaN */
  uint32_t u;
  memcpy(&u, &f, 4);
  if (f != f) return (uint16_t)((u >> 16) | 0x40);
  return (uint16_t)((u + 0x7fff + ((u >> 16) & 1)) >> 16);
}
static uint16_t to_bf16_truncated(float f) { /* the bug: drops the low bits (round toward zero) */
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);
}
static float from_f16(uint16_t b) {
  _Float16 h;
  memcpy(&h, &b, 2);
  return (float)h;
}
static uint16_t to_f16(float f) {
  const _Float16 h = (_Float16)f; /* round to nearest even */
  uint16_t b;
  memcpy(&b, &h, 2);
  return b;
}

/* ---- correct kernels: convert in, compute in f32, round each output once -------------------- */
#define F32_ARITHMETIC_KERNELS(SFX, IN, OUT)                                                       \
  int f32math_softmax_##SFX(const uint16_t* x, uint16_t* y, size_t n) {                           \
    if (n == 0) return 0;                                                                          \
    float* e = malloc(n * sizeof(float));                                                          \
    if (!e) return 1;                                                                              \
    float m = IN(x[0]), s = 0;                                                                     \
    for (size_t i = 1; i < n; ++i) m = IN(x[i]) > m ? IN(x[i]) : m;                                \
    for (size_t i = 0; i < n; ++i) { e[i] = expf(IN(x[i]) - m); s += e[i]; }                       \
    for (size_t i = 0; i < n; ++i) y[i] = OUT(e[i] / s);                                           \
    free(e);                                                                                       \
    return 0;                                                                                      \
  }                                                                                                \
  int f32math_log_softmax_##SFX(const uint16_t* x, uint16_t* y, size_t n) {                       \
    if (n == 0) return 0;                                                                          \
    float m = IN(x[0]), s = 0;                                                                     \
    for (size_t i = 1; i < n; ++i) m = IN(x[i]) > m ? IN(x[i]) : m;                                \
    for (size_t i = 0; i < n; ++i) s += expf(IN(x[i]) - m);                                        \
    const float ls = logf(s);                                                                      \
    for (size_t i = 0; i < n; ++i) y[i] = OUT((IN(x[i]) - m) - ls);                                \
    return 0;                                                                                      \
  }                                                                                                \
  static float dot_##SFX(const uint16_t* a, const uint16_t* b, size_t d) {                         \
    float acc = 0;                                                                                 \
    for (size_t t = 0; t < d; ++t) acc += IN(a[t]) * IN(b[t]);                                     \
    return acc;                                                                                    \
  }                                                                                                \
  int f32math_scores_##SFX(const uint16_t* q, const uint16_t* k, size_t n, size_t m, size_t d,    \
                           uint16_t* s) {                                                          \
    const float scale = sqrtf((float)d);                                                           \
    for (size_t i = 0; i < n; ++i)                                                                 \
      for (size_t j = 0; j < m; ++j) s[i * m + j] = OUT(dot_##SFX(q + i * d, k + j * d, d) / scale); \
    return 0;                                                                                      \
  }                                                                                                \
  int f32math_rmsnorm_##SFX(const uint16_t* x, const uint16_t* w, size_t d, float eps, uint16_t* y) { \
    if (d == 0) return 0;                                                                          \
    const float r = sqrtf(dot_##SFX(x, x, d) / (float)d + eps);                                    \
    for (size_t i = 0; i < d; ++i) y[i] = OUT(IN(x[i]) / r * IN(w[i]));                            \
    return 0;                                                                                      \
  }                                                                                                \
  int f32math_attention_##SFX(const uint16_t* q, const uint16_t* k, const uint16_t* v, size_t n,  \
                              size_t m, size_t d, size_t dv, int causal, uint16_t* o) {            \
    float* p = malloc((m ? m : 1) * sizeof(float));                                                \
    if (!p) return 1;                                                                              \
    const float scale = sqrtf((float)d);                                                           \
    for (size_t i = 0; i < n; ++i) {                                                               \
      float mx = -INFINITY, s = 0;                                                                 \
      for (size_t j = 0; j < m; ++j) {                                                             \
        p[j] = (!causal || j <= i) ? dot_##SFX(q + i * d, k + j * d, d) / scale : -INFINITY;       \
        mx = p[j] > mx ? p[j] : mx;                                                                \
      }                                                                                            \
      for (size_t j = 0; j < m; ++j) { p[j] = expf(p[j] - mx); s += p[j]; }                        \
      for (size_t c = 0; c < dv; ++c) {                                                            \
        float acc = 0;                                                                             \
        for (size_t j = 0; j < m; ++j) acc += p[j] / s * IN(v[j * dv + c]);                        \
        o[i * dv + c] = OUT(m > 0 ? acc : NAN);                                                    \
      }                                                                                            \
    }                                                                                              \
    free(p);                                                                                       \
    return 0;                                                                                      \
  }

F32_ARITHMETIC_KERNELS(bf16, from_bf16, to_bf16)
F32_ARITHMETIC_KERNELS(f16, from_f16, to_f16)

/* ---- wrong: a normaliser or a dot product accumulated in 16 bits, declared f32 arithmetic ----- */
#define SUM16_SOFTMAX(SFX, IN, OUT)                                                                \
  int bug_softmax_sum16_##SFX(const uint16_t* x, uint16_t* y, size_t n) {                          \
    if (n == 0) return 0;                                                                          \
    float* e = malloc(n * sizeof(float));                                                          \
    if (!e) return 1;                                                                              \
    float m = IN(x[0]), s = 0;                                                                     \
    for (size_t i = 1; i < n; ++i) m = IN(x[i]) > m ? IN(x[i]) : m;                                \
    for (size_t i = 0; i < n; ++i) { e[i] = expf(IN(x[i]) - m); s = IN(OUT(s + e[i])); }           \
    for (size_t i = 0; i < n; ++i) y[i] = OUT(e[i] / s);                                           \
    free(e);                                                                                       \
    return 0;                                                                                      \
  }
SUM16_SOFTMAX(bf16, from_bf16, to_bf16)
SUM16_SOFTMAX(f16, from_f16, to_f16)

/* f16 scores whose dot product is accumulated in f16 (each partial sum rounded to 16 bits). */
int bug_scores_acc16_f16(const uint16_t* q, const uint16_t* k, size_t n, size_t m, size_t d, uint16_t* s) {
  const float scale = sqrtf((float)d);
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j) {
      float acc = 0;
      for (size_t t = 0; t < d; ++t) acc = from_f16(to_f16(acc + from_f16(q[i * d + t]) * from_f16(k[j * d + t])));
      s[i * m + j] = to_f16(acc / scale);
    }
  return 0;
}

/* A bf16 RMSNorm whose sum of squares is accumulated in bf16. */
int bug_rmsnorm_ssq16_bf16(const uint16_t* x, const uint16_t* w, size_t d, float eps, uint16_t* y) {
  if (d == 0) return 0;
  float ssq = 0;
  for (size_t t = 0; t < d; ++t) ssq = from_bf16(to_bf16(ssq + from_bf16(x[t]) * from_bf16(x[t])));
  const float r = sqrtf(ssq / (float)d + eps);
  for (size_t i = 0; i < d; ++i) y[i] = to_bf16(from_bf16(x[i]) / r * from_bf16(w[i]));
  return 0;
}

/* A bf16 softmax, f32 arithmetic, whose outputs are rounded by truncation (toward zero). */
int bug_softmax_truncated_bf16(const uint16_t* x, uint16_t* y, size_t n) {
  if (n == 0) return 0;
  float* e = malloc(n * sizeof(float));
  if (!e) return 1;
  float m = from_bf16(x[0]), s = 0;
  for (size_t i = 1; i < n; ++i) m = from_bf16(x[i]) > m ? from_bf16(x[i]) : m;
  for (size_t i = 0; i < n; ++i) { e[i] = expf(from_bf16(x[i]) - m); s += e[i]; }
  for (size_t i = 0; i < n; ++i) y[i] = to_bf16_truncated(e[i] / s);
  free(e);
  return 0;
}

/* ---- wrong f32 kernels ---------------------------------------------------------------------- */
/* a + b rounded toward zero: the double sum of two floats, then stepped toward zero if rounding
 * to nearest went away from it. */
static float add_toward_zero(float a, float b) {
  const double exact = (double)a + (double)b;
  float r = (float)exact;
  if (fabs((double)r) > fabs(exact)) r = nextafterf(r, 0.0f);
  return r;
}

/* An f32 softmax whose normaliser is accumulated with round-toward-zero. */
int bug_softmax_sum_rtz_f32(const float* x, float* y, size_t n) {
  if (n == 0) return 0;
  float m = x[0], s = 0;
  for (size_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  for (size_t i = 0; i < n; ++i) { y[i] = expf(x[i] - m); s = add_toward_zero(s, y[i]); }
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / s;
  return 0;
}

/* An f32 softmax that skips max subtraction when the max is below -50, reasoning that exp cannot
 * overflow there. Rows whose max lies in about [-104, -88] then have exps that underflow to
 * subnormals or 0 while exp(x_i - max) does not. */
int bug_softmax_skip_max_low_f32(const float* x, float* y, size_t n) {
  if (n == 0) return 0;
  float m = x[0], s = 0;
  for (size_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  if (m < -50) m = 0;
  for (size_t i = 0; i < n; ++i) { y[i] = expf(x[i] - m); s += y[i]; }
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / s;
  return 0;
}
