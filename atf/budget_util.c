/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * budget_util.c: the helpers t_budget and t_budget_check share
 * (budget_util.h).
 */
#include "budget_util.h"

const struct bclass_info bclass_info[BC_NCLASS] = {
	[BC_MEM_R] = { "target memory, reads (any call)", 230 },
	[BC_MEM_PREAD] = { "  of them preads of /proc/T/mem", 230 },
	[BC_MEM_W] = { "target memory, writes (any call)", -1 },
	[BC_MEM_PWRITE] = { "  of them pwrites of /proc/T/mem", -1 },
	[BC_FDINFO] = { "/proc/T/fdinfo/N, reads", -1 },
	[BC_TPROC] = { "other /proc/T files, reads", 50 },
	[BC_OPROC] = { "other /proc files, reads", -1 },
	[BC_OTHER_R] = { "other files, reads", -1 },
	[BC_OTHER_W] = { "other files, writes", -1 },
	[BC_NL_SENT] = { "netlink messages sent", -1 },
	[BC_NL_RECV] = { "netlink datagrams received", -1 },
};

const struct callkind callkinds[] = {
	{ "pread", CK_READ, 1 }, { "pread64", CK_READ, 1 },
	{ "__pread_chk", CK_READ, 1 }, { "__pread64_chk", CK_READ, 1 },
	{ "preadv", CK_READ, 1 }, { "preadv64", CK_READ, 1 },
	{ "preadv2", CK_READ, 1 }, { "preadv64v2", CK_READ, 1 },
	{ "read", CK_READ, 0 }, { "__read_chk", CK_READ, 0 },
	{ "readv", CK_READ, 0 }, { "process_vm_readv", CK_READ, 0 },
	{ "ptrace:PEEKTEXT", CK_READ, 0 }, { "ptrace:PEEKDATA", CK_READ, 0 },
	{ "ptrace:PEEKUSER", CK_READ, 0 },
	{ "pwrite", CK_WRITE, 1 }, { "pwrite64", CK_WRITE, 1 },
	{ "pwritev", CK_WRITE, 1 }, { "pwritev64", CK_WRITE, 1 },
	{ "pwritev2", CK_WRITE, 1 }, { "pwritev64v2", CK_WRITE, 1 },
	{ "write", CK_WRITE, 0 }, { "writev", CK_WRITE, 0 },
	{ "process_vm_writev", CK_WRITE, 0 },
	{ "ptrace:POKETEXT", CK_WRITE, 0 }, { "ptrace:POKEDATA", CK_WRITE, 0 },
	{ "ptrace:POKEUSER", CK_WRITE, 0 },
	{ "send", CK_NL_SEND, 0 }, { "sendto", CK_NL_SEND, 0 },
	{ "sendmsg", CK_NL_SEND, 0 },
	{ "recv", CK_NL_RECV, 0 }, { "__recv_chk", CK_NL_RECV, 0 },
	{ "recvfrom", CK_NL_RECV, 0 }, { "__recvfrom_chk", CK_NL_RECV, 0 },
	{ "recvmsg", CK_NL_RECV, 0 },
};

const budget_t budget_pidfd = { "--via=pidfd", {
	[BC_MEM_R] = { BL_ZERO, 0, 0 },
	[BC_MEM_W] = { BL_ZERO, 0, 0 },
	[BC_FDINFO] = { BL_PER_SOCKET, 1, 0 },
	[BC_TPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_OPROC] = { BL_PER_SOCKET, 0, 0 },
} };

const budget_t budget_agent = { "--via=agent", {
	[BC_MEM_R] = { BL_PER_SOCKET, 1, 0 },
	[BC_MEM_PREAD] = { BL_PER_SOCKET, 1, 0 },
	[BC_MEM_W] = { BL_PER_SOCKET, 1, 0 },
	[BC_MEM_PWRITE] = { BL_PER_SOCKET, 1, 0 },
	[BC_FDINFO] = { BL_PER_SOCKET, 1, 0 },
	[BC_TPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_OPROC] = { BL_PER_SOCKET, 0, 0 },
} };

const budget_t budget_diag = { "--via=diag", {
	[BC_MEM_R] = { BL_ZERO, 0, 0 },
	[BC_MEM_W] = { BL_ZERO, 0, 0 },
	[BC_FDINFO] = { BL_PER_SOCKET, 1, 0 },
	[BC_TPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_OPROC] = { BL_PER_SOCKET, 0, 0 },
	[BC_NL_SENT] = { BL_BOUNDED, DIAG_DUMPS_MAX, 1 },
} };

const struct callkind *
callkind(const char *name)
{
	for (size_t i = 0; i < sizeof (callkinds) / sizeof (callkinds[0]); i++)
		if (strcmp(callkinds[i].ck_name, name) == 0)
			return (&callkinds[i]);
	return (NULL);
}

int
is_target_id(const btarget_t *tg, long id)
{
	for (size_t i = 0; i < tg->bt_n; i++)
		if (tg->bt_ids[i] == id)
			return (1);
	return (0);
}

long
take_id(const char **pp)
{
	const char *p = *pp;
	long id = 0;

	if (*p < '0' || *p > '9')
		return (-1);
	for (; *p >= '0' && *p <= '9'; p++) {
		if (id > 100000000)
			return (-1);
		id = id * 10 + (*p - '0');
	}
	*pp = p;
	return (id);
}

pathkind_t
classify_path(const char *path, const btarget_t *tg)
{
	const char *p;
	long id;

	if (strncmp(path, "pid:", 4) == 0)
		return (PK_MEM);
	if (strncmp(path, "/proc/", 6) != 0)
		return (PK_OTHER);
	p = path + 6;
	if ((id = take_id(&p)) < 0 || !is_target_id(tg, id) ||
	    (*p != '/' && *p != '\0'))
		return (PK_OPROC);
	if (*p == '/')
		p++;
	if (strncmp(p, "task/", 5) == 0) {
		const char *q = p + 5;

		if (take_id(&q) >= 0 && *q == '/')
			p = q + 1;
	}
	if (strcmp(p, "mem") == 0)
		return (PK_MEM);
	if (strncmp(p, "fdinfo/", 7) == 0)
		return (PK_FDINFO);
	return (PK_TPROC);
}

long
size_now(const char *path)
{
	char buf[65536];
	long size = 0;
	ssize_t n;
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (-1);
	while ((n = read(fd, buf, sizeof (buf))) > 0 && size < SIZE_MAX_READ)
		size += n;
	(void) close(fd);
	return (n < 0 || size >= SIZE_MAX_READ ? -1 : size);
}

uint64_t
one_pass_pages(const struct pcount_rec *r, int sizes)
{
	uint64_t pages = r->pr_bytes / PAGE;
	long size;

	if (!sizes || r->pr_calls < 2 || pages == 0)
		return (0);
	if ((size = size_now(r->pr_path)) <= 0 ||
	    r->pr_bytes > (uint64_t)size + (uint64_t)size / 2)
		return (0);
	return (pages < r->pr_calls - 1 ? pages : r->pr_calls - 1);
}

void
add_to(bmeasure_t *m, bclass_t c, uint64_t calls, uint64_t pages)
{
	m->bm_class[c].bc_calls += calls;
	m->bm_class[c].bc_pages += pages;
}

int
measure(const struct pcount_tab *t, const btarget_t *tg, long sockets,
    int sizes, bmeasure_t *m, char *err, size_t errlen)
{
	(void) memset(m, 0, sizeof (*m));
	m->bm_sockets = sockets;
	for (size_t i = 0; i < t->pt_n; i++) {
		const struct pcount_rec *r = &t->pt_recs[i];
		const struct callkind *ck = callkind(r->pr_call);
		pathkind_t pk;

		if (ck == NULL) {
			(void) snprintf(err, errlen, "the counter names a call "
			    "t_budget does not know: \"%s\" (on %s); add it to "
			    "callkinds[]", r->pr_call, r->pr_path);
			return (-1);
		}
		if (strcmp(r->pr_path, "(overflow)") == 0) {
			(void) snprintf(err, errlen, "the counter's tables "
			    "overflowed (%" PRIu64 " %s calls on no path): "
			    "they cannot be classified", r->pr_calls,
			    r->pr_call);
			return (-1);
		}
		if (ck->ck_side == CK_NL_SEND || ck->ck_side == CK_NL_RECV) {
			/* The counter counts these on netlink sockets only. */
			if (strncmp(r->pr_path, "netlink:", 8) != 0) {
				(void) snprintf(err, errlen, "the counter "
				    "names %s on %s, not a netlink socket",
				    r->pr_call, r->pr_path);
				return (-1);
			}
			add_to(m, ck->ck_side == CK_NL_SEND ? BC_NL_SENT :
			    BC_NL_RECV, r->pr_calls, 0);
			continue;
		}
		pk = classify_path(r->pr_path, tg);
		if (pk == PK_MEM) {
			int onfile = strncmp(r->pr_path, "pid:", 4) != 0;
			int w = ck->ck_side == CK_WRITE;

			add_to(m, w ? BC_MEM_W : BC_MEM_R, r->pr_calls, 0);
			if (ck->ck_pfamily && onfile)
				add_to(m, w ? BC_MEM_PWRITE : BC_MEM_PREAD,
				    r->pr_calls, 0);
		} else if (ck->ck_side == CK_WRITE) {
			add_to(m, BC_OTHER_W, r->pr_calls, 0);
		} else {
			bclass_t c = pk == PK_FDINFO ? BC_FDINFO :
			    pk == PK_TPROC ? BC_TPROC :
			    pk == PK_OPROC ? BC_OPROC : BC_OTHER_R;

			add_to(m, c, r->pr_calls, (c == BC_FDINFO ||
			    c == BC_TPROC) ? one_pass_pages(r, sizes) : 0);
		}
	}
	return (0);
}

void
row_numbers(const btable_t *bt, const bcount_t *lo, const bcount_t *hi,
    brow_t *r)
{
	long added = bt->bt_at[1].bm_sockets - bt->bt_at[0].bm_sockets;
	int64_t delta = (int64_t)hi->bc_calls - (int64_t)lo->bc_calls;
	uint64_t grown = hi->bc_pages > lo->bc_pages ?
	    hi->bc_pages - lo->bc_pages : 0;

	/* Growth in pages excuses growth in calls, and nothing more. */
	if (delta <= 0)
		grown = 0;
	else if (grown > (uint64_t)delta)
		grown = (uint64_t)delta;
	r->br_lo = lo->bc_calls;
	r->br_hi = hi->bc_calls;
	r->br_grown = grown;
	r->br_charged = delta - (int64_t)grown;
	r->br_slope = added > 0 ? (double)r->br_charged / (double)added : 0;
	r->br_fixed = (double)lo->bc_calls -
	    r->br_slope * (double)bt->bt_at[0].bm_sockets;
}

void
class_row(const btable_t *bt, bclass_t c, brow_t *r)
{
	row_numbers(bt, &bt->bt_at[0].bm_class[c], &bt->bt_at[1].bm_class[c],
	    r);
}

void
target_row(const btable_t *bt, brow_t *r)
{
	static const bclass_t cls[] = { BC_MEM_R, BC_FDINFO, BC_TPROC };
	bcount_t lo = { 0, 0 }, hi = { 0, 0 };

	for (size_t i = 0; i < sizeof (cls) / sizeof (cls[0]); i++) {
		lo.bc_calls += bt->bt_at[0].bm_class[cls[i]].bc_calls;
		lo.bc_pages += bt->bt_at[0].bm_class[cls[i]].bc_pages;
		hi.bc_calls += bt->bt_at[1].bm_class[cls[i]].bc_calls;
		hi.bc_pages += bt->bt_at[1].bm_class[cls[i]].bc_pages;
	}
	row_numbers(bt, &lo, &hi, r);
}

const char *
limit_text(const blimit_t *bl, char *buf, size_t len)
{
	switch (bl->bl_kind) {
	case BL_ZERO:
		return ("none at all");
	case BL_PER_SOCKET:
		if (bl->bl_max == 0)
			return ("constant");
		(void) snprintf(buf, len, "<= %u per socket", bl->bl_max);
		return (buf);
	case BL_BOUNDED:
		(void) snprintf(buf, len, "constant, %u..%u", bl->bl_min,
		    bl->bl_max);
		return (buf);
	case BL_NONE:
		break;
	}
	return ("-");
}

int
within(const blimit_t *bl, const brow_t *r, long added)
{
	switch (bl->bl_kind) {
	case BL_ZERO:
		return (r->br_lo == 0 && r->br_hi == 0);
	case BL_PER_SOCKET:
		return (r->br_charged <= (int64_t)bl->bl_max * added);
	case BL_BOUNDED:
		return (r->br_charged <= 0 && r->br_lo >= bl->bl_min &&
		    r->br_hi >= bl->bl_min && r->br_lo <= bl->bl_max &&
		    r->br_hi <= bl->bl_max);
	case BL_NONE:
		break;
	}
	return (1);
}

void
msg_add(char *msg, size_t msglen, size_t *off, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (*off + 1 >= msglen)
		return;
	va_start(ap, fmt);
	n = vsnprintf(msg + *off, msglen - *off, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= msglen - *off) {
		*off = msglen - 1;
		if (msglen > 4)
			(void) memcpy(msg + msglen - 4, "...", 4);
	} else {
		*off += (size_t)n;
	}
}

const char *
trim(const char *name)
{
	while (*name == ' ')
		name++;
	return (name);
}

int
budget_check(const btable_t *bt, char *msg, size_t msglen)
{
	long lo = bt->bt_at[0].bm_sockets, hi = bt->bt_at[1].bm_sockets;
	size_t off = 0;
	int over = 0;

	msg[0] = '\0';
	if (lo <= 0 || hi <= lo) {
		msg_add(msg, msglen, &off, "%s: cannot judge: %ld sockets, "
		    "then %ld", bt->bt_title, lo, hi);
		return (-1);
	}
	for (int c = 0; c < BC_NCLASS; c++) {
		const blimit_t *bl = &bt->bt_budget->b_lim[c];
		char lim[32];
		brow_t r;

		class_row(bt, (bclass_t)c, &r);
		if (within(bl, &r, hi - lo))
			continue;
		msg_add(msg, msglen, &off, "%s%s: %s: %.2f per socket "
		    "(%" PRIu64 " calls at %ld sockets, %" PRIu64 " at %ld",
		    over ? "; " : "", bt->bt_budget->b_name,
		    trim(bclass_info[c].bi_name), r.br_slope, r.br_lo, lo,
		    r.br_hi, hi);
		if (r.br_grown > 0)
			msg_add(msg, msglen, &off, ", %" PRIu64 " of the "
			    "added calls not charged: files that grew",
			    r.br_grown);
		msg_add(msg, msglen, &off, "), budget: %s",
		    limit_text(bl, lim, sizeof (lim)));
		over = 1;
	}
	return (over);
}

void
print_row(FILE *fp, const char *name, const brow_t *r, const char *lim,
    const char *verdict, int seed)
{
	char seedtext[16];

	if (seed >= 0)
		(void) snprintf(seedtext, sizeof (seedtext), "%d", seed);
	else
		(void) snprintf(seedtext, sizeof (seedtext), "-");
	(void) fprintf(fp, "%-34s %8" PRIu64 " %8" PRIu64 " %10.2f %8.1f "
	    "%7" PRIu64 "  %-17s %-8s %5s\n", name, r->br_lo, r->br_hi,
	    r->br_slope, r->br_fixed, r->br_grown, lim, verdict, seedtext);
}

void
budget_print(const btable_t *bt, FILE *fp)
{
	long lo = bt->bt_at[0].bm_sockets, hi = bt->bt_at[1].bm_sockets;
	char col_lo[16], col_hi[16];
	brow_t r;

	(void) snprintf(col_lo, sizeof (col_lo), "at %ld", lo);
	(void) snprintf(col_hi, sizeof (col_hi), "at %ld", hi);
	(void) fprintf(fp, "\n%s\nbudget %s; calls at %ld and %ld sockets "
	    "(%ld added)\n\n", bt->bt_title, bt->bt_budget->b_name, lo, hi,
	    hi - lo);
	(void) fprintf(fp, "%-34s %8s %8s %10s %8s %7s  %-17s %-8s %5s\n",
	    "class", col_lo, col_hi, "per socket", "fixed", "grown", "budget",
	    "verdict", "seed");
	for (int c = 0; c < BC_NCLASS; c++) {
		const blimit_t *bl = &bt->bt_budget->b_lim[c];
		char lim[32];

		class_row(bt, (bclass_t)c, &r);
		print_row(fp, bclass_info[c].bi_name, &r,
		    limit_text(bl, lim, sizeof (lim)),
		    bl->bl_kind == BL_NONE ? "" :
		    within(bl, &r, hi - lo) ? "ok" : "OVER",
		    bclass_info[c].bi_seed);
	}
	target_row(bt, &r);
	print_row(fp, "all reads of the target", &r, "-", "", SEED_TOTAL);
	(void) fprintf(fp, "\nper socket = (calls %s - calls %s - grown) / "
	    "%ld; fixed = calls %s - %ld x per socket.\ngrown: added calls "
	    "of files read whole in one pass that grew (4 KiB a call).\n"
	    "seed: pfiles on illumos, per socket (dtrace): 230 preads of "
	    "/proc/PID/as + 50 of lwpstatus = 280.\n\n", col_hi, col_lo,
	    hi - lo, col_lo, lo);
	(void) fflush(fp);
}

long
sockets_of(int nconn)
{
	return (1 + 2L * nconn);
}

void
counted_run(char *const argv[], const char *what, const char *out,
    const char *stdout_file, struct pcount_tab *t)
{
	char err[512];
	int status;

	if (unlink(out) != 0 && errno != ENOENT)
		atf_tc_fail("unlink %s: %s", out, strerror(errno));
	if (pcount_run(argv, out, stdout_file, PFILES_SECONDS, &status, err,
	    sizeof (err)) != 0)
		atf_tc_fail("%s under the counter: %s", what, err);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		atf_tc_fail("%s: wait status 0x%x, expected exit 0 (its "
		    "stderr is above)", what, (unsigned)status);
	if (pcount_load(out, t, err, sizeof (err)) != 0)
		atf_tc_fail("%s: counter output: %s", what, err);
}

void
measure_seedlike(const char *aopt, const char *lopt, const char *fopt,
    long nsock, bmeasure_t *m)
{
	char prog[] = SEEDLIKE, a[] = "-a", l[] = "-l", f[] = "-f";
	char av[16], lv[16], fv[16], nv[16], out[96], so[96], err[512];
	char *const argv[] = { prog, a, av, l, lv, f, fv, nv, NULL };
	char *text, *what;
	struct pcount_tab t;
	btarget_t tg;
	long pid;

	(void) snprintf(av, sizeof (av), "%s", aopt);
	(void) snprintf(lv, sizeof (lv), "%s", lopt);
	(void) snprintf(fv, sizeof (fv), "%s", fopt);
	(void) snprintf(nv, sizeof (nv), "%ld", nsock);
	(void) snprintf(out, sizeof (out), "pcount-seedlike-%s-%s-%s-%ld.out",
	    aopt, lopt, fopt, nsock);
	(void) snprintf(so, sizeof (so), "seedlike-%s-%s-%s-%ld.out", aopt,
	    lopt, fopt, nsock);
	what = tu_asprintf("seedlike -a %s -l %s -f %s %ld", aopt, lopt, fopt,
	    nsock);

	counted_run(argv, what, out, so, &t);
	text = tu_read_file(so, NULL);
	if (sscanf(text, "seedlike pid = %ld\n", &pid) != 1 || pid <= 0)
		atf_tc_fail("%s: no pid line: %s", what, text);
	free(text);
	/* Its target is itself, single-threaded. */
	tg.bt_n = 1;
	tg.bt_ids[0] = pid;
	if (measure(&t, &tg, nsock, 0, m, err, sizeof (err)) != 0)
		atf_tc_fail("%s: %s", what, err);
	pcount_free(&t);
	free(what);
}

void
seedlike_table(btable_t *bt, const char *aopt, const char *lopt,
    const char *fopt)
{
	measure_seedlike(aopt, lopt, fopt, sockets_of(NCONN), &bt->bt_at[0]);
	measure_seedlike(aopt, lopt, fopt, sockets_of(4 * NCONN),
	    &bt->bt_at[1]);
}

int
judge(btable_t *bt, const budget_t *budget, char *msg, size_t msglen)
{
	int verdict;

	bt->bt_budget = budget;
	budget_print(bt, stdout);
	verdict = budget_check(bt, msg, msglen);
	(void) printf("verdict %d: %s\n", verdict, verdict == 0 ?
	    "within budget" : msg);
	(void) fflush(stdout);
	return (verdict);
}

void
require_clause(const char *msg, const budget_t *budget, bclass_t c,
    const char *per_socket)
{
	char *head = tu_asprintf("%s: %s: %s", budget->b_name,
	    trim(bclass_info[c].bi_name), per_socket);

	ATF_CHECK_MSG(strstr(msg, head) != NULL, "the checker's message "
	    "does not say \"%s\": %s", head, msg);
	free(head);
}

void
require_no_clause(const char *msg, const budget_t *budget, bclass_t c)
{
	char *head = tu_asprintf("%s: %s:", budget->b_name,
	    trim(bclass_info[c].bi_name));

	ATF_CHECK_MSG(strstr(msg, head) == NULL, "the checker blames \"%s\" "
	    "wrongly: %s", head, msg);
	free(head);
}
