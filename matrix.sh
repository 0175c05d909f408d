#!/usr/bin/env bash
# Run the matrix: every (tree, variant, cell) of matrix.yaml's run, or the
# ones named. One failing cell never stops the others.
#
#   matrix.sh [--no-install] [--boots N] [--boots-beside N] [--make-jobs N] [--boot-with qemu|lava] [--loader uboot|qemu] [--reuse-boots]
#             [--tree T]... [--variant V]... [--cell C]... | [--set NAME] | [--e2e]
#   matrix.sh [--no-install] --patches PATH [--boot-again] [--tree T]... [--cell C]...
#   matrix.sh [--no-install] --tree DIR [--series T] [--patches PATH] ...
#   matrix.sh --tree DIR --bisect GOOD..BAD --cell C --scenario S [--confirm N]
#   matrix.sh --bisect RUN_ID [--confirm N]
#   matrix.sh [--no-install] --resume RUN_ID
#   matrix.sh [--no-install] --shard RUN_ID [--tree T]... [--variant V]... [--cell C]...
#   matrix.sh [--no-install] --merge RUN_ID SHARD_RUN_DIR...
#
# --shard RUN_ID: one shard of a run that CI spreads over jobs (see nmx
# plan): the cells selected, into results/RUN_ID (NMX_RESULTS per job),
# without the run's summary and reports; nmx merge makes the run of all
# shards. Exit 0 when every cell ran (whatever its verdict: the merged run
# judges), 2 on infrastructure errors. --merge RUN_ID makes the run
# results/RUN_ID of the default run's plan from the shards' run
# directories (nmx merge), and exits as a run does.
# NMX_INSTALL=0 is --no-install (for CI jobs on a prepared machine).
#
# --boots N (-j N, NMX_JOBS; default: the number of cores): guests booted
# at a time. With N > 1 the kernels are built one at a time and the boots
# run N at a time, those of built cells beside later builds where the
# cores allow it, else each tree's once its last kernel is built, before
# the next tree's kernels (run_parallel); --boots 1 is the serial mode
# (build, boot, next cell). Not make's -j: that is --make-jobs.
#
# --boots-beside N (NMX_BOOTS_BESIDE_BUILD; default: (cores - 2) / 2, none
# on 2 cores): boots of built cells that may run while a later kernel
# builds. On 2 cores 1 gives the first verdict far sooner and the whole
# run later (docs/performance.md, "The schedule").
#
# --make-jobs N (NMX_MAKE_JOBS; default: the cores + 1, less those left
# to boots running beside the build): make -jN for each kernel.
#
# --bisect GOOD..BAD (bisect.sh): the first commit of DIR's history
# between GOOD and BAD that fails scenario S on cell C, found with git
# bisect run over scripts/bisect-step.sh and confirmed N times (default
# 3); results/bisect-<id>/bisect.md. Exit 0 confirmed, 1 not.
#
# --bisect RUN_ID (a run of --patches that regressed; "latest" names the
# last run): for each cell and scenario the patches regressed, the first
# patch of the series that makes it fail, found the same way over the
# series (each step that cell alone, the tree with the first k patches),
# confirmed; results/RUN_ID/bisect.md, linked from its report.html.
#
# --set NAME: the cells of matrix.yaml's set NAME instead of the default
# run ("all": every cell of every tree). --e2e is --set e2e, the end-to-end
# test's (tests/run.sh). A cell is left out of a tree older than its
# guest.min_kernel (arches/<cell>.yaml).
#
# --loader qemu (NMX_LOADER): QEMU loads kernel and initramfs itself, also
# on the cells that otherwise boot like a board through Debian's U-Boot
# (qemu.uboot in their arch file).
#
# --reuse-boots (NMX_REUSE_BOOTS=1): a cell whose kernel, initramfs, DTB,
# machine and firmware are byte for byte those of an earlier boot that ran
# to the guest's last line is not booted again: that console is judged
# anew (boot.sh; result.json's meta says boot_reused_from). For reruns
# where only the judging or the reports changed; a rerun without it boots.
#
# --boot-with lava (NMX_BOOT_WITH): each boot is a LAVA job run by Debian's
# lava-run (boot.sh); the verdict still comes from nmx judge reading the
# console, which LAVA logged. Default: QEMU directly.
#
# --tree DIR (any argument with a "/": ./linux, ~/src/linux): a kernel
# checkout of yours instead of a Debian package, run as tree "local" with
# the series of the tree of its version (matrix.yaml's "version"), or of
# --series T. It is copied into the cache and built there; DIR itself is
# only read. A git checkout gives what git tracks or would track, with
# uncommitted changes as they are (the run says so); another directory
# all its files.
#
# --patches PATH: a maintainer's patches (a directory of git format-patch
# files, an mbox, or one patch; a bare diff is taken as one commit) run
# as variant "patched" (upstream with them on top) beside "upstream", on
# every tree of the run; the run ends with the comparison of the two per
# architecture (results/<run-id>/patches-compare.md). Exit 1 when the
# patches regress a scenario, whatever upstream's own verdicts. With
# --variant patched (or upstream) only that side runs, compared with
# nothing. --patches implies --reuse-boots: a cell whose kernel and
# initramfs the patches leave byte for byte as upstream's (an arch/arm
# patch and the x86_64 cell) is judged from upstream's console, and
# upstream's side from an earlier boot of the same bytes; the output and
# the reports name each such cell. --boot-again boots every cell.
#
# Results: results/<run-id>/<tree>-<variant>/<cell>/ (build.log, boot.log,
# config, traces, result.json), results/<run-id>/summary.txt, the reports
# (report.html, report.md, junit.xml, kcidb.json; see nmx report) and
# results/latest -> <run-id>. results/<run-id>/plan.tsv lists the planned
# cells; a cell is finished when its result.json exists. A run stopped by
# SIGINT or SIGTERM says so in interrupted.txt; --resume finishes its
# unfinished cells (an interrupted cell starts over) and reports the whole
# run. One matrix.sh at a time per cache: a second one waits for the first
# (NMX_LOCK_WAIT=0: refuses at once). Exit: 0 all cells pass, 1 a cell
# failed, 2 infrastructure errors (an interrupted run too).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/lib.sh"

# --help: this file's opening comment, the one description of the options.
help() {
	sed -n '2,/^set -euo pipefail$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
	exit 0
}

usage() {
	echo "usage: $0 [--no-install] [--boots N] [--boots-beside N] [--make-jobs N] [--boot-with qemu|lava] [--loader uboot|qemu] [--tree T]... [--variant V]... [--cell C]..." >&2
	echo "       $0 [--no-install] --patches PATH [--boot-again] [--tree T]... [--cell C]... [--variant patched|upstream]" >&2
	echo "       $0 --bisect RUN_ID [--confirm N]" >&2
	echo "       $0 [--no-install] --tree DIR [--series T] [--patches PATH] [--variant V]... [--cell C]..." >&2
	echo "       $0 [--no-install] --resume RUN_ID" >&2
	echo "       $0 [--no-install] --shard RUN_ID [--tree T]... [--variant V]... [--cell C]..." >&2
	echo "       $0 [--no-install] --merge RUN_ID SHARD_RUN_DIR..." >&2
	exit 2
}

# merge_shards RUN_ID SHARD_RUN_DIR...: the run of the default plan from
# its shards, reports and all; exit as a run. A shard directory that is
# not there (its job never uploaded anything) adds no cells: they are
# reported missing.
merge_shards() {
	local run_id=$1 rc=0
	shift
	if ! [[ "$run_id" =~ ^[A-Za-z0-9][A-Za-z0-9._-]*$ ]]; then
		err "--merge $run_id: a run id is letters, digits, '.', '_' and '-'"
		return 2
	fi
	mkdir -p "$NMX_RESULTS"
	nmx cells | nmx merge --plan - --out "$NMX_RESULTS/$run_id" "$@" || rc=$?
	[ ! -d "$NMX_RESULTS/$run_id" ] || nmx run-dir finish --run "$NMX_RESULTS/$run_id" >/dev/null || true
	cat "$NMX_RESULTS/$run_id/summary.txt" 2>/dev/null || true
	progress "run $run_id merged from $# shard(s), exit $rc"
	return "$rc"
}

# The before/after of --patches, per tree and architecture, into
# RUN_DIR/patches-compare.md. Exit 1: the patches regress a scenario.
compare_patches() {
	local out=$RUN_DIR/patches-compare.md tree rc=0 one
	local -a trees
	mapfile -t trees < <(nmx run-cells --run "$RUN_DIR" | cut -d' ' -f1 | awk '!seen[$0]++')
	run_facts show --run "$RUN_DIR" || return 2
	{
		printf '# notrace-matrix --patches: upstream -> upstream + the patches\n\n'
		printf 'Patches (%s):\n\n' "${RUN[patches_from]:-?}"
		sed 's/^/- /' "$NMX_PATCHES/series"
	} >"$out"
	for tree in "${trees[@]}"; do
		one=0
		printf '\n# %s\n\n' "$tree" >>"$out"
		nmx compare -b "$tree-upstream" -a "$tree-patched" "$RUN_DIR" "$RUN_DIR" \
			>>"$out" || one=$?
		[ "$one" -le "$rc" ] || rc=$one
	done
	cat "$out"
	return "$rc"
}

# expect_run LINE...: what these cells will take, as a progress line
# (nmx estimate: the last run's figures where it ran a cell, else a first
# run's typical ones, through this run's schedule on this machine's cores).
expect_run() {
	local line beside=0
	[ "$JOBS" -eq 1 ] || beside=$(boots_beside)
	line=$(printf '%s\n' "$@" | nmx estimate --last "$NMX_RESULTS/latest" \
		--typical "$NMX_TOP/benchmarks/typical-seconds.tsv" \
		--cores "$(nproc)" --boots "$JOBS" --beside "$beside") || return 0
	[ -z "$line" ] || progress "$line"
}

# cell_finished DIR: the cell's result.json, and the run's "[k/N] ..." line.
# shellcheck disable=SC2317
cell_finished() {
	local line
	line=$(nmx result --cell-dir "$1" --progress) || return 0
	progress "$line"
}

# build_cell RUN_ID TREE VARIANT CELL: a fresh cell directory, then
# build.sh. A cell that does not build is finished (its result written).
# shellcheck disable=SC2317 # build_cell, boot_cell, run_cell: run by in_group
build_cell() {
	local run_id=$1 tree=$2 variant=$3 cell=$4 dir rc=0
	# A cell that was cut off starts over: no records of two attempts.
	dir=$(nmx cell-dir --fresh --run "$NMX_RESULTS/$run_id" --tree "$tree" \
		--variant "$variant" --cell "$cell") || return 2
	"$NMX_TOP/build.sh" ${MAKE_JOBS:+--make-jobs "$MAKE_JOBS"} ${DISTCC:+--distcc-hosts "$DISTCC"} \
		--cell-dir "$dir" "$tree" "$variant" "$cell" || rc=$?
	[ "$rc" -eq 0 ] || cell_finished "$dir"
	return "$rc"
}

# boot_cell RUN_ID TREE VARIANT CELL: boot.sh, then the result, written
# last: a result.json means the cell finished.
# shellcheck disable=SC2317
boot_cell() {
	local dir
	local -a opts=(--boot-with "$BOOT_WITH" --loader "$LOADER")
	[ "$REUSE_BOOTS" != 1 ] || opts+=(--reuse-boots)
	[ "$ACCEL" = auto ] || opts+=(--accel "$ACCEL")
	dir=$(nmx cell-dir --run "$NMX_RESULTS/$1" --tree "$2" --variant "$3" --cell "$4") || return 0
	"$NMX_TOP/boot.sh" --cell-dir "$dir" "${opts[@]}" "$2" "$3" "$4" || true
	cell_finished "$dir"
}

# shellcheck disable=SC2317
run_cell() {
	build_cell "$@" || return 0
	boot_cell "$@"
}

# in_group CMD...: CMD in the background in a process group of its own,
# so that a signal stops it whole; its pid is in $!.
in_group() {
	set -m
	"$@" &
	set +m
}

# The run's cells, one at a time (-j 1): build, boot, next.
run_serial() {
	local line tree variant cell
	for line in "$@"; do
		read -r tree variant cell <<<"$line"
		in_group run_cell "$RUN_ID" "$tree" "$variant" "$cell"
		CELL_PIDS=("$!")
		wait "${CELL_PIDS[0]}" || true
		CELL_PIDS=()
	done
}

# boots_alone TREE VARIANT CELL: may no other guest boot beside this one
# (qemu.alone in arches/<cell>.yaml)?
boots_alone() {
	[ -n "$(nmx cells --alone --tree "$1" --variant "$2" --cell "$3")" ]
}

# waits_for_upstream TREE VARIANT CELL: with boots reused (--patches), a
# patched cell boots once upstream's boot of the same cell has ended, so
# that a kernel the patches left unchanged is judged from its console.
waits_for_upstream() {
	local up="$1 upstream $3" queued
	[ "$2" = patched ] && [ "$REUSE_BOOTS" = 1 ] || return 1
	for queued in "${BOOT_QUEUE[@]}"; do
		[ "$queued" != "$up" ] || return 0
	done
	[ -n "${BOOTING[$up]:-}" ] && jobs -rp | grep -qx "${BOOTING[$up]}"
}

# start_boots LIMIT [BUILDING]: boot the built cells of BOOT_QUEUE, oldest
# first, while fewer than LIMIT boots run. A cell that boots alone waits
# until no other boot runs and no build is under way (BUILDING: more builds
# follow), and nothing starts beside it; the cells behind it go on.
start_boots() {
	local limit=$1 building=${2:-} line tree variant cell running alone
	local -a later=()
	for line in "${BOOT_QUEUE[@]}"; do
		running=$(jobs -rp | wc -l)
		read -r tree variant cell <<<"$line"
		if [ "$running" -ge "$limit" ] ||
			{ [ -n "$ALONE_PID" ] && jobs -rp | grep -qx "$ALONE_PID"; } ||
			waits_for_upstream "$tree" "$variant" "$cell"; then
			later+=("$line")
			continue
		fi
		alone=''
		if boots_alone "$tree" "$variant" "$cell"; then
			if [ "$running" -gt 0 ] || [ -n "$building" ]; then
				later+=("$line")
				continue
			fi
			alone=1
		fi
		in_group boot_cell "$RUN_ID" "$tree" "$variant" "$cell"
		CELL_PIDS+=("$!")
		BOOTING[$line]=$!
		[ -z "$alone" ] || ALONE_PID=$!
	done
	BOOT_QUEUE=("${later[@]}")
}

# boots_beside: how many boots of built cells run beside a build with
# -j N. Under TCG a boot takes a host thread per vCPU it runs, and a build
# beside it the rest: on 2 cores both are slowed so much that the run
# ends later than with the boots after the builds (docs/performance.md),
# so (cores - 2) / 2 unless --boots-beside says: none on 2 cores, 1 on 4,
# 3 on 8; never more than N.
boots_beside() {
	local beside=${BESIDE:-$((($(nproc) - 2) / 2))}
	[ "$beside" -le "$JOBS" ] || beside=$JOBS
	echo "$beside"
}

# boot_queued: the cells of BOOT_QUEUE booted, N at a time, and every
# cell process of the run ended.
boot_queued() {
	local pid
	while [ "${#BOOT_QUEUE[@]}" -gt 0 ]; do
		start_boots "$JOBS"
		[ "${#BOOT_QUEUE[@]}" -eq 0 ] || wait -n || true
	done
	for pid in "${CELL_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	CELL_PIDS=()
}

# The run's cells with -j N: the kernels one at a time (each build takes
# the cores), and the boots of built cells beside later builds
# (boots_beside), then N at a time; the build leaves the boots' cores to
# them (NMX_MAKE_JOBS). With no boots beside a build, a tree's cells boot
# before the next tree's kernels are built: the cores build or boot, never
# both, so the run takes about as long (a tree's last boot may leave a
# core idle) and the first tree's verdicts come a tree's builds sooner.
run_parallel() {
	local line tree variant cell build_pid beside built_tree=''
	beside=$(boots_beside)
	if [ "$beside" -gt 0 ]; then
		if [ -z "$MAKE_JOBS" ]; then
			MAKE_JOBS=$(($(nproc) + 1 - beside))
			[ "$MAKE_JOBS" -ge 1 ] || MAKE_JOBS=1
		fi
		progress "up to $beside boot(s) beside a build (make -j$MAKE_JOBS)"
	fi
	BOOT_QUEUE=()
	declare -gA BOOTING=()
	ALONE_PID=''
	for line in "$@"; do
		read -r tree variant cell <<<"$line"
		if [ "$beside" -eq 0 ] && [ -n "$built_tree" ] && [ "$tree" != "$built_tree" ]; then
			boot_queued
		fi
		built_tree=$tree
		in_group build_cell "$RUN_ID" "$tree" "$variant" "$cell"
		build_pid=$!
		CELL_PIDS+=("$build_pid")
		if wait "$build_pid"; then
			BOOT_QUEUE+=("$line")
		fi
		start_boots "$beside" building
	done
	boot_queued
}

# The cache is shared state (trees, worktrees, build directories): one
# run at a time. The lock is released when this process exits.
lock_cache() {
	mkdir -p "$NMX_CACHE"
	exec 8>"$NMX_CACHE/matrix.lock"
	flock -n 8 && return 0
	if [ "${NMX_LOCK_WAIT:-1}" = 0 ]; then
		err "another matrix.sh is using $NMX_CACHE (lock $NMX_CACHE/matrix.lock); not waiting (NMX_LOCK_WAIT=0)"
		exit 2
	fi
	progress "another matrix.sh is using $NMX_CACHE; waiting for it to finish"
	flock 8
}

# On SIGINT/SIGTERM: stop the cell in progress (its process group), and
# leave a note of what finished; the reports are not written.
# shellcheck disable=SC2317 # called from the traps below
on_signal() {
	local sig=$1 pid finished
	trap - INT TERM
	for pid in "${CELL_PIDS[@]}"; do
		kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
	done
	for pid in "${CELL_PIDS[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	finished=$(nmx run-dir interrupted --run "$RUN_DIR" --signal "$sig" --resume "$0 --resume $RUN_ID")
	progress "interrupted by SIG$sig: $finished"
	progress "finish it with: $0 --resume $RUN_ID"
	exit 2
}

main() {
	local install=1 resume="" rc=0 tree variant cell line patches="" boot_again=0
	# A bisection is its own program: it runs matrix.sh once per step.
	case " $* " in
	*" --bisect "* | *" --bisect="*) exec "$NMX_TOP/bisect.sh" "$@" ;;
	esac
	local local_dir='' series='' shard='' merge='' newest left
	local -a shards=() todo=()
	# Boots at a time (--boots): as many as cores, each TCG guest taking one.
	JOBS=${NMX_JOBS:-$(nproc)}
	MAKE_JOBS=${NMX_MAKE_JOBS:-}
	BESIDE=${NMX_BOOTS_BESIDE_BUILD:-}
	DISTCC=${NMX_DISTCC_HOSTS:-}
	# How each cell boots: boot.sh's options of these names.
	BOOT_WITH=${NMX_BOOT_WITH:-qemu}
	LOADER=${NMX_LOADER:-uboot}
	REUSE_BOOTS=${NMX_REUSE_BOOTS:-0}
	ACCEL=${NMX_ACCEL:-auto}
	CELL_PIDS=()
	[ "${NMX_INSTALL:-1}" != 0 ] || install=0
	local -a select=() plan=() baseline=() patch_variants=()
	while [ $# -gt 0 ]; do
		case $1 in
		# --opt=value is --opt value.
		--*=*) set -- "${1%%=*}" "${1#*=}" "${@:2}"; continue ;;
		-h | --help) help ;;
		--version)
			printf 'notrace-matrix %s\n' \
				"$(git -C "$NMX_TOP" describe --always --dirty 2>/dev/null || echo unknown)"
			exit 0
			;;
		--no-install) install=0; shift ;;
		--tree)
			[ $# -ge 2 ] || usage
			if [[ "$2" == */* ]]; then
				[ -z "$local_dir" ] || { err "one --tree DIR per run"; exit 2; }
				[ -d "$2" ] || { err "--tree $2: no such directory"; exit 2; }
				local_dir=$(realpath "$2")
				select+=(--tree local)
			else
				select+=("$1" "$2")
			fi
			shift 2
			;;
		--variant | --cell) [ $# -ge 2 ] || usage; select+=("$1" "$2"); shift 2 ;;
		--e2e) select+=(--e2e); shift ;;
		--set) [ $# -ge 2 ] || usage; select+=("$1" "$2"); shift 2 ;;
		--series) [ $# -ge 2 ] || usage; series=$2; shift 2 ;;
		--patches) [ $# -ge 2 ] || usage; patches=$2; shift 2 ;;
		--resume) [ $# -ge 2 ] || usage; resume=$2; shift 2 ;;
		--shard) [ $# -ge 2 ] || usage; shard=$2; shift 2 ;;
		--boot-with) [ $# -ge 2 ] || usage; BOOT_WITH=$2; shift 2 ;;
		--loader) [ $# -ge 2 ] || usage; LOADER=$2; shift 2 ;;
		--reuse-boots) REUSE_BOOTS=1; shift ;;
		--boot-again) boot_again=1; REUSE_BOOTS=0; shift ;;
		--boots | -j) [ $# -ge 2 ] || usage; JOBS=$2; shift 2 ;;
		-j[0-9]*) JOBS=${1#-j}; shift ;;
		--make-jobs) [ $# -ge 2 ] || usage; MAKE_JOBS=$2; shift 2 ;;
		--boots-beside) [ $# -ge 2 ] || usage; BESIDE=$2; shift 2 ;;
		--merge) [ $# -ge 2 ] || usage; merge=$2; shift 2; shards=("$@"); shift $# ;;
		*) err "unknown option '$1' (--help lists them)"; usage ;;
		esac
	done
	if [ -n "$resume" ] && { [ "${#select[@]}" -gt 0 ] || [ -n "$patches" ]; }; then
		usage
	fi
	# A maintainer's patches change a few cells' kernels: the others are
	# judged from the boot of the same bytes (--boot-again: not).
	if [ -n "$patches" ] && [ "$boot_again" -eq 0 ]; then
		REUSE_BOOTS=1
	fi
	case $LOADER in
	uboot | qemu) ;;
	*) err "--loader $LOADER: uboot (the cell's U-Boot, where it has one) or qemu (QEMU's own loader)"; exit 2 ;;
	esac
	case $ACCEL in
	auto | tcg | kvm) ;;
	*) err "NMX_ACCEL=$ACCEL: tcg or kvm (unset: probe KVM)"; exit 2 ;;
	esac
	case $BOOT_WITH in
	qemu | lava) ;;
	*) err "--boot-with $BOOT_WITH: qemu (QEMU directly) or lava (a LAVA job through lava-run)"; exit 2 ;;
	esac
	if ! [[ "$JOBS" =~ ^[1-9][0-9]*$ ]]; then
		err "--boots $JOBS: the number of boots at a time is a positive number"
		exit 2
	fi
	if [ -n "$MAKE_JOBS" ] && ! [[ "$MAKE_JOBS" =~ ^[1-9][0-9]*$ ]]; then
		err "--make-jobs $MAKE_JOBS: make's jobs per kernel build is a positive number"
		exit 2
	fi
	if [ -n "$BESIDE" ] && ! [[ "$BESIDE" =~ ^[0-9]+$ ]]; then
		err "--boots-beside $BESIDE: a number of boots (0: none beside a build)"
		exit 2
	fi
	if [ -n "$shard" ]; then
		if [ -n "$resume" ] || [ -n "$patches" ]; then
			usage
		fi
	fi
	if [ -n "$series" ] && [ -z "$local_dir" ]; then
		err "--series names the series for a --tree DIR; there is none"
		exit 2
	fi
	[ -z "$local_dir" ] || export NMX_LOCAL_TREE=$local_dir NMX_LOCAL_SERIES=$series
	# --patches runs upstream and patched; --variant may keep one of them
	# (a bisection's step runs the patched side alone).
	local -a check=("${select[@]}")
	if [ -n "$patches" ]; then
		local i
		check=()
		for ((i = 0; i < ${#select[@]}; i++)); do
			if [ "${select[i]}" != --variant ]; then
				check+=("${select[i]}")
				continue
			fi
			i=$((i + 1))
			case ${select[i]} in
			upstream | patched) patch_variants+=(--variant "${select[i]}") ;;
			*)
				err "--patches runs the variants upstream and patched: not --variant ${select[i]}"
				exit 2
				;;
			esac
		done
	fi
	# A selection that names no cell is refused before anything is
	# installed or waited for, where nmx builds already (on a fresh
	# machine it builds after the install, and the check follows it).
	if [ -z "$resume$merge$local_dir" ] &&
		make -s -C "$NMX_TOP/tools/nmx" >/dev/null 2>&1; then
		nmx cells "${check[@]}" >/dev/null || exit 2
	fi
	if [ "$install" -eq 1 ]; then
		local -a profile=()
		[ "$BOOT_WITH" != lava ] || profile+=(--lava)
		[ -z "$DISTCC" ] || profile+=(--distcc)
		# Only what this run's trees and cells need, where they are known
		# before the run starts (not a --patches run's newest tree, nor a
		# run resumed, merged or of a checkout of yours): every cell's else.
		[ -n "$resume$merge$local_dir$patches" ] || profile+=(-- "${check[@]}")
		"$NMX_TOP/scripts/install-deps.sh" "${profile[@]}" || exit 2
	fi
	make -s -C "$NMX_TOP/tools/nmx" >&2 || exit 2
	if [ -n "$merge" ]; then
		merge_shards "$merge" "${shards[@]}"
		exit
	fi
	# A checkout that is no kernel tree, or of a version no series is for.
	[ -z "$local_dir" ] || nmx trees >/dev/null || exit 2
	lock_cache
	if [ -n "$resume" ]; then
		RUN_ID=$resume
		RUN_DIR=$NMX_RESULTS/$RUN_ID
		if [[ "$RUN_ID" == */* ]] || ! run_facts resume --run "$RUN_DIR"; then
			err "no run '$RUN_ID' to resume"
			exit 2
		fi
		[ -z "${RUN[patches]:-}" ] || export NMX_PATCHES=${RUN[patches]}
		if [ -n "${RUN[local_tree]:-}" ]; then
			export NMX_LOCAL_TREE=${RUN[local_tree]} NMX_LOCAL_SERIES=${RUN[local_series]:-}
		fi
		mapfile -t plan < <(nmx run-cells --run "$RUN_DIR")
	else
		run_facts new --results "$NMX_RESULTS" ${shard:+--shard "$shard"} \
			${patches:+--patches "$patches"} || exit 2
		RUN_ID=${RUN[id]}
		RUN_DIR=${RUN[dir]}
		if [ -n "$patches" ]; then
			export NMX_PATCHES=${RUN[patches]}
			[ "${#patch_variants[@]}" -gt 0 ] || select+=(--variant upstream --variant patched)
			# A mainline patch applies to the newest tree; older ones when
			# named (no tree naming its version: the default run's trees).
			if [ -z "$local_dir" ] && [[ " ${select[*]} " != *" --tree "* ]]; then
				newest=$(nmx trees --newest) || { rm -rf "$RUN_DIR"; exit 2; }
				[ -z "$newest" ] || select+=(--tree "$newest")
			fi
		fi
		if ! mapfile -t plan < <(nmx cells "${select[@]}") || [ "${#plan[@]}" -eq 0 ]; then
			rm -rf "$RUN_DIR"
			exit 2
		fi
		local -a local_args=()
		[ -z "$local_dir" ] || local_args=(--local-tree "$local_dir" ${series:+--local-series "$series"})
		if ! printf '%s\n' "${plan[@]}" | nmx run-dir plan --run "$RUN_DIR" "${local_args[@]}"; then
			rm -rf "$RUN_DIR"
			exit 2
		fi
	fi
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	progress "run $RUN_ID: ${#plan[@]} cell(s), $JOBS boot(s) at a time; results in $RUN_DIR"
	while read -r tree variant cell; do
		progress "$cell ($tree-$variant): finished before, kept"
	done < <(nmx run-cells --run "$RUN_DIR" --finished)
	left=$(nmx run-cells --run "$RUN_DIR" --unfinished) || exit 2
	todo=()
	[ -z "$left" ] || mapfile -t todo <<<"$left"
	if [ "${#todo[@]}" -gt 0 ]; then
		expect_run "${todo[@]}"
		if [ "$JOBS" -eq 1 ]; then
			run_serial "${todo[@]}"
		else
			run_parallel "${todo[@]}"
		fi
	fi
	trap - INT TERM
	run_facts show --run "$RUN_DIR" || exit 2
	if [ "${RUN[shard]}" = 1 ]; then
		progress "shard $RUN_ID done: ${#plan[@]} cell(s) in $RUN_DIR; nmx merge makes the run"
		exit 0
	fi
	# The reports, with regressions marked against the run before this one.
	run_facts finish --run "$RUN_DIR" || exit 2
	[ -z "${RUN[baseline]:-}" ] || baseline=(--baseline "${RUN[baseline]}")
	nmx summary "$RUN_DIR" || rc=$?
	cat "$RUN_DIR/summary.txt" 2>/dev/null || true
	if nmx report "${baseline[@]}" "$RUN_DIR"; then
		progress "reports: $RUN_DIR/{report.html,report.md,junit.xml,kcidb.json}"
	else
		progress "the reports could not be written"
		[ "$rc" -ne 0 ] || rc=2
	fi
	if [ -n "${NMX_PATCHES:-}" ] && printf '%s\n' "${plan[@]}" | grep -q ' upstream ' &&
		printf '%s\n' "${plan[@]}" | grep -q ' patched '; then
		# The question was "do my patches break it?": the answer is the
		# exit code, unless the run itself could not be judged.
		local compare_rc=0
		compare_patches || compare_rc=$?
		progress "before/after: $RUN_DIR/patches-compare.md"
		if [ "$rc" -ne 2 ]; then
			rc=$compare_rc
		fi
	fi
	progress "run $RUN_ID done, exit $rc"
	exit "$rc"
}

main "$@"
