"""The backward pass of attention (CALL kind 9, attention_backward) as PyTorch's autograd computes
it: the forward of torch_attention.py (matmul, scale, torch.tanh soft-cap, ALiBi bias,
masked_fill(-inf), torch.softmax, matmul) on tensors that require grad, then
torch.autograd.grad of sum(dout * o). The kernel recomputes its own forward and ignores the o and
lse attncheck hands it, as a training step does; the derived allowances cover that
(contracts/attention-backward-v1.yaml):

    attncheck audit --exec 'python3 examples/python/torch_attention_backward.py' \\
        --kernel attention_backward:f32 --kernel attention_backward:bf16

f32 and f64 compute in their own format. bf16 and f16 arrive as float32 and are differentiated
in f32, the gradients rounded once to storage. With --bf16-tensors (in the --exec command) bf16
runs as a bf16 model's training step does: the tensors are bf16, so autograd stores every op's
output in bf16 (the scores and each score step, P, dP = dO @ V^T, dS from softmax's backward,
each step of the chain rule, each product, each head's dK and dV before repeat_interleave's
backward adds them up in bf16). That is the unfused model: declare it with --stores
scores,p,dp,ds (docs/formats.md); declared fused (the default) it fails FALSIFY-ATTBWD-001 with
"Passes if declared unfused". Add --f32-matmul (torch_attention.py): torch 1.13's own bf16 matmul
is outside any IEEE model on this CPU's paths: oneDNN's AVX512-BF16 dot product reads subnormal
bf16 operands as 0 (a gradient of -4.1e-39 computed as 0: flush-to-zero), and its reference gemm
accumulates some shapes in bf16 (pytorch/pytorch#83863). With it each matmul, forward and
backward (autograd differentiates the casts), runs on f32 copies and is rounded to bf16 once, as
the declaration says. Rows that see no key give zeros in the forward and contribute no
gradient. A library no one here wrote.
"""
import functools
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402
from torch_attention import matmul, visible  # noqa: E402


def forward(Q, K, V, p):
    """O (B H n dv) from Q (B H n d), K, V (B Hkv m d/dv) with torch's ops, differentiable."""
    B, H, n, d = Q.shape
    Hkv, m = K.shape[1], K.shape[2]
    g = H // Hkv
    vis, dist = visible(n, m, p)
    sees = vis.any(dim=-1, keepdim=True)
    Kr = K.repeat_interleave(g, dim=1)  # query head h reads key/value head h // g
    Vr = V.repeat_interleave(g, dim=1)
    s = matmul(Q, Kr.transpose(-1, -2)) * p.scale
    if p.softcap > 0:
        s = p.softcap * torch.tanh(s / p.softcap)
    if p.alibi_slopes is not None:
        sl = torch.from_numpy(np.array(p.alibi_slopes)).to(Q.dtype).view(1, H, 1, 1)
        s = s - sl * dist.to(Q.dtype)
    s = s.masked_fill(~vis, float("-inf"))
    # A row that sees no key: softmax of all -inf is NaN; give it zeros, and no gradient, by
    # softmaxing a finite row there and zeroing its weights.
    s = torch.where(sees, s, torch.zeros((), dtype=Q.dtype))
    w = torch.softmax(s, dim=-1)
    w = torch.where(sees, w, torch.zeros((), dtype=Q.dtype))
    return matmul(w, Vr)


def attention_backward(q, k, v, o, dout, lse, p, storage=None):
    """storage: the tensors' dtype (torch.bfloat16: every op's output stored in bf16); None: the
    arithmetic format itself."""
    dt = storage or (torch.float64 if q.dtype == np.float64 else torch.float32)
    as_t = lambda a: torch.from_numpy(np.ascontiguousarray(a)).to(dt).permute(0, 2, 1, 3)
    Q, K, V = (as_t(a).requires_grad_(True) for a in (q, k, v))
    dO = as_t(dout)
    O = forward(Q, K, V, p)
    dQ, dK, dV = torch.autograd.grad(O, (Q, K, V), grad_outputs=dO, allow_unused=True)

    def back(t, like):
        t = (torch.zeros_like(like) if t is None else t).permute(0, 2, 1, 3).contiguous()
        return (t.float() if storage else t).numpy()
    return back(dQ, Q), back(dK, K), back(dV, V)


if __name__ == "__main__":
    kernels = {("attention_backward", d): attention_backward for d in ("f32", "f64", "bf16@f32", "f16@f32")}
    if "--bf16-tensors" in sys.argv[1:]:
        kernels[("attention_backward", "bf16@f32")] = functools.partial(attention_backward, storage=torch.bfloat16)
    serve(kernels)
