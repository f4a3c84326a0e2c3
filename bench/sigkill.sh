#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# sigkill.sh BUILD TRIALS: SIGKILL pfiles --via=agent at a random moment of
# its work, TRIALS times in each of the agent's two paths, and count the
# targets that died or were left stopped.
#
#   pass      the target passes its sockets over SCM_RIGHTS (the default)
#   batch     one batch of calls per socket (the target in its own
#             network namespace, where passing cannot work)
#
# The target is atf/harm_helper's "rseq" mode with 200 socketpairs: a
# thread that runs in user code, as a busy server's does.  A target that
# dies is started again.  A target that lives on is checked for
# descriptors of ours left in it (its fd count grew).  Prints one line per
# path:
#   PATH: N trials, D targets killed (signals), S left stopped, L with a
#   descriptor left, O ended otherwise
set -u
B=$1
TRIALS=${2:-1000}
H=$B/atf/harm_helper
PF=$B/pfiles

trial_path() {
	path=$1
	died=0
	stopped=0
	leaked=0
	other=0
	sigs=
	fifo=$(mktemp -u "${TMPDIR:-/tmp}/sigkill.XXXXXX")
	mkfifo "$fifo"
	start_target() {
		if [ "$path" = batch ]; then
			unshare -n "$H" rseq 200 <"$fifo" >/dev/null 2>&1 &
		else
			"$H" rseq 200 <"$fifo" >/dev/null 2>&1 &
		fi
		tpid=$!
		exec 8>"$fifo"
		sleep 0.2
		nfd=$(ls "/proc/$tpid/fd" 2>/dev/null | wc -l)
	}
	start_target
	i=0
	while [ $i -lt "$TRIALS" ]; do
		i=$((i + 1))
		"$PF" --via=agent "$tpid" >/dev/null 2>&1 &
		p=$!
		# a random moment within the first 20 ms of the walk
		sleep "0.0$(awk -v s="$i$$" 'BEGIN { srand(s); printf "%02d", int(rand() * 20) }')"
		kill -9 "$p" 2>/dev/null
		wait "$p" 2>/dev/null
		sleep 0.01
		st=$(awk '/^State:/ { print $2 }' "/proc/$tpid/status" \
		    2>/dev/null)
		case "$st" in
		""|Z|X)
			wait "$tpid" 2>/dev/null
			how=$?
			# 128 + the signal that killed it; anything else is not
			# the agent's doing (the target could not start)
			if [ "$how" -gt 128 ]; then
				died=$((died + 1))
				sigs="$sigs $((how - 128))"
			else
				other=$((other + 1))
			fi
			exec 8>&-
			start_target ;;
		T|t)
			stopped=$((stopped + 1)) ;;
		*)
			n=$(ls "/proc/$tpid/fd" 2>/dev/null | wc -l)
			if [ "$n" -gt "$nfd" ]; then
				leaked=$((leaked + 1))
				nfd=$n
			fi ;;
		esac
	done
	exec 8>&-
	wait "$tpid" 2>/dev/null
	rm -f "$fifo"
	echo "$path: $TRIALS trials, $died targets killed" \
	    "(signals:$(echo "$sigs" | tr ' ' '\n' | grep . | sort -n |
	    uniq -c | awk '{ printf " %s x%s", $2, $1 }')), $stopped left" \
	    "stopped, $leaked with a descriptor left," \
	    "$other ended otherwise"
}

trial_path pass
trial_path batch
