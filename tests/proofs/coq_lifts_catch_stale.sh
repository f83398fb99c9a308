#!/usr/bin/env bash
# tools/check-coq-lifts.py must be able to fail: on copies of the tree, each with one planted
# inconsistency, it exits 1 and names it. Usage: coq_lifts_catch_stale.sh ROOT ATTNCHECK
set -uo pipefail
root="$1"; cli="$2"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
"$cli" --contracts "$root/contracts" bmc --list > "$tmp/registry" || exit 1
fresh() {  # a copy of what the check reads
  rm -rf "$tmp/t"; mkdir -p "$tmp/t/proofs" "$tmp/t/src/attncheck"
  cp -r "$root/contracts" "$root/harnesses" "$tmp/t/"; cp -r "$root/proofs/coq" "$tmp/t/proofs/"
  cp -r "$root/src/attncheck/kernels" "$tmp/t/src/attncheck/"
}
fails=0
expect() {  # expect NAME PATTERN: the check exits 1 and prints PATTERN
  out="$(python3 "$root/tools/check-coq-lifts.py" "$tmp/t" "$tmp/registry" 2>&1)"; rc=$?
  if [ $rc -eq 1 ] && grep -qE "$2" <<<"$out"; then echo "caught: $1"
  else echo "NOT CAUGHT: $1 (exit $rc)"; echo "$out"; fails=1; fi
}
fresh; out="$(python3 "$root/tools/check-coq-lifts.py" "$tmp/t" "$tmp/registry")" \
  || { echo "the unmodified copy fails: $out"; exit 1; }
# A lemma's premise weakened in the harness (x <= m becomes x < m): its Coq statement is stale.
fresh; sed -i '/struct lem_sm_001/,/^};/s/x <= m/x < m/' "$tmp/t/harnesses/softmax_kernel.cpp"
expect "harness lemma edited" 'SoftmaxKernelLift.v:[0-9]+: STALE: lem_sm_001 in harnesses/softmax_kernel.cpp'
# The kernel's max step changed (>= instead of >): the Coq model of the kernel is stale.
fresh; sed -i 's/select(xi > m, xi, m)/select(xi >= m, xi, m)/' "$tmp/t/src/attncheck/kernels/softmax.hpp"
expect "kernel step edited" 'STALE: max_step in src/attncheck/kernels/softmax.hpp'
# A lift that no longer assumes a lemma the registry lists for its harness.
fresh; sed -i '/Hypothesis lem_ascl_004 : LEM_ASCL_004./d' "$tmp/t/proofs/coq/AttentionScalingLift.v"
expect "hypothesis dropped" 'bmc_ascl_003_all_d does not assume LEM-ASCL-004, which the registry lists for BMC-ASCL-003'
# A lift that assumes a lemma the solver does not prove for its harness.
fresh; sed -i 's/Hypothesis lem_ascl_002 : LEM_ASCL_002./&\nHypothesis lem_ascl_003 : LEM_ASCL_003./' "$tmp/t/proofs/coq/AttentionScalingLift.v"
expect "unproved lemma assumed" 'kani_ascl_002_all_d assumes LEM-ASCL-003, which the registry does not list for KANI-ASCL-002'
# A hypothesis that is not a step lemma at all.
fresh; sed -i 's/Hypothesis lem_sm_004 : LEM_SM_004./&\nHypothesis planted : forall x : float, x = x./' "$tmp/t/proofs/coq/SoftmaxKernelLift.v"
expect "non-lemma hypothesis" 'kani_sm_002_all_d assumes planted : .*not a step lemma'
# A comment quoting C++ with no anchor.
fresh; sed -i 's/ {transcribes src\/attncheck\/kernels\/softmax.hpp row_max #[0-9a-f]*}//' "$tmp/t/proofs/coq/SoftmaxKernelLift.v"
expect "unanchored transcription" 'quotes C\+\+ but names no'
exit $fails
