"""The merge of split-KV partial attention results (CALL kind 10, attention_merge) with PyTorch's
own reductions: lse = torch.logsumexp over the splits, the weights torch.softmax over the splits'
LSEs, o = the weighted sum (torch.einsum). The formulas are three lines; the numerics (the
max-subtracted logsumexp and softmax, the reductions' order) are PyTorch's CPU kernels, which no
one here wrote:

    attncheck audit --exec 'python3 examples/python/torch_attention_merge.py' --masked nan \\
        --kernel attention_merge:f32 --kernel attention_merge:f64 --kernel attention_merge:bf16

A row no split saw a key of: torch.logsumexp gives -inf, and torch.softmax over all -inf gives
NaN, so o is NaN there (declared with --masked nan). f32 and f64 compute in their own format;
bf16 and f16 arrive as float32 and o is rounded once to storage (attncheck_exec.py).
"""
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402


def attention_merge(o_parts, lse_parts):
    """o_parts (S, rows, dv), lse_parts (S, rows) -> o (rows, dv), lse (rows,)."""
    dt = torch.float64 if o_parts.dtype == np.float64 else torch.float32
    O = torch.from_numpy(np.ascontiguousarray(o_parts)).to(dt)
    L = torch.from_numpy(np.ascontiguousarray(lse_parts)).to(dt)
    lse = torch.logsumexp(L, dim=0)
    w = torch.softmax(L, dim=0)
    # An empty split's weight is exactly 0 and its O_s is 0 by the ABI: 0 * 0 adds nothing.
    o = torch.einsum("sr,src->rc", w, O)
    return o.numpy().astype(o_parts.dtype), lse.numpy()


if __name__ == "__main__":
    serve({("attention_merge", d): attention_merge for d in ("f32", "f64", "bf16@f32", "f16@f32")})
