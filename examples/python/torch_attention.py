"""Attention of ABI version 2 (CALL kind 8) as a PyTorch user writes it with torch's CPU ops,
Debian's torch 1.13 having no scaled_dot_product_attention: repeat_interleave for grouped heads,
matmul, the scale, torch.tanh for the soft-cap, the ALiBi bias, masked_fill(-inf), torch.softmax,
matmul, and torch.logsumexp for the LSE. Rows that see no key give zeros (declare --masked zeros):

    attncheck audit --exec 'python3 examples/python/torch_attention.py' --abi 2 --masked zeros \\
        --kernel attention:f32 --kernel attention:bf16

f32 and f64 compute in their own format; bf16 and f16 arrive as float32 (f32 arithmetic) and the
output is rounded once to storage. A library no one here wrote, audited as it computes.
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402


def attention(q, k, v, p):
    dt = torch.float64 if q.dtype == np.float64 else torch.float32
    Q = torch.from_numpy(np.ascontiguousarray(q)).to(dt).permute(0, 2, 1, 3)   # B H n d
    K = torch.from_numpy(np.ascontiguousarray(k)).to(dt).permute(0, 2, 1, 3)   # B Hkv m d
    V = torch.from_numpy(np.ascontiguousarray(v)).to(dt).permute(0, 2, 1, 3)
    B, H, n, d = Q.shape
    m = K.shape[2]
    g = H // K.shape[1]
    K = K.repeat_interleave(g, dim=1)
    V = V.repeat_interleave(g, dim=1)
    s = torch.matmul(Q, K.transpose(-1, -2)) * p.scale
    if p.softcap > 0:
        s = p.softcap * torch.tanh(s / p.softcap)
    i = torch.arange(n).unsqueeze(1)
    j = torch.arange(m).unsqueeze(0)
    diag = i + (m - n if p.alignment == "bottom_right" else 0)
    if p.alibi_slopes is not None:
        sl = torch.from_numpy(np.array(p.alibi_slopes)).to(dt).view(1, H, 1, 1)
        s = s - sl * (diag - j).abs().to(dt)
    vis = torch.ones(n, m, dtype=torch.bool)
    if p.causal: vis &= j <= diag
    if p.window_left >= 0: vis &= j >= diag - p.window_left
    if p.window_right >= 0: vis &= j <= diag + p.window_right
    s = s.masked_fill(~vis, float("-inf"))
    lse = torch.logsumexp(s, dim=-1)                 # B H n; -inf for rows that see nothing
    w = torch.softmax(s, dim=-1)
    w = torch.where(vis.any(dim=-1, keepdim=True), w, torch.zeros((), dtype=dt))  # rows that see nothing: zeros
    o = torch.matmul(w, V).permute(0, 2, 1, 3)        # B n H dv
    return o.numpy(), (lse.numpy() if p.want_lse else None)


if __name__ == "__main__":
    serve({("attention_v2", d): attention for d in ("f32", "f64", "bf16@f32", "f16@f32")})
