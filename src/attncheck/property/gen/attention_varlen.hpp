// attncheck: drawing packed variable-length batches (kernels/attention_varlen.hpp) for the gate
// and the audit: a batched case (attention_batched.hpp: masks, windows, soft-caps, ALiBi, shifted
// scores) whose batch entries become sequences of drawn lengths n_b <= n, m_b <= m (0 included),
// their leading tokens packed end to end.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

#include "attncheck/kernels/attention_varlen.hpp"
#include "attncheck/property/gen/attention_batched.hpp"
#include "attncheck/property/property.hpp"

namespace attncheck::gen {

template <class T>
struct VarlenCase {
  BatchedCase<T> c;          // the template: c.p is the packed problem (n, m the largest n_b, m_b)
  kernels::Packing pk;
  std::vector<T> q, k, v;    // packed: total tokens × heads × width

  struct Output {
    std::vector<T> o;
    std::vector<lse_t<T>> lse;  // H × total_q; empty when the kernel returns none
  };
  Output run(const KernelSet<T>& ks, const std::vector<T>& qq, const std::vector<T>& kk, const std::vector<T>& vv) const {
    const auto& s = c.p.shape;
    Output r{std::vector<T>(pk.total_q() * s.heads * s.dv, lit<T>(0)),
             std::vector<lse_t<T>>(ks.attention_batched_lse ? pk.total_q() * s.heads : 0, 0)};
    ks.attention_varlen(c.p, pk, c.tiling, qq.data(), kk.data(), vv.data(), r.o.data(), r.lse.empty() ? nullptr : r.lse.data());
    return r;
  }
  Output run(const KernelSet<T>& ks) const { return run(ks, q, k, v); }

  // Sequence b alone as a dense case (batch 1), for the oracle and for the dense kernel.
  BatchedCase<T> sequence(std::size_t b) const {
    const auto& s = c.p.shape;
    BatchedCase<T> d;
    d.p = kernels::sequence_problem(c.p, pk, b);
    d.tiling = c.tiling;
    d.shift = c.shift;
    const auto slice = [](const std::vector<T>& x, std::size_t from, std::size_t count) {
      return std::vector<T>(x.begin() + static_cast<std::ptrdiff_t>(from), x.begin() + static_cast<std::ptrdiff_t>(from + count));
    };
    d.q = slice(q, static_cast<std::size_t>(pk.cu_q[b]) * s.heads * s.d, pk.n_of(b) * s.heads * s.d);
    d.k = slice(k, static_cast<std::size_t>(pk.cu_k[b]) * s.kv_heads * s.d, pk.m_of(b) * s.kv_heads * s.d);
    d.v = slice(v, static_cast<std::size_t>(pk.cu_k[b]) * s.kv_heads * s.dv, pk.m_of(b) * s.kv_heads * s.dv);
    return d;
  }
  std::string describe() const { return c.describe() + ", packed " + pk.describe(); }
};

// A packed batch of 1 to 4 sequences, each of n_b <= n queries and m_b <= m keys (a third of the
// lengths drawn below the maximum, 0 included), from a batched case with that many batch entries.
template <class T>
VarlenCase<T> varlen_case() {
  BatchedLimits lim;
  lim.max_batch = 4;
  lim.max_n = 7, lim.max_m = 9;
  VarlenCase<T> r;
  r.c = batched_case<T>(lim, true);
  const auto& s = r.c.p.shape;
  r.pk.cu_q = {0};
  r.pk.cu_k = {0};
  for (std::size_t b = 0; b < s.batch; ++b) {
    const std::size_t nb = *rc::gen::inRange(0, 3) ? s.n : *rc::gen::inRange<std::size_t>(0, s.n + 1);
    const std::size_t mb = *rc::gen::inRange(0, 3) ? s.m : *rc::gen::inRange<std::size_t>(0, s.m + 1);
    r.pk.cu_q.push_back(r.pk.cu_q.back() + static_cast<std::int32_t>(nb));
    r.pk.cu_k.push_back(r.pk.cu_k.back() + static_cast<std::int32_t>(mb));
    const auto take = [](std::vector<T>& to, const std::vector<T>& from, std::size_t at, std::size_t count) {
      to.insert(to.end(), from.begin() + static_cast<std::ptrdiff_t>(at), from.begin() + static_cast<std::ptrdiff_t>(at + count));
    };
    take(r.q, r.c.q, s.q_at(b, 0, 0), nb * s.heads * s.d);
    take(r.k, r.c.k, s.k_at(b, 0, 0), mb * s.kv_heads * s.d);
    take(r.v, r.c.v, s.v_at(b, 0, 0), mb * s.kv_heads * s.dv);
  }
  // The packed problem's n and m are the largest n_b and m_b (FlashAttention's max_seqlen_q/k).
  std::size_t max_n = 0, max_m = 0;
  for (std::size_t b = 0; b < r.pk.sequences(); ++b) max_n = std::max(max_n, r.pk.n_of(b)), max_m = std::max(max_m, r.pk.m_of(b));
  r.c.p.shape.n = max_n;
  r.c.p.shape.m = max_m;
  return r;
}

}  // namespace attncheck::gen
