#!/usr/bin/env bash
# Measure the matrix's speed targets and append the figures to
# benchmarks/figures.md (targets: cold four-cell run <= 30 min wall,
# rerun with nothing changed <= 2 min, boot + verdict <= 15 s per cell).
#
#   scripts/benchmark.sh [--cold]
#
# --cold first removes ccache, the per-variant worktrees and the build
# directories (the unpacked pristine tree stays): every kernel is then
# compiled from scratch. The rerun is measured three times, side by side:
# the serial mode (-j 1), the default, boots in parallel (-j cores), and
# with --reuse-boots (every boot's inputs unchanged: no cell boots).
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

timed_run() { # label [matrix.sh options]
	local t0 t1 rc=0 label=$1
	shift
	t0=$(date +%s)
	"$NMX_TOP/matrix.sh" --no-install "$@" >/dev/null 2>&1 || rc=$?
	t1=$(date +%s)
	printf '| %s | %s | %dm%02ds | %s |\n' "$(date -u +%Y-%m-%d)" "$label" \
		$(((t1 - t0) / 60)) $(((t1 - t0) % 60)) "exit $rc; $(per_cell)"
}

# "cell: build Xs, boot Ys" for each cell of results/latest.
per_cell() {
	awk 'NR > 1 && NF >= 6 && $1 ~ /-/ { printf "%s%s/%s %s kernel %ss boot %ss", sep, $1, $2, $3, $5, $6; sep = "; " }' \
		"$NMX_TOP/results/latest/summary.txt"
}

main() {
	local figures=$NMX_TOP/benchmarks/figures.md
	mkdir -p "$(dirname "$figures")"
	if [ "${1:-}" = --cold ]; then
		rm -rf "$NMX_CACHE/ccache" "$NMX_CACHE/work"
		timed_run "cold (no ccache, no worktrees, no build dirs)" | tee -a "$figures"
	fi
	timed_run "rerun, nothing changed, serial (-j 1)" -j 1 | tee -a "$figures"
	timed_run "rerun, nothing changed, -j $(nproc)" -j "$(nproc)" | tee -a "$figures"
	timed_run "rerun, nothing changed, --reuse-boots" --reuse-boots | tee -a "$figures"
}

main "$@"
