/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Structural parser for the function_graph tracer's text output.
 *
 * Shared by the guest's PID 1 (built against nolibc) and the host tools
 * (built against glibc), so it uses nothing but a few string functions and
 * caller-provided storage: no allocation, no stdio. The includer provides
 * strcmp(), strlen() and memmove() (nolibc.h or <string.h>).
 *
 * A trace line of interest looks like
 *
 *	 0)   0.800 us    |      down_read_trylock();
 *	 0)               |    handle_mm_fault() {
 *	 0) + 12.345 us   |    }
 *
 * Everything after the first '|' is two spaces, then two spaces per call
 * depth, then "name() {", "name();" or "}" (optionally followed by a
 * tail comment naming the function). Lines without '|' (headers, CPU and task
 * switch banners) and lines with nothing after it (irq arrows) carry no
 * call structure and are skipped.
 */
#ifndef NMX_FGRAPH_H
#define NMX_FGRAPH_H

enum fg_kind {
	FG_ENTRY,	/* "name() {" */
	FG_LEAF,	/* "name();"  */
	FG_EXIT,	/* "}"        */
};

struct fg_event {
	int cpu;
	int depth;
	int line;		/* 1-based line number in the trace text */
	enum fg_kind kind;
	const char *name;	/* NUL-terminated, inside the parsed buffer */
	int parent;		/* index of the enclosing FG_ENTRY, or -1 */
	int end;		/* FG_ENTRY: index of its FG_EXIT, or -1 */
	int hidden_frame;	/* a call in an interrupt's hidden frame */
};

#define FG_MAX_DEPTH 256

struct fg_trace {
	struct fg_event *ev;
	int nr;
	int max;
	int truncated;		/* more events than storage */
	/* First structural inconsistency found, or 0 when braces balance. */
	int bad_line;
	const char *bad_why;
	/*
	 * Set by the caller: depths count from the first event's. Since
	 * 6.8 the printed depth counts every fgraph user's frames, so a
	 * root called below functions another user hooked starts deep.
	 */
	int rebase;
};

static inline int fg_is_space(char c)
{
	return c == ' ' || c == '\t';
}

static inline int fg_is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '$';
}

/* Leading "  12) " CPU column; returns -1 when absent. */
static inline int fg_parse_cpu(const char *s)
{
	int cpu = 0, digits = 0;

	while (fg_is_space(*s))
		s++;
	while (*s >= '0' && *s <= '9') {
		/* Not a CPU column: and cpu * 10 would overflow (fuzzing). */
		if (++digits > 5)
			return -1;
		cpu = cpu * 10 + (*s - '0');
		s++;
	}
	return digits && *s == ')' ? cpu : -1;
}

static inline void fg_mark_bad(struct fg_trace *t, int line, const char *why)
{
	if (!t->bad_line) {
		t->bad_line = line;
		t->bad_why = why;
	}
}

/*
 * Interrupt work: what an interrupt that lands in a traced window adds to
 * it, part of nothing under test. With funcgraph-irqs off, hardirq
 * context is hidden, but its entry leaves irq_enter_rcu() (irq_enter() on
 * older paths) where the interrupt landed, and what runs on its way out
 * once the hardirq count has dropped (softirqs and invoke_softirq()'s
 * ksoftirqd_running() check; with the generic entry code the preemption
 * check) is traced in full, rooted at one of these.
 */
static inline int fg_is_irq_work(const char *name)
{
	static const char *const roots[] = {
		"irq_enter", "irq_enter_rcu", "irq_exit", "irq_exit_rcu",
		"__irq_exit_rcu", "do_softirq", "do_softirq_own_stack",
		"____do_softirq", "__do_softirq",
		"handle_softirqs", "invoke_softirq", "ksoftirqd_running",
		"irqentry_exit_cond_resched", "raw_irqentry_exit_cond_resched",
		"preempt_schedule_irq", 0
	};
	const char *const *r;

	for (r = roots; *r; r++)
		if (!strcmp(name, *r))
			return 1;
	return 0;
}

/* Is event @e interrupt work: named so, or in an interrupt's hidden frame? */
static inline int fg_is_irq_event(const struct fg_event *e)
{
	return e->hidden_frame || (e->name && fg_is_irq_work(e->name));
}

/* The generic entry code's preemption check on an exception's way out. */
static inline int fg_is_preempt_check(const char *name)
{
	return !strcmp(name, "irqentry_exit_cond_resched") ||
	       !strcmp(name, "raw_irqentry_exit_cond_resched");
}

/*
 * Parse @text (modified in place: names are NUL-terminated) into @t.
 * Only events on @cpu are kept, or all when @cpu < 0; the structure
 * (parent/end links, balance check) is computed per kept CPU stream, so
 * pass a single CPU when the traced task was pinned.
 */
static inline void fg_parse(struct fg_trace *t, char *text, int cpu)
{
	int stack[FG_MAX_DEPTH];
	int sp = 0, line = 0, base = -1, late = 0, late_sp = 0, preempt = 0;
	char *p = text;

	t->nr = 0;
	t->truncated = 0;
	t->bad_line = 0;
	t->bad_why = 0;

	while (*p) {
		char *eol = p, *bar, *q, *name;
		int spaces = 0, this_cpu, depth;
		struct fg_event *e;
		enum fg_kind kind;

		while (*eol && *eol != '\n')
			eol++;
		line++;
		if (*eol)
			*eol++ = '\0';

		bar = p;
		while (*bar && *bar != '|')
			bar++;
		if (*p == '#' || !*bar)
			goto next;
		this_cpu = fg_parse_cpu(p);
		if (this_cpu < 0 || (cpu >= 0 && this_cpu != cpu))
			goto next;
		q = bar + 1;
		while (*q == ' ') {
			spaces++;
			q++;
		}
		if (!*q || *q == '=' || *q == '<' || *q == '/')
			goto next;	/* irq arrow or comment: no structure */
		depth = (spaces - 2) / 2;
		if (spaces < 2 || (spaces & 1)) {
			fg_mark_bad(t, line, "indentation is not a whole depth");
			goto next;
		}
		if (t->rebase) {
			if (base < 0)
				base = depth;
			depth -= base;
			if (depth < 0) {
				fg_mark_bad(t, line, "shallower than the first call");
				goto next;
			}
		}
		if (*q == '}') {
			kind = FG_EXIT;
			name = 0;
		} else if (fg_is_ident(*q)) {
			name = q;
			while (fg_is_ident(*q))
				q++;
			if (q[0] != '(' || q[1] != ')') {
				fg_mark_bad(t, line, "unrecognised call syntax");
				goto next;
			}
			*q = '\0';
			q += 2;
			while (fg_is_space(*q))
				q++;
			kind = *q == '{' ? FG_ENTRY : FG_LEAF;
		} else {
			fg_mark_bad(t, line, "unrecognised line");
			goto next;
		}

		if (t->nr >= t->max) {
			t->truncated = 1;
			goto next;
		}
		e = &t->ev[t->nr];
		e->cpu = this_cpu;
		e->depth = depth;
		e->line = line;
		e->kind = kind;
		e->name = name;
		e->end = -1;
		e->parent = -1;
		e->hidden_frame = 0;

		/*
		 * The indentation must agree with the brace structure: an
		 * entry or leaf sits at the depth of the open braces, a
		 * closing brace one level below its entry. fgraph counts a
		 * call's depth before its entry is recorded and uncounts it
		 * after its return is: an interrupt in either window (or in
		 * an entry that no tracer takes) leaves its work one level
		 * deeper than the open braces, as if in a hidden frame that
		 * ends with the next event at their depth or above. Only
		 * interrupt work may sit in that frame, and after the
		 * preemption check on its way out the scheduler: with the
		 * generic entry code __schedule() (notrace) is reached from
		 * that frame, its callees at the frame's own depth.
		 */
		if (kind == FG_EXIT) {
			if (sp == late_sp)
				late = 0;
			if (sp == 0) {
				fg_mark_bad(t, line, "closing brace without entry");
			} else {
				struct fg_event *open = &t->ev[stack[sp - 1]];

				if (open->depth != depth)
					fg_mark_bad(t, line,
						    "closing brace at wrong depth");
				open->end = t->nr;
				e->name = open->name;
				e->parent = open->parent;
				sp--;
			}
		} else {
			if (late && sp == late_sp && depth == sp) {
				late = 0;
			} else if (!late && depth == sp + 1 &&
				   fg_is_irq_work(name)) {
				late = 1;
				late_sp = sp;
				preempt = 0;
			}
			if (depth != sp + late)
				fg_mark_bad(t, line,
					    "call depth disagrees with open braces");
			else if (late && sp == late_sp && !preempt &&
				 !fg_is_irq_work(name))
				fg_mark_bad(t, line,
					    "not interrupt work, yet one level deeper than the open braces");
			if (late && sp == late_sp) {
				e->hidden_frame = 1;
				if (fg_is_preempt_check(name))
					preempt = 1;
			}
			e->parent = sp ? stack[sp - 1] : -1;
			if (kind == FG_ENTRY) {
				if (sp < FG_MAX_DEPTH)
					stack[sp++] = t->nr;
				else
					fg_mark_bad(t, line, "nesting too deep");
			}
		}
		t->nr++;
next:
		p = eol;
	}
	if (sp)
		fg_mark_bad(t, t->ev[stack[sp - 1]].line,
			    "entry never closed (braces unbalanced)");
}

static inline int fg_is_call(const struct fg_event *e)
{
	return e->kind == FG_ENTRY || e->kind == FG_LEAF;
}

/*
 * Is event @i an entry whose closing brace is the next event: a call
 * with no traced callee, printed "name() {" then "}"? The kernel merges
 * such a call into one leaf line only when its return is the next event
 * in the ring buffer; an event recorded between them but hidden from the
 * output (with funcgraph-irqs off, a tick's work from the irqentry text
 * on) splits it. It is the leaf it looks like.
 */
static inline int fg_is_split_leaf(const struct fg_trace *t, int i)
{
	return t->ev[i].kind == FG_ENTRY && t->ev[i].end == i + 1;
}

/* Is event @i inside (a descendant of) a call named @name? */
static inline int fg_has_ancestor(const struct fg_trace *t, int i,
				  const char *name)
{
	int p = t->ev[i].parent;

	while (p >= 0) {
		if (!strcmp(t->ev[p].name, name))
			return 1;
		p = t->ev[p].parent;
	}
	return 0;
}

/* Number of calls (entries and leaves) named @name. */
static inline int fg_count_calls(const struct fg_trace *t, const char *name)
{
	int i, n = 0;

	for (i = 0; i < t->nr; i++)
		if (fg_is_call(&t->ev[i]) && !strcmp(t->ev[i].name, name))
			n++;
	return n;
}

/*
 * Does @name appear only beneath calls to @under in @t (and at least once)?
 * Used to find the functions that a notrace filter on @under must hide.
 */
static inline int fg_only_beneath(const struct fg_trace *t, const char *name,
				  const char *under)
{
	int i, seen = 0;

	for (i = 0; i < t->nr; i++) {
		if (!fg_is_call(&t->ev[i]) ||
		    strcmp(t->ev[i].name, name))
			continue;
		if (!fg_has_ancestor(t, i, under))
			return 0;
		seen = 1;
	}
	return seen;
}

/*
 * The first call after a call to @name returns, with the same parent:
 * the "later sibling" whose presence shows that tracing resumed once the
 * pruned function returned. Interrupt work is none: an interrupt taken
 * right after the return may leave its irq_enter_rcu() there (riscv64).
 * Returns its index or -1.
 */
static inline int fg_later_sibling(const struct fg_trace *t, const char *name)
{
	int i, j;

	for (i = 0; i < t->nr; i++) {
		const struct fg_event *e = &t->ev[i];
		int after;

		if (!fg_is_call(e) || strcmp(e->name, name) ||
		    e->parent < 0)
			continue;
		after = e->kind == FG_ENTRY ? e->end : i;
		if (after < 0)
			continue;
		for (j = after + 1; j < t->nr; j++) {
			if (t->ev[j].depth < e->depth)
				break;
			if (fg_is_call(&t->ev[j]) && t->ev[j].parent == e->parent &&
			    !fg_is_irq_event(&t->ev[j]))
				return j;
		}
	}
	return -1;
}

/*
 * Whether @name says an interrupt (or a preemption) landed in the window.
 * The generic entry code's preemption check is interrupt work too, but
 * every exception runs it on its way out, a page fault as well: in a
 * window of faults it is always there, and says nothing about whether
 * anything arrived.
 */
static inline int fg_is_irq_arrival(const char *name)
{
	return fg_is_irq_work(name) && !fg_is_preempt_check(name);
}

/* Index of the first call that shows an interrupt arrived, or -1. */
static inline int fg_first_irq_entry(const struct fg_trace *t)
{
	int i;

	for (i = 0; i < t->nr; i++)
		if (fg_is_call(&t->ev[i]) && fg_is_irq_arrival(t->ev[i].name))
			return i;
	return -1;
}

/*
 * Drop interrupt work from @canon, a canonical call tree ("name;" a leaf,
 * "name{...}" a call with its callees), in place: every leaf or subtree
 * fg_is_irq_work() names. Returns how many were dropped.
 */
static inline int fg_drop_irq_work(char *canon)
{
	int dropped = 0;
	char *p = canon;

	while (*p) {
		char *end = p;
		char delim;
		int irq_work;

		while (*end && *end != '{' && *end != ';' && *end != '}')
			end++;
		delim = *end;
		if (end == p || !delim || delim == '}') {
			p = delim ? end + 1 : end;
			continue;
		}
		*end = '\0';
		irq_work = fg_is_irq_work(p);
		*end = delim;
		if (!irq_work) {
			p = end + 1;
			continue;
		}
		if (delim == '{') {
			int open = 1;

			for (end++; *end && open; end++)
				open += *end == '{' ? 1 : *end == '}' ? -1 : 0;
		} else {
			end++;
		}
		memmove(p, end, strlen(end) + 1);
		dropped++;
	}
	return dropped;
}

#endif /* NMX_FGRAPH_H */
