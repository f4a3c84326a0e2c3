/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sockid.h: one of the target's sockets as a source lists them before
 * the walk (sockprov.h: sp_inodes, Psock_inodes()), for the endpoints
 * (endpoint/): its fd and inode, and what the source knows of where its
 * other end is.  Facts only: endpoint_settle.c alone decides what they
 * mean.
 */
#ifndef	_SOCKID_H
#define	_SOCKID_H

#include <stdint.h>
#include <sys/types.h>

/* sid_have */
#define	PSI_OWNNET	0x0001	/* sid_ownnet */
#define	PSI_PROTO	0x0002	/* sid_family, sid_protocol, sid_state */
#define	PSI_UNIXPEER	0x0004	/* sid_peer_ino */
#define	PSI_ENDS	0x0008	/* sid_own, sid_peer and their ports: */
				/* getpeername would succeed */
#define	PSI_ALL		0x000f

typedef struct psockid {
	int		sid_fd;
	pid_t		sid_pid;	/* its process, when the source lists */
					/* every process's (0: not known) */
	uint32_t	sid_have;	/* PSI_* */
	uint64_t	sid_ino;
	int		sid_ownnet;	/* 1: in the target's network */
					/* namespace, 0: in another */
	uint64_t	sid_peer_ino;	/* a unix socket's peer's inode, as */
					/* unix_diag's UNIX_DIAG_PEER; 0: none */
	uint16_t	sid_family;	/* SO_DOMAIN */
	uint16_t	sid_protocol;	/* SO_PROTOCOL */
	uint8_t		sid_state;	/* the kernel's sk_state (TCP_*) */
	uint8_t		sid_own[16];	/* an inet socket's own end and its */
	uint8_t		sid_peer[16];	/* peer's, as IPv6 addresses (an */
					/* AF_INET socket's v4 mapped) */
	uint16_t	sid_own_port;	/* network order */
	uint16_t	sid_peer_port;
} psockid_t;

/* Called with each: non-zero stops the listing, which returns it. */
typedef int psockid_f(void *, const psockid_t *);

/* A socket fd of some process (sp_holders): non-zero stops the listing. */
typedef int psockhold_f(void *, uint64_t ino, pid_t pid, int fd);

#endif	/* _SOCKID_H */
