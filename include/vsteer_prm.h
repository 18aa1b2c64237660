/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VSTEER_PRM_H
#define VSTEER_PRM_H

/*
 * The few ConnectX PRM layouts the mlx5dv matcher path needs: the
 * fte_match_param buffer of mlx5dv_create_flow_matcher(3) /
 * mlx5dv_create_flow(3), the DevX flow-counter commands, the flow table
 * capabilities (QUERY_HCA_CAP) of the match fields some devices lack and
 * of header rewrite and reformat, and the header modify actions of
 * mlx5dv_create_flow_action_modify_header(3).
 *
 * Shared by the driver (which writes these buffers) and by softverbs (which
 * reads them), so both sides agree on one layout. No DPDK or verbs
 * dependency on purpose.
 *
 * PRM conventions: a layout is a sequence of big-endian 32-bit words; bit 0
 * is the most significant bit of the first byte; no field of 32 bits or
 * less crosses a word boundary. Offsets and widths below are in bits,
 * written as in the PRM (hex). Each field NAME has NAME_OFF and NAME_LEN.
 */

#include <stdint.h>
#include <string.h>

/* fte_match_param: seven 0x200-bit sections and 0x200 reserved bits. */
#define VSTEER_PRM_SECT_BITS 0x200
#define VSTEER_PRM_SECT_BYTES (VSTEER_PRM_SECT_BITS / 8)
#define VSTEER_PRM_OUTER 0x000 /* fte_match_set_lyr_2_4 */
#define VSTEER_PRM_MISC 0x200  /* fte_match_set_misc */
#define VSTEER_PRM_INNER 0x400 /* fte_match_set_lyr_2_4 */
#define VSTEER_PRM_MISC2 0x600 /* fte_match_set_misc2 */
#define VSTEER_PRM_MISC3 0x800 /* fte_match_set_misc3 */
#define VSTEER_PRM_MISC4 0xa00 /* fte_match_set_misc4 */
#define VSTEER_PRM_MISC5 0xc00 /* fte_match_set_misc5 */
#define VSTEER_PRM_MATCH_PARAM_BITS 0x1000
#define VSTEER_PRM_MATCH_PARAM_BYTES (VSTEER_PRM_MATCH_PARAM_BITS / 8)
#define VSTEER_PRM_NUM_SECTS 7

/* match_criteria_enable: one bit per section, in section order. */
#define VSTEER_PRM_CRIT_OUTER_BIT 0
#define VSTEER_PRM_CRIT_MISC_BIT 1
#define VSTEER_PRM_CRIT_INNER_BIT 2
#define VSTEER_PRM_CRIT_MISC2_BIT 3
#define VSTEER_PRM_CRIT_MISC3_BIT 4
#define VSTEER_PRM_CRIT_MISC4_BIT 5
#define VSTEER_PRM_CRIT_MISC5_BIT 6
#define VSTEER_PRM_CRIT_ALL 0x7f

/*
 * Size to pass as match_sz: older rdma-core refuses the misc4/misc5
 * sections, so (as DPDK does) they are sent only when enabled.
 */
static inline uint32_t
vsteer_prm_match_size(uint8_t criteria)
{
	if (criteria & (1u << VSTEER_PRM_CRIT_MISC5_BIT))
		return VSTEER_PRM_MISC5 / 8 + VSTEER_PRM_SECT_BYTES;
	if (criteria & (1u << VSTEER_PRM_CRIT_MISC4_BIT))
		return VSTEER_PRM_MISC4 / 8 + VSTEER_PRM_SECT_BYTES;
	return VSTEER_PRM_MISC3 / 8 + VSTEER_PRM_SECT_BYTES;
}

/* Smallest buffer that holds every section enabled in criteria. */
static inline uint32_t
vsteer_prm_match_min_size(uint8_t criteria)
{
	uint32_t i, sz = 0;

	for (i = 0; i < VSTEER_PRM_NUM_SECTS; i++)
		if (criteria & (1u << i))
			sz = (i + 1) * VSTEER_PRM_SECT_BYTES;
	return sz;
}

/* --- fte_match_set_lyr_2_4 (outer_headers, inner_headers) --- */
#define VSTEER_PRM_L24_SMAC_47_16_OFF 0x000
#define VSTEER_PRM_L24_SMAC_47_16_LEN 0x20
#define VSTEER_PRM_L24_SMAC_15_0_OFF 0x020
#define VSTEER_PRM_L24_SMAC_15_0_LEN 0x10
#define VSTEER_PRM_L24_ETHERTYPE_OFF 0x030
#define VSTEER_PRM_L24_ETHERTYPE_LEN 0x10
#define VSTEER_PRM_L24_DMAC_47_16_OFF 0x040
#define VSTEER_PRM_L24_DMAC_47_16_LEN 0x20
#define VSTEER_PRM_L24_DMAC_15_0_OFF 0x060
#define VSTEER_PRM_L24_DMAC_15_0_LEN 0x10
#define VSTEER_PRM_L24_FIRST_PRIO_OFF 0x070
#define VSTEER_PRM_L24_FIRST_PRIO_LEN 0x3
#define VSTEER_PRM_L24_FIRST_CFI_OFF 0x073
#define VSTEER_PRM_L24_FIRST_CFI_LEN 0x1
#define VSTEER_PRM_L24_FIRST_VID_OFF 0x074
#define VSTEER_PRM_L24_FIRST_VID_LEN 0xc
#define VSTEER_PRM_L24_IP_PROTOCOL_OFF 0x080
#define VSTEER_PRM_L24_IP_PROTOCOL_LEN 0x8
#define VSTEER_PRM_L24_IP_DSCP_OFF 0x088
#define VSTEER_PRM_L24_IP_DSCP_LEN 0x6
#define VSTEER_PRM_L24_IP_ECN_OFF 0x08e
#define VSTEER_PRM_L24_IP_ECN_LEN 0x2
#define VSTEER_PRM_L24_CVLAN_TAG_OFF 0x090
#define VSTEER_PRM_L24_CVLAN_TAG_LEN 0x1
#define VSTEER_PRM_L24_SVLAN_TAG_OFF 0x091
#define VSTEER_PRM_L24_SVLAN_TAG_LEN 0x1
#define VSTEER_PRM_L24_FRAG_OFF 0x092
#define VSTEER_PRM_L24_FRAG_LEN 0x1
#define VSTEER_PRM_L24_IP_VERSION_OFF 0x093
#define VSTEER_PRM_L24_IP_VERSION_LEN 0x4
#define VSTEER_PRM_L24_TCP_FLAGS_OFF 0x097
#define VSTEER_PRM_L24_TCP_FLAGS_LEN 0x9
#define VSTEER_PRM_L24_TCP_SPORT_OFF 0x0a0
#define VSTEER_PRM_L24_TCP_SPORT_LEN 0x10
#define VSTEER_PRM_L24_TCP_DPORT_OFF 0x0b0
#define VSTEER_PRM_L24_TCP_DPORT_LEN 0x10
#define VSTEER_PRM_L24_IPV4_IHL_OFF 0x0d0
#define VSTEER_PRM_L24_IPV4_IHL_LEN 0x4
#define VSTEER_PRM_L24_TTL_HOPLIMIT_OFF 0x0d8
#define VSTEER_PRM_L24_TTL_HOPLIMIT_LEN 0x8
#define VSTEER_PRM_L24_UDP_SPORT_OFF 0x0e0
#define VSTEER_PRM_L24_UDP_SPORT_LEN 0x10
#define VSTEER_PRM_L24_UDP_DPORT_OFF 0x0f0
#define VSTEER_PRM_L24_UDP_DPORT_LEN 0x10
/* ipv6_layout / ipv4_layout union: IPv6 takes all 128 bits, IPv4 the
 * last 32 (ipv4_layout.ipv4 at 0x60 inside the union). */
#define VSTEER_PRM_L24_SRC_IP_OFF 0x100
#define VSTEER_PRM_L24_SRC_IP_LEN 0x80
#define VSTEER_PRM_L24_DST_IP_OFF 0x180
#define VSTEER_PRM_L24_DST_IP_LEN 0x80
#define VSTEER_PRM_IPV4_IN_LAYOUT_OFF 0x60
#define VSTEER_PRM_L24_SRC_IPV4_OFF \
	(VSTEER_PRM_L24_SRC_IP_OFF + VSTEER_PRM_IPV4_IN_LAYOUT_OFF)
#define VSTEER_PRM_L24_SRC_IPV4_LEN 0x20
#define VSTEER_PRM_L24_DST_IPV4_OFF \
	(VSTEER_PRM_L24_DST_IP_OFF + VSTEER_PRM_IPV4_IN_LAYOUT_OFF)
#define VSTEER_PRM_L24_DST_IPV4_LEN 0x20
/* Byte-aligned views of the 48-bit MACs (47_16 then 15_0 are adjacent). */
#define VSTEER_PRM_L24_SMAC_OFF VSTEER_PRM_L24_SMAC_47_16_OFF
#define VSTEER_PRM_L24_SMAC_LEN 0x30
#define VSTEER_PRM_L24_DMAC_OFF VSTEER_PRM_L24_DMAC_47_16_OFF
#define VSTEER_PRM_L24_DMAC_LEN 0x30

/* --- fte_match_set_misc --- */
#define VSTEER_PRM_MISC_GRE_C_PRESENT_OFF 0x000
#define VSTEER_PRM_MISC_GRE_C_PRESENT_LEN 0x1
#define VSTEER_PRM_MISC_GRE_K_PRESENT_OFF 0x002
#define VSTEER_PRM_MISC_GRE_K_PRESENT_LEN 0x1
#define VSTEER_PRM_MISC_GRE_S_PRESENT_OFF 0x003
#define VSTEER_PRM_MISC_GRE_S_PRESENT_LEN 0x1
#define VSTEER_PRM_MISC_SOURCE_VHCA_PORT_OFF 0x004
#define VSTEER_PRM_MISC_SOURCE_VHCA_PORT_LEN 0x4
#define VSTEER_PRM_MISC_SOURCE_SQN_OFF 0x008
#define VSTEER_PRM_MISC_SOURCE_SQN_LEN 0x18
#define VSTEER_PRM_MISC_SOURCE_PORT_OFF 0x030
#define VSTEER_PRM_MISC_SOURCE_PORT_LEN 0x10
#define VSTEER_PRM_MISC_OUTER_SECOND_VID_OFF 0x044
#define VSTEER_PRM_MISC_OUTER_SECOND_VID_LEN 0xc
#define VSTEER_PRM_MISC_INNER_SECOND_VID_OFF 0x054
#define VSTEER_PRM_MISC_INNER_SECOND_VID_LEN 0xc
#define VSTEER_PRM_MISC_OUTER_SECOND_CVLAN_TAG_OFF 0x060
#define VSTEER_PRM_MISC_OUTER_SECOND_CVLAN_TAG_LEN 0x1
#define VSTEER_PRM_MISC_INNER_SECOND_CVLAN_TAG_OFF 0x061
#define VSTEER_PRM_MISC_INNER_SECOND_CVLAN_TAG_LEN 0x1
#define VSTEER_PRM_MISC_OUTER_SECOND_SVLAN_TAG_OFF 0x062
#define VSTEER_PRM_MISC_OUTER_SECOND_SVLAN_TAG_LEN 0x1
#define VSTEER_PRM_MISC_INNER_SECOND_SVLAN_TAG_OFF 0x063
#define VSTEER_PRM_MISC_INNER_SECOND_SVLAN_TAG_LEN 0x1
#define VSTEER_PRM_MISC_GRE_PROTOCOL_OFF 0x070
#define VSTEER_PRM_MISC_GRE_PROTOCOL_LEN 0x10
#define VSTEER_PRM_MISC_GRE_KEY_OFF 0x080 /* gre_key_h:gre_key_l */
#define VSTEER_PRM_MISC_GRE_KEY_LEN 0x20
#define VSTEER_PRM_MISC_GRE_KEY_H_OFF 0x080
#define VSTEER_PRM_MISC_GRE_KEY_H_LEN 0x18
#define VSTEER_PRM_MISC_GRE_KEY_L_OFF 0x098
#define VSTEER_PRM_MISC_GRE_KEY_L_LEN 0x8
#define VSTEER_PRM_MISC_VXLAN_VNI_OFF 0x0a0
#define VSTEER_PRM_MISC_VXLAN_VNI_LEN 0x18
#define VSTEER_PRM_MISC_GENEVE_VNI_OFF 0x0c0
#define VSTEER_PRM_MISC_GENEVE_VNI_LEN 0x18
#define VSTEER_PRM_MISC_OUTER_IPV6_FLOW_LABEL_OFF 0x0ec
#define VSTEER_PRM_MISC_OUTER_IPV6_FLOW_LABEL_LEN 0x14
#define VSTEER_PRM_MISC_INNER_IPV6_FLOW_LABEL_OFF 0x10c
#define VSTEER_PRM_MISC_INNER_IPV6_FLOW_LABEL_LEN 0x14
#define VSTEER_PRM_MISC_OUTER_ESP_SPI_OFF 0x180
#define VSTEER_PRM_MISC_OUTER_ESP_SPI_LEN 0x20

/* --- fte_match_set_misc2: four MPLS label stack entries, then the
 * metadata registers. An MPLS entry is laid out as on the wire. --- */
#define VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OFF 0x000
#define VSTEER_PRM_MISC2_INNER_FIRST_MPLS_OFF 0x020
#define VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_GRE_OFF 0x040
#define VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_UDP_OFF 0x060
#define VSTEER_PRM_MISC2_MPLS_LEN 0x20
#define VSTEER_PRM_MISC2_METADATA_REG_C_7_OFF 0x080
#define VSTEER_PRM_MISC2_METADATA_REG_C_0_OFF 0x160
#define VSTEER_PRM_MISC2_METADATA_REG_A_OFF 0x180
#define VSTEER_PRM_MISC2_METADATA_REG_LEN 0x20
/* Inside one MPLS entry. */
#define VSTEER_PRM_MPLS_LABEL_OFF 0x00
#define VSTEER_PRM_MPLS_LABEL_LEN 0x14
#define VSTEER_PRM_MPLS_EXP_OFF 0x14
#define VSTEER_PRM_MPLS_EXP_LEN 0x3
#define VSTEER_PRM_MPLS_S_BOS_OFF 0x17
#define VSTEER_PRM_MPLS_S_BOS_LEN 0x1
#define VSTEER_PRM_MPLS_TTL_OFF 0x18
#define VSTEER_PRM_MPLS_TTL_LEN 0x8

/* --- fte_match_set_misc3 (not matched here, named for dumps) --- */
#define VSTEER_PRM_MISC3_OUTER_VXLAN_GPE_VNI_OFF 0x088
#define VSTEER_PRM_MISC3_OUTER_VXLAN_GPE_VNI_LEN 0x18
#define VSTEER_PRM_MISC3_ICMP_TYPE_OFF 0x100
#define VSTEER_PRM_MISC3_ICMP_TYPE_LEN 0x8
#define VSTEER_PRM_MISC3_ICMP_CODE_OFF 0x108
#define VSTEER_PRM_MISC3_ICMP_CODE_LEN 0x8

/* --- DevX command mailboxes --- */
#define VSTEER_PRM_CMD_ALLOC_FLOW_COUNTER 0x939
#define VSTEER_PRM_CMD_DEALLOC_FLOW_COUNTER 0x93a
#define VSTEER_PRM_CMD_QUERY_FLOW_COUNTER 0x93b

/* Header of every command input. */
#define VSTEER_PRM_IN_OPCODE_OFF 0x00
#define VSTEER_PRM_IN_OPCODE_LEN 0x10
#define VSTEER_PRM_IN_UID_OFF 0x10
#define VSTEER_PRM_IN_UID_LEN 0x10
#define VSTEER_PRM_IN_OP_MOD_OFF 0x30
#define VSTEER_PRM_IN_OP_MOD_LEN 0x10
/* Header of every command output. */
#define VSTEER_PRM_OUT_STATUS_OFF 0x00
#define VSTEER_PRM_OUT_STATUS_LEN 0x8
#define VSTEER_PRM_OUT_SYNDROME_OFF 0x20
#define VSTEER_PRM_OUT_SYNDROME_LEN 0x20
#define VSTEER_PRM_OUT_HDR_BYTES 8

/* Command status (out.status). */
#define VSTEER_PRM_STATUS_OK 0x0
#define VSTEER_PRM_STATUS_BAD_OP 0x2
#define VSTEER_PRM_STATUS_BAD_PARAM 0x3
#define VSTEER_PRM_STATUS_BAD_RESOURCE 0x5
#define VSTEER_PRM_STATUS_RESOURCE_BUSY 0x6
#define VSTEER_PRM_STATUS_NO_RESOURCES 0xf
#define VSTEER_PRM_STATUS_BAD_INPUT_LEN 0x50
#define VSTEER_PRM_STATUS_BAD_OUTPUT_LEN 0x51

/* alloc_flow_counter_in / _out */
#define VSTEER_PRM_ALLOC_FC_IN_BYTES 16
#define VSTEER_PRM_ALLOC_FC_IN_BULK_OFF 0x78
#define VSTEER_PRM_ALLOC_FC_IN_BULK_LEN 0x8
#define VSTEER_PRM_ALLOC_FC_OUT_BYTES 16
#define VSTEER_PRM_ALLOC_FC_OUT_ID_OFF 0x40
#define VSTEER_PRM_ALLOC_FC_OUT_ID_LEN 0x20

/* dealloc_flow_counter_in / _out */
#define VSTEER_PRM_DEALLOC_FC_IN_BYTES 16
#define VSTEER_PRM_DEALLOC_FC_IN_ID_OFF 0x40
#define VSTEER_PRM_DEALLOC_FC_IN_ID_LEN 0x20
#define VSTEER_PRM_DEALLOC_FC_OUT_BYTES 16

/* query_flow_counter_in / _out (one traffic_counter per counter) */
#define VSTEER_PRM_QUERY_FC_IN_BYTES 32
#define VSTEER_PRM_QUERY_FC_IN_MKEY_OFF 0x60
#define VSTEER_PRM_QUERY_FC_IN_MKEY_LEN 0x20
#define VSTEER_PRM_QUERY_FC_IN_ADDRESS_OFF 0x80 /* 64 bits */
#define VSTEER_PRM_QUERY_FC_IN_CLEAR_OFF 0xc0
#define VSTEER_PRM_QUERY_FC_IN_CLEAR_LEN 0x1
#define VSTEER_PRM_QUERY_FC_IN_DUMP_TO_MEMORY_OFF 0xc1
#define VSTEER_PRM_QUERY_FC_IN_DUMP_TO_MEMORY_LEN 0x1
#define VSTEER_PRM_QUERY_FC_IN_NUM_OF_COUNTERS_OFF 0xc2
#define VSTEER_PRM_QUERY_FC_IN_NUM_OF_COUNTERS_LEN 0x1e
#define VSTEER_PRM_QUERY_FC_IN_ID_OFF 0xe0
#define VSTEER_PRM_QUERY_FC_IN_ID_LEN 0x20
#define VSTEER_PRM_QUERY_FC_OUT_STATS_OFF 0x80 /* flow_statistics[] */
#define VSTEER_PRM_TRAFFIC_COUNTER_BITS 0x80
#define VSTEER_PRM_TRAFFIC_PACKETS_OFF 0x00 /* 64 bits */
#define VSTEER_PRM_TRAFFIC_OCTETS_OFF 0x40  /* 64 bits */
#define VSTEER_PRM_QUERY_FC_OUT_BYTES         \
	((VSTEER_PRM_QUERY_FC_OUT_STATS_OFF + \
	  VSTEER_PRM_TRAFFIC_COUNTER_BITS) /  \
	 8)

/* --- QUERY_HCA_CAP of the NIC flow table capabilities --- */
#define VSTEER_PRM_CMD_QUERY_HCA_CAP 0x100
#define VSTEER_PRM_HCA_CAP_OP_MOD_NIC_FLOW_TABLE 0xe /* 0x7 << 1 */
#define VSTEER_PRM_HCA_CAP_OPMOD_GET_CUR 0x1	     /* else the maximum */
#define VSTEER_PRM_QUERY_HCA_CAP_IN_BYTES 16
#define VSTEER_PRM_QUERY_HCA_CAP_OUT_BYTES 4112
/* query_hca_cap_out: the capability page after the header. */
#define VSTEER_PRM_QUERY_HCA_CAP_OUT_CAPABILITY_OFF 0x80
/* flow_table_nic_cap: the receive side's match fields, second set. */
#define VSTEER_PRM_FT_NIC_FIELD_SUPPORT_2_RX_OFF 0x1400
/* ft_fields_support_2 */
#define VSTEER_PRM_FT_FIELDS_2_INNER_IPV4_IHL_OFF 0x14
#define VSTEER_PRM_FT_FIELDS_2_INNER_IPV4_IHL_LEN 0x1
#define VSTEER_PRM_FT_FIELDS_2_OUTER_IPV4_IHL_OFF 0x15
#define VSTEER_PRM_FT_FIELDS_2_OUTER_IPV4_IHL_LEN 0x1
/* flow_table_nic_cap: the receive and transmit tables' properties; the
 * size of the packet reformat header comes before them (Linux 6.1
 * mlx5_ifc.h: DPDK's header leaves those bits reserved). */
#define VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_OFF 0x36
#define VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_LEN 0xa
#define VSTEER_PRM_FT_NIC_RX_PROPS_OFF 0x200
#define VSTEER_PRM_FT_NIC_TX_PROPS_OFF 0x800
/* flow_table_prop_layout */
#define VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_OFF 0x30
#define VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_LEN 0x8

/* --- Header modify actions (mlx5dv_create_flow_action_modify_header) ---
 * Each action is 64 bits, big-endian: set_action_in / add_action_in
 * (type, field, offset, length, data) or copy_action_in (type, source
 * field, offset, length, then destination field and offset). */
#define VSTEER_PRM_MOD_ACTION_BYTES 8
#define VSTEER_PRM_MOD_TYPE_OFF 0x00
#define VSTEER_PRM_MOD_TYPE_LEN 0x4
#define VSTEER_PRM_MOD_FIELD_OFF 0x04
#define VSTEER_PRM_MOD_FIELD_LEN 0xc
#define VSTEER_PRM_MOD_OFFSET_OFF 0x13
#define VSTEER_PRM_MOD_OFFSET_LEN 0x5
#define VSTEER_PRM_MOD_LENGTH_OFF 0x1b
#define VSTEER_PRM_MOD_LENGTH_LEN 0x5
#define VSTEER_PRM_MOD_DATA_OFF 0x20
#define VSTEER_PRM_MOD_DATA_LEN 0x20
#define VSTEER_PRM_MOD_DST_FIELD_OFF 0x24
#define VSTEER_PRM_MOD_DST_FIELD_LEN 0xc
#define VSTEER_PRM_MOD_DST_OFFSET_OFF 0x33
#define VSTEER_PRM_MOD_DST_OFFSET_LEN 0x5
/* Action types. */
#define VSTEER_PRM_MOD_SET 0x1
#define VSTEER_PRM_MOD_ADD 0x2
#define VSTEER_PRM_MOD_COPY 0x3
/* Fields: the outer (or only) headers. */
#define VSTEER_PRM_MODI_OUT_SMAC_47_16 0x01
#define VSTEER_PRM_MODI_OUT_SMAC_15_0 0x02
#define VSTEER_PRM_MODI_OUT_ETHERTYPE 0x03
#define VSTEER_PRM_MODI_OUT_DMAC_47_16 0x04
#define VSTEER_PRM_MODI_OUT_DMAC_15_0 0x05
#define VSTEER_PRM_MODI_OUT_IP_DSCP 0x06
#define VSTEER_PRM_MODI_OUT_TCP_FLAGS 0x07
#define VSTEER_PRM_MODI_OUT_TCP_SPORT 0x08
#define VSTEER_PRM_MODI_OUT_TCP_DPORT 0x09
#define VSTEER_PRM_MODI_OUT_IPV4_TTL 0x0a
#define VSTEER_PRM_MODI_OUT_UDP_SPORT 0x0b
#define VSTEER_PRM_MODI_OUT_UDP_DPORT 0x0c
#define VSTEER_PRM_MODI_OUT_SIPV6_127_96 0x0d
#define VSTEER_PRM_MODI_OUT_SIPV6_95_64 0x0e
#define VSTEER_PRM_MODI_OUT_SIPV6_63_32 0x0f
#define VSTEER_PRM_MODI_OUT_SIPV6_31_0 0x10
#define VSTEER_PRM_MODI_OUT_DIPV6_127_96 0x11
#define VSTEER_PRM_MODI_OUT_DIPV6_95_64 0x12
#define VSTEER_PRM_MODI_OUT_DIPV6_63_32 0x13
#define VSTEER_PRM_MODI_OUT_DIPV6_31_0 0x14
#define VSTEER_PRM_MODI_OUT_SIPV4 0x15
#define VSTEER_PRM_MODI_OUT_DIPV4 0x16
#define VSTEER_PRM_MODI_OUT_FIRST_VID 0x17
#define VSTEER_PRM_MODI_IN_SMAC_47_16 0x31 /* inner: 0x31 .. 0x46 */
#define VSTEER_PRM_MODI_IN_DIPV4 0x46
#define VSTEER_PRM_MODI_OUT_IPV6_HOPLIMIT 0x47
#define VSTEER_PRM_MODI_META_DATA_REG_A 0x49
#define VSTEER_PRM_MODI_META_DATA_REG_B 0x50
#define VSTEER_PRM_MODI_META_REG_C_0 0x51
#define VSTEER_PRM_MODI_META_REG_C_7 0x58
#define VSTEER_PRM_MODI_OUT_TCP_SEQ_NUM 0x59
#define VSTEER_PRM_MODI_OUT_TCP_ACK_NUM 0x5b
#define VSTEER_PRM_MODI_OUT_IP_ECN 0x73

/*
 * What a header field of the modify actions is: its width in bits (rdma-
 * core's dr_ste_v0_action_modify_field_arr), the L3 family and the L4
 * protocol it belongs to (one list takes one of each, "HW limitation",
 * dr_action_modify_sw_to_hw()), and whether ADD takes it (TTL, hop limit,
 * TCP sequence and acknowledgment numbers,
 * dr_action_modify_check_field_limitation_add()). Width 0: no header field
 * of the outer headers.
 */
struct vsteer_prm_modi_field {
	uint8_t width;
	uint8_t fam; /* 4, 6, or 0: either */
	uint8_t l4;  /* 6 (TCP), 17 (UDP), or 0 */
	uint8_t add;
};

static inline struct vsteer_prm_modi_field
vsteer_prm_modi_field(uint32_t id)
{
	static const struct vsteer_prm_modi_field f[] = {
		[VSTEER_PRM_MODI_OUT_SMAC_47_16] = { 32, 0, 0, 0 },
		[VSTEER_PRM_MODI_OUT_SMAC_15_0] = { 16, 0, 0, 0 },
		[VSTEER_PRM_MODI_OUT_ETHERTYPE] = { 16, 0, 0, 0 },
		[VSTEER_PRM_MODI_OUT_DMAC_47_16] = { 32, 0, 0, 0 },
		[VSTEER_PRM_MODI_OUT_DMAC_15_0] = { 16, 0, 0, 0 },
		[VSTEER_PRM_MODI_OUT_IP_DSCP] = { 6, 0, 0, 0 },
		[VSTEER_PRM_MODI_OUT_TCP_FLAGS] = { 9, 0, 6, 0 },
		[VSTEER_PRM_MODI_OUT_TCP_SPORT] = { 16, 0, 6, 0 },
		[VSTEER_PRM_MODI_OUT_TCP_DPORT] = { 16, 0, 6, 0 },
		[VSTEER_PRM_MODI_OUT_IPV4_TTL] = { 8, 4, 0, 1 },
		[VSTEER_PRM_MODI_OUT_UDP_SPORT] = { 16, 0, 17, 0 },
		[VSTEER_PRM_MODI_OUT_UDP_DPORT] = { 16, 0, 17, 0 },
		[VSTEER_PRM_MODI_OUT_SIPV6_127_96] = { 32, 6, 0, 0 },
		[VSTEER_PRM_MODI_OUT_SIPV6_95_64] = { 32, 6, 0, 0 },
		[VSTEER_PRM_MODI_OUT_SIPV6_63_32] = { 32, 6, 0, 0 },
		[VSTEER_PRM_MODI_OUT_SIPV6_31_0] = { 32, 6, 0, 0 },
		[VSTEER_PRM_MODI_OUT_DIPV6_127_96] = { 32, 6, 0, 0 },
		[VSTEER_PRM_MODI_OUT_DIPV6_95_64] = { 32, 6, 0, 0 },
		[VSTEER_PRM_MODI_OUT_DIPV6_63_32] = { 32, 6, 0, 0 },
		[VSTEER_PRM_MODI_OUT_DIPV6_31_0] = { 32, 6, 0, 0 },
		[VSTEER_PRM_MODI_OUT_SIPV4] = { 32, 4, 0, 0 },
		[VSTEER_PRM_MODI_OUT_DIPV4] = { 32, 4, 0, 0 },
		[VSTEER_PRM_MODI_OUT_FIRST_VID] = { 12, 0, 0, 0 },
		[VSTEER_PRM_MODI_OUT_IPV6_HOPLIMIT] = { 8, 6, 0, 1 },
		[VSTEER_PRM_MODI_OUT_TCP_SEQ_NUM] = { 32, 0, 6, 1 },
		[VSTEER_PRM_MODI_OUT_TCP_ACK_NUM] = { 32, 0, 6, 1 },
		[VSTEER_PRM_MODI_OUT_IP_ECN] = { 2, 0, 0, 0 },
	};
	static const struct vsteer_prm_modi_field none = { 0, 0, 0, 0 };

	return id < sizeof(f) / sizeof(f[0]) ? f[id] : none;
}

/* --- Accessors (MLX5_SET / MLX5_GET semantics) --- */

static inline uint32_t
vsteer_prm_rd32(const void *buf, uint32_t byte_off)
{
	const uint8_t *p = (const uint8_t *)buf + byte_off;

	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static inline void
vsteer_prm_wr32(void *buf, uint32_t byte_off, uint32_t v)
{
	uint8_t *p = (uint8_t *)buf + byte_off;

	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static inline uint32_t
vsteer_prm_fmask(uint32_t len)
{
	return len >= 32 ? UINT32_MAX : (1u << len) - 1;
}

/* Read a field of 1..32 bits at bit offset off. */
static inline uint32_t
vsteer_prm_get(const void *buf, uint32_t off, uint32_t len)
{
	uint32_t shift = 32 - (off & 31) - len;

	return (vsteer_prm_rd32(buf, (off / 32) * 4) >> shift) &
	       vsteer_prm_fmask(len);
}

/* Write a field of 1..32 bits; bits of v above len are dropped. */
static inline void
vsteer_prm_set(void *buf, uint32_t off, uint32_t len, uint32_t v)
{
	uint32_t shift = 32 - (off & 31) - len;
	uint32_t m = vsteer_prm_fmask(len) << shift;
	uint32_t w = vsteer_prm_rd32(buf, (off / 32) * 4);

	vsteer_prm_wr32(buf, (off / 32) * 4, (w & ~m) | ((v << shift) & m));
}

/* 64-bit fields are 64-bit aligned (counters, addresses). */
static inline uint64_t
vsteer_prm_get64(const void *buf, uint32_t off)
{
	return (uint64_t)vsteer_prm_rd32(buf, off / 8) << 32 |
	       vsteer_prm_rd32(buf, off / 8 + 4);
}

static inline void
vsteer_prm_set64(void *buf, uint32_t off, uint64_t v)
{
	vsteer_prm_wr32(buf, off / 8, (uint32_t)(v >> 32));
	vsteer_prm_wr32(buf, off / 8 + 4, (uint32_t)v);
}

/* A header modify action (set_action_in / add_action_in) into the
 * VSTEER_PRM_MOD_ACTION_BYTES at b; a length of 32 is written 0. */
static inline void
vsteer_prm_mod_action(void *b, uint32_t type, uint32_t field, uint32_t off,
		      uint32_t len, uint32_t data)
{
	memset(b, 0, VSTEER_PRM_MOD_ACTION_BYTES);
	vsteer_prm_set(b, VSTEER_PRM_MOD_TYPE_OFF, VSTEER_PRM_MOD_TYPE_LEN,
		       type);
	vsteer_prm_set(b, VSTEER_PRM_MOD_FIELD_OFF, VSTEER_PRM_MOD_FIELD_LEN,
		       field);
	vsteer_prm_set(b, VSTEER_PRM_MOD_OFFSET_OFF, VSTEER_PRM_MOD_OFFSET_LEN,
		       off);
	vsteer_prm_set(b, VSTEER_PRM_MOD_LENGTH_OFF, VSTEER_PRM_MOD_LENGTH_LEN,
		       len & 31);
	vsteer_prm_set(b, VSTEER_PRM_MOD_DATA_OFF, VSTEER_PRM_MOD_DATA_LEN,
		       data);
}

/* Byte view of a byte-aligned field (MACs, IP addresses): wire order. */
static inline uint8_t *
vsteer_prm_bytes(void *buf, uint32_t off)
{
	return (uint8_t *)buf + off / 8;
}

static inline const uint8_t *
vsteer_prm_cbytes(const void *buf, uint32_t off)
{
	return (const uint8_t *)buf + off / 8;
}

/*
 * Field access relative to a section: sect is VSTEER_PRM_OUTER, ..., fld the
 * field name without _OFF/_LEN, e.g.
 *   VSTEER_PRM_SET(buf, VSTEER_PRM_OUTER, VSTEER_PRM_L24_TCP_DPORT, 80);
 */
#define VSTEER_PRM_GET(buf, sect, fld) \
	vsteer_prm_get((buf), (sect) + fld##_OFF, fld##_LEN)
#define VSTEER_PRM_SET(buf, sect, fld, v) \
	vsteer_prm_set((buf), (sect) + fld##_OFF, fld##_LEN, (v))

/* True when bytes [off/8, off/8 + len/8) are all zero. */
static inline int
vsteer_prm_zero(const void *buf, uint32_t off, uint32_t len)
{
	const uint8_t *p = (const uint8_t *)buf + off / 8;
	uint32_t i;

	for (i = 0; i < len / 8; i++)
		if (p[i])
			return 0;
	return 1;
}

/* match_criteria_enable for a mask buffer: one bit per non-zero section. */
static inline uint8_t
vsteer_prm_criteria(const void *mask, uint32_t size)
{
	uint8_t crit = 0;
	uint32_t i;

	for (i = 0; i < VSTEER_PRM_NUM_SECTS; i++) {
		if ((i + 1) * VSTEER_PRM_SECT_BYTES > size)
			break;
		if (!vsteer_prm_zero(mask, i * VSTEER_PRM_SECT_BITS,
				     VSTEER_PRM_SECT_BITS))
			crit |= 1u << i;
	}
	return crit;
}

#endif /* VSTEER_PRM_H */
