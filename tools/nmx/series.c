// SPDX-License-Identifier: GPL-2.0
/*
 * nmx series: a variant's patches and how they become the tree a cell
 * builds (build.sh's prepare stage). list: the patches in order (the
 * tree's series less the variant's skip_patches, then a maintainer's);
 * key: what the applied series depends on (the pristine commit, each
 * patch's name and bytes), kept beside the worktree; commit: the series
 * applied onto "pristine" as one commit per patch, its author, date and
 * message from the mail, in a scratch index, so the worktree is not
 * touched until build.sh checks the result out (only files whose content
 * changed are rewritten).
 */
#define _XOPEN_SOURCE 700
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "facts.h"
#include "matrix.h"
#include "proc.h"
#include "sha256.h"

/* @dir/series's names in order, skipping @skip's, as paths into @out. */
static int read_series(const char *dir, const struct strlist *skip,
		       struct strlist *out)
{
	char path[PATH_MAX], *line = NULL;
	size_t cap = 0, n;
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/series", dir) >= (int)sizeof(path))
		return -1;
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "nmx series: cannot read %s: %s\n", path, strerror(errno));
		return -1;
	}
	while (getline(&line, &cap, f) > 0) {
		n = strcspn(line, "\r\n");
		line[n] = '\0';
		if (!n || line[0] == '#' || (skip && strlist_has(skip, line)))
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", dir, line) >= (int)sizeof(path))
			continue;
		strlist_add(out, path);
	}
	free(line);
	fclose(f);
	return 0;
}

/* The variant's patches (see above). */
static int variant_patches(const struct cell_facts *f,
			   struct strlist *out)
{
	char dir[PATH_MAX];

	if (facts_series_dir(f, dir, sizeof(dir)) ||
	    read_series(dir, &f->skip_patches, out))
		return -1;
	return f->extra_series_dir ? read_series(f->extra_series_dir, NULL, out) : 0;
}

/*
 * @argv with git's index in @index (NULL: the repository's), stdin from
 * @in_path (NULL: ours), stdout captured into @out or, with @out NULL,
 * with stderr to @err_fd (-1: ours). The exit status, or -1.
 */
static int run(char *const argv[], const char *index, const char *in_path,
	       char **out, int err_fd)
{
	char env_index[PATH_MAX + 16];
	char *env[] = { env_index, NULL };

	snprintf(env_index, sizeof(env_index), "GIT_INDEX_FILE=%s", index ? index : "");
	return run_command(argv, index ? env : NULL, in_path, out, err_fd, err_fd);
}

/* @s without its trailing line ends, as $(...) takes output. */
static char *chomp(char *s)
{
	size_t n = strlen(s);

	while (n && s[n - 1] == '\n')
		s[--n] = '\0';
	return s;
}

/* A mail header field of git mailinfo's output ("Author: A"), or NULL. */
static char *info_field(const char *info, const char *key)
{
	const char *p = info;
	size_t k = strlen(key), n;

	for (; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL) {
		n = strcspn(p, "\n");
		if (n > k + 2 && !strncmp(p, key, k) && p[k] == ':' && p[k + 1] == ' ')
			return strndup(p + k + 2, n - k - 2);
	}
	return NULL;
}

/*
 * One patch as a commit on *@commit, from @index (where it was applied)
 * and what git mailinfo made of its mail (@info, and @scratch/msg); the
 * new commit in *@commit.
 */
static int commit_patch(const char *src, const char *scratch, const char *index,
			const char *patch, const char *info, char **commit)
{
	static const char *const env_of[] = { "Author", "Email", "Date" };
	static const char *const env_name[] = {
		"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE"
	};
	char path[PATH_MAX], *msg, *tree = NULL, *subject, *value, *parent = *commit;
	char *env[4] = { NULL };	/* the author, from the mail */
	char *write_tree[] = { "git", "-C", (char *)src, "write-tree", NULL };
	char *commit_tree[] = { "git", "-C", (char *)src, "-c", "user.name=notrace-matrix",
				"-c", "user.email=notrace-matrix@localhost", "commit-tree",
				NULL, "-p", parent, NULL };
	const char *base = strrchr(patch, '/');
	FILE *f;
	size_t i, n = 0;
	int err = -1;

	snprintf(path, sizeof(path), "%s/msg", scratch);
	msg = slurp(path, NULL);
	if (!msg || run(write_tree, index, NULL, &tree, -1))
		goto out;
	/* A plain diff (no mail headers) gets the tool's identity. */
	subject = info_field(info, "Subject");
	snprintf(path, sizeof(path), "%s/message", scratch);
	f = fopen(path, "w");
	if (!f)
		goto out;
	fprintf(f, "%s\n\n%s\n", subject ? subject : base ? base + 1 : patch,
		chomp(msg));
	free(subject);
	if (fclose(f))
		goto out;
	for (i = 0; i < 3; i++) {
		value = info_field(info, env_of[i]);
		if (value) {
			env[n] = malloc(strlen(env_name[i]) + strlen(value) + 2);
			if (env[n])
				sprintf(env[n++], "%s=%s", env_name[i], value);
		}
		free(value);
	}
	commit_tree[8] = chomp(tree);
	*commit = NULL;
	err = run_command(commit_tree, env, path, commit, -1, -1) ? -1 : 0;
	if (*commit)
		chomp(*commit);
	free(parent);
	for (i = 0; i < n; i++)
		free(env[i]);
out:
	free(msg);
	free(tree);
	return err;
}

/*
 * The series applied onto @src's "pristine" (see the top of this file):
 * prints the last commit; or the name of the patch that does not apply,
 * its rejected hunk appended to @log, exit 1.
 */
static int series_commit(const struct strlist *patches, const char *src,
			 const char *log)
{
	char scratch[] = "/tmp/nmx-series.XXXXXX", index[PATH_MAX];
	char msg[PATH_MAX], diff[PATH_MAX];
	char *rev_parse[] = { "git", "-C", (char *)src, "rev-parse",
			      "pristine^{commit}", NULL };
	char *read_tree[] = { "git", "-C", (char *)src, "read-tree", NULL, NULL };
	char *mailinfo[] = { "git", "-C", (char *)src, "mailinfo", msg, diff, NULL };
	char *apply[] = { "git", "-C", (char *)src, "apply", "--cached", diff, NULL };
	char *check[] = { "git", "-C", (char *)src, "apply", "--cached", "--check",
			  "-v", diff, NULL };
	char *commit = NULL, *out = NULL;
	const char *base;
	int log_fd, ret = EXIT_INFRA;
	size_t i;

	log_fd = open(log, O_WRONLY | O_APPEND | O_CREAT, 0666);
	if (log_fd < 0 || !mkdtemp(scratch)) {
		fprintf(stderr, "nmx series: cannot write %s or a scratch directory: %s\n",
			log, strerror(errno));
		goto out;
	}
	snprintf(index, sizeof(index), "%s/index", scratch);
	snprintf(msg, sizeof(msg), "%s/msg", scratch);
	snprintf(diff, sizeof(diff), "%s/diff", scratch);
	if (run(rev_parse, NULL, NULL, &commit, log_fd)) {
		fprintf(stderr, "nmx series: %s has no commit 'pristine'\n", src);
		goto out;
	}
	read_tree[4] = chomp(commit);
	if (run(read_tree, index, NULL, NULL, log_fd))
		goto out;
	for (i = 0; i < patches->n; i++) {
		base = strrchr(patches->v[i], '/');
		base = base ? base + 1 : patches->v[i];
		free(out);
		out = NULL;
		if (run(mailinfo, NULL, patches->v[i], &out, log_fd)) {
			fprintf(stderr, "nmx series: git mailinfo cannot read %s\n", base);
			goto out;
		}
		if (run(apply, index, NULL, NULL, log_fd)) {
			dprintf(log_fd, "== %s does not apply; the rejected hunk:\n", base);
			run(check, index, NULL, NULL, log_fd);
			printf("%s\n", base);
			ret = EXIT_FAIL;
			goto out;
		}
		if (commit_patch(src, scratch, index, patches->v[i], out, &commit)) {
			fprintf(stderr, "nmx series: cannot commit %s\n", base);
			goto out;
		}
	}
	printf("%s\n", commit);
	ret = EXIT_PASS;
out:
	if (log_fd >= 0)
		close(log_fd);
	free(commit);
	free(out);
	if (scratch[strlen(scratch) - 1] != 'X') {
		const char *names[] = { "index", "msg", "diff", "message" };
		char p[PATH_MAX];

		for (i = 0; i < 4; i++) {
			snprintf(p, sizeof(p), "%s/%s", scratch, names[i]);
			unlink(p);
		}
		rmdir(scratch);
	}
	return ret;
}

/*
 * What the applied series depends on: sha256 over the pristine commit's
 * "HASH\n", then each patch's name, a line end and its bytes.
 */
static int series_key(const struct strlist *patches, const char *pristine)
{
	char *rev_parse[] = { "git", "-C", (char *)pristine, "rev-parse", "pristine", NULL };
	char *head = NULL, hex[65];
	unsigned char digest[32];
	struct sha256 s;
	const char *base;
	size_t i;
	FILE *f;
	int err;

	if (run(rev_parse, NULL, NULL, &head, -1)) {
		free(head);
		fprintf(stderr, "nmx series: %s has no commit 'pristine'\n", pristine);
		return EXIT_INFRA;
	}
	sha256_init(&s);
	sha256_update(&s, head, strlen(head));
	free(head);
	for (i = 0; i < patches->n; i++) {
		base = strrchr(patches->v[i], '/');
		base = base ? base + 1 : patches->v[i];
		sha256_update(&s, base, strlen(base));
		sha256_update(&s, "\n", 1);
		f = fopen(patches->v[i], "r");
		if (!f) {
			fprintf(stderr, "nmx series: cannot read %s: %s\n",
				patches->v[i], strerror(errno));
			return EXIT_INFRA;
		}
		err = sha256_stream(&s, f);
		fclose(f);
		if (err) {
			fprintf(stderr, "nmx series: cannot read %s\n", patches->v[i]);
			return EXIT_INFRA;
		}
	}
	sha256_final(&s, digest);
	sha256_hex(digest, hex);
	printf("%s\n", hex);
	return EXIT_PASS;
}

int cmd_series(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "described", required_argument, 0, 'F' },
		{ "src", required_argument, 0, 's' },
		{ "log", required_argument, 0, 'l' },
		{ 0 }
	};
	const char *described = NULL, *src = NULL, *log = NULL, *verb;
	struct strlist patches = { 0 };
	struct cell_facts f;
	int opt, ret = EXIT_INFRA;
	size_t i;

	if (argc < 2)
		goto usage;
	verb = argv[1];
	argc--;
	argv++;
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'F': described = optarg; break;
		case 's': src = optarg; break;
		case 'l': log = optarg; break;
		default: goto usage;
		}
	}
	if (optind != argc || !described ||
	    (strcmp(verb, "list") && !src) || (!strcmp(verb, "list") && src) ||
	    (!strcmp(verb, "commit") != !!log))
		goto usage;
	if (facts_read(&f, described))
		return EXIT_INFRA;
	if (!variant_patches(&f, &patches)) {
		if (!strcmp(verb, "list")) {
			for (i = 0; i < patches.n; i++)
				printf("%s\n", patches.v[i]);
			ret = EXIT_PASS;
		} else if (!strcmp(verb, "key")) {
			ret = series_key(&patches, src);
		} else if (!strcmp(verb, "commit")) {
			ret = series_commit(&patches, src, log);
		} else {
			facts_free(&f);
			strlist_free(&patches);
			goto usage;
		}
	}
	facts_free(&f);
	strlist_free(&patches);
	return ret;
usage:
	fprintf(stderr, "usage: nmx series list --described CELL_TSV\n"
		"       nmx series key --described CELL_TSV --src PRISTINE_REPO\n"
		"       nmx series commit --described CELL_TSV --src WORKTREE --log LOG\n");
	return EXIT_INFRA;
}
