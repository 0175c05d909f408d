#!/usr/bin/env bats
# matrix.sh's command line: help, version, unknown options, --opt=value.
# Each is decided before anything is installed or locked.

load helpers

@test "--help: the options described on stdout, exit 0" {
	run --separate-stderr "$TOP/matrix.sh" --help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"Run the matrix: every (tree, variant, cell)"* ]]
	for opt in --no-install --set --e2e --reuse-boots --patches --tree --resume \
		--shard --merge --boot-with --loader -j; do
		[[ "$output" == *"$opt"* ]] || { echo "--help does not mention $opt"; false; }
	done
	[[ "$output" == *"Exit: 0 all cells pass"* ]]
	[[ "$output" != *"#"* ]]
	run "$TOP/matrix.sh" -h
	[ "$status" -eq 0 ]
}

@test "--version: the checkout's revision, exit 0" {
	run "$TOP/matrix.sh" --version
	[ "$status" -eq 0 ]
	[[ "$output" == "notrace-matrix "?* ]]
}

@test "an unknown option is named in the error, exit 2" {
	run "$TOP/matrix.sh" --no-install --cel arm64
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--cel'"* ]]
	[[ "$output" == *"usage:"* ]]
}

@test "--opt=value is --opt value" {
	run "$TOP/matrix.sh" --no-install --tree=./no/such/tree
	[ "$status" -eq 2 ]
	[[ "$output" == *"--tree ./no/such/tree: no such directory"* ]]
	run "$TOP/matrix.sh" --no-install --boot-with=kvm
	[ "$status" -eq 2 ]
	[[ "$output" == *"--boot-with kvm: qemu (QEMU directly) or lava"* ]]
}

@test "a selection that names no cell is refused before waiting on another run's lock" {
	setup_fake "" "fake"
	mkdir -p "$NMX_CACHE"
	flock "$NMX_CACHE/matrix.lock" sleep 20 &
	local holder=$!
	sleep 0.5
	run timeout 10 "$TOP/matrix.sh" --no-install --cell armm64
	kill "$holder"
	[ "$status" -eq 2 ]
	[[ "$output" == *"armm64"* ]]
	[[ "$output" != *"waiting for it to finish"* ]]
}
