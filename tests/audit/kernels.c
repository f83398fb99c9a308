/* attncheck audit tests: small C kernels with the ABI of include/attncheck/abi.h, compiled into
 * the test library libattncheck_audit_testkernels.so. The correct ones follow the reference
 * kernels' operation order (src/attncheck/kernels/), so the derived bounds apply to them; each
 * wrong one carries one bug of a class the audit must report (tests/audit/audit_test.cpp). */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"

/* ---- correct kernels, once per precision (F = float/double, EXP/LOG/SQRT its libm) ---------- */
#define CORRECT_KERNELS(F, SFX, EXP, LOG, SQRT)                                                     \
  int ok_softmax_##SFX(const F* x, F* y, size_t n) {                                               \
    if (n == 0) return 0;                                                                          \
    F m = x[0], s = 0;                                                                             \
    for (size_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;                                        \
    for (size_t i = 0; i < n; ++i) { y[i] = EXP(x[i] - m); s += y[i]; }                            \
    for (size_t i = 0; i < n; ++i) y[i] = y[i] / s;                                                \
    return 0;                                                                                      \
  }                                                                                                \
  int ok_log_softmax_##SFX(const F* x, F* y, size_t n) {                                           \
    if (n == 0) return 0;                                                                          \
    F m = x[0], s = 0;                                                                             \
    for (size_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;                                        \
    for (size_t i = 0; i < n; ++i) s += EXP(x[i] - m);                                             \
    const F ls = LOG(s);                                                                           \
    for (size_t i = 0; i < n; ++i) y[i] = (F)(x[i] - m) - ls;                                      \
    return 0;                                                                                      \
  }                                                                                                \
  static F dot_##SFX(const F* a, const F* b, size_t d) {                                           \
    F acc = 0;                                                                                     \
    for (size_t t = 0; t < d; ++t) acc = acc + (F)(a[t] * b[t]);                                   \
    return acc;                                                                                    \
  }                                                                                                \
  int ok_scores_##SFX(const F* q, const F* k, size_t n, size_t m, size_t d, F* s) {                \
    const F scale = SQRT((F)d);                                                                    \
    for (size_t i = 0; i < n; ++i)                                                                 \
      for (size_t j = 0; j < m; ++j) s[i * m + j] = dot_##SFX(q + i * d, k + j * d, d) / scale;    \
    return 0;                                                                                      \
  }                                                                                                \
  int ok_rmsnorm_##SFX(const F* x, const F* w, size_t d, F eps, F* y) {                            \
    if (d == 0) return 0;                                                                          \
    const F ms = dot_##SFX(x, x, d) / (F)d;                                                        \
    const F r = SQRT(ms + eps);                                                                    \
    for (size_t i = 0; i < d; ++i) y[i] = (F)(x[i] / r) * w[i];                                    \
    return 0;                                                                                      \
  }                                                                                                \
  int ok_entropy_##SFX(const F* p, size_t n, F* h) {                                               \
    F acc = 0;                                                                                     \
    for (size_t i = 0; i < n; ++i)                                                                 \
      if (p[i] > 0) acc = acc + (F)(-(p[i] * LOG(p[i])));                                          \
      else if (p[i] != p[i]) acc = acc + p[i];                                                     \
    *h = acc;                                                                                      \
    return 0;                                                                                      \
  }                                                                                                \
  int ok_attention_##SFX(const F* q, const F* k, const F* v, size_t n, size_t m, size_t d,         \
                         size_t dv, int causal, F* o) {                                            \
    F* s = malloc((m ? m : 1) * sizeof(F));                                                        \
    F* p = malloc((m ? m : 1) * sizeof(F));                                                        \
    if (!s || !p) { free(s); free(p); return 1; }                                                  \
    const F scale = SQRT((F)d);                                                                    \
    for (size_t i = 0; i < n; ++i) {                                                               \
      for (size_t j = 0; j < m; ++j)                                                               \
        s[j] = (!causal || j <= i) ? dot_##SFX(q + i * d, k + j * d, d) / scale : (F)-INFINITY;    \
      ok_softmax_##SFX(s, p, m);                                                                   \
      for (size_t c = 0; c < dv; ++c) {                                                            \
        F acc = 0;                                                                                 \
        for (size_t j = 0; j < m; ++j) acc = acc + (F)(p[j] * v[j * dv + c]);                      \
        o[i * dv + c] = m > 0 ? acc : (F)NAN;                                                      \
      }                                                                                            \
    }                                                                                              \
    free(s);                                                                                       \
    free(p);                                                                                       \
    return 0;                                                                                      \
  }                                                                                                \
  int ok_softmax_jvp_##SFX(const F* x, const F* dx, size_t n, F* dy) {                             \
    if (n == 0) return 0;                                                                          \
    F* p = malloc(n * sizeof(F));                                                                  \
    if (!p) return 1;                                                                              \
    ok_softmax_##SFX(x, p, n);                                                                     \
    F mean = 0;                                                                                    \
    for (size_t j = 0; j < n; ++j) mean = mean + (F)(p[j] * dx[j]);                                \
    for (size_t i = 0; i < n; ++i) dy[i] = p[i] * (F)(dx[i] - mean);                               \
    free(p);                                                                                       \
    return 0;                                                                                      \
  }

CORRECT_KERNELS(float, f32, expf, logf, sqrtf)
CORRECT_KERNELS(double, f64, exp, log, sqrt)

/* log_softmax as a careful user writes it: y_i = (x_i - m) - log sum_j exp(x_j - m) computed in a
 * wider type (W) and rounded once to F. Its exact result may lie beyond F's range, e.g. the middle
 * entry of [-inf, -3.40282347e+38, 1.70141183e+38] at f32 (about -5.1e38): it returns -inf there,
 * the correctly rounded value, which the audit must accept (AUDIT-MASK-002, FALSIFY-SM-009). */
#define WIDE_LOG_SOFTMAX(F, W, SFX, EXPW, LOGW)                                                     \
  int wide_log_softmax_##SFX(const F* x, F* y, size_t n) {                                          \
    if (n == 0) return 0;                                                                          \
    W m = x[0], s = 0;                                                                             \
    for (size_t i = 1; i < n; ++i) m = (W)x[i] > m ? (W)x[i] : m;                                  \
    for (size_t i = 0; i < n; ++i) s += EXPW((W)x[i] - m);                                         \
    const W ls = LOGW(s);                                                                          \
    for (size_t i = 0; i < n; ++i) y[i] = (F)(((W)x[i] - m) - ls);                                 \
    return 0;                                                                                      \
  }
WIDE_LOG_SOFTMAX(float, double, f32, exp, log)
WIDE_LOG_SOFTMAX(double, long double, f64, expl, logl)

/* Flush-to-zero arithmetic (issue 49): a correct softmax whose exps and quotients below FLT_MIN
   are 0, as ONNX Runtime's MLAS and GPU kernels built with FTZ give. Fails the IEEE model where an
   exact weight is subnormal; passes declared --subnormals flush. */
static float ftz(float v) { return fabsf(v) < FLT_MIN ? 0.0f : v; }
int ftz_softmax_f32(const float* x, float* y, size_t n) {
  float m = n ? x[0] : 0;
  for (size_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  float s = 0;
  for (size_t i = 0; i < n; ++i) { y[i] = ftz(expf(ftz(x[i] - m))); s = ftz(s + y[i]); }
  for (size_t i = 0; i < n; ++i) y[i] = ftz(y[i] / s);
  return 0;
}

/* ---- wrong kernels (f32), one bug each --------------------------------------------------------- */

/* No max subtraction: exp overflows for large inputs (inf/inf = NaN). */
int bug_softmax_no_max_f32(const float* x, float* y, size_t n) {
  float s = 0;
  for (size_t i = 0; i < n; ++i) { y[i] = expf(x[i]); s += y[i]; }
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / s;
  return 0;
}

/* The max subtracted only when |max| >= 50 (exp(max) in range otherwise): entries whose exp is
   subnormal unshifted lose their bits at a moderate negative maximum (issue 49). */
int bug_softmax_shift_beyond_50_f32(const float* x, float* y, size_t n) {
  float m = n ? x[0] : 0;
  for (size_t i = 1; i < n; ++i) m = x[i] > m ? x[i] : m;
  const float shift = (m > -50 && m < 50) ? 0.0f : m;
  float s = 0;
  for (size_t i = 0; i < n; ++i) { y[i] = expf(x[i] - shift); s += y[i]; }
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / s;
  return 0;
}

/* Scores scaled by 1/d instead of 1/sqrt(d). */
int bug_scores_inv_d_f32(const float* q, const float* k, size_t n, size_t m, size_t d, float* s) {
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j) s[i * m + j] = dot_f32(q + i * d, k + j * d, d) / (float)d;
  return 0;
}

/* Dereferences NULL on rows longer than 7. */
int bug_softmax_crash_f32(const float* x, float* y, size_t n) {
  if (n > 7) {
    volatile float* volatile nowhere = NULL;
    *nowhere = x[0];
  }
  return ok_softmax_f32(x, y, n);
}

/* Dereferences NULL on rows longer than 60: its smallest faulting row is longer than the 48
 * entries an audit report shows, so the report cuts it and the replay shows it whole. */
int bug_softmax_crash_long_f32(const float* x, float* y, size_t n) {
  if (n > 60) {
    volatile float* volatile nowhere = NULL;
    *nowhere = x[0];
  }
  return ok_softmax_f32(x, y, n);
}

/* Wrong on rows longer than 60 (the first output doubled): its smallest failing row is longer than
 * the 48 entries a property's counterexample shows, so the report cuts it and --replay shows it whole. */
int bug_softmax_wrong_long_f32(const float* x, float* y, size_t n) {
  const int r = ok_softmax_f32(x, y, n);
  if (n > 60) y[0] = 2.0f * y[0] + 0.25f;
  return r;
}

/* abort()s on rows longer than 2. */
int bug_softmax_abort_f32(const float* x, float* y, size_t n) {
  if (n > 2) abort();
  return ok_softmax_f32(x, y, n);
}

/* Never returns on rows longer than 4. */
int bug_softmax_hang_f32(const float* x, float* y, size_t n) {
  volatile int forever = 1;
  while (n > 4 && forever) {
  }
  return ok_softmax_f32(x, y, n);
}

/* Writes one element past the end of its output. */
int bug_softmax_oob_f32(const float* x, float* y, size_t n) {
  ok_softmax_f32(x, y, n);
  y[n] = 0;
  return 0;
}

/* Writes far past the end of its output (into the guard page). */
int bug_softmax_oob_far_f32(const float* x, float* y, size_t n) {
  ok_softmax_f32(x, y, n);
  y[n + 64] = 0; /* 256 bytes on: past the canary words, into the guard page */
  return 0;
}

/* Uses its input as scratch space. */
int bug_softmax_modifies_input_f32(const float* x, float* y, size_t n) {
  ok_softmax_f32(x, y, n);
  if (n > 1) ((float*)x)[0] = y[0];
  return 0;
}

/* Returns a slightly different answer on every other call (state kept between calls). */
int bug_softmax_nondeterministic_f32(const float* x, float* y, size_t n) {
  static unsigned calls = 0;
  ok_softmax_f32(x, y, n);
  if (++calls % 2 == 0 && n > 0) y[0] = nextafterf(y[0], 2.0f);
  return 0;
}

/* Skips NaN entries as if they were masked: a NaN row comes back as a valid distribution. */
int bug_softmax_nan_swallowed_f32(const float* x, float* y, size_t n) {
  float m = -INFINITY, s = 0;
  for (size_t i = 0; i < n; ++i) m = fmaxf(m, x[i]);
  for (size_t i = 0; i < n; ++i) { y[i] = x[i] != x[i] ? 0.0f : expf(x[i] - m); s += y[i]; }
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / s;
  return 0;
}

/* Fully masked rows come back uniform (neither zeros nor NaN). */
int bug_softmax_masked_uniform_f32(const float* x, float* y, size_t n) {
  int all_masked = 1;
  for (size_t i = 0; i < n; ++i) all_masked &= x[i] == -INFINITY;
  if (all_masked) {
    for (size_t i = 0; i < n; ++i) y[i] = 1.0f / (float)n;
    return 0;
  }
  return ok_softmax_f32(x, y, n);
}

/* Correct, but fully masked rows give zeros (the FlashAttention convention). */
int zeros_softmax_f32(const float* x, float* y, size_t n) {
  int all_masked = 1;
  for (size_t i = 0; i < n; ++i) all_masked &= x[i] == -INFINITY;
  if (all_masked) {
    for (size_t i = 0; i < n; ++i) y[i] = 0.0f;
    return 0;
  }
  return ok_softmax_f32(x, y, n);
}

/* Correct, but declines rows longer than 100 (reported, not judged). */
int declining_softmax_f32(const float* x, float* y, size_t n) {
  if (n > 100) return 7;
  return ok_softmax_f32(x, y, n);
}

/* Integer division by zero (SIGFPE on x86-64) on rows longer than 3. */
int bug_softmax_fpe_f32(const float* x, float* y, size_t n) {
  volatile int zero = 0;
  if (n > 3) return (int)n / zero;
  return ok_softmax_f32(x, y, n);
}

/* Asks for 4 GiB of scratch space and gives up (abort) when it does not get it. Touches none
 * of it, so a broken memory limit makes this test fail without exhausting the machine. */
int bug_softmax_hog_f32(const float* x, float* y, size_t n) {
  void* scratch = malloc((size_t)1 << 32);
  if (!scratch) abort();
  free(scratch);
  return ok_softmax_f32(x, y, n);
}

/* Attention that ignores the causal flag: every query sees every key. */
int bug_attention_ignores_causal_f32(const float* q, const float* k, const float* v, size_t n, size_t m, size_t d,
                                     size_t dv, int causal, float* o) {
  (void)causal;
  return ok_attention_f32(q, k, v, n, m, d, dv, 0, o);
}

/* Attention that forgets to normalise the weights (exp(s - max) without dividing by the sum). */
int bug_attention_unnormalised_f32(const float* q, const float* k, const float* v, size_t n, size_t m, size_t d,
                                   size_t dv, int causal, float* o) {
  const float scale = sqrtf((float)d);
  for (size_t i = 0; i < n; ++i) {
    float mx = -INFINITY;
    for (size_t j = 0; j < m; ++j)
      if (!causal || j <= i) mx = fmaxf(mx, dot_f32(q + i * d, k + j * d, d) / scale);
    for (size_t c = 0; c < dv; ++c) {
      float acc = 0;
      for (size_t j = 0; j < m; ++j)
        if (!causal || j <= i) acc += expf(dot_f32(q + i * d, k + j * d, d) / scale - mx) * v[j * dv + c];
      o[i * dv + c] = acc;
    }
  }
  return 0;
}

/* Attention without the 1/sqrt(d) scale: softmax(q k^T) V, the scale forgotten (right only at d = 1); what a
 * failing audit says first is checked on it (tests/reports/check_failure_first.py). */
int bug_attention_no_scale_f32(const float* q, const float* k, const float* v, size_t n, size_t m, size_t d,
                               size_t dv, int causal, float* o) {
  float* s = malloc((m ? m : 1) * sizeof(float));
  float* p = malloc((m ? m : 1) * sizeof(float));
  if (!s || !p) { free(s); free(p); return 1; }
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j) s[j] = (!causal || j <= i) ? dot_f32(q + i * d, k + j * d, d) : -INFINITY;
    ok_softmax_f32(s, p, m);
    for (size_t c = 0; c < dv; ++c) {
      float acc = 0;
      for (size_t j = 0; j < m; ++j) acc = acc + p[j] * v[j * dv + c];
      o[i * dv + c] = m > 0 ? acc : NAN;
    }
  }
  free(s);
  free(p);
  return 0;
}

/* Attention whose query i reads the scores of query n-1-i (a row-indexing bug). */
int bug_attention_reversed_queries_f32(const float* q, const float* k, const float* v, size_t n, size_t m, size_t d,
                                       size_t dv, int causal, float* o) {
  int rc = ok_attention_f32(q, k, v, n, m, d, dv, causal, o);
  if (n > 1 && dv > 0) {
    const float t = o[0];
    o[0] = o[(n - 1) * dv];
    o[(n - 1) * dv] = t;
  }
  return rc;
}

/* Scores scaled by 1/floor(sqrt(d)): right only when d is a perfect square. */
int bug_scores_floor_sqrt_f32(const float* q, const float* k, size_t n, size_t m, size_t d, float* s) {
  const float scale = floorf(sqrtf((float)d));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j) s[i * m + j] = dot_f32(q + i * d, k + j * d, d) / scale;
  return 0;
}

/* Scores with the output transposed (s[j*n + i]): right only when n = m or one of them is 1. */
int bug_scores_transposed_f32(const float* q, const float* k, size_t n, size_t m, size_t d, float* s) {
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j < m; ++j) s[j * n + i] = dot_f32(q + i * d, k + j * d, d) / sqrtf((float)d);
  return 0;
}

/* Entropy that skips every p_i that is not > 0, NaN included: a NaN input gives a finite H. */
int bug_entropy_nan_swallowed_f32(const float* p, size_t n, float* h) {
  float acc = 0;
  for (size_t i = 0; i < n; ++i)
    if (p[i] > 0) acc = acc + (float)(-(p[i] * logf(p[i])));
  *h = acc;
  return 0;
}

/* Treats +inf entries as masked: a row with +inf comes back as a finite distribution that
 * ignores the entry that should dominate it. */
int bug_softmax_inf_ignored_f32(const float* x, float* y, size_t n) {
  float m = -INFINITY, s = 0;
  for (size_t i = 0; i < n; ++i)
    if (x[i] != INFINITY && x[i] > m) m = x[i];
  for (size_t i = 0; i < n; ++i) { y[i] = x[i] == INFINITY ? 0.0f : expf(x[i] - m); s += y[i]; }
  for (size_t i = 0; i < n; ++i) y[i] = y[i] / s;
  return 0;
}

/* ---- log_softmax: masked rows and +inf (AUDIT-MASK-001/002, AUDIT-INF-001) --------------------- */

static int all_neg_inf_f32(const float* x, size_t n) {
  int all = 1;
  for (size_t i = 0; i < n; ++i) all &= x[i] == -INFINITY;
  return all;
}

/* Correct, but fully masked rows give log 0 = -inf everywhere (the 'zeros' policy in log space). */
int neginf_log_softmax_f32(const float* x, float* y, size_t n) {
  if (all_neg_inf_f32(x, n)) {
    for (size_t i = 0; i < n; ++i) y[i] = -INFINITY;
    return 0;
  }
  return ok_log_softmax_f32(x, y, n);
}

/* Fully masked rows come back as the log of a uniform row (-ln n): no policy accepts that. */
int bug_log_softmax_masked_uniform_f32(const float* x, float* y, size_t n) {
  if (all_neg_inf_f32(x, n)) {
    for (size_t i = 0; i < n; ++i) y[i] = -logf((float)n);
    return 0;
  }
  return ok_log_softmax_f32(x, y, n);
}

/* Clamps inputs at -100 "to avoid infinities": a masked entry comes back finite. */
int bug_log_softmax_masked_finite_f32(const float* x, float* y, size_t n) {
  float* c = malloc((n ? n : 1) * sizeof(float));
  if (!c) return 1;
  for (size_t i = 0; i < n; ++i) c[i] = x[i] < -100.0f ? -100.0f : x[i];
  const int rc = ok_log_softmax_f32(c, y, n);
  free(c);
  return rc;
}

/* Correct, and rows with k entries +inf give the limit: -ln k on them, -inf elsewhere. */
int limit_log_softmax_f32(const float* x, float* y, size_t n) {
  size_t k = 0;
  int nan = 0;
  for (size_t i = 0; i < n; ++i) k += x[i] == INFINITY, nan |= x[i] != x[i];
  if (k == 0 || nan) return ok_log_softmax_f32(x, y, n);
  for (size_t i = 0; i < n; ++i) y[i] = x[i] == INFINITY ? -logf((float)k) : -INFINITY;
  return 0;
}

/* Treats +inf entries as masked: a finite log-distribution that ignores the dominating entry. */
int bug_log_softmax_inf_ignored_f32(const float* x, float* y, size_t n) {
  float* c = malloc((n ? n : 1) * sizeof(float));
  if (!c) return 1;
  for (size_t i = 0; i < n; ++i) c[i] = x[i] == INFINITY ? -INFINITY : x[i];
  const int rc = ok_log_softmax_f32(c, y, n);
  free(c);
  return rc;
}

/* ---- attention: key order (AUDIT-ATT-004) ----------------------------------------------------- */

/* Adds a position bias -j/4 to the score of key j: a convex combination of the visible values
 * that ignores no mask and treats queries alike, but weights keys by where they stand. */
int bug_attention_positional_f32(const float* q, const float* k, const float* v, size_t n, size_t m, size_t d,
                                 size_t dv, int causal, float* o) {
  float* s = malloc((m ? m : 1) * sizeof(float));
  float* p = malloc((m ? m : 1) * sizeof(float));
  if (!s || !p) { free(s); free(p); return 1; }
  const float scale = sqrtf((float)d);
  for (size_t i = 0; i < n; ++i) {
    for (size_t j = 0; j < m; ++j)
      s[j] = (!causal || j <= i) ? dot_f32(q + i * d, k + j * d, d) / scale - 0.25f * (float)j : -INFINITY;
    ok_softmax_f32(s, p, m);
    for (size_t c = 0; c < dv; ++c) {
      float acc = 0;
      for (size_t j = 0; j < m; ++j) acc = acc + (float)(p[j] * v[j * dv + c]);
      o[i * dv + c] = m > 0 ? acc : NAN;
    }
  }
  free(s);
  free(p);
  return 0;
}

/* ---- accuracy against the oracle (FALSIFY-ASCL-008, FALSIFY-ASCL-009) ------------------------- */

/* A fast exp good to 10 bits (the mantissa of expf cut to its top 10 bits, relative error up to
 * 2^-10, as a half-precision exp table would give) in an f32 kernel: the weights still sum to 1,
 * outputs stay in the range of the values, the causal mask and both permutations hold; only
 * accuracy checks see the error (FALSIFY-ASCL-009 against the exact attention, and FALSIFY-EXPR-007,
 * one head's weight within its derived interval), many times the f32 derived bound. */
static float exp_10_bits(float x) {
  float e = expf(x);
  uint32_t b;
  memcpy(&b, &e, sizeof b);
  b &= ~(uint32_t)((1u << 13) - 1);
  memcpy(&e, &b, sizeof b);
  return e;
}

int bug_attention_coarse_exp_f32(const float* q, const float* k, const float* v, size_t n, size_t m, size_t d,
                                 size_t dv, int causal, float* o) {
  float* p = malloc((m ? m : 1) * sizeof(float));
  if (!p) return 1;
  const float scale = sqrtf((float)d);
  for (size_t i = 0; i < n; ++i) {
    float mx = -INFINITY, sum = 0;
    for (size_t j = 0; j < m; ++j)
      if (!causal || j <= i) mx = fmaxf(mx, dot_f32(q + i * d, k + j * d, d) / scale);
    for (size_t j = 0; j < m; ++j) {
      p[j] = (!causal || j <= i) ? exp_10_bits(dot_f32(q + i * d, k + j * d, d) / scale - mx) : 0.0f;
      sum += p[j];
    }
    for (size_t j = 0; j < m; ++j) p[j] = p[j] / sum;
    for (size_t c = 0; c < dv; ++c) {
      float acc = 0;
      for (size_t j = 0; j < m; ++j) acc = acc + (float)(p[j] * v[j * dv + c]);
      o[i * dv + c] = m > 0 ? acc : NAN;
    }
  }
  free(p);
  return 0;
}

/* The right sum, then 2^-12 too high (relative): 2^11 f32 ULPs, above the derived entropy bound
 * (about n·2^-24 relative) for every row of up to 200 entries; non-negative, NaN in gives NaN. */
int bug_entropy_scaled_f32(const float* p, size_t n, float* h) {
  const int rc = ok_entropy_f32(p, n, h);
  *h = *h * (1.0f + 0x1p-12f);
  return rc;
}
