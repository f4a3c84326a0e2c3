/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pf_sockfmt.h: what pfiles_fmt.c asks of pf_sockfmt.c, the socket part of
 * the text formatter.  Private to the formatter; what the JSON output
 * shares is in pfiles_fmt.h.
 */
#ifndef	_PF_SOCKFMT_H
#define	_PF_SOCKFMT_H

#include "pf_lbuf.h"
#include "pfiles_fmt.h"

/*
 * A socket's lines after its flags line, into lb: type, options,
 * sockname and peername, peer, endpoints; each only when the record has
 * what it shows.
 */
extern void pf_socket_lines(const pf_ctx_t *, lbuf_t *, const pf_items_t *);

/* The state line of a socket, where it has one (pf_sockstate.c). */
extern void pf_state_line(lbuf_t *, const pf_items_t *);

/* What the source could not find out for this socket, added up in ctx. */
extern void pf_note_gaps(pf_ctx_t *, const pf_items_t *);

#endif	/* _PF_SOCKFMT_H */
