// attncheck audit: what the audit's own obligations (AUDIT-*: properties_safety.cpp,
// properties_masked.cpp, properties_at_size.cpp) share: the draws of every kind's inputs, the calls
// that run them and the report helpers. Templates only, instantiated by those files.
#pragma once

#include "attncheck/audit/properties_obligations.hpp"
#include "attncheck/audit/attention_at_size.hpp"
#include "attncheck/audit/attention_backward_at_size.hpp"
#include "attncheck/audit/attention_backward_drift.hpp"
#include "attncheck/audit/attention_paged_at_size.hpp"

#include <cmath>
#include <limits>

#include "attncheck/bounds/attention_output.hpp"
#include "attncheck/bounds/scores.hpp"
#include "attncheck/bounds/softmax.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/property/gen/attention_backward.hpp"
#include "attncheck/property/gen/attention_batched.hpp"
#include "attncheck/property/gen/attention_fp8kv.hpp"
#include "attncheck/property/gen/attention_merge.hpp"
#include "attncheck/property/gen/attention_paged.hpp"
#include "attncheck/property/gen/gains.hpp"
#include "attncheck/property/property.hpp"
namespace attncheck::audit::obligations {

using property::draw_row;
using property::draw_vector;
using property::Report;
using property::follows_masked_policy;
using oracle::real;

template <class T>
bool is_nan(T v) { const double d = to_double(v); return d != d; }

template <class T>
std::string what(Kind k) { return std::string(kind_name(k)) + "<" + std::string(format_of<T>.name) + ">"; }

template <class T>
bool same_bits(const std::vector<T>& a, const std::vector<T>& b) {
  for (std::size_t i = 0; i < a.size(); ++i)
    if (scalar_traits<T>::bits(a[i]) != scalar_traits<T>::bits(b[i])) return false;
  return true;
}

// A small attention problem of ABI version 2 (property/gen/attention_batched.hpp: B, H, H_kv,
// n != m, scale, both alignments, window, soft-cap, ALiBi), for the obligations every kind has
// (AUDIT-SAFE-001, -DET-001, -NAN-001). With unmasked, only the shape and scale vary and every
// row sees every key.
template <class T>
gen::BatchedCase<T> draw_batched(bool unmasked = false) {
  gen::BatchedLimits lim{.max_batch = 2, .max_heads = 6, .max_n = 5, .max_m = 5, .max_d = 8, .max_dv = 8};
  lim.masks = !unmasked;
  return gen::batched_case<T>(lim, false);
}

// A merge of split-KV partial results (attention_merge) for the obligations every kind has: splits
// 1..8, rows 1..4, dv 1..16, o_parts of magnitude at most 4, partial LSEs of magnitude at most 15
// of which about one in six is -inf (a split that saw no key of that row; its o_parts row is then
// 0, as abi.h says).
template <class T>
struct MergeCase {
  std::size_t splits = 0, rows = 0, dv = 0;
  std::vector<T> o_parts;
  std::vector<lse_t<T>> lse_parts;
  std::string shape() const {
    return "splits = " + std::to_string(splits) + ", rows = " + std::to_string(rows) + ", dv = " + std::to_string(dv);
  }
  // The kernel's o; its LSE into *lse when lse is not null (rows elements).
  std::vector<T> run(const KernelSet<T>& ks, std::vector<lse_t<T>>* lse = nullptr) const {
    std::vector<T> o(rows * dv);
    if (lse) lse->assign(rows, lse_t<T>(0));
    ks.attention_merge(splits, rows, dv, o_parts.data(), lse_parts.data(), o.data(), lse ? lse->data() : nullptr);
    return o;
  }
};

template <class T>
MergeCase<T> draw_merge() {
  MergeCase<T> c;
  c.splits = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  c.rows = static_cast<std::size_t>(*rc::gen::inRange(1, 5));
  c.dv = static_cast<std::size_t>(*rc::gen::inRange(1, 17));
  c.o_parts = draw_vector<T>(c.splits * c.rows * c.dv, 4);
  c.lse_parts = gen::moderate_vector<lse_t<T>>(c.splits * c.rows, 15);
  for (std::size_t i = 0; i < c.lse_parts.size(); ++i)
    if (*rc::gen::inRange(0, 6) == 0) {
      c.lse_parts[i] = -std::numeric_limits<lse_t<T>>::infinity();
      std::fill_n(c.o_parts.begin() + static_cast<std::ptrdiff_t>(i * c.dv), c.dv, T(0));  // i = s·rows + r
    }
  return c;
}

// The partial LSEs as T for a report (Report<T> shows rows of T; exact for f32 and f64, rounded
// to the storage format for 16-bit: the report's bits of lse_parts are then T's).
template <class T>
std::vector<T> lse_as_t(const std::vector<lse_t<T>>& l) {
  std::vector<T> v;
  for (const auto& x : l) v.push_back(T(static_cast<double>(x)));
  return v;
}

// A packed variable-length batch (attention_varlen) for the obligations every kind has: the problem
// of draw_batched<T>() (heads, scale, mask, alignment, window, soft-cap, ALiBi; with unmasked,
// only the shape and scale) as every sequence's, B 1..3 sequences of n_b 0..5 queries and m_b 0..6
// keys drawn independently (so sequences without queries or keys, and rows that see no key, occur),
// p.shape.n and .m the largest n_b and m_b; q, k, v packed, of magnitude about 2.
template <class T>
struct VarlenCase {
  kernels::AttentionProblem p;
  kernels::Packing pk;
  std::vector<T> q, k, v;
  std::string shape() const { return p.describe() + "; " + pk.describe(); }
  std::size_t o_size() const { return pk.total_q() * p.shape.heads * p.shape.dv; }
  std::size_t lse_size() const { return pk.total_q() * p.shape.heads; }
  // The kernel's o; its LSE (H × total_q) into *lse when lse is not null.
  std::vector<T> run(const KernelSet<T>& ks, std::vector<lse_t<T>>* lse = nullptr) const {
    std::vector<T> o(o_size());
    if (lse) lse->assign(lse_size(), lse_t<T>(0));
    ks.attention_varlen(p, pk, {}, q.data(), k.data(), v.data(), o.data(), lse ? lse->data() : nullptr);
    return o;
  }
};

template <class T>
VarlenCase<T> draw_varlen(bool unmasked = false) {
  VarlenCase<T> c;
  c.p = draw_batched<T>(unmasked).p;
  const std::size_t B = *rc::gen::inRange<std::size_t>(1, 4);
  c.pk.cu_q = {0};
  c.pk.cu_k = {0};
  std::size_t max_n = 0, max_m = 0;
  for (std::size_t b = 0; b < B; ++b) {
    const std::size_t n = *rc::gen::inRange<std::size_t>(0, 6), m = *rc::gen::inRange<std::size_t>(0, 7);
    c.pk.cu_q.push_back(c.pk.cu_q.back() + static_cast<std::int32_t>(n));
    c.pk.cu_k.push_back(c.pk.cu_k.back() + static_cast<std::int32_t>(m));
    max_n = std::max(max_n, n), max_m = std::max(max_m, m);
  }
  auto& sh = c.p.shape;
  sh.batch = B, sh.n = max_n, sh.m = max_m;
  c.q = draw_vector<T>(c.pk.total_q() * sh.heads * sh.d, 2);
  c.k = draw_vector<T>(c.pk.total_k() * sh.kv_heads * sh.d, 2);
  c.v = draw_vector<T>(c.pk.total_k() * sh.kv_heads * sh.dv, 2);
  return c;
}

// The same batch over a paged KV cache (attention_paged): its keys and values scattered over the
// pages of a cache as the contract's generator places them (property/gen/attention_paged.hpp:
// pages of 1, 2, 3, 4, 8 or 16 tokens shuffled together, a wider table, unused pages), the slots no
// sequence owns holding finite stale values (NaN there is FALSIFY-PAGED-003's subject, not these
// obligations').
template <class T>
gen::PagedCase<T> paged_from(const VarlenCase<T>& c) {
  gen::PagedCase<T> pc;
  pc.vc.c.p = c.p;
  pc.vc.pk = c.pk;
  pc.vc.q = c.q, pc.vc.k = c.k, pc.vc.v = c.v;
  pc.at = gen::draw_placement(pc.vc, gen::Stale::finite);
  pc.fill();
  return pc;
}

// The kernel's o of a paged case; its LSE (H × total_q) into *lse when lse is not null.
template <class T>
std::vector<T> run_paged(const gen::PagedCase<T>& pc, const KernelSet<T>& ks, std::vector<lse_t<T>>* lse = nullptr) {
  const auto& sh = pc.vc.c.p.shape;
  std::vector<T> o(pc.vc.pk.total_q() * sh.heads * sh.dv);
  if (lse) lse->assign(pc.vc.pk.total_q() * sh.heads, lse_t<T>(0));
  ks.attention_paged(pc.vc.c.p, pc.vc.pk.cu_q, pc.pt, {}, pc.vc.q.data(), pc.k_cache.data(), pc.v_cache.data(), o.data(),
                     lse ? lse->data() : nullptr);
  return o;
}

template <class T>
std::string paged_shape(const gen::PagedCase<T>& pc) {
  return pc.vc.c.p.describe() + "; " + pc.vc.pk.describe() + "; " + pc.pt.describe();
}

// An FP8 KV cache (attention_fp8kv) for the obligations every kind has: draw_batched's problem
// (with unmasked, every row sees every key) with its keys and values written to codes as the
// contract's generator writes them (gen::fp8_case_of: E4M3FN or E5M2, per-tensor or per-head
// scales, a saturating writer: every code is finite).
template <class T>
gen::Fp8Case<T> draw_fp8kv(bool unmasked = false) {
  return gen::fp8_case_of(draw_batched<T>(unmasked));
}

// The kernel's o of an FP8 case; its LSE into *lse when lse is not null (asked: a kernel declared
// without the LSE is given NULL by the audited slot).
template <class T>
std::vector<T> run_fp8kv(const gen::Fp8Case<T>& fc, const KernelSet<T>& ks, std::vector<lse_t<T>>* lse = nullptr) {
  const auto& sh = fc.c.p.shape;
  std::vector<T> o(sh.o_size());
  if (lse) lse->assign(sh.lse_size(), lse_t<T>(0));
  ks.attention_fp8kv(fc.c.p, fc.spec, fc.sc, {}, fc.c.q.data(), fc.k8.data(), fc.v8.data(), o.data(), lse ? lse->data() : nullptr);
  return o;
}

// An FP8 code row for a report line.
inline std::string code_row(const std::vector<std::uint8_t>& c) { return gen::codes_text(c); }

template <class T>
std::vector<std::string> fp8_lines(const gen::Fp8Case<T>& fc) {
  return {"k codes: " + code_row(fc.k8), "v codes: " + code_row(fc.v8)};
}

// The cache write (kv_quantize): a row of the contract's generator (gen::fp8_write_case: a drawn
// format, overflow rule and scale; in range, or with values beyond the range and special values).
template <class T>
std::vector<std::uint8_t> run_write(const gen::Fp8WriteCase<T>& wc, const KernelSet<T>& ks) {
  std::vector<std::uint8_t> codes(wc.x.size(), 0);
  ks.fp8_quantize(wc.spec, wc.x.data(), wc.x.size(), wc.scale, codes.data());
  return codes;
}

// One random call of kind k: the inputs (for the report) and the output.
template <class T>
struct Drawn {
  std::vector<std::pair<std::string, std::vector<T>>> inputs;
  std::string shape;
  std::vector<T> out;
  std::vector<std::string> lines;  // inputs that are not of T (FP8 codes), as report lines
};

// Draws an input for kind k and returns a function that calls the kernel on it.
template <class T>
std::pair<Drawn<T>, std::function<std::vector<T>()>> draw_call(Kind k, const KernelSet<T>& ks) {
  Drawn<T> d;
  const auto sz = [](int lo, int hi) { return static_cast<std::size_t>(*rc::gen::inRange(lo, hi + 1)); };
  switch (k) {
    case Kind::softmax:
    case Kind::log_softmax: {
      auto x = draw_row<T>(512);
      d.inputs = {{"x", x}};
      d.shape = "n = " + std::to_string(x.size());
      const auto& f = k == Kind::softmax ? ks.softmax : ks.log_softmax;
      return {d, [x, &f] { std::vector<T> y(x.size()); f(x.data(), y.data(), x.size()); return y; }};
    }
    case Kind::scores: {
      const std::size_t n = sz(1, 8), m = sz(1, 8), dd = sz(1, 64);
      auto q = draw_vector<T>(n * dd, 4), kk = draw_vector<T>(m * dd, 4);
      d.inputs = {{"q", q}, {"k", kk}};
      d.shape = "n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(dd);
      return {d, [=, &ks] { std::vector<T> s(n * m); ks.scores(q.data(), kk.data(), n, m, dd, s.data()); return s; }};
    }
    case Kind::rmsnorm: {
      const std::size_t dd = sz(1, 128);
      // Gains up to 1e4 (f16: as large as keeps √d·|w| finite): a gain multiplies the underflow
      // error of a subnormal x_i/r (proofs/bounds/rmsnorm.md), which gains of at most 4 hid.
      auto x = draw_vector<T>(dd, 100), w = gen::draw_gains<T>(dd);
      const T eps = T(*rc::gen::element(0.0, 1e-6, 1e-5));
      d.inputs = {{"x", x}, {"w", w}};
      d.shape = "d = " + std::to_string(dd) + ", eps = " + decimal(to_double(eps));
      return {d, [=, &ks] { std::vector<T> y(dd); ks.rmsnorm(x.data(), w.data(), dd, eps, y.data()); return y; }};
    }
    case Kind::entropy: {
      // A probability row: the reference softmax of a random row (zeros included where it underflows).
      const auto x = draw_row<T>(512);
      std::vector<T> p(x.size());
      kernels::softmax(x.data(), p.data(), x.size());
      d.inputs = {{"p", p}};
      d.shape = "n = " + std::to_string(p.size());
      return {d, [p, &ks] { return std::vector<T>{ks.entropy(p.data(), p.size())}; }};
    }
    case Kind::attention: {
      const std::size_t n = sz(1, 6), m = sz(1, 6), dd = sz(1, 16), dv = sz(1, 16);
      const bool causal = *rc::gen::arbitrary<bool>();
      auto q = draw_vector<T>(n * dd, 2), kk = draw_vector<T>(m * dd, 2), v = draw_vector<T>(m * dv, 8);
      d.inputs = {{"q", q}, {"k", kk}, {"v", v}};
      d.shape = "n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(dd) + ", dv = " +
                std::to_string(dv) + (causal ? ", causal" : "");
      return {d, [=, &ks] {
                std::vector<T> o(n * dv);
                ks.attention(q.data(), kk.data(), v.data(), n, m, dd, dv, causal, o.data());
                return o;
              }};
    }
    case Kind::softmax_jvp: {
      auto [x, dx] = property::draw_row_and_direction<T>();
      d.inputs = {{"x", x}, {"dx", dx}};
      d.shape = "n = " + std::to_string(x.size());
      return {d, [x, dx, &ks] { std::vector<T> dy(x.size()); ks.softmax_jvp(x.data(), dx.data(), x.size(), dy.data()); return dy; }};
    }
    case Kind::attention_v2: {  // the output O (the LSE is asked when the kernel returns one, so its bounds are checked)
      auto c = draw_batched<T>();
      d.inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
      d.shape = c.p.describe();
      return {d, [c, &ks] {
                std::vector<T> o(c.p.shape.o_size());
                std::vector<lse_t<T>> l(ks.attention_batched_lse ? c.p.shape.lse_size() : 0);
                ks.attention_batched(c.p, {}, c.q.data(), c.k.data(), c.v.data(), o.data(), l.empty() ? nullptr : l.data());
                return o;
              }};
    }
    case Kind::attention_merge: {  // o (the LSE is asked too, so a stray write past it is seen)
      const auto c = draw_merge<T>();
      d.inputs = {{"o_parts", c.o_parts}, {"lse_parts", lse_as_t<T>(c.lse_parts)}};
      d.shape = c.shape();
      return {d, [c, &ks] {
                std::vector<lse_t<T>> l;
                return c.run(ks, &l);
              }};
    }
    case Kind::attention_varlen: {  // o (the LSE is asked too, so a stray write past it is seen; NULL when declared none)
      const auto c = draw_varlen<T>();
      d.inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
      d.shape = c.shape();
      return {d, [c, &ks] {
                std::vector<lse_t<T>> l;
                return c.run(ks, &l);
              }};
    }
    case Kind::attention_paged: {  // o, as attention_varlen's (the LSE asked too), the keys read through a block table
      const auto pc = paged_from(draw_varlen<T>());
      d.inputs = {{"q", pc.vc.q}, {"k_cache", pc.k_cache}, {"v_cache", pc.v_cache}};
      d.shape = paged_shape(pc);
      return {d, [pc, &ks] {
                std::vector<lse_t<T>> l;
                return run_paged(pc, ks, &l);
              }};
    }
    case Kind::attention_fp8kv: {  // o, as attention_v2's (the LSE asked too), over the dequantized codes
      const auto fc = draw_fp8kv<T>();
      d.inputs = {{"q", fc.c.q}};
      d.lines = fp8_lines(fc);
      d.shape = fc.describe();
      return {d, [fc, &ks] {
                std::vector<lse_t<T>> l;
                return run_fp8kv(fc, ks, &l);
              }};
    }
    case Kind::kv_quantize: break;  // its output is codes, not T: safe() and deterministic() draw it themselves
    case Kind::attention_backward: {  // dQ, dK, dV in turn
      const auto bc = gen::backward_case(draw_batched<T>());
      d.inputs = {{"q", bc.c.q}, {"k", bc.c.k}, {"v", bc.c.v}, {"o", bc.o}, {"dO", bc.dout}};
      d.shape = bc.c.p.describe();
      return {d, [bc, &ks] {
                const auto g = bc.run(ks);
                std::vector<T> out(g.dq);
                out.insert(out.end(), g.dk.begin(), g.dk.end());
                out.insert(out.end(), g.dv.begin(), g.dv.end());
                return out;
              }};
    }
  }
  throw std::logic_error("unknown kind");
}

template <class T>
Report<T>& with_inputs(Report<T>& r, const Drawn<T>& d) {
  r.line("Shape: " + d.shape);
  for (const auto& [name, v] : d.inputs) r.input(name, v);
  for (const auto& l : d.lines) r.line(l);
  return r;
}

// Attention problems (property/gen/attention.hpp): shapes small enough to shrink to a readable
// counterexample.
using gen::AttentionCase;
template <class T>
AttentionCase<T> draw_attention(std::size_t min_m = 1) {
  return gen::attention_case<T>({.min_m = min_m});
}

}  // namespace attncheck::audit::obligations
