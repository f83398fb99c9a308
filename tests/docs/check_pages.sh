#!/usr/bin/env bash
# Regenerates the contract pages from the YAML into a temporary directory and compares them with
# the committed ones, so docs/contracts/ always says what contracts/ says:
#   check_pages.sh ATTNCHECK CONTRACTS-DIR COMMITTED-PAGES-DIR
# The committed pages are generated with --no-status (status columns depend on a build and a run).
set -uo pipefail
attncheck="$1" contracts="$2" committed="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
"$attncheck" --contracts "$contracts" docs --no-status --out "$work/pages" >/dev/null || exit 1
if ! diff -ru "$committed" "$work/pages"; then
  echo "check_pages: $committed does not match the YAML in $contracts; regenerate it with" >&2
  echo "  attncheck --contracts $contracts docs --no-status --out $committed" >&2
  exit 1
fi
echo "check_pages: $(ls "$work/pages" | wc -l) pages in $committed match the YAML"
