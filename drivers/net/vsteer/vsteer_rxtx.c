/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Rx and Tx bursts over portable verbs: completions are read from CQ-ex
 * (start/next/end_poll), receive buffers go back to the WQ and packets to
 * the send QP as one WR list per burst.
 *
 * Rx: per completion the byte count, the checksum flag, the flow tag
 * (MARK/FLAG) and, on a queue that strips, the stripped VLAN TCI. Verbs
 * gives no packet type, so the burst parses it (rte_net_get_ptype(),
 * unless the application said it needs none), and no checksum verdict
 * beyond "IPv4, both good" (IBV_WC_IP_CSUM_OK, which mlx5 never gives on
 * a work queue): a frame without it is checked in software. Completions are read in
 * chunks; the replacement buffers of a chunk come from the pool in one
 * bulk get (one segment per WQE) and every WQE goes back to the WQ in one
 * post per burst.
 *
 * Tx: frames the port cannot send are dropped before they reach the device
 * (counted in errors). What was posted counts as sent when its completion
 * says so: the last WR of a burst is signalled and the completions are
 * reaped at the start of the next burst and right after posting, so the
 * counters are current as soon as the device is done; the mbufs they
 * cover go back in one bulk free.
 */

#include <errno.h>

#include <rte_branch_prediction.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_net.h>
#include <rte_prefetch.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "vsteer.h"

/* Completions handled together: one bulk allocation each. */
#define VSTEER_RX_CHUNK 32

/* Layers the burst parses for packet types. */
#define VSTEER_PTYPE_LAYERS \
	(RTE_PTYPE_L2_MASK | RTE_PTYPE_L3_MASK | RTE_PTYPE_L4_MASK)

/* What rte_net_get_ptype() can answer for those layers. */
const uint32_t vsteer_ptypes[] = {
	RTE_PTYPE_L2_ETHER,    RTE_PTYPE_L2_ETHER_VLAN, RTE_PTYPE_L2_ETHER_QINQ,
	RTE_PTYPE_L3_IPV4,     RTE_PTYPE_L3_IPV4_EXT,	RTE_PTYPE_L3_IPV6,
	RTE_PTYPE_L3_IPV6_EXT, RTE_PTYPE_L4_TCP,	RTE_PTYPE_L4_UDP,
	RTE_PTYPE_L4_SCTP,     RTE_PTYPE_L4_FRAG,	RTE_PTYPE_UNKNOWN,
};

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
	return pkt;
}

/* An rte_ip*_udptcp_cksum_mbuf_verify() answer as a flag. */
static inline uint64_t
vsteer_rx_l4_verdict(int ok)
{
	return ok == 0 ? RTE_MBUF_F_RX_L4_CKSUM_GOOD :
			 RTE_MBUF_F_RX_L4_CKSUM_BAD;
}

/* A UDP header at off with checksum 0 (within the first segment). */
static inline bool
vsteer_rx_udp_zero(const struct rte_mbuf *m, uint32_t off)
{
	return rte_pktmbuf_data_len(m) >= off + sizeof(struct rte_udp_hdr) &&
	       rte_pktmbuf_mtod_offset(m, const struct rte_udp_hdr *, off)
			       ->dgram_cksum == 0;
}

/* IPv6: no header checksum; TCP and UDP right after the fixed header (the
 * pseudo-header of rte_ipv6_udptcp_cksum_mbuf_verify() takes the payload
 * length and next header from it). UDP without a checksum is invalid over
 * IPv6 (RFC 8200 8.1): BAD. */
static uint64_t
vsteer_rx_csum_sw6(struct rte_mbuf *m, uint32_t ptype,
		   const struct rte_net_hdr_lens *hl)
{
	const uint64_t unk = RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN;
	uint32_t l4 = ptype & RTE_PTYPE_L4_MASK, l4_off, plen;
	const struct rte_ipv6_hdr *ip;

	if ((ptype & RTE_PTYPE_L3_MASK) != RTE_PTYPE_L3_IPV6 ||
	    (l4 != RTE_PTYPE_L4_TCP && l4 != RTE_PTYPE_L4_UDP) ||
	    hl->l3_len != sizeof(*ip) ||
	    hl->l2_len + hl->l3_len > rte_pktmbuf_data_len(m))
		return unk | RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv6_hdr *,
				     hl->l2_len);
	l4_off = hl->l2_len + hl->l3_len;
	plen = rte_be_to_cpu_16(ip->payload_len);
	if (plen < (l4 == RTE_PTYPE_L4_UDP ? sizeof(struct rte_udp_hdr) :
					     sizeof(struct rte_tcp_hdr)) ||
	    l4_off + plen > m->pkt_len)
		return unk | RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
	if (l4 == RTE_PTYPE_L4_UDP && vsteer_rx_udp_zero(m, l4_off))
		return unk | RTE_MBUF_F_RX_L4_CKSUM_BAD;
	return unk | vsteer_rx_l4_verdict(
			     rte_ipv6_udptcp_cksum_mbuf_verify(m, ip, l4_off));
}

/*
 * The device did not vouch for the checksums (no IBV_WC_IP_CSUM_OK, which
 * a ConnectX never gives on a work queue): tell which are good, bad, or
 * not known. IPv4: its header always, TCP/UDP when not a fragment and the
 * header is good (a UDP checksum of 0 means none, as the device takes
 * it). IPv6: TCP/UDP after the fixed header.
 */
static uint64_t
vsteer_rx_csum_sw(struct rte_mbuf *m, uint32_t ptype,
		  const struct rte_net_hdr_lens *hl)
{
	const struct rte_ipv4_hdr *ip;
	uint32_t l4 = ptype & RTE_PTYPE_L4_MASK, ip_len;
	uint64_t ol;

	if (RTE_ETH_IS_IPV6_HDR(ptype))
		return vsteer_rx_csum_sw6(m, ptype, hl);
	if (!RTE_ETH_IS_IPV4_HDR(ptype) ||
	    hl->l2_len + hl->l3_len > rte_pktmbuf_data_len(m))
		return RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN |
		       RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
	ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *,
				     hl->l2_len);
	/* A header that sums to all ones is intact (RFC 1071). */
	if (rte_raw_cksum(ip, hl->l3_len) != 0xffff)
		return RTE_MBUF_F_RX_IP_CKSUM_BAD |
		       RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
	ol = RTE_MBUF_F_RX_IP_CKSUM_GOOD;
	if (l4 != RTE_PTYPE_L4_TCP && l4 != RTE_PTYPE_L4_UDP)
		return ol | RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
	ip_len = rte_be_to_cpu_16(ip->total_length);
	if (ip_len < hl->l3_len || hl->l2_len + ip_len > m->pkt_len)
		return ol | RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN;
	if (l4 == RTE_PTYPE_L4_UDP &&
	    vsteer_rx_udp_zero(m, hl->l2_len + hl->l3_len))
		return ol | RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	return ol |
	       vsteer_rx_l4_verdict(
		       rte_ipv4_udptcp_cksum_mbuf_verify(m, ip,
							 hl->l2_len +
								 hl->l3_len));
}

/* What the completion says of a packet taken from the ring: offload flags,
 * packet type, mark, stripped VLAN. */
static inline void
vsteer_rx_finish(const struct vsteer_rxq *rxq, const struct vsteer_rx_cqe *c,
		 struct rte_mbuf *pkt)
{
	struct rte_net_hdr_lens hl;
	uint32_t ptype = 0;
	uint64_t ol = 0;

	if (rxq->ptype)
		ptype = rte_net_get_ptype(pkt, &hl, VSTEER_PTYPE_LAYERS);
	if (rxq->csum) {
		if (c->wc_flags & IBV_WC_IP_CSUM_OK) {
			ol |= RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			      RTE_MBUF_F_RX_L4_CKSUM_GOOD;
		} else {
			uint32_t pt = ptype;

			if (!rxq->ptype)
				pt = rte_net_get_ptype(pkt, &hl,
						       VSTEER_PTYPE_LAYERS);
			ol |= vsteer_rx_csum_sw(pkt, pt, &hl);
		}
	}
	if (c->tag != 0) {
		ol |= RTE_MBUF_F_RX_FDIR;
		if (c->tag != VSTEER_TAG_FLAG) {
			ol |= RTE_MBUF_F_RX_FDIR_ID;
			pkt->hash.fdir.hi = c->tag - 1;
		}
	}
	/* Portable verbs has no "stripped" bit: a TCI of 0 (no priority,
	 * VLAN 0) carries nothing either. */
	if (c->cvlan != 0) {
		ol |= RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
		pkt->vlan_tci = c->cvlan;
	}
	if (rxq->ts) {
		*RTE_MBUF_DYNFIELD(pkt, rxq->ts_off, rte_mbuf_timestamp_t *) =
			c->ts;
		ol |= rxq->ts_flag;
	}
	pkt->packet_type = ptype;
	pkt->ol_flags = ol;
}

/* Queue WQE idx for reposting, with fresh buffers or the same ones. */
static inline void
vsteer_rx_requeue(struct vsteer_rxq *rxq, uint32_t idx,
		  struct ibv_recv_wr ***link)
{
	rxq->wrs[idx].next = NULL;
	**link = &rxq->wrs[idx];
	*link = &rxq->wrs[idx].next;
}

/* What an error completion means for the queue. A ConnectX moves the RQ
 * to error on a protection or operation error, and the WQEs behind it
 * complete flushed: mlx5e and DPDK's mlx5 reset it on those three (Linux
 * 6.1 cqe_syndrome_needs_recover(), mlx5_rx_err_handle()); a length error
 * that stops the RQ shows as the flushes that follow it. */
static inline uint8_t
vsteer_rx_fail(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_WR_FLUSH_ERR:
		return VSTEER_RX_FAIL_FLUSH;
	case IBV_WC_LOC_PROT_ERR:
	case IBV_WC_LOC_QP_OP_ERR:
		return VSTEER_RX_FAIL_STOP;
	default:
		return VSTEER_RX_FAIL_FRAME;
	}
}

/* An error completion: a lost frame counts, a stopped WQ is noted. */
static inline void
vsteer_rx_failed(struct vsteer_rxq *rxq, const struct vsteer_rx_cqe *c)
{
	if (c->fail != VSTEER_RX_FAIL_FLUSH)
		rxq->stats.errors++;
	if (c->fail != VSTEER_RX_FAIL_FRAME)
		rxq->stopped = 1;
}

/* One completion, one mbuf at a time (scatter queues, or a pool that ran
 * short of a chunk): a packet into pkts[*n] or a drop; its WQE is queued
 * for reposting in every case. */
static inline void
vsteer_rx_one(struct vsteer_rxq *rxq, const struct vsteer_rx_cqe *c,
	      struct rte_mbuf **pkts, uint16_t *n, uint64_t *bytes,
	      struct ibv_recv_wr ***link)
{
	struct rte_mbuf *pkt;

	if (unlikely(c->idx >= rxq->wqe_n)) {
		/* Not one of ours: nothing to repost. */
		rxq->stats.errors++;
		return;
	}
	if (likely(c->ok)) {
		pkt = vsteer_rx_take(rxq, c->idx, c->len);
		if (likely(pkt != NULL)) {
			vsteer_rx_finish(rxq, c, pkt);
			pkts[(*n)++] = pkt;
			*bytes += c->len;
		}
	} else {
		/* LOC_LEN_ERR (frame larger than the buffers),
		 * LOC_PROT_ERR, flush...: the buffers go back. */
		vsteer_rx_failed(rxq, c);
	}
	vsteer_rx_requeue(rxq, c->idx, link);
}

/*
 * A chunk of completions of a one-segment queue: the replacement mbufs in
 * one bulk get, raw (the fields a received packet needs are written from
 * the queue's template), their lkeys from the queue's last registration
 * hit. When the pool cannot give the whole chunk, mbuf by mbuf.
 */
static void
vsteer_rx_chunk(struct vsteer_rxq *rxq, const struct vsteer_rx_cqe *c,
		uint32_t cnt, struct rte_mbuf **pkts, uint16_t *n,
		uint64_t *bytes, struct ibv_recv_wr ***link)
{
	struct vsteer_priv *priv = rxq->priv;
	struct vsteer_mr_hit *hit = &rxq->mr_hit;
	struct rte_mbuf *rep[VSTEER_RX_CHUNK];
	uint32_t i, ok = 0, k = 0, gen;

	/* The received mbufs were posted a ring ago: their headers are
	 * cold, fetch them all while the replacements come. */
	for (i = 0; i < cnt; i++) {
		if (likely(c[i].idx < rxq->wqe_n)) {
			rte_prefetch0(rxq->elts[c[i].idx]);
			ok += c[i].ok;
		}
	}
	if (ok != 0 &&
	    unlikely(rte_mempool_get_bulk(rxq->mp, (void **)rep, ok) != 0)) {
		for (i = 0; i < cnt; i++)
			vsteer_rx_one(rxq, &c[i], pkts, n, bytes, link);
		return;
	}
	gen = __atomic_load_n(&priv->mr.gen, __ATOMIC_ACQUIRE);
	for (i = 0; i < cnt; i++) {
		const struct vsteer_rx_cqe *e = &c[i];
		struct rte_mbuf *pkt, *m;
		uintptr_t addr;
		uint32_t lkey;

		if (unlikely(e->idx >= rxq->wqe_n)) {
			rxq->stats.errors++;
			continue;
		}
		if (unlikely(!e->ok)) {
			vsteer_rx_failed(rxq, e);
			vsteer_rx_requeue(rxq, e->idx, link);
			continue;
		}
		m = rep[k++];
		addr = (uintptr_t)m->buf_addr + RTE_PKTMBUF_HEADROOM;
		if (likely(addr >= hit->start &&
			   addr + rxq->seg_room <= hit->end &&
			   hit->gen == gen)) {
			lkey = hit->lkey;
		} else if (vsteer_mr_lookup(priv, hit, addr, rxq->seg_room,
					    rxq->mp, &lkey) != 0) {
			/* Cannot happen with one registered pool: keep the
			 * old buffer posted, drop the packet. */
			rte_mempool_put(rxq->mp, m);
			rxq->stats.errors++;
			vsteer_rx_requeue(rxq, e->idx, link);
			continue;
		}
		pkt = rxq->elts[e->idx];
		rxq->elts[e->idx] = m;
		rxq->sges[e->idx].addr = addr;
		rxq->sges[e->idx].lkey = lkey;
		/* data_off, refcnt, nb_segs, port; next is NULL in a
		 * buffer that was free. */
		*(uint64_t *)RTE_PTR_ADD(pkt, offsetof(struct rte_mbuf,
						       rearm_data)) =
			rxq->mbuf_init;
		pkt->data_len = (uint16_t)e->len;
		pkt->pkt_len = e->len;
		vsteer_rx_finish(rxq, e, pkt);
		pkts[(*n)++] = pkt;
		*bytes += e->len;
		vsteer_rx_requeue(rxq, e->idx, link);
	}
}

/* What the burst needs of the current completion. */
static inline void
vsteer_rx_read(const struct vsteer_rxq *rxq, struct ibv_cq_ex *cq,
	       struct vsteer_rx_cqe *c)
{
	c->idx = (uint32_t)cq->wr_id;
	c->ok = cq->status == IBV_WC_SUCCESS;
	c->fail = likely(c->ok) ? 0 : vsteer_rx_fail(cq->status);
	c->len = 0;
	c->wc_flags = 0;
	c->tag = 0;
	c->cvlan = 0;
	c->ts = 0;
	if (likely(c->ok)) {
		c->len = ibv_wc_read_byte_len(cq);
		if (rxq->csum)
			c->wc_flags = ibv_wc_read_wc_flags(cq);
		if (rxq->tag)
			c->tag = ibv_wc_read_flow_tag(cq);
		if (rxq->strip)
			c->cvlan = ibv_wc_read_cvlan(cq);
		if (rxq->ts)
			c->ts = ibv_wc_read_completion_ts(cq);
	}
}

/* Read the CQ into the read-ahead ring (rx_queue_count, descriptor
 * status); returns how many completions wait there. */
static uint32_t
vsteer_rx_read_ahead(struct vsteer_rxq *rxq)
{
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	struct ibv_cq_ex *cq = rxq->cq;
	uint32_t mask = rxq->wqe_n - 1;

	if (cq == NULL || rxq->ahead_n == rxq->wqe_n ||
	    ibv_start_poll(cq, &attr) != 0)
		return rxq->ahead_n;
	do {
		vsteer_rx_read(rxq, cq,
			       &rxq->ahead[(rxq->ahead_head + rxq->ahead_n) &
					   mask]);
		rxq->ahead_n++;
	} while (rxq->ahead_n < rxq->wqe_n && ibv_next_poll(cq) == 0);
	ibv_end_poll(cq);
	return rxq->ahead_n;
}

/* Up to max completions into c: those a queue status query read first,
 * then the CQ's. */
static inline uint32_t
vsteer_rx_poll(struct vsteer_rxq *rxq, struct vsteer_rx_cqe *c, uint32_t max)
{
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	struct ibv_cq_ex *cq = rxq->cq;
	uint32_t n = 0;
	int ret;

	while (unlikely(rxq->ahead_n != 0) && n < max) {
		c[n++] = rxq->ahead[rxq->ahead_head];
		rxq->ahead_head = (rxq->ahead_head + 1) & (rxq->wqe_n - 1);
		rxq->ahead_n--;
	}
	if (n == max)
		return n;
	ret = ibv_start_poll(cq, &attr);
	if (ret != 0) {
		/* ENOENT: empty, and no end_poll is due. */
		if (unlikely(ret != ENOENT))
			rxq->stats.errors++;
		return n;
	}
	do {
		vsteer_rx_read(rxq, cq, &c[n]);
		n++;
	} while (n < max && ibv_next_poll(cq) == 0);
	ibv_end_poll(cq);
	return n;
}

uint16_t
vsteer_rx_burst(void *dpdk_rxq, struct rte_mbuf **pkts, uint16_t pkts_n)
{
	struct vsteer_rxq *rxq = dpdk_rxq;
	struct ibv_recv_wr *head = NULL, **link = &head, *bad, *w;
	struct vsteer_rx_cqe c[VSTEER_RX_CHUNK];
	uint32_t polled = 0, want, got, i;
	uint64_t bytes = 0;
	uint16_t n = 0;
	int ret;

	if (unlikely(rxq->cq == NULL || pkts_n == 0))
		return 0;
	do {
		want = RTE_MIN((uint32_t)pkts_n - polled,
			       (uint32_t)VSTEER_RX_CHUNK);
		got = vsteer_rx_poll(rxq, c, want);
		if (got == 0)
			break;
		polled += got;
		if (likely(rxq->sges_n == 1)) {
			vsteer_rx_chunk(rxq, c, got, pkts, &n, &bytes, &link);
		} else {
			for (i = 0; i < got; i++)
				vsteer_rx_one(rxq, &c[i], pkts, &n, &bytes,
					      &link);
		}
	} while (got == want && polled < pkts_n);
	rxq->stats.packets += n;
	rxq->stats.bytes += bytes;
	/* The device stopped the WQ: posting to it would only flush. */
	if (unlikely(rxq->stopped)) {
		vsteer_rxq_recover(rxq);
		return n;
	}
	if (head != NULL) {
		ret = ibv_post_wq_recv(rxq->wq, head, &bad);
		if (unlikely(ret != 0)) {
			/* The unposted WQEs keep their mbufs, freed at stop;
			 * the queue runs with fewer buffers. */
			rxq->stats.post_errors++;
			for (w = bad != NULL ? bad : head; w != NULL;
			     w = w->next)
				rxq->unposted++;
			RX_LOG(DEBUG, "port %u: Rx queue %u: repost: %s",
			       rxq->port_id, rxq->queue_id, strerror(ret));
		}
	}
	return n;
}

uint32_t
vsteer_rx_queue_count(void *dpdk_rxq)
{
	return vsteer_rx_read_ahead(dpdk_rxq);
}

int
vsteer_rx_descriptor_status(void *dpdk_rxq, uint16_t offset)
{
	struct vsteer_rxq *rxq = dpdk_rxq;

	if (offset >= rxq->wqe_n)
		return -EINVAL;
	if (offset < vsteer_rx_read_ahead(rxq))
		return RTE_ETH_RX_DESC_DONE;
	/* Posted and waiting for a frame, or not posted at all. */
	if (rxq->wq != NULL && offset < rxq->wqe_n - rxq->unposted)
		return RTE_ETH_RX_DESC_AVAIL;
	return RTE_ETH_RX_DESC_UNAVAIL;
}

/* Status names for the log (ibv_wc_status_str() is not portable to the
 * glue). */
static const char *
vsteer_wc_status(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_LOC_LEN_ERR:
		return "local length error (frame longer than the port's MTU)";
	case IBV_WC_LOC_PROT_ERR:
		return "local protection error (memory not registered)";
	case IBV_WC_LOC_QP_OP_ERR:
		return "local QP operation error";
	case IBV_WC_WR_FLUSH_ERR:
		return "flushed";
	default:
		return "error";
	}
}

/* Free the mbufs of slots [tail, tail + n), counting them as sent (or as
 * not sent): in bulk, at most two runs of the ring. */
void
vsteer_tx_retire(struct vsteer_txq *txq, uint32_t n, int sent)
{
	while (n > 0) {
		uint32_t at = txq->tail & txq->elts_mask;
		uint32_t run = RTE_MIN(n, txq->elts_n - at), i;
		struct rte_mbuf **slot = &txq->elts[at];

		if (likely(sent)) {
			uint64_t bytes = 0;

			for (i = 0; i < run; i++)
				bytes += slot[i]->pkt_len;
			txq->stats.packets += run;
			txq->stats.bytes += bytes;
		} else {
			txq->stats.comp_errors += run;
		}
		rte_pktmbuf_free_bulk(slot, run);
		txq->tail += run;
		n -= run;
	}
}

uint32_t
vsteer_tx_complete(struct vsteer_txq *txq)
{
	struct ibv_cq_ex *cq = txq->cq;
	struct ibv_poll_cq_attr attr = { .comp_mask = 0 };
	uint32_t done = 0, before;
	int ret;

	ret = ibv_start_poll(cq, &attr);
	if (ret != 0)
		return 0;
	do {
		uint32_t id = (uint32_t)cq->wr_id;
		enum ibv_wc_status st = cq->status;

		/* Only ids in flight count (wr_id is the ring counter); a
		 * queue reset leaves stale completions behind. */
		if (id - txq->tail >= txq->head - txq->tail)
			goto next;
		/* Completions come in order and every failed WR has its
		 * own: the unsignalled WRs before this one went out. */
		before = id - txq->tail;
		done += before + 1;
		if (likely(st == IBV_WC_SUCCESS)) {
			/* This one went out too: one retire for all. */
			vsteer_tx_retire(txq, before + 1, 1);
		} else {
			if (before != 0)
				vsteer_tx_retire(txq, before, 1);
			/* The QP is in error now: the WRs after this one
			 * complete flushed, or go with the reset. */
			if (!txq->qp_err && st != IBV_WC_WR_FLUSH_ERR) {
				if (!txq->warned)
					TX_LOG(WARNING,
					       "port %u: Tx queue %u: %s: frame dropped, send queue reset",
					       txq->port_id, txq->queue_id,
					       vsteer_wc_status(st));
				else
					TX_LOG(DEBUG,
					       "port %u: Tx queue %u: %s",
					       txq->port_id, txq->queue_id,
					       vsteer_wc_status(st));
				txq->warned = 1;
			}
			txq->qp_err = 1;
			vsteer_tx_retire(txq, 1, 0);
		}
next:
		ret = ibv_next_poll(cq);
	} while (ret == 0);
	ibv_end_poll(cq);
	return done;
}

int
vsteer_tx_descriptor_status(void *dpdk_txq, uint16_t offset)
{
	struct vsteer_txq *txq = dpdk_txq;
	uint32_t free_n;

	if (offset >= txq->elts_n)
		return -EINVAL;
	if (txq->cq != NULL && txq->tail != txq->head)
		vsteer_tx_complete(txq);
	/* From the next slot to use: the free ones, then those whose WR the
	 * device still holds. One slot always stays free. */
	free_n = txq->elts_n - (txq->head - txq->tail);
	if (offset < free_n - 1)
		return RTE_ETH_TX_DESC_DONE;
	if (offset == free_n - 1)
		return RTE_ETH_TX_DESC_UNAVAIL;
	return RTE_ETH_TX_DESC_FULL;
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

/*
 * A TCP segmentation (TSO) packet as one IBV_WR_TSO: its headers (L2 to
 * L4, in its first segment) given apart, which libmlx5 copies into the
 * WQE, the payload gathered from the rest, cut by the device into frames
 * of tso_segsz bytes with their IPv4 and TCP checksums (IBV_SEND_IP_CSUM,
 * as DPDK's mlx5 sets the checksum flags of a TSO WQE). Fills wr's TSO
 * fields and the SGEs; returns their count (0: headers alone, one
 * frame), -1 for a packet the device would refuse (dropped before it, as
 * any other).
 */
static int
vsteer_tx_tso(struct vsteer_txq *txq, struct rte_mbuf *m,
	      struct ibv_send_wr *wr, struct ibv_sge *sg)
{
	struct vsteer_priv *priv = txq->priv;
	uint32_t hdr = (uint32_t)m->l2_len + m->l3_len + m->l4_len;
	struct rte_mbuf *seg;
	uint32_t k = 0, off = hdr;

	if (unlikely(!txq->tso || hdr > VSTEER_TSO_HDR_MAX ||
		     hdr < RTE_ETHER_HDR_LEN || m->tso_segsz == 0 ||
		     hdr > rte_pktmbuf_data_len(m) ||
		     (m->ol_flags & RTE_MBUF_F_TX_TUNNEL_MASK) ||
		     hdr + m->tso_segsz > txq->max_frame ||
		     m->pkt_len - hdr > priv->max_tso ||
		     m->nb_segs > txq->max_sge))
		return -1;
	for (seg = m; seg != NULL; seg = seg->next) {
		uint32_t len = seg->data_len - off;
		uintptr_t addr = rte_pktmbuf_mtod_offset(seg, uintptr_t, off);

		off = 0;
		if (len == 0)
			continue;
		if (unlikely(vsteer_mr_lkey(priv, &txq->mr_hit, addr, len,
					    vsteer_tx_seg_pool(seg),
					    &sg[k].lkey) != 0))
			return -1;
		sg[k].addr = addr;
		sg[k].length = len;
		k++;
	}
	wr->opcode = IBV_WR_TSO;
	wr->send_flags = IBV_SEND_IP_CSUM;
	wr->tso.hdr = rte_pktmbuf_mtod(m, void *);
	wr->tso.hdr_sz = (uint16_t)hdr;
	wr->tso.mss = m->tso_segsz;
	return (int)k;
}

uint16_t
vsteer_tx_burst(void *dpdk_txq, struct rte_mbuf **pkts, uint16_t pkts_n)
{
	struct vsteer_txq *txq = dpdk_txq;
	struct vsteer_priv *priv = txq->priv;
	struct vsteer_mr_hit *hit = &txq->mr_hit;
	struct ibv_send_wr *head = NULL, **link = &head, *bad = NULL;
	struct ibv_send_wr *last = NULL;
	uint32_t room, nsge = 0, since_signal = 0, gen;
	uint16_t i;
	int ret;

	if (unlikely(txq->cq == NULL))
		return 0;
	/* What the device finished since the last burst: counted, freed,
	 * and a send queue error noticed (a synchronous device has
	 * nothing left here). */
	if (txq->tail != txq->head)
		vsteer_tx_complete(txq);
	if (unlikely(txq->qp_err) && vsteer_txq_recover(txq) != 0)
		return 0;
	/* At most max_send_wr - 1 WRs in flight: one slot stays free, as
	 * ring-based send queues need. */
	room = txq->elts_n - 1 - (txq->head - txq->tail);
	gen = __atomic_load_n(&priv->mr.gen, __ATOMIC_ACQUIRE);
	for (i = 0; i < pkts_n && room > 0; i++) {
		struct rte_mbuf *m = pkts[i], *seg;
		struct ibv_send_wr *wr = &txq->wrs[txq->head & txq->elts_mask];
		struct ibv_sge *sg = &txq->sges[nsge];
		uint32_t k = 0;

		/* The next packet's header, and the line of this one that
		 * the free after completion reads (next). */
		if (i + 1 < pkts_n)
			rte_prefetch0(pkts[i + 1]);
		rte_prefetch0(RTE_PTR_ADD(m, RTE_CACHE_LINE_SIZE));
		if (unlikely(m->ol_flags & RTE_MBUF_F_TX_TCP_SEG)) {
			int r = vsteer_tx_tso(txq, m, wr, sg);

			if (r < 0)
				goto drop;
			k = (uint32_t)r;
			goto post;
		}
		/* What the port cannot send never reaches the device: a
		 * failed WR would put the send queue in error. */
		if (unlikely(m->pkt_len > txq->max_frame ||
			     m->pkt_len < RTE_ETHER_HDR_LEN ||
			     m->nb_segs > txq->max_sge))
			goto drop;
		if (likely(m->nb_segs == 1 && RTE_MBUF_DIRECT(m))) {
			/* One segment of the mbuf's own pool. */
			uintptr_t addr = rte_pktmbuf_mtod(m, uintptr_t);

			if (likely(addr >= hit->start &&
				   addr + m->data_len <= hit->end &&
				   hit->gen == gen))
				sg[0].lkey = hit->lkey;
			else if (unlikely(vsteer_mr_lookup(priv, hit, addr,
							   m->data_len, m->pool,
							   &sg[0].lkey) != 0))
				goto drop;
			sg[0].addr = addr;
			sg[0].length = m->data_len;
			k = 1;
		} else {
			for (seg = m; seg != NULL; seg = seg->next) {
				uintptr_t addr =
					rte_pktmbuf_mtod(seg, uintptr_t);

				if (seg->data_len == 0)
					continue;
				/* Never post memory outside a registration. */
				if (unlikely(vsteer_mr_lkey(priv, hit, addr,
							    seg->data_len,
							    vsteer_tx_seg_pool(
								    seg),
							    &sg[k].lkey) != 0))
					goto drop;
				sg[k].addr = addr;
				sg[k].length = seg->data_len;
				k++;
			}
			if (unlikely(k == 0))
				goto drop;
		}
		wr->opcode = IBV_WR_SEND;
		wr->send_flags = 0;
		if (txq->csum && (m->ol_flags & (RTE_MBUF_F_TX_IP_CKSUM |
						 RTE_MBUF_F_TX_L4_MASK)) != 0)
			wr->send_flags |= IBV_SEND_IP_CSUM;
post:
		wr->wr_id = txq->head;
		wr->next = NULL;
		wr->sg_list = sg;
		wr->num_sge = (int)k;
		/* Long bursts free their slots early on hardware. */
		if (++since_signal == VSTEER_TX_COMP_THRESH) {
			wr->send_flags |= IBV_SEND_SIGNALED;
			since_signal = 0;
		}
		txq->elts[txq->head & txq->elts_mask] = m;
		txq->head++;
		nsge += k;
		room--;
		*link = wr;
		link = &wr->next;
		last = wr;
		continue;
drop:
		txq->stats.errors++;
		rte_pktmbuf_free(m);
	}
	if (head == NULL)
		return i;
	/* Every burst ends signalled: its frames count as soon as the
	 * device is done with them. One post, one doorbell, per burst. */
	last->send_flags |= IBV_SEND_SIGNALED;
	ret = ibv_post_send(txq->qp, head, &bad);
	if (unlikely(ret != 0)) {
		struct ibv_send_wr *wr;
		uint32_t first_bad =
			(uint32_t)(bad != NULL ? bad : head)->wr_id;

		/* WRs from bad on were not posted: the packets are dropped
		 * (they are consumed, as the count returned says). Posted
		 * ones before it without a signalled WR complete with the
		 * next burst's. */
		for (wr = bad != NULL ? bad : head; wr != NULL; wr = wr->next) {
			uint32_t slot = (uint32_t)wr->wr_id & txq->elts_mask;

			rte_pktmbuf_free(txq->elts[slot]);
			txq->elts[slot] = NULL;
			txq->stats.errors++;
		}
		txq->head = first_bad;
		TX_LOG(DEBUG, "port %u: Tx queue %u: post_send: %s",
		       txq->port_id, txq->queue_id, strerror(ret));
	}
	/* A synchronous device (softverbs) completed them already. */
	if (txq->tail != txq->head)
		vsteer_tx_complete(txq);
	return i;
}
