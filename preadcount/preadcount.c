/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libpreadcount.so: count, per (libc entry, file), the calls through which
 * a process reads or writes a file or another process's memory, and the
 * netlink messages it sends and receives.
 *
 * The seed found pfiles' cost by counting preads with dtrace.  This library
 * is that measurement for Linux, as an LD_PRELOAD object:
 *
 *	LD_PRELOAD=build/libpreadcount.so PREADCOUNT_OUT=/tmp/pc.out prog
 *
 * At exit it appends one line per (call, path) pair to $PREADCOUNT_OUT:
 *
 *	CALL <TAB> PATH <TAB> CALLS <TAB> BYTES <NL>
 *
 * CALL is the libc entry the program called (pread, __pread_chk, preadv64,
 * ptrace:PEEKDATA, ...).  PATH is the fd's target as /proc/thread-self/fd
 * names it ("/proc/42/mem", "pipe:[1234]"), "pid:N" for process_vm_* and
 * ptrace, "netlink:P" for the netlink calls (below), and "fd:N" when the
 * fd could not be resolved (a bad fd).  Control bytes, DEL and backslash
 * in a path are written as \ooo (octal), as the kernel does in
 * /proc/self/mountinfo, so that a line is always one record.
 * BYTES sums the positive return values (for ptrace, sizeof (long) per
 * successful PEEK or POKE).  Pairs that do not fit the fixed tables are
 * summed per call on the PATH "(overflow)", so totals stay exact.
 *
 * Lines are appended with O_APPEND in writes of whole lines, so several
 * processes may share one output file; a reader sums lines with the same
 * pair.  The file is created (possibly empty) whenever the variable is set
 * and the process exits through a covered path; nothing at all is done
 * when PREADCOUNT_OUT is unset or empty.  A relative PREADCOUNT_OUT is
 * taken relative to the directory the process started in.
 *
 * What is covered at exit: return from main and exit() (an ELF
 * destructor), _exit(), _Exit() and quick_exit() called by the program
 * (wrapped here).  Not covered: death by a signal, abort(), exec (the old
 * image's counts are lost), and raw syscall(SYS_exit_group).  A child made
 * by fork() starts with empty counts and writes its own lines when it
 * exits; a vfork() child writes nothing (its pid differs from the
 * table's owner).
 *
 * Netlink traffic is counted too, and only netlink traffic: send, sendto
 * and sendmsg (messages sent) and recv, __recv_chk, recvfrom,
 * __recvfrom_chk and recvmsg (datagrams received, or attempts: a receive
 * that fails is a call of 0 bytes) on an AF_NETLINK socket, with PATH
 * "netlink:P", P the socket's netlink protocol (4 is NETLINK_SOCK_DIAG,
 * 0 NETLINK_ROUTE), summed over the process's sockets of that protocol.
 * On any other fd (a TCP or unix socket, a pipe, a bad fd) these calls
 * are passed through and not counted.  The fd is classified after the
 * real call returns, by getsockopt(SO_DOMAIN) and getsockopt(SO_PROTOCOL)
 * made as raw system calls: they change nothing in the socket, their
 * errno (ENOTSOCK, EBADF) is not let out, and they are made only when
 * PREADCOUNT_OUT is set.  Not cached: a socket's fd can be reused as
 * unseen as a file's, and two getsockopts cost what the cache's fstat
 * and a readlink would.
 *
 * What is not seen: reads and writes that glibc makes internally (stdio's
 * fread/fgets/printf, opendir/readdir, getaddrinfo's netlink, ...), which
 * call glibc's private __read or __recvmsg rather than the interposable
 * entry points, sendmmsg and recvmmsg (not wrapped), and raw syscall().
 *
 * The fd-to-path cache.  readlink of /proc/thread-self/fd/N costs a path
 * walk and a d_path, so the path is cached per fd.  An fd number can be
 * closed and reused for another file, and not only through close() and
 * dup2(): fclose() and closedir() close inside glibc where no wrapper sees
 * it.  So every counted call does one fstat() and compares st_dev/st_ino
 * with the cached entry; a mismatch re-reads the link.  One fstat per
 * counted call is the price of never naming the wrong file.  (If a file is
 * deleted and a new one gets the same inode number on the same fd, the
 * old name is kept: that is the one case the check cannot see.)
 *
 * Threads: a single mutex guards the tables; a thread-local flag keeps the
 * library from counting its own I/O and from re-entering itself (a signal
 * handler that reads while its thread is inside the counter is passed
 * through uncounted rather than deadlocking).  The wrappers never call
 * malloc.  The library's own output goes through raw syscall(SYS_write).
 *
 * Build this file without _FILE_OFFSET_BITS=64 (which would rename pread
 * to pread64 in the headers) and without _FORTIFY_SOURCE, and without
 * sanitizers: it is preloaded into arbitrary, possibly uninstrumented
 * programs, and ASan insists on being first in the library list.
 */

#undef	_FORTIFY_SOURCE
#ifdef	_FILE_OFFSET_BITS
#error	"build preadcount.c without _FILE_OFFSET_BITS: it defines pread and pread64 apart"
#endif

#include <sys/types.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The counted entries.  The names are what appears in the CALL column. */
enum pc_call {
	PC_PREAD, PC_PREAD64, PC_PREAD_CHK, PC_PREAD64_CHK,
	PC_PREADV, PC_PREADV64, PC_PREADV2, PC_PREADV64V2,
	PC_READ, PC_READ_CHK, PC_READV, PC_PROCESS_VM_READV,
	PC_PEEKTEXT, PC_PEEKDATA, PC_PEEKUSER,
	PC_PWRITE, PC_PWRITE64, PC_PWRITEV, PC_PWRITEV64,
	PC_PWRITEV2, PC_PWRITEV64V2, PC_WRITE, PC_WRITEV,
	PC_PROCESS_VM_WRITEV, PC_POKETEXT, PC_POKEDATA, PC_POKEUSER,
	PC_SEND, PC_SENDTO, PC_SENDMSG,
	PC_RECV, PC_RECV_CHK, PC_RECVFROM, PC_RECVFROM_CHK, PC_RECVMSG,
	PC_NCALLS
};

static const char *const pc_call_name[PC_NCALLS] = {
	[PC_PREAD] = "pread",
	[PC_PREAD64] = "pread64",
	[PC_PREAD_CHK] = "__pread_chk",
	[PC_PREAD64_CHK] = "__pread64_chk",
	[PC_PREADV] = "preadv",
	[PC_PREADV64] = "preadv64",
	[PC_PREADV2] = "preadv2",
	[PC_PREADV64V2] = "preadv64v2",
	[PC_READ] = "read",
	[PC_READ_CHK] = "__read_chk",
	[PC_READV] = "readv",
	[PC_PROCESS_VM_READV] = "process_vm_readv",
	[PC_PEEKTEXT] = "ptrace:PEEKTEXT",
	[PC_PEEKDATA] = "ptrace:PEEKDATA",
	[PC_PEEKUSER] = "ptrace:PEEKUSER",
	[PC_PWRITE] = "pwrite",
	[PC_PWRITE64] = "pwrite64",
	[PC_PWRITEV] = "pwritev",
	[PC_PWRITEV64] = "pwritev64",
	[PC_PWRITEV2] = "pwritev2",
	[PC_PWRITEV64V2] = "pwritev64v2",
	[PC_WRITE] = "write",
	[PC_WRITEV] = "writev",
	[PC_PROCESS_VM_WRITEV] = "process_vm_writev",
	[PC_POKETEXT] = "ptrace:POKETEXT",
	[PC_POKEDATA] = "ptrace:POKEDATA",
	[PC_POKEUSER] = "ptrace:POKEUSER",
	[PC_SEND] = "send",
	[PC_SENDTO] = "sendto",
	[PC_SENDMSG] = "sendmsg",
	[PC_RECV] = "recv",
	[PC_RECV_CHK] = "__recv_chk",
	[PC_RECVFROM] = "recvfrom",
	[PC_RECVFROM_CHK] = "__recvfrom_chk",
	[PC_RECVMSG] = "recvmsg",
};

/*
 * Table sizes.  They live in .bss: pages that are never touched cost no
 * memory.  pfiles on 10,000 sockets names 10,000 fdinfo files, so the path
 * table must hold tens of thousands of names.
 */
#define	PC_PATHSLOTS	65536		/* path hash slots (power of 2) */
#define	PC_POOLSIZE	(4 << 20)	/* bytes of interned path text */
#define	PC_PAIRSLOTS	131072		/* (call, path) slots (power of 2) */
#define	PC_PROBES	64		/* bound on linear probing */
#define	PC_FDCACHE	4096		/* fds below this have a cached path */
#define	PC_PATHMAX	(4 * PATH_MAX)	/* an escaped path */
#define	PC_OUTBUF	65536		/* dump buffer; always whole lines */

#define	PC_NOPATH	UINT32_MAX	/* "does not fit": count as overflow */

struct pc_pathslot {
	uint32_t	ps_hash;
	uint32_t	ps_off;		/* offset in pc_pool; 0 means empty */
	uint32_t	ps_len;
};

struct pc_pair {
	uint32_t	pp_call;	/* enum pc_call + 1; 0 means empty */
	uint32_t	pp_path;	/* index in pc_paths */
	uint64_t	pp_calls;
	uint64_t	pp_bytes;
};

struct pc_fdent {
	dev_t		fe_dev;
	ino_t		fe_ino;
	uint32_t	fe_path;
	int		fe_valid;
};

struct pc_total {
	uint64_t	t_calls;
	uint64_t	t_bytes;
};

static struct pc_pathslot pc_paths[PC_PATHSLOTS];
static char pc_pool[PC_POOLSIZE];
static size_t pc_pool_used = 1;		/* offset 0 marks an empty slot */
static struct pc_pair pc_pairs[PC_PAIRSLOTS];
static uint32_t pc_pairorder[PC_PAIRSLOTS];	/* used slots, first seen first */
static size_t pc_npairs;
static struct pc_total pc_overflow[PC_NCALLS];
static struct pc_fdent pc_fdcache[PC_FDCACHE];

static pthread_mutex_t pc_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t pc_once = PTHREAD_ONCE_INIT;

enum { PC_UNINIT, PC_OFF, PC_ON };
static atomic_int pc_state = PC_UNINIT;
static atomic_int pc_dumped;
static atomic_int pc_owner;		/* pid whose counts the tables hold */
static char pc_outpath[PATH_MAX];

/*
 * Set while this thread is inside the counter.  initial-exec: the library
 * is preloaded, so its TLS is static and reaching it never allocates.
 */
static __thread int pc_busy __attribute__((tls_model("initial-exec")));
static __thread int pc_forklocked __attribute__((tls_model("initial-exec")));

/*
 * The fortified entries: the headers declare them only under
 * _FORTIFY_SOURCE, which this file is built without.
 */
ssize_t __pread_chk(int, void *, size_t, off_t, size_t);
ssize_t __pread64_chk(int, void *, size_t, off64_t, size_t);
ssize_t __read_chk(int, void *, size_t, size_t);
ssize_t __recv_chk(int, void *, size_t, size_t, int);
ssize_t __recvfrom_chk(int, void *__restrict, size_t, size_t, int,
    __SOCKADDR_ARG, socklen_t *__restrict);

static void pc_atfork_prepare(void);
static void pc_atfork_parent(void);
static void pc_atfork_child(void);

static pid_t
pc_getpid(void)
{
	return ((pid_t)syscall(SYS_getpid));
}

/*
 * Read PREADCOUNT_OUT once.  A relative name is made absolute now, so that
 * a chdir() by the program does not move the output.
 */
static void
pc_init(void)
{
	const char *out = getenv("PREADCOUNT_OUT");
	size_t len, dlen = 0;

	if (out == NULL || out[0] == '\0') {
		atomic_store(&pc_state, PC_OFF);
		return;
	}
	len = strlen(out);
	if (out[0] != '/') {
		if (getcwd(pc_outpath, sizeof (pc_outpath)) == NULL) {
			atomic_store(&pc_state, PC_OFF);
			return;
		}
		dlen = strlen(pc_outpath);
		pc_outpath[dlen++] = '/';
	}
	if (dlen + len >= sizeof (pc_outpath)) {
		atomic_store(&pc_state, PC_OFF);
		return;
	}
	memcpy(pc_outpath + dlen, out, len + 1);
	atomic_store(&pc_owner, pc_getpid());
	(void) pthread_atfork(pc_atfork_prepare, pc_atfork_parent,
	    pc_atfork_child);
	atomic_store(&pc_state, PC_ON);
}

static int
pc_enabled(void)
{
	int s = atomic_load_explicit(&pc_state, memory_order_acquire);

	if (s == PC_UNINIT) {
		(void) pthread_once(&pc_once, pc_init);
		s = atomic_load(&pc_state);
	}
	return (s == PC_ON);
}

/* The next definition of NAME after this library, looked up once. */
static void *
pc_real(_Atomic(void *) *slot, const char *name)
{
	void *p = atomic_load_explicit(slot, memory_order_acquire);

	if (p == NULL) {
		p = dlsym(RTLD_NEXT, name);
		atomic_store_explicit(slot, p, memory_order_release);
	}
	return (p);
}

static ssize_t
pc_nosys(void)
{
	errno = ENOSYS;
	return (-1);
}

/* FNV-1a. */
static uint32_t
pc_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	return (h);
}

/* Append the decimal form of V at P; return the new end. */
static char *
pc_putu64(char *p, uint64_t v)
{
	char tmp[24];
	size_t n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v != 0);
	while (n > 0)
		*p++ = tmp[--n];
	return (p);
}

static char *
pc_putint(char *p, long v)
{
	if (v < 0) {
		*p++ = '-';
		return (pc_putu64(p, (uint64_t)0 - (uint64_t)v));
	}
	return (pc_putu64(p, (uint64_t)v));
}

/*
 * Copy SRC into DST (room for PC_PATHMAX bytes), escaping control bytes,
 * DEL and backslash as \ooo.  Return the escaped length.
 */
static size_t
pc_escape(char *dst, const char *src, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len && n + 4 <= PC_PATHMAX; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c < 0x20 || c == 0x7f || c == '\\') {
			dst[n++] = '\\';
			dst[n++] = (char)('0' + (c >> 6));
			dst[n++] = (char)('0' + ((c >> 3) & 7));
			dst[n++] = (char)('0' + (c & 7));
		} else {
			dst[n++] = (char)c;
		}
	}
	return (n);
}

/*
 * The index of the path S (already escaped) in pc_paths, adding it when
 * new; PC_NOPATH when the table or the pool is full.  Called locked.
 */
static uint32_t
pc_intern(const char *s, size_t len)
{
	uint32_t h = pc_hash(s, len);

	for (uint32_t i = 0; i < PC_PROBES; i++) {
		uint32_t slot = (h + i) & (PC_PATHSLOTS - 1);
		struct pc_pathslot *ps = &pc_paths[slot];

		if (ps->ps_off == 0) {
			if (len >= PC_POOLSIZE - pc_pool_used)
				return (PC_NOPATH);
			memcpy(pc_pool + pc_pool_used, s, len);
			ps->ps_off = (uint32_t)pc_pool_used;
			ps->ps_len = (uint32_t)len;
			ps->ps_hash = h;
			pc_pool_used += len;
			return (slot);
		}
		if (ps->ps_hash == h && ps->ps_len == len &&
		    memcmp(pc_pool + ps->ps_off, s, len) == 0)
			return (slot);
	}
	return (PC_NOPATH);
}

/* Intern "PREFIX" followed by the decimal N ("pid:42", "fd:7"). */
static uint32_t
pc_intern_num(const char *prefix, long n)
{
	char buf[32];
	size_t plen = strlen(prefix);
	char *end;

	memcpy(buf, prefix, plen);
	end = pc_putint(buf + plen, n);
	return (pc_intern(buf, (size_t)(end - buf)));
}

/* Read the link /proc/thread-self/fd/FD and intern it.  Called locked. */
static uint32_t
pc_readlink_fd(int fd)
{
	static char target[PATH_MAX], esc[PC_PATHMAX];
	char name[48] = "/proc/thread-self/fd/";
	char *end = pc_putint(name + strlen(name), fd);
	ssize_t n;

	*end = '\0';
	n = readlink(name, target, sizeof (target));
	if (n < 0)
		return (pc_intern_num("fd:", fd));
	return (pc_intern(esc, pc_escape(esc, target, (size_t)n)));
}

/*
 * The path of FD: from the cache when the fd still refers to the file the
 * cache saw (same st_dev and st_ino), else read afresh.  Called locked.
 */
static uint32_t
pc_fd_path(int fd)
{
	struct stat st;
	struct pc_fdent *fe;
	uint32_t path;

	if (fd < 0 || fstat(fd, &st) != 0)
		return (pc_intern_num("fd:", fd));
	if (fd >= PC_FDCACHE)
		return (pc_readlink_fd(fd));
	fe = &pc_fdcache[fd];
	if (fe->fe_valid && fe->fe_dev == st.st_dev && fe->fe_ino == st.st_ino)
		return (fe->fe_path);
	path = pc_readlink_fd(fd);
	fe->fe_dev = st.st_dev;
	fe->fe_ino = st.st_ino;
	fe->fe_path = path;
	fe->fe_valid = (path != PC_NOPATH);
	return (path);
}

/* Add one call of CALL on PATH that moved BYTES.  Called locked. */
static void
pc_add(enum pc_call call, uint32_t path, uint64_t bytes)
{
	uint32_t h;

	if (path == PC_NOPATH)
		goto overflow;
	h = (uint32_t)call * 0x9e3779b1u ^ path * 0x85ebca6bu;
	for (uint32_t i = 0; i < PC_PROBES; i++) {
		uint32_t slot = (h + i) & (PC_PAIRSLOTS - 1);
		struct pc_pair *pp = &pc_pairs[slot];

		if (pp->pp_call == 0) {
			pp->pp_call = (uint32_t)call + 1;
			pp->pp_path = path;
			pc_pairorder[pc_npairs++] = slot;
		}
		if (pp->pp_call == (uint32_t)call + 1 && pp->pp_path == path) {
			pp->pp_calls++;
			pp->pp_bytes += bytes;
			return;
		}
	}
overflow:
	pc_overflow[call].t_calls++;
	pc_overflow[call].t_bytes += bytes;
}

/*
 * Enter and leave the counter.  pc_enter fails when the library is off or
 * this thread is already inside it (its own I/O, or a signal handler that
 * interrupted it).
 */
static int
pc_enter(void)
{
	if (pc_busy || !pc_enabled())
		return (0);
	pc_busy = 1;
	(void) pthread_mutex_lock(&pc_lock);
	return (1);
}

static void
pc_leave(void)
{
	(void) pthread_mutex_unlock(&pc_lock);
	pc_busy = 0;
}

/* Count a call on FD that returned RET.  errno is kept. */
static void
pc_count_fd(enum pc_call call, int fd, ssize_t ret)
{
	int saved = errno;

	if (pc_enter()) {
		pc_add(call, pc_fd_path(fd), ret > 0 ? (uint64_t)ret : 0);
		pc_leave();
	}
	errno = saved;
}

/* Count a call on another process's memory or user area.  errno kept. */
static void
pc_count_pid(enum pc_call call, pid_t pid, uint64_t bytes)
{
	int saved = errno;

	if (pc_enter()) {
		pc_add(call, pc_intern_num("pid:", pid), bytes);
		pc_leave();
	}
	errno = saved;
}

/*
 * Is FD a netlink socket now?  Its netlink protocol in *PROTO (-1 when
 * it cannot be read).  Raw system calls, which change nothing; errno is
 * the caller's to restore.
 */
static int
pc_netlink(int fd, int *proto)
{
	int dom = -1;
	socklen_t len = sizeof (dom);

	if (fd < 0 || syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_DOMAIN, &dom,
	    &len) != 0 || len != sizeof (dom) || dom != AF_NETLINK)
		return (0);
	len = sizeof (*proto);
	if (syscall(SYS_getsockopt, fd, SOL_SOCKET, SO_PROTOCOL, proto,
	    &len) != 0 || len != sizeof (*proto))
		*proto = -1;
	return (1);
}

/*
 * Count a send or a receive on FD that returned RET, when FD is a
 * netlink socket; any other fd is not counted.  errno is kept.
 */
static void
pc_count_nl(enum pc_call call, int fd, ssize_t ret)
{
	int saved = errno, proto;

	if (pc_enter()) {
		if (pc_netlink(fd, &proto))
			pc_add(call, pc_intern_num("netlink:", proto),
			    ret > 0 ? (uint64_t)ret : 0);
		pc_leave();
	}
	errno = saved;
}

/* Write LEN bytes, whole, with raw system calls: never counted. */
static void
pc_writeall(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		long n = syscall(SYS_write, fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/*
 * Format one line into BUF (room for PC_PATHMAX + 128 bytes); return its
 * length.
 */
static size_t
pc_format(char *buf, enum pc_call call, const char *path, size_t plen,
    uint64_t calls, uint64_t bytes)
{
	const char *name = pc_call_name[call];
	size_t nlen = strlen(name);
	char *p = buf;

	memcpy(p, name, nlen);
	p += nlen;
	*p++ = '\t';
	memcpy(p, path, plen);
	p += plen;
	*p++ = '\t';
	p = pc_putu64(p, calls);
	*p++ = '\t';
	p = pc_putu64(p, bytes);
	*p++ = '\n';
	return ((size_t)(p - buf));
}

/* Buffered output of whole lines; each write holds only whole lines. */
struct pc_out {
	int	o_fd;
	size_t	o_len;
	char	o_buf[PC_OUTBUF];
};

static void
pc_emit(struct pc_out *o, enum pc_call call, const char *path, size_t plen,
    uint64_t calls, uint64_t bytes)
{
	if (o->o_len + PC_PATHMAX + 128 > sizeof (o->o_buf)) {
		pc_writeall(o->o_fd, o->o_buf, o->o_len);
		o->o_len = 0;
	}
	o->o_len += pc_format(o->o_buf + o->o_len, call, path, plen, calls,
	    bytes);
}

/*
 * Append every pair to PREADCOUNT_OUT, once per process.  Safe to call
 * from any exit path; the thread that calls it may already be inside the
 * counter (a signal handler calling _exit), in which case the tables are
 * read without the lock rather than deadlocking.
 */
static void
pc_dump(void)
{
	static struct pc_out out;
	int nested = pc_busy;

	if (!pc_enabled() || pc_getpid() != atomic_load(&pc_owner) ||
	    atomic_exchange(&pc_dumped, 1) != 0)
		return;
	pc_busy = 1;
	if (!nested)
		(void) pthread_mutex_lock(&pc_lock);

	out.o_len = 0;
	out.o_fd = open(pc_outpath, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC |
	    O_NOCTTY, 0644);
	if (out.o_fd >= 0) {
		for (size_t i = 0; i < pc_npairs; i++) {
			const struct pc_pair *pp = &pc_pairs[pc_pairorder[i]];
			const struct pc_pathslot *ps = &pc_paths[pp->pp_path];

			if (pp->pp_calls == 0)
				continue;
			pc_emit(&out, (enum pc_call)(pp->pp_call - 1),
			    pc_pool + ps->ps_off, ps->ps_len, pp->pp_calls,
			    pp->pp_bytes);
		}
		for (int c = 0; c < PC_NCALLS; c++) {
			if (pc_overflow[c].t_calls == 0)
				continue;
			pc_emit(&out, (enum pc_call)c, "(overflow)", 10,
			    pc_overflow[c].t_calls, pc_overflow[c].t_bytes);
		}
		pc_writeall(out.o_fd, out.o_buf, out.o_len);
		(void) close(out.o_fd);
	}

	if (!nested)
		(void) pthread_mutex_unlock(&pc_lock);
	pc_busy = nested;
}

/*
 * fork(): hold the lock across it so the child's copy of the tables is
 * consistent; the child then starts with empty counts of its own.
 */
static void
pc_atfork_prepare(void)
{
	pc_forklocked = 0;
	if (!pc_busy) {
		(void) pthread_mutex_lock(&pc_lock);
		pc_forklocked = 1;
	}
}

static void
pc_atfork_parent(void)
{
	if (pc_forklocked)
		(void) pthread_mutex_unlock(&pc_lock);
}

static void
pc_atfork_child(void)
{
	(void) pthread_mutex_init(&pc_lock, NULL);
	for (size_t i = 0; i < pc_npairs; i++) {
		pc_pairs[pc_pairorder[i]].pp_calls = 0;
		pc_pairs[pc_pairorder[i]].pp_bytes = 0;
	}
	memset(pc_overflow, 0, sizeof (pc_overflow));
	atomic_store(&pc_dumped, 0);
	atomic_store(&pc_owner, pc_getpid());
}

__attribute__((constructor)) static void
pc_ctor(void)
{
	(void) pc_enabled();
}

__attribute__((destructor)) static void
pc_dtor(void)
{
	pc_dump();
}

/*
 * The wrappers.  Each passes its arguments unchanged to the next
 * definition, then counts; errno is what the real call left.
 */
typedef ssize_t read_fn(int, void *, size_t);
typedef ssize_t read_chk_fn(int, void *, size_t, size_t);
typedef ssize_t pread_fn(int, void *, size_t, off_t);
typedef ssize_t pread64_fn(int, void *, size_t, off64_t);
typedef ssize_t pread_chk_fn(int, void *, size_t, off_t, size_t);
typedef ssize_t pread64_chk_fn(int, void *, size_t, off64_t, size_t);
typedef ssize_t readv_fn(int, const struct iovec *, int);
typedef ssize_t preadv_fn(int, const struct iovec *, int, off_t);
typedef ssize_t preadv64_fn(int, const struct iovec *, int, off64_t);
typedef ssize_t preadv2_fn(int, const struct iovec *, int, off_t, int);
typedef ssize_t preadv64v2_fn(int, const struct iovec *, int, off64_t, int);
typedef ssize_t write_fn(int, const void *, size_t);
typedef ssize_t pwrite_fn(int, const void *, size_t, off_t);
typedef ssize_t pwrite64_fn(int, const void *, size_t, off64_t);
typedef ssize_t vm_rw_fn(pid_t, const struct iovec *, unsigned long,
    const struct iovec *, unsigned long, unsigned long);
typedef long ptrace_fn(enum __ptrace_request, pid_t, void *, void *);
typedef ssize_t send_fn(int, const void *, size_t, int);
typedef ssize_t sendto_fn(int, const void *, size_t, int,
    __CONST_SOCKADDR_ARG, socklen_t);
typedef ssize_t sendmsg_fn(int, const struct msghdr *, int);
typedef ssize_t recv_fn(int, void *, size_t, int);
typedef ssize_t recv_chk_fn(int, void *, size_t, size_t, int);
typedef ssize_t recvfrom_fn(int, void *__restrict, size_t, int,
    __SOCKADDR_ARG, socklen_t *__restrict);
typedef ssize_t recvfrom_chk_fn(int, void *__restrict, size_t, size_t, int,
    __SOCKADDR_ARG, socklen_t *__restrict);
typedef ssize_t recvmsg_fn(int, struct msghdr *, int);
typedef void exit_fn(int);

ssize_t
read(int fd, void *buf, size_t n)
{
	static _Atomic(void *) real;
	read_fn *fn = (read_fn *)pc_real(&real, "read");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n);
	pc_count_fd(PC_READ, fd, r);
	return (r);
}

ssize_t
__read_chk(int fd, void *buf, size_t n, size_t buflen)
{
	static _Atomic(void *) real;
	read_chk_fn *fn = (read_chk_fn *)pc_real(&real, "__read_chk");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, buflen);
	pc_count_fd(PC_READ_CHK, fd, r);
	return (r);
}

ssize_t
pread(int fd, void *buf, size_t n, off_t off)
{
	static _Atomic(void *) real;
	pread_fn *fn = (pread_fn *)pc_real(&real, "pread");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, off);
	pc_count_fd(PC_PREAD, fd, r);
	return (r);
}

ssize_t
pread64(int fd, void *buf, size_t n, off64_t off)
{
	static _Atomic(void *) real;
	pread64_fn *fn = (pread64_fn *)pc_real(&real, "pread64");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, off);
	pc_count_fd(PC_PREAD64, fd, r);
	return (r);
}

ssize_t
__pread_chk(int fd, void *buf, size_t n, off_t off, size_t buflen)
{
	static _Atomic(void *) real;
	pread_chk_fn *fn = (pread_chk_fn *)pc_real(&real, "__pread_chk");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, off, buflen);
	pc_count_fd(PC_PREAD_CHK, fd, r);
	return (r);
}

ssize_t
__pread64_chk(int fd, void *buf, size_t n, off64_t off, size_t buflen)
{
	static _Atomic(void *) real;
	pread64_chk_fn *fn = (pread64_chk_fn *)pc_real(&real, "__pread64_chk");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, off, buflen);
	pc_count_fd(PC_PREAD64_CHK, fd, r);
	return (r);
}

ssize_t
readv(int fd, const struct iovec *iov, int iovcnt)
{
	static _Atomic(void *) real;
	readv_fn *fn = (readv_fn *)pc_real(&real, "readv");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt);
	pc_count_fd(PC_READV, fd, r);
	return (r);
}

ssize_t
preadv(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
	static _Atomic(void *) real;
	preadv_fn *fn = (preadv_fn *)pc_real(&real, "preadv");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt, off);
	pc_count_fd(PC_PREADV, fd, r);
	return (r);
}

ssize_t
preadv64(int fd, const struct iovec *iov, int iovcnt, off64_t off)
{
	static _Atomic(void *) real;
	preadv64_fn *fn = (preadv64_fn *)pc_real(&real, "preadv64");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt, off);
	pc_count_fd(PC_PREADV64, fd, r);
	return (r);
}

ssize_t
preadv2(int fd, const struct iovec *iov, int iovcnt, off_t off, int flags)
{
	static _Atomic(void *) real;
	preadv2_fn *fn = (preadv2_fn *)pc_real(&real, "preadv2");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt, off, flags);
	pc_count_fd(PC_PREADV2, fd, r);
	return (r);
}

ssize_t
preadv64v2(int fd, const struct iovec *iov, int iovcnt, off64_t off,
    int flags)
{
	static _Atomic(void *) real;
	preadv64v2_fn *fn = (preadv64v2_fn *)pc_real(&real, "preadv64v2");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt, off, flags);
	pc_count_fd(PC_PREADV64V2, fd, r);
	return (r);
}

ssize_t
write(int fd, const void *buf, size_t n)
{
	static _Atomic(void *) real;
	write_fn *fn = (write_fn *)pc_real(&real, "write");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n);
	pc_count_fd(PC_WRITE, fd, r);
	return (r);
}

ssize_t
writev(int fd, const struct iovec *iov, int iovcnt)
{
	static _Atomic(void *) real;
	readv_fn *fn = (readv_fn *)pc_real(&real, "writev");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt);
	pc_count_fd(PC_WRITEV, fd, r);
	return (r);
}

ssize_t
pwrite(int fd, const void *buf, size_t n, off_t off)
{
	static _Atomic(void *) real;
	pwrite_fn *fn = (pwrite_fn *)pc_real(&real, "pwrite");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, off);
	pc_count_fd(PC_PWRITE, fd, r);
	return (r);
}

ssize_t
pwrite64(int fd, const void *buf, size_t n, off64_t off)
{
	static _Atomic(void *) real;
	pwrite64_fn *fn = (pwrite64_fn *)pc_real(&real, "pwrite64");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, off);
	pc_count_fd(PC_PWRITE64, fd, r);
	return (r);
}

ssize_t
pwritev(int fd, const struct iovec *iov, int iovcnt, off_t off)
{
	static _Atomic(void *) real;
	preadv_fn *fn = (preadv_fn *)pc_real(&real, "pwritev");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt, off);
	pc_count_fd(PC_PWRITEV, fd, r);
	return (r);
}

ssize_t
pwritev64(int fd, const struct iovec *iov, int iovcnt, off64_t off)
{
	static _Atomic(void *) real;
	preadv64_fn *fn = (preadv64_fn *)pc_real(&real, "pwritev64");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt, off);
	pc_count_fd(PC_PWRITEV64, fd, r);
	return (r);
}

ssize_t
pwritev2(int fd, const struct iovec *iov, int iovcnt, off_t off, int flags)
{
	static _Atomic(void *) real;
	preadv2_fn *fn = (preadv2_fn *)pc_real(&real, "pwritev2");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt, off, flags);
	pc_count_fd(PC_PWRITEV2, fd, r);
	return (r);
}

ssize_t
pwritev64v2(int fd, const struct iovec *iov, int iovcnt, off64_t off,
    int flags)
{
	static _Atomic(void *) real;
	preadv64v2_fn *fn = (preadv64v2_fn *)pc_real(&real, "pwritev64v2");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, iov, iovcnt, off, flags);
	pc_count_fd(PC_PWRITEV64V2, fd, r);
	return (r);
}

ssize_t
process_vm_readv(pid_t pid, const struct iovec *local, unsigned long nlocal,
    const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
	static _Atomic(void *) real;
	vm_rw_fn *fn = (vm_rw_fn *)pc_real(&real, "process_vm_readv");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(pid, local, nlocal, remote, nremote, flags);
	pc_count_pid(PC_PROCESS_VM_READV, pid, r > 0 ? (uint64_t)r : 0);
	return (r);
}

ssize_t
process_vm_writev(pid_t pid, const struct iovec *local, unsigned long nlocal,
    const struct iovec *remote, unsigned long nremote, unsigned long flags)
{
	static _Atomic(void *) real;
	vm_rw_fn *fn = (vm_rw_fn *)pc_real(&real, "process_vm_writev");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(pid, local, nlocal, remote, nremote, flags);
	pc_count_pid(PC_PROCESS_VM_WRITEV, pid, r > 0 ? (uint64_t)r : 0);
	return (r);
}

/* The counted ptrace requests; PC_NCALLS for the others. */
static enum pc_call
pc_ptrace_call(int request)
{
	switch (request) {
	case PTRACE_PEEKTEXT:	return (PC_PEEKTEXT);
	case PTRACE_PEEKDATA:	return (PC_PEEKDATA);
	case PTRACE_PEEKUSER:	return (PC_PEEKUSER);
	case PTRACE_POKETEXT:	return (PC_POKETEXT);
	case PTRACE_POKEDATA:	return (PC_POKEDATA);
	case PTRACE_POKEUSER:	return (PC_POKEUSER);
	default:		return (PC_NCALLS);
	}
}

/*
 * ptrace is variadic.  glibc's own ptrace takes pid, addr and data from
 * the va_list whatever the request, so this wrapper does the same and
 * passes all three on.  For the PEEK requests glibc returns the word read
 * and sets errno to 0 on success, since -1 may be a valid word; success
 * is therefore "ret != -1 || errno == 0".
 */
long
ptrace(enum __ptrace_request request, ...)
{
	static _Atomic(void *) real;
	ptrace_fn *fn = (ptrace_fn *)pc_real(&real, "ptrace");
	enum pc_call call = pc_ptrace_call((int)request);
	va_list ap;
	pid_t pid;
	void *addr, *data;
	long r;
	int ok;

	va_start(ap, request);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (fn == NULL)
		return (pc_nosys());
	r = fn(request, pid, addr, data);
	if (call != PC_NCALLS) {
		if (call == PC_PEEKTEXT || call == PC_PEEKDATA ||
		    call == PC_PEEKUSER)
			ok = (r != -1 || errno == 0);
		else
			ok = (r == 0);
		pc_count_pid(call, pid, ok ? sizeof (long) : 0);
	}
	return (r);
}

/*
 * Netlink: messages sent and datagrams received, counted only on
 * AF_NETLINK sockets (pc_count_nl).
 */
ssize_t
send(int fd, const void *buf, size_t n, int flags)
{
	static _Atomic(void *) real;
	send_fn *fn = (send_fn *)pc_real(&real, "send");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, flags);
	pc_count_nl(PC_SEND, fd, r);
	return (r);
}

ssize_t
sendto(int fd, const void *buf, size_t n, int flags,
    __CONST_SOCKADDR_ARG addr, socklen_t addrlen)
{
	static _Atomic(void *) real;
	sendto_fn *fn = (sendto_fn *)pc_real(&real, "sendto");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, flags, addr, addrlen);
	pc_count_nl(PC_SENDTO, fd, r);
	return (r);
}

ssize_t
sendmsg(int fd, const struct msghdr *msg, int flags)
{
	static _Atomic(void *) real;
	sendmsg_fn *fn = (sendmsg_fn *)pc_real(&real, "sendmsg");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, msg, flags);
	pc_count_nl(PC_SENDMSG, fd, r);
	return (r);
}

ssize_t
recv(int fd, void *buf, size_t n, int flags)
{
	static _Atomic(void *) real;
	recv_fn *fn = (recv_fn *)pc_real(&real, "recv");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, flags);
	pc_count_nl(PC_RECV, fd, r);
	return (r);
}

ssize_t
__recv_chk(int fd, void *buf, size_t n, size_t buflen, int flags)
{
	static _Atomic(void *) real;
	recv_chk_fn *fn = (recv_chk_fn *)pc_real(&real, "__recv_chk");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, buflen, flags);
	pc_count_nl(PC_RECV_CHK, fd, r);
	return (r);
}

ssize_t
recvfrom(int fd, void *__restrict buf, size_t n, int flags,
    __SOCKADDR_ARG addr, socklen_t *__restrict addrlen)
{
	static _Atomic(void *) real;
	recvfrom_fn *fn = (recvfrom_fn *)pc_real(&real, "recvfrom");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, flags, addr, addrlen);
	pc_count_nl(PC_RECVFROM, fd, r);
	return (r);
}

ssize_t
__recvfrom_chk(int fd, void *__restrict buf, size_t n, size_t buflen,
    int flags, __SOCKADDR_ARG addr, socklen_t *__restrict addrlen)
{
	static _Atomic(void *) real;
	recvfrom_chk_fn *fn = (recvfrom_chk_fn *)pc_real(&real,
	    "__recvfrom_chk");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, buf, n, buflen, flags, addr, addrlen);
	pc_count_nl(PC_RECVFROM_CHK, fd, r);
	return (r);
}

ssize_t
recvmsg(int fd, struct msghdr *msg, int flags)
{
	static _Atomic(void *) real;
	recvmsg_fn *fn = (recvmsg_fn *)pc_real(&real, "recvmsg");
	ssize_t r;

	if (fn == NULL)
		return (pc_nosys());
	r = fn(fd, msg, flags);
	pc_count_nl(PC_RECVMSG, fd, r);
	return (r);
}

/*
 * The exits that skip ELF destructors: write the counts, then go on to
 * the real call.  Should that not exist, leave by the system call.
 */
static _Noreturn void
pc_exit_through(_Atomic(void *) *real, const char *name, int status)
{
	exit_fn *fn;

	pc_dump();
	fn = (exit_fn *)pc_real(real, name);
	if (fn != NULL)
		fn(status);
	for (;;)
		(void) syscall(SYS_exit_group, status);
}

void
_exit(int status)
{
	static _Atomic(void *) real;

	pc_exit_through(&real, "_exit", status);
}

void
_Exit(int status)
{
	static _Atomic(void *) real;

	pc_exit_through(&real, "_Exit", status);
}

void
quick_exit(int status)
{
	static _Atomic(void *) real;

	pc_exit_through(&real, "quick_exit", status);
}
