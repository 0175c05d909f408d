#!/usr/bin/env bats
# build.sh --distcc-hosts (matrix.sh: NMX_DISTCC_HOSTS): the kernel's
# compiles go through ccache to distcc and a distccd, here one on
# 127.0.0.1 serving this machine's compilers.

load helpers
scripts_under_test

start_distccd() {
	PORT=$((36000 + RANDOM % 1000))
	# Run as root, distccd drops to its own user: it logs to our stderr.
	distccd --no-detach --log-stderr --log-level info --allow 127.0.0.1 \
		--listen 127.0.0.1 --port "$PORT" 2>"$SCRATCH/distccd.log" &
	DISTCCD=$!
	local _
	for _ in $(seq 50); do
		grep -q 'listening on' "$SCRATCH/distccd.log" 2>/dev/null && return 0
		sleep 0.1
	done
	false
}

teardown() {
	[ -z "${DISTCCD:-}" ] || kill "$DISTCCD" 2>/dev/null || true
	rm -rf "$SCRATCH"
}

@test "distcc: a ccache miss is compiled by the distccd, and the reproducer says so" {
	command -v distccd >/dev/null || { echo "no distccd: scripts/install-deps.sh installs distcc" >&2; false; }
	setup_fake CONFIG_FAKE_COMPILE=y
	start_distccd
	export DISTCC_FALLBACK=0
	for stage in prepare configure kernel; do
		run "$TOP/build.sh" --stage "$stage" --distcc-hosts "127.0.0.1:$PORT/4" \
			--cell-dir "$CELL" fake-good upstream fake
		[ "$status" -eq 0 ]
	done
	[ -f "$NMX_CACHE/work/fake-good-upstream/out/fake/compiled.o" ]
	grep -q 'COMPILE_OK .*compiled.c' "$SCRATCH/distccd.log"
	# As many jobs as distcc says the hosts take (4 here, more than nproc + 1 on 2 cores).
	grep -q "CCACHE_PREFIX=distcc DISTCC_HOSTS=127.0.0.1:$PORT/4 make .* -j$(distcc -j) fakeImage" "$CELL/reproduce.sh"
}

@test "distcc: without --distcc-hosts nothing goes to distcc (build.sh takes no knob from the environment)" {
	setup_fake CONFIG_FAKE_COMPILE=y
	export NMX_DISTCC_HOSTS=127.0.0.1:1/4
	build fake-good prepare
	build fake-good configure
	build fake-good kernel
	[ "$status" -eq 0 ]
	[ -f "$NMX_CACHE/work/fake-good-upstream/out/fake/compiled.o" ]
	run grep -c distcc "$CELL/reproduce.sh"
	[ "$output" = 0 ]
}
