#!/usr/bin/env bash
# attncheck: configures the main build tree DIR (default build/) the way CI builds it. Used by
# tools/run.sh, and by tools/sanitize.sh when it needs the main build's objects and DIR does not
# exist yet. Extra arguments go to cmake.
#
# C++ at -O1 without -g, C at -O2. The build is the longest phase of CI, and most of it is the
# optimiser on the property objects (falsify/), which the tests run but are not dominated by: their
# time is MPFR's, the solvers', the kernels' under audit. Measured on this suite (2026-11-29, GCC 12,
# 2 cores, idle): the whole build 943 s at -O1 against 1185 s at -O2 (falsify/attention_kernel.cpp
# 21 s against 37 s), the whole CTest suite 1042 s against 934 s, of which 77 s were the exhaustive
# axiom validation alone (src/attncheck/bmc/axioms.cpp, compiled at -O2 for that reason:
# CMakeLists.txt). Floating-point semantics do not depend on the level (-ffp-contract=off, no
# -ffast-math: CMakeLists.txt), so the verdicts are the same bits. No -g (20 % of the build, CI
# reads no debug info). The C test kernels (tests/audit/*.c) stay at -O2: they stand for
# third-party libraries as shipped. Benchmarks build their own -O3 tree (tools/bench.sh); for a
# debugger, configure build/ yourself with RelWithDebInfo.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
shift || true
exec cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" "$@"
