/* SPDX-License-Identifier: BSD-2-Clause */
/* soak_common.h: soak_common.c's functions (see there). */
#ifndef	_SOAK_COMMON_H
#define	_SOAK_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "soak.h"

int64_t	soak_now(void);
void	*soak_map(const char *path, size_t size, int create);
soak_ctl_t *soak_map_ctl(const char *dir);
int	soak_slot_of(const soak_ctl_t *, pid_t);
void	soak_slot_read(const soak_slot_t *, soak_slot_t *copy);
soak_run_t soak_slot_last(const soak_slot_t *);
void	soak_slot_write(soak_slot_t *, const soak_run_t *, int is_new);
char	soak_stat_state(int fd);
int	soak_alive_once(pid_t);
int	soak_alive(pid_t);
uint64_t soak_starttime(pid_t);
int	soak_target_alive(const soak_slot_t *);

#endif	/* _SOAK_COMMON_H */
