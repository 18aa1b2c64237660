/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The entries of one mlx5 flow table, as mlx5 core hands them out (Linux
 * 6.1), for the levels of a port's table on the mlx5 profile.
 *
 * mlx5_ib makes one flow table per priority it uses (get_flow_table(),
 * _get_flow_table() through _get_prio()): an autogrouped table of
 * min(MLX5_FS_MAX_ENTRIES, 2^log_max_ft_size) = 65536 entries with
 * MLX5_FS_MAX_TYPES = 6 autogroups (mlx5_create_auto_grouped_flow_table():
 * group_size = 65536 / (6 + 1) = 9362, no entry reserved). A rule whose
 * match is new in the table takes an entry (FTE) in a flow group of its
 * mask (match criteria) with room (try_add_to_existing_fg()); when there
 * is none, alloc_auto_flow_group() makes a group: 9362 entries while
 * fewer than 6 such groups exist, else one entry, at the first free range
 * of the table's indexes; no range left is ENOSPC. A group goes when its
 * last entry does (and a large one no longer counts towards the 6). So a
 * table takes 65536 rules of one mask (6 x 9362 and then 9364 groups of
 * one); masks beyond the sixth get one-entry groups, which run out sooner
 * when large groups stand half empty.
 */

#include <errno.h>
#include <string.h>

#include "sv_ftspace.h"

#define SV_FT_WORDS (SV_FT_MAX_FTE / 64)

static bool
sv_ft_bit(const uint64_t *u, uint32_t i)
{
	return (u[i / 64] >> (i % 64)) & 1;
}

static void
sv_ft_set(uint64_t *u, uint32_t start, uint32_t n, bool on)
{
	uint32_t i;

	for (i = start; i < start + n; i++) {
		if (on)
			u[i / 64] |= UINT64_C(1) << (i % 64);
		else
			u[i / 64] &= ~(UINT64_C(1) << (i % 64));
	}
}

/* First index of n free ones in a row, or SV_FT_MAX_FTE (first fit, as
 * alloc_auto_flow_group() walks the groups in index order). */
static uint32_t
sv_ft_fit(const uint64_t *u, uint32_t n)
{
	uint32_t i = 0, run = 0;

	while (i < SV_FT_MAX_FTE) {
		if (run == 0 && u[i / 64] == UINT64_MAX && i % 64 == 0) {
			i += 64;
			continue;
		}
		if (sv_ft_bit(u, i)) {
			run = 0;
		} else if (++run == n) {
			return i + 1 - n;
		}
		i++;
	}
	return SV_FT_MAX_FTE;
}

int
sv_ftspace_add(struct sv_arena *a, struct sv_ftspace *s, const void *owner,
	       uint16_t *fte)
{
	uint32_t i, size, at;

	for (i = 0; i < SV_FT_MAX_TYPES; i++)
		if (s->big[i].owner == owner &&
		    s->big[i].n < SV_FT_GROUP_SIZE) {
			s->big[i].n++;
			*fte = (uint16_t)s->big[i].start;
			return 0;
		}
	if (s->used == NULL) {
		s->used = sv_arena_zalloc(a, SV_FT_WORDS * sizeof(*s->used));
		if (s->used == NULL)
			return ENOMEM;
	}
	size = s->nbig < SV_FT_MAX_TYPES ? SV_FT_GROUP_SIZE : 1;
	at = sv_ft_fit(s->used, size);
	if (at == SV_FT_MAX_FTE)
		return ENOSPC;
	sv_ft_set(s->used, at, size, true);
	if (size == SV_FT_GROUP_SIZE) {
		for (i = 0; s->big[i].n != 0; i++)
			;
		s->big[i].start = at;
		s->big[i].n = 1;
		s->big[i].owner = owner;
		s->nbig++;
	}
	*fte = (uint16_t)at;
	return 0;
}

void
sv_ftspace_del(struct sv_ftspace *s, uint16_t fte)
{
	uint32_t i;

	for (i = 0; i < SV_FT_MAX_TYPES; i++) {
		if (s->big[i].n == 0 || fte < s->big[i].start ||
		    fte >= s->big[i].start + SV_FT_GROUP_SIZE)
			continue;
		if (--s->big[i].n == 0) {
			sv_ft_set(s->used, s->big[i].start, SV_FT_GROUP_SIZE,
				  false);
			s->big[i].owner = NULL;
			s->nbig--;
		}
		return;
	}
	sv_ft_set(s->used, fte, 1, false);
}

void
sv_ftspace_fini(struct sv_arena *a, struct sv_ftspace *s)
{
	sv_arena_zfree(a, s->used, SV_FT_WORDS * sizeof(*s->used));
	memset(s, 0, sizeof(*s));
}
