/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * ethdev operations: configuration, start/stop/close, link, MTU, Rx modes,
 * MAC and VLAN filters (all implemented as default flows), VLAN stripping,
 * packet types, statistics, RSS, device information. Queue start/stop and
 * interrupts live with the queues (vsteer_rxq.c, vsteer_txq.c) and in
 * vsteer_intr.c.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "vsteer.h"

static void vsteer_queue_stats_fold(struct rte_eth_dev *dev);

static int
vsteer_dev_configure(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	const struct rte_eth_conf *conf = &dev->data->dev_conf;
	const struct rte_eth_rss_conf *rss = &conf->rx_adv_conf.rss_conf;
	enum rte_eth_rx_mq_mode mq = conf->rxmode.mq_mode;
	int ret;

	VSTEER_CTL_HELD(priv);
	if (mq != RTE_ETH_MQ_RX_NONE && mq != RTE_ETH_MQ_RX_RSS) {
		DRV_LOG(ERR,
			"port %u: Rx mq_mode %d: only none and RSS are supported",
			dev->data->port_id, mq);
		return -ENOTSUP;
	}
	if (conf->txmode.mq_mode != RTE_ETH_MQ_TX_NONE) {
		DRV_LOG(ERR, "port %u: Tx mq_mode %d: only none is supported",
			dev->data->port_id, conf->txmode.mq_mode);
		return -ENOTSUP;
	}
	if (dev->data->nb_rx_queues > priv->ind_tbl_max) {
		DRV_LOG(ERR,
			"port %u: %u Rx queues, the indirection table holds %u",
			dev->data->port_id, dev->data->nb_rx_queues,
			priv->ind_tbl_max);
		return -EINVAL;
	}
	if (rss->rss_key != NULL) {
		if (rss->rss_key_len != VSTEER_RSS_KEY_LEN) {
			DRV_LOG(ERR, "port %u: RSS key of %u bytes, must be %u",
				dev->data->port_id, rss->rss_key_len,
				VSTEER_RSS_KEY_LEN);
			return -EINVAL;
		}
		memcpy(priv->rss_key, rss->rss_key, VSTEER_RSS_KEY_LEN);
	} else {
		memcpy(priv->rss_key, vsteer_flow_rss_key_default,
		       VSTEER_RSS_KEY_LEN);
	}
	if (mq & RTE_ETH_MQ_RX_RSS_FLAG) {
		if (rss->rss_hf & ~priv->rss_hf_supported) {
			DRV_LOG(ERR,
				"port %u: RSS types 0x%" PRIx64
				" not supported (supported 0x%" PRIx64 ")",
				dev->data->port_id,
				rss->rss_hf & ~priv->rss_hf_supported,
				priv->rss_hf_supported);
			return -EINVAL;
		}
		priv->rss_hf = rss->rss_hf;
	} else {
		priv->rss_hf = 0;
	}
	ret = vsteer_intr_configure(dev);
	if (ret != 0)
		return ret;
	if (priv->reta_nb_rxq != dev->data->nb_rx_queues)
		vsteer_reta_default(dev);
	vsteer_queue_stats_fold(dev);
	DRV_LOG(INFO, "port %u: %u Rx / %u Tx queues, RSS types 0x%" PRIx64,
		dev->data->port_id, dev->data->nb_rx_queues,
		dev->data->nb_tx_queues, priv->rss_hf);
	return 0;
}

/* The key, types and RETA the flow ops and default flows read. */
static int
vsteer_dev_configure_op(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	vsteer_ctl_lock(priv);
	ret = vsteer_dev_configure(dev);
	vsteer_ctl_unlock(priv);
	return ret;
}

static int
vsteer_dev_infos_get(struct rte_eth_dev *dev, struct rte_eth_dev_info *info)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint32_t max_qp = (uint32_t)priv->dev_attr.orig_attr.max_qp;

	info->max_rx_queues = RTE_MIN(RTE_MIN(max_qp, priv->ind_tbl_max),
				      (uint32_t)RTE_MAX_QUEUES_PER_PORT);
	info->max_tx_queues =
		RTE_MIN(max_qp, (uint32_t)RTE_MAX_QUEUES_PER_PORT);
	info->min_rx_bufsize = RTE_ETHER_MIN_LEN;
	info->max_rx_pktlen = vsteer_rx_frame_max(dev, priv->max_mtu);
	info->min_mtu = priv->min_mtu;
	info->max_mtu = priv->max_mtu;
	info->max_mac_addrs = VSTEER_MAX_MAC;
	info->max_vfs = 0;
	/* Per queue: its buffers, checksum flags, its WQ's stripping. The
	 * checksum verdicts are the burst's (vsteer_rxtx.c): from the
	 * completion where the device vouches for a frame, which a ConnectX
	 * never does on a work queue, else checked in software; so they do
	 * not depend on IBV_DEVICE_RAW_IP_CSUM, which speaks of QPs. */
	info->rx_queue_offload_capa = RTE_ETH_RX_OFFLOAD_SCATTER |
				      RTE_ETH_RX_OFFLOAD_CHECKSUM;
	if (priv->vlan_strip_ok)
		info->rx_queue_offload_capa |= RTE_ETH_RX_OFFLOAD_VLAN_STRIP;
	if (priv->ts_ok)
		info->rx_queue_offload_capa |= RTE_ETH_RX_OFFLOAD_TIMESTAMP;
	/* Per port: the default flows filter VLANs. */
	info->rx_offload_capa = info->rx_queue_offload_capa |
				RTE_ETH_RX_OFFLOAD_VLAN_FILTER;
	info->tx_offload_capa = RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	if (priv->tx_csum)
		info->tx_offload_capa |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
					 RTE_ETH_TX_OFFLOAD_UDP_CKSUM |
					 RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
	/* TSO segments get their checksums from the device (libmlx5 sets
	 * the checksum flags with IBV_SEND_IP_CSUM): with checksums only. */
	if (priv->tso_ok && priv->tx_csum)
		info->tx_offload_capa |= RTE_ETH_TX_OFFLOAD_TCP_TSO;
	info->tx_queue_offload_capa = info->tx_offload_capa;
	info->flow_type_rss_offloads = priv->rss_hf_supported;
	info->hash_key_size = VSTEER_RSS_KEY_LEN;
	info->reta_size = priv->reta_size;
	info->rx_desc_lim.nb_max = (uint16_t)RTE_MIN(priv->max_wr, 32768u);
	info->rx_desc_lim.nb_min = VSTEER_DESC_MIN;
	info->rx_desc_lim.nb_align = 1;
	info->tx_desc_lim = info->rx_desc_lim;
	info->rx_desc_lim.nb_seg_max =
		(uint16_t)RTE_MIN(priv->max_sge, (uint32_t)VSTEER_RX_MAX_SGE);
	info->rx_desc_lim.nb_mtu_seg_max = info->rx_desc_lim.nb_seg_max;
	/* What the device's send queues took at probe: every count up to
	 * nb_max makes a queue (a multi-segment one may hold fewer). */
	info->tx_desc_lim.nb_max = (uint16_t)priv->tx_wr_max;
	info->tx_desc_lim.nb_seg_max = (uint16_t)priv->tx_sge_max;
	info->tx_desc_lim.nb_mtu_seg_max = info->tx_desc_lim.nb_seg_max;
	info->default_rxportconf.ring_size = 512;
	info->default_txportconf.ring_size = 512;
	info->default_rxportconf.burst_size = 32;
	info->default_txportconf.burst_size = 32;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	/* Flows and indirect actions survive stop/start (vsteer_flow.c). */
	info->dev_capa = RTE_ETH_DEV_CAPA_FLOW_RULE_KEEP |
			 RTE_ETH_DEV_CAPA_FLOW_SHARED_OBJECT_KEEP;
	return 0;
}

/* IB speed and width encodings (ibv_query_port(3)) to Mb/s: the port's
 * speed when its netdev cannot say. */
static uint32_t
vsteer_ib_speed_mbps(uint8_t speed, uint8_t width)
{
	uint32_t lane = 0, lanes = 0;

	switch (speed) {
	case 1:
		lane = 2500;
		break;
	case 2:
		lane = 5000;
		break;
	case 4:
	case 8:
		lane = 10000;
		break;
	case 16:
		lane = 14000;
		break;
	case 32:
		lane = 25000;
		break;
	case 64:
		lane = 50000;
		break;
	case 128:
		lane = 100000;
		break;
	default:
		break;
	}
	switch (width) {
	case 1:
		lanes = 1;
		break;
	case 2:
		lanes = 4;
		break;
	case 4:
		lanes = 8;
		break;
	case 8:
		lanes = 12;
		break;
	case 16:
		lanes = 2;
		break;
	default:
		break;
	}
	return lane * lanes;
}

int
vsteer_link_update(struct rte_eth_dev *dev, int wait_to_complete)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_glue_link gl;
	struct rte_eth_link link;
	struct ibv_port_attr pa;
	uint32_t mbps;
	int ret;

	RTE_SET_USED(wait_to_complete);
	memset(&link, 0, sizeof(link));
	ret = priv->glue->query_port(priv->ctx, priv->port_num, &pa);
	if (ret != 0) {
		DRV_LOG(ERR, "port %u: query_port: %s", dev->data->port_id,
			strerror(ret));
		return rte_eth_linkstatus_set(dev, &link);
	}
	priv->port_attr = pa;
	/* A stopped port is down, as a NIC whose MAC is off. */
	link.link_status = pa.state == IBV_PORT_ACTIVE && priv->started ?
				   RTE_ETH_LINK_UP :
				   RTE_ETH_LINK_DOWN;
	link.link_duplex = RTE_ETH_LINK_FULL_DUPLEX;
	link.link_autoneg = RTE_ETH_LINK_FIXED;
	/* The netdev's own speed and duplex (ethtool); the IB encodings
	 * cannot say 1G or 2.5G and round the others. */
	if (priv->glue->port_link(priv->ctx, priv->port_num, &gl) == 0) {
		mbps = gl.speed_mbps;
		link.link_duplex = gl.full_duplex ? RTE_ETH_LINK_FULL_DUPLEX :
						    RTE_ETH_LINK_HALF_DUPLEX;
		link.link_autoneg = gl.autoneg ? RTE_ETH_LINK_AUTONEG :
						 RTE_ETH_LINK_FIXED;
	} else {
		mbps = vsteer_ib_speed_mbps(pa.active_speed, pa.active_width);
	}
	if (link.link_status == RTE_ETH_LINK_UP)
		link.link_speed = mbps != 0 ? mbps : RTE_ETH_SPEED_NUM_UNKNOWN;
	return rte_eth_linkstatus_set(dev, &link);
}

/* The Tx queues send frames up to mtu from now on. */
static void
vsteer_txq_mtu(struct rte_eth_dev *dev, uint16_t mtu)
{
	uint16_t i;

	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct vsteer_txq *txq = dev->data->tx_queues[i];

		if (txq != NULL)
			txq->max_frame = (uint32_t)mtu + VSTEER_TX_OVERHEAD;
	}
}

/*
 * Set the device's MTU (the interface's, for softverbs on one, or the
 * RDMA port's netdev) when it differs from mtu. at_start: a device whose
 * MTU cannot be read (an RDMA port without a netdev found) is left as it
 * is, with a warning; an explicit MTU change is refused instead. *prev,
 * when not NULL, gets the MTU the device had, or 0 when it was not
 * changed.
 */
static int
vsteer_mtu_apply(struct rte_eth_dev *dev, uint16_t mtu, bool at_start,
		 unsigned int *prev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	unsigned int cur = 0, max = 0;
	int ret;

	if (prev != NULL)
		*prev = 0;
	ret = priv->glue->port_mtu(priv->ctx, priv->port_num, &cur, &max);
	if (ret != 0 && at_start) {
		DRV_LOG(WARNING, "port %u: MTU of %s unknown (%s), not set",
			dev->data->port_id, priv->ibdev_name, strerror(ret));
	} else if (ret != 0 || cur != mtu) {
		ret = priv->glue->port_set_mtu(priv->ctx, priv->port_num, mtu);
		if (ret != 0) {
			DRV_LOG(ERR, "port %u: MTU %u on %s: %s%s",
				dev->data->port_id, mtu, priv->ibdev_name,
				strerror(ret),
				ret == EPERM ?
					" (setting an interface's MTU needs CAP_NET_ADMIN)" :
				ret == EINVAL ?
					" (beyond what the device takes)" :
					"");
			return -ret;
		}
		if (prev != NULL && ret == 0)
			*prev = cur;
	}
	vsteer_txq_mtu(dev, mtu);
	return 0;
}

/* A start that failed gives the device back the MTU it had before. */
static void
vsteer_mtu_restore(struct rte_eth_dev *dev, unsigned int prev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	if (prev == 0)
		return;
	ret = priv->glue->port_set_mtu(priv->ctx, priv->port_num, prev);
	if (ret != 0)
		DRV_LOG(ERR, "port %u: start failed; MTU %u back on %s: %s",
			dev->data->port_id, prev, priv->ibdev_name,
			strerror(ret));
}

void
vsteer_ethdev_init(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	unsigned int mtu = 0, max = 0;

	priv->vlan_strip_ok = (priv->dev_attr.raw_packet_caps &
			       IBV_RAW_PACKET_CAP_CVLAN_STRIPPING) != 0;
	/* The device's limits and current MTU (a jumbo interface stays
	 * jumbo until the application says otherwise). */
	if (priv->glue->port_mtu(priv->ctx, priv->port_num, &mtu, &max) == 0) {
		if (max >= priv->min_mtu)
			priv->max_mtu =
				(uint16_t)RTE_MIN(max,
						  (unsigned int)UINT16_MAX);
		if (mtu >= priv->min_mtu && mtu <= priv->max_mtu)
			dev->data->mtu = (uint16_t)mtu;
	}
	dev->rx_queue_count = vsteer_rx_queue_count;
	dev->rx_descriptor_status = vsteer_rx_descriptor_status;
	dev->tx_descriptor_status = vsteer_tx_descriptor_status;
}

static void
vsteer_dev_stop_queues(struct rte_eth_dev *dev)
{
	uint16_t i;

	/* The channel fds leave the interrupt handle before they close. */
	vsteer_rx_intr_vec_disable(dev);
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		if (dev->data->rx_queues[i] != NULL)
			vsteer_rxq_stop(dev->data->rx_queues[i]);
		dev->data->rx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		if (dev->data->tx_queues[i] != NULL)
			vsteer_txq_stop(dev->data->tx_queues[i]);
		dev->data->tx_queue_state[i] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
}

/* Undo a start: also the unwinding of a start that failed late. */
static void
vsteer_dev_teardown(struct rte_eth_dev *dev)
{
	VSTEER_CTL_HELD(vsteer_priv(dev));
	/* Flows first: they hold the RSS contexts, which hold the WQs. */
	vsteer_flow_stop(dev);
	vsteer_defflow_remove(dev);
	vsteer_priv(dev)->started = 0;
	vsteer_rss_flush(dev);
	vsteer_dev_stop_queues(dev);
}

static int
vsteer_dev_stop(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	VSTEER_CTL_HELD(priv);
	if (!priv->started)
		return 0;
	vsteer_dev_teardown(dev);
	dev->data->dev_link.link_status = RTE_ETH_LINK_DOWN;
	DRV_LOG(INFO, "port %u stopped", dev->data->port_id);
	return 0;
}

static int
vsteer_dev_stop_op(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	vsteer_ctl_lock(priv);
	ret = vsteer_dev_stop(dev);
	vsteer_ctl_unlock(priv);
	return ret;
}

/*
 * Rx queues set up for a smaller MTU would drop the larger frames: a
 * running port refuses such an MTU, a stopped one takes it and refuses to
 * start until the queues are set up again (what Open vSwitch does after
 * an MTU change: configure, MTU, queues with the new mempool, start).
 * The message says how: a queue without the scatter offload needs it (or
 * mbufs that hold the frame), one with it only a new setup, which sizes
 * its WQEs for the MTU.
 */
static int
vsteer_rxq_fit_mtu(struct rte_eth_dev *dev, uint16_t mtu)
{
	uint32_t frame = vsteer_rx_frame_max(dev, mtu);
	uint16_t i;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		const struct vsteer_rxq *rxq = dev->data->rx_queues[i];

		if (rxq == NULL || frame <= rxq->sges_n * rxq->seg_room)
			continue;
		if (rxq->offloads & RTE_ETH_RX_OFFLOAD_SCATTER)
			DRV_LOG(ERR,
				"port %u: MTU %u: Rx queue %u takes %u-byte frames, %u needed: set the queue up again (with scatter, it then takes them)",
				dev->data->port_id, mtu, i,
				rxq->sges_n * rxq->seg_room, frame);
		else
			DRV_LOG(ERR,
				"port %u: MTU %u: Rx queue %u takes %u-byte frames (one %u-byte mbuf each), %u needed: enable the Rx scatter offload (testpmd: port config %u rx_offload scatter on) or give the queue mbufs of %u bytes, then set it up again",
				dev->data->port_id, mtu, i,
				rxq->sges_n * rxq->seg_room, rxq->seg_room,
				frame, dev->data->port_id,
				frame + RTE_PKTMBUF_HEADROOM);
		return -EINVAL;
	}
	return 0;
}

static int
vsteer_dev_start(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	unsigned int prev_mtu = 0;
	uint16_t i;
	int ret;

	VSTEER_CTL_HELD(priv);
	if (priv->started)
		return 0;
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		if (dev->data->rx_queues[i] == NULL) {
			DRV_LOG(ERR, "port %u: Rx queue %u is not set up",
				dev->data->port_id, i);
			return -EINVAL;
		}
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		if (dev->data->tx_queues[i] == NULL) {
			DRV_LOG(ERR, "port %u: Tx queue %u is not set up",
				dev->data->port_id, i);
			return -EINVAL;
		}
	}
	/* The configured MTU, on the device as on a NIC: the queues are
	 * sized for it. A start that fails puts the device's back. */
	ret = vsteer_rxq_fit_mtu(dev, dev->data->mtu);
	if (ret != 0)
		return ret;
	ret = vsteer_mtu_apply(dev, dev->data->mtu, true, &prev_mtu);
	if (ret != 0)
		return ret;
	/* Deferred queues get their objects, and wait for queue start. */
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		struct vsteer_rxq *rxq = dev->data->rx_queues[i];

		ret = vsteer_rxq_start(rxq);
		if (ret != 0)
			goto err;
		dev->data->rx_queue_state[i] =
			rxq->deferred ? RTE_ETH_QUEUE_STATE_STOPPED :
					RTE_ETH_QUEUE_STATE_STARTED;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct vsteer_txq *txq = dev->data->tx_queues[i];

		ret = vsteer_txq_start(txq);
		if (ret != 0)
			goto err;
		dev->data->tx_queue_state[i] =
			txq->deferred ? RTE_ETH_QUEUE_STATE_STOPPED :
					RTE_ETH_QUEUE_STATE_STARTED;
	}
	ret = vsteer_rx_intr_vec_enable(dev);
	if (ret != 0)
		goto err;
	priv->started = 1;
	priv->promisc = dev->data->promiscuous;
	priv->allmulti = dev->data->all_multicast;
	ret = vsteer_defflow_sync(dev);
	if (ret != 0)
		goto err_flows;
	ret = vsteer_flow_start(dev);
	if (ret != 0)
		goto err_flows;
	vsteer_link_update(dev, 0);
	DRV_LOG(INFO, "port %u started", dev->data->port_id);
	return 0;
err_flows:
	vsteer_dev_teardown(dev);
	vsteer_mtu_restore(dev, prev_mtu);
	return ret;
err:
	vsteer_dev_stop_queues(dev);
	vsteer_mtu_restore(dev, prev_mtu);
	return ret;
}

static int
vsteer_dev_start_op(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	vsteer_ctl_lock(priv);
	ret = vsteer_dev_start(dev);
	vsteer_ctl_unlock(priv);
	return ret;
}

int
vsteer_dev_close(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t i;
	int ret, failed = 0;

	/* A secondary process holds nothing of its own. */
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return 0;
	if (priv->ctx == NULL)
		return 0;
	/* No secondary asks the device anything from here on. */
	vsteer_mp_port_close(dev);
	/* No aging check either; it takes the lock, so not under it. */
	vsteer_age_stop(dev);
	vsteer_ctl_lock(priv);
	vsteer_dev_stop(dev);
	vsteer_intr_fini(dev);
	vsteer_flow_close(dev);
	for (i = 0; i < dev->data->nb_rx_queues; i++)
		vsteer_rx_queue_release(dev, i);
	for (i = 0; i < dev->data->nb_tx_queues; i++)
		vsteer_tx_queue_release(dev, i);
	vsteer_ctl_unlock(priv);
	failed += vsteer_mr_fini(priv);
	/* The PD goes only when nothing is left in it: a failure here is a
	 * leak somewhere above. */
	ret = priv->glue->dealloc_pd(priv->pd);
	if (ret != 0) {
		DRV_LOG(ERR, "port %u: dealloc_pd: %s (objects leaked)",
			dev->data->port_id, strerror(ret));
		failed++;
	}
	priv->pd = NULL;
	ret = priv->glue->close_device(priv->ctx);
	if (ret != 0) {
		DRV_LOG(ERR, "port %u: close_device(%s): %s",
			dev->data->port_id, priv->ibdev_name, strerror(ret));
		failed++;
	}
	priv->ctx = NULL;
	if (priv->soft_name[0] != '\0') {
		ret = vsteer_soft_device_remove(priv->soft_name);
		/* Another port may share the device (soft:<if>). */
		if (ret != 0 && ret != EBUSY)
			DRV_LOG(ERR, "port %u: remove softverbs device %s: %s",
				dev->data->port_id, priv->soft_name,
				strerror(ret));
		priv->soft_name[0] = '\0';
	}
	rte_free(priv->rxq_saved);
	rte_free(priv->txq_saved);
	priv->rxq_saved = NULL;
	priv->txq_saved = NULL;
	dev->rx_pkt_burst = rte_eth_pkt_burst_dummy;
	dev->tx_pkt_burst = rte_eth_pkt_burst_dummy;
	DRV_LOG(INFO, "port %u closed%s", dev->data->port_id,
		failed ? " with errors" : "");
	return failed ? -EBUSY : 0;
}

/* promisc, allmulti: 1 on, 0 off, -1 as they are (read under the lock). */
static int
vsteer_rxmode_set(struct rte_eth_dev *dev, int promisc, int allmulti)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint32_t old_p, old_a;
	int ret;

	vsteer_ctl_lock(priv);
	old_p = priv->promisc;
	old_a = priv->allmulti;
	priv->promisc = promisc < 0 ? old_p : !!promisc;
	priv->allmulti = allmulti < 0 ? old_a : !!allmulti;
	ret = vsteer_defflow_sync(dev);
	if (ret != 0) {
		priv->promisc = old_p;
		priv->allmulti = old_a;
		vsteer_defflow_sync(dev);
	}
	vsteer_ctl_unlock(priv);
	return ret;
}

static int
vsteer_promiscuous_enable(struct rte_eth_dev *dev)
{
	return vsteer_rxmode_set(dev, 1, -1);
}

static int
vsteer_promiscuous_disable(struct rte_eth_dev *dev)
{
	return vsteer_rxmode_set(dev, 0, -1);
}

static int
vsteer_allmulticast_enable(struct rte_eth_dev *dev)
{
	return vsteer_rxmode_set(dev, -1, 1);
}

static int
vsteer_allmulticast_disable(struct rte_eth_dev *dev)
{
	return vsteer_rxmode_set(dev, -1, 0);
}

/* Set mac_addrs[index] (ethdev writes it too, after the op) and resync. */
static int
vsteer_mac_slot_set(struct rte_eth_dev *dev, uint32_t index,
		    const struct rte_ether_addr *mac)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct rte_ether_addr old;
	int ret;

	vsteer_ctl_lock(priv);
	old = dev->data->mac_addrs[index];
	dev->data->mac_addrs[index] = *mac;
	ret = vsteer_defflow_sync(dev);
	if (ret != 0) {
		dev->data->mac_addrs[index] = old;
		vsteer_defflow_sync(dev);
	}
	vsteer_ctl_unlock(priv);
	return ret;
}

static int
vsteer_mac_addr_add(struct rte_eth_dev *dev, struct rte_ether_addr *mac,
		    uint32_t index, uint32_t vmdq)
{
	RTE_SET_USED(vmdq);
	if (index >= VSTEER_MAX_MAC)
		return -EINVAL;
	return vsteer_mac_slot_set(dev, index, mac);
}

static void
vsteer_mac_addr_remove(struct rte_eth_dev *dev, uint32_t index)
{
	const struct rte_ether_addr zero = { .addr_bytes = { 0 } };

	if (index >= VSTEER_MAX_MAC)
		return;
	if (vsteer_mac_slot_set(dev, index, &zero) != 0)
		DRV_LOG(ERR, "port %u: removing MAC %u failed",
			dev->data->port_id, index);
}

static int
vsteer_mac_addr_set(struct rte_eth_dev *dev, struct rte_ether_addr *mac)
{
	return vsteer_mac_slot_set(dev, 0, mac);
}

static int
vsteer_set_mc_addr_list(struct rte_eth_dev *dev,
			struct rte_ether_addr *mc_addr_set, uint32_t nb_mc_addr)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct rte_ether_addr *old;
	uint32_t old_n, i;
	int ret;

	if (nb_mc_addr > VSTEER_MAX_MC) {
		DRV_LOG(ERR, "port %u: %u multicast addresses, at most %u",
			dev->data->port_id, nb_mc_addr, VSTEER_MAX_MC);
		return -ENOSPC;
	}
	for (i = 0; i < nb_mc_addr; i++) {
		if (!rte_is_multicast_ether_addr(&mc_addr_set[i])) {
			DRV_LOG(ERR,
				"port %u: " RTE_ETHER_ADDR_PRT_FMT
				" is not multicast",
				dev->data->port_id,
				RTE_ETHER_ADDR_BYTES(&mc_addr_set[i]));
			return -EINVAL;
		}
	}
	old = malloc(sizeof(priv->mc));
	if (old == NULL)
		return -ENOMEM;
	vsteer_ctl_lock(priv);
	old_n = priv->mc_n;
	memcpy(old, priv->mc, sizeof(priv->mc));
	if (nb_mc_addr > 0)
		memcpy(priv->mc, mc_addr_set, nb_mc_addr * sizeof(*priv->mc));
	priv->mc_n = nb_mc_addr;
	ret = vsteer_defflow_sync(dev);
	if (ret != 0) {
		memcpy(priv->mc, old, sizeof(priv->mc));
		priv->mc_n = old_n;
		vsteer_defflow_sync(dev);
	}
	vsteer_ctl_unlock(priv);
	free(old);
	return ret;
}

int
vsteer_port_counters_read(struct vsteer_priv *priv,
			  struct vsteer_port_counters *c)
{
	return priv->glue->port_counters(priv->ctx, priv->port_num, c);
}

/*
 * Device counters since the last reset. A device that has none (an
 * rdma-core port without hw_counters) reads 0. The device is the
 * primary's: a secondary process gets what the primary would report
 * (vsteer_mp.c), or an error when the primary does not answer, never a
 * made-up number.
 */
int
vsteer_port_counters_get(struct rte_eth_dev *dev,
			 struct vsteer_port_counters *d)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_port_counters c;
	const struct vsteer_port_counters *b = &priv->cnt_base;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return vsteer_mp_port_counters(dev, d);
	memset(d, 0, sizeof(*d));
	if (vsteer_port_counters_read(priv, &c) != 0)
		return 0;
	d->rx_frames = c.rx_frames - b->rx_frames;
	d->rx_no_buffer = c.rx_no_buffer - b->rx_no_buffer;
	d->rx_unsteered = c.rx_unsteered - b->rx_unsteered;
	d->rx_dropped = c.rx_dropped - b->rx_dropped;
	d->rx_sink = c.rx_sink - b->rx_sink;
	d->tx_frames = c.tx_frames - b->tx_frames;
	d->tx_errors = c.tx_errors - b->tx_errors;
	d->rx_csum_completed = c.rx_csum_completed - b->rx_csum_completed;
	d->rx_gso_split = c.rx_gso_split - b->rx_gso_split;
	return 0;
}

static void
vsteer_rxq_stats_add(struct vsteer_rxq_stats *to,
		     const struct vsteer_rxq_stats *st)
{
	to->packets += st->packets;
	to->bytes += st->bytes;
	to->errors += st->errors;
	to->nombuf += st->nombuf;
	to->post_errors += st->post_errors;
	to->resets += st->resets;
}

static void
vsteer_txq_stats_add(struct vsteer_txq_stats *to,
		     const struct vsteer_txq_stats *st)
{
	to->packets += st->packets;
	to->bytes += st->bytes;
	to->errors += st->errors;
	to->comp_errors += st->comp_errors;
}

/* Slot idx of a per-queue array of saved counters (of size bytes each);
 * NULL when the array could not be allocated: the caller then adds to the
 * port's totals. */
static void *
vsteer_qstats_slot(void *saved, size_t size, uint16_t idx)
{
	if (saved == NULL || idx >= RTE_MAX_QUEUES_PER_PORT)
		return NULL;
	return RTE_PTR_ADD(saved, (size_t)idx * size);
}

/* Take the counters saved in slot idx into st, leaving the slot zero. */
static void
vsteer_qstats_take(void *saved, size_t size, uint16_t idx, void *st)
{
	void *slot = vsteer_qstats_slot(saved, size, idx);

	if (slot == NULL)
		return;
	memcpy(st, slot, size);
	memset(slot, 0, size);
}

void
vsteer_rxq_stats_keep(struct rte_eth_dev *dev, uint16_t idx,
		      const struct vsteer_rxq_stats *st)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_rxq_stats *s;

	if (priv->rxq_saved == NULL)
		priv->rxq_saved =
			rte_zmalloc("vsteer_rxq_saved",
				    RTE_MAX_QUEUES_PER_PORT * sizeof(*s), 0);
	s = vsteer_qstats_slot(priv->rxq_saved, sizeof(*s), idx);
	vsteer_rxq_stats_add(s != NULL ? s : &priv->rxq_gone, st);
}

void
vsteer_rxq_stats_restore(struct rte_eth_dev *dev, uint16_t idx,
			 struct vsteer_rxq_stats *st)
{
	vsteer_qstats_take(vsteer_priv(dev)->rxq_saved, sizeof(*st), idx, st);
}

void
vsteer_txq_stats_keep(struct rte_eth_dev *dev, uint16_t idx,
		      const struct vsteer_txq_stats *st)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_txq_stats *s;

	if (priv->txq_saved == NULL)
		priv->txq_saved =
			rte_zmalloc("vsteer_txq_saved",
				    RTE_MAX_QUEUES_PER_PORT * sizeof(*s), 0);
	s = vsteer_qstats_slot(priv->txq_saved, sizeof(*s), idx);
	vsteer_txq_stats_add(s != NULL ? s : &priv->txq_gone, st);
}

void
vsteer_txq_stats_restore(struct rte_eth_dev *dev, uint16_t idx,
			 struct vsteer_txq_stats *st)
{
	vsteer_qstats_take(vsteer_priv(dev)->txq_saved, sizeof(*st), idx, st);
}

/* At configure: queues beyond the new counts are gone for good, their
 * counters stay in the port's totals only. */
static void
vsteer_queue_stats_fold(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint32_t i;

	for (i = dev->data->nb_rx_queues;
	     priv->rxq_saved != NULL && i < RTE_MAX_QUEUES_PER_PORT; i++) {
		vsteer_rxq_stats_add(&priv->rxq_gone, &priv->rxq_saved[i]);
		memset(&priv->rxq_saved[i], 0, sizeof(priv->rxq_saved[i]));
	}
	for (i = dev->data->nb_tx_queues;
	     priv->txq_saved != NULL && i < RTE_MAX_QUEUES_PER_PORT; i++) {
		vsteer_txq_stats_add(&priv->txq_gone, &priv->txq_saved[i]);
		memset(&priv->txq_saved[i], 0, sizeof(priv->txq_saved[i]));
	}
}

/* Counters of queue index i: the live queue's, else what its last queue
 * left (a queue being set up again). */
static const struct vsteer_rxq_stats *
vsteer_rxq_stats_of(const struct rte_eth_dev *dev, uint16_t i)
{
	const struct vsteer_priv *priv = vsteer_priv(dev);
	const struct vsteer_rxq *rxq = dev->data->rx_queues[i];

	if (rxq != NULL)
		return &rxq->stats;
	return priv->rxq_saved != NULL ? &priv->rxq_saved[i] : NULL;
}

static const struct vsteer_txq_stats *
vsteer_txq_stats_of(const struct rte_eth_dev *dev, uint16_t i)
{
	const struct vsteer_priv *priv = vsteer_priv(dev);
	const struct vsteer_txq *txq = dev->data->tx_queues[i];

	if (txq != NULL)
		return &txq->stats;
	return priv->txq_saved != NULL ? &priv->txq_saved[i] : NULL;
}

static int
vsteer_stats_get(struct rte_eth_dev *dev, struct rte_eth_stats *stats)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_rxq_stats rx = priv->rxq_gone;
	struct vsteer_txq_stats tx = priv->txq_gone;
	struct vsteer_port_counters d;
	uint16_t i;
	int ret;

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		const struct vsteer_rxq_stats *st = vsteer_rxq_stats_of(dev, i);

		if (st == NULL)
			continue;
		vsteer_rxq_stats_add(&rx, st);
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			stats->q_ipackets[i] = st->packets;
			stats->q_ibytes[i] = st->bytes;
			stats->q_errors[i] = st->errors;
		}
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		const struct vsteer_txq_stats *st = vsteer_txq_stats_of(dev, i);

		if (st == NULL)
			continue;
		vsteer_txq_stats_add(&tx, st);
		if (i < RTE_ETHDEV_QUEUE_STAT_CNTRS) {
			stats->q_opackets[i] = st->packets;
			stats->q_obytes[i] = st->bytes;
		}
	}
	stats->ipackets = rx.packets;
	stats->ibytes = rx.bytes;
	stats->ierrors = rx.errors;
	stats->rx_nombuf = rx.nombuf;
	stats->opackets = tx.packets;
	stats->obytes = tx.bytes;
	stats->oerrors = tx.errors + tx.comp_errors;
	/* The queue counters stay filled when the device's cannot be had. */
	ret = vsteer_port_counters_get(dev, &d);
	stats->imissed = d.rx_no_buffer;
	return ret;
}

int
vsteer_stats_reset(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t i;

	/* The primary resets: the device's base is read there. */
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return vsteer_mp_stats_reset(dev);

	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		struct vsteer_rxq *rxq = dev->data->rx_queues[i];

		if (rxq != NULL)
			memset(&rxq->stats, 0, sizeof(rxq->stats));
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		struct vsteer_txq *txq = dev->data->tx_queues[i];

		if (txq != NULL) {
			memset(&txq->stats, 0, sizeof(txq->stats));
			txq->recoveries = 0;
		}
	}
	if (priv->rxq_saved != NULL)
		memset(priv->rxq_saved, 0,
		       RTE_MAX_QUEUES_PER_PORT * sizeof(*priv->rxq_saved));
	if (priv->txq_saved != NULL)
		memset(priv->txq_saved, 0,
		       RTE_MAX_QUEUES_PER_PORT * sizeof(*priv->txq_saved));
	memset(&priv->rxq_gone, 0, sizeof(priv->rxq_gone));
	memset(&priv->txq_gone, 0, sizeof(priv->txq_gone));
	if (vsteer_port_counters_read(priv, &priv->cnt_base) != 0)
		memset(&priv->cnt_base, 0, sizeof(priv->cnt_base));
	return 0;
}

/*
 * Driver xstats; ethdev adds the basic ones and, with
 * RTE_ETH_DEV_AUTOFILL_QUEUE_XSTATS, rx_qN_packets/bytes/errors and
 * tx_qN_packets/bytes.
 */
static const struct {
	const char *name;
	size_t off;
} vsteer_port_xstats[] = {
	{ "rx_no_buffer_packets",
	  offsetof(struct vsteer_port_counters, rx_no_buffer) },
	{ "rx_unsteered_packets",
	  offsetof(struct vsteer_port_counters, rx_unsteered) },
	{ "rx_rule_drop_packets",
	  offsetof(struct vsteer_port_counters, rx_dropped) },
	{ "rx_passthru_copy_packets",
	  offsetof(struct vsteer_port_counters, rx_sink) },
	{ "rx_wire_packets", offsetof(struct vsteer_port_counters, rx_frames) },
	{ "tx_wire_packets", offsetof(struct vsteer_port_counters, tx_frames) },
	{ "tx_wire_errors", offsetof(struct vsteer_port_counters, tx_errors) },
	{ "rx_wire_csum_completed",
	  offsetof(struct vsteer_port_counters, rx_csum_completed) },
	{ "rx_wire_gso_split",
	  offsetof(struct vsteer_port_counters, rx_gso_split) },
};

#define VSTEER_RXQ_XSTATS 3
#define VSTEER_TXQ_XSTATS 3

static unsigned int
vsteer_xstats_count(const struct rte_eth_dev *dev)
{
	return RTE_DIM(vsteer_port_xstats) +
	       dev->data->nb_rx_queues * VSTEER_RXQ_XSTATS +
	       dev->data->nb_tx_queues * VSTEER_TXQ_XSTATS;
}

static int
vsteer_xstats_get_names(struct rte_eth_dev *dev,
			struct rte_eth_xstat_name *names, unsigned int size)
{
	unsigned int n = vsteer_xstats_count(dev), k = 0, i;

	if (names == NULL || size < n)
		return n;
	for (i = 0; i < RTE_DIM(vsteer_port_xstats); i++)
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE, "%s",
			 vsteer_port_xstats[i].name);
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
			 "rx_q%u_mbuf_allocation_errors", i);
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
			 "rx_q%u_repost_errors", i);
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
			 "rx_q%u_work_queue_resets", i);
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
			 "tx_q%u_dropped_packets", i);
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
			 "tx_q%u_completion_errors", i);
		snprintf(names[k++].name, RTE_ETH_XSTATS_NAME_SIZE,
			 "tx_q%u_send_queue_resets", i);
	}
	return n;
}

static int
vsteer_xstats_get(struct rte_eth_dev *dev, struct rte_eth_xstat *xs,
		  unsigned int size)
{
	unsigned int n = vsteer_xstats_count(dev), k = 0, i;
	struct vsteer_port_counters d;
	int ret;

	if (xs == NULL || size < n)
		return n;
	ret = vsteer_port_counters_get(dev, &d);
	if (ret != 0)
		return ret;
	for (i = 0; i < RTE_DIM(vsteer_port_xstats); i++) {
		xs[k].id = k;
		xs[k].value = *(const uint64_t *)((const char *)&d +
						  vsteer_port_xstats[i].off);
		k++;
	}
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		const struct vsteer_rxq_stats *st = vsteer_rxq_stats_of(dev, i);

		xs[k].id = k;
		xs[k].value = st != NULL ? st->nombuf : 0;
		k++;
		xs[k].id = k;
		xs[k].value = st != NULL ? st->post_errors : 0;
		k++;
		xs[k].id = k;
		xs[k].value = st != NULL ? st->resets : 0;
		k++;
	}
	for (i = 0; i < dev->data->nb_tx_queues; i++) {
		const struct vsteer_txq_stats *st = vsteer_txq_stats_of(dev, i);
		const struct vsteer_txq *txq = dev->data->tx_queues[i];

		xs[k].id = k;
		xs[k].value = st != NULL ? st->errors : 0;
		k++;
		xs[k].id = k;
		xs[k].value = st != NULL ? st->comp_errors : 0;
		k++;
		xs[k].id = k;
		xs[k].value = txq != NULL ? txq->recoveries : 0;
		k++;
	}
	return n;
}

static int
vsteer_rss_hash_update(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint8_t old_key[VSTEER_RSS_KEY_LEN];
	uint64_t old_hf;
	int ret;

	if (conf->rss_hf & ~priv->rss_hf_supported) {
		DRV_LOG(ERR, "port %u: RSS types 0x%" PRIx64 " not supported",
			dev->data->port_id,
			conf->rss_hf & ~priv->rss_hf_supported);
		return -EINVAL;
	}
	if (conf->rss_key != NULL && conf->rss_key_len != VSTEER_RSS_KEY_LEN) {
		DRV_LOG(ERR, "port %u: RSS key of %u bytes, must be %u",
			dev->data->port_id, conf->rss_key_len,
			VSTEER_RSS_KEY_LEN);
		return -EINVAL;
	}
	vsteer_ctl_lock(priv);
	memcpy(old_key, priv->rss_key, VSTEER_RSS_KEY_LEN);
	old_hf = priv->rss_hf;
	if (conf->rss_key != NULL)
		memcpy(priv->rss_key, conf->rss_key, VSTEER_RSS_KEY_LEN);
	priv->rss_hf = conf->rss_hf;
	ret = vsteer_defflow_sync(dev);
	if (ret != 0) {
		memcpy(priv->rss_key, old_key, VSTEER_RSS_KEY_LEN);
		priv->rss_hf = old_hf;
		vsteer_defflow_sync(dev);
	}
	vsteer_ctl_unlock(priv);
	return ret;
}

static int
vsteer_rss_hash_conf_get(struct rte_eth_dev *dev, struct rte_eth_rss_conf *conf)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	if (conf->rss_key != NULL) {
		if (conf->rss_key_len < VSTEER_RSS_KEY_LEN)
			return -EINVAL;
		memcpy(conf->rss_key, priv->rss_key, VSTEER_RSS_KEY_LEN);
	}
	conf->rss_key_len = VSTEER_RSS_KEY_LEN;
	conf->rss_hf = priv->rss_hf;
	return 0;
}

/*
 * The first size entries of the table, size up to the port's reta_size,
 * as DPDK's mlx5 takes it: `show port 0 rss reta 4 (0xf)` asks for 4
 * entries, and an update of the first n entries leaves the others.
 */
static int
vsteer_reta_size_check(struct rte_eth_dev *dev, uint16_t size)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	if (size == 0 || size > priv->reta_size) {
		DRV_LOG(ERR, "port %u: RETA of %u entries: the port has %u",
			dev->data->port_id, size, priv->reta_size);
		return -EINVAL;
	}
	return 0;
}

static int
vsteer_reta_update(struct rte_eth_dev *dev,
		   struct rte_eth_rss_reta_entry64 *reta_conf, uint16_t size)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t old[VSTEER_RETA_MAX];
	uint16_t i;
	int ret;

	ret = vsteer_reta_size_check(dev, size);
	if (ret != 0)
		return ret;
	for (i = 0; i < size; i++) {
		const struct rte_eth_rss_reta_entry64 *g =
			&reta_conf[i / RTE_ETH_RETA_GROUP_SIZE];
		uint16_t b = i % RTE_ETH_RETA_GROUP_SIZE;

		if ((g->mask & RTE_BIT64(b)) &&
		    g->reta[b] >= dev->data->nb_rx_queues) {
			DRV_LOG(ERR, "port %u: RETA entry %u: queue %u of %u",
				dev->data->port_id, i, g->reta[b],
				dev->data->nb_rx_queues);
			return -EINVAL;
		}
	}
	vsteer_ctl_lock(priv);
	memcpy(old, priv->reta, sizeof(old));
	for (i = 0; i < size; i++) {
		const struct rte_eth_rss_reta_entry64 *g =
			&reta_conf[i / RTE_ETH_RETA_GROUP_SIZE];
		uint16_t b = i % RTE_ETH_RETA_GROUP_SIZE;

		if (g->mask & RTE_BIT64(b))
			priv->reta[i] = g->reta[b];
	}
	ret = vsteer_defflow_sync(dev);
	if (ret != 0) {
		memcpy(priv->reta, old, sizeof(old));
		vsteer_defflow_sync(dev);
	}
	vsteer_ctl_unlock(priv);
	return ret;
}

static int
vsteer_reta_query(struct rte_eth_dev *dev,
		  struct rte_eth_rss_reta_entry64 *reta_conf, uint16_t size)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t i;
	int ret;

	ret = vsteer_reta_size_check(dev, size);
	if (ret != 0)
		return ret;
	for (i = 0; i < size; i++) {
		struct rte_eth_rss_reta_entry64 *g =
			&reta_conf[i / RTE_ETH_RETA_GROUP_SIZE];
		uint16_t b = i % RTE_ETH_RETA_GROUP_SIZE;

		if (g->mask & RTE_BIT64(b))
			g->reta[b] = priv->reta[i];
	}
	return 0;
}

static int
vsteer_mtu_set(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	VSTEER_CTL_HELD(priv);
	if (mtu < priv->min_mtu || mtu > priv->max_mtu) {
		DRV_LOG(ERR, "port %u: MTU %u: the device takes %u to %u",
			dev->data->port_id, mtu, priv->min_mtu, priv->max_mtu);
		return -EINVAL;
	}
	/* A running port's device takes it at once; a stopped port's at the
	 * next start, as a NIC is programmed, so that a start that fails
	 * (Rx queues not set up for it) leaves the device as it was. A
	 * device whose MTU is out of reach (an RDMA port without a netdev)
	 * refuses it now, with the reason. */
	if (!priv->started) {
		unsigned int cur, max;

		if (priv->glue->port_mtu(priv->ctx, priv->port_num, &cur,
					 &max) == 0)
			return 0;
		return vsteer_mtu_apply(dev, mtu, false, NULL);
	}
	ret = vsteer_rxq_fit_mtu(dev, mtu);
	if (ret != 0)
		return ret;
	return vsteer_mtu_apply(dev, mtu, false, NULL);
}

/* Serialized with start, which applies the configured MTU. */
static int
vsteer_mtu_set_op(struct rte_eth_dev *dev, uint16_t mtu)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	vsteer_ctl_lock(priv);
	ret = vsteer_mtu_set(dev, mtu);
	vsteer_ctl_unlock(priv);
	return ret;
}

/* Queue start/stop change the queue objects a concurrent port stop
 * destroys and the RSS contexts point at: under the port's lock. */
static int
vsteer_queue_locked(struct rte_eth_dev *dev, uint16_t idx,
		    int (*op)(struct rte_eth_dev *dev, uint16_t idx))
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	vsteer_ctl_lock(priv);
	ret = op(dev, idx);
	vsteer_ctl_unlock(priv);
	return ret;
}

static int
vsteer_rx_queue_start_op(struct rte_eth_dev *dev, uint16_t idx)
{
	return vsteer_queue_locked(dev, idx, vsteer_rx_queue_start);
}

static int
vsteer_rx_queue_stop_op(struct rte_eth_dev *dev, uint16_t idx)
{
	return vsteer_queue_locked(dev, idx, vsteer_rx_queue_stop);
}

static int
vsteer_tx_queue_start_op(struct rte_eth_dev *dev, uint16_t idx)
{
	return vsteer_queue_locked(dev, idx, vsteer_tx_queue_start);
}

static int
vsteer_tx_queue_stop_op(struct rte_eth_dev *dev, uint16_t idx)
{
	return vsteer_queue_locked(dev, idx, vsteer_tx_queue_stop);
}

static const uint32_t *
vsteer_dev_supported_ptypes_get(struct rte_eth_dev *dev)
{
	RTE_SET_USED(dev);
	return vsteer_ptypes;
}

/* RTE_PTYPE_UNKNOWN: the application needs no packet types, the Rx burst
 * does not parse them. */
static int
vsteer_dev_ptypes_set(struct rte_eth_dev *dev, uint32_t ptype_mask)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t i;

	priv->ptypes_off = ptype_mask == RTE_PTYPE_UNKNOWN;
	for (i = 0; i < dev->data->nb_rx_queues; i++) {
		struct vsteer_rxq *rxq = dev->data->rx_queues[i];

		if (rxq != NULL)
			rxq->ptype = !priv->ptypes_off;
	}
	return 0;
}

/*
 * The device clock, in the units of Rx timestamps (ticks of
 * hca_core_clock kHz), as DPDK's mlx5 reads it (mlx5_read_clock()):
 * ibv_query_rt_values_ex(), the raw clock in raw_clock.tv_nsec.
 */
static int
vsteer_read_clock(struct rte_eth_dev *dev, uint64_t *clock)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct ibv_values_ex values;
	int ret;

	if (!priv->ts_ok)
		return -ENOTSUP;
	memset(&values, 0, sizeof(values));
	values.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	ret = ibv_query_rt_values_ex(priv->ctx, &values);
	if (ret != 0)
		return -ret;
	if (!(values.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return -ENOTSUP;
	*clock = (uint64_t)values.raw_clock.tv_sec * 1000000000u +
		 (uint64_t)values.raw_clock.tv_nsec;
	return 0;
}

static int
vsteer_fw_version_get(struct rte_eth_dev *dev, char *fw_version, size_t fw_size)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int n;

	n = snprintf(fw_version, fw_size, "%s",
		     priv->dev_attr.orig_attr.fw_ver);
	if (n < 0)
		return -EINVAL;
	/* Too small: the size needed, with the terminating NUL. */
	if ((size_t)n >= fw_size)
		return n + 1;
	return 0;
}

static int
vsteer_rx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			 struct rte_eth_burst_mode *mode)
{
	const struct vsteer_rxq *rxq = dev->data->rx_queues[qid];

	if (rxq == NULL)
		return -EINVAL;
	mode->flags = RTE_ETH_BURST_FLAG_PER_QUEUE;
	snprintf(mode->info, sizeof(mode->info), "Scalar, verbs CQ-ex%s%s%s%s",
		 rxq->sges_n > 1 ? ", scattered" : "",
		 rxq->ptype ? ", software packet types" : "",
		 rxq->csum ? ", checksum flags" : "",
		 rxq->strip ? ", VLAN strip" : "");
	return 0;
}

static int
vsteer_tx_burst_mode_get(struct rte_eth_dev *dev, uint16_t qid,
			 struct rte_eth_burst_mode *mode)
{
	const struct vsteer_txq *txq = dev->data->tx_queues[qid];

	if (txq == NULL)
		return -EINVAL;
	mode->flags = RTE_ETH_BURST_FLAG_PER_QUEUE;
	snprintf(mode->info, sizeof(mode->info),
		 "Scalar, verbs post_send list%s%s",
		 txq->max_sge > 1 ? ", multi-segment" : "",
		 txq->csum ? ", checksum offload" : "");
	return 0;
}

/* Insert or remove vid in the sorted filter list; -ENOSPC when full. */
static int
vsteer_vlan_list_set(struct vsteer_priv *priv, uint16_t vid, int on)
{
	uint16_t i = 0;

	while (i < priv->vlan_n && priv->vlans[i] < vid)
		i++;
	if (i < priv->vlan_n && priv->vlans[i] == vid) {
		if (!on) {
			memmove(&priv->vlans[i], &priv->vlans[i + 1],
				(priv->vlan_n - i - 1) * sizeof(*priv->vlans));
			priv->vlan_n--;
		}
		return 0;
	}
	if (!on)
		return 0;
	if (priv->vlan_n == VSTEER_MAX_VLAN)
		return -ENOSPC;
	memmove(&priv->vlans[i + 1], &priv->vlans[i],
		(priv->vlan_n - i) * sizeof(*priv->vlans));
	priv->vlans[i] = vid;
	priv->vlan_n++;
	return 0;
}

static int
vsteer_vlan_filter_set(struct rte_eth_dev *dev, uint16_t vid, int on)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t old[VSTEER_MAX_VLAN];
	uint16_t old_n;
	int ret;

	if (vid > RTE_ETHER_MAX_VLAN_ID) {
		DRV_LOG(ERR, "port %u: VLAN %u: IDs go up to %u",
			dev->data->port_id, vid, RTE_ETHER_MAX_VLAN_ID);
		return -EINVAL;
	}
	vsteer_ctl_lock(priv);
	old_n = priv->vlan_n;
	memcpy(old, priv->vlans, sizeof(old));
	ret = vsteer_vlan_list_set(priv, vid, on);
	if (ret != 0) {
		vsteer_ctl_unlock(priv);
		DRV_LOG(ERR, "port %u: VLAN %u: %u VLAN filters at most",
			dev->data->port_id, vid, VSTEER_MAX_VLAN);
		return ret;
	}
	ret = vsteer_defflow_sync(dev);
	if (ret != 0) {
		memcpy(priv->vlans, old, sizeof(old));
		priv->vlan_n = old_n;
		vsteer_defflow_sync(dev);
	}
	vsteer_ctl_unlock(priv);
	return ret;
}

/* ethdev has updated rxmode.offloads; mask says what changed. */
static int
vsteer_vlan_offload_set(struct rte_eth_dev *dev, int mask)
{
	uint64_t off = dev->data->dev_conf.rxmode.offloads;
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t i;
	int ret;

	VSTEER_CTL_HELD(priv);
	if ((mask & RTE_ETH_QINQ_STRIP_MASK) &&
	    (off & RTE_ETH_RX_OFFLOAD_QINQ_STRIP)) {
		DRV_LOG(ERR, "port %u: no QinQ stripping", dev->data->port_id);
		return -ENOTSUP;
	}
	if ((mask & RTE_ETH_VLAN_EXTEND_MASK) &&
	    (off & RTE_ETH_RX_OFFLOAD_VLAN_EXTEND)) {
		DRV_LOG(ERR, "port %u: no extended (QinQ) VLAN mode",
			dev->data->port_id);
		return -ENOTSUP;
	}
	if (mask & RTE_ETH_VLAN_STRIP_MASK) {
		int on = (off & RTE_ETH_RX_OFFLOAD_VLAN_STRIP) != 0;

		if (on && !priv->vlan_strip_ok) {
			DRV_LOG(ERR,
				"port %u: the device has no VLAN stripping",
				dev->data->port_id);
			return -ENOTSUP;
		}
		/* The port setting is every queue's. */
		for (i = 0; i < dev->data->nb_rx_queues; i++) {
			struct vsteer_rxq *rxq = dev->data->rx_queues[i];

			if (rxq == NULL)
				continue;
			ret = vsteer_rxq_vlan_strip(rxq, on);
			if (ret != 0)
				return ret;
		}
	}
	if (mask & RTE_ETH_VLAN_FILTER_MASK) {
		ret = vsteer_defflow_sync(dev);
		if (ret != 0)
			return ret;
	}
	return 0;
}

/* The queues' WQs (stripping) and the default flows (filtering). */
static int
vsteer_vlan_offload_set_op(struct rte_eth_dev *dev, int mask)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	vsteer_ctl_lock(priv);
	ret = vsteer_vlan_offload_set(dev, mask);
	vsteer_ctl_unlock(priv);
	return ret;
}

static void
vsteer_vlan_strip_queue_set(struct rte_eth_dev *dev, uint16_t qid, int on)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_rxq *rxq = dev->data->rx_queues[qid];
	int ret;

	if (rxq == NULL)
		return;
	if (on && !priv->vlan_strip_ok) {
		DRV_LOG(ERR, "port %u: Rx queue %u: no VLAN stripping",
			dev->data->port_id, qid);
		return;
	}
	/* The WQ it changes goes away at a concurrent stop. */
	vsteer_ctl_lock(priv);
	ret = vsteer_rxq_vlan_strip(rxq, on);
	vsteer_ctl_unlock(priv);
	if (ret == 0)
		DRV_LOG(DEBUG, "port %u: Rx queue %u: VLAN stripping %s",
			dev->data->port_id, qid, on ? "on" : "off");
}

static void
vsteer_rxq_info_get(struct rte_eth_dev *dev, uint16_t qid,
		    struct rte_eth_rxq_info *qinfo)
{
	const struct vsteer_rxq *rxq = dev->data->rx_queues[qid];

	if (rxq == NULL)
		return;
	qinfo->mp = rxq->mp;
	qinfo->scattered_rx = rxq->sges_n > 1;
	qinfo->nb_desc = rxq->wqe_n;
	qinfo->rx_buf_size = rxq->seg_room;
	qinfo->conf.offloads = rxq->offloads;
	qinfo->conf.rx_deferred_start = rxq->deferred;
}

static void
vsteer_txq_info_get(struct rte_eth_dev *dev, uint16_t qid,
		    struct rte_eth_txq_info *qinfo)
{
	const struct vsteer_txq *txq = dev->data->tx_queues[qid];

	if (txq == NULL)
		return;
	qinfo->nb_desc = txq->elts_n;
	qinfo->conf.offloads = txq->offloads;
	qinfo->conf.tx_deferred_start = txq->deferred;
}

static int
vsteer_flow_ops_get(struct rte_eth_dev *dev, const struct rte_flow_ops **ops)
{
	RTE_SET_USED(dev);
	*ops = &vsteer_flow_ops;
	return 0;
}

const struct eth_dev_ops vsteer_dev_ops = {
	.dev_configure = vsteer_dev_configure_op,
	.dev_start = vsteer_dev_start_op,
	.dev_stop = vsteer_dev_stop_op,
	.dev_close = vsteer_dev_close,
	.dev_infos_get = vsteer_dev_infos_get,
	.link_update = vsteer_link_update,
	.promiscuous_enable = vsteer_promiscuous_enable,
	.promiscuous_disable = vsteer_promiscuous_disable,
	.allmulticast_enable = vsteer_allmulticast_enable,
	.allmulticast_disable = vsteer_allmulticast_disable,
	.mac_addr_add = vsteer_mac_addr_add,
	.mac_addr_remove = vsteer_mac_addr_remove,
	.mac_addr_set = vsteer_mac_addr_set,
	.set_mc_addr_list = vsteer_set_mc_addr_list,
	.mtu_set = vsteer_mtu_set_op,
	.stats_get = vsteer_stats_get,
	.stats_reset = vsteer_stats_reset,
	.xstats_get = vsteer_xstats_get,
	.xstats_get_names = vsteer_xstats_get_names,
	.xstats_reset = vsteer_stats_reset,
	.rss_hash_update = vsteer_rss_hash_update,
	.rss_hash_conf_get = vsteer_rss_hash_conf_get,
	.reta_update = vsteer_reta_update,
	.reta_query = vsteer_reta_query,
	.rx_queue_setup = vsteer_rx_queue_setup,
	.rx_queue_release = vsteer_rx_queue_release,
	.tx_queue_setup = vsteer_tx_queue_setup,
	.tx_queue_release = vsteer_tx_queue_release,
	.rx_queue_start = vsteer_rx_queue_start_op,
	.rx_queue_stop = vsteer_rx_queue_stop_op,
	.tx_queue_start = vsteer_tx_queue_start_op,
	.tx_queue_stop = vsteer_tx_queue_stop_op,
	.rx_queue_intr_enable = vsteer_rx_queue_intr_enable,
	.rx_queue_intr_disable = vsteer_rx_queue_intr_disable,
	.rxq_info_get = vsteer_rxq_info_get,
	.txq_info_get = vsteer_txq_info_get,
	.rx_burst_mode_get = vsteer_rx_burst_mode_get,
	.tx_burst_mode_get = vsteer_tx_burst_mode_get,
	.fw_version_get = vsteer_fw_version_get,
	.read_clock = vsteer_read_clock,
	.dev_supported_ptypes_get = vsteer_dev_supported_ptypes_get,
	.dev_ptypes_set = vsteer_dev_ptypes_set,
	.vlan_filter_set = vsteer_vlan_filter_set,
	.vlan_offload_set = vsteer_vlan_offload_set_op,
	.vlan_strip_queue_set = vsteer_vlan_strip_queue_set,
	.flow_ops_get = vsteer_flow_ops_get,
};

/* Flow rules are the primary's: a secondary gets ops that say so. */
static int
vsteer_flow_ops_get_secondary(struct rte_eth_dev *dev,
			      const struct rte_flow_ops **ops)
{
	RTE_SET_USED(dev);
	*ops = &vsteer_flow_ops_secondary;
	return 0;
}

/*
 * What a secondary process may do (vsteer.c attaches it): read what the
 * primary keeps in shared memory (information, queue and port counters,
 * RSS configuration, queue information) and ask the primary for the
 * device's counters and a statistics reset (vsteer_mp.c). Everything
 * that would touch the device or its objects, which live in the
 * primary's private memory, is left out: ethdev answers -ENOTSUP.
 * link_update reports the link as the primary last saw it (dev_link).
 */
static int
vsteer_link_update_secondary(struct rte_eth_dev *dev, int wait_to_complete)
{
	RTE_SET_USED(dev);
	RTE_SET_USED(wait_to_complete);
	return 0;
}

const struct eth_dev_ops vsteer_dev_ops_secondary = {
	.dev_close = vsteer_dev_close,
	.dev_infos_get = vsteer_dev_infos_get,
	.link_update = vsteer_link_update_secondary,
	.stats_get = vsteer_stats_get,
	.stats_reset = vsteer_stats_reset,
	.xstats_get = vsteer_xstats_get,
	.xstats_get_names = vsteer_xstats_get_names,
	.xstats_reset = vsteer_stats_reset,
	.rss_hash_conf_get = vsteer_rss_hash_conf_get,
	.reta_query = vsteer_reta_query,
	.rxq_info_get = vsteer_rxq_info_get,
	.txq_info_get = vsteer_txq_info_get,
	.rx_burst_mode_get = vsteer_rx_burst_mode_get,
	.tx_burst_mode_get = vsteer_tx_burst_mode_get,
	.fw_version_get = vsteer_fw_version_get,
	.dev_supported_ptypes_get = vsteer_dev_supported_ptypes_get,
	.flow_ops_get = vsteer_flow_ops_get_secondary,
};
