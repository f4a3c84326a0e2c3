/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * endpoint_util.c: the helpers t_endpoint and t_endpoint_ns share
 * (endpoint_util.h).
 */
#include "endpoint_util.h"

void
parse_view(ep_view_t *v, const char *text)
{
	char *copy = tu_asprintf("%s", text), *save = NULL, *line;

	for (line = strtok_r(copy, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		ep_proc_t *p;
		ep_hold_t *h;
		char hex[40];
		size_t len;
		int pid;

		if (strncmp(line, "proc ", 5) == 0) {
			ATF_REQUIRE(v->v_nprocs < MAX_PROCS);
			p = &v->v_procs[v->v_nprocs++];
			memset(p, 0, sizeof (*p));
			ATF_REQUIRE_MSG(sscanf(line, "proc %15s %d %u %zu %39s",
			    p->p_role, &pid, &p->p_uid, &len, hex) == 5 &&
			    len < sizeof (p->p_comm) && (len == 0 ||
			    strlen(hex) == 2 * len), "bad view line: %s", line);
			p->p_pid = pid;
			for (size_t i = 0; i < len; i++) {
				unsigned b;

				ATF_REQUIRE(sscanf(hex + 2 * i, "%2x",
				    &b) == 1);
				p->p_comm[i] = (char)b;
			}
		} else if (strncmp(line, "hold ", 5) == 0) {
			ATF_REQUIRE(v->v_nholds < MAX_HOLDS);
			h = &v->v_holds[v->v_nholds++];
			memset(h, 0, sizeof (*h));
			ATF_REQUIRE_MSG(sscanf(line, "hold %15s %d %d %7s %c "
			    "%llu %d", h->h_role, &pid, &h->h_fd, h->h_conn,
			    &h->h_end, &h->h_ino, &h->h_cred) == 7,
			    "bad view line: %s", line);
			h->h_pid = pid;
		} else if (strncmp(line, "ends ", 5) == 0) {
			char own[32], peer[32];
			int fd;

			ATF_REQUIRE_MSG(sscanf(line, "ends %d %d %31s %31s", &pid,
			    &fd, own, peer) == 4, "bad view line: %s", line);
			h = v->v_nholds > 0 ? &v->v_holds[v->v_nholds - 1] :
			    NULL;
			ATF_REQUIRE_MSG(h != NULL && h->h_pid == pid &&
			    h->h_fd == fd, "an ends line not after its hold "
			    "line: %s", line);
			(void) snprintf(h->h_own, sizeof (h->h_own), "%s", own);
			(void) snprintf(h->h_peer, sizeof (h->h_peer), "%s",
			    peer);
		} else {
			atf_tc_fail("bad view line: %s", line);
		}
	}
	free(copy);
}

void
view_start(ep_view_t *v, const char *mode)
{
	const char *const argv[] = { HELPER, "-t", HELPER_SECONDS, mode,
	    NULL };
	char *text;
	int found;

	memset(v, 0, sizeof (*v));
	tu_spawn(&v->v_child, argv, TU_STDERR_PIPE);
	text = tu_read_until(v->v_child.tc_out, "end", TU_TIMEOUT_MS, &found);
	if (!found)
		atf_tc_fail("endpoint_helper %s gave no view: %s", mode,
		    tu_read_until(v->v_child.tc_err, NULL, 2000, NULL));
	tu_write_file("view", text, strlen(text));
	parse_view(v, text);
	free(text);
	(void) snprintf(v->v_pid, sizeof (v->v_pid), "%d",
	    (int)v->v_child.tc_pid);
	ATF_REQUIRE_MSG(v->v_nprocs > 1 && strcmp(v->v_procs[v->v_nprocs -
	    1].p_role, "parent") == 0 && v->v_procs[v->v_nprocs - 1].p_pid ==
	    v->v_child.tc_pid, "the view's last process is not the helper "
	    "%d (see view)", (int)v->v_child.tc_pid);
}

void
view_stop(ep_view_t *v)
{
	int status = tu_stop(&v->v_child, TU_TIMEOUT_MS);

	ATF_CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "endpoint_helper: wait status 0x%x", (unsigned)status);
	for (size_t i = 0; i < v->v_nprocs; i++) {
		char st = tu_proc_state(v->v_procs[i].p_pid);

		ATF_CHECK_MSG(st == 0 || st == 'Z', "the helper's %s %d is "
		    "still running", v->v_procs[i].p_role,
		    (int)v->v_procs[i].p_pid);
	}
}

const ep_proc_t *
proc_of(const ep_view_t *v, pid_t pid)
{
	for (size_t i = 0; i < v->v_nprocs; i++)
		if (v->v_procs[i].p_pid == pid)
			return (&v->v_procs[i]);
	return (NULL);
}

const ep_hold_t *
hold_of(const ep_view_t *v, const char *role, const char *conn)
{
	for (size_t i = 0; i < v->v_nholds; i++)
		if (strcmp(v->v_holds[i].h_role, role) == 0 &&
		    strcmp(v->v_holds[i].h_conn, conn) == 0)
			return (&v->v_holds[i]);
	atf_tc_fail("the view has no %s end of %s", role, conn);
	return (NULL);
}

int
hold_cmp(const void *a, const void *b)
{
	const ep_hold_t *x = *(const ep_hold_t *const *)a;
	const ep_hold_t *y = *(const ep_hold_t *const *)b;

	if (x->h_pid != y->h_pid)
		return (x->h_pid < y->h_pid ? -1 : 1);
	return ((x->h_fd > y->h_fd) - (x->h_fd < y->h_fd));
}

const ep_hold_t **
holders_of(const ep_view_t *v, const ep_hold_t *h, size_t *np)
{
	const ep_hold_t **hs = calloc(MAX_HOLDS, sizeof (*hs));
	size_t n = 0;

	ATF_REQUIRE(hs != NULL);
	for (size_t i = 0; i < v->v_nholds; i++) {
		const ep_hold_t *o = &v->v_holds[i];

		if (strcmp(o->h_conn, h->h_conn) != 0 || o->h_end == h->h_end)
			continue;
		ATF_REQUIRE_MSG(n == 0 || o->h_ino == hs[0]->h_ino, "%s %c "
		    "end: inodes %llu and %llu", o->h_conn, o->h_end,
		    o->h_ino, hs[0]->h_ino);
		ATF_REQUIRE_MSG(o->h_ino != h->h_ino, "%s: both ends are "
		    "inode %llu", h->h_conn, h->h_ino);
		hs[n++] = o;
	}
	holders_order(hs, n, h->h_pid);
	*np = n;
	return (hs);
}

const ep_hold_t **
shared_of(const ep_view_t *v, const ep_hold_t *h, size_t *np)
{
	const ep_hold_t **hs = calloc(MAX_HOLDS, sizeof (*hs));
	size_t n = 0;

	ATF_REQUIRE(hs != NULL);
	for (size_t i = 0; i < v->v_nholds; i++) {
		const ep_hold_t *o = &v->v_holds[i];

		if (o == h || strcmp(o->h_conn, h->h_conn) != 0 ||
		    o->h_end != h->h_end)
			continue;
		ATF_REQUIRE_MSG(o->h_ino == h->h_ino, "%s %c end: inodes "
		    "%llu and %llu", o->h_conn, o->h_end, o->h_ino, h->h_ino);
		hs[n++] = o;
	}
	holders_order(hs, n, h->h_pid);
	*np = n;
	return (hs);
}

char *
expected_shared(const ep_view_t *v, const ep_hold_t *h)
{
	size_t n;
	const ep_hold_t **hs = shared_of(v, h, &n);
	char *out = holder_lines(v, tu_asprintf("%s", ""), "\tshared with: ",
	    hs, n);

	free(hs);
	return (out);
}

void
holders_order(const ep_hold_t **hs, size_t n, pid_t pid)
{
	qsort(hs, n, sizeof (*hs), hold_cmp);
	/* pid's own holds first (pfiles.1: the target's own first). */
	for (size_t i = 0, k = 0; i < n; i++) {
		const ep_hold_t *o = hs[i];

		if (o->h_pid != pid)
			continue;
		memmove(&hs[k + 1], &hs[k], (i - k) * sizeof (*hs));
		hs[k++] = o;
	}
}

char *
comm_text(const ep_view_t *v, pid_t pid)
{
	const ep_proc_t *p = proc_of(v, pid);

	ATF_REQUIRE_MSG(p != NULL, "pid %d is none of the helper's",
	    (int)pid);
	return (exp_escape(p->p_comm, strlen(p->p_comm), SIZE_MAX, NULL));
}

char *
holder_lines(const ep_view_t *v, char *out, const char *label,
    const ep_hold_t **hs, size_t n)
{
	char *next, *comm;

	for (size_t i = 0; i < n && i < EXP_ENDPOINTS_MAX; i++) {
		comm = comm_text(v, hs[i]->h_pid);
		next = tu_asprintf("%s%s%s[%d] fd %d\n", out, label, comm,
		    (int)hs[i]->h_pid, hs[i]->h_fd);
		free(comm);
		free(out);
		out = next;
	}
	if (n > EXP_ENDPOINTS_MAX) {
		next = tu_asprintf("%s%sand %zu more\n", out, label,
		    n - EXP_ENDPOINTS_MAX);
		free(out);
		out = next;
	}
	return (out);
}

char *
endpoint_lines(const ep_view_t *v, char *out, const ep_hold_t **hs,
    size_t n)
{
	return (holder_lines(v, out, "\tendpoint: ", hs, n));
}

char *
expected_lines(const ep_view_t *v, const ep_hold_t *h, int flags)
{
	size_t n;
	const ep_hold_t **hs = holders_of(v, h, &n);
	char *out = tu_asprintf("%s", ""), *next, *comm;

	if (!(flags & EL_DIAG) && strcmp(h->h_conn, "tcp") != 0 &&
	    h->h_cred > 0) {
		comm = (flags & EL_UNNAMED) || !tu_peer_provable(NULL) ?
		    strdup("?") : comm_text(v, h->h_cred);
		next = tu_asprintf("%s\tpeer: %s[%d]\n", out, comm, h->h_cred);
		free(comm);
		free(out);
		out = next;
	}
	out = endpoint_lines(v, out, hs, n);
	free(hs);
	return (out);
}

char *
fd_block(const char *out, pid_t pid, int fd)
{
	char *head = tu_asprintf("%d:\t", (int)pid), *stat, *blk = NULL;
	char *sect = NULL;
	const char *p, *q, *end;

	for (p = out; p != NULL && strncmp(p, head, strlen(head)) != 0; ) {
		p = strchr(p, '\n');
		p = p != NULL ? p + 1 : NULL;
	}
	/* pid's section: up to the next header, "PID:\t". */
	if (p != NULL) {
		for (end = strchr(p, '\n'); end != NULL;
		    end = strchr(end + 1, '\n')) {
			size_t d = strspn(end + 1, "0123456789");

			if (d > 0 && end[1 + d] == ':' && end[2 + d] == '\t')
				break;
		}
		sect = tu_asprintf("%.*s", (int)(end != NULL ? end + 1 - p :
		    (long)strlen(p)), p);
		p = sect;
	}
	stat = tu_asprintf("\n%4d: ", fd);
	if (p != NULL && (q = strstr(p, stat)) != NULL) {
		/* Up to the next line that does not start with a blank. */
		q++;
		for (end = strchr(q, '\n'); end != NULL && end[1] != '\0';
		    end = strchr(end + 1, '\n')) {
			const char *l = end + 1;

			if (l[0] == '\t' || strncmp(l, "      ", 6) == 0)
				continue;
			break;
		}
		blk = tu_asprintf("%.*s", (int)(end != NULL ? end + 1 - q :
		    (long)strlen(q)), q);
	}
	free(head);
	free(stat);
	free(sect);
	return (blk);
}

char *
lines_with(const char *blk, const char *const *prefixes)
{
	char *out = tu_asprintf("%s", "");

	for (const char *p = blk; *p != '\0'; ) {
		const char *nl = strchr(p, '\n');
		size_t n = nl != NULL ? (size_t)(nl + 1 - p) : strlen(p);

		for (size_t k = 0; prefixes[k] != NULL; k++) {
			char *next;

			if (strncmp(p, prefixes[k], strlen(prefixes[k])) != 0)
				continue;
			next = tu_asprintf("%s%.*s", out, (int)n, p);
			free(out);
			out = next;
			break;
		}
		p += n;
	}
	return (out);
}

char *
shared_lines(const char *blk)
{
	static const char *const prefixes[] = { "\tshared with: ", NULL };

	return (lines_with(blk, prefixes));
}

char *
peer_lines(const char *blk)
{
	static const char *const prefixes[] = { "\tpeer: ", "\tendpoint: ",
	    NULL };

	return (lines_with(blk, prefixes));
}

char *
hold_block(const char *what, const char *out, const ep_hold_t *h)
{
	char *blk = fd_block(out, h->h_pid, h->h_fd), *ino;

	if (blk == NULL)
		atf_tc_fail("%s: no block of pid %d fd %d (%s %s)", what,
		    (int)h->h_pid, h->h_fd, h->h_role, h->h_conn);
	ino = tu_asprintf(" ino:%llu ", h->h_ino);
	ATF_REQUIRE_MSG(strstr(blk, ino) != NULL, "%s: pid %d fd %d is not "
	    "inode %llu: %s", what, (int)h->h_pid, h->h_fd, h->h_ino, blk);
	free(ino);
	return (blk);
}

void
check_hold(const char *what, const ep_view_t *v, const char *out,
    const ep_hold_t *h, int flags)
{
	char *blk = hold_block(what, out, h), *got, *want, *name;

	got = peer_lines(blk);
	want = expected_lines(v, h, flags);
	name = tu_asprintf("%s.%s-%s", what, h->h_role, h->h_conn);
	tu_require_same_str(name, want, got);
	free(name);
	free(want);
	free(got);
	/* The other holders of the very same socket, as they say. */
	got = shared_lines(blk);
	want = expected_shared(v, h);
	name = tu_asprintf("%s.%s-%s.shared", what, h->h_role, h->h_conn);
	tu_require_same_str(name, want, got);
	free(name);
	free(want);
	free(got);
	free(blk);
}

void
check_all_holds(const char *what, const ep_view_t *v, const char *out,
    int flags)
{
	for (size_t i = 0; i < v->v_nholds; i++)
		check_hold(what, v, out, &v->v_holds[i], flags);
}

void
check_cross(ep_view_t *v, const char *via, int flags)
{
	const ep_proc_t *kid = &v->v_procs[0];
	char kidpid[16];
	const char *pids[3] = { v->v_pid, kidpid, NULL };
	const char *opts[2] = { via, NULL };
	tu_result_t r;

	(void) snprintf(kidpid, sizeof (kidpid), "%d", (int)kid->p_pid);
	tu_pfiles_ok(&(const tu_pfiles_t){ .tp_opts = opts, .tp_pids = pids }
	    , &r);
	tu_write_file(via + 2, r.tr_out, r.tr_outlen);
	check_all_holds(via + 2, v, r.tr_out, flags);
	tu_result_free(&r);
}

void
require_cross_view(const ep_view_t *v)
{
	static const char *const conns[] = { "sp", "unix", "tcp" };
	pid_t parent = v->v_child.tc_pid;

	ATF_REQUIRE_EQ_MSG(v->v_nprocs, 2, "%zu processes", v->v_nprocs);
	ATF_REQUIRE_STREQ(v->v_procs[0].p_role, "child");
	for (size_t i = 0; i < 3; i++) {
		const ep_hold_t *a = hold_of(v, "parent", conns[i]);
		const ep_hold_t *b = hold_of(v, "child", conns[i]);

		ATF_REQUIRE(a->h_end == 'a' && b->h_end == 'b' &&
		    b->h_pid == v->v_procs[0].p_pid && b->h_pid != parent);
		if (strcmp(conns[i], "tcp") != 0)
			ATF_REQUIRE_MSG(a->h_cred == parent &&
			    b->h_cred == parent, "%s: SO_PEERCRED %d and %d, "
			    "not the parent %d", conns[i], a->h_cred,
			    b->h_cred, (int)parent);
	}
}

void
cross_bpf_of(const char *mode)
{
	ep_view_t v;

	tu_require_bpf();
	view_start(&v, mode);
	require_cross_view(&v);
	check_cross(&v, "--via=bpf", 0);
	view_stop(&v);
}

void
check_sources(ep_view_t *v, const char *what)
{
	/* The agent passes the sockets of another network namespace too. */
	static const struct { const char *via; int flags; } src[] = {
		{ "--via=pidfd", 0 }, { "--via=agent", 0 },
		{ "--via=diag", EL_DIAG },
	};
	char kidpid[16];
	const char *pids[3] = { v->v_pid, kidpid, NULL };

	(void) snprintf(kidpid, sizeof (kidpid), "%d",
	    (int)v->v_procs[0].p_pid);
	for (size_t i = 0; i < sizeof (src) / sizeof (src[0]); i++) {
		const char *opts[2] = { src[i].via, NULL };
		char *name = tu_asprintf("%s.%s", what, src[i].via + 6);
		tu_result_t r;

		tu_pfiles_ok(&(const tu_pfiles_t){ .tp_opts = opts,
		    .tp_pids = pids }, &r);
		tu_write_file(name, r.tr_out, r.tr_outlen);
		check_all_holds(name, v, r.tr_out, src[i].flags);
		ATF_CHECK_MSG(strstr(r.tr_err, "not in the kernel's socket "
		    "tables") == NULL, "%s: a socket not found: %s", name,
		    r.tr_err);
		free(name);
		tu_result_free(&r);
	}
}
