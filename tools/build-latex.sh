#!/usr/bin/env bash
# attncheck: builds one proofs/*.tex with two pdflatex passes into OUTDIR and fails on any error,
# undefined reference or citation, or "Rerun to get cross-references right" after the second pass.
# Extra include directories (generated tables) go in TEXINPUTS_EXTRA (colon-separated). On success
# the source is copied to OUTDIR/checked/ (the record `attncheck coverage` compares with the tree).
# Usage: tools/build-latex.sh FILE.tex OUTDIR
set -euo pipefail
if [ $# -ne 2 ]; then echo "usage: $0 FILE.tex OUTDIR" >&2; exit 2; fi
tex="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
out="$2"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
stem="$(basename "$tex" .tex)"
command -v pdflatex >/dev/null || { echo "pdflatex not found: run tools/install-deps.sh" >&2; exit 1; }

export max_print_line=1000  # one message per log line, so the grep below shows whole messages
export TEXINPUTS="$(dirname "$tex"):${TEXINPUTS_EXTRA:-}:"
for pass in 1 2; do
  if ! pdflatex -interaction=nonstopmode -halt-on-error -file-line-error \
       -output-directory="$out" "$tex" > "$out/$stem.pass$pass.out" 2>&1; then
    echo "pdflatex pass $pass failed on $tex:" >&2
    grep -E -A3 '^(.*:[0-9]+:|!)' "$out/$stem.pass$pass.out" | head -30 >&2 || tail -30 "$out/$stem.pass$pass.out" >&2
    exit 1
  fi
done

log="$out/$stem.log"
if grep -nE 'undefined references|Reference .* undefined|Citation .* undefined|Rerun to get|multiply[- ]defined' "$log"; then
  echo "$tex: undefined or duplicate references or citations after two passes (see $log)" >&2
  exit 1
fi
# The record `attncheck coverage` reads: a copy of the source that built cleanly, so a later edit
# makes the record stale instead of silently "checked".
mkdir -p "$out/checked"
cp "$tex" "$out/checked/$stem.tex"
echo "$stem.pdf built ($(grep -c . "$log") log lines, no undefined references): $out/$stem.pdf"
