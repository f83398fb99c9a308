#!/usr/bin/env bash
# Runs a command and checks its exit status and that its output (stdout and stderr merged) matches
# an extended regular expression: `expect.sh STATUS REGEX -- COMMAND...`. CTest's own
# PASS_REGULAR_EXPRESSION ignores the exit status, and these tests are about both.
set -uo pipefail
want_status="$1" regex="$2"
shift 2
[ "$1" = "--" ] && shift
output="$("$@" 2>&1)"
status=$?
printf '%s\n' "$output"
if [ "$status" != "$want_status" ]; then
  echo "expect.sh: exit status $status, expected $want_status" >&2
  exit 1
fi
# Bash's =~ matches the whole output as one string, so a regex may span lines (CMake turns "\n" in
# a test argument into a real newline).
if ! [[ "$output" =~ $regex ]]; then
  echo "expect.sh: output does not match /$regex/" >&2
  exit 1
fi
