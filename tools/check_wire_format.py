#!/usr/bin/env python3
"""attncheck: checks the exec protocol's four descriptions against its one table.

src/attncheck/audit/wire_format.tsv describes every kind's CALL and RESULT payloads. From it this
script builds CALL and RESULT payloads of every kind (at f32, f64 and f16 storage, with distinct
values in every field) and checks that

  * the C++ codec (protocol.cpp, through tests/audit/wire_format_peer.cpp) decodes each into the
    values put in, and encodes back the same bytes;
  * the Python package (python/src/attncheck/protocol.py) hands its kernel those values and
    answers with the RESULT the table describes (a declined one too);
  * the Node example (examples/node/attncheck_exec.mjs) decodes each kind it decodes into those
    values, refuses the others as not served, and answers with the table's RESULT;
  * docs/audit-protocol.md's tables have the table's rows, sizes and names, in its order.

Any difference is printed and the exit status is 1. `--self-test` plants drifts (in copies: a
widened field, two swapped fields, a wrong docs row, an edited Python and Node decoder) and fails
unless the check finds each.
"""
from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SCALAR = {"u8": "<B", "u16": "<H", "u32": "<I", "u64": "<Q", "i32": "<i", "i64": "<q", "f32": "<f", "f64": "<d"}
FLOATS = ("f32", "f64")
# (storage code, arithmetic code, the Python package's and Node's dtype name, element width, NumPy dtype)
DTYPES = [(3, 0, "f32", 4, "<f4"), (4, 0, "f64", 8, "<f8"), (1, 0, "f16@f16", 2, "<f2")]


# ---- the table ------------------------------------------------------------------------------------

@dataclass
class Field:
    block: str
    names: List[str]
    type: str
    value: str
    kinds: Optional[List[int]]
    doc_size: str
    doc_field: str

    @property
    def array(self) -> Optional[Tuple[str, str]]:
        m = re.fullmatch(r"(\w+)\[(\w+)\]", self.type)
        return (m.group(1), m.group(2)) if m else None


@dataclass
class Kind:
    code: int
    name: str
    blocks: List[str]
    inputs: List[Tuple[str, str, str]]  # name, element, count
    output: Tuple[str, str]
    lse: Optional[str]
    result: str


@dataclass
class Table:
    kinds: List[Kind] = field(default_factory=list)
    fields: List[Field] = field(default_factory=list)
    headings: Dict[str, str] = field(default_factory=dict)  # block -> its docs heading

    def block(self, name: str, code: int) -> List[Field]:
        return [f for f in self.fields if f.block == name and (f.kinds is None or code in f.kinds)]


def load_table(path: str) -> Table:
    t = Table()
    with open(path, encoding="utf-8") as fh:
        for number, line in enumerate(fh, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.startswith("#"):
                continue
            cells = line.split("\t")
            try:
                if cells[0] == "kind":
                    _, code, name, blocks, inputs, output, lse, result = cells
                    t.kinds.append(Kind(int(code), name, [] if blocks == "-" else blocks.split(),
                                        [tuple(i.split(":", 2)) for i in inputs.split()], tuple(output.split(":", 1)),
                                        None if lse == "-" else lse, result))
                elif cells[0] == "field":
                    _, block, names, typ, value, kinds, doc_size, doc_field = cells
                    t.fields.append(Field(block, names.split(","), typ, value, None if kinds == "-" else [int(k) for k in kinds.split(",")],
                                          doc_size, doc_field))
                elif cells[0] == "block":
                    _, block, heading = cells
                    t.headings[block] = heading
                else:
                    raise ValueError("unknown record " + cells[0])
            except ValueError as e:
                raise SystemExit("%s:%d: %s" % (path, number, e))
    return t


# ---- payloads built from the table ----------------------------------------------------------------

def sizes_of(code: int) -> Dict[str, Any]:
    """The problem's sizes and free values for a kind: distinct, so that a swap shows."""
    env: Dict[str, Any] = dict(n=2, m=3, d=2, dv=3, batch=2, heads=2, kv_heads=1, causal=1, eps=0.375, scale=0.625,
                               alignment=1, num_splits=3, window_left=5, window_right=-1, softcap=7.5, slope_count=2,
                               page_size=2, num_pages=4, pages_per_sequence=2, format=1, saturating=1, scale_count=1)
    env["cu_seqlens_q"] = [0, 2, 3]
    env["cu_seqlens_k"] = [0, 3, 4]
    env["seqused_k"] = [3, 1]
    env["block_table"] = [1, 3, 0, 2]
    if code == 13:
        env["format"], env["scale_count"] = 0, 1  # kv_heads scales: as many as the heads
    return env


class Values:
    """Distinct finite element values: the same byte stream every run."""

    def __init__(self) -> None:
        self.i = 0

    def floats(self, count: int, fmt: str) -> bytes:
        out = b""
        for _ in range(count):
            self.i += 1
            out += struct.pack(fmt, float(self.i % 61) * 0.25 - 3.0)
        return out

    def codes(self, count: int) -> bytes:
        out = bytes((self.i + j * 7) % 126 for j in range(count))
        self.i += count
        return out


@dataclass
class Case:
    kind: Kind
    storage: int
    arith: int
    dname: str
    width: int
    npdtype: str
    payload: bytes
    values: Dict[str, Any]      # field name -> int/float or bytes (arrays)
    inputs: List[bytes]         # the kind's input arrays, in order
    output: bytes               # the RESULT's elements the kernel answers
    lse: bytes                  # the RESULT's LSE elements (o_lse only)
    result: bytes               # the RESULT payload for output and lse
    declined: bytes             # a RESULT declining with status 5


def element_width(element: str, width: int, lse_width: int) -> int:
    if element == "T" or element == "output":
        return width
    if element == "lse":
        return lse_width
    if element == "code":
        return 1
    return struct.calcsize(SCALAR[element])


def evaluate(expr: str, env: Dict[str, Any]) -> Any:
    return eval(expr, {"__builtins__": {"len": len, "min": min, "max": max}}, env)  # the table's own expressions


def encode_fields(fields: List[Field], env: Dict[str, Any], vals: Values, width: int, lse_width: int,
                  record: Dict[str, Any]) -> bytes:
    out = b""
    for f in fields:
        arr = f.array
        for name in f.names:
            if arr:
                element, count_name = arr
                count = env[count_name]
                w = element_width(element, width, lse_width)
                if element == "i32":
                    data = struct.pack("<%di" % count, *env[name][:count])
                elif element == "output":
                    data = env["output_bytes"]
                elif name in env and isinstance(env[name], bytes):
                    data = env[name]
                else:
                    fmt = {2: "<e", 4: "<f", 8: "<d"}[w]
                    data = vals.floats(count, fmt)
                assert len(data) == count * w, (name, len(data), count, w)
                if element != "i32":  # the offsets and tables stay lists, for the counts after them
                    env[name] = data
                out += data
                record[name] = data
                continue
            else:
                v = evaluate(f.value, env) if f.value != "-" else env[name]
                if f.type in FLOATS:
                    v = float(v)
                env[name] = v
                out += struct.pack(SCALAR[f.type], v)
            record[name] = env[name]
    return out


def build_cases(t: Table) -> List[Case]:
    cases = []
    for k in t.kinds:
        for storage, arith, dname, width, npdtype in DTYPES:
            lse_width = 8 if storage == 4 else 4
            vals = Values()
            env = sizes_of(k.code)
            env.update(code=k.code, kind=k.code, dtype=storage, arithmetic=arith)
            env["inputs"] = k.inputs
            env["output_count"] = evaluate(k.output[1], env)
            env["lse_count"] = evaluate(k.lse, env) if k.lse else 0
            if k.code == 13:
                env["scale_count"] = env["kv_heads"]
            record: Dict[str, Any] = {}
            payload = encode_fields(t.block("call", k.code), env, vals, width, lse_width, record)
            for b in k.blocks:
                payload += encode_fields(t.block(b, k.code), env, vals, width, lse_width, record)
            inputs = []
            for name, element, count_expr in k.inputs:
                count = evaluate(count_expr, env)
                data = vals.codes(count) if element == "code" else vals.floats(count, {2: "<e", 4: "<f", 8: "<d"}[width])
                payload += struct.pack("<Q", count) + data
                inputs.append(data)
            out_w = element_width(k.output[0], width, lse_width)
            output = vals.codes(env["output_count"]) if out_w == 1 else vals.floats(env["output_count"], {2: "<e", 4: "<f", 8: "<d"}[out_w])
            lse = vals.floats(env["lse_count"], "<d" if lse_width == 8 else "<f") if k.result == "o_lse" else b""
            renv = dict(env, output_bytes=output, lse=lse, status=0)
            result = encode_fields(t.block("result", k.code), renv, vals, out_w, lse_width, {})
            denv = dict(env, output_bytes=b"", lse=b"", status=5, output_count=0, lse_count=0)
            declined = encode_fields(t.block("result", k.code), denv, vals, out_w, lse_width, {})
            if k.result == "o_lse":
                result += encode_fields(t.block("result_lse", k.code), renv, vals, out_w, lse_width, {})
                declined += encode_fields(t.block("result_lse", k.code), denv, vals, out_w, lse_width, {})
            cases.append(Case(k, storage, arith, dname, width, npdtype, payload, record, inputs, output, lse, result, declined))
    return cases


def as_bits(v: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", v))[0]


# ---- C++ -----------------------------------------------------------------------------------------

# The arrays that travel in a kind's blocks are inputs of protocol.cpp's Call after the kind's own
# (call.hpp says so per kind), in the table's order; the ALiBi slopes are the problem's, and
# kv_quantize's one scale is Call::fp8's.
def cpp_block_inputs(t: Table, c: Case) -> List[bytes]:
    extra = []
    for b in c.kind.blocks:
        for f in t.block(b, c.kind.code):
            if f.array and f.names[0] != "alibi_slopes" and not (b == "fp8" and c.kind.code == 14):
                extra.append(c.values[f.names[0]])
    return extra


def check_cpp(t: Table, cases: List[Case], peer: str) -> List[str]:
    errors = []
    lines = []
    for c in cases:
        lines.append("call " + c.payload.hex())
        lse = str(c.values.get("lse_count", 0)) if c.kind.result == "o_lse" else "-"
        out_w = 1 if c.kind.output[0] == "code" else 0
        for payload, count in ((c.result, c.values["output_count"]), (c.declined, c.values["output_count"])):
            lines.append("result %d %d %d %s %d %s" % (c.storage, c.arith, count, lse, out_w, payload.hex()))
    run = subprocess.run([peer], input="\n".join(lines) + "\n", capture_output=True, text=True, timeout=120)
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    if run.returncode != 0 or len(answers) != len(lines):
        return ["C++: the peer answered %d of %d requests (status %d): %s" % (len(answers), len(lines), run.returncode, run.stderr[-400:])]
    for i, c in enumerate(cases):
        where = "C++ %s at %s" % (c.kind.name, c.dname)
        got = answers[3 * i]
        if "error" in got:
            errors.append("%s: protocol.cpp refuses the table's CALL: %s" % (where, got["error"]))
        else:
            for name, want in c.values.items():
                if name in got and not isinstance(want, bytes):
                    w = as_bits(want) if isinstance(want, float) else want
                    if got[name] != w:
                        errors.append("%s: field %s decoded as %s, the table's CALL holds %s" % (where, name, got[name], w))
            if c.kind.code == 14 and got.get("k_scale") != c.values["k_scale"].hex():
                errors.append("%s: the fp8 scale decoded as %s, sent %s" % (where, got.get("k_scale"), c.values["k_scale"].hex()))
            if "alibi_slopes" in got and got["alibi_slopes"] != c.values["alibi_slopes"].hex():
                errors.append("%s: the ALiBi slopes decoded as %s" % (where, got["alibi_slopes"]))
            want_inputs = [x.hex() for x in c.inputs + cpp_block_inputs(t, c)]
            if got["inputs"].split(" ") != want_inputs and not (got["inputs"] == "" and not want_inputs):
                errors.append("%s: the arrays decoded are not those of the table's CALL" % where)
            if got["encoded"] != c.payload.hex():
                errors.append("%s: protocol.cpp encodes the decoded call as other bytes than the table's CALL" % where)
        for j, (payload, status, output, lse) in enumerate(((c.result, 0, c.output, c.lse), (c.declined, 5, b"", b""))):
            got = answers[3 * i + 1 + j]
            what = "%s, %s RESULT" % (where, "declined" if status else "done")
            if "error" in got:
                errors.append("%s: protocol.cpp refuses the table's RESULT: %s" % (what, got["error"]))
            elif got["status"] != status or got["output"] != output.hex() or got["lse"] != lse.hex() or got["encoded"] != payload.hex():
                errors.append("%s: protocol.cpp reads or writes it otherwise than the table" % what)
    return errors


# ---- Python ----------------------------------------------------------------------------------------

# The functions of attncheck.serve take their arrays in this order (protocol.py's docstring).
PY_ARGS = {
    "softmax": ["x"], "log_softmax": ["x"], "scores": ["q", "k"], "rmsnorm": ["x", "w", "eps"], "entropy": ["p"],
    "attention": ["q", "k", "v", "causal"], "softmax_jvp": ["x", "dx"], "attention_v2": ["q", "k", "v", "problem"],
    "attention_backward": ["q", "k", "v", "o", "dout", "lse", "problem"], "attention_merge": ["o_parts", "lse_parts"],
    "attention_varlen": ["q", "k", "v", "cu_seqlens_q", "cu_seqlens_k", "problem"],
    "attention_paged": ["q", "k_cache", "v_cache", "cu_seqlens_q", "seqused_k", "block_table", "problem"],
    "attention_fp8kv": ["q", "k", "v", "k_scale", "v_scale", "problem"], "kv_quantize": ["x", "k_scale", "format", "saturating"],
}
ENUMS = {"alignment": ["top_left", "bottom_right"], "format": ["e4m3fn", "e5m2"]}


def load_python(path: str) -> Any:
    spec = importlib.util.spec_from_file_location("attncheck_protocol_under_check", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def array_dtypes(t: Table, c: Case) -> Dict[str, str]:
    """The NumPy dtype of every array of the case's CALL, from its element in the table."""
    lse = "<f8" if c.storage == 4 else "<f4"
    of = {"i32": "<i4", "f32": "<f4", "f64": "<f8", "lse": lse, "T": c.npdtype, "code": "<u1"}
    out = {name: of[element] for name, element, _ in c.kind.inputs}
    for b in c.kind.blocks:
        for f in t.block(b, c.kind.code):
            if f.array:
                out[f.names[0]] = of[f.array[0]]
    return out


def same(got: Any, want: Any, name: str, dtype: Optional[str]) -> bool:
    import numpy as np
    if isinstance(want, bytes):
        return len(want) == 0 if got is None else np.ascontiguousarray(np.asarray(got), dtype=dtype).tobytes() == want
    if name in ENUMS:
        return got == ENUMS[name][want]
    if isinstance(want, float):
        return as_bits(float(got)) == as_bits(want)
    return int(got) == int(want)


def check_python(t: Table, cases: List[Case], path: str) -> List[str]:
    import numpy as np
    errors = []
    p = load_python(path)
    want_kinds = {k.code: k.name for k in t.kinds}
    if dict(p.KINDS) != want_kinds:
        errors.append("Python: KINDS is %r, the table's kinds %r" % (p.KINDS, want_kinds))
    for c in cases:
        where = "Python %s at %s" % (c.kind.name, c.dname)
        seen: List[Any] = []
        out_dt = "<u1" if c.kind.output[0] == "code" else c.npdtype
        lse_dt = "<f8" if c.storage == 4 else "<f4"

        def kernel(*args: Any) -> Any:  # records its arguments, answers the case's output
            seen.append(args)
            o = np.frombuffer(c.output, dtype=out_dt).copy()
            if c.kind.name == "attention_backward":  # dq, dk, dv in turn
                v = c.values
                cut = [v["batch"] * v["n"] * v["heads"] * v["d"], v["batch"] * v["m"] * v["kv_heads"] * v["d"]]
                return o[:cut[0]], o[cut[0]:cut[0] + cut[1]], o[cut[0] + cut[1]:]
            if c.kind.name == "entropy":
                return o[0]
            if c.kind.result == "o_lse":
                return o, np.frombuffer(c.lse, dtype=lse_dt).copy()
            return o

        def declines(*args: Any) -> Any:
            raise p.Declined(5)

        for fn, want in ((kernel, c.result), (declines, c.declined)):
            try:
                got = p.handle_call(c.payload, {(c.kind.name, c.dname): fn})
            except Exception as e:  # a refusal of the table's CALL is the drift to report
                errors.append("%s: protocol.py refuses the table's CALL: %s: %s" % (where, type(e).__name__, e))
                break
            if got != want:
                errors.append("%s: protocol.py answers %s RESULT otherwise than the table" % (where, "a declined" if fn is declines else "the"))
        if c.kind.name not in PY_ARGS:
            errors.append("%s: the checker knows no signature of this kind (PY_ARGS)" % where)
        if not seen or c.kind.name not in PY_ARGS:
            continue
        named: Dict[str, Any] = dict(zip([i[0] for i in c.kind.inputs], c.inputs))
        named.update(c.values)
        dtypes = array_dtypes(t, c)
        for name, got in zip(PY_ARGS[c.kind.name], seen[0]):
            if name == "problem":  # the attention problem: every field of the table it carries
                for attr, value in named.items():
                    if attr in got.__dict__ and attr not in ("lse_count",):
                        if not same(got.__dict__[attr], value, attr, dtypes.get(attr)):
                            errors.append("%s: problem.%s is %r, the table's CALL holds %r" % (where, attr, got.__dict__[attr], value))
                for attr in ("batch", "heads", "kv_heads", "scale", "alignment", "num_splits", "window_left", "window_right", "softcap",
                             "page_size", "num_pages", "pages_per_sequence", "format"):
                    if attr in c.values and attr not in got.__dict__:
                        errors.append("%s: the problem carries no %s" % (where, attr))
            elif name not in named:
                errors.append("%s: the kernel's argument %s is in no field of the table" % (where, name))
            elif not same(got, named[name], name, dtypes.get(name)):
                errors.append("%s: %s reaches the kernel as %r, the table's CALL holds %r" % (where, name, got, named[name]))
    return errors


# ---- Node ------------------------------------------------------------------------------------------

def check_node(t: Table, cases: List[Case], node: str, example: str) -> List[str]:
    errors = []
    peer = os.path.join(ROOT, "tests", "audit", "wire_format_peer.mjs")
    requests = []
    for c in cases:
        out_type = "u8" if c.kind.output[0] == "code" else {4: "f32", 8: "f64", 2: "u16"}[c.width]
        requests.append(json.dumps({"payload": c.payload.hex(), "out": c.output.hex(), "out_type": out_type, "lse": c.lse.hex(),
                                    "lse_type": "f64" if c.storage == 4 else "f32", "key": "%s:%s" % (c.kind.name, c.dname)}))
    run = subprocess.run([node, peer, os.path.abspath(example)], input="\n".join(requests) + "\n", capture_output=True, text=True,
                         timeout=120)
    answers = [json.loads(line) for line in run.stdout.splitlines()]
    if run.returncode != 0 or len(answers) != len(cases):
        return ["Node: the peer answered %d of %d requests (status %d): %s" % (len(answers), len(cases), run.returncode, run.stderr[-400:])]
    kinds = answers[0].get("kinds", {})
    want_kinds = {str(k.code): k.name for k in t.kinds}
    if kinds != want_kinds:
        errors.append("Node: KINDS is %r, the table's kinds %r" % (kinds, want_kinds))
    # decodeCall's names for the table's fields.
    names = {"batch": "batch", "heads": "heads", "kv_heads": "kvHeads", "scale": "scale", "alignment": "alignment",
             "window_left": "windowLeft", "window_right": "windowRight", "softcap": "softcap", "alibi_slopes": "alibiSlopes",
             "lse_count": "lseCount", "lse_parts": "lseParts", "cu_seqlens_q": "cuSeqlensQ", "cu_seqlens_k": "cuSeqlensK",
             "seqused_k": "sequsedK", "block_table": "blockTable", "page_size": "pageSize", "num_pages": "numPages",
             "pages_per_sequence": "pagesPerSequence", "format": "format", "saturating": "saturating", "k_scale": "fp8Scale",
             "n": "n", "m": "m", "d": "d", "dv": "dv", "eps": "eps", "output_count": "outCount", "causal": "causal"}
    for c, got in zip(cases, answers):
        where = "Node %s at %s" % (c.kind.name, c.dname)
        if "error" in got:
            if "serves no %s" % c.kind.name not in got["error"]:
                errors.append("%s: attncheck_exec.mjs refuses the table's CALL: %s" % (where, got["error"]))
            continue
        call = got["call"]
        if call.get("kind") != c.kind.name:
            errors.append("%s: decoded as kind %s" % (where, call.get("kind")))
        for name, js in names.items():
            if name not in c.values or js not in call:
                continue
            want, value = c.values[name], call[js]
            if name == "k_scale":
                ok = struct.pack("<f", value) == want
            elif isinstance(want, bytes):
                ok = value == want.hex() or (value is None and not want)
            elif name in ENUMS:
                ok = value == ENUMS[name][want]
            elif isinstance(want, float):
                ok = as_bits(float(value)) == as_bits(want)
            else:
                ok = int(value) == int(want)
            if not ok:
                errors.append("%s: %s decoded as %r, the table's CALL holds %r" % (where, name, value, want))
        if call.get("inputs") != [x.hex() for x in c.inputs]:
            errors.append("%s: the inputs decoded are not those of the table's CALL" % where)
        if got.get("result") != c.result.hex():
            errors.append("%s: attncheck_exec.mjs answers the RESULT otherwise than the table" % where)
        if got.get("declined") != c.declined.hex():
            errors.append("%s: attncheck_exec.mjs answers a declined RESULT otherwise than the table" % where)
    return errors


# ---- docs ----------------------------------------------------------------------------------------

def doc_tables(text: str) -> Dict[str, List[Tuple[str, str]]]:
    """heading -> the rows (size, field) of the first table under it (its header row left out)."""
    out: Dict[str, List[Tuple[str, str]]] = {}
    heading, in_table = None, False
    for line in text.splitlines():
        if line.startswith("#"):
            heading, in_table = line.lstrip("#").strip(), False
        elif line.startswith("|") and heading is not None and (in_table or heading not in out):
            in_table = True
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            rows = out.setdefault(heading, [])
            if cells[0] not in ("size", "offset") and not set(cells[0]) <= set("-"):
                rows.append((cells[0], "|".join(cells[1:])))
        else:
            in_table = False
    return out


def said_kinds(codes: List[int]) -> str:
    if len(codes) == 1:
        return "kind %d only" % codes[0]
    return "kinds %s and %d only" % (", ".join(str(c) for c in codes[:-1]), codes[-1])


def size_agrees(f: Field) -> bool:
    """Whether the docs' size cell states the type's width (and a count for an array or a group)."""
    arr = f.array
    element = arr[0] if arr else f.type
    width = {"lse": "width", "output": "width"}.get(element) or str(struct.calcsize(SCALAR[element]))
    parts = [p.strip() for p in f.doc_size.split("×")]
    if arr:
        return len(parts) == 2 and width in parts
    if len(f.names) > 1:
        return parts == [width, str(len(f.names))]
    return parts == [width]


def check_docs(t: Table, path: str) -> List[str]:
    errors = []
    with open(path, encoding="utf-8") as fh:
        tables = doc_tables(fh.read())
    for block, heading in t.headings.items():
        key = next((h for h in tables if h.startswith(heading)), None)
        if key is None:
            errors.append("docs: no table under a heading '%s'" % heading)
            continue
        rows = tables[key]
        want: List[Tuple[str, str]] = []
        for f in [f for f in t.fields if f.block == block]:
            if not size_agrees(f):
                errors.append("table: %s's docs size '%s' does not state its type %s" % ("/".join(f.names), f.doc_size, f.type))
            want.append((f.doc_size, f.doc_field))
        if block == "call":  # the blocks each kind has, then the inputs
            for b in t.headings:
                if b != "call" and b != "result":
                    codes = [k.code for k in t.kinds if b in k.blocks]
                    want.append((said_kinds(codes), "the %s block" % b))
            want.append(("per input", "`u64 count`"))
        if len(rows) != len(want):
            errors.append("docs '%s': %d rows, the table has %d: %s" % (key, len(rows), len(want), [r[1][:30] for r in rows]))
        for (size, text), (wsize, wtext) in zip(rows, want):
            if size != wsize or not text.startswith(wtext):
                errors.append("docs '%s': the row '| %s | %s' should be '| %s | %s…'" % (key, size, text[:50], wsize, wtext))
        if block == "call" and rows:
            codes = [int(c) for c in re.findall(r"`(\d+)`", rows[0][1])]
            if codes != [k.code for k in t.kinds]:
                errors.append("docs '%s': the kind row lists %s, the table's kinds are %s" % (key, codes, [k.code for k in t.kinds]))
            counts = sorted({len(k.inputs) for k in t.kinds})
            row = next((r[1] for r in rows if r[1].startswith("number of input arrays")), "")
            listed = [int(x) for x in re.findall(r"\b(\d+)\b", row.split("fixed by")[0])]
            if listed != counts:
                errors.append("docs '%s': the input counts listed are %s, the table's kinds have %s" % (key, listed, counts))
    return errors


# ---- running it ----------------------------------------------------------------------------------

@dataclass
class Sources:
    table: str
    docs: str
    python: str
    node_example: str
    cpp_peer: Optional[str]
    node: Optional[str]


def check(s: Sources) -> Dict[str, List[str]]:
    t = load_table(s.table)
    cases = build_cases(t)
    found = {"docs": check_docs(t, s.docs), "python": check_python(t, cases, s.python)}
    if s.cpp_peer:
        found["cpp"] = check_cpp(t, cases, s.cpp_peer)
    if s.node:
        found["node"] = check_node(t, cases, s.node, s.node_example)
    return found


def self_test(s: Sources) -> int:
    """Plants one drift per copy and requires the check to find it where it was planted."""
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        def copy(path: str, old: str, new: str) -> str:
            with open(path, encoding="utf-8") as fh:
                text = fh.read()
            if old not in text:
                raise SystemExit("self-test: '%s' is no longer in %s: update the planted drift" % (old, path))
            out = os.path.join(tmp, "%d-%s" % (len(os.listdir(tmp)), os.path.basename(path)))
            with open(out, "w", encoding="utf-8") as fh:
                fh.write(text.replace(old, new, 1))
            return out

        # Two table rows swapped: window_left and window_right.
        with open(s.table, encoding="utf-8") as fh:
            lines = fh.read().split("\n")
        i = next(j for j, line in enumerate(lines) if line.startswith("field\tattention\twindow_left\t"))
        lines[i], lines[i + 1] = lines[i + 1], lines[i]
        swapped = os.path.join(tmp, "swapped-wire_format.tsv")
        with open(swapped, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines))
        everyone = ["cpp", "python", "node", "docs"]
        drifts = [
            ("the table widens num_splits to 4 bytes", dict(table=copy(s.table, "num_splits\tu16\t-\t-\t2", "num_splits\tu32\t-\t-\t4")),
             everyone),
            ("the table swaps window_left and window_right", dict(table=swapped), everyone),
            ("the docs give num_splits 4 bytes", dict(docs=copy(s.docs, "| 2 | `num_splits`", "| 4 | `num_splits`")), ["docs"]),
            ("the docs drop kind 13 from the attention block",
             dict(docs=copy(s.docs, "| kinds 8, 9, 11, 12 and 13 only |", "| kinds 8, 9, 11 and 12 only |")), ["docs"]),
            ("protocol.py reads the paged block's scalars in another order",
             dict(python=copy(s.python, "page_size, num_pages, pages_per_sequence = _PAGED_BLOCK",
                              "num_pages, page_size, pages_per_sequence = _PAGED_BLOCK")), ["python"]),
            ("protocol.py sends no LSE count in a declined merge RESULT",
             dict(python=copy(s.python, 'lse_part = kind in _BATCHED or kind == "attention_merge"', "lse_part = kind in _BATCHED")),
             ["python"]),
            ("the Node example swaps the window fields",
             dict(node_example=copy(s.node_example, "c.windowLeft = r.i64(); c.windowRight = r.i64();",
                                    "c.windowRight = r.i64(); c.windowLeft = r.i64();")), ["node"]),
        ]
        for what, change, where in drifts:
            planted = Sources(**{**s.__dict__, **change})
            found = check(planted)
            if not any(w in found for w in where):
                print("self-test: %s is not tried (no %s to check)" % (what, ", ".join(where)))
                continue
            missed = [w for w in where if w in found and not found[w]]
            if missed or not any(found.values()):
                failures += 1
                print("self-test FAILED: %s was not found by the %s check" % (what, ", ".join(missed) or "any"))
            else:
                first = next(e for w in where for e in found.get(w, []))
                print("self-test: %s is found (%s)" % (what, first[:140]))
    return 1 if failures else 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--table", default=os.path.join(ROOT, "src", "attncheck", "audit", "wire_format.tsv"))
    ap.add_argument("--docs", default=os.path.join(ROOT, "docs", "audit-protocol.md"))
    ap.add_argument("--python", default=os.path.join(ROOT, "python", "src", "attncheck", "protocol.py"))
    ap.add_argument("--node-example", default=os.path.join(ROOT, "examples", "node", "attncheck_exec.mjs"))
    ap.add_argument("--cpp-peer", help="tests/audit/wire_format_peer.cpp built (without it C++ is not checked)")
    ap.add_argument("--node", help="the node interpreter (without it the Node example is not checked)")
    ap.add_argument("--self-test", action="store_true", help="plant drifts in copies and require each to be found")
    a = ap.parse_args()
    s = Sources(a.table, a.docs, a.python, a.node_example, a.cpp_peer, a.node)
    if a.self_test:
        return self_test(s)
    found = check(s)
    for part in found:
        for e in found[part]:
            print(e)
    if not a.cpp_peer or not a.node:
        print("wire format: not checked: %s" % ", ".join(w for w, given in (("C++ (no --cpp-peer)", a.cpp_peer), ("Node (no --node)", a.node))
                                                           if not given))
    print("wire format: %s" % ", ".join("%s %s" % (p, "agrees" if not e else "%d differences" % len(e)) for p, e in found.items()))
    return 1 if any(found.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
