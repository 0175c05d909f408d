/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cell's facts resolved for one tree and variant: what a run writes
 * once into the cell's directory (cell.tsv, nmx describe) and every later
 * step reads, so the arch file and matrix.yaml are parsed at plan time
 * and not again per step.
 */
#ifndef NMX_FACTS_H
#define NMX_FACTS_H

#include <stdio.h>

#include "matrix.h"

struct cell_facts {
	/* The tree; NULL when a step run by hand was given no --tree. */
	char *tree, *tree_package, *tree_tarball, *tree_suite, *tree_source;
	char *series_of, *tree_version, *series_dir;
	/* The variant; NULL without --variant. */
	char *variant, *extra_series_dir, *findings_variant;
	struct strlist skip_patches, variant_kconfig;
	int boot_timeout;
	/* matrix.yaml's path and its run.kconfig (every cell's extras). */
	char *matrix_file;
	struct strlist run_kconfig;
	/*
	 * Read from cell.tsv, each by_version value (dtb, qemu.tcg,
	 * fault_root) is the tree's, held as the one value for every version.
	 */
	struct cell cell;
};

/*
 * From arches/@cell.yaml and matrix.yaml: @tree and @variant may be NULL
 * (a step by hand), @variant needs @tree. -1, said, for an unknown name
 * or a value the tree's version has none of.
 */
int facts_resolve(struct cell_facts *f, const char *tree, const char *variant,
		  const char *cell);
/*
 * As "KEY<TAB>VALUE" lines, a list as "KEY[]<TAB>ITEM" per item; -1,
 * said, for a value no line can hold. Needs a tree and a variant.
 */
int facts_write(FILE *out, const struct cell_facts *f);
/* What facts_write wrote; -1, said with the file and line, otherwise. */
int facts_read(struct cell_facts *f, const char *path);
void facts_free(struct cell_facts *f);
/*
 * The tree's series directory (series, FINDINGS.md): series_dir, relative
 * to matrix.yaml's directory as nmx reads it everywhere (series_dir_of).
 * -1, said, without one.
 */
int facts_series_dir(const struct cell_facts *f, char *buf, size_t size);

#endif
