// SPDX-License-Identifier: GPL-2.0
/*
 * A cell's facts: resolved from the YAML once, written as cell.tsv, read
 * back by every step. One table names each fact, its type and its place
 * in struct cell_facts; the writer and the reader both walk it, so a fact
 * added to the table is written and read alike.
 */
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "facts.h"

enum fact_type {
	FACT_STR,	/* char *; written empty when NULL, read back as NULL */
	FACT_LIST,	/* struct strlist: a "KEY[]" line per item */
	FACT_INT,	/* int */
	/*
	 * struct by_version: written as the value for the tree's version,
	 * read back as the one value for every version.
	 */
	FACT_BY_VERSION,
};

struct fact {
	const char *key;
	enum fact_type type;
	size_t offset;
	int required;	/* facts_read refuses a file without it */
};

#define F(key, type, field, required) \
	{ key, type, offsetof(struct cell_facts, field), required }
#define STR(key, field) F(key, FACT_STR, field, 0)
#define NEED(key, field) F(key, FACT_STR, field, 1)
#define LIST(key, field) F(key, FACT_LIST, field, 0)
#define NEED_LIST(key, field) F(key, FACT_LIST, field, 1)
#define INT(key, field) F(key, FACT_INT, field, 1)
#define BY_VERSION(key, field, required) \
	F(key, FACT_BY_VERSION, field, required)

/*
 * In the order written. The names build.sh and boot.sh read are theirs
 * (lib.sh's load_cell); the rest are read by the steps in nmx.
 */
static const struct fact facts[] = {
	NEED("tree", tree),
	STR("tree_package", tree_package),
	STR("tree_tarball", tree_tarball),
	STR("tree_suite", tree_suite),
	STR("tree_source", tree_source),
	STR("series_of", series_of),
	STR("tree_version", tree_version),
	STR("series_dir", series_dir),
	NEED("variant", variant),
	LIST("skip_patches", skip_patches),
	STR("extra_series_dir", extra_series_dir),
	NEED("findings_variant", findings_variant),
	INT("boot_timeout", boot_timeout),
	NEED("cell", cell.name),
	NEED("description", cell.description),
	NEED("arch", cell.arch),
	STR("cross_compile", cell.cross_compile),
	NEED_LIST("make_targets", cell.make_targets),
	NEED("kernel_image", cell.kernel_image),
	STR("uimage_load", cell.uimage_load),
	BY_VERSION("dtb", cell.dtb, 0),
	NEED("qemu_binary", cell.qemu_binary),
	STR("qemu_suite", cell.qemu_suite),
	STR("qemu_package", cell.qemu_package),
	STR("qemu_data_package", cell.qemu_data_package),
	STR("uboot_firmware", cell.uboot_firmware),
	STR("uboot_kernel_load", cell.uboot_kernel_load),
	LIST("guest_cflags", cell.guest_cflags),
	STR("busybox", cell.busybox),
	STR("quarantine", cell.quarantine),
	NEED_LIST("arch_files", cell.files),
	/* The steps' */
	NEED("matrix_file", matrix_file),
	LIST("run_kconfig", run_kconfig),
	LIST("variant_kconfig", variant_kconfig),
	LIST("kconfig", cell.kconfig),
	LIST("kconfig_since", cell.kconfig_since),
	LIST("kconfig_since_versions", cell.kconfig_since_versions),
	LIST("qemu_machine", cell.qemu_machine),
	BY_VERSION("qemu_tcg", cell.qemu_tcg, 0),
	INT("boot_alone", cell.boot_alone),
	STR("uboot_firmware_arg", cell.uboot_firmware_arg),
	STR("uboot_kernel_addr", cell.uboot_kernel_addr),
	STR("uboot_ramdisk_addr", cell.uboot_ramdisk_addr),
	NEED("console", cell.console),
	NEED("uname_machine", cell.uname_machine),
	INT("big_endian", cell.big_endian),
	BY_VERSION("fault_root", cell.fault_root, 1),
	NEED("fault_trigger", cell.fault_trigger),
	INT("poweroff_by_restart", cell.poweroff_by_restart),
	INT("bl_switcher", cell.bl_switcher),
	STR("min_kernel", cell.min_kernel),
	STR("max_kernel", cell.max_kernel),
	LIST("packages", cell.packages),
};

#define NR_FACTS (sizeof(facts) / sizeof(facts[0]))

static void *field(const struct cell_facts *f, const struct fact *k)
{
	return (char *)f + k->offset;
}

static int put(FILE *out, const char *key, const char *suffix,
	       const char *value)
{
	if (value && strpbrk(value, "\t\n\r")) {
		fprintf(stderr, "nmx describe: %s holds a tab or a line end: '%s'\n",
			key, value);
		return -1;
	}
	fprintf(out, "%s%s\t%s\n", key, suffix, value ? value : "");
	return 0;
}

/*
 * @b's value for the tree's version; none if @b has none at all, -1
 * (said) if it has some but none for this version.
 */
static int put_by_version(FILE *out, const char *key, const char *cell,
			  const struct by_version *b, const char *version)
{
	const char *value = by_version_value(b, version);

	if (!value && (b->one || b->versions.n)) {
		fprintf(stderr, "nmx: cell %s names no %s for kernel %s\n", cell,
			key, version ? version : "of unknown version");
		return -1;
	}
	return put(out, key, "", value);
}

int facts_write(FILE *out, const struct cell_facts *f)
{
	const struct strlist *l;
	char num[24];
	size_t i, j;
	int err = 0;

	if (!f->tree || !f->variant) {
		fprintf(stderr, "nmx describe: a cell's facts need a tree and a variant\n");
		return -1;
	}
	for (i = 0; i < NR_FACTS; i++) {
		switch (facts[i].type) {
		case FACT_STR:
			err |= put(out, facts[i].key, "",
				   *(char **)field(f, &facts[i]));
			break;
		case FACT_LIST:
			l = field(f, &facts[i]);
			for (j = 0; j < l->n; j++)
				err |= put(out, facts[i].key, "[]", l->v[j]);
			break;
		case FACT_INT:
			snprintf(num, sizeof(num), "%d", *(int *)field(f, &facts[i]));
			err |= put(out, facts[i].key, "", num);
			break;
		case FACT_BY_VERSION:
			err |= put_by_version(out, facts[i].key, f->cell.name,
					      field(f, &facts[i]),
					      f->tree_version);
			break;
		}
	}
	return err;
}

/* ---- resolve ---------------------------------------------------------- */

int facts_resolve(struct cell_facts *f, const char *tree, const char *variant,
		  const char *cell)
{
	const struct variant *v = NULL;
	const struct tree *t = NULL;
	struct matrix m;
	int err = -1;

	memset(f, 0, sizeof(*f));
	if (variant && !tree) {
		fprintf(stderr, "nmx: --variant needs --tree\n");
		return -1;
	}
	if (load_matrix(&m))
		return -1;
	if (cell_load(&f->cell, arches_dir, cell))
		goto out;
	if (tree && !(t = matrix_tree(&m, tree))) {
		fprintf(stderr, "nmx: unknown tree '%s'\n", tree);
		goto out;
	}
	if (variant && !(v = tree_variant((struct tree *)t, variant))) {
		fprintf(stderr, "nmx: tree %s has no variant '%s'\n", t->name,
			variant);
		goto out;
	}
	f->matrix_file = strdup(matrix_path);
	strlist_add_all(&f->run_kconfig, &m.kconfig);
	f->boot_timeout = m.boot_timeout;
	if (t) {
		f->tree = strdup(t->name);
		f->tree_package = dup_or_null(t->package);
		f->tree_tarball = dup_or_null(t->tarball);
		f->tree_suite = dup_or_null(t->suite);
		f->tree_source = dup_or_null(t->source);
		f->series_of = dup_or_null(t->series_of);
		f->tree_version = dup_or_null(t->version);
		f->series_dir = dup_or_null(t->series);
	}
	if (v) {
		f->variant = strdup(v->name);
		strlist_add_all(&f->skip_patches, &v->skip_patches);
		strlist_add_all(&f->variant_kconfig, &v->kconfig);
		f->extra_series_dir = dup_or_null(v->extra_series);
		f->findings_variant = strdup(v->findings_variant ?
					     v->findings_variant : v->name);
		if (v->boot_timeout)
			f->boot_timeout = v->boot_timeout;
	}
	err = 0;
out:
	matrix_free(&m);
	if (err)
		facts_free(f);
	return err;
}

/* ---- read ------------------------------------------------------------- */

static const struct fact *fact_named(const char *key, int list)
{
	size_t i;

	for (i = 0; i < NR_FACTS; i++)
		if (!strcmp(facts[i].key, key) &&
		    (facts[i].type == FACT_LIST) == list)
			return &facts[i];
	return NULL;
}

static int read_int(const char *s, int *out)
{
	char *end;
	long n;

	errno = 0;
	n = strtol(s, &end, 10);
	if (!*s || *end || errno || n < 0 || n > INT_MAX)
		return -1;
	*out = (int)n;
	return 0;
}

static int has_value(const struct cell_facts *f, const struct fact *k)
{
	if (k->type == FACT_STR)
		return *(char **)field(f, k) != NULL;
	if (k->type == FACT_BY_VERSION)
		return ((struct by_version *)field(f, k))->one != NULL;
	if (k->type == FACT_LIST)
		return ((struct strlist *)field(f, k))->n > 0;
	return 1;
}

int facts_read(struct cell_facts *f, const char *path)
{
	unsigned char seen[NR_FACTS] = { 0 };
	char *line = NULL, *value;
	const struct fact *k;
	size_t cap = 0, len, i;
	int lineno = 0, err = 0;
	FILE *in;

	memset(f, 0, sizeof(*f));
	in = fopen_regular(path);
	if (!in)
		return -1;
	while (!err && getline(&line, &cap, in) > 0) {
		lineno++;
		len = strcspn(line, "\n");
		line[len] = '\0';
		value = strchr(line, '\t');
		if (value)
			*value++ = '\0';
		len = strlen(line);
		if (len > 2 && !strcmp(line + len - 2, "[]")) {
			line[len - 2] = '\0';
			k = fact_named(line, 1);
		} else {
			k = fact_named(line, 0);
		}
		if (!k || !value) {
			fprintf(stderr, "%s:%d: not a fact of a cell: '%s'\n",
				path, lineno, line);
			err = -1;
			break;
		}
		if (k->type != FACT_LIST && seen[k - facts]) {
			fprintf(stderr, "%s:%d: %s a second time\n", path, lineno,
				k->key);
			err = -1;
			break;
		}
		seen[k - facts] = 1;
		switch (k->type) {
		case FACT_STR:
			*(char **)field(f, k) = *value ? strdup(value) : NULL;
			break;
		case FACT_BY_VERSION:
			((struct by_version *)field(f, k))->one =
				*value ? strdup(value) : NULL;
			break;
		case FACT_LIST:
			strlist_add(field(f, k), value);
			break;
		case FACT_INT:
			if (read_int(value, field(f, k))) {
				fprintf(stderr, "%s:%d: %s is a number, not '%s'\n",
					path, lineno, k->key, value);
				err = -1;
			}
			break;
		}
	}
	free(line);
	if (ferror(in)) {
		fprintf(stderr, "nmx: cannot read %s\n", path);
		err = -1;
	}
	fclose(in);
	for (i = 0; !err && i < NR_FACTS; i++) {
		if (facts[i].required && (!seen[i] || !has_value(f, &facts[i]))) {
			fprintf(stderr, "%s: no %s (written by another nmx? run nmx describe again)\n",
				path, facts[i].key);
			err = -1;
		}
	}
	if (err)
		facts_free(f);
	return err;
}

int facts_series_dir(const struct cell_facts *f, char *buf, size_t size)
{
	if (!f->series_dir) {
		fprintf(stderr, "nmx: the cell's facts name no series directory\n");
		return -1;
	}
	return series_dir_of(f->matrix_file, f->series_dir, buf, size);
}

void facts_free(struct cell_facts *f)
{
	size_t i;

	for (i = 0; i < NR_FACTS; i++) {
		if (facts[i].offset >= offsetof(struct cell_facts, cell))
			continue;	/* the cell's: cell_free() */
		if (facts[i].type == FACT_STR)
			free(*(char **)field(f, &facts[i]));
		else if (facts[i].type == FACT_LIST)
			strlist_free(field(f, &facts[i]));
	}
	cell_free(&f->cell);
	memset(f, 0, sizeof(*f));
}
