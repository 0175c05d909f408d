# shellcheck shell=bash
# Shared by the unit tests: where things are, and a scratch directory.
TESTS_DIR=$(cd "$(dirname "${BATS_TEST_FILENAME}")/.." && pwd)
TOP=$(cd "$TESTS_DIR/.." && pwd)
NMX="$TOP/tools/nmx/nmx"

nmx() {
	"$NMX" -m "$TOP/matrix.yaml" -a "$TOP/arches" "$@"
}

setup() {
	SCRATCH=$(mktemp -d)
}

teardown() {
	rm -rf "$SCRATCH"
}
