/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * soak_watch: the soak's watchdog (make soak, soak/soak.sh).
 *
 *	soak_watch [-s STOP_MS] [-g GAP_MS] [-i LOOK_MS] [-L SECONDS] DIR
 *
 * Every LOOK_MS (2) ms it reads the state of every thread of every target that has
 * a slot in DIR's ctl (/proc/PID/task/TID/stat), and the target's
 * heartbeat (DIR/hb.N), until SIGTERM or SIGINT (or SECONDS, default
 * 3600); it says "ready" after its first look.
 *
 *  - A stop span is the time a thread is seen stopped without running in
 *    between, from the first look that finds it so to the last: state
 *    't' (a tracer's stop: pfiles' agent), and 'T' (a group stop) except
 *    in a target whose slot says SIGSTOP is part of its life (sigstop).
 *    Its run time (/proc/PID/task/TID/schedstat) unchanged from look to
 *    look proves it did not run; a span is never longer than proven,
 *    however late a look (a loaded machine).
 *  - A heartbeat gap is one the target queued (its heartbeat thread went
 *    5 ms or more between two beats, exec included).
 *
 * Each span and gap is put down to the run of pfiles at that target it
 * overlaps most (the runs in the slot, written by soak_run), by that
 * run's source, or to "none".  A span over STOP_MS (1000), a gap over
 * GAP_MS (1500), a target found dead (no live thread for 500 ms), and a
 * heartbeat still stalled at the end over GAP_MS, are said at once:
 *
 *	fail stop KIND SOURCE run=N tid=TID ms=MS late=MS
 *	fail gap KIND SOURCE run=N ms=MS late=MS
 *
 * (late: how much of that time the watchdog itself went 50 ms or more
 * without a look: the machine's time, not only pfiles'.)
 *	fail dead KIND run=N		(N: the last run at it)
 *	fail stall KIND ms=MS
 *
 * At the end, one line per target and source with anything to count:
 *
 *	stat KIND SOURCE STOPS STOP_MAX_MS STOP_P99_MS GAPS GAP_MAX_MS
 *	selfcheck KIND FAILURES		(from the target's heartbeat file)
 *	watch LOOKS MAX_LOOK_INTERVAL_MS FAILS
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <unistd.h>

#include "soak_common.h"

#define	HIST_MS		4096		/* the histograms' last bucket */
#define	DEAD_NS		500000000LL	/* no live thread for so long: dead */
#define	LATE_NS		50000000LL	/* a look so late: the machine's */
#define	LATE_RING	256

enum { S_DEFAULT, S_PIDFD, S_AGENT, S_DIAG, S_BPF, S_NONE, S_OTHER, S_N };
static const char *const src_name[S_N] = {
	"default", "pidfd", "agent", "diag", "bpf", "none", "other"
};

typedef struct acc {
	uint64_t	a_n;
	int64_t		a_max_ms;
	uint32_t	a_hist[HIST_MS + 1];	/* by ms */
} acc_t;

typedef struct thr {
	pid_t		th_tid;
	int		th_fd;		/* its stat */
	uint32_t	th_gen;		/* the last look that listed it */
	int		th_stopped;
	int64_t		th_since;	/* the first look that saw the stop */
	int64_t		th_last;	/* the last one */
	int		th_sfd;		/* its schedstat, once stopped */
	uint64_t	th_ran_ns;	/* its run time at th_since */
} thr_t;

typedef struct tgt {
	int		t_slot;
	pid_t		t_pid;
	char		t_kind[SOAK_NAME];
	int		t_group;	/* its group stops are its own */
	soak_hb_t	*t_hb;
	uint64_t	t_gaps_seen;
	int		t_dead;
	int64_t		t_none_since;	/* no live thread seen since */
	thr_t		*t_thr;
	size_t		t_n, t_cap;
	acc_t		t_stop[S_N], t_gap[S_N];
} tgt_t;

static struct {
	const char	*w_dir;
	soak_ctl_t	*w_ctl;
	tgt_t		*w_tgt[SOAK_SLOTS];
	int64_t		w_stop_ms, w_gap_ms;
	int64_t		w_tick;		/* between two looks, ns */
	uint64_t	w_looks, w_fails;
	int64_t		w_max_tick;
	struct {			/* its own late looks, the last ones */
		int64_t	l_from, l_to;
	}		w_late[LATE_RING];
	uint64_t	w_nlate;
	uint32_t	w_gen;
} W;

static volatile sig_atomic_t stopping;

static void
on_stop(int sig)
{
	(void) sig;
	stopping = 1;
}

static void
acc_add(acc_t *a, int64_t ms)
{
	a->a_n++;
	if (ms > a->a_max_ms)
		a->a_max_ms = ms;
	a->a_hist[ms < HIST_MS ? ms : HIST_MS]++;
}

/* The 99th percentile, in ms: the least that 99% of them do not pass. */
static int64_t
acc_p99(const acc_t *a)
{
	uint64_t need = (a->a_n * 99 + 99) / 100, cum = 0;

	for (int64_t ms = 0; ms < HIST_MS; ms++)
		if ((cum += a->a_hist[ms]) >= need)
			return (ms);
	return (a->a_max_ms);
}

static int
src_index(const char *name)
{
	for (int i = 0; i < S_N; i++)
		if (strcmp(name, src_name[i]) == 0)
			return (i);
	return (S_OTHER);
}

/*
 * The run at t that [a, b] overlaps most: its source (S_NONE when none
 * does), its number into *run.
 */
static int
attribute(const tgt_t *t, int64_t a, int64_t b, uint64_t *run)
{
	soak_slot_t s;
	int64_t best = 0, now = soak_now();
	int src = S_NONE;

	*run = 0;
	soak_slot_read(&W.w_ctl->c_slot[t->t_slot], &s);
	for (uint64_t k = 0; k < s.s_nruns && k < SOAK_RUNS; k++) {
		const soak_run_t *r = &s.s_run[(s.s_nruns - 1 - k) % SOAK_RUNS];
		int64_t end = r->r_end_ns != 0 ? r->r_end_ns : now;
		int64_t ov = (end < b ? end : b) -
		    (r->r_start_ns > a ? r->r_start_ns : a);

		if (ov > best) {
			best = ov;
			*run = r->r_id;
			src = src_index(r->r_source);
		}
	}
	return (src);
}

/*
 * How long, in ms, of [a, b] the watchdog itself went without a look for
 * LATE_NS or more: time the machine ran nothing of the soak's, or not
 * the watchdog (said beside a failure, which it does not excuse).
 */
static int64_t
late_within(int64_t a, int64_t b)
{
	int64_t sum = 0;

	for (uint64_t k = 0; k < W.w_nlate && k < LATE_RING; k++) {
		int64_t f = W.w_late[k].l_from, t = W.w_late[k].l_to;

		f = f > a ? f : a;
		t = t < b ? t : b;
		if (t > f)
			sum += t - f;
	}
	return (sum / 1000000);
}

static void
say_fail(const char *line)
{
	(void) printf("fail %s\n", line);
	(void) fflush(stdout);
	W.w_fails++;
}

/* A stop of thread tid from a to b, or a heartbeat gap (tid 0). */
static void
record(tgt_t *t, pid_t tid, int64_t a, int64_t b)
{
	int64_t ms = (b - a) / 1000000;
	uint64_t run;
	int src = attribute(t, a, b, &run);
	char line[200];

	if (ms < 0)
		ms = 0;
	acc_add(tid != 0 ? &t->t_stop[src] : &t->t_gap[src], ms);
	if (tid != 0 && ms > W.w_stop_ms)
		(void) snprintf(line, sizeof (line), "stop %s %s run=%llu "
		    "tid=%d ms=%lld late=%lld", t->t_kind, src_name[src],
		    (unsigned long long)run, (int)tid, (long long)ms,
		    (long long)late_within(a, b));
	else if (tid == 0 && ms > W.w_gap_ms)
		(void) snprintf(line, sizeof (line), "gap %s %s run=%llu "
		    "ms=%lld late=%lld", t->t_kind, src_name[src],
		    (unsigned long long)run, (long long)ms,
		    (long long)late_within(a, b));
	else
		return;
	say_fail(line);
}

/* ------------------------------------------------------------------ */
/* Looking. */

static thr_t *
thread_of(tgt_t *t, pid_t tid)
{
	char path[96];
	int fd;

	for (size_t i = 0; i < t->t_n; i++)
		if (t->t_thr[i].th_tid == tid)
			return (&t->t_thr[i]);
	(void) snprintf(path, sizeof (path), "/proc/%d/task/%d/stat",
	    (int)t->t_pid, (int)tid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (NULL);
	if (t->t_n == t->t_cap) {
		size_t cap = t->t_cap != 0 ? t->t_cap * 2 : 64;
		thr_t *v = realloc(t->t_thr, cap * sizeof (*v));

		if (v == NULL) {
			(void) close(fd);
			return (NULL);
		}
		t->t_thr = v;
		t->t_cap = cap;
	}
	t->t_thr[t->t_n] = (thr_t){ .th_tid = tid, .th_fd = fd,
	    .th_sfd = -1 };
	return (&t->t_thr[t->t_n++]);
}

/*
 * The time thread th has run, ever (the first field of its schedstat, in
 * ns); 0 where the kernel does not say.
 */
static uint64_t
ran_ns(tgt_t *t, thr_t *th)
{
	char path[96], buf[128];
	unsigned long long ns = 0;
	ssize_t n;

	if (th->th_sfd < 0) {
		(void) snprintf(path, sizeof (path),
		    "/proc/%d/task/%d/schedstat", (int)t->t_pid,
		    (int)th->th_tid);
		th->th_sfd = open(path, O_RDONLY | O_CLOEXEC);
	}
	if (th->th_sfd < 0 || (n = pread(th->th_sfd, buf, sizeof (buf) - 1,
	    0)) <= 0)
		return (0);
	buf[n] = '\0';
	return (sscanf(buf, "%llu", &ns) == 1 ? (uint64_t)ns : 0);
}

/*
 * One thread's state now: a stop begun, gone on, or ended.  A stop is
 * what is proven of it: seen stopped from one look (th_since) to another
 * (th_last) without having run in between (its run time unchanged: a
 * thread let run for less than a look between two stops has had two).
 * Is the thread alive?
 */
static int
look_thread(tgt_t *t, thr_t *th, int64_t now)
{
	char c = soak_stat_state(th->th_fd);
	int stopped = c == 't' || (c == 'T' && !t->t_group);

	if (c == 0)
		return (0);	/* gone: reaped below */
	th->th_gen = W.w_gen;
	if (th->th_stopped && (!stopped || ran_ns(t, th) != th->th_ran_ns)) {
		th->th_stopped = 0;
		record(t, th->th_tid, th->th_since, th->th_last);
	}
	if (stopped && !th->th_stopped) {
		th->th_stopped = 1;
		th->th_since = now;
		th->th_ran_ns = ran_ns(t, th);
	}
	th->th_last = now;
	return (c != 'Z' && c != 'X');
}

/* Threads no longer listed: a stop they were in ends now. */
static void
reap_threads(tgt_t *t, int64_t now)
{
	for (size_t i = 0; i < t->t_n; ) {
		thr_t *th = &t->t_thr[i];

		if (th->th_gen == W.w_gen) {
			i++;
			continue;
		}
		if (th->th_stopped)
			record(t, th->th_tid, th->th_since, th->th_last);
		(void) close(th->th_fd);
		if (th->th_sfd >= 0)
			(void) close(th->th_sfd);
		*th = t->t_thr[--t->t_n];
	}
}

static void
look_target(tgt_t *t, int64_t now)
{
	char path[64], line[100];
	struct dirent *e;
	DIR *d;
	int live = 0;

	(void) snprintf(path, sizeof (path), "/proc/%d/task", (int)t->t_pid);
	if ((d = opendir(path)) != NULL) {
		while ((e = readdir(d)) != NULL) {
			thr_t *th;

			if (e->d_name[0] < '0' || e->d_name[0] > '9' ||
			    (th = thread_of(t, atoi(e->d_name))) == NULL)
				continue;
			live += look_thread(t, th, now);
		}
		(void) closedir(d);
	}
	reap_threads(t, now);
	if (live > 0 || soak_alive_once(t->t_pid)) {
		t->t_none_since = 0;
	} else if (t->t_none_since == 0) {
		t->t_none_since = now;
	} else if (now - t->t_none_since > DEAD_NS) {
		soak_slot_t s;

		soak_slot_read(&W.w_ctl->c_slot[t->t_slot], &s);
		t->t_dead = 1;
		(void) snprintf(line, sizeof (line), "dead %s run=%llu",
		    t->t_kind, (unsigned long long)soak_slot_last(&s).r_id);
		say_fail(line);
	}
}

static void
drain_gaps(tgt_t *t)
{
	const soak_hb_t *h = t->t_hb;
	uint64_t head = __atomic_load_n(&h->h_ngaps, __ATOMIC_ACQUIRE);

	if (head - t->t_gaps_seen > SOAK_GAPS)
		t->t_gaps_seen = head - SOAK_GAPS;	/* lost: too many */
	for (; t->t_gaps_seen < head; t->t_gaps_seen++) {
		soak_gap_t g = h->h_gap[t->t_gaps_seen % SOAK_GAPS];

		record(t, 0, g.g_end_ns - g.g_ns, g.g_end_ns);
	}
}

/* A target that has a slot, and its heartbeat file, from now on. */
static void
attach(int i)
{
	const soak_slot_t *s = &W.w_ctl->c_slot[i];
	char path[4096];
	tgt_t *t;

	if (W.w_tgt[i] != NULL || __atomic_load_n(&s->s_pid,
	    __ATOMIC_ACQUIRE) == 0 || !__atomic_load_n(&s->s_ready,
	    __ATOMIC_ACQUIRE) || (t = calloc(1, sizeof (*t))) == NULL)
		return;
	(void) snprintf(path, sizeof (path), SOAK_HB_FMT, W.w_dir, i);
	if ((t->t_hb = soak_map(path, sizeof (soak_hb_t), 0)) == NULL) {
		free(t);
		return;
	}
	t->t_slot = i;
	t->t_pid = s->s_pid;
	t->t_group = (int)s->s_group_stops;
	(void) snprintf(t->t_kind, sizeof (t->t_kind), "%s", s->s_kind);
	t->t_gaps_seen = __atomic_load_n(&t->t_hb->h_ngaps, __ATOMIC_ACQUIRE);
	W.w_tgt[i] = t;
}

static void
look(int64_t now)
{
	W.w_gen++;
	W.w_looks++;
	for (int i = 0; i < SOAK_SLOTS; i++) {
		attach(i);
		if (W.w_tgt[i] != NULL && !W.w_tgt[i]->t_dead) {
			look_target(W.w_tgt[i], now);
			drain_gaps(W.w_tgt[i]);
		}
	}
}

/* ------------------------------------------------------------------ */
/* The end. */

static void
finish_target(tgt_t *t, int64_t now)
{
	int64_t stall = (now - __atomic_load_n(&t->t_hb->h_last_ns,
	    __ATOMIC_ACQUIRE)) / 1000000;
	char line[100];

	for (size_t i = 0; i < t->t_n; i++)
		if (t->t_thr[i].th_stopped)
			record(t, t->t_thr[i].th_tid, t->t_thr[i].th_since,
			    t->t_thr[i].th_last);
	if (!t->t_dead)
		drain_gaps(t);
	if (!t->t_dead && stall > W.w_gap_ms) {
		(void) snprintf(line, sizeof (line), "stall %s ms=%lld",
		    t->t_kind, (long long)stall);
		say_fail(line);
	}
	for (int s = 0; s < S_N; s++) {
		const acc_t *st = &t->t_stop[s], *g = &t->t_gap[s];

		if (st->a_n == 0 && g->a_n == 0)
			continue;
		(void) printf("stat %s %s %llu %lld %lld %llu %lld\n",
		    t->t_kind, src_name[s], (unsigned long long)st->a_n,
		    (long long)st->a_max_ms, (long long)acc_p99(st),
		    (unsigned long long)g->a_n, (long long)g->a_max_ms);
	}
	(void) printf("selfcheck %s %u\n", t->t_kind,
	    __atomic_load_n(&t->t_hb->h_failures, __ATOMIC_ACQUIRE));
}

static int
usage(void)
{
	(void) fprintf(stderr, "usage: soak_watch [-s STOP_MS] [-g GAP_MS] "
	    "[-i LOOK_MS] [-L SECONDS] DIR\n");
	return (2);
}

int
main(int argc, char **argv)
{
	struct sigaction sa;
	int64_t life = 3600, next, now, last;
	int c;

	W.w_stop_ms = 1000;
	W.w_gap_ms = 1500;
	W.w_tick = 2000000;
	while ((c = getopt(argc, argv, "s:g:i:L:")) != -1) {
		if (c == 'i' && atol(optarg) > 0)
			W.w_tick = atol(optarg) * 1000000LL;
		else if (c == 's')
			W.w_stop_ms = atol(optarg);
		else if (c == 'g')
			W.w_gap_ms = atol(optarg);
		else if (c == 'L')
			life = atol(optarg);
		else
			return (usage());
	}
	if (optind != argc - 1)
		return (usage());
	W.w_dir = argv[optind];
	if ((W.w_ctl = soak_map_ctl(W.w_dir)) == NULL) {
		(void) fprintf(stderr, "soak_watch: %s/ctl: %s\n", W.w_dir,
		    strerror(errno));
		return (1);
	}
	memset(&sa, 0, sizeof (sa));
	sa.sa_handler = on_stop;
	(void) sigaction(SIGTERM, &sa, NULL);
	(void) sigaction(SIGINT, &sa, NULL);
	/* The instrument first: it looks on time on a busy machine. */
	(void) setpriority(PRIO_PROCESS, 0, -10);
	now = last = soak_now();
	life = now + life * 1000000000LL;
	look(now);
	(void) printf("ready\n");
	(void) fflush(stdout);
	for (next = now + W.w_tick; !stopping && now < life; last = now) {
		struct timespec ts = { (time_t)(next / 1000000000LL),
		    (long)(next % 1000000000LL) };

		(void) clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts,
		    NULL);
		now = soak_now();
		if (now - last > W.w_max_tick)
			W.w_max_tick = now - last;
		if (now - last >= LATE_NS) {
			W.w_late[W.w_nlate % LATE_RING].l_from = last;
			W.w_late[W.w_nlate++ % LATE_RING].l_to = now;
		}
		look(now);
		next = next + W.w_tick > now ? next + W.w_tick : now + W.w_tick;
	}
	for (int i = 0; i < SOAK_SLOTS; i++)
		if (W.w_tgt[i] != NULL)
			finish_target(W.w_tgt[i], soak_now());
	(void) printf("watch %llu %lld %llu\n", (unsigned long long)W.w_looks,
	    (long long)(W.w_max_tick / 1000000),
	    (unsigned long long)W.w_fails);
	return (0);
}
