// SPDX-License-Identifier: GPL-2.0
/* The cell statuses' names and classes (status.h). */
#include <stddef.h>
#include <string.h>

#include "status.h"

static const struct {
	const char *name;
	unsigned int class;
} statuses[NR_CELL_STATUS] = {
	[ST_PASS] = { "PASS", SC_BOOTED },
	[ST_SKIP] = { "SKIP", SC_BOOTED },
	[ST_TEST_FAIL] = { "TEST_FAIL", SC_BOOTED },
	[ST_BOOT_FAIL] = { "BOOT_FAIL", SC_STOPPED },
	[ST_TIMEOUT] = { "TIMEOUT", SC_STOPPED },
	[ST_BUILD_FAIL] = { "BUILD_FAIL", SC_NOT_BUILT },
	[ST_CONFIG_FAIL] = { "CONFIG_FAIL", SC_NOT_BUILT },
	[ST_PATCH_FAIL] = { "PATCH_FAIL", SC_NOT_BUILT },
	[ST_INFRA_FAIL] = { "INFRA_FAIL", SC_ERROR },
	[ST_ERROR] = { "ERROR", SC_ERROR },
};

const char *status_name(enum cell_status s)
{
	return statuses[s].name;
}

int status_is(const char *name, enum cell_status s)
{
	return name && !strcmp(name, statuses[s].name);
}

int status_in_class(const char *name, unsigned int classes)
{
	int s;

	for (s = 0; s < NR_CELL_STATUS; s++)
		if (status_is(name, s))
			return !!(statuses[s].class & classes);
	return 0;
}
