// attncheck: broken batched attention kernels, beside the kernel they break. Each is one step of
// kernels::AttentionSteps replaced (attention_batched.hpp), for a bug class that shipped fused and
// tiled attention kernels have had: rescaling, the running maximum, tile skipping, the causal
// alignment, window ends, the soft-cap's place, the grouped-query head map, the LSE's units and
// scale, the final normalisation. The tests each must be caught by are stated with the tests
// (`catches:` in contracts/attention-kernel-v1.yaml) and in the mutants' caught_by lists.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <vector>

#include "attncheck/kernels/attention_batched.hpp"

namespace attncheck::kernels::broken {

// The accumulator not rescaled when the running maximum grows (the normaliser is): right with one
// block, wrong as soon as a later tile holds a larger score.
struct AccumulatorNotRescaled : AttentionSteps {
  template <Scalar T, class ValueRow>
  static void update(OnlineRow<T>& st, const T* s, std::size_t len, ValueRow v_row, std::vector<T>& e) {
    online_update(st, s, len, v_row, e, [](T, T, T) { return lit<T>(1); });
  }
};

// The rescaling factor inverted for the accumulator, exp(M_new − M_old) instead of exp(M_old − M_new),
// after the first block (where M_old = −inf would make it infinite at once).
struct RescaleInverted : AttentionSteps {
  template <Scalar T, class ValueRow>
  static void update(OnlineRow<T>& st, const T* s, std::size_t len, ValueRow v_row, std::vector<T>& e) {
    const bool first = st.keys == 0;
    online_update(st, s, len, v_row, e, [first](T alpha, T m_old, T m_new) { return first ? alpha : shifted_exp_step(m_new, m_old); });
  }
};

// The running maximum started at 0 instead of −inf: exact in real arithmetic (softmax is shift
// invariant), but every exp underflows when all scores are far below 0, and overflows far above.
struct MaxStartsAtZero : AttentionSteps {
  template <Scalar T>
  static OnlineRow<T> start(std::size_t dv) {
    OnlineRow<T> r(dv);
    r.max = lit<T>(0);
    return r;
  }
};

// Causal tile skipping off by one at a tile boundary: a tile is skipped when only its first key
// is visible (the test compares with the tile's first key + 1).
struct TileSkipOffByOne : AttentionSteps {
  static bool tile(const AttentionProblem& p, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
    return tile_visible(p.mask, i0, i1, j0 + 1, j1, p.shape.n, p.shape.m);
  }
};

// Top-left and bottom-right alignment swapped: the same when n == m, wrong otherwise.
struct AlignmentSwapped : AttentionSteps {
  static AttentionMask swapped(AttentionMask m) {
    m.alignment = m.alignment == Alignment::top_left ? Alignment::bottom_right : Alignment::top_left;
    return m;
  }
  static AttentionMask::Range visible(const AttentionProblem& p, std::size_t i) { return swapped(p.mask).visible(i, p.shape.n, p.shape.m); }
  static bool tile(const AttentionProblem& p, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
    return tile_visible(swapped(p.mask), i0, i1, j0, j1, p.shape.n, p.shape.m);
  }
};

// A sliding window one key short at its left end (j > c − left instead of j >= c − left).
struct WindowLeftOffByOne : AttentionSteps {
  static AttentionMask::Range visible(const AttentionProblem& p, std::size_t i) {
    auto r = p.mask.visible(i, p.shape.n, p.shape.m);
    const long long c = p.mask.diagonal(i, p.shape.n, p.shape.m);
    if (p.mask.window_left >= 0 && !r.empty() && static_cast<long long>(r.first) == c - p.mask.window_left) ++r.first;
    return r;
  }
};

// A sliding window one key short at its right end (j < c + right instead of j <= c + right).
struct WindowRightOffByOne : AttentionSteps {
  static AttentionMask::Range visible(const AttentionProblem& p, std::size_t i) {
    auto r = p.mask.visible(i, p.shape.n, p.shape.m);
    const long long c = p.mask.diagonal(i, p.shape.n, p.shape.m);
    if (p.mask.window_right >= 0 && !r.empty() && static_cast<long long>(r.last) == c + p.mask.window_right + 1) --r.last;
    return r;
  }
};

// The soft-cap applied before the scale: c·tanh(q·k/c)·scale instead of c·tanh(scale·q·k/c).
struct SoftcapBeforeScale : AttentionSteps {
  template <Scalar T>
  static T score(const AttentionProblem& p, const ScoreParams<T>& sp, const T* q, const T* k, std::size_t h, std::size_t i,
                 std::size_t j) {
    if (!sp.capped) return AttentionSteps::score(p, sp, q, k, h, i, j);
    const T capped = T(sp.softcap * tanh_via_exp(T(dot(q, k, p.shape.d) / sp.softcap)));
    return alibi_biased(p, T(capped * sp.scale), h, p.mask.diagonal(i, p.shape.n, p.shape.m), j);
  }
};

// The soft-cap applied after masking: a masked score −inf becomes c·tanh(−inf) = −c, so every
// masked key gets weight e^{−c}/Σ instead of 0.
struct SoftcapAfterMask : AttentionSteps {
  static AttentionMask::Range visible(const AttentionProblem& p, std::size_t i) {
    return p.softcap > 0 ? AttentionMask::Range{0, p.shape.m} : p.mask.visible(i, p.shape.n, p.shape.m);
  }
  static bool tile(const AttentionProblem& p, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1) {
    return p.softcap > 0 || AttentionSteps::tile(p, i0, i1, j0, j1);
  }
  template <Scalar T>
  static T score(const AttentionProblem& p, const ScoreParams<T>& sp, const T* q, const T* k, std::size_t h, std::size_t i,
                 std::size_t j) {
    if (!sp.capped || p.mask.sees(i, j, p.shape.n, p.shape.m)) return AttentionSteps::score(p, sp, q, k, h, i, j);
    return T(-sp.softcap);  // c·tanh(−inf / c)
  }
};

// Grouped-query heads mapped by h % H_kv instead of h / (H / H_kv): right for multi-head and
// multi-query attention, wrong for every grouping in between.
struct GqaModulo : AttentionSteps {
  static std::size_t kv_head(const AttentionShape& sh, std::size_t h) { return h % sh.kv_heads; }
};

// The LSE returned in log2 units (FlashAttention 3 works in base 2 inside): log2 Σ exp = lse / ln 2.
struct LseLog2 : AttentionSteps {
  template <Scalar T>
  static void finish(const AttentionProblem& p, const ScoreParams<T>& sp, const OnlineRow<T>& st, bool last, T* o, T* lse) {
    AttentionSteps::finish(p, sp, st, last, o, lse);
    if (lse) *lse = T(*lse * lit<T>(std::numbers::log2e));
  }
};

// The LSE without the scale: the maximum taken of the unscaled scores (a kernel that folds the
// scale into the exp, exp(scale·(s − M)), must return scale·M + log Σ, and returns M + log Σ).
struct LseUnscaled : AttentionSteps {
  template <Scalar T>
  static void finish(const AttentionProblem& p, const ScoreParams<T>& sp, const OnlineRow<T>& st, bool last, T* o, T* lse) {
    AttentionSteps::finish(p, sp, st, last, o, lse);
    if (lse && st.keys) *lse = T(st.max / sp.scale + log(st.sum));
  }
};

// The final division by the normaliser skipped for the rows of the last query tile.
struct LastBlockUndivided : AttentionSteps {
  template <Scalar T>
  static void finish(const AttentionProblem& p, const ScoreParams<T>& sp, const OnlineRow<T>& st, bool last, T* o, T* lse) {
    AttentionSteps::finish(p, sp, st, last, o, lse);
    if (last && st.keys)
      for (std::size_t c = 0; c < st.acc.size(); ++c) o[c] = st.acc[c];
  }
};

// The running state of a row kept in the 16-bit format S across key tiles, the most common
// mixed-precision bug (a bf16 accumulator register): after each block the output accumulator O
// (What::acc) or the normaliser l (What::sum) is rounded to S. With What::pv the P·V product itself
// is accumulated in S: every key is its own block (exact in real arithmetic, the online softmax
// over any blocking is the same), and O is rounded to S after each key's product is added.
enum class StateIn16 { acc, sum, pv };
template <class S, StateIn16 What>
struct StateStoredIn : AttentionSteps {
  template <Scalar T>
  static T in_s(T x) { return lit<T>(to_double(lit<S>(to_double(x)))); }
  template <Scalar T, class ValueRow>
  static void update(OnlineRow<T>& st, const T* s, std::size_t len, ValueRow v_row, std::vector<T>& e) {
    if (What == StateIn16::pv) {
      for (std::size_t t = 0; t < len; ++t) {
        online_update(st, s + t, 1, [&](std::size_t) { return v_row(t); }, e);
        for (T& a : st.acc) a = in_s(a);
      }
      return;
    }
    online_update(st, s, len, v_row, e);
    if (What == StateIn16::sum) st.sum = in_s(st.sum);
    else
      for (T& a : st.acc) a = in_s(a);
  }
};

}  // namespace attncheck::kernels::broken
