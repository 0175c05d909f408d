#!/usr/bin/env bats
# nmx guard, which boot.sh runs QEMU under: the time limit as timeout -k 5
# had it (124, 137), a boot stopped soon after the console shows the
# kernel's panic (a machine that cannot reset, as sparc64's sun4u, would
# otherwise run to the timeout), and the command's own exit otherwise.
# Shell loops stand in for QEMU, writing the console as it would (to
# "$1": the quotes are the stand-in's own).
# shellcheck disable=SC2016

load helpers

setup() {
	SCRATCH=$(mktemp -d)
	LOG=$SCRATCH/boot.log
}

@test "guard: a boot that ends is its own exit, a panic on the command line is no panic" {
	run "$NMX" guard --log "$LOG" --timeout 30 -- \
		sh -c 'echo "Kernel command line: console=ttyS0 panic=-1" >"$1"; exit 3' sh "$LOG"
	[ "$status" -eq 3 ]
	[ -z "$output" ]
}

@test "guard: a panic that loops (\"Reboot failed!\") is stopped after the grace, not at the timeout" {
	local t0=$SECONDS
	# The panic's line arrives in two writes, as a serial port gives it.
	run "$NMX" guard --log "$LOG" --timeout 60 --grace 1 -- sh -c '
		printf "[   28.7] Kernel pa" >"$1"; sleep 0.3
		printf "nic - not syncing: corrupted stack end detected inside scheduler\n" >>"$1"
		while :; do echo "Kernel panic - not syncing: Reboot failed!" >>"$1"; sleep 0.1; done' sh "$LOG"
	echo "$output"
	[ $((SECONDS - t0)) -lt 10 ]
	[ "$status" -ne 124 ]
	[ "$status" -ne 137 ]
	[[ "$output" == *'the kernel panicked ("[   28.7] Kernel panic - not syncing: corrupted stack end detected inside scheduler"); sh stopped 1 s later'* ]]
}

@test "guard: the time runs out: 124; a command that ignores SIGTERM is killed: 137" {
	run "$NMX" guard --log "$LOG" --timeout 1 -- sleep 30
	[ "$status" -eq 124 ]
	[[ "$output" == *'sleep stopped after 1 s (--timeout)'* ]]
	run "$NMX" guard --log "$LOG" --timeout 1 -- sh -c 'trap "" TERM; exec sleep 30'
	[ "$status" -eq 137 ]
}

@test "guard: a console with no panic runs to the timeout" {
	run "$NMX" guard --log "$LOG" --timeout 2 --grace 1 -- sh -c '
		while :; do echo "ok 1 still going" >>"$1"; sleep 0.1; done' sh "$LOG"
	[ "$status" -eq 124 ]
}

@test "guard: bad input is exit 2 saying what" {
	run "$NMX" guard --log "$LOG" -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *usage* ]]
	run "$NMX" guard --log "$LOG" --timeout soon -- true
	[ "$status" -eq 2 ]
	[[ "$output" == *"--timeout 'soon': not a number of seconds"* ]]
	run -127 "$NMX" guard --log "$LOG" --timeout 5 -- /nonexistent/qemu
	[[ "$output" == *"cannot run /nonexistent/qemu"* ]]
}
