/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fixture.h: fixtures/sockfix started by a test, and its manifest (its
 * own view of every fd it opened) read and parsed.  Shared by the test
 * programs that compare pfiles with the manifest.
 */
#ifndef	_FIXTURE_H
#define	_FIXTURE_H

#include "expect.h"
#include "testutil.h"

typedef struct fixture {
	tu_child_t	fx_child;
	manifest_t	*fx_manifest;
	char		fx_pid[16];
} fixture_t;

/*
 * sockfix's sets of fds, the one list the test programs make their cases
 * from (a program that runs every set has one ATF case set_NAME per
 * set).  Each entry is X(NAME, KINDS, FLAGS):
 *
 *	NAME	the set's name in sockfix -s, a bare word: it is only ever
 *		stringized (#) or pasted (set_ ## NAME), never expanded, as
 *		`unix' is a macro under -std=gnu11;
 *	KINDS	the kinds of fd (sockfix's note() names) the set opens,
 *		comma-separated, or NULL for "all": the kinds of every set
 *		"all" opens;
 *	FLAGS	FX_TRY: sockfix may report the set skipped ("skip NAME
 *		ERRNO": it cannot exist on every machine); FX_ALL: the
 *		word "all" (with FX_STATE: the word "states"); FX_NAMED:
 *		opened only when named; FX_STATE: a set of sockets in still
 *		states, opened only when named or for "states".
 *
 * FX_SETS are "min" (no set: the inherited fds only), every set of
 * sockfix's "all", in sockfix's order, and "all"; FX_NAMED_SETS the sets
 * "all" leaves out (fixtures/sockfix.c, s_named); FX_STATE_SETS the sets
 * of still states, in sockfix's order, and "states".  fx_require_kinds()
 * checks a manifest against its entry both ways, so that a set sockfix
 * gains and this list lacks fails the "all" (or "states") case of
 * t_pfiles_fixture.
 */
#define	FX_TRY		0x1
#define	FX_ALL		0x2
#define	FX_NAMED	0x4
#define	FX_STATE	0x8

#define	FX_SETS(X)							\
	X(min, "inherited", 0)						\
	X(tcp, "tcp-listen,tcp-client,tcp-accepted", 0)			\
	X(tcp6, "tcp6-listen,tcp6-client,tcp6-accepted", FX_TRY)	\
	X(udp4, "udp4", 0)						\
	X(udp6, "udp6", FX_TRY)						\
	X(unix, "unix-listen,unix-client,unix-accepted", 0)		\
	X(abstract, "unix-abstract", 0)					\
	X(unnamed, "unix-unnamed", 0)					\
	X(socketpair, "socketpair-a,socketpair-b", 0)			\
	X(netlink, "netlink-route", 0)					\
	X(pipe, "pipe-read,pipe-write", 0)				\
	X(file, "file-locked", 0)					\
	X(fileflags, "file-flags", 0)					\
	X(devnull, "devnull", 0)					\
	X(eventfd, "eventfd", 0)					\
	X(epoll, "epoll", 0)						\
	X(dir, "dir", 0)						\
	X(deleted, "deleted", 0)					\
	X(high, "high", FX_TRY)						\
	X(opath, "opath", 0)						\
	X(symlink, "symlink", 0)					\
	X(memfd, "memfd", 0)						\
	X(tmpfile, "tmpfile", FX_TRY)					\
	X(blkdev, "blkdev", FX_TRY)					\
	X(all, NULL, FX_ALL)

#define	FX_NAMED_SETS(X)						\
	X(hostile, "hostile-newline,hostile-tab-del,hostile-esc,"	\
	    "hostile-badutf8,hostile-bidi,hostile-backslash,"		\
	    "hostile-utf8,hostile-unix-listen,hostile-unix-client,"	\
	    "hostile-unix-accepted,hostile-abstract", FX_NAMED)

#define	FX_STATE_SETS(X)						\
	X(closewait, "finwait2,closewait,finwait2-sent,closewait-unread", \
	    FX_STATE)							\
	X(backlog, "backlog-listen,backlog-client", FX_STATE)		\
	X(unread, "unread-writer,unread-reader", FX_STATE)		\
	X(stalled, "stalled-writer,stalled-reader", FX_STATE)		\
	X(udpq, "udpq", FX_STATE)					\
	X(unixq, "unixq-writer,unixq-reader,unixq-dgram-writer,"	\
	    "unixq-dgram-reader,unixq-listen,unixq-waiting,"		\
	    "unixq-unconnected", FX_STATE)				\
	X(shared, "shared-listen,shared-dup,shared-many", FX_STATE)	\
	X(packet, "packet-lo,packet-any", FX_STATE | FX_TRY)		\
	X(nlgroups, "nlgroups", FX_STATE | FX_TRY)			\
	X(states, NULL, FX_STATE | FX_ALL)

/* One entry of the list, as a table (fx_sets[], FX_SETS first). */
typedef struct fx_set {
	const char	*fs_name;
	const char	*fs_kinds;
	int		fs_flags;
} fx_set_t;

extern const fx_set_t	fx_sets[];
extern const size_t	fx_nsets;

/* The entry of set name; fails the test when the list has none. */
const fx_set_t	*fx_set(const char *name);

/*
 * Start sockfix with argv (NULL-ended; the caller's choice of options,
 * "-s set" among them) and read its manifest, up to its "end" line.
 * Fails the test when sockfix gives none, or one that does not parse, or
 * one of another pid.
 */
void	fx_start(fixture_t *, const char *const argv[]);

/*
 * sockfix -t FX_SECONDS -s set [-c comm] [extra ...]: fx_start(), then
 * the case is skipped (sockfix stopped first) when sockfix says the set
 * cannot exist here.  comm and extra (NULL-ended) may be NULL.
 */
#define	FX_SECONDS	"120"
void	fx_start_set(fixture_t *, const char *set, const char *comm,
	    const char *const extra[]);

/* Stop the fixture: it must exit 0 by itself once its stdin is closed. */
void	fx_stop(fixture_t *);

/*
 * Fail unless fx's manifest (sockfix started with -s set, one name of
 * the list) holds exactly the kinds of fd of set's entry: each of them,
 * and none other but "inherited" (the fds sockfix did not open).  For
 * "all" ("states"), the kinds of every set "all" ("states") opens, where
 * a set FX_TRY may be missing only when the manifest says it was
 * skipped.
 */
void	fx_require_kinds(const fixture_t *, const char *set);

#endif	/* _FIXTURE_H */
