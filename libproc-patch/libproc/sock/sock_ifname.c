/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_ifname.c: the name of a packet socket's interface.  A packet
 * socket's name holds the index of the interface it is bound to; an
 * index means something only in one network namespace, so the name is
 * asked there: here when the target's namespace is ours, else by a
 * short-lived thread that enters it (Pin_netns()).  Where it cannot be
 * asked (the namespace may not be entered, the interface is gone), the
 * name is not known and pfiles shows the index.
 */
#include <fcntl.h>
#include <linux/if_packet.h>
#include <net/if.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sock/socksrc.h"

typedef struct ifname_ask {
	unsigned	ia_index;
	char		ia_name[IF_NAMESIZE];
	int		ia_found;
} ifname_ask_t;

static void
ask_ifname(void *arg)
{
	ifname_ask_t *ia = arg;

	ia->ia_found = if_indextoname(ia->ia_index, ia->ia_name) != NULL;
}

/* Is the target's network namespace this thread's? */
static int
same_netns(struct ps_prochandle *P)
{
	struct stat mine, theirs;

	return (stat("/proc/thread-self/ns/net", &mine) == 0 &&
	    fstatat(P->procfd, "ns/net", &theirs, 0) == 0 &&
	    mine.st_dev == theirs.st_dev && mine.st_ino == theirs.st_ino);
}

void
sock_ifname(struct ps_prochandle *P, sockfacts_t *sf)
{
	ifname_ask_t ia;
	struct sockaddr_ll sll;
	int nsfd;

	if (!(sf->sf_have & SF_NAME) || sf->sf_name.ss_family != AF_PACKET ||
	    sf->sf_namelen < offsetof(struct sockaddr_ll, sll_hatype))
		return;
	memset(&sll, 0, sizeof (sll));
	memcpy(&sll, &sf->sf_name, offsetof(struct sockaddr_ll, sll_hatype));
	if (sll.sll_ifindex <= 0)
		return;
	memset(&ia, 0, sizeof (ia));
	ia.ia_index = (unsigned)sll.sll_ifindex;
	if (same_netns(P)) {
		ask_ifname(&ia);
	} else if ((nsfd = openat(P->procfd, "ns/net",
	    O_RDONLY | O_CLOEXEC)) >= 0) {
		(void) Pin_netns(nsfd, ask_ifname, &ia);
		(void) close(nsfd);
	}
	if (!ia.ia_found || ia.ia_name[0] == '\0')
		return;
	(void) snprintf(sf->sf_ifname, sizeof (sf->sf_ifname), "%.*s",
	    (int)strnlen(ia.ia_name, sizeof (ia.ia_name)), ia.ia_name);
	sf->sf_have |= SF_IFNAME;
}
