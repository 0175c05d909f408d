#!/usr/bin/env bats
# tests/checkpatch.sh on the fake tree: each patch through the tree's own
# checkpatch.pl, and whether the whole series applies with git am to the
# pristine tree (a sparse checkout of the files the series touches).
load helpers

setup() {
	SCRATCH=$(mktemp -d)
	setup_fake
}

@test "checkpatch.sh: a tree not unpacked is a SKIP, not a pass" {
	run "$TOP/tests/checkpatch.sh"
	[ "$status" -eq 0 ]
	[[ "$output" == *"ok 2 fake-good: the series applies # SKIP nmx-fake-package not unpacked"* ]]
}

@test "checkpatch.sh: a series that applies passes; one that does not fails, saying why" {
	build fake-good prepare
	[ "$status" -eq 0 ]
	run "$TOP/tests/checkpatch.sh"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "1..4" ]
	[ "${lines[1]}" = "ok 1 fake-good/0001-fake-Patch-the-README.patch" ]
	[ "${lines[2]}" = "ok 2 fake-good: the series applies with git am to the pristine tree" ]
	[ "${lines[3]}" = "ok 3 fake-bad/0001-fake-A-patch-that-does-not-apply.patch" ]
	[ "${lines[4]}" = "not ok 4 fake-bad: the series applies with git am to the pristine tree" ]
	[[ "$output" == *"# error: patch failed: README:1"* ]]
	# The pristine tree is left as it was.
	grep -q '^It has three lines.$' "$NMX_CACHE"/src/nmx-fake-package_*/README
	[ -z "$(git -C "$NMX_CACHE"/src/nmx-fake-package_* status --porcelain)" ]
}

@test "checkpatch.sh: a patch checkpatch.pl warns about fails, with the warning" {
	build fake-good prepare
	local series=$SCRATCH/series-style
	mkdir "$series"
	sed 's/^+It has three lines, patched\.$/+It has three lines, BADSTYLE./' \
		"$TESTS_DIR/fake-tree/series-good/0001-fake-Patch-the-README.patch" \
		>"$series/0001-fake-Patch-the-README.patch"
	grep -q '^+.*BADSTYLE' "$series/0001-fake-Patch-the-README.patch"
	echo 0001-fake-Patch-the-README.patch >"$series/series"
	sed -i "s|series: .*/series-good|series: $series|" "$NMX_MATRIX"
	run "$TOP/tests/checkpatch.sh"
	[ "${lines[1]}" = "not ok 1 fake-good/0001-fake-Patch-the-README.patch" ]
	[[ "$output" == *"# WARNING: BADSTYLE is not kernel style"* ]]
	[[ "$output" == *"ok 2 fake-good: the series applies with git am to the pristine tree"* ]]
	[[ "$output" != *"not ok 2"* ]]
}
