// attncheck benchmarks: attncheck's own part of auditing a paged decode kernel at served size
// (issue 31; contract attention-paged-v1): B = 64 sequences of one query each, key counts m_b
// drawn uniformly from 1 .. 32768 (a fixed stream), pages of 16 tokens shuffled over the cache
// with one unused page, H = 32, H_kv = 8, d = dv = 128, bf16 storage, f32 arithmetic. The kernel
// under audit is not timed here (a third party's calls replace it); what attncheck does around
// them is, one counter per part:
//   place_s      q and every token drawn and written into a shuffled cache, the block table, the
//                stale slots filled (what each FALSIFY-PAGED case builds, here at size);
//   reference_s  each sequence's keys gathered through the block table and its decode row
//                computed by the reference in double (the value an at-size check compares every
//                output with);
//   exact_s      the 200-bit exact row and its derived allowance for one (sequence, head) row
//                per sequence: 64 rows (what a sampled accuracy check pays);
//   compare_s    two outputs compared bit for bit (placement invariance, stale slots, leakage).
// Named audit/attention_paged_decode/bf16@f32/B:H:H_kv:d/page16. One iteration, in seconds; the
// cache alone is about 4.3 GB at this size (1.07e9 bf16 elements each for K and V).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <vector>

#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/kernels/attention_paged.hpp"
#include "bench/common.hpp"

namespace attncheck::bench {
namespace {

constexpr std::size_t kB = 64, kH = 32, kHkv = 8, kD = 128, kPage = 16, kMaxKeys = 32768;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void bm_audit_paged_decode(benchmark::State& state) {
  const arithmetic_scope scope(Arithmetic::f32);
  kernels::AttentionProblem p;
  p.shape = {kB, kH, kHkv, 1, kMaxKeys, kD, kD};
  p.scale = 1 / std::sqrt(static_cast<double>(kD));
  p.mask.causal = true;
  p.mask.alignment = kernels::Alignment::bottom_right;
  const std::size_t kw = kHkv * kD;
  double place_s = 0, reference_s = 0, exact_s = 0, compare_s = 0, tokens = 0;
  for (auto _ : state) {
    // ---- place: lengths, the shuffled page order, the block table, q and the cache --------------
    auto t0 = std::chrono::steady_clock::now();
    splitmix64 lengths(seed_for("paged.lengths", kB, 0));
    kernels::PageTable pt;
    pt.page_size = kPage;
    std::size_t used = 0, widest = 0;
    for (std::size_t b = 0; b < kB; ++b) {
      pt.seqused_k.push_back(static_cast<std::int32_t>(1 + lengths.next() % kMaxKeys));
      used += pt.pages_of(b), widest = std::max(widest, pt.pages_of(b));
    }
    pt.num_pages = used + 1;
    pt.pages_per_seq = widest;
    std::vector<std::size_t> order(pt.num_pages);
    std::iota(order.begin(), order.end(), std::size_t{0});
    splitmix64 shuffle(seed_for("paged.order", kB, 0));
    for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuffle.next() % i]);
    pt.block_table.assign(kB * pt.pages_per_seq, static_cast<std::int32_t>(order.back()));
    std::size_t handed = 0;
    for (std::size_t b = 0; b < kB; ++b)
      for (std::size_t t = 0; t < pt.pages_of(b); ++t) pt.block_table[b * pt.pages_per_seq + t] = static_cast<std::int32_t>(order[handed++]);
    const std::vector<std::int32_t> cu_q = [] {
      std::vector<std::int32_t> c(kB + 1);
      std::iota(c.begin(), c.end(), 0);
      return c;
    }();
    const std::vector<bf16> q = normal_vec<bf16>("paged.q", kB, 0, kB * kH * kD, 1.0);
    // Every slot drawn, the stale ones included (a stale slot holds whatever it held before).
    std::vector<bf16> k_cache(pt.tokens() * kw), v_cache(pt.tokens() * kw);
    {
      normal_stream gk(seed_for("paged.k", kB, 0)), gv(seed_for("paged.v", kB, 0));
      for (auto& x : k_cache) x = lit<bf16>(gk.next());
      for (auto& x : v_cache) x = lit<bf16>(gv.next());
    }
    place_s += seconds_since(t0);
    for (std::size_t b = 0; b < kB; ++b) tokens += static_cast<double>(pt.m_of(b));

    // ---- reference: each sequence gathered and decoded in double --------------------------------
    t0 = std::chrono::steady_clock::now();
    std::vector<double> o_ref(kB * kH * kD);
    std::vector<std::vector<bf16>> seq_k(kB), seq_v(kB);  // kept for the exact rows below
    for (std::size_t b = 0; b < kB; ++b) {
      const std::size_t m = pt.m_of(b);
      seq_k[b].resize(m * kw), seq_v[b].resize(m * kw);
      for (std::size_t t = 0; t < m; ++t) {
        const std::size_t at = pt.token_at(b, t);
        std::copy_n(k_cache.begin() + static_cast<std::ptrdiff_t>(at * kw), kw, seq_k[b].begin() + static_cast<std::ptrdiff_t>(t * kw));
        std::copy_n(v_cache.begin() + static_cast<std::ptrdiff_t>(at * kw), kw, seq_v[b].begin() + static_cast<std::ptrdiff_t>(t * kw));
      }
      kernels::AttentionProblem s = p;
      s.shape.batch = 1, s.shape.m = m;
      std::vector<double> qd(kH * kD), kd(m * kw), vd(m * kw);
      for (std::size_t i = 0; i < qd.size(); ++i) qd[i] = to_double(q[b * kH * kD + i]);
      for (std::size_t i = 0; i < kd.size(); ++i) kd[i] = to_double(seq_k[b][i]), vd[i] = to_double(seq_v[b][i]);
      kernels::attention_batched<double>(s, qd.data(), kd.data(), vd.data(), o_ref.data() + b * kH * kD, nullptr);
    }
    reference_s += seconds_since(t0);

    // ---- exact: one row per sequence at 200 bits, with its allowance ----------------------------
    t0 = std::chrono::steady_clock::now();
    const auto md = bounds::model_of<bf16>();
    splitmix64 heads(seed_for("paged.heads", kB, 0));
    for (std::size_t b = 0; b < kB; ++b) {
      kernels::AttentionProblem s = p;
      s.shape.batch = 1, s.shape.m = pt.m_of(b);
      const std::vector<bf16> qb(q.begin() + static_cast<std::ptrdiff_t>(b * kH * kD), q.begin() + static_cast<std::ptrdiff_t>((b + 1) * kH * kD));
      const auto ex = bounds::attention_row_allowance(s, qb, seq_k[b], seq_v[b], 0, heads.next() % kH, 0, bounds::KeyBlocks::any(), md);
      benchmark::DoNotOptimize(ex.o.data());
    }
    exact_s += seconds_since(t0);

    // ---- compare: two outputs bit for bit --------------------------------------------------------
    std::vector<bf16> o1(kB * kH * kD), o2(kB * kH * kD);
    for (std::size_t i = 0; i < o1.size(); ++i) o1[i] = o2[i] = lit<bf16>(o_ref[i]);
    t0 = std::chrono::steady_clock::now();
    std::size_t differ = 0;
    for (std::size_t i = 0; i < o1.size(); ++i) differ += identical_bits(o1[i], o2[i]) ? 0 : 1;
    benchmark::DoNotOptimize(differ);
    compare_s += seconds_since(t0);
  }
  state.counters["place_s"] = place_s;
  state.counters["reference_s"] = reference_s;
  state.counters["exact_s"] = exact_s;
  state.counters["compare_s"] = compare_s;
  state.counters["keys"] = tokens;
}

const bool registered = [] {
  benchmark::RegisterBenchmark("audit/attention_paged_decode/bf16@f32/64:32:8:128/page16", bm_audit_paged_decode)
      ->Iterations(1)
      ->Unit(benchmark::kSecond);
  return true;
}();

}  // namespace
}  // namespace attncheck::bench
