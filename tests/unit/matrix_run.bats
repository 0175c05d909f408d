#!/usr/bin/env bats
# matrix.sh as a whole on the fake tree: an interrupted run and --resume,
# two runs on one cache. The fake cells build but cannot boot (no guest),
# so each finishes BUILD_FAIL: what matters here is which cells ran.

load helpers
scripts_under_test

# Three fake cells; fake2 sleeps in its kernel build when $1 is "slow".
setup_run() {
	local c
	setup_fake "" "fake, fake2, fake3"
	mkdir "$SCRATCH/arches"
	for c in fake fake2 fake3; do
		sed "s/^name: fake$/name: $c/" "$TESTS_DIR/fake-tree/arches/fake.yaml" >"$SCRATCH/arches/$c.yaml"
	done
	[ "${1:-}" = slow ] && sed -i 's/^  - CONFIG_FAKE_WANTED=y/&\n  - CONFIG_FAKE_SLEEP=y/' "$SCRATCH/arches/fake2.yaml"
	export NMX_ARCHES_DIR=$SCRATCH/arches NMX_RESULTS=$SCRATCH/results
}

cell_dir() { # cell
	echo "$NMX_RESULTS/$RUN_ID/fake-good-upstream/$1"
}

# Start matrix.sh, wait until fake2's build sleeps, then send SIGNAL.
interrupt_at_fake2() { # signal
	# A background job ignores SIGINT unless told otherwise.
	env --default-signal=INT "$TOP/matrix.sh" --no-install >"$SCRATCH/run.log" 2>&1 &
	local pid=$! _
	for _ in $(seq 300); do
		[ -e "$NMX_CACHE/work/fake-good-upstream/out/fake2/sleeping" ] && break
		sleep 0.1
	done
	[ -e "$NMX_CACHE/work/fake-good-upstream/out/fake2/sleeping" ]
	kill "-$1" "$pid"
	rc=0
	wait "$pid" || rc=$?
	RUN_ID=$(basename "$(find "$NMX_RESULTS" -mindepth 1 -maxdepth 1 -type d)")
}

# process_gone PID: the process has ended (gone, or a zombie its parent
# has not reaped yet).
process_gone() {
	local state
	state=$(ps -o stat= -p "$1" || true)
	[ -z "$state" ] || [[ "$state" == Z* ]]
}

@test "SIGTERM mid-run: exit 2, the run says which cells finished, the build stopped" {
	setup_run slow
	interrupt_at_fake2 TERM
	[ "$rc" -eq 2 ]
	grep -q '^interrupted by SIGTERM' "$NMX_RESULTS/$RUN_ID/interrupted.txt"
	grep -q '^finished: fake-good-upstream/fake$' "$NMX_RESULTS/$RUN_ID/interrupted.txt"
	grep -q '^not finished: fake-good-upstream/fake2 fake-good-upstream/fake3$' "$NMX_RESULTS/$RUN_ID/interrupted.txt"
	[ -f "$(cell_dir fake)/result.json" ]
	[ ! -f "$(cell_dir fake2)/result.json" ]
	# The sleeping make went with it (its sleep, not another test's), and
	# no summary or report claims a run.
	process_gone "$(cat "$NMX_CACHE/work/fake-good-upstream/out/fake2/sleep.pid")"
	[ ! -e "$NMX_RESULTS/$RUN_ID/summary.txt" ]
}

@test "SIGINT mid-run, then --resume: the finished cell is kept, the rest run, the reports cover all three" {
	setup_run slow
	interrupt_at_fake2 INT
	[ "$rc" -eq 2 ]
	grep -q '^interrupted by SIGINT' "$NMX_RESULTS/$RUN_ID/interrupted.txt"
	cp "$(cell_dir fake)/result.json" "$SCRATCH/fake-result.json"
	sed -i '/CONFIG_FAKE_SLEEP/d' "$SCRATCH/arches/fake2.yaml"
	run "$TOP/matrix.sh" --no-install --resume "$RUN_ID"
	[ "$status" -eq 1 ]	# the fake cells cannot boot: BUILD_FAIL
	[[ "$output" == *"fake (fake-good-upstream): finished before, kept"* ]]
	cmp "$SCRATCH/fake-result.json" "$(cell_dir fake)/result.json"
	[ -f "$(cell_dir fake2)/result.json" ]
	[ -f "$(cell_dir fake3)/result.json" ]
	[ ! -e "$NMX_RESULTS/$RUN_ID/interrupted.txt" ]
	[ "$(grep -c 'fake-good' "$NMX_RESULTS/$RUN_ID/summary.txt")" -eq 3 ]
	grep -q 'fake3' "$NMX_RESULTS/$RUN_ID/junit.xml"
	grep -q 'fake2' "$NMX_RESULTS/$RUN_ID/report.md"
	# Only one attempt's records in the cell that was cut off.
	[ "$(grep -c '^prepare' "$(cell_dir fake2)/stages.tsv")" -eq 1 ]
}

@test "--resume of a run that does not exist: exit 2, saying so" {
	setup_run
	run "$TOP/matrix.sh" --no-install --resume 20260101T000000Z
	[ "$status" -eq 2 ]
	[[ "$output" == *"no run '20260101T000000Z' to resume"* ]]
	run "$TOP/matrix.sh" --no-install --resume ../../etc
	[ "$status" -eq 2 ]
}

@test "two matrix.sh on one cache: the second refuses (NMX_LOCK_WAIT=0) or waits, nothing mixed" {
	setup_run
	mkdir -p "$NMX_CACHE"
	# Someone holds the cache.
	flock "$NMX_CACHE/matrix.lock" sleep 3 &
	local holder=$!
	sleep 0.5
	NMX_LOCK_WAIT=0 run "$TOP/matrix.sh" --no-install --cell fake
	[ "$status" -eq 2 ]
	[[ "$output" == *"another matrix.sh is using"* ]]
	[ ! -d "$NMX_RESULTS" ] || [ -z "$(ls "$NMX_RESULTS")" ]
	# By default it waits for the holder, then runs.
	run "$TOP/matrix.sh" --no-install --cell fake
	[ "$status" -eq 1 ]
	[[ "$output" == *"waiting for it to finish"* ]]
	wait "$holder"
	[ "$(grep -c 'fake-good' "$NMX_RESULTS/latest/summary.txt")" -eq 1 ]
}

# Three bootable fake cells whose boots take a second each.
setup_boots() {
	local c
	setup_boot
	mkdir "$SCRATCH/arches"
	for c in fakeboot fakeboot2 fakeboot3; do
		sed "s/^name: fakeboot$/name: $c/" "$TESTS_DIR/fake-tree/arches-boot/fakeboot.yaml" \
			>"$SCRATCH/arches/$c.yaml"
	done
	sed -i 's/^  cells: \[fakeboot\]$/  cells: [fakeboot, fakeboot2, fakeboot3]/' "$NMX_MATRIX"
	export NMX_ARCHES_DIR=$SCRATCH/arches NMX_FAKE_QEMU_SECONDS=1
	export NMX_FAKE_QEMU_TRACE=$SCRATCH/boots
}

# The most boots that ran at once, from the fake QEMU's notes.
most_at_once() {
	awk '$1 == "start" { n++ } $1 == "end" { n-- } n > max { max = n } END { print max }' "$SCRATCH/boots"
}

@test "-j 2: the kernels are built first, then two boots at a time; same verdicts as -j 1" {
	setup_boots
	# No boot beside a build (the default on 2 cores).
	NMX_BOOTS_BESIDE_BUILD=0 run "$TOP/matrix.sh" --no-install -j 2
	[ "$status" -eq 0 ]
	[ "$(most_at_once)" -eq 2 ]
	[[ "$output" == *"3 cell(s), 2 boot(s) at a time"* ]]
	# Every build before the first boot.
	[ "$(grep -n 'fakeboot3 (fake-good-upstream): guest' <<<"$output" | cut -d: -f1)" -lt \
		"$(grep -n 'boot with tcg' <<<"$output" | head -n 1 | cut -d: -f1)" ]
	grep -v '^#' "$NMX_RESULTS/latest/summary.txt" | awk '{ print $1, $2, $3 }' >"$SCRATCH/parallel"
	rm "$SCRATCH/boots"
	NMX_JOBS=1 run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 0 ]
	[ "$(most_at_once)" -eq 1 ]
	grep -v '^#' "$NMX_RESULTS/latest/summary.txt" | awk '{ print $1, $2, $3 }' >"$SCRATCH/serial"
	diff "$SCRATCH/serial" "$SCRATCH/parallel"
}

@test "-j 2, two trees, no boot beside a build: a tree's cells boot before the next tree's kernels" {
	setup_boots
	# A second tree of the same sources, after fake-good in matrix.yaml.
	sed -i "s|^  fake-bad:\$|  fake-next:\\n    package: nmx-fake-package\\n    tarball: $SCRATCH/linux-fake.tar.xz\\n    series: $TESTS_DIR/fake-tree/series-good\\n    variants: {upstream: {}}\\n&|" "$NMX_MATRIX"
	NMX_FAKE_BUILD_TRACE=$SCRATCH/boots NMX_BOOTS_BESIDE_BUILD=0 \
		run "$TOP/matrix.sh" --no-install -j 2 --tree fake-good --tree fake-next
	[ "$status" -eq 0 ]
	[[ "$output" == *"6 cell(s), 2 boot(s) at a time"* ]]
	[ "$(grep -c ' PASS ' "$NMX_RESULTS/latest/summary.txt")" -eq 6 ]
	# The trace, one letter a line: B a build, G a boot of fake-good, N
	# one of fake-next (each from start to end).
	awk '$1 == "build-start" { printf "B" } $1 == "start" && $3 ~ /fake-good/ { printf "G" }
		$1 == "start" && $3 ~ /fake-next/ { printf "N" } END { print "" }' "$SCRATCH/boots" >"$SCRATCH/order"
	[ "$(cat "$SCRATCH/order")" = BBBGGGBBBNNN ]
	# fake-good's last boot ended before fake-next's first build.
	[ "$(awk '$1 == "build-start" { b++ } $1 == "end" && b == 3 { e++ } END { print e + 0 }' "$SCRATCH/boots")" -eq 3 ]
	# The check can fail: builds first when boots may run beside them.
	rm "$SCRATCH/boots"
	NMX_FAKE_BUILD_TRACE=$SCRATCH/boots NMX_BOOTS_BESIDE_BUILD=1 NMX_FAKE_BUILD_SECONDS=2 \
		run "$TOP/matrix.sh" --no-install -j 2 --tree fake-good --tree fake-next
	[ "$status" -eq 0 ]
	[ "$(awk '$1 == "build-start" { printf "B" } $1 == "start" { printf "S" } END { print "" }' "$SCRATCH/boots")" != BBBSSSBBBSSS ]
}

@test "-j 2 --boots-beside 1: built cells boot while the next builds, one at a time then" {
	setup_boots
	export NMX_FAKE_BUILD_TRACE=$SCRATCH/boots NMX_FAKE_BUILD_SECONDS=2
	run "$TOP/matrix.sh" --no-install -j 2 --boots-beside 1
	[ "$status" -eq 0 ]
	[[ "$output" == *"up to 1 boot(s) beside a build (make -j$(($(nproc) + 1 - 1)))"* ]]
	grep -q -- "-j$(($(nproc) + 1 - 1)) " "$NMX_RESULTS/latest/fake-good-upstream/fakeboot/reproduce.sh"
	# The first cell's boot started before the last build ended...
	[ "$(grep -n '^start' "$SCRATCH/boots" | head -n 1 | cut -d: -f1)" -lt \
		"$(grep -n '^build-end' "$SCRATCH/boots" | tail -n 1 | cut -d: -f1)" ]
	# ... and no more than one boot ran beside a build.
	[ "$(awk '/^build-start/ { b = 1 } /^build-end/ { b = 0 } $1 == "start" { n++ }
		$1 == "end" { n-- } b && n > max { max = n } END { print max + 0 }' "$SCRATCH/boots")" -le 1 ]
	[ "$(grep -c ' PASS ' "$NMX_RESULTS/latest/summary.txt")" -eq 3 ]
	# The same through the environment, and a bad value refused before
	# the run starts.
	rm "$SCRATCH/boots"
	NMX_BOOTS_BESIDE_BUILD=1 run "$TOP/matrix.sh" --no-install -j 2
	[ "$status" -eq 0 ]
	[[ "$output" == *"up to 1 boot(s) beside a build"* ]]
	run "$TOP/matrix.sh" --no-install -j 2 --boots-beside=many
	[ "$status" -eq 2 ]
	[[ "$output" == *"--boots-beside many: a number of boots"* ]]
	[[ "$output" != *"cell(s),"* ]]
}

# Did a boot of fakeboot2 run beside another boot or a build? 1 if so.
fakeboot2_not_alone() {
	awk '/^build-start/ { b = 1 } /^build-end/ { b = 0 }
		$1 == "start" { n++; if ($3 ~ /\/fakeboot2\//) { alone = $2; if (b) bad = 1 } }
		$1 == "start" && alone != "" && n > 1 { bad = 1 }
		$1 == "end" { n--; if ($2 == alone) alone = "" }
		END { print bad + 0 }' "$SCRATCH/boots"
}

@test "-j 2 with a cell that boots alone (qemu.alone): nothing boots beside it, nor a build; the others two at a time" {
	setup_boots
	sed -i 's/^  console: ttyS0$/&\n  alone: true/' "$SCRATCH/arches/fakeboot2.yaml"
	# Boots beside builds (the first run builds): fakeboot2 waits for the last build.
	NMX_FAKE_BUILD_TRACE=$SCRATCH/boots NMX_FAKE_BUILD_SECONDS=2 NMX_BOOTS_BESIDE_BUILD=1 \
		run "$TOP/matrix.sh" --no-install -j 2
	[ "$status" -eq 0 ]
	grep -q '^build-end' "$SCRATCH/boots"
	grep -q 'fakeboot2/boot.log' "$SCRATCH/boots"
	[ "$(fakeboot2_not_alone)" -eq 0 ]
	[ "$(grep -c ' PASS ' "$NMX_RESULTS/latest/summary.txt")" -eq 3 ]
	# Two boots at a time, none beside fakeboot2.
	rm "$SCRATCH/boots"
	NMX_BOOTS_BESIDE_BUILD=0 run "$TOP/matrix.sh" --no-install -j 2
	[ "$status" -eq 0 ]
	[ "$(fakeboot2_not_alone)" -eq 0 ]
	[ "$(most_at_once)" -eq 2 ]
	[ "$(grep -c ' PASS ' "$NMX_RESULTS/latest/summary.txt")" -eq 3 ]
	# The check can fail: without the key, fakeboot2 boots beside the others.
	sed -i '/^  alone: true$/d' "$SCRATCH/arches/fakeboot2.yaml"
	rm "$SCRATCH/boots"
	NMX_BOOTS_BESIDE_BUILD=0 run "$TOP/matrix.sh" --no-install -j 2
	[ "$status" -eq 0 ]
	[ "$(fakeboot2_not_alone)" -eq 1 ]
}

@test "-j 2: SIGTERM during the boots stops them all; --resume finishes the run" {
	setup_boots
	export NMX_FAKE_QEMU_SECONDS=30
	"$TOP/matrix.sh" --no-install -j 2 >"$SCRATCH/run.log" 2>&1 &
	local pid=$! _
	for _ in $(seq 300); do
		[ "$(grep -c '^start' "$SCRATCH/boots" 2>/dev/null)" = 2 ] && break
		sleep 0.1
	done
	kill -TERM "$pid"
	rc=0
	wait "$pid" || rc=$?
	[ "$rc" -eq 2 ]
	# Both boots' sleeps went with them (theirs: another test running
	# beside this one may have a sleep 30 of its own).
	local sleepers p
	sleepers=$(awk '$1 == "sleep" { print $2 }' "$SCRATCH/boots")
	[ "$(echo "$sleepers" | wc -w)" -eq 2 ]
	for p in $sleepers; do
		process_gone "$p"
	done
	RUN_ID=$(basename "$(find "$NMX_RESULTS" -mindepth 1 -maxdepth 1 -type d)")
	grep -q '^not finished: fake-good-upstream/fakeboot fake-good-upstream/fakeboot2 fake-good-upstream/fakeboot3$' \
		"$NMX_RESULTS/$RUN_ID/interrupted.txt"
	NMX_FAKE_QEMU_SECONDS=0 run "$TOP/matrix.sh" --no-install -j 2 --resume "$RUN_ID"
	[ "$status" -eq 0 ]
	[ "$(grep -c ' PASS ' "$NMX_RESULTS/$RUN_ID/summary.txt")" -eq 3 ]
}

@test "--reuse-boots: an unchanged cell is judged from the console of its earlier boot; a changed one boots" {
	setup_boots
	run "$TOP/matrix.sh" --no-install -j 2
	[ "$status" -eq 0 ]
	local first
	first=$(readlink "$NMX_RESULTS/latest")
	[ "$(grep -c '^start' "$SCRATCH/boots")" -eq 3 ]
	# Without the option a rerun boots every cell again.
	run "$TOP/matrix.sh" --no-install -j 2
	[ "$(grep -c '^start' "$SCRATCH/boots")" -eq 6 ]
	run "$TOP/matrix.sh" --no-install -j 2 --reuse-boots
	[ "$status" -eq 0 ]
	[ "$(grep -c '^start' "$SCRATCH/boots")" -eq 6 ]
	[[ "$output" == *"fakeboot (fake-good-upstream): boot not run again: the same kernel, initramfs and machine booted in "* ]]
	local dir=$NMX_RESULTS/latest/fake-good-upstream/fakeboot
	grep -q '^boot_reused_from	.*/fake-good-upstream/fakeboot$' "$dir/meta.tsv"
	grep -q '"status": "PASS"' "$dir/result.json"
	grep -q '^cp .*/boots/.*/boot.log ' "$dir/reproduce.sh"
	cmp "$dir/boot.log" "$NMX_RESULTS/$first/fake-good-upstream/fakeboot/boot.log"
	# A cell whose arch file changed boots again (the others are reused).
	sed -i 's/^  - CONFIG_FAKE_WANTED=y$/&\n  - CONFIG_FAKE_COMPILE=y/' "$NMX_ARCHES_DIR/fakeboot.yaml"
	run "$TOP/matrix.sh" --no-install -j 2 --reuse-boots
	[ "$status" -eq 0 ]
	[ "$(grep -c '^start' "$SCRATCH/boots")" -eq 7 ]
}

@test "--boots (-j) and --make-jobs: not a positive number is refused, naming the option" {
	setup_boots
	run "$TOP/matrix.sh" --no-install -j 0
	[ "$status" -eq 2 ]
	[[ "$output" == *"--boots 0: the number of boots at a time is a positive number"* ]]
	NMX_JOBS=two run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 2 ]
	run "$TOP/matrix.sh" --no-install --make-jobs=lots
	[ "$status" -eq 2 ]
	[[ "$output" == *"--make-jobs lots: make's jobs per kernel build is a positive number"* ]]
}

@test "--make-jobs N: each kernel is built with make -jN; --boots 1 is the serial mode" {
	setup_boot
	run "$TOP/matrix.sh" --no-install --boots 1 --make-jobs 3
	[ "$status" -eq 0 ]
	[[ "$output" == *"1 boot(s) at a time"* ]]
	grep -q -- " -j3 " "$NMX_RESULTS/latest/fake-good-upstream/fakeboot/reproduce.sh"
}

@test "progress: a rerun's lines carry the last run's figures, stage by stage, and the run's expected end" {
	setup_boot
	run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 0 ]
	[[ "$output" != *"last run:"* ]]
	# A cell never run here is expected from a first run's typical
	# figures (benchmarks/typical-seconds.tsv, its variant's median row).
	[[ "$output" == *"expected: about "*" min, finishing near "*"(a first run's typical figures for 1 of 1 cell(s)"* ]]
	run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 0 ]
	[[ "$output" == *"expected: about 1 min, finishing near "*"(the last run's figures for 1 of 1 cell(s)"* ]]
	[[ "$output" =~ fakeboot\ \(fake-good-upstream\):\ kernel\ \(last\ run:\ [0-9]+\ s\) ]]
	[[ "$output" =~ boot\ with\ tcg,\ timeout\ [0-9]+s,\ last\ run:\ [0-9]+\ s ]]
	# Each kernel's stages when built, each cell's verdict as it finishes.
	[[ "$output" =~ fakeboot\ \(fake-good-upstream\):\ built:\ prepare\ [0-9]+\ s,\ configure\ [0-9]+\ s,\ kernel\ [0-9]+\ s,\ guest\ [0-9]+\ s ]]
	[[ "$output" =~ \[1/1\]\ fakeboot\ \(fake-good-upstream\):\ PASS,\ [0-9]+\ tests\ ok\;\ kernel\ [0-9]+\ s,\ boot\ [0-9]+\ s ]]
}
