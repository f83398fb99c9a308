#!/usr/bin/env bash
# attncheck: one stem per contract. For every contracts/<stem>.yaml the files of its stem must
# exist: falsify/<f>.cpp (properties), falsify/mutants/<f>.cpp (mutants), proofs/<f>.tex (LaTeX
# proof), proofs/coq/<F>.v (Coq) and harnesses/<f>.cpp (BMC/Gappa harnesses), where f is the stem
# without its -vN suffix and with '_' for '-' (attention-scaling-v1 -> attention_scaling) and F
# the same in CamelCase (AttentionScaling) -- unless the YAML declares the file absent, with the
# reason, in its top-level `absent:` map (docs/contract-format.md):
#   absent:
#     coq: "a statistical test: no theorem to state"
# A declared-absent file that exists is reported too (the declaration is stale).
# Usage: tests/stems/check_stems.sh [ROOT]  (ROOT holds contracts/; default: the repository).
# Exit: 0 every stem complete, 1 a file missing (each printed as yaml:line: message), 2 usage.
set -euo pipefail
root="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
[ -d "$root/contracts" ] || { echo "no contracts/ under $root" >&2; exit 2; }
bad=0; n=0; files=0
for y in "$root"/contracts/*.yaml; do
  stem="$(basename "$y" .yaml)"
  f="$(sed -E 's/-v[0-9]+$//; s/-/_/g' <<<"$stem")"
  F="$(sed -E 's/(^|_)([a-z])/\U\2/g' <<<"$f")"
  # The kinds declared absent: the keys of the top-level `absent:` map (two-space indented).
  absent="$(awk '/^absent:/{on=1; next} on && /^[^ #]/{on=0} on && /^  [a-z]+:/{sub(/^  /,""); sub(/:.*/,""); print}' "$y")"
  n=$((n + 1))
  for kind in falsify mutants proof coq harnesses; do
    case $kind in
      falsify) path="falsify/$f.cpp" ;;
      mutants) path="falsify/mutants/$f.cpp" ;;
      proof) path="proofs/$f.tex" ;;
      coq) path="proofs/coq/$F.v" ;;
      harnesses) path="harnesses/$f.cpp" ;;
    esac
    if grep -qx "$kind" <<<"$absent"; then
      if [ -e "$root/$path" ]; then
        line="$(grep -n "^  $kind:" "$y" | head -1 | cut -d: -f1)"
        echo "contracts/$(basename "$y"):$line: $path exists but absent: declares it absent; delete the declaration"; bad=1
      fi
    elif [ -e "$root/$path" ]; then
      files=$((files + 1))
    else
      echo "contracts/$(basename "$y"):1: $stem has no $path: add it, or declare it absent with the reason (absent: {$kind: \"...\"})"; bad=1
    fi
  done
done
[ $bad -eq 0 ] || exit 1
echo "check-stems: $n contracts, $files stem files present, the rest declared absent"
