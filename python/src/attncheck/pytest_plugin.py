"""The pytest plugin (entry point pytest11 "attncheck"): a function decorated with
``@attncheck.kernel(KIND, DTYPE)`` is collected as one test item per check attncheck's audit
applies to that kernel, named ``CHECK-ID[DTYPE]`` (so ``-k FALSIFY-SM-004`` selects one). The
checks of one kernel that were selected run in one ``attncheck audit`` when the first of them
runs; a failing item shows the counterexample and the replay call.

Options: --attncheck-cases N, --attncheck-seed S (over the decorator's), --attncheck-cli PATH
(else $ATTNCHECK_CLI, else `attncheck` on PATH). Without the CLI the items are reported as errors
at collection, saying how to install it.
"""
from __future__ import annotations

from typing import Any, Callable, Dict, List

from ._kernel import _MARK, kernel

__all__ = ["kernel"]

try:
    import pytest
except ImportError:  # attncheck.kernel works without pytest; the hooks below need it
    pytest = None  # type: ignore[assignment]

if pytest is not None:

    class CheckFailed(Exception):
        def __init__(self, check: Any) -> None:
            super().__init__(check.describe())
            self.check = check

    def pytest_addoption(parser: Any) -> None:
        group = parser.getgroup("attncheck", "attncheck kernel audits (@attncheck.kernel)")
        group.addoption("--attncheck-cases", type=int, default=None, metavar="N",
                        help="successful random cases per check (attncheck audit --cases; default 200)")
        group.addoption("--attncheck-seed", default=None, metavar="S",
                        help="run seed, decimal or 0x hex (attncheck audit --seed)")
        group.addoption("--attncheck-cli", default=None, metavar="PATH",
                        help="the attncheck program (default: $ATTNCHECK_CLI, else attncheck on PATH)")

    class KernelCollector(pytest.Collector):
        """A decorated kernel: its checks, listed by `attncheck audit --list`."""

        def __init__(self, *, fn: Callable[..., Any], spec: Dict[str, Any], **kw: Any) -> None:
            super().__init__(**kw)
            self.fn = fn
            self.spec = spec
            self.result: Any = None

        def _option(self, name: str) -> Any:
            given = self.config.getoption("--attncheck-" + name)
            return given if given is not None else self.spec.get(name)

        def collect(self) -> List["CheckItem"]:
            from .audit import list_checks

            s = self.spec
            checks = list_checks(s["kind"], s["dtype"], tests=s["tests"], masked=s["masked"],
                                 cli=self.config.getoption("--attncheck-cli"), no_lse=s.get("no_lse", False))
            return [CheckItem.from_parent(self, name="%s[%s]" % (t, d), test=t, dtype=d) for t, d in checks]

        def run_audit(self) -> Any:
            """One audit of the selected items of this kernel (run once, on the first item)."""
            if self.result is None:
                from .audit import audit

                mine = [i for i in self.session.items if isinstance(i, CheckItem) and i.parent is self]
                s = self.spec
                self.result = audit(self.fn, kind=s["kind"], dtype=s["dtype"], cases=self._option("cases"),
                                    seed=self._option("seed"), masked=s["masked"], tolerance=s["tolerance"],
                                    timeout=s["timeout"], tests=sorted({i.test for i in mine}),
                                    cli=self.config.getoption("--attncheck-cli"), no_lse=s.get("no_lse", False))
            return self.result

    class CheckItem(pytest.Item):
        def __init__(self, *, test: str, dtype: str, **kw: Any) -> None:
            super().__init__(**kw)
            self.test = test
            self.dtype = dtype
            self.add_marker("attncheck")

        def runtest(self) -> None:
            result = self.parent.run_audit()
            try:
                check = result.check(self.test, self.dtype)
            except KeyError:
                pytest.fail("attncheck's report has no row for %s [%s]" % (self.test, self.dtype), pytrace=False)
            if check.verdict == "N/A":
                pytest.skip("not applicable: " + check.reason)
            if check.verdict == "NOT-JUDGED":
                pytest.skip("not judged: " + check.reason)
            if not check.passed:
                raise CheckFailed(check)

        def repr_failure(self, excinfo: Any, style: Any = None) -> Any:
            if isinstance(excinfo.value, CheckFailed):
                return excinfo.value.check.describe()
            return super().repr_failure(excinfo)

        def reportinfo(self) -> Any:
            return self.path, None, "%s: %s [%s]" % (self.parent.name, self.test, self.dtype)

    def pytest_configure(config: Any) -> None:
        config.addinivalue_line("markers", "attncheck: a check of attncheck's audit on an @attncheck.kernel function")

    @pytest.hookimpl(tryfirst=True)
    def pytest_pycollect_makeitem(collector: Any, name: str, obj: Any) -> Any:
        spec = getattr(obj, _MARK, None)
        if spec is None or not callable(obj):
            return None
        return KernelCollector.from_parent(collector, name=name, fn=obj, spec=spec)
