#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# machine.sh BUILD_DIR TOP: pfiles over a whole machine (make bench, after
# bench.sh).
#
# The fixture is fixtures/machine: a parent and BENCH_MACHINE_N (default
# 500) children, each with 10 socket pairs and one loopback TCP connection
# to the parent, which holds one accepted socket per child.  Timed, in
# BENCH_RUNS rounds (default 7, the order rotated each round), after one
# warm-up each:
#   - pfiles with each source on the fixture's processes (its pids, as
#     /proc/* would give them), and pfiles -n;
#   - pfiles with pidfd, diag and bpf, and pfiles -n, on /proc/* (every
#     process of the machine: some may be gone by their turn, or not
#     examined, said on stderr, exit 1; not the agent, which would
#     borrow a thread of every process of the machine it runs on);
#   - lsof -n -P, lsfd and ss -tanp, each on the whole machine.
# The goals (issue 26) are paired ratios (medians of the rounds' own
# ratios): pfiles --via=pidfd on the fixture <= 1.0 x lsof -n -P, and
# --via=bpf <= 0.2 x.
#
# Then, untimed, under strace -f -y: the fd links (readlink, statx of
# /proc/PID/fd/N) and fd directories (getdents64 of /proc/PID/fd) pfiles
# reads for one small process and for all of them, for pidfd and bpf; and
# with BENCH_MACHINE_BIG (default 760 children of 64 pairs, some 100,000
# fds; 0 for none) the same for one small process on a machine that holds
# that many other fds: the endpoint search reads each fd directory once,
# and with bpf none.  The same text goes to BUILD_DIR/bench/machine.md.

set -u

B=${1:?usage: machine.sh BUILD_DIR TOP}
TOP=${2:?usage: machine.sh BUILD_DIR TOP}
N=${BENCH_MACHINE_N:-500}
BIG=${BENCH_MACHINE_BIG:-760}
RUNS=${BENCH_RUNS:-7}
RUNSTAT=$B/bench/runstat
MACHINE=$B/machine
RESULTS=$B/bench/machine.md
TOOLS="pidfd diag bpf agent statonly pidfd-all diag-all bpf-all"
TOOLS="$TOOLS statonly-all lsof lsfd ss"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/machine.XXXXXX") || exit 1
. "$TOP/bench/lib.sh"
fixpid=

die() {
	echo "bench: $*" >&2
	exit 1
}

# The fixture: stdin a pipe from a fifo this shell holds open (its end of
# file ends every process), stdout and stderr a pipe into the manifest:
# each child's fds are pipes and sockets, as a small daemon's.
start_fixture() {
	rm -f "$tmp/in" "$tmp/man"
	mkfifo "$tmp/in" || die "mkfifo"
	( cat "$tmp/in" | "$MACHINE" -n "$1" -p "$2" -t 3600 2>&1 |
	    cat >"$tmp/man" ) &
	fixpid=$!
	exec 8>"$tmp/in"
	i=0
	until grep -q '^end$' "$tmp/man" 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt 1200 ] || die "machine: no manifest after 120 s"
		kill -0 "$fixpid" 2>/dev/null || die "machine exited: $(cat "$tmp/man")"
		sleep 0.1
	done
	parent=$(awk '$1 == "parent" { print $2 }' "$tmp/man")
	children=$(awk '$1 == "child" { print $2 }' "$tmp/man" | tr '\n' ' ')
	pids="$parent $children"
}

stop_fixture() {
	[ -n "$fixpid" ] || return 0
	exec 8>&-
	i=0
	while kill -0 "$fixpid" 2>/dev/null && [ $i -lt 100 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	wait "$fixpid" 2>/dev/null
	fixpid=
}

cleanup() {
	stop_fixture
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

for t in lsof lsfd ss; do
	command -v $t >/dev/null 2>&1 || die "$t not found (make deps)"
done
[ -x "$B/pfiles" ] && [ -x "$MACHINE" ] && [ -x "$RUNSTAT" ] ||
    die "pfiles, machine or runstat not built"

# The command line of tool T ("/proc/*" expanded when it runs).
tool_cmd() {
	case $1 in
	pidfd|diag|bpf|agent) echo "$B/pfiles --via=$1 $pids" ;;
	statonly)	echo "$B/pfiles -n $pids" ;;
	pidfd-all|diag-all|bpf-all)
			echo "$B/pfiles --via=${1%-all}" /proc/[0-9]* ;;
	statonly-all)	echo "$B/pfiles -n" /proc/[0-9]* ;;
	lsof)		echo "lsof -n -P" ;;
	lsfd)		echo "lsfd" ;;
	ss)		echo "ss -tanp" ;;
	esac
}

tool_label() {
	case $1 in
	pidfd|diag|bpf|agent) echo "pfiles --via=$1 (the fixture's $((N + 1)) pids)" ;;
	statonly)	echo "pfiles -n (the fixture's pids)" ;;
	pidfd-all|diag-all|bpf-all)
			echo "pfiles --via=${1%-all} /proc/*" ;;
	statonly-all)	echo "pfiles -n /proc/*" ;;
	lsof)		echo "lsof -n -P (whole machine)" ;;
	lsfd)		echo "lsfd (whole machine)" ;;
	ss)		echo "ss -tanp (whole machine)" ;;
	esac
}

# One timed run: "WALL RSS CPU" appended to its file.  /proc/* may name
# processes gone by their turn: exit 1 is theirs, not a failure.
run_one() {
	t=$1
	# shellcheck disable=SC2046
	stat=$("$RUNSTAT" -o "$tmp/$t.stdout" $(tool_cmd "$t") \
	    2>>"$tmp/$t.stderr") || die "runstat $t failed"
	# shellcheck disable=SC2086
	set -- $stat
	case "$t:$3" in
	*:0|*-all:1|lsof:1) ;;
	*)	echo "$t: exit status $3" >>"$tmp/$t.fail"; return 1 ;;
	esac
	echo "$1 $2 $4" >>"$tmp/$t.res"
}

# Under strace -f -y, pfiles --via=SRC on ARGS: "LINKS DIRS DIRREADS",
# the fd links it read (readlink, statx of /proc/PID/fd/N, by path or by
# the directory's fd), the fd directories it listed, and its getdents64
# calls on them.
links() {
	src=$1
	shift
	strace -f -qq -y -e trace=readlinkat,readlink,statx,newfstatat,getdents64 \
	    -o "$tmp/links.log" "$B/pfiles" --via="$src" "$@" >/dev/null \
	    2>>"$tmp/links.err" || true
	awk '
	{
		call = $2; sub(/\(.*/, "", call)
		arg = $2; sub(/^[a-z0-9]*\(/, "", arg)
		if (call == "getdents64") {
			if (match(arg, /^[0-9]+<\/proc\/[0-9]+\/fd>/)) {
				d = substr(arg, RSTART, RLENGTH)
				sub(/^[0-9]+/, "", d)
				dirs[d] = 1; reads++
			}
			next
		}
		if (arg ~ /^"\/proc\/[0-9]+\/fd\// || arg ~ /^[0-9]+<\/proc\/[0-9]+\/fd>/)
			n++
	}
	END { nd = 0; for (d in dirs) nd++; printf "%d %d %d\n", n, nd, reads }
	' "$tmp/links.log"
}

# The fds of every process of the machine.
fds_here() {
	find /proc -mindepth 3 -maxdepth 3 -path '/proc/[0-9]*/fd/*' \
	    2>/dev/null | wc -l
}

machine_info() {
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	echo "## make bench: the whole machine, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "Machine: $(uname -srm), ${cpu:-unknown CPU}, $(nproc) CPUs."
	echo "Fixture: fixtures/machine, a parent and $N children, each with"
	echo "10 socket pairs and one loopback TCP connection to the parent."
}

bench() {
	start_fixture "$N" 10
	nfds=$(fds_here)
	echo "bench: machine up ($((N + 1)) processes; $nfds fds on the machine); warm-up" >&2
	avail=
	for t in $TOOLS; do
		rm -f "$tmp/$t.res" "$tmp/$t.fail" "$tmp/$t.stderr"
		if run_one "$t"; then
			avail="$avail $t"
			wc -l <"$tmp/$t.stdout" >"$tmp/$t.lines"
		fi
		rm -f "$tmp/$t.res"
	done
	r=0
	while [ $r -lt "$RUNS" ]; do
		echo "bench: the whole machine, round $((r + 1)) of $RUNS" >&2
		for t in $(rotated $r); do
			case " $avail " in
			*" $t "*) run_one "$t" || true ;;
			esac
		done
		r=$((r + 1))
	done

	echo
	echo "### $((N + 1)) processes, $RUNS runs each ($nfds fds on the machine)"
	echo
	echo "| tool | median wall (ms) | median CPU (ms) | × lsof -n -P | peak RSS (MiB) | output lines |"
	echo "|---|---:|---:|---:|---:|---:|"
	for t in $TOOLS; do
		label=$(tool_label "$t")
		if [ ! -s "$tmp/$t.res" ]; then
			echo "| $label | n/a | | | | $(head -n 1 "$tmp/$t.fail" "$tmp/$t.stderr" 2>/dev/null | tail -n 1) |"
			continue
		fi
		med=$(cut -d' ' -f1 "$tmp/$t.res" | median)
		cpu=$(cut -d' ' -f3 "$tmp/$t.res" | median)
		rss=$(cut -d' ' -f2 "$tmp/$t.res" | sort -n | tail -n 1)
		awk -v l="$label" -v m="$med" -v u="$cpu" -v k="$rss" \
		    -v o="$(cat "$tmp/$t.lines")" -v r="$(paired "$t" lsof 1)" \
		    'BEGIN {
			printf "| %s | %.1f | %.1f | %s | %.1f | %d |\n", l,
			    m * 1000, u * 1000, r == "" ? "" : sprintf("%.2f", r),
			    k / 1024, o
		    }'
	done
	echo
	echo "Goals (issue 26; paired ratios, medians of the rounds'):"
	echo
	awk -v p="$(paired pidfd lsof 1)" -v b="$(paired bpf lsof 1)" '
	function goal(what, v, lim) {
		if (v == "" || v == "nan") { printf "- %s: n/a\n", what; return }
		printf "- %s: %.2f (goal <= %s) %s\n", what, v, lim,
		    v <= lim ? "met" : "MISSED"
	}
	BEGIN {
		goal("pfiles --via=pidfd on the fixture / lsof -n -P", p, 1.0)
		goal("pfiles --via=bpf on the fixture / lsof -n -P", b, 0.2)
	}'

	child=$(echo $children | cut -d' ' -f1)
	echo
	echo "fd links read (readlink or statx of /proc/PID/fd/N), fd"
	echo "directories listed and their getdents64 calls, under strace:"
	echo
	echo "| pfiles | links read | fd directories | getdents64 |"
	echo "|---|---:|---:|---:|"
	for src in pidfd bpf; do
		set -- $(links "$src" "$child")
		echo "| --via=$src, 1 child | $1 | $2 | $3 |"
		# shellcheck disable=SC2086
		set -- $(links "$src" $pids)
		echo "| --via=$src, the $((N + 1)) processes | $1 | $2 | $3 |"
	done
	stop_fixture
}

big() {
	[ "$BIG" -gt 0 ] || return 0
	start_fixture "$BIG" 64
	nfds=$(fds_here)
	child=$(echo $children | cut -d' ' -f1)
	echo
	echo "### One small process on a machine of $nfds fds"
	echo
	echo "A child of fixtures/machine ($BIG children of 64 socket pairs):"
	echo "its pairs' other ends are its own, its connection's the parent's."
	echo
	echo "| pfiles on the child | median wall (ms) | links read | fd directories | getdents64 |"
	echo "|---|---:|---:|---:|---:|"
	for src in pidfd bpf; do
		rm -f "$tmp/one.res"
		i=0
		while [ $i -lt "$RUNS" ]; do
			stat=$("$RUNSTAT" -o "$tmp/one.out" "$B/pfiles" \
			    --via="$src" "$child" 2>/dev/null) || break
			echo "$stat" | cut -d' ' -f1 >>"$tmp/one.res"
			i=$((i + 1))
		done
		med=$(median <"$tmp/one.res")
		set -- $(links "$src" "$child")
		awk -v s="$src" -v m="$med" -v a="$1" -v b="$2" -v c="$3" \
		    'BEGIN { printf "| --via=%s | %.1f | %d | %d | %d |\n", s, m * 1000, a, b, c }'
	done
	stop_fixture
}

mkdir -p "$B/bench"
{
	machine_info
	bench
	big
} >"$RESULTS"
cat "$RESULTS"
echo
echo "(written to $RESULTS)"
