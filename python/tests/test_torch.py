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
