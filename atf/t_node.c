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
 *   - pfiles exits 0 with nothing on stderr, and node is still running
 *     (not stopped) afterwards and exits 0 when its stdin is closed.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "testutil.h"

#define	NCONN		100
#define	NCONN_STR	"100"
#define	NODE_SECONDS	"120"		/* the fixture's own time limit */
#define	HOST		"127.0.0.1"
#define	ADDR_MAX	128		/* room for an AF_INET address line */
#define	MAX_SOCKS	(4 * NCONN)	/* more than this is a failure */

/* What node says it opened (the JSON line of sockets.js). */
typedef struct node_report {
	long	nr_pid;
	long	nr_port;
	long	nr_listen_fd;
	long	nr_client_ports[NCONN];
	long	nr_client_fds[NCONN];
	long	nr_accepted_ports[NCONN];
	long	nr_accepted_fds[NCONN];
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

/*
 * Start node on sockets.js with NCONN connections and read its two lines:
 * "opened N sockets, pid = P" and the JSON report.
 */
static void
node_start(tu_child_t *c, const char *const argv[], node_report_t *nr)
{
	char *first, *json, *want;

	/* node's stderr is the test's: its messages reach kyua's report. */
	tu_spawn(c, argv, 0);
	first = tu_read_line(c->tc_out, TU_TIMEOUT_MS);
	if (first == NULL)
		atf_tc_fail("node exited before reporting its sockets "
		    "(status 0x%x; see stderr)", (unsigned)tu_stop(c, 0));
	want = tu_asprintf("opened %s sockets, pid = %d", NCONN_STR,
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
	json_longs(json, "client_ports", nr->nr_client_ports, NCONN);
	json_longs(json, "client_fds", nr->nr_client_fds, NCONN);
	json_longs(json, "accepted_ports", nr->nr_accepted_ports, NCONN);
	json_longs(json, "accepted_fds", nr->nr_accepted_fds, NCONN);
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
 * Walk pfiles' output line by line and collect the sockets (bounded by
 * MAX_SOCKS).  The header's two lines are checked by the caller.
 */
static size_t
parse_sockets(char *out, sock_t *socks)
{
	sock_t *cur = NULL;
	size_t nsock = 0;
	char *line, *save = NULL;
	int lineno = 0;

	for (line = strtok_r(out, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		char type[32];
		int fd;

		if (++lineno <= 2)
			continue;	/* the header */
		if ((fd = stat_line_fd(line, type, sizeof (type))) >= 0) {
			cur = NULL;
			if (strcmp(type, "S_IFSOCK") != 0)
				continue;
			if (nsock == MAX_SOCKS)
				atf_tc_fail("more than %d sockets", MAX_SOCKS);
			cur = &socks[nsock++];
			(void) memset(cur, 0, sizeof (*cur));
			cur->s_fd = fd;
		} else if (line[0] == '\t') {
			if (cur == NULL)
				atf_tc_fail("line %d: a socket line outside "
				    "a socket: %s", lineno, line);
			parse_sock_line(cur, line + 1);
		}
	}
	return (nsock);
}

static sock_t *
sock_by_fd(sock_t *socks, size_t nsock, long fd)
{
	for (size_t i = 0; i < nsock; i++)
		if (socks[i].s_fd == fd)
			return (&socks[i]);
	atf_tc_fail("pfiles shows no socket at fd %ld", fd);
	return (NULL);
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
	for (size_t i = 0; i < NCONN; i++) {
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

/*
 * Each accepted socket: at node's fd, the server's address, and paired
 * with exactly one client that no other accepted socket pairs with.
 */
static void
check_accepted(sock_t *socks, size_t nsock, const node_report_t *nr,
    const sock_t *listener)
{
	for (size_t i = 0; i < NCONN; i++) {
		sock_t *a, *mate = NULL;
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

		for (size_t j = 0; j < nsock; j++) {
			sock_t *c = &socks[j];

			if (c == a || c->s_npeername != 1 ||
			    strcmp(c->s_sockname, a->s_peername) != 0 ||
			    strcmp(c->s_peername, a->s_sockname) != 0)
				continue;
			if (mate != NULL)
				atf_tc_fail("accepted fd %d pairs with fds %d "
				    "and %d", a->s_fd, mate->s_fd, c->s_fd);
			mate = c;
		}
		if (mate == NULL)
			atf_tc_fail("accepted fd %d (peer %s) pairs with no "
			    "client", a->s_fd, a->s_peername);
		if (mate->s_paired)
			atf_tc_fail("client fd %d pairs with two accepted "
			    "sockets", mate->s_fd);
		mate->s_paired = 1;
	}
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

ATF_TC(node_100);
ATF_TC_HEAD(node_100, tc)
{
	atf_tc_set_md_var(tc, "descr", "pfiles on node with 100 loopback "
	    "connections: every socket, the listener, and the client and "
	    "accepted sockets paired one to one");
	atf_tc_set_md_var(tc, "timeout", "120");
}
ATF_TC_BODY(node_100, tc)
{
	const char *const node_argv[] = { "node", TU_SOCKETS_JS, NCONN_STR,
	    NODE_SECONDS, NULL };
	static node_report_t nr;
	static sock_t socks[MAX_SOCKS];
	tu_child_t node;
	tu_result_t r;
	char pidstr[16], state;
	size_t nsock, nclient = 0, naccepted = 0;
	const sock_t *listener;
	int status;

	node_start(&node, node_argv, &nr);
	(void) snprintf(pidstr, sizeof (pidstr), "%d", (int)node.tc_pid);
	{
		const char *const argv[] = { TU_PFILES, pidstr, NULL };

		tu_run(argv, NULL, TU_TIMEOUT_MS, &r);
	}
	tu_write_file("pfiles.out", r.tr_out, r.tr_outlen);
	tu_require_exit("pfiles", &r, 0);
	ATF_REQUIRE_MSG(r.tr_errlen == 0, "pfiles wrote on stderr: %s",
	    r.tr_err);
	ATF_REQUIRE_MSG(strlen(r.tr_out) == r.tr_outlen,
	    "a NUL byte in pfiles' output");
	check_header(r.tr_out, node_argv, node.tc_pid);

	nsock = parse_sockets(r.tr_out, socks);
	check_each_socket(socks, nsock);
	listener = check_listener(socks, nsock, &nr);
	check_clients(socks, nsock, &nr, listener);
	check_accepted(socks, nsock, &nr, listener);
	for (size_t i = 0; i < nsock; i++) {
		if (strcmp(socks[i].s_peername, listener->s_sockname) == 0)
			nclient++;
		else if (&socks[i] != listener &&
		    strcmp(socks[i].s_sockname, listener->s_sockname) == 0)
			naccepted++;
	}
	ATF_CHECK_EQ_MSG(nclient, NCONN, "%zu client sockets", nclient);
	ATF_CHECK_EQ_MSG(naccepted, NCONN, "%zu accepted sockets", naccepted);
	ATF_CHECK_EQ_MSG(nsock, 1 + 2 * NCONN, "%zu sockets in all, "
	    "expected %d", nsock, 1 + 2 * NCONN);
	tu_result_free(&r);

	/* pfiles neither stopped nor killed node. */
	state = tu_proc_state(node.tc_pid);
	ATF_CHECK_MSG(state != 0 && state != 'Z' && state != 'T' &&
	    state != 't', "node's state after pfiles: '%c'",
	    state ? state : '-');
	status = tu_stop(&node, TU_TIMEOUT_MS);
	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "node ended with wait status 0x%x", (unsigned)status);
}

ATF_TC(fixture_fd_limit);
ATF_TC_HEAD(fixture_fd_limit, tc)
{
	atf_tc_set_md_var(tc, "descr", "sockets.js fails loudly when "
	    "RLIMIT_NOFILE cannot hold its sockets");
	atf_tc_set_md_var(tc, "timeout", "60");
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
	ATF_TP_ADD_TC(tp, fixture_fd_limit);
	return (atf_no_error());
}
