"""PyTorch kernels through attncheck.audit(): tensors returned as they are (DLPack, bf16 bits).
Skipped, not failed, where torch is not installed."""
import pytest

torch = pytest.importorskip("torch")

import attncheck  # noqa: E402


def torch_softmax(x):
    return torch.softmax(torch.from_numpy(x), dim=-1)


def torch_softmax_bf16(x):  # x: float32 holding bf16 values; torch computes in bf16 storage
    return torch.softmax(torch.from_numpy(x).to(torch.bfloat16), dim=-1)


def test_torch_softmax_f32(cli):
    result = attncheck.audit(torch_softmax, kind="softmax", dtype="f32", cases=30,
                             tests=["FALSIFY-SM-001", "FALSIFY-SM-004", "AUDIT-MASK-001"])
    assert result.passed, result.summary()


def test_torch_bf16_tensor_bits_pass_through(cli):
    result = attncheck.audit(torch_softmax_bf16, kind="softmax", dtype="bf16", cases=30,
                             tests=["FALSIFY-SM-001", "FALSIFY-SM-004"])
    assert result.passed, result.summary()


def _torch_attention_backward():
    """examples/python/torch_attention_backward.py's kernel: PyTorch's autograd through attention
    built from torch's ops, each matmul on f32 copies rounded to the tensors' dtype (its
    --f32-matmul: torch 1.13's own bf16 matmul flushes subnormal operands on AVX512-BF16)."""
    import functools
    import os
    import sys

    # This checkout's examples, or where $ATTNCHECK_EXAMPLES says (the installed-wheel test runs a
    # copy of these tests, as test_audit.py's example tests do).
    examples = os.path.join(os.environ.get("ATTNCHECK_EXAMPLES",
                                           os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
                                                        "examples")), "python")
    if not os.path.isfile(os.path.join(examples, "torch_attention_backward.py")):
        pytest.skip("examples/python is not beside this package (an installed copy) and $ATTNCHECK_EXAMPLES is not set")
    sys.path.insert(0, examples)
    import torch_attention
    import torch_attention_backward

    torch_attention.F32_MATMUL = True
    return torch_attention_backward.attention_backward, functools.partial(torch_attention_backward.attention_backward,
                                                                          storage=torch.bfloat16)


# A bf16 training step stores every op's output in bf16: declared unfused (stores=), it passes every
# backward check; declared fused (FlashAttention-2's recipe, the default) it fails, and says which
# declaration would admit it. f32 and f64 autograd pass as they are.
def test_torch_autograd_attention_backward_bf16_declared_unfused(cli):
    plain, bf16_tensors = _torch_attention_backward()
    shapes = ["B=1,H=4,Hkv=2,n=96,m=128,d=16,causal=br"]
    result = attncheck.audit(bf16_tensors, kind="attention_backward", dtype="bf16", stores="scores,p,dp,ds", cases=40,
                             attention_shapes=shapes)
    assert result.passed, result.summary()
    fused = attncheck.audit(bf16_tensors, kind="attention_backward", dtype="bf16", cases=40,
                            tests=["FALSIFY-ATTBWD-001"])
    assert not fused.passed
    assert "Passes if declared unfused" in fused.checks[0].counterexample
    for d in ("f32", "f64"):
        result = attncheck.audit(plain, kind="attention_backward", dtype=d, cases=40, attention_shapes=shapes)
        assert result.passed, result.summary()
