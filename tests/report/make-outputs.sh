#!/usr/bin/env bash
# Produce, into OUT_DIR, what the golden files of the reports hold:
# <case>/{report.html,report.md,junit.xml,kcidb.json,summary.json} for every recorded
# run under tests/report/runs/, and compare-<name>.txt (with its exit
# status on the last line) for every line of tests/report/compare-cases.
#
#   tests/report/make-outputs.sh OUT_DIR
#
# Used by tests/regen-golden.sh (OUT_DIR = tests/golden/report) and by the
# unit tests, which diff a fresh OUT_DIR against the golden one.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
NMX=$HERE/../../tools/nmx/nmx

report_case() { # case out
	local run=$TMP/$1 base=() f
	cp -r "$HERE/runs/$1" "$run"
	if [ -f "$HERE/runs/$1.baseline" ]; then
		base=(--baseline "$HERE/runs/$(cat "$HERE/runs/$1.baseline")")
	fi
	"$NMX" report "${base[@]}" "$run"
	# Its exit says the run's verdict, not whether summary.json was written.
	"$NMX" summary "$run" || true
	mkdir -p "$2/$1"
	for f in report.html report.md junit.xml kcidb.json summary.json; do
		cp "$run/$f" "$2/$1/$f"
	done
}

compare_case() { # name args... (run directories relative to runs/)
	local name=$1 rc=0 arg
	local -a args=()
	shift
	for arg in "$@"; do
		if [ -d "$HERE/runs/$arg" ]; then
			args+=("$HERE/runs/$arg")
		else
			args+=("$arg")
		fi
	done
	"$NMX" compare "${args[@]}" >"$OUT/compare-$name.txt" || rc=$?
	echo "exit $rc" >>"$OUT/compare-$name.txt"
}

main() {
	local dir name rest
	[ $# -eq 1 ] || { echo "usage: $0 OUT_DIR" >&2; exit 2; }
	OUT=$1
	mkdir -p "$OUT"
	TMP=$(mktemp -d)
	trap 'rm -rf "$TMP"' EXIT
	make -s -C "$HERE/../../tools/nmx"
	for dir in "$HERE"/runs/*/; do
		report_case "$(basename "$dir")" "$OUT"
	done
	while IFS=: read -r name rest; do
		case $name in '' | '#'*) continue ;; esac
		# shellcheck disable=SC2086 # the arguments are words
		compare_case "$name" $rest
	done <"$HERE/compare-cases"
}

main "$@"
