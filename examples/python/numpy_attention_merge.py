"""Serves a NumPy reference of the merge of split-KV partial attention results (flash-decoding;
ABI version 2, CALL kind 10 of the exec protocol), written from the formulas of
include/attncheck/abi.h: per row, M = the largest partial LSE, lse = M + log sum_s exp(l_s - M),
o = sum_s exp(l_s - lse) O_s. A split whose LSE is -inf saw no key and carries no weight; a row
whose every split is -inf gives o = 0 and lse = -inf:

    attncheck audit --exec 'python3 examples/python/numpy_attention_merge.py' \\
        --kernel attention_merge:f32 --kernel attention_merge:f64 --kernel attention_merge:bf16

f32 and f64 compute in their own format; bf16 and f16 arrive as float32 and o is rounded once to
storage (attncheck_exec.py). The partial LSEs arrive as float32 (float64 for f64).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402


def attention_merge(o_parts, lse_parts):
    """o_parts (S, rows, dv), lse_parts (S, rows) -> o (rows, dv), lse (rows,)."""
    t = o_parts.dtype.type
    lp = lse_parts.astype(o_parts.dtype)
    empty = np.all(np.isneginf(lp), axis=0)  # rows no split saw a key of
    # The max over the splits; np.max would let a NaN through only where it is, so a NaN partial
    # LSE still reaches its row through exp(NaN - M) below. Empty rows shift by 0 (no -inf - -inf).
    M = np.where(empty, t(0), np.max(np.where(np.isnan(lp), -np.inf, lp), axis=0))
    a = np.exp(lp - M)  # S x rows: 0 for an empty split (exp(-inf)), NaN where l_s is NaN
    Z = np.sum(a, axis=0)
    lse = np.where(empty, t(-np.inf), M + np.log(np.where(empty, t(1), Z)))
    w = np.where(empty, t(0), np.exp(lp - np.where(empty, t(0), lse)))  # S x rows
    # An empty split's O_s is 0 by the ABI, yet its weight is exactly 0: never multiplied, so a
    # stray NaN there (no key, no meaning) does not reach o.
    o = np.sum(np.where(np.isneginf(lp)[..., None], t(0), w[..., None] * o_parts), axis=0)
    return o.astype(o_parts.dtype), lse


if __name__ == "__main__":
    serve({("attention_merge", d): attention_merge for d in ("f32", "f64", "bf16@f32", "f16@f32")})
