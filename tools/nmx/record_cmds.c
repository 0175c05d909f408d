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
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "matrix.h"
#include "patches.h"
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

/*
 * @dir/@name as @fill writes it, whole or not at all (a temporary
 * renamed), so a reader never sees half a file. -1 if @fill fails (it
 * says why) or the file cannot be written (said).
 */
static int write_atomic(const char *dir, const char *name,
			int (*fill)(FILE *f, const void *data), const void *data)
{
	char path[4096], tmp[4200];
	FILE *f;
	int err;

	if (path_join(path, sizeof(path), dir, name))
		return -1;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "nmx: cannot write %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	err = fill(f, data);
	if (fclose(f) || err || rename(tmp, path)) {
		if (!err)
			fprintf(stderr, "nmx: cannot write %s\n", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int fill_text(FILE *f, const void *text)
{
	return fputs(text, f) < 0 ? -1 : 0;
}

/* @text into @dir/@name (write_atomic). */
static int write_whole(const char *dir, const char *name, const char *text)
{
	return write_atomic(dir, name, fill_text, text);
}

static int fill_description(FILE *f, const void *data)
{
	const char *const *tvc = data;

	return describe_cell(f, tvc[0], tvc[1], tvc[2]);
}

/* @dir/cell.tsv: the cell's facts, resolved once, when its run plans it. */
static int write_description(const char *dir, const char *tree,
			     const char *variant, const char *cell)
{
	const char *tvc[3] = { tree, variant, cell };

	return write_atomic(dir, RUNDIR_CELL, fill_description, tvc);
}

static int remove_tree(const char *dir)
{
	return nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
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

		if (remove_tree(dir) && errno != ENOENT)
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
	FILE *out;	/* the cells, each followed by a line end */
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
	return fprintf(r->out, r->as_dir ? "%s-%s/%s\n" : "%s %s %s\n", tree,
		       variant, cell) < 0 ? -1 : 0;
}

/*
 * @r's cells of its run's plan into @r->out; -1, said, without a plan.
 */
static int planned_cells(struct run_cells *r)
{
	char path[4096];

	if (snprintf(path, sizeof(path), "%s/%s", r->run, RUNDIR_PLAN) >= (int)sizeof(path))
		return -1;
	return rundir_each_planned(path, put_planned, r) < 0 ? -1 : 0;
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
	struct run_cells r = { NULL, -1, 0, NULL };
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
	r.out = stdout;
	return planned_cells(&r) ? EXIT_INFRA : EXIT_PASS;
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

/* ---- run-dir ---------------------------------------------------------- */

static int exists(const char *dir, const char *name)
{
	char path[4096];
	struct stat st;

	return !path_join(path, sizeof(path), dir, name) && !lstat(path, &st);
}

/* A run id: letters, digits, '.', '_', '-', not starting with '.' or '-'. */
static int valid_run_id(const char *id)
{
	return *id && *id != '.' && *id != '-' &&
	       strspn(id, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		      "0123456789._-") == strlen(id);
}

/*
 * The run made, printed as "id<TAB>ID" and "dir<TAB>DIR", and with
 * @patches imported into it (nmx: patches.c), "patches<TAB>ITS COPY". A
 * run whose patches cannot be imported is removed again.
 */
static int run_made(const char *results, const char *id, const char *patches)
{
	char dir[4096], copy[4200];

	if (path_join(dir, sizeof(dir), results, id))
		return EXIT_INFRA;
	if (patches) {
		snprintf(copy, sizeof(copy), "%s/%s", dir, RUNDIR_PATCHES);
		if (import_patches(patches, copy)) {
			remove_tree(dir);
			return EXIT_INFRA;
		}
	}
	printf("id\t%s\ndir\t%s\n", id, dir);
	if (patches)
		printf("patches\t%s\n", copy);
	return EXIT_PASS;
}

/*
 * A new run directory under @results: its id the time (UTC), with "-N" if
 * a run of that second exists; or @shard's, which must not hold a run
 * yet, marked as a shard. @patches: a maintainer's, imported into it.
 */
static int run_new(const char *results, const char *shard, const char *patches)
{
	char id[64], dir[4096];
	time_t now = time(NULL);
	struct tm tm;
	size_t n;
	int i;

	if (snprintf(dir, sizeof(dir), "%s", results) >= (int)sizeof(dir) ||
	    mkdirs(dir)) {
		fprintf(stderr, "nmx: cannot make %s: %s\n", results, strerror(errno));
		return EXIT_INFRA;
	}
	if (shard) {
		if (!valid_run_id(shard)) {
			fprintf(stderr, "nmx run-dir: --shard %s: a run id is letters, digits, '.', '_' and '-'\n",
				shard);
			return EXIT_INFRA;
		}
		if (path_join(dir, sizeof(dir), results, shard))
			return EXIT_INFRA;
		if (exists(dir, RUNDIR_PLAN)) {
			fprintf(stderr, "nmx run-dir: --shard %s: %s already holds a run (give each job its own results directory)\n",
				shard, dir);
			return EXIT_INFRA;
		}
		if ((mkdir(dir, 0777) && errno != EEXIST) ||
		    write_whole(dir, RUNDIR_SHARD, ""))
			return EXIT_INFRA;
		return run_made(results, shard, patches);
	}
	gmtime_r(&now, &tm);
	n = strftime(id, sizeof(id), "%Y%m%dT%H%M%SZ", &tm);
	for (i = 1; i < 1000; i++) {
		if (path_join(dir, sizeof(dir), results, id))
			return EXIT_INFRA;
		if (!mkdir(dir, 0777))
			return run_made(results, id, patches);
		if (errno != EEXIST)
			break;
		snprintf(id + n, sizeof(id) - n, "-%d", i);
	}
	fprintf(stderr, "nmx: cannot make a run directory in %s: %s\n", results,
		strerror(errno));
	return EXIT_INFRA;
}

static int add_planned(const char *tree, const char *variant, const char *cell,
		       void *out)
{
	return fprintf(out, "%s %s %s\n", tree, variant, cell) < 0 ? -1 : 0;
}

static int fill_local(FILE *f, const void *data)
{
	const char *const *dir_series = data;

	return fprintf(f, "dir\t%s\nseries\t%s\n", dir_series[0],
		       dir_series[1] ? dir_series[1] : "") < 0 ? -1 : 0;
}

/*
 * The run's plan from stdin ("tree variant cell" lines, as nmx cells
 * prints them; at least one), and for a --tree DIR run its checkout and
 * series, which --resume and --bisect take again.
 */
static int run_plan(const char *run, const char *local_tree,
		    const char *local_series)
{
	const char *local[2] = { local_tree, local_series };
	char *plan = NULL;
	size_t len = 0;
	FILE *f;
	int n = -1, err;

	if ((local_tree && strpbrk(local_tree, "\t\n")) ||
	    (local_series && strpbrk(local_series, "\t\n"))) {
		fprintf(stderr, "nmx run-dir plan: a tab or line end in --local-tree or --local-series\n");
		return EXIT_INFRA;
	}
	f = open_memstream(&plan, &len);
	if (f) {
		n = rundir_each_planned("-", add_planned, f);
		if (fclose(f))
			n = -1;
	}
	if (n == 0)
		fprintf(stderr, "nmx run-dir plan: no cell planned\n");
	err = n <= 0 || write_whole(run, RUNDIR_PLAN, plan);
	if (!err && local_tree)
		err = write_atomic(run, RUNDIR_LOCAL_TREE, fill_local, local);
	free(plan);
	return err ? EXIT_INFRA : EXIT_PASS;
}

/* The results directory @run is in (its parent), and @run's id. */
static const char *results_of(const char *run, char *buf, size_t size)
{
	const char *id = strrchr(run, '/');

	if (!id) {
		snprintf(buf, size, ".");
		return run;
	}
	snprintf(buf, size, "%.*s", id == run ? 1 : (int)(id - run), run);
	return id + 1;
}

static void put_local(char **f, int n, void *data)
{
	if (n == 2 && !strcmp(f[0], "dir"))
		printf("local_tree\t%s\n", f[1]);
	else if (n == 2 && !strcmp(f[0], "series") && *f[1])
		printf("local_series\t%s\n", f[1]);
}

/*
 * What a run was started with, for --resume and --bisect: "KEY<TAB>VALUE"
 * lines: patches (where its copy of a maintainer's patches is, when it has
 * one) and patches_from (where they were imported from), local_tree and local_series (a --tree DIR run's), shard (1: a
 * shard's run), baseline (the earlier run its reports were compared
 * with), interrupted (1: a signal cut it off).
 */
static int run_show(const char *run)
{
	char path[4096], line[256] = "", results[4096];
	FILE *f;

	if (!exists(run, RUNDIR_PLAN)) {
		fprintf(stderr, "nmx run-dir: no run in %s (no %s)\n", run, RUNDIR_PLAN);
		return EXIT_INFRA;
	}
	if (path_join(path, sizeof(path), run, RUNDIR_PATCHES "/series"))
		return EXIT_INFRA;
	if (!access(path, R_OK)) {
		printf("patches\t%s/%s\n", run, RUNDIR_PATCHES);
		/* patches.c's last line of series.imported-from: whence */
		if (path_join(path, sizeof(path), run,
			     RUNDIR_PATCHES "/series.imported-from"))
			return EXIT_INFRA;
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			;
		if (f)
			fclose(f);
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, "# imported from ", 16))
			printf("patches_from\t%s\n", line + 16);
		*line = '\0';
	}
	if (path_join(path, sizeof(path), run, RUNDIR_LOCAL_TREE))
		return EXIT_INFRA;
	rundir_each_tsv(path, put_local, NULL);
	printf("shard\t%d\n", exists(run, RUNDIR_SHARD));
	if (path_join(path, sizeof(path), run, RUNDIR_BASELINE))
		return EXIT_INFRA;
	f = fopen(path, "r");
	if (f) {
		if (fgets(line, sizeof(line), f))
			line[strcspn(line, "\n")] = '\0';
		fclose(f);
	}
	results_of(run, results, sizeof(results));
	if (*line)
		printf("baseline\t%s/%s\n", results, line);
	printf("interrupted\t%d\n", exists(run, RUNDIR_INTERRUPTED));
	return EXIT_PASS;
}

/*
 * The run's planned cells that did (@finished) or did not finish, as
 * "TREE-VARIANT/CELL ...", or "none"; NULL, said, without a plan.
 */
static char *cells_that(const char *run, int finished)
{
	struct run_cells r = { run, finished, 1, NULL };
	char *text = NULL, *p;
	size_t len = 0;
	int err;

	r.out = open_memstream(&text, &len);
	if (!r.out)
		return NULL;
	err = planned_cells(&r);
	if (fclose(r.out) || err) {
		free(text);
		return NULL;
	}
	if (!len) {
		free(text);
		return strdup("none");
	}
	text[len - 1] = '\0';
	for (p = text; (p = strchr(p, '\n')); )
		*p = ' ';
	return text;
}

/*
 * A run cut off by signal @sig: interrupted.txt says when, which cells
 * finished and which did not, and @resume (the command that finishes
 * it); its second line is printed.
 */
static int fill_interrupted(FILE *f, const void *data)
{
	const char *const *w = data;	/* signal, when, done, left, resume */

	return fprintf(f, "interrupted by SIG%s at %s\nfinished: %s\nnot finished: %s\nresume: %s\n",
		       w[0], w[1], w[2], w[3], w[4]) < 0 ? -1 : 0;
}

static int run_interrupted(const char *run, const char *sig, const char *resume)
{
	char *done = cells_that(run, 1), *left = cells_that(run, 0);
	const char *what[5] = { sig, NULL, done, left, resume };
	char when[32];
	time_t now = time(NULL);
	struct tm tm;
	int err = -1;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	what[1] = when;
	if (done && left)
		err = write_atomic(run, RUNDIR_INTERRUPTED, fill_interrupted, what);
	if (!err)
		printf("finished: %s\n", done);
	free(done);
	free(left);
	return err ? EXIT_INFRA : EXIT_PASS;
}

/*
 * A run that finished: the results directory's "latest" link moved to
 * it (a shard's run is not one: nothing moves), and the run it replaced
 * kept as its baseline. Prints "baseline<TAB>DIR" when there is one.
 */
static int run_finish(const char *run)
{
	char results[4096], link[4096], prev[4096], tmp[4200];
	const char *id;
	ssize_t n;

	if (!exists(run, RUNDIR_PLAN)) {
		fprintf(stderr, "nmx run-dir: no run in %s (no %s)\n", run, RUNDIR_PLAN);
		return EXIT_INFRA;
	}
	if (exists(run, RUNDIR_SHARD))
		return EXIT_PASS;
	id = results_of(run, results, sizeof(results));
	if (path_join(link, sizeof(link), results, RUNDIR_LATEST))
		return EXIT_INFRA;
	n = readlink(link, prev, sizeof(prev) - 1);
	prev[n > 0 ? n : 0] = '\0';
	snprintf(tmp, sizeof(tmp), "%s.tmp", link);
	unlink(tmp);
	if (symlink(id, tmp) || rename(tmp, link)) {
		fprintf(stderr, "nmx: cannot link %s to %s: %s\n", link, id, strerror(errno));
		unlink(tmp);
		return EXIT_INFRA;
	}
	if (*prev && strcmp(prev, id) && !strchr(prev, '/') && exists(results, prev)) {
		snprintf(tmp, sizeof(tmp), "%s\n", prev);
		if (write_whole(run, RUNDIR_BASELINE, tmp))
			return EXIT_INFRA;
		printf("baseline\t%s/%s\n", results, prev);
	}
	return EXIT_PASS;
}

int cmd_run_dir(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "results", required_argument, 0, 'R' },
		{ "run", required_argument, 0, 'r' },
		{ "shard", required_argument, 0, 's' },
		{ "local-tree", required_argument, 0, 'l' },
		{ "local-series", required_argument, 0, 'S' },
		{ "signal", required_argument, 0, 'g' },
		{ "resume", required_argument, 0, 'c' },
		{ "patches", required_argument, 0, 'p' },
		{ 0 }
	};
	const char *results = NULL, *run = NULL, *shard = NULL, *local = NULL;
	const char *series = NULL, *sig = NULL, *resume = NULL, *patches = NULL;
	const char *verb;
	int opt;

	if (argc < 2)
		goto usage;
	verb = argv[1];
	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'R': results = optarg; break;
		case 'r': run = optarg; break;
		case 's': shard = optarg; break;
		case 'l': local = optarg; break;
		case 'S': series = optarg; break;
		case 'g': sig = optarg; break;
		case 'c': resume = optarg; break;
		case 'p': patches = optarg; break;
		default: goto usage;
		}
	}
	if (optind != argc)
		goto usage;
	if (!strcmp(verb, "new") && results && !run && !local && !sig && !resume)
		return run_new(results, shard, patches);
	if (results || shard || patches || !run)
		goto usage;
	if (!strcmp(verb, "plan") && !sig && !resume && (local || !series))
		return run_plan(run, local, series);
	if (local || series)
		goto usage;
	if (!strcmp(verb, "show") && !sig && !resume)
		return run_show(run);
	if (!strcmp(verb, "resume") && !sig && !resume) {
		char path[4096];

		if (path_join(path, sizeof(path), run, RUNDIR_INTERRUPTED))
			return EXIT_INFRA;
		if (exists(run, RUNDIR_PLAN) && unlink(path) && errno != ENOENT) {
			fprintf(stderr, "nmx: cannot remove %s: %s\n", path, strerror(errno));
			return EXIT_INFRA;
		}
		return run_show(run);
	}
	if (!strcmp(verb, "interrupted") && sig && resume)
		return run_interrupted(run, sig, resume);
	if (!strcmp(verb, "finish") && !sig && !resume)
		return run_finish(run);
usage:
	fprintf(stderr, "usage: nmx run-dir new --results DIR [--shard ID] [--patches PATH]\n"
		"       nmx run-dir plan --run DIR [--local-tree CHECKOUT [--local-series TREE]] <PLAN\n"
		"       nmx run-dir show|resume|finish --run DIR\n"
		"       nmx run-dir interrupted --run DIR --signal SIG --resume COMMAND\n");
	return EXIT_INFRA;
}
