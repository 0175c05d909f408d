/* SPDX-License-Identifier: GPL-2.0 */
/* The verdict: what the guest printed on the console, and nothing else. */
#ifndef NMX_CONSOLE_H
#define NMX_CONSOLE_H

#include <stdio.h>
#include <jansson.h>

#include "matrix.h"
#include "protocol.h"	/* guest/: what the guest prints besides KTAP */

/*
 * The files the guest frames with NMX-FILE-BEGIN/END go into this
 * subdirectory of the cell's directory, where nothing of the host's
 * lives: a frame can never create, replace or truncate boot.log,
 * reproduce.sh, result.json or any other file of the cell.
 */
#define NMX_GUEST_FILES_DIR "guest"
/*
 * Bounds on what a console may frame: far above what the guest prints
 * (some thirty frames, the largest a trace buffer of 512 KiB), low enough
 * that a runaway or hostile console cannot fill the disk.
 */
#define NMX_MAX_FRAMES 128
#define NMX_MAX_FRAME_BYTES (1L << 20)

struct subtest {
	int number;
	char *name;
	int ok;
	int xfail;		/* failed, and FINDINGS.md expects it */
	int xpass;		/* passed, but FINDINGS.md expects a failure */
	char *finding;		/* the finding the xfail line names, or NULL */
	char *directive;	/* "SKIP ...", "XFAIL ...", other text, or NULL */
	struct strlist diag;	/* "# " lines printed before the result */
	double seconds;		/* by the guest's clock, or -1 */
};

/* Expected failures: name[i] is expected to fail because of why[i] ("" if unsaid). */
struct xfails {
	struct strlist name, why;
};

struct verdict {
	const char *status;	/* status_name(): PASS SKIP TEST_FAIL BOOT_FAIL TIMEOUT */
	char reason[1024];
	int ktap_seen;
	int planned;		/* -1 until a plan line is seen */
	struct subtest *tests;
	size_t nr_tests;
	int malformed;		/* results out of order or duplicated */
	int marker;
	int fail_marker;
	int nr_markers;		/* PASS and FAIL markers: exactly one expected */
	char *after_marker;	/* first line after a marker, power-off aside */
	int nr_xfail;		/* failures FINDINGS.md expects */
	char *panic;		/* first panic line */
	char *kernel_error;	/* first line kernel_reports.c names */
	const char *kernel_error_class;
	int kernel_error_weak;	/* only a frame ("cut here"): a later line says more */
	int nr_kernel_errors;
	char *no_init;		/* the kernel's complaint about /init */
	long garbage_bytes;
	int lines;
	struct strlist files;	/* NMX-FILE blocks written out */
	char *write_failed;	/* the first of them that could not be written */
	int write_errno;
	char *read_failed;	/* the console could not be read to its end */
	char *frame_error;	/* the first frame refused: name, count, size */
	int nr_frames;
	int bail_out;		/* "Bail out!" seen */
	char *bail_reason;
	double uptime_init;	/* guest clock at PID 1's start, or -1 */
	double uptime_done;	/* and when its tests were done, or -1 */
	double uptime_last;	/* at the last result (or PID 1's start) */
	double uptime_mark;	/* printed just before the next result */
};

/* "@dir/guest/@name": where the guest's framed file @name is kept. */
void guest_file_path(char *buf, size_t size, const char *dir, const char *name);

/*
 * The one reading of a console's bytes as text, in place (@len bytes,
 * NUL-terminated after): CRs (the serial line's ends) dropped; control
 * bytes but tab and newline, broken UTF-8 and, with @ascii_only (the
 * guest prints ASCII only), any byte above 0x7e each replaced by '?'.
 * Returns how many were replaced.
 */
long console_clean(char *s, size_t len, int ascii_only);

/* What a console line is to KTAP, as the judge reads it. */
enum ktap_line {
	KTAP_OTHER,		/* not a result line */
	KTAP_RESULT,		/* "ok N name # directive" / "not ok N name" */
	KTAP_MALFORMED,		/* "ok"/"not ok" without a valid number */
};

/*
 * The judge's reading of one console line (@len bytes, not necessarily
 * NUL-terminated): sanitized, leading blanks skipped. A KTAP_RESULT
 * fills @t (free it with subtest_free()); the one KTAP parser the
 * verdict and the reports' log excerpts share.
 */
enum ktap_line ktap_line(const char *line, size_t len, struct subtest *t);
void subtest_free(struct subtest *t);

/* Is @directive (a KTAP result's, after "#") @word, as TAP reads it? */
int directive_is(const char *directive, const char *word);

/*
 * Judge the console log at @log_path. Files framed by NMX-FILE-BEGIN/END
 * are written into @out_dir/NMX_GUEST_FILES_DIR (if @out_dir is not NULL). @timed_out says whether the
 * host had to kill QEMU. @xfail names the subtests that FINDINGS.md
 * expects to fail on this cell and variant (NULL: none): their failure is
 * XFAIL, their success XPASS (a failure: the finding needs updating).
 * Returns 0, or -1 when the log cannot be opened or is not a regular
 * file (a directory, a FIFO: refused without reading). A read error
 * after the start is INFRA_FAIL in @v.
 */
int judge_console(const char *log_path, const char *out_dir, int timed_out,
		  const struct xfails *xfail, struct verdict *v);
/*
 * Did the console at @log_path run to the guest's last line (its final
 * marker, as the judge reads it)? 1 yes, 0 no, -1 (said) unreadable.
 * Only such a console may stand for a later boot of the same inputs.
 */
int console_ended(const char *log_path);
/* The same, on an open console stream (the fuzz target's entry point). */
void judge_stream(FILE *log, const char *out_dir, int timed_out,
		  const struct xfails *xfail, struct verdict *v);

/*
 * Read the expected failures of @cell in @variant from a FINDINGS.md:
 * lines "- xfail SUBTEST on CELL[, CELL...] (VARIANT[, VARIANT...])",
 * optionally followed by ": finding N" -- then @out's why is "finding N:
 * TITLE", TITLE from the file's "## N. TITLE" heading where it has one.
 */
int load_xfails(const char *path, const char *cell, const char *variant,
		struct xfails *out);
void xfails_free(struct xfails *x);
json_t *verdict_json(const struct verdict *v);
void verdict_free(struct verdict *v);

#endif
