/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * bpf_util.c: the helpers t_bpf and t_bpf_refused share
 * (bpf_util.h).
 */
#include "bpf_util.h"

size_t
count_lines_with(const char *text, const char *needle)
{
	size_t n = 0;

	for (const char *p = text; *p != '\0'; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) : strlen(p);
		char *line = tu_asprintf("%.*s", (int)len, p);

		n += strstr(line, needle) != NULL;
		free(line);
		p += len + (nl != NULL);
	}
	return (n);
}

char *
without_trace(const char *text)
{
	char *out = tu_asprintf("%s", ""), *more;

	for (const char *p = text; *p != '\0'; ) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p + 1) : strlen(p);

		if (strncmp(p, "libproc[", 8) != 0) {
			more = tu_asprintf("%s%.*s", out, (int)len, p);
			free(out);
			out = more;
		}
		p += len;
	}
	return (out);
}

int
line_starts(const char *line, int json, long *pid, long *fd)
{
	const char *p = line;
	char *end;
	long v;

	if (json) {
		if (strncmp(p, "{\"pid\":", 7) == 0) {
			*pid = strtol(p + 7, NULL, 10);
			*fd = -1;
			return (1);
		}
		if (strncmp(p, "{\"fd\":", 6) == 0) {
			*fd = strtol(p + 6, NULL, 10);
			return (1);
		}
		return (0);
	}
	while (*p == ' ')
		p++;
	if (*p < '0' || *p > '9')
		return (0);
	v = strtol(p, &end, 10);
	if (p == line && end[0] == ':' && end[1] == '\t') {
		*pid = v;
		*fd = -1;
		return (1);
	}
	if (p != line && end[0] == ':' && end[1] == ' ') {
		*fd = v;
		return (1);
	}
	return (0);
}

void
diff_block(const char *pl, const char *bl, int json, long *pid, long *fd)
{
	long ppid = *pid, pfd = *fd, bpid = *pid, bfd = *fd;

	if (!line_starts(pl, json, &ppid, &pfd) ||
	    !line_starts(bl, json, &bpid, &bfd))
		return;
	if (ppid != *pid || bpid != *pid) {
		*pid = ppid != *pid ? ppid : bpid;
		*fd = -1;
	} else {
		*fd = pfd < bfd ? pfd : bfd;
	}
}

void
require_same_output(const char *what, int json, const tu_result_t *pidfd,
    const tu_result_t *bpf)
{
	const char *p = pidfd->tr_out, *b = bpf->tr_out;
	const char *pend = p + pidfd->tr_outlen, *bend = b + bpf->tr_outlen;
	long pid = -1, fd = -1;
	size_t lineno = 0, plen, blen;
	char *file, *pl, *bl, *where;

	if (pidfd->tr_outlen == bpf->tr_outlen &&
	    memcmp(p, b, pidfd->tr_outlen) == 0)
		return;
	file = tu_asprintf("%s.pidfd", what);
	tu_write_file(file, p, pidfd->tr_outlen);
	free(file);
	file = tu_asprintf("%s.bpf", what);
	tu_write_file(file, b, bpf->tr_outlen);
	free(file);

	for (;;) {
		const char *pn = memchr(p, '\n', (size_t)(pend - p));
		const char *bn = memchr(b, '\n', (size_t)(bend - b));

		plen = pn != NULL ? (size_t)(pn - p + 1) : (size_t)(pend - p);
		blen = bn != NULL ? (size_t)(bn - b + 1) : (size_t)(bend - b);
		lineno++;
		if (plen != blen || memcmp(p, b, plen) != 0 || p == pend)
			break;
		pl = tu_asprintf("%.*s", (int)plen, p);
		(void) line_starts(pl, json, &pid, &fd);
		free(pl);
		p += plen;
		b += blen;
	}
	pl = p < pend ? tu_asprintf("%.*s", (int)plen, p) :
	    tu_asprintf("%s", "(end of output)");
	bl = b < bend ? tu_asprintf("%.*s", (int)blen, b) :
	    tu_asprintf("%s", "(end of output)");
	bl[strcspn(bl, "\n")] = '\0';
	pl[strcspn(pl, "\n")] = '\0';
	diff_block(pl, bl, json, &pid, &fd);
	where = fd >= 0 ? tu_asprintf("pid %ld, fd %ld", pid, fd) :
	    pid >= 0 ? tu_asprintf("pid %ld, its header", pid) :
	    tu_asprintf("%s", "before any process");
	(void) fprintf(stderr, "%s: --via=bpf differs from --via=pidfd at "
	    "line %zu (%s):\n  pidfd: %s\n  bpf:   %s\n", what, lineno,
	    where, pl, bl);
	atf_tc_fail("%s: %s: bpf and pidfd differ at line %zu: pidfd "
	    "\"%s\", bpf \"%s\"", what, where, lineno, pl, bl);
}

char *
compare_one(const char *what, int json, const char *const pids[],
    size_t npids)
{
	static const char *const env[] = { DEBUG_ENV, NULL };
	const char *pidfd_opts[3] = { "--via=pidfd", NULL, NULL };
	const char *bpf_opts[3] = { "--via=bpf", NULL, NULL };
	tu_result_t rp, rb;
	char *err, *out;
	size_t nserved, nloaded;

	if (json) {
		pidfd_opts[1] = "-J";
		bpf_opts[1] = "-J";
	}
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = pidfd_opts, .tp_pids = pids,
	    .tp_npids = npids }, &rp);
	tu_pfiles(&(const tu_pfiles_t){ .tp_opts = bpf_opts, .tp_pids = pids,
	    .tp_npids = npids, .tp_env = env }, &rb);
	tu_require_exit("pfiles --via=pidfd", &rp, 0);
	tu_require_exit("pfiles --via=bpf", &rb, 0);

	nserved = count_lines_with(rb.tr_err, TRACE_BPF);
	nloaded = count_lines_with(rb.tr_err, TRACE_LOADED);
	if (nserved != npids || nloaded != 1)
		(void) fprintf(stderr, "%s: pfiles --via=bpf stderr:\n%s",
		    what, rb.tr_err);
	ATF_REQUIRE_EQ_MSG(nserved, npids, "%s: bpf served %zu of %zu "
	    "pids (the trace is on stderr)", what, nserved, npids);
	ATF_REQUIRE_EQ_MSG(nloaded, 1, "%s: \"" TRACE_LOADED "\" traced %zu "
	    "times in one run of %zu pids", what, nloaded, npids);

	require_same_output(what, json, &rp, &rb);
	err = without_trace(rb.tr_err);
	out = tu_asprintf("%s.stderr", what);
	tu_require_same_str(out, rp.tr_err, err);
	free(out);
	free(err);
	out = rb.tr_out;
	rb.tr_out = NULL;
	tu_result_free(&rp);
	tu_result_free(&rb);
	return (out);
}

char *
compare_vias(const char *what, const char *const pids[], size_t npids)
{
	char *text, *w;

	w = tu_asprintf("%s.json", what);
	free(compare_one(w, 1, pids, npids));
	free(w);
	text = compare_one(what, 0, pids, npids);
	ATF_REQUIRE_MSG(strlen(text) > 0, "%s: pfiles printed nothing",
	    what);
	return (text);
}

long
said(const char *text, const char *key)
{
	char *pat = tu_asprintf("%s ", key);
	const char *p = text;

	for (;;) {
		if (strncmp(p, pat, strlen(pat)) == 0)
			break;
		if ((p = strchr(p, '\n')) == NULL)
			atf_tc_fail("the helper did not say \"%s\": %s", key,
			    text);
		p++;
	}
	p += strlen(pat);
	free(pat);
	return (strtol(p, NULL, 10));
}

char *
spawn_ready(tu_child_t *c, const char *const argv[])
{
	char *text;
	int found;

	tu_spawn(c, argv, TU_STDERR_PIPE);
	text = tu_read_until(c->tc_out, "ready", TU_TIMEOUT_MS, &found);
	if (!found) {
		char *msg = tu_read_until(c->tc_err, NULL, 5000, NULL);

		(void) fprintf(stderr, "helper's stderr:\n%s\n", msg);
		atf_tc_fail("the helper did not get ready: %s", msg);
	}
	return (text);
}
