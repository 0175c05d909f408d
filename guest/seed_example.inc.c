/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The seed commit's own example (29ad23b00474): graph-trace the page-fault
 * root named by the cell, take first-touch page faults, once without and
 * once with set_graph_notrace = handle_mm_fault, and compare the traces.
 */
#ifndef NMX_SEED_EXAMPLE_H
#define NMX_SEED_EXAMPLE_H

#include "fgraph.h"
#include "guest.inc.c"

#define PAGE 4096
#define FAULT_PAGES 8
#define TRACE_BYTES (512 * 1024)
#define MAX_EVENTS 16384
#define MAX_PRUNED_NAMES 256

/*
 * Untouched until the traced window, one area per run and attempt: first
 * touches fault.
 */
static char fault_area[2][ATTEMPTS][FAULT_PAGES][PAGE]
	__attribute__((aligned(PAGE)));

static char trace_text[2][TRACE_BYTES];
static struct fg_event events[2][MAX_EVENTS];
static struct fg_trace traces[2] = {
	{ .ev = events[0], .max = MAX_EVENTS },
	{ .ev = events[1], .max = MAX_EVENTS },
};
enum { UNPRUNED, PRUNED };
static const char *const trace_file[2] = {
	"trace-unpruned", "trace-pruned"
};

static int traces_taken;

static void test_filter_functions(void)
{
	int root, hmf;

	if (!tracefs_ready) {
		ktap_result(0, "filter_functions_available",
			    "prerequisite: tracefs not ready");
		return;
	}
	root = file_has_word(TRACEFS "available_filter_functions",
			     NMX_FAULT_ROOT);
	hmf = file_has_word(TRACEFS "available_filter_functions",
			    "handle_mm_fault");
	printf("# available_filter_functions: %s %s, handle_mm_fault %s\n",
	       NMX_FAULT_ROOT, root ? "present" : "ABSENT",
	       hmf ? "present" : "ABSENT");
	ktap_result(root && hmf, "filter_functions_available", 0);
}

/* Cause page faults on pages nobody has touched yet. */
static void trigger_faults(int run, int attempt)
{
	char (*area)[PAGE] = fault_area[run][attempt];
	int i;

	if (NMX_TRIGGER_READ_ZERO) {
		/*
		 * The kernel's own first touch (clear_user() in read_zero())
		 * faults: used where the user-mode fault path has no
		 * traceable function above handle_mm_fault().
		 */
		int fd = open("/dev/zero", O_RDONLY);

		if (fd < 0 || read(fd, area, FAULT_PAGES * PAGE) !=
			      FAULT_PAGES * PAGE)
			printf("# read from /dev/zero failed: errno %d\n", errno);
		if (fd >= 0)
			close(fd);
		return;
	}
	for (i = 0; i < FAULT_PAGES; i++)
		((volatile char *)area[i])[0] = 1;
}

/*
 * Capture one trace of the example. An interrupt that lands in the window
 * adds softirq work (funcgraph-irqs=0 hides hardirq context only) that
 * belongs to no fault; such a capture is kept as evidence and taken again
 * on fresh pages, up to ATTEMPTS times.
 */
static int take_trace(int run)
{
	struct fg_trace *t = &traces[run];
	int attempt, irq, err = 0;

	err |= tfs_write("tracing_on", "0");
	err |= tfs_write("set_graph_function", NMX_FAULT_ROOT "\n");
	err |= tfs_write("set_graph_notrace",
			 run == PRUNED ? "handle_mm_fault\n" : "");
	if (err)
		return -1;
	for (attempt = 0; attempt < ATTEMPTS; attempt++) {
		if (tfs_write("trace", ""))
			return -1;
		tfs_write("tracing_on", "1");
		trigger_faults(run, attempt);
		tfs_write("tracing_on", "0");
		irq = capture_trace(trace_file[run], attempt, trace_text[run],
				    TRACE_BYTES, t, 0);
		if (irq == -2)
			return -1;
		if (!capture_again(t, irq, trace_file[run], attempt))
			break;
	}
	return 0;
}

static int count_root_calls(const struct fg_trace *t, int *strays,
			    const char **stray_name)
{
	int i, roots = 0;

	*strays = 0;
	for (i = 0; i < t->nr; i++) {
		const struct fg_event *e = &t->ev[i];

		if (!fg_is_call(e) || e->parent >= 0)
			continue;
		if (!strcmp(e->name, NMX_FAULT_ROOT)) {
			roots++;
		} else {
			(*strays)++;
			*stray_name = e->name;
		}
	}
	return roots;
}

static void describe(int run)
{
	const struct fg_trace *t = &traces[run];
	const char *stray = "";
	int strays, roots = count_root_calls(t, &strays, &stray);

	printf("# %s.txt: %d events, %d calls to %s at depth 0%s\n",
	       trace_file[run], t->nr, roots, NMX_FAULT_ROOT,
	       t->truncated ? ", TRUNCATED" : "");
	if (strays)
		printf("# %s.txt: note: %d top-level call(s) outside %s, e.g. %s()\n",
		       trace_file[run], strays, NMX_FAULT_ROOT, stray);
}

/*
 * Interrupt work lands inside handle_mm_fault() in one run and elsewhere
 * in the next: it is left out of the subtree comparison, and so is what
 * ran in an interrupt's hidden frame (a preemption on its way out).
 */
static int in_irq_work(const struct fg_trace *t, int i)
{
	for (; i >= 0; i = t->ev[i].parent)
		if (fg_is_irq_event(&t->ev[i]))
			return 1;
	return 0;
}

/*
 * Calls named @name outside interrupt work; with @under, how many of them
 * are not beneath a call to @under.
 */
static int count_outside_irq(const struct fg_trace *t, const char *name,
			     const char *under, int *not_under)
{
	int i, n = 0;

	*not_under = 0;
	for (i = 0; i < t->nr; i++) {
		if (!fg_is_call(&t->ev[i]) || strcmp(t->ev[i].name, name) ||
		    in_irq_work(t, i))
			continue;
		n++;
		if (under && !fg_has_ancestor(t, i, under))
			(*not_under)++;
	}
	return n;
}

static int name_in(const char *const *names, int n, const char *name)
{
	while (n--)
		if (!strcmp(names[n], name))
			return 1;
	return 0;
}

/* Names that, in the unpruned trace, occur only beneath handle_mm_fault. */
static const char *pruned_names[MAX_PRUNED_NAMES];
static int nr_pruned_names;
static int nr_irq_work_events;

static void collect_pruned_names(void)
{
	const struct fg_trace *t = &traces[UNPRUNED];
	int i, outside;

	for (i = 0; i < t->nr; i++) {
		const char *name = t->ev[i].name;

		if (!fg_is_call(&t->ev[i]))
			continue;
		if (in_irq_work(t, i)) {
			nr_irq_work_events++;
			continue;
		}
		if (!count_outside_irq(t, name, "handle_mm_fault", &outside) ||
		    outside)
			continue;
		if (!name_in(pruned_names, nr_pruned_names, name) &&
		    nr_pruned_names < MAX_PRUNED_NAMES)
			pruned_names[nr_pruned_names++] = name;
	}
}

/* handle_mm_fault()'s traced callers, at every depth, in the unpruned trace. */
static const char *hmf_callers[MAX_PRUNED_NAMES];
static int nr_hmf_callers;

static void collect_hmf_callers(void)
{
	const struct fg_trace *t = &traces[UNPRUNED];
	int i, p;

	for (i = 0; i < t->nr; i++) {
		if (!fg_is_call(&t->ev[i]) ||
		    strcmp(t->ev[i].name, "handle_mm_fault"))
			continue;
		for (p = t->ev[i].parent; p >= 0; p = t->ev[p].parent)
			if (!name_in(hmf_callers, nr_hmf_callers,
				     t->ev[p].name) &&
			    nr_hmf_callers < MAX_PRUNED_NAMES)
				hmf_callers[nr_hmf_callers++] = t->ev[p].name;
	}
}

/*
 * Calls of @name (a subtree name) in @t where handle_mm_fault()'s subtree
 * would be: beneath one of its callers through nothing but the subtree's
 * own names. The same name under any other call (the scheduler, when the
 * root was preempted between two faults) is no leak: *@elsewhere counts
 * those, and @under names the first one's caller.
 */
static int count_leaked(const struct fg_trace *t, const char *name,
			int *elsewhere, const char **under)
{
	int i, p, n = 0;

	*elsewhere = 0;
	for (i = 0; i < t->nr; i++) {
		if (!fg_is_call(&t->ev[i]) || strcmp(t->ev[i].name, name) ||
		    in_irq_work(t, i))
			continue;
		for (p = t->ev[i].parent; p >= 0; p = t->ev[p].parent)
			if (strcmp(t->ev[p].name, "handle_mm_fault") &&
			    !name_in(pruned_names, nr_pruned_names,
				     t->ev[p].name))
				break;
		if (p < 0 || name_in(hmf_callers, nr_hmf_callers,
				     t->ev[p].name)) {
			n++;
		} else if (!(*elsewhere)++) {
			*under = t->ev[p].name;
		}
	}
	return n;
}

static int sibling_idx = -1;

/*
 * Where the root calls nothing traced after handle_mm_fault() (7.2's
 * arm64 do_page_fault() ends with it), the root's next call stands for the
 * sibling: the root that called handle_mm_fault() returned, and the next
 * fault must be traced again, which a prune that never ended would hide.
 * Index of that next root call, or -1.
 */
static int later_root_call(const struct fg_trace *t, const char *name)
{
	int i, j, r;

	for (i = 0; i < t->nr; i++) {
		if (!fg_is_call(&t->ev[i]) || strcmp(t->ev[i].name, name))
			continue;
		for (r = i; t->ev[r].parent >= 0; r = t->ev[r].parent)
			;
		if (strcmp(t->ev[r].name, NMX_FAULT_ROOT) || t->ev[r].end < 0)
			continue;
		for (j = t->ev[r].end + 1; j < t->nr; j++)
			if (fg_is_call(&t->ev[j]) && t->ev[j].parent < 0 &&
			    !strcmp(t->ev[j].name, NMX_FAULT_ROOT))
				return j;
	}
	return -1;
}

static void test_unpruned(void)
{
	const struct fg_trace *t = &traces[UNPRUNED];
	int i, inside = 0, depth = -1, parent = -1, strays;
	const char *stray;

	if (!traces_taken) {
		ktap_result(0, "unpruned_handle_mm_fault_inside_root",
			    "prerequisite: no trace taken");
		return;
	}
	describe(UNPRUNED);
	for (i = 0; i < t->nr; i++) {
		if (fg_is_call(&t->ev[i]) &&
		    !strcmp(t->ev[i].name, "handle_mm_fault") &&
		    fg_has_ancestor(t, i, NMX_FAULT_ROOT)) {
			if (!inside++) {
				depth = t->ev[i].depth;
				parent = t->ev[i].parent;
			}
		}
	}
	collect_pruned_names();
	collect_hmf_callers();
	sibling_idx = fg_later_sibling(t, "handle_mm_fault");
	if (sibling_idx < 0) {
		sibling_idx = later_root_call(t, "handle_mm_fault");
		if (sibling_idx >= 0)
			printf("# unpruned: %s() calls nothing traced after handle_mm_fault; its next call stands for the sibling\n",
			       NMX_FAULT_ROOT);
	}
	if (inside)
		printf("# unpruned: handle_mm_fault %d time(s) under %s, first at depth %d below %s()\n",
		       inside, NMX_FAULT_ROOT, depth,
		       parent >= 0 ? t->ev[parent].name : "?");
	printf("# unpruned: %d function(s) seen only beneath handle_mm_fault:",
	       nr_pruned_names);
	for (i = 0; i < nr_pruned_names; i++)
		printf(" %s", pruned_names[i]);
	printf("\n");
	if (nr_irq_work_events)
		printf("# unpruned: %d call(s) in softirq work left out of the comparison\n",
		       nr_irq_work_events);
	if (sibling_idx >= 0)
		printf("# unpruned: later sibling of handle_mm_fault: %s() at depth %d\n",
		       t->ev[sibling_idx].name, t->ev[sibling_idx].depth);
	else
		printf("# unpruned: no later sibling of handle_mm_fault found\n");
	ktap_result(count_root_calls(t, &strays, &stray) > 0 && inside > 0 &&
		    nr_pruned_names > 0 && sibling_idx >= 0,
		    "unpruned_handle_mm_fault_inside_root", 0);
}

static void test_pruned_hides_subtree(void)
{
	const struct fg_trace *t = &traces[PRUNED];
	int i, leaked = 0, hmf, strays;
	const char *stray;

	if (!traces_taken || sibling_idx < 0) {
		ktap_result(0, "pruned_subtree_hidden",
			    "prerequisite: no usable unpruned trace");
		return;
	}
	describe(PRUNED);
	hmf = fg_count_calls(t, "handle_mm_fault");
	for (i = 0; i < nr_pruned_names; i++) {
		const char *under = "";
		int elsewhere, n = count_leaked(t, pruned_names[i], &elsewhere,
						&under);

		if (n) {
			printf("# pruned: %s() still traced %d time(s)\n",
			       pruned_names[i], n);
			leaked++;
		}
		if (elsewhere)
			printf("# pruned: %s() traced %d time(s) away from handle_mm_fault's place (under %s()): not a leak\n",
			       pruned_names[i], elsewhere, under);
	}
	printf("# pruned: handle_mm_fault traced %d time(s), %d of %d subtree function(s) leaked\n",
	       hmf, leaked, nr_pruned_names);
	ktap_result(count_root_calls(t, &strays, &stray) > 0 && !hmf && !leaked,
		    "pruned_subtree_hidden", 0);
}

static void test_pruned_resumes(void)
{
	const struct fg_trace *a = &traces[UNPRUNED], *t = &traces[PRUNED];
	const struct fg_event *sib;
	const char *parent_name;
	int i, found = 0;

	if (!traces_taken || sibling_idx < 0) {
		ktap_result(0, "pruned_tracing_resumes_at_sibling",
			    "prerequisite: no usable unpruned trace");
		return;
	}
	sib = &a->ev[sibling_idx];
	if (sib->parent < 0) {
		/* The root's next call (later_root_call()): a second root call. */
		int strays;
		const char *stray;

		found = count_root_calls(t, &strays, &stray) >= 2;
		printf("# pruned: %s() called again after a pruned handle_mm_fault: %s\n",
		       NMX_FAULT_ROOT, found ? "present" : "MISSING");
		ktap_result(found, "pruned_tracing_resumes_at_sibling", 0);
		return;
	}
	parent_name = a->ev[sib->parent].name;
	for (i = 0; i < t->nr; i++) {
		const struct fg_event *e = &t->ev[i];

		if (fg_is_call(e) && !strcmp(e->name, sib->name) &&
		    e->depth == sib->depth && e->parent >= 0 &&
		    !strcmp(t->ev[e->parent].name, parent_name) &&
		    fg_has_ancestor(t, i, NMX_FAULT_ROOT)) {
			found = 1;
			break;
		}
	}
	printf("# pruned: %s() at depth %d below %s() %s\n", sib->name,
	       sib->depth, parent_name, found ? "present" : "MISSING");
	ktap_result(found, "pruned_tracing_resumes_at_sibling", 0);
}

static void test_balanced(void)
{
	int run, ok = traces_taken;

	for (run = 0; ok && run < 2; run++) {
		const struct fg_trace *t = &traces[run];

		if (t->bad_line) {
			printf("# %s.txt line %d: %s\n", trace_file[run],
			       t->bad_line, t->bad_why);
			ok = 0;
		}
		if (t->truncated) {
			printf("# %s.txt: more than %d events\n", trace_file[run],
			       MAX_EVENTS);
			ok = 0;
		}
	}
	ktap_result(ok, "traces_structurally_balanced", 0);
}

#endif /* NMX_SEED_EXAMPLE_H */
