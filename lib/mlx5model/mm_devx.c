/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * DevX (Linux 6.1 hw/mlx5/devx.c): general commands and objects, the
 * kernel's checks (a DevX uid, the command lists it lets through, the
 * object a query names), then the firmware: QUERY_HCA_CAP with the
 * capability pages of the modelled device (general, Ethernet offloads,
 * NIC flow table, and zero pages for ODP, atomics and RoCE), flow
 * counters (ALLOC / QUERY / DEALLOC_FLOW_COUNTER, softverbs' DevX
 * counters), and transport domains and TISes, which only get their
 * numbers: the model's send queues are verbs QPs, which carry their own.
 * Other objects (queues, TIRs, flow tables, ...) are not modelled.
 *
 * A command the firmware fails answers -EREMOTEIO with the status and
 * syndrome in the output mailbox, which the kernel copies out as
 * mlx5_cmd_do() leaves it.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/mlx5_user_ioctl_cmds.h>

#include "mm_internal.h"
#include "mm_prm.h"
#include "vsteer_prm.h"

#define MM_SET(p, f, v) vsteer_prm_set((p), f##_OFF, f##_LEN, (v))
#define MM_GET(p, f) vsteer_prm_get((p), f##_OFF, f##_LEN)

struct mm_devx_obj {
	struct mlx5dv_devx_obj *sv; /* a flow counter's */
	uint16_t opcode;
	uint32_t id; /* a transport domain's or TIS's number */
};

/* Transport domain and TIS numbers (24 bits, never 0). */
static _Atomic(uint32_t) mm_devx_next_id = 1;

uint32_t
mm_devx_number(void)
{
	uint32_t n;

	do
		n = atomic_fetch_add(&mm_devx_next_id, 1) & 0xffffff;
	while (n == 0);
	return n;
}

bool
mm_devx_is_flow_counter(const struct mm_uobj *u)
{
	const struct mm_devx_obj *o = u->priv;

	return u->type == MLX5_IB_OBJECT_DEVX_OBJ &&
	       o->opcode == MM_PRM_CMD_ALLOC_FLOW_COUNTER;
}

struct mlx5dv_devx_obj *
mm_devx_sv(const struct mm_uobj *u)
{
	return ((const struct mm_devx_obj *)u->priv)->sv;
}

/* The firmware's answer: status and syndrome. */
static int
mm_fw_status(void *out, size_t outlen, uint8_t status, uint32_t syndrome)
{
	if (outlen >= MM_PRM_OUT_HDR_BYTES) {
		memset(out, 0, MM_PRM_OUT_HDR_BYTES);
		MM_SET(out, MM_PRM_OUT_STATUS, status);
		MM_SET(out, MM_PRM_OUT_SYNDROME, syndrome);
	}
	return status == MM_PRM_STATUS_OK ? 0 : -EREMOTEIO;
}

/* ---- QUERY_HCA_CAP ---- */

static void
mm_cap_general(const struct mm_caps *c, uint8_t *p)
{
	MM_SET(p, MM_PRM_GEN_LOG_MAX_SRQ_SZ, c->log_max_srq_sz);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_QP_SZ, c->log_max_qp_sz);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_QP, c->log_max_qp);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_SRQ, c->log_max_srq);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_CQ_SZ, c->log_max_cq_sz);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_CQ, c->log_max_cq);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_MKEY, c->log_max_mkey);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_KLM_LIST_SIZE, c->log_max_klm_list_size);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_RA_REQ_QP, c->log_max_ra_req_qp);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_RA_RES_QP, c->log_max_ra_res_qp);
	MM_SET(p, MM_PRM_GEN_PKEY_TABLE_SIZE, 128);
	MM_SET(p, MM_PRM_GEN_NIC_FLOW_TABLE, 1);
	MM_SET(p, MM_PRM_GEN_LOCAL_CA_ACK_DELAY, c->local_ca_ack_delay);
	MM_SET(p, MM_PRM_GEN_PORT_TYPE, 1); /* Ethernet */
	MM_SET(p, MM_PRM_GEN_NUM_PORTS, 1);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_MSG, c->log_max_msg);
	MM_SET(p, MM_PRM_GEN_CQE_VERSION, c->cqe_version);
	MM_SET(p, MM_PRM_GEN_ETH_NET_OFFLOADS, 1);
	MM_SET(p, MM_PRM_GEN_LOG_BF_REG_SIZE, c->log_bf_reg_size);
	MM_SET(p, MM_PRM_GEN_LOG_PG_SZ, c->log_pg_sz);
	MM_SET(p, MM_PRM_GEN_MAX_WQE_SZ_SQ, c->max_wqe_sz_sq);
	MM_SET(p, MM_PRM_GEN_MAX_WQE_SZ_RQ, c->max_wqe_sz_rq);
	MM_SET(p, MM_PRM_GEN_MAX_QP_MCG, c->max_qp_mcg);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_MCG, c->log_max_mcg);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_PD, c->log_max_pd);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_FLOW_COUNTER_BULK,
	       c->log_max_flow_counter_bulk);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_RQ, c->log_max_rq);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_SQ, c->log_max_sq);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_TIR, c->log_max_tir);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_TIS, c->log_max_tis);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_RQT, c->log_max_rqt);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_RQT_SIZE, c->log_max_rqt_size);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_WQ_SZ, c->log_max_qp_sz);
	MM_SET(p, MM_PRM_GEN_LOG_MAX_UCTX, c->log_max_uctx);
	MM_SET(p, MM_PRM_GEN_DEVICE_FREQUENCY_KHZ, c->device_frequency_khz);
}

static void
mm_cap_eth(const struct mm_caps *c, uint8_t *p)
{
	MM_SET(p, MM_PRM_ETH_CSUM_CAP, c->csum_cap);
	MM_SET(p, MM_PRM_ETH_VLAN_CAP, c->vlan_cap);
	MM_SET(p, MM_PRM_ETH_LRO_CAP, c->lro_cap);
	MM_SET(p, MM_PRM_ETH_MAX_LSO_CAP, c->max_lso_cap);
	/* MLX5_CAP_INLINE_MODE_VPORT_CONTEXT: the vport context says */
	MM_SET(p, MM_PRM_ETH_WQE_INLINE_MODE, 1);
	MM_SET(p, MM_PRM_ETH_RSS_IND_TBL_CAP, c->log_max_rqt_size);
	MM_SET(p, MM_PRM_ETH_SCATTER_FCS, c->scatter_fcs);
	MM_SET(p, MM_PRM_ETH_TUNNEL_STATELESS_GRE, c->tunnel_stateless_gre);
	MM_SET(p, MM_PRM_ETH_TUNNEL_STATELESS_VXLAN, c->tunnel_stateless_vxlan);
	MM_SET(p, MM_PRM_ETH_SWP, c->swp);
	MM_SET(p, MM_PRM_ETH_TUNNEL_STATELESS_MPLS_OVER_UDP,
	       c->tunnel_stateless_mpls_over_udp);
	MM_SET(p, MM_PRM_ETH_TUNNEL_STATELESS_MPLS_OVER_GRE,
	       c->tunnel_stateless_mpls_over_gre);
	MM_SET(p, MM_PRM_ETH_TUNNEL_STATELESS_GENEVE_RX,
	       c->tunnel_stateless_geneve_rx);
}

/* What both NIC tables have: steering, the header modify actions of a
 * list; with the modify and reformat of one rule together
 * (reformat_and_modify_action), in the order the device applies them. */
static void
mm_cap_ft_props(const struct mm_caps *c, uint8_t *t)
{
	MM_SET(t, MM_PRM_FT_PROP_FT_SUPPORT, 1);
	MM_SET(t, MM_PRM_FT_PROP_LOG_MAX_FT_SIZE, c->log_max_ft_size);
	MM_SET(t, MM_PRM_FT_PROP_MAX_FT_LEVEL, c->max_ft_level);
	MM_SET(t, MM_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS,
	       c->max_modify_header_actions);
	MM_SET(t, MM_PRM_FT_PROP_REFORMAT_AND_MODIFY_ACTION, 1);
}

/*
 * The NIC flow table page. The bits the kernel reads before it takes a
 * flow action (Linux 6.1 fs.c): max_modify_header_actions of either NIC
 * table (mlx5_ib_modify_header_supported(), then the limit in
 * mlx5_cmd_modify_header_alloc()), decap and reformat_l3_tunnel_to_l2
 * on the receive table, encap_general_header and
 * reformat_l2_to_l3_tunnel on the transmit table
 * (mlx5_ib_flow_action_packet_reformat_valid()), and
 * max_encap_header_size (mlx5_cmd_packet_reformat_alloc()). The transmit
 * table exists (ft_support: the EGRESS namespace, init_egress_root_ns()).
 */
static void
mm_cap_flow_table(const struct mm_caps *c, uint8_t *p)
{
	uint8_t *rx = p + MM_PRM_FT_RX_OFF / 8;
	uint8_t *tx = p + MM_PRM_FT_TX_OFF / 8;
	uint8_t *fields = p + MM_PRM_FT_FIELDS2_RX_OFF / 8;

	MM_SET(p, MM_PRM_FT_ENCAP_GENERAL_HEADER, 1);
	MM_SET(p, MM_PRM_FT_MAX_ENCAP_HEADER_SIZE, c->max_encap_header_size);
	mm_cap_ft_props(c, rx);
	MM_SET(rx, MM_PRM_FT_PROP_FLOW_TAG, 1);
	MM_SET(rx, MM_PRM_FT_PROP_DECAP, 1);
	MM_SET(rx, MM_PRM_FT_PROP_REFORMAT_L3_TUNNEL_TO_L2, 1);
	mm_cap_ft_props(c, tx);
	MM_SET(tx, MM_PRM_FT_PROP_REFORMAT, 1);
	MM_SET(tx, MM_PRM_FT_PROP_REFORMAT_L2_TO_L3_TUNNEL, 1);
	/* The matcher matches the IPv4 header length (softverbs' PRM
	 * compiler takes ipv4_ihl), outer and inner. */
	MM_SET(fields, MM_PRM_FT_FIELDS2_OUTER_IPV4_IHL, 1);
	MM_SET(fields, MM_PRM_FT_FIELDS2_INNER_IPV4_IHL, 1);
}

static int
mm_query_hca_cap(struct mm_file *f, const void *in, size_t inlen, void *out,
		 size_t outlen)
{
	uint8_t page[MM_PRM_CAP_PAGE_BYTES];
	uint32_t type = MM_GET(in, MM_PRM_IN_OP_MOD) >> 1;
	size_t n;

	if (inlen < MM_PRM_QUERY_HCA_CAP_IN_BYTES)
		return mm_fw_status(out, outlen, MM_PRM_STATUS_BAD_PARAM, 0);
	memset(page, 0, sizeof(page));
	switch (type) {
	case MM_PRM_CAP_GENERAL:
		mm_cap_general(f->dev->caps, page);
		break;
	case MM_PRM_CAP_ETHERNET_OFFLOADS:
		mm_cap_eth(f->dev->caps, page);
		break;
	case MM_PRM_CAP_NIC_FLOW_TABLE:
		mm_cap_flow_table(f->dev->caps, page);
		break;
	case MM_PRM_CAP_ODP:
	case MM_PRM_CAP_ATOMIC:
	case MM_PRM_CAP_ROCE:
		/* Pages the device has, with nothing the model does. */
		break;
	default:
		/* A page the device does not have (hca_cap_2 and the
		 * others are off in the general page). */
		mm_trace("QUERY_HCA_CAP: page type %#x not modelled", type);
		return mm_fw_status(out, outlen, MM_PRM_STATUS_BAD_PARAM, 0);
	}
	mm_fw_status(out, outlen, MM_PRM_STATUS_OK, 0);
	if (outlen > MM_PRM_OUT_HDR_BYTES) {
		n = outlen - MM_PRM_OUT_HDR_BYTES;
		if (n > sizeof(page))
			n = sizeof(page);
		memcpy((uint8_t *)out + MM_PRM_QUERY_HCA_CAP_OUT_CAP_OFF / 8,
		       page, n);
	}
	return 0;
}

/* ---- general commands ---- */

/* devx_is_whitelist_cmd() */
static bool
mm_devx_whitelist(uint16_t op)
{
	return op == MM_PRM_CMD_QUERY_HCA_CAP ||
	       op == MM_PRM_CMD_QUERY_HCA_VPORT_CONTEXT || op == 0x752 ||
	       op == 0x740;
}

/* devx_get_uid() */
static int
mm_devx_uid(struct mm_file *f, uint16_t op)
{
	if (mm_devx_whitelist(op))
		return f->devx ?
			       f->devx_uid :
			       MM_REFUSE(EOPNOTSUPP,
					 "devx_get_uid: no DevX, no whitelist uid");
	return f->devx ? f->devx_uid :
			 MM_REFUSE(EINVAL, "devx_get_uid: not a DevX context");
}

/* Is op one of the n opcodes of a kernel list? */
static bool
mm_op_listed(const uint16_t *ops, size_t n, uint16_t op)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (ops[i] == op)
			return true;
	return false;
}

/* devx_is_general_cmd(): the query commands a DevX context may run. */
static bool
mm_devx_general(uint16_t op)
{
	static const uint16_t ops[] = {
		MM_PRM_CMD_QUERY_HCA_CAP,
		MM_PRM_CMD_QUERY_HCA_VPORT_CONTEXT,
		0x752, /* QUERY_ESW_VPORT_CONTEXT */
		0x750, /* QUERY_VPORT_STATE */
		0x101, /* QUERY_ADAPTER */
		0x10a, /* QUERY_ISSI */
		MM_PRM_CMD_QUERY_NIC_VPORT_CONTEXT,
		0x760, /* QUERY_ROCE_ADDRESS */
		0x76f, /* QUERY_VNIC_ENV */
		0x770, /* QUERY_VPORT_COUNTER */
		0x80a, /* GET_DROPPED_PACKET_LOG */
		0x80d, /* NOP */
		0x822, /* QUERY_CONG_STATUS */
		0x824, /* QUERY_CONG_PARAMS */
		0x826, /* QUERY_CONG_STATISTICS */
		0x842, /* QUERY_LAG */
		0x740, /* QUERY_ESW_FUNCTIONS */
	};

	return mm_op_listed(ops, MM_ARRAY_SIZE(ops), op);
}

static int
mm_m_devx_other(struct mm_bundle *b)
{
	struct ib_uverbs_attr *oa = mm_attr(b, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT);
	const void *in;
	size_t inlen;
	void *out;
	uint16_t op;
	int rc;

	rc = mm_need_ctx(b);
	if (rc != 0)
		return rc;
	in = mm_attr_in_ptr(b, MLX5_IB_ATTR_DEVX_OTHER_CMD_IN, &inlen);
	op = (uint16_t)MM_GET(in, MM_PRM_IN_OPCODE);
	rc = mm_devx_uid(b->file, op);
	if (rc < 0)
		return rc;
	if (!mm_devx_general(op))
		return MM_REFUSE(EINVAL, "devx_is_general_cmd");
	out = calloc(1, oa->len);
	if (out == NULL)
		return -ENOMEM;
	switch (op) {
	case MM_PRM_CMD_QUERY_HCA_CAP:
		rc = mm_query_hca_cap(b->file, in, inlen, out, oa->len);
		break;
	default:
		mm_trace("DevX general command %#x not modelled", op);
		rc = mm_fw_status(out, oa->len, MM_PRM_STATUS_BAD_OP, 0);
		break;
	}
	mm_attr_copy_out(b, MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT, out, oa->len);
	free(out);
	return rc;
}

/* ---- objects ---- */

static int
mm_devx_obj_destroy(struct mm_uobj *u)
{
	struct mm_devx_obj *o = u->priv;
	int rc;

	rc = o->sv != NULL ? sv_mlx5dv_devx_obj_destroy(o->sv) : 0;
	if (rc != 0)
		return -rc;
	free(o);
	u->priv = NULL;
	return 0;
}

/* devx_is_obj_create_cmd() knows these create commands; of them the
 * model's firmware makes flow counters. */
static bool
mm_devx_create_cmd(uint16_t op)
{
	static const uint16_t ops[] = {
		0xa00, /* CREATE_GENERAL_OBJECT */
		0x200, /* CREATE_MKEY */
		0x400, /* CREATE_CQ */
		0x800, /* ALLOC_PD */
		0x816, /* ALLOC_TRANSPORT_DOMAIN */
		0x90c, /* CREATE_RMP */
		0x904, /* CREATE_SQ */
		0x908, /* CREATE_RQ */
		0x916, /* CREATE_RQT */
		0x900, /* CREATE_TIR */
		0x912, /* CREATE_TIS */
		0x771, /* ALLOC_Q_COUNTER */
		0x930, /* CREATE_FLOW_TABLE */
		0x933, /* CREATE_FLOW_GROUP */
		MM_PRM_CMD_ALLOC_FLOW_COUNTER,
		0x93d, /* ALLOC_PACKET_REFORMAT_CONTEXT */
		0x940, /* ALLOC_MODIFY_HEADER_CONTEXT */
		0x782, /* CREATE_SCHEDULING_ELEMENT */
		0x827, /* ADD_VXLAN_UDP_DPORT */
		0x829, /* SET_L2_TABLE_ENTRY */
		0x500, /* CREATE_QP */
		0x700, /* CREATE_SRQ */
		0x705, /* CREATE_XRC_SRQ */
		0x710, /* CREATE_DCT */
		0x717, /* CREATE_XRQ */
		0x806, /* ATTACH_TO_MCG */
		0x80e, /* ALLOC_XRCD */
		0x936, /* SET_FLOW_TABLE_ENTRY */
		0x600, /* CREATE_PSV */
	};

	return mm_op_listed(ops, MM_ARRAY_SIZE(ops), op);
}

/* A transport domain or TIS: its number in the output. */
static int
mm_devx_number_create(struct mm_bundle *b, struct mm_uobj *u, uint16_t op)
{
	struct ib_uverbs_attr *oa =
		mm_attr(b, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT);
	uint8_t out[MM_PRM_OUT_HDR_BYTES] = { 0 };
	struct mm_devx_obj *o;

	if (oa->len < sizeof(out))
		return MM_REFUSE(EINVAL, "DEVX_OBJ_CREATE: output size");
	o = calloc(1, sizeof(*o));
	if (o == NULL)
		return -ENOMEM;
	o->opcode = op;
	o->id = mm_devx_number();
	mm_fw_status(out, sizeof(out), MM_PRM_STATUS_OK, 0);
	if (op == MM_PRM_CMD_ALLOC_TRANSPORT_DOMAIN)
		MM_SET(out, MM_PRM_ALLOC_TD_OUT_TD, o->id);
	else
		MM_SET(out, MM_PRM_CREATE_TIS_OUT_TISN, o->id);
	u->priv = o;
	u->destroy = mm_devx_obj_destroy;
	return mm_attr_copy_out(b, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, out,
				sizeof(out));
}

static int
mm_m_devx_obj_create(struct mm_bundle *b)
{
	struct mm_uobj *u = mm_attr_new(b, MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE);
	struct ib_uverbs_attr *oa =
		mm_attr(b, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT);
	struct mm_devx_obj *o;
	uint8_t in[256];
	const void *p;
	size_t inlen;
	void *out;
	uint16_t op;
	int rc;

	p = mm_attr_in_ptr(b, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN, &inlen);
	if (MM_GET(p, MM_PRM_IN_VHCA_TUNNEL_ID))
		return MM_REFUSE(EINVAL, "DEVX_OBJ_CREATE: vhca tunnel");
	op = (uint16_t)MM_GET(p, MM_PRM_IN_OPCODE);
	rc = mm_devx_uid(b->file, op);
	if (rc < 0)
		return rc;
	if (!mm_devx_create_cmd(op))
		return MM_REFUSE(EINVAL, "devx_is_obj_create_cmd");
	if (op == MM_PRM_CMD_ALLOC_TRANSPORT_DOMAIN ||
	    op == MM_PRM_CMD_CREATE_TIS)
		return mm_devx_number_create(b, u, op);
	if (op != MM_PRM_CMD_ALLOC_FLOW_COUNTER) {
		mm_trace("DevX object %#x not modelled", op);
		return -EOPNOTSUPP;
	}
	/* The kernel sets the context's uid in the command. */
	memset(in, 0, sizeof(in));
	memcpy(in, p, inlen < sizeof(in) ? inlen : sizeof(in));
	MM_SET(in, MM_PRM_IN_UID, (uint32_t)rc);
	out = calloc(1, oa->len);
	o = calloc(1, sizeof(*o));
	if (out == NULL || o == NULL) {
		free(out);
		free(o);
		return -ENOMEM;
	}
	o->opcode = op;
	o->sv = sv_mlx5dv_devx_obj_create(mm_sv(b->file), in,
					  inlen < sizeof(in) ? inlen :
							       sizeof(in),
					  out, oa->len);
	if (o->sv == NULL) {
		rc = -errno;
		free(o);
		free(out);
		return rc;
	}
	u->priv = o;
	u->destroy = mm_devx_obj_destroy;
	rc = mm_attr_copy_out(b, MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT, out,
			      oa->len);
	free(out);
	return rc;
}

static int
mm_devx_qp_query(struct mm_bundle *b, struct mm_uobj *u, const void *in,
		 size_t inlen)
{
	struct ib_uverbs_attr *oa =
		mm_attr(b, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT);
	const struct mm_qp *qp = u->priv;
	uint8_t out[MM_PRM_QUERY_TIS_OUT_BYTES] = { 0 };
	size_t n;

	if (qp->rss || MM_GET(in, MM_PRM_IN_OPCODE) != MM_PRM_CMD_QUERY_TIS ||
	    inlen < MM_PRM_QUERY_TIS_IN_BYTES ||
	    MM_GET(in, MM_PRM_QUERY_TIS_IN_TISN) != qp->tisn)
		return MM_REFUSE(EINVAL, "devx_is_valid_obj_id: QP");
	mm_fw_status(out, sizeof(out), MM_PRM_STATUS_OK, 0);
	MM_SET(out, MM_PRM_QUERY_TIS_OUT_TD, b->file->tdn);
	n = oa->len < sizeof(out) ? oa->len : sizeof(out);
	return mm_attr_copy_out(b, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT, out, n);
}

static int
mm_m_devx_obj_query(struct mm_bundle *b)
{
	struct mm_uobj *u = mm_attr_obj(b, MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE);
	struct ib_uverbs_attr *oa =
		mm_attr(b, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT);
	const void *in;
	size_t inlen;
	void *out;
	uint16_t op;
	int rc;

	in = mm_attr_in_ptr(b, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN, &inlen);
	if (MM_GET(in, MM_PRM_IN_VHCA_TUNNEL_ID))
		return MM_REFUSE(EINVAL, "DEVX_OBJ_QUERY: vhca tunnel");
	op = (uint16_t)MM_GET(in, MM_PRM_IN_OPCODE);
	rc = mm_devx_uid(b->file, op);
	if (rc < 0)
		return rc;
	/* A raw packet QP's TIS: QUERY_TIS of its number
	 * (devx_is_valid_obj_id(): the SQ, RQ, TIR or TIS of the QP). */
	if (u->type == UVERBS_OBJECT_QP)
		return mm_devx_qp_query(b, u, in, inlen);
	/* devx_is_obj_query_cmd() and devx_is_valid_obj_id(): the query
	 * of the object's own kind, naming it (the counter checks its id). */
	if (u->type != MLX5_IB_OBJECT_DEVX_OBJ ||
	    op != MM_PRM_CMD_QUERY_FLOW_COUNTER || !mm_devx_is_flow_counter(u))
		return MM_REFUSE(EINVAL, "devx_is_valid_obj_id");
	out = calloc(1, oa->len);
	if (out == NULL)
		return -ENOMEM;
	rc = -sv_mlx5dv_devx_obj_query(mm_devx_sv(u), in, inlen, out, oa->len);
	if (rc == 0)
		rc = mm_attr_copy_out(b, MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT,
				      out, oa->len);
	free(out);
	return rc;
}

static int
mm_m_devx_obj_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(
		mm_attr_obj(b, MLX5_IB_ATTR_DEVX_OBJ_DESTROY_HANDLE));
}

#define MM_CMD_IN(i)                                             \
	{                                                        \
		.id = (i), .type = MM_AT_PTR_IN, .mandatory = 1, \
		.min_len = MM_PRM_OUT_HDR_BYTES                  \
	}
#define MM_CMD_OUT(i)                                             \
	{                                                         \
		.id = (i), .type = MM_AT_PTR_OUT, .mandatory = 1, \
		.min_len = MM_PRM_OUT_HDR_BYTES                   \
	}

static const struct mm_attr_spec mm_a_devx_other[] = {
	MM_CMD_IN(MLX5_IB_ATTR_DEVX_OTHER_CMD_IN),
	MM_CMD_OUT(MLX5_IB_ATTR_DEVX_OTHER_CMD_OUT),
};

static const struct mm_attr_spec mm_a_devx_obj_create[] = {
	MM_IDR(MLX5_IB_ATTR_DEVX_OBJ_CREATE_HANDLE, MLX5_IB_OBJECT_DEVX_OBJ,
	       MM_ACC_NEW, 1),
	MM_CMD_IN(MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_IN),
	MM_CMD_OUT(MLX5_IB_ATTR_DEVX_OBJ_CREATE_CMD_OUT),
};

static const struct mm_attr_spec mm_a_devx_obj_query[] = {
	MM_IDR(MLX5_IB_ATTR_DEVX_OBJ_QUERY_HANDLE, MM_OBJ_ANY, MM_ACC_READ, 1),
	MM_CMD_IN(MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_IN),
	MM_CMD_OUT(MLX5_IB_ATTR_DEVX_OBJ_QUERY_CMD_OUT),
};

static const struct mm_attr_spec mm_a_devx_obj_destroy[] = {
	MM_IDR(MLX5_IB_ATTR_DEVX_OBJ_DESTROY_HANDLE, MLX5_IB_OBJECT_DEVX_OBJ,
	       MM_ACC_DESTROY, 1),
};

#define MM_METHOD(o, m, a, u, h)                                         \
	{                                                                \
		.obj = (o), .id = (m), .name = #m, .attrs = (a),         \
		.nattrs = MM_ARRAY_SIZE(a), .udata = (u), .handler = (h) \
	}

static const struct mm_method mm_devx_m[] = {
	MM_METHOD(MLX5_IB_OBJECT_DEVX, MLX5_IB_METHOD_DEVX_OTHER,
		  mm_a_devx_other, false, mm_m_devx_other),
	MM_METHOD(MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_CREATE,
		  mm_a_devx_obj_create, false, mm_m_devx_obj_create),
	MM_METHOD(MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_QUERY,
		  mm_a_devx_obj_query, false, mm_m_devx_obj_query),
	MM_METHOD(MLX5_IB_OBJECT_DEVX_OBJ, MLX5_IB_METHOD_DEVX_OBJ_DESTROY,
		  mm_a_devx_obj_destroy, false, mm_m_devx_obj_destroy),
};

const struct mm_method_table mm_devx_methods = {
	mm_devx_m,
	MM_ARRAY_SIZE(mm_devx_m),
};
