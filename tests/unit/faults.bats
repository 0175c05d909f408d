#!/usr/bin/env bats
# Faults injected through the real scripts, on the fake tree: each gives
# the status and exit code the README promises, names what to do, and
# leaves earlier results alone.

load helpers

# fake_cell_with NAME SED-EXPRESSION: a copy of the fake cell, changed.
fake_cell_with() {
	mkdir -p "$SCRATCH/arches"
	sed "s/^name: fake$/name: $1/; $2" "$TESTS_DIR/fake-tree/arches/fake.yaml" \
		>"$SCRATCH/arches/$1.yaml"
	cp "$TESTS_DIR/fake-tree/arches/fake.yaml" "$SCRATCH/arches/"
	export NMX_ARCHES_DIR=$SCRATCH/arches
}

# A PATH with everything but the tools named.
path_without() {
	local dir=$SCRATCH/bin f
	mkdir -p "$dir"
	for f in /usr/bin/* /usr/sbin/*; do
		case " $* " in *" ${f##*/} "*) continue ;; esac
		ln -sf "$f" "$dir/${f##*/}"
	done
	echo "$dir"
}

@test "cross compiler missing: INFRA_FAIL (exit 2) naming the Debian package" {
	setup_fake
	fake_cell_with nocc 's/^cross_compile: .*/cross_compile: mips-linux-gnu-/'
	run "$TOP/build.sh" --cell-dir "$CELL" fake-good upstream nocc
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing: mips-linux-gnu-gcc (Debian package gcc-mips-linux-gnu)"* ]]
	grep -q "INFRA_FAIL.*gcc-mips-linux-gnu" "$CELL/stages.tsv"
}

@test "mkimage missing: INFRA_FAIL (exit 2) naming u-boot-tools, after the kernel built" {
	setup_fake
	fake_cell_with uimg 's/^kernel_image: .*/&\nuimage_load: "0x40008000"/'
	PATH=$(path_without mkimage) run "$TOP/build.sh" --cell-dir "$CELL" fake-good upstream uimg
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing: mkimage (Debian package u-boot-tools)"* ]]
	grep -q '^kernel	INFRA_FAIL' "$CELL/stages.tsv"
}

@test "QEMU missing: boot INFRA_FAIL (exit 2) naming the package" {
	setup_fake
	fake_cell_with noqemu 's/^  binary: .*/  binary: qemu-system-mips64el/'
	# Installed where the mips64el cell runs: taken off PATH here.
	PATH=$(path_without qemu-system-mips64el) run "$TOP/boot.sh" --cell-dir "$CELL" fake-good upstream noqemu
	[ "$status" -eq 2 ]
	[[ "$output" == *"missing: qemu-system-mips64el (Debian package qemu-system-mips)"* ]]
	grep -q '^boot	INFRA_FAIL' "$CELL/stages.tsv"
}

@test "a boot past its time limit: QEMU stopped, judged TIMEOUT (not a boot failure), never kept for reuse" {
	setup_boot
	sed -i 's/^run:$/run:\n  boot_timeout: 1/' "$NMX_MATRIX"
	"$TOP/build.sh" --cell-dir "$CELL" fake-good upstream fakeboot
	NMX_FAKE_QEMU_SECONDS=30 run "$TOP/boot.sh" --cell-dir "$CELL" fake-good upstream fakeboot
	[[ "$output" != *warning* ]]
	[ "$status" -eq 1 ]
	grep -q '"status": "TIMEOUT"' "$CELL/verdict.json"
	grep -q '^boot	ok	.*	QEMU killed after timeout$' "$CELL/stages.tsv"
	[ ! -d "$NMX_CACHE/boots" ] || [ -z "$(ls "$NMX_CACHE/boots")" ]
}

@test "one cell's compiler missing in a run: that cell INFRA_FAIL, the others still run, exit 2" {
	setup_fake
	fake_cell_with nocc 's/^cross_compile: .*/cross_compile: mips-linux-gnu-/'
	sed -i 's/cells: \[fake\]/cells: [nocc, fake]/' "$NMX_MATRIX"
	export NMX_RESULTS=$SCRATCH/results
	run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 2 ]
	grep -q 'nocc .*INFRA_FAIL' "$NMX_RESULTS/latest/summary.txt"
	# The other cell got as far as it can (the fake has no guest).
	grep -q 'fake .*BUILD_FAIL' "$NMX_RESULTS/latest/summary.txt"
}

pristine_dir() {
	find "$NMX_CACHE/src" -mindepth 1 -maxdepth 1 -type d -name 'nmx-fake-package_*' ! -name '*.tmp'
}

@test "pristine tree half unpacked (killed mid-tar): unpacked again" {
	setup_fake
	build fake-good prepare
	local p
	p=$(pristine_dir)
	# As a kill during ensure_pristine leaves it: no .ok, partial files.
	rm -f "$p.ok" "$p/README"
	mkdir -p "$p.tmp/linux-fake"
	build fake-good prepare
	[ "$status" -eq 0 ]
	grep -q 'was not unpacked completely: unpacking it again' "$CELL/build.log"
	[ -f "$p.ok" ]
	[ ! -e "$p.tmp" ]
	grep -q 'three lines, patched' "$NMX_CACHE/work/fake-good-upstream/src/README"
}

@test "pristine tree damaged (file edited, file deleted): detected, unpacked again, worktree remade" {
	setup_fake
	build fake-good prepare
	local p
	p=$(pristine_dir)
	echo damage >>"$p/Makefile"
	rm "$p/README"
	build fake-good prepare
	[ "$status" -eq 0 ]
	grep -q 'is damaged' "$CELL/build.log"
	run ! grep -q damage "$p/Makefile"
	grep -q 'three lines, patched' "$NMX_CACHE/work/fake-good-upstream/src/README"
	grep -q 'belongs to a pristine copy that is gone' "$CELL/build.log"
}

@test "pristine tree's git repository broken: detected, unpacked again" {
	setup_fake
	build fake-good prepare
	local p
	p=$(pristine_dir)
	rm -rf "$p/.git/objects"
	build fake-good prepare
	[ "$status" -eq 0 ]
	grep -q 'is damaged' "$CELL/build.log"
	git -C "$p" rev-parse pristine
}

# A small tmpfs filled up: writes fail with ENOSPC, as on a full disk.
# Needs root (mount); tests/run.sh runs as root on the CI machine.
full_disk() { # [size]
	FULL=$SCRATCH/full
	mkdir -p "$FULL"
	if ! mount -t tmpfs -o "size=${1:-512k}" nmx-full "$FULL" 2>/dev/null; then
		skip "cannot mount a tmpfs here (not root)"
	fi
	MOUNTED=$FULL
}

teardown() {
	[ -z "${MOUNTED:-}" ] || umount "$MOUNTED"
	rm -rf "$SCRATCH"
}

fill_disk() {
	dd if=/dev/zero of="$FULL/filler" bs=4k 2>/dev/null || true
}

@test "disk full while judging: exit 2 naming the file, the earlier verdict intact" {
	full_disk
	local jdir=$FULL/cell
	mkdir -p "$jdir"
	"$NMX" judge --log "$TESTS_DIR/console/clean-pass-arm64.log" --out "$jdir" >/dev/null
	cp "$jdir/verdict.json" "$SCRATCH/before.json"
	fill_disk
	run "$NMX" judge --log "$TESTS_DIR/console/clean-pass-arm64.log" --out "$jdir"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot write "*"No space left on device"* ]]
	cmp "$SCRATCH/before.json" "$jdir/verdict.json"
	[ ! -e "$jdir/verdict.json.tmp" ]
}

@test "disk full while writing the reports and summary: exit 2 naming the file, the run's records intact" {
	full_disk 8m
	cp -r "$TESTS_DIR/report/runs/all-pass" "$FULL/run"
	(cd "$FULL/run" && find . -type f | sort | xargs sha256sum) >"$SCRATCH/before.sha256"
	fill_disk
	run "$NMX" report "$FULL/run"
	[ "$status" -eq 2 ]
	[[ "$output" == *"writing "*"report.html failed: No space left on device"* ]]
	run "$NMX" summary "$FULL/run"
	[ "$status" -eq 2 ]
	[[ "$output" == *"summary.txt"*"No space left on device"* ]]
	rm "$FULL/filler"
	(cd "$FULL/run" && sha256sum -c --quiet "$SCRATCH/before.sha256")
	[ -z "$(find "$FULL/run" -name '*.tmp')" ]
}
