/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Flow steering: the rule tables of a port, ibv_create_flow() /
 * ibv_destroy_flow(), the receive pump and the transmit egress hook.
 *
 * Rule table (one per direction): tuple-space search. NORMAL rules are
 * grouped by their mask; each group is a hash table keyed by the masked
 * value, so a lookup costs one hash probe per distinct mask whatever the
 * number of rules. Groups are kept sorted by the best (lowest) priority
 * they hold, so the search stops as soon as no remaining group can beat the
 * match in hand.
 *
 * Ordering of NORMAL rules, the "level": priority first (lower value
 * wins); at one priority, DONT_TRAP rules before trapping ones (the mlx5
 * kernel puts them in table 2p, before 2p + 1); then insertion order, also
 * between rules of different masks, so overlapping rules at one priority
 * resolve deterministically to the one created first.
 *
 * The multicast table (mlx5 profile): the kernel's get_flow_table() puts a
 * NORMAL rule that flow_is_multicast_only() accepts, and that is not
 * DONT_TRAP, in one table, MLX5_IB_FLOW_MCAST_PRIO, after every priority,
 * whatever its own priority: a rule whose first spec is an outer ETH with
 * the group bit set in both dst_mac value and mask, or an outer IPv4 (IPV4
 * or IPV4_EXT, which rdma-core sends as IPV4) whose dst_ip value is in
 * 224.0.0.0/4, whatever its mask. Such rules share one level: among them
 * only creation order counts, and identical matches merge across
 * priorities. Egress rules follow the same rule (egress_prios[MCAST]).
 * mlx5dv rules go there on raw_fs_is_multicast() (sv_dv.c).
 *
 * A frame is classified as follows:
 *  1. every SNIFFER rule gets a copy (once per destination QP);
 *  2. NORMAL rules are walked in order: every matching DONT_TRAP rule
 *     gets the frame and the walk goes on, the first trapping rule ends
 *     it, a DROP rule drops the frame and ends it;
 *  3. if no NORMAL rule trapped the frame, the first default rule that
 *     applies takes it: MC_DEFAULT for multicast (dmac bit 0), ALL_DEFAULT
 *     for anything, in (priority, MC before ALL, creation) order. Their
 *     specs are ignored, as the mlx5 kernel ignores them (it installs its
 *     own catch-all entries, all in one leftovers table).
 * A frame that no NORMAL or default rule took counts as rx_unsteered.
 * Transmitted frames go through the EGRESS rules (DROP drops, COUNT
 * counts, DONT_TRAP goes on) and, once on the wire, are copied to the
 * sniffers (the mlx5 kernel installs a Tx sniffer rule next to the Rx
 * one). A sniffer with DROP only counts.
 *
 * Identical matches at one level are one hardware entry (the kernel merges
 * them into one FTE): a rule with the same match, priority, type and flags
 * as an existing one but another destination QP, drop or tag is refused
 * with EEXIST (where the kernel would add the QP as a second destination;
 * one fate per entry keeps steering unambiguous); an identical rule (same
 * fate) is accepted and shares the entry: frames are delivered once and
 * counted in every distinct counters object of the merged rules. Default
 * rules follow the same rule per (type, priority).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sv_internal.h"

#define SV_KEY_WORDS ((sizeof(struct sv_key) + 7) / 8)
#define SV_GRP_MIN_BUCKETS 8

/* A key as 64-bit words, zero-padded: masks and hashes work word-wise. */
union sv_kwords {
	struct sv_key key;
	uint64_t w[SV_KEY_WORDS];
};

TAILQ_HEAD(sv_rule_list, sv_rule);

/* All rules with one masked value in a group, ordered by (level, seq). */
struct sv_tss_node {
	struct sv_tss_node *next; /* bucket chain */
	uint64_t hash;
	struct sv_rule_list rules;
	uint64_t val[]; /* the group's nw masked words */
};

/* All NORMAL rules with one mask. */
struct sv_tss_group {
	TAILQ_ENTRY(sv_tss_group) link;
	uint64_t mask[SV_KEY_WORDS];
	uint8_t widx[SV_KEY_WORDS]; /* indices of the non-zero mask words */
	unsigned int nw;
	uint64_t best;	/* lowest level of its rules */
	uint32_t nbest; /* rules at that level: removal rescans at 0 */
	uint64_t born;	/* creation order, for stable sorting */
	uint32_t nrules;
	uint32_t nnodes;
	uint32_t nbuckets; /* power of two */
	struct sv_tss_node **buckets;
};

TAILQ_HEAD(sv_group_list, sv_tss_group);

struct sv_table {
	struct sv_group_list groups;  /* sorted by (best, born) */
	struct sv_rule_list defaults; /* ALL/MC_DEFAULT, sorted */
	struct sv_rule_list sniffers; /* creation order */
	uint64_t seq;
	/* Read without the lock by the transmit fast path. */
	atomic_uint nrules;
	atomic_uint nsniffers;
};

/* What sv_steer.c keeps per rule (sv_rule.tbl_). */
struct sv_ref {
	struct sv_table *tbl;
	struct sv_tss_group *grp;  /* NORMAL rules */
	struct sv_tss_node *node;  /* NORMAL rules */
	struct sv_rule_list *list; /* the list holding the rule */
	uint64_t level;
	uint64_t seq;
};

/* A verbs flow: what ibv_create_flow() hands out. */
struct sv_flow {
	struct ibv_flow flow;
	struct sv_rule rule;
	struct sv_port *port;
	struct sv_qp *qp; /* holds a use count */
};

static atomic_uint sv_flow_handles;

static inline struct sv_ref *
sv_ref(const struct sv_rule *r)
{
	return r->tbl_;
}

static inline bool
sv_order_lt(const struct sv_ref *a, const struct sv_ref *b)
{
	return a->level < b->level || (a->level == b->level && a->seq < b->seq);
}

/* Level of a NORMAL rule: priority, then DONT_TRAP before trapping; the
 * multicast table after all of them. */
static inline uint64_t
sv_normal_level(const struct sv_rule *r)
{
	if (r->mcast)
		return SV_LEVEL_MCAST;
	return ((uint64_t)r->priority << 1) |
	       !(r->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP);
}

/* Level of a default rule: priority, then MC_DEFAULT before ALL_DEFAULT. */
static inline uint64_t
sv_default_level(const struct sv_rule *r)
{
	return ((uint64_t)r->priority << 1) |
	       (r->type == IBV_FLOW_ATTR_ALL_DEFAULT);
}

/* Same fate: merging the two rules into one entry changes nothing. */
static bool
sv_same_fate(const struct sv_rule *a, const struct sv_rule *b)
{
	if (a->act.drop != b->act.drop)
		return false;
	if (!a->act.drop && a->qp != b->qp)
		return false;
	if (a->act.has_tag != b->act.has_tag)
		return false;
	return !a->act.has_tag || a->act.tag == b->act.tag;
}

static inline uint64_t
sv_hash_word(uint64_t h, uint64_t w)
{
	h ^= w;
	h *= UINT64_C(0x9e3779b97f4a7c15);
	return h ^ (h >> 29);
}

static inline uint64_t
sv_hash_final(uint64_t h)
{
	h ^= h >> 33;
	h *= UINT64_C(0xff51afd7ed558ccd);
	h ^= h >> 33;
	return h;
}

/* Mask the key words a group looks at and hash them. */
static inline uint64_t
sv_grp_extract(const struct sv_tss_group *g, const uint64_t *kw, uint64_t *out)
{
	uint64_t h = g->nw;
	unsigned int i;

	for (i = 0; i < g->nw; i++) {
		out[i] = kw[g->widx[i]] & g->mask[g->widx[i]];
		h = sv_hash_word(h, out[i]);
	}
	return sv_hash_final(h);
}

/* Word by word, as vals was just written: a wider load over those word
 * stores (memcmp()'s vectors) waits for them to reach the cache. */
static inline bool
sv_vals_equal(const uint64_t *a, const uint64_t *b, unsigned int nw)
{
	unsigned int i;

	for (i = 0; i < nw; i++)
		if (a[i] != b[i])
			return false;
	return true;
}

static inline struct sv_tss_node *
sv_grp_find(const struct sv_tss_group *g, const uint64_t *vals, uint64_t h)
{
	struct sv_tss_node *n;

	for (n = g->buckets[h & (g->nbuckets - 1)]; n != NULL; n = n->next)
		if (n->hash == h && sv_vals_equal(n->val, vals, g->nw))
			return n;
	return NULL;
}

static inline struct sv_tss_node *
sv_grp_lookup(const struct sv_tss_group *g, const uint64_t *kw)
{
	uint64_t vals[SV_KEY_WORDS];
	uint64_t h = sv_grp_extract(g, kw, vals);

	return sv_grp_find(g, vals, h);
}

static int
sv_grp_grow(struct sv_tss_group *g)
{
	uint32_t nb = g->nbuckets * 2, i;
	struct sv_tss_node **b = calloc(nb, sizeof(*b));

	if (b == NULL)
		return ENOMEM;
	for (i = 0; i < g->nbuckets; i++) {
		struct sv_tss_node *n = g->buckets[i], *next;

		for (; n != NULL; n = next) {
			next = n->next;
			n->next = b[n->hash & (nb - 1)];
			b[n->hash & (nb - 1)] = n;
		}
	}
	free(g->buckets);
	g->buckets = b;
	g->nbuckets = nb;
	return 0;
}

static void
sv_grp_unlink_node(struct sv_tss_group *g, struct sv_tss_node *node)
{
	struct sv_tss_node **pp = &g->buckets[node->hash & (g->nbuckets - 1)];

	while (*pp != node)
		pp = &(*pp)->next;
	*pp = node->next;
	g->nnodes--;
	free(node);
}

/* Keep the group list sorted by (best, born) after g->best changed. */
static void
sv_grp_resort(struct sv_table *t, struct sv_tss_group *g, bool linked)
{
	struct sv_tss_group *it;

	if (linked)
		TAILQ_REMOVE(&t->groups, g, link);
	TAILQ_FOREACH(it, &t->groups, link)
		if (it->best > g->best ||
		    (it->best == g->best && it->born > g->born))
			break;
	if (it != NULL)
		TAILQ_INSERT_BEFORE(it, g, link);
	else
		TAILQ_INSERT_TAIL(&t->groups, g, link);
}

static struct sv_tss_group *
sv_grp_get(struct sv_table *t, const union sv_kwords *mask, bool create)
{
	struct sv_tss_group *g;
	unsigned int i;

	TAILQ_FOREACH(g, &t->groups, link)
		if (memcmp(g->mask, mask->w, sizeof(g->mask)) == 0)
			return g;
	if (!create)
		return NULL;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return NULL;
	g->buckets = calloc(SV_GRP_MIN_BUCKETS, sizeof(*g->buckets));
	if (g->buckets == NULL) {
		free(g);
		return NULL;
	}
	g->nbuckets = SV_GRP_MIN_BUCKETS;
	memcpy(g->mask, mask->w, sizeof(g->mask));
	for (i = 0; i < SV_KEY_WORDS; i++)
		if (g->mask[i] != 0)
			g->widx[g->nw++] = (uint8_t)i;
	g->best = UINT64_MAX;
	g->born = t->seq;
	/* Linked by the caller once it holds a rule (best is known). */
	return g;
}

static void
sv_grp_free(struct sv_tss_group *g)
{
	uint32_t i;

	for (i = 0; i < g->nbuckets; i++) {
		struct sv_tss_node *n = g->buckets[i], *next;

		for (; n != NULL; n = next) {
			next = n->next;
			free(n);
		}
	}
	free(g->buckets);
	free(g);
}

/* Insert r after every rule of the list that does not order after it. */
static void
sv_list_insert_sorted(struct sv_rule_list *list, struct sv_rule *r)
{
	struct sv_rule *it;

	TAILQ_FOREACH(it, list, link_)
		if (sv_order_lt(sv_ref(r), sv_ref(it)))
			break;
	if (it != NULL)
		TAILQ_INSERT_BEFORE(it, r, link_);
	else
		TAILQ_INSERT_TAIL(list, r, link_);
}

static int
sv_insert_normal(struct sv_table *t, struct sv_rule *r, struct sv_ref *ref)
{
	union sv_kwords mask, value;
	uint64_t vals[SV_KEY_WORDS], h;
	struct sv_tss_group *g;
	struct sv_tss_node *node;
	struct sv_rule *it;
	bool new_grp;

	memset(&mask, 0, sizeof(mask));
	memset(&value, 0, sizeof(value));
	mask.key = r->match.mask;
	value.key = r->match.value;
	ref->level = sv_normal_level(r);

	g = sv_grp_get(t, &mask, false);
	new_grp = g == NULL;
	if (new_grp) {
		g = sv_grp_get(t, &mask, true);
		if (g == NULL)
			return ENOMEM;
	}
	h = sv_grp_extract(g, value.w, vals);
	node = new_grp ? NULL : sv_grp_find(g, vals, h);
	if (node != NULL) {
		TAILQ_FOREACH(it, &node->rules, link_)
			if (sv_ref(it)->level == ref->level &&
			    !sv_same_fate(it, r))
				return EEXIST;
	} else {
		if (g->nnodes >= g->nbuckets && sv_grp_grow(g) != 0) {
			if (new_grp)
				sv_grp_free(g);
			return ENOMEM;
		}
		node = calloc(1, sizeof(*node) + g->nw * sizeof(uint64_t));
		if (node == NULL) {
			if (new_grp)
				sv_grp_free(g);
			return ENOMEM;
		}
		node->hash = h;
		memcpy(node->val, vals, g->nw * sizeof(uint64_t));
		TAILQ_INIT(&node->rules);
		node->next = g->buckets[h & (g->nbuckets - 1)];
		g->buckets[h & (g->nbuckets - 1)] = node;
		g->nnodes++;
	}
	ref->seq = t->seq++;
	ref->grp = g;
	ref->node = node;
	ref->list = &node->rules;
	r->tbl_ = ref;
	sv_list_insert_sorted(&node->rules, r);
	g->nrules++;
	if (ref->level < g->best) {
		g->best = ref->level;
		g->nbest = 1;
		sv_grp_resort(t, g, !new_grp);
	} else if (ref->level == g->best) {
		g->nbest++;
	}
	return 0;
}

static void
sv_remove_normal(struct sv_table *t, struct sv_rule *r, struct sv_ref *ref)
{
	struct sv_tss_group *g = ref->grp;
	struct sv_tss_node *node = ref->node;
	uint64_t best = UINT64_MAX;
	uint32_t i, nbest = 0;

	TAILQ_REMOVE(&node->rules, r, link_);
	if (TAILQ_EMPTY(&node->rules))
		sv_grp_unlink_node(g, node);
	if (--g->nrules == 0) {
		TAILQ_REMOVE(&t->groups, g, link);
		sv_grp_free(g);
		return;
	}
	/* Only when the last rule at the best level goes is the group
	 * scanned again, so removing n rules stays linear. */
	if (ref->level != g->best || --g->nbest > 0)
		return;
	/* Each node's list is sorted: its head holds its best level. */
	for (i = 0; i < g->nbuckets; i++) {
		struct sv_tss_node *n;

		for (n = g->buckets[i]; n != NULL; n = n->next) {
			struct sv_rule *it;

			TAILQ_FOREACH(it, &n->rules, link_) {
				uint64_t l = sv_ref(it)->level;

				if (l > best)
					break;
				if (l < best) {
					best = l;
					nbest = 0;
				}
				nbest++;
			}
		}
	}
	g->nbest = nbest;
	if (best != g->best) {
		g->best = best;
		sv_grp_resort(t, g, true);
	}
}

static int
sv_insert_default(struct sv_table *t, struct sv_rule *r, struct sv_ref *ref)
{
	struct sv_rule *it;

	/* Priority does not separate defaults from each other in the
	 * kernel (one leftovers table) but orders them here. */
	TAILQ_FOREACH(it, &t->defaults, link_)
		if (it->type == r->type && it->priority == r->priority &&
		    !sv_same_fate(it, r))
			return EEXIST;
	ref->level = sv_default_level(r);
	ref->seq = t->seq++;
	ref->list = &t->defaults;
	r->tbl_ = ref;
	sv_list_insert_sorted(&t->defaults, r);
	return 0;
}

int
sv_steer_insert(struct sv_port *port, struct sv_rule *rule)
{
	bool egress = rule->flags & IBV_FLOW_ATTR_FLAGS_EGRESS;
	struct sv_table *t = egress ? port->tx_table : port->rx_table;
	struct sv_ref *ref;
	int rc = 0;

	if (t == NULL)
		return EINVAL;
	if (egress && rule->type != IBV_FLOW_ATTR_NORMAL)
		return EINVAL;
	ref = calloc(1, sizeof(*ref));
	if (ref == NULL)
		return ENOMEM;
	ref->tbl = t;
	pthread_rwlock_wrlock(&port->rules_lock);
	switch (rule->type) {
	case IBV_FLOW_ATTR_NORMAL:
		rc = sv_insert_normal(t, rule, ref);
		break;
	case IBV_FLOW_ATTR_ALL_DEFAULT:
	case IBV_FLOW_ATTR_MC_DEFAULT:
		rc = sv_insert_default(t, rule, ref);
		break;
	case IBV_FLOW_ATTR_SNIFFER:
		ref->seq = t->seq++;
		ref->list = &t->sniffers;
		rule->tbl_ = ref;
		TAILQ_INSERT_TAIL(&t->sniffers, rule, link_);
		atomic_fetch_add(&t->nsniffers, 1);
		break;
	default:
		rc = EINVAL;
		break;
	}
	if (rc == 0)
		atomic_fetch_add(&t->nrules, 1);
	pthread_rwlock_unlock(&port->rules_lock);
	if (rc != 0) {
		rule->tbl_ = NULL;
		free(ref);
	}
	return rc;
}

void
sv_steer_remove(struct sv_port *port, struct sv_rule *rule)
{
	struct sv_ref *ref = rule->tbl_;
	struct sv_table *t;

	if (ref == NULL)
		return;
	t = ref->tbl;
	pthread_rwlock_wrlock(&port->rules_lock);
	if (ref->grp != NULL) {
		sv_remove_normal(t, rule, ref);
	} else {
		TAILQ_REMOVE(ref->list, rule, link_);
		if (rule->type == IBV_FLOW_ATTR_SNIFFER)
			atomic_fetch_sub(&t->nsniffers, 1);
	}
	atomic_fetch_sub(&t->nrules, 1);
	rule->tbl_ = NULL;
	pthread_rwlock_unlock(&port->rules_lock);
	free(ref);
}

static struct sv_table *
sv_table_new(void)
{
	struct sv_table *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	TAILQ_INIT(&t->groups);
	TAILQ_INIT(&t->defaults);
	TAILQ_INIT(&t->sniffers);
	return t;
}

/* Frees the table; rules still in it belong to their creators. */
static void
sv_table_free(struct sv_table *t)
{
	struct sv_tss_group *g;
	struct sv_rule *r;
	uint32_t i;

	if (t == NULL)
		return;
	while ((g = TAILQ_FIRST(&t->groups)) != NULL) {
		TAILQ_REMOVE(&t->groups, g, link);
		for (i = 0; i < g->nbuckets; i++) {
			struct sv_tss_node *n;

			for (n = g->buckets[i]; n != NULL; n = n->next)
				while ((r = TAILQ_FIRST(&n->rules)) != NULL) {
					TAILQ_REMOVE(&n->rules, r, link_);
					free(r->tbl_);
					r->tbl_ = NULL;
				}
		}
		sv_grp_free(g);
	}
	while ((r = TAILQ_FIRST(&t->defaults)) != NULL) {
		TAILQ_REMOVE(&t->defaults, r, link_);
		free(r->tbl_);
		r->tbl_ = NULL;
	}
	while ((r = TAILQ_FIRST(&t->sniffers)) != NULL) {
		TAILQ_REMOVE(&t->sniffers, r, link_);
		free(r->tbl_);
		r->tbl_ = NULL;
	}
	free(t);
}

int
sv_steer_init(struct sv_port *port)
{
	port->rx_table = sv_table_new();
	port->tx_table = sv_table_new();
	if (port->rx_table == NULL || port->tx_table == NULL) {
		sv_steer_fini(port);
		return ENOMEM;
	}
	return 0;
}

void
sv_steer_fini(struct sv_port *port)
{
	sv_table_free(port->rx_table);
	sv_table_free(port->tx_table);
	port->rx_table = NULL;
	port->tx_table = NULL;
}

/*
 * Next NORMAL rule hit by the frame after 'after' (NULL: the first).
 * Rules merged into an earlier identical entry are skipped: the head of
 * the entry stands for them.
 */
static struct sv_rule *
sv_tss_next(const struct sv_table *t, const uint64_t *kw,
	    const struct sv_ref *after)
{
	const struct sv_ref *bref = NULL;
	struct sv_rule *best = NULL;
	struct sv_tss_group *g;

	TAILQ_FOREACH(g, &t->groups, link) {
		struct sv_tss_node *node;
		struct sv_rule *r;

		/* Sorted by best level: nothing further can win. */
		if (bref != NULL && g->best > bref->level)
			break;
		node = sv_grp_lookup(g, kw);
		if (node == NULL)
			continue;
		TAILQ_FOREACH(r, &node->rules, link_) {
			const struct sv_ref *ref = sv_ref(r);
			struct sv_rule *prev;

			if (after != NULL && !sv_order_lt(after, ref))
				continue;
			prev = TAILQ_PREV(r, sv_rule_list, link_);
			if (prev != NULL && sv_ref(prev)->level == ref->level)
				continue;
			if (bref == NULL || sv_order_lt(ref, bref)) {
				best = r;
				bref = ref;
			}
			break;
		}
	}
	return best;
}

/* Count a frame in each distinct counters object of the entry headed by
 * r (r and the identical rules merged into it). */
static void
sv_count_entry(const struct sv_rule *r, uint32_t len)
{
	const struct sv_rule *it, *seen;
	uint64_t level = sv_ref(r)->level;

	for (it = r; it != NULL; it = TAILQ_NEXT(it, link_)) {
		if (it != r &&
		    (sv_ref(it)->level != level || it->type != r->type))
			break;
		if (it->act.counters == NULL)
			continue;
		for (seen = r; seen != it; seen = TAILQ_NEXT(seen, link_))
			if (seen->act.counters == it->act.counters)
				break;
		if (seen == it)
			sv_counters_add(it->act.counters, len);
	}
}

struct sv_frame {
	struct sv_port *port;
	const uint8_t *data;
	uint32_t len;
	union sv_kwords kw;
	unsigned int wc_flags;
};

/* Scatter the frame to a hash QP: the low bits of the Toeplitz hash pick
 * the indirection table entry, as hardware does. */
static void
sv_deliver(struct sv_frame *f, const struct sv_qp *qp,
	   const struct sv_actions *act)
{
	const struct sv_ind *ind = qp->ind;
	uint32_t hash, idx;

	if (qp->kind != SV_QP_HASH || ind == NULL)
		return;
	/* A one-entry table takes every frame, whatever the hash. */
	idx = 0;
	if (ind->log_size != 0) {
		hash = sv_qp_rx_hash(qp, &f->kw.key);
		idx = hash & ((UINT32_C(1) << ind->log_size) - 1);
	}
	switch (sv_wq_deliver(ind->wqs[idx], f->data, f->len, act,
			      f->wc_flags)) {
	case ENOBUFS:
		atomic_fetch_add_explicit(&f->port->rx_no_buffer, 1,
					  memory_order_relaxed);
		break;
	case EAGAIN:
		atomic_fetch_add_explicit(&f->port->rx_not_ready, 1,
					  memory_order_relaxed);
		break;
	default:
		break;
	}
}

/* Copies to every sniffer, once per destination QP. */
static void
sv_sniff(struct sv_frame *f, const struct sv_table *t)
{
	const struct sv_rule *r, *p;

	TAILQ_FOREACH(r, &t->sniffers, link_) {
		if (r->act.counters != NULL)
			sv_counters_add(r->act.counters, f->len);
		if (r->act.drop || r->qp == NULL)
			continue;
		for (p = TAILQ_FIRST(&t->sniffers); p != r;
		     p = TAILQ_NEXT(p, link_))
			if (!p->act.drop && p->qp == r->qp)
				break;
		if (p == r)
			sv_deliver(f, r->qp, &r->act);
	}
}

static inline bool
sv_frame_multicast(const struct sv_frame *f)
{
	return f->len >= 1 && (f->data[0] & 1);
}

static void
sv_classify_rx(struct sv_frame *f, const struct sv_table *t)
{
	struct sv_port *port = f->port;
	const struct sv_ref *after = NULL;
	const struct sv_rule *r;
	bool steered = false;
	unsigned int guard =
		atomic_load_explicit(&t->nrules, memory_order_relaxed) + 1;

	if (!TAILQ_EMPTY(&t->sniffers))
		sv_sniff(f, t);
	while (guard-- > 0 && (r = sv_tss_next(t, f->kw.w, after)) != NULL) {
		steered = true;
		sv_count_entry(r, f->len);
		if (r->act.drop) {
			atomic_fetch_add_explicit(&port->rx_dropped, 1,
						  memory_order_relaxed);
			return;
		}
		if (r->qp != NULL)
			sv_deliver(f, r->qp, &r->act);
		if (!(r->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP))
			return;
		after = sv_ref(r);
	}
	TAILQ_FOREACH(r, &t->defaults, link_) {
		if (r->type == IBV_FLOW_ATTR_MC_DEFAULT &&
		    !sv_frame_multicast(f))
			continue;
		sv_count_entry(r, f->len);
		if (r->act.drop)
			atomic_fetch_add_explicit(&port->rx_dropped, 1,
						  memory_order_relaxed);
		else if (r->qp != NULL)
			sv_deliver(f, r->qp, &r->act);
		return;
	}
	if (!steered)
		atomic_fetch_add_explicit(&port->rx_unsteered, 1,
					  memory_order_relaxed);
}

static void
sv_frame_parse(struct sv_frame *f, struct sv_port *port, const uint8_t *data,
	       uint32_t len)
{
	struct sv_pkt_info info;

	f->port = port;
	f->data = data;
	f->len = len;
	/* sv_parse() zeroes the key and info; only the word padding after
	 * the key is left to clear. */
	memset((uint8_t *)&f->kw + sizeof(f->kw.key), 0,
	       sizeof(f->kw) - sizeof(f->kw.key));
	sv_parse(data, len, &f->kw.key, &info);
	/* mlx5 reports IP_CSUM_OK for IPv4 with both checksums good only. */
	f->wc_flags = 0;
	if ((f->kw.key.outer.present & SV_P_IPV4) && info.l3_csum_ok &&
	    info.l4_csum_ok)
		f->wc_flags |= IBV_WC_IP_CSUM_OK;
}

/* One pump: the rules are read-locked from its first frame on. */
struct sv_pump {
	struct sv_port *port;
	bool locked;
};

static void
sv_rx_frame(void *arg, const uint8_t *data, uint32_t len)
{
	struct sv_pump *pump = arg;
	struct sv_frame f;

	sv_frame_parse(&f, pump->port, data, len);
	if (!pump->locked) {
		pthread_rwlock_rdlock(&pump->port->rules_lock);
		pump->locked = true;
	}
	sv_classify_rx(&f, pump->port->rx_table);
}

unsigned int
sv_port_pump(struct sv_port *port)
{
	struct sv_pump pump = { .port = port, .locked = false };
	unsigned int n;

	if (port->wire == NULL || port->rx_table == NULL)
		return 0;
	if (pthread_spin_trylock(&port->pump_lock) != 0)
		return 0;
	/* The rules stay put for one batch (SV_RX_BATCH frames): a flow
	 * create or destroy waits for at most that; the lock and the
	 * counter are paid once per batch rather than per frame, and not
	 * at all when the wire has nothing. */
	n = sv_wire_rx(port->wire, SV_RX_BATCH, sv_rx_frame, &pump);
	if (pump.locked)
		pthread_rwlock_unlock(&port->rules_lock);
	if (n != 0)
		atomic_fetch_add_explicit(&port->rx_frames, n,
					  memory_order_relaxed);
	pthread_spin_unlock(&port->pump_lock);
	return n;
}

bool
sv_port_egress_idle(const struct sv_port *port)
{
	const struct sv_table *tx = port->tx_table, *rx = port->rx_table;

	return tx == NULL || rx == NULL ||
	       (atomic_load_explicit(&tx->nrules, memory_order_relaxed) == 0 &&
		atomic_load_explicit(&rx->nsniffers, memory_order_relaxed) ==
			0);
}

bool
sv_port_egress(struct sv_port *port, const uint8_t *frame, uint32_t len)
{
	struct sv_table *tx = port->tx_table, *rx = port->rx_table;
	const struct sv_ref *after = NULL;
	const struct sv_rule *r;
	bool send = true, sniff;
	struct sv_frame f;
	unsigned int guard;

	/* Nothing to apply: skip parsing, the common case. */
	if (sv_port_egress_idle(port))
		return true;
	sv_frame_parse(&f, port, frame, len);
	/* Copies to sniffers are deliveries: the pump lock serialises them
	 * with the pump (taken first, as the pump does). A sniffer made
	 * after this check sees the frames sent after it. */
	sniff = atomic_load_explicit(&rx->nsniffers, memory_order_relaxed) != 0;
	if (sniff)
		pthread_spin_lock(&port->pump_lock);
	pthread_rwlock_rdlock(&port->rules_lock);
	guard = atomic_load_explicit(&tx->nrules, memory_order_relaxed) + 1;
	while (guard-- > 0 && (r = sv_tss_next(tx, f.kw.w, after)) != NULL) {
		sv_count_entry(r, len);
		if (r->act.drop) {
			send = false;
			break;
		}
		if (!(r->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP))
			break;
		after = sv_ref(r);
	}
	/* Sniffers see what goes on the wire. */
	if (send && sniff && !TAILQ_EMPTY(&rx->sniffers))
		sv_sniff(&f, rx);
	pthread_rwlock_unlock(&port->rules_lock);
	if (sniff)
		pthread_spin_unlock(&port->pump_lock);
	return send;
}

/* The kernel's flow_is_multicast_only(), on a compiled chain. */
static bool
sv_flow_is_multicast_only(const struct ibv_flow_attr *attr)
{
	const uint8_t *p = (const uint8_t *)(attr + 1);
	enum ibv_flow_spec_type type;

	if (attr->type != IBV_FLOW_ATTR_NORMAL || attr->num_of_specs < 1)
		return false;
	memcpy(&type, p, sizeof(type));
	if (type == IBV_FLOW_SPEC_IPV4 || type == IBV_FLOW_SPEC_IPV4_EXT) {
		struct ibv_flow_spec_ipv4 v4;

		/* dst_ip sits at the same offset in both specs. */
		memcpy(&v4, p, sizeof(v4));
		return (ntohl(v4.val.dst_ip) & 0xf0000000) == 0xe0000000;
	}
	if (type == IBV_FLOW_SPEC_ETH) {
		struct ibv_flow_spec_eth eth;

		memcpy(&eth, p, sizeof(eth));
		return (eth.mask.dst_mac[0] & 1) && (eth.val.dst_mac[0] & 1);
	}
	return false;
}

/* Flags that rdma-core 44 defines (bit 0 is deprecated). */
#define SV_FLOW_FLAGS \
	(IBV_FLOW_ATTR_FLAGS_DONT_TRAP | IBV_FLOW_ATTR_FLAGS_EGRESS)

struct ibv_flow *
sv_create_flow(struct ibv_qp *ibqp, struct ibv_flow_attr *attr)
{
	struct sv_qp *qp;
	struct sv_device *dev;
	struct sv_port *port;
	struct sv_flow *flow;
	struct sv_match match;
	struct sv_actions act;
	bool egress;
	int rc;

	if (ibqp == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	qp = sv_qp(ibqp);
	dev = qp->ctx->dev;
	port = &dev->port;
	egress = attr->flags & IBV_FLOW_ATTR_FLAGS_EGRESS;
	/* Checks in the order uverbs and the mlx5 kernel make them. */
	if (attr->comp_mask != 0 || (attr->flags & ~SV_FLOW_FLAGS) ||
	    attr->type > IBV_FLOW_ATTR_SNIFFER) {
		errno = EINVAL;
		return NULL;
	}
	/* ibv_create_flow(3) note 4: DONT_TRAP is for NORMAL rules only. */
	if ((attr->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP) &&
	    attr->type != IBV_FLOW_ATTR_NORMAL) {
		errno = EINVAL;
		return NULL;
	}
	if (egress && attr->type != IBV_FLOW_ATTR_NORMAL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->port != port->port_num) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->priority > dev->caps.max_priority) {
		/* The mlx5 kernel answers ENOMEM (no such flow table). */
		errno = dev->caps.profile == SV_PROFILE_MLX5 ? ENOMEM : EINVAL;
		return NULL;
	}
	memset(&match, 0, sizeof(match));
	memset(&act, 0, sizeof(act));
	rc = sv_spec_compile(&dev->caps, attr, &match, &act);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	/* Kernels that took egress rules only with an IPsec action (see
	 * SV_DEV_NO_VERBS_EGRESS): is_valid_spec() -> EINVAL. */
	if (egress && !sv_dev_has(dev, SV_DEV_NO_VERBS_EGRESS)) {
		errno = EINVAL;
		return NULL;
	}
	/* "Flow tag isn't allowed in leftovers"; no tag on sent frames;
	 * completions carry 24 bits of tag. */
	if (act.has_tag && (egress || act.tag >= (UINT32_C(1) << 24) ||
			    attr->type == IBV_FLOW_ATTR_ALL_DEFAULT ||
			    attr->type == IBV_FLOW_ATTR_MC_DEFAULT)) {
		errno = EINVAL;
		return NULL;
	}
	/* Egress: the QP only names the device (note 6). Ingress: frames
	 * are scattered through a hash QP's indirection table; a DROP rule
	 * may sit on any QP (its destination is ignored). */
	if (!egress && !act.drop &&
	    (qp->kind != SV_QP_HASH || qp->ind == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	if (act.counters != NULL && act.counters->ctx->dev != dev) {
		errno = EINVAL;
		return NULL;
	}
	flow = calloc(1, sizeof(*flow));
	if (flow == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	if (attr->type == IBV_FLOW_ATTR_NORMAL)
		flow->rule.match = match;
	flow->rule.act = act;
	flow->rule.priority = attr->priority;
	flow->rule.type = attr->type;
	flow->rule.flags = attr->flags;
	flow->rule.qp = egress ? NULL : qp;
	flow->rule.mcast = dev->caps.profile == SV_PROFILE_MLX5 &&
			   !(attr->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP) &&
			   sv_flow_is_multicast_only(attr);
	flow->port = port;
	flow->qp = qp;
	/* Binding freezes the counters' attach points (EBUSY after). */
	if (act.counters != NULL) {
		rc = sv_counters_bind(act.counters);
		if (rc != 0) {
			free(flow);
			errno = rc;
			return NULL;
		}
	}
	rc = sv_steer_insert(port, &flow->rule);
	if (rc != 0) {
		if (act.counters != NULL)
			sv_counters_unbind(act.counters);
		free(flow);
		errno = rc;
		return NULL;
	}
	atomic_fetch_add(&qp->usecnt, 1);
	atomic_fetch_add(&qp->ctx->nobjs, 1);
	flow->flow.comp_mask = 0;
	flow->flow.context = ibqp->context;
	/* Bit 31 marks mlx5dv flows. */
	flow->flow.handle = atomic_fetch_add(&sv_flow_handles, 1) &
			    ~SV_FLOW_HANDLE_DV;
	return &flow->flow;
}

int
sv_destroy_flow(struct ibv_flow *ibflow)
{
	struct sv_flow *flow;

	if (ibflow == NULL)
		return EINVAL;
	/* ibv_destroy_flow() also destroys mlx5dv_create_flow() flows. */
	if (ibflow->handle & SV_FLOW_HANDLE_DV)
		return sv_dv_destroy_flow(ibflow);
	flow = sv_container_of(ibflow, struct sv_flow, flow);
	sv_steer_remove(flow->port, &flow->rule);
	if (flow->rule.act.counters != NULL)
		sv_counters_unbind(flow->rule.act.counters);
	atomic_fetch_sub(&flow->qp->usecnt, 1);
	atomic_fetch_sub(&flow->qp->ctx->nobjs, 1);
	free(flow);
	return 0;
}
