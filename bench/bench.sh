#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# bench.sh BUILD_DIR TOP: pfiles against lsof, lsfd and ss (make bench).
#
# pfiles is timed with each source of socket facts: --via=pidfd,
# --via=agent, --via=diag and --via=bpf.  Its output includes the
# endpoint lines (the holders of each local socket's other end, here the
# fixture's own fds); --via=pidfd and --via=diag are timed without them
# too (--no-endpoints), for what the lines cost.  ss -tanp is system-wide
# (every TCP socket of the network namespace, and every process's fds for
# -p), the others examine the fixture alone.
#
# With BENCH_BASELINE (a git revision of this tree; "" for none), pfiles
# as it was at that revision is built (git archive, into
# BUILD_DIR/bench/baseline) and timed with --via=pidfd too, for the
# goals that are set against it.
#
# For each N in BENCH_NS (default "1000 10000") it starts the node fixture
# (fixtures/sockets.js: 1 + 2N sockets in one process, loopback only),
# raising RLIMIT_NOFILE as needed, runs every tool once as a warm-up, then
# BENCH_RUNS (default 7) rounds of all of them, the order rotated each round
# so that no tool always runs first or last.  It prints, as markdown, the
# median wall time of each, its median CPU time (user + system, its
# threads and children included), its ratios to pfiles --via=pidfd and to
# ss -tanp (medians of the same run), and the peak RSS over all runs, then
# the issues' goals, whose ratios are the medians of the rounds' own
# ratios (each pair ran in the same round, seconds apart: lsof's CPU time
# alone moves by a fifth from run to run on this kind of VM).  The same
# text goes to BUILD_DIR/bench/results.md.
#
# Then, with the fixture still up, pfiles' text formatter alone:
# bench/fmtbench walks it once (--via=bpf, else pidfd) into records in
# memory and times BENCH_FMT_PASSES (default 20) passes of pf_file() over
# them into /dev/null through pfiles' 64 KiB stdio buffer; one more pass
# is checked byte for byte against pfiles' own output.
#
# Then, untimed, each pfiles source once under strace -f -c (pfiles and
# its worker threads; when strace is installed): its system calls in all,
# and per socket (all / sockets); with more than one N, the slope between
# the two largest, which leaves out the fixed part.  The agent's count is
# pfiles' own: the calls it injects into the target are made by the
# target's thread, which strace does not follow.
#
# Times come from bench/runstat (fork to reap, CLOCK_MONOTONIC; peak RSS
# and CPU time from wait4).  Each tool's stdout goes to a file, not a
# terminal.

set -u

B=${1:?usage: bench.sh BUILD_DIR TOP}
TOP=${2:?usage: bench.sh BUILD_DIR TOP}
NS=${BENCH_NS:-"1000 10000"}
RUNS=${BENCH_RUNS:-7}
RUNSTAT=$B/bench/runstat
FMTBENCH=$B/bench/fmtbench
FMT_PASSES=${BENCH_FMT_PASSES:-20}
RESULTS=$B/bench/results.md
TOOLS="pfiles-pidfd pfiles-agent pfiles-diag pfiles-bpf pfiles-pidfd-noep"
TOOLS="$TOOLS pfiles-diag-noep lsof lsfd ss"
PFILES_TOOLS="pfiles-pidfd pfiles-agent pfiles-diag pfiles-bpf"
PFILES_TOOLS="$PFILES_TOOLS pfiles-pidfd-noep pfiles-diag-noep"
BASELINE=${BENCH_BASELINE-}
BASE_PFILES=$B/bench/baseline/build/pfiles

tmp=$(mktemp -d "${TMPDIR:-/tmp}/bench.XXXXXX") || exit 1
. "$TOP/bench/lib.sh"
fixpid=

stop_fixture() {
	[ -n "$fixpid" ] || return 0
	exec 9>&-		# stdin EOF: sockets.js exits by itself
	i=0
	while kill -0 "$fixpid" 2>/dev/null && [ $i -lt 50 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kill -TERM "$fixpid" 2>/dev/null
	sleep 0.2
	kill -KILL "$fixpid" 2>/dev/null
	wait "$fixpid" 2>/dev/null
	fixpid=
}

cleanup() {
	stop_fixture
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

die() {
	echo "bench: $*" >&2
	exit 1
}

for t in node lsof lsfd ss; do
	command -v $t >/dev/null 2>&1 || die "$t not found (make deps)"
done
[ -x "$B/pfiles" ] || die "$B/pfiles not built"
[ -x "$RUNSTAT" ] || die "$RUNSTAT not built"

# The command line of tool T on pid P.
tool_cmd() {
	case $1 in
	pfiles-pidfd)	echo "$B/pfiles --via=pidfd $2" ;;
	pfiles-agent)	echo "$B/pfiles --via=agent $2" ;;
	pfiles-diag)	echo "$B/pfiles --via=diag $2" ;;
	pfiles-bpf)	echo "$B/pfiles --via=bpf $2" ;;
	pfiles-pidfd-noep) echo "$B/pfiles --no-endpoints --via=pidfd $2" ;;
	pfiles-diag-noep) echo "$B/pfiles --no-endpoints --via=diag $2" ;;
	pfiles-base)	echo "$BASE_PFILES --via=pidfd $2" ;;
	lsof)		echo "lsof -p $2" ;;
	lsfd)		echo "lsfd -p $2" ;;
	ss)		echo "ss -tanp" ;;
	esac
}

tool_label() {
	case $1 in
	pfiles-pidfd)	echo "pfiles --via=pidfd" ;;
	pfiles-agent)	echo "pfiles --via=agent" ;;
	pfiles-diag)	echo "pfiles --via=diag" ;;
	pfiles-bpf)	echo "pfiles --via=bpf" ;;
	pfiles-pidfd-noep) echo "pfiles --no-endpoints --via=pidfd" ;;
	pfiles-diag-noep) echo "pfiles --no-endpoints --via=diag" ;;
	pfiles-base)	echo "pfiles --via=pidfd at $BASELINE (baseline)" ;;
	lsof)		echo "lsof -p" ;;
	lsfd)		echo "lsfd -p" ;;
	ss)		echo "ss -tanp (system-wide)" ;;
	esac
}

# Make room for NEED fds in this shell and so in its children, as far as
# the hard limit allows (raising it needs CAP_SYS_RESOURCE).  Prints the
# soft limit reached.
raise_nofile() {
	need=$1
	soft=$(ulimit -S -n)
	hard=$(ulimit -H -n)
	if [ "$soft" = unlimited ] || [ "$soft" -ge "$need" ]; then
		echo "$soft"
		return 0
	fi
	if [ "$hard" != unlimited ] && [ "$hard" -lt "$need" ] &&
	    ulimit -H -n "$need" 2>/dev/null; then
		hard=$need
	fi
	[ "$hard" = unlimited ] || [ "$hard" -ge "$need" ] || need=$hard
	ulimit -S -n "$need" || die "cannot raise RLIMIT_NOFILE to $need"
	echo "$need"
}

# Start sockets.js with N connections; sets fixpid and pid.
start_fixture() {
	n=$1
	rm -f "$tmp/in" "$tmp/fix.out" "$tmp/fix.err"
	mkfifo "$tmp/in" || die "mkfifo"
	node "$TOP/fixtures/sockets.js" "$n" 1800 <"$tmp/in" \
	    >"$tmp/fix.out" 2>"$tmp/fix.err" &
	fixpid=$!
	exec 9>"$tmp/in"	# held open: the fixture lives until we close it
	i=0
	while ! grep -q '^opened ' "$tmp/fix.out" 2>/dev/null; do
		kill -0 "$fixpid" 2>/dev/null ||
		    die "sockets.js $n died: $(cat "$tmp/fix.err")"
		[ $i -lt 1200 ] || die "sockets.js $n: not up after 120 s"
		sleep 0.1
		i=$((i + 1))
	done
	pid=$(sed -n 's/^opened [0-9]* sockets, pid = \([0-9]*\)$/\1/p' \
	    "$tmp/fix.out")
	[ -n "$pid" ] || die "sockets.js $n: no pid in its output"
}


# One timed run of tool T on pid P: appends "WALL RSS CPU" to its file.
run_tool() {
	t=$1
	# shellcheck disable=SC2046
	set -- $(tool_cmd "$t" "$pid")
	stat=$("$RUNSTAT" -o "$tmp/$t.stdout" "$@" 2>>"$tmp/$t.stderr") ||
	    die "runstat $t failed"
	set -- $stat
	if [ "$3" != 0 ]; then
		echo "$t: exit status $3" >>"$tmp/$t.fail"
		return 1
	fi
	echo "$1 $2 $4" >>"$tmp/$t.res"
}

# The system calls of pfiles tool T on pid P, under strace -f -c (its
# threads included): prints the total, or nothing when it cannot say.
count_syscalls() {
	command -v strace >/dev/null 2>&1 || return 0
	# shellcheck disable=SC2046
	set -- $(tool_cmd "$1" "$pid")
	strace -f -c -o "$tmp/strace.out" "$@" >/dev/null 2>>"$tmp/strace.err" ||
	    return 0
	awk '$NF == "total" { print $4 }' "$tmp/strace.out"
}


# Room the fixture needs beyond its 1 + 2N sockets (node's own fds).
FD_MARGIN=100

bench_n() {
	n=$1
	asked=$1
	note=
	# Not in a command substitution: the limit must change in this shell.
	raise_nofile $((2 * n + 1 + FD_MARGIN)) >"$tmp/limit"
	limit=$(cat "$tmp/limit")
	if [ "$limit" != unlimited ] &&
	    [ $((2 * n + 1 + FD_MARGIN)) -gt "$limit" ]; then
		note="reduced from $n: RLIMIT_NOFILE is capped at $limit here"
		note="$note and cannot be raised (no CAP_SYS_RESOURCE)"
		n=$(((limit - 1 - FD_MARGIN) / 2))
		echo "bench: $note; running $n" >&2
	fi
	start_fixture "$n"
	echo "bench: $n connections up (pid $pid); warm-up" >&2
	avail=
	for t in $TOOLS; do
		rm -f "$tmp/$t.res" "$tmp/$t.fail" "$tmp/$t.stderr"
		if run_tool "$t"; then		# warm-up, not counted
			avail="$avail $t"
			lines=$(wc -l <"$tmp/$t.stdout")
			echo "$lines" >"$tmp/$t.lines"
		fi
		rm -f "$tmp/$t.res"
	done
	r=0
	while [ $r -lt "$RUNS" ]; do
		echo "bench: $n connections, round $((r + 1)) of $RUNS" >&2
		for t in $(rotated $r); do
			case " $avail " in
			*" $t "*) run_tool "$t" || true ;;
			esac
		done
		r=$((r + 1))
	done
	for t in $avail; do
		echo "bench: $n connections, $t, wall/CPU ms by round:" \
		    "$(awk '{ printf "%s%.1f/%.1f", s, $1 * 1000, $3 * 1000; s = " " }' \
		    "$tmp/$t.res")" >&2
	done
	for t in $PFILES_TOOLS; do
		case " $avail " in
		*" $t "*)
			echo "bench: $n connections, $t under strace -f -c" >&2
			c=$(count_syscalls "$t")
			[ -z "$c" ] || echo "$n $((2 * n + 1)) $c" >>"$tmp/$t.sys"
			;;
		esac
	done
	fmt_bench
	stop_fixture

	echo
	echo "### $n connections ($((2 * n + 1)) sockets), $RUNS runs each"
	echo
	[ -z "$note" ] || { echo "($note.)"; echo; }
	echo "pfiles' output includes the endpoint lines but with --no-endpoints."
	echo
	echo "| tool | median wall (ms) | median CPU (ms) | × pfiles --via=pidfd | × ss -tanp | peak RSS (MiB) | output lines | system calls (per socket) |"
	echo "|---|---:|---:|---:|---:|---:|---:|---:|"
	base=$(cut -d' ' -f1 "$tmp/pfiles-pidfd.res" 2>/dev/null | median)
	ssbase=$(cut -d' ' -f1 "$tmp/ss.res" 2>/dev/null | median)
	for t in $TOOLS; do
		label=$(tool_label "$t")
		if [ ! -s "$tmp/$t.res" ]; then
			why=$(head -n 1 "$tmp/$t.stderr" 2>/dev/null)
			echo "| $label | n/a | | | | | ${why:-failed} | |"
			continue
		fi
		med=$(cut -d' ' -f1 "$tmp/$t.res" | median)
		cpu=$(cut -d' ' -f3 "$tmp/$t.res" | median)
		rss=$(cut -d' ' -f2 "$tmp/$t.res" | sort -n | tail -n 1)
		sys=$(awk -v n="$n" '$1 == n { print $3 }' "$tmp/$t.sys" \
		    2>/dev/null)
		echo "$t $med $rss $cpu" >>"$tmp/summary.$n"
		awk -v l="$label" -v m="$med" -v b="$base" -v s="$ssbase" \
		    -v u="$cpu" \
		    -v k="$rss" -v o="$(cat "$tmp/$t.lines")" -v c="${sys:-}" \
		    -v socks=$((2 * n + 1)) -v pf="$t" 'BEGIN {
			ratio = (b == "nan" || b == "" || b == 0) ? "" : \
			    sprintf("%.2f", m / b)
			sratio = (s == "nan" || s == "" || s == 0) ? "" : \
			    sprintf("%.2f", m / s)
			if (c != "")
				calls = sprintf("%d (%.1f)", c, c / socks)
			else if (pf ~ /^pfiles-/)
				calls = "n/a (no strace)"
			else
				calls = ""
			printf "| %s | %.1f | %.1f | %s | %s | %.1f | %d | %s |\n", \
			    l, m * 1000, u * 1000, ratio, sratio, k / 1024, o, \
			    calls
		    }'
	done
	goals "$n" "$asked"
	fmt_report "$n"
}

# pfiles' formatter alone on the fixture's records (bench/fmtbench): one
# walk, then FMT_PASSES timed passes of pf_file(); one more pass checked
# against pfiles' own output of the same source (its header's two lines
# left out).  Writes $tmp/fmt.N: "SOURCE RECORDS LINES BYTES WALK_MS
# MEDIAN_MS MIN_MS CPU_MS SAME".
fmt_bench() {
	[ -x "$FMTBENCH" ] || return 0
	for src in bpf pidfd; do
		case " $avail " in
		*" pfiles-$src "*) ;;
		*) continue ;;
		esac
		echo "bench: $n connections, formatter alone (records via $src)" >&2
		fr=$("$FMTBENCH" -v "$src" -n "$FMT_PASSES" -o "$tmp/fmt.out" \
		    "$pid" 2>>"$tmp/fmt.err") || continue
		"$B/pfiles" --via="$src" "$pid" 2>/dev/null | tail -n +3 |
		    cmp -s - "$tmp/fmt.out" && same=yes || same=no
		echo "$src $fr $same" >"$tmp/fmt.$n"
		return 0
	done
}

fmt_report() {
	[ -s "$tmp/fmt.$1" ] || return 0
	# shellcheck disable=SC2046
	set -- $(cat "$tmp/fmt.$1") "$1"
	tot=$(awk -v t="pfiles-$1" '$1 == t { print $2 }' "$tmp/summary.${10}")
	echo
	echo "Formatting only (bench/fmtbench: pf_file() over the $2 records" \
	    "of one --via=$1 walk, into /dev/null through pfiles' 64 KiB" \
	    "stdio buffer; median of $FMT_PASSES passes):"
	awk -v src="$1" -v recs="$2" -v lines="$3" -v bytes="$4" \
	    -v walk="$5" -v med="$6" -v min="$7" -v cpu="$8" -v tot="${tot:-}" \
	    -v same="$9" 'BEGIN {
		printf "- %.1f ms per pass (min %.1f, CPU %.1f), %d lines, " \
		    "%.1f MB: %.0f ns per line, %.0f MB/s", med, min, cpu, \
		    lines, bytes / 1e6, med * 1e6 / lines, \
		    bytes / 1e3 / med
		if (tot != "")
			printf "; %.0f%% of pfiles --via=%s'"'"'s median wall", \
			    100 * med / (tot * 1000), src
		printf "\n"
		printf "- the walk that made the records, in process " \
		    "(--via=%s, copies kept): %.1f ms\n", src, walk
		printf "- its output %s pfiles --via=%s'"'"'s (less the " \
		    "header)\n", same == "yes" ? "is byte for byte" : \
		    "DIFFERS from", src
	    }'
}

# System calls per socket added, between the two largest N (the fixed
# part left out), for each pfiles source counted at both.
slopes() {
	# shellcheck disable=SC2086
	set -- $NS
	[ $# -ge 2 ] || return 0
	printed=
	for t in $PFILES_TOOLS; do
		[ -s "$tmp/$t.sys" ] || continue
		line=$(sort -n "$tmp/$t.sys" | tail -n 2 | awk '
		    NR == 1 { s0 = $2; c0 = $3 } NR == 2 { s1 = $2; c1 = $3 }
		    END { if (NR == 2 && s1 > s0)
			printf "%.2f (%d calls at %d sockets, %d at %d)", \
			    (c1 - c0) / (s1 - s0), c0, s0, c1, s1 }')
		[ -n "$line" ] || continue
		if [ -z "$printed" ]; then
			echo
			echo "### System calls per socket added (strace -f -c of pfiles and its threads)"
			echo
			printed=1
		fi
		echo "- $(tool_label "$t"): $line"
	done
}

# Peak RSS per socket added, between the two largest N, for each pfiles
# source: what its memory grows by with the fds (the socket index, the
# socket tables' records), the fixed part left out.
mem_slopes() {
	# The sizes run (one may have been reduced to what RLIMIT_NOFILE
	# allows): the two largest.
	# shellcheck disable=SC2046
	set -- $(ls "$tmp" | sed -n 's/^summary\.\([0-9]*\)$/\1/p' |
	    sort -n | tail -n 2)
	[ $# -eq 2 ] || return 0
	echo
	echo "### Peak RSS per socket added ($((2 * $1 + 1)) to $((2 * $2 + 1)) sockets)"
	echo
	for t in $PFILES_TOOLS; do
		a=$(awk -v t="$t" '$1 == t { print $3 }' "$tmp/summary.$1")
		b=$(awk -v t="$t" '$1 == t { print $3 }' "$tmp/summary.$2")
		[ -n "$a" ] && [ -n "$b" ] || continue
		awk -v l="$(tool_label "$t")" -v a="$a" -v b="$b" \
		    -v s=$((2 * ($2 - $1))) 'BEGIN {
			printf "- %s: %.0f bytes (%.1f to %.1f MiB)\n", l,
			    (b - a) * 1024 / s, a / 1024, b / 1024
		    }'
	done
}


# The issues' goals, for the fixture of N connections (asked for as
# ASKED): binding at the largest size asked for only.  Each ratio is the
# median of the rounds' ratios (paired()), or, when a run failed, the
# ratio of the two medians.
goals() {
	s=$tmp/summary.$1
	get() { awk -v t="$1" -v f="$2" '$1 == t { print $f }' "$s"; }
	pidfd=$(get pfiles-pidfd 2); agent=$(get pfiles-agent 2)
	diag=$(get pfiles-diag 2); ss=$(get ss 2)
	lsof=$(get lsof 2); lsfd=$(get lsfd 2)
	bpf=$(get pfiles-bpf 2); bpfcpu=$(get pfiles-bpf 4)
	lsofcpu=$(get lsof 4); pidfdcpu=$(get pfiles-pidfd 4)
	pnoep=$(get pfiles-pidfd-noep 2); dnoep=$(get pfiles-diag-noep 2)
	base=$(get pfiles-base 2)
	psys=$(awk -v n="$1" '$1 == n { printf "%.2f", $3 / $2 }' \
	    "$tmp/pfiles-pidfd.sys" 2>/dev/null)
	prss=$(cat "$tmp"/pfiles-*.res 2>/dev/null | cut -d' ' -f2 | sort -n |
	    tail -n 1)
	echo
	if [ "$2" = "$(echo $NS | tr ' ' '\n' | sort -n | tail -n 1)" ]; then
		echo "Goals (the issues set them at the largest size, this one):"
	else
		echo "Goals, for reference only: the issues set them at the" \
		    "largest size, where the fixed costs (loading the bpf" \
		    "program, starting up) weigh less:"
	fi
	echo
	drss=$(cut -d' ' -f2 "$tmp/pfiles-diag.res" 2>/dev/null | sort -n |
	    tail -n 1)
	brss=$(cut -d' ' -f2 "$tmp/pfiles-bpf.res" 2>/dev/null | sort -n |
	    tail -n 1)
	awk -v p="${pidfd:-}" -v a="${agent:-}" -v lo="${lsof:-}" \
	    -v ld="${lsfd:-}" -v rss="${prss:-}" -v d="${diag:-}" \
	    -v ss="${ss:-}" -v drss="${drss:-}" -v b="${bpf:-}" \
	    -v bc="${bpfcpu:-}" -v lc="${lsofcpu:-}" -v brss="${brss:-}" \
	    -v r_p_lo="$(paired pfiles-pidfd lsof 1)" \
	    -v r_p_ld="$(paired pfiles-pidfd lsfd 1)" \
	    -v r_a_lo="$(paired pfiles-agent lsof 1)" \
	    -v r_d_ss="$(paired pfiles-diag ss 1)" \
	    -v r_d_p="$(paired pfiles-diag pfiles-pidfd 1)" \
	    -v r_b_lo="$(paired pfiles-bpf lsof 1)" \
	    -v r_b_p="$(paired pfiles-bpf pfiles-pidfd 1)" \
	    -v r_bc_lc="$(paired pfiles-bpf lsof 3)" \
	    -v pc="${pidfdcpu:-}" -v r_pc_lc="$(paired pfiles-pidfd lsof 3)" \
	    -v psys="${psys:-}" -v base="${base:-}" -v rev="$BASELINE" \
	    -v r_d_base="$(paired pfiles-diag pfiles-base 1)" \
	    -v pn="${pnoep:-}" -v r_p_pn="$(paired pfiles-pidfd pfiles-pidfd-noep 1)" \
	    -v dn="${dnoep:-}" -v r_d_dn="$(paired pfiles-diag pfiles-diag-noep 1)" \
	    'function ratio(r, x, y) {
		if (r != "" && r != "nan") return r
		return (x != "" && y != "" && y > 0) ? x / y : ""
	    }
	    function goal(what, v, lim,
	    op) {
		if (v == "") { printf "- %s: n/a\n", what; return }
		ok = (op == "<=") ? v <= lim : v < lim
		printf "- %s: %.2f (goal %s %s) %s\n", what, v, op, lim,
		    ok ? "met" : "MISSED"
	    }
	    BEGIN {
		goal("pfiles --via=pidfd / lsof -p", ratio(r_p_lo, p, lo), 0.5, "<=")
		goal("pfiles --via=pidfd / lsfd -p", ratio(r_p_ld, p, ld), 0.5, "<=")
		goal("pfiles --via=pidfd CPU time (user+sys) / lsof -p CPU time", ratio(r_pc_lc, pc, lc), 1.0, "<=")
		goal("pfiles --via=pidfd system calls per socket (strace -f -c)", psys, 8, "<=")
		goal("pfiles --via=pidfd with endpoint lines / without (--no-endpoints)", ratio(r_p_pn, p, pn), 1.1, "<=")
		goal("pfiles --via=agent / lsof -p", ratio(r_a_lo, a, lo), 3, "<=")
		goal("pfiles --via=diag / ss -tanp", ratio(r_d_ss, d, ss), 0.5, "<=")
		if (base != "")
			goal("pfiles --via=diag / pfiles --via=pidfd at " rev " (baseline)", ratio(r_d_base, d, base), 0.5, "<=")
		else
			goal("pfiles --via=diag / pfiles --via=pidfd", ratio(r_d_p, d, p), 0.5, "<=")
		goal("pfiles --via=diag with endpoint lines / without (--no-endpoints)", ratio(r_d_dn, d, dn), 1.1, "<=")
		goal("pfiles --via=diag peak RSS, MiB", drss != "" ? drss / 1024 : "", 16, "<")
		goal("pfiles --via=bpf / lsof -p", ratio(r_b_lo, b, lo), 0.2, "<=")
		goal("pfiles --via=bpf / pfiles --via=pidfd", ratio(r_b_p, b, p), 0.35, "<=")
		goal("pfiles --via=bpf CPU time (user+sys) / lsof -p CPU time", ratio(r_bc_lc, bc, lc), 0.2, "<=")
		goal("pfiles --via=bpf peak RSS, MiB", brss != "" ? brss / 1024 : "", 16, "<")
		goal("pfiles peak RSS, MiB", rss != "" ? rss / 1024 : "", 16, "<")
	    }'
}

machine() {
	cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
	mem=$(awk '/^MemTotal:/ { printf "%.0f GiB", $2 / 1048576 }' \
	    /proc/meminfo)
	echo "## make bench, $(date -u '+%Y-%m-%d %H:%M UTC')"
	echo
	echo "pfiles with every source of socket facts, endpoint lines included"
	echo "(and without, --no-endpoints, for pidfd and diag)."
	[ -z "$BASELINE_NOTE" ] || { echo; echo "$BASELINE_NOTE."; }
	echo
	echo "Machine: $(uname -srm), ${cpu:-unknown CPU}, $(nproc) CPUs, $mem."
	echo "Tools: lsof $(lsof -v 2>&1 | sed -n 's/^ *revision: //p' | head -n 1)," \
	    "$(lsfd --version 2>&1 | head -n 1)," \
	    "$(ss -V 2>&1 | head -n 1)," \
	    "node $(node --version)."
}

# pfiles as it was at BASELINE, built once into $B/bench/baseline (again
# only for another revision): adds the tool pfiles-base, or says in
# BASELINE_NOTE why there is none.
BASELINE_NOTE=
build_baseline() {
	[ -n "$BASELINE" ] || return 0
	base=$B/bench/baseline
	if ! rev=$(git -C "$TOP" rev-parse --verify -q \
	    "$BASELINE^{commit}" 2>/dev/null); then
		BASELINE_NOTE="No baseline: $BASELINE is not a revision of this"
		BASELINE_NOTE="$BASELINE_NOTE checkout (no git history here)"
		return 0
	fi
	if [ ! -x "$BASE_PFILES" ] || [ "$(cat "$base/REVISION" 2>/dev/null)" != "$rev" ]; then
		echo "bench: building the baseline, pfiles at $BASELINE" >&2
		rm -rf "$base"
		mkdir -p "$base" &&
		    git -C "$TOP" archive "$rev" | tar -x -C "$base" &&
		    make -C "$base" B="$base/build" "$base/build/pfiles" \
		    >"$tmp/baseline.log" 2>&1 &&
		    echo "$rev" >"$base/REVISION" || {
			BASELINE_NOTE="No baseline: pfiles at $BASELINE did not"
			BASELINE_NOTE="$BASELINE_NOTE build ($(tail -n 1 \
			    "$tmp/baseline.log" 2>/dev/null))"
			return 0
		}
	fi
	TOOLS="$TOOLS pfiles-base"
	PFILES_TOOLS="$PFILES_TOOLS pfiles-base"
}

# Not a pipeline into tee: that would run the benchmark in a subshell,
# out of reach of the cleanup trap.
mkdir -p "$B/bench"
build_baseline
{
	machine
	for n in $NS; do
		bench_n "$n"
	done
	slopes
	mem_slopes
} >"$RESULTS"
cat "$RESULTS"
echo
echo "(written to $RESULTS)"
