#!/usr/bin/env bats
# The other side of the report table: the real console of a clean boot of
# every cell of arches/ on every tree it builds on, through its default
# boot path (U-Boot, OpenSBI + U-Boot, SLOF, QEMU's loader), recorded
# under tests/console/real/<tree>-<variant>-<cell>.log, and the same
# kernels booted with printk.time=1 (boot.sh --kernel-args; what
# CONFIG_PRINTK_TIME=y prints) under tests/console/real-printk-time/. Each
# is judged with its tree's FINDINGS.md and must be PASS: a key of
# kernel_reports.c that matches a clean console is a false positive.

load helpers

REAL=$TESTS_DIR/console/real

# judge_real LOG [nmx judge args]: judge one recorded console as the
# run judged it (its tree's FINDINGS.md, its cell and variant).
judge_real() {
	local log=$1 base tree variant cell
	shift
	base=$(basename "$log" .log)
	tree=${base%%-upstream-*}
	variant=upstream
	cell=${base#"$tree-$variant-"}
	mkdir -p "$SCRATCH/$base"
	run "$NMX" judge --log "$log" --out "$SCRATCH/$base" \
		--findings "$TOP/patch/$tree/FINDINGS.md" --cell "$cell" --variant "$variant" "$@"
}

# every_arch_file_has_a_console: the recorded set covers arches/, but for
# the cells real/NOT-CLEAN names with where their failure is written up.
@test "a real console of every cell of arches/ on every tree it builds on (or a written-up reason)" {
	local cell missing=() stale=()
	for cell in $(nmx cells --set all | awk '$2 == "upstream" { print $1 "-upstream-" $3 }'); do
		if grep -q "^$cell	[^ ]" "$REAL/NOT-CLEAN"; then
			[ ! -f "$REAL/$cell.log" ] || stale+=("$cell")
		else
			[ -f "$REAL/$cell.log" ] || missing+=("$cell")
		fi
	done
	echo "missing: ${missing[*]}; in NOT-CLEAN but recorded: ${stale[*]}"
	# Two checks: under bats's set -e, a failing `[ ]` before && stops nothing.
	[ "${#missing[@]}" -eq 0 ]
	[ "${#stale[@]}" -eq 0 ]
	# Each reason names a FINDINGS.md that says it.
	while IFS=$'\t' read -r cell why; do
		case $cell in '#'* | '') continue ;; esac
		[ -f "$TOP/${why%%:*}" ]
		grep -q "${why#*: }" "$TOP/${why%%:*}"
	done <"$REAL/NOT-CLEAN"
}

@test "every real clean console is PASS: no false positive" {
	local log bad=()
	for log in "$REAL"/*.log; do
		judge_real "$log"
		[ "$status" -eq 0 ] || bad+=("$(basename "$log"): $output")
	done
	printf '%s\n' "${bad[@]}"
	[ "${#bad[@]}" -eq 0 ]
}

@test "every real clean console is PASS with the kernel's timestamps on its lines" {
	local log bad=() t
	for log in "$REAL"/*.log; do
		t=$SCRATCH/$(basename "$log")
		# What printk.time=1 adds: "[    1.234567] " before each line of
		# the kernel's, i.e. every line but the guest's own output (from
		# its "KTAP version 1" to its final marker).
		tr -d '\r' <"$log" | awk '
			/^KTAP version 1$/ { guest = 1 }
			/^NMX-RESULT: / { print; guest = 0; next }
			guest { print; next }
			{ printf "[%5d.%06d] %s\n", NR / 50, NR * 7919 % 1000000, $0 }' >"$t"
		grep -q '^\[ *[0-9]*\.[0-9]*\] ' "$t"
		judge_real "$t"
		[ "$status" -eq 0 ] || bad+=("$(basename "$log"): $output")
	done
	printf '%s\n' "${bad[@]}"
	[ "${#bad[@]}" -eq 0 ]
}

@test "every real clean console booted with printk.time=1 is PASS" {
	local log bad=() n=0
	for log in "$TESTS_DIR"/console/real-printk-time/*.log; do
		grep -q '^\[ *[0-9]*\.[0-9]*\] ' "$log"
		judge_real "$log"
		[ "$status" -eq 0 ] || bad+=("$(basename "$log"): $output")
		n=$((n + 1))
	done
	printf '%s\n' "${bad[@]}"
	[ "${#bad[@]}" -eq 0 ]
	[ "$n" -eq "$(find "$REAL" -name '*.log' | wc -l)" ]
}
