// SPDX-License-Identifier: GPL-2.0
/*
 * nmx upstream-plan: what the upstream export (export-upstream.sh) sends.
 * From a tree's upstream.yaml (one topic per maintainer group) and the
 * runs given, decide per topic whether the runs prove every patch of it
 * (each subtest it shows passes in `upstream` on every cell named, and
 * fails without the patch), and write for each topic that is proven the
 * patches to apply, each patch's commit message as the exporter sends it
 * (their identity in the Signed-off-by, the booted evidence above the
 * trailers) and the cover letter's body. git, get_maintainer.pl and
 * checkpatch.pl are the script's to run.
 *
 * nmx upstream-cover fills the cover letter git format-patch wrote with
 * that body and the recipients get_maintainer.pl named.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "commands.h"
#include "matrix.h"
#include "report.h"
#include "ydoc.h"
#include "status.h"

#define MAX_RUNS 16

/* One patch of a topic, as upstream.yaml names it. */
struct up_patch {
	char num[8];			/* "0004" */
	char path[PATH_MAX];		/* the patch file in the series */
	struct strlist shows;		/* subtests, or "boot" */
	const char *without;		/* the variant without it, or NULL */
	struct strlist cells;
	int all_cells;
};

struct up_ctx {
	const char *tree;
	const char *identity;
	const char *out;
	struct run runs[MAX_RUNS];
	int nr_runs;
};

/*
 * "Name <user@host.domain>", a real person's: the project's own
 * placeholder identities and example domains are refused.
 */
static const char *identity_problem(const char *id)
{
	static const char *const placeholders[] = {
		"3389c98d", "notrace-matrix", "example.", "localhost",
		"noreply", 0
	};
	const char *const *p;
	const char *lt = strchr(id, '<'), *at, *gt;

	if (!lt || lt == id || lt[-1] != ' ')
		return "not \"Name <email>\"";
	at = strchr(lt, '@');
	gt = strchr(lt, '>');
	if (!at || !gt || gt[1] || at > gt || !strchr(at, '.'))
		return "not \"Name <email>\"";
	for (p = placeholders; *p; p++)
		if (strstr(id, *p))
			return "a placeholder, not a person (a Signed-off-by certifies the DCO)";
	return NULL;
}

/* The cell @cell of "<tree>-@variant" in the last run given that has it. */
static const struct cell_run *find_cell(const struct up_ctx *x,
					const char *variant, const char *cell,
					const char **run_id)
{
	char tv[128];
	int i;

	snprintf(tv, sizeof(tv), "%s-%s", x->tree, variant);
	for (i = x->nr_runs - 1; i >= 0; i--) {
		const struct cell_run *c = run_find(&x->runs[i], tv, cell);

		if (c) {
			*run_id = x->runs[i].id;
			return c;
		}
	}
	return NULL;
}

static int by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every cell with an upstream result in the runs, sorted, no repeats. */
static void all_upstream_cells(const struct up_ctx *x, struct strlist *out)
{
	char tv[128];
	int i, j;
	size_t k;

	snprintf(tv, sizeof(tv), "%s-upstream", x->tree);
	for (i = 0; i < x->nr_runs; i++)
		for (j = 0; j < x->runs[i].nr; j++) {
			const struct cell_run *c = &x->runs[i].c[j];
			int seen = 0;

			if (strcmp(c->tv, tv))
				continue;
			for (k = 0; k < out->n; k++)
				seen |= !strcmp(out->v[k], c->cell);
			if (!seen)
				strlist_add(out, c->cell);
		}
	qsort(out->v, out->n, sizeof(*out->v), by_string);
}

/* Find the series' file "@num-*.patch"; 0 when found. */
static int find_patch(const char *series_dir, const char *num, char *path,
		      size_t size)
{
	char list[PATH_MAX + 16], line[512];
	size_t len = strlen(num);
	FILE *f;
	int found = 0;

	snprintf(list, sizeof(list), "%s/series", series_dir);
	f = fopen(list, "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\n")] = '\0';
		if (!strncmp(line, num, len) && line[len] == '-')
			found = (size_t)snprintf(path, size, "%s/%s", series_dir,
						 line) < size;
	}
	fclose(f);
	return found ? 0 : -1;
}

/* What the runs showed for one patch, gathered cell by cell. */
struct up_evidence {
	struct strlist *cells;		/* per subtest of shows: where shown */
	struct strlist with_runs, without_runs;
	const char *boot_status;	/* without it, for shows: [boot] */
	char package[128];		/* "linux-source-7.2 7.2.13-1 (...)" */
};

/*
 * Does the evidence hold for @p on @cell? Gathers it into @ev; on a
 * refusal, writes why into @why and returns -1.
 */
static int prove_on_cell(const struct up_ctx *x, const struct up_patch *p,
			 const char *cell, struct up_evidence *ev, char *why,
			 size_t size)
{
	const struct cell_run *up, *wo = NULL;
	const char *up_run, *wo_run = NULL, *pkg;
	size_t i;

	up = find_cell(x, "upstream", cell, &up_run);
	if (!up) {
		snprintf(why, size, "%s: no upstream result for %s in the runs given",
			 p->num, cell);
		return -1;
	}
	if (!status_is(up->status, ST_PASS)) {
		snprintf(why, size, "%s: %s is %s in upstream (run %s)", p->num,
			 cell, up->status, up_run);
		return -1;
	}
	if (p->without) {
		wo = find_cell(x, p->without, cell, &wo_run);
		if (!wo) {
			snprintf(why, size, "%s: no %s result for %s in the runs given",
				 p->num, p->without, cell);
			return -1;
		}
	}
	for (i = 0; i < p->shows.n; i++) {
		const char *s = p->shows.v[i], *r;

		if (!strcmp(s, "boot")) {
			if (wo && (status_is(wo->status, ST_PASS) || cell_booted(wo))) {
				snprintf(why, size, "%s: %s booted to its tests without the fix (%s, run %s)",
					 p->num, cell, p->without, wo_run);
				return -1;
			}
			ev->boot_status = wo ? wo->status : NULL;
		} else {
			r = cell_result(up, s);
			if (!r || strcmp(r, "PASS")) {
				snprintf(why, size, "%s: %s is %s on %s in upstream (run %s)",
					 p->num, s, r ? r : "not reported", cell,
					 up_run);
				return -1;
			}
			r = wo ? cell_result(wo, s) : "";
			if (!r || (wo && strcmp(r, "XFAIL") && strcmp(r, "FAIL"))) {
				snprintf(why, size, "%s: without the fix, %s is %s on %s (%s, run %s): no evidence",
					 p->num, s, r ? r : "not reported", cell,
					 p->without, wo_run);
				return -1;
			}
		}
		strlist_add_once(&ev->cells[i], cell);
	}
	strlist_add_once(&ev->with_runs, up_run);
	if (wo_run)
		strlist_add_once(&ev->without_runs, wo_run);
	pkg = env_str(up, "tree_package");
	if (pkg && !ev->package[0])
		snprintf(ev->package, sizeof(ev->package), "%s", pkg);
	return 0;
}

/*
 * @words, each but the last followed by @sep, separated by spaces and
 * folded to lines of at most 72 columns: the first starts with @lead,
 * the others with @indent.
 */
static void put_words(FILE *f, const struct strlist *words, const char *sep,
		      const char *lead, const char *indent)
{
	size_t i, col = strlen(lead);

	fputs(lead, f);
	for (i = 0; i < words->n; i++) {
		const char *end = i + 1 < words->n ? sep : "";
		size_t len = strlen(words->v[i]) + strlen(end);

		if (i && col + 1 + len > 72) {
			fprintf(f, "\n%s", indent);
			col = strlen(indent);
		} else if (i) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%s%s", words->v[i], end);
		col += len;
	}
	fputc('\n', f);
}

/* @text folded at spaces to lines of at most 72 columns. */
static void put_text(FILE *f, const char *text)
{
	struct strlist words = { 0 };
	char *copy = strdup(text), *w, *save;

	for (w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		strlist_add(&words, w);
	free(copy);
	put_words(f, &words, "", "", "");
	strlist_free(&words);
}

/* @l's items joined by @sep. Caller frees. */
static char *joined(const struct strlist *l, const char *sep)
{
	char *s = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&s, &len);

	for (i = 0; i < l->n; i++)
		fprintf(f, "%s%s", i ? sep : "", l->v[i]);
	fclose(f);
	return s;
}

static const char *runs_word(const struct strlist *runs)
{
	return runs->n > 1 ? "runs" : "run";
}

/* The evidence paragraph of a commit message. */
static void put_evidence(FILE *f, const struct up_patch *p,
			 const struct up_evidence *ev, const char *tree)
{
	char *with = joined(&ev->with_runs, ", ");
	char *without = joined(&ev->without_runs, ", ");
	char *text = NULL, lead[256];
	size_t len = 0, i;
	FILE *t = open_memstream(&text, &len);

	fprintf(t, "Booted under QEMU (TCG) with notrace-matrix, %s:",
		ev->package[0] ? ev->package : tree);
	if (p->without && !strcmp(with, without))
		fprintf(t, " %s %s, without this patch and with it.",
			runs_word(&ev->with_runs), with);
	else if (p->without)
		fprintf(t, " without this patch in %s %s, with it in %s %s.",
			runs_word(&ev->without_runs), without,
			runs_word(&ev->with_runs), with);
	else
		fprintf(t, " %s %s.", runs_word(&ev->with_runs), with);
	fclose(t);
	put_text(f, text);
	free(text);
	free(with);
	free(without);
	fputc('\n', f);
	for (i = 0; i < p->shows.n; i++) {
		if (!strcmp(p->shows.v[i], "boot")) {
			snprintf(lead, sizeof(lead),
				 "  without it the boot stops (%s), with it the tests pass:",
				 ev->boot_status ? ev->boot_status : "?");
		} else {
			/* The name alone: the longest fill a line. */
			fprintf(f, "  %s\n", p->shows.v[i]);
			snprintf(lead, sizeof(lead), "    %s",
				 p->without ? "fails without it, passes with it:" :
					      "passes:");
		}
		fprintf(f, "%s\n", lead);
		put_words(f, &ev->cells[i], ",", "    ", "    ");
	}
}

/* The commit message of an mbox patch: subject and body, no "[PATCH]". */
static int read_message(const char *path, char **subject, char **body)
{
	char *text = slurp(path, NULL), *p, *s, *b, *end, *o;

	if (!text)
		return -1;
	s = strstr(text, "\nSubject: ");
	b = strstr(text, "\n\n");
	if (!s || !b || s > b) {
		free(text);
		return -1;
	}
	s += strlen("\nSubject: ");
	if (*s == '[' && (p = strchr(s, ']')))
		s = p + 1 + (p[1] == ' ');
	/* Unfold the header: continuation lines start with blanks. */
	*subject = o = malloc(b - s + 1);
	for (p = s; p < b; p++) {
		if (*p == '\n') {
			while (p[1] == ' ' || p[1] == '\t')
				p++;
			*o++ = ' ';
			continue;
		}
		*o++ = *p;
	}
	while (o > *subject && o[-1] == ' ')
		o--;
	*o = '\0';
	b += 2;
	end = strstr(b, "\n---\n");
	if (!end) {
		free(text);
		free(*subject);
		return -1;
	}
	*body = strndup(b, end - b + 1);
	free(text);
	return 0;
}

/* A trailer line ("Fixes: ...", "Cc: ...", "Signed-off-by: ...")? */
static int is_trailer(const char *line, size_t len)
{
	size_t i;

	for (i = 0; i < len && line[i] != ':'; i++)
		if (!((line[i] >= 'A' && line[i] <= 'Z') ||
		      (line[i] >= 'a' && line[i] <= 'z') || line[i] == '-'))
			return 0;
	return i > 0 && i + 1 < len && line[i] == ':' && line[i + 1] == ' ';
}

/*
 * Write @body to @f with @evidence as a paragraph before its trailers,
 * every Signed-off-by dropped and the exporter's added last.
 */
static void write_message(FILE *f, const char *subject, const char *body,
			  const char *evidence, const char *identity)
{
	const char *p = body, *trailers = body + strlen(body);
	const char *line;

	/* The trailers: the last paragraph, if every line of it is one. */
	for (line = body; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		if (!len) {
			const char *q = eol + 1;
			int all = *q != '\0';

			while (*q) {
				const char *e = strchr(q, '\n');
				size_t l = e ? (size_t)(e - q) : strlen(q);

				if (!l || !is_trailer(q, l)) {
					all = 0;
					break;
				}
				q = e ? e + 1 : q + l;
			}
			if (all)
				trailers = eol + 1;
		}
		line = eol ? eol + 1 : line + len;
	}
	fprintf(f, "%s\n\n", subject);
	fwrite(p, 1, trailers - p, f);
	if (trailers == body + strlen(body) && trailers > body &&
	    trailers[-1] == '\n' && (trailers - body < 2 || trailers[-2] != '\n'))
		fputc('\n', f);
	fputs(evidence, f);
	fputc('\n', f);
	for (line = trailers; *line;) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);

		if (strncmp(line, "Signed-off-by:", 14))
			fprintf(f, "%.*s\n", (int)len, line);
		line = eol ? eol + 1 : line + len;
	}
	fprintf(f, "Signed-off-by: %s\n", identity);
}

static int load_patch(struct ydoc *y, yaml_node_t *n, const char *series_dir,
		      struct up_patch *p)
{
	static const char *const keys[] = { "patch", "shows", "without",
					    "cells", 0 };
	const char *num = ydoc_str(ydoc_get(y, n, "patch"));
	const char *cells;

	memset(p, 0, sizeof(*p));
	if (!n || n->type != YAML_MAPPING_NODE || ydoc_check_keys(y, n, "a patch", keys))
		return -1;
	if (!num || strlen(num) >= sizeof(p->num)) {
		fprintf(stderr, "%s:%d: a patch needs its number (patch: \"0004\")\n",
			y->path, ydoc_line(n));
		return -1;
	}
	strcpy(p->num, num);
	if (find_patch(series_dir, num, p->path, sizeof(p->path))) {
		fprintf(stderr, "%s:%d: no patch %s-* in %s/series\n", y->path,
			ydoc_line(n), num, series_dir);
		return -1;
	}
	p->without = ydoc_str(ydoc_get(y, n, "without"));
	if (get_list(y, n, "shows", &p->shows) || !p->shows.n) {
		fprintf(stderr, "%s:%d: patch %s: 'shows' lists the subtests that show its bug\n",
			y->path, ydoc_line(n), num);
		return -1;
	}
	cells = ydoc_str(ydoc_get(y, n, "cells"));
	if (cells && !strcmp(cells, "all"))
		p->all_cells = 1;
	else if (get_list(y, n, "cells", &p->cells) || !p->cells.n) {
		fprintf(stderr, "%s:%d: patch %s: 'cells' is a list of cells or \"all\"\n",
			y->path, ydoc_line(n), num);
		return -1;
	}
	return 0;
}

static int mkdirs(const char *path)
{
	char tmp[PATH_MAX], *p;

	snprintf(tmp, sizeof(tmp), "%s", path);
	for (p = tmp + 1; *p; p++)
		if (*p == '/') {
			*p = '\0';
			if (mkdir(tmp, 0755) && errno != EEXIST)
				return -1;
			*p = '/';
		}
	return mkdir(tmp, 0755) && errno != EEXIST ? -1 : 0;
}

/*
 * One topic: prove each patch, then write DIR/<topic>/{patches, msg-NNNN,
 * cover.txt}. Returns 0 exported, 1 refused (why in @why), -1 bad input.
 */
static int plan_topic(struct up_ctx *x, struct ydoc *y, const char *name,
		      yaml_node_t *topic, const char *series_dir, char *why,
		      size_t size)
{
	static const char *const keys[] = { "subject", "patches", 0 };
	yaml_node_t *list = ydoc_get(y, topic, "patches");
	const char *subject = ydoc_str(ydoc_get(y, topic, "subject"));
	struct up_patch *p;
	struct strlist all = { 0 }, subjects = { 0 };
	char dir[PATH_MAX], path[PATH_MAX + 32], package[128] = "";
	char **evidence;
	size_t n, i, j;
	int ret = 0;
	FILE *f;

	if (topic->type != YAML_MAPPING_NODE ||
	    ydoc_check_keys(y, topic, "a topic", keys))
		return -1;
	n = ydoc_len(list);
	if (!subject || !n) {
		fprintf(stderr, "%s:%d: topic %s needs a subject and patches\n",
			y->path, ydoc_line(topic), name);
		return -1;
	}
	p = calloc(n, sizeof(*p));
	evidence = calloc(n, sizeof(*evidence));
	all_upstream_cells(x, &all);
	for (i = 0; i < n && ret >= 0; i++)
		if (load_patch(y, ydoc_item(y, list, i), series_dir, &p[i]))
			ret = -1;
	for (i = 0; i < n && !ret; i++) {
		const struct strlist *cells = p[i].all_cells ? &all : &p[i].cells;
		struct up_evidence ev = { 0 };
		size_t len = 0;
		FILE *f;

		ev.cells = calloc(p[i].shows.n, sizeof(*ev.cells));
		if (!cells->n) {
			snprintf(why, size, "%s: no cell with an upstream result in the runs given",
				 p[i].num);
			ret = 1;
		}
		for (j = 0; j < cells->n && !ret; j++)
			if (prove_on_cell(x, &p[i], cells->v[j], &ev, why, size))
				ret = 1;
		if (!package[0])
			snprintf(package, sizeof(package), "%s", ev.package);
		f = open_memstream(&evidence[i], &len);
		put_evidence(f, &p[i], &ev, x->tree);
		fclose(f);
		for (j = 0; j < p[i].shows.n; j++)
			strlist_free(&ev.cells[j]);
		free(ev.cells);
		strlist_free(&ev.with_runs);
		strlist_free(&ev.without_runs);
	}
	if (!ret) {
		snprintf(dir, sizeof(dir), "%s/%s", x->out, name);
		if (mkdirs(dir)) {
			fprintf(stderr, "nmx: cannot create %s: %s\n", dir,
				strerror(errno));
			ret = -1;
		}
	}
	if (!ret) {
		snprintf(path, sizeof(path), "%s/patches", dir);
		f = fopen(path, "w");
		for (i = 0; f && i < n; i++)
			fprintf(f, "%s\n", p[i].path);
		if (f)
			fclose(f);
		/* Each message as sent; the subjects again for the cover. */
		for (i = 0; i < n && !ret; i++) {
			char *s, *b;

			if (read_message(p[i].path, &s, &b)) {
				fprintf(stderr, "nmx: %s: no Subject or no '---' line\n",
					p[i].path);
				ret = -1;
				break;
			}
			snprintf(path, sizeof(path), "%s/msg-%s", dir, p[i].num);
			f = fopen(path, "w");
			if (f) {
				write_message(f, s, b, evidence[i], x->identity);
				fclose(f);
			}
			strlist_add(&subjects, s);
			free(s);
			free(b);
		}
	}
	if (!ret) {
		char intro[512];

		snprintf(intro, sizeof(intro),
			 "Found by booting kernels built from %s under QEMU and tracing with function_graph, set_graph_function and set_graph_notrace (notrace-matrix). Each patch says what the booted kernels showed without it and with it. The base-commit below is that tree imported into git, not a mainline commit.",
			 package[0] ? package : x->tree);
		snprintf(path, sizeof(path), "%s/cover.txt", dir);
		f = fopen(path, "w");
		if (f) {
			fprintf(f, "%s\n\n", subject);
			put_text(f, intro);
			fputc('\n', f);
			for (i = 0; i < subjects.n; i++)
				fprintf(f, "  %s\n", subjects.v[i]);
			fclose(f);
		}
	}
	strlist_free(&subjects);
	for (i = 0; i < n; i++) {
		free(evidence[i]);
		strlist_free(&p[i].shows);
		strlist_free(&p[i].cells);
	}
	strlist_free(&all);
	free(evidence);
	free(p);
	return ret;
}

static void free_runs(struct up_ctx *x)
{
	int i;

	for (i = 0; i < x->nr_runs; i++)
		run_free(&x->runs[i]);
	x->nr_runs = 0;
}

int cmd_upstream_plan(int argc, char **argv)
{
	struct up_ctx x = { 0 };
	struct matrix m;
	struct tree *t;
	struct ydoc y;
	yaml_node_t *topics, *root;
	yaml_node_pair_t *pair;
	char series_dir[PATH_MAX], yaml[PATH_MAX + 16];
	char tsv[PATH_MAX + 16];
	const char *problem;
	const char *run_dirs[MAX_RUNS];
	int i, nr_dirs = 0, refused = 0, err = 0;
	FILE *out;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--tree") && i + 1 < argc)
			x.tree = argv[++i];
		else if (!strcmp(argv[i], "--identity") && i + 1 < argc)
			x.identity = argv[++i];
		else if (!strcmp(argv[i], "--out") && i + 1 < argc)
			x.out = argv[++i];
		else if (argv[i][0] == '-') {
			fprintf(stderr, "nmx upstream-plan: unknown option %s\n", argv[i]);
			return EXIT_INFRA;
		} else if (nr_dirs == MAX_RUNS) {
			fprintf(stderr, "nmx upstream-plan: at most %d runs\n", MAX_RUNS);
			return EXIT_INFRA;
		} else {
			run_dirs[nr_dirs++] = argv[i];
		}
	}
	if (!x.tree || !x.out || !nr_dirs) {
		fprintf(stderr, "usage: nmx upstream-plan --tree T --identity \"Name <email>\" --out DIR RUN_DIR...\n");
		return EXIT_INFRA;
	}
	if (!x.identity || !*x.identity) {
		fprintf(stderr, "nmx upstream-plan: no identity: set git's user.name and user.email to yours; the patches are signed off by you\n");
		return EXIT_INFRA;
	}
	problem = identity_problem(x.identity);
	if (problem) {
		fprintf(stderr, "nmx upstream-plan: identity '%s' is %s: set git's user.name and user.email to yours\n",
			x.identity, problem);
		return EXIT_INFRA;
	}
	for (i = 0; i < nr_dirs; i++) {
		if (run_load(&x.runs[x.nr_runs], run_dirs[i])) {
			err = -1;
			break;
		}
		x.nr_runs++;
	}
	if (err || load_matrix(&m)) {
		free_runs(&x);
		return EXIT_INFRA;
	}
	t = matrix_tree(&m, x.tree);
	if (!t || !t->series) {
		fprintf(stderr, "nmx upstream-plan: no tree '%s' in %s\n", x.tree,
			matrix_path);
		matrix_free(&m);
		free_runs(&x);
		return EXIT_INFRA;
	}
	if (series_dir_of(matrix_path, t->series, series_dir, sizeof(series_dir))) {
		matrix_free(&m);
		free_runs(&x);
		return EXIT_INFRA;
	}
	snprintf(yaml, sizeof(yaml), "%s/upstream.yaml", series_dir);
	if (ydoc_load(&y, yaml)) {
		matrix_free(&m);
		free_runs(&x);
		return EXIT_INFRA;
	}
	root = ydoc_root(&y);
	topics = root ? ydoc_get(&y, root, "topics") : NULL;
	if (!topics || topics->type != YAML_MAPPING_NODE) {
		fprintf(stderr, "%s: needs a 'topics' mapping\n", yaml);
		err = -1;
	}
	if (!err && mkdirs(x.out)) {
		fprintf(stderr, "nmx: cannot create %s: %s\n", x.out, strerror(errno));
		err = -1;
	}
	snprintf(tsv, sizeof(tsv), "%s/topics.tsv", x.out);
	out = err ? NULL : fopen(tsv, "w");
	for (pair = err ? NULL : topics->data.mapping.pairs.start;
	     pair && pair < topics->data.mapping.pairs.top && !err; pair++) {
		const char *name = ydoc_str(yaml_document_get_node(&y.doc, pair->key));
		yaml_node_t *v = yaml_document_get_node(&y.doc, pair->value);
		char why[1024] = "";
		int r;

		if (!name || strchr(name, '/') || name[0] == '.') {
			fprintf(stderr, "%s:%d: a topic's name is a directory name\n",
				yaml, ydoc_line(v));
			err = -1;
			break;
		}
		r = plan_topic(&x, &y, name, v, series_dir, why, sizeof(why));
		if (r < 0) {
			err = -1;
		} else if (out) {
			fprintf(out, "%s\t%s\t%s\n", name,
				r ? "refused" : "planned", r ? why : "");
			printf("%s: %s%s%s\n", name, r ? "refused: " : "planned",
			       r ? why : "", "");
			refused |= r;
		}
	}
	if (out)
		fclose(out);
	ydoc_free(&y);
	matrix_free(&m);
	free_runs(&x);
	return err ? EXIT_INFRA : refused ? EXIT_FAIL : EXIT_PASS;
}

/*
 * get_maintainer.pl's lines ("Name <a@b> (maintainer:SECTION)", "list@x
 * (open list:...)") as To: the maintainers, Cc: everyone else.
 */
static void recipients(const char *text, FILE *to, FILE *cc)
{
	const char *line = text;

	while (*line) {
		const char *eol = strchr(line, '\n');
		size_t len = eol ? (size_t)(eol - line) : strlen(line);
		const char *paren, *q, *gt = NULL;
		size_t addr;

		/*
		 * The address ends at its last '>' ("Name <a@b>", the name
		 * may have parentheses), or at the first blank (a list);
		 * the role follows ("(maintainer:SECTION (X))").
		 */
		for (q = line; q < line + len; q++)
			if (*q == '>')
				gt = q;
		if (gt) {
			addr = gt + 1 - line;
		} else {
			for (addr = 0; addr < len && line[addr] != ' '; addr++)
				;
		}
		paren = memchr(line + addr, '(', len - addr);

		while (addr && line[addr - 1] == ' ')
			addr--;
		if (addr && memchr(line, '@', addr)) {
			int maint = paren && !strncmp(paren, "(maintainer", 11);

			fprintf(maint ? to : cc, "%.*s\n", (int)addr, line);
		}
		line = eol ? eol + 1 : line + len;
	}
}

/* A header of @lines (one address each) folded as git send-email reads it. */
static void put_header(FILE *f, const char *name, const char *lines)
{
	const char *p = lines;
	int first = 1;

	while (*p) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);

		fprintf(f, "%s%.*s", first ? name : ",\n    ", (int)len, p);
		first = 0;
		p = eol ? eol + 1 : p + len;
	}
	if (!first)
		fputc('\n', f);
}

int cmd_upstream_cover(int argc, char **argv)
{
	const char *cover = NULL, *body_path = NULL, *maint_path = NULL;
	char *text, *body, *maint, *to = NULL, *cc = NULL, *subj, *blurb, *p;
	size_t to_len = 0, cc_len = 0, body_line;
	FILE *f, *tf, *cf;
	int i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--cover") && i + 1 < argc)
			cover = argv[++i];
		else if (!strcmp(argv[i], "--body") && i + 1 < argc)
			body_path = argv[++i];
		else if (!strcmp(argv[i], "--maintainers") && i + 1 < argc)
			maint_path = argv[++i];
		else {
			fprintf(stderr, "usage: nmx upstream-cover --cover 0000-cover-letter.patch --body cover.txt --maintainers GET_MAINTAINER_OUTPUT\n");
			return EXIT_INFRA;
		}
	}
	if (!cover || !body_path || !maint_path) {
		fprintf(stderr, "usage: nmx upstream-cover --cover 0000-cover-letter.patch --body cover.txt --maintainers GET_MAINTAINER_OUTPUT\n");
		return EXIT_INFRA;
	}
	text = slurp(cover, NULL);
	body = slurp(body_path, NULL);
	maint = slurp(maint_path, NULL);
	subj = text ? strstr(text, "*** SUBJECT HERE ***") : NULL;
	blurb = text ? strstr(text, "*** BLURB HERE ***") : NULL;
	if (!text || !body || !maint || !subj || !blurb || blurb < subj) {
		fprintf(stderr, "nmx upstream-cover: %s is not git format-patch's cover letter (or %s, %s unreadable)\n",
			cover, body_path, maint_path);
		free(text);
		free(body);
		free(maint);
		return EXIT_INFRA;
	}
	tf = open_memstream(&to, &to_len);
	cf = open_memstream(&cc, &cc_len);
	recipients(maint, tf, cf);
	fclose(tf);
	fclose(cf);
	f = fopen(cover, "w");
	if (!f) {
		fprintf(stderr, "nmx upstream-cover: cannot write %s\n", cover);
		free(text);
		free(body);
		free(maint);
		free(to);
		free(cc);
		return EXIT_INFRA;
	}
	body_line = strcspn(body, "\n");
	/* The headers up to the subject, To/Cc among them. */
	p = strstr(text, "\nSubject: ");
	fwrite(text, 1, p ? (size_t)(p - text) + 1 : 0, f);
	put_header(f, "To: ", to);
	put_header(f, "Cc: ", cc);
	fwrite(p ? p + 1 : text, 1, subj - (p ? p + 1 : text), f);
	fprintf(f, "%.*s", (int)body_line, body);
	p = subj + strlen("*** SUBJECT HERE ***");
	fwrite(p, 1, blurb - p, f);
	p = body + body_line;
	while (*p == '\n')
		p++;
	fputs(p, f);
	fputs("\nRecipients: from this tree's scripts/get_maintainer.pl.\n", f);
	fputs(blurb + strlen("*** BLURB HERE ***"), f);
	fclose(f);
	free(text);
	free(body);
	free(maint);
	free(to);
	free(cc);
	return EXIT_PASS;
}
