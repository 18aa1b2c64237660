/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Flow aging (RTE_FLOW_ACTION_TYPE_AGE), as DPDK 22.11's mlx5 ages the
 * rules of its root table (mlx5_flow_aging_check(), flow_dv_get_aged_flows(),
 * mlx5_age_event_prepare()):
 *
 * - every flow with an AGE action has a counter of its own; once a second
 *   (an EAL alarm, on EAL's interrupt thread) each one not aged yet is
 *   read: hits since the last check set its idle time back to 0, none add
 *   the seconds since that check, and a flow whose idle time passed its
 *   timeout is aged: it moves to the port's aged list, where it stays
 *   until it is destroyed (new hits do not bring it back);
 * - rte_flow_get_aged_flows() reports the aged flows' contexts in the
 *   order they aged;
 * - RTE_ETH_EVENT_FLOW_AGED goes out after a check that aged flows, once:
 *   the next one only after the application called
 *   rte_flow_get_aged_flows(), so that it is not called back for every
 *   flow of a burst it has not read yet;
 * - a flow that is not on the device (the port stopped, its queues gone)
 *   is hit by nothing: its idle time grows.
 *
 * The check holds the port's control lock (the flows and their counters
 * are the flow ops'); the callbacks run after it is released, since an
 * application's callback calls the flow ops. The close cancels the alarm
 * without the lock, since a running alarm may wait for it.
 */

#include <errno.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_tailq.h>

#include "vsteer.h"

#define VSTEER_AGE_PERIOD_US 1000000 /* mlx5: MLX5_POOL_QUERY_FREQ_US */

static void vsteer_age_alarm(void *arg);

static uint64_t
vsteer_age_now_s(void)
{
	return rte_get_timer_cycles() / rte_get_timer_hz();
}

void
vsteer_age_init(struct vsteer_priv *priv)
{
	struct vsteer_age_port *ap = &priv->age;

	TAILQ_INIT(&ap->aging);
	TAILQ_INIT(&ap->aged);
	ap->n_aged = 0;
	ap->trigger = 1;
	ap->armed = 0;
	ap->closing = 0;
}

/* Set the alarm when flows may age and none is set (lock held). */
static void
vsteer_age_arm(struct rte_eth_dev *dev)
{
	struct vsteer_age_port *ap = &vsteer_priv(dev)->age;
	int ret;

	if (ap->armed || ap->closing || TAILQ_EMPTY(&ap->aging))
		return;
	ret = rte_eal_alarm_set(VSTEER_AGE_PERIOD_US, vsteer_age_alarm, dev);
	if (ret != 0) {
		FLOW_LOG(ERR, "port %u: flow aging: cannot set the alarm: %s",
			 dev->data->port_id, strerror(-ret));
		return;
	}
	ap->armed = 1;
}

void
vsteer_age_add(struct rte_eth_dev *dev, struct vsteer_age *a, uint32_t timeout,
	       void *context, void *flow)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_age_port *ap = &priv->age;

	VSTEER_CTL_HELD(priv);
	memset(a, 0, sizeof(*a));
	a->timeout = timeout;
	a->context = context;
	a->flow = flow;
	if (TAILQ_EMPTY(&ap->aging))
		ap->last_check_s = vsteer_age_now_s();
	TAILQ_INSERT_TAIL(&ap->aging, a, next);
	vsteer_age_arm(dev);
}

void
vsteer_age_del(struct vsteer_priv *priv, struct vsteer_age *a)
{
	struct vsteer_age_port *ap = &priv->age;

	VSTEER_CTL_HELD(priv);
	if (a->aged) {
		TAILQ_REMOVE(&ap->aged, a, next);
		ap->n_aged--;
	} else {
		TAILQ_REMOVE(&ap->aging, a, next);
	}
}

int
vsteer_age_get(struct vsteer_priv *priv, void **contexts, uint32_t n)
{
	struct vsteer_age_port *ap = &priv->age;
	const struct vsteer_age *a;
	uint32_t i = 0;

	VSTEER_CTL_HELD(priv);
	/* The application reads: the next aged flows raise the event. */
	ap->trigger = 1;
	if (n == 0)
		return (int)ap->n_aged;
	TAILQ_FOREACH(a, &ap->aged, next) {
		if (i == n)
			break;
		contexts[i++] = a->context;
	}
	return (int)i;
}

void
vsteer_age_query(const struct vsteer_age *a, struct rte_flow_query_age *q)
{
	memset(q, 0, sizeof(*q));
	q->aged = a->aged;
	q->sec_since_last_hit_valid = !a->aged;
	if (!a->aged)
		q->sec_since_last_hit = RTE_MIN(a->idle, (uint32_t)0xffffff);
}

bool
vsteer_age_check(struct rte_eth_dev *dev, uint64_t now_s)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_age_port *ap = &priv->age;
	struct vsteer_age *a, *tmp;
	uint32_t delta;
	bool aged = false;
	uint64_t hits;

	VSTEER_CTL_HELD(priv);
	delta = (uint32_t)RTE_MIN(now_s - ap->last_check_s,
				  (uint64_t)UINT32_MAX);
	ap->last_check_s = now_s;
	RTE_TAILQ_FOREACH_SAFE(a, &ap->aging, next, tmp) {
		/* Device counters only grow; one made again (the flow made
		 * again on the device) starts over, which is no hit. */
		if (vsteer_flow_age_hits(dev, a->flow, &hits) &&
		    hits != a->hits) {
			bool hit = hits > a->hits;

			a->hits = hits;
			if (hit) {
				a->idle = 0;
				continue;
			}
		}
		a->idle = a->idle + delta < a->idle ? UINT32_MAX :
						      a->idle + delta;
		if (a->idle <= a->timeout)
			continue;
		TAILQ_REMOVE(&ap->aging, a, next);
		a->aged = 1;
		TAILQ_INSERT_TAIL(&ap->aged, a, next);
		ap->n_aged++;
		aged = true;
	}
	return aged;
}

static void
vsteer_age_alarm(void *arg)
{
	struct rte_eth_dev *dev = arg;
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_age_port *ap = &priv->age;
	bool raise = false;
	uint32_t n = 0;

	vsteer_ctl_lock(priv);
	ap->armed = 0;
	if (!ap->closing) {
		if (vsteer_age_check(dev, vsteer_age_now_s()) && ap->trigger) {
			ap->trigger = 0;
			raise = true;
			n = ap->n_aged;
		}
		vsteer_age_arm(dev);
	}
	vsteer_ctl_unlock(priv);
	if (raise) {
		FLOW_LOG(DEBUG, "port %u: %u aged flow(s)", dev->data->port_id,
			 n);
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_FLOW_AGED,
					     NULL);
	}
}

void
vsteer_age_stop(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	vsteer_ctl_lock(priv);
	priv->age.closing = 1;
	vsteer_ctl_unlock(priv);
	/* Waits for a running alarm, which then sets no other. */
	rte_eal_alarm_cancel(vsteer_age_alarm, dev);
	priv->age.armed = 0;
}
