// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of guest/fgraph.h on the host, against recorded function_graph
 * traces in this directory. Prints TAP; exit 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fgraph.h"

#define MAX_EVENTS 4096

static struct fg_event events[MAX_EVENTS];
static int nr_test, nr_failed;
static int rebase;	/* the next load()'s fg_trace.rebase */

static void check(int ok, const char *what)
{
	nr_test++;
	if (!ok)
		nr_failed++;
	printf("%s %d %s\n", ok ? "ok" : "not ok", nr_test, what);
}

/* Parse tests/fgraph/@name; the text lives until the next load. */
static struct fg_trace load(const char *dir, const char *name, int cpu)
{
	static char *text;
	struct fg_trace t = { .ev = events, .max = MAX_EVENTS,
			      .rebase = rebase };
	char path[4096];
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "rb");
	if (!f) {
		perror(path);
		exit(2);
	}
	free(text);
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	rewind(f);
	text = calloc(1, len + 1);
	if (!text || fread(text, 1, len, f) != (size_t)len)
		exit(2);
	fclose(f);
	fg_parse(&t, text, cpu);
	return t;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	struct fg_trace t;
	int sib;

	t = load(dir, "arm64-unpruned.txt", 0);
	check(!t.bad_line && !t.truncated, "arm64 unpruned trace balances");
	check(fg_count_calls(&t, "handle_mm_fault") == 8,
	      "arm64 unpruned: eight handle_mm_fault calls");
	check(fg_count_calls(&t, "do_page_fault") == 8,
	      "arm64 unpruned: eight do_page_fault calls");
	check(fg_only_beneath(&t, "__handle_mm_fault", "handle_mm_fault"),
	      "arm64 unpruned: __handle_mm_fault only beneath handle_mm_fault");
	check(!fg_only_beneath(&t, "up_read", "handle_mm_fault"),
	      "arm64 unpruned: up_read also outside handle_mm_fault");
	sib = fg_later_sibling(&t, "handle_mm_fault");
	check(sib >= 0 && !strcmp(t.ev[sib].name, "up_read") &&
	      t.ev[sib].depth == 1 &&
	      !strcmp(t.ev[t.ev[sib].parent].name, "do_page_fault"),
	      "arm64 unpruned: later sibling is up_read at depth 1 in do_page_fault");

	t = load(dir, "arm64-pruned.txt", 0);
	check(!t.bad_line, "arm64 pruned trace balances");
	check(fg_count_calls(&t, "handle_mm_fault") == 0,
	      "arm64 pruned: no handle_mm_fault");
	check(fg_count_calls(&t, "up_read") == 8, "arm64 pruned: up_read kept");
	check(t.ev[0].depth == 0 && !strcmp(t.ev[0].name, "mutex_unlock") &&
	      t.ev[0].kind == FG_LEAF,
	      "arm64 pruned: the stray depth-0 mutex_unlock() is seen as a leaf");

	t = load(dir, "unclosed-entry.txt", 0);
	check(t.bad_line && !strcmp(t.bad_why,
				    "entry never closed (braces unbalanced)"),
	      "an entry without its closing brace is caught");

	t = load(dir, "brace-wrong-depth.txt", 0);
	check(t.bad_line == 10 &&
	      !strcmp(t.bad_why, "closing brace at wrong depth"),
	      "a closing brace at the wrong depth is caught, with its line");

	/*
	 * Recorded on arm64: a timer interrupt inside get_page_from_freelist()
	 * shows its work one level too shallow (irq_enter_rcu() at the open
	 * function's own depth). The parser must call that out, not hide it.
	 */
	t = load(dir, "arm64-irq-depth-skew.txt", 0);
	check(t.bad_line == 28 &&
	      !strcmp(t.bad_why, "call depth disagrees with open braces"),
	      "arm64 interrupt inside the window: depth skew caught at line 28");

	/*
	 * 7.2 x86_64 (seed): a timer interrupt inside the entry of
	 * mod_node_page_state(), after its frame was pushed: the interrupt's
	 * leaves one level too deep, the interrupted call right after them.
	 */
	t = load(dir, "x86_64-irq-before-entry-7.2.txt", 0);
	check(!t.bad_line && t.ev[0].end == t.nr - 1,
	      "x86_64 7.2: interrupt work before its interrupted call's entry balances");
	sib = fg_first_irq_entry(&t);
	check(sib >= 0 && t.ev[sib].line == 469 &&
	      !strcmp(t.ev[sib].name, "irq_enter_rcu"),
	      "x86_64 7.2: the interrupt found by its entry, not by the exit check every fault runs (line 50)");
	check(fg_is_irq_work(t.ev[sib + 1].name) &&
	      !fg_is_irq_arrival(t.ev[sib + 1].name),
	      "x86_64 7.2: the preemption check is interrupt work, but no arrival");
	/*
	 * 7.2 ppc64le (upstream): the same window, but the interrupt ran
	 * softirqs: whole subtrees one level deeper, then the interrupted
	 * get_task_policy() at the depth of the open braces.
	 */
	t = load(dir, "ppc64le-irq-before-entry-7.2.txt", 0);
	check(!t.bad_line && !t.truncated,
	      "ppc64le 7.2: softirq subtrees before the interrupted call's entry balance");
	for (sib = 0; sib < t.nr && t.ev[sib].line != 255; sib++)
		;
	check(sib < t.nr && !strcmp(t.ev[sib].name, "irq_enter_rcu") &&
	      !strcmp(t.ev[t.ev[sib].parent].name, "get_vma_policy"),
	      "ppc64le 7.2: the interrupt work hangs below the open get_vma_policy()");
	for (sib = 0; sib < t.nr && t.ev[sib].line != 296; sib++)
		;
	check(sib < t.nr && !strcmp(t.ev[sib].name, "get_task_policy") &&
	      !strcmp(t.ev[t.ev[sib].parent].name, "get_vma_policy"),
	      "ppc64le 7.2: the interrupted call follows at the open depth");

	/*
	 * 7.2 ppc64le (seed): an interrupt after _raw_spin_unlock()'s return
	 * was recorded, before fgraph uncounted its depth: the work one
	 * level deeper, then the enclosing call's closing brace.
	 */
	t = load(dir, "ppc64le-irq-after-return-7.2.txt", 0);
	check(!t.bad_line && !t.truncated,
	      "ppc64le 7.2: interrupt work after a return, before a closing brace, balances");

	/* Only interrupt work may sit one level deeper than the open braces. */
	t = load(dir, "irq-frame-non-irq-call.txt", 0);
	check(t.bad_line == 8 &&
	      !strcmp(t.bad_why,
		      "not interrupt work, yet one level deeper than the open braces"),
	      "a call that is not interrupt work in the deeper frame is caught");
	/*
	 * 7.2 ppc64le (run 20261207T092408Z): a tick after handle_mm_fault()
	 * returned, then the preemption check, then the scheduler (reached
	 * through notrace __schedule()) in the interrupt's hidden frame.
	 */
	t = load(dir, "ppc64le-preempted-after-irq-7.2.txt", 0);
	for (sib = 0; sib < t.nr && t.ev[sib].line != 453; sib++)
		;
	check(!t.bad_line && sib < t.nr &&
	      !strcmp(t.ev[sib].name, "rcu_note_context_switch") &&
	      t.ev[sib].hidden_frame && t.ev[t.ev[sib].end + 1].hidden_frame,
	      "ppc64le 7.2: the scheduler after the preemption check sits in the hidden frame");
	check(!strcmp(t.ev[sib - 2].name, "irq_enter_rcu") &&
	      t.ev[sib - 2].hidden_frame &&
	      !strcmp(t.ev[sib - 5].name, "_raw_spin_unlock") &&
	      !t.ev[sib - 5].hidden_frame,
	      "ppc64le 7.2: the hidden frame begins with the interrupt's entry");

	/*
	 * 7.2 riscv64 (run 20261207T125331Z, pruned_tracing_resumes_at_sibling
	 * failed): a tick right after the first handle_mm_fault() returned,
	 * its irq_enter_rcu() and softirqs at handle_mm_fault()'s depth;
	 * handle_page_fault() calls nothing traced after it.
	 */
	t = load(dir, "riscv64-irq-after-hmf-7.2.txt", 0);
	for (sib = 0; sib < t.nr && strcmp(t.ev[sib].name, "irq_enter_rcu"); sib++)
		;
	check(!t.bad_line && sib < t.nr && t.ev[sib].depth == 1 &&
	      fg_later_sibling(&t, "handle_mm_fault") == -1,
	      "riscv64 7.2: an interrupt right after handle_mm_fault() returned is no later sibling");

	t = load(dir, "two-cpus.txt", 0);
	check(!t.bad_line && t.nr == 6,
	      "two CPUs: CPU 0 alone balances; banners, comments, arrows skipped");
	sib = fg_later_sibling(&t, "handle_mm_fault");
	check(sib >= 0 && !strcmp(t.ev[sib].name, "up_read"),
	      "two CPUs: CPU 0's later sibling found across a comment");
	t = load(dir, "two-cpus.txt", 1);
	check(!t.bad_line && t.nr == 3 &&
	      fg_count_calls(&t, "read_zero") == 1,
	      "two CPUs: CPU 1 alone balances");
	t = load(dir, "two-cpus.txt", -1);
	check(t.bad_line != 0,
	      "two CPUs mixed into one stream do not balance");

	/* Found by scripts/fuzz.sh: a long digit run overflowed the CPU. */
	t = load(dir, "cpu-column-overflow.txt", 0);
	check(!t.bad_line && t.nr == 1 && !strcmp(t.ev[0].name, "fgnt_root"),
	      "a 10-digit CPU column is no CPU column (and no overflow)");
	/*
	 * 6.12 with the function profiler as a second fgraph user: the
	 * depths count the profiler's frames below the root, five here.
	 */
	t = load(dir, "two-users-deep-root-6.12-arm64.txt", 0);
	check(t.bad_line == 5 &&
	      !strcmp(t.bad_why, "call depth disagrees with open braces"),
	      "a root printed five levels deep does not balance as it is");
	rebase = 1;
	t = load(dir, "two-users-deep-root-6.12-arm64.txt", 0);
	rebase = 0;
	check(!t.bad_line && t.nr == 5 && t.ev[0].depth == 0 &&
	      t.ev[2].depth == 2 && t.ev[0].end == 4,
	      "rebased on its first call, it balances from depth 0");

	/*
	 * 7.2 on 32-bit ARM (arm-biglittle): an interrupt's irq_enter()
	 * leaf one level too deep, then the softirqs run on its way out.
	 */
	t = load(dir, "arm-softirq-after-irq-7.2.txt", 1);
	sib = fg_first_irq_entry(&t);
	check(sib == 1 && !strcmp(t.ev[sib].name, "irq_enter") &&
	      t.ev[2].kind == FG_ENTRY && fg_is_irq_work(t.ev[2].name),
	      "arm 7.2: irq_enter() and the softirq subtree are interrupt work");
	{
		char canon[] = "r{irq_enter_rcu;a{handle_softirqs{x{y;}z;}b;}"
			       "irq_enter;c;}";

		check(fg_drop_irq_work(canon) == 3 &&
		      !strcmp(canon, "r{a{b;}c;}"),
		      "interrupt work dropped from a canonical tree, subtrees whole");
	}
	{
		/* 7.2 arm64 (generic entry): the preemption check on exit. */
		char canon[] = "fgnt_sleeper_after{irq_enter_rcu;"
			       "raw_irqentry_exit_cond_resched;"
			       "fgnt_inner{fgnt_inner_leaf;}}";

		check(fg_drop_irq_work(canon) == 2 &&
		      !strcmp(canon, "fgnt_sleeper_after{fgnt_inner{fgnt_inner_leaf;}}"),
		      "the generic entry's preemption check on exit is interrupt work");
	}
	{
		char canon[] = "r{a{";

		check(fg_drop_irq_work(canon) == 0 && !strcmp(canon, "r{a{"),
		      "an unclosed canonical tree is left as it is");
	}

	/*
	 * 7.2 mips64el (run 20261206T164803Z, notrace_leaf): fgnt_after()
	 * printed as an entry and a brace, a tick's hidden work between.
	 */
	t = load(dir, "mips64el-split-leaf-7.2.txt", 0);
	check(!t.bad_line && t.nr == 5 && fg_is_split_leaf(&t, 2) &&
	      !fg_is_split_leaf(&t, 0) && !fg_is_split_leaf(&t, 1),
	      "mips64el 7.2: an entry closed by the next event is a split leaf; its root and a leaf are not");

	load(dir, "cpu-column-overflow.txt", 0);	/* frees the last text */
	printf("1..%d\n", nr_test);
	return nr_failed ? 1 : 0;
}
