#!/usr/bin/env bats
# nmx cell-dir and nmx record: the one way the scripts make a cell's
# directory and write its stages.tsv and meta.tsv (rundir.c spells the
# layout, the stages, what a stage may end with and the meta keys).

load helpers

@test "cell-dir: the path of a cell in a run; --fresh starts it over with the run's id and the cell's facts" {
	local run=$SCRATCH/results/20261206T000000Z dir
	run "$NMX" cell-dir --run "$run" --tree linux-7.2 --variant upstream --cell arm64
	[ "$status" -eq 0 ]
	[ "$output" = "$run/linux-7.2-upstream/arm64" ]
	[ ! -e "$output" ]
	dir=$output
	mkdir -p "$dir/nmx-guest-files"
	echo stale >"$dir/nmx-guest-files/trace.txt"
	echo 'boot	ok	1	' >"$dir/stages.tsv"
	run nmx cell-dir --fresh --run "$run" --tree linux-7.2 --variant upstream --cell arm64
	[ "$status" -eq 0 ]
	[ "$output" = "$dir" ]
	[ "$(ls "$dir")" = "$(printf 'cell.tsv\nmeta.tsv\nreproduce.sh')" ]
	nmx describe --tree linux-7.2 --variant upstream --cell arm64 | cmp - "$dir/cell.tsv"
	[ "$(cat "$dir/meta.tsv")" = "$(printf 'run_id\t20261206T000000Z')" ]
	head -1 "$dir/reproduce.sh" | grep -qx '#!/bin/sh'
	grep -q '^# Reproduce arm64 (linux-7.2-upstream) by hand' "$dir/reproduce.sh"
}

@test "cell-dir: a name that is not one path component is refused" {
	run "$NMX" cell-dir --fresh --run "$SCRATCH/r" --tree ../x --variant upstream --cell arm64
	[ "$status" -eq 2 ]
	[[ "$output" == *"--tree '../x' is not a name"* ]]
	run "$NMX" cell-dir --run "$SCRATCH/r" --tree t --variant .. --cell arm64
	[ "$status" -eq 2 ]
	run "$NMX" cell-dir --run "$SCRATCH/r" --tree t --variant v
	[ "$status" -eq 2 ]
	[[ "$output" == *"--cell '' is not a name"* ]]
	[ ! -e "$SCRATCH/r" ]
	# A cell the matrix does not know: an error that names it.
	run nmx cell-dir --fresh --run "$SCRATCH/r" --tree linux-7.2 --variant upstream --cell nosuch
	[ "$status" -eq 2 ]
	[[ "$output" == *"unknown cell 'nosuch'"* ]]
}

@test "record: stages and facts appended as one line each, tabs and line ends made spaces" {
	local dir=$SCRATCH/cell
	mkdir "$dir"
	"$NMX" record --cell-dir "$dir" stage prepare ok 3.25
	"$NMX" record --cell-dir "$dir" stage kernel BUILD_FAIL 12 "$(printf 'error:\tfoo\nbar')"
	"$NMX" record --cell-dir "$dir" meta qemu_version "$(printf 'QEMU 7.2\nCopyright')"
	[ "$(cat "$dir/stages.tsv")" = "$(printf 'prepare\tok\t3.25\t\nkernel\tBUILD_FAIL\t12\terror: foo bar')" ]
	[ "$(cat "$dir/meta.tsv")" = "$(printf 'qemu_version\tQEMU 7.2 Copyright')" ]
	# What nmx result reads back.
	"$NMX" result --cell-dir "$dir"
	grep -q '^  "status": "BUILD_FAIL",$' "$dir/result.json"
	grep -q '^  "failed_stage": "kernel",$' "$dir/result.json"
}

@test "record: an unknown stage, a status a stage cannot end with, an unknown key, bad seconds: exit 2, nothing written" {
	local dir=$SCRATCH/cell
	mkdir "$dir"
	run "$NMX" record --cell-dir "$dir" stage compile ok 1
	[ "$status" -eq 2 ]
	[[ "$output" == *"'compile' is no stage"* ]]
	run "$NMX" record --cell-dir "$dir" stage boot BUILD_FAIL 1
	[ "$status" -eq 2 ]
	[[ "$output" == *'stage boot cannot end BUILD_FAIL'* ]]
	run "$NMX" record --cell-dir "$dir" stage kernel PASS 1
	[ "$status" -eq 2 ]
	# Each stage's own failure is the one its table names.
	run "$NMX" record --cell-dir "$dir" stage kernel CONFIG_FAIL 1
	[ "$status" -eq 2 ]
	[[ "$output" == *'stage kernel cannot end CONFIG_FAIL (ok, INFRA_FAIL or BUILD_FAIL)'* ]]
	run "$NMX" record --cell-dir "$dir" stage kernel ok -1
	[ "$status" -eq 2 ]
	[[ "$output" == *"'-1' is no number of seconds"* ]]
	run "$NMX" record --cell-dir "$dir" meta color blue
	[ "$status" -eq 2 ]
	[[ "$output" == *"'color' is no meta.tsv key"* ]]
	run "$NMX" record --cell-dir "$dir" meta loader
	[ "$status" -eq 2 ]
	[[ "$output" == *'usage: nmx record'* ]]
	[ ! -e "$dir/stages.tsv" ]
	[ ! -e "$dir/meta.tsv" ]
	run "$NMX" record --cell-dir "$SCRATCH/nonexistent" meta loader uboot
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot write $SCRATCH/nonexistent/meta.tsv"* ]]
}

@test "record: every meta key the scripts write is one rundir.c knows" {
	local key
	# record_meta DIR KEY VALUE, as build.sh and boot.sh call it.
	grep -ho 'record_meta "[^"]*" [a-z_]*' "$TOP"/*.sh "$TOP"/scripts/*.sh |
		awk '{print $3}' | sort -u >"$SCRATCH/keys"
	while read -r key; do
		"$NMX" record --cell-dir "$SCRATCH" meta "$key" x
	done <"$SCRATCH/keys"
	[ "$(wc -l <"$SCRATCH/meta.tsv")" -gt 20 ]
}

@test "run-cells: the planned cells, those that finished (a result.json) and those that did not" {
	local run=$SCRATCH/run
	mkdir -p "$run/t-upstream/a" "$run/t-upstream/b" "$run/t-seed/a"
	printf 't upstream a\n# a comment\n\nt upstream b\nt seed a\n' >"$run/plan.tsv"
	echo '{}' >"$run/t-upstream/b/result.json"
	run "$NMX" run-cells --run "$run"
	[ "$output" = "$(printf 't upstream a\nt upstream b\nt seed a')" ]
	run "$NMX" run-cells --run "$run" --finished
	[ "$output" = 't upstream b' ]
	run "$NMX" run-cells --run "$run" --unfinished --dirs
	[ "$output" = "$(printf 't-upstream/a\nt-seed/a')" ]
	run "$NMX" run-cells --run "$run" --finished --unfinished
	[ "$status" -eq 2 ]
	printf 't upstream\n' >>"$run/plan.tsv"
	run "$NMX" run-cells --run "$run"
	[ "$status" -eq 2 ]
	[[ "$output" == *"plan.tsv:6: not a 'tree variant cell' line"* ]]
	run "$NMX" run-cells --run "$SCRATCH/none"
	[ "$status" -eq 2 ]
	[[ "$output" == *"cannot read $SCRATCH/none/plan.tsv"* ]]
}

@test "stages: the table of a cell's stages in run order, what runs each, its failure, its key" {
	run "$NMX" stages
	[ "$status" -eq 0 ]
	[ "$(cut -f1 <<<"$output" | paste -sd' ')" = "prepare configure kernel guest boot shard" ]
	[ "${lines[1]}" = "$(printf 'configure\tbuild.sh\tCONFIG_FAIL\tkconfig-files,compiler,requested-symbols,make-vars')" ]
	[ "${lines[0]}" = "$(printf 'prepare\tbuild.sh\tPATCH_FAIL\t-')" ]
	run "$NMX" stages --run-by boot.sh
	[ "$output" = "$(printf 'boot\tboot.sh\tINFRA_FAIL\t-')" ]
	run "$NMX" stages extra
	[ "$status" -eq 2 ]
}

@test "run-dir: a run's life — new, plan, show, interrupted, resume, finish — kept by nmx alone" {
	local res=$SCRATCH/results id id2
	run "$NMX" run-dir new --results "$res"
	id=$(sed -n 's/^id\t//p' <<<"$output")
	[[ "$id" =~ ^[0-9]{8}T[0-9]{6}Z$ ]]
	[ "${lines[1]}" = "$(printf 'dir\t%s/%s' "$res" "$id")" ]
	[ -d "$res/$id" ]
	printf 'linux-6.1 upstream arm64\nlinux-6.1 upstream x86_64\n' |
		"$NMX" run-dir plan --run "$res/$id" --local-tree /src/linux --local-series linux-6.1
	[ "$("$NMX" run-cells --run "$res/$id" | wc -l)" -eq 2 ]
	run "$NMX" run-dir show --run "$res/$id"
	[ "$output" = "$(printf 'local_tree\t/src/linux\nlocal_series\tlinux-6.1\nshard\t0\ninterrupted\t0')" ]
	mkdir -p "$res/$id/linux-6.1-upstream/arm64"
	echo '{}' >"$res/$id/linux-6.1-upstream/arm64/result.json"
	run "$NMX" run-dir interrupted --run "$res/$id" --signal TERM --resume "./matrix.sh --resume $id"
	[ "$output" = "finished: linux-6.1-upstream/arm64" ]
	grep -qx "not finished: linux-6.1-upstream/x86_64" "$res/$id/interrupted.txt"
	grep -qx "resume: ./matrix.sh --resume $id" "$res/$id/interrupted.txt"
	run "$NMX" run-dir show --run "$res/$id"
	[[ "$output" == *$'interrupted\t1'* ]]
	run "$NMX" run-dir resume --run "$res/$id"
	[[ "$output" == *$'interrupted\t0'* ]]
	[ ! -e "$res/$id/interrupted.txt" ]
	# finish: latest moves to it; the run it replaced is its baseline
	run "$NMX" run-dir finish --run "$res/$id"
	[ "$output" = "" ]
	[ "$(readlink "$res/latest")" = "$id" ]
	id2=$("$NMX" run-dir new --results "$res" | sed -n 's/^id\t//p')
	[ "$id2" = "$id-1" ] || [[ "$id2" =~ ^[0-9]{8}T[0-9]{6}Z$ ]]
	echo 'linux-6.1 upstream arm64' | "$NMX" run-dir plan --run "$res/$id2"
	run "$NMX" run-dir finish --run "$res/$id2"
	[ "$output" = "$(printf 'baseline\t%s/%s' "$res" "$id")" ]
	[ "$(readlink "$res/latest")" = "$id2" ]
	[ "$(cat "$res/$id2/report-baseline")" = "$id" ]
	run "$NMX" run-dir show --run "$res/$id2"
	[[ "$output" == *"$(printf 'baseline\t%s/%s' "$res" "$id")"* ]]
}

@test "run-dir: a shard is marked and never moves latest; bad ids, plans and runs are refused" {
	local res=$SCRATCH/results
	run "$NMX" run-dir new --results "$res" --shard job-1
	[ "${lines[0]}" = "$(printf 'id\tjob-1')" ]
	echo 'linux-6.1 upstream arm64' | "$NMX" run-dir plan --run "$res/job-1"
	run "$NMX" run-dir new --results "$res" --shard job-1
	[ "$status" -eq 2 ]
	[[ "$output" == *"already holds a run"* ]]
	"$NMX" run-dir finish --run "$res/job-1"
	[ ! -e "$res/latest" ]
	run "$NMX" run-dir show --run "$res/job-1"
	[[ "$output" == *$'shard\t1'* ]]
	run "$NMX" run-dir new --results "$res" --shard ../up
	[ "$status" -eq 2 ]
	[[ "$output" == *"a run id is letters, digits"* ]]
	mkdir "$res/empty"
	run "$NMX" run-dir plan --run "$res/empty" </dev/null
	[ "$status" -eq 2 ]
	[[ "$output" == *"no cell planned"* ]]
	run "$NMX" run-dir plan --run "$res/empty" <<<'linux-6.1 upstream'
	[ "$status" -eq 2 ]
	[ ! -e "$res/empty/plan.tsv" ]
	run "$NMX" run-dir resume --run "$res/empty"
	[ "$status" -eq 2 ]
	[[ "$output" == *"no run in $res/empty"* ]]
	run "$NMX" run-dir show
	[ "$status" -eq 2 ]
	[[ "$output" == *"usage: nmx run-dir"* ]]
}

@test "run-dir new --patches: a maintainer's patches imported into the run as mails git am takes, or no run" {
	local res=$SCRATCH/results src=$SCRATCH/mine dir
	mkdir -p "$src"
	printf 'diff --git a/f b/f\n--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+b\n' >"$src/0007-fix-it.diff"
	{
		printf 'From 1234 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nSubject: [PATCH 1/2] one\n\n'
		printf 'diff --git a/g b/g\n--- a/g\n+++ b/g\n'
		printf 'From 5678 Mon Sep 17 00:00:00 2001\nFrom: A <a@b>\nSubject: [PATCH 2/2] two\n\n'
		printf 'diff --git a/h b/h\n--- a/h\n+++ b/h\n'
	} >"$src/series.mbox"
	echo 'notes' >"$src/README"
	run "$NMX" run-dir new --results "$res" --patches "$src"
	[ "$status" -eq 0 ]
	dir=$(sed -n 's/^patches\t//p' <<<"$output")
	[ "$(cat "$dir/series")" = "$(printf '0001-fix-it.patch\n0002-series.patch\n0003-series.patch')" ]
	grep -qx 'Subject: \[PATCH\] 0007-fix-it.diff' "$dir/0001-fix-it.patch"
	grep -qx 'Subject: \[PATCH 2/2\] two' "$dir/0003-series.patch"
	[ "$(tail -n 1 "$dir/series.imported-from")" = "# imported from $src" ]
	echo 'linux-6.1 upstream arm64' | "$NMX" run-dir plan --run "${dir%/patches}"
	run "$NMX" run-dir show --run "${dir%/patches}"
	[[ "$output" == *"$(printf 'patches\t%s\npatches_from\t%s' "$dir" "$src")"* ]]
	[ ! -e "$dir/split" ]
	# A file without a diff: no run is left behind.
	echo 'no diff here' >"$src/0009-empty.patch"
	run "$NMX" run-dir new --results "$SCRATCH/r2" --patches "$src"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--patches: $src/0009-empty.patch holds no diff"* ]]
	[ -z "$(ls "$SCRATCH/r2")" ]
	run "$NMX" run-dir new --results "$SCRATCH/r2" --patches "$SCRATCH/none"
	[ "$status" -eq 2 ]
	[[ "$output" == *"--patches $SCRATCH/none: no such file or directory"* ]]
}
