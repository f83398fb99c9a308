#!/usr/bin/env bash
# attncheck: builds the libFuzzer targets (fuzz/fuzz.cmake) with clang-16 in build-fuzz/, replays
# every committed regression input, then runs each fuzzer with the given libFuzzer options and
# prints its executions, time and crashes. Exit 1 if any fuzzer crashed or a regression came back.
#   tools/fuzz.sh -max_total_time=40      # CI (tools/run.sh test): 40 s per fuzzer
#   tools/fuzz.sh -runs=2500000           # every fuzzer for 2.5 M executions
# ATTNCHECK_FUZZ_TARGETS="fuzz_cli fuzz_protocol" runs only those (tools/fuzz-long.sh gives each
# target its own budget this way).
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

CC="$cc" CXX="$cxx" cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j "$(nproc)" --target fuzzers
if compgen -G "fuzz/regressions/*/*" >/dev/null; then (cd "$build" && ctest -L fuzz --output-on-failure); fi

# Seeds: the bundled contracts and the loader's test fixtures, and small inputs written for the
# other parsers (fuzz/seeds/). New inputs the fuzzer finds go to build-fuzz/corpus/<target>/.
declare -A seeds=(
  [fuzz_contract]="contracts tests/fixtures/bad tests/fixtures/interop tests/fixtures/crossfile tests/fixtures/cycle"
  [fuzz_bindings]="fuzz/seeds/bindings"
  [fuzz_protocol]="fuzz/seeds/protocol"
  [fuzz_cli]="fuzz/seeds/cli"
)
mkdir -p "$build/crashes" "$build/logs"
status=0
total_runs=0
start_all=$(date +%s)
for target in ${ATTNCHECK_FUZZ_TARGETS:-fuzz_contract fuzz_bindings fuzz_protocol fuzz_cli}; do
  [ -n "${seeds[$target]:-}" ] || { echo "fuzz: unknown target $target" >&2; exit 2; }
  mkdir -p "$build/corpus/$target"
  log="$build/logs/$target.log"
  start=$(date +%s)
  # -timeout: one input taking 10 s is a hang; -rss_limit_mb: one run growing past 2 GiB is a leak
  # or an unbounded allocation; both count as crashes.
  # shellcheck disable=SC2086
  if "$build/$target" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build/crashes/$target-" "$@" "$build/corpus/$target" ${seeds[$target]} >"$log" 2>&1; then
    verdict="no crash"
  else
    verdict="CRASH (see $log and $build/crashes/)"
    status=1
  fi
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
  runs=${runs:-0}
  total_runs=$((total_runs + runs))
  printf 'fuzz: %-14s %10s executions in %4d s, corpus %5d inputs: %s\n' "$target" "$runs" \
    $(($(date +%s) - start)) "$(find "$build/corpus/$target" -type f | wc -l)" "$verdict"
done
printf 'fuzz: total %s executions in %d s\n' "$total_runs" $(($(date +%s) - start_all))
exit $status
