/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_procfs_parse: unit tests of the pure parsers of /proc's text
 * (core/procfs_parse.c): stat, cmdline, limits, status and maps;
 * t_parsers holds fdinfo's and the records', t_pfiles_fmt pfiles'
 * formatting.
 */
#include "parsers_util.h"

ATF_TC_WITHOUT_HEAD(stat_line);
ATF_TC_BODY(stat_line, tc)
{
	/* A comm with spaces and parentheses. */
	const char s[] = "4242 (a) b) (c) S 17 4242 4242 0 -1 4194560 99 0";
	const char k[] = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0";
	/* A whole line, as a thread killed in its group's exit has it. */
	const char kill[] = "77 (t 1) S 1 77 77 0 -1 1077936448 10 0 0 0 "
	    "1 2 0 0 20 0 2 0 500 1000 100 18446744073709551615 1 1 0 0 0 "
	    "256 0 0 0 0 0 0 17 1 0 0 0 0 0";
	const char nokill[] = "77 (t) S 1 77 77 0 -1 1077936448 10 0 0 0 "
	    "1 2 0 0 20 0 2 0 500 1000 100 18446744073709551615 1 1 0 0 0 "
	    "0 0 0 16384 0 0 0 17 1 0 0 0 0 0";
	procstat_t ps;

	ATF_REQUIRE_EQ(procfs_parse_stat(s, strlen(s), &ps), 0);
	ATF_CHECK_EQ(ps.ps_state, 'S');
	ATF_CHECK_EQ(ps.ps_ppid, 17);
	ATF_CHECK_EQ(ps.ps_flags, 4194560);
	ATF_CHECK((ps.ps_flags & PF_KTHREAD_FLAG) == 0);
	ATF_CHECK_EQ(ps.ps_sigpnd, 0);	/* the line ends before it */
	ATF_REQUIRE_EQ(procfs_parse_stat(k, strlen(k), &ps), 0);
	ATF_CHECK((ps.ps_flags & PF_KTHREAD_FLAG) != 0);
	/* Field 31, the thread's pending signals: SIGKILL (256) here. */
	ATF_REQUIRE_EQ(procfs_parse_stat(kill, strlen(kill), &ps), 0);
	ATF_CHECK_EQ(ps.ps_state, 'S');
	ATF_CHECK_EQ(ps.ps_flags, 1077936448);
	ATF_CHECK_EQ(ps.ps_sigpnd, 256);
	ATF_REQUIRE_EQ(procfs_parse_stat(nokill, strlen(nokill), &ps), 0);
	ATF_CHECK_EQ(ps.ps_sigpnd, 0);

	ATF_CHECK_EQ(procfs_parse_stat("", 0, &ps), -1);
	ATF_CHECK_EQ(procfs_parse_stat("1 (x)", 5, &ps), -1);
	ATF_CHECK_EQ(procfs_parse_stat("1 (x) Z", 7, &ps), -1);
	ATF_CHECK_EQ(procfs_parse_stat("1 (x) Z 1 2 3 4", 15, &ps), -1);
}

ATF_TC_WITHOUT_HEAD(cmdline);
ATF_TC_BODY(cmdline, tc)
{
	const char c[] = "node\0sockets.js\0" "100";	/* + final NUL */
	char out[PRARGSZ];

	ATF_CHECK_EQ(procfs_cmdline_to_args(c, sizeof (c), out,
	    sizeof (out)), 19);
	ATF_CHECK_STREQ(out, "node sockets.js 100");
	/* No final NUL (a process that rewrote its arguments). */
	ATF_CHECK_EQ(procfs_cmdline_to_args("ab\0c", 4, out, sizeof (out)), 4);
	ATF_CHECK_STREQ(out, "ab c");
	/* Cut to the buffer, always terminated. */
	ATF_CHECK_EQ(procfs_cmdline_to_args("abcdef", 6, out, 4), 3);
	ATF_CHECK_STREQ(out, "abc");
	ATF_CHECK_EQ(procfs_cmdline_to_args("", 0, out, sizeof (out)), 0);
	ATF_CHECK_STREQ(out, "");
	/* One empty argument: its NUL ends it, nothing is shown. */
	ATF_CHECK_EQ(procfs_cmdline_to_args("", 1, out, sizeof (out)), 0);
	ATF_CHECK_STREQ(out, "");
	/* Rewritten in place: NULs to the old area's end are no arguments. */
	ATF_CHECK_EQ(procfs_cmdline_to_args("redis *:6379\0\0\0\0", 16, out,
	    sizeof (out)), 12);
	ATF_CHECK_STREQ(out, "redis *:6379");
	/* An empty argument before another is one. */
	ATF_CHECK_EQ(procfs_cmdline_to_args("a\0\0b\0\0", 6, out,
	    sizeof (out)), 4);
	ATF_CHECK_STREQ(out, "a  b");
	ATF_CHECK_EQ(procfs_cmdline_to_args("\0\0\0", 3, out, sizeof (out)),
	    0);
	ATF_CHECK_STREQ(out, "");
}

static const char limits_text[] =
    "Limit                     Soft Limit           Hard Limit           "
    "Units     \n"
    "Max cpu time              unlimited            unlimited            "
    "seconds   \n"
    "Max open files            1024                 1048576              "
    "files     \n"
    "Max locked memory         8388608              unlimited            "
    "bytes     \n"
    "Max file locks            unlimited            unlimited            "
    "locks     \n";

ATF_TC_WITHOUT_HEAD(limits);
ATF_TC_BODY(limits, tc)
{
	struct rlimit rl;

	ATF_REQUIRE_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    RLIMIT_NOFILE, &rl), 0);
	ATF_CHECK_EQ(rl.rlim_cur, 1024);
	ATF_CHECK_EQ(rl.rlim_max, 1048576);
	ATF_REQUIRE_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    RLIMIT_CPU, &rl), 0);
	ATF_CHECK(rl.rlim_cur == RLIM_INFINITY && rl.rlim_max ==
	    RLIM_INFINITY);
	ATF_REQUIRE_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    RLIMIT_MEMLOCK, &rl), 0);
	ATF_CHECK_EQ(rl.rlim_cur, 8388608);
	ATF_CHECK(rl.rlim_max == RLIM_INFINITY);
	/* Missing line, unknown resource, truncated line. */
	ATF_CHECK_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    RLIMIT_NPROC, &rl), -1);
	ATF_CHECK_EQ(procfs_parse_limits(limits_text, strlen(limits_text),
	    99, &rl), -1);
	ATF_CHECK_EQ(procfs_parse_limits("Max open files            1024",
	    30, RLIMIT_NOFILE, &rl), -1);
	/* A longer name that starts with the name is another limit. */
	{
		static const char t[] =
		    "Max open filesystems      7                    9"
		    "                    fs        \n"
		    "Max open files            1024                 4096"
		    "                 files     \n";

		ATF_REQUIRE_EQ(procfs_parse_limits(t, strlen(t),
		    RLIMIT_NOFILE, &rl), 0);
		ATF_CHECK_EQ(rl.rlim_cur, 1024);
		ATF_CHECK_EQ(rl.rlim_max, 4096);
	}
}

/* procfs_parse_status on exactly len bytes, in a buffer of that size. */
static procstatus_t
status_of(const char *text, size_t len)
{
	procstatus_t pst;
	char *copy = malloc(len > 0 ? len : 1);

	ATF_REQUIRE(copy != NULL);
	memcpy(copy, text, len);
	memset(&pst, 0x5a, sizeof (pst));	/* every field is set */
	procfs_parse_status(copy, len, &pst);
	free(copy);
	return (pst);
}

#define	STATUS_OF(s)	status_of((s), sizeof (s) - 1)

ATF_TC_WITHOUT_HEAD(status);
ATF_TC_BODY(status, tc)
{
	const int tracer = 4242;
	procstatus_t pst;
	char st[512];
	int n;

	n = snprintf(st, sizeof (st), "Name:\tx\nUmask:\t0022\n"
	    "State:\tS (sleeping)\nTgid:\t17\nPid:\t17\nPPid:\t1\n"
	    "TracerPid:\t%d\nNoNewPrivs:\t1\nSeccomp:\t2\n"
	    "Seccomp_filters:\t1\n", tracer);
	ATF_REQUIRE(n > 0 && (size_t)n < sizeof (st));
	pst = status_of(st, (size_t)n);
	ATF_CHECK_EQ(pst.pst_state, 'S');
	ATF_CHECK_EQ(pst.pst_tracer, tracer);
	ATF_CHECK_EQ(pst.pst_seccomp, 2);

	/* Nothing known: the "unknown" values. */
	pst = status_of("", 0);
	ATF_CHECK(pst.pst_state == '?' && pst.pst_tracer == 0 &&
	    pst.pst_seccomp == -1);
	pst = STATUS_OF("Name:\tx\n");
	ATF_CHECK(pst.pst_state == '?' && pst.pst_tracer == 0 &&
	    pst.pst_seccomp == -1);

	/* Seccomp: as procfs_parse_seccomp was. */
	ATF_CHECK_EQ(STATUS_OF("Seccomp:\t0\n").pst_seccomp, 0);
	ATF_CHECK_EQ(STATUS_OF("Seccomp:\t1").pst_seccomp, 1);
	ATF_CHECK_EQ(STATUS_OF("Seccomp_filters:\t1\n").pst_seccomp, -1);
	ATF_CHECK_EQ(STATUS_OF("Seccomp:\t7\n").pst_seccomp, -1);
	ATF_CHECK_EQ(STATUS_OF("Seccomp:\t2x\n").pst_seccomp, -1);
	ATF_CHECK_EQ(STATUS_OF("Seccomp:\t\n").pst_seccomp, -1);
	/* The key alone is passed over; a later line still counts. */
	ATF_CHECK_EQ(STATUS_OF("Seccomp:\nSeccomp:\t2\n").pst_seccomp, 2);
	/* A malformed first line decides. */
	ATF_CHECK_EQ(STATUS_OF("Seccomp:\tx\nSeccomp:\t2\n").pst_seccomp,
	    -1);

	/* State: spaces and tabs before the letter; none there. */
	ATF_CHECK_EQ(STATUS_OF("State: \t t (tracing stop)\n").pst_state,
	    't');
	ATF_CHECK_EQ(STATUS_OF("State:\tD").pst_state, 'D');
	ATF_CHECK_EQ(STATUS_OF("State:  \t\nPid:\t1\n").pst_state, '?');
	ATF_CHECK_EQ(STATUS_OF("State:\nState:\tR\n").pst_state, 'R');
	ATF_CHECK_EQ(STATUS_OF("State:\tZ (zombie)\nState:\tR\n").pst_state,
	    'Z');

	/* Keys only at the start of a line. */
	ATF_CHECK_EQ(STATUS_OF("Name:\tState: Z\nState:\tR\n").pst_state,
	    'R');
	ATF_CHECK_EQ(STATUS_OF("Name:\tx TracerPid:\t5\n").pst_tracer, 0);
	ATF_CHECK_EQ(STATUS_OF("xTracerPid:\t5\n").pst_tracer, 0);
	ATF_CHECK_EQ(STATUS_OF("Name:\tSeccomp:\t2\n").pst_seccomp, -1);

	/* TracerPid: a pid, 0..INT_MAX, or 0. */
	ATF_CHECK_EQ(STATUS_OF("TracerPid:\t2147483647\n").pst_tracer,
	    INT_MAX);
	ATF_CHECK_EQ(STATUS_OF("TracerPid:\t2147483648\n").pst_tracer, 0);
	ATF_CHECK_EQ(STATUS_OF("TracerPid:\t-1\n").pst_tracer, 0);
	ATF_CHECK_EQ(STATUS_OF("TracerPid:\t12x\n").pst_tracer, 0);
	ATF_CHECK_EQ(STATUS_OF("TracerPid:\t\n").pst_tracer, 0);
	ATF_CHECK_EQ(STATUS_OF(
	    "TracerPid:\t99999999999999999999999\n").pst_tracer, 0);
	ATF_CHECK_EQ(STATUS_OF("TracerPid:\t0007\n").pst_tracer, 7);
}

ATF_TC_WITHOUT_HEAD(status_truncated);
ATF_TC_BODY(status_truncated, tc)
{
	const int tracer = 4242;
	size_t len, soff, toff, coff, k, n;
	procstatus_t pst;
	char st[256];
	int want;

	/* Cut at every length: never a read past it, and each field is
	 * either unknown or what the bytes up to the cut say. */
	n = (size_t)snprintf(st, sizeof (st), "Name:\tx\nState:\tT (stopped)\n"
	    "TracerPid:\t%d\nSeccomp:\t1\n", tracer);
	ATF_REQUIRE(n < sizeof (st));
	soff = (size_t)(strstr(st, "State:\t") - st) + 7;
	toff = (size_t)(strstr(st, "TracerPid:\t") - st) + 11;
	coff = (size_t)(strstr(st, "Seccomp:\t") - st) + 9;
	for (len = 0; len <= n; len++) {
		pst = status_of(st, len);
		ATF_CHECK_EQ(pst.pst_state, len > soff ? 'T' : '?');
		/* The digits of tracer that are there. */
		want = 0;
		for (k = toff; k < len && k < toff + 4; k++)
			want = want * 10 + (st[k] - '0');
		ATF_CHECK_EQ_MSG(pst.pst_tracer, want, "len %zu", len);
		ATF_CHECK_EQ(pst.pst_seccomp, len > coff ? 1 : -1);
	}
}

/* Scan text whole, or with a split at cut, or byte by byte (cut == -1). */
static void
maps_scan(procmaps_t *pm, const char *text, size_t len, uint64_t sp,
    uint64_t pc, long cut)
{
	procfs_maps_init(pm, sp, pc);
	if (cut < 0) {
		for (size_t i = 0; i < len; i++)
			procfs_maps_feed(pm, text + i, 1);
	} else {
		procfs_maps_feed(pm, text, (size_t)cut);
		procfs_maps_feed(pm, text + cut, 0);
		procfs_maps_feed(pm, text + cut, len - (size_t)cut);
	}
	procfs_maps_end(pm);
}

#define	MAPS_SCAN(pm, text, sp, pc)					\
	maps_scan((pm), (text), strlen(text), (sp), (pc), (long)strlen(text))

/* The address space of a process with a second thread, from numbers. */
static const uint64_t m_exe = 0x555555554000ULL, m_heap = 0x555555580000ULL;
static const uint64_t m_guard = 0x7ffff7000000ULL;	/* then its stack */
static const uint64_t m_libc = 0x7ffff7c00000ULL, m_vdso = 0x7ffff7fc1000ULL;
static const uint64_t m_stack = 0x7ffffffde000ULL;

static size_t
maps_text(char *buf, size_t sz)
{
	int n = snprintf(buf, sz,
	    "%llx-%llx r--p 00000000 fe:00 4242              /usr/bin/prog\n"
	    "%llx-%llx r-xp 00001000 fe:00 4242              /usr/bin/prog\n"
	    "%llx-%llx rw-p 00003000 fe:00 4242              /usr/bin/prog\n"
	    "%llx-%llx rw-p 00000000 00:00 0                 [heap]\n"
	    "%llx-%llx ---p 00000000 00:00 0 \n"
	    "%llx-%llx rw-p 00000000 00:00 0 \n"
	    "%llx-%llx r-xp 00028000 fe:00 77  /usr/lib/x86_64-linux-gnu/"
	    "libc.so.6\n"
	    "%llx-%llx r--p 00000000 00:00 0                 [vvar]\n"
	    "%llx-%llx r-xp 00000000 00:00 0                 [vdso]\n"
	    "%llx-%llx rw-p 00000000 00:00 0                 [stack]\n"
	    "ffffffffff600000-ffffffffff601000 --xp 00000000 00:00 0  "
	    "[vsyscall]\n",
	    (unsigned long long)m_exe, (unsigned long long)m_exe + 0x1000,
	    (unsigned long long)m_exe + 0x1000,
	    (unsigned long long)m_exe + 0x3000,
	    (unsigned long long)m_exe + 0x3000,
	    (unsigned long long)m_exe + 0x4000,
	    (unsigned long long)m_heap, (unsigned long long)m_heap + 0x21000,
	    (unsigned long long)m_guard, (unsigned long long)m_guard + 0x1000,
	    (unsigned long long)m_guard + 0x1000,
	    (unsigned long long)m_guard + 0x801000,
	    (unsigned long long)m_libc, (unsigned long long)m_libc + 0x156000,
	    (unsigned long long)m_vdso - 0x4000,
	    (unsigned long long)m_vdso,
	    (unsigned long long)m_vdso, (unsigned long long)m_vdso + 0x2000,
	    (unsigned long long)m_stack, (unsigned long long)m_stack + 0x21000);

	ATF_REQUIRE(n > 0 && (size_t)n < sz);
	return ((size_t)n);
}

static void
check_same_maps(const procmaps_t *a, const procmaps_t *b, long cut)
{
	ATF_CHECK_MSG(a->pm_vdso_lo == b->pm_vdso_lo &&
	    a->pm_vdso_hi == b->pm_vdso_hi &&
	    a->pm_stack_lo == b->pm_stack_lo &&
	    a->pm_stack_hi == b->pm_stack_hi &&
	    a->pm_stack_known == b->pm_stack_known &&
	    a->pm_pc_exec == b->pm_pc_exec &&
	    a->pm_have_prev == b->pm_have_prev &&
	    a->pm_prev_hi == b->pm_prev_hi &&
	    memcmp(a->pm_prev_perms, b->pm_prev_perms, 5) == 0,
	    "pieces cut at %ld differ from the whole", cut);
}

ATF_TC_WITHOUT_HEAD(maps_line);
ATF_TC_BODY(maps_line, tc)
{
	char line[MAPS_LINEMAX];
	maps_line_t ml;

	(void) strcpy(line, "7f1c2a000000-7f1c2a021000 r-xp 00002000 fe:00 "
	    "332835                     /usr/lib/a b.so (deleted)");
	ATF_REQUIRE_EQ(procfs_parse_maps_line(line, &ml), 0);
	ATF_CHECK_EQ(ml.ml_lo, 0x7f1c2a000000ULL);
	ATF_CHECK_EQ(ml.ml_hi, 0x7f1c2a021000ULL);
	ATF_CHECK_STREQ(ml.ml_perms, "r-xp");
	ATF_CHECK_STREQ(ml.ml_name, "/usr/lib/a b.so (deleted)");
	ATF_CHECK(ml.ml_name > line && ml.ml_name < line + sizeof (line));

	(void) strcpy(line, "1000-2000 rw-p 00000000 00:00 0 ");
	ATF_REQUIRE_EQ(procfs_parse_maps_line(line, &ml), 0);
	ATF_CHECK_STREQ(ml.ml_name, "");
	/* Fields cut short: the name is empty, the perms are still read. */
	(void) strcpy(line, "1000-2000 ---p");
	ATF_REQUIRE_EQ(procfs_parse_maps_line(line, &ml), 0);
	ATF_CHECK_STREQ(ml.ml_perms, "---p");
	ATF_CHECK_STREQ(ml.ml_name, "");
	/* Leading zeros and capitals, as strtoull took them. */
	(void) strcpy(line, "00000000000000000000ABC-0000000000000000000000"
	    "FFFFFFFFFFFFFFFF r--p 0 0:0 0 x");
	ATF_REQUIRE_EQ(procfs_parse_maps_line(line, &ml), 0);
	ATF_CHECK_EQ(ml.ml_lo, 0xabcULL);
	ATF_CHECK_EQ(ml.ml_hi, UINT64_MAX);
	ATF_CHECK_STREQ(ml.ml_name, "x");

	/* Malformed: too big, empty or inverted, cut, not hex, no dash. */
	static const char *const bad[] = {
		"10000000000000000-10000000000001000 rw-p 0 0:0 0",
		"1000-10000000000000000 rw-p 0 0:0 0",
		"2000-2000 rw-p 0 0:0 0",
		"3000-2000 rw-p 0 0:0 0",
		"1000-2000 rw-",
		"1000-2000 ",
		"1000-2000",
		"1000-",
		"-2000 rw-p 0 0:0 0",
		"0x1000-0x2000 rw-p 0 0:0 0",
		" 1000-2000 rw-p 0 0:0 0",
		"1000 2000 rw-p 0 0:0 0",
		"1000-2000\trw-p 0 0:0 0",
		"g000-2000 rw-p 0 0:0 0",
		"",
	};
	for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
		(void) strcpy(line, bad[i]);
		ATF_CHECK_EQ_MSG(procfs_parse_maps_line(line, &ml), -1,
		    "\"%s\" parsed", bad[i]);
	}
}

ATF_TC_WITHOUT_HEAD(maps_scan);
ATF_TC_BODY(maps_scan, tc)
{
	char text[2048];
	size_t len = maps_text(text, sizeof (text));
	const uint64_t tstack = m_guard + 0x1000;
	procmaps_t pm;

	/* The main thread: sp in [stack], pc in the program's text. */
	MAPS_SCAN(&pm, text, m_stack + 0x20000, m_exe + 0x1800);
	ATF_CHECK_EQ(pm.pm_vdso_lo, m_vdso);
	ATF_CHECK_EQ(pm.pm_vdso_hi, m_vdso + 0x2000);
	ATF_CHECK_EQ(pm.pm_stack_lo, m_stack);
	ATF_CHECK_EQ(pm.pm_stack_hi, m_stack + 0x21000);
	ATF_CHECK_EQ(pm.pm_stack_known, 1);
	ATF_CHECK_EQ(pm.pm_pc_exec, 1);
	/* The last line parsed is remembered, by its hi and perms. */
	ATF_CHECK_EQ(pm.pm_have_prev, 1);
	ATF_CHECK_EQ(pm.pm_prev_hi, 0xffffffffff601000ULL);
	ATF_CHECK_STREQ(pm.pm_prev_perms, "--xp");

	/* A glibc thread: sp in the rw-p right over the ---p guard. */
	MAPS_SCAN(&pm, text, tstack + 0x7ff000, m_vdso + 0x10);
	ATF_CHECK_EQ(pm.pm_stack_lo, tstack);
	ATF_CHECK_EQ(pm.pm_stack_hi, tstack + 0x800000);
	ATF_CHECK_EQ(pm.pm_stack_known, 1);
	ATF_CHECK_EQ(pm.pm_pc_exec, 1);
	/* The lowest byte of the thread stack, and the guard itself. */
	MAPS_SCAN(&pm, text, tstack, 0);
	ATF_CHECK(pm.pm_stack_lo == tstack && pm.pm_stack_known == 1);
	MAPS_SCAN(&pm, text, tstack - 1, 0);
	ATF_CHECK(pm.pm_stack_lo == m_guard && pm.pm_stack_known == 0);

	/* sp in the heap (a Go stack, say): found, but not a known kind. */
	MAPS_SCAN(&pm, text, m_heap + 0x100, m_heap + 0x100);
	ATF_CHECK_EQ(pm.pm_stack_lo, m_heap);
	ATF_CHECK_EQ(pm.pm_stack_hi, m_heap + 0x21000);
	ATF_CHECK_EQ(pm.pm_stack_known, 0);
	ATF_CHECK_EQ(pm.pm_pc_exec, 0);		/* rw-p */

	/* sp and pc nowhere; pc in the guard (---p). */
	MAPS_SCAN(&pm, text, 0x1000, m_guard + 0x10);
	ATF_CHECK(pm.pm_stack_lo == 0 && pm.pm_stack_hi == 0 &&
	    pm.pm_stack_known == 0 && pm.pm_pc_exec == 0);
	ATF_CHECK_EQ(pm.pm_vdso_hi, m_vdso + 0x2000);

	/* Every split point, and byte by byte, give the whole's result. */
	for (int s = 0; s < 3; s++) {
		const uint64_t sps[] = { m_stack + 8, tstack + 8, m_heap };
		procmaps_t whole, part;

		maps_scan(&whole, text, len, sps[s], m_libc + 0x100,
		    (long)len);
		ATF_CHECK_EQ(whole.pm_pc_exec, 1);
		for (long cut = -1; cut <= (long)len; cut++) {
			maps_scan(&part, text, len, sps[s], m_libc + 0x100,
			    cut);
			check_same_maps(&whole, &part, cut);
		}
	}
}

ATF_TC_WITHOUT_HEAD(maps_pc_edges);
ATF_TC_BODY(maps_pc_edges, tc)
{
	const uint64_t lo = 0x400000, hi = 0x401000;
	char text[256];
	procmaps_t pm;

	/* pc..pc+2 must lie inside: pc + 2 == hi is, pc + 2 > hi is not. */
	(void) snprintf(text, sizeof (text),
	    "%llx-%llx r-xp 00000000 fe:00 1 /bin/x\n"
	    "%llx-%llx r--p 00001000 fe:00 1 /bin/x\n",
	    (unsigned long long)lo, (unsigned long long)hi,
	    (unsigned long long)hi, (unsigned long long)hi + 0x1000);
	MAPS_SCAN(&pm, text, 0, hi - 2);
	ATF_CHECK_EQ(pm.pm_pc_exec, 1);
	MAPS_SCAN(&pm, text, 0, hi - 1);
	ATF_CHECK_EQ(pm.pm_pc_exec, 0);
	MAPS_SCAN(&pm, text, 0, hi);
	ATF_CHECK_EQ(pm.pm_pc_exec, 0);
	MAPS_SCAN(&pm, text, 0, lo);
	ATF_CHECK_EQ(pm.pm_pc_exec, 1);
	MAPS_SCAN(&pm, text, 0, lo - 1);
	ATF_CHECK_EQ(pm.pm_pc_exec, 0);

	/* At the top of the address space pc + 2 must not wrap. */
	(void) snprintf(text, sizeof (text),
	    "%llx-%llx r-xp 00000000 00:00 0\n",
	    (unsigned long long)(UINT64_MAX - 0xfff),
	    (unsigned long long)UINT64_MAX);
	MAPS_SCAN(&pm, text, 0, UINT64_MAX - 2);
	ATF_CHECK_EQ(pm.pm_pc_exec, 1);
	MAPS_SCAN(&pm, text, 0, UINT64_MAX - 1);
	ATF_CHECK_EQ(pm.pm_pc_exec, 0);
	MAPS_SCAN(&pm, text, UINT64_MAX, UINT64_MAX);
	ATF_CHECK_EQ(pm.pm_pc_exec, 0);
	ATF_CHECK_EQ(pm.pm_stack_hi, 0);	/* sp == hi: not inside */
}

ATF_TC_WITHOUT_HEAD(maps_overlong);
ATF_TC_BODY(maps_overlong, tc)
{
	const uint64_t g = 0x7f0000000000ULL, s = g + 0x1000;
	const uint64_t e = s + 0x100000;
	char *text, line[MAPS_LINEMAX + 1];
	size_t n, k, len;
	procmaps_t pm;

	/*
	 * A guard line of 2000 bytes whose cut-off part, right from the
	 * cut, looks like a [vdso] line holding pc: only the first
	 * MAPS_LINEMAX - 1 bytes are parsed, the rest is dropped (not read
	 * as a line), and the line is still "the previous line" of the
	 * stack over it.
	 */
	ATF_REQUIRE((text = malloc(8192)) != NULL);
	n = (size_t)snprintf(text, 8192, "%llx-%llx ---p 00000000 00:00 0 /",
	    (unsigned long long)g, (unsigned long long)s);
	memset(text + n, 'n', 2000 - n);
	k = (size_t)snprintf(line, sizeof (line),
	    "1000-2000 r-xp 00000000 00:00 0 [vdso]");
	memcpy(text + MAPS_LINEMAX - 1, line, k);
	n = 2000;
	text[n++] = '\n';
	n += (size_t)snprintf(text + n, 8192 - n,
	    "%llx-%llx rw-p 00000000 00:00 0 \n",
	    (unsigned long long)s, (unsigned long long)e);
	len = n;
	for (long cut = -1; cut <= (long)len; cut += cut < 0 ? 1 : 97) {
		maps_scan(&pm, text, len, s + 8, 0x1800, cut);
		ATF_CHECK_EQ(pm.pm_vdso_hi, 0);
		ATF_CHECK_EQ(pm.pm_pc_exec, 0);
		ATF_CHECK_EQ(pm.pm_stack_lo, s);
		ATF_CHECK_EQ(pm.pm_stack_known, 1);
	}
	/* sp in the overlong line itself: it parsed. */
	maps_scan(&pm, text, len, g, 0, (long)len);
	ATF_CHECK(pm.pm_stack_lo == g && pm.pm_stack_hi == s &&
	    pm.pm_stack_known == 0);

	/*
	 * A line of exactly MAPS_LINEMAX - 1 bytes ending in [vdso] is
	 * whole; one byte longer, its name is cut to "[vdso".
	 */
	for (int extra = 0; extra < 2; extra++) {
		n = (size_t)snprintf(text, 8192, "%llx-%llx r-xp 00000000 "
		    "00:00 0", (unsigned long long)g,
		    (unsigned long long)s);
		k = MAPS_LINEMAX - 1 + (size_t)extra - n - strlen("[vdso]");
		memset(text + n, ' ', k);
		n += k;
		n += (size_t)snprintf(text + n, 8192 - n, "[vdso]\n");
		ATF_REQUIRE_EQ(n, MAPS_LINEMAX + (size_t)extra);
		maps_scan(&pm, text, n, 0, 0, 100);
		ATF_CHECK_EQ_MSG(pm.pm_vdso_hi, extra == 0 ? s : 0,
		    "line of %zu bytes", n - 1);
	}
	free(text);
}

ATF_TC_WITHOUT_HEAD(maps_malformed_and_unterminated);
ATF_TC_BODY(maps_malformed_and_unterminated, tc)
{
	const uint64_t g = 0x7f0000000000ULL, s = g + 0x1000;
	const uint64_t e = s + 0x100000, v = 0x7ffff7fc1000ULL;
	char text[1024];
	size_t n;
	procmaps_t pm;

	/*
	 * Lines that do not parse between the guard and its stack are
	 * skipped and are not "the previous line"; one that holds sp is
	 * not the stack.
	 */
	n = (size_t)snprintf(text, sizeof (text),
	    "%llx-%llx ---p 00000000 00:00 0 \n"
	    "garbage\n"
	    "\n"
	    "10000000000000000-10000000000001000 rw-p 0 0:0 0\n"
	    "%llx-%llx rw-p 0 0:0 0 [vdso]\n"
	    "%llx-%llx rw\n"
	    "%llx-%llx rw-p 00000000 00:00 0 \n",
	    (unsigned long long)g, (unsigned long long)s,
	    (unsigned long long)s + 8, (unsigned long long)s + 8,
	    (unsigned long long)s, (unsigned long long)e,
	    (unsigned long long)s, (unsigned long long)e);
	ATF_REQUIRE(n < sizeof (text));
	maps_scan(&pm, text, n, s + 8, 0, (long)n);
	ATF_CHECK_EQ(pm.pm_stack_lo, s);
	ATF_CHECK_EQ(pm.pm_stack_hi, e);
	ATF_CHECK_EQ(pm.pm_stack_known, 1);
	ATF_CHECK_EQ(pm.pm_vdso_hi, 0);

	/* A real line between them is the previous line: not guarded. */
	n = (size_t)snprintf(text, sizeof (text),
	    "%llx-%llx ---p 00000000 00:00 0 \n"
	    "%llx-%llx r--p 00000000 00:00 0 \n"
	    "%llx-%llx rw-p 00000000 00:00 0 \n",
	    (unsigned long long)g, (unsigned long long)s,
	    (unsigned long long)s - 0x800, (unsigned long long)s,
	    (unsigned long long)s, (unsigned long long)e);
	maps_scan(&pm, text, n, s + 8, 0, (long)n);
	ATF_CHECK(pm.pm_stack_lo == s && pm.pm_stack_known == 0);
	/* Nor a ---s guard, nor a gap, nor a named mapping, nor r--p. */
	static const char *const fmts[] = {
		"%llx-%llx ---s 0 0:0 0 \n%llx-%llx rw-p 0 0:0 0 \n",
		"%llx-%llx ---p 0 0:0 0 \n%llx-%llx rw-p 0 0:0 0 x\n",
		"%llx-%llx ---p 0 0:0 0 \n%llx-%llx r--p 0 0:0 0 \n",
	};
	for (size_t i = 0; i < sizeof (fmts) / sizeof (fmts[0]); i++) {
		n = (size_t)snprintf(text, sizeof (text), fmts[i],
		    (unsigned long long)g, (unsigned long long)s,
		    (unsigned long long)s, (unsigned long long)e);
		maps_scan(&pm, text, n, s + 8, 0, (long)n);
		ATF_CHECK_MSG(pm.pm_stack_lo == s && pm.pm_stack_known == 0,
		    "case %zu", i);
	}
	n = (size_t)snprintf(text, sizeof (text),
	    "%llx-%llx ---p 0 0:0 0 \n%llx-%llx rw-p 0 0:0 0 \n",
	    (unsigned long long)g, (unsigned long long)s - 0x10,
	    (unsigned long long)s, (unsigned long long)e);
	maps_scan(&pm, text, n, s + 8, 0, (long)n);
	ATF_CHECK(pm.pm_stack_lo == s && pm.pm_stack_known == 0);

	/* No newline after the last line: parsed at the end, once. */
	n = (size_t)snprintf(text, sizeof (text),
	    "%llx-%llx rw-p 00000000 00:00 0 [stack]\n"
	    "%llx-%llx r-xp 00000000 00:00 0 [vdso]",
	    (unsigned long long)s, (unsigned long long)e,
	    (unsigned long long)v, (unsigned long long)v + 0x2000);
	procfs_maps_init(&pm, s, v);
	procfs_maps_feed(&pm, text, n);
	ATF_CHECK_EQ(pm.pm_stack_known, 1);
	ATF_CHECK_EQ(pm.pm_vdso_hi, 0);		/* not yet */
	ATF_CHECK_EQ(pm.pm_pc_exec, 0);
	procfs_maps_end(&pm);
	ATF_CHECK_EQ(pm.pm_vdso_lo, v);
	ATF_CHECK_EQ(pm.pm_vdso_hi, v + 0x2000);
	ATF_CHECK_EQ(pm.pm_pc_exec, 1);
	procfs_maps_end(&pm);
	ATF_CHECK_EQ(pm.pm_vdso_hi, v + 0x2000);
	for (long cut = -1; cut <= (long)n; cut++) {
		procmaps_t part;

		maps_scan(&part, text, n, s, v, cut);
		check_same_maps(&pm, &part, cut);
	}
	/* Nothing at all. */
	maps_scan(&pm, "", 0, s, v, 0);
	ATF_CHECK(pm.pm_stack_hi == 0 && pm.pm_vdso_hi == 0 &&
	    pm.pm_pc_exec == 0 && pm.pm_have_prev == 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, stat_line);
	ATF_TP_ADD_TC(tp, cmdline);
	ATF_TP_ADD_TC(tp, limits);
	ATF_TP_ADD_TC(tp, status);
	ATF_TP_ADD_TC(tp, status_truncated);
	ATF_TP_ADD_TC(tp, maps_line);
	ATF_TP_ADD_TC(tp, maps_scan);
	ATF_TP_ADD_TC(tp, maps_pc_edges);
	ATF_TP_ADD_TC(tp, maps_overlong);
	ATF_TP_ADD_TC(tp, maps_malformed_and_unterminated);
	return (atf_no_error());
}
