#!/usr/bin/env bash
# Install the Debian packages notrace-matrix needs, only those missing.
set -euo pipefail

packages=(
	# the kernel tree and what building it takes
	linux-source-6.1 linux-source-6.12 make gcc bc bison flex libssl-dev libelf-dev cpio
	xz-utils git ccache kmod file
	# cross compilers and the boot side
	gcc-aarch64-linux-gnu gcc-arm-linux-gnueabi
	qemu-system-arm qemu-system-x86 u-boot-tools
	# host tools and their tests
	libyaml-dev libjansson-dev shellcheck bats python3-ply
	# scripts/fuzz.sh: libFuzzer, ASan and UBSan
	clang
	# the reports' tests: XML, KCIDB schema, HTML rendered headless
	libxml2-utils python3-jsonschema chromium
	# npm, for gitlab-ci-local (the pipeline's tests); distcc (NMX_DISTCC_HOSTS)
	nodejs distcc
)

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# gitlab-ci-local runs the generated .gitlab-ci.yml here (tests/unit/
# gitlab.bats; the README). 4.66.1: later versions crash on Node 20. Into
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

# The guests' static busybox comes from Debian's packages of these
# architectures (there is none for big-endian ARM).
foreign_archs=(arm64 armel)

add_foreign_archs() {
	local arch added=0 have
	# Read once: under pipefail, grep -q closing the pipe early can make
	# dpkg die of SIGPIPE, and a present architecture look missing.
	have=$(dpkg --print-foreign-architectures)
	for arch in "${foreign_archs[@]}"; do
		grep -qx "$arch" <<<"$have" && continue
		dpkg --add-architecture "$arch"
		added=1
	done
	[ "$added" -eq 0 ] || apt-get update -q
}

main() {
	local pkg missing=()
	for pkg in "${packages[@]}"; do
		[[ "$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null)" == *'install ok installed'* ]] ||
			missing+=("$pkg")
	done
	if [ "$(id -u)" -ne 0 ]; then
		if [ "${#missing[@]}" -gt 0 ]; then
			echo "notrace-matrix: need root to install ${missing[*]}" >&2
			return 2
		fi
	else
		add_foreign_archs
		if [ "${#missing[@]}" -gt 0 ]; then
			echo "notrace-matrix: installing ${missing[*]}" >&2
			apt-get update -q
			DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
		fi
	fi
	install_gitlab_ci_local
}

main "$@"
