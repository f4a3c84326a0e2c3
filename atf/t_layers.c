/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * t_layers: libproc's structure is the one doc/design.md draws, read from
 * the objects' own symbols and the sources, not from what the documents
 * say: its folders form an acyclic graph (scripts/layers.sh: a folder
 * uses another when it needs a symbol the other defines), core uses no
 * other folder, no source of socket facts (src/X) uses another, the
 * source interface stays narrow, one file reads fd directories, and no
 * function of libproc-patch/ is over 80 lines or takes more than six
 * parameters (scripts/funcs.sh).
 */
#include <atf-c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

#define	LAYERS_SH	SRC_DIR "/scripts/layers.sh"
#define	FUNCS_SH	SRC_DIR "/scripts/funcs.sh"
#define	LIBPROC_DIR	SRC_DIR "/libproc-patch"
#define	MAX_FOLDERS	32
#define	MAX_LINES	80
#define	MAX_PARAMS	6
#define	MAX_OPS		8

/* The folder graph: names, and an adjacency matrix. */
typedef struct graph {
	char	g_name[MAX_FOLDERS][64];
	int	g_n;
	char	g_edge[MAX_FOLDERS][MAX_FOLDERS];
} graph_t;

/* sh -c cmd; its stdout, or the case fails. */
static char *
shell(const char *cmd)
{
	const char *const argv[] = { "/bin/sh", "-c", cmd, NULL };
	tu_result_t r;
	char *out;

	tu_run(argv, NULL, 10 * TU_TIMEOUT_MS, &r);
	if (!WIFEXITED(r.tr_status) || WEXITSTATUS(r.tr_status) != 0)
		atf_tc_fail("%s: status %d: %s", cmd, r.tr_status, r.tr_err);
	out = strdup(r.tr_out);
	ATF_REQUIRE(out != NULL);
	tu_result_free(&r);
	return (out);
}

static int
folder(graph_t *g, const char *name)
{
	for (int i = 0; i < g->g_n; i++)
		if (strcmp(g->g_name[i], name) == 0)
			return (i);
	ATF_REQUIRE_MSG(g->g_n < MAX_FOLDERS, "more than %d folders",
	    MAX_FOLDERS);
	(void) snprintf(g->g_name[g->g_n], sizeof (g->g_name[0]), "%s", name);
	return (g->g_n++);
}

/* The graph layers.sh draws of the objects built; at least one edge. */
static void
read_graph(graph_t *g)
{
	char *out = shell("sh " LAYERS_SH " " BUILD_DIR), *save = NULL;
	int edges = 0;

	memset(g, 0, sizeof (*g));
	for (char *l = strtok_r(out, "\n", &save); l != NULL;
	    l = strtok_r(NULL, "\n", &save)) {
		char from[64], to[64];

		ATF_REQUIRE_MSG(sscanf(l, "edge %63s %63s", from, to) == 2,
		    "layers.sh: %s", l);
		g->g_edge[folder(g, from)][folder(g, to)] = 1;
		edges++;
	}
	free(out);
	/* libproc's folders do use core: no edge at all is a broken script. */
	ATF_REQUIRE_MSG(edges > 0, "layers.sh found no edge in %s", BUILD_DIR);
}

/* Depth-first: 1 when a cycle is reachable from v; its path in *path. */
static int
cyclic(const graph_t *g, int v, char *mark, char *path, size_t len)
{
	mark[v] = 1;
	for (int w = 0; w < g->g_n; w++) {
		if (!g->g_edge[v][w])
			continue;
		if (mark[w] == 1 || (mark[w] == 0 &&
		    cyclic(g, w, mark, path, len))) {
			size_t at = strlen(path);

			(void) snprintf(path + at, len - at, "%s%s -> %s",
			    at > 0 ? ", " : "", g->g_name[v], g->g_name[w]);
			return (1);
		}
	}
	mark[v] = 2;
	return (0);
}

ATF_TC_WITHOUT_HEAD(folders_acyclic);
ATF_TC_BODY(folders_acyclic, tc)
{
	char mark[MAX_FOLDERS] = { 0 }, path[1024] = "";
	graph_t g;

	read_graph(&g);
	for (int v = 0; v < g.g_n; v++)
		if (mark[v] == 0 && cyclic(&g, v, mark, path, sizeof (path)))
			atf_tc_fail("a cycle of folders: %s", path);
}

ATF_TC_WITHOUT_HEAD(core_uses_none);
ATF_TC_BODY(core_uses_none, tc)
{
	graph_t g;
	int core;

	read_graph(&g);
	core = folder(&g, "core");
	for (int w = 0; w < g.g_n; w++)
		ATF_CHECK_MSG(!g.g_edge[core][w], "core uses %s",
		    g.g_name[w]);
}

ATF_TC_WITHOUT_HEAD(sources_apart);
ATF_TC_BODY(sources_apart, tc)
{
	graph_t g;

	read_graph(&g);
	for (int v = 0; v < g.g_n; v++)
		for (int w = 0; w < g.g_n; w++)
			ATF_CHECK_MSG(!g.g_edge[v][w] ||
			    strncmp(g.g_name[v], "src/", 4) != 0 ||
			    strncmp(g.g_name[w], "src/", 4) != 0,
			    "source %s uses source %s", g.g_name[v],
			    g.g_name[w]);
}

/*
 * The members of socksrc_ops_t: the declarations (";") between the
 * typedef's braces, wherever the header is.
 */
ATF_TC_WITHOUT_HEAD(source_ops_narrow);
ATF_TC_BODY(source_ops_narrow, tc)
{
	char *out = shell("f=$(grep -rl '} socksrc_ops_t;' " LIBPROC_DIR
	    " --include='*.h') && [ $(echo \"$f\" | wc -l) = 1 ] && "
	    "sed -n '/^typedef struct socksrc_ops {/,/} socksrc_ops_t;/p' "
	    "\"$f\" | sed '1d;$d' | tr -cd ';' | wc -c");
	int n = atoi(out);

	ATF_CHECK_MSG(n > 0 && n <= MAX_OPS, "socksrc_ops_t has %d members "
	    "(at most %d)", n, MAX_OPS);
	free(out);
}

ATF_TC_WITHOUT_HEAD(one_getdents_file);
ATF_TC_BODY(one_getdents_file, tc)
{
	char *out = shell("grep -rlE 'getdents64[[:space:]]*\\(|"
	    "\\(SYS_getdents64[[:space:]]*,' " LIBPROC_DIR
	    " --include='*.c' --include='*.h' | sort");
	int files = 0;

	for (const char *p = out; *p != '\0'; p++)
		files += *p == '\n';
	ATF_CHECK_MSG(files == 1, "%d files call getdents64:\n%s", files,
	    out);
	free(out);
}

ATF_TC_WITHOUT_HEAD(functions_short);
ATF_TC_BODY(functions_short, tc)
{
	char *cmd = tu_asprintf("find " LIBPROC_DIR " -name '*.[ch]' | sort | "
	    "xargs sh " FUNCS_SH " | awk '$3 > %d || $4 > %d'", MAX_LINES,
	    MAX_PARAMS);
	char *out = shell(cmd);
	char *all = shell("find " LIBPROC_DIR " -name '*.c' | xargs sh "
	    FUNCS_SH " | wc -l");

	/* The script must see the functions at all. */
	ATF_REQUIRE_MSG(atoi(all) > 100, "funcs.sh saw %d functions",
	    atoi(all));
	ATF_CHECK_MSG(out[0] == '\0', "functions over %d lines or %d "
	    "parameters (FILE:LINE NAME LINES PARAMS):\n%s", MAX_LINES,
	    MAX_PARAMS, out);
	free(all);
	free(out);
	free(cmd);
}

ATF_TP_ADD_TCS(tp)
{
	ATF_TP_ADD_TC(tp, folders_acyclic);
	ATF_TP_ADD_TC(tp, core_uses_none);
	ATF_TP_ADD_TC(tp, sources_apart);
	ATF_TP_ADD_TC(tp, source_ops_narrow);
	ATF_TP_ADD_TC(tp, one_getdents_file);
	ATF_TP_ADD_TC(tp, functions_short);
	return (0);
}
