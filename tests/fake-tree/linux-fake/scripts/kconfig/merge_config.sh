#!/bin/sh
# Fake merge_config.sh -m -O DIR BASE FRAGMENT...: append the fragments.
[ "$1" = -m ] && [ "$2" = -O ] || exit 1
base=$4
shift 4
grep -h '^CONFIG_' "$@" >>"$base"
