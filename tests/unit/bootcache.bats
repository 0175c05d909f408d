#!/usr/bin/env bats
# nmx boot-cache: the key of what decides a console, and the consoles a
# later boot with that key is judged from instead of booting (matrix.sh
# --reuse-boots, --patches). What boot.sh does with it: matrix_run.bats
# and patches.bats.

load helpers

setup() {
	SCRATCH=$(mktemp -d)
	head -c 70000 /dev/urandom >"$SCRATCH/kernel"
	printf 'initramfs' >"$SCRATCH/initrd"
	ENDED=$TESTS_DIR/report/runs/all-pass/linux-6.1-upstream/x86_64/boot.log
}

key() { # [option value]...: the key of the x86_64 cell's boot, changed by them
	local -A o=([engine]=qemu [loader]=uboot [accel]=tcg [timeout]=900
		[qemu-version]='QEMU emulator version 7.2.9'
		[kernel]=$SCRATCH/kernel [initrd]=$SCRATCH/initrd)
	local -a argv=()
	while [ $# -gt 0 ]; do o[$1]=$2; shift 2; done
	for k in "${!o[@]}"; do argv+=("--$k" "${o[$k]}"); done
	nmx boot-cache key --cell x86_64 "${argv[@]}"
}

@test "boot-cache: nmx's SHA-256 is sha256sum's, across block boundaries" {
	cc -I "$TOP/tools/nmx" -o "$SCRATCH/sha" "$TESTS_DIR/unit/sha256_check.c" \
		"$TOP/tools/nmx/sha256.c"
	for n in 0 1 55 56 63 64 65 119 120 1000 70001; do
		head -c "$n" "$SCRATCH/kernel" >"$SCRATCH/in"
		[ "$("$SCRATCH/sha" <"$SCRATCH/in")" = "$(sha256sum <"$SCRATCH/in" | cut -d' ' -f1)" ]
	done
}

@test "boot-cache key: the same inputs give one key; each input changes it" {
	local base
	base=$(key)
	[[ "$base" =~ ^[0-9a-f]{16}$ ]]
	[ "$(key)" = "$base" ]
	[ "$(key loader qemu)" != "$base" ]
	[ "$(key engine lava)" != "$base" ]
	[ "$(key accel kvm)" != "$base" ]
	[ "$(key timeout 901)" != "$base" ]
	[ "$(key kernel-args printk.time=1)" != "$base" ]
	[ "$(key qemu-version 'QEMU emulator version 10.0.2')" != "$base" ]
	cp "$SCRATCH/kernel" "$SCRATCH/kernel2"
	[ "$(key kernel "$SCRATCH/kernel2")" = "$base" ]
	printf 'x' >>"$SCRATCH/kernel2"
	[ "$(key kernel "$SCRATCH/kernel2")" != "$base" ]
	printf 'dtb' >"$SCRATCH/dtb"
	[ "$(key dtb "$SCRATCH/dtb")" != "$base" ]
	# The kernel's bytes as the initramfs's are another boot.
	[ "$(key kernel "$SCRATCH/initrd" initrd "$SCRATCH/kernel")" != "$base" ]
	# The arch file is part of the key: a changed machine boots again.
	cp -r "$TOP/arches" "$SCRATCH/arches"
	echo '# changed' >>"$SCRATCH/arches/x86_64.yaml"
	[ "$("$NMX" -a "$SCRATCH/arches" boot-cache key --cell x86_64 --engine qemu \
		--loader uboot --accel tcg --timeout 900 \
		--qemu-version 'QEMU emulator version 7.2.9' \
		--kernel "$SCRATCH/kernel" --initrd "$SCRATCH/initrd")" != "$base" ]
}

@test "boot-cache key: a missing input or option is an error that names it" {
	run key kernel "$SCRATCH/nonexistent"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$SCRATCH/nonexistent"* ]]
	run nmx boot-cache key --cell x86_64 --engine qemu
	[ "$status" -eq 2 ]
	[[ "$output" == *'usage: nmx boot-cache key'* ]]
	run nmx boot-cache key --cell no-such-cell --engine qemu --loader uboot \
		--accel tcg --timeout 9 --qemu-version q --kernel "$SCRATCH/kernel" \
		--initrd "$SCRATCH/initrd"
	[ "$status" -eq 2 ]
	[[ "$output" == *no-such-cell* ]]
	run nmx boot-cache frobnicate
	[ "$status" -eq 2 ]
}

@test "boot-cache keep, lookup: a console that ran to the end is kept and found by its key" {
	local cache=$SCRATCH/boots k=0123456789abcdef
	run "$NMX" boot-cache lookup --cache "$cache" --key "$k" --log "$SCRATCH/got.log"
	[ "$status" -eq 1 ]
	[ ! -e "$SCRATCH/got.log" ]
	run "$NMX" boot-cache keep --cache "$cache" --key "$k" --log "$ENDED" \
		--origin 20261206T000000Z/linux-6.1-upstream/x86_64
	[ "$status" -eq 0 ]
	run "$NMX" boot-cache lookup --cache "$cache" --key "$k" --log "$SCRATCH/got.log"
	[ "$status" -eq 0 ]
	[ "$output" = 20261206T000000Z/linux-6.1-upstream/x86_64 ]
	cmp "$ENDED" "$SCRATCH/got.log"
	# Another key is another boot.
	run "$NMX" boot-cache lookup --cache "$cache" --key fedcba9876543210 --log "$SCRATCH/other.log"
	[ "$status" -eq 1 ]
}

@test "boot-cache keep: a console cut before the guest's end, or by the time limit, is never kept" {
	local cache=$SCRATCH/boots k=0123456789abcdef
	head -50 "$ENDED" >"$SCRATCH/cut.log"
	run "$NMX" boot-cache keep --cache "$cache" --key "$k" --log "$SCRATCH/cut.log" --origin r/t-v/c
	[ "$status" -eq 1 ]
	run "$NMX" boot-cache keep --cache "$cache" --key "$k" --log "$ENDED" --origin r/t-v/c --timed-out
	[ "$status" -eq 1 ]
	run "$NMX" boot-cache lookup --cache "$cache" --key "$k" --log "$SCRATCH/got.log"
	[ "$status" -eq 1 ]
}

@test "boot-cache keep: consoles no boot matched for 30 days go; a matched one stays" {
	local cache=$SCRATCH/boots old=aaaaaaaaaaaaaaaa used=bbbbbbbbbbbbbbbb
	for k in $old $used; do
		"$NMX" boot-cache keep --cache "$cache" --key "$k" --log "$ENDED" --origin "r/t-v/$k"
		touch -d '40 days ago' "$cache/$k"
	done
	# A lookup is a match: the entry is young again.
	"$NMX" boot-cache lookup --cache "$cache" --key "$used" --log "$SCRATCH/got.log"
	mkdir "$cache/not-a-key"
	touch -d '40 days ago' "$cache/not-a-key"
	"$NMX" boot-cache keep --cache "$cache" --key 0123456789abcdef --log "$ENDED" --origin r/t-v/new
	[ ! -e "$cache/$old" ]
	[ -f "$cache/$used/boot.log" ]
	[ -f "$cache/0123456789abcdef/boot.log" ]
	# Only what boot-cache made is its to remove.
	[ -d "$cache/not-a-key" ]
}

@test "boot-cache lookup, keep: bad input is exit 2, saying what" {
	run "$NMX" boot-cache lookup --cache "$SCRATCH" --key ../../etc --log "$SCRATCH/x"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--key '../../etc' is not 16 hex digits"* ]]
	run "$NMX" boot-cache keep --cache "$SCRATCH" --key 0123456789abcdef --log "$ENDED"
	[ "$status" -eq 2 ]
	[[ "$output" == *'usage: nmx boot-cache keep'* ]]
	run "$NMX" boot-cache lookup --cache "$SCRATCH" --key 0123456789abcdef --log "$SCRATCH/x" --timed-out
	[ "$status" -eq 2 ]
	run "$NMX" boot-cache keep --cache "$SCRATCH/c" --key 0123456789abcdef \
		--log "$SCRATCH/nonexistent.log" --origin r/t-v/c
	[ "$status" -eq 2 ]
}
