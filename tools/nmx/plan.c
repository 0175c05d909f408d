// SPDX-License-Identifier: GPL-2.0
/*
 * nmx plan: the default run of matrix.yaml as the jobs of a CI engine.
 * The generated file is committed; tests/unit/plan.bats regenerates it
 * and fails when it differs, so it never drifts from matrix.yaml (as
 * ClangBuiltLinux's generated workflows).
 */
#include <stdio.h>
#include <string.h>

#include "plan.h"

/* Does the default run give tree @t any variant? */
static int tree_runs(const struct matrix *m, struct tree *t)
{
	size_t i;

	for (i = 0; i < m->run_variants.n; i++)
		if (tree_variant(t, m->run_variants.v[i]))
			return 1;
	return 0;
}

int plan_gitlab(struct matrix *m, FILE *f)
{
	size_t i, k;

	fputs(
"# Generated from matrix.yaml by `tools/nmx/nmx plan gitlab`: do not edit.\n"
"# Regenerate with\n"
"#   make -s -C tools/nmx && tools/nmx/nmx plan gitlab >.gitlab-ci.yml\n"
"# (tests/unit/plan.bats fails when this file and matrix.yaml disagree).\n"
"#\n"
"# One job per tree and cell of the default run: a shard (matrix.sh --shard)\n"
"# that runs the cell's variants of that tree one after another, so that\n"
"# the seed variant's build shares the upstream build's ccache objects. Its\n"
"# artifacts are the cells' result directories, never a build tree. Then\n"
"# one job, whatever became of the cells, merges the shards into the run\n"
"# (nmx merge: a lost cell is reported missing) with its summary and\n"
"# reports. Run it here with gitlab-ci-local (see docs/ci.md).\n"
"\n"
"stages: [cells, report]\n"
"\n"
"# Debian 12, the release scripts/install-deps.sh installs on; as root.\n"
"image: debian:bookworm\n"
"\n"
"variables:\n"
"  NMX_RUN_ID: \"pipeline-$CI_PIPELINE_ID\"\n"
"  # Inside the project directory, where GitLab's cache can keep it.\n"
"  NMX_CACHE: \"$CI_PROJECT_DIR/.cache/notrace-matrix\"\n"
"  # 0 on a runner whose machine has the packages already.\n"
"  NMX_INSTALL: \"1\"\n"
"\n"
".cell:\n"
"  stage: cells\n"
"  before_script:\n"
"    # The run profile for this job's tree and cell: its source, compiler,\n"
"    # QEMU and firmware, not every cell's.\n"
"    - '[ \"$NMX_INSTALL\" = 0 ] || scripts/install-deps.sh -- --tree \"$NMX_TREE\" --cell \"$NMX_CELL\"'\n"
"  script:\n"
"    - NMX_RESULTS=\"results/shards/$NMX_SHARD\" ./matrix.sh --no-install --shard \"$NMX_RUN_ID\" --tree \"$NMX_TREE\" --cell \"$NMX_CELL\"\n"
"  # The job's ccache and unpacked tree: a job that ran before builds warm.\n"
"  cache:\n"
"    key: \"nmx-$NMX_SHARD\"\n"
"    paths:\n"
"      - .cache/notrace-matrix/ccache/\n"
"      - .cache/notrace-matrix/src/\n"
"  artifacts:\n"
"    when: always\n"
"    paths:\n"
"      - results/shards/$NMX_SHARD/\n", f);
	for (i = 0; i < m->run_trees.n; i++) {
		struct tree *t = matrix_tree(m, m->run_trees.v[i]);

		if (!t || !tree_runs(m, t))
			continue;
		for (k = 0; k < m->run_cells.n; k++) {
			const char *c = m->run_cells.v[k];

			fprintf(f, "\n%s %s:\n", t->name, c);
			fputs("  extends: .cell\n  variables:\n", f);
			fprintf(f, "    NMX_TREE: %s\n    NMX_CELL: %s\n", t->name, c);
			fprintf(f, "    NMX_SHARD: %s-%s\n", t->name, c);
		}
	}
	fputs(
"\n"
"report:\n"
"  stage: report\n"
"  when: always\n"
"  before_script:\n"
"    # The host tool only: the merge builds and boots nothing.\n"
"    - '[ \"$NMX_INSTALL\" = 0 ] || scripts/install-deps.sh --no-cells'\n"
"  script:\n"
"    - NMX_RESULTS=results ./matrix.sh --no-install --merge \"$NMX_RUN_ID\" results/shards/*/\"$NMX_RUN_ID\"\n"
"  artifacts:\n"
"    when: always\n"
"    paths:\n"
"      - results/$NMX_RUN_ID/\n"
"    reports:\n"
"      junit: results/$NMX_RUN_ID/junit.xml\n", f);
	return ferror(f) ? -1 : 0;
}
