/* SPDX-License-Identifier: GPL-2.0 */
/* The matrix as data: arches/<cell>.yaml and matrix.yaml. */
#ifndef NMX_MATRIX_H
#define NMX_MATRIX_H

#include <stddef.h>
#include <stdio.h>

struct strlist {
	char **v;
	size_t n;
};

/*
 * Open @path for reading only if it is a regular file: a directory is
 * refused, a FIFO without writer refused without waiting. NULL with the
 * reason printed ("nmx: cannot read PATH: ...") otherwise.
 */
FILE *fopen_regular(const char *path);

/*
 * @path's bytes, NUL-terminated (*@len: their number, if @len), or NULL
 * when it cannot be read. Caller frees.
 */
char *slurp(const char *path, size_t *len);
/* "@dir/@name" into @buf; -1 (said) if it does not fit. */
int path_join(char *buf, size_t size, const char *dir, const char *name);
/*
 * A tree's series directory (matrix.yaml "series:"): @series as it is if
 * absolute, else relative to the directory @matrix_file is in. -1 (said)
 * if it does not fit.
 */
int series_dir_of(const char *matrix_file, const char *series, char *buf,
		  size_t size);
/* A copy of @s, or NULL for NULL. */
char *dup_or_null(const char *s);

void strlist_add(struct strlist *l, const char *s);
/* Each of @from's strings added to @to. */
void strlist_add_all(struct strlist *to, const struct strlist *from);
void strlist_free(struct strlist *l);
int strlist_has(const struct strlist *l, const char *s);
/* Add @s unless @l has it. */
void strlist_add_once(struct strlist *l, const char *s);

struct ydoc;
struct yaml_node_s;
/* @key of mapping @map, a sequence of scalars, into @out (absent: empty). */
int get_list(struct ydoc *y, struct yaml_node_s *map, const char *key,
	     struct strlist *out);

/* Everything the tools know about one architecture cell. */
/*
 * An arch file value that may change between kernel versions: one for
 * every tree (@one), or a mapping from the version where a value starts
 * to be the one ("6.1": tcg, "6.12": tcg,thread=single).
 */
struct by_version {
	char *one;
	struct strlist versions, values;
};

/*
 * @b's value for a tree of @version: its one value, or the entry of the
 * highest version not above @version; NULL if none applies.
 */
const char *by_version_value(const struct by_version *b, const char *version);

struct cell {
	char *name;
	char *description;
	/* Kbuild */
	char *arch;
	char *cross_compile;
	struct strlist make_targets;
	char *kernel_image;	/* relative to the build directory */
	char *uimage_load;	/* mkimage load/entry address, or NULL */
	/*
	 * Relative to the build directory, or none. By version where the
	 * tree moved it (6.5 put ARM's DTS files in vendor directories).
	 */
	struct by_version dtb;
	struct strlist kconfig;
	/* Asked for from a kernel version on: kconfig_since[i] from version i */
	struct strlist kconfig_since, kconfig_since_versions;
	/* QEMU */
	char *qemu_binary;
	/*
	 * qemu.suite: the Debian suite whose QEMU the cell boots with,
	 * unpacked into the cache (scripts/fetch-deb.sh), with the package
	 * of the binary and that of its firmware; NULL: the system's QEMU.
	 */
	char *qemu_suite, *qemu_package, *qemu_data_package;
	struct strlist qemu_machine;
	struct by_version qemu_tcg;	/* -accel value under TCG; none: "tcg" */
	int boot_alone;		/* no other guest may boot beside this one */
	/* Boot through U-Boot (qemu.uboot), or NULL firmware: QEMU's loader only */
	char *uboot_firmware;	/* Debian's u-boot-qemu binary */
	char *uboot_firmware_arg;	/* given to QEMU as -bios or -kernel */
	char *uboot_kernel_load;	/* the uImage's load and entry address */
	char *uboot_kernel_addr;	/* where QEMU places the uImage */
	char *uboot_ramdisk_addr;	/* and the ramdisk image */
	char *console;
	/* Guest */
	struct strlist guest_cflags;
	char *uname_machine;
	int big_endian;
	struct by_version fault_root;
	char *fault_trigger;	/* "touch" or "read-zero" */
	int poweroff_by_restart;
	int bl_switcher;
	char *busybox;		/* Debian architecture of busybox-static, or NULL */
	/* The oldest kernel the guest builds on ("6.12"), or NULL: any */
	char *min_kernel;
	/*
	 * Why the cell is kept out of the end-to-end set although its
	 * architecture is in no other cell there (a known flake), or NULL.
	 */
	char *quarantine;
	/* The newest kernel the cell builds on, or NULL: any (a bound with a reason) */
	char *max_kernel;
	/* Debian packages the cell needs (cross compiler, QEMU, firmware) */
	struct strlist packages;
	/* The arch files it was read from: its own, then the one it extends */
	struct strlist files;
};

int cell_load(struct cell *c, const char *arches_dir, const char *name);
void cell_free(struct cell *c);
/*
 * The seed example's fault root on a tree of @version (NULL: unknown):
 * the cell's one root, or the entry of the highest version not above
 * @version. NULL (said on stderr) if the cell names none for it.
 */
const char *cell_fault_root(const struct cell *c, const char *version);
/* Does the cell boot with a DTB (on some kernel version)? */
int cell_has_dtb(const struct cell *c);
/*
 * Its DTB on a tree of @version: NULL if it has none, or (said on
 * stderr, *@err set) if none applies to @version.
 */
const char *cell_dtb(const struct cell *c, const char *version, int *err);
/* Does a tree of kernel @version (NULL: unknown) take what @since names? */
int version_at_least(const char *version, const char *since);
/*
 * QEMU's -accel value: the cell's TCG setting for a tree of @version
 * under TCG (@accel NULL or "tcg"), else @accel. NULL (said on stderr)
 * when the setting differs between versions and @version is NULL.
 */
const char *cell_accel(const struct cell *c, const char *accel,
		       const char *version);
/*
 * The kernel command line of the cell's boot (console, panic, init; @probe:
 * the accelerator probe's), and @extra (a user's --kernel-args, or NULL) after it.
 */
void cell_kernel_append(const struct cell *c, int probe, const char *extra,
			char *buf, size_t n);
/*
 * Can @c run on a tree of kernel @version (NULL: unknown, so yes)? Not if
 * its guest.min_kernel is newer.
 */
int cell_runs_on(const struct cell *c, const char *version);
/* Sorted names of all cells under @arches_dir (files "<name>.yaml"). */
int cell_names(const char *arches_dir, struct strlist *names);
/*
 * The Debian package a tool the steps run comes from (a QEMU binary, a
 * cross compiler), into @buf: for the message that says what to install,
 * and for the package a qemu.suite cell's QEMU is taken from.
 */
const char *tool_package(const char *tool, char *buf, size_t n);

struct variant {
	char *name;
	struct strlist skip_patches;
	/* Symbols this variant asks for besides common, cell and run's. */
	struct strlist kconfig;
	int boot_timeout;	/* seconds, or 0: run.boot_timeout */
	/* Another series applied after the tree's (--patches), or NULL. */
	char *extra_series;
	/* The variant whose expected failures apply; NULL: this one. */
	char *findings_variant;
};

struct tree {
	char *name;
	char *package;		/* NULL for a local checkout */
	char *tarball;		/* NULL for a local checkout */
	/*
	 * The Debian suite the package comes from when it is not this
	 * machine's release ("unstable"), or NULL: installed with apt. Such a
	 * package is downloaded and unpacked into the cache, never installed;
	 * tarball is then its path inside the package.
	 */
	char *suite;
	char *source;		/* a local checkout's directory, or NULL */
	/* A local checkout's: the tree whose series it takes, and why. */
	char *series_of, *series_why;
	char *version;		/* "6.12": the kernel the series is for, or NULL */
	char *series;		/* directory, relative to the repository */
	struct variant *variants;
	size_t nr_variants;
};

/*
 * One group of a named set (matrix.yaml "sets"): these trees x variants x
 * cells. An empty list means the default run's; all_cells: every cell
 * under arches/ (those that cannot run on a tree are left out there).
 */
struct set_group {
	struct strlist trees, variants, cells;
	int all_cells;
};

struct cell_set {
	char *name;
	struct set_group *groups;
	size_t nr_groups;
};

struct matrix {
	struct tree *trees;
	size_t nr_trees;
	/* What a default run covers. */
	struct strlist run_trees;
	struct strlist run_variants;
	struct strlist run_cells;
	/* Named selections (--set NAME); "e2e" is the end-to-end test's. */
	struct cell_set *sets;
	size_t nr_sets;
	struct strlist kconfig;		/* extra symbols for every cell */
	int boot_timeout;		/* seconds */
};

int matrix_load(struct matrix *m, const char *path, const char *arches_dir);
void matrix_free(struct matrix *m);
/* The tree (not a local checkout) of the highest version, or NULL. */
const struct tree *matrix_newest_tree(const struct matrix *m);
struct tree *matrix_tree(struct matrix *m, const char *name);
struct variant *tree_variant(struct tree *t, const char *name);
struct cell_set *matrix_set(struct matrix *m, const char *name);
/*
 * Give every tree that has variant @base a variant @name: @base's series
 * with the patches of @extra_series (a directory with a "series" file) on
 * top, judged against @base's expected failures. A tree that already has
 * @name is an error.
 */
int matrix_add_variant(struct matrix *m, const char *name, const char *base,
		       const char *extra_series);
/*
 * Add tree @name for the kernel checkout in @dir (its version read from
 * its Makefile), with the series and variants of tree @series_of, or of
 * the tree whose version is the checkout's (@series_of NULL). Errors say
 * what is wrong with @dir.
 */
int matrix_add_local_tree(struct matrix *m, const char *name, const char *dir,
			  const char *series_of);

#endif
