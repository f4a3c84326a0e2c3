/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_sockstate.c: the names and decodings of a socket's state, queues,
 * other holders, packet protocol and netlink groups, which the text
 * (pf_sockfmt.c) and the JSON output (pfiles_json.c) share; and the state
 * line and the "shared with:" lines of the text.
 */
#include <string.h>
#include <sys/socket.h>

#include "pf_lbuf.h"
#include "pf_sockfmt.h"
#include "pfiles_fmt.h"

#define	NELEM(a)	(sizeof (a) / sizeof ((a)[0]))

const char *
pf_state_name(int state, int domain)
{
	static const char *const tcp[] = {
		[PR_SS_ESTABLISHED] = "ESTABLISHED",
		[PR_SS_SYN_SENT] = "SYN_SENT", [PR_SS_SYN_RECV] = "SYN_RECV",
		[PR_SS_FIN_WAIT1] = "FIN_WAIT1",
		[PR_SS_FIN_WAIT2] = "FIN_WAIT2",
		[PR_SS_TIME_WAIT] = "TIME_WAIT", [PR_SS_CLOSE] = "CLOSE",
		[PR_SS_CLOSE_WAIT] = "CLOSE_WAIT",
		[PR_SS_LAST_ACK] = "LAST_ACK", [PR_SS_LISTEN] = "LISTEN",
		[PR_SS_CLOSING] = "CLOSING",
		[PR_SS_NEW_SYN_RECV] = "NEW_SYN_RECV",
	};

	if (domain == AF_UNIX) {
		switch (state) {
		case PR_SS_LISTEN:
			return ("LISTEN");
		case PR_SS_ESTABLISHED:
			return ("CONNECTED");
		case PR_SS_CLOSE:
			return ("UNCONNECTED");
		default:
			return (NULL);
		}
	}
	if (state > 0 && (size_t)state < NELEM(tcp))
		return (tcp[state]);
	return (NULL);
}

int
pf_sockstate(const pf_items_t *ix, prsockstate_t *st)
{
	const void *p;
	size_t len;

	if ((p = pf_item(ix, PR_SOCKSTATE, &len)) == NULL ||
	    len != sizeof (*st))
		return (0);
	memcpy(st, p, sizeof (*st));
	if (st->pr_state == 0)
		return (st->pr_queues == PR_SSQ_QUEUED);
	return (pf_state_name(st->pr_state,
	    pf_int_item(ix, PR_SOCKOPT_DOMAIN, -1)) != NULL);
}

const char *
pf_ethproto_name(unsigned proto)
{
	static const struct {
		unsigned	ep_proto;
		const char	*ep_name;
	} names[] = {
		{ 0x0001, "ETH_P_802_3" }, { 0x0003, "ETH_P_ALL" },
		{ 0x0004, "ETH_P_802_2" }, { 0x0060, "ETH_P_LOOP" },
		{ 0x0800, "ETH_P_IP" }, { 0x0806, "ETH_P_ARP" },
		{ 0x8035, "ETH_P_RARP" }, { 0x8100, "ETH_P_8021Q" },
		{ 0x86dd, "ETH_P_IPV6" }, { 0x8847, "ETH_P_MPLS_UC" },
		{ 0x8848, "ETH_P_MPLS_MC" }, { 0x8863, "ETH_P_PPP_DISC" },
		{ 0x8864, "ETH_P_PPP_SES" }, { 0x888e, "ETH_P_PAE" },
		{ 0x88a8, "ETH_P_8021AD" }, { 0x88cc, "ETH_P_LLDP" },
		{ 0x88f7, "ETH_P_1588" },
	};

	for (size_t i = 0; i < NELEM(names); i++) {
		if (names[i].ep_proto == proto)
			return (names[i].ep_name);
	}
	return (NULL);
}

/* "\tstate: %s  queued: ..." or "\tqueued: ..." alone, where it has one. */
void
pf_state_line(lbuf_t *lb, const pf_items_t *ix)
{
	prsockstate_t st;

	if (!pf_sockstate(ix, &st))
		return;
	if (st.pr_state != 0) {
		lb_lit(lb, "\tstate: ");
		lb_str(lb, pf_state_name(st.pr_state,
		    pf_int_item(ix, PR_SOCKOPT_DOMAIN, -1)));
	}
	if (st.pr_queues == PR_SSQ_QUEUED) {
		lb_str(lb, st.pr_state != 0 ? "  queued: " : "\tqueued: ");
		lb_uint(lb, st.pr_read);
		lb_lit(lb, " to read, ");
		lb_uint(lb, st.pr_send);
		lb_lit(lb, " to send");
	} else if (st.pr_queues == PR_SSQ_BACKLOG) {
		lb_lit(lb, "  backlog: ");
		lb_uint(lb, st.pr_read);
		lb_lit(lb, " of ");
		lb_uint(lb, st.pr_send);
	}
	lb_chr(lb, '\n');
}

void
pf_holders_each(const pf_items_t *ix, uint_t type, pf_endpoint_f *fn,
    void *arg)
{
	const uint8_t *p;
	prendpoints_t hdr;
	prendpoint_t end;
	size_t len;

	if ((p = pf_item(ix, type, &len)) == NULL || len < sizeof (hdr))
		return;
	memcpy(&hdr, p, sizeof (hdr));
	/* A damaged item: the holders it has room for, no more. */
	if (hdr.pr_nend > PR_ENDPOINTS_MAX)
		hdr.pr_nend = PR_ENDPOINTS_MAX;
	for (uint_t i = 0; i < hdr.pr_nend &&
	    sizeof (hdr) + (i + 1) * sizeof (end) <= len; i++) {
		memcpy(&end, p + sizeof (hdr) + i * sizeof (end), sizeof (end));
		fn(arg, end.pr_pid, end.pr_fd, 0);
	}
	if (hdr.pr_more > 0)
		fn(arg, 0, -1, hdr.pr_more);
}

uint_t
pf_nlgroups(const pf_items_t *ix, unsigned first, uint32_t *words,
    uint_t max)
{
	const uint8_t *p;
	size_t len;
	uint_t n = 1;

	if (max == 0)
		return (0);
	words[0] = first;
	if ((p = pf_item(ix, PR_NLGROUPS, &len)) != NULL &&
	    len >= 2 * sizeof (uint32_t)) {
		n = (uint_t)(len / sizeof (uint32_t));
		if (n > max)
			n = max;
		/* The first word is the name's, which the text shows. */
		for (uint_t i = 1; i < n; i++)
			memcpy(&words[i], p + i * sizeof (uint32_t),
			    sizeof (uint32_t));
	}
	return (n);
}
