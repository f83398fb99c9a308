#!/usr/bin/env bash
# Shows that check_docs.py can fail: on planted copies of the documents, each with one fault (a
# link to a missing file, a link to a missing heading, a path in docs/architecture.md that does
# not exist, a README of 15 KB), it must exit 1 and name the fault; on the unbroken copy it must
# pass.
#   check_docs_catches.sh PYTHON3
set -uo pipefail
python="$1"
checker="$(dirname "$0")/check_docs.py"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
status=0

# A small, valid tree: a README linking into docs/, an architecture page naming real paths.
plant() {
  rm -rf "$work/tree" && mkdir -p "$work/tree/docs" "$work/tree/src/attncheck/kernels"
  touch "$work/tree/src/attncheck/kernels/softmax.hpp"
  printf '# t\n\nSee [the architecture](docs/architecture.md#folders).\n' >"$work/tree/README.md"
  printf '# Architecture\n\n## Folders\n\n`src/attncheck/kernels/softmax.hpp` and [home](../README.md).\n' \
    >"$work/tree/docs/architecture.md"
}

# expect_fault NAME MESSAGE-REGEX: the checker must fail on $work/tree and print MESSAGE-REGEX.
expect_fault() {
  out="$("$python" "$checker" "$work/tree" 2>&1)"
  rc=$?
  if [ $rc -ne 1 ] || ! grep -qE "$2" <<<"$out"; then
    echo "check_docs_catches: $1 not caught (exit $rc, wanted 1 and /$2/):" >&2
    printf '%s\n' "$out" >&2
    status=1
  else
    echo "check_docs_catches: $1 caught: $(grep -E "$2" <<<"$out" | head -1)"
  fi
}

plant
if ! out="$("$python" "$checker" "$work/tree" 2>&1)"; then
  echo "check_docs_catches: the unbroken planted tree fails, so the faults below prove nothing:" >&2
  printf '%s\n' "$out" >&2
  exit 1
fi

plant
printf '\nOptions: [gate](docs/no-such-page.md).\n' >>"$work/tree/README.md"
expect_fault "a link to a missing file" '^README\.md:[0-9]+: link to docs/no-such-page\.md: docs/no-such-page\.md does not exist$'

plant
printf '\nMore: [x](architecture.md#no-such-heading)\n' >>"$work/tree/docs/architecture.md"
expect_fault "a link to a missing heading" '^docs/architecture\.md:[0-9]+: link to architecture\.md#no-such-heading: .* has no heading #no-such-heading$'

plant
printf '\nThe kernels: `src/attncheck/kernels/sofmtax.hpp`.\n' >>"$work/tree/docs/architecture.md"
expect_fault "a missing path in docs/architecture.md" '`src/attncheck/kernels/sofmtax\.hpp` names a path that does not exist'

plant
head -c 15000 /dev/zero | tr '\0' 'x' >>"$work/tree/README.md"
expect_fault "a README of 15 KB" '^README\.md: [0-9]+ bytes, the limit is under 15000$'
exit $status
