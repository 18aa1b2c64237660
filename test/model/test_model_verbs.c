/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The mlx5 model under rdma-core's own libibverbs and libmlx5: two
 * modelled ConnectX-5 devices wired to each other by an in-memory link
 * (mlx5_0 and mlx5_1), driven through the verbs and mlx5dv calls a raw
 * Ethernet application makes. Frames sent on mlx5_1's raw packet QP
 * arrive through mlx5_0's steering into its WQs; what each call answers
 * is what libmlx5 and the modelled kernel answer together.
 *
 * The program runs itself under devtools/mlx5-model:
 *   test_model_verbs --wrapper devtools/mlx5-model --lib libmlx5model.so
 */

#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "../vt_test.h"
#include "model_side.h"
#include "vsteer_netdev.h"

/* A rule taking frames to s's MAC into its hash QP, tagged, counted in
 * cnt when not NULL: the specs one after the other, as verbs.h lays
 * them out. */
static struct ibv_flow *
rule_dst(struct side *s, uint32_t tag, struct ibv_counters *cnt)
{
	uint64_t buf[64];
	struct ibv_flow_attr *attr = (void *)buf;
	struct ibv_flow_spec_eth eth = { 0 };
	struct ibv_flow_spec_action_tag t = { 0 };
	struct ibv_flow_spec_counter_action c = { 0 };
	uint8_t *p = (uint8_t *)(attr + 1);

	memset(buf, 0, sizeof(buf));
	attr->type = IBV_FLOW_ATTR_NORMAL;
	attr->port = 1;
	eth.type = IBV_FLOW_SPEC_ETH;
	eth.size = sizeof(eth);
	memcpy(eth.val.dst_mac, s->mac, 6);
	memset(eth.mask.dst_mac, 0xff, 6);
	memcpy(p, &eth, sizeof(eth));
	p += sizeof(eth);
	t.type = IBV_FLOW_SPEC_ACTION_TAG;
	t.size = sizeof(t);
	t.tag_id = tag;
	memcpy(p, &t, sizeof(t));
	p += sizeof(t);
	attr->num_of_specs = 2;
	if (cnt != NULL) {
		c.type = IBV_FLOW_SPEC_ACTION_COUNT;
		c.size = sizeof(c);
		c.counters = cnt;
		memcpy(p, &c, sizeof(c));
		p += sizeof(c);
		attr->num_of_specs++;
	}
	attr->size = (uint16_t)(p - (uint8_t *)attr);
	return ibv_create_flow(s->hqp, attr);
}

/* ---- cases ---- */

/* The process runs Debian's libmlx5 (and the model under it). */
static int
test_maps(void)
{
	struct side a;
	char line[512];
	bool mlx5 = false, model = false;
	FILE *f;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open: %s",
		 strerror(errno));
	f = fopen("/proc/self/maps", "r");
	VT_CHECK(f != NULL, "maps");
	while (fgets(line, sizeof(line), f) != NULL) {
		mlx5 |= strstr(line, "/libmlx5.so.1") != NULL;
		model |= strstr(line, "libmlx5model.so") != NULL;
	}
	fclose(f);
	side_close(&a);
	VT_CHECK(mlx5, "libmlx5.so.1 is not mapped");
	VT_CHECK(model, "libmlx5model.so is not mapped");
	return VT_OK;
}

/* Frames sent by mlx5_1 arrive on mlx5_0's WQ through a rule: payload,
 * length, the rule's tag; and never IBV_WC_IP_CSUM_OK on a WQ, which
 * libmlx5 reports for QP receive queues only (handle_responder_lazy()),
 * although the CQE says both checksums are good. */
static int
test_rx_tx(void)
{
	struct side a, b;
	uint8_t *frames[8];
	uint32_t lens[8];
	struct rx rx[16];
	struct ibv_flow *fl;
	unsigned int i, n;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open a");
	VT_CHECK(side_open(&b, "mlx5_1", false) == 0, "open b");
	VT_CHECK(side_rx(&a, 0) == 0, "rx: %s", strerror(errno));
	VT_CHECK(side_tx(&b, 64, 1) == 0, "tx: %s", strerror(errno));
	fl = rule_dst(&a, 0x1234, NULL);
	VT_CHECK(fl != NULL, "flow: %s", strerror(errno));
	for (i = 0; i < 8; i++) {
		frames[i] = b.mem + (size_t)(NBUF + i) * BUFSZ;
		lens[i] = make_udp(frames[i], a.mac, b.mac, 4000, 60 + i * 100,
				   (uint8_t)i);
	}
	VT_CHECK(send_frames(&b, frames, lens, 8) == 0, "send");
	n = poll_rx(&a, rx, 8);
	VT_CHECK_EQ(n, 8, "frames received");
	for (i = 0; i < n; i++) {
		VT_CHECK_EQ(rx[i].status, IBV_WC_SUCCESS, "status");
		VT_CHECK_EQ(rx[i].wr_id, i, "in posting order");
		VT_CHECK_EQ(rx[i].len, lens[i], "byte_len");
		VT_CHECK_EQ(rx[i].tag, 0x1234, "flow tag");
		VT_CHECK(!(rx[i].flags & IBV_WC_IP_CSUM_OK),
			 "IP_CSUM_OK on a WQ completion");
		VT_CHECK(memcmp(a.mem + rx[i].wr_id * BUFSZ, frames[i],
				lens[i]) == 0,
			 "frame %u bytes", i);
	}
	ibv_destroy_flow(fl);
	side_close(&b);
	side_close(&a);
	return VT_OK;
}

/* Post one frame in nsge pieces (the piece at bad under a key no memory
 * has, when bad < nsge), signalled; the status of its completion, or -1
 * when none comes. */
static int
send_pieces(struct side *s, const uint8_t *frame, uint32_t len,
	    unsigned int nsge, unsigned int bad)
{
	struct ibv_send_wr wr = { 0 }, *badwr;
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_sge sge[16];
	uint32_t off = 0, piece = len / nsge;
	unsigned int i, tries;

	for (i = 0; i < nsge; i++) {
		sge[i].addr = (uintptr_t)(frame + off);
		sge[i].length = i + 1 == nsge ? len - off : piece;
		sge[i].lkey = i == bad ? s->mr->lkey ^ 0x5a5a00 : s->mr->lkey;
		off += sge[i].length;
	}
	wr.wr_id = 7;
	wr.sg_list = sge;
	wr.num_sge = (int)nsge;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(s->sqp, &wr, &badwr) != 0)
		return -1;
	for (tries = 0; tries < 2000; tries++) {
		if (ibv_start_poll(s->cq, &pa) == 0) {
			int st = (int)s->cq->status;

			ibv_end_poll(s->cq);
			return st;
		}
		usleep(1000);
	}
	return -1;
}

/*
 * Frames in many pieces: libmlx5 writes one data segment per SGE after
 * the inline headers, and the frame leaves whole (more pieces than the
 * model's own send batches take are copied into one). Each piece's key
 * is the memory's: a key no registration has fails the WQE with a local
 * protection error, in a WQE of few pieces or of many.
 */
static int
test_tx_pieces(void)
{
	static const unsigned int pieces[] = { 3, 12, 16 };
	struct side a, b;
	uint8_t *frame;
	struct rx rx[4];
	struct ibv_flow *fl;
	unsigned int i, n;
	uint32_t len;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open a");
	VT_CHECK(side_open(&b, "mlx5_1", false) == 0, "open b");
	VT_CHECK(side_rx(&a, 0) == 0, "rx: %s", strerror(errno));
	VT_CHECK(side_tx(&b, 64, 16) == 0, "tx: %s", strerror(errno));
	fl = rule_dst(&a, 0x77, NULL);
	VT_CHECK(fl != NULL, "flow: %s", strerror(errno));
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		frame = b.mem + (size_t)(NBUF + i) * BUFSZ;
		len = make_udp(frame, a.mac, b.mac, 4000, 900 + i, (uint8_t)i);
		VT_CHECK_EQ(send_pieces(&b, frame, len, pieces[i], 99),
			    IBV_WC_SUCCESS, "%u pieces sent", pieces[i]);
		n = poll_rx(&a, rx, 1);
		VT_CHECK_EQ(n, 1, "%u pieces received", pieces[i]);
		VT_CHECK_EQ(rx[0].len, len, "byte_len");
		VT_CHECK(memcmp(a.mem + rx[0].wr_id * BUFSZ, frame, len) == 0,
			 "the frame of %u pieces, whole", pieces[i]);
	}
	ibv_destroy_qp(b.sqp);
	b.sqp = NULL;
	for (i = 0; i < 2; i++) {
		VT_CHECK(side_tx(&b, 64, 16) == 0, "tx: %s", strerror(errno));
		frame = b.mem + (size_t)NBUF * BUFSZ;
		len = make_udp(frame, a.mac, b.mac, 4000, 900, 0);
		VT_CHECK_EQ(send_pieces(&b, frame, len, pieces[i], 1),
			    IBV_WC_LOC_PROT_ERR,
			    "%u pieces, one under an unknown key", pieces[i]);
		ibv_destroy_qp(b.sqp);
		b.sqp = NULL;
	}
	VT_CHECK_EQ(poll_rx(&a, rx, 1), 0, "frames with a bad piece arrive");
	ibv_destroy_flow(fl);
	side_close(&b);
	side_close(&a);
	return VT_OK;
}

/* libmlx5 44 refuses any modify of a hash QP (mlx5_modify_qp(): "if
 * (mqp->rss_qp) return EOPNOTSUPP"), before the kernel. */
static int
test_hash_qp_modify(void)
{
	struct ibv_qp_attr qa = { .qp_state = IBV_QPS_INIT, .port_num = 1 };
	struct side a;
	int rc;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open");
	VT_CHECK(side_rx(&a, IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4) == 0,
		 "rx");
	rc = ibv_modify_qp(a.hqp, &qa, IBV_QP_STATE | IBV_QP_PORT);
	side_close(&a);
	VT_CHECK_EQ(rc, EOPNOTSUPP, "modify of a hash QP");
	return VT_OK;
}

/* Send queues are counted in 64-byte blocks (mlx5_calc_sq_size()): a
 * raw packet WQE with one SGE is one block (control 16, Ethernet with
 * 18 bytes of inline headers 32, a data segment 16), with two it is
 * two, so 32768 WRs fit in max_send_wqebb (32768) only with one. */
static int
test_sq_wqebb(void)
{
	struct side a;
	int ok1, ok2;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open");
	ok1 = side_tx(&a, 32768, 1) == 0;
	if (a.sqp != NULL) {
		ibv_destroy_qp(a.sqp);
		a.sqp = NULL;
	}
	errno = 0;
	ok2 = side_tx(&a, 32768, 2) == 0;
	if (a.sqp != NULL) {
		ibv_destroy_qp(a.sqp);
		a.sqp = NULL;
	}
	side_close(&a);
	VT_CHECK(ok1, "32768 WRs of one SGE");
	VT_CHECK(!ok2, "32768 WRs of two SGEs");
	return VT_OK;
}

/* Verbs counters: described by the flows that use them, while any does;
 * read only while bound (UVERBS_METHOD_COUNTERS_READ: usecnt). */
static int
test_counters(void)
{
	struct ibv_counter_attach_attr at = { 0 };
	struct ibv_counters_init_attr ci = { 0 };
	struct side a, b;
	struct ibv_counters *cnt;
	uint8_t *frames[4];
	uint32_t lens[4], total = 0;
	uint64_t v[2];
	struct rx rx[8];
	struct ibv_flow *fl;
	unsigned int i;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open a");
	VT_CHECK(side_open(&b, "mlx5_1", false) == 0, "open b");
	VT_CHECK(side_rx(&a, 0) == 0, "rx");
	VT_CHECK(side_tx(&b, 64, 1) == 0, "tx");
	cnt = ibv_create_counters(a.ctx, &ci);
	VT_CHECK(cnt != NULL, "counters: %s", strerror(errno));
	at.counter_desc = IBV_COUNTER_PACKETS;
	at.index = 0;
	VT_CHECK(ibv_attach_counters_point_flow(cnt, &at, NULL) == 0, "attach");
	at.counter_desc = IBV_COUNTER_BYTES;
	at.index = 1;
	VT_CHECK(ibv_attach_counters_point_flow(cnt, &at, NULL) == 0, "attach");
	/* Not bound yet: the kernel refuses the read. */
	VT_CHECK_EQ(ibv_read_counters(cnt, v, 2, 0), EINVAL, "read unbound");
	fl = rule_dst(&a, 7, cnt);
	VT_CHECK(fl != NULL, "flow: %s", strerror(errno));
	for (i = 0; i < 4; i++) {
		frames[i] = b.mem + (size_t)(NBUF + i) * BUFSZ;
		lens[i] = make_udp(frames[i], a.mac, b.mac, 53, 100 + i, 0);
		total += lens[i];
	}
	VT_CHECK(send_frames(&b, frames, lens, 4) == 0, "send");
	VT_CHECK_EQ(poll_rx(&a, rx, 4), 4, "received");
	VT_CHECK_EQ(ibv_read_counters(cnt, v, 2, 0), 0, "read");
	VT_CHECK_EQ(v[0], 4, "packets");
	VT_CHECK_EQ(v[1], total, "bytes");
	ibv_destroy_flow(fl);
	VT_CHECK_EQ(ibv_read_counters(cnt, v, 2, 0), EINVAL,
		    "read after the flow went");
	/* The description went with the last flow
	 * (mlx5_ib_counters_clear_description()): libmlx5 gives it again
	 * with the next one, and the kernel takes it. The values are the
	 * hardware counter's: they go on. */
	fl = rule_dst(&a, 7, cnt);
	VT_CHECK(fl != NULL, "a flow after the last one went: %s",
		 strerror(errno));
	VT_CHECK(send_frames(&b, frames, lens, 2) == 0, "send");
	VT_CHECK_EQ(poll_rx(&a, rx, 2), 2, "received");
	VT_CHECK_EQ(ibv_read_counters(cnt, v, 2, 0), 0, "read");
	VT_CHECK_EQ(v[0], 6, "packets, on from before");
	VT_CHECK_EQ(v[1], total + lens[0] + lens[1], "bytes");
	ibv_destroy_flow(fl);
	ibv_destroy_counters(cnt);
	side_close(&b);
	side_close(&a);
	return VT_OK;
}

/* A completion channel: an armed CQ raises one event at the next
 * completion; ibv_destroy_cq() then finds every event acknowledged. */
static int
test_events(void)
{
	struct side a, b;
	uint8_t *frames[1];
	uint32_t lens[1];
	struct ibv_cq *cq;
	struct pollfd pfd;
	struct ibv_flow *fl;
	struct rx rx[2];
	void *cq_ctx;

	VT_CHECK(side_open(&a, "mlx5_0", true) == 0, "open a");
	VT_CHECK(side_open(&b, "mlx5_1", false) == 0, "open b");
	VT_CHECK(side_rx(&a, 0) == 0, "rx");
	VT_CHECK(side_tx(&b, 64, 1) == 0, "tx");
	fl = rule_dst(&a, 1, NULL);
	VT_CHECK(fl != NULL, "flow");
	VT_CHECK(ibv_req_notify_cq(ibv_cq_ex_to_cq(a.cq), 0) == 0, "arm");
	pfd.fd = a.ch->fd;
	pfd.events = POLLIN;
	VT_CHECK_EQ(poll(&pfd, 1, 200), 0, "no event before a completion");
	frames[0] = b.mem + (size_t)NBUF * BUFSZ;
	lens[0] = make_udp(frames[0], a.mac, b.mac, 9, 32, 0);
	VT_CHECK(send_frames(&b, frames, lens, 1) == 0, "send");
	VT_CHECK_EQ(poll(&pfd, 1, 3000), 1, "the event wakes the channel");
	VT_CHECK(ibv_get_cq_event(a.ch, &cq, &cq_ctx) == 0, "get event");
	VT_CHECK(cq == ibv_cq_ex_to_cq(a.cq), "the event names the CQ");
	ibv_ack_cq_events(cq, 1);
	VT_CHECK_EQ(poll(&pfd, 1, 0), 0, "one event per arming");
	VT_CHECK_EQ(poll_rx(&a, rx, 1), 1, "the completion");
	ibv_destroy_flow(fl);
	side_close(&b);
	side_close(&a);
	return VT_OK;
}

/* DevX: QUERY_HCA_CAP's general page describes the ConnectX-5. */
static int
test_devx_caps(void)
{
	uint32_t in[4] = { 0 }, out[4 + 1024] = { 0 };
	struct side a;
	uint32_t w;
	int rc;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open");
	in[0] = __builtin_bswap32(0x100u << 16); /* QUERY_HCA_CAP */
	in[1] = __builtin_bswap32(1);		 /* general, current */
	rc = mlx5dv_devx_general_cmd(a.ctx, in, sizeof(in), out, sizeof(out));
	side_close(&a);
	VT_CHECK_EQ(rc, 0, "QUERY_HCA_CAP");
	VT_CHECK_EQ(__builtin_bswap32(out[0]) >> 24, 0, "status");
	/* log_max_qp_sz: bits 0x88..0x8f of the page (byte 17). */
	w = __builtin_bswap32(out[4 + 4]);
	VT_CHECK_EQ((w >> 16) & 0xff, 15, "log_max_qp_sz");
	return VT_OK;
}

/*
 * The port's netdev (mlx5m0 on an in-memory link) through the driver's
 * own queries: its MTU range is mlx5e's (max_mtu 9978, in route
 * netlink's IFLA_MAX_MTU), SIOCSIFMTU beyond it is refused (EINVAL,
 * dev_validate_mtu()) and a value within it is taken.
 */
static int
test_netdev(void)
{
	unsigned int mtu = 0, max = 0;

	VT_CHECK(if_nametoindex("mlx5m0") != 0, "interface index");
	VT_CHECK_EQ(vsteer_netdev_max_mtu("mlx5m0", &max), 0, "RTM_GETLINK");
	VT_CHECK_EQ(max, 9978u, "IFLA_MAX_MTU");
	VT_CHECK_EQ(vsteer_netdev_mtu("mlx5m0", &mtu), 0, "SIOCGIFMTU");
	VT_CHECK_EQ(mtu, 1500u, "MTU");
	VT_CHECK_EQ(vsteer_netdev_set_mtu("mlx5m0", 9979), EINVAL, "MTU 9979");
	VT_CHECK_EQ(vsteer_netdev_set_mtu("mlx5m0", 9000), 0, "MTU 9000");
	VT_CHECK_EQ(vsteer_netdev_mtu("mlx5m0", &mtu), 0, "SIOCGIFMTU");
	VT_CHECK_EQ(mtu, 9000u, "MTU after the change");
	VT_CHECK_EQ(vsteer_netdev_set_mtu("mlx5m0", 1500), 0, "MTU back");
	/* A netdev no device has: the kernel's answer. */
	VT_CHECK_EQ(vsteer_netdev_max_mtu("mlx5m9", &max), ENODEV,
		    "no such interface");
	return VT_OK;
}

/*
 * What net_mlx5 asks of DevX beside its verbs queues: a transport domain
 * and a TIS (numbers, destroyed with their objects), and through a raw
 * packet QP's handle, QUERY_TIS of the QP's own TIS (its number from
 * mlx5dv_init_obj()) for its transport domain; another TIS number is
 * not the QP's (devx_is_valid_obj_id(): EINVAL).
 */
static int
test_devx_objects(void)
{
	uint32_t in[4] = { 0 }, out[4] = { 0 }, qin[4] = { 0 }, qout[44];
	struct mlx5dv_devx_obj *td, *tis;
	struct mlx5dv_obj dv = { 0 };
	struct mlx5dv_qp dqp = { 0 };
	uint32_t tdn, tisn;
	struct side b;

	VT_CHECK(side_open(&b, "mlx5_1", false) == 0, "open");
	in[0] = __builtin_bswap32(0x816u << 16); /* ALLOC_TRANSPORT_DOMAIN */
	td = mlx5dv_devx_obj_create(b.ctx, in, sizeof(in), out, sizeof(out));
	VT_CHECK(td != NULL, "transport domain: %s", strerror(errno));
	tdn = __builtin_bswap32(out[2]) & 0xffffff;
	VT_CHECK(tdn != 0, "transport domain number");
	memset(in, 0, sizeof(in));
	in[0] = __builtin_bswap32(0x912u << 16); /* CREATE_TIS */
	tis = mlx5dv_devx_obj_create(b.ctx, in, sizeof(in), out, sizeof(out));
	VT_CHECK(tis != NULL, "TIS: %s", strerror(errno));
	tisn = __builtin_bswap32(out[2]) & 0xffffff;
	VT_CHECK(tisn != 0 && tisn != tdn, "TIS number");
	VT_CHECK(side_tx(&b, 64, 1) == 0, "tx: %s", strerror(errno));
	dqp.comp_mask = MLX5DV_QP_MASK_RAW_QP_HANDLES;
	dv.qp.in = b.sqp;
	dv.qp.out = &dqp;
	VT_CHECK_EQ(mlx5dv_init_obj(&dv, MLX5DV_OBJ_QP), 0, "init_obj");
	VT_CHECK(dqp.comp_mask & MLX5DV_QP_MASK_RAW_QP_HANDLES,
		 "QP's TIS number");
	qin[0] = __builtin_bswap32(0x915u << 16); /* QUERY_TIS */
	qin[2] = __builtin_bswap32(dqp.tisn);
	memset(qout, 0, sizeof(qout));
	VT_CHECK_EQ(mlx5dv_devx_qp_query(b.sqp, qin, sizeof(qin), qout,
					 sizeof(qout)),
		    0, "QUERY_TIS of the QP's TIS");
	VT_CHECK_EQ(__builtin_bswap32(qout[0]) >> 24, 0, "status");
	/* tisc.transport_domain: bits 0x128.. of the context at 0x80. */
	VT_CHECK((__builtin_bswap32(qout[4 + 9]) & 0xffffff) != 0,
		 "the TIS's transport domain");
	qin[2] = __builtin_bswap32(tisn);
	VT_CHECK_EQ(mlx5dv_devx_qp_query(b.sqp, qin, sizeof(qin), qout,
					 sizeof(qout)),
		    EINVAL, "another TIS through the QP");
	VT_CHECK_EQ(mlx5dv_devx_obj_destroy(tis), 0, "destroy TIS");
	VT_CHECK_EQ(mlx5dv_devx_obj_destroy(td), 0, "destroy TD");
	side_close(&b);
	return VT_OK;
}

/*
 * TSO: libmlx5 writes an IBV_WR_TSO as a TSO WQE (its header inline in the
 * Ethernet segment, the MSS beside it); the device cuts the payload into
 * frames of MSS bytes behind copies of the header, sequence numbers
 * advancing. 350 bytes by 100: four frames.
 */
static int
test_tso(void)
{
	struct ibv_qp_init_attr_ex qa = { 0 };
	struct ibv_qp_attr m = { 0 };
	struct ibv_send_wr wr = { 0 }, *bad;
	struct ibv_poll_cq_attr pa = { 0 };
	struct ibv_sge sge;
	struct side a, b;
	struct rx rx[8];
	struct ibv_flow *fl;
	uint8_t *f, *got;
	uint32_t seq, i, n, tries;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open a");
	VT_CHECK(side_open(&b, "mlx5_1", false) == 0, "open b");
	VT_CHECK(side_rx(&a, 0) == 0, "rx");
	qa.qp_type = IBV_QPT_RAW_PACKET;
	qa.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	qa.pd = b.pd;
	qa.send_cq = ibv_cq_ex_to_cq(b.cq);
	qa.recv_cq = ibv_cq_ex_to_cq(b.cq);
	qa.cap.max_send_wr = 16;
	qa.cap.max_send_sge = 1;
	qa.max_tso_header = 64;
	b.sqp = ibv_create_qp_ex(b.ctx, &qa);
	VT_CHECK(b.sqp != NULL, "TSO QP: %s", strerror(errno));
	m.qp_state = IBV_QPS_INIT;
	m.port_num = 1;
	VT_CHECK_EQ(ibv_modify_qp(b.sqp, &m, IBV_QP_STATE | IBV_QP_PORT), 0,
		    "INIT");
	m.qp_state = IBV_QPS_RTR;
	VT_CHECK_EQ(ibv_modify_qp(b.sqp, &m, IBV_QP_STATE), 0, "RTR");
	m.qp_state = IBV_QPS_RTS;
	VT_CHECK_EQ(ibv_modify_qp(b.sqp, &m, IBV_QP_STATE), 0, "RTS");
	fl = rule_dst(&a, 9, NULL);
	VT_CHECK(fl != NULL, "flow");
	/* A TCP header (54 bytes with Ethernet and IPv4), then 350 bytes. */
	f = b.mem + (size_t)NBUF * BUFSZ;
	make_udp(f, a.mac, b.mac, 80, 12 + 350, 7);
	f[14 + 9] = 6; /* TCP */
	memset(f + 34, 0, 20);
	f[34 + 12] = 5 << 4; /* data offset */
	f[34 + 13] = 0x18;   /* PSH ACK */
	f[34 + 4] = 0x01;    /* sequence number 0x01000000 */
	sge.addr = (uintptr_t)(f + 54);
	sge.length = 350;
	sge.lkey = b.mr->lkey;
	wr.wr_id = 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_TSO;
	wr.send_flags = IBV_SEND_SIGNALED | IBV_SEND_IP_CSUM;
	wr.tso.hdr = f;
	wr.tso.hdr_sz = 54;
	wr.tso.mss = 100;
	VT_CHECK_EQ(ibv_post_send(b.sqp, &wr, &bad), 0, "post TSO");
	for (tries = 0; tries < 2000; tries++) {
		if (ibv_start_poll(b.cq, &pa) == 0)
			break;
		usleep(1000);
	}
	VT_CHECK(tries < 2000, "TSO completion");
	VT_CHECK_EQ(b.cq->status, IBV_WC_SUCCESS, "TSO status");
	ibv_end_poll(b.cq);
	n = poll_rx(&a, rx, 8);
	VT_CHECK_EQ(n, 4, "frames of 350 bytes by 100");
	for (i = 0; i < n; i++) {
		got = a.mem + rx[i].wr_id * BUFSZ;
		VT_CHECK_EQ(rx[i].len, 54 + (i < 3 ? 100 : 50), "frame length");
		seq = (uint32_t)got[38] << 24 | (uint32_t)got[39] << 16 |
		      (uint32_t)got[40] << 8 | got[41];
		VT_CHECK_EQ(seq, 0x01000000u + 100 * i, "sequence number");
		VT_CHECK(memcmp(got + 54, f + 54 + 100 * i, i < 3 ? 100 : 50) ==
				 0,
			 "frame %u payload", i);
	}
	ibv_destroy_flow(fl);
	side_close(&b);
	side_close(&a);
	return VT_OK;
}

/* The raw clock, from libmlx5's mapping of the core clock page. */
static uint64_t
raw_clock(struct ibv_context *ctx)
{
	struct ibv_values_ex v = { .comp_mask = IBV_VALUES_MASK_RAW_CLOCK };

	if (ibv_query_rt_values_ex(ctx, &v) != 0 ||
	    !(v.comp_mask & IBV_VALUES_MASK_RAW_CLOCK))
		return 0;
	return (uint64_t)v.raw_clock.tv_sec * 1000000000u +
	       (uint64_t)v.raw_clock.tv_nsec;
}

/*
 * Completion timestamps: a CQ made with IBV_WC_EX_WITH_COMPLETION_TIMESTAMP
 * (the kernel takes the flag: check_cq_create_flags()) reads the device's
 * free-running clock in each receive completion; frames sent 20 ms apart
 * are that many ticks of hca_core_clock apart, and the clock libmlx5
 * reads from the core clock page (ibv_query_rt_values_ex()) runs with
 * them.
 */
static int
test_timestamps(void)
{
	struct ibv_device_attr_ex attr;
	struct ibv_poll_cq_attr pa = { 0 };
	uint64_t ts[4], t0, t1, khz, gap;
	struct side a, b;
	struct ibv_flow *fl;
	uint8_t *frame;
	uint32_t len;
	unsigned int i, tries;

	side_ts = true;
	i = side_open(&a, "mlx5_0", false) == 0;
	side_ts = false;
	VT_CHECK(i, "open a (CQ with timestamps): %s", strerror(errno));
	VT_CHECK(side_open(&b, "mlx5_1", false) == 0, "open b");
	VT_CHECK_EQ(ibv_query_device_ex(a.ctx, NULL, &attr), 0, "query");
	khz = attr.hca_core_clock;
	VT_CHECK(khz != 0 && attr.completion_timestamp_mask != 0,
		 "a device clock: %" PRIu64 " kHz", khz);
	VT_CHECK(side_rx(&a, 0) == 0, "rx");
	VT_CHECK(side_tx(&b, 64, 1) == 0, "tx");
	fl = rule_dst(&a, 5, NULL);
	VT_CHECK(fl != NULL, "flow");
	frame = b.mem + (size_t)NBUF * BUFSZ;
	len = make_udp(frame, a.mac, b.mac, 4000, 100, 0);
	t0 = raw_clock(a.ctx);
	VT_CHECK(t0 != 0, "raw clock");
	for (i = 0; i < 4; i++) {
		VT_CHECK(send_frames(&b, &frame, &len, 1) == 0, "send");
		for (tries = 0; tries < 1000; tries++) {
			if (ibv_start_poll(a.cq, &pa) == 0)
				break;
			usleep(1000);
		}
		VT_CHECK(tries < 1000, "frame %u received", i);
		VT_CHECK_EQ(a.cq->status, IBV_WC_SUCCESS, "status");
		ts[i] = ibv_wc_read_completion_ts(a.cq);
		ibv_end_poll(a.cq);
		usleep(20000);
	}
	t1 = raw_clock(a.ctx);
	VT_CHECK(t0 <= ts[0], "clock %" PRIu64 " before frame at %" PRIu64, t0,
		 ts[0]);
	for (i = 1; i < 4; i++) {
		gap = ts[i] - ts[i - 1];
		/* 20 ms and what the sends and polls take, well under 200. */
		VT_CHECK(ts[i] > ts[i - 1] && gap >= 20 * khz &&
				 gap < 200 * khz,
			 "gap %u: %" PRIu64 " ticks at %" PRIu64 " kHz", i, gap,
			 khz);
	}
	/* The page follows the engine's rounds (it may sleep 1 ms). */
	VT_CHECK(t1 + 2 * khz >= ts[3] && t1 < ts[3] + 1000 * khz,
		 "clock %" PRIu64 " after the last frame at %" PRIu64, t1,
		 ts[3]);
	ibv_destroy_flow(fl);
	side_close(&b);
	side_close(&a);
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_maps),
	VT_CASE(test_rx_tx),
	VT_CASE(test_hash_qp_modify),
	VT_CASE(test_sq_wqebb),
	VT_CASE(test_counters),
	VT_CASE(test_events),
	VT_CASE(test_devx_caps),
	VT_CASE(test_netdev),
	VT_CASE(test_tx_pieces),
	VT_CASE(test_devx_objects),
	VT_CASE(test_timestamps),
	VT_CASE(test_tso),
	{ 0 },
};

int
main(int argc, char **argv)
{
	return model_main(argc, argv, cases, NULL);
}
