// SPDX-License-Identifier: GPL-2.0
/* The fake tree's usr/gen_init_cpio: the "archive" is the list itself. */
#include <stdio.h>

int main(int argc, char **argv)
{
	FILE *f = argc > 1 ? fopen(argv[argc - 1], "r") : NULL;
	int ch;

	if (!f)
		return 1;
	while ((ch = getc(f)) != EOF)
		putchar(ch);
	return fclose(f) != 0;
}
