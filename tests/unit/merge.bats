#!/usr/bin/env bats
# Shards and nmx merge: a run spread over CI jobs (matrix.sh --shard, one
# per tree and cell) becomes one run whose reports are those of the
# unsplit run; duplicates, strays and lost cells are said.

load helpers

# Split recorded run CASE into one shard per cell (all its variants, as
# the pipeline's jobs do), under $SCRATCH/shards/<cell>/CASE, and write
# its plan to $SCRATCH/plan.tsv.
split_run() { # case
	local run=$TESTS_DIR/report/runs/$1 tvdir cell tv
	rm -rf "$SCRATCH/shards"
	: >"$SCRATCH/plan.tsv"
	for tvdir in "$run"/*/; do
		tv=$(basename "$tvdir")
		for cell in "$tvdir"*/; do
			cell=$(basename "$cell")
			mkdir -p "$SCRATCH/shards/$cell/$1/$tv"
			cp -r "$run/$tv/$cell" "$SCRATCH/shards/$cell/$1/$tv/"
			printf '%s %s %s\n' "${tv%-*}" "${tv##*-}" "$cell" >>"$SCRATCH/plan.tsv"
		done
	done
}

@test "merge: a recorded run split into shards gives the unsplit run's reports" {
	split_run all-pass
	[ "$(find "$SCRATCH/shards" -mindepth 1 -maxdepth 1 | wc -l)" -eq 3 ]
	run "$NMX" merge --plan "$SCRATCH/plan.tsv" --out "$SCRATCH/all-pass" \
		"$SCRATCH"/shards/*/all-pass
	[ "$status" -eq 0 ]
	for f in report.html report.md junit.xml kcidb.json; do
		diff -u "$TESTS_DIR/golden/report/all-pass/$f" "$SCRATCH/all-pass/$f"
	done
	grep -q '^5 passed, 0 failed, 0 infrastructure$' "$SCRATCH/all-pass/summary.txt"
	cmp "$SCRATCH/plan.tsv" "$SCRATCH/all-pass/plan.tsv"
}

@test "merge: a planned cell no shard reported is missing: INFRA in the summary, MISS in KCIDB, exit 2" {
	split_run all-pass
	rm -r "$SCRATCH/shards/x86_64"
	run "$NMX" merge --plan "$SCRATCH/plan.tsv" --out "$SCRATCH/all-pass" \
		"$SCRATCH"/shards/*/all-pass
	[ "$status" -eq 2 ]
	[[ "$output" == *"linux-6.1-upstream/x86_64: no shard reported it (missing)"* ]]
	grep -q '^linux-6.1-upstream *x86_64 *INFRA_FAIL .*missing: planned, but no shard reported this cell' \
		"$SCRATCH/all-pass/summary.txt"
	grep -q '^4 passed, 0 failed, 1 infrastructure$' "$SCRATCH/all-pass/summary.txt"
	python3 - "$SCRATCH/all-pass/kcidb.json" <<-'PY'
		import json, sys
		doc = json.load(open(sys.argv[1]))
		miss = [b for b in doc["builds"] if b["id"].endswith("linux-6.1-upstream-x86_64")]
		assert miss and miss[0]["status"] == "MISS", miss
	PY
	grep -q 'x86_64' "$SCRATCH/all-pass/junit.xml"
}

@test "merge: a cell in two shards, or one the plan lacks, is an error" {
	split_run all-pass
	cp -r "$SCRATCH/shards/arm64/all-pass/linux-6.1-seed" "$SCRATCH/shards/arm-be8/all-pass/"
	run "$NMX" merge --plan "$SCRATCH/plan.tsv" --out "$SCRATCH/m1" "$SCRATCH"/shards/*/all-pass
	[ "$status" -eq 2 ]
	[[ "$output" == *"linux-6.1-seed/arm64 is in two shards"* ]]
	split_run all-pass
	grep -v '^linux-6.1 seed arm64$' "$SCRATCH/plan.tsv" >"$SCRATCH/short.tsv"
	run "$NMX" merge --plan "$SCRATCH/short.tsv" --out "$SCRATCH/m2" "$SCRATCH"/shards/*/all-pass
	[ "$status" -eq 2 ]
	[[ "$output" == *"linux-6.1-seed/arm64 in shard"*"is not in the plan"* ]]
	run "$NMX" merge --plan "$SCRATCH/plan.tsv" --out "$SCRATCH/m2" "$SCRATCH"/shards/*/all-pass
	[ "$status" -eq 2 ]
	[[ "$output" == *"the merged run needs a new directory"* ]]
}

@test "matrix.sh --shard: each shard holds its cells only; nmx merge reports them as one run" {
	setup_boot
	NMX_RESULTS=$SCRATCH/job1 run "$TOP/matrix.sh" --no-install --shard pipeline-7 --tree fake-good
	[ "$status" -eq 0 ]
	[[ "$output" == *"shard pipeline-7 done: 1 cell(s)"* ]]
	NMX_RESULTS=$SCRATCH/job2 run "$TOP/matrix.sh" --no-install --shard pipeline-7 --tree fake-bad
	[ "$status" -eq 0 ]
	for job in job1 job2; do
		[ ! -e "$SCRATCH/$job/pipeline-7/summary.txt" ]
		[ ! -e "$SCRATCH/$job/pipeline-7/report.html" ]
		[ ! -e "$SCRATCH/$job/latest" ]
	done
	# The same run id twice in one results directory is refused.
	NMX_RESULTS=$SCRATCH/job1 run "$TOP/matrix.sh" --no-install --shard pipeline-7 --tree fake-good
	[ "$status" -eq 2 ]
	[[ "$output" == *"already holds a run"* ]]
	"$TOP/tools/nmx/nmx" -m "$NMX_MATRIX" -a "$NMX_ARCHES_DIR" cells --tree fake-good --tree fake-bad \
		>"$SCRATCH/plan.tsv"
	run "$NMX" merge --plan "$SCRATCH/plan.tsv" --out "$SCRATCH/pipeline-7" \
		"$SCRATCH/job1/pipeline-7" "$SCRATCH/job2/pipeline-7"
	[ "$status" -eq 1 ]	# fake-bad's patch does not apply
	grep -q '^fake-good-upstream *fakeboot *PASS' "$SCRATCH/pipeline-7/summary.txt"
	grep -q '^fake-bad-upstream *fakeboot *PATCH_FAIL' "$SCRATCH/pipeline-7/summary.txt"
	grep -q 'fake-bad-upstream' "$SCRATCH/pipeline-7/report.html"
}
