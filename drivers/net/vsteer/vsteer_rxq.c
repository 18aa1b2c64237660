/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Rx queues. Setup sizes the software ring and registers the mempool;
 * the verbs objects exist only while the port is started: a CQ-ex that
 * reports byte counts, flow tags and stripped VLAN tags (on a completion
 * channel when the port has Rx interrupts), and an IBV_WQT_RQ work queue
 * in RDY (with IBV_WQ_FLAGS_CVLAN_STRIPPING when the queue strips) with
 * every ring slot posted. Stopping the port destroys them (the flows that
 * point at the WQs are gone by then) and frees the posted mbufs.
 *
 * Stopping one queue (rx_queue_stop, or a deferred start) keeps its
 * objects: the WQ stays in every indirection table that holds it (RSS
 * contexts of the default flows and of rte_flow rules, which stay as they
 * are), ready but with no buffer posted, so that the device drops what it
 * steers there and counts it as frames that found no buffer (imissed) --
 * a WQ left in RESET would drop them too, but softverbs counts those with
 * the PASSTHRU copies. The queue's buffers and the completions it had not
 * read go; starting it posts fresh buffers.
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf_dyn.h>

#include "vsteer.h"

uint32_t
vsteer_rx_frame_max(const struct rte_eth_dev *dev, uint16_t mtu)
{
	RTE_SET_USED(dev);
	return (uint32_t)mtu + VSTEER_FRAME_OVERHEAD;
}

struct ibv_pd *
vsteer_qdomain_get(struct vsteer_priv *priv, struct vsteer_qdomain *dom)
{
	struct ibv_td_init_attr ta = { .comp_mask = 0 };
	struct ibv_parent_domain_init_attr pa;

	dom->pd = NULL;
	dom->td = ibv_alloc_td(priv->ctx, &ta);
	if (dom->td == NULL) {
		DRV_LOG(DEBUG, "port %u: no thread domain (%s): locked queue",
			priv->data->port_id, strerror(errno));
		return priv->pd;
	}
	memset(&pa, 0, sizeof(pa));
	pa.pd = priv->pd;
	pa.td = dom->td;
	dom->pd = ibv_alloc_parent_domain(priv->ctx, &pa);
	if (dom->pd == NULL) {
		DRV_LOG(DEBUG, "port %u: no parent domain (%s): locked queue",
			priv->data->port_id, strerror(errno));
		ibv_dealloc_td(dom->td);
		dom->td = NULL;
		return priv->pd;
	}
	return dom->pd;
}

void
vsteer_qdomain_put(struct vsteer_priv *priv, struct vsteer_qdomain *dom)
{
	int ret;

	/* After the queue's objects: they hold the parent domain. */
	if (dom->pd != NULL) {
		ret = priv->glue->dealloc_pd(dom->pd);
		if (ret != 0)
			DRV_LOG(ERR, "port %u: dealloc parent domain: %s",
				priv->data->port_id, strerror(ret));
		dom->pd = NULL;
	}
	if (dom->td != NULL) {
		ret = ibv_dealloc_td(dom->td);
		if (ret != 0)
			DRV_LOG(ERR, "port %u: dealloc thread domain: %s",
				priv->data->port_id, strerror(ret));
		dom->td = NULL;
	}
}

/* A CQ-ex polled by one thread: single-threaded where the device takes
 * the flag, else a plain one. */
struct ibv_cq_ex *
vsteer_cq_create(struct vsteer_priv *priv, struct ibv_cq_init_attr_ex *attr)
{
	struct ibv_cq_ex *cq;

	attr->comp_mask |= IBV_CQ_INIT_ATTR_MASK_FLAGS;
	attr->flags |= IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	cq = ibv_create_cq_ex(priv->ctx, attr);
	if (cq != NULL || (errno != EINVAL && errno != EOPNOTSUPP))
		return cq;
	attr->comp_mask &= ~(uint32_t)IBV_CQ_INIT_ATTR_MASK_FLAGS;
	attr->flags = 0;
	return ibv_create_cq_ex(priv->ctx, attr);
}

static void
vsteer_rxq_free(struct vsteer_rxq *rxq)
{
	if (rxq == NULL)
		return;
	vsteer_rxq_stop(rxq);
	rte_free(rxq->elts);
	rte_free(rxq->wrs);
	rte_free(rxq->sges);
	rte_free(rxq->ahead);
	rte_free(rxq);
}

void
vsteer_rx_queue_release(struct rte_eth_dev *dev, uint16_t idx)
{
	struct vsteer_rxq *rxq = dev->data->rx_queues[idx];

	if (rxq == NULL)
		return;
	/* Its counters stay the port's. */
	vsteer_rxq_stats_keep(dev, idx, &rxq->stats);
	vsteer_rxq_free(rxq);
	dev->data->rx_queues[idx] = NULL;
}

int
vsteer_rx_queue_setup(struct rte_eth_dev *dev, uint16_t idx, uint16_t desc,
		      unsigned int socket, const struct rte_eth_rxconf *conf,
		      struct rte_mempool *mp)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint64_t offloads = conf->offloads |
			    dev->data->dev_conf.rxmode.offloads;
	uint32_t frame = vsteer_rx_frame_max(dev, dev->data->mtu);
	uint32_t room, sges_n, wqe_n, max_sge;
	struct vsteer_rxq *rxq;
	int ret;

	if (priv->started) {
		DRV_LOG(ERR,
			"port %u: stop the port before setting up Rx queue %u",
			dev->data->port_id, idx);
		return -EBUSY;
	}
	if ((offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) &&
	    !priv->vlan_strip_ok) {
		DRV_LOG(ERR,
			"port %u: Rx queue %u: the device has no VLAN stripping",
			dev->data->port_id, idx);
		return -ENOTSUP;
	}
	if ((offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP) && !priv->ts_ok) {
		DRV_LOG(ERR,
			"port %u: Rx queue %u: the device has no completion timestamps",
			dev->data->port_id, idx);
		return -ENOTSUP;
	}
	if (rte_pktmbuf_data_room_size(mp) <= RTE_PKTMBUF_HEADROOM) {
		DRV_LOG(ERR,
			"port %u: Rx queue %u: mempool %s has no data room",
			dev->data->port_id, idx, mp->name);
		return -EINVAL;
	}
	room = rte_pktmbuf_data_room_size(mp) - RTE_PKTMBUF_HEADROOM;
	sges_n = (frame + room - 1) / room;
	max_sge = RTE_MIN(priv->max_sge, (uint32_t)VSTEER_RX_MAX_SGE);
	if (sges_n > 1 && !(offloads & RTE_ETH_RX_OFFLOAD_SCATTER)) {
		DRV_LOG(ERR,
			"port %u: Rx queue %u: %u-byte frames (MTU %u) do not fit %u-byte buffers; enable the scatter offload",
			dev->data->port_id, idx, frame, dev->data->mtu, room);
		return -EINVAL;
	}
	if (sges_n > max_sge) {
		DRV_LOG(ERR,
			"port %u: Rx queue %u: %u-byte frames need %u segments of %u bytes, the device takes %u",
			dev->data->port_id, idx, frame, sges_n, room, max_sge);
		return -EINVAL;
	}
	wqe_n = rte_align32pow2(RTE_MAX(desc, (uint16_t)VSTEER_DESC_MIN));
	if (wqe_n > priv->max_wr) {
		DRV_LOG(ERR,
			"port %u: Rx queue %u: %u descriptors, the device takes %u",
			dev->data->port_id, idx, desc, priv->max_wr);
		return -EINVAL;
	}
	if (wqe_n * sges_n > rte_mempool_avail_count(mp))
		DRV_LOG(WARNING,
			"port %u: Rx queue %u: ring of %u buffers but mempool %s has %u free",
			dev->data->port_id, idx, wqe_n * sges_n, mp->name,
			rte_mempool_avail_count(mp));
	ret = vsteer_mr_register_mempool(priv, mp);
	if (ret != 0)
		return ret;
	if (dev->data->rx_queues[idx] != NULL)
		vsteer_rx_queue_release(dev, idx);
	rxq = rte_zmalloc_socket("vsteer_rxq", sizeof(*rxq),
				 RTE_CACHE_LINE_SIZE, socket);
	if (rxq == NULL)
		return -ENOMEM;
	rxq->priv = priv;
	rxq->mp = mp;
	rxq->wqe_n = wqe_n;
	rxq->sges_n = sges_n;
	rxq->seg_room = room;
	rxq->port_id = dev->data->port_id;
	rxq->queue_id = idx;
	rxq->nb_desc = desc;
	rxq->socket = socket;
	rxq->offloads = offloads;
	{
		/* What a received mbuf's rearm_data must hold. */
		struct rte_mbuf tmpl;

		memset(&tmpl, 0, sizeof(tmpl));
		tmpl.data_off = RTE_PKTMBUF_HEADROOM;
		tmpl.nb_segs = 1;
		tmpl.port = dev->data->port_id;
		rte_mbuf_refcnt_set(&tmpl, 1);
		memcpy(&rxq->mbuf_init,
		       RTE_PTR_ADD(&tmpl,
				   offsetof(struct rte_mbuf, rearm_data)),
		       sizeof(rxq->mbuf_init));
	}
	rxq->csum = (offloads & RTE_ETH_RX_OFFLOAD_CHECKSUM) != 0;
	rxq->strip = (offloads & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;
	if (offloads & RTE_ETH_RX_OFFLOAD_TIMESTAMP) {
		/* The field and flag every driver and application share. */
		ret = rte_mbuf_dyn_rx_timestamp_register(&rxq->ts_off,
							 &rxq->ts_flag);
		if (ret != 0) {
			DRV_LOG(ERR,
				"port %u: Rx queue %u: mbuf timestamp field: %s",
				dev->data->port_id, idx,
				rte_strerror(rte_errno));
			rte_free(rxq);
			return -rte_errno;
		}
		rxq->ts = 1;
	}
	rxq->ptype = !priv->ptypes_off;
	rxq->deferred = conf->rx_deferred_start != 0;
	rxq->elts = rte_zmalloc_socket("vsteer_rxq_elts",
				       wqe_n * sges_n * sizeof(*rxq->elts),
				       RTE_CACHE_LINE_SIZE, socket);
	rxq->wrs = rte_zmalloc_socket("vsteer_rxq_wrs",
				      wqe_n * sizeof(*rxq->wrs),
				      RTE_CACHE_LINE_SIZE, socket);
	rxq->sges = rte_zmalloc_socket("vsteer_rxq_sges",
				       wqe_n * sges_n * sizeof(*rxq->sges),
				       RTE_CACHE_LINE_SIZE, socket);
	rxq->ahead = rte_zmalloc_socket("vsteer_rxq_ahead",
					wqe_n * sizeof(*rxq->ahead),
					RTE_CACHE_LINE_SIZE, socket);
	if (rxq->elts == NULL || rxq->wrs == NULL || rxq->sges == NULL ||
	    rxq->ahead == NULL) {
		vsteer_rxq_free(rxq);
		return -ENOMEM;
	}
	/* A queue set up again at this index counts on. */
	vsteer_rxq_stats_restore(dev, idx, &rxq->stats);
	dev->data->rx_queues[idx] = rxq;
	DRV_LOG(DEBUG, "port %u: Rx queue %u: %u WQEs x %u SGEs of %u bytes",
		dev->data->port_id, idx, wqe_n, sges_n, room);
	return 0;
}

/* Point the SGEs of WQE i at its mbufs. */
static int
vsteer_rxq_wqe_fill(struct vsteer_rxq *rxq, uint32_t i)
{
	uint32_t j;

	for (j = 0; j < rxq->sges_n; j++) {
		struct rte_mbuf *m = rxq->elts[i * rxq->sges_n + j];
		struct ibv_sge *sge = &rxq->sges[i * rxq->sges_n + j];
		uintptr_t addr = rte_pktmbuf_mtod(m, uintptr_t);

		sge->addr = addr;
		sge->length = rxq->seg_room;
		if (vsteer_mr_lkey(rxq->priv, &rxq->mr_hit, addr, rxq->seg_room,
				   rxq->mp, &sge->lkey) != 0)
			return -EFAULT;
	}
	rxq->wrs[i].wr_id = i;
	rxq->wrs[i].sg_list = &rxq->sges[i * rxq->sges_n];
	rxq->wrs[i].num_sge = rxq->sges_n;
	rxq->wrs[i].next = NULL;
	return 0;
}

static void
vsteer_rxq_free_elts(struct vsteer_rxq *rxq)
{
	uint32_t i;

	for (i = 0; i < rxq->wqe_n * rxq->sges_n; i++) {
		rte_pktmbuf_free(rxq->elts[i]);
		rxq->elts[i] = NULL;
	}
}

/* Post WQEs 0..wqe_n - 1 with the buffers they hold, as one list. */
static int
vsteer_rxq_post_all(struct vsteer_rxq *rxq)
{
	struct ibv_recv_wr *bad = NULL;
	uint32_t i;

	for (i = 0; i < rxq->wqe_n; i++) {
		rxq->wrs[i].wr_id = i;
		rxq->wrs[i].next = i + 1 < rxq->wqe_n ? &rxq->wrs[i + 1] : NULL;
	}
	return ibv_post_wq_recv(rxq->wq, &rxq->wrs[0], &bad);
}

/* Post every ring slot with fresh mbufs and let the burst read the CQ. */
static int
vsteer_rxq_run(struct vsteer_rxq *rxq)
{
	uint32_t i, n = rxq->wqe_n * rxq->sges_n;
	int ret;

	if (rte_pktmbuf_alloc_bulk(rxq->mp, rxq->elts, n) != 0) {
		RX_LOG(ERR,
		       "port %u: Rx queue %u: %u mbufs from %s: pool exhausted",
		       rxq->port_id, rxq->queue_id, n, rxq->mp->name);
		memset(rxq->elts, 0, n * sizeof(*rxq->elts));
		return -ENOMEM;
	}
	for (i = 0; i < rxq->wqe_n; i++) {
		ret = vsteer_rxq_wqe_fill(rxq, i);
		if (ret != 0) {
			RX_LOG(ERR,
			       "port %u: Rx queue %u: mbuf outside registered memory",
			       rxq->port_id, rxq->queue_id);
			goto err;
		}
	}
	ret = vsteer_rxq_post_all(rxq);
	if (ret != 0) {
		RX_LOG(ERR, "port %u: Rx queue %u: post %u WQEs: %s",
		       rxq->port_id, rxq->queue_id, rxq->wqe_n, strerror(ret));
		ret = -ret;
		goto err;
	}
	rxq->unposted = 0;
	rxq->stopped = 0;
	rxq->ahead_head = 0;
	rxq->ahead_n = 0;
	__atomic_store_n(&rxq->cq, rxq->cq_obj, __ATOMIC_RELEASE);
	return 0;
err:
	vsteer_rxq_free_elts(rxq);
	return ret;
}

/* Move the WQ to state (ibv_modify_wq). */
static int
vsteer_rxq_wq_state(struct vsteer_rxq *rxq, enum ibv_wq_state state)
{
	struct ibv_wq_attr mod;

	memset(&mod, 0, sizeof(mod));
	mod.attr_mask = IBV_WQ_ATTR_STATE;
	mod.wq_state = state;
	return ibv_modify_wq(rxq->wq, &mod);
}

/* Completions still in the CQ: their frames go with the queue's
 * buffers. Returns how many. */
static uint32_t
vsteer_rxq_cq_drain(struct vsteer_rxq *rxq)
{
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	uint32_t n = 0;

	if (ibv_start_poll(rxq->cq_obj, &attr) != 0)
		return 0;
	do
		n++;
	while (ibv_next_poll(rxq->cq_obj) == 0);
	ibv_end_poll(rxq->cq_obj);
	return n;
}

/*
 * As mlx5e and DPDK's mlx5 (mlx5_rx_err_handle()) do with an RQ in error:
 * RESET, then RDY (libmlx5 then cleans the CQ of the WQ's completions and
 * starts its ring over, mlx5_modify_wq()), then every WQE posted again.
 * Posting before RDY would be lost to that restart. The completions still
 * in the CQ are flushes of WQEs posted again here.
 */
int
vsteer_rxq_recover(struct vsteer_rxq *rxq)
{
	int ret;

	vsteer_rxq_cq_drain(rxq);
	rxq->ahead_n = 0;
	rxq->ahead_head = 0;
	ret = vsteer_rxq_wq_state(rxq, IBV_WQS_RESET);
	if (ret == 0)
		ret = vsteer_rxq_wq_state(rxq, IBV_WQS_RDY);
	if (ret == 0)
		ret = vsteer_rxq_post_all(rxq);
	if (ret != 0) {
		RX_LOG(ERR, "port %u: Rx queue %u: reset after an error: %s",
		       rxq->port_id, rxq->queue_id, strerror(ret));
		return -ret;
	}
	rxq->unposted = 0;
	rxq->stopped = 0;
	rxq->stats.resets++;
	return 0;
}

/*
 * Stop receiving, objects kept: the burst sees no CQ, the device takes
 * back the posted buffers (RDY -> RESET discards them, as mlx5's
 * rx_queue_stop does with its RQ) and the WQ is made ready again with
 * none, so that frames steered to it are dropped and counted.
 */
static int
vsteer_rxq_halt(struct vsteer_rxq *rxq)
{
	int ret;

	__atomic_store_n(&rxq->cq, NULL, __ATOMIC_RELEASE);
	ret = vsteer_rxq_wq_state(rxq, IBV_WQS_RESET);
	if (ret == 0)
		ret = vsteer_rxq_wq_state(rxq, IBV_WQS_RDY);
	if (ret != 0)
		RX_LOG(ERR, "port %u: Rx queue %u: WQ reset: %s", rxq->port_id,
		       rxq->queue_id, strerror(ret));
	vsteer_rxq_cq_drain(rxq);
	rxq->ahead_n = 0;
	rxq->ahead_head = 0;
	/* No WQE is posted: descriptor status says unavailable. */
	rxq->unposted = rxq->wqe_n;
	vsteer_rxq_free_elts(rxq);
	return -ret;
}

int
vsteer_rxq_start(struct vsteer_rxq *rxq)
{
	struct vsteer_priv *priv = rxq->priv;
	const struct rte_eth_dev_data *data = priv->data;
	struct ibv_cq_init_attr_ex cq_attr;
	struct ibv_wq_init_attr wq_attr;
	int ret;

	if (rxq->cq_obj != NULL)
		return 0;
	/* A channel per queue: one fd per queue in the interrupt handle. */
	if (data->dev_conf.intr_conf.rxq) {
		rxq->channel = priv->glue->create_comp_channel(priv->ctx);
		if (rxq->channel == NULL) {
			ret = -(errno ? errno : ENOMEM);
			RX_LOG(ERR,
			       "port %u: Rx queue %u: completion channel: %s",
			       rxq->port_id, rxq->queue_id, strerror(-ret));
			return ret;
		}
	}
	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.cqe = rxq->wqe_n;
	cq_attr.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	cq_attr.channel = rxq->channel;
	if (priv->tag_ok)
		cq_attr.wc_flags |= IBV_WC_EX_WITH_FLOW_TAG;
	/* Whenever the device strips, so that stripping can be turned on
	 * while the queue runs. */
	if (priv->vlan_strip_ok)
		cq_attr.wc_flags |= IBV_WC_EX_WITH_CVLAN;
	if (rxq->ts)
		cq_attr.wc_flags |= IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	rxq->cq_obj = vsteer_cq_create(priv, &cq_attr);
	if (rxq->cq_obj == NULL) {
		ret = -(errno ? errno : ENOMEM);
		RX_LOG(ERR, "port %u: Rx queue %u: create CQ (%u entries): %s",
		       rxq->port_id, rxq->queue_id, rxq->wqe_n, strerror(-ret));
		goto err;
	}
	rxq->tag = priv->tag_ok;
	rxq->ahead_head = 0;
	rxq->ahead_n = 0;
	rxq->unposted = rxq->wqe_n;
	memset(&wq_attr, 0, sizeof(wq_attr));
	wq_attr.wq_type = IBV_WQT_RQ;
	wq_attr.max_wr = rxq->wqe_n;
	wq_attr.max_sge = rxq->sges_n;
	wq_attr.pd = vsteer_qdomain_get(priv, &rxq->dom);
	wq_attr.cq = ibv_cq_ex_to_cq(rxq->cq_obj);
	if (rxq->strip) {
		wq_attr.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
		wq_attr.create_flags = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	}
	rxq->wq = ibv_create_wq(priv->ctx, &wq_attr);
	if (rxq->wq == NULL) {
		ret = -(errno ? errno : ENOMEM);
		RX_LOG(ERR, "port %u: Rx queue %u: create WQ (%u x %u): %s",
		       rxq->port_id, rxq->queue_id, rxq->wqe_n, rxq->sges_n,
		       strerror(-ret));
		goto err;
	}
	/* The call reports what it allocated: never less than asked. */
	if (wq_attr.max_wr < rxq->wqe_n || wq_attr.max_sge < rxq->sges_n) {
		RX_LOG(ERR,
		       "port %u: Rx queue %u: WQ got %u x %u, asked %u x %u",
		       rxq->port_id, rxq->queue_id, wq_attr.max_wr,
		       wq_attr.max_sge, rxq->wqe_n, rxq->sges_n);
		ret = -ENOMEM;
		goto err;
	}
	ret = vsteer_rxq_wq_state(rxq, IBV_WQS_RDY);
	if (ret != 0) {
		RX_LOG(ERR, "port %u: Rx queue %u: WQ to RDY: %s", rxq->port_id,
		       rxq->queue_id, strerror(ret));
		ret = -ret;
		goto err;
	}
	/* A deferred queue waits for rx_queue_start, its WQ without
	 * buffers. */
	if (!rxq->deferred) {
		ret = vsteer_rxq_run(rxq);
		if (ret != 0)
			goto err;
	}
	return 0;
err:
	vsteer_rxq_stop(rxq);
	return ret;
}

int
vsteer_rx_queue_start(struct rte_eth_dev *dev, uint16_t idx)
{
	struct vsteer_rxq *rxq = dev->data->rx_queues[idx];
	int ret;

	if (rxq == NULL || rxq->cq_obj == NULL)
		return -EINVAL;
	ret = vsteer_rxq_run(rxq);
	if (ret != 0)
		return ret;
	dev->data->rx_queue_state[idx] = RTE_ETH_QUEUE_STATE_STARTED;
	RX_LOG(DEBUG, "port %u: Rx queue %u started", rxq->port_id, idx);
	return 0;
}

int
vsteer_rx_queue_stop(struct rte_eth_dev *dev, uint16_t idx)
{
	struct vsteer_rxq *rxq = dev->data->rx_queues[idx];
	int ret;

	if (rxq == NULL || rxq->cq_obj == NULL)
		return -EINVAL;
	ret = vsteer_rxq_halt(rxq);
	/* Stopped whatever the device said: the queue takes nothing more. */
	dev->data->rx_queue_state[idx] = RTE_ETH_QUEUE_STATE_STOPPED;
	RX_LOG(DEBUG, "port %u: Rx queue %u stopped", rxq->port_id, idx);
	return ret;
}

int
vsteer_rxq_vlan_strip(struct vsteer_rxq *rxq, int on)
{
	struct ibv_wq_attr mod;
	int ret;

	if (rxq->wq != NULL) {
		/* ibv_modify_wq(3): flags_mask says which flags change. */
		memset(&mod, 0, sizeof(mod));
		mod.attr_mask = IBV_WQ_ATTR_FLAGS;
		mod.flags_mask = IBV_WQ_FLAGS_CVLAN_STRIPPING;
		mod.flags = on ? IBV_WQ_FLAGS_CVLAN_STRIPPING : 0;
		ret = ibv_modify_wq(rxq->wq, &mod);
		if (ret != 0) {
			RX_LOG(ERR,
			       "port %u: Rx queue %u: VLAN stripping %s: %s",
			       rxq->port_id, rxq->queue_id, on ? "on" : "off",
			       strerror(ret));
			return -ret;
		}
	}
	rxq->strip = !!on;
	if (on)
		rxq->offloads |= RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
	else
		rxq->offloads &= ~RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
	return 0;
}

void
vsteer_rxq_stop(struct vsteer_rxq *rxq)
{
	struct vsteer_priv *priv = rxq->priv;
	int ret;

	__atomic_store_n(&rxq->cq, NULL, __ATOMIC_RELEASE);
	if (rxq->wq != NULL) {
		ret = ibv_destroy_wq(rxq->wq);
		if (ret != 0)
			RX_LOG(ERR, "port %u: Rx queue %u: destroy WQ: %s",
			       rxq->port_id, rxq->queue_id, strerror(ret));
		rxq->wq = NULL;
	}
	/* Events were acknowledged as they were read: nothing to wait
	 * for. */
	if (rxq->cq_obj != NULL) {
		ret = priv->glue->destroy_cq(ibv_cq_ex_to_cq(rxq->cq_obj));
		if (ret != 0)
			RX_LOG(ERR, "port %u: Rx queue %u: destroy CQ: %s",
			       rxq->port_id, rxq->queue_id, strerror(ret));
		rxq->cq_obj = NULL;
	}
	if (rxq->channel != NULL) {
		ret = priv->glue->destroy_comp_channel(rxq->channel);
		if (ret != 0)
			RX_LOG(ERR,
			       "port %u: Rx queue %u: destroy completion channel: %s",
			       rxq->port_id, rxq->queue_id, strerror(ret));
		rxq->channel = NULL;
	}
	vsteer_qdomain_put(priv, &rxq->dom);
	/* Completions read ahead and never taken: their frames are lost
	 * with the buffers, as a stop drops what a NIC holds. */
	rxq->ahead_n = 0;
	rxq->ahead_head = 0;
	/* With the WQ gone, no buffer is owned by the device any more. */
	vsteer_rxq_free_elts(rxq);
}
