#!/usr/bin/env bash
# attncheck: every obligation's `proof: proofs/F.tex#ID` must name a LaTeX file that has
# \label{ID}; every `coq:` entry (`[File.theorem, ...]` or
# `{exact: [...], float: [...]}`) must be bundled in proofs/coq/All.v (so the
# build checks it and its axioms) and be cited as \coq{...theorem} in that obligation's LaTeX
# file (so the reader of the proof finds the machine-checked part). `coq:` must follow `proof:`
# within an obligation. Every harness's `lift: File.theorem` (the Coq theorem that lifts its step
# lemmas to every d) must be declared in proofs/coq/File.v and bundled in All.v (so CI builds it
# and checks its axioms). Usage: tools/check-proof-links.sh [ROOT]  (ROOT holds contracts/ and
# proofs/; default: the repository). Exit: 0 all linked, 1 a broken link.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
bad=0; proofs=0; theorems=0; lifts=0
for y in "$root"/contracts/*.yaml; do
  file=""
  while IFS=: read -r line key rest; do
    key="${key// /}"
    if [ "$key" = "-id" ]; then file=""; continue; fi
    if [ "$key" = proof ]; then
      ref="$(sed -E 's/^ *//; s/ *(#[^A-Z].*)?$//' <<<"$rest")"
      file="${ref%%#*}"; label="${ref#*#}"
      proofs=$((proofs + 1))
      if [ ! -f "$root/$file" ]; then
        echo "$y:$line: proof file $file does not exist"; bad=1; file=""
      elif ! grep -qF "\\label{$label}" "$root/$file"; then
        echo "$y:$line: $file has no \\label{$label}"; bad=1
      fi
    elif [ "$key" = coq ]; then
      # [File.thm, ...] or {exact: [...], float: [...]}: every File.theorem before the comment
      list="$(grep -oE '[A-Z][A-Za-z0-9_]*\.[A-Za-z0-9_'"'"']+' <<<"${rest%%#*}" || true)"
      for t in $list; do
        theorems=$((theorems + 1))
        if ! grep -qE "@$t[,)]" "$root/proofs/coq/All.v" 2>/dev/null; then
          echo "$y:$line: Coq theorem $t is not bundled in proofs/coq/All.v (its axioms go unchecked)"; bad=1
        fi
        if [ -z "$file" ]; then
          echo "$y:$line: coq: without a proof: before it in the same obligation"; bad=1
        elif ! grep -qE "\\\\coq\{([A-Za-z]+\.)?${t#*.}\}" "$root/$file"; then
          echo "$y:$line: $file does not cite the Coq theorem $t (\\coq{${t#*.}})"; bad=1
        fi
      done
    elif [ "$key" = lift ]; then
      t="$(sed -E 's/^ *//; s/ *(#.*)?$//' <<<"$rest")"
      lifts=$((lifts + 1))
      if ! grep -qE "@$t[,)]" "$root/proofs/coq/All.v" 2>/dev/null; then
        echo "$y:$line: Coq lift $t is not bundled in proofs/coq/All.v (CI would not build it)"; bad=1
      fi
      if ! grep -qE "^ *(Theorem|Lemma|Corollary) ${t#*.}( |$)" "$root/proofs/coq/${t%%.*}.v" 2>/dev/null; then
        echo "$y:$line: Coq lift $t is not declared in proofs/coq/${t%%.*}.v"; bad=1
      fi
    fi
  done < <(grep -nE '^(  - id|    proof|    coq|    lift): ' "$y")  # item keys only (not absent: {proof, coq})
done
[ $bad -eq 0 ] || exit 1
echo "check-proof-links: $proofs LaTeX proofs, $theorems Coq theorem references and $lifts Coq lifts resolved"
