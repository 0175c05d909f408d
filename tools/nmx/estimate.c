// SPDX-License-Identifier: GPL-2.0
/*
 * nmx estimate: how long a run of these cells takes, from measured stage
 * seconds, by playing matrix.sh's schedule forward.
 *
 * Each cell's figures come from the last run that ran it (its stages.tsv
 * and meta.tsv), else from benchmarks/typical-seconds.tsv: what a first
 * run on an empty cache took on a 2-core machine, row by row (the tree's
 * variant and cell, else the variant and cell on any tree, else the
 * variant on any cell).
 *
 * The schedule is matrix.sh's: kernels one after another, each with the
 * cores the boots beside it leave; BESIDE boots of built cells beside the
 * builds, BOOTS at a time once the last kernel is built; a cell that boots
 * alone (qemu.alone) after the others, with nothing beside it. With no
 * boots beside the builds, that is done a tree at a time (the plan's runs
 * of cells of one tree), each tree's boots before the next tree's kernels.
 * A kernel's
 * seconds on other than 2 cores follow Amdahl's law from its 2-core wall
 * seconds and its CPU seconds (the part that ran on one core: linking,
 * kallsyms, objtool, the serial half of Kbuild). Boots are taken as
 * measured, two at a time on 2 cores: a guest never gets more than the
 * host thread per vCPU it had there. On a GitLab pipeline (--runners) each
 * tree and cell is a job on a runner of --cores cores, started in the
 * pipeline's order on the first runner free; the merge job is not counted.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "matrix.h"
#include "rundir.h"

/*
 * A cold kernel's CPU seconds over its 2-core wall seconds where neither
 * the last run nor the typical figures give its CPU seconds: what the
 * cold kernels measured in issue 21 used of the 2 cores.
 */
#define DEFAULT_CPU_RATIO 1.3

enum { ST_PREPARE, ST_CONFIGURE, ST_KERNEL, ST_GUEST, ST_BOOT, ST_KERNEL_CPU, NR_STAGES };

static const char *const stage_names[NR_STAGES] = {
	"prepare", "configure", "kernel", "guest", "boot", "kernel_cpu",
};

struct est_cell {
	char tree[128], variant[64], cell[64];
	double s[NR_STAGES];
	int has[NR_STAGES];
	int alone;
	int from_last;
	double built, boot_end;
};

/* The row of @file for stage @stage: exact, "*-VARIANT" CELL, "*-VARIANT" "*". */
static void typical_stage(const char *file, struct est_cell *c, int stage)
{
	char line[512], want_tv[200], any_tv[100];
	double best[3];
	int found[3] = { 0 };
	FILE *f = fopen(file, "r");
	int i;

	if (!f)
		return;
	snprintf(want_tv, sizeof(want_tv), "%s-%s", c->tree, c->variant);
	snprintf(any_tv, sizeof(any_tv), "*-%s", c->variant);
	while (fgets(line, sizeof(line), f)) {
		char *tv, *cell, *st, *sec, *save;

		if (line[0] == '#')
			continue;
		tv = strtok_r(line, "\t\n", &save);
		cell = strtok_r(NULL, "\t\n", &save);
		st = strtok_r(NULL, "\t\n", &save);
		sec = strtok_r(NULL, "\t\n", &save);
		if (!sec || strcmp(st, stage_names[stage]))
			continue;
		if (!strcmp(tv, want_tv) && !strcmp(cell, c->cell))
			i = 0;
		else if (!strcmp(tv, any_tv) && !strcmp(cell, c->cell))
			i = 1;
		else if (!strcmp(tv, any_tv) && !strcmp(cell, "*"))
			i = 2;
		else
			continue;
		best[i] = strtod(sec, NULL);
		found[i] = 1;
	}
	fclose(f);
	for (i = 0; i < 3; i++)
		if (found[i]) {
			c->s[stage] = best[i];
			c->has[stage] = 1;
			return;
		}
}

static void last_stage(char **f, int n, void *data)
{
	struct est_cell *c = data;
	int i;

	if (n < 3 || strcmp(f[1], "ok"))
		return;
	for (i = 0; i < ST_KERNEL_CPU; i++)
		if (!strcmp(f[0], stage_names[i])) {
			c->s[i] = strtod(f[2], NULL);
			c->has[i] = 1;
		}
}

static void last_meta(char **f, int n, void *data)
{
	struct est_cell *c = data;

	if (n > 1 && !strcmp(f[0], "kernel_cpu_seconds")) {
		c->s[ST_KERNEL_CPU] = strtod(f[1], NULL);
		c->has[ST_KERNEL_CPU] = 1;
	}
}

/* The last run's figures of @c: stages.tsv's ok stages, meta.tsv's CPU. */
static void last_stages(const char *run_dir, struct est_cell *c)
{
	char dir[1024], path[1100];

	rundir_cell(dir, sizeof(dir), run_dir, c->tree, c->variant, c->cell);
	snprintf(path, sizeof(path), "%s/" RUNDIR_STAGES, dir);
	if (rundir_each_tsv(path, last_stage, c))
		return;
	snprintf(path, sizeof(path), "%s/" RUNDIR_META, dir);
	rundir_each_tsv(path, last_meta, c);
}

/*
 * @c's figures: all from the last run if it booted the cell there, else
 * all from the typical figures; 0 if neither has its boot.
 */
static int cell_figures(const char *last_run, const char *typical, struct est_cell *c)
{
	int i;

	if (last_run) {
		last_stages(last_run, c);
		if (c->has[ST_BOOT]) {
			c->from_last = 1;
			return 1;
		}
		memset(c->s, 0, sizeof(c->s));
		memset(c->has, 0, sizeof(c->has));
	}
	if (!typical)
		return 0;
	for (i = 0; i < NR_STAGES; i++)
		typical_stage(typical, c, i);
	return c->has[ST_BOOT];
}

/*
 * @c's kernel on @cores cores: its wall w on 2 cores and CPU seconds u give
 * the serial part 2w - u and the parallel part 2(u - w).
 */
static double kernel_seconds(const struct est_cell *c, int cores)
{
	double w = c->s[ST_KERNEL];
	double u = c->has[ST_KERNEL_CPU] ? c->s[ST_KERNEL_CPU] : w * DEFAULT_CPU_RATIO;
	double serial, parallel;

	if (u < w)
		u = w;
	if (u > 2 * w)
		u = 2 * w;
	serial = 2 * w - u;
	parallel = 2 * (u - w);
	return serial + parallel / (cores < 1 ? 1 : cores);
}

/*
 * matrix.sh's schedule of @n cells on @cores cores: the seconds from the
 * first build to the last boot's end.
 */
static double schedule(struct est_cell *cells, size_t n, int cores, int boots, int beside)
{
	double t = 0, build_end, now, *running, next;
	size_t i, nrun = 0, k;
	int make_cores = cores - beside;

	for (i = 0; i < n; i++) {
		t += cells[i].s[ST_PREPARE] + cells[i].s[ST_CONFIGURE] +
		     kernel_seconds(&cells[i], make_cores) + cells[i].s[ST_GUEST];
		cells[i].built = t;
		cells[i].boot_end = -1;
	}
	build_end = t;
	running = calloc(boots > 0 ? boots : 1, sizeof(*running));
	if (!running)
		return -1;
	now = 0;
	/* The cells that boot with others, in the order they were built. */
	for (i = 0; i < n; i++) {
		if (cells[i].alone)
			continue;
		for (;;) {
			int cap = now < build_end ? beside : boots;

			/* Drop the boots that ended by now. */
			for (k = 0; k < nrun;)
				if (running[k] <= now)
					running[k] = running[--nrun];
				else
					k++;
			if ((int)nrun < cap && cells[i].built <= now)
				break;
			next = -1;
			for (k = 0; k < nrun; k++)
				if (next < 0 || running[k] < next)
					next = running[k];
			if (cells[i].built > now && (next < 0 || cells[i].built < next))
				next = cells[i].built;
			if (now < build_end && (next < 0 || build_end < next))
				next = build_end;
			now = next;
		}
		cells[i].boot_end = now + cells[i].s[ST_BOOT];
		running[nrun++] = cells[i].boot_end;
	}
	t = build_end;
	for (k = 0; k < nrun; k++)
		if (running[k] > t)
			t = running[k];
	for (i = 0; i < n; i++)
		if (cells[i].boot_end > t)
			t = cells[i].boot_end;
	free(running);
	/* Then each cell that boots alone, one after another. */
	for (i = 0; i < n; i++)
		if (cells[i].alone) {
			t += cells[i].s[ST_BOOT];
			cells[i].boot_end = t;
		}
	return t;
}

/*
 * matrix.sh's schedule of the whole run: with no boots beside the builds,
 * each run of cells of one tree is scheduled as a run of its own, after
 * the one before it has ended.
 */
static double run_schedule(struct est_cell *cells, size_t n, int cores,
			   int boots, int beside)
{
	double t = 0, d;
	size_t i, j, k;

	if (beside > 0)
		return schedule(cells, n, cores, boots, beside);
	for (i = 0; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(cells[j].tree, cells[i].tree); j++)
			;
		d = schedule(cells + i, j - i, cores, boots, beside);
		if (d < 0)
			return d;
		for (k = i; k < j; k++) {
			cells[k].built += t;
			if (cells[k].boot_end >= 0)
				cells[k].boot_end += t;
		}
		t += d;
	}
	return t;
}

/*
 * The seconds to the last verdict of the scheduled run's first tree (its
 * cells' last boot), or -1 where all its cells are of one tree.
 */
static double first_tree_end(const struct est_cell *cells, size_t n)
{
	double end = -1;
	int other = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (strcmp(cells[i].tree, cells[0].tree))
			other = 1;
		else if (cells[i].boot_end > end)
			end = cells[i].boot_end;
	}
	return other ? end : -1;
}

/*
 * A GitLab pipeline: a job per tree and cell (its variants in plan order,
 * on a runner of @cores cores), on @runners runners in the pipeline's order.
 */
static double pipeline(struct est_cell *cells, size_t n, int cores, int boots,
		       int beside, int runners)
{
	double *free_at = calloc(runners, sizeof(*free_at)), end = 0;
	struct est_cell *job = calloc(n, sizeof(*job));
	char *done = calloc(n, 1);
	size_t i, j, nj;
	int r, first;

	if (!free_at || !job || !done) {
		free(free_at);
		free(job);
		free(done);
		return -1;
	}
	for (i = 0; i < n; i++) {
		double d;

		if (done[i])
			continue;
		for (nj = 0, j = i; j < n; j++)
			if (!strcmp(cells[j].tree, cells[i].tree) &&
			    !strcmp(cells[j].cell, cells[i].cell)) {
				job[nj++] = cells[j];
				done[j] = 1;
			}
		d = schedule(job, nj, cores, boots, beside);
		for (first = 0, r = 1; r < runners; r++)
			if (free_at[r] < free_at[first])
				first = r;
		free_at[first] += d;
		if (free_at[first] > end)
			end = free_at[first];
	}
	free(free_at);
	free(job);
	free(done);
	return end;
}

static int positive(const char *opt, const char *arg, int *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || *end || end == arg || v < 1 || v > 4096) {
		fprintf(stderr, "nmx estimate: %s %s: a positive number\n", opt, arg);
		return -1;
	}
	*out = v;
	return 0;
}

int cmd_estimate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "last", required_argument, 0, 'l' },
		{ "typical", required_argument, 0, 't' },
		{ "cores", required_argument, 0, 'c' },
		{ "boots", required_argument, 0, 'b' },
		{ "beside", required_argument, 0, 'B' },
		{ "runners", required_argument, 0, 'r' },
		{ "seconds", no_argument, 0, 's' },
		{ 0, 0, 0, 0 }
	};
	const char *last_run = NULL, *typical = NULL;
	int cores = 2, boots = -1, beside = -1, runners = 0, seconds_only = 0;
	struct est_cell *cells = NULL;
	size_t n = 0, alloc = 0, ninput = 0, nlast = 0, ntypical = 0, lineno = 0;
	char line[512];
	double total;
	int opt, ret = EXIT_INFRA;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': last_run = optarg; break;
		case 't': typical = optarg; break;
		case 'c': if (positive("--cores", optarg, &cores)) return EXIT_INFRA; break;
		case 'b': if (positive("--boots", optarg, &boots)) return EXIT_INFRA; break;
		case 'B':
			if (!strcmp(optarg, "0"))
				beside = 0;
			else if (positive("--beside", optarg, &beside))
				return EXIT_INFRA;
			break;
		case 'r': if (positive("--runners", optarg, &runners)) return EXIT_INFRA; break;
		case 's': seconds_only = 1; break;
		default: return EXIT_INFRA;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "nmx estimate: unexpected argument '%s' (the cells are read from stdin)\n",
			argv[optind]);
		return EXIT_INFRA;
	}
	/* matrix.sh's defaults: a boot per core, (cores - 2) / 2 beside a build. */
	if (boots < 0)
		boots = cores;
	if (beside < 0)
		beside = cores > 2 ? (cores - 2) / 2 : 0;
	if (beside > boots)
		beside = boots;
	if (beside >= cores)
		beside = cores - 1;
	while (fgets(line, sizeof(line), stdin)) {
		struct est_cell *c;
		struct cell arch;
		char extra[2];
		int nf;

		lineno++;
		if (line[0] == '\n' || line[0] == '#')
			continue;
		if (n == alloc) {
			struct est_cell *more;

			alloc = alloc ? 2 * alloc : 32;
			more = realloc(cells, alloc * sizeof(*cells));
			if (!more)
				goto out;
			cells = more;
		}
		c = &cells[n];
		memset(c, 0, sizeof(*c));
		nf = sscanf(line, "%127s %63s %63s %1s", c->tree, c->variant, c->cell, extra);
		if (nf != 3) {
			fprintf(stderr, "nmx estimate: stdin:%zu: not 'tree variant cell'\n", lineno);
			goto out;
		}
		ninput++;
		if (cell_load(&arch, arches_dir, c->cell))
			goto out;
		c->alone = arch.boot_alone;
		cell_free(&arch);
		if (!cell_figures(last_run, typical, c))
			continue;
		if (c->from_last)
			nlast++;
		else
			ntypical++;
		n++;
	}
	ret = EXIT_PASS;
	if (!n)
		goto out;
	total = runners ? pipeline(cells, n, cores, boots, beside, runners)
			: run_schedule(cells, n, cores, boots, beside);
	if (total < 0) {
		ret = EXIT_INFRA;
		goto out;
	}
	if (seconds_only) {
		printf("%.0f\n", total);
	} else {
		time_t end = time(NULL) + (time_t)(total + 0.5);
		char at[16], from[160] = "", first[200] = "";
		long mins = (long)((total + 59) / 60);
		double first_end;

		strftime(at, sizeof(at), "%H:%M", localtime(&end));
		/*
		 * Where the run has more than one tree, when the first
		 * one's last verdict comes.
		 */
		first_end = runners ? -1 : first_tree_end(cells, n);
		if (first_end >= 0 && first_end < total) {
			time_t t = time(NULL) + (time_t)(first_end + 0.5);
			char at_first[16];

			strftime(at_first, sizeof(at_first), "%H:%M", localtime(&t));
			snprintf(first, sizeof(first), "; %s's verdicts near %s, in about %ld min",
				 cells[0].tree, at_first, (long)((first_end + 59) / 60));
		}
		if (nlast)
			snprintf(from, sizeof(from), "the last run's figures for %zu", nlast);
		if (ntypical)
			snprintf(from + strlen(from), sizeof(from) - strlen(from),
				 "%sa first run's typical figures for %zu", nlast ? ", " : "", ntypical);
		printf("expected: about %ld min, finishing near %s%s (%s of %zu cell(s); a changed series or config takes longer)\n",
		       mins > 0 ? mins : 1, at, first, from, ninput);
	}
out:
	free(cells);
	return ret;
}
