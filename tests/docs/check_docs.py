#!/usr/bin/env python3
"""Checks that the README and the pages in docs/ stay a front door that leads somewhere.

    check_docs.py ROOT

ROOT is a repository checkout (or a planted copy of its documents). Fails (exit 1, one line per
problem) when:
  - README.md is 15 KB (15,000 bytes) or larger;
  - a relative Markdown link in README.md or docs/*.md names a file that does not exist, or an
    anchor (#...) into a Markdown file that has no such heading;
  - a path written in backticks in docs/architecture.md or README.md that starts with one of the
    repository's top-level folders (and contains a '/' or ends in a known extension) does not
    exist. `<name>` and `*` are wildcards that must match at least one file.

"""
import glob
import os
import re
import sys
import unicodedata

README_LIMIT = 15000  # "under 15 KB", the issue on the house: decimal kilobytes
TOP_LEVEL = (".ci", "bench", "cmake", "contracts", "docs", "examples", "falsify", "fuzz",
             "harnesses", "include", "proofs", "src", "tests", "tools")
EXTENSIONS = (".cpp", ".hpp", ".h", ".c", ".md", ".yaml", ".yml", ".tex", ".v", ".sh", ".py",
              ".cmake", ".json", ".txt", ".sty")
PATH_CHECKED = ("docs/architecture.md", "README.md")
# Planned path (as a glob) -> the glob it replaces. Transitional: delete an entry once its
# planned path exists in main.

problems = []
notes = []


def strip_code(text, spans=True):
    """The text with fenced code blocks (and inline code spans) blanked, line numbers kept."""
    out, fence = [], None
    for line in text.split("\n"):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if fence:
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if m:
            fence = m.group(1)
            out.append("")
            continue
        out.append(re.sub(r"(`+)(.+?)\1", lambda s: " " * len(s.group(0)), line) if spans else line)
    return out


def slug(heading):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    h = re.sub(r"`", "", heading.strip().lower())
    h = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", h)
    h = "".join(c for c in h if c in "-_ " or unicodedata.category(c)[0] in "LNM")
    return h.replace(" ", "-")


def anchors(path):
    seen, result = {}, set()
    for line in strip_code(open(path, encoding="utf-8").read(), spans=False):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        s = slug(m.group(1))
        n = seen.get(s, 0)
        seen[s] = n + 1
        result.add(s if n == 0 else f"{s}-{n}")
    return result


LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
REFDEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)")


def check_links(root, rel):
    path = os.path.join(root, rel)
    for lineno, line in enumerate(strip_code(open(path, encoding="utf-8").read()), 1):
        targets = [m.group(1) for m in LINK.finditer(line)]
        m = REFDEF.match(line)
        if m:
            targets.append(m.group(1))
        for t in targets:
            if re.match(r"^[a-z][a-z0-9+.-]*:", t, re.I):  # http:, https:, mailto:
                continue
            file_part, _, anchor = t.partition("#")
            target = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) if file_part else path
            if not os.path.exists(target):
                problems.append(f"{rel}:{lineno}: link to {t}: {os.path.relpath(target, root)} does not exist")
                continue
            if anchor and target.endswith(".md") and anchor not in anchors(target):
                problems.append(f"{rel}:{lineno}: link to {t}: {os.path.relpath(target, root)} has no heading #{anchor}")


def as_glob(p):
    p = re.sub(r"<[^<>/]+>", "*", p)
    return p.rstrip("/") or p


def exists(root, pattern):
    return bool(glob.glob(os.path.join(root, pattern)))


def check_paths(root, rel):
    path = os.path.join(root, rel)
    if not os.path.exists(path):
        if rel == "docs/architecture.md":
            problems.append(f"{rel}: missing")
        return
    fence = None
    for lineno, line in enumerate(open(path, encoding="utf-8").read().split("\n"), 1):
        m = re.match(r"^\s*(```+|~~~+)", line)
        if m:
            fence = None if fence else m.group(1)
            continue
        if fence:
            continue
        for span in re.findall(r"`([^`]+)`", line):
            p = span.strip().rstrip(".,;:")
            p = re.sub(r":\d+(-\d+)?$", "", p)  # file:line
            if not p or re.search(r"\s", p) or p.startswith(("-", "/")):
                continue
            if not (p.split("/")[0] in TOP_LEVEL and ("/" in p or p.endswith(EXTENSIONS))):
                continue
            g = as_glob(p)
            if exists(root, g):
                continue
            problems.append(f"{rel}:{lineno}: `{p}` names a path that does not exist")


def main():
    if len(sys.argv) != 2:
        print("usage: check_docs.py ROOT", file=sys.stderr)
        return 2
    root = sys.argv[1]
    readme = os.path.join(root, "README.md")
    if not os.path.exists(readme):
        problems.append("README.md: missing")
    else:
        size = os.path.getsize(readme)
        if size >= README_LIMIT:
            problems.append(f"README.md: {size} bytes, the limit is under {README_LIMIT}")
        check_links(root, "README.md")
    pages = sorted(os.path.relpath(p, root) for p in glob.glob(os.path.join(root, "docs", "*.md")))
    for rel in pages:
        check_links(root, rel)
    for rel in PATH_CHECKED:
        check_paths(root, rel)
    for n in notes:
        print("note: " + n)
    for p in problems:
        print(p)
    if problems:
        print(f"check_docs: {len(problems)} problem(s)")
        return 1
    print(f"check_docs: README.md {os.path.getsize(readme)} bytes; links of README.md and {len(pages)} "
          f"docs pages resolve; paths in {', '.join(PATH_CHECKED)} exist")
    return 0


if __name__ == "__main__":
    sys.exit(main())
