#!/usr/bin/env bats
# Checks of the tests themselves that ShellCheck does not make.

load helpers

# Under bats's set -e a failing command inside an && list stops the test
# only when it is the list's last: "[ a ] && [ b ]" followed by more
# lines checks nothing when a fails. Prints each such line of FILES.
and_checks_before_the_end() { # FILES...
	awk '
		FNR == 1 { prev = "" }
		/^[ \t]*\[.*\] && \[/ { prev = FILENAME ":" FNR ": " $0; next }
		prev != "" && /^[ \t]*$/ { next }
		prev != "" && !/^}/ { print prev }
		{ prev = "" }' "$@"
}

@test "lint: no '[ ... ] && [ ... ]' check before a test's last line" {
	run and_checks_before_the_end "$TESTS_DIR"/unit/*.bats
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "lint: the check above can fail" {
	printf '@test "x" {\n\t[ 1 = 2 ] && [ 3 = 3 ]\n\techo more\n}\n' >"$SCRATCH/bad.bats"
	run and_checks_before_the_end "$SCRATCH/bad.bats"
	[[ "$output" == *"bad.bats:2:"* ]]
}

# Each script with scripts/lib.sh, whose functions it calls, as one text
# (tests/locals.awk reads it twice).
locals_of() { # SCRIPT
	cat "$TOP/scripts/lib.sh" "$1" >"$SCRATCH/whole.sh"
	awk -f "$TOP/tests/locals.awk" "$SCRATCH/whole.sh" "$SCRATCH/whole.sh"
}

@test "lint: no shell function reads or sets another function's locals" {
	local f out=''
	for f in "$TOP"/*.sh "$TOP"/scripts/*.sh; do
		out+=$(locals_of "$f")
	done
	[ -z "$out" ] || { echo "$out"; false; }
}

@test "lint: the locals check can fail (a helper that sets its caller's array)" {
	printf 'a() {\n\tlocal -a argv\n\tb\n}\n\nb() {\n\targv=(x)\n}\n' >"$SCRATCH/bad.sh"
	run locals_of "$SCRATCH/bad.sh"
	[[ "$output" == *"b uses 'argv' (local in"*" a)"* ]]
}
