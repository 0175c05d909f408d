#!/usr/bin/env bats
# Booting like a board (boot.sh, qemu.uboot in an arch file) on the fake
# board cell: mkimage wraps kernel and initramfs, U-Boot's control device
# tree gets the boot command, and the fake QEMU checks what U-Boot's bootm
# would before it prints the console: the images at the addresses bootm
# names, each a uImage of its type.

load helpers
scripts_under_test

setup_board() {
	setup_boot
	sed -i 's/^  cells: \[fakeboot\]$/  cells: [fakeboard]/' "$NMX_MATRIX"
}

cell_dir() {
	echo "$NMX_RESULTS/$(readlink "$NMX_RESULTS/latest")/fake-good-upstream/fakeboard"
}

@test "U-Boot: the fake board boots through bootm of a kernel uImage and a ramdisk image" {
	setup_board
	run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 0 ]
	[[ "$output" == *"fakeboard (fake-good-upstream): boot with tcg through U-Boot"* ]]
	grep -q '^loader	uboot$' "$(cell_dir)/meta.tsv"
	grep -q '"status": "PASS"' "$(cell_dir)/result.json"
	local out=$NMX_CACHE/work/fake-good-upstream/out/fakeboard/nmx-uboot
	mkimage -l "$out/uImage" | grep -q 'Load Address: *01000000'
	mkimage -l "$out/uInitrd" | grep -q 'RAMDisk Image'
	[ "$(fdtget "$out/board.dtb" /config bootcmd)" = "setenv bootargs 'console=ttyS0 panic=-1 rdinit=/init'; bootm 0x2000000 0x3000000 \${fdtcontroladdr}" ]
	# Every step is in reproduce.sh, in order.
	grep -q 'mkimage .* -T kernel' "$(cell_dir)/reproduce.sh"
	grep -q 'fdtput -t s .*/board.dtb /config bootcmd' "$(cell_dir)/reproduce.sh"
}

@test "U-Boot: --loader qemu boots the same cell with QEMU's loader" {
	setup_board
	run "$TOP/matrix.sh" --no-install --loader qemu
	[ "$status" -eq 0 ]
	[[ "$output" != *"through U-Boot"* ]]
	grep -q '^loader	qemu$' "$(cell_dir)/meta.tsv"
	grep -q '"status": "PASS"' "$(cell_dir)/result.json"
}

@test "U-Boot: a kernel wrapped as the wrong image type is refused by bootm (the check can fail)" {
	setup_board
	# A mkimage that makes the kernel image a ramdisk image.
	mkdir "$SCRATCH/bin"
	cat >"$SCRATCH/bin/mkimage" <<-'EOF'
		#!/bin/sh
		for a; do shift; [ "$a" = kernel ] && a=ramdisk; set -- "$@" "$a"; done
		exec /usr/bin/mkimage "$@"
	EOF
	chmod +x "$SCRATCH/bin/mkimage"
	PATH=$SCRATCH/bin:$PATH run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 1 ]
	grep -q '"status": "BOOT_FAIL"' "$(cell_dir)/result.json"
	grep -q 'is no kernel uImage' "$(cell_dir)/qemu.log"
}

@test "U-Boot: a U-Boot firmware that is not there is an infrastructure error saying so" {
	setup_board
	cp -r "$TESTS_DIR/fake-tree/arches-boot" "$SCRATCH/arches"
	sed -i 's|^    firmware: /bin/true$|    firmware: /nonexistent/u-boot.bin|' "$SCRATCH/arches/fakeboard.yaml"
	export NMX_ARCHES_DIR=$SCRATCH/arches
	run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 2 ]
	grep -q '"status": "INFRA_FAIL"' "$(cell_dir)/result.json"
	grep -q 'no /nonexistent/u-boot.bin (Debian: u-boot-qemu)' "$(cell_dir)/stages.tsv"
}

@test "boot.sh --kernel-args: after the cell's command line on U-Boot's bootargs and QEMU's -append, in the boot key" {
	setup_board
	run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 0 ]
	local out=$NMX_CACHE/work/fake-good-upstream/out/fakeboard/nmx-uboot
	run "$TOP/boot.sh" --cell-dir "$SCRATCH/args" --kernel-args printk.time=1 fake-good upstream fakeboard
	[ "$status" -eq 0 ]
	[ "$(fdtget "$out/board.dtb" /config bootcmd)" = "setenv bootargs 'console=ttyS0 panic=-1 rdinit=/init printk.time=1'; bootm 0x2000000 0x3000000 \${fdtcontroladdr}" ]
	grep -q '^kernel_args	printk.time=1$' "$SCRATCH/args/meta.tsv"
	run "$TOP/boot.sh" --cell-dir "$SCRATCH/qemu" --loader qemu --kernel-args printk.time=1 fake-good upstream fakeboard
	[ "$status" -eq 0 ]
	grep -q -- '-append console=ttyS0\\ panic=-1\\ rdinit=/init\\ printk.time=1 ' "$SCRATCH/qemu/reproduce.sh"
	run "$TOP/boot.sh" --cell-dir "$SCRATCH/bad" --kernel-args "a'b" fake-good upstream fakeboard
	[ "$status" -eq 2 ]
}
