#!/usr/bin/env bash
# attncheck: run the benchmarks (bench/, Google Benchmark) and print the oracle-overhead table.
#
#   bash tools/bench.sh [extra attncheck_bench flags, e.g. --benchmark_filter=/softmax/]
#
# Configures a Release build in build-bench/ (ATTNCHECK_BENCH_DIR overrides), builds only
# attncheck_bench, runs it with JSON output to build-bench/bench.json, then prints one table row
# per (kernel, type, n): plain rows/s, each oracle tier's rows/s and the ratio
# oracle time / plain time (= plain rows/s / oracle rows/s). Needs libbenchmark-dev and python3.
# BENCH_MIN_TIME (seconds per benchmark, default 0.1) keeps the whole run to about 80 s of CPU on
# 2 cores (under 3 minutes of wall time even with the other core busy). Speed is measured here,
# never asserted: this is not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."

build="${ATTNCHECK_BENCH_DIR:-build-bench}"
min_time="${BENCH_MIN_TIME:-0.1}"
json="$build/bench.json"
log="$build/bench.log"

mkdir -p "$build"
if ! cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release >"$build/configure.log" 2>&1; then
  cat "$build/configure.log" >&2
  exit 1
fi
if ! cmake --build "$build" -j "$(nproc)" --target attncheck_bench >"$build/build.log" 2>&1; then
  tail -n 60 "$build/build.log" >&2
  echo "bench.sh: building attncheck_bench failed (is libbenchmark-dev installed?)" >&2
  exit 1
fi

load="$(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
"$build/attncheck_bench" --benchmark_min_time="$min_time" \
  --benchmark_format=json --benchmark_out="$json" --benchmark_out_format=json "$@" \
  >/dev/null 2>"$log" || { cat "$log" >&2; exit 1; }
elapsed=$(( $(date +%s) - start ))

python3 - "$json" "$min_time" "$elapsed" "$load" <<'PY'
import json, os, sys

path, min_time, elapsed, load = sys.argv[1:5]
with open(path) as f:
    doc = json.load(f)
ctx = doc.get("context", {})

# name = <tier>/<kernel>/<type>/n:<n>[/<shape>]
KERNELS = ["softmax", "log_softmax", "scores", "rmsnorm", "entropy", "softmax_jvp", "attention"]
TYPES = ["f32", "f64", "f16", "bf16"]
ORDER = ["mpfr200", "dd", "mpfi256", "tiered"]  # other tiers follow in the order they ran
rate = {}     # (tier, kernel, type, n) -> rows/s
cert = {}     # (kernel, type, n) -> tiered oracle's certified fractions (double, dd, mpfr, mpfi, none)
shapes = {}   # kernel -> shape string
tiers = []
for b in doc["benchmarks"]:
    if b.get("run_type", "iteration") != "iteration" or "error_occurred" in b:
        continue
    parts = b["name"].split("/")
    tier, kernel, ty, n = parts[0], parts[1], parts[2], int(parts[3].split(":")[1])
    if len(parts) > 4:
        shapes[kernel] = parts[4]
    rate[(tier, kernel, ty, n)] = b["items_per_second"]
    if "cert_dd" in b:
        cert[(kernel, ty, n)] = tuple(b.get(c, 0) for c in ("cert_double", "cert_dd", "cert_mpfr", "cert_mpfi", "uncertified"))
    if tier != "plain" and tier not in tiers:
        tiers.append(tier)
ran = list(tiers)
tiers.sort(key=lambda t: (ORDER.index(t) if t in ORDER else len(ORDER), ran.index(t)))

def fmt_rate(r):
    if r is None:
        return "-"
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if r >= scale:
            return f"{r / scale:.3g}{unit}"
    return f"{r:.3g}"

def fmt_ratio(r):
    if r is None:
        return "-"
    return f"{r:,.0f}x" if r >= 100 else f"{r:.3g}x"

header = ["kernel", "type", "n", "plain rows/s"]
for t in tiers:
    header += [f"{t} rows/s", f"{t}/plain"]
if cert:
    header += ["tiered cert % double/dd/mpfr/mpfi/none"]
rows = []
for k in KERNELS + sorted({k for (_, k, _, _) in rate} - set(KERNELS)):
    for ty in TYPES:
        for n in sorted({n for (_, kk, tt, n) in rate if kk == k and tt == ty}):
            plain = rate.get(("plain", k, ty, n))
            row = [k, ty, str(n), fmt_rate(plain)]
            for t in tiers:
                o = rate.get((t, k, ty, n))
                row += [fmt_rate(o), fmt_ratio(plain / o if plain and o else None)]
            if cert:
                c = cert.get((k, ty, n))
                row.append("/".join(f"{100 * v:.3g}" for v in c) if c else "-")
            rows.append(row)

cpu = "?"
try:
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
except OSError:
    pass
print(f"machine: nproc {len(os.sched_getaffinity(0))}, CPU {cpu} "
      f"({ctx.get('num_cpus', '?')} x {ctx.get('mhz_per_cpu', '?')} MHz), date {ctx.get('date', '?')}")
print(f"library build type: {ctx.get('library_build_type', '?')} (Google Benchmark itself); "
      f"attncheck_bench: Release; --benchmark_min_time={min_time}; run took {elapsed} s, "
      f"load average before it {load}")
print("rows/s: rows of length n per CPU-second; scores/attention: query rows, shapes "
      + ", ".join(f"{k} {s}" for k, s in sorted(shapes.items())))
print("<tier>/plain: oracle time per row divided by plain kernel time per row, same inputs")
if cert:
    print("tiered cert %: share of output elements certified by the tiered oracle's double, dd, mpfr, mpfi "
          "tier, and left uncertified")
print()
w = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
line = lambda r: "  ".join(c.ljust(w[i]) if i < 2 else c.rjust(w[i]) for i, c in enumerate(r))
print(line(header))
print("  ".join("-" * x for x in w))
for r in rows:
    print(line(r))

# The issue's goal: the tiered oracle at most 20x the plain f32 softmax.
goal = [t for t in tiers if t.startswith("tiered")]
if goal:
    print()
    for t in goal:
        for n in sorted({n for (tt, k, ty, n) in rate if tt == t and k == "softmax" and ty == "f32"}):
            plain, o = rate.get(("plain", "softmax", "f32", n)), rate.get((t, "softmax", "f32", n))
            if plain and o:
                ratio = plain / o
                verdict = "meets" if ratio <= 20 else "misses"
                print(f"goal: {t} softmax f32 n={n}: {fmt_rate(o)} rows/s vs plain {fmt_rate(plain)} rows/s "
                      f"= {fmt_ratio(ratio)} ({verdict} the <= 20x goal)")
PY
