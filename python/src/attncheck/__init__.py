"""attncheck for Python: audit NumPy/PyTorch/JAX kernels against attncheck's contracts.

- ``attncheck.serve({"softmax:f32": fn, ...})``: serve kernels over the exec protocol, for
  ``attncheck audit --exec 'python3 my_kernels.py' --kernel softmax:f32``;
- ``attncheck.audit(fn, kind="softmax", dtype="f32", cases=200)``: run the audit from Python and
  get the verdicts, counterexamples (as arrays) and replay calls;
- ``@attncheck.kernel("softmax", "f32")``: one pytest item per check (the pytest plugin).

The attncheck command-line program does the checking: install it, or set ATTNCHECK_CLI.
"""
from .audit import AttncheckError, AuditResult, Check, CLINotFoundError, audit, find_cli, list_checks
from .protocol import Declined, ProtocolError, serve
from ._kernel import kernel

__version__ = "0.1.0"
__all__ = ["AttncheckError", "AuditResult", "Check", "CLINotFoundError", "Declined", "ProtocolError", "audit",
           "find_cli", "kernel", "list_checks", "serve"]
