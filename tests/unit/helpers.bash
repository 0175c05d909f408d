# shellcheck shell=bash
# Shared by the unit tests: where things are, and a scratch directory.
TESTS_DIR=$(cd "$(dirname "${BATS_TEST_FILENAME}")/.." && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
# tests/run.sh points NMX_BIN at the ASan+UBSan build.
NMX=${NMX_BIN:-$TOP/tools/nmx/nmx}

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
