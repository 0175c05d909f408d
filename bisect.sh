#!/usr/bin/env bash
# bisect.sh --tree DIR --bisect GOOD..BAD --cell C --scenario S [--confirm N]
# (also ./matrix.sh --tree DIR --bisect GOOD..BAD ...)
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
#
# The bisection's record is results/bisect-<id>/: bisect.md (printed at the
# end: the culprit, every step with its verdict and run), git's bisect log,
# and the steps' runs. Exit 0: a culprit, confirmed; 1: none found, or not
# confirmed; 2: bad input or infrastructure.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/lib.sh"

usage() {
	echo "usage: $0 --tree DIR --bisect GOOD..BAD --cell C --scenario S [--confirm N]" >&2
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
confirm() {
	local i rc
	for ((i = 1; i <= CONFIRM; i++)); do
		rc=0
		step "$1" || rc=$?
		printf -- '- %s, confirmation %d of %d: %s\n' "$(subject "$1")" "$i" "$CONFIRM" \
			"$(tail -n 1 "$OUT/steps.tsv" | cut -f4)" >>"$OUT/confirm.md"
		[ "$rc" -eq "$2" ] || return 1
	done
}

subject() {
	git -C "$CLONE" log -1 --format='%h ("%s")' "$1"
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
		printf 'Tree: %s, %s..%s (%s). Each step: the commit with the series of its version,\n' \
			"$DIR" "$GOOD_ARG" "$BAD_ARG" "$RANGE_SIZE commits"
		printf 'cell %s booted, %s judged (0 good, 1 bad, 125 skipped).\n\n' "$CELL" "$SCENARIO"
		printf '**%s**\n\n## Steps\n\n| commit | exit | verdict | run |\n|---|---|---|---|\n' "$1"
		while IFS=$'\t' read -r commit code run verdict; do
			printf '| %s | %s | %s | %s |\n' "$(subject "$commit")" "$code" "$verdict" "$run"
		done <"$OUT/steps.tsv"
		if [ -s "$OUT/confirm.md" ]; then
			printf '\n## Confirmation (%d each)\n\n' "$CONFIRM"
			cat "$OUT/confirm.md"
		fi
	} >"$OUT/bisect.md"
	cat "$OUT/bisect.md"
}

main() {
	local range='' culprit good rc=0 log
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
	if [ -z "$DIR" ] || [ -z "$range" ] || [ -z "$CELL" ] || [ -z "$SCENARIO" ]; then
		usage
	fi
	[[ "$range" == ?*..?* ]] || { err "--bisect $range: a range GOOD..BAD"; exit 2; }
	[[ "$CONFIRM" =~ ^[1-9][0-9]*$ ]] || { err "--confirm $CONFIRM: a positive number of steps"; exit 2; }
	if [[ "$DIR" != */* ]] || [ ! -d "$DIR" ]; then
		err "--tree $DIR: not a directory (--bisect takes a checkout of yours)"
		exit 2
	fi
	DIR=$(realpath "$DIR")
	git -C "$DIR" rev-parse --git-dir >/dev/null 2>&1 || { err "--tree $DIR: not a git checkout"; exit 2; }
	GOOD_ARG=${range%%..*} BAD_ARG=${range#*..}
	GOOD=$(git -C "$DIR" rev-parse -q --verify "$GOOD_ARG^{commit}") || { err "--bisect: '$GOOD_ARG' is no commit of $DIR"; exit 2; }
	BAD=$(git -C "$DIR" rev-parse -q --verify "$BAD_ARG^{commit}") || { err "--bisect: '$BAD_ARG' is no commit of $DIR"; exit 2; }
	git -C "$DIR" merge-base --is-ancestor "$GOOD" "$BAD" || { err "--bisect: $GOOD_ARG is not an ancestor of $BAD_ARG"; exit 2; }
	RANGE_SIZE=$(git -C "$DIR" rev-list --count "$GOOD..$BAD")
	make -s -C "$NMX_TOP/tools/nmx" >&2 || exit 2
	nmx cells --cell "$CELL" >/dev/null || exit 2

	OUT=$NMX_RESULTS/bisect-$(date -u +%Y%m%dT%H%M%SZ)
	mkdir -p "$OUT"
	: >"$OUT/steps.tsv"
	CLONE=$NMX_CACHE/bisect/src
	rm -rf "$CLONE"
	mkdir -p "${CLONE%/*}"
	git clone -q --no-checkout "$DIR" "$CLONE"
	# One step, as git bisect run and the confirmations run it.
	STEP=("$NMX_TOP/scripts/bisect-step.sh" --cell "$CELL" --scenario "$SCENARIO"
		--results "$OUT/steps" --log "$OUT/steps.tsv")
	progress "bisecting $SCENARIO on $CELL over $GOOD_ARG..$BAD_ARG ($RANGE_SIZE commits) in $CLONE; record in $OUT"
	log=$OUT/git-bisect-run.log
	git -C "$CLONE" checkout -q "$BAD"
	git -C "$CLONE" bisect start "$BAD" "$GOOD" >>"$log" 2>&1
	(cd "$CLONE" && git bisect run "${STEP[@]}") >>"$log" 2>&1 || rc=$?
	git -C "$CLONE" bisect log >"$OUT/git-bisect.log" 2>&1 || true
	culprit=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$log" | head -n 1)
	git -C "$CLONE" bisect reset -q >>"$log" 2>&1 || true
	if [ -z "$culprit" ]; then
		local why candidates c
		why=$(grep -m1 -e 'could be any of' -e 'bisect run failed' -e 'cannot' "$log" || echo "git bisect run exited $rc")
		# Skipped commits next to the first bad one: git names them all.
		candidates=$(sed -n '/could be any of/,$s/^\([0-9a-f]\{40\}\)$/\1/p' "$log")
		for c in $candidates; do
			why+=" $(subject "$c")"
		done
		write_report "No culprit: $why (see git-bisect-run.log)"
		exit 1
	fi
	good=$(last_good "$culprit")
	if confirm "$culprit" 1 && confirm "$good" 0; then
		write_report "Culprit, confirmed: $(subject "$culprit") fails $SCENARIO $CONFIRM times, $(subject "$good") passes it $CONFIRM times"
		exit 0
	fi
	write_report "Not confirmed: the bisection pointed at $(subject "$culprit"), but a repeat disagreed (a flaky scenario?)"
	exit 1
}

main "$@"
