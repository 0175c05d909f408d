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
)

# The guests' static busybox comes from Debian's packages of these
# architectures (there is none for big-endian ARM).
foreign_archs=(arm64 armel)

add_foreign_archs() {
	local arch added=0
	for arch in "${foreign_archs[@]}"; do
		dpkg --print-foreign-architectures | grep -qx "$arch" && continue
		dpkg --add-architecture "$arch"
		added=1
	done
	[ "$added" -eq 0 ] || apt-get update -q
}

main() {
	local pkg missing=()
	for pkg in "${packages[@]}"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
			grep -q 'install ok installed' || missing+=("$pkg")
	done
	if [ "$(id -u)" -ne 0 ]; then
		[ "${#missing[@]}" -eq 0 ] && return 0
		echo "notrace-matrix: need root to install ${missing[*]}" >&2
		return 2
	fi
	add_foreign_archs
	[ "${#missing[@]}" -eq 0 ] && return 0
	echo "notrace-matrix: installing ${missing[*]}" >&2
	apt-get update -q
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${missing[@]}"
}

main "$@"
