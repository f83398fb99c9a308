"""The exec protocol without the CLI: frames, CALL decoding, bit-exact f16 and bf16."""
import array
import io
import struct

import numpy as np
import pytest

from attncheck import Declined, protocol


def bf16(values):
    return protocol.f32_to_bf16_bits(np.asarray(values, dtype=np.float32))


def test_bf16_rounds_to_nearest_even_and_keeps_nan_quiet():
    one = 0x3F80
    ulp = 2.0 ** -7  # of bf16 at 1
    assert bf16([1.0 + ulp / 2])[0] == one          # a tie goes to the even neighbour
    assert bf16([1.0 + 3 * ulp / 2])[0] == one + 2  # and here up, to the even one
    assert bf16([1.0 + ulp / 2 + 2.0 ** -20])[0] == one + 1
    nan = bf16([np.float32("nan")])[0]
    assert nan & 0x7F80 == 0x7F80 and nan & 0x0040  # quiet
    assert bf16([np.inf, -np.inf, 0.0, -0.0]).tolist() == [0x7F80, 0xFF80, 0x0000, 0x8000]


def test_f64_to_bf16_rounds_once():
    # 1 + 2^-8 + 2^-30 is just above a bf16 tie; through float32 (nearest) it becomes the tie
    # itself and then rounds down: a double rounding error. Rounding once gives 1 + 2^-7.
    x = 1.0 + 2.0 ** -8 + 2.0 ** -30
    assert protocol.f32_to_bf16_bits(np.array([x], dtype=np.float32))[0] == 0x3F80  # the wrong way
    assert protocol.f64_to_bf16_bits(np.array([x]))[0] == 0x3F81
    big = np.array([1e39, -1e39, 3.3e38, np.nan, 1e-45])
    out = protocol.f64_to_bf16_bits(big)
    assert out[0] == 0x7F80 and out[1] == 0xFF80 and out[2] == 0x7F78 and out[3] & 0x7FC0 == 0x7FC0


def test_bf16_bits_widen_exactly():
    bits = np.arange(0, 1 << 16, 97, dtype=np.uint16)
    wide = protocol.bf16_bits_to_f32(bits)
    finite = np.isfinite(wide)
    assert (protocol.f32_to_bf16_bits(wide[finite]) == bits[finite]).all()


def test_outputs_from_buffers_and_f16():
    assert protocol.encode_output(array.array("f", [0.5, 0.25]), "f32") == struct.pack("<2f", 0.5, 0.25)
    assert protocol.encode_output(memoryview(array.array("d", [1.5])), "f64") == struct.pack("<d", 1.5)
    h = np.array([1.0 + 2.0 ** -11], dtype=np.float64)  # an f16 tie: to even (1.0)
    assert protocol.encode_output(h, "f16") == np.float16(1.0).tobytes()
    assert protocol.encode_output(np.float16([65504.0]), "f16") == np.float16(65504.0).tobytes()


def call_frame(kind, dtype_code, x, arith=0):
    raw = np.asarray(x).tobytes()
    fixed = struct.pack("<BBBBIQQQQQQ", kind, dtype_code, 0, arith, 1, len(x), 0, 0, 0, 0, len(x))
    return fixed + struct.pack("<Q", len(x)) + raw


def frame(frame_type, payload):
    return struct.pack("<4sBBHI", b"ATCK", 2, frame_type, 0, len(payload)) + payload


def read_frames(data):
    frames = []
    while data:
        magic, version, t, _, n = struct.unpack_from("<4sBBHI", data)
        assert magic == b"ATCK" and version == 2
        frames.append((t, data[12:12 + n]))
        data = data[12 + n:]
    return frames


def softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def test_hello_call_and_decline():
    def picky(x):
        if x.size > 2:
            raise Declined(7)
        return softmax(x)

    inp = io.BytesIO(frame(1, struct.pack("<I", 2)) +
                     frame(2, call_frame(1, 3, np.float32([0.0, 0.0]))) +
                     frame(2, call_frame(1, 3, np.float32([0.0, 0.0, 0.0]))))
    out = io.BytesIO()
    protocol.serve_stream({"softmax:f32": picky}, inp, out)
    frames = read_frames(out.getvalue())
    assert frames[0] == (1, struct.pack("<I", 2))
    status, _, count = struct.unpack_from("<iIQ", frames[1][1])
    assert (status, count) == (0, 2)
    assert np.frombuffer(frames[1][1][16:], dtype="<f4").tolist() == [0.5, 0.5]
    assert struct.unpack_from("<iIQ", frames[2][1]) == (7, 0, 0)


def test_bf16_call_in_f32_arithmetic():
    seen = {}

    def k(x):
        seen["dtype"] = x.dtype
        return softmax(x)

    x = bf16([1.0, 1.0, 1.0])  # the output 1/3 rounds to bf16 0x3EAB
    out = io.BytesIO()
    protocol.serve_stream({"softmax:bf16": k}, io.BytesIO(frame(2, call_frame(1, 2, x, arith=3))), out)
    (t, payload), = read_frames(out.getvalue())
    assert t == 3 and seen["dtype"] == np.float32
    assert np.frombuffer(payload[16:], dtype="<u2").tolist() == [0x3EAB] * 3


def test_unknown_kernel_is_an_error_frame():
    out = io.BytesIO()
    protocol.serve_stream({"softmax:f64": softmax}, io.BytesIO(frame(2, call_frame(1, 3, np.float32([1.0])))), out)
    (t, payload), = read_frames(out.getvalue())
    assert t == 4 and b"softmax:f32" in payload


def test_kernel_keys():
    assert protocol.kernel_key("softmax:bf16") == ("softmax", "bf16@f32")
    assert protocol.kernel_key(("attention", "f16@f16")) == ("attention", "f16@f16")
    with pytest.raises(ValueError, match="kinds:"):
        protocol.kernel_key("softmx:f32")
    with pytest.raises(ValueError, match="unknown dtype"):
        protocol.kernel_key("softmax:f8")
