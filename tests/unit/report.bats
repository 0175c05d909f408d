#!/usr/bin/env bats
# nmx report and nmx compare against recorded runs (tests/report/runs/:
# all pass, mixed failures, a timed-out cell, a cell that never built).
# Every output is compared with its golden file; regenerate them with
# tests/regen-golden.sh and review the diff. The outputs are also checked
# as their readers take them: xmllint, the KCIDB schema, headless Chromium.

load helpers

setup_file() {
	OUT=$BATS_FILE_TMPDIR/out
	export OUT
	"$BATS_TEST_DIRNAME/../report/make-outputs.sh" "$OUT"
}

golden_diff() { # path relative to tests/golden/report
	run diff -u "$TESTS_DIR/golden/report/$1" "$OUT/$1"
	if [ "$status" -ne 0 ]; then
		echo "$output" | head -n 40
		echo "drift from tests/golden/report/$1: run tests/regen-golden.sh and review"
		return 1
	fi
}

golden_case() { # case
	local f
	for f in report.html report.md junit.xml kcidb.json summary.json; do
		golden_diff "$1/$f"
	done
}

@test "report: all cells pass — outputs match the golden files" {
	golden_case all-pass
}

@test "report: mixed failures — outputs match the golden files" {
	golden_case mixed
}

@test "report: a timed-out cell, against an earlier run — outputs match the golden files" {
	golden_case timeout
	grep -q 'regression' "$OUT/timeout/report.md"
	grep -q '<testcase classname="linux-6.1-upstream.x86_64" name="boot"' "$OUT/timeout/junit.xml"
}

@test "report: a cell that never built — outputs match the golden files" {
	golden_case never-built
	grep -q 'init/fake.c:1:1: error' "$OUT/never-built/report.md"
}

@test "report: the ARM cells without and with the unwinder fix — outputs match the golden files" {
	golden_case arm32-unfixed
	golden_case arm32-fixed
	# The guest timed each subtest: JUnit and KCIDB carry it.
	grep -q 'name="notrace_leaf" time="0\.[0-9]*[1-9][0-9]*"' "$OUT/arm32-fixed/junit.xml"
	grep -q '"duration"' "$OUT/arm32-fixed/kcidb.json"
}

@test "compare: fixes, regressions, a timeout, no change, the ARM unwinder fix — match the golden files" {
	golden_diff compare-fixes.txt
	golden_diff compare-regressions.txt
	golden_diff compare-timeout.txt
	golden_diff compare-no-change.txt
	golden_diff compare-arm32-fixes.txt
	grep -q '^- fixed: stack_trace_in_traced_function (XFAIL -> PASS)' "$OUT/compare-arm32-fixes.txt"
	[ "$(tail -n 1 "$OUT/compare-regressions.txt")" = "exit 1" ]
	[ "$(tail -n 1 "$OUT/compare-fixes.txt")" = "exit 0" ]
}

@test "report outputs: well-formed JUnit, valid KCIDB, summary.json valid, HTML rendered in headless Chromium" {
	local c
	for c in all-pass mixed timeout never-built arm32-fixed; do
		run "$TESTS_DIR/report/check-outputs.sh" "$OUT/$c"
		echo "$c: $output"
		[ "$status" -eq 0 ]
	done
}

@test "check-outputs fails on broken outputs, naming each problem" {
	mkdir -p "$SCRATCH/bad"
	printf '<testsuites><testsuite>\n' >"$SCRATCH/bad/junit.xml"
	printf '{"version": {"major": 5, "minor": 3}, "builds": [{"id": "x:1", "origin": "x", "checkout_id": "x:c", "status": null}]}\n' \
		>"$SCRATCH/bad/kcidb.json"
	printf '{"schema": "notrace-matrix-summary/1", "run_id": "x", "exit": 3, "counts": {}, "cells": []}\n' \
		>"$SCRATCH/bad/summary.json"
	printf '<!DOCTYPE html><html><body><h2>Verdicts</h2><script>console.error("broken")</script></body></html>\n' \
		>"$SCRATCH/bad/report.html"
	run "$TESTS_DIR/report/check-outputs.sh" "$SCRATCH/bad"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"not ok 1 junit.xml is well-formed XML"* ]]
	[[ "$output" == *"not ok 2 kcidb.json is valid KCIDB v5.3"* ]]
	[[ "$output" == *"not ok 3 summary.json is valid against docs/schema/summary.schema.json"* ]]
	[[ "$output" == *"not ok 4 report.html is self-contained"* ]]
	[[ "$output" == *"not ok 5 report.html: no console messages in Chromium"* ]]
	[[ "$output" == *"not ok 6 report.html: Chromium's DOM has the verdict grid"* ]]
	[[ "$output" == *"not ok 9 report.md is present"* ]]
}

@test "report: a directory that is not a run is an error saying so" {
	run "$NMX" report "$SCRATCH"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a run directory"* ]]
	run "$NMX" compare "$SCRATCH"
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage: nmx compare"* ]]
}

@test "report: a cell whose result.json was never written is an ERROR, named from its directory" {
	cp -r "$TESTS_DIR/report/runs/all-pass" "$SCRATCH/run"
	rm "$SCRATCH/run/linux-6.1-seed/arm64/result.json"
	printf 'prepare\tok\t0.1\tseries already applied\n' >"$SCRATCH/run/linux-6.1-seed/arm64/stages.tsv"
	run "$NMX" report "$SCRATCH/run"
	[ "$status" -eq 0 ]
	grep -q '^| arm64 | seed | ERROR | 0 | 0 | 0 | 0 | result.json missing' "$SCRATCH/run/report.md"
	grep -q '"status": "ERROR"' "$SCRATCH/run/kcidb.json"
	xmllint --noout "$SCRATCH/run/junit.xml"
}

@test "a cell whose subtests all skipped: SKIP in the summary (exit 1), <skipped> in JUnit, SKIP in KCIDB" {
	local d=$SCRATCH/run/linux-6.1-upstream/arm64
	mkdir -p "$d"
	run "$NMX" judge --log "$TESTS_DIR/console/all-skipped.log" --out "$d"
	[ "$status" -eq 1 ]
	printf 'prepare\tok\t1\t\nconfigure\tok\t1\t\nkernel\tok\t1\t\nguest\tok\t1\t\nboot\tok\t5\tQEMU exited\n' >"$d/stages.tsv"
	printf 'cell\tarm64\ntree\tlinux-6.1\nvariant\tupstream\n' >"$d/meta.tsv"
	"$NMX" result --cell-dir "$d"
	run "$NMX" summary "$SCRATCH/run"
	[ "$status" -eq 1 ]
	grep -q 'arm64 .* SKIP .*no subtest ran: 9 of 9 skipped' "$SCRATCH/run/summary.txt"
	grep -q '^0 passed, 0 failed, 0 infrastructure, 1 skipped' "$SCRATCH/run/summary.txt"
	run "$NMX" report "$SCRATCH/run"
	[ "$status" -eq 0 ]
	grep -q 'skipped="9"' "$SCRATCH/run/junit.xml"
	[ "$(grep -o '"status": "SKIP"' "$SCRATCH/run/kcidb.json" | wc -l)" -eq 9 ]
	grep -q '| arm64 | upstream | SKIP |' "$SCRATCH/run/report.md"
}

# Two trees in one run: linux-6.12-upstream made from the recorded 6.1
# upstream cells, with one subtest failing on arm64.
two_tree_run() {
	local d
	cp -r "$TESTS_DIR/report/runs/all-pass" "$SCRATCH/run"
	cp -r "$SCRATCH/run/linux-6.1-upstream" "$SCRATCH/run/linux-6.12-upstream"
	for d in "$SCRATCH/run/linux-6.12-upstream"/*/; do
		sed -i 's/"tree": "linux-6.1"/"tree": "linux-6.12"/' "$d/result.json"
	done
	python3 - "$SCRATCH/run/linux-6.12-upstream/arm64/result.json" <<-'PY'
		import json, sys
		r = json.load(open(sys.argv[1]))
		for t in r["subtests"]:
		    if t["name"] == "notrace_nested_inner_only":
		        t["result"] = "FAIL"
		json.dump(r, open(sys.argv[1], "w"), indent=2)
	PY
}

@test "compare across trees: the same cell of each tree, side by side; a subtest that fails only on the later tree is named" {
	two_tree_run
	run "$NMX" compare -b linux-6.1-upstream -a linux-6.12-upstream "$SCRATCH/run" "$SCRATCH/run"
	[ "$status" -eq 1 ]
	[[ "$output" == *"### arm64, linux-6.1-upstream -> linux-6.12-upstream"* ]]
	[[ "$output" == *"### x86_64, linux-6.1-upstream -> linux-6.12-upstream"* ]]
	[[ "$output" == *"notrace_nested_inner_only (PASS -> FAIL)"* ]]
	[[ "$output" == *"1 regression(s)"* ]]
	# The seed variant of 6.1 is on neither side.
	run ! grep -q 'linux-6.1-seed\|, seed' <<<"$output"
	# A variant alone still pairs each tree with itself.
	run "$NMX" compare -b upstream -a seed "$SCRATCH/run" "$SCRATCH/run"
	[[ "$output" == *"### arm64, upstream -> seed"* ]]
	run ! grep -q 'linux-6.12' <<<"$output"
}

@test "report across trees: the HTML names both trees where it sets one tree's cell against the other's" {
	two_tree_run
	run "$NMX" report "$SCRATCH/run"
	[ "$status" -eq 0 ]
	grep -q '<h4>linux-6.1-upstream vs linux-6.12-upstream</h4>' "$SCRATCH/run/report.html"
	grep -q '<h4>upstream vs seed</h4>' "$SCRATCH/run/report.html"
}

@test "run-figures: a run's CPU and boot seconds, its slowest boot, its boots; per stage only what did its work" {
	run "$NMX" run-figures "$TESTS_DIR/report/runs/all-pass"
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'kernel_cpu_seconds\t0\nboot_seconds\t88.2\nslowest_boot\t25.7\tlinux-6.1-upstream/x86_64\nboots\t5')" ]
	run "$NMX" run-figures --stages "$TESTS_DIR/report/runs/mixed"
	[ "$status" -eq 0 ]
	# arm-be8 unfixed failed its selftests: its boot says nothing of a boot's length
	[[ "$output" == *$'linux-6.1-unfixed\tarm-be8\tkernel\t40'* ]]
	[[ "$output" != *$'linux-6.1-unfixed\tarm-be8\tboot'* ]]
	[[ "$output" == *$'linux-6.1-upstream\tarm64\tboot\t15'* ]]
	run "$NMX" run-figures
	[ "$status" -eq 2 ]
}

@test "run-figures --scenarios: where the boots' seconds go, per subtest, the costliest first; SKIPs apart" {
	run "$NMX" run-figures --scenarios "$TESTS_DIR/report/runs/seconds"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$(printf '# part\tcells\ttotal\tmedian\tmax\tmax_at')" ]
	# sparc64 has one CPU: the scenario is a SKIP there, not a 0 s run
	[ "${lines[1]}" = "$(printf 'graph_hash_rewritten_while_traced\t2\t171.4\t85.7\t99.8\tlinux-7.2-upstream/arm64')" ]
	[[ "$output" == *$'(kernel start to PID 1)\t3\t12.4\t4.3\t5.1\tlinux-7.2-upstream/arm64'* ]]
	[[ "$output" == *$'(skipped subtests)\t3\t'* ]]
	run "$NMX" run-figures --scenarios "$TESTS_DIR/report/runs/all-pass"
	[ "$status" -eq 0 ]
	# recorded before the guest's clock was kept: nothing to say
	[ "$output" = "$(printf '# part\tcells\ttotal\tmedian\tmax\tmax_at')" ]
}
