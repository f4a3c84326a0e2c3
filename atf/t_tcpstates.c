/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_tcpstates: the state line of TCP sockets (pfiles.1, "Socket lines" 4)
 * in each state the kernel reports for a socket a process holds, with
 * every source; and pfiles -J against ss on the same sockets
 * (bench/sscheck.py).
 *
 * atf/tcpstates_helper holds them, in a network namespace of its own
 * whose lo it takes down part way (a FIN or bytes sent after that are
 * never acknowledged), and says what it did: which fd is which end of
 * which connection, the bytes each end wrote and whether lo was up then,
 * which ends shut down for writing, the connections it left waiting on
 * each listener.  The line each fd must have is computed here from that
 * alone, by this file's model of TCP and its own table of the states'
 * names: ESTABLISHED, LISTEN, CLOSE (bound, never connected), SYN_SENT (a
 * SYN dropped by a listener whose queue is full), FIN_WAIT1 (shut down
 * with lo down), FIN_WAIT2 and CLOSE_WAIT (one end shut down, its FIN
 * acknowledged), LAST_ACK (the CLOSE_WAIT end shut down too, lo down),
 * with bytes queued that hold still.  The model is checked first against
 * the helper's own TCP_INFO, SIOCINQ and SIOCOUTQ (the check of the
 * check: a wrong model fails there, not as pfiles' error).
 *
 *   state_pidfd, state_agent, state_diag, state_bpf
 *		each TCP fd's state line exactly, and -J's "state" with its
 *		"queued" or "backlog", with pfiles --via=SOURCE (bpf skipped
 *		where it cannot serve)
 *   sscheck_pidfd, sscheck_agent, sscheck_diag, sscheck_bpf
 *		bench/sscheck.py --via=SOURCE on the helper and its child:
 *		every socket ss lists agrees with pfiles fact for fact (state,
 *		queues, backlog, holders, endpoints), looked at once; the
 *		adjustments for ss' raw TCP counters are the ones the model
 *		says (a FIN received and not read, a SYN), the only socket
 *		ss does not list is the one in CLOSE, no fact is left out
 *		(diag may say it cannot find the raw socket, where the
 *		kernel has no raw_diag)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/tcp.h>
#include <sys/wait.h>

#include <atf-c.h>

#include "testutil.h"

#define	HELPER		BUILD_DIR "/atf/tcpstates_helper"
#define	HELPER_SECONDS	"240"
#define	SSCHECK		SRC_DIR "/bench/sscheck.py"
#define	PYTHON		"/usr/bin/python3"
#define	MAX_SOCKS	48

/* A socket the helper holds, as it says. */
typedef struct ts_sock {
	char		s_name[16];
	int		s_fd;
	unsigned long long s_ino;
	char		s_kind[16];	/* listen conn bound synsent other */
	char		s_arg[16];	/* backlog asked, other end, what */
	unsigned	s_pending;	/* a listener's, not accepted */
	char		s_shut;		/* shut down for writing: 0, 'u', 'd' */
	unsigned	s_up, s_down;	/* bytes it wrote, lo up and down */
	int		s_viewed;	/* its view line: */
	unsigned	s_vstate;	/* tcpi_state */
	unsigned	s_vin, s_vout;	/* SIOCINQ, SIOCOUTQ (a listener's:
					   tcpi_unacked, tcpi_sacked) */
} ts_sock_t;

typedef struct ts_view {
	tu_helper_t	v_h;
	int		v_kid;		/* its child's pid */
	int		v_holders;	/* holder lines */
	ts_sock_t	v_socks[MAX_SOCKS];
	size_t		v_n;
} ts_view_t;

/* What pfiles must say of a TCP socket. */
typedef struct ts_want {
	const char	*w_state;	/* NULL: a state the model has not */
	int		w_backlog;	/* a, b: waiting and limit */
	unsigned	w_a, w_b;	/* else to read, to send */
} ts_want_t;

/* This file's own table of the kernel's TCP states and pfiles.1's names. */
static const struct {
	unsigned	st_num;
	const char	*st_name;
} states[] = {
	{ TCP_ESTABLISHED, "ESTABLISHED" }, { TCP_SYN_SENT, "SYN_SENT" },
	{ TCP_SYN_RECV, "SYN_RECV" }, { TCP_FIN_WAIT1, "FIN_WAIT1" },
	{ TCP_FIN_WAIT2, "FIN_WAIT2" }, { TCP_TIME_WAIT, "TIME_WAIT" },
	{ TCP_CLOSE, "CLOSE" }, { TCP_CLOSE_WAIT, "CLOSE_WAIT" },
	{ TCP_LAST_ACK, "LAST_ACK" }, { TCP_LISTEN, "LISTEN" },
	{ TCP_CLOSING, "CLOSING" },
};

static unsigned
state_num(const char *name)
{
	for (size_t i = 0; i < sizeof (states) / sizeof (states[0]); i++) {
		if (strcmp(states[i].st_name, name) == 0)
			return (states[i].st_num);
	}
	atf_tc_fail("no state %s in the table", name);
	return (0);
}

static ts_sock_t *
sock_of(ts_view_t *v, const char *name)
{
	for (size_t i = 0; i < v->v_n; i++) {
		if (strcmp(v->v_socks[i].s_name, name) == 0)
			return (&v->v_socks[i]);
	}
	return (NULL);
}

static int
is_tcp(const ts_sock_t *s)
{
	return (strcmp(s->s_kind, "other") != 0);
}

/* One line of the helper's; 0 when it is none of the socket lines. */
static int
parse_line(ts_view_t *v, const char *l)
{
	char name[16], lo[8];
	ts_sock_t *s = &v->v_socks[v->v_n];
	unsigned a, b, c;
	int pid, fd;

	if (sscanf(l, "sock %15s %d %llu %15s %15s", s->s_name, &s->s_fd,
	    &s->s_ino, s->s_kind, s->s_arg) == 5) {
		ATF_REQUIRE_MSG(++v->v_n < MAX_SOCKS, "too many sockets");
		return (1);
	}
	if (sscanf(l, "pending %15s %u", name, &a) == 2 &&
	    (s = sock_of(v, name)) != NULL)
		s->s_pending = a;
	else if (sscanf(l, "wrote %15s %u %7s", name, &a, lo) == 3 &&
	    (s = sock_of(v, name)) != NULL)
		*(strcmp(lo, "up") == 0 ? &s->s_up : &s->s_down) += a;
	else if (sscanf(l, "shut %15s %7s", name, lo) == 2 &&
	    (s = sock_of(v, name)) != NULL)
		s->s_shut = lo[0];
	else if (sscanf(l, "view %15s %u %u %u", name, &a, &b, &c) == 4 &&
	    (s = sock_of(v, name)) != NULL) {
		s->s_viewed = 1;
		s->s_vstate = a;
		s->s_vin = b;
		s->s_vout = c;
	} else if (sscanf(l, "holder %15s %d %d", name, &pid, &fd) == 3) {
		v->v_holders++;
		if (pid != v->v_h.h_child.tc_pid)
			v->v_kid = pid;
	} else
		return (0);
	return (1);
}

/* The helper started and its view read (the case skipped without netns). */
static void
view_start(ts_view_t *v)
{
	const char *const argv[] = { HELPER, "-t", HELPER_SECONDS, NULL };
	const char *l;

	memset(v, 0, sizeof (*v));
	tu_helper_start(&v->v_h, argv);
	tu_write_file("view", v->v_h.h_said, strlen(v->v_h.h_said));
	if ((l = strstr(v->v_h.h_said, "skip ")) != NULL) {
		tu_helper_stop(&v->v_h);
		atf_tc_skip("%s", l + 5);
	}
	ATF_REQUIRE_MSG(strstr(v->v_h.h_said, "error ") == NULL,
	    "the helper failed (see view)");
	for (l = v->v_h.h_said; l != NULL && *l != '\0';
	    l = strchr(l, '\n') != NULL ? strchr(l, '\n') + 1 : NULL) {
		if (!parse_line(v, l) && strncmp(l, "nov6 ", 5) == 0)
			(void) printf("no IPv6 pair: %.*s\n",
			    (int)strcspn(l + 5, "\n"), l + 5);
	}
	ATF_REQUIRE_MSG(v->v_n > 0 && v->v_kid > 0 && v->v_holders == 3,
	    "no sockets, child or holders in the view (see view)");
}

/*
 * What pfiles must say of s, from what the helper did.  A connected end's
 * state follows from which ends shut down for writing and whether lo was
 * up then (its FIN acknowledged, the other's received); it has to read
 * what the other end wrote while lo was up (a FIN received is not a
 * byte), and to send what it wrote while lo was down, plus its FIN when
 * it shut down then: SIOCOUTQ is write_seq - snd_una, and a FIN takes a
 * sequence number.  A listener's backlog: the connections it was left
 * with, of the backlog asked.
 */
static ts_want_t
want_of(ts_view_t *v, const ts_sock_t *s)
{
	ts_want_t w = { NULL, 0, 0, 0 };
	const ts_sock_t *peer;
	int fin;

	if (strcmp(s->s_kind, "listen") == 0)
		return ((ts_want_t){ "LISTEN", 1, s->s_pending,
		    (unsigned)atoi(s->s_arg) });
	if (strcmp(s->s_kind, "bound") == 0)
		return ((ts_want_t){ "CLOSE", 0, 0, 0 });
	if (strcmp(s->s_kind, "synsent") == 0)
		return ((ts_want_t){ "SYN_SENT", 0, 0, 0 });
	ATF_REQUIRE_MSG(strcmp(s->s_kind, "conn") == 0, "%s: kind %s",
	    s->s_name, s->s_kind);
	peer = strcmp(s->s_arg, "-") == 0 ? NULL : sock_of(v, s->s_arg);
	fin = peer != NULL && peer->s_shut == 'u';
	if (s->s_shut == 0)
		w.w_state = fin ? "CLOSE_WAIT" : "ESTABLISHED";
	else if (s->s_shut == 'u')
		w.w_state = fin ? NULL : "FIN_WAIT2";
	else
		w.w_state = fin ? "LAST_ACK" : "FIN_WAIT1";
	w.w_a = peer != NULL ? peer->s_up : 0;
	w.w_b = s->s_down + (s->s_shut == 'd');
	return (w);
}

/* The model against the helper's own view of every TCP socket. */
static void
check_model(ts_view_t *v)
{
	for (size_t i = 0; i < v->v_n; i++) {
		const ts_sock_t *s = &v->v_socks[i];
		ts_want_t w;

		if (!is_tcp(s))
			continue;
		w = want_of(v, s);
		ATF_REQUIRE_MSG(w.w_state != NULL && s->s_viewed, "%s: not "
		    "modelled, or no view of it (see view)", s->s_name);
		ATF_REQUIRE_MSG(state_num(w.w_state) == s->s_vstate &&
		    w.w_a == s->s_vin && w.w_b == s->s_vout, "the test's model "
		    "of %s (%s %u %u) is not the kernel's (state %u, %u %u): "
		    "the test is wrong", s->s_name, w.w_state, w.w_a, w.w_b,
		    s->s_vstate, s->s_vin, s->s_vout);
	}
}

static char *
want_line(const ts_want_t *w)
{
	if (w->w_backlog)
		return (tu_asprintf("\tstate: %s  backlog: %u of %u\n",
		    w->w_state, w->w_a, w->w_b));
	return (tu_asprintf("\tstate: %s  queued: %u to read, %u to send\n",
	    w->w_state, w->w_a, w->w_b));
}

static char *
want_json(const ts_want_t *w)
{
	if (w->w_backlog)
		return (tu_asprintf("\"state\":\"%s\",\"backlog\":{\"waiting\":"
		    "%u,\"limit\":%u}\n", w->w_state, w->w_a, w->w_b));
	return (tu_asprintf("\"state\":\"%s\",\"queued\":{\"read\":%u,"
	    "\"send\":%u}\n", w->w_state, w->w_a, w->w_b));
}

/* text + "fd N NAME: " + line (text freed). */
static char *
append(char *text, const ts_sock_t *s, const char *line)
{
	char *t = tu_asprintf("%sfd %d %s: %s", text, s->s_fd, s->s_name,
	    line);

	free(text);
	return (t);
}

/* The state and queued lines of s's block in pfiles' text (malloc'd). */
static char *
text_state(const char *out, const ts_sock_t *s)
{
	char *blk = tu_fd_block(out, s->s_fd), *ino, *got = tu_asprintf("%s",
	    ""), *t;

	if (blk == NULL)
		return (tu_asprintf("(no block)\n"));
	ino = tu_asprintf(" ino:%llu ", s->s_ino);
	ATF_CHECK_MSG(strstr(blk, ino) != NULL && strstr(blk, ino) <
	    strchr(blk, '\n'), "fd %d is not the helper's %s: %s", s->s_fd,
	    s->s_name, blk);
	free(ino);
	for (const char *l = blk; l != NULL && *l != '\0';
	    l = strchr(l, '\n') != NULL ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, "\tstate: ", 8) == 0 ||
		    strncmp(l, "\tqueued: ", 9) == 0) {
			t = tu_asprintf("%s%.*s\n", got, (int)strcspn(l, "\n"),
			    l);
			free(got);
			got = t;
		}
	}
	free(blk);
	if (*got != '\0')
		return (got);
	free(got);
	return (tu_asprintf("(none)\n"));
}

/*
 * The members of s's fd object in pfiles -J from "state" up to the end
 * of the "queued" or "backlog" that follows it (malloc'd); "(none)".
 * An fd's object runs from its {"fd":N, up to the next fd's: strings
 * from the target are escaped, and cannot hold {"fd": or "state":.
 */
static char *
json_state(const char *out, const ts_sock_t *s)
{
	char *head = tu_asprintf("{\"fd\":%d,", s->s_fd), *got;
	const char *p = strstr(out, head), *end, *st, *close;

	free(head);
	if (p == NULL)
		return (tu_asprintf("(no fd object)\n"));
	if ((end = strstr(p + 1, "{\"fd\":")) == NULL)
		end = p + strlen(p);
	if ((st = strstr(p, "\"state\":")) == NULL || st > end ||
	    (close = strchr(st, '}')) == NULL || close > end)
		return (tu_asprintf("(none)\n"));
	got = tu_asprintf("%.*s\n", (int)(close + 1 - st), st);
	return (got);
}

/* pfiles OPTS pid, exit 0; its stdout (malloc'd), saved as name. */
static char *
pfiles_on(const ts_view_t *v, const char *opt1, const char *opt2,
    const char *name, int *unfound)
{
	const char *const opts[] = { opt1, opt2, NULL };
	const char *const pids[] = { v->v_h.h_pid, NULL };
	tu_result_t r;
	char *out;

	tu_pfiles_ok(&(const tu_pfiles_t){ .tp_opts = opts, .tp_pids = pids },
	    &r);
	tu_write_file(name, r.tr_out, r.tr_outlen);
	*unfound = r.tr_err != NULL && strstr(r.tr_err, "details of 1 socket "
	    "unavailable: diag: not in the kernel's socket tables") != NULL;
	out = r.tr_out;
	r.tr_out = NULL;
	tu_result_free(&r);
	return (out);
}

/*
 * With diag, on a kernel whose inet dump leaves out a socket bound and
 * never connected (6.1 does; 6.18 lists it), that socket is not found:
 * no socket lines, and pfiles says so.  Nothing else may be missing.
 */
static int
diag_unlisted(const char *via, const ts_sock_t *s, int unfound,
    const char *got)
{
	return (strcmp(via, "--via=diag") == 0 && unfound &&
	    strcmp(s->s_kind, "bound") == 0 && strcmp(got, "(none)\n") == 0);
}

/* Every TCP fd's state line, in the text and in -J, through via. */
static void
check_source(const char *via)
{
	char *text, *json, *wt = tu_asprintf("%s", ""), *gt = tu_asprintf("%s",
	    ""), *wj = tu_asprintf("%s", ""), *gj = tu_asprintf("%s", "");
	ts_view_t v;

	int tunfound, junfound;

	view_start(&v);
	check_model(&v);
	text = pfiles_on(&v, via, NULL, "text.out", &tunfound);
	json = pfiles_on(&v, "-J", via, "json.out", &junfound);
	for (size_t i = 0; i < v.v_n; i++) {
		const ts_sock_t *s = &v.v_socks[i];
		ts_want_t w;
		char *l, *g;

		if (!is_tcp(s))
			continue;
		w = want_of(&v, s);
		g = text_state(text, s);
		wt = append(wt, s, l = diag_unlisted(via, s, tunfound, g) ?
		    tu_asprintf("(none)\n") : want_line(&w));
		free(l);
		gt = append(gt, s, g);
		free(g);
		g = json_state(json, s);
		wj = append(wj, s, l = diag_unlisted(via, s, junfound, g) ?
		    tu_asprintf("(none)\n") : want_json(&w));
		free(l);
		gj = append(gj, s, g);
		free(g);
	}
	tu_require_same_str("text", wt, gt);
	tu_require_same_str("json", wj, gj);
	free(wt);
	free(gt);
	free(wj);
	free(gj);
	free(text);
	free(json);
	tu_helper_stop(&v.v_h);
}

/* The value of key in a "KEY VALUE" text; -1 when it has none. */
static long
summary_of(const char *text, const char *key)
{
	size_t n = strlen(key);

	for (const char *l = text; l != NULL && *l != '\0';
	    l = strchr(l, '\n') != NULL ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, n) == 0 && l[n] == ' ')
			return (strtol(l + n + 1, NULL, 10));
	}
	return (-1);
}

/*
 * What the summary must say of the helper's sockets, held by it and its
 * child: every one ss lists agrees, and the adjustments are the model's.
 */
static void
check_summary(ts_view_t *v, const char *sum, const char *via)
{
	long held = (long)v->v_n + v->v_holders, fin = 0, syn = 0, close = 0;
	/* diag cannot find a raw socket where the kernel has no raw_diag. */
	long gone = summary_of(sum, "details_unavailable_said");

	for (size_t i = 0; i < v->v_n; i++) {
		ts_want_t w;

		if (!is_tcp(&v->v_socks[i]))
			continue;
		w = want_of(v, &v->v_socks[i]);
		fin += strcmp(w.w_state, "CLOSE_WAIT") == 0 ||
		    strcmp(w.w_state, "LAST_ACK") == 0;
		syn += strcmp(w.w_state, "SYN_SENT") == 0;
		close += strcmp(w.w_state, "CLOSE") == 0;
	}
	ATF_CHECK_EQ_MSG(summary_of(sum, "pfiles_sockets"), held,
	    "pfiles' sockets: %ld, not %ld", summary_of(sum, "pfiles_sockets"),
	    held);
	/* ss lists every one but those in CLOSE (a newer one those too). */
	ATF_CHECK_MSG(summary_of(sum, "unlisted") <= close &&
	    summary_of(sum, "sockets") + summary_of(sum, "unlisted") + gone ==
	    held, "sockets compared %ld, unlisted %ld, unavailable %ld (see "
	    "summary)", summary_of(sum, "sockets"), summary_of(sum,
	    "unlisted"), gone);
	ATF_CHECK_MSG(gone == 0 || (gone == 1 && strcmp(via, "--via=diag") ==
	    0), "%ld sockets' details unavailable (see sscheck.out)", gone);
	ATF_CHECK_EQ(summary_of(sum, "not_shown_said_state"), 0);
	ATF_CHECK_EQ(summary_of(sum, "not_shown_said_queues"), 0);
	ATF_CHECK_EQ(summary_of(sum, "holders_agree"),
	    summary_of(sum, "sockets"));
	ATF_CHECK_EQ(summary_of(sum, "adj_fin"), fin);
	ATF_CHECK_EQ(summary_of(sum, "adj_syn"), syn);
	ATF_CHECK_EQ(summary_of(sum, "adj_ambiguous"), 0);
	ATF_CHECK_EQ(summary_of(sum, "rechecked"), 0);
	ATF_CHECK_EQ(summary_of(sum, "disagreements"), 0);
}

/* bench/sscheck.py --via=via on the helper and its child. */
static void
check_ss(const char *via)
{
	char kid[16];
	const char *argv[] = { PYTHON, SSCHECK, "--pfiles", TU_PFILES,
	    "--via", via + 6, "--summary", "summary", NULL, kid, NULL };
	ts_view_t v;
	tu_result_t r;
	char *sum;

	view_start(&v);
	check_model(&v);
	(void) snprintf(kid, sizeof (kid), "%d", v.v_kid);
	argv[8] = v.v_h.h_pid;
	tu_run(argv, NULL, 4 * TU_TIMEOUT_MS, &r);
	tu_write_file("sscheck.out", r.tr_out, r.tr_outlen);
	(void) printf("%s", r.tr_out);
	tu_require_exit("sscheck.py", &r, 0);
	tu_result_free(&r);
	sum = tu_read_file("summary", NULL);
	check_summary(&v, sum, via);
	free(sum);
	tu_helper_stop(&v.v_h);
}

#define	SOURCE_CASES(src, bpf)						\
ATF_TC(state_##src);							\
ATF_TC_HEAD(state_##src, tc)						\
{									\
	atf_tc_set_md_var(tc, "descr", "--via=" #src ": every TCP "	\
	    "state a held socket can be in, each fd's state line and "	\
	    "-J's state, queued and backlog, as the helper's actions "	\
	    "say");							\
	atf_tc_set_md_var(tc, "require.user", "root");			\
	tu_timeout(tc, 120);						\
}									\
ATF_TC_BODY(state_##src, tc)						\
{									\
	char *why = bpf ? tu_bpf_why() : NULL;				\
									\
	if (why != NULL)						\
		atf_tc_skip("%s", why);					\
	check_source("--via=" #src);					\
}									\
ATF_TC(sscheck_##src);							\
ATF_TC_HEAD(sscheck_##src, tc)						\
{									\
	atf_tc_set_md_var(tc, "descr", "bench/sscheck.py --via=" #src	\
	    " on the helper's sockets: every fact agrees with ss, the "	\
	    "adjustments the model's");					\
	atf_tc_set_md_var(tc, "require.user", "root");			\
	atf_tc_set_md_var(tc, "require.progs", "ss nsenter " PYTHON);	\
	tu_timeout(tc, 240);						\
}									\
ATF_TC_BODY(sscheck_##src, tc)						\
{									\
	char *why = bpf ? tu_bpf_why() : NULL;				\
									\
	if (why != NULL)						\
		atf_tc_skip("%s", why);					\
	check_ss("--via=" #src);					\
}

SOURCE_CASES(pidfd, 0)
SOURCE_CASES(agent, 0)
SOURCE_CASES(diag, 0)
SOURCE_CASES(bpf, 1)

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, state_pidfd);
	ATF_TP_ADD_TC(tp, state_agent);
	ATF_TP_ADD_TC(tp, state_diag);
	ATF_TP_ADD_TC(tp, state_bpf);
	ATF_TP_ADD_TC(tp, sscheck_pidfd);
	ATF_TP_ADD_TC(tp, sscheck_agent);
	ATF_TP_ADD_TC(tp, sscheck_diag);
	ATF_TP_ADD_TC(tp, sscheck_bpf);
	return (atf_no_error());
}
