/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * manifest.c: a sockfix manifest read into a manifest_t (see expect.h),
 * for expect.c to write pfiles' expected text from.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "expect.h"

#define	MAX_LINE	1024
#define	MAX_FDS		4096

const char *const mf_opt_names[MF_NOPTS] = {
	"SO_DEBUG", "SO_REUSEADDR", "SO_KEEPALIVE", "SO_DONTROUTE",
	"SO_BROADCAST", "SO_OOBINLINE", "SO_REUSEPORT", "SO_PASSCRED",
	"SO_ACCEPTCONN", "TCP_NODELAY", "SO_SNDBUF", "SO_RCVBUF",
};

static void
set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void) vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

/* ---------------------------------------------------------------------
 * Parsing the manifest.
 */

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return (c - '0');
	if (c >= 'a' && c <= 'f')
		return (c - 'a' + 10);
	return (-1);
}

/*
 * Decode "LEN HEX" at s into a malloc'd buffer of LEN bytes (plus a NUL).
 * An empty string is written "0 -".  Returns NULL when malformed.
 */
static unsigned char *
parse_bytes(const char *s, size_t *lenp)
{
	unsigned long len;
	unsigned char *buf;
	char *end;

	errno = 0;
	len = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != ' ' || len > 65536)
		return (NULL);
	s = end + 1;
	if (len == 0 && strcmp(s, "-") != 0)
		return (NULL);
	if (len > 0 && strlen(s) != 2 * len)
		return (NULL);
	if ((buf = malloc(len + 1)) == NULL)
		return (NULL);
	for (size_t i = 0; i < len; i++) {
		int hi = hexval(s[2 * i]), lo = hexval(s[2 * i + 1]);

		if (hi < 0 || lo < 0) {
			free(buf);
			return (NULL);
		}
		buf[i] = (unsigned char)(hi << 4 | lo);
	}
	buf[len] = '\0';
	*lenp = len;
	return (buf);
}

static int
parse_addr(const char *s, mf_addr_t *a)
{
	unsigned char *bytes;
	size_t len;
	int e;

	if (sscanf(s, "error %d", &e) == 1) {
		a->a_known = 0;
		return (0);
	}
	if ((bytes = parse_bytes(s, &len)) == NULL || len > MF_ADDR_MAX) {
		free(bytes);
		return (-1);
	}
	memcpy(a->a_bytes, bytes, len);
	a->a_len = len;
	a->a_known = 1;
	free(bytes);
	return (0);
}

static int
parse_sockopt(const char *s, mf_fd_t *f)
{
	char name[32];
	int v, n = 0;

	if (sscanf(s, "%31s %n", name, &n) != 1 || n == 0)
		return (-1);
	for (int i = 0; i < MF_NOPTS; i++) {
		if (strcmp(name, mf_opt_names[i]) != 0)
			continue;
		if (sscanf(s + n, "error %d", &v) == 1) {
			f->f_opt[i].v_known = 0;
			return (0);
		}
		if (sscanf(s + n, "%d", &v) != 1)
			return (-1);
		f->f_opt[i].v_known = 1;
		f->f_opt[i].v_value = v;
		return (0);
	}
	return (-1);
}

/* "STATE queued R S" or "STATE backlog W L". */
static int
parse_sockstate(const char *s, mf_fd_t *f)
{
	char kind[16];

	if (f->f_ss_known || sscanf(s, "%d %15s %u %u", &f->f_ss_state, kind,
	    &f->f_ss_a, &f->f_ss_b) != 4)
		return (-1);
	if (strcmp(kind, "backlog") == 0)
		f->f_ss_backlog = 1;
	else if (strcmp(kind, "queued") != 0)
		return (-1);
	f->f_ss_known = 1;
	return (0);
}

/* "N G1 ... GN": the numbers of the groups, each from 1. */
static int
parse_groups(const char *s, mf_fd_t *f)
{
	int n, used;

	if (f->f_ngroups >= 0 || sscanf(s, "%d%n", &n, &used) != 1 || n < 0 ||
	    n > MF_MAX_GROUPS)
		return (-1);
	for (int i = 0; i < n; i++) {
		int more;

		s += used;
		if (sscanf(s, " %u%n", &f->f_groups[i], &more) != 1 ||
		    f->f_groups[i] == 0)
			return (-1);
		used = more;
	}
	if (s[used] != '\0')
		return (-1);
	f->f_ngroups = n;
	return (0);
}

/* The facts sockfix knows of a socket beyond its calls' answers. */
static int
parse_known(const char *key, const char *rest, mf_fd_t *f)
{
	unsigned char *b;
	size_t len;

	if (strcmp(key, "sockstate") == 0)
		return (parse_sockstate(rest, f));
	if (strcmp(key, "nlgroups") == 0)
		return (parse_groups(rest, f));
	if (strcmp(key, "ifname") == 0) {
		if ((b = parse_bytes(rest, &len)) == NULL || len == 0 ||
		    len > MF_IFNAME_MAX || strlen((char *)b) != len) {
			free(b);
			return (-1);
		}
		memcpy(f->f_ifname, b, len + 1);
		free(b);
		return (0);
	}
	return (-1);
}

/* One line of an fd record ("fd" itself excluded). */
static int
parse_fd_line(const char *key, const char *rest, mf_fd_t *f)
{
	size_t len;
	int e, pid;
	long long start, llen;
	char type[8];

	if (strcmp(key, "stat") == 0)
		return (sscanf(rest, "mode=%o dev=%u,%u ino=%llu uid=%u "
		    "gid=%u size=%lld rdev=%u,%u", &f->f_mode, &f->f_devmaj,
		    &f->f_devmin, &f->f_ino, &f->f_uid, &f->f_gid, &f->f_size,
		    &f->f_rdevmaj, &f->f_rdevmin) == 9 ? 0 : -1);
	if (strcmp(key, "flags") == 0)
		return (sscanf(rest, "getfl=%o getfd=%d", &f->f_getfl,
		    &f->f_getfd) == 2 ? 0 : -1);
	if (strcmp(key, "offset") == 0) {
		if (sscanf(rest, "none %d", &e) == 1)
			return (0);
		f->f_has_offset = 1;
		return (sscanf(rest, "%lld", &f->f_offset) == 1 ? 0 : -1);
	}
	if (strcmp(key, "link") == 0) {
		if (sscanf(rest, "none %d", &e) == 1)
			return (0);
		f->f_link = (char *)parse_bytes(rest, &len);
		return (f->f_link != NULL && strlen(f->f_link) == len ?
		    0 : -1);
	}
	if (strcmp(key, "lock") == 0) {
		if (f->f_nlocks == MF_MAX_LOCKS ||
		    sscanf(rest, "%7s %d %lld %lld", type, &pid, &start,
		    &llen) != 4)
			return (-1);
		f->f_locks[f->f_nlocks].l_write = strcmp(type, "write") == 0;
		f->f_locks[f->f_nlocks].l_pid = pid;
		f->f_nlocks++;
		return (0);
	}
	if (strcmp(key, "socket") == 0) {
		f->f_is_socket = 1;
		return (sscanf(rest, "type=%d protocol=%d domain=%d",
		    &f->f_type, &f->f_protocol, &f->f_domain) == 3 ? 0 : -1);
	}
	if (strcmp(key, "sockopt") == 0)
		return (parse_sockopt(rest, f));
	if (strcmp(key, "linger") == 0) {
		if (sscanf(rest, "error %d", &e) == 1)
			return (0);
		f->f_linger_known = 1;
		return (sscanf(rest, "%d %d", &f->f_linger_onoff,
		    &f->f_linger_secs) == 2 ? 0 : -1);
	}
	if (strcmp(key, "sockname") == 0)
		return (parse_addr(rest, &f->f_sockname));
	if (strcmp(key, "peername") == 0)
		return (parse_addr(rest, &f->f_peername));
	if (strcmp(key, "peercred") == 0) {
		if (sscanf(rest, "error %d", &e) == 1)
			return (0);
		f->f_cred_known = 1;
		return (sscanf(rest, "%d", &f->f_cred_pid) == 1 ? 0 : -1);
	}
	return (parse_known(key, rest, f));
}

static mf_fd_t *
new_fd(manifest_t *m, const char *rest)
{
	mf_fd_t *nfds, *f;
	char kind[32];
	int fd;

	if (m->m_nfds == MAX_FDS ||
	    sscanf(rest, "%d %31s", &fd, kind) != 2 || fd < 0 ||
	    (m->m_nfds > 0 && m->m_fds[m->m_nfds - 1].f_fd >= fd))
		return (NULL);
	nfds = realloc(m->m_fds, (m->m_nfds + 1) * sizeof (*nfds));
	if (nfds == NULL)
		return (NULL);
	m->m_fds = nfds;
	f = &m->m_fds[m->m_nfds++];
	memset(f, 0, sizeof (*f));
	f->f_fd = fd;
	f->f_ngroups = -1;
	(void) snprintf(f->f_kind, sizeof (f->f_kind), "%s", kind);
	return (f);
}

/* "PFD PID FD LEN HEX": another process's fd on the socket of PFD. */
static int
parse_holder(manifest_t *m, const char *rest)
{
	mf_holder_t *h = &m->m_holders[m->m_nholders];
	unsigned char *comm;
	size_t len;
	int pid, n = 0;

	if (m->m_nholders == MF_MAX_HOLDERS ||
	    sscanf(rest, "%d %d %d %n", &h->h_pfd, &pid, &h->h_fd, &n) != 3 ||
	    n == 0 || h->h_pfd < 0 || pid <= 0 || h->h_fd < 0)
		return (-1);
	if ((comm = parse_bytes(rest + n, &len)) == NULL ||
	    len >= sizeof (h->h_comm)) {
		free(comm);
		return (-1);
	}
	memcpy(h->h_comm, comm, len + 1);
	free(comm);
	h->h_pid = pid;
	m->m_nholders++;
	return (0);
}

/* One line of the process part. */
static int
parse_proc_line(manifest_t *m, const char *key, const char *rest)
{
	unsigned char *b;
	size_t len;
	int version, pid;

	if (strcmp(key, "sockfix") == 0)
		return (sscanf(rest, "%d", &version) == 1 && version == 3 ?
		    0 : -1);
	if (strcmp(key, "holder") == 0)
		return (parse_holder(m, rest));
	if (strcmp(key, "pair") == 0) {
		int fd1, fd2;

		if (m->m_npairs == MF_MAX_PAIRS ||
		    sscanf(rest, "%d %d", &fd1, &fd2) != 2 || fd1 < 0 ||
		    fd2 < 0)
			return (-1);
		m->m_pairs[m->m_npairs][0] = fd1;
		m->m_pairs[m->m_npairs][1] = fd2;
		m->m_npairs++;
		return (0);
	}
	if (strcmp(key, "pid") == 0) {
		if (sscanf(rest, "%d", &pid) != 1 || pid <= 0)
			return (-1);
		m->m_pid = pid;
		return (0);
	}
	if (strcmp(key, "comm") == 0) {
		if ((b = parse_bytes(rest, &len)) == NULL ||
		    len >= sizeof (m->m_comm)) {
			free(b);
			return (-1);
		}
		memcpy(m->m_comm, b, len + 1);
		free(b);
		return (0);
	}
	if (strcmp(key, "cmdline") == 0) {
		free(m->m_cmdline);
		m->m_cmdline = (char *)parse_bytes(rest, &m->m_cmdlen);
		return (m->m_cmdline != NULL ? 0 : -1);
	}
	if (strcmp(key, "rlimit_nofile") == 0)
		return (sscanf(rest, "%llu %llu", &m->m_rlim_cur,
		    &m->m_rlim_max) == 2 ? 0 : -1);
	if (strcmp(key, "skip") == 0) {
		size_t used = strlen(m->m_skipped);

		if (strlen(rest) + 2 > sizeof (m->m_skipped) - used)
			return (-1);
		(void) snprintf(m->m_skipped + used,
		    sizeof (m->m_skipped) - used, "%s\n", rest);
		return (0);
	}
	return (-1);
}

manifest_t *
mf_parse(const char *text, char *err, size_t errlen)
{
	manifest_t *m = calloc(1, sizeof (*m));
	mf_fd_t *cur = NULL;
	int lineno = 0;

	if (m == NULL) {
		set_err(err, errlen, "out of memory");
		return (NULL);
	}
	for (const char *p = text; *p != '\0'; ) {
		const char *nl = strchr(p, '\n');
		size_t n = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char line[MAX_LINE], *rest;
		int bad;

		lineno++;
		if (n >= sizeof (line)) {
			set_err(err, errlen, "manifest line %d too long",
			    lineno);
			goto fail;
		}
		memcpy(line, p, n);
		line[n] = '\0';
		p += n + (nl != NULL);

		if ((rest = strchr(line, ' ')) == NULL) {
			bad = 1;
		} else {
			*rest++ = '\0';
			if (strcmp(line, "fd") == 0)
				bad = (cur = new_fd(m, rest)) == NULL;
			else if (cur != NULL)
				bad = parse_fd_line(line, rest, cur) != 0;
			else
				bad = parse_proc_line(m, line, rest) != 0;
		}
		if (bad) {
			set_err(err, errlen, "bad manifest line %d: %.*s",
			    lineno, (int)n, p - n - (nl != NULL));
			goto fail;
		}
	}
	if (m->m_pid == 0 || m->m_cmdline == NULL || m->m_nfds == 0) {
		set_err(err, errlen, "manifest without pid, cmdline or fds");
		goto fail;
	}
	return (m);
fail:
	mf_free(m);
	return (NULL);
}

void
mf_free(manifest_t *m)
{
	if (m == NULL)
		return;
	for (size_t i = 0; i < m->m_nfds; i++)
		free(m->m_fds[i].f_link);
	free(m->m_fds);
	free(m->m_cmdline);
	free(m);
}

const mf_fd_t *
mf_find_kind(const manifest_t *m, const char *kind)
{
	for (size_t i = 0; i < m->m_nfds; i++)
		if (strcmp(m->m_fds[i].f_kind, kind) == 0)
			return (&m->m_fds[i]);
	return (NULL);
}

int
mf_skipped(const manifest_t *m, const char *name)
{
	size_t n = strlen(name);
	int e;

	for (const char *p = m->m_skipped; *p != '\0'; ) {
		if (strncmp(p, name, n) == 0 && p[n] == ' ' &&
		    sscanf(p + n + 1, "%d", &e) == 1)
			return (e != 0 ? e : -1);
		p = strchr(p, '\n');
		if (p == NULL)
			break;
		p++;
	}
	return (0);
}
