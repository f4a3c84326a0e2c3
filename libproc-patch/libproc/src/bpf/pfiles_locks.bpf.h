/* SPDX-License-Identifier: BSD-2-Clause OR GPL-2.0-only */
/*
 * pfiles_locks.bpf.h: the locks held through a file, as fdinfo shows
 * them, for the BPF program; part of pfiles.bpf.c, which includes it
 * after what it uses (the scratch record, the reader's pid namespace),
 * and compiled only there.
 */
#ifndef	_PFILES_LOCKS_BPF_H
#define	_PFILES_LOCKS_BPF_H

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

#endif	/* _PFILES_LOCKS_BPF_H */
