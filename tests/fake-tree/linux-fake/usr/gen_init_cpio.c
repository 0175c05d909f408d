// SPDX-License-Identifier: GPL-2.0
/*
 * The fake tree's usr/gen_init_cpio: the "archive" is the list itself,
 * with each file's content in place of the host path it was read from,
 * as a real archive holds it (two builds of the same files in different
 * directories give the same bytes).
 */
#include <stdio.h>
#include <string.h>

static int put_file(const char *path)
{
	FILE *f = fopen(path, "r");
	int ch;

	if (!f)
		return 1;
	while ((ch = getc(f)) != EOF)
		putchar(ch);
	return fclose(f) != 0;
}

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[argc - 1], "r") : NULL;
	char line[4096], name[1024], src[2048], rest[512];
	int bad = 0;

	if (!f)
		return 1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "file %1023s %2047s %511[^\n]", name, src, rest) == 3) {
			printf("file %s %s\n", name, rest);
			bad |= put_file(src);
			continue;
		}
		fputs(line, stdout);
	}
	return (fclose(f) != 0) | bad;
}
