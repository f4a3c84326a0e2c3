/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_preadcount: libpreadcount.so counts exactly what a program does.
 *
 * The victim (atf/pc_victim.c) makes known numbers of each counted call;
 * the expected counts below are written from its plan, not from any run.
 * What a run alone can tell (the victim's pid, its child's, a pipe's
 * inode) the victim reports on stdout.  Each victim is run with the
 * counter preloaded in the child only (pcount_run builds the child's
 * environment; this process never has LD_PRELOAD).
 *
 * The netlink cases run preadcount/nl_victim.c, which sends and receives
 * known numbers of netlink messages (to another netlink socket of its own
 * and to the kernel's NETLINK_SOCK_DIAG), and makes the same calls on a
 * unix socketpair and a closed fd, which must not be counted.
 */
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <atf-c.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/netlink.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pcount.h"

#ifndef	PC_SANITIZE
#define	PC_SANITIZE	0
#endif

#define	TIMEOUT_S	60
#define	OUT		"pc.out"
#define	VICTIM_OUT	"victim.out"
#define	DATA_SIZE	8192

/*
 * The entry each build of the victim calls for each family.  gcc with
 * -O2 -D_FORTIFY_SOURCE=2 turns read and pread into __read_chk and
 * __pread_chk.  clang 14 on glibc 2.36 does not: glibc's fortified inline
 * wrappers need the object size after inlining, which clang has already
 * folded to "unknown" by then, so its fortified build calls the plain
 * entries (checked by the nm case too).
 */
#ifdef	__clang__
#define	FORTIFIED	0
#else
#define	FORTIFIED	1
#endif

struct variant {
	const char	*v_name;	/* BUILD_DIR/atf/pc_victim_NAME */
	const char	*v_pread;
	const char	*v_read;
	const char	*v_preadv;
	const char	*v_preadv2;
	const char	*v_pwrite;
	const char	*v_pwritev;
	const char	*v_pwritev2;
};

static const struct variant v_plain = {
	"plain", "pread", "read", "preadv", "preadv2", "pwrite", "pwritev",
	"pwritev2"
};
static const struct variant v_fortify = {
	"fortify", FORTIFIED ? "__pread_chk" : "pread",
	FORTIFIED ? "__read_chk" : "read", "preadv", "preadv2", "pwrite",
	"pwritev", "pwritev2"
};
static const struct variant v_fob64 = {
	"fob64", "pread64", "read", "preadv64", "preadv64v2", "pwrite64",
	"pwritev64", "pwritev64v2"
};
static const struct variant v_fortify64 = {
	"fortify64", FORTIFIED ? "__pread64_chk" : "pread64",
	FORTIFIED ? "__read_chk" : "read", "preadv64", "preadv64v2",
	"pwrite64", "pwritev64", "pwritev64v2"
};
/* Built with ASan+UBSan in SANITIZE=1 builds; plain entries. */
static const struct variant v_san = {
	"san", "pread", "read", "preadv", "preadv2", "pwrite", "pwritev",
	"pwritev2"
};

struct expect {
	const char	*e_call;
	char		e_path[PATH_MAX * 4];
	uint64_t	e_calls;
	uint64_t	e_bytes;
};

/* The path as the counter writes it: control bytes, DEL, \ as \ooo. */
static void
escape_path(char *dst, size_t dstlen, const char *src)
{
	size_t n = 0;

	for (; *src != '\0' && n + 5 < dstlen; src++) {
		unsigned char c = (unsigned char)*src;

		if (c < 0x20 || c == 0x7f || c == '\\')
			n += (size_t)snprintf(dst + n, dstlen - n, "\\%03o", c);
		else
			dst[n++] = (char)c;
	}
	dst[n] = '\0';
}

/* NAME in the work directory, absolute. */
static void
work_path(char *buf, size_t len, const char *name)
{
	char cwd[PATH_MAX];

	ATF_REQUIRE(getcwd(cwd, sizeof (cwd)) != NULL);
	ATF_REQUIRE((size_t)snprintf(buf, len, "%s/%s", cwd, name) < len);
}

/* DIR/NAME into BUF, which must hold it. */
static void
join_path(char *buf, size_t len, const char *dir, const char *name)
{
	int n = snprintf(buf, len, "%s/%s", dir, name);

	ATF_REQUIRE_MSG(n > 0 && (size_t)n < len, "%s/%s: too long", dir, name);
}

static void
make_file(const char *path, size_t size)
{
	char buf[512];
	FILE *fp = fopen(path, "w");

	ATF_REQUIRE_MSG(fp != NULL, "%s: %s", path, strerror(errno));
	for (size_t i = 0; i < sizeof (buf); i++)
		buf[i] = (char)('a' + i % 26);
	for (size_t done = 0; done < size; done += sizeof (buf)) {
		size_t n = size - done < sizeof (buf) ? size - done :
		    sizeof (buf);

		ATF_REQUIRE(fwrite(buf, 1, n, fp) == n);
	}
	ATF_REQUIRE(fclose(fp) == 0);
}

static void
victim_path(char *buf, size_t len, const struct variant *v)
{
	(void) snprintf(buf, len, "%s/atf/pc_victim_%s", BUILD_DIR, v->v_name);
}

/*
 * Run the victim VARIANT with ARGS (NULL-terminated, after the program
 * name), PREADCOUNT_OUT set to OUT (NULL: unset).  It must exit 0.
 */
static void
run_victim(const struct variant *v, const char *const *args, const char *out)
{
	char prog[PATH_MAX], err[PATH_MAX + 256];
	char *argv[8];
	size_t n = 0;
	int status;

	victim_path(prog, sizeof (prog), v);
	argv[n++] = prog;
	while (*args != NULL && n < 7)
		argv[n++] = (char *)*args++;
	argv[n] = NULL;
	if (pcount_run(argv, out, VICTIM_OUT, TIMEOUT_S, &status, err,
	    sizeof (err)) != 0)
		atf_tc_fail("pc_victim_%s %s: %s", v->v_name, argv[1], err);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		atf_tc_fail("pc_victim_%s %s: wait status 0x%x (see stderr)",
		    v->v_name, argv[1], status);
}

/* The value of "KEY VALUE" in the victim's report. */
static long long
victim_fact(const char *key)
{
	char line[256], k[64];
	long long v, found = -1;
	FILE *fp = fopen(VICTIM_OUT, "r");

	ATF_REQUIRE(fp != NULL);
	while (fgets(line, sizeof (line), fp) != NULL) {
		if (sscanf(line, "%63s %lld", k, &v) == 2 &&
		    strcmp(k, key) == 0)
			found = v;
	}
	(void) fclose(fp);
	ATF_REQUIRE_MSG(found > 0, "victim did not report %s", key);
	return (found);
}

static void
load_out(const char *file, struct pcount_tab *t)
{
	char err[PATH_MAX + 256];

	if (pcount_load(file, t, err, sizeof (err)) != 0)
		atf_tc_fail("%s", err);
}

static void msgf(char *, size_t, size_t *, const char *, ...)
    __attribute__((format(printf, 4, 5)));

/* Append to MSG (LEN bytes), keeping it terminated; *USED tracks it. */
static void
msgf(char *msg, size_t len, size_t *used, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*used >= len)
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg + *used, len - *used, fmt, ap);
	va_end(ap);
	if (n > 0)
		*used += (size_t)n;
}

/*
 * T must hold exactly the pairs in E: the same counts and bytes, and
 * nothing else.  On a mismatch, fail with every difference.
 */
static void
check_exact(const struct pcount_tab *t, const struct expect *e, size_t n)
{
	static char msg[16384];
	size_t used = 0;

	msg[0] = '\0';
	for (size_t i = 0; i < n; i++) {
		const struct pcount_rec *r = pcount_find(t, e[i].e_call,
		    e[i].e_path);

		if (r == NULL) {
			msgf(msg, sizeof (msg), &used, "missing %s %s (want "
			    "%" PRIu64 " calls, %" PRIu64 " bytes)\n",
			    e[i].e_call, e[i].e_path, e[i].e_calls,
			    e[i].e_bytes);
		} else if (r->pr_calls != e[i].e_calls ||
		    r->pr_bytes != e[i].e_bytes) {
			msgf(msg, sizeof (msg), &used, "%s %s: got %" PRIu64
			    " calls %" PRIu64 " bytes, want %" PRIu64 " calls %"
			    PRIu64 " bytes\n", e[i].e_call, e[i].e_path,
			    r->pr_calls, r->pr_bytes, e[i].e_calls,
			    e[i].e_bytes);
		}
	}
	for (size_t j = 0; j < t->pt_n; j++) {
		const struct pcount_rec *r = &t->pt_recs[j];
		int known = 0;

		for (size_t i = 0; i < n && !known; i++)
			known = strcmp(r->pr_call, e[i].e_call) == 0 &&
			    strcmp(r->pr_path, e[i].e_path) == 0;
		if (!known)
			msgf(msg, sizeof (msg), &used, "unexpected %s %s (%"
			    PRIu64 " calls, %" PRIu64 " bytes)\n", r->pr_call,
			    r->pr_path, r->pr_calls, r->pr_bytes);
	}
	if (used > 0)
		atf_tc_fail("counts differ from the victim's plan:\n%s", msg);
}

static struct expect *
add_expect(struct expect *e, size_t *n, const char *call, const char *path,
    uint64_t calls, uint64_t bytes)
{
	struct expect *x = &e[(*n)++];

	x->e_call = call;
	(void) snprintf(x->e_path, sizeof (x->e_path), "%s", path);
	x->e_calls = calls;
	x->e_bytes = bytes;
	return (x);
}

/*
 * What pc_victim's "plan" does, call by call (see plan_file_reads and the
 * functions after it): on the data file 3 preads of 100 bytes and one at
 * EOF, 2 reads of 50, a readv, 2 preadv and a preadv2 of 30, a read of a
 * closed fd; 2 pwrites of 10, a pwritev, a pwritev2 and a writev of 11;
 * on a pipe 2 writes and 2 reads of 64; process_vm_readv and _writev of
 * 16 bytes on itself; on a traced child 3 PEEKDATA (one of a word that is
 * -1, which succeeds, and one that fails), a PEEKTEXT, a PEEKUSER, a
 * POKEDATA, a POKETEXT and a POKEUSER that fails.
 */
static size_t
plan_expect(struct expect *e, const struct variant *v, const char *data,
    long long self, long long child, long long pipe_ino)
{
	char pipe[64], me[32], kid[32];
	size_t n = 0;

	(void) snprintf(pipe, sizeof (pipe), "pipe:[%lld]", pipe_ino);
	(void) snprintf(me, sizeof (me), "pid:%lld", self);
	(void) snprintf(kid, sizeof (kid), "pid:%lld", child);

	add_expect(e, &n, v->v_pread, data, 4, 300);
	add_expect(e, &n, v->v_read, data, 2, 100);
	add_expect(e, &n, "readv", data, 1, 30);
	add_expect(e, &n, v->v_preadv, data, 2, 60);
	add_expect(e, &n, v->v_preadv2, data, 1, 30);
	add_expect(e, &n, v->v_read, "fd:900", 1, 0);
	add_expect(e, &n, v->v_pwrite, data, 2, 20);
	add_expect(e, &n, v->v_pwritev, data, 1, 11);
	add_expect(e, &n, v->v_pwritev2, data, 1, 11);
	add_expect(e, &n, "writev", data, 1, 11);
	add_expect(e, &n, "write", pipe, 2, 128);
	add_expect(e, &n, v->v_read, pipe, 2, 128);
	add_expect(e, &n, "process_vm_readv", me, 1, 16);
	add_expect(e, &n, "process_vm_writev", me, 1, 16);
	add_expect(e, &n, "ptrace:PEEKDATA", kid, 3, 2 * sizeof (long));
	add_expect(e, &n, "ptrace:PEEKTEXT", kid, 1, sizeof (long));
	add_expect(e, &n, "ptrace:PEEKUSER", kid, 1, sizeof (long));
	add_expect(e, &n, "ptrace:POKEDATA", kid, 1, sizeof (long));
	add_expect(e, &n, "ptrace:POKETEXT", kid, 1, sizeof (long));
	add_expect(e, &n, "ptrace:POKEUSER", kid, 1, 0);
	return (n);
}

static void
check_plan(const struct variant *v)
{
	static struct expect e[32];
	char data[PATH_MAX], out[PATH_MAX], edata[PATH_MAX * 4];
	const char *args[] = { "plan", data, NULL };
	struct pcount_tab t;
	size_t n;

	work_path(data, sizeof (data), "data");
	work_path(out, sizeof (out), OUT);
	make_file(data, DATA_SIZE);
	run_victim(v, args, out);
	escape_path(edata, sizeof (edata), data);
	n = plan_expect(e, v, edata, victim_fact("self"), victim_fact("child"),
	    victim_fact("pipe"));
	load_out(out, &t);
	check_exact(&t, e, n);
	ATF_CHECK_EQ_MSG(t.pt_lines, n, "one line per pair: %zu lines for "
	    "%zu pairs", t.pt_lines, n);
	pcount_free(&t);
}

/*
 * The netlink victim (preadcount/nl_victim.c), built plainly and
 * fortified: the entries its build calls for recv and recvfrom.
 */
struct nl_variant {
	const char	*nv_name;	/* preadcount/nl_victim_NAME */
	const char	*nv_recv;
	const char	*nv_recvfrom;
};

static const struct nl_variant nl_plain = { "plain", "recv", "recvfrom" };
static const struct nl_variant nl_fortify = {
	"fortify", FORTIFIED ? "__recv_chk" : "recv",
	FORTIFIED ? "__recvfrom_chk" : "recvfrom"
};

static void
run_nl_victim(const struct nl_variant *nv, const char *out)
{
	char prog[PATH_MAX], err[PATH_MAX + 256];
	char *argv[2] = { prog, NULL };
	int status;

	(void) snprintf(prog, sizeof (prog), "%s/preadcount/nl_victim_%s",
	    BUILD_DIR, nv->nv_name);
	if (pcount_run(argv, out, VICTIM_OUT, TIMEOUT_S, &status, err,
	    sizeof (err)) != 0)
		atf_tc_fail("nl_victim_%s: %s", nv->nv_name, err);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		atf_tc_fail("nl_victim_%s: wait status 0x%x (see stderr)",
		    nv->nv_name, status);
}

/*
 * What nl_victim does (see the list at its top): over NETLINK_USERSOCK,
 * 2 sends of 10 bytes, a sendto of 11, a sendmsg of 12, and their 2
 * recvs, recvfrom and recvmsg, then a recv that fails; to the kernel's
 * NETLINK_SOCK_DIAG one sendto of a request (REQ bytes), one recvmsg of
 * its answer (ANS bytes), a recv that fails.  Its unix socketpair and
 * closed-fd calls must not be counted at all.
 */
static size_t
netlink_expect(struct expect *e, const struct nl_variant *nv, long long req,
    long long ans)
{
	char us[32], diag[32];
	size_t n = 0;

	(void) snprintf(us, sizeof (us), "netlink:%d", NETLINK_USERSOCK);
	(void) snprintf(diag, sizeof (diag), "netlink:%d", NETLINK_SOCK_DIAG);
	add_expect(e, &n, "send", us, 2, 20);
	add_expect(e, &n, "sendto", us, 1, 11);
	add_expect(e, &n, "sendmsg", us, 1, 12);
	add_expect(e, &n, nv->nv_recv, us, 3, 20);
	add_expect(e, &n, nv->nv_recvfrom, us, 1, 11);
	add_expect(e, &n, "recvmsg", us, 1, 12);
	add_expect(e, &n, "sendto", diag, 1, (uint64_t)req);
	add_expect(e, &n, "recvmsg", diag, 1, (uint64_t)ans);
	add_expect(e, &n, nv->nv_recv, diag, 1, 0);
	return (n);
}

static void
check_netlink(const struct nl_variant *nv)
{
	static struct expect e[16];
	char out[PATH_MAX];
	struct pcount_tab t;
	long long req, ans;
	size_t n;

	work_path(out, sizeof (out), OUT);
	run_nl_victim(nv, out);
	req = victim_fact("diagreq");
	ans = victim_fact("diagans");
	/* A nlmsghdr and a sock_diag_req; an NLMSG_ERROR at the least. */
	ATF_CHECK_EQ_MSG(req, (long long)NLMSG_LENGTH(2), "request of %lld "
	    "bytes", req);
	ATF_CHECK_MSG(ans >= (long long)NLMSG_LENGTH(sizeof (struct nlmsgerr)),
	    "answer of %lld bytes", ans);
	n = netlink_expect(e, nv, req, ans);
	load_out(out, &t);
	check_exact(&t, e, n);
	ATF_CHECK_EQ_MSG(t.pt_lines, n, "one line per pair: %zu lines for "
	    "%zu pairs", t.pt_lines, n);
	pcount_free(&t);
}

ATF_TC(plan_plain);
ATF_TC_HEAD(plan_plain, tc)
{
	atf_tc_set_md_var(tc, "descr", "Every counted entry of a plain build "
	    "is counted exactly, with its bytes and path");
}
ATF_TC_BODY(plan_plain, tc)
{
	check_plan(&v_plain);
}

ATF_TC(plan_fortify);
ATF_TC_HEAD(plan_fortify, tc)
{
	atf_tc_set_md_var(tc, "descr", "-O2 -D_FORTIFY_SOURCE=2: __read_chk "
	    "and __pread_chk are counted under their own names");
}
ATF_TC_BODY(plan_fortify, tc)
{
	check_plan(&v_fortify);
}

ATF_TC(plan_fob64);
ATF_TC_HEAD(plan_fob64, tc)
{
	atf_tc_set_md_var(tc, "descr", "-D_FILE_OFFSET_BITS=64: pread64, "
	    "preadv64, preadv64v2 and the pwrite64 family are counted");
}
ATF_TC_BODY(plan_fob64, tc)
{
	check_plan(&v_fob64);
}

ATF_TC(plan_fortify64);
ATF_TC_HEAD(plan_fortify64, tc)
{
	atf_tc_set_md_var(tc, "descr", "-O2 -D_FORTIFY_SOURCE=2 "
	    "-D_FILE_OFFSET_BITS=64: __pread64_chk is counted");
}
ATF_TC_BODY(plan_fortify64, tc)
{
	check_plan(&v_fortify64);
}

ATF_TC(plan_sanitized);
ATF_TC_HEAD(plan_sanitized, tc)
{
	atf_tc_set_md_var(tc, "descr", "A victim built with ASan+UBSan is "
	    "counted exactly too (as pfiles is in SANITIZE=1 builds)");
}
ATF_TC_BODY(plan_sanitized, tc)
{
	if (!PC_SANITIZE)
		atf_tc_skip("the sanitized victim is built with SANITIZE=1");
	check_plan(&v_san);
}

/*
 * The counted entries a victim imports must be the ones its build calls:
 * nm -D --undefined-only of each binary, against the table above.
 */
static const char *const universe[] = {
	"pread", "pread64", "__pread_chk", "__pread64_chk", "preadv",
	"preadv64", "preadv2", "preadv64v2", "read", "__read_chk", "readv",
	"pwrite", "pwrite64", "pwritev", "pwritev64", "pwritev2",
	"pwritev64v2", "write", "writev", "process_vm_readv",
	"process_vm_writev", "ptrace",
};
#define	NUNIVERSE	(sizeof (universe) / sizeof (universe[0]))

static int
expected_import(const struct variant *v, const char *sym)
{
	const char *want[] = { v->v_pread, v->v_read, v->v_preadv,
	    v->v_preadv2, v->v_pwrite, v->v_pwritev, v->v_pwritev2, "readv",
	    "write", "writev", "process_vm_readv", "process_vm_writev",
	    "ptrace" };

	for (size_t i = 0; i < sizeof (want) / sizeof (want[0]); i++) {
		if (strcmp(want[i], sym) == 0)
			return (1);
	}
	return (0);
}

static void
check_imports(const struct variant *v, char *msg, size_t len)
{
	char prog[PATH_MAX], cmd[PATH_MAX + 64], line[512];
	int seen[NUNIVERSE] = { 0 };
	FILE *fp;

	victim_path(prog, sizeof (prog), v);
	(void) snprintf(cmd, sizeof (cmd), "nm -D --undefined-only '%s'", prog);
	ATF_REQUIRE((fp = popen(cmd, "r")) != NULL);
	while (fgets(line, sizeof (line), fp) != NULL) {
		char sym[256];
		char *at;

		if (sscanf(line, " U %255s", sym) != 1)
			continue;
		if ((at = strchr(sym, '@')) != NULL)
			*at = '\0';
		for (size_t i = 0; i < NUNIVERSE; i++) {
			if (strcmp(sym, universe[i]) == 0)
				seen[i] = 1;
		}
	}
	ATF_REQUIRE_EQ_MSG(pclose(fp), 0, "%s failed", cmd);
	for (size_t i = 0; i < NUNIVERSE; i++) {
		int want = expected_import(v, universe[i]);
		size_t used = strlen(msg);

		if (seen[i] != want)
			(void) snprintf(msg + used, len - used, "pc_victim_%s "
			    "%s %s\n", v->v_name, want ? "does not import" :
			    "imports", universe[i]);
	}
}

ATF_TC(victims_import_expected);
ATF_TC_HEAD(victims_import_expected, tc)
{
	atf_tc_set_md_var(tc, "descr", "Each build of the victim imports "
	    "exactly the entries it is meant to exercise (nm -D)");
	atf_tc_set_md_var(tc, "require.progs", "nm");
}
ATF_TC_BODY(victims_import_expected, tc)
{
	static char msg[4096];
	const struct variant *v[] = { &v_plain, &v_fortify, &v_fob64,
	    &v_fortify64 };

	msg[0] = '\0';
	for (size_t i = 0; i < sizeof (v) / sizeof (v[0]); i++)
		check_imports(v[i], msg, sizeof (msg));
	if (msg[0] != '\0')
		atf_tc_fail("%s", msg);
}

/* Names in the work directory, other than those in KEEP. */
static int
stray_files(const char *const *keep, char *msg, size_t len)
{
	DIR *d = opendir(".");
	struct dirent *de;
	int n = 0;

	ATF_REQUIRE(d != NULL);
	msg[0] = '\0';
	while ((de = readdir(d)) != NULL) {
		int kept = strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0;

		for (const char *const *k = keep; *k != NULL && !kept; k++)
			kept = strcmp(de->d_name, *k) == 0;
		if (!kept) {
			size_t used = strlen(msg);

			(void) snprintf(msg + used, len - used, " %s",
			    de->d_name);
			n++;
		}
	}
	(void) closedir(d);
	return (n);
}

ATF_TC(unset_writes_nothing);
ATF_TC_HEAD(unset_writes_nothing, tc)
{
	atf_tc_set_md_var(tc, "descr", "With PREADCOUNT_OUT unset or empty "
	    "the counter writes nothing");
}
ATF_TC_BODY(unset_writes_nothing, tc)
{
	const char *const keep[] = { "data", VICTIM_OUT, NULL };
	char data[PATH_MAX], msg[4096];
	const char *args[] = { "plan", data, NULL };

	work_path(data, sizeof (data), "data");
	make_file(data, DATA_SIZE);
	run_victim(&v_plain, args, NULL);
	ATF_CHECK_EQ_MSG(stray_files(keep, msg, sizeof (msg)), 0,
	    "unset: new files:%s", msg);
	run_victim(&v_plain, args, "");
	ATF_CHECK_EQ_MSG(stray_files(keep, msg, sizeof (msg)), 0,
	    "empty: new files:%s", msg);
}

ATF_TC(idle_creates_empty_file);
ATF_TC_HEAD(idle_creates_empty_file, tc)
{
	atf_tc_set_md_var(tc, "descr", "A process that makes no counted call "
	    "still creates PREADCOUNT_OUT, empty (proof it was loaded)");
}
ATF_TC_BODY(idle_creates_empty_file, tc)
{
	const char *args[] = { "idle", NULL };
	char out[PATH_MAX];
	struct stat st;

	work_path(out, sizeof (out), OUT);
	run_victim(&v_plain, args, out);
	ATF_REQUIRE_MSG(stat(out, &st) == 0, "%s: %s", out, strerror(errno));
	ATF_CHECK_EQ_MSG(st.st_size, 0, "%s holds %jd bytes", out,
	    (intmax_t)st.st_size);
}

ATF_TC(threads);
ATF_TC_HEAD(threads, tc)
{
	atf_tc_set_md_var(tc, "descr", "Two threads of N preads each are "
	    "counted as 2N calls and 2N bytes");
}
ATF_TC_BODY(threads, tc)
{
	const long n = 20000;
	char data[PATH_MAX], out[PATH_MAX], count[32];
	const char *args[] = { "threads", data, count, NULL };
	struct expect e[1];
	struct pcount_tab t;
	size_t ne = 0;

	work_path(data, sizeof (data), "data");
	work_path(out, sizeof (out), OUT);
	make_file(data, DATA_SIZE);
	(void) snprintf(count, sizeof (count), "%ld", n);
	run_victim(&v_plain, args, out);
	add_expect(e, &ne, "pread", data, 2 * (uint64_t)n, 2 * (uint64_t)n);
	escape_path(e[0].e_path, sizeof (e[0].e_path), data);
	load_out(out, &t);
	check_exact(&t, e, ne);
	pcount_free(&t);
}

ATF_TC(fork_child_counts_its_own);
ATF_TC_HEAD(fork_child_counts_its_own, tc)
{
	atf_tc_set_md_var(tc, "descr", "A forked child writes its own counts, "
	    "not again its parent's from before the fork");
}
ATF_TC_BODY(fork_child_counts_its_own, tc)
{
	char data[PATH_MAX], out[PATH_MAX], edata[PATH_MAX * 4];
	const char *args[] = { "fork", data, NULL };
	struct expect e[1];
	struct pcount_tab t;
	const struct pcount_rec *r;
	size_t ne = 0;

	work_path(data, sizeof (data), "data");
	work_path(out, sizeof (out), OUT);
	make_file(data, DATA_SIZE);
	run_victim(&v_plain, args, out);
	escape_path(edata, sizeof (edata), data);
	/* Parent 2 + 1 reads, child 3, 10 bytes each. */
	add_expect(e, &ne, "read", edata, 6, 60);
	load_out(out, &t);
	check_exact(&t, e, ne);
	r = pcount_find(&t, "read", edata);
	ATF_CHECK_EQ_MSG(r->pr_lines, 2, "%u lines for read %s; want the "
	    "parent's and the child's", r->pr_lines, edata);
	pcount_free(&t);
}

ATF_TC(exit_paths);
ATF_TC_HEAD(exit_paths, tc)
{
	atf_tc_set_md_var(tc, "descr", "Counts are written on return from "
	    "main, exit, _exit, _Exit and quick_exit");
}
ATF_TC_BODY(exit_paths, tc)
{
	const char *how[] = { "return", "exit", "_exit", "_Exit",
	    "quick_exit" };
	char data[PATH_MAX], out[PATH_MAX];

	work_path(data, sizeof (data), "data");
	make_file(data, DATA_SIZE);
	for (size_t i = 0; i < sizeof (how) / sizeof (how[0]); i++) {
		const char *args[] = { "exit", how[i], data, NULL };
		char name[64];
		struct expect e[1];
		struct pcount_tab t;
		size_t ne = 0;

		(void) snprintf(name, sizeof (name), "pc.%s.out", how[i]);
		work_path(out, sizeof (out), name);
		run_victim(&v_plain, args, out);
		add_expect(e, &ne, "read", "", 1, 7);
		escape_path(e[0].e_path, sizeof (e[0].e_path), data);
		if (access(out, F_OK) != 0)
			atf_tc_fail("%s: nothing written", how[i]);
		load_out(out, &t);
		check_exact(&t, e, ne);
		pcount_free(&t);
	}
}

ATF_TC(fd_reuse);
ATF_TC_HEAD(fd_reuse, tc)
{
	atf_tc_set_md_var(tc, "descr", "An fd number reused after close, "
	    "fclose (unseen by wrappers) or dup2 names the new file");
}
ATF_TC_BODY(fd_reuse, tc)
{
	const char *names[] = { "A", "B", "C", "D" };
	const char *args[] = { "reuse", NULL, NULL };
	char dir[PATH_MAX], out[PATH_MAX], path[PATH_MAX];
	struct expect e[4];
	struct pcount_tab t;
	size_t ne = 0;

	ATF_REQUIRE(mkdir("r", 0755) == 0);
	work_path(dir, sizeof (dir), "r");
	work_path(out, sizeof (out), OUT);
	args[1] = dir;
	for (size_t i = 0; i < 4; i++) {
		join_path(path, sizeof (path), dir, names[i]);
		make_file(path, 64);
	}
	run_victim(&v_plain, args, out);
	/* A: 5 then 1 byte; B: 6 then 2 through A's old fd; C 7; D 8. */
	add_expect(e, &ne, "read", "", 2, 6);
	add_expect(e, &ne, "read", "", 2, 8);
	add_expect(e, &ne, "read", "", 1, 7);
	add_expect(e, &ne, "read", "", 1, 8);
	for (size_t i = 0; i < 4; i++) {
		join_path(path, sizeof (path), dir, names[i]);
		escape_path(e[i].e_path, sizeof (e[i].e_path), path);
	}
	load_out(out, &t);
	check_exact(&t, e, ne);
	pcount_free(&t);
}

ATF_TC(own_io_many_pairs);
ATF_TC_HEAD(own_io_many_pairs, tc)
{
	atf_tc_set_md_var(tc, "descr", "3,000 pairs (output larger than the "
	    "library's buffer) are appended whole, and the library's own "
	    "writes and readlinks are never counted");
}
ATF_TC_BODY(own_io_many_pairs, tc)
{
	const long n = 1500;
	static const char seed[] = "seed\t/earlier/run\t1\t2\n";
	char dir[PATH_MAX], out[PATH_MAX], count[32], path[PATH_MAX];
	char epath[PATH_MAX * 4], eout[PATH_MAX * 4];
	const char *args[] = { "many", dir, count, NULL };
	struct pcount_tab t;
	const struct pcount_rec *r;
	FILE *fp;

	ATF_REQUIRE(mkdir("m", 0755) == 0);
	work_path(dir, sizeof (dir), "m");
	work_path(out, sizeof (out), OUT);
	(void) snprintf(count, sizeof (count), "%ld", n);
	/* An earlier line: the counter must append, not truncate. */
	ATF_REQUIRE((fp = fopen(out, "w")) != NULL);
	ATF_REQUIRE(fputs(seed, fp) >= 0);
	ATF_REQUIRE(fclose(fp) == 0);

	run_victim(&v_plain, args, out);
	load_out(out, &t);
	ATF_REQUIRE_MSG((r = pcount_find(&t, "seed", "/earlier/run")) != NULL &&
	    r->pr_calls == 1 && r->pr_bytes == 2, "the earlier line is gone");
	for (long i = 0; i < n; i++) {
		char leaf[32];

		(void) snprintf(leaf, sizeof (leaf), "m%05ld", i);
		join_path(path, sizeof (path), dir, leaf);
		escape_path(epath, sizeof (epath), path);
		r = pcount_find(&t, "write", epath);
		ATF_REQUIRE_MSG(r != NULL && r->pr_calls == 1 &&
		    r->pr_bytes == 3 && r->pr_lines == 1, "write %s", epath);
		r = pcount_find(&t, "pread", epath);
		ATF_REQUIRE_MSG(r != NULL && r->pr_calls == 1 &&
		    r->pr_bytes == 2 && r->pr_lines == 1, "pread %s", epath);
	}
	escape_path(eout, sizeof (eout), out);
	for (size_t j = 0; j < t.pt_n; j++) {
		const char *p = t.pt_recs[j].pr_path;

		ATF_CHECK_MSG(strcmp(p, eout) != 0 &&
		    strncmp(p, "/proc/", 6) != 0, "the library counted its own "
		    "I/O: %s %s", t.pt_recs[j].pr_call, p);
	}
	ATF_CHECK_EQ_MSG(t.pt_n, 2 * (size_t)n + 1, "%zu pairs, want %ld",
	    t.pt_n, 2 * n + 1);
	ATF_CHECK_EQ_MSG(t.pt_lines, 2 * (size_t)n + 1, "%zu lines, want %ld",
	    t.pt_lines, 2 * n + 1);
	pcount_free(&t);
	(void) system("rm -rf m");
}

ATF_TC(overflow_keeps_totals);
ATF_TC_HEAD(overflow_keeps_totals, tc)
{
	atf_tc_set_md_var(tc, "descr", "More distinct paths than the tables "
	    "hold: the rest is summed on (overflow), totals stay exact");
}
ATF_TC_BODY(overflow_keeps_totals, tc)
{
	const long n = 200000;
	char out[PATH_MAX], count[32];
	const char *args[] = { "pids", count, NULL };
	struct pcount_tab t;
	uint64_t calls = 0, bytes = 0;
	int overflow = 0;

	work_path(out, sizeof (out), OUT);
	(void) snprintf(count, sizeof (count), "%ld", n);
	run_victim(&v_plain, args, out);
	load_out(out, &t);
	ATF_CHECK_EQ_MSG(t.pt_lines, t.pt_n, "a pair written twice");
	for (size_t j = 0; j < t.pt_n; j++) {
		const struct pcount_rec *r = &t.pt_recs[j];
		long pid;
		char extra;

		ATF_REQUIRE_STREQ(r->pr_call, "process_vm_readv");
		calls += r->pr_calls;
		bytes += r->pr_bytes;
		if (strcmp(r->pr_path, "(overflow)") == 0) {
			overflow++;
			continue;
		}
		ATF_REQUIRE_MSG(sscanf(r->pr_path, "pid:%ld%c", &pid,
		    &extra) == 1 && pid >= 1 && pid <= n && r->pr_calls == 1,
		    "bad pair %s %s %" PRIu64, r->pr_call, r->pr_path,
		    r->pr_calls);
	}
	ATF_CHECK_EQ_MSG(overflow, 1, "%d (overflow) pairs, want 1", overflow);
	ATF_CHECK_EQ_MSG(calls, (uint64_t)n, "%" PRIu64 " calls, want %ld",
	    calls, n);
	ATF_CHECK_EQ_MSG(bytes, 0, "%" PRIu64 " bytes, want 0", bytes);
	pcount_free(&t);
}

ATF_TC(escaped_path);
ATF_TC_HEAD(escaped_path, tc)
{
	atf_tc_set_md_var(tc, "descr", "Tab, newline and backslash in a path "
	    "are written as \\ooo, so each line stays one record");
}
ATF_TC_BODY(escaped_path, tc)
{
	static const char name[] = "a\tb\nc\\d";
	char dir[PATH_MAX], out[PATH_MAX], path[PATH_MAX];
	const char *args[] = { "escape", dir, name, NULL };
	struct expect e[1];
	struct pcount_tab t;
	size_t ne = 0;
	char *tail;

	ATF_REQUIRE(mkdir("e", 0755) == 0);
	work_path(dir, sizeof (dir), "e");
	work_path(out, sizeof (out), OUT);
	join_path(path, sizeof (path), dir, name);
	make_file(path, 16);
	run_victim(&v_plain, args, out);
	add_expect(e, &ne, "read", "", 1, 4);
	escape_path(e[0].e_path, sizeof (e[0].e_path), path);
	/* The escaping of the name itself, spelled out. */
	tail = e[0].e_path + strlen(e[0].e_path) - strlen("a\\011b\\012c\\134d");
	ATF_REQUIRE_STREQ(tail, "a\\011b\\012c\\134d");
	load_out(out, &t);
	check_exact(&t, e, ne);
	pcount_free(&t);
}

ATF_TC(netlink_plain);
ATF_TC_HEAD(netlink_plain, tc)
{
	atf_tc_set_md_var(tc, "descr", "send, sendto, sendmsg, recv, "
	    "recvfrom and recvmsg on netlink sockets (to another socket and "
	    "to the kernel's NETLINK_SOCK_DIAG) are counted exactly under "
	    "netlink:PROTO; the same calls on a unix socket or a closed fd "
	    "are not counted; errno is kept");
}
ATF_TC_BODY(netlink_plain, tc)
{
	check_netlink(&nl_plain);
}

ATF_TC(netlink_fortify);
ATF_TC_HEAD(netlink_fortify, tc)
{
	atf_tc_set_md_var(tc, "descr", "-O2 -D_FORTIFY_SOURCE=2: netlink "
	    "receives through __recv_chk and __recvfrom_chk are counted "
	    "under their own names");
}
ATF_TC_BODY(netlink_fortify, tc)
{
	check_netlink(&nl_fortify);
}

ATF_TC(netlink_unset_writes_nothing);
ATF_TC_HEAD(netlink_unset_writes_nothing, tc)
{
	atf_tc_set_md_var(tc, "descr", "With PREADCOUNT_OUT unset the "
	    "netlink victim runs as without the counter and nothing is "
	    "written");
}
ATF_TC_BODY(netlink_unset_writes_nothing, tc)
{
	const char *const keep[] = { VICTIM_OUT, NULL };
	char msg[4096];

	run_nl_victim(&nl_plain, NULL);
	ATF_CHECK_EQ_MSG(stray_files(keep, msg, sizeof (msg)), 0,
	    "files written:%s", msg);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, plan_plain);
	ATF_TP_ADD_TC(tp, plan_fortify);
	ATF_TP_ADD_TC(tp, plan_fob64);
	ATF_TP_ADD_TC(tp, plan_fortify64);
	ATF_TP_ADD_TC(tp, plan_sanitized);
	ATF_TP_ADD_TC(tp, victims_import_expected);
	ATF_TP_ADD_TC(tp, unset_writes_nothing);
	ATF_TP_ADD_TC(tp, idle_creates_empty_file);
	ATF_TP_ADD_TC(tp, threads);
	ATF_TP_ADD_TC(tp, fork_child_counts_its_own);
	ATF_TP_ADD_TC(tp, exit_paths);
	ATF_TP_ADD_TC(tp, fd_reuse);
	ATF_TP_ADD_TC(tp, own_io_many_pairs);
	ATF_TP_ADD_TC(tp, overflow_keeps_totals);
	ATF_TP_ADD_TC(tp, escaped_path);
	ATF_TP_ADD_TC(tp, netlink_plain);
	ATF_TP_ADD_TC(tp, netlink_fortify);
	ATF_TP_ADD_TC(tp, netlink_unset_writes_nothing);
	return (atf_no_error());
}
