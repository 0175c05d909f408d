/* SPDX-License-Identifier: GPL-2.0 */
/* A cell's boot as a LAVA job, and its console back from LAVA's log. */
#ifndef NMX_LAVA_H
#define NMX_LAVA_H

#include <stdio.h>

#include "matrix.h"

struct lava_boot {
	const char *name;	/* the job's name */
	const char *kernel, *initrd, *dtb;	/* absolute paths; dtb may be NULL */
	unsigned int timeout;	/* seconds for the boot and for the suite */
	const char *kernel_args;	/* after the cell's command line, or NULL */
};

/* LAVA's architecture name for the cell (the job's context.arch). */
const char *lava_arch(const struct cell *c);
/*
 * device.yaml for lava-run --device: the cell's machine under @accel,
 * QEMU's -accel value as cell_accel() resolved it for the job's tree.
 */
int lava_write_device(const struct cell *c, const char *accel, FILE *f);
/* job.yaml: deploy kernel, initramfs and DTB to tmpfs, boot, watch KTAP. */
int lava_write_job(const struct cell *c, const struct lava_boot *b, FILE *f);
/*
 * The console lines of a lava-run log (records of level "target"), one
 * per line on @out. Returns how many, or -1 on an I/O error; @records
 * counts the log's records of any level (0: not a lava-run log).
 */
long lava_log_console(FILE *in, FILE *out, long *records);

#endif
