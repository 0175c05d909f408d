#!/usr/bin/env bats
# ./export-upstream.sh on the fake tree and a recorded run: the files of a
# proven topic (golden, apart from dates and hashes), a topic the run does
# not prove refused, and no export without a person's identity.
load helpers

# export_as NAME EMAIL: the export of the recorded run, as NAME <EMAIL>
# (git's configuration from the environment, over any the checkout has).
export_as() {
	GIT_CONFIG_COUNT=2 GIT_CONFIG_KEY_0=user.name GIT_CONFIG_VALUE_0="$1" \
		GIT_CONFIG_KEY_1=user.email GIT_CONFIG_VALUE_1="$2" \
		GIT_AUTHOR_DATE='2026-12-01T00:00:00Z' \
		GIT_COMMITTER_DATE='2026-12-01T00:00:00Z' \
		"$TOP/export-upstream.sh" --tree fake-good "$SCRATCH/run"
}

setup() {
	SCRATCH=$(mktemp -d)
	setup_fake
	export NMX_RESULTS=$SCRATCH/results
	cp -r "$TESTS_DIR/fake-tree/runs/20261201T000000Z" "$SCRATCH/run"
	# The pristine tree the series is exported against.
	build fake-good prepare
	[ "$status" -eq 0 ]
}

# The exported files without what changes from one export to the next.
normalised() {
	sed -e 's/^From [0-9a-f]\{40\} /From <commit> /' \
		-e 's/^base-commit: .*/base-commit: <pristine>/' "$@"
}

@test "a proven topic is exported: format-patch files with the exporter's identity, evidence and recipients" {
	run export_as "Jane Doe" "jane@kernel.org"
	[ "$status" -eq 1 ]	# the second topic is refused
	local out=$SCRATCH/run/upstream/readme
	[ -f "$out/0000-cover-letter.patch" ]
	[ -f "$out/0001-fake-Patch-the-README.patch" ]
	diff -u "$TESTS_DIR/golden/upstream-readme-cover.patch" \
		<(normalised "$out/0000-cover-letter.patch")
	diff -u "$TESTS_DIR/golden/upstream-readme-0001.patch" \
		<(normalised "$out/0001-fake-Patch-the-README.patch")
	run ! grep -r '3389c98d' "$out"
	# It applies to the pristine tree it is based on.
	git clone -q "$NMX_CACHE/src/"nmx-fake-package_*[!k] "$SCRATCH/apply"
	git -C "$SCRATCH/apply" checkout -q pristine
	git -C "$SCRATCH/apply" -c user.name=t -c user.email=t@t am -q \
		"$out/0001-fake-Patch-the-README.patch"
	grep -q 'three lines, patched' "$SCRATCH/apply/README"
}

@test "a topic the runs do not prove is refused, saying what is missing" {
	run export_as "Jane Doe" "jane@kernel.org"
	[ "$status" -eq 1 ]
	[[ "$output" == *"unproven: refused: 0001: no unfixed result for fake in the runs given"* ]]
	[ ! -e "$SCRATCH/run/upstream/unproven" ]
	grep -q $'^unproven\trefused\t0001: no unfixed result' "$SCRATCH/run/upstream/topics.tsv"
	grep -q $'^readme\texported' "$SCRATCH/run/upstream/topics.tsv"
}

@test "no export without an identity, nor as the project's placeholder" {
	run export_as "" ""
	[ "$status" -eq 2 ]
	[[ "$output" == *"no git identity"* ]]
	run export_as "Seed 3389c98d maintainers" "maintainers@users.noreply.a-seed-3389c98d.example"
	[ "$status" -eq 2 ]
	[[ "$output" == *"a placeholder, not a person"* ]]
	run export_as "Jane" "jane"
	[ "$status" -eq 2 ]
	[[ "$output" == *"not \"Name <email>\""* ]]
	[ ! -e "$SCRATCH/run/upstream" ]
}

@test "a series checkpatch.pl --strict does not pass is refused" {
	cp -r "$TESTS_DIR/fake-tree/series-good" "$SCRATCH/series"
	sed -i 's/^+It has three lines, patched.$/+It has three lines, BADSTYLE./' \
		"$SCRATCH/series/0001-fake-Patch-the-README.patch"
	sed -i "s|series: $TESTS_DIR/fake-tree/series-good|series: $SCRATCH/series|" \
		"$SCRATCH/matrix.yaml"
	run export_as "Jane Doe" "jane@kernel.org"
	[ "$status" -eq 1 ]
	[[ "$output" == *"readme: 0001-fake-Patch-the-README.patch is not checkpatch.pl --strict clean"* ]]
	grep -q $'^readme\trefused' "$SCRATCH/run/upstream/topics.tsv"
}
