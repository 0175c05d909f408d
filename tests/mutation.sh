#!/usr/bin/env bash
# Mutation check of the tests: break the code a test guards, in a scratch
# copy of the checkout, and show that the test fails. A mutation that the
# tests do not notice is reported as SURVIVED (exit 1).
#
#   tests/mutation.sh [NAME...]
#
# Not part of tests/run.sh (it rebuilds nmx per mutation); its output is
# quoted in the closing notes of the issues that added the tests.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

# name @ file @ sed expression @ test file @ test filter
mutations=(
	"no-kernel-bug-entry@tools/nmx/kernel_reports.c@/\"kernel BUG at\", KR_ERROR/d@kernel_reports.bats@kernel-bug-at-arm64"
	"markers-not-counted@tools/nmx/console.c@s/v->nr_markers > 1/0/@console.bats@two PASS markers"
	"all-skipped-is-pass@tools/nmx/console.c@s/if (skipped == v->nr_tests) {/if (0) {/@console.bats@every subtest skipped"
	"trace-lines-are-reports@tools/nmx/console.c@s/if (!file || !is_trace_data(s))/if (1)/@console.bats@function names in a trace"
	"poweroff-noise-ignored@tools/nmx/kernel_reports.c@s/^\\t\\t\\treturn 1;\$/\\t\\t\\treturn 0;/@console.bats@power-off lines after the marker"
	"duplicates-allowed@tools/nmx/ydoc.c@s/if (check_duplicates(y)) {/if (0) {/@hostile_data.bats@duplicate key"
	# No "@" in these fields (the separator): [.] stands for the [@] of argv.
	"reproducer-without-env@scripts/lib.sh@s/printf '%q ' \"\\\${argv\\[.\\]}\"/printf '%q ' \"\\\${argv[*]:2}\"/@build.bats@reproduce.sh is what ran"
	"damage-not-checked@build.sh@s/pristine_intact \\&\\& return 0/return 0/@faults.bats@pristine tree damaged"
	"resume-redoes-finished@matrix.sh@s/progress \"\$cell (\$tree-\$variant): finished before, kept\"/:/@matrix_run.bats@--resume: the finished"
	"lock-ignored@matrix.sh@s/flock -n 8 \\&\\& return 0/return 0/@matrix_run.bats@two matrix.sh"
)

run_one() {
	local spec=$1 name file expr tests filter work rc=0
	IFS='@' read -r name file expr tests filter <<<"$spec"
	work=$(mktemp -d)
	git -C "$TOP" ls-files -z | (cd "$TOP" && xargs -0 cp --parents -t "$work")
	cp "$work/$file" "$work/$file.orig"
	sed -i "$expr" "$work/$file"
	if cmp -s "$work/$file" "$work/$file.orig"; then
		echo "$name: INVALID (the expression changed nothing in $file)"
		rm -rf "$work"
		return 1
	fi
	{ make -s -C "$work/tools/nmx" && make -s -C "$work/tools/nmx" san/nmx; } >/dev/null 2>&1 || true
	NMX_BIN=$work/tools/nmx/san/nmx ASAN_OPTIONS=detect_leaks=1 \
		bats --tap -f "$filter" "$work/tests/unit/$tests" >"$work/out.tap" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ] && grep -q '^not ok' "$work/out.tap"; then
		echo "$name: KILLED by $tests: $(grep -m1 '^not ok' "$work/out.tap")"
		rm -rf "$work"
		return 0
	fi
	echo "$name: SURVIVED ($tests -f '$filter' still passes); copy kept in $work"
	return 1
}

main() {
	local spec failed=0
	for spec in "${mutations[@]}"; do
		if [ $# -gt 0 ]; then
			case " $* " in *" ${spec%%@*} "*) ;; *) continue ;; esac
		fi
		run_one "$spec" || failed=1
	done
	exit "$failed"
}

main "$@"
