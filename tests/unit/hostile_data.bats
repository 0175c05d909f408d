#!/usr/bin/env bats
# Hostile matrix.yaml and arch files: every one a clear error (exit 2)
# naming the file, never a crash, a hang or a silently wrong matrix.
# (tests/run.sh runs these against the ASan+UBSan build of nmx.)

load helpers

cells_of() { # matrix.yaml [arches-dir]
	run timeout 20 "$NMX" -m "$1" -a "${2:-$TOP/arches}" cells
}

@test "matrix.yaml without a document (a comment only): an error, no leak" {
	cells_of "$TESTS_DIR/matrix/empty.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"empty.yaml: empty document"* ]]
}

@test "matrix.yaml nested 20000 levels deep: an error, no stack overflow" {
	cells_of "$TESTS_DIR/matrix/deeply-nested.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"deeply-nested.yaml:2: a tree must be a mapping"* ]]
}

@test "matrix.yaml of 3 MiB: refused before parsing" {
	{ cat "$TOP/matrix.yaml"; head -c 3145728 /dev/zero | tr '\0' '#'; } >"$SCRATCH/huge.yaml"
	cells_of "$SCRATCH/huge.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"huge.yaml: not a regular file of at most 1048576 bytes"* ]]
}

@test "matrix.yaml that is a directory or a FIFO: refused, without waiting" {
	cells_of "$SCRATCH"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a regular file"* ]]
	# Nothing writes the FIFO: opening it would block.
	mkfifo "$SCRATCH/fifo.yaml"
	cells_of "$SCRATCH/fifo.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"fifo.yaml: not a regular file"* ]]
}

@test "matrix.yaml with a duplicate key: an error naming both lines" {
	cells_of "$TESTS_DIR/matrix/duplicate-key.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"duplicate-key.yaml:42: duplicate key 'run' (first at line 32)"* ]]
}

@test "matrix.yaml with values of the wrong type: each named" {
	cells_of "$TESTS_DIR/matrix/wrong-types.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"wrong-types.yaml:35: 'cells' must be a list"* ]]
	[[ "$output" == *"run.boot_timeout must be a number of seconds"* ]]
}

@test "matrix.yaml that is not UTF-8: libyaml's error with the position" {
	cells_of "$TESTS_DIR/matrix/non-utf8.yaml"
	[ "$status" -eq 2 ]
	[[ "$output" == *"non-utf8.yaml:1:1: invalid trailing UTF-8 octet"* ]]
}

# arch_file_with SED-EXPRESSION | --append TEXT: a copy of arches/ whose
# arm64.yaml is changed, and the matrix's cells listed with it.
arch_file_with() {
	cp -r "$TOP/arches" "$SCRATCH/arches"
	if [ "$1" = --append ]; then
		printf '%s\n' "$2" >>"$SCRATCH/arches/arm64.yaml"
	else
		sed -i "$1" "$SCRATCH/arches/arm64.yaml"
	fi
	cells_of "$TOP/matrix.yaml" "$SCRATCH/arches"
}

@test "arch file with a duplicate key: an error" {
	arch_file_with --append 'arch: x86_64'
	[ "$status" -eq 2 ]
	[[ "$output" == *"arm64.yaml:"*": duplicate key 'arch' (first at line "* ]]
}

@test "arch file with a list where a string belongs: an error" {
	arch_file_with 's/^kernel_image: .*/kernel_image: [a, b]/'
	[ "$status" -eq 2 ]
	[[ "$output" == *"arm64.yaml"*"kernel_image"* ]]
}

@test "arch file with a mapping where a list belongs: an error" {
	arch_file_with 's/^make_targets: .*/make_targets: {Image: 1}/'
	[ "$status" -eq 2 ]
	[[ "$output" == *"'make_targets' must be a list"* ]]
}

@test "arch file that is not UTF-8: an error" {
	arch_file_with 's/^description: .*/description: caf\xe9/'
	[ "$status" -eq 2 ]
	[[ "$output" == *"arm64.yaml:"*"UTF-8"* ]]
}

@test "arch file nested deeply: an error" {
	arch_file_with "--append" "deep: $(printf '[%.0s' $(seq 5000))$(printf ']%.0s' $(seq 5000))"
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown key 'deep' in the cell"* ]]
}
