#!/usr/bin/env bash
# The test command (README, .ci/run): unit tests of the host tools against
# recorded logs, traces and runs, then the whole matrix end to end and the
# checks of its reports.
#
#   tests/run.sh [--unit-only | --full]
#
# --unit-only: the unit tests alone; --full: the default run of matrix.yaml
# (./matrix.sh) as the end-to-end run, in place of the set e2e.
#
# Ends with "N passed, N failed" over unit tests and matrix cells; exits
# non-zero if anything failed or any cell did not PASS.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
passed=0
failed=0

# count_tap FILE: add a TAP stream's results to the totals.
count_tap() {
	local ok notok
	ok=$(grep -c '^ok ' "$1" || true)
	notok=$(grep -c '^not ok ' "$1" || true)
	passed=$((passed + ok))
	failed=$((failed + notok))
}

# unit_tests OUT: the unit tests, each stream of TAP in OUT (counted by
# count_unit) and on stdout, with a cache and a results directory of their
# own (neither the run's lock nor results/latest is theirs to touch). nmx
# and its sanitizer build are made before (main).
unit_tests() {
	local out=$1
	# gitlab-ci-local is where the install put it: the run's cache.
	local cache=${NMX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/notrace-matrix}
	export NMX_GITLAB_CI_LOCAL=$cache/npm/node_modules/.bin/gitlab-ci-local
	export NMX_CACHE=$out/cache NMX_RESULTS=$out/results

	# Lint as a test: the scripts, and the tests themselves (a bare `! cmd`
	# in bats is a check that cannot fail: SC2314), stay ShellCheck-clean.
	if shellcheck "$TOP"/*.sh "$TOP"/scripts/*.sh "$TOP"/tests/*.sh \
		"$TOP"/tests/report/*.sh "$TOP"/docs/repro/*.sh "$TOP/.ci/run" "$TOP"/tests/fake-tree/bin/* "$TOP"/scripts/kbuild-cc \
		"$TOP"/tests/unit/*.bats "$TOP"/tests/unit/*.bash; then
		echo "ok 1 shellcheck" >"$out/shellcheck.tap"
	else
		echo "not ok 1 shellcheck" >"$out/shellcheck.tap"
	fi
	cat "$out/shellcheck.tap"

	# The unit tests drive nmx built under ASan and UBSan (build.sh and
	# boot.sh too, through NMX_BIN): a memory error, a leak or undefined
	# behaviour fails the test that caused it. Those of the scripts
	# around nmx take the plain build (helpers.bash, scripts_under_test).
	# Each test has a scratch directory of its own, so they run side by
	# side (GNU parallel), two per core: many wait on a fake boot, git or
	# the disk.
	NMX_BIN=$TOP/tools/nmx/san/nmx NMX_PLAIN_BIN=$TOP/tools/nmx/nmx \
		ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		bats --jobs "$((2 * $(nproc)))" --timing --tap "$TOP/tests/unit" | tee "$out/bats.tap" || true

	gcc -std=gnu11 -Wall -Wextra -Werror -include string.h -I "$TOP/guest" \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-o "$out/fgraph_test" "$TOP/tests/fgraph/fgraph_test.c"
	"$out/fgraph_test" "$TOP/tests/fgraph" | tee "$out/fgraph.tap" || true
	# The guest's seed-example checks, built for the host (glibc for nolibc).
	gcc -std=gnu11 -Wall -Wextra -Werror -Wno-unused-function \
		-Wno-unused-parameter -I "$TOP/guest" \
		-fsanitize=address,undefined -fno-sanitize-recover=all \
		-o "$out/seed_test" "$TOP/tests/fgraph/seed_test.c"
	"$out/seed_test" "$TOP/tests/fgraph" | tee "$out/seed.tap" || true
}

# count_unit OUT: add unit_tests' streams to the totals; a stream that is
# missing (the unit tests died before it) is a failure.
count_unit() {
	local tap
	for tap in shellcheck bats fgraph seed; do
		if [ -f "$1/$tap.tap" ]; then
			count_tap "$1/$tap.tap"
		else
			echo "not ok: unit tests: no $tap results (see above)"
			failed=$((failed + 1))
		fi
	done
}

# matrix_test SELECTION...: the end-to-end run of that selection of
# matrix.sh (--e2e: matrix.yaml's set e2e, every architecture and tree
# once and both variants on one cell; benchmarks/README.md for its cost).
matrix_test() {
	local rc=0 summary
	"$TOP/matrix.sh" "$@" || rc=$?
	summary=$TOP/results/latest/summary.txt
	if [ -f "$summary" ]; then
		passed=$((passed + $(grep -c ' PASS ' "$summary" || true)))
		failed=$((failed + $(grep -Ec ' (SKIP|TEST_FAIL|BOOT_FAIL|TIMEOUT|BUILD_FAIL|CONFIG_FAIL|PATCH_FAIL|INFRA_FAIL) ' "$summary" || true)))
	fi
	if [ "$rc" -ne 0 ]; then
		echo "matrix: exit $rc (see $summary)"
		failed=$((failed > 0 ? failed : 1))
		# A CI job's log is often all that is kept of a failure that
		# comes at random: the guest's own words for each failed test.
		if [ -f "$TOP/results/latest/report.md" ]; then
			echo "matrix: the failures as report.md has them:"
			awk '/^### Failures/ { p = 1; next } /^### / { p = 0 } p' \
				"$TOP/results/latest/report.md" | cut -c1-2000
		fi
	fi
	# Each tree's series, through that tree's checkpatch.pl --strict (the
	# run has unpacked the trees).
	"$TOP/tests/checkpatch.sh" | tee "$TOP/results/checkpatch.tap" || true
	count_tap "$TOP/results/checkpatch.tap"
	# The run's own reports, checked as their readers take them.
	if [ -d "$TOP/results/latest" ]; then
		"$TOP/tests/report/check-outputs.sh" "$TOP/results/latest" |
			tee "$TOP/results/latest/report-checks.tap" || true
		count_tap "$TOP/results/latest/report-checks.tap"
		lava_test | tee "$TOP/results/lava.tap" || true
		count_tap "$TOP/results/lava.tap"
	fi
}

# verdict_fingerprint VERDICT_JSON: the status and every subtest's name and
# result, as the judge wrote them.
verdict_fingerprint() {
	grep -E '^ *"(status|name|result)": ' "$1" || true
}

# The same kernel booted as a LAVA job (lava-run, matrix.sh --boot-with
# lava): it must get the verdict it got booted by QEMU directly, down to
# every subtest. One cell, so that a cold .ci/run stays inside CI's 90
# minutes: arm-be8, which the run booted through U-Boot and LAVA boots
# with QEMU's loader, the same kernel and initramfs loaded two ways, and
# the cheapest boot of the run. Every cell's job and device pass lava-run
# --validate in tests/unit/lava.bats, and ./matrix.sh --boot-with lava
# boots any cell the same way. Its own results directory per tree:
# results/latest stays the end-to-end run's.
LAVA_CELLS=(arm-be8)

lava_test() {
	local main_run=$TOP/results/latest tree variant cell n=0 rc
	local -a picked=() trees=() select
	while read -r tree variant cell; do
		[ "$variant" = upstream ] || continue
		[[ " ${LAVA_CELLS[*]} " == *" $cell "* ]] || continue
		[[ " ${picked[*]} " == *" $cell "* ]] && continue
		picked+=("$tree $cell")
		[[ " ${trees[*]} " == *" $tree "* ]] || trees+=("$tree")
	done <"$main_run/plan.tsv"
	if [ "${#picked[@]}" -ne "${#LAVA_CELLS[@]}" ]; then
		echo "not ok 1 lava-run: the end-to-end run has no upstream cell of each of ${LAVA_CELLS[*]} (plan: $main_run/plan.tsv)"
		return 0
	fi
	for tree in "${trees[@]}"; do
		select=()
		for cell in "${picked[@]}"; do
			[ "${cell% *}" != "$tree" ] || select+=(--cell "${cell#* }")
		done
		rc=0
		# One boot at a time: lava-dispatcher beside two guests loads
		# both cores, and under that load the series' own boot
		# selftest has lost its last call twice (riscv64 6.12, arm64
		# 7.2: "Testing set_graph_notrace: FAILED! (... after 0,
		# error -22)", 7.2 FINDINGS.md), a verdict the QEMU boot did
		# not have.
		NMX_RESULTS=$TOP/results/lava/$tree "$TOP/matrix.sh" --no-install --boot-with lava --boots 1 \
			--tree "$tree" --variant upstream "${select[@]}" || rc=$?
		for cell in "${picked[@]}"; do
			[ "${cell% *}" = "$tree" ] || continue
			cell=${cell#* }
			n=$((n + 1))
			local lava_run=$TOP/results/lava/$tree/latest
			local ours=$main_run/$tree-upstream/$cell/verdict.json
			local theirs=$lava_run/$tree-upstream/$cell/verdict.json
			if [ -f "$ours" ] && [ -f "$theirs" ] &&
				grep -q '^boot_with	lava$' "$lava_run/$tree-upstream/$cell/meta.tsv" &&
				diff <(verdict_fingerprint "$ours") <(verdict_fingerprint "$theirs") >/dev/null; then
				echo "ok $n lava-run boot of $tree-upstream/$cell: the verdict of the QEMU boot, subtest for subtest"
			else
				echo "not ok $n lava-run boot of $tree-upstream/$cell: verdicts differ or missing (matrix.sh exit $rc; see $lava_run)"
			fi
		done
	done
}

main() {
	local mode=e2e
	case ${1:-} in
	'') ;;
	--unit-only) mode=unit ;;
	--full) mode=full ;;
	*)
		echo "tests/run.sh: unknown option '$1' (tests/run.sh [--unit-only | --full])" >&2
		exit 2
		;;
	esac
	"$TOP/scripts/install-deps.sh" --tests
	make -s -C "$TOP/tools/nmx"
	make -s -C "$TOP/tools/nmx" san/nmx
	unit=$(mktemp -d)
	(unit_tests "$unit") || true
	case $mode in
	e2e) matrix_test --e2e ;;
	full) matrix_test ;;
	esac
	count_unit "$unit"
	rm -rf "$unit"
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
}

main "$@"
