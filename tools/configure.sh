#!/usr/bin/env bash
# attncheck: configures the main build tree DIR (default build/) the way CI builds it. Used by
# tools/run.sh, and by tools/sanitize.sh when it needs the main build's objects and DIR does not
# exist yet. Extra arguments go to cmake.
#
# -O2 as RelWithDebInfo, without its -g: the same code, and the build (the longest phase of CI)
# 20 % faster (measured on falsify/softmax_jvp.cpp, GCC 12: 46 s with -g, 37 s without). CI
# reads no debug info; for a debugger, configure build/ yourself with RelWithDebInfo.
set -euo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
shift || true
exec cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_FLAGS_RELEASE="-O2 -DNDEBUG" \
  -DCMAKE_C_FLAGS_RELEASE="-O2 -DNDEBUG" "$@"
