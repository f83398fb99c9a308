/* A batched attention kernel of attncheck's ABI version 2 (include/attncheck/abi.h), as FlashAttention
 * and PyTorch's scaled_dot_product_attention take it: q B×n×H×d, k B×m×H_kv×d, v B×m×H_kv×dv,
 * o B×n×H×dv, all masks, soft-cap and ALiBi. Each row in double, rounded once to float; a row that
 * sees no key gives zeros. It returns no LSE (declared NO_LSE in CMakeLists.txt: lse is NULL). */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "attncheck/abi.h"

ATTNCHECK_EXPORT_ABI_VERSION

static int sees(const attncheck_attention_problem* p, long long c, long long j) {
  if (p->causal && j > c) return 0;
  if (p->window_left >= 0 && j < c - p->window_left) return 0;
  if (p->window_right >= 0 && j > c + p->window_right) return 0;
  return 1;
}

int my_attention(const attncheck_attention_problem* p, const float* q, const float* k, const float* v, float* o, float* lse) {
  (void)lse;
  if (p->kv_heads == 0 || p->heads % p->kv_heads != 0) return 1;
  const size_t n = p->n, m = p->m, d = p->d, dv = p->dv, H = p->heads, Hkv = p->kv_heads;
  double* acc = malloc((dv ? dv : 1) * sizeof *acc);
  if (!acc) return 2;
  for (size_t b = 0; b < p->batch; ++b)
    for (size_t i = 0; i < n; ++i)
      for (size_t h = 0; h < H; ++h) {
        const size_t g = h / (H / Hkv);
        const long long c = (long long)i + (p->alignment == 1 ? (long long)m - (long long)n : 0);
        const float* qi = q + ((b * n + i) * H + h) * d;
        float* oi = o + ((b * n + i) * H + h) * dv;
        double mx = -INFINITY;
        for (size_t j = 0; j < m; ++j) {
          if (!sees(p, c, (long long)j)) continue;
          const float* kj = k + ((b * m + j) * Hkv + g) * d;
          double s = 0;
          for (size_t t = 0; t < d; ++t) s += (double)qi[t] * kj[t];
          s *= p->scale;
          if (p->softcap > 0) s = p->softcap * tanh(s / p->softcap);
          if (p->alibi_slopes) s -= p->alibi_slopes[h] * fabs((double)(c - (long long)j));
          mx = (s > mx || isnan(s)) ? s : mx; /* a NaN score makes the row NaN */
        }
        if (isnan(mx)) {
          for (size_t t = 0; t < dv; ++t) oi[t] = NAN;
          continue;
        }
        double sum = 0;
        for (size_t t = 0; t < dv; ++t) acc[t] = 0;
        for (size_t j = 0; j < m && mx > -INFINITY; ++j) {
          if (!sees(p, c, (long long)j)) continue;
          const float* kj = k + ((b * m + j) * Hkv + g) * d;
          const float* vj = v + ((b * m + j) * Hkv + g) * dv;
          double s = 0;
          for (size_t t = 0; t < d; ++t) s += (double)qi[t] * kj[t];
          s *= p->scale;
          if (p->softcap > 0) s = p->softcap * tanh(s / p->softcap);
          if (p->alibi_slopes) s -= p->alibi_slopes[h] * fabs((double)(c - (long long)j));
          const double e = exp(s - mx);
          sum += e;
          for (size_t t = 0; t < dv; ++t) acc[t] += e * vj[t];
        }
        for (size_t t = 0; t < dv; ++t) oi[t] = sum > 0 ? (float)(acc[t] / sum) : 0.0f;
      }
  free(acc);
  return 0;
}
