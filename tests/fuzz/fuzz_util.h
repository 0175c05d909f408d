/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers of the fuzz targets that read files: the input is split into
 * parts at "\n--8<--\n" and each part written to a file in a private
 * directory, so the tools' real loaders (paths in, like in a run) are what
 * is fuzzed.
 */
#ifndef NMX_FUZZ_UTIL_H
#define NMX_FUZZ_UTIL_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define FUZZ_SEP "\n--8<--\n"

/* The private directory, made once per process. */
static const char *fuzz_dir(void)
{
	static char dir[256];

	if (!*dir) {
		snprintf(dir, sizeof(dir), "/dev/shm/nmx-fuzz-XXXXXX");
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			abort();
		}
	}
	return dir;
}

static void fuzz_write(const char *path, const uint8_t *data, size_t size)
{
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		abort();
	}
	if (size)
		fwrite(data, 1, size, f);
	fclose(f);
}

/* Part @i of the input (empty when there are fewer parts). */
static void fuzz_part(const uint8_t *data, size_t size, int i,
		      const uint8_t **part, size_t *len)
{
	const uint8_t *p = data, *end = data + size, *sep;
	size_t n = strlen(FUZZ_SEP);

	for (;;) {
		sep = memmem(p, end - p, FUZZ_SEP, n);
		if (!i--)
			break;
		if (!sep) {
			p = end;
			break;
		}
		p = sep + n;
	}
	*part = p;
	*len = (sep && p != end ? sep : end) - p;
}

#endif
