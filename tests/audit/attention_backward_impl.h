/* attncheck audit tests: the body of the attention backward test kernels
 * (tests/audit/kernels_attention_backward.c), included once per arithmetic format with
 *   F (float, double), SFX (f32, f64), EXP, TANH (its libm).
 * FlashAttention-2's backward pass (Dao 2023, Algorithm 2), written here in C from the paper and
 * include/attncheck/abi.h: D = rowsum(dO * O) first; then key tiles of bc (outer) and query tiles
 * of br (inner), P recomputed as exp(s - lse), dP = dO V^T, dS = P (dP - D), the soft-cap's chain
 * rule, dV += P^T dO, dK += dS^T Q, dQ += dS K accumulated across key tiles; dQ and dK times the
 * scale at the end. `st` rounds P and dS to the storage format before the products (the tensor-core
 * operands of the 16-bit kernels), and in a broken kernel the dQ or dK accumulator after every tile;
 * `bug` switches on one bug class (enum bwd_bug; both in attention_backward_kernel.h). */

#define BWD_CAT2(a, b) a##b
#define BWD_CAT(a, b) BWD_CAT2(a, b)
#define BWD_FN(name) BWD_CAT(name, BWD_CAT(_, SFX))

static long long BWD_FN(bwd_diag)(const attncheck_attention_problem* p, size_t i) {
  return (long long)i + (p->alignment == 1 ? (long long)p->m - (long long)p->n : 0);
}

static int BWD_FN(bwd_sees)(const attncheck_attention_problem* p, size_t i, size_t j) {
  const long long c = BWD_FN(bwd_diag)(p, i), jj = (long long)j;
  if (p->causal && jj > c) return 0;
  if (p->window_left >= 0 && jj < c - p->window_left) return 0;
  if (p->window_right >= 0 && jj > c + p->window_right) return 0;
  return 1;
}

/* Whether query i sees any key. */
static int BWD_FN(bwd_sees_any)(const attncheck_attention_problem* p, size_t i) {
  for (size_t j = 0; j < p->m; ++j)
    if (BWD_FN(bwd_sees)(p, i, j)) return 1;
  return 0;
}

#define BWD_STORE(fn, x) (st && st->fn ? (F)st->fn((float)(x)) : (F)(x))

static int BWD_FN(bwd_attention)(const attncheck_attention_problem* p, const F* q, const F* k, const F* v, const F* o, const F* dout,
                                 const F* lse, F* dq, F* dk, F* dv, size_t br, size_t bc, int bug, const bwd_stores* st,
                                 int reversed) {
  const size_t B = p->batch, H = p->heads, Hkv = p->kv_heads, n = p->n, m = p->m, d = p->d, dvn = p->dv;
  if (Hkv == 0 || H % Hkv != 0) return 1;
  const size_t group = H / Hkv;
  if (br == 0) br = n ? n : 1;
  if (bc == 0) bc = m ? m : 1;
  memset(dq, 0, B * n * H * d * sizeof(F));
  memset(dk, 0, B * m * Hkv * d * sizeof(F));
  memset(dv, 0, B * m * Hkv * dvn * sizeof(F));
  F* delta = malloc((n ? n : 1) * sizeof(F));
  if (!delta) return 2;
  const F scale = (F)p->scale, cap = (F)p->softcap;
  for (size_t b = 0; b < B; ++b)
    for (size_t h = 0; h < H; ++h) {
      const size_t g = h / group;
      if (bug == BUG_BWD_GROUP_LAST_HEAD_WINS) /* each head overwrites its group's gradients */
        for (size_t j = 0; j < m; ++j) {
          memset(dk + ((b * m + j) * Hkv + g) * d, 0, d * sizeof(F));
          memset(dv + ((b * m + j) * Hkv + g) * dvn, 0, dvn * sizeof(F));
        }
      for (size_t i = 0; i < n; ++i) {
        const F* doi = dout + ((b * n + i) * H + h) * dvn;
        const F* oi = o + ((b * n + i) * H + h) * dvn;
        F acc = 0;
        for (size_t c = 0; c < dvn; ++c) acc += doi[c] * (bug == BUG_BWD_DELTA_FROM_BF16_O ? (F)round_bf16((float)oi[c]) : oi[c]);
        delta[i] = acc;
      }
      const size_t tiles = (m + bc - 1) / bc;
      for (size_t jt = 0; jt < tiles; ++jt) {
        /* reversed: the key tiles in the other order, as atomic adds from parallel blocks may land */
        const size_t j0 = (reversed ? tiles - 1 - jt : jt) * bc;
        const size_t j1 = j0 + bc < m ? j0 + bc : m;
        for (size_t i0 = 0; i0 < n; i0 += br) {
          const size_t i1 = i0 + br < n ? i0 + br : n;
          for (size_t i = i0; i < i1; ++i) {
            const F* qi = q + ((b * n + i) * H + h) * d;
            const F* doi = dout + ((b * n + i) * H + h) * dvn;
            F* dqi = dq + ((b * n + i) * H + h) * d;
            const F li = lse[(b * H + h) * n + i];
            const int any = BWD_FN(bwd_sees_any)(p, i);
            const long long c = BWD_FN(bwd_diag)(p, i);
            for (size_t j = j0; j < j1; ++j) {
              const int visible = BWD_FN(bwd_sees)(p, i, j) || (bug == BUG_BWD_MASK_NOT_REAPPLIED && any);
              if (!visible) continue;
              const F* kj = k + ((b * m + j) * Hkv + g) * d;
              const F* vj = v + ((b * m + j) * Hkv + g) * dvn;
              F dot = 0;
              for (size_t t = 0; t < d; ++t) dot += qi[t] * kj[t];
              F s = dot * scale, tau = 0;
              if (p->softcap > 0) {
                tau = TANH(s / cap);
                s = cap * tau;
              }
              if (p->alibi_slopes) {
                const long long dist = c > (long long)j ? c - (long long)j : (long long)j - c;
                s -= (F)p->alibi_slopes[h] * (F)dist;
              }
              const F pij = EXP(s - (bug == BUG_BWD_LSE_LOG2 ? li * (F)0.6931471805599453 : li));
              F dp = 0;
              for (size_t cc = 0; cc < dvn; ++cc) dp += doi[cc] * vj[cc];
              F ds = bug == BUG_BWD_DELTA_OMITTED ? pij * dp : pij * (dp - delta[i]);
              if (p->softcap > 0 && bug != BUG_BWD_CAP_GRAD_OMITTED) ds = ds * ((F)1 - tau * tau);
              const F ps = BWD_STORE(p, pij), dss = BWD_STORE(ds, ds);
              F* dvj = dv + ((b * m + j) * Hkv + g) * dvn;
              F* dkj = dk + ((b * m + j) * Hkv + g) * d;
              for (size_t cc = 0; cc < dvn; ++cc) dvj[cc] += ps * doi[cc];
              for (size_t t = 0; t < d; ++t) {
                dqi[t] += dss * kj[t];
                dkj[t] += dss * qi[t];
              }
            }
            if (bug == BUG_BWD_DQ_ACC_BF16)
              for (size_t t = 0; t < d; ++t) dqi[t] = (F)round_bf16((float)dqi[t]);
            if (st && st->dq_acc) /* the row's dQ accumulator kept in storage after every key tile */
              for (size_t t = 0; t < d; ++t) dqi[t] = (F)st->dq_acc((float)dqi[t]);
            if (bug == BUG_BWD_DK_ACC_BF16) /* the tile's dK rows kept in bf16 after every query row */
              for (size_t j = j0; j < j1; ++j)
                for (size_t t = 0; t < d; ++t) dk[((b * m + j) * Hkv + g) * d + t] = (F)round_bf16((float)dk[((b * m + j) * Hkv + g) * d + t]);
          }
          if (st && st->dk_acc) /* the tile's dK rows kept in storage after every query tile */
            for (size_t j = j0; j < j1; ++j)
              for (size_t t = 0; t < d; ++t) dk[((b * m + j) * Hkv + g) * d + t] = (F)st->dk_acc((float)dk[((b * m + j) * Hkv + g) * d + t]);
        }
      }
    }
  free(delta);
  for (size_t e = 0; e < B * n * H * d; ++e)
    if (bug != BUG_BWD_DQ_SCALE_MISSING) dq[e] = dq[e] * scale;
  for (size_t e = 0; e < B * m * Hkv * d; ++e) dk[e] = bug == BUG_BWD_DK_SCALE_DOUBLED ? dk[e] * scale * scale : dk[e] * scale;
  return 0;
}

#undef BWD_STORE
