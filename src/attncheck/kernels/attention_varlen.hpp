// attncheck: attention over a packed variable-length batch (FlashAttention's varlen API, vLLM's and
// ONNX Runtime's packed sequences): B sequences of n_b queries and m_b keys laid end to end along
// the token axis, addressed by cumulative offsets cu_q, cu_k (B + 1 each). Sequence b is the dense
// problem of attention_batched.hpp with batch 1, n = n_b, m = m_b on its own tokens, so the
// reference is that kernel applied to each sequence in turn: one source. In the packed layout a
// sequence's q, k, v and o are contiguous blocks of the dense layout (tokens × heads × width); only
// the LSE (FlashAttention's H × total_q) is gathered.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attncheck/kernels/attention_batched.hpp"

namespace attncheck::kernels {

// The packing of a varlen batch: p.shape.batch sequences, offsets cu_q and cu_k.
struct Packing {
  std::vector<std::int32_t> cu_q, cu_k;  // B + 1 non-decreasing offsets from 0
  std::size_t sequences() const { return cu_q.empty() ? 0 : cu_q.size() - 1; }
  std::size_t n_of(std::size_t b) const { return static_cast<std::size_t>(cu_q[b + 1] - cu_q[b]); }
  std::size_t m_of(std::size_t b) const { return static_cast<std::size_t>(cu_k[b + 1] - cu_k[b]); }
  std::size_t total_q() const { return cu_q.empty() ? 0 : static_cast<std::size_t>(cu_q.back()); }
  std::size_t total_k() const { return cu_k.empty() ? 0 : static_cast<std::size_t>(cu_k.back()); }
  std::string describe() const {
    std::string r = "sequences (n_b, m_b):";
    for (std::size_t b = 0; b < sequences(); ++b) r += " (" + std::to_string(n_of(b)) + ", " + std::to_string(m_of(b)) + ")";
    return r;
  }
};

// The dense problem of sequence b: p with batch 1, n = n_b, m = m_b.
inline AttentionProblem sequence_problem(const AttentionProblem& p, const Packing& pk, std::size_t b) {
  AttentionProblem s = p;
  s.shape.batch = 1;
  s.shape.n = pk.n_of(b);
  s.shape.m = pk.m_of(b);
  return s;
}

// The packing steps of attention_varlen, static so that a broken kernel (broken_attention_varlen.hpp)
// replaces one and inherits the rest: which sequences are computed, where a sequence's keys start
// and how many it has, its dense problem, and where its LSE goes.
struct VarlenSteps {
  // The tiling each sequence is attended with: the caller's, the dense kernel's (so the reference's
  // bits do not depend on the packing: KernelSet::attention_varlen_packing_invariant).
  static Tiling tiling(const Packing&, Tiling t) { return t; }
  static std::size_t sequences(const Packing& pk) { return pk.sequences(); }
  static std::size_t key_start(const Packing& pk, std::size_t b) { return static_cast<std::size_t>(pk.cu_k[b]); }
  static AttentionProblem problem(const AttentionProblem& p, const Packing& pk, std::size_t b) { return sequence_problem(p, pk, b); }
  static std::size_t lse_at(const AttentionProblem& p, const Packing& pk, std::size_t b, std::size_t h, std::size_t i) {
    (void)p;
    return h * pk.total_q() + static_cast<std::size_t>(pk.cu_q[b]) + i;
  }
};

// O (total_q × H × dv) and, when lse is not null, the LSE (H × total_q) of a packed batch; the
// tiling as attention_batched's.
template <Scalar T, class Steps = AttentionSteps, class Pack = VarlenSteps>
void attention_varlen(const AttentionProblem& p, const Packing& pk, const T* q, const T* k, const T* v, T* o, T* lse, Tiling tiling = {}) {
  const auto& sh = p.shape;
  std::vector<T> l;
  for (std::size_t b = 0; b < Pack::sequences(pk); ++b) {
    const AttentionProblem s = Pack::problem(p, pk, b);
    if (s.shape.n == 0) continue;
    const std::size_t q0 = static_cast<std::size_t>(pk.cu_q[b]), k0 = Pack::key_start(pk, b);
    l.assign(lse ? s.shape.lse_size() : 0, lit<T>(0));
    attention_batched<T, Steps>(s, q + q0 * sh.heads * sh.d, k + k0 * sh.kv_heads * sh.d, v + k0 * sh.kv_heads * sh.dv,
                                o + q0 * sh.heads * sh.dv, lse ? l.data() : nullptr, Pack::tiling(pk, tiling));
    if (lse)
      for (std::size_t h = 0; h < sh.heads; ++h)
        for (std::size_t i = 0; i < s.shape.n; ++i) lse[Pack::lse_at(p, pk, b, h, i)] = l[s.shape.lse_at(0, h, i)];
  }
}

}  // namespace attncheck::kernels
