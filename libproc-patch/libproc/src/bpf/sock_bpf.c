/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * sock_bpf.c: every fact of every fd in one pass through the kernel: the
 * BPF task-file iterator (bpf/pfiles.bpf.c, loaded by bpf_load.c), one
 * fixed record per fd, read in large reads.  The program is loaded once
 * per process (a pfiles run), for all the pids it examines.
 *
 * This source provides the walk (sp_walk: sock/sockprov.h), not only the
 * socket facts: the iterator lists the target's fds in order, and each
 * record becomes the fd's libproc record -- its socket facts through the
 * same builder as every source's (sockrec.c).  The kernel's in-memory
 * view of a file is what fstat(2) shows only where the filesystem
 * computes no attributes of its own: so the records of sockets, pipes and
 * anonymous inodes (sockfs, pipefs, anon_inodefs) are taken as the
 * iterator gives them, and every other fd -- a file on btrfs, overlayfs,
 * NFS, FUSE, an id-mapped mount -- is built the way the other sources
 * build it (the walk's sw_build), from the stat of the fd.  A socket of a family whose
 * names the program does not compute is asked through pidfd_getfd.
 *
 * The kernel makes no ptrace access check for this iterator: the walk
 * has already opened /proc/PID/fd, which needs the permission to read
 * the process's fds, and a process without it is refused before (Pgrab).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <netinet/in.h>

#include "src/bpf/bpf_load.h"
#include "core/Pshare.h"
#include "fdtab/fdtab.h"
#include "sock/sockprov.h"
#include "src/bpf/bpf_run.h"
#include "src/bpf/sock_bpf.h"

/* The program, loaded at most once per process; why it could not be. */
static pthread_mutex_t bpf_lock = PTHREAD_MUTEX_INITIALIZER;
static bpf_pfiles_t *bpf_prog;
static int bpf_tried;
static int bpf_errno;
static char bpf_why[PERRMSG_MAX];

/*
 * Auto tries bpf only for a process with at least BPF_AUTO_MIN_FDS fds:
 * below that, its load (7-10 ms, once per run) costs more than the walk
 * it saves (pfiles.1 gives the figures).
 */
#define	BPF_AUTO_MIN_FDS	500

/*
 * Auto's rules for bpf: a process of BPF_AUTO_MIN_FDS fds or more; and
 * bpf holds fds of its own (program, maps, link, iterator) and prints
 * what pidfd prints: not where RLIMIT_NOFILE leaves none to spare.
 */
static int
auto_passes(struct ps_prochandle *P)
{
	if (!fdtab_has(P->fddirfd, BPF_AUTO_MIN_FDS)) {
		PDEBUG(P, "socket facts: bpf not tried (fewer than %d fds)",
		    BPF_AUTO_MIN_FDS);
		return (1);
	}
	if (Pfd_room() == 0) {
		PDEBUG(P, "socket facts: bpf not tried (no fd to spare)");
		return (1);
	}
	return (0);
}

static int
bpf_probe(struct ps_prochandle *P, int how)
{
	unsigned int n;
	int err;

	if (how == SOCKSRC_AUTO && auto_passes(P))
		return (socksrc_pass(P, ""));
	/* The permission to read its fd table is pfiles' own. */
	if (P->fddirfd < 0)
		return (Pseterr(P, EACCES, "permission denied"));
	/* Its main thread exited: the table shown is a live thread's. */
	if (P->tid != 0 && P->tid != P->pid)
		return (Pseterr(P, ENOTSUP, "the process's main thread has "
		    "exited"));
	(void) pthread_mutex_lock(&bpf_lock);
	if (!bpf_tried) {
		bpf_tried = 1;
		if ((bpf_prog = bpf_pfiles_open(bpf_why,
		    sizeof (bpf_why))) == NULL) {
			bpf_errno = errno != 0 ? errno : ENOTSUP;
		} else if (bpf_check_facts(bpf_prog, &n, bpf_why,
		    sizeof (bpf_why)) != 0) {
			bpf_errno = errno != 0 ? errno : EPROTO;
			bpf_pfiles_close(bpf_prog);
			bpf_prog = NULL;
		} else {
			PDEBUG(P, "bpf: the iterator is loaded; its records of "
			    "%u files of pfiles' own are the kernel's calls'", n);
		}
	}
	err = bpf_prog == NULL ? bpf_errno : 0;
	(void) pthread_mutex_unlock(&bpf_lock);
	if (err != 0)
		return (Pseterr(P, err, "%s", bpf_why));
	return (0);
}

/* What one walk carries from record to record. */
typedef struct bpf_walk {
	struct ps_prochandle *bw_P;
	const sockwalk_t *bw_walk;	/* whose records these are */
	fdrec_t		bw_rec;
	unsigned	bw_hz;
	int		bw_lastfd;	/* of the last record, or -1 */
	int		bw_rv;		/* the caller's, or -1 */
	int		bw_err;		/* errno of a failure */
} bpf_walk_t;

/* A TCP socket: the program gives the kernel's raw counters of its queues. */
static int
bpf_is_tcp(const bpfrec_t *br)
{
	return ((br->br_family == AF_INET || br->br_family == AF_INET6) &&
	    br->br_type == SOCK_STREAM && br->br_protocol == IPPROTO_TCP);
}

/*
 * The state, queues and netlink groups of a record (what its queues count
 * is pfiles_bpf.h's): a TCP socket's through sockfacts_tcp(), as the
 * kernel's own counters; a listener's are its backlog.
 */
static void
bpf_state(const bpfrec_t *br, sockfacts_t *sf)
{
	uint32_t have = br->br_sock_have;

	if (have & BPFREC_S_STATE) {
		sf->sf_state = br->br_state;
		sf->sf_have |= SF_STATE;
	}
	if ((have & BPFREC_S_QUEUES) && bpf_is_tcp(br)) {
		sockfacts_tcp(sf, br->br_state, br->br_rq, br->br_wq,
		    (have & BPFREC_S_FIN) ? 1 : 0);
	} else if (have & BPFREC_S_QUEUES) {
		sf->sf_queues = (have & BPFREC_S_STATE) &&
		    br->br_state == PR_SS_LISTEN ? PR_SSQ_BACKLOG :
		    PR_SSQ_QUEUED;
		sf->sf_rq = br->br_rq;
		sf->sf_wq = br->br_wq;
		sf->sf_have |= SF_QUEUES;
	}
	if ((have & BPFREC_S_GROUPS) && br->br_ngroups <= SF_NLGROUPS_MAX) {
		if (br->br_ngroups > 0)
			memcpy(sf->sf_groups, br->br_groups,
			    br->br_ngroups * sizeof (sf->sf_groups[0]));
		sf->sf_ngroups = br->br_ngroups;
		sf->sf_have |= SF_GROUPS;
	}
}

/* The socket facts of a record, for the one builder (sockrec.c). */
void
bpf_sockfacts(const bpfrec_t *br, unsigned int hz, sockfacts_t *sf)
{
	sockfacts_init(sf);
	sf->sf_domain = br->br_family;
	sf->sf_type = br->br_type;
	sf->sf_have |= SF_DOMAIN | SF_TYPE;
	/* As the other sources: SO_PROTOCOL only where it is shown. */
	if (br->br_family == AF_NETLINK) {
		sf->sf_protocol = br->br_protocol;
		sf->sf_have |= SF_PROTOCOL;
	}
	sf->sf_bools.pr_known = br->br_bools_known;
	sf->sf_bools.pr_set = br->br_bools & br->br_bools_known;
	if (br->br_sock_have & BPFREC_S_LINGER) {
		sf->sf_linger.l_onoff = br->br_linger_on;
		sf->sf_linger.l_linger = bpfrec_linger_secs(br, hz);
		sf->sf_have |= SF_LINGER;
	}
	if (br->br_sock_have & BPFREC_S_BUFS) {
		sf->sf_sndbuf = br->br_sndbuf;
		sf->sf_rcvbuf = br->br_rcvbuf;
		sf->sf_have |= SF_SNDBUF | SF_RCVBUF;
	}
	if (br->br_sockname.ba_err == 0 &&
	    br->br_sockname.ba_len <= sizeof (sf->sf_name)) {
		memcpy(&sf->sf_name, br->br_sockname.ba_data,
		    br->br_sockname.ba_len);
		sf->sf_namelen = (socklen_t)br->br_sockname.ba_len;
		sf->sf_have |= SF_NAME;
	}
	if (br->br_peername.ba_err == 0 &&
	    br->br_peername.ba_len <= sizeof (sf->sf_peer)) {
		memcpy(&sf->sf_peer, br->br_peername.ba_data,
		    br->br_peername.ba_len);
		sf->sf_peerlen = (socklen_t)br->br_peername.ba_len;
		sf->sf_have |= SF_PEER;
	}
	if (br->br_sock_have & BPFREC_S_PEERPID) {
		sf->sf_cred.pid = br->br_peer_pid;
		sf->sf_cred.uid = (uid_t)-1;
		sf->sf_cred.gid = (gid_t)-1;
		sf->sf_have |= SF_CRED;
		if (br->br_sock_have & BPFREC_S_PEERINO) {
			sock_peer_ino_t pi = { br->br_peer_pid,
			    br->br_peer_ino };

			sock_peer_name(sf, sock_peer_pidfd_ino, &pi);
		}
	}
	bpf_state(br, sf);
}

/*
 * Did the program find every fact of the socket's state line
 * (sockstate_kind()) and, of a netlink socket, its groups?  Not where it
 * does not read them (an MPTCP socket) or could not (a unix queue longer
 * than it sums, a bitmap it could not read): the calls are asked then.
 */
static int
bpf_state_found(const bpfrec_t *br)
{
	uint32_t have = br->br_sock_have;

	if (br->br_family == AF_NETLINK && !(have & BPFREC_S_GROUPS))
		return (0);
	switch (sockstate_kind(br->br_family, br->br_type, br->br_protocol)) {
	case SOCKSTATE_LINE:
		return ((have & BPFREC_S_STATE) && (have & BPFREC_S_QUEUES));
	case SOCKSTATE_QUEUED:
		return ((have & BPFREC_S_QUEUES) != 0);
	default:
		return (1);
	}
}

/*
 * Is the record's view of this fd the one the other sources would give?
 * A socket whose facts (names, state and queues included) the program
 * computed, a pipe, an
 * anonymous inode: files of the kernel's own filesystems, whose stat is
 * the inode's, with the locks read (on a kernel whose locks the program
 * cannot read, fdinfo has them) and none held through it, or none whose
 * pid is another namespace's.  An O_PATH fd is a path, built the other
 * way.
 */
int
bpf_taken_as_is(const bpfrec_t *br)
{
	mode_t fmt = br->br_mode & S_IFMT;

	if (!(br->br_have & BPFREC_STAT) || !(br->br_have & BPFREC_FILE) ||
	    !(br->br_have & BPFREC_LOCKS) || br->br_nlocks != 0 ||
	    (br->br_have & (BPFREC_LOCKS_CUT | BPFREC_LOCKPID_GLOBAL)) ||
	    (br->br_fflags & O_PATH) || br->br_path == NULL)
		return (0);
	if (fmt == S_IFSOCK)
		return ((br->br_have & BPFREC_SOCK) &&
		    (br->br_sock_have & BPFREC_S_SK) &&
		    br->br_sockname.ba_err != BPFREC_ENOTCOMPUTED &&
		    br->br_peername.ba_err != BPFREC_ENOTCOMPUTED &&
		    bpf_state_found(br));
	if (fmt == S_IFIFO)
		return (br->br_path_len > 6 &&
		    memcmp(br->br_path, "pipe:[", 6) == 0);
	return (fmt == 0 && br->br_anon != NULL);
}

int
bpf_record(const bpfrec_t *br, unsigned int hz, fdrec_t *rec)
{
	prfdinfo_t *info;
	prfdlock_t lk[BPFREC_MAXLOCKS];
	sockfacts_t sf;

	if (fdrec_reset(rec, br->br_fd) != 0)
		return (errno);
	info = fdrec_info(rec);
	info->pr_mode = br->br_mode;
	info->pr_ino = br->br_ino;
	info->pr_size = br->br_size;
	info->pr_uid = br->br_uid;
	info->pr_gid = br->br_gid;
	info->pr_major = br->br_major;
	info->pr_minor = br->br_minor;
	info->pr_rmajor = br->br_rmajor;
	info->pr_rminor = br->br_rminor;
	info->pr_fileflags = (int)(br->br_fflags & ~(uint32_t)O_CLOEXEC);
	info->pr_fdflags = (br->br_fflags & O_CLOEXEC) ? FD_CLOEXEC : 0;
	info->pr_offset = br->br_pos;
	info->pr_mnt_id = br->br_mnt_id;

	/* br_path ends in its NUL (bpfrec_parse.h) */
	if (br->br_path != NULL)
		(void) fdrec_add(rec, PR_PATHNAME, br->br_path,
		    br->br_path_len + 1);
	else
		fdrec_add_patherr(rec, br->br_path_err);
	for (unsigned i = 0; i < br->br_nlocks && i < BPFREC_MAXLOCKS; i++) {
		lk[i].pr_kind = (short)br->br_locks[i].bl_kind;
		lk[i].pr_type = (short)br->br_locks[i].bl_type;
		lk[i].pr_mandatory = 0;
		lk[i].pr_pid = br->br_locks[i].bl_pid > 0 ?
		    br->br_locks[i].bl_pid : 0;
	}
	if (br->br_nlocks > 0)
		(void) fdrec_add(rec, PR_LOCKS, lk, br->br_nlocks *
		    sizeof (lk[0]));
	if (br->br_locks_more > 0)
		(void) fdrec_add(rec, PR_LOCKS_DROPPED, &br->br_locks_more,
		    sizeof (br->br_locks_more));
	if ((br->br_mode & S_IFMT) == S_IFSOCK) {
		bpf_sockfacts(br, hz, &sf);
		sockrec_add(rec, &sf);
	}
	return (0);
}

/* bpf_pfiles_iter's callback: one fd's record, to the caller in order. */
static int
one_fd(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	bpf_walk_t *bw = arg;
	struct ps_prochandle *P = bw->bw_P;
	int err;

	if (br->br_tgid != P->pid) {
		bw->bw_err = EIO;	/* not the process asked for */
		return (-1);
	}
	/*
	 * The iterator visits every thread's table; a thread that unshared
	 * its own (CLONE_FILES) is not the table /proc/PID/fd shows, nor
	 * what the other sources show.
	 */
	if (br->br_have & BPFREC_OWNTABLE)
		return (0);
	/*
	 * The leader's table is walked once, in increasing fd order: a
	 * record at or below the last one's fd is a table the kernel
	 * visited twice, which the program must have skipped.  Refused,
	 * never shown twice.
	 */
	if (br->br_fd <= bw->bw_lastfd) {
		bw->bw_err = EPROTO;
		(void) Pseterr(P, EPROTO, "bpf: the iterator gave fd %d "
		    "again (after fd %d)", br->br_fd, bw->bw_lastfd);
		return (-1);
	}
	bw->bw_lastfd = br->br_fd;
	if (bpf_taken_as_is(br))
		err = bpf_record(br, bw->bw_hz, &bw->bw_rec);
	else
		err = bw->bw_walk->sw_build(bw->bw_walk->sw_arg, &bw->bw_rec,
		    br->br_fd);
	if (err == ENOENT)
		return (0);		/* closed since: skip it */
	if (err != 0) {
		bw->bw_err = err;
		return (-1);
	}
	if ((bw->bw_rv = bw->bw_walk->sw_emit(bw->bw_walk->sw_arg,
	    &bw->bw_rec)) != 0)
		return (1);
	return (0);
}

static int
bpf_walk(struct ps_prochandle *P, const sockwalk_t *sw)
{
	char why[PERRMSG_MAX];
	bpf_run_t *run;
	bpf_walk_t bw;
	int r;

	memset(&bw, 0, sizeof (bw));
	bw.bw_P = P;
	bw.bw_walk = sw;
	bw.bw_hz = bpf_pfiles_hz(bpf_prog);
	bw.bw_lastfd = -1;
	/* The run's one pass, when it keeps this process's records. */
	if ((run = bpf_run_of(P, bpf_prog)) == NULL || !ps_many(P) ||
	    (r = bpf_run_walk(P, run, one_fd, &bw, why, sizeof (why))) ==
	    BPF_RUN_NONE)
		r = bpf_pfiles_iter(bpf_prog, P->pid, one_fd, &bw, why,
		    sizeof (why));
	fdrec_free(&bw.bw_rec);
	if (bw.bw_rv != 0)
		return (bw.bw_rv);		/* the caller stopped it */
	if (r < 0 || bw.bw_err != 0) {
		int err = bw.bw_err != 0 ? bw.bw_err : errno;

		if (bw.bw_err == 0)
			(void) Pseterr(P, err, "bpf: %s", why);
		errno = err == ESRCH || Pexited(P) ? ESRCH : err;
		return (-1);
	}
	return (0);
}

/* A socket of the run's records, for the endpoints (as sp_inodes). */
typedef struct run_sock {
	psockid_f	*rs_cb;
	void		*rs_arg;
} run_sock_t;

static int
run_socket(void *arg, const bpfrec_t *br, const void *raw, size_t rawlen)
{
	run_sock_t *rs = arg;
	psockid_t id;

	if ((br->br_mode & S_IFMT) != S_IFSOCK ||
	    (br->br_have & BPFREC_OWNTABLE) || (br->br_fflags & O_PATH))
		return (0);
	/* Its inode only: where its other end is, the tables say. */
	memset(&id, 0, sizeof (id));
	id.sid_fd = br->br_fd;
	id.sid_ino = br->br_ino;
	return (rs->rs_cb(rs->rs_arg, &id));
}

/*
 * One pass of the inode program over every process (one pid's run): the
 * target's sockets to cb (when not NULL), every process's into the run's
 * socket fds (when it has none yet).
 */
typedef struct ino_all {
	struct ps_prochandle *ia_P;
	bpf_run_t	*ia_run;
	int		ia_hold;
	psockid_f	*ia_cb;
	void		*ia_arg;
} ino_all_t;

static int
ino_all(void *arg, const psockid_t *id)
{
	ino_all_t *ia = arg;
	int r;

	if (ia->ia_hold && id->sid_pid > 0 && bpf_run_hold(ia->ia_run,
	    id->sid_ino, id->sid_pid, id->sid_fd) != 0)
		return (ENOMEM);
	if (ia->ia_cb != NULL && id->sid_pid == ia->ia_P->pid &&
	    (r = ia->ia_cb(ia->ia_arg, id)) != 0)
		return (r);
	return (0);
}

static int
inode_pass(struct ps_prochandle *P, bpf_run_t *run, psockid_f *cb, void *arg,
    char *why, size_t whysz)
{
	ino_all_t ia = { P, run, !bpf_run_has_holds(run), cb, arg };
	int r;

	r = bpf_pfiles_sock_inodes(bpf_prog, 0, ino_all, &ia, why, whysz);
	if (ia.ia_hold)
		bpf_run_held(run, r == 0);
	return (r);
}

static int
bpf_inodes(struct ps_prochandle *P, psockid_f *cb,
    void *arg)
{
	char why[PERRMSG_MAX];
	run_sock_t rs = { cb, arg };
	bpf_run_t *run;
	int r;

	/*
	 * With many processes, from the run's one pass (their other ends
	 * then from the run's socket tables, dumped once).  With one, a
	 * pass of the inode program over every process: its records of the
	 * target settle the other ends without the tables (no netlink
	 * message), the others' are the holders.  Without a share, over
	 * the target alone.
	 */
	if ((run = bpf_run_of(P, bpf_prog)) == NULL)
		r = bpf_pfiles_sock_inodes(bpf_prog, P->pid, cb, arg, why,
		    sizeof (why));
	else if (!ps_many(P) || (r = bpf_run_sockets(P, run, run_socket,
	    &rs, why, sizeof (why))) == BPF_RUN_NONE)
		r = inode_pass(P, run, cb, arg, why, sizeof (why));
	/* The callback's stop is its errno; else the iterator's failure. */
	if (r < 0) {
		r = errno != 0 ? errno : EIO;
		PDEBUG(P, "bpf: the sockets' inodes: %s", why);
	}
	return (r);
}

/* Every socket fd of the machine, from the run's one pass. */
static int
bpf_holders(struct ps_prochandle *P, psockhold_f *cb, void *arg)
{
	char why[PERRMSG_MAX];
	bpf_run_t *run;
	int r;

	if ((run = bpf_run_of(P, bpf_prog)) == NULL)
		return (ENOTSUP);
	/* One pid: the inode pass, if the walk's own did not give them. */
	if (!bpf_run_has_holds(run) && !ps_many(P) &&
	    (r = inode_pass(P, run, NULL, NULL, why, sizeof (why))) != 0) {
		PDEBUG(P, "bpf: every socket fd: %s", why);
		return (r < 0 ? EIO : r);
	}
	if ((r = bpf_run_holders(P, run, cb, arg, why, sizeof (why))) != 0)
		PDEBUG(P, "bpf: every socket fd: %s", why);
	return (r);
}

static unsigned
bpf_snapshot(struct ps_prochandle *P, int holders)
{
	bpf_run_t *run = bpf_run_of(P, bpf_prog);

	return (run != NULL ? bpf_run_snapshot(P, run, holders) : 0);
}

/*
 * A socket the walk builds the other way (an fd on which the record
 * could not be taken as it is) is asked through pidfd_getfd.
 */
const socksrc_ops_t sock_bpf_ops = {
	.sc_id = PSOCK_BPF,
	.sc_name = "bpf",
	.sc_probe = bpf_probe,
	.sc_facts = sock_getfd_facts,
	.sc_parallel = 1,
};

const sockprov_ops_t sock_bpf_prov = {
	.sp_walk = bpf_walk,
	.sp_inodes = bpf_inodes,
	.sp_holders = bpf_holders,
	.sp_snapshot = bpf_snapshot,
};
