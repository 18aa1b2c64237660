/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * What each flow engine can match: one row per rte_flow item field the
 * driver knows (and per pattern feature, action and attribute), saying how
 * a verbs spec chain expresses it (as rdma-core 44 and the mlx5 kernel take
 * it), how the mlx5dv matcher's PRM fte_match_param does, or that neither
 * can. The translators check every masked field against these rows, the
 * flow layer routes flow_engine=auto on the refusals they cause, and the
 * guide's engine table is printed from them (a unit test keeps it true).
 *
 * Adding a matchable field is editing its row here and writing it in the
 * translator(s) that now take it.
 */

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_flow.h>

#include "vsteer_flow_xlate.h"

#define V VSTEER_FLOW_ENGINE_VERBS
#define D VSTEER_FLOW_ENGINE_DV
#define YES VSTEER_SUP_YES
#define OUTER VSTEER_SUP_OUTER

/* A field: a member of the item struct, all or some (bits) of it. */
#define FIELD(it, nm, type, member, b, vs, vh, ds, dh)              \
	{                                                           \
		.kind = VSTEER_ROW_FIELD, .item = VSTEER_ITEM_##it, \
		.name = nm, .off = offsetof(type, member),          \
		.len = sizeof(((type *)0)->member), .bits = b,      \
		.sup = { vs, ds },                                  \
		.how = { vh,                                        \
			 dh }                                       \
	}
/* The bit-fields after an item's header (flags, reserved bits). */
#define TAIL(it, nm, type, b, vs, vh, ds, dh)                          \
	{                                                              \
		.kind = VSTEER_ROW_FIELD, .item = VSTEER_ITEM_##it,    \
		.name = nm,                                            \
		.off = offsetof(type, hdr) + sizeof(((type *)0)->hdr), \
		.len = sizeof(type) - offsetof(type, hdr) -            \
		       sizeof(((type *)0)->hdr),                       \
		.bits = b, .sup = { vs, ds },                          \
		.how = { vh,                                           \
			 dh }                                          \
	}
#define FEATURE(it, nm, vs, vh, ds, dh)                               \
	{                                                             \
		.kind = VSTEER_ROW_FEATURE, .item = VSTEER_ITEM_##it, \
		.name = nm, .sup = { vs, ds },                        \
		.how = { vh,                                          \
			 dh }                                         \
	}

/* The bits of rows that cover part of a member. */
static const struct rte_flow_item_eth b_eth_has_vlan = { .has_vlan = 1 };
static const struct rte_flow_item_eth b_eth_rsvd = { .reserved = 0x7fffffff };
static const struct rte_flow_item_vlan b_vlan_more = { .has_more_vlan = 1 };
static const struct rte_flow_item_vlan b_vlan_rsvd = { .reserved = 0x7fffffff };
static const struct rte_flow_item_ipv4 b_ipv4_version = { .hdr.version_ihl =
								  0xf0 };
static const struct rte_flow_item_ipv4 b_ipv4_ihl = { .hdr.version_ihl = 0x0f };
static const struct rte_flow_item_ipv4 b_ipv4_frag = {
	.hdr.fragment_offset = RTE_BE16(0x3fff)
};
static const struct rte_flow_item_ipv4 b_ipv4_flags = {
	.hdr.fragment_offset = RTE_BE16(0xc000)
};
static const struct rte_flow_item_ipv6 b_ipv6_version = {
	.hdr.vtc_flow = RTE_BE32(0xf0000000)
};
static const struct rte_flow_item_ipv6 b_ipv6_tc = { .hdr.vtc_flow = RTE_BE32(
							     0x0ff00000) };
static const struct rte_flow_item_ipv6 b_ipv6_fl = { .hdr.vtc_flow = RTE_BE32(
							     0x000fffff) };
static const struct rte_flow_item_ipv6 b_ipv6_frag = { .has_frag_ext = 1 };
static const struct rte_flow_item_ipv6 b_ipv6_ext = {
	.has_hop_ext = 1,
	.has_route_ext = 1,
	.has_auth_ext = 1,
	.has_esp_ext = 1,
	.has_dest_ext = 1,
	.has_mobil_ext = 1,
	.has_hip_ext = 1,
	.has_shim6_ext = 1,
	.reserved = 0x7fffff,
};
static const struct rte_flow_item_tcp b_tcp_off = { .hdr.data_off = 0xfe };
static const struct rte_flow_item_tcp b_tcp_ns = { .hdr.data_off = 0x01 };
static const struct rte_flow_item_gre b_gre_c = { .c_rsvd0_ver =
							  RTE_BE16(0x8000) };
static const struct rte_flow_item_gre b_gre_k = { .c_rsvd0_ver =
							  RTE_BE16(0x2000) };
static const struct rte_flow_item_gre b_gre_s = { .c_rsvd0_ver =
							  RTE_BE16(0x1000) };
static const struct rte_flow_item_gre b_gre_rsvd = { .c_rsvd0_ver =
							     RTE_BE16(0x4fff) };

#define NO_VERBS_KERNEL "no: the mlx5 kernel refuses a mask on it"

/* Field rows per item. */
static const struct vsteer_flow_row rows_eth[] = {
	FIELD(ETH, "dst", struct rte_flow_item_eth, hdr.dst_addr, NULL, YES,
	      "ETH spec dst_mac", YES, "dmac"),
	FIELD(ETH, "src", struct rte_flow_item_eth, hdr.src_addr, NULL, YES,
	      "ETH spec src_mac", YES, "smac"),
	FIELD(ETH, "type", struct rte_flow_item_eth, hdr.ether_type, NULL, YES,
	      "ETH spec ether_type (the ethertype after the VLAN tags)", YES,
	      "ethertype (after the tags); 0x8100 / 0x88a8: cvlan_tag / svlan_tag"),
	TAIL(ETH, "has_vlan", struct rte_flow_item_eth, &b_eth_has_vlan, 0,
	     "no: a verbs rule matches tagged and untagged frames alike", YES,
	     "cvlan_tag, svlan_tag (0: untagged; 1: first tag 802.1Q)"),
	TAIL(ETH, "reserved", struct rte_flow_item_eth, &b_eth_rsvd, 0, NULL, 0,
	     NULL),
};

static const struct vsteer_flow_row rows_vlan[] = {
	FIELD(VLAN, "tci", struct rte_flow_item_vlan, hdr.vlan_tci, NULL, YES,
	      "ETH spec vlan_tag (PCP, DEI, VID)", YES,
	      "first_prio, first_cfi, first_vid"),
	FIELD(VLAN, "inner_type", struct rte_flow_item_vlan, hdr.eth_proto,
	      NULL, YES, "ETH spec ether_type", YES,
	      "ethertype; 0x8100 / 0x88a8: outer_second_cvlan_tag / svlan_tag"),
	TAIL(VLAN, "has_more_vlan", struct rte_flow_item_vlan, &b_vlan_more, 0,
	     "no", YES,
	     "outer_second_cvlan_tag, outer_second_svlan_tag (0: no second tag; 1: a second 802.1Q tag)"),
	TAIL(VLAN, "reserved", struct rte_flow_item_vlan, &b_vlan_rsvd, 0, NULL,
	     0, NULL),
};

static const struct vsteer_flow_row rows_ipv4[] = {
	FIELD(IPV4, "version", struct rte_flow_item_ipv4, hdr.version_ihl,
	      &b_ipv4_version, YES, "implied by the IPv4 spec (must be 4)", YES,
	      "ip_version"),
	FIELD(IPV4, "ihl", struct rte_flow_item_ipv4, hdr.version_ihl,
	      &b_ipv4_ihl, 0, "no", YES | VSTEER_SUP_IF_IHL, "ipv4_ihl"),
	FIELD(IPV4, "type_of_service", struct rte_flow_item_ipv4,
	      hdr.type_of_service, NULL, YES, "IPV4_EXT spec tos", YES,
	      "ip_dscp, ip_ecn"),
	FIELD(IPV4, "total_length", struct rte_flow_item_ipv4, hdr.total_length,
	      NULL, 0, NULL, 0, NULL),
	FIELD(IPV4, "packet_id", struct rte_flow_item_ipv4, hdr.packet_id, NULL,
	      0, NULL, 0, NULL),
	FIELD(IPV4, "fragment_offset", struct rte_flow_item_ipv4,
	      hdr.fragment_offset, &b_ipv4_frag, 0,
	      "no: the mlx5 kernel refuses a mask on the IPV4_EXT flags",
	      YES | VSTEER_SUP_RANGE,
	      "frag: mask 0x3fff with 0 (not a fragment) or with the range 1 to 0x3fff (a fragment)"),
	FIELD(IPV4, "fragment_offset DF and reserved flags",
	      struct rte_flow_item_ipv4, hdr.fragment_offset, &b_ipv4_flags, 0,
	      NULL, 0, NULL),
	FIELD(IPV4, "time_to_live", struct rte_flow_item_ipv4, hdr.time_to_live,
	      NULL, 0, NO_VERBS_KERNEL, YES, "ttl_hoplimit"),
	FIELD(IPV4, "next_proto_id", struct rte_flow_item_ipv4,
	      hdr.next_proto_id, NULL, YES, "IPV4_EXT spec proto", YES,
	      "ip_protocol (full mask only)"),
	FIELD(IPV4, "hdr_checksum", struct rte_flow_item_ipv4, hdr.hdr_checksum,
	      NULL, 0, NULL, 0, NULL),
	FIELD(IPV4, "src_addr", struct rte_flow_item_ipv4, hdr.src_addr, NULL,
	      YES, "IPV4 spec src_ip", YES, "src_ip (IPv4 layout)"),
	FIELD(IPV4, "dst_addr", struct rte_flow_item_ipv4, hdr.dst_addr, NULL,
	      YES, "IPV4 spec dst_ip", YES, "dst_ip (IPv4 layout)"),
};

static const struct vsteer_flow_row rows_ipv6[] = {
	FIELD(IPV6, "vtc_flow version", struct rte_flow_item_ipv6, hdr.vtc_flow,
	      &b_ipv6_version, YES, "implied by the IPv6 spec (must be 6)", YES,
	      "ip_version"),
	FIELD(IPV6, "vtc_flow traffic class", struct rte_flow_item_ipv6,
	      hdr.vtc_flow, &b_ipv6_tc, YES, "IPV6 spec traffic_class", YES,
	      "ip_dscp, ip_ecn"),
	FIELD(IPV6, "vtc_flow flow label", struct rte_flow_item_ipv6,
	      hdr.vtc_flow, &b_ipv6_fl, YES, "IPV6 spec flow_label", YES,
	      "misc outer_ipv6_flow_label / inner_ipv6_flow_label"),
	FIELD(IPV6, "payload_len", struct rte_flow_item_ipv6, hdr.payload_len,
	      NULL, 0, NULL, 0, NULL),
	FIELD(IPV6, "proto", struct rte_flow_item_ipv6, hdr.proto, NULL, YES,
	      "IPV6 spec next_hdr", YES, "ip_protocol (full mask only)"),
	FIELD(IPV6, "hop_limits", struct rte_flow_item_ipv6, hdr.hop_limits,
	      NULL, 0, NO_VERBS_KERNEL, YES, "ttl_hoplimit"),
	FIELD(IPV6, "src_addr", struct rte_flow_item_ipv6, hdr.src_addr, NULL,
	      YES, "IPV6 spec src_ip", YES, "src_ip"),
	FIELD(IPV6, "dst_addr", struct rte_flow_item_ipv6, hdr.dst_addr, NULL,
	      YES, "IPV6 spec dst_ip", YES, "dst_ip"),
	TAIL(IPV6, "has_frag_ext", struct rte_flow_item_ipv6, &b_ipv6_frag, 0,
	     "no", YES, "frag"),
	TAIL(IPV6, "other extension header flags", struct rte_flow_item_ipv6,
	     &b_ipv6_ext, 0, NULL, 0, NULL),
};

static const struct vsteer_flow_row rows_tcp[] = {
	FIELD(TCP, "src_port", struct rte_flow_item_tcp, hdr.src_port, NULL,
	      YES, "TCP spec src_port", YES, "tcp_sport"),
	FIELD(TCP, "dst_port", struct rte_flow_item_tcp, hdr.dst_port, NULL,
	      YES, "TCP spec dst_port", YES, "tcp_dport"),
	FIELD(TCP, "sent_seq", struct rte_flow_item_tcp, hdr.sent_seq, NULL, 0,
	      NULL, 0, NULL),
	FIELD(TCP, "recv_ack", struct rte_flow_item_tcp, hdr.recv_ack, NULL, 0,
	      NULL, 0, NULL),
	FIELD(TCP, "data_off", struct rte_flow_item_tcp, hdr.data_off,
	      &b_tcp_off, 0, NULL, 0, NULL),
	FIELD(TCP, "data_off NS flag", struct rte_flow_item_tcp, hdr.data_off,
	      &b_tcp_ns, 0, "no", YES, "tcp_flags bit 8"),
	FIELD(TCP, "tcp_flags", struct rte_flow_item_tcp, hdr.tcp_flags, NULL,
	      0, "no", YES, "tcp_flags bits 0 to 7"),
	FIELD(TCP, "rx_win", struct rte_flow_item_tcp, hdr.rx_win, NULL, 0,
	      NULL, 0, NULL),
	FIELD(TCP, "cksum", struct rte_flow_item_tcp, hdr.cksum, NULL, 0, NULL,
	      0, NULL),
	FIELD(TCP, "tcp_urp", struct rte_flow_item_tcp, hdr.tcp_urp, NULL, 0,
	      NULL, 0, NULL),
};

static const struct vsteer_flow_row rows_udp[] = {
	FIELD(UDP, "src_port", struct rte_flow_item_udp, hdr.src_port, NULL,
	      YES, "UDP spec src_port", YES, "udp_sport"),
	FIELD(UDP, "dst_port", struct rte_flow_item_udp, hdr.dst_port, NULL,
	      YES, "UDP spec dst_port", YES, "udp_dport"),
	FIELD(UDP, "dgram_len", struct rte_flow_item_udp, hdr.dgram_len, NULL,
	      0, NULL, 0, NULL),
	FIELD(UDP, "dgram_cksum", struct rte_flow_item_udp, hdr.dgram_cksum,
	      NULL, 0, NULL, 0, NULL),
};

static const struct vsteer_flow_row rows_vxlan[] = {
	FIELD(VXLAN, "flags", struct rte_flow_item_vxlan, flags, NULL, 0, NULL,
	      0, NULL),
	FIELD(VXLAN, "rsvd0", struct rte_flow_item_vxlan, rsvd0, NULL, 0, NULL,
	      0, NULL),
	FIELD(VXLAN, "vni", struct rte_flow_item_vxlan, vni, NULL, YES,
	      "VXLAN_TUNNEL spec tunnel_id", YES, "misc vxlan_vni"),
	FIELD(VXLAN, "rsvd1", struct rte_flow_item_vxlan, rsvd1, NULL, 0, NULL,
	      0, NULL),
};

static const struct vsteer_flow_row rows_gre[] = {
	FIELD(GRE, "c_rsvd0_ver C bit", struct rte_flow_item_gre, c_rsvd0_ver,
	      &b_gre_c, 0, "no: the mlx5 kernel refuses a c_ks_res0_ver mask",
	      YES, "misc gre_c_present"),
	FIELD(GRE, "c_rsvd0_ver K bit", struct rte_flow_item_gre, c_rsvd0_ver,
	      &b_gre_k, 0, "no: the mlx5 kernel refuses a c_ks_res0_ver mask",
	      YES, "misc gre_k_present"),
	FIELD(GRE, "c_rsvd0_ver S bit", struct rte_flow_item_gre, c_rsvd0_ver,
	      &b_gre_s, 0, "no: the mlx5 kernel refuses a c_ks_res0_ver mask",
	      YES, "misc gre_s_present"),
	FIELD(GRE, "c_rsvd0_ver reserved bits and version",
	      struct rte_flow_item_gre, c_rsvd0_ver, &b_gre_rsvd, 0, NULL, 0,
	      NULL),
	FIELD(GRE, "protocol", struct rte_flow_item_gre, protocol, NULL, YES,
	      "GRE spec protocol", YES, "misc gre_protocol"),
};

static const struct vsteer_flow_row rows_gre_key[] = {
	{
		.kind = VSTEER_ROW_FIELD,
		.item = VSTEER_ITEM_GRE_KEY,
		.name = "key",
		.off = 0,
		.len = sizeof(rte_be32_t),
		.sup = { YES, YES },
		.how = { "GRE spec key (the K bit itself cannot be required)",
			 "misc gre_key with gre_k_present 1" },
	},
};

/* NVGRE (RFC 7637): GRE with the K bit, protocol 0x6558, and a key made of
 * the virtual subnet id and a flow id. */
static const struct vsteer_flow_row rows_nvgre[] = {
	FIELD(NVGRE, "c_k_s_rsvd0_ver", struct rte_flow_item_nvgre,
	      c_k_s_rsvd0_ver, NULL, 0,
	      "no: the mlx5 kernel refuses a c_ks_res0_ver mask", 0,
	      "no: the K bit is implied (gre_k_present 1)"),
	FIELD(NVGRE, "protocol", struct rte_flow_item_nvgre, protocol, NULL, 0,
	      "no: 0x6558 is implied (GRE spec protocol)", 0,
	      "no: 0x6558 is implied (misc gre_protocol)"),
	FIELD(NVGRE, "tni", struct rte_flow_item_nvgre, tni, NULL, YES,
	      "GRE spec key, high 24 bits", YES,
	      "misc gre_key, high 24 bits, with gre_k_present 1"),
	FIELD(NVGRE, "flow_id", struct rte_flow_item_nvgre, flow_id, NULL, YES,
	      "GRE spec key, low 8 bits", YES, "misc gre_key, low 8 bits"),
};

static const struct vsteer_flow_row rows_mpls[] = {
	FIELD(MPLS, "label_tc_s", struct rte_flow_item_mpls, label_tc_s, NULL,
	      YES | VSTEER_SUP_IF_MPLS, "MPLS spec label",
	      YES | VSTEER_SUP_IF_MPLS,
	      "misc2 outer_first_mpls_over_udp / _over_gre"),
	FIELD(MPLS, "ttl", struct rte_flow_item_mpls, ttl, NULL, 0, "no",
	      YES | VSTEER_SUP_IF_MPLS, "mpls_ttl of the same misc2 entry"),
};

static const struct vsteer_flow_row rows_esp[] = {
	FIELD(ESP, "spi", struct rte_flow_item_esp, hdr.spi, NULL,
	      YES | VSTEER_SUP_IF_VERBS_ESP, "ESP spec spi", OUTER,
	      "misc outer_esp_spi"),
	FIELD(ESP, "seq", struct rte_flow_item_esp, hdr.seq, NULL, 0,
	      NO_VERBS_KERNEL, 0, NULL),
};

/* Pattern features: what a pattern says by its shape, not by one mask. */
const struct vsteer_flow_row vsteer_flow_named[VSTEER_ROW_NAMED_N] = {
	[VSTEER_ROW_ETH_TPID_C] =
		FEATURE(ETH,
			"type 0x8100 and no VLAN item (an 802.1Q-tagged frame)",
			0, "no: use a VLAN item", YES, "cvlan_tag 1"),
	[VSTEER_ROW_ETH_TPID_S] =
		FEATURE(ETH, "type 0x88a8 (the first tag is 802.1ad)", 0,
			"no: the kernel's vlan_tag means an 802.1Q tag", YES,
			"svlan_tag 1; a VLAN item after it matches that tag"),
	[VSTEER_ROW_VLAN_PRESENCE] =
		FEATURE(VLAN, "tag presence alone (empty tci mask)", 0,
			"no: vlan_tag needs a mask", YES,
			"cvlan_tag 1 (svlan_tag 1 after type 0x88a8)"),
	[VSTEER_ROW_VLAN_SECOND_TAG] =
		FEATURE(VLAN, "inner_type 0x8100 or 0x88a8 (a second tag)", 0,
			"no", YES,
			"outer_second_cvlan_tag / outer_second_svlan_tag 1"),
	[VSTEER_ROW_VLAN_TWO_ITEMS] =
		FEATURE(VLAN, "a second VLAN item", 0, NULL, 0,
			"no: use has_more_vlan or inner_type on the first"),
	[VSTEER_ROW_ESP_HEADER] =
		FEATURE(ESP, "the ESP header", YES | VSTEER_SUP_IF_VERBS_ESP,
			"IBV_FLOW_SPEC_ESP (current mlx5 kernels refuse it)",
			YES, "ip_protocol 50"),
	/* mlx5dv_query_device() tunnel_offloads_caps, as DPDK's mlx5 asks
	 * (mlx5_os_capabilities_prepare(): mpls_en). */
	[VSTEER_ROW_MPLS_HEADER] =
		FEATURE(MPLS, "the MPLS header (over UDP or GRE)",
			YES | VSTEER_SUP_IF_MPLS, "IBV_FLOW_SPEC_MPLS",
			YES | VSTEER_SUP_IF_MPLS,
			"misc2 outer_first_mpls_over_udp / _over_gre"),
	/* The mlx5 kernel's multicast table (flow_is_multicast_only(),
	 * raw_fs_is_multicast()) comes after every priority: a rule there
	 * keeps no priority and the port's default flows shadow it. */
	[VSTEER_ROW_ETH_MCAST] = FEATURE(
		ETH, "dst multicast in spec and mask, at the rule's priority",
		OUTER,
		"an empty ETH spec first (the kernel's multicast table takes a chain by its first spec)",
		0,
		"no: the kernel's multicast table takes it, after every priority"),
	[VSTEER_ROW_IPV4_MCAST] = FEATURE(
		IPV4,
		"dst and its mask both in 224.0.0.0/4 (a mask such as /3), at the rule's priority",
		OUTER,
		"an empty ETH spec first when the pattern starts with IPv4", 0,
		"no: the kernel's multicast table takes it, after every priority"),
};

/* Flow actions are attached to matcher rules only: a verbs chain could
 * carry one (IBV_FLOW_SPEC_ACTION_HANDLE), the driver does not. */
#define NO_VERBS_EDIT "no: matcher rules carry the mlx5dv flow action"

#define ACTION(t, vs, vh, ds, dh)                                              \
	{                                                                      \
		.kind = VSTEER_ROW_ACTION, .action = RTE_FLOW_ACTION_TYPE_##t, \
		.name = #t, .sup = { vs, ds },                                 \
		.how = { vh,                                                   \
			 dh }                                                  \
	}

const struct vsteer_flow_row vsteer_flow_action_rows[] = {
	ACTION(QUEUE, YES, "a hash QP over a one-entry indirection table", YES,
	       "DEST_IBV_QP, the same hash QP"),
	ACTION(RSS, YES,
	       "a hash QP over the queues; one verbs rule per hashed type", YES,
	       "DEST_IBV_QP; one matcher entry per hashed type"),
	ACTION(DROP, YES, "ACTION_DROP spec", YES, "MLX5DV_FLOW_ACTION_DROP"),
	ACTION(PASSTHRU, YES, "IBV_FLOW_ATTR_FLAGS_DONT_TRAP", 0,
	       "no: a matcher rule has no DONT_TRAP"),
	ACTION(MARK, YES | VSTEER_SUP_IF_TAG, "ACTION_TAG spec, tag = id + 1",
	       YES | VSTEER_SUP_IF_TAG, "MLX5DV_FLOW_ACTION_TAG"),
	ACTION(FLAG, YES | VSTEER_SUP_IF_TAG, "ACTION_TAG spec 0xffffff",
	       YES | VSTEER_SUP_IF_TAG, "MLX5DV_FLOW_ACTION_TAG"),
	ACTION(COUNT, YES | VSTEER_SUP_IF_COUNT,
	       "ACTION_COUNT spec, an ibv_counters object",
	       YES | VSTEER_SUP_IF_DEVX, "COUNTERS_DEVX, a DevX flow counter"),
	ACTION(INDIRECT, YES | VSTEER_SUP_IF_COUNT,
	       "a shared COUNT: its ibv_counters object (a shared RSS: as RSS)",
	       YES | VSTEER_SUP_IF_DEVX,
	       "a shared COUNT: its DevX counter (a shared RSS: as RSS)"),
	ACTION(AGE, YES | VSTEER_SUP_IF_COUNT,
	       "the flow's ACTION_COUNT counters, read every second",
	       YES | VSTEER_SUP_IF_DEVX,
	       "the flow's DevX counter, read every second"),
	/* Header rewrites: one header modify list per rule
	 * (mlx5dv_create_flow_action_modify_header()), on the receive table
	 * for ingress rules, the transmit table for egress rules. */
	ACTION(SET_MAC_SRC, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_SMAC_47_16, OUT_SMAC_15_0"),
	ACTION(SET_MAC_DST, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_DMAC_47_16, OUT_DMAC_15_0"),
	ACTION(SET_IPV4_SRC, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_SIPV4 (an IPv4 item)"),
	ACTION(SET_IPV4_DST, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_DIPV4 (an IPv4 item)"),
	ACTION(SET_IPV6_SRC, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_SIPV6_127_96 .. _31_0 (an IPv6 item)"),
	ACTION(SET_IPV6_DST, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_DIPV6_127_96 .. _31_0 (an IPv6 item)"),
	ACTION(SET_TP_SRC, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_TCP_SPORT or OUT_UDP_SPORT, by the TCP or UDP item"),
	ACTION(SET_TP_DST, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_TCP_DPORT or OUT_UDP_DPORT, by the TCP or UDP item"),
	ACTION(SET_TTL, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_IPV4_TTL or OUT_IPV6_HOPLIMIT, by the L3 item"),
	ACTION(DEC_TTL, 0, NO_VERBS_EDIT, YES,
	       "header modify: add 0xff to OUT_IPV4_TTL or OUT_IPV6_HOPLIMIT"),
	ACTION(SET_IPV4_DSCP, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_IP_DSCP (an IPv4 item)"),
	ACTION(SET_IPV6_DSCP, 0, NO_VERBS_EDIT, YES,
	       "header modify: set OUT_IP_DSCP (an IPv6 item)"),
	ACTION(INC_TCP_SEQ, 0, NO_VERBS_EDIT, YES,
	       "header modify: add to OUT_TCP_SEQ_NUM (a TCP item)"),
	ACTION(DEC_TCP_SEQ, 0, NO_VERBS_EDIT, YES,
	       "header modify: add the negated value to OUT_TCP_SEQ_NUM"),
	ACTION(INC_TCP_ACK, 0, NO_VERBS_EDIT, YES,
	       "header modify: add to OUT_TCP_ACK_NUM (a TCP item)"),
	ACTION(DEC_TCP_ACK, 0, NO_VERBS_EDIT, YES,
	       "header modify: add the negated value to OUT_TCP_ACK_NUM"),
	ACTION(MODIFY_FIELD, 0, NO_VERBS_EDIT, YES,
	       "header modify: set, or add to a whole TTL, hop limit, TCP sequence or acknowledgment number, an immediate value (no copy between fields on the root table): MAC and IP addresses, EtherType, VLAN id, DSCP, TTL, hop limit, TCP and UDP ports, TCP sequence, acknowledgment and flags"),
	/* Packet reformat: one per rule
	 * (mlx5dv_create_flow_action_packet_reformat()), decap on the
	 * receive table, encap on the transmit table only. */
	ACTION(VXLAN_DECAP, 0, NO_VERBS_EDIT, YES,
	       "packet reformat L2_TUNNEL_TO_L2, NIC_RX (ingress; a VXLAN item on UDP port 4789)"),
	ACTION(NVGRE_DECAP, 0, NO_VERBS_EDIT, YES,
	       "packet reformat L2_TUNNEL_TO_L2, NIC_RX (ingress; an NVGRE item, or GRE carrying Ethernet)"),
	ACTION(RAW_DECAP, 0, NO_VERBS_EDIT, YES,
	       "packet reformat L2_TUNNEL_TO_L2, NIC_RX; with RAW_ENCAP of a 14 or 18-byte L2 header L3_TUNNEL_TO_L2, NIC_RX (ingress); before RAW_ENCAP of a longer header L2_TO_L3_TUNNEL, NIC_TX (egress)"),
	ACTION(VXLAN_ENCAP, 0, NO_VERBS_EDIT, YES,
	       "packet reformat L2_TO_L2_TUNNEL, NIC_TX (egress; outer UDP checksum 0)"),
	ACTION(NVGRE_ENCAP, 0, NO_VERBS_EDIT, YES,
	       "packet reformat L2_TO_L2_TUNNEL, NIC_TX (egress)"),
	ACTION(RAW_ENCAP, 0, NO_VERBS_EDIT, YES,
	       "packet reformat L2_TO_L2_TUNNEL, NIC_TX (egress; outer UDP checksum 0), or an L3 reformat with RAW_DECAP"),
};

const unsigned int vsteer_flow_action_rows_n = RTE_DIM(vsteer_flow_action_rows);

#define ATTR(nm, vs, vh, ds, dh)                                        \
	{                                                               \
		.kind = VSTEER_ROW_ATTR, .name = nm, .sup = { vs, ds }, \
		.how = { vh,                                            \
			 dh }                                           \
	}

const struct vsteer_flow_row vsteer_flow_attr_rows[] = {
	ATTR("ingress", YES, "the default direction", YES,
	     "NIC Rx matchers: QUEUE, RSS, DROP, MARK, FLAG, COUNT, header rewrites, decap"),
	ATTR("egress", YES | VSTEER_SUP_IF_EGRESS,
	     "IBV_FLOW_ATTR_FLAGS_EGRESS with DROP and COUNT (Linux 6.1's mlx5 takes it; the first IPsec kernels wanted an IPsec action)",
	     YES,
	     "NIC Tx matchers (ft_type NIC_TX): no fate (to the wire), DROP, COUNT, header rewrites, encap"),
	ATTR("priority", YES,
	     "verbs priority 3 x priority + sub-priority, levels 0 to 3", YES,
	     "the same numbers as matcher priorities"),
	ATTR("group", 0, "no: one table, group 0 only", 0,
	     "no: root table, group 0 only"),
	ATTR("transfer", 0, "no", 0, "no"),
};

const unsigned int vsteer_flow_attr_rows_n = RTE_DIM(vsteer_flow_attr_rows);

/* --- items --- */

#define NEXT(...)                                        \
	((const enum rte_flow_item_type[]){ __VA_ARGS__, \
					    RTE_FLOW_ITEM_TYPE_END })

const enum rte_flow_item_type vsteer_flow_item_roots[] = {
	RTE_FLOW_ITEM_TYPE_ETH,	 RTE_FLOW_ITEM_TYPE_VLAN,
	RTE_FLOW_ITEM_TYPE_IPV4, RTE_FLOW_ITEM_TYPE_IPV6,
	RTE_FLOW_ITEM_TYPE_END,
};

/* rte_flow.h documents a full default mask for GRE_KEY but has none. */
static const rte_be32_t vsteer_gre_key_mask = RTE_BE32(0xffffffff);

#define ITEM(t, nm, kw, st, def, tun, nx, r)    \
	[VSTEER_ITEM_##t] = {                   \
		.type = RTE_FLOW_ITEM_TYPE_##t, \
		.id = VSTEER_ITEM_##t,          \
		.name = nm,                     \
		.keyword = kw,                  \
		.size = sizeof(st),             \
		.def_mask = def,                \
		.tunnel = tun,                  \
		.next = nx,                     \
		.rows = r,                      \
		.n_rows = RTE_DIM(r),           \
	}

/* The item graph both engines walk, and each item's field rows. */
static const struct vsteer_flow_item_desc vsteer_items[VSTEER_ITEM_N] = {
	ITEM(ETH, "ETH", "eth", struct rte_flow_item_eth,
	     &rte_flow_item_eth_mask, false,
	     NEXT(RTE_FLOW_ITEM_TYPE_VLAN, RTE_FLOW_ITEM_TYPE_IPV4,
		  RTE_FLOW_ITEM_TYPE_IPV6),
	     rows_eth),
	ITEM(VLAN, "VLAN", "vlan", struct rte_flow_item_vlan,
	     &rte_flow_item_vlan_mask, false,
	     NEXT(RTE_FLOW_ITEM_TYPE_VLAN, RTE_FLOW_ITEM_TYPE_IPV4,
		  RTE_FLOW_ITEM_TYPE_IPV6),
	     rows_vlan),
	ITEM(IPV4, "IPv4", "ipv4", struct rte_flow_item_ipv4,
	     &rte_flow_item_ipv4_mask, false,
	     NEXT(RTE_FLOW_ITEM_TYPE_TCP, RTE_FLOW_ITEM_TYPE_UDP,
		  RTE_FLOW_ITEM_TYPE_GRE, RTE_FLOW_ITEM_TYPE_NVGRE,
		  RTE_FLOW_ITEM_TYPE_ESP),
	     rows_ipv4),
	ITEM(IPV6, "IPv6", "ipv6", struct rte_flow_item_ipv6,
	     &rte_flow_item_ipv6_mask, false,
	     NEXT(RTE_FLOW_ITEM_TYPE_TCP, RTE_FLOW_ITEM_TYPE_UDP,
		  RTE_FLOW_ITEM_TYPE_GRE, RTE_FLOW_ITEM_TYPE_NVGRE,
		  RTE_FLOW_ITEM_TYPE_ESP),
	     rows_ipv6),
	ITEM(TCP, "TCP", "tcp", struct rte_flow_item_tcp,
	     &rte_flow_item_tcp_mask, false, NEXT(RTE_FLOW_ITEM_TYPE_END),
	     rows_tcp),
	ITEM(UDP, "UDP", "udp", struct rte_flow_item_udp,
	     &rte_flow_item_udp_mask, false,
	     NEXT(RTE_FLOW_ITEM_TYPE_VXLAN, RTE_FLOW_ITEM_TYPE_MPLS), rows_udp),
	ITEM(VXLAN, "VXLAN", "vxlan", struct rte_flow_item_vxlan,
	     &rte_flow_item_vxlan_mask, true,
	     NEXT(RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_IPV4,
		  RTE_FLOW_ITEM_TYPE_IPV6),
	     rows_vxlan),
	ITEM(GRE, "GRE", "gre", struct rte_flow_item_gre,
	     &rte_flow_item_gre_mask, true,
	     NEXT(RTE_FLOW_ITEM_TYPE_GRE_KEY, RTE_FLOW_ITEM_TYPE_MPLS,
		  RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_IPV4,
		  RTE_FLOW_ITEM_TYPE_IPV6),
	     rows_gre),
	ITEM(GRE_KEY, "GRE_KEY", "gre_key", rte_be32_t, &vsteer_gre_key_mask,
	     false,
	     NEXT(RTE_FLOW_ITEM_TYPE_MPLS, RTE_FLOW_ITEM_TYPE_ETH,
		  RTE_FLOW_ITEM_TYPE_IPV4, RTE_FLOW_ITEM_TYPE_IPV6),
	     rows_gre_key),
	ITEM(NVGRE, "NVGRE", "nvgre", struct rte_flow_item_nvgre,
	     &rte_flow_item_nvgre_mask, true, NEXT(RTE_FLOW_ITEM_TYPE_ETH),
	     rows_nvgre),
	ITEM(MPLS, "MPLS", "mpls", struct rte_flow_item_mpls,
	     &rte_flow_item_mpls_mask, true,
	     NEXT(RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_IPV4,
		  RTE_FLOW_ITEM_TYPE_IPV6),
	     rows_mpls),
	ITEM(ESP, "ESP", "esp", struct rte_flow_item_esp,
	     &rte_flow_item_esp_mask, false, NEXT(RTE_FLOW_ITEM_TYPE_END),
	     rows_esp),
};

const struct vsteer_flow_item_desc *
vsteer_flow_item_desc_at(unsigned int i)
{
	return i < VSTEER_ITEM_N ? &vsteer_items[i] : NULL;
}

/* Item types below this have a direct entry: VSTEER_ITEM_* + 1, or 0. */
#define VSTEER_ITEM_TYPES 128
static uint8_t vsteer_item_of_type[VSTEER_ITEM_TYPES];

RTE_INIT(vsteer_item_types_init)
{
	unsigned int i;

	for (i = 0; i < VSTEER_ITEM_N; i++)
		if ((unsigned int)vsteer_items[i].type < VSTEER_ITEM_TYPES)
			vsteer_item_of_type[vsteer_items[i].type] =
				(uint8_t)(i + 1);
}

const struct vsteer_flow_item_desc *
vsteer_flow_item_desc(enum rte_flow_item_type type)
{
	unsigned int i;

	if ((unsigned int)type < VSTEER_ITEM_TYPES) {
		i = vsteer_item_of_type[type];
		return i != 0 ? &vsteer_items[i - 1] : NULL;
	}
	for (i = 0; i < VSTEER_ITEM_N; i++)
		if (vsteer_items[i].type == type)
			return &vsteer_items[i];
	return NULL;
}

bool
vsteer_flow_item_may_follow(const enum rte_flow_item_type *next,
			    enum rte_flow_item_type type)
{
	for (; *next != RTE_FLOW_ITEM_TYPE_END; next++)
		if (*next == type)
			return true;
	return false;
}

const struct vsteer_flow_row *
vsteer_flow_action_row(enum rte_flow_action_type type)
{
	unsigned int i;

	for (i = 0; i < vsteer_flow_action_rows_n; i++)
		if (vsteer_flow_action_rows[i].action == (int)type)
			return &vsteer_flow_action_rows[i];
	return NULL;
}

const struct vsteer_flow_row *
vsteer_flow_attr_row(const char *name)
{
	unsigned int i;

	for (i = 0; i < vsteer_flow_attr_rows_n; i++)
		if (strcmp(vsteer_flow_attr_rows[i].name, name) == 0)
			return &vsteer_flow_attr_rows[i];
	return NULL;
}

const char *
vsteer_flow_engine_name(enum vsteer_flow_engine eng)
{
	return eng == VSTEER_FLOW_ENGINE_DV ? "the mlx5dv matcher" : "verbs";
}

/* The device capabilities a row's VSTEER_SUP_IF_* bits ask for. */
static bool
vsteer_row_caps_ok(uint16_t sup, const struct vsteer_xlate_ctx *ctx, bool inner)
{
	return vsteer_flow_cap_missing(sup, ctx, inner) == NULL;
}

bool
vsteer_flow_row_ok(const struct vsteer_flow_row *row,
		   enum vsteer_flow_engine eng,
		   const struct vsteer_xlate_ctx *ctx, bool inner)
{
	uint16_t sup = row->sup[eng];

	if (!(sup & (inner ? VSTEER_SUP_INNER : VSTEER_SUP_OUTER)))
		return false;
	return vsteer_row_caps_ok(sup, ctx, inner);
}

/* --- the guide's table --- */

static const char *
vsteer_rst_cond(uint16_t sup)
{
	if (sup & VSTEER_SUP_IF_VERBS_ESP)
		return "where the kernel takes IBV_FLOW_SPEC_ESP";
	if (sup & VSTEER_SUP_IF_COUNT)
		return "with ibv_counters";
	if (sup & VSTEER_SUP_IF_DEVX)
		return "with DevX";
	if (sup & VSTEER_SUP_IF_TAG)
		return "with flow tags";
	if (sup & VSTEER_SUP_IF_EGRESS)
		return "where the device takes egress rules";
	if (sup & VSTEER_SUP_IF_MPLS)
		return "with the firmware's MPLS parser, FLEX_PARSER_PROFILE_ENABLE=1";
	if (sup & VSTEER_SUP_IF_IHL)
		return "where the device has the IPv4 IHL match field";
	return NULL;
}

/* One cell: "yes: how", "outer headers only: how", "no: why". */
static void
vsteer_rst_cell(FILE *f, uint16_t sup, const char *how)
{
	const char *cond = vsteer_rst_cond(sup);

	fprintf(f, "     - ");
	if ((sup & VSTEER_SUP_YES) == 0) {
		if (how != NULL && strncmp(how, "no", 2) == 0)
			fprintf(f, "%s\n", how);
		else if (how != NULL)
			fprintf(f, "no: %s\n", how);
		else
			fprintf(f, "no\n");
		return;
	}
	if ((sup & VSTEER_SUP_YES) == VSTEER_SUP_OUTER)
		fprintf(f, "outer headers only");
	else
		fprintf(f, "yes");
	if (cond != NULL)
		fprintf(f, " (%s)", cond);
	if (how != NULL)
		fprintf(f, ": %s", how);
	fprintf(f, "\n");
}

/* What softverbs profile=generic gives: verbs alone (no mlx5dv), with
 * egress, ESP, counters and tags. */
static void
vsteer_rst_generic(FILE *f, const struct vsteer_flow_row *row)
{
	const struct vsteer_xlate_ctx generic = {
		.egress_ok = true,
		.tag_ok = true,
		.count_ok = true,
		.verbs_esp_ok = true,
		.mpls_ok = true,
	};
	bool v = vsteer_flow_row_ok(row, V, &generic, false);

	if (v)
		fprintf(f, "     - yes (verbs)\n");
	else if (row->sup[D] & VSTEER_SUP_YES)
		fprintf(f, "     - no (needs the mlx5dv matcher)\n");
	else
		fprintf(f, "     - no\n");
}

static void
vsteer_rst_row(FILE *f, const char *subject, const struct vsteer_flow_row *r)
{
	fprintf(f, "   * - %s\n", subject);
	vsteer_rst_cell(f, r->sup[V], r->how[V]);
	vsteer_rst_cell(f, r->sup[D], r->how[D]);
	vsteer_rst_generic(f, r);
}

void
vsteer_flow_engines_print_rst(FILE *f)
{
	char subject[128];
	unsigned int i, j;

	fprintf(f, ".. list-table::\n"
		   "   :header-rows: 1\n"
		   "   :widths: 22 28 28 22\n"
		   "\n"
		   "   * - Item field, pattern feature, action or attribute\n"
		   "     - Verbs (rdma-core 44 with the mlx5 kernel)\n"
		   "     - mlx5dv matcher\n"
		   "     - softverbs ``profile=generic``\n");
	for (i = 0; i < VSTEER_ITEM_N; i++) {
		const struct vsteer_flow_item_desc *d = &vsteer_items[i];

		for (j = 0; j < d->n_rows; j++) {
			snprintf(subject, sizeof(subject), "``%s`` %s",
				 d->keyword, d->rows[j].name);
			vsteer_rst_row(f, subject, &d->rows[j]);
		}
		for (j = 0; j < VSTEER_ROW_NAMED_N; j++) {
			if (vsteer_flow_named[j].item != i)
				continue;
			snprintf(subject, sizeof(subject), "``%s``: %s",
				 d->keyword, vsteer_flow_named[j].name);
			vsteer_rst_row(f, subject, &vsteer_flow_named[j]);
		}
	}
	for (i = 0; i < vsteer_flow_action_rows_n; i++) {
		snprintf(subject, sizeof(subject), "action %s",
			 vsteer_flow_action_rows[i].name);
		vsteer_rst_row(f, subject, &vsteer_flow_action_rows[i]);
	}
	for (i = 0; i < vsteer_flow_attr_rows_n; i++) {
		snprintf(subject, sizeof(subject), "attribute ``%s``",
			 vsteer_flow_attr_rows[i].name);
		vsteer_rst_row(f, subject, &vsteer_flow_attr_rows[i]);
	}
}
