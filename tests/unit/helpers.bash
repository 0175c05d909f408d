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
