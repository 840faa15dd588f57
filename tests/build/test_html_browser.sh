#!/usr/bin/env bash
# report.html, index.html and compare.html in a real browser (Debian's
# chromium, headless, offline): each page's own self-check must pass (every
# chart drawn with a size, no script or console error, no network request),
# and screenshots are left in $OUT/html-test/ to look at (desktop and phone
# widths) with a PDF of the print stylesheet.
set -uo pipefail
cd "$(dirname "$0")/../.."
OUT=${OUT:-out}
bin=$OUT/probestick
browser=$(command -v chromium || command -v chromium-browser || true)
[ -x "$bin" ] || { echo "skip: needs $bin: run make first"; exit 77; }
[ -n "$browser" ] || { echo "skip: chromium is not installed (scripts/deps.sh)"; exit 77; }
t=$OUT/html-test
rm -rf "$t"
mkdir -p "$t/stick/reports"
fails=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# Pages from recorded reports, as the stick holds them.
R=tests/fixtures/core/reports
run_dir() { # MACHINE STAMP FIXTURE
	local d=$t/stick/reports/$1/$2
	mkdir -p "$d"
	cp "$R/$3" "$d/report.json"
	"$bin" show "$d" --format html >"$d/report.html" || fail "show --format html $3"
	"$bin" show "$d" | tail -n +2 >"$d/report.txt"
	echo "$d"
}
a=$(run_dir 525400500001 20261201T122346Z-quick healthy-v2.json)
b=$(run_dir 525400500001 20261201T122522Z-quick nomodule-v2.json)
run_dir 4c4c4544-0042-3510-8057-b7c04f4a3332 20261129T203708Z-quick full.json >/dev/null
mkdir -p "$t/stick/reports/4c4c4544-0042-3510-8057-b7c04f4a3332/20261130T080000Z-quick"
cp "$R/truncated.json" "$t/stick/reports/4c4c4544-0042-3510-8057-b7c04f4a3332/20261130T080000Z-quick/report.json"
"$bin" compare "$a" "$b" --html "$t/stick/reports/compare.html" >"$t/compare.txt" || fail "compare"
"$bin" index "$t/stick" >/dev/null || fail "probestick index"
# A page with a step no renderer knows (a histogram, a surface map): from the unit test.
if [ ! -s "$OUT/tests/html/surface.html" ]; then
	tests/unit/build-and-run.sh tests/unit/test_render_html.c "$OUT/tests/test_render_html" >/dev/null 2>&1 ||
		fail "tests/unit/test_render_html.c"
fi
cp "$OUT/tests/html/surface.html" "$t/surface.html" 2>/dev/null || fail "no surface.html"

chrome() { # OUTPUT-OPTIONS... URL
	timeout 120 "$browser" --headless --no-sandbox --disable-gpu --disable-background-networking \
		--disable-component-update --disable-sync --no-first-run --disable-extensions \
		--host-resolver-rules="MAP * ~NOTFOUND" --user-data-dir="$t/profile" \
		--virtual-time-budget=5000 "$@" 2>>"$t/chromium.log"
}

check_page() { # NAME FILE [MIN_CHARTS]
	local name=$1 file=$2 min=${3:-0} dom charts
	dom=$(chrome --dump-dom "file://$PWD/$file")
	echo "$dom" >"$t/$name.dom.html"
	if ! grep -q 'id="selfcheck" data-result="pass"' <<<"$dom"; then
		fail "$name: the page's self-check did not pass: $(grep -o '<p id="selfcheck"[^<]*' <<<"$dom")"
		return
	fi
	charts=$(grep -o 'data-charts="[0-9]*"' <<<"$dom" | grep -o '[0-9]*')
	[ "${charts:-0}" -ge "$min" ] || fail "$name: $charts charts, expected at least $min"
	echo "ok: $name: $(grep -o 'self-check passed[^<]*' <<<"$dom")"
}

# The recorded runs' nic_tput has no view since it became nic_loop: its compare chart is gone.
check_page report "$a/report.html" 8
# 5: a series of fewer than 4 points is a note, not a chart (render_html.c series())
check_page report-nomodule "$b/report.html" 5
check_page report-v1 "$t/stick/reports/4c4c4544-0042-3510-8057-b7c04f4a3332/20261129T203708Z-quick/report.html"
check_page surface "$t/surface.html" 11
check_page index "$t/stick/reports/index.html"
check_page compare "$t/stick/reports/compare.html" 1

# The pages asked the network for nothing: the browser's own log has no blocked request.
if grep -qi 'Refused to load\|net::ERR_NAME_NOT_RESOLVED' "$t/chromium.log"; then
	fail "a page tried to load something: $(grep -i 'Refused to load\|ERR_NAME' "$t/chromium.log" | head -3)"
fi

# The self-check can fail: a page that fetches an image and hides a chart.
sed 's|<p id="selfcheck"|<img src="http://example.invalid/x.png" alt=""><div style="display:none"><svg class="chart" viewBox="0 0 10 10"></svg></div>&|' \
	"$a/report.html" >"$t/broken.html"
dom=$(chrome --dump-dom "file://$PWD/$t/broken.html")
if grep -q 'data-result="fail"' <<<"$dom" && grep -q '1 without a size' <<<"$dom" &&
	grep -q '[1-9] network requests' <<<"$dom"; then
	echo "ok: broken page: $(grep -o 'self-check FAILED[^<]*' <<<"$dom")"
else
	fail "the self-check passed a page that fetches an image and hides a chart: $(grep -o '<p id="selfcheck"[^<]*' <<<"$dom")"
fi

# What a person sees: a laptop and a phone, and the printed page.
chrome --hide-scrollbars --window-size=1000,2600 --screenshot="$t/report-desktop.png" "file://$PWD/$a/report.html" >/dev/null
chrome --hide-scrollbars --window-size=390,1800 --screenshot="$t/report-phone.png" "file://$PWD/$a/report.html" >/dev/null
chrome --hide-scrollbars --window-size=1000,1400 --screenshot="$t/surface.png" "file://$PWD/$t/surface.html" >/dev/null
chrome --hide-scrollbars --window-size=1000,900 --screenshot="$t/index.png" "file://$PWD/$t/stick/reports/index.html" >/dev/null
chrome --hide-scrollbars --window-size=1000,1600 --screenshot="$t/compare.png" "file://$PWD/$t/stick/reports/compare.html" >/dev/null
chrome --print-to-pdf="$t/report.pdf" --no-pdf-header-footer "file://$PWD/$a/report.html" >/dev/null
for f in report-desktop.png report-phone.png surface.png index.png compare.png report.pdf; do
	[ -s "$t/$f" ] || fail "no $f"
done
echo "report.html of the quick plan (healthy-v2): $(stat -c %s "$a/report.html") bytes; screenshots in $t"
[ $fails -eq 0 ] || { echo "$fails problem(s)"; exit 1; }
echo "all pages pass their self-check in $("$browser" --version 2>/dev/null)"
