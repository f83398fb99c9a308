#!/usr/bin/env bash
# attncheck: tests/stems/check_stems.sh must be able to fail. On a copy of the stem files it passes;
# with one file removed (falsify/mutants/qk_norm.cpp) it must exit 1 naming that file, and with a
# file declared absent that exists (proofs/coq/LogSumExp.v planted) it must exit 1 too.
# Usage: tests/stems/check_stems_catches.sh [ROOT]
set -uo pipefail
root="${1:-$(cd "$(dirname "$0")/../.." && pwd)}"
check="$(cd "$(dirname "$0")" && pwd)/check_stems.sh"
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/falsify/mutants" "$tmp/proofs/coq" "$tmp/harnesses"
cp -r "$root/contracts" "$tmp/"
cp "$root"/falsify/*.cpp "$tmp/falsify/"; cp "$root"/falsify/mutants/*.cpp "$tmp/falsify/mutants/"
cp "$root"/proofs/*.tex "$tmp/proofs/"; cp "$root"/proofs/coq/*.v "$tmp/proofs/coq/"
cp "$root"/harnesses/*.cpp "$tmp/harnesses/"
bash "$check" "$tmp" || { echo "FAIL: the complete copy does not pass"; exit 1; }
rm "$tmp/falsify/mutants/qk_norm.cpp"
out="$(bash "$check" "$tmp")"; rc=$?; echo "$out"
[ $rc -eq 1 ] && grep -q 'contracts/qk-norm-v1.yaml:1: qk-norm-v1 has no falsify/mutants/qk_norm.cpp' <<<"$out" ||
  { echo "FAIL: a removed stem file is not reported"; exit 1; }
cp "$root/falsify/mutants/qk_norm.cpp" "$tmp/falsify/mutants/"
touch "$tmp/proofs/coq/LogSumExp.v"
out="$(bash "$check" "$tmp")"; rc=$?; echo "$out"
[ $rc -eq 1 ] && grep -q 'proofs/coq/LogSumExp.v exists but absent: declares it absent' <<<"$out" ||
  { echo "FAIL: a stale absent: declaration is not reported"; exit 1; }
echo "check-stems catches a missing stem file and a stale absent: declaration"
