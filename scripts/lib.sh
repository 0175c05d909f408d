# shellcheck shell=bash
# Shared glue for build.sh, boot.sh and matrix.sh: paths, logging, stage
# bookkeeping. Logic that decides anything lives in tools/nmx (C).

NMX_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NMX_CACHE=${NMX_CACHE:-${XDG_CACHE_HOME:-${HOME:-$(getent passwd "$(id -un)" | cut -d: -f6)}/.cache}/notrace-matrix}
NMX_BIN=${NMX_BIN:-$NMX_TOP/tools/nmx/nmx}
# Another matrix or set of cells (the tests use a fake tree this way).
NMX_MATRIX=${NMX_MATRIX:-$NMX_TOP/matrix.yaml}
NMX_ARCHES_DIR=${NMX_ARCHES_DIR:-$NMX_TOP/arches}
# Where runs go (the tests use a scratch directory).
NMX_RESULTS=${NMX_RESULTS:-$NMX_TOP/results}
NMX_START=${NMX_START:-$(date +%s)}
export NMX_CACHE NMX_START

err() {
	printf 'notrace-matrix: %s\n' "$*" >&2
}

# Progress for whoever watches the run: wall clock and time since start.
progress() {
	local now elapsed
	now=$(date +%s)
	elapsed=$((now - NMX_START))
	printf '[%s +%02d:%02d] %s\n' "$(date +%H:%M:%S)" \
		$((elapsed / 60)) $((elapsed % 60)) "$*" >&2
}

# last_seconds TREE VARIANT CELL STAGE: the seconds STAGE took for that
# cell in the last finished run (results/latest), for the progress lines'
# expectations; nothing if it did not run there.
last_seconds() {
	local dir
	dir=$(nmx cell-dir --run "$NMX_RESULTS/latest" --tree "$1" --variant "$2" --cell "$3") &&
		nmx stage-seconds --cell-dir "$dir" --stage "$4"
}

# suite_package_dir SUITE PACKAGE: where scripts/fetch-deb.sh unpacks a
# package of another Debian suite (a tree's linux-source): root/, VERSION.
suite_package_dir() {
	printf '%s\n' "$NMX_CACHE/debian/$1/$2"
}

# missing_tools TOOL...: "tool (Debian package p), ..." for those not on
# PATH (nmx missing-tools names the package), and success; none missing:
# nothing, and failure.
missing_tools() {
	local out rc=0
	out=$(nmx missing-tools "$@") || rc=$?
	[ "$rc" -ne 0 ] || return 1
	printf '%s\n' "${out:-(nmx missing-tools failed, exit $rc)}"
}

# NMX_PATCHES: the run's copy of a maintainer's patches (matrix.sh
# --patches); nmx then knows the variant "patched". NMX_LOCAL_TREE: a
# maintainer's kernel checkout (matrix.sh --tree DIR), the tree "local",
# with the series of NMX_LOCAL_SERIES or of the tree of its version.
# The steps that read a cell's facts (--described) need none of these.
nmx() {
	local -a argv=("$NMX_BIN" -m "$NMX_MATRIX" -a "$NMX_ARCHES_DIR")
	[ -z "${NMX_PATCHES:-}" ] || argv+=(-p "$NMX_PATCHES")
	[ -z "${NMX_LOCAL_TREE:-}" ] || argv+=(-l "$NMX_LOCAL_TREE")
	[ -z "${NMX_LOCAL_SERIES:-}" ] || argv+=(-s "$NMX_LOCAL_SERIES")
	"${argv[@]}" "$@"
}

# load_cell DIR TREE VARIANT CELL: the cell's facts into the associative
# array CELL (keys: nmx describe's; CELL[dir]: the cell's directory, made
# absolute; CELL[facts]: the file, which nmx's steps read as --described),
# from DIR/cell.tsv, which its run wrote when it planned the
# cell (nmx cell-dir --fresh), or described into it first if there is
# none. DIR empty: a step run by hand, in a scratch directory, with the
# facts as the matrix says now.
load_cell() {
	local dir=$1 file anew=0
	if [ -z "$dir" ]; then
		dir=$NMX_TOP/results/scratch/$2-$3/$4
		anew=1
	fi
	mkdir -p "$dir"
	dir=$(cd "$dir" && pwd)
	file=$dir/cell.tsv
	if [ "$anew" = 1 ] || [ ! -f "$file" ]; then
		if ! nmx describe --tree "$2" --variant "$3" --cell "$4" >"$file.tmp"; then
			rm -f "$file.tmp"
			return 2
		fi
		mv "$file.tmp" "$file"
	fi
	declare -gA CELL
	tsv_into CELL <"$file"
	if [ "${CELL[tree]:-}" != "$2" ] || [ "${CELL[variant]:-}" != "$3" ] ||
		[ "${CELL[cell]:-}" != "$4" ]; then
		err "$file describes another cell than $2 $3 $4"
		return 2
	fi
	CELL[dir]=$dir
	CELL[facts]=$file
}

# tsv_into ARRAY: nmx's KEY<TAB>VALUE lines on stdin into the associative
# array the caller names, emptied first (a list, KEY[] lines, as its items
# a line each).
# shellcheck disable=SC2004 # into: the caller's associative array, by name
tsv_into() {
	local -n into=$1
	local key value
	into=()
	while IFS=$'\t' read -r key value; do
		case $key in
		'') ;;
		*'[]') key=${key%'[]'}; into[$key]+=${into[$key]:+$'\n'}$value ;;
		*) into[$key]=$value ;;
		esac
	done
}

# nmx_into ARRAY ARGS...: what nmx ARGS prints as KEY<TAB>VALUE lines, in
# the global associative array ARRAY (emptied first); failure if nmx fails.
nmx_into() {
	local out
	out=$(nmx "${@:2}") || return 1
	declare -gA "$1"
	tsv_into "$1" <<<"$out"
}

# run_facts VERB OPTIONS...: nmx run-dir VERB (new, show, resume, finish)
# into the array RUN.
run_facts() {
	nmx_into RUN run-dir "$@"
}

# cell_list KEY: a list of the cell's facts (make_targets, ...), a line each.
cell_list() {
	[ -z "${CELL[$1]:-}" ] || printf '%s\n' "${CELL[$1]}"
}

# Directories of one tree+variant in the cache. The build directory sits
# at the same place relative to its source for every variant, so with
# CCACHE_BASEDIR set above them, variants share ccache objects.
# shellcheck disable=SC2034 # NMX_SRC, NMX_OUT, NMX_RECORD_ENV are used by the scripts that source this file.
set_work_dirs() {
	NMX_WORK=$NMX_CACHE/work/${CELL[tree]}-${CELL[variant]}
	NMX_SRC=$NMX_WORK/src
	NMX_OUT=$NMX_WORK/out/${CELL[cell]}
	export CCACHE_DIR=${CCACHE_DIR:-$NMX_CACHE/ccache}
	export CCACHE_BASEDIR=$NMX_CACHE/work
	# Depend mode: on a miss ccache takes the headers from the compiler's
	# own -MMD output (Kbuild passes -Wp,-MMD) instead of running the
	# preprocessor once more, and a first run is all misses: measured on
	# kernel/ and mm/ of x86_64 6.12 cold, 288 CPU s in the default mode,
	# 193 in depend mode, 189 without ccache (docs/performance.md). The
	# price: a changed config misses on every object. The objects are the
	# compiler's either way.
	export CCACHE_DEPEND=1
	# What every recorded command runs with, and its reproducer too.
	NMX_RECORD_ENV=("CCACHE_DIR=$CCACHE_DIR" "CCACHE_BASEDIR=$CCACHE_BASEDIR" "CCACHE_DEPEND=1")
}

# use_distcc HOSTS: compile on other machines (build.sh --distcc-hosts).
# ccache looks up first; a miss goes through distcc to HOSTS (distcc's
# DISTCC_HOSTS syntax).
use_distcc() {
	export CCACHE_PREFIX=distcc DISTCC_HOSTS=$1
	NMX_RECORD_ENV+=("CCACHE_PREFIX=distcc" "DISTCC_HOSTS=$DISTCC_HOSTS")
}

# record_stage CELL_DIR STAGE STATUS SECONDS [DETAIL], record_meta CELL_DIR
# KEY VALUE: a cell's records, checked and written by nmx (rundir.c).
record_stage() {
	nmx record --cell-dir "$1" stage "$2" "$3" "$4" "${5:-}"
}

record_meta() {
	nmx record --cell-dir "$1" meta "$2" "$3"
}

# recorded [--skip] [--stdout FILE | --log FILE] [--may-fail] CELL_DIR CMD...:
# append CMD, with the environment it runs in, to the cell's reproducer,
# then run exactly that argv. --skip: only record it (the stage's output
# is reused, but a reproducer still needs the command). --stdout sends
# the output to FILE, --log stdout and stderr, in the run and in the
# reproducer alike; other output goes wherever the caller sends it
# (build.log), which is the only difference. --may-fail: the reproducer
# goes on after a non-zero exit (QEMU killed by timeout, a failing
# verdict), as the run does.
recorded() {
	local skip=0 out='' err='' cont=''
	local -a argv
	while :; do
		case $1 in
		--skip) skip=1; shift ;;
		--stdout) out=$2; shift 2 ;;
		--log) out=$2; err=1; shift 2 ;;
		--may-fail) cont=' || :'; shift ;;
		*) break ;;
		esac
	done
	local dir=$1
	shift
	argv=(env "${NMX_RECORD_ENV[@]}" "$@")
	{
		printf '%q ' "${argv[@]}"
		[ -z "$out" ] || printf '>%q' "$out"
		[ -z "$err" ] || printf ' 2>&1'
		printf '%s\n' "$cont"
	} >>"$dir/reproduce.sh"
	[ "$skip" -eq 0 ] || return 0
	if [ -n "$err" ]; then
		"${argv[@]}" >"$out" 2>&1
	elif [ -n "$out" ]; then
		"${argv[@]}" >"$out"
	else
		"${argv[@]}"
	fi
}

# children_cpu_seconds VAR: CPU seconds (user + system) of this shell's
# finished children so far, into VAR. The compile floor of a run adds up
# what the kernel builds used. Not called as $(...): a subshell's `times`
# knows none of this shell's children.
children_cpu_seconds() {
	local tmp
	tmp=$(mktemp)
	times >"$tmp"
	printf -v "$1" '%s' "$(awk 'NR == 2 {
		n = split($0, f, /[ ms]+/); s = 0
		for (i = 1; i + 1 <= n; i += 2) if (f[i] != "") s += f[i] * 60 + f[i + 1]
		printf "%.1f\n", s
	}' "$tmp")"
	rm -f "$tmp"
}

seconds_since() {
	local start=$1 end
	end=$(date +%s.%N)
	printf '%.1f' "$(echo "$end - $start" | bc)"
}

# checkpatch_allowed PATCH FINDINGS: the pattern of the checkpatch.pl
# warnings PATCH may carry. checkpatch cannot look a commit id up in a
# tarball's tree (no history): a Fixes: id is allowed when the series'
# FINDINGS says where it was established, and the commit the whole project
# tests (29ad23b00474). "does MAINTAINERS need updating?" is allowed for a
# patch whose new files are all under tools/testing/selftests/ftrace/,
# which MAINTAINERS' TRACING entry covers (checkpatch does not look).
checkpatch_allowed() {
	local added id ok="Unknown commit id '29ad23b00474'"
	while read -r id; do
		! grep -q "$id" "$2" 2>/dev/null || ok+="|Unknown commit id '$id'"
	done < <(sed -n 's/^Fixes: \([0-9a-f]\{12\}\) .*/\1/p' "$1")
	added=$(awk '/^diff --git / { f = $4 } /^new file mode/ { print f }' "$1")
	if [ -n "$added" ] && ! grep -qv '^b/tools/testing/selftests/ftrace/' <<<"$added"; then
		ok+="|does MAINTAINERS need updating?"
	fi
	echo "$ok"
}

# checkpatch_clean TREE PATCH FINDINGS: TREE's scripts/checkpatch.pl
# --strict on PATCH, its output on stdout; 1 when it complains of more
# than checkpatch_allowed() lets through.
checkpatch_clean() {
	local out
	# In TREE, as a maintainer runs it: checkpatch asks the git tree of
	# its working directory about the commit ids it meets.
	out=$(cd "$1" && { perl scripts/checkpatch.pl --strict --no-tree -q "$2" 2>&1 || :; })
	printf '%s\n' "$out"
	! grep -E '^(ERROR|WARNING|CHECK):' <<<"$out" |
		grep -vEq "$(checkpatch_allowed "$2" "$3")"
}

# pristine_dir PACKAGE: the unpacked, git-initialised Debian tree of
# PACKAGE in the cache (build.sh's ensure_pristine); 1 when there is none.
pristine_dir() {
	local found dir=''
	for found in "$NMX_CACHE/src/${1}_"*; do
		[ -f "$found.ok" ] && dir=$found
	done
	[ -n "$dir" ] && printf '%s\n' "$dir"
}

# pristine_clone PRISTINE DEST [PATCH...]: a scratch clone of PRISTINE,
# sharing its objects, checked out at its "pristine" tag. With patches,
# only the files they touch are checked out (a sparse checkout): git am
# needs no more, and a whole tree's checkout costs about a minute of
# system time per tree.
pristine_clone() {
	local src=$1 dest=$2
	shift 2
	git clone -q --shared --no-checkout "$src" "$dest" || return 1
	if [ "$#" -gt 0 ]; then
		# Anchored patterns, one per path a diff names (old and new).
		sed -n 's|^diff --git a/\(.*\) b/\(.*\)$|/\1\n/\2|p' "$@" | sort -u |
			git -C "$dest" sparse-checkout set --no-cone --stdin || return 1
	fi
	git -C "$dest" checkout -q --detach pristine
}

# The subject of a format-patch file, unfolded, without "[PATCH n/m]".
patch_subject() {
	awk '/^Subject: / { s = substr($0, 10); folded = 1; next }
	     folded && /^[ \t]/ { s = s $0; next }
	     folded { sub(/^\[[^]]*\] /, "", s); print s; exit }' "$1"
}
