// SPDX-License-Identifier: GPL-2.0
/*
 * nmx's verdict commands: judge (the console log to a verdict), result
 * (a cell's stages and verdict to result.json) and summary (a run's).
 */
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "facts.h"
#include "matrix.h"
#include <jansson.h>

#include "console.h"
#include "report.h"
#include "rundir.h"
#include "status.h"

/* ---- judge ------------------------------------------------------------ */

/*
 * Write @j to @path through a temporary file renamed over it: a full disk
 * or a crash leaves the earlier file whole, never half of a new one.
 */
static int write_json(json_t *j, const char *path)
{
	char tmp[4200];
	FILE *f;
	int err;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "nmx: cannot write %s: %m\n", tmp);
		return -1;
	}
	err = json_dumpf(j, f, JSON_INDENT(2) | JSON_SORT_KEYS);
	err |= fflush(f) || ferror(f);
	if (fclose(f) || err || rename(tmp, path)) {
		fprintf(stderr, "nmx: cannot write %s: %m\n", path);
		unlink(tmp);
		return -1;
	}
	return 0;
}

int cmd_judge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, 0, 'l' },
		{ "out", required_argument, 0, 'o' },
		{ "timed-out", no_argument, 0, 'T' },
		{ "findings", required_argument, 0, 'f' },
		{ "cell", required_argument, 0, 'c' },
		{ "variant", required_argument, 0, 'v' },
		{ "described", required_argument, 0, 'F' },
		{ 0 }
	};
	const char *log = NULL, *out = NULL, *findings = NULL;
	const char *cell = NULL, *variant = NULL, *described = NULL;
	char findings_path[4096];
	struct cell_facts f = { 0 };
	struct xfails xfail = { 0 };
	struct verdict v;
	char path[4096];
	int opt, timed_out = 0, ret;
	json_t *j;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'l': log = optarg; break;
		case 'o': out = optarg; break;
		case 'T': timed_out = 1; break;
		case 'f': findings = optarg; break;
		case 'c': cell = optarg; break;
		case 'v': variant = optarg; break;
		case 'F': described = optarg; break;
		default: return EXIT_INFRA;
		}
	}
	if (!log || !out || optind != argc) {
		fprintf(stderr, "nmx judge: --log and --out are required\n");
		return EXIT_INFRA;
	}
	if (described && (findings || cell || variant)) {
		fprintf(stderr, "nmx judge: --described names the findings, the cell and its variant\n");
		return EXIT_INFRA;
	}
	/* The tree's FINDINGS.md, as the cell's variant expects them. */
	if (described) {
		struct stat st;

		if (facts_read(&f, described) ||
		    facts_series_dir(&f, findings_path, sizeof(findings_path) - 12))
			return EXIT_INFRA;
		strcat(findings_path, "/FINDINGS.md");
		if (!stat(findings_path, &st)) {
			findings = findings_path;
			cell = f.cell.name;
			variant = f.findings_variant;
		}
	}
	if (findings && (!cell || !variant)) {
		fprintf(stderr, "nmx judge: --findings needs --cell and --variant\n");
		return EXIT_INFRA;
	}
	if (findings && load_xfails(findings, cell, variant, &xfail)) {
		facts_free(&f);
		return EXIT_INFRA;
	}
	ret = judge_console(log, out, timed_out, &xfail, &v);
	xfails_free(&xfail);
	facts_free(&f);
	if (ret)
		return EXIT_INFRA;
	j = verdict_json(&v);
	snprintf(path, sizeof(path), "%s/verdict.json", out);
	if (status_is(v.status, ST_INFRA_FAIL))
		fprintf(stderr, "nmx judge: %s: %s\n", log, v.reason);
	ret = write_json(j, path) || status_is(v.status, ST_INFRA_FAIL) ?
	      EXIT_INFRA : status_is(v.status, ST_PASS) ? EXIT_PASS : EXIT_FAIL;
	printf("%s: %s\n", v.status, v.reason);
	json_decref(j);
	verdict_free(&v);
	return ret;
}

/* ---- result ----------------------------------------------------------- */

struct stage_walk {
	json_t *stages;
	json_t *seconds;
	const char *failed_status;
	char failed_stage[64];
	char failed_reason[1024];
};

static void add_stage(char **f, int n, void *data)
{
	struct stage_walk *w = data;
	json_t *st = json_object();
	double secs = n > 2 ? atof(f[2]) : 0;

	json_object_set_new(st, "name", json_string(f[0]));
	json_object_set_new(st, "status", json_string(n > 1 ? f[1] : "?"));
	json_object_set_new(st, "seconds", json_real(secs));
	if (n > 3 && *f[3])
		json_object_set_new(st, "detail", json_string(f[3]));
	json_array_append_new(w->stages, st);
	json_object_set_new(w->seconds, f[0], json_real(secs));
	if (n > 1 && strcmp(f[1], "ok") && !w->failed_status) {
		w->failed_status = json_string_value(
			json_object_get(st, "status"));
		snprintf(w->failed_stage, sizeof(w->failed_stage), "%s", f[0]);
		snprintf(w->failed_reason, sizeof(w->failed_reason), "%s",
			 n > 3 ? f[3] : "");
	}
}

static void add_meta(char **f, int n, void *data)
{
	json_object_set_new(data, f[0], json_string(n > 1 ? f[1] : ""));
}

static json_t *read_lines(const char *path)
{
	json_t *a = json_array();
	char line[8192];
	FILE *f = fopen(path, "r");

	if (!f)
		return a;
	while (fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		json_array_append_new(a, json_string(line));
	}
	fclose(f);
	return a;
}

/* How many of @pattern's matches there are (0 when none). */
static size_t count_glob(const char *pattern)
{
	size_t n = 0;
	glob_t g;

	if (!glob(pattern, 0, NULL, &g))
		n = g.gl_pathc;
	globfree(&g);
	return n;
}

/*
 * The line a run prints as a cell finishes: "[k/N] CELL (TREE-VARIANT):
 * STATUS, REASON; kernel S s, boot S s", k the cells of the run with a
 * result, N the cells of its plan (the run directory is @dir/../..).
 */
static void print_progress(const char *dir, json_t *r)
{
	char run[4096], pattern[4200];
	json_t *secs = json_object_get(r, "seconds");
	json_t *kernel = json_object_get(secs, "kernel");
	json_t *boot = json_object_get(secs, "boot");
	size_t k, n;
	char *slash;
	int c, planned;

	snprintf(run, sizeof(run), "%s", dir);
	for (c = 0; c < 2 && (slash = strrchr(run, '/')); c++)
		*slash = '\0';
	if (c < 2)
		snprintf(run, sizeof(run), "%s/../..", dir);
	snprintf(pattern, sizeof(pattern), "%s/*/*/" RUNDIR_RESULT, run);
	k = count_glob(pattern);
	/* A cell run alone (build.sh, boot.sh by hand) has no plan. */
	snprintf(pattern, sizeof(pattern), "%s/" RUNDIR_PLAN, run);
	planned = access(pattern, F_OK) ? 0 : rundir_each_planned(pattern, NULL, NULL);
	n = planned > 0 ? (size_t)planned : 0;
	printf("[%zu/%zu] %s (%s-%s): %s, %s", k, n > k ? n : k,
	       json_string_value(json_object_get(r, "cell")),
	       json_string_value(json_object_get(r, "tree")),
	       json_string_value(json_object_get(r, "variant")),
	       json_string_value(json_object_get(r, "status")),
	       json_string_value(json_object_get(r, "reason")));
	if (json_object_get(r, "failed_stage"))
		printf(" (stage %s)", json_string_value(
			json_object_get(r, "failed_stage")));
	if (kernel)
		printf("; kernel %.0f s", json_number_value(kernel));
	if (boot)
		printf("%s boot %.0f s", kernel ? "," : ";",
		       json_number_value(boot));
	putchar('\n');
}

int cmd_result(int argc, char **argv)
{
	const char *dir = NULL;

	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "--cell-dir"))
		dir = argv[2];
	if (argc == 4 && strcmp(argv[3], "--progress"))
		dir = NULL;
	if (!dir) {
		fprintf(stderr, "usage: nmx result --cell-dir DIR [--progress]\n");
		return EXIT_INFRA;
	}
	return cell_write_result(dir, argc == 4);
}

int cell_write_result(const char *dir, int progress)
{
	struct stage_walk w = { 0 };
	json_t *r, *meta, *verdict = NULL;
	const char *status, *reason;
	char path[4096];
	json_error_t jerr;
	int ret;

	w.stages = json_array();
	w.seconds = json_object();
	snprintf(path, sizeof(path), "%s/" RUNDIR_STAGES, dir);
	if (rundir_each_tsv(path, add_stage, &w))
		fprintf(stderr, "nmx: %s missing: no stage ran\n", path);
	meta = json_object();
	snprintf(path, sizeof(path), "%s/" RUNDIR_META, dir);
	rundir_each_tsv(path, add_meta, meta);
	snprintf(path, sizeof(path), "%s/verdict.json", dir);
	if (!w.failed_status) {
		verdict = json_load_file(path, 0, &jerr);
		if (!verdict)
			fprintf(stderr, "nmx: %s: %s\n", path, jerr.text);
	}

	r = json_object();
	if (w.failed_status) {
		status = w.failed_status;
		reason = w.failed_reason;
	} else if (verdict) {
		status = json_string_value(json_object_get(verdict, "status"));
		reason = json_string_value(json_object_get(verdict, "reason"));
	} else if (json_array_size(w.stages)) {
		status = status_name(ST_INFRA_FAIL);
		reason = "no verdict: the boot stage did not finish";
	} else {
		status = status_name(ST_INFRA_FAIL);
		reason = "no stage ran";
	}
	json_object_set_new(r, "status", json_string(status ? status : "?"));
	json_object_set_new(r, "reason", json_string(reason ? reason : ""));
	if (w.failed_status)
		json_object_set_new(r, "failed_stage",
				    json_string(w.failed_stage));
	json_object_set(r, "cell", json_object_get(meta, "cell"));
	json_object_set(r, "tree", json_object_get(meta, "tree"));
	json_object_set(r, "variant", json_object_get(meta, "variant"));
	json_object_set(r, "run_id", json_object_get(meta, "run_id"));
	/* The boot stage split by the guest's clock: to PID 1, then tests. */
	{
		json_t *up = json_object_get(verdict, "guest_uptime");

		if (up) {
			double init = json_number_value(json_object_get(up, "init"));
			double done = json_number_value(json_object_get(up, "done"));

			json_object_set_new(w.seconds, "boot_to_init",
					    json_real(init));
			json_object_set_new(w.seconds, "test",
					    json_real(done - init));
		}
	}
	json_object_set_new(r, "stages", w.stages);
	json_object_set_new(r, "seconds", w.seconds);
	json_object_set_new(r, "subtests",
			    verdict ? json_incref(json_object_get(verdict,
								  "subtests"))
				    : json_array());
	json_object_set_new(r, "verdict", verdict ? verdict : json_null());
	json_object_set_new(r, "environment", meta);
	snprintf(path, sizeof(path), "%s/reproduce.sh", dir);
	json_object_set_new(r, "reproduce", read_lines(path));
	snprintf(path, sizeof(path), "%s/result.json", dir);
	ret = write_json(r, path) ? EXIT_INFRA : EXIT_PASS;
	if (!ret && progress)
		print_progress(dir, r);
	json_decref(r);
	return ret;
}

/* ---- step-verdict ----------------------------------------------------- */

/*
 * One step of a bisection (bisect.sh, scripts/bisect-step.sh), in git
 * bisect run's terms: 0 the scenario passed (PASS, or XPASS), 1 it failed
 * (FAIL, or a failure FINDINGS.md expects: still a failure), 125 the step
 * says nothing of it -- no result, a tree that does not take the series or
 * does not build, a machine that failed, a boot that ended before the
 * scenario ran, a skip. A step that cannot be judged must never be taken
 * for a bad commit. S may also be @build or @boot: the cell as a whole
 * (cell_step()).
 */
enum { STEP_GOOD = 0, STEP_BAD = 1, STEP_SKIP = 125 };

/*
 * The cell as a whole, for a cell that stopped before its subtests ran
 * (nmx compare -r names these): @build, did the kernel and the guest
 * build; @boot, did the guest run to its last line. What comes before
 * the stage asked about (a series that does not apply, the machine) says
 * nothing of it.
 */
static int cell_step(const char *scenario, const char *status)
{
	if (!strcmp(scenario, "@build")) {
		if (status_is(status, ST_BUILD_FAIL))
			return STEP_BAD;
		return status_in_class(status, SC_BOOTED | SC_STOPPED) ?
		       STEP_GOOD : STEP_SKIP;
	}
	if (!strcmp(scenario, "@boot")) {
		if (status_in_class(status, SC_STOPPED))
			return STEP_BAD;
		return status_in_class(status, SC_BOOTED) ? STEP_GOOD : STEP_SKIP;
	}
	return STEP_SKIP;
}

int cmd_step_verdict(int argc, char **argv)
{
	const char *dir = NULL, *scenario = NULL, *status, *res = NULL;
	json_t *r, *tests;
	char path[4096];
	size_t k;
	int i, ret;

	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "--cell-dir"))
			dir = argv[i + 1];
		else if (!strcmp(argv[i], "--scenario"))
			scenario = argv[i + 1];
		else
			break;
	}
	if (i != argc || !dir || !scenario) {
		fprintf(stderr, "usage: nmx step-verdict --cell-dir DIR --scenario S\n");
		return STEP_SKIP;
	}
	snprintf(path, sizeof(path), "%s/result.json", dir);
	r = json_load_file(path, 0, NULL);
	if (!r) {
		printf("skip: no result (%s)\n", path);
		return STEP_SKIP;
	}
	status = json_string_value(json_object_get(r, "status")) ?: "?";
	if (*scenario == '@') {
		ret = cell_step(scenario, status);
		printf("%s: %s (cell %s: %s)\n", ret == STEP_GOOD ? "good" :
		       ret == STEP_BAD ? "bad" : "skip", scenario, status,
		       json_string_value(json_object_get(r, "reason")) ?: "");
		json_decref(r);
		return ret;
	}
	tests = json_object_get(r, "subtests");
	for (k = 0; k < json_array_size(tests); k++) {
		json_t *t = json_array_get(tests, k);

		if (!strcmp(json_string_value(json_object_get(t, "name")) ?: "",
			    scenario))
			res = json_string_value(json_object_get(t, "result"));
	}
	if (res && (!strcmp(res, "PASS") || !strcmp(res, "XPASS"))) {
		printf("good: %s %s (cell %s)\n", scenario, res, status);
		ret = STEP_GOOD;
	} else if (res && (!strcmp(res, "FAIL") || !strcmp(res, "XFAIL"))) {
		printf("bad: %s %s (cell %s)\n", scenario, res, status);
		ret = STEP_BAD;
	} else {
		printf("skip: %s %s (cell %s: %s)\n", scenario,
		       res ? res : "not run", status,
		       json_string_value(json_object_get(r, "reason")) ?: "");
		ret = STEP_SKIP;
	}
	json_decref(r);
	return ret;
}

/* ---- summary ---------------------------------------------------------- */

/*
 * The cells of a run directory: those with a result, those whose stages
 * were recorded, and those its plan.tsv names, each once ("TV/CELL").
 */
static int add_planned(const char *tree, const char *variant,
		       const char *cell, void *data)
{
	struct strlist *cells = data;
	char rel[512];

	snprintf(rel, sizeof(rel), "%s-%s/%s", tree, variant, cell);
	if (!strlist_has(cells, rel))
		strlist_add(cells, rel);
	return 0;
}

static void run_cells(const char *run_dir, struct strlist *cells)
{
	static const char *const marks[] = { RUNDIR_RESULT, RUNDIR_STAGES };
	char pattern[4096];
	size_t i, k;
	glob_t g;

	for (k = 0; k < sizeof(marks) / sizeof(marks[0]); k++) {
		snprintf(pattern, sizeof(pattern), "%s/*/*/%s", run_dir, marks[k]);
		if (glob(pattern, 0, NULL, &g))
			continue;
		for (i = 0; i < g.gl_pathc; i++) {
			char *rel = g.gl_pathv[i] + strlen(run_dir) + 1;

			*strrchr(rel, '/') = '\0';
			if (!strlist_has(cells, rel))
				strlist_add(cells, rel);
		}
		globfree(&g);
	}
	snprintf(pattern, sizeof(pattern), "%s/" RUNDIR_PLAN, run_dir);
	if (!access(pattern, F_OK))
		rundir_each_planned(pattern, add_planned, cells);
}

static int cmp_cells(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * One cell of summary.json (docs/results.md, "summary.json"): what
 * summary.txt's line says, as fields, and where the cell's result is.
 */
static json_t *summary_cell(const char *rel, json_t *r, const char *status,
			    size_t ok, size_t n)
{
	json_t *c = json_object(), *secs = json_object_get(r, "seconds");
	json_t *xfail = json_array();
	size_t k;
	char *slash = strchr(rel, '/');
	char tv[256];

	snprintf(tv, sizeof(tv), "%.*s", (int)(slash - rel), rel);
	json_object_set_new(c, "tree_variant", json_string(tv));
	json_object_set(c, "tree", json_object_get(r, "tree"));
	json_object_set(c, "variant", json_object_get(r, "variant"));
	json_object_set_new(c, "cell", json_string(slash + 1));
	json_object_set_new(c, "status", json_string(status));
	if (r)
		json_object_set(c, "reason", json_object_get(r, "reason"));
	else
		json_object_set_new(c, "reason", json_string(
			"no result.json: the cell was not finished"));
	json_object_set(c, "failed_stage", json_object_get(r, "failed_stage"));
	json_object_set_new(c, "tests", json_integer(n));
	json_object_set_new(c, "tests_not_failed", json_integer(ok));
	for (k = 0; k < json_array_size(json_object_get(r, "subtests")); k++) {
		json_t *t = json_array_get(json_object_get(r, "subtests"), k);
		const char *res = json_string_value(json_object_get(t, "result"));

		if (res && !strcmp(res, "XFAIL"))
			json_array_append(xfail, json_object_get(t, "name"));
	}
	json_object_set_new(c, "xfail", xfail);
	json_object_set(c, "kernel_seconds", json_object_get(secs, "kernel"));
	json_object_set(c, "boot_seconds", json_object_get(secs, "boot"));
	if (r)
		json_object_set_new(c, "result", json_sprintf("%s/result.json",
							      rel));
	else
		json_object_set_new(c, "result", json_null());
	/* json_object_set() of a missing field leaves a NULL value out;
	 * the schema wants every key, so absent ones are null. */
	{
		static const char *const keys[] = { "tree", "variant", "reason",
			"failed_stage", "kernel_seconds", "boot_seconds" };

		for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
			if (!json_object_get(c, keys[k]))
				json_object_set_new(c, keys[k], json_null());
	}
	return c;
}

int cmd_summary(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: nmx summary RUN_DIR\n");
		return EXIT_INFRA;
	}
	return run_summary(argv[1]);
}

int run_summary(const char *run_dir)
{
	char path[4096], tmp[4200];
	int err, ret;
	int infra = 0, failed = 0, passed = 0, skipped = 0;
	struct strlist cells = { 0 };
	json_t *sum, *jcells, *counts;
	const char *base;
	size_t i;
	FILE *out;

	run_cells(run_dir, &cells);
	if (!cells.n) {
		fprintf(stderr, "nmx: no cell (*/*/result.json, */*/stages.tsv, plan.tsv) under %s\n",
			run_dir);
		return EXIT_INFRA;
	}
	qsort(cells.v, cells.n, sizeof(*cells.v), cmp_cells);
	snprintf(path, sizeof(path), "%s/summary.txt", run_dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr, "nmx: cannot write %s: %m\n", tmp);
		strlist_free(&cells);
		return EXIT_INFRA;
	}
	fprintf(out, "%-20s %-14s %-11s %5s %6s %5s  %s\n", "tree-variant",
		"cell", "status", "tests", "kernel", "boot", "reason");
	jcells = json_array();
	for (i = 0; i < cells.n; i++) {
		json_error_t jerr;
		json_t *r, *secs;
		const char *status;
		char tv[64], tests[16], result[4400];
		size_t n, ok = 0, k;

		snprintf(result, sizeof(result), "%s/%s/result.json", run_dir,
			 cells.v[i]);
		if (access(result, F_OK)) {
			/* Planned or begun, never judged: the run did not
			 * finish it, which says nothing of the kernel. */
			char *slash = strchr(cells.v[i], '/');

			fprintf(out, "%-20.*s %-14s %-11s %5s %6s %5s  %s\n",
				(int)(slash - cells.v[i]), cells.v[i], slash + 1,
				status_name(ST_INFRA_FAIL), "-", "-", "-",
				"no result.json: the cell was not finished");
			json_array_append_new(jcells, summary_cell(cells.v[i],
					NULL, status_name(ST_INFRA_FAIL), 0, 0));
			infra++;
			continue;
		}
		r = json_load_file(result, 0, &jerr);
		if (!r) {
			fprintf(out, "%s: unreadable: %s\n", result, jerr.text);
			json_array_append_new(jcells, summary_cell(cells.v[i],
					NULL, status_name(ST_INFRA_FAIL), 0, 0));
			infra++;
			continue;
		}
		status = json_string_value(json_object_get(r, "status"));
		n = json_array_size(json_object_get(r, "subtests"));
		for (k = 0; k < n; k++) {
			const char *res = json_string_value(json_object_get(
				json_array_get(json_object_get(r, "subtests"),
					       k), "result"));

			if (res && strcmp(res, "FAIL"))
				ok++;
		}
		snprintf(tv, sizeof(tv), "%s-%s",
			 json_string_value(json_object_get(r, "tree")) ?: "?",
			 json_string_value(json_object_get(r, "variant")) ?: "?");
		snprintf(tests, sizeof(tests), "%zu/%zu", ok, n);
		secs = json_object_get(r, "seconds");
		fprintf(out, "%-20s %-14s %-11s %5s %6.0f %5.1f  %s\n", tv,
			json_string_value(json_object_get(r, "cell")) ?: "?",
			status ?: "?", tests,
			json_number_value(json_object_get(secs, "kernel")),
			json_number_value(json_object_get(secs, "boot")),
			json_string_value(json_object_get(r, "reason")) ?: "");
		json_array_append_new(jcells, summary_cell(cells.v[i], r,
							   status ?: status_name(ST_INFRA_FAIL),
							   ok, n));
		if (!status || status_is(status, ST_INFRA_FAIL))
			infra++;
		else if (status_is(status, ST_SKIP))
			skipped++;	/* not a pass: it proved nothing */
		else if (!status_is(status, ST_PASS))
			failed++;
		else
			passed++;
		json_decref(r);
	}
	fprintf(out, "\n%d passed, %d failed, %d infrastructure", passed,
		failed, infra);
	if (skipped)
		fprintf(out, ", %d skipped (all subtests skipped: proved nothing)",
			skipped);
	fputc('\n', out);
	strlist_free(&cells);
	err = fflush(out) | ferror(out);
	err |= fclose(out);
	if (err || rename(tmp, path)) {
		fprintf(stderr, "nmx: cannot write %s: %m\n", path);
		unlink(tmp);
		json_decref(jcells);
		return EXIT_INFRA;
	}
	ret = infra ? EXIT_INFRA : failed || skipped ? EXIT_FAIL : EXIT_PASS;
	base = strrchr(run_dir, '/');
	base = base && base[1] ? base + 1 : run_dir;
	counts = json_pack("{s:i, s:i, s:i, s:i}", "passed", passed,
			   "failed", failed, "infrastructure", infra,
			   "skipped", skipped);
	sum = json_pack("{s:s, s:s, s:i, s:o, s:o}",
			"schema", "notrace-matrix-summary/1", "run_id", base,
			"exit", ret, "counts", counts, "cells", jcells);
	snprintf(path, sizeof(path), "%s/summary.json", run_dir);
	if (!sum || write_json(sum, path))
		ret = EXIT_INFRA;
	json_decref(sum);
	return ret;
}
