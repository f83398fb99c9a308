// attncheck: falsification tests of attention-kernel-v1 (contracts/attention-kernel-v1.yaml):
// batched attention as shipped kernels compute it (kernels/attention_batched.hpp), plain and tiled.
// Obligations: ATTK-BND-001 each output within the derived allowance of the exact attention,
// ATTK-BND-002 the log-sum-exp likewise, ATTK-MSK-001 a query's output does not depend on the keys
// its mask hides (and a row that sees none follows the masked-row policy), ATTK-GQA-001 grouped
// heads are multi-head attention with each key/value head repeated, ATTK-EQV-001 the tiled
// algorithm computes the plain one.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "attncheck/bounds/attention_batched.hpp"
#include "attncheck/property/gen/attention_batched.hpp"
#include "attncheck/property/masked_rows.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::falsify {
using namespace property;  // the property layer: drawing, judging, reporting
namespace {

using bounds::real;
using Case = kernels::AttentionProblem;
using gen::blocks_of;

template <class T>
std::string where(const gen::BatchedCase<T>& c, std::size_t b, std::size_t h, std::size_t i) {
  return "attention_batched<" + std::string(dtype_name(dtype_of<T>())) + ">, row (b " + std::to_string(b) + ", h " + std::to_string(h) +
         ", i " + std::to_string(i) + "), " + c.describe();
}

template <class T>
Report<T>& with_inputs(Report<T>& r, const gen::BatchedCase<T>& c) {
  return r.input("q", c.q).input("k", c.k).input("v", c.v);
}

// The rows of a case, (b, h, i) in output order.
template <class T, class F>
void each_row(const gen::BatchedCase<T>& c, F&& f) {
  const auto& s = c.p.shape;
  for (std::size_t b = 0; b < s.batch; ++b)
    for (std::size_t h = 0; h < s.heads; ++h)
      for (std::size_t i = 0; i < s.n; ++i) f(b, h, i);
}

// ---- ATTK-BND-001: O within the derived allowance of the exact attention ----------------------------
struct Attk001 {
  static constexpr const char* id = "FALSIFY-ATTK-001";
  static constexpr bool judges_masked_policy = true;  // rows that see no key
  static constexpr const char* title = "every attention output is within the derived allowance of the exact attention (plain and tiled)";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto c = gen::batched_case<T>();
    const auto out = c.run(ks);
    const auto md = bounds::model_of<T>();
    const auto kb = blocks_of(ks, c.tiling);
    each_row(c, [&](std::size_t b, std::size_t h, std::size_t i) {
      const auto ex = bounds::attention_row_allowance(c.p, c.q, c.k, c.v, b, h, i, kb, md);
      const T* o = out.o.data() + c.p.shape.o_at(b, i, h);
      if (ex.keys.empty()) {
        if (!follows_masked_policy(o, c.p.shape.dv, ks.attention_batched_masked)) {
          Report<T> r(id, where(c, b, h, i) + ": the row sees no key");
          with_inputs(r, c).line("output row: " + row_values(std::vector<T>(o, o + c.p.shape.dv)) + " (must be " +
                                 masked_policy_demand(ks.attention_batched_masked) + ")");
          if (ks.attention_batched_masked != MaskedPolicy::either) r.line("Policy: " + masked_policy_declared(ks.attention_batched_masked) + ".");
          r.raise();
        }
        return;
      }
      for (std::size_t col = 0; col < c.p.shape.dv; ++col) {
        const long double err = format_error(o[col], ex.o[col]);
        observe(ratio(err, ex.o_allowance[col]), "O, " + std::string(dtype_name(dtype_of<T>())));
        property::sample("error", "attention_batched", {"error", "allowance"}, {static_cast<double>(err), static_cast<double>(ex.o_allowance[col])});
        if (!(err <= ex.o_allowance[col])) {
          Report<T> r(id, where(c, b, h, i) + ", column " + std::to_string(col));
          with_inputs(r, c).kernel(o[col]).exact(ex.o[col]).error(err, ex.o_allowance[col]);
          if (md.mixed() && !md.scores_stored &&
              err <= bounds::attention_row_allowance(c.p, c.q, c.k, c.v, b, h, i, kb, md.unfused()).o_allowance[col])
            r.line(bounds::unfused_note(format_of<T>.name));
          r.raise();
        }
      }
    });
  }
  static inline const bool registered = property::register_property<Attk001>();
};

// ---- ATTK-BND-002: the LSE within the derived allowance of the exact log-sum-exp ------------------
struct Attk002 {
  static constexpr const char* id = "FALSIFY-ATTK-002";
  static constexpr const char* title = "every row log-sum-exp is within the derived allowance of the exact one (natural log, scaled scores), −inf for a row that sees no key";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    RC_PRE(ks.attention_batched_lse);
    const auto c = gen::batched_case<T>();
    const auto out = c.run(ks);
    const auto md = bounds::model_of<T>();
    const auto kb = blocks_of(ks, c.tiling);
    each_row(c, [&](std::size_t b, std::size_t h, std::size_t i) {
      const auto ex = bounds::attention_row_allowance(c.p, c.q, c.k, c.v, b, h, i, kb, md);
      const double got = out.lse[c.p.shape.lse_at(b, h, i)];
      if (ex.keys.empty()) {
        if (!(std::isinf(got) && got < 0)) {
          Report<T> r(id, where(c, b, h, i) + ": the row sees no key");
          with_inputs(r, c).line("LSE = " + decimal(got) + " (must be −inf: the log of an empty sum)").raise();
        }
        return;
      }
      const long double err = std::isfinite(got) ? std::abs(static_cast<long double>(got) - ex.lse) : std::numeric_limits<long double>::infinity();
      observe(ratio(err, ex.lse_allowance), "LSE, " + std::string(dtype_name(dtype_of<T>())));
      if (!(err <= ex.lse_allowance)) {
        Report<T> r(id, where(c, b, h, i) + ", LSE");
        with_inputs(r, c).line("Kernel LSE:  " + decimal(got)).exact(ex.lse).error(err, ex.lse_allowance);
        const long double ratio2 = ex.lse != 0 ? got / ex.lse : 0;
        if (std::abs(ratio2 - 1.4426950408889634L) < 1e-3L) r.line("LSE / exact = 1/ln 2: the kernel returns log2 units (the contract asks for the natural log)");
        if (md.mixed() && !md.scores_stored &&
            err <= bounds::attention_row_allowance(c.p, c.q, c.k, c.v, b, h, i, kb, md.unfused()).lse_allowance)
          r.line(bounds::unfused_note(format_of<T>.name));
        r.raise();
      }
    });
  }
  static inline const bool registered = property::register_property<Attk002>();
};

// ---- ATTK-MSK-001: what a query's mask hides does not reach its output -----------------------------
// For one row (b, h, i), every key the mask hides from query i (alignment, causal, window) gets a
// key row that would dominate the row if it were seen (its score about +20 above the others) and
// a large value row; the row's output and LSE must stay within twice their allowance (the exact
// values are unchanged: both runs are within the allowance of the same exact row).
struct Attk003 {
  static constexpr const char* id = "FALSIFY-ATTK-003";
  static constexpr bool judges_masked_policy = true;  // rows that see no key
  static constexpr const char* title = "the keys a query's mask hides (causal alignment, window) do not change its output or LSE";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    auto c = gen::batched_case<T>();
    const auto& s = c.p.shape;
    const std::size_t b = gen::size_in(0, s.batch - 1), h = gen::size_in(0, s.heads - 1), i = gen::size_in(0, s.n - 1);
    const auto vis = c.p.mask.visible(i, s.n, s.m);
    RC_PRE(vis.size() < s.m);  // something is hidden
    const auto before = c.run(ks);
    const auto md = bounds::model_of<T>();
    const auto ex = bounds::attention_row_allowance(c.p, c.q, c.k, c.v, b, h, i, blocks_of(ks, c.tiling), md);
    auto hidden = c;
    const std::size_t g = s.kv_head(h);
    const double big = 20 / std::max(c.p.scale, 1e-3);
    for (std::size_t j = 0; j < s.m; ++j) {
      if (j >= vis.first && j < vis.last) continue;
      real qq = 0;
      for (std::size_t t = 0; t < s.d; ++t) qq += std::pow(static_cast<real>(to_double(c.q[s.q_at(b, i, h) + t])), 2);
      for (std::size_t t = 0; t < s.d; ++t) {
        const double qt = to_double(c.q[s.q_at(b, i, h) + t]);
        hidden.k[s.k_at(b, j, g) + t] = lit<T>(qq > 0 ? std::clamp(qt * big / static_cast<double>(qq), -1e4, 1e4) : 0);
      }
      for (std::size_t col = 0; col < s.dv; ++col) hidden.v[s.v_at(b, j, g) + col] = lit<T>((col % 2 ? -1 : 1) * 512.0);
    }
    const auto after = hidden.run(ks);
    const T* o0 = before.o.data() + s.o_at(b, i, h);
    const T* o1 = after.o.data() + s.o_at(b, i, h);
    for (std::size_t col = 0; col < s.dv; ++col) {
      if (vis.empty()) {
        if (!follows_masked_policy(o1, s.dv, ks.attention_batched_masked)) {
          Report<T> r(id, where(hidden, b, h, i) + ": the row sees no key, and its output changed");
          with_inputs(r, hidden).line("output row: " + row_values(std::vector<T>(o1, o1 + s.dv)) + " (must be " +
                                      masked_policy_demand(ks.attention_batched_masked) + ")");
          if (ks.attention_batched_masked != MaskedPolicy::either) r.line("Policy: " + masked_policy_declared(ks.attention_batched_masked) + ".");
          r.raise();
        }
        break;
      }
      const double a = to_double(o0[col]), z = to_double(o1[col]);
      const long double diff = std::isfinite(a) && std::isfinite(z) ? std::abs(static_cast<long double>(a) - z) : std::numeric_limits<long double>::infinity();
      const real allowed = 2 * ex.o_allowance[col];
      observe(ratio(diff, allowed), "hidden keys");
      if (!(diff <= allowed) && !identical_bits(o0[col], o1[col])) {
        Report<T> r(id, where(hidden, b, h, i) + ", column " + std::to_string(col) + ": keys outside [" + std::to_string(vis.first) + ", " +
                            std::to_string(vis.last) + ") were changed");
        with_inputs(r, hidden).line("before: " + decimal(a) + ", after: " + decimal(z)).error(diff, allowed, "twice the derived allowance").raise();
      }
    }
    if (ks.attention_batched_lse && !vis.empty()) {
      const double a = before.lse[s.lse_at(b, h, i)], z = after.lse[s.lse_at(b, h, i)];
      const long double diff = std::isfinite(a) && std::isfinite(z) ? std::abs(static_cast<long double>(a) - z) : std::numeric_limits<long double>::infinity();
      if (!(diff <= 2 * ex.lse_allowance) && a != z) {
        Report<T> r(id, where(hidden, b, h, i) + ", LSE: keys outside [" + std::to_string(vis.first) + ", " + std::to_string(vis.last) + ") were changed");
        with_inputs(r, hidden).line("before: " + decimal(a) + ", after: " + decimal(z)).error(diff, 2 * ex.lse_allowance, "twice the derived allowance").raise();
      }
    }
  }
  static inline const bool registered = property::register_property<Attk003>();
};

// ---- ATTK-GQA-001: grouped heads = multi-head attention with each key/value head repeated ----------
// Query head h reads key/value head h / (H / H_kv); repeating each key/value head H / H_kv times
// (PyTorch's repeat_kv) gives a multi-head problem with the same exact output, so the two runs are
// within twice the allowance of each other.
struct Attk004 {
  static constexpr const char* id = "FALSIFY-ATTK-004";
  static constexpr const char* title = "grouped-query attention equals multi-head attention with each key/value head repeated H/H_kv times";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    const auto c = gen::batched_case<T>();
    const auto& s = c.p.shape;
    RC_PRE(s.kv_heads < s.heads);
    const auto mha = gen::repeated_kv_heads(c);
    const auto og = c.run(ks), om = mha.run(ks);
    const auto md = bounds::model_of<T>();
    each_row(c, [&](std::size_t b, std::size_t h, std::size_t i) {
      const auto ex = bounds::attention_row_allowance(c.p, c.q, c.k, c.v, b, h, i, blocks_of(ks, c.tiling), md);
      if (ex.keys.empty()) return;
      for (std::size_t col = 0; col < s.dv; ++col) {
        const T a = og.o[s.o_at(b, i, h) + col], z = om.o[s.o_at(b, i, h) + col];
        const long double diff = format_error(a, to_double(z));
        const real allowed = 2 * ex.o_allowance[col];
        observe(ratio(diff, allowed), "GQA vs MHA");
        if (!(diff <= allowed) && !identical_bits(a, z)) {
          Report<T> r(id, where(c, b, h, i) + ", column " + std::to_string(col) + ": head " + std::to_string(h) + " must read key/value head " +
                              std::to_string(s.kv_head(h)));
          with_inputs(r, c).line("grouped: " + decimal(to_double(a)) + ", repeated heads: " + decimal(to_double(z)))
              .error(diff, allowed, "twice the derived allowance").raise();
        }
      }
    });
  }
  static inline const bool registered = property::register_property<Attk004>();
};

// ---- ATTK-EQV-001: the tiled algorithm computes the plain one ----------------------------------------
// In exact arithmetic the online softmax over any tiling gives the plain row (proofs/attention_kernel.tex,
// Lemma "online softmax"); in floating point each is within its own allowance of the exact row, so
// they differ by at most the sum. A single tile covering the row is the plain algorithm, bit for bit.
struct Attk005 {
  static constexpr const char* id = "FALSIFY-ATTK-005";
  static constexpr const char* title = "the tiled online-softmax attention agrees with the plain one within the sum of their allowances (bit for bit with one tile)";
  template <class T>
  static void check(const KernelSet<T>& ks) {
    auto c = gen::batched_case<T>();
    RC_PRE(c.tiling.bc != 0);
    const auto& s = c.p.shape;
    const auto plain = c.run(ks, {}), tiled = c.run(ks, c.tiling), whole = c.run(ks, {s.n, std::max<std::size_t>(s.m, 1)});
    const auto md = bounds::model_of<T>();
    each_row(c, [&](std::size_t b, std::size_t h, std::size_t i) {
      const auto ep = bounds::attention_row_allowance(c.p, c.q, c.k, c.v, b, h, i, blocks_of(ks, {}), md);
      const auto et = bounds::attention_row_allowance(c.p, c.q, c.k, c.v, b, h, i, blocks_of(ks, c.tiling), md);
      for (std::size_t col = 0; col < s.dv; ++col) {
        const std::size_t e = s.o_at(b, i, h) + col;
        if (!identical_bits(plain.o[e], whole.o[e])) {
          Report<T> r(id, where(c, b, h, i) + ", column " + std::to_string(col) + ": one tile of the whole row");
          with_inputs(r, c).line("plain: " + bits_of(plain.o[e]) + ", one tile: " + bits_of(whole.o[e]) + " (must be the same bits)").raise();
        }
        if (ep.keys.empty()) continue;
        const long double diff = format_error(tiled.o[e], to_double(plain.o[e]));
        const real allowed = ep.o_allowance[col] + et.o_allowance[col];
        observe(ratio(diff, allowed), "tiled vs plain");
        if (!(diff <= allowed) && !identical_bits(tiled.o[e], plain.o[e])) {
          Report<T> r(id, where(c, b, h, i) + ", column " + std::to_string(col));
          with_inputs(r, c).line("plain: " + decimal(to_double(plain.o[e])) + ", tiled: " + decimal(to_double(tiled.o[e])))
              .exact(ep.o[col]).error(diff, allowed, "the sum of the two derived allowances").raise();
        }
      }
    });
  }
  static inline const bool registered = property::register_property<Attk005>();
};

}  // namespace
}  // namespace attncheck::falsify
