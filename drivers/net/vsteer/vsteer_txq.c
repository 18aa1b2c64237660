/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Tx queues. Setup sizes the ring; while the port is started the queue
 * has a CQ and a send-only RAW_PACKET QP moved RESET -> INIT(port) -> RTR
 * -> RTS. Stopping destroys both and frees the mbufs still in flight. A
 * WR the device fails puts the QP in error; the next burst resets it and
 * brings it back (vsteer_txq_recover), so that a bad frame costs itself
 * and the frames flushed with it, never the queue.
 *
 * Stopping one queue (tx_queue_stop, or a deferred start) keeps both
 * objects with the QP in RESET, as mlx5 does: the burst sends nothing,
 * what was in flight is reaped or counted as not sent, and starting the
 * queue brings the QP back to RTS.
 */

#include <errno.h>
#include <string.h>

#include <rte_malloc.h>

#include "vsteer.h"

static void
vsteer_txq_free(struct vsteer_txq *txq)
{
	if (txq == NULL)
		return;
	vsteer_txq_stop(txq);
	rte_free(txq->elts);
	rte_free(txq->wrs);
	rte_free(txq->sges);
	rte_free(txq);
}

void
vsteer_tx_queue_release(struct rte_eth_dev *dev, uint16_t idx)
{
	struct vsteer_txq *txq = dev->data->tx_queues[idx];

	if (txq == NULL)
		return;
	/* Stopping reaps the last completions: count them, then keep the
	 * counters for the port. */
	vsteer_txq_stop(txq);
	vsteer_txq_stats_keep(dev, idx, &txq->stats);
	vsteer_txq_free(txq);
	dev->data->tx_queues[idx] = NULL;
}

int
vsteer_tx_queue_setup(struct rte_eth_dev *dev, uint16_t idx, uint16_t desc,
		      unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint64_t offloads = conf->offloads |
			    dev->data->dev_conf.txmode.offloads;
	struct vsteer_txq *txq;
	uint32_t elts_n, max_sge, i;

	if (priv->started) {
		DRV_LOG(ERR,
			"port %u: stop the port before setting up Tx queue %u",
			dev->data->port_id, idx);
		return -EBUSY;
	}
	elts_n = rte_align32pow2(RTE_MAX(desc, (uint16_t)VSTEER_DESC_MIN));
	if (elts_n > priv->max_wr) {
		DRV_LOG(ERR,
			"port %u: Tx queue %u: %u descriptors, the device takes %u",
			dev->data->port_id, idx, desc, priv->max_wr);
		return -EINVAL;
	}
	max_sge = 1;
	if (offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		max_sge = RTE_MIN(priv->max_sge, (uint32_t)VSTEER_TX_MAX_SGE);
	if (dev->data->tx_queues[idx] != NULL)
		vsteer_tx_queue_release(dev, idx);
	txq = rte_zmalloc_socket("vsteer_txq", sizeof(*txq),
				 RTE_CACHE_LINE_SIZE, socket);
	if (txq == NULL)
		return -ENOMEM;
	txq->priv = priv;
	txq->elts_n = elts_n;
	txq->elts_mask = elts_n - 1;
	txq->max_sge = max_sge;
	txq->port_id = dev->data->port_id;
	txq->queue_id = idx;
	txq->nb_desc = desc;
	txq->socket = socket;
	txq->offloads = offloads;
	txq->deferred = conf->tx_deferred_start != 0;
	txq->csum = priv->tx_csum &&
		    (offloads & (RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
				 RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
				 RTE_ETH_TX_OFFLOAD_TCP_CKSUM |
				 RTE_ETH_TX_OFFLOAD_TCP_TSO)) != 0;
	txq->tso = priv->tso_ok && (offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO);
	txq->elts = rte_zmalloc_socket("vsteer_txq_elts",
				       elts_n * sizeof(*txq->elts),
				       RTE_CACHE_LINE_SIZE, socket);
	txq->wrs = rte_zmalloc_socket("vsteer_txq_wrs",
				      elts_n * sizeof(*txq->wrs),
				      RTE_CACHE_LINE_SIZE, socket);
	txq->sges = rte_zmalloc_socket("vsteer_txq_sges",
				       elts_n * max_sge * sizeof(*txq->sges),
				       RTE_CACHE_LINE_SIZE, socket);
	if (txq->elts == NULL || txq->wrs == NULL || txq->sges == NULL) {
		vsteer_txq_free(txq);
		return -ENOMEM;
	}
	/* The burst fills in the rest of each WR. */
	for (i = 0; i < elts_n; i++)
		txq->wrs[i].opcode = IBV_WR_SEND;
	/* A queue set up again at this index counts on. */
	vsteer_txq_stats_restore(dev, idx, &txq->stats);
	dev->data->tx_queues[idx] = txq;
	DRV_LOG(DEBUG, "port %u: Tx queue %u: %u WRs, %u SGEs each",
		dev->data->port_id, idx, elts_n, max_sge);
	return 0;
}

static int
vsteer_txq_to_rts(struct vsteer_txq *txq)
{
	struct vsteer_priv *priv = txq->priv;
	struct ibv_qp_attr mod;
	int ret;

	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_INIT;
	mod.port_num = priv->port_num;
	ret = priv->glue->modify_qp(txq->qp, &mod, IBV_QP_STATE | IBV_QP_PORT);
	if (ret != 0)
		return ret;
	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_RTR;
	ret = priv->glue->modify_qp(txq->qp, &mod, IBV_QP_STATE);
	if (ret != 0)
		return ret;
	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_RTS;
	return priv->glue->modify_qp(txq->qp, &mod, IBV_QP_STATE);
}

/* The WRs from tail to head will not complete: count them as not sent. */
static void
vsteer_txq_discard(struct vsteer_txq *txq)
{
	vsteer_tx_retire(txq, txq->head - txq->tail, 0);
}

int
vsteer_txq_recover(struct vsteer_txq *txq)
{
	struct vsteer_priv *priv = txq->priv;
	struct ibv_qp_attr mod;
	int ret;

	/* Reset discards what the QP still holds: the WRs after the failed
	 * one were flushed, not sent, whether or not their completions came
	 * (libmlx5 also cleans the CQ of them; softverbs leaves them, and
	 * vsteer_tx_complete() skips ids no longer in flight). */
	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_RESET;
	ret = priv->glue->modify_qp(txq->qp, &mod, IBV_QP_STATE);
	if (ret == 0) {
		vsteer_txq_discard(txq);
		ret = vsteer_txq_to_rts(txq);
	}
	if (ret != 0) {
		TX_LOG(ERR, "port %u: Tx queue %u: send queue recovery: %s",
		       txq->port_id, txq->queue_id, strerror(ret));
		return -ret;
	}
	txq->qp_err = 0;
	txq->recoveries++;
	return 0;
}

/* QP to RTS, ring empty, the burst on. */
static int
vsteer_txq_run(struct vsteer_txq *txq)
{
	int ret;

	ret = vsteer_txq_to_rts(txq);
	if (ret != 0) {
		TX_LOG(ERR, "port %u: Tx queue %u: QP to RTS: %s", txq->port_id,
		       txq->queue_id, strerror(ret));
		return -ret;
	}
	txq->head = 0;
	txq->tail = 0;
	txq->qp_err = 0;
	__atomic_store_n(&txq->cq, txq->cq_obj, __ATOMIC_RELEASE);
	return 0;
}

/* The burst off, what the device finished counted, the rest discarded
 * with a reset of the QP (counted as not sent). */
static int
vsteer_txq_halt(struct vsteer_txq *txq)
{
	struct vsteer_priv *priv = txq->priv;
	struct ibv_qp_attr mod;
	int ret;

	if (txq->cq != NULL && txq->tail != txq->head)
		vsteer_tx_complete(txq);
	__atomic_store_n(&txq->cq, NULL, __ATOMIC_RELEASE);
	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_RESET;
	ret = priv->glue->modify_qp(txq->qp, &mod, IBV_QP_STATE);
	if (ret != 0)
		TX_LOG(ERR, "port %u: Tx queue %u: QP to RESET: %s",
		       txq->port_id, txq->queue_id, strerror(ret));
	vsteer_txq_discard(txq);
	txq->head = 0;
	txq->tail = 0;
	txq->qp_err = 0;
	return -ret;
}

int
vsteer_txq_start(struct vsteer_txq *txq)
{
	struct vsteer_priv *priv = txq->priv;
	struct ibv_cq_init_attr_ex cq_attr;
	struct ibv_qp_init_attr_ex qp_attr;
	int ret;

	if (txq->cq_obj != NULL)
		return 0;
	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.cqe = txq->elts_n;
	txq->cq_obj = vsteer_cq_create(priv, &cq_attr);
	if (txq->cq_obj == NULL) {
		ret = -(errno ? errno : ENOMEM);
		TX_LOG(ERR, "port %u: Tx queue %u: create CQ (%u entries): %s",
		       txq->port_id, txq->queue_id, txq->elts_n,
		       strerror(-ret));
		return ret;
	}
	memset(&qp_attr, 0, sizeof(qp_attr));
	qp_attr.qp_type = IBV_QPT_RAW_PACKET;
	qp_attr.send_cq = ibv_cq_ex_to_cq(txq->cq_obj);
	qp_attr.recv_cq = ibv_cq_ex_to_cq(txq->cq_obj);
	qp_attr.cap.max_send_wr = txq->elts_n;
	qp_attr.cap.max_send_sge = txq->max_sge;
	qp_attr.cap.max_recv_wr = 0;
	qp_attr.cap.max_recv_sge = 0;
	qp_attr.sq_sig_all = 0;
	/* With PD alone, ibv_create_qp_ex() would call the exported
	 * ibv_create_qp(), which only knows rdma-core's own providers; a
	 * (zero) create_flags keeps the call on the context's ops. */
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	qp_attr.create_flags = 0;
	/* TSO headers are copied into the send WQE: room for them. */
	if (txq->tso) {
		qp_attr.comp_mask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
		qp_attr.max_tso_header = VSTEER_TSO_HDR_MAX;
	}
	qp_attr.pd = vsteer_qdomain_get(priv, &txq->dom);
	txq->qp = ibv_create_qp_ex(priv->ctx, &qp_attr);
	if (txq->qp == NULL) {
		ret = -(errno ? errno : ENOMEM);
		TX_LOG(ERR,
		       "port %u: Tx queue %u: create RAW_PACKET QP (%u WRs x %u SGEs): %s",
		       txq->port_id, txq->queue_id, txq->elts_n, txq->max_sge,
		       strerror(-ret));
		goto err;
	}
	txq->head = 0;
	txq->tail = 0;
	txq->qp_err = 0;
	/* A deferred queue waits for tx_queue_start, its QP in RESET. */
	if (!txq->deferred) {
		ret = vsteer_txq_run(txq);
		if (ret != 0)
			goto err;
	}
	return 0;
err:
	vsteer_txq_stop(txq);
	return ret;
}

int
vsteer_tx_queue_start(struct rte_eth_dev *dev, uint16_t idx)
{
	struct vsteer_txq *txq = dev->data->tx_queues[idx];
	int ret;

	if (txq == NULL || txq->cq_obj == NULL)
		return -EINVAL;
	ret = vsteer_txq_run(txq);
	if (ret != 0)
		return ret;
	dev->data->tx_queue_state[idx] = RTE_ETH_QUEUE_STATE_STARTED;
	TX_LOG(DEBUG, "port %u: Tx queue %u started", txq->port_id, idx);
	return 0;
}

int
vsteer_tx_queue_stop(struct rte_eth_dev *dev, uint16_t idx)
{
	struct vsteer_txq *txq = dev->data->tx_queues[idx];
	int ret;

	if (txq == NULL || txq->cq_obj == NULL)
		return -EINVAL;
	ret = vsteer_txq_halt(txq);
	dev->data->tx_queue_state[idx] = RTE_ETH_QUEUE_STATE_STOPPED;
	TX_LOG(DEBUG, "port %u: Tx queue %u stopped", txq->port_id, idx);
	return ret;
}

void
vsteer_txq_stop(struct vsteer_txq *txq)
{
	struct vsteer_priv *priv = txq->priv;
	int ret;

	/* Count and free what the device completed meanwhile. */
	if (txq->cq != NULL && txq->tail != txq->head)
		vsteer_tx_complete(txq);
	if (txq->qp != NULL) {
		ret = priv->glue->destroy_qp(txq->qp);
		if (ret != 0)
			TX_LOG(ERR, "port %u: Tx queue %u: destroy QP: %s",
			       txq->port_id, txq->queue_id, strerror(ret));
		txq->qp = NULL;
	}
	__atomic_store_n(&txq->cq, NULL, __ATOMIC_RELEASE);
	if (txq->cq_obj != NULL) {
		ret = priv->glue->destroy_cq(ibv_cq_ex_to_cq(txq->cq_obj));
		if (ret != 0)
			TX_LOG(ERR, "port %u: Tx queue %u: destroy CQ: %s",
			       txq->port_id, txq->queue_id, strerror(ret));
		txq->cq_obj = NULL;
	}
	vsteer_qdomain_put(priv, &txq->dom);
	/* The QP is gone with whatever it still held: not sent. */
	vsteer_txq_discard(txq);
	txq->head = 0;
	txq->tail = 0;
	txq->qp_err = 0;
}
