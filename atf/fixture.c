/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fixture.c: fixtures/sockfix started and its manifest read, and the list
 * of its sets (fixture.h).
 */
#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "fixture.h"

#define	FX_MAX_ARGS	32

#define	FX_ENTRY(name, kinds, flags)	{ #name, kinds, flags },
const fx_set_t fx_sets[] = {
	FX_SETS(FX_ENTRY)
	FX_NAMED_SETS(FX_ENTRY)
	FX_STATE_SETS(FX_ENTRY)
};
#undef	FX_ENTRY
const size_t fx_nsets = sizeof (fx_sets) / sizeof (fx_sets[0]);

const fx_set_t *
fx_set(const char *name)
{
	for (size_t i = 0; i < fx_nsets; i++) {
		if (strcmp(fx_sets[i].fs_name, name) == 0)
			return (&fx_sets[i]);
	}
	atf_tc_fail("sockfix's set %s is not in fixture.h's list", name);
	return (NULL);
}

void
fx_start(fixture_t *fx, const char *const argv[])
{
	char err[256], *text;
	int found;

	tu_spawn(&fx->fx_child, argv, TU_STDERR_PIPE);
	text = tu_read_until(fx->fx_child.tc_out, "end", TU_TIMEOUT_MS,
	    &found);
	if (!found) {
		char *msg = tu_read_until(fx->fx_child.tc_err, NULL, 2000,
		    NULL);

		(void) fprintf(stderr, "sockfix stderr:\n%s\n", msg);
		atf_tc_fail("sockfix gave no manifest: %s", msg);
	}
	if ((fx->fx_manifest = mf_parse(text, err, sizeof (err))) == NULL) {
		tu_write_file("manifest", text, strlen(text));
		atf_tc_fail("sockfix manifest: %s", err);
	}
	free(text);
	(void) snprintf(fx->fx_pid, sizeof (fx->fx_pid), "%d",
	    (int)fx->fx_manifest->m_pid);
	ATF_REQUIRE_EQ_MSG(fx->fx_manifest->m_pid, fx->fx_child.tc_pid,
	    "manifest pid %d, child %d", (int)fx->fx_manifest->m_pid,
	    (int)fx->fx_child.tc_pid);
}

void
fx_start_set(fixture_t *fx, const char *set, const char *comm,
    const char *const extra[])
{
	const char *argv[FX_MAX_ARGS];
	int n = 0, skipped;

	argv[n++] = TU_SOCKFIX;
	argv[n++] = "-t";
	argv[n++] = FX_SECONDS;
	argv[n++] = "-s";
	argv[n++] = set;
	if (comm != NULL) {
		argv[n++] = "-c";
		argv[n++] = comm;
	}
	for (int i = 0; extra != NULL && extra[i] != NULL; i++) {
		ATF_REQUIRE(n < FX_MAX_ARGS - 1);
		argv[n++] = extra[i];
	}
	argv[n] = NULL;

	fx_start(fx, argv);
	if ((skipped = mf_skipped(fx->fx_manifest, set)) != 0) {
		(void) tu_stop(&fx->fx_child, TU_TIMEOUT_MS);
		atf_tc_skip("sockfix could not open set %s here: %s", set,
		    strerror(skipped));
	}
}

void
fx_stop(fixture_t *fx)
{
	int status = tu_stop(&fx->fx_child, TU_TIMEOUT_MS);

	mf_free(fx->fx_manifest);
	fx->fx_manifest = NULL;
	ATF_REQUIRE_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "sockfix did not exit cleanly: wait status 0x%x",
	    (unsigned)status);
}

/* Is kind one of the comma-separated list? */
static int
kind_in(const char *list, const char *kind)
{
	size_t n = strlen(kind);

	for (const char *p = list; *p != '\0'; ) {
		size_t len = strcspn(p, ",");

		if (len == n && strncmp(p, kind, n) == 0)
			return (1);
		p += len + (p[len] == ',');
	}
	return (0);
}

/*
 * The kinds of fd the manifest of set s must hold (*must) and those it
 * may hold besides (*may): "inherited", and for "all" ("states") the
 * kinds of the sets sockfix said it skipped.  Both malloc'd,
 * comma-separated.
 */
static void
set_kinds(const manifest_t *m, const fx_set_t *s, char **must, char **may)
{
	*must = tu_asprintf("%s", s->fs_kinds != NULL ? s->fs_kinds : "");
	*may = tu_asprintf("inherited");
	if (!(s->fs_flags & FX_ALL))
		return;
	for (size_t i = 0; i < fx_nsets; i++) {
		const fx_set_t *e = &fx_sets[i];
		char **to = (e->fs_flags & FX_TRY) &&
		    mf_skipped(m, e->fs_name) != 0 ? may : must;
		char *more;

		if ((e->fs_flags & (FX_ALL | FX_NAMED)) ||
		    (e->fs_flags & FX_STATE) != (s->fs_flags & FX_STATE))
			continue;
		more = tu_asprintf("%s%s%s", *to, **to != '\0' ? "," : "",
		    e->fs_kinds);
		free(*to);
		*to = more;
	}
}

void
fx_require_kinds(const fixture_t *fx, const char *set)
{
	const manifest_t *m = fx->fx_manifest;
	char *must, *may, *copy, *save = NULL;

	set_kinds(m, fx_set(set), &must, &may);
	copy = tu_asprintf("%s", must);
	for (char *k = strtok_r(copy, ",", &save); k != NULL;
	    k = strtok_r(NULL, ",", &save))
		ATF_REQUIRE_MSG(mf_find_kind(m, k) != NULL, "set %s: the "
		    "manifest has no fd of kind %s", set, k);
	for (size_t i = 0; i < m->m_nfds; i++) {
		const char *k = m->m_fds[i].f_kind;

		ATF_REQUIRE_MSG(kind_in(must, k) || kind_in(may, k), "set %s: "
		    "fd %d of kind %s is not of fixture.h's list of the set",
		    set, m->m_fds[i].f_fd, k);
	}
	free(copy);
	free(must);
	free(may);
}
