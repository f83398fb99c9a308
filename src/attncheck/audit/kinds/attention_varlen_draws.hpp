// attncheck audit: how the obligations every kind has (AUDIT-SAFE-001, -DET-001, -NAN-001) draw and
// call attention_varlen (attention_varlen.cpp), registered in draws_registry.hpp.
#pragma once

#include "attncheck/audit/properties_draws.hpp"

namespace attncheck::audit::obligations {

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

template <class T>
DrawnCall<T> attention_varlen_call(Kind, const KernelSet<T>& ks) {  // o (the LSE is asked too, so a stray write past it is seen; NULL when declared none)
  Drawn<T> d;
  const auto c = draw_varlen<T>();
  d.inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
  d.shape = c.shape();
  return {d, [c, &ks] {
            std::vector<lse_t<T>> l;
            return c.run(ks, &l);
          }};
}

// Where a NaN is put in a packed batch (attention_varlen, and attention_paged before its keys are
// scattered over pages), the rows (token, head) whose outputs and LSE it must reach, and the key
// it is in (within its sequence b; m_b when it is in a query).
struct NanInBatch {
  std::size_t b = 0, nan_key = 0;
  std::vector<std::pair<std::size_t, std::size_t>> rows;
  std::string why;
};

// Unmasked, so every query of a sequence sees every key of it (and of no other): a NaN in
// q[t][h][:] of a sequence with a key reaches every output of row (t, h) and its LSE; a NaN in
// k[j][g][:] of sequence b reaches every output and LSE of every query of b whose head reads g. A
// sequence without queries or keys has no row to reach. A kernel declared without unmasked problems
// (--supports non_causal=no) is given a causal mask of an alignment it declared, so that it is
// judged here too: a NaN then reaches the rows that see its key (a row that sees none is the
// masked-row policy's, not demanded).
template <class T>
NanInBatch put_nan_in_batch(Kind k, VarlenCase<T>& c) {
  NanInBatch r;
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
  r.b = b;
  const std::size_t q0 = static_cast<std::size_t>(c.pk.cu_q[b]), k0 = static_cast<std::size_t>(c.pk.cu_k[b]);
  r.nan_key = c.pk.m_of(b);
  const auto sees = [&](std::size_t t, std::size_t j) { return c.p.mask.sees(t - q0, j, c.pk.n_of(b), c.pk.m_of(b)); };
  std::vector<std::size_t> seeing;  // the queries of b that see a key (all of them, unmasked)
  for (std::size_t t = q0; t < q0 + c.pk.n_of(b); ++t)
    if (!c.p.mask.visible(t - q0, c.pk.n_of(b), c.pk.m_of(b)).empty()) seeing.push_back(t);
  if (*rc::gen::arbitrary<bool>()) {
    RC_PRE(!seeing.empty());
    const std::size_t t = c.p.mask.causal ? *rc::gen::elementOf(seeing) : q0 + *rc::gen::inRange<std::size_t>(0, c.pk.n_of(b)),
                      h = *rc::gen::inRange<std::size_t>(0, sh.heads), e = *rc::gen::inRange<std::size_t>(0, sh.d);
    c.q[(t * sh.heads + h) * sh.d + e] = nan_value<T>();
    r.why = "q[" + std::to_string(t) + "][" + std::to_string(h) + "][" + std::to_string(e) + "] is NaN (a query of sequence " +
            std::to_string(b) + "; " + c.shape() + ")";
    r.rows.emplace_back(t, h);
  } else {
    const std::size_t j = k0 + *rc::gen::inRange<std::size_t>(0, c.pk.m_of(b)), g = *rc::gen::inRange<std::size_t>(0, sh.kv_heads),
                      e = *rc::gen::inRange<std::size_t>(0, sh.d);
    c.k[(j * sh.kv_heads + g) * sh.d + e] = nan_value<T>();
    r.nan_key = j - k0;
    r.why = "k[" + std::to_string(j) + "][" + std::to_string(g) + "][" + std::to_string(e) + "] is NaN (a key of sequence " +
            std::to_string(b) + "; " + c.shape() + ")";
    for (std::size_t t = q0; t < q0 + c.pk.n_of(b); ++t)
      for (std::size_t h = 0; h < sh.heads; ++h)
        if (sh.kv_head(h) == g && sees(t, j - k0)) r.rows.emplace_back(t, h);
    RC_PRE(!r.rows.empty());  // a key no row sees (masked) reaches nothing: no case (never unmasked)
  }
  return r;
}

// The outputs of those rows must be NaN, and their LSE (H × total_q) when asked.
template <class T>
void nan_rows_of_batch(Kind k, const VarlenCase<T>& c, const NanInBatch& at, const std::vector<lse_t<T>>& l, NanCase<T>& r) {
  const auto& sh = c.p.shape;
  for (const auto& [t, h] : at.rows) {
    for (std::size_t e = 0; e < sh.dv; ++e) r.must.push_back((t * sh.heads + h) * sh.dv + e);
    if (!l.empty())
      lse_must_be_nan(k, "lse[" + std::to_string(h) + "][" + std::to_string(t) + "]", static_cast<double>(l[h * c.pk.total_q() + t]), r);
  }
}

template <class T>
NanCase<T> attention_varlen_nan(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  NanCase<T> r;
  auto c = draw_varlen<T>(true);
  const auto at = put_nan_in_batch(k, c);
  r.why = at.why;
  std::vector<lse_t<T>> l;
  r.y = c.run(ks, pol.returns_lse ? &l : nullptr);
  r.inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
  nan_rows_of_batch(k, c, at, l, r);
  return r;
}

}  // namespace attncheck::audit::obligations
