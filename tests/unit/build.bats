#!/usr/bin/env bats
# build.sh's stages against a fake kernel tree (tests/fake-tree): no
# compiling, seconds per test. Checks the statuses and the evidence left
# in the cell directory.

load helpers
scripts_under_test

@test "prepare: the series applies onto a pristine git copy of the tarball" {
	setup_fake
	build fake-good prepare
	[ "$status" -eq 0 ]
	grep -q 'three lines, patched' "$NMX_CACHE/work/fake-good-upstream/src/README"
	grep -q "^prepare	ok	.*	1 patch(es) applied" "$CELL/stages.tsv"
	# The pristine copy stays pristine.
	grep -q '^It has three lines.$' "$NMX_CACHE"/src/nmx-fake-package_*/README
}

@test "prepare: a second run with the same series changes nothing" {
	setup_fake
	build fake-good prepare
	build fake-good prepare
	[ "$status" -eq 0 ]
	grep -q "series already applied" "$CELL/stages.tsv"
}

@test "prepare: a changed patch rewrites only the files it changes; the worktree's commits are the series" {
	setup_fake
	local series=$SCRATCH/series src=$NMX_CACHE/work/fake-good-upstream/src
	mkdir "$series"
	cp "$TESTS_DIR"/fake-tree/series-good/0001-*.patch "$series/"
	console_mail one two 'fake: Change the console' >"$series/0002-console.patch"
	printf '%s\n' 0001-fake-Patch-the-README.patch 0002-console.patch >"$series/series"
	sed -i "s|series: .*/series-good|series: $series|" "$NMX_MATRIX"
	cp -r "$TESTS_DIR/fake-tree/linux-fake" "$SCRATCH/linux-fake"
	echo one >"$SCRATCH/linux-fake/CONSOLE"
	tar -C "$SCRATCH" -cJf "$SCRATCH/linux-fake.tar.xz" linux-fake
	build fake-good prepare
	[ "$status" -eq 0 ]
	grep -qx two "$src/CONSOLE"
	touch -d @1000000000 "$src/README" "$src/CONSOLE"
	console_mail one three 'fake: Change the console' >"$series/0002-console.patch"
	build fake-good prepare
	[ "$status" -eq 0 ]
	grep -q "2 patch(es) applied" "$CELL/stages.tsv"
	grep -qx three "$src/CONSOLE"
	grep -q 'three lines, patched' "$src/README"
	# README's content did not change: make must not see it as new.
	[ "$(stat -c %Y "$src/README")" = 1000000000 ]
	[ "$(stat -c %Y "$src/CONSOLE")" != 1000000000 ]
	# One commit per patch, with the mail's subject and author.
	run git -C "$src" log --format='%s|%an' -2
	[ "${lines[0]}" = 'fake: Change the console|A Maintainer' ]
	[ "${lines[1]}" = 'fake: Patch the README|Seed 3389c98d maintainers' ]
	# The reproducer still replays it with git am.
	grep -q 'am -q .*0002-console.patch' "$CELL/reproduce.sh"
	# Configuring reads none of the changed files: the .config is kept.
	build fake-good configure
	console_mail one four 'fake: Change the console' >"$series/0002-console.patch"
	build fake-good prepare
	build fake-good configure
	[ "$status" -eq 0 ]
	grep -q 'configure: inputs unchanged' "$CELL/build.log"
}

@test "prepare: a patch that does not apply is PATCH_FAIL with the hunk in build.log" {
	setup_fake
	build fake-bad prepare
	[ "$status" -eq 1 ]
	grep -q "^prepare	PATCH_FAIL	.*0001-fake-A-patch-that-does-not-apply.patch does not apply" "$CELL/stages.tsv"
	grep -q 'does not apply; the rejected hunk' "$CELL/build.log"
	grep -q '^It has four lines.$' "$CELL/build.log"
	# The reproducer names the command that failed.
	grep -q 'git -C .* am .*0001-fake-A-patch-that-does-not-apply.patch' "$CELL/reproduce.sh"
}

@test "configure: every requested symbol survived" {
	setup_fake
	build fake-good prepare
	build fake-good configure
	[ "$status" -eq 0 ]
	grep -q '^CONFIG_FAKE_WANTED=y$' "$CELL/config"
	grep -q "^configure	ok	.*	all .* requested symbols present" "$CELL/stages.tsv"
}

@test "configure: a symbol that did not survive is CONFIG_FAIL, named, before compiling" {
	setup_fake CONFIG_FAKE_DROPPED_BY_KCONFIG=y
	build fake-good prepare
	build fake-good configure
	[ "$status" -eq 1 ]
	grep -q "^configure	CONFIG_FAIL	.*CONFIG_FAKE_DROPPED_BY_KCONFIG" "$CELL/stages.tsv"
	grep -q 'CONFIG_FAKE_DROPPED_BY_KCONFIG: requested y, final .config has it unset' "$CELL/config-check.txt"
}

@test "configure: refuses to run on an unprepared tree" {
	setup_fake
	build fake-good configure
	[ "$status" -eq 2 ]
	grep -q "^configure	INFRA_FAIL	.*not prepared" "$CELL/stages.tsv"
}

@test "kernel: the image is built, sizes recorded" {
	setup_fake
	build fake-good prepare
	build fake-good configure
	build fake-good kernel
	[ "$status" -eq 0 ]
	grep -q "^kernel	ok	" "$CELL/stages.tsv"
	grep -q "^kernel_image_bytes	" "$CELL/meta.tsv"
	# What the build used of the CPU: a run adds these up into its compile floor.
	grep -Eq "^kernel_cpu_seconds	[0-9]+(\.[0-9])?$" "$CELL/meta.tsv"
}

@test "kernel: a compiler error is BUILD_FAIL quoting the error" {
	setup_fake CONFIG_FAKE_BREAK_BUILD=y
	build fake-good prepare
	build fake-good configure
	build fake-good kernel
	[ "$status" -eq 1 ]
	grep -q "^kernel	BUILD_FAIL	.*init/fake.c:1:1: error: the fake build was asked to fail" "$CELL/stages.tsv"
}

@test "a missing tarball is INFRA_FAIL (exit 2) naming the package" {
	setup_fake
	sed -i "s|$SCRATCH/linux-fake.tar.xz|$SCRATCH/absent.tar.xz|" "$NMX_MATRIX"
	build fake-good prepare
	[ "$status" -eq 2 ]
	grep -q "INFRA_FAIL	0	.*absent.tar.xz missing (apt-get install nmx-fake-package)" "$CELL/stages.tsv"
}

@test "an unknown cell lists the valid ones" {
	setup_fake
	run "$TOP/build.sh" --cell-dir "$CELL" fake-good upstream nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown cell 'nosuch'; valid cells: fake"* ]]
}

@test "configure and kernel: an unchanged rerun keeps .config and the image; a change in the tree redoes them" {
	setup_fake
	build fake-good prepare
	build fake-good configure
	build fake-good kernel
	[ "$status" -eq 0 ]
	run ! grep -q 'inputs unchanged' "$CELL/build.log"
	build fake-good configure
	[ "$status" -eq 0 ]
	build fake-good kernel
	[ "$status" -eq 0 ]
	grep -q '^configure: inputs unchanged' "$CELL/build.log"
	grep -q '^kernel: inputs unchanged' "$CELL/build.log"
	# A local edit in the worktree changes the key: both stages run again.
	echo "edited" >>"$NMX_CACHE/work/fake-good-upstream/src/README"
	: >"$CELL/build.log"
	build fake-good configure
	build fake-good kernel
	[ "$status" -eq 0 ]
	run ! grep -q 'inputs unchanged' "$CELL/build.log"
}

@test "reproduce.sh is what ran: replayed in a clean shell, it rebuilds the same artifacts" {
	setup_fake
	build fake-good prepare
	build fake-good configure
	build fake-good kernel
	[ "$status" -eq 0 ]
	local out=$NMX_CACHE/work/fake-good-upstream/out/fake
	local -a artifacts=("$out/arch/fake/boot/fakeImage" "$out/.config"
		"$CELL/requested.config" "$CELL/config-check.txt")
	grep -q '^built .* by notrace-matrix@qemu #1$' "$out/arch/fake/boot/fakeImage"
	sha256sum "${artifacts[@]}" >"$SCRATCH/run.sha256"
	# Every command of the reproducer ran in the run, environment included.
	grep -q "^env CCACHE_DIR=.* CCACHE_BASEDIR=.* CCACHE_DEPEND=1 make -C .* CC=[^ ]*/bin/kbuild-cc\\\\ gcc .*KBUILD_BUILD_USER=notrace-matrix .*fakeImage" "$CELL/reproduce.sh"
	run ! grep -q 'record_command' "$CELL/reproduce.sh"
	rm -rf "$out" "$CELL/requested.config" "$CELL/config-check.txt"
	# A clean shell: no NMX_* or CCACHE_* variables, no git identity.
	mkdir "$SCRATCH/home"
	run env -i PATH="$PATH" HOME="$SCRATCH/home" bash --noprofile --norc -e "$CELL/reproduce.sh"
	[ "$status" -eq 0 ]
	sha256sum -c "$SCRATCH/run.sha256"
}

@test "reproduce.sh of a rerun that reused every stage still holds every command" {
	setup_fake
	build fake-good prepare
	build fake-good configure
	build fake-good kernel
	: >"$CELL/reproduce.sh"
	build fake-good prepare
	build fake-good configure
	build fake-good kernel
	[ "$status" -eq 0 ]
	grep -q 'inputs unchanged' "$CELL/build.log"
	grep -q ' am -q .*0001-fake-Patch-the-README.patch' "$CELL/reproduce.sh"
	grep -q ' make -C .* tinyconfig' "$CELL/reproduce.sh"
	grep -q 'merge_config.sh -m' "$CELL/reproduce.sh"
	grep -q ' make -C .* fakeImage' "$CELL/reproduce.sh"
}

@test "kbuild-cc: a source with .incbin is compiled directly, never from ccache; others through ccache" {
	mkdir -p "$SCRATCH/bin"
	# A ccache that says it was asked; a compiler that says it ran.
	printf '#!/bin/sh\necho "ccache $*"\n' >"$SCRATCH/bin/ccache"
	printf '#!/bin/sh\necho "cc $*"\n' >"$SCRATCH/bin/fakecc"
	chmod +x "$SCRATCH/bin/ccache" "$SCRATCH/bin/fakecc"
	printf '\t.section .piggydata, "a"\n\t.incbin "piggy_data"\n' >"$SCRATCH/piggy.S"
	printf 'int main(void) { return 0; }\n' >"$SCRATCH/main.c"
	PATH=$SCRATCH/bin:$PATH run "$TOP/scripts/kbuild-cc" fakecc -c -o piggy.o "$SCRATCH/piggy.S"
	[ "$output" = "cc -c -o piggy.o $SCRATCH/piggy.S" ]
	PATH=$SCRATCH/bin:$PATH run "$TOP/scripts/kbuild-cc" fakecc -c -o main.o "$SCRATCH/main.c"
	[ "$output" = "ccache fakecc -c -o main.o $SCRATCH/main.c" ]
}
