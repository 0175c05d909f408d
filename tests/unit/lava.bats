#!/usr/bin/env bats
# LAVA: each cell's boot as a LAVA job (nmx lava-job) that Debian's
# lava-run accepts, the console back from LAVA's log (nmx lava-log), and a
# whole run of the bootable fake cell with its boots through lava-run
# (matrix.sh --boot-with lava): the judge, not LAVA, gives the verdict.

load helpers

# A cell's job and device in $SCRATCH/lava-CELL, for files under /build.
lava_job() { # cell [extra nmx args]
	local cell=$1 dtb=()
	shift
	mkdir -p "$SCRATCH/lava-$cell" "$SCRATCH/build"
	: >"$SCRATCH/build/kernel"
	: >"$SCRATCH/build/initramfs.cpio"
	: >"$SCRATCH/build/cell.dtb"
	grep -q '^dtb:' "$TOP/arches/$cell.yaml" && dtb=(--dtb "$SCRATCH/build/cell.dtb")
	nmx lava-job --tree linux-6.1 --variant upstream --cell "$cell" \
		--kernel "$SCRATCH/build/kernel" --initrd "$SCRATCH/build/initramfs.cpio" \
		"${dtb[@]}" --accel tcg -o "$SCRATCH/lava-$cell" "$@"
}

@test "lava-job: every cell's job and device pass lava-run --validate (the cells of the system's QEMU)" {
	local cell n=0
	[ "$(id -u)" -eq 0 ] || skip "lava-run runs only as root"
	for cell in $(find "$TOP/arches" -maxdepth 1 -name '*.yaml' -printf '%f\n' | sed 's/\.yaml$//'); do
		# LAVA runs the worker's QEMU: not a cell's of another suite (nmx.bats).
		! nmx describe --tree linux-6.1 --variant upstream --cell "$cell" | grep -q $'^qemu_suite\t.' || continue
		lava_job "$cell"
		run lava-run --validate --job-id "$$" --output-dir "$SCRATCH/lava-$cell/output" \
			--device "$SCRATCH/lava-$cell/device.yaml" "$SCRATCH/lava-$cell/job.yaml"
		[ "$status" -eq 0 ] || { echo "$cell: $output" | tail -n 5; false; }
		grep -q '^result: pass$' "$SCRATCH/lava-$cell/output/result.yaml"
		n=$((n + 1))
	done
	[ "$n" -ge 4 ]
}

@test "lava-run --validate can fail: a job for an architecture the device lacks" {
	[ "$(id -u)" -eq 0 ] || skip "lava-run runs only as root"
	lava_job arm64
	sed -i "s/^  arch: 'aarch64'$/  arch: 'sparc64'/" "$SCRATCH/lava-arm64/job.yaml"
	run lava-run --validate --job-id "$$" --output-dir "$SCRATCH/out" \
		--device "$SCRATCH/lava-arm64/device.yaml" "$SCRATCH/lava-arm64/job.yaml"
	[ "$status" -ne 0 ]
	grep -q '^result: fail$' "$SCRATCH/out/result.yaml"
}

@test "lava-job: the device is the cell's machine, the job deploys kernel, initramfs and DTB" {
	lava_job arm-biglittle --timeout 42
	local dev=$SCRATCH/lava-arm-biglittle/device.yaml job=$SCRATCH/lava-arm-biglittle/job.yaml
	grep -q "^          command: 'qemu-system-arm'$" "$dev"
	grep -q "^          - 'vexpress-a15'$" "$dev"
	grep -A1 -- '^          - -serial$' "$dev" | grep -q stdio
	# The stock template's extras that do not fit every cell are not there.
	run ! grep -q -e '-net' -e 'enable-kvm' "$dev"
	grep -q "url: 'file://$SCRATCH/build/kernel'" "$job"
	grep -q "url: 'file://$SCRATCH/build/initramfs.cpio'" "$job"
	grep -q "url: 'file://$SCRATCH/build/cell.dtb'" "$job"
	grep -q 'image_arg: .-kernel {kernel} -append "console=ttyAMA0 panic=-1 rdinit=/init".' "$job"
	grep -A1 '^- boot:' "$job" | grep -q 'method: qemu'
	grep -q '^      seconds: 42$' "$job"
}

@test "lava-job: relative paths, a missing DTB and a bad timeout are refused" {
	mkdir -p "$SCRATCH/o"
	run nmx lava-job --tree linux-6.1 --variant upstream --cell arm64 --kernel Image --initrd /i -o "$SCRATCH/o"
	[ "$status" -eq 2 ]
	[[ "$output" == *"absolute paths"* ]]
	run nmx lava-job --tree linux-6.1 --variant upstream --cell arm-biglittle --kernel /k --initrd /i -o "$SCRATCH/o"
	[ "$status" -eq 2 ]
	[[ "$output" == *"pass --dtb"* ]]
	run nmx lava-job --tree linux-6.1 --variant upstream --cell arm64 --kernel /k --initrd /i --timeout 0 -o "$SCRATCH/o"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--timeout wants seconds"* ]]
	run nmx lava-job --tree linux-6.1 --variant upstream --cell arm64 --kernel /k --initrd /i -o "$SCRATCH/none/o"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot write"* ]]
}

@test "lava-log: the console lines of a LAVA log, escapes decoded, other records and LAVA's own typing left out" {
	cat >"$SCRATCH/lava.log" <<-'LOG'
		{"dt": "2026-12-04T09:00:00.1", "lvl": "info", "msg": "start: 1 deploy"}
		{"dt": "2026-12-04T09:00:01.1", "lvl": "target", "msg": "Booting Linux on physical CPU 0x0"}
		{"dt": "2026-12-04T09:00:01.2", "lvl": "target", "msg": "ok 1 \"quoted\" \\ back\tslash"}
		{"dt": "2026-12-04T09:00:01.3", "lvl": "target", "msg": "\e[0mcolour \xFF byte \u00e9"}
		{"dt": "2026-12-04T09:00:01.4", "lvl": "results", "msg": {"case": "job", "result": "pass"}}
		{"dt": "2026-12-04T09:00:01.5", "lvl": "target", "msg": "cut off
		{"dt": "2026-12-04T09:00:01.6", "lvl": "target", "msg": ""}
		{"dt": "2026-12-04T09:00:01.7", "lvl": "target", "msg": "reboot: Power down"}
		{"dt": "2026-12-04T09:00:01.8", "lvl": "info", "msg": "Finalising connection for namespace 'common'"}
		{"dt": "2026-12-04T09:00:01.9", "lvl": "input", "msg": "poweroff\n"}
		{"dt": "2026-12-04T09:00:02.0", "lvl": "target", "msg": "poweroff"}
	LOG
	nmx lava-log "$SCRATCH/lava.log" >"$SCRATCH/console"
	printf 'Booting Linux on physical CPU 0x0\nok 1 "quoted" \\ back\tslash\n\033[0mcolour \377 byte \303\251\n\nreboot: Power down\n' >"$SCRATCH/want"
	cmp "$SCRATCH/want" "$SCRATCH/console"
	run nmx lava-log "$SCRATCH/none.log"
	[ "$status" -eq 2 ]
}

# Recorded 2026-12-04: linux-6.1 upstream x86_64 booted by boot.sh with
# NMX_BOOT_WITH=lava (its debug records left out).
@test "lava-log: a recorded lava-run log of an x86_64 boot is judged PASS, LAVA's typing left out" {
	nmx lava-log "$TESTS_DIR/console/lava-run-x86_64.log" >"$SCRATCH/boot.log"
	run nmx judge --log "$SCRATCH/boot.log" --out "$SCRATCH" \
		--findings "$TOP/patch/linux-6.1/FINDINGS.md" --cell x86_64 --variant upstream
	[ "$status" -eq 0 ]
	[[ "$output" == "PASS: 38 tests ok, 4 skipped" ]]
	grep -q '^NMX-RESULT: PASS$' "$SCRATCH/boot.log"
	grep -q '"after_final_marker": null' "$SCRATCH/verdict.json"
	[ "$(tail -n 1 "$SCRATCH/boot.log")" = "reboot: machine restart" ]
}

@test "matrix.sh --boot-with lava: the fake cell boots through lava-run and the judge decides" {
	[ "$(id -u)" -eq 0 ] || skip "lava-run runs only as root"
	setup_boot failed-subtest.log
	run "$TOP/matrix.sh" --no-install --boot-with lava
	[ "$status" -eq 1 ]
	local cell_dir
	cell_dir=$NMX_RESULTS/$(readlink "$NMX_RESULTS/latest")/fake-good-upstream/fakeboot
	grep -q '"status": "TEST_FAIL"' "$cell_dir/result.json"
	grep -q '^boot_with	lava$' "$cell_dir/meta.tsv"
	[ -s "$cell_dir/lava/lava-run.log" ]
	# boot.log is the recorded console, line for line, as LAVA saw it.
	diff <(tr -d '\r' <"$TESTS_DIR/console/failed-subtest.log") <(tr -d '\r' <"$cell_dir/boot.log")
}

@test "matrix.sh --boot-with: an unknown engine is refused" {
	run "$TOP/matrix.sh" --no-install --boot-with docker
	[ "$status" -eq 2 ]
	[[ "$output" == *"--boot-with docker: qemu"* ]]
}

@test "matrix.sh --loader: an unknown loader is refused" {
	run "$TOP/matrix.sh" --no-install --loader grub
	[ "$status" -eq 2 ]
	[[ "$output" == *"--loader grub: uboot"* ]]
}

@test "lava-outcome: a job that ran, one its time limit stopped, one that never started QEMU" {
	local d=$SCRATCH/cell
	mkdir -p "$d"
	printf '%s\n' '- {"dt": "2026-12-06T00:00:00", "lvl": "info", "msg": "Boot command: qemu-system-aarch64 -M virt"}' >"$SCRATCH/ran.log"
	printf 'result: pass\nduration: 12\n' >"$SCRATCH/ok.yaml"
	run "$NMX" lava-outcome --cell-dir "$d" --log "$SCRATCH/ran.log" --result "$SCRATCH/ok.yaml" --exit 0
	[ "$status" -eq 0 ]
	grep -qx 'lava_result	result: pass duration: 12 ' "$d/meta.tsv"
	# LAVA stopped the suite, or lava-run was killed (timeout's 124, 137).
	printf 'result: fail\nerror_msg: lava-test-shell timed out after 900 seconds\n' >"$SCRATCH/late.yaml"
	run "$NMX" lava-outcome --cell-dir "$d" --log "$SCRATCH/ran.log" --result "$SCRATCH/late.yaml" --exit 1
	[ "$status" -eq 1 ]
	run "$NMX" lava-outcome --cell-dir "$d" --log "$SCRATCH/ran.log" --result "$SCRATCH/ok.yaml" --exit 137
	[ "$status" -eq 1 ]
	# No QEMU command line in LAVA's log: the lab's failure, with LAVA's reason.
	printf '%s\n' '- {"dt": "2026-12-06T00:00:00", "lvl": "error", "msg": "Job error"}' >"$SCRATCH/refused.log"
	printf 'result: fail\nerror_msg: Invalid job definition: arch\n' >"$SCRATCH/refused.yaml"
	run "$NMX" lava-outcome --cell-dir "$d" --log "$SCRATCH/refused.log" --result "$SCRATCH/refused.yaml" --exit 1
	[ "$status" -eq 3 ]
	[ "$output" = 'lava-run did not start QEMU: Invalid job definition: arch' ]
	run "$NMX" lava-outcome --cell-dir "$d" --log "$SCRATCH/none.log" --result "$SCRATCH/ok.yaml" --exit 0
	[ "$status" -eq 2 ]
	run "$NMX" lava-outcome --cell-dir "$d" --log "$SCRATCH/ran.log" --result "$SCRATCH/ok.yaml" --exit x
	[ "$status" -eq 2 ]
}
