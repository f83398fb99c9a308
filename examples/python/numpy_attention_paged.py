"""Serves a NumPy reference of attention over a paged KV cache (vLLM's PagedAttention,
FlashAttention's block_table; ABI version 2, CALL kind 12 of the exec protocol). Sequence b's
logical key t is the cache slot block_table[b, t // page_size] * page_size + t % page_size, t <
seqused_k[b]: each sequence's keys and values are gathered through the block table in that order
(nothing else of the caches is read: the slots after a sequence's last key, the spare table
entries and the unused pages hold stale values, NaN included), laid end to end, and handed to
numpy_attention_varlen.py's attention_varlen (one source). Rows that see no key give zeros and
LSE -inf (declare --masked zeros):

    attncheck audit --exec 'python3 examples/python/numpy_attention_paged.py' --abi 2 --masked zeros \\
        --kernel attention_paged:f32 --kernel attention_paged:f64 --kernel attention_paged:bf16

f32 and f64 compute in their own format; bf16 and f16 arrive as float32 (bf16@f32, f16@f32) and
the output is rounded once to storage (attncheck_exec.py). The LSE is float32 (float64 at f64), in
FlashAttention's varlen layout H x total_q.

Told num_splits > 1 (audited with --splits S) each sequence's keys are split as numpy_attention.py
splits them (flash-decoding: partials over ranges of ceil(m_b / S) keys, merged through their
LSEs), since the sequence's problem carries num_splits. Its bits do not depend on the page size
(it gathers first): declare --page-size-invariant.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402
from numpy_attention_varlen import attention_varlen  # noqa: E402


def gather(cache, seqused_k, block_table, page_size):
    """Every sequence's m_b logical tokens of cache (num_pages, page_size, H_kv, width), in order and
    end to end: (sum_b m_b, H_kv, width)."""
    flat = cache.reshape((-1,) + cache.shape[2:])  # tokens of the cache, page by page
    slots = [block_table[b, t // page_size] * page_size + t % page_size
             for b in range(len(seqused_k)) for t in range(int(seqused_k[b]))]
    return flat[np.asarray(slots, dtype=np.int64)]


def attention_paged(q, k_cache, v_cache, cu_seqlens_q, seqused_k, block_table, p):
    """q (total_q, H, d), k_cache (num_pages, page_size, H_kv, d), v_cache (num_pages, page_size, H_kv,
    dv), cu_seqlens_q (B + 1,), seqused_k (B,), block_table (B, pages_per_sequence)
    -> o (total_q, H, dv), lse (H, total_q)."""
    k = gather(k_cache, seqused_k, block_table, p.page_size)
    v = gather(v_cache, seqused_k, block_table, p.page_size)
    cu_seqlens_k = np.concatenate(([0], np.cumsum(seqused_k))).astype(np.int32)
    return attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, p)


if __name__ == "__main__":
    serve({("attention_paged", d): attention_paged for d in ("f32", "f64", "bf16@f32", "f16@f32")})
