#!/usr/bin/env bats
# A tree from another Debian suite (matrix.yaml "suite:", linux-7.2 from
# unstable): scripts/fetch-deb.sh downloads and unpacks it into the cache
# with apt lists of its own, and build.sh unpacks the tree from there. apt
# is a fake here (tests/unit/fetch_deb.bats writes it): it serves the fake
# tree as a .deb, or fails as an unreachable archive does.

load helpers
scripts_under_test

# A fake apt-get on PATH: "update" fails if NMX_FAKE_APT_DOWN is set, and
# records the sources list it was given; "download PKG" puts
# $SCRATCH/debs/PKG.deb, or else the fake tree's package, in the current
# directory.
setup_apt() {
	local bin=$SCRATCH/bin pkg=$SCRATCH/pkg
	mkdir -p "$bin" "$pkg/DEBIAN" "$pkg/usr/src"
	tar -C "$TESTS_DIR/fake-tree" -cJf "$pkg/usr/src/linux-source-fake.tar.xz" linux-fake
	printf 'Package: linux-source-fake\nVersion: 9.9.1-1\nArchitecture: all\nMaintainer: nobody <nobody@example.org>\nDescription: fake\n' \
		>"$pkg/DEBIAN/control"
	dpkg-deb -b "$pkg" "$SCRATCH/linux-source-fake_9.9.1-1_all.deb" >/dev/null
	cat >"$bin/apt-get" <<-EOF
		#!/bin/sh
		echo "apt-get \$*" >>"$SCRATCH/apt.calls"
		for a; do case \$a in Dir::Etc::SourceList=*) cp "\${a#*=}" "$SCRATCH/sources.list" ;; esac; done
		for a; do
			case \$a in
			update) [ -z "\${NMX_FAKE_APT_DOWN:-}" ] || { echo "E: Failed to fetch"; exit 100; }; exit 0 ;;
			download) shift \$((\$# - 1))
				if [ -e "$SCRATCH/debs/\$1.deb" ]; then cp "$SCRATCH/debs/\$1.deb" "\${1}_fake_all.deb"
				else cp "$SCRATCH/linux-source-fake_9.9.1-1_all.deb" .; fi
				exit 0 ;;
			esac
		done
		exit 1
	EOF
	chmod +x "$bin/apt-get"
	export PATH=$bin:$PATH NMX_CACHE=$SCRATCH/cache
}

@test "fetch-deb: the package is unpacked into the cache, its version recorded; the sources list is its own and signed-by Debian's keyring" {
	setup_apt
	run "$TOP/scripts/fetch-deb.sh" unstable linux-source-fake
	[ "$status" -eq 0 ]
	local dir=$NMX_CACHE/debian/unstable/linux-source-fake
	[ "$(cat "$dir/VERSION")" = 9.9.1-1 ]
	[ -f "$dir/root/usr/src/linux-source-fake.tar.xz" ]
	grep -q "^deb \[arch=$(dpkg --print-architecture) signed-by=/usr/share/keyrings/debian-archive-keyring.gpg\] http://deb.debian.org/debian unstable main$" \
		"$SCRATCH/sources.list"
	grep -q 'Dir::State::Lists=.*/cache/debian/unstable/apt/lists' "$SCRATCH/apt.calls"
	# No .deb left behind; a second call reuses the unpacked copy.
	run find "$NMX_CACHE" -name '*.deb'
	[ -z "$output" ]
	: >"$SCRATCH/apt.calls"
	run "$TOP/scripts/fetch-deb.sh" unstable linux-source-fake
	[ "$status" -eq 0 ]
	[ ! -s "$SCRATCH/apt.calls" ]
	run "$TOP/scripts/fetch-deb.sh" --refresh unstable linux-source-fake
	[ "$status" -eq 0 ]
	grep -q ' download linux-source-fake$' "$SCRATCH/apt.calls"
}

@test "fetch-deb: an archive that cannot be reached is exit 2, saying what was tried; bad names are refused" {
	setup_apt
	NMX_FAKE_APT_DOWN=1 run "$TOP/scripts/fetch-deb.sh" unstable linux-source-fake
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot read Debian unstable's package lists from http://deb.debian.org/debian (apt-get update with "*"/sources.list; see "*"fetch.log)"* ]]
	[ ! -e "$NMX_CACHE/debian/unstable/linux-source-fake/VERSION" ]
	run "$TOP/scripts/fetch-deb.sh" 'unstable main' linux-source-fake
	[ "$status" -eq 2 ]
	[[ "$output" == *"'unstable main' is not a Debian suite name"* ]]
	run "$TOP/scripts/fetch-deb.sh" unstable
	[ "$status" -eq 2 ]
}

# The fake matrix with a tree from suite "unstable".
setup_suite_tree() {
	setup_boot
	setup_apt
	sed -i "/^  fake-bad:/i\\
  fake-unstable:\\
    package: linux-source-fake\\
    suite: unstable\\
    tarball: /usr/src/linux-source-fake.tar.xz\\
    series: $TESTS_DIR/fake-tree/series-good\\
    variants: {upstream: {}}" "$SCRATCH/matrix.yaml"
}

@test "a tree with a suite: build.sh fetches it the first time, unpacks the tree from the cache, records the version and suite" {
	setup_suite_tree
	run "$TOP/build.sh" --cell-dir "$CELL" fake-unstable upstream fakeboot
	[ "$status" -eq 0 ]
	[ -d "$NMX_CACHE/src/linux-source-fake_9.9.1-1" ]
	grep -q '^# tree: .*linux-source-fake_9.9.1-1 unpacked from .*/cache/debian/unstable/linux-source-fake/root/usr/src/linux-source-fake.tar.xz' \
		"$CELL/reproduce.sh"
	grep -q $'^tree_package\tlinux-source-fake 9.9.1-1 (Debian unstable)$' "$CELL/meta.tsv"
	run "$NMX" -m "$NMX_MATRIX" -a "$NMX_ARCHES_DIR" deps
	[[ "$output" == *"suite-package unstable linux-source-fake"* ]]
	[[ "$output" != *"package linux-source-fake"$'\n'* ]]
}

@test "a tree with a suite that cannot be fetched: prepare is INFRA_FAIL (exit 2) saying so" {
	setup_suite_tree
	NMX_FAKE_APT_DOWN=1 run "$TOP/build.sh" --cell-dir "$CELL" fake-unstable upstream fakeboot
	[ "$status" -eq 2 ]
	[[ "$output" == *"prepare: INFRA_FAIL: linux-source-fake not fetched from Debian unstable: "*"cannot read Debian unstable's package lists"* ]]
}

@test "matrix.yaml: a suite that is not a plain Debian suite name is refused where it stands" {
	setup_suite_tree
	sed -i 's/^    suite: unstable$/    suite: "unstable main"/' "$SCRATCH/matrix.yaml"
	run "$NMX" -m "$NMX_MATRIX" -a "$NMX_ARCHES_DIR" trees
	[ "$status" -eq 2 ]
	[[ "$output" == *"matrix.yaml:"*"tree fake-unstable: suite 'unstable main' is not a Debian suite name"* ]]
}

# A copy of the bootable fake cell whose QEMU comes from Debian suite
# fake-backports: apt serves the fake QEMU as qemu-system-misc, in a
# wrapper that says how it was run, and a firmware directory as
# qemu-system-data. The system's fake QEMU stays on PATH: only the
# unpacked one writes suite-qemu.args.
setup_suite_qemu() {
	local pkg
	setup_boot
	setup_apt
	mkdir -p "$SCRATCH/debs" "$SCRATCH/arches" "$SCRATCH/qemu-system-misc/usr/bin" \
		"$SCRATCH/qemu-system-data/usr/share/qemu"
	cat >"$SCRATCH/qemu-system-misc/usr/bin/qemu-system-nmxfake" <<-EOF
		#!/bin/sh
		[ "\$1" = --version ] && { echo "QEMU emulator version 10.0 (notrace-matrix fake, fake-backports)"; exit 0; }
		printf '%s\n' "QEMU_MODULE_DIR=\$QEMU_MODULE_DIR" "\$@" >"$SCRATCH/suite-qemu.args"
		exec "$TESTS_DIR/fake-tree/bin/qemu-system-nmxfake" "\$@"
	EOF
	chmod +x "$SCRATCH/qemu-system-misc/usr/bin/qemu-system-nmxfake"
	for pkg in qemu-system-misc qemu-system-data; do
		mkdir -p "$SCRATCH/$pkg/DEBIAN"
		printf 'Package: %s\nVersion: 1:10.0-1~bpo12+1\nArchitecture: all\nMaintainer: nobody <nobody@example.org>\nDescription: fake\n' \
			"$pkg" >"$SCRATCH/$pkg/DEBIAN/control"
		dpkg-deb -b "$SCRATCH/$pkg" "$SCRATCH/debs/$pkg.deb" >/dev/null
	done
	cp "$TESTS_DIR"/fake-tree/arches-boot/*.yaml "$SCRATCH/arches/"
	sed -e 's/^name: fakeboot$/name: fakesuite/' \
		-e 's/^  binary: qemu-system-nmxfake$/&\n  suite: fake-backports/' \
		"$SCRATCH/arches/fakeboot.yaml" >"$SCRATCH/arches/fakesuite.yaml"
	export NMX_ARCHES_DIR=$SCRATCH/arches
	sed -i 's/^  cells: \[fakeboot\]$/  cells: [fakesuite]/' "$NMX_MATRIX"
}

@test "qemu.suite: the cell boots with QEMU fetched from that suite into the cache, with its firmware and no system modules" {
	setup_suite_qemu
	run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 0 ]
	local dir=$NMX_CACHE/debian/fake-backports run
	run=$(run_dir)/fake-good-upstream/fakesuite
	grep -q '"status": "PASS"' "$run/result.json"
	[ "$(head -n 1 "$SCRATCH/suite-qemu.args")" = "QEMU_MODULE_DIR=$dir/qemu-system-misc/root/usr/bin" ]
	[ "$(sed -n '2,3p' "$SCRATCH/suite-qemu.args" | paste -sd' ')" = "-L $dir/qemu-system-data/root/usr/share/qemu" ]
	grep -qx -- -nodefaults "$SCRATCH/suite-qemu.args"
	grep -q $'^qemu_version\tQEMU emulator version 10.0 (notrace-matrix fake, fake-backports)$' "$run/meta.tsv"
	# reproduce.sh runs the same QEMU.
	grep -qF "$dir/qemu-system-misc/root/usr/bin/qemu-system-nmxfake" "$run/reproduce.sh"
	# Fetched once: a second run asks nothing of apt.
	: >"$SCRATCH/apt.calls"
	run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 0 ]
	[ ! -s "$SCRATCH/apt.calls" ]
}

@test "qemu.suite: a QEMU that cannot be fetched is an infrastructure failure naming the package and suite" {
	setup_suite_qemu
	NMX_FAKE_APT_DOWN=1 run "$TOP/matrix.sh" --no-install
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot fetch qemu-system-misc from Debian fake-backports"* ]]
	[ ! -e "$SCRATCH/suite-qemu.args" ]
}
