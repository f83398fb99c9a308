#!/usr/bin/env bash
# attncheck against what a user would otherwise write: the same falsification of a float32
# softmax (normalisation FALSIFY-SM-001, order FALSIFY-SM-003, accuracy against a >= 113-bit
# reference FALSIFY-SM-004; N cases each, same row generator) done by attncheck's gate and by
# bench/baseline/softmax_hypothesis.py (Python Hypothesis + mpmath + NumPy). Prints both wall
# times, both CPU times (user + system, of the process and its children) and the ratios. Not part
# of CI: a benchmark, not a test.
#
# Equal resources: the Python baseline runs on one core, so attncheck runs with `-j 1` too (its
# default would use every core and flatter the ratio). The CPU-time ratio is the one that does not
# depend on what else the machine is doing; the wall-time ratio needs an otherwise idle core.
#
#   bash tools/bench-baseline.sh [N]        N cases per property (default 10000;
#                                           the Python side then takes over an hour on one core)
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
# cpu_of CMD...: runs CMD and writes "wall user+sys" seconds of it and its children to $times.
times="$(mktemp)"
trap 'rm -f "$times"' EXIT
cpu_of() {
  "$py" - "$times" "$@" <<'PY'
import os, resource, subprocess, sys, time
out, cmd = sys.argv[1], sys.argv[2:]
t = time.perf_counter()
rc = subprocess.call(cmd)
wall = time.perf_counter() - t
ru = resource.getrusage(resource.RUSAGE_CHILDREN)
with open(out, "a") as f:
    f.write(f"{wall} {ru.ru_utime + ru.ru_stime}\n")
sys.exit(rc)
PY
}
cpu_of "$build/attncheck" gate -j 1 --contract softmax-kernel-v1 --dtype f32 "${tests[@]}" --cases "$n" | tail -n 12
echo "== Python Hypothesis + mpmath (113 bits) + NumPy, ${n} examples per property"
cpu_of "$py" bench/baseline/softmax_hypothesis.py "$n"
"$py" - "$times" "$n" "$(nproc)" "$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')" <<'PY'
import sys
(aw, ac), (bw, bc) = [tuple(map(float, l.split())) for l in open(sys.argv[1])]
n, cores, cpu = sys.argv[2], sys.argv[3], sys.argv[4]
print(f"\nN = {n} (one core each; machine: {cores} x {cpu})")
print(f"  wall: attncheck {aw:.2f} s, Python baseline {bw:.2f} s, ratio {bw / aw:.0f}x")
print(f"  CPU:  attncheck {ac:.2f} s, Python baseline {bc:.2f} s, ratio {bc / ac:.0f}x (goal >= 100x)")
PY
