/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Shared RSS contexts. Flows do not point at Rx queues: they attach to a
 * RAW_PACKET "hash QP" that hashes one set of fields with one key over an
 * indirection table of the queues' WQs. Contexts are shared by every user
 * with the same (key, fields, queue list) and refcounted; they exist only
 * while the port is started, since the WQs do. The list is walked and
 * changed under the port's control lock only (vsteer.h).
 */

#include <errno.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "vsteer.h"

static uint32_t
vsteer_log2above(uint32_t v)
{
	uint32_t l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

/* As DPDK mlx5 (mlx5_ibv_hrxq_new()): tunnel offloads through
 * mlx5dv_create_qp(), which inner hashing needs (mlx5 refuses it without
 * them), where the device offers them. */
static uint32_t
vsteer_rss_qp_flags(const struct vsteer_priv *priv, uint64_t hash_fields,
		    uint32_t flags)
{
	if (hash_fields & IBV_RX_HASH_INNER)
		flags |= VSTEER_RSS_TUNNEL;
	if (!priv->tunnel_qp_ok)
		flags &= ~VSTEER_RSS_TUNNEL;
	return flags;
}

struct ibv_qp *
vsteer_hash_qp_create(struct vsteer_priv *priv, struct ibv_rwq_ind_table *ind,
		      uint8_t key[VSTEER_RSS_KEY_LEN], uint64_t hash_fields,
		      uint32_t flags)
{
	struct ibv_qp_init_attr_ex qp_attr;

	memset(&qp_attr, 0, sizeof(qp_attr));
	qp_attr.qp_type = IBV_QPT_RAW_PACKET;
	qp_attr.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
			    IBV_QP_INIT_ATTR_RX_HASH;
	qp_attr.pd = priv->pd;
	qp_attr.rwq_ind_tbl = ind;
	qp_attr.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	qp_attr.rx_hash_conf.rx_hash_key_len = VSTEER_RSS_KEY_LEN;
	qp_attr.rx_hash_conf.rx_hash_key = key;
	qp_attr.rx_hash_conf.rx_hash_fields_mask = hash_fields;
	flags = vsteer_rss_qp_flags(priv, hash_fields, flags);
	if (flags & VSTEER_RSS_TUNNEL) {
		struct mlx5dv_qp_init_attr dv_attr;

		memset(&dv_attr, 0, sizeof(dv_attr));
		dv_attr.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
		dv_attr.create_flags = MLX5DV_QP_CREATE_TUNNEL_OFFLOADS;
		return priv->glue->dv_create_qp(priv->ctx, &qp_attr, &dv_attr);
	}
	return ibv_create_qp_ex(priv->ctx, &qp_attr);
}

int
vsteer_hash_qp_ready(struct vsteer_priv *priv, struct ibv_qp *qp)
{
	struct ibv_qp_attr mod;
	int ret;

	if (!priv->hash_qp_rtr)
		return 0;
	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_INIT;
	mod.port_num = priv->port_num;
	ret = priv->glue->modify_qp(qp, &mod, IBV_QP_STATE | IBV_QP_PORT);
	if (ret != 0)
		return ret;
	memset(&mod, 0, sizeof(mod));
	mod.qp_state = IBV_QPS_RTR;
	return priv->glue->modify_qp(qp, &mod, IBV_QP_STATE);
}

/* Build the table and the hash QP of a new context. */
static int
vsteer_rss_setup(struct rte_eth_dev *dev, struct vsteer_rss *rss)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct ibv_rwq_ind_table_init_attr ind_attr;
	struct ibv_wq **wqs;
	uint32_t log_n, n, i;
	int ret;

	/* A power of two: the list itself, or the list repeated up to the
	 * largest table when its length is not one. */
	if (rte_is_power_of_2(rss->queues_n))
		log_n = vsteer_log2above(rss->queues_n);
	else
		log_n = vsteer_log2above(priv->ind_tbl_max);
	n = 1u << log_n;
	if (n > priv->ind_tbl_max || rss->queues_n > n) {
		DRV_LOG(ERR,
			"port %u: %u queues exceed the %u-entry indirection table",
			dev->data->port_id, rss->queues_n, priv->ind_tbl_max);
		return -EINVAL;
	}
	wqs = calloc(n, sizeof(*wqs));
	if (wqs == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		uint16_t q = rss->queues[i % rss->queues_n];
		struct vsteer_rxq *rxq;

		rxq = q < dev->data->nb_rx_queues ? dev->data->rx_queues[q] :
						    NULL;
		if (rxq == NULL || rxq->wq == NULL) {
			DRV_LOG(ERR,
				"port %u: RSS over Rx queue %u, which is not set up",
				dev->data->port_id, q);
			free(wqs);
			return -EINVAL;
		}
		wqs[i] = rxq->wq;
	}
	memset(&ind_attr, 0, sizeof(ind_attr));
	ind_attr.log_ind_tbl_size = log_n;
	ind_attr.ind_tbl = wqs;
	rss->ind = ibv_create_rwq_ind_table(priv->ctx, &ind_attr);
	free(wqs);
	if (rss->ind == NULL) {
		ret = -(errno ? errno : EINVAL);
		DRV_LOG(ERR, "port %u: create_rwq_ind_table(%u entries): %s",
			dev->data->port_id, n, strerror(-ret));
		return ret;
	}
	rss->qp = vsteer_hash_qp_create(priv, rss->ind, rss->key,
					rss->hash_fields, rss->flags);
	if (rss->qp == NULL) {
		ret = -(errno ? errno : EINVAL);
		DRV_LOG(ERR,
			"port %u: hash QP (fields 0x%" PRIx64
			", %u entries): %s",
			dev->data->port_id, rss->hash_fields, n,
			strerror(-ret));
		goto err_ind;
	}
	ret = vsteer_hash_qp_ready(priv, rss->qp);
	if (ret != 0) {
		DRV_LOG(ERR, "port %u: hash QP to RTR: %s", dev->data->port_id,
			strerror(ret));
		ret = -ret;
		goto err_qp;
	}
	DRV_LOG(DEBUG,
		"port %u: RSS context fields 0x%" PRIx64
		" over %u queues (%u entries)",
		dev->data->port_id, rss->hash_fields, rss->queues_n, n);
	return 0;
err_qp:
	priv->glue->destroy_qp(rss->qp);
	rss->qp = NULL;
err_ind:
	ibv_destroy_rwq_ind_table(rss->ind);
	rss->ind = NULL;
	return ret;
}

static void
vsteer_rss_destroy(struct rte_eth_dev *dev, struct vsteer_rss *rss)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	int ret;

	if (rss->qp != NULL) {
		ret = priv->glue->destroy_qp(rss->qp);
		if (ret != 0)
			DRV_LOG(ERR, "port %u: destroy hash QP: %s",
				dev->data->port_id, strerror(ret));
	}
	if (rss->ind != NULL) {
		ret = ibv_destroy_rwq_ind_table(rss->ind);
		if (ret != 0)
			DRV_LOG(ERR, "port %u: destroy indirection table: %s",
				dev->data->port_id, strerror(ret));
	}
	rte_free(rss);
}

struct vsteer_rss *
vsteer_rss_get(struct rte_eth_dev *dev, const uint8_t key[VSTEER_RSS_KEY_LEN],
	       uint64_t hash_fields, const uint16_t *queues, uint32_t queues_n,
	       uint32_t flags)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_rss *rss;
	int ret;

	VSTEER_CTL_HELD(priv);
	if (!priv->started) {
		rte_errno = EBUSY;
		return NULL;
	}
	if (queues_n == 0 || queues == NULL) {
		rte_errno = EINVAL;
		return NULL;
	}
	/* The kernel refuses a hash QP without fields over several queues. */
	if (hash_fields == 0)
		queues_n = 1;
	/* What vsteer_hash_qp_create() will do, so that equal QPs share. */
	flags = vsteer_rss_qp_flags(priv, hash_fields, flags);
	TAILQ_FOREACH(rss, &priv->rss_list, next) {
		if (rss->hash_fields == hash_fields && rss->flags == flags &&
		    rss->queues_n == queues_n &&
		    memcmp(rss->key, key, VSTEER_RSS_KEY_LEN) == 0 &&
		    memcmp(rss->queues, queues, queues_n * sizeof(*queues)) ==
			    0) {
			rss->refcnt++;
			return rss;
		}
	}
	rss = rte_zmalloc_socket("vsteer_rss",
				 sizeof(*rss) + queues_n * sizeof(*queues), 0,
				 dev->data->numa_node);
	if (rss == NULL) {
		rte_errno = ENOMEM;
		return NULL;
	}
	rss->refcnt = 1;
	rss->hash_fields = hash_fields;
	rss->flags = flags;
	memcpy(rss->key, key, VSTEER_RSS_KEY_LEN);
	rss->queues_n = queues_n;
	memcpy(rss->queues, queues, queues_n * sizeof(*queues));
	ret = vsteer_rss_setup(dev, rss);
	if (ret != 0) {
		rte_free(rss);
		rte_errno = -ret;
		return NULL;
	}
	TAILQ_INSERT_TAIL(&priv->rss_list, rss, next);
	return rss;
}

void
vsteer_rss_put(struct rte_eth_dev *dev, struct vsteer_rss *rss)
{
	struct vsteer_priv *priv = vsteer_priv(dev);

	if (rss == NULL)
		return;
	VSTEER_CTL_HELD(priv);
	RTE_ASSERT(rss->refcnt > 0);
	if (--rss->refcnt > 0)
		return;
	TAILQ_REMOVE(&priv->rss_list, rss, next);
	vsteer_rss_destroy(dev, rss);
}

void
vsteer_rss_flush(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	struct vsteer_rss *rss;

	VSTEER_CTL_HELD(priv);
	while ((rss = TAILQ_FIRST(&priv->rss_list)) != NULL) {
		DRV_LOG(ERR,
			"port %u: RSS context (fields 0x%" PRIx64
			") still has %u users at stop",
			dev->data->port_id, rss->hash_fields, rss->refcnt);
		TAILQ_REMOVE(&priv->rss_list, rss, next);
		vsteer_rss_destroy(dev, rss);
	}
}

void
vsteer_reta_default(struct rte_eth_dev *dev)
{
	struct vsteer_priv *priv = vsteer_priv(dev);
	uint16_t nq = RTE_MAX(dev->data->nb_rx_queues, (uint16_t)1);
	uint32_t i;

	for (i = 0; i < priv->reta_size; i++)
		priv->reta[i] = i % nq;
	priv->reta_nb_rxq = dev->data->nb_rx_queues;
}

uint64_t
vsteer_rss_hf_supported(uint64_t m)
{
	const uint64_t v4 = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4;
	const uint64_t v6 = IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6;
	const uint64_t tcp = IBV_RX_HASH_SRC_PORT_TCP |
			     IBV_RX_HASH_DST_PORT_TCP;
	const uint64_t udp = IBV_RX_HASH_SRC_PORT_UDP |
			     IBV_RX_HASH_DST_PORT_UDP;
	uint64_t hf = 0;

	if ((m & v4) == v4) {
		hf |= RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 |
		      RTE_ETH_RSS_NONFRAG_IPV4_OTHER;
		if ((m & tcp) == tcp)
			hf |= RTE_ETH_RSS_NONFRAG_IPV4_TCP;
		if ((m & udp) == udp)
			hf |= RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	}
	if ((m & v6) == v6) {
		hf |= RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_FRAG_IPV6 |
		      RTE_ETH_RSS_NONFRAG_IPV6_OTHER | RTE_ETH_RSS_IPV6_EX;
		if ((m & tcp) == tcp)
			hf |= RTE_ETH_RSS_NONFRAG_IPV6_TCP |
			      RTE_ETH_RSS_IPV6_TCP_EX;
		if ((m & udp) == udp)
			hf |= RTE_ETH_RSS_NONFRAG_IPV6_UDP |
			      RTE_ETH_RSS_IPV6_UDP_EX;
	}
	return hf;
}

void
vsteer_xlate_ctx_init(const struct rte_eth_dev *dev,
		      struct vsteer_xlate_ctx *ctx)
{
	const struct vsteer_priv *priv = vsteer_priv(dev);

	memset(ctx, 0, sizeof(*ctx));
	ctx->nb_rx_queues = dev->data->nb_rx_queues;
	ctx->port_num = priv->port_num;
	ctx->max_verbs_prio = priv->max_verbs_prio;
	ctx->egress_ok = priv->egress_ok;
	ctx->tag_ok = priv->tag_ok;
	ctx->inner_rss_ok = priv->inner_rss_ok;
	ctx->count_ok = priv->count_ok;
	ctx->dv_ok = priv->dv_ok;
	ctx->devx_ok = priv->devx_ok;
	ctx->verbs_esp_ok = priv->verbs_esp_ok;
	ctx->mpls_ok = priv->mpls_ok;
	ctx->ihl_ok = priv->ihl_ok;
	ctx->ihl_inner_ok = priv->ihl_inner_ok;
	ctx->max_modify_rx = priv->max_modify_rx;
	ctx->max_modify_tx = priv->max_modify_tx;
	ctx->max_encap = priv->max_encap;
	ctx->internal = false;
	ctx->rss_hf_supported = priv->rss_hf_supported;
	/* An RSS action without types hashes on IP, as mlx5 does; one
	 * without a key hashes with the port's key (rss_hash_update). */
	ctx->rss_hf_default = RTE_ETH_RSS_IP & priv->rss_hf_supported;
	ctx->rss_key_default = priv->rss_key;
}
