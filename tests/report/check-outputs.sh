#!/usr/bin/env bash
# Check the reports nmx report wrote into a run directory, as their
# readers would take them; prints TAP, exits 1 on any failure.
#
#   tests/report/check-outputs.sh RUN_DIR
#
# junit.xml: well-formed (xmllint). kcidb.json: valid against the KCIDB
# v5.3 schema (python3-jsonschema); summary.json against its schema
# (docs/schema/summary.schema.json). report.html: self-contained, and
# rendered by Debian's Chromium headless with no console message, a
# screenshot of the expected size taken. report.md: present.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# A copy of kcidb-io's schema (see tests/report/README.md).
SCHEMA=${NMX_KCIDB_SCHEMA:-$TOP/tests/report/kcidb-v5.3.schema.json}
SHOT_WIDTH=1280
SHOT_HEIGHT=2000
# A blank page makes a PNG of a few KiB; a rendered report many more.
SHOT_MIN_BYTES=20000
n=0
failures=0

result() { # ok|fail description [diagnostic file]
	n=$((n + 1))
	if [ "$1" = ok ]; then
		echo "ok $n $2"
	else
		echo "not ok $n $2"
		failures=$((failures + 1))
		[ -z "${3:-}" ] || sed 's/^/# /' "$3"
	fi
}

check_junit() {
	if xmllint --noout "$RUN/junit.xml" 2>"$TMP/xmllint"; then
		result ok "junit.xml is well-formed XML"
	else
		result fail "junit.xml is well-formed XML" "$TMP/xmllint"
	fi
}

# validate FILE SCHEMA DESCRIPTION: FILE against a JSON schema.
validate() {
	if [ ! -f "$2" ]; then
		echo "# $2 missing" >"$TMP/schema"
		result fail "$3" "$TMP/schema"
		return
	fi
	if /usr/bin/python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' \
		"$1" "$2" 2>"$TMP/validate"; then
		result ok "$3"
	else
		tail -n 5 "$TMP/validate" >"$TMP/validate.tail"
		result fail "$3" "$TMP/validate.tail"
	fi
}

check_kcidb() {
	validate "$RUN/kcidb.json" "$SCHEMA" "kcidb.json is valid KCIDB v5.3"
}

check_summary() {
	validate "$RUN/summary.json" "$TOP/docs/schema/summary.schema.json" \
		"summary.json is valid against docs/schema/summary.schema.json"
}

# Nothing fetched from anywhere: no script, stylesheet link, external
# image or font, no url() in the CSS.
check_self_contained() {
	if grep -Eino '<script|<link|<img|<iframe|src=|@import|url\(|href="(https?:)?//' \
		"$RUN/report.html" >"$TMP/external"; then
		result fail "report.html is self-contained" "$TMP/external"
	else
		result ok "report.html is self-contained"
	fi
}

chromium_run() {
	timeout -k 5 60 chromium --headless --no-sandbox --disable-gpu \
		--hide-scrollbars --enable-logging=stderr --v=0 \
		--user-data-dir="$TMP/profile" "$@" 2>>"$TMP/chromium.log"
}

check_rendered() {
	local png=$TMP/report.png size dims
	if ! command -v chromium >/dev/null; then
		echo "chromium missing (apt-get install chromium)" >"$TMP/nochromium"
		result fail "report.html renders in headless Chromium" "$TMP/nochromium"
		return
	fi
	: >"$TMP/chromium.log"
	chromium_run --window-size="$SHOT_WIDTH,$SHOT_HEIGHT" \
		--screenshot="$png" "file://$RUN/report.html" >/dev/null || true
	chromium_run --dump-dom "file://$RUN/report.html" >"$TMP/dom.html" || true
	if grep -E ':CONSOLE[:(]' "$TMP/chromium.log" >"$TMP/console"; then
		result fail "report.html: no console messages in Chromium" "$TMP/console"
	else
		result ok "report.html: no console messages in Chromium"
	fi
	if grep -q '<h2>Verdicts</h2>' "$TMP/dom.html" &&
		grep -q '<table class="grid">' "$TMP/dom.html"; then
		result ok "report.html: Chromium's DOM has the verdict grid"
	else
		tail -n 5 "$TMP/chromium.log" >"$TMP/dom.diag"
		result fail "report.html: Chromium's DOM has the verdict grid" "$TMP/dom.diag"
	fi
	size=$(stat -c %s "$png" 2>/dev/null || echo 0)
	dims=$(file -b "$png" 2>/dev/null | grep -o '[0-9]* x [0-9]*' || true)
	if [ "$dims" = "$SHOT_WIDTH x $SHOT_HEIGHT" ] && [ "$size" -ge "$SHOT_MIN_BYTES" ]; then
		result ok "report.html: screenshot $dims, $size bytes"
	else
		echo "screenshot: '${dims:-none}', $size bytes (want $SHOT_WIDTH x $SHOT_HEIGHT, >= $SHOT_MIN_BYTES)" >"$TMP/shot"
		result fail "report.html: screenshot of the rendered page" "$TMP/shot"
	fi
	[ -z "${NMX_KEEP_SCREENSHOT:-}" ] || cp "$png" "$NMX_KEEP_SCREENSHOT"
}

check_md() {
	if grep -q '^## notrace-matrix run ' "$RUN/report.md" 2>/dev/null; then
		result ok "report.md is present"
	else
		echo "report.md missing or without its heading" >"$TMP/md"
		result fail "report.md is present" "$TMP/md"
	fi
}

# Every relative link of report.html names a file of the run (only where
# the run's cell directories are there: not for reports copied alone).
check_links() {
	local link
	if ! compgen -G "$RUN/*/*/result.json" >/dev/null; then
		result ok "report.html's links to the cells' files # SKIP no cell directories here"
		return
	fi
	grep -o 'href="[^"#][^"]*"' "$RUN/report.html" | sed 's/^href="//; s/"$//' |
		while read -r link; do
			[ -e "$RUN/$link" ] || echo "dead link: $link"
		done >"$TMP/links"
	if [ -s "$TMP/links" ]; then
		result fail "report.html's links to the cells' files resolve" "$TMP/links"
	else
		result ok "report.html's links to the cells' files resolve"
	fi
}

main() {
	if [ $# -ne 1 ] || [ ! -d "$1" ]; then
		echo "usage: $0 RUN_DIR" >&2
		exit 2
	fi
	RUN=$(cd "$1" && pwd)
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	check_junit
	check_kcidb
	check_summary
	check_self_contained
	check_rendered
	check_links
	check_md
	[ "$failures" -eq 0 ]
}

main "$@"
