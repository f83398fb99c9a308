/* attncheck: the C ABI a third-party kernel exports so that `attncheck audit --lib` can call it.
 *
 * Include this header in the library under audit (C or C++), implement any subset of the kernels
 * below under any symbol names, and name them on the command line:
 *
 *     attncheck audit --lib ./libmine.so --kernel softmax:f32:my_softmax_f32
 *
 * Conventions, the same for every kernel:
 *   - Arrays are row-major and contiguous; the kernel reads only its inputs and writes only its
 *     output, exactly the number of elements stated (attncheck places a guard page and canary
 *     words after each output and compares every input after the call).
 *   - T is the element type: float (f32), double (f64), or uint16_t holding the bits of an IEEE
 *     binary16 (f16) or bfloat16 (bf16) value. S is float for f16, bf16 and f32, double for f64.
 *   - Return 0 when the output is written. Any other value means "declined this input": the
 *     audit reports it and judges nothing from that call (it is not a crash).
 *   - The kernel runs in a child process under a time and memory limit; it must be re-entrant
 *     and must not rely on state kept between calls (the same input twice must give the same bits).
 *
 * Version 2 (ATTNCHECK_ABI_VERSION below) adds batched attention, attncheck_attention_v2_*_fn,
 * for libraries that say so with ATTNCHECK_EXPORT_ABI_VERSION; version-1 libraries keep working.
 *
 * Typedefs are provided per kernel kind and dtype, e.g. attncheck_softmax_f32_fn, so that an
 * implementation can be checked against the signature at compile time:
 *
 *     static const attncheck_softmax_f32_fn check_sig = my_softmax_f32;
 */
#ifndef ATTNCHECK_ABI_H
#define ATTNCHECK_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this ABI; it changes only when a signature below changes.
 *   1: the seven kinds of ATTNCHECK_ABI_DECLARE, attention one head of one sequence.
 *   2: attention as shipped kernels take it (attncheck_attention_v2_*_fn below: batch, grouped-
 *      query heads, explicit scale, causal alignment, sliding window, soft-cap, ALiBi, LSE).
 *      Every other kind keeps its version-1 signature. Version 2 later gained a kind, the backward
 *      pass (attncheck_attention_backward_v2_*_fn), the merge of split-KV partial results
 *      (attncheck_attention_merge_v2_*_fn), packed variable-length batches
 *      (attncheck_attention_varlen_v2_*_fn), paged KV caches (attncheck_attention_paged_v2_*_fn)
 *      and FP8 KV caches (attncheck_attention_fp8kv_v2_*_fn, attncheck_kv_quantize_v2_*_fn): a
 *      new kind changes no signature, so the version stayed 2.
 * A library states the version it was written for with ATTNCHECK_EXPORT_ABI_VERSION (below); a
 * library that does not is version 1, and its `attention` kernels have version 1's signature. */
#define ATTNCHECK_ABI_VERSION 2

/* f16 and bf16 values travel as their 16 raw bits. */
typedef uint16_t attncheck_f16_bits;
typedef uint16_t attncheck_bf16_bits;

/* Declares the seven kernel signatures for element type T and parameter type S under suffix SFX.
 *
 * softmax:     y_i = exp(x_i) / sum_j exp(x_j), i < n.
 * log_softmax: y_i = x_i - log(sum_j exp(x_j)), i < n.
 * scores:      s[i*m + j] = (q_i . k_j) / sqrt(d); q is n x d, k is m x d, s is n x m.
 * rmsnorm:     y_i = x_i / sqrt(mean(x^2) + eps) * w_i, i < d.
 * entropy:     *h = -sum_i p_i log p_i (natural log, 0 log 0 = 0), i < n.
 * attention:   o = softmax(q k^T / sqrt(d)) v row by row; q is n x d, k is m x d, v is m x dv,
 *              o is n x dv; when causal != 0, key j is visible to query i iff j <= i.
 * softmax_jvp: dy = (Diag(p) - p p^T) dx with p = softmax(x), i < n.
 *
 * Special values (softmax and log_softmax; docs/audit.md, AUDIT-MASK-* and AUDIT-INF-001): a -inf
 * entry is masked (softmax 0, log_softmax -inf, exactly); a fully masked row gives all 0 (log_softmax
 * all -inf) or all NaN, as the audit's masked-row policy for the kernel says; a row with k entries
 * +inf gives all NaN or the limit (1/k there and 0 elsewhere; log_softmax -ln k and -inf).
 *
 * What every kernel of every kind must also do (docs/audit.md, "What is checked"):
 *   - a NaN input reaches every output that depends on it (AUDIT-NAN-001): all of the row for
 *     softmax, log_softmax, rmsnorm, entropy and softmax_jvp (through the row's sum or mean); a
 *     NaN must not be skipped, clamped or compared away (fmax drops NaN: test for it);
 *   - write only its outputs, only within their extents, and leave the inputs unchanged
 *     (AUDIT-SAFE-001); return within the timeout, without crashing (ditto);
 *   - give the same bits for the same input (AUDIT-DET-001), unless declared --nondeterministic;
 *   - return 0, or a nonzero status to decline an input it does not handle (it is then not judged);
 *   - meet the derived allowance of each contract check against the exact value (docs/formats.md
 *     for the arithmetic a 16-bit kernel may use; declare what differs: --stores, --subnormals).
 */
#define ATTNCHECK_ABI_DECLARE(T, S, SFX)                                                          \
  typedef int (*attncheck_softmax_##SFX##_fn)(const T* x, T* y, size_t n);                        \
  typedef int (*attncheck_log_softmax_##SFX##_fn)(const T* x, T* y, size_t n);                    \
  typedef int (*attncheck_scores_##SFX##_fn)(const T* q, const T* k, size_t n, size_t m, size_t d, \
                                             T* s);                                               \
  typedef int (*attncheck_rmsnorm_##SFX##_fn)(const T* x, const T* w, size_t d, S eps, T* y);     \
  typedef int (*attncheck_entropy_##SFX##_fn)(const T* p, size_t n, T* h);                        \
  typedef int (*attncheck_attention_##SFX##_fn)(const T* q, const T* k, const T* v, size_t n,      \
                                                size_t m, size_t d, size_t dv, int causal, T* o); \
  typedef int (*attncheck_softmax_jvp_##SFX##_fn)(const T* x, const T* dx, size_t n, T* dy);

ATTNCHECK_ABI_DECLARE(float, float, f32)
ATTNCHECK_ABI_DECLARE(double, double, f64)
ATTNCHECK_ABI_DECLARE(attncheck_f16_bits, float, f16)
ATTNCHECK_ABI_DECLARE(attncheck_bf16_bits, float, bf16)

/* ---- version 2: attention ------------------------------------------------------------------
 *
 * One call computes a batch: B sequences, H query heads, H_kv key/value heads (H % H_kv == 0;
 * query head h reads key/value head h / (H / H_kv)), n queries, m keys, head dimension d for q
 * and k, dv for v. Layout (FlashAttention's; row-major, contiguous, no strides):
 *
 *     q    B x n x H    x d         k  B x m x H_kv x d
 *     o    B x n x H    x dv        v  B x m x H_kv x dv
 *     lse  B x H x n                (S: float for f16, bf16 and f32 storage, double for f64)
 *
 * For batch b, head h, query i and key j (g = h / (H / H_kv), c(i) = i top-left, i + m - n
 * bottom-right):
 *     s_ij = scale * (q[b,i,h,:] . k[b,j,g,:])
 *     s_ij = softcap * tanh(s_ij / softcap)                   if softcap > 0 (after the scale)
 *     s_ij = s_ij - alibi_slopes[h] * |c(i) - j|              if alibi_slopes != NULL
 *     s_ij = -inf unless key j is visible to query i:
 *            (causal == 0 or j <= c(i)) and (window_left < 0 or j >= c(i) - window_left)
 *                                        and (window_right < 0 or j <= c(i) + window_right)
 *     o[b,i,h,:]  = sum_j softmax_j(s_i.) v[b,j,g,:]
 *     lse[b,h,i]  = log(sum_j exp(s_ij))         natural log, of the scaled, capped, masked scores
 * A fully masked row (no visible key: possible with a window, or bottom-right with n > m) gives
 * o all 0 or all NaN, as the kernel's declared policy says (--masked, or masked: in a bindings
 * file), and lse = -inf.
 *
 * lse is NULL when the audit does not ask for it; a kernel that never computes it is declared so
 * (lse: false in a bindings file, or --no-lse) and is never asked. attncheck places guard pages
 * and canaries after o and after lse, and compares q, k, v, *p and the slopes after the call.
 */
typedef struct attncheck_attention_problem {
  /* sizeof(attncheck_attention_problem) in the header attncheck was built with. Later versions
   * only append fields, and never set one to anything but its neutral value for a kernel that
   * declared an older version; a kernel may read the fields it knows and ignore the rest. */
  uint32_t struct_size;
  uint32_t reserved; /* 0 */
  size_t batch, heads, kv_heads, n, m, d, dv;
  double scale;         /* multiplies q.k; any positive value (1/sqrt(d) is one choice) */
  int causal;           /* nonzero: key j is visible to query i only if j <= c(i) */
  int alignment;        /* 0 top-left (c(i) = i, PyTorch's is_causal); 1 bottom-right
                           (c(i) = i + m - n, FlashAttention >= 2.1, causal_lower_right) */
  int64_t window_left;  /* -1: unbounded; else keys j >= c(i) - window_left */
  int64_t window_right; /* -1: unbounded; else keys j <= c(i) + window_right */
  double softcap;       /* 0: off; c > 0: scores become c * tanh(s / c) after the scale */
  const double* alibi_slopes; /* NULL, or `heads` slopes: the score gets -slope_h * |c(i) - j| */
  /* Appended after the first release of version 2 (struct_size covers it): */
  size_t num_splits; /* 0: unsplit. S >= 1 only for a kernel declared to read it (`attncheck audit
                        --splits S`): split-KV decoding (flash-decoding, FlashAttention's num_splits)
                        allowed, each row's visible keys cut into at most num_splits parts of the
                        kernel's choosing, each part's partial output and log-sum-exp computed alone
                        and merged as attention_merge below does; the result is judged against the
                        bound derived for every such partition (and the unsplit one: a kernel may
                        ignore the field). attention_paged reads it likewise, per sequence (its keys
                        gathered in logical order are the row's keys; a sequence with fewer keys than
                        parts has parts that hold none: LSE_s = -inf, O_s = 0, no weight);
                        attention_varlen, attention_fp8kv and the backward pass get 0. */
} attncheck_attention_problem;

#define ATTNCHECK_ABI_DECLARE_V2(T, S, SFX)                                                       \
  typedef int (*attncheck_attention_v2_##SFX##_fn)(const attncheck_attention_problem* p,          \
                                                   const T* q, const T* k, const T* v, T* o,     \
                                                   S* lse);

ATTNCHECK_ABI_DECLARE_V2(float, float, f32)
ATTNCHECK_ABI_DECLARE_V2(double, double, f64)
ATTNCHECK_ABI_DECLARE_V2(attncheck_f16_bits, float, f16)
ATTNCHECK_ABI_DECLARE_V2(attncheck_bf16_bits, float, bf16)

/* ---- version 2: the backward pass of attention ------------------------------------------------
 *
 * The same problem; given q, k, v, the forward's o and lse (the layouts above) and the cotangent
 * dout of o (o's layout), the gradients of L = sum(dout * o): dq in q's layout, dk in k's, dv in
 * v's. With P_ij = exp(s_ij - lse[b,h,i]) for the visible keys j of query i (0 elsewhere), s_ij the
 * final score above, and g = h / (H / H_kv):
 *     dv[b,j,g,:] = sum over the heads h of group g and the queries i of P_ij dout[b,i,h,:]
 *     dP_ij = dout[b,i,h,:] . v[b,j,g,:]      D_i = dout[b,i,h,:] . o[b,i,h,:]
 *     dS_ij = P_ij (dP_ij - D_i)
 *     dS_ij = dS_ij (1 - tanh^2(scale * (q.k) / softcap))      if softcap > 0 (the chain rule)
 *     dq[b,i,h,:] = scale * sum_j dS_ij k[b,j,g,:]
 *     dk[b,j,g,:] = scale * sum over the heads h of group g and the queries i of dS_ij q[b,i,h,:]
 * ALiBi slopes and the mask carry no gradient; a row that sees no key (its lse is -inf, the log of
 * an empty sum) contributes nothing, and a key no query sees gets dk = dv = 0. (FlashAttention 2
 * keeps +inf there so that exp(s - lse) is 0: a wrapper converts -inf to +inf.) lse is never NULL (S: float for f16, bf16 and f32, double for
 * f64). attncheck hands the kernel the forward's correctly rounded o and lse; a kernel may also
 * ignore them and recompute its forward (its error bounds cover both). Guard pages and canaries
 * follow each of dq, dk and dv; q, k, v, o, dout, lse, *p and the slopes are compared after the call.
 * A kind of version 2 only: `attncheck audit --kernel attention_backward:bf16:SYMBOL`.
 */
#define ATTNCHECK_ABI_DECLARE_BACKWARD_V2(T, S, SFX)                                                 \
  typedef int (*attncheck_attention_backward_v2_##SFX##_fn)(                                          \
      const attncheck_attention_problem* p, const T* q, const T* k, const T* v, const T* o, const T* dout, \
      const S* lse, T* dq, T* dk, T* dv);

ATTNCHECK_ABI_DECLARE_BACKWARD_V2(float, float, f32)
ATTNCHECK_ABI_DECLARE_BACKWARD_V2(double, double, f64)
ATTNCHECK_ABI_DECLARE_BACKWARD_V2(attncheck_f16_bits, float, f16)
ATTNCHECK_ABI_DECLARE_BACKWARD_V2(attncheck_bf16_bits, float, bf16)

/* ---- version 2: merging split-KV partial results (flash-decoding) ----------------------------
 *
 * A decoding kernel that splits each row's keys over S workers gets from split s a partial output
 * O_s and log-sum-exp LSE_s over that split's keys alone; the merge returns each row's result over
 * all its keys (FlashAttention's combine step, vLLM's merge_attn_states, FlashInfer's merge_states):
 *     lse[r]     = log sum_s exp(lse_parts[s, r])                     (natural log)
 *     o[r, c]    = sum_s exp(lse_parts[s, r] - lse[r]) o_parts[s, r, c]
 * A row is any (token, head) pair; rows are independent. Layout (row-major, contiguous):
 *     o_parts  splits x rows x dv  (T)        lse_parts  splits x rows  (S)
 *     o        rows x dv           (T)        lse        rows           (S)
 * A split that saw no key of a row has lse_parts = -inf there and o_parts = 0 (FlashAttention 2's
 * split kernel writes exactly that; its non-split kernels' +inf is converted by a wrapper): it
 * carries no weight. A row whose every split is -inf has no visible key: o is all 0 or all NaN, as
 * the kernel's declared policy says (--masked), and lse = -inf. lse is NULL when the kernel is
 * declared to return none (--no-lse). Guard pages and canaries follow o and lse; o_parts and
 * lse_parts are compared after the call. A kind of version 2 only:
 * `attncheck audit --kernel attention_merge:bf16:SYMBOL`.
 */
#define ATTNCHECK_ABI_DECLARE_MERGE_V2(T, S, SFX)                                                    \
  typedef int (*attncheck_attention_merge_v2_##SFX##_fn)(size_t splits, size_t rows, size_t dv,       \
                                                         const T* o_parts, const S* lse_parts, T* o, \
                                                         S* lse);

ATTNCHECK_ABI_DECLARE_MERGE_V2(float, float, f32)
ATTNCHECK_ABI_DECLARE_MERGE_V2(double, double, f64)
ATTNCHECK_ABI_DECLARE_MERGE_V2(attncheck_f16_bits, float, f16)
ATTNCHECK_ABI_DECLARE_MERGE_V2(attncheck_bf16_bits, float, bf16)

/* ---- version 2: packed variable-length batches (varlen) -----------------------------------------
 *
 * B sequences of different lengths packed along the token axis, as FlashAttention's
 * flash_attn_varlen_func, vLLM and ONNX Runtime's GroupQueryAttention take them. Sequence b holds
 * the queries cu_seqlens_q[b] .. cu_seqlens_q[b+1] - 1 and the keys cu_seqlens_k[b] ..
 * cu_seqlens_k[b+1] - 1 (B + 1 non-decreasing offsets each, starting at 0): n_b and m_b tokens.
 * p->batch = B; p->n and p->m are the largest n_b and m_b (FlashAttention's max_seqlen_q and
 * max_seqlen_k); every other field is attention's. Layout (row-major, contiguous):
 *     q  total_q x H x d        k  total_k x H_kv x d        v  total_k x H_kv x dv
 *     o  total_q x H x dv       lse  H x total_q  (FlashAttention's varlen LSE layout; S)
 * Each sequence is attention's dense problem with n = n_b and m = m_b on its own tokens: the
 * causal alignment c(i) = i or i + m_b - n_b, the window and the ALiBi distances counted within
 * the sequence, and no token of one sequence seen by another. A sequence with n_b = 0 has no
 * output; its query rows that see no key (m_b = 0, or bottom-right with n_b > m_b) follow the
 * masked-row policy, lse = -inf. Guard pages and canaries follow o and lse; q, k, v, both offset
 * arrays, *p and the slopes are compared after the call. A kind of version 2 only:
 * `attncheck audit --kernel attention_varlen:bf16:SYMBOL`.
 */
#define ATTNCHECK_ABI_DECLARE_VARLEN_V2(T, S, SFX)                                                   \
  typedef int (*attncheck_attention_varlen_v2_##SFX##_fn)(                                            \
      const attncheck_attention_problem* p, const int32_t* cu_seqlens_q, const int32_t* cu_seqlens_k, \
      const T* q, const T* k, const T* v, T* o, S* lse);

ATTNCHECK_ABI_DECLARE_VARLEN_V2(float, float, f32)
ATTNCHECK_ABI_DECLARE_VARLEN_V2(double, double, f64)
ATTNCHECK_ABI_DECLARE_VARLEN_V2(attncheck_f16_bits, float, f16)
ATTNCHECK_ABI_DECLARE_VARLEN_V2(attncheck_bf16_bits, float, bf16)

/* ---- version 2: attention over a paged KV cache ----------------------------------------------
 *
 * The queries packed as in attention_varlen (cu_seqlens_q, B + 1 offsets; q total_q x H x d), the
 * keys and values of every sequence in a shared cache of num_pages pages of page_size tokens, as
 * vLLM's PagedAttention and FlashAttention's block_table keep them:
 *     k_cache  num_pages x page_size x H_kv x d        v_cache  num_pages x page_size x H_kv x dv
 *     block_table  B x pages_per_sequence (int32)     seqused_k  B (int32): m_b, sequence b's keys
 * Sequence b's logical key t (t < m_b) is the cache token block_table[b * pages_per_sequence +
 * t / page_size] * page_size + t % page_size. p->batch = B, p->n and p->m the largest n_b and m_b;
 * every other field is attention's, and each sequence is attention's dense problem on its n_b
 * queries and the m_b keys gathered in that order: o (total_q x H x dv) and lse (H x total_q) are
 * attention_varlen's for those keys. The pages of different sequences are distinct and in any
 * order. Nothing else of the cache may affect the result: the slots after m_b in a sequence's last
 * page, the pages named by table entries past its ceil(m_b / page_size) pages, and the pages no
 * sequence uses hold stale values, NaN included (a weight of 0 times a stale NaN is NaN: do not
 * read them). Guard pages and canaries follow o and lse; q, both caches, cu_seqlens_q, seqused_k,
 * block_table, *p and the slopes are compared after the call. A kind of version 2 only:
 * `attncheck audit --kernel attention_paged:bf16:SYMBOL`.
 */
#define ATTNCHECK_ABI_DECLARE_PAGED_V2(T, S, SFX)                                                    \
  typedef int (*attncheck_attention_paged_v2_##SFX##_fn)(                                            \
      const attncheck_attention_problem* p, const int32_t* cu_seqlens_q, const int32_t* seqused_k,    \
      const int32_t* block_table, size_t pages_per_sequence, size_t page_size, size_t num_pages,     \
      const T* q, const T* k_cache, const T* v_cache, T* o, S* lse);

ATTNCHECK_ABI_DECLARE_PAGED_V2(float, float, f32)
ATTNCHECK_ABI_DECLARE_PAGED_V2(double, double, f64)
ATTNCHECK_ABI_DECLARE_PAGED_V2(attncheck_f16_bits, float, f16)
ATTNCHECK_ABI_DECLARE_PAGED_V2(attncheck_bf16_bits, float, bf16)

/* ---- version 2: FP8 KV caches: attention over the codes, and the cache write -------------------
 *
 * Keys and values stored as OCP 8-bit floating-point codes (uint8_t) with float scales, as vLLM's
 * kv_cache_dtype="fp8", FlashAttention 3's and FlashInfer's FP8 paths and ONNX Runtime's
 * k_scale/v_scale keep them. `format` names the code:
 *     ATTNCHECK_FP8_E4M3FN  OCP E4M3, the "fn" variant: bias 7, no infinities, NaN only S.1111.111
 *                           (0x7f, 0xff), largest finite 448
 *     ATTNCHECK_FP8_E5M2    OCP E5M2: IEEE-like, bias 15, +-inf 0x7c/0xfc, NaN 0x7d..0x7f and
 *                           0xfd..0xff, largest finite 57344
 * Scales are per tensor (scale_count 1) or per key/value head (scale_count = H_kv: head g uses
 * k_scale[g], v_scale[g]); each is positive and finite, possibly subnormal in a 16-bit arithmetic.
 *
 * attention_fp8kv: q in T (B x n x H x d), k and v the codes in attention's dense layouts
 * (B x m x H_kv x d and B x m x H_kv x dv); the result is attention's (o in T, lse in S, NULL when
 * the kernel is declared to return none) over the dequantized values
 *     k = decode(code) * k_scale[g]        v = decode(code) * v_scale[g]
 * every other field of *p as attention's. The codes attncheck hands over are finite (a
 * saturating writer's); the NaN check puts a NaN code in and expects NaN in the rows that see it.
 * A kernel may apply the scale to a sum instead (q.k times k_scale, the weighted sum of v times
 * v_scale): the derived bound covers both. Guard pages and canaries follow o and lse; q, k, v,
 * both scale arrays, *p and the slopes are compared after the call.
 * `attncheck audit --kernel attention_fp8kv:bf16:SYMBOL`.
 *
 * kv_quantize: the cache write, codes[i] = the code of x[i] / scale rounded to nearest, ties to
 * even (the quotient may be rounded once in the kernel's arithmetic first). Beyond the format's
 * range, and for +-inf, `saturating` nonzero gives +-largest finite (ONNX's Cast saturate=1,
 * PyTorch's and most libraries' scaled conversions); zero gives OCP's non-saturating result: NaN
 * for E4M3FN, +-inf for E5M2. NaN gives a NaN code; +-0 may give either zero. A kernel that
 * implements one rule only declines the other (returns nonzero). Guard pages and canaries follow
 * codes; x is compared after the call. `attncheck audit --kernel kv_quantize:bf16:SYMBOL`.
 * Both are kinds of version 2 only.
 */
#define ATTNCHECK_FP8_E4M3FN 0
#define ATTNCHECK_FP8_E5M2 1
#define ATTNCHECK_ABI_DECLARE_FP8KV_V2(T, S, SFX)                                                    \
  typedef int (*attncheck_attention_fp8kv_v2_##SFX##_fn)(                                            \
      const attncheck_attention_problem* p, int format, size_t scale_count, const float* k_scale,     \
      const float* v_scale, const T* q, const uint8_t* k, const uint8_t* v, T* o, S* lse);          \
  typedef int (*attncheck_kv_quantize_v2_##SFX##_fn)(int format, int saturating, size_t n,          \
                                                     float scale, const T* x, uint8_t* codes);

ATTNCHECK_ABI_DECLARE_FP8KV_V2(float, float, f32)
ATTNCHECK_ABI_DECLARE_FP8KV_V2(double, double, f64)
ATTNCHECK_ABI_DECLARE_FP8KV_V2(attncheck_f16_bits, float, f16)
ATTNCHECK_ABI_DECLARE_FP8KV_V2(attncheck_bf16_bits, float, bf16)

/* The version marker: a library written for version 2 puts
 *
 *     ATTNCHECK_EXPORT_ABI_VERSION
 *
 * once in one of its source files (at file scope). It defines the exported function
 * attncheck_abi_version(), which attncheck calls after loading the library; every `attention`
 * kernel of that library then has the version-2 signature. Without it the library is version 1.
 * (A library that cannot be rebuilt may be declared with `attncheck audit --abi 2` or `abi: 2`
 * in a bindings file instead; a marker and a declaration that disagree are a usage error.) */
uint32_t attncheck_abi_version(void);
#if defined(__GNUC__) || defined(__clang__)
#define ATTNCHECK_ABI_VISIBLE __attribute__((visibility("default")))
#else
#define ATTNCHECK_ABI_VISIBLE
#endif
#ifdef __cplusplus
#define ATTNCHECK_EXPORT_ABI_VERSION \
  extern "C" ATTNCHECK_ABI_VISIBLE uint32_t attncheck_abi_version(void) { return ATTNCHECK_ABI_VERSION; }
#else
#define ATTNCHECK_EXPORT_ABI_VERSION \
  ATTNCHECK_ABI_VISIBLE uint32_t attncheck_abi_version(void) { return ATTNCHECK_ABI_VERSION; }
#endif

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ATTNCHECK_ABI_H */
