// attncheck audit: a KernelSet<T> whose functions call the audited kernels through a Backend, so
// the registered falsification properties run unchanged against a user's implementation. A
// kernel fault is thrown as KernelFault (RapidCheck shrinks it like any failure); a declined
// input is discarded and counted; a kind the user did not provide throws KindAbsent.
#pragma once

#include <algorithm>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include <rapidcheck.h>

#include "attncheck/audit/attention_shape.hpp"
#include "attncheck/audit/call.hpp"
#include "attncheck/audit/capabilities.hpp"
#include "attncheck/scalar/dtype.hpp"
#include "attncheck/text/numbers.hpp"
#include "attncheck/kernels/kernel_set.hpp"

namespace attncheck::audit {

// What one run of one property saw of the kernel, besides verdicts.
struct CallStats {
  int calls = 0;
  int timeouts = 0;
  int declines = 0;
  std::string first_decline;  // the first declined call (kind, return value, shape), for the report
  // attention_v2: the first declined problem as an --attention-shape spec (attention_shape.hpp),
  // for the report's advice on aiming the sized audit at what the kernel supports; else "".
  std::string first_decline_shape;
  // The first call the kernel process could not answer for want of memory under --memory
  // (Status::out_of_memory), for the report; once set, further calls are discarded and the
  // check ends as an ERROR naming the limit (never a finding against the kernel).
  std::string out_of_memory;
  // Each timed-out call costs the full timeout; after this many in one property run, further
  // calls are discarded, which ends shrinking with the smallest hanging input found so far.
  int timeout_budget = 4;
  // Elements of each input shown in a fault message (rows longer are cut in the middle);
  // a replay shows them all.
  std::size_t shown_elements = 48;
  // Declared capabilities (capabilities.hpp): the draws not sent for being outside the
  // declaration, in all and per feature that excluded them; and the features of the calls sent
  // (features_used joined by ' '), per signature, that the kernel answered or declined.
  int not_drawn = 0;
  std::map<std::string, int> not_drawn_features;
  std::map<std::string, int> accepted_uses, declined_uses;
};

// A declared kernel whose first this-many draws were all outside its declaration has no input
// inside it for this check: the check ends N/A (runner.cpp), without drawing on to RapidCheck's
// discard limit.
inline constexpr int nothing_inside_after = 1000;

namespace detail {

template <class T>
std::vector<unsigned char> raw(const T* p, std::size_t n) {
  std::vector<unsigned char> b(n * sizeof(T));
  if (n) std::memcpy(b.data(), p, b.size());
  return b;
}

template <class T>
std::string show(const char* name, const T* p, std::size_t n, std::size_t limit) {
  const std::vector<T> v(p, p + n);
  return std::string("    ") + name + " bits:  " + row_bits(v, limit) + "\n    " + name + ":       " + row_values(v, limit) + "\n";
}

// Makes the call of a kernel at storage T, turns faults into exceptions, copies the output into out
// (output_count elements of output_size(c.kind, T's dtype) bytes: T's, or kv_quantize's one-byte
// codes). inputs() formats the input rows; only called when there is a fault to report.
template <class T, class Inputs>
void perform_into(Backend& b, CallStats& st, Call& c, void* out, const std::string& shape, const Inputs& inputs, void* lse = nullptr) {
  c.dtype = dtype_of<T>();
  if (!b.has(c.kind, c.dtype)) throw KindAbsent(kind_label(c.kind));
  if (st.timeouts >= st.timeout_budget) RC_DISCARD("timeout budget spent");
  if (!st.out_of_memory.empty()) RC_DISCARD("the kernel process ran out of memory under --memory");
  const std::string what = std::string(kind_name(c.kind)) + "<" + std::string(dtype_name(c.dtype)) + ">";
  // The features of the call; one outside the declared capabilities is not sent (capabilities.hpp).
  const std::vector<std::string> used = features_used(c);
  std::string signature;
  for (const auto& u : used) signature += (signature.empty() ? "" : " ") + u;
  const Capabilities* caps = nullptr;
  if (const DeclaredKinds* declared = declared_kinds_slot())
    if (const auto it = declared->find(c.kind); it != declared->end()) caps = &it->second;
  if (caps) {
    if (const auto out = outside(*caps, used); !out.empty()) {
      ++st.not_drawn;
      for (const auto& f : out) ++st.not_drawn_features[f];
      if (st.calls == 0 && st.not_drawn == nothing_inside_after)
        throw std::runtime_error(std::string(NothingDeclared::marker) + "the first " + std::to_string(nothing_inside_after) + " " + what +
                                 " inputs drawn all had features declared unsupported (" + tally_text(st.not_drawn_features) + ")");
      RC_DISCARD("outside the declared capabilities");
    }
  }
  ++st.calls;
  const Reply r = b.call(c);
  if (!used.empty() && r.status == Status::done) ++st.accepted_uses[signature];
  if (!used.empty() && r.status == Status::declined) ++st.declined_uses[signature];
  switch (r.status) {
    case Status::done:
      // (A packed batch without queries has no output: out may then be null, which memcpy may not get.)
      if (!r.output.empty()) std::memcpy(out, r.output.data(), r.output.size());
      if (lse && !r.lse.empty()) std::memcpy(lse, r.lse.data(), r.lse.size());
      return;
    case Status::declined:
      // A declaration is a promise: an input inside it that the kernel declines is a failure.
      if (caps)
        throw KernelFault(r.status, what + " " + r.detail + " on " + shape + "\nThe input is inside the declared capabilities (" + caps->text() +
                                        "; it has " + (signature.empty() ? std::string("no feature") : signature) +
                                        "): declare what the kernel cannot compute (--supports FEATURE=no, docs/audit.md) or fix it\n" + inputs());
      if (st.declines++ == 0) {
        st.first_decline = what + " " + r.detail + " on " + shape;
        if (takes_problem(c.kind)) st.first_decline_shape = attention_shape_spec(c.problem);
      }
      RC_DISCARD("declined");
    case Status::out_of_memory:
      st.out_of_memory = what + " " + r.detail + " on " + shape;
      throw KernelFault(r.status, st.out_of_memory);
    case Status::timed_out:
      ++st.timeouts;
      [[fallthrough]];
    default:
      throw KernelFault(r.status, what + " " + r.detail + " on " + shape + "\n" + inputs());
  }
}

template <class T, class Inputs>
void perform(Backend& b, CallStats& st, Call& c, T* out, const std::string& shape, const Inputs& inputs, void* lse = nullptr) {
  perform_into<T>(b, st, c, out, shape, inputs, lse);
}

// An FP8 code row as "[0x7e, 0x00, ...]", cut in the middle after limit codes.
inline std::string show_codes(const char* name, const std::uint8_t* c, std::size_t n, std::size_t limit) {
  std::string r = std::string("    ") + name + " codes: [";
  char buf[8];
  for (std::size_t i = 0; i < n; ++i) {
    if (n > limit && i == limit / 2) {
      r += ", …";
      i = n - (limit - limit / 2);
    }
    std::snprintf(buf, sizeof buf, "%s0x%02x", i ? ", " : "", c[i]);
    r += buf;
  }
  return r + "]\n";
}

inline std::string fp8_format_name(kernels::Fp8Format f) { return f == kernels::Fp8Format::e4m3fn ? "E4M3FN" : "E5M2"; }

// The num_splits a kernel is told: split-KV decoding only for a kernel declared to read it
// (declared > 0: --splits S), and then at most its declared S (a bound for more parts covers fewer).
inline std::size_t told_splits(const kernels::AttentionProblem& p, std::size_t declared, const std::string& kind) {
  if (p.num_splits <= 1) return p.num_splits;
  if (declared == 0) throw KindAbsent(kind + " with num_splits > 1 (a kernel declared with --splits S)");
  return std::min(p.num_splits, declared);
}

}  // namespace detail

// attention_lse: whether the kernel of kind attention_v2 at T declared that it returns the LSE
// (Policy::returns_lse); when not, KernelSet::attention_batched_lse is false and no call asks.
// merge_lse: the same declaration of the attention_merge kernel at T; when not, it is never
// given an lse (NULL, lse_count 0), whatever the caller asks. varlen_lse, paged_lse: the same for
// the attention_varlen and attention_paged kernels (KernelSet::attention_batched_lse, which
// attention_v2, attention_varlen and attention_paged share, is attention_lse: the runner makes it
// false when any of them declared none).
// fp8kv_lse: the same for the attention_fp8kv kernel. splits: the largest num_splits the
// attention_v2 and attention_paged kernels are declared to read (--splits); 0: a problem with
// num_splits > 1 is not applicable (KindAbsent), and every call gets num_splits 0 as before.
template <class T>
KernelSet<T> audited_kernels(Backend& b, CallStats& st, bool attention_lse = true, bool merge_lse = true, bool varlen_lse = true,
                             bool paged_lse = true, bool fp8kv_lse = true, std::size_t splits = 0) {
  using detail::fp8_format_name;
  using detail::perform;
  using detail::perform_into;
  using detail::raw;
  using detail::show;
  using detail::show_codes;
  KernelSet<T> k;
  k.name = b.describe();
  const auto row_kernel = [&b, &st](Kind kind) {
    return [&b, &st, kind](const T* x, T* y, std::size_t n) {
      Call c;
      c.kind = kind;
      c.n = n;
      c.inputs = {raw(x, n)};
      c.output_count = n;
      perform(b, st, c, y, "n = " + std::to_string(n), [&] { return show("x", x, n, st.shown_elements); });
    };
  };
  k.softmax = row_kernel(Kind::softmax);
  k.log_softmax = row_kernel(Kind::log_softmax);
  k.scores = [&b, &st](const T* q, const T* kk, std::size_t n, std::size_t m, std::size_t d, T* s) {
    Call c;
    c.kind = Kind::scores;
    c.n = n, c.m = m, c.d = d;
    c.inputs = {raw(q, n * d), raw(kk, m * d)};
    c.output_count = n * m;
    perform(b, st, c, s, "n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d),
            [&] { return show("q", q, n * d, st.shown_elements) + show("k", kk, m * d, st.shown_elements); });
  };
  k.rmsnorm = [&b, &st](const T* x, const T* w, std::size_t d, T eps, T* y) {
    Call c;
    c.kind = Kind::rmsnorm;
    c.d = d;
    // S is float for f16/bf16/f32 (eps widens exactly) and double for f64.
    c.eps = std::is_same_v<T, double> ? to_double(eps) : static_cast<double>(static_cast<float>(to_double(eps)));
    c.inputs = {raw(x, d), raw(w, d)};
    c.output_count = d;
    perform(b, st, c, y, "d = " + std::to_string(d) + ", eps = " + bits_of(eps) + " (" + decimal(to_double(eps)) + ")",
            [&] { return show("x", x, d, st.shown_elements) + show("w", w, d, st.shown_elements); });
  };
  k.entropy = [&b, &st](const T* p, std::size_t n) {
    Call c;
    c.kind = Kind::entropy;
    c.n = n;
    c.inputs = {raw(p, n)};
    c.output_count = 1;
    T h{};
    perform(b, st, c, &h, "n = " + std::to_string(n), [&] { return show("p", p, n, st.shown_elements); });
    return h;
  };
  k.attention = [&b, &st](const T* q, const T* kk, const T* v, std::size_t n, std::size_t m, std::size_t d, std::size_t dv,
                          bool causal, T* o) {
    Call c;
    c.kind = Kind::attention;
    c.n = n, c.m = m, c.d = d, c.dv = dv, c.causal = causal;
    c.inputs = {raw(q, n * d), raw(kk, m * d), raw(v, m * dv)};
    c.output_count = n * dv;
    perform(b, st, c, o,
            "n = " + std::to_string(n) + ", m = " + std::to_string(m) + ", d = " + std::to_string(d) + ", dv = " +
                std::to_string(dv) + (causal ? ", causal" : ", not causal"),
            [&] { return show("q", q, n * d, st.shown_elements) + show("k", kk, m * d, st.shown_elements) + show("v", v, m * dv, st.shown_elements); });
  };
  k.softmax_jvp = [&b, &st](const T* x, const T* dx, std::size_t n, T* dy) {
    Call c;
    c.kind = Kind::softmax_jvp;
    c.n = n;
    c.inputs = {raw(x, n), raw(dx, n)};
    c.output_count = n;
    perform(b, st, c, dy, "n = " + std::to_string(n), [&] { return show("x", x, n, st.shown_elements) + show("dx", dx, n, st.shown_elements); });
  };
  // ABI version 2's attention: the kernel tiles on its own, so the tiling is ignored. The LSE comes
  // back in lse_t<T> (float for 16-bit and f32 storage, double for f64), the ABI's S.
  k.attention_batched = [&b, &st, splits](const kernels::AttentionProblem& p, kernels::Tiling, const T* q, const T* kk, const T* v, T* o,
                                          lse_t<T>* lse) {
    static_assert(sizeof(lse_t<T>) == (std::is_same_v<T, double> ? 8 : 4));
    const auto& sh = p.shape;
    Call c;
    c.kind = Kind::attention_v2;
    c.n = sh.n, c.m = sh.m, c.d = sh.d, c.dv = sh.dv, c.causal = p.mask.causal;
    c.problem = p;
    c.problem.num_splits = detail::told_splits(p, splits, "attention");
    c.inputs = {raw(q, sh.q_size()), raw(kk, sh.k_size()), raw(v, sh.v_size())};
    c.output_count = sh.o_size();
    c.lse_count = lse ? sh.lse_size() : 0;
    perform(
        b, st, c, o, p.describe() + (lse ? "" : ", no LSE asked"),
        [&] {
          std::string slopes;
          if (!p.alibi_slopes.empty()) slopes = show("alibi_slopes", p.alibi_slopes.data(), p.alibi_slopes.size(), st.shown_elements);
          return show("q", q, sh.q_size(), st.shown_elements) + show("k", kk, sh.k_size(), st.shown_elements) +
                 show("v", v, sh.v_size(), st.shown_elements) + slopes;
        },
        lse);
  };
  // ABI version 2's backward pass: one call, three outputs (Reply::output holds dQ, dK, dV in turn).
  k.attention_backward = [&b, &st](const kernels::AttentionProblem& p, kernels::Tiling, const T* q, const T* kk, const T* v, const T* o,
                                   const T* dout, const lse_t<T>* lse, T* dq, T* dk, T* dv) {
    const auto& sh = p.shape;
    Call c;
    c.kind = Kind::attention_backward;
    c.n = sh.n, c.m = sh.m, c.d = sh.d, c.dv = sh.dv, c.causal = p.mask.causal;
    c.problem = p;
    c.inputs = {raw(q, sh.q_size()), raw(kk, sh.k_size()), raw(v, sh.v_size()), raw(o, sh.o_size()), raw(dout, sh.o_size()),
                raw(lse, sh.lse_size())};
    c.output_count = sh.q_size() + sh.k_size() + sh.v_size();
    c.lse_count = sh.lse_size();
    std::vector<T> out(c.output_count);
    perform(b, st, c, out.data(), p.describe(), [&] {
      std::string slopes;
      if (!p.alibi_slopes.empty()) slopes = show("alibi_slopes", p.alibi_slopes.data(), p.alibi_slopes.size(), st.shown_elements);
      return show("q", q, sh.q_size(), st.shown_elements) + show("k", kk, sh.k_size(), st.shown_elements) +
             show("v", v, sh.v_size(), st.shown_elements) + show("o", o, sh.o_size(), st.shown_elements) +
             show("dout", dout, sh.o_size(), st.shown_elements) + show("lse", lse, sh.lse_size(), st.shown_elements) + slopes;
    });
    std::copy_n(out.begin(), sh.q_size(), dq);
    std::copy_n(out.begin() + static_cast<std::ptrdiff_t>(sh.q_size()), sh.k_size(), dk);
    std::copy_n(out.begin() + static_cast<std::ptrdiff_t>(sh.q_size() + sh.k_size()), sh.v_size(), dv);
  };
  // ABI version 2's merge of split-KV partial results (Reply::output holds o, Reply::lse the LSE).
  // A kernel declared to return no LSE gets lse = NULL, as abi.h promises it, and the caller's lse
  // is left as it was: the kernel computed none.
  k.attention_merge = [&b, &st, merge_lse](std::size_t splits, std::size_t rows, std::size_t dv, const T* o_parts,
                                           const lse_t<T>* lse_parts, T* o, lse_t<T>* lse) {
    static_assert(sizeof(lse_t<T>) == (std::is_same_v<T, double> ? 8 : 4));
    const bool asked = lse != nullptr && merge_lse;
    Call c;
    c.kind = Kind::attention_merge;
    c.n = splits, c.m = rows, c.dv = dv;
    c.inputs = {raw(o_parts, splits * rows * dv), raw(lse_parts, splits * rows)};
    c.output_count = rows * dv;
    c.lse_count = asked ? rows : 0;
    perform(
        b, st, c, o,
        "splits = " + std::to_string(splits) + ", rows = " + std::to_string(rows) + ", dv = " + std::to_string(dv) +
            (asked ? "" : ", no LSE asked"),
        [&] { return show("o_parts", o_parts, splits * rows * dv, st.shown_elements) + show("lse_parts", lse_parts, splits * rows, st.shown_elements); },
        asked ? lse : nullptr);
  };
  // ABI version 2's attention over a packed variable-length batch. The offsets travel as inputs 3
  // and 4 (raw int32), compared after the call like q, k, v; the tiling is ignored, as for
  // attention_v2. A kernel declared to return no LSE gets lse = NULL and the caller's lse is left
  // as it was. The report names every sequence's (n_b, m_b): a packing bug shows in them.
  k.attention_varlen = [&b, &st, varlen_lse](const kernels::AttentionProblem& p, const kernels::Packing& pk, kernels::Tiling, const T* q,
                                             const T* kk, const T* v, T* o, lse_t<T>* lse) {
    static_assert(sizeof(lse_t<T>) == (std::is_same_v<T, double> ? 8 : 4));
    const auto& sh = p.shape;
    const std::size_t tq = pk.total_q(), tk = pk.total_k();
    const bool asked = lse != nullptr && varlen_lse;
    Call c;
    c.kind = Kind::attention_varlen;
    c.n = sh.n, c.m = sh.m, c.d = sh.d, c.dv = sh.dv, c.causal = p.mask.causal;
    c.problem = p;
    c.inputs = {raw(q, tq * sh.heads * sh.d), raw(kk, tk * sh.kv_heads * sh.d), raw(v, tk * sh.kv_heads * sh.dv),
                raw(pk.cu_q.data(), pk.cu_q.size()), raw(pk.cu_k.data(), pk.cu_k.size())};
    c.output_count = tq * sh.heads * sh.dv;
    c.lse_count = asked ? sh.heads * tq : 0;
    const auto offsets = [](const char* name, const std::vector<std::int32_t>& cu) {
      std::string r = std::string("    ") + name + ":";
      for (std::int32_t x : cu) r += " " + std::to_string(x);
      return r + "\n";
    };
    perform(
        b, st, c, o, p.describe() + "; " + pk.describe() + (asked ? "" : ", no LSE asked"),
        [&] {
          std::string slopes;
          if (!p.alibi_slopes.empty()) slopes = show("alibi_slopes", p.alibi_slopes.data(), p.alibi_slopes.size(), st.shown_elements);
          return offsets("cu_seqlens_q", pk.cu_q) + offsets("cu_seqlens_k", pk.cu_k) + show("q", q, tq * sh.heads * sh.d, st.shown_elements) +
                 show("k", kk, tk * sh.kv_heads * sh.d, st.shown_elements) + show("v", v, tk * sh.kv_heads * sh.dv, st.shown_elements) + slopes;
        },
        asked ? lse : nullptr);
  };
  // ABI version 2's attention over a paged KV cache. The three int32 arrays travel as inputs 3 to
  // 5 (raw), compared after the call like q and the caches; the three scalars in Call::paging. As
  // for varlen, the tiling is ignored and a kernel declared to return no LSE gets lse = NULL. The
  // report names every sequence's (n_b, m_b) and the page table: a paging bug shows in them.
  k.attention_paged = [&b, &st, paged_lse, splits](const kernels::AttentionProblem& p, const std::vector<std::int32_t>& cu_q,
                                           const kernels::PageTable& pt, kernels::Tiling, const T* q, const T* k_cache, const T* v_cache, T* o,
                                           lse_t<T>* lse) {
    static_assert(sizeof(lse_t<T>) == (std::is_same_v<T, double> ? 8 : 4));
    const auto& sh = p.shape;
    const std::size_t tq = cu_q.empty() ? 0 : static_cast<std::size_t>(cu_q.back()), tokens = pt.tokens();
    const bool asked = lse != nullptr && paged_lse;
    Call c;
    c.kind = Kind::attention_paged;
    c.n = sh.n, c.m = sh.m, c.d = sh.d, c.dv = sh.dv, c.causal = p.mask.causal;
    c.problem = p;
    c.problem.num_splits = detail::told_splits(p, splits, "attention_paged");
    c.paging = {.page_size = pt.page_size, .num_pages = pt.num_pages, .pages_per_sequence = pt.pages_per_seq};
    c.inputs = {raw(q, tq * sh.heads * sh.d),
                raw(k_cache, tokens * sh.kv_heads * sh.d),
                raw(v_cache, tokens * sh.kv_heads * sh.dv),
                raw(cu_q.data(), cu_q.size()),
                raw(pt.seqused_k.data(), pt.seqused_k.size()),
                raw(pt.block_table.data(), pt.block_table.size())};
    c.output_count = tq * sh.heads * sh.dv;
    c.lse_count = asked ? sh.heads * tq : 0;
    const auto ints = [](const char* name, const std::vector<std::int32_t>& x) {
      std::string r = std::string("    ") + name + ":";
      for (std::int32_t e : x) r += " " + std::to_string(e);
      return r + "\n";
    };
    std::string seqs = "sequences (n_b, m_b):";
    for (std::size_t s = 0; s < pt.sequences() && s + 1 < cu_q.size(); ++s)
      seqs += " (" + std::to_string(cu_q[s + 1] - cu_q[s]) + ", " + std::to_string(pt.seqused_k[s]) + ")";
    perform(
        b, st, c, o, p.describe() + "; " + seqs + "; " + pt.describe() + (asked ? "" : ", no LSE asked"),
        [&] {
          std::string slopes;
          if (!p.alibi_slopes.empty()) slopes = show("alibi_slopes", p.alibi_slopes.data(), p.alibi_slopes.size(), st.shown_elements);
          return ints("cu_seqlens_q", cu_q) + ints("seqused_k", pt.seqused_k) + ints("block_table", pt.block_table) +
                 show("q", q, tq * sh.heads * sh.d, st.shown_elements) + show("k_cache", k_cache, tokens * sh.kv_heads * sh.d, st.shown_elements) +
                 show("v_cache", v_cache, tokens * sh.kv_heads * sh.dv, st.shown_elements) + slopes;
        },
        asked ? lse : nullptr);
  };
  k.attention_batched_lse = attention_lse;
  k.attention_merge_lse = merge_lse;
  // No ABI kind computes several heads at once; per-head properties are not applicable.
  k.rmsnorm_heads = [](const T*, const T*, std::size_t, std::size_t, T, T*) { throw KindAbsent("rmsnorm_heads"); };
  // No ABI kind computes position encodings.
  k.position_encoding = [](std::size_t, std::size_t, T*) { throw KindAbsent("position_encoding"); };
  // ABI version 2's FP8 KV cache. The read (attention_fp8kv): attention_v2's problem, the format,
  // the codes k and v as inputs 1 and 2 (one byte each) and the scales as inputs 3 and 4 (floats),
  // all compared after the call; the tiling is ignored and a kernel declared to return no LSE gets
  // lse = NULL, as for attention_v2. The writer's overflow rule is not the reader's concern: the ABI
  // passes only the format, and the codes are finite.
  k.attention_fp8kv = [&b, &st, fp8kv_lse](const kernels::AttentionProblem& p, kernels::Fp8Spec sp, const kernels::Fp8Scales& sc,
                                           kernels::Tiling, const T* q, const std::uint8_t* k8, const std::uint8_t* v8, T* o,
                                           lse_t<T>* lse) {
    static_assert(sizeof(lse_t<T>) == (std::is_same_v<T, double> ? 8 : 4));
    const auto& sh = p.shape;
    const bool asked = lse != nullptr && fp8kv_lse;
    Call c;
    c.kind = Kind::attention_fp8kv;
    c.n = sh.n, c.m = sh.m, c.d = sh.d, c.dv = sh.dv, c.causal = p.mask.causal;
    c.problem = p;
    c.fp8.format = sp.format == kernels::Fp8Format::e4m3fn ? 0 : 1;
    c.inputs = {raw(q, sh.q_size()), raw(k8, sh.k_size()), raw(v8, sh.v_size()), raw(sc.k.data(), sc.k.size()),
                raw(sc.v.data(), sc.v.size())};
    c.output_count = sh.o_size();
    c.lse_count = asked ? sh.lse_size() : 0;
    perform(
        b, st, c, o, p.describe() + "; " + fp8_format_name(sp.format) + " codes, " + sc.describe() + (asked ? "" : ", no LSE asked"),
        [&] {
          std::string slopes;
          if (!p.alibi_slopes.empty()) slopes = show("alibi_slopes", p.alibi_slopes.data(), p.alibi_slopes.size(), st.shown_elements);
          return show("q", q, sh.q_size(), st.shown_elements) + show_codes("k", k8, sh.k_size(), st.shown_elements) +
                 show_codes("v", v8, sh.v_size(), st.shown_elements) + slopes;
        },
        asked ? lse : nullptr);
  };
  // The write (kv_quantize): the format, the declared overflow rule and the scale in Call::fp8, x as
  // the one input, the codes (one byte each) as the output. A kernel that implements one format or
  // one overflow rule only declines the others (nonzero), and is judged on the calls it accepts.
  k.fp8_quantize = [&b, &st](kernels::Fp8Spec sp, const T* x, std::size_t n, float scale, std::uint8_t* codes) {
    Call c;
    c.kind = Kind::kv_quantize;
    c.n = n;
    c.fp8 = {.format = static_cast<std::uint8_t>(sp.format == kernels::Fp8Format::e4m3fn ? 0 : 1), .saturating = sp.saturating,
             .scale = scale};
    c.inputs = {raw(x, n)};
    c.output_count = n;
    perform_into<T>(b, st, c, codes,
                    "n = " + std::to_string(n) + ", " + fp8_format_name(sp.format) + (sp.saturating ? " saturating" : " non-saturating") +
                        ", scale " + bits_of(scale) + " (" + decimal(static_cast<double>(scale)) + ")",
                    [&] { return show("x", x, n, st.shown_elements); });
  };
  return k;
}

}  // namespace attncheck::audit
