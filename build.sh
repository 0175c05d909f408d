#!/usr/bin/env bash
# Build one cell: prepare tree -> configure -> kernel -> guest.
#
#   build.sh [--stage NAME] [--cell-dir DIR] [--make-jobs N]
#            [--distcc-hosts HOSTS] TREE VARIANT CELL
#
# Each stage reads the previous one's output on disk and writes its own,
# so a stage can be rerun alone (--stage prepare|configure|kernel|guest).
# Stage results go to DIR/stages.tsv (DIR defaults to a scratch results
# directory); logs to DIR/build.log. Exit: 0 ok, 1 the cell failed
# (PATCH_FAIL, CONFIG_FAIL, BUILD_FAIL), 2 infrastructure (INFRA_FAIL).
# --make-jobs: make's -j (default: cores + 1); --distcc-hosts: the
# kernel's compiles that miss ccache go to these distcc hosts. matrix.sh
# passes its own (NMX_MAKE_JOBS, NMX_DISTCC_HOSTS).
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/lib.sh"

usage() {
	echo "usage: $0 [--stage prepare|configure|kernel|guest|all] [--cell-dir DIR] [--make-jobs N] [--distcc-hosts HOSTS] TREE VARIANT CELL" >&2
	exit 2
}

# fail STAGE SECONDS DETAIL: the stage's own work failed; recorded with
# the status nmx's table of stages gives it (FAILS_AS), exit 1.
# fail_infra STAGE SECONDS DETAIL: the harness failed it, INFRA_FAIL, exit 2.
fail() {
	record_stage "$CELL_DIR" "$1" "${FAILS_AS[$1]}" "$2" "$3"
	err "${CELL[cell]}: $1: ${FAILS_AS[$1]}: $3"
	exit 1
}

fail_infra() {
	record_stage "$CELL_DIR" "$1" INFRA_FAIL "$2" "$3"
	err "${CELL[cell]}: $1: INFRA_FAIL: $3"
	exit 2
}

need_tools() {
	local missing
	missing=$(missing_tools "$@") || return 0
	fail_infra "$STAGE" 0 "missing: $missing; ./matrix.sh installs them"
}

# kmake ARGS...: Kbuild as every stage calls it, recorded. The build's
# identity (timestamp, user, host, version number) is fixed, so the same
# inputs give the same image: reruns hit ccache and a reproducer rebuilds
# what was judged.
kmake() { # [--skip] ARGS...
	local skip=()
	[ "$1" = --skip ] && skip=(--skip) && shift
	recorded "${skip[@]}" "$CELL_DIR" make -C "$NMX_SRC" O="$NMX_OUT" \
		"${KMAKE_VARS[@]}" "$@"
}

# Kbuild's CC is scripts/kbuild-cc (ccache, but not for .incbin sources),
# copied into the cache: its path is in every object's .cmd file, and one
# inside a checkout would rebuild every kernel when another checkout runs.
install_kbuild_cc() {
	KBUILD_CC=$NMX_CACHE/bin/kbuild-cc
	cmp -s "$NMX_TOP/scripts/kbuild-cc" "$KBUILD_CC" && return 0
	mkdir -p "$NMX_CACHE/bin"
	cp "$NMX_TOP/scripts/kbuild-cc" "$KBUILD_CC.$$" && mv -f "$KBUILD_CC.$$" "$KBUILD_CC"
}

set_kmake_vars() {
	KMAKE_VARS=(ARCH="${CELL[arch]}" CROSS_COMPILE="${CELL[cross_compile]}"
		CC="$KBUILD_CC ${CELL[cross_compile]}gcc" HOSTCC="ccache gcc"
		KBUILD_BUILD_TIMESTAMP="$BUILD_TIMESTAMP" KBUILD_BUILD_USER=notrace-matrix
		KBUILD_BUILD_HOST=qemu KBUILD_BUILD_VERSION=1)
}

# git_am PATCH: as the run applies it (the identity is the tool's, so a
# clean shell without git's user settings can replay it).
git_am() { # [--skip] PATCH
	local skip=()
	[ "$1" = --skip ] && skip=(--skip) && shift
	recorded "${skip[@]}" "$CELL_DIR" git -C "$NMX_SRC" -c user.name=notrace-matrix \
		-c user.email=notrace-matrix@localhost am -q "$1"
}

# stage_key: the key of what the stage's output depends on (nmx stage-key:
# the inputs its table of stages names, from the cell's facts, its
# directory, the build directory and make's variables). A stage whose key
# matches the one stored with its output is not redone: an unchanged
# rerun then costs seconds, not a Kbuild walk.
stage_key() {
	nmx stage-key --src "$NMX_SRC" --stage "$STAGE" --described "${CELL[facts]}" \
		--cell-dir "$CELL_DIR" --build-dir "$NMX_OUT" -- "${KMAKE_VARS[@]}"
}

# The patches of this variant, in series order (nmx series list: the
# tree's, less the variant's skip_patches, then a maintainer's), as main
# read them.
variant_patches() {
	[ "${#PATCHES[@]}" -eq 0 ] || printf '%s\n' "${PATCHES[@]}"
}

# Is the pristine copy what was unpacked? Its git repository must work
# and its files match the "pristine" commit (a disk error, a stray edit or
# a killed unpack leave it otherwise).
pristine_intact() {
	local changed
	git -C "$PRISTINE" rev-parse -q --verify 'pristine^{commit}' >/dev/null 2>&1 ||
		return 1
	changed=$(git -C "$PRISTINE" status --porcelain --untracked-files=no 2>/dev/null) ||
		return 1
	[ -z "$changed" ]
}

# A pristine git copy of the Debian tree, one per package version.
ensure_pristine() {
	local tmp
	if [ -f "$PRISTINE.ok" ]; then
		pristine_intact && return 0
		progress "${CELL[cell]}: $PRISTINE is damaged (git or files differ from the tarball): unpacking it again"
		echo "prepare: $PRISTINE damaged; unpacking again" >&2
		rm -f "$PRISTINE.ok"
	elif [ -e "$PRISTINE" ] || [ -e "$PRISTINE.tmp" ]; then
		progress "${CELL[cell]}: $PRISTINE was not unpacked completely: unpacking it again"
	fi
	progress "${CELL[cell]}: unpacking $TARBALL into $PRISTINE"
	rm -rf "$PRISTINE" "$PRISTINE.tmp"
	mkdir -p "$PRISTINE.tmp" || return 1
	tar -xf "$TARBALL" -C "$PRISTINE.tmp" || return 1
	tmp=$(find "$PRISTINE.tmp" -mindepth 1 -maxdepth 1 -type d | head -n 1)
	mv "$tmp" "$PRISTINE" || return 1
	rm -rf "$PRISTINE.tmp"
	# Debian's .gitignore ignores the whole top level: add with -f.
	git -C "$PRISTINE" init -q &&
		git -C "$PRISTINE" add -A -f &&
		git -C "$PRISTINE" -c user.name=notrace-matrix \
			-c user.email=notrace-matrix@localhost commit -q \
			-m "${CELL[tree_package]} $PKG_VERSION (pristine)" &&
		git -C "$PRISTINE" tag pristine &&
		touch "$PRISTINE.ok"
}

# A local checkout's files, NUL-separated, relative to it: for a git
# checkout what git tracks or would track (build outputs are ignored), for
# any other directory every file. Read only: nothing in it is written.
local_files() {
	if git -C "${CELL[tree_source]}" rev-parse --git-dir >/dev/null 2>&1; then
		git -C "${CELL[tree_source]}" ls-files -z -c -o --exclude-standard
	else
		(cd "${CELL[tree_source]}" && find . -mindepth 1 \( -type f -o -type l \) -printf '%P\0')
	fi
}

# What the copy of a local checkout depends on: each file's name, size
# and time. The same files give the same copy, reused across runs.
local_key() {
	(cd "${CELL[tree_source]}" && local_files | xargs -0 -r stat --printf '%n %s %Y\n' 2>/dev/null) |
		sha256sum | cut -c1-16
}

# What a run used of a local checkout, for the records and the console.
local_state() {
	local changed
	if git -C "${CELL[tree_source]}" rev-parse --git-dir >/dev/null 2>&1; then
		# --no-optional-locks: git status must not even refresh its index.
		changed=$(git --no-optional-locks -C "${CELL[tree_source]}" status --porcelain | wc -l)
		printf 'git %s' "$(git -C "${CELL[tree_source]}" rev-parse --short=12 HEAD 2>/dev/null || echo 'without commits')"
		[ "$changed" -eq 0 ] || printf ' with %s uncommitted change(s) (the working files are used as they are)' "$changed"
	else
		printf 'not a git checkout (its files are used as they are)'
	fi
}

# A git copy of a local checkout in the cache, as for a tarball: DIR
# itself is only read. A copy of a tree that was built in gets make
# mrproper (Kbuild refuses to build out of a tree that has a .config);
# only the newest copy is kept.
ensure_pristine_local() {
	local old
	if [ -f "$PRISTINE.ok" ]; then
		pristine_intact && return 0
		rm -f "$PRISTINE.ok"
	fi
	progress "${CELL[cell]}: copying ${CELL[tree_source]} ($(local_state)) into $PRISTINE"
	for old in "$NMX_CACHE"/src/local-*; do
		case $old in "$PRISTINE" | "$PRISTINE".*) continue ;; esac
		[ -e "$old" ] && rm -rf "$old"
	done
	rm -rf "$PRISTINE" "$PRISTINE.tmp"
	mkdir -p "$PRISTINE.tmp" || return 1
	(cd "${CELL[tree_source]}" && local_files | tar --null --no-recursion --ignore-failed-read -cf - -T -) |
		tar -C "$PRISTINE.tmp" -xf - || return 1
	if [ -e "$PRISTINE.tmp/.config" ] || [ -e "$PRISTINE.tmp/include/config" ]; then
		echo "prepare: ${CELL[tree_source]} was built in: its copy gets make mrproper" >&2
		make -s -C "$PRISTINE.tmp" mrproper || return 1
	fi
	mv "$PRISTINE.tmp" "$PRISTINE" || return 1
	git -C "$PRISTINE" init -q &&
		git -C "$PRISTINE" add -A -f &&
		git -C "$PRISTINE" -c user.name=notrace-matrix \
			-c user.email=notrace-matrix@localhost commit -q \
			-m "local checkout ${CELL[tree_source]}: $(local_state) (pristine)" &&
		git -C "$PRISTINE" tag pristine &&
		touch "$PRISTINE.ok"
}

record_tree_version() {
	record_meta "$CELL_DIR" tree_version "$(sed -n 's/^VERSION = //p;s/^PATCHLEVEL = //p;s/^SUBLEVEL = //p' "$NMX_SRC/Makefile" | paste -sd. -)"
}

# What the reproducer replays for the series: git am onto pristine. The
# run gets the same tree another way (nmx series commit).
record_series_replay() {
	local patch
	recorded --skip "$CELL_DIR" git -C "$NMX_SRC" checkout -q -f --detach pristine
	while read -r patch; do
		git_am --skip "$patch"
	done < <(variant_patches)
}

stage_prepare() {
	local stamp want t0 commit rc
	t0=$(date +%s.%N)
	if [ -n "${CELL[tree_source]}" ]; then
		need_tools git tar make
		progress "${CELL[cell]}: tree ${CELL[tree]} is ${CELL[tree_source]}, $(local_state)"
		ensure_pristine_local >>"$LOG" 2>&1 ||
			fail_infra prepare "$(seconds_since "$t0")" "cannot copy ${CELL[tree_source]} (see build.log)"
	else
		need_tools git tar xz dpkg-query
		[ -r "$TARBALL" ] ||
			fail_infra prepare 0 "$TARBALL missing ($(if [ -n "${CELL[tree_suite]}" ]; then
				echo "scripts/fetch-deb.sh --refresh ${CELL[tree_suite]} ${CELL[tree_package]}"
			else
				echo "apt-get install ${CELL[tree_package]}"
			fi))"
		ensure_pristine >>"$LOG" 2>&1 || fail_infra prepare "$(seconds_since "$t0")" "cannot unpack the tree (see build.log)"
	fi
	# A worktree of an earlier pristine copy (unpacked again since) is gone.
	if [ -e "$NMX_SRC" ] && ! git -C "$NMX_SRC" rev-parse --git-dir >/dev/null 2>&1; then
		echo "prepare: $NMX_SRC belongs to a pristine copy that is gone: made again" >>"$LOG"
		rm -rf "$NMX_SRC" "$NMX_WORK/series.applied"
	fi
	if [ ! -e "$NMX_SRC/.git" ]; then
		mkdir -p "$NMX_WORK"
		git -C "$PRISTINE" worktree prune
		git -C "$PRISTINE" worktree add -q --detach "$NMX_SRC" pristine >>"$LOG" 2>&1
	fi
	# The series state is the pristine commit plus each patch's content.
	want=$(nmx series key --described "${CELL[facts]}" --src "$PRISTINE") ||
		fail_infra prepare "$(seconds_since "$t0")" "cannot make the series' key (nmx series key)"
	stamp=$NMX_WORK/series.applied
	printf '# tree: %s unpacked from %s into a git repository tagged "pristine"\n' \
		"$PRISTINE" "${CELL[tree_source]:-$TARBALL}" >>"$CELL_DIR/reproduce.sh"
	record_series_replay
	if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] &&
		[ -z "$(git -C "$NMX_SRC" status --porcelain --untracked-files=no)" ]; then
		record_tree_version
		record_stage "$CELL_DIR" prepare ok "$(seconds_since "$t0")" "series already applied"
		return 0
	fi
	rm -f "$stamp"
	# A run killed in the middle of git am (before this scheme) leaves it
	# half done.
	if [ -d "$(git -C "$NMX_SRC" rev-parse --git-path rebase-apply)" ]; then
		git -C "$NMX_SRC" am --abort >>"$LOG" 2>&1 || true
	fi
	# One commit per patch onto pristine, in a scratch index (nmx series
	# commit); exit 1: the patch it prints does not apply.
	rc=0
	commit=$(nmx series commit --described "${CELL[facts]}" \
		--src "$NMX_SRC" --log "$LOG") || rc=$?
	[ "$rc" -ne 1 ] || fail prepare "$(seconds_since "$t0")" "$commit does not apply (see build.log)"
	[ "$rc" -eq 0 ] || fail_infra prepare "$(seconds_since "$t0")" "cannot apply the series (nmx series commit)"
	# Only files that differ from what the worktree holds are rewritten,
	# so a one-file change to the series rebuilds that file's dependents,
	# not everything the series touches.
	# (A file whose timestamp changed but not its content counts as
	# unchanged once the index is refreshed; checkout -f rewrites it else.)
	git -C "$NMX_SRC" update-index -q --refresh >/dev/null 2>&1 || true
	git -C "$NMX_SRC" checkout -q -f --detach "$commit" >>"$LOG" 2>&1 ||
		fail_infra prepare "$(seconds_since "$t0")" "cannot check out the series (see build.log)"
	echo "$want" >"$stamp"
	record_tree_version
	record_stage "$CELL_DIR" prepare ok "$(seconds_since "$t0")" "$(variant_patches | wc -l) patch(es) applied"
}

# Order: tinyconfig -> common -> cell -> matrix extras -> olddefconfig.
configure_commands() { # [--skip: only recorded, the .config they made is kept]
	local requested=$CELL_DIR/requested.config skip=()
	[ "${1:-}" = --skip ] && skip=(--skip)
	kmake "${skip[@]}" tinyconfig &&
		recorded "${skip[@]}" "$CELL_DIR" ARCH="${CELL[arch]}" CROSS_COMPILE="${CELL[cross_compile]}" \
			"$NMX_SRC/scripts/kconfig/merge_config.sh" -m -O "$NMX_OUT" \
			"$NMX_OUT/.config" "$requested" &&
		kmake "${skip[@]}" olddefconfig
}

stage_configure() {
	local t0 key requested=$CELL_DIR/requested.config
	t0=$(date +%s.%N)
	need_tools make gcc "${CELL[cross_compile]}gcc" ccache
	[ -f "$NMX_WORK/series.applied" ] ||
		fail_infra configure 0 "the tree is not prepared: run the prepare stage"
	mkdir -p "$NMX_OUT"
	recorded "$CELL_DIR" "$NMX_BIN" fragment --described "${CELL[facts]}" \
		--common "$NMX_TOP/kconfig/common.config" \
		-o "$requested" || fail_infra configure 0 "cannot write the requested fragment"
	# The .config is copied only when it changed, so an unchanged config
	# does not make Kbuild look at every object again. The key takes the
	# symbols only: the fragment's comments name the checkout's paths.
	key=$(stage_key) ||
		fail_infra configure 0 "cannot make the stage's key (nmx stage-key)"
	if [ -f "$NMX_OUT/.config" ] && [ "$(cat "$NMX_OUT/.nmx-configure.key" 2>/dev/null)" = "$key" ]; then
		echo "configure: inputs unchanged (key $key): .config kept" >>"$LOG"
		configure_commands --skip
	elif ! {
		rm -f "$NMX_OUT/.nmx-configure.key"
		[ -f "$NMX_OUT/.config" ] && cp "$NMX_OUT/.config" "$NMX_OUT/.config.nmx-prev"
		configure_commands
	} >>"$LOG" 2>&1; then
		fail configure "$(seconds_since "$t0")" "make tinyconfig/olddefconfig failed (see build.log)"
	fi
	if [ -f "$NMX_OUT/.config.nmx-prev" ] && cmp -s "$NMX_OUT/.config" "$NMX_OUT/.config.nmx-prev"; then
		# Same content: keep the old timestamp for Kbuild.
		mv "$NMX_OUT/.config.nmx-prev" "$NMX_OUT/.config"
	fi
	rm -f "$NMX_OUT/.config.nmx-prev"
	echo "$key" >"$NMX_OUT/.nmx-configure.key"
	cp "$NMX_OUT/.config" "$CELL_DIR/config"
	if ! recorded --stdout "$CELL_DIR/config-check.txt" "$CELL_DIR" \
		"$NMX_BIN" config-check "$requested" "$NMX_OUT/.config"; then
		cat "$CELL_DIR/config-check.txt" >>"$LOG"
		fail configure "$(seconds_since "$t0")" \
			"did not survive olddefconfig: $(grep -o '^CONFIG_[A-Za-z0-9_]*' "$CELL_DIR/config-check.txt" | tr '\n' ' ')"
	fi
	record_stage "$CELL_DIR" configure ok "$(seconds_since "$t0")" "$(cat "$CELL_DIR/config-check.txt")"
}

stage_kernel() {
	local t0 image jobs key skip cpu0 cpu1
	t0=$(date +%s.%N)
	need_tools make "${CELL[cross_compile]}gcc" ccache bc flex bison
	[ -f "$NMX_OUT/.config" ] || fail_infra kernel 0 "no .config: run the configure stage"
	# --make-jobs: the user's, or what matrix.sh leaves the build when
	# boots run beside it.
	jobs=${MAKE_JOBS:-$(($(nproc) + 1))}
	if [ -n "$DISTCC" ]; then
		need_tools distcc
		# As many jobs as the hosts take, if that is more.
		[ "$(distcc -j)" -le "$jobs" ] || jobs=$(distcc -j)
	fi
	# One kernel build at a time on this machine, whoever starts it.
	mkdir -p "$NMX_CACHE"
	image=$NMX_OUT/${CELL[kernel_image]}
	key=$(stage_key) ||
		fail_infra kernel 0 "cannot make the stage's key (nmx stage-key)"
	children_cpu_seconds cpu0
	if [ -f "$image" ] && [ -d "$NMX_OUT/nmx-headers/include" ] &&
		[ "$(cat "$NMX_OUT/.nmx-kernel.key" 2>/dev/null)" = "$key" ]; then
		echo "kernel: inputs unchanged (key $key): ${CELL[kernel_image]} kept" >>"$LOG"
		kmake --skip -j"$jobs" "${TARGETS[@]}"
		kmake --skip -j"$jobs" headers_install INSTALL_HDR_PATH="$NMX_OUT/nmx-headers"
	elif ! (
		rm -f "$NMX_OUT/.nmx-kernel.key"
		# Kbuild does not remake the built-in initramfs when only the
		# build timestamp (its files' mtime) changed: make it again.
		rm -f "$NMX_OUT/usr/initramfs_data.cpio"
		flock 9
		kmake -j"$jobs" "${TARGETS[@]}" &&
			kmake -j"$jobs" headers_install INSTALL_HDR_PATH="$NMX_OUT/nmx-headers"
	) 9>"$NMX_CACHE/build.lock" >>"$LOG" 2>&1; then
		fail kernel "$(seconds_since "$t0")" "$(grep -m1 -E 'error:|Error [0-9]' "$LOG" || echo 'make failed (see build.log)')"
	fi
	[ -f "$image" ] || fail kernel "$(seconds_since "$t0")" "no ${CELL[kernel_image]} after make"
	echo "$key" >"$NMX_OUT/.nmx-kernel.key"
	children_cpu_seconds cpu1
	record_meta "$CELL_DIR" kernel_cpu_seconds \
		"$(awk -v now="$cpu1" -v then="$cpu0" 'BEGIN { printf "%.1f", now - then }')"
	if [ -n "${CELL[uimage_load]}" ]; then
		need_tools mkimage
		skip=()
		[ "$NMX_OUT/uImage" -nt "$image" ] && skip=(--skip)
		# mkimage stamps the time of creation: fix it (SOURCE_DATE_EPOCH)
		# so the same zImage gives the same uImage. Its architecture
		# names are Kbuild's (arm, arm64, riscv, x86).
		recorded "${skip[@]}" "$CELL_DIR" SOURCE_DATE_EPOCH="$SOURCE_EPOCH" \
			mkimage -A "${CELL[arch]}" -O linux -T kernel -C none \
			-a "${CELL[uimage_load]}" -e "${CELL[uimage_load]}" -n "notrace-matrix ${CELL[cell]}" \
			-d "$image" "$NMX_OUT/uImage" >>"$LOG" 2>&1 ||
			fail kernel "$(seconds_since "$t0")" "mkimage failed"
	fi
	if [ -n "${CELL[dtb]}" ] && [ ! -f "$NMX_OUT/${CELL[dtb]}" ]; then
		fail kernel "$(seconds_since "$t0")" "no ${CELL[dtb]} after make"
	fi
	record_meta "$CELL_DIR" kernel_image_bytes "$(stat -c %s "$image")"
	record_meta "$CELL_DIR" vmlinux_bytes "$(stat -c %s "$NMX_OUT/vmlinux")"
	record_stage "$CELL_DIR" kernel ok "$(seconds_since "$t0")" "${CELL[kernel_image]}"
}

stage_guest() {
	local t0 dir=$NMX_OUT/nmx-guest cc="${CELL[cross_compile]}gcc"
	local -a cmd skip
	t0=$(date +%s.%N)
	[ -d "$NMX_OUT/nmx-headers/include" ] ||
		fail_infra guest 0 "no kernel headers: run the kernel stage"
	mkdir -p "$dir"
	# The cell's facts, one generated header, so the guest can check it
	# runs where the cell claims.
	recorded --stdout "$dir/cell.h" "$CELL_DIR" "$NMX_BIN" \
		guest-header --described "${CELL[facts]}" --src "$NMX_SRC" ||
		fail_infra guest "$(seconds_since "$t0")" "cannot write the cell's guest header"
	# PID 1: freestanding, static, the tree's own nolibc.
	cmd=("$cc" -Os -static -nostdlib -ffreestanding -fno-builtin -fno-stack-protector
		-fno-asynchronous-unwind-tables -Wall -Wextra -Wno-unused-parameter
		"${GUEST_CFLAGS[@]}"
		-include "$NMX_SRC/tools/include/nolibc/nolibc.h"
		-include "$dir/cell.h"
		-I "$NMX_SRC/tools/include/nolibc" -I "$NMX_OUT/nmx-headers/include"
		-I "$NMX_TOP/guest"
		-o "$dir/init" "$NMX_TOP/guest/init.c" -lgcc)
	recorded "$CELL_DIR" "${cmd[@]}" >>"$LOG" 2>&1 ||
		fail guest "$(seconds_since "$t0")" "guest init does not compile (see build.log)"
	record_meta "$CELL_DIR" guest_init "$(file -b "$dir/init")"
	record_meta "$CELL_DIR" guest_busybox "${CELL[busybox]:-none (C suite only)}"

	# The kernel's own cpio writer: device nodes without root or fakeroot.
	skip=(--skip)
	if [ ! -x "$dir/gen_init_cpio" ] || [ "$NMX_SRC/usr/gen_init_cpio.c" -nt "$dir/gen_init_cpio" ]; then
		skip=()
	fi
	recorded "${skip[@]}" "$CELL_DIR" gcc -O2 -o "$dir/gen_init_cpio" \
		"$NMX_SRC/usr/gen_init_cpio.c" >>"$LOG" 2>&1 ||
		fail_infra guest "$(seconds_since "$t0")" "cannot build usr/gen_init_cpio"
	cat >"$dir/initramfs.list" <<-EOF
		dir /dev 0755 0 0
		nod /dev/console 0600 0 0 c 5 1
		nod /dev/zero 0666 0 0 c 1 5
		nod /dev/null 0666 0 0 c 1 3
		file /init $dir/init 0755 0 0
	EOF
	if [ -n "${CELL[busybox]}" ]; then
		busybox_files >>"$dir/initramfs.list" ||
			fail_infra guest "$(seconds_since "$t0")" "no busybox-static:${CELL[busybox]} (see build.log)"
	fi
	printf '# %s is written by build.sh (the guest and its files)\n' \
		"$dir/initramfs.list" >>"$CELL_DIR/reproduce.sh"
	# gen_init_cpio stores each file's mtime: the tarball's, for all.
	recorded "$CELL_DIR" find "$dir" ! -name gen_init_cpio -exec touch -h -d "@$SOURCE_EPOCH" '{}' + >>"$LOG" 2>&1 ||
		fail_infra guest "$(seconds_since "$t0")" "cannot set the guest files' times"
	recorded --stdout "$dir/initramfs.cpio" "$CELL_DIR" "$dir/gen_init_cpio" \
		-t "$SOURCE_EPOCH" "$dir/initramfs.list" 2>>"$LOG" ||
		fail_infra guest "$(seconds_since "$t0")" "gen_init_cpio failed"
	record_meta "$CELL_DIR" initramfs_bytes "$(stat -c %s "$dir/initramfs.cpio")"
	record_stage "$CELL_DIR" guest ok "$(seconds_since "$t0")" "$(file -b "$dir/init" | cut -d, -f1-3)"
}

# Debian's static busybox for the guest's architecture, from the package
# (install-deps.sh adds the foreign architecture), kept in the cache.
fetch_busybox() {
	local dest=$NMX_CACHE/busybox/${CELL[busybox]} tmp
	[ -x "$dest/bin/busybox" ] && return 0
	tmp=$(mktemp -d)
	(cd "$tmp" && apt-get download "busybox-static:${CELL[busybox]}") >>"$LOG" 2>&1 &&
		dpkg-deb -x "$tmp"/busybox-static_*.deb "$tmp/root" &&
		mkdir -p "$dest/bin" &&
		cp "$tmp/root/bin/busybox" "$dest/bin/busybox"
	local rc=$?
	rm -rf "$tmp"
	return "$rc"
}

# gen_init_cpio lines for busybox and the tree's ftracetest.
busybox_files() {
	local ft=$NMX_OUT/nmx-guest/ftrace path rel
	fetch_busybox || return 1
	# Copies inside the guest's directory, whose file times are fixed.
	rm -rf "$ft" "$NMX_OUT/nmx-guest/busybox"
	recorded "$CELL_DIR" cp -r "$NMX_SRC/tools/testing/selftests/ftrace" "$ft" >&2 || return 1
	recorded "$CELL_DIR" cp "$NMX_CACHE/busybox/${CELL[busybox]}/bin/busybox" \
		"$NMX_OUT/nmx-guest/busybox" >&2 || return 1
	printf 'dir /bin 0755 0 0\n'
	printf 'file /bin/busybox %s 0755 0 0\n' "$NMX_OUT/nmx-guest/busybox"
	printf 'slink /bin/sh busybox 0777 0 0\n'
	printf 'dir /ftrace 0755 0 0\n'
	while read -r path; do
		rel=${path#"$ft"/}
		if [ -d "$path" ]; then
			printf 'dir /ftrace/%s 0755 0 0\n' "$rel"
		else
			printf 'file /ftrace/%s %s %s 0 0\n' "$rel" "$path" "$(stat -c %a "$path")"
		fi
	done < <(find "$ft" -mindepth 1 | sort)
}

record_environment() {
	record_meta "$CELL_DIR" cell "${CELL[cell]}"
	record_meta "$CELL_DIR" tree "${CELL[tree]}"
	record_meta "$CELL_DIR" variant "${CELL[variant]}"
	record_meta "$CELL_DIR" description "${CELL[description]}"
	record_meta "$CELL_DIR" kbuild_arch "${CELL[arch]}"
	record_meta "$CELL_DIR" tree_package "${CELL[tree_package]:-local checkout} $PKG_VERSION${CELL[tree_suite]:+ (Debian ${CELL[tree_suite]})}"
	record_meta "$CELL_DIR" compiler "$("${CELL[cross_compile]}gcc" --version 2>/dev/null | head -n 1)"
	record_meta "$CELL_DIR" series "$(variant_patches | xargs -r -n1 basename | paste -sd' ' -)"
	record_meta "$CELL_DIR" series_subjects "$(variant_patches | while read -r p; do patch_subject "$p"; done | paste -sd'|' -)"
	record_patchset
	if [ -n "${CELL[tree_source]}" ] && git -C "${CELL[tree_source]}" rev-parse -q --verify 'HEAD^{commit}' >/dev/null 2>&1; then
		record_meta "$CELL_DIR" git_commit_hash "$(git -C "${CELL[tree_source]}" rev-parse 'HEAD^{commit}')"
		record_meta "$CELL_DIR" git_repository_url "$(git -C "${CELL[tree_source]}" remote get-url origin 2>/dev/null || true)"
		record_meta "$CELL_DIR" git_uncommitted_changes "$(git --no-optional-locks -C "${CELL[tree_source]}" status --porcelain | wc -l)"
	fi
}

# What was applied on the tree, for KCIDB's checkout: each patch copied
# into the cell's patchset/ under its place in the order (a maintainer's
# 0001-*.patch and the series' own 0001-* do not collide), and the hash
# KCIDB defines: sha256 over the newline-terminated sha256 of each patch.
record_patchset() {
	local p n=0 list=()
	rm -rf "$CELL_DIR/patchset"
	mkdir -p "$CELL_DIR/patchset"
	while read -r p; do
		n=$((n + 1))
		list+=("$(printf '%02d-%s' "$n" "$(basename "$p")")")
		cp "$p" "$CELL_DIR/patchset/${list[-1]}"
	done < <(variant_patches)
	record_meta "$CELL_DIR" patchset_files "${list[*]}"
	if [ "$n" -eq 0 ]; then
		record_meta "$CELL_DIR" patchset_hash ""
	else
		record_meta "$CELL_DIR" patchset_hash "$(cd "$CELL_DIR/patchset" &&
			sha256sum "${list[@]}" | cut -c-64 | sha256sum | cut -c-64)"
	fi
}

# The build's stages in the order they run (STAGES), and the status each
# one's own work fails with (FAILS_AS): nmx's table of stages.
load_stages() {
	local name fails_as
	STAGES=()
	declare -gA FAILS_AS=()
	while IFS=$'\t' read -r name _ fails_as _; do
		STAGES+=("$name")
		FAILS_AS[$name]=$fails_as
	done < <(nmx stages --run-by build.sh)
	[ "${#STAGES[@]}" -gt 0 ]
}

main() {
	local stage=all last patches
	CELL_DIR=
	MAKE_JOBS=
	DISTCC=
	while [ $# -gt 0 ]; do
		case $1 in
		--stage) stage=$2; shift 2 ;;
		--cell-dir) CELL_DIR=$2; shift 2 ;;
		--make-jobs) MAKE_JOBS=$2; shift 2 ;;
		--distcc-hosts) DISTCC=$2; shift 2 ;;
		-h | --help) usage ;;
		-*) usage ;;
		*) break ;;
		esac
	done
	[ $# -eq 3 ] || usage
	if ! load_stages; then
		err "cannot read the table of stages (nmx stages)"
		exit 2
	fi
	[ "$stage" = all ] || [ -n "${FAILS_AS[$stage]:-}" ] || usage
	load_cell "$CELL_DIR" "$1" "$2" "$3" || exit 2
	CELL_DIR=${CELL[dir]}
	mapfile -t TARGETS < <(cell_list make_targets)
	mapfile -t GUEST_CFLAGS < <(cell_list guest_cflags)
	TARBALL=${CELL[tree_tarball]}
	set_work_dirs
	[ -z "$DISTCC" ] || use_distcc "$DISTCC"
	LOG=$CELL_DIR/build.log
	if [ -n "${CELL[tree_source]}" ]; then
		PKG_VERSION="${CELL[tree_version]}, ${CELL[tree_source]}: $(local_state), the series of ${CELL[series_of]}"
		PRISTINE=$NMX_CACHE/src/local-$(local_key)
	elif [ -n "${CELL[tree_suite]}" ]; then
		# Another suite's package, in the cache (downloaded the first time).
		local pkg_dir
		pkg_dir=$(suite_package_dir "${CELL[tree_suite]}" "${CELL[tree_package]}")
		if [ ! -s "$pkg_dir/VERSION" ]; then
			"$NMX_TOP/scripts/fetch-deb.sh" "${CELL[tree_suite]}" "${CELL[tree_package]}" >>"$LOG" 2>&1 ||
				fail_infra prepare 0 "${CELL[tree_package]} not fetched from Debian ${CELL[tree_suite]}: $(tail -n 1 "$LOG")"
		fi
		TARBALL=$pkg_dir/root$TARBALL
		PKG_VERSION=$(cat "$pkg_dir/VERSION")
		PRISTINE=$NMX_CACHE/src/${CELL[tree_package]}_$PKG_VERSION
	else
		PKG_VERSION=$(dpkg-query -W -f='${Version}' "${CELL[tree_package]}" 2>/dev/null || echo unknown)
		PRISTINE=$NMX_CACHE/src/${CELL[tree_package]}_$PKG_VERSION
	fi
	patches=$(nmx series list --described "${CELL[facts]}") ||
		fail_infra prepare 0 "cannot read the variant's series (nmx series list)"
	PATCHES=()
	[ -z "$patches" ] || mapfile -t PATCHES <<<"$patches"
	# The tarball's time, for everything that stamps its output: Kbuild
	# (the banner, and the built-in initramfs, whose gen_initramfs.sh
	# needs a date it can parse), mkimage, the guest's initramfs. Fixed,
	# so an unchanged tree rebuilds nothing, ccache hits, and a replay of
	# reproduce.sh gives the same bytes.
	SOURCE_EPOCH=$(stat -c %Y "${CELL[tree_source]:+${CELL[tree_source]}/Makefile}${TARBALL}" 2>/dev/null || echo 0)
	BUILD_TIMESTAMP=$(date -u -d "@$SOURCE_EPOCH" '+%Y-%m-%d %H:%M:%S UTC')
	install_kbuild_cc || fail_infra prepare 0 "cannot install $NMX_CACHE/bin/kbuild-cc"
	set_kmake_vars
	if [ "$stage" = all ]; then
		record_environment
		for STAGE in "${STAGES[@]}"; do
			last=$(last_seconds "${CELL[tree]}" "${CELL[variant]}" "${CELL[cell]}" "$STAGE")
			progress "${CELL[cell]} (${CELL[tree]}-${CELL[variant]}): $STAGE${last:+ (last run: ${last} s)}"
			"stage_$STAGE"
		done
		progress "${CELL[cell]} (${CELL[tree]}-${CELL[variant]}): built: $(nmx stage-seconds --cell-dir "$CELL_DIR")"
	else
		STAGE=$stage
		"stage_$STAGE"
	fi
}

main "$@"
