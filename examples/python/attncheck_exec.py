"""attncheck exec protocol, version 2 (docs/audit-protocol.md), for the examples in this folder:
`from attncheck_exec import serve` keeps working, but the protocol now lives in the attncheck
Python package (python/, docs/consumers.md): this file imports it, installed (`pip install
./python`) or else from this checkout's python/src.

    serve({("softmax", "f32"): fn, ...})   or   serve({"softmax:f32": fn, ...})

A kernel is a plain function on NumPy arrays of its arithmetic format, keyed by (kind, dtype) with
dtype as attncheck spells it: "f32", "f64", "f16@f32" and "bf16@f32" (also "f16", "bf16"),
"f16@f16", "bf16@bf16"; the signatures and conversions are in attncheck.protocol. Raise
Declined(code) to decline an input. Only stdout carries frames: anything the kernels print goes
to stderr.
"""
import os
import sys

try:
    from attncheck.protocol import AttentionProblem, Declined, ProtocolError, serve
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir, "python", "src"))
    from attncheck.protocol import AttentionProblem, Declined, ProtocolError, serve

__all__ = ["AttentionProblem", "Declined", "ProtocolError", "serve"]
