#!/usr/bin/env bash
# install-deps.sh [--no-cells] [--tests] [--lava] [--distcc] [--gitlab-ci-local] [-- SELECTION]
#
# Install the Debian packages notrace-matrix needs, only those missing, by
# profile:
#   (always)          what a run needs: kernel build tools, the host tool's
#                     libraries, and what the trees and cells name (nmx deps:
#                     each tree's linux-source, each cell's cross compiler,
#                     QEMU, firmware, the architectures of the guests'
#                     busybox-static) -- what ./matrix.sh installs;
#   --no-cells        of that, only what builds and runs the host tool (a
#                     job that merges shards and writes reports);
#   --tests           what tests/run.sh needs beyond a run: the test tools,
#                     clang for the fuzzers, the reports' checkers, headless
#                     Chromium, and the three opt-ins below;
#   --lava            LAVA's dispatcher (NMX_BOOT_WITH=lava, lava-run);
#   --distcc          distcc (NMX_DISTCC_HOSTS);
#   --gitlab-ci-local Node.js and gitlab-ci-local (the generated pipeline).
# SELECTION (nmx cells' options: --tree, --variant, --cell, --set, --e2e;
# nothing after the -- is the default run): the trees and cells are those
# of that run only, as ./matrix.sh asks; without it, every tree and cell.
# A tree's linux-source from another Debian suite (linux-7.2: unstable) is
# downloaded and unpacked into the cache (scripts/fetch-deb.sh), never
# installed.
#
# It says before installing how many packages apt will add, how much it
# downloads and which dpkg architectures it adds; apt's own output goes to
# a log in the cache. Installing takes root; once done, a normal user runs
# the same profile with nothing missing, and nothing is asked of apt.
# Exit 0, or 2 saying what is missing and how to install it.
set -euo pipefail

run_packages=(
	# what building a kernel tree takes (the trees themselves: nmx deps),
	# and what fetching one from another suite does (apt, dpkg-deb, the keyring)
	make gcc binutils bc bison flex libssl-dev libelf-dev cpio
	xz-utils git ccache kmod file debian-archive-keyring
	# the host tool (tools/nmx)
	libyaml-dev libjansson-dev
)
test_packages=(
	shellcheck bats python3-ply
	# bats --jobs: the unit tests spread over the cores
	parallel
	# scripts/fuzz.sh: libFuzzer, ASan and UBSan
	clang
	# the reports' tests: XML, KCIDB schema, HTML rendered headless
	libxml2-utils python3-jsonschema chromium
)
# LAVA's dispatcher, to boot the cells as LAVA jobs (boot.sh, lava-run
# standalone). Without its recommends: those are a lab's (NFS, TFTP, LXC).
lava_packages=(lava-dispatcher)
distcc_packages=(distcc)
gcl_packages=(nodejs)

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

INSTALL_LOG=$NMX_CACHE/logs/install.log

# gitlab-ci-local runs the generated .gitlab-ci.yml here (tests/unit/
# gitlab.bats; docs/ci.md). 4.66.1: later versions crash on Node 20. Into
# the cache, from the npm registry, as whoever runs this.
GITLAB_CI_LOCAL_VERSION=4.66.1
install_gitlab_ci_local() {
	local dir=$NMX_CACHE/npm
	[ "$("$dir/node_modules/.bin/gitlab-ci-local" --version 2>/dev/null)" = "$GITLAB_CI_LOCAL_VERSION" ] &&
		return 0
	command -v npm >/dev/null || return 0	# said by the package check
	echo "notrace-matrix: installing gitlab-ci-local@$GITLAB_CI_LOCAL_VERSION into $dir (log: $INSTALL_LOG)" >&2
	# A new cache on a machine with every package: nothing made the
	# log's directory yet.
	mkdir -p "$dir" "${INSTALL_LOG%/*}"
	npm install --no-audit --no-fund --prefix "$dir" "gitlab-ci-local@$GITLAB_CI_LOCAL_VERSION" \
		>>"$INSTALL_LOG" 2>&1 || { err "npm install failed; see $INSTALL_LOG"; return 2; }
}

# apt, its output into the log; on failure the log's tail on the console.
apt_logged() {
	if ! DEBIAN_FRONTEND=noninteractive "$@" >>"$INSTALL_LOG" 2>&1; then
		tail -n 20 "$INSTALL_LOG" >&2
		err "'$*' failed; the whole output is in $INSTALL_LOG"
		return 2
	fi
}

# apt-get update, tried three times: a mirror in the middle of a sync
# serves an index of the wrong size for a minute ("Mirror sync in
# progress?"). Still failing, the install goes on with the lists apt has,
# and its own failure, if any, is the error.
# Once per run of this script: the profiles after the first use its lists.
APT_UPDATED=0
apt_update() {
	local try
	[ "$APT_UPDATED" -eq 0 ] || return 0
	APT_UPDATED=1
	for try in 1 2 3; do
		echo "# apt-get update, try $try" >>"$INSTALL_LOG"
		DEBIAN_FRONTEND=noninteractive apt-get update >>"$INSTALL_LOG" 2>&1 && return 0
		[ "$try" -eq 3 ] || sleep $((try * 5))
	done
	err "warning: apt-get update failed three times (see $INSTALL_LOG); going on with the lists apt has"
}

# The guests' static busybox comes from Debian's packages of the cells'
# architectures: those not this machine's own are added to dpkg.
missing_archs() { # arch...
	local arch have native
	# Read once: under pipefail, grep -q closing the pipe early can make
	# dpkg die of SIGPIPE, and a present architecture look missing.
	have=$(dpkg --print-foreign-architectures)
	native=$(dpkg --print-architecture)
	for arch in "$@"; do
		[ "$arch" != "$native" ] || continue
		grep -qx "$arch" <<<"$have" || echo "$arch"
	done
}

# What apt says an install would take: "N packages, X to download, Y on
# disk" from its summary lines (apt-get --assume-no stops before doing it).
apt_estimate() { # apt-get options and packages
	local out
	out=$(LC_ALL=C apt-get install --assume-no "$@" 2>/dev/null) || true
	awk '
		/ newly installed/ { for (i = 2; i <= NF; i++) if ($i == "newly") n = $(i - 1) }
		/^Need to get/ { dl = $4 " " $5 }
		/^After this operation/ { disk = $4 " " $5 }
		END {
			sub(/\/.*/, "", dl)
			printf "%s packages, %s to download, %s on disk", n + 0,
				dl == "" ? "0 B" : dl, disk == "" ? "0 B" : disk
		}' <<<"$out"
}

# install_missing PROFILE [--no-recommends] [--archs ARCH...] -- PACKAGE...:
# those not installed.
install_missing() {
	local profile=$1 pkg arch missing=() archs=() add=() apt_opts=()
	shift
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
	[ "${#archs[@]}" -eq 0 ] || mapfile -t add < <(missing_archs "${archs[@]}")
	[ "${#missing[@]}" -gt 0 ] || [ "${#add[@]}" -gt 0 ] || return 0
	if [ "$(id -u)" -ne 0 ]; then
		err "the $profile profile is not installed: missing ${missing[*]}${add[*]:+ (and dpkg architectures ${add[*]})}"
		err "install it once as root: sudo $NMX_TOP/scripts/install-deps.sh${profile_flags:+ $profile_flags}"
		return 2
	fi
	mkdir -p "${INSTALL_LOG%/*}"
	if [ "${#add[@]}" -gt 0 ]; then
		echo "notrace-matrix: $profile: adding dpkg architectures ${add[*]} (their busybox-static for the guests)" >&2
		for arch in "${add[@]}"; do
			dpkg --add-architecture "$arch"
		done
		APT_UPDATED=0	# the new architectures' lists
	fi
	[ "$APT_UPDATED" -eq 1 ] ||
		echo "notrace-matrix: $profile: updating apt's lists (log: $INSTALL_LOG)" >&2
	apt_update
	[ "${#missing[@]}" -gt 0 ] || return 0
	echo "notrace-matrix: $profile: installing ${#missing[@]} named (${missing[*]}):" \
		"$(apt_estimate "${apt_opts[@]}" "${missing[@]}")" >&2
	apt_logged apt-get install -y -q "${apt_opts[@]}" "${missing[@]}"
}

usage() {
	echo "usage: $0 [--no-cells] [--tests] [--lava] [--distcc] [--gitlab-ci-local] [-- SELECTION]" >&2
	exit 2
}

profile_flags=
main() {
	local kind name suite suite_name deps cells=1 tests=0 lava=0 distcc=0 gcl=0
	local -a cell_packages=() busybox_archs=() suite_packages=() selection=()
	while [ $# -gt 0 ]; do
		case $1 in
		--)
			shift
			selection=(--run "$@")
			profile_flags+="${profile_flags:+ }--${*:+ $*}"
			break
			;;
		--no-cells) cells=0 ;;
		--tests) tests=1 lava=1 distcc=1 gcl=1 ;;
		--lava) lava=1 ;;
		--distcc) distcc=1 ;;
		--gitlab-ci-local) gcl=1 ;;
		*) err "install-deps: unknown option '$1'"; usage ;;
		esac
		profile_flags+="${profile_flags:+ }$1"
		shift
	done
	install_missing run -- "${run_packages[@]}"
	# nmx reads the cells' needs from arches/ (it needs the packages above).
	make -s -C "$NMX_TOP/tools/nmx" >&2
	deps=
	if [ "$cells" -eq 1 ]; then
		deps=$(nmx deps "${selection[@]}") || exit 2
	fi
	while read -r kind name suite_name; do
		case $kind in
		package) cell_packages+=("$name") ;;
		busybox-arch) busybox_archs+=("$name") ;;
		# "suite-package SUITE PACKAGE"
		suite-package) suite_packages+=("$name $suite_name") ;;
		esac
	done <<<"$deps"
	[ "$cells" -eq 0 ] || install_missing "run (cells)" --archs "${busybox_archs[@]}" -- "${cell_packages[@]}"
	[ "$tests" -eq 0 ] || install_missing tests -- "${test_packages[@]}"
	[ "$lava" -eq 0 ] || install_missing lava --no-recommends -- "${lava_packages[@]}"
	[ "$distcc" -eq 0 ] || install_missing distcc -- "${distcc_packages[@]}"
	if [ "$gcl" -eq 1 ]; then
		install_missing gitlab-ci-local -- "${gcl_packages[@]}"
		install_gitlab_ci_local
	fi
	for suite in "${suite_packages[@]}"; do
		"$NMX_TOP/scripts/fetch-deb.sh" "${suite%% *}" "${suite#* }"
	done
}

main "$@"
