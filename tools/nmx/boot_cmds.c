// SPDX-License-Identifier: GPL-2.0
/*
 * nmx's boot commands: qemu-cmd and uboot-bootcmd (a cell's QEMU command
 * line, directly or through its U-Boot), lava-job and lava-log (the same
 * boot as a LAVA job, and its console back from LAVA's log).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "facts.h"
#include "matrix.h"
#include "lava.h"
#include "rundir.h"

/* ---- qemu-cmd --------------------------------------------------------- */

static void arg0(const char *s)
{
	fputs(s, stdout);
	putchar('\0');
}

/* The cell's machine; with ",dumpdtb=FILE" on -M's value if @dumpdtb. */
static void machine_args(const struct cell *c, const char *dumpdtb)
{
	size_t i;

	for (i = 0; i < c->qemu_machine.n; i++) {
		if (dumpdtb && i > 0 && !strcmp(c->qemu_machine.v[i - 1], "-M")) {
			printf("%s,dumpdtb=%s", c->qemu_machine.v[i], dumpdtb);
			putchar('\0');
			continue;
		}
		arg0(c->qemu_machine.v[i]);
	}
}

/* -device loader: @file placed raw at @addr, as a board's boot medium. */
static void loader_arg(const char *file, const char *addr)
{
	arg0("-device");
	printf("loader,file=%s,addr=%s,force-raw=on", file, addr);
	putchar('\0');
}

/* Does @c boot through U-Boot? Said on stderr for @cmd if not. */
static int has_uboot(const struct cell *c, const char *cmd)
{
	if (c->uboot_firmware)
		return 1;
	fprintf(stderr, "nmx %s: cell %s does not boot through U-Boot (no qemu.uboot)\n",
		cmd, c->name);
	return 0;
}

/*
 * U-Boot's boot command for the cell (its control device tree's
 * /config/bootcmd): the kernel command line, then bootm of the uImage and
 * ramdisk image QEMU placed in RAM, with U-Boot's own device tree.
 */
int cmd_uboot_bootcmd(int argc, char **argv)
{
	struct selection s;
	struct cell_facts f;
	char append[512];

	if (parse_selection(argc, argv, "cell described kernel-args", &s))
		return EXIT_INFRA;
	if (selection_facts(&s, &f))
		return EXIT_INFRA;
	if (!has_uboot(&f.cell, "uboot-bootcmd")) {
		facts_free(&f);
		return EXIT_INFRA;
	}
	cell_kernel_append(&f.cell, 0, s.kernel_args, append, sizeof(append));
	printf("setenv bootargs '%s'; bootm %s %s ${fdtcontroladdr}\n", append,
	       f.cell.uboot_kernel_addr, f.cell.uboot_ramdisk_addr);
	facts_free(&f);
	return EXIT_PASS;
}

/*
 * The cell @s names, and its -accel value under @s's --accel on its
 * tree (its TCG setting may differ between kernel versions); -1, said,
 * when either cannot be had.
 */
static int load_boot_cell(const struct selection *s, struct cell_facts *f,
			  const char **accel)
{
	if (selection_facts(s, f))
		return -1;
	*accel = cell_accel(&f->cell, s->accel, f->tree_version);
	if (!*accel) {
		facts_free(f);
		return -1;
	}
	return 0;
}

/*
 * QEMU itself: the cell's qemu.binary from PATH, or a qemu.suite cell's
 * QEMU as unpacked into the cache (--qemu, --qemu-firmware). That one is
 * another version than the system's: its firmware comes from its own
 * qemu-system-data (-L), QEMU adds no default devices (-nodefaults), and
 * it looks for modules only beside its binary, where there are none (the
 * system's, of another version, refuse to load into it).
 */
static int qemu_binary_args(const struct cell *c, const struct selection *s)
{
	char dir[4096];
	const char *slash;

	if (!c->qemu_suite) {
		if (s->qemu || s->qemu_firmware) {
			fprintf(stderr, "nmx qemu-cmd: cell %s boots with the system's %s: no --qemu or --qemu-firmware\n",
				c->name, c->qemu_binary);
			return -1;
		}
		arg0(c->qemu_binary);
		return 0;
	}
	if (!s->qemu || !s->qemu_firmware) {
		fprintf(stderr, "nmx qemu-cmd: cell %s boots with QEMU from Debian %s (%s, unpacked into the cache): pass --qemu and --qemu-firmware\n",
			c->name, c->qemu_suite, c->qemu_package);
		return -1;
	}
	slash = strrchr(s->qemu, '/');
	if (!slash || (size_t)(slash - s->qemu) >= sizeof(dir)) {
		fprintf(stderr, "nmx qemu-cmd: --qemu '%s' is not a path\n", s->qemu);
		return -1;
	}
	snprintf(dir, sizeof(dir), "QEMU_MODULE_DIR=%.*s",
		 (int)(slash - s->qemu), s->qemu);
	arg0("env");
	arg0(dir);
	arg0(s->qemu);
	arg0("-L");
	arg0(s->qemu_firmware);
	arg0("-nodefaults");
	return 0;
}

int cmd_qemu_cmd(int argc, char **argv)
{
	struct selection s;
	struct cell_facts f;
	const struct cell *c = &f.cell;
	char append[512];
	const char *accel;

	if (parse_selection(argc, argv, "tree cell described kernel initrd dtb "
			    "accel log probe uboot-dtb dump-dtb kernel-args "
			    "qemu qemu-firmware", &s))
		return EXIT_INFRA;
	if (!s.dump_dtb && (!s.kernel || (!s.initrd && !s.probe) || !s.log)) {
		fprintf(stderr, "nmx qemu-cmd: --kernel, --initrd (or --probe) and --log are required\n");
		return EXIT_INFRA;
	}
	if (load_boot_cell(&s, &f, &accel))
		return EXIT_INFRA;
	if ((s.uboot_dtb || s.dump_dtb) && !has_uboot(c, "qemu-cmd")) {
		facts_free(&f);
		return EXIT_INFRA;
	}
	if (cell_has_dtb(c) && !s.dtb && !s.uboot_dtb && !s.dump_dtb) {
		fprintf(stderr, "nmx qemu-cmd: cell %s boots with a DTB: pass --dtb\n",
			c->name);
		facts_free(&f);
		return EXIT_INFRA;
	}
	if (qemu_binary_args(c, &s)) {
		facts_free(&f);
		return EXIT_INFRA;
	}
	/*
	 * --dump-dtb: QEMU writes the device tree of the machine U-Boot runs
	 * on and exits. It must be the same machine, firmware included: with
	 * -bios, virt leaves devices out that a tree dumped without it has.
	 */
	machine_args(c, s.dump_dtb);
	/* Under TCG the cell may name its threading (arches/<cell>.yaml). */
	arg0("-accel");
	arg0(accel);
	arg0("-display");
	arg0("none");
	if (s.dump_dtb || s.uboot_dtb) {
		arg0(c->uboot_firmware_arg);
		arg0(c->uboot_firmware);
	}
	if (s.dump_dtb)
		goto done;
	arg0("-monitor");
	arg0("none");
	arg0("-no-reboot");
	arg0("-serial");
	printf("file:%s", s.log);
	putchar('\0');
	if (s.uboot_dtb) {
		/* Like a board: U-Boot finds both images in RAM and checks them. */
		arg0("-dtb");
		arg0(s.uboot_dtb);
		loader_arg(s.kernel, c->uboot_kernel_addr);
		if (s.initrd)
			loader_arg(s.initrd, c->uboot_ramdisk_addr);
		goto done;
	}
	cell_kernel_append(c, s.probe, s.kernel_args, append, sizeof(append));
	arg0("-kernel");
	arg0(s.kernel);
	if (s.initrd) {
		arg0("-initrd");
		arg0(s.initrd);
	}
	if (s.dtb) {
		arg0("-dtb");
		arg0(s.dtb);
	}
	arg0("-append");
	arg0(append);
done:
	facts_free(&f);
	return EXIT_PASS;
}

/* ---- lava-job, lava-log ----------------------------------------------- */

static FILE *create_in(const char *dir, const char *name, char *path, size_t n)
{
	FILE *f;

	snprintf(path, n, "%s/%s", dir, name);
	f = fopen(path, "w");
	if (!f)
		fprintf(stderr, "nmx: cannot write %s: %m\n", path);
	return f;
}

static int close_written(FILE *f, const char *path, int err)
{
	if (fclose(f) || err) {
		fprintf(stderr, "nmx: cannot write %s\n", path);
		return -1;
	}
	return 0;
}

/* DIR/device.yaml and DIR/job.yaml: the cell's boot for lava-run. */
int cmd_lava_job(int argc, char **argv)
{
	const char *accel;
	struct selection s;
	struct lava_boot b = { 0 };
	struct cell_facts f;
	char name[256], path[4096];
	FILE *f_out;
	int err;

	if (parse_selection(argc, argv, "tree variant cell described kernel "
			    "initrd dtb accel timeout kernel-args o", &s))
		return EXIT_INFRA;
	if (!s.kernel || !s.initrd || !s.out ||
	    (!s.described && (!s.tree || !s.variant))) {
		fprintf(stderr, "nmx lava-job: --tree and --variant (or --described), --kernel, --initrd and -o DIR are required\n");
		return EXIT_INFRA;
	}
	if (s.kernel[0] != '/' || s.initrd[0] != '/' || (s.dtb && s.dtb[0] != '/')) {
		fprintf(stderr, "nmx lava-job: LAVA deploys file:// URLs: give absolute paths\n");
		return EXIT_INFRA;
	}
	if (load_boot_cell(&s, &f, &accel))
		return EXIT_INFRA;
	if (cell_has_dtb(&f.cell) && !s.dtb) {
		fprintf(stderr, "nmx lava-job: cell %s boots with a DTB: pass --dtb\n",
			f.cell.name);
		facts_free(&f);
		return EXIT_INFRA;
	}
	/* LAVA's qemu device type runs the worker's own qemu-system-<arch>. */
	if (f.cell.qemu_suite) {
		fprintf(stderr, "nmx lava-job: cell %s boots with QEMU from Debian %s, which LAVA's qemu device type does not run: boot it with QEMU directly\n",
			f.cell.name, f.cell.qemu_suite);
		facts_free(&f);
		return EXIT_INFRA;
	}
	snprintf(name, sizeof(name), "notrace-matrix %s-%s %s", f.tree,
		 f.variant, f.cell.name);
	b.name = name;
	b.kernel = s.kernel;
	b.initrd = s.initrd;
	b.dtb = s.dtb;
	b.timeout = s.timeout ? s.timeout : 90;
	b.kernel_args = s.kernel_args;
	err = -1;
	f_out = create_in(s.out, "device.yaml", path, sizeof(path));
	if (f_out && !close_written(f_out, path,
				    lava_write_device(&f.cell, accel, f_out))) {
		f_out = create_in(s.out, "job.yaml", path, sizeof(path));
		if (f_out)
			err = close_written(f_out, path,
					    lava_write_job(&f.cell, &b, f_out));
	}
	facts_free(&f);
	return err ? EXIT_INFRA : EXIT_PASS;
}

/* The console lines of lava-run's log, as boot.log for nmx judge. */
int cmd_lava_log(int argc, char **argv)
{
	FILE *in;
	long n, records;

	if (argc != 2) {
		fprintf(stderr, "usage: nmx lava-log LAVA_RUN_LOG\n");
		return EXIT_INFRA;
	}
	in = fopen_regular(argv[1]);
	if (!in)
		return EXIT_INFRA;
	n = lava_log_console(in, stdout, &records);
	fclose(in);
	if (n < 0 || fflush(stdout)) {
		fprintf(stderr, "nmx lava-log: cannot read %s or write the console\n",
			argv[1]);
		return EXIT_INFRA;
	}
	if (!records) {
		fprintf(stderr, "nmx lava-log: %s: no lava-run log record in it\n",
			argv[1]);
		return EXIT_INFRA;
	}
	return EXIT_PASS;
}

/* Does the file at @path hold @needle? -1 if it cannot be read. */
static int file_has(const char *path, const char *needle)
{
	char *line = NULL;
	size_t cap = 0;
	int found = 0;
	FILE *f = fopen(path, "r");

	if (!f)
		return -1;
	while (!found && getline(&line, &cap, f) > 0)
		found = strstr(line, needle) != NULL;
	free(line);
	fclose(f);
	return found;
}

/*
 * @path's first @max bytes on one line (line ends as spaces), or its
 * "KEY: " line's value, into @buf; empty if it cannot be read.
 */
static void file_text(const char *path, const char *key, char *buf, size_t max)
{
	char *line = NULL;
	size_t cap = 0, n = 0, klen = key ? strlen(key) : 0;
	ssize_t len;
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	while (f && n + 1 < max && (len = getline(&line, &cap, f)) > 0) {
		const char *s = line;
		ssize_t i;

		if (key) {
			if (strncmp(line, key, klen))
				continue;
			s += klen;
			len -= klen;
		}
		for (i = 0; i < len && n + 1 < max; i++)
			buf[n++] = s[i] == '\n' || s[i] == '\r' || s[i] == '\t' ? ' ' : s[i];
		if (key)
			break;
	}
	while (n && buf[n - 1] == ' ' && key)
		n--;
	buf[n] = '\0';
	free(line);
	if (f)
		fclose(f);
}

/*
 * How a lava-run job ended, from its log, its result.yaml and its exit
 * status (@exit; timeout(1)'s 124 and 137: lava-run had to be stopped).
 * LAVA's own result says only whether its job ran; the verdict is the
 * judge's. Exit 0 the job ran, 1 it was stopped by its time limit (LAVA
 * or the timeout around it), 3 lava-run never started QEMU (the lab's
 * failure, not the kernel's: LAVA logs QEMU's command line when it starts
 * it), the reason on stdout. result.yaml goes to meta.tsv (lava_result).
 */
int cmd_lava_outcome(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "cell-dir", required_argument, 0, 'd' },
		{ "log", required_argument, 0, 'l' },
		{ "result", required_argument, 0, 'r' },
		{ "exit", required_argument, 0, 'e' },
		{ 0 }
	};
	const char *dir = NULL, *log = NULL, *result = NULL, *exit_arg = NULL;
	const char *meta[2] = { "lava_result", NULL };
	char text[301], *end;
	long status = 0;
	int opt, started, timed_out;

	while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (opt) {
		case 'd': dir = optarg; break;
		case 'l': log = optarg; break;
		case 'r': result = optarg; break;
		case 'e': exit_arg = optarg; break;
		default: return EXIT_INFRA;
		}
	}
	if (exit_arg)
		status = strtol(exit_arg, &end, 10);
	if (optind != argc || !dir || !log || !result || !exit_arg || *end ||
	    status < 0 || status > 255) {
		fprintf(stderr, "usage: nmx lava-outcome --cell-dir DIR --log LAVA_RUN_LOG --result RESULT_YAML --exit STATUS\n");
		return EXIT_INFRA;
	}
	started = file_has(log, "\"lvl\": \"info\", \"msg\": \"Boot command: ");
	if (started < 0) {
		fprintf(stderr, "nmx lava-outcome: cannot read %s\n", log);
		return EXIT_INFRA;
	}
	if (!started) {
		file_text(result, "error_msg: ", text, 201);
		printf("lava-run did not start QEMU: %s\n", text);
		return 3;
	}
	file_text(result, NULL, text, sizeof(text));
	meta[1] = text;
	if (rundir_append(dir, RUNDIR_META, meta, 2))
		return EXIT_INFRA;
	timed_out = status == 124 || status == 137 ||
		    file_has(result, "timed out after") > 0;
	return timed_out ? EXIT_FAIL : EXIT_PASS;
}
