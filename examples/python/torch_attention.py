"""Attention of ABI version 2 (CALL kind 8) as a PyTorch user writes it with torch's CPU ops,
Debian's torch 1.13 having no scaled_dot_product_attention: per (batch, key/value head), the
matmul of its group of query heads with the keys, the scale, torch.tanh for the soft-cap, the ALiBi
bias, masked_fill(-inf), torch.softmax, matmul, and torch.logsumexp for the LSE. Rows that see
no key give zeros (declare --masked zeros):

    attncheck audit --exec 'python3 examples/python/torch_attention.py' --abi 2 --masked zeros \\
        --stores scores,p --kernel attention:f32 --kernel attention:bf16

f32 and f64 compute in their own format. bf16 runs as a PyTorch user's bf16 model does: the
tensors are bf16, so every op's result is a bf16 tensor: q @ k^T, the scale, each soft-cap and bias
step, the softmax's P, then P @ V. That is the unfused model: declare it with --stores scores,p
(docs/formats.md). The LSE is torch.logsumexp of the stored scores in f32. f16 arrives as float32
and is computed in f32 (torch 1.13's CPU ops have no f16 matmul), the output rounded once to
storage: it stores less than either model allows. A library no one here wrote, audited as it
computes.

A real bug this audit finds: on a CPU without AVX-512 (oneDNN's bf16 gemm unused), torch 1.13's
bf16 matmul takes its reference path, which for P @ V (the right operand not transposed) rounds
every product and every partial sum to bf16 (pytorch/pytorch#83863, #95125; ones(4, 700, 300) @
ones(300, 32) gives 256). On a CPU with AVX-512 bf16 these shapes go to oneDNN and accumulate in
f32 (a 1 x 300 @ 300 x 1 product still does not). On a value column with a mean the output drifts by tens of bf16 ulps at a few
thousand keys: AUDIT-ATTB-002 fails at bf16, and FALSIFY-ATTK-001 at some seeds (a cancelling
column). With --f32-matmul (in the --exec command) both matmuls run on f32 copies and are rounded
to bf16, as the unfused model declares: that passes.
"""
import functools
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402


def visible(n, m, p):
    """The n x m mask of the keys each query sees (attention_problem.hpp's AttentionMask)."""
    i = torch.arange(n).unsqueeze(1)
    j = torch.arange(m).unsqueeze(0)
    diag = i + (m - n if p.alignment == "bottom_right" else 0)
    vis = torch.ones(n, m, dtype=torch.bool)
    if p.causal: vis &= j <= diag
    if p.window_left >= 0: vis &= j >= diag - p.window_left
    if p.window_right >= 0: vis &= j <= diag + p.window_right
    return vis, (diag - j).abs()


F32_MATMUL = "--f32-matmul" in sys.argv[1:]


def matmul(a, b):
    """torch.matmul, or with --f32-matmul on f32 copies of 16-bit operands, rounded back."""
    if F32_MATMUL and a.dtype == torch.bfloat16:
        return torch.matmul(a.float(), b.float()).to(a.dtype)
    return torch.matmul(a, b)


def attention(q, k, v, p, storage=None):
    """storage: the tensors' dtype (torch.bfloat16: every op's result stored in bf16); None: the
    arithmetic format itself."""
    dt = torch.float64 if q.dtype == np.float64 else torch.float32
    st = storage or dt
    Q = torch.from_numpy(np.ascontiguousarray(q)).to(st).permute(0, 2, 1, 3)   # B H n d
    K = torch.from_numpy(np.ascontiguousarray(k)).to(st).permute(0, 2, 1, 3)   # B Hkv m d
    V = torch.from_numpy(np.ascontiguousarray(v)).to(st).permute(0, 2, 1, 3)
    B, H, n, d = Q.shape
    Hkv, m = K.shape[1], K.shape[2]
    g = H // Hkv
    vis, dist = visible(n, m, p)
    sees = vis.any(dim=-1, keepdim=True)
    O = torch.empty(B, H, n, V.shape[3], dtype=dt)
    L = torch.empty(B, H, n, dtype=dt)
    # One (batch, key/value head) at a time: its g query heads read the same K and V (grouped
    # query attention), and the scores stay g x n x m (256 MiB at n = m = 4096, g = 4, f32).
    for b in range(B):
        for kv in range(Hkv):
            hs = slice(kv * g, (kv + 1) * g)
            s = matmul(Q[b, hs], K[b, kv].transpose(-1, -2)) * p.scale     # g n m
            if p.softcap > 0:
                s = p.softcap * torch.tanh(s / p.softcap)
            if p.alibi_slopes is not None:
                sl = torch.from_numpy(np.array(p.alibi_slopes[kv * g:(kv + 1) * g])).to(st).view(g, 1, 1)
                s = s - sl * dist.to(st)
            s = s.masked_fill(~vis, float("-inf"))
            L[b, hs] = torch.logsumexp(s.to(dt), dim=-1)    # -inf for rows that see nothing
            w = torch.softmax(s, dim=-1)
            w = torch.where(sees, w, torch.zeros((), dtype=st))  # rows that see nothing: zeros
            O[b, hs] = matmul(w, V[b, kv]).to(dt)
    return O.permute(0, 2, 1, 3).numpy(), (L.numpy() if p.want_lse else None)


if __name__ == "__main__":
    kernels = {("attention_v2", d): attention for d in ("f32", "f64", "f16@f32")}
    kernels[("attention_v2", "bf16@f32")] = functools.partial(attention, storage=torch.bfloat16)
    serve(kernels)
