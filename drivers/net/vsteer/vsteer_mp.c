/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Secondary processes (dpdk-proc-info, dpdk-pdump, an application's own):
 * what they may not do themselves, they ask the primary.
 *
 * A port's rte_eth_dev_data, its private data (struct vsteer_priv), its
 * queues and their counters live in the primary's shared memory, so a
 * secondary reads them directly. The verbs context, the device objects
 * (softverbs' are malloc'ed, rdma-core's are process-private too) and
 * the glue table the primary reaches them through are not: their
 * addresses mean nothing in another process. The device's own counters
 * (softverbs' wire counters, rdma-core's sysfs hw_counters behind the
 * primary's context) are therefore read by the primary for the secondary,
 * over EAL's multi-process channel, as is a statistics reset (it takes a
 * new base from the device). A primary that does not answer within
 * VSTEER_MP_TIMEOUT_S is an error, never a made-up 0.
 */

#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "vsteer.h"

#define VSTEER_MP_NAME "net_vsteer_mp"
#define VSTEER_MP_TIMEOUT_S 5

enum vsteer_mp_op {
	VSTEER_MP_PORT_COUNTERS = 1,
	VSTEER_MP_STATS_RESET = 2,
};

struct vsteer_mp_param {
	uint32_t op;
	uint16_t port_id;
	uint16_t reserved;
	int32_t result; /* reply: 0 or a negative errno */
	/* The port's name: a port id reused by another device is refused. */
	char name[RTE_ETH_NAME_MAX_LEN];
	/* Reply to PORT_COUNTERS: since the last reset, as the primary's
	 * own statistics show them. */
	struct vsteer_port_counters cnt;
};

_Static_assert(sizeof(struct vsteer_mp_param) <= RTE_MP_MAX_PARAM_LEN,
	       "vsteer_mp_param must fit an rte_mp_msg");

/* Primary: the handler's registration and the ports it may answer for.
 * A port's close takes the lock to stop answering, so that the handler
 * never reads a device that is being closed. */
static pthread_mutex_t vsteer_mp_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned int vsteer_mp_ports;
static bool vsteer_mp_registered;

/* The live port of this driver a request names, or NULL. */
static struct rte_eth_dev *
vsteer_mp_dev(const struct vsteer_mp_param *req)
{
	struct rte_eth_dev *dev;
	struct vsteer_priv *priv;

	if (req->port_id >= RTE_MAX_ETHPORTS)
		return NULL;
	dev = &rte_eth_devices[req->port_id];
	if (dev->state != RTE_ETH_DEV_ATTACHED ||
	    dev->dev_ops != &vsteer_dev_ops || dev->data == NULL ||
	    strncmp(dev->data->name, req->name, sizeof(req->name)) != 0)
		return NULL;
	priv = dev->data->dev_private;
	if (priv == NULL || priv->ctx == NULL || priv->mp_closed)
		return NULL;
	return dev;
}

static int
vsteer_mp_primary(const struct rte_mp_msg *msg, const void *peer)
{
	const struct vsteer_mp_param *req = (const void *)msg->param;
	struct rte_mp_msg reply;
	struct vsteer_mp_param *res = (void *)reply.param;
	struct rte_eth_dev *dev;

	memset(&reply, 0, sizeof(reply));
	snprintf(reply.name, sizeof(reply.name), "%s", VSTEER_MP_NAME);
	reply.len_param = sizeof(*res);
	if (msg->len_param != sizeof(*req)) {
		res->result = -EINVAL;
		return rte_mp_reply(&reply, peer);
	}
	res->op = req->op;
	res->port_id = req->port_id;
	memcpy(res->name, req->name, sizeof(res->name));
	pthread_mutex_lock(&vsteer_mp_lock);
	dev = vsteer_mp_dev(req);
	if (dev == NULL) {
		res->result = -ENODEV;
	} else {
		switch (req->op) {
		case VSTEER_MP_PORT_COUNTERS:
			res->result = vsteer_port_counters_get(dev, &res->cnt);
			break;
		case VSTEER_MP_STATS_RESET:
			res->result = vsteer_stats_reset(dev);
			break;
		default:
			res->result = -ENOTSUP;
			break;
		}
	}
	pthread_mutex_unlock(&vsteer_mp_lock);
	return rte_mp_reply(&reply, peer);
}

int
vsteer_mp_primary_init(void)
{
	int ret = 0;

	pthread_mutex_lock(&vsteer_mp_lock);
	if (vsteer_mp_ports == 0 && !vsteer_mp_registered) {
		if (rte_mp_action_register(VSTEER_MP_NAME, vsteer_mp_primary) ==
		    0) {
			vsteer_mp_registered = true;
		} else if (rte_errno == ENOTSUP) {
			/* --in-memory, --no-shconf: no secondary can attach. */
			INIT_LOG(DEBUG,
				 "no multi-process channel: no secondary process can attach");
		} else {
			ret = -rte_errno;
			INIT_LOG(WARNING,
				 "cannot answer secondary processes (%s): they get no device counters",
				 rte_strerror(rte_errno));
		}
	}
	vsteer_mp_ports++;
	pthread_mutex_unlock(&vsteer_mp_lock);
	return ret;
}

void
vsteer_mp_port_close(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	pthread_mutex_lock(&vsteer_mp_lock);
	if (!priv->mp_closed) {
		priv->mp_closed = 1;
		if (vsteer_mp_ports > 0 && --vsteer_mp_ports == 0 &&
		    vsteer_mp_registered) {
			rte_mp_action_unregister(VSTEER_MP_NAME);
			vsteer_mp_registered = false;
		}
	}
	pthread_mutex_unlock(&vsteer_mp_lock);
}

/* Secondary: one request, one answer. 0 or a negative errno. */
static int
vsteer_mp_request(struct rte_eth_dev *dev, enum vsteer_mp_op op,
		  struct vsteer_port_counters *cnt)
{
	struct timespec ts = { .tv_sec = VSTEER_MP_TIMEOUT_S, .tv_nsec = 0 };
	struct rte_mp_msg req;
	struct rte_mp_reply rep;
	struct vsteer_mp_param *p = (void *)req.param;
	const struct vsteer_mp_param *res;
	int ret;

	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", VSTEER_MP_NAME);
	req.len_param = sizeof(*p);
	p->op = op;
	p->port_id = dev->data->port_id;
	snprintf(p->name, sizeof(p->name), "%s", dev->data->name);
	memset(&rep, 0, sizeof(rep));
	if (rte_mp_request_sync(&req, &rep, &ts) != 0) {
		ret = -(rte_errno ? rte_errno : EIO);
		DRV_LOG(ERR, "port %u: no answer from the primary process: %s",
			dev->data->port_id, rte_strerror(-ret));
		free(rep.msgs);
		return ret;
	}
	if (rep.nb_received != 1 ||
	    rep.msgs[0].len_param != (int)sizeof(*res)) {
		/* A primary without the handler ignores the request. */
		DRV_LOG(ERR,
			"port %u: the primary process does not answer for net_vsteer (%d replies)",
			dev->data->port_id, rep.nb_received);
		free(rep.msgs);
		return -ENOTSUP;
	}
	res = (const void *)rep.msgs[0].param;
	ret = res->result;
	if (ret == 0 && cnt != NULL)
		*cnt = res->cnt;
	else if (ret != 0)
		DRV_LOG(ERR, "port %u: the primary process answered: %s",
			dev->data->port_id, rte_strerror(-ret));
	free(rep.msgs);
	return ret;
}

int
vsteer_mp_port_counters(struct rte_eth_dev *dev, struct vsteer_port_counters *c)
{
	memset(c, 0, sizeof(*c));
	return vsteer_mp_request(dev, VSTEER_MP_PORT_COUNTERS, c);
}

int
vsteer_mp_stats_reset(struct rte_eth_dev *dev)
{
	return vsteer_mp_request(dev, VSTEER_MP_STATS_RESET, NULL);
}
