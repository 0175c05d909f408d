#!/usr/bin/env bash
# Each tree's series through that tree's own scripts/checkpatch.pl --strict,
# as TAP: one test per patch. The warnings allowed: the unknown commit id
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

MAINTAINERS_WARNING='does MAINTAINERS need updating?'

# allowed PATCH FINDINGS: the pattern of the warnings PATCH may carry.
# checkpatch cannot look a commit id up in a tarball's tree (no history):
# a Fixes: id is allowed when the series' FINDINGS says where it was
# established, and the commit the whole project tests (29ad23b00474).
allowed() {
	local added id ok="Unknown commit id '29ad23b00474'"
	while read -r id; do
		! grep -q "$id" "$2" 2>/dev/null || ok+="|Unknown commit id '$id'"
	done < <(sed -n 's/^Fixes: \([0-9a-f]\{12\}\) .*/\1/p' "$1")
	added=$(awk '/^diff --git / { f = $4 } /^new file mode/ { print f }' "$1")
	if [ -n "$added" ] && ! grep -qv '^b/tools/testing/selftests/ftrace/' <<<"$added"; then
		ok+="|$MAINTAINERS_WARNING"
	fi
	echo "$ok"
}

main() {
	local tree series package pristine patch n=0 out found
	local -a lines=()
	while read -r tree series package; do
		pristine=''
		for found in "$NMX_CACHE/src/${package}_"*; do
			[ -f "$found.ok" ] && pristine=$found
		done
		while read -r patch; do
			case $patch in '' | '#'*) continue ;; esac
			n=$((n + 1))
			if [ -z "$pristine" ]; then
				lines+=("ok $n $tree/$patch # SKIP $package not unpacked in $NMX_CACHE/src")
				continue
			fi
			out=$(perl "$pristine/scripts/checkpatch.pl" --strict --no-tree -q \
				"$TOP/$series/$patch" 2>&1 || true)
			if grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" |
				grep -vEq "$(allowed "$TOP/$series/$patch" "$TOP/$series/FINDINGS.md")"; then
				lines+=("not ok $n $tree/$patch")
				while read -r found; do
					lines+=("# $found")
				done <<<"$out"
			else
				lines+=("ok $n $tree/$patch")
			fi
		done <"$TOP/$series/series"
	done < <(nmx trees)
	echo "1..$n"
	printf '%s\n' "${lines[@]}"
}

main "$@"
