#!/usr/bin/env bash
# attncheck: the soundness run of the 16-bit attention backward recipes (docs/formats.md, "Stored
# intermediates"): audit the correct backward test kernels that really store what their declared
# recipe allows (fused, FlashAttention-2: P and dS, per-head dK/dV with grouped heads, in
# tests/audit/kernels_attention_backward.c; unfused, PyTorch's autograd on 16-bit tensors: every
# op's output, in tests/audit/kernels_attention_backward_unfused.c; FlashAttention-2's blocks of 64,
# judged by AUDIT-ATTBWD-002 too, in tests/audit/kernels_attention_backward_drift.c) at many seeds, and report every
# verdict that is not PASS. There must be none: the allowances are derived, so a failure at any
# seed is an unsound bound, never bad luck. CI runs one seed; this script runs the many, outside CI.
#
#   bash tools/attention-backward-seeds.sh [COUNT] [FIRST]   seeds FIRST .. FIRST+COUNT-1 (default 100 from 1)
# Env: ATTNCHECK_BUILD_DIR (default build); CASES (default 100); KERNELS (symbols of the table below
# to run, e.g. KERNELS="bwd_fa2_b64_bf16 bwd_fa2_b64_f16"; default all); KEEP (a directory: each
# failing run's whole output is kept there). Each run's time is printed.
# Ends with the plain line 'N passed, N failed' (one per kernel and seed) and exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
count="${1:-100}"
first="${2:-1}"
build="${ATTNCHECK_BUILD_DIR:-build}"
bin="$build/attncheck"
lib="$build/libattncheck_audit_testkernels_bwd.so"
[ -x "$bin" ] && [ -f "$lib" ] || { echo "attention-backward-seeds: no $bin or $lib; build first" >&2; exit 2; }
# Every backward check; AUDIT-ATTBWD-001 at the two small shapes of tests/audit/attention_backward_test.cpp.
shapes="--attention-shape B=1,H=4,Hkv=2,n=96,m=128,d=16,causal=br --attention-shape B=1,H=2,Hkv=1,n=80,m=64,d=16,causal=tl,softcap=2"
# kernel dtype extra-options: each declared as its recipe says
kernels=(
  "bwd_fa2_bf16 bf16 "
  "bwd_fa2_f16 f16 "
  "bwd_fa2_gqa_bf16 bf16 "
  "bwd_fa2_gqa_f16 f16 "
  "bwd_fa2_b64_bf16 bf16 "
  "bwd_fa2_b64_f16 f16 "
  "bwd_unfused_bf16 bf16 --stores scores,p,dp,ds"
  "bwd_unfused_sdpa_bf16 bf16 --stores scores,p,dp,ds"
  "bwd_unfused_sdpa_f16 f16 --stores scores,p,dp,ds"
)
# KERNELS="SYM SYM ..." keeps only those entries of the table (their options as listed).
if [ -n "${KERNELS:-}" ]; then
  kept=()
  for k in "${kernels[@]}"; do
    read -r sym _ <<< "$k"
    for want in $KERNELS; do [ "$want" = "$sym" ] && kept+=("$k"); done
  done
  [ "${#kept[@]}" -gt 0 ] || { echo "attention-backward-seeds: KERNELS names none of the table's kernels" >&2; exit 2; }
  kernels=("${kept[@]}")
fi
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
start=$(date +%s)
for ((s = first; s < first + count; s++)); do
  for k in "${kernels[@]}"; do
    read -r sym dt extra <<< "$k"
    t0=$(date +%s)
    # shellcheck disable=SC2086
    "$bin" audit --lib "$lib" --kernel "attention_backward:$dt:$sym" --seed "$s" --cases "${CASES:-100}" \
      $shapes $extra --quiet --no-timings > "$out/run.txt" 2>&1
    rc=$?
    echo "  seed $s $sym: exit $rc, $(( $(date +%s) - t0 )) s"
    if [ "$rc" -eq 0 ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "seed $s, $sym ($dt $extra): exit $rc"
      # The verdict, its message (the figures or the fault) and the replay line; the whole output
      # is kept in $KEEP (default: none) for a failure to be read in full.
      grep -E "^(FAIL|ERROR|GAVE-UP) |Replay:|exception:|Error:|^  [A-Z].*: " "$out/run.txt" | grep -v "needs kind\|calls no kernel" | cut -c1-400 | sed "s/^/    /"
      [ -n "${KEEP:-}" ] && mkdir -p "$KEEP" && cp "$out/run.txt" "$KEEP/seed$s-$sym.txt"
    fi
  done
  echo "seed $s done ($(( $(date +%s) - start )) s so far)"
done
echo "attention-backward-seeds: seeds $first..$((first + count - 1)), ${#kernels[@]} kernels, $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
