#!/usr/bin/env bash
# attncheck: the soundness run of the backward pass's 16-bit model (docs/audit.md, the kind
# attention_backward): audit the correct FlashAttention-2-style test kernels of
# tests/audit/kernels_attention_backward.c (tiles of 2; the grouped-query recipe with per-head dK,
# dV stored) and tests/audit/kernels_attention_backward_drift.c (blocks of 64) at many seeds, and
# report every verdict that is not PASS. On these kernels there must be none: the allowances are
# derived, so a FAIL of FALSIFY-ATTBWD-* or AUDIT-ATTBWD-001 at any seed is an unsound bound; a
# FAIL of AUDIT-ATTBWD-002 (a statistical test at 1e-9 per check) is a false alarm whose
# assumption (a correct kernel's error does not grow with the number of blocks) should be
# re-examined, not bad luck. CI runs one seed (ctest -R attention_backward); this script runs the
# many, outside CI, and bench/RESULTS.md records its figure.
#
#   bash tools/attention-backward-seeds.sh [COUNT] [FIRST]   seeds FIRST .. FIRST+COUNT-1 (default 100 from 1)
# Env: ATTNCHECK_BUILD_DIR (default build); CASES (default 60); TESTS (default: FALSIFY-ATTBWD-001..004,
# AUDIT-ATTBWD-001 at two small shapes, AUDIT-ATTBWD-002); KERNELS (default: the six below).
# Ends with the plain line 'N passed, N failed' (one per kernel and seed) and exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
count="${1:-100}"
first="${2:-1}"
build="${ATTNCHECK_BUILD_DIR:-build}"
bin="$build/attncheck"
lib="$build/libattncheck_audit_testkernels_bwd.so"
[ -x "$bin" ] && [ -f "$lib" ] || { echo "attention-backward-seeds: no $bin or $lib; build first" >&2; exit 2; }
tests="${TESTS:---test FALSIFY-ATTBWD-001 --test FALSIFY-ATTBWD-002 --test FALSIFY-ATTBWD-003 --test FALSIFY-ATTBWD-004 --test AUDIT-ATTBWD-001 --test AUDIT-ATTBWD-002}"
# AUDIT-ATTBWD-001's two small shapes of tests/audit/attention_backward_test.cpp (its three
# defaults cost about 12 s a kernel).
shapes="--attention-shape B=1,H=4,Hkv=2,n=96,m=128,d=16,causal=br --attention-shape B=1,H=2,Hkv=1,n=80,m=64,d=16,causal=tl,softcap=2"
# kernel dtype
read -r -a kernels <<< "${KERNELS:-bwd_fa2_bf16:bf16 bwd_fa2_f16:f16 bwd_fa2_gqa_bf16:bf16 bwd_fa2_gqa_f16:f16 bwd_fa2_b64_bf16:bf16 bwd_fa2_b64_f16:f16}"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
start=$(date +%s)
for ((s = first; s < first + count; s++)); do
  for k in "${kernels[@]}"; do
    sym="${k%%:*}" dt="${k##*:}"
    # shellcheck disable=SC2086
    "$bin" audit --lib "$lib" --kernel "attention_backward:$dt:$sym" --seed "$s" --cases "${CASES:-60}" $tests $shapes \
      --quiet --no-timings > "$out/run.txt" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "seed $s, $sym ($dt): exit $rc"
      grep -E "^(FAIL|ERROR|GAVE-UP) |Replay:|failed:|no answer|Growth:" "$out/run.txt" | sed "s/^/    /"
    fi
  done
  echo "seed $s done ($(( $(date +%s) - start )) s so far)"
done
echo "attention-backward-seeds: seeds $first..$((first + count - 1)), ${#kernels[@]} kernels, $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
