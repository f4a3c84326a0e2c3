/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint_index.c: the answers of endpoint/, kept by inode, and
 * endpoints_of() and endpoints_shared(), which give them.
 *
 * The holders of sockets (the target's own fds, and those of other
 * processes, or of threads with a file table of their own, that hold
 * the other ends or the target's sockets themselves) are kept in two
 * arrays, each sorted by inode, then pid, then fd: endpoints_of() lists
 * the target's own holders of an other end first, then the others', and
 * endpoints_shared() the same of the socket itself, the asker's fd left
 * out.  The index over the target's socket inodes (endpoint_impl.h says
 * how it is searched) links each to where its other end is, so that the
 * walk's question about one socket costs no system call and, asked in fd
 * order, a step or two in memory.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "endpoint/endpoint_impl.h"

/* ------------------------------------------------------------------ */
/* Holders. */

const dent_t *
endpoints_dent(const endpoints_t *en, uint64_t ino, const diag_table_t **dtp)
{
	const dent_t *e;

	if (en == NULL || en->en_nets == NULL)
		return (NULL);
	for (size_t k = 0; k < en->en_nets->dn_n; k++) {
		const diag_table_t *dt = en->en_nets->dn_tab[k];

		if (dt != NULL && (e = diag_table_lookup(dt, ino)) != NULL) {
			*dtp = dt;
			return (e);
		}
	}
	return (NULL);
}

int
ep_holds_add(holds_t *h, uint64_t ino, pid_t pid, int fd)
{
	if (h->h_n == h->h_cap) {
		size_t cap = h->h_cap == 0 ? 256 : h->h_cap * 2;
		ephold_t *v = realloc(h->h_v, cap * sizeof (*v));

		if (v == NULL)
			return (ENOMEM);
		h->h_v = v;
		h->h_cap = cap;
	}
	h->h_v[h->h_n].eh_ino = ino;
	h->h_v[h->h_n].eh_pid = pid;
	h->h_v[h->h_n].eh_fd = fd;
	h->h_n++;
	return (0);
}

/* By inode, then pid, then fd. */
int
ep_hold_cmp(const void *a, const void *b)
{
	const ephold_t *x = a, *y = b;

	if (x->eh_ino != y->eh_ino)
		return (x->eh_ino < y->eh_ino ? -1 : 1);
	if (x->eh_pid != y->eh_pid)
		return (x->eh_pid < y->eh_pid ? -1 : 1);
	return ((x->eh_fd > y->eh_fd) - (x->eh_fd < y->eh_fd));
}

/*
 * Sort n elements of sz bytes by the unsigned key of ksz bytes (4 or 8)
 * at offset koff, stably: a byte at a time from the lowest (LSD radix),
 * skipping a byte that is the same in every element.  Linear, where
 * qsort's comparisons were a tenth of the endpoints' time on 20,000
 * sockets.  0, or ENOMEM.
 */
/* The byte-th lowest byte of the unsigned key at koff of element e. */
static unsigned
key_byte(const uint8_t *e, size_t koff, size_t ksz, size_t byte)
{
	uint64_t k;
	uint32_t k32;

	if (ksz == sizeof (k32)) {
		memcpy(&k32, e + koff, sizeof (k32));
		k = k32;
	} else {
		memcpy(&k, e + koff, sizeof (k));
	}
	return ((unsigned)(k >> (8 * byte)) & 0xff);
}

static int
radix_sort(void *base, size_t n, size_t sz, size_t koff, size_t ksz)
{
	uint8_t *a = base, *b, *from, *to;
	size_t count[256];

	if (n < 2)
		return (0);
	if ((b = malloc(n * sz)) == NULL)
		return (ENOMEM);
	from = a;
	to = b;
	for (size_t byte = 0; byte < ksz; byte++) {
		size_t sum = 0;

		memset(count, 0, sizeof (count));
		for (size_t i = 0; i < n; i++)
			count[key_byte(from + i * sz, koff, ksz, byte)]++;
		if (count[key_byte(from, koff, ksz, byte)] == n)
			continue;	/* every element alike here */
		for (size_t d = 0; d < 256; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			memcpy(to + count[key_byte(from + i * sz, koff, ksz,
			    byte)]++ * sz, from + i * sz, sz);
		to = from;
		from = from == a ? b : a;
	}
	if (from != a)
		memcpy(a, from, n * sz);
	free(b);
	return (0);
}

/*
 * A process's own socket fds, by inode then fd (ep_hold_cmp's order: its
 * pid is theirs all): by fd first, unless they came in that order (the
 * bpf source's), then stably by inode.  0, or ENOMEM.
 */
int
ep_sort_own(holds_t *h)
{
	size_t i = 1;
	int err;

	while (i < h->h_n && h->h_v[i - 1].eh_fd < h->h_v[i].eh_fd)
		i++;
	if (i < h->h_n && (err = radix_sort(h->h_v, h->h_n, sizeof (ephold_t),
	    offsetof(ephold_t, eh_fd), sizeof (int))) != 0)
		return (err);
	return (radix_sort(h->h_v, h->h_n, sizeof (ephold_t),
	    offsetof(ephold_t, eh_ino), sizeof (uint64_t)));
}

/* The first holder of ino in the sorted h, or h->h_n. */
size_t
ep_first_of(const holds_t *h, uint64_t ino)
{
	size_t lo = 0, hi = h->h_n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (h->h_v[mid].eh_ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (lo);
}

/* ------------------------------------------------------------------ */
/* The index of the answers. */

/*
 * The entry of ino in the index, or NULL; the finger moves to where the
 * lookup ended.
 */
static epindex_t *
ix_find(endpoints_t *en, uint64_t ino)
{
	const epindex_t *v = en->en_ix;
	size_t n = en->en_nix, f, lo, hi, step = 1;
	uint64_t d0, d1;
	unsigned k;

	if (n == 0)
		return (NULL);
	/* Both fingers are below n: ep_ix_build() sets them, and so do we. */
	d0 = v[en->en_finger[0]].ix_ino > ino ?
	    v[en->en_finger[0]].ix_ino - ino : ino - v[en->en_finger[0]].ix_ino;
	d1 = v[en->en_finger[1]].ix_ino > ino ?
	    v[en->en_finger[1]].ix_ino - ino : ino - v[en->en_finger[1]].ix_ino;
	/*
	 * The nearer finger, when it is near; else the one not moved last,
	 * so that each finger stays on a run of its own.
	 */
	k = d0 < d1 ? 0 : 1;
	if ((k == 0 ? d0 : d1) > IX_NEAR)
		k = !en->en_lastf;
	en->en_lastf = k;
	f = en->en_finger[k];
	if (v[f].ix_ino == ino)
		return (&en->en_ix[f]);
	if (v[f].ix_ino < ino) {
		/* Up: every entry below lo is below ino. */
		lo = f + 1;
		while (lo + step - 1 < n && v[lo + step - 1].ix_ino < ino) {
			lo += step;
			step *= 2;
		}
		hi = lo + step - 1 < n ? lo + step : n;
	} else {
		/* Down: every entry from hi on is above ino. */
		hi = f;
		while (hi >= step && v[hi - step].ix_ino > ino) {
			hi -= step;
			step *= 2;
		}
		lo = hi >= step ? hi - step : 0;
	}
	/* The first entry of [lo, hi) that is not below ino. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].ix_ino < ino)
			lo = mid + 1;
		else
			hi = mid;
	}
	en->en_finger[k] = lo < n ? lo : n - 1;
	return (lo < n && v[lo].ix_ino == ino ? &en->en_ix[lo] : NULL);
}

/*
 * The index of en_own's inodes (sorted), no other ends yet: 0, or
 * ENOMEM.
 */
int
ep_ix_build(endpoints_t *en)
{
	size_t n = 0;

	/* en_peers has at most one entry per en_own's: IX_OTHER | i fits. */
	if (en->en_own.h_n >= IX_OTHER)
		return (ENOMEM);
	if (en->en_own.h_n > 0 && (en->en_ix = malloc(en->en_own.h_n *
	    sizeof (epindex_t))) == NULL)
		return (ENOMEM);
	for (size_t i = 0; i < en->en_own.h_n; i++) {
		uint64_t ino = en->en_own.h_v[i].eh_ino;

		if (i > 0 && en->en_own.h_v[i - 1].eh_ino == ino)
			continue;
		en->en_ix[n].ix_ino = ino;
		en->en_ix[n].ix_own = (uint32_t)i;
		en->en_ix[n].ix_peer = IX_NONE;
		n++;
	}
	en->en_nix = n;
	en->en_finger[0] = 0;
	en->en_finger[1] = n > 0 ? n - 1 : 0;
	return (0);
}

/*
 * Where each other end (en_peers) is: held by the target, its first
 * holder's place in en_own; else IX_OTHER | its entry in en_peers, whose
 * holders endpoints_of() looks for in en_other.  The other ends alone
 * are looked up here, their own sockets in ep_ix_link(): each sequence
 * stays on its runs of inodes.
 */
int
ep_ix_places(endpoints_t *en, uint32_t **wherep)
{
	uint32_t *w = malloc((en->en_npeers > 0 ? en->en_npeers : 1) *
	    sizeof (*w));

	if ((*wherep = w) == NULL)
		return (ENOMEM);
	for (size_t i = 0; i < en->en_npeers; i++) {
		const epindex_t *y = ix_find(en, en->en_peers[i].ep_peer);

		w[i] = y != NULL ? y->ix_own : IX_OTHER | (uint32_t)i;
	}
	return (0);
}

void
ep_ix_link(endpoints_t *en, const uint32_t *where)
{
	for (size_t i = 0; i < en->en_npeers; i++) {
		epindex_t *x = ix_find(en, en->en_peers[i].ep_ino);

		if (x != NULL)
			x->ix_peer = where[i];
	}
}

static int
u64_cmp(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;

	return ((*x > *y) - (*x < *y));
}

/*
 * The other ends, sorted, each once, merged with the index's inodes (the
 * target's sockets, sorted, each once): one array, sorted, each once.
 */
int
ep_wanted(const endpoints_t *en, uint64_t **wantp, size_t *np)
{
	uint64_t *want, *peers;
	size_t i = 0, j = 0, k = 0, npeers = 0;

	*wantp = NULL;
	*np = 0;
	if (en->en_npeers + en->en_nix == 0)
		return (0);
	if ((want = malloc((en->en_npeers + en->en_nix) * sizeof (*want))) ==
	    NULL)
		return (ENOMEM);
	/* The other ends first, at the top of the array, sorted there. */
	peers = want + en->en_nix;
	for (size_t p = 0; p < en->en_npeers; p++)
		peers[p] = en->en_peers[p].ep_peer;
	if (en->en_npeers > 1)
		qsort(peers, en->en_npeers, sizeof (*peers), u64_cmp);
	for (size_t p = 0; p < en->en_npeers; p++) {
		if (npeers == 0 || peers[npeers - 1] != peers[p])
			peers[npeers++] = peers[p];
	}
	/* Merged from the bottom: k never passes j's place in the top. */
	while (i < en->en_nix || j < npeers) {
		uint64_t v;

		if (j == npeers || (i < en->en_nix &&
		    en->en_ix[i].ix_ino <= peers[j]))
			v = en->en_ix[i++].ix_ino;
		else
			v = peers[j++];
		if (k == 0 || want[k - 1] != v)
			want[k++] = v;
	}
	*wantp = want;
	*np = k;
	return (0);
}

size_t
ep_unfound(endpoints_t *en, uint64_t *want, size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		size_t j = ep_first_of(&en->en_other, want[i]);

		if (ix_find(en, want[i]) != NULL ||
		    (j < en->en_other.h_n &&
		    en->en_other.h_v[j].eh_ino == want[i]))
			continue;
		want[k++] = want[i];
	}
	return (k);
}

size_t
ep_unheld(const endpoints_t *en)
{
	size_t n = 0;

	for (size_t i = 0; i < en->en_nix; i++) {
		uint32_t p = en->en_ix[i].ix_peer;
		uint64_t peer;
		size_t j;

		if (p == IX_NONE || !(p & IX_OTHER))
			continue;	/* no other end, or the target's own */
		peer = en->en_peers[p & ~IX_OTHER].ep_peer;
		j = ep_first_of(&en->en_other, peer);
		if (j == en->en_other.h_n || en->en_other.h_v[j].eh_ino != peer)
			n++;
	}
	return (n);
}

/* ------------------------------------------------------------------ */
/* The answers. */

/*
 * The payload of a list of holders (PR_ENDPOINTS, PR_SHARED), built one
 * holder at a time in the caller's buffer: the first PR_ENDPOINTS_MAX
 * named, every one counted.
 */
typedef struct epout {
	uint8_t		*o_buf;
	uint_t		o_n;		/* named */
	size_t		o_total;	/* given */
} epout_t;

static void
out_add(epout_t *o, const ephold_t *h)
{
	prendpoint_t end;

	if (o->o_n < PR_ENDPOINTS_MAX) {
		end.pr_pid = h->eh_pid;
		end.pr_fd = h->eh_fd;
		memcpy(o->o_buf + sizeof (prendpoints_t) + o->o_n *
		    sizeof (end), &end, sizeof (end));
		o->o_n++;
	}
	o->o_total++;
}

/*
 * The payload's length, its header written; 0 when it names no holder.
 * Only holders found are counted: an fd table that pfiles may not read
 * may hold more, or none; which, it cannot tell, and it does not guess.
 */
static size_t
out_end(const epout_t *o)
{
	prendpoints_t hdr;

	if (o->o_n == 0)
		return (0);
	hdr.pr_nend = o->o_n;
	hdr.pr_more = (uint_t)(o->o_total - o->o_n);
	memcpy(o->o_buf, &hdr, sizeof (hdr));
	return (sizeof (hdr) + o->o_n * sizeof (prendpoint_t));
}

size_t
endpoints_of(endpoints_t *en, uint64_t ino, void *buf, size_t bufsz)
{
	const epindex_t *x;
	epout_t out = { buf, 0, 0 };
	size_t i, j;
	uint64_t peer;

	if (en == NULL || bufsz < ENDPOINTS_BUFSZ || en->en_npeers == 0 ||
	    (x = ix_find(en, ino)) == NULL)
		return (0);
	if (x->ix_peer == IX_NONE)
		return (0);
	/*
	 * The target's own holders first (when it holds the other end),
	 * then the other processes', each in order of pid, then fd.
	 */
	if (x->ix_peer & IX_OTHER) {
		peer = en->en_peers[x->ix_peer & ~IX_OTHER].ep_peer;
		i = en->en_own.h_n;
	} else {
		i = x->ix_peer;
		peer = en->en_own.h_v[i].eh_ino;
	}
	j = ep_first_of(&en->en_other, peer);
	while (1) {
		if (i < en->en_own.h_n && en->en_own.h_v[i].eh_ino == peer)
			out_add(&out, &en->en_own.h_v[i++]);
		else if (j < en->en_other.h_n &&
		    en->en_other.h_v[j].eh_ino == peer)
			out_add(&out, &en->en_other.h_v[j++]);
		else
			break;
	}
	/*
	 * An other end that no table read holds has no item: it may be
	 * held where pfiles may not look, or by no process at all (in
	 * flight in a message); ep_unheld() counts them for ep_why.
	 */
	return (out_end(&out));
}

/*
 * The other holders of the target's socket ino, its fd fd left out, in
 * the order of endpoints_of(): the target's own (en_own, from the
 * index's entry on, by fd), then the other processes' (en_other, which
 * the one pass filled with the holders of the target's sockets too, by
 * pid then fd).
 */
size_t
endpoints_shared(endpoints_t *en, uint64_t ino, int fd, void *buf,
    size_t bufsz)
{
	const epindex_t *x;
	const holds_t *own, *other;
	epout_t out = { buf, 0, 0 };

	if (en == NULL || bufsz < ENDPOINTS_BUFSZ ||
	    (x = ix_find(en, ino)) == NULL)
		return (0);
	own = &en->en_own;
	other = &en->en_other;
	for (size_t i = x->ix_own; i < own->h_n && own->h_v[i].eh_ino == ino;
	    i++) {
		if (own->h_v[i].eh_fd != fd)
			out_add(&out, &own->h_v[i]);
	}
	for (size_t j = ep_first_of(other, ino); j < other->h_n &&
	    other->h_v[j].eh_ino == ino; j++)
		out_add(&out, &other->h_v[j]);
	return (out_end(&out));
}
