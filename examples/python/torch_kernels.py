"""Serves PyTorch's own CPU kernels to attncheck over the exec protocol: the library people ship,
audited as it computes. 16-bit inputs are handed to torch in their storage dtype (torch.float16 or
torch.bfloat16) and torch decides how it computes; declare them as f16/bf16 (f32 arithmetic, what
torch's CPU kernels do for reduced types) and see which obligations hold:

    attncheck audit --exec 'python3 examples/python/torch_kernels.py' --kernel softmax:bf16 \\
        --kernel log_softmax:bf16 --kernel scores:bf16 --kernel attention:bf16 --kernel rmsnorm:bf16

Kinds: softmax, log_softmax (torch.softmax / torch.log_softmax), scores (q @ kᵀ / √d),
attention (softmax(q kᵀ / √d (+ causal mask)) @ v, the math of scaled_dot_product_attention),
rmsnorm (Hugging Face's LlamaRMSNorm: normalised in f32, cast to the storage dtype, times w).
"""
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402

STORAGE = {"f16": torch.float16, "bf16": torch.bfloat16, "f32": torch.float32, "f64": torch.float64}


def _in(a, dt):
    return torch.from_numpy(np.ascontiguousarray(a)).to(dt)  # exact: the values are of dtype dt


def _out(t):
    return t.to(torch.float64).numpy()


def kernels_for(name):
    dt = STORAGE[name.split("@")[0]]

    def softmax(x):
        return _out(torch.softmax(_in(x, dt), dim=-1))

    def log_softmax(x):
        return _out(torch.log_softmax(_in(x, dt), dim=-1))

    def scores(q, k):
        return _out(torch.matmul(_in(q, dt), _in(k, dt).T) / math.sqrt(q.shape[1]))

    def attention(q, k, v, causal):
        s = torch.matmul(_in(q, dt), _in(k, dt).T) / math.sqrt(q.shape[1])
        if causal:
            n, m = s.shape
            s = s.masked_fill(torch.ones(n, m, dtype=torch.bool).triu(1), float("-inf"))
        return _out(torch.matmul(torch.softmax(s, dim=-1), _in(v, dt)))

    def rmsnorm(x, w, eps):
        h = _in(x, dt).to(torch.float32)
        h = h * torch.rsqrt(h.pow(2).mean(-1, keepdim=True) + eps)
        return _out(_in(w, dt) * h.to(dt))

    return {"softmax": softmax, "log_softmax": log_softmax, "scores": scores, "attention": attention, "rmsnorm": rmsnorm}


if __name__ == "__main__":
    table = {}
    for name in ("f16@f32", "bf16@f32", "f16@f16", "bf16@bf16", "f32", "f64"):
        for kind, fn in kernels_for(name).items():
            table[(kind, name)] = fn
    serve(table)
