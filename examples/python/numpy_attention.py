"""Serves a NumPy reference of attention as shipped kernels take it (ABI version 2, CALL kind 8 of
the exec protocol): a batch of sequences, H query heads sharing H_kv key/value heads, an explicit
scale, causal masks of either alignment, a sliding window, a logit soft-cap, ALiBi slopes, and the
row log-sum-exp (natural log). Fully masked rows give zeros and LSE -inf (declare --masked zeros):

    attncheck audit --exec 'python3 examples/python/numpy_attention.py' --abi 2 --masked zeros \\
        --kernel attention:f32 --kernel attention:f64 --kernel attention:bf16

Audited with --splits S it is a split-KV decoding kernel (flash-decoding): told num_splits > 1, it
cuts the keys into that many ranges of ceil(m / S), computes each range's partial output and LSE
(rows that see none of its keys: 0 and -inf) and merges them through their LSEs.

f32 and f64 compute in their own format; bf16 and f16 arrive as float32 (bf16@f32, f16@f32) and
the output is rounded once to storage (attncheck_exec.py). The LSE is float32 (float64 at f64).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402


def scores(q, k, p):
    """The scores before the mask, s = scale (q . k), soft-capped and ALiBi-biased, as (B, H, n, m); the
    soft-cap's tanh(scale (q . k) / c) (None without a cap); which keys each query sees, (n, m).
    q (B, n, H, d), k (B, m, H_kv, d)."""
    B, n, H, d = q.shape
    m, Hkv = k.shape[1], k.shape[2]
    t = q.dtype.type
    g = np.arange(H) // (H // Hkv)  # query head h reads key/value head h / (H / H_kv)
    s = np.matmul(q.transpose(0, 2, 1, 3), k[:, :, g, :].transpose(0, 2, 3, 1)) * t(p.scale)  # B H n m
    tau = None
    if p.softcap > 0:  # after the scale, before ALiBi and the mask (Gemma 2)
        c = t(p.softcap)
        tau = np.tanh(s / c)
        s = c * tau
    diag = np.arange(n) + (m - n if p.alignment == "bottom_right" else 0)  # the key aligned with query i
    j = np.arange(m)
    if p.alibi_slopes is not None:
        dist = np.abs(diag[:, None] - j[None, :]).astype(q.dtype)
        s = s - p.alibi_slopes.astype(q.dtype)[None, :, None, None] * dist[None, None]
    visible = np.ones((n, m), dtype=bool)
    if p.causal:
        visible &= j[None, :] <= diag[:, None]
    if p.window_left >= 0:
        visible &= j[None, :] >= diag[:, None] - p.window_left
    if p.window_right >= 0:
        visible &= j[None, :] <= diag[:, None] + p.window_right
    return s, tau, visible


def attention(q, k, v, p, keys=None):
    """q (B, n, H, d), k (B, m, H_kv, d), v (B, m, H_kv, dv) -> o (B, n, H, dv), lse (B, H, n); keys:
    (lo, hi), the keys lo..hi-1 only (a split's partial result)."""
    B, n, H, d = q.shape
    m, Hkv, dv = k.shape[1], k.shape[2], v.shape[3]
    if keys is None and getattr(p, "num_splits", 0) > 1:
        return split_attention(q, k, v, p)
    t = q.dtype.type
    g = np.arange(H) // (H // Hkv)
    vh = v[:, :, g, :].transpose(0, 2, 1, 3)  # B H m dv
    s, _, visible = scores(q, k, p)
    if keys is not None:
        j = np.arange(m)
        visible = visible & ((j >= keys[0]) & (j < keys[1]))[None, :]
    s = np.where(visible[None, None], s, t(-np.inf))
    none = ~visible.any(axis=1)  # rows that see no key: zeros and LSE -inf
    mx = np.max(s, axis=-1, keepdims=True) if m else np.full(s.shape[:-1] + (1,), -np.inf, dtype=q.dtype)
    mx = np.where(np.isneginf(mx), t(0), mx)  # a NaN maximum stays NaN
    e = np.exp(s - mx)
    total = np.sum(e, axis=-1, keepdims=True)
    o = np.matmul(e, vh) / total  # B H n dv
    o = np.where(none[None, None, :, None], t(0), o)
    lse = (mx + np.log(total))[..., 0].astype(np.float64 if q.dtype == np.float64 else np.float32)
    lse = np.where(none[None, None, :], -np.inf, lse)
    return o.transpose(0, 2, 1, 3), (lse if p.want_lse or keys is not None else None)


def split_attention(q, k, v, p):
    """The partials of num_splits key ranges of ceil(m / S), merged: LSE = M + log sum exp(LSE_s - M),
    O = sum exp(LSE_s - LSE) O_s (FlashAttention's combine order); no visible key: zeros, -inf."""
    m, S = k.shape[1], p.num_splits
    c = -(-m // S)
    parts = [attention(q, k, v, p, keys=(min(m, s * c), min(m, (s + 1) * c))) for s in range(S)]
    ls = np.stack([l for _, l in parts])  # S B H n
    mx = np.max(ls, axis=0)
    none = np.isneginf(mx)
    mx0 = np.where(none, 0, mx)
    lse = mx0 + np.log(np.sum(np.exp(ls - mx0), axis=0))
    lse = np.where(none, -np.inf, lse).astype(ls.dtype)
    o = sum(np.exp(l - np.where(none, 0, lse)).transpose(0, 2, 1)[..., None].astype(po.dtype) * po for po, l in parts)
    o = np.where(none.transpose(0, 2, 1)[..., None], 0, o).astype(q.dtype)
    return o, (lse if p.want_lse else None)


if __name__ == "__main__":
    serve({("attention_v2", d): attention for d in ("f32", "f64", "bf16@f32", "f16@f32")})
