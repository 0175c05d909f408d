// SPDX-License-Identifier: GPL-2.0
/*
 * A maintainer's patches (matrix.sh --patches) as the run keeps them: mails
 * git am takes, numbered in their order, with a series file. A directory
 * gives its *.patch, *.diff and *.mbox files in name order; an mbox each
 * of its mails (git mailsplit); a bare diff (no mail header) becomes a
 * commit named after its file.
 */
#define _XOPEN_SOURCE 700
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "matrix.h"
#include "patches.h"
#include "proc.h"

static int has_suffix(const char *name, const char *suffix)
{
	size_t n = strlen(name), k = strlen(suffix);

	return n > k && !strcmp(name + n - k, suffix);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* @dir's regular files whose names pass @want, sorted, into @out. */
static int list_files(const char *dir, int (*want)(const char *),
		      struct strlist *out)
{
	char path[PATH_MAX];
	struct dirent *d;
	struct stat st;
	DIR *dp = opendir(dir);

	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		if (snprintf(path, sizeof(path), "%s/%s", dir, d->d_name) >=
		    (int)sizeof(path))
			continue;
		if (want(d->d_name) && !stat(path, &st) && S_ISREG(st.st_mode))
			strlist_add(out, path);
	}
	closedir(dp);
	if (out->n)
		qsort(out->v, out->n, sizeof(*out->v), by_name);
	return 0;
}

static int is_patch_file(const char *name)
{
	return has_suffix(name, ".patch") || has_suffix(name, ".diff") ||
	       has_suffix(name, ".mbox");
}

static int any(const char *name)
{
	return name[0] != '.';
}

/* Does a line of @path start with one of @starts (NULL-terminated)? */
static int has_line(const char *path, const char *const *starts, int first_only)
{
	char *line = NULL;
	size_t cap = 0, i;
	int found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return 0;
	while (!found && getline(&line, &cap, f) > 0) {
		for (i = 0; starts[i]; i++)
			if (!strncmp(line, starts[i], strlen(starts[i])))
				found = 1;
		if (first_only)
			break;
	}
	free(line);
	fclose(f);
	return found;
}

/* git mailsplit -o@dir @mbox, its output dropped; 0 if it succeeded. */
static int mailsplit(const char *mbox, const char *dir)
{
	char opt[PATH_MAX + 3];
	char *argv[] = { "git", "mailsplit", opt, (char *)mbox, NULL };
	int null = open("/dev/null", O_WRONLY), ret;

	snprintf(opt, sizeof(opt), "-o%s", dir);
	ret = run_command(argv, NULL, NULL, NULL, null, -1);
	if (null >= 0)
		close(null);
	return ret ? -1 : 0;
}

/* @from appended to @out; -1 if it cannot be read or written. */
static int copy_into(FILE *out, const char *from)
{
	char buf[65536];
	size_t n;
	FILE *in = fopen(from, "r");

	if (!in)
		return -1;
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	n = ferror(in) || ferror(out);
	fclose(in);
	return n ? -1 : 0;
}

static void remove_dir(const char *dir)
{
	struct strlist files = { 0 };
	size_t i;

	if (!list_files(dir, any, &files))
		for (i = 0; i < files.n; i++)
			unlink(files.v[i]);
	strlist_free(&files);
	rmdir(dir);
}

/*
 * @part as patch number @n of @dest, named after @file (its own "NNNN-"
 * left off), with a mail header of its own if it has none; its name
 * added to @series.
 */
static int add_part(const char *dest, const char *file, const char *part,
		    int n, FILE *series)
{
	static const char *const subject[] = { "Subject: ", NULL };
	char base[NAME_MAX + 1], name[NAME_MAX + 32], path[PATH_MAX];
	const char *slash = strrchr(file, '/'), *b;
	char *dot;
	FILE *out;
	int err;

	snprintf(base, sizeof(base), "%s", slash ? slash + 1 : file);
	dot = strrchr(base, '.');
	if (dot && dot != base)
		*dot = '\0';
	b = base;
	if (strlen(b) > 5 && strspn(b, "0123456789") == 4 && b[4] == '-')
		b += 5;
	if (snprintf(name, sizeof(name), "%04d-%s.patch", n, b) >= (int)sizeof(name) ||
	    snprintf(path, sizeof(path), "%s/%s", dest, name) >= (int)sizeof(path))
		return -1;
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "nmx: cannot write %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!has_line(part, subject, 0))
		fprintf(out, "From: notrace-matrix <notrace-matrix@localhost>\n"
			"Subject: [PATCH] %s\n\n", slash ? slash + 1 : file);
	err = copy_into(out, part);
	if (fclose(out) || err) {
		fprintf(stderr, "nmx: cannot write %s\n", path);
		return -1;
	}
	fprintf(series, "%s\n", name);
	return 0;
}

int import_patches(const char *src, const char *dest)
{
	static const char *const diff[] = { "diff ", "--- ", "+++ ", NULL };
	static const char *const from[] = { "From ", NULL };
	struct strlist files = { 0 }, parts = { 0 };
	char split[PATH_MAX], path[PATH_MAX], real[PATH_MAX], imported[PATH_MAX];
	struct stat st;
	FILE *series = NULL;
	size_t i, k;
	int n = 0, err = -1;

	if (!stat(src, &st) && S_ISDIR(st.st_mode)) {
		list_files(src, is_patch_file, &files);
		if (!files.n) {
			fprintf(stderr, "nmx: --patches %s: no *.patch, *.diff or *.mbox file in that directory\n",
				src);
			goto out;
		}
	} else if (!stat(src, &st) && S_ISREG(st.st_mode) && !access(src, R_OK)) {
		strlist_add(&files, src);
	} else {
		fprintf(stderr, "nmx: --patches %s: no such file or directory\n", src);
		goto out;
	}
	if (!realpath(src, real) ||
	    snprintf(split, sizeof(split), "%s/split", dest) >= (int)sizeof(split) ||
	    snprintf(path, sizeof(path), "%s/series", dest) >= (int)sizeof(path) ||
	    snprintf(imported, sizeof(imported), "%s/series.imported-from", dest) >=
	    (int)sizeof(imported) ||
	    (mkdir(dest, 0777) && errno != EEXIST) ||
	    (mkdir(split, 0777) && errno != EEXIST) || !(series = fopen(path, "w"))) {
		fprintf(stderr, "nmx: cannot import into %s: %s\n", dest, strerror(errno));
		goto out;
	}
	for (i = 0; i < files.n; i++) {
		if (!has_line(files.v[i], diff, 0)) {
			fprintf(stderr, "nmx: --patches: %s holds no diff\n", files.v[i]);
			goto out;
		}
		strlist_free(&parts);
		if (has_line(files.v[i], from, 1)) {
			remove_dir(split);
			if (mkdir(split, 0777) || mailsplit(files.v[i], split) ||
			    list_files(split, any, &parts)) {
				fprintf(stderr, "nmx: --patches: %s is not a readable mbox\n",
					files.v[i]);
				goto out;
			}
		} else {
			strlist_add(&parts, files.v[i]);
		}
		for (k = 0; k < parts.n; k++)
			if (add_part(dest, files.v[i], parts.v[k], ++n, series))
				goto out;
	}
	if (fclose(series)) {
		series = NULL;
		goto out;
	}
	series = NULL;
	/* What git am is given, and where it came from. */
	series = fopen(imported, "w");
	if (!series || copy_into(series, path) < 0)
		goto out;
	fprintf(series, "# imported from %s\n", real);
	err = 0;
out:
	if (series && fclose(series))
		err = -1;
	if (snprintf(split, sizeof(split), "%s/split", dest) < (int)sizeof(split))
		remove_dir(split);
	if (err)
		fprintf(stderr, "nmx: --patches %s: not imported\n", src);
	strlist_free(&files);
	strlist_free(&parts);
	return err;
}
