/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * agentutil: the helpers of the agent's test programs (t_agent_life,
 * t_pr_calls, t_agent_pass); see agentutil.h.
 */
#include <atf-c.h>
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agentutil.h"
#include "libproc.h"
#include "testutil.h"

/* ------------------------------------------------------------------ */
/* The target's manifest (see fixtures/agent_target.c), parsed. */

static size_t
parse_hex(const char *s, uint8_t *buf, size_t cap)
{
	size_t len;
	char *p;

	len = strtoul(s, &p, 10);
	ATF_REQUIRE_MSG(*p == ' ' && len <= cap, "bad hex field: %s", s);
	p++;
	for (size_t i = 0; i < len; i++) {
		unsigned v;

		ATF_REQUIRE(sscanf(p + 2 * i, "%2x", &v) == 1);
		buf[i] = (uint8_t)v;
	}
	return (len);
}

/* "error E" or "LEN HEX": the errno, or 0 with the bytes. */
static int
parse_result(const char *s, uint8_t *buf, size_t cap, size_t *lenp)
{
	if (strncmp(s, "error ", 6) == 0)
		return (atoi(s + 6));
	*lenp = parse_hex(s, buf, cap);
	return (0);
}

static void
parse_line(au_manifest_t *m, const char *l)
{
	au_mfd_t *f = m->nfds > 0 ? &m->fds[m->nfds - 1] : NULL;
	int n;

	if (sscanf(l, "pid %d", &n) == 1) {
		m->pid = n;
	} else if (strncmp(l, "sigmask ", 8) == 0) {
		m->sigmask = strtoull(l + 8, NULL, 16);
	} else if (strncmp(l, "rlimit ", 7) == 0) {
		ATF_REQUIRE(m->nrl < 4);
		ATF_REQUIRE(sscanf(l, "rlimit %d %llu %llu", &m->rl[m->nrl].res,
		    &m->rl[m->nrl].cur, &m->rl[m->nrl].max) == 3);
		m->nrl++;
	} else if (sscanf(l, "pingport %d", &n) == 1) {
		m->pingport = n;
	} else if (strncmp(l, "file ", 5) == 0) {
		(void) snprintf(m->file, sizeof (m->file), "%s", l + 5);
	} else if (strncmp(l, "fd ", 3) == 0) {
		ATF_REQUIRE(m->nfds < 16);
		f = &m->fds[m->nfds++];
		memset(f, 0, sizeof (*f));
		ATF_REQUIRE(sscanf(l, "fd %d %15s", &f->fd, f->kind) == 2);
	} else if (f == NULL) {
		atf_tc_fail("manifest line before any fd: %s", l);
	} else if (sscanf(l, "getfl %d", &n) == 1) {
		f->getfl = n;
	} else if (sscanf(l, "getfd %d", &n) == 1) {
		f->getfd = n;
	} else if (strncmp(l, "stat ", 5) == 0) {
		ATF_REQUIRE(sscanf(l, "stat %llu %llu %u %llu %u %u %llu %lld",
		    &f->dev, &f->ino, &f->mode, &f->nlink, &f->uid, &f->gid,
		    &f->rdev, &f->size) == 8);
	} else if (sscanf(l, "offset error %d", &n) == 1) {
		f->off_err = n;
	} else if (strncmp(l, "offset ", 7) == 0) {
		f->offset = atoll(l + 7);
	} else if (strncmp(l, "getlk ", 6) == 0) {
		f->have_lk = 1;
		ATF_REQUIRE(sscanf(l, "getlk %d %lld %lld %d", &f->lk_type,
		    &f->lk_start, &f->lk_len, &f->lk_pid) == 4);
	} else if (strncmp(l, "sockopt ", 8) == 0) {
		au_mopt_t *o;
		int off;

		ATF_REQUIRE(f->nopts < 20);
		o = &f->opts[f->nopts++];
		ATF_REQUIRE(sscanf(l, "sockopt %d %d %n", &o->level, &o->name,
		    &off) == 2);
		o->err = parse_result(l + off, o->val, sizeof (o->val),
		    &o->len);
	} else if (strncmp(l, "sockname ", 9) == 0) {
		f->sn_err = parse_result(l + 9, f->sn, sizeof (f->sn),
		    &f->sn_len);
	} else if (strncmp(l, "peername ", 9) == 0) {
		f->pn_err = parse_result(l + 9, f->pn, sizeof (f->pn),
		    &f->pn_len);
	} else {
		atf_tc_fail("unknown manifest line: %s", l);
	}
}

/* Read a manifest (up to "end") from the target's stdout. */
void
au_read_manifest(tu_child_t *c, au_manifest_t *m)
{
	int found;
	char *p, *nl;

	memset(m, 0, sizeof (*m));
	m->pingport = -1;
	m->text = tu_read_until(c->tc_out, "end", AU_LINE_MS, &found);
	ATF_REQUIRE_MSG(found, "the target's manifest has no end");
	for (p = m->text; (nl = strchr(p, '\n')) != NULL; p = nl + 1) {
		*nl = '\0';
		parse_line(m, p);
		*nl = '\n';
	}
	ATF_REQUIRE_MSG(m->pid > 0 && m->nfds > 0, "empty manifest");
}

void
au_free_manifest(au_manifest_t *m)
{
	free(m->text);
	m->text = NULL;
}

/* One write, so that the target's one read gets the whole line. */
void
au_send_line(tu_child_t *c, const char *line)
{
	char *l = tu_asprintf("%s\n", line);
	size_t len = strlen(l);

	ATF_REQUIRE_MSG(write(c->tc_in, l, len) == (ssize_t)len,
	    "write to the target: %s", strerror(errno));
	free(l);
}

/* The target answers "pong" to "ping": its main thread serves again. */
void
au_require_pong(tu_child_t *c)
{
	char *l;

	au_send_line(c, "ping");
	l = tu_read_line(c->tc_out, AU_LINE_MS);
	ATF_REQUIRE_MSG(l != NULL, "the target went away");
	ATF_REQUIRE_MSG(strcmp(l, "pong") == 0,
	    "the target answered '%s' to ping (a read it was blocked in did "
	    "not resume cleanly)", l);
	free(l);
}

void
au_spawn_fds(tu_child_t *c, int nthreads, au_manifest_t *m)
{
	char n[16];
	const char *argv[] = { AU_TARGET, "fds", "-T", n, NULL };

	(void) snprintf(n, sizeof (n), "%d", nthreads);
	if (nthreads == 0)
		argv[2] = NULL;
	tu_spawn(c, argv, 0);
	au_read_manifest(c, m);
}

void
au_stop_target(tu_child_t *c)
{
	int st;

	au_send_line(c, "exit");
	st = tu_stop(c, AU_LINE_MS);
	ATF_REQUIRE_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 0,
	    "the target did not exit cleanly (status 0x%x)", st);
}

struct ps_prochandle *
au_grab(pid_t pid)
{
	struct ps_prochandle *P;
	int gerr;

	P = Pgrab(pid, 0, &gerr);
	ATF_REQUIRE_MSG(P != NULL, "Pgrab %d: %s", (int)pid,
	    Pgrab_error(gerr));
	return (P);
}

void
au_create_agent(struct ps_prochandle *P)
{
	ATF_REQUIRE_MSG(Pcreate_agent(P) == 0, "Pcreate_agent: %s (%s)",
	    strerror(errno), Perrmsg(P));
}

/* TracerPid of pid's status, or -1. */
int
au_tracer_of(pid_t pid)
{
	char path[64], *text, *p;
	int tracer = -1;

	(void) snprintf(path, sizeof (path), "/proc/%d/status", (int)pid);
	text = tu_read_file(path, NULL);
	if ((p = strstr(text, "TracerPid:")) != NULL)
		tracer = atoi(p + strlen("TracerPid:"));
	free(text);
	return (tracer);
}

/* Wait (bounded) until pid's TracerPid is want (or, want < 0, not 0). */
void
au_require_tracer(pid_t pid, int want)
{
	int t = -1;

	for (int i = 0; i < 400; i++) {
		t = au_tracer_of(pid);
		if (want < 0 ? t > 0 : t == want)
			return;
		(void) usleep(5000);
	}
	atf_tc_fail("TracerPid of %d is %d, want %d", (int)pid, t, want);
}

/* The target must be neither stopped nor traced. */
void
au_require_free(pid_t pid)
{
	char st;

	au_require_tracer(pid, 0);
	st = tu_proc_state(pid);
	ATF_REQUIRE_MSG(st != 'T' && st != 't' && st != 0,
	    "target %d is in state %c", (int)pid, st ? st : '?');
}

/* ------------------------------------------------------------------ */
/* Every pr_* call against the target's own view. */

void
au_compare_stat(struct ps_prochandle *P, const au_mfd_t *f)
{
	struct stat st;

	ATF_REQUIRE_EQ_MSG(pr_fstat(P, f->fd, &st), 0, "pr_fstat %d: %s",
	    f->fd, strerror(errno));
	ATF_CHECK_EQ_MSG((unsigned long long)st.st_dev, f->dev, "fd %d",
	    f->fd);
	ATF_CHECK_EQ_MSG((unsigned long long)st.st_ino, f->ino, "fd %d",
	    f->fd);
	ATF_CHECK_EQ_MSG(st.st_mode, f->mode, "fd %d", f->fd);
	ATF_CHECK_EQ_MSG((unsigned long long)st.st_nlink, f->nlink, "fd %d",
	    f->fd);
	ATF_CHECK_EQ_MSG(st.st_uid, f->uid, "fd %d", f->fd);
	ATF_CHECK_EQ_MSG(st.st_gid, f->gid, "fd %d", f->fd);
	ATF_CHECK_EQ_MSG((unsigned long long)st.st_rdev, f->rdev, "fd %d",
	    f->fd);
	ATF_CHECK_EQ_MSG((long long)st.st_size, f->size, "fd %d", f->fd);
}

void
au_compare_fcntl_lseek(struct ps_prochandle *P, const au_mfd_t *f)
{
	off_t off;

	ATF_CHECK_EQ_MSG(pr_fcntl(P, f->fd, F_GETFL, NULL), f->getfl,
	    "F_GETFL of fd %d", f->fd);
	ATF_CHECK_EQ_MSG(pr_fcntl(P, f->fd, F_GETFD, NULL), f->getfd,
	    "F_GETFD of fd %d", f->fd);
	errno = 0;
	off = pr_lseek(P, f->fd, 0, SEEK_CUR);
	if (f->off_err != 0) {
		ATF_CHECK_EQ_MSG(off, -1, "lseek of fd %d", f->fd);
		ATF_CHECK_EQ_MSG(errno, f->off_err, "lseek errno of fd %d",
		    f->fd);
	} else {
		ATF_CHECK_EQ_MSG(off, f->offset, "offset of fd %d", f->fd);
	}
	if (f->have_lk) {
		struct flock fl;

		memset(&fl, 0, sizeof (fl));
		fl.l_type = F_WRLCK;
		fl.l_whence = SEEK_SET;
		ATF_REQUIRE_EQ(pr_fcntl(P, f->fd, F_GETLK, &fl), 0);
		ATF_CHECK_EQ(fl.l_type, f->lk_type);
		ATF_CHECK_EQ(fl.l_start, f->lk_start);
		ATF_CHECK_EQ(fl.l_len, f->lk_len);
		ATF_CHECK_EQ(fl.l_pid, f->lk_pid);
	}
}

void
au_compare_socket(struct ps_prochandle *P, const au_mfd_t *f)
{
	uint8_t buf[128];
	socklen_t slen;
	int len, r;

	for (int i = 0; i < f->nopts; i++) {
		const au_mopt_t *o = &f->opts[i];

		len = 64;
		memset(buf, 0xee, sizeof (buf));
		errno = 0;
		r = pr_getsockopt(P, f->fd, o->level, o->name, buf, &len);
		if (o->err != 0) {
			ATF_CHECK_EQ_MSG(r, -1, "fd %d opt %d/%d", f->fd,
			    o->level, o->name);
			ATF_CHECK_EQ_MSG(errno, o->err, "fd %d opt %d/%d",
			    f->fd, o->level, o->name);
			continue;
		}
		ATF_CHECK_EQ_MSG(r, 0, "fd %d opt %d/%d: %s", f->fd, o->level,
		    o->name, strerror(errno));
		ATF_CHECK_EQ_MSG((size_t)len, o->len, "fd %d opt %d/%d",
		    f->fd, o->level, o->name);
		ATF_CHECK_MSG(memcmp(buf, o->val, o->len) == 0,
		    "fd %d opt %d/%d: another value", f->fd, o->level,
		    o->name);
	}

	slen = sizeof (buf);
	errno = 0;
	r = pr_getsockname(P, f->fd, (struct sockaddr *)buf, &slen);
	ATF_CHECK_EQ_MSG(r, f->sn_err ? -1 : 0, "getsockname of fd %d", f->fd);
	if (f->sn_err != 0)
		ATF_CHECK_EQ(errno, f->sn_err);
	else
		ATF_CHECK_MSG(slen == f->sn_len &&
		    memcmp(buf, f->sn, slen) == 0, "sockname of fd %d", f->fd);

	slen = sizeof (buf);
	errno = 0;
	r = pr_getpeername(P, f->fd, (struct sockaddr *)buf, &slen);
	ATF_CHECK_EQ_MSG(r, f->pn_err ? -1 : 0, "getpeername of fd %d", f->fd);
	if (f->pn_err != 0)
		ATF_CHECK_EQ(errno, f->pn_err);
	else
		ATF_CHECK_MSG(slen == f->pn_len &&
		    memcmp(buf, f->pn, slen) == 0, "peername of fd %d", f->fd);
}

const au_mfd_t *
au_find_kind(const au_manifest_t *m, const char *kind)
{
	for (int i = 0; i < m->nfds; i++) {
		if (strcmp(m->fds[i].kind, kind) == 0)
			return (&m->fds[i]);
	}
	atf_tc_fail("no %s in the manifest", kind);
	return (NULL);
}

/* Another thread of the target answers while the main one is ours. */
void
au_require_ping_port(int port)
{
	struct sockaddr_in sin;
	struct timeval tv = { 5, 0 };
	char buf[8];
	int s = socket(AF_INET, SOCK_STREAM, 0);

	ATF_REQUIRE(s >= 0);
	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)port);
	ATF_REQUIRE(setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv,
	    sizeof (tv)) == 0);
	ATF_REQUIRE(connect(s, (struct sockaddr *)&sin, sizeof (sin)) == 0);
	ATF_REQUIRE_MSG(read(s, buf, 5) == 5 && memcmp(buf, "pong\n", 5) == 0,
	    "the target's other thread did not answer");
	(void) close(s);
}
