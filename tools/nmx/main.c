// SPDX-License-Identifier: GPL-2.0
/*
 * nmx: the host-side logic of notrace-matrix. build.sh and boot.sh are thin
 * glue around these subcommands; each reads files and writes files, so
 * each can be run and tested alone.
 */
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "commands.h"
#include "console.h"
#include "lava.h"
#include "matrix.h"
#include "plan.h"
#include "report.h"

#define DEFAULT_MATRIX "matrix.yaml"
#define DEFAULT_ARCHES "arches"


static const char *matrix_path = DEFAULT_MATRIX;
static const char *arches_dir = DEFAULT_ARCHES;
/* -p: a maintainer's patches, run as variant "patched" on top of upstream. */
static const char *patches_dir;
/* -l: a maintainer's kernel checkout, run as tree "local"; -s: whose series. */
static const char *local_dir, *local_series;

#define PATCHED_VARIANT "patched"
#define PATCHED_BASE "upstream"
#define LOCAL_TREE "local"

/* matrix.yaml, with the tree -l and the variant -p add. */
static int load_matrix(struct matrix *m)
{
	if (matrix_load(m, matrix_path, arches_dir))
		return -1;
	if (local_dir &&
	    matrix_add_local_tree(m, LOCAL_TREE, local_dir, local_series)) {
		matrix_free(m);
		return -1;
	}
	if (patches_dir &&
	    matrix_add_variant(m, PATCHED_VARIANT, PATCHED_BASE, patches_dir)) {
		matrix_free(m);
		return -1;
	}
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: nmx [-m matrix.yaml] [-a arches-dir] [-p patches-dir]\n"
"           [-l kernel-dir [-s series-tree]] COMMAND [ARGS]\n"
"\n"
"  -p DIR: every tree with an 'upstream' variant gets a variant 'patched':\n"
"        upstream with the patches DIR/series names on top\n"
"  -l DIR: a tree 'local' built from the kernel checkout DIR, with the series\n"
"        of the tree whose version DIR's Makefile has (or of -s TREE)\n"
"\n"
"  cells [--tree T] [--variant V] [--cell C]... | --set NAME | --e2e\n"
"        list 'tree variant cell' lines a run covers (default: matrix.yaml run;\n"
"        --set NAME: the set of that name in matrix.yaml sets; --e2e: --set e2e,\n"
"        the end-to-end test's). A cell is left out of trees older than its\n"
"        guest.min_kernel (an error if both were named)\n"
"  trees\n"
"        list 'tree series-directory package' lines, one per tree (for -l: its directory)\n"
"  env --tree T --variant V --cell C\n"
"        shell assignments (NMX_*) describing one cell, for build.sh/boot.sh\n"
"  fragment --cell C [--tree T] --common FILE -o OUT\n"
"        write the requested kconfig: common, then cell (with the kconfig_since\n"
"        symbols tree T's version takes; needed if the cell has some), then\n"
"        matrix extras\n"
"  config-check REQUESTED DOTCONFIG\n"
"        fail (exit 1) naming each requested symbol that did not survive\n"
"  qemu-cmd --cell C --kernel K --initrd I [--dtb D] [--accel A] --log L\n"
"        print the QEMU command line, NUL-separated (--probe instead of\n"
"        --initrd: the accelerator probe's, booting to the no-init panic;\n"
"        --uboot-dtb DTB: through the cell's U-Boot, K and I being the uImage and\n"
"        ramdisk image; --dump-dtb F: QEMU writes the board's device tree to F)\n"
"  uboot-bootcmd --cell C\n"
"        U-Boot's boot command for the cell (its control device tree's /config/bootcmd)\n"
"  lava-job --tree T --variant V --cell C --kernel K --initrd I [--dtb D]\n"
"           [--accel A] [--timeout SECS] -o DIR\n"
"        write DIR/device.yaml and DIR/job.yaml: the cell's boot for lava-run\n"
"        (absolute paths; the job deploys them as file:// URLs)\n"
"  lava-log LAVA_RUN_LOG\n"
"        the console lines of a lava-run log, as the boot.log nmx judge reads\n"
"  deps\n"
"        the Debian packages and busybox architectures every cell of arches/ needs\n"
"  guest-header [--tree T] --cell C\n"
"        the cell's facts as the C header the guest is built with\n"
"  judge --log BOOT_LOG --out DIR [--timed-out] [--findings FINDINGS.md --cell C --variant V]\n"
"        decide from the console log; write DIR/verdict.json and the traces\n"
"  result --cell-dir DIR\n"
"        merge DIR/stages.tsv, meta.tsv, reproduce.sh, verdict.json into result.json\n"
"  summary RUN_DIR\n"
"        write RUN_DIR/summary.txt; exit 0 all pass, 1 failures, 2 infrastructure\n"
"  report [--baseline EARLIER_RUN_DIR] RUN_DIR\n"
"        write RUN_DIR/report.html, report.md, junit.xml and kcidb.json\n"
"  compare [-b BEFORE_VARIANT -a AFTER_VARIANT] BEFORE_RUN_DIR AFTER_RUN_DIR\n"
"        per architecture: fixed, regressed, trace shape changed; exit 1 on a regression\n"
"  plan gitlab\n"
"        the default run as a GitLab CI pipeline: a shard job per tree and cell, then the merge\n"
"  merge --plan PLAN.tsv --out RUN_DIR SHARD_RUN_DIR...\n"
"        one run from shards (matrix.sh --shard): their cells, the planned cells\n"
"        none reported as missing; then summary and reports; exits as summary\n");
}

static void sh_quote(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputs("'\\''", f);
		else
			fputc(*s, f);
	}
	fputc('\'', f);
}

static void sh_var(const char *name, const char *value)
{
	printf("%s=", name);
	sh_quote(stdout, value ? value : "");
	putchar('\n');
}

static void sh_array(const char *name, const struct strlist *l)
{
	size_t i;

	printf("%s=(", name);
	for (i = 0; i < l->n; i++) {
		putchar(' ');
		sh_quote(stdout, l->v[i]);
	}
	printf(" )\n");
}

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
				fprintf(stderr, "nmx: cell %s needs kernel %s or later (guest.min_kernel in its arch file); tree %s is %s\n",
					c[k].name, c[k].min_kernel, t->name, t->version);
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
				if (!strlist_has(out, line))
					strlist_add(out, line);
			}
		}
	}
	for (k = 0; k < cells->n; k++)
		cell_free(&c[k]);
	free(c);
	strlist_free(&names);
	return err;
}

static int cmd_cells(int argc, char **argv)
{
	struct strlist trees = { 0 }, variants = { 0 }, cells = { 0 };
	struct strlist out = { 0 };
	static const struct option opts[] = {
		{ "tree", required_argument, 0, 't' },
		{ "variant", required_argument, 0, 'v' },
		{ "cell", required_argument, 0, 'c' },
		{ "set", required_argument, 0, 's' },
		{ "e2e", no_argument, 0, 'e' },
		{ 0 }
	};
	const char *set_name = NULL;
	struct cell_set *set;
	struct matrix m;
	size_t i;
	int opt, err = 0;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 't': strlist_add(&trees, optarg); break;
		case 'v': strlist_add(&variants, optarg); break;
		case 'c': strlist_add(&cells, optarg); break;
		case 's': set_name = optarg; break;
		case 'e': set_name = "e2e"; break;
		default: return EXIT_INFRA;
		}
	}
	if (load_matrix(&m))
		return EXIT_INFRA;
	if (!set_name) {
		err = select_cells(&m, &trees, &variants, &cells, 0, &out);
	} else if (trees.n || variants.n || cells.n) {
		fprintf(stderr, "nmx: --set %s chooses trees, variants and cells itself: name none of them\n",
			set_name);
		err = -1;
	} else if (!(set = matrix_set(&m, set_name))) {
		fprintf(stderr, "nmx: no set '%s' in matrix.yaml; its sets:", set_name);
		for (i = 0; i < m.nr_sets; i++)
			fprintf(stderr, " %s", m.sets[i].name);
		fprintf(stderr, "\n");
		err = -1;
	} else {
		for (i = 0; i < set->nr_groups && !err; i++)
			err = select_cells(&m, &set->groups[i].trees,
					   &set->groups[i].variants,
					   &set->groups[i].cells,
					   set->groups[i].all_cells, &out);
	}
	for (i = 0; !err && i < out.n; i++)
		printf("%s\n", out.v[i]);
	matrix_free(&m);
	strlist_free(&trees);
	strlist_free(&variants);
	strlist_free(&cells);
	strlist_free(&out);
	return err ? EXIT_INFRA : EXIT_PASS;
}

/* ---- plan ------------------------------------------------------------- */

static int cmd_plan(int argc, char **argv)
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

/* ---- env -------------------------------------------------------------- */

struct selection {
	const char *tree, *variant, *cell, *common, *out;
	const char *kernel, *initrd, *dtb, *accel, *log;
	int probe;
	unsigned int timeout;
	const char *uboot_dtb, *dump_dtb;
};

static int parse_selection(int argc, char **argv, struct selection *s)
{
	char *end;
	static const struct option opts[] = {
		{ "tree", required_argument, 0, 't' },
		{ "variant", required_argument, 0, 'v' },
		{ "cell", required_argument, 0, 'c' },
		{ "common", required_argument, 0, 'C' },
		{ "kernel", required_argument, 0, 'k' },
		{ "initrd", required_argument, 0, 'i' },
		{ "dtb", required_argument, 0, 'd' },
		{ "accel", required_argument, 0, 'A' },
		{ "log", required_argument, 0, 'l' },
		{ "probe", no_argument, 0, 'P' },
		{ "timeout", required_argument, 0, 'T' },
		{ "uboot-dtb", required_argument, 0, 'U' },
		{ "dump-dtb", required_argument, 0, 'D' },
		{ 0 }
	};
	int opt;

	memset(s, 0, sizeof(*s));
	while ((opt = getopt_long(argc, argv, "o:", opts, NULL)) != -1) {
		switch (opt) {
		case 't': s->tree = optarg; break;
		case 'v': s->variant = optarg; break;
		case 'c': s->cell = optarg; break;
		case 'C': s->common = optarg; break;
		case 'o': s->out = optarg; break;
		case 'k': s->kernel = optarg; break;
		case 'i': s->initrd = optarg; break;
		case 'd': s->dtb = optarg; break;
		case 'A': s->accel = optarg; break;
		case 'l': s->log = optarg; break;
		case 'P': s->probe = 1; break;
		case 'U': s->uboot_dtb = optarg; break;
		case 'D': s->dump_dtb = optarg; break;
		case 'T':
			s->timeout = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !s->timeout || s->timeout > 86400) {
				fprintf(stderr, "nmx: --timeout wants seconds (1-86400), not '%s'\n",
					optarg);
				return -1;
			}
			break;
		default: return -1;
		}
	}
	if (!s->cell) {
		fprintf(stderr, "nmx: --cell is required\n");
		return -1;
	}
	return 0;
}

static int cmd_trees(int argc, char **argv)
{
	struct matrix m;
	size_t i;

	if (argc > 1) {
		usage(stderr);
		return EXIT_INFRA;
	}
	if (load_matrix(&m))
		return EXIT_INFRA;
	for (i = 0; i < m.nr_trees; i++)
		printf("%s %s %s\n", m.trees[i].name, m.trees[i].series,
		       m.trees[i].package ? m.trees[i].package :
		       m.trees[i].source);
	matrix_free(&m);
	return EXIT_PASS;
}

static int cmd_env(int argc, char **argv)
{
	struct selection s;
	struct matrix m;
	struct tree *t;
	struct variant *v;
	struct cell c;
	char buf[64];
	int ret = EXIT_INFRA;

	if (parse_selection(argc, argv, &s))
		return EXIT_INFRA;
	if (!s.tree || !s.variant) {
		fprintf(stderr, "nmx env: --tree and --variant are required\n");
		return EXIT_INFRA;
	}
	if (load_matrix(&m))
		return EXIT_INFRA;
	if (cell_load(&c, arches_dir, s.cell))
		goto free_matrix;
	t = matrix_tree(&m, s.tree);
	v = t ? tree_variant(t, s.variant) : NULL;
	if (!v) {
		fprintf(stderr, "nmx: unknown tree/variant %s/%s\n", s.tree,
			s.variant);
		goto free_cell;
	}
	sh_var("NMX_TREE", t->name);
	sh_var("NMX_TREE_PACKAGE", t->package);
	sh_var("NMX_TREE_TARBALL", t->tarball);
	sh_var("NMX_TREE_SOURCE", t->source);
	sh_var("NMX_TREE_VERSION", t->version);
	sh_var("NMX_SERIES_DIR", t->series);
	sh_var("NMX_VARIANT", v->name);
	sh_array("NMX_SKIP_PATCHES", &v->skip_patches);
	sh_var("NMX_EXTRA_SERIES_DIR", v->extra_series);
	sh_var("NMX_FINDINGS_VARIANT",
	       v->findings_variant ? v->findings_variant : v->name);
	sh_var("NMX_CELL", c.name);
	sh_var("NMX_DESCRIPTION", c.description);
	sh_var("NMX_ARCH", c.arch);
	sh_var("NMX_CROSS_COMPILE", c.cross_compile);
	sh_array("NMX_MAKE_TARGETS", &c.make_targets);
	sh_var("NMX_KERNEL_IMAGE", c.kernel_image);
	sh_var("NMX_UIMAGE_LOAD", c.uimage_load);
	sh_var("NMX_DTB", c.dtb);
	sh_var("NMX_QEMU_BINARY", c.qemu_binary);
	sh_var("NMX_UBOOT_FIRMWARE", c.uboot_firmware);
	sh_var("NMX_UBOOT_KERNEL_LOAD", c.uboot_kernel_load);
	sh_array("NMX_GUEST_CFLAGS", &c.guest_cflags);
	sh_var("NMX_BUSYBOX", c.busybox);
	snprintf(buf, sizeof(buf), "%d", m.boot_timeout);
	sh_var("NMX_BOOT_TIMEOUT", buf);
	ret = EXIT_PASS;
free_cell:
	cell_free(&c);
free_matrix:
	matrix_free(&m);
	return ret;
}

/* ---- fragment --------------------------------------------------------- */

static int copy_fragment(FILE *out, const char *path)
{
	char line[1024];
	FILE *in = fopen(path, "r");

	if (!in) {
		fprintf(stderr, "nmx: cannot read %s: %m\n", path);
		return -1;
	}
	fprintf(out, "\n# ---- %s\n", path);
	while (fgets(line, sizeof(line), in))
		fputs(line, out);
	fclose(in);
	return 0;
}

static int cmd_fragment(int argc, char **argv)
{
	struct tree *t = NULL;
	struct selection s;
	struct matrix m;
	struct cell c;
	size_t i;
	FILE *out;
	int ret = EXIT_INFRA;

	if (parse_selection(argc, argv, &s))
		return EXIT_INFRA;
	if (!s.common || !s.out) {
		fprintf(stderr, "nmx fragment: --common and -o are required\n");
		return EXIT_INFRA;
	}
	if (load_matrix(&m))
		return EXIT_INFRA;
	if (cell_load(&c, arches_dir, s.cell))
		goto free_matrix;
	if (s.tree && !(t = matrix_tree(&m, s.tree))) {
		fprintf(stderr, "nmx: unknown tree '%s'\n", s.tree);
		goto free_cell;
	}
	if (c.kconfig_since.n && !t) {
		fprintf(stderr, "nmx fragment: cell %s asks for symbols by kernel version (kconfig_since): give --tree\n",
			c.name);
		goto free_cell;
	}
	out = fopen(s.out, "w");
	if (!out) {
		fprintf(stderr, "nmx: cannot write %s: %m\n", s.out);
		goto free_cell;
	}
	fprintf(out, "# Requested kconfig for cell %s, in merge order:\n"
		"# common fragment, the cell's fragment, matrix.yaml extras.\n",
		c.name);
	if (copy_fragment(out, s.common))
		goto close_out;
	fprintf(out, "\n# ---- %s/%s.yaml (kconfig)\n", arches_dir, c.name);
	for (i = 0; i < c.kconfig.n; i++)
		fprintf(out, "%s\n", c.kconfig.v[i]);
	for (i = 0; i < c.kconfig_since.n; i++)
		if (version_at_least(t->version, c.kconfig_since_versions.v[i]))
			fprintf(out, "# kconfig_since %s, tree %s is %s\n%s\n",
				c.kconfig_since_versions.v[i], t->name,
				t->version, c.kconfig_since.v[i]);
	fprintf(out, "\n# ---- %s (run.kconfig)\n", matrix_path);
	for (i = 0; i < m.kconfig.n; i++)
		fprintf(out, "%s\n", m.kconfig.v[i]);
	ret = EXIT_PASS;
close_out:
	if (fclose(out))
		ret = EXIT_INFRA;
free_cell:
	cell_free(&c);
free_matrix:
	matrix_free(&m);
	return ret;
}

/* ---- config-check ----------------------------------------------------- */

struct kv {
	char *key, *value;
};

struct kvlist {
	struct kv *v;
	size_t n;
};

static void kv_set(struct kvlist *l, const char *key, const char *value)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key)) {
			free(l->v[i].value);
			l->v[i].value = strdup(value);
			return;
		}
	l->v = realloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n].key = strdup(key);
	l->v[l->n].value = strdup(value);
	l->n++;
}

static const char *kv_get(const struct kvlist *l, const char *key)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return l->v[i].value;
	return NULL;
}

static void kv_free(struct kvlist *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
}

/* Read CONFIG_X=v and "# CONFIG_X is not set" (as X=n); later wins. */
static int read_kconfig(const char *path, struct kvlist *l)
{
	char line[4096];
	FILE *f = fopen(path, "r");

	if (!f) {
		fprintf(stderr, "nmx: cannot read %s: %m\n", path);
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		char *eq, *end;

		line[strcspn(line, "\r\n")] = '\0';
		if (!strncmp(line, "# CONFIG_", 9) &&
		    (end = strstr(line, " is not set"))) {
			*end = '\0';
			kv_set(l, line + 2, "n");
			continue;
		}
		if (strncmp(line, "CONFIG_", 7) || !(eq = strchr(line, '=')))
			continue;
		*eq = '\0';
		kv_set(l, line, eq + 1);
	}
	fclose(f);
	return 0;
}

static int cmd_config_check(int argc, char **argv)
{
	struct kvlist want = { 0 }, have = { 0 };
	size_t i, bad = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: nmx config-check REQUESTED DOTCONFIG\n");
		return EXIT_INFRA;
	}
	if (read_kconfig(argv[1], &want) || read_kconfig(argv[2], &have))
		return EXIT_INFRA;
	for (i = 0; i < want.n; i++) {
		const char *got = kv_get(&have, want.v[i].key);
		const char *w = want.v[i].value;

		if (!got)
			got = "n";
		if (strcmp(got, w)) {
			printf("%s: requested %s, final .config has %s\n",
			       want.v[i].key, w,
			       strcmp(got, "n") ? got : "it unset");
			bad++;
		}
	}
	if (bad)
		printf("%zu of %zu requested symbol(s) did not survive olddefconfig\n",
		       bad, want.n);
	else
		printf("all %zu requested symbols present\n", want.n);
	kv_free(&want);
	kv_free(&have);
	return bad ? EXIT_FAIL : EXIT_PASS;
}

/* ---- qemu-cmd --------------------------------------------------------- */

static void arg0(const char *s)
{
	fputs(s, stdout);
	putchar('\0');
}

/* The cell's machine; with ",dumpdtb=FILE" on -M's value if @dumpdtb. */
static void machine_args(const struct cell *c, const char *dumpdtb)
{
	size_t i;

	for (i = 0; i < c->qemu_machine.n; i++) {
		if (dumpdtb && i > 0 && !strcmp(c->qemu_machine.v[i - 1], "-M")) {
			printf("%s,dumpdtb=%s", c->qemu_machine.v[i], dumpdtb);
			putchar('\0');
			continue;
		}
		arg0(c->qemu_machine.v[i]);
	}
}

/* -device loader: @file placed raw at @addr, as a board's boot medium. */
static void loader_arg(const char *file, const char *addr)
{
	arg0("-device");
	printf("loader,file=%s,addr=%s,force-raw=on", file, addr);
	putchar('\0');
}

/* Does @c boot through U-Boot? Said on stderr for @cmd if not. */
static int has_uboot(const struct cell *c, const char *cmd)
{
	if (c->uboot_firmware)
		return 1;
	fprintf(stderr, "nmx %s: cell %s does not boot through U-Boot (no qemu.uboot)\n",
		cmd, c->name);
	return 0;
}

/*
 * U-Boot's boot command for the cell (its control device tree's
 * /config/bootcmd): the kernel command line, then bootm of the uImage and
 * ramdisk image QEMU placed in RAM, with U-Boot's own device tree.
 */
static int cmd_uboot_bootcmd(int argc, char **argv)
{
	struct selection s;
	struct cell c;
	char append[512];

	if (parse_selection(argc, argv, &s))
		return EXIT_INFRA;
	if (cell_load(&c, arches_dir, s.cell))
		return EXIT_INFRA;
	if (!has_uboot(&c, "uboot-bootcmd")) {
		cell_free(&c);
		return EXIT_INFRA;
	}
	cell_kernel_append(&c, 0, append, sizeof(append));
	printf("setenv bootargs '%s'; bootm %s %s ${fdtcontroladdr}\n", append,
	       c.uboot_kernel_addr, c.uboot_ramdisk_addr);
	cell_free(&c);
	return EXIT_PASS;
}

static int cmd_qemu_cmd(int argc, char **argv)
{
	struct selection s;
	struct cell c;
	char append[512];

	if (parse_selection(argc, argv, &s))
		return EXIT_INFRA;
	if (!s.dump_dtb && (!s.kernel || (!s.initrd && !s.probe) || !s.log)) {
		fprintf(stderr, "nmx qemu-cmd: --kernel, --initrd (or --probe) and --log are required\n");
		return EXIT_INFRA;
	}
	if (cell_load(&c, arches_dir, s.cell))
		return EXIT_INFRA;
	if ((s.uboot_dtb || s.dump_dtb) && !has_uboot(&c, "qemu-cmd")) {
		cell_free(&c);
		return EXIT_INFRA;
	}
	if (c.dtb && !s.dtb && !s.uboot_dtb && !s.dump_dtb) {
		fprintf(stderr, "nmx qemu-cmd: cell %s boots with a DTB: pass --dtb\n",
			c.name);
		cell_free(&c);
		return EXIT_INFRA;
	}
	arg0(c.qemu_binary);
	/*
	 * --dump-dtb: QEMU writes the device tree of the machine U-Boot runs
	 * on and exits. It must be the same machine, firmware included: with
	 * -bios, virt leaves devices out that a tree dumped without it has.
	 */
	machine_args(&c, s.dump_dtb);
	/* Under TCG the cell may name its threading (arches/<cell>.yaml). */
	arg0("-accel");
	arg0(cell_accel(&c, s.accel));
	arg0("-display");
	arg0("none");
	if (s.dump_dtb || s.uboot_dtb) {
		arg0(c.uboot_firmware_arg);
		arg0(c.uboot_firmware);
	}
	if (s.dump_dtb)
		goto done;
	arg0("-monitor");
	arg0("none");
	arg0("-no-reboot");
	arg0("-serial");
	printf("file:%s", s.log);
	putchar('\0');
	if (s.uboot_dtb) {
		/* Like a board: U-Boot finds both images in RAM and checks them. */
		arg0("-dtb");
		arg0(s.uboot_dtb);
		loader_arg(s.kernel, c.uboot_kernel_addr);
		if (s.initrd)
			loader_arg(s.initrd, c.uboot_ramdisk_addr);
		goto done;
	}
	cell_kernel_append(&c, s.probe, append, sizeof(append));
	arg0("-kernel");
	arg0(s.kernel);
	if (s.initrd) {
		arg0("-initrd");
		arg0(s.initrd);
	}
	if (s.dtb) {
		arg0("-dtb");
		arg0(s.dtb);
	}
	arg0("-append");
	arg0(append);
done:
	cell_free(&c);
	return EXIT_PASS;
}

/* ---- lava-job, lava-log ----------------------------------------------- */

static FILE *create_in(const char *dir, const char *name, char *path, size_t n)
{
	FILE *f;

	snprintf(path, n, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "nmx: cannot write %s: %m\n", path);
	return f;
}

static int close_written(FILE *f, const char *path, int err)
{
	if (fclose(f) || err) {
		fprintf(stderr, "nmx: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* DIR/device.yaml and DIR/job.yaml: the cell's boot for lava-run. */
static int cmd_lava_job(int argc, char **argv)
{
	struct selection s;
	struct lava_boot b = { 0 };
	struct cell c;
	char name[256], path[4096];
	FILE *f;
	int err;

	if (parse_selection(argc, argv, &s))
		return EXIT_INFRA;
	if (!s.kernel || !s.initrd || !s.out || !s.tree || !s.variant) {
		fprintf(stderr, "nmx lava-job: --tree, --variant, --kernel, --initrd and -o DIR are required\n");
		return EXIT_INFRA;
	}
	if (s.kernel[0] != '/' || s.initrd[0] != '/' || (s.dtb && s.dtb[0] != '/')) {
		fprintf(stderr, "nmx lava-job: LAVA deploys file:// URLs: give absolute paths\n");
		return EXIT_INFRA;
	}
	if (cell_load(&c, arches_dir, s.cell))
		return EXIT_INFRA;
	if (c.dtb && !s.dtb) {
		fprintf(stderr, "nmx lava-job: cell %s boots with a DTB: pass --dtb\n",
			c.name);
		cell_free(&c);
		return EXIT_INFRA;
	}
	snprintf(name, sizeof(name), "notrace-matrix %s-%s %s", s.tree,
		 s.variant, c.name);
	b.name = name;
	b.kernel = s.kernel;
	b.initrd = s.initrd;
	b.dtb = s.dtb;
	b.timeout = s.timeout ? s.timeout : 90;
	err = -1;
	f = create_in(s.out, "device.yaml", path, sizeof(path));
	if (f && !close_written(f, path, lava_write_device(&c, s.accel, f))) {
		f = create_in(s.out, "job.yaml", path, sizeof(path));
		if (f)
			err = close_written(f, path, lava_write_job(&c, &b, f));
	}
	cell_free(&c);
	return err ? EXIT_INFRA : EXIT_PASS;
}

/* The console lines of lava-run's log, as boot.log for nmx judge. */
static int cmd_lava_log(int argc, char **argv)
{
	FILE *in;
	long n;

	if (argc != 2) {
		fprintf(stderr, "usage: nmx lava-log LAVA_RUN_LOG\n");
		return EXIT_INFRA;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "nmx: cannot read %s: %m\n", argv[1]);
		return EXIT_INFRA;
	}
	n = lava_log_console(in, stdout);
	fclose(in);
	if (n < 0 || fflush(stdout)) {
		fprintf(stderr, "nmx lava-log: cannot read %s or write the console\n",
			argv[1]);
		return EXIT_INFRA;
	}
	return EXIT_PASS;
}

/* ---- deps ------------------------------------------------------------- */

/*
 * What every cell under arches/ needs from Debian, for install-deps.sh:
 * "package NAME" lines (each once) and "busybox-arch ARCH" lines (the
 * architectures whose busybox-static the guests take).
 */
static int cmd_deps(int argc, char **argv)
{
	struct strlist names = { 0 }, packages = { 0 }, archs = { 0 };
	size_t i, k;
	int err = 0;

	if (argc != 1) {
		fprintf(stderr, "usage: nmx deps\n");
		return EXIT_INFRA;
	}
	if (cell_names(arches_dir, &names))
		return EXIT_INFRA;
	for (i = 0; i < names.n && !err; i++) {
		struct cell c;

		if (cell_load(&c, arches_dir, names.v[i])) {
			err = -1;
			break;
		}
		for (k = 0; k < c.packages.n; k++)
			if (!strlist_has(&packages, c.packages.v[k]))
				strlist_add(&packages, c.packages.v[k]);
		if (c.busybox && !strlist_has(&archs, c.busybox))
			strlist_add(&archs, c.busybox);
		cell_free(&c);
	}
	for (i = 0; !err && i < packages.n; i++)
		printf("package %s\n", packages.v[i]);
	for (i = 0; !err && i < archs.n; i++)
		printf("busybox-arch %s\n", archs.v[i]);
	strlist_free(&names);
	strlist_free(&packages);
	strlist_free(&archs);
	return err || fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
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
 * Every fact of arches/<cell>.yaml the guest uses, as one header: the
 * guest is built with -include of it, so a new fact is a line here and
 * its use in guest/, nothing in between.
 */
static int cmd_guest_header(int argc, char **argv)
{
	struct selection s;
	struct matrix m;
	struct tree *t;
	struct cell c;
	const char *root;
	char *version = NULL;

	if (parse_selection(argc, argv, &s))
		return EXIT_INFRA;
	/* --tree: the fault root may differ between kernel versions. */
	if (s.tree) {
		if (load_matrix(&m))
			return EXIT_INFRA;
		t = matrix_tree(&m, s.tree);
		if (!t) {
			fprintf(stderr, "nmx: unknown tree '%s'\n", s.tree);
			matrix_free(&m);
			return EXIT_INFRA;
		}
		version = t->version ? strdup(t->version) : NULL;
		matrix_free(&m);
	}
	if (cell_load(&c, arches_dir, s.cell)) {
		free(version);
		return EXIT_INFRA;
	}
	root = cell_fault_root(&c, version);
	free(version);
	if (!root) {
		cell_free(&c);
		return EXIT_INFRA;
	}
	printf("/* Generated by nmx guest-header from arches/%s.yaml: do not edit. */\n",
	       c.name);
	printf("#define NMX_CELL ");
	c_string(c.name);
	printf("\n#define NMX_UNAME_MACHINE ");
	c_string(c.uname_machine);
	printf("\n#define NMX_BIG_ENDIAN %d\n", c.big_endian);
	printf("#define NMX_FAULT_ROOT ");
	c_string(root);
	printf("\n#define NMX_TRIGGER_READ_ZERO %d\n",
	       !strcmp(c.fault_trigger, "read-zero"));
	printf("#define NMX_POWEROFF_BY_RESTART %d\n", c.poweroff_by_restart);
	printf("#define NMX_BL_SWITCHER %d\n", c.bl_switcher);
	/* ftracetest needs a shell: Debian's busybox-static for the cell. */
	printf("#define NMX_FTRACETEST %d\n", c.busybox != NULL);
	cell_free(&c);
	return fflush(stdout) ? EXIT_INFRA : EXIT_PASS;
}

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

static int cmd_judge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "log", required_argument, 0, 'l' },
		{ "out", required_argument, 0, 'o' },
		{ "timed-out", no_argument, 0, 'T' },
		{ "findings", required_argument, 0, 'f' },
		{ "cell", required_argument, 0, 'c' },
		{ "variant", required_argument, 0, 'v' },
		{ 0 }
	};
	const char *log = NULL, *out = NULL, *findings = NULL;
	const char *cell = NULL, *variant = NULL;
	struct strlist xfail = { 0 };
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
		default: return EXIT_INFRA;
		}
	}
	if (!log || !out) {
		fprintf(stderr, "nmx judge: --log and --out are required\n");
		return EXIT_INFRA;
	}
	if (findings && (!cell || !variant)) {
		fprintf(stderr, "nmx judge: --findings needs --cell and --variant\n");
		return EXIT_INFRA;
	}
	if (findings && load_xfails(findings, cell, variant, &xfail))
		return EXIT_INFRA;
	if (judge_console(log, out, timed_out, &xfail, &v))
		return EXIT_INFRA;
	strlist_free(&xfail);
	j = verdict_json(&v);
	snprintf(path, sizeof(path), "%s/verdict.json", out);
	if (v.write_failed)
		fprintf(stderr, "nmx: cannot write %s/%s: %s\n", out,
			v.write_failed, strerror(v.write_errno));
	ret = write_json(j, path) || v.write_failed ? EXIT_INFRA :
	      strcmp(v.status, "PASS") ? EXIT_FAIL : EXIT_PASS;
	printf("%s: %s\n", v.status, v.reason);
	json_decref(j);
	verdict_free(&v);
	return ret;
}

/* ---- result ----------------------------------------------------------- */

/* Lines of a tab-separated file, split in place; calls @fn per line. */
static int each_tsv(const char *path, void (*fn)(char **f, int n, void *d),
		    void *data)
{
	char line[8192];
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *fields[8], *p = line;
		int n = 0;

		line[strcspn(line, "\r\n")] = '\0';
		if (!*line)
			continue;
		while (n < 8) {
			fields[n++] = p;
			p = strchr(p, '\t');
			if (!p)
				break;
			*p++ = '\0';
		}
		fn(fields, n, data);
	}
	fclose(f);
	return 0;
}

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

int cmd_result(int argc, char **argv)
{
	struct stage_walk w = { 0 };
	json_t *r, *meta, *verdict = NULL;
	const char *dir = NULL, *status, *reason;
	char path[4096];
	json_error_t jerr;
	int ret;

	if (argc == 3 && !strcmp(argv[1], "--cell-dir"))
		dir = argv[2];
	if (!dir) {
		fprintf(stderr, "usage: nmx result --cell-dir DIR\n");
		return EXIT_INFRA;
	}
	w.stages = json_array();
	w.seconds = json_object();
	snprintf(path, sizeof(path), "%s/stages.tsv", dir);
	if (each_tsv(path, add_stage, &w))
		fprintf(stderr, "nmx: %s missing: no stage ran\n", path);
	meta = json_object();
	snprintf(path, sizeof(path), "%s/meta.tsv", dir);
	each_tsv(path, add_meta, meta);
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
		status = "INFRA_FAIL";
		reason = "no verdict: the boot stage did not finish";
	} else {
		status = "INFRA_FAIL";
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
	json_decref(r);
	return ret;
}

/* ---- summary ---------------------------------------------------------- */

int cmd_summary(int argc, char **argv)
{
	char pattern[4096], path[4096], tmp[4200];
	int err;
	int infra = 0, failed = 0, passed = 0, skipped = 0;
	glob_t g;
	size_t i;
	FILE *out;

	if (argc != 2) {
		fprintf(stderr, "usage: nmx summary RUN_DIR\n");
		return EXIT_INFRA;
	}
	snprintf(pattern, sizeof(pattern), "%s/*/*/result.json", argv[1]);
	if (glob(pattern, 0, NULL, &g)) {
		fprintf(stderr, "nmx: no */*/result.json under %s\n", argv[1]);
		return EXIT_INFRA;
	}
	snprintf(path, sizeof(path), "%s/summary.txt", argv[1]);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr, "nmx: cannot write %s: %m\n", tmp);
		globfree(&g);
		return EXIT_INFRA;
	}
	fprintf(out, "%-20s %-14s %-11s %5s %6s %5s  %s\n", "tree-variant",
		"cell", "status", "tests", "kernel", "boot", "reason");
	for (i = 0; i < g.gl_pathc; i++) {
		json_error_t jerr;
		json_t *r = json_load_file(g.gl_pathv[i], 0, &jerr), *secs;
		const char *status;
		char tv[64], tests[16];
		size_t n, ok = 0, k;

		if (!r) {
			fprintf(out, "%s: unreadable: %s\n", g.gl_pathv[i],
				jerr.text);
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
		if (!status || !strcmp(status, "INFRA_FAIL"))
			infra++;
		else if (!strcmp(status, "SKIP"))
			skipped++;	/* not a pass: it proved nothing */
		else if (strcmp(status, "PASS"))
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
	globfree(&g);
	err = fflush(out) | ferror(out);
	err |= fclose(out);
	if (err || rename(tmp, path)) {
		fprintf(stderr, "nmx: cannot write %s: %m\n", path);
		unlink(tmp);
		return EXIT_INFRA;
	}
	return infra ? EXIT_INFRA : failed || skipped ? EXIT_FAIL : EXIT_PASS;
}

int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		int (*fn)(int argc, char **argv);
	} cmds[] = {
		{ "cells", cmd_cells },
		{ "trees", cmd_trees },
		{ "env", cmd_env },
		{ "fragment", cmd_fragment },
		{ "config-check", cmd_config_check },
		{ "qemu-cmd", cmd_qemu_cmd },
		{ "uboot-bootcmd", cmd_uboot_bootcmd },
		{ "guest-header", cmd_guest_header },
		{ "deps", cmd_deps },
		{ "judge", cmd_judge },
		{ "result", cmd_result },
		{ "summary", cmd_summary },
		{ "report", cmd_report },
		{ "compare", cmd_compare },
		{ "merge", cmd_merge },
		{ "plan", cmd_plan },
		{ "lava-job", cmd_lava_job },
		{ "lava-log", cmd_lava_log },
	};
	size_t i;
	int opt;

	while ((opt = getopt(argc, argv, "+m:a:p:l:s:h")) != -1) {
		switch (opt) {
		case 'm': matrix_path = optarg; break;
		case 'a': arches_dir = optarg; break;
		case 'p': patches_dir = optarg; break;
		case 'l': local_dir = optarg; break;
		case 's': local_series = optarg; break;
		case 'h': usage(stdout); return EXIT_PASS;
		default: usage(stderr); return EXIT_INFRA;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_INFRA;
	}
	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[optind], cmds[i].name))
			continue;
		argc -= optind;
		argv += optind;
		optind = 0;	/* glibc: restart getopt for the subcommand */
		return cmds[i].fn(argc, argv);
	}
	fprintf(stderr, "nmx: unknown command '%s'\n", argv[optind]);
	usage(stderr);
	return EXIT_INFRA;
}
