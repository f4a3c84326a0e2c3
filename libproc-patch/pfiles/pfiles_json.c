/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pfiles_json.c: pfiles -J.  The facts are the text's, decided and named
 * by the text's formatter (pfiles_fmt.h: the same item index, the same
 * lists, the same rules of what is shown); only the layout differs.  One fd object per line, so that the document
 * streams and a reader can follow it line by line too.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "pf_escape.h"
#include "pfiles_json.h"

/* JSON's escaping of len bytes of s (valid UTF-8, or our own ASCII). */
static void
json_bytes(FILE *out, const char *s, size_t len)
{
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			(void) fprintf(out, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			(void) fprintf(out, "\\u%04x", c);
		else
			(void) fputc(c, out);
	}
}

void
pfj_string(FILE *out, const char *s)
{
	(void) fputc('"', out);
	json_bytes(out, s, strlen(s));
	(void) fputc('"', out);
}

/*
 * A string of the target's: through the rule for text from the target
 * (valid UTF-8 out, whatever went in), then JSON's escaping.
 */
static void
target_string(FILE *out, const void *p, size_t len)
{
	char small[512], *buf = small;
	size_t cap = len * PF_ESC_UNITMAX + 1, n;

	/* Out of memory: cut where a unit ends, as a bounded field is. */
	if (cap <= sizeof (small) || (buf = malloc(cap)) == NULL) {
		buf = small;
		cap = sizeof (small);
	}
	n = pf_escape(buf, cap, p, len, PF_ESC_NOMAX);
	(void) fputc('"', out);
	json_bytes(out, buf, n);
	(void) fputc('"', out);
	if (buf != small)
		free(buf);
}

/* "key": before a member, with its comma when not the first. */
static void
key(FILE *out, int *n, const char *k)
{
	(void) fprintf(out, "%s\"%s\":", (*n)++ > 0 ? "," : "", k);
}

static void
begin_object(pfj_t *j)
{
	if (j->j_nobj++ > 0)
		(void) fputs(",\n", j->j_out);
}

void
pfj_begin(pfj_t *j, FILE *out)
{
	memset(j, 0, sizeof (*j));
	j->j_out = out;
	(void) fputs("[\n", out);
}

void
pfj_end(pfj_t *j)
{
	(void) fputs(j->j_nobj > 0 ? "\n]\n" : "]\n", j->j_out);
}

/*
 * The header's facts: pid, comm, and the command line, whole (args, when
 * the caller read it all; else psinfo's, which holds its first 79 bytes).
 */
static void
header_members(FILE *out, int *n, const psinfo_t *psp, const char *args,
    size_t argslen)
{
	key(out, n, "pid");
	(void) fprintf(out, "%d", (int)psp->pr_pid);
	key(out, n, "comm");
	target_string(out, psp->pr_fname, strnlen(psp->pr_fname,
	    sizeof (psp->pr_fname)));
	key(out, n, "args");
	if (args != NULL)
		target_string(out, args, argslen);
	else
		target_string(out, psp->pr_psargs, strnlen(psp->pr_psargs,
		    sizeof (psp->pr_psargs)));
}

void
pfj_proc_begin(pfj_t *j, const psinfo_t *psp, const struct rlimit *rl,
    const char *args, size_t argslen)
{
	FILE *out = j->j_out;
	int n = 0;

	begin_object(j);
	(void) fputc('{', out);
	header_members(out, &n, psp, args, argslen);
	if (rl != NULL) {
		key(out, &n, "rlimit_nofile");
		if (rl->rlim_cur == RLIM_INFINITY)
			(void) fputs("\"unlimited\"", out);
		else
			(void) fprintf(out, "%llu",
			    (unsigned long long)rl->rlim_cur);
	}
	key(out, &n, "fds");
	(void) fputc('[', out);
	j->j_nfd = 0;
	j->j_open = 1;
}

void
pfj_proc_end(pfj_t *j, const char *const *notes, int nnotes,
    const char *error)
{
	FILE *out = j->j_out;

	(void) fputs(j->j_nfd > 0 ? "\n],\"notes\":[" : "],\"notes\":[", out);
	for (int i = 0; i < nnotes; i++) {
		if (i > 0)
			(void) fputc(',', out);
		pfj_string(out, notes[i]);
	}
	(void) fputc(']', out);
	if (error != NULL) {
		(void) fputs(",\"error\":", out);
		pfj_string(out, error);
	}
	(void) fputc('}', out);
	j->j_open = 0;
}

void
pfj_sysproc(pfj_t *j, const psinfo_t *psp)
{
	int n = 0;

	begin_object(j);
	(void) fputc('{', j->j_out);
	header_members(j->j_out, &n, psp, NULL, 0);
	(void) fputs(",\"system_process\":true}", j->j_out);
}

void
pfj_error(pfj_t *j, const char *arg, const char *error)
{
	begin_object(j);
	(void) fputs("{\"arg\":", j->j_out);
	/* The argument as given: the caller's text, but any bytes at all. */
	target_string(j->j_out, arg, strlen(arg));
	(void) fputs(",\"error\":", j->j_out);
	pfj_string(j->j_out, error);
	(void) fputc('}', j->j_out);
}

static void
devpair(FILE *out, int *n, const char *k, unsigned maj, unsigned min)
{
	key(out, n, k);
	(void) fprintf(out, "{\"major\":%u,\"minor\":%u}", maj, min);
}

static void
stat_members(FILE *out, int *n, const prfdinfo_t *info, const char *path)
{
	mode_t fmt = info->pr_mode & S_IFMT;
	char tbuf[512];

	key(out, n, "fd");
	(void) fprintf(out, "%d", info->pr_fd);
	key(out, n, "type");
	/* pf_typeword escaped an anonymous inode's name already. */
	pfj_string(out, pf_typeword(info->pr_mode, path, tbuf, sizeof (tbuf)));
	key(out, n, "mode");
	(void) fprintf(out, "\"0%.3o\"", (unsigned)(info->pr_mode & 07777));
	devpair(out, n, "dev", info->pr_major, info->pr_minor);
	key(out, n, "ino");
	(void) fprintf(out, "%llu", (unsigned long long)info->pr_ino);
	key(out, n, "uid");
	(void) fprintf(out, "%u", (unsigned)info->pr_uid);
	key(out, n, "gid");
	(void) fprintf(out, "%u", (unsigned)info->pr_gid);
	if (fmt == S_IFCHR || fmt == S_IFBLK || fmt == S_IFSOCK) {
		devpair(out, n, "rdev", info->pr_rmajor, info->pr_rminor);
	} else {
		key(out, n, "size");
		(void) fprintf(out, "%lld", (long long)info->pr_size);
	}
}

typedef struct list {
	FILE	*l_out;
	int	l_n;
} list_t;

static void
flag_member(void *arg, const char *name)
{
	list_t *l = arg;

	if (l->l_n++ > 0)
		(void) fputc(',', l->l_out);
	pfj_string(l->l_out, name);
}

static void
opt_member(void *arg, const char *name, pf_optkind_t kind, int value)
{
	list_t *l = arg;

	if (l->l_n++ > 0)
		(void) fputc(',', l->l_out);
	(void) fprintf(l->l_out, "\"%s\":", name);
	switch (kind) {
	case PF_OPT_BOOL:
		(void) fputs(value ? "true" : "false", l->l_out);
		break;
	case PF_OPT_VALUE:
		(void) fprintf(l->l_out, "%d", value);
		break;
	case PF_OPT_OFF:
		(void) fputs("false", l->l_out);
		break;
	}
}

static void
locks_member(FILE *out, int *n, const pf_items_t *ix)
{
	const prfdlock_t *lk;
	prfdlock_t l;
	size_t len;

	if ((lk = pf_item(ix, PR_LOCKS, &len)) == NULL)
		return;
	key(out, n, "locks");
	(void) fputc('[', out);
	for (size_t i = 0; i < len / sizeof (l); i++) {
		memcpy(&l, (const char *)lk + i * sizeof (l), sizeof (l));
		(void) fprintf(out, "%s{\"mandatory\":%s,\"type\":\"%s\"",
		    i > 0 ? "," : "", l.pr_mandatory ? "true" : "false",
		    l.pr_type == F_WRLCK ? "write" :
		    l.pr_type == F_RDLCK ? "read" : "unlock");
		if (l.pr_pid > 0)
			(void) fprintf(out, ",\"pid\":%d", (int)l.pr_pid);
		(void) fputc('}', out);
	}
	(void) fputc(']', out);
}

/*
 * A netlink address's groups, as the list of their numbers (from 1): of
 * the socket's own name, every group it is a member of; of its peer's,
 * the name's own 32 (the socket's memberships are not the peer's).
 */
static void
groups_member(FILE *out, int *m, const pf_items_t *ix, unsigned first)
{
	uint32_t w[64];
	uint_t n = ix != NULL ? pf_nlgroups(ix, first, w, 64) : 0;
	int k = 0;

	if (ix == NULL) {	/* a peer's: its name's first 32 alone */
		w[0] = first;
		n = 1;
	}
	key(out, m, "groups");
	(void) fputc('[', out);
	for (uint_t i = 0; i < n; i++) {
		for (uint_t b = 0; b < 32; b++) {
			if (w[i] & (1U << b))
				(void) fprintf(out, "%s%u", k++ > 0 ? "," : "",
				    i * 32 + b + 1);
		}
	}
	(void) fputc(']', out);
}

/* A packet socket's interface (by name, or "any") and protocol. */
static void
packet_members(FILE *out, int *m, const pf_items_t *ix, const pf_addr_t *a)
{
	const char *ifname;
	size_t len;

	key(out, m, "ifindex");
	(void) fprintf(out, "%d", a->pa_ifindex);
	if (a->pa_ifindex == 0) {
		key(out, m, "interface");
		pfj_string(out, "any");
	} else if (ix != NULL &&
	    (ifname = pf_item(ix, PR_IFNAME, &len)) != NULL && len > 1) {
		key(out, m, "interface");
		target_string(out, ifname, strnlen(ifname, len));
	}
	key(out, m, "protocol");
	if (a->pa_ethname != NULL)
		pfj_string(out, a->pa_ethname);
	else
		(void) fprintf(out, "%u", a->pa_ethproto);
}

static void
addr_member(FILE *out, int *n, const char *k, const pf_items_t *ix,
    uint_t item)
{
	int protocol = pf_int_item(ix, PR_SOCKOPT_PROTOCOL, -1);
	const void *sa;
	size_t len;
	pf_addr_t a;
	int m = 0;

	if ((sa = pf_item(ix, item, &len)) == NULL)
		return;

	if (pf_addr_decode(sa, len, protocol, &a) != 0)
		return;
	key(out, n, k);
	(void) fputc('{', out);
	key(out, &m, "family");
	if (a.pa_famname != NULL)
		pfj_string(out, a.pa_famname);
	else
		(void) fprintf(out, "\"AF_%d\"", a.pa_family);
	switch (a.pa_kind) {
	case PF_ADDR_INET:
		key(out, &m, "address");
		pfj_string(out, a.pa_addr);
		key(out, &m, "port");
		(void) fprintf(out, "%u", a.pa_port);
		break;
	case PF_ADDR_PATH:
		key(out, &m, "path");
		target_string(out, a.pa_name, a.pa_namelen);
		break;
	case PF_ADDR_ABSTRACT:
		key(out, &m, "abstract");
		target_string(out, a.pa_name, a.pa_namelen);
		break;
	case PF_ADDR_NETLINK:
		key(out, &m, "protocol");
		if (a.pa_protoname != NULL)
			pfj_string(out, a.pa_protoname);
		else
			(void) fprintf(out, "%d", a.pa_protocol);
		key(out, &m, "pid");
		(void) fprintf(out, "%u", a.pa_nlpid);
		groups_member(out, &m, item == PR_SOCKETNAME ? ix : NULL,
		    a.pa_nlgroups);
		break;
	case PF_ADDR_PACKET:
		packet_members(out, &m, item == PR_SOCKETNAME ? ix : NULL,
		    &a);
		break;
	case PF_ADDR_UNNAMED:
	case PF_ADDR_OTHER:
		break;
	}
	(void) fputc('}', out);
}

/* The state line's facts: "state", then "queued" or "backlog". */
static void
state_members(FILE *out, int *m, const pf_items_t *ix)
{
	prsockstate_t st;

	if (!pf_sockstate(ix, &st))
		return;
	if (st.pr_state != 0) {
		key(out, m, "state");
		pfj_string(out, pf_state_name(st.pr_state,
		    pf_int_item(ix, PR_SOCKOPT_DOMAIN, -1)));
	}
	if (st.pr_queues == PR_SSQ_QUEUED) {
		key(out, m, "queued");
		(void) fprintf(out, "{\"read\":%u,\"send\":%u}",
		    st.pr_read, st.pr_send);
	} else if (st.pr_queues == PR_SSQ_BACKLOG) {
		key(out, m, "backlog");
		(void) fprintf(out, "{\"waiting\":%u,\"limit\":%u}",
		    st.pr_read, st.pr_send);
	}
}

/* What endpoints_member() is writing. */
typedef struct ends {
	FILE		*e_out;
	pf_ctx_t	*e_ctx;
	int		e_n;		/* holders written */
	uint_t		e_more;
} ends_t;

static void
endpoint_member(void *arg, pid_t pid, int fd, uint_t more)
{
	ends_t *e = arg;
	const char *comm;

	if (more > 0) {
		e->e_more = more;
		return;
	}
	(void) fputs(e->e_n++ > 0 ? ",{" : "{", e->e_out);
	comm = e->e_ctx->pf_comm != NULL ?
	    e->e_ctx->pf_comm(e->e_ctx->pf_comm_arg, pid) : NULL;
	if (comm != NULL) {
		(void) fputs("\"comm\":", e->e_out);
		target_string(e->e_out, comm, strlen(comm));
		(void) fputc(',', e->e_out);
	}
	(void) fprintf(e->e_out, "\"pid\":%d,\"fd\":%d}", (int)pid, fd);
}

/*
 * The holders of the other end, where the text has "endpoint:" lines:
 * "endpoints", and "endpoints_more" when there are more than are listed;
 * the same of "shared with:" lines as "shared_with", "shared_with_more".
 */
static void
holders_member(FILE *out, int *m, pf_ctx_t *ctx, const pf_items_t *ix,
    uint_t item)
{
	const char *k = item == PR_SHARED ? "shared_with" : "endpoints";
	ends_t e = { out, ctx, 0, 0 };

	if (pf_item(ix, item, NULL) == NULL)
		return;
	key(out, m, k);
	(void) fputc('[', out);
	pf_holders_each(ix, item, endpoint_member, &e);
	(void) fputc(']', out);
	if (e.e_more > 0) {
		(void) fprintf(out, ",\"%s_more\":%u", k, e.e_more);
	}
}

static void
socket_member(FILE *out, int *n, pf_ctx_t *ctx, const pf_items_t *ix)
{
	const void *p;
	const char *name, *comm;
	list_t l = { out, 0 };
	size_t len;
	pid_t pid;
	int m = 0, peer;

	key(out, n, "socket");
	(void) fputc('{', out);
	if (pf_item(ix, PR_SOCKOPT_TYPE, NULL) != NULL) {
		int type = pf_int_item(ix, PR_SOCKOPT_TYPE, -1);

		key(out, &m, "type");
		if ((name = pf_socktype_name(type)) != NULL)
			pfj_string(out, name);
		else
			(void) fprintf(out, "%d", type);
	}
	key(out, &m, "options");
	(void) fputc('{', out);
	pf_sockopt_each(ix, opt_member, &l);
	(void) fputc('}', out);
	addr_member(out, &m, "sockname", ix, PR_SOCKETNAME);
	addr_member(out, &m, "peername", ix, PR_PEERSOCKNAME);
	peer = pf_item(ix, PR_PEERSOCKNAME, NULL) != NULL;
	state_members(out, &m, ix);
	/* The peer's credentials, where the text has a "peer:" line. */
	if (peer && (pid = pf_peer(ix, &comm)) != 0) {
		key(out, &m, "peer");
		(void) fputc('{', out);
		if (comm != NULL) {
			(void) fputs("\"comm\":", out);
			target_string(out, comm, strlen(comm));
			(void) fputc(',', out);
		}
		(void) fprintf(out, "\"pid\":%d}", (int)pid);
	}
	holders_member(out, &m, ctx, ix, PR_ENDPOINTS);
	holders_member(out, &m, ctx, ix, PR_SHARED);
	if ((p = pf_item(ix, PR_SOCKERR, &len)) != NULL) {
		key(out, &m, "error");
		target_string(out, p, strnlen(p, len));
	}
	(void) fputc('}', out);
}

int
pfj_file(pfj_t *j, pf_ctx_t *ctx, const pf_items_t *ix)
{
	const prfdinfo_t *info = ix->pi_info;
	FILE *out = j->j_out;
	list_t l = { out, 0 };
	pf_shown_t sh;
	int n = 0, statonly = ctx->pf_statonly;
	const char *why;
	size_t len;

	pf_shown(ix, &sh);
	(void) fputs(j->j_nfd++ > 0 ? ",\n{" : "\n{", out);
	stat_members(out, &n, info, sh.ps_path);
	if (!statonly && pf_item(ix, PR_CHANGED, NULL) != NULL) {
		/* Only its stat facts are sure, as in the text. */
		key(out, &n, "changed");
		(void) fputs("true", out);
		statonly = 1;
	}
	if (!statonly)
		pf_account(ctx, ix);
	if (!statonly) {
		key(out, &n, "flags");
		(void) fputc('[', out);
		pf_flag_each(info->pr_fileflags, info->pr_fdflags,
		    flag_member, &l);
		(void) fputc(']', out);
		locks_member(out, &n, ix);
		if (sh.ps_socket)
			socket_member(out, &n, ctx, ix);
		if (sh.ps_pathline) {
			key(out, &n, "path");
			target_string(out, sh.ps_path, strlen(sh.ps_path));
		}
		if ((why = pf_item(ix, PR_PATHERR, &len)) != NULL) {
			key(out, &n, "path_error");
			target_string(out, why, strnlen(why, len));
		}
		if (sh.ps_offset) {
			key(out, &n, "offset");
			(void) fprintf(out, "%lld",
			    (long long)info->pr_offset);
		}
	}
	(void) fputc('}', out);
	return (0);
}
