// SPDX-License-Identifier: GPL-2.0
/*
 * nmx stage-key: what decides a build stage's output, as the key stored
 * beside it (build.sh): a stage whose key matches is not redone, so an
 * unchanged rerun costs seconds, not a Kbuild walk. The key takes the
 * worktree's commit (or, for configuring, only the files configuring
 * reads), any uncommitted change to it, the compiler's version, the
 * stage's input files and its make variables.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "facts.h"
#include "matrix.h"
#include "proc.h"
#include "rundir.h"
#include "sha256.h"

#define STAGE_KEY_HEX	16

/*
 * Does configuring read @path (a path in the tree)? Kconfig files,
 * config fragments, scripts/ (kconfig itself), the top Makefile and the
 * architectures' Makefiles: a series change to a C file or a header
 * keeps the .config and skips tinyconfig and olddefconfig.
 */
static int kconfig_input(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t n = strlen(path);

	base = base ? base + 1 : path;
	if (!strncmp(base, "Kconfig", 7) || !strncmp(path, "scripts/", 8) ||
	    !strcmp(path, "Makefile"))
		return 1;
	if (n >= 7 && !strcmp(path + n - 7, ".config"))
		return 1;
	/* arch/<arch>/Makefile */
	if (!strncmp(path, "arch/", 5) && !strcmp(base, "Makefile")) {
		const char *slash = strchr(path + 5, '/');

		return slash && slash + 1 == base;
	}
	return 0;
}

/*
 * Hash what @argv prints (run without a shell). @kconfig: only the
 * lines of `git ls-tree -r` whose path configuring reads; @first: only
 * the first line. -1, said, if it cannot run or fails.
 */
static int hash_command(struct sha256 *s, char *const argv[], int kconfig,
			int first)
{
	char *out = NULL, *line, *end, *tab;
	int lines;

	if (run_command(argv, NULL, NULL, &out, -1, -1)) {
		free(out);
		fprintf(stderr, "nmx stage-key: '");
		for (lines = 0; argv[lines]; lines++)
			fprintf(stderr, "%s%s", lines ? " " : "", argv[lines]);
		fprintf(stderr, "' failed\n");
		return -1;
	}
	for (line = out; *line; line = end) {
		end = strchr(line, '\n');
		end = end ? end + 1 : line + strlen(line);
		if (kconfig) {
			/* "MODE TYPE HASH<TAB>PATH": configuring's paths only */
			tab = memchr(line, '\t', (size_t)(end - line));
			if (!tab)
				continue;
			tab = strndup(tab + 1, (size_t)(end - tab - 1));
			tab[strcspn(tab, "\n")] = '\0';
			lines = kconfig_input(tab);
			free(tab);
			if (!lines)
				continue;
		}
		sha256_update(s, line, (size_t)(end - line));
		if (first)
			break;
	}
	free(out);
	return 0;
}

/* @path's bytes, or with @symbols its lines that are no comment. */
static int hash_input(struct sha256 *s, const char *path, int symbols)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	int err;
	FILE *f = fopen_regular(path);

	if (!f)
		return -1;
	sha256_update(s, symbols ? "config" : "file", symbols ? 7 : 5);
	if (!symbols) {
		err = sha256_stream(s, f);
		fclose(f);
		return err;
	}
	while ((len = getline(&line, &cap, f)) > 0)
		if (line[0] != '#')
			sha256_update(s, line, (size_t)len);
	free(line);
	fclose(f);
	return 0;
}

/*
 * --stage NAME: the inputs rundir.c's table names for the stage, taken
 * from the cell's facts (@f), its directory and its build directory,
 * into what the options would give. -1, said, if one is missing.
 */
static int stage_inputs(const char *name, const struct cell_facts *f,
			const char *cell_dir, const char *build_dir,
			int *kconfig, struct strlist *files,
			struct strlist *configs, struct strlist *texts,
			char **cc)
{
	const struct rundir_stage *st = rundir_stage(name);
	const enum key_input *in;
	char path[4096];
	size_t i;

	if (!st || st->key[0] == KEY_END) {
		fprintf(stderr, "nmx stage-key: %s is no stage with a key\n", name);
		return -1;
	}
	for (in = st->key; *in != KEY_END; in++) {
		switch (*in) {
		case KEY_TREE_COMMIT:
			break;
		case KEY_KCONFIG_FILES:
			*kconfig = 1;
			break;
		case KEY_COMPILER:
			snprintf(path, sizeof(path), "%sgcc",
				 f->cell.cross_compile ? f->cell.cross_compile : "");
			*cc = strdup(path);
			break;
		case KEY_REQUESTED_SYMBOLS:
		case KEY_DOTCONFIG:
			if (!(*in == KEY_DOTCONFIG ? build_dir : cell_dir)) {
				fprintf(stderr, "nmx stage-key: stage %s takes %s: give %s\n",
					name, rundir_key_input_name(*in),
					*in == KEY_DOTCONFIG ? "--build-dir" : "--cell-dir");
				return -1;
			}
			if (*in == KEY_DOTCONFIG) {
				snprintf(path, sizeof(path), "%s/.config", build_dir);
				strlist_add(files, path);
			} else {
				snprintf(path, sizeof(path), "%s/requested.config",
					 cell_dir);
				strlist_add(configs, path);
			}
			break;
		case KEY_MAKE_VARS:
			break;	/* the texts after "--" */
		case KEY_MAKE_TARGETS:
			for (i = 0; i < f->cell.make_targets.n; i++)
				strlist_add(texts, f->cell.make_targets.v[i]);
			break;
		case KEY_END:
		case NR_KEY_INPUTS:
			break;
		}
	}
	return 0;
}

int cmd_stage_key(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "src", required_argument, 0, 's' },
		{ "compiler", required_argument, 0, 'c' },
		{ "kconfig", no_argument, 0, 'k' },
		{ "file", required_argument, 0, 'f' },
		{ "config", required_argument, 0, 'C' },
		{ "stage", required_argument, 0, 'S' },
		{ "described", required_argument, 0, 'F' },
		{ "cell-dir", required_argument, 0, 'D' },
		{ "build-dir", required_argument, 0, 'B' },
		{ 0 }
	};
	const char *src = NULL, *cc = NULL, *stage = NULL, *described = NULL;
	const char *cell_dir = NULL, *build_dir = NULL;
	struct strlist files = { 0 }, configs = { 0 }, texts = { 0 };
	struct cell_facts f = { 0 };
	unsigned char digest[32];
	char hex[65], *stage_cc = NULL;
	struct sha256 s;
	int opt, kconfig = 0, ret = EXIT_INFRA, i, explicit = 0;
	size_t k;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 's': src = optarg; break;
		case 'c': cc = optarg; explicit = 1; break;
		case 'k': kconfig = 1; explicit = 1; break;
		case 'f': strlist_add(&files, optarg); explicit = 1; break;
		case 'C': strlist_add(&configs, optarg); explicit = 1; break;
		case 'S': stage = optarg; break;
		case 'F': described = optarg; break;
		case 'D': cell_dir = optarg; break;
		case 'B': build_dir = optarg; break;
		default: goto out;
		}
	}
	if (!src || (stage ? explicit || !described : !cc || described ||
		     cell_dir || build_dir)) {
		fprintf(stderr, "usage: nmx stage-key --src TREE --compiler CC [--kconfig] [--file F]... [--config F]... [-- TEXT...]\n"
			"       nmx stage-key --src TREE --stage NAME --described CELL_TSV [--cell-dir D] [--build-dir B] [-- MAKE_VARS...]\n");
		goto out;
	}
	if (stage) {
		if (facts_read(&f, described) ||
		    stage_inputs(stage, &f, cell_dir, build_dir, &kconfig,
				 &files, &configs, &texts, &stage_cc))
			goto out;
		cc = stage_cc;
	}
	sha256_init(&s);
	{
		char *head[] = { "git", "-C", (char *)src, "rev-parse", "HEAD", NULL };
		char *tree[] = { "git", "-C", (char *)src, "ls-tree", "-r", "HEAD", NULL };
		char *status[] = { "git", "-C", (char *)src, "status", "--porcelain",
				   "--untracked-files=no", NULL };
		char *version[] = { (char *)cc, "--version", NULL };

		if (hash_command(&s, kconfig ? tree : head, kconfig, 0) ||
		    hash_command(&s, status, 0, 0) ||
		    hash_command(&s, version, 0, 1))
			goto out;
	}
	for (k = 0; k < files.n; k++)
		if (hash_input(&s, files.v[k], 0))
			goto out;
	for (k = 0; k < configs.n; k++)
		if (hash_input(&s, configs.v[k], 1))
			goto out;
	for (i = optind; i < argc; i++)
		sha256_update(&s, argv[i], strlen(argv[i]) + 1);
	for (k = 0; k < texts.n; k++)
		sha256_update(&s, texts.v[k], strlen(texts.v[k]) + 1);
	sha256_final(&s, digest);
	sha256_hex(digest, hex);
	printf("%.*s\n", STAGE_KEY_HEX, hex);
	ret = EXIT_PASS;
out:
	strlist_free(&files);
	strlist_free(&configs);
	strlist_free(&texts);
	free(stage_cc);
	facts_free(&f);
	return ret;
}
