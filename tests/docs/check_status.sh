#!/usr/bin/env bash
# The live status columns of `attncheck docs` come from real runs: the proof column from a proofs
# record (here a record made by hand holding one built proof source, as tools/build-latex.sh
# leaves it), the verdict column from a gate JSON report of a real run.
#   check_status.sh ATTNCHECK CONTRACTS-DIR GATE.json
set -uo pipefail
attncheck="$1" contracts="$2" report="$3"
root="$(dirname "$(realpath "$contracts")")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "check_status: $*" >&2; exit 1; }

# No record and no report: nothing may claim to be checked or to have passed.
"$attncheck" --contracts "$contracts" docs --out "$work/none" --proofs-record "$work/no-record" 2>"$work/err" ||
  fail "docs without a record failed"
grep -q "no proofs record" "$work/err" || fail "no warning about the missing proofs record"
page="$work/none/softmax-kernel-v1.md"
grep -q '| Proof checked | Last verdict |' "$page" || fail "no status columns in $page"
grep -q 'LaTeX checked' "$page" && fail "a proof counts as checked without a record"
grep -Eq '\| SM-INV-001 \|.*\| LaTeX not checked in this build; Coq 0/3 checked \| not run \|$' "$page" || fail "SM-INV-001 row wrong"

# A record with softmax_kernel.tex as built, and the report of a gate run against a mutant.
mkdir -p "$work/record/pdf/checked"
cp "$root/proofs/softmax_kernel.tex" "$work/record/pdf/checked/"
"$attncheck" --contracts "$contracts" docs --out "$work/live" --proofs-record "$work/record" --report "$report" ||
  fail "docs with a record and a report failed"
page="$work/live/softmax-kernel-v1.md"
grep -Eq '\| SM-INV-001 \|.*\| LaTeX checked; Coq 0/3 checked \| FAIL FALSIFY-SM-001 \[(f16@f16|bf16@bf16|f16@f32|bf16@f32|f32|f64)\]' "$page" ||
  fail "SM-INV-001 should show LaTeX checked and the failing FALSIFY-SM-001 of the report"
grep -Eq '^\| FALSIFY-SM-001 \|.*\| FAIL [a-z0-9 ]*' "$page" || fail "FALSIFY-SM-001 should show FAIL"
# qk-norm-v1 was not in the gate run and its proof is not in the record.
grep -Eq '\| QKN-BND-001 \|.*\| LaTeX not checked in this build; Coq 0/1 checked \| not in the report \|$' \
  "$work/live/qk-norm-v1.md" || fail "QKN-BND-001 should be unchecked and not in the report"
# An edited source makes the recorded proof stale, never checked.
echo "% edited" >>"$work/record/pdf/checked/softmax_kernel.tex"
"$attncheck" --contracts "$contracts" docs --out "$work/stale" --proofs-record "$work/record" >/dev/null 2>&1 ||
  fail "docs with a stale record failed"
grep -q 'LaTeX stale' "$work/stale/softmax-kernel-v1.md" || fail "a changed record should read stale"
# A report that is not an attncheck report is refused with exit 2.
"$attncheck" --contracts "$contracts" docs --out "$work/bad" --report "$contracts/qk-norm-v1.yaml" 2>"$work/err"
[ $? -eq 2 ] || fail "a YAML contract given as --report should exit 2"
grep -q "not attncheck-gate/N" "$work/err" || fail "no clear message for a wrong --report"
echo "check_status: proof and verdict columns follow the record and the report"
