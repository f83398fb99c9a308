/* attncheck audit tests: the body of the ABI-version-2 attention test kernels
 * (tests/audit/kernels_attention_v2.c), included once per arithmetic format with
 *   F (float, double), SFX (f32, f64), EXP, LOG, TANH (its libm).
 * One online-softmax implementation (FlashAttention's: key tiles of bc, query tiles of br, a running
 * maximum, normaliser and accumulator per row), in the reference's operation order
 * (src/attncheck/kernels/attention_batched.hpp, online_softmax.hpp). The plain kernel is it with one
 * tile of every key and every query; `bug` switches on exactly one bug of a class shipped kernels
 * have had (enum v2_bug in the including file). jlo, jhi: the keys [jlo, jhi) only (0, m: all), the
 * partial result of one split of a split-KV decoding kernel (rows that see none of them: 0, -inf). */

#define V2_CAT2(a, b) a##b
#define V2_CAT(a, b) V2_CAT2(a, b)
#define V2_FN(name) V2_CAT(name, V2_CAT(_, SFX))

/* The key aligned with query i: i (top-left) or i + m - n (bottom-right). */
static long long V2_FN(v2_diag)(const attncheck_attention_problem* p, size_t i, int bug) {
  int bottom_right = p->alignment == 1;
  if (bug == BUG_ALIGNMENT_SWAPPED) bottom_right = !bottom_right;
  return (long long)i + (bottom_right ? (long long)p->m - (long long)p->n : 0);
}

/* Whether key j is visible to query i (abi.h). */
static int V2_FN(v2_sees)(const attncheck_attention_problem* p, size_t i, size_t j, int bug) {
  const long long c = V2_FN(v2_diag)(p, i, bug), jj = (long long)j;
  if (p->causal && jj > c) return 0;
  if (p->window_left >= 0 && jj < c - p->window_left + (bug == BUG_WINDOW_LEFT ? 1 : 0)) return 0;
  if (p->window_right >= 0 && jj > c + p->window_right - (bug == BUG_WINDOW_RIGHT ? 1 : 0)) return 0;
  return 1;
}

/* A value stored in the storage format along the way (st->fn rounds an f32 to 16 bits and back),
 * or kept as it is (no st, or no such store). */
#define V2_STORE(fn, x) (st && st->fn ? (F)st->fn((float)(x)) : (F)(x))

/* The score before masking: scale·(q·k), soft-capped, ALiBi-biased; each step stored where st says. */
static F V2_FN(v2_score)(const attncheck_attention_problem* p, const F* q, const F* k, size_t h, long long c, size_t j, int bug,
                         const v2_stores* st) {
  const F scale = (F)p->scale, cap = (F)p->softcap;
  const int fold = st && st->fold_scale; /* the scale folded into q (stored), then q'.k stored */
  F acc = 0;
  for (size_t t = 0; t < p->d; ++t) acc = acc + (F)((fold ? V2_STORE(score, q[t] * scale) : q[t]) * k[t]);
  acc = V2_STORE(dot, acc);
  F s;
  if (p->softcap > 0 && bug == BUG_SOFTCAP_BEFORE_SCALE) {
    s = (F)(cap * TANH((F)(acc / cap))) * scale;
  } else {
    s = fold ? acc : V2_STORE(score, acc * scale);
    if (p->softcap > 0 && bug != BUG_SOFTCAP_AFTER_MASK) {
      s = V2_STORE(score, s / cap);
      s = V2_STORE(score, TANH(s));
      s = V2_STORE(score, cap * s);
    }
  }
  if (p->alibi_slopes) {
    const long long dist = c > (long long)j ? c - (long long)j : (long long)j - c;
    s = V2_STORE(score, s - V2_STORE(score, (F)p->alibi_slopes[h] * (F)dist));
  }
  return s;
}

/* One row's running state. */
typedef struct {
  F max, sum;
  F* acc;
  size_t keys;
} V2_FN(v2_row);

static int V2_FN(v2_attention_range)(const attncheck_attention_problem* p, const F* q, const F* k, const F* v, F* o, F* lse,
                                     size_t br, size_t bc, int bug, const v2_stores* st, size_t jlo, size_t jhi) {
  const size_t n = p->n, m = p->m, d = p->d, dv = p->dv, H = p->heads, Hkv = p->kv_heads;
  if (p->struct_size < sizeof(attncheck_attention_problem) || Hkv == 0 || H % Hkv != 0) return 1;
  if (br == 0 || br > n) br = n ? n : 1;
  if (bc == 0) bc = m ? m : 1;
  const size_t bc_declared = bc; /* the kernel's tile size (BUG_TAIL_PADDED pads the last tile to it) */
  if (bc > m) bc = m ? m : 1;
  V2_FN(v2_row)* rows = malloc(br * sizeof *rows);
  F* accs = malloc((br * dv + 1) * sizeof(F));
  const size_t tile_cap = bc < m ? bc : (m ? m : 1); /* a tile's entries (bc > m: one tile of m) */
  F* s = malloc((bc > tile_cap ? bc : tile_cap) * sizeof(F));
  F* e = malloc((bc > tile_cap ? bc : tile_cap) * sizeof(F));
  if (!rows || !accs || !s || !e) {
    free(rows), free(accs), free(s), free(e);
    return 2;
  }
  const F neg_inf = (F)-INFINITY;
  for (size_t b = 0; b < p->batch; ++b)
    for (size_t h = 0; h < H; ++h) {
      const size_t g = bug == BUG_GQA_MODULO ? h % Hkv : h / (H / Hkv);
      for (size_t i0 = 0; i0 < n; i0 += br) {
        const size_t i1 = i0 + br < n ? i0 + br : n;
        for (size_t i = i0; i < i1; ++i) {
          V2_FN(v2_row)* r = &rows[i - i0];
          r->max = bug == BUG_MAX_STARTS_AT_ZERO ? (F)0 : bug == BUG_MAX_SENTINEL ? (F)-1e4 : neg_inf;
          r->sum = 0;
          r->acc = accs + (i - i0) * dv;
          r->keys = 0;
          for (size_t c = 0; c < dv; ++c) r->acc[c] = 0;
        }
        /* Causal tile skipping (FlashAttention's n_block_max): the key tiles after the one holding
         * the last query's diagonal key are skipped. */
        size_t tiles = jhi > jlo ? (jhi - jlo + bc - 1) / bc : 0;
        if (p->causal) {
          const long long c_last = V2_FN(v2_diag)(p, i1 - 1, bug) - (long long)jlo;
          /* the tiles up to the one holding key c_last; the bug rounds c_last / bc up instead, which
           * drops that tile exactly when c_last is its first key */
          const long long last = c_last < 0 ? 0 : bug == BUG_CAUSAL_TILE_SKIP ? (c_last + (long long)bc - 1) / (long long)bc
                                                                            : c_last / (long long)bc + 1;
          if ((size_t)last < tiles) tiles = (size_t)last;
        }
        for (size_t t = 0; t < tiles; ++t) {
          const size_t j0 = jlo + t * bc, j1 = j0 + bc < jhi ? j0 + bc : jhi;
          for (size_t i = i0; i < i1; ++i) {
            V2_FN(v2_row)* r = &rows[i - i0];
            const long long c = V2_FN(v2_diag)(p, i, bug);
            const F* qi = q + ((b * n + i) * H + h) * d;
            /* The tile's scores, masked keys left out (-inf, exp gives 0) */
            size_t len = 0, seen = 0;
            for (size_t j = j0; j < j1; ++j) {
              const int vis = V2_FN(v2_sees)(p, i, j, bug);
              seen += vis;
              if (bug == BUG_SOFTCAP_AFTER_MASK) {
                F x = vis ? V2_FN(v2_score)(p, qi, k + ((b * m + j) * Hkv + g) * d, h, c, j, bug, st) : neg_inf;
                if (p->softcap > 0) x = (F)p->softcap * TANH((F)(x / (F)p->softcap));
                s[len++] = x;
              } else {
                s[len++] = vis ? V2_FN(v2_score)(p, qi, k + ((b * m + j) * Hkv + g) * d, h, c, j, bug, st) : neg_inf;
              }
            }
            if (seen == 0) continue; /* nothing visible in this tile */
            /* The bug of a kernel whose last key tile is padded to bc with score-0 keys that are not
             * masked (their values are 0): only when the keys span more than one tile. */
            const size_t pad = bug == BUG_TAIL_PADDED && m > bc_declared && j1 - j0 < bc_declared ? bc_declared - (j1 - j0) : 0;
            F tile_max = s[0];
            for (size_t u = 1; u < len; ++u) tile_max = s[u] > tile_max ? s[u] : tile_max;
            if (pad && tile_max < 0) tile_max = 0;
            const F m_new = tile_max > r->max ? tile_max : r->max;
            const F alpha = EXP((F)(r->max - m_new)); /* exp(-inf - x) = 0 on the first tile */
            F tsum = 0;
            for (size_t u = 0; u < len; ++u) {
              e[u] = EXP((F)(s[u] - m_new));
              tsum = tsum + e[u];
            }
            for (size_t u = 0; u < pad; ++u) tsum = tsum + EXP((F)(-m_new));
            r->sum = V2_STORE(sum, (F)(r->sum * alpha) + tsum);
            /* P, stored for the P·V product (the normaliser above used it unstored); an unfused
             * kernel (one key tile) normalises P first, and O is then P·V undivided */
            const int normalised = st && st->normalise;
            for (size_t u = 0; u < len; ++u) e[u] = V2_STORE(p, normalised ? e[u] / tsum : e[u]);
            for (size_t cc = 0; cc < dv; ++cc) {
              F a = bug == BUG_ACC_NOT_RESCALED ? r->acc[cc] : (F)(r->acc[cc] * alpha);
              for (size_t u = 0; u < len; ++u) a = V2_STORE(pv, a + (F)(e[u] * v[((b * m + j0 + u) * Hkv + g) * dv + cc]));
              r->acc[cc] = V2_STORE(acc, a);
            }
            r->max = m_new;
            r->keys += seen;
          }
        }
        for (size_t i = i0; i < i1; ++i) {
          const V2_FN(v2_row)* r = &rows[i - i0];
          F* oi = o + ((b * n + i) * H + h) * dv;
          const int none = r->keys == 0;
          const int undivided = bug == BUG_LAST_BLOCK_UNDIVIDED && i1 == n; /* the rows of the last query tile */
          const int normalised = st && st->normalise;
          for (size_t cc = 0; cc < dv; ++cc) oi[cc] = none ? (F)0 : undivided || normalised ? r->acc[cc] : (F)(r->acc[cc] / r->sum);
          if (lse) {
            F l = none ? (bug == BUG_LSE_PLUS_INF ? -neg_inf : neg_inf) : (F)(r->max + LOG(r->sum));
            if (!none && bug == BUG_LSE_LOG2) l = (F)(r->max * (F)1.4426950408889634) + (F)(LOG(r->sum) * (F)1.4426950408889634);
            if (!none && bug == BUG_LSE_NO_SCALE) l = (F)(r->max / (F)p->scale) + LOG(r->sum);
            lse[(b * H + h) * n + i] = l;
          }
        }
      }
    }
  free(rows), free(accs), free(s), free(e);
  return 0;
}

static int V2_FN(v2_attention)(const attncheck_attention_problem* p, const F* q, const F* k, const F* v, F* o, F* lse, size_t br,
                               size_t bc, int bug, const v2_stores* st) {
  return V2_FN(v2_attention_range)(p, q, k, v, o, lse, br, bc, bug, st, 0, p->m);
}

#undef V2_STORE
#undef V2_FN
#undef V2_CAT
#undef V2_CAT2
