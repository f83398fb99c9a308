/* attncheck audit tests: unfused 16-bit attention backward kernels of ABI version 2
 * (attncheck_attention_backward_v2_*_fn), compiled into libattncheck_audit_testkernels_bwd.so beside
 * kernels_attention_backward.c (which exports the version marker).
 *
 * They compute as PyTorch's autograd does on 16-bit tensors (a graph of separate ops, every op's
 * output a 16-bit tensor; f32 arithmetic inside each op, one rounding R to the storage format at
 * its end): the forward recomputed (the o and lse given are ignored), then its chain rule op by op.
 *   bwd_unfused_bf16       examples/python/torch_attention_backward.py's forward on bf16 tensors:
 *                          A = R(q @ k^T), S = R(A * R(scale)) (torch 1.13 casts a Python scalar to
 *                          the tensor's dtype), the soft-cap X = R(S / R(c)), T = R(tanh X),
 *                          R(R(c) * T), ALiBi R(S - R(R(slope) * R(dist))), P = R(softmax(S)),
 *                          O = R(P @ V). Backward: dP = R(dO @ V^T), dS = R(P (dP - D)) with
 *                          D = sum_j P_j dP_j in f32 from the stored P and dP (softmax's backward),
 *                          the soft-cap's chain rule R(dS * R(c)), R(. * (1 - T^2)), R(. / R(c)),
 *                          dA = R(. * R(scale)), dQ = R(dA @ K), per query head dK_h = R(dA^T @ Q),
 *                          dV_h = R(P^T @ dO), then each group's heads added up in order, each
 *                          addition rounded (repeat_interleave's backward: index_add_ on bf16)
 *   bwd_unfused_sdpa_{bf16,f16}  the same with the scale folded as
 *                          _scaled_dot_product_attention_math does: q' = R(q * R(sqrt(scale))),
 *                          k' = R(k * R(sqrt(scale))), A = R(q' @ k'^T) and no scale after it;
 *                          backward dq' = R(dA @ k'), dQ = R(dq' * R(sqrt(scale))), and dK likewise
 *                          (each product rounded before the final scale multiply)
 * Declared unfused (--stores scores,p,dp,ds) they pass every backward check; declared fused (the
 * default) they fail FALSIFY-ATTBWD-001 with "Passes if declared unfused"
 * (tests/audit/attention_backward_unfused_test.cpp). f16 only folded: q @ k^T of f16 operands may
 * exceed f16's range before the scale (a bug class of the forward's unfused model).
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"
#include "bits16.h"

typedef float (*round_fn)(float);

static long long diag_of(const attncheck_attention_problem* p, size_t i) {
  return (long long)i + (p->alignment == 1 ? (long long)p->m - (long long)p->n : 0);
}

static int sees(const attncheck_attention_problem* p, size_t i, size_t j) {
  const long long c = diag_of(p, i), jj = (long long)j;
  if (p->causal && jj > c) return 0;
  if (p->window_left >= 0 && jj < c - p->window_left) return 0;
  if (p->window_right >= 0 && jj > c + p->window_right) return 0;
  return 1;
}

static float dot(const float* a, const float* b, size_t d) {
  float s = 0.0f;
  for (size_t t = 0; t < d; ++t) s += a[t] * b[t];
  return s;
}

/* The whole backward pass on widened inputs: dq (B n H d), dk, dv (B m Hkv d/dv) in f32 holding
 * values already rounded by R. prescaled: the SDPA math recipe, else the scale after q @ k^T. */
static int unfused(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, const float* dout, float* dq,
                   float* dk, float* dv, round_fn R, int prescaled) {
  const size_t B = p->batch, H = p->heads, Hkv = p->kv_heads, n = p->n, m = p->m, d = p->d, dvn = p->dv;
  if (Hkv == 0 || H % Hkv != 0) return 1;
  const size_t group = H / Hkv;
  const float sc = R((float)p->scale), sf = R((float)sqrt(p->scale)), cc = R((float)p->softcap);
  const size_t md = m * d > 0 ? m * d : 1, mdv = m * dvn > 0 ? m * dvn : 1;
  float *qs = malloc((d ? d : 1) * sizeof(float)), *ks = malloc(md * sizeof(float));
  float *s = malloc((m ? m : 1) * sizeof(float)), *tn = malloc((m ? m : 1) * sizeof(float)), *pw = malloc((m ? m : 1) * sizeof(float));
  float *da = malloc((m ? m : 1) * sizeof(float)), *acc = malloc((d ? d : 1) * sizeof(float));
  float *hk = malloc(md * sizeof(float)), *hv = malloc(mdv * sizeof(float));
  int rc = 2;
  if (!(qs && ks && s && tn && pw && da && acc && hk && hv)) goto out;
  memset(dq, 0, B * n * H * d * sizeof(float));
  memset(dk, 0, B * m * Hkv * d * sizeof(float));
  memset(dv, 0, B * m * Hkv * dvn * sizeof(float));
  for (size_t b = 0; b < B; ++b)
    for (size_t h = 0; h < H; ++h) {
      const size_t g = h / group;
      memset(hk, 0, m * d * sizeof(float));
      memset(hv, 0, m * dvn * sizeof(float));
      for (size_t j = 0; j < m; ++j) /* the keys as the product reads them: k, or k' = R(k sqrt(scale)) */
        for (size_t t = 0; t < d; ++t) {
          const float kt = k[((b * m + j) * Hkv + g) * d + t];
          ks[j * d + t] = prescaled ? R(kt * sf) : kt;
        }
      for (size_t i = 0; i < n; ++i) {
        const float* qi = q + ((b * n + i) * H + h) * d;
        const float* doi = dout + ((b * n + i) * H + h) * dvn;
        const long long c = diag_of(p, i);
        for (size_t t = 0; t < d; ++t) qs[t] = prescaled ? R(qi[t] * sf) : qi[t];
        /* forward: the scores, each step stored */
        float mx = -INFINITY;
        int any = 0;
        for (size_t j = 0; j < m; ++j) {
          if (!sees(p, i, j)) continue;
          any = 1;
          float x = R(dot(qs, ks + j * d, d));
          if (!prescaled) x = R(x * sc);
          if (p->softcap > 0) {
            tn[j] = R(tanhf(R(x / cc)));
            x = R(cc * tn[j]);
          }
          if (p->alibi_slopes) {
            const long long dist = c > (long long)j ? c - (long long)j : (long long)j - c;
            x = R(x - R(R((float)p->alibi_slopes[h]) * R((float)dist)));
          }
          s[j] = x;
          if (x > mx) mx = x;
        }
        if (!any) continue; /* no key: dq's row stays 0, and no term anywhere */
        float l = 0.0f;
        for (size_t j = 0; j < m; ++j)
          if (sees(p, i, j)) l += expf(s[j] - mx);
        for (size_t j = 0; j < m; ++j)
          if (sees(p, i, j)) pw[j] = R(expf(s[j] - mx) / l);
        /* backward: dP = R(dO V^T), D from the stored P and dP, dS = R(P (dP - D)) */
        float D = 0.0f;
        for (size_t j = 0; j < m; ++j) {
          if (!sees(p, i, j)) continue;
          da[j] = R(dot(doi, v + ((b * m + j) * Hkv + g) * dvn, dvn));
          D += pw[j] * da[j];
        }
        for (size_t j = 0; j < m; ++j) {
          if (!sees(p, i, j)) continue;
          float x = R(pw[j] * (da[j] - D));
          if (p->softcap > 0) x = R(R(R(x * cc) * (1.0f - tn[j] * tn[j])) / cc);
          da[j] = prescaled ? x : R(x * sc);
        }
        /* dQ = R(dA @ K) (or R(R(dA @ k') * sqrt(scale))); dK_h, dV_h accumulated in f32 over rows */
        for (size_t t = 0; t < d; ++t) acc[t] = 0.0f;
        for (size_t j = 0; j < m; ++j) {
          if (!sees(p, i, j)) continue;
          for (size_t t = 0; t < d; ++t) {
            acc[t] += da[j] * ks[j * d + t];
            hk[j * d + t] += da[j] * qs[t];
          }
          for (size_t cv = 0; cv < dvn; ++cv) hv[j * dvn + cv] += pw[j] * doi[cv];
        }
        float* dqi = dq + ((b * n + i) * H + h) * d;
        for (size_t t = 0; t < d; ++t) dqi[t] = prescaled ? R(R(acc[t]) * sf) : R(acc[t]);
      }
      /* this head's dK, dV stored, then added to its group's sum in storage (index_add_ of
       * repeat_interleave's backward: each addition rounded) */
      for (size_t j = 0; j < m; ++j) {
        for (size_t t = 0; t < d; ++t) {
          float* e = dk + ((b * m + j) * Hkv + g) * d + t;
          *e = R(*e + (prescaled ? R(R(hk[j * d + t]) * sf) : R(hk[j * d + t])));
        }
        for (size_t cv = 0; cv < dvn; ++cv) {
          float* e = dv + ((b * m + j) * Hkv + g) * dvn + cv;
          *e = R(*e + R(hv[j * dvn + cv]));
        }
      }
    }
  rc = 0;
out:
  free(qs), free(ks), free(s), free(tn), free(pw), free(da), free(acc), free(hk), free(hv);
  return rc;
}

#define BWD_ARGS16                                                                                                                        \
  const attncheck_attention_problem *p, const uint16_t *q, const uint16_t *k, const uint16_t *v, const uint16_t *o, const uint16_t *dout, \
      const float *lse, uint16_t *dq, uint16_t *dk, uint16_t *dv

/* Widen, run, narrow (the gradients are storage values already). */
static int run16(BWD_ARGS16, float (*from)(uint16_t), uint16_t (*to)(float), round_fn R, int prescaled) {
  (void)o, (void)lse; /* recomputed, as autograd does */
  const size_t qs = p->batch * p->n * p->heads * p->d, ks = p->batch * p->m * p->kv_heads * p->d;
  const size_t vs = p->batch * p->m * p->kv_heads * p->dv, os = p->batch * p->n * p->heads * p->dv;
  float *qf = widen16(q, qs, from), *kf = widen16(k, ks, from), *vf = widen16(v, vs, from), *df = widen16(dout, os, from);
  float *gq = malloc((qs ? qs : 1) * sizeof(float)), *gk = malloc((ks ? ks : 1) * sizeof(float)), *gv = malloc((vs ? vs : 1) * sizeof(float));
  int rc = 2;
  if (qf && kf && vf && df && gq && gk && gv) {
    rc = unfused(p, qf, kf, vf, df, gq, gk, gv, R, prescaled);
    if (rc == 0) {
      for (size_t e = 0; e < qs; ++e) dq[e] = to(gq[e]);
      for (size_t e = 0; e < ks; ++e) dk[e] = to(gk[e]);
      for (size_t e = 0; e < vs; ++e) dv[e] = to(gv[e]);
    }
  }
  free(qf), free(kf), free(vf), free(df), free(gq), free(gk), free(gv);
  return rc;
}

int bwd_unfused_bf16(BWD_ARGS16) { return run16(p, q, k, v, o, dout, lse, dq, dk, dv, from_bf16, to_bf16, round_bf16, 0); }
int bwd_unfused_sdpa_bf16(BWD_ARGS16) { return run16(p, q, k, v, o, dout, lse, dq, dk, dv, from_bf16, to_bf16, round_bf16, 1); }
int bwd_unfused_sdpa_f16(BWD_ARGS16) { return run16(p, q, k, v, o, dout, lse, dq, dk, dv, from_f16, to_f16, round_f16, 1); }
