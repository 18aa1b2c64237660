/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_FTSPACE_H
#define SV_FTSPACE_H

/*
 * The entries of one mlx5 flow table and its autogroups (sv_ftspace.c):
 * how many rules one priority of the mlx5 kernel holds.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sv_internal.h"

#define SV_FT_MAX_FTE 65536 /* MLX5_FS_MAX_ENTRIES */
#define SV_FT_MAX_TYPES 6   /* MLX5_FS_MAX_TYPES: large autogroups */
#define SV_FT_GROUP_SIZE (SV_FT_MAX_FTE / (SV_FT_MAX_TYPES + 1))

struct sv_ftspace {
	uint64_t *used; /* a bit per index taken by a group; NULL: none */
	struct {
		uint32_t start;	   /* first index */
		uint32_t n;	   /* entries in it, 0: no group */
		const void *owner; /* its mask */
	} big[SV_FT_MAX_TYPES];
	uint32_t nbig;
};

/* An entry for a new match of mask owner: its index in *fte. 0, ENOSPC
 * (the table is full for it) or ENOMEM. */
int sv_ftspace_add(struct sv_arena *a, struct sv_ftspace *s, const void *owner,
		   uint16_t *fte);
/* The entry at index fte goes (its group with it when it was the last). */
void sv_ftspace_del(struct sv_ftspace *s, uint16_t fte);
void sv_ftspace_fini(struct sv_arena *a, struct sv_ftspace *s);

#endif /* SV_FTSPACE_H */
