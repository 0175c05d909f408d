#!/usr/bin/env bash
# Measure the matrix's speed and append the figures to
# benchmarks/figures.md, each mode beside the serial one (-j 1).
#
#   scripts/benchmark.sh [--cold] [--one-file] [--one-file-reuse] [--rerun] [-- matrix.sh selection]
#
# Default: --one-file --one-file-reuse --rerun on the default run; options
# after -- (e.g. --tree linux-6.1) select the cells of every run measured.
#
# --cold      every kernel compiled from scratch: ccache, the worktrees and
#             the build directories are removed first (set NMX_CACHE to a
#             scratch directory to keep your own cache). Reported against
#             the compile floor: the kernel builds' CPU seconds (meta.tsv,
#             kernel_cpu_seconds) over the machine's cores.
# --one-file  a one-line comment change to a patch of the first tree,
#             run serially, then reverted and run with -j cores: both runs
#             rebuild that tree's kernels and boot every cell.
# --one-file-reuse  a new one-line code change with --reuse-boots (the
#             other tree's cells are judged from their last boot), then
#             reverted (every cell judged from its last boot).
# --rerun     nothing changed: serial, -j cores, and --reuse-boots.
# Targets (issue 10): rerun <= 90 s, one-file change <= 4 min, boot +
# verdict <= 15 s per cell, cold <= 1.15 x the compile floor.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Every run's results stay here, the scratch clone's too.
export NMX_RESULTS=${NMX_RESULTS:-$NMX_TOP/results}

# timed_run TOP LABEL [matrix.sh options]: one figures.md row.
timed_run() {
	local t0 t1 rc=0 top=$1 label=$2
	shift 2
	t0=$(date +%s)
	"$top/matrix.sh" --no-install "$@" "${SELECTION[@]}" >/dev/null 2>&1 || rc=$?
	t1=$(date +%s)
	printf '| %s | %s%s | %dm%02ds | %s |\n' "$(date -u +%Y-%m-%d)" "$label" \
		"${SELECTION[*]:+ (${SELECTION[*]})}" \
		$(((t1 - t0) / 60)) $(((t1 - t0) % 60)) \
		"exit $rc; run $(basename "$(readlink -f "$NMX_RESULTS/latest")"); $(slowest_boot); $(compile_floor $((t1 - t0)))"
}

# The slowest boot + verdict of the latest run, against the 15 s target.
slowest_boot() {
	awk 'NR > 1 && NF >= 6 && $1 ~ /-/ && $6 + 0 > max { max = $6; at = $1 "/" $2 }
		END { printf "slowest boot %.1f s (%s)", max, at }' "$NMX_RESULTS/latest/summary.txt"
}

# The kernel builds' CPU seconds over the cores, and wall / that floor.
compile_floor() { # wall-seconds
	local cpu
	cpu=$(cat "$NMX_RESULTS"/latest/*/*/meta.tsv 2>/dev/null |
		awk -F'\t' '$1 == "kernel_cpu_seconds" { s += $2 } END { printf "%.0f", s }')
	if [ "${cpu:-0}" -lt 60 ]; then
		printf 'kernels %s CPU s' "${cpu:-0}"
		return
	fi
	awk -v cpu="$cpu" -v cores="$(nproc)" -v wall="$1" 'BEGIN {
		printf "kernels %d CPU s, compile floor %d s on %d cores, wall %.2f x floor", cpu, cpu / cores, cores, wall / (cpu / cores)
	}'
}

# A clone of this checkout with one line changed in the first tree's
# patch that adds the series' test functions (compiled into every cell;
# hunk sizes kept), sharing the cache: a maintainer's edit. "comment"
# changes a comment (the same object code: every boot can be reused);
# "code TAG" renames the sleeper scenario's kthread (new kernel bytes).
one_file_clone() { # dir comment|code tag
	local patch
	git clone -q "$NMX_TOP" "$1"
	patch=$(grep -l '^+++ b/lib/test_fgraph_notrace.c' "$(find "$1/patch" -mindepth 1 -maxdepth 1 -type d | sort | head -n 1)"/*.patch)
	case $2 in
	comment) sed -i "0,/^+ \\* [a-z].*[a-z]\$/s//& $3/" "$patch" ;;
	code) sed -i "s/\"fgnt_sleeper\")/\"fgnt_sl$3\")/" "$patch" ;;
	esac
	git -C "$1" diff --stat --exit-code >&2 && { echo "$patch: nothing changed" >&2; exit 2; }
	return 0
}

main() {
	local figures=$NMX_TOP/benchmarks/figures.md modes=() scratch
	SELECTION=()
	while [ $# -gt 0 ]; do
		case $1 in
		--) shift; SELECTION=("$@"); break ;;
		*) modes+=("$1"); shift ;;
		esac
	done
	[ ${#modes[@]} -gt 0 ] || modes=(--one-file --one-file-reuse --rerun)
	mkdir -p "$(dirname "$figures")" "$NMX_RESULTS"
	for mode in "${modes[@]}"; do
		case $mode in
		--cold)
			rm -rf "$NMX_CACHE/ccache" "$NMX_CACHE/work"
			timed_run "$NMX_TOP" "cold (no ccache, no worktrees, no build dirs), -j $(nproc)" | tee -a "$figures"
			;;
		--one-file)
			scratch=$(mktemp -d)
			one_file_clone "$scratch/top" comment "(benchmark)"
			timed_run "$scratch/top" "one-line change to a patch, serial (-j 1)" -j 1 | tee -a "$figures"
			timed_run "$NMX_TOP" "the same change reverted, -j $(nproc)" -j "$(nproc)" | tee -a "$figures"
			rm -rf "$scratch"
			;;
		--one-file-reuse)
			# A change not made before: its tree's cells boot, the others
			# are judged from their last boot; going back reuses them all.
			scratch=$(mktemp -d)
			one_file_clone "$scratch/top" code "$(($(date +%s) % 10000))"
			timed_run "$scratch/top" "a new one-line code change to a patch, -j $(nproc) --reuse-boots" -j "$(nproc)" --reuse-boots | tee -a "$figures"
			timed_run "$NMX_TOP" "the change reverted, -j $(nproc) --reuse-boots" -j "$(nproc)" --reuse-boots | tee -a "$figures"
			rm -rf "$scratch"
			;;
		--rerun)
			timed_run "$NMX_TOP" "rerun, nothing changed, serial (-j 1)" -j 1 | tee -a "$figures"
			timed_run "$NMX_TOP" "rerun, nothing changed, -j $(nproc)" -j "$(nproc)" | tee -a "$figures"
			timed_run "$NMX_TOP" "rerun, nothing changed, -j $(nproc) --reuse-boots" --reuse-boots | tee -a "$figures"
			;;
		*)
			echo "usage: $0 [--cold] [--one-file] [--one-file-reuse] [--rerun] [-- matrix.sh selection]" >&2
			exit 2
			;;
		esac
	done
}

main "$@"
