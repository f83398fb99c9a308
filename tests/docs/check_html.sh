#!/usr/bin/env bash
# Opens an HTML report in a real headless Chromium and checks that it rendered:
#   check_html.sh REPORT.html PLOT-ID...
# - every named plot is a <figure class="plot"> whose SVG has a non-empty rendered box (the page's
#   self-check script marks it data-rendered="yes" after load);
# - the page drew exactly as many plots as named (no plot missing, none unexpected);
# - the browser console holds nothing but the self-check's own line: an uncaught exception, a
#   console.error, or a Content-Security-Policy violation (a network fetch) all fail the test.
#   Chromium logs every console message at INFO level, so "anything else" is the only sound rule;
#   the self-check line must be present, which shows console capture works.
# - the reading order (html_order.py): failures (the first block and its replay line, then the summary), verdicts, plots.
# - a screenshot of the page (Chromium's --screenshot, the top 1000x1600 pixels: the header, the
#   summary and the first plots) is not blank: png_not_blank.py wants more than one colour and at
#   least 0.5% of the pixels off the background, so a page that renders but shows nothing fails.
# Runs as root in CI: --no-sandbox is required there (Chromium refuses to start sandboxed as root).
set -uo pipefail
html="$1"
shift
expected=("$@")

browser="${CHROMIUM:-}"
if [ -z "$browser" ]; then
  for b in chromium chromium-browser google-chrome; do
    if command -v "$b" >/dev/null; then browser="$b"; break; fi
  done
fi
if [ -z "$browser" ]; then
  echo "check_html: no Chromium found: install Debian's chromium (tools/install-deps.sh) or set CHROMIUM" >&2
  exit 1
fi
if [ ! -s "$html" ]; then
  echo "check_html: $html is missing or empty" >&2
  exit 1
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# --virtual-time-budget lets the load event and its handler run before the DOM is dumped.
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --user-data-dir="$work/profile" --enable-logging=stderr --v=0 --virtual-time-budget=10000 \
  --dump-dom "file://$(realpath "$html")" >"$work/dom.html" 2>"$work/log.txt"
status=$?
if [ $status -ne 0 ]; then
  echo "check_html: $browser exited with status $status" >&2
  tail -20 "$work/log.txt" >&2
  exit 1
fi

failed=0
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
  --user-data-dir="$work/profile-shot" --hide-scrollbars --window-size=1000,1600 --virtual-time-budget=10000 \
  --screenshot="$work/shot.png" "file://$(realpath "$html")" >"$work/shot-log.txt" 2>&1
if [ ! -s "$work/shot.png" ]; then
  echo "check_html: $browser wrote no screenshot" >&2
  tail -20 "$work/shot-log.txt" >&2
  failed=1
elif ! command -v python3 >/dev/null; then
  echo "check_html: python3 is needed to check the screenshot (tools/install-deps.sh installs it)" >&2
  failed=1
elif ! python3 "$(dirname "$0")/png_not_blank.py" "$work/shot.png" >"$work/shot-check.txt" 2>&1; then
  echo "check_html: the screenshot is blank or unreadable:" >&2
  cat "$work/shot-check.txt" >&2
  failed=1
fi
canary="$(grep -o '"attncheck-report: [0-9]* of [0-9]* plots rendered"' "$work/log.txt" | head -1)"
if [ -z "$canary" ]; then
  echo "check_html: the page's self-check did not log (script blocked or console capture broken)" >&2
  failed=1
fi
others="$(grep 'CONSOLE' "$work/log.txt" | grep -v '"attncheck-report: [0-9]* of [0-9]* plots rendered"')"
if [ -n "$others" ]; then
  echo "check_html: console errors or messages:" >&2
  printf '%s\n' "$others" >&2
  failed=1
fi
for id in "${expected[@]}"; do
  if ! grep -Eq "<figure class=\"plot\" id=\"$id\"[^>]*data-rendered=\"yes\"" "$work/dom.html"; then
    if grep -q "id=\"$id\"" "$work/dom.html"; then
      echo "check_html: plot $id is in the page but did not render (empty SVG box)" >&2
    else
      echo "check_html: plot $id is missing from the page" >&2
    fi
    failed=1
  fi
done
drawn="$(grep -o 'data-plots-rendered="[0-9]*"' "$work/dom.html" | grep -o '[0-9]*')"
figures="$(grep -o '<figure class="plot"' "$work/dom.html" | wc -l)"
if [ "${drawn:-x}" != "${#expected[@]}" ] || [ "$figures" != "${#expected[@]}" ]; then
  echo "check_html: ${drawn:-no} of $figures plots rendered, expected ${#expected[@]} (${expected[*]})" >&2
  failed=1
fi
# The reading order (issue 32): a failing report opens on its failures, the plots come last and
# each says which question it answers.
if ! python3 "$(dirname "$0")/html_order.py" "$work/dom.html" >"$work/order.txt" 2>&1; then
  echo "check_html: the page is out of reading order:" >&2
  cat "$work/order.txt" >&2
  failed=1
fi
[ $failed -eq 0 ] && echo "check_html: $html rendered in $browser: ${#expected[@]} plots, no console messages, $(cat "$work/order.txt"), $(cat "$work/shot-check.txt")"
exit $failed
