#!/usr/bin/env bats
# A tree from another Debian suite (matrix.yaml "suite:", linux-7.2 from
# unstable): scripts/fetch-deb.sh downloads and unpacks it into the cache
# with apt lists of its own, and build.sh unpacks the tree from there. apt
# is a fake here (tests/unit/fetch_deb.bats writes it): it serves the fake
# tree as a .deb, or fails as an unreachable archive does.

load helpers

# A fake apt-get on PATH: "update" fails if NMX_FAKE_APT_DOWN is set, and
# records the sources list it was given; "download linux-source-fake"
# builds the package in the current directory.
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
			download) cp "$SCRATCH/linux-source-fake_9.9.1-1_all.deb" .; exit 0 ;;
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
