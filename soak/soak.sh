#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# soak.sh BUILD [MINUTES]: the soak (make soak; doc/suite.md, "The soak").
#
# Starts the self-checking targets (BUILD/soak/soak_target, one of each
# kind of SOAK_KINDS), a busy loop on every CPU (soak_target hog, at
# normal priority), and the watchdog (soak_watch); then, for MINUTES
# (default 3), runs pfiles (BUILD/pfiles, or SOAK_PFILES) at them one at
# a time through soak_run, in turn: every target, every source (the
# default, pidfd, agent, diag, and bpf where it serves), text and -J, a
# quarter of the runs at RLIMIT_NOFILE 6 to 16.  Then prints the table
# (runs, stops, heartbeat gaps and run times, by target and source) and
# every failure, and ends with "soak: N runs, N failures"; exits 1 on any
# failure, 130 when interrupted.  Every process it started is killed on
# the way out, Ctrl-C included.  The folder of the run (logs, the output
# of each failed run) is kept when something failed, or with SOAK_KEEP=1.
#
# Bounds: a stop of a target thread STOP_MS (1000), a heartbeat gap
# GAP_MS (1500), a run RUN_MS (10000; killed at KILL_MS, 30000).
set -u
B=$1
MINUTES=${2:-3}
PF=${SOAK_PFILES:-$B/pfiles}
TGT=$B/soak/soak_target
KINDS=${SOAK_KINDS:-"exec sigstorm churn blocked fdfull flicker mainexit sigstop sockets"}
STOP_MS=1000
GAP_MS=1500
RUN_MS=10000
KILL_MS=${SOAK_KILL_MS:-30000}
LIFE=$((MINUTES * 60 + 600))

for p in "$PF" "$TGT" "$B/soak/soak_watch" "$B/soak/soak_run"; do
	[ -x "$p" ] || { echo "soak: $p: not built" >&2; exit 2; }
done
dir=$(mktemp -d "${TMPDIR:-/tmp}/soak.XXXXXX") || exit 2
pids=
wpid=
stopping=
failures=0

cleanup() {
	trap - EXIT INT TERM HUP
	[ -n "$wpid" ] && kill -TERM "$wpid" 2>/dev/null
	for p in $pids; do
		kill -KILL "$p" 2>/dev/null
	done
	wait 2>/dev/null
	if [ "$failures" = 0 ] && [ -z "${SOAK_KEEP:-}" ]; then
		rm -rf "$dir"
	else
		echo "soak: its logs: $dir"
	fi
}
trap cleanup EXIT
trap 'stopping=1' INT TERM HUP

# Wait (60 s at most) for a line "ready" in file $1.
wait_ready() {
	n=0
	while [ $n -lt 600 ]; do
		grep -q '^ready$' "$1" 2>/dev/null && return 0
		[ -n "$stopping" ] && return 1
		sleep 0.1
		n=$((n + 1))
	done
	return 1
}

# The targets, each in its own files; pid_KIND is its pid.
for k in $KINDS; do
	SOAK_LIFE=$LIFE "$TGT" "$k" "$dir" </dev/null >"$dir/$k.out" \
	    2>"$dir/$k.log" &
	eval "pid_$k=$!"
	pids="$pids $!"
done
for k in $KINDS; do
	wait_ready "$dir/$k.out" || {
		echo "soak: target $k did not start:" >&2
		cat "$dir/$k.log" >&2
		failures=1
		exit 1
	}
done
"$B/soak/soak_watch" -s $STOP_MS -g $GAP_MS -L $LIFE "$dir" \
    >"$dir/watch.out" 2>"$dir/watch.err" &
wpid=$!
wait_ready "$dir/watch.out" || { failures=1; exit 1; }
ncpu=$(nproc 2>/dev/null || echo 2)
i=0
while [ $i -lt "$ncpu" ]; do
	SOAK_LIFE=$LIFE "$TGT" hog </dev/null >/dev/null 2>&1 &
	pids="$pids $!"
	i=$((i + 1))
done

SOURCES="default pidfd agent diag"
if "$PF" --via=bpf $$ >/dev/null 2>&1; then
	SOURCES="$SOURCES bpf"
fi
nk=$(echo $KINDS | wc -w)
ns=$(echo $SOURCES | wc -w)
echo "soak: $MINUTES min; targets: $KINDS; sources: $SOURCES;" \
    "$ncpu CPU hogs"

# The i-th run: a target, a source, text or -J, a limit or none, in turn;
# none at a target that is gone (soak_run said so once, status 3).
one_run() {
	k=$(echo $KINDS | cut -d' ' -f$(($1 % nk + 1)))
	s=$(echo $SOURCES | cut -d' ' -f$(($1 / nk % ns + 1)))
	case " $gone " in *" $k "*) return 0 ;; esac
	eval "pid=\$pid_$k"
	set -- "$1"
	[ "$s" = default ] || set -- "$@" "--via=$s"
	fmt=text
	if [ $(($1 / (nk * ns) % 2)) = 1 ]; then
		fmt=json
		set -- "$@" -J
	fi
	nofile=0
	[ $((($1 + $1 / (nk * ns * 2)) % 4)) = 3 ] &&
	    nofile=$((6 + $1 * 7 % 11))
	shift
	"$B/soak/soak_run" -d "$dir" -p "$pid" -s "$s" -l "$fmt" \
	    -n "$nofile" -b $RUN_MS -k "$KILL_MS" -- "$PF" "$@" "$pid" \
	    >>"$dir/runs.log"
	[ $? = 3 ] && gone="$gone $k"
	return 0
}

end=$(($(date +%s) + MINUTES * 60))
i=0
gone=
while [ -z "$stopping" ] && [ "$(date +%s)" -lt "$end" ] &&
    [ "$(echo $gone | wc -w)" -lt "$nk" ]; do
	one_run $i
	i=$((i + 1))
done

kill -TERM "$wpid" 2>/dev/null
wait "$wpid" 2>/dev/null
wpid=
# How each target that ended ended (the watchdog said when).
for k in $KINDS; do
	eval "pid=\$pid_$k"
	kill -0 "$pid" 2>/dev/null && continue
	wait "$pid"
	st=$?
	[ $st -gt 128 ] && st="signal $((st - 128))" || st="status $st"
	echo "soak_target $k[$pid]: ended, $st" >>"$dir/$k.log"
done
sh "$(dirname "$0")/summary.sh" "$dir" $KINDS
failures=$(sed -n 's/^soak: .* runs, \([0-9]*\) failures$/\1/p' \
    "$dir/summary")
[ -n "$stopping" ] && exit 130
[ "$failures" = 0 ]
