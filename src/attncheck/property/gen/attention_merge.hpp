// attncheck: drawing split-KV merge problems (kernels/attention_merge.hpp) for the gate and the
// audit: S partial outputs and LSEs per row, either drawn directly (every regime a combine kernel
// meets: one split, empty splits, whole rows with no visible key, LSEs near 0 or far beyond the
// exp range of the format) or from a real attention problem split along its keys (split_case:
// partials computed exactly and rounded to the kernel's formats, as a split kernel hands them on).
#pragma once

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/bounds/attention_merge.hpp"
#include "attncheck/property/gen/attention_batched.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::gen {

template <class T>
struct MergeCase {
  std::size_t splits = 1, rows = 1, dv = 1;
  std::vector<T> o_parts;            // splits × rows × dv
  std::vector<lse_t<T>> lse_parts;   // splits × rows; −inf: the split saw no key of that row
  std::string origin;                // how the case was drawn, for the report

  struct Output {
    std::vector<T> o;
    std::vector<lse_t<T>> lse;  // empty when not asked for
  };
  // The LSE is asked for unless the kernel is declared to return none (--no-lse,
  // KernelSet::attention_merge_lse).
  Output run(const KernelSet<T>& ks) const {
    const bool with_lse = ks.attention_merge_lse;
    Output r{std::vector<T>(rows * dv, lit<T>(0)), std::vector<lse_t<T>>(with_lse ? rows : 0, 0)};
    ks.attention_merge(splits, rows, dv, o_parts.data(), lse_parts.data(), r.o.data(), with_lse ? r.lse.data() : nullptr);
    return r;
  }
  bounds::MergeExact exact() const { return bounds::attention_merge_exact(splits, rows, dv, o_parts, lse_parts, bounds::model_of<T>()); }
  std::string describe() const {
    return std::to_string(splits) + " split" + (splits == 1 ? "" : "s") + ", " + std::to_string(rows) + " row" + (rows == 1 ? "" : "s") +
           ", dv " + std::to_string(dv) + (origin.empty() ? "" : ", " + origin);
  }
  std::vector<double> lse_values() const { return {lse_parts.begin(), lse_parts.end()}; }
};

// The LSE offsets a case is drawn around: 0, and ±30, ±120, ±1000 (beyond f32's and f64's exp
// range, where a merge without max subtraction overflows or underflows) where the arithmetic
// format resolves them to 2^-6 relative (16-bit arithmetic cannot: its bound would say nothing).
template <class T>
double draw_lse_offset() {
  const double u = static_cast<double>(bounds::model_of<T>().u);
  std::vector<double> offsets{0, 0, 0};
  for (double c : {30.0, 120.0, 1000.0})
    if (c * u <= 0x1p-6) {
      offsets.push_back(c);
      offsets.push_back(-c);
    }
  return *rc::gen::elementOf(offsets);
}

// A drawn merge problem.
template <class T>
MergeCase<T> merge_case() {
  MergeCase<T> c;
  c.splits = *rc::gen::element<std::size_t>(1, 2, 2, 3, 4, 5, 8, 13);
  c.rows = *rc::gen::inRange<std::size_t>(1, 5);
  c.dv = *rc::gen::element<std::size_t>(1, 3, 8, 16, 64);
  const double offset = draw_lse_offset<T>();
  const double spread = *rc::gen::element(0.0, 0.5, 3.0, 12.0, 40.0);
  c.o_parts = property::draw_vector<T>(c.splits * c.rows * c.dv, 4);
  c.lse_parts.assign(c.splits * c.rows, 0);
  const bool any_empty = *rc::gen::inRange(0, 3) == 0;
  for (std::size_t r = 0; r < c.rows; ++r) {
    const bool empty_row = any_empty && *rc::gen::inRange(0, 4) == 0;
    for (std::size_t s = 0; s < c.splits; ++s) {
      const bool empty = empty_row || (any_empty && *rc::gen::inRange(0, 4) == 0);
      const double t = static_cast<double>(*rc::gen::inRange(-(1 << 20), (1 << 20) + 1)) * 0x1p-20;
      const double l = offset + spread * t;
      c.lse_parts[s * c.rows + r] = empty ? -std::numeric_limits<lse_t<T>>::infinity() : static_cast<lse_t<T>>(l);
      if (empty)
        for (std::size_t e = 0; e < c.dv; ++e) c.o_parts[(s * c.rows + r) * c.dv + e] = lit<T>(0);
    }
  }
  c.origin = "partial LSEs about " + std::to_string(static_cast<long long>(offset)) + " ± " + decimal(spread) +
             (any_empty ? ", some splits empty" : "");
  return c;
}

// A batched attention case split along its keys at the cut points (0 = a_0 <= a_1 <= … <= a_S = m):
// split s holds keys [a_s, a_{s+1}). Each row (b, i, h), in o's layout order, gets from each split
// its exact partial output and LSE over the visible keys of the split (−inf and 0 where none is),
// rounded once to T and lse_t<T>. exact_o, exact_lse: the unsplit attention's exact o and LSE.
// weights, parts: the exact partial weights e^{ℓ_s − LSE} and |O_s| (for the propagation bound).
template <class T>
struct SplitCase {
  BatchedCase<T> c;
  std::vector<std::size_t> cuts;
  MergeCase<T> merge;
  std::vector<bounds::real> exact_o, exact_lse;
  std::vector<bounds::real> part_lse;   // exact ℓ_s, splits × rows (−inf where empty)
  std::vector<bounds::real> part_o;     // exact O_s, splits × rows × dv
};

template <class T>
SplitCase<T> split_case(BatchedCase<T> c) {
  SplitCase<T> sc;
  sc.c = std::move(c);
  const auto& p = sc.c.p;
  const auto& sh = p.shape;
  const std::size_t S = *rc::gen::inRange<std::size_t>(1, 6);
  sc.cuts = {0};
  for (std::size_t s = 1; s < S; ++s) sc.cuts.push_back(*rc::gen::inRange<std::size_t>(0, sh.m + 1));
  sc.cuts.push_back(sh.m);
  std::sort(sc.cuts.begin(), sc.cuts.end());
  const std::size_t rows = sh.batch * sh.n * sh.heads, dv = sh.dv;
  auto& mc = sc.merge;
  mc.splits = S, mc.rows = rows, mc.dv = dv;
  mc.o_parts.assign(S * rows * dv, lit<T>(0));
  mc.lse_parts.assign(S * rows, -std::numeric_limits<lse_t<T>>::infinity());
  sc.part_o.assign(S * rows * dv, 0);
  sc.part_lse.assign(S * rows, -std::numeric_limits<bounds::real>::infinity());
  sc.exact_o.assign(rows * dv, 0);
  sc.exact_lse.assign(rows, -std::numeric_limits<bounds::real>::infinity());
  std::vector<mpfr200> e, acc(dv), all_acc(dv);
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t h = 0; h < sh.heads; ++h)
      for (std::size_t i = 0; i < sh.n; ++i) {
        const std::size_t r = sh.o_at(b, i, h) / dv, g = sh.kv_head(h);
        const auto rs = bounds::row_scores(p, sc.c.q, sc.c.k, b, h, i, bounds::Model{0, 0, 0, 0});
        if (rs.keys.empty()) continue;
        const mpfr200 M = kernels::row_max(rs.s.data(), rs.s.size());
        // Σ over a key range of e^{s_j − M} and of e^{s_j − M} v_j
        const auto sums = [&](std::size_t lo, std::size_t hi, std::vector<mpfr200>& a) {
          mpfr200 z = 0;
          for (auto& x : a) x = 0;
          for (std::size_t j = lo; j < hi; ++j) {
            const mpfr200 ej = exp(mpfr200(rs.s[j - rs.keys.first] - M));
            z += ej;
            for (std::size_t t = 0; t < dv; ++t) a[t] += ej * mpfr200(to_double(sc.c.v[sh.v_at(b, j, g) + t]));
          }
          return z;
        };
        const mpfr200 Z = sums(rs.keys.first, rs.keys.last, all_acc);
        sc.exact_lse[r] = oracle::dbl(mpfr200(M + log(Z)));
        for (std::size_t t = 0; t < dv; ++t) sc.exact_o[r * dv + t] = oracle::dbl(mpfr200(all_acc[t] / Z));
        for (std::size_t s = 0; s < S; ++s) {
          const std::size_t lo = std::max(sc.cuts[s], rs.keys.first), hi = std::min(sc.cuts[s + 1], rs.keys.last);
          if (lo >= hi) continue;
          const mpfr200 z = sums(lo, hi, acc);
          const bounds::real l = oracle::dbl(mpfr200(M + log(z)));
          sc.part_lse[s * rows + r] = l;
          mc.lse_parts[s * rows + r] = static_cast<lse_t<T>>(l);
          for (std::size_t t = 0; t < dv; ++t) {
            const bounds::real ot = oracle::dbl(mpfr200(acc[t] / z));
            sc.part_o[(s * rows + r) * dv + t] = ot;
            mc.o_parts[(s * rows + r) * dv + t] = scalar_traits<T>::from_double(static_cast<double>(ot));
          }
        }
      }
  std::string cuts;
  for (std::size_t s = 1; s < S; ++s) cuts += (s > 1 ? ", " : "") + std::to_string(sc.cuts[s]);
  mc.origin = "the partials of " + sc.c.describe() + " split at keys {" + cuts + "}";
  return sc;
}

}  // namespace attncheck::gen
