"""attncheck's exec protocol, version 2 (docs/audit-protocol.md): the frames, the CALL decoding
and the bit-exact conversions of f16 and bf16.

A kernel is a function on NumPy arrays in its arithmetic format, keyed by "KIND:DTYPE" with DTYPE
as attncheck spells it: "f32", "f64", and for 16-bit storage STORAGE@ARITHMETIC: "f16@f32",
"bf16@f32" (also spelt "f16", "bf16": f32 arithmetic is the default), "f16@f16", "bf16@bf16".
Inputs arrive converted exactly to the arithmetic format: float32 for @f32, float16 for f16@f16;
NumPy has no bfloat16, so bf16@bf16 inputs are float32 arrays holding bf16 values. A kernel may
return a NumPy array, anything with the buffer protocol or ``__array__``, or a DLPack tensor (a
torch CPU tensor is read without a copy; a torch.bfloat16 or float16 tensor passes its bits as
they are). Results are rounded once to the storage format, to nearest even.

Signatures, by kind::

    softmax(x), log_softmax(x)   x: (n,)                      -> (n,)
    scores(q, k)                 q: (n, d), k: (m, d)         -> (n, m)  q k^T / sqrt(d)
    rmsnorm(x, w, eps)           x, w: (d,), eps: float       -> (d,)
    entropy(p)                   p: (n,)                      -> scalar
    attention(q, k, v, causal)   (n, d), (m, d), (m, dv), bool -> (n, dv)
    softmax_jvp(x, dx)           (n,), (n,)                   -> (n,)
    attention_v2(q, k, v, problem)  q (B, n, H, d), k (B, m, H_kv, d), v (B, m, H_kv, dv)
                                    -> (o (B, n, H, dv), lse (B, H, n) or None)
    attention_backward(q, k, v, o, dout, lse, problem)
                                    q, k, v as above, o and dout (B, n, H, dv), lse (B, H, n)
                                    -> (dq, dk, dv) in q's, k's and v's shapes
    attention_merge(o_parts, lse_parts)
                                    o_parts (S, rows, dv), lse_parts (S, rows)
                                    -> (o (rows, dv), lse (rows,) or None)
    attention_varlen(q, k, v, cu_seqlens_q, cu_seqlens_k, problem)
                                    q (total_q, H, d), k (total_k, H_kv, d), v (total_k, H_kv, dv),
                                    cu_seqlens_q, cu_seqlens_k (B + 1,) int32
                                    -> (o (total_q, H, dv), lse (H, total_q) or None)
    attention_paged(q, k_cache, v_cache, cu_seqlens_q, seqused_k, block_table, problem)
                                    q (total_q, H, d), k_cache (num_pages, page_size, H_kv, d),
                                    v_cache (num_pages, page_size, H_kv, dv), cu_seqlens_q (B + 1,),
                                    seqused_k (B,), block_table (B, pages_per_sequence) int32
                                    -> (o (total_q, H, dv), lse (H, total_q) or None)
    attention_fp8kv(q, k, v, k_scale, v_scale, problem)
                                    q (B, n, H, d), k (B, m, H_kv, d) and v (B, m, H_kv, dv) uint8
                                    codes, k_scale and v_scale (1,) or (H_kv,) float32
                                    -> (o (B, n, H, dv), lse (B, H, n) or None)
    kv_quantize(x, scale, format, saturating)
                                    x (n,), scale a float32, format "e4m3fn" or "e5m2",
                                    saturating a bool -> codes (n,) uint8

attention_v2 is the kind ``attention`` of ABI version 2 (include/attncheck/abi.h; CALL kind 8),
audited with ``--kernel attention:DTYPE --abi 2``. problem is an :class:`AttentionProblem`: batch,
heads, kv_heads, n, m, d, dv, scale, causal, alignment ("top_left" or "bottom_right"),
window_left/window_right (-1 unbounded), softcap (0 off), alibi_slopes (None or H slopes),
num_splits (0, or at most this many split-KV parts for a kernel audited with --splits) and
want_lse (whether the LSE is asked). The LSE is sent as float32 (float64 for f64 storage).
attention_backward (CALL kind 9, ``--kernel attention_backward:DTYPE``) is its backward pass:
the gradients of sum(dout * o) (abi.h states them), given the forward's o and lse (float32, or
float64 for f64 storage); a kernel may use them or recompute its own forward.
attention_merge (CALL kind 10, ``--kernel attention_merge:DTYPE``) merges S split-KV partial
results: lse = log sum_s exp(lse_parts[s]), o = sum_s exp(lse_parts[s] - lse) o_parts[s] (abi.h);
lse_parts arrive as float32 (float64 for f64 storage), -inf for a split that saw no key. The lse
returned is sent only when attncheck asks for it (not under --no-lse), as float32 (float64).
attention_varlen (CALL kind 11, ``--kernel attention_varlen:DTYPE``) is attention over a packed
variable-length batch (FlashAttention's flash_attn_varlen_func): sequence b is the queries
cu_seqlens_q[b] .. cu_seqlens_q[b+1] - 1 and the keys cu_seqlens_k[b] .. cu_seqlens_k[b+1] - 1,
each attention_v2's dense problem with n = n_b, m = m_b on its own tokens (the causal alignment,
window and ALiBi distances counted within the sequence). problem is attention_v2's with batch = B
and n, m the largest n_b, m_b; it carries the offsets too (cu_seqlens_q, cu_seqlens_k).
attention_paged (CALL kind 12, ``--kernel attention_paged:DTYPE``) is attention over a paged KV
cache (vLLM's PagedAttention, FlashAttention's block_table): the queries packed as attention_varlen's,
sequence b's m_b = seqused_k[b] keys and values in the pages of k_cache and v_cache, its logical key
t in page block_table[b, t // page_size], slot t % page_size. Each sequence is attention_v2's dense
problem on its queries and those keys; nothing else of the caches may affect the result (the slots
after m_b, table entries past a sequence's pages and unused pages hold stale values, NaN included).
problem is attention_varlen's with the page table too: cu_seqlens_q, seqused_k, block_table,
page_size, num_pages and pages_per_sequence.
attention_fp8kv (CALL kind 13, ``--kernel attention_fp8kv:DTYPE``) is attention_v2 over an FP8 KV
cache (vLLM's kv_cache_dtype="fp8", FlashAttention 3's descales): k and v arrive as their OCP FP8
codes, problem.format says which ("e4m3fn": bias 7, NaN 0x7f/0xff, largest 448; "e5m2": bias 15,
+-inf 0x7c/0xfc, NaN 0x7d..0x7f/0xfd..0xff, largest 57344), and each value is decode(code) *
scale[g] for its key/value head g (one scale per tensor: g = 0). kv_quantize (CALL kind 14,
``--kernel kv_quantize:DTYPE``) is the cache write: the code of x / scale rounded to nearest, ties
to even; beyond the range and for +-inf the largest finite code when saturating, else NaN (E4M3FN)
or +-inf (E5M2); NaN gives a NaN code (abi.h). Both answer Declined for a format or rule they do
not implement.

Raise :class:`Declined` to decline an input (reported by attncheck, not judged).
"""
from __future__ import annotations

import struct
import sys
from typing import Any, BinaryIO, Callable, Dict, Mapping, Optional, Tuple, Union

import numpy as np

MAGIC = b"ATCK"
VERSION = 2
HELLO, CALL, RESULT, ERROR = 1, 2, 3, 4
MAX_PAYLOAD = 64 << 20  # the hard limit attncheck applies
KINDS = {1: "softmax", 2: "log_softmax", 3: "scores", 4: "rmsnorm", 5: "entropy", 6: "attention", 7: "softmax_jvp",
         8: "attention_v2", 9: "attention_backward", 10: "attention_merge", 11: "attention_varlen",
         12: "attention_paged", 13: "attention_fp8kv", 14: "kv_quantize"}
STORAGE = {1: ("f16", "<f2", 2), 2: ("bf16", "<u2", 2), 3: ("f32", "<f4", 4), 4: ("f64", "<f8", 8)}
ARITHMETIC = {0: None, 3: "f32"}  # CALL's arithmetic byte: 0 the storage format's own, 3 f32
ALIASES = {"f16": "f16@f32", "bf16": "bf16@f32", "f32@f32": "f32", "f64@f64": "f64"}
DTYPES = ("f32", "f64", "f16@f32", "bf16@f32", "f16@f16", "bf16@bf16")
_HEADER = struct.Struct("<4sBBHI")
_CALL_FIXED = struct.Struct("<BBBBIQQQQQQ")  # kind dtype causal arithmetic inputs n m d dv eps_bits out_count
# kind 8's attention block: batch heads kv_heads scale alignment u16 num_splits (1 reserved) slope_count window_left
# window_right softcap, then slope_count f64 slopes and u64 lse_count
_ATTENTION_BLOCK = struct.Struct("<QQQdBHxIqqd")
# kind 10's merge block: lse_count (0 or rows) and parts_count (splits x rows), then the parts
_MERGE_BLOCK = struct.Struct("<QQ")
# kind 11's varlen block, after the attention block: offset_count (B + 1), then offset_count int32
# cu_seqlens_q and offset_count int32 cu_seqlens_k
_VARLEN_BLOCK = struct.Struct("<Q")
# kind 12's paged block, after the attention block: page_size, num_pages, pages_per_sequence, then
# cu_seqlens_q (B + 1), seqused_k (B) and block_table (B x pages_per_sequence), each as a u64 count
# and that many int32
_PAGED_BLOCK = struct.Struct("<QQQ")
# kinds 13 and 14's fp8 block (kind 13 after the attention block): format (0 E4M3FN, 1 E5M2),
# saturating (kind 14; 0 for kind 13), 2 reserved bytes, scale_count, then scale_count float32
# k_scale and (kind 13) as many v_scale; kind 14 has one scale
_FP8_BLOCK = struct.Struct("<BBHI")
FP8_FORMATS = {0: "e4m3fn", 1: "e5m2"}
# the kinds of batched attention: an attention block, and a RESULT of o and the LSE part
_BATCHED = ("attention_v2", "attention_varlen", "attention_paged", "attention_fp8kv")

Kernel = Callable[..., Any]
KernelTable = Mapping[Union[str, Tuple[str, str]], Kernel]


class AttentionProblem:
    """The parameters of one attention_v2 call (abi.h, attncheck_attention_problem)."""

    def __init__(self, **fields: Any) -> None:
        self.__dict__.update(fields)

    def __getattr__(self, name: str) -> Any:  # for type checkers: the fields are set in __init__
        raise AttributeError(name)


class Declined(Exception):
    """Raised by a kernel that does not handle an input; the code (nonzero) is reported."""

    def __init__(self, code: int = 1) -> None:
        super().__init__(code)
        self.code = code or 1


class ProtocolError(Exception):
    """A frame attncheck should not have sent, or a kernel answer of the wrong shape."""


def canonical_dtype(dtype: str) -> str:
    """The dtype as attncheck's reports spell it ("bf16" -> "bf16@f32")."""
    d = ALIASES.get(dtype, dtype)
    if d not in DTYPES:
        raise ValueError("unknown dtype %r; use one of %s (or f16, bf16)" % (dtype, ", ".join(DTYPES)))
    return d


def kernel_key(key: Union[str, Tuple[str, str]]) -> Tuple[str, str]:
    """"softmax:f32" or ("softmax", "f32") -> ("softmax", "f32"), the dtype canonical."""
    if isinstance(key, str):
        kind, sep, dtype = key.partition(":")
        if not sep:
            raise ValueError("kernel key %r is not KIND:DTYPE (e.g. 'softmax:f32')" % key)
    else:
        kind, dtype = key
    if kind not in KINDS.values():
        raise ValueError("unknown kernel kind %r; kinds: %s" % (kind, ", ".join(KINDS.values())))
    return kind, canonical_dtype(dtype)


# ---- f16 / bf16 bits ----------------------------------------------------------------------------

def bf16_bits_to_f32(bits: np.ndarray) -> np.ndarray:
    """The float32 array with the same values as these bfloat16 bit patterns (exact)."""
    return (np.asarray(bits, dtype="<u2").astype("<u4") << 16).view("<f4")


def f32_to_bf16_bits(values: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16 bits, rounded to nearest even; a NaN stays a quiet NaN."""
    b = np.ascontiguousarray(values, dtype="<f4").view("<u4")
    r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype("<u2")
    nan = np.isnan(b.view("<f4"))
    r[nan] = ((b[nan] >> 16) | 0x0040).astype("<u2")
    return r


def f64_to_bf16_bits(values: np.ndarray) -> np.ndarray:
    """float64 -> bfloat16 bits, rounded once to nearest even: through float32 rounded to odd (24
    bits are more than 8 + 2, so the second rounding cannot err as a plain double rounding can)."""
    x = np.ascontiguousarray(values, dtype="<f8")
    with np.errstate(over="ignore", invalid="ignore"):
        t = x.astype("<f4")
        away = np.abs(t.astype("<f8")) > np.abs(x)  # rounded away from zero: step back (toward zero)
        t[away] = np.nextafter(t[away], np.float32(0))
        bits = t.view("<u4").copy()
        inexact = (t.astype("<f8") != x) & ~np.isnan(x)
    bits[inexact] |= 1
    return f32_to_bf16_bits(bits.view("<f4"))


def _torch_bits(obj: Any) -> Optional[Tuple[np.ndarray, str]]:
    """A torch tensor of a 16-bit float type as its raw bits (no rounding), else None."""
    if not type(obj).__module__.startswith("torch"):
        return None
    name = str(getattr(obj, "dtype", ""))
    if name not in ("torch.bfloat16", "torch.float16"):
        return None
    import torch  # only when the kernel returned a torch tensor

    t = obj.detach().cpu().contiguous().view(torch.int16)
    return np.from_dlpack(t).view("<u2").reshape(-1), ("bf16" if name == "torch.bfloat16" else "f16")


def as_array(obj: Any) -> np.ndarray:
    """A kernel's answer as a NumPy array: an ndarray as it is, a DLPack tensor without a copy where
    NumPy can share it, else through the buffer protocol or __array__."""
    if isinstance(obj, np.ndarray):
        return obj
    if hasattr(obj, "detach"):  # a torch tensor that requires grad cannot be exported as it is
        obj = obj.detach()
    if hasattr(obj, "__dlpack__"):
        try:
            return np.from_dlpack(obj)
        except (TypeError, RuntimeError, BufferError, ValueError):
            pass
    return np.asarray(obj)


def encode_output(result: Any, storage: str) -> bytes:
    """The kernel's answer in the storage format, each value rounded once to nearest even."""
    raw = _torch_bits(result)
    if raw is not None and raw[1] == storage:
        return raw[0].astype("<u2").tobytes()
    if raw is not None:  # the other 16-bit format: exact in float32, then rounded once
        bits, fmt = raw
        result = bf16_bits_to_f32(bits) if fmt == "bf16" else bits.view("<f2").astype("<f4")
    a = as_array(result).reshape(-1)
    if a.dtype.kind not in "fiub":
        raise ProtocolError("the kernel returned %s values, not numbers" % a.dtype)
    if storage == "bf16":
        if a.dtype.itemsize > 4 or a.dtype.kind in "iu":
            return f64_to_bf16_bits(a.astype("<f8")).tobytes()
        return f32_to_bf16_bits(a.astype("<f4")).tobytes()
    fmt = {"f16": "<f2", "f32": "<f4", "f64": "<f8"}[storage]
    with np.errstate(over="ignore"):  # NumPy rounds float64 -> float16/float32 once, to nearest even
        return np.ascontiguousarray(a.astype(fmt)).tobytes()


def encode_codes(result: Any) -> bytes:
    """A kv_quantize kernel's answer as one byte per code: integers 0 to 255 (a uint8 array, or any
    integer array within that range)."""
    a = as_array(result).reshape(-1)
    if a.dtype.kind not in "iu" or (a.size and (a.min() < 0 or a.max() > 255)):
        raise ProtocolError("kv_quantize returned %s values, not FP8 codes (integers 0 to 255)" % a.dtype)
    return a.astype(np.uint8).tobytes()


def _decode(raw: bytes, code: int) -> np.ndarray:
    _, fmt, _ = STORAGE[code]
    a = np.frombuffer(raw, dtype=fmt)
    return bf16_bits_to_f32(a) if code == 2 else a


def _compute(fn: Kernel, kind: str, arrays: list, n: int, m: int, d: int, dv: int, eps: float, causal: Any) -> Any:
    if kind in ("softmax", "log_softmax"):
        return fn(arrays[0])
    if kind == "scores":
        return fn(arrays[0].reshape(n, d), arrays[1].reshape(m, d))
    if kind == "rmsnorm":
        return fn(arrays[0], arrays[1], eps)
    if kind == "entropy":
        return np.asarray([as_array(fn(arrays[0])).reshape(-1)[0]])
    if kind == "attention":
        return fn(arrays[0].reshape(n, d), arrays[1].reshape(m, d), arrays[2].reshape(m, dv), bool(causal))
    if kind == "softmax_jvp":
        return fn(arrays[0], arrays[1])
    if kind == "attention_v2":
        p = causal  # the AttentionProblem
        return fn(arrays[0].reshape(p.batch, n, p.heads, d), arrays[1].reshape(p.batch, m, p.kv_heads, d),
                  arrays[2].reshape(p.batch, m, p.kv_heads, dv), p)
    if kind == "attention_backward":
        p = causal
        return fn(arrays[0].reshape(p.batch, n, p.heads, d), arrays[1].reshape(p.batch, m, p.kv_heads, d),
                  arrays[2].reshape(p.batch, m, p.kv_heads, dv), arrays[3].reshape(p.batch, n, p.heads, dv),
                  arrays[4].reshape(p.batch, n, p.heads, dv), p.lse.reshape(p.batch, p.heads, n), p)
    if kind == "attention_merge":  # n splits, m rows; causal carries lse_parts
        return fn(arrays[0].reshape(n, m, dv), causal.reshape(n, m))
    if kind == "attention_varlen":  # packed: the token counts are the offsets' last entries
        p = causal
        tq, tk = int(p.cu_seqlens_q[-1]), int(p.cu_seqlens_k[-1])
        for a, want, name in ((arrays[0], tq * p.heads * d, "q"), (arrays[1], tk * p.kv_heads * d, "k"),
                              (arrays[2], tk * p.kv_heads * dv, "v")):
            if a.size != want:
                raise ProtocolError("varlen %s holds %d elements, the offsets say %d" % (name, a.size, want))
        return fn(arrays[0].reshape(tq, p.heads, d), arrays[1].reshape(tk, p.kv_heads, d),
                  arrays[2].reshape(tk, p.kv_heads, dv), p.cu_seqlens_q, p.cu_seqlens_k, p)
    if kind == "attention_fp8kv":  # the codes k and v arrive as uint8
        p = causal
        return fn(arrays[0].reshape(p.batch, n, p.heads, d), arrays[1].reshape(p.batch, m, p.kv_heads, d),
                  arrays[2].reshape(p.batch, m, p.kv_heads, dv), p.k_scale, p.v_scale, p)
    if kind == "kv_quantize":  # causal carries (scale, format, saturating)
        scale, fmt, saturating = causal
        return fn(arrays[0], scale, fmt, saturating)
    if kind == "attention_paged":  # the caches' shape from the page table, q's from the offsets
        p = causal
        tq, tokens = int(p.cu_seqlens_q[-1]), p.num_pages * p.page_size
        for a, want, name in ((arrays[0], tq * p.heads * d, "q"), (arrays[1], tokens * p.kv_heads * d, "k_cache"),
                              (arrays[2], tokens * p.kv_heads * dv, "v_cache")):
            if a.size != want:
                raise ProtocolError("paged %s holds %d elements, the page table and offsets say %d" % (name, a.size, want))
        return fn(arrays[0].reshape(tq, p.heads, d), arrays[1].reshape(p.num_pages, p.page_size, p.kv_heads, d),
                  arrays[2].reshape(p.num_pages, p.page_size, p.kv_heads, dv), p.cu_seqlens_q, p.seqused_k,
                  p.block_table, p)
    raise ProtocolError("unknown kind " + kind)


def handle_call(payload: bytes, kernels: Mapping[Tuple[str, str], Kernel]) -> bytes:
    """One CALL payload -> its RESULT payload. A Declined kernel gives a declining RESULT; any
    other exception of the kernel propagates (the server then exits: attncheck reports a crash;
    a MemoryError is first sent as ERROR, which attncheck reports as its --memory limit)."""
    if len(payload) < _CALL_FIXED.size:
        raise ProtocolError("CALL payload too short")
    kind_code, dt, causal, arith, inputs, n, m, d, dv, eps_bits, out_count = _CALL_FIXED.unpack_from(payload, 0)
    if kind_code not in KINDS or dt not in STORAGE or arith not in ARITHMETIC:
        raise ProtocolError("unknown kind, dtype or arithmetic code")
    kind, (storage, _, width) = KINDS[kind_code], STORAGE[dt]
    wide = ARITHMETIC[arith]
    if wide == storage:
        wide = None
    dname = storage + "@" + (wide or storage) if dt in (1, 2) else storage
    off = _CALL_FIXED.size
    problem: Optional[AttentionProblem] = None
    lse_count = 0
    if kind in _BATCHED or kind == "attention_backward":
        if len(payload) < off + _ATTENTION_BLOCK.size:
            raise ProtocolError("CALL payload too short")
        batch, heads, kv_heads, scale, alignment, splits, slopes, wl, wr, softcap = _ATTENTION_BLOCK.unpack_from(payload, off)
        off += _ATTENTION_BLOCK.size
        alibi = np.frombuffer(payload[off:off + 8 * slopes], dtype="<f8") if slopes else None
        off += 8 * slopes
        (lse_count,) = struct.unpack_from("<Q", payload, off)
        off += 8
        problem = AttentionProblem(batch=batch, heads=heads, kv_heads=kv_heads, n=n, m=m, d=d, dv=dv, scale=scale,
                                   causal=bool(causal), alignment="bottom_right" if alignment else "top_left",
                                   window_left=wl, window_right=wr, softcap=softcap, alibi_slopes=alibi, num_splits=splits,
                                   want_lse=lse_count > 0 and kind in _BATCHED)
        if kind == "attention_backward":  # kind 9: the LSE given, after the attention block
            lse_dt = "<f8" if dt == 4 else "<f4"
            lse_w = 8 if dt == 4 else 4
            problem.lse = np.frombuffer(payload[off:off + lse_count * lse_w], dtype=lse_dt).copy()
            off += lse_count * lse_w
        if kind == "attention_varlen":  # kind 11: the varlen block, B + 1 offsets of each array
            if len(payload) < off + _VARLEN_BLOCK.size:
                raise ProtocolError("CALL payload too short")
            (count,) = _VARLEN_BLOCK.unpack_from(payload, off)
            off += _VARLEN_BLOCK.size
            if count != batch + 1 or len(payload) < off + 8 * count:
                raise ProtocolError("varlen block holds %d offsets per array, B + 1 is %d" % (count, batch + 1))
            problem.cu_seqlens_q = np.frombuffer(payload[off:off + 4 * count], dtype="<i4").copy()
            problem.cu_seqlens_k = np.frombuffer(payload[off + 4 * count:off + 8 * count], dtype="<i4").copy()
            off += 8 * count
        if kind == "attention_paged":  # kind 12: the paged block, three scalars and three counted int32 arrays
            if len(payload) < off + _PAGED_BLOCK.size:
                raise ProtocolError("CALL payload too short")
            page_size, num_pages, pages_per_sequence = _PAGED_BLOCK.unpack_from(payload, off)
            off += _PAGED_BLOCK.size
            ints = []
            for name, want in (("cu_seqlens_q", batch + 1), ("seqused_k", batch), ("block_table", batch * pages_per_sequence)):
                if len(payload) < off + 8:
                    raise ProtocolError("CALL payload too short")
                (count,) = struct.unpack_from("<Q", payload, off)
                off += 8
                if count != want or len(payload) < off + 4 * count:
                    raise ProtocolError("paged block holds %d elements of %s, the call's B and pages_per_sequence give %d"
                                        % (count, name, want))
                ints.append(np.frombuffer(payload[off:off + 4 * count], dtype="<i4").copy())
                off += 4 * count
            problem.cu_seqlens_q, problem.seqused_k = ints[0], ints[1]
            problem.block_table = ints[2].reshape(batch, pages_per_sequence)
            problem.page_size, problem.num_pages, problem.pages_per_sequence = page_size, num_pages, pages_per_sequence
    fp8 = None
    if kind in ("attention_fp8kv", "kv_quantize"):  # kinds 13 and 14: the fp8 block
        if len(payload) < off + _FP8_BLOCK.size:
            raise ProtocolError("CALL payload too short")
        fmt, saturating, reserved, scale_count = _FP8_BLOCK.unpack_from(payload, off)
        off += _FP8_BLOCK.size
        if fmt not in FP8_FORMATS or saturating > 1 or reserved:
            raise ProtocolError("unknown FP8 format %d, saturating byte %d or reserved bytes" % (fmt, saturating))
        arrays_of = 2 if kind == "attention_fp8kv" else 1
        if len(payload) < off + 4 * scale_count * arrays_of or (kind == "kv_quantize" and scale_count != 1):
            raise ProtocolError("fp8 block holds %d scales" % scale_count)
        scales = np.frombuffer(payload[off:off + 4 * scale_count * arrays_of], dtype="<f4").copy()
        off += 4 * scale_count * arrays_of
        if problem is not None:
            problem.format = FP8_FORMATS[fmt]
            problem.k_scale, problem.v_scale = scales[:scale_count], scales[scale_count:]
        else:
            fp8 = (scales[0], FP8_FORMATS[fmt], bool(saturating))
    lse_parts = None
    if kind == "attention_merge":  # kind 10: the merge block, then o_parts as the one input
        if len(payload) < off + _MERGE_BLOCK.size:
            raise ProtocolError("CALL payload too short")
        lse_count, parts = _MERGE_BLOCK.unpack_from(payload, off)
        off += _MERGE_BLOCK.size
        lse_w = 8 if dt == 4 else 4
        if parts != n * m or len(payload) < off + parts * lse_w:
            raise ProtocolError("merge block holds %d partial LSEs, splits x rows is %d" % (parts, n * m))
        lse_parts = np.frombuffer(payload[off:off + parts * lse_w], dtype="<f8" if dt == 4 else "<f4").copy()
        off += parts * lse_w
    arrays = []
    for i in range(inputs):
        (count,) = struct.unpack_from("<Q", payload, off)
        off += 8
        if kind == "attention_fp8kv" and i in (1, 2):  # the codes: one byte each
            arrays.append(np.frombuffer(payload[off:off + count], dtype=np.uint8).copy())
            off += count
            continue
        a = _decode(payload[off:off + count * width], dt)
        arrays.append(a.astype(np.float32) if wide == "f32" else a.copy())  # writable, the kernel's own
        off += count * width
    eps = struct.unpack("<d", struct.pack("<Q", eps_bits))[0]
    fn = kernels.get((kind, dname))
    if fn is None:
        raise ProtocolError("this program serves no %s:%s kernel" % (kind, dname))
    tail = b""
    try:
        with np.errstate(all="ignore"):  # overflow and NaN are what the audit looks for, not noise
            y = _compute(fn, kind, arrays, n, m, d, dv, eps,
                         problem if problem is not None else lse_parts if lse_parts is not None else
                         fp8 if fp8 is not None else causal)
            if kind == "attention_backward":
                parts = list(y)
                if len(parts) != 3:
                    raise ProtocolError("%s:%s returned %d arrays, expected (dq, dk, dv)" % (kind, dname, len(parts)))
                out = b"".join(encode_output(g, storage) for g in parts)
            elif problem is not None or kind == "attention_merge":  # o and the LSE part
                y, lse = y
                lse_a = np.asarray(lse if lse_count else [], dtype="<f8" if dt == 4 else "<f4").reshape(-1)
                if lse_a.size != lse_count:
                    raise ProtocolError("%s:%s returned %d LSE values, expected %d" % (kind, dname, lse_a.size, lse_count))
                tail = struct.pack("<Q", lse_count) + lse_a.tobytes()
            if kind == "kv_quantize":
                out = encode_codes(y)
            elif kind != "attention_backward":
                out = encode_output(y, storage)
    except Declined as e:
        lse_part = kind in _BATCHED or kind == "attention_merge"
        return struct.pack("<iIQ", e.code, 0, 0) + (struct.pack("<Q", 0) if lse_part else b"")
    if kind == "kv_quantize":
        width = 1  # one byte per code
    if len(out) != out_count * width:
        raise ProtocolError("%s:%s returned %d values, expected %d" % (kind, dname, len(out) // width, out_count))
    return struct.pack("<iIQ", 0, 0, out_count) + out + tail


def _read_exact(stream: BinaryIO, n: int) -> Optional[bytes]:
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            return data or None
        data += chunk
    return data


def _send(stream: BinaryIO, frame_type: int, payload: bytes) -> None:
    stream.write(_HEADER.pack(MAGIC, VERSION, frame_type, 0, len(payload)) + payload)
    stream.flush()


def normalise_table(kernels: KernelTable) -> Dict[Tuple[str, str], Kernel]:
    return {kernel_key(k): fn for k, fn in kernels.items()}


def serve_stream(kernels: KernelTable, inp: BinaryIO, out: BinaryIO) -> None:
    """Answers attncheck's frames on inp/out until attncheck closes inp."""
    table = normalise_table(kernels)
    while True:
        head = _read_exact(inp, _HEADER.size)
        if head is None:
            return
        try:
            if len(head) != _HEADER.size:
                raise ProtocolError("truncated header")
            magic, version, frame_type, reserved, length = _HEADER.unpack(head)
            if magic != MAGIC or version != VERSION or reserved != 0 or length > MAX_PAYLOAD:
                raise ProtocolError("bad header (this server speaks exec protocol version %d)" % VERSION)
            payload = _read_exact(inp, length) if length else b""
            if length and (payload is None or len(payload) != length):
                raise ProtocolError("truncated payload")
            if frame_type == HELLO:
                _send(out, HELLO, struct.pack("<I", VERSION))
            elif frame_type == CALL:
                _send(out, RESULT, handle_call(payload or b"", table))
            else:
                raise ProtocolError("unexpected frame type %d" % frame_type)
        except ProtocolError as e:
            _send(out, ERROR, str(e).encode()[:4096])
            return
        except MemoryError as e:
            # Out of address space under attncheck's limit (--memory): said so, so that attncheck
            # reports the limit to raise rather than a crash of the kernel.
            _send(out, ERROR, ("MemoryError: %s" % e).encode()[:4096])
            return
        except Exception as e:
            # The kernel raised: its message in an ERROR frame, which attncheck prints as the
            # failure (and, when it does so on any input, as a setup error before the checks), then
            # the exception goes on (a traceback on stderr; attncheck restarts the program).
            _send(out, ERROR, ("kernel raised %s: %s" % (type(e).__name__, e)).encode()[:4096])
            raise


def serve(kernels: KernelTable) -> None:
    """Serves kernels to ``attncheck audit --exec 'python3 this_script.py' --kernel KIND:DTYPE`` on
    stdin/stdout until attncheck closes the pipe. kernels maps "KIND:DTYPE" (or (kind, dtype)) to a
    function, e.g. ``{"softmax:f32": my_softmax}``. Anything the kernels print goes to stderr."""
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the frame stream
    serve_stream(kernels, inp, out)
