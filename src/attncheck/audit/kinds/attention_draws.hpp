// attncheck audit: how the obligations every kind has (AUDIT-SAFE-001, -DET-001, -NAN-001) draw and
// call attention_v2 and attention_backward (attention.cpp), registered in draws_registry.hpp.
#pragma once

#include "attncheck/audit/properties_draws.hpp"

namespace attncheck::audit::obligations {

// attention_v2: the output O (the LSE is asked when the kernel returns one, so its bounds are checked).
template <class T>
DrawnCall<T> attention_v2_call(Kind, const KernelSet<T>& ks) {
  Drawn<T> d;
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

// Unmasked: a NaN in q[b,i,h,:] reaches every output of row (b,i,h), and its LSE.
template <class T>
NanCase<T> attention_v2_nan(Kind k, const KernelSet<T>& ks, const Policy&) {
  NanCase<T> r;
  auto c = draw_batched<T>(true);
  const auto& sh = c.p.shape;
  const std::size_t at = put_nan(c.q), row = at / sh.d, h = row % sh.heads, i = row / sh.heads % sh.n, b = row / sh.heads / sh.n;
  r.why = "q[" + std::to_string(b) + "][" + std::to_string(i) + "][" + std::to_string(h) + "][" + std::to_string(at % sh.d) + "] is NaN (" +
          c.p.describe() + ")";
  r.y.resize(sh.o_size());
  std::vector<lse_t<T>> l(ks.attention_batched_lse ? sh.lse_size() : 0);
  ks.attention_batched(c.p, {}, c.q.data(), c.k.data(), c.v.data(), r.y.data(), l.empty() ? nullptr : l.data());
  for (std::size_t e = 0; e < sh.dv; ++e) r.must.push_back(sh.o_at(b, i, h) + e);
  r.inputs = {{"q", c.q}, {"k", c.k}, {"v", c.v}};
  if (!l.empty())
    lse_must_be_nan(k, "lse[" + std::to_string(b) + "][" + std::to_string(h) + "][" + std::to_string(i) + "]",
                    static_cast<double>(l[sh.lse_at(b, h, i)]), r);
  return r;
}

// attention_backward: dQ, dK, dV in turn, as one output.
template <class T>
std::vector<T> gradients_of(const gen::BackwardCase<T>& bc, const KernelSet<T>& ks) {
  const auto g = bc.run(ks);
  std::vector<T> out(g.dq);
  out.insert(out.end(), g.dk.begin(), g.dk.end());
  out.insert(out.end(), g.dv.begin(), g.dv.end());
  return out;
}

template <class T>
DrawnCall<T> attention_backward_call(Kind, const KernelSet<T>& ks) {
  Drawn<T> d;
  const auto bc = gen::backward_case(draw_batched<T>());
  d.inputs = {{"q", bc.c.q}, {"k", bc.c.k}, {"v", bc.c.v}, {"o", bc.o}, {"dO", bc.dout}};
  d.shape = bc.c.p.describe();
  return {d, [bc, &ks] { return gradients_of(bc, ks); }};
}

// Unmasked, no soft-cap: a NaN in dO[b,i,h,c] makes D_i NaN, hence every dS_ij of the row: all of
// dQ[b,i,h,:] (the row's largest weight is about 1), and dK[b,j,g,:] and dV[b,j,g,c] of every key
// j whose weight P_ij is at least 2^-10. A key whose weight underflows may be skipped by a kernel
// (0 · NaN is never computed): no NaN is demanded there.
template <class T>
NanCase<T> attention_backward_nan(Kind, const KernelSet<T>& ks, const Policy&) {
  NanCase<T> r;
  auto c = draw_batched<T>(true);
  auto bc = gen::backward_case(c);
  const auto& sh = bc.c.p.shape;
  const std::size_t at = put_nan(bc.dout), col = at % sh.dv, row = at / sh.dv, h = row % sh.heads, i = row / sh.heads % sh.n,
                    b = row / sh.heads / sh.n, g = sh.kv_head(h);
  r.why = "dO[" + std::to_string(b) + "][" + std::to_string(i) + "][" + std::to_string(h) + "][" + std::to_string(col) + "] is NaN (" +
          bc.c.p.describe() + ")";
  r.y = gradients_of(bc, ks);
  for (std::size_t t = 0; t < sh.d; ++t) r.must.push_back(sh.q_at(b, i, h) + t);
  const auto rs = bounds::row_scores(bc.c.p, bc.c.q, bc.c.k, b, h, i, bounds::model_of<T>());
  const auto weights = oracle::softmax_row_exact(rs.s);
  for (std::size_t jj = 0; jj < rs.keys.size(); ++jj) {
    if (!(weights.p[jj] >= 0x1p-10L)) continue;
    const std::size_t j = rs.keys.first + jj;
    for (std::size_t t = 0; t < sh.d; ++t) r.must.push_back(sh.q_size() + sh.k_at(b, j, g) + t);
    r.must.push_back(sh.q_size() + sh.k_size() + sh.v_at(b, j, g) + col);
  }
  r.inputs = {{"q", bc.c.q}, {"k", bc.c.k}, {"v", bc.c.v}, {"o", bc.o}, {"dO", bc.dout}};
  return r;
}

}  // namespace attncheck::audit::obligations
