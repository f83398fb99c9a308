// attncheck: drawing batched attention problems (kernels/attention_problem.hpp) for the gate and
// the audit: shapes with grouped heads, n != m (where the two causal alignments differ), windows,
// soft-caps, ALiBi slopes, a tiling for the reference, and now and then scores shifted far from 0
// (where a running maximum started at 0 instead of −inf underflows or overflows every exp).
#pragma once

#include "attncheck/bounds/attention_batched.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/kernels/kernel_set.hpp"
#include "attncheck/kernels/attention_problem.hpp"
#include "attncheck/property/gen/attention.hpp"
#include "attncheck/property/registry.hpp"
#include "attncheck/scalar/arithmetic.hpp"

namespace attncheck::gen {

struct BatchedLimits {
  std::size_t max_batch = 2, max_heads = 4;
  std::size_t max_n = 9, max_m = 12;  // small, so that a failure shrinks to a readable case
  std::size_t max_d = 12, max_dv = 5;
  double sigma_qk = 2, sigma_v = 8;
  bool masks = true;    // false: no mask, window, soft-cap or ALiBi (every row sees every key)
  bool shifts = true;   // a quarter of the cases with scores shifted far from 0
  bool large_shifts = true;   // half of the shifted cases beyond f16's range (draw_shift)
  bool several_tiles = true;  // 1 case in 8 with keys spanning several tiles (several_tiles_problem)
};

// The tiling a bound is derived for: the one the kernel was told, when it follows it (the
// reference and its mutants); any tiling for a third party's kernel.
template <class T>
bounds::KeyBlocks blocks_of(const KernelSet<T>& ks, kernels::Tiling t) {
  if (!ks.attention_batched_follows_tiling) return bounds::KeyBlocks::any();
  return t.bc ? bounds::KeyBlocks::tiles(t.bc) : bounds::KeyBlocks::plain();
}

template <class T>
struct BatchedCase {
  kernels::AttentionProblem p;
  kernels::Tiling tiling;  // the reference's tiling (0: plain); a third party's kernel ignores it
  std::vector<T> q, k, v;
  double shift = 0;        // the score offset the case was drawn with (0: none)
  double v_mean = 0;       // the mean added to every odd value column (0: none; draw_value_means)

  struct Output {
    std::vector<T> o;
    std::vector<lse_t<T>> lse;  // empty when the kernel returns none
  };
  Output run(const KernelSet<T>& ks, kernels::Tiling t) const {
    Output r;
    r.o.assign(p.shape.o_size(), lit<T>(0));
    if (ks.attention_batched_lse) r.lse.assign(p.shape.lse_size(), 0);
    ks.attention_batched(p, t, q.data(), k.data(), v.data(), r.o.data(), r.lse.empty() ? nullptr : r.lse.data());
    return r;
  }
  Output run(const KernelSet<T>& ks) const { return run(ks, tiling); }
  std::string describe() const {
    std::string r = p.describe();
    // Whose tiling: the reference kernel's (and its mutants'); a kernel under audit tiles as it likes.
    if (tiling.bc) r += ", the reference's tiles " + std::to_string(tiling.br) + " x " + std::to_string(tiling.bc) + " (Br x Bc)";
    if (shift != 0) r += ", scores shifted by about " + std::to_string(static_cast<long long>(shift));
    if (v_mean != 0) r += ", odd value columns of mean " + std::to_string(static_cast<long long>(v_mean));
    return r;
  }
};

// The multi-head problem equal to c: each key/value head repeated for the query heads that read
// it (PyTorch's repeat_kv), H key/value heads.
template <class T>
BatchedCase<T> repeated_kv_heads(const BatchedCase<T>& c) {
  const auto& s = c.p.shape;
  BatchedCase<T> mha = c;
  mha.p.shape.kv_heads = s.heads;
  const auto& t = mha.p.shape;
  mha.k.assign(t.k_size(), lit<T>(0));
  mha.v.assign(t.v_size(), lit<T>(0));
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t j = 0; j < s.m; ++j)
      for (std::size_t h = 0; h < s.heads; ++h) {
        std::copy_n(c.k.begin() + static_cast<std::ptrdiff_t>(s.k_at(b, j, s.kv_head(h))), s.d, mha.k.begin() + static_cast<std::ptrdiff_t>(t.k_at(b, j, h)));
        std::copy_n(c.v.begin() + static_cast<std::ptrdiff_t>(s.v_at(b, j, s.kv_head(h))), s.dv, mha.v.begin() + static_cast<std::ptrdiff_t>(t.v_at(b, j, h)));
      }
  return mha;
}

inline std::size_t size_in(std::size_t lo, std::size_t hi) { return static_cast<std::size_t>(*rc::gen::inRange(lo, hi + 1)); }

// A problem's shape and parameters (no tensors): heads a multiple of kv_heads; n != m half of the
// time; masks, windows, soft-cap and ALiBi each present or not.
inline kernels::AttentionProblem batched_problem(const BatchedLimits& lim = {}) {
  kernels::AttentionProblem p;
  auto& s = p.shape;
  s.batch = size_in(1, lim.max_batch);
  s.kv_heads = size_in(1, lim.max_heads);
  s.heads = s.kv_heads * size_in(1, lim.max_heads / s.kv_heads);
  s.n = size_in(1, lim.max_n);
  s.m = *rc::gen::inRange(0, 2) ? s.n : size_in(1, lim.max_m);
  s.d = size_in(1, lim.max_d);
  s.dv = size_in(1, lim.max_dv);
  // 1/√d as a caller rounds it to double, or any other positive scale (a power of two among them).
  p.scale = *rc::gen::element(1 / std::sqrt(static_cast<double>(s.d)), 1.0, 0.125, 0.3, 1.7);
  if (!lim.masks) return p;
  p.mask.causal = *rc::gen::inRange(0, 2);
  p.mask.alignment = *rc::gen::inRange(0, 2) ? kernels::Alignment::bottom_right : kernels::Alignment::top_left;
  if (*rc::gen::inRange(0, 3) == 0) p.mask.window_left = *rc::gen::inRange(0, 5);
  if (!p.mask.causal && *rc::gen::inRange(0, 3) == 0) p.mask.window_right = *rc::gen::inRange(0, 5);
  if (*rc::gen::inRange(0, 3) == 0) p.softcap = *rc::gen::element(1.0, 5.0, 30.0, 50.0);
  if (*rc::gen::inRange(0, 4) == 0)
    for (std::size_t h = 0; h < s.heads; ++h) p.alibi_slopes.push_back(std::ldexp(1.0, -static_cast<int>(h + 1)));  // ALiBi's 2^(-8h/H) family
  return p;
}

// Whether the running model draws scores of magnitude beyond f16's range. Not when the arithmetic
// is f16 (f16@f16: q·k itself overflows) nor when the scores are stored in f16 (f16@f32 declared
// unfused): a correct kernel of that model overflows there. Nor at bf16@bf16: its derived score
// error there is hundreds (u = 2^-8 times |s| >= 5e4), so the allowance says nothing (it is
// infinite there: bounds::attention_row_allowance, which once made it NaN). Where this is false the
// regions "qk beyond f16" and "every visible score below -5e4" are neither drawn nor named.
template <class T>
bool scores_beyond_f16_representable() {
  if constexpr (std::is_same_v<T, f16>) return current_arithmetic() == Arithmetic::f32 && current_intermediates() == Intermediates::fused;
  if constexpr (std::is_same_v<T, bf16>) return current_arithmetic() == Arithmetic::f32;
  return true;
}

// f16@f32 declared unfused: the scores are stored in f16, so no score may leave its range, but
// q·k may: a correct unfused kernel folds the scale into q (or k) before the product, and one that
// stores q·k before the scale overflows there (a bug class). So this model draws |q·k| = 7e4 with
// scale·|q·k| <= 3e4 (the "qk beyond f16" region), and never the far-below scores.
template <class T>
bool unscaled_qk_beyond_f16_only() {
  if constexpr (std::is_same_v<T, f16>) return current_arithmetic() == Arithmetic::f32 && current_intermediates() == Intermediates::unfused;
  return false;
}

// The shift variants of a shifted case (batched_case): the moderate shifts ±30, ±200, ±1000 (half
// of the shifted cases, as before), scores with |q·k| beyond f16's range before the scale, or
// every score far below every finite sentinel a running maximum is started at (−1e4, −5e4,
// finfo.min/2 of f16).
enum class ShiftKind { moderate, qk_beyond_f16, far_below };

// Shifts every score of case c by about `shift` (q and k get coordinate 0 set to ±a, a =
// √(|shift|/scale)): a quarter of the cases whose scores are not soft-capped (a cap would undo it).
// Of those, half get a moderate shift (±30, ±200, ±1000: far enough for every format's exp to
// underflow from a maximum of 0, f64: below −745, f16: below −17, and to overflow with positive
// shifts, f32: above 88.7), a quarter |q·k| = 7e4, 2e5 or 8e5 before the scale (beyond f16's
// 65504, whatever the scale makes of it; either sign), a quarter every score at about −1e5 or −3e5
// (below −5e4 by far more than exp's underflow range, about 104 in f32). The elements stay below
// 1550, finite in every storage format; q·k and the scores stay finite in f32. Where the scores
// cannot leave f16's range (scores_beyond_f16_representable) the large variants become moderate.
template <class T>
void draw_shift(BatchedCase<T>& c, const BatchedLimits& lim) {
  if (!(lim.shifts && *rc::gen::inRange(0, 4) == 0 && c.p.softcap == 0)) return;
  const double mag = *rc::gen::element(30.0, 200.0, 1000.0);
  c.shift = *rc::gen::element(-mag, mag);
  double qk = c.shift / c.p.scale;  // the unscaled q·k of the shifted coordinate
  // Drawn after the moderate magnitude, so that the moderate cases keep their draws.
  const bool qk_only = unscaled_qk_beyond_f16_only<T>();
  const int kind = lim.large_shifts && (scores_beyond_f16_representable<T>() || qk_only) ? *uniform_int(0, 3, 0) : 0;
  if (qk_only && kind >= 2) {
    if (7e4 * c.p.scale <= 3e4) {  // else moderate: this scale would take the scores out of f16's range
      qk = 7e4 * (c.shift > 0 ? 1 : -1);
      c.shift = qk * c.p.scale;
    }
  } else if (kind == 2) {
    qk = *rc::gen::element(7e4, 2e5, 8e5) * (c.shift > 0 ? 1 : -1);
    c.shift = qk * c.p.scale;
  } else if (kind == 3) {
    c.shift = *rc::gen::element(-1e5, -3e5);
    qk = c.shift / c.p.scale;
  }
  const auto& s = c.p.shape;
  const double a = std::sqrt(std::abs(qk));
  const T qa = lit<T>(a), ka = lit<T>(qk > 0 ? a : -a);
  for (std::size_t i = 0; i < s.q_size(); i += s.d) c.q[i] = qa;
  for (std::size_t j = 0; j < s.k_size(); j += s.d) c.k[j] = ka;
}

// The shape and parameters of a case whose keys span several tiles of 64 (and mostly of 128):
// m in [65, 300] (a multiple of 64 for 3 of its 236 values), kept cheap for the exact oracle
// (K·d 200-bit operations per output row): B = 1, H <= 2, n <= 3 (n = 1, a decode row, half of
// the time), d <= 8, dv <= 4. Masks as batched_problem draws them, but a window is long (64 keys
// up to m) half of the time.
inline kernels::AttentionProblem several_tiles_problem(const BatchedLimits& lim) {
  kernels::AttentionProblem p;
  auto& s = p.shape;
  s.batch = 1;
  s.kv_heads = *uniform_int<std::size_t>(1, 2, 1);
  s.heads = s.kv_heads == 2 ? 2 : *uniform_int<std::size_t>(1, 2, 1);
  s.n = *uniform_int(0, 1, 0) ? *uniform_int<std::size_t>(2, 3, 2) : 1;
  s.m = *uniform_int<std::size_t>(65, 300, 65);
  s.d = *uniform_int<std::size_t>(1, 8, 1);
  s.dv = *uniform_int<std::size_t>(1, 4, 1);
  p.scale = *rc::gen::element(1 / std::sqrt(static_cast<double>(s.d)), 1.0, 0.125, 0.3, 1.7);
  if (!lim.masks) return p;
  const auto window = [&s] {
    return *uniform_int(0, 1, 0) ? static_cast<long long>(*uniform_int<std::size_t>(64, s.m, 64)) : static_cast<long long>(*uniform_int(0, 4, 0));
  };
  p.mask.causal = *uniform_int(0, 1, 0);
  p.mask.alignment = *uniform_int(0, 1, 0) ? kernels::Alignment::bottom_right : kernels::Alignment::top_left;
  if (*uniform_int(0, 2, 1) == 0) p.mask.window_left = window();
  if (!p.mask.causal && *uniform_int(0, 2, 1) == 0) p.mask.window_right = window();
  if (*uniform_int(0, 2, 1) == 0) p.softcap = *rc::gen::element(1.0, 5.0, 30.0, 50.0);
  if (*uniform_int(0, 3, 1) == 0)
    for (std::size_t h = 0; h < s.heads; ++h) p.alibi_slopes.push_back(std::ldexp(1.0, -static_cast<int>(h + 1)));
  return p;
}

// The regions of a drawn case, for the generator coverage figure (`--coverage`; property::cover).
// Computed from the drawn values (scores in double): a region is reached when a row that sees a
// key has it. Where scores_beyond_f16_representable is false the two large-score regions are not
// named: the generator cannot draw them there.
template <class T>
std::vector<property::Region> batched_regions(const BatchedCase<T>& c) {
  const auto& p = c.p;
  const auto& s = p.shape;
  bool qk_beyond = false, all_far_below = true, any_row = false, alibi_big = false;
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < s.heads; ++h)
      for (std::size_t i = 0; i < s.n; ++i) {
        const auto vis = p.mask.visible(i, s.n, s.m);
        if (vis.empty()) continue;
        any_row = true;
        const long long diag = p.mask.diagonal(i, s.n, s.m);
        double top = -std::numeric_limits<double>::infinity();
        for (std::size_t j = vis.first; j < vis.last; ++j) {
          double qk = 0;
          for (std::size_t t = 0; t < s.d; ++t) qk += to_double(c.q[s.q_at(b, i, h) + t]) * to_double(c.k[s.k_at(b, j, s.kv_head(h)) + t]);
          qk_beyond |= std::abs(qk) > 65504;
          double score = p.scale * qk;
          if (p.softcap > 0) score = p.softcap * std::tanh(score / p.softcap);
          if (!p.alibi_slopes.empty()) {
            const double bias = std::abs(p.alibi_slopes[h]) * static_cast<double>(std::llabs(diag - static_cast<long long>(j)));
            alibi_big |= bias > 100;
            score -= bias;
          }
          top = std::max(top, score);
        }
        all_far_below &= top < -5e4;
      }
  std::vector<property::Region> r;
  if (scores_beyond_f16_representable<T>())
    r.insert(r.end(), {{"qk beyond f16 (|q·k| > 65504 before the scale)", qk_beyond},
                       {"every visible score below -5e4", any_row && all_far_below}});
  else if (unscaled_qk_beyond_f16_only<T>())
    r.push_back({"qk beyond f16 (|q·k| > 65504 before the scale)", qk_beyond});
  const long long wl = p.mask.window_left, wr = p.mask.window_right;
  r.insert(r.end(), {
                        {"scores shifted by 30..1000", c.shift != 0 && std::abs(c.shift) <= 1000},
                        {"ALiBi bias above 100 on a visible key", alibi_big},
                        {"window of 64+ keys", wl >= 64 || wr >= 64},
                        {"several 64-key tiles (m > 64, m mod 64 != 0)", s.m > 64 && s.m % 64 != 0},
                        {"several 128-key tiles (m > 128, m mod 128 != 0)", s.m > 128 && s.m % 128 != 0},
                        {"decode row (n = 1, m > 1)", s.n == 1 && s.m > 1},
                        {"value columns with a mean", c.v_mean != 0 && s.dv > 1},
                        {"n != m", s.n != s.m},
                        {"dv != d", s.dv != s.d},
                    });
  return r;
}

// A quarter of the cases get a mean (±4σ_v or 16σ_v) added to every odd value column: a value
// channel with a mean, as real models have, is where a P·V sum accumulated in 16 bits drifts
// (audit/attention_at_size.hpp says why), and where the bound's value-shift corollary is used.
template <class T>
void draw_value_means(BatchedCase<T>& c, const BatchedLimits& lim) {
  if (*uniform_int(0, 3, 0) != 3) return;
  c.v_mean = *rc::gen::element(4.0, -4.0, 16.0) * lim.sigma_v;
  const std::size_t dv = c.p.shape.dv;
  for (std::size_t i = 0; i < c.v.size(); ++i)
    if ((i % dv) % 2 == 1) c.v[i] = lit<T>(to_double(c.v[i]) + c.v_mean);
}

// A whole case: batched_problem's shape and parameters, a tiling, q, k and v, and a quarter of the
// cases shifted (draw_shift: softmax does not care; a kernel whose running maximum starts at 0,
// or at a finite sentinel, or that stores q·k in f16 before the scale, does). Then, drawn after
// everything else so that the other cases keep their draws: steep ALiBi slopes (16, 8, 4, ...
// instead of 1/2, 1/4, ...) for half of the ALiBi cases, and 1 case in 8 replaced by one whose keys
// span several tiles (several_tiles_problem). Records the case's regions (batched_regions) under
// the generator name "batched attention case".
template <class T>
BatchedCase<T> batched_case(const BatchedLimits& lim = {}, bool with_tiling = true) {
  BatchedCase<T> c;
  c.p = batched_problem(lim);
  const auto& s = c.p.shape;
  if (with_tiling && *rc::gen::inRange(0, 3)) c.tiling = {size_in(1, 4), size_in(1, 5)};
  c.q = moderate_vector<T>(s.q_size(), lim.sigma_qk);
  c.k = moderate_vector<T>(s.k_size(), lim.sigma_qk);
  c.v = moderate_vector<T>(s.v_size(), lim.sigma_v);
  draw_shift(c, lim);
  const auto steep_alibi = [&c] {
    if (!c.p.alibi_slopes.empty() && *uniform_int(0, 1, 0))
      for (std::size_t h = 0; h < c.p.alibi_slopes.size(); ++h) c.p.alibi_slopes[h] = std::ldexp(1.0, 4 - static_cast<int>(h));
  };
  steep_alibi();
  if (lim.several_tiles && *uniform_int(0, 7, 0) == 7) {
    c = BatchedCase<T>{};
    c.p = several_tiles_problem(lim);
    if (with_tiling && *uniform_int(0, 2, 0)) c.tiling = {*uniform_int<std::size_t>(1, 3, 1), *rc::gen::element(std::size_t{3}, std::size_t{16}, std::size_t{64}, std::size_t{128})};
    c.q = moderate_vector<T>(s.q_size(), lim.sigma_qk);
    c.k = moderate_vector<T>(s.k_size(), lim.sigma_qk);
    c.v = moderate_vector<T>(s.v_size(), lim.sigma_v);
    draw_shift(c, lim);
    steep_alibi();
  }
  draw_value_means(c, lim);
  property::cover("batched attention case", batched_regions(c));
  return c;
}

}  // namespace attncheck::gen
