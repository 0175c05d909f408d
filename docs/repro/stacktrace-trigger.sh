#!/bin/sh
# The commands are the ones in the fixes' commit messages, as typed at a
# shell in tracefs: a failed cd shows in what follows.
# shellcheck disable=SC2164
/bin/busybox mkdir -p /proc /t /tmp
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev
mount -t tracefs nodev /t
cd /t
echo "REPRO uname: $(uname -r)"
echo "REPRO-ST begin: a stack trace taken under functions the graph tracer hooks"
echo 0 > tracing_on
echo function_graph > current_tracer
echo stacktrace > events/sched/sched_process_fork/trigger
echo > trace
echo 1 > tracing_on
ls / > /dev/null
echo 0 > tracing_on
grep -A12 'stack trace' trace | head -16
n=$(grep -c '=> return_to_handler' trace)
echo "REPRO-ST end: $n frame(s) shown as return_to_handler (want 0)"
poweroff -f
