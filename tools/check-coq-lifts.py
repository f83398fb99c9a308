#!/usr/bin/env python3
"""attncheck: the Coq lifts (proofs/coq/*Lift.v) against what they transcribe.

A lift proves a harness for every row length d from the step lemmas the solver proved. Its
kernel model and its lemma statements are written by hand from the C++; this check keeps them from
going stale when the C++ changes (issue 29):

1. Hypotheses. The Section hypotheses in scope at each `lift:` theorem are exactly the lemmas
   the harness registry lists for that harness ("all d from:" in `attncheck bmc --list`): a lift
   that assumes a lemma the solver does not prove for the harness, or a harness whose lemma list
   changed, fails. Every hypothesis must be a lemma (`LEM_*`): nothing else may be assumed.
2. Transcriptions. A Coq comment that transcribes C++ carries an anchor
       {transcribes FILE SYMBOL #FINGERPRINT}
   where SYMBOL is a `struct` (a harness body) or a function (a kernel step) in FILE, and
   FINGERPRINT the first 8 hex digits of the SHA-256 of its text with comments removed and white
   space collapsed. An edit of that C++ changes the fingerprint: the check fails and prints the
   new one, to be pasted after the Coq text has been re-read against the C++. Required anchors:
   every `Definition LEM_*` (its struct lem_*), every lift theorem (its harness's `harness:`
   function), and every comment that quotes C++ (a `[...;]`).
3. Bound theorems (issue 47). The anchors are checked in every file of proofs/coq, not only the
   lifts: a floating-point theorem that concludes the interval a C++ bound function evaluates
   (src/attncheck/bounds/*.hpp) carries {transcribes src/attncheck/bounds/FILE FUNCTION #FP} in
   the comment before it, so that an edit of the bound function (say γ_{n−1} → γ_{n−2}) fails
   until the theorem is re-read. Required: every theorem linked `float:` by an obligation of
   `type: bound` in contracts/*.yaml names at least one such anchor.

Usage: check-coq-lifts.py ROOT REGISTRY
  ROOT holds contracts/, proofs/coq/, harnesses/, src/; REGISTRY is a file with the output of
  `attncheck bmc --list` (or - for standard input). Exit 0: consistent; 1: a stale lift.
"""
import hashlib
import pathlib
import re
import sys

ANCHOR = re.compile(r"\{transcribes\s+(\S+)\s+([A-Za-z_][A-Za-z0-9_]*)\s+#([0-9a-f]+)\}")


def strip_cpp_comments(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def fingerprint(text):
    norm = " ".join(strip_cpp_comments(text).split())
    return hashlib.sha256(norm.encode()).hexdigest()[:8]


def match_brace(text, open_at):
    depth = 0
    for i in range(open_at, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return -1


def symbol_text(source, name):
    """The text of `struct name {...}` or of the definition `... name(...) ... {...}`, or None."""
    text = strip_cpp_comments(source)
    m = re.search(r"\bstruct\s+" + re.escape(name) + r"\s*\{", text)
    if m:
        end = match_brace(text, m.end() - 1)
        return text[m.start():end + 1] if end >= 0 else None
    for m in re.finditer(r"\b" + re.escape(name) + r"\s*\(", text):
        depth, i = 0, m.end() - 1
        while i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            if depth == 0:
                break
            i += 1
        rest = text[i + 1:]
        q = re.match(r"(\s|const|noexcept)*\{", rest)
        if not q:
            continue  # a call or a declaration, not the definition
        open_at = i + 1 + q.end() - 1
        end = match_brace(text, open_at)
        start = text.rfind("\n", 0, m.start()) + 1
        return text[start:end + 1] if end >= 0 else None
    return None


def parse_registry(text):
    """harness ID -> its lemma list (empty if it has no all-d composition)."""
    lemmas, current = {}, None
    for line in text.splitlines():
        head = re.match(r"^([A-Z]+-[A-Z0-9]+-\d+)\b", line)
        if head:
            current = head.group(1)
            lemmas.setdefault(current, [])
        elif current and line.strip().startswith("all d from:"):
            lemmas[current] = [s.strip() for s in line.split(":", 1)[1].split(",") if s.strip()]
    return lemmas


def parse_contract_lifts(root):
    """(yaml file, line, harness ID, harness function, lift theorem) for every harness with lift:."""
    out = []
    for y in sorted((root / "contracts").glob("*.yaml")):
        block = {}
        for no, line in enumerate(y.read_text().splitlines(), 1):
            m = re.match(r"^\s*-\s*id:\s*(\S+)", line)
            if m:
                if "lift" in block:
                    out.append(block_tuple(y, block))
                block = {"id": m.group(1)}
                continue
            m = re.match(r"^\s+(harness|lift):\s*([A-Za-z0-9_.]+)", line)
            if m and block:
                block[m.group(1)] = m.group(2)
                if m.group(1) == "lift":
                    block["line"] = no
        if "lift" in block:
            out.append(block_tuple(y, block))
    return out


def parse_contract_float_bounds(root):
    """(yaml file, line, obligation ID, Module.theorem) for every float: theorem of a bound obligation."""
    out = []
    for y in sorted((root / "contracts").glob("*.yaml")):
        oid, otype = None, None
        for no, line in enumerate(y.read_text().splitlines(), 1):
            m = re.match(r"^\s*-\s*id:\s*(\S+)", line)
            if m:
                oid, otype = m.group(1), None
                continue
            m = re.match(r"^\s+type:\s*(\S+)", line)
            if m and oid:
                otype = m.group(1)
                continue
            m = re.match(r"^\s+coq:\s*\{(.*)\}", line)
            if m and oid and otype == "bound":
                f = re.search(r"float:\s*\[([^\]]*)\]", m.group(1))
                if f:
                    out.extend((y, no, oid, t.strip()) for t in f.group(1).split(",") if t.strip())
    return out


def block_tuple(y, block):
    return (y, block["line"], block["id"], block.get("harness"), block["lift"])


def comments_with_positions(coq):
    return [(m.start(), m.end(), m.group(0)) for m in re.finditer(r"\(\*.*?\*\)", coq, flags=re.S)]


def lineno(text, pos):
    return text.count("\n", 0, pos) + 1


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("Usage:")[1].strip())
        return 2
    root = pathlib.Path(sys.argv[1])
    registry = parse_registry(sys.stdin.read() if sys.argv[2] == "-" else pathlib.Path(sys.argv[2]).read_text())
    coqdir = root / "proofs" / "coq"
    bad = []
    anchors_checked = 0

    # 2. Every anchor's fingerprint; collect which symbols each comment anchors. Every Coq file:
    # the lifts transcribe kernels and harnesses, the bound theorems the bound functions too.
    lift_files = sorted(coqdir.glob("*.v"))
    sources = {}
    for f in lift_files:
        coq = f.read_text()
        for start, end, comment in comments_with_positions(coq):
            where = f"{f.relative_to(root)}:{lineno(coq, start)}"
            found = list(ANCHOR.finditer(comment))
            if not found and re.search(r";\s*\]", comment):
                bad.append(f"{where}: this comment quotes C++ but names no {{transcribes FILE SYMBOL #FINGERPRINT}}")
            for a in found:
                path, name, fp = a.groups()
                anchors_checked += 1
                src = root / path
                if path not in sources:
                    sources[path] = src.read_text() if src.is_file() else None
                if sources[path] is None:
                    bad.append(f"{where}: transcribes {path}, which does not exist")
                    continue
                body = symbol_text(sources[path], name)
                if body is None:
                    bad.append(f"{where}: transcribes {name} in {path}, which defines no struct or function {name}")
                    continue
                now = fingerprint(body)
                if now != fp:
                    bad.append(f"{where}: STALE: {name} in {path} changed since this Coq text was transcribed "
                               f"(fingerprint #{fp}, now #{now}): re-read the Coq definition against the C++, "
                               f"then write #{now}")

    # Required anchors: each Definition LEM_X and each lift theorem, in the comment just before it.
    def anchored_before(coq, pos, bounds_only=False):
        # the comment before the declaration, past the Section header and hypotheses between them
        before = coq[:pos].rstrip()
        while True:
            last = before[before.rfind("\n") + 1:]
            if not re.match(r"(Section|Hypothesis|Variable|Context|Notation)\b", last):
                break
            before = before[:before.rfind("\n") + 1].rstrip()
        if not before.endswith("*)"):
            return set()
        start = before.rfind("(*")
        # the doc comment of a declaration may be split: (** A *) (** B *)
        def keep(a):
            return not bounds_only or a.group(1).startswith("src/attncheck/bounds/")
        names = set(a.group(2) for a in ANCHOR.finditer(before[start:]) if keep(a))
        prev = before[:start].rstrip()
        while prev.endswith("*)"):
            s = prev.rfind("(*")
            names |= set(a.group(2) for a in ANCHOR.finditer(prev[s:]) if keep(a))
            prev = prev[:s].rstrip()
        return names

    defined = {}
    for f in lift_files:
        coq = f.read_text()
        for m in re.finditer(r"^Definition\s+(LEM_[A-Z0-9_]+)\b", coq, flags=re.M):
            defined[m.group(1)] = f
            if m.group(1).lower() not in anchored_before(coq, m.start()):
                bad.append(f"{f.relative_to(root)}:{lineno(coq, m.start())}: Definition {m.group(1)} has no "
                           f"{{transcribes harnesses/FILE {m.group(1).lower()} #FINGERPRINT}} in the comment before it")

    # 1. The hypotheses of each lift theorem against the registry.
    lifts = parse_contract_lifts(root)
    for y, line, hid, function, lift in lifts:
        where = f"{y.relative_to(root)}:{line}"
        module, theorem = lift.split(".", 1)
        f = coqdir / f"{module}.v"
        if not f.is_file():
            bad.append(f"{where}: {hid}'s lift {lift}: {f.relative_to(root)} does not exist")
            continue
        coq = f.read_text()
        t = re.search(r"^(Theorem|Lemma)\s+" + re.escape(theorem) + r"\b", coq, flags=re.M)
        if not t:
            bad.append(f"{where}: {hid}'s lift {lift} is not declared in {f.relative_to(root)}")
            continue
        if function and function not in anchored_before(coq, t.start()):
            bad.append(f"{f.relative_to(root)}:{lineno(coq, t.start())}: {theorem} (the lift of {hid}) has no "
                       f"{{transcribes harnesses/FILE {function} #FINGERPRINT}} in the comment before it")
        # Sections open at the theorem, and the hypotheses declared in them before it.
        stack = []
        for m in re.finditer(r"^(Section\s+(\w+)\.|End\s+(\w+)\.|Hypothesis\s+(\w+)\s*:\s*([^.]*)\.)",
                             coq[:t.start()], flags=re.M):
            if m.group(2):
                stack.append((m.group(2), []))
            elif m.group(3):
                if stack and stack[-1][0] == m.group(3):
                    stack.pop()
            elif stack:
                stack[-1][1].append((m.group(4), m.group(5).strip(), lineno(coq, m.start())))
        assumed = {}
        for _, hyps in stack:
            for name, typ, no in hyps:
                lem = re.match(r"(LEM_[A-Z0-9_]+)\b", typ)
                if not lem:
                    bad.append(f"{f.relative_to(root)}:{no}: {theorem} assumes {name} : {typ}, which is not a "
                               f"step lemma the solver proves (only LEM_* hypotheses may be assumed)")
                    continue
                assumed[lem.group(1).replace("_", "-")] = no
        if hid not in registry:
            bad.append(f"{where}: {hid} is not in the harness registry (attncheck bmc --list)")
            continue
        proved = set(registry[hid])
        for lem in sorted(set(assumed) - proved):
            bad.append(f"{f.relative_to(root)}:{assumed[lem]}: {theorem} assumes {lem}, which the registry does "
                       f"not list for {hid} (all d from: {', '.join(registry[hid]) or 'nothing'}): the solver "
                       f"does not prove it for this harness")
        for lem in sorted(proved - set(assumed)):
            bad.append(f"{f.relative_to(root)}:{lineno(coq, t.start())}: {theorem} does not assume {lem}, which "
                       f"the registry lists for {hid}: the lift and the harness's composition disagree")
        for lem in sorted(proved):
            if lem.replace("-", "_") not in defined:
                bad.append(f"{where}: {hid}'s lemma {lem} has no Definition {lem.replace('-', '_')} in a lift file")

    # 3. Every float: theorem of a bound obligation names the C++ bound function it concludes.
    bound_theorems = parse_contract_float_bounds(root)
    for y, line, oid, theorem_ref in bound_theorems:
        where = f"{y.relative_to(root)}:{line}"
        module, theorem = theorem_ref.split(".", 1)
        f = coqdir / f"{module}.v"
        if not f.is_file():
            bad.append(f"{where}: {oid}'s float: theorem {theorem_ref}: {f.relative_to(root)} does not exist")
            continue
        coq = f.read_text()
        t = re.search(r"^(Theorem|Lemma|Corollary)\s+" + re.escape(theorem) + r"\b", coq, flags=re.M)
        if not t:
            bad.append(f"{where}: {oid}'s float: theorem {theorem_ref} is not declared in {f.relative_to(root)}")
            continue
        if not anchored_before(coq, t.start(), bounds_only=True):
            bad.append(f"{f.relative_to(root)}:{lineno(coq, t.start())}: {theorem} (float: for the bound {oid}) "
                       f"names no {{transcribes src/attncheck/bounds/FILE FUNCTION #FINGERPRINT}} in the comment "
                       f"before it: which C++ bound function does it conclude?")

    for b in bad:
        print(b)
    print(f"coq lifts: {len(lifts)} lift theorems, {len(bound_theorems)} bound theorems, "
          f"{anchors_checked} transcriptions checked: "
          + ("consistent with the harness registry and the C++" if not bad else f"{len(bad)} problems"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
