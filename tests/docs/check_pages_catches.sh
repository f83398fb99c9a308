#!/usr/bin/env bash
# Shows that check_pages.sh can fail: after one formula in a copy of the contracts changes, the
# committed pages no longer match and the check must say so.
#   check_pages_catches.sh ATTNCHECK CONTRACTS-DIR COMMITTED-PAGES-DIR
set -uo pipefail
attncheck="$1" contracts="$2" committed="$3"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cp -r "$contracts" "$work/contracts"
sed -i 's|formula: "S = Q Kᵀ / √d_k|formula: "S = Q Kᵀ / d_k|' "$work/contracts/attention-scaling-v1.yaml"
if cmp -s "$contracts/attention-scaling-v1.yaml" "$work/contracts/attention-scaling-v1.yaml"; then
  echo "check_pages_catches: the edit did not apply (formula changed?): update this script" >&2
  exit 1
fi
out="$(bash "$(dirname "$0")/check_pages.sh" "$attncheck" "$work/contracts" "$committed" 2>&1)"
if [ $? -eq 0 ]; then
  echo "check_pages_catches: check_pages.sh accepted pages that no longer match the YAML" >&2
  exit 1
fi
if ! grep -qF '+S=QK^{\top}/d_{k},' <<<"$out"; then
  echo "check_pages_catches: rejected, but the diff does not show the edited formula:" >&2
  printf '%s\n' "$out" >&2
  exit 1
fi
echo "check_pages_catches: an edited formula is caught"
