// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of every notrace-matrix cell, built with the tree's own
 * tools/include/nolibc.
 *
 * It first checks that the running machine is the one the cell claims
 * (uname machine, runtime byte order), then runs the example of the seed
 * commit 29ad23b00474 ("ftrace: Add set_graph_notrace filter") on this
 * architecture: graph-trace the page-fault root named by the cell with
 * set_graph_function, take first-touch page faults, then do it again with
 * set_graph_notrace = handle_mm_fault, and compare the two traces by
 * structure (names, depths, parents), not by grep.
 *
 * Output: KTAP on the console; each trace framed by NMX-FILE-BEGIN/END
 * so the host can save it; "NMX-RESULT: PASS" printed last when every test
 * passed, "NMX-RESULT: FAIL" otherwise. The machine is powered off (or
 * reset, where the cell says a power-off would only halt) either way, so a failure does not cost
 * the host a timeout; the host decides from the text, never from QEMU.
 *
 * Cell facts come in as macros of the header nmx guest-header generates
 * from arches/<cell>.yaml (build.sh passes it with -include).
 */
#include <linux/utsname.h>
#include "guest.inc.c"
#include "seed_example.inc.c"
#include "notrace_suite.inc.c"
#include "ftracetest.inc.c"

#ifndef NMX_CELL
#error "build through build.sh: the cell's facts come from arches/<cell>.yaml"
#endif

static void test_machine(void)
{
	struct new_utsname uts;
	char msg[160] = "";
	int ok;

	ok = my_syscall1(__NR_uname, &uts) == 0 &&
	     !strcmp(uts.machine, NMX_UNAME_MACHINE);
	printf("# uname: %s %s %s, cell %s expects %s\n", uts.sysname,
	       uts.release, uts.machine, NMX_CELL, NMX_UNAME_MACHINE);
	if (!ok)
		strlcpy(msg, "machine differs from the cell's", sizeof(msg));
	ktap_result(ok, "machine_matches_cell", ok ? 0 : msg);
}

static void test_endianness(void)
{
	const union { unsigned int word; unsigned char byte[4]; } probe = {
		.word = 0x01020304
	};
	int big = probe.byte[0] == 0x01;

	printf("# runtime byte order: %s-endian, cell expects %s-endian\n",
	       big ? "big" : "little", NMX_BIG_ENDIAN ? "big" : "little");
	ktap_result(big == NMX_BIG_ENDIAN, "endianness_matches_cell", 0);
}

static void pin_to_cpu0(void)
{
	unsigned long mask = 1;

	/* One CPU stream in the trace: the structure is per CPU. */
	if (my_syscall3(__NR_sched_setaffinity, 0, sizeof(mask), &mask))
		printf("# sched_setaffinity(cpu0) failed\n");
}

static void test_tracefs(void)
{
	int ok = 1;

	mkdir("/sys", 0755);
	mkdir("/tracing", 0755);
	if (mount("sysfs", "/sys", "sysfs", 0, 0))
		printf("# mount sysfs failed: errno %d\n", errno);
	if (mount("tracefs", "/tracing", "tracefs", 0, 0)) {
		printf("# mount tracefs failed: errno %d\n", errno);
		ok = 0;
	}
	if (ok) {
		static char tracers[256];

		read_file(TRACEFS "available_tracers", tracers, sizeof(tracers));
		ok = contains(tracers, "function_graph");
		if (!ok)
			printf("# available_tracers: %s", tracers);
	}
	if (ok && open(TRACEFS "set_graph_notrace", O_RDONLY) < 0) {
		printf("# no set_graph_notrace (needs DYNAMIC_FTRACE)\n");
		ok = 0;
	}
	ok = ok && !tfs_write("tracing_on", "0") &&
	     !tfs_write("current_tracer", "function_graph\n") &&
	     /* Interrupts that land in the window are not the example's. */
	     !tfs_write("options/funcgraph-irqs", "0") &&
	     !tfs_write("set_ftrace_pid", "1\n");
	tracefs_ready = ok;
	ktap_result(ok, "tracefs_function_graph_ready", 0);
}

static void test_writes(void)
{
	printf("# %d tracefs write(s) failed\n", failed_writes);
	ktap_result(tracefs_ready && !failed_writes,
		    "tracefs_writes_succeeded", 0);
}

/*
 * The big.LITTLE switcher needs an MCPM backend (SPC/SCC on TC2), which no
 * QEMU machine models: bL_switcher_init() returns -ENODEV silently and
 * creates no sysfs directory. Report what the kernel shows; do not pretend.
 */
static void test_bl_switcher(void)
{
	static const char *const words[] = { "bL", "MCPM", "mcpm", "switcher" };
	const char *log = kernel_log();
	char line[256];
	int fd, i, n, shown = 0;

	fd = open("/sys/kernel/bL_switcher/active", O_RDONLY);
	if (fd >= 0) {
		char active[8] = "";

		read(fd, active, sizeof(active) - 1);
		close(fd);
		printf("# bL switcher: /sys/kernel/bL_switcher/active = %s",
		       active);
		ktap_result(1, "bl_switcher_state", 0);
		return;
	}
	for (i = 0; i < 4; i++)
		for (n = 0; log_line_with(log, words[i], n, line, sizeof(line)); n++) {
			printf("# kernel: %s\n", line);
			shown++;
		}
	printf("# bL switcher: built in, but /sys/kernel/bL_switcher is absent: no MCPM backend under QEMU, %d related kernel message(s); switching not exercised\n",
	       shown);
	ktap_result(1, "bl_switcher_state",
		    "SKIP switcher inactive under QEMU (no MCPM backend)");
}

/* The series' boot-time selftest reports on the console (patch 0006). */
static void test_boot_selftest(void)
{
	const char *log = kernel_log();
	char line[256];
	int found;

	if (log_line_with(log, "Testing tracer function_graph:", 0, line,
			  sizeof(line)))
		printf("# kernel: %s\n", line);
	found = log_line_with(log, "Testing set_graph_notrace:", 0, line,
			      sizeof(line));
	if (found)
		printf("# kernel: %s\n", line);
	else
		printf("# no \"Testing set_graph_notrace:\" line in the kernel log\n");
	ktap_result(found && contains(line, "PASSED"),
		    "boot_selftest_set_graph_notrace", 0);
}

static void power_off(void)
{
	/*
	 * Where power-off only halts (x86 without ACPI), the cell asks for
	 * a reset instead; QEMU runs with -no-reboot, so either ends it.
	 */
	reboot(NMX_POWEROFF_BY_RESTART ? LINUX_REBOOT_CMD_RESTART :
					 LINUX_REBOOT_CMD_POWER_OFF);
	for (;;)
		sleep(1);
}

/* The seed example's two traces, before the tests that read them. */
static void take_seed_traces(void)
{
	if (tracefs_ready)
		traces_taken = !take_trace(UNPRUNED) && !take_trace(PRUNED);
	tfs_write("set_graph_notrace", "");
	tfs_write("set_graph_function", "");
}

static void test_bl_switcher_if_built(void)
{
	if (NMX_BL_SWITCHER)
		test_bl_switcher();
}

/* Everything PID 1 does, in order: the KTAP plan is computed from it. */
static const struct guest_step guest_steps[] = {
	SETUP(test_machine, 1),
	SETUP(test_endianness, 1),
	STEP(pin_to_cpu0, 0),
	SETUP(test_tracefs, 1),
	SETUP(test_filter_functions, 1),
	STEP(take_seed_traces, 0),
	STEP(test_unpruned, 1),
	STEP(test_pruned_hides_subtree, 1),
	STEP(test_pruned_resumes, 1),
	STEP(test_balanced, 1),
	STEP(test_boot_selftest, 1),
	STEPS("notrace_suite", notrace_suite),
	STEP(run_ftracetest, FTRACETEST_TESTS),
	SETUP(test_writes, 1),
	STEP(test_bl_switcher_if_built, NMX_BL_SWITCHER ? 1 : 0),
	END_OF_STEPS
};

/*
 * The kernel says "random: crng init done" once its generator is first
 * seeded, from whatever context seeds it. Where nothing seeds it early in
 * boot (parisc's B160L) that notice came in the middle of a result line,
 * which nolibc's printf() writes in pieces, and cut it. A blocking
 * getrandom() makes the kernel gather the entropy now, before the first
 * result: the notice is then printed before this returns (on one CPU), or
 * next to the line that says so.
 */
#ifndef GRND_NONBLOCK
#define GRND_NONBLOCK 0x0001
#endif

static int wait_for_crng(void)
{
	char byte;

	if (my_syscall3(__NR_getrandom, &byte, 1, GRND_NONBLOCK) == 1)
		return 0;
	my_syscall3(__NR_getrandom, &byte, 1, 0);
	return 1;
}

int main(int argc, char **argv, char **envp)
{
	char why[160];
	int bad = select_steps(guest_steps, envp, why, sizeof(why));
	int nr_planned = steps_planned(guest_steps);
	int waited;

	print_uptime(NMX_UPTIME_INIT);
	waited = wait_for_crng();
	printf("\n" NMX_KTAP_HEADER "\n");
	if (waited)
		printf("# waited for the kernel's random generator to be seeded (its notice must not cut a result line)\n");
	printf("# notrace-matrix guest for cell %s: seed example with %s\n",
	       NMX_CELL, NMX_FAULT_ROOT);
	if (only_steps || step_rounds > 1)
		printf("# steps: %s, %d round(s) each (nmx_only, nmx_repeat)\n",
		       only_steps ? only_steps : "all", step_rounds);
	printf("1..%d\n", nr_planned);
	if (bad) {
		printf("Bail out! %s\n", why);
		printf(NMX_FAIL_MARKER "\n");
		power_off();
	}

	run_steps(guest_steps);

	if (nr_test != nr_planned)
		printf("# BUG: planned %d tests, ran %d\n", nr_planned, nr_test);
	printf("# totals: pass:%d fail:%d\n", nr_test - nr_failed, nr_failed);
	print_uptime(NMX_UPTIME_DONE);
	/* Last line either way: the host knows the guest ran to the end. */
	if (!nr_failed && !nr_step_bugs && nr_test == nr_planned)
		printf(NMX_SUCCESS_MARKER "\n");
	else
		printf(NMX_FAIL_MARKER "\n");
	power_off();
	return 0;
}
