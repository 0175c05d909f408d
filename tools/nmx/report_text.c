// SPDX-License-Identifier: GPL-2.0
/*
 * The plain reports: report.md for a mailing-list reply, junit.xml for
 * Jenkins and GitLab, kcidb.json for KernelCI's database (I/O v5.3).
 */
#include <stdlib.h>
#include <string.h>

#include "console.h"
#include "report.h"
#include "status.h"

#define KCIDB_ORIGIN "notrace_matrix"
#define KCIDB_EXCERPT_MAX 16000

static int cell_failed_before_tests(const struct cell_run *c)
{
	return !status_is(c->status, ST_PASS) && !status_is(c->status, ST_TEST_FAIL);
}

static void md_text(FILE *f, const char *s)
{
	for (; s && *s; s++)
		fputs(*s == '|' ? "\\|" : *s == '\n' ? " " : (char[2]){ *s, 0 },
		      f);
}

static int count_results(const struct cell_run *c, enum grade want)
{
	json_t *st;
	size_t i;
	int n = 0;

	json_array_foreach(json_object_get(c->r, "subtests"), i, st)
		n += verdict_of(json_string_value(json_object_get(st, "result")))
		     == want;
	return n;
}

/* One line per tree-variant and per QEMU: what a reader needs to rerun it. */
static void md_environment(FILE *f, const struct run *run)
{
	int i, k;

	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];
		const char *series = env_str(c, "series");
		int n = *series ? 1 : 0;

		if (!first_of_tv(run, i))
			continue;
		for (; *series; series++)
			n += *series == ' ';
		fprintf(f, "- `%s`: %s, %d patch(es) of the series\n", c->tv,
			*env_str(c, "tree_package") ? env_str(c, "tree_package") :
			"tree unknown", n);
	}
	for (i = 0; i < run->nr; i++) {
		const char *q = env_str(&run->c[i], "qemu_version");

		for (k = 0; k < i; k++)
			if (!strcmp(env_str(&run->c[k], "qemu_version"), q))
				break;
		if (k == i && *q)
			fprintf(f, "- %s, accelerator %s\n", q,
				env_str(&run->c[i], "accelerator"));
	}
	fputc('\n', f);
}

/*
 * The cells judged from the console of an earlier boot of the same
 * kernel, initramfs and machine (boot.sh --reuse-boots): said, so that
 * nobody takes them for boots of this run.
 */
static void md_reused(FILE *f, const struct run *run)
{
	const char *from;
	int i = run_next_reused(run, 0, &from);

	if (i < 0)
		return;
	fputs("\nNot booted again: judged from the console of an earlier boot of the same kernel, initramfs and machine (`--reuse-boots`; `--patches` does so for a cell its patches leave byte for byte unchanged):\n\n",
	      f);
	for (; i >= 0; i = run_next_reused(run, i + 1, &from))
		fprintf(f, "- %s %s: the boot of %s\n", run->c[i].cell,
			variant_label(run, &run->c[i]), from);
}

int report_md(const struct run *run, const struct run *base, FILE *f)
{
	int i, s, pass = 0, shown = 0;

	for (i = 0; i < run->nr; i++)
		pass += status_is(run->c[i].status, ST_PASS);
	fprintf(f, "## notrace-matrix run %s: %d of %d cell-variants passed\n\n",
		run->id, pass, run->nr);
	if (base)
		fprintf(f, "Compared with run %s.\n\n", base->id);
	if (run_has_file(run, "patches/series"))
		fprintf(f, "The patches' effect per architecture: patches-compare.md%s.\n\n",
			run_has_file(run, "bisect.md") ?
			"; which patch broke each regression: bisect.md" : "");
	md_environment(f, run);
	fputs("| cell | variant | status | pass | fail | xfail | skip | reason |\n", f);
	fputs("|---|---|---|---|---|---|---|---|\n", f);
	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];

		fprintf(f, "| %s | %s | %s | %d | %d | %d | %d | ", c->cell,
			variant_label(run, c), c->status, count_results(c, V_PASS),
			count_results(c, V_FAIL), count_results(c, V_XFAIL),
			count_results(c, V_SKIP));
		md_text(f, c->reason);
		fputs(" |\n", f);
	}
	md_reused(f, run);

	fputs("\n### Scenarios that are not a pass everywhere\n\n", f);
	for (s = 0; s < run->nscen; s++) {
		int worst = V_PASS, regressed = 0;

		for (i = 0; i < run->nr; i++) {
			enum grade v = grade_in(&run->c[i], run->scen[s]);
			const struct cell_run *b = run_find(base, run->c[i].tv,
							    run->c[i].cell);

			if ((int)v < worst)
				worst = v;
			if (b && subtest_change(b, &run->c[i], run->scen[s]) > 0)
				regressed = 1;
		}
		if (worst >= V_PASS)
			continue;
		if (!shown++) {
			fputs("| scenario |", f);
			for (i = 0; i < run->nr; i++)
				fprintf(f, " %s %s |", run->c[i].cell,
					variant_label(run, &run->c[i]));
			fputs("\n|---|", f);
			for (i = 0; i < run->nr; i++)
				fputs("---|", f);
			fputc('\n', f);
		}
		fprintf(f, "| %s%s |", run->scen[s],
			regressed ? " (regression)" : "");
		for (i = 0; i < run->nr; i++) {
			const char *r = cell_result(&run->c[i], run->scen[s]);

			fprintf(f, " %s |", r ? r :
				grade_in(&run->c[i], run->scen[s]) == V_NA ?
				"n/a" : "-");
		}
		fputc('\n', f);
	}
	if (!shown)
		fprintf(f, "All %d scenarios pass on every cell-variant.\n",
			run->nscen);
	else
		fprintf(f, "\nThe other %d scenario(s) pass on every cell-variant; `-` means not run (see the cell's status), n/a not in that cell's plan.\n",
			run->nscen - shown);

	fputs("\n### Failures\n\n", f);
	shown = 0;
	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];

		if (cell_failed_before_tests(c)) {
			char *text = failure_excerpt(c, NULL, NULL);

			fprintf(f, "- **%s %s**: %s: ", c->cell, variant_label(run, c),
				c->status);
			md_text(f, c->reason);
			fprintf(f, " (`%s/`)\n\n```\n%s\n```\n\n", c->rel, text);
			free(text);
			shown++;
		}
		for (s = 0; s < run->nscen; s++) {
			const char *r = cell_result(c, run->scen[s]);
			char *text;
			int line;

			if (verdict_of(r) != V_FAIL)
				continue;
			text = failure_excerpt(c, run->scen[s], &line);
			fprintf(f, "- **%s %s** `%s`: %s (`%s/boot.log` line %d)\n\n```\n%s\n```\n\n",
				c->cell, variant_label(run, c), run->scen[s], r, c->rel,
				line, text);
			free(text);
			shown++;
		}
	}
	if (!shown)
		fputs("None.\n", f);

	fputs("\n### Expected failures (named in FINDINGS.md)\n\n", f);
	shown = 0;
	for (s = 0; s < run->nscen; s++) {
		const char *why = NULL;
		int first = 1, same = 1;

		/* The finding said once when every cell's is the same. */
		for (i = 0; i < run->nr; i++) {
			const char *w = cell_finding(&run->c[i], run->scen[s]);

			if (grade_in(&run->c[i], run->scen[s]) != V_XFAIL)
				continue;
			if (first)
				why = w;
			else if (!w != !why || (w && strcmp(w, why)))
				same = 0;
			first = 0;
		}
		first = 1;
		for (i = 0; i < run->nr; i++) {
			const char *w = cell_finding(&run->c[i], run->scen[s]);

			if (grade_in(&run->c[i], run->scen[s]) != V_XFAIL)
				continue;
			if (first)
				fprintf(f, "- `%s`%s%s%s on", run->scen[s],
					same && why ? " (" : "",
					same && why ? why : "",
					same && why ? ")" : "");
			fprintf(f, "%s %s %s", first ? "" : ",",
				run->c[i].cell, variant_label(run, &run->c[i]));
			if (!same && w)
				fprintf(f, " (%s)", w);
			first = 0;
			shown++;
		}
		if (!first)
			fputc('\n', f);
	}
	if (!shown)
		fputs("None.\n", f);
	return 0;
}

/* ---- JUnit XML -------------------------------------------------------- */

/* "<testcase ..." up to its attributes' end; the caller closes it. */
static void junit_open(FILE *f, const struct cell_run *c, const char *name,
		       double secs)
{
	fputs("    <testcase classname=\"", f);
	put_xml(f, c->tv);
	fputc('.', f);
	put_xml(f, c->cell);
	fputs("\" name=\"", f);
	put_xml(f, name);
	fprintf(f, "\" time=\"%.3f\"", secs);
}

static void junit_case(FILE *f, const struct cell_run *c, const char *name,
		       const char *result, double secs)
{
	char *text;
	enum grade v = verdict_of(result);

	junit_open(f, c, name, secs);
	if (v == V_PASS) {
		fputs("/>\n", f);
		return;
	}
	fputs(">\n", f);
	switch (v) {
	case V_SKIP: {
		const char *d = json_string_value(json_object_get(
			cell_subtest(c, name), "directive"));

		fputs("      <skipped message=\"", f);
		put_xml(f, d ? d : "SKIP");
		fputs("\"/>\n", f);
		break;
	}
	case V_XFAIL:
		fputs("      <skipped message=\"expected failure named in FINDINGS.md", f);
		if (cell_finding(c, name)) {
			fputs(": ", f);
			put_xml(f, cell_finding(c, name));
		}
		fputs("\"/>\n", f);
		break;
	case V_MISSING:
		fputs("      <skipped message=\"not run: cell ", f);
		put_xml(f, c->status);
		fputs("\"/>\n", f);
		break;
	default:
		text = failure_excerpt(c, name, NULL);
		fputs("      <failure type=\"", f);
		put_xml(f, result);
		fputs("\" message=\"", f);
		put_xml(f, name);
		fputs(": ", f);
		put_xml(f, result);
		fputs("\">", f);
		put_xml(f, text);
		fputs("</failure>\n", f);
		free(text);
	}
	fputs("    </testcase>\n", f);
}

/* The cell's own stage as a testcase: build or boot, with the log tail. */
static void junit_stage(FILE *f, const struct cell_run *c, const char *name,
			int failed, int error, double secs)
{
	char *text;

	junit_open(f, c, name, secs);
	if (!failed) {
		fputs("/>\n", f);
		return;
	}
	text = failure_excerpt(c, NULL, NULL);
	fprintf(f, ">\n      <%s type=\"", error ? "error" : "failure");
	put_xml(f, c->status);
	fputs("\" message=\"", f);
	put_xml(f, c->reason);
	fputs("\">", f);
	put_xml(f, text);
	fprintf(f, "</%s>\n    </testcase>\n", error ? "error" : "failure");
	free(text);
}

static int is_build_status(const char *s)
{
	return status_in_class(s, SC_NOT_BUILT);
}

static int is_error_status(const char *s)
{
	return status_in_class(s, SC_ERROR);
}

struct junit_counts {
	int tests, failures, errors, skipped;
};

/* Did the cell get past its build stages? */
static int cell_built(const struct cell_run *c)
{
	const char *stage = json_string_value(json_object_get(c->r,
							      "failed_stage"));

	if (is_build_status(c->status))
		return 0;
	return !(is_error_status(c->status) && !cell_booted(c) && stage &&
		 strcmp(stage, "boot"));
}

/* The boot testcase fails (or errs) when the cell built but did not boot. */
static int boot_failed(const struct cell_run *c)
{
	return cell_built(c) && status_in_class(c->status, SC_STOPPED | SC_ERROR);
}

static struct junit_counts suite_counts(const struct run *run,
					const struct cell_run *c)
{
	struct junit_counts n = { .tests = 2 };
	int err = is_error_status(c->status), s;

	if (!cell_built(c))
		*(err ? &n.errors : &n.failures) += 1;
	if (boot_failed(c))
		*(err ? &n.errors : &n.failures) += 1;
	for (s = 0; s < run->nscen; s++) {
		enum grade v = grade_in(c, run->scen[s]);

		if (v == V_NA)
			continue;
		n.tests++;
		n.failures += v == V_FAIL;
		n.skipped += v != V_FAIL && v != V_PASS;
	}
	return n;
}

static void junit_property(FILE *f, const char *name, const char *value)
{
	fprintf(f, "      <property name=\"%s\" value=\"", name);
	put_xml(f, value);
	fputs("\"/>\n", f);
}

int report_junit(const struct run *run, FILE *f)
{
	struct junit_counts all = { 0 };
	char start[40];
	double time = 0;
	int i, s;

	for (i = 0; i < run->nr; i++) {
		struct junit_counts n = suite_counts(run, &run->c[i]);

		all.tests += n.tests;
		all.failures += n.failures;
		all.errors += n.errors;
		all.skipped += n.skipped;
		time += cell_seconds(&run->c[i], "boot");
	}
	run_start_time(run->id, start, sizeof(start));
	fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
	fprintf(f, "<testsuites name=\"notrace-matrix %s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
		run->id, all.tests, all.failures, all.errors, all.skipped, time);
	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];
		struct junit_counts n = suite_counts(run, c);
		int err = is_error_status(c->status);

		fputs("  <testsuite name=\"", f);
		put_xml(f, c->rel);
		fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\"",
			n.tests, n.failures, n.errors, n.skipped,
			cell_seconds(c, "boot"));
		if (*start)
			fprintf(f, " timestamp=\"%.19s\"", start);
		fputs(">\n    <properties>\n", f);
		junit_property(f, "status", c->status);
		junit_property(f, "reason", c->reason);
		junit_property(f, "architecture", env_str(c, "kbuild_arch"));
		junit_property(f, "description", env_str(c, "description"));
		fputs("    </properties>\n", f);
		junit_stage(f, c, "build", !cell_built(c), err,
			    cell_seconds(c, "configure") +
			    cell_seconds(c, "kernel") + cell_seconds(c, "guest"));
		junit_stage(f, c, "boot", boot_failed(c), err,
			    cell_seconds(c, "boot"));
		for (s = 0; s < run->nscen; s++)
			if (grade_in(c, run->scen[s]) != V_NA)
				junit_case(f, c, run->scen[s],
					   cell_result(c, run->scen[s]),
					   json_number_value(json_object_get(
						   cell_subtest(c, run->scen[s]),
						   "seconds")));
		fputs("  </testsuite>\n", f);
	}
	fputs("</testsuites>\n", f);
	return 0;
}

/* ---- KCIDB ------------------------------------------------------------ */

static json_t *excerpt_json(char *text)
{
	size_t len = strlen(text);
	json_t *j;

	/* The schema's limit is 16 KiB; keep the end, where the error is. */
	if (len > KCIDB_EXCERPT_MAX) {
		char *p = text + len - KCIDB_EXCERPT_MAX;

		while ((*p & 0xc0) == 0x80)
			p++;
		memmove(text, p, strlen(p) + 1);
	}
	console_clean(text, strlen(text), 0);
	j = json_string(text);
	free(text);
	return j;
}

static void set_str(json_t *o, const char *key, const char *value)
{
	if (value && *value)
		json_object_set_new(o, key, json_string(value));
}

/* The kernel build command from the cell's reproduce list. */
static const char *build_command(const struct cell_run *c)
{
	json_t *line;
	size_t i;

	json_array_foreach(json_object_get(c->r, "reproduce"), i, line) {
		const char *s = json_string_value(line);

		if (s && strstr(s, "make -C ") && strstr(s, " -j")) {
			static char cmd[4096];
			size_t n;

			snprintf(cmd, sizeof(cmd), "%s", s);
			n = strlen(cmd);
			while (n && cmd[n - 1] == ' ')
				cmd[--n] = '\0';
			return cmd;
		}
	}
	return NULL;
}

/* A planned cell no shard reported (nmx merge): nothing about it is known. */
static int cell_never_reported(const struct cell_run *c)
{
	const char *stage = json_string_value(json_object_get(c->r,
							      "failed_stage"));

	return stage && !strcmp(stage, "shard");
}

static const char *kcidb_build_status(const struct cell_run *c)
{
	if (cell_never_reported(c))
		return "MISS";
	if (is_build_status(c->status))
		return "FAIL";
	return cell_built(c) ? "PASS" : "ERROR";
}

static const char *kcidb_test_status(const struct cell_run *c,
				     const char *result)
{
	if (result) {
		if (!strcmp(result, "PASS"))
			return "PASS";
		if (!strcmp(result, "SKIP"))
			return "SKIP";
		return "FAIL";	/* FAIL, XPASS, and XFAIL (see misc) */
	}
	if (status_is(c->status, ST_TIMEOUT) || cell_never_reported(c))
		return "MISS";
	if (is_error_status(c->status))
		return "ERROR";
	return "MISS";
}

/* A --tree DIR git checkout's commit and repository (KCIDB wants https). */
static void kcidb_git(json_t *co, const struct cell_run *c)
{
	const char *hash = env_str(c, "git_commit_hash");
	const char *url = env_str(c, "git_repository_url");

	if (strlen(hash) == 40 && strspn(hash, "0123456789abcdef") == 40)
		json_object_set_new(co, "git_commit_hash", json_string(hash));
	if (!strncmp(url, "https://", 8))
		json_object_set_new(co, "git_repository_url", json_string(url));
}

/*
 * What was applied on the base: the series and any --patches, copied by
 * build.sh into the cell's patchset/ (linked relative to the run), and
 * KCIDB's hash of them. A result from before build.sh recorded them has
 * neither.
 */
static void kcidb_patchset(json_t *co, const struct cell_run *c)
{
	json_t *hash = json_object_get(c->env, "patchset_hash");
	json_t *files;
	char *names, *n, *sp = NULL, url[1024];

	if (!json_is_string(hash))
		return;
	json_object_set(co, "patchset_hash", hash);
	files = json_array();
	names = strdup(env_str(c, "patchset_files"));
	for (n = strtok_r(names, " ", &sp); n; n = strtok_r(NULL, " ", &sp)) {
		snprintf(url, sizeof(url), "%s/patchset/%s", c->rel, n);
		json_array_append_new(files, json_pack("{s:s, s:s}", "name", n,
						       "url", url));
	}
	free(names);
	json_object_set_new(co, "patchset_files", files);
}

int report_kcidb(const struct run *run, FILE *f)
{
	json_t *doc = json_object(), *checkouts = json_array();
	json_t *builds = json_array(), *tests = json_array(), *version;
	char start[40], id[1024];
	int i, s;

	run_start_time(run->id, start, sizeof(start));
	version = json_pack("{s:i,s:i}", "major", 5, "minor", 3);
	json_object_set_new(doc, "version", version);

	/* One checkout per tree + series, i.e. per tree-variant. */
	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];
		json_t *co, *misc, *patches;
		char *names, *n, *sp = NULL;

		if (!first_of_tv(run, i))
			continue;
		co = json_object();
		snprintf(id, sizeof(id), KCIDB_ORIGIN ":%s-%s", run->id, c->tv);
		json_object_set_new(co, "id", json_string(id));
		json_object_set_new(co, "origin", json_string(KCIDB_ORIGIN));
		set_str(co, "tree_name", c->tree);
		set_str(co, "git_commit_name", env_str(c, "tree_package"));
		kcidb_git(co, c);
		kcidb_patchset(co, c);
		set_str(co, "start_time", start);
		misc = json_object();
		set_str(misc, "variant", c->variant);
		set_str(misc, "tree_version", env_str(c, "tree_version"));
		if (*env_str(c, "git_commit_hash"))
			set_str(misc, "source", "a git checkout (--tree DIR)");
		else if (!strncmp(env_str(c, "tree_package"), "local checkout", 14))
			set_str(misc, "source", "a directory that is no git checkout (--tree DIR)");
		else
			set_str(misc, "source", "Debian linux-source tarball (no git history)");
		set_str(misc, "uncommitted_changes",
			env_str(c, "git_uncommitted_changes"));
		patches = json_array();
		names = strdup(env_str(c, "series"));
		for (n = strtok_r(names, " ", &sp); n;
		     n = strtok_r(NULL, " ", &sp))
			json_array_append_new(patches, json_string(n));
		free(names);
		json_object_set_new(misc, "series", patches);
		json_object_set_new(co, "misc", misc);
		json_object_set_new(co, "valid",
				    json_boolean(!status_is(c->status, ST_PATCH_FAIL)));
		json_array_append_new(checkouts, co);
	}

	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];
		json_t *b = json_object(), *misc = json_object(), *env;
		char build_id[512], config[512], cmt[256];
		const char *bstatus = kcidb_build_status(c);

		snprintf(build_id, sizeof(build_id), KCIDB_ORIGIN ":%s-%s-%s",
			 run->id, c->tv, c->cell);
		snprintf(id, sizeof(id), KCIDB_ORIGIN ":%s-%s", run->id, c->tv);
		json_object_set_new(b, "id", json_string(build_id));
		json_object_set_new(b, "origin", json_string(KCIDB_ORIGIN));
		json_object_set_new(b, "checkout_id", json_string(id));
		set_str(b, "architecture", env_str(c, "kbuild_arch"));
		set_str(b, "compiler", env_str(c, "compiler"));
		snprintf(config, sizeof(config), "tinyconfig+notrace-matrix+%s: %s",
			 c->cell, env_str(c, "description"));
		json_object_set_new(b, "config_name", json_string(config));
		set_str(b, "command", build_command(c));
		set_str(b, "start_time", start);
		json_object_set_new(b, "duration",
			json_real(cell_seconds(c, "configure") +
				  cell_seconds(c, "kernel") +
				  cell_seconds(c, "guest")));
		json_object_set_new(b, "status", json_string(bstatus));
		if (strcmp(bstatus, "PASS"))
			json_object_set_new(b, "log_excerpt", excerpt_json(
				failure_excerpt(c, NULL, NULL)));
		set_str(misc, "cell", c->cell);
		set_str(misc, "variant", c->variant);
		set_str(misc, "cell_status", c->status);
		set_str(misc, "reason", c->reason);
		set_str(misc, "results_dir", c->rel);
		json_object_set_new(b, "misc", misc);
		json_array_append_new(builds, b);
		if (strcmp(bstatus, "PASS"))
			continue;	/* nothing booted */

		snprintf(cmt, sizeof(cmt), "%s, %s", env_str(c, "qemu_version"),
			 env_str(c, "accelerator"));
		env = json_pack("{s:s}", "comment", cmt);

		/* The boot itself, then one test per scenario. */
		{
			json_t *t = json_object();
			const char *st = status_is(c->status, ST_TIMEOUT) ? "MISS" :
					 is_error_status(c->status) ? "ERROR" :
					 status_is(c->status, ST_BOOT_FAIL) ? "FAIL" :
					 "PASS";

			snprintf(id, sizeof(id), "%s:boot", build_id);
			json_object_set_new(t, "id", json_string(id));
			json_object_set_new(t, "origin", json_string(KCIDB_ORIGIN));
			json_object_set_new(t, "build_id", json_string(build_id));
			json_object_set_new(t, "path", json_string("notrace_matrix.boot"));
			json_object_set_new(t, "environment", json_deep_copy(env));
			set_str(t, "start_time", start);
			json_object_set_new(t, "duration",
					    json_real(cell_seconds(c, "boot")));
			json_object_set_new(t, "status", json_string(st));
			if (strcmp(st, "PASS"))
				json_object_set_new(t, "log_excerpt", excerpt_json(
					failure_excerpt(c, NULL, NULL)));
			json_object_set_new(t, "misc", json_pack("{s:s}", "reason",
								c->reason));
			json_array_append_new(tests, t);
		}
		for (s = 0; s < run->nscen; s++) {
			const char *name = run->scen[s];
			const char *res = cell_result(c, name);
			json_t *secs;

			if (grade_in(c, name) == V_NA)
				continue;
			const char *st = kcidb_test_status(c, res);
			json_t *t = json_object(), *tm = json_object();
			char path[256], *p;

			snprintf(id, sizeof(id), "%s:%s", build_id, name);
			snprintf(path, sizeof(path), "notrace_matrix.%s", name);
			for (p = path; *p; p++)
				if (!strchr("abcdefghijklmnopqrstuvwxyz"
					    "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
					    "0123456789_-.", *p))
					*p = '_';
			json_object_set_new(t, "id", json_string(id));
			json_object_set_new(t, "origin", json_string(KCIDB_ORIGIN));
			json_object_set_new(t, "build_id", json_string(build_id));
			json_object_set_new(t, "path", json_string(path));
			json_object_set_new(t, "environment", json_deep_copy(env));
			set_str(t, "start_time", start);
			secs = json_object_get(cell_subtest(c, name), "seconds");
			if (secs)
				json_object_set_new(t, "duration",
						    json_real(json_number_value(secs)));
			json_object_set_new(t, "status", json_string(st));
			if (!strcmp(st, "FAIL"))
				json_object_set_new(t, "log_excerpt", excerpt_json(
					failure_excerpt(c, name, NULL)));
			set_str(tm, "ktap_result", res);
			if (res && !strcmp(res, "XFAIL")) {
				json_object_set_new(tm, "expected_failure",
						    json_true());
				char see[256];

				snprintf(see, sizeof(see), "patch/%s/FINDINGS.md",
					 c->tree);
				set_str(tm, "see", see);
			}
			if (!res)
				set_str(tm, "not_run_because", c->status);
			json_object_set_new(t, "misc", tm);
			json_array_append_new(tests, t);
		}
		json_decref(env);
	}
	json_object_set_new(doc, "checkouts", checkouts);
	json_object_set_new(doc, "builds", builds);
	json_object_set_new(doc, "tests", tests);
	json_dumpf(doc, f, JSON_INDENT(1) | JSON_REAL_PRECISION(6));
	fputc('\n', f);
	json_decref(doc);
	return 0;
}
