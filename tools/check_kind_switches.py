#!/usr/bin/env python3
"""attncheck: no `switch` on the kernel kind outside the kind descriptors (issue 46).

    check_kind_switches.py ROOT

Fails (exit 1) when a file under ROOT/src/ other than those of src/attncheck/audit/kinds/ and the
ones listed in STILL_SWITCHING has a `case Kind::` arm, or when a listed file no longer has one
(then its entry goes: the list only shrinks).
"""
import os
import sys

# The draws of AUDIT-SAFE-001, -DET-001 and -NAN-001, not yet in the descriptors
# (docs/architecture.md, "Kernel kinds: the descriptor").
STILL_SWITCHING = {"src/attncheck/audit/properties_draws.hpp", "src/attncheck/audit/properties_safety.cpp"}


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = set()
    for folder, _, files in os.walk(os.path.join(root, "src")):
        for f in files:
            path = os.path.join(folder, f)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            if rel.startswith("src/attncheck/audit/kinds/") or not f.endswith((".cpp", ".hpp", ".h")):
                continue
            with open(path, encoding="utf-8", errors="replace") as fh:
                if "case Kind::" in fh.read():
                    found.add(rel)
    bad = sorted(found - STILL_SWITCHING)
    gone = sorted(STILL_SWITCHING - found)
    for rel in bad:
        print("%s switches on the kind: read its descriptor instead (src/attncheck/audit/kinds/)" % rel)
    for rel in gone:
        print("%s no longer switches on the kind: remove it from STILL_SWITCHING" % rel)
    print("kind switches: %d file(s) outside the descriptors, all known" % len(found) if not (bad or gone) else "kind switches: drift")
    return 1 if bad or gone else 0


if __name__ == "__main__":
    sys.exit(main())
