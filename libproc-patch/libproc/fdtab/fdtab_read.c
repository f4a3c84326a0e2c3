/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fdtab_read.c: a process's fd table read once from /proc (fdtab.h).
 *
 * A statx of each /proc/PID/fd/N, a few microseconds each (a lookup, a
 * check of ptrace access, the stat): the sockets' are kept, so that the
 * walk, which takes them from here, makes no second.  Listing 20,000 fds
 * takes as long as stating a third of them: with more than one CPU, a
 * second thread stats batches of the table while it is still being
 * listed, and the listing thread joins in once it is done.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/Pcontrol.h"
#include "fdtab/fdtab.h"

/* The fd numbers as they are listed, a batch at a time. */
typedef struct feed {
	pthread_mutex_t	fe_lock;
	pthread_cond_t	fe_more;
	int		**fe_fds;	/* each batch's fds */
	size_t		*fe_len;	/* and their number */
	size_t		fe_n, fe_cap;	/* batches listed */
	size_t		fe_next;	/* the next one to stat */
	int		fe_done;	/* the listing has ended */
} feed_t;

/* The share of the fds one thread stats, batch by batch, in fd order. */
typedef struct share {
	int		sh_dirfd;
	feed_t		*sh_feed;
	fdtab_t		sh_tab;		/* its sockets */
	void		(*sh_first)(void *);
	void		*sh_arg;
	int		sh_err;
} share_t;

/* The thread that stats a share while the table is still listed. */
typedef struct starter {
	share_t		*st_share;
	pthread_t	st_thread;
	int		st_started;
} starter_t;

/* Room for one element more in *vp (of *capp, n used): 0, or ENOMEM. */
static int
grow(void *vp, size_t *capp, size_t n, size_t size)
{
	void **v = vp;
	size_t cap;
	void *nv;

	if (n < *capp)
		return (0);
	cap = *capp == 0 ? 256 : *capp * 2;
	if ((nv = realloc(*v, cap * size)) == NULL)
		return (ENOMEM);
	*v = nv;
	*capp = cap;
	return (0);
}

/* One socket more in t: 0, or ENOMEM. */
static int
add_sock(fdtab_t *t, int fd, const struct statx *stx)
{
	fdsock_t *k;

	if (grow(&t->ft_socks, &t->ft_sockcap, t->ft_nsocks,
	    sizeof (*k)) != 0)
		return (ENOMEM);
	k = &t->ft_socks[t->ft_nsocks++];
	k->fk_fd = fd;
	k->fk_mode = stx->stx_mode;
	k->fk_uid = stx->stx_uid;
	k->fk_gid = stx->stx_gid;
	k->fk_major = stx->stx_dev_major;
	k->fk_minor = stx->stx_dev_minor;
	k->fk_rmajor = stx->stx_rdev_major;
	k->fk_rminor = stx->stx_rdev_minor;
	k->fk_ino = stx->stx_ino;
	k->fk_size = stx->stx_size;
	return (0);
}

/* The next batch listed, or NULL at the end: *np its number of fds. */
static const int *
take_batch(feed_t *fe, size_t *np)
{
	const int *fds = NULL;

	(void) pthread_mutex_lock(&fe->fe_lock);
	while (fe->fe_next == fe->fe_n && !fe->fe_done)
		(void) pthread_cond_wait(&fe->fe_more, &fe->fe_lock);
	if (fe->fe_next < fe->fe_n) {
		*np = fe->fe_len[fe->fe_next];
		fds = fe->fe_fds[fe->fe_next++];
	}
	(void) pthread_mutex_unlock(&fe->fe_lock);
	return (fds);
}

/*
 * The socket fds among the batches a share takes: a statx of each, as the
 * walk makes it (AT_STATX_DONT_SYNC: never a wait on a file's
 * filesystem).
 */
static void *
read_share(void *arg)
{
	share_t *sh = arg;
	struct statx stx;
	const int *fds;
	char name[16];
	size_t n;

	while ((fds = take_batch(sh->sh_feed, &n)) != NULL) {
		for (size_t i = 0; i < n && sh->sh_err == 0; i++) {
			(void) snprintf(name, sizeof (name), "%d", fds[i]);
			if (statx(sh->sh_dirfd, name, AT_STATX_DONT_SYNC,
			    STATX_BASIC_STATS, &stx) != 0 ||
			    !S_ISSOCK(stx.stx_mode))
				continue;
			if (sh->sh_tab.ft_nsocks == 0 && sh->sh_first != NULL)
				sh->sh_first(sh->sh_arg);
			sh->sh_err = add_sock(&sh->sh_tab, fds[i], &stx);
		}
	}
	return (NULL);
}

/* One batch more into the feed: 0, or ENOMEM. */
static int
feed_add(feed_t *fe, int *fds, size_t n)
{
	int err = 0;

	(void) pthread_mutex_lock(&fe->fe_lock);
	if (fe->fe_n == fe->fe_cap) {
		size_t cap = fe->fe_cap == 0 ? 16 : fe->fe_cap * 2;
		int **f = realloc(fe->fe_fds, cap * sizeof (*f));
		size_t *l = f != NULL ? realloc(fe->fe_len, cap * sizeof (*l)) :
		    NULL;

		if (f != NULL)
			fe->fe_fds = f;
		if (l != NULL) {
			fe->fe_len = l;
			fe->fe_cap = cap;
		} else {
			err = ENOMEM;
		}
	}
	if (err == 0) {
		fe->fe_fds[fe->fe_n] = fds;
		fe->fe_len[fe->fe_n++] = n;
		(void) pthread_cond_signal(&fe->fe_more);
	}
	(void) pthread_mutex_unlock(&fe->fe_lock);
	return (err);
}

static void
start_helper(starter_t *st)
{
	sigset_t all, old;

	(void) sigfillset(&all);
	(void) pthread_sigmask(SIG_SETMASK, &all, &old);
	st->st_started = pthread_create(&st->st_thread, NULL, read_share,
	    st->st_share) == 0;
	(void) pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/*
 * List the fd directory dirfd into the feed; once a second batch comes
 * (a table of more than one), st (when not NULL) starts a thread that
 * stats them meanwhile.  The feed's end is said either way.  0 or an
 * errno.
 */
static int
list_fds(int dirfd, feed_t *fe, starter_t *st)
{
	char *dents = malloc(FDTAB_DENTS);
	long got = 0;
	int err = dents == NULL ? ENOMEM : 0;

	while (err == 0) {
		int *fds = malloc(FDTAB_BATCH * sizeof (*fds));

		if (fds == NULL) {
			err = ENOMEM;
			break;
		}
		if ((got = fdtab_next(dirfd, dents, fds)) <= 0 ||
		    (err = feed_add(fe, fds, (size_t)got)) != 0) {
			free(fds);
			break;
		}
		if (fe->fe_n == 2 && st != NULL)
			start_helper(st);
	}
	if (err == 0 && got < 0)
		err = errno;
	free(dents);
	(void) pthread_mutex_lock(&fe->fe_lock);
	fe->fe_done = 1;
	(void) pthread_cond_broadcast(&fe->fe_more);
	(void) pthread_mutex_unlock(&fe->fe_lock);
	return (err);
}

/*
 * The n fds listed (increasing, after those kept so far) as runs of
 * consecutive numbers into t: a few runs for a table of fds opened one
 * after another.  0, or ENOMEM.
 */
static int
keep_runs(fdtab_t *t, const int *fds, size_t n)
{
	size_t k = t->ft_nruns;

	for (size_t i = 0; i < n; i++) {
		if (k > 0 && fds[i] == t->ft_runs[k - 1].r_first +
		    t->ft_runs[k - 1].r_n) {
			t->ft_runs[k - 1].r_n++;
			continue;
		}
		if (grow(&t->ft_runs, &t->ft_runcap, k, sizeof (fdrun_t)) != 0)
			return (ENOMEM);
		t->ft_runs[k].r_first = fds[i];
		t->ft_runs[k].r_n = 1;
		k++;
	}
	t->ft_nruns = k;
	return (0);
}

/* The two shares' sockets into t, merged by fd.  0, or ENOMEM. */
static int
merge_shares(fdtab_t *t, const share_t *sh)
{
	const fdtab_t *a = &sh[0].sh_tab, *b = &sh[1].sh_tab;
	size_t i = 0, j = 0, n = a->ft_nsocks + b->ft_nsocks;

	if (n == 0)
		return (0);
	if ((t->ft_socks = malloc(n * sizeof (fdsock_t))) == NULL)
		return (ENOMEM);
	t->ft_sockcap = n;
	while (i < a->ft_nsocks || j < b->ft_nsocks) {
		if (j == b->ft_nsocks || (i < a->ft_nsocks &&
		    a->ft_socks[i].fk_fd < b->ft_socks[j].fk_fd))
			t->ft_socks[t->ft_nsocks++] = a->ft_socks[i++];
		else
			t->ft_socks[t->ft_nsocks++] = b->ft_socks[j++];
	}
	return (0);
}

/* The listing's batches into t's runs, and the feed let go of. */
static int
feed_end(feed_t *fe, fdtab_t *t, int err)
{
	for (size_t b = 0; b < fe->fe_n; b++) {
		if (err == 0)
			err = keep_runs(t, fe->fe_fds[b], fe->fe_len[b]);
		free(fe->fe_fds[b]);
	}
	t->ft_listed = err == 0;
	free(fe->fe_fds);
	free(fe->fe_len);
	(void) pthread_mutex_destroy(&fe->fe_lock);
	(void) pthread_cond_destroy(&fe->fe_more);
	return (err);
}

int
fdtab_read(fdtab_t *t, int procfd, void (*first)(void *), void *arg)
{
	share_t sh[2];
	starter_t st;
	feed_t fe;
	int d, err;

	fdtab_clear(t);
	if ((d = openat(procfd, "fd", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) < 0)
		return (errno);
	memset(&fe, 0, sizeof (fe));
	(void) pthread_mutex_init(&fe.fe_lock, NULL);
	(void) pthread_cond_init(&fe.fe_more, NULL);
	memset(sh, 0, sizeof (sh));
	memset(&st, 0, sizeof (st));
	for (int k = 0; k < 2; k++) {
		sh[k].sh_dirfd = d;
		sh[k].sh_first = first;
		sh[k].sh_arg = arg;
		sh[k].sh_feed = &fe;
	}
	st.st_share = &sh[1];
	err = list_fds(d, &fe, Pconcurrent() ? &st : NULL);
	(void) read_share(&sh[0]);
	if (st.st_started)
		(void) pthread_join(st.st_thread, NULL);
	(void) close(d);
	err = feed_end(&fe, t, err);
	if (err == 0)
		err = sh[0].sh_err != 0 ? sh[0].sh_err : sh[1].sh_err;
	if (err == 0)
		err = merge_shares(t, sh);
	for (int k = 0; k < 2; k++)
		fdtab_clear(&sh[k].sh_tab);
	if (err != 0)
		fdtab_clear(t);
	return (err);
}
