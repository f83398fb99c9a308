#!/usr/bin/env bash
# attncheck: builds the Coq project proofs/coq (its _CoqProject) in a copy under OUTDIR, so that
# no .vo/.glob lands in the source tree. Usage: tools/build-coq.sh SRCDIR OUTDIR
set -euo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 SRCDIR OUTDIR" >&2; exit 2; fi
src="$1"; out="$2"
command -v coqc >/dev/null && command -v coq_makefile >/dev/null ||
  { echo "coqc/coq_makefile not found: run tools/install-deps.sh" >&2; exit 1; }
mkdir -p "$out"
# Copy the sources (newer ones only, so a rebuild is incremental).
cp -u "$src"/_CoqProject "$src"/*.v "$out"/
cd "$out"
coq_makefile -f _CoqProject -o Makefile.coq
make -f Makefile.coq -j "${COQ_JOBS:-2}"
echo "coq: $(ls *.vo | wc -l) files checked by $(coqc --print-version)"
