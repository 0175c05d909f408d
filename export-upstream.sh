#!/usr/bin/env bash
# The series a run proved, mail-ready for the kernel's maintainers: one
# per topic of patch/<tree>/upstream.yaml, written by git format-patch
# --cover-letter --base under results/<first run>/upstream/<topic>/,
# signed off by you (git's user.name and user.email).
#
#   ./export-upstream.sh [--tree T] RUN_ID|RUN_DIR...
#
# --tree defaults to the newest tree. Give the runs whose verdicts prove
# the topics: `upstream` on every cell a patch concerns, and the variant
# without the patch (`unfixed`, `bootunfixed`) where upstream.yaml names
# one. What is proven is decided by nmx upstream-plan; each exported
# series is then applied with git am to the pristine tree and checked
# with that tree's checkpatch.pl --strict, its recipients named by the
# tree's get_maintainer.pl. Exit 0 when every topic was exported, 1 when
# one was refused (why: upstream/topics.tsv and the output), 2 on bad
# input (no identity, an unknown run or tree).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/lib.sh"

usage() {
	echo "usage: $0 [--tree T] RUN_ID|RUN_DIR..." >&2
	exit 2
}

# run_dir RUN_ID|RUN_DIR: the run's directory.
run_dir() {
	if [ -d "$1" ]; then
		(cd "$1" && pwd)
	elif [ -d "$NMX_RESULTS/$1" ]; then
		printf '%s\n' "$NMX_RESULTS/$1"
	else
		err "no run $1 (neither a directory nor in $NMX_RESULTS)"
		exit 2
	fi
}

# pristine PACKAGE: the unpacked, git-initialised tree of that package.
pristine() {
	if ! pristine_dir "$1"; then
		err "$1 is not unpacked in $NMX_CACHE/src: run the matrix on its tree once"
		exit 2
	fi
}

# export_topic TOPIC PLAN_DIR OUT_DIR PRISTINE SERIES_DIR NAME EMAIL:
# apply, format, address and check one planned topic as NAME <EMAIL>; 1 if
# it does not hold.
export_topic() {
	local topic=$1 plan=$2/$1 out=$3/$1 src=$4 series=$5 name=$6 email=$7
	local work patch num base
	local -a patches
	# Under the plan's directory, which main removes whatever happens here.
	work=$2/work-$1
	mkdir -p "$work"
	# Called in a condition, where set -e does not act: each step says.
	if ! pristine_clone "$src" "$work/tree"; then
		err "$topic: cannot check out $src's pristine tag"
		return 1
	fi
	base=$(git -C "$work/tree" rev-parse HEAD)
	while read -r patch; do
		num=$(basename "$patch")
		num=${num%%-*}
		if ! git -C "$work/tree" -c user.name="$name" -c user.email="$email" \
			am -q "$patch" >"$work/am.log" 2>&1; then
			err "$topic: $(basename "$patch") does not apply to the pristine tree:"
			cat "$work/am.log" >&2
			return 1
		fi
		git -C "$work/tree" -c user.name="$name" -c user.email="$email" \
			commit -q --amend --reset-author -F "$plan/msg-$num" ||
			{ err "$topic: cannot reword $num"; return 1; }
	done <"$plan/patches"
	rm -rf "$out"
	mkdir -p "$out"
	git -C "$work/tree" format-patch -q --cover-letter --base="$base" \
		-o "$out" "$base..HEAD" || { err "$topic: git format-patch failed"; return 1; }
	patches=("$out"/0*.patch)
	patches=("${patches[@]:1}")
	# Files name the maintainers; keywords in the messages (an fgraph fix
	# that mentions riscv) would add arch maintainers it does not concern.
	if ! (cd "$work/tree" && perl scripts/get_maintainer.pl --no-git \
		--no-git-fallback --no-keywords "${patches[@]}") >"$out/get_maintainer.txt" \
		2>"$work/get_maintainer.err" ||
		! nmx upstream-cover --cover "$out/0000-cover-letter.patch" \
			--body "$plan/cover.txt" --maintainers "$out/get_maintainer.txt"; then
		err "$topic: no recipients (get_maintainer.pl, $out/get_maintainer.txt)"
		return 1
	fi
	# checkpatch.pl as the tree has it; a Fixes: id it cannot look up in a
	# tree without history is allowed where FINDINGS.md says how it was
	# established.
	: >"$out/checkpatch.txt"
	for patch in "${patches[@]}"; do
		if ! checkpatch_clean "$work/tree" "$patch" "$series/FINDINGS.md" \
			>>"$out/checkpatch.txt"; then
			err "$topic: ${patch##*/} is not checkpatch.pl --strict clean ($out/checkpatch.txt)"
			return 1
		fi
	done
	progress "$topic: $(find "$out" -name '0*.patch' | wc -l) files in $out"
}

main() {
	local tree='' newest line series package src plan topic status why
	local name email out
	local -a runs=()
	local rc=0
	while [ $# -gt 0 ]; do
		case $1 in
		--tree) [ $# -ge 2 ] || usage; tree=$2; shift 2 ;;
		-*) usage ;;
		*) runs+=("$(run_dir "$1")"); shift ;;
		esac
	done
	[ ${#runs[@]} -gt 0 ] || usage
	# The tool that decides, as this checkout has it (as matrix.sh does).
	make -s -C "$NMX_TOP/tools/nmx" >&2 || exit 2
	name=$(git -C "$NMX_TOP" config user.name || true)
	email=$(git -C "$NMX_TOP" config user.email || true)
	if [ -z "$name" ] || [ -z "$email" ]; then
		err "no git identity: the patches are authored and signed off by whoever exports them; set yours with git config user.name and user.email"
		exit 2
	fi
	newest=$(nmx trees --newest)
	tree=${tree:-$newest}
	line=$(nmx trees | awk -v t="$tree" '$1 == t')
	if [ -z "$line" ]; then
		err "no tree '$tree' in $NMX_MATRIX"
		exit 2
	fi
	read -r _ series package <<<"$line"
	[[ $series == /* ]] || series=$NMX_TOP/$series
	src=$(pristine "$package")
	plan=$(mktemp -d)
	nmx upstream-plan --tree "$tree" --identity "$name <$email>" \
		--out "$plan" "${runs[@]}" || rc=$?
	[ "$rc" -le 1 ] || { rm -rf "$plan"; exit "$rc"; }
	out=${runs[0]}/upstream
	mkdir -p "$out"
	: >"$out/topics.tsv"
	while IFS=$'\t' read -r topic status why; do
		if [ "$status" = planned ]; then
			if export_topic "$topic" "$plan" "$out" "$src" "$series" \
				"$name" "$email"; then
				status=exported
			else
				status=refused
				why="see the export's output"
				rc=1
			fi
		fi
		printf '%s\t%s\t%s\n' "$topic" "$status" "$why" >>"$out/topics.tsv"
	done <"$plan/topics.tsv"
	rm -rf "$plan"
	progress "topics: $out/topics.tsv"
	exit "$rc"
}

main "$@"
