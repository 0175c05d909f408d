/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A cell's status: the one vocabulary of verdict.json, result.json,
 * stages.tsv and the reports (docs/verdicts.md), spelled here only.
 * Scenario results (PASS, FAIL, SKIP, XFAIL, XPASS) and KCIDB's statuses
 * are other vocabularies.
 */
#ifndef NMX_STATUS_H
#define NMX_STATUS_H

enum cell_status {
	ST_PASS,
	ST_SKIP,	/* booted, but every subtest skipped */
	ST_TEST_FAIL,
	ST_BOOT_FAIL,
	ST_TIMEOUT,
	ST_BUILD_FAIL,
	ST_CONFIG_FAIL,
	ST_PATCH_FAIL,
	ST_INFRA_FAIL,
	ST_ERROR,	/* the reports: a cell whose record cannot be read */
	NR_CELL_STATUS
};

/* What a status says of how far the cell got. */
enum status_class {
	SC_BOOTED = 1,		/* the guest ran its subtests: PASS, SKIP, TEST_FAIL */
	SC_STOPPED = 2,		/* built, but no verdict from the guest: BOOT_FAIL, TIMEOUT */
	SC_NOT_BUILT = 4,	/* BUILD_FAIL, CONFIG_FAIL, PATCH_FAIL */
	SC_ERROR = 8,		/* the harness's, not the kernel's: INFRA_FAIL, ERROR */
};

const char *status_name(enum cell_status s);

/* Is @name status @s? A NULL or unknown name is none. */
int status_is(const char *name, enum cell_status s);

/* Is @name in one of @classes (SC_* or'ed)? */
int status_in_class(const char *name, unsigned int classes);

#endif
