/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_budget_check: t_budget's own checker, on counts made up here: the
 * bounds it applies, the one-pass pages it does not charge per socket
 * (grown), the netlink rows, and how it classes the counter's paths.
 */
#include "budget_util.h"

ATF_TC(checker_bounds);
ATF_TC_HEAD(checker_bounds, tc)
{
	atf_tc_set_md_var(tc, "descr", "the budget checker passes counts at "
	    "the budget and fails those one read per socket over it");
	tu_timeout(tc, 120);
}
ATF_TC_BODY(checker_bounds, tc)
{
	btable_t bt;
	char msg[MSG_MAX];

	/* One fdinfo read per socket and nothing else: pidfd's budget. */
	bt.bt_title = "seedlike -a 0 -l 0 -f 1: one fdinfo read per socket";
	seedlike_table(&bt, "0", "0", "1");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 0,
	    "pidfd budget: %s", msg);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 0,
	    "agent budget: %s", msg);

	/* One pread of its memory per socket: the agent's, not pidfd's. */
	bt.bt_title = "seedlike -a 1 -l 0 -f 1: one memory pread per socket";
	seedlike_table(&bt, "1", "0", "1");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 0,
	    "agent budget: %s", msg);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1,
	    "pidfd budget let a memory read per socket pass");
	require_clause(msg, &budget_pidfd, BC_MEM_R, "1.00 per socket");

	/* Two preads of memory per socket: over the agent's budget. */
	bt.bt_title = "seedlike -a 2 -l 0 -f 1: two memory preads per socket";
	seedlike_table(&bt, "2", "0", "1");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 1,
	    "agent budget let two memory preads per socket pass");
	require_clause(msg, &budget_agent, BC_MEM_PREAD, "2.00 per socket");

	/* The fdinfo file twice per socket. */
	bt.bt_title = "seedlike -a 0 -l 0 -f 2: two fdinfo reads per socket";
	seedlike_table(&bt, "0", "0", "2");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1,
	    "pidfd budget let two fdinfo reads per socket pass");
	require_clause(msg, &budget_pidfd, BC_FDINFO, "2.00 per socket");

	/* One more /proc/self file per socket. */
	bt.bt_title = "seedlike -a 0 -l 1 -f 1: one status read per socket";
	seedlike_table(&bt, "0", "1", "1");
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1,
	    "pidfd budget let a status read per socket pass");
	require_clause(msg, &budget_pidfd, BC_TPROC, "1.00 per socket");
	require_no_clause(msg, &budget_pidfd, BC_FDINFO);
}

ATF_TC(classify);
ATF_TC_HEAD(classify, tc)
{
	atf_tc_set_md_var(tc, "descr", "the counter's paths sort into the "
	    "right classes: the target's memory, fdinfo and other /proc "
	    "files, threads included; other pids' /proc is not the target's");
}
ATF_TC_BODY(classify, tc)
{
	static const struct {
		const char	*path;
		pathkind_t	kind;
	} cases[] = {
		{ "pid:100", PK_MEM }, { "pid:7", PK_MEM },
		{ "/proc/100/mem", PK_MEM }, { "/proc/105/mem", PK_MEM },
		{ "/proc/100/task/105/mem", PK_MEM },
		{ "/proc/100/fdinfo/3", PK_FDINFO },
		{ "/proc/100/task/100/fdinfo/3", PK_FDINFO },
		{ "/proc/100/status", PK_TPROC },
		{ "/proc/100/task/105/status", PK_TPROC },
		{ "/proc/100", PK_TPROC },
		{ "/proc/1000/mem", PK_OPROC }, { "/proc/10/fdinfo/3", PK_OPROC },
		{ "/proc/self/status", PK_OPROC }, { "/proc/100x/mem", PK_OPROC },
		{ "/proc/sys/kernel/pid_max", PK_OPROC },
		{ "/procfoo", PK_OTHER }, { "/usr/bin/node", PK_OTHER },
		{ "pipe:[1]", PK_OTHER }, { "fd:3", PK_OTHER },
	};
	btarget_t tg = { { 100, 105 }, 2 };

	for (size_t i = 0; i < sizeof (cases) / sizeof (cases[0]); i++)
		ATF_CHECK_EQ_MSG(classify_path(cases[i].path, &tg),
		    cases[i].kind, "%s: kind %d, expected %d", cases[i].path,
		    (int)classify_path(cases[i].path, &tg), (int)cases[i].kind);
	ATF_CHECK_MSG(callkind("pread64") != NULL &&
	    callkind("ptrace:PEEKDATA") != NULL && callkind("pwritev2")->
	    ck_side == CK_WRITE && callkind("__read_chk")->ck_side ==
	    CK_READ && callkind("sendto")->ck_side == CK_NL_SEND &&
	    callkind("__recvfrom_chk")->ck_side == CK_NL_RECV &&
	    callkind("mmap") == NULL, "callkinds[]");
}

/* A table of one class, by hand: calls and one-pass pages at N and 4N. */
static void
hand_table(btable_t *bt, bclass_t c, uint64_t lo_calls, uint64_t lo_pages,
    uint64_t hi_calls, uint64_t hi_pages)
{
	(void) memset(bt, 0, sizeof (*bt));
	bt->bt_title = "by hand";
	bt->bt_at[0].bm_sockets = sockets_of(NCONN);
	bt->bt_at[1].bm_sockets = sockets_of(4 * NCONN);
	bt->bt_at[0].bm_class[c].bc_calls = lo_calls;
	bt->bt_at[0].bm_class[c].bc_pages = lo_pages;
	bt->bt_at[1].bm_class[c].bc_calls = hi_calls;
	bt->bt_at[1].bm_class[c].bc_pages = hi_pages;
}

ATF_TC(checker_grown);
ATF_TC_HEAD(checker_grown, tc)
{
	atf_tc_set_md_var(tc, "descr", "the checker on tables made by hand: "
	    "files that grew excuse their own added calls and no more; one "
	    "call over a budget fails; a table it cannot judge is refused");
}
ATF_TC_BODY(checker_grown, tc)
{
	btable_t bt;
	char msg[MSG_MAX];

	/* 150 sockets, 152 more fdinfo reads, 2 of them a file that grew. */
	hand_table(&bt, BC_FDINFO, 70, 1, 222, 3);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 0,
	    "%s", msg);
	/* One more, that no growth explains. */
	hand_table(&bt, BC_FDINFO, 70, 1, 223, 3);
	ATF_CHECK_EQ(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_pidfd, BC_FDINFO, "1.01 per socket");
	/* Pages that grew more than the calls excuse only the calls. */
	hand_table(&bt, BC_TPROC, 8, 0, 8, 500);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 0,
	    "%s", msg);
	hand_table(&bt, BC_TPROC, 8, 1, 9, 2);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 0,
	    "%s", msg);
	/* Constant means constant: one call more over 150 sockets. */
	hand_table(&bt, BC_TPROC, 8, 0, 9, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_pidfd, BC_TPROC, "0.01 per socket");
	/* No memory at all: one read, at N only, fails; pages excuse none. */
	hand_table(&bt, BC_MEM_R, 1, 0, 1, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_pidfd, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_pidfd, BC_MEM_R, "0.00 per socket");
	/* Fewer calls at 4N than at N is within any per-socket budget. */
	hand_table(&bt, BC_MEM_PREAD, 60, 0, 50, 0);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_agent, msg, sizeof (msg)), 0,
	    "%s", msg);
	/* As many sockets at 4N as at N: no slope to judge. */
	hand_table(&bt, BC_FDINFO, 1, 0, 1, 0);
	bt.bt_at[1].bm_sockets = bt.bt_at[0].bm_sockets;
	ATF_CHECK_EQ(judge(&bt, &budget_pidfd, msg, sizeof (msg)), -1);
	ATF_CHECK_MSG(strstr(msg, "cannot judge") != NULL, "%s", msg);
}

ATF_TC(checker_netlink);
ATF_TC_HEAD(checker_netlink, tc)
{
	atf_tc_set_md_var(tc, "descr", "the diag budget on netlink messages "
	    "sent, by hand: the same few at N and 4N pass; one more at 4N, "
	    "one per socket, more than 16, or none at all fail; the counter's "
	    "netlink lines sort into their classes, and one not on a netlink "
	    "socket is refused");
}
ATF_TC_BODY(checker_netlink, tc)
{
	static char call_s[] = "sendto", call_r[] = "recvmsg";
	static char call_w[] = "sendmsg", nl4[] = "netlink:4";
	static char tcp[] = "socket:[77]";
	struct pcount_rec recs[3] = {
		{ call_s, nl4, 2, 152, 1 }, { call_r, nl4, 33, 967128, 1 },
		{ call_w, tcp, 1, 10, 1 },
	};
	struct pcount_tab t = { recs, 2, 3, 2, NULL, 0 };
	btarget_t tg = { { 100 }, 1 };
	bmeasure_t m;
	btable_t bt;
	char msg[MSG_MAX];

	/* Two dumps at either size: diag's budget, and no read of memory. */
	hand_table(&bt, BC_NL_SENT, 2, 0, 2, 0);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_diag, msg, sizeof (msg)), 0,
	    "%s", msg);
	hand_table(&bt, BC_NL_SENT, 16, 0, 16, 0);
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_diag, msg, sizeof (msg)), 0,
	    "%s", msg);
	/* One more dump at 4N: not constant. */
	hand_table(&bt, BC_NL_SENT, 2, 0, 3, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_diag, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_diag, BC_NL_SENT, "0.01 per socket");
	/* One message per socket. */
	hand_table(&bt, BC_NL_SENT, 51, 0, 201, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_diag, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_diag, BC_NL_SENT, "1.00 per socket");
	/* Constant, but more than one per dump. */
	hand_table(&bt, BC_NL_SENT, 17, 0, 17, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_diag, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_diag, BC_NL_SENT, "0.00 per socket");
	/* None at all: diag made no dump the counter saw. */
	hand_table(&bt, BC_NL_SENT, 0, 0, 0, 0);
	ATF_CHECK_EQ(judge(&bt, &budget_diag, msg, sizeof (msg)), 1);
	require_clause(msg, &budget_diag, BC_NL_SENT, "0.00 per socket");
	/* Datagrams received are shown, not budgeted: they follow the netns. */
	hand_table(&bt, BC_NL_RECV, 30, 0, 500, 0);
	bt.bt_at[0].bm_class[BC_NL_SENT].bc_calls = 2;
	bt.bt_at[1].bm_class[BC_NL_SENT].bc_calls = 2;
	ATF_CHECK_EQ_MSG(judge(&bt, &budget_diag, msg, sizeof (msg)), 0,
	    "%s", msg);

	/* The counter's lines: sent and received apart, nothing else. */
	ATF_REQUIRE_EQ_MSG(measure(&t, &tg, 51, 0, &m, msg, sizeof (msg)), 0,
	    "%s", msg);
	ATF_CHECK_EQ(m.bm_class[BC_NL_SENT].bc_calls, 2);
	ATF_CHECK_EQ(m.bm_class[BC_NL_RECV].bc_calls, 33);
	ATF_CHECK_EQ(m.bm_class[BC_OTHER_W].bc_calls, 0);
	ATF_CHECK_EQ(m.bm_class[BC_OTHER_R].bc_calls, 0);
	/* A send the counter says was not on a netlink socket. */
	t.pt_n = 3;
	ATF_CHECK_EQ(measure(&t, &tg, 51, 0, &m, msg, sizeof (msg)), -1);
	ATF_CHECK_MSG(strstr(msg, "not a netlink socket") != NULL, "%s", msg);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, checker_bounds);
	ATF_TP_ADD_TC(tp, checker_grown);
	ATF_TP_ADD_TC(tp, checker_netlink);
	ATF_TP_ADD_TC(tp, classify);
	return (atf_no_error());
}
