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
 *    searches per load, not four.
 * Two pairs were left, each two searches per load: file and sock_flags,
 * unix_sock and tcp_sock.  The flavours of pfiles_ktypes.h add the names
 * file_lock (before 6.9's layout) and file_lock_core, whose slots have not
 * been measured, and a name the kernel has not (file_lock_core before
 * 6.9) is searched for at every load.
 */
#include "pfiles_ktypes.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>

#include "pfiles_bpf.h"
#include "kconst.h"

char LICENSE[] SEC("license") = "GPL";

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

/*
 * The inode's lock lists (flc_flock, flc_posix, flc_lease of its
 * file_lock_context), as __show_fd_locks() and lock_get_status()
 * (fs/locks.c) show them in fdinfo: the locks whose flc_file is this
 * file and whose owner is the fd table or the file.  The three lists
 * are walked by one bpf_loop(), so that the verifier checks one step
 * from one place, not PFB_LOCKWALK steps of three walks; at most
 * PFB_LOCKWALK entries of each list are looked at.
 */
#define	LW_LISTS	3

/*
 * The walk's state is in a map, not on the stack: the verifier does not
 * follow the values of map memory, so the step it checks is one, not one
 * per value of the counters.  Pointers in it are plain values (compared,
 * and read through with bpf_probe_read_kernel()).
 *
 * A lock is read at the offsets of its members, found once per lock
 * list walk for the running kernel's layout (struct file_lock_core of
 * 6.9 and later, or struct file_lock before), so that one step reads
 * either.
 */
struct lockwalk {
	__u64	lw_head[LW_LISTS];	/* the lists' heads */
	__u64	lw_pos;			/* the next entry */
	__u64	lw_file;
	__u64	lw_files;
	__u32	lw_off_owner;		/* of the others, from the list's */
	__u32	lw_off_flags;
	__u32	lw_off_type;
	__u32	lw_off_pid;
	__u32	lw_off_file;
	__u32	lw_global;
	__u32	lw_list;		/* the list walked: 0..2 */
	__u32	lw_seen;		/* its entries looked at */
	__u32	lw_cut;			/* a list was longer */
	__u32	lw_pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lockwalk);
} pfb_lockwalk SEC(".maps");

/* The head of the list walked (no variable index: map memory). */
static __always_inline __u64
lw_head(const struct lockwalk *lw)
{
	return (lw->lw_list == 0 ? lw->lw_head[0] :
	    lw->lw_list == 1 ? lw->lw_head[1] : lw->lw_head[2]);
}

/*
 * A list entry's next: struct list_head is { next, prev } (linux/types.h),
 * read without a CO-RE relocation of its own (see "Relocations" above).
 */
static __always_inline __u64
list_next(const void *entry)
{
	__u64 next = 0;

	(void) bpf_probe_read_kernel(&next, sizeof (next), entry);
	return (next);
}

/* A member of the lock whose list entry is at pos: off from the entry. */
static __always_inline void
lock_member(void *dst, __u32 size, const struct list_head *pos, __u32 off)
{
	(void) bpf_probe_read_kernel(dst, size, (const char *)pos + off);
}

static long
lock_step(__u64 index __attribute__((unused)),
    void *arg __attribute__((unused)))
{
	__u32 zero = 0;
	struct lockwalk *lw = bpf_map_lookup_elem(&pfb_lockwalk, &zero);
	struct pfb_rec *r = bpf_map_lookup_elem(&pfb_scratch, &zero);
	struct list_head *pos, *head;
	struct pfb_lock *lk;
	unsigned int flags = 0, n;
	unsigned char type = 0;
	__u64 owner = 0, file = 0;
	int pid = 0;

	if (lw == NULL || r == NULL)
		return (1);
	head = (struct list_head *)lw_head(lw);
	pos = (struct list_head *)lw->lw_pos;
	if (pos == head || pos == NULL || lw->lw_seen >= PFB_LOCKWALK) {
		if (pos != head && pos != NULL)
			lw->lw_cut = 1;
		if (++lw->lw_list >= LW_LISTS)
			return (1);
		head = (struct list_head *)lw_head(lw);
		lw->lw_pos = list_next(head);
		lw->lw_seen = 0;
		return (0);
	}
	lw->lw_seen++;
	lw->lw_pos = list_next(pos);
	lock_member(&file, sizeof (file), pos, lw->lw_off_file);
	if (file != lw->lw_file)
		return (0);
	lock_member(&owner, sizeof (owner), pos, lw->lw_off_owner);
	if (owner != lw->lw_files && owner != lw->lw_file)
		return (0);
	n = r->r_nlocks;
	if (n >= PFB_MAXLOCKS) {
		r->r_locks_more++;
		return (0);
	}
	lock_member(&flags, sizeof (flags), pos, lw->lw_off_flags);
	lock_member(&type, sizeof (type), pos, lw->lw_off_type);
	lock_member(&pid, sizeof (pid), pos, lw->lw_off_pid);
	lk = &r->r_locks[n & (PFB_MAXLOCKS - 1)];
	lk->l_flags = flags;
	if (flags & K_FL_POSIX) {
		lk->l_kind = (flags & K_FL_ACCESS) ? PFB_LK_OTHER :
		    (flags & K_FL_OFDLCK) ? PFB_LK_OFD : PFB_LK_POSIX;
	} else if (flags & K_FL_FLOCK) {
		lk->l_kind = PFB_LK_FLOCK;
	} else {
		lk->l_kind = PFB_LK_OTHER;
		/* target_leasetype() */
		if (flags & (K_FL_LEASE | K_FL_DELEG | K_FL_LAYOUT)) {
			if (flags & K_FL_UNLOCK_PENDING)
				type = K_F_UNLCK;
			else if (flags & K_FL_DOWNGRADE_PENDING)
				type = K_F_RDLCK;
		}
	}
	lk->l_type = type == K_F_WRLCK ? PFB_F_WRLCK :
	    type == K_F_RDLCK ? PFB_F_RDLCK : PFB_F_UNLCK;
	/* locks_translate_pid() */
	if (flags & K_FL_OFDLCK)
		pid = -1;
	else if (pid > 0 && lw->lw_global)
		r->r_have |= PFB_H_LOCKPID_GLOBAL;
	lk->l_pid = pid;
	r->r_nlocks = n + 1;
	return (0);
}

/*
 * The offsets of a lock's members for the running kernel, from its list
 * member's; 0 when it has neither layout (then no lock is read, and the
 * record says so: no PFB_H_LOCKS).  One macro, so that the two layouts
 * name the same members in the same order.
 */
#define	LOCK_OFFSETS(lw, T, list, owner, flags, type, pid, file) do {	\
	__u32 at = bpf_core_field_offset(T, list);			\
									\
	(lw)->lw_off_owner = bpf_core_field_offset(T, owner) - at;	\
	(lw)->lw_off_flags = bpf_core_field_offset(T, flags) - at;	\
	(lw)->lw_off_type = bpf_core_field_offset(T, type) - at;	\
	(lw)->lw_off_pid = bpf_core_field_offset(T, pid) - at;		\
	(lw)->lw_off_file = bpf_core_field_offset(T, file) - at;	\
} while (0)

static __always_inline int
lock_layout(struct lockwalk *lw)
{
	if (bpf_core_type_exists(struct file_lock_core___new))
		LOCK_OFFSETS(lw, struct file_lock_core___new, flc_list,
		    flc_owner, flc_flags, flc_type, flc_pid, flc_file);
	else if (bpf_core_field_exists(struct file_lock___old, fl_list))
		LOCK_OFFSETS(lw, struct file_lock___old, fl_list,
		    fl_owner, fl_flags, fl_type, fl_pid, fl_file);
	else
		return (0);
	return (1);
}

static __always_inline void
fill_locks(struct pfb_rec *r, struct task_struct *task, struct inode *ino,
    struct file *f, const struct reader_ns *rn)
{
	struct file_lock_context *ctx;
	struct lockwalk *lw;
	__u32 zero = 0;

	if (!bpf_core_type_exists(struct file_lock_core___new) &&
	    !bpf_core_field_exists(struct file_lock___old, fl_list))
		return;		/* neither layout: no locks read */
	r->r_have |= PFB_H_LOCKS;
	/*
	 * Loaded to see that there is none (most files); then read, so
	 * that the walk's pointers are plain values.
	 */
	if (ino->i_flctx == NULL)
		return;
	if ((ctx = BPF_CORE_READ(ino, i_flctx)) == NULL ||
	    (lw = bpf_map_lookup_elem(&pfb_lockwalk, &zero)) == NULL)
		return;
	if (!lock_layout(lw)) {
		r->r_have &= ~PFB_H_LOCKS;
		return;
	}
	lw->lw_head[0] = (__u64)&ctx->flc_flock;
	lw->lw_head[1] = (__u64)&ctx->flc_posix;
	lw->lw_head[2] = (__u64)&ctx->flc_lease;
	lw->lw_pos = list_next(&ctx->flc_flock);
	lw->lw_file = (__u64)f;
	lw->lw_files = (__u64)BPF_CORE_READ(task, files);
	lw->lw_global = rn->level != 0;
	lw->lw_list = 0;
	lw->lw_seen = 0;
	lw->lw_cut = 0;
	(void) bpf_loop(LW_LISTS * (PFB_LOCKWALK + 1), lock_step, NULL, 0);
	if (lw->lw_cut)
		r->r_have |= PFB_H_LOCKS_CUT;
}

static __always_inline int
sock_flag_set(unsigned long flags, int bit)
{
	return ((flags >> bit) & 1);
}

/*
 * The options of sk_getsockopt() (net/core/sock.c) and do_tcp_getsockopt()
 * (net/ipv4/tcp.c).
 */
static __attribute__((noinline)) void
fill_sockopts(struct pfb_rec *r, struct socket *so, struct sock *sk)
{
	unsigned long fl = sk->__sk_common.skc_flags;
	__u32 b = 0, known = PFB_SO_ALL & ~(PFB_SO_PASSCRED | PFB_TCP_NODELAY);

	/* SO_DEBUG: sock_flag(sk, SOCK_DBG) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags, SOCK_DBG)))
		b |= PFB_SO_DEBUG;
	/* SO_REUSEADDR: sk->sk_reuse */
	if (BPF_CORE_READ_BITFIELD(&sk->__sk_common, skc_reuse) != 0)
		b |= PFB_SO_REUSEADDR;
	/* SO_KEEPALIVE: sock_flag(sk, SOCK_KEEPOPEN) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_KEEPOPEN)))
		b |= PFB_SO_KEEPALIVE;
	/* SO_DONTROUTE: sock_flag(sk, SOCK_LOCALROUTE) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_LOCALROUTE)))
		b |= PFB_SO_DONTROUTE;
	/* SO_BROADCAST: sock_flag(sk, SOCK_BROADCAST) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_BROADCAST)))
		b |= PFB_SO_BROADCAST;
	/* SO_OOBINLINE: sock_flag(sk, SOCK_URGINLINE) */
	if (sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_URGINLINE)))
		b |= PFB_SO_OOBINLINE;
	/* SO_REUSEPORT: sk->sk_reuseport */
	if (BPF_CORE_READ_BITFIELD(&sk->__sk_common, skc_reuseport) != 0)
		b |= PFB_SO_REUSEPORT;
	/*
	 * SO_PASSCRED: since 6.16, -EOPNOTSUPP unless sk_may_scm_recv()
	 * (AF_UNIX, AF_NETLINK, AF_BLUETOOTH), else sk->sk_scm_credentials;
	 * before, test_bit(SOCK_PASSCRED, &sock->flags) of every socket.
	 */
	if (bpf_core_field_exists(struct sock___scm, sk_scm_credentials)) {
		if (r->r_family == K_AF_UNIX || r->r_family == K_AF_NETLINK ||
		    r->r_family == K_AF_BLUETOOTH) {
			known |= PFB_SO_PASSCRED;
			if (BPF_CORE_READ_BITFIELD((struct sock___scm *)sk,
			    sk_scm_credentials) != 0)
				b |= PFB_SO_PASSCRED;
		}
	} else {
		known |= PFB_SO_PASSCRED;
		if (sock_flag_set(so->flags, K_SOCK_PASSCRED))
			b |= PFB_SO_PASSCRED;
	}
	/* SO_ACCEPTCONN: sk->sk_state == TCP_LISTEN */
	if (sk->__sk_common.skc_state == K_TCP_LISTEN)
		b |= PFB_SO_ACCEPTCONN;
	/*
	 * TCP_NODELAY: !!(tcp_sk(sk)->nonagle & TCP_NAGLE_OFF), of an
	 * inet or inet6 stream socket of TCP, whose sock is a tcp_sock (as
	 * bpf_skc_to_tcp_sock() checks: a raw socket may be of IPPROTO_TCP).
	 * No BTF pointer to it: read, not loaded.
	 */
	if ((r->r_family == K_AF_INET || r->r_family == K_AF_INET6) &&
	    r->r_type == K_SOCK_STREAM && r->r_protocol == K_IPPROTO_TCP) {
		known |= PFB_TCP_NODELAY;
		if (BPF_CORE_READ_BITFIELD_PROBED((struct tcp_sock *)sk,
		    nonagle) & K_TCP_NAGLE_OFF)
			b |= PFB_TCP_NODELAY;
	}
	r->r_bools = b;
	r->r_bools_known = known;

	/* SO_LINGER: sock_flag(sk, SOCK_LINGER), sk_lingertime / HZ */
	r->r_linger_on = sock_flag_set(fl, bpf_core_enum_value(enum sock_flags,
	    SOCK_LINGER));
	r->r_lingertime = sk->sk_lingertime;
	/* SO_SNDBUF, SO_RCVBUF: sk->sk_sndbuf, sk->sk_rcvbuf */
	r->r_sndbuf = sk->sk_sndbuf;
	r->r_rcvbuf = sk->sk_rcvbuf;
	r->r_sock_have |= PFB_S_LINGER | PFB_S_BUFS;
}

/*
 * An IPv6 address on the stack: a type of our own, not vmlinux.h's (whose
 * every access is relocated at load).
 */
struct ends_addr {
	__u32	w[4];
};

static __always_inline void
put16(__u8 *p, __u16 v)
{
	p[0] = v & 0xff;
	p[1] = v >> 8;
}

/*
 * An inet socket's two ends as inet_getname() (net/ipv4/af_inet.c) and
 * inet6_getname() (net/ipv6/af_inet6.c) give them: the addresses as
 * IPv6 ones (an AF_INET socket's mapped, ::ffff:a.b.c.d), the ports in
 * network order.  Returns 0 when getpeername would fail (ENOTCONN).
 */
static __always_inline int
inet_ends(struct sock *sk, int family, struct ends_addr *own, __u16 *ownport,
    struct ends_addr *peer, __u16 *peerport)
{
	__u16 dport = sk->__sk_common.skc_dport;
	unsigned int state = sk->__sk_common.skc_state;
	__u32 a4;

	/* inet_sk(sk): no BTF pointer to it, so read, not loaded */
	*ownport = BPF_CORE_READ((struct inet_sock *)sk, inet_sport);
	if (family == K_AF_INET) {
		a4 = sk->__sk_common.skc_rcv_saddr;
		if (a4 == 0)
			a4 = BPF_CORE_READ((struct inet_sock *)sk, inet_saddr);
		own->w[0] = 0;
		own->w[1] = 0;
		own->w[2] = bpf_htonl(0xffff);
		own->w[3] = a4;
		peer->w[0] = 0;
		peer->w[1] = 0;
		peer->w[2] = bpf_htonl(0xffff);
		peer->w[3] = sk->__sk_common.skc_daddr;
	} else {
		__builtin_memcpy(own, &sk->__sk_common.skc_v6_rcv_saddr, 16);
		/* np->saddr: saddr is struct ipv6_pinfo's first member */
		if ((own->w[0] | own->w[1] | own->w[2] | own->w[3]) == 0)
			(void) bpf_probe_read_kernel(own, 16,
			    BPF_CORE_READ((struct inet_sock *)sk, pinet6));
		__builtin_memcpy(peer, &sk->__sk_common.skc_v6_daddr, 16);
	}
	*peerport = dport;
	return (dport != 0 && ((1U << state) &
	    ((1U << K_TCP_CLOSE) | (1U << K_TCP_SYN_SENT))) == 0);
}

/* A struct sockaddr_in or sockaddr_in6 of an end into a. */
static __always_inline void
put_inet(struct pfb_addr *a, int family, const struct ends_addr *in6,
    __u16 port)
{
	/* family, then the port (network order) */
	put16(a->a_data, family);
	__builtin_memcpy(a->a_data + 2, &port, 2);
	if (family == K_AF_INET) {
		__builtin_memcpy(a->a_data + 4, &in6->w[3], 4);
		a->a_len = 16;
	} else {
		/* sin6_flowinfo at 4, sin6_addr at 8, sin6_scope_id at 24 */
		__builtin_memcpy(a->a_data + 8, in6, 16);
		a->a_len = 28;
	}
}

static __always_inline void
fill_inet(struct pfb_rec *r, struct sock *sk)
{
	struct ends_addr own, peer;
	__u16 ownport, peerport;

	if (inet_ends(sk, r->r_family, &own, &ownport, &peer, &peerport))
		put_inet(&r->r_peername, r->r_family, &peer, peerport);
	else
		r->r_peername.a_err = -K_ENOTCONN;
	put_inet(&r->r_sockname, r->r_family, &own, ownport);
}

/*
 * unix_getname() (net/unix/af_unix.c): the unix_address of the unix
 * socket u as it is.  u is read, not loaded: a unix_sock is its struct
 * sock cast (unix_sk()), with no BTF pointer to it.
 */
static __always_inline void
fill_unix_addr(struct pfb_addr *a, struct unix_sock *u)
{
	struct unix_address *ua = BPF_CORE_READ(u, addr);
	unsigned int len;

	if (ua == NULL) {
		put16(a->a_data, K_AF_UNIX);
		a->a_len = 2;	/* offsetof(struct sockaddr_un, sun_path) */
		return;
	}
	len = BPF_CORE_READ(ua, len);
	if (len > PFB_ADDR_MAX)
		len = PFB_ADDR_MAX;
	/* a length the verifier cannot bound: read, not loaded */
	if (bpf_probe_read_kernel(a->a_data, len & (2 * PFB_ADDR_MAX - 1),
	    (char *)ua + bpf_core_field_offset(struct unix_address, name)) != 0) {
		a->a_err = -K_EOPNOTSUPP;	/* not what the kernel says */
		return;
	}
	a->a_len = len;
}

/*
 * An AF_UNIX socket (its family checked by the caller): its name, its
 * peer's (unix_peer(): the peer of a unix socket is a unix socket) and
 * SO_PEERCRED's pid.
 */
static __always_inline void
fill_unix(struct pfb_rec *r, struct sock *sk, const struct reader_ns *rn)
{
	struct unix_sock *u = (struct unix_sock *)sk;
	struct unix_sock *pu = (struct unix_sock *)BPF_CORE_READ(u, peer);

	fill_unix_addr(&r->r_sockname, u);
	if (pu == NULL)
		r->r_peername.a_err = -K_ENOTCONN;
	else
		fill_unix_addr(&r->r_peername, pu);
	/* SO_PEERCRED: pid_vnr(sk->sk_peer_pid), in the reader's ns */
	r->r_peer_pid = pid_nr_in(sk->sk_peer_pid, rn);
	r->r_sock_have |= PFB_S_PEERPID;
}

/* netlink_getname() (net/netlink/af_netlink.c): struct sockaddr_nl. */
static __always_inline void
fill_netlink(struct pfb_rec *r, struct sock *sk)
{
	/* nlk_sk(sk): no BTF pointer to it, so read, not loaded */
	struct netlink_sock *nlk = (struct netlink_sock *)sk;
	unsigned long *groups = BPF_CORE_READ(nlk, groups);
	unsigned long g0 = 0;
	__u32 portid, grp, dg;

	portid = BPF_CORE_READ(nlk, portid);
	if (groups != NULL)
		(void) bpf_probe_read_kernel(&g0, sizeof (g0), groups);
	grp = (__u32)g0;
	put16(r->r_sockname.a_data, K_AF_NETLINK);
	__builtin_memcpy(r->r_sockname.a_data + 4, &portid, 4);
	__builtin_memcpy(r->r_sockname.a_data + 8, &grp, 4);
	r->r_sockname.a_len = 12;

	portid = BPF_CORE_READ(nlk, dst_portid);
	dg = BPF_CORE_READ(nlk, dst_group);
	/* netlink_group_mask() */
	grp = (dg == 0 || dg > 32) ? 0 : 1U << (dg - 1);
	put16(r->r_peername.a_data, K_AF_NETLINK);
	__builtin_memcpy(r->r_peername.a_data + 4, &portid, 4);
	__builtin_memcpy(r->r_peername.a_data + 8, &grp, 4);
	r->r_peername.a_len = 12;
}

static __always_inline void
fill_sock(struct pfb_rec *r, struct socket *so, const struct reader_ns *rn)
{
	struct sock *sk;

	r->r_have |= PFB_H_SOCK;
	sk = so->sk;
	if (sk == NULL)
		return;
	r->r_sock_have |= PFB_S_SK;
	/* SO_DOMAIN, SO_TYPE, SO_PROTOCOL */
	r->r_family = sk->__sk_common.skc_family;
	r->r_type = sk->sk_type;
	r->r_protocol = sk->sk_protocol;
	fill_sockopts(r, so, sk);

	r->r_sockname.a_err = PFB_ENOTCOMPUTED;
	r->r_peername.a_err = PFB_ENOTCOMPUTED;
	switch (r->r_family) {
	case K_AF_INET:
	case K_AF_INET6:
		r->r_sockname.a_err = 0;
		r->r_peername.a_err = 0;
		fill_inet(r, sk);
		break;
	case K_AF_UNIX:
		r->r_sockname.a_err = 0;
		r->r_peername.a_err = 0;
		fill_unix(r, sk, rn);
		break;
	case K_AF_NETLINK:
		r->r_sockname.a_err = 0;
		r->r_peername.a_err = 0;
		fill_netlink(r, sk);
		break;
	case K_AF_PACKET:
		/* packet_getname*(): the family is all pfiles shows */
		r->r_sockname.a_err = 0;
		put16(r->r_sockname.a_data, K_AF_PACKET);
		r->r_sockname.a_len = 2;
		/* a peer: -EOPNOTSUPP */
		r->r_peername.a_err = -K_EOPNOTSUPP;
		break;
	default:
		break;
	}
}

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

SEC("iter/task_file")
int
pfiles_task_file(struct bpf_iter__task_file *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct file *f = ctx->file;
	struct passcache *pc;
	struct reader_ns rn;
	struct pfb_rec *r;
	struct inode *ino;
	struct socket *so;
	__u32 zero = 0, plen, size, table;
	__u64 cur;
	long n;

	if ((pc = bpf_map_lookup_elem(&pfb_pass, &zero)) != NULL &&
	    ctx->meta->seq_num == 0)
		__builtin_memset(pc, 0, sizeof (*pc));
	if (task == NULL || f == NULL)
		return (0);
	if ((r = bpf_map_lookup_elem(&pfb_scratch, &zero)) == NULL)
		return (0);
	__builtin_memset(r, 0, PFB_RECFIXED);

	cur = (__u64)bpf_get_current_task_btf();
	if (pc != NULL && pc->pc_reader == cur) {
		rn.ns = (struct pid_namespace *)pc->pc_rn_ns;
		rn.level = pc->pc_rn_level;
	} else {
		reader_ns_get(&rn);
		if (pc != NULL) {
			pc->pc_reader = cur;
			pc->pc_rn_ns = (__u64)rn.ns;
			pc->pc_rn_level = rn.level;
			pc->pc_task = 0;
		}
	}
	r->r_magic = PFB_MAGIC;
	r->r_version = PFB_VERSION;
	r->r_fd = ctx->fd;
	/*
	 * Which table, and the tgid: once per task.  A thread's own table
	 * is written, marked (the walk's tests see it), and not shown.
	 */
	if (pc != NULL && pc->pc_task == (__u64)task) {
		r->r_tgid = pc->pc_tgid;
		table = pc->pc_table;
	} else {
		table = task_table(task);
		r->r_tgid = pid_nr_in(BPF_CORE_READ(task, group_leader,
		    thread_pid), &rn);
		if (pc != NULL) {
			pc->pc_task = (__u64)task;
			pc->pc_tgid = r->r_tgid;
			pc->pc_table = table;
		}
	}
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

	/*
	 * bpf_d_path() is d_path(), what proc_fd_link() and readlink of
	 * /proc/PID/fd/N use, d_dname() ("socket:[N]", "anon_inode:[x]")
	 * and " (deleted)" included, relative to the reader's root.  It
	 * returns the length with the NUL (at least 1) or -errno.  A socket
	 * of sockfs (bpf_sock_from_file(): its f_op is socket_file_ops) is
	 * named by sockfs_dname(), "socket:[" its inode "]": that name is
	 * left to the reader (PFB_H_SOCKFS), not made and copied per socket.
	 */
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

	/*
	 * PFB_RECSIZE(plen), written so that the verifier sees it is at
	 * most PFB_RECSIZE_MAX: plen >> 3 <= 511.
	 */
	size = PFB_RECFIXED + (((plen >> 3) + 1) << 3);
	r->r_recsize = (__u16)size;
	(void) bpf_seq_write(seq, r, size);
	return (0);
}

/*
 * sock_i_ino() (net/core/sock.c): the inode of the socket a struct sock
 * belongs to, 0 when it has none.  SOCK_INODE() is container_of: read.
 */
static __always_inline __u64
sock_ino(struct sock *sk)
{
	struct socket *so;

	if (sk == NULL || (so = BPF_CORE_READ(sk, sk_socket)) == NULL)
		return (0);
	return (BPF_CORE_READ((struct inode *)((char *)so +
	    bpf_core_field_offset(struct socket_alloc, vfs_inode)), i_ino));
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
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *task = ctx->task;
	struct file *f = ctx->file;
	struct passcache *pc;
	struct pfb_ino r;
	struct inode *ino;
	struct socket *so;
	struct sock *sk;
	struct ends_addr own, peer;
	__u16 ownport, peerport;
	__u32 zero = 0;

	if ((pc = bpf_map_lookup_elem(&pfb_pass, &zero)) == NULL)
		return (0);
	if (ctx->meta->seq_num == 0)
		__builtin_memset(pc, 0, sizeof (*pc));
	if (task == NULL || f == NULL)
		return (0);
	/*
	 * Which table (the table /proc/PID/fd shows only); the network
	 * namespace of the task, the process's main thread, whose is the
	 * one /proc/PID/ns/net shows: read once per task (see passcache).
	 */
	if (pc->pc_task != (__u64)task) {
		pc->pc_task = (__u64)task;
		pc->pc_table = task_table(task);
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
	r.i_ino = ino->i_ino;
	if ((so = bpf_sock_from_file(f)) == NULL || (sk = so->sk) == NULL)
		goto out;
	/*
	 * Its namespace compared with the process's, as pointers: no field
	 * of struct net read, so no relocation of it (it shares a slot of
	 * the kernel's candidate cache with struct inode).
	 */
	r.i_family = sk->__sk_common.skc_family;
	r.i_protocol = sk->sk_protocol;
	r.i_state = sk->__sk_common.skc_state;
	r.i_have = PFB_I_PROTO;
	if (pc->pc_net != 0) {
		r.i_ownnet = (__u64)sk->__sk_common.skc_net.net == pc->pc_net;
		r.i_have |= PFB_I_OWNNET;
	}
	if (r.i_family == K_AF_UNIX) {
		/* unix_diag's UNIX_DIAG_PEER: sock_i_ino(unix_peer(sk)) */
		r.i_peer_ino = sock_ino(BPF_CORE_READ((struct unix_sock *)sk,
		    peer));
		r.i_have |= PFB_I_UNIXPEER;
	} else if (r.i_family == K_AF_INET || r.i_family == K_AF_INET6) {
		if (inet_ends(sk, r.i_family, &own, &ownport, &peer,
		    &peerport)) {
			__builtin_memcpy(r.i_own, &own, 16);
			__builtin_memcpy(r.i_peer, &peer, 16);
			r.i_own_port = ownport;
			r.i_peer_port = peerport;
			r.i_have |= PFB_I_ENDS;
		}
	}
out:
	(void) bpf_seq_write(seq, &r, sizeof (r));
	return (0);
}
