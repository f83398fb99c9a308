"""Serves a textbook NumPy softmax (max subtracted) to attncheck at f16, bf16, f32 and f64. NumPy
computes float16 in float16 (f16@f16); bf16 arrives as float32 (bf16@f32, attncheck_exec.py):

    attncheck audit --exec 'python3 examples/python/numpy_softmax.py' --kernel softmax:f32

With --without-max it serves the classic bug instead (exp overflows for large inputs), which
the audit must catch: attncheck's own tests run both.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402


def softmax(x):
    e = np.exp(x - np.max(x))
    return e / np.sum(e)


def softmax_without_max(x):
    e = np.exp(x)
    return e / np.sum(e)


if __name__ == "__main__":
    fn = softmax_without_max if "--without-max" in sys.argv[1:] else softmax
    serve({("softmax", d): fn for d in ("f16@f16", "bf16@f32", "f32", "f64")})
