#!/usr/bin/env bash
# Times every BMC harness against the row length d, per format, until the first bound that is not
# proved within the time limit (default 60 s); prints one line per run. bench/bmc_scaling.md holds
# a recorded table. Usage: tools/bmc-scaling.sh [BUILD_DIR] [TIMEOUT_S]
set -euo pipefail
build=${1:-build}
timeout=${2:-60}
for h in KANI-ASCL-002 KANI-SM-002 KANI-SM-001 KANI-QKN-002 KANI-QKN-001 BMC-ASCL-003 BMC-SLIP-001 KANI-ASCL-001; do
  for f in f16 bf16 f32; do
    for d in 1 2 3 4 6 8; do
      line=$("$build/attncheck" bmc --harness "$h" --format "$f" --bound "$d" --timeout "$timeout" --no-lemmas \
             | grep "^$h" || true)
      echo "$line"
      echo "$line" | grep -q "proved for all inputs" || break
    done
  done
done
