/* attncheck audit tests: an FP8 KV cache with ABI version 2's signatures (include/attncheck/abi.h):
 * attention over the codes (attncheck_attention_fp8kv_v2_*_fn) and the cache write
 * (attncheck_kv_quantize_v2_*_fn), as vLLM's kv_cache_dtype="fp8", FlashAttention 3's descales and
 * ONNX Runtime's k_scale/v_scale keep them; compiled into libattncheck_audit_testkernels_fp8kv.so,
 * which exports the version marker.
 *
 * The 8-bit formats are written out here from the OCP definition (bias, field widths, the NaN and
 * infinity patterns), independently of attncheck's scalar/fp8.hpp: decoding splits a code into its
 * fields; encoding rounds |y| to a multiple of its binade's quantum with nearbyint (round to
 * nearest, ties to even), then applies the overflow rule.
 *
 * attention_fp8kv dequantizes every code first, k = decode(code) * k_scale[g] rounded once in the
 * arithmetic (g the key/value head, or 0 for a per-tensor scale), then computes attention's dense
 * problem (the two-pass softmax per (batch, query, head) row of kernels_attention_paged.c: the
 * causal alignment, window, soft-cap and ALiBi; a row that sees no key gives o = 0 and lse = -inf,
 * the zeros policy). kv_quantize forms y = x / scale in the arithmetic and encodes it.
 *
 * Correct kernels (f32 and f64 compute in their format; f16 and bf16 widen to f32, compute in f32
 * and round o once to nearest even; the LSE is f32 in the ABI already):
 *   fp8kv_plain_{f32,f64,f16,bf16}     attention over the codes
 *   kvq_plain_{f32,f64,f16,bf16}       the cache write
 * and two that support part of the ABI and decline the rest (return 5), as a kernel built for one
 * cache dtype does:
 *   fp8kv_e4m3_only_f32                E4M3FN codes only (declines E5M2)
 *   kvq_e4m3_sat_only_f32              E4M3FN with saturation only (declines E5M2 and the
 *                                      non-saturating rule)
 *
 * Broken kernels (one bug each, the classes of src/attncheck/kernels/broken_attention_fp8kv.hpp,
 * whose mutants contracts/attention-fp8kv-v1.yaml names, plus one NaN-decoding bug; the tests that
 * must catch each are tests/audit/attention_fp8kv_test.cpp's tables):
 *   bug_fp8kv_k_scale_missing_f32       the K scale never applied (the codes' values used as keys)
 *   bug_fp8kv_v_scale_twice_{f32,bf16}  the V scale applied at dequantization and once more on o
 *   bug_fp8kv_per_head_as_tensor_f32    per-head scales read as one per-tensor scale (scale[0])
 *   bug_fp8kv_k_scale_for_v_f32         the K scale used for V as well
 *   bug_fp8kv_e4m3_as_e5m2_f32          E4M3FN codes decoded as E5M2 (the cache dtype confused)
 *   bug_fp8kv_nan_code_finite_f32       codes decoded from their fields alone: E4M3FN's NaN 0x7f as
 *                                       480, E5M2's NaNs and infinities as 2^16 and above
 *   bug_kvq_never_saturates_f32         saturation declared, OCP's non-saturating rule done
 *   bug_kvq_always_saturates_f32        the non-saturating rule declared, saturation done
 *   bug_kvq_truncates_{f32,bf16}        |x / scale| truncated to the code below instead of rounded
 *                                       to nearest even
 *   bug_kvq_nan_clamped_f32             saturation as fmin(fmax(y, -max), max): a NaN stored as -max
 *   bug_kvq_e4m3_max_240_f32            E4M3FN saturated at +-240 (the IEEE-like E4M3's largest
 *                                       finite) instead of +-448
 *   bug_kvq_multiplies_f32              x * scale instead of x / scale
 *   bug_kvq_ties_away_{f32,bf16,f16}    |x / scale| rounded to nearest with ties away from zero
 *                                       (C's round()) instead of to even: wrong only at an exact
 *                                       midpoint between two codes
 * The nan policy of the reader: fp8kv_nan_rows_{f32,bf16} give all NaN in a row that sees no key (the
 * others give zeros): right undeclared or declared --masked nan, wrong under --masked zeros.
 * and stray writes: bug_fp8kv_o_overrun_f32 (one element past o), bug_fp8kv_writes_v_scale_f32
 * (v_scale[0] doubled after the call: into its input), bug_kvq_codes_overrun_f32 (one code past
 * codes).
 *
 * The attention arithmetic is written once below and compiled for float and double by including
 * this file twice into itself (FK_F defined), as tests/audit/kernels_attention_paged.c does.
 */
#ifndef FK_F

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"
#include "bits16.h"

ATTNCHECK_EXPORT_ABI_VERSION

enum fp8_bug {
  BUG_FP8_NONE,
  /* reading */
  BUG_FP8_K_SCALE_MISSING,
  BUG_FP8_V_SCALE_TWICE,
  BUG_FP8_PER_HEAD_AS_TENSOR,
  BUG_FP8_K_SCALE_FOR_V,
  BUG_FP8_E4M3_AS_E5M2,
  BUG_FP8_NAN_CODE_FINITE,
  /* writing */
  BUG_FP8_NEVER_SATURATES,
  BUG_FP8_ALWAYS_SATURATES,
  BUG_FP8_TRUNCATES,
  BUG_FP8_NAN_CLAMPED,
  BUG_FP8_E4M3_MAX_240,
  BUG_FP8_MULTIPLIES,
  BUG_FP8_TIES_AWAY,
  /* not a bug: the nan policy of the reader (a row that sees no key gives all NaN) */
  FP8_NAN_ROWS
};

/* The fields of a format: mantissa bits, exponent bias, largest finite value. */
struct fp8_fmt {
  int mbits, bias;
  double top;
};
static struct fp8_fmt fp8_fmt_of(int format) {
  return format == ATTNCHECK_FP8_E4M3FN ? (struct fp8_fmt){3, 7, 448.0} : (struct fp8_fmt){2, 15, 57344.0};
}

/* The value of a code: NaN for E4M3FN's S.1111.111 and E5M2's S.11111.xx (xx != 0), +-inf for
 * E5M2's S.11111.00; subnormals for an exponent field of 0. */
static double fp8_decode(int format, uint8_t code, enum fp8_bug bug) {
  if (bug == BUG_FP8_E4M3_AS_E5M2) format = ATTNCHECK_FP8_E5M2;
  const struct fp8_fmt f = fp8_fmt_of(format);
  const double sign = (code & 0x80) ? -1.0 : 1.0;
  const int ef = (code & 0x7f) >> f.mbits, mf = code & ((1 << f.mbits) - 1);
  if (bug != BUG_FP8_NAN_CODE_FINITE) {
    if (format == ATTNCHECK_FP8_E4M3FN && (code & 0x7f) == 0x7f) return NAN;
    if (format == ATTNCHECK_FP8_E5M2 && ef == 31) return mf ? NAN : sign * INFINITY;
  }
  if (ef == 0) return sign * ldexp((double)mf, 1 - f.bias - f.mbits);
  return sign * ldexp((double)((1 << f.mbits) + mf), ef - f.bias - f.mbits);
}

/* The code of y (the quotient as the kernel formed it, exact in double): round |y| to nearest even
 * in the format, then the overflow rule: +-max when saturating, else NaN (E4M3FN) or +-inf (E5M2).
 * NaN gives a NaN code; the sign of zero is kept. */
static uint8_t fp8_encode(int format, int saturating, double y, enum fp8_bug bug) {
  const struct fp8_fmt f = fp8_fmt_of(format);
  const int e4 = format == ATTNCHECK_FP8_E4M3FN, emin = 1 - f.bias;
  if (bug == BUG_FP8_NEVER_SATURATES) saturating = 0;
  if (bug == BUG_FP8_ALWAYS_SATURATES) saturating = 1;
  if (bug == BUG_FP8_NAN_CLAMPED && saturating) y = fmin(fmax(y, -f.top), f.top);
  if (bug == BUG_FP8_E4M3_MAX_240 && e4 && saturating && isfinite(y)) y = fmin(fmax(y, -240.0), 240.0);
  const uint8_t sign = signbit(y) ? 0x80 : 0x00;
  const uint8_t nan = e4 ? 0x7f : 0x7e, max = e4 ? 0x7e : 0x7b, inf = 0x7c;
  const uint8_t overflow = saturating ? max : e4 ? nan : inf;
  if (isnan(y)) return sign | nan;
  const double a = fabs(y);
  if (isinf(a)) return sign | overflow;
  if (a == 0) return sign;
  int e;
  (void)frexp(a, &e); /* a in [2^(e-1), 2^e) */
  e -= 1;
  if (e < emin) e = emin;
  const double quantum = ldexp(1.0, e - f.mbits);
  /* a / quantum is exact; round() takes halves away from zero (BUG_FP8_TIES_AWAY) */
  const double r = bug == BUG_FP8_TRUNCATES ? trunc(a / quantum) : bug == BUG_FP8_TIES_AWAY ? round(a / quantum) : nearbyint(a / quantum);
  const double v = r * quantum;
  if (v > f.top) return sign | overflow;
  if (v == 0) return sign;
  (void)frexp(v, &e);
  e -= 1;
  if (e < emin) return sign | (uint8_t)(v / ldexp(1.0, emin - f.mbits)); /* subnormal: exponent field 0 */
  return sign | (uint8_t)((e + f.bias) << f.mbits) | (uint8_t)(v / ldexp(1.0, e - f.mbits) - (1 << f.mbits));
}

/* 0 when the call is one a kernel can take: the problem's struct and heads, a known format, one
 * scale or one per key/value head. */
static int fp8kv_invalid(const attncheck_attention_problem *p, int format, size_t scale_count) {
  if (p->struct_size < sizeof(attncheck_attention_problem) || p->kv_heads == 0 || p->heads % p->kv_heads != 0) return 1;
  if (format != ATTNCHECK_FP8_E4M3FN && format != ATTNCHECK_FP8_E5M2) return 1;
  return scale_count != 1 && scale_count != p->kv_heads;
}

/* The scale of key/value head g (per tensor: the one scale), with the per-head bug. */
static float fp8_scale_at(const float *s, size_t scale_count, size_t g, enum fp8_bug bug) {
  return scale_count > 1 && bug != BUG_FP8_PER_HEAD_AS_TENSOR ? s[g] : s[0];
}

#define FK_F float
#define SFX f32
#define EXP expf
#define LOG logf
#define TANH tanhf
#include __FILE__
#undef FK_F
#undef SFX
#undef EXP
#undef LOG
#undef TANH

#define FK_F double
#define SFX f64
#define EXP exp
#define LOG log
#define TANH tanh
#include __FILE__
#undef FK_F
#undef SFX
#undef EXP
#undef LOG
#undef TANH

#define FK_ARGS(T, S)                                                                                                          \
  const attncheck_attention_problem *p, int format, size_t scale_count, const float *k_scale, const float *v_scale, const T *q, \
      const uint8_t *k, const uint8_t *v, T *o, S *lse
#define FK_PASS p, format, scale_count, k_scale, v_scale, q, k, v, o, lse
#define KVQ_ARGS(T) int format, int saturating, size_t n, float scale, const T *x, uint8_t *codes
#define KVQ_PASS format, saturating, n, scale, x, codes

/* ---- attention over the codes ------------------------------------------------------------------ */
int fp8kv_plain_f32(FK_ARGS(float, float)) { return fp8kv_f32(FK_PASS, BUG_FP8_NONE); }
int fp8kv_plain_f64(FK_ARGS(double, double)) { return fp8kv_f64(FK_PASS, BUG_FP8_NONE); }

/* 16-bit storage, f32 arithmetic: q widened, the codes dequantized in f32, attention in f32, o
 * rounded once (the LSE is f32 in the ABI already). */
static int fp8kv_16bit(FK_ARGS(uint16_t, float), float (*from)(uint16_t), uint16_t (*to)(float), enum fp8_bug bug) {
  if (fp8kv_invalid(p, format, scale_count)) return 1;
  const size_t qs = p->batch * p->n * p->heads * p->d, os = p->batch * p->n * p->heads * p->dv;
  float *qf = widen16(q, qs, from), *of = malloc((os ? os : 1) * sizeof(float));
  int rc = 2;
  if (qf && of) {
    rc = fp8kv_f32(p, format, scale_count, k_scale, v_scale, qf, k, v, of, lse, bug);
    if (rc == 0)
      for (size_t i = 0; i < os; ++i) o[i] = to(of[i]);
  }
  free(qf), free(of);
  return rc;
}
int fp8kv_plain_bf16(FK_ARGS(uint16_t, float)) { return fp8kv_16bit(FK_PASS, from_bf16, to_bf16, BUG_FP8_NONE); }
int fp8kv_plain_f16(FK_ARGS(uint16_t, float)) { return fp8kv_16bit(FK_PASS, from_f16, to_f16, BUG_FP8_NONE); }

int fp8kv_e4m3_only_f32(FK_ARGS(float, float)) {
  if (format != ATTNCHECK_FP8_E4M3FN) return 5;
  return fp8kv_plain_f32(FK_PASS);
}

/* ---- the cache write --------------------------------------------------------------------------- */
static int kvq_invalid(int format, float scale) {
  return (format != ATTNCHECK_FP8_E4M3FN && format != ATTNCHECK_FP8_E5M2) || !(scale > 0) || isinf(scale);
}

/* y = x / scale rounded in f32, then its code (the bug's quotient or code). */
static int kvq_f32(KVQ_ARGS(float), enum fp8_bug bug) {
  if (kvq_invalid(format, scale)) return 1;
  for (size_t i = 0; i < n; ++i) {
    const float y = bug == BUG_FP8_MULTIPLIES ? x[i] * scale : x[i] / scale;
    codes[i] = fp8_encode(format, saturating, (double)y, bug);
  }
  return 0;
}
int kvq_plain_f32(KVQ_ARGS(float)) { return kvq_f32(KVQ_PASS, BUG_FP8_NONE); }
int kvq_plain_f64(KVQ_ARGS(double)) {
  if (kvq_invalid(format, scale)) return 1;
  for (size_t i = 0; i < n; ++i) codes[i] = fp8_encode(format, saturating, x[i] / (double)scale, BUG_FP8_NONE);
  return 0;
}
/* 16-bit storage, f32 arithmetic: x widened (exact), the quotient in f32. */
static int kvq_16bit(KVQ_ARGS(uint16_t), float (*from)(uint16_t), enum fp8_bug bug) {
  float *xf = widen16(x, n, from);
  if (!xf) return 2;
  const int rc = kvq_f32(format, saturating, n, scale, xf, codes, bug);
  free(xf);
  return rc;
}
int kvq_plain_bf16(KVQ_ARGS(uint16_t)) { return kvq_16bit(KVQ_PASS, from_bf16, BUG_FP8_NONE); }
int kvq_plain_f16(KVQ_ARGS(uint16_t)) { return kvq_16bit(KVQ_PASS, from_f16, BUG_FP8_NONE); }

int kvq_e4m3_sat_only_f32(KVQ_ARGS(float)) {
  if (format != ATTNCHECK_FP8_E4M3FN || !saturating) return 5;
  return kvq_plain_f32(KVQ_PASS);
}

/* The signatures are abi.h's. */
_Static_assert(_Generic(&fp8kv_plain_f32, attncheck_attention_fp8kv_v2_f32_fn: 1, default: 0), "fp8kv f32 signature");
_Static_assert(_Generic(&fp8kv_plain_f64, attncheck_attention_fp8kv_v2_f64_fn: 1, default: 0), "fp8kv f64 signature");
_Static_assert(_Generic(&fp8kv_plain_bf16, attncheck_attention_fp8kv_v2_bf16_fn: 1, default: 0), "fp8kv bf16 signature");
_Static_assert(_Generic(&fp8kv_plain_f16, attncheck_attention_fp8kv_v2_f16_fn: 1, default: 0), "fp8kv f16 signature");
_Static_assert(_Generic(&kvq_plain_f32, attncheck_kv_quantize_v2_f32_fn: 1, default: 0), "kv_quantize f32 signature");
_Static_assert(_Generic(&kvq_plain_f64, attncheck_kv_quantize_v2_f64_fn: 1, default: 0), "kv_quantize f64 signature");
_Static_assert(_Generic(&kvq_plain_bf16, attncheck_kv_quantize_v2_bf16_fn: 1, default: 0), "kv_quantize bf16 signature");
_Static_assert(_Generic(&kvq_plain_f16, attncheck_kv_quantize_v2_f16_fn: 1, default: 0), "kv_quantize f16 signature");

/* ---- broken kernels: the plain kernel with one bug --------------------------------------------- */
#define BROKEN_READ(name, bug) \
  int bug_fp8kv_##name##_f32(FK_ARGS(float, float)) { return fp8kv_f32(FK_PASS, bug); }
BROKEN_READ(k_scale_missing, BUG_FP8_K_SCALE_MISSING)
BROKEN_READ(v_scale_twice, BUG_FP8_V_SCALE_TWICE)
BROKEN_READ(per_head_as_tensor, BUG_FP8_PER_HEAD_AS_TENSOR)
BROKEN_READ(k_scale_for_v, BUG_FP8_K_SCALE_FOR_V)
BROKEN_READ(e4m3_as_e5m2, BUG_FP8_E4M3_AS_E5M2)
BROKEN_READ(nan_code_finite, BUG_FP8_NAN_CODE_FINITE)
int bug_fp8kv_v_scale_twice_bf16(FK_ARGS(uint16_t, float)) { return fp8kv_16bit(FK_PASS, from_bf16, to_bf16, BUG_FP8_V_SCALE_TWICE); }

#define BROKEN_WRITE(name, bug) \
  int bug_kvq_##name##_f32(KVQ_ARGS(float)) { return kvq_f32(KVQ_PASS, bug); }
BROKEN_WRITE(never_saturates, BUG_FP8_NEVER_SATURATES)
BROKEN_WRITE(always_saturates, BUG_FP8_ALWAYS_SATURATES)
BROKEN_WRITE(truncates, BUG_FP8_TRUNCATES)
BROKEN_WRITE(nan_clamped, BUG_FP8_NAN_CLAMPED)
BROKEN_WRITE(e4m3_max_240, BUG_FP8_E4M3_MAX_240)
BROKEN_WRITE(multiplies, BUG_FP8_MULTIPLIES)
int bug_kvq_truncates_bf16(KVQ_ARGS(uint16_t)) { return kvq_16bit(KVQ_PASS, from_bf16, BUG_FP8_TRUNCATES); }
BROKEN_WRITE(ties_away, BUG_FP8_TIES_AWAY)
int bug_kvq_ties_away_bf16(KVQ_ARGS(uint16_t)) { return kvq_16bit(KVQ_PASS, from_bf16, BUG_FP8_TIES_AWAY); }
int bug_kvq_ties_away_f16(KVQ_ARGS(uint16_t)) { return kvq_16bit(KVQ_PASS, from_f16, BUG_FP8_TIES_AWAY); }

/* The nan policy of the reader: a row that sees no key gives all NaN; right undeclared (either) and
 * declared --masked nan, wrong under --masked zeros. */
int fp8kv_nan_rows_f32(FK_ARGS(float, float)) { return fp8kv_f32(FK_PASS, FP8_NAN_ROWS); }
int fp8kv_nan_rows_bf16(FK_ARGS(uint16_t, float)) { return fp8kv_16bit(FK_PASS, from_bf16, to_bf16, FP8_NAN_ROWS); }

/* ---- stray writes the library backend must see (AUDIT-SAFE-001) ------------------------------- */
int bug_fp8kv_o_overrun_f32(FK_ARGS(float, float)) {
  const int rc = fp8kv_plain_f32(FK_PASS);
  if (rc == 0) o[p->batch * p->n * p->heads * p->dv] = 1.0f;
  return rc;
}
int bug_fp8kv_writes_v_scale_f32(FK_ARGS(float, float)) {
  const int rc = fp8kv_plain_f32(FK_PASS);
  if (rc == 0) ((float *)v_scale)[0] *= 2;
  return rc;
}
int bug_kvq_codes_overrun_f32(KVQ_ARGS(float)) {
  const int rc = kvq_plain_f32(KVQ_PASS);
  if (rc == 0) codes[n] = 0x00;
  return rc;
}

#else /* FK_F: the attention arithmetic at FK_F, named with the suffix SFX --------------------------- */

#define FK_CAT2(a, b) a##_##b
#define FK_CAT(a, b) FK_CAT2(a, b)
#define FK_FN(name) FK_CAT(name, SFX)

/* The codes dequantized in FK_F: each value decode(code) (exact in FK_F) times its head's scale,
 * rounded once; with one bug. */
static void FK_FN(fp8_dequantize)(const attncheck_attention_problem *p, int format, size_t scale_count, const float *k_scale,
                                  const float *v_scale, const uint8_t *k8, const uint8_t *v8, FK_F *k, FK_F *v, enum fp8_bug bug) {
  const size_t Hkv = p->kv_heads, d = p->d, dv = p->dv;
  for (size_t t = 0; t < p->batch * p->m; ++t)
    for (size_t g = 0; g < Hkv; ++g) {
      const FK_F ks = bug == BUG_FP8_K_SCALE_MISSING ? (FK_F)1 : (FK_F)fp8_scale_at(k_scale, scale_count, g, bug);
      const FK_F vs = (FK_F)fp8_scale_at(bug == BUG_FP8_K_SCALE_FOR_V ? k_scale : v_scale, scale_count, g, bug);
      for (size_t e = 0; e < d; ++e) k[(t * Hkv + g) * d + e] = (FK_F)fp8_decode(format, k8[(t * Hkv + g) * d + e], bug) * ks;
      for (size_t e = 0; e < dv; ++e) v[(t * Hkv + g) * dv + e] = (FK_F)fp8_decode(format, v8[(t * Hkv + g) * dv + e], bug) * vs;
    }
}

/* Attention's dense problem over the dequantized cache, one (batch, query, head) row at a time. lse
 * may be NULL. */
static int FK_FN(fp8kv)(const attncheck_attention_problem *p, int format, size_t scale_count, const float *k_scale,
                        const float *v_scale, const FK_F *q, const uint8_t *k8, const uint8_t *v8, FK_F *o, FK_F *lse,
                        enum fp8_bug bug) {
  if (fp8kv_invalid(p, format, scale_count)) return 1;
  const size_t B = p->batch, H = p->heads, Hkv = p->kv_heads, n = p->n, m = p->m, d = p->d, dv = p->dv;
  FK_F *k = malloc((B * m * Hkv * d + 1) * sizeof(FK_F)), *v = malloc((B * m * Hkv * dv + 1) * sizeof(FK_F));
  FK_F *e = malloc((m + 1) * sizeof(FK_F)); /* one row's scores, then weights */
  if (!k || !v || !e) {
    free(k), free(v), free(e);
    return 2;
  }
  FK_FN(fp8_dequantize)(p, format, scale_count, k_scale, v_scale, k8, v8, k, v, bug);
  const FK_F neg_inf = (FK_F)-INFINITY;
  const long long shift = p->alignment == 1 ? (long long)m - (long long)n : 0; /* c(i) = i + shift */
  for (size_t b = 0; b < B; ++b)
    for (size_t i = 0; i < n; ++i)
      for (size_t h = 0; h < H; ++h) {
        const size_t g = h / (H / Hkv);
        const long long c = (long long)i + shift;
        long long lo = 0, hi = (long long)m; /* the visible keys [lo, hi) */
        if (p->window_left >= 0 && c - p->window_left > lo) lo = c - p->window_left;
        if (p->causal && c + 1 < hi) hi = c + 1;
        if (p->window_right >= 0 && c + p->window_right + 1 < hi) hi = c + p->window_right + 1;
        FK_F *oi = o + ((b * n + i) * H + h) * dv;
        FK_F *li = lse ? lse + (b * H + h) * n + i : NULL;
        if (hi <= lo) { /* a row that sees no key: zeros (FP8_NAN_ROWS: NaN, 0/0), lse -inf */
          for (size_t cc = 0; cc < dv; ++cc) oi[cc] = bug == FP8_NAN_ROWS ? (FK_F)NAN : 0;
          if (li) *li = neg_inf;
          continue;
        }
        const FK_F *qi = q + ((b * n + i) * H + h) * d;
        FK_F M = neg_inf;
        for (long long j = lo; j < hi; ++j) {
          const FK_F *kj = k + ((b * m + (size_t)j) * Hkv + g) * d;
          FK_F acc = 0;
          for (size_t t = 0; t < d; ++t) acc = acc + qi[t] * kj[t];
          FK_F s = acc * (FK_F)p->scale;
          if (p->softcap > 0) {
            const FK_F cap = (FK_F)p->softcap;
            s = s / cap;
            s = TANH(s);
            s = cap * s;
          }
          if (p->alibi_slopes) {
            const long long dist = c > j ? c - j : j - c;
            s = s - (FK_F)p->alibi_slopes[h] * (FK_F)dist;
          }
          e[j - lo] = s;
          if (s > M) M = s; /* a NaN score never becomes M, but reaches Z through its exp below */
        }
        FK_F Z = 0;
        for (long long j = lo; j < hi; ++j) {
          e[j - lo] = EXP(e[j - lo] - M);
          Z = Z + e[j - lo];
        }
        const FK_F again = (FK_F)fp8_scale_at(v_scale, scale_count, g, bug); /* BUG_FP8_V_SCALE_TWICE */
        for (size_t cc = 0; cc < dv; ++cc) {
          FK_F a = 0;
          for (long long j = lo; j < hi; ++j) a = a + e[j - lo] * v[((b * m + (size_t)j) * Hkv + g) * dv + cc];
          oi[cc] = a / Z;
          if (bug == BUG_FP8_V_SCALE_TWICE) oi[cc] = oi[cc] * again;
        }
        if (li) *li = M + LOG(Z);
      }
  free(k), free(v), free(e);
  return 0;
}

#undef FK_FN
#undef FK_CAT
#undef FK_CAT2

#endif
