#!/usr/bin/env bash
# A Coq link planted with the wrong label in a copy of the contracts must be a coverage gap with
# the expected message, and the bundled contracts must show no such gap:
#   coverage_planted_link.sh ATTNCHECK CONTRACT.yaml SED-EXPR PLANTED-GREP GAP-LINE-REGEX WHAT
# (run from the source root; WHAT is the message's "as a ... proof" phrase).
set -uo pipefail
attncheck="$1" contract="$2" edit="$3" planted="$4" gap="$5" what="$6"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cp -r contracts "$tmp"/ && ln -s "$PWD"/proofs "$tmp"/proofs || exit 1
sed -i "$edit" "$tmp/contracts/$contract" && grep -q -- "$planted" "$tmp/contracts/$contract" ||
  { echo "coverage_planted_link: the planted edit did not apply to $contract" >&2; exit 1; }
out="$("$attncheck" --contracts "$tmp"/contracts coverage 2>&1)"
echo "$out" | grep -- "$what"
echo "$out" | grep -Eq -- "$gap" || { echo "coverage_planted_link: no gap /$gap/" >&2; exit 1; }
out="$("$attncheck" --contracts contracts coverage 2>&1)"
if echo "$out" | grep -- "$what"; then echo "coverage_planted_link: the bundled contracts have such a gap" >&2; exit 1; fi
exit 0
