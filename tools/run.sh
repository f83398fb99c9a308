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

bash tools/install-deps.sh
build="${ATTNCHECK_BUILD_DIR:-build}"
jobs="$(nproc)"
cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" -j "$jobs"

if [ "$what" = gate ]; then
  exec "$build/attncheck" gate "$@"
else
  cd "$build"
  exec ctest --output-on-failure -j "$jobs" "$@"
fi
