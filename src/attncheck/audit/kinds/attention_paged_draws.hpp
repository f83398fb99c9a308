// attncheck audit: how the obligations every kind has (AUDIT-SAFE-001, -DET-001, -NAN-001) draw and
// call attention_paged (attention_paged.cpp), registered in draws_registry.hpp.
#pragma once

#include "attncheck/audit/properties_draws.hpp"
#include "attncheck/audit/kinds/attention_varlen_draws.hpp"

namespace attncheck::audit::obligations {

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

template <class T>
DrawnCall<T> attention_paged_call(Kind, const KernelSet<T>& ks) {  // o, as attention_varlen's (the LSE asked too), the keys read through a block table
  Drawn<T> d;
  const auto pc = paged_from(draw_varlen<T>());
  d.inputs = {{"q", pc.vc.q}, {"k_cache", pc.k_cache}, {"v_cache", pc.v_cache}};
  d.shape = paged_shape(pc);
  return {d, [pc, &ks] {
            std::vector<lse_t<T>> l;
            return run_paged(pc, ks, &l);
          }};
}

// As attention_varlen's (put_nan_in_batch): the same batch with the NaN in place, then scattered
// over pages (the key's page slot holds the NaN).
template <class T>
NanCase<T> attention_paged_nan(Kind k, const KernelSet<T>& ks, const Policy& pol) {
  NanCase<T> r;
  auto c = draw_varlen<T>(true);
  const auto at = put_nan_in_batch(k, c);
  const auto pc = paged_from(c);
  r.why = at.why + (at.nan_key < c.pk.m_of(at.b) ? "; that key is cache token " + std::to_string(pc.pt.token_at(at.b, at.nan_key)) : std::string()) +
          "; " + pc.pt.describe();
  std::vector<lse_t<T>> l;
  r.y = run_paged(pc, ks, pol.returns_lse ? &l : nullptr);
  r.inputs = {{"q", pc.vc.q}, {"k_cache", pc.k_cache}, {"v_cache", pc.v_cache}};
  nan_rows_of_batch(k, c, at, l, r);
  return r;
}

}  // namespace attncheck::audit::obligations
