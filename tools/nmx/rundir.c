// SPDX-License-Identifier: GPL-2.0
/* The run directory's cell records, read in one place (rundir.h). */
#include <stdio.h>
#include <string.h>

#include "rundir.h"

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
