#!/usr/bin/env bash
# attncheck: every obligation's `proof: proofs/F.tex#ID` must name a LaTeX file that has
# \label{ID}, and every `coq: [File.theorem, ...]` entry must be bundled in proofs/coq/All.v (so
# that the build checks it and its axioms). Usage: tools/check-proof-links.sh [ROOT]  (ROOT holds
# contracts/ and proofs/; default: the repository). Exit: 0 all linked, 1 a broken link.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/.." && pwd)}"
bad=0; proofs=0; theorems=0
for y in "$root"/contracts/*.yaml; do
  while IFS=: read -r line rest; do
    ref="$(sed -E 's/^ *proof: *//; s/ *(#[^A-Z].*)?$//' <<<"$rest")"
    file="${ref%%#*}"; label="${ref#*#}"
    proofs=$((proofs + 1))
    if [ ! -f "$root/$file" ]; then
      echo "$y:$line: proof file $file does not exist"; bad=1
    elif ! grep -qF "\\label{$label}" "$root/$file"; then
      echo "$y:$line: $file has no \\label{$label}"; bad=1
    fi
  done < <(grep -nE '^ +proof: ' "$y")
  while IFS=: read -r line rest; do
    list="$(sed -E 's/^ *coq: *\[([^]]*)\].*/\1/' <<<"$rest")"
    for t in ${list//,/ }; do
      theorems=$((theorems + 1))
      if ! grep -qE "@$t[,)]" "$root/proofs/coq/All.v" 2>/dev/null; then
        echo "$y:$line: Coq theorem $t is not bundled in proofs/coq/All.v (its axioms go unchecked)"; bad=1
      fi
    done
  done < <(grep -nE '^ +coq: ' "$y")
done
[ $bad -eq 0 ] || exit 1
echo "check-proof-links: $proofs LaTeX proofs and $theorems Coq theorem references resolved"
