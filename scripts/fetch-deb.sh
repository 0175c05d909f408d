#!/usr/bin/env bash
# fetch-deb.sh [--refresh] SUITE PACKAGE: download PACKAGE from Debian's
# SUITE (a tree's source package newer than this machine's release: linux-7.2
# from unstable) and unpack it into the cache, never into the system. apt
# runs with a sources list, lists and archives of its own under the cache:
# the machine's apt configuration is not touched, and apt still checks the
# suite's Release file against Debian's keyring. Once unpacked it is reused
# (--refresh: fetch the suite's current version again).
#
# The unpacked package is suite_package_dir SUITE PACKAGE (scripts/lib.sh):
# root/ (the package's files), VERSION (its Debian version), fetch.log.
# Exit 0, or 2 (INFRA) saying what was tried.
set -euo pipefail

# shellcheck source=scripts/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

# The archive, and the keyring its Release files are checked against.
MIRROR=${NMX_DEBIAN_MIRROR:-http://deb.debian.org/debian}
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg

usage() {
	echo "usage: $0 [--refresh] SUITE PACKAGE" >&2
	exit 2
}

main() {
	local refresh=0 suite package dir apt log deb version
	[ "${1:-}" != --refresh ] || { refresh=1; shift; }
	[ $# -eq 2 ] || usage
	suite=$1 package=$2
	[[ "$suite" =~ ^[a-z0-9-]+$ ]] || { err "fetch-deb: '$suite' is not a Debian suite name"; exit 2; }
	[[ "$package" =~ ^[a-z0-9][a-z0-9.+-]+$ ]] || { err "fetch-deb: '$package' is not a Debian package name"; exit 2; }
	dir=$(suite_package_dir "$suite" "$package")
	if [ "$refresh" -eq 0 ] && [ -s "$dir/VERSION" ] && [ -d "$dir/root" ]; then
		return 0
	fi
	local missing
	if missing=$(missing_tools apt-get dpkg-deb); then
		err "fetch-deb: missing: $missing"
		exit 2
	fi
	[ -r "$KEYRING" ] || { err "fetch-deb: $KEYRING missing (Debian package debian-archive-keyring)"; exit 2; }
	apt=$NMX_CACHE/debian/$suite/apt
	mkdir -p "$apt/lists/partial" "$apt/archives/partial" "$apt/sources.list.d" \
		"$apt/preferences.d" "$dir"
	log=$dir/fetch.log
	# Only the packages of this machine's architecture (which lists "all").
	printf 'deb [arch=%s signed-by=%s] %s %s main\n' "$(dpkg --print-architecture)" \
		"$KEYRING" "$MIRROR" "$suite" >"$apt/sources.list"
	local -a opts=(
		-o "Dir::Etc::SourceList=$apt/sources.list"
		-o "Dir::Etc::SourceParts=$apt/sources.list.d"
		-o "Dir::Etc::Preferences=$apt/preferences"
		-o "Dir::Etc::PreferencesParts=$apt/preferences.d"
		-o "Dir::State::Lists=$apt/lists"
		-o "Dir::Cache=$apt"
		-o "Dir::Cache::pkgcache=" -o "Dir::Cache::srcpkgcache="
		-o APT::Get::List-Cleanup=0
	)
	# apt drops to _apt for downloads, which cannot write a cache that is
	# not world-writable; as root, download as root instead.
	[ "$(id -u)" -ne 0 ] || opts+=(-o APT::Sandbox::User=root)
	progress "fetching $package from Debian $suite ($MIRROR) into $dir"
	{
		echo "# apt-get ${opts[*]} update"
		apt-get "${opts[@]}" -q --error-on=any update
	} >"$log" 2>&1 || {
		err "fetch-deb: cannot read Debian $suite's package lists from $MIRROR (apt-get update with $apt/sources.list; see $log)"
		exit 2
	}
	rm -f "$apt/archives/${package}_"*.deb
	(cd "$apt/archives" && apt-get "${opts[@]}" -q download "$package") >>"$log" 2>&1 || {
		err "fetch-deb: cannot download $package from Debian $suite ($MIRROR; see $log)"
		exit 2
	}
	deb=$(find "$apt/archives" -maxdepth 1 -name "${package}_*.deb" | head -n 1)
	version=$(dpkg-deb -f "$deb" Version) || { err "fetch-deb: $deb is not a Debian package"; exit 2; }
	rm -rf "$dir/root" "$dir/root.tmp"
	dpkg-deb -x "$deb" "$dir/root.tmp" >>"$log" 2>&1 || {
		err "fetch-deb: cannot unpack $deb (see $log)"
		exit 2
	}
	mv "$dir/root.tmp" "$dir/root"
	rm -f "$deb"
	echo "$version" >"$dir/VERSION"
	progress "$package $version from Debian $suite unpacked into $dir/root"
}

main "$@"
