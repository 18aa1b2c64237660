/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * rte_flow operations.
 *
 * A flow is translated once, when it is validated or created (the same
 * walk for both, so they cannot disagree), into a plan: verbs rules from
 * vsteer_flow_verbs.c and, for the matcher engine, a PRM match from
 * vsteer_flow_dv.c. The plan is kept; applying it makes the device
 * objects (ibv_flow, RSS contexts, matchers) and removing it destroys them.
 * Flows are applied while the port runs and removed at stop, so they
 * survive stop/start (RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP) and may be created
 * before the first start. Counter objects live as long as the flow (or the
 * indirect action), so counts survive a restart too.
 *
 * Engine choice per flow: flow_engine=verbs always uses ibv_create_flow;
 * flow_engine=dv uses mlx5dv_create_flow for every flow and refuses what a
 * matcher cannot express; auto (on mlx5dv devices) uses the matcher path
 * for flows with DROP, MARK, FLAG or COUNT, as the design asks, and verbs
 * for the rest and for what a matcher cannot express (RSS expansion,
 * PASSTHRU, egress).
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_flow_driver.h>
#include <rte_malloc.h>

#include "vsteer.h"
#include "vsteer_flow_dv.h"

/* Counter indexes of a verbs counters object (static attach). */
#define VSTEER_CNT_PACKETS 0
#define VSTEER_CNT_BYTES 1

/* A counter: a verbs ibv_counters object and/or a DevX flow counter. A
 * flow's own counter has one of them; an indirect COUNT action gets each
 * kind the first time a flow of that engine uses it, and reports the sum.
 * Hardware counters only grow: reset is a stored base. */
struct vsteer_count {
	struct ibv_counters *cs;
	struct mlx5dv_devx_obj *devx;
	uint32_t devx_id;
	uint64_t base_hits;
	uint64_t base_bytes;
};

struct rte_flow_action_handle {
	TAILQ_ENTRY(rte_flow_action_handle) next;
	uint32_t refcnt; /* flows using it */
	struct vsteer_count cnt;
};

/* An mlx5dv matcher shared by flows with equal mask and priority. */
struct vsteer_matcher {
	TAILQ_ENTRY(vsteer_matcher) next;
	uint32_t refcnt;
	uint16_t priority;
	uint32_t hash;
	struct vsteer_dv_match match; /* mask and criteria (value unused) */
	struct mlx5dv_flow_matcher *obj;
};

struct rte_flow {
	TAILQ_ENTRY(rte_flow) next;
	enum vsteer_flow_engine engine;
	struct vsteer_flow_plan *plan;
	struct vsteer_dv_match *dvm; /* matcher engine only */
	uint16_t dv_prio;	     /* matcher priority, with dvm */
	struct vsteer_count *cnt;    /* own counter, or the handle's */
	struct rte_flow_action_handle *handle;
	struct vsteer_count own_cnt;
	/* Applied state. */
	uint32_t applied; /* verbs rules made */
	struct ibv_flow *ibv[VSTEER_MAX_EXPAND];
	struct vsteer_rss *rss[VSTEER_MAX_EXPAND];
	struct vsteer_matcher *matcher;
};

TAILQ_HEAD(vsteer_flow_list, rte_flow);
TAILQ_HEAD(vsteer_handle_list, rte_flow_action_handle);
TAILQ_HEAD(vsteer_matcher_list, vsteer_matcher);

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
	struct vsteer_flow_list flows;
	struct vsteer_handle_list handles;
	struct vsteer_matcher_list matchers;
	struct vsteer_sink sink;
};

static struct vsteer_flow_priv *
vsteer_fpriv(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;

	if (fp != NULL)
		return fp;
	fp = rte_zmalloc("vsteer_flow_priv", sizeof(*fp), 0);
	if (fp == NULL)
		return NULL;
	TAILQ_INIT(&fp->flows);
	TAILQ_INIT(&fp->handles);
	TAILQ_INIT(&fp->matchers);
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

/* Raw totals of both kinds. Returns 0 or a positive errno, naming the
 * failing call in *what. */
static int
vsteer_count_read(struct vsteer_priv *priv, const struct vsteer_count *c,
		  uint64_t *hits, uint64_t *bytes, const char **what)
{
	*hits = 0;
	*bytes = 0;
	if (c->cs != NULL) {
		uint64_t v[2] = { 0, 0 };
		int ret =
			ibv_read_counters(c->cs, v, RTE_DIM(v),
					  IBV_READ_COUNTERS_ATTR_PREFER_CACHED);

		if (ret != 0) {
			*what = "ibv_read_counters";
			return ret;
		}
		*hits += v[VSTEER_CNT_PACKETS];
		*bytes += v[VSTEER_CNT_BYTES];
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

/* --- matchers --- */

static struct vsteer_matcher *
vsteer_matcher_get(struct vsteer_priv *priv, struct vsteer_flow_priv *fp,
		   const struct vsteer_dv_match *m, uint16_t prio)
{
	uint32_t hash = vsteer_flow_dv_matcher_hash(m, prio);
	struct mlx5dv_flow_matcher_attr attr = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.flags = 0,
		.priority = prio,
		.match_criteria_enable = m->criteria,
	};
	struct vsteer_matcher *mt;

	TAILQ_FOREACH(mt, &fp->matchers, next) {
		if (mt->hash == hash &&
		    vsteer_flow_dv_matcher_equal(&mt->match, mt->priority, m,
						 prio)) {
			mt->refcnt++;
			return mt;
		}
	}
	mt = rte_zmalloc("vsteer_matcher", sizeof(*mt), 0);
	if (mt == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mt->match = *m;
	memset(&mt->match.value, 0, sizeof(mt->match.value));
	mt->priority = prio;
	mt->hash = hash;
	attr.match_mask = vsteer_dv_params(&mt->match.mask);
	mt->obj = priv->glue->dv_create_flow_matcher(priv->ctx, &attr);
	if (mt->obj == NULL) {
		int err = errno ? errno : ENOMEM;

		rte_free(mt);
		errno = err;
		return NULL;
	}
	mt->refcnt = 1;
	TAILQ_INSERT_TAIL(&fp->matchers, mt, next);
	return mt;
}

static void
vsteer_matcher_put(struct vsteer_priv *priv, struct vsteer_flow_priv *fp,
		   struct vsteer_matcher *mt)
{
	int ret;

	if (--mt->refcnt > 0)
		return;
	TAILQ_REMOVE(&fp->matchers, mt, next);
	ret = priv->glue->dv_destroy_flow_matcher(mt->obj);
	if (ret != 0)
		FLOW_LOG(ERR, "mlx5dv_destroy_flow_matcher: %s", strerror(ret));
	rte_free(mt);
}

/* --- translation --- */

static bool
vsteer_plan_dv_expressible(const struct vsteer_flow_plan *plan)
{
	return plan->ingress && plan->n_rules == 1 &&
	       (plan->fate == VSTEER_FATE_QUEUE ||
		plan->fate == VSTEER_FATE_RSS ||
		plan->fate == VSTEER_FATE_DROP);
}

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
vsteer_flow_check_handles(struct rte_eth_dev *dev,
			  const struct rte_flow_action actions[],
			  struct rte_flow_error *error)
{
	const struct rte_flow_action *a;

	for (a = actions; a != NULL && a->type != RTE_FLOW_ACTION_TYPE_END; a++)
		if (a->type == RTE_FLOW_ACTION_TYPE_INDIRECT &&
		    !vsteer_handle_known(vsteer_priv(dev)->flow_priv, a->conf))
			return vsteer_flow_err(error, EINVAL,
					       RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					       a,
					       "unknown indirect action handle");
	return 0;
}

/*
 * The one walk validate and create share: translate to verbs (this checks
 * attributes, actions and the pattern), pick the engine, and for the
 * matcher engine translate the pattern to a PRM match too.
 */
static int
vsteer_flow_prepare(struct rte_eth_dev *dev, const struct rte_flow_attr *attr,
		    const struct rte_flow_item pattern[],
		    const struct rte_flow_action actions[],
		    struct rte_flow *flow, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_xlate_ctx ctx;
	struct vsteer_flow_plan *plan = flow->plan;
	bool want_dv;
	int ret;

	ret = vsteer_flow_check_handles(dev, actions, error);
	if (ret < 0)
		return ret;
	vsteer_xlate_ctx_init(dev, &ctx);
	ret = vsteer_flow_verbs_translate(&ctx, attr, pattern, actions, plan,
					  error);
	if (ret < 0)
		return ret;
	flow->engine = VSTEER_FLOW_ENGINE_VERBS;
	if (priv->flow_engine != VSTEER_FLOW_ENGINE_DV)
		return 0;
	if (priv->flow_engine_auto) {
		want_dv = vsteer_plan_dv_expressible(plan) &&
			  (plan->fate == VSTEER_FATE_DROP || plan->mark ||
			   plan->flag || plan->count ||
			   plan->count_handle != NULL);
		if (!want_dv)
			return 0;
	} else if (!vsteer_plan_dv_expressible(plan)) {
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, actions,
			"flow_engine=dv: an mlx5dv matcher takes one ingress rule with QUEUE, RSS over one hash type, or DROP");
	}
	flow->dvm = rte_zmalloc("vsteer_dv_match", sizeof(*flow->dvm), 0);
	if (flow->dvm == NULL)
		return vsteer_flow_err(error, ENOMEM,
				       RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				       "no memory for the matcher");
	ret = vsteer_flow_dv_translate(pattern, flow->dvm, error);
	if (ret < 0) {
		rte_free(flow->dvm);
		flow->dvm = NULL;
		/* Under auto the verbs rules already carry the flow. */
		if (priv->flow_engine_auto)
			return 0;
		return ret;
	}
	flow->engine = VSTEER_FLOW_ENGINE_DV;
	flow->dv_prio =
		(uint16_t)vsteer_flow_verbs_prio(&ctx, plan->rte_priority,
						 plan->rules[0].subprio);
	return 0;
}

static void
vsteer_flow_free(struct rte_flow *flow)
{
	if (flow == NULL)
		return;
	rte_free(flow->dvm);
	rte_free(flow->plan);
	rte_free(flow);
}

static struct rte_flow *
vsteer_flow_alloc(struct rte_flow_error *error)
{
	struct rte_flow *flow;

	flow = rte_zmalloc("vsteer_flow", sizeof(*flow), 0);
	if (flow != NULL)
		flow->plan =
			rte_zmalloc("vsteer_flow_plan", sizeof(*flow->plan), 0);
	if (flow == NULL || flow->plan == NULL) {
		rte_free(flow);
		vsteer_flow_err(error, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
				NULL, "no memory for the flow");
		return NULL;
	}
	return flow;
}

/* --- apply / remove --- */

static void
vsteer_flow_remove(struct rte_eth_dev *dev, struct rte_flow *flow)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;
	uint32_t i;
	int ret;

	for (i = 0; i < VSTEER_MAX_EXPAND; i++) {
		if (flow->ibv[i] != NULL) {
			ret = ibv_destroy_flow(flow->ibv[i]);
			if (ret != 0)
				FLOW_LOG(ERR, "port %u: ibv_destroy_flow: %s",
					 dev->data->port_id, strerror(ret));
			flow->ibv[i] = NULL;
		}
		if (flow->rss[i] != NULL) {
			vsteer_rss_put(dev, flow->rss[i]);
			flow->rss[i] = NULL;
		}
	}
	if (flow->matcher != NULL) {
		vsteer_matcher_put(priv, fp, flow->matcher);
		flow->matcher = NULL;
	}
	flow->applied = 0;
}

/* Destination QP of rule i: an RSS context, or the sink. */
static struct ibv_qp *
vsteer_flow_dest(struct rte_eth_dev *dev, struct rte_flow *flow, uint32_t i)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	const struct vsteer_flow_plan *plan = flow->plan;
	const struct vsteer_verbs_rule *rule = &plan->rules[i];

	switch (plan->fate) {
	case VSTEER_FATE_QUEUE:
		flow->rss[i] = vsteer_rss_get(dev, plan->rss_key, 0,
					      plan->queues, 1, 0);
		break;
	case VSTEER_FATE_RSS:
		flow->rss[i] = vsteer_rss_get(dev, plan->rss_key,
					      rule->hash_fields, plan->queues,
					      plan->queue_num, 0);
		break;
	default:
		return vsteer_sink_get(priv, priv->flow_priv);
	}
	if (flow->rss[i] == NULL) {
		errno = rte_errno ? rte_errno : ENOMEM;
		return NULL;
	}
	return flow->rss[i]->qp;
}

static uint32_t
vsteer_flow_tag(const struct vsteer_flow_plan *plan)
{
	/* 0 means "no tag" in a completion: MARK id n travels as n + 1. */
	return plan->flag ? 0xffffff : plan->mark_id + 1;
}

static int
vsteer_flow_apply_dv(struct rte_eth_dev *dev, struct rte_flow *flow,
		     struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	const struct vsteer_flow_plan *plan = flow->plan;
	struct mlx5dv_flow_action_attr act[3];
	struct ibv_qp *qp = NULL;
	size_t n = 0;
	int ret;

	if (plan->fate != VSTEER_FATE_DROP) {
		qp = vsteer_flow_dest(dev, flow, 0);
		if (qp == NULL) {
			ret = errno;
			goto error_dest;
		}
		act[n].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
		act[n].qp = qp;
		n++;
	} else {
		act[n].type = MLX5DV_FLOW_ACTION_DROP;
		n++;
	}
	if (plan->mark || plan->flag) {
		act[n].type = MLX5DV_FLOW_ACTION_TAG;
		act[n].tag_value = vsteer_flow_tag(plan);
		n++;
	}
	if (flow->cnt != NULL) {
		ret = vsteer_count_devx_make(priv, flow->cnt);
		if (ret != 0) {
			/* The destination is already held: give it back. */
			vsteer_flow_remove(dev, flow);
			return vsteer_flow_err(error, ret,
					       RTE_FLOW_ERROR_TYPE_ACTION, NULL,
					       "DevX ALLOC_FLOW_COUNTER: %s",
					       strerror(ret));
		}
		act[n].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
		act[n].obj = flow->cnt->devx;
		n++;
	}
	flow->matcher = vsteer_matcher_get(priv, priv->flow_priv, flow->dvm,
					   flow->dv_prio);
	if (flow->matcher == NULL) {
		ret = errno;
		vsteer_flow_remove(dev, flow);
		return vsteer_flow_err(error, ret, RTE_FLOW_ERROR_TYPE_HANDLE,
				       NULL, "mlx5dv_create_flow_matcher: %s",
				       strerror(ret));
	}
	flow->ibv[0] =
		priv->glue->dv_create_flow(flow->matcher->obj,
					   vsteer_dv_params(&flow->dvm->value),
					   n, act);
	if (flow->ibv[0] == NULL) {
		ret = errno ? errno : ENOMEM;
		vsteer_flow_remove(dev, flow);
		return vsteer_flow_err(error, ret, RTE_FLOW_ERROR_TYPE_HANDLE,
				       NULL, "mlx5dv_create_flow: %s",
				       strerror(ret));
	}
	flow->applied = 1;
	return 0;
error_dest:
	vsteer_flow_remove(dev, flow);
	return vsteer_flow_err(error, ret, RTE_FLOW_ERROR_TYPE_ACTION, NULL,
			       "cannot make the destination queue: %s",
			       strerror(ret));
}

static int
vsteer_flow_apply_verbs(struct rte_eth_dev *dev, struct rte_flow *flow,
			struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_plan *plan = flow->plan;
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
	for (i = 0; i < plan->n_rules; i++) {
		struct vsteer_verbs_rule *rule = &plan->rules[i];
		struct ibv_qp *qp;

		qp = vsteer_flow_dest(dev, flow, i);
		if (qp == NULL) {
			ret = errno;
			vsteer_flow_remove(dev, flow);
			return vsteer_flow_err(
				error, ret, RTE_FLOW_ERROR_TYPE_ACTION, NULL,
				"cannot make the destination queue: %s",
				strerror(ret));
		}
		if (rule->count_off != 0) {
			/* Specs may sit unaligned: copy, never dereference. */
			memcpy(rule->buf + rule->count_off +
				       offsetof(struct ibv_flow_spec_counter_action,
						counters),
			       &flow->cnt->cs, sizeof(flow->cnt->cs));
		}
		errno = 0;
		flow->ibv[i] = ibv_create_flow(qp, &rule->attr);
		if (flow->ibv[i] == NULL) {
			ret = errno ? errno : EINVAL;
			vsteer_flow_remove(dev, flow);
			return vsteer_flow_err(
				error, ret, RTE_FLOW_ERROR_TYPE_HANDLE, NULL,
				"ibv_create_flow (verbs rule %u of %u, priority %u): %s",
				i + 1, plan->n_rules, rule->attr.priority,
				strerror(ret));
		}
		flow->applied = i + 1;
	}
	return 0;
}

static int
vsteer_flow_apply(struct rte_eth_dev *dev, struct rte_flow *flow,
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
	struct rte_flow *flow = vsteer_flow_alloc(error);
	int ret;

	if (flow == NULL)
		return -ENOMEM;
	ret = vsteer_flow_prepare(dev, attr, pattern, actions, flow, error);
	vsteer_flow_free(flow);
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
	struct rte_flow *flow;
	int ret;

	if (fp == NULL) {
		vsteer_flow_err(error, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
				NULL, "no memory for flow state");
		return NULL;
	}
	flow = vsteer_flow_alloc(error);
	if (flow == NULL)
		return NULL;
	ret = vsteer_flow_prepare(dev, attr, pattern, actions, flow, error);
	if (ret < 0)
		goto error;
	if (flow->plan->count_handle != NULL) {
		flow->handle = (struct rte_flow_action_handle *)(uintptr_t)
				       flow->plan->count_handle;
		flow->cnt = &flow->handle->cnt;
	} else if (flow->plan->count) {
		flow->cnt = &flow->own_cnt;
	}
	if (priv->started) {
		ret = vsteer_flow_apply(dev, flow, error);
		if (ret != 0) {
			ret = -rte_errno;
			goto error;
		}
	}
	if (flow->handle != NULL)
		flow->handle->refcnt++;
	TAILQ_INSERT_TAIL(&fp->flows, flow, next);
	FLOW_LOG(DEBUG, "port %u: flow %p created (%s, %u rule(s))",
		 dev->data->port_id, (void *)flow,
		 flow->engine == VSTEER_FLOW_ENGINE_DV ? "mlx5dv" : "verbs",
		 flow->plan->n_rules);
	return flow;
error:
	if (flow->cnt == &flow->own_cnt)
		vsteer_count_release(priv, &flow->own_cnt);
	vsteer_flow_free(flow);
	rte_errno = -ret;
	return NULL;
}

static bool
vsteer_flow_known(struct vsteer_flow_priv *fp, const struct rte_flow *flow)
{
	const struct rte_flow *f;

	if (fp == NULL)
		return false;
	TAILQ_FOREACH(f, &fp->flows, next)
		if (f == flow)
			return true;
	return false;
}

static void
vsteer_flow_destroy_one(struct rte_eth_dev *dev, struct rte_flow *flow)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;

	vsteer_flow_remove(dev, flow);
	TAILQ_REMOVE(&fp->flows, flow, next);
	if (flow->handle != NULL)
		flow->handle->refcnt--;
	else if (flow->cnt != NULL)
		vsteer_count_release(priv, flow->cnt);
	vsteer_flow_free(flow);
}

static int
vsteer_flow_destroy(struct rte_eth_dev *dev, struct rte_flow *flow,
		    struct rte_flow_error *error)
{
	struct vsteer_flow_priv *fp = vsteer_priv(dev)->flow_priv;

	if (!vsteer_flow_known(fp, flow))
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_HANDLE, flow,
				       "no such flow on port %u",
				       dev->data->port_id);
	vsteer_flow_destroy_one(dev, flow);
	return 0;
}

static int
vsteer_flow_flush(struct rte_eth_dev *dev, struct rte_flow_error *error)
{
	struct vsteer_flow_priv *fp = vsteer_priv(dev)->flow_priv;

	RTE_SET_USED(error);
	if (fp == NULL)
		return 0;
	while (!TAILQ_EMPTY(&fp->flows))
		vsteer_flow_destroy_one(dev, TAILQ_FIRST(&fp->flows));
	return 0;
}

static int
vsteer_flow_query(struct rte_eth_dev *dev, struct rte_flow *flow,
		  const struct rte_flow_action *action, void *data,
		  struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	if (!vsteer_flow_known(priv->flow_priv, flow))
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_HANDLE, flow,
				       "no such flow on port %u",
				       dev->data->port_id);
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
		default:
			return vsteer_flow_err(error, ENOTSUP,
					       RTE_FLOW_ERROR_TYPE_ACTION,
					       action,
					       "only COUNT can be queried");
		}
	}
	return vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, NULL,
			       "no action to query");
}

static int
vsteer_flow_isolate(struct rte_eth_dev *dev, int enable,
		    struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint32_t old = priv->isolated;
	int ret;

	priv->isolated = !!enable;
	ret = vsteer_defflow_sync(dev);
	if (ret < 0) {
		priv->isolated = old;
		vsteer_defflow_sync(dev);
		return vsteer_flow_err(error, -ret,
				       RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				       "cannot %s isolated mode: %s",
				       enable ? "enter" : "leave",
				       strerror(-ret));
	}
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

static void
vsteer_flow_dump_one(const struct rte_flow *flow, FILE *f)
{
	const struct vsteer_flow_plan *plan = flow->plan;
	uint32_t i;

	fprintf(f, "flow %p: %s, priority %u, engine %s, %s\n",
		(const void *)flow, plan->egress ? "egress" : "ingress",
		plan->rte_priority,
		flow->engine == VSTEER_FLOW_ENGINE_DV ? "mlx5dv" : "verbs",
		flow->applied ? "applied" : "kept (port stopped)");
	fprintf(f, "  fate %s", vsteer_fate_name(plan->fate));
	if (plan->fate == VSTEER_FATE_QUEUE || plan->fate == VSTEER_FATE_RSS) {
		fprintf(f, " queues");
		for (i = 0; i < plan->queue_num; i++)
			fprintf(f, " %u", plan->queues[i]);
	}
	if (plan->fate == VSTEER_FATE_RSS)
		fprintf(f, " types 0x%" PRIx64 " level %u", plan->rss_types,
			plan->rss_level);
	if (plan->mark)
		fprintf(f, ", mark %u (tag 0x%06x)", plan->mark_id,
			vsteer_flow_tag(plan));
	if (plan->flag)
		fprintf(f, ", flag (tag 0xffffff)");
	if (flow->cnt != NULL)
		fprintf(f, ", count%s", flow->handle ? " (indirect)" : "");
	fprintf(f, "\n");
	if (flow->engine == VSTEER_FLOW_ENGINE_DV) {
		fprintf(f, "  mlx5dv matcher priority %u, criteria 0x%02x\n",
			flow->dv_prio, flow->dvm->criteria);
		vsteer_flow_dv_dump(f, flow->dvm);
		return;
	}
	for (i = 0; i < plan->n_rules; i++) {
		fprintf(f, "  verbs rule %u of %u, hash fields 0x%" PRIx64 "\n",
			i + 1, plan->n_rules, plan->rules[i].hash_fields);
		vsteer_flow_verbs_dump(f, &plan->rules[i]);
	}
}

static int
vsteer_flow_dev_dump(struct rte_eth_dev *dev, struct rte_flow *flow, FILE *file,
		     struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;
	const struct vsteer_defflow *df;
	const struct rte_flow *f;

	if (flow != NULL) {
		if (!vsteer_flow_known(fp, flow))
			return vsteer_flow_err(error, EINVAL,
					       RTE_FLOW_ERROR_TYPE_HANDLE, flow,
					       "no such flow on port %u",
					       dev->data->port_id);
		vsteer_flow_dump_one(flow, file);
		return 0;
	}
	fprintf(file, "port %u: %s device %s, flow engine %s%s%s\n",
		dev->data->port_id, priv->glue->name, priv->ibdev_name,
		priv->flow_engine == VSTEER_FLOW_ENGINE_DV ? "mlx5dv" : "verbs",
		priv->flow_engine_auto ? " (auto)" : "",
		priv->isolated ? ", isolated" : "");
	if (fp != NULL)
		TAILQ_FOREACH(f, &fp->flows, next)
			vsteer_flow_dump_one(f, file);
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

/* --- indirect COUNT actions --- */

static struct rte_flow_action_handle *
vsteer_action_handle_create(struct rte_eth_dev *dev,
			    const struct rte_flow_indir_action_conf *conf,
			    const struct rte_flow_action *action,
			    struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = vsteer_fpriv(dev);
	struct rte_flow_action_handle *h;

	if (fp == NULL) {
		vsteer_flow_err(error, ENOMEM, RTE_FLOW_ERROR_TYPE_UNSPECIFIED,
				NULL, "no memory for flow state");
		return NULL;
	}
	if (action->type != RTE_FLOW_ACTION_TYPE_COUNT) {
		vsteer_flow_err(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION,
				action, "only COUNT can be an indirect action");
		return NULL;
	}
	if (conf->transfer) {
		vsteer_flow_err(error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, NULL,
				"transfer is not supported");
		return NULL;
	}
	if (!priv->count_ok) {
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
	TAILQ_INSERT_TAIL(&fp->handles, h, next);
	return h;
}

static int
vsteer_action_handle_destroy(struct rte_eth_dev *dev,
			     struct rte_flow_action_handle *handle,
			     struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;

	if (!vsteer_handle_known(fp, handle))
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_HANDLE, handle,
				       "no such indirect action");
	if (handle->refcnt > 0)
		return vsteer_flow_err(error, EBUSY, RTE_FLOW_ERROR_TYPE_HANDLE,
				       handle,
				       "indirect COUNT still used by %u flow(s)",
				       handle->refcnt);
	TAILQ_REMOVE(&fp->handles, handle, next);
	vsteer_count_release(priv, &handle->cnt);
	rte_free(handle);
	return 0;
}

static int
vsteer_action_handle_query(struct rte_eth_dev *dev,
			   const struct rte_flow_action_handle *handle,
			   void *data, struct rte_flow_error *error)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct rte_flow_action_handle *h;

	if (!vsteer_handle_known(priv->flow_priv, handle))
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_HANDLE, handle,
				       "no such indirect action");
	h = (struct rte_flow_action_handle *)(uintptr_t)handle;
	return vsteer_count_query(priv, &h->cnt, data, handle, error);
}

const struct rte_flow_ops vsteer_flow_ops = {
	.validate = vsteer_flow_validate,
	.create = vsteer_flow_create,
	.destroy = vsteer_flow_destroy,
	.flush = vsteer_flow_flush,
	.query = vsteer_flow_query,
	.isolate = vsteer_flow_isolate,
	.dev_dump = vsteer_flow_dev_dump,
	.action_handle_create = vsteer_action_handle_create,
	.action_handle_destroy = vsteer_action_handle_destroy,
	.action_handle_query = vsteer_action_handle_query,
};

/* --- lifecycle hooks (vsteer.h) --- */

int
vsteer_flow_start(struct rte_eth_dev *dev)
{
	struct vsteer_flow_priv *fp = vsteer_priv(dev)->flow_priv;
	struct rte_flow_error error;
	struct rte_flow *flow;
	int ret;

	if (fp == NULL)
		return 0;
	TAILQ_FOREACH(flow, &fp->flows, next) {
		ret = vsteer_flow_apply(dev, flow, &error);
		if (ret != 0) {
			ret = rte_errno;
			FLOW_LOG(ERR, "port %u: cannot re-apply flow %p: %s",
				 dev->data->port_id, (void *)flow,
				 error.message ? error.message : "");
			vsteer_flow_stop(dev);
			return -ret;
		}
	}
	return 0;
}

void
vsteer_flow_stop(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;
	struct rte_flow *flow;

	if (fp == NULL)
		return;
	TAILQ_FOREACH(flow, &fp->flows, next)
		vsteer_flow_remove(dev, flow);
	vsteer_sink_destroy(priv, &fp->sink);
}

void
vsteer_flow_close(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_flow_priv *fp = priv->flow_priv;
	struct rte_flow_action_handle *h;

	if (fp == NULL)
		return;
	vsteer_flow_flush(dev, NULL);
	while ((h = TAILQ_FIRST(&fp->handles)) != NULL) {
		TAILQ_REMOVE(&fp->handles, h, next);
		vsteer_count_release(priv, &h->cnt);
		rte_free(h);
	}
	vsteer_sink_destroy(priv, &fp->sink);
	if (!TAILQ_EMPTY(&fp->matchers))
		FLOW_LOG(ERR, "port %u: matchers left at close",
			 dev->data->port_id);
	rte_free(fp);
	priv->flow_priv = NULL;
}
