/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * diag_kind.c: the kind of a socket fd of the target, and why the kernel
 * may give no dump of a kind (diag_kind.h).
 *
 * The kind is the name of the socket's protocol (its struct proto's),
 * which sockfs gives as the extended attribute system.sockprotoname of
 * the socket file: through /proc/PID/fd/N, to whoever may read that link
 * (the walk has read it already), with no fd of the target duplicated.
 * It is read only for a socket the tables do not hold.
 */
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/xattr.h>

#include "netdiag/diag_kind.h"

/* Every protocol a dump holds, by its name; any other, none. */
static const struct {
	const char	*k_name;
	diag_req_t	k_req;
} kinds[] = {
	{ "TCP", { AF_INET, IPPROTO_TCP } },
	{ "TCPv6", { AF_INET6, IPPROTO_TCP } },
	{ "MPTCP", { AF_INET, IPPROTO_MPTCP } },
	{ "MPTCPv6", { AF_INET6, IPPROTO_MPTCP } },
	{ "UDP", { AF_INET, IPPROTO_UDP } },
	{ "UDPv6", { AF_INET6, IPPROTO_UDP } },
	{ "UDP-Lite", { AF_INET, IPPROTO_UDPLITE } },
	{ "UDPLITEv6", { AF_INET6, IPPROTO_UDPLITE } },
	{ "RAW", { AF_INET, IPPROTO_RAW } },
	{ "RAWv6", { AF_INET6, IPPROTO_RAW } },
	{ "UNIX", { AF_UNIX, 0 } },
	{ "UNIX-STREAM", { AF_UNIX, 0 } },
	{ "NETLINK", { AF_NETLINK, 0 } },
	{ "PACKET", { AF_PACKET, 0 } },
};

int
diag_sock_kind(struct ps_prochandle *P, int fd, diag_req_t *kind)
{
	char path[64], name[32];
	ssize_t n;

	(void) snprintf(path, sizeof (path), "/proc/self/fd/%d/%d",
	    P->fddirfd, fd);
	if (P->fddirfd < 0 || (n = getxattr(path, "system.sockprotoname",
	    name, sizeof (name) - 1)) <= 0)
		return (0);
	name[n] = '\0';
	memset(kind, 0, sizeof (*kind));
	for (size_t i = 0; i < sizeof (kinds) / sizeof (kinds[0]); i++) {
		if (strcmp(kinds[i].k_name, name) == 0) {
			*kind = kinds[i].k_req;
			break;
		}
	}
	return (1);
}

/* ------------------------------------------------------------------ */
/* Why a dump is missing. */

/* The modules of the dumps, and the dump's. */
static const char *const modules[] = { "unix_diag", "netlink_diag",
    "af_packet_diag", "tcp_diag", "udp_diag", "mptcp_diag", "raw_diag" };
enum { M_UNIX, M_NETLINK, M_PACKET, M_TCP, M_UDP, M_MPTCP, M_RAW, M_N };

static int
module_of(const diag_req_t *req)
{
	switch (req->dr_family) {
	case AF_UNIX:
		return (M_UNIX);
	case AF_NETLINK:
		return (M_NETLINK);
	case AF_PACKET:
		return (M_PACKET);
	default:
		break;
	}
	switch (req->dr_protocol) {
	case IPPROTO_TCP:
		return (M_TCP);
	case IPPROTO_UDP:
	case IPPROTO_UDPLITE:
		return (M_UDP);
	case IPPROTO_MPTCP:
		return (M_MPTCP);
	default:
		return (M_RAW);
	}
}

/*
 * Does the list /lib/modules/RELEASE/NAME hold module mod: 1, 0, or -1
 * when it cannot be read.  A line names the module's file first
 * (".../raw_diag.ko", maybe compressed: ".ko.xz"), in either list.
 */
static int
listed(const char *release, const char *name, const char *mod)
{
	char path[256], line[1024], want[64];
	int found = 0;
	FILE *f;

	(void) snprintf(path, sizeof (path), "/lib/modules/%s/%s", release,
	    name);
	(void) snprintf(want, sizeof (want), "/%s.ko", mod);
	if ((f = fopen(path, "re")) == NULL)
		return (-1);
	while (!found && fgets(line, sizeof (line), f) != NULL) {
		char *end = line + strcspn(line, ":\n"), *p;

		*end = '\0';
		found = (p = strstr(line, want)) != NULL &&
		    (p[strlen(want)] == '\0' || p[strlen(want)] == '.');
	}
	(void) fclose(f);
	return (found);
}

/* The texts diag_nodump_why() gives, by the module's row of the cache. */
enum { WHY_UNKNOWN = 1, WHY_NOMODULES, WHY_ABSENT, WHY_NOTLOADED };

static const char *
why_text(int why)
{
	switch (why) {
	case WHY_NOMODULES:
		return ("not built into this kernel, which loads no modules");
	case WHY_ABSENT:
		return ("neither built into this kernel nor among its modules");
	case WHY_NOTLOADED:
		return ("among this kernel's modules, and was not loaded");
	default:
		return (NULL);
	}
}

static int
probe(const char *mod)
{
	struct utsname u;
	struct stat st;
	int dep, builtin;

	if (stat("/proc/modules", &st) != 0 && errno == ENOENT)
		return (WHY_NOMODULES);
	if (uname(&u) != 0)
		return (WHY_UNKNOWN);
	dep = listed(u.release, "modules.dep", mod);
	builtin = listed(u.release, "modules.builtin", mod);
	if (dep == 1)
		return (WHY_NOTLOADED);
	if (dep == 0 && builtin == 0)
		return (WHY_ABSENT);
	return (WHY_UNKNOWN);
}

const char *
diag_nodump_why(const diag_req_t *req, const char **modp)
{
	static int cache[M_N];
	static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	int m = module_of(req), why;

	*modp = modules[m];
	(void) pthread_mutex_lock(&lock);
	if (cache[m] == 0)
		cache[m] = probe(modules[m]);
	why = cache[m];
	(void) pthread_mutex_unlock(&lock);
	return (why_text(why));
}
