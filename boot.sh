#!/usr/bin/env bash
# Boot one built cell in QEMU and judge it from the console text.
#
#   boot.sh [--cell-dir DIR] TREE VARIANT CELL
#
# Input: the cell's kernel image (uImage on ARM), DTB if any, and the
# guest's initramfs from build.sh. Output: DIR/boot.log (the console),
# DIR/verdict.json and the traces the guest printed. The verdict comes
# from nmx judge reading boot.log, never from QEMU's exit status.
# Exit: 0 PASS, 1 TEST_FAIL/BOOT_FAIL/TIMEOUT, 2 infrastructure.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/lib.sh"

usage() {
	echo "usage: $0 [--cell-dir DIR] TREE VARIANT CELL" >&2
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
	mapfile -d '' cmd < <(nmx qemu-cmd --cell "$NMX_CELL" --kernel "$kernel" \
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

main() {
	local cell_dir='' kernel dtb_args=() initrd accel rc=0 timed_out=() t0 secs
	local findings judge_args=() missing
	local -a cmd
	while [ $# -gt 0 ]; do
		case $1 in
		--cell-dir) cell_dir=$2; shift 2 ;;
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
	record_meta "$cell_dir" qemu_version "$("$NMX_QEMU_BINARY" --version | head -n 1)"

	mapfile -d '' cmd < <(nmx qemu-cmd --cell "$NMX_CELL" --kernel "$kernel" \
		--initrd "$initrd" "${dtb_args[@]}" --accel "$accel" \
		--log "$cell_dir/boot.log")
	[ "${#cmd[@]}" -gt 0 ] || exit 2
	printf '# boot (QEMU is killed after %ss); the log is %s\n' \
		"$NMX_BOOT_TIMEOUT" "$cell_dir/boot.log" >>"$cell_dir/reproduce.sh"
	progress "$NMX_CELL ($NMX_TREE-$NMX_VARIANT): boot with $accel, timeout ${NMX_BOOT_TIMEOUT}s"
	rm -f "$cell_dir/boot.log"
	# --foreground: QEMU stays in the cell's process group, so that a
	# run's SIGTERM (matrix.sh stops a cell by its group) reaches it.
	recorded --log "$cell_dir/qemu.log" --may-fail "$cell_dir" \
		timeout --foreground -k 5 "$NMX_BOOT_TIMEOUT" "${cmd[@]}" || rc=$?
	secs=$(seconds_since "$t0")
	# 124: timeout sent TERM; 137: it had to KILL.
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		timed_out=(--timed-out)
	fi
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
	record_stage "$cell_dir" boot ok "$secs" "QEMU ${timed_out:+killed after timeout}${timed_out:-exited}"
	progress "$NMX_CELL ($NMX_TREE-$NMX_VARIANT): $(cat "$cell_dir/verdict.txt")"
	return "$rc"
}

main "$@"
