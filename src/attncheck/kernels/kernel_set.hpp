// attncheck: a set of kernels under test for one scalar type (the reference, a mutant, a user's
// library), so that a property never names the implementation it checks. bmc's harnesses call
// their kernels through bmc::kernel_slots instead (bmc/kernel_slots.hpp says why).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "attncheck/kernels/attention.hpp"
#include "attncheck/kernels/attention_backward.hpp"
#include "attncheck/kernels/attention_batched.hpp"
#include "attncheck/kernels/attention_fp8kv.hpp"
#include "attncheck/kernels/attention_hvp.hpp"
#include "attncheck/kernels/attention_merge.hpp"
#include "attncheck/kernels/attention_paged.hpp"
#include "attncheck/kernels/attention_varlen.hpp"
#include "attncheck/kernels/entropy.hpp"
#include "attncheck/kernels/log_softmax.hpp"
#include "attncheck/kernels/masked_policy.hpp"
#include "attncheck/kernels/position_encoding.hpp"
#include "attncheck/kernels/rmsnorm.hpp"
#include "attncheck/kernels/scores.hpp"
#include "attncheck/kernels/softmax.hpp"
#include "attncheck/kernels/softmax_jvp.hpp"
#include "attncheck/scalar/arithmetic.hpp"

namespace attncheck {

// The type a kernel returns a log-sum-exp in: float for 16-bit and f32 storage, double for f64
// (the ABI's S; FlashAttention and PyTorch return the LSE in f32 whatever the storage).
template <class T>
using lse_t = std::conditional_t<std::is_same_v<T, double>, double, float>;

template <class T>
struct KernelSet {
  std::string name = "reference";
  std::function<void(const T* x, T* y, std::size_t n)> softmax;
  std::function<void(const T* x, T* y, std::size_t n)> log_softmax;
  std::function<void(const T* q, const T* k, std::size_t n, std::size_t m, std::size_t d, T* s)> scores;
  std::function<void(const T* x, const T* w, std::size_t d, T eps, T* y)> rmsnorm;
  std::function<void(const T* x, const T* w, std::size_t h, std::size_t d, T eps, T* y)> rmsnorm_heads;
  std::function<T(const T* p, std::size_t n)> entropy;
  std::function<void(const T* q, const T* k, const T* v, std::size_t n, std::size_t m,
                     std::size_t d, std::size_t dv, bool causal, T* o)>
      attention;
  std::function<void(const T* x, const T* dx, std::size_t n, T* dy)> softmax_jvp;
  // aᵀ∇²L b for L = ⟨W, attention(Q, K, V)⟩ (w: n x dv), along directions a and b
  std::function<T(const T* q, const T* k, const T* v, const T* w, kernels::HeadDirection<T> a,
                  kernels::HeadDirection<T> b, std::size_t n, std::size_t m, std::size_t d, std::size_t dv, bool causal)>
      attention_hvp;
  std::function<void(std::size_t t, std::size_t d, T* row)> position_encoding;  // one row of Φ
  // Batched attention as shipped (kernels/attention_batched.hpp): O in p.shape's layout and, when
  // lse is not null, the row log-sum-exp. The tiling is the reference's (0: plain); a kernel
  // that tiles on its own (a third party's) ignores it.
  std::function<void(const kernels::AttentionProblem& p, kernels::Tiling tiling, const T* q, const T* k, const T* v, T* o,
                     lse_t<T>* lse)>
      attention_batched;
  // Its backward pass (kernels/attention_backward.hpp): dQ, dK, dV in q's, k's and v's layouts
  // from q, k, v, the forward's o and lse, and the cotangent dout (o's layout). Tiling as above.
  std::function<void(const kernels::AttentionProblem& p, kernels::Tiling tiling, const T* q, const T* k, const T* v, const T* o,
                     const T* dout, const lse_t<T>* lse, T* dq, T* dk, T* dv)>
      attention_backward;
  // The merge of split-KV partial results (kernels/attention_merge.hpp): from S partial outputs
  // o_parts (S × rows × dv) and their log-sum-exps lse_parts (S × rows), each row's o (rows × dv)
  // and, when lse is not null, its log-sum-exp (rows).
  std::function<void(std::size_t splits, std::size_t rows, std::size_t dv, const T* o_parts, const lse_t<T>* lse_parts, T* o,
                     lse_t<T>* lse)>
      attention_merge;
  // Attention over a packed variable-length batch (kernels/attention_varlen.hpp): p.shape.batch
  // sequences at the offsets of pk, p.shape.n and .m the largest n_b and m_b; q, k, v, o packed
  // (total tokens × heads × width), the LSE H × total_q when lse is not null. Tiling as above.
  std::function<void(const kernels::AttentionProblem& p, const kernels::Packing& pk, kernels::Tiling tiling, const T* q, const T* k,
                     const T* v, T* o, lse_t<T>* lse)>
      attention_varlen;
  // Attention over a paged KV cache (kernels/attention_paged.hpp): the queries packed at the
  // offsets cu_q (B + 1), the keys and values in k_cache and v_cache (pt.num_pages × pt.page_size
  // × H_kv × width) found through pt's block table; o and the LSE in attention_varlen's layouts.
  std::function<void(const kernels::AttentionProblem& p, const std::vector<std::int32_t>& cu_q, const kernels::PageTable& pt,
                     kernels::Tiling tiling, const T* q, const T* k_cache, const T* v_cache, T* o, lse_t<T>* lse)>
      attention_paged;
  // An FP8 KV cache (kernels/attention_fp8kv.hpp): its write, the codes of n values x with one
  // scale under the declared format and overflow rule; and attention over it, q in T, the codes
  // k8, v8 in k's and v's layouts, the scales per tensor or per key/value head: attention_batched's
  // o and, when lse is not null, its LSE. Tiling as above.
  std::function<void(kernels::Fp8Spec s, const T* x, std::size_t n, float scale, std::uint8_t* codes)> fp8_quantize;
  std::function<void(const kernels::AttentionProblem& p, kernels::Fp8Spec s, const kernels::Fp8Scales& sc, kernels::Tiling tiling,
                     const T* q, const std::uint8_t* k8, const std::uint8_t* v8, T* o, lse_t<T>* lse)>
      attention_fp8kv;
  bool attention_batched_lse = true;  // false: the kernel returns no LSE (it is never asked for one)
  bool attention_merge_lse = true;    // the same for attention_merge
  // true: attention_batched computes with the tiling it is given (the reference and its mutants),
  // so a bound may be derived for that tiling; false (a third party's kernel): for any tiling.
  bool attention_batched_follows_tiling = false;
  // true: attention_paged gives the same bits whatever the page size the same tokens are stored in
  // (the reference: it gathers the keys, then attends; --page-size-invariant for an audited
  // kernel): FALSIFY-PAGED-002 then also redraws the page size. false: it keeps it.
  bool attention_paged_page_size_invariant = false;
  // true: attention_varlen computes each sequence in the order attention_batched computes it
  // alone (the reference: varlen is attention_batched per sequence, with the same tiling;
  // --packing-invariant for an audited kernel): FALSIFY-VARLEN-003 then demands the same bits.
  // false: within twice the derived allowance.
  bool attention_varlen_packing_invariant = false;
  // The masked-row policy of each attention kind (kernels/masked_policy.hpp): what O must be in a
  // row that sees no key (the merge: a row no split saw a key of). either for the reference and
  // its mutants and for an audited kernel that declares none; an audited kernel's --masked or
  // masked: otherwise. attention_batched's covers the dense kernel split or not (FALSIFY-MERGE-004).
  MaskedPolicy attention_batched_masked = MaskedPolicy::either;
  MaskedPolicy attention_merge_masked = MaskedPolicy::either;
  MaskedPolicy attention_varlen_masked = MaskedPolicy::either;
  MaskedPolicy attention_paged_masked = MaskedPolicy::either;
  MaskedPolicy attention_fp8kv_masked = MaskedPolicy::either;
};

namespace detail {
template <class C, class S>
std::vector<C> widen(const S* x, std::size_t n) {  // exact: every S value is a C value
  std::vector<C> r(n);
  for (std::size_t i = 0; i < n; ++i) r[i] = scalar_traits<C>::from_double(scalar_traits<S>::to_double(x[i]));
  return r;
}
template <class S, class C>
S narrow(C v) { return scalar_traits<S>::from_double(scalar_traits<C>::to_double(v)); }  // one rounding (C ⊂ double)
template <class S, class C>
void narrow(const std::vector<C>& v, S* out) {
  for (std::size_t i = 0; i < v.size(); ++i) out[i] = narrow<S>(v[i]);
}
}  // namespace detail

// The kernels k (values in C), as kernels whose values are stored in S: each call converts its
// inputs to C (exactly), runs k and rounds each output once to S, as PyTorch's CPU kernels,
// oneDNN and FlashAttention treat 16-bit storage with f32 arithmetic (scalar/arithmetic.hpp).
// The formulas stay those of k: no kernel is written twice.
template <class S, class C>
KernelSet<S> computed_in(const KernelSet<C>& k) {
  using detail::narrow;
  using detail::widen;
  KernelSet<S> r;
  r.name = k.name;
  const auto row_op = [](const auto& f) {
    return [f](const S* x, S* y, std::size_t n) {
      std::vector<C> out(n);
      f(widen<C>(x, n).data(), out.data(), n);
      narrow(out, y);
    };
  };
  r.softmax = row_op(k.softmax);
  r.log_softmax = row_op(k.log_softmax);
  r.scores = [f = k.scores](const S* q, const S* kk, std::size_t n, std::size_t m, std::size_t d, S* s) {
    std::vector<C> out(n * m);
    f(widen<C>(q, n * d).data(), widen<C>(kk, m * d).data(), n, m, d, out.data());
    narrow(out, s);
  };
  r.rmsnorm = [f = k.rmsnorm](const S* x, const S* w, std::size_t d, S eps, S* y) {
    std::vector<C> out(d);
    f(widen<C>(x, d).data(), widen<C>(w, d).data(), d, widen<C>(&eps, 1)[0], out.data());
    narrow(out, y);
  };
  r.rmsnorm_heads = [f = k.rmsnorm_heads](const S* x, const S* w, std::size_t h, std::size_t d, S eps, S* y) {
    std::vector<C> out(h * d);
    f(widen<C>(x, h * d).data(), widen<C>(w, d).data(), h, d, widen<C>(&eps, 1)[0], out.data());
    narrow(out, y);
  };
  r.entropy = [f = k.entropy](const S* p, std::size_t n) { return narrow<S>(f(widen<C>(p, n).data(), n)); };
  r.attention = [f = k.attention](const S* q, const S* kk, const S* v, std::size_t n, std::size_t m, std::size_t d, std::size_t dv,
                                  bool causal, S* o) {
    std::vector<C> out(n * dv);
    f(widen<C>(q, n * d).data(), widen<C>(kk, m * d).data(), widen<C>(v, m * dv).data(), n, m, d, dv, causal, out.data());
    narrow(out, o);
  };
  r.softmax_jvp = [f = k.softmax_jvp](const S* x, const S* dx, std::size_t n, S* dy) {
    std::vector<C> out(n);
    f(widen<C>(x, n).data(), widen<C>(dx, n).data(), n, out.data());
    narrow(out, dy);
  };
  r.attention_hvp = [f = k.attention_hvp](const S* q, const S* kk, const S* v, const S* w, kernels::HeadDirection<S> a,
                                          kernels::HeadDirection<S> b, std::size_t n, std::size_t m, std::size_t d, std::size_t dv,
                                          bool causal) {
    const auto wide = [](const S* p, std::size_t len) { return p ? widen<C>(p, len) : std::vector<C>{}; };
    const auto q2 = wide(q, n * d), k2 = wide(kk, m * d), v2 = wide(v, m * dv), w2 = wide(w, n * dv);
    const auto aq = wide(a.q, n * d), ak = wide(a.k, m * d), av = wide(a.v, m * dv);
    const auto bq = wide(b.q, n * d), bk = wide(b.k, m * d), bv = wide(b.v, m * dv);
    const auto ptr = [](const std::vector<C>& x) { return x.empty() ? nullptr : x.data(); };
    return narrow<S>(f(ptr(q2), ptr(k2), ptr(v2), ptr(w2), {ptr(aq), ptr(ak), ptr(av)}, {ptr(bq), ptr(bk), ptr(bv)}, n, m, d, dv,
                       causal));
  };
  r.position_encoding = [f = k.position_encoding](std::size_t t, std::size_t d, S* row) {
    std::vector<C> out(d);
    f(t, d, out.data());
    narrow(out, row);
  };
  // The LSE is returned in lse_t, which holds every C value (f32 arithmetic: lse_t<S> = float):
  // only O is rounded to storage.
  r.attention_batched = [f = k.attention_batched](const kernels::AttentionProblem& p, kernels::Tiling t, const S* q, const S* kk,
                                                  const S* v, S* o, lse_t<S>* lse) {
    const auto& sh = p.shape;
    std::vector<C> out(sh.o_size());
    std::vector<lse_t<C>> l(lse ? sh.lse_size() : 0);
    f(p, t, widen<C>(q, sh.q_size()).data(), widen<C>(kk, sh.k_size()).data(), widen<C>(v, sh.v_size()).data(), out.data(),
      lse ? l.data() : nullptr);
    narrow(out, o);
    for (std::size_t i = 0; i < l.size(); ++i) lse[i] = static_cast<lse_t<S>>(l[i]);
  };
  r.attention_backward = [f = k.attention_backward](const kernels::AttentionProblem& p, kernels::Tiling t, const S* q, const S* kk,
                                                    const S* v, const S* o, const S* dout, const lse_t<S>* lse, S* dq, S* dk, S* dv) {
    const auto& sh = p.shape;
    std::vector<C> gq(sh.q_size()), gk(sh.k_size()), gv(sh.v_size());
    std::vector<lse_t<C>> l(lse, lse + sh.lse_size());  // lse_t<S> = lse_t<C> = float: exact
    f(p, t, widen<C>(q, sh.q_size()).data(), widen<C>(kk, sh.k_size()).data(), widen<C>(v, sh.v_size()).data(),
      widen<C>(o, sh.o_size()).data(), widen<C>(dout, sh.o_size()).data(), l.data(), gq.data(), gk.data(), gv.data());
    narrow(gq, dq);
    narrow(gk, dk);
    narrow(gv, dv);
  };
  // The partial LSEs are lse_t<S> = lse_t<C> (exact); only O is rounded to storage.
  r.attention_merge = [f = k.attention_merge](std::size_t splits, std::size_t rows, std::size_t dv, const S* o_parts,
                                              const lse_t<S>* lse_parts, S* o, lse_t<S>* lse) {
    std::vector<C> out(rows * dv);
    f(splits, rows, dv, widen<C>(o_parts, splits * rows * dv).data(), lse_parts, out.data(), lse);
    narrow(out, o);
  };
  // The codes are the values' own: only x and q are widened, only O rounded to storage.
  r.fp8_quantize = [f = k.fp8_quantize](kernels::Fp8Spec sp, const S* x, std::size_t n, float scale, std::uint8_t* codes) {
    f(sp, widen<C>(x, n).data(), n, scale, codes);
  };
  r.attention_fp8kv = [f = k.attention_fp8kv](const kernels::AttentionProblem& p, kernels::Fp8Spec sp, const kernels::Fp8Scales& sc,
                                              kernels::Tiling t, const S* q, const std::uint8_t* k8, const std::uint8_t* v8, S* o,
                                              lse_t<S>* lse) {
    std::vector<C> out(p.shape.o_size());
    std::vector<lse_t<C>> l(lse ? p.shape.lse_size() : 0);
    f(p, sp, sc, t, widen<C>(q, p.shape.q_size()).data(), k8, v8, out.data(), lse ? l.data() : nullptr);
    narrow(out, o);
    for (std::size_t i = 0; i < l.size(); ++i) lse[i] = static_cast<lse_t<S>>(l[i]);
  };
  r.attention_paged = [f = k.attention_paged](const kernels::AttentionProblem& p, const std::vector<std::int32_t>& cu_q,
                                              const kernels::PageTable& pt, kernels::Tiling t, const S* q, const S* kc, const S* vc, S* o,
                                              lse_t<S>* lse) {
    const auto& sh = p.shape;
    const std::size_t nq = cu_q.empty() ? 0 : static_cast<std::size_t>(cu_q.back()), nt = pt.tokens();
    std::vector<C> out(nq * sh.heads * sh.dv);
    std::vector<lse_t<C>> l(lse ? nq * sh.heads : 0);
    f(p, cu_q, pt, t, widen<C>(q, nq * sh.heads * sh.d).data(), widen<C>(kc, nt * sh.kv_heads * sh.d).data(),
      widen<C>(vc, nt * sh.kv_heads * sh.dv).data(), out.data(), lse ? l.data() : nullptr);
    narrow(out, o);
    for (std::size_t i = 0; i < l.size(); ++i) lse[i] = static_cast<lse_t<S>>(l[i]);
  };
  r.attention_varlen = [f = k.attention_varlen](const kernels::AttentionProblem& p, const kernels::Packing& pk, kernels::Tiling t,
                                                const S* q, const S* kk, const S* v, S* o, lse_t<S>* lse) {
    const auto& sh = p.shape;
    const std::size_t nq = pk.total_q(), nk = pk.total_k();
    std::vector<C> out(nq * sh.heads * sh.dv);
    std::vector<lse_t<C>> l(lse ? nq * sh.heads : 0);
    f(p, pk, t, widen<C>(q, nq * sh.heads * sh.d).data(), widen<C>(kk, nk * sh.kv_heads * sh.d).data(),
      widen<C>(v, nk * sh.kv_heads * sh.dv).data(), out.data(), lse ? l.data() : nullptr);
    narrow(out, o);
    for (std::size_t i = 0; i < l.size(); ++i) lse[i] = static_cast<lse_t<S>>(l[i]);
  };
  r.attention_batched_lse = k.attention_batched_lse;
  r.attention_merge_lse = k.attention_merge_lse;
  r.attention_batched_follows_tiling = k.attention_batched_follows_tiling;
  r.attention_paged_page_size_invariant = k.attention_paged_page_size_invariant;
  r.attention_varlen_packing_invariant = k.attention_varlen_packing_invariant;
  r.attention_batched_masked = k.attention_batched_masked;
  r.attention_merge_masked = k.attention_merge_masked;
  r.attention_varlen_masked = k.attention_varlen_masked;
  r.attention_paged_masked = k.attention_paged_masked;
  r.attention_fp8kv_masked = k.attention_fp8kv_masked;
  return r;
}

// The slot attention_batched for the template kernels::attention_batched<T, Steps> (the reference,
// or a broken kernel's Steps): the LSE computed in T, returned in lse_t<T> (exact: T ⊂ lse_t<T>).
template <class T, class Steps = kernels::AttentionSteps>
auto attention_batched_kernel() {
  return [](const kernels::AttentionProblem& p, kernels::Tiling t, const T* q, const T* k, const T* v, T* o, lse_t<T>* lse) {
    std::vector<T> l(lse ? p.shape.lse_size() : 0);
    kernels::attention_batched<T, Steps>(p, q, k, v, o, lse ? l.data() : nullptr, t);
    for (std::size_t i = 0; i < l.size(); ++i) lse[i] = static_cast<lse_t<T>>(l[i]);
  };
}

// The slot attention_backward for kernels::attention_backward<T, Steps> (the reference or a broken
// kernel's Steps): the LSE given in lse_t<T>, rounded once to T (exact for f32 and f64).
template <class T, class Steps = kernels::AttentionBackwardSteps>
auto attention_backward_kernel() {
  return [](const kernels::AttentionProblem& p, kernels::Tiling t, const T* q, const T* k, const T* v, const T* o, const T* dout,
            const lse_t<T>* lse, T* dq, T* dk, T* dv) {
    std::vector<T> l(p.shape.lse_size());
    for (std::size_t i = 0; i < l.size(); ++i) l[i] = scalar_traits<T>::from_double(static_cast<double>(lse[i]));
    kernels::attention_backward<T, Steps>(p, q, k, v, o, dout, l.data(), dq, dk, dv, t);
  };
}

// The slot attention_varlen for kernels::attention_varlen<T, Steps> (the reference or a broken
// kernel's Steps): the LSE computed in T, returned in lse_t<T> (exact).
template <class T, class Steps = kernels::AttentionSteps, class Pack = kernels::VarlenSteps>
auto attention_varlen_kernel() {
  return [](const kernels::AttentionProblem& p, const kernels::Packing& pk, kernels::Tiling t, const T* q, const T* k, const T* v, T* o,
            lse_t<T>* lse) {
    std::vector<T> l(lse ? pk.total_q() * p.shape.heads : 0);
    kernels::attention_varlen<T, Steps, Pack>(p, pk, q, k, v, o, lse ? l.data() : nullptr, t);
    for (std::size_t i = 0; i < l.size(); ++i) lse[i] = static_cast<lse_t<T>>(to_double(l[i]));
  };
}

// The slots fp8_quantize and attention_fp8kv for kernels::fp8_quantize<T, F> and
// kernels::attention_fp8kv<T, Steps, F> (the reference or a broken kernel's F).
template <class T, class F = kernels::Fp8Steps>
auto fp8_quantize_kernel() {
  return [](kernels::Fp8Spec s, const T* x, std::size_t n, float scale, std::uint8_t* codes) { kernels::fp8_quantize<T, F>(s, x, n, scale, codes); };
}
template <class T, class Steps = kernels::AttentionSteps, class F = kernels::Fp8Steps>
auto attention_fp8kv_kernel() {
  return [](const kernels::AttentionProblem& p, kernels::Fp8Spec s, const kernels::Fp8Scales& sc, kernels::Tiling t, const T* q,
            const std::uint8_t* k8, const std::uint8_t* v8, T* o, lse_t<T>* lse) {
    std::vector<T> l(lse ? p.shape.lse_size() : 0);
    kernels::attention_fp8kv<T, Steps, F>(p, s, sc, q, k8, v8, o, lse ? l.data() : nullptr, t);
    for (std::size_t i = 0; i < l.size(); ++i) lse[i] = static_cast<lse_t<T>>(to_double(l[i]));
  };
}

// The slot attention_paged for kernels::attention_paged<T, Steps, Pages> (the reference or a
// broken kernel's Pages): the LSE computed in T, returned in lse_t<T> (exact).
template <class T, class Steps = kernels::AttentionSteps, class Pages = kernels::PagedSteps>
auto attention_paged_kernel() {
  return [](const kernels::AttentionProblem& p, const std::vector<std::int32_t>& cu_q, const kernels::PageTable& pt, kernels::Tiling t,
            const T* q, const T* kc, const T* vc, T* o, lse_t<T>* lse) {
    const std::size_t nq = cu_q.empty() ? 0 : static_cast<std::size_t>(cu_q.back());
    std::vector<T> l(lse ? nq * p.shape.heads : 0);
    kernels::attention_paged<T, Steps, Pages>(p, cu_q, pt, q, kc, vc, o, lse ? l.data() : nullptr, t);
    for (std::size_t i = 0; i < l.size(); ++i) lse[i] = static_cast<lse_t<T>>(to_double(l[i]));
  };
}

// The slot attention_merge for kernels::attention_merge<T, Steps> (the reference or a broken
// kernel's Steps): the partial LSEs rounded once to T (exact for f32 and f64), the LSE computed
// in T and returned in lse_t<T> (exact).
template <class T, class Steps = kernels::MergeSteps>
auto attention_merge_kernel() {
  return [](std::size_t splits, std::size_t rows, std::size_t dv, const T* o_parts, const lse_t<T>* lse_parts, T* o, lse_t<T>* lse) {
    std::vector<T> lp(splits * rows), l(lse ? rows : 0);
    for (std::size_t i = 0; i < lp.size(); ++i) lp[i] = scalar_traits<T>::from_double(static_cast<double>(lse_parts[i]));
    kernels::attention_merge<T, Steps>(splits, rows, dv, o_parts, lp.data(), o, lse ? l.data() : nullptr);
    for (std::size_t i = 0; i < l.size(); ++i) lse[i] = static_cast<lse_t<T>>(to_double(l[i]));
  };
}

// The built-in reference kernels: the templates of src/attncheck/kernels at T, computed in T.
template <class T>
KernelSet<T> reference_kernels_in_storage() {
  KernelSet<T> k;
  k.softmax = kernels::softmax<T>;
  k.log_softmax = kernels::log_softmax<T>;
  k.scores = kernels::scores<T>;
  k.rmsnorm = kernels::rmsnorm<T>;
  k.rmsnorm_heads = kernels::rmsnorm_heads<T>;
  k.entropy = kernels::entropy<T>;
  k.attention = kernels::attention<T>;
  k.softmax_jvp = kernels::softmax_jvp<T>;
  k.attention_hvp = kernels::attention_hvp<T>;
  k.position_encoding = kernels::position_encoding<T>;
  k.attention_batched = attention_batched_kernel<T>();
  k.attention_backward = attention_backward_kernel<T>();
  k.attention_merge = attention_merge_kernel<T>();
  k.attention_varlen = attention_varlen_kernel<T>();
  k.attention_paged = attention_paged_kernel<T>();
  k.fp8_quantize = fp8_quantize_kernel<T>();
  k.attention_fp8kv = attention_fp8kv_kernel<T>();
  k.attention_batched_follows_tiling = true;
  k.attention_paged_page_size_invariant = true;
  k.attention_varlen_packing_invariant = true;
  return k;
}

// The reference kernels at storage S and arithmetic C: the templates at C, converted in and
// rounded once to S (computed_in) when C is wider.
template <class S, class C = S>
KernelSet<S> reference_kernels() {
  if constexpr (std::is_same_v<S, C>) return reference_kernels_in_storage<S>();
  else return computed_in<S, C>(reference_kernels_in_storage<C>());
}

// The reference kernels at storage T under the current arithmetic (scalar/arithmetic.hpp).
template <class T>
KernelSet<T> current_reference_kernels() {
  if constexpr (std::is_same_v<T, f16> || std::is_same_v<T, bf16>)
    if (current_arithmetic() == Arithmetic::f32) return reference_kernels<T, float>();
  return reference_kernels<T>();
}

// Kernel sets supplied by the caller for a run, at the scalar types it has them for (e.g. the
// kernels under `attncheck audit`): property::RunParams::kernels carries them to the properties in
// place of the reference or a mutant.
struct KernelSets {
  std::string name;  // what the reports call them
  std::tuple<std::optional<KernelSet<f16>>, std::optional<KernelSet<bf16>>, std::optional<KernelSet<float>>,
             std::optional<KernelSet<double>>>
      sets;
  template <class T>
  void set(KernelSet<T> k) { std::get<std::optional<KernelSet<T>>>(sets) = std::move(k); }
  template <class T>
  const KernelSet<T>* find() const {
    const auto& s = std::get<std::optional<KernelSet<T>>>(sets);
    return s ? &*s : nullptr;
  }
};

}  // namespace attncheck
