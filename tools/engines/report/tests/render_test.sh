#!/usr/bin/env bash
# The report renders in headless Chromium: the DOM Chromium builds holds every section and every
# inline SVG plot of the file, and a screenshot is produced. Skipped (exit 77, the reason
# printed) where Chromium is not installed.
# Usage: render_test.sh path/to/fpconform
set -u
bin=$(realpath "${1:?usage: render_test.sh fpconform}")
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [[ -z "$browser" ]]; then
  echo "SKIP: no chromium on PATH (Debian package chromium); the HTML report was not rendered"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$bin" report --out "$tmp/rep" --devices "$tmp/none" >"$tmp/report.log" 2>&1
rc=$?
[[ $rc -eq 0 ]] || { echo "FAIL: report exited $rc"; cat "$tmp/report.log"; exit 1; }  # 0 even with failing sections
flags=(--headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile")
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$tmp/rep/index.html" >"$tmp/dom.html" 2>"$tmp/chromium.log"
timeout 120 "$browser" "${flags[@]}" --window-size=1200,3000 --screenshot="$tmp/shot.png" \
  "file://$tmp/rep/index.html" >>"$tmp/chromium.log" 2>&1
fail=0
want_svg=$(grep -o "<svg" "$tmp/rep/index.html" | wc -l)
got_svg=$(grep -o "<svg" "$tmp/dom.html" | wc -l)
if [[ $want_svg -lt 4 || $got_svg -ne $want_svg ]]; then echo "FAIL: $got_svg SVG elements in the DOM, $want_svg in the file"; fail=1; fi
for id in conversions arithmetic ecosystem scale-rules accumulation tolerances matrix-units devices; do
  grep -q "id=\"$id\"" "$tmp/dom.html" || { echo "FAIL: section $id missing from the DOM"; fail=1; }
done
size=$(stat -c %s "$tmp/shot.png" 2>/dev/null || echo 0)
if [[ $size -lt 20000 ]]; then echo "FAIL: screenshot of $size bytes"; cat "$tmp/chromium.log"; fail=1; fi
if grep -q "CONSOLE" "$tmp/chromium.log"; then echo "FAIL: console messages"; grep CONSOLE "$tmp/chromium.log"; fail=1; fi
[[ $fail -eq 0 ]] && echo "ok: $got_svg SVG plots, every section, screenshot of $size bytes"
exit $fail
