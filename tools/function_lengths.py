#!/usr/bin/python3
"""Report C++ functions whose bodies exceed a line limit.

A simple brace-matching scan, good enough for this code base: comments, string and character
literals are blanked first, then every `{` is classified by the text before it (since the previous
`;`, `{` or `}`): a namespace or `extern "C"` block, a class/struct/union/enum body, or, when the
text ends in a parameter list (plus qualifiers such as `const`, `noexcept`, `-> T`), a function
body. Functions defined at namespace scope and member functions defined inside a class body are
measured, from the first line of their declaration to their closing brace; lambdas and blocks
inside a function count towards that function.

usage: function_lengths.py [--max N] [--verbose] PATH...   (PATH: a file or a directory, searched
for *.cpp, *.hpp, *.h, *.cc). Exit status 1 when a function is longer than N lines (default 150).
"""
import argparse
import pathlib
import re
import sys

SUFFIXES = {".cpp", ".cc", ".hpp", ".h"}


def blank_literals(text):
    """Replace comments and string/char literals by spaces, keeping newlines (line numbers)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^()\\\s]{0,16})\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            close = ")" + m.group(1) + '"'
            j = text.find(close, i + m.end())
            j = n if j < 0 else j + len(close)
            out.append('""' + re.sub(r"[^\n]", " ", text[i + 2:j]))
            i = j
        elif c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum() and i + 1 < n and text[i + 1].isalnum():
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j - 1]) + c if j - i >= 2 else text[i:j])
            i = j
        elif c == "#" and (i == 0 or text[i - 1] == "\n" or text[:i].rsplit("\n", 1)[-1].strip() == ""):
            # A preprocessor line (with its continuations): no braces of ours in it.
            j = i
            while True:
                k = text.find("\n", j)
                if k < 0:
                    k = n
                    break
                if text[k - 1] != "\\":
                    break
                j = k + 1
            out.append(re.sub(r"[^\n]", " ", text[i:k]))
            i = k
        else:
            out.append(c)
            i += 1
    return "".join(out)


FUNC_TAIL = re.compile(
    r"\)\s*(?:const\b|volatile\b|noexcept\b(?:\s*\([^()]*\))?|override\b|final\b|mutable\b|&&|&|"
    r"->\s*[\w:<>,\s\*&\[\]]+|requires\b[^{;]*|try\b|\s)*$"
)


def classify(header, parent):
    """The kind of block a `{` opens, given the text before it and the enclosing block's kind."""
    if parent in ("function", "block"):
        return "block"
    h = " ".join(header.split())
    if re.match(r"^(inline\s+)?namespace\b", h) or re.match(r'^extern\s*""$', h) or h == 'extern ""':
        return "namespace"
    if re.search(r"\)\s*:\s*[\w:<>]+\s*[({]", h) or (FUNC_TAIL.search(h) and "(" in h):
        # A constructor with an initializer list, or a parameter list with qualifiers.
        if not re.search(r"(^|[^=!<>])=\s*[^=]", h.split("(")[0]):
            return "function"
    if re.match(r"^(template\s*<.*>\s*)?(struct|class|union|enum)\b", h):
        return "class"
    return "block"


def function_name(header):
    h = " ".join(header.split())
    m = re.search(r"([~\w:]+(?:<[^()]*>)?|operator\s*\S+?)\s*\(", h)
    return m.group(1) if m else h[:40]


def scan(text):
    """Yield (name, first_line, last_line) for every function body in the text."""
    src = blank_literals(text)
    stack = []  # (kind, name, first_line)
    header_start = 0
    line = 1
    line_at = []  # line number at each offset is computed lazily below
    offsets = [0]
    for k, ch in enumerate(src):
        if ch == "\n":
            offsets.append(k + 1)

    def line_of(pos):
        lo, hi = 0, len(offsets) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if offsets[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo + 1

    for pos, ch in enumerate(src):
        if ch == "{":
            parent = stack[-1][0] if stack else "namespace"
            header = src[header_start:pos]
            kind = classify(header, parent)
            first = pos
            if kind == "function":
                stripped = len(header) - len(header.lstrip())
                first = header_start + stripped
            stack.append((kind, function_name(header) if kind == "function" else "", line_of(first)))
            header_start = pos + 1
        elif ch == "}":
            if stack:
                kind, name, first_line = stack.pop()
                if kind == "function":
                    yield name, first_line, line_of(pos)
            header_start = pos + 1
        elif ch == ";":
            if not stack or stack[-1][0] in ("namespace", "class"):
                header_start = pos + 1
    del line, line_at


def files_of(paths):
    for p in paths:
        path = pathlib.Path(p)
        if path.is_dir():
            yield from sorted(f for f in path.rglob("*") if f.suffix in SUFFIXES and f.is_file())
        else:
            yield path


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--max", type=int, default=150, help="longest function allowed, in lines")
    ap.add_argument("--verbose", action="store_true", help="print every function's length")
    ap.add_argument("paths", nargs="+")
    args = ap.parse_args(argv)
    too_long = []
    count = 0
    for f in files_of(args.paths):
        for name, first, last in scan(f.read_text(encoding="utf-8", errors="replace")):
            count += 1
            length = last - first + 1
            if args.verbose:
                print(f"{f}:{first}: {name}: {length} lines")
            if length > args.max:
                too_long.append((length, f, first, name))
    for length, f, first, name in sorted(too_long, key=lambda t: (str(t[1]), t[2])):
        print(f"{f}:{first}: {name} is {length} lines long (limit {args.max})")
    if too_long:
        print(f"{len(too_long)} of {count} functions over {args.max} lines")
        return 1
    print(f"{count} functions, none over {args.max} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
