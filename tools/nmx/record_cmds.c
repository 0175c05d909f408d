// SPDX-License-Identifier: GPL-2.0
/*
 * nmx record, nmx cell-dir: how the scripts write a cell's records and
 * find its directory, so that the layout, the record files and what
 * they may hold are spelled in rundir.c only.
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "rundir.h"
#include "status.h"

static int valid_seconds(const char *s)
{
	char *end;
	double d;

	errno = 0;
	d = strtod(s, &end);
	return *s && !*end && !errno && d >= 0 && d < 1e7;
}

int cmd_record(int argc, char **argv)
{
	const char *dir = NULL;

	if (argc >= 3 && !strcmp(argv[1], "--cell-dir")) {
		dir = argv[2];
		argc -= 3;
		argv += 3;
	}
	if (dir && argc >= 4 && argc <= 5 && !strcmp(argv[0], "stage")) {
		const char *f[4] = { argv[1], argv[2], argv[3], argc == 5 ? argv[4] : "" };

		if (rundir_check_stage(f[0], f[1]))
			return EXIT_INFRA;
		if (!valid_seconds(f[2])) {
			fprintf(stderr, "nmx record: '%s' is no number of seconds\n", f[2]);
			return EXIT_INFRA;
		}
		return rundir_append(dir, RUNDIR_STAGES, f, 4) ? EXIT_INFRA : EXIT_PASS;
	}
	if (dir && argc == 3 && !strcmp(argv[0], "meta")) {
		const char *f[2] = { argv[1], argv[2] };

		if (rundir_check_meta_key(f[0]))
			return EXIT_INFRA;
		return rundir_append(dir, RUNDIR_META, f, 2) ? EXIT_INFRA : EXIT_PASS;
	}
	fprintf(stderr, "usage: nmx record --cell-dir DIR stage NAME STATUS SECONDS [DETAIL]\n"
			"       nmx record --cell-dir DIR meta KEY VALUE\n");
	return EXIT_INFRA;
}

static int remove_one(const char *path, const struct stat *st, int flag,
		      struct FTW *ftw)
{
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) && errno != ENOENT) {
		fprintf(stderr, "nmx: cannot remove %s: %s\n", path, strerror(errno));
		return -1;
	}
	return 0;
}

static int mkdirs(char *path)
{
	char *p;

	for (p = path + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(path, 0777) && errno != EEXIST) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return mkdir(path, 0777) && errno != EEXIST ? -1 : 0;
}

/* A name that is one path component: a tree, variant or cell. */
static int one_component(const char *what, const char *s)
{
	if (s && *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, ".."))
		return 0;
	fprintf(stderr, "nmx cell-dir: --%s '%s' is not a name\n", what, s ? s : "");
	return -1;
}

/* @dir/cell.tsv: the cell's facts, resolved once, when its run plans it. */
static int write_description(const char *dir, const char *tree,
			     const char *variant, const char *cell)
{
	char path[4096], tmp[4200];
	FILE *f;
	int err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, RUNDIR_CELL) >= (int)sizeof(path))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "nmx: cannot write %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	err = describe_cell(f, tree, variant, cell);
	if (fclose(f) || err || rename(tmp, path)) {
		if (!err)
			fprintf(stderr, "nmx: cannot write %s\n", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

/*
 * The directory of one cell in a run, printed. --fresh: the cell starts
 * over (a cell that was cut off leaves no records of two attempts): the
 * directory emptied, its meta.tsv begun with the run's id, its
 * reproduce.sh with the shell's header, and its facts described in
 * cell.tsv, which every later step of the cell reads.
 */
int cmd_cell_dir(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, 0, 'r' },
		{ "tree", required_argument, 0, 't' },
		{ "variant", required_argument, 0, 'v' },
		{ "cell", required_argument, 0, 'c' },
		{ "fresh", no_argument, 0, 'F' },
		{ 0 }
	};
	const char *run = NULL, *tree = NULL, *variant = NULL, *cell = NULL;
	const char *run_id;
	char dir[4096];
	int opt, fresh = 0;
	FILE *f;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'r': run = optarg; break;
		case 't': tree = optarg; break;
		case 'v': variant = optarg; break;
		case 'c': cell = optarg; break;
		case 'F': fresh = 1; break;
		default: return EXIT_INFRA;
		}
	}
	if (optind != argc || !run || !*run) {
		fprintf(stderr, "usage: nmx cell-dir [--fresh] --run RUN_DIR --tree T --variant V --cell C\n");
		return EXIT_INFRA;
	}
	if (one_component("tree", tree) || one_component("variant", variant) ||
	    one_component("cell", cell))
		return EXIT_INFRA;
	rundir_cell(dir, sizeof(dir), run, tree, variant, cell);
	if (fresh) {
		const char *id[2] = { "run_id", NULL };

		if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) && errno != ENOENT)
			return EXIT_INFRA;
		if (mkdirs(dir)) {
			fprintf(stderr, "nmx: cannot make %s: %s\n", dir, strerror(errno));
			return EXIT_INFRA;
		}
		run_id = strrchr(run, '/') ? strrchr(run, '/') + 1 : run;
		id[1] = run_id;
		if (rundir_append(dir, RUNDIR_META, id, 2))
			return EXIT_INFRA;
		if (snprintf(dir + strlen(dir), sizeof(dir) - strlen(dir), "/%s",
			     RUNDIR_REPRODUCE) >= (int)(sizeof(dir) - strlen(dir)))
			return EXIT_INFRA;
		f = fopen(dir, "w");
		if (!f || fprintf(f, "#!/bin/sh\n# Reproduce %s (%s-%s) by hand, stage by stage.\nset -e\n",
				  cell, tree, variant) < 0 || fclose(f)) {
			fprintf(stderr, "nmx: cannot write %s\n", dir);
			return EXIT_INFRA;
		}
		rundir_cell(dir, sizeof(dir), run, tree, variant, cell);
		if (write_description(dir, tree, variant, cell))
			return EXIT_INFRA;
	}
	printf("%s\n", dir);
	return EXIT_PASS;
}

struct seconds_walk {
	const char *stage;	/* NULL: every stage */
	int n;
};

static void put_seconds(char **f, int n, void *data)
{
	struct seconds_walk *w = data;

	if (n < 3)
		return;
	if (!w->stage)
		printf("%s%s %.0f s", w->n++ ? ", " : "", f[0], atof(f[2]));
	else if (!strcmp(f[0], w->stage) && !strcmp(f[1], RUNDIR_STAGE_OK) && !w->n++)
		printf("%.0f\n", atof(f[2]));
}

/*
 * The seconds a cell's stages took, for the progress lines: every
 * stage recorded ("prepare 3 s, configure 1 s, ..."), or one stage's
 * seconds if it ended ok. Nothing when the cell has no records.
 */
int cmd_stage_seconds(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cell-dir", required_argument, 0, 'd' },
		{ "stage", required_argument, 0, 's' },
		{ 0 }
	};
	struct seconds_walk w = { 0 };
	const char *dir = NULL;
	char path[4096];
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 's': w.stage = optarg; break;
		default: return EXIT_INFRA;
		}
	}
	if (optind != argc || !dir) {
		fprintf(stderr, "usage: nmx stage-seconds --cell-dir DIR [--stage NAME]\n");
		return EXIT_INFRA;
	}
	if (w.stage && rundir_check_stage(w.stage, RUNDIR_STAGE_OK))
		return EXIT_INFRA;
	if (snprintf(path, sizeof(path), "%s/%s", dir, RUNDIR_STAGES) >= (int)sizeof(path))
		return EXIT_INFRA;
	rundir_each_tsv(path, put_seconds, &w);
	if (!w.stage && w.n)
		putchar('\n');
	return EXIT_PASS;
}

struct run_cells {
	const char *run;
	int want;	/* 1 finished, 0 not, -1 every cell */
	int as_dir;
};

static int put_planned(const char *tree, const char *variant,
		       const char *cell, void *data)
{
	struct run_cells *r = data;
	char dir[4096], path[4200];

	rundir_cell(dir, sizeof(dir), r->run, tree, variant, cell);
	snprintf(path, sizeof(path), "%s/%s", dir, RUNDIR_RESULT);
	if (r->want >= 0 && (access(path, F_OK) == 0) != r->want)
		return 0;
	if (r->as_dir)
		printf("%s-%s/%s\n", tree, variant, cell);
	else
		printf("%s %s %s\n", tree, variant, cell);
	return 0;
}

/*
 * The planned cells of a run, as its plan lists them: every one, or
 * those that finished (a result.json) or did not. --dirs: as the run
 * directory's "TREE-VARIANT/CELL" instead of "tree variant cell".
 */
int cmd_run_cells(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run", required_argument, 0, 'r' },
		{ "finished", no_argument, 0, 'f' },
		{ "unfinished", no_argument, 0, 'u' },
		{ "dirs", no_argument, 0, 'd' },
		{ 0 }
	};
	struct run_cells r = { NULL, -1, 0 };
	char path[4096];
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'r': r.run = optarg; break;
		case 'f': r.want = r.want == 0 ? 2 : 1; break;
		case 'u': r.want = r.want == 1 ? 2 : 0; break;
		case 'd': r.as_dir = 1; break;
		default: return EXIT_INFRA;
		}
	}
	if (optind != argc || !r.run || r.want == 2) {
		fprintf(stderr, "usage: nmx run-cells --run RUN_DIR [--finished | --unfinished] [--dirs]\n");
		return EXIT_INFRA;
	}
	if (snprintf(path, sizeof(path), "%s/%s", r.run, RUNDIR_PLAN) >= (int)sizeof(path))
		return EXIT_INFRA;
	return rundir_each_planned(path, put_planned, &r) < 0 ? EXIT_INFRA : EXIT_PASS;
}

/* ---- stages ----------------------------------------------------------- */

/*
 * The table of a cell's stages (rundir.c), in run order: "NAME<TAB>RUN_BY
 * <TAB>FAILS_AS<TAB>KEY" with KEY its inputs comma-separated, or "-".
 */
int cmd_stages(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "run-by", required_argument, 0, 'r' },
		{ 0 }
	};
	const struct rundir_stage *st;
	const char *run_by = NULL;
	size_t i, k;
	int opt;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (opt != 'r')
			return EXIT_INFRA;
		run_by = optarg;
	}
	if (optind != argc) {
		fprintf(stderr, "usage: nmx stages [--run-by SCRIPT]\n");
		return EXIT_INFRA;
	}
	for (i = 0; (st = rundir_stage_at(i)); i++) {
		if (run_by && strcmp(run_by, st->run_by))
			continue;
		printf("%s\t%s\t%s\t", st->name, st->run_by,
		       status_name(st->fails_as));
		for (k = 0; st->key[k] != KEY_END; k++)
			printf("%s%s", k ? "," : "", rundir_key_input_name(st->key[k]));
		printf("%s\n", k ? "" : "-");
	}
	return fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
}
