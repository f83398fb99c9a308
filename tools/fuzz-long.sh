#!/usr/bin/env bash
# attncheck: the long fuzzing run (docs/robustness.md): at least 10 million executions in all, niced so it
# can run beside other work. The README records the last figures.
#
# The budget is split by speed, not evenly: per input, fuzz_cli builds the whole command-line
# parser (about 200 executions/s on the CI machine) and fuzz_contract parses and validates YAML
# (about 1 300/s), while the protocol and bindings decoders run at 5 000-9 000/s. Equal shares of
# 2.5 M would keep fuzz_cli busy for hours; these shares (6.5 M, 2.5 M, 0.8 M, 0.2 M) take about
# 50 minutes on one idle core.
# Override a share with ATTNCHECK_FUZZ_RUNS_<target>=N; ATTNCHECK_FUZZ_MAX_SECONDS caps each
# fuzzer's time as well (the printed figures then say how many executions were reached).
set -euo pipefail
cd "$(dirname "$0")/.."
declare -A runs=(
  [fuzz_protocol]="${ATTNCHECK_FUZZ_RUNS_fuzz_protocol:-6500000}"
  [fuzz_bindings]="${ATTNCHECK_FUZZ_RUNS_fuzz_bindings:-2500000}"
  [fuzz_contract]="${ATTNCHECK_FUZZ_RUNS_fuzz_contract:-800000}"
  [fuzz_cli]="${ATTNCHECK_FUZZ_RUNS_fuzz_cli:-200000}"
)
cap=()
[ -n "${ATTNCHECK_FUZZ_MAX_SECONDS:-}" ] && cap=(-max_total_time="$ATTNCHECK_FUZZ_MAX_SECONDS")
status=0
total=0
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for target in fuzz_protocol fuzz_bindings fuzz_contract fuzz_cli; do
  ATTNCHECK_FUZZ_TARGETS="$target" nice -n 15 bash tools/fuzz.sh -runs="${runs[$target]}" "${cap[@]}" "$@" \
    | tee "$log" | grep -v '^fuzz: total' || status=1
  n=$(grep -o "^fuzz: $target *[0-9]*" "$log" | grep -o '[0-9]*$' || echo 0)
  total=$((total + n))
done
echo "fuzz-long: $total executions in all (goal: 10 000 000)"
exit $status
