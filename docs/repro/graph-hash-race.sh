#!/bin/sh
# The commands are the ones in the fixes' commit messages, as typed at a
# shell in tracefs: a failed cd shows in what follows.
# shellcheck disable=SC2164,SC2320
/bin/busybox mkdir -p /proc /t /tmp
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t devtmpfs dev /dev
mount -t tracefs nodev /t
cd /t
echo "REPRO uname: $(uname -r)"
echo "REPRO-15 begin: set_graph_function rewritten while another CPU looks it up"
echo function_graph > current_tracer
echo set_fs_pwd > set_graph_function
(while :; do cd /; done) &
reader=$!
i=0
while [ $i -lt 200 ]; do
	echo set_fs_pwd > set_graph_function
	echo set_fs_root > set_graph_function
	i=$((i + 1))
done
kill $reader
echo "REPRO-15 end: $i rewrite pair(s) with a reader, no oops"
poweroff -f
