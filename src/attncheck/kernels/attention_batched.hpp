// attncheck: reference attention as shipped kernels compute it (attention_problem.hpp): batched,
// grouped-query, scaled by an explicit factor, soft-capped, ALiBi-biased, masked with either
// alignment, returning O and the row log-sum-exp. The plain kernel and FlashAttention's tiled one
// are the same function: the row is an online softmax (online_softmax.hpp) fed one block of every
// key (plain) or one block per key tile (tiled), and a tile no query of its query tile sees is
// skipped (tile_visible). With p.num_splits = S > 1 it is a split-KV decoding kernel
// (flash-decoding): the keys are cut into S ranges, each range's rows finish as partial results
// (O_s, ℓ_s), and attention_merge.hpp's steps merge them; the same loop computes every range.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <utility>
#include <vector>

#include "attncheck/kernels/attention_merge.hpp"
#include "attncheck/kernels/attention_problem.hpp"
#include "attncheck/kernels/online_softmax.hpp"
#include "attncheck/kernels/scores.hpp"

namespace attncheck::kernels {

// tanh through exp: 1 − 2/(exp(2x) + 1). Exact at ±inf (exp gives +inf or 0), NaN in NaN out, and
// only exp, which every scalar type of the project has (the symbolic and interval ones included).
// Its absolute error is a few u (bounds/attention_batched.hpp), which is what a score needs:
// the softmax turns an absolute score error into a relative weight error.
template <Scalar T>
T tanh_via_exp(T x) {
  const T one = lit<T>(1), two = lit<T>(2);
  return one - two / T(exp(T(two * x)) + one);
}

// The scalars of a problem, rounded once each to the arithmetic format T.
template <Scalar T>
struct ScoreParams {
  T scale, softcap;
  bool capped;
  explicit ScoreParams(const AttentionProblem& p)
      : scale(lit<T>(p.scale)), softcap(lit<T>(p.softcap > 0 ? p.softcap : 1)), capped(p.softcap > 0) {}
};

// A score s of query head h at diagonal c against key j, with its ALiBi bias where the problem has
// slopes: s − slope_h·|c − j|.
template <Scalar T>
T alibi_biased(const AttentionProblem& p, T s, std::size_t h, long long diag, std::size_t j) {
  if (p.alibi_slopes.empty()) return s;
  const double dist = static_cast<double>(std::llabs(diag - static_cast<long long>(j)));
  return s - T(lit<T>(p.alibi_slopes[h]) * lit<T>(dist));
}

// A score and, where soft-capped, the tanh it was capped with (the backward pass's chain rule
// needs 1 − tanh²; 0 when not capped).
template <Scalar T>
struct ScoreParts {
  T s, tanh;
};

// The score of query row q against key row k (d entries), given their dot product qk, for query
// head h at diagonal c against key j:  s = scale·(q·k);  s ← c·tanh(s/c) if soft-capped;  s ← s − slope_h·|c(i) − j| with ALiBi.
template <Scalar T>
ScoreParts<T> score_parts_of_dot(const AttentionProblem& p, const ScoreParams<T>& sp, T qk, std::size_t h, long long diag, std::size_t j) {
  T s = T(qk * sp.scale);
  T t = lit<T>(0);
  if (sp.capped) {
    t = tanh_via_exp(T(s / sp.softcap));
    s = T(sp.softcap * t);
  }
  return {alibi_biased(p, s, h, diag, j), t};
}
// The same from the rows q and k: their dot product in order, then the above.
template <Scalar T>
ScoreParts<T> attention_score_parts(const AttentionProblem& p, const ScoreParams<T>& sp, const T* q, const T* k, std::size_t h,
                                    long long diag, std::size_t j) {
  return score_parts_of_dot(p, sp, dot(q, k, p.shape.d), h, diag, j);
}

template <Scalar T>
T attention_score(const AttentionProblem& p, const ScoreParams<T>& sp, const T* q, const T* k, std::size_t h, long long diag,
                  std::size_t j) {
  return attention_score_parts(p, sp, q, k, h, diag, j).s;
}

// The steps of attention_batched, each a static function so that a broken kernel (kernels/
// broken_attention.hpp) replaces exactly one of them and inherits the rest: the mutants of the
// bug classes shipped kernels have had are then one step each, not copies of the loop.
struct AttentionSteps {
  static std::size_t kv_head(const AttentionShape& sh, std::size_t h) { return sh.kv_head(h); }
  static AttentionMask::Range visible(const AttentionProblem& p, std::size_t i) { return p.mask.visible(i, p.shape.n, p.shape.m); }
  static bool tile(const AttentionProblem& p, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
    return tile_visible(p.mask, i0, i1, j0, j1, p.shape.n, p.shape.m);
  }
  template <Scalar T>
  static T score(const AttentionProblem& p, const ScoreParams<T>& sp, const T* q, const T* k, std::size_t h, std::size_t i,
                 std::size_t j) {
    return attention_score(p, sp, q, k, h, p.mask.diagonal(i, p.shape.n, p.shape.m), j);
  }
  template <Scalar T>
  static OnlineRow<T> start(std::size_t dv) { return OnlineRow<T>(dv); }
  template <Scalar T, class ValueRow>
  static void update(OnlineRow<T>& st, const T* s, std::size_t len, ValueRow v_row, std::vector<T>& e) {
    online_update(st, s, len, v_row, e);
  }
  // last_tile: the row is in the last query tile (a kernel that special-cases it can get it wrong).
  template <Scalar T>
  static void finish(const AttentionProblem&, const ScoreParams<T>&, const OnlineRow<T>& st, bool /*last_tile*/, T* o, T* lse) {
    online_finish(st, o, lse);
  }
  // Split-KV decoding: split s of S covers the keys [first, last): S ranges of ceil(m / S) keys
  // (FlashAttention's split of the key blocks; the last ranges may be short or empty).
  static std::pair<std::size_t, std::size_t> split_range(std::size_t m, std::size_t S, std::size_t s) {
    const std::size_t c = (m + S - 1) / S;
    return {std::min(m, s * c), std::min(m, (s + 1) * c)};
  }
  // A split's partial result: a row that saw no key of the split gets O_s = 0 and ℓ_s = −inf,
  // which the merge weighs 0 (the ABI's convention for attention_merge).
  template <Scalar T>
  static void partial_finish(const OnlineRow<T>& st, T* o, T* lse) {
    online_finish(st, o, lse);
  }
  using Merge = MergeSteps;  // the merge of the partial results
};

namespace detail {
// The rows' online softmax over the keys [jlo, jhi) only (all m keys: the unsplit kernel); each
// row finishes through finish(row state, b, h, i, last query tile).
template <Scalar T, class Steps, class Finish>
void attention_rows(const AttentionProblem& p, const T* q, const T* k, const T* v, Tiling tiling, std::size_t jlo, std::size_t jhi,
                    Finish finish) {
  const AttentionShape& sh = p.shape;
  const std::size_t n = sh.n, m = sh.m;
  const std::size_t bc = tiling.bc ? tiling.bc : std::max<std::size_t>(m, 1);
  const std::size_t br = tiling.br ? tiling.br : std::max<std::size_t>(n, 1);
  const ScoreParams<T> sp(p);
  std::vector<T> s, e;
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t h = 0; h < sh.heads; ++h) {
      const std::size_t g = Steps::kv_head(sh, h);
      for (std::size_t i0 = 0; i0 < n; i0 += br) {
        const std::size_t i1 = std::min(n, i0 + br);
        std::vector<OnlineRow<T>> rows(i1 - i0, Steps::template start<T>(sh.dv));
        for (std::size_t j0 = jlo; j0 < jhi; j0 += bc) {
          const std::size_t j1 = std::min(jhi, j0 + bc);
          if (!Steps::tile(p, i0, i1, j0, j1)) continue;
          for (std::size_t i = i0; i < i1; ++i) {
            const auto r = Steps::visible(p, i);
            const std::size_t lo = std::max(j0, r.first), hi = std::min(j1, r.last);
            if (r.empty() || lo >= hi) continue;
            s.resize(hi - lo);
            for (std::size_t j = lo; j < hi; ++j) s[j - lo] = Steps::score(p, sp, q + sh.q_at(b, i, h), k + sh.k_at(b, j, g), h, i, j);
            Steps::update(rows[i - i0], s.data(), hi - lo, [&](std::size_t t) { return v + sh.v_at(b, lo + t, g); }, e);
          }
        }
        for (std::size_t i = i0; i < i1; ++i) finish(rows[i - i0], b, h, i, i1 == n);
      }
    }
}
}  // namespace detail

// O (and LSE where lse is not null) of problem p, row-major in the layout of AttentionShape.
// tiling.bc = 0: one block of every visible key per row (the plain algorithm); otherwise key
// tiles of bc and query tiles of br (0: all n), FlashAttention's loop order.
template <Scalar T, class Steps = AttentionSteps>
void attention_batched(const AttentionProblem& p, const T* q, const T* k, const T* v, T* o, T* lse, Tiling tiling = {}) {
  const AttentionShape& sh = p.shape;
  const ScoreParams<T> sp(p);
  if (p.num_splits <= 1) {
    detail::attention_rows<T, Steps>(p, q, k, v, tiling, 0, sh.m, [&](const OnlineRow<T>& st, std::size_t b, std::size_t h, std::size_t i, bool last) {
      Steps::finish(p, sp, st, last, o + sh.o_at(b, i, h), lse ? lse + sh.lse_at(b, h, i) : nullptr);
    });
    return;
  }
  // Split-KV: the partial results of every split (o's layout, and the LSE per row (b, h, i) in
  // o's row order), then attention_merge over them.
  const std::size_t S = p.num_splits, rows = sh.rows(), dv = sh.dv;
  const auto row_of = [&](std::size_t b, std::size_t h, std::size_t i) { return (b * sh.n + i) * sh.heads + h; };
  std::vector<T> po(S * rows * dv, lit<T>(0)), pl(S * rows, lit<T>(0));
  for (std::size_t sp_i = 0; sp_i < S; ++sp_i) {
    const auto [jlo, jhi] = Steps::split_range(sh.m, S, sp_i);
    detail::attention_rows<T, Steps>(p, q, k, v, tiling, jlo, jhi, [&](const OnlineRow<T>& st, std::size_t b, std::size_t h, std::size_t i, bool) {
      const std::size_t r = row_of(b, h, i);
      Steps::partial_finish(st, po.data() + (sp_i * rows + r) * dv, pl.data() + sp_i * rows + r);
    });
  }
  // The merge's rows are o's rows (b, i, h): it writes o in place; its LSEs go to lse's layout.
  std::vector<T> merged(lse ? rows : 0);
  attention_merge<T, typename Steps::Merge>(S, rows, dv, po.data(), pl.data(), o, lse ? merged.data() : nullptr);
  if (lse)
    for (std::size_t b = 0; b < sh.batch; ++b)
      for (std::size_t h = 0; h < sh.heads; ++h)
        for (std::size_t i = 0; i < sh.n; ++i) lse[sh.lse_at(b, h, i)] = merged[row_of(b, h, i)];
}

}  // namespace attncheck::kernels
