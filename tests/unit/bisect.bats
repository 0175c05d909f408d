#!/usr/bin/env bats
# bisect_run() calls bats's run and prints its $output: ShellCheck takes
# each @test for a subshell whose $output is another.
# shellcheck disable=SC2030,SC2031
# Bisection (bisect.sh, matrix.sh --bisect, scripts/bisect-step.sh) on a
# git history of the fake tree whose commits change what its kernel
# "prints" (CONSOLE names a recorded log): which commit broke a scenario,
# a commit that does not build skipped and not blamed, a flaky scenario
# not confirmed, and the step command's exit codes.

load helpers
scripts_under_test

# A checkout of the fake tree at $SCRATCH/mine: five commits, commit K of
# them (1-based) doing WHAT (console LOG, or "broken": the build fails).
setup_history() { # "K:what" ...
	local k spec
	setup_boot
	sed -i '0,/^    package: nmx-fake-package$/s//&\n    version: "0.0"/' "$NMX_MATRIX"
	cp -r "$TESTS_DIR/fake-tree/linux-fake" "$SCRATCH/mine"
	git -C "$SCRATCH/mine" init -q
	for k in 1 2 3 4 5; do
		echo "commit $k" >"$SCRATCH/mine/HISTORY"
		for spec in "$@"; do
			[ "${spec%%:*}" = "$k" ] || continue
			case ${spec#*:} in
			broken) touch "$SCRATCH/mine/BROKEN" ;;
			fixed) rm -f "$SCRATCH/mine/BROKEN" ;;
			*) echo "${spec#*:}" >"$SCRATCH/mine/CONSOLE" ;;
			esac
		done
		git -C "$SCRATCH/mine" add -A
		git -C "$SCRATCH/mine" -c user.name=t -c user.email=t@localhost commit -qm "commit $k"
	done
	GOOD=$(git -C "$SCRATCH/mine" rev-parse HEAD~4)
	BAD=$(git -C "$SCRATCH/mine" rev-parse HEAD)
}

# matrix.sh --bisect over the whole history, for pruned_subtree_hidden on
# the fake cell, confirmed N times; its output and exit in $output, $status.
bisect_history() { # N
	run "$TOP/matrix.sh" --tree "$SCRATCH/mine" --bisect "$GOOD..$BAD" --cell fakeboot \
		--scenario pruned_subtree_hidden --confirm "$1"
}

bisect_report() {
	cat "$NMX_RESULTS"/bisect-*/bisect.md
}

@test "bisect: the commit that fails the scenario is found and confirmed; the checkout is untouched" {
	setup_history 3:failed-subtest.log
	git -C "$SCRATCH/mine" status --porcelain >"$SCRATCH/before"
	head=$(git -C "$SCRATCH/mine" rev-parse HEAD)
	bisect_history 2
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'**Culprit, confirmed: '*' ("commit 3") fails pruned_subtree_hidden 2 times, '*' ("commit 2") passes it 2 times**'* ]]
	bisect_report | grep -q '("commit 3") | 1 | bad: pruned_subtree_hidden FAIL'
	[ "$(git -C "$SCRATCH/mine" rev-parse HEAD)" = "$head" ]
	git -C "$SCRATCH/mine" status --porcelain | diff "$SCRATCH/before" -
}

@test "bisect: a commit that does not build is skipped, not blamed" {
	setup_history 3:broken 4:fixed 5:failed-subtest.log
	bisect_history 1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *'Culprit, confirmed: '*' ("commit 5") fails'* ]]
	bisect_report | grep -q '("commit 3") | 125 | skip: pruned_subtree_hidden not run (cell BUILD_FAIL'
	[[ "$output" == *'("commit 4") passes it 1 times'* ]]
}

@test "bisect: when the commit before the first failing one does not build, both are named, none blamed" {
	setup_history 3:broken 4:fixed 4:failed-subtest.log
	bisect_history 1
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'**No culprit: The first bad commit could be any of: '*'("commit 3")'*'("commit 4")'* ]] ||
		[[ "$output" == *'**No culprit: The first bad commit could be any of: '*'("commit 4")'*'("commit 3")'* ]]
}

@test "bisect: a flaky scenario is not confirmed (exit 1), whatever the bisection pointed at" {
	setup_history '3:clean-pass-arm64.log|failed-subtest.log'
	bisect_history 2
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *'**Not confirmed: the bisection pointed at '* ]]
	[[ "$output" != *'Culprit, confirmed'* ]]
}

@test "bisect-step: exit 0 good, 1 bad, 125 when the commit does not build; 128 on bad input" {
	setup_history 2:failed-subtest.log 3:broken
	cd "$SCRATCH/mine"
	git checkout -q "$GOOD"
	run "$TOP/scripts/bisect-step.sh" --cell fakeboot --scenario pruned_subtree_hidden
	[ "$status" -eq 0 ]
	git checkout -q "$(git rev-parse "$BAD"~3)"
	run "$TOP/scripts/bisect-step.sh" --cell fakeboot --scenario pruned_subtree_hidden
	[ "$status" -eq 1 ]
	git checkout -q "$(git rev-parse "$BAD"~2)"
	run "$TOP/scripts/bisect-step.sh" --cell fakeboot --scenario pruned_subtree_hidden --log "$SCRATCH/log"
	[ "$status" -eq 125 ]
	grep -q "	125	" "$SCRATCH/log"
	run "$TOP/scripts/bisect-step.sh" --cell fakeboot
	[ "$status" -eq 128 ]
}

@test "bisect: bad input is exit 2 saying what" {
	setup_history
	run "$TOP/matrix.sh" --tree "$SCRATCH/mine" --bisect "$BAD..$GOOD" --cell fakeboot --scenario x
	[ "$status" -eq 2 ]
	[[ "$output" == *"is not an ancestor of"* ]]
	run "$TOP/matrix.sh" --tree "$SCRATCH/mine" --bisect "nosuch..$BAD" --cell fakeboot --scenario x
	[ "$status" -eq 2 ]
	[[ "$output" == *"'nosuch' is no commit of"* ]]
	run "$TOP/matrix.sh" --tree "$SCRATCH/mine" --bisect "$GOOD..$BAD" --cell nosuch --scenario x
	[ "$status" -eq 2 ]
	run "$TOP/matrix.sh" --tree "$SCRATCH/mine" --bisect "$GOOD..$BAD" --cell fakeboot
	[ "$status" -eq 2 ]
	run "$TOP/matrix.sh" --tree "$SCRATCH" --bisect "$GOOD..$BAD" --cell fakeboot --scenario x
	[ "$status" -eq 2 ]
	[[ "$output" == *"not a git checkout"* ]]
}

# --bisect RUN_ID: a --patches run over five patches, patch K of them
# doing WHAT ("K:LOG": CONSOLE becomes that recorded log, from the log
# before it; "K:broken" / "K:fixed": the build breaks / works again; any
# other patch adds a file). Its output and exit in $output, $status.
patches_run() { # "K:what" ...
	local k spec what from=clean-pass-arm64.log
	setup_boot
	mkdir -p "$SCRATCH/series"
	for k in 1 2 3 4 5; do
		what=note
		for spec in "$@"; do
			[ "${spec%%:*}" != "$k" ] || what=${spec#*:}
		done
		{
			printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
			printf 'From: A Maintainer <maintainer@example.org>\nSubject: [PATCH %d/5] fake: Patch %d\n' "$k" "$k"
			# A long subject, folded as git format-patch does.
			[ "$k" != 5 ] || printf ' of a subject folded over two lines\n'
			printf '\n---\n'
			case $what in
			note) printf 'diff --git a/NOTE%d b/NOTE%d\nnew file mode 100644\n--- /dev/null\n+++ b/NOTE%d\n@@ -0,0 +1 @@\n+note\n' "$k" "$k" "$k" ;;
			broken) printf 'diff --git a/BROKEN b/BROKEN\nnew file mode 100644\n--- /dev/null\n+++ b/BROKEN\n@@ -0,0 +1 @@\n+broken\n' ;;
			fixed) printf 'diff --git a/BROKEN b/BROKEN\ndeleted file mode 100644\n--- a/BROKEN\n+++ /dev/null\n@@ -1 +0,0 @@\n-broken\n' ;;
			*) console_diff "$from" "$what"; from=$what ;;
			esac
			printf -- '-- \n2.39.5\n\n'
		} >"$SCRATCH/series/$(printf '%04d' "$k")-patch-$k.patch"
	done
	run "$TOP/matrix.sh" --no-install --patches "$SCRATCH/series"
	RUN_ID=$(readlink "$NMX_RESULTS/latest")
}

# matrix.sh --bisect of that run (RUN_ID, or "latest"), confirmed N
# times; its output and exit in $output, $status.
bisect_run() { # run N
	run "$TOP/matrix.sh" --bisect "$1" --confirm "$2"
	echo "$output"
}

@test "bisect RUN_ID: the third of five patches breaks a scenario: patch 3, confirmed; bisect.md in the run, linked from its report" {
	patches_run 3:failed-subtest.log
	[ "$status" -eq 1 ]
	bisect_run "$RUN_ID" 2
	[ "$status" -eq 0 ]
	[[ "$output" == *'**Culprit, confirmed: patch 3 of 5, 0003-patch-3.patch: fake: Patch 3 fails pruned_subtree_hidden 2 times, patch 2 of 5, 0002-patch-2.patch: fake: Patch 2 passes it 2 times**'* ]]
	grep -q '^## Bisection of pruned_subtree_hidden on fakeboot' "$NMX_RESULTS/$RUN_ID/bisect.md"
	grep -q '| patch 3 of 5, 0003-patch-3.patch: fake: Patch 3 | 1 | bad: pruned_subtree_hidden FAIL' \
		"$NMX_RESULTS/$RUN_ID/bisect/fake-good-fakeboot-pruned_subtree_hidden/bisect.md"
	grep -q 'href="bisect.md"' "$NMX_RESULTS/$RUN_ID/report.html"
	git -C "$NMX_CACHE/bisect/series" log --all --format=%s | grep -qx 'patch 5 of 5, 0005-patch-5.patch: fake: Patch 5 of a subject folded over two lines'
	grep -q '<li>Bisection of pruned_subtree_hidden on fakeboot: <b>Culprit, confirmed: patch 3 of 5, 0003-patch-3.patch: fake: Patch 3 fails' \
		"$NMX_RESULTS/$RUN_ID/report.html"
	grep -q 'href="patches-compare.md"' "$NMX_RESULTS/$RUN_ID/report.html"
	# Each step ran the one cell, patched side alone (upstream at step 0).
	for plan in "$NMX_RESULTS/$RUN_ID"/bisect/*/steps/*/plan.tsv; do
		[ "$(wc -l <"$plan")" -eq 1 ]
		grep -Eq '^fake-good (patched|upstream) fakeboot$' "$plan"
	done
}

@test "bisect RUN_ID: two scenarios of one cell broken by two patches: each its culprit; the second bisection reuses the first's boots" {
	patches_run 2:failed-subtest.log 4:two-failed-subtests.log
	[ "$status" -eq 1 ]
	bisect_run "$RUN_ID" 2
	[ "$status" -eq 0 ]
	[[ "$output" == *'Culprit, confirmed: patch 2 of 5, 0002-patch-2.patch: fake: Patch 2 fails pruned_subtree_hidden 2 times'* ]]
	[[ "$output" == *'Culprit, confirmed: patch 4 of 5, 0004-patch-4.patch: fake: Patch 4 fails pruned_tracing_resumes_at_sibling 2 times'* ]]
	grep -rq 'boot_reused_from' "$NMX_RESULTS/$RUN_ID/bisect/fake-good-fakeboot-pruned_tracing_resumes_at_sibling/steps"
	# The confirmations (each bisection's last four steps) boot afresh.
	for f in "$NMX_RESULTS/$RUN_ID"/bisect/*/steps.tsv; do
		tail -n 4 "$f" | cut -f5 >"$SCRATCH/confirmations"
		[ "$(wc -l <"$SCRATCH/confirmations")" -eq 4 ]
		while read -r dir; do
			[ -s "$dir/meta.tsv" ]
			! grep -q boot_reused_from "$dir/meta.tsv" || false
		done <"$SCRATCH/confirmations"
	done
}

@test "bisect RUN_ID: one patch breaks two scenarios: the second bisection judges the first's runs, its confirmation the first's boots, none twice" {
	patches_run 3:two-failed-subtests.log
	[ "$status" -eq 1 ]
	bisect_run "$RUN_ID" 2
	[ "$status" -eq 0 ]
	[[ "$output" == *'Culprit, confirmed: patch 3 of 5, 0003-patch-3.patch: fake: Patch 3 fails pruned_subtree_hidden 2 times'* ]]
	[[ "$output" == *'Culprit, confirmed: patch 3 of 5, 0003-patch-3.patch: fake: Patch 3 fails pruned_tracing_resumes_at_sibling 2 times'* ]]
	second=$NMX_RESULTS/$RUN_ID/bisect/fake-good-fakeboot-pruned_tracing_resumes_at_sibling
	[ "$(grep -c "a boot of another scenario's confirmation" "$second/steps.tsv")" -eq 4 ]
	[ "$(grep -c "a boot of another scenario's confirmation" "$second/bisect.md")" -ge 4 ]
	# Four boots judged again, each once.
	[ "$(grep "another scenario's confirmation" "$second/steps.tsv" | cut -f5 | sort -u | wc -l)" -eq 4 ]
	# Its bisection went the first one's way: each step judged from the
	# first one's run of that commit, nothing built or booted.
	grep -q 'the step run for another scenario' "$second/steps.tsv"
	[ ! -e "$second/steps" ]
}

@test "bisect RUN_ID: a patch that does not build is skipped, not blamed" {
	patches_run 2:broken 3:fixed 4:failed-subtest.log
	[ "$status" -eq 1 ]
	bisect_run latest 1
	[ "$status" -eq 0 ]
	[[ "$output" == *'Culprit, confirmed: patch 4 of 5'* ]]
	! grep -q '0002-patch-2.patch.* | 1 | ' "$NMX_RESULTS/$RUN_ID/bisect.md" || false
}

@test "bisect RUN_ID: a cell that stops early is bisected on @boot" {
	patches_run 3:panic-before-ktap.log
	[ "$status" -eq 1 ]
	bisect_run "$RUN_ID" 1
	[ "$status" -eq 0 ]
	[[ "$output" == *'# Bisection of @boot on fakeboot'* ]]
	[[ "$output" == *'Culprit, confirmed: patch 3 of 5'* ]]
}

@test "bisect RUN_ID: a flaky patch is not confirmed (exit 1)" {
	setup_boot
	# The patched side's boot is the flaky kernel's second: it fails.
	mkdir -p "$NMX_CACHE"
	echo 1 >"$NMX_CACHE/fake-qemu-boots"
	patches_run '3:clean-pass-arm64.log|failed-subtest.log'
	[ "$status" -eq 1 ]
	bisect_run "$RUN_ID" 2
	[ "$status" -eq 1 ]
	[[ "$output" == *'**Not confirmed: the bisection pointed at patch '* ]]
}

@test "bisect RUN_ID: bad input is exit 2 saying what" {
	patches_run 3:failed-subtest.log
	run "$TOP/matrix.sh" --bisect nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"--bisect nosuch: no run of that id"* ]]
	run "$TOP/matrix.sh" --bisect "$RUN_ID" --cell fakeboot
	[ "$status" -eq 2 ]
	[[ "$output" == *"no --cell, --scenario"* ]]
	run "$TOP/matrix.sh" --no-install --cell fakeboot
	run "$TOP/matrix.sh" --bisect latest
	[ "$status" -eq 2 ]
	[[ "$output" == *"is not a run of --patches"* ]]
	patches_run 3:clean-pass-arm64.log
	run "$TOP/matrix.sh" --bisect latest
	[ "$status" -eq 2 ]
	[[ "$output" == *"regressed nothing; nothing to bisect"* ]]
}

@test "nmx compare -r: the regressed subtests, a line each" {
	patches_run 3:failed-subtest.log
	run "$NMX_BIN" compare -r -b fake-good-upstream -a fake-good-patched \
		"$NMX_RESULTS/$RUN_ID" "$NMX_RESULTS/$RUN_ID"
	[ "$status" -eq 1 ]
	[ "$output" = "$(printf 'fake-good\tfakeboot\tpruned_subtree_hidden\tPASS\tFAIL')" ]
}
