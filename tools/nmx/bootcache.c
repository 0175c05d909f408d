// SPDX-License-Identifier: GPL-2.0
/*
 * nmx boot-cache: the consoles a later run may judge instead of booting
 * again (matrix.sh --reuse-boots, and --patches for the cells a patch
 * leaves byte for byte the same). An entry is CACHE/KEY/ with boot.log
 * and origin (the run directory's cell that booted it); KEY digests
 * everything that decides a console, so a console is reused only for a
 * boot that would have run the same code on the same machine.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "console.h"
#include "facts.h"
#include "matrix.h"
#include "sha256.h"

/* Consoles no boot has matched for this long are dropped when one is kept. */
#define BOOT_CACHE_DAYS	30
#define BOOT_KEY_HEX	16

static int hash_file(struct sha256 *s, const char *what, const char *path)
{
	FILE *f = fopen_regular(path);

	if (!f)
		return -1;
	/* The name says which input the bytes are, not where they were. */
	sha256_update(s, what, strlen(what) + 1);
	if (sha256_stream(s, f)) {
		fprintf(stderr, "nmx: cannot read %s: %s\n", path, strerror(errno));
		fclose(f);
		return -1;
	}
	fclose(f);
	return 0;
}

static void hash_field(struct sha256 *s, const char *name, const char *value)
{
	sha256_update(s, name, strlen(name) + 1);
	sha256_update(s, value ? value : "", strlen(value ? value : "") + 1);
}

/*
 * What decides a console: the engine and loader, the accelerator, the
 * time limit, the kernel arguments, QEMU's version, the cell's arch
 * files (its own and the one it extends), and the bytes of kernel,
 * initramfs, DTB and the cell's U-Boot.
 */
static int boot_key(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cell", required_argument, 0, 'c' },
		{ "described", required_argument, 0, 'F' },
		{ "engine", required_argument, 0, 'e' },
		{ "loader", required_argument, 0, 'L' },
		{ "accel", required_argument, 0, 'A' },
		{ "timeout", required_argument, 0, 'T' },
		{ "kernel-args", required_argument, 0, 'K' },
		{ "qemu-version", required_argument, 0, 'q' },
		{ "kernel", required_argument, 0, 'k' },
		{ "initrd", required_argument, 0, 'i' },
		{ "dtb", required_argument, 0, 'd' },
		{ 0 }
	};
	const char *cell = NULL, *described = NULL, *engine = NULL, *loader = NULL, *accel = NULL;
	const char *timeout = NULL, *kargs = "", *qemu = NULL;
	const char *kernel = NULL, *initrd = NULL, *dtb = NULL;
	unsigned char digest[32];
	char hex[65];
	struct sha256 s;
	struct selection sel = { 0 };
	struct cell_facts f;
	const struct cell *c = &f.cell;
	struct stat st;
	size_t i;
	int opt, ret = EXIT_INFRA;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': cell = optarg; break;
		case 'F': described = optarg; break;
		case 'e': engine = optarg; break;
		case 'L': loader = optarg; break;
		case 'A': accel = optarg; break;
		case 'T': timeout = optarg; break;
		case 'K': kargs = optarg; break;
		case 'q': qemu = optarg; break;
		case 'k': kernel = optarg; break;
		case 'i': initrd = optarg; break;
		case 'd': dtb = optarg; break;
		default: return EXIT_INFRA;
		}
	}
	if (optind != argc || !cell == !described || !engine || !loader ||
	    !accel || !timeout || !qemu || !kernel || !initrd) {
		fprintf(stderr, "usage: nmx boot-cache key --cell C|--described CELL_TSV --engine E --loader L --accel A --timeout SECS [--kernel-args ARGS] --qemu-version V --kernel K --initrd I [--dtb D]\n");
		return EXIT_INFRA;
	}
	sel.cell = cell;
	sel.described = described;
	if (selection_facts(&sel, &f))
		return EXIT_INFRA;
	sha256_init(&s);
	hash_field(&s, "engine", engine);
	hash_field(&s, "loader", loader);
	hash_field(&s, "accel", accel);
	hash_field(&s, "timeout", timeout);
	hash_field(&s, "kernel-args", kargs);
	hash_field(&s, "qemu", qemu);
	for (i = 0; i < c->files.n; i++)
		if (hash_file(&s, "arch file", c->files.v[i]))
			goto out;
	if (hash_file(&s, "kernel", kernel) || hash_file(&s, "initrd", initrd) ||
	    (dtb && hash_file(&s, "dtb", dtb)))
		goto out;
	/* A cell without its firmware installed cannot boot through it. */
	if (c->uboot_firmware && !stat(c->uboot_firmware, &st) &&
	    hash_file(&s, "u-boot", c->uboot_firmware))
		goto out;
	sha256_final(&s, digest);
	sha256_hex(digest, hex);
	printf("%.*s\n", BOOT_KEY_HEX, hex);
	ret = EXIT_PASS;
out:
	facts_free(&f);
	return ret;
}

static int valid_key(const char *key)
{
	return key && strlen(key) == BOOT_KEY_HEX &&
	       strspn(key, "0123456789abcdef") == BOOT_KEY_HEX;
}

/* Copy @from to @to through @to.tmp, so a reader never sees half a file. */
static int copy_file(const char *from, const char *to)
{
	char tmp[4096], buf[65536];
	FILE *in, *out;
	size_t n;
	int err = 0;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", to) >= (int)sizeof(tmp))
		return -1;
	in = fopen_regular(from);
	if (!in)
		return -1;
	out = fopen(tmp, "w");
	if (!out) {
		fprintf(stderr, "nmx: cannot write %s: %s\n", tmp, strerror(errno));
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			err = 1;
	if (ferror(in))
		err = 1;
	fclose(in);
	if (fclose(out) || err || rename(tmp, to)) {
		fprintf(stderr, "nmx: cannot copy %s to %s\n", from, to);
		unlink(tmp);
		return -1;
	}
	return 0;
}

/* The first line of @path into @buf, without its newline; -1 if none. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)size, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

struct entry_args {
	const char *cache, *key, *log, *origin;
	int timed_out;
};

static int entry_args(int argc, char **argv, const char *verb,
		      struct entry_args *a)
{
	static const struct option opts[] = {
		{ "cache", required_argument, 0, 'C' },
		{ "key", required_argument, 0, 'k' },
		{ "log", required_argument, 0, 'l' },
		{ "origin", required_argument, 0, 'o' },
		{ "timed-out", no_argument, 0, 'T' },
		{ 0 }
	};
	int opt, keep = !strcmp(verb, "keep");

	memset(a, 0, sizeof(*a));
	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'C': a->cache = optarg; break;
		case 'k': a->key = optarg; break;
		case 'l': a->log = optarg; break;
		case 'o': if (!keep) goto usage; a->origin = optarg; break;
		case 'T': if (!keep) goto usage; a->timed_out = 1; break;
		default: goto usage;
		}
	}
	if (optind != argc || !a->cache || !a->key || !a->log ||
	    (keep && !a->origin))
		goto usage;
	if (!valid_key(a->key)) {
		fprintf(stderr, "nmx boot-cache %s: --key '%.64s' is not %d hex digits (nmx boot-cache key)\n",
			verb, a->key, BOOT_KEY_HEX);
		return -1;
	}
	if (keep && (strchr(a->origin, '\n') || !*a->origin)) {
		fprintf(stderr, "nmx boot-cache keep: --origin must be one non-empty line\n");
		return -1;
	}
	return 0;
usage:
	if (keep)
		fprintf(stderr, "usage: nmx boot-cache keep --cache DIR --key KEY --log BOOT_LOG --origin RUN/TREE-VARIANT/CELL [--timed-out]\n");
	else
		fprintf(stderr, "usage: nmx boot-cache lookup --cache DIR --key KEY --log BOOT_LOG\n");
	return -1;
}

/* The console of an earlier boot with this key into --log; its origin printed. */
static int lookup(int argc, char **argv)
{
	struct entry_args a;
	char dir[4096], path[4096], origin[4096];

	if (entry_args(argc, argv, "lookup", &a))
		return EXIT_INFRA;
	if (path_join(dir, sizeof(dir), a.cache, a.key) ||
	    path_join(path, sizeof(path), dir, "origin"))
		return EXIT_INFRA;
	if (read_line(path, origin, sizeof(origin)))
		return EXIT_FAIL;
	if (path_join(path, sizeof(path), dir, "boot.log"))
		return EXIT_INFRA;
	if (access(path, R_OK))
		return EXIT_FAIL;
	if (copy_file(path, a.log))
		return EXIT_INFRA;
	/* Matched: it stays as long as a later boot keeps matching it. */
	utimensat(AT_FDCWD, dir, NULL, 0);
	printf("%s\n", origin);
	return EXIT_PASS;
}

static void remove_entry(const char *dir)
{
	char path[4096];
	struct dirent *d;
	DIR *dp = opendir(dir);

	if (!dp)
		return;
	while ((d = readdir(dp)))
		if (strcmp(d->d_name, ".") && strcmp(d->d_name, "..")) {
			if (!path_join(path, sizeof(path), dir, d->d_name))
				unlink(path);
		}
	closedir(dp);
	rmdir(dir);
}

static void evict(const char *cache)
{
	time_t limit = time(NULL) - (time_t)BOOT_CACHE_DAYS * 24 * 3600;
	char path[4096];
	struct dirent *d;
	struct stat st;
	DIR *dp = opendir(cache);

	if (!dp)
		return;
	while ((d = readdir(dp))) {
		if (!valid_key(d->d_name))
			continue;
		if (!path_join(path, sizeof(path), cache, d->d_name) && !stat(path, &st) && S_ISDIR(st.st_mode) && st.st_mtime < limit)
			remove_entry(path);
	}
	closedir(dp);
}

/*
 * Keep --log as the console of this key, if it ran to the guest's final
 * marker and was not cut off by the time limit: a cut-off console is the
 * limit's, not the kernel's, and is never reused. Exit 0 kept, 1 not.
 */
static int keep(int argc, char **argv)
{
	struct entry_args a;
	char dir[4096], path[4096];
	FILE *f;
	int ended;

	if (entry_args(argc, argv, "keep", &a))
		return EXIT_INFRA;
	if (a.timed_out)
		return EXIT_FAIL;
	ended = console_ended(a.log);
	if (ended < 0)
		return EXIT_INFRA;
	if (!ended)
		return EXIT_FAIL;
	if (path_join(dir, sizeof(dir), a.cache, a.key))
		return EXIT_INFRA;
	if ((mkdir(a.cache, 0777) && errno != EEXIST) ||
	    (mkdir(dir, 0777) && errno != EEXIST)) {
		fprintf(stderr, "nmx: cannot make %s: %s\n", dir, strerror(errno));
		return EXIT_INFRA;
	}
	if (path_join(path, sizeof(path), dir, "boot.log") || copy_file(a.log, path) ||
	    path_join(path, sizeof(path), dir, "origin"))
		return EXIT_INFRA;
	f = fopen(path, "w");
	if (!f || fprintf(f, "%s\n", a.origin) < 0 || fclose(f)) {
		fprintf(stderr, "nmx: cannot write %s\n", path);
		return EXIT_INFRA;
	}
	evict(a.cache);
	return EXIT_PASS;
}

int cmd_boot_cache(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "key"))
		return boot_key(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "lookup"))
		return lookup(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "keep"))
		return keep(argc - 1, argv + 1);
	fprintf(stderr, "usage: nmx boot-cache key|lookup|keep ... (nmx boot-cache --help)\n");
	return EXIT_INFRA;
}
