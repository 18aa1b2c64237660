/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Interrupts over verbs events.
 *
 * Rx interrupts (dev_conf.intr_conf.rxq): each Rx queue's CQ is made on a
 * completion channel of its own, whose fd (non-blocking) is the queue's
 * event fd in the port's interrupt handle, of type EXT so that EAL reads
 * nothing from it: rte_eth_dev_rx_intr_ctl_q() puts it in the
 * application's epoll set. rx_queue_intr_enable arms the CQ
 * (ibv_req_notify_cq), the next completion makes the fd readable;
 * rx_queue_intr_disable reads and acknowledges the events that came
 * (ibv_get_cq_event, ibv_ack_cq_events), which makes it quiet again. Verbs
 * cannot disarm a CQ: after a disable that found no event, the next
 * completion still raises one, which the next disable takes. The channels
 * live while the port is started: after a stop and start the fds are new
 * and the application adds them to its epoll set again.
 *
 * Link state changes (dev_conf.intr_conf.lsc): the context's async fd is
 * watched by EAL's interrupt thread; the handler reads every async event
 * (ibv_get_async_event, ibv_ack_async_event) and, on IBV_EVENT_PORT_ACTIVE
 * or IBV_EVENT_PORT_ERR of the port, reads the link again and calls the
 * RTE_ETH_EVENT_INTR_LSC callbacks when its status changed, as DPDK's mlx5
 * does (mlx5_dev_interrupt_handler()). Without intr_conf.lsc the events are
 * read and dropped, so that the fd does not stay readable.
 *
 * What the device offers is found at probe: a completion channel is made
 * and destroyed, and the context has an async fd or not.
 */

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <rte_interrupts.h>

#include "vsteer.h"

static int
vsteer_fd_nonblock(int fd)
{
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		return -errno;
	return 0;
}

/* Read every async event; true when the port's link may have changed. */
static bool
vsteer_intr_async_read(struct vsteer_priv *priv)
{
	struct ibv_async_event ev;
	bool link = false;

	while (priv->glue->get_async_event(priv->ctx, &ev) == 0) {
		switch (ev.event_type) {
		case IBV_EVENT_PORT_ACTIVE:
		case IBV_EVENT_PORT_ERR:
			if (ev.element.port_num == priv->port_num)
				link = true;
			break;
		default:
			DRV_LOG(DEBUG, "port %u: async event %d ignored",
				priv->data->port_id, (int)ev.event_type);
			break;
		}
		priv->glue->ack_async_event(&ev);
	}
	return link;
}

/* EAL's interrupt thread: the async fd is readable. */
static void
vsteer_intr_async(void *arg)
{
	struct rte_eth_dev *dev = arg;
	struct vsteer_priv *priv = vsteer_priv(dev);

	if (!vsteer_intr_async_read(priv) || !dev->data->dev_conf.intr_conf.lsc)
		return;
	/* 0: the status changed. */
	if (vsteer_link_update(dev, 0) == 0) {
		DRV_LOG(INFO, "port %u: link %s", dev->data->port_id,
			dev->data->dev_link.link_status ? "up" : "down");
		rte_eth_dev_callback_process(dev, RTE_ETH_EVENT_INTR_LSC, NULL);
	}
}

int
vsteer_intr_init(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct ibv_comp_channel *ch;
	int fd, ret;

	/* Shared: secondary processes see the queues' fds too. */
	dev->intr_handle = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_SHARED);
	if (dev->intr_handle == NULL)
		return -ENOMEM;
	errno = 0;
	ch = priv->glue->create_comp_channel(priv->ctx);
	if (ch != NULL) {
		priv->rxq_intr_ok = 1;
		priv->glue->destroy_comp_channel(ch);
	} else {
		INIT_LOG(INFO,
			 "port %u: no completion channels (%s): no Rx interrupts",
			 dev->data->port_id, strerror(errno ? errno : ENOTSUP));
	}
	fd = priv->ctx->async_fd;
	if (fd < 0) {
		INIT_LOG(INFO,
			 "port %u: no async events: no link state interrupts",
			 dev->data->port_id);
		return 0;
	}
	ret = vsteer_fd_nonblock(fd);
	if (ret != 0) {
		INIT_LOG(ERR, "port %u: async fd non-blocking: %s",
			 dev->data->port_id, strerror(-ret));
		goto err;
	}
	ret = -ENOMEM;
	priv->intr_async = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_SHARED);
	if (priv->intr_async == NULL)
		goto err;
	if (rte_intr_fd_set(priv->intr_async, fd) != 0 ||
	    rte_intr_type_set(priv->intr_async, RTE_INTR_HANDLE_EXT) != 0) {
		ret = -rte_errno;
		goto err;
	}
	/* Events that came before (the link as the device found it) are
	 * no change of this port's. */
	vsteer_intr_async_read(priv);
	ret = rte_intr_callback_register(priv->intr_async, vsteer_intr_async,
					 dev);
	if (ret != 0) {
		INIT_LOG(ERR, "port %u: link state handler: %s",
			 dev->data->port_id, strerror(-ret));
		goto err;
	}
	priv->lsc_ok = 1;
	dev->data->dev_flags |= RTE_ETH_DEV_INTR_LSC;
	return 0;
err:
	vsteer_intr_fini(dev);
	return ret;
}

void
vsteer_intr_fini(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	if (priv->lsc_ok) {
		/* From the handler's own thread (an LSC callback closing the
		 * port) it cannot be waited for: unregistered after it. */
		do {
			ret = rte_intr_callback_unregister(priv->intr_async,
							   vsteer_intr_async,
							   dev);
			if (ret == -EAGAIN && rte_thread_is_intr()) {
				rte_intr_callback_unregister_pending(
					priv->intr_async, vsteer_intr_async,
					dev, NULL);
				break;
			}
		} while (ret == -EAGAIN);
		priv->lsc_ok = 0;
		dev->data->dev_flags &= ~RTE_ETH_DEV_INTR_LSC;
	}
	rte_intr_instance_free(priv->intr_async);
	priv->intr_async = NULL;
	vsteer_rx_intr_vec_disable(dev);
	rte_intr_instance_free(dev->intr_handle);
	dev->intr_handle = NULL;
}

int
vsteer_intr_configure(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	if (dev->data->dev_conf.intr_conf.rxq && !priv->rxq_intr_ok) {
		DRV_LOG(ERR,
			"port %u: Rx interrupts (intr_conf.rxq): device %s has no completion channels",
			dev->data->port_id, priv->ibdev_name);
		return -ENOTSUP;
	}
	if (dev->data->nb_rx_queues > RTE_MAX_RXTX_INTR_VEC_ID &&
	    dev->data->dev_conf.intr_conf.rxq) {
		DRV_LOG(ERR, "port %u: Rx interrupts for %u queues: at most %u",
			dev->data->port_id, dev->data->nb_rx_queues,
			RTE_MAX_RXTX_INTR_VEC_ID);
		return -EINVAL;
	}
	return 0;
}

int
vsteer_rx_intr_vec_enable(struct rte_eth_dev *dev)
{
	struct rte_intr_handle *h = dev->intr_handle;
	uint16_t n = dev->data->nb_rx_queues, i;
	int ret;

	if (!dev->data->dev_conf.intr_conf.rxq || h == NULL)
		return 0;
	vsteer_rx_intr_vec_disable(dev);
	if (rte_intr_vec_list_alloc(h, NULL, n) != 0 ||
	    rte_intr_type_set(h, RTE_INTR_HANDLE_EXT) != 0)
		goto err;
	for (i = 0; i < n; i++) {
		struct vsteer_rxq *rxq = dev->data->rx_queues[i];

		ret = vsteer_fd_nonblock(rxq->channel->fd);
		if (ret != 0) {
			rte_errno = -ret;
			goto err;
		}
		if (rte_intr_vec_list_index_set(h, i,
						RTE_INTR_VEC_RXTX_OFFSET + i) ||
		    rte_intr_efds_index_set(h, i, rxq->channel->fd))
			goto err;
	}
	if (rte_intr_nb_efd_set(h, n) != 0)
		goto err;
	return 0;
err:
	ret = rte_errno ? -rte_errno : -EINVAL;
	DRV_LOG(ERR, "port %u: Rx interrupt vectors for %u queues: %s",
		dev->data->port_id, n, strerror(-ret));
	vsteer_rx_intr_vec_disable(dev);
	return ret;
}

void
vsteer_rx_intr_vec_disable(struct rte_eth_dev *dev)
{
	struct rte_intr_handle *h = dev->intr_handle;

	if (h == NULL)
		return;
	/* Out of the applications' epoll sets before the fds close. */
	rte_intr_free_epoll_fd(h);
	rte_intr_vec_list_free(h);
	rte_intr_nb_efd_set(h, 0);
}

static struct vsteer_rxq *
vsteer_rxq_intr(struct rte_eth_dev *dev, uint16_t idx)
{
	struct vsteer_rxq *rxq = dev->data->rx_queues[idx];

	if (rxq == NULL || rxq->channel == NULL || rxq->cq_obj == NULL) {
		DRV_LOG(ERR,
			"port %u: Rx queue %u: no interrupt (configure the port with intr_conf.rxq and start it)",
			dev->data->port_id, idx);
		return NULL;
	}
	return rxq;
}

int
vsteer_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t idx)
{
	struct vsteer_rxq *rxq = vsteer_rxq_intr(dev, idx);
	int ret;

	if (rxq == NULL)
		return -EINVAL;
	ret = ibv_req_notify_cq(ibv_cq_ex_to_cq(rxq->cq_obj), 0);
	if (ret != 0) {
		RX_LOG(ERR, "port %u: Rx queue %u: arm CQ: %s",
		       dev->data->port_id, idx, strerror(ret));
		return -ret;
	}
	return 0;
}

int
vsteer_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t idx)
{
	struct vsteer_rxq *rxq = vsteer_rxq_intr(dev, idx);
	struct ibv_cq *cq;
	void *cq_ctx;

	if (rxq == NULL)
		return -EINVAL;
	/* Every event read is acknowledged at once: destroying the CQ
	 * waits for that. */
	while (rxq->priv->glue->get_cq_event(rxq->channel, &cq, &cq_ctx) == 0)
		rxq->priv->glue->ack_cq_events(cq, 1);
	if (errno != EAGAIN) {
		RX_LOG(ERR, "port %u: Rx queue %u: read CQ events: %s",
		       dev->data->port_id, idx, strerror(errno));
		return -errno;
	}
	return 0;
}
