#!/usr/bin/env bats
# Every class of kernel failure report the judge knows
# (tools/nmx/kernel_reports.c), one recorded console log each under
# tests/console/, named after the case: a clean run of the cell with the
# kernel's report in it. The report must fail the cell and be quoted.

load helpers

# judge_case CASE: nmx judge on tests/console/CASE.log; the ARM cases are
# arm-be8 runs with their FINDINGS.md (finding 5 is an expected failure).
judge_case() {
	local -a args=()
	case $1 in
	*-be8) args=(--findings "$TOP/patch/linux-6.1/FINDINGS.md" --cell arm-be8 --variant upstream) ;;
	esac
	run "$NMX" judge --log "$TESTS_DIR/console/$1.log" --out "$SCRATCH" "${args[@]}"
}

# expect STATUS REASON-PREFIX: the judge's one line, and its exit code.
expect() {
	[ "$status" -eq 1 ]
	[[ "$output" == "$1: $2"* ]]
}

@test "ARM alignment trap (arm-alignment-trap-be8): TEST_FAIL, quoted" {
	judge_case arm-alignment-trap-be8
	expect TEST_FAIL 'kernel reported ARM alignment trap: "Alignment trap: not handling instruction e1b42f9f at [<c0313d04>]"'
}

@test "ARM unhandled abort (arm-prefetch-abort-be8): TEST_FAIL, quoted" {
	judge_case arm-prefetch-abort-be8
	expect TEST_FAIL 'kernel reported ARM unhandled abort: "Unhandled prefetch abort: page translation fault (0x007) at 0x00000000"'
}

@test "ARM unhandled abort (arm-unhandled-fault-be8): TEST_FAIL, quoted" {
	judge_case arm-unhandled-fault-be8
	expect TEST_FAIL 'kernel reported ARM unhandled abort: "Unhandled fault: page domain fault (0x01b) at 0x00000004"'
}

@test "bad exception mode (arm64-bad-mode): TEST_FAIL, quoted" {
	judge_case arm64-bad-mode
	expect TEST_FAIL 'kernel reported bad exception mode: "Bad mode in Synchronous Abort handler detected on CPU0, code 0x00000000 -- Unknown/Uncategorized"'
}

@test "arm64 SError (arm64-serror): TEST_FAIL, quoted" {
	judge_case arm64-serror
	expect TEST_FAIL 'kernel reported arm64 SError: "SError Interrupt on CPU1, code 0x00000000bf000002 -- SError"'
}

@test "kernel BUG (bug-before-ktap-arm64): BOOT_FAIL, quoted" {
	judge_case bug-before-ktap-arm64
	expect BOOT_FAIL 'before any test, kernel reported kernel BUG: "kernel BUG at kernel/trace/ftrace.c:2045!"'
}

@test "ftrace bug (ftrace-bug-x86): TEST_FAIL, quoted" {
	judge_case ftrace-bug-x86
	expect TEST_FAIL 'kernel reported ftrace bug: "ftrace failed to modify"'
}

@test "hung task (hung-task-arm64): TEST_FAIL, quoted" {
	judge_case hung-task-arm64
	expect TEST_FAIL 'kernel reported hung task: "INFO: task kworker/0:1:12 blocked for more than 30 seconds."'
}

@test "panic (init-exited-arm64): TEST_FAIL, quoted" {
	judge_case init-exited-arm64
	expect TEST_FAIL 'KTAP incomplete: 4 of 9 results; kernel panic: "Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000000"'
}

@test "user segfault (init-segfault-x86): TEST_FAIL, quoted" {
	judge_case init-segfault-x86
	expect TEST_FAIL 'KTAP incomplete: 6 of 38 results; kernel reported user segfault: "init[1]: segfault at 0 ip 0000000000401a2c sp 00007ffd4c2f7e10 error 4 in init[401000+3000] likely on CPU 0 (core 0, socket 0)"'
}

@test "user fault (init-unhandled-exception-arm64): TEST_FAIL, quoted" {
	judge_case init-unhandled-exception-arm64
	expect TEST_FAIL 'kernel reported user fault: "init[1]: unhandled exception: DABT (current EL), ESR 0x96000004"'
}

@test "BUG (kasan-arm64): TEST_FAIL, quoted" {
	judge_case kasan-arm64
	expect TEST_FAIL 'kernel reported BUG: "BUG: KASAN: slab-out-of-bounds in ftrace_graph_ret_addr+0x50/0x98"'
}

@test "kernel BUG (kernel-bug-at-arm64): TEST_FAIL, quoted" {
	judge_case kernel-bug-at-arm64
	expect TEST_FAIL 'kernel reported kernel BUG: "kernel BUG at kernel/trace/fgraph.c:140!"'
}

@test "list corruption (list-corruption-arm64): TEST_FAIL, quoted" {
	judge_case list-corruption-arm64
	expect TEST_FAIL 'kernel reported list corruption: "list_add corruption. prev->next should be next (ffff000002a3c0d8), but was 0000000000000000. (prev=ffff000002a3c0d8)."'
}

@test "WARNING (lockdep-circular-arm64): TEST_FAIL, quoted" {
	judge_case lockdep-circular-arm64
	expect TEST_FAIL 'kernel reported WARNING: "WARNING: possible circular locking dependency detected"'
}

@test "kernel fault (null-deref-oops-arm64): TEST_FAIL, quoted" {
	judge_case null-deref-oops-arm64
	expect TEST_FAIL 'KTAP incomplete: 4 of 9 results; kernel reported kernel fault: "Unable to handle kernel NULL pointer dereference at virtual address 0000000000000008"'
}

@test "RCU stall (rcu-stall-arm64): TEST_FAIL, quoted" {
	judge_case rcu-stall-arm64
	expect TEST_FAIL 'kernel reported RCU stall: "rcu: INFO: rcu_sched self-detected stall on CPU"'
}

@test "refcount (refcount-underflow-arm64): TEST_FAIL, quoted" {
	judge_case refcount-underflow-arm64
	expect TEST_FAIL 'kernel reported refcount: "refcount_t: underflow; use-after-free."'
}

@test "BUG (sleeping-in-atomic-x86): TEST_FAIL, quoted" {
	judge_case sleeping-in-atomic-x86
	expect TEST_FAIL 'kernel reported BUG: "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:580"'
}

@test "soft lockup (soft-lockup-arm64): TEST_FAIL, quoted" {
	judge_case soft-lockup-arm64
	expect TEST_FAIL 'kernel reported soft lockup: "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [init:1]"'
}

@test "panic (stack-protector-panic-arm64): TEST_FAIL, quoted" {
	judge_case stack-protector-panic-arm64
	expect TEST_FAIL 'KTAP incomplete: 4 of 9 results; kernel panic: "Kernel panic - not syncing: stack-protector: Kernel stack is corrupted in: function_graph_enter+0x120/0x124"'
}

@test "tracer startup selftest failed (tracer-selftest-failed-unreported-arm64): TEST_FAIL, quoted" {
	judge_case tracer-selftest-failed-unreported-arm64
	expect TEST_FAIL 'kernel reported tracer startup selftest failed: "Testing set_graph_notrace: FAILED!"'
}

@test "UBSAN (ubsan-arm64): TEST_FAIL, quoted" {
	judge_case ubsan-arm64
	expect TEST_FAIL 'kernel reported UBSAN: "UBSAN: array-index-out-of-bounds in kernel/trace/fgraph.c:201:29"'
}

@test "WARNING (warning-inside-trace-frame-arm64): TEST_FAIL, quoted" {
	judge_case warning-inside-trace-frame-arm64
	expect TEST_FAIL 'kernel reported WARNING: "WARNING: CPU: 1 PID: 17 at kernel/trace/fgraph.c:123 ftrace_return_to_handler+0x1c0/0x1f0"'
}

@test "panic (x86-double-fault): TEST_FAIL, quoted" {
	judge_case x86-double-fault
	expect TEST_FAIL 'KTAP incomplete: 6 of 38 results; kernel panic: "PANIC: double fault, error_code: 0x0"'
}

@test "x86 general protection fault (x86-general-protection-fault): TEST_FAIL, quoted" {
	judge_case x86-general-protection-fault
	expect TEST_FAIL 'kernel reported x86 general protection fault: "general protection fault, probably for non-canonical address 0xdead000000000100: 0000 [#1] SMP NOPTI"'
}

@test "hard lockup (x86-hard-lockup): TEST_FAIL, quoted" {
	judge_case x86-hard-lockup
	expect TEST_FAIL 'kernel reported hard lockup: "NMI watchdog: Watchdog detected hard LOCKUP on cpu 1"'
}

@test "x86 invalid opcode (x86-invalid-opcode): TEST_FAIL, quoted" {
	judge_case x86-invalid-opcode
	expect TEST_FAIL 'kernel reported x86 invalid opcode: "invalid opcode: 0000 [#1] SMP NOPTI"'
}

@test "BUG (x86-null-deref): TEST_FAIL, quoted" {
	judge_case x86-null-deref
	expect TEST_FAIL 'KTAP incomplete: 6 of 38 results; kernel reported BUG: "BUG: kernel NULL pointer dereference, address: 0000000000000008"'
}


# ---- report markers and wordings a first-line table misses ------------

@test "OOM on 32-bit ARM (arm-oom-be8): TEST_FAIL, quoted" {
	judge_case arm-oom-be8
	expect TEST_FAIL 'kernel reported out of memory: "init invoked oom-killer: gfp_mask=0xcc0(GFP_KERNEL), order=0, oom_score_adj=0"'
}

@test "spurious interrupt on 32-bit ARM (arm-nobody-cared-be8): TEST_FAIL, quoted" {
	judge_case arm-nobody-cared-be8
	expect TEST_FAIL 'kernel reported spurious interrupt: "irq 27: nobody cared (try booting with the "irqpoll" option)"'
}

@test "a stack dump with no known first line on 32-bit ARM (arm-stack-dump-only-be8): TEST_FAIL, its header quoted" {
	judge_case arm-stack-dump-only-be8
	expect TEST_FAIL 'kernel reported stack dump: "CPU: 1 PID: 1 Comm: init Not tainted 6.1.192+ #3"'
}

@test "allocation failure (page-allocation-failure-be8): TEST_FAIL, quoted" {
	judge_case page-allocation-failure-be8
	expect TEST_FAIL 'kernel reported allocation failure: "init: page allocation failure: order:10, mode:0xcc0(GFP_KERNEL), nodemask=(null)"'
}

@test "x86 user trap (x86-user-trap-invalid-opcode): TEST_FAIL, quoted" {
	judge_case x86-user-trap-invalid-opcode
	expect TEST_FAIL 'kernel reported user fault: "traps: init[1] trap invalid opcode ip:401a2b sp:7ffd3c1e5e28 error:0 in init[401000+6000]"'
}

@test "x86 user trap (x86-user-trap-divide-error): TEST_FAIL, quoted" {
	judge_case x86-user-trap-divide-error
	expect TEST_FAIL 'kernel reported user fault: "traps: init[1] trap divide error ip:4019f4 sp:7ffd3c1e5e30 error:0 in init[401000+6000]"'
}

@test "event filter selftest without FAILED! (selftest-event-filter-failed-arm64): TEST_FAIL, quoted" {
	judge_case selftest-event-filter-failed-arm64
	expect TEST_FAIL "kernel reported tracer startup selftest failed: \"Failed to match filter 'a == 1 && b == 1 && c == 1 && d == 1', expected 1\""
}

@test "ftrace could not allocate (ftrace-allocation-failed-arm64): TEST_FAIL, quoted" {
	judge_case ftrace-allocation-failed-arm64
	expect TEST_FAIL 'kernel reported ftrace setup failed: "ftrace: FAILED to allocate memory for functions"'
}

@test "only the end-of-trace line left (end-trace-only-arm64): TEST_FAIL, quoted" {
	judge_case end-trace-only-arm64
	expect TEST_FAIL 'kernel reported end of a kernel report: "---[ end trace 0000000000000000 ]---"'
}

@test "an ignore phrase excuses only its words (ignore-overlap-arm64): the Oops after it is TEST_FAIL" {
	judge_case ignore-overlap-arm64
	expect TEST_FAIL 'kernel reported Oops: "BUG: no syscalls can create resource; Internal error: Oops: 0000000096000004 [#1] SMP"'
}

@test "an ignore phrase alone (ignored-phrase-arm64): PASS" {
	judge_case ignored-phrase-arm64
	[ "$status" -eq 0 ]
	[ "$output" = "PASS: 9 tests ok" ]
}

@test "riscv Oops, whose only key is the die counter (riscv64-oops-die-counter): TEST_FAIL, quoted" {
	judge_case riscv64-oops-die-counter
	expect TEST_FAIL 'kernel reported Oops: "Oops - illegal instruction [#1]"'
}

@test "riscv user fault (riscv64-user-unhandled-signal): TEST_FAIL, quoted" {
	judge_case riscv64-user-unhandled-signal
	expect TEST_FAIL 'kernel reported user fault: "init[1]: unhandled signal 4 code 0x1 at 0x0000000000010178 in init[10178,10000+2000]"'
}

@test "powerpc user fault (ppc64le-user-segfault): TEST_FAIL, quoted" {
	judge_case ppc64le-user-segfault
	expect TEST_FAIL 'kernel reported user fault: "init[1]: segfault (11) at 0 nip 10000abc lr 10000a80 code 1 in init[10000000+20000]"'
}

@test "s390 user fault (s390x-user-process-fault): TEST_FAIL, quoted" {
	judge_case s390x-user-process-fault
	expect TEST_FAIL 'kernel reported user fault: "User process fault: interruption code 0011 ilc:3 in init[1000000+4000]"'
}

@test "a CPU that did not come online (riscv64-cpu-offline-6.1, a real 6.1 boot): TEST_FAIL, quoted" {
	judge_case riscv64-cpu-offline-6.1
	expect TEST_FAIL 'kernel reported CPU bring-up failed: "CPU1: failed to come online"'
}

@test "the set_graph_notrace selftest failed (riscv64-graph-notrace-selftest-beside-6.12, a real 6.12 boot): TEST_FAIL, quoted" {
	judge_case riscv64-graph-notrace-selftest-beside-6.12
	expect TEST_FAIL 'kernel reported tracer startup selftest failed: "Testing set_graph_notrace: FAILED! (pruned 0, below 0, after 0, error -22)"'
}

@test "the set_graph_notrace selftest failed (arm64-graph-notrace-selftest-lava-7.2, a real 7.2 boot through LAVA): TEST_FAIL, quoted" {
	judge_case arm64-graph-notrace-selftest-lava-7.2
	expect TEST_FAIL 'kernel reported tracer startup selftest failed: "Testing set_graph_notrace: FAILED! (pruned 0, below 0, after 0, error -22)"'
}
