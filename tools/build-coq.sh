#!/usr/bin/env bash
# attncheck: builds the Coq project proofs/coq (its _CoqProject) in a copy under OUTDIR, so that
# no .vo/.glob lands in the source tree, then checks the axioms every theorem rests on (the
# `Print Assumptions` of All.v, which is not in _CoqProject). On success the sources are copied to
# OUTDIR/checked/ (the record `attncheck coverage` compares with the tree) with tools/check-coq-assumptions.sh. Usage: tools/build-coq.sh SRCDIR OUTDIR
set -euo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 SRCDIR OUTDIR" >&2; exit 2; fi
here="$(cd "$(dirname "$0")" && pwd)"
src="$1"; out="$2"
command -v coqc >/dev/null && command -v coq_makefile >/dev/null ||
  { echo "coqc/coq_makefile not found: run tools/install-deps.sh" >&2; exit 1; }
mkdir -p "$out"
# Copy the sources (newer ones only, so a rebuild is incremental).
cp -u "$src"/_CoqProject "$src"/*.v "$out"/
cd "$out"
coq_makefile -f _CoqProject -o Makefile.coq
make -f Makefile.coq -j "${COQ_JOBS:-2}" > make.log 2>&1 || { cat make.log; exit 1; }
grep -E '^COQC|Error' make.log || true
echo "coq: $(ls *.vo | wc -l) files checked by $(coqc --print-version)"
# All.v (outside _CoqProject: compiled once, here) bundles every theorem and prints its axioms.
coqc $(grep -E '^-(R|Q) ' _CoqProject) -w -ambiguous-paths All.v > assumptions.txt
bash "$here/check-coq-assumptions.sh" < assumptions.txt
# The record `attncheck coverage` reads: the sources that built and passed the axiom check.
rm -rf checked && mkdir checked && cp _CoqProject *.v checked/
