/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * pfiles.bpf.c: a BPF task-file iterator that writes, for every fd of one
 * process, one struct pfb_rec (pfiles_bpf.h) holding every fact pfiles
 * prints for it, in one pass over the fd table: its fixed part and only
 * the bytes of r_path the path uses, rounded up to 8 (PFB_RECSIZE()).
 *
 * The link is made with union bpf_iter_link_info's task.pid (kernel 6.1
 * and later), so the kernel walks the fd table of that process only, and
 * visits a files_struct shared by threads once.  The program runs inside
 * read(2) of the iterator fd, so `current' is the reader (pfiles): pids
 * are translated into the reader's pid namespace from the struct pid's
 * numbers[] at the reader's level, as pid_nr_ns() does for pid_vnr().
 *
 * Every fact is computed as the kernel computes it for the interface
 * pfiles otherwise reads (sources named at each), with CO-RE reads (BTF
 * of the running kernel), so no kernel structure layout is compiled in:
 * the kernel's types are declared in pfiles_ktypes.h, not taken from the
 * build machine's kernel, and where kernels differ (SO_PASSCRED's place,
 * the layout of a lock) the program asks the running kernel which it
 * has.  bpf_load.c compares the records of sockets of pfiles' own with
 * what getsockopt(2) and the other calls say, at every load, and the
 * source is refused on any difference.
 *
 * Trust: which pointers a verifier marks trusted changes between
 * releases (6.18 marks a socket's sk, loaded from the struct socket of
 * bpf_sock_from_file(), untrusted, which no helper takes).  So nothing
 * loaded from kernel memory is handed to a helper: only the iterator's
 * own task and file, and bpf_sock_from_file()'s socket, are; every
 * other structure is loaded directly (a load through an untrusted
 * pointer is allowed) or read with bpf_probe_read_kernel(), and a
 * socket's family-specific struct (unix_sock, tcp_sock, inet_sock,
 * netlink_sock) is its struct sock cast after the family, type and
 * protocol have been checked, as the bpf_skc_to_*() helpers check.
 *
 * Relocations: the kernel resolves each CO-RE relocation at load by
 * looking up the local type's name among the 100,000-odd types of its
 * BTF, a linear search, and keeps the answer in a cache of 31 slots,
 * chosen by a hash of the name, kept from load to load; two of our
 * types in one slot evict each other, and each eviction is one more
 * search (about half a millisecond) at every pfiles run.  So:
 *  - the two members that are first in their struct for as long as the
 *    kernel has had them -- list_head's next, ipv6_pinfo's saddr -- are
 *    read at offset 0, with no relocation of a type of their own (they
 *    shared their slots with inode and file_lock_context);
 *  - the inode pass compares a socket's struct net with the process's
 *    as pointers, and reads no field of it (net shares inode's slot);
 *  - fill_sockopts() is a subprogram, so that its relocations of enum
 *    sock_flags come after all of struct file's, its slot mate: two
 *    searches per load, not four;
 *  - a unix socket's state is read in the main program, next to its
 *    names (unix_sock), an inet socket's by a subprogram after
 *    fill_sockopts() (tcp_sock): unix_sock and tcp_sock, slot mates,
 *    still take two searches per load, not four.
 * Four pairs are left, each two searches per load: file and sock_flags,
 * unix_sock and tcp_sock, and those of the socket's state and name that
 * no order avoids (the names are the kernel's): sk_buff and pid,
 * packet_sock and inet_sock.  (Slots computed with the kernel's jhash()
 * of each name, modulo 31; unix_skb_parms has one of its own.)  The
 * flavours of pfiles_ktypes.h add the name file_lock (before 6.9's
 * layout), which shares bpf_iter__task_file's slot, and file_lock_core;
 * a name the kernel has not (file_lock_core before 6.9) is searched for
 * at every load.
 */
#include "pfiles_ktypes.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "pfiles_bpf.h"
#include "kconst.h"

char LICENSE[] SEC("license") = "Dual BSD/GPL";

/* One record at a time per CPU: too big for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pfb_rec);
} pfb_scratch SEC(".maps");

/* The reader's pid namespace, as task_active_pid_ns(current). */
struct reader_ns {
	struct pid_namespace	*ns;
	unsigned int		level;
};

/*
 * pid_nr_ns(pid, ns): the number of pid in ns, 0 when pid is not seen
 * there (kernel/pid.c).
 */
static __always_inline int
pid_nr_in(struct pid *pid, const struct reader_ns *rn)
{
	struct upid up;

	if (pid == NULL || rn->level >= K_MAX_PID_NS_LEVEL ||
	    rn->level > BPF_CORE_READ(pid, level))
		return (0);
	/* numbers[] is indexed by a variable: read, not loaded */
	if (bpf_probe_read_kernel(&up, sizeof (up), (char *)pid +
	    bpf_core_field_offset(struct pid, numbers) +
	    rn->level * bpf_core_type_size(struct upid)) != 0 ||
	    up.ns != rn->ns)
		return (0);
	return (up.nr);
}

/*
 * What a pass of the iterator has read once already, in map memory
 * (pointers as plain values, compared only): the reader's pid namespace
 * (current, the reader, is the same for the whole pass); of the task
 * whose table is walked, its tgid and which table it is (task_table()); and
 * the mount id of sockfs, the one internal mount, never unmounted, that
 * every socket's file is on.  Each is read again when its key differs,
 * and all are forgotten when a pass starts (seq_num 0).  One entry:
 * pfiles walks one process at a time, and the program is its own.
 *
 * What is read once per pass is read with bpf_probe_read_kernel(), not
 * loaded: at each load of a pointer from a trusted pointer, the verifier
 * looks the field up in its lists of trusted fields, each list found by
 * name among the kernel's BTF types, a linear search (this halved the
 * time those searches take at every load).
 */
struct passcache {
	__u64	pc_reader;	/* current, when pc_rn was read */
	__u64	pc_rn_ns;	/* pc_rn: its ns and level */
	__u32	pc_rn_level;
	__s32	pc_tgid;
	__u64	pc_task;	/* the task of pc_tgid and pc_table */
	__u64	pc_sock_mnt;	/* sockfs's vfsmount, 0 not read yet */
	__s32	pc_sock_mnt_id;
	__u32	pc_table;	/* TBL_*: which fd table it walks */
	__u64	pc_net;		/* its network namespace (inode pass); */
				/* 0 unknown (it has no nsproxy) */
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct passcache);
} pfb_pass SEC(".maps");

/*
 * Which fd table the iterator walks when it visits a task.  /proc/PID/fd
 * shows the group leader's.  A thread that shares it (most threads) is
 * visited again by 6.1's iterator, with the pid filter, and skipped by
 * later ones (task_file_seq_get_next()'s skip_if_dup_files): skipped
 * here on every kernel, so that each fd is written once.  A thread that
 * unshared its table (unshare(CLONE_FILES)) has one of its own.
 */
#define	TBL_LEADER	0	/* the leader's: the one /proc/PID/fd shows */
#define	TBL_SHARED	1	/* a thread's, the leader's too: skipped */
#define	TBL_OWN		2	/* a thread's own */

static __always_inline __u32
task_table(struct task_struct *task)
{
	struct task_struct *gl = BPF_CORE_READ(task, group_leader);

	if (gl == task)
		return (TBL_LEADER);
	return (BPF_CORE_READ(task, files) == BPF_CORE_READ(gl, files) ?
	    TBL_SHARED : TBL_OWN);
}

static __always_inline void
reader_ns_get(struct reader_ns *rn)
{
	struct pid *cp = BPF_CORE_READ(bpf_get_current_task_btf(),
	    thread_pid);
	struct upid up;

	rn->level = BPF_CORE_READ(cp, level);
	rn->ns = NULL;
	if (rn->level >= K_MAX_PID_NS_LEVEL)
		return;
	if (bpf_probe_read_kernel(&up, sizeof (up), (char *)cp +
	    bpf_core_field_offset(struct pid, numbers) +
	    rn->level * bpf_core_type_size(struct upid)) == 0)
		rn->ns = up.ns;
}

/*
 * The stat fields: generic_fillattr() (fs/stat.c) from the inode, as
 * every filesystem without its own getattr gives them.
 */
static __always_inline void
fill_stat(struct pfb_rec *r, struct inode *ino)
{
	__u32 dev = ino->i_sb->s_dev;
	__u32 rdev = ino->i_rdev;

	r->r_mode = ino->i_mode;
	r->r_nlink = ino->__i_nlink;
	r->r_uid = ino->i_uid.val;
	r->r_gid = ino->i_gid.val;
	r->r_dev_major = dev >> K_MINORBITS;
	r->r_dev_minor = dev & K_MINORMASK;
	r->r_rdev_major = rdev >> K_MINORBITS;
	r->r_rdev_minor = rdev & K_MINORMASK;
	r->r_ino = ino->i_ino;
	r->r_size = ino->i_size;
	r->r_have |= PFB_H_STAT;
}

/*
 * fdinfo's flags:, pos: and mnt_id: (fs/proc/fd.c seq_show()): f_flags
 * with O_CLOEXEC when the fd's bit is set in the fd table's
 * close_on_exec bitmap; real_mount(f_path.mnt)->mnt_id.
 */
static __always_inline void
fill_file(struct pfb_rec *r, struct task_struct *task, struct file *f,
    __u32 fd, int sockfs, struct passcache *pc)
{
	struct fdtable *fdt = task->files->fdt;
	unsigned long *coe = fdt->close_on_exec;
	unsigned long word = 0;
	struct vfsmount *vm = f->f_path.mnt;
	struct mount *m;
	int id;

	r->r_fflags = f->f_flags;
	/* close_on_exec[] is indexed by a variable: read, not loaded */
	if (coe != NULL && fd < fdt->max_fds) {
		(void) bpf_probe_read_kernel(&word, sizeof (word),
		    coe + fd / (8 * sizeof (unsigned long)));
		if (word & (1UL << (fd % (8 * sizeof (unsigned long)))))
			r->r_fflags |= K_O_CLOEXEC;
	}
	r->r_pos = f->f_pos;
	/* real_mount(): container_of, so read, not loaded */
	m = (struct mount *)((char *)vm - bpf_core_field_offset(struct mount,
	    mnt));
	if (vm == NULL) {
		id = -1;
	} else if (pc != NULL && sockfs && pc->pc_sock_mnt == (__u64)vm) {
		id = pc->pc_sock_mnt_id;
	} else {
		id = BPF_CORE_READ(m, mnt_id);
		if (pc != NULL && sockfs) {
			pc->pc_sock_mnt = (__u64)vm;
			pc->pc_sock_mnt_id = id;
		}
	}
	r->r_mnt_id = id;
	r->r_have |= PFB_H_FILE;
}

#include "pfiles_locks.bpf.h"
#include "pfiles_sock.bpf.h"

/*
 * The path's NUL (at plen) and zeros after it up to the next multiple of
 * 8, over what bpf_d_path() left there (d_path() builds the name at the
 * end of the buffer and moves it to the start) or an earlier record's
 * bytes: the 8-byte word that holds the NUL keeps its first plen % 8
 * bytes, the path's last ones (little-endian: its low bytes), and the
 * rest are zeroed; one load and one store, no branch for the verifier
 * to follow.
 */
static __always_inline void
end_path(struct pfb_rec *r, __u32 plen)
{
	__u32 at = plen & (PFB_PATH_MAX - 8);
	__u64 *w = (__u64 *)&r->r_path[at];
	__u32 keep = plen & 7;

	*w &= (1ULL << (8 * keep)) - 1;
}

/*
 * The pass's cache (NULL when the map has none), forgotten when a pass
 * starts.
 */
static __always_inline struct passcache *
pass_cache(struct bpf_iter_meta *meta)
{
	struct passcache *pc;
	__u32 zero = 0;

	if ((pc = bpf_map_lookup_elem(&pfb_pass, &zero)) != NULL &&
	    meta->seq_num == 0)
		__builtin_memset(pc, 0, sizeof (*pc));
	return (pc);
}

/*
 * The reader's pid namespace: the pass's, or read and kept (with pc); a
 * new reader's tgids are numbers of another namespace, read again.
 */
static __always_inline void
pass_reader_ns(struct passcache *pc, struct reader_ns *rn)
{
	__u64 cur = (__u64)bpf_get_current_task_btf();

	if (pc != NULL && pc->pc_reader == cur) {
		rn->ns = (struct pid_namespace *)pc->pc_rn_ns;
		rn->level = pc->pc_rn_level;
		return;
	}
	reader_ns_get(rn);
	if (pc != NULL) {
		pc->pc_reader = cur;
		pc->pc_rn_ns = (__u64)rn->ns;
		pc->pc_rn_level = rn->level;
		pc->pc_task = 0;
	}
}

/*
 * Which table the task's is (TBL_*), and its tgid into *tgidp: once per
 * task, kept in pc.
 */
static __always_inline __u32
pass_task(struct passcache *pc, struct task_struct *task,
    const struct reader_ns *rn, __s32 *tgidp)
{
	__u32 table;

	if (pc != NULL && pc->pc_task == (__u64)task) {
		*tgidp = pc->pc_tgid;
		return (pc->pc_table);
	}
	table = task_table(task);
	*tgidp = pid_nr_in(BPF_CORE_READ(task, group_leader, thread_pid), rn);
	if (pc != NULL) {
		pc->pc_task = (__u64)task;
		pc->pc_tgid = *tgidp;
		pc->pc_table = table;
	}
	return (table);
}

/*
 * The path, its length and its end (end_path); so is a socket of sockfs
 * or NULL.  bpf_d_path() is d_path(), what proc_fd_link() and readlink of
 * /proc/PID/fd/N use, d_dname() ("socket:[N]", "anon_inode:[x]") and
 * " (deleted)" included, relative to the reader's root.  It returns the
 * length with the NUL (at least 1) or -errno.  A socket of sockfs
 * (bpf_sock_from_file(): its f_op is socket_file_ops) is named by
 * sockfs_dname(), "socket:[" its inode "]": that name is left to the
 * reader (PFB_H_SOCKFS), not made and copied per socket.
 */
static __always_inline __u32
fill_path(struct pfb_rec *r, struct file *f, struct socket *so)
{
	__u32 plen;
	long n;

	if (so != NULL) {
		r->r_have |= PFB_H_SOCKFS;
		n = 1;
	} else {
		n = bpf_d_path((struct path *)&f->f_path, r->r_path,
		    sizeof (r->r_path));
	}
	if (n <= 0) {
		r->r_path_err = n < 0 ? (__s32)n : 0;
		plen = 0;
	} else {
		/* n <= PFB_PATH_MAX: the mask only tells the verifier. */
		plen = (__u32)(n - 1) & (PFB_PATH_MAX - 1);
	}
	r->r_path_len = plen;
	end_path(r, plen);
	return (plen);
}

SEC("iter/task_file")
int
pfiles_task_file(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *f = ctx->file;
	struct passcache *pc;
	struct reader_ns rn;
	struct pfb_rec *r;
	struct inode *ino;
	struct socket *so;
	__u32 zero = 0, plen, size, table;

	pc = pass_cache(ctx->meta);
	if (task == NULL || f == NULL)
		return (0);
	if ((r = bpf_map_lookup_elem(&pfb_scratch, &zero)) == NULL)
		return (0);
	__builtin_memset(r, 0, PFB_RECFIXED);
	pass_reader_ns(pc, &rn);
	r->r_magic = PFB_MAGIC;
	r->r_version = PFB_VERSION;
	r->r_fd = ctx->fd;
	/*
	 * A thread's own table is written, marked (the walk's tests see
	 * it), and not shown.
	 */
	table = pass_task(pc, task, &rn, &r->r_tgid);
	if (table == TBL_SHARED)
		return (0);
	if (table == TBL_OWN)
		r->r_have |= PFB_H_OWNTABLE;

	ino = f->f_inode;
	if (ino != NULL)
		fill_stat(r, ino);
	so = ino != NULL && (r->r_mode & K_S_IFMT) == K_S_IFSOCK ?
	    bpf_sock_from_file(f) : NULL;
	fill_file(r, task, f, ctx->fd, so != NULL, pc);
	/*
	 * The socket, then the locks, then the path: the verifier follows
	 * what comes after a branch once per way through it, and these
	 * have the fewest ways in this order (2,829 instructions processed,
	 * against 5,701 with the path first and the socket last, when this
	 * order was chosen; 2,919 now, with the reads once per pass).
	 */
	if (so != NULL)
		fill_sock(r, so, &rn);
	if (ino != NULL)
		fill_locks(r, task, ino, f, &rn);
	plen = fill_path(r, f, so);

	/*
	 * PFB_RECSIZE(plen), written so that the verifier sees it is at
	 * most PFB_RECSIZE_MAX: the word that holds the NUL (end_path) is
	 * at plen & (PFB_PATH_MAX - 8) <= PFB_PATH_MAX - 8.  (Written as
	 * ((plen >> 3) + 1) << 3, the compiler may make it (plen + 568) &
	 * ~7, whose bound the verifier takes as 4663.)  A socket's path is
	 * empty, and a netlink socket's group words follow it: their count
	 * is loaded from the record (map memory, whose values the verifier
	 * does not follow), not carried from fill_groups() through what
	 * comes between, where each count would be a state of its own to
	 * check (on 6.1, six times the instructions processed).
	 */
	if (so != NULL)
		size = PFB_RECSIZE(0) + PFB_GROUPS_SIZE(r->r_ngroups &
		    (2 * PFB_NLGROUPS_MAX - 1));
	else
		size = PFB_RECFIXED + (plen & (PFB_PATH_MAX - 8)) + 8;
	r->r_recsize = (__u16)size;
	(void) bpf_seq_write(ctx->meta->seq, r, size);
	return (0);
}

/*
 * An inode record's facts of the socket sk: its protocol, whether it is
 * in the process's network namespace (net, 0 unknown), a unix socket's
 * peer, an inet socket's ends.
 */
static __always_inline void
ino_sock_facts(struct pfb_ino *r, struct sock *sk, __u64 net)
{
	struct ends_addr own, peer;
	__u16 ownport, peerport;

	/*
	 * Its namespace compared with the process's, as pointers: no field
	 * of struct net read, so no relocation of it (it shares a slot of
	 * the kernel's candidate cache with struct inode).
	 */
	r->i_family = sk->__sk_common.skc_family;
	r->i_protocol = sk->sk_protocol;
	r->i_state = sk->__sk_common.skc_state;
	r->i_have = PFB_I_PROTO;
	if (net != 0) {
		r->i_ownnet = (__u64)sk->__sk_common.skc_net.net == net;
		r->i_have |= PFB_I_OWNNET;
	}
	if (r->i_family == K_AF_UNIX) {
		/* unix_diag's UNIX_DIAG_PEER: sock_i_ino(unix_peer(sk)) */
		r->i_peer_ino = sock_ino(BPF_CORE_READ((struct unix_sock *)sk,
		    peer));
		r->i_have |= PFB_I_UNIXPEER;
	} else if (r->i_family == K_AF_INET || r->i_family == K_AF_INET6) {
		if (inet_ends(sk, r->i_family, &own, &ownport, &peer,
		    &peerport)) {
			__builtin_memcpy(r->i_own, &own, 16);
			__builtin_memcpy(r->i_peer, &peer, 16);
			r->i_own_port = ownport;
			r->i_peer_port = peerport;
			r->i_have |= PFB_I_ENDS;
		}
	}
}

/*
 * The target's sockets only (struct pfb_ino): what the endpoints need to
 * know before the walk, in one pass of PFB_INOSIZE bytes per socket
 * instead of a readlink of each fd and dumps of the socket tables.
 */
SEC("iter/task_file")
int
pfiles_sock_inodes(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *f = ctx->file;
	struct passcache *pc;
	struct reader_ns rn;
	struct pfb_ino r;
	struct inode *ino;
	struct socket *so;
	struct sock *sk;
	__s32 tgid;

	if ((pc = pass_cache(ctx->meta)) == NULL)
		return (0);
	if (task == NULL || f == NULL)
		return (0);
	/*
	 * Which table (the table /proc/PID/fd shows only); the network
	 * namespace of the task, the process's main thread, whose is the
	 * one /proc/PID/ns/net shows; its tgid (in the reader's pid
	 * namespace): read once per task (see passcache).
	 */
	if (pc->pc_task != (__u64)task) {
		pass_reader_ns(pc, &rn);
		(void) pass_task(pc, task, &rn, &tgid);
		pc->pc_net = (__u64)BPF_CORE_READ(task, nsproxy, net_ns);
	}
	if (pc->pc_table != TBL_LEADER)
		return (0);
	ino = f->f_inode;
	if (ino == NULL || (ino->i_mode & K_S_IFMT) != K_S_IFSOCK ||
	    (f->f_flags & K_O_PATH) != 0)
		return (0);
	__builtin_memset(&r, 0, sizeof (r));
	r.i_magic = PFB_INO_MAGIC;
	r.i_fd = (__s32)ctx->fd;
	r.i_tgid = pc->pc_tgid;
	r.i_ino = ino->i_ino;
	if ((so = bpf_sock_from_file(f)) != NULL && (sk = so->sk) != NULL)
		ino_sock_facts(&r, sk, pc->pc_net);
	(void) bpf_seq_write(ctx->meta->seq, &r, sizeof (r));
	return (0);
}
