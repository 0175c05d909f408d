/* SPDX-License-Identifier: GPL-2.0 */
/* nmx's subcommands that live outside main.c, and the exit codes all share. */
#ifndef NMX_COMMANDS_H
#define NMX_COMMANDS_H

/* Exit codes, as TuxRun uses them. */
enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_INFRA = 2 };

int cmd_result(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_merge(int argc, char **argv);

#endif
