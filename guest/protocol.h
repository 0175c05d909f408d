/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The guest <-> host protocol: the lines PID 1 prints on the console
 * besides KTAP, and that nmx judge reads. Included by the guest (nolibc)
 * and by tools/nmx (glibc), as fgraph.h is: string constants only.
 */
#ifndef NMX_PROTOCOL_H
#define NMX_PROTOCOL_H

/* The KTAP header the guest's results follow; the judge reads from it. */
#define NMX_KTAP_HEADER "KTAP version 1"

/*
 * "NMX-FILE-BEGIN NAME", the file's lines, "NMX-FILE-END NAME": a file
 * the host saves into the cell's guest/ directory.
 */
#define NMX_FILE_BEGIN "NMX-FILE-BEGIN "
#define NMX_FILE_END "NMX-FILE-END "

/*
 * "NMX-UPTIME WHEN SECONDS": the guest's clock (/proc/uptime) when PID 1
 * starts, when the tests start and when they are done; the host splits
 * the boot's seconds with them.
 */
#define NMX_UPTIME "NMX-UPTIME "
#define NMX_UPTIME_INIT "init"
#define NMX_UPTIME_TEST "test"
#define NMX_UPTIME_DONE "done"

/*
 * The last line: every test passed, or some failed and the guest still
 * ran to its end. Anything after it but power-off noise is a failure.
 */
#define NMX_SUCCESS_MARKER "NMX-RESULT: PASS"
#define NMX_FAIL_MARKER "NMX-RESULT: FAIL"

/* A string literal's length without its NUL, for prefix matches. */
#define NMX_LEN(literal) (sizeof(literal) - 1)

#endif
