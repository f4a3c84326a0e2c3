/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * soak_target.h: the machinery every soak target shares
 * (soak_target.c) and its modes (soak_modes.c, soak_blocked.c).
 */
#ifndef	_SOAK_TARGET_H
#define	_SOAK_TARGET_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

#include "soak_common.h"

/* What a self-check found; soak.h's SOAK_CATS at most. */
enum {
	C_FD_LEFT,	/* an fd it did not open, there at two quiet checks */
	C_FD_GONE,	/* an fd of its own closed by someone else */
	C_FD_SWAPPED,	/* an fd of its own now another file */
	C_MASK,		/* a thread's signal mask changed */
	C_REGS,		/* a callee-saved register changed under a loop */
	C_MEMORY,	/* the checksum of its pattern changed */
	C_EINTR,	/* a call that nothing may interrupt failed EINTR */
	C_EARLY,	/* a sleep or timed wait ended early */
	C_WAKE,		/* a blocked call ended with nobody waking it */
	C_MAPS,		/* an anonymous executable mapping came or went */
	C_EXEC,		/* a new image found what it inherits changed */
	C_SETUP,	/* it could not make what its mode needs */
	C_NCATS
};

/*
 * A mode: what it makes, a thread of its own (or NULL), then its main
 * thread's life, which never returns (NULL: loops with known registers,
 * a 5 ms sleep between them; work_loop()).
 */
typedef struct soak_mode {
	const char	*m_name;
	void		(*m_setup)(void);
	void		*(*m_thread)(void *);
	void		(*m_run)(void);
	int		m_group_stops;	/* SIGSTOP is part of its life */
	int		m_check_ms;	/* between two checks of its fds */
} soak_mode_t;

/* The target, as its machinery knows it. */
typedef struct soak_target {
	const char	*t_kind;
	const char	*t_dir;
	char		*t_argv0;
	int		t_image;	/* an exec storm's later image */
	soak_ctl_t	*t_ctl;
	soak_slot_t	*t_slot;
	soak_hb_t	*t_hb;
	uint64_t	t_mask_main;	/* threads made from main start so */
} soak_target_t;

extern soak_target_t T;
extern pthread_mutex_t soak_fd_mu;

void	fail(int cat, const char *fmt, ...)
	    __attribute__((__format__(__printf__, 2, 3)));
void	die_setup(const char *what) __attribute__((__noreturn__));

/* The fds it knows as its own: noted once made, dropped when closed. */
int	fd_note(int fd);
void	fd_note_locked(int fd);
void	fd_drop_locked(int fd);
void	fd_keep_across_exec(int fd);

uint64_t my_mask(void);
uint64_t block_all(void);
void	check_mask(uint64_t *want, const char *who);
void	sleep_checked(int64_t ns, int eintr_ok, const char *who);
void	burst(void);
void	work_loop(int64_t sleep_ns, int eintr_ok, const char *who)
	    __attribute__((__noreturn__));
pthread_t spawn(void *(*fn)(void *), void *arg, int detached);
unsigned soak_rand(unsigned *seed);

void	make_socketpairs(int n);
int	loopback_listener(uint16_t *port);
int	loopback_connect(uint16_t port);

extern const soak_mode_t soak_modes[];
extern const soak_mode_t soak_mode_blocked;

#endif	/* _SOAK_TARGET_H */
