#!/usr/bin/env bash
# Each tree's series through that tree's own scripts/checkpatch.pl --strict,
# as TAP: one test per patch, and one per tree that the whole series applies
# with git am to its pristine tree. The warnings allowed: the unknown commit id
# of the seed commit, which a Debian tree without git history cannot look
# up, and "does MAINTAINERS need updating?" for a patch whose new files are
# all under tools/testing/selftests/ftrace/ (MAINTAINERS' TRACING entry
# covers that directory; checkpatch does not look).
#
#   tests/checkpatch.sh
#
# Needs the pristine trees in the cache (a matrix run unpacks them); a tree
# not unpacked yet is a SKIP, not a pass.
set -euo pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=scripts/lib.sh
source "$TOP/scripts/lib.sh"

# applies PRISTINE SERIES_DIR: git am of the whole series onto a scratch
# clone of the pristine tree; what failed on stdout.
applies() {
	local scratch patch rc=0
	local -a patches=()
	scratch=$(mktemp -d)
	while read -r patch; do
		case $patch in '' | '#'*) continue ;; esac
		patches+=("$2/$patch")
	done <"$2/series"
	if pristine_clone "$1" "$scratch/t" "${patches[@]}" 2>&1; then
		for patch in "${patches[@]}"; do
			git -C "$scratch/t" -c user.name=nmx -c user.email=nmx@localhost \
				am -q "$patch" 2>&1 || { rc=1; break; }
		done
	else
		rc=1
	fi
	rm -rf "$scratch"
	return "$rc"
}

main() {
	local tree series package pristine patch n=0 out found
	local -a lines=()
	while read -r tree series package; do
		# matrix.yaml names a series from the checkout's top.
		[[ $series == /* ]] || series=$TOP/$series
		pristine=$(pristine_dir "$package") || true
		while read -r patch; do
			case $patch in '' | '#'*) continue ;; esac
			n=$((n + 1))
			if [ -z "$pristine" ]; then
				lines+=("ok $n $tree/$patch # SKIP $package not unpacked in $NMX_CACHE/src")
				continue
			fi
			if out=$(checkpatch_clean "$pristine" "$series/$patch" \
				"$series/FINDINGS.md"); then
				lines+=("ok $n $tree/$patch")
			else
				lines+=("not ok $n $tree/$patch")
				while read -r found; do
					lines+=("# $found")
				done <<<"$out"
			fi
		done <"$series/series"
		n=$((n + 1))
		if [ -z "$pristine" ]; then
			lines+=("ok $n $tree: the series applies # SKIP $package not unpacked")
		elif out=$(applies "$pristine" "$series"); then
			lines+=("ok $n $tree: the series applies with git am to the pristine tree")
		else
			lines+=("not ok $n $tree: the series applies with git am to the pristine tree")
			while read -r found; do
				lines+=("# $found")
			done <<<"$out"
		fi
	done < <(nmx trees)
	echo "1..$n"
	printf '%s\n' "${lines[@]}"
}

main "$@"
