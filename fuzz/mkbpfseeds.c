/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mkbpfseeds: write seed inputs for the bpfrec harness (fuzz/bpfrec.c)
 * from the records this machine's kernel gives through the bpf program.
 *
 *	mkbpfseeds DIR
 *
 * loads the program (bpf_load.c: root, or CAP_BPF and CAP_PERFMON), makes
 * the sockets of the source's load-time check that hold something
 * (bpf_check_make_queued(): bytes not read, a FIN received, clients not
 * accepted, datagrams queued, netlink groups past 32), a netlink socket
 * in no group and two packet sockets (with CAP_NET_RAW), walks its own
 * fds and writes, in the harness's
 * input format, into DIR (which must exist):
 *
 *   live-states	every record of the walk, as the kernel wrote it;
 *   live-states-fixhdr	the same with the harness's header fix (option 1);
 *   keep-*		a real record with one fact the program never
 *			writes, which the parser must refuse: a state of a
 *			UDP socket, queues of a netlink socket, a FIN of a
 *			unix socket, group words of a TCP socket, more
 *			group words than PFB_NLGROUPS_MAX, a netlink
 *			socket's second group word (group 33's bit) in the
 *			pad of one said, zeros past its group words or
 *			before them, an unbound packet socket's name of its
 *			family alone.
 */
#include <errno.h>
#include <linux/netlink.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/types.h>

#include "src/bpf/pfiles_bpf.h"
#include "src/bpf/sock_bpf.h"

#define	MAXREC		256

typedef struct walk {
	uint8_t		*w_buf;		/* the stream, as the kernel wrote it */
	size_t		w_len;
	size_t		w_cap;
	size_t		w_off[MAXREC];	/* each record's, and its facts */
	bpfrec_t	w_rec[MAXREC];
	int		w_n;
} walk_t;

static const char *outdir;

static void
die(const char *what)
{
	(void) fprintf(stderr, "mkbpfseeds: %s: %s\n", what, strerror(errno));
	exit(1);
}

/* DIR/NAME: the option byte, then len bytes of p. */
static void
seed(const char *name, uint8_t opt, const void *p, size_t len)
{
	char path[4096];
	FILE *f;

	(void) snprintf(path, sizeof (path), "%s/%s", outdir, name);
	if ((f = fopen(path, "w")) == NULL)
		die(path);
	if (fwrite(&opt, 1, 1, f) != 1 || fwrite(p, 1, len, f) != len ||
	    fclose(f) != 0)
		die(path);
}

/* The sockets it makes: kept open until it exits. */
static void
keep(void *arg, int fd, const char *what, const bpf_ckwant_t *want)
{
	(void) arg;
	(void) what;
	(void) want;
	(void) fd;
}

static int
take(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	walk_t *w = arg;

	if (w->w_len + rawlen > w->w_cap) {
		w->w_cap = 2 * (w->w_len + rawlen);
		if ((w->w_buf = realloc(w->w_buf, w->w_cap)) == NULL)
			die("realloc");
	}
	if (w->w_n < MAXREC) {
		w->w_off[w->w_n] = w->w_len;
		w->w_rec[w->w_n++] = *br;
	}
	memcpy(w->w_buf + w->w_len, raw, rawlen);
	w->w_len += rawlen;
	return (0);
}

/* The first record of a socket of family, type and protocol (-1: any). */
static int
find(const walk_t *w, int family, int type, int protocol)
{
	for (int i = 0; i < w->w_n; i++) {
		const bpfrec_t *br = &w->w_rec[i];

		if ((br->br_have & BPFREC_SOCK) && br->br_family == family &&
		    (type < 0 || br->br_type == type) &&
		    (protocol < 0 || br->br_protocol == protocol))
			return (i);
	}
	return (-1);
}

/* The record of a packet socket bound to interface ifindex. */
static int
find_packet(const walk_t *w, int ifindex)
{
	int32_t idx;

	for (int i = 0; i < w->w_n; i++) {
		const bpfrec_t *br = &w->w_rec[i];

		if (!(br->br_have & BPFREC_SOCK) || br->br_family != AF_PACKET ||
		    br->br_sockname.ba_len != 8)
			continue;
		memcpy(&idx, br->br_sockname.ba_data + 4, sizeof (idx));
		if (idx == ifindex)
			return (i);
	}
	return (-1);
}

static void
put32(uint8_t *rec, size_t off, uint32_t v)
{
	memcpy(rec + off, &v, sizeof (v));
}

/* One field of a record set to a value: off, size (1, 2, 4; 0: none). */
typedef struct edit {
	size_t		e_off;
	size_t		e_size;
	uint32_t	e_v;
} edit_t;

/*
 * A keep- seed: record i of the walk, grown by grow zero bytes (its size
 * in its header too), with its socket flags or'ed with or, and one field
 * set as e says.
 */
static void
hostile(const walk_t *w, int i, const char *name, size_t grow, uint32_t or,
    const edit_t *e)
{
	uint8_t rec[PFB_RECSIZE_MAX + 512];
	const uint8_t *p;
	uint32_t have;
	uint16_t rs;
	size_t len;

	if (i < 0) {
		(void) fprintf(stderr, "mkbpfseeds: %s: no such socket here\n",
		    name);
		return;
	}
	p = w->w_buf + w->w_off[i];
	len = (i + 1 < w->w_n ? w->w_off[i + 1] : w->w_len) - w->w_off[i];
	if (len + grow > sizeof (rec))
		return;
	memset(rec, 0, sizeof (rec));
	memcpy(rec, p, len);
	memcpy(&rs, rec + offsetof(struct pfb_rec, r_recsize), sizeof (rs));
	rs = (uint16_t)(rs + grow);
	memcpy(rec + offsetof(struct pfb_rec, r_recsize), &rs, sizeof (rs));
	memcpy(&have, rec + offsetof(struct pfb_rec, r_sock_have),
	    sizeof (have));
	put32(rec, offsetof(struct pfb_rec, r_sock_have), have | or);
	if (e->e_size == 4)
		put32(rec, e->e_off, e->e_v);
	else if (e->e_size == 2)
		memcpy(rec + e->e_off, &(uint16_t){ (uint16_t)e->e_v }, 2);
	else if (e->e_size == 1)
		rec[e->e_off] = (uint8_t)e->e_v;
	seed(name, 0, rec, len + grow);
}

/*
 * keep-groups-late: the netlink record i with 8 zero bytes more between
 * its empty path and its group words, which are then not where the
 * parser reads them.
 */
static void
groups_late(const walk_t *w, int i)
{
	uint8_t rec[PFB_RECSIZE_MAX];
	size_t len, at = PFB_RECFIXED + PFB_GROUPS_AT;
	uint16_t rs;

	if (i < 0 || !(w->w_rec[i].br_sock_have & BPFREC_S_GROUPS))
		return;
	len = (i + 1 < w->w_n ? w->w_off[i + 1] : w->w_len) - w->w_off[i];
	if (len + 8 > sizeof (rec) || len < at)
		return;
	memcpy(rec, w->w_buf + w->w_off[i], at);
	memset(rec + at, 0, 8);
	memcpy(rec + at + 8, w->w_buf + w->w_off[i] + at, len - at);
	rs = (uint16_t)(len + 8);
	memcpy(rec + offsetof(struct pfb_rec, r_recsize), &rs, sizeof (rs));
	seed("keep-groups-late", 0, rec, len + 8);
}

/*
 * A packet socket on the loopback interface and an unbound one, when
 * this may make them.
 */
static void
packet_sockets(void)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET,
	    .sll_protocol = htons(ETH_P_ARP) };
	int s = socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	if (s < 0) {
		(void) fprintf(stderr, "mkbpfseeds: no packet socket: %s\n",
		    strerror(errno));
		return;
	}
	sll.sll_ifindex = (int)if_nametoindex("lo");
	(void) bind(s, (struct sockaddr *)&sll, sizeof (sll));
	(void) socket(AF_PACKET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

int
main(int argc, char **argv)
{
	char why[256];
	bpf_pfiles_t *bp;
	walk_t *w;
	int nl;

	if (argc != 2) {
		(void) fprintf(stderr, "usage: mkbpfseeds DIR\n");
		return (2);
	}
	outdir = argv[1];
	if ((bp = bpf_pfiles_open(why, sizeof (why))) == NULL) {
		(void) fprintf(stderr, "mkbpfseeds: %s\n", why);
		return (1);
	}
	if ((w = calloc(1, sizeof (*w))) == NULL)
		die("calloc");
	bpf_check_make_queued(keep, NULL);
	packet_sockets();
	/* a netlink socket in no group: its groups, none */
	(void) socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (bpf_pfiles_iter(bp, getpid(), take, w, why, sizeof (why)) != 0) {
		(void) fprintf(stderr, "mkbpfseeds: %s\n", why);
		return (1);
	}
	seed("live-states", 0, w->w_buf, w->w_len);
	seed("live-states-fixhdr", 1, w->w_buf, w->w_len);

	nl = find(w, AF_NETLINK, -1, -1);
	hostile(w, find(w, AF_INET, SOCK_DGRAM, -1), "keep-state-udp", 0,
	    PFB_S_STATE, &(edit_t){ offsetof(struct pfb_rec, r_state), 1, 1 });
	hostile(w, nl, "keep-queues-netlink", 0, PFB_S_QUEUES,
	    &(edit_t){ offsetof(struct pfb_rec, r_rq), 4, 100 });
	hostile(w, find(w, AF_UNIX, SOCK_STREAM, -1), "keep-fin-unix", 0,
	    PFB_S_FIN, &(edit_t){ 0, 0, 0 });
	hostile(w, find(w, AF_INET, SOCK_STREAM, IPPROTO_TCP),
	    "keep-groups-tcp", PFB_GROUPS_SIZE(1), PFB_S_GROUPS,
	    &(edit_t){ offsetof(struct pfb_rec, r_ngroups), 2, 1 });
	hostile(w, nl, "keep-groups-65", PFB_GROUPS_SIZE(PFB_NLGROUPS_MAX + 1) -
	    PFB_GROUPS_SIZE(2), 0, &(edit_t){ offsetof(struct pfb_rec,
	    r_ngroups), 2, PFB_NLGROUPS_MAX + 1 });
	/* One word said of two: the second (group 33's) is in the pad. */
	hostile(w, nl, "keep-groups-pad", 0, 0,
	    &(edit_t){ offsetof(struct pfb_rec, r_ngroups), 2, 1 });
	/* Zeros past the group words: the record is their size exactly. */
	hostile(w, nl, "keep-groups-long", 8, 0, &(edit_t){ 0, 0, 0 });
	/* An unbound packet socket's name said as its family alone. */
	hostile(w, find_packet(w, 0), "keep-packet-family-only", 0, 0,
	    &(edit_t){ offsetof(struct pfb_rec, r_sockname) +
	    offsetof(struct pfb_addr, a_len), 4, 2 });
	groups_late(w, nl);
	/* An unbound packet socket's name said as its family alone. */
	hostile(w, find_packet(w, 0), "keep-packet-family-only", 0, 0,
	    offsetof(struct pfb_rec, r_sockname) +
	    offsetof(struct pfb_addr, a_len), 4, 2);
	free(w->w_buf);
	free(w);
	bpf_pfiles_close(bp);
	return (0);
}
