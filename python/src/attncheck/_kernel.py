"""@attncheck.kernel: marks a kernel function for the pytest plugin (attncheck.pytest_plugin)
to collect, one test item per check. Importing it needs no pytest."""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, List, Optional, TypeVar, Union

F = TypeVar("F", bound=Callable[..., Any])

_MARK = "__attncheck_kernel__"


def kernel(kind: str, dtype: str, *, cases: Optional[int] = None, seed: Union[int, str, None] = None,
           masked: Optional[str] = None, tolerance: Optional[str] = None, tests: Optional[Iterable[str]] = None,
           timeout: Optional[float] = None, no_lse: bool = False) -> Callable[[F], F]:
    """Marks fn as a kernel for pytest to audit: one item per applicable check. The function is
    returned unchanged (still callable as a kernel). no_lse: an attention_v2, attention_merge,
    attention_varlen, attention_paged or attention_fp8kv kernel that returns no LSE
    (audit(no_lse=True)): the LSE's checks are not collected."""
    from .protocol import kernel_key

    key = kernel_key((kind, dtype))  # fails at import on a wrong kind or dtype

    def mark(fn: F) -> F:
        setattr(fn, _MARK, {"kind": key[0], "dtype": key[1], "cases": cases, "seed": seed, "masked": masked,
                            "tolerance": tolerance, "tests": list(tests) if tests else None, "timeout": timeout,
                            "no_lse": no_lse})
        return fn

    return mark
