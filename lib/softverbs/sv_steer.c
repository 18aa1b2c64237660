/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Flow steering: the rules of a port, ibv_create_flow() /
 * ibv_destroy_flow(), the receive pump and the transmit egress hook.
 *
 * A port has two directions (ingress, egress), each with its NORMAL rules
 * in a table (sv_table.c: levels, a group per mask, a filter per level),
 * its default rules and its sniffers; rule objects and the tables' arrays
 * come from the port's arena (sv_slab.c).
 *
 * Ordering of NORMAL rules, the "level": priority first (lower value
 * wins); at one priority, DONT_TRAP rules before trapping ones (the mlx5
 * kernel puts them in table 2p, before 2p + 1); then creation order, also
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
 * as an existing one joins its entry as sv_entry_joinable() says. On the
 * mlx5 profile, as mlx5 core's FTE: DROP against a destination, or a tag
 * other than the entry's, is EEXIST; another destination QP is added, and
 * a frame the entry takes goes to each of its QPs once, with the entry's
 * tag. On the generic profile one fate per entry: another QP, drop or tag
 * is EEXIST. Either way a frame is counted in every distinct counters
 * object of the merged rules. Default rules keep one fate per (type,
 * priority).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sv_internal.h"
#include "sv_pktedit.h"
#include "sv_table.h"

/* A received frame an entry's flow actions change is delivered from here:
 * the largest frame a wire gives, and room to spare. */
#define SV_RX_EDIT_MAX 16384

/* One direction of a port. */
struct sv_dir {
	struct sv_table *normal;
	struct sv_rule **defaults; /* by (priority, MC before ALL, seq) */
	uint32_t ndefaults, defcap;
	struct sv_rule **sniffers; /* by seq */
	uint32_t nsniffers_, sniffcap;
	uint64_t seq;
	/* The last NORMAL mask inserted, its level and what the table made
	 * of it: rules often come in runs of one mask (write lock). */
	union sv_kwords last_mask;
	uint32_t last_level;
	struct sv_mask_key last_mk;
	/* Read without the lock by the transmit fast path. */
	atomic_uint nrules;
	atomic_uint nsniffers;
};

struct sv_steer {
	struct sv_arena arena;
	struct sv_dir rx, tx;
};

/* A verbs flow: what ibv_create_flow() hands out. Its rule's QP holds a
 * use count and names the device. */
struct sv_flow {
	struct ibv_flow flow;
	struct sv_rule rule; /* last: its value words follow */
};

_Static_assert(offsetof(struct sv_flow, rule) + sizeof(struct sv_rule) ==
		       sizeof(struct sv_flow),
	       "the rule ends the flow");

static atomic_uint sv_flow_handles;

/* Level of a default rule: priority, then MC_DEFAULT before ALL_DEFAULT. */
static inline uint32_t
sv_default_level(const struct sv_rule *r)
{
	return ((uint32_t)r->priority << 1) |
	       (r->type == IBV_FLOW_ATTR_ALL_DEFAULT);
}

/* Make room for one more pointer in a vector of the arena. */
static int
sv_vec_reserve(struct sv_arena *a, struct sv_rule ***v, uint32_t n,
	       uint32_t *cap)
{
	uint32_t nc;
	struct sv_rule **nv;

	if (n < *cap)
		return 0;
	nc = *cap ? *cap * 2 : 4;
	nv = sv_arena_zalloc(a, nc * sizeof(*nv));
	if (nv == NULL)
		return ENOMEM;
	if (n > 0)
		memcpy(nv, *v, n * sizeof(*nv));
	sv_arena_zfree(a, *v, *cap * sizeof(**v));
	*v = nv;
	*cap = nc;
	return 0;
}

static void
sv_vec_remove(struct sv_rule **v, uint32_t *n, const struct sv_rule *r)
{
	uint32_t i;

	for (i = 0; i < *n; i++)
		if (v[i] == r) {
			memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof(*v));
			(*n)--;
			return;
		}
}

static int
sv_default_add(struct sv_arena *a, struct sv_dir *d, struct sv_rule *r)
{
	uint32_t i, lvl = sv_default_level(r);

	/* Priority does not separate defaults from each other in the
	 * kernel (one leftovers table) but orders them here. */
	for (i = 0; i < d->ndefaults; i++)
		if (d->defaults[i]->type == r->type &&
		    d->defaults[i]->priority == r->priority &&
		    !sv_same_fate(d->defaults[i], r))
			return EEXIST;
	if (sv_vec_reserve(a, &d->defaults, d->ndefaults, &d->defcap) != 0)
		return ENOMEM;
	/* After every default that does not order after it (r is the
	 * newest). */
	for (i = d->ndefaults; i > 0; i--)
		if (sv_default_level(d->defaults[i - 1]) <= lvl)
			break;
	memmove(&d->defaults[i + 1], &d->defaults[i],
		(d->ndefaults - i) * sizeof(*d->defaults));
	d->defaults[i] = r;
	d->ndefaults++;
	return 0;
}

struct sv_rule *
sv_steer_add(struct sv_port *port, const struct sv_rule *tmpl,
	     const struct sv_key *mask, const struct sv_key *value, size_t hdr)
{
	struct sv_steer *st = port->steer;
	bool egress = tmpl->flags & IBV_FLOW_ATTR_FLAGS_EGRESS;
	struct sv_mask_key mk = { 0 };
	union sv_kwords mw, vw;
	struct sv_rule *r;
	struct sv_dir *d;
	uint8_t *obj;
	int rc;

	if (st == NULL || hdr > UINT8_MAX || (hdr & 7) != 0 ||
	    (egress && tmpl->type != IBV_FLOW_ATTR_NORMAL)) {
		errno = EINVAL;
		return NULL;
	}
	d = egress ? &st->tx : &st->rx;
	if (tmpl->type == IBV_FLOW_ATTR_NORMAL) {
		sv_key_words(mask, &mw);
		sv_key_words(value, &vw);
	}
	pthread_rwlock_wrlock(&port->rules_lock);
	if (tmpl->type == IBV_FLOW_ATTR_NORMAL) {
		uint32_t level = sv_rule_level(tmpl);

		if (d->last_mk.gsig != 0 && d->last_level == level &&
		    memcmp(&d->last_mask, &mw, sizeof(mw)) == 0) {
			mk = d->last_mk;
		} else {
			sv_table_mask_key(&mw, level, &mk);
			d->last_mask = mw;
			d->last_level = level;
			d->last_mk = mk;
		}
	}
	obj = sv_arena_obj_alloc(&st->arena,
				 hdr + sizeof(*r) + mk.nw * sizeof(uint64_t));
	if (obj == NULL) {
		rc = ENOMEM;
		goto out;
	}
	memset(obj, 0, hdr);
	r = (struct sv_rule *)(void *)(obj + hdr);
	*r = *tmpl;
	r->hdr_ = (uint8_t)hdr;
	r->seq_ = ++d->seq;
	r->grp_ = NULL;
	r->next_ = NULL;
	switch (r->type) {
	case IBV_FLOW_ATTR_NORMAL:
		rc = sv_table_insert(d->normal, r, &mw, &mk, &vw);
		break;
	case IBV_FLOW_ATTR_ALL_DEFAULT:
	case IBV_FLOW_ATTR_MC_DEFAULT:
		rc = sv_default_add(&st->arena, d, r);
		break;
	case IBV_FLOW_ATTR_SNIFFER:
		rc = sv_vec_reserve(&st->arena, &d->sniffers, d->nsniffers_,
				    &d->sniffcap);
		if (rc == 0) {
			d->sniffers[d->nsniffers_++] = r;
			atomic_fetch_add(&d->nsniffers, 1);
		}
		break;
	default:
		rc = EINVAL;
		break;
	}
	if (rc == 0)
		atomic_fetch_add(&d->nrules, 1);
	else
		sv_arena_obj_free(&st->arena, obj);
out:
	pthread_rwlock_unlock(&port->rules_lock);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	return r;
}

void
sv_steer_del(struct sv_port *port, struct sv_rule *r)
{
	struct sv_steer *st = port->steer;
	struct sv_dir *d;

	if (st == NULL || r == NULL)
		return;
	d = (r->flags & IBV_FLOW_ATTR_FLAGS_EGRESS) ? &st->tx : &st->rx;
	pthread_rwlock_wrlock(&port->rules_lock);
	switch (r->type) {
	case IBV_FLOW_ATTR_NORMAL:
		sv_table_remove(d->normal, r);
		break;
	case IBV_FLOW_ATTR_SNIFFER:
		sv_vec_remove(d->sniffers, &d->nsniffers_, r);
		atomic_fetch_sub(&d->nsniffers, 1);
		break;
	default:
		sv_vec_remove(d->defaults, &d->ndefaults, r);
		break;
	}
	atomic_fetch_sub(&d->nrules, 1);
	sv_arena_obj_free(&st->arena, (uint8_t *)r - r->hdr_);
	pthread_rwlock_unlock(&port->rules_lock);
}

static int
sv_dir_init(struct sv_arena *a, struct sv_dir *d, bool fte)
{
	memset(d, 0, sizeof(*d));
	d->normal = sv_table_new(a, fte);
	return d->normal == NULL ? ENOMEM : 0;
}

static void
sv_dir_fini(struct sv_arena *a, struct sv_dir *d)
{
	sv_table_free(d->normal);
	sv_arena_zfree(a, d->defaults, d->defcap * sizeof(*d->defaults));
	sv_arena_zfree(a, d->sniffers, d->sniffcap * sizeof(*d->sniffers));
	memset(d, 0, sizeof(*d));
}

int
sv_steer_init(struct sv_port *port)
{
	struct sv_steer *st = calloc(1, sizeof(*st));
	bool fte = port->dev->caps.profile == SV_PROFILE_MLX5;

	if (st == NULL)
		return ENOMEM;
	sv_arena_init(&st->arena);
	if (sv_dir_init(&st->arena, &st->rx, fte) != 0 ||
	    sv_dir_init(&st->arena, &st->tx, fte) != 0) {
		sv_dir_fini(&st->arena, &st->rx);
		sv_arena_fini(&st->arena);
		free(st);
		return ENOMEM;
	}
	port->steer = st;
	return 0;
}

/* Rules still there belong to flows that outlive the device, which close
 * and remove refuse (EBUSY): their memory goes with the arena. */
void
sv_steer_fini(struct sv_port *port)
{
	struct sv_steer *st = port->steer;

	if (st == NULL)
		return;
	sv_dir_fini(&st->arena, &st->rx);
	sv_dir_fini(&st->arena, &st->tx);
	sv_arena_fini(&st->arena);
	free(st);
	port->steer = NULL;
}

int
softverbs_port_rule_mem(struct ibv_context *ctx, uint8_t port,
			struct sv_rule_mem *mem)
{
	struct sv_port *p;
	struct sv_steer *st;

	if (ctx == NULL || mem == NULL)
		return EINVAL;
	p = &sv_ctx(ctx)->dev->port;
	if (port != p->port_num || p->steer == NULL)
		return EINVAL;
	st = p->steer;
	pthread_rwlock_rdlock(&p->rules_lock);
	mem->rules = atomic_load(&st->rx.nrules) + atomic_load(&st->tx.nrules);
	mem->bytes = st->arena.bytes;
	pthread_rwlock_unlock(&p->rules_lock);
	return 0;
}

/* Count a frame in each distinct counters object of the entry headed by
 * r (r and the identical rules merged into it). */
static void
sv_count_entry(const struct sv_rule *r, uint32_t len)
{
	const struct sv_rule *it, *seen;

	for (it = r; it != NULL; it = it->next_) {
		if (it->act.counters == NULL)
			continue;
		for (seen = r; seen != it; seen = seen->next_)
			if (seen->act.counters == it->act.counters)
				break;
		if (seen == it)
			sv_counters_add(it->act.counters, len);
	}
}

/* The same for the default at index i and the identical defaults
 * (same type and priority) after it. */
static void
sv_count_default(struct sv_rule *const *v, uint32_t n, uint32_t i, uint32_t len)
{
	const struct sv_rule *r = v[i];
	uint32_t j, k;

	for (j = i; j < n; j++) {
		const struct sv_rule *it = v[j];

		if (it->type != r->type || it->priority != r->priority)
			break;
		if (it->act.counters == NULL)
			continue;
		for (k = i; k < j; k++)
			if (v[k]->act.counters == it->act.counters)
				break;
		if (k == j)
			sv_counters_add(it->act.counters, len);
	}
}

struct sv_frame {
	struct sv_port *port;
	const uint8_t *data;
	uint32_t len;
	union sv_kwords kw;
	unsigned int wc_flags;
	struct sv_pkt_info info; /* for a WQ's other face */
};

/* A WQ with another face (sv_wq_face): it gets the frame with what the
 * steering core knows of it. */
static int
sv_deliver_face(const struct sv_frame *f, const struct sv_qp *qp,
		struct sv_wq *wq, const struct sv_actions *act)
{
	const struct sv_rx_frame rf = {
		.data = f->data,
		.len = f->len,
		.key = &f->kw.key,
		.info = &f->info,
		.qp = qp,
		.act = act,
	};

	return wq->face->deliver(wq, &rf);
}

/* Scatter the frame to a hash QP: the low bits of the Toeplitz hash pick
 * the indirection table entry, as hardware does. */
static void
sv_deliver(struct sv_frame *f, const struct sv_qp *qp,
	   const struct sv_actions *act)
{
	const struct sv_ind *ind = qp->ind;
	uint32_t hash, idx;
	struct sv_wq *wq;
	int rc;

	if (qp->kind != SV_QP_HASH || ind == NULL)
		return;
	/* A one-entry table takes every frame, whatever the hash. */
	idx = 0;
	if (ind->log_size != 0) {
		hash = sv_qp_rx_hash(qp, &f->kw.key);
		idx = hash & ((UINT32_C(1) << ind->log_size) - 1);
	}
	wq = ind->wqs[idx];
	rc = sv_likely(wq->face == NULL) ?
		     sv_wq_deliver(wq, f->data, f->len, act, f->wc_flags) :
		     sv_deliver_face(f, qp, wq, act);
	switch (rc) {
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

/* The entry headed by r takes the frame: each QP of its rules once, with
 * the entry's actions (its tag). */
static void
sv_deliver_entry(struct sv_frame *f, const struct sv_rule *r)
{
	const struct sv_rule *it, *seen;

	for (it = r; it != NULL; it = it->next_) {
		if (it->qp == NULL)
			continue;
		for (seen = r; seen != it; seen = seen->next_)
			if (seen->qp == it->qp)
				break;
		if (seen == it)
			sv_deliver(f, it->qp, &r->act);
	}
}

/* Copies to every sniffer, once per destination QP. */
static void
sv_sniff(struct sv_frame *f, const struct sv_dir *d)
{
	uint32_t i, j;

	for (i = 0; i < d->nsniffers_; i++) {
		const struct sv_rule *r = d->sniffers[i];

		if (r->act.counters != NULL)
			sv_counters_add(r->act.counters, f->len);
		if (r->act.drop || r->qp == NULL)
			continue;
		for (j = 0; j < i; j++)
			if (!d->sniffers[j]->act.drop &&
			    d->sniffers[j]->qp == r->qp)
				break;
		if (j == i)
			sv_deliver(f, r->qp, &r->act);
	}
}

static inline bool
sv_frame_multicast(const struct sv_frame *f)
{
	return f->len >= 1 && (f->data[0] & 1);
}

static void sv_frame_parse(struct sv_frame *f, struct sv_port *port,
			   const uint8_t *data, uint32_t len);

/*
 * The entry headed by r takes the frame, after the entry's flow actions
 * (decap, rewrite) when it has some: its queues then get the frame as
 * those actions left it, hashed and checked as it is now, since the
 * steering actions run before the frame reaches the RSS and the receive
 * queue (the TIR).
 */
static void
sv_take_entry(struct sv_frame *f, const struct sv_rule *r)
{
	static __thread uint8_t buf[SV_RX_EDIT_MAX];
	struct sv_frame g;
	uint32_t n;

	if (sv_likely(r->act.edit == NULL)) {
		sv_deliver_entry(f, r);
		return;
	}
	n = sv_edit_apply(r->act.edit, f->data, f->len, buf, sizeof(buf));
	if (n == 0)
		return;
	sv_frame_parse(&g, f->port, buf, n);
	sv_deliver_entry(&g, r);
}

static void
sv_classify_rx(struct sv_frame *f, const struct sv_dir *d)
{
	struct sv_port *port = f->port;
	const struct sv_rule *r;
	struct sv_walk w;
	bool steered = false;
	uint32_t i;

	if (d->nsniffers_ > 0)
		sv_sniff(f, d);
	sv_walk_init(&w);
	while ((r = sv_table_next(d->normal, f->kw.w, &w)) != NULL) {
		steered = true;
		sv_count_entry(r, f->len);
		if (r->act.drop) {
			atomic_fetch_add_explicit(&port->rx_dropped, 1,
						  memory_order_relaxed);
			return;
		}
		sv_take_entry(f, r);
		if (!(r->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP))
			return;
	}
	for (i = 0; i < d->ndefaults; i++) {
		r = d->defaults[i];
		if (r->type == IBV_FLOW_ATTR_MC_DEFAULT &&
		    !sv_frame_multicast(f))
			continue;
		sv_count_default(d->defaults, d->ndefaults, i, f->len);
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
	f->port = port;
	f->data = data;
	f->len = len;
	/* sv_parse() zeroes the key and info; only the word padding after
	 * the key is left to clear. */
	f->kw.w[SV_KEY_WORDS - 1] = 0;
	sv_parse(data, len, &f->kw.key, &f->info);
	/* IP_CSUM_OK: IPv4 with both checksums good only. Every receive
	 * queue here is a WQ, whose completions never carry it on mlx5:
	 * libmlx5 reads the CQE's checksum bits for a QP's receive queue
	 * alone (rdma-core v44.0, providers/mlx5/cq.c,
	 * handle_responder_lazy(): "cur_rsc->type == MLX5_RSC_TYPE_QP"). */
	f->wc_flags = 0;
	if (port->dev->caps.profile != SV_PROFILE_MLX5 &&
	    (f->kw.key.outer.present & SV_P_IPV4) && f->info.l3_csum_ok &&
	    f->info.l4_csum_ok)
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
	sv_classify_rx(&f, &((struct sv_steer *)pump->port->steer)->rx);
}

unsigned int
sv_port_pump(struct sv_port *port)
{
	struct sv_pump pump = { .port = port, .locked = false };
	unsigned int n, wqs;

	if (port->wire == NULL || port->steer == NULL)
		return 0;
	if (pthread_spin_trylock(&port->pump_lock) != 0)
		return 0;
	/* The rules stay put for one batch (SV_RX_BATCH frames per ready
	 * WQ, up to SV_RX_BATCH_WQS of them): a flow create or destroy
	 * waits for at most that; the lock and the counter are paid once
	 * per batch rather than per frame, and not at all when the wire has
	 * nothing. With one batch for the port, frames spread over 4 queues
	 * came in bursts of 8, and each burst's fixed costs with them. */
	wqs = port->rx_wqs_ready;
	wqs = wqs == 0 ? 1 : wqs > SV_RX_BATCH_WQS ? SV_RX_BATCH_WQS : wqs;
	n = sv_wire_rx(port->wire, SV_RX_BATCH * wqs, sv_rx_frame, &pump);
	if (pump.locked)
		pthread_rwlock_unlock(&port->rules_lock);
	if (n != 0)
		atomic_fetch_add_explicit(&port->rx_frames, n,
					  memory_order_relaxed);
	pthread_spin_unlock(&port->pump_lock);
	return n;
}

unsigned int
sv_steer_walk(struct sv_port *port, bool egress, const struct sv_key *k,
	      const struct sv_rule **out, unsigned int max,
	      unsigned int *probes)
{
	struct sv_steer *st = port->steer;
	const struct sv_rule *r;
	union sv_kwords kw;
	struct sv_walk w;
	unsigned int n = 0;

	if (st == NULL)
		return 0;
	sv_key_words(k, &kw);
	sv_walk_init(&w);
	pthread_rwlock_rdlock(&port->rules_lock);
	while (n < max &&
	       (r = sv_table_next(egress ? st->tx.normal : st->rx.normal, kw.w,
				  &w)) != NULL) {
		out[n++] = r;
		if (r->act.drop || !(r->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP))
			break;
	}
	pthread_rwlock_unlock(&port->rules_lock);
	if (probes != NULL)
		*probes = w.probes;
	return n;
}

bool
sv_port_egress_idle(const struct sv_port *port)
{
	const struct sv_steer *st = port->steer;

	return st == NULL || (atomic_load_explicit(&st->tx.nrules,
						   memory_order_relaxed) == 0 &&
			      atomic_load_explicit(&st->rx.nsniffers,
						   memory_order_relaxed) == 0);
}

bool
sv_port_egress(struct sv_port *port, const uint8_t **frame, uint32_t *len,
	       uint8_t *buf, uint32_t cap)
{
	struct sv_steer *st = port->steer;
	const struct sv_rule *r;
	struct sv_walk w;
	bool send = true, sniff, edited = false;
	struct sv_frame f;
	uint32_t n;

	/* Nothing to apply: skip parsing, the common case. */
	if (sv_port_egress_idle(port))
		return true;
	sv_frame_parse(&f, port, *frame, *len);
	sv_walk_init(&w);
	/* Copies to sniffers are deliveries: the pump lock serialises them
	 * with the pump (taken first, as the pump does). A sniffer made
	 * after this check sees the frames sent after it. */
	sniff = atomic_load_explicit(&st->rx.nsniffers, memory_order_relaxed) !=
		0;
	if (sniff)
		pthread_spin_lock(&port->pump_lock);
	pthread_rwlock_rdlock(&port->rules_lock);
	while ((r = sv_table_next(st->tx.normal, f.kw.w, &w)) != NULL) {
		sv_count_entry(r, *len);
		if (r->act.drop) {
			send = false;
			break;
		}
		if (r->act.edit != NULL) {
			/* Rewrite and encap before the wire (and the
			 * sniffers, which see what goes on it). */
			n = sv_edit_apply(r->act.edit, *frame, *len, buf, cap);
			if (n == 0) {
				send = false;
				break;
			}
			*frame = buf;
			*len = n;
			edited = true;
		}
		if (!(r->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP))
			break;
	}
	if (edited && send && sniff)
		sv_frame_parse(&f, port, *frame, *len);
	/* Sniffers see what goes on the wire. */
	if (send && sniff && st->rx.nsniffers_ > 0)
		sv_sniff(&f, &st->rx);
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
	struct sv_rule tmpl;
	struct sv_rule *r;
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
	memset(&tmpl, 0, sizeof(tmpl));
	rc = sv_spec_compile(&dev->caps, attr, &match, &tmpl.act);
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
	if (tmpl.act.has_tag &&
	    (egress || tmpl.act.tag >= (UINT32_C(1) << 24) ||
	     attr->type == IBV_FLOW_ATTR_ALL_DEFAULT ||
	     attr->type == IBV_FLOW_ATTR_MC_DEFAULT)) {
		errno = EINVAL;
		return NULL;
	}
	/* Egress: the QP only names the device (note 6). Ingress: frames
	 * are scattered through a hash QP's indirection table; a DROP rule
	 * may sit on any QP (its destination is ignored). */
	if (!egress && !tmpl.act.drop &&
	    (qp->kind != SV_QP_HASH || qp->ind == NULL)) {
		errno = EINVAL;
		return NULL;
	}
	if (tmpl.act.counters != NULL && tmpl.act.counters->ctx->dev != dev) {
		errno = EINVAL;
		return NULL;
	}
	tmpl.priority = attr->priority;
	tmpl.type = (uint8_t)attr->type;
	tmpl.flags = (uint8_t)attr->flags;
	tmpl.qp = qp;
	tmpl.mcast = dev->caps.profile == SV_PROFILE_MLX5 &&
		     !(attr->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP) &&
		     sv_flow_is_multicast_only(attr);
	/* Binding freezes the counters' attach points (EBUSY after). */
	if (tmpl.act.counters != NULL) {
		rc = sv_counters_bind(tmpl.act.counters);
		if (rc != 0) {
			errno = rc;
			return NULL;
		}
	}
	r = sv_steer_add(port, &tmpl, &match.mask, &match.value,
			 offsetof(struct sv_flow, rule));
	if (r == NULL) {
		rc = errno;
		if (tmpl.act.counters != NULL)
			sv_counters_unbind(tmpl.act.counters);
		errno = rc;
		return NULL;
	}
	flow = sv_container_of(r, struct sv_flow, rule);
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
	struct sv_counters *counters;
	struct sv_flow *flow;
	struct sv_qp *qp;

	if (ibflow == NULL)
		return EINVAL;
	/* ibv_destroy_flow() also destroys mlx5dv_create_flow() flows. */
	if (ibflow->handle & SV_FLOW_HANDLE_DV)
		return sv_dv_destroy_flow(ibflow);
	flow = sv_container_of(ibflow, struct sv_flow, flow);
	qp = flow->rule.qp;
	counters = flow->rule.act.counters;
	/* Frees the flow. */
	sv_steer_del(&qp->ctx->dev->port, &flow->rule);
	if (counters != NULL)
		sv_counters_unbind(counters);
	atomic_fetch_sub(&qp->usecnt, 1);
	atomic_fetch_sub(&qp->ctx->nobjs, 1);
	return 0;
}
