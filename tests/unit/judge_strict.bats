#!/usr/bin/env bats
# What the judge refuses to take at face value: KTAP lines that do not
# parse, directives in TAP's spellings, "Bail out!", frames that would
# write outside the guest's own directory or past their bounds, and the
# inputs (directories, FIFOs, garbage) whose verdict is the host's, not
# the kernel's. Each case is a recorded clean console changed in one place.

load helpers

CLEAN=$TESTS_DIR/console/clean-pass-arm64.log

# variant SED-EXPRESSION: the clean console (its CRs dropped, as the
# judge drops them) changed by SED-EXPRESSION, as $SCRATCH/case.log
# (checked to differ from the clean one).
variant() {
	tr -d '\r' <"$CLEAN" | sed "$1" >"$SCRATCH/case.log"
	! cmp -s "$CLEAN" "$SCRATCH/case.log"
}

# judge_case: nmx judge on $SCRATCH/case.log, into $SCRATCH/out.
judge_case() {
	mkdir -p "$SCRATCH/out"
	run "$NMX" judge --log "$SCRATCH/case.log" --out "$SCRATCH/out"
}

# ---- KTAP ---------------------------------------------------------------

@test "'not ok 0': malformed, TEST_FAIL (not silently dropped)" {
	variant 's/^ok 9 tracefs_writes_succeeded/ok 9 tracefs_writes_succeeded\nnot ok 0 ghost/'
	judge_case
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: KTAP results malformed, out of order, duplicated or beyond the plan" ]
}

@test "'not ok 3a': malformed, TEST_FAIL" {
	variant 's/^ok 3 tracefs_function_graph_ready/not ok 3a tracefs_function_graph_ready/'
	judge_case
	[ "$status" -eq 1 ]
	[[ "$output" == "TEST_FAIL: KTAP"* ]]
}

@test "'not ok' with no number: malformed, TEST_FAIL" {
	variant 's/^ok 9 tracefs_writes_succeeded/ok 9 tracefs_writes_succeeded\nnot ok/'
	judge_case
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: KTAP results malformed, out of order, duplicated or beyond the plan" ]
}

@test "a line that only begins with 'ok' (a word) is not a result" {
	variant 's/^ok 9 tracefs_writes_succeeded/okay, nine\nok 9 tracefs_writes_succeeded/'
	judge_case
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 9 tests ok" ]
}

@test "directives as TAP reads them: '#SKIP', '# skip', '# Skip' all skip" {
	variant 's/^ok \([0-9]*\) \([a-z_]*\)$/ok \1 \2 #SKIP no reason/;
		 s/^ok 2 \([a-z_]*\) #SKIP.*/ok 2 \1 # skip lower case/;
		 s/^ok 3 \([a-z_]*\) #SKIP.*/ok 3 \1 #   Skip mixed case/'
	judge_case
	[ "$status" -eq 1 ]
	[ "$output" = "SKIP: no subtest ran: 9 of 9 skipped" ]
	[ "$(grep -c '"result": "SKIP"' "$SCRATCH/out/verdict.json")" -eq 9 ]
	grep -q '"name": "endianness_matches_cell"' "$SCRATCH/out/verdict.json"
}

@test "'Bail out!': TEST_FAIL quoting it, whatever else passed" {
	variant 's/^ok 9 tracefs_writes_succeeded/ok 9 tracefs_writes_succeeded\nBail out! tracefs went away/'
	judge_case
	[ "$status" -eq 1 ]
	[ "$output" = 'TEST_FAIL: the guest bailed out: "Bail out! tracefs went away"' ]
}

@test "CONFIG_PRINTK_TIME: a clean console with timestamps on the kernel's lines is PASS" {
	# Every line before KTAP and the power-off lines after the marker
	# carry the kernel's clock, as printk.time=1 prints them.
	awk '/^KTAP version 1/ { ktap = 1 } /^NMX-RESULT: / { done = 1; print; next }
	     !ktap || done { printf "[%5d.%06d] %s\n", NR / 100, NR * 37 % 1000000, $0; next }
	     { print }' "$CLEAN" >"$SCRATCH/case.log"
	grep -q '^\[ *[0-9]*\.[0-9]*\] reboot: Power down' "$SCRATCH/case.log"
	judge_case
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 9 tests ok" ]
}

# ---- frames -------------------------------------------------------------

@test "a frame named reproduce.sh lands in guest/, never over the cell's own" {
	echo 'the host wrote this' >"$SCRATCH/out/reproduce.sh" 2>/dev/null ||
		{ mkdir -p "$SCRATCH/out"; echo 'the host wrote this' >"$SCRATCH/out/reproduce.sh"; }
	variant 's/^NMX-FILE-BEGIN trace-pruned.txt/NMX-FILE-BEGIN reproduce.sh\nrm -rf ~\nNMX-FILE-END reproduce.sh\n&/'
	judge_case
	[ "$status" -eq 0 ]
	[ "$(cat "$SCRATCH/out/reproduce.sh")" = 'the host wrote this' ]
	[ "$(cat "$SCRATCH/out/guest/reproduce.sh")" = 'rm -rf ~' ]
	grep -q 'do_page_fault() {' "$SCRATCH/out/guest/trace-unpruned.txt"
}

@test "a frame named boot.log cannot truncate the log being judged" {
	mkdir -p "$SCRATCH/out"
	variant 's/^NMX-FILE-BEGIN trace-pruned.txt/NMX-FILE-BEGIN boot.log\nNMX-FILE-END boot.log\n&/'
	mv "$SCRATCH/case.log" "$SCRATCH/out/boot.log"
	size=$(stat -c %s "$SCRATCH/out/boot.log")
	run "$NMX" judge --log "$SCRATCH/out/boot.log" --out "$SCRATCH/out"
	[ "$status" -eq 0 ]
	[ "$(stat -c %s "$SCRATCH/out/boot.log")" -eq "$size" ]
	[ -f "$SCRATCH/out/guest/boot.log" ]
}

@test "a frame with an unsafe name: refused, TEST_FAIL; its lines stay data" {
	variant 's/^NMX-FILE-BEGIN trace-pruned.txt/NMX-FILE-BEGIN ..\/escape\nKernel panic - not syncing: inside a refused frame\nNMX-FILE-END ..\/escape\n&/'
	judge_case
	[ "$status" -eq 1 ]
	[ "$output" = 'TEST_FAIL: console frames refused: unsafe file name "../escape"; kernel panic: "Kernel panic - not syncing: inside a refused frame"' ]
	[ ! -e "$SCRATCH/escape" ]
	[ ! -e "$SCRATCH/out/escape" ]
}

@test "trace lines of a refused frame are data: no kernel report read in them" {
	variant 's/^NMX-FILE-BEGIN trace-pruned.txt/NMX-FILE-BEGIN a\/b\n 0)   1.0 us  |  BUG: Oops: WARNING();\nNMX-FILE-END a\/b\n&/'
	judge_case
	[ "$status" -eq 1 ]
	[ "$output" = 'TEST_FAIL: console frames refused: unsafe file name "a/b"' ]
}

@test "the same file framed twice: refused, the first copy kept" {
	variant 's/^NMX-FILE-BEGIN trace-pruned.txt/NMX-FILE-BEGIN trace-unpruned.txt\nsecond copy\nNMX-FILE-END trace-unpruned.txt\n&/'
	judge_case
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: console frames refused: file trace-unpruned.txt framed twice" ]
	grep -q 'do_page_fault() {' "$SCRATCH/out/guest/trace-unpruned.txt"
	run ! grep -q 'second copy' "$SCRATCH/out/guest/trace-unpruned.txt"
}

@test "a frame that cannot be written: INFRA_FAIL (exit 2), its lines stay data" {
	mkdir -p "$SCRATCH/out"
	# guest/ is a file: nothing can be created under it, even as root.
	: >"$SCRATCH/out/guest"
	variant 's/^ 0)[^|]*| *do_page_fault() {$/&\n 0)   1.0 us    |    BUG: Oops: WARNING();/'
	judge_case
	[ "$status" -eq 2 ]
	[[ "$output" == *"INFRA_FAIL: cannot write the guest's file guest/trace-unpruned.txt: Not a directory"* ]]
	grep -q '"kernel_errors": 0' "$SCRATCH/out/verdict.json"
}

@test "more frames than the bound: TEST_FAIL, no more files than the bound" {
	awk '/^NMX-FILE-BEGIN trace-pruned.txt/ {
		for (i = 0; i < 200; i++) printf "NMX-FILE-BEGIN f%d.txt\nx\nNMX-FILE-END f%d.txt\n", i, i
	     } { print }' "$CLEAN" >"$SCRATCH/case.log"
	judge_case
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: console frames refused: more than 128 frames" ]
	[ "$(find "$SCRATCH/out/guest" -type f | wc -l)" -eq 128 ]
}

@test "a frame larger than the bound: TEST_FAIL, the file cut at the bound" {
	awk '/^NMX-FILE-END trace-unpruned.txt/ {
		for (i = 0; i < 20000; i++) printf "%0100d\n", i
	     } { print }' "$CLEAN" >"$SCRATCH/case.log"
	judge_case
	[ "$status" -eq 1 ]
	[ "$output" = "TEST_FAIL: console frames refused: file trace-unpruned.txt larger than 1048576 bytes" ]
	[ "$(stat -c %s "$SCRATCH/out/guest/trace-unpruned.txt")" -le 1048576 ]
}

# ---- exit codes ---------------------------------------------------------

@test "judge on a directory: INFRA (exit 2), not BOOT_FAIL" {
	run "$NMX" judge --log "$SCRATCH" --out "$SCRATCH"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a regular file"* ]]
}

@test "judge on a FIFO with no writer: refused at once (exit 2)" {
	mkfifo "$SCRATCH/fifo"
	run timeout 10 "$NMX" judge --log "$SCRATCH/fifo" --out "$SCRATCH"
	[ "$status" -eq 2 ]
	[[ "$output" == *"fifo: not a regular file"* ]]
}

@test "--findings naming a directory: INFRA (exit 2), not an empty list" {
	run "$NMX" judge --log "$CLEAN" --out "$SCRATCH" --findings "$SCRATCH" --cell arm64 --variant upstream
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a regular file"* ]]
}

@test "summary: a planned cell with stages but no result.json is infrastructure" {
	local run_dir=$SCRATCH/run
	mkdir -p "$run_dir/linux-6.1-upstream/arm64" "$run_dir/linux-6.1-upstream/x86_64"
	cp "$TESTS_DIR/report/runs/all-pass/linux-6.1-upstream/arm64/result.json" \
		"$run_dir/linux-6.1-upstream/arm64/"
	printf 'prepare\tok\t0.4\tseries applied\n' >"$run_dir/linux-6.1-upstream/x86_64/stages.tsv"
	printf 'linux-6.1\tupstream\tarm64\nlinux-6.1\tupstream\tx86_64\nlinux-6.1\tupstream\tarm-be8\n' \
		>"$run_dir/plan.tsv"
	run "$NMX" summary "$run_dir"
	[ "$status" -eq 2 ]
	grep -q '^linux-6.1-upstream *x86_64 *INFRA_FAIL .*no result.json' "$run_dir/summary.txt"
	grep -q '^linux-6.1-upstream *arm-be8 *INFRA_FAIL .*no result.json' "$run_dir/summary.txt"
	grep -q '^1 passed, 0 failed, 2 infrastructure$' "$run_dir/summary.txt"
}

@test "lava-log on input with no lava-run record: exit 2, said why" {
	head -c 4096 /dev/urandom | base64 >"$SCRATCH/garbage.log"
	run "$NMX" lava-log "$SCRATCH/garbage.log"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no lava-run log record in it"* ]]
	: >"$SCRATCH/empty.log"
	run "$NMX" lava-log "$SCRATCH/empty.log"
	[ "$status" -eq 2 ]
}

@test "report on a cell with 20,000 subtests: within seconds" {
	local cell=$SCRATCH/run/linux-6.1-upstream/arm64
	mkdir -p "$cell"
	python3 - "$TESTS_DIR/report/runs/all-pass/linux-6.1-upstream/arm64/result.json" \
		"$cell/result.json" <<-'EOF'
		import json, sys
		r = json.load(open(sys.argv[1]))
		r["subtests"] = [{"number": i + 1, "name": "s%d" % i, "result": "PASS",
		                  "diagnostics": []} for i in range(20000)]
		json.dump(r, open(sys.argv[2], "w"))
	EOF
	# 0.7 s alone; the bound is for a pass gone quadratic, with room for
	# the rest of the suite running beside it (it once failed at 20 s).
	run timeout 60 "$NMX" report "$SCRATCH/run"
	[ "$status" -eq 0 ] || { echo "status $status: $output"; false; }
	grep -q 's19999' "$SCRATCH/run/junit.xml"
}
