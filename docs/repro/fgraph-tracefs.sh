#!/bin/sh
# The commands are the ones in the fixes' commit messages, as typed at a
# shell in tracefs: a failed cd shows in what follows.
# shellcheck disable=SC2164,SC2320
# Tracefs-only reproductions of findings 1, 3 (after 16 registrations) and 6.
/bin/busybox mkdir -p /proc /t /tmp
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev
mount -t tracefs nodev /t
cd /t
echo "REPRO uname: $(uname -r)"

echo "REPRO-1 begin: a set_graph_function root that runs while tracing is off"
echo 0 > tracing_on
echo function_graph > current_tracer
echo set_fs_pwd > set_graph_function
echo > trace
cd /            # runs set_fs_pwd() with tracing off
cd /t
echo 1 > tracing_on
echo 0 > tracing_on
n=$(grep -vc '^#' trace)
grep -v '^#' trace | head -5
echo "REPRO-1 end: $n line(s) traced (want 0: no root ran while tracing was on)"
echo > set_graph_function

echo "REPRO-6 begin: a root entered below another fgraph user's frames"
echo function_graph > current_tracer
echo 1 > function_profile_enabled
echo __legitimize_mnt > set_graph_function   # entered about 6 calls deep by cd
echo > trace
echo 1 > tracing_on
cd /
cd /t
echo 0 > tracing_on
n=$(grep -c 'sys_' trace)
grep -v '^#' trace | grep -c . | sed 's/^/REPRO-6 debug: trace lines: /'
grep -v '^#' trace | head -3
echo "REPRO-6 end: $n system call(s) traced (want 0: the root makes none)"
echo 0 > function_profile_enabled
echo > set_graph_function
echo nop > current_tracer

echo "REPRO-3 begin: the tracer switched off while the shell waits in a pruned function"
echo 0 > tracing_on
echo kernel_wait4 > set_graph_notrace
echo set_fs_pwd > set_graph_function
echo function_graph > current_tracer
(sleep 1; echo nop > /t/current_tracer; echo "REPRO-3 debug: nop written: $? $(cat /t/current_tracer) $(cat /proc/uptime)") &
echo "REPRO-3 debug: bg $!"
echo "REPRO-3 debug: t0 $(cat /proc/uptime)"
(sleep 4)       # the shell waits in kernel_wait4(), pruned; returns with the tracer off
echo "REPRO-3 debug: t1 $(cat /proc/uptime)"
wait
echo "REPRO-3 debug: current_tracer after the wait: $(cat current_tracer)"
echo > set_graph_notrace
bad=''
i=1
while [ $i -le 17 ]; do
	echo function_graph > current_tracer
	echo > trace
	echo 1 > tracing_on
	cd /
	cd /t
	echo 0 > tracing_on
	grep -q set_fs_pwd trace || bad="$bad $i"
	echo "REPRO-3 debug: $i: $(grep -vc '^#' trace) line(s)"
	echo nop > current_tracer
	i=$((i + 1))
done
echo "REPRO-3 end: registrations after which the shell was not traced:${bad:- none} (want none)"
echo "REPRO done"
poweroff -f
