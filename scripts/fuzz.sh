#!/usr/bin/env bash
# Fuzz every parser of untrusted text with libFuzzer (clang, ASan+UBSan):
# the console judge, the guest's function_graph parser, the matrix and
# arch YAML loader, and the run-directory records (nmx result, run_load,
# the reports).
#
#   scripts/fuzz.sh [--runs N] [--record] [TARGET...]   (default: 1000000, all)
#
# Seeds come from the recorded logs, traces, data files and runs of the
# tests; the growing corpus is kept in tests/fuzz/corpus/ (not committed).
# A crash, leak or timeout leaves its input in tests/fuzz/artifacts/ and
# makes the script exit 1. Prints one figure line per target; --record
# appends them to benchmarks/fuzz-figures.md.
# The seed_* functions are called by name (fuzz_target: "seed_$name").
# shellcheck disable=SC2317
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
SEP=$'\n--8<--\n'

seed_judge() {
	local f n=0
	for f in "$TOP"/tests/console/*.log "$TOP"/tests/report/runs/*/*/*/boot.log; do
		cp "$f" "$1/log-$((n += 1)).log"
		# The guest's part too: inputs are cut at -max_len.
		sed -n '/^Run \/init/,$p' "$f" >"$1/guest-$n.log"
	done
}

seed_fgraph() {
	local f n=0
	cp "$TOP"/tests/fgraph/*.txt "$1"/
	for f in "$TOP"/tests/report/runs/all-pass/*/*/guest/{trace,scenario}-*.txt; do
		cp "$f" "$1/run-$((n += 1)).txt"
	done
}

seed_matrix() {
	local a m n=0
	for m in "$TOP/matrix.yaml" "$TOP"/tests/matrix/*.yaml; do
		for a in "$TOP"/arches/*.yaml "$TOP"/tests/fake-tree/arches/*.yaml; do
			{ cat "$m"; printf '%s' "$SEP"; cat "$a"; } >"$1/seed-$((n += 1)).yaml"
		done
	done
}

seed_rundir() {
	cp "$TOP"/tests/fuzz/seeds/rundir/* "$1"/
}

# fuzz_target NAME RUNS: prints "NAME: N runs in S s, E exec/s, result".
fuzz_target() {
	local name=$1 runs=$2 corpus=$TOP/tests/fuzz/corpus/$1 log rc=0 figure
	local artifacts=$TOP/tests/fuzz/artifacts/$1/
	mkdir -p "$corpus" "$artifacts"
	[ -n "$(ls -A "$corpus")" ] || "seed_$name" "$corpus"
	log=$(mktemp)
	# -close_fd_mask=3: the tools' own messages about bad input would
	# flood the log (and slow the run); libFuzzer and the sanitizers keep
	# reporting on a copy of stderr.
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
		"$TOP/tools/nmx/fuzz/$name" -runs="$runs" -timeout=10 \
		-rss_limit_mb=2048 -max_len=8192 -print_final_stats=1 \
		-close_fd_mask=3 -artifact_prefix="$artifacts" "$corpus" >"$log" 2>&1 || rc=$?
	local done_line execs secs
	done_line=$(grep -E '^Done [0-9]+ runs in [0-9]+ second' "$log" || true)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
	secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log")
	if [ "$rc" -eq 0 ] && [ -n "$done_line" ]; then
		figure=$(printf '%s: %s runs in %s s, %s exec/s, corpus %s, 0 crashes, 0 leaks, 0 timeouts' \
			"$name" "${execs:-?}" "${secs:-?}" \
			"$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")" \
			"$(find "$corpus" -type f | wc -l)")
		echo "$figure"
		[ "$RECORD" -eq 0 ] ||
			printf '| %s | %s |\n' "$(date -u +%Y-%m-%d)" "$figure" >>"$TOP/benchmarks/fuzz-figures.md"
		rm -f "$log"
		return 0
	fi
	printf '%s: FAILED (exit %s); log %s, inputs in %s\n' "$name" "$rc" "$log" "$artifacts"
	grep -m3 -E 'ERROR: |runtime error|SUMMARY' "$log" || true
	return 1
}

RECORD=0

main() {
	local runs=1000000 target failed=0
	local -a targets=()
	while [ $# -gt 0 ]; do
		case $1 in
		--runs) runs=$2; shift 2 ;;
		--record) RECORD=1; shift ;;
		judge | fgraph | matrix | rundir) targets+=("$1"); shift ;;
		*) echo "usage: $0 [--runs N] [--record] [judge|fgraph|matrix|rundir]..." >&2; exit 2 ;;
		esac
	done
	[ "${#targets[@]}" -gt 0 ] || targets=(judge fgraph matrix rundir)
	"$TOP/scripts/install-deps.sh" --tests || exit 2
	make -s -C "$TOP/tools/nmx" fuzz
	for target in "${targets[@]}"; do
		fuzz_target "$target" "$runs" || failed=1
	done
	exit "$failed"
}

main "$@"
