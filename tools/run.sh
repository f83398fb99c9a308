#!/usr/bin/env bash
# attncheck: the two README commands. `tools/run.sh gate` installs dependencies, builds, and runs
# the QA gate over every bundled contract; `tools/run.sh test` does the same set-up and runs the
# whole CTest suite. Both work from a clean clone on a fresh Debian 12 machine (as root).
set -euo pipefail
cd "$(dirname "$0")/.."

what="${1:-}"
shift || true
case "$what" in
  gate|test) ;;
  *) echo "usage: tools/run.sh gate [attncheck gate options] | tools/run.sh test [ctest options]" >&2; exit 2 ;;
esac

# Each phase prints its wall time (the README's CI figures come from these lines) and, where it
# compiled, ccache's hits and misses in it (cmake/ccache.cmake): hits, misses and uncached compiles
# since the phase began, from ccache's own counters (summed over any other build on the machine).
ccache_counts() {  # "hits misses uncached" from ccache --print-stats, or nothing without ccache
  command -v ccache >/dev/null 2>&1 || return 0
  ccache --print-stats 2>/dev/null | awk -F'\t' '
    $1 == "direct_cache_hit" || $1 == "preprocessed_cache_hit" { h += $2 }
    $1 == "cache_miss" { m += $2 }
    $1 ~ /^(could_not_use_precompiled_header|unsupported_|bad_compiler_arguments|compiler_produced_|output_to_stdout|multiple_source_files|no_input_file|preprocessor_error|compile_failed)/ { u += $2 }
    END { print h + 0, m + 0, u + 0 }'
}
cache_before="$(ccache_counts)"
phase() {
  local now hits="" h0 m0 u0 h1 m1 u1
  now="$(ccache_counts)"
  if [ -n "$now" ] && [ -n "$cache_before" ]; then
    read -r h0 m0 u0 <<<"$cache_before"
    read -r h1 m1 u1 <<<"$now"
    if [ $((h1 - h0 + m1 - m0 + u1 - u0)) -gt 0 ]; then
      hits=" (ccache: $((h1 - h0)) hits, $((m1 - m0)) misses, $((u1 - u0)) uncached)"
    fi
  fi
  echo "run: $1 took $((SECONDS - phase_start)) s$hits"
  phase_start=$SECONDS
  cache_before="$now"
}
phase_start=$SECONDS
bash tools/install-deps.sh
cache_before="$(ccache_counts)"  # ccache may have just been installed
phase "installing dependencies"
build="${ATTNCHECK_BUILD_DIR:-build}"
jobs="$(nproc)"
bash tools/configure.sh "$build"  # C++ at -O1, without -g (tools/configure.sh says why)
cmake --build "$build" -j "$jobs"
phase "the build"

if [ "$what" = gate ]; then
  exec "$build/attncheck" gate "$@"
else
  status=0
  (cd "$build" && ctest --output-on-failure -j "$jobs" "$@") || status=1
  phase "the test suite"
  # The hardening runs (docs/robustness.md), after the suite and only for the whole suite (no ctest options):
  # each fuzzer for a bounded time (clang-16 build in build-fuzz/; ATTNCHECK_FUZZ=0 skips it), then
  # the suite under ASan + UBSan (GCC build in build-asan/, tools/sanitize.sh says what it leaves
  # out and why; ATTNCHECK_SANITIZE=0 skips it).
  if [ $# -eq 0 ]; then
    if [ "${ATTNCHECK_FUZZ:-1}" != 0 ]; then
      # The three parsers of untrusted input (contract YAML, bindings YAML, protocol frames), two
      # at a time. fuzz_cli is left to tools/fuzz-long.sh: its clang build of the whole CLI took
      # most of this phase's 831 s (2026-11-28) for 4 693 executions in 30 s, and the CLI's code
      # runs under ASan + UBSan in the sanitized suite below. ATTNCHECK_FUZZ_TARGETS overrides.
      ATTNCHECK_FUZZ_TARGETS="${ATTNCHECK_FUZZ_TARGETS:-fuzz_contract fuzz_bindings fuzz_protocol}" \
        bash tools/fuzz.sh -max_total_time="${ATTNCHECK_FUZZ_SECONDS:-30}" || status=1
      phase "fuzzing (build and bounded run)"
    fi
    if [ "${ATTNCHECK_SANITIZE:-1}" != 0 ]; then
      bash tools/sanitize.sh || status=1
      phase "the sanitized suite (build and run)"
    fi
  fi
  exit $status
fi
