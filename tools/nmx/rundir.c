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

/* The stages of a cell, in the order they run (build.sh, boot.sh). */
static const char *const stages[] = {
	"prepare", "configure", "kernel", "guest", "boot",
	/* nmx merge's: a planned cell no shard reported (INFRA_FAIL) */
	"shard",
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

int rundir_check_stage(const char *stage, const char *status)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stages); i++)
		if (!strcmp(stage, stages[i]))
			break;
	if (i == ARRAY_SIZE(stages)) {
		fprintf(stderr, "nmx: '%s' is no stage (prepare, configure, kernel, guest, boot, shard)\n",
			stage);
		return -1;
	}
	if (!strcmp(status, RUNDIR_STAGE_OK) || status_is(status, ST_INFRA_FAIL) ||
	    (strcmp(stage, "boot") && strcmp(stage, "shard") &&
	     status_in_class(status, SC_NOT_BUILT)))
		return 0;
	fprintf(stderr, "nmx: stage %s cannot end %s (%s, %s, or a build stage's %s, %s, %s)\n",
		stage, status, RUNDIR_STAGE_OK, status_name(ST_INFRA_FAIL),
		status_name(ST_PATCH_FAIL), status_name(ST_CONFIG_FAIL),
		status_name(ST_BUILD_FAIL));
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
	FILE *f = fopen(path, "r");
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
	fclose(f);
	return n;
}
