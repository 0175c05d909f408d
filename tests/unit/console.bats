#!/usr/bin/env bats
# nmx judge against recorded console logs, one per case (tests/console/).
# The verdict must come from the text alone.

load helpers

# judge CASE [--timed-out]: run nmx judge on tests/console/CASE.log.
judge() {
	local name=$1
	shift
	run "$NMX" judge --log "$TESTS_DIR/console/$name.log" --out "$SCRATCH" "$@"
}

@test "clean pass: PASS, nine subtests, both traces saved" {
	judge clean-pass-arm64
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 9 tests ok" ]
	grep -q '"status": "PASS"' "$SCRATCH/verdict.json"
	grep -q 'do_page_fault() {' "$SCRATCH/guest/trace-unpruned.txt"
	grep -q 'handle_mm_fault() {' "$SCRATCH/guest/trace-unpruned.txt"
	run ! grep -q 'handle_mm_fault' "$SCRATCH/guest/trace-pruned.txt"
	run ! grep -q 'NMX-FILE' "$SCRATCH/guest/trace-pruned.txt"
}

@test "clean pass: diagnostics stay with their subtest" {
	judge clean-pass-arm64
	grep -q 'later sibling of handle_mm_fault: up_read' "$SCRATCH/verdict.json"
}

@test "kernel panic before any KTAP: BOOT_FAIL naming the panic" {
	judge panic-before-ktap
	[ "$status" -eq 1 ]
	[[ "$output" == 'BOOT_FAIL: before any test, kernel panic: "Kernel panic - not syncing: Attempted to kill init!'* ]]
}

@test "init cannot run: BOOT_FAIL naming the kernel's complaint" {
	judge no-init
	[ "$status" -eq 1 ]
	[[ "$output" == "BOOT_FAIL: init did not start: Failed to execute /init (error -8)" ]]
}

@test "log truncated in the middle of a trace: TEST_FAIL, incomplete KTAP" {
	judge truncated-mid-trace
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: KTAP incomplete: 4 of 9 results; log ends early" ]
}

@test "garbage bytes in the console: still judged, bytes counted" {
	judge garbage-bytes
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 9 tests ok" ]
	grep -q '"garbage_bytes": 6' "$SCRATCH/verdict.json"
	# JSON stays valid UTF-8 whatever the console held.
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$SCRATCH/verdict.json"
}

@test "guest hangs mid-test and is killed: TIMEOUT" {
	judge guest-hangs --timed-out
	[ "$status" -eq 1 ]
	[ "$output" = "TIMEOUT: KTAP incomplete: 4 of 9 results; guest stopped printing" ]
}

@test "guest hangs after printing PASS (power-off failed): TIMEOUT" {
	judge clean-pass-arm64 --timed-out
	[ "$status" -eq 1 ]
	[[ "$output" == "TIMEOUT: guest passed but QEMU did not exit"* ]]
}

@test "success marker missing: TEST_FAIL although every subtest is ok" {
	judge missing-marker
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: all tests ok, but the success marker 'NMX-RESULT: PASS' is missing" ]
}

@test "a failed subtest: TEST_FAIL naming it" {
	judge failed-subtest
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: failed: pruned_subtree_hidden" ]
	grep -q '"result": "FAIL"' "$SCRATCH/verdict.json"
}

@test "results out of order: TEST_FAIL, malformed KTAP" {
	judge results-out-of-order
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: KTAP results malformed, out of order, duplicated or beyond the plan" ]
}

@test "kernel WARNING during the run: TEST_FAIL even with all ok" {
	judge kernel-warning
	[ "$status" -eq 1 ]
	[[ "$output" == 'TEST_FAIL: kernel reported WARNING: "WARNING: CPU: 0 PID: 1 at kernel/trace/fgraph.c:123 '* ]]
}

@test "empty console: BOOT_FAIL, or TIMEOUT when QEMU was killed" {
	judge empty
	[ "$output" = "BOOT_FAIL: QEMU exited without KTAP output (console empty)" ]
	judge empty --timed-out
	[ "$output" = "TIMEOUT: no KTAP output before the timeout (console empty)" ]
}

@test "kernel stops after its banner: BOOT_FAIL" {
	judge silent-after-boot
	[ "$status" -eq 1 ]
	[ "$output" = "BOOT_FAIL: QEMU exited without KTAP output" ]
}

@test "unreadable log: infrastructure error (exit 2)" {
	run "$NMX" judge --log "$SCRATCH/absent.log" --out "$SCRATCH"
	[ "$status" -eq 2 ]
}

@test "a failure FINDINGS.md names for this cell and variant: XFAIL, cell passes" {
	judge failed-subtest-xfail --findings "$TESTS_DIR/console/findings-sample.md" --cell arm64 --variant seed
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 8 tests ok, 1 expected failure(s) named in FINDINGS.md" ]
	grep -q '"result": "XFAIL"' "$SCRATCH/verdict.json"
	# The xfail line's finding, with its heading's title.
	grep -q '"finding": "finding 2: The pruned subtree shows (a sample finding)"' "$SCRATCH/verdict.json"
}

@test "--described: the tree's FINDINGS.md, the cell and the variant whose expectations apply, from cell.tsv" {
	"$NMX" -m "$TOP/matrix.yaml" -a "$TOP/arches" describe --tree linux-6.1 --variant seed --cell arm64 |
		sed "s|^series_dir\t.*|series_dir\tseries|; s|^matrix_file\t.*|matrix_file\t$SCRATCH/top/matrix.yaml|" \
		>"$SCRATCH/cell.tsv"
	mkdir -p "$SCRATCH/top/series"
	cp "$TESTS_DIR/console/findings-sample.md" "$SCRATCH/top/series/FINDINGS.md"
	judge failed-subtest-xfail --described "$SCRATCH/cell.tsv"
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 8 tests ok, 1 expected failure(s) named in FINDINGS.md" ]
	# A tree without FINDINGS.md expects nothing.
	rm "$SCRATCH/top/series/FINDINGS.md"
	judge failed-subtest-xfail --described "$SCRATCH/cell.tsv"
	[ "$status" -eq 1 ]
	judge failed-subtest-xfail --described "$SCRATCH/cell.tsv" --cell arm64
	[ "$status" -eq 2 ]
}

@test "the same failure on a cell FINDINGS.md does not name: TEST_FAIL" {
	judge failed-subtest-xfail --findings "$TESTS_DIR/console/findings-sample.md" --cell x86_64 --variant seed
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: failed: pruned_subtree_hidden" ]
}

@test "a failure FINDINGS.md names 'on every cell': XFAIL on any cell, not in other variants" {
	sed 's/^not ok 6 pruned_subtree_hidden/ok 6 pruned_subtree_hidden/; s/^ok 7 pruned_tracing_resumes_at_sibling/not ok 7 pruned_tracing_resumes_at_sibling/' \
		"$TESTS_DIR/console/failed-subtest-xfail.log" >"$SCRATCH/every-cell.log"
	grep -q '^not ok 7 pruned_tracing_resumes_at_sibling' "$SCRATCH/every-cell.log"
	run "$NMX" judge --log "$SCRATCH/every-cell.log" --out "$SCRATCH" \
		--findings "$TESTS_DIR/console/findings-sample.md" --cell a-new-cell --variant unfixed
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 8 tests ok, 1 expected failure(s) named in FINDINGS.md" ]
	# A finding the file has no heading for is named by its number.
	grep -q '"finding": "finding 9"' "$SCRATCH/verdict.json"
	run "$NMX" judge --log "$SCRATCH/every-cell.log" --out "$SCRATCH" \
		--findings "$TESTS_DIR/console/findings-sample.md" --cell a-new-cell --variant upstream
	[ "$status" -eq 1 ]
}

@test "a named failure that passes: XPASS, TEST_FAIL until FINDINGS.md is updated" {
	judge clean-pass-arm64 --findings "$TESTS_DIR/console/findings-sample.md" --cell arm64 --variant upstream
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: failed: pruned_subtree_hidden (XPASS: update FINDINGS.md)" ]
}

@test "only expected failures but no final marker: TEST_FAIL" {
	judge failed-subtest --findings "$TESTS_DIR/console/findings-sample.md" --cell arm64 --variant seed
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: all tests ok, but the success marker 'NMX-RESULT: FAIL' is missing" ]
}

@test "every tree's xfail lines name the finding that explains them" {
	run grep -h '^- xfail ' "$TOP"/patch/*/FINDINGS.md
	[ "${#lines[@]}" -gt 20 ]
	run grep -hv ': finding [0-9][0-9a-z]*$' <<<"$output"
	[ "$status" -eq 1 ] || { echo "xfail lines without ': finding N': $output"; false; }
}

@test "the series' FINDINGS.md parses: no malformed xfail line" {
	run "$NMX" judge --log "$TESTS_DIR/console/clean-pass-arm64.log" --out "$SCRATCH" \
		--findings "$TOP/patch/linux-6.1/FINDINGS.md" --cell arm64 --variant upstream
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 9 tests ok" ]
}

@test "the kernel's own ftrace selftest failed (arm64, MTTCG): TEST_FAIL, no tracer" {
	judge ftrace-selftest-failed-arm64
	[ "$status" -eq 1 ]
	[[ "$output" == 'TEST_FAIL: kernel reported tracer startup selftest failed: "Testing ftrace recursion: '*'; failed: tracefs_function_graph_ready '* ]]
	grep -q 'available_tracers: nop' "$SCRATCH/verdict.json"
	grep -q '"guest_uptime"' "$SCRATCH/verdict.json"
}

@test "a full-suite log with the guest's clock: boot and each subtest timed" {
	run "$NMX" judge --log "$TESTS_DIR/report/runs/arm32-fixed/linux-6.1-upstream/arm-be8/boot.log" \
		--out "$SCRATCH" --findings "$TOP/patch/linux-6.1/FINDINGS.md" --cell arm-be8 --variant upstream
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 37 tests ok, 1 expected failure(s) named in FINDINGS.md" ]]
	grep -q '"guest_uptime"' "$SCRATCH/verdict.json"
	[ "$(grep -c '"seconds"' "$SCRATCH/verdict.json")" -eq 38 ]
}

@test "more results than the plan: TEST_FAIL" {
	judge results-beyond-plan
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: KTAP results malformed, out of order, duplicated or beyond the plan" ]
}

@test "PASS marker, then FAIL marker: TEST_FAIL, exactly one marker allowed" {
	judge pass-then-fail-marker
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: 2 final markers: the guest must print exactly one" ]
	grep -q '"final_markers": 2' "$SCRATCH/verdict.json"
}

@test "two PASS markers: TEST_FAIL" {
	judge two-pass-markers
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: 2 final markers: the guest must print exactly one" ]
}

@test "every subtest ok but the FAIL marker: TEST_FAIL" {
	judge fail-marker-all-ok
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: all tests ok, but the guest printed 'NMX-RESULT: FAIL'" ]
}

@test "guest output after the PASS marker: TEST_FAIL quoting it" {
	judge output-after-marker
	[ "$status" -eq 1 ]
	[ "$output" = 'TEST_FAIL: output after the final marker: "late guest output"' ]
}

@test "power-off lines after the marker are not output after it" {
	judge clean-pass-arm64
	[ "$status" -eq 0 ]
	grep -q '"after_final_marker": null' "$SCRATCH/verdict.json"
}

@test "OpenBIOS's EXIT after sparc64's power-off is a power-off line" {
	judge sparc64-openbios-exit-7.2
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 38 tests ok, 15 skipped" ]
	grep -q '"after_final_marker": null' "$SCRATCH/verdict.json"
}

@test "SeaBIOS-hppa's reset lines after parisc's restart are power-off lines" {
	judge parisc-seabios-reset-7.2
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 39 tests ok, 14 skipped" ]
	grep -q '"after_final_marker": null' "$SCRATCH/verdict.json"
}

@test "every subtest skipped: SKIP, not PASS, exit 1" {
	judge all-skipped
	[ "$status" -eq 1 ]
	[ "$output" = "SKIP: no subtest ran: 9 of 9 skipped" ]
	grep -q '"status": "SKIP"' "$SCRATCH/verdict.json"
}

@test "a plan of 1..0: SKIP" {
	judge plan-zero
	[ "$status" -eq 1 ]
	[ "$output" = "SKIP: no subtest ran: 0 of 0 skipped" ]
}

@test "some subtests skipped: PASS that says how many" {
	run "$NMX" judge --log "$TESTS_DIR/report/runs/all-pass/linux-6.1-upstream/x86_64/boot.log" --out "$SCRATCH"
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 36 tests ok, 2 skipped" ]
}

@test "function names in a trace the guest printed are not kernel reports" {
	judge trace-mentions-reports-arm64
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 9 tests ok" ]
	grep -q 'report_bug(); /\* BUG: WARNING: Oops: FAILED! \*/' "$SCRATCH/guest/trace-unpruned.txt"
}

@test "the kernel's own report inside a trace frame still counts" {
	judge warning-inside-trace-frame-arm64
	[ "$status" -eq 1 ]
	[[ "$output" == 'TEST_FAIL: kernel reported WARNING: "WARNING: CPU: 1 PID: 17 at kernel/trace/fgraph.c:123 '* ]]
}

@test "console_ended (boot-cache keep): a console that reached the final marker, one cut before it, and no console" {
	local log=$TESTS_DIR/report/runs/all-pass/linux-6.1-upstream/x86_64/boot.log
	keep() {
		"$NMX" boot-cache keep --cache "$SCRATCH/boots" --key 0123456789abcdef \
			--log "$1" --origin r/t-v/c
	}
	run keep "$log"
	[ "$status" -eq 0 ]
	head -50 "$log" >"$SCRATCH/cut.log"
	run keep "$SCRATCH/cut.log"
	[ "$status" -eq 1 ]
	# The marker as the guest prints it, not anywhere in a line.
	sed 's/^NMX-RESULT:/# NMX-RESULT:/' "$log" >"$SCRATCH/quoted.log"
	run keep "$SCRATCH/quoted.log"
	[ "$status" -eq 1 ]
	run keep "$SCRATCH/nonexistent.log"
	[ "$status" -eq 2 ]
}
