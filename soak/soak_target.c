/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * soak_target: the soak's self-checking targets (make soak, soak/soak.sh).
 *
 *	soak_target MODE DIR	a target of kind MODE (soak_modes.c,
 *				soak_blocked.c) that registers in DIR's ctl
 *				and keeps its heartbeat in DIR/hb.N; it says
 *				"ready" on stdout once made
 *	soak_target hog		a busy loop (a CPU kept busy), for
 *				$SOAK_LIFE seconds at most
 *
 * Every target, whatever its mode, checks itself all along and says what
 * it finds on stderr, one line each ("soak_target KIND[PID]: FAIL CAT
 * (run N): WHAT", N the latest run of pfiles at it), counting them in its
 * heartbeat file for the watchdog; it goes on running:
 *
 *  - a heartbeat thread beats every millisecond (its nanosleep of 1 ms
 *    checked against CLOCK_MONOTONIC: never early, never EINTR, as it
 *    blocks every signal), and queues each gap of 5 ms or more;
 *  - a checker thread, every 100 ms (a second for large tables): every
 *    fd it made is still there and still the same file (fstat), and, at
 *    a quiet check (no run of pfiles at it from before the check to
 *    after), no fd it did not make is there at two quiet checks running
 *    with the same inode (pfiles' socket or duplicate left in it), and no
 *    anonymous executable mapping came or went;
 *  - the main thread (most modes) runs loops holding known values in
 *    callee-saved registers, checks a pattern's checksum and its own
 *    signal mask, and sleeps a known time, checked.
 *
 * It ends by itself after $SOAK_LIFE seconds (default 600), or when its
 * parent does (PR_SET_PDEATHSIG).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "soak_target.h"

#define	FD_MAX		32768		/* the fds it can know */
#define	FAIL_LINES	5		/* lines said of each category */
#define	SPINS		200000		/* a loop of about 100 us */
#define	PATTERN		4096

soak_target_t T;
pthread_mutex_t soak_fd_mu = PTHREAD_MUTEX_INITIALIZER;

static const char *const cat_name[C_NCATS] = {
	"fd-left", "fd-gone", "fd-swapped", "mask", "registers", "memory",
	"eintr", "early", "woken", "maps", "exec", "setup"
};

/* The fds it knows, by number: (dev, ino) when known[fd]. */
static struct { uint64_t dev, ino; } fd_id[FD_MAX];
static unsigned char fd_known[FD_MAX];
static uint32_t fd_seen[FD_MAX];
static int fd_hi;			/* above the highest known */
static int procfd = -1, mapsfd = -1;	/* its own /proc files */
static int64_t check_ns;
static int anon_exec = -1;		/* anonymous executable maps */
static unsigned char pattern[PATTERN];
static uint64_t pattern_sum;

void
fail(int cat, const char *fmt, ...)
{
	soak_slot_t s;
	char msg[512], line[700];
	va_list ap;
	int n;

	(void) __atomic_add_fetch(&T.t_hb->h_failures, 1, __ATOMIC_SEQ_CST);
	if (__atomic_add_fetch(&T.t_hb->h_cat[cat], 1, __ATOMIC_SEQ_CST) >
	    FAIL_LINES)
		return;
	va_start(ap, fmt);
	(void) vsnprintf(msg, sizeof (msg), fmt, ap);
	va_end(ap);
	soak_slot_read(T.t_slot, &s);
	n = snprintf(line, sizeof (line), "soak_target %s[%d]: FAIL %s "
	    "(run %llu): %s\n", T.t_kind, (int)getpid(), cat_name[cat],
	    (unsigned long long)soak_slot_last(&s).r_id, msg);
	if (n > 0)
		(void) write(2, line, (size_t)n < sizeof (line) ? (size_t)n :
		    sizeof (line) - 1);
}

void
die_setup(const char *what)
{
	(void) fprintf(stderr, "soak_target %s: %s: %s\n", T.t_kind, what,
	    strerror(errno));
	exit(1);
}

unsigned
soak_rand(unsigned *seed)
{
	*seed = *seed * 1103515245u + 12345u;
	return (*seed >> 8);
}

/* ------------------------------------------------------------------ */
/* Its fds. */

void
fd_note_locked(int fd)
{
	struct stat st;

	if (fd < 0 || fd >= FD_MAX || fstat(fd, &st) != 0)
		return;
	fd_id[fd].dev = st.st_dev;
	fd_id[fd].ino = st.st_ino;
	fd_known[fd] = 1;
	if (fd >= fd_hi)
		fd_hi = fd + 1;
}

int
fd_note(int fd)
{
	(void) pthread_mutex_lock(&soak_fd_mu);
	fd_note_locked(fd);
	(void) pthread_mutex_unlock(&soak_fd_mu);
	return (fd);
}

void
fd_drop_locked(int fd)
{
	if (fd >= 0 && fd < FD_MAX)
		fd_known[fd] = 0;
	(void) close(fd);
}

/* An fd noted, and named to an exec storm's next image as its own. */
static void
fd_hand_on(int fd)
{
	soak_hb_t *h = T.t_hb;

	(void) fd_note(fd);
	if (fd < 0 || fd >= FD_MAX || !fd_known[fd] ||
	    h->h_nkeep >= SOAK_KEEP)
		return;
	h->h_keep[h->h_nkeep].f_fd = fd;
	h->h_keep[h->h_nkeep].f_dev = fd_id[fd].dev;
	h->h_keep[h->h_nkeep].f_ino = fd_id[fd].ino;
	h->h_nkeep++;
}

/* An exec storm's fd: open across exec, and handed on. */
void
fd_keep_across_exec(int fd)
{
	if (fd < 0 || fcntl(fd, F_SETFD, 0) != 0)
		die_setup("an fd kept across exec");
	fd_hand_on(fd);
}

/* What a new image inherits: each kept fd is still the same file. */
static void
check_kept(void)
{
	const soak_hb_t *h = T.t_hb;

	for (uint32_t i = 0; i < h->h_nkeep && i < SOAK_KEEP; i++) {
		const soak_fd_t *k = &h->h_keep[i];
		struct stat st;

		if (fstat(k->f_fd, &st) != 0)
			fail(C_EXEC, "fd %d, kept across exec, is gone: %s",
			    k->f_fd, strerror(errno));
		else if (st.st_dev != k->f_dev || st.st_ino != k->f_ino)
			fail(C_EXEC, "fd %d, kept across exec, is another "
			    "file (inode %llu, was %llu)", k->f_fd,
			    (unsigned long long)st.st_ino,
			    (unsigned long long)k->f_ino);
		(void) fd_note(k->f_fd);
	}
}

/*
 * Every fd open now noted as its own (at start-up, before any run), and
 * handed on: it was inherited, and an exec keeps it (unless it has
 * FD_CLOEXEC: then the next image has not it, as it should not).
 */
static void
note_all_open(void)
{
	struct rlimit rl;
	int top = 1024;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < FD_MAX)
		top = (int)rl.rlim_cur;
	for (int fd = 0; fd < top; fd++) {
		int fl = fcntl(fd, F_GETFD);

		if (fl >= 0 && !(fl & FD_CLOEXEC))
			fd_hand_on(fd);
		else if (fl >= 0)
			(void) fd_note(fd);
	}
}

/* ------------------------------------------------------------------ */
/* Signal masks, sleeps, registers. */

static uint64_t
mask_bits(const sigset_t *s)
{
	uint64_t b = 0;

	for (int i = 1; i <= 64; i++)
		if (sigismember(s, i) == 1)
			b |= 1ULL << (i - 1);
	return (b);
}

uint64_t
my_mask(void)
{
	sigset_t s;

	(void) sigemptyset(&s);
	(void) pthread_sigmask(SIG_BLOCK, NULL, &s);
	return (mask_bits(&s));
}

/* Block every signal in this thread; its mask as it is then. */
uint64_t
block_all(void)
{
	sigset_t all;

	(void) sigfillset(&all);
	(void) pthread_sigmask(SIG_SETMASK, &all, NULL);
	return (my_mask());
}

/* Is this thread's mask *want?  Said once a change: *want follows it. */
void
check_mask(uint64_t *want, const char *who)
{
	uint64_t m = my_mask();

	if (m == *want)
		return;
	fail(C_MASK, "%s: signal mask %#llx, was %#llx", who,
	    (unsigned long long)m, (unsigned long long)*want);
	*want = m;
}

/*
 * Sleep ns, checked: never shorter than asked (measured on
 * CLOCK_MONOTONIC around the call), and never EINTR unless eintr_ok (a
 * thread whose signals are all blocked is interrupted by nothing).
 */
void
sleep_checked(int64_t ns, int eintr_ok, const char *who)
{
	struct timespec req = { (time_t)(ns / 1000000000LL),
	    (long)(ns % 1000000000LL) }, rem;
	int64_t t0 = soak_now(), took;
	int r;

	while ((r = clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem)) ==
	    EINTR) {
		if (!eintr_ok)
			fail(C_EINTR, "%s: a nanosleep of %lld us failed "
			    "EINTR", who, (long long)(ns / 1000));
		req = rem;
	}
	took = soak_now() - t0;
	if (r != 0)
		fail(C_EARLY, "%s: clock_nanosleep: %s", who, strerror(r));
	else if (took < ns)
		fail(C_EARLY, "%s: a nanosleep of %lld us ended after %lld us",
		    who, (long long)(ns / 1000), (long long)(took / 1000));
}

/*
 * Hold seed, seed + 1, ... in callee-saved registers through a loop of
 * spins, and store what they hold after it into out: the number of
 * registers held (0 on an ISA without its assembly).
 */
static int
regs_hold(uint64_t seed, long spins, uint64_t out[5])
{
#if defined(__x86_64__)
	__asm__ volatile(
	    "movq %[s], %%rbx\n\t"
	    "leaq 1(%[s]), %%r12\n\t"
	    "leaq 2(%[s]), %%r13\n\t"
	    "leaq 3(%[s]), %%r14\n\t"
	    "leaq 4(%[s]), %%r15\n"
	    "1:\n\t"
	    "decq %[n]\n\t"
	    "jnz 1b\n\t"
	    "movq %%rbx, 0(%[o])\n\t"
	    "movq %%r12, 8(%[o])\n\t"
	    "movq %%r13, 16(%[o])\n\t"
	    "movq %%r14, 24(%[o])\n\t"
	    "movq %%r15, 32(%[o])\n\t"
	    : [n] "+r" (spins)
	    : [s] "r" (seed), [o] "r" (out)
	    : "rbx", "r12", "r13", "r14", "r15", "cc", "memory");
	return (5);
#elif defined(__aarch64__)
	__asm__ volatile(
	    "mov x19, %[s]\n\t"
	    "add x20, %[s], #1\n\t"
	    "add x21, %[s], #2\n\t"
	    "add x22, %[s], #3\n\t"
	    "add x23, %[s], #4\n"
	    "1:\n\t"
	    "subs %[n], %[n], #1\n\t"
	    "b.ne 1b\n\t"
	    "stp x19, x20, [%[o]]\n\t"
	    "stp x21, x22, [%[o], #16]\n\t"
	    "str x23, [%[o], #32]\n\t"
	    : [n] "+r" (spins)
	    : [s] "r" (seed), [o] "r" (out)
	    : "x19", "x20", "x21", "x22", "x23", "cc", "memory");
	return (5);
#else
	for (volatile long i = 0; i < spins; i++)
		;
	(void) seed;
	(void) out;
	return (0);
#endif
}

static uint64_t
sum_pattern(void)
{
	uint64_t h = 14695981039346656037ULL;

	for (size_t i = 0; i < PATTERN; i++)
		h = (h ^ pattern[i]) * 1099511628211ULL;
	return (h);
}

/* One loop with known registers, then the pattern's checksum. */
void
burst(void)
{
	static __thread uint64_t round;
	uint64_t seed = 0x5eed000000000000ULL + (++round << 8), out[5];
	int n = regs_hold(seed, SPINS, out);

	for (int i = 0; i < n; i++)
		if (out[i] != seed + (uint64_t)i)
			fail(C_REGS, "callee-saved register %d held %#llx "
			    "after a loop, not %#llx", i,
			    (unsigned long long)out[i],
			    (unsigned long long)(seed + (uint64_t)i));
	if (sum_pattern() != pattern_sum)
		fail(C_MEMORY, "the checksum of its pattern changed");
}

void
work_loop(int64_t sleep_ns, int eintr_ok, const char *who)
{
	uint64_t want = my_mask();

	for (;;) {
		burst();
		check_mask(&want, who);
		if (sleep_ns > 0)
			sleep_checked(sleep_ns, eintr_ok, who);
	}
}

pthread_t
spawn(void *(*fn)(void *), void *arg, int detached)
{
	pthread_attr_t a;
	pthread_t t;
	int err;

	(void) pthread_attr_init(&a);
	(void) pthread_attr_setstacksize(&a, 256 * 1024);
	if (detached)
		(void) pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	err = pthread_create(&t, &a, fn, arg);
	(void) pthread_attr_destroy(&a);
	if (err != 0) {
		errno = err;
		die_setup("pthread_create");
	}
	return (t);
}

/* ------------------------------------------------------------------ */
/* The checker. */

struct dirent64 {
	uint64_t	d_ino;
	int64_t		d_off;
	unsigned short	d_reclen;
	unsigned char	d_type;
	char		d_name[];
};

typedef struct unknown {
	size_t		u_n;
	soak_fd_t	u_fd[SOAK_SUSPECTS];
} unknown_t;

/* Is no run of pfiles at it now?  The slot's sequence number, into *seq. */
static int
quiet_now(uint32_t *seq)
{
	soak_slot_t s;
	soak_run_t r;

	*seq = __atomic_load_n(&T.t_slot->s_seq, __ATOMIC_ACQUIRE);
	soak_slot_read(T.t_slot, &s);
	r = soak_slot_last(&s);
	return (!(*seq & 1) && (r.r_id == 0 || r.r_end_ns != 0));
}

/* One fd of the listing: its own still the same file, else unknown. */
static void
check_one_fd(int fd, uint32_t gen, unknown_t *u)
{
	struct stat st;

	if (fd >= FD_MAX || fstat(fd, &st) != 0)
		return;		/* closed meanwhile */
	fd_seen[fd] = gen;
	if (fd_known[fd]) {
		if (st.st_dev == fd_id[fd].dev && st.st_ino == fd_id[fd].ino)
			return;
		fail(C_FD_SWAPPED, "fd %d is another file (inode %llu, was "
		    "%llu)", fd, (unsigned long long)st.st_ino,
		    (unsigned long long)fd_id[fd].ino);
		fd_id[fd].dev = st.st_dev;
		fd_id[fd].ino = st.st_ino;
	} else if (u->u_n < SOAK_SUSPECTS) {
		u->u_fd[u->u_n++] = (soak_fd_t){ .f_fd = fd,
		    .f_dev = st.st_dev, .f_ino = st.st_ino };
	}
}

/*
 * Its fd table, listed through the directory fd it keeps (no fd is made
 * to look): each of its own fds checked; the others into u.
 */
static void
scan_fds(unknown_t *u)
{
	static uint32_t gen;
	char buf[16384];
	long n;

	u->u_n = 0;
	(void) pthread_mutex_lock(&soak_fd_mu);
	gen++;
	(void) lseek(procfd, 0, SEEK_SET);
	while ((n = syscall(SYS_getdents64, procfd, buf, sizeof (buf))) > 0) {
		for (long off = 0; off < n; ) {
			struct dirent64 *d = (struct dirent64 *)(void *)
			    (buf + off);

			if (d->d_name[0] >= '0' && d->d_name[0] <= '9')
				check_one_fd(atoi(d->d_name), gen, u);
			off += d->d_reclen;
		}
	}
	for (int fd = 0; fd < fd_hi; fd++) {
		if (!fd_known[fd] || fd_seen[fd] == gen)
			continue;
		fail(C_FD_GONE, "fd %d, its own, was closed (not by it)", fd);
		fd_known[fd] = 0;
	}
	(void) pthread_mutex_unlock(&soak_fd_mu);
}

/*
 * At a quiet check: an fd it did not make, there at the last quiet check
 * too with the same inode, was left in it.  Said once; the unknown fds
 * of this check are the suspects of the next (kept in its heartbeat
 * file: an exec storm's next image judges them).
 */
static void
judge_unknown(const unknown_t *u)
{
	soak_hb_t *h = T.t_hb;
	soak_fd_t next[SOAK_SUSPECTS];

	for (size_t i = 0; i < u->u_n; i++) {
		soak_fd_t f = u->u_fd[i];

		for (uint32_t j = 0; j < h->h_nsus && j < SOAK_SUSPECTS; j++) {
			const soak_fd_t *s = &h->h_sus[j];
			char link[256] = "?", name[16];
			ssize_t l;

			if (s->f_fd != f.f_fd || s->f_ino != f.f_ino ||
			    s->f_dev != f.f_dev)
				continue;
			f.f_pad = s->f_pad;
			if (s->f_pad)
				break;		/* said already */
			(void) snprintf(name, sizeof (name), "%d", f.f_fd);
			l = readlinkat(procfd, name, link, sizeof (link) - 1);
			link[l > 0 ? l : 1] = '\0';
			fail(C_FD_LEFT, "fd %d (%s) was left in it: it did "
			    "not open it, and it stayed", f.f_fd, link);
			f.f_pad = 1;
			break;
		}
		next[i] = f;
	}
	memcpy(h->h_sus, next, u->u_n * sizeof (next[0]));
	h->h_nsus = (uint32_t)u->u_n;
}

/* Its anonymous executable mappings (its code is all in files). */
static int
count_anon_exec(void)
{
	static char buf[1 << 16];
	size_t len = 0;
	ssize_t n;
	int count = 0;

	(void) lseek(mapsfd, 0, SEEK_SET);
	while (len < sizeof (buf) - 1 &&
	    (n = read(mapsfd, buf + len, sizeof (buf) - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	for (char *l = buf; l != NULL && *l != '\0'; ) {
		char *nl = strchr(l, '\n'), perms[8] = "";
		unsigned long long ino = 1;
		int at = 0;

		if (nl != NULL)
			*nl = '\0';
		if (sscanf(l, "%*s %7s %*s %*s %llu %n", perms, &ino,
		    &at) >= 2 && perms[2] == 'x' && ino == 0 &&
		    l[at] != '[')
			count++;
		l = nl != NULL ? nl + 1 : NULL;
	}
	return (count);
}

static void
check_once(void)
{
	unknown_t u;
	uint32_t seq;
	int quiet = quiet_now(&seq), ax;

	scan_fds(&u);
	ax = quiet ? count_anon_exec() : -1;
	if (!quiet || __atomic_load_n(&T.t_slot->s_seq, __ATOMIC_ACQUIRE) !=
	    seq)
		return;		/* a run came meanwhile */
	judge_unknown(&u);
	if (anon_exec < 0) {
		anon_exec = ax;
	} else if (ax != anon_exec) {
		fail(C_MAPS, "%d anonymous executable mappings, were %d", ax,
		    anon_exec);
		anon_exec = ax;
	}
}

static void *
checker(void *arg)
{
	uint64_t mine = block_all();

	(void) arg;
	for (;;) {
		check_once();
		check_mask(&mine, "checker");
		if (soak_now() > T.t_hb->h_life_ns)
			_exit(0);
		sleep_checked(check_ns, 0, "checker");
	}
	return (NULL);
}

/* ------------------------------------------------------------------ */
/* The heartbeat. */

static void
beat(void)
{
	soak_hb_t *h = T.t_hb;
	int64_t now = soak_now();
	int64_t last = __atomic_load_n(&h->h_last_ns, __ATOMIC_ACQUIRE);

	if (last != 0 && now - last >= SOAK_GAP_MIN_NS) {
		uint64_t n = h->h_ngaps;

		h->h_gap[n % SOAK_GAPS] = (soak_gap_t){ now, now - last };
		__atomic_store_n(&h->h_ngaps, n + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&h->h_last_ns, now, __ATOMIC_RELEASE);
	__atomic_add_fetch(&h->h_beats, 1, __ATOMIC_RELEASE);
}

static pid_t hb_tid;

static void *
heartbeat(void *arg)
{
	uint64_t mine = block_all();

	(void) arg;
	__atomic_store_n(&hb_tid, (pid_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	for (unsigned i = 0;; i++) {
		beat();
		sleep_checked(1000000, 0, "heartbeat");
		if (i % 64 == 0)
			check_mask(&mine, "heartbeat");
	}
	return (NULL);
}

/* ------------------------------------------------------------------ */
/* Start-up. */

static long
life_seconds(void)
{
	const char *s = getenv("SOAK_LIFE");
	long v = s != NULL ? atol(s) : 0;

	return (v > 0 ? v : 600);
}

/* Its slot: found again by an exec storm's image, else claimed. */
static void
claim_slot(const soak_mode_t *m)
{
	int32_t me = (int32_t)getpid();
	int n = T.t_image ? soak_slot_of(T.t_ctl, me) : -1;
	soak_slot_t *s;

	for (int i = 0; n < 0 && i < SOAK_SLOTS; i++) {
		int32_t none = 0;

		if (__atomic_compare_exchange_n(&T.t_ctl->c_slot[i].s_pid,
		    &none, me, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			n = i;
	}
	if (n < 0) {
		errno = ENOSPC;
		die_setup("a slot of its own in ctl");
	}
	s = T.t_slot = &T.t_ctl->c_slot[n];
	if (!T.t_image) {
		(void) snprintf(s->s_kind, sizeof (s->s_kind), "%s",
		    T.t_kind);
		s->s_group_stops = (uint32_t)m->m_group_stops;
		s->s_start = soak_starttime(me);
	}
}

static void
map_heartbeat(int n)
{
	char path[4096];
	soak_hb_t *h;

	(void) snprintf(path, sizeof (path), SOAK_HB_FMT, T.t_dir, n);
	if ((h = T.t_hb = soak_map(path, sizeof (*h), 1)) == NULL)
		die_setup(path);
	if (T.t_image) {
		h->h_images++;
		return;
	}
	memset(h, 0, sizeof (*h));
	h->h_magic = SOAK_HB_MAGIC;
	h->h_life_ns = soak_now() + life_seconds() * 1000000000LL;
	__atomic_store_n(&T.t_slot->s_ready, 1, __ATOMIC_RELEASE);
}

/*
 * Its fd table and maps, through the heartbeat thread's /proc folder:
 * the main thread's would show nothing once it has exited (mainexit).
 */
static void
open_own_proc(void)
{
	char path[64];
	pid_t tid = 0;

	for (int i = 0; i < 10000 && (tid = __atomic_load_n(&hb_tid,
	    __ATOMIC_ACQUIRE)) == 0; i++)
		(void) usleep(1000);
	(void) snprintf(path, sizeof (path), "/proc/self/task/%d/fd",
	    (int)tid);
	procfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	(void) snprintf(path, sizeof (path), "/proc/self/task/%d/maps",
	    (int)tid);
	mapsfd = open(path, O_RDONLY | O_CLOEXEC);
	if (tid == 0 || procfd < 0 || mapsfd < 0)
		die_setup("its /proc folder");
}

static void
start(const soak_mode_t *m)
{
	sigset_t set;
	uint64_t inherited = my_mask();

	if (!T.t_image)
		(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void) sigemptyset(&set);
	(void) sigaddset(&set, SIGUSR2);
	(void) sigaddset(&set, SIGWINCH);
	T.t_mask_main = mask_bits(&set);
	(void) pthread_sigmask(SIG_SETMASK, &set, NULL);
	if ((T.t_ctl = soak_map_ctl(T.t_dir)) == NULL)
		die_setup("ctl");
	claim_slot(m);
	map_heartbeat((int)(T.t_slot - T.t_ctl->c_slot));
	(void) spawn(heartbeat, NULL, 1);
	if (T.t_image && inherited != T.t_mask_main)
		fail(C_EXEC, "the signal mask the image inherits is %#llx, "
		    "not %#llx", (unsigned long long)inherited,
		    (unsigned long long)T.t_mask_main);
	open_own_proc();
	if (T.t_image) {
		(void) fd_note(procfd);
		(void) fd_note(mapsfd);
		check_kept();
	} else {
		note_all_open();
	}
	for (size_t i = 0; i < PATTERN; i++)
		pattern[i] = (unsigned char)(i * 131 + 7);
	pattern_sum = sum_pattern();
	check_ns = (int64_t)m->m_check_ms * 1000000;
}

static void hog(void) __attribute__((__noreturn__));

static void
hog(void)
{
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void) alarm((unsigned)life_seconds());
	for (volatile unsigned long i = 0;; i++)
		;
}

static const soak_mode_t *
mode_named(const char *name)
{
	if (strcmp(name, soak_mode_blocked.m_name) == 0)
		return (&soak_mode_blocked);
	for (int i = 0; soak_modes[i].m_name != NULL; i++)
		if (strcmp(name, soak_modes[i].m_name) == 0)
			return (&soak_modes[i]);
	return (NULL);
}

int
main(int argc, char **argv)
{
	const soak_mode_t *m = NULL;

	if (argc >= 2 && strcmp(argv[1], "hog") == 0)
		hog();
	if (argc >= 3)
		m = mode_named(argv[1]);
	if (m == NULL) {
		(void) fprintf(stderr, "usage: soak_target MODE DIR | hog\n"
		    "  MODE: blocked");
		for (int i = 0; soak_modes[i].m_name != NULL; i++)
			(void) fprintf(stderr, " %s", soak_modes[i].m_name);
		(void) fprintf(stderr, "\n");
		return (2);
	}
	T.t_kind = argv[1];
	T.t_dir = argv[2];
	T.t_argv0 = argv[0];
	T.t_image = argc > 3 && strcmp(argv[3], "image") == 0;
	start(m);
	m->m_setup();
	(void) spawn(checker, NULL, 1);
	if (m->m_thread != NULL)
		(void) spawn(m->m_thread, NULL, 1);
	if (!T.t_image) {
		(void) printf("ready\n");
		(void) fflush(stdout);
	}
	if (m->m_run != NULL)
		m->m_run();
	work_loop(5000000, 0, "main");
}
