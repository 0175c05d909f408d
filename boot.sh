#!/usr/bin/env bash
# Boot one built cell in QEMU and judge it from the console text.
#
#   boot.sh [--cell-dir DIR] [--kernel-args ARGS] [--loader uboot|qemu]
#           [--boot-with qemu|lava] [--accel auto|tcg|kvm] [--reuse-boots]
#           TREE VARIANT CELL
#
# Input: the cell's kernel image (uImage on ARM), DTB if any, and the
# guest's initramfs from build.sh. Output: DIR/boot.log (the console),
# DIR/verdict.json and the traces the guest printed. The verdict comes
# from nmx judge reading boot.log, never from QEMU's exit status.
# --boot-with lava: the same boot as a LAVA job run by Debian's lava-run
# (DIR/lava/: device.yaml, job.yaml, LAVA's log); boot.log is then the
# console LAVA logged, judged the same way. --loader qemu: QEMU's own
# loader on a cell that would boot through its U-Boot. --accel: the
# accelerator, not probed (auto: KVM if a probe boot reaches the kernel).
# --kernel-args ARGS: appended to the cell's kernel command line (say
# printk.time=1), on every boot path. --reuse-boots: judge the console of
# an earlier boot with the same key (nmx boot-cache key: every input that
# decides a console) instead of booting again. matrix.sh passes its own
# options of these names.
# Exit: 0 PASS, 1 TEST_FAIL/BOOT_FAIL/TIMEOUT, 2 infrastructure.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/scripts/lib.sh"

usage() {
	echo "usage: $0 [--cell-dir DIR] [--kernel-args ARGS] [--loader uboot|qemu] [--boot-with qemu|lava] [--accel auto|tcg|kvm] [--reuse-boots] TREE VARIANT CELL" >&2
	exit 2
}

# boot_infra CELL_DIR SECONDS DETAIL [MESSAGE]: the boot could not be run
# (the harness's failure, not the kernel's): recorded, said, exit 2.
boot_infra() {
	record_stage "$1" boot INFRA_FAIL "$2" "$3"
	[ -z "${4:-}" ] || err "${CELL[cell]}: $4"
	exit 2
}

# probe_accel ACCEL KERNEL PROBE_LOG [--dtb DTB]: the accelerator to boot
# with. KVM only when it is the guest's own architecture and a real boot
# under it reaches the kernel's panic for a missing init; TCG otherwise.
# Here /dev/kvm exists but KVM guests abort or hang, so never assume it.
# The probe boots the cell's own machine (nmx qemu-cmd --probe).
probe_accel() {
	local accel=$1 kernel=$2 probe_log=$3 host
	local -a cmd
	shift 3
	host=$(uname -m)
	case $accel in
	tcg | kvm) echo "$accel" && return ;;
	esac
	if [ "${CELL[qemu_binary]}" != "qemu-system-$host" ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	rm -f "$probe_log"
	mapfile -d '' cmd < <(nmx qemu-cmd --described "${CELL[facts]}" "${QEMU_ARGS[@]}" \
		--kernel "$kernel" --probe "$@" --accel kvm --log "$probe_log")
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
	last=$(last_seconds "${CELL[tree]}" "${CELL[variant]}" "${CELL[cell]}" boot)
	[ -z "$last" ] || printf ', last run: %s s' "$last"
}

# prepare_uboot CELL_DIR DIR INITRD ACCEL KERNEL_ARGS: a board's
# boot. Debian's U-Boot (qemu.uboot in the arch file) finds the kernel as a
# uImage (DIR/uImage) and the initramfs as a ramdisk image (DIR/uInitrd)
# where QEMU placed them in RAM, checks both, and runs the boot command of
# its control device tree (DIR/board.dtb): QEMU's own tree for this machine
# and firmware, with /config/bootcmd and no autoboot delay added.
prepare_uboot() {
	local cell_dir=$1 dir=$2 initrd=$3 accel=$4 missing bootcmd
	local -a dump extra=()
	[ -z "$5" ] || extra=(--kernel-args "$5")
	if missing=$(missing_tools mkimage fdtput); then
		boot_infra "$cell_dir" 0 "missing: $missing"
	fi
	if [ ! -f "${CELL[uboot_firmware]}" ]; then
		boot_infra "$cell_dir" 0 "no ${CELL[uboot_firmware]} (Debian: u-boot-qemu)"
	fi
	mkdir -p "$dir"
	rm -f "$dir/uImage" "$dir/uInitrd" "$dir/board.dtb"
	if ! {
		recorded --log "$dir/mkimage.log" "$cell_dir" SOURCE_DATE_EPOCH=0 mkimage \
			-A "${CELL[arch]}" -O linux -T kernel -C none -a "${CELL[uboot_kernel_load]}" \
			-e "${CELL[uboot_kernel_load]}" -n "notrace-matrix ${CELL[cell]}" \
			-d "$NMX_OUT/${CELL[kernel_image]}" "$dir/uImage" &&
			recorded --log "$dir/mkimage-ramdisk.log" "$cell_dir" SOURCE_DATE_EPOCH=0 \
				mkimage -A "${CELL[arch]}" -O linux -T ramdisk -C none \
				-n "notrace-matrix initramfs" -d "$initrd" "$dir/uInitrd"
	}; then
		boot_infra "$cell_dir" 0 "mkimage failed (see $dir/mkimage*.log)"
	fi
	mapfile -d '' dump < <(nmx qemu-cmd --described "${CELL[facts]}" "${QEMU_ARGS[@]}" \
		--accel "$accel" --dump-dtb "$dir/board.dtb")
	if ! {
		bootcmd=$(nmx uboot-bootcmd --described "${CELL[facts]}" "${extra[@]}") &&
			recorded --log "$dir/dumpdtb.log" "$cell_dir" "${dump[@]}" &&
			recorded "$cell_dir" fdtput -c "$dir/board.dtb" /config &&
			recorded "$cell_dir" fdtput -t s "$dir/board.dtb" /config bootcmd "$bootcmd" &&
			recorded "$cell_dir" fdtput -t i "$dir/board.dtb" /config bootdelay 0
	}; then
		boot_infra "$cell_dir" 0 "cannot make U-Boot's device tree (see $dir/dumpdtb.log)"
	fi
}

# resolve_qemu CELL_DIR: the QEMU the cell boots with, into QEMU (the
# command) and QEMU_ARGS (nmx qemu-cmd's options naming it): the system's
# qemu.binary, or a qemu.suite cell's from that Debian suite, unpacked
# into the cache with its firmware (scripts/fetch-deb.sh: install-deps.sh
# fetches it; here too, for a run that skipped the install).
QEMU=
QEMU_ARGS=()
resolve_qemu() {
	local cell_dir=$1 root data pkg
	QEMU=${CELL[qemu_binary]}
	QEMU_ARGS=()
	[ -n "${CELL[qemu_suite]}" ] || return 0
	for pkg in "${CELL[qemu_package]}" "${CELL[qemu_data_package]}"; do
		"$NMX_TOP/scripts/fetch-deb.sh" "${CELL[qemu_suite]}" "$pkg" ||
			boot_infra "$cell_dir" 0 "cannot fetch $pkg from Debian ${CELL[qemu_suite]}"
	done
	root=$(suite_package_dir "${CELL[qemu_suite]}" "${CELL[qemu_package]}")/root
	data=$(suite_package_dir "${CELL[qemu_suite]}" "${CELL[qemu_data_package]}")/root
	QEMU=$root/usr/bin/${CELL[qemu_binary]}
	QEMU_ARGS=(--qemu "$QEMU" --qemu-firmware "$data/usr/share/qemu")
}

# boot_qemu STOPPED_VAR CELL_DIR LOADER ACCEL KERNEL INITRD DTB KERNEL_ARGS:
# QEMU itself, its serial port written to boot.log: through the cell's
# U-Boot if it has one and LOADER is uboot. DTB and KERNEL_ARGS may be
# empty. Sets the caller's variable named STOPPED_VAR to 1 if the time
# limit stopped the boot, else 0 (a name other than stopped_ref: bash's
# namerefs cannot refer to a variable of their own name).
boot_qemu() {
	local -n stopped_ref=$1
	local cell_dir=$2 loader=$3 accel=$4 kernel=$5 initrd=$6 dtb=$7 kargs=$8
	local uboot through='' rc=0
	local -a cmd boot_args=(--kernel "$kernel" --initrd "$initrd")
	[ -z "$dtb" ] || boot_args+=(--dtb "$dtb")
	if [ -n "${CELL[uboot_firmware]}" ] && [ "$loader" = uboot ]; then
		through=' through U-Boot'
		uboot=$NMX_OUT/nmx-uboot
		prepare_uboot "$cell_dir" "$uboot" "$initrd" "$accel" "$kargs"
		boot_args=(--kernel "$uboot/uImage" --initrd "$uboot/uInitrd" --uboot-dtb "$uboot/board.dtb")
	else
		loader=qemu
	fi
	[ -z "$kargs" ] || boot_args+=(--kernel-args "$kargs")
	record_meta "$cell_dir" loader "$loader"
	mapfile -d '' cmd < <(nmx qemu-cmd --described "${CELL[facts]}" "${QEMU_ARGS[@]}" \
		"${boot_args[@]}" --accel "$accel" --log "$cell_dir/boot.log")
	[ "${#cmd[@]}" -gt 0 ] || boot_infra "$cell_dir" 0 "nmx qemu-cmd failed"
	printf '# boot (QEMU is stopped after %ss, or once the kernel panicked); the log is %s\n' \
		"${CELL[boot_timeout]}" "$cell_dir/boot.log" >>"$cell_dir/reproduce.sh"
	progress "${CELL[cell]} (${CELL[tree]}-${CELL[variant]}): boot with $accel$through, timeout ${CELL[boot_timeout]}s$(last_boot)"
	# nmx guard keeps QEMU in the cell's process group, so that a run's
	# SIGTERM (matrix.sh stops a cell by its group) reaches it.
	recorded --log "$cell_dir/qemu.log" --may-fail "$cell_dir" \
		"$NMX_BIN" guard --log "$cell_dir/boot.log" --timeout "${CELL[boot_timeout]}" -- \
		"${cmd[@]}" || rc=$?
	# 124: the time ran out; 137: QEMU had to be killed.
	stopped_ref=0
	if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		stopped_ref=1
	fi
}

# boot_lava STOPPED_VAR CELL_DIR ACCEL KERNEL INITRD DTB KERNEL_ARGS T0: the
# same boot as a LAVA job, run by lava-run without a server (it is how
# TuxRun drives QEMU). LAVA's own result says only whether its job ran;
# the console it logged becomes boot.log. DTB and KERNEL_ARGS may be
# empty; T0: when the boot began. Sets the caller's variable named
# STOPPED_VAR to 1 if the time limit stopped the boot, else 0.
# shellcheck disable=SC2034 # stopped_ref: the caller's variable, a nameref
boot_lava() {
	local -n stopped_ref=$1
	local cell_dir=$2 accel=$3 kernel=$4 initrd=$5 dtb=$6 kargs=$7 t0=$8 missing rc=0
	local detail outcome=0
	local dir=$cell_dir/lava
	local -a args=()
	[ -z "$dtb" ] || args+=(--dtb "$dtb")
	[ -z "$kargs" ] || args+=(--kernel-args "$kargs")
	if missing=$(missing_tools lava-run); then
		boot_infra "$cell_dir" 0 "missing: $missing (Debian: lava-dispatcher)" \
			"missing: $missing; scripts/install-deps.sh installs lava-dispatcher"
	fi
	if [ "$(id -u)" -ne 0 ]; then
		boot_infra "$cell_dir" 0 "lava-run runs only as root" "lava-run runs only as root"
	fi
	rm -rf "$dir"
	mkdir -p "$dir"
	recorded "$cell_dir" "$NMX_BIN" lava-job \
		--described "${CELL[facts]}" \
		--kernel "$kernel" --initrd "$initrd" --accel "$accel" \
		--timeout "${CELL[boot_timeout]}" "${args[@]}" -o "$dir" ||
		boot_infra "$cell_dir" 0 "nmx lava-job failed"
	progress "${CELL[cell]} (${CELL[tree]}-${CELL[variant]}): boot through lava-run with $accel, timeout ${CELL[boot_timeout]}s$(last_boot)"
	# The job id names lava-run's scratch directory: unique per boot.
	recorded --log "$dir/lava-run.log" --may-fail "$cell_dir" \
		timeout --foreground -k 5 $((CELL[boot_timeout] + 120)) \
		lava-run --job-id "$$" --output-dir "$dir/output" \
		--device "$dir/device.yaml" "$dir/job.yaml" || rc=$?
	# Ran, stopped by its time limit, or never started QEMU (the lab's
	# failure, not the kernel's).
	detail=$(nmx lava-outcome --cell-dir "$cell_dir" --log "$dir/lava-run.log" \
		--result "$dir/output/result.yaml" --exit "$rc") || outcome=$?
	case $outcome in
	0 | 1) ;;
	3) boot_infra "$cell_dir" "$(seconds_since "$t0")" "$detail" \
		"lava-run did not start QEMU (see $dir/lava-run.log)" ;;
	*) boot_infra "$cell_dir" 0 "nmx lava-outcome failed" ;;
	esac
	recorded --stdout "$cell_dir/boot.log" "$cell_dir" "$NMX_BIN" lava-log \
		"$dir/lava-run.log" || boot_infra "$cell_dir" 0 "cannot read LAVA's log"
	stopped_ref=$((outcome == 1))
}

main() {
	local cell_dir='' kernel initrd dtb='' kargs='' accel=auto rc=0 stopped=0 t0 secs
	local how key origin='' missing engine=qemu loader=uboot reuse=0
	local qemu_version boots
	local -a kernel_args=() dtb_args=() timed_out=()
	while [ $# -gt 0 ]; do
		case $1 in
		--cell-dir) [ $# -ge 2 ] || usage; cell_dir=$2; shift 2 ;;
		--kernel-args) [ $# -ge 2 ] || usage; kargs=$2; kernel_args=(--kernel-args "$2"); shift 2 ;;
		--loader) [ $# -ge 2 ] || usage; loader=$2; shift 2 ;;
		--boot-with) [ $# -ge 2 ] || usage; engine=$2; shift 2 ;;
		--accel) [ $# -ge 2 ] || usage; accel=$2; shift 2 ;;
		--reuse-boots) reuse=1; shift ;;
		-*) usage ;;
		*) break ;;
		esac
	done
	[ $# -eq 3 ] || usage
	case $loader in
	uboot | qemu) ;;
	*) err "--loader $loader: uboot (the cell's U-Boot, where it has one) or qemu (QEMU's own loader)"; exit 2 ;;
	esac
	case $engine in
	qemu | lava) ;;
	*) err "--boot-with $engine: qemu (QEMU directly) or lava (a LAVA job through lava-run)"; exit 2 ;;
	esac
	case $accel in
	auto | tcg | kvm) ;;
	*) err "--accel $accel: auto (probe KVM), tcg or kvm"; exit 2 ;;
	esac
	load_cell "$cell_dir" "$1" "$2" "$3" || exit 2
	cell_dir=${CELL[dir]}
	set_work_dirs

	t0=$(date +%s.%N)
	resolve_qemu "$cell_dir"
	if missing=$(missing_tools "$QEMU" timeout); then
		boot_infra "$cell_dir" 0 "missing: $missing" "missing: $missing; ./matrix.sh installs them"
	fi
	kernel=$NMX_OUT/${CELL[kernel_image]}
	[ -n "${CELL[uimage_load]}" ] && kernel=$NMX_OUT/uImage
	if [ -n "${CELL[dtb]}" ]; then
		dtb=$NMX_OUT/${CELL[dtb]}
		dtb_args=(--dtb "$dtb")
	fi
	initrd=$NMX_OUT/nmx-guest/initramfs.cpio
	if [ ! -f "$kernel" ] || [ ! -f "$initrd" ]; then
		boot_infra "$cell_dir" 0 "not built: $kernel or $initrd missing (run build.sh)"
	fi
	accel=$(probe_accel "$accel" "$kernel" "$cell_dir/accel-probe.log" "${dtb_args[@]}")
	record_meta "$cell_dir" accelerator "$accel"
	if [ -f "$cell_dir/accel-probe.log.qemu" ]; then
		record_meta "$cell_dir" accelerator_probe \
			"KVM probe: $(head -c 300 "$cell_dir/accel-probe.log.qemu" | head -n 2)"
	fi
	qemu_version=$("$QEMU" --version | head -n 1)
	record_meta "$cell_dir" qemu_version "$qemu_version"

	rm -f "$cell_dir/boot.log"
	record_meta "$cell_dir" boot_with "$engine"
	[ -z "$kargs" ] || record_meta "$cell_dir" kernel_args "$kargs"
	boots=$NMX_CACHE/boots
	key=$(nmx boot-cache key --described "${CELL[facts]}" --engine "$engine" --loader "$loader" \
		--accel "$accel" --timeout "${CELL[boot_timeout]}" "${kernel_args[@]}" \
		--qemu-version "$qemu_version" --kernel "$kernel" --initrd "$initrd" "${dtb_args[@]}") ||
		boot_infra "$cell_dir" 0 "nmx boot-cache key failed"
	if [ "$reuse" = 1 ] &&
		origin=$(nmx boot-cache lookup --cache "$boots" --key "$key" --log "$cell_dir/boot.log"); then
		record_meta "$cell_dir" boot_reused_from "$origin"
		printf '# boot: the console of %s, reused (--reuse-boots, inputs key %s)\ncp %s %s\n' \
			"$origin" "$key" "$boots/$key/boot.log" "$cell_dir/boot.log" \
			>>"$cell_dir/reproduce.sh"
		progress "${CELL[cell]} (${CELL[tree]}-${CELL[variant]}): boot not run again: the same kernel, initramfs and machine booted in $origin (--reuse-boots)"
	else
		origin=''
		if [ "$engine" = lava ]; then
			boot_lava stopped "$cell_dir" "$accel" "$kernel" "$initrd" "$dtb" "$kargs" "$t0"
		else
			boot_qemu stopped "$cell_dir" "$loader" "$accel" "$kernel" "$initrd" "$dtb" "$kargs"
		fi
		[ "$stopped" -eq 0 ] || timed_out=(--timed-out)
		# A console that ran to the guest's last line may be reused by a
		# later run with the same inputs; a cut-off one never.
		nmx boot-cache keep --cache "$boots" --key "$key" --log "$cell_dir/boot.log" \
			--origin "${cell_dir#"$NMX_RESULTS"/}" "${timed_out[@]}" 2>/dev/null || true
	fi
	secs=$(seconds_since "$t0")
	touch "$cell_dir/boot.log"
	# Failures the tree's FINDINGS.md names for this cell and variant are
	# XFAIL (nmx judge --described: a maintainer's patches are judged by
	# the expectations of the variant they were applied to).
	recorded --stdout "$cell_dir/verdict.txt" --may-fail "$cell_dir" "$NMX_BIN" \
		judge --log "$cell_dir/boot.log" --out "$cell_dir" "${timed_out[@]}" \
		--described "${CELL[facts]}" || rc=$?
	if [ -n "$origin" ]; then
		how="reused the console of $origin"
	elif [ "$engine" = lava ]; then
		how="lava-run exited"
		[ "$stopped" -eq 0 ] || how="lava-run stopped after timeout"
	else
		how="QEMU exited"
		[ "$stopped" -eq 0 ] || how="QEMU killed after timeout"
	fi
	record_stage "$cell_dir" boot ok "$secs" "$how"
	progress "${CELL[cell]} (${CELL[tree]}-${CELL[variant]}): $(cat "$cell_dir/verdict.txt")"
	return "$rc"
}

main "$@"
