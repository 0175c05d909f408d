/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The set_graph_notrace suite: scenarios driven through the series' test
 * module (CONFIG_TEST_FGRAPH_NOTRACE, lib/test_fgraph_notrace.c) and bad
 * input through tracefs.
 *
 * Each scenario sets set_graph_function to its root(s) and
 * set_graph_notrace to the function(s) to prune, calls the root through
 * <debugfs>/test_fgraph_notrace/run, and compares the trace with the
 * expected shape in a canonical form: "name{" for an entry, "name;" for a
 * leaf (also one printed as an entry and its closing brace with nothing
 * between: fg_is_split_leaf()), "}" for a return, for every call tree
 * whose top is one of the roots. Names, nesting and order all count. Calls at the top that are no
 * root ("strays") are reported, and judged by their own scenario.
 */
#ifndef NMX_NOTRACE_SUITE_H
#define NMX_NOTRACE_SUITE_H

#include "fgraph.h"
#include "guest.inc.c"

#define MODULE_DIR "/sys/kernel/debug/test_fgraph_notrace/"
#define SUITE_TRACE_BYTES (256 * 1024)
#define SUITE_EVENTS 8192
#define CANON_BYTES 4096

static char suite_text[SUITE_TRACE_BYTES];
static struct fg_event suite_events[SUITE_EVENTS];
static struct fg_trace suite_trace = { .ev = suite_events, .max = SUITE_EVENTS };
static char canon[CANON_BYTES];
static char strays[512];
static int module_ready;

/* Is @name one of the space-separated words of @list? */
static int in_list(const char *list, const char *name)
{
	size_t n = strlen(name);

	while (*list) {
		while (*list == ' ')
			list++;
		if (!strncmp(list, name, n) && (list[n] == ' ' || !list[n]))
			return 1;
		while (*list && *list != ' ')
			list++;
	}
	return 0;
}

/*
 * A write that is allowed to fail: returns 0 or the first -errno, never
 * counts as a failed write. Short writes go on with the rest.
 */
static int tfs_try_write(const char *file, const char *val, size_t len,
			 int append)
{
	char path[128] = TRACEFS;
	size_t done = 0;
	ssize_t ret;
	int fd, err = 0;

	strlcat(path, file, sizeof(path));
	fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0)
		return -errno;
	while (done < len) {
		ret = write(fd, val + done, len - done);
		if (ret < 0) {
			err = -errno;
			break;
		}
		if (!ret)
			break;
		done += ret;
	}
	close(fd);
	return err;
}

/* Write a space-separated function list, one per line, or clear. */
static int set_functions(const char *file, const char *list)
{
	static char buf[512];
	char *w = buf;

	for (; *list && w < buf + sizeof(buf) - 2; list++)
		*w++ = *list == ' ' ? '\n' : *list;
	if (w != buf)
		*w++ = '\n';
	*w = '\0';
	return tfs_write(file, buf);
}

static int module_run(const char *what)
{
	int fd = open(MODULE_DIR "run", O_WRONLY);
	ssize_t ret;

	if (fd < 0) {
		printf("# cannot open %srun: errno %d\n", MODULE_DIR, errno);
		return -1;
	}
	ret = write(fd, what, strlen(what));
	close(fd);
	if (ret != (ssize_t)strlen(what)) {
		printf("# run %s: errno %d\n", what, errno);
		return -1;
	}
	return 0;
}

static void canon_add(const char *s)
{
	strlcat(canon, s, sizeof(canon));
}

/*
 * Canonical form of the call trees rooted at @roots; other top-level
 * calls go to strays.
 */
static void canonicalize(const struct fg_trace *t, const char *roots)
{
	int i, j;

	canon[0] = strays[0] = '\0';
	for (i = 0; i < t->nr; i++) {
		const struct fg_event *e = &t->ev[i];
		int end;

		if (e->parent >= 0 || !fg_is_call(e))
			continue;
		if (!in_list(roots, e->name)) {
			strlcat(strays, " ", sizeof(strays));
			strlcat(strays, e->name, sizeof(strays));
			continue;
		}
		end = e->kind == FG_ENTRY ? e->end : i;
		if (end < 0)
			end = t->nr - 1;
		for (j = i; j <= end; j++) {
			const struct fg_event *f = &t->ev[j];

			if (f->kind == FG_EXIT) {
				canon_add("}");
				continue;
			}
			canon_add(f->name);
			if (fg_is_split_leaf(t, j)) {
				canon_add(";");
				j++;	/* its closing brace */
				continue;
			}
			canon_add(f->kind == FG_ENTRY ? "{" : ";");
		}
		i = end;
	}
}

/*
 * Trace what @run does with @roots graphed and @notrace pruned. A capture
 * with interrupt work in it is kept as evidence and taken again, up to
 * ATTEMPTS times, unless @strict (the scenario is about interrupts).
 */
static int trace_scenario_once(const char *label, const char *roots,
			       const char *notrace, const char *run,
			       int strict)
{
	char base[64] = "scenario-";
	int attempt, irq, err = 0;

	err |= tfs_write("tracing_on", "0");
	err |= set_functions("set_graph_function", roots);
	err |= set_functions("set_graph_notrace", notrace);
	if (err)
		return -1;
	strlcat(base, label, sizeof(base));
	for (attempt = 0; attempt < ATTEMPTS; attempt++) {
		if (tfs_write("trace", ""))
			return -1;
		tfs_write("tracing_on", "1");
		if (run && module_run(run))
			err = -1;
		tfs_write("tracing_on", "0");
		if (err)
			return -1;
		irq = capture_trace(base, attempt, suite_text,
				    sizeof(suite_text), &suite_trace, -1);
		if (irq == -2)
			return -1;
		canonicalize(&suite_trace, roots);
		if (strict || !capture_again(&suite_trace, irq, base, attempt))
			break;
	}
	return 0;
}

static int trace_scenario(const char *label, const char *roots,
			  const char *notrace, const char *run)
{
	return trace_scenario_once(label, roots, notrace, run, 0);
}

/* Compare the canonical form with @want; print both when they differ. */
static int shape_is(const char *what, const char *want)
{
	int ok = !strcmp(canon, want) && !suite_trace.bad_line;

	if (suite_trace.bad_line)
		printf("# %s: trace line %d: %s\n", what, suite_trace.bad_line,
		       suite_trace.bad_why);
	if (strcmp(canon, want)) {
		printf("# %s: want %s\n", what, *want ? want : "(nothing)");
		printf("# %s: got  %s\n", what, *canon ? canon : "(nothing)");
	}
	if (*strays)
		printf("# %s: stray top-level call(s):%s\n", what, strays);
	return ok;
}

static int run_shape(const char *label, const char *roots,
		     const char *notrace, const char *run, const char *want)
{
	if (trace_scenario(label, roots, notrace, run))
		return 0;
	return shape_is(label, want);
}

static void suite_result(int ok, const char *name)
{
	ktap_result(ok, name, module_ready ? 0 : "prerequisite: no test module");
}

static void test_leaf(void)
{
	int ok = run_shape("leaf-unpruned", "fgnt_leaf_root", "", "leaf",
		"fgnt_leaf_root{fgnt_before;fgnt_leaf_pruned;fgnt_after;}");

	ok &= run_shape("leaf", "fgnt_leaf_root", "fgnt_leaf_pruned", "leaf",
		"fgnt_leaf_root{fgnt_before;fgnt_after;}");
	suite_result(ok, "notrace_leaf");
}

static void test_middle(void)
{
	int ok = run_shape("middle-unpruned", "fgnt_middle_root", "", "middle",
		"fgnt_middle_root{fgnt_before;fgnt_middle_pruned{fgnt_inner{fgnt_inner_leaf;}}fgnt_after;}");

	/* fgnt_after at the depth of fgnt_before: tracing resumed. */
	ok &= run_shape("middle", "fgnt_middle_root", "fgnt_middle_pruned",
		"middle", "fgnt_middle_root{fgnt_before;fgnt_after;}");
	suite_result(ok, "notrace_middle_resumes_at_sibling");
}

static void test_nested(void)
{
	suite_result(run_shape("nested-both", "fgnt_nested_root",
		"fgnt_nested_outer fgnt_nested_inner", "nested",
		"fgnt_nested_root{fgnt_after;}"), "notrace_nested_both");
	suite_result(run_shape("nested-inner", "fgnt_nested_root",
		"fgnt_nested_inner", "nested",
		"fgnt_nested_root{fgnt_nested_outer{fgnt_before;}fgnt_after;}"),
		"notrace_nested_inner_only");
}

static void test_recursion(void)
{
	suite_result(run_shape("recursion", "fgnt_recursion_root",
		"fgnt_recurse", "recursion",
		"fgnt_recursion_root{fgnt_after;}"), "notrace_recursive");
}

/* CPU of the first event named @name, or -1. */
static int cpu_of(const char *name)
{
	int i;

	for (i = 0; i < suite_trace.nr; i++)
		if (suite_trace.ev[i].name &&
		    !strcmp(suite_trace.ev[i].name, name))
			return suite_trace.ev[i].cpu;
	return -1;
}

/* More than one CPU online? ("0" versus "0-1" or "0,2"). */
static int several_cpus(void)
{
	char online[64];

	if (read_file("/sys/devices/system/cpu/online", online,
		      sizeof(online)) <= 0)
		return 0;
	return strchr(online, '-') || strchr(online, ',');
}

static void test_migrate(void)
{
	int ok, from, to;

	if (!several_cpus()) {
		ktap_result(1, "notrace_sleep_and_migrate",
			    "SKIP one CPU online: nowhere to migrate to");
		return;
	}
	ok = run_shape("migrate", "fgnt_migrate_root",
		"fgnt_migrate_pruned", "migrate",
		"fgnt_migrate_root{fgnt_after;}");
	from = cpu_of("fgnt_migrate_root");
	to = cpu_of("fgnt_after");

	printf("# migrate: root entered on CPU %d, fgnt_after ran on CPU %d\n",
	       from, to);
	if (ok && from == to) {
		printf("# migrate: the task did not move: scenario not exercised\n");
		ok = 0;
	}
	suite_result(ok, "notrace_sleep_and_migrate");
}

static void test_irq(void)
{
	static const char after[] = "fgnt_irq_root{fgnt_after;";
	int ok;

	/* Interrupt work is traced again, so that any leak would show. */
	tfs_write("options/funcgraph-irqs", "1");
	ok = !trace_scenario_once("irq", "fgnt_irq_root", "fgnt_irq_pruned",
				  "irq", 1);
	/*
	 * A leak from the pruned function would come before fgnt_after,
	 * which runs once it returned; an interrupt that lands after
	 * fgnt_after, still inside the root, is traced as it should be.
	 */
	if (ok && !strncmp(canon, after, sizeof(after) - 1) &&
	    strcmp(canon, "fgnt_irq_root{fgnt_after;}")) {
		printf("# irq: an interrupt after fgnt_after, outside the pruned function, traced as it should be\n");
		ok = !suite_trace.bad_line;
	} else {
		ok = ok && shape_is("irq", "fgnt_irq_root{fgnt_after;}");
	}
	tfs_write("options/funcgraph-irqs", "0");
	suite_result(ok, "notrace_irq_inside_pruned");
}

/*
 * Every other scenario's expected shape rests on funcgraph-irqs=0 hiding
 * hardirq work: the same busy-wait over three ticks, traced this time
 * and with nothing pruned, must show no interrupt dispatch. What runs
 * outside hardirq context on the way in and out of an interrupt
 * (irq_enter_rcu(), softirqs: fg_is_irq_work()) is traced by design and
 * left out of the comparison. A dispatcher called before irq_enter() and
 * outside the irqentry text shows here (7.2 FINDINGS.md, 21).
 */
static void test_irqs_hidden(void)
{
	static const char *const name = "interrupts_hidden_with_funcgraph_irqs_off";
	int ok, dropped;

	ok = !trace_scenario_once("irqs-hidden", "fgnt_irq_root", "", "irq", 1);
	if (ok) {
		dropped = fg_drop_irq_work(canon);
		if (dropped)
			printf("# irqs-hidden: %d call(s) of interrupt entry, exit or softirq work left out of the comparison\n",
			       dropped);
		ok = shape_is("irqs-hidden",
			      "fgnt_irq_root{fgnt_irq_pruned{fgnt_inner{fgnt_inner_leaf;}}fgnt_after;}");
	}
	suite_result(ok, name);
}

static void repeat(const char *s, int n)
{
	while (n-- > 0)
		canon_add(s);
}

/*
 * The return stack's size is the kernel's: FTRACE_RETFUNC_DEPTH entries
 * on 6.1, a page of variable-size frames shared by every fgraph user
 * since 6.8. Run the recursion deeper than any of them first and count
 * the frames the trace shows; then put fgnt_deep_pruned in the last one.
 */
#define DEPTH_PROBE_LEVELS 200

static void test_depth_limit(void)
{
	static char want[CANON_BYTES];
	char run[32] = "depth_limit ";
	int frames, levels, ok;

	append_uint(run, sizeof(run), DEPTH_PROBE_LEVELS);
	if (trace_scenario("depth-probe", "fgnt_deep_root", "", run)) {
		suite_result(0, "notrace_at_ret_stack_limit");
		return;
	}
	frames = 1 + count_of(canon, "fgnt_deep{") + count_of(canon, "fgnt_deep;");
	/*
	 * The module ended the chain short of the kernel stack's end (its
	 * FGNT_DEEP_STACK_ROOM) and the trace still had room: this kernel's stack runs out
	 * before its return stack, whose limit cannot be reached here.
	 */
	if (contains(canon, "fgnt_deep_stack_end") && !suite_trace.bad_line) {
		printf("# depth-probe: the kernel stack ran low after %d traced frame(s), the return stack had room\n",
		       frames);
		ktap_result(1, "notrace_at_ret_stack_limit",
			    "SKIP the kernel stack runs out before the return stack");
		return;
	}
	printf("# depth-probe: the return stack took %d frame(s) from the root\n",
	       frames);
	if (contains(canon, "fgnt_deep_bottom") || frames < 4 ||
	    suite_trace.bad_line) {
		printf("# depth-probe: no limit below %d levels, or a broken trace\n",
		       DEPTH_PROBE_LEVELS);
		suite_result(0, "notrace_at_ret_stack_limit");
		return;
	}
	/* root + levels + fgnt_deep_bottom + fgnt_deep_pruned, the last. */
	levels = frames - 3;
	canon[0] = '\0';
	canon_add("fgnt_deep_root{");
	repeat("fgnt_deep{", levels);
	canon_add("fgnt_deep_bottom{fgnt_after;}");
	repeat("}", levels + 1);
	strlcpy(want, canon, sizeof(want));
	strlcpy(run, "depth_limit ", sizeof(run));
	append_uint(run, sizeof(run), levels);
	ok = run_shape("depth-limit", "fgnt_deep_root", "fgnt_deep_pruned",
		       run, want);
	suite_result(ok, "notrace_at_ret_stack_limit");
}

static void test_max_depth(void)
{
	int ok;

	tfs_write("max_graph_depth", "3");
	ok = run_shape("max-depth-3", "fgnt_middle_root", "fgnt_inner",
		"middle",
		"fgnt_middle_root{fgnt_before;fgnt_middle_pruned;fgnt_after;}");
	tfs_write("max_graph_depth", "2");
	ok &= run_shape("max-depth-2", "fgnt_middle_root",
		"fgnt_middle_pruned", "middle",
		"fgnt_middle_root{fgnt_before;fgnt_after;}");
	tfs_write("max_graph_depth", "0");
	suite_result(ok, "notrace_with_max_graph_depth");
}

static void test_notrace_wins(void)
{
	suite_result(run_shape("notrace-wins", "fgnt_middle_pruned",
		"fgnt_middle_pruned", "middle", ""),
		"notrace_wins_over_graph_function");
}

/* Does line @label of the stacks file name @callers in this order? */
static int stack_has(const char *stacks, const char *label,
		     const char *const *callers)
{
	static char line[1024];
	const char *p = stacks, *at;
	size_t n = strlen(label);

	while (*p && !(strncmp(p, label, n) == 0 && p[n] == ':')) {
		while (*p && *p != '\n')
			p++;
		if (*p)
			p++;
	}
	if (!*p) {
		printf("# stack %s: not taken\n", label);
		return 0;
	}
	strlcpy(line, p, sizeof(line));
	for (at = line; *at && *at != '\n'; at++)
		;
	line[at - line] = '\0';
	printf("# stack %s\n", line);
	if (contains(line, "return_to_handler")) {
		printf("# stack %s: return_to_handler instead of a caller\n",
		       label);
		return 0;
	}
	for (at = line; *callers; callers++) {
		const char *hit = at;
		size_t len = strlen(*callers);

		while (*hit && !(strncmp(hit, *callers, len) == 0 &&
				 (hit[len] == ' ' || hit[len] == '+' ||
				  !hit[len])))
			hit++;
		if (!*hit) {
			printf("# stack %s: %s missing (or out of order)\n",
			       label, *callers);
			return 0;
		}
		at = hit + len;
	}
	return 1;
}

static void test_stacks(void)
{
	static const char *const in_pruned[] = {
		"fgnt_stack_pruned_inner", "fgnt_stack_pruned",
		"fgnt_stack_root", 0
	};
	static const char *const in_traced[] = {
		"fgnt_stack_traced", "fgnt_stack_root", 0
	};
	static char stacks[4096];
	int taken;

	taken = !trace_scenario("stack", "fgnt_stack_root",
				"fgnt_stack_pruned", "stack") &&
		read_file(MODULE_DIR "stacks", stacks, sizeof(stacks)) > 0;
	suite_result(taken && stack_has(stacks, "pruned", in_pruned),
		     "stack_trace_in_pruned_subtree");
	suite_result(taken && stack_has(stacks, "traced", in_traced),
		     "stack_trace_in_traced_function");
}

/*
 * Not about notrace: a function that saves no return address must still be
 * graph traced, or set_graph_notrace on it means nothing.
 */
static void test_frameless(void)
{
	suite_result(run_shape("frameless", "fgnt_frameless_root", "",
		"frameless", "fgnt_frameless_root{fgnt_frameless;}"),
		"frameless_leaf_is_traced");
}

static void test_fork(void)
{
	/*
	 * fgnt_fork_pruned starts a kernel thread and waits for it; only
	 * the child's own root is graphed, so the child's calls are the
	 * whole trace.
	 */
	suite_result(run_shape("fork", "fgnt_child", "fgnt_fork_pruned",
		"fork", "fgnt_child{fgnt_inner{fgnt_inner_leaf;}}"),
		"child_forked_in_pruned_is_traced");
}

/*
 * A kthread sleeps inside a pruned function while the tracer is switched
 * off and on. @return_while_off: let it return from the pruned function
 * while the tracer is off, with nothing to clear the prune state.
 */
static void test_sleeper(int return_while_off, const char *name)
{
	const char *label = return_while_off ? "sleeper-off" : "sleeper-on";
	int ok = 1;

	tfs_write("tracing_on", "0");
	ok &= !set_functions("set_graph_function", "fgnt_sleeper_after");
	ok &= !set_functions("set_graph_notrace", "fgnt_sleeper_pruned");
	ok &= !module_run("sleeper_start");
	ok &= !tfs_write("current_tracer", "nop\n");
	if (return_while_off)
		ok &= !module_run("sleeper_release");
	ok &= !tfs_write("current_tracer", "function_graph\n");
	if (!return_while_off)
		ok &= !module_run("sleeper_release");
	ok &= !tfs_write("trace", "");
	tfs_write("tracing_on", "1");
	ok &= !module_run("sleeper_finish");
	tfs_write("tracing_on", "0");
	if (ok) {
		char base[64] = "scenario-";

		strlcat(base, label, sizeof(base));
		ok = capture_trace(base, 0, suite_text, sizeof(suite_text),
				   &suite_trace, -1) != -2;
	}
	if (ok) {
		canonicalize(&suite_trace, "fgnt_sleeper_after");
		/*
		 * The question is whether the kthread is traced at all, and
		 * this one-shot sequence cannot be captured again when an
		 * interrupt lands in it: judge the start of the tree only,
		 * without the marks interrupts leave.
		 */
		if (fg_drop_irq_work(canon))
			printf("# %s: interrupt work left out of the comparison\n",
			       label);
		ok = !strncmp(canon, "fgnt_sleeper_after{fgnt_inner{", 30);
		if (!ok || strcmp(canon, "fgnt_sleeper_after{fgnt_inner{fgnt_inner_leaf;}}"))
			shape_is(label, "fgnt_sleeper_after{fgnt_inner{fgnt_inner_leaf;}}");
	}
	suite_result(ok, name);
}

/*
 * Since 6.8 each fgraph registration takes the next of 16 slots of task
 * variables (FIFO), and the prune state lives in the slot's variable. A
 * kthread that returns from a pruned function while the tracer is off
 * leaves its variable dirty; the next registration gets a clean slot, but
 * the dirty one comes back 16 registrations later. Register the tracer
 * 17 times after that return, and after each registration the kthread
 * must be traced. Only the module's functions are hooked
 * (set_ftrace_filter), so that a registration patches few call sites.
 */
#define REREGISTRATIONS 17

static void test_reregistered(void)
{
	static const char *const name =
		"tracer_reregistered_17_times_after_pruned_return";
	int i, ok = 1, untraced = 0;

	tfs_write("tracing_on", "0");
	ok &= !set_functions("set_ftrace_filter", "fgnt_*");
	ok &= !set_functions("set_graph_function", "fgnt_sleeper_after");
	ok &= !set_functions("set_graph_notrace", "fgnt_sleeper_pruned");
	ok &= !module_run("sleeper_start");
	ok &= !tfs_write("current_tracer", "nop\n");
	ok &= !module_run("sleeper_release");	/* returns while off */
	for (i = 1; ok && i <= REREGISTRATIONS; i++) {
		char base[64] = "scenario-rereg-";
		int irq;

		append_uint(base, sizeof(base), i);
		ok &= !tfs_write("current_tracer", "function_graph\n");
		ok &= !tfs_write("trace", "");
		tfs_write("tracing_on", "1");
		ok &= !module_run(i == REREGISTRATIONS ? "sleeper_finish" :
							 "sleeper_poke");
		tfs_write("tracing_on", "0");
		irq = capture_trace(base, 0, suite_text, sizeof(suite_text),
				    &suite_trace, -1);
		if (irq == -2) {
			ok = 0;
			break;
		}
		canonicalize(&suite_trace, "fgnt_sleeper_after");
		fg_drop_irq_work(canon);
		if (strncmp(canon, "fgnt_sleeper_after{fgnt_inner{", 30)) {
			printf("# rereg: registration %d after the pruned return: kthread not traced (got %s)\n",
			       i, *canon ? canon : "(nothing)");
			untraced++;
		}
		if (i < REREGISTRATIONS)
			ok &= !tfs_write("current_tracer", "nop\n");
	}
	if (ok && i <= REREGISTRATIONS)
		module_run("sleeper_finish");
	tfs_write("current_tracer", "function_graph\n");
	set_functions("set_ftrace_filter", "");
	printf("# rereg: kthread untraced after %d of %d registration(s)\n",
	       untraced, REREGISTRATIONS);
	suite_result(ok && !untraced, name);
}

/*
 * tracing_thresh: only returns slower than the threshold are recorded. A
 * prune ended by a return too quick to be recorded must end all the same
 * (the 6.12 fix 6ca8379b5d36 "fgraph: Fix thresh_return clear per-task
 * notrace"); and once the threshold is off, the task is traced as before.
 */
static void test_thresh(void)
{
	int ok = 1, slow, root;

	tfs_write("tracing_on", "0");
	/* A threshold re-registers the tracer: let it patch few sites. */
	ok &= !set_functions("set_ftrace_filter", "fgnt_*");
	ok &= !set_functions("set_graph_function", "fgnt_thresh_root");
	ok &= !set_functions("set_graph_notrace", "fgnt_leaf_pruned");
	/* Every return says whose it is: there are no entries to match. */
	ok &= !tfs_write("options/funcgraph-tail", "1");
	/* 1 ms: fgnt_leaf_pruned is far quicker, fgnt_slow spins 2 ticks. */
	ok &= !tfs_write("tracing_thresh", "1000\n");
	ok &= !tfs_write("trace", "");
	tfs_write("tracing_on", "1");
	ok &= !module_run("thresh");
	ok &= !module_run("thresh");
	tfs_write("tracing_on", "0");
	if (ok && read_file(TRACEFS "trace", suite_text, sizeof(suite_text)) >= 0) {
		print_file("scenario-thresh.txt", suite_text);
		slow = count_of(suite_text, "/* fgnt_slow */");
		root = count_of(suite_text, "/* fgnt_thresh_root */");
		printf("# thresh: returns recorded: fgnt_slow %d, fgnt_thresh_root %d (want 2 and 2)\n",
		       slow, root);
		if (contains(suite_text, "fgnt_leaf_pruned"))
			printf("# thresh: the pruned function is in the trace\n");
		ok = slow == 2 && root == 2 &&
		     !contains(suite_text, "fgnt_leaf_pruned");
	} else {
		ok = 0;
	}
	ok &= !tfs_write("tracing_thresh", "0\n");
	ok &= !tfs_write("options/funcgraph-tail", "0");
	ok &= !set_functions("set_ftrace_filter", "");
	ok &= run_shape("thresh-after", "fgnt_leaf_root", "fgnt_leaf_pruned",
			"leaf", "fgnt_leaf_root{fgnt_before;fgnt_after;}");
	suite_result(ok, "notrace_with_tracing_thresh");
}

/* Hits of @func in the function profiler's per-CPU tables. */
static int profile_hits(const char *func)
{
	static char stat[16384];
	char path[64];
	size_t n = strlen(func);
	int cpu, hits = 0;

	for (cpu = 0; cpu < 8; cpu++) {
		const char *p;

		strlcpy(path, TRACEFS "trace_stat/function", sizeof(path));
		append_uint(path, sizeof(path), cpu);
		if (read_file(path, stat, sizeof(stat)) < 0)
			continue;
		for (p = stat; *p; ) {
			const char *q = p;

			while (*q == ' ')
				q++;
			if (!strncmp(q, func, n) && q[n] == ' ') {
				int v = 0;

				for (q += n; *q == ' '; q++)
					;
				for (; *q >= '0' && *q <= '9'; q++)
					v = v * 10 + (*q - '0');
				hits += v;
			}
			while (*p && *p != '\n')
				p++;
			if (*p)
				p++;
		}
	}
	return hits;
}

/*
 * Two fgraph users at once (since 6.8): the function profiler next to
 * function_graph, both limited to the module's functions. Pruning in
 * function_graph must neither hide calls from the profiler nor end early;
 * and a set_graph_function root entered below four profiled callers (its
 * depth counts every user's frames, and is kept in two bits) must still
 * end its subtree when it returns. 6.1 allows one fgraph user at a time.
 */
static void test_two_users(void)
{
	static const char *const pruned_name =
		"second_fgraph_user_with_notrace";
	static const char *const deep_name =
		"root_entered_deep_with_second_user";
	int err, ok, leaf_hits, pruned_hits;

	tfs_write("tracing_on", "0");
	if (set_functions("set_ftrace_filter", "fgnt_*")) {
		suite_result(0, pruned_name);
		suite_result(0, deep_name);
		return;
	}
	err = tfs_try_write("function_profile_enabled", "1\n", 2, 0);
	if (err == -EBUSY) {
		printf("# two-users: function_profile_enabled: EBUSY next to function_graph: one fgraph user at a time on this kernel\n");
		ktap_result(1, pruned_name, "SKIP one fgraph user at a time on this kernel");
		ktap_result(1, deep_name, "SKIP one fgraph user at a time on this kernel");
		set_functions("set_ftrace_filter", "");
		return;
	}
	if (err) {
		printf("# two-users: function_profile_enabled: error %d\n", err);
		suite_result(0, pruned_name);
		suite_result(0, deep_name);
		set_functions("set_ftrace_filter", "");
		return;
	}
	/* The trace's depths count the profiler's frames below the root. */
	suite_trace.rebase = 1;
	ok = run_shape("two-users-middle", "fgnt_middle_root",
		       "fgnt_middle_pruned", "middle",
		       "fgnt_middle_root{fgnt_before;fgnt_after;}");
	leaf_hits = profile_hits("fgnt_inner_leaf");
	pruned_hits = profile_hits("fgnt_middle_pruned");
	printf("# two-users: the profiler counted fgnt_middle_pruned %d, fgnt_inner_leaf %d time(s)\n",
	       pruned_hits, leaf_hits);
	suite_result(ok && leaf_hits > 0 && pruned_hits > 0, pruned_name);
	ok = run_shape("two-users-chain", "fgnt_chain_root", "", "chain",
		       "fgnt_chain_root{fgnt_inner{fgnt_inner_leaf;}}") &&
	     !*strays;
	suite_result(ok, deep_name);
	suite_trace.rebase = 0;
	tfs_write("function_profile_enabled", "0\n");
	set_functions("set_ftrace_filter", "");
	/* A stuck set_graph_function state must not spill into what follows. */
	tfs_write("current_tracer", "nop\n");
	tfs_write("current_tracer", "function_graph\n");
}

/*
 * The depth-0 call seen right after tracing is switched on: a
 * set_graph_function root that runs while tracing is off must not leave
 * the next call of the task traced.
 */
static void test_stray_after_enable(void)
{
	int ok = 1;

	tfs_write("tracing_on", "0");
	ok &= !set_functions("set_graph_function", "fgnt_leaf_root");
	ok &= !set_functions("set_graph_notrace", "");
	ok &= !tfs_write("trace", "");
	ok &= !module_run("leaf");	/* the root runs with tracing off */
	tfs_write("tracing_on", "1");
	tfs_write("tracing_on", "0");
	if (ok && capture_trace("scenario-stray-after-enable", 0, suite_text,
				sizeof(suite_text), &suite_trace, -1) != -2) {
		canonicalize(&suite_trace, "fgnt_leaf_root");
		/* Nothing ran the root while tracing was on: nothing at all. */
		ok = shape_is("stray-after-enable", "") && !*strays;
	} else {
		ok = 0;
	}
	suite_result(ok, "no_stray_call_after_enabling");
}

/* set_graph_notrace must read back as exactly the words of @want. */
static int notrace_reads(const char *want)
{
	static char text[4096];
	char *line, *nl;
	int n = 0, wanted = 0, ok = 1;
	const char *w;

	if (read_file(TRACEFS "set_graph_notrace", text, sizeof(text)) < 0)
		return 0;
	for (line = text; *line; line = nl + 1) {
		nl = strchr(line, '\n');
		if (!nl)
			break;
		*nl = '\0';
		if (*line == '#' || !*line)	/* "#### no functions disabled" */
			continue;
		n++;
		if (!in_list(want, line)) {
			printf("# set_graph_notrace holds unexpected %s\n", line);
			ok = 0;
		}
	}
	for (w = want; *w; w++)
		if (*w != ' ' && (w == want || w[-1] == ' '))
			wanted++;
	if (n != wanted) {
		printf("# set_graph_notrace holds %d function(s), want %d (%s)\n",
		       n, wanted, want);
		ok = 0;
	}
	return ok;
}

/* One bad-input step: the write's result, then the list read back. */
static void bad_input(const char *name, const char *val, size_t len,
		      int append, int want_err, const char *want_list)
{
	int err = tfs_try_write("set_graph_notrace", val, len, append);
	int ok = err == want_err;

	if (!ok)
		printf("# %s: write returned %d, want %d\n", name, err,
		       want_err);
	ok &= notrace_reads(want_list);
	ktap_result(ok, name, 0);
}

static void test_bad_input(void)
{
	static const char pool[] = "x#!*?{}-.09";
	static char junk[4096];
	size_t i, j = 0;

	tfs_try_write("set_graph_notrace", "fgnt_leaf_pruned\n", 17, 0);
	bad_input("filter_unknown_symbol_append_keeps_list",
		  "nmx_no_such_function\n", 21, 1, -EINVAL, "fgnt_leaf_pruned");
	bad_input("filter_unknown_symbol_truncates_list",
		  "nmx_no_such_function\n", 21, 0, -EINVAL, "");
	bad_input("filter_glob_with_matches", "fgnt_inner*\n", 12, 0, 0,
		  "fgnt_inner fgnt_inner_leaf");
	bad_input("filter_glob_without_match", "nmx_nomatch_*\n", 14, 1,
		  -EINVAL, "fgnt_inner fgnt_inner_leaf");
	bad_input("filter_remove_name", "!fgnt_inner_leaf\n", 17, 1, 0,
		  "fgnt_inner");
	bad_input("filter_remove_absent", "!fgnt_leaf_pruned\n", 18, 1,
		  -EINVAL, "fgnt_inner");
	/* No "%": BE8 has no libgcc to divide with. */
	for (i = 0; i < sizeof(junk); i++, j = pool[j + 1] ? j + 1 : 0)
		junk[i] = pool[j];
	bad_input("filter_4k_junk", junk, sizeof(junk), 1, -EINVAL,
		  "fgnt_inner");
	bad_input("filter_empty_write_clears", "", 0, 0, 0, "");
}

static void test_sleeper_toggled(void)
{
	test_sleeper(0, "tracer_toggled_while_sleeping_in_pruned");
}

static void test_sleeper_returns_while_off(void)
{
	test_sleeper(1, "tracer_off_while_pruned_returns");
}

/* Before the scenarios: the test module, and every task traced. */
static void suite_setup(void)
{
	int fd;

	mkdir("/sys/kernel/debug", 0755);
	mount("debugfs", "/sys/kernel/debug", "debugfs", 0, 0);
	fd = open(MODULE_DIR "run", O_WRONLY);
	module_ready = tracefs_ready && fd >= 0;
	if (fd >= 0)
		close(fd);
	if (!module_ready)
		printf("# %srun missing: kernel without CONFIG_TEST_FGRAPH_NOTRACE?\n",
		       MODULE_DIR);
	/* Scenarios below start kernel threads: trace every task. */
	tfs_write("set_ftrace_pid", "");
}

static void suite_cleanup(void)
{
	set_functions("set_graph_function", "");
	set_functions("set_graph_notrace", "");
}

/* The set_graph_notrace scenarios, in order, with their KTAP results. */

/*
 * set_graph_function rewritten while another CPU runs hooked code: each
 * write publishes a new hash and frees the old one once no lookup can
 * still be walking it. A lookup that walks a freed hash faults or reads
 * junk (7.2 FINDINGS.md, finding 15); the scenario passes when the kernel
 * lives through it, and the judge reads any oops on the console. Every
 * function the reader can reach is hooked, so each call on its CPU is a
 * lookup.
 */
#define HASH_REWRITES 200
/*
 * A write of set_graph_function looks up the name of every ftrace
 * record, and with every function hooked each call of that walk is a
 * trip through the graph tracer: most of what a rewrite costs. The walk's
 * functions are not what the scenario is about (the reader never calls
 * them), so set_ftrace_notrace takes them out while it runs. Only
 * globs: which of these a kernel has varies, and a name it lacks is a
 * failed write.
 */
#define HASH_WRITER_WALK "*kallsyms* *symbol*"
/*
 * Stop rewriting after this long, and say how many were done: a boot's
 * time limit is not the place to learn that a cell is slow.
 */
#define HASH_SECONDS 100

static void test_hash_rewrite(void)
{
	static const char name[] = "graph_hash_rewritten_while_traced";
	unsigned long reader_cpu = 2;	/* CPU 1; PID 1 stays on CPU 0 */
	long start = uptime_seconds();
	int i, ok = 1;
	pid_t pid;

	if (!several_cpus()) {
		ktap_result(1, name, "SKIP one CPU online: no reader beside the writer");
		return;
	}
	tfs_write("tracing_on", "0");
	/* Run alone (nmx_only), it cannot count on the step before it. */
	ok &= !tfs_write("current_tracer", "function_graph\n");
	ok &= !set_functions("set_ftrace_filter", "");
	ok &= !set_functions("set_ftrace_notrace", HASH_WRITER_WALK);
	ok &= !set_functions("set_graph_notrace", "");
	pid = fork();
	if (pid == 0) {
		my_syscall3(__NR_sched_setaffinity, 0, sizeof(reader_cpu),
			    &reader_cpu);
		for (;;)
			getppid();
	}
	if (pid < 0)
		ok = 0;
	for (i = 0; ok && i < HASH_REWRITES; i++) {
		if (i && uptime_seconds() - start >= HASH_SECONDS)
			break;
		ok = !set_functions("set_graph_function",
				    i & 1 ? "fgnt_inner" : "fgnt_after");
	}
	if (pid > 0) {
		int status = 0;

		/* The reader spins until killed: dead already is an oops. */
		if (waitpid(pid, &status, WNOHANG) == pid) {
			printf("# hash: the reader on CPU 1 died (wait status %d) before it was stopped\n",
			       status);
			ok = 0;
		} else {
			kill(pid, 9);
			waitpid(pid, 0, 0);
		}
	}
	set_functions("set_graph_function", "");
	set_functions("set_ftrace_notrace", "");
	printf("# hash: %d rewrite(s) of set_graph_function with a reader on CPU 1 in %ld s\n",
	       i, uptime_seconds() - start);
	suite_result(ok, name);
}

static const struct guest_step notrace_suite[] = {
	STEP(suite_setup, 0),
	STEP(test_leaf, 1),
	STEP(test_middle, 1),
	STEP(test_nested, 2),
	STEP(test_recursion, 1),
	STEP(test_migrate, 1),
	STEP(test_irq, 1),
	STEP(test_irqs_hidden, 1),
	STEP(test_depth_limit, 1),
	STEP(test_max_depth, 1),
	STEP(test_notrace_wins, 1),
	STEP(test_stacks, 2),
	STEP(test_fork, 1),
	STEP(test_frameless, 1),
	STEP(test_sleeper_toggled, 1),
	STEP(test_sleeper_returns_while_off, 1),
	STEP(test_stray_after_enable, 1),
	STEP(test_reregistered, 1),
	STEP(test_thresh, 1),
	STEP(test_two_users, 2),
	STEP(test_bad_input, 8),
	STEP(test_hash_rewrite, 1),
	STEP(suite_cleanup, 0),
	END_OF_STEPS
};

#endif /* NMX_NOTRACE_SUITE_H */
