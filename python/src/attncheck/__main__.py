"""``python3 -m attncheck serve KIND:DTYPE=MODULE:FUNCTION ...``: serves importable kernels over the
exec protocol, for ``attncheck audit --exec``. attncheck.audit() prints its CLI replay lines with
this program when every kernel it audited can be imported by name (a function at the top level of
a module other than __main__), so that a failing check replays from a shell as printed."""
import importlib
import sys

from .protocol import serve

USAGE = "usage: python3 -m attncheck serve KIND:DTYPE=MODULE:FUNCTION [...]  (e.g. softmax:f32=my_kernels:softmax)"


def _load(spec: str):
    module, _, qualname = spec.partition(":")
    if not module or not qualname:
        raise SystemExit("attncheck serve: %r is not MODULE:FUNCTION\n%s" % (spec, USAGE))
    obj = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def main(argv) -> int:
    if len(argv) < 2 or argv[0] != "serve":
        sys.stderr.write(USAGE + "\n")
        return 2
    table = {}
    for word in argv[1:]:
        key, eq, spec = word.partition("=")
        if not eq:
            sys.stderr.write("attncheck serve: %r is not KIND:DTYPE=MODULE:FUNCTION\n%s\n" % (word, USAGE))
            return 2
        table[key] = _load(spec)
    serve(table)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
