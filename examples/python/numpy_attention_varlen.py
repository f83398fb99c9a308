"""Serves a NumPy reference of attention over a packed variable-length batch (FlashAttention's
flash_attn_varlen_func; ABI version 2, CALL kind 11 of the exec protocol). Sequence b is the
queries cu_seqlens_q[b] .. cu_seqlens_q[b+1] - 1 and the keys cu_seqlens_k[b] .. cu_seqlens_k[b+1]
- 1, and is attention's dense problem with n = n_b and m = m_b on its own tokens: it is computed by
numpy_attention.py's attention (one source), one sequence at a time. Rows that see no key give
zeros and LSE -inf (declare --masked zeros):

    attncheck audit --exec 'python3 examples/python/numpy_attention_varlen.py' --abi 2 --masked zeros \\
        --kernel attention_varlen:f32 --kernel attention_varlen:f64 --kernel attention_varlen:bf16

f32 and f64 compute in their own format; bf16 and f16 arrive as float32 (bf16@f32, f16@f32) and
the output is rounded once to storage (attncheck_exec.py). The LSE is float32 (float64 at f64), in
FlashAttention's varlen layout H x total_q.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import AttentionProblem, serve  # noqa: E402
from numpy_attention import attention  # noqa: E402


def attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, p):
    """q (total_q, H, d), k (total_k, H_kv, d), v (total_k, H_kv, dv), offsets (B + 1,)
    -> o (total_q, H, dv), lse (H, total_q)."""
    total_q, H = q.shape[0], q.shape[1]
    o = np.zeros((total_q, H, v.shape[2]), dtype=q.dtype)
    lse = np.full((H, total_q), -np.inf, dtype=np.float64 if q.dtype == np.float64 else np.float32)
    for b in range(len(cu_seqlens_q) - 1):
        q0, q1 = int(cu_seqlens_q[b]), int(cu_seqlens_q[b + 1])
        k0, k1 = int(cu_seqlens_k[b]), int(cu_seqlens_k[b + 1])
        if q1 == q0:
            continue  # no query: nothing to write
        # The sequence's dense problem: batch 1, its own n_b and m_b (so its own causal alignment).
        s = AttentionProblem(**dict(p.__dict__, batch=1, n=q1 - q0, m=k1 - k0, want_lse=True))
        ob, lb = attention(q[None, q0:q1], k[None, k0:k1], v[None, k0:k1], s)
        o[q0:q1] = ob[0]
        lse[:, q0:q1] = lb[0]
    return o, (lse if p.want_lse else None)


if __name__ == "__main__":
    serve({("attention_varlen", d): attention_varlen for d in ("f32", "f64", "bf16@f32", "f16@f32")})
