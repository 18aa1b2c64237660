/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * rte_flow operations.
 *
 * A flow is translated once, when it is validated or created (the same
 * walk for both, so they cannot disagree), by the translator of its engine
 * into a plan: verbs rules (vsteer_flow_verbs.c) or PRM matches for mlx5dv
 * matchers (vsteer_flow_dv.c), in the port's scratch (no allocation).
 * What the flow keeps of it is compact: its device rules (the verbs spec
 * bytes, or the matcher value sections), a reference to a shared
 * destination (the queue list and key a QUEUE or RSS action names) and,
 * for matcher rules, to a shared template (mask and priority), in one
 * 192-byte object of the port's flow pool (vsteer_pool.c) when they fit,
 * as a simple rule's do. The application's rte_flow pointer is the
 * object's pool handle (index and generation), so that destroy, query
 * and dump check it in constant time, and refuse a destroyed or stale
 * handle, without walking the flows or reading what it points at.
 * Applying the flow makes the
 * device objects (ibv_flow, RSS contexts, matchers) and removing it
 * destroys them. Flows are applied while the port runs and removed at
 * stop, so they survive stop/start (RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP) and
 * may be created before the first start. Counter objects live as long as
 * the flow (or the indirect action), so counts survive a restart too.
 *
 * Locking: every op holds the port's control lock (priv->ctl_lock) from
 * its first look at the lists to its last device call, and so do the
 * ethdev paths that walk them (start, stop, close, the default flows):
 * the ops are thread safe (RTE_ETH_DEV_FLOW_OPS_THREAD_SAFE) with one
 * uncontended lock per op. The translation scratch in vsteer_flow_priv
 * is used under it too.
 *
 * Engine choice per flow (vsteer_flow_prepare()):
 * - flow_engine=verbs: ibv_create_flow; what a verbs chain cannot express
 *   is refused, naming the field.
 * - flow_engine=dv: mlx5dv matchers; likewise for what they cannot express.
 * - flow_engine=auto: verbs whenever the whole rule fits a verbs chain
 *   (COUNT, MARK, FLAG and DROP included: both engines do them the same
 *   way), else an mlx5dv matcher on a device that offers one, else refused
 *   with both reasons ("IPv4 item: time_to_live: verbs cannot match it and
 *   the device offers no mlx5dv matcher"). The reasons come from the
 *   engine rows (vsteer_flow_engines.c) through plan->limit.
 */

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_flow_driver.h>
#include <rte_malloc.h>

#include "vsteer.h"
#include "vsteer_flow_dv.h"
#include "vsteer_pool.h"

/* Counter indexes of a verbs counters object (static attach). */
#define VSTEER_CNT_PACKETS 0
#define VSTEER_CNT_BYTES 1

/* A counter: a verbs ibv_counters object and/or a DevX flow counter. A
 * flow's own counter has one of them; an indirect COUNT action gets each
 * kind the first time a flow of that engine uses it, and reports the sum.
 * Hardware counters only grow: reset is a stored base.
 *
 * The kernel reads an ibv_counters object only while a rule uses it
 * (EINVAL otherwise): the last verbs rule to let it go (port stop, a rule
 * kept but no longer applied, the last user of an indirect COUNT
 * destroyed) leaves its totals in cs_hits / cs_bytes, which a query
 * answers until a rule binds it again; the device's values go on from
 * there (mlx5_ib keeps the hardware counter while the object lives). A
 * DevX counter is a firmware object of its own, readable at any time. */
struct vsteer_count {
	struct ibv_counters *cs;
	struct mlx5dv_devx_obj *devx;
	uint32_t devx_id;
	uint32_t cs_users; /* applied verbs rules bound to cs */
	uint64_t cs_hits;
	uint64_t cs_bytes;
	uint64_t base_hits;
	uint64_t base_bytes;
};

enum vsteer_handle_kind {
	VSTEER_HANDLE_COUNT = 0,
	VSTEER_HANDLE_RSS,
};

/*
 * An indirect action: a COUNT shared by its flows, or an RSS action whose
 * destination (queues, key, types) its flows share, and which
 * rte_flow_action_handle_update() changes under them.
 */
struct rte_flow_action_handle {
	TAILQ_ENTRY(rte_flow_action_handle) next;
	uint32_t refcnt; /* flows using it */
	uint8_t kind;	 /* enum vsteer_handle_kind */
	struct vsteer_count cnt;
	struct vsteer_dest *dest; /* RSS */
};

/*
 * What a QUEUE or RSS action names, shared by the flows that name the
 * same: the queue list, the key and whether hash QPs need tunnel
 * offloads. The hash QPs themselves are RSS contexts (vsteer_rss.c),
 * taken per device rule when a flow is applied; the destination keeps a
 * reference to the first one its rules took, so that the rules after it
 * (every rule of a QUEUE destination hashes nothing: one context) take
 * it without looking it up among the port's contexts.
 */
struct vsteer_dest {
	TAILQ_ENTRY(vsteer_dest) next;
	uint32_t refcnt;
	/* An indirect RSS action's: never shared with other flows, and
	 * room for RTE_MAX_QUEUES_PER_PORT queues (an update may grow it). */
	struct rte_flow_action_handle *owner;
	uint32_t flags;	    /* VSTEER_RSS_* */
	uint64_t rss_types; /* for the dump */
	uint32_t rss_level;
	uint32_t queue_num;
	struct vsteer_rss *rss; /* a context its rules use, referenced */
	uint64_t rss_hf;	/* its hash fields */
	uint8_t key[VSTEER_RSS_KEY_LEN];
	uint16_t queues[];
};

/*
 * A matcher template: the mask and priority matcher rules share. The
 * mlx5dv matcher exists while an applied rule uses it.
 */
struct vsteer_tmpl {
	TAILQ_ENTRY(vsteer_tmpl) next;
	uint32_t refcnt;  /* rules that use it, applied or kept */
	uint32_t applied; /* applied rules: obj exists */
	uint32_t hash;
	uint16_t priority;
	uint8_t criteria;
	uint8_t nsect;	/* sections criteria enables */
	uint8_t egress; /* on the NIC transmit table */
	struct mlx5dv_flow_matcher *obj;
	struct vsteer_dv_params mask;
};

/*
 * A flow action of matcher rules (vsteer_flow_edit.c): a header modify
 * list or a packet reformat, shared by the flows that ask for the same on
 * the same table. Sharing is not only thrift: the device merges rules of
 * one match into one entry only when they point at the same action
 * objects (mlx5 core's check_conflicting_actions()). The mlx5dv action
 * exists while an applied flow uses it.
 */
struct vsteer_edobj {
	TAILQ_ENTRY(vsteer_edobj) next;
	uint32_t refcnt;  /* flows that use it, applied or kept */
	uint32_t applied; /* applied flows: obj exists */
	struct ibv_flow_action *obj;
	uint8_t reformat; /* enum vsteer_reformat; NONE: a modify list */
	uint8_t egress;	  /* made for the NIC transmit table */
	uint16_t len;	  /* bytes: 8 per modify action, or the data */
	/* A modify list goes to the device as uint64_t[]. */
	uint8_t bytes[] __rte_aligned(sizeof(uint64_t));
};

/* One device rule of a flow. */
struct vsteer_frule {
	struct ibv_flow *ibv;	  /* applied */
	struct vsteer_rss *rss;	  /* its destination, while applied */
	struct vsteer_tmpl *tmpl; /* matcher engine */
	uint64_t hash_fields;
	uint16_t off;	    /* its bytes in the flow's data */
	uint16_t size;	    /* verbs: attr + specs; dv: value sections */
	uint16_t count_off; /* verbs: the COUNT spec, 0 when none */
	/* The headers it matches (L3 family, L4 protocol): an indirect RSS
	 * update works out its new hash fields from them. */
	uint8_t fam, l4p;
};

/*
 * A flow: one object of the port's flow pool (vsteer_pool.c), whose
 * handle is the rte_flow pointer the application holds. It keeps what
 * applying it again after a restart needs and the device handles: the
 * shared destination and counter, and a body of
 *
 *	rules[n_rules]	(struct vsteer_frule)
 *	the own counter	(struct vsteer_count, with COUNT or AGE)
 *	the age record	(struct vsteer_age, with AGE)
 *	flow actions	(n_ed struct vsteer_edobj *, matcher rules)
 *	the rules' bytes	(verbs attr + specs, matcher value sections)
 *
 * inside the object when it fits (a simple rule: eth / ipv4 / queue is
 * one 40-byte rule and 84 bytes of specs), else in a block of its own.
 */
#define VSTEER_FLOW_OBJ 184 /* with the pool's header: 192 bytes */

struct vsteer_flow {
	TAILQ_ENTRY(vsteer_flow) next; /* creation order */
	uint64_t handle;	       /* the application's rte_flow */
	struct vsteer_dest *dest;      /* QUEUE, RSS */
	struct vsteer_count *cnt; /* own counter, or an indirect action's */
	uint32_t tag;		  /* flow tag, 0: none */
	uint16_t rte_priority;
	uint8_t engine; /* enum vsteer_flow_engine */
	uint8_t fate;	/* enum vsteer_fate */
	uint8_t n_rules;
	uint8_t applied; /* rules made on the device */
	uint8_t egress : 1;
	uint8_t own_cnt : 1;
	uint8_t ext : 1;	/* the body is a block of its own */
	uint8_t n_ed : 2;	/* flow actions (struct vsteer_edobj) */
	uint8_t ed_applied : 1; /* ... made on the device for it */
	uint8_t aging : 1;	/* an AGE action: the body has its record */
	/* The number the dump heads it with: the newest live flow's + 1, or
	 * 0, which is how testpmd numbers its rules (port_flow_create()),
	 * so that "flow dump 0 rule 3" prints "flow rule 3". */
	uint32_t id;
	union {
		uint64_t align;
		uint8_t *block;	  /* ext */
		uint8_t inl[128]; /* !ext */
	} body;
};

static_assert(sizeof(struct vsteer_flow) == VSTEER_FLOW_OBJ,
	      "the flow object fills a 192-byte pool entry");

TAILQ_HEAD(vsteer_flow_list, vsteer_flow);
TAILQ_HEAD(vsteer_handle_list, rte_flow_action_handle);
TAILQ_HEAD(vsteer_dest_list, vsteer_dest);
TAILQ_HEAD(vsteer_tmpl_list, vsteer_tmpl);
TAILQ_HEAD(vsteer_edobj_list, vsteer_edobj);

/*
 * The sink: a hash QP over one WQ that is never made ready, so whatever
 * reaches it is discarded. DROP rules attach to it (the DROP spec makes the
 * QP irrelevant, as on mlx5), PASSTHRU (DONT_TRAP) rules too (the copy is
 * discarded, the frame goes on to later rules), and egress rules, which
 * need some QP to hang on.
 */
struct vsteer_sink {
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *qp;
};

struct vsteer_flow_priv {
	struct vsteer_pool pool; /* the flows */
	struct vsteer_flow_list flows;
	struct vsteer_handle_list handles;
	struct vsteer_dest_list dests;
	struct vsteer_tmpl_list tmpls;
	struct vsteer_edobj_list edobjs;
	struct vsteer_sink sink;
	/* Translation scratch, used under the port's control lock: the
	 * plan, and the actions with an indirect RSS as the RSS it is. */
	struct vsteer_flow_plan plan;
	struct rte_flow_action acts[VSTEER_MAX_ACTIONS];
	struct rte_flow_action_rss rss_conf;
	struct rte_flow_action_handle *rss_handle;
	struct vsteer_dv_match base;
	struct vsteer_dv_match match;
};

static struct vsteer_flow_priv *
vsteer_fpriv(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;

	VSTEER_CTL_HELD(priv);
	if (fp != NULL)
		return fp;
	fp = rte_zmalloc("vsteer_flow_priv", sizeof(*fp), 0);
	if (fp == NULL)
		return NULL;
	/* 1024 flows (192 KiB) per slab: a slab unmapped costs a TLB
	 * flush, fewer of them make destroying many rules cheaper. */
	if (vsteer_pool_init(&fp->pool, sizeof(struct vsteer_flow), 10) != 0) {
		rte_free(fp);
		return NULL;
	}
	TAILQ_INIT(&fp->flows);
	TAILQ_INIT(&fp->handles);
	TAILQ_INIT(&fp->dests);
	TAILQ_INIT(&fp->tmpls);
	TAILQ_INIT(&fp->edobjs);
	priv->flow_priv = fp;
	return fp;
}

static void
vsteer_sink_destroy(struct vsteer_priv *priv, struct vsteer_sink *s)
{
	if (s->qp != NULL && priv->glue->destroy_qp(s->qp) != 0)
		FLOW_LOG(ERR, "sink QP: destroy failed");
	if (s->ind != NULL && ibv_destroy_rwq_ind_table(s->ind) != 0)
		FLOW_LOG(ERR, "sink indirection table: destroy failed");
	if (s->wq != NULL && ibv_destroy_wq(s->wq) != 0)
		FLOW_LOG(ERR, "sink WQ: destroy failed");
	if (s->cq != NULL &&
	    priv->glue->destroy_cq(ibv_cq_ex_to_cq(s->cq)) != 0)
		FLOW_LOG(ERR, "sink CQ: destroy failed");
	memset(s, 0, sizeof(*s));
}

static struct ibv_qp *
vsteer_sink_get(struct vsteer_priv *priv, struct vsteer_flow_priv *fp)
{
	struct vsteer_sink *s = &fp->sink;
	struct ibv_cq_init_attr_ex cq_attr = {
		.cqe = 1,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
	};
	struct ibv_wq_init_attr wq_attr = {
		.wq_type = IBV_WQT_RQ,
		.max_wr = 1,
		.max_sge = 1,
		.pd = priv->pd,
	};
	struct ibv_rwq_ind_table_init_attr ind_attr = {
		.log_ind_tbl_size = 0,
	};

	if (s->qp != NULL)
		return s->qp;
	s->cq = ibv_create_cq_ex(priv->ctx, &cq_attr);
	if (s->cq == NULL)
		goto error;
	wq_attr.cq = ibv_cq_ex_to_cq(s->cq);
	s->wq = ibv_create_wq(priv->ctx, &wq_attr);
	if (s->wq == NULL)
		goto error;
	ind_attr.ind_tbl = &s->wq;
	s->ind = ibv_create_rwq_ind_table(priv->ctx, &ind_attr);
	if (s->ind == NULL)
		goto error;
	s->qp = vsteer_hash_qp_create(priv, s->ind, priv->rss_key, 0, 0);
	if (s->qp == NULL)
		goto error;
	return s->qp;
error : {
	int err = errno ? errno : ENOMEM;

	FLOW_LOG(ERR, "cannot create the sink QP: %s", strerror(err));
	vsteer_sink_destroy(priv, s);
	errno = err;
}
	return NULL;
}

/* --- counters --- */

static int
vsteer_count_verbs_make(struct vsteer_priv *priv, struct vsteer_count *c)
{
	struct ibv_counters_init_attr attr = { .comp_mask = 0 };
	struct ibv_counter_attach_attr pkts = {
		.counter_desc = IBV_COUNTER_PACKETS,
		.index = VSTEER_CNT_PACKETS,
	};
	struct ibv_counter_attach_attr bytes = {
		.counter_desc = IBV_COUNTER_BYTES,
		.index = VSTEER_CNT_BYTES,
	};
	int ret;

	if (c->cs != NULL)
		return 0;
	c->cs = ibv_create_counters(priv->ctx, &attr);
	if (c->cs == NULL)
		return errno ? errno : ENOMEM;
	/* Static attach (flow NULL): the only kind mlx5 takes. */
	ret = ibv_attach_counters_point_flow(c->cs, &pkts, NULL);
	if (ret == 0)
		ret = ibv_attach_counters_point_flow(c->cs, &bytes, NULL);
	if (ret != 0) {
		ibv_destroy_counters(c->cs);
		c->cs = NULL;
	}
	return ret;
}

static int
vsteer_count_devx_make(struct vsteer_priv *priv, struct vsteer_count *c)
{
	uint8_t in[VSTEER_PRM_ALLOC_FC_IN_BYTES] = { 0 };
	uint8_t out[VSTEER_PRM_ALLOC_FC_OUT_BYTES] = { 0 };
	int ret;

	if (c->devx != NULL)
		return 0;
	vsteer_dv_cmd_alloc_counter(in);
	c->devx = priv->glue->devx_obj_create(priv->ctx, in, sizeof(in), out,
					      sizeof(out));
	if (c->devx == NULL)
		return errno ? errno : ENOMEM;
	ret = vsteer_dv_cmd_alloc_counter_parse(out, sizeof(out), &c->devx_id);
	if (ret != 0) {
		priv->glue->devx_obj_destroy(c->devx);
		c->devx = NULL;
		return -ret;
	}
	return 0;
}

static void
vsteer_count_release(struct vsteer_priv *priv, struct vsteer_count *c)
{
	int ret;

	if (c->cs != NULL) {
		ret = ibv_destroy_counters(c->cs);
		if (ret != 0)
			FLOW_LOG(ERR, "ibv_destroy_counters: %s",
				 strerror(ret));
		c->cs = NULL;
	}
	if (c->devx != NULL) {
		ret = priv->glue->devx_obj_destroy(c->devx);
		if (ret != 0)
			FLOW_LOG(ERR, "DevX flow counter %u: destroy: %s",
				 c->devx_id, strerror(ret));
		c->devx = NULL;
	}
}

/* The verbs object's totals: read from the device while a rule uses it,
 * else those kept when the last one let go. 0 or a positive errno. */
static int
vsteer_count_verbs_read(const struct vsteer_count *c, uint64_t *hits,
			uint64_t *bytes)
{
	uint64_t v[2] = { 0, 0 };
	int ret;

	if (c->cs_users == 0) {
		*hits = c->cs_hits;
		*bytes = c->cs_bytes;
		return 0;
	}
	ret = ibv_read_counters(c->cs, v, RTE_DIM(v),
				IBV_READ_COUNTERS_ATTR_PREFER_CACHED);
	if (ret != 0)
		return ret;
	*hits = v[VSTEER_CNT_PACKETS];
	*bytes = v[VSTEER_CNT_BYTES];
	return 0;
}

/* A verbs rule that binds the counters is about to go. */
static void
vsteer_count_verbs_unbinding(struct vsteer_count *c)
{
	int ret;

	/* The last one: keep what the device will no longer answer. */
	if (c->cs_users == 1) {
		ret = vsteer_count_verbs_read(c, &c->cs_hits, &c->cs_bytes);
		if (ret != 0)
			FLOW_LOG(ERR,
				 "ibv_read_counters before the last rule goes: %s (the counter keeps its earlier values)",
				 strerror(ret));
	}
	c->cs_users--;
}

/* Raw totals of both kinds. Returns 0 or a positive errno, naming the
 * failing call in *what. */
static int
vsteer_count_read(struct vsteer_priv *priv, const struct vsteer_count *c,
		  uint64_t *hits, uint64_t *bytes, const char **what)
{
	*hits = 0;
	*bytes = 0;
	if (c->cs != NULL) {
		int ret = vsteer_count_verbs_read(c, hits, bytes);

		if (ret != 0) {
			*what = "ibv_read_counters";
			return ret;
		}
	}
	if (c->devx != NULL) {
		uint8_t in[VSTEER_PRM_QUERY_FC_IN_BYTES] = { 0 };
		uint8_t out[VSTEER_PRM_QUERY_FC_OUT_BYTES] = { 0 };
		uint64_t p, b;
		int ret;

		vsteer_dv_cmd_query_counter(in, c->devx_id, false);
		/* An object command: the kernel refuses it as a general one. */
		ret = priv->glue->devx_obj_query(c->devx, in, sizeof(in), out,
						 sizeof(out));
		if (ret == 0)
			ret = -vsteer_dv_cmd_query_counter_parse(out,
								 sizeof(out),
								 &p, &b);
		if (ret != 0) {
			*what = "QUERY_FLOW_COUNTER";
			return ret;
		}
		*hits += p;
		*bytes += b;
	}
	return 0;
}

static int
vsteer_count_query(struct vsteer_priv *priv, struct vsteer_count *c,
		   struct rte_flow_query_count *q, const void *cause,
		   struct rte_flow_error *error)
{
	const char *what = "";
	uint64_t hits, bytes;
	int ret;

	ret = vsteer_count_read(priv, c, &hits, &bytes, &what);
	if (ret != 0)
		return vsteer_flow_err(error, ret, RTE_FLOW_ERROR_TYPE_ACTION,
				       cause, "cannot read counter: %s: %s",
				       what, strerror(ret));
	q->hits_set = 1;
	q->bytes_set = 1;
	q->hits = hits - c->base_hits;
	q->bytes = bytes - c->base_bytes;
	if (q->reset) {
		c->base_hits = hits;
		c->base_bytes = bytes;
	}
	return 0;
}

/* --- shared destinations --- */

/* The destination a QUEUE or RSS plan names (new or shared). A port has
 * few: they are compared field by field, the cheap fields first, and the
 * one found moves to the front for the next rule. */
static struct vsteer_dest *
vsteer_dest_get(struct vsteer_flow_priv *fp,
		const struct vsteer_flow_plan *plan)
{
	uint32_t flags =
		plan->tunnel || plan->rss_level >= 2 ? VSTEER_RSS_TUNNEL : 0;
	size_t qbytes = plan->queue_num * sizeof(uint16_t);
	struct vsteer_dest *d;

	TAILQ_FOREACH(d, &fp->dests, next) {
		if (d->owner == NULL && d->queue_num == plan->queue_num &&
		    d->queues[0] == plan->queues[0] && d->flags == flags &&
		    d->rss_types == plan->rss_types &&
		    d->rss_level == plan->rss_level &&
		    memcmp(d->queues, plan->queues, qbytes) == 0 &&
		    memcmp(d->key, plan->rss_key, VSTEER_RSS_KEY_LEN) == 0) {
			d->refcnt++;
			if (d != TAILQ_FIRST(&fp->dests)) {
				TAILQ_REMOVE(&fp->dests, d, next);
				TAILQ_INSERT_HEAD(&fp->dests, d, next);
			}
			return d;
		}
	}
	d = malloc(sizeof(*d) + qbytes);
	if (d == NULL)
		return NULL;
	d->owner = NULL;
	d->refcnt = 1;
	d->flags = flags;
	d->rss_types = plan->rss_types;
	d->rss_level = plan->rss_level;
	d->queue_num = plan->queue_num;
	d->rss = NULL;
	d->rss_hf = 0;
	memcpy(d->key, plan->rss_key, VSTEER_RSS_KEY_LEN);
	memcpy(d->queues, plan->queues, qbytes);
	TAILQ_INSERT_HEAD(&fp->dests, d, next);
	return d;
}

/* Drop the destination's reference to an RSS context (at stop, and when
 * the destination goes). */
static void
vsteer_dest_unref_rss(struct rte_eth_dev *dev, struct vsteer_dest *d)
{
	if (d->rss != NULL) {
		vsteer_rss_put(dev, d->rss);
		d->rss = NULL;
	}
}

static void
vsteer_dest_put(struct rte_eth_dev *dev, struct vsteer_flow_priv *fp,
		struct vsteer_dest *d)
{
	if (d == NULL || --d->refcnt > 0)
		return;
	vsteer_dest_unref_rss(dev, d);
	TAILQ_REMOVE(&fp->dests, d, next);
	free(d);
}

/* --- matcher templates --- */

static unsigned int
vsteer_tmpl_sections(uint8_t criteria)
{
	return (unsigned int)__builtin_popcount(criteria);
}

static struct vsteer_tmpl *
vsteer_tmpl_get(struct vsteer_flow_priv *fp, const struct vsteer_dv_match *m,
		uint16_t prio, bool egress)
{
	uint32_t hash = vsteer_flow_dv_matcher_hash(m, prio) ^ egress;
	struct vsteer_tmpl *t;

	TAILQ_FOREACH(t, &fp->tmpls, next) {
		if (t->hash == hash && t->priority == prio &&
		    t->egress == egress && t->criteria == m->criteria &&
		    t->mask.size == m->mask.size &&
		    memcmp(t->mask.buf, m->mask.buf, m->mask.size) == 0) {
			t->refcnt++;
			return t;
		}
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->refcnt = 1;
	t->hash = hash;
	t->priority = prio;
	t->egress = egress;
	t->criteria = m->criteria;
	t->nsect = (uint8_t)vsteer_tmpl_sections(m->criteria);
	t->mask = m->mask;
	TAILQ_INSERT_TAIL(&fp->tmpls, t, next);
	return t;
}

static void
vsteer_tmpl_put(struct vsteer_flow_priv *fp, struct vsteer_tmpl *t)
{
	if (t == NULL || --t->refcnt > 0)
		return;
	if (t->obj != NULL)
		FLOW_LOG(ERR, "matcher template released while applied");
	TAILQ_REMOVE(&fp->tmpls, t, next);
	free(t);
}

/* The device matcher of a template, made by its first applied rule. */
static struct mlx5dv_flow_matcher *
vsteer_tmpl_apply(struct vsteer_priv *priv, struct vsteer_tmpl *t)
{
	struct mlx5dv_flow_matcher_attr attr = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.flags = 0,
		.priority = t->priority,
		.match_criteria_enable = t->criteria,
		.match_mask = vsteer_dv_params(&t->mask),
	};

	/* Egress: the NIC transmit table, by table type as rdma-core's own
	 * root matchers ask for it (not with the EGRESS flag as well: the
	 * kernel refuses both, mlx5_ib_matcher_ns()). */
	if (t->egress) {
		attr.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
		attr.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_TX;
	}

	if (t->obj == NULL) {
		errno = 0;
		t->obj = priv->glue->dv_create_flow_matcher(priv->ctx, &attr);
		if (t->obj == NULL) {
			if (errno == 0)
				errno = ENOMEM;
			return NULL;
		}
	}
	t->applied++;
	return t->obj;
}

static void
vsteer_tmpl_unapply(struct vsteer_priv *priv, struct vsteer_tmpl *t)
{
	int ret;

	if (--t->applied > 0)
		return;
	ret = priv->glue->dv_destroy_flow_matcher(t->obj);
	if (ret != 0)
		FLOW_LOG(ERR, "mlx5dv_destroy_flow_matcher: %s", strerror(ret));
	t->obj = NULL;
}

/* Keep the value sections the template enables (value & mask). */
static void
vsteer_dv_value_pack(const struct vsteer_tmpl *t,
		     const struct vsteer_dv_match *m, uint8_t *out)
{
	const uint8_t *v = (const uint8_t *)m->value.buf;
	unsigned int s;

	for (s = 0; s < VSTEER_PRM_NUM_SECTS; s++) {
		if (!(t->criteria & (1u << s)))
			continue;
		memcpy(out, v + s * VSTEER_PRM_SECT_BYTES,
		       VSTEER_PRM_SECT_BYTES);
		out += VSTEER_PRM_SECT_BYTES;
	}
}

static void
vsteer_dv_value_unpack(const struct vsteer_tmpl *t, const uint8_t *in,
		       struct vsteer_dv_params *p)
{
	uint8_t *v = (uint8_t *)p->buf;
	unsigned int s;

	memset(p->buf, 0, t->mask.size);
	p->size = t->mask.size;
	for (s = 0; s < VSTEER_PRM_NUM_SECTS; s++) {
		if (!(t->criteria & (1u << s)))
			continue;
		memcpy(v + s * VSTEER_PRM_SECT_BYTES, in,
		       VSTEER_PRM_SECT_BYTES);
		in += VSTEER_PRM_SECT_BYTES;
	}
}

/* --- flow actions --- */

/* The shared action holding len bytes of a reformat (or of modify actions,
 * reformat NONE) for one table; new or referenced. */
static struct vsteer_edobj *
vsteer_edobj_get(struct vsteer_flow_priv *fp, uint8_t reformat, bool egress,
		 const void *bytes, uint16_t len)
{
	struct vsteer_edobj *o;

	TAILQ_FOREACH(o, &fp->edobjs, next) {
		if (o->reformat == reformat && o->egress == egress &&
		    o->len == len && memcmp(o->bytes, bytes, len) == 0) {
			o->refcnt++;
			return o;
		}
	}
	o = calloc(1, sizeof(*o) + len);
	if (o == NULL)
		return NULL;
	o->refcnt = 1;
	o->reformat = reformat;
	o->egress = egress;
	o->len = len;
	memcpy(o->bytes, bytes, len);
	TAILQ_INSERT_TAIL(&fp->edobjs, o, next);
	return o;
}

static void
vsteer_edobj_put(struct vsteer_flow_priv *fp, struct vsteer_edobj *o)
{
	if (o == NULL || --o->refcnt > 0)
		return;
	if (o->obj != NULL)
		FLOW_LOG(ERR, "flow action released while applied");
	TAILQ_REMOVE(&fp->edobjs, o, next);
	free(o);
}

/* The mlx5dv action of o, made by its first applied flow. */
static int
vsteer_edobj_apply(struct vsteer_priv *priv, struct vsteer_edobj *o)
{
	enum mlx5dv_flow_table_type ft =
		(enum mlx5dv_flow_table_type)vsteer_flow_edit_ft_type(
			o->egress);

	if (o->obj == NULL) {
		errno = 0;
		if (o->reformat == VSTEER_REFORMAT_NONE)
			o->obj =
				priv->glue->dv_create_flow_action_modify_header(
					priv->ctx, o->len,
					(uint64_t *)(void *)o->bytes, ft);
		else
			o->obj = priv->glue->dv_create_flow_action_packet_reformat(
				priv->ctx, o->len,
				o->len != 0 ? o->bytes : NULL,
				(enum mlx5dv_flow_action_packet_reformat_type)
					vsteer_flow_edit_reformat_type(
						o->reformat),
				ft);
		if (o->obj == NULL)
			return errno ? errno : ENOMEM;
	}
	o->applied++;
	return 0;
}

static void
vsteer_edobj_unapply(struct vsteer_priv *priv, struct vsteer_edobj *o)
{
	int ret;

	if (--o->applied > 0)
		return;
	ret = priv->glue->destroy_flow_action(o->obj);
	if (ret != 0)
		FLOW_LOG(ERR, "ibv_destroy_flow_action: %s", strerror(ret));
	o->obj = NULL;
}

/* --- flows: compact state --- */

static inline uint8_t *
vsteer_flow_body(struct vsteer_flow *flow)
{
	return flow->ext ? flow->body.block : flow->body.inl;
}

static inline struct vsteer_frule *
vsteer_flow_rules(struct vsteer_flow *flow)
{
	return (struct vsteer_frule *)vsteer_flow_body(flow);
}

/* Where the body's parts start, for n rules (with an own counter, an age
 * record). */
static inline size_t
vsteer_body_cnt_off(uint32_t n)
{
	return n * sizeof(struct vsteer_frule);
}

static inline size_t
vsteer_body_age_off(uint32_t n, bool own_cnt)
{
	return vsteer_body_cnt_off(n) +
	       (own_cnt ? sizeof(struct vsteer_count) : 0);
}

static inline size_t
vsteer_body_ed_off(uint32_t n, bool own_cnt, bool aging)
{
	return vsteer_body_age_off(n, own_cnt) +
	       (aging ? sizeof(struct vsteer_age) : 0);
}

static inline size_t
vsteer_body_data_off(uint32_t n, bool own_cnt, bool aging, uint32_t n_ed)
{
	return vsteer_body_ed_off(n, own_cnt, aging) +
	       n_ed * sizeof(struct vsteer_edobj *);
}

static inline struct vsteer_edobj **
vsteer_flow_edobjs(struct vsteer_flow *flow)
{
	return (struct vsteer_edobj *
			*)(void *)(vsteer_flow_body(flow) +
				   vsteer_body_ed_off(flow->n_rules,
						      flow->own_cnt,
						      flow->aging));
}

static inline uint8_t *
vsteer_flow_data(struct vsteer_flow *flow)
{
	return vsteer_flow_body(flow) +
	       vsteer_body_data_off(flow->n_rules, flow->own_cnt, flow->aging,
				    flow->n_ed);
}

/* The age record of a flow with an AGE action, else NULL. */
static inline struct vsteer_age *
vsteer_flow_age(struct vsteer_flow *flow)
{
	if (!flow->aging)
		return NULL;
	return (struct vsteer_age *)(vsteer_flow_body(flow) +
				     vsteer_body_age_off(flow->n_rules,
							 flow->own_cnt));
}

/* The indirect COUNT action the flow counts in, or NULL. */
static inline struct rte_flow_action_handle *
vsteer_flow_indirect(const struct vsteer_flow *flow)
{
	if (flow->cnt == NULL || flow->own_cnt)
		return NULL;
	return container_of(flow->cnt, struct rte_flow_action_handle, cnt);
}

static inline struct rte_flow *
vsteer_flow_handle(const struct vsteer_flow *flow)
{
	return (struct rte_flow *)(uintptr_t)flow->handle;
}

/* The live flow of the port an application's handle names, or NULL:
 * constant time, and nothing the handle points at is read. */
static struct vsteer_flow *
vsteer_flow_lookup(const struct vsteer_flow_priv *fp,
		   const struct rte_flow *handle)
{
	RTE_BUILD_BUG_ON(sizeof(uintptr_t) < sizeof(uint64_t));
	if (fp == NULL)
		return NULL;
	return vsteer_pool_get(&fp->pool, (uint64_t)(uintptr_t)handle);
}

/* Give back what the record holds (not the device objects). */
static void
vsteer_flow_free(struct rte_eth_dev *dev, struct vsteer_flow_priv *fp,
		 struct vsteer_flow *flow)
{
	struct vsteer_frule *rules = vsteer_flow_rules(flow);
	uint32_t i;

	for (i = 0; i < flow->n_rules; i++)
		vsteer_tmpl_put(fp, rules[i].tmpl);
	for (i = 0; i < flow->n_ed; i++)
		vsteer_edobj_put(fp, vsteer_flow_edobjs(flow)[i]);
	vsteer_dest_put(dev, fp, flow->dest);
	if (flow->ext)
		free(flow->body.block);
	vsteer_pool_free(&fp->pool, flow->handle);
}

/*
 * The flow record of a translated plan: a pool object holding the rule
 * descriptors, the own counter and the rules' bytes (in a block of their
 * own when they do not fit), references to the shared destination and
 * templates.
 */
static struct vsteer_flow *
vsteer_flow_record(struct rte_eth_dev *dev, struct vsteer_flow_priv *fp,
		   const struct vsteer_xlate_ctx *ctx,
		   struct rte_flow_error *error)
{
	const struct vsteer_flow_plan *plan = &fp->plan;
	const struct vsteer_flow_edit *e = &plan->edit;
	struct vsteer_tmpl *tmpls[VSTEER_MAX_EXPAND];
	struct vsteer_edobj *eds[2] = { NULL, NULL };
	struct vsteer_flow *flow = NULL;
	struct vsteer_frule *rules;
	size_t body, data = 0, off;
	uint32_t i, n = plan->n_rules, n_ed = 0;
	uint64_t handle;
	uint8_t *bytes;

	memset(tmpls, 0, sizeof(tmpls));
	/* The header modify list first, as the device applies it second:
	 * the order is the dump's only. */
	if (e->n_mod != 0) {
		eds[n_ed] = vsteer_edobj_get(fp, VSTEER_REFORMAT_NONE,
					     plan->egress, e->mod,
					     (uint16_t)(e->n_mod *
							sizeof(e->mod[0])));
		if (eds[n_ed++] == NULL)
			goto nomem;
	}
	if (e->reformat != VSTEER_REFORMAT_NONE) {
		eds[n_ed] = vsteer_edobj_get(fp, e->reformat, plan->egress,
					     e->data, e->data_len);
		if (eds[n_ed++] == NULL)
			goto nomem;
	}
	for (i = 0; i < n; i++) {
		if (plan->engine == VSTEER_FLOW_ENGINE_VERBS) {
			data += plan->rules[i].size;
			continue;
		}
		vsteer_flow_dv_rule_match(&fp->base, plan, i, &fp->match);
		tmpls[i] = vsteer_tmpl_get(fp, &fp->match,
					   (uint16_t)vsteer_flow_verbs_prio(
						   ctx, plan->rte_priority,
						   plan->var[i].sub),
					   plan->egress);
		if (tmpls[i] == NULL)
			goto nomem;
		data += (size_t)tmpls[i]->nsect * VSTEER_PRM_SECT_BYTES;
	}
	flow = vsteer_pool_alloc(&fp->pool, &handle);
	if (flow == NULL)
		goto nomem;
	flow->handle = handle;
	body = vsteer_body_data_off(n, plan->count, plan->age, n_ed) + data;
	if (body > sizeof(flow->body.inl)) {
		flow->body.block = calloc(1, body);
		if (flow->body.block == NULL) {
			vsteer_pool_free(&fp->pool, handle);
			flow = NULL;
			goto nomem;
		}
		flow->ext = 1;
	}
	flow->n_rules = (uint8_t)n;
	flow->own_cnt = plan->count;
	flow->aging = plan->age;
	flow->n_ed = n_ed & 3;
	memcpy(vsteer_flow_edobjs(flow), eds, n_ed * sizeof(eds[0]));
	eds[0] = eds[1] = NULL;
	flow->engine = (uint8_t)plan->engine;
	flow->fate = (uint8_t)plan->fate;
	flow->egress = plan->egress;
	flow->rte_priority = (uint16_t)plan->rte_priority;
	flow->tag = vsteer_flow_plan_tag(plan);
	rules = vsteer_flow_rules(flow);
	bytes = vsteer_flow_data(flow);
	off = 0;
	for (i = 0; i < n; i++) {
		struct vsteer_frule *r = &rules[i];

		r->hash_fields = plan->var[i].hash_fields;
		r->fam = plan->var[i].fam;
		r->l4p = plan->var[i].l4p;
		r->off = (uint16_t)off;
		if (plan->engine == VSTEER_FLOW_ENGINE_VERBS) {
			r->size = plan->rules[i].size;
			r->count_off = plan->rules[i].count_off;
			memcpy(bytes + off, plan->rules[i].buf, r->size);
		} else {
			r->tmpl = tmpls[i];
			tmpls[i] = NULL;
			r->size = (uint16_t)(r->tmpl->nsect *
					     VSTEER_PRM_SECT_BYTES);
			vsteer_flow_dv_rule_match(&fp->base, plan, i,
						  &fp->match);
			vsteer_dv_value_pack(r->tmpl, &fp->match, bytes + off);
		}
		off += r->size;
	}
	if (fp->rss_handle != NULL) {
		flow->dest = fp->rss_handle->dest;
		flow->dest->refcnt++;
		/* Tunnel rules need hash QPs with tunnel offloads: the
		 * contexts made from now on. */
		if (plan->tunnel && !(flow->dest->flags & VSTEER_RSS_TUNNEL)) {
			flow->dest->flags |= VSTEER_RSS_TUNNEL;
			vsteer_dest_unref_rss(dev, flow->dest);
		}
	} else if (plan->fate == VSTEER_FATE_QUEUE ||
		   plan->fate == VSTEER_FATE_RSS) {
		flow->dest = vsteer_dest_get(fp, plan);
		if (flow->dest == NULL)
			goto nomem;
	}
	if (plan->count) {
		flow->cnt = (struct vsteer_count *)(vsteer_flow_body(flow) +
						    vsteer_body_cnt_off(n));
	} else if (plan->count_handle != NULL) {
		struct rte_flow_action_handle *h =
			(struct rte_flow_action_handle *)(uintptr_t)
				plan->count_handle;

		flow->cnt = &h->cnt;
	}
	return flow;
nomem:
	for (i = 0; i < n; i++)
		vsteer_tmpl_put(fp, tmpls[i]);
	vsteer_edobj_put(fp, eds[0]);
	vsteer_edobj_put(fp, eds[1]);
	if (flow != NULL)
		vsteer_flow_free(dev, fp, flow);
	vsteer_flow_err(error, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
			"no memory for the flow");
	return NULL;
}

/* --- translation and engine choice --- */

static bool
vsteer_handle_known(struct vsteer_flow_priv *fp,
		    const struct rte_flow_action_handle *handle)
{
	const struct rte_flow_action_handle *h;

	if (fp == NULL)
		return false;
	TAILQ_FOREACH(h, &fp->handles, next)
		if (h == handle)
			return true;
	return false;
}

/*
 * The translator takes an INDIRECT action's conf as the handle; make sure
 * it is one of ours before a flow uses it.
 */
static int
vsteer_flow_check_handles(struct vsteer_flow_priv *fp,
			  const struct rte_flow_action actions[],
			  struct rte_flow_error *error)
{
	const struct rte_flow_action *a;

	for (a = actions; a != NULL && a->type != RTE_FLOW_ACTION_TYPE_END; a++)
		if (a->type == RTE_FLOW_ACTION_TYPE_INDIRECT &&
		    !vsteer_handle_known(fp, a->conf))
			return vsteer_flow_err(error, EINVAL,
					       RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					       a,
					       "unknown indirect action handle");
	return 0;
}

/*
 * A rule naming an indirect RSS action is translated as the RSS action
 * it is now: into fp->acts, the INDIRECT replaced by RSS with the
 * action's queues, key and types, and the translator told that they may
 * change (ctx->rss_shared). *acts: the actions to translate.
 */
static int
vsteer_flow_indirect_rss(struct vsteer_flow_priv *fp,
			 struct vsteer_xlate_ctx *ctx,
			 const struct rte_flow_action actions[],
			 const struct rte_flow_action **acts,
			 struct rte_flow_error *error)
{
	const struct rte_flow_action_handle *h;
	const struct vsteer_dest *d;
	unsigned int i, n, at = 0;

	*acts = actions;
	fp->rss_handle = NULL;
	for (n = 0;
	     actions != NULL && actions[n].type != RTE_FLOW_ACTION_TYPE_END;
	     n++) {
		h = actions[n].conf;
		if (actions[n].type != RTE_FLOW_ACTION_TYPE_INDIRECT ||
		    h->kind != VSTEER_HANDLE_RSS)
			continue;
		if (fp->rss_handle != NULL)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
				&actions[n],
				"INDIRECT action: a second RSS (one fate per rule)");
		fp->rss_handle = (struct rte_flow_action_handle *)(uintptr_t)h;
		at = n;
	}
	if (fp->rss_handle == NULL)
		return 0;
	if (n + 1 > RTE_DIM(fp->acts))
		return vsteer_flow_err(error, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION_NUM, actions,
				       "%u actions with an indirect RSS, at most %u",
				       n, (unsigned int)RTE_DIM(fp->acts) - 1);
	d = fp->rss_handle->dest;
	memset(&fp->rss_conf, 0, sizeof(fp->rss_conf));
	fp->rss_conf.func = RTE_ETH_HASH_FUNCTION_TOEPLITZ;
	fp->rss_conf.level = d->rss_level;
	fp->rss_conf.types = d->rss_types;
	fp->rss_conf.key_len = VSTEER_RSS_KEY_LEN;
	fp->rss_conf.key = d->key;
	fp->rss_conf.queue_num = d->queue_num;
	fp->rss_conf.queue = d->queues;
	for (i = 0; i <= n; i++)
		fp->acts[i] = actions[i];
	fp->acts[at].type = RTE_FLOW_ACTION_TYPE_RSS;
	fp->acts[at].conf = &fp->rss_conf;
	ctx->rss_shared = true;
	*acts = fp->acts;
	return 0;
}

static int
vsteer_flow_translate(struct vsteer_flow_priv *fp,
		      const struct vsteer_xlate_ctx *ctx,
		      enum vsteer_flow_engine eng,
		      const struct rte_flow_attr *attr,
		      const struct rte_flow_item pattern[],
		      const struct rte_flow_action actions[],
		      const struct rte_flow_action *app_actions,
		      struct rte_flow_error *error)
{
	int ret;

	if (eng == VSTEER_FLOW_ENGINE_DV)
		ret = vsteer_flow_dv_translate(ctx, attr, pattern, actions,
					       &fp->plan, &fp->base, error);
	else
		ret = vsteer_flow_verbs_translate(ctx, attr, pattern, actions,
						  &fp->plan, error);
	/* The cause the application knows: its own action. */
	if (ret < 0 && actions != app_actions && error != NULL &&
	    (const struct rte_flow_action *)error->cause >= actions &&
	    (const struct rte_flow_action *)error->cause <
		    actions + RTE_DIM(fp->acts))
		error->cause = app_actions +
			       ((const struct rte_flow_action *)error->cause -
				actions);
	return ret;
}

/* Copy a translator's error into the caller's. */
static int
vsteer_flow_pass_err(struct rte_flow_error *error,
		     const struct rte_flow_error *e, int ret)
{
	if (error != NULL)
		*error = *e;
	rte_errno = -ret;
	return ret;
}

/*
 * The one walk validate and create share: check the indirect handles,
 * pick the engine, translate. The plan is left in fp->plan (and fp->base
 * for the matcher engine).
 */
static int
vsteer_flow_prepare(struct rte_eth_dev *dev, struct vsteer_flow_priv *fp,
		    const struct rte_flow_attr *attr,
		    const struct rte_flow_item pattern[],
		    const struct rte_flow_action actions[],
		    struct vsteer_xlate_ctx *ctx, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	const struct rte_flow_action *acts;
	struct vsteer_flow_limit vl;
	struct rte_flow_error e, ve;
	int ret;

	fp->rss_handle = NULL;
	ret = vsteer_flow_check_handles(fp, actions, error);
	if (ret < 0)
		return ret;
	vsteer_xlate_ctx_init(dev, ctx);
	ret = vsteer_flow_indirect_rss(fp, ctx, actions, &acts, error);
	if (ret < 0)
		return ret;
	memset(&e, 0, sizeof(e));
	if (!priv->flow_engine_auto) {
		ret = vsteer_flow_translate(fp, ctx, priv->flow_engine, attr,
					    pattern, acts, actions, &e);
		if (ret < 0 && fp->plan.limit.set)
			return vsteer_flow_err(
				error, -ret, e.type, e.cause,
				"%s: %s cannot %s (flow_engine=%s)",
				fp->plan.limit.subject,
				vsteer_flow_engine_name(priv->flow_engine),
				fp->plan.limit.what,
				priv->flow_engine == VSTEER_FLOW_ENGINE_DV ?
					"dv" :
					"verbs");
		return ret < 0 ? vsteer_flow_pass_err(error, &e, ret) : 0;
	}
	/* auto: verbs when the rule fits a verbs chain. */
	ret = vsteer_flow_translate(fp, ctx, VSTEER_FLOW_ENGINE_VERBS, attr,
				    pattern, acts, actions, &e);
	if (ret == 0 || !fp->plan.limit.set)
		return ret < 0 ? vsteer_flow_pass_err(error, &e, ret) : 0;
	vl = fp->plan.limit;
	ve = e;
	if (!ctx->dv_ok)
		return vsteer_flow_err(
			error, -ret, ve.type, ve.cause,
			"%s: verbs cannot %s and the device offers no mlx5dv matcher",
			vl.subject, vl.what);
	memset(&e, 0, sizeof(e));
	ret = vsteer_flow_translate(fp, ctx, VSTEER_FLOW_ENGINE_DV, attr,
				    pattern, acts, actions, &e);
	if (ret == 0 || !fp->plan.limit.set)
		return ret < 0 ? vsteer_flow_pass_err(error, &e, ret) : 0;
	if (strcmp(vl.subject, fp->plan.limit.subject) == 0)
		return vsteer_flow_err(
			error, -ret, ve.type, ve.cause,
			"%s: verbs cannot %s and the mlx5dv matcher cannot %s",
			vl.subject, vl.what, fp->plan.limit.what);
	return vsteer_flow_err(
		error, -ret, ve.type, ve.cause,
		"%s: verbs cannot %s; %s: the mlx5dv matcher cannot %s",
		vl.subject, vl.what, fp->plan.limit.subject,
		fp->plan.limit.what);
}

/* --- apply / remove --- */

static void
vsteer_flow_remove(struct rte_eth_dev *dev, struct vsteer_flow *flow)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint32_t i;
	int ret;

	for (i = 0; i < flow->n_rules; i++) {
		struct vsteer_frule *r = &vsteer_flow_rules(flow)[i];

		if (r->ibv != NULL) {
			if (flow->engine == VSTEER_FLOW_ENGINE_VERBS &&
			    r->count_off != 0)
				vsteer_count_verbs_unbinding(flow->cnt);
			ret = ibv_destroy_flow(r->ibv);
			if (ret != 0)
				FLOW_LOG(ERR, "port %u: ibv_destroy_flow: %s",
					 dev->data->port_id, strerror(ret));
			r->ibv = NULL;
			if (r->tmpl != NULL)
				vsteer_tmpl_unapply(priv, r->tmpl);
		}
		if (r->rss != NULL) {
			vsteer_rss_put(dev, r->rss);
			r->rss = NULL;
		}
	}
	/* The actions after the rules that use them (EBUSY before). */
	if (flow->ed_applied) {
		for (i = 0; i < flow->n_ed; i++)
			vsteer_edobj_unapply(priv, vsteer_flow_edobjs(flow)[i]);
		flow->ed_applied = 0;
	}
	flow->applied = 0;
}

/*
 * The queues a destination lists that the port has now, into live
 * (when not NULL); returns how many. Rules are kept across
 * rte_eth_dev_configure(), which may leave fewer Rx queues than a kept
 * rule lists (Open vSwitch lowering n_rxq keeps the rules it made over
 * the old count): such a rule goes to the listed queues that are left,
 * as a redirection table does, and one with none left is kept but not
 * applied until they come back. Rules made now are checked against the
 * queues there are (vsteer_flow_xlate.c), so only kept rules shrink.
 */
static uint32_t
vsteer_dest_live_queues(const struct rte_eth_dev *dev,
			const struct vsteer_dest *d, uint16_t *live)
{
	uint32_t i, k = 0;

	for (i = 0; i < d->queue_num; i++) {
		if (d->queues[i] >= dev->data->nb_rx_queues)
			continue;
		if (live != NULL)
			live[k] = d->queues[i];
		k++;
	}
	return k;
}

/* Destination QP of rule r: an RSS context, or the sink. */
static struct ibv_qp *
vsteer_flow_dest_qp(struct rte_eth_dev *dev, struct vsteer_flow *flow,
		    struct vsteer_frule *r)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t live[RTE_MAX_QUEUES_PER_PORT];
	struct vsteer_dest *d = flow->dest;
	uint32_t n;
	uint64_t hf;

	switch (flow->fate) {
	case VSTEER_FATE_QUEUE:
		hf = 0;
		break;
	case VSTEER_FATE_RSS:
		hf = r->hash_fields;
		break;
	default:
		return vsteer_sink_get(priv, priv->flow_priv);
	}
	/* The context the destination keeps, when it hashes the same: the
	 * one vsteer_rss_get() would find (every other input is the
	 * destination's). */
	if (d->rss != NULL && d->rss_hf == hf) {
		d->rss->refcnt++;
		r->rss = d->rss;
		return r->rss->qp;
	}
	n = vsteer_dest_live_queues(dev, d, live);
	if (n == 0) {
		errno = ENXIO; /* vsteer_flow_start() does not get here */
		return NULL;
	}
	r->rss = vsteer_rss_get(dev, d->key, hf,
				n == d->queue_num ? d->queues : live, n,
				d->flags);
	if (r->rss == NULL) {
		errno = rte_errno ? rte_errno : ENOMEM;
		return NULL;
	}
	if (d->rss == NULL) {
		r->rss->refcnt++; /* the destination's own reference */
		d->rss = r->rss;
		d->rss_hf = hf;
	}
	return r->rss->qp;
}

/* What ENOSPC from a rule's creation means: the mlx5 kernel makes one
 * flow table per priority, of at most MLX5_FS_MAX_ENTRIES entries
 * (_get_prio(), Linux 6.1), and a new match finds no entry left in it
 * (alloc_auto_flow_group()). */
static const char *
vsteer_flow_full(int err)
{
	return err == ENOSPC ?
		       ": the device's flow table of that priority is full (65536 entries a priority on mlx5)" :
		       "";
}

static int
vsteer_flow_apply_dv(struct rte_eth_dev *dev, struct vsteer_flow *flow,
		     struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct mlx5dv_flow_action_attr act[5];
	struct vsteer_dv_params value;
	struct mlx5dv_flow_matcher *mobj;
	uint32_t i, j;
	size_t n;
	int ret;

	if (flow->cnt != NULL) {
		ret = vsteer_count_devx_make(priv, flow->cnt);
		if (ret != 0)
			return vsteer_flow_err(error, ret,
					       RTE_FLOW_ERROR_TYPE_ACTION, NULL,
					       "DevX ALLOC_FLOW_COUNTER: %s",
					       strerror(ret));
	}
	for (j = 0; j < flow->n_ed; j++) {
		struct vsteer_edobj *o = vsteer_flow_edobjs(flow)[j];

		ret = vsteer_edobj_apply(priv, o);
		if (ret != 0) {
			while (j-- > 0)
				vsteer_edobj_unapply(priv, vsteer_flow_edobjs(
								   flow)[j]);
			return vsteer_flow_err(
				error, ret, RTE_FLOW_ERROR_TYPE_ACTION, NULL,
				"%s (%s table): %s",
				o->reformat == VSTEER_REFORMAT_NONE ?
					"mlx5dv_create_flow_action_modify_header" :
					"mlx5dv_create_flow_action_packet_reformat",
				o->egress ? "transmit" : "receive",
				strerror(ret));
		}
	}
	flow->ed_applied = flow->n_ed != 0;
	for (i = 0; i < flow->n_rules; i++) {
		struct vsteer_frule *r = &vsteer_flow_rules(flow)[i];

		n = 0;
		if (flow->fate == VSTEER_FATE_DROP) {
			act[n].type = MLX5DV_FLOW_ACTION_DROP;
			n++;
		} else if (flow->egress) {
			/* No destination: to the wire (the kernel's PORT
			 * destination with ALLOW). */
		} else {
			struct ibv_qp *qp = vsteer_flow_dest_qp(dev, flow, r);

			if (qp == NULL) {
				ret = errno;
				vsteer_flow_remove(dev, flow);
				return vsteer_flow_err(
					error, ret, RTE_FLOW_ERROR_TYPE_ACTION,
					NULL,
					"cannot make the destination queue: %s",
					strerror(ret));
			}
			act[n].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
			act[n].qp = qp;
			n++;
		}
		if (flow->tag != 0) {
			act[n].type = MLX5DV_FLOW_ACTION_TAG;
			act[n].tag_value = flow->tag;
			n++;
		}
		if (flow->cnt != NULL) {
			act[n].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
			act[n].obj = flow->cnt->devx;
			n++;
		}
		for (j = 0; j < flow->n_ed; j++) {
			act[n].type = MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION;
			act[n].action = vsteer_flow_edobjs(flow)[j]->obj;
			n++;
		}
		mobj = vsteer_tmpl_apply(priv, r->tmpl);
		if (mobj == NULL) {
			ret = errno;
			vsteer_flow_remove(dev, flow);
			return vsteer_flow_err(
				error, ret, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
				"mlx5dv_create_flow_matcher (entry %u of %u, priority %u): %s",
				i + 1, flow->n_rules, r->tmpl->priority,
				strerror(ret));
		}
		vsteer_dv_value_unpack(r->tmpl, vsteer_flow_data(flow) + r->off,
				       &value);
		errno = 0;
		r->ibv = priv->glue->dv_create_flow(mobj,
						    vsteer_dv_params(&value), n,
						    act);
		if (r->ibv == NULL) {
			ret = errno ? errno : ENOMEM;
			vsteer_tmpl_unapply(priv, r->tmpl);
			vsteer_flow_remove(dev, flow);
			return vsteer_flow_err(
				error, ret, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
				"mlx5dv_create_flow (entry %u of %u, priority %u): %s%s",
				i + 1, flow->n_rules, r->tmpl->priority,
				strerror(ret), vsteer_flow_full(ret));
		}
		flow->applied = (uint8_t)(i + 1);
	}
	return 0;
}

/* A verbs rule's attr and specs into buf (aligned, VSTEER_MAX_SPEC_BYTES),
 * with its COUNT spec pointing at the flow's counters object: the record
 * holds no pointer, so that the counters can be made at apply. */
static void
vsteer_frule_load(struct vsteer_flow *flow, const struct vsteer_frule *r,
		  uint8_t *buf)
{
	memcpy(buf, vsteer_flow_data(flow) + r->off, r->size);
	/* count_off is set only with COUNT, which gives the flow cnt. */
	if (r->count_off != 0)
		memcpy(buf + r->count_off +
			       offsetof(struct ibv_flow_spec_counter_action,
					counters),
		       &flow->cnt->cs, sizeof(flow->cnt->cs));
}

static int
vsteer_flow_apply_verbs(struct rte_eth_dev *dev, struct vsteer_flow *flow,
			struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	union {
		struct ibv_flow_attr attr;
		uint8_t buf[VSTEER_MAX_SPEC_BYTES];
	} rule;
	uint32_t i;
	int ret;

	if (flow->cnt != NULL) {
		ret = vsteer_count_verbs_make(priv, flow->cnt);
		if (ret != 0)
			return vsteer_flow_err(error, ret,
					       RTE_FLOW_ERROR_TYPE_ACTION, NULL,
					       "ibv_create_counters: %s",
					       strerror(ret));
	}
	for (i = 0; i < flow->n_rules; i++) {
		struct vsteer_frule *r = &vsteer_flow_rules(flow)[i];
		struct ibv_qp *qp;

		qp = vsteer_flow_dest_qp(dev, flow, r);
		if (qp == NULL) {
			ret = errno;
			vsteer_flow_remove(dev, flow);
			return vsteer_flow_err(
				error, ret, RTE_FLOW_ERROR_TYPE_ACTION, NULL,
				"cannot make the destination queue: %s",
				strerror(ret));
		}
		vsteer_frule_load(flow, r, rule.buf);
		errno = 0;
		r->ibv = ibv_create_flow(qp, &rule.attr);
		if (r->ibv == NULL) {
			ret = errno ? errno : EINVAL;
			vsteer_flow_remove(dev, flow);
			return vsteer_flow_err(
				error, ret, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
				"ibv_create_flow (verbs rule %u of %u, priority %u): %s%s",
				i + 1, flow->n_rules, rule.attr.priority,
				strerror(ret), vsteer_flow_full(ret));
		}
		if (r->count_off != 0)
			flow->cnt->cs_users++;
		flow->applied = (uint8_t)(i + 1);
	}
	return 0;
}

static int
vsteer_flow_apply(struct rte_eth_dev *dev, struct vsteer_flow *flow,
		  struct rte_flow_error *error)
{
	if (flow->engine == VSTEER_FLOW_ENGINE_DV)
		return vsteer_flow_apply_dv(dev, flow, error);
	return vsteer_flow_apply_verbs(dev, flow, error);
}

/* --- rte_flow ops --- */

static int
vsteer_flow_validate(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		     const struct rte_flow_item pattern[],
		     const struct rte_flow_action actions[],
		     struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp;
	struct vsteer_xlate_ctx ctx;
	int ret;

	vsteer_ctl_lock(priv);
	fp = vsteer_fpriv(dev);
	if (fp == NULL)
		ret = vsteer_flow_err(error, ENOMEM,
				      RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				      "no memory for flow state");
	else
		ret = vsteer_flow_prepare(dev, fp, attr, pattern, actions, &ctx,
					  error);
	vsteer_ctl_unlock(priv);
	return ret;
}

static struct rte_flow *
vsteer_flow_create(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		   const struct rte_flow_item pattern[],
		   const struct rte_flow_action actions[],
		   struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = vsteer_fpriv(dev);
	struct rte_flow_action_handle *h;
	struct vsteer_xlate_ctx ctx;
	struct vsteer_flow *flow, *last;
	int ret;

	if (fp == NULL) {
		vsteer_flow_err(error, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
				NULL, "no memory for flow state");
		return NULL;
	}
	ret = vsteer_flow_prepare(dev, fp, attr, pattern, actions, &ctx, error);
	if (ret < 0)
		return NULL;
	flow = vsteer_flow_record(dev, fp, &ctx, error);
	if (flow == NULL)
		return NULL;
	if (priv->started) {
		ret = vsteer_flow_apply(dev, flow, error);
		if (ret != 0) {
			ret = rte_errno;
			if (flow->own_cnt)
				vsteer_count_release(priv, flow->cnt);
			vsteer_flow_free(dev, fp, flow);
			rte_errno = ret;
			return NULL;
		}
	}
	h = vsteer_flow_indirect(flow);
	if (h != NULL)
		h->refcnt++;
	if (fp->rss_handle != NULL)
		fp->rss_handle->refcnt++;
	last = TAILQ_LAST(&fp->flows, vsteer_flow_list);
	flow->id = last != NULL ? last->id + 1 : 0;
	TAILQ_INSERT_TAIL(&fp->flows, flow, next);
	/* A context of NULL means the rte_flow pointer (rte_flow.h). */
	if (flow->aging)
		vsteer_age_add(dev, vsteer_flow_age(flow), fp->plan.age_timeout,
			       fp->plan.age_context != NULL ?
				       fp->plan.age_context :
				       (void *)vsteer_flow_handle(flow),
			       flow);
	/* The arguments cost even when the message is not logged. */
	if (rte_log_can_log(vsteer_logtype_flow, RTE_LOG_DEBUG))
		FLOW_LOG(DEBUG, "port %u: flow %p created (%s, %u rule(s))",
			 dev->data->port_id, (void *)vsteer_flow_handle(flow),
			 flow->engine == VSTEER_FLOW_ENGINE_DV ? "mlx5dv" :
								 "verbs",
			 flow->n_rules);
	return vsteer_flow_handle(flow);
}

static struct rte_flow *
vsteer_flow_create_op(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		      const struct rte_flow_item pattern[],
		      const struct rte_flow_action actions[],
		      struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct rte_flow *flow;
	int err;

	vsteer_ctl_lock(priv);
	flow = vsteer_flow_create(dev, attr, pattern, actions, error);
	err = rte_errno;
	vsteer_ctl_unlock(priv);
	if (flow == NULL)
		rte_errno = err;
	return flow;
}

static void
vsteer_flow_destroy_one(struct rte_eth_dev *dev, struct vsteer_flow *flow)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;
	struct rte_flow_action_handle *h = vsteer_flow_indirect(flow);

	vsteer_flow_remove(dev, flow);
	TAILQ_REMOVE(&fp->flows, flow, next);
	if (flow->aging)
		vsteer_age_del(priv, vsteer_flow_age(flow));
	if (flow->dest != NULL && flow->dest->owner != NULL)
		flow->dest->owner->refcnt--;
	if (h != NULL)
		h->refcnt--;
	else if (flow->own_cnt)
		vsteer_count_release(priv, flow->cnt);
	vsteer_flow_free(dev, fp, flow);
}

static int
vsteer_flow_destroy(struct rte_eth_dev *dev, struct rte_flow *handle,
		    struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow *flow;
	int ret = 0;

	vsteer_ctl_lock(priv);
	flow = vsteer_flow_lookup(priv->flow_priv, handle);
	if (flow == NULL)
		ret = vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE,
				      handle, "no such flow on port %u",
				      dev->data->port_id);
	else
		vsteer_flow_destroy_one(dev, flow);
	vsteer_ctl_unlock(priv);
	return ret;
}

static void
vsteer_flow_flush(struct rte_eth_dev *dev)
{
	struct vsteer_flow_priv *fp = vsteer_priv(dev)->flow_priv;

	VSTEER_CTL_HELD(vsteer_priv(dev));
	if (fp == NULL)
		return;
	while (!TAILQ_EMPTY(&fp->flows))
		vsteer_flow_destroy_one(dev, TAILQ_FIRST(&fp->flows));
}

static int
vsteer_flow_flush_op(struct rte_eth_dev *dev, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	RTE_SET_USED(error);
	vsteer_ctl_lock(priv);
	vsteer_flow_flush(dev);
	vsteer_ctl_unlock(priv);
	return 0;
}

static int
vsteer_flow_query(struct rte_eth_dev *dev, struct rte_flow *handle,
		  const struct rte_flow_action *action, void *data,
		  struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow *flow = vsteer_flow_lookup(priv->flow_priv, handle);

	VSTEER_CTL_HELD(priv);
	if (flow == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_HANDLE, handle,
				       "no such flow on port %u",
				       dev->data->port_id);
	if (action == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_NUM, NULL,
				       "no action to query");
	for (; action->type != RTE_FLOW_ACTION_TYPE_END; action++) {
		switch (action->type) {
		case RTE_FLOW_ACTION_TYPE_VOID:
			break;
		case RTE_FLOW_ACTION_TYPE_COUNT:
			if (flow->cnt == NULL)
				return vsteer_flow_err(error, EINVAL,
						       RTE_FLOW_ERROR_TYPE_ACTION,
						       action,
						       "flow has no COUNT action");
			return vsteer_count_query(priv, flow->cnt, data, action,
						  error);
		case RTE_FLOW_ACTION_TYPE_AGE:
			if (!flow->aging)
				return vsteer_flow_err(error, EINVAL,
						       RTE_FLOW_ERROR_TYPE_ACTION,
						       action,
						       "flow has no AGE action");
			vsteer_age_query(vsteer_flow_age(flow), data);
			return 0;
		default:
			return vsteer_flow_err(error, ENOTSUP,
					       RTE_FLOW_ERROR_TYPE_ACTION,
					       action,
					       "only COUNT and AGE can be queried");
		}
	}
	return vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
			       action, "no action to query");
}

bool
vsteer_flow_age_hits(struct rte_eth_dev *dev, void *arg, uint64_t *hits)
{
	struct vsteer_flow *flow = arg;
	const char *what = "";
	uint64_t bytes;
	int ret;

	/* A flow not (wholly) on the device is hit by nothing; its counter
	 * may not be bound to a device rule either. */
	if (flow->cnt == NULL || flow->applied != flow->n_rules)
		return false;
	ret = vsteer_count_read(vsteer_priv(dev), flow->cnt, hits, &bytes,
				&what);
	if (ret != 0) {
		FLOW_LOG(WARNING, "port %u: flow rule %u: %s: %s",
			 dev->data->port_id, flow->id, what, strerror(ret));
		return false;
	}
	return true;
}

static int
vsteer_flow_get_aged_op(struct rte_eth_dev *dev, void **contexts,
			uint32_t nb_contexts, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	if (nb_contexts != 0 && contexts == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				       "no array for %u contexts", nb_contexts);
	vsteer_ctl_lock(priv);
	ret = vsteer_age_get(priv, contexts, nb_contexts);
	vsteer_ctl_unlock(priv);
	return ret;
}

/* The counter and its reset base: under the lock like the rest. */
static int
vsteer_flow_query_op(struct rte_eth_dev *dev, struct rte_flow *flow,
		     const struct rte_flow_action *action, void *data,
		     struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	vsteer_ctl_lock(priv);
	ret = vsteer_flow_query(dev, flow, action, data, error);
	vsteer_ctl_unlock(priv);
	return ret;
}

static int
vsteer_flow_isolate(struct rte_eth_dev *dev, int enable,
		    struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint32_t old;
	int ret;

	vsteer_ctl_lock(priv);
	old = priv->isolated;
	priv->isolated = !!enable;
	ret = vsteer_defflow_sync(dev);
	if (ret < 0) {
		priv->isolated = old;
		vsteer_defflow_sync(dev);
		vsteer_ctl_unlock(priv);
		return vsteer_flow_err(error, -ret,
				       RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				       "cannot %s isolated mode: %s",
				       enable ? "enter" : "leave",
				       strerror(-ret));
	}
	vsteer_ctl_unlock(priv);
	return 0;
}

static const char *
vsteer_fate_name(enum vsteer_fate fate)
{
	switch (fate) {
	case VSTEER_FATE_QUEUE:
		return "queue";
	case VSTEER_FATE_RSS:
		return "rss";
	case VSTEER_FATE_DROP:
		return "drop";
	case VSTEER_FATE_PASSTHRU:
		return "passthru";
	default:
		return "none";
	}
}

/* What the flow holds on its own (its destination and matcher templates
 * are shared, counted once per port): its pool entry and, for a body that
 * did not fit in it, the body's block. */
static size_t
vsteer_flow_bytes(const struct vsteer_flow_priv *fp, struct vsteer_flow *flow)
{
	size_t n = flow->n_rules * sizeof(struct vsteer_frule);
	uint32_t i;

	if (!flow->ext)
		return fp->pool.entry_size;
	for (i = 0; i < flow->n_rules; i++)
		n += vsteer_flow_rules(flow)[i].size;
	if (flow->own_cnt)
		n += sizeof(struct vsteer_count);
	if (flow->aging)
		n += sizeof(struct vsteer_age);
	n += flow->n_ed * sizeof(struct vsteer_edobj *);
	return fp->pool.entry_size + n;
}

const char *
vsteer_flow_engine_desc(const struct vsteer_priv *priv)
{
	if (priv->flow_engine_auto)
		return priv->dv_ok ? "auto (verbs, else mlx5dv)" :
				     "auto (verbs)";
	return priv->flow_engine == VSTEER_FLOW_ENGINE_DV ? "mlx5dv" : "verbs";
}

static void
vsteer_flow_dump_one(const struct rte_eth_dev *dev, struct vsteer_flow_priv *fp,
		     struct vsteer_flow *flow, FILE *f)
{
	const struct vsteer_dest *d = flow->dest;
	uint32_t i, live = 0;

	if (d != NULL)
		live = vsteer_dest_live_queues(dev, d, NULL);
	fprintf(f,
		"flow rule %u (handle %p): %s, priority %u, engine %s, %s, %zu bytes\n",
		flow->id, (void *)vsteer_flow_handle(flow),
		flow->egress ? "egress" : "ingress", flow->rte_priority,
		flow->engine == VSTEER_FLOW_ENGINE_DV ? "mlx5dv" : "verbs",
		flow->applied ?
			"applied" :
		d != NULL && live == 0 ?
			"kept, not applied: none of its queues is configured" :
			"kept (port stopped)",
		vsteer_flow_bytes(fp, flow));
	fprintf(f, "  fate %s", vsteer_fate_name(flow->fate));
	if (d != NULL) {
		fprintf(f, " queues");
		for (i = 0; i < d->queue_num; i++)
			fprintf(f, " %u", d->queues[i]);
		if (live != 0 && live < d->queue_num)
			fprintf(f, " (%u of them configured)", live);
		if (flow->fate == VSTEER_FATE_RSS)
			fprintf(f, " types 0x%" PRIx64 " level %u%s",
				d->rss_types, d->rss_level,
				d->owner != NULL ? " (indirect RSS)" : "");
	}
	if (flow->tag == VSTEER_TAG_FLAG)
		fprintf(f, ", flag (tag 0xffffff)");
	else if (flow->tag != 0)
		fprintf(f, ", mark %u (tag 0x%06x)", flow->tag - 1, flow->tag);
	if (flow->cnt != NULL)
		fprintf(f, ", count%s",
			vsteer_flow_indirect(flow) ? " (indirect)" : "");
	if (flow->aging) {
		const struct vsteer_age *a = vsteer_flow_age(flow);

		if (a->aged)
			fprintf(f, ", age %u s: aged", a->timeout);
		else
			fprintf(f, ", age %u s: %u s without a hit", a->timeout,
				a->idle);
	}
	fprintf(f, "\n");
	for (i = 0; i < flow->n_ed; i++) {
		const struct vsteer_edobj *o = vsteer_flow_edobjs(flow)[i];

		if (o->reformat != VSTEER_REFORMAT_NONE) {
			vsteer_flow_edit_dump_reformat(f, o->reformat, o->bytes,
						       o->len);
			continue;
		}
		fprintf(f, "  header modify, %u actions (%s table):\n",
			o->len / 8u, o->egress ? "transmit" : "receive");
		vsteer_flow_edit_dump_mod(f,
					  (const uint64_t *)(const void *)
						  o->bytes,
					  o->len / 8u);
	}
	for (i = 0; i < flow->n_rules; i++) {
		const struct vsteer_frule *r = &vsteer_flow_rules(flow)[i];
		struct vsteer_verbs_rule rule;
		struct vsteer_dv_match *m = &fp->match;

		if (flow->engine == VSTEER_FLOW_ENGINE_DV) {
			fprintf(f,
				"  mlx5dv matcher entry %u of %u, priority %u, criteria 0x%02x, hash fields 0x%" PRIx64
				"\n",
				i + 1, flow->n_rules, r->tmpl->priority,
				r->tmpl->criteria, r->hash_fields);
			memset(m, 0, sizeof(*m));
			m->mask = r->tmpl->mask;
			m->criteria = r->tmpl->criteria;
			vsteer_dv_value_unpack(r->tmpl,
					       vsteer_flow_data(flow) + r->off,
					       &m->value);
			vsteer_flow_dv_dump(f, m);
			continue;
		}
		fprintf(f, "  verbs rule %u of %u, hash fields 0x%" PRIx64 "\n",
			i + 1, flow->n_rules, r->hash_fields);
		memset(&rule, 0, sizeof(rule));
		/* With the counters object the applied rule carries. */
		vsteer_frule_load(flow, r, rule.buf);
		rule.size = r->size;
		rule.count_off = r->count_off;
		rule.hash_fields = r->hash_fields;
		rule.subprio = (enum vsteer_subprio)(rule.attr.priority %
						     VSTEER_SUBPRIO_N);
		vsteer_flow_verbs_dump(f, &rule);
	}
}

static int
vsteer_flow_dev_dump(struct rte_eth_dev *dev, struct rte_flow *handle,
		     FILE *file, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = vsteer_fpriv(dev);
	const struct vsteer_defflow *df;
	struct vsteer_flow *f;

	if (fp == NULL)
		return vsteer_flow_err(error, ENOMEM,
				       RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				       "no memory for flow state");
	if (handle != NULL) {
		f = vsteer_flow_lookup(fp, handle);
		if (f == NULL)
			return vsteer_flow_err(error, EINVAL,
					       RTE_FLOW_ERROR_TYPE_HANDLE,
					       handle,
					       "no such flow on port %u",
					       dev->data->port_id);
		vsteer_flow_dump_one(dev, fp, f, file);
		return 0;
	}
	fprintf(file, "port %u: %s device %s, flow engine %s%s\n",
		dev->data->port_id, priv->glue->name, priv->ibdev_name,
		vsteer_flow_engine_desc(priv),
		priv->isolated ? ", isolated" : "");
	/* What the port's rules hold, and that it shrinks as they go. */
	fprintf(file, "%u flow rule(s), flow pool %zu bytes in %u slab(s)\n",
		fp->pool.used, vsteer_pool_bytes(&fp->pool), fp->pool.n_slabs);
	TAILQ_FOREACH(f, &fp->flows, next)
		vsteer_flow_dump_one(dev, fp, f, file);
	TAILQ_FOREACH(df, &priv->defflows, next) {
		struct vsteer_verbs_rule rule;

		if (df->size > sizeof(rule.buf))
			continue;
		memset(&rule, 0, sizeof(rule));
		memcpy(rule.buf, df->attr, df->size);
		rule.size = df->size;
		rule.hash_fields = df->rss != NULL ? df->rss->hash_fields : 0;
		/* Verbs priority = 3 * level + sub-priority (see
		 * vsteer_flow_verbs_prio()). */
		rule.subprio = (enum vsteer_subprio)(rule.attr.priority %
						     VSTEER_SUBPRIO_N);
		fprintf(file, "default flow (driver-owned)\n");
		vsteer_flow_verbs_dump(file, &rule);
	}
	return 0;
}

static int
vsteer_flow_dev_dump_op(struct rte_eth_dev *dev, struct rte_flow *flow,
			FILE *file, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	vsteer_ctl_lock(priv);
	ret = vsteer_flow_dev_dump(dev, flow, file, error);
	vsteer_ctl_unlock(priv);
	return ret;
}

/* --- indirect actions: COUNT, RSS --- */

/* Check an RSS action as a rule's would be (queues, key, types, level):
 * the plan in fp->plan. */
static int
vsteer_rss_conf_check(struct rte_eth_dev *dev, struct vsteer_flow_priv *fp,
		      const struct rte_flow_action *action,
		      struct rte_flow_error *error)
{
	const struct rte_flow_action acts[] = {
		*action,
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct vsteer_xlate_ctx ctx;
	int ret;

	vsteer_xlate_ctx_init(dev, &ctx);
	vsteer_flow_plan_init(&fp->plan, &ctx, VSTEER_FLOW_ENGINE_VERBS);
	fp->plan.ingress = true;
	ret = vsteer_flow_actions(&ctx, acts, &fp->plan, error);
	/* The cause the application knows: its action. */
	if (ret < 0 && error != NULL && error->cause == &acts[0])
		error->cause = action;
	return ret;
}

/* The destination of an indirect RSS action, from fp->plan. */
static struct vsteer_dest *
vsteer_rss_dest_new(struct vsteer_flow_priv *fp,
		    struct rte_flow_action_handle *h)
{
	const struct vsteer_flow_plan *plan = &fp->plan;
	struct vsteer_dest *d;

	d = calloc(1, sizeof(*d) + RTE_MAX_QUEUES_PER_PORT * sizeof(uint16_t));
	if (d == NULL)
		return NULL;
	d->owner = h;
	d->refcnt = 1; /* the action's own */
	d->flags = plan->rss_level >= 2 ? VSTEER_RSS_TUNNEL : 0;
	d->rss_types = plan->rss_types;
	d->rss_level = plan->rss_level;
	d->queue_num = plan->queue_num;
	memcpy(d->key, plan->rss_key, VSTEER_RSS_KEY_LEN);
	memcpy(d->queues, plan->queues, plan->queue_num * sizeof(uint16_t));
	TAILQ_INSERT_TAIL(&fp->dests, d, next);
	return d;
}

static struct rte_flow_action_handle *
vsteer_action_handle_create(struct rte_eth_dev *dev,
			    const struct rte_flow_indir_action_conf *conf,
			    const struct rte_flow_action *action,
			    struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = vsteer_fpriv(dev);
	struct rte_flow_action_handle *h;
	bool rss;

	if (fp == NULL) {
		vsteer_flow_err(error, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
				NULL, "no memory for flow state");
		return NULL;
	}
	rss = action != NULL && action->type == RTE_FLOW_ACTION_TYPE_RSS;
	if (action == NULL ||
	    (action->type != RTE_FLOW_ACTION_TYPE_COUNT && !rss)) {
		vsteer_flow_err(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION,
				action,
				"only COUNT and RSS can be indirect actions");
		return NULL;
	}
	if (conf != NULL && conf->transfer) {
		vsteer_flow_err(error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, conf,
				"transfer not supported: the port has no E-Switch");
		return NULL;
	}
	if (rss && conf != NULL && conf->egress) {
		vsteer_flow_err(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS,
				conf, "an RSS action is for ingress rules");
		return NULL;
	}
	if (rss && vsteer_rss_conf_check(dev, fp, action, error) < 0)
		return NULL;
	/* Either kind of counter will do: each is made when a flow of its
	 * engine first uses the handle. */
	if (!rss && !priv->count_ok && !priv->devx_ok) {
		vsteer_flow_err(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION,
				action, "the device has no flow counters");
		return NULL;
	}
	h = rte_zmalloc("vsteer_handle", sizeof(*h), 0);
	if (h == NULL) {
		vsteer_flow_err(error, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
				NULL, "no memory for the action");
		return NULL;
	}
	if (rss) {
		h->kind = VSTEER_HANDLE_RSS;
		h->dest = vsteer_rss_dest_new(fp, h);
		if (h->dest == NULL) {
			rte_free(h);
			vsteer_flow_err(error, ENOMEM,
					RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
					"no memory for the action");
			return NULL;
		}
	}
	TAILQ_INSERT_TAIL(&fp->handles, h, next);
	return h;
}

/* The action goes (no flow uses it). */
static void
vsteer_action_handle_free(struct rte_eth_dev *dev, struct vsteer_flow_priv *fp,
			  struct rte_flow_action_handle *h)
{
	TAILQ_REMOVE(&fp->handles, h, next);
	vsteer_count_release(vsteer_priv(dev), &h->cnt);
	if (h->dest != NULL)
		vsteer_dest_put(dev, fp, h->dest);
	rte_free(h);
}

/* The flows of an indirect RSS action's destination back on the device
 * with its hash fields for types (when the port runs). */
static int
vsteer_rss_dest_reapply(struct rte_eth_dev *dev, struct vsteer_flow_priv *fp,
			struct vsteer_dest *d, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow *flow;
	uint32_t i;
	int ret;

	vsteer_dest_unref_rss(dev, d);
	TAILQ_FOREACH(flow, &fp->flows, next) {
		if (flow->dest != d)
			continue;
		for (i = 0; i < flow->n_rules; i++) {
			struct vsteer_frule *r = &vsteer_flow_rules(flow)[i];

			r->hash_fields =
				vsteer_flow_rss_fields(d->rss_types, r->fam,
						       r->l4p,
						       d->rss_level >= 2);
		}
		if (!priv->started)
			continue;
		vsteer_flow_remove(dev, flow);
		if (vsteer_dest_live_queues(dev, d, NULL) == 0)
			continue;
		ret = vsteer_flow_apply(dev, flow, error);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/*
 * rte_flow_action_handle_update() of an indirect RSS action: new queues,
 * key or types for every rule that uses it, which stay the same rules
 * (their handles, counters, ages); their device rules are made again on
 * the new hash QPs (a verbs rule cannot move to another QP), each type of
 * the expansion with its new hash fields. The level cannot change (it
 * picks which headers the rules' device rules match). On a failure, the
 * action and its rules are put back as they were.
 */
static int
vsteer_rss_handle_update(struct rte_eth_dev *dev, struct vsteer_flow_priv *fp,
			 struct rte_flow_action_handle *h,
			 const struct rte_flow_action *action,
			 struct rte_flow_error *error)
{
	struct vsteer_dest *d = h->dest;
	uint16_t queues[RTE_MAX_QUEUES_PER_PORT];
	uint8_t key[VSTEER_RSS_KEY_LEN];
	uint32_t queue_num = d->queue_num;
	uint64_t types = d->rss_types;
	struct rte_flow_error ignored;
	int ret;

	if (action == NULL || action->type != RTE_FLOW_ACTION_TYPE_RSS)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, action,
			"an indirect RSS action is updated with an RSS action");
	ret = vsteer_rss_conf_check(dev, fp, action, error);
	if (ret < 0)
		return ret;
	if (fp->plan.rss_level != d->rss_level)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, action,
			"RSS action: level %u, the action's rules were made for level %u (make another action)",
			fp->plan.rss_level, d->rss_level);
	memcpy(queues, d->queues, queue_num * sizeof(uint16_t));
	memcpy(key, d->key, sizeof(key));
	d->queue_num = fp->plan.queue_num;
	memcpy(d->queues, fp->plan.queues,
	       fp->plan.queue_num * sizeof(uint16_t));
	memcpy(d->key, fp->plan.rss_key, VSTEER_RSS_KEY_LEN);
	d->rss_types = fp->plan.rss_types;
	ret = vsteer_rss_dest_reapply(dev, fp, d, error);
	if (ret == 0)
		return 0;
	/* Back as it was: what worked before works again. */
	d->queue_num = queue_num;
	memcpy(d->queues, queues, queue_num * sizeof(uint16_t));
	memcpy(d->key, key, sizeof(key));
	d->rss_types = types;
	if (vsteer_rss_dest_reapply(dev, fp, d, &ignored) != 0)
		FLOW_LOG(ERR,
			 "port %u: indirect RSS: a rule could not be made again after a failed update: %s",
			 dev->data->port_id,
			 ignored.message ? ignored.message : "");
	return ret;
}

static struct rte_flow_action_handle *
vsteer_action_handle_create_op(struct rte_eth_dev *dev,
			       const struct rte_flow_indir_action_conf *conf,
			       const struct rte_flow_action *action,
			       struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct rte_flow_action_handle *h;
	int err;

	vsteer_ctl_lock(priv);
	h = vsteer_action_handle_create(dev, conf, action, error);
	err = rte_errno;
	vsteer_ctl_unlock(priv);
	if (h == NULL)
		rte_errno = err;
	return h;
}

static int
vsteer_action_handle_destroy(struct rte_eth_dev *dev,
			     struct rte_flow_action_handle *handle,
			     struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp;
	int ret = 0;

	vsteer_ctl_lock(priv);
	fp = priv->flow_priv;
	if (!vsteer_handle_known(fp, handle)) {
		ret = vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE,
				      handle, "no such indirect action");
	} else if (handle->refcnt > 0) {
		ret = vsteer_flow_err(error, EBUSY, RTE_FLOW_ERROR_TYPE_HANDLE,
				      handle,
				      "indirect %s still used by %u flow(s)",
				      handle->kind == VSTEER_HANDLE_RSS ?
					      "RSS" :
					      "COUNT",
				      handle->refcnt);
	} else {
		vsteer_action_handle_free(dev, fp, handle);
	}
	vsteer_ctl_unlock(priv);
	return ret;
}

static int
vsteer_action_handle_query(struct rte_eth_dev *dev,
			   const struct rte_flow_action_handle *handle,
			   void *data, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct rte_flow_action_handle *h;
	int ret;

	vsteer_ctl_lock(priv);
	if (!vsteer_handle_known(priv->flow_priv, handle)) {
		ret = vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE,
				      handle, "no such indirect action");
	} else if (handle->kind == VSTEER_HANDLE_RSS) {
		ret = vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_HANDLE, handle,
			"an indirect RSS action has nothing to query");
	} else {
		h = (struct rte_flow_action_handle *)(uintptr_t)handle;
		ret = vsteer_count_query(priv, &h->cnt, data, handle, error);
	}
	vsteer_ctl_unlock(priv);
	return ret;
}

static int
vsteer_action_handle_update(struct rte_eth_dev *dev,
			    struct rte_flow_action_handle *handle,
			    const void *update, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	vsteer_ctl_lock(priv);
	if (!vsteer_handle_known(priv->flow_priv, handle))
		ret = vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_HANDLE,
				      handle, "no such indirect action");
	else if (handle->kind != VSTEER_HANDLE_RSS)
		ret = vsteer_flow_err(error, ENOTSUP,
				      RTE_FLOW_ERROR_TYPE_HANDLE, handle,
				      "an indirect COUNT cannot be updated");
	else
		ret = vsteer_rss_handle_update(dev, priv->flow_priv, handle,
					       update, error);
	vsteer_ctl_unlock(priv);
	return ret;
}

const struct rte_flow_ops vsteer_flow_ops = {
	.validate = vsteer_flow_validate,
	.create = vsteer_flow_create_op,
	.destroy = vsteer_flow_destroy,
	.flush = vsteer_flow_flush_op,
	.query = vsteer_flow_query_op,
	.isolate = vsteer_flow_isolate,
	.dev_dump = vsteer_flow_dev_dump_op,
	.action_handle_create = vsteer_action_handle_create_op,
	.action_handle_destroy = vsteer_action_handle_destroy,
	.action_handle_query = vsteer_action_handle_query,
	.action_handle_update = vsteer_action_handle_update,
	.get_aged_flows = vsteer_flow_get_aged_op,
};

/* --- lifecycle hooks (vsteer.h) --- */

int
vsteer_flow_start(struct rte_eth_dev *dev)
{
	struct vsteer_flow_priv *fp = vsteer_priv(dev)->flow_priv;
	uint32_t shrunk = 0, parked = 0;
	struct rte_flow_error error;
	struct vsteer_flow *flow;
	int ret;

	VSTEER_CTL_HELD(vsteer_priv(dev));
	if (fp == NULL)
		return 0;
	TAILQ_FOREACH(flow, &fp->flows, next) {
		if (flow->dest != NULL) {
			ret = (int)vsteer_dest_live_queues(dev, flow->dest,
							   NULL);
			if (ret == 0) {
				parked++;
				continue;
			}
			if ((uint32_t)ret < flow->dest->queue_num)
				shrunk++;
		}
		memset(&error, 0, sizeof(error));
		ret = vsteer_flow_apply(dev, flow, &error);
		if (ret != 0) {
			ret = rte_errno;
			FLOW_LOG(ERR, "port %u: cannot re-apply flow %p: %s",
				 dev->data->port_id,
				 (void *)vsteer_flow_handle(flow),
				 error.message ? error.message : "");
			vsteer_flow_stop(dev);
			return -ret;
		}
	}
	if (shrunk != 0 || parked != 0)
		FLOW_LOG(NOTICE,
			 "port %u: %u kept rules list Rx queues beyond the %u configured: %u go to the listed queues left, %u are not applied (none left) until the queues come back",
			 dev->data->port_id, shrunk + parked,
			 dev->data->nb_rx_queues, shrunk, parked);
	return 0;
}

void
vsteer_flow_stop(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;
	struct vsteer_flow *flow;
	struct vsteer_dest *d;

	VSTEER_CTL_HELD(priv);
	if (fp == NULL)
		return;
	TAILQ_FOREACH(flow, &fp->flows, next)
		vsteer_flow_remove(dev, flow);
	/* The contexts go with the queues' WQs. */
	TAILQ_FOREACH(d, &fp->dests, next)
		vsteer_dest_unref_rss(dev, d);
	vsteer_sink_destroy(priv, &fp->sink);
}

void
vsteer_flow_close(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;
	struct rte_flow_action_handle *h;

	VSTEER_CTL_HELD(priv);
	if (fp == NULL)
		return;
	vsteer_flow_flush(dev);
	while ((h = TAILQ_FIRST(&fp->handles)) != NULL)
		vsteer_action_handle_free(dev, fp, h);
	vsteer_sink_destroy(priv, &fp->sink);
	if (!TAILQ_EMPTY(&fp->tmpls) || !TAILQ_EMPTY(&fp->dests) ||
	    !TAILQ_EMPTY(&fp->edobjs) || fp->pool.used != 0)
		FLOW_LOG(ERR,
			 "port %u: matcher templates, destinations, flow actions or flows left at close",
			 dev->data->port_id);
	vsteer_pool_fini(&fp->pool);
	rte_free(fp);
	priv->flow_priv = NULL;
}

/* --- secondary processes --- */

/*
 * Rules live in the primary process: its device objects and lists are
 * out of a secondary's reach. Every op says so (E_RTE_SECONDARY, "Invalid
 * call in secondary process").
 */
static int
vsteer_flow_secondary_err(struct rte_flow_error *error)
{
	return vsteer_flow_err(error, E_RTE_SECONDARY,
			       RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
			       "flow rules are managed by the primary process");
}

static int
vsteer_flow_validate_secondary(struct rte_eth_dev *dev,
			       const struct rte_flow_attr *attr,
			       const struct rte_flow_item pattern[],
			       const struct rte_flow_action actions[],
			       struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(attr);
	RTE_SET_USED(pattern);
	RTE_SET_USED(actions);
	return vsteer_flow_secondary_err(error);
}

static struct rte_flow *
vsteer_flow_create_secondary(struct rte_eth_dev *dev,
			     const struct rte_flow_attr *attr,
			     const struct rte_flow_item pattern[],
			     const struct rte_flow_action actions[],
			     struct rte_flow_error *error)
{
	vsteer_flow_validate_secondary(dev, attr, pattern, actions, error);
	return NULL;
}

static int
vsteer_flow_destroy_secondary(struct rte_eth_dev *dev, struct rte_flow *flow,
			      struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(flow);
	return vsteer_flow_secondary_err(error);
}

static int
vsteer_flow_flush_secondary(struct rte_eth_dev *dev,
			    struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	return vsteer_flow_secondary_err(error);
}

static int
vsteer_flow_query_secondary(struct rte_eth_dev *dev, struct rte_flow *flow,
			    const struct rte_flow_action *action, void *data,
			    struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(flow);
	RTE_SET_USED(action);
	RTE_SET_USED(data);
	return vsteer_flow_secondary_err(error);
}

static int
vsteer_flow_isolate_secondary(struct rte_eth_dev *dev, int enable,
			      struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(enable);
	return vsteer_flow_secondary_err(error);
}

static int
vsteer_flow_dev_dump_secondary(struct rte_eth_dev *dev, struct rte_flow *flow,
			       FILE *file, struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(flow);
	RTE_SET_USED(file);
	return vsteer_flow_secondary_err(error);
}

static int
vsteer_action_handle_update_secondary(struct rte_eth_dev *dev,
				      struct rte_flow_action_handle *handle,
				      const void *update,
				      struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(handle);
	RTE_SET_USED(update);
	return vsteer_flow_secondary_err(error);
}

static int
vsteer_flow_get_aged_secondary(struct rte_eth_dev *dev, void **contexts,
			       uint32_t nb_contexts,
			       struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(contexts);
	RTE_SET_USED(nb_contexts);
	return vsteer_flow_secondary_err(error);
}

static struct rte_flow_action_handle *
vsteer_action_handle_create_secondary(
	struct rte_eth_dev *dev, const struct rte_flow_indir_action_conf *conf,
	const struct rte_flow_action *action, struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(conf);
	RTE_SET_USED(action);
	vsteer_flow_secondary_err(error);
	return NULL;
}

static int
vsteer_action_handle_destroy_secondary(struct rte_eth_dev *dev,
				       struct rte_flow_action_handle *handle,
				       struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(handle);
	return vsteer_flow_secondary_err(error);
}

static int
vsteer_action_handle_query_secondary(struct rte_eth_dev *dev,
				     const struct rte_flow_action_handle *handle,
				     void *data, struct rte_flow_error *error)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(handle);
	RTE_SET_USED(data);
	return vsteer_flow_secondary_err(error);
}

const struct rte_flow_ops vsteer_flow_ops_secondary = {
	.validate = vsteer_flow_validate_secondary,
	.create = vsteer_flow_create_secondary,
	.destroy = vsteer_flow_destroy_secondary,
	.flush = vsteer_flow_flush_secondary,
	.query = vsteer_flow_query_secondary,
	.isolate = vsteer_flow_isolate_secondary,
	.dev_dump = vsteer_flow_dev_dump_secondary,
	.action_handle_create = vsteer_action_handle_create_secondary,
	.action_handle_destroy = vsteer_action_handle_destroy_secondary,
	.action_handle_query = vsteer_action_handle_query_secondary,
	.action_handle_update = vsteer_action_handle_update_secondary,
	.get_aged_flows = vsteer_flow_get_aged_secondary,
};
