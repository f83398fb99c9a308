#!/usr/bin/env bash
# attncheck: the long fuzzing run of issue 9: each of the four fuzzers for 2.5 million executions
# (10 million in all), niced so it can run beside other work. The README records the last figures.
# ATTNCHECK_FUZZ_MAX_SECONDS caps each fuzzer's time as well (on a busy machine the runs may not
# fit in a session; the figures printed say how many executions were reached).
set -euo pipefail
cd "$(dirname "$0")/.."
cap=()
[ -n "${ATTNCHECK_FUZZ_MAX_SECONDS:-}" ] && cap=(-max_total_time="$ATTNCHECK_FUZZ_MAX_SECONDS")
exec nice -n 15 bash tools/fuzz.sh -runs="${ATTNCHECK_FUZZ_RUNS:-2500000}" "${cap[@]}" "$@"
