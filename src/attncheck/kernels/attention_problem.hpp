// attncheck: the attention problem as shipped kernels take it (FlashAttention 2/3, PyTorch's
// scaled_dot_product_attention, ONNX Runtime's GroupQueryAttention): a batch of sequences, many
// query heads sharing fewer key/value heads, an explicit scale, a causal mask with its alignment,
// a sliding window, a logit soft-cap and ALiBi slopes. No scalar type here: the shape, the layout
// and which keys a query sees are facts about indices, shared by the kernels (attention_batched.hpp),
// the oracle and the bounds, and mirrored field by field by the C ABI (include/attncheck/abi.h).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

namespace attncheck::kernels {

// Where the causal diagonal and the window sit when n != m. Top-left: query i is aligned with key
// i (PyTorch's is_causal). Bottom-right: query i is aligned with key i + m - n, so the last query
// sees the last key (FlashAttention >= 2.1, PyTorch's causal_lower_right, every decode step).
// The two agree exactly when n == m; code written for one is silently wrong for the other.
enum class Alignment : std::uint8_t { top_left = 0, bottom_right = 1 };

// Which keys query i sees. c(i) = i (top-left) or i + m - n (bottom-right) is the key aligned with
// query i; key j is visible iff
//   (not causal or j <= c(i)) and (window_left < 0 or j >= c(i) - window_left)
//                             and (window_right < 0 or j <= c(i) + window_right).
// (FlashAttention's window_size = (left, right), -1 unbounded; causal is right = 0.)
struct AttentionMask {
  bool causal = false;
  Alignment alignment = Alignment::top_left;
  long long window_left = -1;
  long long window_right = -1;

  long long diagonal(std::size_t i, std::size_t n, std::size_t m) const {
    const long long shift = alignment == Alignment::bottom_right ? static_cast<long long>(m) - static_cast<long long>(n) : 0;
    return static_cast<long long>(i) + shift;
  }
  // The visible keys of query i are the interval [first, last) of [0, m), possibly empty; both
  // ends are non-decreasing in i, which lets a tiled kernel skip whole tiles (tile_visible).
  struct Range {
    std::size_t first = 0, last = 0;
    bool empty() const { return first >= last; }
    std::size_t size() const { return empty() ? 0 : last - first; }
  };
  Range visible(std::size_t i, std::size_t n, std::size_t m) const {
    const long long c = diagonal(i, n, m), M = static_cast<long long>(m);
    long long lo = 0, hi = M;  // [lo, hi)
    if (window_left >= 0) lo = std::max(lo, c - window_left);
    if (causal) hi = std::min(hi, c + 1);
    if (window_right >= 0) hi = std::min(hi, c + window_right + 1);
    if (hi <= lo) return {0, 0};
    return {static_cast<std::size_t>(lo), static_cast<std::size_t>(hi)};
  }
  bool sees(std::size_t i, std::size_t j, std::size_t n, std::size_t m) const {
    const Range r = visible(i, n, m);
    return j >= r.first && j < r.last;
  }
  bool masks_anything() const { return causal || window_left >= 0 || window_right >= 0; }
};

// The sizes of one call. heads % kv_heads == 0: kv_heads == heads is multi-head attention, 1 is
// multi-query, anything between grouped-query; query head h reads key/value head h / (heads / kv_heads).
//
// Layout (FlashAttention's, row-major, contiguous):
//   q   batch x n x heads    x d        k  batch x m x kv_heads x d
//   o   batch x n x heads    x dv       v  batch x m x kv_heads x dv
//   lse batch x heads x n    (natural log of each row's normaliser)
struct AttentionShape {
  std::size_t batch = 1, heads = 1, kv_heads = 1, n = 0, m = 0, d = 0, dv = 0;

  bool valid() const { return batch > 0 && heads > 0 && kv_heads > 0 && heads % kv_heads == 0 && d > 0 && dv > 0; }
  std::size_t group() const { return heads / kv_heads; }
  std::size_t kv_head(std::size_t h) const { return h / group(); }
  std::size_t q_at(std::size_t b, std::size_t i, std::size_t h) const { return ((b * n + i) * heads + h) * d; }
  std::size_t k_at(std::size_t b, std::size_t j, std::size_t g) const { return ((b * m + j) * kv_heads + g) * d; }
  std::size_t v_at(std::size_t b, std::size_t j, std::size_t g) const { return ((b * m + j) * kv_heads + g) * dv; }
  std::size_t o_at(std::size_t b, std::size_t i, std::size_t h) const { return ((b * n + i) * heads + h) * dv; }
  std::size_t lse_at(std::size_t b, std::size_t h, std::size_t i) const { return (b * heads + h) * n + i; }
  std::size_t q_size() const { return batch * n * heads * d; }
  std::size_t k_size() const { return batch * m * kv_heads * d; }
  std::size_t v_size() const { return batch * m * kv_heads * dv; }
  std::size_t o_size() const { return batch * n * heads * dv; }
  std::size_t lse_size() const { return batch * heads * n; }
  std::size_t rows() const { return batch * heads * n; }  // output rows (b, h, i)
};

// Everything a kernel is told besides the tensors. The reals are doubles here, as a caller holds
// them; a kernel rounds each once to its arithmetic format (lit<T>), and the bounds charge that.
struct AttentionProblem {
  AttentionShape shape;
  double scale = 1;      // multiplies q.k: 1/sqrt(d) is one choice among others
  AttentionMask mask;
  double softcap = 0;    // c > 0: a score s becomes c tanh(s / c) after the scale, before the
                         // ALiBi bias and the mask (Gemma 2); 0: off
  std::vector<double> alibi_slopes;  // empty, or one slope per query head: the score of key j
                                     // for query i gets -slope_h |c(i) - j| (FlashAttention's)
  std::size_t num_splits = 0;        // > 1: split-KV decoding (flash-decoding) allowed: each row's
                                     // keys may be cut into at most this many ranges whose partial
                                     // results are merged through their LSEs; 0 or 1: unsplit
  std::string describe() const;      // one line: the shape and every parameter, for reports
};

inline std::string AttentionProblem::describe() const {
  const auto& s = shape;
  std::string r = "B = " + std::to_string(s.batch) + ", H = " + std::to_string(s.heads) + ", H_kv = " + std::to_string(s.kv_heads) +
                  ", n = " + std::to_string(s.n) + ", m = " + std::to_string(s.m) + ", d = " + std::to_string(s.d) +
                  ", dv = " + std::to_string(s.dv);
  char buf[64];
  std::snprintf(buf, sizeof buf, ", scale = %.17g", scale);
  r += buf;
  if (mask.causal) r += mask.alignment == Alignment::bottom_right ? ", causal bottom-right" : ", causal top-left";
  if (mask.window_left >= 0 || mask.window_right >= 0) {
    r += ", window (" + std::to_string(mask.window_left) + ", " + std::to_string(mask.window_right) + ")";
    if (!mask.causal) r += mask.alignment == Alignment::bottom_right ? " bottom-right" : " top-left";
  }
  if (num_splits > 1) r += ", num_splits = " + std::to_string(num_splits);
  if (softcap > 0) {
    std::snprintf(buf, sizeof buf, ", soft-cap %.17g", softcap);
    r += buf;
  }
  if (!alibi_slopes.empty()) r += ", ALiBi";
  return r;
}

// A tiled kernel's tiles: br queries by bc keys (FlashAttention's Br x Bc). Zero means "the whole
// row": bc = 0 is one block of every key, which is the plain algorithm.
struct Tiling {
  std::size_t br = 0, bc = 0;
};

// Whether any key of [j0, j1) is visible to any query of [i0, i1): the tile test of a tiled
// kernel. A tile no query sees is skipped; a tile some query sees is masked element by element
// (so a conservative test costs time, never correctness). The rows are walked one by one: rows
// that see nothing can sit at either end of a tile (bottom-right alignment with n > m, a window
// past the last key), so the two end rows alone do not bound the union.
inline bool tile_visible(const AttentionMask& mask, std::size_t i0, std::size_t i1, std::size_t j0, std::size_t j1, std::size_t n,
                         std::size_t m) {
  for (std::size_t i = i0; i < i1; ++i) {
    const auto r = mask.visible(i, n, m);
    if (!r.empty() && r.first < j1 && j0 < r.last) return true;
  }
  return false;
}

}  // namespace attncheck::kernels
