/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * softverbs port features the driver relies on: VLAN stripping on receive
 * WQs (create and modify flags, the stripped frame, ibv_wc_read_cvlan),
 * the port MTU (entry points, and the send path refusing what the wire
 * cannot carry), the link (speed, duplex, query_port's IB encodings).
 * Two devices on an in-memory link: end 0 generic, end 1 mlx5 profile.
 */

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "vt_svenv.h"
#include "vt_test.h"

static const struct vt_svenv_cfg cfg = {
	.link_prefix = "svport",
	.nq = 0,
	.nbuf = 16,
	.rx_cqe = 32,
	.tx_wr = 64,
	.tx_slots = 16,
};

/* A receive queue on end 1 whose CQ reports stripped tags, behind a
 * catch-all rule. */
struct sq {
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *hqp;
	struct ibv_flow *flow;
};

static const uint8_t rss_key[SV_RSS_KEY_LEN] = { 1 };

static int
sq_up(struct vt_svenv *e, struct sq *q, uint32_t create_flags)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 32,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_CVLAN,
	};
	struct ibv_wq_init_attr wa = {
		.wq_type = IBV_WQT_RQ,
		.max_wr = 16,
		.max_sge = 1,
		.pd = e->pd[1],
		.comp_mask = IBV_WQ_INIT_ATTR_FLAGS,
		.create_flags = create_flags,
	};
	struct ibv_wq_attr ma = {
		.attr_mask = IBV_WQ_ATTR_STATE,
		.wq_state = IBV_WQS_RDY,
	};
	struct ibv_rwq_ind_table_init_attr ia = { .log_ind_tbl_size = 0 };
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} rule;
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = e->pd[1],
		.rx_hash_conf = {
			.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
			.rx_hash_key_len = SV_RSS_KEY_LEN,
			.rx_hash_key = (uint8_t *)(uintptr_t)rss_key,
		},
	};
	unsigned int i;

	memset(q, 0, sizeof(*q));
	q->cq = ibv_create_cq_ex(e->ctx[1], &ca);
	VT_CHECK(q->cq != NULL, "CQ-ex with CVLAN");
	wa.cq = ibv_cq_ex_to_cq(q->cq);
	q->wq = ibv_create_wq(e->ctx[1], &wa);
	VT_CHECK(q->wq != NULL, "WQ with flags 0x%x: %s", create_flags,
		 strerror(errno));
	VT_CHECK_EQ(ibv_modify_wq(q->wq, &ma), 0, "RDY");
	q->buf = aligned_alloc(64, 16 * VT_SVENV_BUFSZ);
	VT_CHECK(q->buf != NULL, "alloc");
	q->mr = sv_reg_mr(e->pd[1], q->buf, 16 * VT_SVENV_BUFSZ,
			  IBV_ACCESS_LOCAL_WRITE);
	VT_CHECK(q->mr != NULL, "MR");
	for (i = 0; i < 16; i++) {
		struct ibv_sge sge = {
			.addr = (uintptr_t)(q->buf + i * VT_SVENV_BUFSZ),
			.length = VT_SVENV_BUFSZ,
			.lkey = q->mr->lkey,
		};
		struct ibv_recv_wr wr = { .wr_id = i,
					  .sg_list = &sge,
					  .num_sge = 1 };
		struct ibv_recv_wr *bad;

		VT_CHECK_EQ(ibv_post_wq_recv(q->wq, &wr, &bad), 0, "post");
	}
	ia.ind_tbl = &q->wq;
	q->ind = ibv_create_rwq_ind_table(e->ctx[1], &ia);
	VT_CHECK(q->ind != NULL, "indirection table");
	qa.rwq_ind_tbl = q->ind;
	q->hqp = ibv_create_qp_ex(e->ctx[1], &qa);
	VT_CHECK(q->hqp != NULL, "hash QP");
	memset(&rule, 0, sizeof(rule));
	rule.attr.type = IBV_FLOW_ATTR_NORMAL;
	rule.attr.size = sizeof(rule);
	rule.attr.num_of_specs = 1;
	rule.attr.port = 1;
	rule.eth.type = IBV_FLOW_SPEC_ETH;
	rule.eth.size = sizeof(rule.eth);
	q->flow = ibv_create_flow(q->hqp, &rule.attr);
	VT_CHECK(q->flow != NULL, "catch-all rule");
	return VT_OK;
}

static void
sq_down(struct sq *q)
{
	ibv_destroy_flow(q->flow);
	sv_destroy_qp(q->hqp);
	ibv_destroy_rwq_ind_table(q->ind);
	ibv_destroy_wq(q->wq);
	sv_destroy_cq(ibv_cq_ex_to_cq(q->cq));
	sv_dereg_mr(q->mr);
	free(q->buf);
}

struct rx {
	uint64_t wr_id;
	enum ibv_wc_status status;
	uint32_t len;
	uint16_t cvlan;
};

/* One completion of q (the wire pumped by polling), within 1 s. */
static int
sq_poll(struct sq *q, struct rx *r)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	double end = vt_now_s() + 1.0;

	while (ibv_start_poll(q->cq, &pa) != 0)
		if (vt_now_s() > end)
			return -1;
	r->wr_id = q->cq->wr_id;
	r->status = q->cq->status;
	r->len = ibv_wc_read_byte_len(q->cq);
	r->cvlan = ibv_wc_read_cvlan(q->cq);
	ibv_end_poll(q->cq);
	return 0;
}

/* Ethernet (+ optional tag) / IPv4 / UDP frame of len bytes. */
static uint32_t
frame(uint8_t *f, uint16_t tpid, uint16_t tci, uint32_t len)
{
	uint32_t off = 12, i;

	memset(f, 0, len);
	memset(f, 0xff, 6);
	f[6] = 0x02;
	if (tpid != 0) {
		f[off++] = (uint8_t)(tpid >> 8);
		f[off++] = (uint8_t)tpid;
		f[off++] = (uint8_t)(tci >> 8);
		f[off++] = (uint8_t)tci;
	}
	f[off++] = 0x08;
	f[off++] = 0x00;
	f[off] = 0x45;
	for (i = off + 20; i < len; i++)
		f[i] = (uint8_t)i;
	return len;
}

/* Send a frame from end, return the send completion's status (-1: none). */
static int
xmit_status(struct vt_svenv *e, int end, const uint8_t *f, uint32_t len)
{
	struct vt_txq *t = &e->tx[end];
	uint8_t *slot =
		t->buf + (t->slot++ % e->cfg->tx_slots) * VT_SVENV_BUFSZ;
	struct ibv_sge sge = { .addr = (uintptr_t)slot,
			       .length = len,
			       .lkey = t->mr->lkey };
	struct ibv_send_wr wr = { .wr_id = t->slot,
				  .sg_list = &sge,
				  .num_sge = 1,
				  .opcode = IBV_WR_SEND,
				  .send_flags = IBV_SEND_SIGNALED };
	struct ibv_send_wr *bad = NULL;
	struct ibv_wc wc;

	memcpy(slot, f, len);
	if (ibv_post_send(t->qp, &wr, &bad) != 0)
		return -1;
	if (ibv_poll_cq(t->cq, 1, &wc) != 1)
		return -1;
	return (int)wc.status;
}

/* Back to RTS after an error completion. */
static int
qp_reset(struct ibv_qp *qp)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RESET;
	if (sv_modify_qp(qp, &a, IBV_QP_STATE) != 0)
		return -1;
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	if (sv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PORT) != 0)
		return -1;
	a.qp_state = IBV_QPS_RTR;
	if (sv_modify_qp(qp, &a, IBV_QP_STATE) != 0)
		return -1;
	a.qp_state = IBV_QPS_RTS;
	return sv_modify_qp(qp, &a, IBV_QP_STATE);
}

/*
 * IBV_WQ_FLAGS_CVLAN_STRIPPING: created with it or set and cleared with
 * ibv_modify_wq(IBV_WQ_ATTR_FLAGS); an 802.1Q tag leaves the frame and its
 * TCI comes with ibv_wc_read_cvlan(); other frames are left alone, as the
 * mlx5 kernel and firmware do (mlx5_ib_create_wq/mlx5_ib_modify_wq: vsd).
 */
static int
test_wq_vlan_strip(void)
{
	struct ibv_device_attr_ex ax;
	struct ibv_wq_attr ma;
	struct vt_svenv e;
	uint8_t f[200], *got;
	struct rx r;
	struct sq q;
	int rc;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(ibv_query_device_ex(e.ctx[1], NULL, &ax), 0, "query");
	VT_CHECK(ax.raw_packet_caps & IBV_RAW_PACKET_CAP_CVLAN_STRIPPING,
		 "capability reported");
	rc = sq_up(&e, &q, IBV_WQ_FLAGS_CVLAN_STRIPPING);
	if (rc != VT_OK)
		return rc;
	/* PCP 5, VID 100: stripped. */
	frame(f, 0x8100, 0xa064, 120);
	VT_CHECK_EQ(vt_svenv_xmit(&e, 0, f, 120), 0, "send tagged");
	VT_CHECK_EQ(sq_poll(&q, &r), 0, "completion");
	got = q.buf + r.wr_id * VT_SVENV_BUFSZ;
	VT_CHECK(r.status == IBV_WC_SUCCESS && r.len == 116, "116 bytes");
	VT_CHECK_EQ(r.cvlan, 0xa064, "TCI");
	VT_CHECK(memcmp(got, f, 12) == 0 && memcmp(got + 12, f + 16, 104) == 0,
		 "the frame without its tag");
	/* Untagged and 802.1ad: as they came, no TCI. */
	frame(f, 0, 0, 100);
	VT_CHECK_EQ(vt_svenv_xmit(&e, 0, f, 100), 0, "send untagged");
	VT_CHECK_EQ(sq_poll(&q, &r), 0, "completion");
	VT_CHECK(r.len == 100 && r.cvlan == 0, "untagged");
	frame(f, 0x88a8, 0x0033, 120);
	VT_CHECK_EQ(vt_svenv_xmit(&e, 0, f, 120), 0, "send S-tagged");
	VT_CHECK_EQ(sq_poll(&q, &r), 0, "completion");
	got = q.buf + r.wr_id * VT_SVENV_BUFSZ;
	VT_CHECK(r.len == 120 && r.cvlan == 0 && memcmp(got, f, 120) == 0,
		 "S-tag kept");
	/* Off, then on again, while ready. */
	memset(&ma, 0, sizeof(ma));
	ma.attr_mask = IBV_WQ_ATTR_FLAGS;
	ma.flags_mask = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	ma.flags = 0;
	VT_CHECK_EQ(ibv_modify_wq(q.wq, &ma), 0, "stripping off");
	frame(f, 0x8100, 0x0064, 120);
	VT_CHECK_EQ(vt_svenv_xmit(&e, 0, f, 120), 0, "send tagged");
	VT_CHECK_EQ(sq_poll(&q, &r), 0, "completion");
	VT_CHECK(r.len == 120 && r.cvlan == 0, "not stripped, no TCI");
	ma.flags = IBV_WQ_FLAGS_CVLAN_STRIPPING;
	VT_CHECK_EQ(ibv_modify_wq(q.wq, &ma), 0, "stripping on");
	VT_CHECK_EQ(vt_svenv_xmit(&e, 0, f, 120), 0, "send tagged");
	VT_CHECK_EQ(sq_poll(&q, &r), 0, "completion");
	VT_CHECK(r.len == 116 && r.cvlan == 0x0064, "stripped again");
	/* The mlx5 kernel refuses end padding changes, leaves FCS scatter
	 * and delay drop alone (mlx5_ib_modify_wq); the man page's device
	 * refuses what it lacks. */
	ma.flags_mask = IBV_WQ_FLAGS_PCI_WRITE_END_PADDING;
	VT_CHECK_EQ(ibv_modify_wq(q.wq, &ma), EOPNOTSUPP, "end padding");
	ma.flags_mask = IBV_WQ_FLAGS_SCATTER_FCS;
	ma.flags = 0;
	VT_CHECK_EQ(ibv_modify_wq(q.wq, &ma), 0, "FCS scatter ignored (mlx5)");
	sq_down(&q);
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* Creation flags the device does not implement; the generic profile's
 * modify refuses them too. */
static int
test_wq_flags_refused(void)
{
	struct ibv_wq_init_attr wa;
	struct ibv_wq_attr ma;
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct vt_svenv e;
	struct ibv_cq_init_attr_ex ca = { .cqe = 8 };
	unsigned int i;
	static const uint32_t flags[] = { IBV_WQ_FLAGS_SCATTER_FCS,
					  IBV_WQ_FLAGS_DELAY_DROP,
					  IBV_WQ_FLAGS_PCI_WRITE_END_PADDING };

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	for (i = 0; i < 2; i++) {
		unsigned int k;

		cq = ibv_create_cq_ex(e.ctx[i], &ca);
		VT_CHECK(cq != NULL, "CQ");
		memset(&wa, 0, sizeof(wa));
		wa.wq_type = IBV_WQT_RQ;
		wa.max_wr = 4;
		wa.max_sge = 1;
		wa.pd = e.pd[i];
		wa.cq = ibv_cq_ex_to_cq(cq);
		wa.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
		for (k = 0; k < sizeof(flags) / sizeof(flags[0]); k++) {
			wa.create_flags = flags[k];
			errno = 0;
			VT_CHECK(ibv_create_wq(e.ctx[i], &wa) == NULL &&
					 errno == EOPNOTSUPP,
				 "end %u: create flag 0x%x refused", i,
				 flags[k]);
		}
		wa.create_flags = 0;
		wq = ibv_create_wq(e.ctx[i], &wa);
		VT_CHECK(wq != NULL, "plain WQ");
		memset(&ma, 0, sizeof(ma));
		ma.attr_mask = IBV_WQ_ATTR_FLAGS;
		ma.flags_mask = IBV_WQ_FLAGS_SCATTER_FCS;
		VT_CHECK_EQ(ibv_modify_wq(wq, &ma), i == 0 ? EOPNOTSUPP : 0,
			    "end %u: FCS scatter modify", i);
		VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "destroy WQ");
		VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0,
			    "destroy CQ");
	}
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/*
 * The port MTU: read and set through the entry points, within [68, max];
 * the send path takes frames up to MTU + 18 (header and a tag) and
 * completes longer ones with IBV_WC_LOC_LEN_ERR, following the MTU as it
 * changes.
 */
static int
test_port_mtu(void)
{
	static uint8_t f[2048];
	unsigned int mtu = 0, max = 0;
	struct vt_svenv e;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(softverbs_port_mtu(e.ctx[0], 1, &mtu, &max), 0, "mtu");
	VT_CHECK(mtu == 1500 && max == 9978, "1500, up to 9978: %u %u", mtu,
		 max);
	VT_CHECK_EQ(softverbs_port_mtu(e.ctx[0], 2, &mtu, &max), EINVAL,
		    "port 2");
	VT_CHECK_EQ(softverbs_port_set_mtu(e.ctx[0], 1, 9979), EINVAL, "9979");
	VT_CHECK_EQ(softverbs_port_set_mtu(e.ctx[0], 1, 67), EINVAL, "67");
	frame(f, 0, 0, 1518);
	VT_CHECK_EQ(xmit_status(&e, 0, f, 1518), IBV_WC_SUCCESS, "1518");
	VT_CHECK_EQ(xmit_status(&e, 0, f, 1519), IBV_WC_LOC_LEN_ERR, "1519");
	VT_CHECK_EQ(qp_reset(e.tx[0].qp), 0, "QP back");
	VT_CHECK_EQ(softverbs_port_set_mtu(e.ctx[0], 1, 1000), 0, "MTU 1000");
	VT_CHECK_EQ(softverbs_port_mtu(e.ctx[0], 1, &mtu, NULL), 0, "mtu");
	VT_CHECK_EQ(mtu, 1000, "reads back");
	VT_CHECK_EQ(xmit_status(&e, 0, f, 1018), IBV_WC_SUCCESS, "1018");
	VT_CHECK_EQ(xmit_status(&e, 0, f, 1019), IBV_WC_LOC_LEN_ERR, "1019");
	VT_CHECK_EQ(qp_reset(e.tx[0].qp), 0, "QP back");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/*
 * The pump pulls SV_RX_BATCH frames per ready receive WQ (up to
 * SV_RX_BATCH_WQS of them), so that frames spread by RSS over several
 * queues still come to each in bursts of about SV_RX_BATCH; WQ state
 * changes keep the count of ready WQs.
 */
static int
test_pump_batch(void)
{
	static const struct vt_svenv_cfg cfg4 = {
		.link_prefix = "svpump",
		.rss_key = rss_key,
		.nq = 4,
		.nbuf = 16,
		.rx_cqe = 64,
		.tx_wr = 64,
		.tx_slots = 16,
	};
	struct ibv_wq_attr ma = { .attr_mask = IBV_WQ_ATTR_STATE };
	static uint8_t f[64];
	struct sv_port *port;
	struct vt_svenv e;
	unsigned int i;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg4), 0, "fixture");
	port = &sv_ctx(e.ctx[1])->dev->port;
	VT_CHECK_EQ(port->rx_wqs_ready, 4, "4 WQs ready");
	frame(f, 0, 0, sizeof(f));
	for (i = 0; i < 300; i++)
		VT_CHECK_EQ(vt_svenv_xmit(&e, 0, f, sizeof(f)), 0, "tx %u", i);
	VT_CHECK_EQ(sv_port_pump(port), 4 * SV_RX_BATCH, "a pump, 4 WQs");
	ma.wq_state = IBV_WQS_RESET;
	VT_CHECK_EQ(ibv_modify_wq(e.q[0].wq, &ma), 0, "RDY -> RESET");
	ma.wq_state = IBV_WQS_ERR;
	VT_CHECK_EQ(ibv_modify_wq(e.q[1].wq, &ma), 0, "RDY -> ERR");
	VT_CHECK_EQ(port->rx_wqs_ready, 2, "2 WQs ready");
	VT_CHECK_EQ(sv_port_pump(port), 2 * SV_RX_BATCH, "a pump, 2 WQs");
	ma.wq_state = IBV_WQS_RESET;
	VT_CHECK_EQ(ibv_modify_wq(e.q[1].wq, &ma), 0, "ERR -> RESET");
	VT_CHECK_EQ(port->rx_wqs_ready, 2, "still 2");
	ma.wq_state = IBV_WQS_RDY;
	VT_CHECK_EQ(ibv_modify_wq(e.q[0].wq, &ma), 0, "RESET -> RDY");
	VT_CHECK_EQ(ibv_modify_wq(e.q[0].wq, &ma), 0, "RDY -> RDY");
	VT_CHECK_EQ(port->rx_wqs_ready, 3, "3 WQs ready");
	VT_CHECK_EQ(sv_port_pump(port), 3 * SV_RX_BATCH, "a pump, 3 WQs");
	VT_CHECK_EQ(sv_port_pump(port), 300 - 9 * SV_RX_BATCH, "the rest");
	VT_CHECK_EQ(sv_port_pump(port), 0, "nothing left");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* Link of an in-memory port: up with both ends, no speed of its own;
 * query_port answers as the mlx5 kernel does without a known speed. */
static int
test_port_link(void)
{
	struct sv_port_link link;
	struct ibv_port_attr pa;
	struct vt_svenv e;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(softverbs_port_link(e.ctx[0], 1, &link), 0, "link");
	VT_CHECK(link.up && link.full_duplex && link.speed_mbps == 0 &&
			 !link.autoneg,
		 "up, full duplex, speed unknown");
	VT_CHECK_EQ(softverbs_port_link(e.ctx[0], 3, &link), EINVAL, "port 3");
	VT_CHECK_EQ(ibv_query_port(e.ctx[0], 1, &pa), 0, "query_port");
	VT_CHECK(pa.active_speed == 4 && pa.active_width == 2,
		 "4X QDR (mlx5_query_port_roce's default): %u %u",
		 pa.active_speed, pa.active_width);
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_wq_vlan_strip), VT_CASE(test_wq_flags_refused),
	VT_CASE(test_port_mtu),	     VT_CASE(test_port_link),
	VT_CASE(test_pump_batch),    { 0 },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
