/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VT_FUZZ_XLATE_H
#define VT_FUZZ_XLATE_H

/*
 * The tables of the fuzz_xlate input format, shared by the harness (which
 * decodes inputs) and the corpus generator (which encodes seed flows).
 * Changing a table changes what existing corpus files mean: they still
 * decode, but regenerate the seeds (gen_corpus) to keep them meaningful.
 */

#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#define FZ_MAX_ITEMS 12
#define FZ_MAX_ACTIONS 8

/* Selector bytes from this value on are followed by a raw 32-bit type. */
#define FZ_SEL_RAW 0xf8

/* Context flag bits. */
#define FZ_CTX_EGRESS_OK 0x01
#define FZ_CTX_TAG_OK 0x02
#define FZ_CTX_INNER_RSS 0x04
#define FZ_CTX_COUNT_OK 0x08
#define FZ_CTX_INTERNAL 0x10
#define FZ_CTX_KEY 0x20	      /* 40 key bytes follow */
#define FZ_CTX_RAW_TYPES 0x40 /* 64-bit supported RSS types follow */
#define FZ_CTX_NULL_ERROR 0x80

/* Second context flag byte: the mlx5dv capabilities. */
#define FZ_CTX2_DV_OK 0x01
#define FZ_CTX2_DEVX_OK 0x02
#define FZ_CTX2_VERBS_ESP 0x04
/* Set: what the device lacks (so the corpus made before keeps them). */
#define FZ_CTX2_NO_MPLS 0x08
#define FZ_CTX2_NO_IHL 0x10
/* Three table picks follow the context: the header modify actions of the
 * receive and transmit tables, the reformat bytes (else 16, 16, 128). */
#define FZ_CTX2_LIMITS 0x20
#define FZ_CTX2_ALL (FZ_CTX2_DV_OK | FZ_CTX2_DEVX_OK | FZ_CTX2_VERBS_ESP)

/* rte_flow.h documents a full default GRE key mask but defines none. */
static const rte_be32_t fz_gre_key_mask = RTE_BE32(0xffffffff);

struct fz_item_type {
	enum rte_flow_item_type type;
	uint16_t size;
	const void *def_mask;
};

#define FZ_ITEM(t, s, m)                             \
	{                                            \
		RTE_FLOW_ITEM_TYPE_##t, sizeof(s), m \
	}

static const struct fz_item_type fz_item_types[] = {
	FZ_ITEM(ETH, struct rte_flow_item_eth, &rte_flow_item_eth_mask),
	FZ_ITEM(VLAN, struct rte_flow_item_vlan, &rte_flow_item_vlan_mask),
	FZ_ITEM(IPV4, struct rte_flow_item_ipv4, &rte_flow_item_ipv4_mask),
	FZ_ITEM(IPV6, struct rte_flow_item_ipv6, &rte_flow_item_ipv6_mask),
	FZ_ITEM(TCP, struct rte_flow_item_tcp, &rte_flow_item_tcp_mask),
	FZ_ITEM(UDP, struct rte_flow_item_udp, &rte_flow_item_udp_mask),
	FZ_ITEM(VXLAN, struct rte_flow_item_vxlan, &rte_flow_item_vxlan_mask),
	FZ_ITEM(GRE, struct rte_flow_item_gre, &rte_flow_item_gre_mask),
	FZ_ITEM(GRE_KEY, rte_be32_t, &fz_gre_key_mask),
	FZ_ITEM(MPLS, struct rte_flow_item_mpls, &rte_flow_item_mpls_mask),
	FZ_ITEM(ESP, struct rte_flow_item_esp, &rte_flow_item_esp_mask),
	{ RTE_FLOW_ITEM_TYPE_VOID, 0, NULL },
	FZ_ITEM(ICMP, struct rte_flow_item_icmp, &rte_flow_item_icmp_mask),
	FZ_ITEM(SCTP, struct rte_flow_item_sctp, &rte_flow_item_sctp_mask),
	FZ_ITEM(NVGRE, struct rte_flow_item_nvgre, &rte_flow_item_nvgre_mask),
	/* Supported by neither translator: the rest. */
	FZ_ITEM(GENEVE, struct rte_flow_item_geneve,
		&rte_flow_item_geneve_mask),
	FZ_ITEM(ICMP6, struct rte_flow_item_icmp6, &rte_flow_item_icmp6_mask),
	FZ_ITEM(META, struct rte_flow_item_meta, &rte_flow_item_meta_mask),
	{ RTE_FLOW_ITEM_TYPE_END, 0, NULL },
};

static const enum rte_flow_action_type fz_action_types[] = {
	RTE_FLOW_ACTION_TYPE_QUEUE,
	RTE_FLOW_ACTION_TYPE_RSS,
	RTE_FLOW_ACTION_TYPE_DROP,
	RTE_FLOW_ACTION_TYPE_MARK,
	RTE_FLOW_ACTION_TYPE_FLAG,
	RTE_FLOW_ACTION_TYPE_COUNT,
	RTE_FLOW_ACTION_TYPE_INDIRECT,
	RTE_FLOW_ACTION_TYPE_PASSTHRU,
	RTE_FLOW_ACTION_TYPE_VOID,
	/* Not supported. */
	RTE_FLOW_ACTION_TYPE_JUMP,
	RTE_FLOW_ACTION_TYPE_OF_POP_VLAN,
	RTE_FLOW_ACTION_TYPE_SET_MAC_SRC,
	RTE_FLOW_ACTION_TYPE_AGE,
	RTE_FLOW_ACTION_TYPE_PORT_ID,
	RTE_FLOW_ACTION_TYPE_END,
	/* Packet actions (matcher engine); SET_MAC_SRC is above. */
	RTE_FLOW_ACTION_TYPE_SET_MAC_DST,
	RTE_FLOW_ACTION_TYPE_SET_IPV4_SRC,
	RTE_FLOW_ACTION_TYPE_SET_IPV6_DST,
	RTE_FLOW_ACTION_TYPE_SET_TP_SRC,
	RTE_FLOW_ACTION_TYPE_SET_TTL,
	RTE_FLOW_ACTION_TYPE_DEC_TTL,
	RTE_FLOW_ACTION_TYPE_SET_IPV4_DSCP,
	RTE_FLOW_ACTION_TYPE_SET_IPV6_DSCP,
	RTE_FLOW_ACTION_TYPE_INC_TCP_SEQ,
	RTE_FLOW_ACTION_TYPE_DEC_TCP_ACK,
	RTE_FLOW_ACTION_TYPE_MODIFY_FIELD,
	RTE_FLOW_ACTION_TYPE_VXLAN_DECAP,
	RTE_FLOW_ACTION_TYPE_NVGRE_DECAP,
	RTE_FLOW_ACTION_TYPE_RAW_DECAP,
	RTE_FLOW_ACTION_TYPE_VXLAN_ENCAP,
	RTE_FLOW_ACTION_TYPE_NVGRE_ENCAP,
	RTE_FLOW_ACTION_TYPE_RAW_ENCAP,
	RTE_FLOW_ACTION_TYPE_SET_IPV4_DST,
	RTE_FLOW_ACTION_TYPE_SET_TP_DST,
};

/* Header modify actions and reformat bytes the device takes. */
static const uint16_t fz_max_modify[] = { 16, 16, 2, 0, 255, 32 };
static const uint16_t fz_max_encap[] = { 128, 128, 40, 0, 1023, 132 };

static const uint32_t fz_max_prios[] = { 15, 15, 7, 2, 3, 0, 16, 65535 };
static const uint16_t fz_max_bytes[] = { 0,   0,  512, 1000, 256,
					 160, 96, 64,  40,   20 };
static const uint8_t fz_key_lens[] = { 0, 40, 40, 52, 39 };

/* RSS types: common requests, modifiers and types the device lacks. */
static const uint64_t fz_rss_types[] = {
	RTE_ETH_RSS_IP,
	RTE_ETH_RSS_UDP,
	RTE_ETH_RSS_TCP,
	RTE_ETH_RSS_IPV4,
	RTE_ETH_RSS_IPV6,
	RTE_ETH_RSS_NONFRAG_IPV4_TCP,
	RTE_ETH_RSS_NONFRAG_IPV4_UDP,
	RTE_ETH_RSS_NONFRAG_IPV6_TCP,
	RTE_ETH_RSS_NONFRAG_IPV6_UDP,
	RTE_ETH_RSS_ESP,
	RTE_ETH_RSS_L3_SRC_ONLY,
	RTE_ETH_RSS_L3_DST_ONLY,
	RTE_ETH_RSS_L4_SRC_ONLY,
	RTE_ETH_RSS_L4_DST_ONLY,
	RTE_ETH_RSS_IPV6_EX,
	RTE_ETH_RSS_SCTP,
	RTE_ETH_RSS_L2_PAYLOAD,
};

#define FZ_RSS_DEVICE \
	(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_ESP)

#endif /* VT_FUZZ_XLATE_H */
