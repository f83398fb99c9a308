"""attncheck exec protocol, version 2 (docs/audit-protocol.md): serve NumPy kernels to
`attncheck audit --exec 'python3 this_script.py' --kernel KIND:DTYPE`.

A kernel is a plain function on NumPy arrays of its arithmetic format, keyed by (kind, dtype)
with dtype as attncheck spells it: "f32", "f64", and for 16-bit storage STORAGE@ARITHMETIC,
"f16@f32" and "bf16@f32" (also spelt "f16", "bf16": f32 arithmetic is the default) or "f16@f16"
and "bf16@bf16". The inputs arrive converted (exactly) to the arithmetic format: float32 for
@f32, float16 for f16@f16; NumPy has no bfloat16, so bf16@bf16 arrives as float32 arrays holding
bf16 values (a kernel that claims bf16 arithmetic rounds its own steps). The result is rounded
once to the storage format, to nearest even. Signatures, by kind:

    softmax(x) / log_softmax(x)         x: (n,)            -> (n,)
    scores(q, k)                        q: (n, d), k: (m, d) -> (n, m)   s = q k^T / sqrt(d)
    rmsnorm(x, w, eps)                  x, w: (d,), eps: float -> (d,)
    entropy(p)                          p: (n,)            -> scalar
    attention(q, k, v, causal)          (n, d), (m, d), (m, dv), bool -> (n, dv)
    softmax_jvp(x, dx)                  (n,), (n,)         -> (n,)
    attention_v2(q, k, v, problem)      q (B, n, H, d), k (B, m, H_kv, d), v (B, m, H_kv, dv)
                                        -> (o (B, n, H, dv), lse (B, H, n) or None)

attention_v2 is the kind `attention` of ABI version 2 (include/attncheck/abi.h; CALL kind 8),
audited with `--kernel attention:DTYPE --abi 2`. problem is an AttentionProblem (below): scale,
causal, alignment ("top_left" or "bottom_right"), window_left/window_right (-1 unbounded),
softcap (0 off), alibi_slopes (None or H slopes) and want_lse (whether the LSE is asked). The LSE
is sent as float32 (float64 for f64 storage).

Raise Declined(code) to decline an input (reported by attncheck, not judged).
Only stdout carries frames: anything the kernels print goes to stderr.
"""
import struct
import sys

import numpy as np

MAGIC = b"ATCK"
VERSION = 2
HELLO, CALL, RESULT, ERROR = 1, 2, 3, 4
MAX_PAYLOAD = 64 << 20  # the same hard limit attncheck applies
KINDS = {1: "softmax", 2: "log_softmax", 3: "scores", 4: "rmsnorm", 5: "entropy", 6: "attention", 7: "softmax_jvp",
         8: "attention_v2"}
DTYPES = {1: ("f16", "<f2", 2), 2: ("bf16", "<u2", 2), 3: ("f32", "<f4", 4), 4: ("f64", "<f8", 8)}
ARITHMETIC = {0: None, 3: "f32"}  # CALL's arithmetic byte: 0 the storage format's own, 3 f32
ALIASES = {"f16": "f16@f32", "bf16": "bf16@f32", "f32@f32": "f32", "f64@f64": "f64"}
CALL_FIXED = struct.Struct("<BBBBIQQQQQQ")  # kind dtype causal arithmetic inputs n m d dv eps_bits out_count
# kind 8's attention block: batch heads kv_heads scale alignment (3 reserved) slope_count window_left
# window_right softcap, then slope_count f64 slopes and u64 lse_count
ATTENTION_BLOCK = struct.Struct("<QQQdB3xIqqd")


class AttentionProblem:
    """The parameters of one attention_v2 call (abi.h, attncheck_attention_problem)."""

    def __init__(self, **fields):
        self.__dict__.update(fields)


class Declined(Exception):
    """Raised by a kernel that does not handle an input; code must be nonzero."""

    def __init__(self, code=1):
        super().__init__(code)
        self.code = code or 1


class ProtocolError(Exception):
    pass


def _read_exact(stream, n):
    data = b""
    while len(data) < n:
        chunk = stream.read(n - len(data))
        if not chunk:
            return None if not data else data
        data += chunk
    return data


def _send(stream, frame_type, payload):
    stream.write(struct.pack("<4sBBHI", MAGIC, VERSION, frame_type, 0, len(payload)) + payload)
    stream.flush()


def _decode(raw, code):
    _, fmt, _ = DTYPES[code]
    a = np.frombuffer(raw, dtype=fmt)
    if code == 2:  # bfloat16 bits -> the float32 with the same value (exact)
        a = (a.astype("<u4") << 16).view("<f4")
    return a


def _encode(values, code):
    if code == 2:  # float32 -> bfloat16, round to nearest even; NaN stays a quiet NaN
        b = np.ascontiguousarray(values, dtype="<f4").view("<u4")
        r = ((b + 0x7FFF + ((b >> 16) & 1)) >> 16).astype("<u2")
        nan = np.isnan(b.view("<f4"))
        r[nan] = ((b[nan] >> 16) | 0x0040).astype("<u2")
        return r.tobytes()
    return np.ascontiguousarray(values, dtype=DTYPES[code][1]).tobytes()


def _compute(fn, kind, arrays, n, m, d, dv, eps, causal):
    if kind == "softmax" or kind == "log_softmax":
        return fn(arrays[0])
    if kind == "scores":
        return fn(arrays[0].reshape(n, d), arrays[1].reshape(m, d))
    if kind == "rmsnorm":
        return fn(arrays[0], arrays[1], eps)
    if kind == "entropy":
        return np.array([fn(arrays[0])])
    if kind == "attention":
        return fn(arrays[0].reshape(n, d), arrays[1].reshape(m, d), arrays[2].reshape(m, dv), bool(causal))
    if kind == "softmax_jvp":
        return fn(arrays[0], arrays[1])
    if kind == "attention_v2":
        p = causal  # the AttentionProblem
        return fn(arrays[0].reshape(p.batch, n, p.heads, d), arrays[1].reshape(p.batch, m, p.kv_heads, d),
                  arrays[2].reshape(p.batch, m, p.kv_heads, dv), p)
    raise ProtocolError("unknown kind " + kind)


def _handle_call(payload, kernels):
    if len(payload) < CALL_FIXED.size:
        raise ProtocolError("CALL payload too short")
    kind_code, dt, causal, arith, inputs, n, m, d, dv, eps_bits, out_count = CALL_FIXED.unpack_from(payload, 0)
    if kind_code not in KINDS or dt not in DTYPES or arith not in ARITHMETIC:
        raise ProtocolError("unknown kind, dtype or arithmetic code")
    kind, (storage, _, width) = KINDS[kind_code], DTYPES[dt]
    wide = ARITHMETIC[arith]
    if wide == storage:
        wide = None
    dname = storage + "@" + (wide or storage) if dt in (1, 2) else storage
    off = CALL_FIXED.size
    problem, lse_count = None, 0
    if kind == "attention_v2":
        if len(payload) < off + ATTENTION_BLOCK.size:
            raise ProtocolError("CALL payload too short")
        batch, heads, kv_heads, scale, alignment, slopes, wl, wr, softcap = ATTENTION_BLOCK.unpack_from(payload, off)
        off += ATTENTION_BLOCK.size
        alibi = np.frombuffer(payload[off:off + 8 * slopes], dtype="<f8") if slopes else None
        off += 8 * slopes
        (lse_count,) = struct.unpack_from("<Q", payload, off)
        off += 8
        problem = AttentionProblem(batch=batch, heads=heads, kv_heads=kv_heads, n=n, m=m, d=d, dv=dv, scale=scale,
                                   causal=bool(causal), alignment="bottom_right" if alignment else "top_left",
                                   window_left=wl, window_right=wr, softcap=softcap, alibi_slopes=alibi,
                                   want_lse=lse_count > 0)
    arrays = []
    for _ in range(inputs):
        (count,) = struct.unpack_from("<Q", payload, off)
        off += 8
        a = _decode(payload[off:off + count * width], dt)
        arrays.append(a.astype(np.float32) if wide == "f32" else a)
        off += count * width
    eps = struct.unpack("<d", struct.pack("<Q", eps_bits))[0]
    fn = kernels.get((kind, dname))
    if fn is None:
        raise ProtocolError("this program serves no %s:%s kernel" % (kind, dname))
    try:
        with np.errstate(all="ignore"):  # overflow/NaN are what the audit looks for, not noise
            y = _compute(fn, kind, arrays, n, m, d, dv, eps, problem if problem else causal)
            lse = None
            if problem:
                y, lse = y
                lse = np.asarray(lse if lse_count else [], dtype="<f8" if dt == 4 else "<f4").reshape(-1)
            y = np.asarray(y).reshape(-1)
    except Declined as e:
        return struct.pack("<iIQ", e.code, 0, 0) + (struct.pack("<Q", 0) if problem else b"")
    if y.size != out_count:
        raise ProtocolError("%s:%s returned %d values, expected %d" % (kind, dname, y.size, out_count))
    if problem and lse.size != lse_count:
        raise ProtocolError("%s:%s returned %d LSE values, expected %d" % (kind, dname, lse.size, lse_count))
    tail = struct.pack("<Q", lse_count) + lse.tobytes() if problem else b""
    return struct.pack("<iIQ", 0, 0, out_count) + _encode(y, dt) + tail


def serve(kernels):
    """Answers attncheck's frames on stdin/stdout until attncheck closes the pipe.
    kernels maps (kind, dtype) -> function, e.g. {("softmax", "f32"): my_softmax}."""
    kernels = {(kind, ALIASES.get(d, d)): fn for (kind, d), fn in kernels.items()}
    inp, out = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # a stray print must not corrupt the frame stream
    while True:
        head = _read_exact(inp, 12)
        if head is None:
            return
        try:
            if len(head) != 12:
                raise ProtocolError("truncated header")
            magic, version, frame_type, reserved, length = struct.unpack("<4sBBHI", head)
            if magic != MAGIC or version != VERSION or reserved != 0 or length > MAX_PAYLOAD:
                raise ProtocolError("bad header")
            payload = _read_exact(inp, length) if length else b""
            if length and (payload is None or len(payload) != length):
                raise ProtocolError("truncated payload")
            if frame_type == HELLO:
                _send(out, HELLO, struct.pack("<I", VERSION))
            elif frame_type == CALL:
                _send(out, RESULT, _handle_call(payload, kernels))
            else:
                raise ProtocolError("unexpected frame type %d" % frame_type)
        except ProtocolError as e:
            _send(out, ERROR, str(e).encode()[:4096])
            return
