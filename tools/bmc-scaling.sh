#!/usr/bin/env bash
# Times every BMC harness against the row length d, per format, until the first bound that is not
# proved within the time limit (default 60 s); prints one line per run. bench/bmc_scaling.md holds
# a recorded table. Usage: tools/bmc-scaling.sh [BUILD_DIR] [TIMEOUT_S] [SECTION]
# SECTION: smt (the first table, the default), aeq (KANI-AEQ-001/002), fp8 (the exhaustive runs of
# the 8-bit formats), gappa (the Gappa harnesses, d up to 1024), or all.
set -euo pipefail
build=${1:-build}
timeout=${2:-60}
section=${3:-smt}
# One run per bound until the first bound that is not proved (or fully enumerated).
scale() {  # scale HARNESS FORMAT BOUND... [-- EXTRA ARGS]
  local h=$1 f=$2
  shift 2
  local bounds=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do bounds+=("$1"); shift; done
  [ $# -gt 0 ] && shift
  for d in "${bounds[@]}"; do
    line=$("$build/attncheck" bmc --harness "$h" --format "$f" --bound "$d" --timeout "$timeout" --no-lemmas --no-witness "$@" \
           | grep "^$h" || true)
    echo "$line"
    echo "$line" | grep -q "proved for all inputs\|passed on every input" || break
  done
}
if [ "$section" = aeq ] || [ "$section" = all ]; then
  for f in f16 bf16 f32; do scale KANI-AEQ-001 "$f" 2 3; done  # d >= 2: it swaps x_0 and x_1
  for f in f16 bf16 f32; do scale KANI-AEQ-002 "$f" 1 2 4 8 12 16; done
fi
if [ "$section" = fp8 ] || [ "$section" = all ]; then
  # d = 3 (16.7M rows) takes about a minute per harness: measured for KANI-SM-002 only.
  for h in KANI-ASCL-002 KANI-SM-002 KANI-SM-001 BMC-ASCL-003 BMC-ASCL-004 KANI-AEQ-001; do
    for f in e4m3 e4m3sat e5m2; do
      ds="1 2"
      [ "$h" = KANI-AEQ-001 ] && ds="2"
      [ "$h" = KANI-SM-002 ] && ds="1 2 3"
      for d in $ds; do
        "$build/attncheck" bmc --harness "$h" --format "$f" --bound "$d" --no-lemmas --no-witness | grep "^$h" || true
      done
    done
  done
fi
if [ "$section" = gappa ] || [ "$section" = all ]; then
  for f in f16 bf16 f32 f64; do scale GAPPA-ASCL-001 "$f" 2 8 16 32 64 128 256 512 1024; done
  # The relative sum bound: d + 1 gappa runs per bound (one per position of the first nonzero exp).
  for f in f16 bf16 f32 f64; do scale GAPPA-SM-002 "$f" 2 4 8 16 24 32 48 64; done
  # The relative score bound (positive normal products): one gappa run per bound.
  for f in f16 bf16 f32 f64; do scale GAPPA-ASCL-002 "$f" 2 8 16 32 64 128 256; done
fi
[ "$section" = smt ] || [ "$section" = all ] || exit 0
for h in KANI-ASCL-002 KANI-SM-002 KANI-SM-001 KANI-SM-004 KANI-QKN-002 KANI-QKN-001 BMC-ASCL-003 BMC-SLIP-001 KANI-ASCL-001; do
  for f in f16 bf16 f32; do
    for d in 1 2 3 4 6 8; do
      line=$("$build/attncheck" bmc --harness "$h" --format "$f" --bound "$d" --timeout "$timeout" --no-lemmas --no-witness \
             | grep "^$h" || true)
      echo "$line"
      echo "$line" | grep -q "proved for all inputs" || break
    done
  done
done
