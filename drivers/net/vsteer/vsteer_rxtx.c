/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Rx and Tx bursts over portable verbs: completions are read from CQ-ex
 * (start/next/end_poll), receive buffers go back to the WQ and packets to
 * the send QP as one WR list per burst.
 */

#include <errno.h>

#include <rte_branch_prediction.h>
#include <rte_mbuf.h>

#include "vsteer.h"

/* Flow tag values (host order, 24 bits): 0 none, FLAG, else MARK id + 1. */
#define VSTEER_TAG_FLAG 0xffffffu

/*
 * Hand the n segments of WQE idx (len bytes) to the application and put
 * fresh mbufs in their place. Returns the packet, or NULL when no
 * replacement could be had (the packet is dropped, the buffers stay).
 */
static inline struct rte_mbuf *
vsteer_rx_take(struct vsteer_rxq *rxq, uint32_t idx, uint32_t len)
{
	struct rte_mbuf **slots = &rxq->elts[idx * rxq->sges_n];
	struct ibv_sge *sges = &rxq->sges[idx * rxq->sges_n];
	struct rte_mbuf *rep[VSTEER_RX_MAX_SGE];
	uint32_t lkey[VSTEER_RX_MAX_SGE];
	struct rte_mbuf *pkt, *prev = NULL;
	uint32_t nseg, j, left = len;

	nseg = rxq->sges_n == 1 ? 1 : (len + rxq->seg_room - 1) / rxq->seg_room;
	if (nseg == 0)
		nseg = 1;
	if (unlikely(nseg > rxq->sges_n)) {
		rxq->stats.errors++;
		return NULL;
	}
	if (unlikely(rte_pktmbuf_alloc_bulk(rxq->mp, rep, nseg) != 0)) {
		rxq->stats.nombuf++;
		return NULL;
	}
	for (j = 0; j < nseg; j++) {
		if (unlikely(vsteer_mr_lkey(rxq->priv, &rxq->mr_hit,
					    rte_pktmbuf_mtod(rep[j], uintptr_t),
					    rxq->seg_room, rxq->mp,
					    &lkey[j]) != 0)) {
			/* Cannot happen with one registered pool: keep the
			 * old buffers posted. */
			rte_pktmbuf_free_bulk(rep, nseg);
			rxq->stats.errors++;
			return NULL;
		}
	}
	pkt = slots[0];
	for (j = 0; j < nseg; j++) {
		struct rte_mbuf *seg = slots[j];
		uint32_t l = RTE_MIN(left, rxq->seg_room);

		seg->data_len = (uint16_t)l;
		seg->next = NULL;
		if (prev != NULL)
			prev->next = seg;
		prev = seg;
		left -= l;
		slots[j] = rep[j];
		sges[j].addr = rte_pktmbuf_mtod(rep[j], uintptr_t);
		sges[j].lkey = lkey[j];
	}
	pkt->nb_segs = (uint16_t)nseg;
	pkt->pkt_len = len;
	pkt->port = rxq->port_id;
	pkt->ol_flags = 0;
	pkt->packet_type = RTE_PTYPE_UNKNOWN;
	return pkt;
}

uint16_t
vsteer_rx_burst(void *dpdk_rxq, struct rte_mbuf **pkts, uint16_t pkts_n)
{
	struct vsteer_rxq *rxq = dpdk_rxq;
	struct ibv_cq_ex *cq = rxq->cq;
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	struct ibv_recv_wr *head = NULL, **link = &head, *bad;
	uint64_t bytes = 0;
	uint16_t n = 0, polled = 0;
	int ret;

	if (unlikely(cq == NULL || pkts_n == 0))
		return 0;
	ret = ibv_start_poll(cq, &attr);
	if (ret != 0) {
		/* ENOENT: empty, and no end_poll is due. */
		if (unlikely(ret != ENOENT))
			rxq->stats.errors++;
		return 0;
	}
	do {
		uint32_t idx = (uint32_t)cq->wr_id;
		struct rte_mbuf *pkt = NULL;

		polled++;
		if (unlikely(idx >= rxq->wqe_n)) {
			/* Not one of ours: nothing to repost. */
			rxq->stats.errors++;
			goto next;
		}
		if (likely(cq->status == IBV_WC_SUCCESS)) {
			uint32_t len = ibv_wc_read_byte_len(cq);

			pkt = vsteer_rx_take(rxq, idx, len);
			if (likely(pkt != NULL)) {
				uint64_t ol = 0;

				if (rxq->csum && (ibv_wc_read_wc_flags(cq) &
						  IBV_WC_IP_CSUM_OK))
					ol |= RTE_MBUF_F_RX_IP_CKSUM_GOOD |
					      RTE_MBUF_F_RX_L4_CKSUM_GOOD;
				if (rxq->tag) {
					uint32_t tag = ibv_wc_read_flow_tag(cq);

					if (tag != 0) {
						ol |= RTE_MBUF_F_RX_FDIR;
						if (tag != VSTEER_TAG_FLAG) {
							ol |= RTE_MBUF_F_RX_FDIR_ID;
							pkt->hash.fdir.hi =
								tag - 1;
						}
					}
				}
				pkt->ol_flags = ol;
				pkts[n++] = pkt;
				bytes += len;
			}
		} else {
			/* LOC_LEN_ERR (frame larger than the buffers),
			 * LOC_PROT_ERR, flush...: the buffers go back. */
			rxq->stats.errors++;
		}
		/* Repost the WQE, with fresh buffers or the same ones. */
		rxq->wrs[idx].next = NULL;
		*link = &rxq->wrs[idx];
		link = &rxq->wrs[idx].next;
next:
		if (polled == pkts_n)
			break;
		ret = ibv_next_poll(cq);
	} while (ret == 0);
	ibv_end_poll(cq);
	rxq->stats.packets += n;
	rxq->stats.bytes += bytes;
	if (head != NULL) {
		ret = ibv_post_wq_recv(rxq->wq, head, &bad);
		if (unlikely(ret != 0)) {
			/* The unposted WQEs keep their mbufs, freed at stop;
			 * the queue runs with fewer buffers. */
			rxq->stats.post_errors++;
			RX_LOG(DEBUG, "port %u: Rx queue %u: repost: %s",
			       rxq->port_id, rxq->queue_id, strerror(ret));
		}
	}
	return n;
}

uint32_t
vsteer_tx_complete(struct vsteer_txq *txq)
{
	struct ibv_cq_ex *cq = txq->cq;
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	uint32_t done = 0, upto = txq->tail;
	int found = 0;
	int ret;

	ret = ibv_start_poll(cq, &attr);
	if (ret != 0)
		return 0;
	do {
		uint32_t id = (uint32_t)cq->wr_id;

		if (unlikely(cq->status != IBV_WC_SUCCESS)) {
			/* A failed WR puts the QP in error, and the WRs
			 * after it complete flushed: none was sent. */
			txq->stats.comp_errors++;
			txq->qp_err = 1;
		}
		/* Only ids in flight count; wr_id is the ring counter. */
		if (id - txq->tail < txq->head - txq->tail &&
		    id - txq->tail >= upto - txq->tail) {
			upto = id + 1;
			found = 1;
		}
		if (txq->comp_pending > 0)
			txq->comp_pending--;
		ret = ibv_next_poll(cq);
	} while (ret == 0);
	ibv_end_poll(cq);
	if (!found)
		return 0;
	/* A completion covers every unsignalled WR posted before it. */
	while (txq->tail != upto) {
		struct rte_mbuf **slot = &txq->elts[txq->tail & txq->elts_mask];

		rte_pktmbuf_free(*slot);
		*slot = NULL;
		txq->tail++;
		done++;
	}
	return done;
}

/* Pool owning the data of seg, for on-demand registration. */
static inline struct rte_mempool *
vsteer_tx_seg_pool(struct rte_mbuf *seg)
{
	if (RTE_MBUF_CLONED(seg))
		return rte_mbuf_from_indirect(seg)->pool;
	if (RTE_MBUF_HAS_EXTBUF(seg))
		return NULL; /* memory of unknown origin */
	return seg->pool;
}

uint16_t
vsteer_tx_burst(void *dpdk_txq, struct rte_mbuf **pkts, uint16_t pkts_n)
{
	struct vsteer_txq *txq = dpdk_txq;
	struct ibv_send_wr *head = NULL, **link = &head, *bad = NULL;
	struct ibv_send_wr *last = NULL;
	uint32_t room, nsge = 0, start, signalled = 0;
	uint64_t bytes = 0;
	uint16_t i, posted = 0;
	int ret;

	if (unlikely(txq->cq == NULL))
		return 0;
	/* At most max_send_wr - 1 WRs in flight: one slot stays free, as
	 * ring-based send queues need. */
	room = txq->elts_n - 1 - (txq->head - txq->tail);
	/* Completions are reaped when the ring runs low, so that most
	 * bursts make a single call into the device (the post). */
	if (unlikely(txq->qp_err) ||
	    (txq->comp_pending > 0 &&
	     room < RTE_MAX((uint32_t)pkts_n, txq->elts_n / 2))) {
		vsteer_tx_complete(txq);
		room = txq->elts_n - 1 - (txq->head - txq->tail);
	}
	if (unlikely(txq->qp_err)) {
		/* Every WR completes (flushed) before the QP can restart. */
		if (txq->tail != txq->head || vsteer_txq_recover(txq) != 0)
			return 0;
		room = txq->elts_n - 1;
	}
	start = txq->head;
	for (i = 0; i < pkts_n && room > 0; i++) {
		struct rte_mbuf *m = pkts[i], *seg;
		struct ibv_send_wr *wr = &txq->wrs[txq->head & txq->elts_mask];
		struct ibv_sge *sg = &txq->sges[nsge];
		uint32_t k = 0;

		if (unlikely(m->nb_segs > txq->max_sge))
			goto drop;
		for (seg = m; seg != NULL; seg = seg->next) {
			uintptr_t addr = rte_pktmbuf_mtod(seg, uintptr_t);

			if (seg->data_len == 0)
				continue;
			/* Never post memory outside a registration. */
			if (unlikely(vsteer_mr_lkey(txq->priv, &txq->mr_hit,
						    addr, seg->data_len,
						    vsteer_tx_seg_pool(seg),
						    &sg[k].lkey) != 0))
				goto drop;
			sg[k].addr = addr;
			sg[k].length = seg->data_len;
			k++;
		}
		if (unlikely(k == 0))
			goto drop;
		wr->wr_id = txq->head;
		wr->next = NULL;
		wr->sg_list = sg;
		wr->num_sge = (int)k;
		wr->send_flags = 0;
		if (txq->csum && (m->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM |
						 RTE_MBUF_F_TX_L4_MASK)) != 0)
			wr->send_flags |= IBV_SEND_IP_CSUM;
		if (++txq->since_signal >= txq->comp_thresh) {
			wr->send_flags |= IBV_SEND_SIGNALED;
			txq->since_signal = 0;
			signalled++;
		}
		txq->elts[txq->head & txq->elts_mask] = m;
		txq->head++;
		nsge += k;
		room--;
		bytes += m->pkt_len;
		*link = wr;
		link = &wr->next;
		last = wr;
		posted++;
		continue;
drop:
		txq->stats.errors++;
		rte_pktmbuf_free(m);
	}
	if (head == NULL)
		return i;
	/* A nearly full ring needs a completion on its way, or it never
	 * drains. */
	if (!(last->send_flags & IBV_SEND_SIGNALED) &&
	    room < txq->comp_thresh) {
		last->send_flags |= IBV_SEND_SIGNALED;
		txq->since_signal = 0;
		signalled++;
	}
	ret = ibv_post_send(txq->qp, head, &bad);
	if (unlikely(ret != 0)) {
		struct ibv_send_wr *wr;
		uint32_t first_bad = bad != NULL ? (uint32_t)bad->wr_id : start;

		/* WRs from bad on were not posted: the packets are dropped
		 * (they are consumed, as the count returned says). */
		for (wr = bad != NULL ? bad : head; wr != NULL; wr = wr->next) {
			uint32_t slot = (uint32_t)wr->wr_id & txq->elts_mask;

			if (wr->send_flags & IBV_SEND_SIGNALED)
				signalled--;
			bytes -= txq->elts[slot]->pkt_len;
			rte_pktmbuf_free(txq->elts[slot]);
			txq->elts[slot] = NULL;
			txq->stats.errors++;
			posted--;
		}
		txq->head = first_bad;
		TX_LOG(DEBUG, "port %u: Tx queue %u: post_send: %s",
		       txq->port_id, txq->queue_id, strerror(ret));
	}
	txq->comp_pending += signalled;
	txq->stats.packets += posted;
	txq->stats.bytes += bytes;
	return i;
}
