#!/usr/bin/env bash
# attncheck against what a user would otherwise write: the same falsification of a float32
# softmax (normalisation FALSIFY-SM-001, order FALSIFY-SM-003, accuracy against a >= 113-bit
# reference FALSIFY-SM-004; N cases each, same row generator) done by attncheck's gate and by
# bench/baseline/softmax_hypothesis.py (Python Hypothesis + mpmath + NumPy). Prints both wall
# times and the ratio. Not part of CI: a benchmark, not a test.
#
#   bash tools/bench-baseline.sh [N]        N cases per property (default 10000, as issue 9 asks;
#                                           the Python side then takes about an hour on 2 cores)
# Env: ATTNCHECK_BUILD_DIR (default build) — an existing build is reused, else configured.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"
build="${ATTNCHECK_BUILD_DIR:-build}"
py=/usr/bin/python3   # Debian's python3-hypothesis/-mpmath/-numpy live there, not in a pyenv
for m in hypothesis mpmath numpy; do
  "$py" -c "import $m" 2>/dev/null || { echo "bench-baseline: $py lacks $m (apt-get install python3-$m)" >&2; exit 2; }
done
[ -x "$build/attncheck" ] || { cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null && cmake --build "$build" -j "$(nproc)" --target attncheck_cli >/dev/null; }

tests=(--test FALSIFY-SM-001 --test FALSIFY-SM-003 --test FALSIFY-SM-004)
echo "== attncheck gate, f32, ${n} cases per property"
t0=$(date +%s.%N)
"$build/attncheck" gate --contract softmax-kernel-v1 --dtype f32 "${tests[@]}" --cases "$n" | tail -n 12
t1=$(date +%s.%N)
echo "== Python Hypothesis + mpmath (113 bits) + NumPy, ${n} examples per property"
"$py" bench/baseline/softmax_hypothesis.py "$n"
t2=$(date +%s.%N)
"$py" - "$t0" "$t1" "$t2" "$n" <<'PY'
import sys
t0, t1, t2, n = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
a, b = t1 - t0, t2 - t1
print(f"\nN = {n}: attncheck {a:.2f} s, Python baseline {b:.2f} s, ratio {b / a:.0f}x (goal >= 100x)")
PY
