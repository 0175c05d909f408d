#!/usr/bin/env bats
# The README stays a page for users, and no link of it or of docs/ leads
# nowhere.

load helpers

@test "docs: the README is at most 150 lines" {
	[ "$(wc -l <"$TOP/README.md")" -le 150 ]
}

@test "docs: every relative link of README.md and docs/*.md names a file that exists" {
	local f link target missing=()
	for f in "$TOP/README.md" "$TOP"/docs/*.md; do
		while read -r link; do
			link=${link%%#*}
			[ -n "$link" ] || continue
			target=$(dirname "$f")/$link
			[ -e "$target" ] || missing+=("${f#"$TOP"/}: $link")
		done < <(grep -o '](\([^)]*\))' "$f" | sed 's/^](//; s/)$//' | grep -v '^[a-z]*:')
	done
	[ "${#missing[@]}" -eq 0 ] || { printf 'missing: %s\n' "${missing[@]}"; false; }
}
