/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_parsers: unit tests of the pure parsers of kernel data (fdinfo, stat,
 * cmdline, limits, status, maps), of the record accessor and of the
 * pieces of pfiles' formatting that decode kernel values.
 */
#include <atf-c.h>
#include <arpa/inet.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <errno.h>
#include <unistd.h>
#include <linux/types.h>

#include "core/Pcontrol.h"
#include "src/bpf/bpf_load.h"
#include "src/bpf/pfiles_bpf.h"
#include "walk/fdinfo_parse.h"
#include "pf_escape.h"
#include "pfiles_fmt.h"
#include "core/procfs_parse.h"

static fdinfo_t fi;		/* big: keep it off the stack */

static void
parse_text(const char *text, size_t chunk)
{
	fdinfo_parser_t fp;
	size_t len = strlen(text);

	fdinfo_parse_init(&fp, &fi);
	for (size_t off = 0; off < len; off += chunk)
		fdinfo_parse_feed(&fp, text + off,
		    len - off < chunk ? len - off : chunk);
	fdinfo_parse_end(&fp);
}

static const char regular_fdinfo[] =
    "pos:\t1221\nflags:\t02100002\nmnt_id:\t24\nino:\t861\n"
    "lock:\t1: POSIX  ADVISORY  WRITE 4242 fe:00:861 0 EOF\n"
    "lock:\t2: OFDLCK ADVISORY  READ  -1 fe:00:861 10 20\n"
    "lock:\t3: FLOCK  ADVISORY  WRITE 77 fe:00:861 0 EOF\n";

ATF_TC_WITHOUT_HEAD(fdinfo_fields);
ATF_TC_BODY(fdinfo_fields, tc)
{
	/* The same text fed whole, in 7-byte pieces and byte by byte. */
	const size_t chunks[] = { sizeof (regular_fdinfo), 7, 1 };

	for (size_t c = 0; c < 3; c++) {
		parse_text(regular_fdinfo, chunks[c]);
		ATF_CHECK_EQ(fi.fi_have, FDI_POS | FDI_FLAGS | FDI_MNT_ID |
		    FDI_INO);
		ATF_CHECK_EQ(fi.fi_pos, 1221);
		ATF_CHECK_EQ(fi.fi_flags, 02100002);
		ATF_CHECK_EQ(fi.fi_mnt_id, 24);
		ATF_CHECK_EQ(fi.fi_ino, 861);
		ATF_REQUIRE_EQ(fi.fi_nlocks, 3);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_kind, PR_LOCK_POSIX);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_type, F_WRLCK);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_pid, 4242);
		ATF_CHECK_EQ(fi.fi_locks[0].pr_mandatory, 0);
		ATF_CHECK_EQ(fi.fi_locks[1].pr_kind, PR_LOCK_OFD);
		ATF_CHECK_EQ(fi.fi_locks[1].pr_type, F_RDLCK);
		ATF_CHECK_EQ(fi.fi_locks[1].pr_pid, 0);
		ATF_CHECK_EQ(fi.fi_locks[2].pr_kind, PR_LOCK_FLOCK);
		ATF_CHECK_EQ(fi.fi_locks[2].pr_pid, 77);
	}
}

ATF_TC_WITHOUT_HEAD(fdinfo_mandatory_and_other);
ATF_TC_BODY(fdinfo_mandatory_and_other, tc)
{
	parse_text("lock:\t1: POSIX  MANDATORY READ 9 08:02:1 0 EOF\n"
	    "lock:\t2: LEASE  ACTIVE    READ  12 08:02:1 0 EOF\n", 64);
	ATF_REQUIRE_EQ(fi.fi_nlocks, 2);
	ATF_CHECK_EQ(fi.fi_locks[0].pr_mandatory, 1);
	ATF_CHECK_EQ(fi.fi_locks[0].pr_type, F_RDLCK);
	ATF_CHECK_EQ(fi.fi_locks[1].pr_kind, PR_LOCK_OTHER);
	ATF_CHECK_EQ(fi.fi_locks[1].pr_pid, 12);
	/* Only MANDATORY makes a lock mandatory, not "not ADVISORY". */
	ATF_CHECK_EQ(fi.fi_locks[1].pr_mandatory, 0);
}

ATF_TC_WITHOUT_HEAD(fdinfo_unknown_keys);
ATF_TC_BODY(fdinfo_unknown_keys, tc)
{
	/* eventpoll's fdinfo: tfd lines hold "pos:" but are not keys. */
	parse_text("pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1057\n"
	    "tfd:        5 events:       19 data:                5  pos:7 "
	    "ino:99 sdev:8\neventfd-count: 3\n", 5);
	ATF_CHECK_EQ(fi.fi_pos, 0);
	ATF_CHECK_EQ(fi.fi_flags, 02);
	ATF_CHECK_EQ(fi.fi_ino, 1057);
	ATF_CHECK_EQ(fi.fi_nlocks, 0);
}

ATF_TC_WITHOUT_HEAD(fdinfo_stops_at_type_lines);
ATF_TC_BODY(fdinfo_stops_at_type_lines, tc)
{
	fdinfo_parser_t fp;
	static const char head[] = "pos:\t0\nflags:\t02\nmnt_id:\t15\n"
	    "ino:\t1057\nlock:\t1: FLOCK  ADVISORY  WRITE 9 0:1:2 0 EOF\n"
	    "tfd:        5 events:       19 data: 5  pos:0 ino:9 sdev:8\n";

	/* Once the type's own lines begin, nothing more is wanted, and a
	 * later line that looks like a key is not taken. */
	fdinfo_parse_init(&fp, &fi);
	ATF_CHECK(!fdinfo_parse_done(&fp));
	fdinfo_parse_feed(&fp, head, strlen(head));
	ATF_CHECK(fdinfo_parse_done(&fp));
	fdinfo_parse_feed(&fp, "pos:\t77\nlock:\t2: POSIX ADVISORY READ 3 0:1:2"
	    " 0 EOF\n", 49);
	fdinfo_parse_end(&fp);
	ATF_CHECK_EQ(fi.fi_pos, 0);
	ATF_CHECK_EQ(fi.fi_ino, 1057);
	ATF_CHECK_EQ(fi.fi_nlocks, 1);
}

ATF_TC_WITHOUT_HEAD(fdinfo_malformed);
ATF_TC_BODY(fdinfo_malformed, tc)
{
	/* Bad values are not used; good lines around them still are. */
	parse_text("pos:\t12x\nflags:\t0800\nmnt_id:\t-3\n"
	    "ino:\t99999999999999999999999\nlock:\t1: POSIX\n"
	    "lock:\t1: POSIX ADVISORY SIDEWAYS 3 0:0:0 0 EOF\n"
	    "pos:\t5 6\nflags:\t0100002\n", 3);
	ATF_CHECK_EQ(fi.fi_have, FDI_FLAGS);
	ATF_CHECK_EQ(fi.fi_pos, -1);
	ATF_CHECK_EQ(fi.fi_flags, 0100002);
	ATF_CHECK_EQ(fi.fi_mnt_id, -1);
	ATF_CHECK_EQ(fi.fi_nlocks, 0);
}

ATF_TC_WITHOUT_HEAD(fdinfo_digits_of_base);
ATF_TC_BODY(fdinfo_digits_of_base, tc)
{
	/*
	 * flags: is octal, the others decimal: a digit that is not one of
	 * the base ('8' in octal; ':' is '0' + 10) rejects the value, as
	 * does anything but blanks after it.
	 */
	static const char *const bad[] = {
		"flags:\t0800002\n", "flags:\t0100009\n", "pos:\t1:\n",
		"mnt_id:\t2:\n", "ino:\t9:\n", "pos:\t7 \x01\n",
		"pos:\t7\t.\n",
	};

	for (size_t i = 0; i < sizeof (bad) / sizeof (bad[0]); i++) {
		parse_text(bad[i], 64);
		ATF_CHECK_EQ_MSG(fi.fi_have, 0, "taken: %s", bad[i]);
		ATF_CHECK_EQ_MSG(fi.fi_pos, -1, "pos of %s", bad[i]);
		ATF_CHECK_EQ_MSG(fi.fi_mnt_id, -1, "mnt_id of %s", bad[i]);
	}
	/* The largest digit of each base is one. */
	parse_text("flags:\t0777\npos:\t99 \t\nmnt_id:\t9\n", 64);
	ATF_CHECK_EQ(fi.fi_have, FDI_FLAGS | FDI_POS | FDI_MNT_ID);
	ATF_CHECK_EQ(fi.fi_flags, 0777);
	ATF_CHECK_EQ(fi.fi_pos, 99);
	ATF_CHECK_EQ(fi.fi_mnt_id, 9);
}

ATF_TC_WITHOUT_HEAD(fdinfo_line_fills_buffer);
ATF_TC_BODY(fdinfo_line_fills_buffer, tc)
{
	char text[FDINFO_LINEMAX + 16];
	const size_t chunks[] = { sizeof (text), 100, 1 };

	/* A line of exactly FDINFO_LINEMAX bytes is read... */
	(void) memset(text, '0', FDINFO_LINEMAX);
	(void) memcpy(text, "pos:\t", 5);
	(void) memcpy(text + FDINFO_LINEMAX - 2, "42\nino:\t5\n", 11);
	for (size_t c = 0; c < 3; c++) {
		parse_text(text, chunks[c]);
		ATF_CHECK_EQ_MSG(fi.fi_pos, 42, "in pieces of %zu", chunks[c]);
		ATF_CHECK_EQ(fi.fi_ino, 5);
	}
	/* ...one byte longer, it is passed over. */
	(void) memset(text, '0', FDINFO_LINEMAX + 1);
	(void) memcpy(text, "pos:\t", 5);
	(void) memcpy(text + FDINFO_LINEMAX - 1, "42\nino:\t5\n", 11);
	parse_text(text, 100);
	ATF_CHECK_EQ(fi.fi_pos, -1);
	ATF_CHECK_EQ(fi.fi_ino, 5);
}

ATF_TC_WITHOUT_HEAD(fdinfo_overlong_and_truncated);
ATF_TC_BODY(fdinfo_overlong_and_truncated, tc)
{
	char *text;
	size_t n = FDINFO_LINEMAX * 3;

	/* An overlong line is passed over whole, even when it looks like
	 * a key; the line after it is read; a last line without its
	 * newline is parsed at the end. */
	text = malloc(n + 64);
	ATF_REQUIRE(text != NULL);
	strcpy(text, "pos:\t");
	memset(text + 5, '7', n);
	strcpy(text + 5 + n, "\nflags:\t04002\nmnt_id:\t31");
	parse_text(text, 100);
	free(text);
	ATF_CHECK_EQ(fi.fi_pos, -1);
	ATF_CHECK_EQ(fi.fi_flags, 04002);
	ATF_CHECK_EQ(fi.fi_mnt_id, 31);
}

ATF_TC_WITHOUT_HEAD(fdinfo_many_locks);
ATF_TC_BODY(fdinfo_many_locks, tc)
{
	static char text[(FDINFO_MAXLOCKS + 10) * 64];
	size_t off = 0;

	for (int i = 0; i < FDINFO_MAXLOCKS + 10; i++)
		off += (size_t)snprintf(text + off, sizeof (text) - off,
		    "lock:\t%d: POSIX  ADVISORY  READ %d 0:1:2 %d %d\n",
		    i + 1, 100 + i, i, i);
	parse_text(text, 4096);
	ATF_CHECK_EQ(fi.fi_nlocks, FDINFO_MAXLOCKS);
	ATF_CHECK_EQ(fi.fi_locks_dropped, 10);
	ATF_CHECK_EQ(fi.fi_locks[FDINFO_MAXLOCKS - 1].pr_pid,
	    100 + FDINFO_MAXLOCKS - 1);
}

ATF_TC_WITHOUT_HEAD(stat_line);
ATF_TC_BODY(stat_line, tc)
{
	/* A comm with spaces and parentheses. */
	const char s[] = "4242 (a) b) (c) S 17 4242 4242 0 -1 4194560 99 0";
	const char k[] = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0";
	procstat_t ps;

	ATF_REQUIRE_EQ(procfs_parse_stat(s, strlen(s), &ps), 0);
	ATF_CHECK_EQ(ps.ps_state, 'S');
	ATF_CHECK_EQ(ps.ps_ppid, 17);
	ATF_CHECK_EQ(ps.ps_flags, 4194560);
	ATF_CHECK((ps.ps_flags & PF_KTHREAD_FLAG) == 0);
	ATF_REQUIRE_EQ(procfs_parse_stat(k, strlen(k), &ps), 0);
	ATF_CHECK((ps.ps_flags & PF_KTHREAD_FLAG) != 0);

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

ATF_TC_WITHOUT_HEAD(record_items);
ATF_TC_BODY(record_items, tc)
{
	fdrec_t rec = { NULL, 0 };
	const char *p;
	size_t len;
	int v = 212992;
	static char big[20000];

	ATF_REQUIRE_EQ(fdrec_reset(&rec, 7), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PATHNAME, "abc", 4), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKOPT_SNDBUF, &v, sizeof (v)), 0);
	memset(big, 'x', sizeof (big));	/* grows the buffer */
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKERR, big, sizeof (big)), 0);

	p = proc_fdinfo_misc(fdrec_info(&rec), PR_PATHNAME, &len);
	ATF_REQUIRE(p != NULL);
	ATF_CHECK_EQ(len, 4);
	ATF_CHECK_STREQ(p, "abc");
	p = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKOPT_SNDBUF, &len);
	ATF_REQUIRE(p != NULL && len == sizeof (int));
	ATF_CHECK_EQ(memcmp(p, &v, sizeof (v)), 0);
	p = proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKERR, &len);
	ATF_CHECK(p != NULL && len == sizeof (big) && p[19999] == 'x');
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_PEERCRED, &len) ==
	    NULL && len == 0);
	ATF_CHECK_EQ(fdrec_info(&rec)->pr_fd, 7);

	/* A damaged item header ends the search instead of overrunning. */
	fdrec_info(&rec)->pr_misc_size = 12;
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_SOCKOPT_SNDBUF,
	    &len) == NULL);
	/* Reset starts an empty record. */
	ATF_REQUIRE_EQ(fdrec_reset(&rec, 9), 0);
	ATF_CHECK(proc_fdinfo_misc(fdrec_info(&rec), PR_PATHNAME, NULL) ==
	    NULL);
	fdrec_free(&rec);
}

/* What proc_fdinfowalk() handed its func, call by call. */
#define	WALKED_MAX	8

typedef struct walked {
	int		w_n;			/* calls */
	int		w_stopat;		/* the call that returns w_rv */
	int		w_rv;
	uint_t		w_type[WALKED_MAX];
	const void	*w_data[WALKED_MAX];
	size_t		w_len[WALKED_MAX];
} walked_t;

static int
walk_note(uint_t type, const void *data, size_t len, void *arg)
{
	walked_t *w = arg;

	if (w->w_n < WALKED_MAX) {
		w->w_type[w->w_n] = type;
		w->w_data[w->w_n] = data;
		w->w_len[w->w_n] = len;
	}
	return (++w->w_n == w->w_stopat ? w->w_rv : 0);
}

static int
walk_rec(fdrec_t *rec, walked_t *w, int stopat, int rv)
{
	memset(w, 0, sizeof (*w));
	w->w_stopat = stopat;
	w->w_rv = rv;
	return (proc_fdinfowalk(fdrec_info(rec), walk_note, w));
}

ATF_TC_WITHOUT_HEAD(record_walk);
ATF_TC_BODY(record_walk, tc)
{
	fdrec_t rec = { NULL, 0 };
	pr_misc_header_t hdr;
	uint8_t *misc;
	walked_t w;
	int v = 212992;

	/* An empty record: no call, 0. */
	ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK_EQ(w.w_n, 0);

	/* Every item, in order, each payload at its 8-byte boundary. */
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PATHNAME, "abc", 4), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKOPT_SNDBUF, &v, sizeof (v)), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_SOCKERR, "no", 3), 0);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_CHANGED, NULL, 0), 0);
	misc = fdrec_info(&rec)->pr_misc;
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_REQUIRE_EQ(w.w_n, 4);
	ATF_CHECK(w.w_type[0] == PR_PATHNAME && w.w_len[0] == 4 &&
	    w.w_data[0] == misc + 8);
	ATF_CHECK(w.w_type[1] == PR_SOCKOPT_SNDBUF &&
	    w.w_len[1] == sizeof (v) && w.w_data[1] == misc + 24);
	ATF_CHECK_EQ(memcmp(w.w_data[1], &v, sizeof (v)), 0);
	ATF_CHECK(w.w_type[2] == PR_SOCKERR && w.w_len[2] == 3 &&
	    w.w_data[2] == misc + 40);
	ATF_CHECK_STREQ((const char *)w.w_data[2], "no");
	ATF_CHECK(w.w_type[3] == PR_CHANGED && w.w_len[3] == 0);

	/* A nonzero value from func ends the walk and is returned. */
	ATF_CHECK_EQ(walk_rec(&rec, &w, 2, 42), 42);
	ATF_CHECK_EQ(w.w_n, 2);
	ATF_CHECK_EQ(walk_rec(&rec, &w, 1, -7), -7);
	ATF_CHECK_EQ(w.w_n, 1);
	ATF_CHECK_EQ(walk_rec(&rec, &w, 4, 1), 1);
	ATF_CHECK_EQ(w.w_n, 4);

	/*
	 * A damaged header ends the walk, as after the last item: one
	 * smaller than a header, one longer than what is left.
	 */
	memcpy(&hdr, misc + 16, sizeof (hdr));
	hdr.pr_misc_size = sizeof (hdr) - 1;
	memcpy(misc + 16, &hdr, sizeof (hdr));
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK(w.w_n == 1 && w.w_type[0] == PR_PATHNAME);
	hdr.pr_misc_size = fdrec_info(&rec)->pr_misc_size - 16 + 1;
	memcpy(misc + 16, &hdr, sizeof (hdr));
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK_EQ(w.w_n, 1);
	/* Exactly what is left is no damage: that item is the last. */
	hdr.pr_misc_size = fdrec_info(&rec)->pr_misc_size - 16;
	memcpy(misc + 16, &hdr, sizeof (hdr));
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK(w.w_n == 2 && w.w_type[1] == PR_SOCKOPT_SNDBUF &&
	    w.w_len[1] == fdrec_info(&rec)->pr_misc_size - 16 - sizeof (hdr));
	/* A record cut inside a header: the items before the cut. */
	fdrec_info(&rec)->pr_misc_size = 16 + sizeof (hdr) - 1;
	ATF_CHECK_EQ(walk_rec(&rec, &w, 0, 0), 0);
	ATF_CHECK_EQ(w.w_n, 1);
	fdrec_free(&rec);
}

/* What f(out) prints, as a malloc'd string. */
#define	CAPTURE(expr, bufp) do {					\
	size_t sz_;							\
	FILE *out = open_memstream((bufp), &sz_);			\
	ATF_REQUIRE(out != NULL);					\
	expr;								\
	ATF_REQUIRE_EQ(fclose(out), 0);					\
} while (0)

ATF_TC_WITHOUT_HEAD(fmt_fileflags);
ATF_TC_BODY(fmt_fileflags, tc)
{
	static const struct {
		int		flags;
		int		fdflags;
		const char	*text;
	} cases[] = {
		{ 00, 0, "O_RDONLY" },
		{ 0100002, FD_CLOEXEC, "O_RDWR|O_LARGEFILE|O_CLOEXEC" },
		{ 04002 | 02000, 0, "O_RDWR|O_NONBLOCK|O_APPEND" },
		{ 04010001, 0, "O_WRONLY|O_SYNC" },
		{ 010001, 0, "O_WRONLY|O_DSYNC" },
		{ 010000000, 0, "O_PATH" },
		{ 010200000, FD_CLOEXEC, "O_PATH|O_DIRECTORY|O_CLOEXEC" },
		{ 03, 0, "0x3" },
		{ 040000000 | 02, 0, "O_RDWR|0x800000" },
		{ 020000000 | 0200000 | 02, 0,
		    "O_RDWR|O_DIRECTORY|O_TMPFILE" },
		{ 020000 | 040000 | 0400000 | 01000000, 0,
		    "O_RDONLY|O_ASYNC|O_DIRECT|O_NOFOLLOW|O_NOATIME" },
	};
	char *s;

	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		CAPTURE(pf_fileflags(out, cases[i].flags, cases[i].fdflags),
		    &s);
		ATF_CHECK_STREQ_MSG(s, cases[i].text, "flags 0%o",
		    (unsigned)cases[i].flags);
		free(s);
	}
}

ATF_TC_WITHOUT_HEAD(fmt_sockaddr);
ATF_TC_BODY(fmt_sockaddr, tc)
{
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_port = htons(8080) };
	struct sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
	    .sin6_port = htons(443) };
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct sockaddr_nl snl = { .nl_family = AF_NETLINK, .nl_pid = 77,
	    .nl_groups = 0x11 };
	sa_family_t fam;
	char *s;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	CAPTURE(pf_sockaddr(out, "sockname", &sin, sizeof (sin), 6), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_INET 127.0.0.1  port: 8080\n");
	free(s);

	sin6.sin6_addr = in6addr_loopback;
	CAPTURE(pf_sockaddr(out, "peername", &sin6, sizeof (sin6), 6), &s);
	ATF_CHECK_STREQ(s, "\tpeername: AF_INET6 ::1  port: 443\n");
	free(s);

	memcpy(sun.sun_path, "/tmp/s", 7);
	CAPTURE(pf_sockaddr(out, "sockname", &sun,
	    offsetof(struct sockaddr_un, sun_path) + 7, 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_UNIX /tmp/s\n");
	free(s);

	memcpy(sun.sun_path, "\0a\x01\x7f" "b", 5);	/* abstract */
	CAPTURE(pf_sockaddr(out, "sockname", &sun,
	    offsetof(struct sockaddr_un, sun_path) + 5, 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_UNIX @a\\x01\\x7fb\n");
	free(s);

	CAPTURE(pf_sockaddr(out, "peername", &sun,
	    offsetof(struct sockaddr_un, sun_path), 0), &s);
	ATF_CHECK_STREQ(s, "\tpeername: AF_UNIX \n");
	free(s);

	CAPTURE(pf_sockaddr(out, "sockname", &snl, sizeof (snl), 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_NETLINK NETLINK_ROUTE  pid: 77"
	    "  groups: 0x00000011\n");
	free(s);
	CAPTURE(pf_sockaddr(out, "sockname", &snl, sizeof (snl), 99), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_NETLINK protocol 99  pid: 77"
	    "  groups: 0x00000011\n");
	free(s);

	fam = AF_PACKET;
	CAPTURE(pf_sockaddr(out, "sockname", &fam, sizeof (fam), 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_PACKET\n");
	free(s);
	fam = 250;
	CAPTURE(pf_sockaddr(out, "sockname", &fam, sizeof (fam), 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_250\n");
	free(s);
	/* Too short to hold a family: nothing at all. */
	CAPTURE(pf_sockaddr(out, "sockname", &fam, 1, 0), &s);
	ATF_CHECK_STREQ(s, "");
	free(s);
}

ATF_TC_WITHOUT_HEAD(fmt_typeword);
ATF_TC_BODY(fmt_typeword, tc)
{
	char buf[64];

	ATF_CHECK_STREQ(pf_typeword(S_IFSOCK | 0777, "socket:[1]", buf,
	    sizeof (buf)), "S_IFSOCK");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:[eventpoll]", buf,
	    sizeof (buf)), "anon_inode(eventpoll)");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:inotify", buf,
	    sizeof (buf)), "anon_inode(inotify)");
	ATF_CHECK_STREQ(pf_typeword(0600, "/weird", buf, sizeof (buf)),
	    "0x0000");
	ATF_CHECK_STREQ(pf_typeword(0170000 | 0600, NULL, buf, sizeof (buf)),
	    "0xf000");
	/*
	 * The brackets are taken off only as a pair: a name that opens one
	 * and does not close it (or closes one it never opened) is NAME.
	 */
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:[abc", buf,
	    sizeof (buf)), "anon_inode([abc)");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:abc]", buf,
	    sizeof (buf)), "anon_inode(abc])");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:[]", buf,
	    sizeof (buf)), "anon_inode()");
}

/*
 * pf_escape: the rule for text from the target (pfiles.1, "Text from
 * the target"), and every field of pfiles_fmt.c that
 * goes through it.
 */

/* pf_escape() of the len bytes at in, whole, as a NUL-ended string. */
static void
check_escape(const char *in, size_t len, const char *want)
{
	char out[256];
	size_t n;

	ATF_REQUIRE(len * 4 < sizeof (out));
	n = pf_escape(out, sizeof (out), in, len, PF_ESC_NOMAX);
	ATF_CHECK_EQ_MSG(n, strlen(out), "escape of \"%s\": %zu bytes but "
	    "NUL at %zu", want, n, strlen(out));
	ATF_CHECK_STREQ_MSG(out, want, "escape of %zu bytes", len);
}

#define	ESC(in, want)	check_escape(in, sizeof (in) - 1, want)

ATF_TC_WITHOUT_HEAD(esc_ascii);
ATF_TC_BODY(esc_ascii, tc)
{
	ESC("", "");
	ESC("/srv/plain path (deleted)", "/srv/plain path (deleted)");
	ESC(" !~[]@", " !~[]@");
	ESC("\\", "\\\\");
	ESC("a\\x41\\\\", "a\\\\x41\\\\\\\\");
	ESC("\x00\x01\x1f\x7f", "\\x00\\x01\\x1f\\x7f");
	ESC("\t\n\r\x1b[31m", "\\x09\\x0a\\x0d\\x1b[31m");
	ESC("a\nb", "a\\x0ab");
}

ATF_TC_WITHOUT_HEAD(esc_utf8_kept);
ATF_TC_BODY(esc_utf8_kept, tc)
{
	ESC("/srv/donn\xc3\xa9" "es", "/srv/donn\xc3\xa9" "es");
	ESC("\xc2\xa0", "\xc2\xa0");			/* U+00A0 */
	ESC("\xdf\xbf", "\xdf\xbf");			/* U+07FF */
	ESC("\xe0\xa0\x80", "\xe0\xa0\x80");		/* U+0800 */
	ESC("\xe2\x80\x8a", "\xe2\x80\x8a");		/* U+200A */
	ESC("\xe2\x80\x90", "\xe2\x80\x90");		/* U+2010 */
	ESC("\xe2\x80\xa7", "\xe2\x80\xa7");		/* U+2027 */
	ESC("\xe2\x80\xaf", "\xe2\x80\xaf");		/* U+202F */
	ESC("\xe2\x81\xa5", "\xe2\x81\xa5");		/* U+2065 */
	ESC("\xe2\x81\xaa", "\xe2\x81\xaa");		/* U+206A */
	ESC("\xed\x9f\xbf", "\xed\x9f\xbf");		/* U+D7FF */
	ESC("\xee\x80\x80", "\xee\x80\x80");		/* U+E000 */
	ESC("\xef\xbb\xbe", "\xef\xbb\xbe");		/* U+FEFE */
	ESC("\xef\xbf\xbd", "\xef\xbf\xbd");		/* U+FFFD */
	ESC("\xf0\x90\x80\x80", "\xf0\x90\x80\x80");	/* U+10000 */
	ESC("\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80");	/* U+1F600 */
	ESC("\xf4\x8f\xbf\xbf", "\xf4\x8f\xbf\xbf");	/* U+10FFFF */
}

ATF_TC_WITHOUT_HEAD(esc_utf8_hidden);
ATF_TC_BODY(esc_utf8_hidden, tc)
{
	ESC("\xc2\x80", "\\xc2\\x80");			/* C1 */
	ESC("\xc2\x85", "\\xc2\\x85");
	ESC("\xc2\x9f", "\\xc2\\x9f");
	ESC("\xe2\x80\x8b", "\\xe2\\x80\\x8b");		/* U+200B */
	ESC("\xe2\x80\x8f", "\\xe2\\x80\\x8f");		/* U+200F */
	ESC("\xe2\x80\xa8", "\\xe2\\x80\\xa8");		/* U+2028 */
	ESC("\xe2\x80\xa9", "\\xe2\\x80\\xa9");		/* U+2029 */
	ESC("\xe2\x80\xaa", "\\xe2\\x80\\xaa");		/* U+202A */
	ESC("\xe2\x80\xae", "\\xe2\\x80\\xae");		/* U+202E */
	ESC("\xe2\x81\xa6", "\\xe2\\x81\\xa6");		/* U+2066 */
	ESC("\xe2\x81\xa9", "\\xe2\\x81\\xa9");		/* U+2069 */
	ESC("\xef\xbb\xbf", "\\xef\\xbb\\xbf");		/* U+FEFF */
	ESC("a\xe2\x80\xae" "b", "a\\xe2\\x80\\xae" "b");
}

ATF_TC_WITHOUT_HEAD(esc_utf8_illformed);
ATF_TC_BODY(esc_utf8_illformed, tc)
{
	ESC("\x80", "\\x80");				/* continuation */
	ESC("\xbf\x80", "\\xbf\\x80");
	ESC("\xc0\xaf", "\\xc0\\xaf");			/* overlong */
	ESC("\xc1\xbf", "\\xc1\\xbf");
	ESC("\xe0\x80\xaf", "\\xe0\\x80\\xaf");
	ESC("\xe0\x9f\xbf", "\\xe0\\x9f\\xbf");
	ESC("\xf0\x8f\xbf\xbf", "\\xf0\\x8f\\xbf\\xbf");
	ESC("\xed\xa0\x80", "\\xed\\xa0\\x80");		/* surrogates */
	ESC("\xed\xbf\xbf", "\\xed\\xbf\\xbf");
	ESC("\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80");	/* > U+10FFFF */
	ESC("\xf5\x80\x80\x80", "\\xf5\\x80\\x80\\x80");
	ESC("\xf8\x88\x80\x80\x80", "\\xf8\\x88\\x80\\x80\\x80");
	ESC("\xfe\xff", "\\xfe\\xff");
	ESC("\xe2\x82", "\\xe2\\x82");			/* cut short */
	ESC("\xe2\x82" "A", "\\xe2\\x82" "A");
	ESC("\xf0\x9f\x98", "\\xf0\\x9f\\x98");
	/* A good sequence right after a bad lead byte is kept. */
	ESC("\xe2\xc3\xa9", "\\xe2\xc3\xa9");
	ESC("\xc3\xc3\xa9", "\\xc3\xc3\xa9");
}

ATF_TC_WITHOUT_HEAD(esc_cut);
ATF_TC_BODY(esc_cut, tc)
{
	char out[16];

	/* maxout: whole units only, and as many as fit. */
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "ab\x1b", 3, 3), 2);
	ATF_CHECK_STREQ(out, "ab");
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "ab\x1b", 3, 5), 2);
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "ab\x1b", 3, 6), 6);
	ATF_CHECK_STREQ(out, "ab\\x1b");
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "a\xc3\xa9", 3, 2), 1);
	ATF_CHECK_STREQ(out, "a");
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "a\xf0\x9f\x98\x80", 5,
	    4), 1);
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "a\\", 2, 2), 1);
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "a\\", 2, 3), 3);
	ATF_CHECK_STREQ(out, "a\\\\");
	/* Between two escapes of one hidden character is a unit's end. */
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "\xe2\x80\xae", 3, 9),
	    8);
	ATF_CHECK_STREQ(out, "\\xe2\\x80");
	ATF_CHECK_EQ(pf_escape(out, sizeof (out), "abc", 3, 0), 0);
	ATF_CHECK_STREQ(out, "");

	/* The buffer bounds it as maxout does, NUL included. */
	ATF_CHECK_EQ(pf_escape(out, 4, "abcdef", 6, PF_ESC_NOMAX), 3);
	ATF_CHECK_STREQ(out, "abc");
	ATF_CHECK_EQ(pf_escape(out, 6, "a\x01", 2, PF_ESC_NOMAX), 5);
	ATF_CHECK_EQ(pf_escape(out, 5, "a\x01", 2, PF_ESC_NOMAX), 1);
	ATF_CHECK_STREQ(out, "a");
	/* No room at all: nothing written, not even a NUL. */
	out[0] = 'x';
	ATF_CHECK_EQ(pf_escape(out, 0, "abc", 3, PF_ESC_NOMAX), 0);
	ATF_CHECK_EQ(out[0], 'x');
}

ATF_TC_WITHOUT_HEAD(esc_stream);
ATF_TC_BODY(esc_stream, tc)
{
	static const char piece[] = "\xf0\x9f\x98\x80\x1b\\\xc3\xa9z\xe2\x80";
	char in[1200], *want, *s;
	size_t n = 0, wlen;

	/* Long enough to cross pf_fputesc's chunks at every offset. */
	while (n + sizeof (piece) - 1 <= sizeof (in)) {
		memcpy(in + n, piece, sizeof (piece) - 1);
		n += sizeof (piece) - 1;
	}
	ATF_REQUIRE((want = malloc(4 * n + 1)) != NULL);
	wlen = pf_escape(want, 4 * n + 1, in, n, PF_ESC_NOMAX);
	ATF_CHECK(wlen > n);
	CAPTURE(pf_fputesc(out, in, n), &s);
	ATF_CHECK_STREQ(s, want);
	free(s);
	free(want);
}

ATF_TC_WITHOUT_HEAD(fmt_target_text);
ATF_TC_BODY(fmt_target_text, tc)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	struct rlimit rl = { 64, 64 };
	psinfo_t ps;
	char buf[64], *s;

	/* A unix path: a newline does not end the line. */
	memcpy(sun.sun_path, "/tmp/s\n  99: x\x1b\xff", 17);
	CAPTURE(pf_sockaddr(out, "sockname", &sun,
	    offsetof(struct sockaddr_un, sun_path) + 17, 0), &s);
	ATF_CHECK_STREQ(s, "\tsockname: AF_UNIX /tmp/s\\x0a  99: x\\x1b"
	    "\\xff\n");
	free(s);
	/* Abstract: an inner NUL and a backslash. */
	memcpy(sun.sun_path, "\0a\0b\\\xc3\xa9", 7);
	CAPTURE(pf_sockaddr(out, "peername", &sun,
	    offsetof(struct sockaddr_un, sun_path) + 7, 0), &s);
	ATF_CHECK_STREQ(s, "\tpeername: AF_UNIX @a\\x00b\\\\\xc3\xa9\n");
	free(s);

	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:[a\nb]", buf,
	    sizeof (buf)), "anon_inode(a\\x0ab)");
	/* Too long for buf: cut where a unit ends, ")" kept. */
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:abc\x1b", buf, 19),
	    "anon_inode(abc)");
	ATF_CHECK_STREQ(pf_typeword(0600, "anon_inode:abc\x1b", buf, 20),
	    "anon_inode(abc\\x1b)");

	/* The header: escaped, then cut at 70 bytes where a unit ends. */
	memset(&ps, 0, sizeof (ps));
	ps.pr_pid = 42;
	(void) snprintf(ps.pr_psargs, sizeof (ps.pr_psargs), "%s\x1b%s",
	    "0123456789012345678901234567890123456789012345678901234567890123"
	    "456", "tail");
	CAPTURE(pf_header(out, &ps, &rl), &s);
	ATF_CHECK_STREQ(s, "42:\t0123456789012345678901234567890123456789"
	    "012345678901234567890123456\n  Current rlimit: 64 file "
	    "descriptors\n");
	free(s);
	/* No arguments: the name, through the same rule. */
	memset(ps.pr_psargs, 0, sizeof (ps.pr_psargs));
	(void) snprintf(ps.pr_fname, sizeof (ps.pr_fname), "a\nb");
	CAPTURE(pf_header(out, &ps, NULL), &s);
	ATF_CHECK_STREQ(s, "42:\ta\\x0ab\n");
	free(s);
	CAPTURE(pf_sysproc(out, &ps), &s);
	ATF_CHECK_STREQ(s, "42:\ta\\x0ab\n  [system process]\n");
	free(s);
}

/* The comm of every process, for the peer lines. */
static const char *
comm_of(void *arg, pid_t pid)
{
	return (pid == 4321 ? "peerproc" : NULL);
}

/* What pf_file prints of rec's record (-n when statonly). */
static char *
file_text(fdrec_t *rec, int statonly)
{
	pf_ctx_t ctx;
	char *s;

	(void) memset(&ctx, 0, sizeof (ctx));
	ctx.pf_statonly = statonly;
	ctx.pf_comm = comm_of;
	CAPTURE((ctx.pf_out = out, (void) pf_file(&ctx, fdrec_info(rec))),
	    &s);
	return (s);
}

ATF_TC_WITHOUT_HEAD(fmt_mode_bits);
ATF_TC_BODY(fmt_mode_bits, tc)
{
	static const struct {
		mode_t		mode;
		const char	*text;
	} cases[] = {
		{ S_IFDIR | 01777, "mode:01777" },	/* /tmp */
		{ S_IFREG | 04755, "mode:04755" },	/* set-user-ID */
		{ S_IFDIR | 02775, "mode:02775" },	/* set-group-ID */
		{ S_IFREG | 07000, "mode:07000" },
		{ S_IFREG | 0644, "mode:0644" },
		{ S_IFREG | 0, "mode:0000" },
	};
	fdrec_t rec = { NULL, 0 };

	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++) {
		char *s, want[128];

		ATF_REQUIRE_EQ(fdrec_reset(&rec, 3), 0);
		fdrec_info(&rec)->pr_mode = cases[i].mode;
		fdrec_info(&rec)->pr_offset = -1;
		s = file_text(&rec, 1);
		(void) snprintf(want, sizeof (want), "   3: %s %s dev:0,0 "
		    "ino:0 uid:0 gid:0 size:0\n", S_ISDIR(cases[i].mode) ?
		    "S_IFDIR" : "S_IFREG", cases[i].text);
		ATF_CHECK_STREQ_MSG(s, want, "mode 0%o",
		    (unsigned)cases[i].mode);
		free(s);
	}
	fdrec_free(&rec);
}

/* The fd number of the stat line, "%4d: ", at every width. */
ATF_TC_WITHOUT_HEAD(fmt_fd_width);
ATF_TC_BODY(fmt_fd_width, tc)
{
	static const int fds[] = { 0, 9, 10, 99, 100, 999, 1000, 12345,
	    2147483647 };
	fdrec_t rec = { NULL, 0 };

	for (size_t i = 0; i < sizeof (fds) / sizeof (fds[0]); i++) {
		char *s, want[128];

		ATF_REQUIRE_EQ(fdrec_reset(&rec, fds[i]), 0);
		fdrec_info(&rec)->pr_mode = S_IFREG | 0644;
		fdrec_info(&rec)->pr_offset = -1;
		s = file_text(&rec, 1);
		(void) snprintf(want, sizeof (want), "%4d: S_IFREG mode:0644 "
		    "dev:0,0 ino:0 uid:0 gid:0 size:0\n", fds[i]);
		ATF_CHECK_STREQ_MSG(s, want, "fd %d", fds[i]);
		free(s);
	}
	fdrec_free(&rec);
}

/* A connected unix stream socket's record, with its linger and cred. */
static void
unix_socket_rec(fdrec_t *rec, const struct linger *lg,
    const struct ucred *cred)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int domain = AF_UNIX, type = SOCK_STREAM;

	ATF_REQUIRE_EQ(fdrec_reset(rec, 5), 0);
	fdrec_info(rec)->pr_mode = S_IFSOCK | 0777;
	fdrec_info(rec)->pr_fileflags = O_RDWR;
	fdrec_info(rec)->pr_offset = -1;
	memcpy(sun.sun_path, "/s", 3);
	ATF_REQUIRE_EQ(fdrec_add(rec, PR_SOCKOPT_DOMAIN, &domain,
	    sizeof (domain)), 0);
	ATF_REQUIRE_EQ(fdrec_add(rec, PR_SOCKOPT_TYPE, &type,
	    sizeof (type)), 0);
	if (lg != NULL)
		ATF_REQUIRE_EQ(fdrec_add(rec, PR_SOCKOPT_LINGER, lg,
		    sizeof (*lg)), 0);
	ATF_REQUIRE_EQ(fdrec_add(rec, PR_PEERSOCKNAME, &sun,
	    offsetof(struct sockaddr_un, sun_path) + 3), 0);
	if (cred != NULL)
		ATF_REQUIRE_EQ(fdrec_add(rec, PR_PEERCRED, cred,
		    sizeof (*cred)), 0);
}

#define	SOCK_HEAD	"   5: S_IFSOCK mode:0777 dev:0,0 ino:0 uid:0 " \
	"gid:0 rdev:0,0\n      O_RDWR\n\tSOCK_STREAM\n"

ATF_TC_WITHOUT_HEAD(fmt_linger_and_peer);
ATF_TC_BODY(fmt_linger_and_peer, tc)
{
	const struct linger off = { 0, 5 }, on = { 1, 5 }, zero = { 1, 0 };
	const struct ucred nopid = { 0, 1000, 1000 };
	const struct ucred pid = { 4321, 1000, 1000 };
	fdrec_t rec = { NULL, 0 };
	char *s;

	/* SO_LINGER is shown when l_onoff is set, whatever l_linger. */
	unix_socket_rec(&rec, &off, NULL);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n");
	free(s);
	unix_socket_rec(&rec, &on, NULL);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tSO_LINGER(5)\n"
	    "\tpeername: AF_UNIX /s\n");
	free(s);
	unix_socket_rec(&rec, &zero, NULL);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tSO_LINGER(0)\n"
	    "\tpeername: AF_UNIX /s\n");
	free(s);

	/*
	 * SO_PEERCRED's pid 0 (a peer that never connected: a datagram
	 * socket connected to a bound one) names no process: no peer line.
	 */
	unix_socket_rec(&rec, NULL, &nopid);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n");
	free(s);
	/*
	 * A pid is never named by its number alone (the comm callback
	 * would name 4321): only with PR_PEERCOMM, the name of the process
	 * proven to be the one recorded, and only a NUL-ended one.
	 */
	unix_socket_rec(&rec, NULL, &pid);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n"
	    "\tpeer: ?[4321]\n");
	free(s);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PEERCOMM, "proven", 7), 0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n"
	    "\tpeer: proven[4321]\n");
	free(s);
	unix_socket_rec(&rec, NULL, &pid);
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_PEERCOMM, "proven", 6), 0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, SOCK_HEAD "\tpeername: AF_UNIX /s\n"
	    "\tpeer: ?[4321]\n");
	free(s);
	fdrec_free(&rec);
}

ATF_TC_WITHOUT_HEAD(fmt_lock_lines);
ATF_TC_BODY(fmt_lock_lines, tc)
{
	/* A POSIX lock has its owner; OFD and FLOCK locks have none (0). */
	const prfdlock_t locks[] = {
		{ PR_LOCK_POSIX, F_WRLCK, 0, 1234 },
		{ PR_LOCK_OFD, F_RDLCK, 0, 0 },
		{ PR_LOCK_FLOCK, F_WRLCK, 1, 0 },
	};
	fdrec_t rec = { NULL, 0 };
	char *s;

	ATF_REQUIRE_EQ(fdrec_reset(&rec, 4), 0);
	fdrec_info(&rec)->pr_mode = S_IFREG | 0644;
	fdrec_info(&rec)->pr_fileflags = O_RDWR;
	fdrec_info(&rec)->pr_offset = -1;
	ATF_REQUIRE_EQ(fdrec_add(&rec, PR_LOCKS, locks, sizeof (locks)), 0);
	s = file_text(&rec, 0);
	ATF_CHECK_STREQ(s, "   4: S_IFREG mode:0644 dev:0,0 ino:0 uid:0 "
	    "gid:0 size:0\n      O_RDWR\n"
	    "      advisory write lock set by process 1234\n"
	    "      advisory read lock set\n"
	    "      mandatory write lock set\n");
	free(s);
	fdrec_free(&rec);
}

ATF_TC_WITHOUT_HEAD(fmt_header_soft_limit);
ATF_TC_BODY(fmt_header_soft_limit, tc)
{
	const struct rlimit rl = { 256, 4096 };
	const struct rlimit inf = { 1024, RLIM_INFINITY };
	const struct rlimit both = { RLIM_INFINITY, RLIM_INFINITY };
	psinfo_t ps;
	char *s;

	/* The soft limit is the one shown, not the hard. */
	memset(&ps, 0, sizeof (ps));
	ps.pr_pid = 7;
	(void) snprintf(ps.pr_psargs, sizeof (ps.pr_psargs), "x");
	CAPTURE(pf_header(out, &ps, &rl), &s);
	ATF_CHECK_STREQ(s, "7:\tx\n  Current rlimit: 256 file descriptors\n");
	free(s);
	CAPTURE(pf_header(out, &ps, &inf), &s);
	ATF_CHECK_STREQ(s, "7:\tx\n  Current rlimit: 1024 file descriptors\n");
	free(s);
	CAPTURE(pf_header(out, &ps, &both), &s);
	ATF_CHECK_STREQ(s, "7:\tx\n  Current rlimit: unlimited file "
	    "descriptors\n");
	free(s);
}

/*
 * The BPF iterator's stream of records, as bpf_pfiles_read() takes it
 * from an fd whose reads may end anywhere in a record (the kernel's seq
 * buffer is bigger than pfiles' reads where pages are bigger than 4 KiB):
 * records of a regular file each, the path of record i of i % 199 + 3
 * bytes (so their sizes vary), written by a child into a pipe in pieces
 * of 1 to 10,000 bytes with a pause after each, so that most reads end
 * inside a record.
 */
#define	RS_PID		4242
#define	RS_NREC		300
#define	RS_FD(i)	((i) + 3)
#define	RS_INO(i)	(1000000ULL + (i))

static size_t
rs_path(int i, char *buf)
{
	size_t n = (size_t)(i % 199) + 3;

	buf[0] = '/';
	for (size_t k = 1; k < n; k++)
		buf[k] = (char)('a' + (i + (int)k) % 26);
	buf[n] = '\0';
	return (n);
}

/* Record i, as the iterator writes it: its length. */
static size_t
rs_record(int i, uint8_t *out)
{
	struct pfb_rec r;
	size_t plen, size;

	memset(&r, 0, sizeof (r));
	plen = rs_path(i, r.r_path);
	size = PFB_RECSIZE(plen);
	r.r_magic = PFB_MAGIC;
	r.r_version = PFB_VERSION;
	r.r_recsize = (__u16)size;
	r.r_have = PFB_H_STAT | PFB_H_FILE;
	r.r_fd = RS_FD(i);
	r.r_tgid = RS_PID;
	r.r_mode = S_IFREG | 0644;
	r.r_nlink = 1;
	r.r_ino = RS_INO(i);
	r.r_size = i;
	r.r_fflags = O_RDONLY;
	r.r_path_len = (__u32)plen;
	memcpy(out, &r, size);
	return (size);
}

/* The stream of the records, less cut bytes at its end: its length. */
static size_t
rs_stream(uint8_t **bufp, size_t cut)
{
	uint8_t *buf = malloc((size_t)RS_NREC * PFB_RECSIZE_MAX);
	size_t len = 0;

	ATF_REQUIRE(buf != NULL);
	for (int i = 0; i < RS_NREC; i++)
		len += rs_record(i, buf + len);
	*bufp = buf;
	return (len - cut);
}

/* A child writes len bytes of buf into a pipe, in pieces: its read end. */
static int
rs_writer(const uint8_t *buf, size_t len, pid_t *pidp)
{
	static const size_t piece[] = { 1, 7, 500, 4096, 33, 10000, 3, 2047 };
	int p[2];

	ATF_REQUIRE(pipe(p) == 0);
	ATF_REQUIRE((*pidp = fork()) >= 0);
	if (*pidp == 0) {
		size_t off = 0;

		(void) close(p[0]);
		for (int k = 0; off < len; k++) {
			size_t n = piece[k % 8] < len - off ? piece[k % 8] :
			    len - off;
			ssize_t w = write(p[1], buf + off, n);

			if (w <= 0)
				_exit(1);
			off += (size_t)w;
			(void) usleep(300);
		}
		_exit(0);
	}
	(void) close(p[1]);
	return (p[0]);
}

typedef struct rs_seen {
	int	s_n;
	int	s_bad;		/* the first record not as written, + 1 */
} rs_seen_t;

static int
rs_take(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	rs_seen_t *s = arg;
	char path[PFB_PATH_MAX];
	int i = s->s_n++;
	size_t plen = rs_path(i, path);

	if (s->s_bad == 0 && (i >= RS_NREC || br->br_fd != RS_FD(i) ||
	    br->br_ino != RS_INO(i) || br->br_size != i ||
	    br->br_path_len != plen || br->br_path == NULL ||
	    memcmp(br->br_path, path, plen + 1) != 0 ||
	    rawlen != PFB_RECSIZE(plen)))
		s->s_bad = i + 1;
	return (0);
}

/*
 * The stream less cut bytes at its end, written by a child and read as
 * the records of process asked: bpf_pfiles_read()'s value, its errno in
 * *errp.  With wrote, the child must have written every byte.
 */
static int
rs_read(size_t cut, pid_t asked, int wrote, rs_seen_t *s, char *why,
    size_t whysz, int *errp)
{
	uint8_t *buf;
	size_t len = rs_stream(&buf, cut);
	pid_t pid;
	int fd = rs_writer(buf, len, &pid), r, status;

	errno = 0;
	r = bpf_pfiles_read(fd, asked, rs_take, s, why, whysz);
	*errp = errno;
	ATF_REQUIRE(waitpid(pid, &status, 0) == pid);
	if (wrote)
		ATF_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(buf);
	return (r);
}

ATF_TC_WITHOUT_HEAD(bpfrec_read_pieces);
ATF_TC_BODY(bpfrec_read_pieces, tc)
{
	char why[256] = "";
	rs_seen_t s = { 0, 0 };
	int err;

	ATF_CHECK_EQ_MSG(rs_read(0, RS_PID, 1, &s, why, sizeof (why), &err),
	    0, "%s", why);
	ATF_CHECK_EQ(s.s_n, RS_NREC);
	ATF_CHECK_EQ_MSG(s.s_bad, 0, "record %d is not as written",
	    s.s_bad - 1);
}

ATF_TC_WITHOUT_HEAD(bpfrec_read_cut_short);
ATF_TC_BODY(bpfrec_read_cut_short, tc)
{
	char why[256] = "";
	rs_seen_t s = { 0, 0 };
	int err;

	/* The last record cut. */
	ATF_CHECK_EQ(rs_read(100, RS_PID, 1, &s, why, sizeof (why), &err),
	    -1);
	ATF_CHECK_EQ(err, EPROTO);
	ATF_CHECK_MSG(strstr(why, "cut short") != NULL, "why: %s", why);
	ATF_CHECK_EQ(s.s_n, RS_NREC - 1);
	ATF_CHECK_EQ_MSG(s.s_bad, 0, "record %d is not as written",
	    s.s_bad - 1);
}

ATF_TC_WITHOUT_HEAD(bpfrec_read_other_pid);
ATF_TC_BODY(bpfrec_read_other_pid, tc)
{
	char why[256] = "";
	rs_seen_t s = { 0, 0 };
	int err;

	/* The reads stop at its first record: the writer meets EPIPE. */
	ATF_CHECK_EQ(rs_read(0, RS_PID + 1, 0, &s, why, sizeof (why), &err),
	    -1);
	ATF_CHECK_EQ(err, ENOTSUP);
	ATF_CHECK_MSG(strstr(why, "gave process 4242's fds") != NULL,
	    "why: %s", why);
	ATF_CHECK_EQ(s.s_n, 0);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, bpfrec_read_pieces);
	ATF_TP_ADD_TC(tp, bpfrec_read_cut_short);
	ATF_TP_ADD_TC(tp, bpfrec_read_other_pid);
	ATF_TP_ADD_TC(tp, fdinfo_fields);
	ATF_TP_ADD_TC(tp, fdinfo_mandatory_and_other);
	ATF_TP_ADD_TC(tp, fdinfo_unknown_keys);
	ATF_TP_ADD_TC(tp, fdinfo_malformed);
	ATF_TP_ADD_TC(tp, fdinfo_stops_at_type_lines);
	ATF_TP_ADD_TC(tp, fdinfo_digits_of_base);
	ATF_TP_ADD_TC(tp, fdinfo_line_fills_buffer);
	ATF_TP_ADD_TC(tp, fdinfo_overlong_and_truncated);
	ATF_TP_ADD_TC(tp, fdinfo_many_locks);
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
	ATF_TP_ADD_TC(tp, record_items);
	ATF_TP_ADD_TC(tp, record_walk);
	ATF_TP_ADD_TC(tp, fmt_fileflags);
	ATF_TP_ADD_TC(tp, fmt_sockaddr);
	ATF_TP_ADD_TC(tp, fmt_typeword);
	ATF_TP_ADD_TC(tp, esc_ascii);
	ATF_TP_ADD_TC(tp, esc_utf8_kept);
	ATF_TP_ADD_TC(tp, esc_utf8_hidden);
	ATF_TP_ADD_TC(tp, esc_utf8_illformed);
	ATF_TP_ADD_TC(tp, esc_cut);
	ATF_TP_ADD_TC(tp, esc_stream);
	ATF_TP_ADD_TC(tp, fmt_target_text);
	ATF_TP_ADD_TC(tp, fmt_mode_bits);
	ATF_TP_ADD_TC(tp, fmt_fd_width);
	ATF_TP_ADD_TC(tp, fmt_linger_and_peer);
	ATF_TP_ADD_TC(tp, fmt_lock_lines);
	ATF_TP_ADD_TC(tp, fmt_header_soft_limit);
	return (atf_no_error());
}
