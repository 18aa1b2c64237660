/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The NORMAL rules of one direction of a port: a tuple-space search laid
 * out as the mlx5 kernel lays out its steering, and a filter per level so
 * that a frame probes about one mask per level whatever the number of
 * masks.
 *
 * Levels. A rule's level is its priority, DONT_TRAP before trapping (the
 * kernel's flow tables 2p and 2p + 1), and one level after every priority
 * for the mlx5 multicast table (sv_rule_level()). Levels are walked in
 * order; the first level where a trapping entry matches ends the walk.
 *
 * Groups. Inside a level, the rules of one mask form a group (the
 * kernel's autogrouped flow table: one flow group per match criteria), a
 * hash table of entries keyed by the masked value; an entry is the rules
 * with an identical match at that level (one FTE in the kernel), headed by
 * the oldest, its followers on next_. A rule keeps only the value words
 * its group's mask selects, after its struct: the group holds the mask.
 *
 * Size. On the mlx5 profile a level is one of the kernel's flow tables,
 * with its 65536 entries and autogroups (sv_ftspace.c): a new entry that
 * finds no room is ENOSPC; the rules merged into an entry share it.
 *
 * Which entry takes a frame when the entries of several groups of one
 * level match it: the one whose head was created first. (The verbs man
 * page does not say; DPDK's mlx5 notes that overlapping rules in one
 * hardware priority are undefined, and the kernel puts each mask in a
 * flow group of its own.) A frame must therefore be looked up in every
 * group of a level that might hold a match, and the filter says which;
 * at a trapping level, a group whose first rule is younger than the
 * match in hand cannot beat it and is not probed (the early stop a
 * tuple-space search makes, with "can beat" meaning older).
 *
 * The filter of a level with more than one group: the masks of most of
 * its groups share bits (the destination address of every rule, say); P
 * is the AND of those masks, and a hash table keeps, per value of the
 * rules' bits under P, how many entries have it, the group slots that
 * hold them (16 bits: slots 0 to 14, and one bit for all the others),
 * and the entry itself while it is the only one. A frame looks up its
 * own bits under P: the only entry it may then match among the groups
 * that cover P is that one entry, or one in the groups named; the groups
 * whose mask does not cover P ("unpartitioned") are probed for every
 * frame. When every group shares P and the rules differ in it, a frame
 * costs one filter probe and one entry per level, with 1 mask or 32.
 * Entries are keyed by a 32-bit signature only: two values with one
 * signature share an entry, which costs a probe, never a match; a
 * group's bit stays set until its entry empties (a stale bit costs a
 * probe too). P is chosen when a level gets its second group, greedily
 * from the largest group down, keeping a group when what P and its mask
 * share still tells apart at least half as many of a sample of the
 * largest group's entries as P does; a group that comes later and does
 * not cover P stays unpartitioned until the choice is made again, which
 * happens when groups came or went, or a quarter of the entries added
 * since were not set apart by P, once the level has seen inserts and
 * removals for half the rules it has (so that the O(rules) rebuild is
 * amortised). A level back to one group drops its filter on the same
 * terms.
 *
 * Hash tables (entries, groups, filters) are open addressing with linear
 * probing over 16-byte slots that start with a 32-bit signature (a miss
 * reads signatures, never a rule; a hit finds its payload in the same
 * line) and backward-shift deletion; they double above 3/4 full and halve
 * below 1/8, so growth and shrinking are amortised O(1) and a table that
 * emptied gives its memory back. Nothing here is written by a lookup:
 * egress lookups run on several threads at once under the read lock.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sv_ftspace.h"
#include "sv_table.h"

#define SV_HT_MIN 8u
#define SV_FILTER_OVERFLOW 15 /* bit for the group slots 15 and up */
#define SV_FILTER_MIN_OPS 64u

/*
 * Open addressing with the signature in each 16-byte slot: a probe reads
 * one line for up to four slots, and a hit has its payload in the same
 * line. One kind of slot for the three tables.
 */
struct sv_slot {
	uint32_t sig; /* 0: free */
	/* Filters: entries with this signature (it sticks at the top), and
	 * the group slots holding them. */
	uint16_t count;
	uint16_t bits;
	/* Entry tables: the head rule; the group hash: the group; filters:
	 * the entry, while it is the only one with this signature. */
	void *p;
};

struct sv_htab {
	struct sv_slot *slots;
	uint32_t mask; /* capacity - 1 */
	uint32_t n;
};

struct sv_level;

/* The rules of one mask at one level. */
struct sv_tss_group {
	struct sv_level *lv;
	uint32_t slot; /* index in lv->slot */
	uint32_t nw;   /* value words: the non-zero mask words */
	uint32_t sig;  /* of (mask, level), in the table's group hash */
	bool part;     /* covered by the level's filter */
	/* seq of its first rule: none of its rules is older. */
	uint64_t born;
	struct sv_htab ht;
	uint8_t widx[SV_KEY_WORDS]; /* key word of value word i */
	uint8_t pmap[SV_KEY_WORDS]; /* value word of filter word k */
	uint64_t gm[SV_KEY_WORDS];  /* mask word of value word i */
	union sv_kwords mask;
};

struct sv_level {
	uint32_t level;
	bool dont_trap;
	bool filter; /* ft and P are built */
	bool dirty;  /* groups came or went since P was chosen */
	uint32_t nrules;
	uint32_t ops; /* inserts and removals since P was chosen */
	/* Entries added since then that P did not set apart: in a group
	 * outside the filter, or sharing their bits under P. */
	uint32_t poor;
	uint32_t ngroups;
	struct sv_tss_group *only; /* the group, when there is one */
	struct sv_tss_group **slot;
	uint32_t nslot, slotcap;
	uint32_t *unpart; /* slots of the groups outside the filter */
	uint32_t nunpart, unpartcap;
	uint32_t fnw; /* P: key words fwidx[k] under fm[k] */
	uint8_t fwidx[SV_KEY_WORDS];
	uint64_t fm[SV_KEY_WORDS];
	struct sv_htab ft;
	/* The mlx5 kernel's flow table of the level (fte tables only). */
	struct sv_ftspace fts;
};

struct sv_table {
	struct sv_arena *arena;
	bool fte; /* entries join as mlx5 FTEs (sv_entry_joinable()) */
	struct sv_level **lv; /* by level */
	uint32_t nlv, lvcap;
	struct sv_htab groups;
};

/* ---- hashing ---- */

static inline uint64_t
sv_mix(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= UINT64_C(0x9e3779b97f4a7c15);
	return h ^ (h >> 32);
}

static inline uint32_t
sv_sig(uint64_t h)
{
	uint32_t s;

	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	s = (uint32_t)h;
	return s != 0 ? s : 1;
}

static inline uint32_t
sv_val_sig(const uint64_t *v, uint32_t n)
{
	uint64_t h = n;
	uint32_t i;

	for (i = 0; i < n; i++)
		h = sv_mix(h, v[i]);
	return sv_sig(h);
}

static inline const uint64_t *
sv_rule_val(const struct sv_rule *r)
{
	return (const uint64_t *)(const void *)(r + 1);
}

/* ---- open addressing ---- */

static int
sv_ht_init(struct sv_arena *a, struct sv_htab *h, uint32_t cap)
{
	struct sv_slot *b = sv_arena_zalloc(a, (size_t)cap * sizeof(*b));

	if (b == NULL)
		return ENOMEM;
	h->slots = b;
	h->mask = cap - 1;
	h->n = 0;
	return 0;
}

static void
sv_ht_fini(struct sv_arena *a, struct sv_htab *h)
{
	if (h->slots != NULL)
		sv_arena_zfree(a, h->slots,
			       (size_t)(h->mask + 1) * sizeof(*h->slots));
	memset(h, 0, sizeof(*h));
}

/* Put a slot at its first free place. */
static uint32_t
sv_ht_place(struct sv_htab *h, const struct sv_slot *slot)
{
	uint32_t i = slot->sig & h->mask;

	while (h->slots[i].sig != 0)
		i = (i + 1) & h->mask;
	h->slots[i] = *slot;
	h->n++;
	return i;
}

/* Move every slot into a table of cap slots, in slot order (the writes
 * then go to one or two runs of the new table). */
static int
sv_ht_resize(struct sv_arena *a, struct sv_htab *h, uint32_t cap)
{
	struct sv_htab nh;
	uint32_t i;

	if (sv_ht_init(a, &nh, cap) != 0)
		return ENOMEM;
	for (i = 0; i <= h->mask; i++)
		if (h->slots[i].sig != 0)
			sv_ht_place(&nh, &h->slots[i]);
	sv_ht_fini(a, h);
	*h = nh;
	return 0;
}

/* Add a slot whose entry is known to be absent; grows first. -1 on
 * ENOMEM, else where it went. */
static int64_t
sv_ht_add(struct sv_arena *a, struct sv_htab *h, const struct sv_slot *slot)
{
	uint32_t cap = h->mask + 1;

	if ((h->n + 1) * UINT64_C(4) > cap * UINT64_C(3) &&
	    sv_ht_resize(a, h, cap * 2) != 0)
		return -1;
	return sv_ht_place(h, slot);
}

/* Remove slot i, shifting back what its removal would cut off; shrinks
 * below 1/8 full (a failed shrink leaves the table as it is). */
static void
sv_ht_del(struct sv_arena *a, struct sv_htab *h, uint32_t i)
{
	uint32_t j = i, k;

	for (;;) {
		j = (j + 1) & h->mask;
		if (h->slots[j].sig == 0)
			break;
		k = h->slots[j].sig & h->mask;
		/* Stays if its home is in (i, j], cyclically. */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		h->slots[i] = h->slots[j];
		i = j;
	}
	memset(&h->slots[i], 0, sizeof(h->slots[i]));
	h->n--;
	if (h->mask + 1 > SV_HT_MIN && h->n * UINT64_C(8) < h->mask + 1)
		sv_ht_resize(a, h, (h->mask + 1) / 2);
}

/* Capacity for n entries at most 3/4 full. */
static uint32_t
sv_ht_cap_for(uint32_t n)
{
	uint32_t cap = SV_HT_MIN;

	while (n * UINT64_C(4) > cap * UINT64_C(3))
		cap *= 2;
	return cap;
}

/* ---- entries of a group ---- */

/* The value words of key words kw under the group's mask. */
static inline void
sv_grp_vals(const struct sv_tss_group *g, const uint64_t *kw, uint64_t *v)
{
	uint32_t i;

	for (i = 0; i < g->nw; i++)
		v[i] = kw[g->widx[i]] & g->gm[i];
}

static inline bool
sv_vals_eq(const uint64_t *a, const uint64_t *b, uint32_t n)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

/* Slot of the entry with values v, or -1. */
static inline int64_t
sv_grp_slot(const struct sv_tss_group *g, const uint64_t *v, uint32_t sig)
{
	const struct sv_slot *e = g->ht.slots;
	uint32_t i = sig & g->ht.mask, s;

	while ((s = e[i].sig) != 0) {
		if (s == sig && sv_vals_eq(sv_rule_val(e[i].p), v, g->nw))
			return i;
		i = (i + 1) & g->ht.mask;
	}
	return -1;
}

/* The entry of the group a frame (key words kw) matches, or NULL. */
static inline const struct sv_rule *
sv_grp_find(const struct sv_tss_group *g, const uint64_t *kw)
{
	uint64_t v[SV_KEY_WORDS];
	int64_t i;

	sv_grp_vals(g, kw, v);
	i = sv_grp_slot(g, v, sv_val_sig(v, g->nw));
	return i < 0 ? NULL : g->ht.slots[i].p;
}

/* Whether the frame matches entry r (of a group known to be r's). */
static inline bool
sv_rule_hit(const struct sv_rule *r, const uint64_t *kw)
{
	const struct sv_tss_group *g = r->grp_;
	const uint64_t *v = sv_rule_val(r);
	uint32_t i;

	for (i = 0; i < g->nw; i++)
		if ((kw[g->widx[i]] & g->gm[i]) != v[i])
			return false;
	return true;
}

/* ---- the filter ---- */

static inline uint16_t
sv_filter_bit(uint32_t slot)
{
	return (uint16_t)(1u
			  << (slot < SV_FILTER_OVERFLOW ? slot :
							  SV_FILTER_OVERFLOW));
}

/* Value word of the group that holds filter word k (P within the mask). */
static void
sv_filter_pmap(const struct sv_level *lv, struct sv_tss_group *g)
{
	uint32_t k, i = 0;

	for (k = 0; k < lv->fnw; k++) {
		while (g->widx[i] != lv->fwidx[k])
			i++;
		g->pmap[k] = (uint8_t)i;
	}
}

static bool
sv_mask_covers(const union sv_kwords *m, const uint64_t *p)
{
	uint32_t i;

	for (i = 0; i < SV_KEY_WORDS; i++)
		if ((m->w[i] & p[i]) != p[i])
			return false;
	return true;
}

/* Signature of an entry's bits under P. */
static inline uint32_t
sv_filter_sig_rule(const struct sv_level *lv, const struct sv_tss_group *g,
		   const struct sv_rule *r)
{
	const uint64_t *v = sv_rule_val(r);
	uint64_t h = lv->fnw;
	uint32_t k;

	for (k = 0; k < lv->fnw; k++)
		h = sv_mix(h, v[g->pmap[k]] & lv->fm[k]);
	return sv_sig(h);
}

/* Signature of a frame's bits under P. */
static inline uint32_t
sv_filter_sig_key(const struct sv_level *lv, const uint64_t *kw)
{
	uint64_t h = lv->fnw;
	uint32_t k;

	for (k = 0; k < lv->fnw; k++)
		h = sv_mix(h, kw[lv->fwidx[k]] & lv->fm[k]);
	return sv_sig(h);
}

static inline int64_t
sv_filter_find(const struct sv_htab *ft, uint32_t sig)
{
	const struct sv_slot *f = ft->slots;
	uint32_t i = sig & ft->mask, s;

	while ((s = f[i].sig) != 0) {
		if (s == sig)
			return i;
		i = (i + 1) & ft->mask;
	}
	return -1;
}

static int
sv_filter_add(struct sv_arena *a, struct sv_htab *ft, uint32_t sig,
	      uint16_t bit, const struct sv_rule *r, uint32_t *shared)
{
	int64_t i = sv_filter_find(ft, sig);
	struct sv_slot f;

	if (i >= 0) {
		(*shared)++;
		struct sv_slot *e = &ft->slots[i];

		if (e->count != UINT16_MAX)
			e->count++;
		e->bits |= bit;
		e->p = NULL;
		return 0;
	}
	memset(&f, 0, sizeof(f));
	f.sig = sig;
	f.bits = bit;
	f.count = 1;
	f.p = (void *)(uintptr_t)r;
	return sv_ht_add(a, ft, &f) < 0 ? ENOMEM : 0;
}

static void
sv_filter_sub(struct sv_arena *a, struct sv_htab *ft, uint32_t sig)
{
	int64_t i = sv_filter_find(ft, sig);

	/* A count at the top is not known any more: the entry stays until
	 * the filter is built again. */
	if (i >= 0 && ft->slots[i].count != UINT16_MAX &&
	    --ft->slots[i].count == 0)
		sv_ht_del(a, ft, (uint32_t)i);
}

/* Entry r's head is now r->next_: the filter may name r. */
static void
sv_filter_rehead(struct sv_htab *ft, uint32_t sig, const struct sv_rule *r)
{
	int64_t i = sv_filter_find(ft, sig);

	if (i >= 0 && ft->slots[i].p == r)
		ft->slots[i].p = r->next_;
}

/* Room for want entries in a uint32_t array. */
static int
sv_u32_reserve(struct sv_arena *a, uint32_t **arr, uint32_t n, uint32_t *cap,
	       uint32_t want)
{
	uint32_t nc = *cap ? *cap : 4;
	uint32_t *na;

	if (want <= *cap)
		return 0;
	while (nc < want)
		nc *= 2;
	na = sv_arena_zalloc(a, nc * sizeof(*na));
	if (na == NULL)
		return ENOMEM;
	if (n > 0)
		memcpy(na, *arr, n * sizeof(*na));
	sv_arena_zfree(a, *arr, *cap * sizeof(**arr));
	*arr = na;
	*cap = nc;
	return 0;
}

static void
sv_u32_drop(uint32_t *arr, uint32_t *n, uint32_t v)
{
	uint32_t i;

	for (i = 0; i < *n; i++)
		if (arr[i] == v) {
			arr[i] = arr[--*n];
			return;
		}
}

static int
sv_cmp_grp_size(const void *x, const void *y)
{
	const struct sv_tss_group *a = *(struct sv_tss_group *const *)x;
	const struct sv_tss_group *b = *(struct sv_tss_group *const *)y;

	if (a->ht.n != b->ht.n)
		return a->ht.n > b->ht.n ? -1 : 1;
	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

#define SV_SAMPLE 64 /* entries that judge a candidate P */

/* How many of the sample rules (of group g) differ in their bits under
 * q, a mask within g's. */
static uint32_t
sv_sample_distinct(const struct sv_tss_group *g, const struct sv_rule **smp,
		   uint32_t n, const uint64_t *q)
{
	uint32_t sig[SV_SAMPLE], i, j, d = 0;

	for (i = 0; i < n; i++) {
		const uint64_t *v = sv_rule_val(smp[i]);
		uint64_t h = 0;
		uint32_t k;

		for (k = 0; k < g->nw; k++)
			if (q[g->widx[k]] != 0)
				h = sv_mix(h, v[k] & q[g->widx[k]]);
		sig[i] = sv_sig(h);
		for (j = 0; j < i && sig[j] != sig[i]; j++)
			;
		d += j == i;
	}
	return d;
}

/*
 * Choose P and build the filter from the level's groups: nothing changes
 * unless it all succeeds (ENOMEM).
 */
static int
sv_filter_build(struct sv_table *t, struct sv_level *lv)
{
	struct sv_arena *a = t->arena;
	struct sv_tss_group **gs;
	uint64_t p[SV_KEY_WORDS], c[SV_KEY_WORDS];
	const struct sv_rule *smp[SV_SAMPLE];
	struct sv_level tmp; /* P and the table being built */
	uint32_t i, j, k, ng = 0, nodes = 0, nsmp = 0, dp;
	int rc = ENOMEM;

	gs = malloc(lv->ngroups * sizeof(*gs));
	if (gs == NULL)
		return ENOMEM;
	for (i = 0; i < lv->nslot; i++)
		if (lv->slot[i] != NULL)
			gs[ng++] = lv->slot[i];
	qsort(gs, ng, sizeof(*gs), sv_cmp_grp_size);
	/* P starts as the largest group's mask; each other group, largest
	 * first, narrows it to what they share unless that leaves fewer
	 * than half as many distinct values among a sample of the largest
	 * group's entries (a catch-all, or a mask that shares only a field
	 * most rules have the same value in, stays out of P). */
	for (j = 0; j <= gs[0]->ht.mask && nsmp < SV_SAMPLE; j++)
		if (gs[0]->ht.slots[j].sig != 0)
			smp[nsmp++] = gs[0]->ht.slots[j].p;
	memcpy(p, gs[0]->mask.w, sizeof(p));
	dp = sv_sample_distinct(gs[0], smp, nsmp, p);
	for (i = 1; i < ng; i++) {
		uint32_t dc;

		for (k = 0; k < SV_KEY_WORDS; k++)
			c[k] = p[k] & gs[i]->mask.w[k];
		dc = sv_sample_distinct(gs[0], smp, nsmp, c);
		if (dc * 2 >= dp) {
			memcpy(p, c, sizeof(p));
			dp = dc;
		}
	}
	memset(&tmp, 0, sizeof(tmp));
	for (k = 0; k < SV_KEY_WORDS; k++)
		if (p[k] != 0) {
			tmp.fwidx[tmp.fnw] = (uint8_t)k;
			tmp.fm[tmp.fnw++] = p[k];
		}
	for (i = 0; i < ng; i++)
		if (sv_mask_covers(&gs[i]->mask, p))
			nodes += gs[i]->ht.n;
	if (sv_ht_init(a, &tmp.ft, sv_ht_cap_for(nodes)) != 0)
		goto out;
	for (i = 0; i < ng; i++) {
		struct sv_tss_group *g = gs[i];
		const struct sv_slot *e = g->ht.slots;

		if (!sv_mask_covers(&g->mask, p))
			continue;
		sv_filter_pmap(&tmp, g);
		for (j = 0; j <= g->ht.mask; j++) {
			if (e[j].sig == 0)
				continue;
			if (sv_filter_add(a, &tmp.ft,
					  sv_filter_sig_rule(&tmp, g, e[j].p),
					  sv_filter_bit(g->slot), e[j].p,
					  &tmp.poor) != 0) {
				sv_ht_fini(a, &tmp.ft);
				/* pmap of the old P, for the groups in it. */
				for (k = 0; k < ng; k++)
					if (gs[k]->part && lv->filter)
						sv_filter_pmap(lv, gs[k]);
				goto out;
			}
		}
	}
	/* Commit (the unpartitioned list has room: sv_group_new()). */
	sv_ht_fini(a, &lv->ft);
	lv->ft = tmp.ft;
	lv->fnw = tmp.fnw;
	memcpy(lv->fwidx, tmp.fwidx, sizeof(lv->fwidx));
	memcpy(lv->fm, tmp.fm, sizeof(lv->fm));
	lv->nunpart = 0;
	for (i = 0; i < ng; i++) {
		gs[i]->part = sv_mask_covers(&gs[i]->mask, p);
		if (gs[i]->part)
			sv_filter_pmap(lv, gs[i]);
	}
	for (i = 0; i < lv->nslot; i++)
		if (lv->slot[i] != NULL && !lv->slot[i]->part)
			lv->unpart[lv->nunpart++] = i;
	lv->filter = true;
	lv->dirty = false;
	lv->ops = 0;
	lv->poor = 0;
	rc = 0;
out:
	free(gs);
	return rc;
}

static void
sv_filter_drop(struct sv_table *t, struct sv_level *lv)
{
	sv_ht_fini(t->arena, &lv->ft);
	lv->filter = false;
	lv->fnw = 0;
	lv->nunpart = 0;
	lv->ops = 0;
}

/*
 * After an insert or a removal at the level: choose P again when groups
 * came or went, or when a quarter of the entries added since P was chosen
 * were not set apart by it (P chosen over a few rules may not suit the
 * many that came after), once the level has seen changes for half the
 * rules it has; drop the filter of a level left with one group on the
 * same terms. Both are O(rules of the level), paid for by the changes
 * before them; a failure keeps what is there.
 */
static void
sv_filter_maintain(struct sv_table *t, struct sv_level *lv)
{
	if (!lv->filter || lv->ops < SV_FILTER_MIN_OPS ||
	    lv->ops < lv->nrules / 2)
		return;
	if (lv->ngroups == 1)
		sv_filter_drop(t, lv);
	else if (lv->dirty || lv->poor >= lv->nrules / 4)
		sv_filter_build(t, lv);
	else
		lv->ops = 0;
}

/* ---- levels and groups ---- */

/* Index of the first level >= level. */
static uint32_t
sv_level_pos(const struct sv_table *t, uint32_t level)
{
	uint32_t lo = 0, hi = t->nlv;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (t->lv[mid]->level < level)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static struct sv_level *
sv_level_get(struct sv_table *t, uint32_t level, bool dont_trap)
{
	uint32_t pos = sv_level_pos(t, level);
	struct sv_level *lv;

	if (pos < t->nlv && t->lv[pos]->level == level)
		return t->lv[pos];
	if (t->nlv == t->lvcap) {
		uint32_t nc = t->lvcap ? t->lvcap * 2 : 8;
		struct sv_level **n =
			sv_arena_zalloc(t->arena, nc * sizeof(*n));

		if (n == NULL)
			return NULL;
		if (t->nlv > 0)
			memcpy(n, t->lv, t->nlv * sizeof(*n));
		sv_arena_zfree(t->arena, t->lv, t->lvcap * sizeof(*n));
		t->lv = n;
		t->lvcap = nc;
	}
	lv = sv_arena_zalloc(t->arena, sizeof(*lv));
	if (lv == NULL)
		return NULL;
	lv->level = level;
	lv->dont_trap = dont_trap;
	memmove(&t->lv[pos + 1], &t->lv[pos], (t->nlv - pos) * sizeof(*t->lv));
	t->lv[pos] = lv;
	t->nlv++;
	return lv;
}

static void
sv_level_put(struct sv_table *t, struct sv_level *lv)
{
	uint32_t pos;

	if (lv->nrules > 0 || lv->ngroups > 0)
		return;
	pos = sv_level_pos(t, lv->level);
	memmove(&t->lv[pos], &t->lv[pos + 1],
		(t->nlv - pos - 1) * sizeof(*t->lv));
	if (--t->nlv == 0) {
		sv_arena_zfree(t->arena, t->lv, t->lvcap * sizeof(*t->lv));
		t->lv = NULL;
		t->lvcap = 0;
	}
	sv_ht_fini(t->arena, &lv->ft);
	sv_ftspace_fini(t->arena, &lv->fts);
	sv_arena_zfree(t->arena, lv->slot, lv->slotcap * sizeof(*lv->slot));
	sv_arena_zfree(t->arena, lv->unpart,
		       lv->unpartcap * sizeof(*lv->unpart));
	sv_arena_zfree(t->arena, lv, sizeof(*lv));
}

static int64_t
sv_group_slot(const struct sv_table *t, const union sv_kwords *mask,
	      uint32_t level, uint32_t sig)
{
	const struct sv_slot *e = t->groups.slots;
	uint32_t i = sig & t->groups.mask, s;

	while ((s = e[i].sig) != 0) {
		const struct sv_tss_group *g = e[i].p;

		if (s == sig && g->lv->level == level &&
		    memcmp(g->mask.w, mask->w, sizeof(mask->w)) == 0)
			return i;
		i = (i + 1) & t->groups.mask;
	}
	return -1;
}

static void
sv_group_free(struct sv_table *t, struct sv_tss_group *g)
{
	sv_ht_fini(t->arena, &g->ht);
	sv_arena_zfree(t->arena, g, sizeof(*g));
}

/* Take g out of its level and the table; frees it. */
static void
sv_group_del(struct sv_table *t, struct sv_tss_group *g)
{
	struct sv_level *lv = g->lv;
	int64_t i = sv_group_slot(t, &g->mask, lv->level, g->sig);
	uint32_t s;

	if (i >= 0)
		sv_ht_del(t->arena, &t->groups, (uint32_t)i);
	lv->slot[g->slot] = NULL;
	while (lv->nslot > 0 && lv->slot[lv->nslot - 1] == NULL)
		lv->nslot--;
	if (!g->part)
		sv_u32_drop(lv->unpart, &lv->nunpart, g->slot);
	else
		lv->dirty = true; /* P may be narrower than it needs */
	lv->ngroups--;
	lv->only = NULL;
	if (lv->ngroups == 1)
		for (s = 0; s < lv->nslot; s++)
			if (lv->slot[s] != NULL)
				lv->only = lv->slot[s];
	sv_group_free(t, g);
}

static struct sv_tss_group *
sv_group_new(struct sv_table *t, struct sv_level *lv,
	     const union sv_kwords *mask, uint32_t sig)
{
	struct sv_tss_group *g;
	struct sv_slot e;
	uint32_t i, s;

	g = sv_arena_zalloc(t->arena, sizeof(*g));
	if (g == NULL)
		return NULL;
	g->mask = *mask;
	for (i = 0; i < SV_KEY_WORDS; i++)
		if (mask->w[i] != 0) {
			g->widx[g->nw] = (uint8_t)i;
			g->gm[g->nw++] = mask->w[i];
		}
	g->sig = sig;
	g->lv = lv;
	if (sv_ht_init(t->arena, &g->ht, SV_HT_MIN) != 0)
		goto fail;
	/* The first free slot: the filter names groups by slot. */
	for (s = 0; s < lv->nslot && lv->slot[s] != NULL; s++)
		;
	if (s == lv->slotcap) {
		uint32_t nc = lv->slotcap ? lv->slotcap * 2 : 4;
		struct sv_tss_group **n =
			sv_arena_zalloc(t->arena, nc * sizeof(*n));

		if (n == NULL)
			goto fail;
		if (lv->nslot > 0)
			memcpy(n, lv->slot, lv->nslot * sizeof(*n));
		sv_arena_zfree(t->arena, lv->slot,
			       lv->slotcap * sizeof(*lv->slot));
		lv->slot = n;
		lv->slotcap = nc;
	}
	/* Room to list every group as unpartitioned, whatever P becomes:
	 * building the filter then allocates nothing it could fail on. */
	if (sv_u32_reserve(t->arena, &lv->unpart, lv->nunpart, &lv->unpartcap,
			   lv->ngroups + 1) != 0)
		goto fail;
	memset(&e, 0, sizeof(e));
	e.sig = sig;
	e.p = g;
	if (sv_ht_add(t->arena, &t->groups, &e) < 0)
		goto fail;
	g->slot = s;
	lv->slot[s] = g;
	if (s == lv->nslot)
		lv->nslot++;
	lv->ngroups++;
	lv->only = lv->ngroups == 1 ? g : NULL;
	if (lv->ngroups == 2 && !lv->filter) {
		if (sv_filter_build(t, lv) != 0) {
			sv_group_del(t, g);
			return NULL;
		}
	} else if (lv->filter) {
		uint64_t p[SV_KEY_WORDS] = { 0 };

		for (i = 0; i < lv->fnw; i++)
			p[lv->fwidx[i]] = lv->fm[i];
		g->part = sv_mask_covers(mask, p);
		if (g->part) {
			sv_filter_pmap(lv, g);
		} else {
			lv->unpart[lv->nunpart++] = s;
			lv->dirty = true;
		}
	}
	return g;
fail:
	sv_group_free(t, g);
	return NULL;
}

/* ---- insert, remove ---- */

void
sv_table_mask_key(const union sv_kwords *mask, uint32_t level,
		  struct sv_mask_key *mk)
{
	uint64_t h = level;
	uint32_t i, n = 0;

	for (i = 0; i < SV_KEY_WORDS; i++)
		if (mask->w[i] != 0) {
			h = sv_mix(h, mask->w[i] ^ i);
			n++;
		}
	mk->nw = n;
	mk->gsig = sv_sig(h);
}

int
sv_table_insert(struct sv_table *t, struct sv_rule *r,
		const union sv_kwords *mask, const struct sv_mask_key *mk,
		const union sv_kwords *value)
{
	uint32_t level = sv_rule_level(r), sig, gsig = mk->gsig;
	struct sv_tss_group *g;
	struct sv_level *lv;
	uint64_t *val = (uint64_t *)(void *)(r + 1);
	bool new_lv, new_grp = false;
	int64_t i;
	int rc = ENOMEM;

	lv = sv_level_get(t, level, level != SV_LEVEL_MCAST && !(level & 1));
	if (lv == NULL)
		return ENOMEM;
	new_lv = lv->nrules == 0 && lv->ngroups == 0;
	i = sv_group_slot(t, mask, level, gsig);
	if (i >= 0) {
		g = t->groups.slots[i].p;
	} else {
		g = sv_group_new(t, lv, mask, gsig);
		if (g == NULL)
			goto undo;
		g->born = r->seq_;
		new_grp = true;
	}
	sv_grp_vals(g, value->w, val);
	r->grp_ = g;
	r->next_ = NULL;
	sig = sv_val_sig(val, g->nw);
	i = sv_grp_slot(g, val, sig);
	if (i >= 0) {
		struct sv_rule *it = g->ht.slots[i].p;

		if (!sv_entry_joinable(it, r, t->fte))
			return EEXIST;
		r->fte_ = it->fte_; /* one FTE */
		while (it->next_ != NULL)
			it = it->next_;
		it->next_ = r;
	} else {
		struct sv_slot e;

		/* A new match takes an entry of the level's flow table. */
		r->fte_ = 0;
		if (t->fte) {
			rc = sv_ftspace_add(t->arena, &lv->fts, g, &r->fte_);
			if (rc != 0)
				goto undo;
			rc = ENOMEM;
		}
		if (lv->filter && !g->part)
			lv->poor++;
		if (lv->filter && g->part &&
		    sv_filter_add(t->arena, &lv->ft,
				  sv_filter_sig_rule(lv, g, r),
				  sv_filter_bit(g->slot), r, &lv->poor) != 0)
			goto undo_fte;
		memset(&e, 0, sizeof(e));
		e.sig = sig;
		e.p = r;
		if (sv_ht_add(t->arena, &g->ht, &e) < 0) {
			if (lv->filter && g->part)
				sv_filter_sub(t->arena, &lv->ft,
					      sv_filter_sig_rule(lv, g, r));
			goto undo_fte;
		}
	}
	lv->nrules++;
	lv->ops++;
	sv_filter_maintain(t, lv);
	return 0;
undo_fte:
	if (t->fte)
		sv_ftspace_del(&lv->fts, r->fte_);
undo:
	if (new_grp)
		sv_group_del(t, g);
	if (new_lv)
		sv_level_put(t, lv);
	return rc;
}

void
sv_table_remove(struct sv_table *t, struct sv_rule *r)
{
	struct sv_tss_group *g = r->grp_;
	struct sv_level *lv = g->lv;
	const uint64_t *val = sv_rule_val(r);
	struct sv_rule *head;
	int64_t i;

	i = sv_grp_slot(g, val, sv_val_sig(val, g->nw));
	if (i < 0)
		return; /* not in the table: nothing to undo */
	head = g->ht.slots[i].p;
	if (head == r) {
		if (r->next_ != NULL) {
			/* The FTE keeps the flow context (the tag) it was
			 * made with while any of its rules lives. */
			if (t->fte) {
				r->next_->act.has_tag = r->act.has_tag;
				r->next_->act.tag = r->act.tag;
			}
			g->ht.slots[i].p = r->next_;
			if (lv->filter && g->part)
				sv_filter_rehead(&lv->ft,
						 sv_filter_sig_rule(lv, g, r),
						 r);
		} else {
			if (lv->filter && g->part)
				sv_filter_sub(t->arena, &lv->ft,
					      sv_filter_sig_rule(lv, g, r));
			sv_ht_del(t->arena, &g->ht, (uint32_t)i);
			/* The last rule of the FTE: the entry goes. */
			if (t->fte)
				sv_ftspace_del(&lv->fts, r->fte_);
		}
	} else {
		while (head->next_ != r)
			head = head->next_;
		head->next_ = r->next_;
	}
	r->grp_ = NULL;
	r->next_ = NULL;
	lv->nrules--;
	lv->ops++;
	if (g->ht.n == 0)
		sv_group_del(t, g);
	if (lv->nrules == 0)
		sv_level_put(t, lv);
	else
		sv_filter_maintain(t, lv);
}

struct sv_table *
sv_table_new(struct sv_arena *arena, bool fte)
{
	struct sv_table *t = sv_arena_zalloc(arena, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->arena = arena;
	t->fte = fte;
	if (sv_ht_init(arena, &t->groups, SV_HT_MIN) != 0) {
		sv_arena_zfree(arena, t, sizeof(*t));
		return NULL;
	}
	return t;
}

void
sv_table_free(struct sv_table *t)
{
	uint32_t i, s;

	if (t == NULL)
		return;
	for (i = 0; i < t->nlv; i++) {
		struct sv_level *lv = t->lv[i];

		for (s = 0; s < lv->nslot; s++)
			if (lv->slot[s] != NULL)
				sv_group_free(t, lv->slot[s]);
		lv->nrules = 0;
		lv->ngroups = 0;
		sv_ht_fini(t->arena, &lv->ft);
		sv_arena_zfree(t->arena, lv->slot,
			       lv->slotcap * sizeof(*lv->slot));
		sv_arena_zfree(t->arena, lv->unpart,
			       lv->unpartcap * sizeof(*lv->unpart));
		sv_arena_zfree(t->arena, lv, sizeof(*lv));
	}
	sv_arena_zfree(t->arena, t->lv, t->lvcap * sizeof(*t->lv));
	sv_ht_fini(t->arena, &t->groups);
	sv_arena_zfree(t->arena, t, sizeof(*t));
}

/* ---- the walk ---- */

/* Keep the SV_WALK_COPIES oldest entries after w->last. */
static inline void
sv_walk_keep(struct sv_walk *w, const struct sv_rule *r)
{
	uint32_t i;

	if (r->seq_ <= w->last)
		return;
	if (w->n == SV_WALK_COPIES) {
		w->more = true;
		if (r->seq_ > w->copy[w->n - 1]->seq_)
			return;
		w->n--;
	}
	for (i = w->n; i > 0 && w->copy[i - 1]->seq_ > r->seq_; i--)
		w->copy[i] = w->copy[i - 1];
	w->copy[i] = r;
	w->n++;
}

/*
 * Look the frame up in the groups of the level that may hold a match:
 * trapping: the oldest entry (returned); DONT_TRAP: the oldest copies
 * after w->last, into w (NULL returned).
 */
static const struct sv_rule *
sv_level_scan(const struct sv_level *lv, const uint64_t *kw, struct sv_walk *w)
{
	const struct sv_rule *best = NULL, *r;
	uint32_t bits, s, u;
	int64_t i;

/* A group whose rules are all younger than the match in hand cannot beat
 * it: not probed (trapping levels). */
#define SV_VISIT(grp)                                          \
	do {                                                   \
		if (best != NULL && best->seq_ < (grp)->born)  \
			break;                                 \
		w->probes++;                                   \
		r = sv_grp_find(grp, kw);                      \
		if (r == NULL)                                 \
			break;                                 \
		if (lv->dont_trap)                             \
			sv_walk_keep(w, r);                    \
		else if (best == NULL || r->seq_ < best->seq_) \
			best = r;                              \
	} while (0)

	if (lv->only != NULL) {
		SV_VISIT(lv->only);
		return best;
	}
	if (!lv->filter) {
		/* Not reached: a level of several groups has a filter. */
		for (s = 0; s < lv->nslot; s++)
			if (lv->slot[s] != NULL)
				SV_VISIT(lv->slot[s]);
		return best;
	}
	bits = 0;
	w->probes++;
	i = sv_filter_find(&lv->ft, sv_filter_sig_key(lv, kw));
	if (i >= 0 && lv->ft.slots[i].p != NULL) {
		/* The only entry with the frame's bits under P: the only one
		 * of the groups covering P that the frame may match. */
		r = lv->ft.slots[i].p;
		if (sv_rule_hit(r, kw)) {
			if (lv->dont_trap)
				sv_walk_keep(w, r);
			else
				best = r;
		}
	} else if (i >= 0) {
		bits = lv->ft.slots[i].bits;
	}
	while (bits != 0) {
		uint32_t b = (uint32_t)__builtin_ctz(bits);

		bits &= bits - 1;
		if (b < SV_FILTER_OVERFLOW) {
			if (b < lv->nslot && lv->slot[b] != NULL &&
			    lv->slot[b]->part)
				SV_VISIT(lv->slot[b]);
			continue;
		}
		for (s = SV_FILTER_OVERFLOW; s < lv->nslot; s++)
			if (lv->slot[s] != NULL && lv->slot[s]->part)
				SV_VISIT(lv->slot[s]);
	}
	for (u = 0; u < lv->nunpart; u++)
		SV_VISIT(lv->slot[lv->unpart[u]]);
#undef SV_VISIT
	return best;
}

const struct sv_rule *
sv_table_next(const struct sv_table *t, const uint64_t *kw, struct sv_walk *w)
{
	const struct sv_rule *r;

	for (;;) {
		if (w->pos < w->n) {
			r = w->copy[w->pos++];
			w->last = r->seq_;
			return r;
		}
		if (w->more) {
			/* More copies at this level than fit: the next ones. */
			w->n = 0;
			w->pos = 0;
			w->more = false;
			sv_level_scan(t->lv[w->li - 1], kw, w);
			continue;
		}
		if (w->li >= t->nlv)
			return NULL;
		w->n = 0;
		w->pos = 0;
		w->last = 0;
		r = sv_level_scan(t->lv[w->li++], kw, w);
		if (r != NULL) {
			w->li = t->nlv; /* a trapping entry ends the walk */
			return r;
		}
	}
}
