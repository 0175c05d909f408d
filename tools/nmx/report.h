/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A matrix run as the report and compare commands see it: every
 * results/<run-id>/<tree>-<variant>/<cell>/ directory, read from disk only.
 */
#ifndef NMX_REPORT_H
#define NMX_REPORT_H

#include <stdio.h>
#include <jansson.h>

#include "matrix.h"	/* slurp() */

struct cell_run {
	char tv[128];		/* "<tree>-<variant>", the directory name */
	char cell[64];
	char rel[256];		/* "<tv>/<cell>", relative to the run */
	char dir[4096];
	const char *tree, *variant;
	const char *status;	/* PASS, TEST_FAIL, ..., or ERROR when unreadable */
	const char *reason;
	json_t *r;		/* result.json; an empty object when missing */
	json_t *env;		/* r.environment */
	json_t *by_name;	/* r.subtests by name: lookups in constant time */
};

struct run {
	char dir[4096];
	char id[64];
	struct cell_run *c;
	int nr;
	const char **scen;	/* every subtest name, in plan order */
	int nscen;
	json_t *scen_index;	/* name -> its index in scen */
};

/* Subtest results, worst first; the order of the verdict grid. */
enum grade {
	V_FAIL,			/* FAIL or XPASS */
	V_MISSING,		/* not reported: the cell did not get that far */
	V_XFAIL,
	V_SKIP,
	V_PASS,
	V_NA,			/* not in the plan of a cell that finished */
};

int run_load(struct run *run, const char *dir);
void run_free(struct run *run);
/* Is @name (relative to the run directory) there? */
int run_has_file(const struct run *run, const char *name);

/* The subtest object named @name in @c, or NULL. */
json_t *cell_subtest(const struct cell_run *c, const char *name);
/* Its result string ("PASS", "XFAIL", ...), or NULL when not reported. */
const char *cell_result(const struct cell_run *c, const char *name);
const char *cell_finding(const struct cell_run *c, const char *name);
enum grade verdict_of(const char *result);
/* The grade of subtest @name in @c, V_NA when that cell does not have it. */
enum grade grade_in(const struct cell_run *c, const char *name);
const char *env_str(const struct cell_run *c, const char *key);

/*
 * The first cell from @i on that was judged from an earlier boot's
 * console (boot.sh --reuse-boots; that boot in *@from), or -1.
 */
int run_next_reused(const struct run *run, int i, const char **from);
/* The cell of @run with @tv and @cell, or NULL (also when @run is NULL). */
const struct cell_run *run_find(const struct run *run, const char *tv,
				const char *cell);
/* Is @run->c[@i] the first cell of its tree-variant? */
int first_of_tv(const struct run *run, int i);
/*
 * How the reports name @c's variant: "upstream" in a run of one tree,
 * "linux-6.12/upstream" in a run of several, where the variant alone
 * would not say which column is which tree.
 */
const char *variant_label(const struct run *run, const struct cell_run *c);
/*
 * Subtest @name from @before to @after: +1 regressed (it passed, or failed
 * as expected, and now fails or did not run), -1 fixed (it failed and now
 * passes, or fails only as expected, or its expected failure now passes:
 * XPASS), 0 neither. The one definition the
 * HTML, the Markdown and nmx compare share.
 */
int subtest_change(const struct cell_run *before,
		   const struct cell_run *after, const char *name);
double cell_seconds(const struct cell_run *c, const char *stage);
int cell_booted(const struct cell_run *c);

/*
 * The log lines that explain a failed subtest (its KTAP diagnostics and
 * its "not ok" line, from boot.log), or for a cell that failed before
 * its tests the tail of the failing stage's log. Caller frees.
 */
char *failure_excerpt(const struct cell_run *c, const char *subtest,
		      int *first_line);
/* The last @n lines of @path, or NULL. Caller frees. */
char *file_tail(const char *path, int n);

/*
 * Structural shape of a function_graph trace file: the distinct top-level
 * call trees in canonical form ("f{g;h;}"), sorted, one per line.
 * NULL when the file is missing. Caller frees.
 */
char *trace_shape(const char *path);
/* A function_graph capture the guest judged (not a retry, not a log)? */
int is_trace_file(const char *name);

/* ISO 8601 from a run id "20261203T112053Z"; "" when it is not one. */
void run_start_time(const char *id, char *out, size_t size);

void put_html(FILE *f, const char *s);
void put_xml(FILE *f, const char *s);

int report_html(const struct run *run, const struct run *base, FILE *f);
int report_md(const struct run *run, const struct run *base, FILE *f);
int report_junit(const struct run *run, FILE *f);
int report_kcidb(const struct run *run, FILE *f);

#endif
