// SPDX-License-Identifier: GPL-2.0
/*
 * nmx's commands about the matrix and its cells: cells, plan, trees, env,
 * deps, guest-header. What a run covers and what each cell is, from
 * matrix.yaml and arches/, for the scripts and the guest.
 */
#include <dirent.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "facts.h"
#include "matrix.h"
#include "plan.h"

/* ---- cells ------------------------------------------------------------ */

/*
 * The cell-variants of one selection, added to @out as "TREE VARIANT CELL"
 * (once each). Empty lists mean the default run's; @all_cells: every cell
 * under arches/. A variant is run in the trees that have it; one that no
 * selected tree has is an error, as is a tree and a variant both named
 * that do not go together. A cell whose guest cannot build on a tree
 * (guest.min_kernel) is an error when both were named, else left out.
 */
static int select_cells(struct matrix *m, const struct strlist *trees_named,
			const struct strlist *variants_named,
			const struct strlist *cells_named, int all_cells,
			struct strlist *out)
{
	const int tree_named = trees_named->n > 0;
	const int variant_named = variants_named->n > 0;
	const int cell_named = cells_named->n > 0 && !all_cells;
	const struct strlist *trees = tree_named ? trees_named : &m->run_trees;
	const struct strlist *variants = variant_named ? variants_named :
						 &m->run_variants;
	const struct strlist *cells = cell_named ? cells_named : &m->run_cells;
	struct strlist names = { 0 };
	struct cell *c;
	size_t i, j, k;
	int err = 0;

	if (all_cells) {
		if (cell_names(arches_dir, &names))
			return -1;
		cells = &names;
	}

	c = calloc(cells->n + 1, sizeof(*c));
	for (k = 0; k < cells->n; k++)
		if (cell_load(&c[k], arches_dir, cells->v[k]))
			err = -1;
	for (i = 0; i < trees->n && !err; i++) {
		struct tree *t = matrix_tree(m, trees->v[i]);

		if (!t) {
			fprintf(stderr, "nmx: unknown tree '%s'\n", trees->v[i]);
			err = -1;
			break;
		}
		for (j = 0; j < variants->n; j++)
			if (variant_named && tree_named &&
			    !tree_variant(t, variants->v[j])) {
				fprintf(stderr, "nmx: tree %s has no variant '%s'\n",
					t->name, variants->v[j]);
				err = -1;
			}
		for (k = 0; k < cells->n; k++)
			if (tree_named && cell_named &&
			    !cell_runs_on(&c[k], t->version)) {
				fprintf(stderr, "nmx: cell %s builds on kernels %s to %s (guest.min_kernel, guest.max_kernel in its arch file); tree %s is %s\n",
					c[k].name,
					c[k].min_kernel ? c[k].min_kernel : "any",
					c[k].max_kernel ? c[k].max_kernel : "any",
					t->name, t->version);
				err = -1;
			}
	}
	for (j = 0; variant_named && j < variants->n && !err; j++) {
		for (i = 0; i < trees->n; i++)
			if (tree_variant(matrix_tree(m, trees->v[i]),
					 variants->v[j]))
				break;
		if (i == trees->n) {
			fprintf(stderr, "nmx: no tree selected has variant '%s'\n",
				variants->v[j]);
			err = -1;
		}
	}
	for (i = 0; i < trees->n && !err; i++) {
		struct tree *t = matrix_tree(m, trees->v[i]);

		for (j = 0; j < variants->n; j++) {
			if (!tree_variant(t, variants->v[j]))
				continue;
			for (k = 0; k < cells->n; k++) {
				char line[512];

				if (!cell_runs_on(&c[k], t->version))
					continue;
				snprintf(line, sizeof(line), "%s %s %s", t->name,
					 variants->v[j], cells->v[k]);
				strlist_add_once(out, line);
			}
		}
	}
	for (k = 0; k < cells->n; k++)
		cell_free(&c[k]);
	free(c);
	strlist_free(&names);
	return err;
}

/*
 * The cell-variants of the selection in @argv (--tree, --variant, --cell,
 * --set NAME, --e2e; none: the default run), as "TREE VARIANT CELL" lines
 * into @out; @alone, when not NULL, takes --alone.
 */
static int run_selection(int argc, char **argv, struct matrix *m,
			 struct strlist *out, int *alone)
{
	struct strlist trees = { 0 }, variants = { 0 }, cells = { 0 };
	static const struct option opts[] = {
		{ "tree", required_argument, 0, 't' },
		{ "variant", required_argument, 0, 'v' },
		{ "cell", required_argument, 0, 'c' },
		{ "set", required_argument, 0, 's' },
		{ "e2e", no_argument, 0, 'e' },
		{ "alone", no_argument, 0, 'a' },
		{ 0 }
	};
	const char *set_name = NULL;
	struct cell_set *set;
	size_t i;
	int opt, err = 0;

	while (!err && (opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't': strlist_add(&trees, optarg); break;
		case 'v': strlist_add(&variants, optarg); break;
		case 'c': strlist_add(&cells, optarg); break;
		case 's': set_name = optarg; break;
		case 'e': set_name = "e2e"; break;
		case 'a':
			if (alone) {
				*alone = 1;
				break;
			}
			fprintf(stderr, "nmx: --alone: only nmx cells takes it\n");
			err = -1;
			break;
		default: err = -1; break;
		}
	}
	if (err || optind < argc) {
		if (optind < argc)
			fprintf(stderr, "nmx: '%s': not an option of a selection\n", argv[optind]);
		err = -1;
	} else if (!set_name) {
		err = select_cells(m, &trees, &variants, &cells, 0, out);
	} else if (trees.n || variants.n || cells.n) {
		fprintf(stderr, "nmx: --set %s chooses trees, variants and cells itself: name none of them\n",
			set_name);
		err = -1;
	} else if (!(set = matrix_set(m, set_name))) {
		fprintf(stderr, "nmx: no set '%s' in matrix.yaml; its sets:", set_name);
		for (i = 0; i < m->nr_sets; i++)
			fprintf(stderr, " %s", m->sets[i].name);
		fprintf(stderr, "\n");
		err = -1;
	} else {
		for (i = 0; i < set->nr_groups && !err; i++)
			err = select_cells(m, &set->groups[i].trees,
					   &set->groups[i].variants,
					   &set->groups[i].cells,
					   set->groups[i].all_cells, out);
	}
	strlist_free(&trees);
	strlist_free(&variants);
	strlist_free(&cells);
	return err;
}

int cmd_cells(int argc, char **argv)
{
	struct strlist out = { 0 };
	struct matrix m;
	size_t i;
	int opt, err = 0, alone = 0;

	if (load_matrix(&m))
		return EXIT_INFRA;
	err = run_selection(argc, argv, &m, &out, &alone);
	for (i = 0; !err && i < out.n; i++) {
		struct cell c;

		/* --alone: only the cells no other guest may boot beside. */
		if (alone) {
			if (cell_load(&c, arches_dir, strrchr(out.v[i], ' ') + 1)) {
				err = -1;
				break;
			}
			opt = c.boot_alone;
			cell_free(&c);
			if (!opt)
				continue;
		}
		printf("%s\n", out.v[i]);
	}
	matrix_free(&m);
	strlist_free(&out);
	return err ? EXIT_INFRA : EXIT_PASS;
}

/* ---- plan ------------------------------------------------------------- */

int cmd_plan(int argc, char **argv)
{
	struct matrix m;
	int ret;

	if (argc != 2 || strcmp(argv[1], "gitlab")) {
		fprintf(stderr, "usage: nmx plan gitlab\n");
		return EXIT_INFRA;
	}
	if (load_matrix(&m))
		return EXIT_INFRA;
	ret = plan_gitlab(&m, stdout) || fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
	matrix_free(&m);
	return ret;
}

/* ---- trees, env ------------------------------------------------------- */

int cmd_trees(int argc, char **argv)
{
	struct matrix m;
	const struct tree *newest;
	size_t i;

	if (argc > 2 || (argc == 2 && strcmp(argv[1], "--newest"))) {
		fprintf(stderr, "usage: nmx trees [--newest]\n");
		return EXIT_INFRA;
	}
	if (load_matrix(&m))
		return EXIT_INFRA;
	if (argc == 2) {
		/*
		 * What a mainline patch applies to: --patches' default.
		 * Nothing when no tree names its version.
		 */
		newest = matrix_newest_tree(&m);
		if (newest)
			printf("%s\n", newest->name);
		matrix_free(&m);
		return EXIT_PASS;
	}
	for (i = 0; i < m.nr_trees; i++) {
		const struct tree *t = &m.trees[i];

		printf("%s %s %s\n", t->name, t->series,
		       t->package ? t->package : t->source);
		/* Said once per run (matrix.sh), where the user looks. */
		if (t->series_of)
			fprintf(stderr, "nmx: %s is Linux %s: the series of %s (%s), %s\n",
				t->source, t->version, t->series_of, t->series,
				t->series_why);
	}
	matrix_free(&m);
	return EXIT_PASS;
}

/* ---- describe --------------------------------------------------------- */

int describe_cell(FILE *f, const char *tree, const char *variant,
		  const char *cell)
{
	struct cell_facts facts;
	int err;

	if (facts_resolve(&facts, tree, variant, cell))
		return -1;
	err = facts_write(f, &facts);
	facts_free(&facts);
	return err;
}

int cmd_describe(int argc, char **argv)
{
	struct selection s;

	if (parse_selection(argc, argv, "tree variant cell", &s))
		return EXIT_INFRA;
	if (!s.tree || !s.variant) {
		fprintf(stderr, "nmx describe: --tree and --variant are required\n");
		return EXIT_INFRA;
	}
	return describe_cell(stdout, s.tree, s.variant, s.cell) ? EXIT_INFRA : EXIT_PASS;
}

/* ---- deps ------------------------------------------------------------- */

/* "SUITE PACKAGE" into @l, once. */
static void suite_package(struct strlist *l, const char *suite,
			  const char *package)
{
	char line[256];

	snprintf(line, sizeof(line), "%s %s", suite, package);
	strlist_add_once(l, line);
}

/*
 * What the trees and cells of a run need from Debian (--run and the
 * options of nmx cells, none being the default run; without --run, every
 * tree of matrix.yaml and every cell under arches/), for install-deps.sh:
 * "package NAME" lines (each once; a tree's source package of this
 * machine's release among them), "suite-package
 * SUITE NAME" lines (a tree's source package from another suite, or a
 * qemu.suite cell's QEMU and its firmware: downloaded into the cache,
 * never installed) and "busybox-arch ARCH" lines (the architectures
 * whose busybox-static the guests take).
 */
int cmd_deps(int argc, char **argv)
{
	struct strlist trees = { 0 }, names = { 0 }, packages = { 0 };
	struct strlist archs = { 0 }, suite_packages = { 0 }, sel = { 0 };
	struct matrix m;
	size_t i, k;
	int err = 0;

	if (load_matrix(&m))
		return EXIT_INFRA;
	if (argc > 1) {
		if (strcmp(argv[1], "--run"))
			fprintf(stderr, "usage: nmx deps [--run [SELECTION]]\n");
		/* argv[1] is --run: getopt takes it for the program's name. */
		if (strcmp(argv[1], "--run") ||
		    run_selection(argc - 1, argv + 1, &m, &sel, NULL)) {
			matrix_free(&m);
			return EXIT_INFRA;
		}
		for (i = 0; i < sel.n; i++) {
			char tree[128], variant[64], cell[64];

			if (sscanf(sel.v[i], "%127s %63s %63s", tree, variant, cell) != 3)
				continue;
			strlist_add_once(&trees, tree);
			strlist_add_once(&names, cell);
		}
		strlist_free(&sel);
	} else {
		for (i = 0; i < m.nr_trees; i++)
			strlist_add_once(&trees, m.trees[i].name);
		if (cell_names(arches_dir, &names)) {
			matrix_free(&m);
			strlist_free(&trees);
			return EXIT_INFRA;
		}
	}
	for (i = 0; i < trees.n; i++) {
		const struct tree *t = matrix_tree(&m, trees.v[i]);

		if (!t || !t->package)
			continue;
		if (t->suite)
			suite_package(&suite_packages, t->suite, t->package);
		else
			strlist_add_once(&packages, t->package);
	}
	matrix_free(&m);
	for (i = 0; i < names.n && !err; i++) {
		struct cell c;

		if (cell_load(&c, arches_dir, names.v[i])) {
			err = -1;
			break;
		}
		for (k = 0; k < c.packages.n; k++)
			strlist_add_once(&packages, c.packages.v[k]);
		if (c.busybox)
			strlist_add_once(&archs, c.busybox);
		if (c.qemu_suite) {
			suite_package(&suite_packages, c.qemu_suite,
				      c.qemu_package);
			suite_package(&suite_packages, c.qemu_suite,
				      c.qemu_data_package);
		}
		cell_free(&c);
	}
	for (i = 0; !err && i < suite_packages.n; i++)
		printf("suite-package %s\n", suite_packages.v[i]);
	for (i = 0; !err && i < packages.n; i++)
		printf("package %s\n", packages.v[i]);
	for (i = 0; !err && i < archs.n; i++)
		printf("busybox-arch %s\n", archs.v[i]);
	strlist_free(&trees);
	strlist_free(&names);
	strlist_free(&packages);
	strlist_free(&archs);
	strlist_free(&suite_packages);
	return err || fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
}

/* ---- missing-tools ---------------------------------------------------- */

/* Is @tool a command this process can run (as the shell's command -v)? */
static int on_path(const char *tool)
{
	const char *path = getenv("PATH"), *p, *end;
	char file[4096];

	if (strchr(tool, '/'))
		return !access(tool, X_OK);
	for (p = path ? path : ""; ; p = end + 1) {
		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		snprintf(file, sizeof(file), "%.*s/%s", (int)(end - p),
			 end == p ? "." : p, tool);
		if (!access(file, X_OK))
			return 1;
		if (!*end)
			return 0;
	}
}

/*
 * "TOOL (Debian package P), ..." for the tools not on PATH, exit 1; none
 * missing: nothing, exit 0.
 */
int cmd_missing_tools(int argc, char **argv)
{
	char package[128];
	int i, missing = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: nmx missing-tools TOOL...\n");
		return EXIT_INFRA;
	}
	for (i = 1; i < argc; i++) {
		if (on_path(argv[i]))
			continue;
		printf("%s%s (Debian package %s)", missing++ ? ", " : "",
		       argv[i], tool_package(argv[i], package, sizeof(package)));
	}
	if (missing)
		printf("\n");
	return missing ? EXIT_FAIL : EXIT_PASS;
}

/* ---- guest-header ----------------------------------------------------- */

/* A C string literal of @s (cell data is checked, but quote anyway). */
static void c_string(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
	putchar('"');
}

/*
 * The tree's own ftracetest cases the guest runs: every function-graph
 * and function-filter case (test.d/ftrace/fgraph-*.tc, func-filter-*.tc),
 * in name order, so that each tree is judged by the cases it has.
 */
#define FTRACETEST_CASES_MAX 64

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int is_peer_case(const char *name)
{
	static const char *const prefixes[] = { "fgraph-", "func-filter-", 0 };
	size_t n = strlen(name), i;

	if (n < 4 || strcmp(name + n - 3, ".tc"))
		return 0;
	for (i = 0; i < n - 3; i++)
		if (!((name[i] >= 'a' && name[i] <= 'z') ||
		      (name[i] >= '0' && name[i] <= '9') || name[i] == '-' ||
		      name[i] == '_'))
			return 0;
	for (i = 0; prefixes[i]; i++)
		if (!strncmp(name, prefixes[i], strlen(prefixes[i])))
			return 1;
	return 0;
}

struct ftracetest_cases {
	char *name[FTRACETEST_CASES_MAX];
	int nr;
};

static void ftracetest_cases_free(struct ftracetest_cases *fc)
{
	while (fc->nr)
		free(fc->name[--fc->nr]);
}

static int ftracetest_cases_load(struct ftracetest_cases *fc, const char *src)
{
	char dir[4096];
	struct dirent *d;
	int err = 0;
	DIR *dp;

	fc->nr = 0;
	snprintf(dir, sizeof(dir), "%s/tools/testing/selftests/ftrace/test.d/ftrace",
		 src);
	dp = opendir(dir);
	if (!dp) {
		fprintf(stderr, "nmx: guest-header: %s: no ftracetest cases there\n",
			dir);
		return -1;
	}
	while (!err && (d = readdir(dp))) {
		if (!is_peer_case(d->d_name))
			continue;
		if (fc->nr == FTRACETEST_CASES_MAX) {
			fprintf(stderr, "nmx: guest-header: %s: more than %d cases\n",
				dir, FTRACETEST_CASES_MAX);
			err = -1;
		} else if (!(fc->name[fc->nr] = strndup(d->d_name,
						       strlen(d->d_name) - 3))) {
			err = -1;
		} else {
			fc->nr++;
		}
	}
	closedir(dp);
	if (!err && !fc->nr) {
		fprintf(stderr, "nmx: guest-header: %s: no fgraph-*.tc or func-filter-*.tc\n",
			dir);
		err = -1;
	}
	if (err)
		ftracetest_cases_free(fc);
	else
		qsort(fc->name, fc->nr, sizeof(fc->name[0]), by_name);
	return err;
}

/*
 * Every fact of arches/<cell>.yaml the guest uses, as one header: the
 * guest is built with -include of it, so a new fact is a line here and
 * its use in guest/, nothing in between.
 */
int cmd_guest_header(int argc, char **argv)
{
	struct selection s;
	struct ftracetest_cases fc = { .nr = 0 };
	struct cell_facts f;
	const struct cell *c = &f.cell;
	const char *root;
	int i;

	if (parse_selection(argc, argv, "tree src cell described", &s))
		return EXIT_INFRA;
	/* --tree: the fault root may differ between kernel versions. */
	if (selection_facts(&s, &f))
		return EXIT_INFRA;
	root = cell_fault_root(c, f.tree_version);
	/* --src: the tree's own ftracetest cases, read before any output. */
	if (!root || (s.src && ftracetest_cases_load(&fc, s.src))) {
		facts_free(&f);
		return EXIT_INFRA;
	}
	printf("/* Generated by nmx guest-header from arches/%s.yaml: do not edit. */\n",
	       c->name);
	printf("#define NMX_CELL ");
	c_string(c->name);
	printf("\n#define NMX_UNAME_MACHINE ");
	c_string(c->uname_machine);
	printf("\n#define NMX_BIG_ENDIAN %d\n", c->big_endian);
	printf("#define NMX_FAULT_ROOT ");
	c_string(root);
	printf("\n#define NMX_TRIGGER_READ_ZERO %d\n",
	       !strcmp(c->fault_trigger, "read-zero"));
	printf("#define NMX_POWEROFF_BY_RESTART %d\n", c->poweroff_by_restart);
	printf("#define NMX_BL_SWITCHER %d\n", c->bl_switcher);
	/* ftracetest needs a shell: Debian's busybox-static for the cell. */
	printf("#define NMX_FTRACETEST %d\n", c->busybox != NULL);
	facts_free(&f);
	if (fc.nr) {
		printf("#define NMX_FTRACETEST_CASES");
		for (i = 0; i < fc.nr; i++) {
			printf(i ? ", " : " ");
			c_string(fc.name[i]);
		}
		printf("\n");
	}
	ftracetest_cases_free(&fc);
	return fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
}
