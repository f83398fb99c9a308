#!/usr/bin/env python3
"""attncheck: no `switch` on the kernel kind anywhere in the source (issue 46).

    check_kind_switches.py ROOT

Fails (exit 1) when a file under ROOT/src/ has a `case Kind::` arm. What differs between kinds is
read from their descriptors (src/attncheck/audit/kinds/*.cpp, registry.cpp) and, for the audit's
own draws, from their families' *_draws.hpp through kinds/draws_registry.hpp.
"""
import os
import sys


def main() -> int:
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    found = []
    for folder, _, files in os.walk(os.path.join(root, "src")):
        for f in sorted(files):
            if not f.endswith((".cpp", ".hpp", ".h")):
                continue
            path = os.path.join(folder, f)
            with open(path, encoding="utf-8", errors="replace") as fh:
                for number, line in enumerate(fh, 1):
                    if "case Kind::" in line:
                        found.append("%s:%d" % (os.path.relpath(path, root).replace(os.sep, "/"), number))
    for where in found:
        print("%s switches on the kind: read its descriptor (src/attncheck/audit/kinds/) instead" % where)
    print("kind switches: none" if not found else "kind switches: %d arm(s)" % len(found))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
