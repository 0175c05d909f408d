# Which shell functions read or set another function's locals (bash's
# dynamic scope lets them): run as `awk -f tests/locals.awk FILE FILE`
# (the file twice: the first pass learns each function's locals, the
# second looks at what each function uses). Prints "FILE: FUNC uses 'VAR'
# (local in OTHER)" per case. Lower-case names only: globals are upper case.
function names_of(line, f,    n, w, i, v) {
	n = split(line, w, /[ \t]+/)
	for (i = 1; i <= n; i++) {
		v = w[i]
		sub(/=.*/, "", v)
		if (v ~ /^[a-z_][a-z0-9_]*$/ && !((f, v) in loc)) {
			loc[f, v] = 1
			owner[v] = owner[v] " " f
		}
	}
}
FNR == 1 { pass++ }
/^[a-z_][a-z0-9_]*\(\) \{/ { f = substr($0, 1, index($0, "(") - 1); next }
/^}/ { f = ""; next }
f == "" || $0 ~ /^[ \t]*#/ { next }
pass == 1 {
	line = $0
	if (sub(/^[ \t]*local[ \t]+(-[a-zA-Z]+[ \t]+)?/, "", line))
		names_of(line, f)
	if (match($0, /for [a-z_][a-z0-9_]* in/))
		names_of(substr($0, RSTART + 4, RLENGTH - 7), f)
	if (match($0, /read -r [a-z_][a-z0-9_ ]*/))
		names_of(substr($0, RSTART + 8, RLENGTH - 8), f)
	next
}
{
	line = $0
	while (match(line, /\$\{?[a-z_][a-z0-9_]*/)) {
		v = substr(line, RSTART, RLENGTH)
		sub(/^\$\{?/, "", v)
		line = substr(line, RSTART + RLENGTH)
		check(f, v)
	}
	if (match($0, /^[ \t]*[a-z_][a-z0-9_]*(\+)?=/)) {
		v = $0
		sub(/^[ \t]*/, "", v)
		sub(/\+?=.*/, "", v)
		check(f, v)
	}
}
function check(f, v) {
	if ((f, v) in loc || !(v in owner) || (f SUBSEP v) in said)
		return
	said[f, v] = 1
	print FILENAME ": " f " uses '" v "' (local in" owner[v] ")"
}
