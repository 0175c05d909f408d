#!/usr/bin/env bash
# Boot one built cell in QEMU and judge it from the console text.
#
#   boot.sh [--cell-dir DIR] [--kernel-args ARGS] TREE VARIANT CELL
#
# Input: the cell's kernel image (uImage on ARM), DTB if any, and the
# guest's initramfs from build.sh. Output: DIR/boot.log (the console),
# DIR/verdict.json and the traces the guest printed. The verdict comes
# from nmx judge reading boot.log, never from QEMU's exit status.
# NMX_BOOT_WITH=lava (matrix.sh --boot-with lava): the same boot as a LAVA
# job run by Debian's lava-run (DIR/lava/: device.yaml, job.yaml, LAVA's
# log); boot.log is then the console LAVA logged, judged the same way.
# --kernel-args ARGS: appended to the cell's kernel command line (say
# printk.time=1), on every boot path; part of the boot's key.
# Exit: 0 PASS, 1 TEST_FAIL/BOOT_FAIL/TIMEOUT, 2 infrastructure.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/lib.sh"

usage() {
	echo "usage: $0 [--cell-dir DIR] [--kernel-args ARGS] TREE VARIANT CELL" >&2
	exit 2
}

# KVM only when it is the guest's own architecture and a real boot under
# it reaches the kernel's panic for a missing init; TCG otherwise. Here
# /dev/kvm exists but KVM guests abort or hang, so never assume it. The
# probe boots the cell's own machine (nmx qemu-cmd --probe).
probe_accel() { # kernel probe-log [--dtb DTB]
	local kernel=$1 probe_log=$2 host
	local -a cmd
	shift 2
	host=$(uname -m)
	case ${NMX_ACCEL:-auto} in
	tcg | kvm) echo "$NMX_ACCEL" && return ;;
	esac
	if [ "$NMX_QEMU_BINARY" != "qemu-system-$host" ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	rm -f "$probe_log"
	mapfile -d '' cmd < <(nmx qemu-cmd --tree "$NMX_TREE" --cell "$NMX_CELL" --kernel "$kernel" \
		--probe "$@" --accel kvm --log "$probe_log")
	if [ "${#cmd[@]}" -gt 0 ]; then
		timeout -k 2 15 "${cmd[@]}" >"$probe_log.qemu" 2>&1 || true
	fi
	if grep -q 'Kernel panic' "$probe_log" 2>/dev/null; then
		echo kvm
	else
		echo tcg
	fi
}

# ", last run: N s", when the last run booted this cell.
last_boot() {
	local last
	last=$(last_seconds "$NMX_TREE-$NMX_VARIANT" "$NMX_CELL" boot)
	[ -z "$last" ] || printf ', last run: %s s' "$last"
}

# A board's boot: Debian's U-Boot (qemu.uboot in the arch file) finds the
# kernel as a uImage and the initramfs as a ramdisk image where QEMU placed
# them in RAM, checks both, and runs the boot command of its control device
# tree: QEMU's own tree for this machine and firmware, with /config/bootcmd
# and no autoboot delay added. Sets uboot_args: qemu-cmd's arguments.
prepare_uboot() {
	local dir=$NMX_OUT/nmx-uboot missing bootcmd
	local -a dump
	if missing=$(missing_tools mkimage fdtput); then
		record_stage "$cell_dir" boot INFRA_FAIL 0 "missing: $missing"
		exit 2
	fi
	if [ ! -f "$NMX_UBOOT_FIRMWARE" ]; then
		record_stage "$cell_dir" boot INFRA_FAIL 0 "no $NMX_UBOOT_FIRMWARE (Debian: u-boot-qemu)"
		exit 2
	fi
	mkdir -p "$dir"
	rm -f "$dir/uImage" "$dir/uInitrd" "$dir/board.dtb"
	if ! {
		recorded --log "$dir/mkimage.log" "$cell_dir" SOURCE_DATE_EPOCH=0 mkimage \
			-A "$NMX_ARCH" -O linux -T kernel -C none -a "$NMX_UBOOT_KERNEL_LOAD" \
			-e "$NMX_UBOOT_KERNEL_LOAD" -n "notrace-matrix $NMX_CELL" \
			-d "$NMX_OUT/$NMX_KERNEL_IMAGE" "$dir/uImage" &&
			recorded --log "$dir/mkimage-ramdisk.log" "$cell_dir" SOURCE_DATE_EPOCH=0 \
				mkimage -A "$NMX_ARCH" -O linux -T ramdisk -C none \
				-n "notrace-matrix initramfs" -d "$initrd" "$dir/uInitrd"
	}; then
		record_stage "$cell_dir" boot INFRA_FAIL 0 "mkimage failed (see $dir/mkimage*.log)"
		exit 2
	fi
	mapfile -d '' dump < <(nmx qemu-cmd --tree "$NMX_TREE" --cell "$NMX_CELL" --accel "$accel" --dump-dtb "$dir/board.dtb")
	if ! {
		bootcmd=$(nmx uboot-bootcmd --cell "$NMX_CELL" "${kernel_args[@]}") &&
			recorded --log "$dir/dumpdtb.log" "$cell_dir" "${dump[@]}" &&
			recorded "$cell_dir" fdtput -c "$dir/board.dtb" /config &&
			recorded "$cell_dir" fdtput -t s "$dir/board.dtb" /config bootcmd "$bootcmd" &&
			recorded "$cell_dir" fdtput -t i "$dir/board.dtb" /config bootdelay 0
	}; then
		record_stage "$cell_dir" boot INFRA_FAIL 0 "cannot make U-Boot's device tree (see $dir/dumpdtb.log)"
		exit 2
	fi
	uboot_args=(--kernel "$dir/uImage" --initrd "$dir/uInitrd" --uboot-dtb "$dir/board.dtb")
}

# QEMU itself, its serial port written to boot.log: through the cell's
# U-Boot if it has one (NMX_LOADER=qemu: QEMU's own loader). Sets rc and
# timed_out.
boot_qemu() {
	local -a cmd uboot_args=(--kernel "$kernel" --initrd "$initrd" "${dtb_args[@]}")
	local loader=qemu through=''
	if [ -n "$NMX_UBOOT_FIRMWARE" ] && [ "${NMX_LOADER:-uboot}" = uboot ]; then
		loader=uboot
		through=' through U-Boot'
		prepare_uboot
	fi
	record_meta "$cell_dir" loader "$loader"
	mapfile -d '' cmd < <(nmx qemu-cmd --tree "$NMX_TREE" --cell "$NMX_CELL" "${uboot_args[@]}" \
		"${kernel_args[@]}" --accel "$accel" --log "$cell_dir/boot.log")
	[ "${#cmd[@]}" -gt 0 ] || exit 2
	printf '# boot (QEMU is stopped after %ss, or once the kernel panicked); the log is %s\n' \
		"$NMX_BOOT_TIMEOUT" "$cell_dir/boot.log" >>"$cell_dir/reproduce.sh"
	progress "$NMX_CELL ($NMX_TREE-$NMX_VARIANT): boot with $accel$through, timeout ${NMX_BOOT_TIMEOUT}s$(last_boot)"
	# nmx guard keeps QEMU in the cell's process group, so that a run's
	# SIGTERM (matrix.sh stops a cell by its group) reaches it.
	recorded --log "$cell_dir/qemu.log" --may-fail "$cell_dir" \
		"$NMX_BIN" guard --log "$cell_dir/boot.log" --timeout "$NMX_BOOT_TIMEOUT" -- \
		"${cmd[@]}" || rc=$?
	# 124: the time ran out; 137: QEMU had to be killed.
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		timed_out=(--timed-out)
	fi
}

# The same boot as a LAVA job, run by lava-run without a server (it is how
# TuxRun drives QEMU). LAVA's own result says only whether its job ran;
# the console it logged becomes boot.log. Sets rc and timed_out.
boot_lava() {
	local dir=$cell_dir/lava missing
	if missing=$(missing_tools lava-run); then
		record_stage "$cell_dir" boot INFRA_FAIL 0 "missing: $missing (Debian: lava-dispatcher)"
		err "$NMX_CELL: missing: $missing; scripts/install-deps.sh installs lava-dispatcher"
		exit 2
	fi
	if [ "$(id -u)" -ne 0 ]; then
		record_stage "$cell_dir" boot INFRA_FAIL 0 "lava-run runs only as root"
		err "$NMX_CELL: lava-run runs only as root"
		exit 2
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	recorded "$cell_dir" "$NMX_BIN" -m "$NMX_MATRIX" -a "$NMX_ARCHES_DIR" lava-job \
		--tree "$NMX_TREE" --variant "$NMX_VARIANT" --cell "$NMX_CELL" \
		--kernel "$kernel" --initrd "$initrd" "${dtb_args[@]}" --accel "$accel" \
		--timeout "$NMX_BOOT_TIMEOUT" "${kernel_args[@]}" -o "$dir" ||
		{ record_stage "$cell_dir" boot INFRA_FAIL 0 "nmx lava-job failed"; exit 2; }
	progress "$NMX_CELL ($NMX_TREE-$NMX_VARIANT): boot through lava-run with $accel, timeout ${NMX_BOOT_TIMEOUT}s$(last_boot)"
	# The job id names lava-run's scratch directory: unique per boot.
	recorded --log "$dir/lava-run.log" --may-fail "$cell_dir" \
		timeout --foreground -k 5 $((NMX_BOOT_TIMEOUT + 120)) \
		lava-run --job-id "$$" --output-dir "$dir/output" \
		--device "$dir/device.yaml" "$dir/job.yaml" || rc=$?
	# A job LAVA refused or could not start is the lab's failure, not the
	# kernel's: LAVA logs the QEMU command line when it starts it.
	if ! grep -q '"lvl": "info", "msg": "Boot command: ' "$dir/lava-run.log"; then
		record_stage "$cell_dir" boot INFRA_FAIL "$(seconds_since "$t0")" \
			"lava-run did not start QEMU: $(sed -n 's/^error_msg: //p' "$dir/output/result.yaml" 2>/dev/null | head -c 200)"
		err "$NMX_CELL: lava-run did not start QEMU (see $dir/lava-run.log)"
		exit 2
	fi
	recorded --stdout "$cell_dir/boot.log" "$cell_dir" "$NMX_BIN" lava-log \
		"$dir/lava-run.log" ||
		{ record_stage "$cell_dir" boot INFRA_FAIL 0 "cannot read LAVA's log"; exit 2; }
	record_meta "$cell_dir" lava_result "$(tr '\n' ' ' <"$dir/output/result.yaml" 2>/dev/null | head -c 300)"
	# The suite did not end within its time (LAVA stopped the job), or
	# lava-run itself had to be killed.
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ] ||
		grep -q 'timed out after' "$dir/output/result.yaml" 2>/dev/null; then
		timed_out=(--timed-out)
	fi
}

# What decides a boot's console, as a key: the engine, loader, accelerator,
# timeout and QEMU version (main's), the cell's arch files (its own and the
# one it extends), and the bytes of kernel,
# initramfs, DTB and U-Boot. NMX_REUSE_BOOTS=1 (matrix.sh --reuse-boots)
# judges anew the console of an earlier boot with the same key that ran
# to the guest's last line, instead of booting again.
boot_key() {
	{
		printf '%s\n' "$engine" "${NMX_LOADER:-uboot}" "$accel" "$NMX_BOOT_TIMEOUT"
		printf '%s\n' "${kernel_args[*]}"
		printf '%s\n' "$qemu_version"
		cat "${NMX_ARCH_FILES[@]}"
		sha256sum <"$kernel"
		sha256sum <"$initrd"
		[ -z "$NMX_DTB" ] || sha256sum <"$NMX_OUT/$NMX_DTB"
		[ -z "$NMX_UBOOT_FIRMWARE" ] || [ ! -f "$NMX_UBOOT_FIRMWARE" ] ||
			sha256sum <"$NMX_UBOOT_FIRMWARE"
	} | sha256sum | cut -c1-16
}

main() {
	local cell_dir='' kernel dtb_args=() initrd accel rc=0 timed_out=() t0 secs
	local findings judge_args=() missing engine=${NMX_BOOT_WITH:-qemu} how key reused qemu_version
	local -a kernel_args=()
	while [ $# -gt 0 ]; do
		case $1 in
		--cell-dir) cell_dir=$2; shift 2 ;;
		--kernel-args) kernel_args=(--kernel-args "$2"); shift 2 ;;
		-*) usage ;;
		*) break ;;
		esac
	done
	[ $# -eq 3 ] || usage
	load_cell "$1" "$2" "$3" || exit 2
	set_work_dirs
	cell_dir=${cell_dir:-$NMX_TOP/results/scratch/$NMX_TREE-$NMX_VARIANT/$NMX_CELL}
	mkdir -p "$cell_dir"
	cell_dir=$(cd "$cell_dir" && pwd)

	t0=$(date +%s.%N)
	if missing=$(missing_tools "$NMX_QEMU_BINARY" timeout); then
		record_stage "$cell_dir" boot INFRA_FAIL 0 "missing: $missing"
		err "$NMX_CELL: missing: $missing; ./matrix.sh installs them"
		exit 2
	fi
	kernel=$NMX_OUT/$NMX_KERNEL_IMAGE
	[ -n "$NMX_UIMAGE_LOAD" ] && kernel=$NMX_OUT/uImage
	[ -n "$NMX_DTB" ] && dtb_args=(--dtb "$NMX_OUT/$NMX_DTB")
	initrd=$NMX_OUT/nmx-guest/initramfs.cpio
	if [ ! -f "$kernel" ] || [ ! -f "$initrd" ]; then
		record_stage "$cell_dir" boot INFRA_FAIL 0 "not built: $kernel or $initrd missing (run build.sh)"
		exit 2
	fi
	accel=$(probe_accel "$kernel" "$cell_dir/accel-probe.log" "${dtb_args[@]}")
	record_meta "$cell_dir" accelerator "$accel"
	if [ -f "$cell_dir/accel-probe.log.qemu" ]; then
		record_meta "$cell_dir" accelerator_probe \
			"KVM probe: $(head -c 300 "$cell_dir/accel-probe.log.qemu" | head -n 2)"
	fi
	qemu_version=$("$NMX_QEMU_BINARY" --version | head -n 1)
	record_meta "$cell_dir" qemu_version "$qemu_version"

	rm -f "$cell_dir/boot.log"
	record_meta "$cell_dir" boot_with "$engine"
	[ "${#kernel_args[@]}" -eq 0 ] || record_meta "$cell_dir" kernel_args "${kernel_args[1]}"
	key=$(boot_key)
	reused=$NMX_CACHE/boots/$key
	if [ "${NMX_REUSE_BOOTS:-0}" = 1 ] && [ -f "$reused/boot.log" ]; then
		cp "$reused/boot.log" "$cell_dir/boot.log"
		touch "$reused"
		record_meta "$cell_dir" boot_reused_from "$(cat "$reused/origin")"
		printf '# boot: the console of %s, reused (NMX_REUSE_BOOTS=1, inputs key %s)\ncp %s %s\n' \
			"$(cat "$reused/origin")" "$key" "$reused/boot.log" "$cell_dir/boot.log" \
			>>"$cell_dir/reproduce.sh"
		progress "$NMX_CELL ($NMX_TREE-$NMX_VARIANT): boot not run again: the same kernel, initramfs and machine booted in $(cat "$reused/origin") (--reuse-boots)"
	else
		case $engine in
		qemu) boot_qemu ;;
		lava) boot_lava ;;
		*)
			record_stage "$cell_dir" boot INFRA_FAIL 0 "unknown NMX_BOOT_WITH '$engine' (qemu or lava)"
			exit 2
			;;
		esac
		reused=''
		# A console that ran to the guest's last line may be reused by a
		# later run with the same inputs; a cut-off one never.
		if [ "${#timed_out[@]}" -eq 0 ] && "$NMX_BIN" console-ended --log "$cell_dir/boot.log" 2>/dev/null; then
			mkdir -p "$NMX_CACHE/boots/$key"
			cp "$cell_dir/boot.log" "$NMX_CACHE/boots/$key/boot.log.tmp"
			mv "$NMX_CACHE/boots/$key/boot.log.tmp" "$NMX_CACHE/boots/$key/boot.log"
			printf '%s\n' "${cell_dir#"$NMX_RESULTS"/}" >"$NMX_CACHE/boots/$key/origin"
			# Consoles of kernels no one has booted for a month go.
			find "$NMX_CACHE/boots" -mindepth 1 -maxdepth 1 -mtime +30 \
				-exec rm -rf {} + 2>/dev/null || true
		fi
	fi
	secs=$(seconds_since "$t0")
	touch "$cell_dir/boot.log"
	# Failures FINDINGS.md names for this cell and variant are XFAIL.
	findings=$NMX_TOP/$NMX_SERIES_DIR/FINDINGS.md
	[ "${NMX_SERIES_DIR:0:1}" = / ] && findings=$NMX_SERIES_DIR/FINDINGS.md
	if [ -f "$findings" ]; then
		# A maintainer's patches are judged by the expectations of the
		# variant they were applied to.
		judge_args+=(--findings "$findings" --cell "$NMX_CELL" --variant "$NMX_FINDINGS_VARIANT")
	fi
	rc=0
	recorded --stdout "$cell_dir/verdict.txt" --may-fail "$cell_dir" "$NMX_BIN" \
		-m "$NMX_MATRIX" -a "$NMX_ARCHES_DIR" judge --log "$cell_dir/boot.log" \
		--out "$cell_dir" "${timed_out[@]}" "${judge_args[@]}" || rc=$?
	how="QEMU ${timed_out:+killed after timeout}${timed_out:-exited}"
	[ "$engine" = lava ] && how="lava-run ${timed_out:+stopped after timeout}${timed_out:-exited}"
	[ -z "$reused" ] || how="reused the console of $(cat "$reused/origin")"
	record_stage "$cell_dir" boot ok "$secs" "$how"
	progress "$NMX_CELL ($NMX_TREE-$NMX_VARIANT): $(cat "$cell_dir/verdict.txt")"
	return "$rc"
}

main "$@"
