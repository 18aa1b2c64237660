/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_TABLE_H
#define SV_TABLE_H

/*
 * The NORMAL rules of one direction of a port (sv_table.c), and the walk
 * that finds which of them take a frame. sv_steer.c owns the rest of the
 * direction (defaults, sniffers) and what is done with a frame.
 */

#include <stdbool.h>
#include <stdint.h>

#include "sv_internal.h"
#include "sv_pktedit.h"

/* A key as 64-bit words, zero-padded: masks and hashes work word-wise,
 * and treat the key as opaque words. */
#define SV_KEY_WORDS ((sizeof(struct sv_key) + 7) / 8)

union sv_kwords {
	struct sv_key key;
	uint64_t w[SV_KEY_WORDS];
};

/* The words of a key, the padding after it zeroed. */
static inline void
sv_key_words(const struct sv_key *k, union sv_kwords *out)
{
	out->w[SV_KEY_WORDS - 1] = 0;
	out->key = *k;
}

struct sv_table;

/* fte: identical matches join as in the mlx5 kernel's flow tables (see
 * sv_entry_joinable()). */
struct sv_table *sv_table_new(struct sv_arena *arena, bool fte);
/* Frees the table's own memory; the rules in it are the arena's. */
void sv_table_free(struct sv_table *t);

/* Level of a NORMAL rule: priority, then DONT_TRAP before trapping; the
 * multicast table after all of them. */
static inline uint32_t
sv_rule_level(const struct sv_rule *r)
{
	if (r->mcast)
		return SV_LEVEL_MCAST;
	return ((uint32_t)r->priority << 1) |
	       !(r->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP);
}

/* Same fate: merging the two rules into one entry changes nothing. An
 * egress rule's QP only names the device (ibv_create_flow(3) note 6). */
static inline bool
sv_same_fate(const struct sv_rule *a, const struct sv_rule *b);

/* The same flow actions: none, or the same header modify and reformat
 * objects (mlx5 core compares the FTE's modify_hdr and pkt_reformat
 * pointers and the DECAP / MOD_HDR / PACKET_REFORMAT bits,
 * check_conflicting_actions()). */
static inline bool
sv_same_edit(const struct sv_rule *a, const struct sv_rule *b)
{
	const struct sv_edit *x = a->act.edit, *y = b->act.edit;

	if (x == NULL || y == NULL)
		return x == y;
	return x->mod_obj == y->mod_obj && x->reformat_obj == y->reformat_obj;
}

/*
 * May rule r join the entry headed by head, an identical match at its
 * level? A table made for the generic profile keeps one fate per entry
 * (the man page says nothing of identical rules): the same fate only.
 * One made for the mlx5 profile (fte) does what mlx5 core does with the
 * same match in one flow table (Linux 6.1: mlx5_ib's _create_flow_rule()
 * and raw_fs_rule_add() do not set FLOW_ACT_NO_APPEND, so
 * try_add_to_existing_fg() finds the FTE and add_rule_fg() adds the rule
 * to it): check_conflicting_ftes() refuses DROP against a destination
 * or other flow actions (check_conflicting_actions()) and a tag other
 * than the FTE's, which is
 * the tag of the rule that made it or 0; anything else joins, and a QP
 * not yet in the entry is one more destination (the frame is delivered
 * to each, tagged with the FTE's tag).
 */
static inline bool
sv_entry_joinable(const struct sv_rule *head, const struct sv_rule *r, bool fte)
{
	if (!fte)
		return sv_same_fate(head, r);
	if (head->act.drop != r->act.drop || !sv_same_edit(head, r))
		return false;
	return !r->act.has_tag ||
	       (head->act.has_tag ? head->act.tag : 0) == r->act.tag;
}

static inline bool
sv_same_fate(const struct sv_rule *a, const struct sv_rule *b)
{
	if (a->act.drop != b->act.drop)
		return false;
	if (!a->act.drop && !(a->flags & IBV_FLOW_ATTR_FLAGS_EGRESS) &&
	    a->qp != b->qp)
		return false;
	if (a->act.has_tag != b->act.has_tag || !sv_same_edit(a, b))
		return false;
	return !a->act.has_tag || a->act.tag == b->act.tag;
}

/* What the table wants of a NORMAL rule's mask, found in one pass before
 * the rule object is made: the value words the rule carries after its
 * struct (the non-zero mask words), and the signature of its group. */
struct sv_mask_key {
	uint32_t nw;
	uint32_t gsig;
};
void sv_table_mask_key(const union sv_kwords *mask, uint32_t level,
		       struct sv_mask_key *mk);

/*
 * Insert NORMAL rule r (seq_ set, room for mk->nw value words after it)
 * with its mask and value: r joins the entry of an identical match at its
 * level (EEXIST if sv_entry_joinable() says no) or heads a new one, which
 * in an fte table takes one of the level's flow table entries (ENOSPC
 * when it has none left for the mask, sv_ftspace.c). 0, EEXIST, ENOSPC or
 * ENOMEM (nothing changed).
 */
int sv_table_insert(struct sv_table *t, struct sv_rule *r,
		    const union sv_kwords *mask, const struct sv_mask_key *mk,
		    const union sv_kwords *value);
void sv_table_remove(struct sv_table *t, struct sv_rule *r);

/*
 * The walk of one frame through the table, in classification order:
 * levels in order; at a DONT_TRAP level every entry the frame matches, by
 * creation of their oldest rule; at a trapping level the entry whose
 * oldest rule is the oldest of those the frame matches, which ends the
 * walk. Each step returns an entry's head rule (the rules merged into it
 * follow on next_), NULL at the end.
 */
#define SV_WALK_COPIES 16
struct sv_walk {
	uint32_t li;	 /* next level */
	uint32_t n;	 /* copies found at the current level */
	uint32_t pos;	 /* next copy to hand out */
	bool more;	 /* the level has copies beyond those */
	uint32_t probes; /* hash tables looked into (filters and groups) */
	uint64_t last;	 /* seq of the last copy handed out */
	const struct sv_rule *copy[SV_WALK_COPIES];
};

static inline void
sv_walk_init(struct sv_walk *w)
{
	w->li = 0;
	w->n = 0;
	w->pos = 0;
	w->more = false;
	w->probes = 0;
}

const struct sv_rule *
sv_table_next(const struct sv_table *t, const uint64_t *kw, struct sv_walk *w);

#endif /* SV_TABLE_H */
