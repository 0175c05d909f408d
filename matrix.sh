#!/usr/bin/env bash
# Run the matrix: every (tree, variant, cell) of matrix.yaml's run, or the
# ones named. One failing cell never stops the others.
#
#   matrix.sh [--no-install] [--tree T]... [--variant V]... [--cell C]...
#
# Results: results/<run-id>/<tree>-<variant>/<cell>/ (build.log, boot.log,
# config, traces, result.json), results/<run-id>/summary.txt, the reports
# (report.html, report.md, junit.xml, kcidb.json; see nmx report) and
# results/latest -> <run-id>. Exit: 0 all cells pass, 1 a cell failed,
# 2 infrastructure errors.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/lib.sh"

usage() {
	echo "usage: $0 [--no-install] [--tree T]... [--variant V]... [--cell C]..." >&2
	exit 2
}

new_run_dir() {
	local id n=1
	id=$(date -u +%Y%m%dT%H%M%SZ)
	while [ -e "$NMX_TOP/results/$id" ]; do
		id=$(date -u +%Y%m%dT%H%M%SZ)-$n
		n=$((n + 1))
	done
	mkdir -p "$NMX_TOP/results/$id"
	echo "$id"
}

run_cell() {
	local run_id=$1 tree=$2 variant=$3 cell=$4 dir rc=0
	dir=$NMX_TOP/results/$run_id/$tree-$variant/$cell
	mkdir -p "$dir"
	printf '%s\t%s\n' run_id "$run_id" >"$dir/meta.tsv"
	printf '#!/bin/sh\n# Reproduce %s (%s-%s) by hand, stage by stage.\nset -e\n' \
		"$cell" "$tree" "$variant" >"$dir/reproduce.sh"
	"$NMX_TOP/build.sh" --cell-dir "$dir" "$tree" "$variant" "$cell" || rc=$?
	if [ "$rc" -eq 0 ]; then
		"$NMX_TOP/boot.sh" --cell-dir "$dir" "$tree" "$variant" "$cell" || true
	fi
	nmx result --cell-dir "$dir" || true
}

main() {
	local install=1 run_id rc=0 tree variant cell previous
	local -a select=() plan=() baseline=()
	while [ $# -gt 0 ]; do
		case $1 in
		--no-install) install=0; shift ;;
		--tree | --variant | --cell) select+=("$1" "$2"); shift 2 ;;
		*) usage ;;
		esac
	done
	if [ "$install" -eq 1 ]; then
		"$NMX_TOP/scripts/install-deps.sh" || exit 2
	fi
	make -s -C "$NMX_TOP/tools/nmx" >&2 || exit 2
	mapfile -t plan < <(nmx cells "${select[@]}") || exit 2
	[ "${#plan[@]}" -gt 0 ] || exit 2
	run_id=$(new_run_dir)
	progress "run $run_id: ${#plan[@]} cell(s); results in results/$run_id"
	for line in "${plan[@]}"; do
		read -r tree variant cell <<<"$line"
		run_cell "$run_id" "$tree" "$variant" "$cell"
	done
	previous=$(readlink "$NMX_TOP/results/latest" 2>/dev/null || true)
	ln -sfn "$run_id" "$NMX_TOP/results/latest"
	nmx summary "$NMX_TOP/results/$run_id" || rc=$?
	cat "$NMX_TOP/results/$run_id/summary.txt" 2>/dev/null || true
	# The reports, with regressions marked against the run before this one.
	if [ -n "$previous" ] && [ -d "$NMX_TOP/results/$previous" ]; then
		baseline=(--baseline "$NMX_TOP/results/$previous")
	fi
	if nmx report "${baseline[@]}" "$NMX_TOP/results/$run_id"; then
		progress "reports: results/$run_id/{report.html,report.md,junit.xml,kcidb.json}"
	else
		progress "the reports could not be written"
		[ "$rc" -ne 0 ] || rc=2
	fi
	progress "run $run_id done, exit $rc"
	exit "$rc"
}

main "$@"
