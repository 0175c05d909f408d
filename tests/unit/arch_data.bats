#!/usr/bin/env bats
# Architecture knowledge lives in arches/<cell>.yaml only: no cell name
# and no cell's QEMU, console, machine, compiler or image fact appears in
# the scripts, the host tool or the guest. Adding a cell is adding a file.

load helpers

# The code that must stay free of cell facts (under ROOT, default the
# checkout).
code_files() {
	local f root=${ROOT:-$TOP}
	for f in "$root"/*.sh "$root"/scripts/*.sh "$root"/tools/nmx/*.c "$root"/tools/nmx/*.h \
		"$root"/guest/*.c "$root"/guest/*.h "$root"/kconfig/*; do
		[ -f "$f" ] && printf '%s\n' "$f"
	done
}

# FACT in the code, except nmx's table of which Debian package holds
# which tool (tool_package(): Debian's knowledge, not a cell's).
fact_in_code() { # fact
	code_files | xargs grep -H -n -F -- "$1" |
		grep -v -E 'tools/nmx/matrix\.c:[0-9]+:[[:space:]]+\{ "qemu-system-[^"]*", "qemu-system-' || true
}

@test "no cell's facts outside arches/ (the scripts, nmx, the guest)" {
	local cell hits='' fact key value
	local -a facts
	for cell in $(find "$TOP/arches" -maxdepth 1 -name '*.yaml' -printf '%f\n' | sed 's/\.yaml$//'); do
		local -A d=()
		while IFS=$'\t' read -r key value; do
			d[$key]=$value
		done < <(nmx describe --tree linux-6.1 --variant upstream --cell "$cell")
		facts=("${d[qemu_binary]}")
		# vmlinux is every build's ELF, not a cell's fact (ppc64le boots it).
		[ "${d[kernel_image]}" = vmlinux ] || facts+=("${d[kernel_image]}")
		[ -z "${d[cross_compile]}" ] || facts+=("${d[cross_compile]}")
		[ -z "${d[dtb]}" ] || facts+=("$(basename "${d[dtb]}")")
		[ -z "${d[uimage_load]}" ] || facts+=("${d[uimage_load]}")
		mapfile -t -O "${#facts[@]}" facts < <(sed -n 's/^  console: //p; s/^  machine: \[-M, \([^,]*\),.*/-M \1/p' \
			"$TOP/arches/$cell.yaml")
		# A cell named like its architecture (arm64, x86_64) cannot be
		# told from the architecture in comments: only the others count.
		[ "$cell" = "${d[arch]}" ] || [ "$cell" = "$(sed -n 's/^  uname_machine: //p' "$TOP/arches/$cell.yaml")" ] ||
			facts+=("$cell")
		for fact in "${facts[@]}"; do
			hits+=$(fact_in_code "$fact")
		done
	done
	[ -z "$hits" ] || { echo "cell facts outside arches/:"; echo "$hits"; false; }
}

@test "the check can fail: a cell's console written into boot.sh is found" {
	grep -q '^  console: ttyAMA0$' "$TOP/arches/arm64.yaml"
	mkdir "$SCRATCH/root"
	cp "$TOP/boot.sh" "$SCRATCH/root/"
	ROOT=$SCRATCH/root run fact_in_code ttyAMA0
	[ -z "$output" ]
	echo "# console=ttyAMA0" >>"$SCRATCH/root/boot.sh"
	ROOT=$SCRATCH/root run fact_in_code ttyAMA0
	[[ "$output" == *"boot.sh:"*"console=ttyAMA0"* ]]
}

@test "every cell goes through the generators: QEMU line, kconfig fragment, guest header" {
	local cell n=0 dtb
	for cell in $(find "$TOP/arches" -maxdepth 1 -name '*.yaml' -printf '%f\n' | sed 's/\.yaml$//'); do
		dtb=() qemu=()
		grep -q '^dtb:' "$TOP/arches/$cell.yaml" && dtb=(--dtb /build/cell.dtb)
		# A QEMU of another suite is the one boot.sh unpacked.
		nmx describe --tree linux-6.12 --variant upstream --cell "$cell" | grep -q $'^qemu_suite\t.' &&
			qemu=(--qemu /cache/bin/qemu --qemu-firmware /cache/fw)
		nmx qemu-cmd --tree linux-6.12 --cell "$cell" --kernel /build/kernel --initrd /build/initramfs.cpio \
			"${dtb[@]}" "${qemu[@]}" --accel tcg --log /results/boot.log | tr '\0' '\n' >"$SCRATCH/q"
		grep -qx -- '-kernel' "$SCRATCH/q"
		nmx fragment --cell "$cell" --tree linux-6.1 --common "$TOP/kconfig/common.config" -o "$SCRATCH/f"
		grep -q '^CONFIG_FUNCTION_GRAPH_TRACER=y$' "$SCRATCH/f"
		nmx guest-header --tree linux-6.12 --cell "$cell" >"$SCRATCH/cell.h"
		# The header is C the guest can include.
		printf '#include "%s"\nconst char *c = NMX_CELL, *m = NMX_UNAME_MACHINE;\n' \
			"$SCRATCH/cell.h" | gcc -fsyntax-only -x c -
		n=$((n + 1))
	done
	[ "$n" -ge 4 ]
}

@test "extends: a cell states only what differs from the one it extends; bad extends are errors with the file" {
	local a=$SCRATCH/arches
	mkdir -p "$a"
	cp "$TOP"/arches/*.yaml "$a/"
	# arm64-be gets arm64's machine, U-Boot and packages, and its own byte order.
	run "$NMX" -m "$TOP/matrix.yaml" -a "$a" describe --tree linux-6.12 --variant upstream --cell arm64-be
	[ "$status" -eq 0 ]
	grep -qx $'qemu_binary\tqemu-system-aarch64' <<<"$output"
	grep -qx $'uboot_firmware\t/usr/lib/u-boot/qemu_arm64/u-boot.bin' <<<"$output"
	[ "$(grep $'^guest_cflags\\[\\]\t' <<<"$output")" = $'guest_cflags[]\t-mbig-endian' ]
	[ "$(grep $'^arch_files\\[\\]\t' <<<"$output" | cut -f2 | paste -sd' ')" = "$a/arm64-be.yaml $a/arm64.yaml" ]
	# A change to the base reaches the cell that extends it.
	sed -i 's/-m, 256M/-m, 512M/' "$a/arm64.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$a" qemu-cmd --cell arm64-be --kernel /k --initrd /i --accel tcg --log /l
	[[ "$output" == *512M* ]]
	# One level only; not itself; a cell that exists.
	printf 'extends: arm64-be\nname: deeper\n' >"$a/deeper.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$a" describe --tree linux-6.12 --variant upstream --cell deeper
	[ "$status" -eq 2 ]
	[[ "$output" == *"deeper.yaml: extends 'arm64-be', which extends another: one level only"* ]]
	sed -i 's/^extends: arm64$/extends: arm64-be/' "$a/arm64-be.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$a" describe --tree linux-6.12 --variant upstream --cell arm64-be
	[ "$status" -eq 2 ]
	[[ "$output" == *"extends 'arm64-be': not another cell's name"* ]]
	sed -i 's/^extends: arm64-be$/extends: nosuch/' "$a/arm64-be.yaml"
	run "$NMX" -m "$TOP/matrix.yaml" -a "$a" describe --tree linux-6.12 --variant upstream --cell arm64-be
	[ "$status" -eq 2 ]
	[[ "$output" == *"extends 'nosuch', which cannot be read"* ]]
}
