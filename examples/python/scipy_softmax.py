"""Serves scipy.special.softmax to attncheck at f32 and f64:

    attncheck audit --exec 'python3 examples/python/scipy_softmax.py' --kernel softmax:f32 --kernel softmax:f64
"""
import os
import sys

import scipy.special

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from attncheck_exec import serve  # noqa: E402

if __name__ == "__main__":
    # SciPy computes float16 in float16 (f16@f16); bf16 arrives as float32 (bf16@f32).
    serve({("softmax", d): scipy.special.softmax for d in ("f16@f16", "bf16@f32", "f32", "f64")})
