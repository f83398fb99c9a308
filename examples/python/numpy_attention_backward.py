"""Serves a NumPy reference of attention's backward pass (ABI version 2, CALL kind 9 of the exec
protocol), written from the formulas of include/attncheck/abi.h with NumPy's matmul: P recomputed
from the LSE it is given, D = rowsum(dO * O) from the o it is given, dS = P (dP - D), the soft-cap's
chain rule, dQ = scale dS K, dK = scale dS^T Q and dV = P^T dO summed over each group of query heads:

    attncheck audit --exec 'python3 examples/python/numpy_attention_backward.py' \\
        --kernel attention_backward:f32 --kernel attention_backward:f64 --kernel attention_backward:bf16

f32 and f64 compute in their own format; bf16 and f16 arrive as float32 and the gradients are
rounded once to storage (attncheck_exec.py).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402
from numpy_attention import scores  # noqa: E402


def attention_backward(q, k, v, o, dout, lse, p, omit_delta=False):
    """q (B, n, H, d), k (B, m, H_kv, d), v (B, m, H_kv, dv), o and dout (B, n, H, dv), lse (B, H, n)
    -> dq, dk, dv in q's, k's and v's shapes. omit_delta: a wrong kernel (dS = P dP) for tests."""
    B, n, H, d = q.shape
    m, Hkv = k.shape[1], k.shape[2]
    t = q.dtype.type
    g = np.arange(H) // (H // Hkv)  # query head h reads key/value head h / (H / H_kv)
    qh = q.transpose(0, 2, 1, 3)  # B H n d
    kh = k[:, :, g, :].transpose(0, 2, 1, 3)  # B H m d
    vh = v[:, :, g, :].transpose(0, 2, 1, 3)  # B H m dv
    oh, doh = o.transpose(0, 2, 1, 3), dout.transpose(0, 2, 1, 3)
    s, tau, visible = scores(q, k, p)  # the forward's scores and mask (numpy_attention.py)
    L = lse.astype(q.dtype)[..., None]  # B H n 1; -inf for rows that see no key
    P = np.where(visible[None, None], np.exp(np.where(visible[None, None], s - np.where(np.isneginf(L), t(0), L), t(0))), t(0))
    D = np.sum(doh * oh, axis=-1, keepdims=True)  # B H n 1
    dP = np.matmul(doh, vh.transpose(0, 1, 3, 2))  # B H n m
    dS = P * (dP if omit_delta else dP - D)
    if tau is not None:
        dS = dS * (t(1) - tau * tau)
    dq = np.matmul(dS, kh) * t(p.scale)  # B H n d
    dk_h = np.matmul(dS.transpose(0, 1, 3, 2), qh) * t(p.scale)  # B H m d, per query head
    dv_h = np.matmul(P.transpose(0, 1, 3, 2), doh)  # B H m dv
    dk = np.zeros(k.shape, dtype=q.dtype)
    dv = np.zeros(v.shape, dtype=q.dtype)
    for h in range(H):  # sum each group's query heads into its key/value head
        dk[:, :, g[h], :] += dk_h[:, h]
        dv[:, :, g[h], :] += dv_h[:, h]
    return dq.transpose(0, 2, 1, 3), dk, dv


if __name__ == "__main__":
    serve({("attention_backward", d): attention_backward for d in ("f32", "f64", "bf16@f32", "f16@f32")})
