// SPDX-License-Identifier: GPL-2.0
/*
 * The guest's seed-example checks (guest/seed_example.inc.c) on the host,
 * against recorded pairs of unpruned and pruned traces in this directory.
 * The guest's own KTAP goes to /dev/null; this prints TAP of its own and
 * exits 1 on any failure.
 */
#include "host_guest.h"

/* The facts of a read_zero cell (nmx guest-header writes them in a run). */
#define NMX_CELL "host"
#define NMX_UNAME_MACHINE "host"
#define NMX_BIG_ENDIAN 0
#define NMX_FAULT_ROOT "read_zero"
#define NMX_TRIGGER_READ_ZERO 1
#define NMX_POWEROFF_BY_RESTART 0
#define NMX_BL_SWITCHER 0
#define NMX_FTRACETEST 0
#define NMX_FTRACETEST_CASES "none"

#include "seed_example.inc.c"

static FILE *tap;
static int nr_checks, nr_check_failures;

static void load(const char *dir, int run, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (read_file(path, trace_text[run], TRACE_BYTES) < 0) {
		perror(path);
		exit(2);
	}
	fg_parse(&traces[run], trace_text[run], 0);
}

/*
 * Judge one pair as the guest does, its output silenced; true when
 * pruned_subtree_hidden passed, and with @balanced
 * traces_structurally_balanced too.
 */
static int judged_ok(const char *dir, const char *unpruned,
		     const char *pruned, int balanced)
{
	int out = dup(1), devnull = open("/dev/null", O_WRONLY), before;

	nr_pruned_names = 0;
	nr_hmf_callers = 0;
	nr_irq_work_events = 0;
	sibling_idx = -1;
	load(dir, UNPRUNED, unpruned);
	load(dir, PRUNED, pruned);
	traces_taken = 1;
	fflush(stdout);
	dup2(devnull, 1);
	test_unpruned();
	before = nr_failed;
	test_pruned_hides_subtree();
	if (balanced)
		test_balanced();
	fflush(stdout);
	dup2(out, 1);
	close(out);
	close(devnull);
	return nr_failed == before;
}

static void check(int ok, const char *what)
{
	nr_checks++;
	if (!ok)
		nr_check_failures++;
	fprintf(tap, "%s %d %s\n", ok ? "ok" : "not ok", nr_checks, what);
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";

	tap = fdopen(dup(1), "w");
	setvbuf(tap, NULL, _IOLBF, 0);
	fprintf(tap, "1..4\n");
	/* sparc64, 7.2: read_zero() preempted between two faults. */
	check(judged_ok(dir, "sparc64-unpruned-7.2.txt",
			"sparc64-pruned-preempted-7.2.txt", 0),
	      "seed: the scheduler's _raw_spin_lock() beside the pruned subtree is no leak");
	/* x86_64, 6.1 with a prune that did nothing (a bisect step). */
	check(!judged_ok(dir, "x86_64-unpruned-6.1.txt",
			 "x86_64-pruned-broken-6.1.txt", 0),
	      "seed: a prune that did nothing fails pruned_subtree_hidden");
	/*
	 * The same pruned trace with handle_mm_fault's own lines cut out (by
	 * hand): its callees one level up, beneath its caller.
	 */
	check(!judged_ok(dir, "x86_64-unpruned-6.1.txt",
			 "x86_64-pruned-broken-hmf-cut-6.1.txt", 0),
	      "seed: handle_mm_fault hidden but its callees traced fails pruned_subtree_hidden");
	/*
	 * ppc64le, 7.2 (run 20261207T092408Z, judged unbalanced then): a
	 * tick after handle_mm_fault() returned preempted the task, the
	 * scheduler's calls in the interrupt's hidden frame.
	 */
	check(judged_ok(dir, "ppc64le-preempted-after-irq-7.2.txt",
			"ppc64le-pruned-7.2.txt", 1),
	      "seed: a preemption on an interrupt's way out balances, and the subtree stays hidden");
	return nr_check_failures ? 1 : 0;
}
