#!/usr/bin/env bats
# Bisection (bisect.sh, matrix.sh --bisect, scripts/bisect-step.sh) on a
# git history of the fake tree whose commits change what its kernel
# "prints" (CONSOLE names a recorded log): which commit broke a scenario,
# a commit that does not build skipped and not blamed, a flaky scenario
# not confirmed, and the step command's exit codes.

load helpers

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
