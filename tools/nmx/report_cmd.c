// SPDX-License-Identifier: GPL-2.0
/*
 *   nmx report [--baseline EARLIER_RUN_DIR] RUN_DIR
 *	writes report.html, report.md, junit.xml and kcidb.json into RUN_DIR
 *   nmx compare [-b BEFORE -a AFTER] BEFORE_RUN_DIR AFTER_RUN_DIR
 *	prints, per architecture, what was fixed, what regressed and what
 *	changed in the trace shape; exit 1 when something regressed. With
 *	-b/-a, one variant against another (the same run may be given twice:
 *	"what do the fixes fix"), or one tree's variant against another's
 *	(-b linux-6.1-upstream -a linux-6.12-upstream).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "console.h"
#include "report.h"
#include "status.h"


/* Written to a temporary name first: a reader never sees half a report. */
static int write_report(const char *dir, const char *name,
			int (*fn)(const struct run *, const struct run *,
				  FILE *),
			const struct run *run, const struct run *base)
{
	char path[4200], tmp[4300];
	FILE *f;
	int err;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "nmx: cannot write %s: %m\n", tmp);
		return -1;
	}
	err = fn(run, base, f);
	err |= fflush(f) | ferror(f);
	err |= fclose(f);
	if (err || rename(tmp, path)) {
		fprintf(stderr, "nmx: writing %s failed: %s\n", path,
			errno ? strerror(errno) : "error in the report");
		unlink(tmp);
		return -1;
	}
	return 0;
}

static int junit(const struct run *run, const struct run *base, FILE *f)
{
	return report_junit(run, f);
}

static int kcidb(const struct run *run, const struct run *base, FILE *f)
{
	return report_kcidb(run, f);
}

int cmd_report(int argc, char **argv)
{
	const char *base_dir = NULL;

	if (argc == 4 && !strcmp(argv[1], "--baseline")) {
		base_dir = argv[2];
		argv += 2;
		argc -= 2;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: nmx report [--baseline EARLIER_RUN_DIR] RUN_DIR\n");
		return EXIT_INFRA;
	}
	return run_reports(argv[1], base_dir);
}

int run_reports(const char *run_dir, const char *base_dir)
{
	struct run run, base;
	int err = 0;

	if (run_load(&run, run_dir))
		return EXIT_INFRA;
	if (base_dir && run_load(&base, base_dir)) {
		run_free(&run);
		return EXIT_INFRA;
	}
	err |= write_report(run.dir, "report.html", report_html, &run,
			    base_dir ? &base : NULL);
	err |= write_report(run.dir, "report.md", report_md, &run,
			    base_dir ? &base : NULL);
	err |= write_report(run.dir, "junit.xml", junit, &run, NULL);
	err |= write_report(run.dir, "kcidb.json", kcidb, &run, NULL);
	run_free(&run);
	if (base_dir)
		run_free(&base);
	return err ? EXIT_INFRA : EXIT_PASS;
}

/* ---- compare ---------------------------------------------------------- */

/*
 * Which cells of each run are compared: all, or one side of each. A side
 * is a variant ("upstream": that variant of every tree) or a tree and a
 * variant ("linux-6.12-upstream"), so that two trees can be compared
 * cell by cell.
 */
struct pairing {
	const char *before_variant, *after_variant;
};

/* Does @c belong to @side? *@by_tree: @side named @c's tree too. */
static int side_has(const struct cell_run *c, const char *side, int *by_tree)
{
	size_t n = strlen(c->tree);

	*by_tree = 0;
	if (!side || !strcmp(c->variant, side))
		return 1;
	if (!strncmp(side, c->tree, n) && side[n] == '-' &&
	    !strcmp(side + n + 1, c->variant)) {
		*by_tree = 1;
		return 1;
	}
	return 0;
}

static int in_side(const struct cell_run *c, const char *side)
{
	int by_tree;

	return side_has(c, side, &by_tree);
}

/*
 * @c's counterpart in @run: the same tree, cell and variant, or with a
 * side named, the same cell in that side (in the same tree, unless the
 * side names its tree).
 */
static const struct cell_run *same_cell(const struct run *run,
					const struct cell_run *c,
					const char *side)
{
	int i, by_tree;

	for (i = 0; i < run->nr; i++) {
		const struct cell_run *o = &run->c[i];

		if (strcmp(o->cell, c->cell))
			continue;
		if (!side) {
			if (!strcmp(o->tree, c->tree) &&
			    !strcmp(o->variant, c->variant))
				return o;
			continue;
		}
		if (side_has(o, side, &by_tree) &&
		    (by_tree || !strcmp(o->tree, c->tree)))
			return o;
	}
	return NULL;
}

/* Names of scenarios in either run, old order first. */
static const char **all_scenarios(const struct run *a, const struct run *b,
				  int *n)
{
	const char **names = malloc((a->nscen + b->nscen) * sizeof(*names));
	int i, k;

	memcpy(names, a->scen, a->nscen * sizeof(*names));
	*n = a->nscen;
	for (i = 0; i < b->nscen; i++) {
		for (k = 0; k < a->nscen; k++)
			if (!strcmp(a->scen[k], b->scen[i]))
				break;
		if (k == a->nscen)
			names[(*n)++] = b->scen[i];
	}
	return names;
}

/* Trace files either cell printed, as "name\n" lines. */
static void trace_files(const struct cell_run *c, char ***list, int *n)
{
	json_t *f;
	size_t i;

	json_array_foreach(json_object_get(json_object_get(c->r, "verdict"),
					   "files"), i, f) {
		const char *name = json_string_value(f);
		int k;

		if (!is_trace_file(name))
			continue;
		for (k = 0; k < *n; k++)
			if (!strcmp((*list)[k], name))
				break;
		if (k < *n)
			continue;
		*list = realloc(*list, (*n + 1) * sizeof(**list));
		(*list)[(*n)++] = strdup(name);
	}
}

static int count_lines(const char *s)
{
	int n = 0;

	for (; *s; s++)
		n += *s == '\n';
	return n;
}

/*
 * @o against @n, as markdown on @out; each regressed subtest that ran in
 * @n also as a "tree, cell, scenario, before, after" line on @regs (when
 * not NULL). Returns the number of regressions.
 */
static int compare_cell(const struct cell_run *o, const struct cell_run *n,
			const char **names, int nnames, FILE *out, FILE *regs)
{
	char **files = NULL, *not_run = NULL;
	int i, pass, regressed = 0, nfiles = 0, printed = 0, nr_not_run = 0;

	if (strcmp(o->tree, n->tree))
		fprintf(out, "\n### %s, %s-%s -> %s-%s\n\n", n->cell, o->tree,
		        o->variant, n->tree, n->variant);
	else if (strcmp(o->variant, n->variant))
		fprintf(out, "\n### %s, %s -> %s\n\n", n->cell, o->variant,
		        n->variant);
	else
		fprintf(out, "\n### %s, %s\n\n", n->cell, n->variant);
	if (strcmp(o->status, n->status)) {
		fprintf(out, "- cell: %s -> %s (%s)\n", o->status, n->status,
		        n->reason);
		printed++;
	}
	for (i = 0; i < nnames; i++) {
		const char *ro = cell_result(o, names[i]);
		const char *rn = cell_result(n, names[i]);
		int change = subtest_change(o, n, names[i]);
		const char *what;

		if ((ro && rn && !strcmp(ro, rn)) || (!ro && !rn))
			continue;
		if (!rn) {
			/* The cell stopped early: one line for all of them. */
			regressed += change > 0;
			not_run = not_run ? not_run : strdup("");
			not_run = realloc(not_run, strlen(not_run) +
					  strlen(names[i]) + 2);
			strcat(strcat(not_run, " "), names[i]);
			nr_not_run++;
			continue;
		}
		if (change < 0)
			what = "fixed";
		else if (change > 0)
			what = "REGRESSED";
		else if (!ro && (verdict_of(rn) == V_PASS ||
				 verdict_of(rn) == V_XFAIL))
			what = "new";
		else
			what = "changed";
		regressed += change > 0;
		if (change > 0 && regs)
			fprintf(regs, "%s\t%s\t%s\t%s\t%s\n", n->tree, n->cell,
				names[i], ro ? ro : "not run", rn);
		fprintf(out, "- %s: %s (%s -> %s)\n", what, names[i],
		        ro ? ro : "not run", rn);
		printed++;
	}
	/*
	 * A cell that stopped early is bisected on how far it got: through
	 * the build (@build), to the guest's last line (@boot).
	 */
	if (nr_not_run && regs && !status_is(n->status, ST_PASS))
		fprintf(regs, "%s\t%s\t%s\t%s\t%s\n", n->tree, n->cell,
			status_is(n->status, ST_BUILD_FAIL) ? "@build" : "@boot",
			o->status, n->status);
	if (nr_not_run) {
		fprintf(out, "- %s: %d subtest(s) no longer run (%s):%s\n",
		        !status_is(n->status, ST_PASS) ? "REGRESSED" : "changed",
		       nr_not_run, n->status, not_run);
		printed++;
		free(not_run);
	}
	trace_files(o, &files, &nfiles);
	trace_files(n, &files, &nfiles);
	/*
	 * The scenarios' traces first: their trees are fixed, so a change
	 * means something. The seed example's trace-*.txt follow real page
	 * faults and differ from boot to boot: said apart, as noise.
	 */
	for (pass = 0; pass < 2; pass++) {
		for (i = 0; i < nfiles; i++) {
			char po[4400], pn[4400], *so, *sn;
			int noise = !strncmp(files[i], "trace-", 6);

			if (noise != pass)
				continue;
			guest_file_path(po, sizeof(po), o->dir, files[i]);
			guest_file_path(pn, sizeof(pn), n->dir, files[i]);
			so = trace_shape(po);
			sn = trace_shape(pn);
			if (!so || !sn)
				fprintf(out, "- trace %s: only in the %s run\n", files[i],
				        so ? "earlier" : "later");
			else if (strcmp(so, sn) && noise)
				fprintf(out, "- run-to-run noise, not a regression: the seed example's %s (%d -> %d distinct call trees)\n",
				        files[i], count_lines(so), count_lines(sn));
			else if (strcmp(so, sn))
				fprintf(out, "- trace shape changed: %s (%d -> %d distinct call trees)\n",
				        files[i], count_lines(so), count_lines(sn));
			printed += !so || !sn || strcmp(so, sn);
			free(so);
			free(sn);
		}
	}
	for (i = 0; i < nfiles; i++)
		free(files[i]);
	free(files);
	if (!printed)
		fprintf(out, "- no change\n");
	return regressed;
}

int cmd_compare(int argc, char **argv)
{
	struct pairing p = { 0 };
	struct run a, b;
	const char **names;
	int i, nnames, regressed = 0, opt, shown = 0;
	const char *last_cell = NULL;
	FILE *out = stdout, *regs = NULL;

	while ((opt = getopt(argc, argv, "b:a:r")) != -1) {
		switch (opt) {
		case 'b': p.before_variant = optarg; break;
		case 'a': p.after_variant = optarg; break;
		case 'r': regs = stdout; break;
		default: argc = 0;
		}
	}
	if (argc - optind != 2 || !p.before_variant != !p.after_variant) {
		fprintf(stderr, "usage: nmx compare [-r] [-b BEFORE -a AFTER] BEFORE_RUN_DIR AFTER_RUN_DIR\n"
			"  BEFORE, AFTER: a variant (upstream) or a tree and variant (linux-6.12-upstream)\n"
			"  -r: only the regressed subtests, a line each: tree, cell, scenario, before, after\n");
		return EXIT_INFRA;
	}
	/* The list alone, for a bisection to read (bisect.sh). */
	if (regs) {
		out = fopen("/dev/null", "w");
		if (!out) {
			fprintf(stderr, "nmx: /dev/null: %m\n");
			return EXIT_INFRA;
		}
	}
	if (run_load(&a, argv[optind]))
		goto infra;
	if (run_load(&b, argv[optind + 1])) {
		run_free(&a);
		goto infra;
	}
	names = all_scenarios(&a, &b, &nnames);
	fprintf(out, "# notrace-matrix: run %s -> run %s\n", a.id, b.id);
	fprintf(out, "\nA trace shape is the set of distinct top-level call trees; the seed\n"
		"example's trace-*.txt follow real page faults and vary from boot to\n"
		"boot, the scenario-*.txt come from the test module's fixed trees.\n");
	if (p.before_variant)
		fprintf(out, "\nVariant %s before, %s after.\n",
			p.before_variant, p.after_variant);
	for (i = 0; i < b.nr; i++) {
		const struct cell_run *n = &b.c[i];
		const struct cell_run *o = same_cell(&a, n, p.before_variant);

		if (!in_side(n, p.after_variant))
			continue;
		if (!last_cell || strcmp(n->cell, last_cell))
			fprintf(out, "\n## %s\n", n->cell);
		last_cell = n->cell;
		shown++;
		if (!o)
			fprintf(out, "\n### %s, %s\n\n- only in the later run: %s\n",
				n->cell, n->variant, n->status);
		else
			regressed += compare_cell(o, n, names, nnames, out,
						  regs);
	}
	for (i = 0; i < a.nr; i++)
		if (in_side(&a.c[i], p.before_variant) &&
		    !same_cell(&b, &a.c[i], p.after_variant))
			fprintf(out, "\n- %s %s only in the earlier run (%s)\n",
				a.c[i].cell, a.c[i].variant, a.c[i].status);
	if (!shown)
		fprintf(out, "\nNo cell of the later run to compare.\n");
	fprintf(out, "\n%d regression(s)\n", regressed);
	free(names);
	run_free(&a);
	run_free(&b);
	if (out != stdout)
		fclose(out);
	return regressed ? EXIT_FAIL : EXIT_PASS;
infra:
	if (out != stdout)
		fclose(out);
	return EXIT_INFRA;
}

/* ---- run-figures ------------------------------------------------------ */

struct part_seconds {
	const char *part;
	json_t *values;		/* [[seconds, "TREE-VARIANT/CELL"], ...] */
	double total;
};

static void add_part(json_t *parts, const char *part, double secs,
		     const char *rel)
{
	json_t *v = json_object_get(parts, part);

	if (!v) {
		v = json_array();
		json_object_set_new(parts, part, v);
	}
	json_array_append_new(v, json_pack("[f,s]", secs, rel));
}

static int by_seconds(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int by_total(const void *a, const void *b)
{
	const struct part_seconds *x = a, *y = b;

	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->part, y->part);
}

/*
 * Where the boots' seconds go: the kernel's start to PID 1, each subtest
 * (the guest's clock from the result before it: the scenario and what
 * it set up; SKIPs summed apart), and what the guest's clock does not
 * see (QEMU, firmware, power-off, the judge), over the cells that passed
 * on a boot of their own. A line per part, the costliest first.
 */
static int scenario_figures(const struct run *run)
{
	json_t *parts = json_object(), *v, *sub;
	struct part_seconds *p;
	const char *key;
	size_t k, n = 0;
	int i;

	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];
		double boot = cell_seconds(c, "boot");
		double init = cell_seconds(c, "boot_to_init");
		double test = cell_seconds(c, "test");
		double skipped = 0;

		if (strcmp(c->status, "PASS") || *env_str(c, "boot_reused_from") ||
		    !json_object_get(json_object_get(c->r, "seconds"), "test"))
			continue;
		add_part(parts, "(kernel start to PID 1)", init, c->rel);
		json_array_foreach(json_object_get(c->r, "subtests"), k, sub) {
			json_t *secs = json_object_get(sub, "seconds");
			const char *name = json_string_value(json_object_get(sub, "name"));
			const char *res = json_string_value(json_object_get(sub, "result"));

			if (!name || !secs)
				continue;
			/* Where it ran is what its median says; a SKIP did not. */
			if (res && !strcmp(res, "SKIP"))
				skipped += json_number_value(secs);
			else
				add_part(parts, name, json_number_value(secs), c->rel);
		}
		add_part(parts, "(skipped subtests)", skipped, c->rel);
		add_part(parts, "(outside the guest's clock)", boot - init - test,
			 c->rel);
	}
	p = calloc(json_object_size(parts) + 1, sizeof(*p));
	if (!p)
		return EXIT_INFRA;
	json_object_foreach(parts, key, v) {
		p[n].part = key;
		p[n].values = v;
		json_array_foreach(v, k, sub)
			p[n].total += json_number_value(json_array_get(sub, 0));
		n++;
	}
	qsort(p, n, sizeof(*p), by_total);
	printf("# part\tcells\ttotal\tmedian\tmax\tmax_at\n");
	for (k = 0; k < n; k++) {
		size_t m = json_array_size(p[k].values), j, at = 0;
		double *secs = calloc(m, sizeof(*secs)), max = -1;

		if (!secs)
			return EXIT_INFRA;
		for (j = 0; j < m; j++) {
			secs[j] = json_number_value(json_array_get(
				json_array_get(p[k].values, j), 0));
			if (secs[j] > max) {
				max = secs[j];
				at = j;
			}
		}
		qsort(secs, m, sizeof(*secs), by_seconds);
		printf("%s\t%zu\t%.1f\t%.1f\t%.1f\t%s\n", p[k].part, m,
		       p[k].total,
		       m % 2 ? secs[m / 2] : (secs[m / 2 - 1] + secs[m / 2]) / 2,
		       max, json_string_value(json_array_get(
				json_array_get(p[k].values, at), 1)));
		free(secs);
	}
	free(p);
	json_decref(parts);
	return fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
}

/*
 * A run's figures for scripts/benchmark.sh, from its cells' result.json
 * (the records nmx result merged): without --stages, KEY<TAB>VALUE lines
 * kernel_cpu_seconds (the kernel builds' CPU seconds, summed),
 * boot_seconds (the boots' seconds, summed), slowest_boot (seconds<TAB>
 * TREE-VARIANT/CELL), boots (boots that ran, not judged from an earlier
 * console). --stages: "TREE-VARIANT<TAB>CELL<TAB>STAGE<TAB>SECONDS" for
 * each stage that did its work (a boot only if the cell passed: one cut
 * short by a failed selftest says nothing of how long a boot takes), and
 * the kernel's CPU seconds as stage kernel_cpu. --scenarios:
 * scenario_figures().
 */
int cmd_run_figures(int argc, char **argv)
{
	double cpu = 0, boots = 0, slowest = 0, secs;
	const char *dir, *slowest_at = "", *v;
	struct run run;
	json_t *st;
	size_t k;
	int i, stages = 0, scenarios = 0, booted = 0;

	if (argc == 3 && !strcmp(argv[1], "--stages"))
		stages = 1;
	else if (argc == 3 && !strcmp(argv[1], "--scenarios"))
		scenarios = 1;
	if (argc != 2 + stages + scenarios) {
		fprintf(stderr, "usage: nmx run-figures [--stages|--scenarios] RUN_DIR\n");
		return EXIT_INFRA;
	}
	dir = argv[argc - 1];
	if (run_load(&run, dir))
		return EXIT_INFRA;
	if (scenarios) {
		i = scenario_figures(&run);
		run_free(&run);
		return i;
	}
	for (i = 0; i < run.nr; i++) {
		const struct cell_run *c = &run.c[i];

		v = env_str(c, "kernel_cpu_seconds");
		cpu += atof(v);
		secs = cell_seconds(c, "boot");
		boots += secs;
		if (secs > slowest) {
			slowest = secs;
			slowest_at = c->rel;
		}
		if (json_object_get(json_object_get(c->r, "seconds"), "boot") &&
		    !*env_str(c, "boot_reused_from"))
			booted++;
		if (!stages)
			continue;
		json_array_foreach(json_object_get(c->r, "stages"), k, st) {
			const char *name = json_string_value(json_object_get(st, "name"));
			const char *status = json_string_value(json_object_get(st, "status"));

			if (!name || !status || strcmp(status, "ok") ||
			    (!strcmp(name, "boot") && strcmp(c->status, "PASS")))
				continue;
			printf("%s\t%s\t%s\t%.0f\n", c->tv, c->cell, name,
			       json_number_value(json_object_get(st, "seconds")));
		}
		if (*v)
			printf("%s\t%s\tkernel_cpu\t%.0f\n", c->tv, c->cell, atof(v));
	}
	if (!stages)
		printf("kernel_cpu_seconds\t%.0f\nboot_seconds\t%.1f\n"
		       "slowest_boot\t%.1f\t%s\nboots\t%d\n", cpu, boots, slowest,
		       slowest_at, booted);
	run_free(&run);
	return fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
}
