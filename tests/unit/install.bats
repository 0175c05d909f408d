#!/usr/bin/env bats
# scripts/install-deps.sh by profile, against stand-ins for id, dpkg,
# dpkg-query and apt-get (nothing is installed): what each profile asks
# for, and a normal user after a root install (nothing missing: no apt,
# exit 0; something missing: exit 2 naming it and the command to run).

load helpers
scripts_under_test

setup() {
	SCRATCH=$(mktemp -d)
	setup_fake
	STUBS=$SCRATCH/stubs
	mkdir -p "$STUBS"
	# INSTALLED: the packages dpkg-query reports installed ("*": all).
	cat >"$STUBS/dpkg-query" <<-'EOF2'
		#!/bin/sh
		pkg=$3
		if [ "$INSTALLED" = "*" ] || printf '%s\n' $INSTALLED | grep -qx "$pkg"; then
			echo 'install ok installed'
		fi
	EOF2
	cat >"$STUBS/apt-get" <<-'EOF2'
		#!/bin/sh
		echo "apt-get $*" >>"$APT_CALLS"
		case "$*" in
		*--assume-no*) echo "0 upgraded, 3 newly installed, 0 to remove and 0 not upgraded."
			echo "Need to get 1,024 kB of archives."
			echo "After this operation, 4,096 kB of additional disk space will be used." ;;
		esac
	EOF2
	cat >"$STUBS/dpkg" <<-'EOF2'
		#!/bin/sh
		case $1 in
		--print-architecture) echo amd64 ;;
		--print-foreign-architectures) ;;
		*) echo "dpkg $*" >>"$APT_CALLS" ;;
		esac
	EOF2
	# UID: who runs it.
	cat >"$STUBS/id" <<-'EOF2'
		#!/bin/sh
		[ "$1" = -u ] && { echo "$FAKE_UID"; exit 0; }
		exec /usr/bin/id "$@"
	EOF2
	chmod +x "$STUBS"/*
	export PATH=$STUBS:$PATH APT_CALLS=$SCRATCH/apt-calls
	: >"$APT_CALLS"
}

@test "install: as a user with the run profile installed, nothing is asked of apt and it exits 0" {
	FAKE_UID=1000 INSTALLED='*' run "$TOP/scripts/install-deps.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[ ! -s "$APT_CALLS" ]
}

@test "install: as a user with a package missing, exit 2 naming it and the root command" {
	FAKE_UID=1000 INSTALLED='make gcc' run "$TOP/scripts/install-deps.sh"
	echo "$output"
	[ "$status" -eq 2 ]
	[[ "$output" == *"the run profile is not installed: missing "*"bison"* ]]
	[[ "$output" == *"sudo $TOP/scripts/install-deps.sh"* ]]
	[ ! -s "$APT_CALLS" ]
	# With a profile named, the command to run names it too.
	FAKE_UID=1000 INSTALLED='make' run "$TOP/scripts/install-deps.sh" --lava
	[ "$status" -eq 2 ]
	[[ "$output" == *"sudo $TOP/scripts/install-deps.sh --lava"* ]]
}

@test "install: the run profile installs no test tools; --tests adds them; an estimate first, apt's output in the log" {
	FAKE_UID=0 INSTALLED='' run "$TOP/scripts/install-deps.sh"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"run: installing "*": 3 packages, 1,024 kB to download, 4,096 kB on disk"* ]]
	grep -q 'install -y -q .*libyaml-dev' "$APT_CALLS"
	run ! grep -E 'install -y .*(chromium|bats|clang|lava-dispatcher|distcc|nodejs)' "$APT_CALLS"
	[ -f "$NMX_CACHE/logs/install.log" ]
	: >"$APT_CALLS"
	FAKE_UID=0 INSTALLED='' run "$TOP/scripts/install-deps.sh" --tests
	[ "$status" -eq 0 ]
	grep -q 'install -y -q .*chromium' "$APT_CALLS"
	grep -q 'install -y -q --no-install-recommends lava-dispatcher' "$APT_CALLS"
	grep -q 'install -y -q distcc' "$APT_CALLS"
}

@test "install: --no-cells leaves the cells' packages out; an unknown option is exit 2" {
	FAKE_UID=1000 INSTALLED='*' run "$TOP/scripts/install-deps.sh" --no-cells
	[ "$status" -eq 0 ]
	run "$TOP/scripts/install-deps.sh" --bogus
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown option '--bogus'"* ]]
}

@test "install: --tests on a new cache with every package installed: gitlab-ci-local into the cache, npm's output in the log" {
	cat >"$STUBS/npm" <<-'EOF2'
		#!/bin/sh
		echo "npm $*"
		prefix=$5
		mkdir -p "$prefix/node_modules/.bin"
		printf '#!/bin/sh\necho 4.66.1\n' >"$prefix/node_modules/.bin/gitlab-ci-local"
		chmod +x "$prefix/node_modules/.bin/gitlab-ci-local"
	EOF2
	chmod +x "$STUBS/npm"
	[ ! -e "$NMX_CACHE" ]
	FAKE_UID=0 INSTALLED='*' run "$TOP/scripts/install-deps.sh" --tests
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == *"installing gitlab-ci-local@4.66.1 into $NMX_CACHE/npm"* ]]
	grep -q '^npm install .*gitlab-ci-local@4.66.1' "$NMX_CACHE/logs/install.log"
	[ "$("$NMX_CACHE/npm/node_modules/.bin/gitlab-ci-local" --version)" = 4.66.1 ]
	[ ! -s "$APT_CALLS" ]
}

@test "install: -- SELECTION (as ./matrix.sh asks) takes that run's trees and cells; the root command names it; a selection of no cell is exit 2" {
	FAKE_UID=1000 INSTALLED='*' run "$TOP/scripts/install-deps.sh" -- --cell fake
	[ "$status" -eq 0 ]
	# Missing a package: the command to run carries the selection.
	FAKE_UID=1000 INSTALLED='make' run "$TOP/scripts/install-deps.sh" --lava -- --cell fake
	[ "$status" -eq 2 ]
	[[ "$output" == *"sudo $TOP/scripts/install-deps.sh --lava -- --cell fake"* ]]
	FAKE_UID=1000 INSTALLED='make' run "$TOP/scripts/install-deps.sh" --
	[ "$status" -eq 2 ]
	[[ "$output" == *"sudo $TOP/scripts/install-deps.sh --"* ]]
	# As root, the run's tree's package is installed.
	FAKE_UID=0 INSTALLED='' run "$TOP/scripts/install-deps.sh" -- --tree fake-good
	[ "$status" -eq 0 ]
	grep -q 'install -y -q .*nmx-fake-package' "$APT_CALLS"
	FAKE_UID=0 INSTALLED='*' run "$TOP/scripts/install-deps.sh" -- --cell nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown cell 'nosuch'"* ]]
}

@test "install: ./matrix.sh asks for its own run's trees and cells only; a --patches run for every cell's" {
	FAKE_UID=1000 INSTALLED='make' run "$TOP/matrix.sh" --cell fake
	[ "$status" -eq 2 ]
	[[ "$output" == *"sudo $TOP/scripts/install-deps.sh -- --cell fake"* ]]
	FAKE_UID=1000 INSTALLED='make' run "$TOP/matrix.sh"
	[ "$status" -eq 2 ]
	[[ "$output" == *"sudo $TOP/scripts/install-deps.sh --"* ]]
	FAKE_UID=1000 INSTALLED='make' run "$TOP/matrix.sh" --patches "$TESTS_DIR/fake-tree/series-good"
	[ "$status" -eq 2 ]
	[[ "$output" == *"sudo $TOP/scripts/install-deps.sh"$'\n'* ]] || [[ "$output" == *"sudo $TOP/scripts/install-deps.sh" ]]
}
