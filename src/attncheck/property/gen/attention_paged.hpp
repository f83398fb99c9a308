// attncheck: drawing paged-KV batches (kernels/attention_paged.hpp) for the gate and the audit: a
// packed variable-length batch (gen/attention_varlen.hpp) whose keys and values are scattered over
// the pages of a cache: pages of 1, 2, 3, 4, 8 or 16 tokens, the pages of all sequences shuffled
// together, a block table wider than the longest sequence needs, a few pages no sequence uses, and
// every slot nothing should read (after a sequence's last key, in unused pages) filled with stale
// values: large finite ones, or NaN.
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "attncheck/kernels/attention_paged.hpp"
#include "attncheck/property/gen/normal.hpp"
#include "attncheck/property/gen/attention_varlen.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::gen {

// What the slots no kernel should read hold.
enum class Stale { finite, nan };

// A placement of a batch's keys in a cache: the page size, the table's width, the cache's size,
// and the order of its pages, drawn once and applied to any tokens (PagedCase::with_tokens).
struct Placement {
  std::size_t page_size = 16, extra_columns = 0, unused_pages = 1;
  std::vector<std::size_t> order;  // physical page of the i-th page handed out (sequence by sequence)
  std::uint64_t stale_seed = 0;    // the stale values' stream
  Stale stale = Stale::finite;
};

template <class T>
struct PagedCase {
  VarlenCase<T> vc;  // the logical batch: vc.k, vc.v packed, vc.pk.cu_k the prefix sums of m_b
  Placement at;
  kernels::PageTable pt;
  std::vector<T> k_cache, v_cache;

  using Output = typename VarlenCase<T>::Output;
  Output run(const KernelSet<T>& ks, const std::vector<T>& q, const std::vector<T>& kc, const std::vector<T>& vc_) const {
    const auto& s = vc.c.p.shape;
    Output r{std::vector<T>(vc.pk.total_q() * s.heads * s.dv, lit<T>(0)),
             std::vector<lse_t<T>>(ks.attention_batched_lse ? vc.pk.total_q() * s.heads : 0, 0)};
    ks.attention_paged(vc.c.p, vc.pk.cu_q, pt, vc.c.tiling, q.data(), kc.data(), vc_.data(), r.o.data(), r.lse.empty() ? nullptr : r.lse.data());
    return r;
  }
  Output run(const KernelSet<T>& ks) const { return run(ks, vc.q, k_cache, v_cache); }

  // The same placement of other tokens (of the same lengths): the cache rebuilt around them.
  PagedCase with_tokens(const std::vector<T>& q, const std::vector<T>& k, const std::vector<T>& v) const {
    PagedCase r = *this;
    r.vc.q = q, r.vc.k = k, r.vc.v = v;
    r.fill();
    return r;
  }
  // The same tokens in another placement.
  PagedCase placed(const Placement& p) const {
    PagedCase r = *this;
    r.at = p;
    r.fill();
    return r;
  }
  std::string describe() const {
    return vc.describe() + ", " + pt.describe() + (at.stale == Stale::nan ? ", stale slots NaN" : ", stale slots finite");
  }

  // Builds pt, k_cache and v_cache from vc and at.
  void fill() {
    const auto& s = vc.c.p.shape;
    const std::size_t B = vc.pk.sequences(), ps = at.page_size;
    pt = {};
    pt.page_size = ps;
    std::size_t used = 0, widest = 0;
    for (std::size_t b = 0; b < B; ++b) {
      pt.seqused_k.push_back(static_cast<std::int32_t>(vc.pk.m_of(b)));
      const std::size_t pages = (vc.pk.m_of(b) + ps - 1) / ps;
      used += pages, widest = std::max(widest, pages);
    }
    pt.num_pages = used + at.unused_pages;
    pt.pages_per_seq = widest + at.extra_columns;
    // The table entries past a sequence's pages name an unused page (there is at least one).
    pt.block_table.assign(B * pt.pages_per_seq, static_cast<std::int32_t>(at.order.back()));
    const std::size_t kw = s.kv_heads * s.d, vw = s.kv_heads * s.dv;
    k_cache.assign(pt.tokens() * kw, lit<T>(0));
    v_cache.assign(pt.tokens() * vw, lit<T>(0));
    // Stale values everywhere first (drawn from their own stream: the same placement, the same bits).
    {
      NormalStream rng(at.stale_seed);
      const auto stale = [&](double sigma) {
        if (at.stale == Stale::nan) return scalar_traits<T>::from_double(std::numeric_limits<double>::quiet_NaN());
        return scalar_traits<T>::from_double(rng.next() * sigma);
      };
      for (auto& x : k_cache) x = stale(16);
      for (auto& x : v_cache) x = stale(64);
    }
    std::size_t handed = 0;
    for (std::size_t b = 0; b < B; ++b)
      for (std::size_t t = 0; t < vc.pk.m_of(b); ++t) {
        if (t % ps == 0) pt.block_table[b * pt.pages_per_seq + t / ps] = static_cast<std::int32_t>(at.order[handed++]);
        const std::size_t from = static_cast<std::size_t>(vc.pk.cu_k[b]) + t, to = pt.token_at(b, t);
        std::copy(vc.k.begin() + static_cast<std::ptrdiff_t>(from * kw), vc.k.begin() + static_cast<std::ptrdiff_t>((from + 1) * kw),
                  k_cache.begin() + static_cast<std::ptrdiff_t>(to * kw));
        std::copy(vc.v.begin() + static_cast<std::ptrdiff_t>(from * vw), vc.v.begin() + static_cast<std::ptrdiff_t>((from + 1) * vw),
                  v_cache.begin() + static_cast<std::ptrdiff_t>(to * vw));
      }
  }
};

// A placement for vc: the page size (drawn when page_size is 0), 0 to 2 extra table columns, 1 to 3 unused pages, the pages
// shuffled (RapidCheck draws the permutation, so a failure shrinks toward pages in order).
template <class T>
Placement draw_placement(const VarlenCase<T>& vc, Stale stale, std::size_t page_size = 0) {
  Placement p;
  static const std::size_t sizes[] = {1, 2, 3, 4, 8, 16};
  p.page_size = page_size ? page_size : sizes[*rc::gen::inRange<std::size_t>(0, std::size(sizes))];
  p.extra_columns = *rc::gen::inRange<std::size_t>(0, 3);
  p.unused_pages = *rc::gen::inRange<std::size_t>(1, 4);
  std::size_t used = 0;
  for (std::size_t b = 0; b < vc.pk.sequences(); ++b) used += (vc.pk.m_of(b) + p.page_size - 1) / p.page_size;
  const std::size_t pages = used + p.unused_pages;
  // order: pages handed out first, the unused ones last; a Fisher–Yates shuffle of 0 .. pages − 1.
  p.order.resize(pages);
  std::iota(p.order.begin(), p.order.end(), std::size_t{0});
  for (std::size_t i = pages; i > 1; --i) std::swap(p.order[i - 1], p.order[*rc::gen::inRange<std::size_t>(0, i)]);
  p.stale_seed = *rc::gen::arbitrary<std::uint64_t>();
  p.stale = stale;
  return p;
}

// A paged batch: varlen_case's logical batch in a drawn placement.
template <class T>
PagedCase<T> paged_case(Stale stale = Stale::finite) {
  PagedCase<T> r;
  r.vc = varlen_case<T>();
  r.at = draw_placement(r.vc, stale);
  r.fill();
  return r;
}

}  // namespace attncheck::gen
