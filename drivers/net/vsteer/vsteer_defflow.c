/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Default flows: what the port receives without rte_flow rules. As on
 * mlx5, they are NORMAL verbs rules at the lowest priority level, which is
 * reserved for them:
 *   promiscuous     ETH with an empty mask (everything);
 *   all-multicast   ETH dst 01:00:00:00:00:00/01:00:00:00:00:00;
 *   otherwise       broadcast, IPv6 multicast 33:33:xx and the multicast
 *                   list, each an exact dst match;
 *   always          one rule per unicast MAC address of the port.
 * With the VLAN_FILTER Rx offload, the exact-match rules (broadcast, IPv6
 * multicast, the multicast list, the MACs) exist once per allowed VLAN ID
 * and match its tag, mlx4's scheme (mlx4_flow_internal): untagged frames
 * and other VLANs find no rule; promiscuous and all-multicast rules stay
 * as they are. Each is an rte_flow (ETH and VLAN items, RSS action with
 * the port's key, types and RETA) expanded by the translator into L4/L3/L2
 * rules with their own hash fields. Rules without hash fields (non-IP traffic) go to the first
 * RETA queue. A sync computes the wanted set, keeps the rules already
 * installed, removes the stale ones and installs the new ones. Every
 * caller holds the port's control lock (vsteer.h).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_tailq.h>

#include "vsteer.h"

/* One wanted default flow, before it is matched against installed ones. */
struct vsteer_defflow_want {
	struct vsteer_rss *rss;
	struct vsteer_defflow *have; /* installed twin, if any */
	const struct vsteer_verbs_rule *rule;
	uint16_t must; /* failure is an error, not a warning */
};

struct vsteer_defflow_set {
	/* Shared by every default flow of one sync. */
	struct vsteer_xlate_ctx ctx;
	uint16_t queues[RTE_MAX_QUEUES_PER_PORT]; /* distinct RETA queues */
	uint32_t queues_n;
	struct vsteer_defflow_want *want;
	struct vsteer_flow_plan *plans;
	uint32_t n_want;
	uint32_t n_plans;
	uint32_t cap_plans;
};

/* Broadcast address, and the full mask. */
static const struct rte_ether_addr vsteer_full = {
	.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
};
static const struct rte_ether_addr vsteer_mcast_bit = {
	.addr_bytes = { 0x01, 0x00, 0x00, 0x00, 0x00, 0x00 }
};
static const struct rte_ether_addr vsteer_ipv6mc = {
	.addr_bytes = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x00 }
};
static const struct rte_ether_addr vsteer_ipv6mc_mask = {
	.addr_bytes = { 0xff, 0xff, 0x00, 0x00, 0x00, 0x00 }
};

static void
vsteer_defflow_destroy(struct rte_eth_dev *dev, struct vsteer_defflow *df)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	if (df->flow != NULL) {
		ret = ibv_destroy_flow(df->flow);
		if (ret != 0)
			FLOW_LOG(ERR, "port %u: destroy default flow: %s",
				 dev->data->port_id, strerror(ret));
	}
	vsteer_rss_put(dev, df->rss);
	TAILQ_REMOVE(&priv->defflows, df, next);
	free(df->attr);
	free(df);
}

void
vsteer_defflow_remove(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_defflow *df;

	VSTEER_CTL_HELD(priv);
	while ((df = TAILQ_FIRST(&priv->defflows)) != NULL)
		vsteer_defflow_destroy(dev, df);
}

/* Distinct queues of the RETA, in order of first appearance. */
static uint32_t
vsteer_reta_queues(const struct vsteer_priv *priv, uint16_t *queues,
		   uint16_t nb_rxq)
{
	uint8_t seen[RTE_MAX_QUEUES_PER_PORT];
	uint32_t i, n = 0;

	memset(seen, 0, sizeof(seen));
	for (i = 0; i < priv->reta_size; i++) {
		uint16_t q = priv->reta[i];

		if (q >= nb_rxq || seen[q])
			continue;
		seen[q] = 1;
		queues[n++] = q;
	}
	return n;
}

/* Translate one ETH dst/mask default flow, for VLAN vid when not NULL,
 * into the next plan slot. */
static int
vsteer_defflow_plan_vid(struct rte_eth_dev *dev, struct vsteer_defflow_set *set,
			const struct rte_ether_addr *dst,
			const struct rte_ether_addr *mask, const uint16_t *vid,
			uint16_t must)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct rte_flow_item_vlan vspec, vmask;
	struct rte_flow_item_eth spec, emask;
	struct rte_flow_action_rss rss;
	struct rte_flow_action_queue queue;
	struct rte_flow_attr attr;
	struct rte_flow_error error;
	struct rte_flow_item pattern[3];
	struct rte_flow_action actions[2];
	struct vsteer_flow_plan *plan;
	uint32_t i;
	int ret;

	if (set->n_plans == set->cap_plans)
		return -ENOSPC;
	plan = &set->plans[set->n_plans];
	memset(&attr, 0, sizeof(attr));
	attr.ingress = 1;
	attr.priority = vsteer_flow_user_levels(&set->ctx);
	memset(&spec, 0, sizeof(spec));
	memset(&emask, 0, sizeof(emask));
	spec.hdr.dst_addr = *dst;
	emask.hdr.dst_addr = *mask;
	for (i = 0; i < RTE_ETHER_ADDR_LEN; i++)
		spec.hdr.dst_addr.addr_bytes[i] &= mask->addr_bytes[i];
	memset(pattern, 0, sizeof(pattern));
	pattern[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	pattern[0].spec = &spec;
	pattern[0].mask = &emask;
	pattern[1].type = RTE_FLOW_ITEM_TYPE_END;
	if (vid != NULL) {
		/* The VLAN ID; priority and DEI bits may be anything. */
		memset(&vspec, 0, sizeof(vspec));
		memset(&vmask, 0, sizeof(vmask));
		vspec.hdr.vlan_tci = rte_cpu_to_be_16(*vid);
		vmask.hdr.vlan_tci = RTE_BE16(RTE_ETHER_MAX_VLAN_ID);
		pattern[1].type = RTE_FLOW_ITEM_TYPE_VLAN;
		pattern[1].spec = &vspec;
		pattern[1].mask = &vmask;
		pattern[2].type = RTE_FLOW_ITEM_TYPE_END;
	}
	memset(actions, 0, sizeof(actions));
	if (priv->rss_hf != 0) {
		memset(&rss, 0, sizeof(rss));
		rss.func = RTE_ETH_HASH_FUNCTION_DEFAULT;
		rss.level = 0;
		rss.types = priv->rss_hf;
		rss.key_len = VSTEER_RSS_KEY_LEN;
		rss.key = priv->rss_key;
		rss.queue_num = set->queues_n;
		rss.queue = set->queues;
		actions[0].type = RTE_FLOW_ACTION_TYPE_RSS;
		actions[0].conf = &rss;
	} else {
		/* No hashing: everything to the first RETA queue. */
		queue.index = priv->reta[0];
		actions[0].type = RTE_FLOW_ACTION_TYPE_QUEUE;
		actions[0].conf = &queue;
	}
	actions[1].type = RTE_FLOW_ACTION_TYPE_END;
	memset(&error, 0, sizeof(error));
	ret = vsteer_flow_verbs_translate(&set->ctx, &attr, pattern, actions,
					  plan, &error);
	if (ret != 0) {
		FLOW_LOG(ERR,
			 "port %u: default flow for " RTE_ETHER_ADDR_PRT_FMT
			 " VLAN %d: %s: %s",
			 dev->data->port_id, RTE_ETHER_ADDR_BYTES(dst),
			 vid != NULL ? *vid : -1,
			 error.message ? error.message : "translation failed",
			 strerror(-ret));
		return must ? ret : 0;
	}
	set->n_plans++;
	for (i = 0; i < plan->n_rules; i++) {
		struct vsteer_defflow_want *w = &set->want[set->n_want++];

		w->rule = &plan->rules[i];
		w->rss = NULL;
		w->have = NULL;
		w->must = must;
	}
	return 0;
}

static int
vsteer_vlan_filtering(const struct rte_eth_dev *dev)
{
	return (dev->data->dev_conf.rxmode.offloads &
		RTE_ETH_RX_OFFLOAD_VLAN_FILTER) != 0;
}

/* An exact-match default flow: once per allowed VLAN when filtering. */
static int
vsteer_defflow_plan(struct rte_eth_dev *dev, struct vsteer_defflow_set *set,
		    const struct rte_ether_addr *dst,
		    const struct rte_ether_addr *mask, uint16_t must)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t i;
	int ret;

	if (!vsteer_vlan_filtering(dev))
		return vsteer_defflow_plan_vid(dev, set, dst, mask, NULL, must);
	for (i = 0; i < priv->vlan_n; i++) {
		ret = vsteer_defflow_plan_vid(dev, set, dst, mask,
					      &priv->vlans[i], must);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* The wanted rules for the current port state. */
static int
vsteer_defflow_want(struct rte_eth_dev *dev, struct vsteer_defflow_set *set)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	const struct rte_ether_addr zero = { .addr_bytes = { 0 } };
	uint32_t i;
	int ret;

	/* Everything, or every multicast frame, whatever its VLAN. */
	if (priv->promisc)
		return vsteer_defflow_plan_vid(dev, set, &zero, &zero, NULL, 1);
	if (priv->allmulti) {
		ret = vsteer_defflow_plan_vid(dev, set, &vsteer_mcast_bit,
					      &vsteer_mcast_bit, NULL, 1);
		if (ret != 0)
			return ret;
	} else {
		ret = vsteer_defflow_plan(dev, set, &vsteer_full, &vsteer_full,
					  1);
		if (ret != 0)
			return ret;
		/* As on mlx5, missing IPv6 multicast only warns. */
		ret = vsteer_defflow_plan(dev, set, &vsteer_ipv6mc,
					  &vsteer_ipv6mc_mask, 0);
		if (ret != 0)
			return ret;
		for (i = 0; i < priv->mc_n; i++) {
			ret = vsteer_defflow_plan(dev, set, &priv->mc[i],
						  &vsteer_full, 1);
			if (ret != 0)
				return ret;
		}
	}
	for (i = 0; i < VSTEER_MAX_MAC; i++) {
		const struct rte_ether_addr *a = &dev->data->mac_addrs[i];

		if (rte_is_zero_ether_addr(a))
			continue;
		ret = vsteer_defflow_plan(dev, set, a, &vsteer_full, 1);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* The RSS context a wanted rule sends its traffic to: the RETA itself as
 * the indirection table (vsteer_rss_get() keeps only reta[0] for a rule
 * without hash fields). */
static struct vsteer_rss *
vsteer_defflow_rss(struct rte_eth_dev *dev,
		   const struct vsteer_verbs_rule *rule)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	return vsteer_rss_get(dev, priv->rss_key, rule->hash_fields, priv->reta,
			      priv->reta_size, 0);
}

static int
vsteer_defflow_same(const struct vsteer_defflow *df,
		    const struct vsteer_defflow_want *w)
{
	return df->rss == w->rss && df->size == w->rule->size &&
	       memcmp(df->attr, w->rule->buf, df->size) == 0;
}

static int
vsteer_defflow_install(struct rte_eth_dev *dev, struct vsteer_defflow_want *w)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_defflow *df;
	int ret;

	df = calloc(1, sizeof(*df));
	if (df == NULL)
		return -ENOMEM;
	df->attr = malloc(w->rule->size);
	if (df->attr == NULL) {
		free(df);
		return -ENOMEM;
	}
	memcpy(df->attr, w->rule->buf, w->rule->size);
	df->size = w->rule->size;
	df->flow = ibv_create_flow(w->rss->qp, df->attr);
	if (df->flow == NULL) {
		ret = -(errno ? errno : EINVAL);
		free(df->attr);
		free(df);
		return ret;
	}
	df->rss = w->rss;
	w->rss = NULL; /* the reference moved to df */
	TAILQ_INSERT_TAIL(&priv->defflows, df, next);
	return 0;
}

int
vsteer_defflow_sync(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_defflow_set set;
	struct vsteer_defflow *df, *tmp;
	uint32_t i, n_mac = 0;
	int ret = 0;

	VSTEER_CTL_HELD(priv);
	if (!priv->started || priv->isolated) {
		vsteer_defflow_remove(dev);
		return 0;
	}
	if (dev->data->nb_rx_queues == 0)
		return 0;
	for (i = 0; i < VSTEER_MAX_MAC; i++)
		n_mac += !rte_is_zero_ether_addr(&dev->data->mac_addrs[i]);
	memset(&set, 0, sizeof(set));
	vsteer_xlate_ctx_init(dev, &set.ctx);
	set.ctx.internal = true;
	set.queues_n =
		vsteer_reta_queues(priv, set.queues, dev->data->nb_rx_queues);
	set.cap_plans =
		(2 + priv->mc_n + n_mac) *
		(vsteer_vlan_filtering(dev) ? RTE_MAX(priv->vlan_n, 1) : 1);
	set.plans = malloc(set.cap_plans * sizeof(*set.plans));
	set.want = calloc(set.cap_plans * VSTEER_MAX_EXPAND, sizeof(*set.want));
	if (set.plans == NULL || set.want == NULL) {
		ret = -ENOMEM;
		goto out;
	}
	ret = vsteer_defflow_want(dev, &set);
	if (ret != 0)
		goto out;
	/* Resolve destinations; pair each wanted rule with its twin. */
	TAILQ_FOREACH(df, &priv->defflows, next)
		df->keep = 0;
	for (i = 0; i < set.n_want; i++) {
		struct vsteer_defflow_want *w = &set.want[i];

		w->rss = vsteer_defflow_rss(dev, w->rule);
		if (w->rss == NULL) {
			if (w->must && ret == 0)
				ret = -rte_errno;
			continue;
		}
		TAILQ_FOREACH(df, &priv->defflows, next) {
			if (!df->keep && vsteer_defflow_same(df, w)) {
				df->keep = 1;
				w->have = df;
				break;
			}
		}
	}
	/* Stale rules go first: a new rule with the same match and another
	 * destination would collide with them. */
	RTE_TAILQ_FOREACH_SAFE(df, &priv->defflows, next, tmp)
		if (!df->keep)
			vsteer_defflow_destroy(dev, df);
	for (i = 0; i < set.n_want; i++) {
		struct vsteer_defflow_want *w = &set.want[i];
		int r;

		if (w->rss == NULL || w->have != NULL)
			continue;
		r = vsteer_defflow_install(dev, w);
		if (r == 0)
			continue;
		if (w->must) {
			FLOW_LOG(ERR, "port %u: default flow: %s",
				 dev->data->port_id, strerror(-r));
			if (ret == 0)
				ret = r;
		} else {
			FLOW_LOG(WARNING, "port %u: optional default flow: %s",
				 dev->data->port_id, strerror(-r));
		}
	}
out:
	/* Drop the references not handed to installed flows. */
	for (i = 0; set.want != NULL && i < set.n_want; i++)
		vsteer_rss_put(dev, set.want[i].rss);
	free(set.want);
	free(set.plans);
	if (ret == 0)
		FLOW_LOG(DEBUG, "port %u: default flows in sync",
			 dev->data->port_id);
	return ret;
}
