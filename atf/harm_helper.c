/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * harm_helper: targets for t_harm, each of which checks, from its own
 * view, that the agent did it no harm.  It says what it made ("KEY VALUE"
 * lines, then "ready") and, when its stdin is closed, what it saw
 * ("result ..."), then exits.
 *
 *	harm_helper sigstorm	a thread queues real-time signals at the
 *				main thread without pause; at the end:
 *				"result SENT RECEIVED" (they must be equal)
 *	harm_helper timedwait	the main thread waits in epoll_wait with a
 *				timeout, over and over; at the end:
 *				"result WAITS EINTRS"
 *	harm_helper semop	the main thread blocks in semop, with no
 *				timeout, until the end; "result EINTRS"
 *	harm_helper sigwait	the main thread blocks in sigwaitinfo until
 *				the end; "result EINTRS"
 *	harm_helper epollwait	the main thread blocks in epoll_wait with no
 *				timeout until the end; "result EINTRS"
 *	harm_helper rseq [N]	(with N socketpairs, so that a walk lasts)
 *				the main thread runs rseq critical sections
 *				back to back (glibc's registered area);
 *				"result COMMITS ABORTS LATE": LATE counts
 *				sections that committed although the thread
 *				had left them and come back without their
 *				abort (seen by the kernel having cleared
 *				their rseq_cs), which the kernel never lets
 *				happen; "skip ..." where that cannot be seen
 *	harm_helper exec [MS]	300 socketpairs, and a second thread that
 *				execs the program again every MS ms (30 by
 *				default; the sockets are inherited); no
 *				result line
 *	harm_helper stress [N]	all at once, with N socketpairs: the main
 *				thread runs rseq sections and timed semop
 *				waits in turn while a thread queues signals
 *				at it and another switches fd 20 between two
 *				files; "result SENT RECEIVED COMMITS LATE
 *				WAITS"
 *	harm_helper stopwatch N [C]
 *				N socketpairs; the main thread reads the
 *				monotonic clock over and over; "result US":
 *				the longest it went between two readings,
 *				that is the longest it was kept from running.
 *				With C, two threads churn C sockets between
 *				them: each opens C/2 UDP sockets, closes them
 *				all, and again
 *	harm_helper swap	a TCP listener A and a UDP socket B, each as
 *				its own view says ("a INO PORT SNDBUF RCVBUF",
 *				the same for b), and fd 10 switched between
 *				them by a thread, flat out ("swapfd 10")
 *	harm_helper linger PORT	a TCP connection to 127.0.0.1:PORT (a peer
 *				that reads nothing) with unsent data and
 *				SO_LINGER of 60 s ("linger FD")
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/epoll.h>
#include <sys/rseq.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "isa_rseq.h"

static volatile sig_atomic_t received;
static volatile int stopping;
static pid_t main_tid;
static long sent;
static useconds_t storm_gap;	/* between two signals; 0: a yield */

static void die(const char *) __attribute__((__noreturn__));

static void
die(const char *what)
{
	(void) fprintf(stderr, "harm_helper: %s: %s\n", what,
	    strerror(errno));
	exit(1);
}

static void
on_signal(int sig)
{
	(void) sig;
	received++;
}

/* Queue SIGRTMIN at the main thread until told to stop. */
static void *
storm(void *arg)
{
	siginfo_t si;

	(void) arg;
	while (!stopping) {
		memset(&si, 0, sizeof (si));
		si.si_code = SI_QUEUE;
		si.si_pid = getpid();
		si.si_uid = getuid();
		if (syscall(SYS_rt_tgsigqueueinfo, getpid(), main_tid,
		    SIGRTMIN, &si) == 0)
			sent++;
		else if (errno == EAGAIN)
			(void) usleep(100);	/* the queue is full */
		/* Flat out while a CPU is free; never starving the target. */
		if (storm_gap != 0)
			(void) usleep(storm_gap);
		else
			(void) sched_yield();
	}
	return (NULL);
}

/* The stdin watcher: when the test closes it, the run ends. */
static void *
watch_stdin(void *arg)
{
	char c;
	ssize_t n;

	(void) arg;
	while ((n = read(0, &c, 1)) > 0 || (n < 0 && errno == EINTR))
		;
	stopping = 1;
	return (NULL);
}

static void
on_wake(int sig)
{
	(void) sig;
}

/*
 * The storm's stdin watcher: at the end, the main thread is woken with a
 * signal of its own (not counted), as the storm may stop before it sends
 * another and sigsuspend would wait for good.
 */
static void *
watch_and_wake(void *arg)
{
	(void) watch_stdin(arg);
	(void) syscall(SYS_tgkill, getpid(), main_tid, SIGUSR2);
	return (NULL);
}

static int
mode_sigstorm(void)
{
	sigset_t wake;
	struct sigaction sa;
	pthread_t s, w;
	sigset_t none;

	memset(&sa, 0, sizeof (sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGRTMIN, &sa, NULL) != 0)
		die("sigaction");
	sa.sa_handler = on_wake;
	if (sigaction(SIGUSR2, &sa, NULL) != 0)
		die("sigaction");
	/*
	 * The wake-up stays pending until sigsuspend takes it, atomically:
	 * it cannot come between the test of stopping and the wait.  (The
	 * threads made below inherit the mask; the watcher sends it to the
	 * main thread by tid.)
	 */
	(void) sigemptyset(&wake);
	(void) sigaddset(&wake, SIGUSR2);
	(void) pthread_sigmask(SIG_BLOCK, &wake, NULL);
	main_tid = (pid_t)syscall(SYS_gettid);
	/*
	 * "ready" before the storm: a storm flat out can keep the main
	 * thread in its handler for as long as it lasts where handling a
	 * signal costs more than sending one (qemu without KVM), and the
	 * test would wait for the word.  The storm is on before the test's
	 * first pfiles runs (that takes a fork and an exec).  Only the main
	 * thread takes the signal.
	 */
	if (pthread_create(&w, NULL, watch_and_wake, NULL) != 0)
		die("pthread_create");
	(void) printf("ready\n");
	(void) fflush(stdout);
	if (pthread_create(&s, NULL, storm, NULL) != 0)
		die("pthread_create");
	(void) sigemptyset(&none);
	while (!stopping)
		(void) sigsuspend(&none);
	(void) pthread_join(s, NULL);
	/* Every signal queued before the sender stopped arrives now. */
	for (int i = 0; i < 1000 && received != sent; i++)
		(void) usleep(1000);
	(void) printf("result %ld %ld\n", sent, (long)received);
	return (0);
}

static int
mode_timedwait(void)
{
	long waits = 0, eintrs = 0;
	struct epoll_event ev;
	pthread_t w;
	int ep;

	if ((ep = epoll_create1(0)) < 0)
		die("epoll_create1");
	if (pthread_create(&w, NULL, watch_stdin, NULL) != 0)
		die("pthread_create");
	(void) printf("ready\n");
	(void) fflush(stdout);
	while (!stopping) {
		if (epoll_wait(ep, &ev, 1, 50) < 0 && errno == EINTR)
			eintrs++;
		waits++;
	}
	(void) printf("result %ld %ld\n", waits, eintrs);
	return (0);
}

/*
 * Block the main thread in one call with no timeout until the end; the
 * watcher ends it (a semaphore post, a signal, an event).  Count the
 * calls that failed with EINTR: after a stop, a call with no timeout
 * must go on waiting.
 */
static int semid, evfd[2];
static pthread_t main_thread;

static void
end_semop(void)
{
	struct sembuf up = { 0, 1, 0 };

	(void) semop(semid, &up, 1);
}

static void
end_sigwait(void)
{
	(void) pthread_kill(main_thread, SIGUSR1);
}

static void
end_epollwait(void)
{
	if (write(evfd[1], "x", 1) != 1)
		_exit(3);	/* the wait would never end */
}

static void (*ender)(void);

static void *
watch_and_end(void *arg)
{
	(void) watch_stdin(arg);
	ender();
	return (NULL);
}

static int
mode_blocked(const char *how)
{
	struct sembuf down = { 0, -1, 0 };
	struct epoll_event ev;
	sigset_t set;
	long eintrs = 0;
	pthread_t w;
	int ep = -1, r;

	main_thread = pthread_self();
	(void) sigemptyset(&set);
	(void) sigaddset(&set, SIGUSR1);
	(void) pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (strcmp(how, "semop") == 0) {
		if ((semid = semget(IPC_PRIVATE, 1, 0600)) < 0)
			die("semget");
		ender = end_semop;
	} else if (strcmp(how, "sigwait") == 0) {
		ender = end_sigwait;
	} else {
		if ((ep = epoll_create1(0)) < 0 || pipe(evfd) != 0)
			die("epoll");
		ev.events = EPOLLIN;
		ev.data.fd = evfd[0];
		if (epoll_ctl(ep, EPOLL_CTL_ADD, evfd[0], &ev) != 0)
			die("epoll_ctl");
		ender = end_epollwait;
	}
	if (pthread_create(&w, NULL, watch_and_end, NULL) != 0)
		die("pthread_create");
	(void) printf("ready\n");
	(void) fflush(stdout);
	for (;;) {
		if (ender == end_semop)
			r = semop(semid, &down, 1);
		else if (ender == end_sigwait)
			r = sigwaitinfo(&set, NULL);
		else
			r = epoll_wait(ep, &ev, 1, -1);
		if (r < 0 && errno == EINTR) {
			eintrs++;
			continue;
		}
		break;
	}
	(void) printf("result %ld\n", eintrs);
	if (ender == end_semop)
		(void) semctl(semid, 0, IPC_RMID);
	return (0);
}

#define	RSEQ_SPINS	30000		/* about 100 microseconds of work */

/*
 * One critical section: spin, read the section's own rseq_cs back from
 * the rseq area, and commit by setting ok as its last instruction.
 * Preempted, migrated or signalled inside it, the kernel sends the thread
 * to the abort handler, which leaves ok 0.  The kernel clears rseq_cs
 * without an abort only on its way back to user space at an address
 * outside the section: *cleared says that happened while the section ran,
 * that is, the thread left it and was let back in without its abort.
 * That is no matter of time: a virtual CPU held up by a loaded host, which
 * its kernel never sees, leaves rseq_cs as it was.
 */
static int
section(struct rseq *rs, int *cleared)
{
	uint64_t cs = 0;
	long ok = isa_rseq_section((volatile uint64_t *)&rs->rseq_cs,
	    RSEQ_SPINS, &cs);

	*cleared = cs == 0;
	return ((int)ok);
}

/*
 * A section of one instruction that never runs, signed as the kernel
 * wants (it checks the signature of every section it is shown), for
 * kernel_clears_rseq_cs().
 */
extern const struct rseq_cs harm_rseq_elsewhere
    __attribute__((visibility("hidden")));
__asm__(
    ".pushsection __rseq_cs, \"aw\"\n\t"
    ".balign 32\n\t"
    ".hidden harm_rseq_elsewhere\n\t"
    ".globl harm_rseq_elsewhere\n"
    "harm_rseq_elsewhere:\n\t"
    ".long 0, 0\n\t"
    ".quad 7f, 1, 8f\n\t"
    ".popsection\n\t"
    ".pushsection __rseq_failure, \"ax\"\n"
    "7:\n\t"
    ISA_RSEQ_TRAP "\n\t"
    ISA_RSEQ_SIGN "\n"
    "8:\n\t"
    ISA_RSEQ_TRAP "\n\t"
    ".popsection\n");

/*
 * Does the kernel clear rseq_cs when the thread comes back to user space
 * outside the section it names?  section() can see nothing without.  A
 * nap whose timer has run out before the thread could sleep (a stalled
 * virtual CPU) is no switch, and nothing is cleared: up to 100 naps.
 */
static int
kernel_clears_rseq_cs(struct rseq *rs)
{
	struct timespec nap = { 0, 1000000 };

	for (int i = 0; i < 100; i++) {
		__atomic_store_n(&rs->rseq_cs, (uint64_t)(uintptr_t)
		    &harm_rseq_elsewhere, __ATOMIC_SEQ_CST);
		(void) nanosleep(&nap, NULL);
		if (__atomic_load_n(&rs->rseq_cs, __ATOMIC_SEQ_CST) == 0)
			return (1);
	}
	__atomic_store_n(&rs->rseq_cs, 0, __ATOMIC_SEQ_CST);
	return (0);
}

static int
mode_rseq(int pairs)
{
	long commits = 0, aborts = 0, nlate = 0;
	struct rseq *rs;
	pthread_t w;
	int sv[2];

	for (int i = 0; i < pairs; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			die("socketpair");
	}
	if (__rseq_size == 0) {
		(void) printf("skip glibc registered no rseq area\n");
		return (0);
	}
	rs = (struct rseq *)(void *)((char *)__builtin_thread_pointer() +
	    __rseq_offset);
	if (!kernel_clears_rseq_cs(rs)) {
		(void) printf("skip the kernel leaves rseq_cs set outside "
		    "its section\n");
		return (0);
	}
	if (pthread_create(&w, NULL, watch_stdin, NULL) != 0)
		die("pthread_create");
	(void) printf("ready\n");
	(void) fflush(stdout);
	while (!stopping) {
		int cleared;

		if (section(rs, &cleared)) {
			commits++;
			nlate += cleared;
		} else {
			aborts++;
		}
	}
	(void) printf("result %ld %ld %ld\n", commits, aborts, nlate);
	return (0);
}

static char **exec_argv;
static int exec_ms = 30;

/* Exec this program again, from a thread other than the main one. */
static void *
exec_again(void *arg)
{
	char ms[16];
	char *args[] = { exec_argv[0], "exec", ms, "again", NULL };

	(void) arg;
	(void) snprintf(ms, sizeof (ms), "%d", exec_ms);
	(void) usleep((useconds_t)exec_ms * 1000);
	(void) execv("/proc/self/exe", args);
	die("execv");
	return (NULL);
}

/* The stdin watcher of every image: at end of file, the run is over. */
static void *
exit_at_eof(void *arg)
{
	(void) watch_stdin(arg);
	_exit(0);
	return (NULL);
}

static int
mode_exec(int again, char **argv)
{
	pthread_t w, e;
	int sv[2];

	exec_argv = argv;
	if (!again) {
		for (int i = 0; i < 300; i++) {
			if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
				die("socketpair");
		}
	}
	if (pthread_create(&w, NULL, exit_at_eof, NULL) != 0 ||
	    pthread_create(&e, NULL, exec_again, NULL) != 0)
		die("pthread_create");
	if (!again) {
		(void) printf("ready\n");
		(void) fflush(stdout);
	}
	for (;;)
		(void) pause();
	return (0);
}

static int churn_a, churn_b;

static void *
churn(void *arg)
{
	(void) arg;
	while (!stopping) {
		(void) dup2(churn_a, 20);
		(void) dup2(churn_b, 20);
	}
	return (NULL);
}

static int
mode_stress(int pairs)
{
	struct timespec tmo = { 0, 1000000 };	/* 1 ms */
	struct sembuf down = { 0, -1, 0 };
	long commits = 0, nlate = 0, waits = 0;
	struct sigaction sa;
	pthread_t s, w, c;
	struct rseq *rs = NULL;
	int sid;

	memset(&sa, 0, sizeof (sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGRTMIN, &sa, NULL) != 0)
		die("sigaction");
	if ((sid = semget(IPC_PRIVATE, 1, 0600)) < 0 ||
	    (churn_a = open("/dev/null", O_RDONLY)) < 0 ||
	    (churn_b = open("/dev/zero", O_RDONLY)) < 0)
		die("setup");
	for (int i = 0; i < pairs; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			die("socketpair");
	}
	if (__rseq_size != 0)
		rs = (struct rseq *)(void *)
		    ((char *)__builtin_thread_pointer() + __rseq_offset);
	if (rs != NULL && !kernel_clears_rseq_cs(rs))
		rs = NULL;	/* a late commit would not show */
	main_tid = (pid_t)syscall(SYS_gettid);
	storm_gap = 50;		/* a storm the main thread still gets through */
	if (pthread_create(&w, NULL, watch_stdin, NULL) != 0 ||
	    pthread_create(&s, NULL, storm, NULL) != 0 ||
	    pthread_create(&c, NULL, churn, NULL) != 0)
		die("pthread_create");
	(void) printf("ready\n");
	(void) fflush(stdout);
	while (!stopping) {
		int cleared;

		if (rs != NULL && section(rs, &cleared)) {
			commits++;
			nlate += cleared;
		}
		/* A timed wait: it may end in EINTR (pfiles.1 says so). */
		(void) semtimedop(sid, &down, 1, &tmo);
		waits++;
	}
	(void) pthread_join(s, NULL);
	(void) pthread_join(c, NULL);
	for (int i = 0; i < 1000 && received != sent; i++)
		(void) usleep(1000);
	(void) semctl(sid, 0, IPC_RMID);
	(void) printf("result %ld %ld %ld %ld %ld\n", sent, (long)received,
	    commits, nlate, waits);
	return (0);
}

static void
make_pairs(int pairs)
{
	for (int i = 0; i < pairs; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			die("socketpair");
	}
}

static long
now_us(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((long)ts.tv_sec * 1000000 + ts.tv_nsec / 1000);
}

/* Open n UDP sockets, close them all, and again, until the end. */
static void *
churner(void *arg)
{
	int n = (int)(long)arg, *fds;

	if ((fds = calloc((size_t)n, sizeof (int))) == NULL)
		return (NULL);
	while (!stopping) {
		for (int i = 0; i < n; i++)
			fds[i] = socket(AF_INET, SOCK_DGRAM, 0);
		for (int i = 0; i < n; i++)
			if (fds[i] >= 0)
				(void) close(fds[i]);
	}
	free(fds);
	return (NULL);
}

static int
mode_stopwatch(int pairs, int churn_n)
{
	long last, longest = 0;
	pthread_t w, c[2];

	make_pairs(pairs);
	if (pthread_create(&w, NULL, watch_stdin, NULL) != 0)
		die("pthread_create");
	for (int i = 0; i < 2 && churn_n > 0; i++) {
		if (pthread_create(&c[i], NULL, churner,
		    (void *)(long)(churn_n / 2)) != 0)
			die("pthread_create");
	}
	(void) printf("ready\n");
	(void) fflush(stdout);
	last = now_us();
	while (!stopping) {
		long t = now_us();

		if (t - last > longest)
			longest = t - last;
		last = t;
	}
	(void) pthread_join(w, NULL);
	for (int i = 0; i < 2 && churn_n > 0; i++)
		(void) pthread_join(c[i], NULL);
	(void) printf("result %ld\n", longest);
	return (0);
}

#define	SWAP_FD	10

static int swap_a, swap_b;

static void *
swapper(void *arg)
{
	(void) arg;
	while (!stopping) {
		(void) dup2(swap_a, SWAP_FD);
		(void) dup2(swap_b, SWAP_FD);
	}
	return (NULL);
}

/* One socket bound to 127.0.0.1, port 0, with option opt on. */
static int
bound_socket(int type, int opt)
{
	struct sockaddr_in sin;
	int s, one = 1;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, type, 0)) < 0 ||
	    setsockopt(s, SOL_SOCKET, opt, &one, sizeof (one)) != 0 ||
	    bind(s, (struct sockaddr *)&sin, sizeof (sin)) != 0)
		die("socket");
	return (s);
}

/* "NAME INO PORT SNDBUF RCVBUF", from the socket's own view. */
static void
say_socket(const char *name, int s)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	struct stat st;
	int snd = 0, rcv = 0;
	socklen_t il = sizeof (int);

	if (fstat(s, &st) != 0 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) != 0 ||
	    getsockopt(s, SOL_SOCKET, SO_SNDBUF, &snd, &il) != 0 ||
	    getsockopt(s, SOL_SOCKET, SO_RCVBUF, &rcv, &il) != 0)
		die("view");
	(void) printf("%s %llu %u %d %d %d\n", name,
	    (unsigned long long)st.st_ino, ntohs(sin.sin_port), snd, rcv, s);
}

static int
mode_swap(void)
{
	pthread_t w, t;

	swap_a = bound_socket(SOCK_STREAM, SO_REUSEADDR);
	if (listen(swap_a, 1) != 0)
		die("listen");
	swap_b = bound_socket(SOCK_DGRAM, SO_BROADCAST);
	say_socket("a", swap_a);
	say_socket("b", swap_b);
	if (dup2(swap_a, SWAP_FD) != SWAP_FD)
		die("dup2");
	if (pthread_create(&w, NULL, watch_stdin, NULL) != 0 ||
	    pthread_create(&t, NULL, swapper, NULL) != 0)
		die("pthread_create");
	(void) printf("swapfd %d\nready\n", SWAP_FD);
	(void) fflush(stdout);
	(void) pthread_join(w, NULL);
	(void) pthread_join(t, NULL);
	(void) printf("result 0\n");
	return (0);
}

static int
mode_linger(const char *port)
{
	struct linger lg = { 1, 60 };
	struct sockaddr_in sin;
	char buf[65536];
	int s, small = 4096;

	memset(&sin, 0, sizeof (sin));
	memset(buf, 'x', sizeof (buf));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons((uint16_t)atoi(port));
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    setsockopt(s, SOL_SOCKET, SO_SNDBUF, &small, sizeof (small)) != 0 ||
	    connect(s, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    fcntl(s, F_SETFL, O_NONBLOCK) != 0)
		die("connect");
	/*
	 * Until the peer's window and our buffer are full: data unsent.  The
	 * buffer is full for good once no room comes back within 300 ms.
	 */
	for (int i = 0; i < 100000; i++) {
		struct pollfd pfd = { s, POLLOUT, 0 };

		if (send(s, buf, sizeof (buf), MSG_NOSIGNAL) >= 0)
			continue;
		if (errno != EAGAIN)
			die("send");
		if (poll(&pfd, 1, 300) == 0)
			break;
	}
	if (setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof (lg)) != 0)
		die("SO_LINGER");
	(void) printf("linger %d\nready\n", s);
	(void) fflush(stdout);
	(void) watch_stdin(NULL);
	(void) printf("result 0\n");
	return (0);
}

int
main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	if (strcmp(mode, "sigstorm") == 0)
		return (mode_sigstorm());
	if (strcmp(mode, "timedwait") == 0)
		return (mode_timedwait());
	if (strcmp(mode, "exec") == 0) {
		if (argc > 2 && atoi(argv[2]) > 0)
			exec_ms = atoi(argv[2]);
		return (mode_exec(argc > 3, argv));
	}
	if (strcmp(mode, "stress") == 0)
		return (mode_stress(argc > 2 ? atoi(argv[2]) : 0));
	if (strcmp(mode, "stopwatch") == 0)
		return (mode_stopwatch(argc > 2 ? atoi(argv[2]) : 0,
		    argc > 3 ? atoi(argv[3]) : 0));
	if (strcmp(mode, "swap") == 0)
		return (mode_swap());
	if (strcmp(mode, "linger") == 0 && argc > 2)
		return (mode_linger(argv[2]));
	if (strcmp(mode, "rseq") == 0)
		return (mode_rseq(argc > 2 ? atoi(argv[2]) : 0));
	if (strcmp(mode, "semop") == 0 || strcmp(mode, "sigwait") == 0 ||
	    strcmp(mode, "epollwait") == 0)
		return (mode_blocked(mode));
	(void) fprintf(stderr, "usage: harm_helper sigstorm|timedwait\n");
	return (2);
}
