#!/usr/bin/env bash
# Shows that check_html.sh can fail: it must reject each broken copy of a good report below
#   check_html_catches.sh GOOD.html PLOT-ID...
# (a plot hidden so it renders nothing, a script error, a plot id the page lacks, a page whose
# plots all render but that shows nothing: only the screenshot check sees that one, and a page
# whose plots come before its failures).
set -uo pipefail
here="$(dirname "$0")"
good="$1"
shift
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

expect_rejected() {  # name regex page ids...
  local name="$1" regex="$2" page="$3"
  shift 3
  local out
  out="$(bash "$here/check_html.sh" "$page" "$@" 2>&1)"
  if [ $? -eq 0 ]; then
    echo "check_html_catches: check_html.sh accepted the $name page" >&2
    return 1
  fi
  if ! grep -Eq -- "$regex" <<<"$out"; then
    echo "check_html_catches: $name page rejected for another reason than /$regex/:" >&2
    printf '%s\n' "$out" >&2
    return 1
  fi
  echo "check_html_catches: $name page rejected as expected"
}

sed 's|</head>|<style>#'"$1"' svg { display: none; }</style></head>|' "$good" >"$work/hidden.html"
sed 's|</body>|<script>window.addEventListener("load", function () { undefinedFunction(); });</script></body>|' \
  "$good" >"$work/error.html"
sed 's|</head>|<style>body { visibility: hidden; }</style></head>|' "$good" >"$work/blank.html"
# The plots moved to the top, before the failures: the order check must reject it.
python3 - "$good" "$work/plots-first.html" <<'PY'
import sys
page = open(sys.argv[1], encoding="utf-8").read()
plots = page.index('<h2 id="plots">')
end = page.index("</body>")
first = page.index('<h2 id="failures">')
page = page[:first] + page[plots:end] + page[first:plots] + page[end:]
open(sys.argv[2], "w", encoding="utf-8").write(page)
PY
failed=0
# The order check reads the DOM Chromium dumps, whose order is the page's: it is shown to fail on
# the page itself, without launching the browser twice more.
if python3 "$here/html_order.py" "$work/plots-first.html" >/dev/null 2>"$work/order.txt"; then
  echo "check_html_catches: html_order.py accepted the plots-first page" >&2
  failed=1
elif ! grep -q "the plots come before the verdict table" "$work/order.txt"; then
  echo "check_html_catches: plots-first page rejected for another reason:" >&2
  cat "$work/order.txt" >&2
  failed=1
else
  echo "check_html_catches: plots-first page rejected as expected"
fi
expect_rejected "blank" "the screenshot is blank" "$work/blank.html" "$@" || failed=1
expect_rejected "hidden-plot" "plot $1 is in the page but did not render" "$work/hidden.html" "$@" || failed=1
expect_rejected "script-error" "Uncaught ReferenceError" "$work/error.html" "$@" || failed=1
expect_rejected "missing-plot" "plot plot-not-in-the-page is missing" "$good" "$@" plot-not-in-the-page || failed=1
exit $failed
