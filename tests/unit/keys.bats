#!/usr/bin/env bats
# The keys of what a run may reuse instead of doing again. nmx boot-cache:
# the key of what decides a console, and the consoles a later boot with
# that key is judged from instead of booting (matrix.sh --reuse-boots,
# --patches; what boot.sh does with it: matrix_run.bats, patches.bats).
# nmx stage-key: the key of a build stage's inputs (build.sh keeps a
# stage's output while it matches: build.bats).

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

# A scratch git tree as build.sh's worktree is one.
stage_tree() {
	local t=$SCRATCH/tree
	mkdir -p "$t/arch/x86/boot" "$t/kernel" "$t/scripts/kconfig"
	echo 'obj-y += a.o' >"$t/Makefile"
	echo 'config FOO' >"$t/kernel/Kconfig.preempt"
	echo 'int a;' >"$t/kernel/a.c"
	echo 'all:' >"$t/arch/x86/Makefile"
	echo 'all:' >"$t/arch/x86/boot/Makefile"
	git -C "$t" init -q
	git -C "$t" add -A
	git -C "$t" -c user.name=t -c user.email=t@t commit -qm base
	echo "$t"
}

skey() { # TREE [options]: stage-key with the host compiler
	local t=$1
	shift
	"$NMX" stage-key --src "$t" --compiler gcc "$@"
}

commit() { # TREE FILE TEXT
	echo "$3" >>"$1/$2"
	git -C "$1" -c user.name=t -c user.email=t@t commit -qam "$2"
}

@test "stage-key: configuring's key moves with Kconfig files and the arch Makefile, not with C files or deeper Makefiles" {
	local t k0 c0
	t=$(stage_tree)
	k0=$(skey "$t" --kconfig -- ARCH=x86)
	c0=$(skey "$t" -- ARCH=x86)
	[[ "$k0" =~ ^[0-9a-f]{16}$ ]]
	[ "$(skey "$t" --kconfig -- ARCH=x86)" = "$k0" ]
	[ "$(skey "$t" --kconfig -- ARCH=arm)" != "$k0" ]
	commit "$t" kernel/a.c 'int b;'
	[ "$(skey "$t" --kconfig -- ARCH=x86)" = "$k0" ]
	[ "$(skey "$t" -- ARCH=x86)" != "$c0" ]
	# A Makefile below arch/<arch>/ is not configuring's.
	commit "$t" arch/x86/boot/Makefile '# x'
	[ "$(skey "$t" --kconfig -- ARCH=x86)" = "$k0" ]
	commit "$t" arch/x86/Makefile '# x'
	k1=$(skey "$t" --kconfig -- ARCH=x86)
	[ "$k1" != "$k0" ]
	commit "$t" kernel/Kconfig.preempt 'config BAR'
	[ "$(skey "$t" --kconfig -- ARCH=x86)" != "$k1" ]
}

@test "stage-key: an uncommitted edit, another .config, a changed fragment symbol move the key; a fragment comment does not" {
	local t k0
	t=$(stage_tree)
	printf '# from %s\nCONFIG_A=y\n' /some/path >"$SCRATCH/requested"
	cp "$SCRATCH/requested" "$SCRATCH/dotconfig"
	k0=$(skey "$t" --config "$SCRATCH/requested" --file "$SCRATCH/dotconfig")
	echo 'int c;' >>"$t/kernel/a.c"
	[ "$(skey "$t" --config "$SCRATCH/requested" --file "$SCRATCH/dotconfig")" != "$k0" ]
	git -C "$t" checkout -q kernel/a.c
	[ "$(skey "$t" --config "$SCRATCH/requested" --file "$SCRATCH/dotconfig")" = "$k0" ]
	sed -i 's|/some/path|/another/checkout|' "$SCRATCH/requested"
	[ "$(skey "$t" --config "$SCRATCH/requested" --file "$SCRATCH/dotconfig")" = "$k0" ]
	sed -i 's|/some/path|/another/checkout|' "$SCRATCH/dotconfig"
	[ "$(skey "$t" --config "$SCRATCH/requested" --file "$SCRATCH/dotconfig")" != "$k0" ]
	echo 'CONFIG_B=y' >>"$SCRATCH/requested"
	[ "$(skey "$t" --config "$SCRATCH/requested")" != "$(skey "$t" --config "$SCRATCH/dotconfig")" ]
}

@test "stage-key --stage: the inputs the table of stages names, from the cell's facts and directories" {
	local t vars=(ARCH=x86 KBUILD_BUILD_USER=nmx)
	t=$(stage_tree)
	nmx describe --tree linux-6.12 --variant upstream --cell x86_64 >"$SCRATCH/cell.tsv"
	printf '# from /x\nCONFIG_A=y\n' >"$SCRATCH/requested.config"
	printf 'CONFIG_A=y\nCONFIG_B=y\n' >"$SCRATCH/.config"
	# configure: the files configuring reads, the compiler, the requested symbols, make's variables
	[ "$("$NMX" stage-key --src "$t" --stage configure --described "$SCRATCH/cell.tsv" \
		--cell-dir "$SCRATCH" -- "${vars[@]}")" = \
		"$(skey "$t" --kconfig --config "$SCRATCH/requested.config" -- "${vars[@]}")" ]
	# kernel: the commit, the compiler, the .config, make's variables, the cell's targets
	[ "$("$NMX" stage-key --src "$t" --stage kernel --described "$SCRATCH/cell.tsv" \
		--build-dir "$SCRATCH" -- "${vars[@]}")" = \
		"$(skey "$t" --file "$SCRATCH/.config" -- "${vars[@]}" bzImage)" ]
	# The cell's facts are what it reads: another target, another key.
	sed -i 's/^make_targets\[\]\tbzImage/make_targets[]\tvmlinux/' "$SCRATCH/cell.tsv"
	[ "$("$NMX" stage-key --src "$t" --stage kernel --described "$SCRATCH/cell.tsv" \
		--build-dir "$SCRATCH" -- "${vars[@]}")" = \
		"$(skey "$t" --file "$SCRATCH/.config" -- "${vars[@]}" vmlinux)" ]
	run "$NMX" stage-key --src "$t" --stage kernel --described "$SCRATCH/cell.tsv" -- "${vars[@]}"
	[ "$status" -eq 2 ]
	[[ "$output" == *"stage kernel takes dotconfig: give --build-dir"* ]]
	run "$NMX" stage-key --src "$t" --stage guest --described "$SCRATCH/cell.tsv"
	[ "$status" -eq 2 ]
	[[ "$output" == *"guest is no stage with a key"* ]]
	run "$NMX" stage-key --src "$t" --stage kernel --compiler gcc --described "$SCRATCH/cell.tsv"
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage: nmx stage-key"* ]]
}

@test "stage-key: no git tree, no compiler, no file, no --src: exit 2 saying what" {
	local t
	t=$(stage_tree)
	run "$NMX" stage-key --src "$SCRATCH" --compiler gcc
	[ "$status" -eq 2 ]
	[[ "$output" == *"'git -C $SCRATCH rev-parse HEAD' failed"* ]]
	run "$NMX" stage-key --src "$t" --compiler no-such-gcc
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot run no-such-gcc"* ]]
	run "$NMX" stage-key --src "$t" --compiler gcc --file "$SCRATCH/none"
	[ "$status" -eq 2 ]
	[[ "$output" == *"$SCRATCH/none"* ]]
	run "$NMX" stage-key --compiler gcc
	[ "$status" -eq 2 ]
	[[ "$output" == *'usage: nmx stage-key'* ]]
}
