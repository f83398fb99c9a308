// attncheck audit: batched attention (ABI version 2) at the sizes kernels ship at (AUDIT-ATTB-002).
// Exact evaluation of every output is too slow there (a row costs K·d 200-bit operations), so:
//   - every output is checked structurally: finite where the inputs are; inside the per-column
//     range of its row's visible values within the derived hull allowance (below); a row that sees
//     no key follows the masked-row policy with LSE −inf; the same input twice gives the same bits;
//     and keys a row cannot see, changed to keys that would dominate it, change none of its bits;
//   - accuracy against the exact row (bounds/attention_batched.hpp, any tiling) is checked on
//     sampled rows: k = 64 rows drawn uniformly from the seed — a defect confined to a fraction f
//     of the rows escapes all of them with probability (1 − f)^64, below 1e-9 for f >= 0.28 — plus
//     the rows that are special: the first and last query of the first and last (batch, head),
//     the first row that sees a key, and rows whose visible range starts or ends at a multiple of
//     64 (a tile edge of FlashAttention-style kernels), at most 8 per kind.
//
// Hull allowance. A kernel computes ô_c = fl(Σ_j ê_j v_jc)/fl(Σ_j ê_j) for some positive weights ê_j
// (whatever errors they carry, Σ_j (ê_j/Σ_k ê_k) v_jc lies in [min_j v_jc, max_j v_jc]); the two sums
// err by γ_{K+T+1} and γ_{K+T} relative (T <= K blocks), the division by u, and a math path's
// weights stored in 16 bits by u_S, so ô_c is within max_j|v_jc|(2γ_{2K+1} + 2u + u_S) + 4Kη of that
// range, then rounded to storage (round_out). proofs/attention_kernel.tex, ATTK-BND-001's proof.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "attncheck/audit/attention_shape.hpp"
#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/kernels/kernel_set.hpp"
#include "attncheck/property/gen/values.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::audit {

// The shapes AUDIT-ATTB-002 audits. The default is sized for a CI run (seconds with a compiled
// kernel); `bench/` audits the shape (B = 1, H = 32, H_kv = 8, n = m = 4096, d = 128).
inline std::vector<kernels::AttentionProblem> default_sized_problems() {
  std::vector<kernels::AttentionProblem> v;
  kernels::AttentionProblem a;  // grouped-query prefill, causal bottom-right
  a.shape = {1, 8, 2, 512, 512, 64, 64};
  a.scale = 1 / std::sqrt(64.0);
  a.mask.causal = true;
  a.mask.alignment = kernels::Alignment::bottom_right;
  v.push_back(a);
  kernels::AttentionProblem b;  // grouped-query decode: one query against a long cache, sliding window
  b.shape = {2, 8, 2, 1, 2048, 128, 128};  // k and v 8 MiB each at f64: within the exec protocol's frame
  b.scale = 1 / std::sqrt(128.0);
  b.mask.causal = true;
  b.mask.alignment = kernels::Alignment::bottom_right;
  b.mask.window_left = 1000;
  v.push_back(b);
  kernels::AttentionProblem c;  // n > m, top-left window (rows past key 427 see none), soft-cap, ALiBi, multi-query
  c.shape = {1, 4, 1, 700, 300, 64, 32};
  c.scale = 0.125;
  c.mask.alignment = kernels::Alignment::top_left;
  c.mask.window_left = 128;
  c.mask.window_right = 0;
  c.softcap = 30;
  c.alibi_slopes = {0.5, 0.25, 0.125, 0.0625};
  v.push_back(c);
  return v;
}

struct SizedAuditStats {
  std::size_t outputs = 0, rows = 0, sampled_rows = 0, kernel_calls = 0;
  double worst_sampled = 0, worst_hull = 0;  // largest error / allowance seen
};

namespace detail {

// Per-column range minimum/maximum over key intervals (a sparse table: O(m log m) to build,
// O(1) per query), so the hull check of every row costs O(dv), not O(K dv).
class RangeMinMax {
 public:
  explicit RangeMinMax(std::vector<double> x) : lo_{x}, hi_{std::move(x)} {
    for (std::size_t w = 1; 2 * w <= lo_[0].size(); w *= 2) {
      const auto& pl = lo_.back();
      const auto& ph = hi_.back();
      std::vector<double> l(pl.size() - w), h(ph.size() - w);
      for (std::size_t i = 0; i < l.size(); ++i) l[i] = std::min(pl[i], pl[i + w]), h[i] = std::max(ph[i], ph[i + w]);
      lo_.push_back(std::move(l));
      hi_.push_back(std::move(h));
    }
  }
  std::pair<double, double> range(std::size_t first, std::size_t last) const {  // [first, last), non-empty
    std::size_t k = 0;
    while ((std::size_t{2} << k) <= last - first) ++k;
    const std::size_t w = std::size_t{1} << k;
    return {std::min(lo_[k][first], lo_[k][last - w]), std::max(hi_[k][first], hi_[k][last - w])};
  }

 private:
  std::vector<std::vector<double>> lo_, hi_;
};

template <class T>
std::vector<T> normal_tensor(std::mt19937_64& rng, std::size_t size, double sigma) {
  std::normal_distribution<double> N(0, sigma);
  std::vector<T> x(size);
  for (auto& e : x) e = lit<T>(N(rng));
  return x;
}

// --attention-shape qk=LO:HI: every magnitude uniform in [lo, hi], the sign random; beyond the
// storage format's range, its largest finite value (gen::to).
template <class T>
std::vector<T> magnitude_tensor(std::mt19937_64& rng, std::size_t size, double lo, double hi) {
  std::uniform_real_distribution<double> U(lo, hi);
  std::vector<T> x(size);
  for (auto& e : x) {
    const double m = std::clamp(U(rng), lo, hi);
    e = gen::to<T>(rng() & 1 ? -m : m);
  }
  return x;
}

// --attention-shape shift=S: coordinate 0 of every q and k row set to ±a, a = sqrt(|S|/scale), so
// that every score moves by about S (gen::draw_shift does the same for the gate's cases).
template <class T>
void shift_scores(const kernels::AttentionProblem& p, std::vector<T>& q, std::vector<T>& k, double shift) {
  if (shift == 0) return;
  const double a = std::sqrt(std::abs(shift) / p.scale);
  const T qa = gen::to<T>(a), ka = gen::to<T>(shift > 0 ? a : -a);
  for (std::size_t i = 0; i < q.size(); i += p.shape.d) q[i] = qa;
  for (std::size_t j = 0; j < k.size(); j += p.shape.d) k[j] = ka;
}

// The inputs q, k, v of a sized audit, drawn from rng in this order (a replay depends on it):
// q, k ~ N(0, 1.5²) elementwise, or with mag (--attention-shape qk=, shift=) of the magnitudes
// asked for and every score shifted; v ~ N(0, 4²), and with offset_v (the forward audit) every
// odd value column moved by +kValueColumnMean.
//
// Why the offset: a value channel with a mean, as real models have, is where a 16-bit P·V
// accumulator drifts. On a zero-mean column the partial sums of Σ_j p_j v_jc wander about 0 and
// their roundings stay near the derived allowance; on a column of mean 16 (four σ) they climb to
// ~16 and every addition of p_j v_jc ≈ 16/m loses up to half a bf16 ulp of the partial sum, so
// the error grows with the row length m (at m = 2048 about 40 bf16 ulps of Σ_j p_j|v_jc| for a bf16
// accumulator, against an allowance of a few). PyTorch 1.13's CPU bf16 matmul without oneDNN
// (pytorch/pytorch#83863, #95125) accumulates so; zero-mean values hid it from this audit. The even
// columns keep mean 0: cancellation stays drawn.
inline constexpr double kValueColumnMean = 16;
template <class T>
struct SizedInputs {
  std::vector<T> q, k, v;
};
template <class T>
SizedInputs<T> draw_sized_inputs(const kernels::AttentionProblem& p, std::mt19937_64& rng, const InputMagnitudes& mag,
                                 bool offset_v = false) {
  const auto& sh = p.shape;
  const auto draw_qk = [&](std::size_t size) {
    return mag.qk_hi > 0 ? magnitude_tensor<T>(rng, size, mag.qk_lo, mag.qk_hi) : normal_tensor<T>(rng, size, 1.5);
  };
  SizedInputs<T> in;
  in.q = draw_qk(sh.q_size());
  in.k = draw_qk(sh.k_size());
  in.v = normal_tensor<T>(rng, sh.v_size(), 4);
  if (offset_v)
    for (std::size_t i = 0; i < in.v.size(); ++i)  // dv is the innermost extent
      if ((i % sh.dv) % 2 == 1) in.v[i] = lit<T>(static_cast<double>(in.v[i]) + kValueColumnMean);
  shift_scores(p, in.q, in.k, mag.shift);
  return in;
}

// The query rows (b, h, i) a sized audit compares with the exact row: 64 drawn uniformly from rng
// plus the special ones (the first and last query of the first and last (batch, head), the first
// row that sees a key, rows whose visible range starts or ends at a multiple of 64, at most 8 per
// kind). See the comment at the top of this file for the detection probability.
inline std::set<std::tuple<std::size_t, std::size_t, std::size_t>> sampled_query_rows(const kernels::AttentionProblem& p, std::mt19937_64& rng) {
  const auto& sh = p.shape;
  std::set<std::tuple<std::size_t, std::size_t, std::size_t>> rows;
  std::uniform_int_distribution<std::size_t> B(0, sh.batch - 1), H(0, sh.heads - 1), I(0, sh.n - 1);
  for (int r = 0; r < 64; ++r) rows.insert({B(rng), H(rng), I(rng)});
  const std::size_t lb = sh.batch - 1, lh = sh.heads - 1;
  for (auto [b, h] : {std::pair<std::size_t, std::size_t>{0, 0}, {lb, lh}}) {
    rows.insert({b, h, 0});
    rows.insert({b, h, sh.n - 1});
    std::size_t first_seen = 0, starts = 0, ends = 0;
    for (std::size_t i = 0; i < sh.n; ++i) {
      const auto vis = p.mask.visible(i, sh.n, sh.m);
      if (vis.empty()) continue;
      if (first_seen++ == 0) rows.insert({b, h, i});
      if (vis.first % 64 == 0 && vis.first > 0 && starts < 8) ++starts, rows.insert({b, h, i});
      if (vis.last % 64 == 0 && vis.last < sh.m && ends < 8) ++ends, rows.insert({b, h, i});
    }
  }
  return rows;
}

}  // namespace detail

// Audits one problem at its size. masked_ok(row) judges a row that sees no key against the
// kernel's policy. Fails (property::Report) with the first violation found.
// The inputs: detail::draw_sized_inputs (mag from --attention-shape qk=, shift=; audit/attention_shape.hpp).
template <class T, class MaskedOk>
void audit_attention_at_size(const KernelSet<T>& ks, const kernels::AttentionProblem& p, std::uint64_t seed, MaskedOk masked_ok,
                             SizedAuditStats& st, const InputMagnitudes& mag = {}) {
  using property::Report;
  const auto& sh = p.shape;
  const std::string dt(dtype_name(dtype_of<T>()));
  std::string what = "attention_batched<" + dt + ">, " + p.describe() + ", inputs from seed " + std::to_string(seed);
  if (mag.qk_hi > 0) what += ", |q|, |k| elements in [" + decimal(mag.qk_lo, 6) + ", " + decimal(mag.qk_hi, 6) + "]";
  if (mag.shift != 0) what += ", scores shifted by about " + decimal(mag.shift, 6);
  std::mt19937_64 rng(seed);
  const auto in = detail::draw_sized_inputs<T>(p, rng, mag, /*offset_v=*/true);
  const std::vector<T>&q = in.q, &k = in.k, &v = in.v;
  const auto run = [&](const std::vector<T>& kk, const std::vector<T>& vv) {
    std::pair<std::vector<T>, std::vector<lse_t<T>>> r{std::vector<T>(sh.o_size()), std::vector<lse_t<T>>(ks.attention_batched_lse ? sh.lse_size() : 0)};
    ks.attention_batched(p, {}, q.data(), kk.data(), vv.data(), r.first.data(), r.second.empty() ? nullptr : r.second.data());
    ++st.kernel_calls;
    return r;
  };
  const auto [o, lse] = run(k, v);
  st.outputs += o.size();
  st.rows += sh.rows();

  // Determinism.
  {
    const auto again = run(k, v);
    for (std::size_t e = 0; e < o.size(); ++e)
      if (!identical_bits(o[e], again.first[e]))
        Report<T>("AUDIT-ATTB-002", what + ": output element " + std::to_string(e) + " differs between two calls on the same input")
            .line("first: " + bits_of(o[e]) + ", second: " + bits_of(again.first[e])).raise();
  }

  // Every row: masked-row policy, LSE −inf exactly there and finite elsewhere, the hull.
  const auto md = bounds::model_of<T>();
  const bounds::Model a = md.arithmetic();
  std::vector<detail::RangeMinMax> hull;  // per (b, g, c)
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t g = 0; g < sh.kv_heads; ++g)
      for (std::size_t c = 0; c < sh.dv; ++c) {
        std::vector<double> col(sh.m);
        for (std::size_t j = 0; j < sh.m; ++j) col[j] = to_double(v[sh.v_at(b, j, g) + c]);
        hull.emplace_back(std::move(col));
      }
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t h = 0; h < sh.heads; ++h)
      for (std::size_t i = 0; i < sh.n; ++i) {
        const auto vis = p.mask.visible(i, sh.n, sh.m);
        const T* row = o.data() + sh.o_at(b, i, h);
        const std::string at = what + ", row (b " + std::to_string(b) + ", h " + std::to_string(h) + ", i " + std::to_string(i) + ")";
        if (!lse.empty()) {
          const double l = lse[sh.lse_at(b, h, i)];
          if (vis.empty() ? !(std::isinf(l) && l < 0) : !std::isfinite(l))
            Report<T>("AUDIT-ATTB-002", at + ", LSE").line("LSE = " + decimal(l) + (vis.empty() ? " (the row sees no key: must be −inf)" : " (must be finite)")).raise();
        }
        if (vis.empty()) {
          if (!masked_ok(row, sh.dv))
            Report<T>("AUDIT-ATTB-002", at + ": the row sees no key").line("output: " + row_values(std::vector<T>(row, row + sh.dv)) + " (the masked-row policy)").raise();
          continue;
        }
        const std::size_t K = vis.size();
        const bounds::real rel = 2 * bounds::gamma(2 * K + 1, a.u) + 2 * a.u + (md.mixed() ? md.out_u : 0);
        // The stored weights' subnormal part, K keys in at most K blocks (bounds::stored_weight_abs).
        const bounds::real stored_abs = static_cast<bounds::real>(K) * bounds::stored_weight_abs(md, K, K);
        for (std::size_t c = 0; c < sh.dv; ++c) {
          const auto [lo, hi] = hull[(b * sh.kv_heads + sh.kv_head(h)) * sh.dv + c].range(vis.first, vis.last);
          const bounds::real vmax = std::max(std::abs(lo), std::abs(hi));
          const bounds::real allowed = md.round_out(vmax, vmax * (rel + stored_abs) + 4 * static_cast<bounds::real>(K) * a.eta * vmax + a.eta) * bounds::evaluation_slack;
          const double x = to_double(row[c]);
          const bounds::real out = x < lo ? lo - x : x > hi ? x - hi : 0;
          if (!std::isfinite(x) || !(out <= allowed))
            Report<T>("AUDIT-ATTB-002", at + ", column " + std::to_string(c) + ": outside the range of the visible values [" +
                                            std::to_string(vis.first) + ", " + std::to_string(vis.last) + ")")
                .line("output " + decimal(x) + ", visible values in [" + decimal(lo) + ", " + decimal(hi) + "]")
                .error(out, allowed, "derived: the hull allowance").raise();
          if (allowed > 0) st.worst_hull = std::max(st.worst_hull, static_cast<double>(out / allowed));
        }
      }

  // Hidden keys: for a middle query i*, keys after its last visible key are hidden from every
  // row i <= i*, keys before its first from every row i >= i* (both ends are non-decreasing in i).
  if (p.mask.masks_anything()) {
    const std::size_t istar = sh.n / 2;
    const auto vs = p.mask.visible(istar, sh.n, sh.m);
    for (int side = 0; side < 2; ++side) {
      const std::size_t j0 = side == 0 ? (vs.empty() ? sh.m : vs.last) : 0, j1 = side == 0 ? sh.m : (vs.empty() ? 0 : vs.first);
      if (j0 >= j1) continue;
      auto k2 = k, v2 = v;
      std::normal_distribution<double> N(0, 40);
      for (std::size_t b = 0; b < sh.batch; ++b)
        for (std::size_t j = j0; j < j1; ++j)
          for (std::size_t g = 0; g < sh.kv_heads; ++g) {
            for (std::size_t t = 0; t < sh.d; ++t) k2[sh.k_at(b, j, g) + t] = lit<T>(N(rng));
            for (std::size_t c = 0; c < sh.dv; ++c) v2[sh.v_at(b, j, g) + c] = lit<T>(c % 2 ? -512.0 : 512.0);
          }
      const auto changed = run(k2, v2);
      for (std::size_t b = 0; b < sh.batch; ++b)
        for (std::size_t h = 0; h < sh.heads; ++h)
          for (std::size_t i = side == 0 ? 0 : istar; i < (side == 0 ? istar + 1 : sh.n); ++i) {
            if (p.mask.visible(i, sh.n, sh.m).empty()) continue;  // judged by the masked-row policy
            for (std::size_t c = 0; c < sh.dv; ++c) {
              const std::size_t e = sh.o_at(b, i, h) + c;
              if (!identical_bits(o[e], changed.first[e]))
                Report<T>("AUDIT-ATTB-002", what + ", row (b " + std::to_string(b) + ", h " + std::to_string(h) + ", i " + std::to_string(i) +
                                                "), column " + std::to_string(c) + ": keys [" + std::to_string(j0) + ", " + std::to_string(j1) +
                                                ") are hidden from this row by the mask, and changing them changed its output")
                    .line("before: " + bits_of(o[e]) + " " + decimal(to_double(o[e])) + ", after: " + bits_of(changed.first[e]) + " " +
                          decimal(to_double(changed.first[e])))
                    .raise();
            }
          }
    }
  }

  // Sampled rows against the exact row.
  for (const auto& [b, h, i] : detail::sampled_query_rows(p, rng)) {
    const auto ex = bounds::attention_row_allowance(p, q, k, v, b, h, i, bounds::KeyBlocks::any(), md);
    if (ex.keys.empty()) continue;
    ++st.sampled_rows;
    const std::string at = what + ", sampled row (b " + std::to_string(b) + ", h " + std::to_string(h) + ", i " + std::to_string(i) + ")";
    for (std::size_t c = 0; c < sh.dv; ++c) {
      const T got = o[sh.o_at(b, i, h) + c];
      const long double err = property::format_error(got, ex.o[c]);
      st.worst_sampled = std::max(st.worst_sampled, property::ratio(err, ex.o_allowance[c]));
      if (!(err <= ex.o_allowance[c])) {
        Report<T> r("AUDIT-ATTB-002", at + ", column " + std::to_string(c));
        r.kernel(got).exact(ex.o[c]).error(err, ex.o_allowance[c]);
        if (md.mixed() && !md.scores_stored &&
            err <= bounds::attention_row_allowance(p, q, k, v, b, h, i, bounds::KeyBlocks::any(), md.unfused()).o_allowance[c])
          r.line(bounds::unfused_note(format_of<T>.name));
        r.raise();
      }
    }
    if (!lse.empty()) {
      const double got = lse[sh.lse_at(b, h, i)];
      const long double err = std::isfinite(got) ? std::abs(static_cast<long double>(got) - ex.lse) : std::numeric_limits<long double>::infinity();
      st.worst_sampled = std::max(st.worst_sampled, property::ratio(err, ex.lse_allowance));
      if (!(err <= ex.lse_allowance))
        Report<T>("AUDIT-ATTB-002", at + ", LSE").line("Kernel LSE:  " + decimal(got)).exact(ex.lse).error(err, ex.lse_allowance).raise();
    }
  }
}

}  // namespace attncheck::audit
