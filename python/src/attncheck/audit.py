"""attncheck.audit(): runs ``attncheck audit --exec`` on Python kernels and returns the verdicts
of its JSON report.

The kernels run in this process, so closures, models and lambdas work: the ``--exec`` program
attncheck starts is a small relay that connects to a Unix socket this process serves (one thread
per connection; attncheck restarts the relay after a timeout or a crash). A kernel that raises
anything but Declined ends its connection, which attncheck reports as a crash on that input. A
kernel that hangs is cut off by attncheck's --timeout, but its thread keeps running here; and a
kernel that crashes the interpreter takes this process with it: serve such kernels from a
program of their own with attncheck.serve() and ``attncheck audit --exec``.
"""
from __future__ import annotations

import json
import math
import os
import shlex
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
from dataclasses import dataclass, field
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from .protocol import Kernel, KernelTable, kernel_key, normalise_table, serve_stream


class AttncheckError(RuntimeError):
    """attncheck could not run the audit (a usage or loading error: exit status 2)."""


class CLINotFoundError(AttncheckError, FileNotFoundError):
    """The attncheck command-line program is not installed where this package looks."""


def find_cli(cli: Optional[str] = None) -> str:
    """The attncheck program: cli if given, else $ATTNCHECK_CLI, else `attncheck` on PATH."""
    candidate = cli or os.environ.get("ATTNCHECK_CLI") or shutil.which("attncheck")
    if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
        return os.path.abspath(candidate)
    where = "%r does not exist or is not executable" % candidate if candidate else "no `attncheck` on PATH"
    raise CLINotFoundError(
        "the attncheck command-line program was not found (%s). Install it (`cmake --install build "
        "--prefix P` and put P/bin on PATH, or the attncheck .deb), or set ATTNCHECK_CLI=/path/to/attncheck." % where)


# ---- the result ---------------------------------------------------------------------------------

def _bits_to_array(bits: Sequence[str], dtype: str) -> np.ndarray:
    storage = dtype.split("@")[0]
    width = {"f16": "<u2", "bf16": "<u2", "f32": "<u4", "f64": "<u8"}[storage]
    raw = np.array([int(b, 16) for b in bits], dtype=width)
    if storage == "bf16":
        return (raw.astype("<u4") << 16).view("<f4")
    return raw.view({"f16": "<f2", "f32": "<f4", "f64": "<f8"}[storage])


def _ratio_figure(r: float) -> str:
    """A ratio as attncheck's failure text prints it: 4 significant digits (C's %.4g), "inf" when not finite."""
    return "%.4g" % r if math.isfinite(r) else "inf"


def _ratio(row: Mapping[str, Any], key: str) -> float:
    v = row.get(key, 0)
    return math.inf if v == "inf" else float(v or 0)


@dataclass
class Check:
    """One (check, dtype) row of the report."""

    test: str                  # FALSIFY-... or AUDIT-...
    dtype: str                 # as attncheck spells it: f32, bf16@f32, ...
    verdict: str               # PASS, FAIL, ERROR, GAVE-UP, N/A (not applicable) or NOT-JUDGED (every input declined)
    contract: str
    obligations: List[str]
    kinds: List[str]
    counterexample: str        # the failure's text block, "" when it passed
    message: str
    reason: str                # why not applicable
    # The CLI's replay line, serving the kernels with ``python3 -m attncheck serve`` (works as
    # printed from a shell); "" when a kernel cannot be imported by name (a lambda, a closure, a
    # function of __main__): then ``replay`` is the one that replays.
    cli_replay: str
    replay: str                # the same check from Python: an attncheck.audit(...) call
    # The figures of a check, each labelled as the text report labels them (error / allowance; 0.0
    # when nothing was measured, math.inf when a NaN or an overflow was seen):
    worst_ratio: float = 0.0           # the largest seen over the run (failing case and shrink steps included)
    worst_case: str = ""               # where it was seen
    counterexample_ratio: float = 0.0  # that of the shrunk counterexample (shrinking keeps the smallest failing input)
    worst_failure: str = ""            # the failing case of the largest ratio, when it is not the counterexample
    worst_failure_ratio: float = 0.0
    likely_cause: str = ""             # the contract's words for what usually makes this check fail (if_fails)
    values: Dict[str, np.ndarray] = field(default_factory=dict, repr=False)  # the counterexample: "input", "kernel", ...
    row: Dict[str, Any] = field(default_factory=dict, repr=False)            # the JSON report's row as it is

    @property
    def passed(self) -> bool:
        return self.verdict == "PASS"

    @property
    def name(self) -> str:
        return "%s[%s]" % (self.test, self.dtype)

    def describe(self, verbose: bool = False) -> str:
        """The failure as attncheck prints it, failure first: verdict line, likely cause, figures,
        counterexample (RapidCheck's "Drawn" lines only when verbose), replay, worst failing case."""
        lines = ["%s %s [%s]  contract %s, obligations %s" % (self.verdict, self.test, self.dtype, self.contract,
                                                            ", ".join(self.obligations))]
        if self.likely_cause and self.verdict == "FAIL":
            lines.append("  Likely cause: " + self.likely_cause)
        figures = self.figures()
        if figures:
            lines.append("  " + figures)
        if self.counterexample:
            text = [line for line in self.counterexample.rstrip("\n").split("\n") if verbose or not line.startswith("  Drawn ")]
            lines += ["  Counterexample (shrunk):"] + ["    " + line if line else "" for line in text]
        if self.message:
            lines.append("  " + self.message)
        if self.reason:
            lines.append(("  not judged: " if self.verdict == "NOT-JUDGED" else "  not applicable: ") + self.reason)
        lines.append("  Replay: " + self.replay)
        if self.worst_failure:
            lines.append("  Worst failing case found (error/allowance %s):" % _ratio_figure(self.worst_failure_ratio))
            lines += ["    " + line if line else "" for line in self.worst_failure.rstrip("\n").split("\n")]
        return "\n".join(lines)

    def figures(self) -> str:
        """The error/allowance figures, labelled, as the text report prints them; "" when none was measured."""
        if self.worst_ratio == 0 and self.counterexample_ratio == 0:
            return ""
        if self.counterexample_ratio == self.worst_ratio:
            return "Error/allowance: %s in the shrunk counterexample, the largest seen" % _ratio_figure(self.worst_ratio)
        s = "Error/allowance: largest seen " + _ratio_figure(self.worst_ratio)
        if self.worst_case:
            s += " (%s)" % self.worst_case
        if self.counterexample_ratio != 0:
            s += ", shrunk counterexample " + _ratio_figure(self.counterexample_ratio)
        elif self.counterexample:
            s += "; the counterexample's failure is not an error against an allowance"
        if self.worst_failure:
            s += "; shrinking keeps the smallest failing input, not the largest error: the worst failing case found follows the replay line"
        return s


@dataclass
class AuditResult:
    """The verdicts of one audit, from its JSON report (schema attncheck-audit/1)."""

    checks: List[Check] = field(repr=False)
    exit_status: int                                 # 0 all passed, 1 a check failed
    output: str = field(repr=False)                  # attncheck's text report
    command: List[str] = field(repr=False)
    report: Dict[str, Any] = field(repr=False)       # the JSON report as it is

    @property
    def passed(self) -> bool:
        return self.exit_status == 0 and all(c.passed for c in self.ran)

    @property
    def ran(self) -> List[Check]:
        """The checks that judged the kernel (not N/A, and not NOT-JUDGED: every input declined)."""
        return [c for c in self.checks if c.verdict not in ("N/A", "NOT-JUDGED")]

    @property
    def failures(self) -> List[Check]:
        return [c for c in self.ran if not c.passed]

    def check(self, test: str, dtype: Optional[str] = None) -> Check:
        for c in self.checks:
            if c.test == test and (dtype is None or c.dtype == dtype):
                return c
        raise KeyError("%s%s is not in this audit" % (test, "" if dtype is None else " [%s]" % dtype))

    def summary(self) -> str:
        n = len(self.ran)
        not_judged = sum(1 for c in self.checks if c.verdict == "NOT-JUDGED")
        text = "%d passed, %d failed, %d not applicable" % (n - len(self.failures), len(self.failures),
                                                             len(self.checks) - n - not_judged)
        if not_judged:
            text += ", %d not judged (every input declined)" % not_judged
        return "\n\n".join([text] + [c.describe() for c in self.failures])

    def __bool__(self) -> bool:
        return self.passed

    def __repr__(self) -> str:
        return "<AuditResult %s: %s>" % ("passed" if self.passed else "FAILED", self.summary().split("\n", 1)[0])


# ---- serving kernels from this process ----------------------------------------------------------

# The --exec program: relays stdin/stdout to the socket. No import of this package (it may not be
# importable from the relay's interpreter flags), only the standard library.
_RELAY = (
    "import os,socket,sys,threading\n"
    "s=socket.socket(socket.AF_UNIX);s.connect(sys.argv[1])\n"
    "def up():\n"
    " while True:\n"
    "  b=os.read(0,1<<16)\n"
    "  if not b: break\n"
    "  s.sendall(b)\n"
    " s.shutdown(socket.SHUT_WR)\n"
    "threading.Thread(target=up,daemon=True).start()\n"
    "while True:\n"
    " b=s.recv(1<<16)\n"
    " if not b: break\n"
    " os.write(1,b)\n"
)


class _Server:
    """Serves a kernel table on a Unix socket, one thread per connection."""

    def __init__(self, table: Mapping[Tuple[str, str], Kernel]) -> None:
        self.table = table
        self.dir = tempfile.mkdtemp(prefix="attncheck-")
        self.path = os.path.join(self.dir, "kernels.sock")
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.bind(self.path)
        self.sock.listen(16)
        self.closed = False
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            inp, out = conn.makefile("rb"), conn.makefile("wb")
            try:
                serve_stream(self.table, inp, out)
            except Exception as e:  # the kernel raised: end the connection, attncheck sees a crash
                sys.stderr.write("attncheck: kernel raised %s: %s\n" % (type(e).__name__, e))
            finally:
                for f in (inp, out):
                    try:
                        f.close()
                    except OSError:
                        pass

    def exec_command(self) -> str:
        return "%s -S -c %s %s" % (shlex.quote(sys.executable), shlex.quote(_RELAY), shlex.quote(self.path))

    def close(self) -> None:
        self.closed = True
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _cli_quoted(s: str) -> str:
    """A word as the CLI's replay lines quote it (src/cli/util.cpp's shell_quoted)."""
    if s and all(c.isascii() and (c.isalnum() or c in "_-./=:,+") for c in s):
        return s
    return "'" + s.replace("'", "'\\''") + "'"


def _serve_command(table: Mapping[Tuple[str, str], Kernel]) -> Optional[str]:
    """The shell command ``python3 -m attncheck serve KIND:DTYPE=MODULE:FUNCTION ...`` that serves
    the table's kernels from their modules, or None when one of them cannot be imported by name."""
    roots = [os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]  # this package's
    words = []
    for (k, d), fn in table.items():
        module, qualname = getattr(fn, "__module__", None), getattr(fn, "__qualname__", "")
        loaded = sys.modules.get(module or "")
        where = getattr(loaded, "__file__", None)
        if not module or module == "__main__" or "<" in qualname or not where:
            return None
        obj: Any = loaded
        for part in qualname.split("."):
            obj = getattr(obj, part, None)
        if obj is not fn:  # rebound or shadowed: the name does not lead to this function
            return None
        root = os.path.dirname(os.path.abspath(where))
        for _ in range(module.count(".") + (os.path.basename(where) == "__init__.py")):
            root = os.path.dirname(root)
        roots.append(root)
        words.append("%s:%s=%s:%s" % (k, d, module, qualname))
    return "env PYTHONPATH=%s %s -m attncheck serve %s" % (
        shlex.quote(os.pathsep.join(dict.fromkeys(roots))), shlex.quote(sys.executable), " ".join(shlex.quote(w) for w in words))


# ---- audit() ------------------------------------------------------------------------------------

def _python_replay(kernels: Mapping[Tuple[str, str], Kernel], fn_name: str, test: str, dtype: str, seed: str,
                   cases: int, extra: str) -> str:
    if len(kernels) == 1:
        (kind, kd), = kernels.keys()
        head = "attncheck.audit(%s, kind=%r, dtype=%r" % (fn_name, kind, kd)
    else:
        head = "attncheck.audit(kernels={%s}" % ", ".join("%r: ..." % ("%s:%s" % k) for k in kernels)
    return "%s, tests=[%r], dtypes=[%r], seed=%r, cases=%d%s)" % (head, test, dtype, seed, cases, extra)


def audit(fn: Optional[Kernel] = None, *, kind: str = "softmax", dtype: str = "f32",
          kernels: Optional[KernelTable] = None, cases: Optional[int] = None, seed: Union[int, str, None] = None,
          masked: Optional[str] = None, tolerance: Optional[str] = None, tests: Optional[Iterable[str]] = None,
          contracts: Optional[Iterable[str]] = None, dtypes: Optional[Iterable[str]] = None,
          timeout: Optional[float] = None, jobs: int = 1, cli: Optional[str] = None,
          contracts_dir: Optional[str] = None, attention_shapes: Optional[Iterable[str]] = None,
          no_lse: bool = False, splits: Optional[int] = None, page_size_invariant: bool = False,
          packing_invariant: bool = False, supports: Union[Mapping[str, Any], Iterable[str], None] = None,
          subnormals: Optional[str] = None, stores: Optional[str] = None,
          extra_args: Sequence[str] = ()) -> AuditResult:
    """Audits fn as the kernel KIND:DTYPE (or every kernel of ``kernels={"softmax:f32": fn, ...}``)
    with ``attncheck audit --exec`` and returns the verdicts of its JSON report.

    cases, seed, masked ("zeros", "nan" or "either"), tolerance, tests, contracts, dtypes, timeout
    and jobs are the CLI's options of the same names. kind "attention_v2" is the batched attention
    of ABI version 2 (the CLI's ``--kernel attention:DTYPE --abi 2``; fn(q, k, v, problem) returns
    (o, lse), see attncheck.protocol); attention_shapes are its ``--attention-shape`` words and
    no_lse its ``--no-lse``. kind "attention_backward" is its backward pass (fn(q, k, v, o, dout,
    lse, problem) returns (dq, dk, dv)); kind "attention_merge" the merge of split-KV partial results
    (fn(o_parts, lse_parts) returns (o, lse); no_lse: it returns no LSE); kind "attention_varlen"
    attention over a packed variable-length batch (fn(q, k, v, cu_seqlens_q, cu_seqlens_k,
    problem) returns (o, lse); no_lse: it returns no LSE); kind "attention_paged" attention over a
    paged KV cache (fn(q, k_cache, v_cache, cu_seqlens_q, seqused_k, block_table, problem) returns
    (o, lse); no_lse: it returns no LSE); kind "attention_fp8kv" attention over an FP8 KV cache
    (fn(q, k, v, k_scale, v_scale, problem) with k and v uint8 codes of problem.format returns (o,
    lse); no_lse: it returns no LSE); kind "kv_quantize" the cache write (fn(x, scale, format,
    saturating) returns the uint8 codes). splits is the CLI's ``--splits S`` (the attention_v2 or
    attention_paged kernel reads problem.num_splits: split-KV decoding) and page_size_invariant its
    ``--page-size-invariant`` (the attention_paged kernel's bits do not depend on the page size);
    packing_invariant is ``--packing-invariant`` (the attention_varlen kernel computes each sequence
    as the attention_v2 kernel of the same table computes it alone: FALSIFY-VARLEN-003 bit for bit).
    supports declares what an attention kernel can compute, the CLI's ``--supports``: words such as
    "alibi=no" and "attention_paged:page_size=16,32", or a dict {"alibi": False, "page_size": [16, 32]}
    (inputs outside are not sent; docs/audit.md, "Capabilities"); subnormals is ``--subnormals``
    ("ieee", the default, or "flush": the kernel flushes results below the smallest normal to zero,
    and is judged by that model). stores is the CLI's ``--stores``: what a 16-bit attention kernel
    (or its backward pass) stores in its storage format along the way, "p" (fused, the default:
    FlashAttention's recipe) or "scores,p,dp,ds" (also "scores,p" or "unfused": a graph of separate
    ops, as PyTorch's math path and its autograd on bf16 tensors; docs/formats.md). Raises
    CLINotFoundError without the CLI and AttncheckError
    when attncheck refuses the run (exit status 2)."""
    if (fn is None) == (kernels is None):
        raise TypeError("audit() takes a kernel function or kernels={...}, not both or neither")
    table = normalise_table(kernels) if kernels is not None else {kernel_key((kind, dtype)): fn}
    kinds = {k for k, _ in table}
    if "attention_v2" in kinds and "attention" in kinds:
        raise TypeError("attention (ABI version 1) and attention_v2 (version 2) cannot be audited in one run")
    exe = find_cli(cli)
    server = _Server(table)
    workdir = tempfile.mkdtemp(prefix="attncheck-report-")
    report_path = os.path.join(workdir, "audit.json")
    try:
        cmd = [exe]
        if contracts_dir:
            cmd += ["--contracts", contracts_dir]
        cmd += ["audit", "--exec", server.exec_command()]
        for k, d in table:  # ABI version 2's attention is the CLI's kind attention under --abi 2
            cmd += ["--kernel", "%s:%s" % ("attention" if k == "attention_v2" else k, d)]
        if "attention_v2" in kinds:
            cmd += ["--abi", "2"]
        for shape in attention_shapes or ():
            cmd += ["--attention-shape", str(shape)]
        if no_lse:
            cmd += ["--no-lse"]
        if splits:  # None or 0: not declared
            cmd += ["--splits", str(splits)]
        if page_size_invariant:
            cmd += ["--page-size-invariant"]
        if packing_invariant:
            cmd += ["--packing-invariant"]
        for word in supports_words(supports):
            cmd += ["--supports", word]
        for flag, values in (("--test", tests), ("--contract", contracts), ("--dtype", dtypes)):
            for v in values or ():
                cmd += [flag, str(v)]
        for flag, value in (("--cases", cases), ("--seed", seed), ("--masked", masked),
                            ("--tolerance", tolerance), ("--timeout", timeout), ("--subnormals", subnormals),
                            ("--stores", stores)):
            if value is not None:
                cmd += [flag, str(value)]
        cmd += ["-j", str(jobs), "-q", "--json", report_path] + list(extra_args)
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode not in (0, 1) or not os.path.exists(report_path):
            # The relay program attncheck ran is this process's plumbing: named for what it serves.
            said = (proc.stderr + proc.stdout).replace("program '%s'" % server.exec_command(), "the Python kernels given to attncheck.audit()")
            raise AttncheckError("attncheck audit exited with status %d:\n%s" % (proc.returncode, said))
        with open(report_path, encoding="utf-8") as f:
            report = json.load(f)
    finally:
        server.close()
        shutil.rmtree(workdir, ignore_errors=True)

    name = getattr(fn, "__name__", "fn") if fn is not None else "kernels"
    if not name.isidentifier():  # a lambda
        name = "fn"
    extra = "".join(", %s=%r" % (k, v) for k, v in (("masked", masked), ("tolerance", tolerance), ("subnormals", subnormals),
                                                    ("stores", stores))
                    if v is not None)
    if attention_shapes:
        extra += ", attention_shapes=%r" % [str(a) for a in attention_shapes]
    if no_lse:
        extra += ", no_lse=True"
    if supports:
        extra += ", supports=%r" % supports_words(supports)
    serve_cmd = _serve_command(table)
    relay = " --exec " + _cli_quoted(server.exec_command())

    def cli_replay(line: str) -> str:
        if not line or relay not in line or serve_cmd is None:
            return ""
        return line.replace(relay, " --exec " + _cli_quoted(serve_cmd))

    checks = []
    for row in report.get("results", []):
        values = {}
        for v in row.get("counterexample_values", []):
            if v.get("bits"):
                label = v["label"][:-len(" bits")] if v["label"].endswith(" bits") else v["label"]
                values[label.lower()] = _bits_to_array(v["bits"], row["dtype"])
        checks.append(Check(
            test=row["test"], dtype=row["dtype"], verdict=row["verdict"], contract=row.get("contract", ""),
            obligations=list(row.get("obligations", [])), kinds=list(row.get("kinds", [])),
            counterexample=row.get("counterexample", ""), message=row.get("message", ""),
            reason=row.get("reason", ""), cli_replay=cli_replay(row.get("replay", "")),
            worst_ratio=_ratio(row, "worst_ratio"), worst_case=row.get("worst_case", ""),
            counterexample_ratio=_ratio(row, "counterexample_ratio"), worst_failure=row.get("worst_failure", ""),
            worst_failure_ratio=_ratio(row, "worst_failure_ratio"), likely_cause=row.get("likely_cause", ""),
            replay=_python_replay(table, name, row["test"], row["dtype"], report.get("seed", ""),
                                  int(report.get("cases", cases or 200)), extra),
            values=values, row=row))
    return AuditResult(checks=checks, exit_status=proc.returncode, output=proc.stdout, command=cmd, report=report)


def supports_words(supports: Union[Mapping[str, Any], Iterable[str], None]) -> List[str]:
    """The --supports words of a declaration: a dict {FEATURE: bool or numbers} or words as they are."""
    if supports is None:
        return []
    if isinstance(supports, Mapping):
        words = []
        for feature, value in supports.items():
            if isinstance(value, bool):
                value = "yes" if value else "no"
            elif isinstance(value, (list, tuple, set)):
                value = ",".join(str(int(v)) for v in value)
            words.append("%s=%s" % (feature, value))
        return words
    if isinstance(supports, str):
        return [supports]
    return [str(w) for w in supports]


def list_checks(kind: str, dtype: str, *, tests: Optional[Iterable[str]] = None, masked: Optional[str] = None,
                cli: Optional[str] = None, contracts_dir: Optional[str] = None,
                no_lse: bool = False) -> List[Tuple[str, str]]:
    """The (test ID, dtype) checks an audit of KIND:DTYPE runs (``attncheck audit --list``); kind
    "attention_v2" lists ABI version 2's (``--kernel attention:DTYPE --abi 2``), without the LSE's
    checks under no_lse, as audit() runs them."""
    exe = find_cli(cli)
    k, d = kernel_key((kind, dtype))
    cmd = [exe] + (["--contracts", contracts_dir] if contracts_dir else []) + ["audit", "--list", "--kernel",
                                                                             "%s:%s" % ("attention" if k == "attention_v2" else k, d)]
    if k == "attention_v2":
        cmd += ["--abi", "2"]
    if no_lse:
        cmd += ["--no-lse"]
    for t in tests or ():
        cmd += ["--test", t]
    if masked:
        cmd += ["--masked", masked]
    proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if proc.returncode != 0:
        raise AttncheckError("attncheck audit --list exited with status %d:\n%s" % (proc.returncode, proc.stderr))
    return [tuple(line.split(" ", 1)) for line in proc.stdout.splitlines() if line.strip()]  # type: ignore[misc]
