#!/usr/bin/env bash
# attncheck: doctest case names must not contain ';'. CTest's doctest discovery splits a name at
# ';' into several tests whose filters match nothing, so they "pass" in milliseconds without
# running (a silent pass, seen once in tests/audit/audit_test.cpp).
#   tools/check-test-names.sh DIR...   exit 1 and list the offending lines if any
set -uo pipefail
hits=$(grep -rnE 'TEST_CASE\("[^"]*;' "$@" --include='*.cpp' --include='*.hpp' || true)
if [ -n "$hits" ]; then
  echo "test names with ';' (CTest splits them and runs nothing):"
  echo "$hits"
  exit 1
fi
echo "no test name contains ';'"
