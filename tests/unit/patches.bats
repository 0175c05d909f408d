#!/usr/bin/env bats
# matrix.sh --patches on the fake tree, whose cell "boots" into a recorded
# console log named by the tree's CONSOLE file: a maintainer's patch that
# fixes a failing scenario, one that regresses a passing one, one that
# does not apply, and bad input.

load helpers

@test "--patches: a patch that breaks a passing scenario is a regression on that cell, exit 1" {
	setup_boot
	console_mail clean-pass-arm64.log failed-subtest.log "fake: Break pruning" >"$SCRATCH/break.patch"
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/break.patch"
	[ "$status" -eq 1 ]
	[[ "$output" == *"REGRESSED: pruned_subtree_hidden (PASS -> FAIL)"* ]]
	grep -q '^fake-good upstream fakeboot$' "$(run_dir)/plan.tsv"
	grep -q '^fake-good patched fakeboot$' "$(run_dir)/plan.tsv"
	grep -q '"status": "PASS"' "$(run_dir)/fake-good-upstream/fakeboot/result.json"
	grep -q '"status": "TEST_FAIL"' "$(run_dir)/fake-good-patched/fakeboot/result.json"
	grep -q 'REGRESSED: pruned_subtree_hidden' "$(run_dir)/patches-compare.md"
	grep -q '1 regression(s)' "$(run_dir)/patches-compare.md"
	grep -qx "Patches ($SCRATCH/break.patch):" "$(run_dir)/patches-compare.md"
	# The patch is applied after the tree's series, and kept with the run.
	grep -q '^series	0001-fake-Patch-the-README.patch 0001-break.patch$' \
		"$(run_dir)/fake-good-patched/fakeboot/meta.tsv"
	grep -q 'Subject: \[PATCH\] fake: Break pruning' "$(run_dir)/patches/0001-break.patch"
	grep -q 'fake-good-patched' "$(run_dir)/report.html"
}

@test "--patches: a cell the patch leaves byte for byte unchanged is judged from upstream's console, and said so; --boot-again boots it" {
	setup_boot
	printf 'diff --git a/NOTE b/NOTE\nnew file mode 100644\n--- /dev/null\n+++ b/NOTE\n@@ -0,0 +1 @@\n+not built\n' \
		>"$SCRATCH/note.diff"
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/note.diff"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"fakeboot (fake-good-patched): boot not run again: the same kernel, initramfs and machine booted in $(readlink "$NMX_RESULTS/latest")/fake-good-upstream/fakeboot"* ]]
	grep -q '"status": "PASS"' "$(run_dir)/fake-good-patched/fakeboot/result.json"
	grep -q "^boot_reused_from	$(readlink "$NMX_RESULTS/latest")/fake-good-upstream/fakeboot$" \
		"$(run_dir)/fake-good-patched/fakeboot/meta.tsv"
	grep -q '^- fakeboot patched: the boot of .*/fake-good-upstream/fakeboot$' "$(run_dir)/report.md"
	grep -q 'Not booted again' "$(run_dir)/report.html"
	run "$TOP/matrix.sh" --no-install --boot-again --patches "$SCRATCH/note.diff"
	[ "$status" -eq 0 ]
	run ! grep -q '^boot_reused_from' "$(run_dir)/fake-good-patched/fakeboot/meta.tsv"
	run ! grep -q 'Not booted again' "$(run_dir)/report.md"
}

@test "--patches: a bare diff that fixes a failing scenario is reported fixed, exit 0" {
	setup_boot failed-subtest.log
	mkdir "$SCRATCH/mine"
	console_diff failed-subtest.log clean-pass-arm64.log >"$SCRATCH/mine/fix.diff"
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/mine"
	[ "$status" -eq 0 ]
	[[ "$output" == *"fixed: pruned_subtree_hidden (FAIL -> PASS)"* ]]
	grep -q '0 regression(s)' "$(run_dir)/patches-compare.md"
	grep -q '"status": "TEST_FAIL"' "$(run_dir)/fake-good-upstream/fakeboot/result.json"
	grep -q '"status": "PASS"' "$(run_dir)/fake-good-patched/fakeboot/result.json"
	# A bare diff becomes a commit named after its file.
	grep -q '^Subject: \[PATCH\] fix.diff$' "$(run_dir)/patches/0001-fix.patch"
}

@test "--patches: a patch that does not apply is PATCH_FAIL with the rejected hunk; upstream still runs and reports" {
	setup_boot
	console_mail no-such-log.log failed-subtest.log "fake: Stale context" >"$SCRATCH/stale.patch"
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/stale.patch"
	[ "$status" -eq 1 ]
	grep -q '"status": "PATCH_FAIL"' "$(run_dir)/fake-good-patched/fakeboot/result.json"
	grep -q '0001-stale.patch does not apply' "$(run_dir)/fake-good-patched/fakeboot/result.json"
	grep -q '== 0001-stale.patch does not apply; the rejected hunk:' \
		"$(run_dir)/fake-good-patched/fakeboot/build.log"
	grep -q 'error: patch failed: CONSOLE:1' "$(run_dir)/fake-good-patched/fakeboot/build.log"
	grep -q '"status": "PASS"' "$(run_dir)/fake-good-upstream/fakeboot/result.json"
	grep -q 'cell: PASS -> PATCH_FAIL' "$(run_dir)/patches-compare.md"
	[ -f "$(run_dir)/report.html" ] && [ -f "$(run_dir)/summary.txt" ]
}

@test "--patches: an mbox of two mails and a directory give the series in order" {
	setup_boot
	mkdir "$SCRATCH/dir"
	{
		console_mail clean-pass-arm64.log failed-subtest.log "fake: First"
		console_mail failed-subtest.log clean-pass-arm64.log "fake: Second, undoing the first"
	} >"$SCRATCH/dir/0001-both.mbox"
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/dir"
	[ "$status" -eq 0 ]
	[ "$(cat "$(run_dir)/patches/series")" = "$(printf '0001-both.patch\n0002-both.patch')" ]
	grep -q 'Subject: \[PATCH\] fake: First' "$(run_dir)/patches/0001-both.patch"
	grep -q 'Subject: \[PATCH\] fake: Second' "$(run_dir)/patches/0002-both.patch"
	grep -q '"status": "PASS"' "$(run_dir)/fake-good-patched/fakeboot/result.json"
}

@test "--patches: bad input is an error naming it, and leaves no run behind" {
	setup_boot
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/missing.patch"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--patches $SCRATCH/missing.patch: no such file or directory"* ]]
	mkdir "$SCRATCH/empty"
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/empty"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no *.patch, *.diff or *.mbox file in that directory"* ]]
	echo "just words" >"$SCRATCH/words.patch"
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/words.patch"
	[ "$status" -eq 2 ]
	[[ "$output" == *"words.patch holds no diff"* ]]
	console_diff a b >"$SCRATCH/ok.patch"
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/ok.patch" --variant seed
	[ "$status" -eq 2 ]
	[[ "$output" == *"runs the variants upstream and patched: not --variant seed"* ]]
	[ -z "$(ls -A "$NMX_RESULTS" 2>/dev/null)" ]
}
