// attncheck: broken packed-batch (varlen) attention kernels, beside the kernel they break. Each
// replaces one packing step of kernels::VarlenSteps (attention_varlen.hpp) with a bug class of
// shipped varlen kernels: a sequence reading its neighbour's keys, keys addressed by the query
// offsets, the dense causal rule applied per sequence, the last sequence never computed, the LSE
// in the dense layout. The tests that must catch each are named in
// falsify/mutants/attention_varlen.cpp.
#pragma once

#include <algorithm>
#include <cstddef>

#include "attncheck/kernels/attention_varlen.hpp"

namespace attncheck::kernels::broken {

// Sequence b (not the last) reads its keys up to the end of sequence b + 1: the upper offset
// taken two entries on (cu_k[b + 2]), the tokens of another sequence attended to.
struct VarlenKeysOfNextSequence : VarlenSteps {
  static AttentionProblem problem(const AttentionProblem& p, const Packing& pk, std::size_t b) {
    AttentionProblem s = sequence_problem(p, pk, b);
    if (b + 1 < pk.sequences()) s.shape.m += pk.m_of(b + 1);
    return s;
  }
};

// Sequence b's keys and values read at its query offset cu_q[b] (right only while every sequence
// has n_b = m_b, as in self-attention prefill).
struct VarlenKeysAtQueryOffset : VarlenSteps {
  static std::size_t key_start(const Packing& pk, std::size_t b) {
    const std::size_t at = static_cast<std::size_t>(pk.cu_q[b]);
    return at + pk.m_of(b) <= pk.total_k() ? at : static_cast<std::size_t>(pk.cu_k[b]);  // stays inside k
  }
};

// Every sequence's causal mask aligned top-left (c(i) = i), as the dense rule of a square problem:
// wrong for bottom-right alignment wherever n_b != m_b (decode and chunked prefill).
struct VarlenTopLeftPerSequence : VarlenSteps {
  static AttentionProblem problem(const AttentionProblem& p, const Packing& pk, std::size_t b) {
    AttentionProblem s = sequence_problem(p, pk, b);
    s.mask.alignment = Alignment::top_left;
    return s;
  }
};

// The last sequence never computed (a loop bound of B − 1): its outputs stay as they were.
struct VarlenLastSequenceSkipped : VarlenSteps {
  static std::size_t sequences(const Packing& pk) { return pk.sequences() > 1 ? pk.sequences() - 1 : pk.sequences(); }
};

// The LSE written in the dense layout B × H × max_n (the padded batch's) instead of H × total_q;
// the index is kept inside the H × total_q buffer (taken modulo its size).
struct VarlenLseDenseLayout : VarlenSteps {
  static std::size_t lse_at(const AttentionProblem& p, const Packing& pk, std::size_t b, std::size_t h, std::size_t i) {
    const std::size_t size = pk.total_q() * p.shape.heads;
    return ((b * p.shape.heads + h) * p.shape.n + i) % size;
  }
};

// The packed path's key blocks not the dense path's: blocks of 3 keys (2 where the caller's are 3),
// as a kernel whose varlen path tiles differently from its dense one. Correct within the bound, but
// its bits depend on the packing; this one keeps the reference's claim that they do not
// (KernelSet::attention_varlen_packing_invariant).
struct VarlenBlocksNotDense : VarlenSteps {
  static Tiling tiling(const Packing&, Tiling t) { return {std::max<std::size_t>(t.br, 1), t.bc == 3 ? std::size_t{2} : std::size_t{3}}; }
};

}  // namespace attncheck::kernels::broken
