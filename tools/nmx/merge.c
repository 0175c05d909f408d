// SPDX-License-Identifier: GPL-2.0
/*
 * nmx merge: one run from the shards of a run (matrix.sh --shard), as CI
 * engines produce them, one job per tree and cell. Each planned cell
 * comes from exactly one shard; a cell two shards report, or one the plan
 * does not have, is an error (the shards and the plan disagree); a planned
 * cell no shard reported gets a result of its own, status INFRA_FAIL at
 * stage "shard" (MISS in KCIDB), so a lost job is never a silent gap.
 * Then the summary and every report, as for a local run.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "matrix.h"
#include "rundir.h"
#include "status.h"

struct planned {
	char *tree, *variant, *cell;
	const char *from;	/* the shard it came from, or NULL */
};

struct plan_read {
	struct planned **plan;
	size_t *n;
};

static int add_planned(const char *tree, const char *variant,
		       const char *cell, void *data)
{
	struct plan_read *r = data;

	*r->plan = realloc(*r->plan, (*r->n + 1) * sizeof(**r->plan));
	(*r->plan)[*r->n] = (struct planned){ strdup(tree), strdup(variant),
					      strdup(cell), NULL };
	(*r->n)++;
	return 0;
}

static int read_plan(const char *path, struct planned **plan, size_t *n)
{
	struct plan_read r = { plan, n };

	if (rundir_each_planned(path, add_planned, &r) < 0)
		return -1;
	if (!*n) {
		fprintf(stderr, "nmx merge: %s plans no cell\n", path);
		return -1;
	}
	return 0;
}

/* Copy the regular files and directories under @from to @to (a cell). */
static int copy_tree(const char *from, const char *to)
{
	char src[4096], dst[4096], buf[65536];
	struct dirent *e;
	struct stat st;
	DIR *d = opendir(from);
	int err = 0;

	if (!d || mkdir(to, 0755)) {
		fprintf(stderr, "nmx merge: %s -> %s: %m\n", from, to);
		if (d)
			closedir(d);
		return -1;
	}
	while (!err && (e = readdir(d))) {
		ssize_t r = 0;
		int in, out;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, e->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", to, e->d_name);
		if (lstat(src, &st)) {
			err = -1;
			break;
		}
		if (S_ISDIR(st.st_mode)) {
			err = copy_tree(src, dst);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;	/* a cell holds files only */
		in = open(src, O_RDONLY);
		out = in < 0 ? -1 : open(dst, O_WRONLY | O_CREAT | O_EXCL,
					 st.st_mode & 0777);
		while (out >= 0 && (r = read(in, buf, sizeof(buf))) > 0)
			if (write(out, buf, r) != r) {
				r = -1;
				break;
			}
		if (in < 0 || out < 0 || r < 0 || close(out)) {
			fprintf(stderr, "nmx merge: copying %s: %m\n", src);
			err = -1;
		}
		if (in >= 0)
			close(in);
	}
	closedir(d);
	return err;
}

static int write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	int err;

	if (!f) {
		fprintf(stderr, "nmx merge: %s: %m\n", path);
		return -1;
	}
	fputs(text, f);
	err = ferror(f);
	err |= fclose(f);
	if (err)
		fprintf(stderr, "nmx merge: cannot write %s: %m\n", path);
	return err ? -1 : 0;
}

/* A result for a planned cell that no shard reported. */
static int write_missing(const char *run_dir, const char *run_id,
			 const struct planned *p)
{
	char dir[4096], path[4200], text[2048];

	snprintf(dir, sizeof(dir), "%s/%s-%s", run_dir, p->tree, p->variant);
	mkdir(dir, 0755);
	snprintf(dir, sizeof(dir), "%s/%s-%s/%s", run_dir, p->tree, p->variant,
		 p->cell);
	if (mkdir(dir, 0755)) {
		fprintf(stderr, "nmx merge: %s: %m\n", dir);
		return -1;
	}
	{
		const char *meta[][2] = {
			{ "run_id", run_id }, { "cell", p->cell },
			{ "tree", p->tree }, { "variant", p->variant },
		};
		const char *stage[4] = {
			"shard", status_name(ST_INFRA_FAIL), "0",
			"missing: planned, but no shard reported this cell (its job was lost, or failed before writing its result)",
		};
		size_t i;

		for (i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
			if (rundir_append(dir, RUNDIR_META, meta[i], 2))
				return -1;
		if (rundir_check_stage(stage[0], stage[1]) ||
		    rundir_append(dir, RUNDIR_STAGES, stage, 4))
			return -1;
	}
	snprintf(path, sizeof(path), "%s/reproduce.sh", dir);
	snprintf(text, sizeof(text),
		 "#!/bin/sh\n# Reproduce %s (%s-%s): no shard ran it; run it alone with\n"
		 "./matrix.sh --tree %s --variant %s --cell %s\n",
		 p->cell, p->tree, p->variant, p->tree, p->variant, p->cell);
	if (write_text(path, text))
		return -1;
	return cell_write_result(dir, 0) == EXIT_PASS ? 0 : -1;
}

/* Merge the cells of one shard's run directory into @run_dir. */
static int merge_shard(const char *shard, const char *run_dir,
		       struct planned *plan, size_t n)
{
	char tvdir[4096], from[8192], to[8192];
	struct dirent *tv, *cell;
	DIR *d = opendir(shard), *dc;
	int err = 0;
	size_t i;

	if (!d && errno == ENOENT) {
		/* A job that uploaded nothing: its cells are missing. */
		fprintf(stderr, "nmx merge: shard %s is not there: it adds no cell\n",
			shard);
		return 0;
	}
	if (!d) {
		fprintf(stderr, "nmx merge: shard %s: %m\n", shard);
		return -1;
	}
	while (!err && (tv = readdir(d))) {
		if (tv->d_name[0] == '.')
			continue;
		snprintf(tvdir, sizeof(tvdir), "%s/%s", shard, tv->d_name);
		dc = opendir(tvdir);
		if (!dc)
			continue;	/* plan.tsv and other files */
		while (!err && (cell = readdir(dc))) {
			struct planned *p = NULL;

			if (cell->d_name[0] == '.')
				continue;
			snprintf(from, sizeof(from), "%s/%s/result.json", tvdir,
				 cell->d_name);
			if (access(from, F_OK))
				continue;	/* a cell cut off: missing */
			for (i = 0; i < n && !p; i++) {
				char name[512];

				snprintf(name, sizeof(name), "%s-%s",
					 plan[i].tree, plan[i].variant);
				if (!strcmp(name, tv->d_name) &&
				    !strcmp(plan[i].cell, cell->d_name))
					p = &plan[i];
			}
			if (!p) {
				fprintf(stderr, "nmx merge: %s/%s in shard %s is not in the plan\n",
					tv->d_name, cell->d_name, shard);
				err = -1;
				break;
			}
			if (p->from) {
				fprintf(stderr, "nmx merge: %s/%s is in two shards: %s and %s\n",
					tv->d_name, cell->d_name, p->from, shard);
				err = -1;
				break;
			}
			p->from = shard;
			snprintf(to, sizeof(to), "%s/%s", run_dir, tv->d_name);
			if (mkdir(to, 0755) && errno != EEXIST) {
				fprintf(stderr, "nmx merge: %s: %m\n", to);
				err = -1;
				break;
			}
			snprintf(from, sizeof(from), "%s/%s", tvdir, cell->d_name);
			snprintf(to, sizeof(to), "%s/%s/%s", run_dir, tv->d_name,
				 cell->d_name);
			err = copy_tree(from, to);
		}
		closedir(dc);
	}
	closedir(d);
	return err;
}

int cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "plan", required_argument, 0, 'p' },
		{ "out", required_argument, 0, 'o' },
		{ 0 }
	};
	const char *plan_path = NULL, *out = NULL, *run_id;
	struct planned *plan = NULL;
	size_t n = 0, i;
	char path[4200];
	int opt, ret = EXIT_INFRA, missing = 0, rc;
	FILE *f;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'p': plan_path = optarg; break;
		case 'o': out = optarg; break;
		default: return EXIT_INFRA;
		}
	}
	if (!plan_path || !out || optind >= argc) {
		fprintf(stderr, "usage: nmx merge --plan PLAN.tsv --out RUN_DIR SHARD_RUN_DIR...\n");
		return EXIT_INFRA;
	}
	if (read_plan(plan_path, &plan, &n))
		goto out;
	/* A new directory: a merge never mixes into an earlier run. */
	if (mkdir(out, 0755)) {
		fprintf(stderr, "nmx merge: %s: %m (the merged run needs a new directory)\n",
			out);
		goto out;
	}
	run_id = strrchr(out, '/') ? strrchr(out, '/') + 1 : out;
	for (; optind < argc; optind++)
		if (merge_shard(argv[optind], out, plan, n))
			goto out;
	snprintf(path, sizeof(path), "%s/" RUNDIR_PLAN, out);
	f = fopen(path, "w");
	for (i = 0; f && i < n; i++)
		fprintf(f, "%s %s %s\n", plan[i].tree, plan[i].variant,
			plan[i].cell);
	if (!f || fclose(f)) {
		fprintf(stderr, "nmx merge: cannot write %s: %m\n", path);
		goto out;
	}
	for (i = 0; i < n; i++) {
		if (plan[i].from)
			continue;
		fprintf(stderr, "nmx merge: %s-%s/%s: no shard reported it (missing)\n",
			plan[i].tree, plan[i].variant, plan[i].cell);
		missing++;
		if (write_missing(out, run_id, &plan[i]))
			goto out;
	}
	rc = run_summary(out);
	ret = run_reports(out, NULL) == EXIT_PASS ? rc : EXIT_INFRA;
	fprintf(stderr, "nmx merge: %zu planned cell(s), %d missing, into %s\n",
		n, missing, out);
out:
	for (i = 0; i < n; i++) {
		free(plan[i].tree);
		free(plan[i].variant);
		free(plan[i].cell);
	}
	free(plan);
	return ret;
}
