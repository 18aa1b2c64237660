/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef MM_PRM_H
#define MM_PRM_H

/*
 * PRM layouts the model's firmware side writes: the command mailbox
 * headers and the capability pages QUERY_HCA_CAP answers with. Bit
 * offsets (_OFF) and widths (_LEN) as the PRM's mlx5_ifc_*_bits define
 * them; test/test_prm_offsets.py checks every one DPDK's mlx5_prm.h
 * names against it (the few it does not name come from Linux 6.1
 * include/linux/mlx5/mlx5_ifc.h and are listed there). Offsets in a
 * capability page are from the page's start (the capability union of
 * query_hca_cap_out).
 *
 * Read and written with vsteer_prm_get() / vsteer_prm_set()
 * (include/vsteer_prm.h): big-endian bit fields.
 */

/* Command mailboxes: the common header. */
#define MM_PRM_IN_OPCODE_OFF 0x00
#define MM_PRM_IN_OPCODE_LEN 0x10
#define MM_PRM_IN_UID_OFF 0x10 /* reserved_at_10 in DPDK's header */
#define MM_PRM_IN_UID_LEN 0x10
#define MM_PRM_IN_OP_MOD_OFF 0x30
#define MM_PRM_IN_OP_MOD_LEN 0x10
#define MM_PRM_IN_VHCA_TUNNEL_ID_OFF 0x20
#define MM_PRM_IN_VHCA_TUNNEL_ID_LEN 0x10
#define MM_PRM_OUT_STATUS_OFF 0x00
#define MM_PRM_OUT_STATUS_LEN 0x08
#define MM_PRM_OUT_SYNDROME_OFF 0x20
#define MM_PRM_OUT_SYNDROME_LEN 0x20
#define MM_PRM_OUT_HDR_BYTES 16

/* QUERY_HCA_CAP: the page follows the output header. */
#define MM_PRM_QUERY_HCA_CAP_OUT_CAP_OFF 0x80
#define MM_PRM_CAP_PAGE_BYTES 4096
#define MM_PRM_QUERY_HCA_CAP_IN_BYTES 16
#define MM_PRM_QUERY_HCA_CAP_OUT_BYTES (MM_PRM_OUT_HDR_BYTES + 4096)

/* The number a created object gets: transport domain, TIS. */
#define MM_PRM_ALLOC_TD_OUT_TD_OFF 0x48
#define MM_PRM_ALLOC_TD_OUT_TD_LEN 0x18
#define MM_PRM_CREATE_TIS_OUT_TISN_OFF 0x48
#define MM_PRM_CREATE_TIS_OUT_TISN_LEN 0x18
/* QUERY_TIS: the TIS named, and its transport domain (tisc at 0x80). */
#define MM_PRM_QUERY_TIS_IN_TISN_OFF 0x48
#define MM_PRM_QUERY_TIS_IN_TISN_LEN 0x18
#define MM_PRM_QUERY_TIS_OUT_TD_OFF (0x80 + 0x128)
#define MM_PRM_QUERY_TIS_OUT_TD_LEN 0x18
#define MM_PRM_QUERY_TIS_IN_BYTES 16
#define MM_PRM_QUERY_TIS_OUT_BYTES 176

/* Opcodes and status. */
#define MM_PRM_CMD_QUERY_HCA_CAP 0x100
#define MM_PRM_CMD_QUERY_NIC_VPORT_CONTEXT 0x754
#define MM_PRM_CMD_QUERY_HCA_VPORT_CONTEXT 0x762
#define MM_PRM_CMD_ALLOC_FLOW_COUNTER 0x939
#define MM_PRM_CMD_DEALLOC_FLOW_COUNTER 0x93a
#define MM_PRM_CMD_QUERY_FLOW_COUNTER 0x93b
#define MM_PRM_CMD_ALLOC_TRANSPORT_DOMAIN 0x816
#define MM_PRM_CMD_CREATE_TIS 0x912
#define MM_PRM_CMD_QUERY_TIS 0x915
#define MM_PRM_STATUS_OK 0x0
#define MM_PRM_STATUS_BAD_OP 0x2
#define MM_PRM_STATUS_BAD_PARAM 0x3

/* QUERY_HCA_CAP op_mod: the page type << 1 | current (1) or max (0). */
#define MM_PRM_CAP_GENERAL 0x0
#define MM_PRM_CAP_ETHERNET_OFFLOADS 0x1
#define MM_PRM_CAP_NIC_FLOW_TABLE 0x7
#define MM_PRM_CAP_ODP 0x2    /* enum mlx5_cap_type (Linux) */
#define MM_PRM_CAP_ATOMIC 0x3 /* enum mlx5_cap_type (Linux) */
#define MM_PRM_CAP_ROCE 0x4
#define MM_PRM_CAP_GENERAL_2 0x20

/* cmd_hca_cap (general device capabilities) */
#define MM_PRM_GEN_HCA_CAP_2_OFF 0x20
#define MM_PRM_GEN_HCA_CAP_2_LEN 0x1
#define MM_PRM_GEN_LOG_MAX_SRQ_SZ_OFF 0x80
#define MM_PRM_GEN_LOG_MAX_SRQ_SZ_LEN 0x8
#define MM_PRM_GEN_LOG_MAX_QP_SZ_OFF 0x88
#define MM_PRM_GEN_LOG_MAX_QP_SZ_LEN 0x8
#define MM_PRM_GEN_LOG_MAX_QP_OFF 0x9b
#define MM_PRM_GEN_LOG_MAX_QP_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_SRQ_OFF 0xab
#define MM_PRM_GEN_LOG_MAX_SRQ_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_CQ_SZ_OFF 0xc8
#define MM_PRM_GEN_LOG_MAX_CQ_SZ_LEN 0x8
#define MM_PRM_GEN_LOG_MAX_CQ_OFF 0xdb
#define MM_PRM_GEN_LOG_MAX_CQ_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_MKEY_OFF 0xea
#define MM_PRM_GEN_LOG_MAX_MKEY_LEN 0x6
#define MM_PRM_GEN_LOG_MAX_KLM_LIST_SIZE_OFF 0x11a
#define MM_PRM_GEN_LOG_MAX_KLM_LIST_SIZE_LEN 0x6
#define MM_PRM_GEN_LOG_MAX_RA_REQ_QP_OFF 0x14a
#define MM_PRM_GEN_LOG_MAX_RA_REQ_QP_LEN 0x6
#define MM_PRM_GEN_LOG_MAX_RA_RES_QP_OFF 0x15a
#define MM_PRM_GEN_LOG_MAX_RA_RES_QP_LEN 0x6
#define MM_PRM_GEN_PKEY_TABLE_SIZE_OFF 0x190
#define MM_PRM_GEN_PKEY_TABLE_SIZE_LEN 0x10
#define MM_PRM_GEN_NIC_FLOW_TABLE_OFF 0x1a6
#define MM_PRM_GEN_NIC_FLOW_TABLE_LEN 0x1
#define MM_PRM_GEN_LOCAL_CA_ACK_DELAY_OFF 0x1ab
#define MM_PRM_GEN_LOCAL_CA_ACK_DELAY_LEN 0x5
#define MM_PRM_GEN_PORT_TYPE_OFF 0x1b6
#define MM_PRM_GEN_PORT_TYPE_LEN 0x2
#define MM_PRM_GEN_NUM_PORTS_OFF 0x1b8
#define MM_PRM_GEN_NUM_PORTS_LEN 0x8
#define MM_PRM_GEN_LOG_MAX_MSG_OFF 0x1c3
#define MM_PRM_GEN_LOG_MAX_MSG_LEN 0x5
#define MM_PRM_GEN_CQE_VERSION_OFF 0x1fc
#define MM_PRM_GEN_CQE_VERSION_LEN 0x4
#define MM_PRM_GEN_ETH_NET_OFFLOADS_OFF 0x21c
#define MM_PRM_GEN_ETH_NET_OFFLOADS_LEN 0x1
#define MM_PRM_GEN_LOG_BF_REG_SIZE_OFF 0x26b
#define MM_PRM_GEN_LOG_BF_REG_SIZE_LEN 0x5
#define MM_PRM_GEN_LOG_PG_SZ_OFF 0x258
#define MM_PRM_GEN_LOG_PG_SZ_LEN 0x8
#define MM_PRM_GEN_MAX_WQE_SZ_SQ_OFF 0x290
#define MM_PRM_GEN_MAX_WQE_SZ_SQ_LEN 0x10
#define MM_PRM_GEN_MAX_WQE_SZ_RQ_OFF 0x2b0
#define MM_PRM_GEN_MAX_WQE_SZ_RQ_LEN 0x10
#define MM_PRM_GEN_MAX_QP_MCG_OFF 0x2e7
#define MM_PRM_GEN_MAX_QP_MCG_LEN 0x19
#define MM_PRM_GEN_LOG_MAX_MCG_OFF 0x318
#define MM_PRM_GEN_LOG_MAX_MCG_LEN 0x8
#define MM_PRM_GEN_LOG_MAX_PD_OFF 0x32b
#define MM_PRM_GEN_LOG_MAX_PD_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_FLOW_COUNTER_BULK_OFF 0x348
#define MM_PRM_GEN_LOG_MAX_FLOW_COUNTER_BULK_LEN 0x8
#define MM_PRM_GEN_LOG_MAX_RQ_OFF 0x363
#define MM_PRM_GEN_LOG_MAX_RQ_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_SQ_OFF 0x36b
#define MM_PRM_GEN_LOG_MAX_SQ_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_TIR_OFF 0x373
#define MM_PRM_GEN_LOG_MAX_TIR_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_TIS_OFF 0x37b
#define MM_PRM_GEN_LOG_MAX_TIS_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_RQT_OFF 0x38b
#define MM_PRM_GEN_LOG_MAX_RQT_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_RQT_SIZE_OFF 0x393
#define MM_PRM_GEN_LOG_MAX_RQT_SIZE_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_WQ_SZ_OFF 0x3db
#define MM_PRM_GEN_LOG_MAX_WQ_SZ_LEN 0x5
#define MM_PRM_GEN_LOG_MAX_UCTX_OFF 0x463 /* not in DPDK's header */
#define MM_PRM_GEN_LOG_MAX_UCTX_LEN 0x5
#define MM_PRM_GEN_DEVICE_FREQUENCY_KHZ_OFF 0x4e0
#define MM_PRM_GEN_DEVICE_FREQUENCY_KHZ_LEN 0x20

/* per_protocol_networking_offload_caps (Ethernet offloads) */
#define MM_PRM_ETH_CSUM_CAP_OFF 0x0
#define MM_PRM_ETH_CSUM_CAP_LEN 0x1
#define MM_PRM_ETH_VLAN_CAP_OFF 0x1
#define MM_PRM_ETH_VLAN_CAP_LEN 0x1
#define MM_PRM_ETH_LRO_CAP_OFF 0x2
#define MM_PRM_ETH_LRO_CAP_LEN 0x1
#define MM_PRM_ETH_MAX_LSO_CAP_OFF 0xb
#define MM_PRM_ETH_MAX_LSO_CAP_LEN 0x5
#define MM_PRM_ETH_MULTI_PKT_SEND_WQE_OFF 0x10
#define MM_PRM_ETH_MULTI_PKT_SEND_WQE_LEN 0x2
#define MM_PRM_ETH_WQE_INLINE_MODE_OFF 0x12
#define MM_PRM_ETH_WQE_INLINE_MODE_LEN 0x2
#define MM_PRM_ETH_RSS_IND_TBL_CAP_OFF 0x14
#define MM_PRM_ETH_RSS_IND_TBL_CAP_LEN 0x4
#define MM_PRM_ETH_SCATTER_FCS_OFF 0x19
#define MM_PRM_ETH_SCATTER_FCS_LEN 0x1
#define MM_PRM_ETH_ENHANCED_MULTI_PKT_SEND_WQE_OFF 0x1a
#define MM_PRM_ETH_ENHANCED_MULTI_PKT_SEND_WQE_LEN 0x1
#define MM_PRM_ETH_TUNNEL_STATELESS_GRE_OFF 0x1e
#define MM_PRM_ETH_TUNNEL_STATELESS_GRE_LEN 0x1
#define MM_PRM_ETH_TUNNEL_STATELESS_VXLAN_OFF 0x1f
#define MM_PRM_ETH_TUNNEL_STATELESS_VXLAN_LEN 0x1
#define MM_PRM_ETH_SWP_OFF 0x20
#define MM_PRM_ETH_SWP_LEN 0x1
/* not in DPDK's header */
#define MM_PRM_ETH_TUNNEL_STATELESS_MPLS_OVER_UDP_OFF 0x25
#define MM_PRM_ETH_TUNNEL_STATELESS_MPLS_OVER_UDP_LEN 0x1
#define MM_PRM_ETH_TUNNEL_STATELESS_MPLS_OVER_GRE_OFF 0x26
#define MM_PRM_ETH_TUNNEL_STATELESS_MPLS_OVER_GRE_LEN 0x1
#define MM_PRM_ETH_TUNNEL_STATELESS_GENEVE_RX_OFF 0x3f
#define MM_PRM_ETH_TUNNEL_STATELESS_GENEVE_RX_LEN 0x1

/* flow_table_nic_cap: the NIC receive table's properties and fields */
#define MM_PRM_FT_RX_OFF 0x200 /* flow_table_properties_nic_receive */
#define MM_PRM_FT_PROP_FT_SUPPORT_OFF 0x0
#define MM_PRM_FT_PROP_FT_SUPPORT_LEN 0x1
#define MM_PRM_FT_PROP_FLOW_TAG_OFF 0x1
#define MM_PRM_FT_PROP_FLOW_TAG_LEN 0x1
#define MM_PRM_FT_PROP_LOG_MAX_FT_SIZE_OFF 0x22
#define MM_PRM_FT_PROP_LOG_MAX_FT_SIZE_LEN 0x6
#define MM_PRM_FT_PROP_MAX_FT_LEVEL_OFF 0x38
#define MM_PRM_FT_PROP_MAX_FT_LEVEL_LEN 0x8
#define MM_PRM_FT_FIELDS2_RX_OFF 0x1400 /* ft_field_support_2_nic_receive */
#define MM_PRM_FT_FIELDS2_OUTER_IPV4_IHL_OFF 0x15
#define MM_PRM_FT_FIELDS2_OUTER_IPV4_IHL_LEN 0x1
#define MM_PRM_FT_FIELDS2_INNER_IPV4_IHL_OFF 0x14
#define MM_PRM_FT_FIELDS2_INNER_IPV4_IHL_LEN 0x1

/* alloc_flow_counter_in */
#define MM_PRM_ALLOC_FC_IN_BULK_LOG_SIZE_OFF 0x73
#define MM_PRM_ALLOC_FC_IN_BULK_LOG_SIZE_LEN 0x5

#endif /* MM_PRM_H */
