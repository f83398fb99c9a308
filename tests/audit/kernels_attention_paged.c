/* attncheck audit tests: attention kernels over a paged KV cache with ABI version 2's signature
 * (include/attncheck/abi.h, attncheck_attention_paged_v2_*_fn; vLLM's PagedAttention, FlashAttention's
 * block_table), compiled into libattncheck_audit_testkernels_paged.so, which exports the version
 * marker.
 *
 * Sequence b holds the queries cu_q[b] .. cu_q[b+1] - 1 (n_b tokens) and m_b = seqused_k[b] keys;
 * its logical key t is the cache token block_table[b * pages_per_sequence + t / page_size] *
 * page_size + t % page_size of k_cache and v_cache (num_pages x page_size x H_kv x width). Each
 * sequence is attention's dense problem on its queries and those keys, exactly as in
 * kernels_attention_varlen.c (the same two-pass softmax per (query, head) row, the same operation
 * order, c(i) = i or i + m_b - n_b, window, soft-cap, ALiBi; a row that sees no key gives o = 0 and
 * lse = -inf, the zeros policy). Nothing past a sequence's m_b keys is read: those slots are stale
 * (NaN included).
 *
 * Correct kernels (f32 and f64 compute in their format; f16 and bf16 widen q and both caches to
 * f32, compute in f32 and round o once to nearest even; the LSE is f32 in the ABI already):
 *   paged_plain_{f32,f64,f16,bf16}
 *
 * Broken kernels (one bug each, the classes of src/attncheck/kernels/broken_attention_paged.hpp,
 * whose mutants contracts/attention-paged-v1.yaml names; the tests that must catch each are listed
 * in tests/audit/attention_paged_test.cpp):
 *   bug_paged_last_page_prev_{f32,bf16}  the keys of a partly filled last page read from the page
 *                                       before it (table index m_b / page_size - 1)
 *   bug_paged_row_stride_f32            the table's rows walked with the pages the longest sequence
 *                                       uses as stride instead of pages_per_sequence (the entry kept
 *                                       inside the table)
 *   bug_paged_whole_last_page_f32       every slot of the last page attended to: m_b rounded up to
 *                                       whole pages, the stale slots included (for the mask too)
 *   bug_paged_stale_times_zero_f32      P.V summed over whole pages: each stale slot's value times
 *                                       its weight 0 added to o (exact for finite values, NaN for
 *                                       NaN: only a NaN in a stale slot shows it)
 *   bug_paged_ignores_table_f32         the block table ignored: sequence b's pages assumed to follow
 *                                       those of sequences 0 .. b - 1 in the cache
 *   bug_paged_page_size_16_f32          a page size of 16 assumed whatever page_size says (the token
 *                                       kept inside the cache)
 *   bug_paged_page_index_u8_f32         the physical page number kept in 8 bits: right while the
 *                                       cache has at most 256 pages (every small case), wrong past
 *                                       them (AUDIT-PAGED-001's cache has about 440)
 *   bug_paged_acc16_bf16                P.V's partial sums rounded to bf16 after every addition
 *                                       (a 16-bit accumulator): drifts over long rows
 *   bug_paged_partition_floor_f32       vLLM paged_attention_v2's partitions of 512 tokens, their
 *                                       count floor(m_b / 512) instead of rounded up: a sequence's
 *                                       keys past its last full partition dropped (no small case
 *                                       has 512 keys)
 *   bug_paged_blocks_follow_pages_f32   each page's terms summed first, then the pages' sums: correct,
 *                                       but its bits follow the page size, so wrong only when the
 *                                       kernel is declared --page-size-invariant
 * Split-KV decoding (abi.h num_splits; audited with --splits S), vLLM's paged_attention_v2 shape:
 * told num_splits = S > 1, each sequence's pages are cut into S partitions of ceil(pages_b / S)
 * whole pages; each partition's visible keys give a partial (O_s, LSE_s) by the same two-pass
 * softmax (a partition with no visible key: O_s = 0, LSE_s = -inf), merged in f32 as FlashAttention's
 * combine: LSE = M + log sum exp(LSE_s - M), O = sum exp(LSE_s - LSE) O_s. Unsplit when told 0 or 1.
 *   paged_split_{f32,bf16}              correct
 *   bug_paged_split_empty_nan_f32       a partition with no visible key returns O_s = 0/0 = NaN,
 *                                       which the merge's weight 0 keeps (a sequence shorter than
 *                                       S pages has such partitions)
 * The nan policy: paged_nan_rows_{f32,bf16} give all NaN in a row that sees no key (the others give
 * zeros): right undeclared or declared --masked nan, wrong under --masked zeros.
 * and stray writes: bug_paged_o_overrun_{f32,bf16} (one element past the end of o),
 * bug_paged_writes_block_table_f32 (the table's last entry incremented after the call: into its
 * input).
 *
 * The arithmetic is written once below and compiled for float and double by including this file
 * twice into itself (PG_F defined), as tests/audit/kernels_attention_varlen.c does.
 */
#ifndef PG_F

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "attncheck/abi.h"
#include "bits16.h"

ATTNCHECK_EXPORT_ABI_VERSION

#define PARTITION 512 /* vLLM paged_attention_v2's PARTITION_SIZE, in tokens */

enum paged_bug {
  BUG_PG_NONE,
  BUG_PG_LAST_PAGE_PREV,
  BUG_PG_ROW_STRIDE,
  BUG_PG_WHOLE_LAST_PAGE,
  BUG_PG_STALE_TIMES_ZERO,
  BUG_PG_IGNORES_TABLE,
  BUG_PG_PAGE_SIZE_16,
  BUG_PG_BLOCKS_FOLLOW_PAGES,
  BUG_PG_PAGE_INDEX_U8,
  BUG_PG_ACC16,
  PG_SPLIT,              /* not a bug: the split-KV kernel (reads num_splits) */
  BUG_PG_SPLIT_EMPTY_NAN, /* the split-KV kernel, an empty part's partial 0/0 = NaN */
  BUG_PG_PARTITION_FLOOR, /* partitions of 512 tokens, floor(m_b / 512) of them */
  PG_NAN_ROWS             /* not a bug: the nan policy (a row that sees no key gives all NaN) */
};

/* The page table as the kernel is given it. */
struct paged_table {
  const int32_t *cu_q, *seqused_k, *table;
  size_t B, pps, ps, num_pages;
};

static size_t pages_of(const struct paged_table *t, size_t b) { return ((size_t)t->seqused_k[b] + t->ps - 1) / t->ps; }

/* 0 when the table is one a kernel can use: offsets non-decreasing from 0, every sequence's pages
 * within its row and naming pages of the cache. */
static int paged_invalid(const struct paged_table *t) {
  if (t->ps == 0 || t->cu_q[0] != 0) return 1;
  for (size_t b = 0; b < t->B; ++b) {
    if (t->cu_q[b + 1] < t->cu_q[b] || t->seqused_k[b] < 0 || pages_of(t, b) > t->pps) return 1;
    for (size_t i = 0; i < pages_of(t, b); ++i)
      if (t->table[b * t->pps + i] < 0 || (size_t)t->table[b * t->pps + i] >= t->num_pages) return 1;
  }
  return 0;
}

/* The cache token holding sequence b's logical key t (BUG_PG_NONE: block_table's), with one bug. */
static size_t paged_token(const struct paged_table *pt, size_t b, size_t t, enum paged_bug bug) {
  const size_t ps = pt->ps, m = (size_t)pt->seqused_k[b], tokens = pt->num_pages * ps;
  switch (bug) {
    case BUG_PG_LAST_PAGE_PREV: {
      const size_t full = m / ps;
      if (full > 0 && m % ps != 0 && t / ps == full) return (size_t)pt->table[b * pt->pps + full - 1] * ps + t % ps;
      break;
    }
    case BUG_PG_ROW_STRIDE: {
      size_t used = 1;
      for (size_t s = 0; s < pt->B; ++s)
        if (pages_of(pt, s) > used) used = pages_of(pt, s);
      return (size_t)pt->table[(b * used + t / ps) % (pt->B * pt->pps)] * ps + t % ps;
    }
    case BUG_PG_IGNORES_TABLE: {
      size_t first = 0;
      for (size_t s = 0; s < b; ++s) first += pages_of(pt, s);
      return ((first + t / ps) * ps + t % ps) % tokens;
    }
    case BUG_PG_PAGE_SIZE_16: {
      size_t entry = b * pt->pps + t / 16;
      if (entry > pt->B * pt->pps - 1) entry = pt->B * pt->pps - 1;
      return ((size_t)pt->table[entry] * 16 + t % 16) % tokens;
    }
    case BUG_PG_PAGE_INDEX_U8: return (size_t)(uint8_t)pt->table[b * pt->pps + t / ps] * ps + t % ps;
    default: break;
  }
  return (size_t)pt->table[b * pt->pps + t / ps] * ps + t % ps;
}

#define PG_F float
#define SFX f32
#define EXP expf
#define LOG logf
#define TANH tanhf
#include __FILE__
#undef PG_F
#undef SFX
#undef EXP
#undef LOG
#undef TANH

#define PG_F double
#define SFX f64
#define EXP exp
#define LOG log
#define TANH tanh
#include __FILE__
#undef PG_F
#undef SFX
#undef EXP
#undef LOG
#undef TANH

#define PG_ARGS(T, S)                                                                                                     \
  const attncheck_attention_problem *p, const int32_t *cu_q, const int32_t *seqused_k, const int32_t *block_table, size_t pps, \
      size_t ps, size_t num_pages, const T *q, const T *k_cache, const T *v_cache, T *o, S *lse
#define PG_TABLE(p) \
  (struct paged_table) { cu_q, seqused_k, block_table, (p)->batch, pps, ps, num_pages }

/* ---- correct kernels ------------------------------------------------------------------------- */
int paged_plain_f32(PG_ARGS(float, float)) { return paged_rows_f32(p, PG_TABLE(p), q, k_cache, v_cache, o, lse, BUG_PG_NONE); }
int paged_plain_f64(PG_ARGS(double, double)) { return paged_rows_f64(p, PG_TABLE(p), q, k_cache, v_cache, o, lse, BUG_PG_NONE); }

/* 16-bit storage, f32 arithmetic: widen q and the whole caches (stale slots included, as they are),
 * attend in f32, round o once (the LSE is f32 in the ABI already). */
static int paged_16bit(PG_ARGS(uint16_t, float), float (*from)(uint16_t), uint16_t (*to)(float), enum paged_bug bug) {
  if (p->struct_size < sizeof(attncheck_attention_problem)) return 1;
  const size_t tq = (size_t)cu_q[p->batch], tokens = num_pages * ps;
  const size_t out = tq * p->heads * p->dv;
  float *qf = widen16(q, tq * p->heads * p->d, from), *kf = widen16(k_cache, tokens * p->kv_heads * p->d, from),
        *vf = widen16(v_cache, tokens * p->kv_heads * p->dv, from), *res = malloc((out ? out : 1) * sizeof(float));
  int rc = 2;
  if (qf && kf && vf && res) {
    rc = paged_rows_f32(p, PG_TABLE(p), qf, kf, vf, res, lse, bug);
    if (rc == 0)
      for (size_t i = 0; i < out; ++i) o[i] = to(res[i]);
  }
  free(qf), free(kf), free(vf), free(res);
  return rc;
}
#define PG_PASS p, cu_q, seqused_k, block_table, pps, ps, num_pages, q, k_cache, v_cache, o, lse
int paged_plain_bf16(PG_ARGS(uint16_t, float)) { return paged_16bit(PG_PASS, from_bf16, to_bf16, BUG_PG_NONE); }
int paged_plain_f16(PG_ARGS(uint16_t, float)) { return paged_16bit(PG_PASS, from_f16, to_f16, BUG_PG_NONE); }
int paged_split_f32(PG_ARGS(float, float)) { return paged_rows_f32(p, PG_TABLE(p), q, k_cache, v_cache, o, lse, PG_SPLIT); }
int paged_split_bf16(PG_ARGS(uint16_t, float)) { return paged_16bit(PG_PASS, from_bf16, to_bf16, PG_SPLIT); }
int bug_paged_split_empty_nan_f32(PG_ARGS(float, float)) {
  return paged_rows_f32(p, PG_TABLE(p), q, k_cache, v_cache, o, lse, BUG_PG_SPLIT_EMPTY_NAN);
}
/* The nan policy: a row that sees no key gives all NaN; right undeclared (either) and declared
 * --masked nan, wrong under --masked zeros. */
int paged_nan_rows_f32(PG_ARGS(float, float)) { return paged_rows_f32(p, PG_TABLE(p), q, k_cache, v_cache, o, lse, PG_NAN_ROWS); }
int paged_nan_rows_bf16(PG_ARGS(uint16_t, float)) { return paged_16bit(PG_PASS, from_bf16, to_bf16, PG_NAN_ROWS); }

/* The signatures are abi.h's. */
_Static_assert(_Generic(&paged_plain_f32, attncheck_attention_paged_v2_f32_fn: 1, default: 0), "paged f32 signature");
_Static_assert(_Generic(&paged_plain_f64, attncheck_attention_paged_v2_f64_fn: 1, default: 0), "paged f64 signature");
_Static_assert(_Generic(&paged_plain_bf16, attncheck_attention_paged_v2_bf16_fn: 1, default: 0), "paged bf16 signature");
_Static_assert(_Generic(&paged_plain_f16, attncheck_attention_paged_v2_f16_fn: 1, default: 0), "paged f16 signature");

/* ---- broken kernels: the plain kernel with one bug --------------------------------------------- */
#define BROKEN_F32(name, bug) \
  int bug_paged_##name##_f32(PG_ARGS(float, float)) { return paged_rows_f32(p, PG_TABLE(p), q, k_cache, v_cache, o, lse, bug); }
#define BROKEN_BF16(name, bug) \
  int bug_paged_##name##_bf16(PG_ARGS(uint16_t, float)) { return paged_16bit(PG_PASS, from_bf16, to_bf16, bug); }
BROKEN_F32(last_page_prev, BUG_PG_LAST_PAGE_PREV)
BROKEN_BF16(last_page_prev, BUG_PG_LAST_PAGE_PREV)
BROKEN_F32(row_stride, BUG_PG_ROW_STRIDE)
BROKEN_F32(whole_last_page, BUG_PG_WHOLE_LAST_PAGE)
BROKEN_F32(stale_times_zero, BUG_PG_STALE_TIMES_ZERO)
BROKEN_F32(ignores_table, BUG_PG_IGNORES_TABLE)
BROKEN_F32(page_size_16, BUG_PG_PAGE_SIZE_16)
BROKEN_F32(page_index_u8, BUG_PG_PAGE_INDEX_U8)
BROKEN_BF16(acc16, BUG_PG_ACC16)
BROKEN_F32(partition_floor, BUG_PG_PARTITION_FLOOR)

/* ---- stray writes the library backend must see (AUDIT-SAFE-001) ------------------------------- */
int bug_paged_blocks_follow_pages_f32(PG_ARGS(float, float)) {
  return paged_rows_f32(p, PG_TABLE(p), q, k_cache, v_cache, o, lse, BUG_PG_BLOCKS_FOLLOW_PAGES);
}
int bug_paged_o_overrun_f32(PG_ARGS(float, float)) {
  const int rc = paged_plain_f32(PG_PASS);
  if (rc == 0) o[(size_t)cu_q[p->batch] * p->heads * p->dv] = 1.0f;
  return rc;
}
int bug_paged_o_overrun_bf16(PG_ARGS(uint16_t, float)) {
  const int rc = paged_plain_bf16(PG_PASS);
  if (rc == 0) o[(size_t)cu_q[p->batch] * p->heads * p->dv] = to_bf16(1.0f);
  return rc;
}
int bug_paged_writes_block_table_f32(PG_ARGS(float, float)) {
  const int rc = paged_plain_f32(PG_PASS);
  if (rc == 0 && p->batch * pps > 0) ((int32_t *)block_table)[p->batch * pps - 1] += 1;
  return rc;
}

#else /* PG_F: the arithmetic at PG_F, named with the suffix SFX ---------------------------------- */

#define PG_CAT2(a, b) a##_##b
#define PG_CAT(a, b) PG_CAT2(a, b)
#define PG_FN(name) PG_CAT(name, SFX)

/* Every sequence of the batch, with one bug (BUG_PG_NONE: correct). lse may be NULL. */
static int PG_FN(paged_rows)(const attncheck_attention_problem *p, struct paged_table pt, const PG_F *q, const PG_F *k_cache,
                             const PG_F *v_cache, PG_F *o, PG_F *lse, enum paged_bug bug) {
  const size_t B = p->batch, H = p->heads, Hkv = p->kv_heads, d = p->d, dv = p->dv, ps = pt.ps;
  if (p->struct_size < sizeof(attncheck_attention_problem) || Hkv == 0 || H % Hkv != 0 || paged_invalid(&pt)) return 1;
  const size_t total_q = (size_t)pt.cu_q[B];
  /* Split-KV: S partitions (1: unsplit), each with a partial output (dv) and LSE. */
  const int split = bug == PG_SPLIT || bug == BUG_PG_SPLIT_EMPTY_NAN;
  /* BUG_PG_PARTITION_FLOOR splits on its own into up to pps * ps / 512 partitions. */
  const size_t S = bug == BUG_PG_PARTITION_FLOOR ? pt.pps * ps / PARTITION + 1 : split && p->num_splits > 1 ? p->num_splits : 1;
  PG_F *e = malloc((pt.pps * ps + 1) * sizeof(PG_F)); /* one row's scores, then weights (at most a row of pages) */
  PG_F *part_o = malloc((S * dv + 1) * sizeof(PG_F)), *part_l = malloc((S + 1) * sizeof(PG_F));
  if (!e || !part_o || !part_l) {
    free(e), free(part_o), free(part_l);
    return 2;
  }
  const PG_F neg_inf = (PG_F)-INFINITY;
  for (size_t b = 0; b < B; ++b) {
    const size_t q0 = (size_t)pt.cu_q[b], n = (size_t)(pt.cu_q[b + 1] - pt.cu_q[b]);
    const size_t m_b = (size_t)pt.seqused_k[b];
    const size_t m = bug == BUG_PG_WHOLE_LAST_PAGE ? pages_of(&pt, b) * ps : m_b; /* the keys attended to */
    const long long shift = p->alignment == 1 ? (long long)m - (long long)n : 0; /* c(i) = i + shift */
    for (size_t i = 0; i < n; ++i)
      for (size_t h = 0; h < H; ++h) {
        const size_t g = h / (H / Hkv);
        const long long c = (long long)i + shift;
        long long lo = 0, hi = (long long)m; /* the visible keys [lo, hi) */
        if (p->window_left >= 0 && c - p->window_left > lo) lo = c - p->window_left;
        if (p->causal && c + 1 < hi) hi = c + 1;
        if (p->window_right >= 0 && c + p->window_right + 1 < hi) hi = c + p->window_right + 1;
        PG_F *oi = o + ((q0 + i) * H + h) * dv;
        PG_F *li = lse ? lse + h * total_q + q0 + i : NULL;
        if (hi <= lo) { /* a row that sees no key: zeros (PG_NAN_ROWS: NaN, 0/0), lse -inf */
          for (size_t cc = 0; cc < dv; ++cc) oi[cc] = bug == PG_NAN_ROWS ? (PG_F)NAN : 0;
          if (li) *li = neg_inf;
          continue;
        }
        const PG_F *qi = q + ((q0 + i) * H + h) * d;
        PG_F M = neg_inf;
        for (long long j = lo; j < hi; ++j) {
          const PG_F *kj = k_cache + (paged_token(&pt, b, (size_t)j, bug) * Hkv + g) * d;
          PG_F acc = 0;
          for (size_t t = 0; t < d; ++t) acc = acc + qi[t] * kj[t];
          PG_F s = acc * (PG_F)p->scale;
          if (p->softcap > 0) {
            const PG_F cap = (PG_F)p->softcap;
            s = s / cap;
            s = TANH(s);
            s = cap * s;
          }
          if (p->alibi_slopes) {
            const long long dist = c > j ? c - j : j - c;
            s = s - (PG_F)p->alibi_slopes[h] * (PG_F)dist;
          }
          e[j - lo] = s;
          if (s > M) M = s; /* a NaN score never becomes M, but reaches Z through its exp below */
        }
        if (S > 1) { /* partitions of ceil(pages_b / S) whole pages, then the merge */
          long long per = (long long)(((pages_of(&pt, b) + S - 1) / S) * ps);
          size_t parts = S;
          if (bug == BUG_PG_PARTITION_FLOOR) { /* vLLM's PARTITION_SIZE, the count rounded down */
            per = PARTITION;
            parts = m_b / PARTITION > 0 ? m_b / PARTITION : 1;
          }
          PG_F top = neg_inf;
          for (size_t sp = 0; sp < parts; ++sp) {
            const long long r0 = (long long)sp * per > lo ? (long long)sp * per : lo;
            const long long r1 = (long long)(sp + 1) * per < hi ? (long long)(sp + 1) * per : hi;
            PG_F *os = part_o + sp * dv;
            if (r0 >= r1) { /* no visible key in this partition */
              for (size_t cc = 0; cc < dv; ++cc) os[cc] = bug == BUG_PG_SPLIT_EMPTY_NAN ? (PG_F)NAN : 0;
              part_l[sp] = neg_inf;
              continue;
            }
            PG_F Ms = neg_inf, Zs = 0;
            for (long long j = r0; j < r1; ++j)
              if (e[j - lo] > Ms) Ms = e[j - lo];
            for (long long j = r0; j < r1; ++j) Zs = Zs + (e[j - lo] = EXP(e[j - lo] - Ms));
            for (size_t cc = 0; cc < dv; ++cc) {
              PG_F a = 0;
              for (long long j = r0; j < r1; ++j) a = a + e[j - lo] * v_cache[(paged_token(&pt, b, (size_t)j, bug) * Hkv + g) * dv + cc];
              os[cc] = a / Zs;
            }
            part_l[sp] = Ms + LOG(Zs);
            if (part_l[sp] > top) top = part_l[sp];
          }
          PG_F Zm = 0;
          for (size_t sp = 0; sp < parts; ++sp) Zm = Zm + EXP(part_l[sp] - top);
          const PG_F L = top + LOG(Zm);
          for (size_t cc = 0; cc < dv; ++cc) {
            PG_F a = 0;
            for (size_t sp = 0; sp < parts; ++sp) a = a + EXP(part_l[sp] - L) * part_o[sp * dv + cc];
            oi[cc] = a;
          }
          if (li) *li = L;
          continue;
        }
        /* BUG_PG_BLOCKS_FOLLOW_PAGES: each page's terms summed first, then the pages' sums (a correct
         * order, but one that follows the page size). */
        const int by_page = bug == BUG_PG_BLOCKS_FOLLOW_PAGES;
        PG_F Z = 0, part = 0;
        for (long long j = lo; j < hi; ++j) {
          e[j - lo] = EXP(e[j - lo] - M);
          if (!by_page) {
            Z = Z + e[j - lo];
            continue;
          }
          part = part + e[j - lo];
          if ((size_t)(j + 1) % ps == 0 || j + 1 == hi) Z = Z + part, part = 0;
        }
        for (size_t cc = 0; cc < dv; ++cc) {
          PG_F a = 0, pa = 0;
          for (long long j = lo; j < hi; ++j) {
            const PG_F t = e[j - lo] * v_cache[(paged_token(&pt, b, (size_t)j, bug) * Hkv + g) * dv + cc];
            if (bug == BUG_PG_ACC16) { /* the partial sum kept in bf16 */
              a = (PG_F)from_bf16(to_bf16((float)(a + t)));
              continue;
            }
            if (!by_page) {
              a = a + t;
              continue;
            }
            pa = pa + t;
            if ((size_t)(j + 1) % ps == 0 || j + 1 == hi) a = a + pa, pa = 0;
          }
          if (bug == BUG_PG_STALE_TIMES_ZERO) /* the rest of the last page, at weight 0 */
            for (size_t t = m_b; t < pages_of(&pt, b) * ps; ++t) a = a + (PG_F)0 * v_cache[(paged_token(&pt, b, t, bug) * Hkv + g) * dv + cc];
          oi[cc] = a / Z;
        }
        if (li) *li = M + LOG(Z);
      }
  }
  free(e), free(part_o), free(part_l);
  return 0;
}

#undef PG_FN
#undef PG_CAT
#undef PG_CAT2

#endif
