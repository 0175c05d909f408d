#!/usr/bin/env bash
# bisect.sh --tree DIR --bisect GOOD..BAD --cell C --scenario S [--confirm N]
# bisect.sh --bisect RUN_ID [--confirm N]
# (also ./matrix.sh --tree DIR --bisect GOOD..BAD ..., ./matrix.sh --bisect RUN_ID)
#
# Which commit of DIR's history broke scenario S on cell C? `git bisect
# run` over GOOD..BAD in a clone of DIR in the cache (DIR itself is only
# read), each step scripts/bisect-step.sh: that commit built with the
# series of its version, cell C booted, S judged; a step that says nothing
# of S (the series does not apply, the build breaks, the machine fails) is
# skipped, never blamed. Then the culprit is confirmed against flakes: its
# step must fail N times and the last good commit before it must pass N
# times (N: --confirm, default 3; with the 1-in-10 flake rate seen under
# multi-threaded TCG a wrong commit passes that with a chance of 1 in 1000).
# The record is results/bisect-<id>/: bisect.md (printed at the end: the
# culprit, every step with its verdict and run), git's bisect log, and the
# steps' runs.
#
# --bisect RUN_ID: RUN_ID is a run of matrix.sh --patches ("latest": the
# last run). Each (tree, cell, scenario) its patches regressed (nmx
# compare -r; a cell that stopped early is bisected on @build or @boot) is
# bisected the same way over the series: a small git repository in the
# cache whose commit k holds the first k patches, each step cell C alone
# on that tree with those patches on upstream (bisect-step.sh
# --patches-on). The record is results/RUN_ID/bisect/<tree>-<cell>-<S>/,
# all of them in results/RUN_ID/bisect.md, linked from the run's report.
#
# Exit 0: a culprit, confirmed (for each regression); 1: none found, or
# not confirmed; 2: bad input or infrastructure.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/lib.sh"

usage() {
	echo "usage: $0 --tree DIR --bisect GOOD..BAD --cell C --scenario S [--confirm N]" >&2
	echo "       $0 --bisect RUN_ID [--confirm N]" >&2
	exit 2
}

# step COMMIT: one step (STEP) at COMMIT in the clone; its exit as git
# bisect run's.
step() {
	local rc=0
	git -C "$CLONE" checkout -q "$1"
	(cd "$CLONE" && "${STEP[@]}") || rc=$?
	return "$rc"
}

# confirm COMMIT WANT: COMMIT's step gives WANT (0 good, 1 bad) N times.
# Boots made to confirm another scenario of the same cell at the same
# commit (SHARED, in --bisect RUN_ID) are judged again first: each boot
# is an independent trial for each scenario, so it may serve one of
# every scenario's N, never two of the same one's.
confirm() {
	local i rc dir verdict
	local -a shared=()
	[ -z "$SHARED" ] || mapfile -t shared < <(awk -F'\t' -v c="$1" -v cell="$CELL" \
		'$1 == c && $2 == cell { print $3 }' "$SHARED" 2>/dev/null)
	for ((i = 1; i <= CONFIRM; i++)); do
		rc=0
		if [ "$i" -le "${#shared[@]}" ]; then
			dir=${shared[i - 1]}
			verdict=$(nmx step-verdict --cell-dir "$dir" --scenario "$SCENARIO") || rc=$?
			printf '%s\t%s\t%s\t%s (a boot of another scenario'"'"'s confirmation)\t%s\n' "$1" "$rc" \
				"$(basename "$(dirname "$(dirname "$dir")")")" "$verdict" "$dir" >>"$OUT/steps.tsv"
		else
			step "$1" || rc=$?
			dir=$(tail -n 1 "$OUT/steps.tsv" | cut -f5)
			[ -z "$SHARED" ] || [ -z "$dir" ] || printf '%s\t%s\t%s\n' "$1" "$CELL" "$dir" >>"$SHARED"
		fi
		printf -- '- %s, confirmation %d of %d: %s\n' "$(subject "$1")" "$i" "$CONFIRM" \
			"$(tail -n 1 "$OUT/steps.tsv" | cut -f4)" >>"$OUT/confirm.md"
		[ "$rc" -eq "$2" ] || return 1
	done
}

# A commit as the record names it: a commit of DIR's history by its id
# and subject; a step of a series by its patch (the commit's message).
subject() {
	git -C "$CLONE" log -1 --format="$SUBJECT_FORMAT" "$1"
}

# The last commit before CULPRIT known good: a step that passed, else GOOD.
last_good() {
	local c good
	good=$(awk -F'\t' '$2 == 0 { print $1 }' "$OUT/steps.tsv")
	for c in $(git -C "$CLONE" rev-list "$1^"); do
		if grep -qx "$c" <<<"$good" || [ "$c" = "$GOOD" ]; then
			echo "$c"
			return 0
		fi
	done
	echo "$GOOD"
}

write_report() { # conclusion
	local commit code run verdict
	{
		printf '# Bisection of %s on %s\n\n' "$SCENARIO" "$CELL"
		printf '%s\n\n' "$WHAT"
		printf '**%s**\n\n## Steps\n\n| commit | exit | verdict | run |\n|---|---|---|---|\n' "$1"
		while IFS=$'\t' read -r commit code run verdict _; do
			printf '| %s | %s | %s | %s |\n' "$(subject "$commit")" "$code" "$verdict" "$run"
		done <"$OUT/steps.tsv"
		if [ -s "$OUT/confirm.md" ]; then
			printf '\n## Confirmation (%d each)\n\n' "$CONFIRM"
			cat "$OUT/confirm.md"
		fi
	} >"$OUT/bisect.md"
	cat "$OUT/bisect.md"
}

# bisect GOOD BAD: git bisect run of STEP over GOOD..BAD in CLONE, then
# the confirmation; the record in OUT. Exit 0 confirmed, 1 not.
bisect() {
	local culprit good rc=0 log=$OUT/git-bisect-run.log
	GOOD=$1
	mkdir -p "$OUT"
	: >"$OUT/steps.tsv"
	: >"$OUT/confirm.md"
	git -C "$CLONE" checkout -q "$2"
	git -C "$CLONE" bisect start "$2" "$1" >>"$log" 2>&1
	# A step's kernel that is byte for byte one booted before (a commit
	# that changes no built file, a step another bisection made) is
	# judged from that console; in --bisect RUN_ID a commit another
	# scenario's bisection stepped is judged from that step's run (MEMO).
	# The confirmation below boots afresh.
	(cd "$CLONE" && git bisect run "${STEP[@]}" --reuse-boots "${MEMO[@]}") >>"$log" 2>&1 || rc=$?
	git -C "$CLONE" bisect log >"$OUT/git-bisect.log" 2>&1 || true
	culprit=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$log" | head -n 1)
	git -C "$CLONE" bisect reset >>"$log" 2>&1 || true
	if [ -z "$culprit" ]; then
		local why candidates c
		why=$(grep -m1 -e 'could be any of' -e 'bisect run failed' -e 'cannot' "$log" || echo "git bisect run exited $rc")
		# Skipped commits next to the first bad one: git names them all.
		candidates=$(sed -n '/could be any of/,$s/^\([0-9a-f]\{40\}\)$/\1/p' "$log")
		for c in $candidates; do
			why+=" $(subject "$c")"
		done
		write_report "No culprit: $why (see git-bisect-run.log)"
		return 1
	fi
	good=$(last_good "$culprit")
	if confirm "$culprit" 1 && confirm "$good" 0; then
		write_report "Culprit, confirmed: $(subject "$culprit") fails $SCENARIO $CONFIRM times, $(subject "$good") passes it $CONFIRM times"
		return 0
	fi
	write_report "Not confirmed: the bisection pointed at $(subject "$culprit"), but a repeat disagreed (a flaky scenario?)"
	return 1
}

# bisect_history DIR GOOD_ARG BAD_ARG: DIR's history, in a clone.
bisect_history() {
	local dir=$1 good bad size
	if [[ "$dir" != */* ]] || [ ! -d "$dir" ]; then
		err "--tree $dir: not a directory (--bisect takes a checkout of yours)"
		exit 2
	fi
	dir=$(realpath "$dir")
	git -C "$dir" rev-parse --git-dir >/dev/null 2>&1 || { err "--tree $dir: not a git checkout"; exit 2; }
	good=$(git -C "$dir" rev-parse -q --verify "$2^{commit}") || { err "--bisect: '$2' is no commit of $dir"; exit 2; }
	bad=$(git -C "$dir" rev-parse -q --verify "$3^{commit}") || { err "--bisect: '$3' is no commit of $dir"; exit 2; }
	git -C "$dir" merge-base --is-ancestor "$good" "$bad" || { err "--bisect: $2 is not an ancestor of $3"; exit 2; }
	size=$(git -C "$dir" rev-list --count "$good..$bad")
	make -s -C "$NMX_TOP/tools/nmx" >&2 || exit 2
	nmx cells --cell "$CELL" >/dev/null || exit 2

	OUT=$NMX_RESULTS/bisect-$(date -u +%Y%m%dT%H%M%SZ)
	CLONE=$NMX_CACHE/bisect/src
	rm -rf "$CLONE"
	mkdir -p "${CLONE%/*}"
	git clone -q --no-checkout "$dir" "$CLONE"
	SUBJECT_FORMAT='%h ("%s")'
	SHARED=''
	MEMO=()
	WHAT="Tree: $dir, $2..$3 ($size commits). Each step: the commit with the series of its version,
cell $CELL booted, $SCENARIO judged (0 good, 1 bad, 125 skipped)."
	STEP=("$NMX_TOP/scripts/bisect-step.sh" --cell "$CELL" --scenario "$SCENARIO"
		--results "$OUT/steps" --log "$OUT/steps.tsv")
	progress "bisecting $SCENARIO on $CELL over $2..$3 ($size commits) in $CLONE; record in $OUT"
	bisect "$good" "$bad"
}

# series_repo PATCHES REPO: a repository whose commit k holds the first k
# of a run's patches (PATCHES: its copy, with their series file; commit 0:
# none, upstream), each commit's message the patch's file and subject.
series_repo() {
	local repo=$2 name n=0 total
	local -a git=(git -C "$repo" -c user.name=notrace-matrix -c user.email=notrace-matrix@localhost)
	total=$(grep -cv '^\(#\|$\)' "$1/series")
	rm -rf "$repo"
	mkdir -p "$repo"
	git -C "$repo" init -q
	"${git[@]}" commit -q --allow-empty -m "none of the $total patches (upstream)"
	while read -r name; do
		case $name in '' | '#'*) continue ;; esac
		n=$((n + 1))
		cp "$1/$name" "$repo/"
		"${git[@]}" add "$name"
		"${git[@]}" commit -q -m "patch $n of $total, $name: $(patch_subject "$1/$name")"
	done <"$1/series"
}

# bisect_patches RUN_ID: each regression of that --patches run.
bisect_patches() {
	local run_dir rc=0 tree cell scenario before after on series="" t line baseline none all
	local -a regressions=() trees=()
	run_dir=$NMX_RESULTS/$1
	[ "$1" != latest ] || run_dir=$NMX_RESULTS/$(readlink "$NMX_RESULTS/latest" 2>/dev/null || echo latest)
	if [[ "$1" == */* ]] || ! run_facts show --run "$run_dir" 2>/dev/null; then
		err "--bisect $1: no run of that id in $NMX_RESULTS (a run id, or a range GOOD..BAD with --tree DIR)"
		exit 2
	fi
	if [ -z "${RUN[patches]:-}" ]; then
		err "--bisect $1: $run_dir is not a run of --patches (no patches/series)"
		exit 2
	fi
	make -s -C "$NMX_TOP/tools/nmx" >&2 || exit 2
	mapfile -t trees < <(nmx run-cells --run "$run_dir" | cut -d' ' -f1 | awk '!seen[$0]++')
	for t in "${trees[@]}"; do
		mapfile -t -O "${#regressions[@]}" regressions < <(nmx compare -r -b "$t-upstream" \
			-a "$t-patched" "$run_dir" "$run_dir")
	done
	if [ "${#regressions[@]}" -eq 0 ]; then
		err "--bisect $1: its patches regressed nothing; nothing to bisect"
		exit 2
	fi
	on=${RUN[local_tree]:-}
	series=${RUN[local_series]:-}
	CLONE=$NMX_CACHE/bisect/series
	series_repo "${RUN[patches]}" "$CLONE"
	none=$(git -C "$CLONE" rev-list --max-parents=0 HEAD)
	all=$(git -C "$CLONE" rev-parse HEAD)
	SUBJECT_FORMAT='%s'
	SHARED=$run_dir/bisect/confirmations.tsv
	MEMO=(--memo "$run_dir/bisect/memo.tsv")
	rm -rf "$run_dir/bisect"
	mkdir -p "$run_dir/bisect"
	progress "bisecting ${#regressions[@]} regression(s) of run ${run_dir##*/} over its $(git -C "$CLONE" rev-list --count "$none..$all") patch(es)"
	{
		printf '# Which patch? Run %s, bisected\n\n' "${run_dir##*/}"
		printf 'Each regression of the patches (patches-compare.md), bisected over the\n'
		printf 'series: step k is the cell on its tree with the first k patches on upstream.\n'
	} >"$run_dir/bisect.md.tmp"
	for line in "${regressions[@]}"; do
		IFS=$'\t' read -r tree cell scenario before after <<<"$line"
		[ "$tree" = local ] || on=$tree
		CELL=$cell SCENARIO=$scenario
		OUT=$run_dir/bisect/$tree-$cell-$scenario
		rm -rf "$OUT"
		WHAT="Run ${run_dir##*/}: $scenario on $cell ($tree) went $before -> $after with the patches. Each step: cell $cell
on $tree with the first k patches on upstream, $scenario judged (0 good, 1 bad, 125 skipped)."
		STEP=("$NMX_TOP/scripts/bisect-step.sh" --cell "$cell" --scenario "$scenario"
			--patches-on "$on" --results "$OUT/steps" --log "$OUT/steps.tsv")
		[ -z "$series" ] || STEP+=(--series "$series")
		progress "bisecting $scenario on $cell ($tree); record in $OUT"
		bisect "$none" "$all" || rc=1
		{
			printf '\n'
			sed 's/^#/##/' "$OUT/bisect.md"
		} >>"$run_dir/bisect.md.tmp"
	done
	mv "$run_dir/bisect.md.tmp" "$run_dir/bisect.md"
	# The report again, now with the link to bisect.md, against the same
	# earlier run as before.
	baseline=${RUN[baseline]:-}
	if [ -n "$baseline" ] && [ -d "$baseline" ]; then
		nmx report --baseline "$baseline" "$run_dir" || rc=2
	else
		nmx report "$run_dir" || rc=2
	fi
	progress "bisection of run ${run_dir##*/} done: $run_dir/bisect.md, exit $rc"
	exit "$rc"
}

main() {
	local range=''
	DIR='' CELL='' SCENARIO='' CONFIRM=3
	while [ $# -gt 0 ]; do
		case $1 in
		--*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}"; continue ;;
		--tree | --bisect | --cell | --scenario | --confirm)
			[ $# -ge 2 ] || usage
			case $1 in
			--tree) DIR=$2 ;;
			--bisect) range=$2 ;;
			--cell) CELL=$2 ;;
			--scenario) SCENARIO=$2 ;;
			--confirm) CONFIRM=$2 ;;
			esac
			shift 2
			;;
		--no-install) shift ;;
		*) err "--bisect: unknown option '$1' (it takes --tree DIR, --cell, --scenario, --confirm)"; usage ;;
		esac
	done
	[ -n "$range" ] || usage
	[[ "$CONFIRM" =~ ^[1-9][0-9]*$ ]] || { err "--confirm $CONFIRM: a positive number of steps"; exit 2; }
	if [[ "$range" != *..* ]] && [ -z "$DIR" ]; then
		if [ -n "$CELL" ] || [ -n "$SCENARIO" ]; then
			err "--bisect $range: a run's regressions name their cells and scenarios (no --cell, --scenario)"
			exit 2
		fi
		bisect_patches "$range"
	fi
	if [ -z "$DIR" ] || [ -z "$CELL" ] || [ -z "$SCENARIO" ]; then
		usage
	fi
	[[ "$range" == ?*..?* ]] || { err "--bisect $range: a range GOOD..BAD"; exit 2; }
	local rc=0
	bisect_history "$DIR" "${range%%..*}" "${range#*..}" || rc=$?
	exit "$rc"
}

main "$@"
