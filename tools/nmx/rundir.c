// SPDX-License-Identifier: GPL-2.0
/* The run directory's cell records, read in one place (rundir.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "rundir.h"
#include "status.h"

void rundir_cell(char *buf, size_t size, const char *run, const char *tree,
		 const char *variant, const char *cell)
{
	snprintf(buf, size, "%s/%s-%s/%s", run, tree, variant, cell);
}

int rundir_each_tsv(const char *path, void (*fn)(char **f, int n, void *d),
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

/* A record field is one line without tabs: both become spaces. */
static void put_field(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' || *s == '\r' ? ' ' : *s, f);
}

int rundir_append(const char *dir, const char *file, const char *const *fields,
		  int n)
{
	char path[4096];
	FILE *f;
	int i, err;

	if (snprintf(path, sizeof(path), "%s/%s", dir, file) >= (int)sizeof(path)) {
		fprintf(stderr, "nmx: path too long: %s/%s\n", dir, file);
		return -1;
	}
	f = fopen(path, "a");
	if (!f) {
		fprintf(stderr, "nmx: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (i)
			fputc('\t', f);
		put_field(f, fields[i]);
	}
	fputc('\n', f);
	err = ferror(f);
	if (fclose(f) || err) {
		fprintf(stderr, "nmx: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/*
 * The stages of a cell as data, in the order they run (TuxMake's targets
 * are a table the same way): what runs each, the status its own work
 * fails with (any stage may end INFRA_FAIL: the harness's failure), and
 * what its key takes (nmx stage-key --stage: a stage whose key matches
 * the one kept with its output is not redone).
 */
static const struct rundir_stage stages[] = {
	{ "prepare", "build.sh", ST_PATCH_FAIL,
	  /* Its output is a commit: git's own hash is the key. */
	  { 0 } },
	{ "configure", "build.sh", ST_CONFIG_FAIL,
	  { KEY_KCONFIG_FILES, KEY_COMPILER, KEY_REQUESTED_SYMBOLS,
	    KEY_MAKE_VARS } },
	{ "kernel", "build.sh", ST_BUILD_FAIL,
	  { KEY_TREE_COMMIT, KEY_COMPILER, KEY_DOTCONFIG, KEY_MAKE_VARS,
	    KEY_MAKE_TARGETS } },
	/* Seconds to redo: rebuilt each time. */
	{ "guest", "build.sh", ST_BUILD_FAIL, { 0 } },
	/* Judged from its console; nmx boot-cache key decides a reuse. */
	{ "boot", "boot.sh", ST_INFRA_FAIL, { 0 } },
	/* nmx merge's: a planned cell no shard reported */
	{ "shard", "nmx merge", ST_INFRA_FAIL, { 0 } },
};

static const char *const key_input_names[] = {
	[KEY_TREE_COMMIT] = "tree-commit",
	[KEY_KCONFIG_FILES] = "kconfig-files",
	[KEY_COMPILER] = "compiler",
	[KEY_REQUESTED_SYMBOLS] = "requested-symbols",
	[KEY_DOTCONFIG] = "dotconfig",
	[KEY_MAKE_VARS] = "make-vars",
	[KEY_MAKE_TARGETS] = "make-targets",
};

/*
 * Every key a cell's meta.tsv holds, and what writes it; a key not here
 * is refused, so a report never looks for a key no step writes.
 */
static const char *const meta_keys[] = {
	/* matrix.sh, when it starts the cell (nmx cell-dir --fresh) */
	"run_id",
	/* build.sh: what was built, from what, with what */
	"cell", "tree", "variant", "description", "kbuild_arch", "tree_package",
	"tree_version", "series", "series_subjects", "patchset_files",
	"patchset_hash", "git_repository_url", "git_commit_hash",
	"git_uncommitted_changes", "compiler", "kernel_cpu_seconds",
	"kernel_image_bytes", "vmlinux_bytes", "initramfs_bytes",
	"guest_init", "guest_busybox",
	/* boot.sh: how it booted */
	"accelerator", "accelerator_probe", "qemu_version", "boot_with",
	"loader", "kernel_args", "boot_reused_from", "lava_result",
};

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

const struct rundir_stage *rundir_stage(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stages); i++)
		if (!strcmp(name, stages[i].name))
			return &stages[i];
	return NULL;
}

const struct rundir_stage *rundir_stage_at(size_t i)
{
	return i < ARRAY_SIZE(stages) ? &stages[i] : NULL;
}

const char *rundir_key_input_name(enum key_input in)
{
	return key_input_names[in];
}

int rundir_check_stage(const char *name, const char *status)
{
	const struct rundir_stage *st = rundir_stage(name);
	size_t i;

	if (!st) {
		fprintf(stderr, "nmx: '%s' is no stage (", name);
		for (i = 0; i < ARRAY_SIZE(stages); i++)
			fprintf(stderr, "%s%s", i ? ", " : "", stages[i].name);
		fprintf(stderr, ")\n");
		return -1;
	}
	if (!strcmp(status, RUNDIR_STAGE_OK) || status_is(status, ST_INFRA_FAIL) ||
	    status_is(status, st->fails_as))
		return 0;
	fprintf(stderr, "nmx: stage %s cannot end %s (%s, %s or %s)\n",
		name, status, RUNDIR_STAGE_OK, status_name(ST_INFRA_FAIL),
		status_name(st->fails_as));
	return -1;
}

int rundir_check_meta_key(const char *key)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(meta_keys); i++)
		if (!strcmp(key, meta_keys[i]))
			return 0;
	fprintf(stderr, "nmx: '%s' is no meta.tsv key (rundir.c lists them)\n", key);
	return -1;
}

int rundir_each_planned(const char *path,
			int (*fn)(const char *tree, const char *variant,
				  const char *cell, void *data),
			void *data)
{
	char line[512], tree[160], variant[160], cell[160], extra;
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int lineno = 0, n = 0;

	if (!f) {
		fprintf(stderr, "nmx: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		lineno++;
		if (line[0] == '\n' || line[0] == '#')
			continue;
		if (sscanf(line, "%159s %159s %159s %c", tree, variant, cell,
			   &extra) != 3 || strchr(tree, '/') ||
		    strchr(variant, '/') || strchr(cell, '/')) {
			fprintf(stderr, "nmx: %s:%d: not a 'tree variant cell' line\n",
				path, lineno);
			n = -1;
			break;
		}
		if (fn && fn(tree, variant, cell, data)) {
			n = -1;
			break;
		}
		n++;
	}
	if (f != stdin)
		fclose(f);
	return n;
}
