// attncheck audit: paged decoding at the sizes inference servers run (AUDIT-PAGED-001). The small
// batches of FALSIFY-PAGED-* have at most 9 keys per sequence and a few dozen pages: a P·V sum
// accumulated in 16 bits drifts only over long rows, and a page index too narrow for the cache, a
// table walked wrongly past its first pages or a split kernel's partitions of hundreds of tokens
// never show there. Here one decode batch is audited once per check: B = 6 sequences of one query
// each (bottom-right causal: the query sees every key), lengths 1, 16, 17 (one page, a full page,
// one key into the second), 700, 2047 and 4100 keys (433 pages in all: past any 8-bit page number;
// rows past vLLM's 512-token partitions), H = 4 query heads over H_kv = 2, d = dv = 64 (the row length
// and the page count are what matter here; the oracle's cost is H·d per key, about 3 s a format),
// pages of 16 tokens shuffled over the cache with a spare table column and two unused pages, stale
// slots finite. Every one of the 24 rows is compared with its exact row (the sequence's dense
// problem; bounds::attention_row_allowance, any tiling): the rows are few, so none is sampled. A
// kernel declared to split (--splits S) is told S here.
//
// Inputs from one seed, in this order: q, k ~ N(0, 1.5²), v ~ N(0, 4²) with every odd value column
// moved by +kValueColumnMean (attention_at_size.hpp says why: a channel with a mean is where a
// 16-bit accumulator drifts), then the placement (page order, stale values).
#pragma once

#include <cmath>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "attncheck/audit/attention_at_size.hpp"
#include "attncheck/property/gen/attention_paged.hpp"
#include "attncheck/property/gen/normal.hpp"
#include "attncheck/property/packed_rows.hpp"

namespace attncheck::audit {

// The decode batch of AUDIT-PAGED-001: its problem (n and m the largest n_b and m_b), the
// sequences' key counts, the page size. At f64 each cache is about 7 MiB, within the exec
// protocol's frame (64 MiB).
struct SizedPagedBatch {
  kernels::AttentionProblem p;
  std::vector<std::int32_t> lengths;
  std::size_t page_size = 16;
};

inline SizedPagedBatch default_sized_paged_batch() {
  SizedPagedBatch s;
  s.lengths = {1, 16, 17, 700, 2047, 4100};
  s.p.shape = {s.lengths.size(), 4, 2, 1, 4100, 64, 64};
  s.p.scale = 1 / std::sqrt(64.0);
  s.p.mask.causal = true;
  s.p.mask.alignment = kernels::Alignment::bottom_right;
  return s;
}

// The batch's inputs and placement, drawn from seed (the order above).
template <class T>
gen::PagedCase<T> sized_paged_case(const SizedPagedBatch& s, std::uint64_t seed) {
  gen::PagedCase<T> pc;
  auto& vc = pc.vc;
  vc.c.p = s.p;
  const auto& sh = s.p.shape;
  vc.pk.cu_q = {0};
  vc.pk.cu_k = {0};
  for (const std::int32_t m : s.lengths) {
    vc.pk.cu_q.push_back(vc.pk.cu_q.back() + 1);
    vc.pk.cu_k.push_back(vc.pk.cu_k.back() + m);
  }
  gen::NormalStream z(seed);
  const auto normal = [&](std::size_t size, double sigma) {
    std::vector<T> x(size);
    for (auto& e : x) e = lit<T>(sigma * z.next());
    return x;
  };
  vc.q = normal(vc.pk.total_q() * sh.heads * sh.d, 1.5);
  vc.k = normal(vc.pk.total_k() * sh.kv_heads * sh.d, 1.5);
  vc.v = normal(vc.pk.total_k() * sh.kv_heads * sh.dv, 4);
  for (std::size_t i = 0; i < vc.v.size(); ++i)  // dv is the innermost extent
    if ((i % sh.dv) % 2 == 1) vc.v[i] = lit<T>(static_cast<double>(vc.v[i]) + detail::kValueColumnMean);
  // The placement: every page shuffled (Fisher–Yates on mt19937_64's raw output, which the C++
  // standard fixes, so a replay gives the same pages everywhere).
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  pc.at.page_size = s.page_size;
  pc.at.extra_columns = 1;
  pc.at.unused_pages = 2;
  std::size_t pages = pc.at.unused_pages;
  for (const std::int32_t m : s.lengths) pages += (static_cast<std::size_t>(m) + s.page_size - 1) / s.page_size;
  pc.at.order.resize(pages);
  std::iota(pc.at.order.begin(), pc.at.order.end(), std::size_t{0});
  for (std::size_t i = pages; i > 1; --i) std::swap(pc.at.order[i - 1], pc.at.order[rng() % i]);
  pc.at.stale_seed = rng();
  pc.at.stale = gen::Stale::finite;
  pc.fill();
  return pc;
}

// Audits the batch once: every row against its exact row. Fails (property::Report) with the first
// row out of its allowance; observes the worst ratio.
template <class T>
void audit_paged_at_size(const KernelSet<T>& ks, const SizedPagedBatch& s, std::uint64_t seed) {
  const auto pc = sized_paged_case<T>(s, seed);
  const std::string dt(dtype_name(dtype_of<T>()));
  const std::string what = "attention_paged<" + dt + "> at size, " + s.p.describe() + ", inputs from seed " + hex_u64(seed) + ", " +
                           pc.vc.pk.describe() + ", pages of " + std::to_string(s.page_size) + " tokens, " +
                           std::to_string(pc.pt.num_pages) + " in the cache (shuffled)";
  property::judge_packed_accuracy<T>(
      "AUDIT-PAGED-001", pc.vc, pc.run(ks), bounds::KeyBlocks::any(), ks.attention_paged_masked,
      [&](std::size_t b, std::size_t h, std::size_t i) {
        return what + ", sequence " + std::to_string(b) + " (" + std::to_string(pc.vc.pk.m_of(b)) + " keys), row (h " + std::to_string(h) +
               ", i " + std::to_string(i) + ")";
      },
      [&](property::Report<T>& r) { r.input("q", pc.vc.q); });
}

}  // namespace attncheck::audit
