// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel failure reports the judge recognises on the console, as data.
 *
 * The reference is syzkaller's Linux report table (pkg/report/linux.go,
 * "linuxOopses": the first-level keys it searches for, and the ignores
 * under them), plus the kernel's own messages on the matrix's cells that
 * syzkaller does not need (tracer startup selftests, ftrace_bug(), the
 * ARM fault handlers, user faults of init). Each entry says where it comes
 * from. A match anywhere in a console line counts, as in syzkaller: the
 * kernel's prefixes ("watchdog: ", "rcu: ", a log level, a printk time)
 * vary. In a key, "%d" stands for one or more decimal digits and "%x"
 * for one or more hex digits; every other byte is itself.
 *
 * Besides first lines, the markers every architecture prints inside a
 * report are keys too (the die counter, the stack dump's header, the end
 * of trace line): a report whose first line is in no table (32-bit ARM's
 * unwinder prints its frames with no header line) still fails the cell.
 * A weak entry only frames a report (the lines around it say what
 * happened): the judge quotes the next strong one instead when there is
 * one.
 */
#include <stddef.h>
#include <string.h>

#include "kernel_reports.h"

const struct kernel_report kernel_reports[] = {
	/* syzkaller "Kernel panic"; kernel/panic.c panic() */
	{ "Kernel panic - not syncing", KR_PANIC, "panic", 0 },
	/* syzkaller "PANIC: double fault"; arch/x86/kernel/traps.c */
	{ "PANIC: double fault", KR_PANIC, "x86 double fault", 0 },
	/* syzkaller "rust_kernel: panicked" */
	{ "rust_kernel: panicked", KR_PANIC, "Rust panic", 0 },

	/* init/main.c kernel_init(): /init could not be executed */
	{ "Failed to execute /init", KR_NO_INIT, "init not executed", 0 },
	/* init/main.c kernel_init(): the last resort failed */
	{ "No working init found", KR_NO_INIT, "no init", 0 },
	/* init/do_mounts.c mount_block_root(): no initramfs, no root */
	{ "VFS: Unable to mount root", KR_NO_INIT, "no root file system", 0 },

	/* syzkaller "kernel BUG"; include/asm-generic/bug.h BUG() */
	{ "kernel BUG at", KR_ERROR, "kernel BUG", 0 },
	/* syzkaller "Kernel BUG" (powerpc, s390 spelling) */
	{ "Kernel BUG", KR_ERROR, "kernel BUG", 0 },
	/* syzkaller "BUG kmalloc-"; mm/slub.c slab_bug() */
	{ "BUG kmalloc-", KR_ERROR, "slab corruption", 0 },
	/* kernel/rcu/tree_stall.h: "rcu: INFO: rcu_sched detected stalls",
	 * also without the INFO: of syzkaller's title */
	{ "detected stall", KR_ERROR, "RCU stall", 0 },
	/* kernel/hung_task.c, without the INFO: prefix of older kernels */
	{ " blocked for more than ", KR_ERROR, "hung task", 0 },
	/* kernel/watchdog.c watchdog_timer_fn(): "watchdog: BUG: soft lockup" */
	{ "soft lockup", KR_ERROR, "soft lockup", 0 },
	/* kernel/watchdog_hld.c / watchdog_buddy: "Watchdog detected hard LOCKUP" */
	{ "hard LOCKUP", KR_ERROR, "hard lockup", 0 },
	/* syzkaller "Internal error:"; arch/arm{,64}/kernel/traps.c die() */
	{ "Internal error:", KR_ERROR, "Oops", 0 },
	/* arch/x86/kernel/dumpstack.c __die_header(): "Oops: 0000 [#1]" */
	{ "Oops:", KR_ERROR, "Oops", 0 },
	/* syzkaller "Unable to handle kernel"; arch/arm{,64}/mm/fault.c */
	{ "Unable to handle kernel", KR_ERROR, "kernel fault", 0 },
	/* syzkaller "general protection fault"; arch/x86/kernel/traps.c */
	{ "general protection fault", KR_ERROR, "x86 general protection fault", 0 },
	/* syzkaller "stack segment: "; arch/x86/kernel/traps.c */
	{ "stack segment: ", KR_ERROR, "x86 stack segment fault", 0 },
	/* syzkaller "divide error:" and "divide_error:" (x86 #DE) */
	{ "divide error:", KR_ERROR, "x86 divide error", 0 },
	{ "divide_error:", KR_ERROR, "x86 divide error", 0 },
	/* syzkaller "invalid opcode:" (x86 #UD, also BUG() on x86) */
	{ "invalid opcode:", KR_ERROR, "x86 invalid opcode", 0 },
	/* syzkaller "int3:" (x86 breakpoint in the kernel) */
	{ "int3: ", KR_ERROR, "x86 int3", 0 },
	/* syzkaller "UBSAN:"; lib/ubsan.c ubsan_prologue() */
	{ "UBSAN:", KR_ERROR, "UBSAN", 0 },
	/* syzkaller "Unhandled fault:"; arch/arm/mm/fault.c do_DataAbort() */
	{ "Unhandled fault:", KR_ERROR, "ARM unhandled abort", 0 },
	/* arch/arm/mm/fault.c do_PrefetchAbort() */
	{ "Unhandled prefetch abort:", KR_ERROR, "ARM unhandled abort", 0 },
	/* syzkaller "Alignment trap:"; arch/arm/mm/alignment.c */
	{ "Alignment trap:", KR_ERROR, "ARM alignment trap", 0 },
	/* arch/arm/mm/fault.c __do_kernel_fault(), before its "Unable to handle" */
	{ "8<--- cut here ---", KR_ERROR, "ARM kernel fault", 1 },
	/* arch/arm{,64}/kernel/traps.c bad_mode(): an exception in a bad mode */
	{ "Bad mode in ", KR_ERROR, "bad exception mode", 0 },
	/* arch/arm64/kernel/traps.c arm64_serror_panic() */
	{ "SError Interrupt on CPU", KR_ERROR, "arm64 SError", 0 },
	/* syzkaller "VFS: Busy inodes after unmount", "VFS: Close: file count is 0" */
	{ "VFS: Busy inodes after unmount", KR_ERROR, "VFS", 0 },
	{ "VFS: Close: file count is 0", KR_ERROR, "VFS", 0 },
	/* lib/list_debug.c (without CONFIG_BUG_ON_DATA_CORRUPTION: a pr_err) */
	{ "list_add corruption", KR_ERROR, "list corruption", 0 },
	{ "list_del corruption", KR_ERROR, "list corruption", 0 },
	/* lib/refcount.c refcount_warn_saturate() */
	{ "refcount_t: ", KR_ERROR, "refcount", 0 },
	/* arch/x86/mm/fault.c show_signal_msg(): "init[1]: segfault at 0 ..." */
	{ "]: segfault at ", KR_ERROR, "user segfault", 0 },
	/* x86 and arm64 show_unhandled_signals: "init[1]: unhandled exception" */
	{ "]: unhandled exception", KR_ERROR, "user fault", 0 },
	/* arch/arm/mm/fault.c __do_user_fault() with CONFIG_DEBUG_USER */
	{ ": unhandled page fault (", KR_ERROR, "user fault", 0 },
	/* kernel/signal.c print_fatal_signal() (print-fatal-signals=1) */
	{ "potentially unexpected fatal signal", KR_ERROR, "fatal signal", 0 },
	/* kernel/trace/ftrace.c ftrace_bug() */
	{ "[ ftrace bug ]", KR_ERROR, "ftrace bug", 1 },
	{ "ftrace failed to modify", KR_ERROR, "ftrace bug", 0 },
	{ "ftrace faulted", KR_ERROR, "ftrace bug", 0 },
	/* The die counter every architecture's die()/__die() prints:
	 * arch/arm{,64}/kernel/traps.c "Internal error: %s: %x [#%d]",
	 * arch/x86/kernel/dumpstack.c "Oops: %s: %04lx [#%d]",
	 * arch/riscv/kernel/traps.c "%s [#%d]" (no other header there),
	 * arch/powerpc/kernel/traps.c "Oops: %s, sig: %ld [#%d]",
	 * arch/s390/kernel/dumpstack.c "%s: %04x ilc:%d [#%d] " */
	{ " [#%d]", KR_ERROR, "Oops", 0 },
	/* The stack dump's header, in every report that dumps a stack and
	 * in dump_stack() itself (an OOM report, "nobody cared", a WARN
	 * on a kernel without BUG): lib/dump_stack.c dump_stack_print_info(),
	 * "CPU: %d PID: %d Comm:" up to 6.1, "CPU: %d UID: %u PID: %d Comm:"
	 * from 6.10 */
	{ "CPU: %d PID: %d Comm: ", KR_ERROR, "stack dump", 1 },
	{ "CPU: %d UID: %d PID: %d Comm: ", KR_ERROR, "stack dump", 1 },
	/* kernel/panic.c print_oops_end_marker(), after every Oops and WARN */
	{ "---[ end trace ", KR_ERROR, "end of a kernel report", 1 },
	/* arch/arm/kernel/smp.c, arch/arm64/kernel/smp.c __cpu_up(),
	 * arch/riscv/kernel/smpboot.c: a CPU QEMU was asked for is missing
	 * (the migration scenario then skips: nowhere to migrate to) */
	{ "CPU%d: failed to come online", KR_ERROR, "CPU bring-up failed", 0 },
	/* mm/oom_kill.c dump_header() and out_of_memory() */
	{ " invoked oom-killer: ", KR_ERROR, "out of memory", 0 },
	{ "Out of memory", KR_ERROR, "out of memory", 0 },
	/* mm/page_alloc.c warn_alloc() */
	{ "page allocation failure: order:", KR_ERROR, "allocation failure", 0 },
	/* kernel/irq/spurious.c __report_bad_irq() */
	{ ": nobody cared", KR_ERROR, "spurious interrupt", 0 },
	/* User faults in each cell's architecture's wording (init is the
	 * only process, so any is the guest's): arch/riscv/kernel/traps.c
	 * do_trap() "%s[%d]: unhandled signal %d code 0x%x at 0x...",
	 * arch/powerpc/kernel/traps.c show_signal_msg()
	 * "%s[%d]: %s (%d) at %lx nip %lx lr %lx code %x",
	 * arch/s390/mm/fault.c report_user_fault() "User process fault: ",
	 * arch/x86/kernel/traps.c show_signal() "%s[%d] %s%s ip:%lx sp:%lx
	 * error:%lx" ("trap invalid opcode", "trap divide error", ...) */
	{ "]: unhandled signal ", KR_ERROR, "user fault", 0 },
	{ ") at %x nip %x lr %x code ", KR_ERROR, "user fault", 0 },
	{ "User process fault: ", KR_ERROR, "user fault", 0 },
	{ " ip:%x sp:%x error:%x", KR_ERROR, "user fault", 0 },
	/* Tracer startup selftests that fail without "FAILED!":
	 * kernel/trace/trace_events_filter.c ftrace_test_event_filter(),
	 * kernel/trace/ftrace.c ftrace_init() ("ftrace: FAILED to allocate
	 * memory for functions"), trace_selftest.c init_trace_selftest()
	 * and the store_bytes fgraph fixtures */
	{ "Failed to match filter '", KR_ERROR, "tracer startup selftest failed", 0 },
	{ "Failed to get filter for '", KR_ERROR, "tracer startup selftest failed", 0 },
	{ "FAILED to allocate", KR_ERROR, "ftrace setup failed", 0 },
	{ "Failed to init store_bytes fgraph tracing", KR_ERROR,
	  "tracer startup selftest failed", 0 },
	/* kernel/trace/trace.c run_tracer_selftest() and trace_selftest.c:
	 * "Testing tracer function_graph: FAILED!", the series' own
	 * "Testing set_graph_notrace: FAILED!"; KERN_CONT may split it from
	 * its "Testing" line */
	{ "FAILED!", KR_ERROR, "tracer startup selftest failed", 0 },
	/* syzkaller "BUG:" (KASAN, KCSAN, KFENCE, KMSAN, soft lockup,
	 * spinlock, sleeping function, scheduling while atomic, workqueue
	 * lockup, bad page state, paging request, NULL dereference, ...);
	 * lib/list_debug.c and lib/refcount.c report through it too */
	{ "BUG:", KR_ERROR, "BUG", 0 },
	/* syzkaller "WARNING:" (WARN_ON, lockdep, suspicious RCU usage,
	 * refcount_t, bad unwind); kernel/panic.c __warn() */
	{ "WARNING:", KR_ERROR, "WARNING", 0 },
	/* include/asm-generic/bug.h: printed before every WARN and BUG */
	{ "------------[ cut here ]------------", KR_ERROR, "WARN/BUG", 1 },
	/* syzkaller "INFO:" (RCU stalls, hung tasks, lockdep); kernel/hung_task.c
	 * "INFO: task %s:%d blocked for more than %ld seconds." */
	{ "INFO:", KR_ERROR, "INFO", 0 },
	/* arch/arm64/kernel/stacktrace.c, arch/x86 show_trace_log_lvl():
	 * a stack dump outside a report (dump_stack(), WARN without the
	 * line above) */
	{ "Call trace:", KR_ERROR, "stack dump", 1 },
	{ "Call Trace:", KR_ERROR, "stack dump", 1 },
	{ NULL, 0, NULL, 0 }
};

/*
 * Lines that contain a key above and are not failures. From syzkaller's
 * ignores under "WARNING:" and "INFO:" where they can occur in a kernel
 * log (not the userspace ones); none has been seen on the matrix's cells.
 */
static const char *const kernel_report_ignores[] = {
	/* syzkaller: ignored under INFO: (lockdep reports it after a report) */
	"INFO: lockdep is turned off",
	/* syzkaller: ignored under INFO: */
	"INFO: Stall ended before state dump start",
	/* syzkaller: ignored under INFO: */
	"INFO: NMI handler",
	/* syzkaller: ignored under WARNING: (an informational message) */
	"WARNING: workqueue cpumask: online intersect > possible intersect",
	/* syzkaller: ignored under WARNING: (x86 mitigation advice) */
	"WARNING: Unprivileged eBPF is enabled with eIBRS",
	/* syzkaller: ignored under BUG: */
	"BUG: no syscalls can create resource",
	NULL
};

/*
 * Where @key (with its %d and %x) matches @s at its start: the end of the
 * match, or NULL.
 */
static const char *match_here(const char *s, const char *key)
{
	while (*key) {
		if (key[0] == '%' && (key[1] == 'd' || key[1] == 'x')) {
			const char *digits = key[1] == 'd' ? "0123456789" :
					     "0123456789abcdefABCDEF";
			size_t n = strspn(s, digits);

			if (!n)
				return NULL;
			s += n;
			key += 2;
			continue;
		}
		if (*s != *key)
			return NULL;
		s++;
		key++;
	}
	return s;
}

/*
 * Is the match [@from, @to) of a key inside an occurrence of an ignore
 * phrase? An ignore speaks for the words it contains, not for the rest
 * of its line.
 */
static int ignored(const char *line, const char *from, const char *to)
{
	const char *const *ign;
	const char *p;

	for (ign = kernel_report_ignores; *ign; ign++)
		for (p = strstr(line, *ign); p; p = strstr(p + 1, *ign))
			if (p <= from && to <= p + strlen(*ign))
				return 1;
	return 0;
}

const struct kernel_report *kernel_report_match(const char *line,
					       enum kernel_report_kind kind)
{
	const struct kernel_report *r;
	const char *p, *end;

	for (r = kernel_reports; r->key; r++) {
		/* Candidates start where the key's first byte is. */
		if (r->kind != kind || r->key[0] == '%')
			continue;
		for (p = strchr(line, r->key[0]); p; p = strchr(p + 1, r->key[0])) {
			end = match_here(p, r->key);
			if (end && !ignored(line, p, end))
				return r;
		}
	}
	return NULL;
}

/*
 * What the kernel prints between the guest's power-off request and the
 * end of the console: kernel/reboot.c kernel_power_off(), kernel_restart()
 * and kernel_halt(), arm64's machine_restart(), x86's ACPI S5; and what
 * firmware prints once the kernel handed the machine back: OpenBIOS's
 * "exit" word (sparc64's prom_halt_power_off()) when QEMU is slower to stop
 * than it is to print, and SeaBIOS-hppa's lines when parisc's restart
 * hands it the machine.
 */
static const char *const poweroff_noise[] = {
	"reboot: Power down",
	"reboot: Restarting system",
	"reboot: machine restart",
	"reboot: System halted",
	"ACPI: PM: Preparing to enter system sleep state S5",
	"EXIT",
	"SeaBIOS wants SYSTEM RESET.",
	"***************************",
	NULL
};

int is_poweroff_noise(const char *line)
{
	const char *const *p, *end;

	while (*line == ' ' || *line == '\t')
		line++;
	/* CONFIG_PRINTK_TIME (or printk.time=1): "[   12.345678] " first. */
	if (*line == '[') {
		end = line + 1 + strspn(line + 1, " ");
		end = match_here(end, "%d.%d] ");
		if (end)
			line = end;
	}
	if (!*line)
		return 1;
	for (p = poweroff_noise; *p; p++)
		if (!strncmp(line, *p, strlen(*p)))
			return 1;
	return 0;
}
