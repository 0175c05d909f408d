#!/usr/bin/env bash
# bisect-step.sh --cell C --scenario S [--results DIR] [--log FILE]
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
# Exit (git bisect run's convention; nmx step-verdict decides): 0 good (S
# passed), 1 bad (S failed), 125 no verdict on S -- the series does not
# apply, the kernel does not build, the machine failed, the boot ended
# before S ran -- which git bisect skips, never blames. Bad input exits
# 128, which stops the bisection. --results DIR: where the step's runs go
# (default results/); --log FILE: a line appended per step (commit, exit,
# run id, verdict).
set -uo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

ABORT=128

main() {
	local cell='' scenario='' log='' dir commit before after rc=0 verdict code
	while [ $# -gt 0 ]; do
		case $1 in
		--cell | --scenario | --results | --log)
			[ $# -ge 2 ] || { err "bisect-step: $1 needs a value"; exit "$ABORT"; }
			case $1 in
			--cell) cell=$2 ;;
			--scenario) scenario=$2 ;;
			--results) NMX_RESULTS=$2 ;;
			--log) log=$2 ;;
			esac
			shift 2
			;;
		*) err "bisect-step: unknown option '$1'"; exit "$ABORT" ;;
		esac
	done
	if [ -z "$cell" ] || [ -z "$scenario" ]; then
		err "usage: $0 --cell C --scenario S [--results DIR] [--log FILE]"
		exit "$ABORT"
	fi
	dir=$(git rev-parse --show-toplevel 2>/dev/null) ||
		{ err "bisect-step: $PWD is not a git checkout"; exit "$ABORT"; }
	commit=$(git -C "$dir" rev-parse HEAD)
	mkdir -p "$NMX_RESULTS"
	before=$(readlink "$NMX_RESULTS/latest" || true)
	NMX_RESULTS=$NMX_RESULTS "$NMX_TOP/matrix.sh" --no-install --tree "$dir" \
		--cell "$cell" --variant upstream >&2 || rc=$?
	after=$(readlink "$NMX_RESULTS/latest" || true)
	if [ -z "$after" ] || [ "$after" = "$before" ]; then
		verdict="skip: matrix.sh made no run (exit $rc)"
		code=125
	else
		code=0
		verdict=$(nmx step-verdict --cell-dir "$NMX_RESULTS/$after/local-upstream/$cell" \
			--scenario "$scenario") || code=$?
	fi
	[ -z "$log" ] || printf '%s\t%s\t%s\t%s\n' "$commit" "$code" "${after:--}" "$verdict" >>"$log"
	progress "bisect step $(git -C "$dir" log -1 --format='%h %s'): $verdict"
	exit "$code"
}

main "$@"
