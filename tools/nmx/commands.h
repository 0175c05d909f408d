/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nmx's subcommands, one file per concern (cell_cmds.c, kconfig_cmds.c,
 * boot_cmds.c, result_cmds.c, report_cmd.c, merge.c), what main.c gives
 * them all, and the exit codes they share.
 */
#ifndef NMX_COMMANDS_H
#define NMX_COMMANDS_H

#include <stdio.h>

/* Exit codes, as TuxRun uses them. */
enum { EXIT_PASS = 0, EXIT_FAIL = 1, EXIT_INFRA = 2 };

struct matrix;
struct cell_facts;

/* Where matrix.yaml and arches/ are (nmx -m, -a). */
extern const char *matrix_path;
extern const char *arches_dir;

/* matrix.yaml, with the tree -l and the variant -p add. */
int load_matrix(struct matrix *m);

/* The options of the commands about one cell: --tree, --cell, --kernel... */
struct selection {
	const char *tree, *variant, *cell, *common, *out;
	const char *kernel, *initrd, *dtb, *accel, *log;
	int probe;
	unsigned int timeout;
	const char *uboot_dtb, *dump_dtb;
	const char *kernel_args;	/* appended to the cell's command line */
	const char *src;		/* a kernel tree (guest-header) */
	const char *described;		/* a cell.tsv, in place of --cell */
	/* A QEMU not on PATH (a qemu.suite cell's) and its firmware directory */
	const char *qemu, *qemu_firmware;
};

/*
 * Parses them; --cell (with --tree and --variant as the command needs)
 * or --described is required. @accepts names the options the
 * command takes ("tree variant cell", "o" for -o): any other is an error
 * that names it.
 */
int parse_selection(int argc, char **argv, const char *accepts,
		    struct selection *s);

/*
 * The facts of the cell @s names: read from --described's cell.tsv (as
 * the run resolved them), or resolved from arches/ and matrix.yaml for
 * --cell, --tree and --variant. -1, said, if neither can be had.
 */
int selection_facts(const struct selection *s, struct cell_facts *f);

/* cell_cmds.c */
int cmd_cells(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_trees(int argc, char **argv);
int cmd_describe(int argc, char **argv);
int cmd_deps(int argc, char **argv);
int cmd_missing_tools(int argc, char **argv);
int cmd_guest_header(int argc, char **argv);
/* kconfig_cmds.c */
int cmd_fragment(int argc, char **argv);
int cmd_config_check(int argc, char **argv);
/* boot_cmds.c */
int cmd_qemu_cmd(int argc, char **argv);
int cmd_uboot_bootcmd(int argc, char **argv);
int cmd_lava_job(int argc, char **argv);
int cmd_lava_log(int argc, char **argv);
int cmd_lava_outcome(int argc, char **argv);
/*
 * What a run's end is made of, for the commands and for merge, which
 * finishes a run the same way: a cell's result.json from its records
 * (@progress: print the run's "[k/N] ..." line), the run's summary.txt
 * and summary.json (exit as summary), its reports (EXIT_INFRA if one
 * cannot be written; @baseline: an earlier run, or NULL).
 */
int cell_write_result(const char *cell_dir, int progress);
int run_summary(const char *run_dir);
int run_reports(const char *run_dir, const char *baseline);

/* result_cmds.c */
int cmd_judge(int argc, char **argv);
int cmd_result(int argc, char **argv);
int cmd_summary(int argc, char **argv);
int cmd_step_verdict(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_compare(int argc, char **argv);
int cmd_run_figures(int argc, char **argv);
int cmd_merge(int argc, char **argv);
/*
 * A cell's facts, resolved for its tree's kernel version, as the lines
 * "KEY<TAB>VALUE" (a list: "KEY[]<TAB>ITEM" per item) build.sh and
 * boot.sh read (nmx describe, and cell-dir --fresh's cell.tsv). -1, said,
 * for an unknown tree, variant or cell, or a value no line can hold.
 */
int describe_cell(FILE *f, const char *tree, const char *variant,
		  const char *cell);

/* record_cmds.c */
int cmd_record(int argc, char **argv);
int cmd_cell_dir(int argc, char **argv);
int cmd_stage_seconds(int argc, char **argv);
int cmd_run_cells(int argc, char **argv);
int cmd_stages(int argc, char **argv);
int cmd_run_dir(int argc, char **argv);
/* stagekey.c */
int cmd_stage_key(int argc, char **argv);
/* series.c */
int cmd_series(int argc, char **argv);
/* bootcache.c */
int cmd_boot_cache(int argc, char **argv);
/* guard.c */
int cmd_guard(int argc, char **argv);
/* estimate.c */
int cmd_estimate(int argc, char **argv);
/* upstream.c */
int cmd_upstream_plan(int argc, char **argv);
int cmd_upstream_cover(int argc, char **argv);

#endif
