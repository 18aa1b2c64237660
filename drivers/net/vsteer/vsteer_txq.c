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

/* A send QP as the Tx queues make them, with room in each WQE for
 * tso_hdr bytes of TSO headers (0: no TSO), or NULL with errno set. */
static struct ibv_qp *
vsteer_send_qp_create(struct vsteer_priv *priv, struct ibv_cq_ex *cq,
		      struct ibv_pd *pd, uint32_t wrs, uint32_t sges,
		      uint32_t tso_hdr)
{
	struct ibv_qp_init_attr_ex qp_attr;

	memset(&qp_attr, 0, sizeof(qp_attr));
	qp_attr.qp_type = IBV_QPT_RAW_PACKET;
	qp_attr.send_cq = ibv_cq_ex_to_cq(cq);
	qp_attr.recv_cq = ibv_cq_ex_to_cq(cq);
	qp_attr.cap.max_send_wr = wrs;
	qp_attr.cap.max_send_sge = sges;
	qp_attr.sq_sig_all = 0;
	/* With PD alone, ibv_create_qp_ex() would call the exported
	 * ibv_create_qp(), which only knows rdma-core's own providers; a
	 * (zero) create_flags keeps the call on the context's ops. */
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	qp_attr.create_flags = 0;
	/* TSO headers are copied into the send WQE: room for them, which
	 * makes every WQE larger (libmlx5's mlx5_calc_send_wqe()). */
	if (tso_hdr != 0) {
		qp_attr.comp_mask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
		qp_attr.max_tso_header = tso_hdr;
	}
	qp_attr.pd = pd;
	return ibv_create_qp_ex(priv->ctx, &qp_attr);
}

/* The largest power of two of WRs up to top, at least VSTEER_DESC_MIN,
 * that a send QP of sges SGEs takes; 0 when none (errno set). */
static uint32_t
vsteer_send_qp_wr_max(struct vsteer_priv *priv, struct ibv_cq_ex *cq,
		      uint32_t top, uint32_t sges, uint32_t tso_hdr)
{
	struct ibv_qp *qp;
	uint32_t w;

	for (w = top; w >= VSTEER_DESC_MIN; w >>= 1) {
		errno = 0;
		qp = vsteer_send_qp_create(priv, cq, priv->pd, w, sges,
					   tso_hdr);
		if (qp != NULL) {
			priv->glue->destroy_qp(qp);
			return w;
		}
		/* Only a size the device refuses is worth a smaller try. */
		if (errno != EINVAL && errno != ENOMEM)
			return 0;
	}
	errno = EINVAL;
	return 0;
}

int
vsteer_tx_probe(struct vsteer_priv *priv)
{
	struct ibv_cq_init_attr_ex cq_attr;
	uint32_t top, sges;
	struct ibv_cq_ex *cq;
	int ret = 0;

	memset(&cq_attr, 0, sizeof(cq_attr));
	cq_attr.cqe = 1;
	cq = ibv_create_cq_ex(priv->ctx, &cq_attr);
	if (cq == NULL)
		return -(errno ? errno : ENOMEM);
	top = rte_align32prevpow2(RTE_MIN(priv->max_wr, (uint32_t)32768));
	priv->tx_wr_max = vsteer_send_qp_wr_max(priv, cq, top, 1, 0);
	if (priv->tx_wr_max == 0) {
		ret = -(errno ? errno : EINVAL);
		goto out;
	}
	/* Multi-segment queues: the most SGEs up to VSTEER_TX_MAX_SGE that
	 * some ring takes, and the largest ring with them. */
	sges = RTE_MIN(priv->max_sge, (uint32_t)VSTEER_TX_MAX_SGE);
	for (; sges > 1; sges >>= 1) {
		priv->tx_wr_max_sges = vsteer_send_qp_wr_max(priv, cq,
							     priv->tx_wr_max,
							     sges, 0);
		if (priv->tx_wr_max_sges != 0)
			break;
	}
	if (sges <= 1) {
		sges = 1;
		priv->tx_wr_max_sges = priv->tx_wr_max;
	}
	priv->tx_sge_max = sges;
	/* TSO queues: the same with room for the headers in every WQE. A
	 * device that takes none loses the offload. */
	priv->tx_wr_max_tso = 0;
	priv->tx_wr_max_tso_sges = 0;
	if (priv->tso_ok) {
		priv->tx_wr_max_tso = vsteer_send_qp_wr_max(priv, cq,
							    priv->tx_wr_max, 1,
							    VSTEER_TSO_HDR_MAX);
		priv->tx_wr_max_tso_sges =
			vsteer_send_qp_wr_max(priv, cq, priv->tx_wr_max_tso,
					      sges, VSTEER_TSO_HDR_MAX);
		if (priv->tx_wr_max_tso == 0 || priv->tx_wr_max_tso_sges == 0)
			priv->tso_ok = 0;
	}
out:
	priv->glue->destroy_cq(ibv_cq_ex_to_cq(cq));
	return ret;
}

int
vsteer_tx_queue_setup(struct rte_eth_dev *dev, uint16_t idx, uint16_t desc,
		      unsigned int socket, const struct rte_eth_txconf *conf)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint64_t offloads = conf->offloads |
			    dev->data->dev_conf.txmode.offloads;
	struct vsteer_txq *txq;
	uint32_t elts_n, max_sge, wr_max, i;
	bool tso;

	if (priv->started) {
		DRV_LOG(ERR,
			"port %u: stop the port before setting up Tx queue %u",
			dev->data->port_id, idx);
		return -EBUSY;
	}
	elts_n = rte_align32pow2(RTE_MAX(desc, (uint16_t)VSTEER_DESC_MIN));
	if (elts_n > priv->tx_wr_max) {
		DRV_LOG(ERR,
			"port %u: Tx queue %u: %u descriptors, the device takes %u",
			dev->data->port_id, idx, desc, priv->tx_wr_max);
		return -EINVAL;
	}
	tso = priv->tso_ok && (offloads & RTE_ETH_TX_OFFLOAD_TCP_TSO);
	max_sge = 1;
	wr_max = tso ? priv->tx_wr_max_tso : priv->tx_wr_max;
	if (offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) {
		max_sge = priv->tx_sge_max;
		wr_max = tso ? priv->tx_wr_max_tso_sges : priv->tx_wr_max_sges;
	}
	/* The device sizes its send queue by the largest WQE (a ConnectX:
	 * 64-byte blocks, 16 bytes per SGE, the TSO headers inside): fewer
	 * WRs in flight than asked, rather than fewer segments per frame
	 * or no TSO. */
	if (elts_n > wr_max) {
		DRV_LOG(INFO,
			"port %u: Tx queue %u: %u descriptors of %u segments%s: the device's send queue holds %u",
			dev->data->port_id, idx, desc, max_sge,
			tso ? " with TSO headers" : "", wr_max);
		elts_n = wr_max;
	}
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
	txq->tso = tso;
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
	txq->qp = vsteer_send_qp_create(priv, txq->cq_obj,
					vsteer_qdomain_get(priv, &txq->dom),
					txq->elts_n, txq->max_sge,
					txq->tso ? VSTEER_TSO_HDR_MAX : 0);
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
