#!/usr/bin/env bash
# Install the Debian packages notrace-matrix needs, only those missing:
# the project's own, then what the trees and cells name (nmx deps: each
# tree's linux-source, each cell's cross compiler, QEMU, firmware, and the
# architectures of the guests' busybox-static). A tree's linux-source from
# another Debian suite (linux-7.2: unstable) is downloaded and unpacked into
# the cache (scripts/fetch-deb.sh), never installed.
set -euo pipefail

packages=(
	# what building a kernel tree takes (the trees themselves: nmx deps),
	# and what fetching one from another suite does (apt, dpkg-deb, the keyring)
	make gcc binutils bc bison flex libssl-dev libelf-dev cpio
	xz-utils git ccache kmod file debian-archive-keyring
	# host tools and their tests
	libyaml-dev libjansson-dev shellcheck bats python3-ply
	# scripts/fuzz.sh: libFuzzer, ASan and UBSan
	clang
	# the reports' tests: XML, KCIDB schema, HTML rendered headless
	libxml2-utils python3-jsonschema chromium
	# npm, for gitlab-ci-local (the pipeline's tests); distcc (NMX_DISTCC_HOSTS)
	nodejs distcc
)
# LAVA's dispatcher, to boot the cells as LAVA jobs (boot.sh, lava-run
# standalone). Without its recommends: those are a lab's (NFS, TFTP, LXC).
lava_packages=(lava-dispatcher)

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# gitlab-ci-local runs the generated .gitlab-ci.yml here (tests/unit/
# gitlab.bats; docs/ci.md). 4.66.1: later versions crash on Node 20. Into
# the cache, from the npm registry, as whoever runs this.
GITLAB_CI_LOCAL_VERSION=4.66.1
install_gitlab_ci_local() {
	local dir=$NMX_CACHE/npm
	[ "$("$dir/node_modules/.bin/gitlab-ci-local" --version 2>/dev/null)" = "$GITLAB_CI_LOCAL_VERSION" ] &&
		return 0
	command -v npm >/dev/null || return 0	# said by the package check
	echo "notrace-matrix: installing gitlab-ci-local@$GITLAB_CI_LOCAL_VERSION into $dir" >&2
	mkdir -p "$dir"
	npm install --no-audit --no-fund --prefix "$dir" "gitlab-ci-local@$GITLAB_CI_LOCAL_VERSION" >&2
}

# The guests' static busybox comes from Debian's packages of the cells'
# architectures: those not this machine's own are added to dpkg.
add_foreign_archs() { # arch...
	local arch added=0 have native
	# Read once: under pipefail, grep -q closing the pipe early can make
	# dpkg die of SIGPIPE, and a present architecture look missing.
	have=$(dpkg --print-foreign-architectures)
	native=$(dpkg --print-architecture)
	for arch in "$@"; do
		[ "$arch" != "$native" ] || continue
		grep -qx "$arch" <<<"$have" && continue
		dpkg --add-architecture "$arch"
		added=1
	done
	[ "$added" -eq 0 ] || apt-get update -q
}

# install_missing [--no-recommends] [--archs ARCH...] -- PACKAGE...: those
# not installed.
install_missing() {
	local pkg missing=() archs=() apt_opts=()
	while [ "$1" != -- ]; do
		case $1 in
		--no-recommends) apt_opts+=(--no-install-recommends) ;;
		--archs) ;;
		*) archs+=("$1") ;;
		esac
		shift
	done
	shift
	for pkg in "$@"; do
		[[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" == *'install ok installed'* ]] ||
			missing+=("$pkg")
	done
	if [ "$(id -u)" -ne 0 ]; then
		if [ "${#missing[@]}" -gt 0 ]; then
			echo "notrace-matrix: need root to install ${missing[*]}" >&2
			return 2
		fi
		return 0
	fi
	[ "${#archs[@]}" -eq 0 ] || add_foreign_archs "${archs[@]}"
	if [ "${#missing[@]}" -gt 0 ]; then
		echo "notrace-matrix: installing ${missing[*]}" >&2
		apt-get update -q
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${apt_opts[@]}" "${missing[@]}"
	fi
}

main() {
	local kind name suite suite_name deps
	local -a cell_packages=() busybox_archs=() suite_packages=()
	install_missing -- "${packages[@]}"
	install_missing --no-recommends -- "${lava_packages[@]}"
	# nmx reads the cells' needs from arches/ (it needs the packages above).
	make -s -C "$NMX_TOP/tools/nmx" >&2
	deps=$(nmx deps)
	while read -r kind name suite_name; do
		case $kind in
		package) cell_packages+=("$name") ;;
		busybox-arch) busybox_archs+=("$name") ;;
		# "suite-package SUITE PACKAGE"
		suite-package) suite_packages+=("$name $suite_name") ;;
		esac
	done <<<"$deps"
	install_missing --archs "${busybox_archs[@]}" -- "${cell_packages[@]}"
	for suite in "${suite_packages[@]}"; do
		"$NMX_TOP/scripts/fetch-deb.sh" "${suite%% *}" "${suite#* }"
	done
	install_gitlab_ci_local
}

main "$@"
