/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuse_helper: a FUSE filesystem with one file that then stops
 * answering, as a hung FUSE (or NFS) server does.  For t_truth's
 * hung_fuse case.
 *
 *	fuse_helper [-s | -w] MNTDIR
 *
 * With -s, a socketpair is made first, so that the file on FUSE comes
 * after sockets (the agent passes a target's fds from a socket on).
 * With -w, it answers on until the first byte on stdin, and then says
 * "frozen" (others may open MNTDIR/f meanwhile).
 * Mounts itself at MNTDIR (a raw /dev/fuse server, no libfuse), opens
 * MNTDIR/f, and from then on reads the kernel's requests and answers
 * none.  Its attributes are never valid in the kernel's cache (attr_valid
 * 0), so any stat that asks the filesystem hangs (until the caller is
 * killed).  Says "file FD" and "ready" on stdout, then waits until stdin
 * is closed; then it answers again, and closes its file before it exits:
 * a process that exits with a file open on a FUSE filesystem whose
 * server it is, and that no longer answers, would wait forever on the
 * close (FLUSH).  When it cannot mount (no /dev/fuse, no privilege), it
 * says "skip REASON" and exits 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define	BUFSZ		(1 << 20)
#define	FILE_INO	2
#define	FILE_TEXT	"hello"

static int fusefd = -1;
static volatile int frozen;

static void
reply(const struct fuse_in_header *in, int error, const void *out,
    size_t len)
{
	struct fuse_out_header oh;
	char buf[sizeof (oh) + 256];

	if (len > sizeof (buf) - sizeof (oh))
		len = 0;
	oh.len = (uint32_t)(sizeof (oh) + len);
	oh.error = -error;
	oh.unique = in->unique;
	memcpy(buf, &oh, sizeof (oh));
	if (len > 0)
		memcpy(buf + sizeof (oh), out, len);
	if (write(fusefd, buf, oh.len) < 0) {
		/* An interrupted request: no one is waiting for the answer. */
	}
}

static void
fill_attr(struct fuse_attr *a, uint64_t ino)
{
	memset(a, 0, sizeof (*a));
	a->ino = ino;
	a->nlink = 1;
	if (ino == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0644;
		a->size = sizeof (FILE_TEXT) - 1;
	}
	a->blksize = 4096;
}

static void
serve(const struct fuse_in_header *in, const char *arg)
{
	switch (in->opcode) {
	case FUSE_INIT: {
		const struct fuse_init_in *ii = (const void *)arg;
		struct fuse_init_out io;

		memset(&io, 0, sizeof (io));
		io.major = FUSE_KERNEL_VERSION;
		io.minor = ii->minor < FUSE_KERNEL_MINOR_VERSION ? ii->minor :
		    FUSE_KERNEL_MINOR_VERSION;
		io.max_readahead = ii->max_readahead;
		io.max_write = 4096;
		reply(in, 0, &io, sizeof (io));
		break;
	}
	case FUSE_LOOKUP: {
		struct fuse_entry_out eo;

		if (in->nodeid != FUSE_ROOT_ID || strcmp(arg, "f") != 0) {
			reply(in, ENOENT, NULL, 0);
			break;
		}
		memset(&eo, 0, sizeof (eo));
		eo.nodeid = FILE_INO;
		eo.entry_valid = 3600;
		fill_attr(&eo.attr, FILE_INO);
		reply(in, 0, &eo, sizeof (eo));
		break;
	}
	case FUSE_GETATTR: {
		struct fuse_attr_out ao;

		memset(&ao, 0, sizeof (ao));
		fill_attr(&ao.attr, in->nodeid);
		reply(in, 0, &ao, sizeof (ao));
		break;
	}
	case FUSE_OPEN: {
		struct fuse_open_out oo;

		memset(&oo, 0, sizeof (oo));
		oo.fh = 1;
		reply(in, 0, &oo, sizeof (oo));
		break;
	}
	case FUSE_FORGET:
	case FUSE_BATCH_FORGET:
		break;		/* no reply */
	default:
		reply(in, ENOSYS, NULL, 0);
		break;
	}
}

static void *
server(void *arg)
{
	char *buf = malloc(BUFSZ);

	(void) arg;
	if (buf == NULL)
		return (NULL);
	for (;;) {
		ssize_t n = read(fusefd, buf, BUFSZ);
		struct fuse_in_header in;

		if (n < 0 && (errno == EINTR || errno == ENOENT))
			continue;
		if (n < (ssize_t)sizeof (in))
			break;		/* unmounted, or gone */
		memcpy(&in, buf, sizeof (in));
		if (frozen)
			continue;	/* read, never answered */
		buf[n < BUFSZ ? n : BUFSZ - 1] = '\0';
		serve(&in, buf + sizeof (in));
	}
	free(buf);
	return (NULL);
}

int
main(int argc, char **argv)
{
	char opts[128], path[4096];
	struct stat st;
	pthread_t t;
	int f;
	char c;

	int sv[2], wait = 0;

	if (argc == 3 && strcmp(argv[1], "-s") == 0) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			return (1);
		argv++;
		argc--;
	} else if (argc == 3 && strcmp(argv[1], "-w") == 0) {
		wait = 1;
		argv++;
		argc--;
	}
	if (argc != 2) {
		(void) fprintf(stderr, "usage: fuse_helper [-s | -w] MNTDIR\n");
		return (2);
	}
	(void) setvbuf(stdout, NULL, _IOLBF, 0);
	if ((fusefd = open("/dev/fuse", O_RDWR | O_CLOEXEC)) < 0) {
		(void) printf("skip /dev/fuse: %s\n", strerror(errno));
		return (0);
	}
	(void) snprintf(opts, sizeof (opts), "fd=%d,rootmode=40000,user_id=0,"
	    "group_id=0", fusefd);
	if (mount("fuse_helper", argv[1], "fuse", MS_NOSUID | MS_NODEV,
	    opts) != 0) {
		(void) printf("skip mount fuse: %s\n", strerror(errno));
		return (0);
	}
	if (pthread_create(&t, NULL, server, NULL) != 0)
		return (1);
	(void) snprintf(path, sizeof (path), "%s/f", argv[1]);
	if ((f = open(path, O_RDONLY)) < 0) {
		(void) fprintf(stderr, "fuse_helper: open %s: %s\n", path,
		    strerror(errno));
		(void) umount2(argv[1], MNT_DETACH);
		return (1);
	}
	/* The last question to the server: from now on it answers none. */
	if (fstat(f, &st) != 0)
		return (1);
	frozen = !wait;
	/* The connection's name under /sys/fs/fuse/connections. */
	(void) printf("file %d\nconn %u\nready\n", f, (unsigned)st.st_dev);
	for (;;) {
		ssize_t n = read(0, &c, 1);

		if (n > 0 && !frozen) {
			frozen = 1;
			(void) printf("frozen\n");
		}
		if (n > 0 || (n < 0 && errno == EINTR))
			continue;
		frozen = 0;
		(void) close(f);
		return (0);
	}
}
