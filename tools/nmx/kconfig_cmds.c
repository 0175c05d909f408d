// SPDX-License-Identifier: GPL-2.0
/*
 * nmx's kconfig commands: fragment (the symbols a cell asks for) and
 * config-check (which of them did not survive olddefconfig).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "facts.h"
#include "matrix.h"

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

int cmd_fragment(int argc, char **argv)
{
	struct cell_facts f;
	const struct cell *c = &f.cell;
	struct selection s;
	size_t i;
	FILE *out;
	int ret = EXIT_INFRA;

	if (parse_selection(argc, argv, "tree variant cell described common o", &s))
		return EXIT_INFRA;
	if (!s.common || !s.out) {
		fprintf(stderr, "nmx fragment: --common and -o are required\n");
		return EXIT_INFRA;
	}
	if (selection_facts(&s, &f))
		return EXIT_INFRA;
	if (c->kconfig_since.n && !f.tree) {
		fprintf(stderr, "nmx fragment: cell %s asks for symbols by kernel version (kconfig_since): give --tree\n",
			c->name);
		goto free_facts;
	}
	out = fopen(s.out, "w");
	if (!out) {
		fprintf(stderr, "nmx: cannot write %s: %m\n", s.out);
		goto free_facts;
	}
	fprintf(out, "# Requested kconfig for cell %s, in merge order:\n"
		"# common fragment, the cell's fragment, the variant's, matrix.yaml extras.\n",
		c->name);
	if (copy_fragment(out, s.common))
		goto close_out;
	fprintf(out, "\n# ---- %s (kconfig)\n", c->files.v[0]);
	for (i = 0; i < c->kconfig.n; i++)
		fprintf(out, "%s\n", c->kconfig.v[i]);
	for (i = 0; i < c->kconfig_since.n; i++)
		if (version_at_least(f.tree_version, c->kconfig_since_versions.v[i]))
			fprintf(out, "# kconfig_since %s, tree %s is %s\n%s\n",
				c->kconfig_since_versions.v[i], f.tree,
				f.tree_version, c->kconfig_since.v[i]);
	if (f.variant_kconfig.n) {
		fprintf(out, "\n# ---- %s (variant %s of %s, kconfig)\n",
			f.matrix_file, f.variant, f.tree);
		for (i = 0; i < f.variant_kconfig.n; i++)
			fprintf(out, "%s\n", f.variant_kconfig.v[i]);
	}
	fprintf(out, "\n# ---- %s (run.kconfig)\n", f.matrix_file);
	for (i = 0; i < f.run_kconfig.n; i++)
		fprintf(out, "%s\n", f.run_kconfig.v[i]);
	ret = EXIT_PASS;
close_out:
	if (fclose(out))
		ret = EXIT_INFRA;
free_facts:
	facts_free(&f);
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

int cmd_config_check(int argc, char **argv)
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
