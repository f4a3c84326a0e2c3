/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * soak_modes.c: the soak targets' modes (soak_target.c runs them; the
 * blocked mode is soak_blocked.c's).  Each makes what its kind needs,
 * then runs its main thread; the checks of soak_target.c run throughout.
 *
 *  exec	51 sockets (socketpairs and loopback TCP), and a thread that
 *		execs the program again every 10-50 ms; each image finds the
 *		sockets it inherits unchanged (fd and inode), its signal mask
 *		the one the exec'ing thread had, and carries the checks on
 *  sigstorm	a child sends it SIGUSR1 and SIGCHLD without pause (some
 *		thousands a second), taken by the main thread in its loops
 *		and in its sleeps (which go on for what they had left)
 *  churn	threads made and ending all the time, 24 alive at once,
 *		each checking the mask it was born with and its sleep
 *  fdfull	RLIMIT_NOFILE of 64, every fd of it open
 *  flicker	a thread opens, closes and dup2()s fds flat out
 *  mainexit	40 sleeping threads and a worker; the main thread exits
 *  sigstop	a child stops it (SIGSTOP) for 20 ms every 50-170 ms
 *  sockets	$SOAK_SOCKETS (2000) loopback TCP connections, both ends,
 *		and a quarter as many unix socketpairs
 *  plain	4 socketpairs ("sock FD": the first), for the suite's tests
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "soak_target.h"

#define	MS		1000000LL
#define	CHURN_LIVE	24
#define	MAINEXIT_SLEEPERS 40
#define	FDFULL_LIMIT	64
#define	FLICK_POOL	16
#define	FLICK_HIGH	600		/* where dup2 puts its copies */

void
make_socketpairs(int n)
{
	for (int i = 0; i < n; i++) {
		int sv[2];

		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			die_setup("socketpair");
		(void) fd_note(sv[0]);
		(void) fd_note(sv[1]);
	}
}

int
loopback_listener(uint16_t *port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof (sin);
	int s;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((s = socket(AF_INET, SOCK_STREAM, 0)) < 0 ||
	    bind(s, (struct sockaddr *)&sin, sizeof (sin)) != 0 ||
	    listen(s, 4096) != 0 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) != 0)
		die_setup("a loopback listener");
	*port = ntohs(sin.sin_port);
	return (fd_note(s));
}

/* A socket connected to 127.0.0.1:port (not noted), or -1. */
int
loopback_connect(uint16_t port)
{
	struct sockaddr_in sin;
	int s;

	memset(&sin, 0, sizeof (sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0)
		return (-1);
	if (connect(s, (struct sockaddr *)&sin, sizeof (sin)) != 0) {
		(void) close(s);
		return (-1);
	}
	return (s);
}

/* A loopback TCP connection, both ends: into fds[0] and fds[1]. */
static void
tcp_pair(int lsn, uint16_t port, int fds[2])
{
	if ((fds[0] = loopback_connect(port)) < 0 ||
	    (fds[1] = accept(lsn, NULL, NULL)) < 0)
		die_setup("a loopback connection");
	(void) fd_note(fds[0]);
	(void) fd_note(fds[1]);
}

/* ------------------------------------------------------------------ */
/* exec */

static void
exec_setup(void)
{
	uint16_t port;
	int sv[2], lsn;

	if (T.t_image)
		return;		/* what it keeps was checked at start-up */
	for (int i = 0; i < 20; i++) {
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
			die_setup("socketpair");
		fd_keep_across_exec(sv[0]);
		fd_keep_across_exec(sv[1]);
	}
	lsn = loopback_listener(&port);
	fd_keep_across_exec(lsn);
	for (int i = 0; i < 5; i++) {
		tcp_pair(lsn, port, sv);
		fd_keep_across_exec(sv[0]);
		fd_keep_across_exec(sv[1]);
	}
}

static void *
exec_again(void *arg)
{
	unsigned seed = (unsigned)getpid() ^ (unsigned)soak_now();
	uint64_t want = T.t_mask_main;
	char *args[] = { T.t_argv0, (char *)T.t_kind, (char *)T.t_dir,
	    (char *)"image", NULL };

	(void) arg;
	for (;;) {
		sleep_checked((10 + soak_rand(&seed) % 41) * MS, 0,
		    "exec thread");
		check_mask(&want, "exec thread");
		(void) execv("/proc/self/exe", args);
		fail(C_SETUP, "execv: %s", strerror(errno));
	}
	return (NULL);
}

/* ------------------------------------------------------------------ */
/* Children that pester it: signals, stops. */

static void
nap(long long ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000LL),
	    (long)(ns % 1000000000LL) };

	(void) nanosleep(&ts, NULL);
}

/* A child running loop(parent), gone with its parent ("pest PID"). */
static void
spawn_pest(void (*loop)(pid_t))
{
	pid_t parent = getpid(), c = fork();

	if (c < 0)
		die_setup("fork");
	if (c > 0) {
		(void) printf("pest %d\n", (int)c);
		return;
	}
	(void) prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(0);
	(void) syscall(SYS_close_range, 3U, ~0U, 0U);
	loop(parent);
	_exit(0);
}

static void
storm_loop(pid_t parent)
{
	for (;;) {
		if (kill(parent, SIGUSR1) != 0 || kill(parent, SIGCHLD) != 0 ||
		    getppid() != parent)
			return;
		nap(200000);
	}
}

static void
stopper_loop(pid_t parent)
{
	unsigned seed = (unsigned)getpid();

	for (;;) {
		if (kill(parent, SIGSTOP) != 0)
			return;
		nap(20 * MS);
		if (kill(parent, SIGCONT) != 0 || getppid() != parent)
			return;
		nap((30 + soak_rand(&seed) % 121) * MS);
	}
}

static volatile sig_atomic_t signals_taken;

static void
on_signal(int sig)
{
	(void) sig;
	signals_taken++;
}

static void
sigstorm_setup(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof (sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = SA_RESTART;
	if (sigaction(SIGUSR1, &sa, NULL) != 0 ||
	    sigaction(SIGCHLD, &sa, NULL) != 0)
		die_setup("sigaction");
	make_socketpairs(8);
	spawn_pest(storm_loop);
}

static void __attribute__((__noreturn__))
sigstorm_run(void)
{
	work_loop(2 * MS, 1, "main");
}

static void
sigstop_setup(void)
{
	make_socketpairs(8);
	spawn_pest(stopper_loop);
}

/* ------------------------------------------------------------------ */
/* Threads: churned, and a main thread that exits. */

static int churn_live;

static void *
ephemeral(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	uint64_t want = T.t_mask_main;

	check_mask(&want, "a churned thread");
	burst();
	sleep_checked((5 + soak_rand(&seed) % 36) * MS, 0, "a churned thread");
	(void) __atomic_sub_fetch(&churn_live, 1, __ATOMIC_SEQ_CST);
	return (NULL);
}

static void
churn_setup(void)
{
	make_socketpairs(8);
}

static void __attribute__((__noreturn__))
churn_run(void)
{
	uint64_t want = my_mask();
	pthread_attr_t a;

	(void) pthread_attr_init(&a);
	(void) pthread_attr_setstacksize(&a, 128 * 1024);
	(void) pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	for (uintptr_t n = 1;; n++) {
		while (__atomic_load_n(&churn_live, __ATOMIC_SEQ_CST) <
		    CHURN_LIVE) {
			pthread_t t;

			(void) __atomic_add_fetch(&churn_live, 1,
			    __ATOMIC_SEQ_CST);
			if (pthread_create(&t, &a, ephemeral,
			    (void *)(n * 2654435761u)) != 0) {
				(void) __atomic_sub_fetch(&churn_live, 1,
				    __ATOMIC_SEQ_CST);
				break;	/* out of threads for now */
			}
		}
		burst();
		check_mask(&want, "main");
		sleep_checked(1 * MS, 0, "main");
	}
}

static void *
sleeper(void *arg)
{
	unsigned seed = (unsigned)(uintptr_t)arg;
	uint64_t want = T.t_mask_main;

	for (;;) {
		sleep_checked((20 + soak_rand(&seed) % 381) * MS, 0,
		    "a sleeper");
		check_mask(&want, "a sleeper");
	}
	return (NULL);
}

static void *
worker(void *arg)
{
	(void) arg;
	work_loop(5 * MS, 0, "worker");
}

static void
mainexit_setup(void)
{
	make_socketpairs(8);
	for (uintptr_t i = 1; i <= MAINEXIT_SLEEPERS; i++)
		(void) spawn(sleeper, (void *)(i * 2654435761u), 1);
	(void) spawn(worker, NULL, 1);
}

static void __attribute__((__noreturn__))
mainexit_run(void)
{
	pthread_exit(NULL);
}

/* ------------------------------------------------------------------ */
/* fd tables: full, flickering, large. */

static void
fdfull_setup(void)
{
	struct rlimit rl;
	int fd;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		die_setup("getrlimit");
	rl.rlim_cur = FDFULL_LIMIT;
	if (rl.rlim_max < rl.rlim_cur || setrlimit(RLIMIT_NOFILE, &rl) != 0)
		die_setup("setrlimit");
	make_socketpairs(4);
	while ((fd = open("/dev/null", O_RDONLY)) >= 0)
		(void) fd_note(fd);
	if (errno != EMFILE)
		die_setup("filling the fd table");
}

static int flick_base;

static void
flicker_setup(void)
{
	make_socketpairs(4);
	if ((flick_base = open("/dev/null", O_RDONLY)) < 0)
		die_setup("/dev/null");
	(void) fd_note(flick_base);
}

/* One fd of the pool made anew: open, socket or dup2, in turn. */
static int
flick_one(unsigned i, unsigned k)
{
	switch (i % 3) {
	case 0:
		return (open("/dev/null", O_RDONLY | O_CLOEXEC));
	case 1:
		return (socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0));
	default:
		return (dup2(flick_base, FLICK_HIGH + (int)k));
	}
}

static void *
flicker(void *arg)
{
	uint64_t want = my_mask();
	int pool[FLICK_POOL];

	(void) arg;
	for (int k = 0; k < FLICK_POOL; k++)
		pool[k] = -1;
	for (unsigned i = 0;; i++) {
		unsigned k = i % FLICK_POOL;

		(void) pthread_mutex_lock(&soak_fd_mu);
		if (pool[k] >= 0)
			fd_drop_locked(pool[k]);
		pool[k] = flick_one(i, k);
		fd_note_locked(pool[k]);
		(void) pthread_mutex_unlock(&soak_fd_mu);
		if (i % 128 == 127) {
			check_mask(&want, "flicker");
			sleep_checked(1 * MS, 0, "flicker");
		}
	}
	return (NULL);
}

static void
sockets_setup(void)
{
	const char *e = getenv("SOAK_SOCKETS");
	int n = e != NULL && atoi(e) > 0 ? atoi(e) : 2000, fds[2], lsn;
	rlim_t want = (rlim_t)n * 3 + 256;
	struct rlimit rl;
	uint16_t port;

	if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
		die_setup("getrlimit");
	if (rl.rlim_cur < want) {
		rl.rlim_cur = want;
		if (rl.rlim_max < want)
			rl.rlim_max = want;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			die_setup("setrlimit");
	}
	lsn = loopback_listener(&port);
	for (int i = 0; i < n; i++)
		tcp_pair(lsn, port, fds);
	make_socketpairs(n / 4);
}

static void
plain_setup(void)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) != 0)
		die_setup("socketpair");
	(void) fd_note(sv[0]);
	(void) fd_note(sv[1]);
	make_socketpairs(3);
	(void) printf("sock %d\n", sv[0]);
}

const soak_mode_t soak_modes[] = {
	{ "exec", exec_setup, exec_again, NULL, 0, 100 },
	{ "sigstorm", sigstorm_setup, NULL, sigstorm_run, 0, 100 },
	{ "churn", churn_setup, NULL, churn_run, 0, 100 },
	{ "fdfull", fdfull_setup, NULL, NULL, 0, 100 },
	{ "flicker", flicker_setup, flicker, NULL, 0, 100 },
	{ "mainexit", mainexit_setup, NULL, mainexit_run, 0, 100 },
	{ "sigstop", sigstop_setup, NULL, NULL, 1, 100 },
	{ "sockets", sockets_setup, NULL, NULL, 0, 1000 },
	{ "plain", plain_setup, NULL, NULL, 0, 100 },
	{ NULL, NULL, NULL, NULL, 0, 0 }
};
