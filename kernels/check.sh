#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# check.sh: make check-kernels.  The kyua suite's kernel-dependent test
# programs, inside each kernel of a list, booted under qemu (boot.sh),
# after the build check of the bpf program against each kernel's types
# (btfcheck.sh).  The host's build (make build-all, done by the Makefile
# first) is what runs in the guests: the host's / is their root.
#
#   KERNELS="linux-image-amd64 linux-image-6.12-amd64"  (the default:
#	Debian 12's current 6.1 and the 6.12 backport, followed from the
#	meta-packages to the newest image of each)
#   KERNELS_TEST_TIMEOUT=2400	seconds for the suite in one kernel (arm64: 900)
#
# Prints one line per kernel, "kernel KVER: N passed, N failed, N skipped
# (...)", the table of test programs by kernel, and last
#   kernels: KVER N passed, N failed, N skipped; KVER ...
# Exits 1 when a kernel fails a case, gives no results, or the build check
# fails.  What each kernel printed is in build/kernels/KVER/run/.
# KERNELS_ARCH=arm64 (make check-kernels-arm64): Debian's arm64 kernels
# (linux-image-arm64 linux-image-6.12-arm64) with the cross build
# (build-aarch64, KERNELS_BUILD) in an arm64 root (rootfs.sh), the
# programs of ARM64_PROGRAMS, and last "kernels-arm64: KVER ...".
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
cd "$REPO_ROOT" || exit 1

# The test programs whose cases depend on the kernel.  Left out: the pure
# ones (t_parsers, t_procfs_parse, t_pfiles_fmt, t_marshal, t_fuzz_replay:
# parsers, formatting and marshalling on bytes), the build's and the
# documents' (t_exports, t_docs, t_userdocs, t_build) and the read
# counter's own (t_preadcount, libc's entry points); and t_harm:stress,
# 67 s on the host and half an hour under TCG, whose agent paths t_harm's other cases cover; and
# t_fdshort:via_agent, 29 s on the host and some 8 minutes a kernel under
# TCG, whose rules (one fd at a time, no passing) are libproc's own, not
# the kernel's: the agent's kernel paths are t_agent_life's,
# t_agent_held's, t_agent_pass's and t_harm's, and t_fdshort's other
# cases run here.  And t_harm:deadline_in_exec_storm, which holds the
# agent to wall-clock bounds (its deadline, a second of stop) that TCG,
# tens of times slower, cannot keep: the agent's deadline is libproc's
# own clock, not the kernel's, and the host's suite proves it.  And
# t_json (some 80 s a kernel under TCG): -J writes the records the text
# is written from, which t_pfiles_fixture compares in every kernel.
PROGRAMS="t_libproc t_api t_pfiles_cli t_pfiles_pids t_truth
	t_pfiles_fixture t_node t_via t_agent_life t_agent_held t_harm
	t_pr_calls t_agent_pass t_budget t_budget_check t_seccomp
	t_seccomp_check t_seccomp_kernel t_hostile t_diag_parse
	t_diag_live t_diag t_bpf t_bpf_refused t_endpoint
	t_endpoint_ns t_race t_race_gone t_replaced t_syscalls t_machine
	t_fdshort t_cli_edges t_peer t_endpoint_edges t_fdtab t_tcpstates
	t_shared t_sockstate_local"
# And t_fdshort's leaderless cases but auto's: a process whose main
# thread has exited is examined through a thread pidfd (Linux 6.9) or,
# before, through the agent, which auto's case takes in these kernels;
# the others (some 40 s each under TCG) hold libproc's counting of its
# own fds, and the host's kernel and KERNELS_CASES run them.
SKIP_CASES="t_harm:stress t_fdshort:via_agent t_harm:deadline_in_exec_storm"
for c in agent diag n bpf pidfd; do
	SKIP_CASES="$SKIP_CASES t_fdshort:leaderless_$c"
done
# arm64 (KERNELS_ARCH=arm64, make check-kernels-arm64): TCG emulates
# another CPU, several times slower again, and CI's hour has room for
# about 20 minutes of it: the agent's whole life, every source, budgets,
# endpoints and bpf, chosen by their time (kernels/README has the
# measures and what is left out).  KERNELS_ARM64_PROGRAMS overrides.
ARM64_PROGRAMS="t_agent_life t_agent_held t_pr_calls t_agent_pass t_harm
	t_seccomp_kernel t_via t_diag t_bpf t_budget t_endpoint
	t_pfiles_fixture t_libproc t_api t_tcpstates t_sockstate_local"
# Also left out there: t_harm:exec_is_no_exit, dozens of agent runs
# against a process that execs every 30 ms, which ran past 10 minutes
# under arm64's TCG; what it proves (an exec is no exit) is the kernel's
# ptrace events, no register of the ISA, and amd64's guests run it.
if [ "$KERNELS_ARCH" = arm64 ]; then
	PROGRAMS=${KERNELS_ARM64_PROGRAMS:-$ARM64_PROGRAMS}
	SKIP_CASES="$SKIP_CASES t_harm:exec_is_no_exit"
fi
# How the host lists a test program's cases: a foreign one under
# qemu-user, with the guest's root for its libraries.
list_cases() {
	if [ -n "$ROOTFS" ]; then
		"qemu-$QEMU_USER_ARCH-static" -L "$ROOTFS" "$@" -l
	else
		"$@" -l
	fi
}

# arm64's bound keeps a hung suite inside CI's hour (both kernels).
if [ "$KERNELS_ARCH" = arm64 ]; then
	timeout=${KERNELS_TEST_TIMEOUT:-900}
else
	timeout=${KERNELS_TEST_TIMEOUT:-2400}
fi
kvers=$("$here/fetch.sh" ${KERNELS:-$DEFAULT_KERNEL_PKGS}) ||
    die "cannot fetch the kernels"
[ -n "$kvers" ] || die "no kernel to check"
# KVM or TCG: probed once, on the first kernel, for every boot.
decide_accel "${kvers%%$'\n'*}"

rc=0
"$here/btfcheck.sh" $kvers || rc=1

# The filters of the run: each program, or its cases less SKIP_CASES.
filters=
b=$GUEST_BUILD
for p in $PROGRAMS; do
	[ -x "$b/atf/$p" ] || die "$b/atf/$p: not built (make build-all)"
	case " $SKIP_CASES " in
	*" $p:"*)
		for c in $(list_cases "$b/atf/$p" | sed -n 's/^ident: //p'); do
			case " $SKIP_CASES " in
			*" $p:$c "*) ;;
			*) filters="$filters atf/$p:$c" ;;
			esac
		done ;;
	*)	filters="$filters atf/$p" ;;
	esac
done

# KERNELS_CASES="t_fdshort:leaderless_agent t_api ...": those alone, a
# case or a whole program each, SKIP_CASES or not.
if [ -n "${KERNELS_CASES:-}" ]; then
	filters=
	for c in $KERNELS_CASES; do
		filters="$filters atf/$c"
	done
fi

# log_count RESULT...: the cases of $out/kyua.log with one of the RESULTs.
log_count() {
	local re
	re=$(echo "$@" | tr ' ' '|')
	grep -cE "^atf/.*  ->  ($re)[: ]" "$out/kyua.log" 2>/dev/null
}

summary=
failures=
table=$KERNELS_DIR/table.txt
: >"$table"
for kver in $kvers; do
	out=$KERNELS_DIR/$kver/run
	rm -rf "$out"
	mkdir -p "$out"
	# The guest's command: the suite, its results kept in the guest's
	# /tmp (sqlite on 9p is not to be trusted), then the counts, the
	# failures' reports and the counts by program written to $OUT.
	cat >"$out/cmd" <<EOF
cd "$REPO_ROOT" || exit 1
export TMPDIR=/tmp
kyua test --kyuafile=Kyuafile --build-root=$b \\
    --results-file=/tmp/results.db$filters >\$OUT/kyua.log 2>&1
sh .ci/kyua-count.sh /tmp/results.db >\$OUT/count
kyua report --results-file=/tmp/results.db --verbose \\
    --results-filter=broken,failed >\$OUT/report.txt 2>&1
$b/bpfdump -v -q \$\$ >\$OUT/bpfdump.txt 2>&1
kyua db-exec --no-headers --results-file=/tmp/results.db \\
    "SELECT tp.relative_path, tr.result_type, count(*) FROM test_programs tp
     JOIN test_cases tc ON tc.test_program_id = tp.test_program_id
     JOIN test_results tr ON tr.test_case_id = tc.test_case_id
     GROUP BY 1, 2" >\$OUT/programs
EOF
	"$here/boot.sh" "$kver" "$out/cmd" "$out" "$timeout" >/dev/null
	st=$?
	if [ -s "$out/count" ]; then
		counts=$(sed 's/^kyua: //' "$out/count")
	else
		# The suite did not end (its bound): what kyua.log says was
		# done, and one failure more for the rest.
		counts="$(log_count passed expected_failure) passed,"
		counts="$counts $(($(log_count failed broken) + 1)) failed,"
		counts="$counts $(log_count skipped) skipped"
		echo "kernel $kver: no results (guest status $st): see $out;" \
		    "counted from its kyua.log, the suite's end one failure"
		rc=1
	fi
	failed=$(grep -E '^atf/.*  ->  (failed|broken)' "$out/kyua.log" 2>/dev/null)
	echo "kernel $kver: $counts"
	# The accelerator (boot.sh may have left KVM for TCG) and the boot.
	[ -s "$out/accel" ] && echo "  $(cat "$out/accel")"
	# The bpf program there: the verifier's work, the load and check.
	[ -s "$out/bpfdump.txt" ] && sed -n \
	    -e 's/^\(pfiles_[a-z_]*\): \([0-9]*\) instructions.*/  verifier: \1 \2 instructions/p' \
	    -e 's/^bpfdump: \(load+verify [0-9.]* ms\).*\(check [0-9.]* ms ([0-9]* files)\).*/  \1, \2/p' \
	    -e 's/^bpfdump: \(.*\)/  bpfdump: \1/p' "$out/bpfdump.txt" | sort -u
	[ -n "$failed" ] && {
		echo "$failed" | sed 's/^/  /'
		failures="$failures$(echo "$failed" | sed "s|^|$kver: |")
"
		rc=1
	}
	case $counts in *" 0 failed"*) ;; *) rc=1 ;; esac
	sed "s|^|$kver,|" "$out/programs" >>"$table" 2>/dev/null
	summary="$summary${summary:+; }$kver $counts"
done

# The table: a test program a line, passed/failed/skipped per kernel.
echo "test program by kernel (passed/failed/skipped):"
awk -F, -v kernels="$kvers" '
	{ n[$2 SUBSEP $1 SUBSEP $3] += $4; prog[$2] = 1 }
	END {
		nk = split(kernels, k, /[ \n]+/)
		line = sprintf("%-20s", "")
		for (i = 1; i <= nk; i++) line = line sprintf(" %22s", k[i])
		print line
		for (p in prog) {
			line = sprintf("%-20s", p)
			for (i = 1; i <= nk; i++) {
				pass = n[p, k[i], "passed"] + \
				    n[p, k[i], "expected_failure"]
				fail = n[p, k[i], "failed"] + n[p, k[i], "broken"]
				skip = n[p, k[i], "skipped"] + 0
				line = line sprintf(" %22s", pass "/" fail "/" \
				    skip)
			}
			print line | "sort"
		}
	}' "$table"
# The failures again, after the table, where a log's tail shows them,
# each with the end of what the case wrote (its report in run/report.txt).
[ -n "$failures" ] && {
	echo "failed in the kernels:"
	printf '%s' "$failures" | sed 's/^/  /'
	for kver in $kvers; do
		r=$KERNELS_DIR/$kver/run/report.txt
		[ -s "$r" ] && sed -n '/^===> atf\//,/^===> Summary/p' "$r" |
		    tail -n 40 | sed "s|^|  $kver: |"
	done
}
echo "$KERNELS_LABEL: $summary"
exit $rc
