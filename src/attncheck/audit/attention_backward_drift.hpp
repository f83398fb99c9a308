// attncheck audit: AUDIT-ATTBWD-002, accumulator drift in the backward pass of attention (ABI
// version 2, attention_backward), judged where the storage format is narrower than the arithmetic
// (f16@f32, bf16@f32). A kernel that keeps dQ in the storage format across key blocks, or dK or
// dV across query blocks (atomic adds of 16-bit partials), rounds every partial sum to 16 bits:
// B blocks add B − 1 roundings of partial sums, each up to u_S times the partial (u_S the storage
// format's unit roundoff). The small cases of FALSIFY-ATTBWD-001 have at most 12 keys (one block
// of a 64-key kernel: nothing drifts), and at size the values have mean zero, so the drift hides
// under the derived allowance, which scales with the sum of the terms' magnitudes.
//
// Inputs (detail::draw_drift_inputs) whose sums have terms of one sign, so that the sum is as
// large as the sum of its terms' magnitudes. Half the head dimension (t < d/2) carries the
// scores: q_it = |N(0, 1)|, k_jt = N(0, 1/16), so P is near uniform (no weight underflows). Each
// key row gets a_j = ±U(1, 1.5) (random sign), v_jc = a_j·w_c, k_jt = c_t·a_j for t >= d/2 and
// q_it = 0 there, dO >= 0 (|N(0, 1)|), w_c, c_t ~ U(0.5, 1.5). Then dP_ij − D_i =
// (dO_i·w)(a_j − ā_i) with ā_i = Σ_j P_ij a_j: every term of dQ_it (t >= d/2) is positive, every
// term of dK_jt (t < d/2) has the sign of a_j when ā_i stays between the keys' a (always with two
// keys), and every term of dV is >= 0.
//
// Even so the derived allowance cannot see an f16 drift: it bounds the f32 accumulation of K terms
// by γ_K u_f32 (K·2^-24 relative, 2 u_S of f16 at K = 2^14), a worst case that grows with K as
// fast as the drift's. This check is statistical, as AUDIT-BIAS-001 is (rounding_bias.hpp): it
// compares a kernel with itself, on sums over many blocks and over one block.
//
// First, batch entry 0 of each problem's first call: every element against the exact gradient and
// its derived allowance (detail::judge_entry0), which catches a kernel that drifts within a block
// (rounded after every row: FlashAttention-2's grouped recipe with a 16-bit per-head dK).
//
// Statistic. Two directions, each with N = 320 independent batch entries of two problems
// (d = 8, dv = 4, scale 1/4, not causal, one head; dQ: one query row against m = 16384 keys, 256
// blocks of 64, and against 64 keys; dK and dV: n = 16384 query rows, 256 blocks of 64, and 64
// rows, against two keys). For element e, with ŷ the kernel's result and y the exact gradient (the
// reference backward, kernels/attention_backward.hpp, in double on the forward in double: relative
// error below 2^-38 at these sizes, 2^-27 of u_S),
//     Q_e = min(|ŷ − y| / (u_S |y|), 2) / 2   ∈ [0, 1]  (a NaN or infinite ŷ counts as 1);
// per entry and tensor (dQ_it, t >= d/2; dK_jt, t < d/2; dV_jc) X_b = the mean of Q_e, and
// D_b = X_b(many blocks) − X_b(one block) ∈ [−1, 1]. Each entry's inputs are drawn
// independently from the check's seed (printed; the replay line re-draws them) and the kernel is a
// fixed function of an entry, so the D_b are i.i.d.
//
// Test. Null hypothesis, an assumption about the kernel and not a theorem: E[D_b] <= 0, i.e. on
// these sums a correct kernel's error, in units of its result's rounding, does not grow with the
// number of blocks. For a kernel that accumulates in f32 (FlashAttention-2) its error is the
// final rounding to storage plus the roundings of P and dS to storage, which average out over more
// terms, plus f32 errors 2^-13 (f16) or 2^-16 (bf16) of u_S each; the measured means are in
// bench/RESULTS.md. The threshold is the empirical Bernstein bound (Maurer & Pontil 2009, Theorem 4;
// range R = 2, sample variance V; rounding_bias.hpp's bernstein_threshold, two-sided, so
// conservative here) at δ = 1e-9/3 per tensor, plus 2^-20 for the reference's error:
//     FAIL when mean D > sqrt(2 V ln(4/δ)/N) + 7 R ln(4/δ) / (3 (N − 1)) + 2^-20,
// about 0.34 + the variance term at N = 320: per check (three tensors, union bound) the
// false-alarm probability is at most 1e-9. A drift of B blocks adds about sqrt(B/18)·u_S|y| of
// error (B − 1 roundings of partial sums growing to |y|), 3.8 u_S|y| at B = 256: mean D of
// 0.5–0.8 for the 16-bit accumulators measured (bench/RESULTS.md).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "attncheck/audit/attention_backward_at_size.hpp"
#include "attncheck/audit/rounding_bias.hpp"
#include "attncheck/bounds/attention_backward.hpp"
#include "attncheck/kernels/attention_backward.hpp"

namespace attncheck::audit {

inline constexpr std::size_t kDriftEntries = 320;   // N, per direction
inline constexpr std::size_t kDriftPerCall = 8;     // batch entries per kernel call: short calls, far inside the per-call timeout
inline constexpr double kDriftDelta = 1e-9 / 3;      // per test: three per check (dQ, dK, dV)
inline constexpr std::size_t kDriftBlocks = 256, kDriftBlock = 64, kDriftD = 8, kDriftDv = 4;

// One direction: the problem of one batch entry over many blocks and over one block, and which
// gradients it judges (dQ, or dK and dV).
struct DriftDirection {
  const char* name;
  kernels::AttentionProblem many, one;
  bool dq;
  std::vector<const char*> tests;  // the tensors judged, one test each
};
inline std::vector<DriftDirection> drift_directions() {
  kernels::AttentionProblem p;
  p.scale = 0.25;  // a power of 2: scaling adds no rounding of its own
  const std::size_t D = kDriftD, Dv = kDriftDv, K = kDriftBlocks * kDriftBlock;
  DriftDirection q{"dQ across key blocks", p, p, true, {"dQ across key blocks"}};
  DriftDirection k{"dK and dV across query blocks", p, p, false, {"dK across query blocks", "dV across query blocks"}};
  q.many.shape = {1, 1, 1, 1, K, D, Dv}, q.one.shape = {1, 1, 1, 1, kDriftBlock, D, Dv};
  k.many.shape = {1, 1, 1, K, 2, D, Dv}, k.one.shape = {1, 1, 1, kDriftBlock, 2, D, Dv};
  return {q, k};
}

namespace detail {

template <class T>
struct DriftInputs {
  std::vector<T> q, k, v, dout;
};

// Inputs whose gradient sums have terms of one sign (see the top).
template <class T>
DriftInputs<T> draw_drift_inputs(const kernels::AttentionProblem& p, std::mt19937_64& rng) {
  const auto& sh = p.shape;
  const std::size_t half = sh.d / 2;
  std::normal_distribution<double> N(0, 1);
  std::uniform_real_distribution<double> U(0.5, 1.5), A(1, 1.5);
  std::vector<double> c(sh.d - half), w(sh.dv);
  for (auto& x : c) x = U(rng);
  for (auto& x : w) x = U(rng);
  DriftInputs<T> in{std::vector<T>(sh.q_size()), std::vector<T>(sh.k_size()), std::vector<T>(sh.v_size()), std::vector<T>(sh.o_size())};
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t j = 0; j < sh.m; ++j)
      for (std::size_t g = 0; g < sh.kv_heads; ++g) {
        const double a = (rng() & 1 ? -1 : 1) * A(rng);
        for (std::size_t t = 0; t < sh.d; ++t) in.k[sh.k_at(b, j, g) + t] = lit<T>(t < half ? N(rng) / 4 : c[t - half] * a);
        for (std::size_t cc = 0; cc < sh.dv; ++cc) in.v[sh.v_at(b, j, g) + cc] = lit<T>(w[cc] * a);
      }
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t i = 0; i < sh.n; ++i)
      for (std::size_t h = 0; h < sh.heads; ++h) {
        for (std::size_t t = 0; t < sh.d; ++t) in.q[sh.q_at(b, i, h) + t] = lit<T>(t < half ? std::abs(N(rng)) : 0.0);
        for (std::size_t cc = 0; cc < sh.dv; ++cc) in.dout[sh.o_at(b, i, h) + cc] = lit<T>(std::abs(N(rng)));
      }
  return in;
}

template <class T>
std::vector<double> to_doubles(const std::vector<T>& x) {
  std::vector<double> r(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) r[i] = to_double(x[i]);
  return r;
}

// Batch entry 0 of a call, every element against the exact gradient and its derived allowance
// (bounds/attention_backward.hpp, MPFR): no statistics, no false alarm on a kernel the proof
// covers. A kernel whose accumulator drifts within one block (rounded after every row or key)
// errs past it by far; the growth test cannot see it, since its one-block error is large too.
template <class T>
void judge_entry0(const kernels::AttentionProblem& p, const DriftInputs<T>& in, const std::vector<T>& o, const std::vector<lse_t<T>>& lse,
                  const std::vector<T>& dq, const std::vector<T>& dk, const std::vector<T>& dv, const std::string& origin) {
  const auto& sh = p.shape;
  const auto ex = bounds::attention_backward_exact(p, in.q, in.k, in.v, in.dout, o, lse, bounds::model_of<T>(),
                                                   [](std::size_t b, std::size_t, std::size_t) { return b == 0; });
  const auto judge = [&](const char* name, const std::vector<T>& got, const std::vector<bounds::real>& exact,
                         const std::vector<bounds::real>& allowed, std::size_t rows, std::size_t width) {
    for (std::size_t e = 0; e < rows * width; ++e) {  // batch entry 0, one head: the first rows·width elements
      const long double err = property::format_error(got[e], exact[e]);
      if (!(err <= allowed[e]))
        property::Report<T>("AUDIT-ATTBWD-002", origin + ", batch entry 0: " + name + "[0, " + std::to_string(e / width) + ", 0, " +
                                                    std::to_string(e % width) + "] against its derived allowance")
            .kernel(got[e])
            .exact(exact[e])
            .error(err, allowed[e])
            .line("Every term of this sum has one sign: an error past the allowance here is an accumulator kept in the storage format "
                  "(rounded after every block, row or key).")
            .raise();
    }
  };
  judge("dQ", dq, ex.dq, ex.dq_allowance, sh.n, sh.d);
  judge("dK", dk, ex.dk, ex.dk_allowance, sh.m, sh.d);
  judge("dV", dv, ex.dv, ex.dv_allowance, sh.m, sh.dv);
}

// X_b of `entries` batch entries of problem `one_entry` (batch 1), drawn from rng: per entry, one
// value per judged tensor (dQ; or dK, dV).
template <class T>
std::vector<std::vector<double>> drift_scores(const KernelSet<T>& ks, const kernels::AttentionProblem& one_entry, bool dq, std::size_t entries,
                                              std::mt19937_64& rng, const std::string& origin) {
  const double u = format_of<T>.unit_roundoff;
  const auto q_of = [u](const T& got, double y) {
    const double g = to_double(got);
    if (!std::isfinite(g)) return 1.0;
    return std::min(std::abs(g - y) / (u * std::abs(y)), 2.0) / 2;  // y != 0: a sum of terms of one sign
  };
  std::vector<std::vector<double>> xs(dq ? 1 : 2);
  kernels::AttentionProblem p = one_entry;
  p.shape.batch = kDriftPerCall;
  const auto& sh = p.shape;
  const std::size_t half = sh.d / 2;
  while (xs[0].size() < entries) {
    const auto in = draw_drift_inputs<T>(p, rng);
    const auto qd = to_doubles(in.q), kd = to_doubles(in.k), vd = to_doubles(in.v), dd = to_doubles(in.dout);
    std::vector<double> od, lsed;
    forward_in_double(p, qd, kd, vd, od, lsed);
    std::vector<T> o(od.size());
    std::vector<lse_t<T>> lse(lsed.size());
    for (std::size_t i = 0; i < od.size(); ++i) o[i] = scalar_traits<T>::from_double(od[i]);
    for (std::size_t i = 0; i < lsed.size(); ++i) lse[i] = static_cast<lse_t<T>>(lsed[i]);
    std::vector<T> dq_got(sh.q_size()), dk_got(sh.k_size()), dv_got(sh.v_size());
    ks.attention_backward(p, {}, in.q.data(), in.k.data(), in.v.data(), o.data(), in.dout.data(), lse.data(), dq_got.data(), dk_got.data(),
                          dv_got.data());
    if (xs[0].empty()) judge_entry0(p, in, o, lse, dq_got, dk_got, dv_got, origin);
    std::vector<double> dqx(sh.q_size()), dkx(sh.k_size()), dvx(sh.v_size());
    kernels::attention_backward<double>(p, qd.data(), kd.data(), vd.data(), od.data(), dd.data(), lsed.data(), dqx.data(), dkx.data(), dvx.data());
    for (std::size_t b = 0; b < sh.batch && xs[0].size() < entries; ++b) {
      const auto mean = [](double sum, std::size_t count) { return sum / static_cast<double>(count); };
      if (dq) {
        double s = 0;
        for (std::size_t i = 0; i < sh.n; ++i)
          for (std::size_t t = half; t < sh.d; ++t) s += q_of(dq_got[sh.q_at(b, i, 0) + t], dqx[sh.q_at(b, i, 0) + t]);
        xs[0].push_back(mean(s, sh.n * (sh.d - half)));
        continue;
      }
      double sk = 0, sv = 0;
      for (std::size_t j = 0; j < sh.m; ++j) {
        for (std::size_t t = 0; t < half; ++t) sk += q_of(dk_got[sh.k_at(b, j, 0) + t], dkx[sh.k_at(b, j, 0) + t]);
        for (std::size_t c = 0; c < sh.dv; ++c) sv += q_of(dv_got[sh.v_at(b, j, 0) + c], dvx[sh.v_at(b, j, 0) + c]);
      }
      xs[0].push_back(mean(sk, sh.m * half));
      xs[1].push_back(mean(sv, sh.m * sh.dv));
    }
  }
  return xs;
}

}  // namespace detail

struct DriftOutcome {
  std::size_t entries = 0;
  double many = 0, one = 0;               // mean X over many blocks and over one
  double mean = 0, variance = 0, threshold = 0;  // of D = X(many) − X(one)
};

// One direction's tests (dQ; or dK, dV) from the check's seed.
template <class T>
std::vector<DriftOutcome> measure_drift(const KernelSet<T>& ks, const DriftDirection& dir, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  const std::string at = "attention_backward<" + std::string(dtype_name(dtype_of<T>())) + ">, " + dir.name + ", seed " + hex_u64(seed);
  const auto many = detail::drift_scores<T>(ks, dir.many, dir.dq, kDriftEntries, rng, at + ", " + dir.many.describe());
  const auto one = detail::drift_scores<T>(ks, dir.one, dir.dq, kDriftEntries, rng, at + ", " + dir.one.describe());
  std::vector<DriftOutcome> out;
  for (std::size_t t = 0; t < many.size(); ++t) {
    DriftOutcome r;
    r.entries = many[t].size();
    const double n = static_cast<double>(r.entries);
    double s = 0, s2 = 0;
    for (std::size_t b = 0; b < r.entries; ++b) {
      const double dd = many[t][b] - one[t][b];
      r.many += many[t][b] / n, r.one += one[t][b] / n;
      s += dd, s2 += dd * dd;
    }
    r.mean = s / n;
    r.variance = std::max(0.0, (s2 - n * r.mean * r.mean) / (n - 1));
    r.threshold = bernstein_threshold(r.entries, r.variance, 2.0, kDriftDelta) + 0x1p-20;
    out.push_back(r);
  }
  return out;
}

}  // namespace attncheck::audit
