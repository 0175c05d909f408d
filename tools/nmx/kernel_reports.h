/* SPDX-License-Identifier: GPL-2.0 */
/* Kernel failure reports on the console, and the power-off lines. */
#ifndef NMX_KERNEL_REPORTS_H
#define NMX_KERNEL_REPORTS_H

enum kernel_report_kind {
	KR_PANIC,	/* the kernel stopped */
	KR_NO_INIT,	/* the kernel could not start the guest */
	KR_ERROR,	/* the kernel complained: the run is not to be trusted */
};

struct kernel_report {
	const char *key;		/* matched anywhere in a line */
	enum kernel_report_kind kind;
	const char *class;		/* named in the verdict's reason */
	int weak;			/* frames a report: quote the next one */
};

extern const struct kernel_report kernel_reports[];

/* The first entry of @kind whose key @line contains (and no ignore), or NULL. */
const struct kernel_report *kernel_report_match(const char *line,
					       enum kernel_report_kind kind);

/* Is @line (blank or) what the kernel prints while powering off? */
int is_poweroff_noise(const char *line);

#endif
