// attncheck: drawing batched attention problems (kernels/attention_problem.hpp) for the gate and
// the audit: shapes with grouped heads, n != m (where the two causal alignments differ), windows,
// soft-caps, ALiBi slopes, a tiling for the reference, and now and then scores shifted far from 0
// (where a running maximum started at 0 instead of −inf underflows or overflows every exp).
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/kernels/kernel_set.hpp"
#include "attncheck/kernels/attention_problem.hpp"
#include "attncheck/property/gen/attention.hpp"

namespace attncheck::gen {

struct BatchedLimits {
  std::size_t max_batch = 2, max_heads = 4;
  std::size_t max_n = 9, max_m = 12;  // small, so that a failure shrinks to a readable case
  std::size_t max_d = 12, max_dv = 5;
  double sigma_qk = 2, sigma_v = 8;
  bool masks = true;    // false: no mask, window, soft-cap or ALiBi (every row sees every key)
  bool shifts = true;   // a quarter of the cases with scores shifted far from 0
};

template <class T>
struct BatchedCase {
  kernels::AttentionProblem p;
  kernels::Tiling tiling;  // the reference's tiling (0: plain); a third party's kernel ignores it
  std::vector<T> q, k, v;
  double shift = 0;        // the score offset the case was drawn with (0: none)

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
    if (tiling.bc) r += ", tiles " + std::to_string(tiling.br) + " x " + std::to_string(tiling.bc);
    if (shift != 0) r += ", scores shifted by about " + std::to_string(static_cast<long long>(shift));
    return r;
  }
};

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

// A whole case. A quarter of the cases shift every score by about ±shift (q and k get one
// coordinate set to ±√(shift/scale)), so that all the scores of a row are far below 0 or above it
// (softmax does not care; a kernel whose running maximum starts at 0 does).
template <class T>
BatchedCase<T> batched_case(const BatchedLimits& lim = {}, bool with_tiling = true) {
  BatchedCase<T> c;
  c.p = batched_problem(lim);
  const auto& s = c.p.shape;
  if (with_tiling && *rc::gen::inRange(0, 3)) c.tiling = {size_in(1, 4), size_in(1, 5)};
  c.q = moderate_vector<T>(s.q_size(), lim.sigma_qk);
  c.k = moderate_vector<T>(s.k_size(), lim.sigma_qk);
  c.v = moderate_vector<T>(s.v_size(), lim.sigma_v);
  if (lim.shifts && *rc::gen::inRange(0, 4) == 0 && c.p.softcap == 0) {
    // Far enough for every format's exp to underflow from a maximum of 0 (f64: below −745;
    // f16: below −17), and for its exp to overflow with positive shifts (f32: above 88.7).
    const double mag = *rc::gen::element(30.0, 200.0, 1000.0);
    c.shift = *rc::gen::element(-mag, mag);
    const double a = std::sqrt(mag / c.p.scale);
    const T qa = lit<T>(a), ka = lit<T>(c.shift > 0 ? a : -a);
    for (std::size_t i = 0; i < s.q_size(); i += s.d) c.q[i] = qa;
    for (std::size_t j = 0; j < s.k_size(); j += s.d) c.k[j] = ka;
  }
  return c;
}

}  // namespace attncheck::gen
