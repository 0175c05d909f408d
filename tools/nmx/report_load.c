// SPDX-License-Identifier: GPL-2.0
/*
 * Reading a run back from disk for the reports: result.json per cell,
 * log excerpts and trace shapes. Nothing here writes.
 */
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "console.h"
#include "report.h"
#include "rundir.h"
#include "fgraph.h"
#include "protocol.h"
#include "status.h"

/* By cell; within a cell today's design ("upstream") first, then by name. */
static int by_cell_then_tv(const void *a, const void *b)
{
	const struct cell_run *x = a, *y = b;
	int d = strcmp(x->cell, y->cell);

	if (d)
		return d;
	d = !strcmp(y->variant, "upstream") - !strcmp(x->variant, "upstream");
	return d ? d : strcmp(x->tv, y->tv);
}

/* Where @name is in run->scen, or -1. */
static int scenario_index(const struct run *run, const char *name)
{
	json_t *i = json_object_get(run->scen_index, name);

	return i ? (int)json_integer_value(i) : -1;
}

/* Add @name at @after unless it is there; returns its index. */
static int add_scenario(struct run *run, const char *name, int after)
{
	int i = scenario_index(run, name);

	if (i >= 0)
		return i;
	run->scen = realloc(run->scen, (run->nscen + 1) * sizeof(*run->scen));
	if (after > run->nscen)
		after = run->nscen;
	memmove(run->scen + after + 1, run->scen + after,
		(run->nscen - after) * sizeof(*run->scen));
	run->scen[after] = name;
	run->nscen++;
	/* Only names another cell's plan lacks land before the end. */
	for (i = after; i < run->nscen; i++)
		json_object_set_new(run->scen_index, run->scen[i],
				    json_integer(i));
	return after;
}

/*
 * Subtest names in plan order, merged over cells with different plans;
 * each cell's subtests indexed by name.
 */
static void collect_scenarios(struct run *run)
{
	int i;

	run->scen_index = json_object();
	for (i = 0; i < run->nr; i++) {
		json_t *subs = json_object_get(run->c[i].r, "subtests"), *st;
		int pos = 0;
		size_t j;

		run->c[i].by_name = json_object();
		json_array_foreach(subs, j, st) {
			const char *name = json_string_value(
				json_object_get(st, "name"));

			if (!name)
				continue;
			/* The first of a name wins, as a linear search would. */
			if (!json_object_get(run->c[i].by_name, name))
				json_object_set(run->c[i].by_name, name, st);
			pos = add_scenario(run, name, pos) + 1;
		}
	}
}

static const char *str_or(json_t *o, const char *key, const char *def)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s && *s ? s : def;
}

int run_load(struct run *run, const char *dir)
{
	char pattern[4200];
	const char *base;
	glob_t g;
	size_t i;

	memset(run, 0, sizeof(*run));
	snprintf(run->dir, sizeof(run->dir), "%s", dir);
	snprintf(pattern, sizeof(pattern), "%s/*/*/", dir);
	if (glob(pattern, GLOB_ONLYDIR, NULL, &g)) {
		fprintf(stderr, "nmx: %s: no <tree>-<variant>/<cell>/ directories: not a run directory\n",
			dir);
		return -1;
	}
	run->c = calloc(g.gl_pathc, sizeof(*run->c));
	for (i = 0; i < g.gl_pathc; i++) {
		struct cell_run *c = &run->c[run->nr];
		char path[4400], *p = g.gl_pathv[i], *slash;
		struct stat st;
		json_error_t jerr;

		p[strlen(p) - 1] = '\0';	/* the glob's trailing '/' */
		snprintf(path, sizeof(path), "%s/" RUNDIR_STAGES, p);
		if (stat(path, &st)) {
			snprintf(path, sizeof(path), "%s/result.json", p);
			if (stat(path, &st))
				continue;	/* not a cell directory */
		}
		snprintf(c->dir, sizeof(c->dir), "%s", p);
		slash = strrchr(p, '/');
		snprintf(c->cell, sizeof(c->cell), "%s", slash + 1);
		*slash = '\0';
		snprintf(c->tv, sizeof(c->tv), "%s", strrchr(p, '/') ?
			 strrchr(p, '/') + 1 : p);
		snprintf(c->rel, sizeof(c->rel), "%s/%s", c->tv, c->cell);
		snprintf(path, sizeof(path), "%s/result.json", c->dir);
		c->r = json_load_file(path, 0, &jerr);
		if (!c->r || !json_is_object(c->r)) {
			json_decref(c->r);
			c->r = json_object();
			c->status = status_name(ST_ERROR);
			c->reason = "result.json missing or unreadable: the harness stopped before it was written";
		} else {
			c->status = str_or(c->r, "status", status_name(ST_ERROR));
			c->reason = str_or(c->r, "reason", "");
		}
		c->env = json_object_get(c->r, "environment");
		if (!json_is_object(c->env)) {
			c->env = json_object();
			json_object_set_new(c->r, "environment", c->env);
		}
		c->tree = str_or(c->r, "tree", NULL);
		c->variant = str_or(c->r, "variant", NULL);
		if (!c->tree || !c->variant) {
			/*
			 * "<tree>-<variant>": the variant has no '-'. Kept in
			 * c->r, which owns them (the array is sorted below).
			 */
			char tree[128], *dash;

			snprintf(tree, sizeof(tree), "%s", c->tv);
			dash = strrchr(tree, '-');
			if (dash)
				*dash++ = '\0';
			json_object_set_new(c->r, "tree", json_string(tree));
			json_object_set_new(c->r, "variant",
					    json_string(dash ? dash : "?"));
			c->tree = str_or(c->r, "tree", "?");
			c->variant = str_or(c->r, "variant", "?");
		}
		run->nr++;
	}
	globfree(&g);
	if (!run->nr) {
		fprintf(stderr, "nmx: %s: no cell results in it\n", dir);
		return -1;
	}
	qsort(run->c, run->nr, sizeof(*run->c), by_cell_then_tv);
	base = str_or(run->c[0].r, "run_id", NULL);
	if (!base) {
		base = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
		if (!*base)
			base = dir;
	}
	snprintf(run->id, sizeof(run->id), "%s", base);
	collect_scenarios(run);
	return 0;
}

void run_free(struct run *run)
{
	int i;

	for (i = 0; i < run->nr; i++) {
		json_decref(run->c[i].r);
		json_decref(run->c[i].by_name);
	}
	json_decref(run->scen_index);
	free(run->c);
	free(run->scen);
	memset(run, 0, sizeof(*run));
}

json_t *cell_subtest(const struct cell_run *c, const char *name)
{
	return json_object_get(c->by_name, name);
}

const char *cell_result(const struct cell_run *c, const char *name)
{
	return str_or(cell_subtest(c, name), "result", NULL);
}

/* The finding an expected failure's xfail line names, or NULL. */
const char *cell_finding(const struct cell_run *c, const char *name)
{
	return str_or(cell_subtest(c, name), "finding", NULL);
}

enum grade verdict_of(const char *result)
{
	if (!result)
		return V_MISSING;
	if (!strcmp(result, "PASS"))
		return V_PASS;
	if (!strcmp(result, "SKIP"))
		return V_SKIP;
	if (!strcmp(result, "XFAIL"))
		return V_XFAIL;
	return V_FAIL;
}

enum grade grade_in(const struct cell_run *c, const char *name)
{
	const char *result = cell_result(c, name);
	json_t *v = json_object_get(c->r, "verdict");

	/* A complete plan without it: the test is not for this cell. */
	if (!result && cell_booted(c) &&
	    json_integer_value(json_object_get(v, "planned")) ==
	    (json_int_t)json_array_size(json_object_get(c->r, "subtests")))
		return V_NA;
	return verdict_of(result);
}

const struct cell_run *run_find(const struct run *run, const char *tv,
				const char *cell)
{
	int i;

	for (i = 0; run && i < run->nr; i++)
		if (!strcmp(run->c[i].tv, tv) && !strcmp(run->c[i].cell, cell))
			return &run->c[i];
	return NULL;
}

int first_of_tv(const struct run *run, int i)
{
	int k;

	for (k = 0; k < i; k++)
		if (!strcmp(run->c[k].tv, run->c[i].tv))
			return 0;
	return 1;
}

const char *variant_label(const struct run *run, const struct cell_run *c)
{
	static char label[256];
	int k;

	for (k = 0; k < run->nr; k++)
		if (strcmp(run->c[k].tree, c->tree))
			break;
	if (k == run->nr)
		return c->variant;
	snprintf(label, sizeof(label), "%s/%s", c->tree, c->variant);
	return label;
}

int subtest_change(const struct cell_run *before,
		   const struct cell_run *after, const char *name)
{
	const char *was = cell_result(before, name);
	enum grade g0 = verdict_of(was), g1 = grade_in(after, name);

	/* A finding's expected failure that now passes: fixed. */
	if (g0 == V_XFAIL && !strcmp(cell_result(after, name) ?: "", "XPASS"))
		return -1;
	if ((g0 == V_PASS || g0 == V_XFAIL) && g1 <= V_MISSING)
		return 1;
	if (was && (g0 == V_FAIL || g0 == V_XFAIL) &&
	    (g1 == V_PASS || (g1 == V_XFAIL && g0 == V_FAIL)))
		return -1;
	return 0;
}

const char *env_str(const struct cell_run *c, const char *key)
{
	return str_or(c->env, key, "");
}

int run_next_reused(const struct run *run, int i, const char **from)
{
	for (; i < run->nr; i++) {
		*from = env_str(&run->c[i], "boot_reused_from");
		if (**from)
			return i;
	}
	return -1;
}

double cell_seconds(const struct cell_run *c, const char *stage)
{
	return json_number_value(json_object_get(
		json_object_get(c->r, "seconds"), stage));
}

/* Did the kernel boot far enough to print KTAP? */
int cell_booted(const struct cell_run *c)
{
	return json_array_size(json_object_get(c->r, "subtests")) > 0;
}

char *file_tail(const char *path, int n)
{
	size_t len;
	char *text = slurp(path, &len), *p;

	if (!text)
		return NULL;
	if (len && text[len - 1] == '\n')
		len--;
	for (p = text + len; p > text; p--)
		if (p[-1] == '\n' && --n == 0)
			break;
	memmove(text, p, text + len - p);
	text[text + len - p] = '\0';
	return text;
}

/* Is @line a KTAP result line; of subtest @name if @name is not NULL? */
static int is_result_of(const char *line, size_t len, const char *name)
{
	struct subtest t;
	int yes = ktap_line(line, len, &t) == KTAP_RESULT &&
		  (!name || !strcmp(t.name, name));

	subtest_free(&t);
	return yes;
}

/*
 * KTAP puts a subtest's diagnostics before its result line: take the
 * lines after the previous result line, up to and with this one.
 */
static char *boot_log_excerpt(const char *path, const char *name, int *first)
{
	char *log = slurp(path, NULL), *line, *next, *start = NULL, *out;
	int lineno = 1, start_line = 1;

	if (!log)
		return NULL;
	for (line = log; *line; line = next, lineno++) {
		size_t len = strcspn(line, "\n");

		next = line[len] ? line + len + 1 : line + len;
		if (!start) {
			start = line;
			start_line = lineno;
		}
		if (is_result_of(line, len, name)) {
			size_t n = line + len - start;

			/* Long diagnostics: keep the last 60 lines. */
			while (lineno - start_line >= 60) {
				start = strchr(start, '\n') + 1;
				start_line++;
			}
			n = line + len - start;
			out = malloc(n + 1);
			memcpy(out, start, n);
			out[n] = '\0';
			if (first)
				*first = start_line;
			free(log);
			return out;
		}
		if (is_result_of(line, len, NULL) ||
		    !strncmp(line, NMX_FILE_END, NMX_LEN(NMX_FILE_END)))
			start = NULL;
	}
	free(log);
	return NULL;
}

char *failure_excerpt(const struct cell_run *c, const char *subtest,
		      int *first_line)
{
	char path[4200];
	const char *stage = str_or(c->r, "failed_stage", NULL);
	char *text;

	if (first_line)
		*first_line = 0;
	if (subtest) {
		snprintf(path, sizeof(path), "%s/boot.log", c->dir);
		text = boot_log_excerpt(path, subtest, first_line);
		if (text)
			return text;
	}
	snprintf(path, sizeof(path), "%s/%s", c->dir,
		 stage && strcmp(stage, "boot") ? "build.log" : "boot.log");
	text = file_tail(path, 30);
	if (!text) {
		snprintf(path, sizeof(path), "%s/build.log", c->dir);
		text = file_tail(path, 30);
	}
	return text ? text : strdup("(no log was written)");
}

/* ---- trace shapes ----------------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char *trace_shape(const char *path)
{
	static struct fg_event ev[16384];
	struct fg_trace t = { .ev = ev, .max = 16384 };
	char *text = slurp(path, NULL), **roots = NULL, *out;
	int i, j, nroots = 0;
	size_t size = 1;

	if (!text)
		return NULL;
	fg_parse(&t, text, -1);
	for (i = 0; i < t.nr; i++) {
		const struct fg_event *e = &t.ev[i];
		int end = e->kind == FG_ENTRY ? e->end : i;
		char *s;
		size_t len = 0, cap = 256;

		if (e->parent >= 0 || e->kind == FG_EXIT)
			continue;
		if (end < 0)
			end = t.nr - 1;
		s = malloc(cap);
		for (j = i; j <= end; j++) {
			const struct fg_event *f = &t.ev[j];
			const char *name = f->kind == FG_EXIT ? "" : f->name;
			size_t need = strlen(name) + 2;

			if (len + need >= cap) {
				cap = (cap + need) * 2;
				s = realloc(s, cap);
			}
			len += sprintf(s + len, "%s%s", name,
				       f->kind == FG_EXIT ? "}" :
				       f->kind == FG_ENTRY ? "{" : ";");
		}
		i = end;
		roots = realloc(roots, (nroots + 1) * sizeof(*roots));
		roots[nroots++] = s;
	}
	if (nroots)	/* qsort(NULL, 0, ...) is undefined */
		qsort(roots, nroots, sizeof(*roots), cmp_str);
	for (i = 0; i < nroots; i++)
		size += strlen(roots[i]) + 1;
	out = malloc(size);
	*out = '\0';
	for (i = 0, size = 0; i < nroots; i++) {
		if (i && !strcmp(roots[i], roots[i - 1]))
			continue;
		size += sprintf(out + size, "%s\n", roots[i]);
	}
	for (i = 0; i < nroots; i++)
		free(roots[i]);
	free(roots);
	free(text);
	return out;
}

int is_trace_file(const char *name)
{
	return name && (!strncmp(name, "trace-", 6) ||
			!strncmp(name, "scenario-", 9)) &&
	       !strstr(name, ".retry");
}

void run_start_time(const char *id, char *out, size_t size)
{
	int ok = strlen(id) == 16 && id[8] == 'T' && id[15] == 'Z';

	if (!ok) {
		*out = '\0';
		return;
	}
	snprintf(out, size, "%.4s-%.2s-%.2sT%.2s:%.2s:%.2s+00:00", id, id + 4,
		 id + 6, id + 9, id + 11, id + 13);
}

/*
 * Text for HTML and XML alike: markup escaped, and what a garbled console
 * leaves (control bytes, broken UTF-8) shown as '?', which keeps the XML
 * well-formed.
 */
void put_html(FILE *f, const char *s)
{
	char *text = s ? strdup(s) : NULL, *p;

	if (!text)
		return;
	console_clean(text, strlen(text), 0);
	for (p = text; *p; p++)
		switch (*p) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*p, f);
		}
	free(text);
}

void put_xml(FILE *f, const char *s)
{
	put_html(f, s);
}

int run_has_file(const struct run *run, const char *name)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/%s", run->dir, name);
	return !access(path, F_OK);
}
