#!/usr/bin/env bash
# attncheck: the soundness run of the 16-bit attention models (docs/formats.md, "Stored
# intermediates"): audit the correct test kernels of tests/audit/kernels_attention_v2.c that
# really store what their declared model allows (fused: P in 16 bits; unfused: the scores and the
# normalised P too) at many seeds, and report every verdict that is not PASS. On these kernels
# there must be none: the allowances are derived, so a failure at any seed is an unsound bound
# (a false alarm on a correct kernel), never bad luck. CI runs one seed (ctest -L audit); this
# script runs the many, outside CI, and bench/RESULTS.md records its figure.
#
#   bash tools/attention-seeds.sh [COUNT] [FIRST]   seeds FIRST .. FIRST+COUNT-1 (default 100 from 1)
# Env: ATTNCHECK_BUILD_DIR (default build); CASES (default 100).
# Ends with the plain line 'N passed, N failed' (one per kernel and seed) and exits 1 on a failure.
set -uo pipefail
cd "$(dirname "$0")/.."
count="${1:-100}"
first="${2:-1}"
build="${ATTNCHECK_BUILD_DIR:-build}"
bin="$build/attncheck"
lib="$build/libattncheck_audit_testkernels_v2.so"
[ -x "$bin" ] && [ -f "$lib" ] || { echo "attention-seeds: no $bin or $lib; build first" >&2; exit 2; }
tests="--test FALSIFY-ATTK-001 --test FALSIFY-ATTK-002 --test FALSIFY-ATTK-003 --test FALSIFY-ATTK-004 --test FALSIFY-ATTK-005"
# kernel dtype extra-options: each declared as its model says
kernels=(
  "v2_fa2_small_f16 f16 "
  "v2_fa2_small_bf16 bf16 "
  "v2_fa2_f16 f16 "
  "v2_fa2_bf16 bf16 "
  "v2_unfused_f16 f16 --stores scores,p"
  "v2_unfused_bf16 bf16 --stores scores,p"
)
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
passed=0
failed=0
start=$(date +%s)
for ((s = first; s < first + count; s++)); do
  for k in "${kernels[@]}"; do
    read -r sym dt extra <<< "$k"
    # shellcheck disable=SC2086
    "$bin" audit --lib "$lib" --kernel "attention:$dt:$sym" --masked zeros --seed "$s" --cases "${CASES:-100}" \
      $tests $extra --quiet --no-timings > "$out/run.txt" 2>&1
    rc=$?
    if [ "$rc" -eq 0 ]; then
      passed=$((passed + 1))
    else
      failed=$((failed + 1))
      echo "seed $s, $sym ($dt $extra): exit $rc"
      grep -E "^(FAIL|ERROR|GAVE-UP) |Replay:" "$out/run.txt" | sed "s/^/    /"
    fi
  done
  echo "seed $s done ($(( $(date +%s) - start )) s so far)"
done
echo "attention-seeds: seeds $first..$((first + count - 1)), ${#kernels[@]} kernels, $(( $(date +%s) - start )) s"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
