/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * soak.h: what the soak's programs share (soak/soak_target.c, the
 * targets; soak/soak_watch.c, the watchdog and the runner of pfiles),
 * through two kinds of files of the soak's folder, each mapped shared:
 *
 *   ctl	one slot per target: its pid, kind, and the ring of the
 *		last runs of pfiles at it (written by the runner: the run's
 *		number, source and CLOCK_MONOTONIC start and end).  The
 *		target reads it to know when no run is at it (a quiet
 *		check); the watchdog, to put each stop and each gap down to
 *		the run it fell in.
 *   hb.N	slot N's heartbeat: the target's last beat and its gaps,
 *		its self-check failures, and what an exec storm's images
 *		hand on to the next one (the fds they keep).
 *
 * A slot's runs change under a sequence number (odd while written),
 * read again until it holds still.
 */
#ifndef	_SOAK_H
#define	_SOAK_H

#include <stdint.h>

#define	SOAK_CTL_MAGIC	0x736f616b63746c31ULL	/* "soakctl1" */
#define	SOAK_HB_MAGIC	0x736f616b68623031ULL	/* "soakhb01" */
#define	SOAK_SLOTS	16
#define	SOAK_NAME	16		/* a kind's or a source's name */
#define	SOAK_RUNS	32		/* the runs a slot remembers */
#define	SOAK_GAPS	128		/* the gaps a heartbeat queues */
#define	SOAK_KEEP	64		/* the fds an exec storm keeps */
#define	SOAK_SUSPECTS	32		/* unknown fds of the last check */
#define	SOAK_CATS	16		/* failure categories */
#define	SOAK_GAP_MIN_NS	5000000LL	/* a heartbeat gap worth queueing */

typedef struct soak_run {
	uint64_t	r_id;		/* 0: none */
	int64_t		r_start_ns;
	int64_t		r_end_ns;	/* 0 while it runs */
	char		r_source[SOAK_NAME];
} soak_run_t;

typedef struct soak_slot {
	uint32_t	s_seq;		/* odd while the runs change */
	int32_t		s_pid;		/* 0: free */
	uint32_t	s_ready;	/* its heartbeat file is made */
	uint32_t	s_group_stops;	/* SIGSTOP is part of its life */
	uint64_t	s_start;	/* its start time (/proc/PID/stat) */
	char		s_kind[SOAK_NAME];
	uint64_t	s_nruns;	/* runs ever; the ring's head */
	soak_run_t	s_run[SOAK_RUNS];
} soak_slot_t;

typedef struct soak_ctl {
	uint64_t	c_magic;
	uint64_t	c_next_run;
	soak_slot_t	c_slot[SOAK_SLOTS];
} soak_ctl_t;

typedef struct soak_gap {
	int64_t		g_end_ns;
	int64_t		g_ns;
} soak_gap_t;

typedef struct soak_fd {
	int32_t		f_fd;
	uint32_t	f_pad;
	uint64_t	f_dev;
	uint64_t	f_ino;
} soak_fd_t;

typedef struct soak_hb {
	uint64_t	h_magic;
	uint64_t	h_beats;
	int64_t		h_last_ns;	/* the last beat */
	uint64_t	h_ngaps;	/* gaps ever; the ring's head */
	soak_gap_t	h_gap[SOAK_GAPS];
	int64_t		h_life_ns;	/* the target ends then */
	uint64_t	h_images;	/* exec storm: images so far */
	uint32_t	h_failures;	/* self-check failures */
	uint32_t	h_cat[SOAK_CATS];	/* of each category */
	uint32_t	h_nkeep;
	soak_fd_t	h_keep[SOAK_KEEP];
	uint32_t	h_nsus;
	soak_fd_t	h_sus[SOAK_SUSPECTS];
} soak_hb_t;

/* The files of a soak folder, and their sizes. */
#define	SOAK_CTL_FILE	"ctl"
#define	SOAK_HB_FMT	"%s/hb.%d"

#endif	/* _SOAK_H */
