#!/usr/bin/env bats
# matrix.sh --tree DIR on the fake tree: a maintainer's own checkout (git
# or not, built in or not) is copied, patched and built in the cache, and
# DIR itself is never written; bad input is said plainly.

load helpers
scripts_under_test

# The bootable fake matrix, its tree's series declared for version 0.0
# (the fake Makefile's), and a checkout of the fake tree at $SCRATCH/mine.
setup_checkout() { # git|plain
	setup_boot
	sed -i '0,/^    package: nmx-fake-package$/s//&\n    version: "0.0"/' "$NMX_MATRIX"
	cp -r "$TESTS_DIR/fake-tree/linux-fake" "$SCRATCH/mine"
	if [ "$1" = git ]; then
		printf '*.o\n' >"$SCRATCH/mine/.gitignore"
		git -C "$SCRATCH/mine" init -q
		git -C "$SCRATCH/mine" add -A
		git -C "$SCRATCH/mine" -c user.name=t -c user.email=t@localhost commit -qm base
	fi
}

# Everything about DIR that a write would change: names, sizes, times,
# modes, and the bytes of git's own files (the index above all).
dir_state() { # dir
	find "$1" -printf '%P %s %T@ %m\n' | sort
	find "$1" -path '*/.git/*' -type f -exec sha256sum '{}' + | sort
}

run_dir() {
	echo "$NMX_RESULTS/$(readlink "$NMX_RESULTS/latest")"
}

@test "--tree DIR (git): the checkout with its uncommitted change is built and judged; DIR is not written" {
	setup_checkout git
	echo failed-subtest.log >"$SCRATCH/mine/CONSOLE"	# uncommitted
	echo junk >"$SCRATCH/mine/stale.o"			# ignored build output
	dir_state "$SCRATCH/mine" >"$SCRATCH/before"
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/mine"
	[ "$status" -eq 1 ]
	[[ "$output" == *"with 1 uncommitted change(s) (the working files are used as they are)"* ]]
	grep -q '^local upstream fakeboot$' "$(run_dir)/plan.tsv"
	grep -q '"status": "TEST_FAIL"' "$(run_dir)/local-upstream/fakeboot/result.json"
	grep -q "^tree_package	local checkout 0.0.1, $SCRATCH/mine: git [0-9a-f]* with 1 uncommitted" \
		"$(run_dir)/local-upstream/fakeboot/meta.tsv"
	# The series of the tree of its version was applied to the copy.
	grep -q 'three lines, patched' "$NMX_CACHE/work/local-upstream/src/README"
	run find "$NMX_CACHE/src" -name stale.o
	[ -z "$output" ]
	dir_state "$SCRATCH/mine" >"$SCRATCH/after"
	diff "$SCRATCH/before" "$SCRATCH/after"
}

@test "--tree DIR (not git, built in): its copy gets make mrproper, DIR keeps its .config; a changed file makes a new copy" {
	setup_checkout plain
	echo 'CONFIG_FROM_AN_EARLIER_BUILD=y' >"$SCRATCH/mine/.config"
	dir_state "$SCRATCH/mine" >"$SCRATCH/before"
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/mine"
	[ "$status" -eq 0 ]
	[[ "$output" == *"not a git checkout (its files are used as they are)"* ]]
	grep -q '"status": "PASS"' "$(run_dir)/local-upstream/fakeboot/result.json"
	grep -q "was built in: its copy gets make mrproper" "$(run_dir)/local-upstream/fakeboot/build.log"
	run find "$NMX_CACHE/src" -path '*/local-*/.config'
	[ -z "$output" ]
	dir_state "$SCRATCH/mine" >"$SCRATCH/after"
	diff "$SCRATCH/before" "$SCRATCH/after"
	# A change in DIR is seen: a new copy, the old one removed.
	first=$(find "$NMX_CACHE/src" -maxdepth 1 -name 'local-*' ! -name '*.ok' -printf '%f\n')
	[ -n "$first" ]
	sleep 1.1
	echo failed-subtest.log >"$SCRATCH/mine/CONSOLE"
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/mine"
	[ "$status" -eq 1 ]
	grep -q '"status": "TEST_FAIL"' "$(run_dir)/local-upstream/fakeboot/result.json"
	[ ! -e "$NMX_CACHE/src/$first" ]
}

@test "--tree DIR with --patches: before and after on the maintainer's own tree" {
	setup_checkout git
	console_diff clean-pass-arm64.log failed-subtest.log >"$SCRATCH/break.diff"
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/mine" --patches "$SCRATCH/break.diff"
	[ "$status" -eq 1 ]
	grep -q '^local patched fakeboot$' "$(run_dir)/plan.tsv"
	grep -q 'REGRESSED: pruned_subtree_hidden (PASS -> FAIL)' "$(run_dir)/patches-compare.md"
	# KCIDB: the checkout's commit, and what was applied on it (the
	# series, then the maintainer's patch) with KCIDB's patchset hash.
	local kcidb head
	kcidb=$(run_dir)/kcidb.json
	head=$(git -C "$SCRATCH/mine" rev-parse HEAD)
	/usr/bin/python3 - "$kcidb" "$head" "$(run_dir)" <<-'PY'
		import hashlib, json, os, sys
		doc, head, run = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
		cos = {c["misc"]["variant"]: c for c in doc["checkouts"]}
		for v in ("upstream", "patched"):
		    co = cos[v]
		    assert co["git_commit_hash"] == head, co
		    files = co["patchset_files"]
		    assert files, co
		    digest = "".join(hashlib.sha256(open(os.path.join(run, f["url"]), "rb").read()).hexdigest() + "\n"
		                     for f in files)
		    assert co["patchset_hash"] == hashlib.sha256(digest.encode()).hexdigest(), co
		assert len(cos["patched"]["patchset_files"]) == len(cos["upstream"]["patchset_files"]) + 1
		assert "break" in cos["patched"]["patchset_files"][-1]["name"], cos["patched"]["patchset_files"]
	PY
	"$TESTS_DIR/report/check-outputs.sh" "$(run_dir)" | grep -qx 'ok [0-9]* kcidb.json is valid KCIDB v5.3'
}

@test "--tree DIR: bad input is an error saying what is wrong" {
	setup_checkout plain
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/nowhere"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--tree $SCRATCH/nowhere: no such directory"* ]]
	mkdir "$SCRATCH/notakernel"
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/notakernel"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$SCRATCH/notakernel is not a kernel tree (no Makefile with VERSION, PATCHLEVEL and SUBLEVEL)"* ]]
	# Between two series: neither is taken.
	sed -i 's/^VERSION = 0$/VERSION = 9/' "$SCRATCH/mine/Makefile"
	sed -i '0,/^    package: nmx-fake-package$/!s/^    package: nmx-fake-package$/&\n    version: "9.5"/' "$NMX_MATRIX"
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/mine"
	[ "$status" -eq 2 ]
	[[ "$output" == *"is Linux 9.0.1; no series is for it. Series: fake-good (0.0) fake-bad (9.5). Name one with --series TREE."* ]]
	run "$TOP/matrix.sh" --no-install --series fake-good
	[ "$status" -eq 2 ]
	[[ "$output" == *"--series names the series for a --tree DIR; there is none"* ]]
	[ -z "$(ls -A "$NMX_RESULTS" 2>/dev/null)" ]
	# Named, the series is used whatever the version.
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/mine" --series fake-good
	[ "$status" -eq 0 ]
	grep -q '"status": "PASS"' "$(run_dir)/local-upstream/fakeboot/result.json"
}

@test "--tree DIR newer than every series (a mainline checkout, 7.4): the newest series, said in the first lines and the report; a hunk that does not apply is PATCH_FAIL" {
	setup_checkout git
	sed -i 's/^VERSION = 0$/VERSION = 7/; s/^PATCHLEVEL = 0$/PATCHLEVEL = 4/; s/^SUBLEVEL = 1$/SUBLEVEL = 0/' \
		"$SCRATCH/mine/Makefile"
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/mine"
	[ "$status" -eq 0 ]
	[[ "$(head -n 3 <<<"$output")" == *"is Linux 7.4.0: the series of fake-good ($TESTS_DIR/fake-tree/series-good), the newest series, older than the checkout"* ]]
	grep -q "^tree_package	local checkout 7.4.0, $SCRATCH/mine: .*, the series of fake-good$" \
		"$(run_dir)/local-upstream/fakeboot/meta.tsv"
	grep -q 'the series of fake-good' "$(run_dir)/report.md"
	grep -q 'three lines, patched' "$NMX_CACHE/work/local-upstream/src/README"
	# The series' patch does not apply to this newer tree: PATCH_FAIL, not a refusal.
	printf 'A mainline tree.\nIts README moved on.\n' >"$SCRATCH/mine/README"
	run "$TOP/matrix.sh" --no-install --tree "$SCRATCH/mine"
	[ "$status" -eq 1 ]
	grep -q '"status": "PATCH_FAIL"' "$(run_dir)/local-upstream/fakeboot/result.json"
	grep -q 'README' "$(run_dir)/local-upstream/fakeboot/build.log"
}

@test "--patches without --tree runs on the newest tree; an older one when named" {
	setup_boot
	sed -i '0,/^    package: nmx-fake-package$/s//&\n    version: "0.0"/' "$NMX_MATRIX"
	sed -i '0,/^    package: nmx-fake-package$/!s/^    package: nmx-fake-package$/&\n    version: "7.2"/' "$NMX_MATRIX"
	run "$NMX" -m "$NMX_MATRIX" -a "$NMX_ARCHES_DIR" trees --newest
	[ "$output" = fake-bad ]
	console_diff clean-pass-arm64.log failed-subtest.log >"$SCRATCH/break.diff"
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/break.diff"
	run cut -d' ' -f1 "$(run_dir)/plan.tsv"
	[ "$(sort -u <<<"$output")" = fake-bad ]
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/break.diff" --tree fake-good
	[ "$status" -eq 1 ]
	run cut -d' ' -f1 "$(run_dir)/plan.tsv"
	[ "$(sort -u <<<"$output")" = fake-good ]
}
