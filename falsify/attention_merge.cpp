// attncheck: falsification tests of attention-merge-v1 (contracts/attention-merge-v1.yaml): the
// merge of split-KV partial results (kernels/attention_merge.hpp). Obligations: MERGE-BND-001
// each output and LSE within the derived allowance of the exact merge of the partials given,
// MERGE-INV-001 a row no split saw a key of gives the masked-row policy and LSE −inf exactly,
// MERGE-EQV-001 merging the rounded partials of an attention row split along its keys gives the
// unsplit row within the merge's allowance plus the propagated rounding of the partials,
// MERGE-SPL-001 a split-KV decoding kernel told num_splits = S gives every row within the
// allowance derived for any partition of its keys into at most S parts (and the unsplit one).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/property/attention_row_judge.hpp"
#include "attncheck/property/gen/attention_merge.hpp"
#include "attncheck/property/masked_rows.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using bounds::real;
using gen::MergeCase;

template <class T>
std::string where(const MergeCase<T>& mc, const std::string& what) {
  return "attention_merge<" + std::string(dtype_name(dtype_of<T>())) + ">, " + what + ", " + mc.describe();
}

template <class T>
Report<T>& with_inputs(Report<T>& r, const MergeCase<T>& mc) {
  r.input("o_parts", mc.o_parts);
  std::string ls;
  for (std::size_t i = 0; i < mc.lse_parts.size() && i < 64; ++i) ls += (i ? ", " : "") + decimal(static_cast<double>(mc.lse_parts[i]));
  return r.line("  lse_parts:    " + ls + (mc.lse_parts.size() > 64 ? ", …" : ""));
}

// Judges o and the LSE of every row with a visible key against exact + allowance (extra: added
// allowances per o element and per LSE, for MERGE-EQV-001's propagated rounding).
template <class T>
void judge_merge(const char* id, const MergeCase<T>& mc, const typename MergeCase<T>::Output& got, const std::vector<real>& exact_o,
                 const std::vector<real>& exact_lse, const std::vector<real>& o_allowed, const std::vector<real>& lse_allowed,
                 const std::vector<bool>& empty) {
  const std::string dt(dtype_name(dtype_of<T>()));
  for (std::size_t r = 0; r < mc.rows; ++r) {
    if (empty[r]) continue;
    for (std::size_t c = 0; c < mc.dv; ++c) {
      const std::size_t e = r * mc.dv + c;
      const long double err = format_error(got.o[e], exact_o[e]);
      observe(ratio(err, o_allowed[e]), "o, " + dt);
      if (!(err <= o_allowed[e])) {
        Report<T> rep(id, where(mc, "o[" + std::to_string(r) + ", " + std::to_string(c) + "]"));
        with_inputs(rep, mc).kernel(got.o[e]).exact(exact_o[e]).error(err, o_allowed[e]).raise();
      }
    }
    if (got.lse.empty()) continue;
    const double l = static_cast<double>(got.lse[r]);
    const long double err = std::isfinite(l) ? std::abs(static_cast<long double>(l) - exact_lse[r]) : std::numeric_limits<long double>::infinity();
    observe(ratio(err, lse_allowed[r]), "lse, " + dt);
    if (!(err <= lse_allowed[r])) {
      Report<T> rep(id, where(mc, "lse[" + std::to_string(r) + "]"));
      with_inputs(rep, mc).line("Kernel lse:  " + decimal(l)).exact(exact_lse[r]).error(err, lse_allowed[r]).raise();
    }
  }
}

// ---- MERGE-BND-001: o and the LSE within the derived allowance of the exact merge ---------------
struct Merge001 {
  static constexpr const char* id = "FALSIFY-MERGE-001";
  static constexpr const char* title = "each merged output and LSE is within the derived allowance of the exact merge of the partials given";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto mc = gen::merge_case<T>();
    const auto got = mc.run(ks);
    const auto ex = mc.exact();
    judge_merge(id, mc, got, ex.o, ex.lse, ex.o_allowance, ex.lse_allowance, ex.empty);
  }
  static inline const bool registered = property::register_property<Merge001>();
};

// ---- MERGE-INV-001: a row with no visible key ------------------------------------------------------
struct Merge002 {
  static constexpr const char* id = "FALSIFY-MERGE-002";
  static constexpr bool judges_masked_policy = true;  // rows that see no key
  static constexpr const char* title = "a row that no split saw a key of gives all 0 or all NaN and an LSE of exactly −inf";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    auto mc = gen::merge_case<T>();
    // At least one row with every split empty: the last, unless the case drew one already.
    const std::size_t r = mc.rows - 1;
    for (std::size_t s = 0; s < mc.splits; ++s) {
      mc.lse_parts[s * mc.rows + r] = -std::numeric_limits<lse_t<T>>::infinity();
      for (std::size_t c = 0; c < mc.dv; ++c) mc.o_parts[(s * mc.rows + r) * mc.dv + c] = lit<T>(0);
    }
    const auto got = mc.run(ks);
    const auto ex = mc.exact();
    for (std::size_t row = 0; row < mc.rows; ++row) {
      if (!ex.empty[row]) continue;
      if (!follows_masked_policy(got.o.data() + row * mc.dv, mc.dv, ks.attention_merge_masked)) {
        Report<T> rep(id, where(mc, "o of row " + std::to_string(row) + ", which no split saw a key of"));
        with_inputs(rep, mc).input("o (kernel)", std::vector<T>(got.o.begin() + static_cast<std::ptrdiff_t>(row * mc.dv),
                                                                  got.o.begin() + static_cast<std::ptrdiff_t>((row + 1) * mc.dv)))
            .line("expected " + masked_policy_demand(ks.attention_merge_masked) + " (the masked-row policy" +
                  (ks.attention_merge_masked == MaskedPolicy::either ? std::string() : ": " + masked_policy_declared(ks.attention_merge_masked)) + ")")
            .raise();
      }
      if (got.lse.empty()) continue;
      const double l = static_cast<double>(got.lse[row]);
      if (!(std::isinf(l) && l < 0)) {
        Report<T> rep(id, where(mc, "lse[" + std::to_string(row) + "], a row no split saw a key of"));
        with_inputs(rep, mc).line("Kernel lse:  " + decimal(l) + " (expected −inf exactly: the log of an empty sum)").raise();
      }
    }
  }
  static inline const bool registered = property::register_property<Merge002>();
};

// ---- MERGE-EQV-001: split, then merge = unsplit --------------------------------------------------
// The partials handed on are Ô_s = RN_T(O_s) and ℓ̂_s = RN(ℓ_s). With δ = max_s |ℓ̂_s − ℓ_s|, the
// exact merge of the rounded partials has weights w̃_s ∈ w_s[e^{−2δ}, e^{2δ}] and LSE within δ of
// the unsplit L, so |õ_c − o_c| <= e^{2δ} Σ_s w_s |Ô_sc − O_sc| + (e^{2δ} − 1) Σ_s w_s |O_sc|
// (proofs/attention_merge.tex, Corollary "split then merge"); the kernel adds MERGE-BND-001's.
struct Merge003 {
  static constexpr const char* id = "FALSIFY-MERGE-003";
  static constexpr const char* title =
      "merging the rounded partials of an attention row split along its keys gives the unsplit row within the derived bound";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    gen::BatchedLimits lim;
    lim.max_n = 6, lim.max_m = 12;
    const auto sc = gen::split_case<T>(gen::batched_case<T>(lim, false));
    const auto& mc = sc.merge;
    const auto got = mc.run(ks);
    const auto ex = mc.exact();
    const std::size_t S = mc.splits, rows = mc.rows, dv = mc.dv;
    std::vector<real> o_allowed(ex.o_allowance), lse_allowed(ex.lse_allowance);
    for (std::size_t r = 0; r < rows; ++r) {
      if (ex.empty[r]) continue;
      real delta = 0;
      for (std::size_t s = 0; s < S; ++s)
        if (std::isfinite(static_cast<double>(sc.part_lse[s * rows + r])))
          delta = std::max(delta, std::abs(static_cast<real>(mc.lse_parts[s * rows + r]) - sc.part_lse[s * rows + r]));
      lse_allowed[r] = (lse_allowed[r] + delta) * bounds::evaluation_slack;
      const real grow = std::exp(2 * delta);
      for (std::size_t c = 0; c < dv; ++c) {
        real rounding = 0, mass = 0;
        for (std::size_t s = 0; s < S; ++s) {
          const real ls = sc.part_lse[s * rows + r];
          if (!std::isfinite(static_cast<double>(ls))) continue;
          const real w = std::exp(ls - sc.exact_lse[r]);
          const real os = sc.part_o[(s * rows + r) * dv + c];
          rounding += w * std::abs(static_cast<real>(to_double(mc.o_parts[(s * rows + r) * dv + c])) - os);
          mass += w * std::abs(os);
        }
        o_allowed[r * dv + c] = (o_allowed[r * dv + c] + grow * rounding + (grow - 1) * mass) * bounds::evaluation_slack;
      }
    }
    judge_merge(id, mc, got, sc.exact_o, sc.exact_lse, o_allowed, lse_allowed, ex.empty);
  }
  static inline const bool registered = property::register_property<Merge003>();
};

// ---- MERGE-SPL-001: split-KV decoding, with and without splitting ------------------------------
// The attention kernel told num_splits = S (1 to 6: 1 is the unsplit kernel) on decode-like cases
// (a few queries, the keys of FALSIFY-ATTK-001's cases, several tiles in 1 case in 8): every O
// element and LSE within attention_row_allowance, which for S > 1 is the larger of the unsplit
// allowance and Lemma "split-KV error"'s, uniform over the kernel's choice of parts.
struct Merge004 {
  static constexpr const char* id = "FALSIFY-MERGE-004";
  static constexpr bool judges_masked_policy = true;  // rows that see no key
  static constexpr const char* title =
      "split-KV decoding: attention told to split the keys into at most S parts is within the derived bound, with and without splitting";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    gen::BatchedLimits lim;
    lim.max_n = 3;
    auto c = gen::batched_case<T>(lim, true);
    c.p.num_splits = *rc::gen::weightedElement<std::size_t>({{1, 1}, {3, 2}, {3, 3}, {2, 4}, {1, 5}, {2, 6}});
    const auto out = c.run(ks);
    const auto md = bounds::model_of<T>();
    const auto kb = gen::blocks_of(ks, c.tiling);
    const auto& sh = c.p.shape;
    const std::string dt(dtype_name(dtype_of<T>()));
    const std::string series = c.p.num_splits > 1 ? ", split" : ", unsplit";
    for (std::size_t b = 0; b < sh.batch; ++b)
      for (std::size_t h = 0; h < sh.heads; ++h)
        for (std::size_t i = 0; i < sh.n; ++i) {
          const auto ex = bounds::attention_row_allowance(c.p, c.q, c.k, c.v, b, h, i, kb, md);
          const double lse = out.lse.empty() ? 0 : static_cast<double>(out.lse[sh.lse_at(b, h, i)]);
          judge_attention_row<T>(id, ex, out.o.data() + sh.o_at(b, i, h), sh.dv, out.lse.empty() ? nullptr : &lse, ks.attention_batched_masked,
                                 "attention_batched<" + dt + ">, row (b " + std::to_string(b) + ", h " + std::to_string(h) + ", i " +
                                     std::to_string(i) + "), " + c.describe(),
                                 series, [&](Report<T>& r) { r.input("q", c.q).input("k", c.k).input("v", c.v); });
        }
  }
  static inline const bool registered = property::register_property<Merge004>();
};

}  // namespace
}  // namespace attncheck::falsify
