// SPDX-License-Identifier: GPL-2.0
/*
 * report.html: one self-contained page (inline CSS and SVG, no script,
 * nothing fetched) comparing one run across architectures.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "console.h"
#include "report.h"
#include "fgraph.h"
#include "status.h"

static const char css[] =
	"body{font:14px/1.4 sans-serif;margin:1.5em;color:#111;max-width:1400px}\n"
	"h1{font-size:1.5em}h2{border-bottom:1px solid #999;margin-top:2em}\n"
	"table{border-collapse:collapse;margin:.5em 0}\n"
	"td,th{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}\n"
	"th{background:#eee}\n"
	"td.v{text-align:center;white-space:nowrap}\n"
	".na{color:#888}.pass{background:#d7f5d7}.fail{background:#f8b4b4;font-weight:bold}\n"
	".xfail{background:#fde9b8}.skip{background:#e4e4e4}.miss{background:#f3c6f3}\n"
	".regr{outline:3px solid #c00}.fixed{outline:3px solid #080}\n"
	"pre{background:#f6f6f6;border:1px solid #ddd;padding:6px;overflow-x:auto;font-size:12px}\n"
	"table.graph td{font:12px monospace;white-space:pre;border:none;padding:0 8px}\n"
	"table.graph tr.pruned td.l{background:#f8b4b4;text-decoration:line-through}\n"
	"table.graph tr.pruned td.r{background:#fbe3e3;color:#900}\n"
	"table.graph tr.added td.r{background:#fde9b8}\n"
	"code{background:#f0f0f0}\n";

static const char *verdict_class(enum grade v)
{
	static const char *cls[] = {
		[V_FAIL] = "fail", [V_MISSING] = "miss", [V_XFAIL] = "xfail",
		[V_SKIP] = "skip", [V_PASS] = "pass", [V_NA] = "na",
	};
	return cls[v];
}

/* What a grid cell says when the subtest has no result in that cell. */
static const char *missing_text(const struct cell_run *c)
{
	const char *s = c->status;

	if (status_in_class(s, SC_NOT_BUILT))
		return "not built";
	if (status_is(s, ST_TIMEOUT))
		return "timeout";
	if (status_is(s, ST_BOOT_FAIL))
		return "no boot";
	if (status_in_class(s, SC_ERROR))
		return "error";
	return "not run";
}

static const char *result_text(const char *result)
{
	if (!result)
		return NULL;
	if (!strcmp(result, "PASS"))
		return "pass";
	if (!strcmp(result, "SKIP"))
		return "skip";
	if (!strcmp(result, "XFAIL"))
		return "xfail";
	return result;	/* FAIL, XPASS: shouted */
}

/* +1 when @name regressed in @c against @base, -1 when fixed, else 0. */
static int change_of(const struct run *base, const struct cell_run *c,
		     const char *name)
{
	const struct cell_run *b = run_find(base, c->tv, c->cell);

	return b ? subtest_change(b, c, name) : 0;
}

struct row {
	int scen;
	int rank;
};

static int by_rank(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return x->rank != y->rank ? x->rank - y->rank : x->scen - y->scen;
}

static struct row *sorted_rows(const struct run *run, const struct run *base)
{
	struct row *rows = calloc(run->nscen + 1, sizeof(*rows));
	int s, i;

	for (s = 0; s < run->nscen; s++) {
		rows[s].scen = s;
		rows[s].rank = V_PASS;
		for (i = 0; i < run->nr; i++) {
			enum grade v = grade_in(&run->c[i], run->scen[s]);

			if (change_of(base, &run->c[i], run->scen[s]) > 0)
				v = -1;
			if ((int)v < rows[s].rank)
				rows[s].rank = v;
		}
	}
	qsort(rows, run->nscen, sizeof(*rows), by_rank);
	return rows;
}

static int ncells_named(const struct run *run, int from)
{
	int n = 1;

	while (from + n < run->nr &&
	       !strcmp(run->c[from + n].cell, run->c[from].cell))
		n++;
	return n;
}

static void grid(FILE *f, const struct run *run, const struct run *base)
{
	struct row *rows = sorted_rows(run, base);
	int i, s;

	fputs("<table class=\"grid\"><tr><th rowspan=\"2\">scenario</th>", f);
	for (i = 0; i < run->nr; i += ncells_named(run, i)) {
		fprintf(f, "<th colspan=\"%d\">", ncells_named(run, i));
		put_html(f, run->c[i].cell);
		fputs("</th>", f);
	}
	fputs("</tr>\n<tr>", f);
	for (i = 0; i < run->nr; i++) {
		fputs("<th>", f);
		put_html(f, variant_label(run, &run->c[i]));
		fputs("</th>", f);
	}
	fputs("</tr>\n<tr><th>cell status</th>", f);
	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];
		int ok = status_is(c->status, ST_PASS);

		fprintf(f, "<td class=\"v %s\" title=\"", ok ? "pass" : "fail");
		put_html(f, c->reason);
		fputs("\">", f);
		if (!ok)	/* its failure section, with the reproducer */
			fprintf(f, "<a href=\"#cell-%d\">", i);
		put_html(f, c->status);
		fputs(ok ? "</td>" : "</a></td>", f);
	}
	fputs("</tr>\n", f);
	for (s = 0; s < run->nscen; s++) {
		const char *name = run->scen[rows[s].scen];

		fputs("<tr><td>", f);
		put_html(f, name);
		fputs("</td>", f);
		for (i = 0; i < run->nr; i++) {
			const struct cell_run *c = &run->c[i];
			const char *res = cell_result(c, name);
			enum grade v = grade_in(c, name);
			int ch = change_of(base, c, name);

			fprintf(f, "<td class=\"v %s%s\">", verdict_class(v),
				ch > 0 ? " regr" : ch < 0 ? " fixed" : "");
			if (v == V_FAIL || v == V_XFAIL)
				fprintf(f, "<a href=\"#f-%d-%d\">", i,
					rows[s].scen);
			put_html(f, res ? result_text(res) :
				 v == V_NA ? "n/a" : missing_text(c));
			if (v == V_FAIL || v == V_XFAIL)
				fputs("</a>", f);
			if (ch)
				fputs(ch > 0 ? " (regression)" : " (fixed)", f);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
	free(rows);
}

static void pre(FILE *f, const char *text)
{
	fputs("<pre>", f);
	put_html(f, text);
	fputs("</pre>\n", f);
}

static void reproduce(FILE *f, const struct cell_run *c)
{
	json_t *line;
	size_t i;

	fputs("<details><summary>Reproduce this cell by hand (",
	      f);
	put_html(f, c->rel);
	fputs("/reproduce.sh)</summary><pre>", f);
	json_array_foreach(json_object_get(c->r, "reproduce"), i, line) {
		put_html(f, json_string_value(line));
		fputc('\n', f);
	}
	fputs("</pre></details>\n", f);
}

static void excerpt_block(FILE *f, const struct cell_run *c, const char *name)
{
	int first;
	char *text = failure_excerpt(c, name, &first);

	if (first)
		fprintf(f, "<p>From <code>%s/boot.log</code>, line %d:</p>\n",
			c->rel, first);
	else
		fprintf(f, "<p>The end of the cell's log (<code>%s/</code>):</p>\n",
			c->rel);
	pre(f, text);
	free(text);
}

static void failures(FILE *f, const struct run *run, int want_xfail)
{
	int i, s, any = 0;

	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];
		int shown = 0;

		if (!want_xfail && !status_is(c->status, ST_PASS)) {
			fprintf(f, "<h3 id=\"cell-%d\">", i);
			put_html(f, c->cell);
			fputs(" &middot; ", f);
			put_html(f, c->tv);
			fputs(": ", f);
			put_html(f, c->status);
			fputs("</h3>\n<p>", f);
			put_html(f, c->reason);
			fputs("</p>\n", f);
			if (!cell_booted(c) || !status_is(c->status, ST_TEST_FAIL))
				excerpt_block(f, c, NULL);
			shown = any = 1;
		}
		for (s = 0; s < run->nscen; s++) {
			enum grade v = grade_in(c, run->scen[s]);

			if (v != (want_xfail ? V_XFAIL : V_FAIL))
				continue;
			fprintf(f, "<h4 id=\"f-%d-%d\">", i, s);
			put_html(f, c->cell);
			fputs(" &middot; ", f);
			put_html(f, c->tv);
			fputs(" &middot; ", f);
			put_html(f, run->scen[s]);
			fputs(": ", f);
			put_html(f, cell_result(c, run->scen[s]));
			if (cell_finding(c, run->scen[s])) {
				fputs(" &mdash; ", f);
				put_html(f, cell_finding(c, run->scen[s]));
			}
			fputs("</h4>\n", f);
			excerpt_block(f, c, run->scen[s]);
			shown = any = 1;
		}
		if (shown && !want_xfail)
			reproduce(f, c);
	}
	if (!any)
		fprintf(f, "<p>%s</p>\n", want_xfail ? "None." :
			"None: every cell passed.");
}

/* ---- the seed example, before and after, side by side ---------------- */

struct graph {
	struct fg_trace t;
	char *text;
};

static int graph_load(struct graph *g, const char *path)
{
	g->text = slurp(path, NULL);
	if (!g->text)
		return -1;
	g->t = (struct fg_trace){ .ev = calloc(8192, sizeof(struct fg_event)),
				  .max = 8192 };
	fg_parse(&g->t, g->text, -1);
	return 0;
}

static void graph_free(struct graph *g)
{
	free(g->t.ev);
	free(g->text);
}

/* Index one past the end of the top-level call at @i. */
static int call_end(const struct fg_trace *t, int i)
{
	int end = t->ev[i].kind == FG_ENTRY ? t->ev[i].end : i;

	return end < 0 ? t->nr : end + 1;
}

static int same_event(const struct fg_event *a, const struct fg_event *b)
{
	return a->kind == b->kind && a->depth == b->depth &&
	       (a->kind == FG_EXIT || !strcmp(a->name, b->name));
}

static int name_in(const struct fg_trace *t, const char *name)
{
	int i;

	for (i = 0; i < t->nr; i++)
		if (t->ev[i].kind != FG_EXIT && !strcmp(t->ev[i].name, name))
			return 1;
	return 0;
}

static void graph_line(FILE *f, const struct fg_event *e, const char *cls)
{
	fprintf(f, "<td class=\"%s\">%*s", cls, 2 * e->depth, "");
	if (e->kind == FG_EXIT) {
		fputc('}', f);
	} else {
		put_html(f, e->name);
		fputs(e->kind == FG_ENTRY ? "() {" : "();", f);
	}
	fputs("</td>", f);
}

/*
 * The first top-level call of the unpruned trace that holds functions the
 * pruned trace never shows, next to the pruned trace's first call of the
 * same function, aligned by their longest common subsequence.
 */
static void side_by_side(FILE *f, const struct graph *u, const struct graph *p)
{
	const struct fg_trace *a = &u->t, *b = &p->t;
	int ua = -1, ue = 0, pa = -1, pe = 0, i, j, n, m, *l;

	for (i = 0; i < a->nr && ua < 0; i = call_end(a, i))
		for (j = i; j < call_end(a, i); j++)
			if (a->ev[j].kind != FG_EXIT &&
			    !name_in(b, a->ev[j].name)) {
				ua = i;
				ue = call_end(a, i);
				break;
			}
	if (ua < 0) {
		fputs("<p>The pruned trace hides no function of the unpruned one.</p>\n",
		      f);
		return;
	}
	for (i = 0; i < b->nr; i = call_end(b, i))
		if (!strcmp(b->ev[i].name, a->ev[ua].name)) {
			pa = i;
			pe = call_end(b, i);
			break;
		}
	if (pa < 0)
		pa = pe = 0;
	n = ue - ua;
	m = pe - pa;
	l = calloc((n + 1) * (m + 1), sizeof(*l));
#define L(x, y) l[(x) * (m + 1) + (y)]
	for (i = n - 1; i >= 0; i--)
		for (j = m - 1; j >= 0; j--)
			L(i, j) = same_event(&a->ev[ua + i], &b->ev[pa + j]) ?
				  L(i + 1, j + 1) + 1 :
				  L(i + 1, j) > L(i, j + 1) ? L(i + 1, j) :
				  L(i, j + 1);
	fputs("<table class=\"graph\"><tr><th>without set_graph_notrace</th><th>with it</th></tr>\n",
	      f);
	for (i = 0, j = 0; i < n || j < m;) {
		if (i < n && j < m && same_event(&a->ev[ua + i], &b->ev[pa + j])) {
			fputs("<tr>", f);
			graph_line(f, &a->ev[ua + i++], "l");
			graph_line(f, &b->ev[pa + j++], "r");
		} else if (i < n && (j >= m || L(i + 1, j) >= L(i, j + 1))) {
			fputs("<tr class=\"pruned\">", f);
			graph_line(f, &a->ev[ua + i++], "l");
			fputs("<td class=\"r\">(pruned)</td>", f);
		} else {
			fputs("<tr class=\"added\"><td class=\"l\"></td>", f);
			graph_line(f, &b->ev[pa + j++], "r");
		}
		fputs("</tr>\n", f);
	}
#undef L
	fputs("</table>\n", f);
	free(l);
}

/* Index of the "upstream" variant among the @n cells from @i, else @i. */
static int today_first(const struct run *run, int i, int n)
{
	int k;

	for (k = i; k < i + n; k++)
		if (!strcmp(run->c[k].variant, "upstream"))
			return k;
	return i;
}

static void seed_example(FILE *f, const struct run *run)
{
	int i;

	for (i = 0; i < run->nr; i += ncells_named(run, i)) {
		int n = ncells_named(run, i), first = today_first(run, i, n);
		const struct cell_run *c = NULL;
		struct graph u, p;
		char path[4200];
		int k;

		fputs("<h3>", f);
		put_html(f, run->c[i].cell);
		fputs("</h3>\n", f);
		for (k = -1; k < n && !c; k++) {
			const struct cell_run *try = &run->c[k < 0 ? first : i + k];

			if (k >= 0 && i + k == first)
				continue;
			guest_file_path(path, sizeof(path), try->dir,
					"trace-pruned.txt");
			if (graph_load(&p, path))
				continue;
			guest_file_path(path, sizeof(path), try->dir,
					"trace-unpruned.txt");
			if (!graph_load(&u, path))
				c = try;
			else
				graph_free(&p);
		}
		if (!c) {
			fputs("<p>No traces: the seed example did not run on this architecture.</p>\n",
			      f);
			continue;
		}
		fprintf(f, "<p>Variant <b>%s</b>, from <code>%s/" NMX_GUEST_FILES_DIR "/trace-unpruned.txt</code> and <code>trace-pruned.txt</code>; struck-through lines on the left are the ones <code>set_graph_notrace</code> removed.</p>\n",
			c->variant, c->rel);
		side_by_side(f, &u, &p);
		graph_free(&u);
		graph_free(&p);
	}
}

/* ---- variants compared per architecture ------------------------------- */

static void shape_diff(FILE *f, const char *a, const char *b, const char *va,
		       const char *vb)
{
	const char *sides[2][2] = { { a, b }, { b, a } };
	const char *names[2] = { va, vb };
	int k;

	fputs("<pre>", f);
	for (k = 0; k < 2; k++) {
		const char *line = sides[k][0];
		int shown = 0;

		while (*line && shown < 4) {
			size_t len = strcspn(line, "\n");
			char *needle = strndup(line, len + 1);
			const char *hay = sides[k][1];
			int found = !strncmp(hay, needle, len + 1);

			if (!found) {
				char *nl = malloc(len + 3);

				sprintf(nl, "\n%s", needle);
				found = strstr(hay, nl) != NULL;
				free(nl);
			}
			if (!found) {
				/* Whole call trees can be long: their start. */
				if (len > 200)
					strcpy(needle + 197, "...\n");
				fprintf(f, "only in %s: ", names[k]);
				put_html(f, needle);
				shown++;
			}
			free(needle);
			line += len + (line[len] ? 1 : 0);
		}
	}
	fputs("</pre>\n", f);
}

static void variant_pair(FILE *f, const struct run *run,
			 const struct cell_run *a, const struct cell_run *b)
{
	static const char *stack_tests[] = {
		"stack_trace_in_pruned_subtree",
		"stack_trace_in_traced_function",
	};
	json_t *files, *file;
	int s, diff = 0, same = 0;
	size_t i;

	/* Two trees: name each side by tree and variant. */
	const char *la = strcmp(a->tree, b->tree) ? a->tv : a->variant;
	const char *lb = strcmp(a->tree, b->tree) ? b->tv : b->variant;

	fprintf(f, "<h4>%s vs %s</h4>\n", la, lb);
	if (strcmp(a->status, b->status))
		fprintf(f, "<p>Cell status: %s vs %s.</p>\n", a->status,
			b->status);
	for (s = 0; s < run->nscen; s++) {
		const char *ra = cell_result(a, run->scen[s]);
		const char *rb = cell_result(b, run->scen[s]);

		if ((ra && rb && !strcmp(ra, rb)) ||
		    (grade_in(a, run->scen[s]) == V_NA &&
		     grade_in(b, run->scen[s]) == V_NA))
			continue;
		if (!diff++)
			fprintf(f, "<table><tr><th>subtest</th><th>%s</th><th>%s</th></tr>\n",
				la, lb);
		fputs("<tr><td>", f);
		put_html(f, run->scen[s]);
		fprintf(f, "</td><td class=\"v %s\">%s</td><td class=\"v %s\">%s</td></tr>\n",
			verdict_class(verdict_of(ra)), ra ? ra : missing_text(a),
			verdict_class(verdict_of(rb)), rb ? rb : missing_text(b));
	}
	if (diff)
		fputs("</table>\n", f);
	else
		fprintf(f, "<p>Verdicts: the same on all %d subtests.</p>\n",
			run->nscen);

	diff = 0;
	files = json_object_get(json_object_get(a->r, "verdict"), "files");
	json_array_foreach(files, i, file) {
		char pa[4200], pb[4200], *sa, *sb;

		if (!is_trace_file(json_string_value(file)))
			continue;
		guest_file_path(pa, sizeof(pa), a->dir, json_string_value(file));
		guest_file_path(pb, sizeof(pb), b->dir, json_string_value(file));
		sa = trace_shape(pa);
		sb = trace_shape(pb);
		if (sa && sb && strcmp(sa, sb)) {
			fprintf(f, "<p>Trace shape of <code>%s</code> differs:</p>\n",
				json_string_value(file));
			shape_diff(f, sa, sb, la, lb);
			diff++;
		} else if (sa && sb) {
			same++;
		}
		free(sa);
		free(sb);
	}
	fprintf(f, "<p>Trace shapes (distinct top-level call trees): %d file(s) the same, %d different. The seed example's <code>trace-*.txt</code> follow real page faults, whose paths vary from boot to boot; the <code>scenario-*.txt</code> come from the test module's fixed call trees.</p>\n",
		same, diff);

	fprintf(f, "<table><tr><th>stack trace</th><th>%s</th><th>%s</th></tr>\n",
		la, lb);
	for (s = 0; s < 2; s++) {
		const struct cell_run *both[2] = { a, b };
		int k;

		fprintf(f, "<tr><td>%s</td>", stack_tests[s]);
		for (k = 0; k < 2; k++) {
			json_t *st = cell_subtest(both[k], stack_tests[s]), *d;
			size_t j;

			fprintf(f, "<td class=\"v %s\" style=\"text-align:left;white-space:normal\">",
				verdict_class(grade_in(both[k], stack_tests[s])));
			put_html(f, cell_result(both[k], stack_tests[s]) ?:
				 missing_text(both[k]));
			json_array_foreach(json_object_get(st, "diagnostics"), j, d) {
				fputs("<br><code>", f);
				put_html(f, json_string_value(d));
				fputs("</code>", f);
			}
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void variants(FILE *f, const struct run *run)
{
	int i, k;

	for (i = 0; i < run->nr; i += ncells_named(run, i)) {
		int n = ncells_named(run, i), first = i;

		fputs("<h3>", f);
		put_html(f, run->c[i].cell);
		fputs("</h3>\n", f);
		if (n < 2) {
			fprintf(f, "<p>Only one variant (%s) in this run.</p>\n",
				run->c[i].variant);
			continue;
		}
		first = today_first(run, i, n);
		for (k = i; k < i + n; k++) {
			int base = first, j;

			if (k == first)
				continue;
			/*
			 * Another tree's upstream against the first tree's;
			 * any other variant against its own tree's upstream.
			 */
			for (j = i; j < i + n; j++)
				if (strcmp(run->c[k].variant, "upstream") &&
				    !strcmp(run->c[j].variant, "upstream") &&
				    !strcmp(run->c[j].tree, run->c[k].tree))
					base = j;
			variant_pair(f, run, &run->c[base], &run->c[k]);
		}
	}
}

/* ---- charts ----------------------------------------------------------- */

struct bar {
	char label[96];
	double value;
};

/* Horizontal bars, each labelled with its name and value: no legend. */
static void svg_bars(FILE *f, const char *title, const struct bar *bars,
		     int n, const char *unit, double scale)
{
	const int label_w = 330, bar_w = 380, h = 18;
	double max = 0;
	int i;

	for (i = 0; i < n; i++)
		if (bars[i].value > max)
			max = bars[i].value;
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"",
		label_w + bar_w + 90, (n + 1) * h + 6);
	put_html(f, title);
	fputs("\">\n<text x=\"0\" y=\"13\" font-size=\"13\" font-weight=\"bold\">", f);
	put_html(f, title);
	fputs("</text>\n", f);
	for (i = 0; i < n; i++) {
		double w = max > 0 ? bars[i].value / max * bar_w : 0;
		int y = (i + 1) * h + 4;

		fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"end\">",
			label_w - 6, y + 12);
		put_html(f, bars[i].label);
		fprintf(f, "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>",
			label_w, y + 2, w, h - 4, i % 2 ? "#6a8fc8" : "#3b6db3");
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"12\">%.*f %s</text>\n",
			label_w + w + 4, y + 12, scale > 1 ? 0 : 1,
			bars[i].value / scale, unit);
	}
	fputs("</svg>\n", f);
}

static int by_value_desc(const void *a, const void *b)
{
	const struct bar *x = a, *y = b;

	return x->value < y->value ? 1 : x->value > y->value ? -1 :
	       strcmp(x->label, y->label);
}

/* Where the boot stage's test seconds go, by the guest's clock. */
static void slowest_subtests(FILE *f, const struct run *run, int i, int n)
{
	struct bar *bars = NULL;
	char title[128];
	int k, nb = 0;

	for (k = i; k < i + n; k++) {
		json_t *st;
		size_t j;

		json_array_foreach(json_object_get(run->c[k].r, "subtests"), j, st) {
			json_t *secs = json_object_get(st, "seconds");

			if (!secs)
				continue;
			bars = realloc(bars, (nb + 1) * sizeof(*bars));
			snprintf(bars[nb].label, sizeof(bars[nb].label), "%.60s, %s",
				 json_string_value(json_object_get(st, "name")),
				 run->c[k].variant);
			bars[nb++].value = json_number_value(secs);
		}
	}
	if (nb) {
		qsort(bars, nb, sizeof(*bars), by_value_desc);
		snprintf(title, sizeof(title), "%s: the slowest subtests (seconds before each result)",
			 run->c[i].cell);
		svg_bars(f, title, bars, nb < 10 ? nb : 10, "s", 1);
	}
	free(bars);
}

static void charts(FILE *f, const struct run *run)
{
	static const struct { const char *key, *label; } stages[] = {
		{ "prepare", "prepare" }, { "configure", "configure" },
		{ "kernel", "kernel" }, { "guest", "guest" },
		{ "boot", "boot" },
		/* The guest's clock splits the boot stage, when it printed it. */
		{ "boot_to_init", "boot: to PID 1" },
		{ "test", "boot: tests" },
	};
	static const struct { const char *key, *label; } sizes[] = {
		{ "kernel_image_bytes", "kernel image" },
		{ "vmlinux_bytes", "vmlinux" },
		{ "initramfs_bytes", "initramfs" },
	};
	int i, k, s;

	fputs("<p>Stages: <i>prepare</i> (tree and series), <i>configure</i>, <i>kernel</i> (the build), <i>guest</i> (PID 1 and initramfs), <i>boot</i> (QEMU from start to power-off), split where the guest printed its clock into <i>boot: to PID 1</i> and <i>boot: tests</i> (PID 1's start to its last result).</p>\n",
	      f);
	for (i = 0; i < run->nr; i += ncells_named(run, i)) {
		int n = ncells_named(run, i);
		struct bar *bars = calloc(7 * n + 3 * n, sizeof(*bars));
		char title[128];
		int nb = 0;

		fputs("<div>", f);
		for (s = 0; s < 7; s++)
			for (k = i; k < i + n; k++) {
				json_t *secs = json_object_get(run->c[k].r,
							       "seconds");

				if (!json_object_get(secs, stages[s].key))
					continue;
				snprintf(bars[nb].label, sizeof(bars[nb].label),
					 "%s, %s", stages[s].label,
					 run->c[k].variant);
				bars[nb++].value = cell_seconds(&run->c[k],
								stages[s].key);
			}
		snprintf(title, sizeof(title), "%s: seconds per stage",
			 run->c[i].cell);
		svg_bars(f, title, bars, nb, "s", 1);
		nb = 0;
		for (s = 0; s < 3; s++)
			for (k = i; k < i + n; k++) {
				snprintf(bars[nb].label, sizeof(bars[nb].label),
					 "%s, %s", sizes[s].label,
					 run->c[k].variant);
				bars[nb++].value = atof(env_str(&run->c[k],
								sizes[s].key));
			}
		snprintf(title, sizeof(title), "%s: image sizes",
			 run->c[i].cell);
		svg_bars(f, title, bars, nb, "KiB", 1024.0);
		slowest_subtests(f, run, i, n);
		fputs("</div>\n", f);
		free(bars);
	}
}

/* ---- environment ------------------------------------------------------ */

static void series(FILE *f, const struct cell_run *c)
{
	char *names = strdup(env_str(c, "series"));
	char *subjects = strdup(env_str(c, "series_subjects"));
	char *n, *s, *sn = NULL, *ss = NULL;

	fputs("<ol>", f);
	for (n = strtok_r(names, " ", &sn), s = strtok_r(subjects, "|", &ss);
	     n; n = strtok_r(NULL, " ", &sn), s = s ? strtok_r(NULL, "|", &ss) : NULL) {
		fputs("<li>", f);
		put_html(f, s ? s : n);
		fputs(" <small>(<code>", f);
		put_html(f, n);
		fputs("</code>)</small></li>", f);
	}
	fputs("</ol>\n", f);
	free(names);
	free(subjects);
}

/* A link to @name in @c's directory, relative to report.html, if it is there. */
static int file_link(FILE *f, const struct cell_run *c, const char *name,
		     int first)
{
	char path[4400];

	snprintf(path, sizeof(path), "%s/%s", c->dir, name);
	if (access(path, F_OK))
		return 0;
	fputs(first ? "" : " &middot; ", f);
	fputs("<a href=\"", f);
	put_html(f, c->rel);
	fputc('/', f);
	put_html(f, name);
	fputs("\">", f);
	put_html(f, name);
	fputs("</a>", f);
	return 1;
}

/*
 * Each cell's files, linked relative to the run directory (report.html
 * sits at its top): the logs, the reproducer, the result, what the guest
 * framed. A report copied away from its run keeps the links, dead.
 */
static void cell_files(FILE *f, const struct run *run)
{
	static const char *const names[] = { "boot.log", "build.log",
		"reproduce.sh", "result.json", "config-check.txt" };
	int i, k, n;

	fputs("<table><tr><th>cell</th><th>variant</th><th>files</th><th>what the guest printed into files</th></tr>\n",
	      f);
	for (i = 0; i < run->nr; i++) {
		const struct cell_run *c = &run->c[i];
		json_t *files = json_object_get(json_object_get(c->r, "verdict"),
						"files");
		char guest[300];

		fputs("<tr><td>", f);
		put_html(f, c->cell);
		fputs("</td><td>", f);
		put_html(f, variant_label(run, c));
		fputs("</td><td>", f);
		for (k = n = 0; k < (int)(sizeof(names) / sizeof(names[0])); k++)
			n += file_link(f, c, names[k], !n);
		fputs("</td><td>", f);
		for (k = n = 0; k < (int)json_array_size(files); k++) {
			snprintf(guest, sizeof(guest), "guest/%s",
				 json_string_value(json_array_get(files, k)) ?: "");
			n += file_link(f, c, guest, !n);
		}
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void environment(FILE *f, const struct run *run)
{
	static const char *keys[] = { "description", "kbuild_arch", "compiler",
				      "qemu_version", "accelerator",
				      "guest_busybox" };
	int i, k, j;

	for (i = 0; i < run->nr; i++) {
		if (!first_of_tv(run, i))
			continue;
		fputs("<h3>", f);
		put_html(f, run->c[i].tv);
		fputs("</h3>\n<p>Tree ", f);
		put_html(f, env_str(&run->c[i], "tree_version"));
		fputs(" from Debian package <code>", f);
		put_html(f, env_str(&run->c[i], "tree_package"));
		fputs("</code>; series:</p>\n", f);
		series(f, &run->c[i]);
	}
	fputs("<table><tr><th>cell</th><th>variant</th>", f);
	for (k = 0; k < 6; k++)
		fprintf(f, "<th>%s</th>", keys[k]);
	fputs("</tr>\n", f);
	for (i = 0; i < run->nr; i++) {
		fputs("<tr><td>", f);
		put_html(f, run->c[i].cell);
		fputs("</td><td>", f);
		put_html(f, run->c[i].variant);
		fputs("</td>", f);
		for (j = 0; j < 6; j++) {
			fputs("<td>", f);
			put_html(f, env_str(&run->c[i], keys[j]));
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</table>\n", f);
}

/* A run of --patches: its before/after, and which patch (--bisect RUN_ID). */
static void patches_links(FILE *f, const struct run *run)
{
	if (!run_has_file(run, "patches/series"))
		return;
	fputs(" The patches' effect per architecture: <a href=\"patches-compare.md\">patches-compare.md</a>",
	      f);
	if (run_has_file(run, "bisect.md"))
		fputs("; which patch broke each regression: <a href=\"bisect.md\">bisect.md</a>",
		      f);
	fputs(".", f);
}

/*
 * The conclusions of bisect.md (./matrix.sh --bisect RUN_ID): each
 * bisection's heading and its bold verdict line, as bisect.sh writes them.
 */
static void bisections(FILE *f, const struct run *run)
{
	char path[4200], *text, *line, *next;

	snprintf(path, sizeof(path), "%s/bisect.md", run->dir);
	text = slurp(path, NULL);
	if (!text)
		return;
	fputs("<h2>Which patch broke it</h2>\n<p>From <a href=\"bisect.md\">bisect.md</a>: each regression of the patches bisected over the series, the culprit confirmed against flakes.</p>\n<ul>\n",
	      f);
	for (line = text; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (!strncmp(line, "## Bisection of ", 16)) {
			fputs("<li>", f);
			put_html(f, line + 3);
			fputs(": ", f);
		} else if (!strncmp(line, "**", 2) && strlen(line) > 4) {
			line[strlen(line) - 2] = '\0';
			fputs("<b>", f);
			put_html(f, line + 2);
			fputs("</b></li>\n", f);
		}
	}
	fputs("</ul>\n", f);
	free(text);
}

/* The cells judged from an earlier boot's console (report_md() too). */
static void reused(FILE *f, const struct run *run)
{
	const char *from;
	int i = run_next_reused(run, 0, &from);

	if (i < 0)
		return;
	fputs("<p>Not booted again: judged from the console of an earlier boot of the same kernel, initramfs and machine (<code>--reuse-boots</code>; <code>--patches</code> does so for a cell its patches leave byte for byte unchanged):</p>\n<ul>\n",
	      f);
	for (; i >= 0; i = run_next_reused(run, i + 1, &from)) {
		fputs("<li>", f);
		put_html(f, run->c[i].cell);
		fputs(" ", f);
		put_html(f, variant_label(run, &run->c[i]));
		fputs(": the boot of <code>", f);
		put_html(f, from);
		fputs("</code></li>\n", f);
	}
	fputs("</ul>\n", f);
}

int report_html(const struct run *run, const struct run *base, FILE *f)
{
	int i, pass = 0;

	for (i = 0; i < run->nr; i++)
		pass += status_is(run->c[i].status, ST_PASS);
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>notrace-matrix run ",
	      f);
	put_html(f, run->id);
	fprintf(f, "</title>\n<style>\n%s</style></head><body>\n", css);
	fputs("<h1>notrace-matrix: set_graph_notrace across architectures, run ", f);
	put_html(f, run->id);
	fprintf(f, "</h1>\n<p><b>%d of %d</b> cell-variants passed.", pass,
		run->nr);
	if (base) {
		fputs(" Compared with the earlier run <code>", f);
		put_html(f, base->id);
		fputs("</code>: regressions are outlined in red, fixes in green.", f);
	}
	patches_links(f, run);
	fputs("</p>\n<h2>Verdicts</h2>\n<p>Worst rows first. Each FAIL and xfail links to its log excerpt; <i>xfail</i> is a failure FINDINGS.md expects.</p>\n",
	      f);
	grid(f, run, base);
	reused(f, run);
	bisections(f, run);
	fputs("<h2>Failures</h2>\n", f);
	failures(f, run, 0);
	fputs("<h2>Expected failures (named in FINDINGS.md)</h2>\n", f);
	failures(f, run, 1);
	fputs("<h2>The seed example per architecture</h2>\n<p><code>set_graph_function</code> = the page-fault handler, <code>set_graph_notrace</code> = <code>handle_mm_fault</code>: one fault, traced without and with the filter.</p>\n",
	      f);
	seed_example(f, run);
	fputs("<h2>Variants and trees compared per architecture</h2>\n", f);
	variants(f, run);
	fputs("<h2>Stage timings and image sizes</h2>\n", f);
	charts(f, run);
	fputs("<h2>Each cell's files</h2>\n", f);
	cell_files(f, run);
	fputs("<h2>Environment</h2>\n", f);
	environment(f, run);
	fputs("</body></html>\n", f);
	return 0;
}
