// SPDX-License-Identifier: GPL-2.0
/*
 * nmx: the host-side logic of notrace-matrix. build.sh and boot.sh are thin
 * glue around these subcommands; each reads files and writes files, so
 * each can be run and tested alone. This file: the command line, what
 * every command shares, and the dispatch; the commands are in the files
 * commands.h names.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "facts.h"
#include "matrix.h"

#define DEFAULT_MATRIX "matrix.yaml"
#define DEFAULT_ARCHES "arches"

const char *matrix_path = DEFAULT_MATRIX;
const char *arches_dir = DEFAULT_ARCHES;
/* -p: a maintainer's patches, run as variant "patched" on top of upstream. */
static const char *patches_dir;
/* -l: a maintainer's kernel checkout, run as tree "local"; -s: whose series. */
static const char *local_dir, *local_series;

#define PATCHED_VARIANT "patched"
#define PATCHED_BASE "upstream"
#define LOCAL_TREE "local"

int load_matrix(struct matrix *m)
{
	if (matrix_load(m, matrix_path, arches_dir))
		return -1;
	if (local_dir &&
	    matrix_add_local_tree(m, LOCAL_TREE, local_dir, local_series)) {
		matrix_free(m);
		return -1;
	}
	if (patches_dir &&
	    matrix_add_variant(m, PATCHED_VARIANT, PATCHED_BASE, patches_dir)) {
		matrix_free(m);
		return -1;
	}
	return 0;
}

/*
 * The commands: what `nmx --help` and `nmx CMD --help` print. The user's
 * commands (a run's results) come first; the rest are the steps
 * matrix.sh, build.sh and boot.sh call.
 */
struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	int user;
	const char *help;	/* synopsis, then indented lines */
};

static const struct command commands[] = {
	{ "summary", cmd_summary, 1,
"summary RUN_DIR\n"
"        write RUN_DIR/summary.txt; exit 0 all pass, 1 failures, 2 infrastructure\n" },
	{ "report", cmd_report, 1,
"report [--baseline EARLIER_RUN_DIR] RUN_DIR\n"
"        write RUN_DIR/report.html, report.md, junit.xml and kcidb.json\n" },
	{ "compare", cmd_compare, 1,
"compare [-r] [-b BEFORE_VARIANT -a AFTER_VARIANT] BEFORE_RUN_DIR AFTER_RUN_DIR\n"
"        per architecture: fixed, regressed, trace shape changed; exit 1 on a regression\n"
"        (-r: the regressed subtests only, tree, cell, scenario, before, after a line)\n" },
	{ "merge", cmd_merge, 1,
"merge --plan PLAN.tsv --out RUN_DIR SHARD_RUN_DIR...\n"
"        one run from shards (matrix.sh --shard): their cells, the planned cells\n"
"        none reported as missing; then summary and reports; exits as summary\n" },
	{ "cells", cmd_cells, 0,
"cells [--tree T] [--variant V] [--cell C]... | --set NAME | --e2e  [--alone]\n"
"        list 'tree variant cell' lines a run covers (default: matrix.yaml run;\n"
"        --set NAME: the set of that name in matrix.yaml sets; --e2e: --set e2e,\n"
"        the end-to-end test's). A cell is left out of trees older than its\n"
"        guest.min_kernel or newer than its guest.max_kernel (an error if both\n"
"        were named); --alone: only the cells no other guest may boot beside\n"
"        (qemu.alone)\n" },
	{ "trees", cmd_trees, 0,
"trees [--newest]\n"
"        list 'tree series-directory package' lines, one per tree (for -l: its\n"
"        directory, and on stderr which series it takes and why); --newest: the\n"
"        name of the tree of the highest version (what --patches runs on;\n"
"        nothing if no tree names its version)\n" },
	{ "describe", cmd_describe, 0,
"describe --tree T --variant V --cell C\n"
"        one cell's facts, resolved for the tree's kernel version, as KEY<TAB>VALUE\n"
"        lines (a list: KEY[]<TAB>ITEM per item): the cell's cell.tsv, which\n"
"        build.sh, boot.sh and the steps below read (--described CELL_TSV in place\n"
"        of --cell, --tree and --variant: the facts as the run resolved them)\n" },
	{ "fragment", cmd_fragment, 0,
"fragment --cell C [--tree T [--variant V]] | --described F --common FILE -o OUT\n"
"        write the requested kconfig: common, then cell (with the kconfig_since\n"
"        symbols tree T's version takes; needed if the cell has some), then\n"
"        matrix extras\n" },
	{ "config-check", cmd_config_check, 0,
"config-check REQUESTED DOTCONFIG\n"
"        fail (exit 1) naming each requested symbol that did not survive\n" },
	{ "qemu-cmd", cmd_qemu_cmd, 0,
"qemu-cmd --cell C [--tree T] | --described F --kernel K --initrd I [--dtb D] [--accel A] --log L\n"
"         [--qemu BIN --qemu-firmware DIR]\n"
"        print the QEMU command line, NUL-separated (--probe instead of\n"
"        --initrd: the accelerator probe's, booting to the no-init panic;\n"
"        --uboot-dtb DTB: through the cell's U-Boot, K and I being the uImage and\n"
"        ramdisk image; --dump-dtb F: QEMU writes the board's device tree to F;\n"
"        --qemu, --qemu-firmware: a qemu.suite cell's QEMU unpacked into the\n"
"        cache, its binary and firmware directory)\n" },
	{ "uboot-bootcmd", cmd_uboot_bootcmd, 0,
"uboot-bootcmd --cell C | --described F\n"
"        U-Boot's boot command for the cell (its control device tree's /config/bootcmd)\n" },
	{ "lava-job", cmd_lava_job, 0,
"lava-job --tree T --variant V --cell C | --described F --kernel K --initrd I\n"
"         [--dtb D] [--accel A] [--timeout SECS] -o DIR\n"
"        write DIR/device.yaml and DIR/job.yaml: the cell's boot for lava-run\n"
"        (absolute paths; the job deploys them as file:// URLs)\n" },
	{ "lava-log", cmd_lava_log, 0,
"lava-log LAVA_RUN_LOG\n"
"        the console lines of a lava-run log, as the boot.log nmx judge reads\n" },
	{ "lava-outcome", cmd_lava_outcome, 0,
"lava-outcome --cell-dir DIR --log LAVA_RUN_LOG --result RESULT_YAML --exit STATUS\n"
"        how a lava-run job ended: exit 0 it ran, 1 its time limit stopped it, 3 LAVA\n"
"        never started QEMU (the reason on stdout); result.yaml into DIR/meta.tsv\n" },
	{ "deps", cmd_deps, 0,
"deps [--run [--tree T]... [--variant V]... [--cell C]... [--set NAME | --e2e]]\n"
"        the Debian packages and busybox architectures a run's trees and cells\n"
"        need (--run alone: the default run's; no --run: every tree and cell)\n" },
	{ "missing-tools", cmd_missing_tools, 0,
"missing-tools TOOL...\n"
"        the tools not on PATH, each with the Debian package that provides it\n"
"        (\"TOOL (Debian package P), ...\"), exit 1; none missing: exit 0\n" },
	{ "guest-header", cmd_guest_header, 0,
"guest-header --cell C [--tree T] | --described F [--src KERNEL_TREE]\n"
"        the cell's facts as the C header the guest is built with\n" },
	{ "judge", cmd_judge, 0,
"judge --log BOOT_LOG --out DIR [--timed-out]\n"
"      [--findings FINDINGS.md --cell C --variant V | --described F]\n"
"        decide from the console log; write DIR/verdict.json and the traces (the\n"
"        failures FINDINGS.md expects of the cell's variant are XFAIL; --described:\n"
"        the tree's)\n" },
	{ "cell-dir", cmd_cell_dir, 0,
"cell-dir [--fresh] --run RUN_DIR --tree T --variant V --cell C\n"
"        print the cell's directory in the run; --fresh: it starts over, emptied,\n"
"        its meta.tsv begun with the run's id, its reproduce.sh with a header, its\n"
"        facts in cell.tsv (nmx describe)\n" },
	{ "run-cells", cmd_run_cells, 0,
"run-cells --run RUN_DIR [--finished | --unfinished] [--dirs]\n"
"        the run's planned cells (\"tree variant cell\"; --dirs: \"TREE-VARIANT/CELL\"):\n"
"        every one, or those with a result (finished) or without\n" },
	{ "run-dir", cmd_run_dir, 0,
"run-dir new --results DIR [--shard ID] [--patches PATH]\n"
"run-dir plan --run RUN_DIR [--local-tree CHECKOUT [--local-series TREE]] <PLAN\n"
"run-dir show|resume|finish --run RUN_DIR\n"
"run-dir interrupted --run RUN_DIR --signal SIG --resume COMMAND\n"
"        a run directory's life (matrix.sh, bisect.sh): new makes one (id<TAB>ID:\n"
"        the time, or the shard's; dir<TAB>DIR; with --patches, a directory of\n"
"        *.patch/*.diff/*.mbox or one file, imported as mails git am takes:\n"
"        patches<TAB>ITS COPY); plan writes the planned cells and a\n"
"        --tree run's checkout; show prints what it was started with (patches,\n"
"        local_tree, local_series, shard, baseline, interrupted: KEY<TAB>VALUE);\n"
"        resume shows it after clearing interrupted.txt; interrupted writes that\n"
"        file; finish moves the results' latest link to it, keeping the run it\n"
"        replaced as its baseline (printed as baseline<TAB>DIR; a shard: nothing)\n" },
	{ "record", cmd_record, 0,
"record --cell-dir DIR stage NAME STATUS SECONDS [DETAIL]\n"
"record --cell-dir DIR meta KEY VALUE\n"
"        append a stage's outcome to DIR/stages.tsv (STATUS: ok, or the failure that\n"
"        ends the cell there) or a fact to DIR/meta.tsv (KEY: one rundir.c lists);\n"
"        tabs and line ends in DETAIL and VALUE become spaces\n" },
	{ "stage-seconds", cmd_stage_seconds, 0,
"stage-seconds --cell-dir DIR [--stage NAME]\n"
"        the seconds DIR's stages took (\"prepare 3 s, configure 1 s, ...\"), or the\n"
"        seconds of stage NAME if it ended ok; nothing without records\n" },
	{ "series", cmd_series, 0,
"series list --described F\n"
"series key --described F --src PRISTINE_REPO\n"
"series commit --described F --src WORKTREE --log LOG\n"
"        a variant's patches (list: the tree's series, less skip_patches, then a\n"
"        maintainer's; a relative series directory is matrix.yaml's); key: what the\n"
"        applied series depends on (the pristine commit, each patch's name and\n"
"        bytes); commit: the series applied onto \"pristine\" as one commit per\n"
"        patch (author, date, message from the mail) in a scratch index, the last\n"
"        commit printed, or the patch that does not apply (exit 1; its rejected\n"
"        hunk in LOG)\n" },
	{ "stages", cmd_stages, 0,
"stages [--run-by SCRIPT]\n"
"        the table of a cell's stages in the order they run (of SCRIPT: build.sh,\n"
"        boot.sh): NAME<TAB>RUN_BY<TAB>FAILS_AS<TAB>KEY, FAILS_AS the status the\n"
"        stage's own work fails with, KEY what its key takes (or -)\n" },
	{ "stage-key", cmd_stage_key, 0,
"stage-key --src TREE --stage NAME --described F [--cell-dir D] [--build-dir B]\n"
"          [-- MAKE_VARS...]\n"
"stage-key --src TREE --compiler CC [--kconfig] [--file F]... [--config F]... [-- TEXT...]\n"
"        the key of a build stage's inputs (16 hex digits): TREE's commit (--kconfig:\n"
"        only the files configuring reads) and uncommitted changes, CC's version,\n"
"        the files' bytes (--config: their lines that are no comment), the texts;\n"
"        --stage: the inputs nmx stages names for it, from the cell's facts and dirs\n" },
	{ "boot-cache", cmd_boot_cache, 0,
"boot-cache key --cell C | --described F --engine E --loader L --accel A --timeout SECS\n"
"           [--kernel-args ARGS] --qemu-version V --kernel K --initrd I [--dtb D]\n"
"boot-cache lookup --cache DIR --key KEY --log BOOT_LOG\n"
"boot-cache keep --cache DIR --key KEY --log BOOT_LOG --origin RUN/TREE-VARIANT/CELL\n"
"           [--timed-out]\n"
"        the consoles a boot may reuse: key prints what decides a console as 16 hex\n"
"        digits (arch files, kernel, initramfs, DTB and U-Boot bytes, engine, loader,\n"
"        accelerator, timeout, kernel arguments, QEMU version); lookup copies the\n"
"        console of an earlier boot with KEY to BOOT_LOG and prints where it booted\n"
"        (exit 1: none); keep stores BOOT_LOG under KEY if it ran to the guest's final\n"
"        marker and was not cut off (exit 1: not kept), dropping consoles no boot\n"
"        matched for 30 days\n" },
	{ "guard", cmd_guard, 0,
"guard --log BOOT_LOG --timeout SECS [--grace SECS] -- COMMAND [ARG]...\n"
"        run a boot: stopped after SECS (exit 124, 137 if it had to be killed, as\n"
"        timeout -k 5), or GRACE s (default 15) after BOOT_LOG shows the kernel's\n"
"        panic (exit: the command's own, once stopped); otherwise its own exit\n" },
	{ "step-verdict", cmd_step_verdict, 0,
"step-verdict --cell-dir DIR --scenario S\n"
"        a bisection step's verdict on scenario S from DIR/result.json, as git bisect\n"
"        run wants it: exit 0 good (S passed), 1 bad (S failed), 125 no verdict on S\n" },
	{ "result", cmd_result, 0,
"result --cell-dir DIR [--progress]\n"
"        merge DIR/stages.tsv, meta.tsv, reproduce.sh, verdict.json into result.json;\n"
"        --progress: print the run's \"[k/N] CELL (TREE-VARIANT): STATUS ...\" line\n" },
	{ "estimate", cmd_estimate, 0,
"estimate [--last RUN_DIR] [--typical TSV] [--cores N] [--boots N] [--beside N]\n"
"         [--runners N] [--seconds]  < 'tree variant cell' lines\n"
"        how long a run of these cells takes, from the last run's stage seconds\n"
"        where it ran a cell, else the typical ones (benchmarks/typical-seconds.tsv),\n"
"        played through matrix.sh's schedule on N cores (default 2; --boots: at a\n"
"        time, default the cores; --beside: beside a build, default (cores-2)/2);\n"
"        --runners N: as a GitLab pipeline on N runners of --cores cores each;\n"
"        --seconds: only the seconds. Cells with no figures are left out\n" },
	{ "run-figures", cmd_run_figures, 0,
"run-figures [--stages|--scenarios] RUN_DIR\n"
"        a run's figures for scripts/benchmark.sh, from its cells' result.json:\n"
"        kernel_cpu_seconds, boot_seconds, slowest_boot (seconds, cell), boots (not\n"
"        reused), KEY<TAB>VALUE; --stages: TREE-VARIANT CELL STAGE SECONDS per stage\n"
"        that did its work (a boot only if the cell passed) and the kernel's CPU\n"
"        seconds as stage kernel_cpu, tab-separated; --scenarios: where the boots'\n"
"        seconds go, per subtest (the guest's clock), kernel start to PID 1 and the\n"
"        rest, over the cells that passed on a boot of their own: part, cells, total,\n"
"        median, max and its cell, the costliest first\n" },
	{ "plan", cmd_plan, 0,
"plan gitlab\n"
"        the default run as a GitLab CI pipeline: a shard job per tree and cell, then the merge\n" },
	{ "upstream-plan", cmd_upstream_plan, 0,
"upstream-plan --tree T --identity \"Name <email>\" --out DIR RUN_DIR...\n"
"        per topic of the tree's upstream.yaml: proven by the runs (exit 1 if one\n"
"        is refused), its patches, commit messages and cover text under DIR\n" },
	{ "upstream-cover", cmd_upstream_cover, 0,
"upstream-cover --cover COVER_LETTER --body TEXT --maintainers GET_MAINTAINER_OUT\n"
"        fill git format-patch's cover letter: subject, body, To: and Cc:\n" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void put_commands(FILE *f, int user)
{
	size_t i;

	for (i = 0; i < NR_COMMANDS; i++)
		if (commands[i].user == user)
			fprintf(f, "  %s", commands[i].help);
}

static void usage(FILE *f)
{
	fprintf(f,
"usage: nmx [-m matrix.yaml] [-a arches-dir] [-p patches-dir]\n"
"           [-l kernel-dir [-s series-tree]] COMMAND [ARGS]\n"
"       nmx COMMAND --help\n"
"\n"
"  -p DIR: every tree with an 'upstream' variant gets a variant 'patched':\n"
"        upstream with the patches DIR/series names on top\n"
"  -l DIR: a tree 'local' built from the kernel checkout DIR, with the series\n"
"        of the tree whose version DIR's Makefile has (or of -s TREE)\n"
"\n"
"A run's results (results/<run-id>):\n");
	put_commands(f, 1);
	fprintf(f, "\nThe steps of a run (matrix.sh, build.sh and boot.sh call them):\n");
	put_commands(f, 0);
}

/* `nmx CMD --help` (or -h), before CMD parses its options. */
static int asks_help(int argc, char **argv)
{
	int i;

	for (i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	return 0;
}

/* Is the option @name (without "--") a word of @accepts? */
static int accepted(const char *accepts, const char *name)
{
	size_t n = strlen(name);
	const char *p;

	for (p = accepts; (p = strstr(p, name)); p += n)
		if ((p == accepts || p[-1] == ' ') && (!p[n] || p[n] == ' '))
			return 1;
	return 0;
}

int parse_selection(int argc, char **argv, const char *accepts,
		    struct selection *s)
{
	char *end;
	static const struct option opts[] = {
		{ "tree", required_argument, 0, 't' },
		{ "variant", required_argument, 0, 'v' },
		{ "cell", required_argument, 0, 'c' },
		{ "common", required_argument, 0, 'C' },
		{ "kernel", required_argument, 0, 'k' },
		{ "initrd", required_argument, 0, 'i' },
		{ "dtb", required_argument, 0, 'd' },
		{ "accel", required_argument, 0, 'A' },
		{ "log", required_argument, 0, 'l' },
		{ "probe", no_argument, 0, 'P' },
		{ "timeout", required_argument, 0, 'T' },
		{ "uboot-dtb", required_argument, 0, 'U' },
		{ "dump-dtb", required_argument, 0, 'D' },
		{ "kernel-args", required_argument, 0, 'K' },
		{ "src", required_argument, 0, 'S' },
		{ "described", required_argument, 0, 'F' },
		{ "qemu", required_argument, 0, 'Q' },
		{ "qemu-firmware", required_argument, 0, 'L' },
		{ 0 }
	};
	int opt, index = 0;

	memset(s, 0, sizeof(*s));
	while ((opt = getopt_long(argc, argv, "o:", opts, &index)) != -1) {
		const char *name = opt == 'o' ? "o" : opt == '?' ? NULL :
				   opts[index].name;

		if (name && !accepted(accepts, name)) {
			fprintf(stderr, "nmx %s: %s%s is not one of its options (%s)\n",
				argv[0], opt == 'o' ? "-" : "--", name, accepts);
			return -1;
		}
		switch (opt) {
		case 't': s->tree = optarg; break;
		case 'v': s->variant = optarg; break;
		case 'c': s->cell = optarg; break;
		case 'C': s->common = optarg; break;
		case 'o': s->out = optarg; break;
		case 'k': s->kernel = optarg; break;
		case 'i': s->initrd = optarg; break;
		case 'd': s->dtb = optarg; break;
		case 'A': s->accel = optarg; break;
		case 'l': s->log = optarg; break;
		case 'P': s->probe = 1; break;
		case 'U': s->uboot_dtb = optarg; break;
		case 'S': s->src = optarg; break;
		case 'D': s->dump_dtb = optarg; break;
		case 'F': s->described = optarg; break;
		case 'Q': s->qemu = optarg; break;
		case 'L': s->qemu_firmware = optarg; break;
		case 'K':
			/* Quoted by U-Boot's bootargs ('') and LAVA's -append
			 * (""): neither quote can pass through both. */
			if (strlen(optarg) > 200 || strpbrk(optarg, "'\"\\$;`") ||
			    strspn(optarg, " ") == strlen(optarg)) {
				fprintf(stderr, "nmx: --kernel-args '%.200s': at most 200 characters, no quotes, backslash, $, ; or `\n",
					optarg);
				return -1;
			}
			for (end = optarg; *end; end++)
				if ((unsigned char)*end < 0x20 || (unsigned char)*end > 0x7e) {
					fprintf(stderr, "nmx: --kernel-args: printable ASCII only\n");
					return -1;
				}
			s->kernel_args = optarg;
			break;
		case 'T':
			s->timeout = (unsigned int)strtoul(optarg, &end, 10);
			if (*end || !s->timeout || s->timeout > 86400) {
				fprintf(stderr, "nmx: --timeout wants seconds (1-86400), not '%s'\n",
					optarg);
				return -1;
			}
			break;
		default: return -1;
		}
	}
	if (optind != argc) {
		fprintf(stderr, "nmx %s: '%s' is not an option\n", argv[0],
			argv[optind]);
		return -1;
	}
	if (s->described && (s->cell || s->tree || s->variant)) {
		fprintf(stderr, "nmx %s: --described names the cell, its tree and variant: not with --cell, --tree or --variant\n",
			argv[0]);
		return -1;
	}
	if (!s->cell && !s->described) {
		fprintf(stderr, "nmx: --cell is required\n");
		return -1;
	}
	return 0;
}

int selection_facts(const struct selection *s, struct cell_facts *f)
{
	if (s->described)
		return facts_read(f, s->described);
	return facts_resolve(f, s->tree, s->variant, s->cell);
}

int main(int argc, char **argv)
{
	size_t i;
	int opt;

	if (argc > 1 && !strcmp(argv[1], "--help")) {
		usage(stdout);
		return EXIT_PASS;
	}
	while ((opt = getopt(argc, argv, "+m:a:p:l:s:h")) != -1) {
		switch (opt) {
		case 'm': matrix_path = optarg; break;
		case 'a': arches_dir = optarg; break;
		case 'p': patches_dir = optarg; break;
		case 'l': local_dir = optarg; break;
		case 's': local_series = optarg; break;
		case 'h': usage(stdout); return EXIT_PASS;
		default: usage(stderr); return EXIT_INFRA;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_INFRA;
	}
	for (i = 0; i < NR_COMMANDS; i++) {
		if (strcmp(argv[optind], commands[i].name))
			continue;
		argc -= optind;
		argv += optind;
		if (asks_help(argc, argv)) {
			printf("usage: nmx %s", commands[i].help);
			return EXIT_PASS;
		}
		optind = 0;	/* glibc: restart getopt for the subcommand */
		return commands[i].fn(argc, argv);
	}
	fprintf(stderr, "nmx: unknown command '%s' (nmx --help lists them)\n",
		argv[optind]);
	usage(stderr);
	return EXIT_INFRA;
}
