#!/usr/bin/env bash
# attncheck: builds the libFuzzer targets (fuzz/fuzz.cmake) with clang-16 in build-fuzz/, replays
# every committed regression input, then runs each fuzzer with the given libFuzzer options (one per
# core at a time) and prints its executions, time and crashes. Exit 1 if any fuzzer crashed or a
# regression came back.
#   tools/fuzz.sh -max_total_time=40      # CI (tools/run.sh test): 40 s per fuzzer
#   tools/fuzz.sh -runs=2500000           # every fuzzer for 2.5 M executions
# ATTNCHECK_FUZZ_TARGETS="fuzz_cli fuzz_protocol" builds and runs only those (tools/fuzz-long.sh
# gives each target its own budget this way; CI's tools/run.sh leaves out fuzz_cli).
# A crash leaves its input in build-fuzz/crashes/; commit it under fuzz/regressions/<target>/.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${ATTNCHECK_FUZZ_BUILD_DIR:-build-fuzz}"
cxx="${ATTNCHECK_FUZZ_CXX:-clang++-16}"
cc="${cxx/clang++/clang}"
if ! command -v "$cxx" >/dev/null; then
  echo "fuzz: $cxx not found (tools/install-deps.sh installs clang-16): fuzzers not run" >&2
  exit 1
fi
[ $# -gt 0 ] || set -- -max_total_time=40

targets="${ATTNCHECK_FUZZ_TARGETS:-fuzz_contract fuzz_bindings fuzz_protocol fuzz_cli}"
CC="$cc" CXX="$cxx" cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
# shellcheck disable=SC2086
cmake --build "$build" -j "$(nproc)" --target $targets
if compgen -G "fuzz/regressions/*/*" >/dev/null; then
  (cd "$build" && ctest -L fuzz -R "^(${targets// /|})[.]regressions$" --output-on-failure)
fi

# Seeds: the bundled contracts and the loader's test fixtures, and small inputs written for the
# other parsers (fuzz/seeds/). New inputs the fuzzer finds go to build-fuzz/corpus/<target>/.
declare -A seeds=(
  [fuzz_contract]="contracts tests/fixtures/bad tests/fixtures/interop tests/fixtures/crossfile tests/fixtures/cycle"
  [fuzz_bindings]="fuzz/seeds/bindings"
  [fuzz_protocol]="fuzz/seeds/protocol"
  [fuzz_cli]="fuzz/seeds/cli"
)
mkdir -p "$build/crashes" "$build/logs"
# One fuzzer per core at a time (each is single-threaded): with -max_total_time the phase takes
# ceil(targets / cores) budgets of wall time, not one per target.
fuzz_one() {  # target: runs it, writes its summary line to $build/logs/<target>.summary
  local target="$1" log="$build/logs/$1.log" start verdict runs
  mkdir -p "$build/corpus/$target"
  start=$(date +%s)
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: one run growing past 2 GiB is a leak
  # or an unbounded allocation; both count as crashes.
  # shellcheck disable=SC2086
  if "$build/$target" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/crashes/$target-" "${fuzz_args[@]}" "$build/corpus/$target" ${seeds[$target]} >"$log" 2>&1; then
    verdict="no crash"
  else
    verdict="CRASH (see $log and $build/crashes/)"
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1 || true)
  printf 'fuzz: %-14s %10s executions in %4d s, corpus %5d inputs: %s\n' "$target" "${runs:-0}" \
    $(($(date +%s) - start)) "$(find "$build/corpus/$target" -type f | wc -l)" "$verdict" >"$build/logs/$target.summary"
}
fuzz_args=("$@")
start_all=$(date +%s)
running=0
for target in $targets; do
  [ -n "${seeds[$target]:-}" ] || { echo "fuzz: unknown target $target" >&2; exit 2; }
  rm -f "$build/logs/$target.summary"
  fuzz_one "$target" &
  running=$((running + 1))
  if [ "$running" -ge "$(nproc)" ]; then wait -n || true; running=$((running - 1)); fi
done
wait
status=0
total_runs=0
for target in $targets; do
  line="$(cat "$build/logs/$target.summary" 2>/dev/null || echo "fuzz: $target did not report: CRASH")"
  echo "$line"
  case "$line" in *CRASH*) status=1 ;; esac
  runs=$(grep -o "$target *[0-9]*" <<<"$line" | grep -o '[0-9]*$' || echo 0)
  total_runs=$((total_runs + ${runs:-0}))
done
printf 'fuzz: total %s executions in %d s\n' "$total_runs" $(($(date +%s) - start_all))
exit $status
