/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * What the modelled device is: a ConnectX-5 (PCI 15b3:1017, MT4119) with
 * firmware 16.35, for raw Ethernet. The limits are those a ConnectX-5
 * reports (ibv_devinfo -v: max_qp 262144, max_qp_wr 32768, max_sge 30,
 * max_cq 2^24, max_cqe 2^22 - 1, max_mr and max_pd 2^24, 2048-entry
 * indirection tables, 2^23 receive WQs); the device answers queries from
 * these capabilities as mlx5_ib_query_device() (Linux 6.1) computes them.
 *
 * Capabilities the model does not implement are reported absent rather
 * than claimed: scatter FCS, delay drop, end padding,
 * multi-packet send WQEs, CQE compression, striding RQs, CQ moderation,
 * packet pacing, tag matching, MPLS over GRE/UDP (the flex parser is off
 * by default in the firmware: MLX5MODEL_FLEX_PARSER=1, devtools/mlx5-model
 * --flex-parser 1, turns it on), and the transports other than raw packet
 * (RC/UC/UD, XRC, memory windows, atomics, on-demand paging).
 */

#include <string.h>

#include <rdma/ib_user_verbs.h>
#include <rdma/mlx5-abi.h>

#include "mm_internal.h"

const struct mm_caps mm_cx5 = {
	.log_max_qp = 18,
	.log_max_qp_sz = 15,
	.log_max_srq = 23,
	.log_max_srq_sz = 15,
	.log_max_cq = 24,
	.log_max_cq_sz = 22,
	.log_max_mkey = 24,
	.log_max_pd = 24,
	.log_max_ra_req_qp = 4,
	.log_max_ra_res_qp = 4,
	.log_max_mcg = 21,
	.max_qp_mcg = 240,
	.log_max_rq = 23,
	.log_max_sq = 23,
	.log_max_rqt = 16,
	.log_max_rqt_size = 11,
	.log_max_tir = 16,
	.log_max_tis = 16,
	.log_max_klm_list_size = 16,
	.log_max_msg = 30,
	.log_bf_reg_size = 9,
	.log_pg_sz = 12,
	.cqe_version = 1,
	.local_ca_ack_delay = 16,
	.log_max_flow_counter_bulk = 23,
	/* Send WQEs up to 1024 bytes: DPDK's mlx5 builds them up to 960
	 * (MLX5_WQE_SIZE_MAX) on these devices. The kernel still reports
	 * max_sge from at most 512 (mlx5_ib_query_device()): 30. */
	.max_wqe_sz_sq = 1024,
	.max_wqe_sz_rq = 512,
	.log_max_uctx = 10,
	.device_frequency_khz = 156250,
	.csum_cap = true,
	.vlan_cap = true,
	/* TSO up to 256 KiB of payload (max_tso 1 << 18). */
	.max_lso_cap = 18,
	.tunnel_stateless_vxlan = true,
	.tunnel_stateless_gre = true,
	.tunnel_stateless_geneve_rx = true,
	/* MLX5_CAP_INLINE_MODE_VPORT_CONTEXT with L2: the driver inlines
	 * the Ethernet header (mlx5_query_min_inline()). */
	.min_inline = MLX5_USER_INLINE_MODE_L2 - 1,
	.log_max_ft_size = 23,
	.max_ft_level = 63,
	/* No source gives a ConnectX-5's values: softverbs' defaults, which
	 * hold what DPDK's mlx5 asks of the root tables (16 header modify
	 * actions, MLX5_ROOT_TBL_MODIFY_NUM; encap headers of 132 bytes at
	 * most, all it builds within 128). devtools/mlx5-model
	 * --modify-actions sets the first. */
	.max_modify_header_actions = SV_MODIFY_ACTIONS_DEFAULT,
	.max_encap_header_size = SV_ENCAP_SIZE_DEFAULT,
	.pci_vendor = 0x15b3,
	.pci_device = 0x1017,
	.netdev_max_mtu = 9978,
	.fw_major = 16,
	.fw_minor = 35,
	.fw_sub = 2000,
};

/* mlx5_ib_query_device(): the core attributes. */
void
mm_query_device(const struct mm_dev *dev,
		struct ib_uverbs_ex_query_device_resp *r)
{
	const struct mm_caps *c = dev->caps;
	struct ib_uverbs_query_device_resp *b = &r->base;
	uint32_t max_rq_sg, max_sq_sg, max_sq_desc;
	uint8_t guid[8];

	memset(r, 0, sizeof(*r));
	/* fw_rev_maj << 32 | fw_rev_min << 16 | fw_rev_sub */
	b->fw_ver = ((uint64_t)c->fw_major << 32) |
		    ((uint64_t)c->fw_minor << 16) | c->fw_sub;
	mm_dev_guid(dev, guid);
	memcpy(&b->node_guid, guid, sizeof(guid));
	memcpy(&b->sys_image_guid, guid, sizeof(guid));
	b->max_mr_size = ~0ull;
	b->page_size_cap = ~((1ull << c->log_pg_sz) - 1);
	/* mlx5_query_vendor_id(): the IEEE OUI of Mellanox. */
	b->vendor_id = 0x02c9;
	b->vendor_part_id = c->pci_device;
	b->hw_ver = 0;
	b->max_qp = 1u << c->log_max_qp;
	b->max_qp_wr = 1u << c->log_max_qp_sz;
	b->device_cap_flags =
		IBV_DEVICE_CHANGE_PHY_PORT | IBV_DEVICE_PORT_ACTIVE_EVENT |
		IBV_DEVICE_SYS_IMAGE_GUID | IBV_DEVICE_RC_RNR_NAK_GEN |
		IBV_DEVICE_MANAGED_FLOW_STEERING;
	if (c->csum_cap)
		b->device_cap_flags |= IBV_DEVICE_RAW_IP_CSUM;
	max_rq_sg = c->max_wqe_sz_rq / MM_DATA_SEG_SIZE;
	max_sq_desc = c->max_wqe_sz_sq < 512 ? c->max_wqe_sz_sq : 512;
	/* control segment and remote address segment out of the WQE */
	max_sq_sg = (max_sq_desc - 16 - 16) / MM_DATA_SEG_SIZE;
	b->max_sge = max_sq_sg < max_rq_sg ? max_sq_sg : max_rq_sg;
	b->max_sge_rd = 30; /* MLX5_MAX_SGE_RD */
	b->max_cq = 1u << c->log_max_cq;
	b->max_cqe = (1u << c->log_max_cq_sz) - 1;
	b->max_mr = 1u << c->log_max_mkey;
	b->max_pd = 1u << c->log_max_pd;
	b->max_qp_rd_atom = 1u << c->log_max_ra_req_qp;
	b->max_qp_init_rd_atom = 1u << c->log_max_ra_res_qp;
	b->max_res_rd_atom = b->max_qp_rd_atom * b->max_qp;
	b->max_srq = 1u << c->log_max_srq;
	b->max_srq_wr = (1u << c->log_max_srq_sz) - 1;
	b->max_srq_sge = max_rq_sg - 1;
	b->local_ca_ack_delay = c->local_ca_ack_delay;
	b->atomic_cap = 0; /* IB_ATOMIC_NONE */
	b->max_mcast_grp = 1u << c->log_max_mcg;
	b->max_mcast_qp_attach = c->max_qp_mcg;
	b->max_total_mcast_qp_attach =
		b->max_mcast_qp_attach * b->max_mcast_grp;
	b->max_ah = 0x7fffffff; /* INT_MAX */
	b->max_pkeys = 128;	/* dev->pkey_table_len: pkey_table_size */
	b->phys_port_cnt = 1;
	r->timestamp_mask = 0x7fffffffffffffffull;
	r->hca_core_clock = c->device_frequency_khz;
	r->device_cap_flags_ex = b->device_cap_flags;
	if (c->csum_cap)
		r->raw_packet_caps |= IBV_RAW_PACKET_CAP_IP_CSUM;
	if (c->vlan_cap)
		r->raw_packet_caps |= IBV_RAW_PACKET_CAP_CVLAN_STRIPPING;
	/* An Ethernet port with raw packet support. */
	r->rss_caps.max_rwq_indirection_tables = 1u << c->log_max_rqt;
	r->rss_caps.max_rwq_indirection_table_size = 1u << c->log_max_rqt_size;
	r->rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	r->max_wq_type_rq = 1u << c->log_max_rq;
}

/* The driver's part of the answer (struct mlx5_ib_query_device_resp),
 * as long as the caller's buffer takes: response_length grows with each
 * section that fits. */
size_t
mm_query_device_mlx5(const struct mm_dev *dev, size_t outlen,
		     struct mlx5_ib_query_device_resp *r)
{
	const struct mm_caps *c = dev->caps;

#define MM_FITS(member)                                       \
	(offsetof(struct mlx5_ib_query_device_resp, member) + \
		 sizeof(r->member) <=                         \
	 outlen)
	memset(r, 0, sizeof(*r));
	r->response_length = sizeof(r->comp_mask) + sizeof(r->response_length);
	if (MM_FITS(tso_caps)) {
		if (c->max_lso_cap) {
			r->tso_caps.max_tso = 1u << c->max_lso_cap;
			r->tso_caps.supported_qpts |= 1u << IBV_QPT_RAW_PACKET;
			r->response_length += sizeof(r->tso_caps);
		}
	}
	if (MM_FITS(rss_caps)) {
		r->rss_caps.rx_hash_function = MLX5_RX_HASH_FUNC_TOEPLITZ;
		r->rss_caps.rx_hash_fields_mask =
			MLX5_RX_HASH_SRC_IPV4 | MLX5_RX_HASH_DST_IPV4 |
			MLX5_RX_HASH_SRC_IPV6 | MLX5_RX_HASH_DST_IPV6 |
			MLX5_RX_HASH_SRC_PORT_TCP | MLX5_RX_HASH_DST_PORT_TCP |
			MLX5_RX_HASH_SRC_PORT_UDP | MLX5_RX_HASH_DST_PORT_UDP |
			MLX5_RX_HASH_INNER;
		r->response_length += sizeof(r->rss_caps);
	}
	if (MM_FITS(cqe_comp_caps))
		r->response_length += sizeof(r->cqe_comp_caps);
	if (MM_FITS(packet_pacing_caps))
		r->response_length += sizeof(r->packet_pacing_caps);
	if (MM_FITS(mlx5_ib_support_multi_pkt_send_wqes))
		r->response_length +=
			sizeof(r->mlx5_ib_support_multi_pkt_send_wqes);
	if (MM_FITS(flags)) {
		r->response_length += sizeof(r->flags);
		r->flags |= MLX5_IB_QUERY_DEV_RESP_FLAGS_SCAT2CQE_DCT;
	}
	if (MM_FITS(sw_parsing_caps))
		r->response_length += sizeof(r->sw_parsing_caps);
	if (MM_FITS(striding_rq_caps))
		r->response_length += sizeof(r->striding_rq_caps);
	if (MM_FITS(tunnel_offloads_caps)) {
		r->response_length += sizeof(r->tunnel_offloads_caps);
		if (c->tunnel_stateless_vxlan)
			r->tunnel_offloads_caps |=
				MLX5_IB_TUNNELED_OFFLOADS_VXLAN;
		if (c->tunnel_stateless_geneve_rx)
			r->tunnel_offloads_caps |=
				MLX5_IB_TUNNELED_OFFLOADS_GENEVE;
		if (c->tunnel_stateless_gre)
			r->tunnel_offloads_caps |=
				MLX5_IB_TUNNELED_OFFLOADS_GRE;
		if (c->tunnel_stateless_mpls_over_gre)
			r->tunnel_offloads_caps |=
				MLX5_IB_TUNNELED_OFFLOADS_MPLS_GRE;
		if (c->tunnel_stateless_mpls_over_udp)
			r->tunnel_offloads_caps |=
				MLX5_IB_TUNNELED_OFFLOADS_MPLS_UDP;
	}
	if (MM_FITS(dci_streams_caps))
		r->response_length += sizeof(r->dci_streams_caps);
#undef MM_FITS
	return r->response_length;
}
