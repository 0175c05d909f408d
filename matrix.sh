#!/usr/bin/env bash
# Run the matrix: every (tree, variant, cell) of matrix.yaml's run, or the
# ones named. One failing cell never stops the others.
#
#   matrix.sh [--no-install] [--tree T]... [--variant V]... [--cell C]...
#   matrix.sh [--no-install] --resume RUN_ID
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

usage() {
	echo "usage: $0 [--no-install] [--tree T]... [--variant V]... [--cell C]..." >&2
	echo "       $0 [--no-install] --resume RUN_ID" >&2
	exit 2
}

new_run_dir() {
	local id n=1
	id=$(date -u +%Y%m%dT%H%M%SZ)
	while [ -e "$NMX_RESULTS/$id" ]; do
		id=$(date -u +%Y%m%dT%H%M%SZ)-$n
		n=$((n + 1))
	done
	mkdir -p "$NMX_RESULTS/$id"
	echo "$id"
}

run_cell() {
	local run_id=$1 tree=$2 variant=$3 cell=$4 dir rc=0
	dir=$NMX_RESULTS/$run_id/$tree-$variant/$cell
	# A cell that was cut off starts over: no records of two attempts.
	rm -rf "$dir"
	mkdir -p "$dir"
	printf '%s\t%s\n' run_id "$run_id" >"$dir/meta.tsv"
	printf '#!/bin/sh\n# Reproduce %s (%s-%s) by hand, stage by stage.\nset -e\n' \
		"$cell" "$tree" "$variant" >"$dir/reproduce.sh"
	"$NMX_TOP/build.sh" --cell-dir "$dir" "$tree" "$variant" "$cell" || rc=$?
	if [ "$rc" -eq 0 ]; then
		"$NMX_TOP/boot.sh" --cell-dir "$dir" "$tree" "$variant" "$cell" || true
	fi
	# Written last: a result.json means the cell finished.
	nmx result --cell-dir "$dir" || true
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
	local sig=$1 line finished=() unfinished=()
	trap - INT TERM
	if [ -n "${CELL_PID:-}" ]; then
		kill -TERM -- "-$CELL_PID" 2>/dev/null || kill -TERM "$CELL_PID" 2>/dev/null || true
		wait "$CELL_PID" 2>/dev/null || true
	fi
	while read -r line; do
		read -r tree variant cell <<<"$line"
		if [ -f "$RUN_DIR/$tree-$variant/$cell/result.json" ]; then
			finished+=("$tree-$variant/$cell")
		else
			unfinished+=("$tree-$variant/$cell")
		fi
	done <"$RUN_DIR/plan.tsv"
	{
		printf 'interrupted by SIG%s at %s\n' "$sig" "$(date -u +%Y-%m-%dT%H:%M:%SZ)"
		printf 'finished: %s\n' "${finished[*]:-none}"
		printf 'not finished: %s\n' "${unfinished[*]:-none}"
		printf 'resume: %s --resume %s\n' "$0" "$RUN_ID"
	} >"$RUN_DIR/interrupted.txt"
	progress "interrupted by SIG$sig: $(sed -n 2p "$RUN_DIR/interrupted.txt")"
	progress "finish it with: $0 --resume $RUN_ID"
	exit 2
}

main() {
	local install=1 resume='' rc=0 tree variant cell previous line
	local -a select=() plan=() baseline=()
	while [ $# -gt 0 ]; do
		case $1 in
		--no-install) install=0; shift ;;
		--tree | --variant | --cell) [ $# -ge 2 ] || usage; select+=("$1" "$2"); shift 2 ;;
		--resume) [ $# -ge 2 ] || usage; resume=$2; shift 2 ;;
		*) usage ;;
		esac
	done
	[ -z "$resume" ] || [ "${#select[@]}" -eq 0 ] || usage
	if [ "$install" -eq 1 ]; then
		"$NMX_TOP/scripts/install-deps.sh" || exit 2
	fi
	make -s -C "$NMX_TOP/tools/nmx" >&2 || exit 2
	lock_cache
	if [ -n "$resume" ]; then
		RUN_ID=$resume
		RUN_DIR=$NMX_RESULTS/$RUN_ID
		if [[ "$RUN_ID" == */* ]] || [ ! -f "$RUN_DIR/plan.tsv" ]; then
			err "no run '$RUN_ID' to resume (no $RUN_DIR/plan.tsv)"
			exit 2
		fi
		mapfile -t plan <"$RUN_DIR/plan.tsv"
		rm -f "$RUN_DIR/interrupted.txt"
	else
		mapfile -t plan < <(nmx cells "${select[@]}") || exit 2
		[ "${#plan[@]}" -gt 0 ] || exit 2
		RUN_ID=$(new_run_dir)
		RUN_DIR=$NMX_RESULTS/$RUN_ID
		printf '%s\n' "${plan[@]}" >"$RUN_DIR/plan.tsv"
	fi
	trap 'on_signal INT' INT
	trap 'on_signal TERM' TERM
	progress "run $RUN_ID: ${#plan[@]} cell(s); results in $RUN_DIR"
	for line in "${plan[@]}"; do
		read -r tree variant cell <<<"$line"
		if [ -f "$RUN_DIR/$tree-$variant/$cell/result.json" ]; then
			progress "$cell ($tree-$variant): finished before, kept"
			continue
		fi
		# In the background, its own process group, so that a signal
		# stops it whole; waited for at once.
		set -m
		run_cell "$RUN_ID" "$tree" "$variant" "$cell" &
		CELL_PID=$!
		set +m
		wait "$CELL_PID" || true
		CELL_PID=
	done
	trap - INT TERM
	previous=$(readlink "$NMX_RESULTS/latest" 2>/dev/null || true)
	[ "$previous" != "$RUN_ID" ] || previous=''
	ln -sfn "$RUN_ID" "$NMX_RESULTS/latest"
	nmx summary "$RUN_DIR" || rc=$?
	cat "$RUN_DIR/summary.txt" 2>/dev/null || true
	# The reports, with regressions marked against the run before this one.
	if [ -n "$previous" ] && [ -d "$NMX_RESULTS/$previous" ]; then
		baseline=(--baseline "$NMX_RESULTS/$previous")
	fi
	if nmx report "${baseline[@]}" "$RUN_DIR"; then
		progress "reports: $RUN_DIR/{report.html,report.md,junit.xml,kcidb.json}"
	else
		progress "the reports could not be written"
		[ "$rc" -ne 0 ] || rc=2
	fi
	progress "run $RUN_ID done, exit $rc"
	exit "$rc"
}

main "$@"
