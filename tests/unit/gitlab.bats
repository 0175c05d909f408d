#!/usr/bin/env bats
# The GitLab CI pipeline: generated from matrix.yaml and committed (a
# drift fails here), and run end to end by gitlab-ci-local's shell
# executor on the fake tree, whose cell boots into recorded console logs.

load helpers
scripts_under_test

# Where install-deps.sh --tests put it: the cache of the run that
# installed it (tests/run.sh says which), else the default cache.
GCL=${NMX_GITLAB_CI_LOCAL:-${NMX_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/notrace-matrix}/npm/node_modules/.bin/gitlab-ci-local}

@test "plan: the committed .gitlab-ci.yml is what matrix.yaml gives (regenerate: nmx plan gitlab)" {
	run nmx plan gitlab
	[ "$status" -eq 0 ]
	diff -u "$TOP/.gitlab-ci.yml" <(printf '%s\n' "$output")
}

@test "plan: a job per tree and cell of the default run, then the merge whatever happened" {
	run nmx plan gitlab
	[ "$(grep -c '^  extends: .cell$' <<<"$output")" -eq 8 ]
	grep -q '^linux-6.12 arm-be8:$' <<<"$output"
	grep -A2 '^report:$' <<<"$output" | grep -q 'when: always'
	# Artifacts are result directories, never a build tree or the cache.
	awk '/^  artifacts:/ { a = 1; next } /^  [a-z]/ { a = 0 } a && / - /' <<<"$output" >"$SCRATCH/paths"
	run grep -v -F -e "results/shards/\$NMX_SHARD/" -e "results/\$NMX_RUN_ID/" "$SCRATCH/paths"
	[ "$status" -eq 1 ]
	[ "$(wc -l <"$SCRATCH/paths")" -eq 2 ]
}

# shellcheck disable=SC2016 # the pipeline's own variables, literally
@test "plan: what a GitLab runner needs without edits: an image, the install, a cache per job, junit" {
	run nmx plan gitlab
	[ "$status" -eq 0 ]
	grep -qx 'image: debian:bookworm' <<<"$output"
	# Each cell job installs the run profile of its own tree and cell; the
	# merge only the host tool's.
	grep -A5 '^\.cell:$' <<<"$output" | grep -qF 'scripts/install-deps.sh -- --tree "$NMX_TREE" --cell "$NMX_CELL"'"'"
	grep -A5 '^report:$' <<<"$output" | grep -qF "scripts/install-deps.sh --no-cells'"
	# matrix.sh itself does not install again.
	[ "$(grep -c '\./matrix\.sh --no-install ' <<<"$output")" -eq 2 ]
	# The cache is per job and inside the project (GitLab caches nothing else).
	grep -qF 'NMX_CACHE: "$CI_PROJECT_DIR/.cache/notrace-matrix"' <<<"$output"
	grep -A1 '^  cache:$' <<<"$output" | grep -qF 'key: "nmx-$NMX_SHARD"'
	grep -qF -- '- .cache/notrace-matrix/ccache/' <<<"$output"
	grep -qF 'junit: results/$NMX_RUN_ID/junit.xml' <<<"$output"
}

@test "gitlab-ci-local runs the pipeline on the fake tree: one run, merged, as matrix.sh would judge it" {
	[ -x "$GCL" ] || { echo "no $GCL: scripts/install-deps.sh installs it" >&2; false; }
	setup_boot
	# Two trees, so two shard jobs; fake-bad's patch does not apply.
	sed -i 's/^  trees: \[fake-good\]$/  trees: [fake-good, fake-bad]/' "$NMX_MATRIX"
	# The checkout as it is (gitlab-ci-local wants a git project).
	mkdir "$SCRATCH/project"
	(cd "$TOP" && git ls-files -z -c -o --exclude-standard | tar --null -T - -cf -) |
		tar -C "$SCRATCH/project" -xf -
	nmx -m "$NMX_MATRIX" -a "$NMX_ARCHES_DIR" plan gitlab >"$SCRATCH/project/.gitlab-ci.yml"
	git -C "$SCRATCH/project" init -q
	git -C "$SCRATCH/project" add -A
	git -C "$SCRATCH/project" -c user.name=t -c user.email=t@localhost commit -qm "the fake pipeline"
	cd "$SCRATCH/project"
	# The shell executor, though the pipeline names an image for GitLab.
	run "$GCL" --force-shell-executor --shell-isolation --home "$SCRATCH/gcl-home" \
		--variable "NMX_MATRIX=$NMX_MATRIX" --variable "NMX_ARCHES_DIR=$NMX_ARCHES_DIR" \
		--variable "NMX_CACHE=$NMX_CACHE" --variable NMX_INSTALL=0 --variable "PATH=$PATH"
	# The merge job fails the pipeline: one cell is PATCH_FAIL.
	[ "$status" -ne 0 ]
	[[ "$output" == *"PASS  fake-good fakeboot"* ]]
	[[ "$output" == *"PASS  fake-bad fakeboot"* ]]
	[[ "$output" == *"FAIL  report"* ]] || { echo "$output" >&2; false; }
	run_dir=$(find "$SCRATCH/project/results" -mindepth 1 -maxdepth 1 -name 'pipeline-*' -type d)
	[ -n "$run_dir" ]
	grep -q '^fake-good-upstream *fakeboot *PASS' "$run_dir/summary.txt"
	grep -q '^fake-bad-upstream *fakeboot *PATCH_FAIL' "$run_dir/summary.txt"
	grep -q '^1 passed, 1 failed, 0 infrastructure$' "$run_dir/summary.txt"
	for f in report.html report.md junit.xml kcidb.json; do
		[ -s "$run_dir/$f" ]
	done
}
