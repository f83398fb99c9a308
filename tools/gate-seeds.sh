#!/usr/bin/env bash
# attncheck: run the whole gate on the reference kernels with many different seeds and report
# every verdict that is not PASS. On the reference kernels there must be none: the
# deterministic checks have derived (sound) allowances and the statistical ones a false-alarm
# probability of at most 1e-9 per run, so over 100 seeds a failure is a bug in attncheck (an
# unsound bound or a wrong test), never bad luck.
#
#   bash tools/gate-seeds.sh [COUNT] [FIRST]   seeds FIRST .. FIRST+COUNT-1 (default 100 seeds from 1)
# Env: ATTNCHECK_BUILD_DIR (default build); extra gate options in GATE_ARGS (e.g. "-j 2").
# Prints one line per seed and, at the end, every (seed, test, dtype) that did not pass with its
# replay command; exit 1 if there was one.
set -uo pipefail
cd "$(dirname "$0")/.."
count="${1:-100}"
first="${2:-1}"
bin="${ATTNCHECK_BUILD_DIR:-build}/attncheck"
[ -x "$bin" ] || { echo "gate-seeds: no $bin; build first (bash tools/run.sh gate builds it)" >&2; exit 2; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
bad=0
start=$(date +%s)
for ((s = first; s < first + count; s++)); do
  t0=$(date +%s)
  "$bin" gate --seed "$s" --quiet --no-timings ${GATE_ARGS:-} > "$out/$s.txt" 2>&1
  rc=$?
  summary=$(tail -n 1 "$out/$s.txt")
  echo "seed $s: exit $rc, $summary ($(( $(date +%s) - t0 )) s)"
  if [ "$rc" -ne 0 ]; then
    bad=$((bad + 1))
    grep -E "^(FAIL|ERROR|GAVE-UP) |Replay:" "$out/$s.txt" | sed "s/^/    /" >> "$out/failures.txt"
  fi
done
echo
echo "$count seeds ($first..$((first + count - 1))) in $(( $(date +%s) - start )) s: $bad with a verdict other than PASS"
[ "$bad" -eq 0 ] || { cat "$out/failures.txt"; exit 1; }
