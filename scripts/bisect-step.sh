#!/usr/bin/env bash
# bisect-step.sh --cell C --scenario S [--patches-on TREE [--series T]]
#                 [--reuse-boots] [--memo FILE] [--results DIR] [--log FILE]
#
# One step of a bisection, for `git bisect run`: in the kernel checkout it
# runs in, builds its HEAD as `matrix.sh --tree DIR` does (copied into the
# cache and built there with the series of its version; the checkout is
# only read), boots cell C (variant upstream) and judges scenario S.
#
#   cd ~/src/linux
#   git bisect start BAD GOOD
#   git bisect run ~/notrace-matrix/scripts/bisect-step.sh --cell CELL \
#           --scenario SCENARIO
#
# --patches-on TREE [--series T]: the checkout holds a maintainer's
# patches instead (*.patch files, one commit per patch: bisect.sh makes
# it from a --patches run); the step runs cell C on TREE (a tree of
# matrix.yaml, or a kernel checkout DIR with the series of T) with the
# checkout's patches on top of upstream (matrix.sh --patches --variant
# patched), or upstream alone when it holds none.
#
# Exit (git bisect run's convention; nmx step-verdict decides): 0 good (S
# passed), 1 bad (S failed), 125 no verdict on S -- the series does not
# apply, the kernel does not build, the machine failed, the boot ended
# before S ran -- which git bisect skips, never blames. Bad input exits
# 128, which stops the bisection. --results DIR: where the step's runs go
# (default results/); --log FILE: a line appended per step (commit, exit,
# run id, verdict, the cell's directory). --reuse-boots: a kernel booted
# before byte for byte is judged from that boot's console (matrix.sh
# --reuse-boots), for steps of a bisection that another one made already.
set -uo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ABORT=128

main() {
	local cell='' scenario='' log='' dir commit before after rc=0 verdict code
	local on='' series='' tv memo='' earlier
	# A step boots its kernel (matrix.sh --patches would otherwise judge
	# an unchanged one from an earlier console), unless --reuse-boots.
	local -a run=() reuse=(--boot-again)
	while [ $# -gt 0 ]; do
		case $1 in
		--cell | --scenario | --results | --log | --patches-on | --series)
			[ $# -ge 2 ] || { err "bisect-step: $1 needs a value"; exit "$ABORT"; }
			case $1 in
			--cell) cell=$2 ;;
			--scenario) scenario=$2 ;;
			--results) NMX_RESULTS=$2 ;;
			--log) log=$2 ;;
			--patches-on) on=$2 ;;
			--series) series=$2 ;;
			esac
			shift 2
			;;
		--reuse-boots) reuse=(--reuse-boots); shift ;;
		--memo)
			[ $# -ge 2 ] || { err "bisect-step: $1 needs a value"; exit "$ABORT"; }
			memo=$2
			shift 2
			;;
		*) err "bisect-step: unknown option '$1'"; exit "$ABORT" ;;
		esac
	done
	if [ -z "$cell" ] || [ -z "$scenario" ]; then
		err "usage: $0 --cell C --scenario S [--patches-on TREE [--series T]] [--results DIR] [--log FILE]"
		exit "$ABORT"
	fi
	dir=$(git rev-parse --show-toplevel 2>/dev/null) ||
		{ err "bisect-step: $PWD is not a git checkout"; exit "$ABORT"; }
	commit=$(git -C "$dir" rev-parse HEAD)
	if [ -z "$on" ]; then
		run=(--tree "$dir" --variant upstream)
		tv=local-upstream
	else
		run=(--tree "$on")
		[ -z "$series" ] || run+=(--series "$series")
		tv=$on
		[[ "$on" != */* ]] || tv=local
		if compgen -G "$dir/*.patch" >/dev/null; then
			run+=(--patches "$dir" --variant patched)
			tv+=-patched
		else
			run+=(--variant upstream)
			tv+=-upstream
		fi
	fi
	# This commit stepped before for another scenario of the same cell:
	# that run's console judged for this one, nothing built or booted.
	earlier=$(awk -F'\t' -v c="$commit" -v cell="$cell" '$1 == c && $2 == cell { print $3; exit }' \
		"${memo:-/dev/null}" 2>/dev/null || true)
	if [ -n "$earlier" ]; then
		code=0
		verdict=$(nmx step-verdict --cell-dir "$earlier" --scenario "$scenario") || code=$?
		after=$(basename "$(dirname "$(dirname "$earlier")")")
		[ -z "$log" ] || printf '%s\t%s\t%s\t%s (the step run for another scenario)\t%s\n' "$commit" \
			"$code" "$after" "$verdict" "$earlier" >>"$log"
		progress "bisect step $(git -C "$dir" log -1 --format='%h %s'): $verdict (run $after, made for another scenario)"
		exit "$code"
	fi
	mkdir -p "$NMX_RESULTS"
	before=$(readlink "$NMX_RESULTS/latest" || true)
	NMX_RESULTS=$NMX_RESULTS "$NMX_TOP/matrix.sh" --no-install "${run[@]}" \
		"${reuse[@]}" --cell "$cell" >&2 || rc=$?
	after=$(readlink "$NMX_RESULTS/latest" || true)
	if [ -z "$after" ] || [ "$after" = "$before" ]; then
		verdict="skip: matrix.sh made no run (exit $rc)"
		code=125
	else
		code=0
		verdict=$(nmx step-verdict --cell-dir "$NMX_RESULTS/$after/$tv/$cell" \
			--scenario "$scenario") || code=$?
	fi
	[ -z "$log" ] || printf '%s\t%s\t%s\t%s\t%s\n' "$commit" "$code" "${after:--}" "$verdict" \
		"${after:+$NMX_RESULTS/$after/$tv/$cell}" >>"$log"
	if [ -n "$memo" ] && [ "$code" != 125 ]; then
		printf '%s\t%s\t%s\n' "$commit" "$cell" "$NMX_RESULTS/$after/$tv/$cell" >>"$memo"
	fi
	progress "bisect step $(git -C "$dir" log -1 --format='%h %s'): $verdict"
	exit "$code"
}

main "$@"
