#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# demo.sh BUILD_DIR: pfiles on a live node.js process with 100 loopback
# connections, then the tally of what pfiles read to produce it.
#
# The tally comes from libpreadcount.so (an LD_PRELOAD counter of every
# libc call that reads a file or another process's memory), set for the
# pfiles process alone.  The seed's illumos pfiles made 280 preads per
# socket (230 of /proc/PID/as, 50 of lwpstatus).
set -eu
B=${1:?usage: demo.sh BUILD_DIR}
TOP=$(cd "$(dirname "$0")/.." && pwd)
N=${DEMO_CONNECTIONS:-100}
VIA=${DEMO_VIA:-auto}

tmp=$(mktemp -d /tmp/pfiles-demo.XXXXXX)
node_pid=
cleanup() {
	[ -n "$node_pid" ] && kill "$node_pid" 2>/dev/null || :
	exec 3>&- 2>/dev/null || :
	rm -rf "$tmp"
}
trap cleanup EXIT INT TERM

# node reads its stdin: a FIFO held open here keeps it alive until we end.
mkfifo "$tmp/stdin"
node "$TOP/fixtures/sockets.js" "$N" 120 <"$tmp/stdin" >"$tmp/node.out" &
node_pid=$!
exec 3>"$tmp/stdin"

i=0
until grep -q '^opened' "$tmp/node.out" 2>/dev/null; do
	i=$((i + 1))
	if [ $i -gt 300 ] || ! kill -0 "$node_pid" 2>/dev/null; then
		echo "demo: node did not open its sockets" >&2
		exit 1
	fi
	sleep 0.1
done
head -1 "$tmp/node.out"
echo

echo "\$ pfiles --via=$VIA $node_pid"
PREADCOUNT_OUT=$tmp/tally LD_PRELOAD=$B/libpreadcount.so \
    "$B/pfiles" --via="$VIA" "$node_pid"
sockets=$("$B/pfiles" "$node_pid" | grep -c 'S_IFSOCK' || :)

echo
echo "What pfiles read to print that ($sockets sockets):"
awk -F'\t' -v pid="$node_pid" -v socks="$sockets" '
	$1 ~ /^(pread|read|readv|process_vm_readv|ptrace_peek)/ {
		p = $2
		if (p ~ "^/proc/" pid "/mem") k = "target memory (/proc/PID/mem)"
		else if (p ~ "^/proc/" pid "/fdinfo/") k = "/proc/PID/fdinfo/N"
		else if (p ~ "^/proc/" pid "/") k = "other /proc/PID files"
		else if (p ~ /^pid:/) k = "target memory (ptrace, process_vm)"
		else k = "other files"
		calls[k] += $3; bytes[k] += $4; total += $3
	}
	END {
		printf "  %-36s %8s %10s\n", "source", "calls", "bytes"
		mem = "target memory (/proc/PID/mem)"
		calls[mem] += 0; bytes[mem] += 0
		for (k in calls)
			printf "  %-36s %8d %10d\n", k, calls[k], bytes[k]
		if (socks > 0)
			printf "  reads per socket: %.2f (illumos pfiles of the seed: 280)\n",
			    total / socks
	}' "$tmp/tally"
