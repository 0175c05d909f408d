# shellcheck shell=bash
# Shared by the unit tests: where things are, and a scratch directory.
TESTS_DIR=$(cd "$(dirname "${BATS_TEST_FILENAME}")/.." && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
# tests/run.sh points NMX_BIN at the ASan+UBSan build, NMX_PLAIN_BIN at the
# plain one (scripts_under_test).
NMX=${NMX_BIN:-$TOP/tools/nmx/nmx}

# scripts_under_test: said at the top of a file whose tests are of the
# scripts around nmx (matrix.sh, build.sh, boot.sh on the fake tree), which
# call nmx dozens of times a test on data the tests wrote: there the plain
# build. A sanitized call maps ASan's shadow and ends with LeakSanitizer's
# scan, many times the page faults of a plain one, and a virtual machine
# can make page faults dear. The files that give nmx outside data (recorded
# logs and runs, hostile files, injected faults, a maintainer's mail) keep
# the sanitized build.
scripts_under_test() {
	if [ -n "${NMX_PLAIN_BIN:-}" ]; then
		NMX=$NMX_PLAIN_BIN
		export NMX_BIN=$NMX_PLAIN_BIN
	fi
}

# `run !` (negated checks that can fail) needs bats 1.5.
bats_require_minimum_version 1.5.0

nmx() {
	"$NMX" -m "$TOP/matrix.yaml" -a "$TOP/arches" "$@"
}

setup() {
	SCRATCH=$(mktemp -d)
}

teardown() {
	rm -rf "$SCRATCH"
}

# A matrix whose trees are the fake tree as a tarball, with a good and a
# bad series, and a cache of its own; the run covers CELLS (default fake).
setup_fake() { # [extra-kconfig [cells]]
	local fake=$TESTS_DIR/fake-tree
	tar -C "$fake" -cJf "$SCRATCH/linux-fake.tar.xz" linux-fake
	cat >"$SCRATCH/matrix.yaml" <<-YAML
		trees:
		  fake-good:
		    package: nmx-fake-package
		    tarball: $SCRATCH/linux-fake.tar.xz
		    series: $fake/series-good
		    variants: {upstream: {}}
		  fake-bad:
		    package: nmx-fake-package
		    tarball: $SCRATCH/linux-fake.tar.xz
		    series: $fake/series-bad
		    variants: {upstream: {}}
		run:
		  trees: [fake-good]
		  variants: [upstream]
		  cells: [${2:-fake}]
		  kconfig: [${1:-}]
	YAML
	export NMX_MATRIX=$SCRATCH/matrix.yaml NMX_ARCHES_DIR=$fake/arches
	export NMX_CACHE=$SCRATCH/cache
	CELL=$SCRATCH/cell
}

build() { # tree stage
	run "$TOP/build.sh" --stage "$2" --cell-dir "$CELL" "$1" upstream fake
}

# The bootable fake cell; the pristine tree boots into CONSOLE's log.
setup_boot() { # [console-log]
	setup_fake "" fakeboot
	if [ -n "${1:-}" ]; then
		cp -r "$TESTS_DIR/fake-tree/linux-fake" "$SCRATCH/linux-fake"
		echo "$1" >"$SCRATCH/linux-fake/CONSOLE"
		tar -C "$SCRATCH" -cJf "$SCRATCH/linux-fake.tar.xz" linux-fake
	fi
	export NMX_ARCHES_DIR=$TESTS_DIR/fake-tree/arches-boot
	export NMX_RESULTS=$SCRATCH/results
	export PATH=$TESTS_DIR/fake-tree/bin:$PATH
}

# A diff of CONSOLE from one recorded log to another.
console_diff() { # from to
	printf 'diff --git a/CONSOLE b/CONSOLE\n--- a/CONSOLE\n+++ b/CONSOLE\n@@ -1 +1 @@\n-%s\n+%s\n' "$1" "$2"
}

# The same change as a git format-patch mail.
console_mail() { # from to subject
	printf 'From 0000000000000000000000000000000000000000 Mon Sep 17 00:00:00 2001\n'
	printf 'From: A Maintainer <maintainer@example.org>\nDate: Fri, 4 Dec 2026 07:00:00 +0000\n'
	printf 'Subject: [PATCH] %s\n\nWhy this change.\n\nSigned-off-by: A Maintainer <maintainer@example.org>\n---\n' "$3"
	console_diff "$1" "$2"
	printf -- '-- \n2.39.5\n\n'
}

run_dir() {
	echo "$NMX_RESULTS/$(readlink "$NMX_RESULTS/latest")"
}
