#!/usr/bin/env bash
# Measure the matrix's speed and append the figures to
# benchmarks/figures.md (readable) and benchmarks/figures.tsv (a row per
# measured run: date, commit, mode, wall, compile and boot floors, slowest
# boot, run id), each mode beside the serial one (-j 1).
#
#   scripts/benchmark.sh [--cold] [--one-file] [--one-file-reuse] [--rerun] [--patches FILE] [-- matrix.sh selection]
#   scripts/benchmark.sh --row MODE WALL_SECONDS RUN_DIR
#   scripts/benchmark.sh --scale
#   scripts/benchmark.sh --bisect-series DIR [-- matrix.sh selection]
#   scripts/benchmark.sh --typical [EARLIER.tsv] RUN_DIR... >benchmarks/typical-seconds.tsv
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
# --patches FILE  ./matrix.sh --patches FILE as a maintainer runs it (say
#             a one-file arch/arm change, benchmarks/patches/arm-setup-rev.diff):
#             the cells it leaves unchanged are judged from upstream's boot
#             (issue 21's 3 minutes).
# --scale     no run: the expected wall time of the default run, of the
#             end-to-end set and of --set all on more cores and on a GitLab
#             pipeline, from benchmarks/typical-seconds.tsv (nmx estimate),
#             as the markdown table of docs/performance.md.
# --typical   no run: benchmarks/typical-seconds.tsv from the stages.tsv and
#             meta.tsv of these runs (first runs on an empty cache; a later
#             run's figure for the same cell and stage wins), after the
#             tree-variant rows of an earlier table if one is given.
# --bisect-series DIR  a --patches run of DIR (a series with one
#             regressing patch, e.g. benchmarks/bisect-series/linux-6.1)
#             and ./matrix.sh --bisect of it, against one --patches run per
#             patch (what finding it by hand costs).
# --row       the figures.tsv row of a run measured some other way (a cold
#             .ci/run from a fresh clone: its end-to-end run's directory,
#             and the wall seconds of the whole .ci/run), appended.
# Targets (issue 10): rerun <= 90 s, one-file change <= 4 min, boot +
# verdict <= 15 s per cell, cold <= 1.15 x the compile floor.
set -euo pipefail

# shellcheck source=lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# Every run's results stay here, the scratch clone's too.
export NMX_RESULTS=${NMX_RESULTS:-$NMX_TOP/results}

# timed_run TOP MODE LABEL [matrix.sh options]: one figures.md row on
# stdout, one figures.tsv row appended.
timed_run() {
	local t0 t1 rc=0 top=$1 mode=$2 label=$3
	shift 3
	t0=$(date +%s)
	"$top/matrix.sh" --no-install "$@" "${SELECTION[@]}" >/dev/null 2>&1 || rc=$?
	t1=$(date +%s)
	printf '| %s | %s%s | %dm%02ds | %s |\n' "$(date -u +%Y-%m-%d)" "$label" \
		"${SELECTION[*]:+ (${SELECTION[*]})}" \
		$(((t1 - t0) / 60)) $(((t1 - t0) % 60)) \
		"exit $rc; run $(basename "$(readlink -f "$NMX_RESULTS/latest")"); $(slowest_boot); $(compile_floor $((t1 - t0)))"
	figures_row "$top" "$mode${SELECTION[*]:+ ${SELECTION[*]}}" $((t1 - t0)) "$NMX_RESULTS/latest" >>"$FIGURES_TSV"
}

# run_figures RUN_DIR: nmx run-figures of the run into the associative
# array FIG (kernel_cpu_seconds, boot_seconds, slowest_boot, boots).
run_figures() {
	nmx_into FIG run-figures "$1"
}

# figures_row TOP MODE WALL RUN_DIR: the figures.tsv row of one measured
# run. Floors as issue 21 defines them: the kernels' CPU seconds and the
# boots' seconds (nmx run-figures), each summed and divided by the cores.
figures_row() {
	local top=$1 mode=$2 wall=$3 run cores
	run=$(readlink -f "$4")
	cores=$(nproc)
	run_figures "$run" || return 1
	awk -v date="$(date -u +%Y-%m-%d)" -v commit="$(git -C "$top" rev-parse --short HEAD)" \
		-v mode="$mode" -v wall="$wall" -v cores="$cores" -v id="$(basename "$run")" \
		-v cpu="${FIG[kernel_cpu_seconds]}" -v boots="${FIG[boot_seconds]}" \
		-v slowest="${FIG[slowest_boot]%%$'\t'*}" 'BEGIN {
		printf "%s\t%s\t%s\t%d\t%.0f\t%.0f\t%.1f\t%s\n", date, commit, mode, wall,
			cpu / cores, boots / cores, slowest, id
	}'
}

# The slowest boot + verdict of the latest run, against the 15 s target.
slowest_boot() {
	run_figures "$NMX_RESULTS/latest" || return 0
	printf 'slowest boot %s s (%s)' "${FIG[slowest_boot]%%$'\t'*}" "${FIG[slowest_boot]#*$'\t'}"
}

# The kernel builds' CPU seconds over the cores, and wall / that floor.
compile_floor() { # wall-seconds
	local cpu
	run_figures "$NMX_RESULTS/latest" || return 0
	cpu=${FIG[kernel_cpu_seconds]}
	if [ "${cpu:-0}" -lt 60 ]; then
		printf 'kernels %s CPU s' "${cpu:-0}"
		return
	fi
	awk -v cpu="$cpu" -v cores="$(nproc)" -v wall="$1" 'BEGIN {
		printf "kernels %d CPU s, compile floor %d s on %d cores, wall %.2f x floor", cpu, cpu / cores, cores, wall / (cpu / cores)
	}'
}

# scale_table: expected minutes per selection and machine (nmx estimate
# over the typical figures of a first run on an empty cache).
scale_table() {
	local typical=$NMX_TOP/benchmarks/typical-seconds.tsv set cores runners
	local -a sets=(default e2e all) machines=()
	printf '| machine |'
	for set in "${sets[@]}"; do
		printf ' %s (%d cells) |' "$(set_title "$set")" "$(set_cells "$set" | wc -l)"
	done
	printf '\n|---|---|---|---|\n'
	for cores in 2 4 16 64; do
		machines+=("$cores cores, local scheduler:--cores $cores")
	done
	for runners in 1 4 16 64; do
		machines+=("GitLab, $runners runner(s) of 2 cores:--runners $runners")
	done
	for cores in "${machines[@]}"; do
		printf '| %s |' "${cores%%:*}"
		for set in "${sets[@]}"; do
			# shellcheck disable=SC2086 # the machine's two words
			printf ' %s |' "$(set_cells "$set" | nmx estimate --typical "$typical" ${cores#*:} --seconds |
				awk '{ printf "%d min", ($1 + 59) / 60 }')"
		done
		printf '\n'
	done
}

# typical_table RUN_DIR...: each cell's stage seconds and kernel CPU
# seconds in these runs; then per variant, each cell's on any tree (its
# largest) and the median cell's, which nmx estimate falls back on.
typical_table() {
	local run
	[ $# -gt 0 ] || { echo "usage: $0 --typical RUN_DIR..." >&2; exit 2; }
	printf '# Seconds per stage of a first run on an empty cache, 2 cores (Debian 12),\n'
	printf '# from %s\n' "$(for run in "$@"; do basename "$(readlink -f "$run")"; done | tr '\n' ' ')"
	printf '# (scripts/benchmark.sh --typical). kernel_cpu: the kernel stage'"'"'s CPU seconds.\n'
	printf '# Read by nmx estimate (tools/nmx/estimate.c): the row of the tree-variant\n'
	printf '# and cell, else *-VARIANT and the cell (its largest on any tree), else\n'
	printf '# *-VARIANT * (the median cell: one never measured, such as the fake\n'
	printf '# tree'"'"'s in the unit tests).\n'
	printf '# tree-variant\tcell\tstage\tseconds\n'
	for run in "$@"; do
		if [ -f "$run" ]; then
			awk -F'\t' '!/^#/ && $1 !~ /^\*/ && NF == 4' "$run"
			continue
		fi
		[ -d "$run" ] || { echo "$0 --typical: $run: no run directory nor table" >&2; exit 2; }
		# A boot that did not pass (a kernel stopped by a failed
		# selftest) says nothing of how long a boot takes: nmx leaves it out.
		nmx run-figures --stages "$run" || exit 2
	done | awk -F'\t' '
		{ key = $1 "\t" $2 "\t" $3; if (!(key in v)) order[n++] = key; v[key] = $4 }
		END {
			for (i = 0; i < n; i++) {
				print order[i] "\t" v[order[i]]
				split(order[i], k, "\t")
				var = k[1]; sub(/^.*-/, "", var)
				ck = "*-" var "\t" k[2] "\t" k[3]
				if (!(ck in cv) || v[order[i]] > cv[ck]) { if (!(ck in cv)) corder[cn++] = ck; cv[ck] = v[order[i]] }
				sk = "*-" var "\t" k[3]
				if (!(sk in sn)) sorder[ssn++] = sk
				all[sk, ++sn[sk]] = v[order[i]]
			}
			for (i = 0; i < cn; i++)
				print corder[i] "\t" cv[corder[i]]
			for (i = 0; i < ssn; i++) {
				sk = sorder[i]; m = sn[sk]
				for (a = 1; a <= m; a++)
					for (b = a + 1; b <= m; b++)
						if (all[sk, b] < all[sk, a]) { t = all[sk, a]; all[sk, a] = all[sk, b]; all[sk, b] = t }
				split(sk, k, "\t")
				print k[1] "\t*\t" k[2] "\t" all[sk, int((m + 1) / 2)]
			}
		}'
}

set_title() {
	case $1 in
	default) echo "the default run" ;;
	e2e) echo "the end-to-end set" ;;
	*) echo "--set $1" ;;
	esac
}

set_cells() {
	if [ "$1" = default ]; then
		nmx cells
	else
		nmx cells --set "$1"
	fi
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

# bisect_series DIR: a --patches run of DIR's series on the selection,
# then ./matrix.sh --bisect of that run; both timed, the bisection beside
# what finding the patch by hand costs (a --patches run per prefix of the
# series: the patches run's wall time, once per patch).
bisect_series() {
	local t0 t1 t2 rc=0 brc=0 run n steps boots cpu step
	n=$(find "$1" -maxdepth 1 -name '*.patch' | wc -l)
	t0=$(date +%s)
	"$NMX_TOP/matrix.sh" --no-install --patches "$1" "${SELECTION[@]}" >/dev/null 2>&1 || rc=$?
	t1=$(date +%s)
	run=$(readlink -f "$NMX_RESULTS/latest")
	figures_row "$NMX_TOP" "patches $n${SELECTION[*]:+ ${SELECTION[*]}}" $((t1 - t0)) "$run" >>"$FIGURES_TSV"
	"$NMX_TOP/matrix.sh" --bisect "$(basename "$run")" >/dev/null 2>&1 || brc=$?
	t2=$(date +%s)
	steps=$(cat "$run"/bisect/*/steps.tsv 2>/dev/null | wc -l || true)
	boots=0 cpu=0
	# Each step is a run of its own (steps/latest links to one of them).
	for step in "$run"/bisect/*/steps/2*/; do
		if [ ! -d "$step" ] || ! run_figures "$step"; then
			continue
		fi
		boots=$((boots + FIG[boots]))
		cpu=$((cpu + FIG[kernel_cpu_seconds]))
	done
	printf '%s\t%s\t%s\t%d\t%.0f\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%d)" \
		"$(git -C "$NMX_TOP" rev-parse --short HEAD)" \
		"bisect $n${SELECTION[*]:+ ${SELECTION[*]}}" $((t2 - t1)) "$((cpu / $(nproc)))" - - \
		"$(basename "$run")" >>"$FIGURES_TSV"
	printf '| %s | --patches of %d patches, exit %d, then --bisect, exit %d%s | %dm%02ds + %dm%02ds | %d steps, %d boots (the rest judged from a boot before); by hand, one --patches run per patch: about %dm |\n' \
		"$(date -u +%Y-%m-%d)" "$n" "$rc" "$brc" "${SELECTION[*]:+ (${SELECTION[*]})}" \
		$(((t1 - t0) / 60)) $(((t1 - t0) % 60)) $(((t2 - t1) / 60)) $(((t2 - t1) % 60)) \
		"$steps" "$boots" $((n * (t1 - t0) / 60))
}

main() {
	local figures=$NMX_TOP/benchmarks/figures.md modes=() scratch top i mode
	SELECTION=()
	while [ $# -gt 0 ]; do
		case $1 in
		--) shift; SELECTION=("$@"); break ;;
		*) modes+=("$1"); shift ;;
		esac
	done
	[ ${#modes[@]} -gt 0 ] || modes=(--one-file --one-file-reuse --rerun)
	mkdir -p "$(dirname "$figures")" "$NMX_RESULTS"
	FIGURES_TSV=$NMX_TOP/benchmarks/figures.tsv
	[ -s "$FIGURES_TSV" ] ||
		printf '# date\tcommit\tmode\twall_s\tcompile_floor_s\tboot_floor_s\tslowest_boot_s\trun\n' >"$FIGURES_TSV"
	if [ "${modes[0]}" = --typical ]; then
		typical_table "${modes[@]:1}"
		return
	fi
	if [ "${modes[0]}" = --scale ]; then
		scale_table
		return
	fi
	if [ "${modes[0]}" = --bisect-series ]; then
		if [ ${#modes[@]} -ne 2 ] || [ ! -d "${modes[1]}" ]; then
			echo "usage: $0 --bisect-series DIR [-- matrix.sh selection] (DIR: a series with one regressing patch)" >&2
			exit 2
		fi
		bisect_series "${modes[1]}" | tee -a "$figures"
		return
	fi
	if [ "${modes[0]}" = --row ]; then
		if [ ${#modes[@]} -ne 4 ] || ! [[ "${modes[2]}" =~ ^[0-9]+$ ]] || [ ! -f "${modes[3]}/summary.txt" ]; then
			echo "usage: $0 --row MODE WALL_SECONDS RUN_DIR (a run directory with its summary.txt)" >&2
			exit 2
		fi
		# The checkout whose results/ holds the run is the one measured.
		top=$(cd "${modes[3]}/../.." && git rev-parse --show-toplevel 2>/dev/null) || top=$NMX_TOP
		figures_row "$top" "${modes[1]}" "${modes[2]}" "${modes[3]}" | tee -a "$FIGURES_TSV"
		return
	fi
	for ((i = 0; i < ${#modes[@]}; i++)); do
		mode=${modes[i]}
		case $mode in
		--patches)
			i=$((i + 1))
			if [ ! -f "${modes[i]:-}" ]; then
				echo "usage: $0 --patches FILE [-- matrix.sh selection] (FILE: a patch)" >&2
				exit 2
			fi
			timed_run "$NMX_TOP" "patches $(basename "${modes[i]}")" \
				"--patches $(basename "${modes[i]}"), warm cache, -j $(nproc)" --patches "${modes[i]}" | tee -a "$figures"
			;;
		--cold)
			rm -rf "$NMX_CACHE/ccache" "$NMX_CACHE/work"
			timed_run "$NMX_TOP" cold "cold (no ccache, no worktrees, no build dirs), -j $(nproc)" | tee -a "$figures"
			;;
		--one-file)
			scratch=$(mktemp -d)
			one_file_clone "$scratch/top" comment "(benchmark)"
			timed_run "$scratch/top" one-file-serial "one-line change to a patch, serial (-j 1)" -j 1 | tee -a "$figures"
			timed_run "$NMX_TOP" one-file "the same change reverted, -j $(nproc)" -j "$(nproc)" | tee -a "$figures"
			rm -rf "$scratch"
			;;
		--one-file-reuse)
			# A change not made before: its tree's cells boot, the others
			# are judged from their last boot; going back reuses them all.
			scratch=$(mktemp -d)
			one_file_clone "$scratch/top" code "$(($(date +%s) % 10000))"
			timed_run "$scratch/top" one-file-reuse "a new one-line code change to a patch, -j $(nproc) --reuse-boots" -j "$(nproc)" --reuse-boots | tee -a "$figures"
			timed_run "$NMX_TOP" one-file-reuse-revert "the change reverted, -j $(nproc) --reuse-boots" -j "$(nproc)" --reuse-boots | tee -a "$figures"
			rm -rf "$scratch"
			;;
		--rerun)
			timed_run "$NMX_TOP" rerun-serial "rerun, nothing changed, serial (-j 1)" -j 1 | tee -a "$figures"
			timed_run "$NMX_TOP" rerun "rerun, nothing changed, -j $(nproc)" -j "$(nproc)" | tee -a "$figures"
			timed_run "$NMX_TOP" rerun-reuse "rerun, nothing changed, -j $(nproc) --reuse-boots" --reuse-boots | tee -a "$figures"
			;;
		*)
			echo "usage: $0 [--cold] [--one-file] [--one-file-reuse] [--rerun] [-- matrix.sh selection]" >&2
			exit 2
			;;
		esac
	done
}

main "$@"
