// attncheck audit: the backward pass of batched attention (ABI version 2, attention_backward) at
// the sizes kernels ship at (AUDIT-ATTBWD-001): the backward analogue of AUDIT-ATTB-002
// (attention_at_size.hpp), with the same shapes (--attention-shape, or its three defaults) and
// the same inputs q, k, v, plus a cotangent dO ~ N(0, 1).
//
// What the kernel is given. The forward's o and LSE of every row, computed by the reference
// forward (kernels/attention_batched.hpp) in double on one (batch, head) slice per thread, then
// rounded to the kernel's formats. Not the correctly rounded values of the small cases: those
// cost K·d 200-bit operations a row. It does not matter to the verdicts: the allowances take
// λ_i = max(|LSE given − LSE|, the forward's allowance) and the same for o
// (bounds/attention_backward.hpp), and both are measured on every row that is judged.
//
// Exact evaluation of every gradient is out of reach at size (dK_j needs the exact LSE of every
// row that sees key j), so:
//   - every element is checked structurally: dQ of a row that sees no key and dK, dV of a key no
//     query sees are exactly 0; every other element is finite;
//   - the same input twice gives the same bits (not for a kernel declared nondeterministic);
//   - dO of the rows i <= n/2 redrawn (the forward is unchanged: dO is not one of its inputs)
//     leaves dQ of every row i > n/2, and dK and dV of every key that no row i <= n/2 sees, bit
//     for bit unchanged (a kernel that lets a masked weight through, or mixes rows, changes them;
//     not demanded of a kernel declared nondeterministic);
//   - dQ is compared with the exact gradient on the sampled query rows of the forward's sized audit
//     (64 drawn uniformly, plus the special rows: detail::sampled_query_rows); a defect confined
//     to a fraction f of the rows escapes with probability (1 − f)^64, below 1e-9 for f >= 0.28;
//   - dK and dV are compared with the exact gradient on sampled keys. The exact gradient of key j
//     costs Σ over the rows i that see it of K_i·d multiply-adds in 200 bits, so keys are drawn
//     uniformly among those of cost at most kKeyCost (at least the cheapest key: under a causal
//     mask, the last keys, which the fewest rows see), up to kKeys keys and kKeysCost in all.
//     Keys that many rows see are judged by the structural checks above and by the small cases
//     of FALSIFY-ATTBWD-001…004, not here.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "attncheck/audit/attention_at_size.hpp"
#include "attncheck/bounds/attention_backward.hpp"

namespace attncheck::audit {

struct SizedBackwardStats {
  std::size_t elements = 0, sampled_rows = 0, sampled_keys = 0, kernel_calls = 0;
  double worst_sampled = 0;  // largest error / allowance seen on the sampled rows and keys
};

namespace detail {

// The reference forward's steps with one replaced: the dot product q·k in four interleaved
// partial sums, not one chain. In double the chain's latency bounds the forward handed to the
// kernel (n·m·H·d dependent additions: about a minute at the target shape of
// bench/audit_attention_backward.cpp); four chains run in parallel. The error bound of the
// result is the same γ_d·Σ|q_t k_t| (any order), and its deviation is measured anyway.
struct ForwardGivenSteps : kernels::AttentionSteps {
  static double dot4(const double* a, const double* b, std::size_t d) {
    double s[4] = {0, 0, 0, 0};
    std::size_t t = 0;
    for (; t + 4 <= d; t += 4)
      for (std::size_t l = 0; l < 4; ++l) s[l] += a[t + l] * b[t + l];
    for (; t < d; ++t) s[0] += a[t] * b[t];
    return (s[0] + s[1]) + (s[2] + s[3]);
  }
  static double score(const kernels::AttentionProblem& p, const kernels::ScoreParams<double>& sp, const double* q, const double* k, std::size_t h,
                      std::size_t i, std::size_t j) {
    return kernels::score_parts_of_dot(p, sp, dot4(q, k, p.shape.d), h, p.mask.diagonal(i, p.shape.n, p.shape.m), j).s;
  }
};

// The forward's o (in T) and LSE (in lse_t<T>) of every row: the reference forward in double on
// one (batch, query head) slice at a time, on every core. The slice is the problem with one head,
// its ALiBi slope, and the rows of q, k, v, o of that head.
template <class T>
void forward_in_double(const kernels::AttentionProblem& p, const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v,
                       std::vector<T>& o, std::vector<lse_t<T>>& lse) {
  const auto& sh = p.shape;
  o.assign(sh.o_size(), lit<T>(0));
  lse.assign(sh.lse_size(), 0);
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    kernels::AttentionProblem s = p;
    s.shape.batch = s.shape.heads = s.shape.kv_heads = 1;
    std::vector<double> qs(sh.n * sh.d), ks(sh.m * sh.d), vs(sh.m * sh.dv), os(sh.n * sh.dv), ls(sh.n);
    for (std::size_t task; (task = next++) < sh.batch * sh.heads;) {
      const std::size_t b = task / sh.heads, h = task % sh.heads, g = sh.kv_head(h);
      if (!p.alibi_slopes.empty()) s.alibi_slopes = {p.alibi_slopes[h]};
      for (std::size_t i = 0; i < sh.n; ++i)
        for (std::size_t t = 0; t < sh.d; ++t) qs[i * sh.d + t] = to_double(q[sh.q_at(b, i, h) + t]);
      for (std::size_t j = 0; j < sh.m; ++j) {
        for (std::size_t t = 0; t < sh.d; ++t) ks[j * sh.d + t] = to_double(k[sh.k_at(b, j, g) + t]);
        for (std::size_t c = 0; c < sh.dv; ++c) vs[j * sh.dv + c] = to_double(v[sh.v_at(b, j, g) + c]);
      }
      kernels::attention_batched<double, ForwardGivenSteps>(s, qs.data(), ks.data(), vs.data(), os.data(), ls.data());
      for (std::size_t i = 0; i < sh.n; ++i) {
        for (std::size_t c = 0; c < sh.dv; ++c) o[sh.o_at(b, i, h) + c] = scalar_traits<T>::from_double(os[i * sh.dv + c]);
        lse[sh.lse_at(b, h, i)] = static_cast<lse_t<T>>(ls[i]);
      }
    }
  };
  const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), static_cast<unsigned>(sh.batch * sh.heads)));
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work);
  work();
  for (auto& t : pool) t.join();
}

// The query rows that see key j: an interval [first, last) of i, since both ends of a row's
// visible range are non-decreasing in i (kernels/attention_problem.hpp).
struct Viewers {
  std::size_t first = 0, last = 0;
  std::size_t size() const { return last - first; }
};
inline std::vector<Viewers> viewers_of_keys(const kernels::AttentionProblem& p) {
  const auto& sh = p.shape;
  std::vector<Viewers> r(sh.m);
  std::vector<bool> started(sh.m, false);
  for (std::size_t i = 0; i < sh.n; ++i) {
    const auto vis = p.mask.visible(i, sh.n, sh.m);
    for (std::size_t j = vis.first; j < vis.last; ++j) {
      if (!started[j]) started[j] = true, r[j].first = i;
      r[j].last = i + 1;
    }
  }
  return r;
}

}  // namespace detail

// The caps on the exact dK, dV work of one shape (multiply-adds in 200 bits, see the top).
inline constexpr std::size_t kKeys = 8, kKeyCost = std::size_t{1} << 19, kKeysCost = std::size_t{1} << 21;

// Audits the backward pass on one problem at its size. Fails (property::Report) with the first
// violation found.
template <class T>
void audit_attention_backward_at_size(const KernelSet<T>& ks, const kernels::AttentionProblem& p, std::uint64_t seed, bool deterministic,
                                      SizedBackwardStats& st, const InputMagnitudes& mag = {}) {
  using property::Report;
  const auto& sh = p.shape;
  const char* id = "AUDIT-ATTBWD-001";
  std::string what = "attention_backward<" + std::string(dtype_name(dtype_of<T>())) + ">, " + p.describe() + ", inputs from seed " + std::to_string(seed);
  if (mag.qk_hi > 0) what += ", |q|, |k| elements in [" + decimal(mag.qk_lo, 6) + ", " + decimal(mag.qk_hi, 6) + "]";
  if (mag.shift != 0) what += ", scores shifted by about " + decimal(mag.shift, 6);
  std::mt19937_64 rng(seed);
  const auto in = detail::draw_sized_inputs<T>(p, rng, mag);
  const std::vector<T>&q = in.q, &k = in.k, &v = in.v;
  std::vector<T> dout = detail::normal_tensor<T>(rng, sh.o_size(), 1);
  std::vector<T> o;
  std::vector<lse_t<T>> lse;
  detail::forward_in_double(p, q, k, v, o, lse);

  struct Grads {
    std::vector<T> dq, dk, dv;
  };
  const auto run = [&](const std::vector<T>& g) {
    Grads r{std::vector<T>(sh.q_size()), std::vector<T>(sh.k_size()), std::vector<T>(sh.v_size())};
    ks.attention_backward(p, {}, q.data(), k.data(), v.data(), o.data(), g.data(), lse.data(), r.dq.data(), r.dk.data(), r.dv.data());
    ++st.kernel_calls;
    return r;
  };
  const Grads gr = run(dout);
  st.elements += sh.q_size() + sh.k_size() + sh.v_size();
  // "dQ[b, i, h, t]" and the like, for element e of a tensor of rows of `width`, heads per row.
  const auto name = [](const char* t, std::size_t e, std::size_t heads, std::size_t width, std::size_t rows) {
    const std::size_t c = e % width, hh = e / width % heads, r = e / width / heads % rows, b = e / width / heads / rows;
    return std::string(t) + "[" + std::to_string(b) + ", " + std::to_string(r) + ", " + std::to_string(hh) + ", " + std::to_string(c) + "]";
  };
  struct Tensor {
    const char* name;
    const std::vector<T>* got;
    std::size_t heads, width, rows;
  };
  const auto tensors = [&](const Grads& g) {
    return std::vector<Tensor>{{"dQ", &g.dq, sh.heads, sh.d, sh.n}, {"dK", &g.dk, sh.kv_heads, sh.d, sh.m}, {"dV", &g.dv, sh.kv_heads, sh.dv, sh.m}};
  };

  // Determinism.
  if (deterministic) {
    const Grads again = run(dout);
    const auto t1 = tensors(gr), t2 = tensors(again);
    for (std::size_t t = 0; t < 3; ++t)
      for (std::size_t e = 0; e < t1[t].got->size(); ++e)
        if (!identical_bits((*t1[t].got)[e], (*t2[t].got)[e]))
          Report<T>(id, what + ": " + name(t1[t].name, e, t1[t].heads, t1[t].width, t1[t].rows) + " differs between two calls on the same input")
              .line("first: " + bits_of((*t1[t].got)[e]) + ", second: " + bits_of((*t2[t].got)[e]) +
                    " (a kernel that adds atomically is declared with --nondeterministic)")
              .raise();
  }

  // Every element: exactly 0 where no term reaches it; elsewhere never NaN, and finite where no
  // gradient of these inputs can leave the format's range. With G = 2·max_i‖dO_i‖₁·max|v| (|dP_ij|
  // and |D_i| are at most half of it, and P sums to 1 over j), every partial sum of dQ is at most
  // scale·max|k|·G, of dK at most scale·max|q|·G·R and of dV at most max|dO|·R, R the most query
  // rows (all heads of a group) that see one key; the soft-cap's factor is at most 1. Where twice
  // that bound is past the largest finite value (extreme --attention-shape qk= or shift=, or dK
  // at f16 on long rows), an infinity may be the correctly rounded gradient, and is not judged here.
  const auto viewers = detail::viewers_of_keys(p);
  const auto max_abs = [](const std::vector<T>& x) {
    double r = 0;
    for (const T& e : x) r = std::max(r, std::abs(to_double(e)));
    return r;
  };
  double dout_l1 = 0;
  for (std::size_t row = 0; row < sh.o_size() / sh.dv; ++row) {
    double l1 = 0;
    for (std::size_t c = 0; c < sh.dv; ++c) l1 += std::abs(to_double(dout[row * sh.dv + c]));
    dout_l1 = std::max(dout_l1, l1);
  }
  std::size_t most_viewers = 0;
  for (const auto& w : viewers) most_viewers = std::max(most_viewers, w.size());
  const double G = 2 * dout_l1 * max_abs(v), R = static_cast<double>(most_viewers * (sh.heads / sh.kv_heads));
  const double bound[3] = {p.scale * max_abs(k) * G, p.scale * max_abs(q) * G * R, max_abs(dout) * R};
  const auto all = tensors(gr);
  for (std::size_t ti = 0; ti < 3; ++ti) {
    const Tensor& t = all[ti];
    const bool finite = 2 * bound[ti] <= format_of<T>.max_finite;
    for (std::size_t e = 0; e < t.got->size(); ++e) {
      const std::size_t r = e / t.width / t.heads % t.rows;
      const bool none = t.name[1] == 'Q' ? p.mask.visible(r, sh.n, sh.m).empty() : viewers[r].size() == 0;
      const double x = to_double((*t.got)[e]);
      if (none ? x != 0.0 : std::isnan(x) || (finite && !std::isfinite(x)))
        Report<T>(id, what + ": " + name(t.name, e, t.heads, t.width, t.rows))
            .kernel((*t.got)[e])
            .line(none ? (t.name[1] == 'Q' ? "this query sees no key: its dQ row must be exactly 0" : "no query sees this key: its gradient must be exactly 0")
                       : "finite inputs: the gradient is a finite real number, within the format's range (every partial sum of " +
                             std::string(t.name) + " is at most " + decimal(bound[ti], 3) + " here)")
            .raise();
    }
  }

  // dO of the rows i <= n/2 redrawn: what does not depend on it keeps its bits.
  if (deterministic && sh.n >= 2) {
    const std::size_t istar = sh.n / 2;
    std::vector<T> d2 = dout;
    std::normal_distribution<double> N(0, 1);
    for (std::size_t b = 0; b < sh.batch; ++b)
      for (std::size_t i = 0; i <= istar; ++i)
        for (std::size_t h = 0; h < sh.heads; ++h)
          for (std::size_t c = 0; c < sh.dv; ++c) d2[sh.o_at(b, i, h) + c] = lit<T>(N(rng));
    const Grads changed = run(d2);
    const auto t1 = tensors(gr), t2 = tensors(changed);
    for (std::size_t t = 0; t < 3; ++t)
      for (std::size_t e = 0; e < t1[t].got->size(); ++e) {
        const std::size_t r = e / t1[t].width / t1[t].heads % t1[t].rows;
        const bool independent = t == 0 ? r > istar : viewers[r].first > istar || viewers[r].size() == 0;
        if (independent && !identical_bits((*t1[t].got)[e], (*t2[t].got)[e]))
          Report<T>(id, what + ": " + name(t1[t].name, e, t1[t].heads, t1[t].width, t1[t].rows) + " changed when dO of the rows i <= " +
                            std::to_string(istar) + " was redrawn")
              .line(t == 0 ? "dQ of a row depends on that row's dO only"
                           : "no row i <= " + std::to_string(istar) + " sees this key (the mask): their dO cannot reach its gradient")
              .line("before: " + bits_of((*t1[t].got)[e]) + " " + decimal(to_double((*t1[t].got)[e])) + ", after: " + bits_of((*t2[t].got)[e]) + " " +
                    decimal(to_double((*t2[t].got)[e])))
              .raise();
      }
  }

  // Sampled rows and keys against the exact gradient.
  const auto rows = detail::sampled_query_rows(p, rng);
  std::vector<std::size_t> row_cost(sh.n + 1, 0);  // prefix sums of K_i·d
  for (std::size_t i = 0; i < sh.n; ++i) row_cost[i + 1] = row_cost[i] + p.mask.visible(i, sh.n, sh.m).size() * sh.d;
  const std::size_t group = sh.heads / sh.kv_heads;
  const auto key_cost = [&](std::size_t j) { return group * (row_cost[viewers[j].last] - row_cost[viewers[j].first]); };
  std::vector<std::size_t> seen_keys;
  std::size_t cheapest = sh.m;
  for (std::size_t j = 0; j < sh.m; ++j)
    if (viewers[j].size() > 0) {
      seen_keys.push_back(j);
      if (cheapest == sh.m || key_cost(j) < key_cost(cheapest)) cheapest = j;
    }
  std::set<std::tuple<std::size_t, std::size_t, std::size_t>> keys;  // (b, g, j)
  if (cheapest < sh.m) {
    std::size_t spent = key_cost(cheapest);
    keys.insert({0, 0, cheapest});
    std::vector<std::size_t> affordable;
    for (std::size_t j : seen_keys)
      if (key_cost(j) <= std::max(kKeyCost, key_cost(cheapest))) affordable.push_back(j);
    std::uniform_int_distribution<std::size_t> B(0, sh.batch - 1), G(0, sh.kv_heads - 1), J(0, affordable.size() - 1);
    for (std::size_t tries = 0; tries < 4 * kKeys && keys.size() < kKeys; ++tries) {
      const std::size_t b = B(rng), g = G(rng), j = affordable[J(rng)];
      if (spent + key_cost(j) > kKeysCost) continue;
      if (keys.insert({b, g, j}).second) spent += key_cost(j);
    }
  }
  const auto included = [&](std::size_t b, std::size_t h, std::size_t i) {
    if (rows.count({b, h, i})) return true;
    for (const auto& [kb, kg, j] : keys)
      if (kb == b && kg == sh.kv_head(h) && i >= viewers[j].first && i < viewers[j].last) return true;
    return false;
  };
  const auto ex = bounds::attention_backward_exact(p, q, k, v, dout, o, lse, bounds::model_of<T>(), included);
  const auto judge = [&](const Tensor& t, std::size_t e, const std::vector<bounds::real>& exact, const std::vector<bounds::real>& allowed,
                         const std::string& sample) {
    const T got = (*t.got)[e];
    const long double err = property::format_error(got, exact[e]);
    st.worst_sampled = std::max(st.worst_sampled, property::ratio(err, allowed[e]));
    if (!(err <= allowed[e])) {
      Report<T> r(id, what + ", " + sample + ": " + name(t.name, e, t.heads, t.width, t.rows));
      r.kernel(got).exact(exact[e]).error(err, allowed[e]);
      const int which = t.name[1] == 'Q' ? 0 : t.name[1] == 'K' ? 1 : 2;  // the fused model's failure the unfused one admits
      if (bounds::unfused_admits(p, q, k, v, dout, o, lse, bounds::model_of<T>(), which, e, err, included))
        r.line(bounds::unfused_backward_note(format_of<T>.name));
      r.raise();
    }
  };
  const auto t = tensors(gr);
  for (const auto& [b, h, i] : rows) {
    if (p.mask.visible(i, sh.n, sh.m).empty()) continue;  // exactly 0, checked above
    ++st.sampled_rows;
    for (std::size_t c = 0; c < sh.d; ++c) judge(t[0], sh.q_at(b, i, h) + c, ex.dq, ex.dq_allowance, "sampled query row");
  }
  for (const auto& [b, g, j] : keys) {
    ++st.sampled_keys;
    for (std::size_t c = 0; c < sh.d; ++c) judge(t[1], sh.k_at(b, j, g) + c, ex.dk, ex.dk_allowance, "sampled key");
    for (std::size_t c = 0; c < sh.dv; ++c) judge(t[2], sh.v_at(b, j, g) + c, ex.dv, ex.dv_allowance, "sampled key");
  }
}

}  // namespace attncheck::audit
