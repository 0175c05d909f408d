#!/usr/bin/env bash
# Regenerate the golden files under tests/golden/ from the current arches/
# and matrix.yaml, and those of the reports from tests/report/runs/. Review the diff: the unit tests fail on any drift.
set -euo pipefail

# Both run from the top of the repository, with relative paths, so that
# the golden files do not depend on where the checkout is.

# Each golden_* CELL [CELL_TSV]: the cell as arches/ and matrix.yaml have
# it, or as its run described it into CELL_TSV (--described, what build.sh
# and boot.sh pass): both must give the same file.

# golden_qemu CELL [CELL_TSV]: the QEMU command line, one argument per line.
golden_qemu() {
	local dtb=() sel=(--tree linux-6.12 --cell "$1")
	[ -z "${2:-}" ] || sel=(--described "$2")
	# A cell that boots with a device tree names it in its arch file.
	grep -q '^dtb:' "arches/$1.yaml" && dtb=(--dtb /build/cell.dtb)
	"$NMX" -m matrix.yaml -a arches qemu-cmd "${sel[@]}" \
		--kernel /build/kernel --initrd /build/initramfs.cpio "${dtb[@]}" \
		--accel tcg --log /results/boot.log | tr '\0' '\n'
}

golden_fragment() {
	local sel=(--tree linux-6.12 --cell "$1")
	[ -z "${2:-}" ] || sel=(--described "$2")
	"$NMX" -m matrix.yaml -a arches fragment "${sel[@]}" \
		--common kconfig/common.config -o /dev/stdout
}

golden_guest_header() {
	local sel=(--tree linux-6.1 --cell "$1")
	[ -z "${2:-}" ] || sel=(--described "$2")
	"$NMX" -m matrix.yaml -a arches guest-header "${sel[@]}"
}

# The cells whose generated files are pinned here: those with a golden
# QEMU command line (the tests iterate them, never a list). A new cell is
# its arch file alone; `tests/regen-golden.sh --pin CELL` pins it too.
# Every cell, pinned or not, goes through the generators in
# tests/unit/arch_data.bats.
golden_cells() {
	local f
	for f in tests/golden/qemu-cmd-*.txt; do
		f=${f#tests/golden/qemu-cmd-}
		echo "${f%.txt}"
	done
}

main() {
	local cell
	local -a cells
	TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
	NMX=$TOP/tools/nmx/nmx
	make -s -C "$TOP/tools/nmx"
	cd "$TOP"
	mapfile -t cells < <(golden_cells)
	if [ "${1:-}" = --pin ]; then
		[ -f "arches/${2:-}.yaml" ] || { echo "usage: $0 [--pin CELL]" >&2; exit 2; }
		cells+=("$2")
	fi
	for cell in "${cells[@]}"; do
		golden_qemu "$cell" >"tests/golden/qemu-cmd-$cell.txt"
		golden_fragment "$cell" >"tests/golden/fragment-$cell.config"
		golden_guest_header "$cell" >"tests/golden/guest-header-$cell.h"
	done
	# The reports of the recorded runs under tests/report/runs/.
	rm -rf tests/golden/report
	tests/report/make-outputs.sh tests/golden/report
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	main "$@"
fi
