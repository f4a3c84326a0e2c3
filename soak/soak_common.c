/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * soak_common.c: the soak's shared files (soak.h), for the targets, the
 * watchdog and the runner: mapping them, a slot read whole under its
 * sequence number, a run written into its slot.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "soak_common.h"

int64_t
soak_now(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

/*
 * path mapped shared, size bytes (made, zero-filled, when create and it
 * is shorter), its fd closed again: the mapping holds no fd.  NULL with
 * errno when it cannot be.
 */
void *
soak_map(const char *path, size_t size, int create)
{
	struct stat st;
	void *p;
	int fd, saved;

	fd = open(path, (create ? O_CREAT : 0) | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0)
		return (NULL);
	if (fstat(fd, &st) != 0 || ((size_t)st.st_size < size &&
	    (!create || ftruncate(fd, (off_t)size) != 0))) {
		saved = errno != 0 ? errno : EINVAL;
		(void) close(fd);
		errno = saved;
		return (NULL);
	}
	p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	saved = errno;
	(void) close(fd);
	errno = saved;
	return (p == MAP_FAILED ? NULL : p);
}

soak_ctl_t *
soak_map_ctl(const char *dir)
{
	char path[4096];
	soak_ctl_t *c;

	(void) snprintf(path, sizeof (path), "%s/%s", dir, SOAK_CTL_FILE);
	if ((c = soak_map(path, sizeof (*c), 1)) == NULL)
		return (NULL);
	(void) __atomic_compare_exchange_n(&c->c_magic, &(uint64_t){ 0 },
	    SOAK_CTL_MAGIC, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return (c);
}

/* The slot of pid, or -1. */
int
soak_slot_of(const soak_ctl_t *c, pid_t pid)
{
	for (int i = 0; i < SOAK_SLOTS; i++)
		if (__atomic_load_n(&c->c_slot[i].s_pid, __ATOMIC_ACQUIRE) ==
		    (int32_t)pid)
			return (i);
	return (-1);
}

/*
 * A copy of slot s taken while nobody wrote it (a writer holds it for
 * microseconds); after 100000 tries, the last copy, which may be torn.
 */
void
soak_slot_read(const soak_slot_t *s, soak_slot_t *copy)
{
	for (int i = 0; i < 100000; i++) {
		uint32_t a = __atomic_load_n(&s->s_seq, __ATOMIC_ACQUIRE);

		if (a & 1) {
			(void) sched_yield();
			continue;
		}
		memcpy(copy, (const void *)s, sizeof (*copy));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->s_seq, __ATOMIC_ACQUIRE) == a)
			return;
	}
}

/* The slot's latest run (r_id 0: none yet). */
soak_run_t
soak_slot_last(const soak_slot_t *s)
{
	soak_run_t none = { 0 };

	return (s->s_nruns == 0 ? none :
	    s->s_run[(s->s_nruns - 1) % SOAK_RUNS]);
}

/* Write run r into slot s (a new one, or the end of the latest). */
void
soak_slot_write(soak_slot_t *s, const soak_run_t *r, int is_new)
{
	(void) __atomic_add_fetch(&s->s_seq, 1, __ATOMIC_ACQ_REL);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	if (is_new)
		s->s_nruns++;
	s->s_run[(s->s_nruns - 1) % SOAK_RUNS] = *r;
	__atomic_thread_fence(__ATOMIC_RELEASE);
	(void) __atomic_add_fetch(&s->s_seq, 1, __ATOMIC_ACQ_REL);
}

/*
 * A /proc/.../stat text read from fd into buf: its fields after the
 * command's name (" S PPID ..."), or NULL.
 */
static const char *
stat_fields(int fd, char *buf, size_t size)
{
	ssize_t n = pread(fd, buf, size - 1, 0);
	const char *p;

	buf[n > 0 ? n : 0] = '\0';
	p = strrchr(buf, ')');
	return (p != NULL && p[1] == ' ' && p[2] != '\0' ? p + 1 : NULL);
}

/* The state letter of a /proc/.../stat text read from fd, or 0. */
char
soak_stat_state(int fd)
{
	char buf[512];
	const char *f = stat_fields(fd, buf, sizeof (buf));

	return (f != NULL ? f[1] : 0);
}

/*
 * Does pid live: has it a thread that is neither a zombie nor dead?  (A
 * process whose main thread has exited lives on in its other threads.)
 * One look; an exec in flight may show none for an instant.
 */
int
soak_alive_once(pid_t pid)
{
	char path[64];
	struct dirent *e;
	DIR *d;
	int live = 0;

	(void) snprintf(path, sizeof (path), "/proc/%d/task", (int)pid);
	if ((d = opendir(path)) == NULL)
		return (0);
	while (!live && (e = readdir(d)) != NULL) {
		char stat[96];
		int fd;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		(void) snprintf(stat, sizeof (stat), "%s/%d/stat", path,
		    atoi(e->d_name));
		if ((fd = open(stat, O_RDONLY | O_CLOEXEC)) >= 0) {
			char c = soak_stat_state(fd);

			live = c != 0 && c != 'Z' && c != 'X';
			(void) close(fd);
		}
	}
	(void) closedir(d);
	return (live);
}

/* pid's start time (the 22nd field of /proc/PID/stat), or 0. */
uint64_t
soak_starttime(pid_t pid)
{
	char path[64], buf[1024];
	unsigned long long t = 0;
	const char *f;
	int fd;

	(void) snprintf(path, sizeof (path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return (0);
	f = stat_fields(fd, buf, sizeof (buf));
	(void) close(fd);
	if (f == NULL || sscanf(f, " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u "
	    "%*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &t) != 1)
		return (0);
	return ((uint64_t)t);
}

/* The same, looked at again for 200 ms before it is taken for dead. */
int
soak_alive(pid_t pid)
{
	for (int i = 0; i < 10; i++) {
		if (soak_alive_once(pid))
			return (1);
		if (kill(pid, 0) != 0 && errno == ESRCH)
			return (0);
		(void) usleep(20000);
	}
	return (0);
}

/* Does the target of slot s live: alive, and its pid not another's? */
int
soak_target_alive(const soak_slot_t *s)
{
	return (soak_alive(s->s_pid) && soak_starttime(s->s_pid) ==
	    s->s_start);
}
