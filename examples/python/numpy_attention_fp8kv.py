"""Serves a NumPy reference of an FP8 KV cache (vLLM's kv_cache_dtype="fp8", FlashAttention 3's
descales, ONNX Runtime's k_scale/v_scale; ABI version 2, CALL kinds 13 and 14 of the exec
protocol): the cache write, kv_quantize, and attention over the codes, attention_fp8kv.

    attncheck audit --exec 'python3 examples/python/numpy_attention_fp8kv.py' --abi 2 \\
        --kernel attention_fp8kv:f32 --kernel kv_quantize:f32 --kernel attention_fp8kv:bf16 --kernel kv_quantize:bf16

The OCP 8-bit formats are built here from their fields: a table of the 256 codes' values (E4M3FN:
bias 7, 3 mantissa bits, NaN S.1111.111, largest 448; E5M2: bias 15, 2 mantissa bits, +-inf
S.11111.00 and NaN S.11111.xx, largest 57344). The write divides x by the scale in the kernel's
arithmetic, then rounds |y| to the nearer of its two neighbouring finite codes (a tie to the even
code: codes of one sign are in value order, and the last bit of the code is the last bit of the
mantissa), with one more grid point past the largest finite value (480 for E4M3FN, 2^16 for E5M2)
that stands for overflow: there the rule applies, the largest finite code when saturating, else
NaN (E4M3FN) or +-inf (E5M2). The read looks the codes up in the table, multiplies by the key/value
head's scale in the arithmetic and hands the values to numpy_attention.py's attention (one source).

f32 and f64 compute in their own format; bf16 and f16 arrive as float32 (bf16@f32, f16@f32) and
the output is rounded once to storage (attncheck_exec.py). Rows that see no key give zeros and LSE
-inf (--masked zeros holds).
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402
from numpy_attention import attention  # noqa: E402

FIELDS = {"e4m3fn": (3, 7), "e5m2": (2, 15)}  # mantissa bits, exponent bias
NAN_CODE = {"e4m3fn": 0x7F, "e5m2": 0x7F}
INF_CODE = {"e5m2": 0x7C}


def magnitude(fmt, codes):
    """|value| of codes (0 .. 0x7f) from their fields alone, the special patterns read as numbers."""
    mbits, bias = FIELDS[fmt]
    e = codes >> mbits
    m = codes & ((1 << mbits) - 1)
    return np.where(e == 0, np.ldexp(m.astype(np.float64), 1 - bias - mbits),
                    np.ldexp(((1 << mbits) + m).astype(np.float64), e - bias - mbits))


def decode_table(fmt):
    """The value of each of the 256 codes of fmt, as float64 (exact)."""
    codes = np.arange(256)
    sign = np.where(codes & 0x80, -1.0, 1.0)
    value = sign * magnitude(fmt, codes & 0x7F)
    if fmt == "e4m3fn":
        value[(codes & 0x7F) == 0x7F] = np.nan
    else:
        special = (codes & 0x7F) >= 0x7C
        value[special] = np.where((codes[special] & 3) == 0, sign[special] * np.inf, np.nan)
    return value


TABLES = {f: decode_table(f) for f in FIELDS}


def kv_quantize(x, scale, fmt, saturating):
    """The codes (uint8) of x / scale: the quotient rounded once in x's arithmetic, then to fmt."""
    y = (x / x.dtype.type(scale)).astype(np.float64)
    positive = TABLES[fmt][:0x80]
    finite = np.nonzero(np.isfinite(positive))[0]  # codes 0 .. largest finite, in value order
    top = finite[-1]
    # The grid: every finite magnitude, then the value the next code would have (the overflow point).
    grid = np.append(positive[finite], magnitude(fmt, np.array([top + 1])))
    grid_codes = np.append(finite, top + 1)
    a = np.abs(y)
    with np.errstate(invalid="ignore"):
        hi = np.clip(np.searchsorted(grid, np.where(np.isnan(a), 0, a), side="left"), 1, grid.size - 1)
        lo = hi - 1
        d_lo, d_hi = a - grid[lo], grid[hi] - a
        take_hi = (d_hi < d_lo) | ((d_hi == d_lo) & (grid_codes[hi] % 2 == 0))
    code = np.where(take_hi, grid_codes[hi], grid_codes[lo])
    overflow = (code > top) | np.isinf(a)
    over_code = top if saturating else (NAN_CODE[fmt] if fmt == "e4m3fn" else INF_CODE[fmt])
    code = np.where(overflow, over_code, code)
    code = np.where(np.isnan(a), NAN_CODE[fmt], code)
    return (code | np.where(np.signbit(y), 0x80, 0)).astype(np.uint8)


def attention_fp8kv(q, k, v, k_scale, v_scale, p):
    """q (B, n, H, d) in the arithmetic; k (B, m, H_kv, d), v (B, m, H_kv, dv) uint8 codes of
    p.format; k_scale, v_scale (1,) or (H_kv,) float32 -> o (B, n, H, dv), lse (B, H, n)."""
    t = q.dtype.type
    table = TABLES[p.format]
    kx = table[k].astype(q.dtype) * k_scale.astype(q.dtype)[None, None, :, None]  # one rounding in the arithmetic
    vx = table[v].astype(q.dtype) * v_scale.astype(q.dtype)[None, None, :, None]
    assert kx.dtype == t
    return attention(q, kx, vx, p)


if __name__ == "__main__":
    kernels = {}
    for d in ("f32", "f64", "bf16@f32", "f16@f32"):
        kernels[("attention_fp8kv", d)] = attention_fp8kv
        kernels[("kv_quantize", d)] = kv_quantize
    serve(kernels)
