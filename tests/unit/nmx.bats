#!/usr/bin/env bats
# shellcheck source-path=SCRIPTDIR
# regen-golden.sh (sourced below) sets NMX in its own main(); the tests use helpers.bash's.
# shellcheck disable=SC2031
# nmx's data handling: matrix.yaml and arches/ expansion, kconfig check,
# generated command lines (golden files), result.json and summary.

load helpers

@test "default run: four cells of each tree, the default variants each tree has, the newest tree first" {
	run nmx cells
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 16 ]
	[ "${lines[0]}" = "linux-6.12 upstream x86_64" ]
	[ "${lines[3]}" = "linux-6.12 upstream arm-be8" ]
	[ "${lines[7]}" = "linux-6.12 seed arm-be8" ]
	[ "${lines[8]}" = "linux-6.1 upstream x86_64" ]
	[ "${lines[11]}" = "linux-6.1 upstream arm-be8" ]
	[ "${lines[15]}" = "linux-6.1 seed arm-be8" ]
}

@test "deps --run: what a run's trees and cells need, not every cell's; without --run every cell's" {
	run "$NMX" deps --run
	[ "$status" -eq 0 ]
	grep -qx 'package linux-source-6.12' <<<"$output"
	grep -qx 'package gcc-arm-linux-gnueabi' <<<"$output"
	grep -qx 'busybox-arch armel' <<<"$output"
	# Nothing of the cells or trees outside the default run.
	run ! grep -E 's390x|sparc64|suite-package' <<<"$output"
	run "$NMX" deps --run --e2e
	[ "$status" -eq 0 ]
	grep -qx 'package gcc-s390x-linux-gnu' <<<"$output"
	grep -qx 'suite-package unstable linux-source-7.2' <<<"$output"
	run "$NMX" deps --run --cell x86_64 --tree linux-6.1
	[ "$status" -eq 0 ]
	[ "$(sort <<<"$output" | paste -sd' ')" = "busybox-arch amd64 package linux-source-6.1 package qemu-system-x86" ]
	run "$NMX" deps
	[ "$status" -eq 0 ]
	grep -qx 'package gcc-s390x-linux-gnu' <<<"$output"
	grep -qx 'package gcc-arm-linux-gnueabi' <<<"$output"
	# A selection without --run, or one naming no cell: exit 2.
	run "$NMX" deps --cell x86_64
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage: nmx deps [--run [SELECTION]]"* ]]
	run "$NMX" deps --run --cell nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown cell 'nosuch'"* ]]
}

@test "a variant outside the default run can be asked for, in every tree that has it" {
	run nmx cells --variant unfixed --cell arm64
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "linux-6.12 unfixed arm64" ]
	[ "${lines[1]}" = "linux-6.1 unfixed arm64" ]
	[ "${#lines[@]}" -eq 2 ]
}

@test "a variant some trees lack runs in the others; a tree named with it is an error" {
	# linux-6.12 as it was before its seed variant.
	sed '/^  linux-6.12:/,/^run:/{/^      seed:/,/^        skip_patches: \[\]/d}' \
		"$TOP/matrix.yaml" >"$SCRATCH/matrix.yaml"
	run "$NMX" -m "$SCRATCH/matrix.yaml" -a "$TOP/arches" cells --variant seed --cell arm64
	[ "$status" -eq 0 ]
	[ "$output" = "linux-6.1 seed arm64" ]
	run "$NMX" -m "$SCRATCH/matrix.yaml" -a "$TOP/arches" cells --tree linux-6.12 --variant seed
	[ "$status" -eq 2 ]
	[[ "$output" == *"tree linux-6.12 has no variant 'seed'"* ]]
}

@test "an unknown cell lists the valid ones (exit 2)" {
	run nmx cells --cell mips
	[ "$status" -eq 2 ]
	# Every file under arches/, in order.
	[[ "$output" == *"unknown cell 'mips'; valid cells: $(find "$TOP/arches" -name '*.yaml' -printf '%f\n' | LC_ALL=C sort | sed 's/\.yaml$//' | tr '\n' ' ' | sed 's/ $//')"* ]]
}

@test "a path is not a cell name" {
	run nmx cells --cell ../matrix
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown cell '../matrix'"* ]]
}

@test "an unknown variant is refused" {
	run nmx cells --variant nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"no tree selected has variant 'nosuch'"* ]]
}

# arch_of TREE VARIANT CELL: the cell's Kbuild ARCH, as nmx resolves it.
arch_of() {
	nmx describe --tree "$1" --variant "$2" --cell "$3" | sed -n 's/^arch\t//p'
}

# quarantine_of TREE VARIANT CELL: why the cell is kept out of the end-to-end set, or nothing.
quarantine_of() {
	nmx describe --tree "$1" --variant "$2" --cell "$3" | sed -n 's/^quarantine\t//p'
}

@test "--set e2e: the end-to-end test builds every architecture under arches/, every tree, both variants" {
	run nmx cells --set e2e
	[ "$status" -eq 0 ]
	local line all=() covered=() tree
	while read -r line; do
		# A cell in quarantine says why, and is not in the set.
		# shellcheck disable=SC2086 # TREE VARIANT CELL
		if [ -n "$(quarantine_of $line)" ]; then
			if printf '%s\n' "${lines[@]}" | grep -q " ${line##* }\$"; then
				echo "${line##* } is in quarantine and in the end-to-end set" >&2
				return 1
			fi
			continue
		fi
		# shellcheck disable=SC2086
		all+=("$(arch_of $line)")
	done < <(nmx cells --set all)
	for line in "${lines[@]}"; do
		# shellcheck disable=SC2086
		covered+=("$(arch_of $line)")
	done
	[ "$(printf '%s\n' "${all[@]}" | sort -u)" = "$(printf '%s\n' "${covered[@]}" | sort -u)" ]
	for tree in $(nmx cells --set all | awk '{ print $1 }' | sort -u); do
		printf '%s\n' "${lines[@]}" | grep -q "^$tree "
	done
	printf '%s\n' "${lines[@]}" | grep -q ' upstream '
	printf '%s\n' "${lines[@]}" | grep -q ' seed '
	# --e2e is its short name.
	[ "$(nmx cells --e2e)" = "$output" ]
}

@test "--set all: every cell on every tree and variant of the run, none twice" {
	run nmx cells --set all
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | sort -u | wc -l)" -eq "${#lines[@]}" ]
	# At least as many as the cells times one tree and the run's variants.
	[ "${#lines[@]}" -ge $(($(find "$TOP/arches" -name '*.yaml' | wc -l) * 2)) ]
	printf '%s\n' "${lines[@]}" | grep -q '^linux-6.1 seed '
	printf '%s\n' "${lines[@]}" | grep -q '^linux-6.12 upstream '
}

# A copy of arches/ whose arm64 guest needs a kernel newer than 6.1.
arches_arm64_from_6_12() {
	cp -r "$TOP/arches" "$SCRATCH/arches"
	sed -i 's/^  busybox: arm64$/  min_kernel: "6.12"\n  busybox: arm64/' "$SCRATCH/arches/arm64.yaml"
}

@test "guest.min_kernel: a cell is left out of older trees, and asking for it there is an error" {
	arches_arm64_from_6_12
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" cells --cell arm64
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'linux-6.12 upstream arm64\nlinux-6.12 seed arm64')" ]
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" cells --set all
	[ "$status" -eq 0 ]
	run grep -cx 'linux-6.1 [a-z]* arm64' <<<"$output"
	[ "$output" = 0 ]
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" cells --tree linux-6.1 --cell arm64
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell arm64 builds on kernels 6.12 to any (guest.min_kernel, guest.max_kernel in its arch file); tree linux-6.1 is 6.1"* ]]
	sed -i 's/min_kernel: "6.12"/min_kernel: "six"/' "$SCRATCH/arches/arm64.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" cells --cell arm64
	[ "$status" -eq 2 ]
	[[ "$output" == *"arm64.yaml:"*"guest.min_kernel is a kernel version such as \"6.12\", not 'six'"* ]]
}

@test "guest.max_kernel: arm64-be (BROKEN from 7.2) is left out of linux-7.2, and asking for it there is an error" {
	run nmx cells --set all
	[ "$status" -eq 0 ]
	run nmx cells --tree linux-7.2 --variant upstream
	[ "$status" -eq 0 ]
	[[ "$output" == *"linux-7.2 upstream arm64"* ]]
	[[ "$output" != *"arm64-be"* ]]
	run nmx cells --tree linux-6.12 --variant upstream --cell arm64-be
	[ "$output" = "linux-6.12 upstream arm64-be" ]
	run nmx cells --tree linux-7.2 --cell arm64-be
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell arm64-be builds on kernels any to 6.12 (guest.min_kernel, guest.max_kernel in its arch file); tree linux-7.2 is 7.2"* ]]
	cp -r "$TOP/arches" "$SCRATCH/arches"
	sed -i 's/max_kernel: "6.12"/max_kernel: latest/' "$SCRATCH/arches/arm64-be.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" cells --set all
	[ "$status" -eq 2 ]
	[[ "$output" == *"arm64-be.yaml:"*"guest.max_kernel is a kernel version such as \"6.12\", not 'latest'"* ]]
}

@test "kconfig_since: symbols asked for from a kernel version on; the fragment needs --tree then" {
	cp -r "$TOP/arches" "$SCRATCH/arches"
	printf 'kconfig_since:\n  "6.12": [CONFIG_NMX_NEW_SYMBOL=y]\n' >>"$SCRATCH/arches/arm64.yaml"
	local f=(-m "$TOP/matrix.yaml" -a "$SCRATCH/arches" fragment --cell arm64
		--common "$TOP/kconfig/common.config" -o "$SCRATCH/f")
	run "$NMX" "${f[@]}" --tree linux-6.12
	[ "$status" -eq 0 ]
	grep -qx 'CONFIG_NMX_NEW_SYMBOL=y' "$SCRATCH/f"
	run "$NMX" "${f[@]}" --tree linux-6.1
	[ "$status" -eq 0 ]
	run grep -c NMX_NEW_SYMBOL "$SCRATCH/f"
	[ "$output" = 0 ]
	run "$NMX" "${f[@]}"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell arm64 asks for symbols by kernel version (kconfig_since): give --tree"* ]]
	printf '  "6.13": [NMX_NEW_SYMBOL]\n' >>"$SCRATCH/arches/arm64.yaml"
	run "$NMX" "${f[@]}" --tree linux-6.12
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad kconfig entry 'NMX_NEW_SYMBOL'"* ]]
}

@test "--set: an unknown set lists the sets; a set with --tree/--variant/--cell is refused" {
	run nmx cells --set nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"no set 'nosuch' in matrix.yaml; its sets: all e2e debug"* ]]
	run nmx cells --set all --cell arm64
	[ "$status" -eq 2 ]
	[[ "$output" == *"--set all chooses trees, variants and cells itself"* ]]
}

@test "matrix.yaml: a set naming an unknown tree, cell or key is an error with its line" {
	cp "$TOP/matrix.yaml" "$SCRATCH/matrix.yaml"
	printf '  broken:\n    - trees: [linux-9.9]\n' >>"$SCRATCH/matrix.yaml"
	run "$NMX" -m "$SCRATCH/matrix.yaml" -a "$TOP/arches" cells
	[ "$status" -eq 2 ]
	[[ "$output" == *"matrix.yaml:"*": set broken names unknown tree 'linux-9.9'"* ]]
	cp "$TOP/matrix.yaml" "$SCRATCH/matrix.yaml"
	printf '  broken:\n    - cells: [mips]\n' >>"$SCRATCH/matrix.yaml"
	run "$NMX" -m "$SCRATCH/matrix.yaml" -a "$TOP/arches" cells
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown cell 'mips'"* ]]
	cp "$TOP/matrix.yaml" "$SCRATCH/matrix.yaml"
	printf '  broken:\n    - cell: [arm64]\n' >>"$SCRATCH/matrix.yaml"
	run "$NMX" -m "$SCRATCH/matrix.yaml" -a "$TOP/arches" cells
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown key 'cell' in a set's group"* ]]
}

@test "matrix.yaml: a misspelt key is an error with its line" {
	run "$NMX" -m "$TESTS_DIR/matrix/unknown-key.yaml" -a "$TOP/arches" cells
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown-key.yaml:12: unknown key 'boot_timeuot' in run"* ]]
}

@test "matrix.yaml: a cell without an arch file is an error" {
	run "$NMX" -m "$TESTS_DIR/matrix/unknown-cell.yaml" -a "$TOP/arches" cells
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown cell 'mips'"* ]]
}

@test "matrix.yaml: broken YAML is reported with line and column" {
	run "$NMX" -m "$TESTS_DIR/matrix/broken.yaml" -a "$TOP/arches" cells
	[ "$status" -eq 2 ]
	[[ "$output" == *"broken.yaml:2:1: "* ]]
}

# nmx describe on a copy of arches/ whose arm64.yaml a sed expression broke.
env_with_broken_arm64() { # sed-expression
	cp -r "$TOP/arches" "$SCRATCH/arches"
	sed -i "$1" "$SCRATCH/arches/arm64.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" describe \
		--tree linux-6.1 --variant upstream --cell arm64
}

@test "arch file: a misspelt key is an error, not silently ignored" {
	env_with_broken_arm64 's/^kernel_image:/kernel_imgae:/'
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown key 'kernel_imgae' in the cell"* ]]
}

@test "arch file: a bad kconfig entry is refused" {
	env_with_broken_arm64 's/- CONFIG_SERIAL_AMBA_PL011=y/- SERIAL_AMBA_PL011/'
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad kconfig entry 'SERIAL_AMBA_PL011'"* ]]
}

@test "describe: each item of a list a line of its own (BE8 link flag)" {
	run nmx describe --tree linux-6.1 --variant upstream --cell arm-be8
	[ "$status" -eq 0 ]
	[ "$(sed -n 's/^guest_cflags\[\]\t//p' <<<"$output" | sed -n 4p)" = "-Wl,--be8" ]
	# Its kernel is wrapped for U-Boot at boot (qemu.uboot), not at build.
	grep -qx $'uimage_load\t' <<<"$output"
	grep -qx $'uboot_kernel_load\t0x40008000' <<<"$output"
	# The guest's facts too: guest-header reads them from the description.
	grep -qx $'big_endian\t1' <<<"$output"
	printf '%s\n' "$output" >"$SCRATCH/cell.tsv"
	run nmx guest-header --described "$SCRATCH/cell.tsv"
	[[ "$output" == *"#define NMX_BIG_ENDIAN 1"* ]]
}

@test "config-check: everything survived" {
	run "$NMX" config-check "$TESTS_DIR/kconfig/requested.config" "$TESTS_DIR/kconfig/survived.config"
	[ "$status" -eq 0 ]
	[ "$output" = "all 6 requested symbols present" ]
}

@test "config-check: each dropped or changed symbol is named" {
	run "$NMX" config-check "$TESTS_DIR/kconfig/requested.config" "$TESTS_DIR/kconfig/dropped.config"
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "CONFIG_FUNCTION_GRAPH_TRACER: requested y, final .config has it unset" ]
	[ "${lines[1]}" = "CONFIG_DYNAMIC_FTRACE: requested y, final .config has it unset" ]
	[ "${lines[2]}" = "CONFIG_THUMB2_KERNEL: requested n, final .config has y" ]
	[ "${lines[3]}" = "CONFIG_LOG_BUF_SHIFT: requested 14, final .config has 17" ]
	[ "${lines[4]}" = "4 of 6 requested symbol(s) did not survive olddefconfig" ]
}

@test "golden: QEMU command lines of every cell" {
	# shellcheck source=../regen-golden.sh
	source "$TESTS_DIR/regen-golden.sh"
	cd "$TOP"
	[ "$(golden_cells | wc -l)" -ge 4 ]
	for cell in $(golden_cells); do
		golden_qemu "$cell" >"$SCRATCH/q"
		diff -u "$TESTS_DIR/golden/qemu-cmd-$cell.txt" "$SCRATCH/q"
	done
}

@test "golden: requested kconfig of every cell" {
	# shellcheck source=../regen-golden.sh
	source "$TESTS_DIR/regen-golden.sh"
	cd "$TOP"
	for cell in $(golden_cells); do
		golden_fragment "$cell" >"$SCRATCH/f"
		diff -u "$TESTS_DIR/golden/fragment-$cell.config" "$SCRATCH/f"
	done
}

@test "golden: the guest's header of cell facts, every cell" {
	# shellcheck source=../regen-golden.sh
	source "$TESTS_DIR/regen-golden.sh"
	cd "$TOP"
	for cell in $(golden_cells); do
		golden_guest_header "$cell" >"$SCRATCH/h"
		diff -u "$TESTS_DIR/golden/guest-header-$cell.h" "$SCRATCH/h"
	done
}

@test "golden: the steps read a cell as its run described it (cell.tsv), to the same files" {
	# shellcheck source=../regen-golden.sh
	source "$TESTS_DIR/regen-golden.sh"
	cd "$TOP"
	for cell in $(golden_cells); do
		# The golden fragment names no variant: upstream adds no symbols.
		# Relative paths, as the golden files have them.
		"$NMX" -m matrix.yaml -a arches describe --tree linux-6.12 --variant upstream \
			--cell "$cell" >"$SCRATCH/6.12.tsv"
		"$NMX" -m matrix.yaml -a arches describe --tree linux-6.1 --variant upstream \
			--cell "$cell" >"$SCRATCH/6.1.tsv"
		golden_qemu "$cell" "$SCRATCH/6.12.tsv" >"$SCRATCH/q"
		diff -u "$TESTS_DIR/golden/qemu-cmd-$cell.txt" "$SCRATCH/q"
		golden_fragment "$cell" "$SCRATCH/6.12.tsv" >"$SCRATCH/f"
		diff -u "$TESTS_DIR/golden/fragment-$cell.config" "$SCRATCH/f"
		golden_guest_header "$cell" "$SCRATCH/6.1.tsv" >"$SCRATCH/h"
		diff -u "$TESTS_DIR/golden/guest-header-$cell.h" "$SCRATCH/h"
	done
	# The description is what they read: not the arch file again.
	nmx describe --tree linux-6.12 --variant upstream --cell arm64 >"$SCRATCH/c.tsv"
	sed -i 's/^console\t.*/console\tttyXYZ0/' "$SCRATCH/c.tsv"
	run nmx uboot-bootcmd --described "$SCRATCH/c.tsv"
	[[ "$output" == *"console=ttyXYZ0 "* ]]
}

@test "--described: a cell.tsv that is not one is refused with its line; not beside --cell" {
	nmx describe --tree linux-6.12 --variant upstream --cell arm64 >"$SCRATCH/c.tsv"
	run nmx qemu-cmd --described "$SCRATCH/c.tsv" --cell arm64 --kernel k --initrd i --log l
	[ "$status" -eq 2 ]
	[[ "$output" == *"not with --cell, --tree or --variant"* ]]
	{ cat "$SCRATCH/c.tsv"; printf 'colour\tblue\n'; } >"$SCRATCH/bad.tsv"
	run nmx guest-header --described "$SCRATCH/bad.tsv"
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad.tsv:$(($(wc -l <"$SCRATCH/c.tsv") + 1)): not a fact of a cell: 'colour'"* ]]
	grep -v '^console' "$SCRATCH/c.tsv" >"$SCRATCH/bad.tsv"
	run nmx uboot-bootcmd --described "$SCRATCH/bad.tsv"
	[ "$status" -eq 2 ]
	[[ "$output" == *"bad.tsv: no console"* ]]
	sed 's/^boot_alone\t0/boot_alone\tno/' "$SCRATCH/c.tsv" >"$SCRATCH/bad.tsv"
	run nmx uboot-bootcmd --described "$SCRATCH/bad.tsv"
	[ "$status" -eq 2 ]
	[[ "$output" == *"boot_alone is a number, not 'no'"* ]]
	{ cat "$SCRATCH/c.tsv"; printf 'arch\tx86\n'; } >"$SCRATCH/bad.tsv"
	run nmx uboot-bootcmd --described "$SCRATCH/bad.tsv"
	[ "$status" -eq 2 ]
	[[ "$output" == *"arch a second time"* ]]
	run nmx uboot-bootcmd --described "$SCRATCH"
	[ "$status" -eq 2 ]
}

@test "qemu-cmd: the big.LITTLE cell refuses to boot without its DTB" {
	run nmx qemu-cmd --cell arm-biglittle --kernel k --initrd i --log l
	[ "$status" -eq 2 ]
	[[ "$output" == *"boots with a DTB: pass --dtb"* ]]
}

# A results directory the way matrix.sh leaves it.
fake_cell() { # dir status-of-configure
	mkdir -p "$1"
	printf 'cell\t%s\ntree\tlinux-6.1\nvariant\tupstream\n' "$(basename "$1")" >"$1/meta.tsv"
	printf 'prepare\tok\t0.5\t1 patch(es) applied\n' >"$1/stages.tsv"
	printf 'configure\t%s\t3.0\tCONFIG_FOO\n' "$2" >>"$1/stages.tsv"
	printf 'make tinyconfig\n' >"$1/reproduce.sh"
}

@test "result: a failed stage decides the status, its detail the reason" {
	fake_cell "$SCRATCH/run/linux-6.1-upstream/arm64" CONFIG_FAIL
	run "$NMX" result --cell-dir "$SCRATCH/run/linux-6.1-upstream/arm64"
	[ "$status" -eq 0 ]
	grep -q '"status": "CONFIG_FAIL"' "$SCRATCH/run/linux-6.1-upstream/arm64/result.json"
	grep -q '"failed_stage": "configure"' "$SCRATCH/run/linux-6.1-upstream/arm64/result.json"
	grep -q '"make tinyconfig"' "$SCRATCH/run/linux-6.1-upstream/arm64/result.json"
}

@test "result: the verdict decides when every stage passed" {
	local d=$SCRATCH/run/linux-6.1-upstream/arm64
	fake_cell "$d" ok
	"$NMX" judge --log "$TESTS_DIR/console/clean-pass-arm64.log" --out "$d" >/dev/null
	printf 'boot\tok\t2.5\tQEMU exited\n' >>"$d/stages.tsv"
	"$NMX" result --cell-dir "$d"
	grep -q '"status": "PASS"' "$d/result.json"
	grep -q '"name": "pruned_tracing_resumes_at_sibling"' "$d/result.json"
}

@test "summary: exit 0 all pass, 1 a failure, 2 an infrastructure error" {
	local d=$SCRATCH/run/linux-6.1-upstream
	fake_cell "$d/arm64" ok
	"$NMX" judge --log "$TESTS_DIR/console/clean-pass-arm64.log" --out "$d/arm64" >/dev/null
	"$NMX" result --cell-dir "$d/arm64"
	run "$NMX" summary "$SCRATCH/run"
	[ "$status" -eq 0 ]
	fake_cell "$d/arm-be8" BUILD_FAIL
	"$NMX" result --cell-dir "$d/arm-be8"
	run "$NMX" summary "$SCRATCH/run"
	[ "$status" -eq 1 ]
	grep -q 'arm-be8 .*BUILD_FAIL' "$SCRATCH/run/summary.txt"
	fake_cell "$d/x86_64" INFRA_FAIL
	"$NMX" result --cell-dir "$d/x86_64"
	run "$NMX" summary "$SCRATCH/run"
	[ "$status" -eq 2 ]
	grep -q '^1 passed, 1 failed, 1 infrastructure$' "$SCRATCH/run/summary.txt"
}

@test "summary: a run with no results is an infrastructure error" {
	run "$NMX" summary "$SCRATCH"
	[ "$status" -eq 2 ]
}

@test "guest-header: a fault root per kernel version, the highest not above the tree's" {
	cp -r "$TOP/arches" "$SCRATCH/arches"
	sed 's/^  fault_root: .*/  fault_root:\n    "6.1": do_page_fault\n    "6.12": handle_page_fault/' \
		"$TOP/arches/arm64.yaml" >"$SCRATCH/arches/arm64.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" guest-header --tree linux-6.1 --cell arm64
	[ "$status" -eq 0 ]
	[[ "$output" == *'#define NMX_FAULT_ROOT "do_page_fault"'* ]]
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" guest-header --tree linux-6.12 --cell arm64
	[ "$status" -eq 0 ]
	[[ "$output" == *'#define NMX_FAULT_ROOT "handle_page_fault"'* ]]
	# Without a tree the version is unknown: said, not guessed.
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" guest-header --cell arm64
	[ "$status" -eq 2 ]
	[[ "$output" == *"names no fault root for kernel of unknown version"* ]]
	# Only from 6.12 on: nothing for 6.1.
	sed -i '/"6.1": do_page_fault/d' "$SCRATCH/arches/arm64.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" guest-header --tree linux-6.1 --cell arm64
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell arm64 names no fault root for kernel 6.1"* ]]
	sed -i 's/"6.12": handle_page_fault/six: handle_page_fault/' "$SCRATCH/arches/arm64.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" guest-header --tree linux-6.12 --cell arm64
	[ "$status" -eq 2 ]
	[[ "$output" == *'guest.fault_root maps a kernel version ("6.12") to a function'* ]]
}

@test "describe: the big.LITTLE DTB where each tree's Kbuild puts it (6.5 moved ARM's into vendor directories)" {
	run nmx describe --tree linux-6.1 --variant upstream --cell arm-biglittle
	grep -qx $'dtb\tarch/arm/boot/dts/vexpress-v2p-ca15-tc1.dtb' <<<"$output"
	run nmx describe --tree linux-6.12 --variant upstream --cell arm-biglittle
	grep -qx $'dtb\tarch/arm/boot/dts/arm/vexpress-v2p-ca15-tc1.dtb' <<<"$output"
	run nmx describe --tree linux-7.2 --variant upstream --cell arm64
	grep -qx $'dtb\t' <<<"$output"
	# A tree older than every entry has none: an error, not a guess.
	cp -r "$TOP/arches" "$SCRATCH/arches"
	sed -i '/"6.1": arch.*dtb$/d' "$SCRATCH/arches/arm-biglittle.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" describe --tree linux-6.1 --variant upstream --cell arm-biglittle
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell arm-biglittle names no dtb for kernel 6.1"* ]]
	sed -i 's/"6.5": arch/six: arch/' "$SCRATCH/arches/arm-biglittle.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" describe --tree linux-6.12 --variant upstream --cell arm-biglittle
	[ "$status" -eq 2 ]
	[[ "$output" == *'arm-biglittle.yaml:'*': dtb maps a kernel version ("6.12") to a DTB path'* ]]
}

@test "guest-header --src: the tree's function-graph and function-filter ftracetest cases, in name order" {
	local d=$SCRATCH/tree/tools/testing/selftests/ftrace/test.d/ftrace
	mkdir -p "$d"
	touch "$d/fgraph-notrace.tc" "$d/func-filter-pid.tc" "$d/fgraph-filter.tc" \
		"$d/kprobe-event.tc" "$d/fgraph-notes.txt" "$d/fgraph-odd\$.tc" "$d/func_filter.tc"
	run nmx guest-header --tree linux-6.12 --cell arm64 --src "$SCRATCH/tree"
	[ "$status" -eq 0 ]
	[[ "$output" == *'#define NMX_FTRACETEST_CASES "fgraph-filter", "fgraph-notrace", "func-filter-pid"'$'\n'* ||
	   "$output" == *'#define NMX_FTRACETEST_CASES "fgraph-filter", "fgraph-notrace", "func-filter-pid"' ]]
	# No such cases, or no such directory: exit 2 naming it, no header.
	rm "$d"/f*.tc
	run nmx guest-header --tree linux-6.12 --cell arm64 --src "$SCRATCH/tree"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$d: no fgraph-*.tc or func-filter-*.tc"* ]]
	[[ "$output" != *"#define"* ]]
	run nmx guest-header --tree linux-6.12 --cell arm64 --src "$SCRATCH/none"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$SCRATCH/none/tools/testing/selftests/ftrace/test.d/ftrace: no ftracetest cases there"* ]]
}

@test "qemu-cmd --uboot-dtb: the board's boot through the cell's U-Boot, images placed in RAM" {
	local cmd
	cmd=$(nmx qemu-cmd --cell arm64 --kernel /b/uImage --initrd /b/uInitrd --uboot-dtb /b/board.dtb \
		--accel tcg --log /r/boot.log | tr '\0' ' ')
	[[ "$cmd" == *"-bios /usr/lib/u-boot/qemu_arm64/u-boot.bin"* ]]
	[[ "$cmd" == *"-dtb /b/board.dtb"* ]]
	[[ "$cmd" == *"-device loader,file=/b/uImage,addr=0x42000000,force-raw=on"* ]]
	[[ "$cmd" == *"-device loader,file=/b/uInitrd,addr=0x44000000,force-raw=on"* ]]
	# U-Boot loads the kernel and gives it the command line: QEMU does not.
	[[ "$cmd" != *"-kernel"* ]]
	[[ "$cmd" != *"-append"* ]]
}

@test "qemu-cmd --dump-dtb: the same machine and firmware, QEMU writing its device tree" {
	local cmd
	cmd=$(nmx qemu-cmd --cell arm-be8 --accel tcg --dump-dtb /b/board.dtb | tr '\0' ' ')
	[[ "$cmd" == "qemu-system-arm -M virt,dumpdtb=/b/board.dtb -cpu cortex-a15 "* ]]
	[[ "$cmd" == *"-bios /usr/lib/u-boot/qemu_arm/u-boot.bin"* ]]
}

@test "uboot-bootcmd: the kernel command line, then bootm of both images with U-Boot's tree" {
	run nmx uboot-bootcmd --cell arm64
	[ "$status" -eq 0 ]
	[ "$output" = "setenv bootargs 'console=ttyAMA0 panic=-1 rdinit=/init'; bootm 0x42000000 0x44000000 \${fdtcontroladdr}" ]
	# A cell without qemu.uboot is said so, for both commands.
	run nmx uboot-bootcmd --cell x86_64
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell x86_64 does not boot through U-Boot"* ]]
	run nmx qemu-cmd --cell x86_64 --accel tcg --dump-dtb /b/board.dtb
	[ "$status" -eq 2 ]
	[[ "$output" == *"does not boot through U-Boot"* ]]
}

@test "describe: the U-Boot facts reach boot.sh; a misspelt qemu.uboot key is refused" {
	run nmx describe --tree linux-6.1 --variant upstream --cell arm-be8
	grep -qx $'uboot_firmware\t/usr/lib/u-boot/qemu_arm/u-boot.bin' <<<"$output"
	grep -qx $'uboot_kernel_load\t0x40008000' <<<"$output"
	cp -r "$TOP/arches" "$SCRATCH/arches"
	sed -i 's/^    ramdisk_addr:/    ramdisk_adr:/' "$SCRATCH/arches/arm64.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" describe --tree linux-6.1 --variant upstream --cell arm64
	[ "$status" -eq 2 ]
	[[ "$output" == *"ramdisk_adr"* ]]
}

@test "a variant's kconfig: in that variant's fragment only, after the cell's" {
	local f=(fragment --cell arm64 --tree linux-6.12 --common "$TOP/kconfig/common.config" -o "$SCRATCH/f")
	nmx "${f[@]}" --variant debug
	grep -q '^# ---- .*matrix.yaml (variant debug of linux-6.12, kconfig)$' "$SCRATCH/f"
	[ "$(grep -A1 'variant debug' "$SCRATCH/f" | tail -1)" = CONFIG_PROVE_LOCKING=y ]
	grep -q '^CONFIG_KASAN=y$' "$SCRATCH/f"
	nmx "${f[@]}" --variant upstream
	run ! grep -q 'KASAN' "$SCRATCH/f"
	run nmx "${f[@]}" --variant nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"tree linux-6.12 has no variant 'nosuch'"* ]]
}

@test "a variant's boot_timeout and findings reach the cell's environment" {
	run nmx describe --tree linux-6.12 --variant debug --cell arm64
	[ "$status" -eq 0 ]
	grep -qx $'boot_timeout\t1800' <<<"$output"
	grep -qx $'findings_variant\tupstream' <<<"$output"
	run nmx describe --tree linux-6.12 --variant upstream --cell arm64
	grep -qx $'boot_timeout\t900' <<<"$output"
	cp "$TOP/matrix.yaml" "$SCRATCH/matrix.yaml"
	sed -i 's/^        boot_timeout: 1800$/        boot_timeout: soon/' "$SCRATCH/matrix.yaml"
	run "$NMX" -m "$SCRATCH/matrix.yaml" -a "$TOP/arches" cells
	[ "$status" -eq 2 ]
	[[ "$output" == *"variant debug: boot_timeout must be a number of seconds"* ]]
}

@test "a variant named with a '-' is refused: results are named <tree>-<variant>" {
	cp "$TOP/matrix.yaml" "$SCRATCH/matrix.yaml"
	sed -i 's/^      bootunfixed:$/      boot-unfixed:/' "$SCRATCH/matrix.yaml"
	run "$NMX" -m "$SCRATCH/matrix.yaml" -a "$TOP/arches" cells
	[ "$status" -eq 2 ]
	[[ "$output" == *"matrix.yaml:"*": variant 'boot-unfixed' of tree linux-7.2: a variant's name has no '-'"* ]]
}

@test "cells --alone: the cells with qemu.alone; a value that is not a boolean is refused where it stands" {
	run nmx cells --alone --tree linux-6.12 --variant upstream --cell riscv64 --cell arm64 --cell s390x
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'linux-6.12 upstream riscv64\nlinux-6.12 upstream s390x')" ]
	mkdir "$SCRATCH/arches"
	cp "$TOP"/arches/*.yaml "$SCRATCH/arches/"
	sed -i "s/^  alone: true$/  alone: sometimes/" "$SCRATCH/arches/riscv64.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/arches" describe --tree linux-6.12 --variant upstream --cell riscv64
	[ "$status" -eq 2 ]
	[[ "$output" == *"riscv64.yaml:"*"'alone' must be true or false"* ]]
}

@test "nmx --help: the user's commands apart from the steps, on stdout, exit 0; nmx CMD --help: that command" {
	run --separate-stderr "$NMX" --help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == *"A run's results"*"summary RUN_DIR"*"report "*"compare "*"merge "*"The steps of a run"*"judge --log"* ]]
	run "$NMX" -h
	[ "$status" -eq 0 ]
	run --separate-stderr "$NMX" compare --help
	[ "$status" -eq 0 ]
	[ -z "$stderr" ]
	[[ "$output" == "usage: nmx compare "* ]]
	[[ "$output" != *"summary"* ]]
	run "$NMX" judge -h
	[ "$status" -eq 0 ]
	[[ "$output" == "usage: nmx judge --log BOOT_LOG"* ]]
}

@test "nmx: an unknown command is named, exit 2" {
	run "$NMX" judgee
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown command 'judgee'"* ]]
}

@test "each command takes only its options: another command's is named as the error" {
	run nmx describe --tree linux-6.1 --variant upstream --cell x86_64 --kernel /k
	[ "$status" -eq 2 ]
	[[ "$output" == *"nmx describe: --kernel is not one of its options (tree variant cell)"* ]]
	run nmx uboot-bootcmd --cell arm-be8 --initrd /i
	[ "$status" -eq 2 ]
	[[ "$output" == *"--initrd is not one of its options"* ]]
	run nmx fragment --cell x86_64 --common kconfig/common.config --log /l -o "$SCRATCH/f"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--log is not one of its options"* ]]
	run nmx describe --tree linux-6.1 --variant upstream --cell x86_64
	[ "$status" -eq 0 ]
}

@test "qemu.tcg by kernel version: the tree's entry, none without --tree" {
	local args=(--cell riscv64 --kernel /k --initrd /i --accel tcg --log /l)
	[ "$(nmx qemu-cmd --tree linux-6.1 "${args[@]}" | tr '\0' '\n' | sed -n '/^-accel$/{n;p}')" = tcg ]
	[ "$(nmx qemu-cmd --tree linux-6.12 "${args[@]}" | tr '\0' '\n' | sed -n '/^-accel$/{n;p}')" = tcg,thread=single ]
	[ "$(nmx qemu-cmd --tree linux-7.2 "${args[@]}" | tr '\0' '\n' | sed -n '/^-accel$/{n;p}')" = tcg,thread=single ]
	run nmx qemu-cmd "${args[@]}"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell riscv64 names no qemu.tcg for kernel of unknown version (give --tree)"* ]]
	# KVM is KVM whatever the tree.
	[ "$(nmx qemu-cmd "${args[@]/tcg/kvm}" | tr '\0' '\n' | sed -n '/^-accel$/{n;p}')" = kvm ]
	run nmx qemu-cmd --tree linux-9.9 "${args[@]}"
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown tree 'linux-9.9'"* ]]
}

@test "missing-tools: each tool not on PATH with the Debian package that has it; exit 1, or 0 with none missing" {
	run "$NMX" missing-tools sh nmx-none-linux-gnu-gcc qemu-system-nmxarch qemu-system-ppc-nmx nmx-no-tool
	[ "$status" -eq 1 ]
	[ "$output" = "nmx-none-linux-gnu-gcc (Debian package gcc-nmx-none-linux-gnu), qemu-system-nmxarch (Debian package qemu-system-misc), qemu-system-ppc-nmx (Debian package qemu-system-ppc), nmx-no-tool (Debian package nmx-no-tool)" ]
	# sparc64 is in qemu-system-sparc, not qemu-system-misc
	[[ "$(PATH=/nonexistent "$NMX" missing-tools qemu-system-sparc64)" == *"(Debian package qemu-system-sparc)" ]]
	run "$NMX" missing-tools sh /bin/sh
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	PATH=/nonexistent run "$NMX" missing-tools sh
	[ "$status" -eq 1 ]
	[ "$output" = "sh (Debian package sh)" ]
}

@test "series list: the tree's series less the variant's skip_patches, then a maintainer's; key moves with a patch's bytes" {
	nmx describe --tree linux-6.12 --variant upstream --cell arm64 >"$SCRATCH/c.tsv"
	run "$NMX" series list --described "$SCRATCH/c.tsv"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "$TOP/patch/linux-6.12/$(grep -v '^#' "$TOP/patch/linux-6.12/series" | head -n 1)" ]
	local skip k0
	while read -r skip; do
		[[ "$output" != *"/$skip"* ]]
	done < <(sed -n 's/^skip_patches\[\]\t//p' "$SCRATCH/c.tsv")
	[ "${#lines[@]}" -lt "$(grep -cv '^\(#\|$\)' "$TOP/patch/linux-6.12/series")" ]
	# A maintainer's series after the tree's.
	mkdir "$SCRATCH/mine"
	printf '0001-a.patch\n# note\n' >"$SCRATCH/mine/series"
	sed -i "s|^extra_series_dir\t.*|extra_series_dir\t$SCRATCH/mine|" "$SCRATCH/c.tsv"
	run "$NMX" series list --described "$SCRATCH/c.tsv"
	[ "${lines[-1]}" = "$SCRATCH/mine/0001-a.patch" ]
	echo 'diff one' >"$SCRATCH/mine/0001-a.patch"
	git init -q "$SCRATCH/pristine"
	git -C "$SCRATCH/pristine" -c user.name=t -c user.email=t@t commit -q --allow-empty -m base
	git -C "$SCRATCH/pristine" tag pristine
	k0=$("$NMX" series key --described "$SCRATCH/c.tsv" --src "$SCRATCH/pristine")
	[[ "$k0" =~ ^[0-9a-f]{64}$ ]]
	[ "$("$NMX" series key --described "$SCRATCH/c.tsv" --src "$SCRATCH/pristine")" = "$k0" ]
	echo 'diff two' >"$SCRATCH/mine/0001-a.patch"
	[ "$("$NMX" series key --described "$SCRATCH/c.tsv" --src "$SCRATCH/pristine")" != "$k0" ]
	run "$NMX" series list --described "$SCRATCH/c.tsv" --src /x
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage: nmx series"* ]]
}

@test "qemu.suite: the unpacked QEMU with its own firmware, no default devices and no system modules; deps fetches it; LAVA refuses it" {
	local args=(--tree linux-7.2 --cell parisc --kernel /k --initrd /i --accel tcg --log /l)
	run nmx qemu-cmd "${args[@]}"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell parisc boots with QEMU from Debian bookworm-backports (qemu-system-misc, unpacked into the cache): pass --qemu and --qemu-firmware"* ]]
	nmx qemu-cmd "${args[@]}" --qemu /c/misc/root/usr/bin/qemu-system-hppa \
		--qemu-firmware /c/data/root/usr/share/qemu | tr '\0' '\n' >"$SCRATCH/q"
	[ "$(head -n 6 "$SCRATCH/q" | paste -sd' ')" = \
		"env QEMU_MODULE_DIR=/c/misc/root/usr/bin /c/misc/root/usr/bin/qemu-system-hppa -L /c/data/root/usr/share/qemu -nodefaults" ]
	grep -qx B160L "$SCRATCH/q"
	# A cell of the system's QEMU takes no other.
	run nmx qemu-cmd --tree linux-7.2 --cell x86_64 --kernel /k --initrd /i --accel tcg --log /l --qemu /q/qemu
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell x86_64 boots with the system's qemu-system-x86_64: no --qemu or --qemu-firmware"* ]]
	run "$NMX" deps
	[ "$status" -eq 0 ]
	[ "$(grep -c '^suite-package bookworm-backports ' <<<"$output")" -eq 2 ]
	grep -qx 'suite-package bookworm-backports qemu-system-misc' <<<"$output"
	grep -qx 'suite-package bookworm-backports qemu-system-data' <<<"$output"
	run nmx lava-job --tree linux-7.2 --variant upstream --cell parisc --kernel /k --initrd /i -o "$SCRATCH"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cell parisc boots with QEMU from Debian bookworm-backports, which LAVA's qemu device type does not run"* ]]
}

@test "qemu.suite: a suite that is not a Debian suite name, or a binary that is a path, is refused with the file" {
	mkdir -p "$SCRATCH/a"
	cp "$TOP"/arches/*.yaml "$SCRATCH/a/"
	sed -i 's/^  suite: bookworm-backports$/  suite: "bookworm main"/' "$SCRATCH/a/parisc.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/a" describe --tree linux-7.2 --variant upstream --cell parisc
	[ "$status" -eq 2 ]
	[[ "$output" == *"parisc.yaml:"*"qemu.suite must be a Debian suite name (bookworm-backports), not 'bookworm main'"* ]]
	cp "$TOP/arches/parisc.yaml" "$SCRATCH/a/"
	sed -i 's|^  binary: qemu-system-hppa$|  binary: /opt/qemu/bin/qemu-system-hppa|' "$SCRATCH/a/parisc.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$SCRATCH/a" describe --tree linux-7.2 --variant upstream --cell parisc
	[ "$status" -eq 2 ]
	[[ "$output" == *"parisc.yaml:"*"with qemu.suite, qemu.binary is a qemu-system-* command of that suite's package"* ]]
}
