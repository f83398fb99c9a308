"""The README's "Three ways in" examples are the ones CI runs: a fenced block after
`<!-- ci: PATH -->` must appear in the file PATH, its lines in order (other lines may come between
them). `<!-- ci: cli ... -->` blocks are run by tests/install/install_test.cmake (STEP=consumer).
    check_readme_ways.py REPO   exit 1 naming each block that is not in its file"""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1])
readme = (root / "README.md").read_text(encoding="utf-8")
blocks = re.findall(r"<!-- ci: (\S+)[^>]*-->\s*```\w*\n(.*?)```", readme, re.S)
faults = []
if len(blocks) < 3:
    faults.append("README.md: %d '<!-- ci: ... -->' example blocks, expected the three ways in" % len(blocks))
for path, block in blocks:
    if path == "cli":
        continue
    target = root / path
    if not target.is_file():
        faults.append("README.md: the example for %s: no such file" % path)
        continue
    lines = [l.rstrip() for l in target.read_text(encoding="utf-8").splitlines()]
    at = 0
    for want in (l.rstrip() for l in block.splitlines() if l.strip()):
        while at < len(lines) and lines[at] != want:
            at += 1
        if at == len(lines):
            faults.append("README.md: the example for %s has a line that is not there (in order): %s" % (path, want))
            break
        at += 1
for f in faults:
    print(f)
print("%d example blocks checked, %d faults" % (len(blocks), len(faults)))
sys.exit(1 if faults else 0)
