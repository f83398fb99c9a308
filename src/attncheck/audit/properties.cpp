// attncheck audit: the audit's own obligations (AUDIT-*), stated with the same generators,
// oracle and derived bounds as the contracts' properties.
#include "attncheck/audit/properties.hpp"
#include "attncheck/audit/attention_at_size.hpp"
#include "attncheck/audit/attention_backward_at_size.hpp"
#include "attncheck/audit/attention_backward_drift.hpp"
#include "attncheck/audit/attention_paged_at_size.hpp"
#include "attncheck/audit/rounding_bias.hpp"

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

namespace attncheck::audit {

namespace {

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

// AUDIT-SAFE-001: the call itself; the KernelSet wrapper judges time, bounds and inputs.
template <class T>
void safe(Kind k, const KernelSet<T>& ks, const Policy&) {
  if (k == Kind::kv_quantize) {  // a row in range, or with overflow and special values
    run_write(gen::fp8_write_case<T>(*rc::gen::arbitrary<bool>()), ks);
    return;
  }
  auto [d, run] = draw_call(k, ks);
  run();
}

// AUDIT-DET-001: two calls on the same input give the same bits.
template <class T>
void deterministic(Kind k, const KernelSet<T>& ks, const Policy&) {
  if (k == Kind::kv_quantize) {
    const auto wc = gen::fp8_write_case<T>(*rc::gen::arbitrary<bool>());
    const auto a = run_write(wc, ks), b = run_write(wc, ks);
    if (a != b)
      Report<T>("AUDIT-DET-001", what<T>(k) + " gave different codes on the same input, " + wc.describe())
          .input("x", wc.x)
          .line("First codes:  " + code_row(a))
          .line("Second codes: " + code_row(b))
          .raise();
    return;
  }
  auto [d, run] = draw_call(k, ks);
  const auto a = run(), b = run();
  if (!same_bits(a, b)) {
    Report<T> r("AUDIT-DET-001", what<T>(k) + " gave different bits on the same input");
    with_inputs(r, d).input("First output", a).input("Second output", b).raise();
  }
}

// Attention problems (property/gen/attention.hpp): shapes small enough to shrink to a readable
// counterexample.
using gen::AttentionCase;
template <class T>
AttentionCase<T> draw_attention(std::size_t min_m = 1) {
  return gen::attention_case<T>({.min_m = min_m});
}

// AUDIT-NAN-001: a NaN in the input reaches every output that depends on it, so no NaN input
// comes back as a valid answer. softmax, log_softmax, rmsnorm, entropy, softmax_jvp: every output
// depends on every input (through the row's sum or mean). scores: a NaN in q_i reaches row i.
// attention (not causal): a NaN in k_j reaches every score column j, hence every output.
template <class T>
void nan_propagates(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  const T nan = T(std::numeric_limits<double>::quiet_NaN());
  const auto nan_at = [&](std::vector<T>& v) {
    const std::size_t at = *rc::gen::inRange<std::size_t>(0, v.size());
    v[at] = nan;
    return at;
  };
  std::vector<std::pair<std::string, std::vector<T>>> inputs;
  std::vector<T> y;
  std::vector<std::size_t> must;  // indices of y that must be NaN
  std::string why;
  std::vector<std::string> notes;  // inputs that are not of T (FP8 codes), as report lines
  switch (k) {
    case Kind::softmax:
    case Kind::log_softmax: {
      auto x = draw_row<T>(64);
      why = "x[" + std::to_string(nan_at(x)) + "] is NaN";
      y.resize(x.size());
      (k == Kind::softmax ? ks.softmax : ks.log_softmax)(x.data(), y.data(), x.size());
      inputs = {{"x", x}};
      break;
    }
    case Kind::rmsnorm: {
      auto x = draw_vector<T>(static_cast<std::size_t>(*rc::gen::inRange(1, 65)), 100);
      const auto w = draw_vector<T>(x.size(), 4);
      why = "x[" + std::to_string(nan_at(x)) + "] is NaN";
      y.resize(x.size());
      ks.rmsnorm(x.data(), w.data(), x.size(), T(1e-5), y.data());
      inputs = {{"x", x}, {"w", w}};
      break;
    }
    case Kind::entropy: {
      const auto x = draw_row<T>(64);
      std::vector<T> p(x.size());
      kernels::softmax(x.data(), p.data(), x.size());
      why = "p[" + std::to_string(nan_at(p)) + "] is NaN";
      y = {ks.entropy(p.data(), p.size())};
      inputs = {{"p", p}};
      break;
    }
    case Kind::softmax_jvp: {
      auto [x, dx] = property::draw_row_and_direction<T>();
      const bool in_x = *rc::gen::arbitrary<bool>();
      why = (in_x ? "x[" + std::to_string(nan_at(x)) : "dx[" + std::to_string(nan_at(dx))) + "] is NaN";
      y.resize(x.size());
      ks.softmax_jvp(x.data(), dx.data(), x.size(), y.data());
      inputs = {{"x", x}, {"dx", dx}};
      break;
    }
    case Kind::scores: {
      const std::size_t n = *rc::gen::inRange<std::size_t>(1, 5), m = *rc::gen::inRange<std::size_t>(1, 5),
                        d = *rc::gen::inRange<std::size_t>(1, 9);
      auto q = draw_vector<T>(n * d, 4);
      const auto kk = draw_vector<T>(m * d, 4);
      const std::size_t at = nan_at(q), i = at / d;
      why = "q[" + std::to_string(i) + "][" + std::to_string(at % d) + "] is NaN (n = " + std::to_string(n) + ", m = " +
            std::to_string(m) + ", d = " + std::to_string(d) + ")";
      y.resize(n * m);
      ks.scores(q.data(), kk.data(), n, m, d, y.data());
      for (std::size_t j = 0; j < m; ++j) must.push_back(i * m + j);
      inputs = {{"q", q}, {"k", kk}};
      break;
    }
    case Kind::attention: {
      auto c = draw_attention<T>();
      const std::size_t at = nan_at(c.k);
      why = "k[" + std::to_string(at / c.d) + "][" + std::to_string(at % c.d) + "] is NaN, not causal (" + c.shape() + ")";
      y = c.run(ks, false);
      inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
      break;
    }
    case Kind::attention_v2: {  // unmasked: a NaN in q[b,i,h,:] reaches every output of row (b,i,h), and its LSE
      auto c = draw_batched<T>(true);
      const auto& sh = c.p.shape;
      const std::size_t at = nan_at(c.q), row = at / sh.d, h = row % sh.heads, i = row / sh.heads % sh.n, b = row / sh.heads / sh.n;
      why = "q[" + std::to_string(b) + "][" + std::to_string(i) + "][" + std::to_string(h) + "][" + std::to_string(at % sh.d) +
            "] is NaN (" + c.p.describe() + ")";
      y.resize(sh.o_size());
      std::vector<lse_t<T>> l(ks.attention_batched_lse ? sh.lse_size() : 0);
      ks.attention_batched(c.p, {}, c.q.data(), c.k.data(), c.v.data(), y.data(), l.empty() ? nullptr : l.data());
      for (std::size_t e = 0; e < sh.dv; ++e) must.push_back(sh.o_at(b, i, h) + e);
      inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
      if (!l.empty() && !std::isnan(l[sh.lse_at(b, h, i)])) {
        Report<T> r("AUDIT-NAN-001", what<T>(k) + ", lse[" + std::to_string(b) + "][" + std::to_string(h) + "][" + std::to_string(i) + "]");
        for (const auto& [name, v] : inputs) r.input(name, v);
        r.line(why + ": expected NaN in the row's LSE, got " + decimal(static_cast<double>(l[sh.lse_at(b, h, i)])) + ".").raise();
      }
      break;
    }
    case Kind::attention_backward: break;  // below
    case Kind::kv_quantize: {
      // The write of a NaN gives a NaN code (E4M3FN S.1111.111, E5M2 S.11111.xx with xx != 0),
      // whatever the overflow rule: saturation clamps overflow, never NaN.
      auto wc = gen::fp8_write_case<T>(false);
      const std::size_t at = nan_at(wc.x);
      const auto codes = run_write(wc, ks);
      if (!std::isnan(kernels::fp8_decode(wc.spec.format, codes[at])))
        Report<T>("AUDIT-NAN-001", what<T>(k) + ", code " + std::to_string(at) + " of " + std::to_string(codes.size()) + ", " + wc.describe())
            .input("x", wc.x)
            .line("Codes: " + code_row(codes))
            .line("x[" + std::to_string(at) + "] is NaN and its code " + code_row({codes[at]}) + " decodes to " +
                  decimal(kernels::fp8_decode(wc.spec.format, codes[at])) + " (" + wc.spec.describe() +
                  "): expected a NaN code (" + (wc.spec.format == kernels::Fp8Format::e4m3fn ? "0x7f or 0xff" : "0x7d..0x7f or 0xfd..0xff") +
                  ").")
            .raise();
      return;
    }
    case Kind::attention_fp8kv: {
      // Unmasked, so every row (b, i, h) whose head reads key/value head g sees every key of batch
      // b: a NaN code (E4M3FN 0x7f, E5M2 0x7e, either sign) in k[b][j][g][:] reaches every output
      // of those rows and their LSE; one in v[b][j][g][c] reaches column c of those rows whose
      // weight of key j is at least 2^-10 (a kernel may skip a key whose weight underflows).
      auto fc = draw_fp8kv<T>(true);
      const auto& sh = fc.c.p.shape;
      const std::uint8_t code =
          static_cast<std::uint8_t>((fc.spec.format == kernels::Fp8Format::e4m3fn ? 0x7f : 0x7e) | (*rc::gen::arbitrary<bool>() ? 0x80 : 0));
      const std::size_t b = *rc::gen::inRange<std::size_t>(0, sh.batch), j = *rc::gen::inRange<std::size_t>(0, sh.m),
                        g = *rc::gen::inRange<std::size_t>(0, sh.kv_heads);
      const bool in_k = *rc::gen::arbitrary<bool>();
      const std::size_t e = *rc::gen::inRange<std::size_t>(0, in_k ? sh.d : sh.dv);
      (in_k ? fc.k8[sh.k_at(b, j, g) + e] : fc.v8[sh.v_at(b, j, g) + e]) = code;
      char hex[8];
      std::snprintf(hex, sizeof hex, "0x%02x", code);
      why = std::string(in_k ? "k" : "v") + "[" + std::to_string(b) + "][" + std::to_string(j) + "][" + std::to_string(g) + "][" +
            std::to_string(e) + "] is the NaN code " + hex + " (" + fc.describe() + ")";
      std::vector<lse_t<T>> l;
      y = run_fp8kv(fc, ks, pol.returns_lse ? &l : nullptr);
      inputs = {{"q", fc.c.q}};
      notes = fp8_lines(fc);
      for (std::size_t h = 0; h < sh.heads; ++h) {
        if (sh.kv_head(h) != g) continue;
        for (std::size_t i = 0; i < sh.n; ++i) {
          if (in_k) {
            for (std::size_t c = 0; c < sh.dv; ++c) must.push_back(sh.o_at(b, i, h) + c);
            if (!l.empty() && !std::isnan(static_cast<double>(l[sh.lse_at(b, h, i)]))) {
              Report<T> rep("AUDIT-NAN-001", what<T>(k) + ", lse[" + std::to_string(b) + "][" + std::to_string(h) + "][" + std::to_string(i) + "]");
              rep.input("q", fc.c.q);
              for (const auto& line : notes) rep.line(line);
              rep.line(why + ": expected NaN in the row's LSE, got " + decimal(static_cast<double>(l[sh.lse_at(b, h, i)])) + ".").raise();
            }
            continue;
          }
          // The weight of key j in row (b, i, h), from the dequantized keys in double (no mask,
          // soft-cap or ALiBi in an unmasked case).
          std::vector<double> sc(sh.m);
          double top = -std::numeric_limits<double>::infinity();
          for (std::size_t jj = 0; jj < sh.m; ++jj) {
            double dot = 0;
            for (std::size_t t = 0; t < sh.d; ++t) dot += to_double(fc.c.q[sh.q_at(b, i, h) + t]) * fc.kx[sh.k_at(b, jj, g) + t];
            sc[jj] = fc.c.p.scale * dot;
            top = std::max(top, sc[jj]);
          }
          double z = 0;
          for (double x : sc) z += std::exp(x - top);
          if (std::exp(sc[j] - top) / z >= 0x1p-10) must.push_back(sh.o_at(b, i, h) + e);
        }
      }
      RC_PRE(!must.empty());  // every row's weight of key j underflows: nothing a NaN value must reach
      break;
    }
    case Kind::attention_merge: {
      // A NaN partial LSE l[s][r] reaches every o[r][c] and lse[r] (through the row's max or sum).
      // A NaN in o_parts[s][r][c] of a split with a key reaches o[r][c] when its weight is at least
      // 2^-10 (a kernel may skip a split whose weight underflows: 0 · NaN is never computed then);
      // a split whose LSE is -inf has weight exactly 0, and its O is not read.
      auto c = draw_merge<T>();
      std::vector<std::size_t> lse_must;
      if (*rc::gen::arbitrary<bool>()) {
        const std::size_t at = *rc::gen::inRange<std::size_t>(0, c.lse_parts.size()), s = at / c.rows, r = at % c.rows;
        c.lse_parts[at] = std::numeric_limits<lse_t<T>>::quiet_NaN();
        why = "lse_parts[" + std::to_string(s) + "][" + std::to_string(r) + "] is NaN (" + c.shape() + ")";
        for (std::size_t e = 0; e < c.dv; ++e) must.push_back(r * c.dv + e);
        lse_must.push_back(r);
      } else {
        // A split with a key: its LSE finite and its weight at least 2^-10 (in double).
        std::vector<std::size_t> live;
        for (std::size_t i = 0; i < c.lse_parts.size(); ++i) {
          const std::size_t r = i % c.rows;
          double M = -std::numeric_limits<double>::infinity(), Z = 0;
          for (std::size_t s = 0; s < c.splits; ++s) M = std::max(M, static_cast<double>(c.lse_parts[s * c.rows + r]));
          for (std::size_t s = 0; s < c.splits; ++s) Z += std::exp(static_cast<double>(c.lse_parts[s * c.rows + r]) - M);
          if (std::isfinite(static_cast<double>(c.lse_parts[i])) && std::exp(static_cast<double>(c.lse_parts[i]) - M) / Z >= 0x1p-10) live.push_back(i);
        }
        RC_PRE(!live.empty());  // every split empty: nothing a NaN in O could reach
        const std::size_t i = *rc::gen::elementOf(live), col = *rc::gen::inRange<std::size_t>(0, c.dv), s = i / c.rows, r = i % c.rows;
        c.o_parts[i * c.dv + col] = nan;
        why = "o_parts[" + std::to_string(s) + "][" + std::to_string(r) + "][" + std::to_string(col) + "] is NaN (" + c.shape() + ")";
        must.push_back(r * c.dv + col);
      }
      std::vector<lse_t<T>> l;
      y = c.run(ks, pol.returns_lse ? &l : nullptr);
      inputs = {{"o_parts", c.o_parts}, {"lse_parts", lse_as_t<T>(c.lse_parts)}};
      for (std::size_t r : lse_must)
        if (!l.empty() && !std::isnan(static_cast<double>(l[r]))) {
          Report<T> rep("AUDIT-NAN-001", what<T>(k) + ", lse[" + std::to_string(r) + "]");
          for (const auto& [name, v] : inputs) rep.input(name, v);
          rep.line(why + ": expected NaN in the row's LSE, got " + decimal(static_cast<double>(l[r])) + ".").raise();
        }
      break;
    }
    case Kind::attention_varlen:
    case Kind::attention_paged: {
      // Unmasked, so every query of a sequence sees every key of it (and of no other): a NaN in
      // q[t][h][:] of a sequence with a key reaches every output of row (t, h) and its LSE; a NaN in
      // k[j][g][:] of sequence b reaches every output and LSE of every query of b whose head reads
      // g. A sequence without queries or keys has no row to reach. attention_paged: the same batch
      // with the NaN in place, then scattered over pages (the key's page slot holds the NaN).
      auto c = draw_varlen<T>(true);
      // A kernel declared without unmasked problems (--supports non_causal=no) is given a causal
      // mask of an alignment it declared, so that it is judged here too: a NaN then reaches the rows
      // that see its key (a row that sees none is the masked-row policy's, not demanded).
      if (declared_unsupported(k, "non_causal")) {
        c.p.mask.causal = true;
        const bool br = declared_unsupported(k, "top_left") || (!declared_unsupported(k, "bottom_right") && *rc::gen::arbitrary<bool>());
        c.p.mask.alignment = br ? kernels::Alignment::bottom_right : kernels::Alignment::top_left;
      }
      const auto& sh = c.p.shape;
      std::vector<std::size_t> live;  // sequences with a query and a key
      for (std::size_t b = 0; b < c.pk.sequences(); ++b)
        if (c.pk.n_of(b) > 0 && c.pk.m_of(b) > 0) live.push_back(b);
      RC_PRE(!live.empty());
      const std::size_t b = *rc::gen::elementOf(live);
      const std::size_t q0 = static_cast<std::size_t>(c.pk.cu_q[b]), k0 = static_cast<std::size_t>(c.pk.cu_k[b]);
      std::vector<std::pair<std::size_t, std::size_t>> rows;  // (token, head) whose outputs must be NaN
      std::size_t nan_key = c.pk.m_of(b);                      // the NaN key's index within its sequence (none: m_b)
      const auto sees = [&](std::size_t t, std::size_t j) { return c.p.mask.sees(t - q0, j, c.pk.n_of(b), c.pk.m_of(b)); };
      std::vector<std::size_t> seeing;  // the queries of b that see a key (all of them, unmasked)
      for (std::size_t t = q0; t < q0 + c.pk.n_of(b); ++t)
        if (!c.p.mask.visible(t - q0, c.pk.n_of(b), c.pk.m_of(b)).empty()) seeing.push_back(t);
      if (*rc::gen::arbitrary<bool>()) {
        RC_PRE(!seeing.empty());
        const std::size_t t = c.p.mask.causal ? *rc::gen::elementOf(seeing) : q0 + *rc::gen::inRange<std::size_t>(0, c.pk.n_of(b)),
                          h = *rc::gen::inRange<std::size_t>(0, sh.heads), e = *rc::gen::inRange<std::size_t>(0, sh.d);
        c.q[(t * sh.heads + h) * sh.d + e] = nan;
        why = "q[" + std::to_string(t) + "][" + std::to_string(h) + "][" + std::to_string(e) + "] is NaN (a query of sequence " +
              std::to_string(b) + "; " + c.shape() + ")";
        rows.emplace_back(t, h);
      } else {
        const std::size_t j = k0 + *rc::gen::inRange<std::size_t>(0, c.pk.m_of(b)), g = *rc::gen::inRange<std::size_t>(0, sh.kv_heads),
                          e = *rc::gen::inRange<std::size_t>(0, sh.d);
        c.k[(j * sh.kv_heads + g) * sh.d + e] = nan;
        nan_key = j - k0;
        why = "k[" + std::to_string(j) + "][" + std::to_string(g) + "][" + std::to_string(e) + "] is NaN (a key of sequence " +
              std::to_string(b) + "; " + c.shape() + ")";
        for (std::size_t t = q0; t < q0 + c.pk.n_of(b); ++t)
          for (std::size_t h = 0; h < sh.heads; ++h)
            if (sh.kv_head(h) == g && sees(t, j - k0)) rows.emplace_back(t, h);
        RC_PRE(!rows.empty());  // a key no row sees (masked) reaches nothing: no case (never unmasked)
      }
      std::vector<lse_t<T>> l;
      if (k == Kind::attention_paged) {
        const auto pc = paged_from(c);
        why += (nan_key < c.pk.m_of(b) ? "; that key is cache token " + std::to_string(pc.pt.token_at(b, nan_key)) : std::string()) + "; " +
               pc.pt.describe();
        y = run_paged(pc, ks, pol.returns_lse ? &l : nullptr);
        inputs = {{"q", pc.vc.q}, {"k_cache", pc.k_cache}, {"v_cache", pc.v_cache}};
      } else {
        y = c.run(ks, pol.returns_lse ? &l : nullptr);
        inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
      }
      for (const auto& [t, h] : rows) {
        for (std::size_t e = 0; e < sh.dv; ++e) must.push_back((t * sh.heads + h) * sh.dv + e);
        const std::size_t at = h * c.pk.total_q() + t;  // the LSE is H × total_q
        if (!l.empty() && !std::isnan(static_cast<double>(l[at]))) {
          Report<T> rep("AUDIT-NAN-001", what<T>(k) + ", lse[" + std::to_string(h) + "][" + std::to_string(t) + "]");
          for (const auto& [name, v] : inputs) rep.input(name, v);
          rep.line(why + ": expected NaN in the row's LSE, got " + decimal(static_cast<double>(l[at])) + ".").raise();
        }
      }
      break;
    }
  }
  if (k == Kind::attention_backward) {
    // Unmasked, no soft-cap: a NaN in dO[b,i,h,c] makes D_i NaN, hence every dS_ij of the row: all
    // of dQ[b,i,h,:] (the row's largest weight is about 1), and dK[b,j,g,:] and dV[b,j,g,c] of
    // every key j whose weight P_ij is at least 2^-10. A key whose weight underflows may be
    // skipped by a kernel (0 · NaN is never computed): no NaN is demanded there.
    auto c = draw_batched<T>(true);
    auto bc = gen::backward_case(c);
    const auto& sh = bc.c.p.shape;
    const std::size_t at = nan_at(bc.dout), col = at % sh.dv, row = at / sh.dv, h = row % sh.heads, i = row / sh.heads % sh.n,
                      b = row / sh.heads / sh.n, g = sh.kv_head(h);
    why = "dO[" + std::to_string(b) + "][" + std::to_string(i) + "][" + std::to_string(h) + "][" + std::to_string(col) + "] is NaN (" +
          bc.c.p.describe() + ")";
    const auto gr = bc.run(ks);
    y = gr.dq;
    y.insert(y.end(), gr.dk.begin(), gr.dk.end());
    y.insert(y.end(), gr.dv.begin(), gr.dv.end());
    for (std::size_t t = 0; t < sh.d; ++t) must.push_back(sh.q_at(b, i, h) + t);
    const auto rs = bounds::row_scores(bc.c.p, bc.c.q, bc.c.k, b, h, i, bounds::model_of<T>());
    const auto weights = oracle::softmax_row_exact(rs.s);
    for (std::size_t jj = 0; jj < rs.keys.size(); ++jj) {
      if (!(weights.p[jj] >= 0x1p-10L)) continue;
      const std::size_t j = rs.keys.first + jj;
      for (std::size_t t = 0; t < sh.d; ++t) must.push_back(sh.q_size() + sh.k_at(b, j, g) + t);
      must.push_back(sh.q_size() + sh.k_size() + sh.v_at(b, j, g) + col);
    }
    inputs = {{"q", bc.c.q}, {"k", bc.c.k}, {"v", bc.c.v}, {"o", bc.o}, {"dO", bc.dout}};
  }
  if (must.empty())
    for (std::size_t i = 0; i < y.size(); ++i) must.push_back(i);
  for (std::size_t i : must)
    if (!is_nan(y[i])) {
      Report<T> r("AUDIT-NAN-001", what<T>(k) + ", output " + std::to_string(i) + " of " + std::to_string(y.size()));
      for (const auto& [name, v] : inputs) r.input(name, v);
      for (const auto& line : notes) r.line(line);
      r.input("Output", y).line(why + " and output " + std::to_string(i) + " depends on it: expected NaN there.").raise();
    }
}

// AUDIT-MASK-001: a row of -inf has no softmax; the kernel's policy says what is accepted. For
// log_softmax the same policies read in log space: `zeros` is log 0 = -inf in every entry.
template <class T>
void fully_masked(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  const std::size_t n = static_cast<std::size_t>(*rc::gen::inRange(1, 65));
  const std::vector<T> x(n, T(-std::numeric_limits<double>::infinity()));
  std::vector<T> y(n);
  const bool log_space = k == Kind::log_softmax;
  (log_space ? ks.log_softmax : ks.softmax)(x.data(), y.data(), n);
  bool all_zero = true, all_nan = true;
  for (const T& v : y) {
    all_zero &= log_space ? to_double(v) == -std::numeric_limits<double>::infinity() : to_double(v) == 0.0;
    all_nan &= is_nan(v);
  }
  const bool ok = pol.masked == MaskedPolicy::zeros ? all_zero : pol.masked == MaskedPolicy::nan ? all_nan : (all_zero || all_nan);
  const std::string zeros = log_space ? "all -inf (log 0)" : "all zeros";
  if (!ok)
    Report<T>("AUDIT-MASK-001", what<T>(k) + " of a fully masked row of " + std::to_string(n))
        .input("Output", y)
        .line("Every input is -inf. Policy '" + std::string(masked_policy_name(pol.masked)) + "' accepts " +
              (pol.masked == MaskedPolicy::zeros ? zeros : pol.masked == MaskedPolicy::nan ? "all NaN" : zeros + " or all NaN") +
              " (--masked, or masked: in the bindings file).")
        .raise();
}

// Inserts `count` copies of v at random places of x; returns the new row.
template <class T>
std::vector<T> insert_copies(std::vector<T> x, std::size_t count, double v) {
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t at = *rc::gen::inRange<std::size_t>(0, x.size() + 1);
    x.insert(x.begin() + static_cast<std::ptrdiff_t>(at), T(v));
  }
  return x;
}

// AUDIT-MASK-002: -inf entries beside finite ones give exactly 0 (log_softmax: exactly -inf),
// and the finite entries are the softmax (log_softmax) of the finite sub-row within its derived
// bound: a masked entry contributes exp(-inf) = 0 to the sum, so the rest is that of the sub-row.
template <class T>
void partly_masked(Kind k, const KernelSet<T>& ks, const Policy&) {
  const auto finite = draw_row<T>(256);
  const std::size_t masks = static_cast<std::size_t>(*rc::gen::inRange(1, 9));
  const std::vector<T> x = insert_copies(finite, masks, -std::numeric_limits<double>::infinity());
  gen::cover_row("masked row", x, {.max_length = 256 + 8, .masked = true});
  const bool log_space = k == Kind::log_softmax;
  std::vector<T> y(x.size());
  (log_space ? ks.log_softmax : ks.softmax)(x.data(), y.data(), x.size());
  const auto ex = oracle::softmax_row(finite);
  const auto b = bounds::softmax_bound(ex, bounds::model_of<T>());
  const auto lb = log_space ? bounds::log_softmax_bound(ex, bounds::model_of<T>()) : std::vector<real>{};
  const double masked_value = log_space ? -std::numeric_limits<double>::infinity() : 0.0;
  std::size_t f = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const std::string where = what<T>(k) + " with " + std::to_string(masks) + " masked entries, element " + std::to_string(i) + " of " +
                              std::to_string(x.size());
    if (std::isinf(to_double(x[i]))) {
      if (!(to_double(y[i]) == masked_value))
        Report<T>("AUDIT-MASK-002", where).input("Input", x).input("Output", y)
            .line(std::string("A -inf entry must give exactly ") + (log_space ? "-inf." : "0.")).raise();
      continue;
    }
    const real exact = log_space ? ex.logp[f] : ex.p[f];
    const real allowed = log_space ? lb[f] : std::max(b.hi[f] - ex.p[f], ex.p[f] - b.lo[f]);
    // The one comparison rule (property::expect_close): an exact log_softmax beyond T's range is
    // judged against its rounding, ±inf, so a kernel that returns that is right.
    property::expect_close<T>("AUDIT-MASK-002", where, "Input", x, y[i], exact, allowed);
    ++f;
  }
}

// AUDIT-INF-001: a row with +inf entries has no finite softmax. Accepted: all NaN, or the limit
// (1/k on each of the k +inf entries, 0 elsewhere) within the derived bound of softmax of k ties.
// log_softmax: all NaN, or the log of that limit: -ln k on each +inf entry, within the derived
// bound of log_softmax of k ties, and exactly -inf elsewhere.
template <class T>
void plus_infinity(Kind kind, const KernelSet<T>& ks, const Policy&) {
  const std::size_t k = static_cast<std::size_t>(*rc::gen::inRange(1, 4));
  const std::vector<T> x = insert_copies(draw_row<T>(64), k, std::numeric_limits<double>::infinity());
  const bool log_space = kind == Kind::log_softmax;
  std::vector<T> y(x.size());
  (log_space ? ks.log_softmax : ks.softmax)(x.data(), y.data(), x.size());
  bool all_nan = true;
  for (const T& v : y) all_nan &= is_nan(v);
  if (all_nan) return;
  const auto ties = oracle::softmax_row(std::vector<T>(k, T(0)));
  const auto md = bounds::model_of<T>();
  real lo, hi;
  if (log_space) {
    const real w = bounds::log_softmax_bound(ties, md)[0];
    lo = ties.logp[0] - w, hi = ties.logp[0] + w;
  } else {
    const auto b = bounds::softmax_bound(ties, md);
    lo = b.lo[0], hi = b.hi[0];
  }
  const double elsewhere = log_space ? -std::numeric_limits<double>::infinity() : 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double v = to_double(y[i]);
    const bool inf = std::isinf(to_double(x[i]));
    const bool ok = inf ? (v >= static_cast<double>(lo) && v <= static_cast<double>(hi)) : v == elsewhere;
    if (!ok)
      Report<T>("AUDIT-INF-001", what<T>(kind) + " with " + std::to_string(k) + " +inf entries, element " + std::to_string(i))
          .input("Input", x).input("Output", y)
          .line("Accepted: all NaN, or " + std::string(log_space ? "-ln " : "1/") + std::to_string(k) + " on each +inf entry (within [" +
                decimal(static_cast<double>(lo), 6) + ", " + decimal(static_cast<double>(hi), 6) + "], derived) and exactly " +
                (log_space ? "-inf" : "0") + " elsewhere.")
          .raise();
  }
}

// AUDIT-ATT-001: each output is a convex combination of the visible values, so it lies in their
// per-column range up to rounding. With p̂ the kernel's weights (p̂ >= 0, |Σp̂ - 1| <= η_N, the
// derived normalisation bound) and the sum of m products accumulated in T (γ_m):
// dist(ô_c, [min_j v_jc, max_j v_jc]) <= (η_N + γ_m (1 + η_N)) max_j |v_jc| + 2 m η.
template <class T>
void attention_range(Kind, const KernelSet<T>& ks, const Policy&) {
  const auto c = draw_attention<T>();
  const bool causal = *rc::gen::arbitrary<bool>();
  const auto o = c.run(ks, causal);
  const auto md = bounds::model_of<T>();
  for (std::size_t i = 0; i < c.n; ++i) {
    const std::size_t visible = causal ? std::min(i + 1, c.m) : c.m;
    const long double eta_n = bounds::normalisation_bound(visible, md);
    for (std::size_t col = 0; col < c.dv; ++col) {
      long double lo = INFINITY, hi = -INFINITY, mag = 0;
      for (std::size_t j = 0; j < visible; ++j) {
        const long double vj = to_double(c.v[j * c.dv + col]);
        lo = std::min(lo, vj), hi = std::max(hi, vj), mag = std::max(mag, std::abs(vj));
      }
      // Mixed precision: the output rounded once more, to storage (round_out, |ô| <= mag).
      const long double allowed =
          md.round_out(mag, (eta_n + bounds::gamma(visible, md.u) * (1 + eta_n)) * mag + 2 * static_cast<long double>(visible) * md.eta) *
          bounds::evaluation_slack;
      const long double got = to_double(o[i * c.dv + col]);
      const long double outside = got < lo ? lo - got : got > hi ? got - hi : (got == got ? 0 : INFINITY);
      const std::string where = what<T>(Kind::attention) + (causal ? " causal" : "") + ", output [" + std::to_string(i) + "][" +
                                std::to_string(col) + "], " + c.shape();
      property::observe(property::ratio(outside, allowed), where);
      if (!(outside <= allowed))
        Report<T>("AUDIT-ATT-001", where).input("q", c.q).input("k", c.k).input("v", c.v).kernel(o[i * c.dv + col])
            .line("Visible values of this column lie in [" + decimal(static_cast<double>(lo)) + ", " + decimal(static_cast<double>(hi)) + "]")
            .error(outside, allowed).raise();
    }
  }
}

// AUDIT-ATT-002: under the causal mask, query i's output does not depend on keys or values j > i.
// Bit equality is demanded: a masked weight is exactly exp(-inf) = 0 and 0 * v = 0 for finite v,
// so future rows cannot change a single rounding of a visible query.
template <class T>
void attention_causal(Kind, const KernelSet<T>& ks, const Policy&) {
  auto c = draw_attention<T>(2);
  const std::size_t t = *rc::gen::inRange<std::size_t>(0, std::min(c.n, c.m - 1));  // rows 0..t see keys 0..t
  const auto before = c.run(ks, true);
  auto changed = c;
  const auto k2 = draw_vector<T>((c.m - t - 1) * c.d, 2), v2 = draw_vector<T>((c.m - t - 1) * c.dv, 8);
  std::copy(k2.begin(), k2.end(), changed.k.begin() + static_cast<std::ptrdiff_t>((t + 1) * c.d));
  std::copy(v2.begin(), v2.end(), changed.v.begin() + static_cast<std::ptrdiff_t>((t + 1) * c.dv));
  const auto after = changed.run(ks, true);
  for (std::size_t i = 0; i <= t && i < c.n; ++i)
    for (std::size_t col = 0; col < c.dv; ++col)
      if (scalar_traits<T>::bits(before[i * c.dv + col]) != scalar_traits<T>::bits(after[i * c.dv + col]))
        Report<T>("AUDIT-ATT-002", what<T>(Kind::attention) + " causal, output [" + std::to_string(i) + "][" + std::to_string(col) + "], " + c.shape())
            .input("q", c.q).input("k", c.k).input("v", c.v).input("k with rows > " + std::to_string(t) + " changed", changed.k)
            .input("v with rows > " + std::to_string(t) + " changed", changed.v).input("Output", before).input("Output after the change", after)
            .line("Query " + std::to_string(i) + " may only see keys 0.." + std::to_string(i) + ", yet its output changed.").raise();
}

// A random permutation of 0..n-1 (shrinks towards the identity).
inline std::vector<std::size_t> draw_perm(std::size_t n) {
  std::vector<std::size_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = i;
  if (n == 0) return perm;
  const auto order = *rc::gen::container<std::vector<std::size_t>>(n, rc::gen::inRange<std::size_t>(0, n));
  for (std::size_t i = 0; i < n; ++i) std::swap(perm[i], perm[order[i]]);
  return perm;
}

// AUDIT-ATT-003: permuting the queries permutes the output rows, bit for bit (each query's row is
// computed from the same keys in the same order; nothing else changes).
template <class T>
void attention_query_permutation(Kind, const KernelSet<T>& ks, const Policy&) {
  const auto c = draw_attention<T>();
  const auto perm = draw_perm(c.n);
  auto permuted = c;
  for (std::size_t i = 0; i < c.n; ++i)
    std::copy_n(c.q.begin() + static_cast<std::ptrdiff_t>(perm[i] * c.d), c.d, permuted.q.begin() + static_cast<std::ptrdiff_t>(i * c.d));
  const auto o = c.run(ks, false), op = permuted.run(ks, false);
  for (std::size_t i = 0; i < c.n; ++i)
    for (std::size_t col = 0; col < c.dv; ++col)
      if (scalar_traits<T>::bits(op[i * c.dv + col]) != scalar_traits<T>::bits(o[perm[i] * c.dv + col]))
        Report<T>("AUDIT-ATT-003", what<T>(Kind::attention) + ", row " + std::to_string(i) + " of the permuted queries (query " +
                                       std::to_string(perm[i]) + "), column " + std::to_string(col) + ", " + c.shape())
            .input("q", c.q).input("k", c.k).input("v", c.v).input("Output", o).input("Output for permuted queries", op)
            .raise();
}

// The derived allowance of every output of an attention call against the exact attention
// (bounds/attention_output.hpp, attention_output_allowance; proofs/bounds/attention_output.md,
// "Whole row, scores unknown"); symmetric in the keys.
template <class T>
std::vector<real> attention_allowance(const AttentionCase<T>& c, bool causal = false) {
  return bounds::attention_output_allowance(c.q, c.k, c.v, c.n, c.m, c.d, c.dv, causal, bounds::model_of<T>());
}

// AUDIT-ATT-004: permuting the keys and values together leaves every output unchanged within twice
// the derived allowance: both calls are within B of the same exact value (B symmetric in the keys,
// see attention_allowance), so they differ by at most 2B. A reordered sum is not bit-identical.
template <class T>
void attention_key_permutation(Kind, const KernelSet<T>& ks, const Policy&) {
  const auto c = draw_attention<T>(2);
  const auto perm = draw_perm(c.m);
  auto permuted = c;
  for (std::size_t j = 0; j < c.m; ++j) {
    std::copy_n(c.k.begin() + static_cast<std::ptrdiff_t>(perm[j] * c.d), c.d, permuted.k.begin() + static_cast<std::ptrdiff_t>(j * c.d));
    std::copy_n(c.v.begin() + static_cast<std::ptrdiff_t>(perm[j] * c.dv), c.dv, permuted.v.begin() + static_cast<std::ptrdiff_t>(j * c.dv));
  }
  const auto o = c.run(ks, false), op = permuted.run(ks, false);
  const auto b = attention_allowance(c);
  std::string order;
  for (std::size_t j = 0; j < c.m; ++j) order += (j ? ", " : "") + std::to_string(perm[j]);
  for (std::size_t e = 0; e < o.size(); ++e) {
    const real diff = std::abs(static_cast<real>(to_double(op[e])) - static_cast<real>(to_double(o[e])));
    const real allowed = 2 * b[e];
    const std::string where = what<T>(Kind::attention) + ", output [" + std::to_string(e / c.dv) + "][" + std::to_string(e % c.dv) +
                              "] after permuting keys and values, " + c.shape();
    property::observe(property::ratio(diff, allowed), where);
    if (!(diff <= allowed))
      Report<T>("AUDIT-ATT-004", where).input("q", c.q).input("k", c.k).input("v", c.v)
          .line("Permutation: key j of the second call is key " + std::string("[") + order + "][j] of the first")
          .input("Output", o).input("Output with permuted keys and values", op)
          .error(diff, allowed, "derived: twice the whole-row bound (both calls within it of the same exact value)").raise();
  }
}


// AUDIT-ATTB-001: rows that see no key (bottom-right alignment with n > m, a window past the
// keys) give what the masked-row policy accepts, and LSE −inf (the log of an empty sum).
template <class T>
void attention_v2_masked_rows(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  auto c = draw_batched<T>();
  auto& sh = c.p.shape;
  // Make the first rows see nothing: causal bottom-right with n > m (rows i < n − m).
  c.p.mask.causal = true;
  c.p.mask.alignment = kernels::Alignment::bottom_right;
  sh.n = sh.m + static_cast<std::size_t>(*rc::gen::inRange(1, 4));
  c.q = draw_vector<T>(sh.q_size(), 2);
  std::vector<T> o(sh.o_size());
  std::vector<lse_t<T>> l(ks.attention_batched_lse ? sh.lse_size() : 0);
  ks.attention_batched(c.p, {}, c.q.data(), c.k.data(), c.v.data(), o.data(), l.empty() ? nullptr : l.data());
  for (std::size_t b = 0; b < sh.batch; ++b)
    for (std::size_t h = 0; h < sh.heads; ++h)
      for (std::size_t i = 0; i < sh.n; ++i) {
        if (!c.p.mask.visible(i, sh.n, sh.m).empty()) continue;
        const std::string at = what<T>(k) + ", row (b " + std::to_string(b) + ", h " + std::to_string(h) + ", i " + std::to_string(i) +
                               ") sees no key, " + c.p.describe();
        const T* row = o.data() + sh.o_at(b, i, h);
        if (!follows_masked_policy(row, sh.dv, pol.masked))
          Report<T>("AUDIT-ATTB-001", at).input("q", c.q).input("k", c.k).input("v", c.v).input("Output row", std::vector<T>(row, row + sh.dv))
              .line("Policy '" + std::string(masked_policy_name(pol.masked)) + "' (--masked, or masked: in the bindings file).").raise();
        const double lse = l.empty() ? -INFINITY : static_cast<double>(l[sh.lse_at(b, h, i)]);
        if (!(std::isinf(lse) && lse < 0)) {
          auto r = Report<T>("AUDIT-ATTB-001", at + ", LSE");
          r.input("q", c.q).input("k", c.k).input("v", c.v).line("LSE = " + decimal(lse) + " (must be −inf: the log of an empty sum)");
          if (lse > 0)  // FlashAttention 2's convention, so that its backward's exp(s − LSE) is 0
            r.line("FlashAttention 2 stores +inf there for its backward pass; the ABI's LSE is the log of the normaliser: convert +inf to −inf.");
          r.raise();
        }
      }
}

// AUDIT-ATTB-002: the shipped shapes of default_sized_problems() (audit/attention_at_size.hpp), or
// those of --attention-shape, once per check: every output structurally, sampled rows against the exact row.
template <class T>
void attention_v2_at_size(Kind, const KernelSet<T>& ks, const Policy& pol) {
  // Not shrunk: a smaller seed is not a simpler case, and each try re-runs every shape.
  const std::uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>());
  SizedAuditStats st;
  std::vector<SizedProblem> shapes = pol.attention_shapes;
  if (shapes.empty())
    for (auto& p : default_sized_problems()) shapes.emplace_back(std::move(p));
  for (auto sp : shapes) {
    // A kernel declared to split (--splits S) runs split at its S here, unsplit in the small cases.
    if (pol.splits > 1) sp.problem.num_splits = pol.splits;
    audit_attention_at_size<T>(ks, sp.problem, seed, [&](const T* row, std::size_t dv) { return follows_masked_policy(row, dv, pol.masked); }, st,
                               sp.inputs);
  }
  property::observe(st.worst_sampled, "sampled rows");
}

// AUDIT-PAGED-001: paged decoding at size (audit/attention_paged_at_size.hpp), once per check; a
// kernel declared to split (--splits S) runs split at its S here.
template <class T>
void attention_paged_at_size(Kind, const KernelSet<T>& ks, const Policy& pol) {
  const std::uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>());  // not shrunk: as AUDIT-ATTB-002
  auto batch = default_sized_paged_batch();
  if (pol.splits > 1) batch.p.num_splits = pol.splits;
  audit_paged_at_size<T>(ks, batch, seed);
}

// AUDIT-ATTBWD-001: the backward pass at the same shapes as AUDIT-ATTB-002, once per check
// (audit/attention_backward_at_size.hpp).
template <class T>
void attention_backward_at_size(Kind, const KernelSet<T>& ks, const Policy& pol) {
  const std::uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>());  // not shrunk: as AUDIT-ATTB-002
  SizedBackwardStats st;
  std::vector<SizedProblem> shapes = pol.attention_shapes;
  if (shapes.empty())
    for (auto& p : default_sized_problems()) shapes.emplace_back(std::move(p));
  for (const auto& sp : shapes) audit_attention_backward_at_size<T>(ks, sp.problem, seed, pol.deterministic, st, sp.inputs);
  property::observe(st.worst_sampled, "sampled rows and keys");
}

// AUDIT-ATTBWD-002: accumulator drift, a statistical test once per check, at f16@f32 and bf16@f32
// only (the runner marks the others N/A): audit/attention_backward_drift.hpp.
template <class T>
void attention_backward_drift(Kind, const KernelSet<T>& ks, const Policy&) {
  // At RapidCheck's nominal size every bit of the seed is drawn (as AUDIT-BIAS-001).
  const auto seed = *rc::gen::noShrink(rc::gen::resize(rc::kNominalSize, rc::gen::arbitrary<std::uint64_t>()));
  for (const auto& dir : drift_directions()) {
    const auto results = measure_drift<T>(ks, dir, seed);
    for (std::size_t t = 0; t < results.size(); ++t) {
      const DriftOutcome& r = results[t];
      const std::string name = dir.tests[t];
      property::observe(r.threshold > 0 ? std::max(0.0, r.mean) / r.threshold : 0, name);
      property::note_finding(name + ": mean error " + decimal(r.many, 3) + " over " + std::to_string(kDriftBlocks) + " blocks, " +
                             decimal(r.one, 3) + " over one (in units of 2 u_S|y|, clipped at 1; " + std::to_string(r.entries) +
                             " entries; growth " + decimal(r.mean, 3) + ", false-alarm threshold " + decimal(r.threshold, 3) + ")");
      if (r.mean > r.threshold)
        property::fail("AUDIT-ATTBWD-002 failed: attention_backward<" + std::string(dtype_name(dtype_of<T>())) + ">, " + name + ", " +
                       std::to_string(r.entries) + " batch entries of " + dir.many.describe() + " against as many of " + dir.one.describe() +
                       ", drawn from seed " + hex_u64(seed) + " (the replay line re-draws them; every sum's terms share a sign)\n" +
                       "  Mean error over " + std::to_string(kDriftBlocks) + " blocks of 64: " + decimal(r.many, 3) +
                       " of 2 u_S|y| (each element's clipped at 1)\n" + "  Mean error over one block:      " + decimal(r.one, 3) + "\n" +
                       "  Growth:  " + decimal(r.mean, 3) + " (sample variance " + decimal(r.variance, 3) + "); allowed <= " +
                       decimal(r.threshold, 3) + " (empirical Bernstein, false-alarm probability 1e-9/3 when the error does not grow)\n" +
                       "  The error grows with the number of blocks: an accumulator kept in the storage format across blocks (16-bit "
                       "atomic adds of dQ, dK or dV partials) rounds every partial sum; FlashAttention-2 accumulates in f32 and rounds once.");
    }
  }
}

// AUDIT-MERGE-001: a row that no split saw a key of (every partial LSE −inf, its partial outputs
// 0) gives what the kernel's masked-row policy accepts, and an LSE of exactly −inf.
template <class T>
void attention_merge_masked_rows(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  auto mc = gen::merge_case<T>();
  const std::size_t r0 = *rc::gen::inRange<std::size_t>(0, mc.rows);
  for (std::size_t s = 0; s < mc.splits; ++s) {
    mc.lse_parts[s * mc.rows + r0] = -std::numeric_limits<lse_t<T>>::infinity();
    for (std::size_t c = 0; c < mc.dv; ++c) mc.o_parts[(s * mc.rows + r0) * mc.dv + c] = lit<T>(0);
  }
  const auto got = mc.run(ks);
  std::vector<T> lse_shown(mc.lse_parts.size());
  for (std::size_t i = 0; i < lse_shown.size(); ++i) lse_shown[i] = scalar_traits<T>::from_double(static_cast<double>(mc.lse_parts[i]));
  for (std::size_t r = 0; r < mc.rows; ++r) {
    bool seen = false;
    for (std::size_t s = 0; s < mc.splits; ++s) seen = seen || std::isfinite(static_cast<double>(mc.lse_parts[s * mc.rows + r]));
    if (seen) continue;
    const std::string at = what<T>(k) + ", row " + std::to_string(r) + " (no split saw a key of it), " + mc.describe();
    const T* row = got.o.data() + r * mc.dv;
    if (!follows_masked_policy(row, mc.dv, pol.masked))
      Report<T>("AUDIT-MERGE-001", at).input("o_parts", mc.o_parts).input("lse_parts (rounded for display)", lse_shown)
          .input("Output row", std::vector<T>(row, row + mc.dv))
          .line("Policy '" + std::string(masked_policy_name(pol.masked)) + "' (--masked, or masked: in the bindings file).").raise();
    const double lse = got.lse.empty() ? -INFINITY : static_cast<double>(got.lse[r]);
    if (!(std::isinf(lse) && lse < 0)) {
      auto rep = Report<T>("AUDIT-MERGE-001", at + ", LSE");
      rep.input("o_parts", mc.o_parts).input("lse_parts (rounded for display)", lse_shown)
          .line("LSE = " + decimal(lse) + " (must be −inf: the log of an empty sum)");
      if (lse > 0) rep.line("FlashAttention 2 stores +inf there; the ABI's LSE is the log of the normaliser: convert +inf to −inf.");
      rep.raise();
    }
  }
}

// AUDIT-MERGE-002: the merge at decode sizes, once per check: rows = 64 (token, head) pairs,
// dv = 128, S = 16 and 128 splits (FlashAttention's combine supports up to 128), partial LSEs
// a drawn offset (gen::draw_lse_offset) plus 10·N(0, 1), a quarter of the partials empty; every output and LSE
// against the exact merge. A kernel with a fixed split buffer, or one that reads a split at the
// wrong stride, fails here if not on the small cases.
template <class T>
void attention_merge_at_size(Kind k, const KernelSet<T>& ks, const Policy&) {
  const std::uint64_t seed = *rc::gen::noShrink(rc::gen::arbitrary<std::uint64_t>());
  gen::NormalStream z(seed);
  for (const std::size_t S : {std::size_t{16}, std::size_t{128}}) {
    gen::MergeCase<T> mc;
    mc.splits = S, mc.rows = 64, mc.dv = 128;
    mc.o_parts.resize(S * mc.rows * mc.dv);
    for (auto& x : mc.o_parts) x = scalar_traits<T>::from_double(2 * z.next());
    mc.lse_parts.resize(S * mc.rows);
    const double offset = gen::draw_lse_offset<T>();
    for (std::size_t i = 0; i < mc.lse_parts.size(); ++i) {
      const bool empty = z.next() > 0.6745;  // P = 1/4
      mc.lse_parts[i] = empty ? -std::numeric_limits<lse_t<T>>::infinity() : static_cast<lse_t<T>>(offset + 10 * z.next());
      if (empty)
        for (std::size_t c = 0; c < mc.dv; ++c) mc.o_parts[i * mc.dv + c] = lit<T>(0);
    }
    mc.origin = "decode size, seed " + hex_u64(seed) + ", partial LSEs about " + std::to_string(static_cast<long long>(offset));
    const auto got = mc.run(ks);
    const auto ex = mc.exact();
    for (std::size_t r = 0; r < mc.rows; ++r) {
      if (ex.empty[r]) continue;
      for (std::size_t c = 0; c < mc.dv; ++c) {
        const std::size_t e = r * mc.dv + c;
        const long double err = property::format_error(got.o[e], ex.o[e]);
        property::observe(property::ratio(err, ex.o_allowance[e]), "o at decode size");
        if (!(err <= ex.o_allowance[e]))
          Report<T>("AUDIT-MERGE-002", what<T>(k) + ", o[" + std::to_string(r) + ", " + std::to_string(c) + "], " + mc.describe())
              .kernel(got.o[e]).exact(ex.o[e]).error(err, ex.o_allowance[e]).raise();
      }
      if (got.lse.empty()) continue;
      const double l = static_cast<double>(got.lse[r]);
      const long double err = std::isfinite(l) ? std::abs(static_cast<long double>(l) - ex.lse[r]) : INFINITY;
      property::observe(property::ratio(err, ex.lse_allowance[r]), "lse at decode size");
      if (!(err <= ex.lse_allowance[r]))
        Report<T>("AUDIT-MERGE-002", what<T>(k) + ", lse[" + std::to_string(r) + "], " + mc.describe())
            .line("Kernel lse:  " + decimal(l)).exact(ex.lse[r]).error(err, ex.lse_allowance[r]).raise();
    }
  }
}

#define ATTNCHECK_AUDIT_PROPERTY(ID, TITLE, KINDS, FN)                                             \
  AuditProperty {                                                                                  \
    ID, TITLE, KINDS, [](Kind k, const KernelSet<f16>& s, const Policy& p) { FN<f16>(k, s, p); },  \
        [](Kind k, const KernelSet<bf16>& s, const Policy& p) { FN<bf16>(k, s, p); },              \
        [](Kind k, const KernelSet<float>& s, const Policy& p) { FN<float>(k, s, p); },            \
        [](Kind k, const KernelSet<double>& s, const Policy& p) { FN<double>(k, s, p); }, false    \
  }

std::vector<AuditProperty> build() {
  // The kinds whose draws this file holds (the built-in ones; a kind registered by a test has none).
  const std::vector<Kind> every{Kind::softmax,         Kind::log_softmax,     Kind::scores,           Kind::rmsnorm,
                                Kind::entropy,         Kind::attention,       Kind::softmax_jvp,      Kind::attention_v2,
                                Kind::attention_backward, Kind::attention_merge, Kind::attention_varlen, Kind::attention_paged,
                                Kind::attention_fp8kv, Kind::kv_quantize};
  const std::vector<Kind> sm{Kind::softmax, Kind::log_softmax}, att{Kind::attention}, att2{Kind::attention_v2}, bwd{Kind::attention_backward},
                          merge{Kind::attention_merge}, paged{Kind::attention_paged};
  std::vector<AuditProperty> v = {
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-SAFE-001",
                               "every call returns within the timeout, writes only its output and leaves its inputs unchanged",
                               every, safe),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-DET-001", "the same input twice gives the same bits", every, deterministic),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-NAN-001", "a NaN input gives NaN in every output that depends on it",
                               every, nan_propagates),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-MASK-001", "a fully masked row (all -inf) gives what the kernel's masked-row policy accepts", sm, fully_masked),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-MASK-002",
                               "-inf entries give exactly 0 (log_softmax: -inf) and the rest is that of the finite entries within the derived bound",
                               sm, partly_masked),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATT-001", "attention outputs lie in the per-column range of the visible values, within the derived rounding allowance",
                               att, attention_range),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATT-002", "under the causal mask a query's output does not depend on later keys or values", att,
                               attention_causal),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATT-003", "permuting the queries permutes the output rows", att, attention_query_permutation),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATT-004",
                               "permuting keys and values together leaves the output unchanged within twice the derived whole-row bound",
                               att, attention_key_permutation),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATTB-001", "a batched-attention row that sees no key gives what the masked-row policy accepts, and LSE -inf",
                               att2, attention_v2_masked_rows),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATTB-002",
                               "at shipped sizes every output is deterministic, inside its visible values' range and blind to hidden keys, and sampled rows are within the derived allowance",
                               att2, attention_v2_at_size),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATTBWD-001",
                               "at shipped sizes no gradient element is NaN (exactly 0 where no term reaches it, finite where a derived bound keeps it in "
                               "range), the results are deterministic and blind to the dO of rows they do not depend on, and sampled query rows and keys are "
                               "within the derived allowance",
                               bwd, attention_backward_at_size),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-ATTBWD-002",
                               "on sums whose terms share a sign, the error of dQ over 256 key blocks of 64, and of dK and dV over 256 query blocks "
                               "of 64, is not larger than over one block (false-alarm probability 1e-9 per check)",
                               bwd, attention_backward_drift),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-MERGE-001",
                               "a row that no split saw a key of gives what the masked-row policy accepts, and LSE -inf", merge,
                               attention_merge_masked_rows),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-MERGE-002",
                               "at decode sizes (64 rows, dv 128, 16 and 128 splits, a quarter of them empty) every output and LSE is within the "
                               "derived allowance of the exact merge",
                               merge, attention_merge_at_size),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-PAGED-001",
                               "at decode size (6 sequences of 1 to 4100 keys in shuffled pages of 16 tokens, H 4 over H_kv 2, d 64) every output and "
                               "LSE is within the derived allowance of its sequence's exact attention",
                               paged, attention_paged_at_size),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-INF-001", "a row with +inf gives all NaN or the one-hot limit over the +inf entries (log_softmax: its log)", sm,
                               plus_infinity),
      ATTNCHECK_AUDIT_PROPERTY("AUDIT-BIAS-001",
                               "over 1000 rows the signed error has mean about 0, as rounding to nearest is assumed to give (false-alarm probability 1e-9 per check)",
                               sm, rounding_bias),
  };
  for (AuditProperty& p : v) {
    p.judges_masked_policy = p.id == "AUDIT-MASK-001" || p.id == "AUDIT-ATTB-001" || p.id == "AUDIT-ATTB-002" || p.id == "AUDIT-MERGE-001";
    p.one_shot = p.id == "AUDIT-BIAS-001" || p.id == "AUDIT-ATTB-002" || p.id == "AUDIT-ATTBWD-001" || p.id == "AUDIT-ATTBWD-002" || p.id == "AUDIT-MERGE-002" ||
                 p.id == "AUDIT-PAGED-001";
  }
  return v;
}

}  // namespace

const std::vector<AuditProperty>& audit_properties() {
  static const std::vector<AuditProperty> v = build();
  return v;
}

}  // namespace attncheck::audit
