/* SPDX-License-Identifier: GPL-2.0 */
/* Running a program (git, the compiler) from nmx: one way, for every step. */
#ifndef NMX_PROC_H
#define NMX_PROC_H

/*
 * Runs @argv (no shell) and waits for it. @env: "NAME=VALUE" strings set
 * for it only (NULL-terminated; NULL: none); stdin from @in_path (NULL:
 * ours); stdout captured into *@out (malloc'd, NUL-terminated) or, with
 * @out NULL, sent to @out_fd (-1: ours); stderr to @err_fd (-1: ours).
 * Its exit status (127: it could not be run, said on its stderr); -1 if
 * it could not be started.
 */
int run_command(char *const argv[], char *const env[], const char *in_path,
		char **out, int out_fd, int err_fd);

#endif
