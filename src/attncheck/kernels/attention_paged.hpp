// attncheck: attention over a paged KV cache (vLLM's PagedAttention, FlashAttention's block_table,
// FlashInfer's page tables): the queries packed as in attention_varlen.hpp (cu_q), the keys and
// values of every sequence in fixed-size pages of a shared cache, found through a block table.
// Sequence b's logical key t lives in page block_table[b][t / page_size], slot t % page_size; a
// sequence's pages may be anywhere in the cache and interleaved with other sequences' pages, its
// last page may be partly filled, and nothing past its m_b = seqused_k[b] keys is ever read (the
// slots after them, the table entries after its pages, the pages no sequence uses: stale memory,
// NaN included). The reference gathers each sequence's keys in logical order and is then
// attention_varlen on those contiguous keys, which is attention_batched per sequence: one source.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attncheck/kernels/attention_varlen.hpp"

namespace attncheck::kernels {

// The page table of a paged KV cache of num_pages pages of page_size tokens: k_cache is
// num_pages × page_size × H_kv × d, v_cache num_pages × page_size × H_kv × dv.
struct PageTable {
  std::size_t page_size = 16, num_pages = 0, pages_per_seq = 0;
  std::vector<std::int32_t> block_table;  // B × pages_per_seq: sequence b's logical page → physical page
  std::vector<std::int32_t> seqused_k;    // B: m_b, the keys of sequence b
  std::size_t sequences() const { return seqused_k.size(); }
  std::size_t m_of(std::size_t b) const { return static_cast<std::size_t>(seqused_k[b]); }
  std::size_t pages_of(std::size_t b) const { return (m_of(b) + page_size - 1) / page_size; }
  std::size_t page(std::size_t b, std::size_t logical) const { return static_cast<std::size_t>(block_table[b * pages_per_seq + logical]); }
  // The physical token (page · page_size + slot) holding sequence b's logical key t.
  std::size_t token_at(std::size_t b, std::size_t t) const { return page(b, t / page_size) * page_size + t % page_size; }
  std::size_t tokens() const { return num_pages * page_size; }
  std::string describe() const {
    std::string r = "pages of " + std::to_string(page_size) + " tokens, " + std::to_string(num_pages) + " in the cache, block table " +
                    std::to_string(sequences()) + " × " + std::to_string(pages_per_seq) + ":";
    for (std::size_t b = 0; b < sequences(); ++b) {
      r += " [";
      for (std::size_t t = 0; t < pages_per_seq; ++t) r += (t ? " " : "") + std::to_string(block_table[b * pages_per_seq + t]);
      r += "]";
    }
    return r;
  }
};

// The logical packing of a paged batch: the queries' offsets cu_q, and the offsets the keys would
// have if each sequence's m_b keys were laid end to end (what the reference gathers them into).
inline Packing logical_packing(const std::vector<std::int32_t>& cu_q, const PageTable& pt) {
  Packing pk;
  pk.cu_q = cu_q;
  pk.cu_k = {0};
  for (std::size_t b = 0; b < pt.sequences(); ++b) pk.cu_k.push_back(pk.cu_k.back() + pt.seqused_k[b]);
  return pk;
}

// The paging steps of attention_paged, static so that a broken kernel (broken_attention_paged.hpp)
// replaces one: how many keys of sequence b are read, where its logical key t is found, and what
// a kernel touches beyond its visible keys once a sequence is done (nothing, in a correct kernel).
struct PagedSteps {
  // The tiling the gathered keys are attended with: the caller's (the reference gathers first, so
  // its bits do not depend on the page size: KernelSet::attention_paged_page_size_invariant).
  static Tiling tiling(const PageTable&, Tiling t) { return t; }
  static std::size_t keys(const PageTable& pt, std::size_t b) { return pt.m_of(b); }
  static std::size_t token_at(const PageTable& pt, std::size_t b, std::size_t t) { return pt.token_at(b, t); }
  template <Scalar T>
  static void after_sequence(const AttentionProblem&, const PageTable&, std::size_t, const T*, T*) {}
};

// O (total_q × H × dv) and, when lse is not null, the LSE (H × total_q, attention_varlen's layout)
// of a paged batch; the tiling as attention_batched's.
template <Scalar T, class Steps = AttentionSteps, class Pages = PagedSteps>
void attention_paged(const AttentionProblem& p, const std::vector<std::int32_t>& cu_q, const PageTable& pt, const T* q, const T* k_cache,
                     const T* v_cache, T* o, T* lse, Tiling tiling = {}) {
  const auto& sh = p.shape;
  Packing pk;
  pk.cu_q = cu_q;
  pk.cu_k = {0};
  std::vector<T> k, v;
  for (std::size_t b = 0; b < pt.sequences(); ++b) {
    const std::size_t m = Pages::keys(pt, b);
    pk.cu_k.push_back(pk.cu_k.back() + static_cast<std::int32_t>(m));
    for (std::size_t t = 0; t < m; ++t) {
      const std::size_t at = Pages::token_at(pt, b, t);
      k.insert(k.end(), k_cache + at * sh.kv_heads * sh.d, k_cache + (at + 1) * sh.kv_heads * sh.d);
      v.insert(v.end(), v_cache + at * sh.kv_heads * sh.dv, v_cache + (at + 1) * sh.kv_heads * sh.dv);
    }
  }
  attention_varlen<T, Steps>(p, pk, q, k.data(), v.data(), o, lse, Pages::tiling(pt, tiling));
  for (std::size_t b = 0; b < pt.sequences(); ++b)
    Pages::template after_sequence<T>(sequence_problem(p, pk, b), pt, b, v_cache, o + static_cast<std::size_t>(cu_q[b]) * sh.heads * sh.dv);
}

}  // namespace attncheck::kernels
