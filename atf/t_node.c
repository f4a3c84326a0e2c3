/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_node: pfiles on the seed's scenario, fixtures/sockets.js under node,
 * with 100 loopback connections.
 *
 * This is a structure check, not the byte-for-byte test (t_pfiles_fixture
 * does that): node reports what it opened (its pid, the server's port and
 * fd, each client's local port and fd, each accepted connection's remote
 * port and fd), and pfiles' view of the process must agree with it:
 *
 *   - 201 sockets in all: the listener, 100 clients, 100 accepted;
 *   - every socket has exactly one sockname line, at most one peername;
 *   - exactly one socket has SO_ACCEPTCONN: the listener, at node's
 *     listen fd, with the server's address and no peername;
 *   - each client's peername is the server's sockname, and its sockname
 *     is the local port node reported for that fd;
 *   - each accepted socket pairs with exactly one client, one to one:
 *     its peername is that client's sockname and that client's peername
 *     is its sockname;
 *   - endpoints: each accepted socket has exactly one endpoint line, and
 *     it names node (its comm, its pid) and the fd of the client whose
 *     port node reported as that accept's remote port; each client's
 *     names the fd of that accepted socket; the listener has none (node
 *     holds both ends of every connection, so pfiles reads no other
 *     process);
 *   - states: the listener "LISTEN  backlog: 0 of L", L the backlog node
 *     reports asking of listen(2), at most net.core.somaxconn (every
 *     connection is accepted); every other socket "ESTABLISHED  queued:
 *     0 to read, 0 to send" (nothing is written); no socket is shared
 *     (node holds each at one fd);
 *   - pfiles exits 0 with nothing on stderr, and node is still running
 *     (not stopped) afterwards and exits 0 when its stdin is closed.
 *
 * node_max_diag does the same at the most connections this machine's
 * hard RLIMIT_NOFILE allows, up to 10,000 (9,980 with a hard limit of
 * 20,000), with --via=pidfd and with --via=diag, and then holds the two
 * to each other: every socket's sockname and peername lines are the same
 * in both, fd by fd, and once the facts diag cannot know are taken out
 * of pidfd's output (by parsing its options lines) the two texts are the
 * same byte for byte.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <atf-c.h>

#include "testutil.h"

#define	NCONN		100
#define	NCONN_STR	"100"
#define	NODE_SECONDS	"120"		/* the fixture's own time limit */
#define	HOST		"127.0.0.1"
#define	ADDR_MAX	128		/* room for an AF_INET address line */
#define	MAX_CONN	10000		/* node_max_diag's most */
/*
 * The fds node needs beyond its 1 + 2N sockets: sockets.js wants its open
 * fds at start-up (about 20) and 8 spare; 39 in all gives 9,980
 * connections with a hard RLIMIT_NOFILE of 20,000.
 */
#define	NODE_FD_SPARE	39
#define	MIN_CONN	1000		/* fewer: node_max_diag is skipped */
#define	MAX_SECONDS	"240"		/* node_max_diag's fixture's limit */

/* What node says it opened (the JSON line of sockets.js). */
typedef struct node_report {
	size_t	nr_n;		/* connections */
	long	nr_pid;
	long	nr_port;
	long	nr_listen_fd;
	long	nr_backlog;	/* asked of listen(2) */
	long	*nr_client_ports;
	long	*nr_client_fds;
	long	*nr_accepted_ports;
	long	*nr_accepted_fds;
} node_report_t;

/* One socket as pfiles shows it. */
typedef struct sock {
	int	s_fd;
	int	s_nsockname;
	int	s_npeername;
	int	s_acceptconn;
	int	s_paired;	/* a client already matched to an accept */
	char	s_type[32];
	char	s_sockname[ADDR_MAX];	/* the text after "sockname: " */
	char	s_peername[ADDR_MAX];	/* the text after "peername: " */
	int	s_nendpoint;	/* endpoint lines, "and N more" included */
	char	s_endpoint[ADDR_MAX];	/* the text after the first's ": " */
	int	s_nstate;	/* state lines */
	char	s_state[ADDR_MAX];	/* the text after "state: " */
	int	s_nshared;	/* "shared with:" lines */
} sock_t;

/* Find "key": in a flat JSON object; the text after the colon. */
static const char *
json_value(const char *json, const char *key)
{
	char *pat = tu_asprintf("\"%s\":", key);
	const char *p = strstr(json, pat);

	if (p == NULL)
		atf_tc_fail("sockets.js report has no \"%s\": %s", key, json);
	p += strlen(pat);
	free(pat);
	return (p);
}

static long
parse_long(const char *p, const char **endp, const char *key)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(p, &end, 10);
	if (end == p || errno != 0)
		atf_tc_fail("sockets.js report: bad number for \"%s\"", key);
	*endp = end;
	return (v);
}

static long
json_long(const char *json, const char *key)
{
	const char *end;

	return (parse_long(json_value(json, key), &end, key));
}

/* Read "key":[n,n,...] into out; exactly want numbers are required. */
static void
json_longs(const char *json, const char *key, long *out, size_t want)
{
	const char *p = json_value(json, key);
	size_t n = 0;

	if (*p++ != '[')
		atf_tc_fail("sockets.js report: \"%s\" is not a list", key);
	while (*p != ']') {
		if (n == want)
			atf_tc_fail("sockets.js report: \"%s\" has more than "
			    "%zu numbers", key, want);
		out[n++] = parse_long(p, &p, key);
		if (*p == ',')
			p++;
		else if (*p != ']')
			atf_tc_fail("sockets.js report: bad list \"%s\"", key);
	}
	if (n != want)
		atf_tc_fail("sockets.js report: \"%s\" has %zu numbers, "
		    "expected %zu", key, n, want);
}

static long *
longs(size_t n)
{
	long *v = calloc(n, sizeof (long));

	ATF_REQUIRE(v != NULL);
	return (v);
}

static void
node_report_free(node_report_t *nr)
{
	free(nr->nr_client_ports);
	free(nr->nr_client_fds);
	free(nr->nr_accepted_ports);
	free(nr->nr_accepted_fds);
}

/*
 * Start node on sockets.js with n connections (argv[2]) and read its two
 * lines: "opened N sockets, pid = P" and the JSON report.
 */
static void
node_start(tu_child_t *c, const char *const argv[], size_t n,
    node_report_t *nr)
{
	char *first, *json, *want;

	/* node's stderr is the test's: its messages reach kyua's report. */
	tu_spawn(c, argv, 0);
	first = tu_read_line(c->tc_out, TU_TIMEOUT_MS);
	if (first == NULL)
		atf_tc_fail("node exited before reporting its sockets "
		    "(status 0x%x; see stderr)", (unsigned)tu_stop(c, 0));
	want = tu_asprintf("opened %zu sockets, pid = %d", n,
	    (int)c->tc_pid);
	tu_require_same_str("node-first-line", want, first);
	free(want);
	free(first);

	if ((json = tu_read_line(c->tc_out, TU_TIMEOUT_MS)) == NULL)
		atf_tc_fail("node wrote no report line");
	tu_write_file("node-report.json", json, strlen(json));
	nr->nr_pid = json_long(json, "pid");
	nr->nr_port = json_long(json, "port");
	nr->nr_listen_fd = json_long(json, "listen_fd");
	nr->nr_backlog = json_long(json, "backlog");
	nr->nr_n = n;
	nr->nr_client_ports = longs(n);
	nr->nr_client_fds = longs(n);
	nr->nr_accepted_ports = longs(n);
	nr->nr_accepted_fds = longs(n);
	json_longs(json, "client_ports", nr->nr_client_ports, n);
	json_longs(json, "client_fds", nr->nr_client_fds, n);
	json_longs(json, "accepted_ports", nr->nr_accepted_ports, n);
	json_longs(json, "accepted_fds", nr->nr_accepted_fds, n);
	if (strstr(json, "\"host\":\"" HOST "\"") == NULL)
		atf_tc_fail("node's server is not on " HOST ": %s", json);
	free(json);
	ATF_REQUIRE_EQ_MSG(nr->nr_pid, (long)c->tc_pid,
	    "node reports pid %ld, the child is %d", nr->nr_pid,
	    (int)c->tc_pid);
	ATF_REQUIRE_MSG(nr->nr_port > 0 && nr->nr_port < 65536,
	    "server port %ld", nr->nr_port);
}

/* Copy the rest of a "\tNAME: TEXT" line into dst, bounded. */
static void
copy_addr(char *dst, const char *text, int fd)
{
	if (strlen(text) >= ADDR_MAX)
		atf_tc_fail("fd %d: address line too long: %s", fd, text);
	(void) strcpy(dst, text);
}

/* Does the comma-separated options line hold exactly the token opt? */
static int
has_option(const char *line, const char *opt)
{
	size_t len = strlen(opt);
	const char *p = line;

	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma != NULL ? (size_t)(comma - p) : strlen(p);

		if (n == len && strncmp(p, opt, len) == 0)
			return (1);
		if (comma == NULL)
			return (0);
		p = comma + 1;
	}
}

/* A "\t..." line of the socket s. */
static void
parse_sock_line(sock_t *s, const char *line)
{
	if (strncmp(line, "SOCK_", 5) == 0 ||
	    strncmp(line, "unknown socket type", 19) == 0) {
		(void) snprintf(s->s_type, sizeof (s->s_type), "%s", line);
	} else if (strncmp(line, "sockname: ", 10) == 0) {
		s->s_nsockname++;
		copy_addr(s->s_sockname, line + 10, s->s_fd);
	} else if (strncmp(line, "peername: ", 10) == 0) {
		s->s_npeername++;
		copy_addr(s->s_peername, line + 10, s->s_fd);
	} else if (strncmp(line, "peer: ", 6) == 0) {
		atf_tc_fail("fd %d: a peer: line on a TCP socket", s->s_fd);
	} else if (strncmp(line, "endpoint: ", 10) == 0) {
		if (s->s_nendpoint++ == 0)
			copy_addr(s->s_endpoint, line + 10, s->s_fd);
	} else if (strncmp(line, "state: ", 7) == 0) {
		s->s_nstate++;
		copy_addr(s->s_state, line + 7, s->s_fd);
	} else if (strncmp(line, "queued: ", 8) == 0) {
		atf_tc_fail("fd %d: queues without a state: %s", s->s_fd,
		    line);
	} else if (strncmp(line, "shared with: ", 13) == 0) {
		s->s_nshared++;
	} else if (has_option(line, "SO_ACCEPTCONN")) {
		s->s_acceptconn = 1;
	}
}

/*
 * A stat line: "%4d: TYPE ...".  Returns the fd and the type word, or -1
 * for any other line.
 */
static int
stat_line_fd(const char *line, char *type, size_t typelen)
{
	const char *p = line;
	char *end;
	long fd;
	size_t n;

	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return (-1);
	fd = strtol(p, &end, 10);
	if (end[0] != ':' || end[1] != ' ')
		return (-1);
	p = end + 2;
	n = strcspn(p, " ");
	if (n >= typelen)
		n = typelen - 1;
	(void) memcpy(type, p, n);
	type[n] = '\0';
	return ((int)fd);
}

/*
 * Walk pfiles' output line by line and collect the sockets (at most
 * max: more is a failure) into a malloc'd array, their number in *np.
 * The header's two lines are checked by the caller.  out is not changed.
 */
static sock_t *
parse_sockets(const char *out, size_t max, size_t *np)
{
	sock_t *socks = calloc(max, sizeof (sock_t)), *cur = NULL;
	char *copy = tu_asprintf("%s", out), *line, *save = NULL;
	size_t nsock = 0;
	int lineno = 0;

	ATF_REQUIRE(socks != NULL);
	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char type[32];
		int fd;

		if (++lineno <= 2)
			continue;	/* the header */
		if ((fd = stat_line_fd(line, type, sizeof (type))) >= 0) {
			cur = NULL;
			if (strcmp(type, "S_IFSOCK") != 0)
				continue;
			if (nsock == max)
				atf_tc_fail("more than %zu sockets", max);
			cur = &socks[nsock++];
			cur->s_fd = fd;
		} else if (line[0] == '\t') {
			if (cur == NULL)
				atf_tc_fail("line %d: a socket line outside "
				    "a socket: %s", lineno, line);
			parse_sock_line(cur, line + 1);
		}
	}
	free(copy);
	*np = nsock;
	return (socks);
}

/* The sockets by fd (pfiles prints fds in increasing order). */
static int
sock_fd_cmp(const void *key, const void *elem)
{
	long fd = *(const long *)key;
	const sock_t *s = elem;

	return (fd < s->s_fd ? -1 : fd > s->s_fd);
}

static sock_t *
sock_by_fd(sock_t *socks, size_t nsock, long fd)
{
	sock_t *s = bsearch(&fd, socks, nsock, sizeof (sock_t), sock_fd_cmp);

	if (s == NULL)
		atf_tc_fail("pfiles shows no socket at fd %ld", fd);
	return (s);
}

static char *
inet_text(long port)
{
	return (tu_asprintf("AF_INET " HOST "  port: %ld", port));
}

/* Each socket: one sockname, at most one peername, a stream. */
static void
check_each_socket(const sock_t *socks, size_t nsock)
{
	for (size_t i = 0; i < nsock; i++) {
		const sock_t *s = &socks[i];

		ATF_CHECK_EQ_MSG(s->s_nsockname, 1, "fd %d: %d sockname "
		    "lines", s->s_fd, s->s_nsockname);
		ATF_CHECK_MSG(s->s_npeername <= 1, "fd %d: %d peername "
		    "lines", s->s_fd, s->s_npeername);
		ATF_CHECK_STREQ_MSG(s->s_type, "SOCK_STREAM", "fd %d",
		    s->s_fd);
		if (i > 0)
			ATF_REQUIRE_MSG(socks[i - 1].s_fd < s->s_fd,
			    "fd %d after fd %d", s->s_fd, socks[i - 1].s_fd);
	}
}

/* Exactly one listener, at node's listen fd, with the server's address. */
static const sock_t *
check_listener(const sock_t *socks, size_t nsock, const node_report_t *nr)
{
	const sock_t *listener = NULL;
	char *want = inet_text(nr->nr_port);

	for (size_t i = 0; i < nsock; i++) {
		if (!socks[i].s_acceptconn)
			continue;
		if (listener != NULL)
			atf_tc_fail("SO_ACCEPTCONN on fds %d and %d",
			    listener->s_fd, socks[i].s_fd);
		listener = &socks[i];
	}
	if (listener == NULL)
		atf_tc_fail("no socket shows SO_ACCEPTCONN");
	ATF_REQUIRE_STREQ_MSG(listener->s_sockname, want, "listener fd %d",
	    listener->s_fd);
	ATF_REQUIRE_EQ_MSG(listener->s_npeername, 0, "the listener has a "
	    "peername: %s", listener->s_peername);
	if (nr->nr_listen_fd >= 0)
		ATF_REQUIRE_EQ_MSG(listener->s_fd, nr->nr_listen_fd,
		    "node listens on fd %ld", nr->nr_listen_fd);
	free(want);
	return (listener);
}

/* Each client: at node's fd, its reported port, peer the server. */
static void
check_clients(sock_t *socks, size_t nsock, const node_report_t *nr,
    const sock_t *listener)
{
	for (size_t i = 0; i < nr->nr_n; i++) {
		sock_t *c;
		char *want;

		if (nr->nr_client_fds[i] < 0)
			atf_tc_fail("node did not give client %zu's fd", i);
		c = sock_by_fd(socks, nsock, nr->nr_client_fds[i]);
		want = inet_text(nr->nr_client_ports[i]);
		ATF_CHECK_STREQ_MSG(c->s_sockname, want, "client %zu, fd %d",
		    i, c->s_fd);
		ATF_CHECK_EQ_MSG(c->s_npeername, 1, "client %zu, fd %d: "
		    "no peername", i, c->s_fd);
		ATF_CHECK_STREQ_MSG(c->s_peername, listener->s_sockname,
		    "client %zu, fd %d: peer is not the server", i, c->s_fd);
		free(want);
	}
}

/* The connected sockets, ordered by (sockname, peername). */
static int
sock_names_cmp(const void *a, const void *b)
{
	const sock_t *x = *(const sock_t *const *)a;
	const sock_t *y = *(const sock_t *const *)b;
	int c = strcmp(x->s_sockname, y->s_sockname);

	return (c != 0 ? c : strcmp(x->s_peername, y->s_peername));
}

/*
 * Each accepted socket: at node's fd, the server's address, and paired
 * with exactly one client that no other accepted socket pairs with.  The
 * mates are looked up in the connected sockets sorted by their names.
 */
static void
check_accepted(sock_t *socks, size_t nsock, const node_report_t *nr,
    const sock_t *listener)
{
	sock_t **conn = calloc(nsock + 1, sizeof (sock_t *));
	size_t nconn = 0;

	ATF_REQUIRE(conn != NULL);
	for (size_t j = 0; j < nsock; j++)
		if (socks[j].s_npeername == 1)
			conn[nconn++] = &socks[j];
	qsort(conn, nconn, sizeof (sock_t *), sock_names_cmp);

	for (size_t i = 0; i < nr->nr_n; i++) {
		sock_t *a, *mate, key, *kp = &key, **hit;
		char *want;

		if (nr->nr_accepted_fds[i] < 0)
			atf_tc_fail("node did not give accept %zu's fd", i);
		a = sock_by_fd(socks, nsock, nr->nr_accepted_fds[i]);
		ATF_REQUIRE_STREQ_MSG(a->s_sockname, listener->s_sockname,
		    "accepted %zu, fd %d", i, a->s_fd);
		want = inet_text(nr->nr_accepted_ports[i]);
		ATF_REQUIRE_STREQ_MSG(a->s_peername, want, "accepted %zu, "
		    "fd %d", i, a->s_fd);
		free(want);

		/* The client whose names are a's, crossed. */
		(void) memcpy(key.s_sockname, a->s_peername, ADDR_MAX);
		(void) memcpy(key.s_peername, a->s_sockname, ADDR_MAX);
		hit = bsearch(&kp, conn, nconn, sizeof (sock_t *),
		    sock_names_cmp);
		if (hit == NULL)
			atf_tc_fail("accepted fd %d (peer %s) pairs with no "
			    "client", a->s_fd, a->s_peername);
		if ((hit > conn && sock_names_cmp(hit - 1, hit) == 0) ||
		    (hit + 1 < conn + nconn &&
		    sock_names_cmp(hit + 1, hit) == 0))
			atf_tc_fail("accepted fd %d pairs with more than one "
			    "client", a->s_fd);
		mate = *hit;
		if (mate == a)
			atf_tc_fail("accepted fd %d pairs with itself",
			    a->s_fd);
		if (mate->s_paired)
			atf_tc_fail("client fd %d pairs with two accepted "
			    "sockets", mate->s_fd);
		mate->s_paired = 1;
	}
	free(conn);
}

/*
 * The endpoint lines, from node's own report: accepted j's remote port
 * is client i's local port, so accepted_fds[j] and client_fds[i] are
 * the two ends of one connection, both held by node alone.  comm is
 * node's comm (plain ASCII: the rule leaves it as it is).
 */
static void
check_endpoints(sock_t *socks, size_t nsock, const node_report_t *nr,
    const sock_t *listener, const char *comm)
{
	size_t nlines = 0;

	ATF_CHECK_EQ_MSG(listener->s_nendpoint, 0, "the listener fd %d has "
	    "an endpoint: %s", listener->s_fd, listener->s_endpoint);
	for (size_t j = 0; j < nr->nr_n; j++) {
		size_t i;
		sock_t *a, *c;
		char *want;

		for (i = 0; i < nr->nr_n; i++)
			if (nr->nr_client_ports[i] == nr->nr_accepted_ports[j])
				break;
		if (i == nr->nr_n)
			atf_tc_fail("node reports accept %zu from port %ld, "
			    "which is no client's", j,
			    nr->nr_accepted_ports[j]);
		a = sock_by_fd(socks, nsock, nr->nr_accepted_fds[j]);
		c = sock_by_fd(socks, nsock, nr->nr_client_fds[i]);
		ATF_CHECK_EQ_MSG(a->s_nendpoint, 1, "accepted fd %d: %d "
		    "endpoint lines", a->s_fd, a->s_nendpoint);
		ATF_CHECK_EQ_MSG(c->s_nendpoint, 1, "client fd %d: %d "
		    "endpoint lines", c->s_fd, c->s_nendpoint);
		want = tu_asprintf("%s[%ld] fd %d", comm, nr->nr_pid, c->s_fd);
		ATF_CHECK_STREQ_MSG(a->s_endpoint, want, "accepted fd %d, the "
		    "other end of client fd %d", a->s_fd, c->s_fd);
		free(want);
		want = tu_asprintf("%s[%ld] fd %d", comm, nr->nr_pid, a->s_fd);
		ATF_CHECK_STREQ_MSG(c->s_endpoint, want, "client fd %d, the "
		    "other end of accepted fd %d", c->s_fd, a->s_fd);
		free(want);
	}
	for (size_t k = 0; k < nsock; k++)
		nlines += (size_t)socks[k].s_nendpoint;
	ATF_CHECK_EQ_MSG(nlines, 2 * nr->nr_n, "%zu endpoint lines for %zu "
	    "connections", nlines, nr->nr_n);
}

/* net.core.somaxconn of our network namespace (node's). */
static long
somaxconn(void)
{
	char *text = tu_read_file("/proc/sys/net/core/somaxconn", NULL);
	long v = atol(text);

	free(text);
	ATF_REQUIRE_MSG(v > 0, "net.core.somaxconn is %ld", v);
	return (v);
}

/*
 * The state lines: the listener's backlog, 0 waiting (node accepted
 * every connection) of what it asked of listen(2), capped by somaxconn;
 * every connection established with nothing queued (nothing is
 * written); no socket held at another fd.
 */
static void
check_states(const sock_t *socks, size_t nsock, const node_report_t *nr,
    const sock_t *listener)
{
	long max = somaxconn();
	char *lwant = tu_asprintf("LISTEN  backlog: 0 of %ld",
	    nr->nr_backlog < max ? nr->nr_backlog : max);

	for (size_t i = 0; i < nsock; i++) {
		const sock_t *s = &socks[i];
		const char *want = s == listener ? lwant :
		    "ESTABLISHED  queued: 0 to read, 0 to send";

		ATF_CHECK_MSG(s->s_nstate == 1 && strcmp(s->s_state, want) ==
		    0, "fd %d: %d state lines, the first \"%s\", not \"%s\"",
		    s->s_fd, s->s_nstate, s->s_state, want);
		ATF_CHECK_EQ_MSG(s->s_nshared, 0, "fd %d: %d shared with "
		    "lines", s->s_fd, s->s_nshared);
	}
	free(lwant);
}

/* node's comm, as the kernel keeps it; plain ASCII here. */
static char *
node_comm(pid_t pid)
{
	char *path = tu_asprintf("/proc/%d/comm", (int)pid);
	char *comm = tu_read_file(path, NULL), *nl;

	if ((nl = strchr(comm, '\n')) != NULL)
		*nl = '\0';
	for (const char *p = comm; *p != '\0'; p++)
		ATF_REQUIRE_MSG(*p > 0x20 && *p < 0x7f && *p != '\\',
		    "node's comm \"%s\" is not plain ASCII", comm);
	ATF_REQUIRE_MSG(comm[0] != '\0', "node's comm is empty");
	free(path);
	return (comm);
}

/* The two header lines: pid and command line, then the rlimit line. */
static void
check_header(const char *out, const char *const argv[], pid_t pid)
{
	char *cmd = tu_asprintf("%s", argv[0]), *want, *line1, *nl;

	for (int i = 1; argv[i] != NULL; i++) {
		char *longer = tu_asprintf("%s %s", cmd, argv[i]);

		free(cmd);
		cmd = longer;
	}
	want = tu_asprintf("%d:\t%.70s", (int)pid, cmd);
	if ((nl = strchr(out, '\n')) == NULL)
		atf_tc_fail("pfiles printed no complete line");
	line1 = tu_asprintf("%.*s", (int)(nl - out), out);
	tu_require_same_str("header", want, line1);
	ATF_REQUIRE_MSG(strncmp(nl + 1, "  Current rlimit: ", 18) == 0,
	    "second line is not the rlimit line");
	free(cmd);
	free(want);
	free(line1);
}

/*
 * pfiles' output on node (opts, NULL-ended, then the pid), with every
 * check above: the header, each socket, the listener, the clients, the
 * accepted sockets paired one to one, and 1 + 2N sockets in all, N
 * clients and N accepted.  Returns the sockets (malloc'd), their number
 * in *np, and pfiles' result in *r (stdout saved as `what').
 */
static sock_t *
pfiles_on_node(const char *what, const char *const opts[],
    const char *const node_argv[], const tu_child_t *node,
    const node_report_t *nr, tu_result_t *r, size_t *np)
{
	char pidstr[16], *file, *comm;
	const char *const pids[] = { pidstr, NULL };
	size_t nsock, nclient = 0, naccepted = 0, n = nr->nr_n;
	const sock_t *listener;
	sock_t *socks;

	(void) snprintf(pidstr, sizeof (pidstr), "%d", (int)node->tc_pid);
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = opts, .tp_pids = pids }, r);
	file = tu_asprintf("%s.out", what);
	tu_write_file(file, r->tr_out, r->tr_outlen);
	free(file);
	tu_require_exit("pfiles", r, 0);
	ATF_REQUIRE_MSG(strlen(r->tr_out) == r->tr_outlen,
	    "a NUL byte in pfiles' output");
	check_header(r->tr_out, node_argv, node->tc_pid);

	socks = parse_sockets(r->tr_out, 4 * n, &nsock);
	check_each_socket(socks, nsock);
	listener = check_listener(socks, nsock, nr);
	check_clients(socks, nsock, nr, listener);
	check_accepted(socks, nsock, nr, listener);
	comm = node_comm(node->tc_pid);
	check_endpoints(socks, nsock, nr, listener, comm);
	free(comm);
	check_states(socks, nsock, nr, listener);
	for (size_t i = 0; i < nsock; i++) {
		if (strcmp(socks[i].s_peername, listener->s_sockname) == 0)
			nclient++;
		else if (&socks[i] != listener &&
		    strcmp(socks[i].s_sockname, listener->s_sockname) == 0)
			naccepted++;
	}
	ATF_CHECK_EQ_MSG(nclient, n, "%s: %zu client sockets", what,
	    nclient);
	ATF_CHECK_EQ_MSG(naccepted, n, "%s: %zu accepted sockets", what,
	    naccepted);
	ATF_CHECK_EQ_MSG(nsock, 1 + 2 * n, "%s: %zu sockets in all, "
	    "expected %zu", what, nsock, 1 + 2 * n);
	*np = nsock;
	return (socks);
}

/* pfiles neither stopped nor killed node, which exits 0 when told to. */
static void
node_end(tu_child_t *node)
{
	char state = tu_proc_state(node->tc_pid);
	int status;

	ATF_CHECK_MSG(state != 0 && state != 'Z' && state != 'T' &&
	    state != 't', "node's state after pfiles: '%c'",
	    state ? state : '-');
	status = tu_stop(node, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "node ended with wait status 0x%x", (unsigned)status);
}

ATF_TC(node_100);
ATF_TC_HEAD(node_100, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles on node with 100 loopback "
	    "connections: every socket, the listener, and the client and "
	    "accepted sockets paired one to one");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(node_100, tc)
{
	const char *const node_argv[] = { "node", TU_SOCKETS_JS, NCONN_STR,
	    NODE_SECONDS, NULL };
	node_report_t nr;
	tu_child_t node;
	tu_result_t r;
	sock_t *socks;
	size_t nsock;

	node_start(&node, node_argv, NCONN, &nr);
	socks = pfiles_on_node("pfiles", NULL, node_argv, &node, &nr, &r,
	    &nsock);
	ATF_REQUIRE_MSG(r.tr_errlen == 0, "pfiles wrote on stderr: %s",
	    r.tr_err);
	tu_result_free(&r);
	free(socks);
	node_report_free(&nr);
	node_end(&node);
}

/* What --via=diag gives of an options line (pfiles.1, "diag"). */
static int
diag_gives(const char *tok, size_t len)
{
	return ((len == 13 && strncmp(tok, "SO_ACCEPTCONN", 13) == 0) ||
	    (len > 10 && strncmp(tok, "SO_SNDBUF(", 10) == 0) ||
	    (len > 10 && strncmp(tok, "SO_RCVBUF(", 10) == 0));
}

/* Is tok an item of the options line that diag cannot know? */
static int
diag_lacks(const char *tok, size_t len)
{
	static const char *const bools[] = { "SO_DEBUG", "SO_REUSEADDR",
	    "SO_KEEPALIVE", "SO_DONTROUTE", "SO_BROADCAST", "SO_OOBINLINE",
	    "SO_REUSEPORT", "SO_PASSCRED", "TCP_NODELAY" };

	for (size_t i = 0; i < sizeof (bools) / sizeof (bools[0]); i++)
		if (strlen(bools[i]) == len && strncmp(tok, bools[i], len) == 0)
			return (1);
	return (len > 10 && strncmp(tok, "SO_LINGER(", 10) == 0);
}

/*
 * pfiles' text with the facts diag cannot know taken out, by parsing it:
 * in each socket's block, the options line keeps only SO_ACCEPTCONN,
 * SO_SNDBUF and SO_RCVBUF (and goes when nothing is left), and a peer:
 * line goes.  Every other line is kept as it is (state, endpoint and
 * shared with lines too: every source shows them).  An item of an options
 * line that is not an option of the contract fails the test.
 */
static char *
without_diag_gaps(const char *text)
{
	size_t len = strlen(text);
	char *out = malloc(len + 1), *o = out;
	int in_socket = 0;

	ATF_REQUIRE(out != NULL);
	for (const char *p = text; *p != '\0'; ) {
		const char *nl = strchr(p, '\n');
		size_t n = nl != NULL ? (size_t)(nl - p) + 1 : strlen(p);
		char type[32];

		if (p[0] != '\t') {
			char *line = tu_asprintf("%.*s", (int)n, p);

			if (stat_line_fd(line, type, sizeof (type)) >= 0)
				in_socket = strcmp(type, "S_IFSOCK") == 0;
			free(line);
		} else if (in_socket && strncmp(p, "\tpeer: ", 7) == 0) {
			p += n;
			continue;
		} else if (in_socket && strncmp(p, "\tSOCK_", 6) != 0 &&
		    strncmp(p, "\tunknown socket type ", 21) != 0 &&
		    strncmp(p, "\tsockname: ", 11) != 0 &&
		    strncmp(p, "\tpeername: ", 11) != 0 &&
		    strncmp(p, "\tstate: ", 8) != 0 &&
		    strncmp(p, "\tendpoint: ", 11) != 0 &&
		    strncmp(p, "\tshared with: ", 14) != 0) {
			/* The options line: comma-separated items. */
			const char *q = p + 1, *end = p + n - (nl != NULL);
			int kept = 0;

			while (q < end) {
				const char *c = memchr(q, ',',
				    (size_t)(end - q));
				size_t tl = (c != NULL ? c : end) - q;

				if (diag_gives(q, tl)) {
					*o++ = kept++ == 0 ? '\t' : ',';
					(void) memcpy(o, q, tl);
					o += tl;
				} else if (!diag_lacks(q, tl)) {
					atf_tc_fail("not an option: \"%.*s\"",
					    (int)tl, q);
				}
				q += tl + (c != NULL);
			}
			if (kept > 0 && nl != NULL)
				*o++ = '\n';
			p += n;
			continue;
		}
		(void) memcpy(o, p, n);
		o += n;
		p += n;
	}
	*o = '\0';
	return (out);
}

#define	DIAG_WHY	"diag: the kernel's socket tables do not hold them"

/*
 * The "not shown:" line of --via=diag for a process whose sockets are all
 * TCP over IPv4 (node's): each boolean a TCP socket answers here (asked
 * of one of our own: since Linux 6.16 SO_PASSCRED is not answered on an
 * inet socket), TCP_NODELAY and SO_LINGER.
 */
static char *
tcp_gaps_line(const char *pid)
{
	static const struct { int level, name; const char *text; } opts[] = {
		{ SOL_SOCKET, SO_DEBUG, "SO_DEBUG" },
		{ SOL_SOCKET, SO_REUSEADDR, "SO_REUSEADDR" },
		{ SOL_SOCKET, SO_KEEPALIVE, "SO_KEEPALIVE" },
		{ SOL_SOCKET, SO_DONTROUTE, "SO_DONTROUTE" },
		{ SOL_SOCKET, SO_BROADCAST, "SO_BROADCAST" },
		{ SOL_SOCKET, SO_OOBINLINE, "SO_OOBINLINE" },
		{ SOL_SOCKET, SO_REUSEPORT, "SO_REUSEPORT" },
		{ SOL_SOCKET, SO_PASSCRED, "SO_PASSCRED" },
		{ IPPROTO_TCP, TCP_NODELAY, "TCP_NODELAY" },
	};
	char *list = tu_asprintf("%s", ""), *line;
	int fd = socket(AF_INET, SOCK_STREAM, 0);

	ATF_REQUIRE_MSG(fd >= 0, "socket: %s", strerror(errno));
	for (size_t i = 0; i < sizeof (opts) / sizeof (opts[0]); i++) {
		int v;
		socklen_t vlen = sizeof (v);
		char *longer;

		if (getsockopt(fd, opts[i].level, opts[i].name, &v,
		    &vlen) != 0)
			continue;
		longer = tu_asprintf("%s%s%s", list, list[0] ? "," : "",
		    opts[i].text);
		free(list);
		list = longer;
	}
	(void) close(fd);
	line = tu_asprintf("pfiles: %s: not shown: %s,SO_LINGER (%s)\n", pid,
	    list, DIAG_WHY);
	free(list);
	return (line);
}

/* The largest node fixture the hard RLIMIT_NOFILE allows, up to 10,000. */
static size_t
max_conn(void)
{
	struct rlimit rl;
	rlim_t room;

	ATF_REQUIRE(getrlimit(RLIMIT_NOFILE, &rl) == 0);
	if (rl.rlim_max == RLIM_INFINITY ||
	    rl.rlim_max >= 2 * MAX_CONN + 1 + NODE_FD_SPARE)
		return (MAX_CONN);
	room = rl.rlim_max > 1 + NODE_FD_SPARE ?
	    (rl.rlim_max - 1 - NODE_FD_SPARE) / 2 : 0;
	if (room < MIN_CONN)
		atf_tc_skip("the hard RLIMIT_NOFILE is %llu: room for %llu "
		    "connections only", (unsigned long long)rl.rlim_max,
		    (unsigned long long)room);
	return ((size_t)room);
}

ATF_TC(node_max_diag);
ATF_TC_HEAD(node_max_diag, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles --via=diag and --via=pidfd "
	    "on node with as many connections as fit, up to 10,000: both "
	    "pass every check of node_100, every socket's names agree fd "
	    "by fd, and the texts are the same once the facts diag cannot "
	    "know are parsed out of pidfd's");
	tu_timeout(tc, 300);
}
ATF_TC_BODY(node_max_diag, tc)
{
	static const char *const via_pidfd[] = { "--via=pidfd", NULL };
	static const char *const via_diag[] = { "--via=diag", NULL };
	size_t n = max_conn(), np, nd;
	char nstr[16], pid[16];
	const char *node_argv[] = { "node", TU_SOCKETS_JS, nstr,
	    MAX_SECONDS, NULL };
	node_report_t nr;
	tu_child_t node;
	tu_result_t rp, rd;
	sock_t *sp, *sd;
	char *reduced, *want;

	(void) snprintf(nstr, sizeof (nstr), "%zu", n);
	(void) fprintf(stderr, "node_max_diag: %zu connections\n", n);
	node_start(&node, node_argv, n, &nr);
	(void) snprintf(pid, sizeof (pid), "%d", (int)node.tc_pid);

	sp = pfiles_on_node("pidfd", via_pidfd, node_argv, &node, &nr, &rp,
	    &np);
	ATF_REQUIRE_MSG(rp.tr_errlen == 0, "pfiles --via=pidfd wrote on "
	    "stderr: %s", rp.tr_err);
	sd = pfiles_on_node("diag", via_diag, node_argv, &node, &nr, &rd,
	    &nd);

	/* Every name and port, fd by fd. */
	ATF_REQUIRE_EQ_MSG(np, nd, "%zu sockets with pidfd, %zu with diag",
	    np, nd);
	for (size_t i = 0; i < np; i++) {
		ATF_REQUIRE_EQ_MSG(sp[i].s_fd, sd[i].s_fd, "socket %zu: fd %d "
		    "with pidfd, %d with diag", i, sp[i].s_fd, sd[i].s_fd);
		ATF_REQUIRE_EQ_MSG(sp[i].s_npeername, sd[i].s_npeername,
		    "fd %d: %d peername lines with pidfd, %d with diag",
		    sp[i].s_fd, sp[i].s_npeername, sd[i].s_npeername);
		ATF_REQUIRE_STREQ_MSG(sp[i].s_sockname, sd[i].s_sockname,
		    "fd %d: sockname", sp[i].s_fd);
		ATF_REQUIRE_STREQ_MSG(sp[i].s_peername, sd[i].s_peername,
		    "fd %d: peername", sp[i].s_fd);
	}

	/* The whole text, once pidfd's is cut down to what diag knows. */
	reduced = without_diag_gaps(rp.tr_out);
	ATF_REQUIRE_MSG(strcmp(reduced, rp.tr_out) != 0, "nothing to take "
	    "out of pidfd's text: the comparison would prove nothing");
	tu_require_same_text("pidfd-reduced-vs-diag", reduced,
	    strlen(reduced), rd.tr_out, rd.tr_outlen);
	free(reduced);

	/* stderr: what diag could not show, exactly. */
	want = tcp_gaps_line(pid);
	tu_require_same_text("diag.stderr", want, strlen(want), rd.tr_err,
	    rd.tr_errlen);
	free(want);

	tu_result_free(&rp);
	tu_result_free(&rd);
	free(sp);
	free(sd);
	node_report_free(&nr);
	node_end(&node);
}

ATF_TC(fixture_fd_limit);
ATF_TC_HEAD(fixture_fd_limit, tc)
{
	atf_tc_set_md_var(tc, "descr", "sockets.js fails loudly when "
	    "RLIMIT_NOFILE cannot hold its sockets");
	tu_timeout(tc, 60);
}
ATF_TC_BODY(fixture_fd_limit, tc)
{
	/* node raises its soft limit to the hard one: lower both. */
	const char *const argv[] = { "prlimit", "--nofile=64:64", "node",
	    TU_SOCKETS_JS, NCONN_STR, "10", NULL };
	const char *want = "sockets.js: RLIMIT_NOFILE is 64 but ";
	tu_result_t r;

	tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	tu_require_exit("node sockets.js", &r, 1);
	ATF_CHECK_MSG(strncmp(r.tr_err, want, strlen(want)) == 0,
	    "stderr: %s", r.tr_err);
	ATF_CHECK_MSG(r.tr_outlen == 0, "stdout: %s", r.tr_out);
	tu_result_free(&r);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, node_100);
	ATF_TP_ADD_TC(tp, node_max_diag);
	ATF_TP_ADD_TC(tp, fixture_fd_limit);
	return (atf_no_error());
}
