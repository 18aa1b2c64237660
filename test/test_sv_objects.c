/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The softverbs object model, clause by clause of the verbs man pages:
 * devices, PDs and MRs, CQs, WQs and indirection tables, QPs and their
 * state machine, ibv_post_send(), counters.
 *
 * Each case opens its own "mem:" device. Where an application would call
 * an inline verb of <infiniband/verbs.h> (ibv_create_cq_ex, ibv_create_wq,
 * ibv_post_send, ibv_start_poll, ...) the test does too, so the dispatch
 * through the objects' function pointers is tested with them; exported
 * libibverbs entry points are called by their softverbs names. The other
 * end of the link is opened as a bare wire to see what went out, or to
 * send frames in.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sched.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sv_internal.h"
#include "vt_test.h"

#define RTE_DIM(a) (sizeof(a) / sizeof((a)[0]))

struct tdev {
	char name[64];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
};

static int
tdev_open_opts(struct tdev *d, const char *wire,
	       const struct sv_device_opts *opts)
{
	struct ibv_device **list;
	int i, n, rc;

	memset(d, 0, sizeof(*d));
	rc = softverbs_device_add(wire, opts, d->name, sizeof(d->name));
	if (rc != 0)
		return rc;
	list = sv_get_device_list(&n);
	if (list == NULL)
		return errno;
	for (i = 0; i < n; i++)
		if (strcmp(sv_get_device_name(list[i]), d->name) == 0)
			d->ctx = sv_open_device(list[i]);
	sv_free_device_list(list);
	if (d->ctx == NULL)
		return ENODEV;
	d->pd = sv_alloc_pd(d->ctx);
	return d->pd == NULL ? errno : 0;
}

static int
tdev_open(struct tdev *d, const char *wire, enum sv_profile profile)
{
	struct sv_device_opts opts = { .profile = profile };

	return tdev_open_opts(d, wire, &opts);
}

/* Everything the case created must be gone for this to succeed. */
static int
tdev_close(struct tdev *d)
{
	int rc;

	rc = sv_dealloc_pd(d->pd);
	if (rc != 0)
		return rc;
	rc = sv_close_device(d->ctx);
	if (rc != 0)
		return rc;
	return softverbs_device_remove(d->name);
}

#define CQ_FLAGS                                             \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_FLOW_TAG | \
	 IBV_WC_EX_WITH_QP_NUM | IBV_WC_EX_WITH_CVLAN)

static struct ibv_cq_ex *
mk_cq(struct tdev *d, uint32_t cqe)
{
	struct ibv_cq_init_attr_ex a = { .cqe = cqe, .wc_flags = CQ_FLAGS };

	return ibv_create_cq_ex(d->ctx, &a);
}

struct wc {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t flow_tag;
	uint32_t qp_num;
	unsigned int wc_flags;
	uint16_t cvlan;
};

/* Drain a CQ as an application does: start / next / end. */
static int
poll_all(struct ibv_cq_ex *cq, struct wc *out, int max)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	int n = 0, rc;

	rc = ibv_start_poll(cq, &pa);
	if (rc == ENOENT)
		return 0;
	if (rc != 0)
		return -rc;
	do {
		out[n].wr_id = cq->wr_id;
		out[n].status = cq->status;
		out[n].opcode = ibv_wc_read_opcode(cq);
		out[n].byte_len = ibv_wc_read_byte_len(cq);
		out[n].flow_tag = ibv_wc_read_flow_tag(cq);
		out[n].qp_num = ibv_wc_read_qp_num(cq);
		out[n].wc_flags = ibv_wc_read_wc_flags(cq);
		out[n].cvlan = ibv_wc_read_cvlan(cq);
		n++;
	} while (n < max && ibv_next_poll(cq) == 0);
	ibv_end_poll(cq);
	return n;
}

static struct ibv_qp *
mk_send_qp(struct tdev *d, struct ibv_cq_ex *cq, uint32_t max_wr,
	   uint32_t max_sge, uint32_t max_inline, int sig_all)
{
	struct ibv_qp_init_attr_ex a;

	memset(&a, 0, sizeof(a));
	a.send_cq = ibv_cq_ex_to_cq(cq);
	a.recv_cq = ibv_cq_ex_to_cq(cq);
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.cap.max_send_wr = max_wr;
	a.cap.max_send_sge = max_sge;
	a.cap.max_inline_data = max_inline;
	a.sq_sig_all = sig_all;
	/* CREATE_FLAGS (0) keeps verbs.h from routing the call to the
	 * exported ibv_create_qp(). */
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS;
	a.pd = d->pd;
	return ibv_create_qp_ex(d->ctx, &a);
}

static int
qp_to(struct ibv_qp *qp, enum ibv_qp_state s, int mask, uint8_t port)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = s;
	a.port_num = port;
	return sv_modify_qp(qp, &a, mask);
}

static int
qp_rts(struct ibv_qp *qp)
{
	int rc = qp_to(qp, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PORT, 1);

	if (rc == 0)
		rc = qp_to(qp, IBV_QPS_RTR, IBV_QP_STATE, 0);
	if (rc == 0)
		rc = qp_to(qp, IBV_QPS_RTS, IBV_QP_STATE, 0);
	return rc;
}

static enum ibv_qp_state
qp_state(struct ibv_qp *qp)
{
	struct ibv_qp_init_attr init;
	struct ibv_qp_attr a;

	if (sv_query_qp(qp, &a, IBV_QP_STATE, &init) != 0)
		return (enum ibv_qp_state) - 1;
	return a.qp_state;
}

/* ---- the bare wire at the far end ---- */

struct rxbuf {
	unsigned int n;
	uint32_t len[16];
	uint8_t data[16][2048];
};

static void
rx_collect(void *arg, const uint8_t *frame, uint32_t len)
{
	struct rxbuf *b = arg;

	if (b->n < RTE_DIM(b->len) && len <= sizeof(b->data[0])) {
		memcpy(b->data[b->n], frame, len);
		b->len[b->n] = len;
		b->n++;
	}
}

static unsigned int
peer_rx(struct sv_wire *w, struct rxbuf *b)
{
	memset(b, 0, sizeof(*b));
	sv_wire_rx(w, RTE_DIM(b->len), rx_collect, b);
	return b->n;
}

/* An Ethernet + IPv4 + UDP frame with zero checksums. */
static uint32_t
mk_udp4(uint8_t *f, uint32_t payload, uint8_t fill)
{
	uint32_t len = 14 + 20 + 8 + payload;

	memset(f, 0, len);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)((len - 14) >> 8);
	f[17] = (uint8_t)(len - 14);
	f[22] = 64;
	f[23] = IPPROTO_UDP;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[34] = 0x04;
	f[35] = 0xd2;
	f[36] = 0x16;
	f[37] = 0x2e;
	f[38] = (uint8_t)((8 + payload) >> 8);
	f[39] = (uint8_t)(8 + payload);
	memset(f + 42, fill, payload);
	return len;
}

/* ---- devices ---- */

static int
test_device_list_open_close(void)
{
	struct ibv_device **list;
	struct ibv_context *ctx;
	char n0[64], n1[64], tiny[4];
	struct ibv_pd *pd;
	int i, n, found = 0;

	VT_CHECK_EQ(softverbs_device_add("mem:objdev", NULL, n0, sizeof(n0)), 0,
		    "first end");
	VT_CHECK(strcmp(n0, "mem:objdev.0") == 0, "name %s", n0);
	VT_CHECK_EQ(softverbs_device_add("mem:objdev", NULL, n1, sizeof(n1)), 0,
		    "second end");
	VT_CHECK(strcmp(n1, "mem:objdev.1") == 0, "name %s", n1);
	VT_CHECK_EQ(softverbs_device_add("mem:objdev", NULL, NULL, 0), EBUSY,
		    "a link has two ends");
	VT_CHECK_EQ(softverbs_device_add("eth0", NULL, NULL, 0), EINVAL,
		    "wire spec without prefix");
	VT_CHECK_EQ(softverbs_device_add("if:svnosuch0", NULL, NULL, 0), ENODEV,
		    "no such interface");
	VT_CHECK_EQ(softverbs_device_add("mem:objdev2", NULL, tiny,
					 sizeof(tiny)),
		    ENAMETOOLONG, "name buffer too small");

	list = sv_get_device_list(&n);
	VT_CHECK(list != NULL && list[n] == NULL, "NULL-terminated list");
	for (i = 0; i < n; i++)
		if (strcmp(sv_get_device_name(list[i]), n0) == 0)
			found = i + 1;
	VT_CHECK(found > 0, "device listed");
	ctx = sv_open_device(list[found - 1]);
	VT_CHECK(ctx != NULL, "open");
	VT_CHECK(ctx->device == list[found - 1], "context of the device");
	/* Removing a listed device leaves the list readable. */
	VT_CHECK_EQ(softverbs_device_remove(n1), 0, "remove unopened");
	sv_free_device_list(list);
	VT_CHECK_EQ(softverbs_device_remove(n1), ENODEV, "already removed");

	/* The ops the inline verbs look up are present. */
	VT_CHECK(verbs_get_ctx(ctx) != NULL, "extended context");
	VT_CHECK(verbs_get_ctx_op(ctx, query_port) != NULL, "query_port");
	VT_CHECK(verbs_get_ctx_op(ctx, query_device_ex) != NULL, "qdev_ex");
	VT_CHECK(verbs_get_ctx_op(ctx, create_cq_ex) != NULL, "cq_ex");
	VT_CHECK(verbs_get_ctx_op(ctx, create_wq) != NULL, "create_wq");
	VT_CHECK(verbs_get_ctx_op(ctx, modify_wq) != NULL, "modify_wq");
	VT_CHECK(verbs_get_ctx_op(ctx, destroy_wq) != NULL, "destroy_wq");
	VT_CHECK(verbs_get_ctx_op(ctx, create_rwq_ind_table) != NULL, "ind");
	VT_CHECK(verbs_get_ctx_op(ctx, destroy_rwq_ind_table) != NULL, "ind");
	VT_CHECK(verbs_get_ctx_op(ctx, create_qp_ex) != NULL, "qp_ex");
	VT_CHECK(verbs_get_ctx_op(ctx, ibv_create_flow) != NULL, "flow");
	VT_CHECK(verbs_get_ctx_op(ctx, ibv_destroy_flow) != NULL, "flow");
	VT_CHECK(verbs_get_ctx_op(ctx, create_counters) != NULL, "counters");
	VT_CHECK(verbs_get_ctx_op(ctx, destroy_counters) != NULL, "counters");
	VT_CHECK(verbs_get_ctx_op(ctx, attach_counters_point_flow) != NULL,
		 "attach");
	VT_CHECK(verbs_get_ctx_op(ctx, read_counters) != NULL, "read");
	VT_CHECK(ctx->ops.post_send == sv_post_send, "post_send");
	VT_CHECK(ctx->ops.poll_cq == sv_poll_cq, "poll_cq");
	VT_CHECK(verbs_get_ctx_op(ctx, alloc_td) != NULL, "alloc_td");
	VT_CHECK(verbs_get_ctx_op(ctx, dealloc_td) != NULL, "dealloc_td");
	VT_CHECK(verbs_get_ctx_op(ctx, alloc_parent_domain) != NULL,
		 "alloc_parent_domain");
	/* Not implemented: the inline wrapper says so. */
	VT_CHECK(ibv_alloc_dm(ctx,
			      &(struct ibv_alloc_dm_attr){ .length = 64 }) ==
				 NULL &&
			 errno == EOPNOTSUPP,
		 "no device memory");

	pd = sv_alloc_pd(ctx);
	VT_CHECK(pd != NULL, "pd");
	VT_CHECK_EQ(sv_close_device(ctx), EBUSY, "close with a live PD");
	VT_CHECK_EQ(softverbs_device_remove(n0), EBUSY, "remove while open");
	VT_CHECK_EQ(sv_dealloc_pd(pd), 0, "dealloc");
	VT_CHECK_EQ(sv_close_device(ctx), 0, "close");
	VT_CHECK_EQ(softverbs_device_remove(n0), 0, "remove");
	return VT_OK;
}

static int
test_query_device(void)
{
	struct ibv_query_device_ex_input in = { .comp_mask = 1 };
	struct ibv_device_attr_ex ax;
	struct ibv_device_attr a;
	struct tdev d;

	VT_CHECK_EQ(tdev_open(&d, "mem:objq", SV_PROFILE_GENERIC), 0, "open");
	VT_CHECK_EQ(sv_query_device(d.ctx, &a), 0, "query_device");
	VT_CHECK_EQ(a.max_qp, SV_MAX_QP, "max_qp");
	VT_CHECK_EQ(a.max_qp_wr, SV_MAX_QP_WR, "max_qp_wr");
	VT_CHECK_EQ(a.max_sge, SV_MAX_SGE, "max_sge");
	VT_CHECK_EQ(a.max_cqe, SV_MAX_CQE, "max_cqe");
	VT_CHECK_EQ(a.max_mr, SV_MAX_MR, "max_mr");
	VT_CHECK_EQ(a.max_pd, SV_MAX_PD, "max_pd");
	VT_CHECK_EQ(a.phys_port_cnt, 1, "one port");
	VT_CHECK(a.device_cap_flags & IBV_DEVICE_RAW_IP_CSUM, "csum cap");

	memset(&ax, 0xa5, sizeof(ax));
	VT_CHECK_EQ(ibv_query_device_ex(d.ctx, NULL, &ax), 0, "query_ex");
	VT_CHECK(memcmp(&ax.orig_attr, &a, sizeof(a)) == 0, "orig_attr");
	VT_CHECK_EQ(ax.rss_caps.rx_hash_function, IBV_RX_HASH_FUNC_TOEPLITZ,
		    "Toeplitz");
	VT_CHECK_EQ(ax.rss_caps.max_rwq_indirection_table_size,
		    1u << SV_MAX_IND_LOG, "table size");
	VT_CHECK(ax.rss_caps.supported_qpts & (1u << IBV_QPT_RAW_PACKET),
		 "RSS on raw packet QPs");
	VT_CHECK_EQ(ax.rss_caps.rx_hash_fields_mask,
		    IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
			    IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6 |
			    IBV_RX_HASH_SRC_PORT_TCP |
			    IBV_RX_HASH_DST_PORT_TCP |
			    IBV_RX_HASH_SRC_PORT_UDP |
			    IBV_RX_HASH_DST_PORT_UDP | IBV_RX_HASH_INNER,
		    "hash fields");
	VT_CHECK_EQ(ax.raw_packet_caps,
		    IBV_RAW_PACKET_CAP_IP_CSUM |
			    IBV_RAW_PACKET_CAP_CVLAN_STRIPPING,
		    "raw caps");
	VT_CHECK_EQ(ax.max_wq_type_rq, SV_MAX_WQ, "max WQs");
	VT_CHECK_EQ(ax.tso_caps.max_tso, 0, "no TSO claimed");
	VT_CHECK_EQ(ibv_query_device_ex(d.ctx, &in, &ax), EINVAL,
		    "input comp_mask");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

static int
test_query_port(void)
{
	struct ibv_port_attr pa;
	struct sv_wire *peer;
	uint8_t mac[6], pmac[6];
	struct tdev d;
	int end;

	VT_CHECK_EQ(tdev_open(&d, "mem:objport", SV_PROFILE_GENERIC), 0,
		    "open");
	/* ibv_query_port is an inline that goes to the context's op. */
	VT_CHECK_EQ(ibv_query_port(d.ctx, 1, &pa), 0, "query_port");
	VT_CHECK_EQ(pa.state, IBV_PORT_DOWN, "other end not open: down");
	VT_CHECK_EQ(pa.link_layer, IBV_LINK_LAYER_ETHERNET, "Ethernet");
	VT_CHECK_EQ(sv_wire_open("mem:objport", &peer, &end, pmac), 0, "peer");
	VT_CHECK_EQ(ibv_query_port(d.ctx, 1, &pa), 0, "query_port");
	VT_CHECK_EQ(pa.state, IBV_PORT_ACTIVE, "both ends open: active");
	/* 1500-byte wire: the largest verbs MTU that fits is 1024. */
	VT_CHECK_EQ(pa.active_mtu, IBV_MTU_1024, "active_mtu");
	VT_CHECK_EQ(sv_wire_set_mtu(sv_ctx(d.ctx)->dev->port.wire, 9000), 0,
		    "jumbo");
	VT_CHECK_EQ(sv_query_port(d.ctx, 1, &pa), 0, "query_port");
	VT_CHECK_EQ(pa.active_mtu, IBV_MTU_4096, "active_mtu jumbo");
	VT_CHECK_EQ(ibv_query_port(d.ctx, 2, &pa), EINVAL, "port 2");
	VT_CHECK_EQ(ibv_query_port(d.ctx, 0, &pa), EINVAL, "port 0");
	VT_CHECK_EQ(softverbs_port_mac(d.ctx, 1, mac), 0, "mac");
	VT_CHECK(memcmp(mac, pmac, 6) != 0, "ends differ");
	VT_CHECK_EQ(softverbs_port_mac(d.ctx, 2, mac), EINVAL, "mac port 2");
	sv_wire_close(peer);
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* ---- PD and MR ---- */

static int
test_mr(void)
{
	static uint8_t buf[8192];
	struct ibv_mr *mr, *mr2;
	struct ibv_pd *pd2;
	struct sv_context *sctx;
	uint32_t old;
	void *hole;
	long pg = sysconf(_SC_PAGESIZE);
	struct tdev d;

	VT_CHECK_EQ(tdev_open(&d, "mem:objmr", SV_PROFILE_GENERIC), 0, "open");
	sctx = sv_ctx(d.ctx);
	VT_CHECK(sv_reg_mr(d.pd, buf, sizeof(buf), 1 << 15) == NULL &&
			 errno == EINVAL,
		 "unknown access bit");
	VT_CHECK(sv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_REMOTE_WRITE) ==
				 NULL &&
			 errno == EINVAL,
		 "remote write needs local write");
	VT_CHECK(sv_reg_mr(d.pd, buf, sizeof(buf), IBV_ACCESS_ON_DEMAND) ==
				 NULL &&
			 errno == EOPNOTSUPP,
		 "no ODP");
	VT_CHECK(sv_reg_mr(d.pd, buf, 0, 0) == NULL && errno == EINVAL,
		 "empty");
	hole = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	VT_CHECK(hole != MAP_FAILED, "mmap");
	VT_CHECK_EQ(munmap((char *)hole + pg, (size_t)pg), 0, "munmap");
	VT_CHECK(sv_reg_mr(d.pd, hole, (size_t)pg * 2, 0) == NULL &&
			 errno == EFAULT,
		 "range not mapped");
	munmap(hole, (size_t)pg);

	mr = sv_reg_mr(d.pd, buf, sizeof(buf),
		       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
	VT_CHECK(mr != NULL, "reg (optional bit ignored)");
	VT_CHECK(mr->addr == buf && mr->length == sizeof(buf) && mr->pd == d.pd,
		 "fields");
	VT_CHECK(sv_mr_lookup(sctx, mr->lkey, (uintptr_t)buf, sizeof(buf)) ==
			 sv_container_of(mr, struct sv_mr, mr),
		 "whole range");
	VT_CHECK(sv_mr_lookup(sctx, mr->lkey, (uintptr_t)buf + 100, 1) != NULL,
		 "inside");
	VT_CHECK(sv_mr_lookup(sctx, mr->lkey, (uintptr_t)buf - 1, 2) == NULL,
		 "starts before");
	VT_CHECK(sv_mr_lookup(sctx, mr->lkey, (uintptr_t)buf + sizeof(buf) - 1,
			      2) == NULL,
		 "ends after");
	VT_CHECK(sv_mr_lookup(sctx, mr->lkey, (uintptr_t)buf,
			      sizeof(buf) + 1) == NULL,
		 "longer");
	VT_CHECK(sv_mr_lookup(sctx, mr->lkey ^ 1, (uintptr_t)buf, 1) == NULL,
		 "other generation");
	VT_CHECK(sv_mr_lookup(sctx, 0xffffffff, (uintptr_t)buf, 1) == NULL,
		 "index out of table");
	VT_CHECK_EQ(sv_dealloc_pd(d.pd), EBUSY, "PD with an MR");
	old = mr->lkey;
	VT_CHECK_EQ(sv_dereg_mr(mr), 0, "dereg");
	VT_CHECK(sv_mr_lookup(sctx, old, (uintptr_t)buf, 1) == NULL,
		 "stale lkey");
	/* The slot is reused under a new key: the old one stays dead. */
	pd2 = sv_alloc_pd(d.ctx);
	VT_CHECK(pd2 != NULL, "pd2");
	mr2 = sv_reg_mr(pd2, buf, sizeof(buf), 0);
	VT_CHECK(mr2 != NULL, "reg again");
	VT_CHECK(mr2->lkey != old, "new key");
	VT_CHECK(sv_mr_lookup(sctx, old, (uintptr_t)buf, 1) == NULL,
		 "old key still dead");
	VT_CHECK_EQ(sv_dereg_mr(mr2), 0, "dereg");
	VT_CHECK_EQ(sv_dealloc_pd(pd2), 0, "dealloc pd2");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* ---- CQ ---- */

static int
test_cq(void)
{
	struct ibv_cq_init_attr_ex a;
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	struct ibv_cq_ex *cqx;
	struct ibv_cq *cq;
	struct sv_cqe e;
	struct ibv_wc wc[4];
	struct tdev d;
	int i;

	VT_CHECK_EQ(tdev_open(&d, "mem:objcq", SV_PROFILE_GENERIC), 0, "open");
	memset(&a, 0, sizeof(a));
	VT_CHECK(ibv_create_cq_ex(d.ctx, &a) == NULL && errno == EINVAL,
		 "cqe 0");
	a.cqe = SV_MAX_CQE + 1;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &a) == NULL && errno == EINVAL,
		 "cqe beyond max_cqe");
	a.cqe = 100;
	a.wc_flags = IBV_WC_EX_WITH_COMPLETION_TIMESTAMP;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &a) == NULL && errno == EOPNOTSUPP,
		 "no device clock");
	a.wc_flags = 1ull << 40;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &a) == NULL && errno == EOPNOTSUPP,
		 "unknown wc flag");
	a.wc_flags = 0;
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &a) == NULL && errno == EINVAL,
		 "no parent domain given");
	a.parent_domain = d.pd;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &a) == NULL && errno == EINVAL,
		 "a protection domain is not a parent domain");
	a.parent_domain = NULL;
	a.comp_mask = 1u << 7;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &a) == NULL && errno == EOPNOTSUPP,
		 "unknown comp_mask bit");
	a.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	a.flags = 1u << 7;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &a) == NULL && errno == EOPNOTSUPP,
		 "unknown flag");
	a.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	a.comp_vector = 1;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &a) == NULL && errno == EINVAL,
		 "comp_vector beyond num_comp_vectors");
	a.comp_vector = 0;
	a.wc_flags = IBV_WC_EX_WITH_BYTE_LEN;
	cqx = ibv_create_cq_ex(d.ctx, &a);
	VT_CHECK(cqx != NULL, "create");
	VT_CHECK_EQ(cqx->cqe, 128, "size rounded up to a power of two");
	VT_CHECK(cqx->read_flow_tag == NULL, "flow tag not asked for");
	VT_CHECK(cqx->read_byte_len != NULL, "byte len asked for");
	VT_CHECK_EQ(ibv_start_poll(cqx, &pa), ENOENT, "empty");

	/* Completions come out in order, with their fields. */
	for (i = 0; i < 3; i++) {
		memset(&e, 0, sizeof(e));
		e.wr_id = 100 + (uint64_t)i;
		e.status = i == 1 ? IBV_WC_LOC_LEN_ERR : IBV_WC_SUCCESS;
		e.opcode = IBV_WC_RECV;
		e.byte_len = 60 + (uint32_t)i;
		VT_CHECK(sv_cq_push(sv_cq_from_ibv(ibv_cq_ex_to_cq(cqx)), &e),
			 "push");
	}
	VT_CHECK_EQ(ibv_start_poll(cqx, &pa), 0, "start");
	VT_CHECK_EQ(cqx->wr_id, 100, "first");
	VT_CHECK_EQ(ibv_wc_read_byte_len(cqx), 60, "len");
	VT_CHECK_EQ(ibv_wc_read_opcode(cqx), IBV_WC_RECV, "opcode");
	VT_CHECK_EQ(ibv_next_poll(cqx), 0, "next");
	VT_CHECK_EQ(cqx->wr_id, 101, "second");
	VT_CHECK_EQ(cqx->status, IBV_WC_LOC_LEN_ERR, "status");
	VT_CHECK(ibv_wc_read_vendor_err(cqx) != 0, "vendor_err on error");
	ibv_end_poll(cqx);
	VT_CHECK_EQ(ibv_start_poll(cqx, &pa), 0, "start again");
	VT_CHECK_EQ(cqx->wr_id, 102, "third, the second was consumed");
	VT_CHECK_EQ(ibv_next_poll(cqx), ENOENT, "drained");
	ibv_end_poll(cqx);
	VT_CHECK_EQ(ibv_start_poll(cqx, &pa), ENOENT, "empty again");
	pa.comp_mask = 1;
	VT_CHECK_EQ(ibv_start_poll(cqx, &pa), EINVAL, "poll attr comp_mask");

	/* A full CQ refuses completions (overrun). */
	for (i = 0; i < 128; i++)
		VT_CHECK(sv_cq_push(sv_cq_from_ibv(ibv_cq_ex_to_cq(cqx)), &e),
			 "push %d", i);
	VT_CHECK(!sv_cq_push(sv_cq_from_ibv(ibv_cq_ex_to_cq(cqx)), &e),
		 "overrun");
	pa.comp_mask = 0;
	VT_CHECK_EQ(ibv_start_poll(cqx, &pa), 0, "start");
	for (i = 1; i < 128 && ibv_next_poll(cqx) == 0; i++)
		;
	ibv_end_poll(cqx);
	VT_CHECK_EQ(i, 128, "all 128 kept");
	VT_CHECK(sv_cq_push(sv_cq_from_ibv(ibv_cq_ex_to_cq(cqx)), &e),
		 "room after polling");

	/* A plain CQ is polled with ibv_poll_cq, an inline verb. */
	cq = sv_create_cq(d.ctx, 4, NULL, NULL, 0);
	VT_CHECK(cq != NULL, "plain cq");
	VT_CHECK(sv_create_cq(d.ctx, 0, NULL, NULL, 0) == NULL &&
			 errno == EINVAL,
		 "plain cq, 0 entries");
	VT_CHECK_EQ(ibv_poll_cq(cq, 4, wc), 0, "empty");
	memset(&e, 0, sizeof(e));
	e.wr_id = 7;
	e.opcode = IBV_WC_SEND;
	e.qp_num = 33;
	VT_CHECK(sv_cq_push(sv_cq_from_ibv(cq), &e), "push");
	e.wr_id = 8;
	VT_CHECK(sv_cq_push(sv_cq_from_ibv(cq), &e), "push");
	VT_CHECK_EQ(ibv_poll_cq(cq, 1, wc), 1, "one");
	VT_CHECK(wc[0].wr_id == 7 && wc[0].opcode == IBV_WC_SEND &&
			 wc[0].qp_num == 33 && wc[0].status == IBV_WC_SUCCESS,
		 "wc");
	VT_CHECK_EQ(ibv_poll_cq(cq, 4, wc), 1, "the rest");
	VT_CHECK_EQ(wc[0].wr_id, 8, "second");
	VT_CHECK_EQ(sv_destroy_cq(cq), 0, "destroy plain");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cqx)), 0, "destroy");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* ---- WQ ---- */

static struct ibv_wq *
mk_wq(struct tdev *d, struct ibv_cq_ex *cq, uint32_t max_wr, uint32_t max_sge)
{
	struct ibv_wq_init_attr a = {
		.wq_type = IBV_WQT_RQ,
		.max_wr = max_wr,
		.max_sge = max_sge,
		.pd = d->pd,
		.cq = ibv_cq_ex_to_cq(cq),
	};

	return ibv_create_wq(d->ctx, &a);
}

static int
wq_to(struct ibv_wq *wq, enum ibv_wq_state s)
{
	struct ibv_wq_attr a = { .attr_mask = IBV_WQ_ATTR_STATE,
				 .wq_state = s };

	return ibv_modify_wq(wq, &a);
}

static int
test_wq_create_modify(void)
{
	struct ibv_wq_init_attr a;
	struct ibv_wq_attr ma;
	struct ibv_recv_wr wr[3], *bad;
	struct ibv_sge sge[3];
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct wc w[16];
	struct tdev d;
	uint8_t frame[64];
	int i;

	VT_CHECK_EQ(tdev_open(&d, "mem:objwq", SV_PROFILE_GENERIC), 0, "open");
	cq = mk_cq(&d, 64);
	VT_CHECK(cq != NULL, "cq");
	memset(&a, 0, sizeof(a));
	a.wq_type = (enum ibv_wq_type)1;
	a.max_wr = 8;
	a.max_sge = 1;
	a.pd = d.pd;
	a.cq = ibv_cq_ex_to_cq(cq);
	VT_CHECK(ibv_create_wq(d.ctx, &a) == NULL && errno == EINVAL,
		 "only IBV_WQT_RQ");
	a.wq_type = IBV_WQT_RQ;
	a.max_wr = 0;
	VT_CHECK(ibv_create_wq(d.ctx, &a) == NULL && errno == EINVAL,
		 "max_wr 0");
	a.max_wr = SV_MAX_QP_WR + 1;
	VT_CHECK(ibv_create_wq(d.ctx, &a) == NULL && errno == EINVAL,
		 "max_wr beyond the device");
	a.max_wr = 5;
	a.max_sge = SV_MAX_SGE + 1;
	VT_CHECK(ibv_create_wq(d.ctx, &a) == NULL && errno == EINVAL,
		 "max_sge beyond the device");
	a.max_sge = 2;
	a.comp_mask = IBV_WQ_INIT_ATTR_FLAGS;
	a.create_flags = IBV_WQ_FLAGS_SCATTER_FCS;
	VT_CHECK(ibv_create_wq(d.ctx, &a) == NULL && errno == EOPNOTSUPP,
		 "creation flags the device lacks");
	a.comp_mask = 0;
	a.wq_context = &a;
	wq = ibv_create_wq(d.ctx, &a);
	VT_CHECK(wq != NULL, "create");
	VT_CHECK(a.max_wr >= 5 && a.max_sge >= 2, "actual values written back");
	VT_CHECK_EQ(a.max_wr, 8, "ring of 8");
	VT_CHECK_EQ(wq->state, IBV_WQS_RESET, "starts in RESET");
	VT_CHECK(wq->wq_context == &a && wq->cq == ibv_cq_ex_to_cq(cq),
		 "fields");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), EBUSY, "CQ in use");

	/* ibv_modify_wq */
	memset(&ma, 0, sizeof(ma));
	ma.attr_mask = IBV_WQ_ATTR_RESERVED;
	VT_CHECK_EQ(ibv_modify_wq(wq, &ma), EINVAL, "unknown attr_mask");
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_ERR), EINVAL, "RESET -> ERR");
	ma.attr_mask = IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE;
	ma.wq_state = IBV_WQS_RDY;
	ma.curr_wq_state = IBV_WQS_RDY;
	VT_CHECK_EQ(ibv_modify_wq(wq, &ma), EINVAL, "wrong current state");
	VT_CHECK_EQ(wq->state, IBV_WQS_RESET, "unchanged");
	ma.attr_mask = IBV_WQ_ATTR_FLAGS;
	ma.flags_mask = IBV_WQ_FLAGS_SCATTER_FCS;
	VT_CHECK_EQ(ibv_modify_wq(wq, &ma), EOPNOTSUPP, "flags");

	/* Posting is allowed in RESET; nothing is delivered there. */
	memset(frame, 0x11, sizeof(frame));
	for (i = 0; i < 3; i++) {
		sge[i].addr = 0x1000;
		sge[i].length = 64;
		sge[i].lkey = 1;
		wr[i].wr_id = (uint64_t)i;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	wr[1].num_sge = 3;
	bad = NULL;
	VT_CHECK_EQ(ibv_post_wq_recv(wq, wr, &bad), EINVAL, "num_sge > max");
	VT_CHECK(bad == &wr[1], "bad_wr is the second WR");
	VT_CHECK_EQ(sv_wq_deliver(sv_container_of(wq, struct sv_wq, wq), frame,
				  sizeof(frame), NULL, 0),
		    EAGAIN, "no delivery in RESET");
	wr[1].num_sge = 1;
	wr[2].next = NULL;
	bad = NULL;
	/* 1 posted + 3 + 3 + ... up to the ring of 8. */
	VT_CHECK_EQ(ibv_post_wq_recv(wq, &wr[1], &bad), 0, "two more");
	VT_CHECK_EQ(ibv_post_wq_recv(wq, wr, &bad), 0, "three more");
	bad = NULL;
	VT_CHECK_EQ(ibv_post_wq_recv(wq, wr, &bad), ENOMEM, "queue full");
	VT_CHECK(bad == &wr[2], "the WR that did not fit");

	VT_CHECK_EQ(wq_to(wq, IBV_WQS_RDY), 0, "RESET -> RDY");
	/* Error flushes every posted WR. */
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_ERR), 0, "RDY -> ERR");
	VT_CHECK_EQ(poll_all(cq, w, 16), 8, "flushed");
	for (i = 0; i < 8; i++)
		VT_CHECK_EQ(w[i].status, IBV_WC_WR_FLUSH_ERR, "flush %d", i);
	VT_CHECK(w[0].wr_id == 0 && w[1].wr_id == 1 && w[7].wr_id == 1,
		 "in posting order");
	wr[0].next = NULL;
	VT_CHECK_EQ(ibv_post_wq_recv(wq, wr, &bad), 0, "post in ERR");
	VT_CHECK_EQ(poll_all(cq, w, 16), 1, "flushed at once");
	VT_CHECK_EQ(w[0].status, IBV_WC_WR_FLUSH_ERR, "flush");
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_RDY), EINVAL, "ERR -> RDY");
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_RESET), 0, "ERR -> RESET");
	/* Back in RESET the ring is empty: 8 fit again. */
	for (i = 0; i < 8; i++) {
		wr[0].next = NULL;
		VT_CHECK_EQ(ibv_post_wq_recv(wq, wr, &bad), 0, "post %d", i);
	}
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_RDY), 0, "RESET -> RDY");
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_RESET), 0, "RDY -> RESET drops WRs");
	VT_CHECK_EQ(poll_all(cq, w, 16), 0, "without completions");
	VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "destroy");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "destroy cq");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* sv_wq_deliver: scatter, protection, length, tags. */
static int
test_wq_deliver(void)
{
	static uint8_t mem[4096], ro[256];
	struct sv_actions act = { .has_tag = true, .tag = 0x123456 };
	struct ibv_recv_wr wr[5], *bad;
	struct ibv_sge sge[6];
	struct ibv_mr *mr, *mr_ro;
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct sv_wq *swq;
	uint8_t frame[100];
	struct wc w[8];
	struct tdev d;
	int i;

	VT_CHECK_EQ(tdev_open(&d, "mem:objdlv", SV_PROFILE_GENERIC), 0, "open");
	cq = mk_cq(&d, 16);
	wq = mk_wq(&d, cq, 8, 2);
	VT_CHECK(cq != NULL && wq != NULL, "cq, wq");
	swq = sv_container_of(wq, struct sv_wq, wq);
	mr = sv_reg_mr(d.pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	/* Receive buffers need local write access. */
	mr_ro = sv_reg_mr(d.pd, ro, sizeof(ro), 0);
	VT_CHECK(mr != NULL && mr_ro != NULL, "mrs");
	for (i = 0; i < 100; i++)
		frame[i] = (uint8_t)i;
	frame[12] = 0x81; /* 802.1Q, TCI 0x2064 */
	frame[13] = 0x00;
	frame[14] = 0x20;
	frame[15] = 0x64;

	memset(wr, 0, sizeof(wr));
	/* 0: two SGEs of 60 + 60 bytes */
	sge[0] = (struct ibv_sge){ (uintptr_t)mem, 60, mr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)mem + 1000, 60, mr->lkey };
	/* 1: runs past the end of the MR */
	sge[2] = (struct ibv_sge){ (uintptr_t)mem + 4000, 200, mr->lkey };
	/* 2: read-only memory */
	sge[3] = (struct ibv_sge){ (uintptr_t)ro, 200, mr_ro->lkey };
	/* 3: too small for the frame */
	sge[4] = (struct ibv_sge){ (uintptr_t)mem + 2000, 99, mr->lkey };
	/* 4: fine */
	sge[5] = (struct ibv_sge){ (uintptr_t)mem + 3000, 128, mr->lkey };
	wr[0].sg_list = &sge[0];
	wr[0].num_sge = 2;
	for (i = 1; i < 5; i++) {
		wr[i].sg_list = &sge[i + 1];
		wr[i].num_sge = 1;
	}
	for (i = 0; i < 5; i++) {
		wr[i].wr_id = 10 + (uint64_t)i;
		wr[i].next = i < 4 ? &wr[i + 1] : NULL;
	}
	VT_CHECK_EQ(ibv_post_wq_recv(wq, wr, &bad), 0, "post");
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_RDY), 0, "RDY");
	for (i = 0; i < 5; i++)
		VT_CHECK_EQ(sv_wq_deliver(swq, frame, sizeof(frame),
					  i == 4 ? NULL : &act,
					  IBV_WC_IP_CSUM_OK),
			    0, "deliver %d", i);
	VT_CHECK_EQ(sv_wq_deliver(swq, frame, sizeof(frame), &act, 0), ENOBUFS,
		    "nothing posted");
	VT_CHECK_EQ(poll_all(cq, w, 8), 5, "five completions");
	VT_CHECK(w[0].wr_id == 10 && w[0].status == IBV_WC_SUCCESS &&
			 w[0].opcode == IBV_WC_RECV && w[0].byte_len == 100 &&
			 w[0].flow_tag == 0x123456 &&
			 w[0].wc_flags == IBV_WC_IP_CSUM_OK &&
			 w[0].qp_num == wq->wq_num,
		 "scattered");
	/* The tag stays in the frame: no TCI without stripping (the CQE's
	 * vlan_info is only valid for a stripped frame). */
	VT_CHECK_EQ(w[0].cvlan, 0, "no VLAN TCI without stripping");
	VT_CHECK(memcmp(mem, frame, 60) == 0 &&
			 memcmp(mem + 1000, frame + 60, 40) == 0,
		 "bytes across SGEs");
	VT_CHECK_EQ(mem[1040], 0, "nothing past the frame");
	VT_CHECK(w[1].wr_id == 11 && w[1].status == IBV_WC_LOC_PROT_ERR,
		 "SGE outside the MR: %d", w[1].status);
	VT_CHECK(w[2].wr_id == 12 && w[2].status == IBV_WC_LOC_PROT_ERR,
		 "MR without local write");
	VT_CHECK_EQ(ro[0], 0, "read-only memory untouched");
	VT_CHECK(w[3].wr_id == 13 && w[3].status == IBV_WC_LOC_LEN_ERR,
		 "buffer too small");
	VT_CHECK(w[4].wr_id == 14 && w[4].status == IBV_WC_SUCCESS &&
			 w[4].flow_tag == 0 &&
			 memcmp(mem + 3000, frame, 100) == 0,
		 "errors leave the WQ ready; no tag without a TAG action");
	VT_CHECK_EQ(wq->state, IBV_WQS_RDY, "still ready");

	/* A buffer of another PD is not ours to write. */
	{
		struct ibv_pd *pd2 = sv_alloc_pd(d.ctx);
		struct ibv_mr *mr2 = sv_reg_mr(pd2, mem, sizeof(mem),
					       IBV_ACCESS_LOCAL_WRITE);

		VT_CHECK(mr2 != NULL, "mr2");
		sge[0] = (struct ibv_sge){ (uintptr_t)mem, 128, mr2->lkey };
		wr[0].num_sge = 1;
		wr[0].next = NULL;
		VT_CHECK_EQ(ibv_post_wq_recv(wq, wr, &bad), 0, "post");
		VT_CHECK_EQ(sv_wq_deliver(swq, frame, 100, NULL, 0), 0, "dlv");
		VT_CHECK_EQ(poll_all(cq, w, 8), 1, "one");
		VT_CHECK_EQ(w[0].status, IBV_WC_LOC_PROT_ERR, "other PD");
		VT_CHECK_EQ(sv_dereg_mr(mr2), 0, "dereg");
		VT_CHECK_EQ(sv_dealloc_pd(pd2), 0, "dealloc");
	}
	VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "destroy wq");
	VT_CHECK_EQ(sv_dereg_mr(mr), 0, "dereg");
	VT_CHECK_EQ(sv_dereg_mr(mr_ro), 0, "dereg");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "destroy cq");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/*
 * mlx5: a receive error stops the WQ on the device (a ConnectX moves the
 * RQ to error; mlx5e and DPDK's mlx5 reset it): the WQEs behind the error
 * complete flushed, buffers posted meanwhile too, frames find no buffer,
 * a MODIFY to ready or of the flags is refused, while the verbs state
 * still says RDY; RESET then RDY brings it back. Length and protection
 * errors alike.
 */
static int
test_wq_error_state(void)
{
	static uint8_t mem[4096];
	struct ibv_wq_attr ma = { .attr_mask = IBV_WQ_ATTR_FLAGS,
				  .flags_mask = IBV_WQ_FLAGS_CVLAN_STRIPPING };
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct sv_wq *swq;
	struct ibv_mr *mr;
	uint8_t frame[300];
	struct wc w[16];
	unsigned int i, round;
	struct tdev d;

	VT_CHECK_EQ(tdev_open(&d, "mem:objwqe", SV_PROFILE_MLX5), 0, "open");
	cq = mk_cq(&d, 16);
	wq = mk_wq(&d, cq, 8, 1);
	mr = sv_reg_mr(d.pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	VT_CHECK(cq != NULL && wq != NULL && mr != NULL, "objects");
	swq = sv_container_of(wq, struct sv_wq, wq);
	memset(frame, 0x5a, sizeof(frame));
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_RDY), 0, "RDY");
	for (round = 0; round < 2; round++) {
		/* Four buffers of 256 bytes; round 1 posts the second one
		 * with a key of nothing (a protection error). */
		for (i = 0; i < 4; i++) {
			sge = (struct ibv_sge){ (uintptr_t)mem + 256 * i, 256,
						mr->lkey };
			if (round == 1 && i == 1)
				sge.lkey = mr->lkey + 1000;
			wr.wr_id = i;
			VT_CHECK_EQ(ibv_post_wq_recv(wq, &wr, &bad), 0, "post");
		}
		VT_CHECK_EQ(sv_wq_deliver(swq, frame, 100, NULL, 0), 0, "fits");
		VT_CHECK_EQ(sv_wq_deliver(swq, frame, round == 0 ? 300 : 100,
					  NULL, 0),
			    0, "round %u: the error", round);
		VT_CHECK_EQ(poll_all(cq, w, 16), 4, "round %u: four", round);
		VT_CHECK(w[0].wr_id == 0 && w[0].status == IBV_WC_SUCCESS,
			 "the first fits");
		VT_CHECK_EQ(w[1].status,
			    round == 0 ? IBV_WC_LOC_LEN_ERR :
					 IBV_WC_LOC_PROT_ERR,
			    "round %u: the error", round);
		VT_CHECK(w[2].wr_id == 2 &&
				 w[2].status == IBV_WC_WR_FLUSH_ERR &&
				 w[3].wr_id == 3 &&
				 w[3].status == IBV_WC_WR_FLUSH_ERR,
			 "the rest flushed");
		VT_CHECK_EQ(wq->state, IBV_WQS_RDY, "software still says RDY");
		VT_CHECK_EQ(sv_wq_deliver(swq, frame, 100, NULL, 0), ENOBUFS,
			    "no buffer while in error");
		sge = (struct ibv_sge){ (uintptr_t)mem, 256, mr->lkey };
		wr.wr_id = 9;
		VT_CHECK_EQ(ibv_post_wq_recv(wq, &wr, &bad), 0, "post");
		VT_CHECK_EQ(poll_all(cq, w, 16), 1, "flushed as posted");
		VT_CHECK(w[0].wr_id == 9 && w[0].status == IBV_WC_WR_FLUSH_ERR,
			 "the new buffer flushed");
		VT_CHECK_EQ(wq_to(wq, IBV_WQS_RDY), EINVAL, "not ready again");
		VT_CHECK_EQ(ibv_modify_wq(wq, &ma), EINVAL, "nor its flags");
		VT_CHECK_EQ(wq_to(wq, IBV_WQS_RESET), 0, "RESET");
		VT_CHECK_EQ(wq_to(wq, IBV_WQS_RDY), 0, "RDY");
		wr.wr_id = 10;
		VT_CHECK_EQ(ibv_post_wq_recv(wq, &wr, &bad), 0, "post");
		VT_CHECK_EQ(sv_wq_deliver(swq, frame, 100, NULL, 0), 0,
			    "round %u: receives again", round);
		VT_CHECK_EQ(poll_all(cq, w, 16), 1, "one");
		VT_CHECK(w[0].wr_id == 10 && w[0].status == IBV_WC_SUCCESS,
			 "round %u: after the reset", round);
	}
	VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "destroy wq");
	VT_CHECK_EQ(sv_dereg_mr(mr), 0, "dereg");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "destroy cq");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* ---- indirection tables and hash QPs ---- */

static struct ibv_qp *
mk_hash_qp(struct tdev *d, struct ibv_rwq_ind_table *ind, uint64_t fields,
	   uint8_t key_len)
{
	static uint8_t key[64];
	struct ibv_qp_init_attr_ex a;
	unsigned int i;

	/* Any key but zero, which hashes everything to entry 0. */
	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0x6d + i * 29);
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
		      IBV_QP_INIT_ATTR_RX_HASH;
	a.pd = d->pd;
	a.rwq_ind_tbl = ind;
	a.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	a.rx_hash_conf.rx_hash_key_len = key_len;
	a.rx_hash_conf.rx_hash_key = key;
	a.rx_hash_conf.rx_hash_fields_mask = fields;
	return ibv_create_qp_ex(d->ctx, &a);
}

#define F_V4 (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)
#define F_V6 (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6)
#define F_TCP (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)
#define F_UDP (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)

static int
test_ind_table(void)
{
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_rwq_ind_table *ind;
	struct ibv_wq *wqs[2], *tbl[2], *other_wq;
	struct ibv_cq_ex *cq, *other_cq;
	struct ibv_qp *qp;
	struct tdev d, o;

	VT_CHECK_EQ(tdev_open(&d, "mem:objind", SV_PROFILE_GENERIC), 0, "open");
	VT_CHECK_EQ(tdev_open(&o, "mem:objind", SV_PROFILE_GENERIC), 0,
		    "other context");
	cq = mk_cq(&d, 16);
	other_cq = mk_cq(&o, 16);
	wqs[0] = mk_wq(&d, cq, 4, 1);
	wqs[1] = mk_wq(&d, cq, 4, 1);
	other_wq = mk_wq(&o, other_cq, 4, 1);
	VT_CHECK(wqs[0] && wqs[1] && other_wq, "wqs");

	memset(&ia, 0, sizeof(ia));
	ia.log_ind_tbl_size = SV_MAX_IND_LOG + 1;
	ia.ind_tbl = wqs;
	VT_CHECK(ibv_create_rwq_ind_table(d.ctx, &ia) == NULL &&
			 errno == EINVAL,
		 "larger than max_rwq_indirection_table_size");
	ia.log_ind_tbl_size = 1;
	tbl[0] = wqs[0];
	tbl[1] = other_wq;
	ia.ind_tbl = tbl;
	VT_CHECK(ibv_create_rwq_ind_table(d.ctx, &ia) == NULL &&
			 errno == EINVAL,
		 "WQ of another context");
	tbl[1] = NULL;
	VT_CHECK(ibv_create_rwq_ind_table(d.ctx, &ia) == NULL &&
			 errno == EINVAL,
		 "missing entry");
	ia.ind_tbl = wqs;
	ia.comp_mask = 1;
	VT_CHECK(ibv_create_rwq_ind_table(d.ctx, &ia) == NULL &&
			 errno == EOPNOTSUPP,
		 "comp_mask");
	ia.comp_mask = 0;
	ind = ibv_create_rwq_ind_table(d.ctx, &ia);
	VT_CHECK(ind != NULL, "create");
	VT_CHECK_EQ(ibv_destroy_wq(wqs[1]), EBUSY, "WQ in a table");

	/* Hash QP creation rules (generic profile where it matters). */
	VT_CHECK(mk_hash_qp(&d, ind, F_V4, 32) == NULL && errno == EINVAL,
		 "key length must be 40");
	VT_CHECK(mk_hash_qp(&d, ind, IBV_RX_HASH_IPSEC_SPI, 40) == NULL &&
			 errno == EOPNOTSUPP,
		 "field not in rx_hash_fields_mask");
	qp = mk_hash_qp(&d, ind, F_V4 | F_TCP, 40);
	VT_CHECK(qp != NULL, "hash QP");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind), EBUSY, "table in use");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy qp");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind), 0, "destroy table");
	VT_CHECK_EQ(ibv_destroy_wq(wqs[1]), 0, "WQ free again");
	VT_CHECK_EQ(ibv_destroy_wq(wqs[0]), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_wq(other_wq), 0, "destroy");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "cq");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(other_cq)), 0, "cq");
	VT_CHECK_EQ(tdev_close(&o), 0, "close");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

static int
hash_qp_rules(enum sv_profile profile, const char *wire)
{
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_rwq_ind_table *ind1, *ind2;
	struct ibv_qp_init_attr_ex a;
	bool mlx5 = profile == SV_PROFILE_MLX5;
	struct ibv_qp *qp, *q[3];
	struct ibv_wq *wqs[2];
	struct ibv_cq_ex *cq;
	static uint8_t key[40];
	struct tdev d;
	int i;

	VT_CHECK_EQ(tdev_open(&d, wire, profile), 0, "open");
	cq = mk_cq(&d, 16);
	wqs[0] = mk_wq(&d, cq, 4, 1);
	wqs[1] = mk_wq(&d, cq, 4, 1);
	memset(&ia, 0, sizeof(ia));
	ia.ind_tbl = wqs;
	ind1 = ibv_create_rwq_ind_table(d.ctx, &ia);
	ia.log_ind_tbl_size = 1;
	ind2 = ibv_create_rwq_ind_table(d.ctx, &ia);
	VT_CHECK(ind1 != NULL && ind2 != NULL, "tables");

	/* Both profiles: the kernel's create_rss_raw_qp_tir checks. */
	memset(&a, 0, sizeof(a));
	a.qp_type = IBV_QPT_UD;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
		      IBV_QP_INIT_ATTR_RX_HASH;
	a.pd = d.pd;
	a.rwq_ind_tbl = ind2;
	a.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	a.rx_hash_conf.rx_hash_key_len = 40;
	a.rx_hash_conf.rx_hash_key = key;
	a.rx_hash_conf.rx_hash_fields_mask = F_V4;
	VT_CHECK(ibv_create_qp_ex(d.ctx, &a) == NULL && errno == EOPNOTSUPP,
		 "raw packet only");
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.rx_hash_conf.rx_hash_function = 2;
	VT_CHECK(ibv_create_qp_ex(d.ctx, &a) == NULL && errno == EOPNOTSUPP,
		 "Toeplitz only");
	a.rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	a.send_cq = ibv_cq_ex_to_cq(cq);
	VT_CHECK(ibv_create_qp_ex(d.ctx, &a) == NULL && errno == EINVAL,
		 "no send queue on a hash QP");
	a.send_cq = NULL;
	a.cap.max_recv_wr = 4;
	VT_CHECK(ibv_create_qp_ex(d.ctx, &a) == NULL && errno == EINVAL,
		 "no receive queue on a hash QP");
	a.cap.max_recv_wr = 0;
	a.comp_mask &= ~(uint32_t)IBV_QP_INIT_ATTR_IND_TABLE;
	VT_CHECK(ibv_create_qp_ex(d.ctx, &a) == NULL && errno == EINVAL,
		 "RX_HASH without IND_TABLE");

	/* Profile-dependent: one L3 family, one L4 protocol, and fields
	 * only with a single-entry table (verbs-steering facts 2.2). */
	q[0] = mk_hash_qp(&d, ind2, F_V4 | F_V6, 40);
	VT_CHECK(mlx5 ? q[0] == NULL && errno == EINVAL : q[0] != NULL,
		 "IPv4 + IPv6 fields");
	q[1] = mk_hash_qp(&d, ind2, F_V4 | F_TCP | F_UDP, 40);
	VT_CHECK(mlx5 ? q[1] == NULL && errno == EINVAL : q[1] != NULL,
		 "TCP + UDP fields");
	q[2] = mk_hash_qp(&d, ind2, 0, 40);
	VT_CHECK(mlx5 ? q[2] == NULL && errno == EINVAL : q[2] != NULL,
		 "no fields, two entries");
	qp = mk_hash_qp(&d, ind1, 0, 40);
	VT_CHECK(qp != NULL, "no fields, one entry: fine everywhere");
	for (i = 0; i < 3; i++)
		if (q[i] != NULL)
			VT_CHECK_EQ(sv_destroy_qp(q[i]), 0, "destroy");

	/* mlx5: EOPNOTSUPP for any modify of a QP with an indirection table
	 * (libmlx5 44, mlx5_modify_qp());
	 * generic: INIT(port) -> RTR as mlx4 does it. */
	if (mlx5) {
		VT_CHECK_EQ(qp_to(qp, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PORT,
				  1),
			    EOPNOTSUPP, "modify hash QP");
	} else {
		VT_CHECK_EQ(qp_to(qp, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PORT,
				  1),
			    0, "INIT");
		VT_CHECK_EQ(qp_to(qp, IBV_QPS_RTR, IBV_QP_STATE, 0), 0, "RTR");
		VT_CHECK_EQ(qp_state(qp), IBV_QPS_RTR, "state");
	}
	VT_CHECK_EQ(sv_post_send(qp, NULL, NULL), EINVAL, "no send queue");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind1), 0, "ind1");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind2), 0, "ind2");
	VT_CHECK_EQ(ibv_destroy_wq(wqs[0]), 0, "wq");
	VT_CHECK_EQ(ibv_destroy_wq(wqs[1]), 0, "wq");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "cq");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

static int
test_hash_qp_generic(void)
{
	return hash_qp_rules(SV_PROFILE_GENERIC, "mem:objhg");
}

static int
test_hash_qp_mlx5(void)
{
	return hash_qp_rules(SV_PROFILE_MLX5, "mem:objhm");
}

/* The attributes of a hash QP over ind hashing fields. */
static void
hash_attr(struct ibv_qp_init_attr_ex *a, struct tdev *d,
	  struct ibv_rwq_ind_table *ind, uint64_t fields)
{
	static uint8_t key[40] = { 1 };

	memset(a, 0, sizeof(*a));
	a->qp_type = IBV_QPT_RAW_PACKET;
	a->comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_IND_TABLE |
		       IBV_QP_INIT_ATTR_RX_HASH;
	a->pd = d->pd;
	a->rwq_ind_tbl = ind;
	a->rx_hash_conf.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	a->rx_hash_conf.rx_hash_key_len = 40;
	a->rx_hash_conf.rx_hash_key = key;
	a->rx_hash_conf.rx_hash_fields_mask = fields;
}

#define F_INNER_V4 (IBV_RX_HASH_INNER | F_V4)

/*
 * Tunnel offloads on hash QPs: mlx5 refuses inner hashing without them
 * (create_rss_raw_qp_tir(), EOPNOTSUPP) and takes the flag through
 * mlx5dv_create_qp() only where the device has stateless tunnel offloads
 * (process_vendor_flags(): EINVAL); libmlx5's own checks come first.
 */
static int
test_hash_qp_tunnel(void)
{
	static const struct sv_device_opts notun = {
		.profile = SV_PROFILE_MLX5,
		.lacks = SV_DEV_NO_TUNNEL_OFFLOADS,
	};
	struct mlx5dv_qp_init_attr dv = {
		.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS,
		.create_flags = MLX5DV_QP_CREATE_TUNNEL_OFFLOADS,
	};
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp_init_attr_ex a;
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct ibv_qp *qp;
	struct tdev d;
	int pass;

#define QP_FAILS(call, err, what)                                          \
	do {                                                               \
		errno = 0;                                                 \
		VT_CHECK((call) == NULL && errno == (err), "%s: errno %d", \
			 what, errno);                                     \
	} while (0)
	for (pass = 0; pass < 3; pass++) {
		static const char *const wires[] = { "mem:objtm", "mem:objtn",
						     "mem:objtg" };

		if (pass == 1)
			VT_CHECK_EQ(tdev_open_opts(&d, wires[1], &notun), 0,
				    "open");
		else
			VT_CHECK_EQ(tdev_open(&d, wires[pass],
					      pass == 0 ? SV_PROFILE_MLX5 :
							  SV_PROFILE_GENERIC),
				    0, "open");
		cq = mk_cq(&d, 4);
		wq = mk_wq(&d, cq, 4, 1);
		memset(&ia, 0, sizeof(ia));
		ia.ind_tbl = &wq;
		ind = ibv_create_rwq_ind_table(d.ctx, &ia);
		VT_CHECK(ind != NULL, "table");
		hash_attr(&a, &d, ind, F_INNER_V4);
		if (pass == 2) {
			/* The man page's device hashes inner headers as
			 * asked; it is no mlx5 device for libmlx5. */
			qp = ibv_create_qp_ex(d.ctx, &a);
			VT_CHECK(qp != NULL, "generic inner: errno %d", errno);
			VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, &dv),
				 EOPNOTSUPP, "generic mlx5dv_create_qp");
		} else {
			QP_FAILS(ibv_create_qp_ex(d.ctx, &a), EOPNOTSUPP,
				 "inner without tunnel offloads");
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, NULL),
				 EOPNOTSUPP, "mlx5dv_create_qp, no flag");
		}
		if (pass == 1) {
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, &dv), EINVAL,
				 "no tunnel caps");
			hash_attr(&a, &d, ind, F_V4);
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, &dv), EINVAL,
				 "no tunnel caps, outer fields");
			qp = sv_mlx5dv_create_qp(d.ctx, &a, NULL);
			VT_CHECK(qp != NULL && !sv_qp(qp)->tunnel,
				 "no flag: errno %d", errno);
			VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
		}
		if (pass == 0) {
			qp = sv_mlx5dv_create_qp(d.ctx, &a, &dv);
			VT_CHECK(qp != NULL && sv_qp(qp)->tunnel,
				 "inner with tunnel offloads: errno %d", errno);
			VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
			/* Tunnel rules hash outer headers: the flag alone. */
			hash_attr(&a, &d, ind, F_V4);
			qp = sv_mlx5dv_create_qp(d.ctx, &a, &dv);
			VT_CHECK(qp != NULL && sv_qp(qp)->tunnel,
				 "outer with tunnel offloads: errno %d", errno);
			VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
			/* libmlx5 create_qp(): unknown flags, contradicting
			 * scatter flags, DC on a non-DRIVER QP, comp_mask. */
			dv.create_flags = 1u << 15;
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, &dv), EINVAL,
				 "unknown flag");
			dv.create_flags =
				MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |
				MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE;
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, &dv), EINVAL,
				 "scatter both ways");
			dv.create_flags = MLX5DV_QP_CREATE_TUNNEL_OFFLOADS;
			dv.comp_mask |= MLX5DV_QP_INIT_ATTR_MASK_DC;
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, &dv), EINVAL,
				 "DC on a raw packet QP");
			dv.comp_mask = 1u << 10;
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, &dv), EINVAL,
				 "unknown comp_mask");
			dv.comp_mask = MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS;
			/* The kernel: flags a hash QP cannot have. */
			dv.create_flags = MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE;
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, &dv), EINVAL,
				 "scatter to CQE on a hash QP");
			dv.create_flags =
				MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE;
			QP_FAILS(sv_mlx5dv_create_qp(d.ctx, &a, &dv), EINVAL,
				 "credit mode on a raw packet QP");
			dv.create_flags =
				MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC;
			qp = sv_mlx5dv_create_qp(d.ctx, &a, &dv);
			VT_CHECK(qp != NULL && !sv_qp(qp)->tunnel,
				 "self loopback: errno %d", errno);
			VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
			dv.create_flags = MLX5DV_QP_CREATE_TUNNEL_OFFLOADS;
		}
		VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind), 0, "ind");
		VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "wq");
		VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "cq");
		VT_CHECK_EQ(tdev_close(&d), 0, "close");
	}
#undef QP_FAILS
	return VT_OK;
}

/* Device options: ranges and the mlx5-only bits (softverbs.h). */
static int
test_device_opts(void)
{
	struct sv_device_opts o;
	char name[64];

	memset(&o, 0, sizeof(o));
	o.profile = SV_PROFILE_MLX5;
	o.flow_prios = 17;
	VT_CHECK_EQ(softverbs_device_add("mem:objopt", &o, name, sizeof(name)),
		    EINVAL, "17 priorities on mlx5");
	o.flow_prios = 0;
	o.lacks = 1u << 20;
	VT_CHECK_EQ(softverbs_device_add("mem:objopt", &o, name, sizeof(name)),
		    EINVAL, "unknown lacks bit");
	o.profile = SV_PROFILE_GENERIC;
	o.lacks = SV_DEV_NO_DEVX;
	VT_CHECK_EQ(softverbs_device_add("mem:objopt", &o, name, sizeof(name)),
		    EINVAL, "lacks on the generic profile");
	o.lacks = 0;
	o.log_ind_tbl = 12;
	VT_CHECK_EQ(softverbs_device_add("mem:objopt", &o, name, sizeof(name)),
		    EINVAL, "4096-entry indirection tables");
	o.log_ind_tbl = 0;
	o.flow_prios = 4096;
	VT_CHECK_EQ(softverbs_device_add("mem:objopt", &o, name, sizeof(name)),
		    0, "4096 generic priorities");
	VT_CHECK_EQ(softverbs_device_remove(name), 0, "remove");
	return VT_OK;
}

/* A device made with 2048-entry indirection tables (a ConnectX-5's)
 * reports them and takes one, and no larger. */
static int
test_ind_table_opt(void)
{
	struct sv_device_opts o = { .profile = SV_PROFILE_MLX5,
				    .log_ind_tbl = 11 };
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_device_attr_ex attr;
	struct ibv_rwq_ind_table *ind;
	struct ibv_wq *wq, **tbl;
	struct ibv_cq_ex *cq;
	struct tdev d;
	uint32_t i;

	VT_CHECK_EQ(tdev_open_opts(&d, "mem:objindopt", &o), 0, "open");
	VT_CHECK_EQ(ibv_query_device_ex(d.ctx, NULL, &attr), 0, "query");
	VT_CHECK_EQ(attr.rss_caps.max_rwq_indirection_table_size, 2048u,
		    "max_rwq_indirection_table_size");
	cq = mk_cq(&d, 16);
	wq = cq != NULL ? mk_wq(&d, cq, 4, 1) : NULL;
	tbl = calloc(4096, sizeof(*tbl));
	VT_CHECK(wq != NULL && tbl != NULL, "wq");
	for (i = 0; i < 4096; i++)
		tbl[i] = wq;
	memset(&ia, 0, sizeof(ia));
	ia.ind_tbl = tbl;
	ia.log_ind_tbl_size = 12;
	VT_CHECK(ibv_create_rwq_ind_table(d.ctx, &ia) == NULL &&
			 errno == EINVAL,
		 "4096 entries");
	ia.log_ind_tbl_size = 11;
	ind = ibv_create_rwq_ind_table(d.ctx, &ia);
	free(tbl);
	VT_CHECK(ind != NULL, "2048 entries");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind), 0, "destroy table");
	VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "wq");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "cq");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* ---- send QPs ---- */

static int
test_qp_state_machine(void)
{
	static uint8_t buf[64];
	struct ibv_qp_init_attr ia;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct tdev d;

	VT_CHECK_EQ(tdev_open(&d, "mem:objsm", SV_PROFILE_GENERIC), 0, "open");
	cq = mk_cq(&d, 16);
	VT_CHECK(cq != NULL, "cq");
	memset(&ia, 0, sizeof(ia));
	ia.qp_type = IBV_QPT_RAW_PACKET;
	ia.cap.max_send_wr = 4;
	VT_CHECK(sv_create_qp(d.pd, &ia) == NULL && errno == EINVAL,
		 "send_cq required");
	ia.send_cq = ibv_cq_ex_to_cq(cq);
	ia.cap.max_send_wr = SV_MAX_QP_WR + 1;
	VT_CHECK(sv_create_qp(d.pd, &ia) == NULL && errno == EINVAL,
		 "max_send_wr beyond max_qp_wr");
	ia.cap.max_send_wr = 4;
	ia.cap.max_send_sge = SV_MAX_SGE + 1;
	VT_CHECK(sv_create_qp(d.pd, &ia) == NULL && errno == EINVAL,
		 "max_send_sge beyond max_sge");
	ia.cap.max_send_sge = 0;
	ia.cap.max_recv_wr = 1;
	VT_CHECK(sv_create_qp(d.pd, &ia) == NULL && errno == EINVAL,
		 "no receive queue in a QP");
	ia.cap.max_recv_wr = 0;
	ia.qp_type = IBV_QPT_RC;
	VT_CHECK(sv_create_qp(d.pd, &ia) == NULL && errno == EOPNOTSUPP,
		 "raw packet QPs only");
	ia.qp_type = IBV_QPT_RAW_PACKET;
	qp = sv_create_qp(d.pd, &ia);
	VT_CHECK(qp != NULL, "create");
	VT_CHECK_EQ(ia.cap.max_send_sge, 1, "actual caps written back");
	VT_CHECK_EQ(qp->state, IBV_QPS_RESET, "RESET");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), EBUSY, "CQ in use");
	VT_CHECK_EQ(sv_dealloc_pd(d.pd), EBUSY, "PD in use");

	mr = sv_reg_mr(d.pd, buf, sizeof(buf), 0);
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	bad = NULL;
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), EINVAL, "post in RESET");
	VT_CHECK(bad == &wr, "bad_wr");

	/* ibv_modify_qp(3) raw packet table: INIT needs STATE | PORT. */
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_INIT, IBV_QP_STATE, 0), EINVAL,
		    "INIT without PORT");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PORT, 2),
		    EINVAL, "port 2 does not exist");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_INIT,
			  IBV_QP_STATE | IBV_QP_PORT | IBV_QP_QKEY, 1),
		    EINVAL, "QKEY is not raw packet");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RTR, IBV_QP_STATE, 0), EINVAL,
		    "RESET -> RTR");
	VT_CHECK_EQ(qp_state(qp), IBV_QPS_RESET, "nothing modified");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_INIT, IBV_QP_STATE | IBV_QP_PORT, 1), 0,
		    "RESET -> INIT");
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), EINVAL, "post in INIT");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RTS, IBV_QP_STATE, 0), EINVAL,
		    "INIT -> RTS");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RTR, IBV_QP_STATE, 0), 0, "INIT -> RTR");
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), EINVAL, "post in RTR");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_PORT, 1),
		    EINVAL, "PORT not allowed on RTR -> RTS");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RTS, IBV_QP_STATE | IBV_QP_CUR_STATE, 1),
		    EINVAL, "CUR_STATE not for raw packet QPs");
	VT_CHECK_EQ(qp_state(qp), IBV_QPS_RTR, "still RTR");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RTS, IBV_QP_STATE, 0), 0, "RTR -> RTS");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RTS, 0, 0), 0, "RTS -> RTS, no change");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_SQD, IBV_QP_STATE, 0), EINVAL, "no SQD");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_ERR, IBV_QP_STATE, 0), 0, "RTS -> ERR");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RTS, IBV_QP_STATE, 0), EINVAL,
		    "ERR -> RTS");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RESET, IBV_QP_STATE, 0), 0,
		    "ERR -> RESET");
	VT_CHECK_EQ(qp_rts(qp), 0, "and up again");
	VT_CHECK_EQ(qp_state(qp), IBV_QPS_RTS, "RTS");
	VT_CHECK_EQ(qp_to(qp, IBV_QPS_RESET, IBV_QP_STATE, 0), 0,
		    "RTS -> RESET");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
	VT_CHECK_EQ(sv_dereg_mr(mr), 0, "dereg");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "cq");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* Send queue environment on a link whose far end is a bare wire. */
struct senv {
	struct tdev d;
	struct sv_wire *peer;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	uint8_t *buf;
};

#define SBUF 16384

static int
senv_open_profile(struct senv *e, const char *wire, uint32_t max_wr,
		  int sig_all, enum sv_profile profile)
{
	uint8_t mac[6];
	int end;

	memset(e, 0, sizeof(*e));
	if (tdev_open(&e->d, wire, profile) != 0 ||
	    sv_wire_open(wire, &e->peer, &end, mac) != 0)
		return -1;
	e->buf = calloc(1, SBUF);
	e->cq = mk_cq(&e->d, 64);
	if (e->buf == NULL || e->cq == NULL)
		return -1;
	e->qp = mk_send_qp(&e->d, e->cq, max_wr, 4, 128, sig_all);
	if (e->qp == NULL || qp_rts(e->qp) != 0)
		return -1;
	e->mr = sv_reg_mr(e->d.pd, e->buf, SBUF, IBV_ACCESS_LOCAL_WRITE);
	return e->mr == NULL ? -1 : 0;
}

static int
senv_open(struct senv *e, const char *wire, uint32_t max_wr, int sig_all)
{
	return senv_open_profile(e, wire, max_wr, sig_all, SV_PROFILE_GENERIC);
}

static int
senv_close(struct senv *e)
{
	int rc = sv_destroy_qp(e->qp);

	rc |= sv_dereg_mr(e->mr);
	rc |= sv_destroy_cq(ibv_cq_ex_to_cq(e->cq));
	sv_wire_close(e->peer);
	free(e->buf);
	return rc | tdev_close(&e->d);
}

static void
mk_wr(struct ibv_send_wr *wr, struct ibv_sge *sge, uint64_t id,
      unsigned int flags)
{
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = id;
	wr->sg_list = sge;
	wr->num_sge = 1;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = flags;
}

/* Frames of a WR list leave in order, gathered from their SGEs; only
 * signaled WRs complete. */
static int
test_send_wire(void)
{
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[6];
	struct sv_port_stats st;
	struct rxbuf *rx;
	struct wc w[8];
	struct senv e;
	uint8_t *f;
	uint32_t len;

	rx = malloc(sizeof(*rx));
	VT_CHECK(rx != NULL, "alloc");
	VT_CHECK_EQ(senv_open(&e, "mem:objtx", 16, 0), 0, "env");
	f = e.buf;
	len = mk_udp4(f, 100, 0xab);
	/* wr 0: one SGE; wr 1: the same frame in two SGEs; wr 2: three. */
	sge[0] = (struct ibv_sge){ (uintptr_t)f, len, e.mr->lkey };
	memcpy(f + 4096, f, 20);
	memcpy(f + 8192, f + 20, len - 20);
	sge[1] = (struct ibv_sge){ (uintptr_t)f + 4096, 20, e.mr->lkey };
	sge[2] = (struct ibv_sge){ (uintptr_t)f + 8192, len - 20, e.mr->lkey };
	sge[3] = (struct ibv_sge){ (uintptr_t)f, 10, e.mr->lkey };
	sge[4] = (struct ibv_sge){ (uintptr_t)f + 10, 0, e.mr->lkey };
	sge[5] = (struct ibv_sge){ (uintptr_t)f + 10, len - 10, e.mr->lkey };
	mk_wr(&wr[0], &sge[0], 1, 0);
	mk_wr(&wr[1], &sge[1], 2, 0);
	wr[1].num_sge = 2;
	mk_wr(&wr[2], &sge[3], 3, IBV_SEND_SIGNALED);
	wr[2].num_sge = 3;
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "post list");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 3, "three frames on the wire");
	VT_CHECK(rx->len[0] == len && memcmp(rx->data[0], f, len) == 0,
		 "frame 0");
	VT_CHECK(rx->len[1] == len && memcmp(rx->data[1], f, len) == 0,
		 "frame 1 gathered");
	VT_CHECK(rx->len[2] == len && memcmp(rx->data[2], f, len) == 0,
		 "frame 2 gathered");
	VT_CHECK_EQ(poll_all(e.cq, w, 8), 1, "only the signaled WR");
	VT_CHECK(w[0].wr_id == 3 && w[0].status == IBV_WC_SUCCESS &&
			 w[0].opcode == IBV_WC_SEND &&
			 w[0].qp_num == e.qp->qp_num,
		 "send completion");
	VT_CHECK_EQ(softverbs_port_stats(e.d.ctx, 1, &st), 0, "stats");
	VT_CHECK_EQ(st.tx_frames, 3, "tx_frames");
	VT_CHECK_EQ(st.tx_errors, 0, "tx_errors");

	/* Inline data: the lkey is not checked and the buffer may be
	 * reused at once. */
	sge[0].lkey = 0xdead00;
	sge[0].length = 128; /* max_inline_data */
	mk_wr(&wr[0], &sge[0], 4, IBV_SEND_INLINE | IBV_SEND_SIGNALED);
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "inline");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 1, "inline frame sent");
	VT_CHECK(rx->len[0] == 128 && memcmp(rx->data[0], f, 128) == 0,
		 "inline bytes");
	VT_CHECK_EQ(poll_all(e.cq, w, 8), 1, "completion");
	VT_CHECK_EQ(w[0].status, IBV_WC_SUCCESS, "inline ok");
	VT_CHECK_EQ(senv_close(&e), 0, "close");
	free(rx);
	return VT_OK;
}

static int
test_send_immediate_errors(void)
{
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge;
	struct rxbuf *rx;
	struct wc w[8];
	struct senv e;
	uint32_t len;

	rx = malloc(sizeof(*rx));
	VT_CHECK(rx != NULL, "alloc");
	VT_CHECK_EQ(senv_open(&e, "mem:objimm", 16, 1), 0, "env");
	len = mk_udp4(e.buf, 50, 1);
	sge = (struct ibv_sge){ (uintptr_t)e.buf, len, e.mr->lkey };
	mk_wr(&wr[0], &sge, 1, 0);
	wr[0].opcode = IBV_WR_RDMA_WRITE;
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), EINVAL, "SEND only");
	mk_wr(&wr[0], &sge, 1, 0);
	wr[0].num_sge = 0;
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), EINVAL, "no data");
	wr[0].num_sge = 5;
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), EINVAL, "num_sge > max");
	mk_wr(&wr[0], &sge, 1, IBV_SEND_FENCE);
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), EINVAL, "fence is RC only");
	mk_wr(&wr[0], &sge, 1, IBV_SEND_INLINE);
	sge.length = 129;
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), ENOMEM,
		    "inline beyond max_inline_data");
	sge.length = len;
	VT_CHECK_EQ(peer_rx(e.peer, rx), 0, "nothing sent so far");

	/* Posting stops at the first bad WR; those before it are posted. */
	mk_wr(&wr[0], &sge, 1, 0);
	mk_wr(&wr[1], &sge, 2, 0);
	mk_wr(&wr[2], &sge, 3, 0);
	wr[1].opcode = IBV_WR_SEND_WITH_IMM;
	wr[0].next = &wr[1];
	wr[1].next = &wr[2];
	bad = NULL;
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), EINVAL, "second WR bad");
	VT_CHECK(bad == &wr[1], "bad_wr");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 1, "the first went out");
	VT_CHECK_EQ(poll_all(e.cq, w, 8), 1, "sq_sig_all: one completion");
	VT_CHECK_EQ(w[0].wr_id, 1, "of the first");
	VT_CHECK_EQ(senv_close(&e), 0, "close");
	free(rx);
	return VT_OK;
}

/*
 * mlx5: the send queue in 64-byte WQE basic blocks (libmlx5 44,
 * mlx5_calc_sq_size(), mlx5_calc_send_wqe()): a WQE is 48 bytes of
 * control and Ethernet segments and 16 per SGE (or the inline data and
 * its 4-byte header), rounded up to 64; max_send_wr WQEs rounded up to a
 * power of two must fit max_send_wqebb (max_qp_wr) blocks; the caps say
 * what the queue holds. generic: max_qp_wr WRs of any SGE count.
 */
static int
test_send_queue_blocks(void)
{
	static const struct {
		uint32_t wr, sge, inl, tso;
		int err;
		uint32_t got_wr, got_inl; /* written back (mlx5) */
	} c[] = {
		{ SV_MAX_QP_WR, 1, 0, 0, 0, SV_MAX_QP_WR, 12 },
		{ SV_MAX_QP_WR + 1, 1, 0, 0, EINVAL, 0, 0 },
		{ SV_MAX_QP_WR / 2 + 1, 1, 0, 0, 0, SV_MAX_QP_WR, 12 },
		{ SV_MAX_QP_WR, 2, 0, 0, EINVAL, 0, 0 }, /* 2 blocks */
		{ SV_MAX_QP_WR / 2, 2, 0, 0, 0, SV_MAX_QP_WR / 2, 76 },
		{ SV_MAX_QP_WR / 8, 16, 0, 0, 0, 1638, 268 }, /* 320 bytes */
		{ SV_MAX_QP_WR / 4, 16, 0, 0, EINVAL, 0, 0 },
		{ 16, 61, 0, 0, 0, 16, 972 },	/* 1024 bytes: the largest */
		{ 16, 62, 0, 0, EINVAL, 0, 0 }, /* beyond the WQE */
		{ 16, 1, 972, 0, 0, 16, 972 },	/* inline fills it */
		{ 16, 1, 973, 0, EINVAL, 0, 0 },
		{ SV_MAX_QP_WR, 1, 13, 0, EINVAL, 0, 0 }, /* 2 blocks */
		/* TSO headers inside every WQE: 48 + 192 + 16 bytes. */
		{ SV_MAX_QP_WR / 4, 1, 0, 192, 0, SV_MAX_QP_WR / 4, 204 },
		{ SV_MAX_QP_WR / 4 + 1, 1, 0, 192, EINVAL, 0, 0 },
		{ 16, 49, 0, 192, 0, 16, 972 },	  /* 1024 bytes */
		{ 16, 50, 0, 192, EINVAL, 0, 0 }, /* beyond the WQE */
	};
	struct ibv_qp_init_attr_ex a;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct tdev d;
	unsigned int i, prof;

	for (prof = 0; prof < 2; prof++) {
		bool mlx5 = prof == 1;

		VT_CHECK_EQ(tdev_open(&d, mlx5 ? "mem:objsqm" : "mem:objsqg",
				      mlx5 ? SV_PROFILE_MLX5 :
					     SV_PROFILE_GENERIC),
			    0, "open");
		cq = mk_cq(&d, 16);
		VT_CHECK(cq != NULL, "cq");
		for (i = 0; i < RTE_DIM(c); i++) {
			memset(&a, 0, sizeof(a));
			a.send_cq = ibv_cq_ex_to_cq(cq);
			a.qp_type = IBV_QPT_RAW_PACKET;
			a.cap.max_send_wr = c[i].wr;
			a.cap.max_send_sge = c[i].sge;
			a.cap.max_inline_data = c[i].inl;
			a.comp_mask = IBV_QP_INIT_ATTR_PD |
				      IBV_QP_INIT_ATTR_CREATE_FLAGS;
			if (c[i].tso != 0) {
				a.comp_mask |= IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
				a.max_tso_header = c[i].tso;
			}
			a.pd = d.pd;
			errno = 0;
			qp = ibv_create_qp_ex(d.ctx, &a);
			/* generic: within max_qp_wr, max_sge, 512 inline. */
			if (!mlx5) {
				bool ok = c[i].wr <= SV_MAX_QP_WR &&
					  c[i].sge <= SV_MAX_SGE &&
					  c[i].inl <= 512;

				VT_CHECK_EQ(qp != NULL, ok, "generic %u", i);
			} else if (c[i].err != 0) {
				VT_CHECK(qp == NULL && errno == c[i].err,
					 "mlx5 %u: %u WRs x %u SGEs, inline %u: "
					 "errno %d",
					 i, c[i].wr, c[i].sge, c[i].inl, errno);
			} else {
				VT_CHECK(qp != NULL, "mlx5 %u: errno %d", i,
					 errno);
				VT_CHECK_EQ(a.cap.max_send_wr, c[i].got_wr,
					    "mlx5 %u: WRs it holds", i);
				VT_CHECK_EQ(a.cap.max_inline_data, c[i].got_inl,
					    "mlx5 %u: inline it takes", i);
			}
			if (qp != NULL)
				VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
		}
		VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "cq");
		VT_CHECK_EQ(tdev_close(&d), 0, "close");
	}
	return VT_OK;
}

/* Send queue slots come back when completions are read (selective
 * signalling): more outstanding WRs than max_send_wr is ENOMEM. */
static int
test_send_queue_full(void)
{
	struct ibv_send_wr wr[4], *bad;
	struct ibv_sge sge;
	struct rxbuf *rx;
	struct wc w[8];
	struct senv e;
	int i;

	rx = malloc(sizeof(*rx));
	VT_CHECK(rx != NULL, "alloc");
	VT_CHECK_EQ(senv_open(&e, "mem:objfull", 4, 0), 0, "env");
	sge = (struct ibv_sge){ (uintptr_t)e.buf, mk_udp4(e.buf, 10, 2),
				e.mr->lkey };
	for (i = 0; i < 4; i++) {
		mk_wr(&wr[i], &sge, (uint64_t)i,
		      i == 3 ? IBV_SEND_SIGNALED : 0);
		wr[i].next = i < 3 ? &wr[i + 1] : NULL;
	}
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "four");
	wr[0].next = NULL;
	bad = NULL;
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), ENOMEM, "fifth: full");
	VT_CHECK(bad == &wr[0], "bad_wr");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 4, "four sent");
	VT_CHECK_EQ(poll_all(e.cq, w, 8), 1, "one completion for four");
	VT_CHECK_EQ(w[0].wr_id, 3, "the signaled one");
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "room again");
	/* Unsignaled forever: the queue fills up and stays full. */
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "2");
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "3");
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "4");
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), ENOMEM, "5");
	VT_CHECK_EQ(poll_all(e.cq, w, 8), 0, "nothing to poll");
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), ENOMEM, "still full");
	/* Reset empties the send queue. */
	VT_CHECK_EQ(qp_to(e.qp, IBV_QPS_RESET, IBV_QP_STATE, 0), 0, "reset");
	VT_CHECK_EQ(qp_rts(e.qp), 0, "RTS");
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "room after reset");
	VT_CHECK_EQ(senv_close(&e), 0, "close");
	free(rx);
	return VT_OK;
}

/* Local errors: an error completion whether signaled or not, the QP goes
 * to ERR, later WRs are flushed, nothing reaches the wire. */
static int
test_send_local_errors(void)
{
	static uint8_t unreg[2048];
	struct ibv_send_wr wr[3], *bad;
	struct ibv_sge sge[3];
	struct ibv_pd *pd2;
	struct ibv_mr *mr2;
	struct rxbuf *rx;
	struct wc w[8];
	struct senv e;
	uint32_t len;
	int i;

	rx = malloc(sizeof(*rx));
	VT_CHECK(rx != NULL, "alloc");
	VT_CHECK_EQ(senv_open(&e, "mem:objerr", 16, 0), 0, "env");
	len = mk_udp4(e.buf, 64, 3);
	memcpy(unreg, e.buf, len);
	sge[0] = (struct ibv_sge){ (uintptr_t)e.buf, len, e.mr->lkey };
	sge[1] = (struct ibv_sge){ (uintptr_t)unreg, len, e.mr->lkey };
	for (i = 0; i < 3; i++) {
		mk_wr(&wr[i], &sge[i == 1 ? 1 : 0], 10 + (uint64_t)i, 0);
		wr[i].next = i < 2 ? &wr[i + 1] : NULL;
	}
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0,
		    "posted: the error is found while executing");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 1, "only the WR before the error");
	VT_CHECK_EQ(poll_all(e.cq, w, 8), 2, "error and flush completions");
	VT_CHECK(w[0].wr_id == 11 && w[0].status == IBV_WC_LOC_PROT_ERR,
		 "SGE outside registered memory: %d", w[0].status);
	VT_CHECK(w[1].wr_id == 12 && w[1].status == IBV_WC_WR_FLUSH_ERR,
		 "flushed");
	VT_CHECK_EQ(qp_state(e.qp), IBV_QPS_ERR, "QP in error");
	wr[0].next = NULL;
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "post in ERR");
	VT_CHECK_EQ(poll_all(e.cq, w, 8), 1, "flushed at once");
	VT_CHECK_EQ(w[0].status, IBV_WC_WR_FLUSH_ERR, "flush");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 0, "not sent");

	/* An lkey of another PD. */
	VT_CHECK_EQ(qp_to(e.qp, IBV_QPS_RESET, IBV_QP_STATE, 0), 0, "reset");
	VT_CHECK_EQ(qp_rts(e.qp), 0, "rts");
	pd2 = sv_alloc_pd(e.d.ctx);
	mr2 = sv_reg_mr(pd2, e.buf, SBUF, 0);
	VT_CHECK(mr2 != NULL, "mr2");
	sge[2] = (struct ibv_sge){ (uintptr_t)e.buf, len, mr2->lkey };
	mk_wr(&wr[0], &sge[2], 20, 0);
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "post");
	VT_CHECK_EQ(poll_all(e.cq, w, 8), 1, "one");
	VT_CHECK_EQ(w[0].status, IBV_WC_LOC_PROT_ERR, "other PD");
	VT_CHECK_EQ(sv_dereg_mr(mr2), 0, "dereg");
	VT_CHECK_EQ(sv_dealloc_pd(pd2), 0, "dealloc");

	/* Longer than MTU + Ethernet header + one VLAN tag. */
	VT_CHECK_EQ(qp_to(e.qp, IBV_QPS_RESET, IBV_QP_STATE, 0), 0, "reset");
	VT_CHECK_EQ(qp_rts(e.qp), 0, "rts");
	len = mk_udp4(e.buf, 1500 - 28 + 4, 4);
	VT_CHECK_EQ(len, 1518, "largest frame");
	sge[0].length = len;
	mk_wr(&wr[0], &sge[0], 30, IBV_SEND_SIGNALED);
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "1518 bytes");
	sge[0].length = len + 1;
	wr[0].wr_id = 31;
	VT_CHECK_EQ(ibv_post_send(e.qp, wr, &bad), 0, "1519 bytes");
	VT_CHECK_EQ(poll_all(e.cq, w, 8), 2, "two");
	VT_CHECK(w[0].wr_id == 30 && w[0].status == IBV_WC_SUCCESS &&
			 w[0].byte_len == 1518,
		 "fits");
	VT_CHECK(w[1].wr_id == 31 && w[1].status == IBV_WC_LOC_LEN_ERR,
		 "too long");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 1, "one frame");
	VT_CHECK_EQ(rx->len[0], 1518, "the one that fits");
	VT_CHECK_EQ(senv_close(&e), 0, "close");
	free(rx);
	return VT_OK;
}

static uint16_t
csum(const uint8_t *p, size_t n, uint32_t sum)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* Sum over pseudo header and segment: 0xffff when the checksum is right. */
static uint16_t
l4_verify(const uint8_t *f, bool v6, uint32_t l3, uint32_t l4, uint8_t proto,
	  uint32_t l4len)
{
	uint32_t sum = proto + l4len;

	if (v6)
		sum += csum(f + l3 + 8, 32, 0);
	else
		sum += csum(f + l3 + 12, 8, 0);
	return csum(f + l4, l4len, sum);
}

static int
test_send_ip_csum(void)
{
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct rxbuf *rx;
	struct senv e;
	uint8_t *f, *g, *h, copy[256];
	uint32_t len, len6, lent;

	rx = malloc(sizeof(*rx));
	VT_CHECK(rx != NULL, "alloc");
	VT_CHECK_EQ(senv_open(&e, "mem:objcsum", 16, 0), 0, "env");
	/* IPv4 / UDP */
	f = e.buf;
	len = mk_udp4(f, 33, 0x5a);
	memcpy(copy, f, len);
	sge = (struct ibv_sge){ (uintptr_t)f, len, e.mr->lkey };
	mk_wr(&wr, &sge, 1, IBV_SEND_IP_CSUM);
	VT_CHECK_EQ(ibv_post_send(e.qp, &wr, &bad), 0, "post");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 1, "sent");
	VT_CHECK(memcmp(f, copy, len) == 0, "the application's buffer is "
					    "not written");
	VT_CHECK(rx->data[0][24] != 0 || rx->data[0][25] != 0, "IP csum set");
	VT_CHECK_EQ(csum(rx->data[0] + 14, 20, 0), 0xffff, "IPv4 header");
	VT_CHECK_EQ(l4_verify(rx->data[0], false, 14, 34, IPPROTO_UDP, 8 + 33),
		    0xffff, "UDP checksum");
	/* Without the flag, nothing is touched. */
	wr.send_flags = 0;
	VT_CHECK_EQ(ibv_post_send(e.qp, &wr, &bad), 0, "post");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 1, "sent");
	VT_CHECK(memcmp(rx->data[0], copy, len) == 0, "as posted");

	/* IPv4 / TCP in two SGEs, with Ethernet padding after it. */
	g = e.buf + 4096;
	lent = 14 + 20 + 20 + 6;
	memset(g, 0, 64);
	memcpy(g, copy, 14);
	g[14] = 0x45;
	g[17] = 20 + 20 + 6;
	g[22] = 64;
	g[23] = IPPROTO_TCP;
	memcpy(g + 26, "\xc0\xa8\x01\x01\xc0\xa8\x01\x02", 8);
	g[35] = 80;
	g[37] = 99;
	g[46] = 0x50;
	memcpy(g + 54, "abcdef", 6);
	g[60] = 0xee; /* padding, not part of the segment */
	{
		struct ibv_sge two[2] = {
			{ (uintptr_t)g, 30, e.mr->lkey },
			{ (uintptr_t)g + 30, lent + 4 - 30, e.mr->lkey },
		};

		mk_wr(&wr, two, 2, IBV_SEND_IP_CSUM);
		wr.num_sge = 2;
		VT_CHECK_EQ(ibv_post_send(e.qp, &wr, &bad), 0, "post tcp");
	}
	VT_CHECK_EQ(peer_rx(e.peer, rx), 1, "sent");
	VT_CHECK_EQ(rx->len[0], lent + 4, "with padding");
	VT_CHECK_EQ(csum(rx->data[0] + 14, 20, 0), 0xffff, "IPv4 header");
	VT_CHECK_EQ(l4_verify(rx->data[0], false, 14, 34, IPPROTO_TCP, 26),
		    0xffff, "TCP checksum");

	/* IPv6 / UDP: only the L4 checksum exists. */
	h = e.buf + 8192;
	len6 = 14 + 40 + 8 + 11;
	memset(h, 0, len6);
	memcpy(h, copy, 12);
	h[12] = 0x86;
	h[13] = 0xdd;
	h[14] = 0x60;
	h[19] = 8 + 11;
	h[20] = IPPROTO_UDP;
	h[21] = 64;
	h[22] = 0xfe;
	h[23] = 0x80;
	h[37] = 1;
	h[38] = 0xfe;
	h[39] = 0x80;
	h[53] = 2;
	h[54] = 0x30;
	h[55] = 0x39;
	h[56] = 0x00;
	h[57] = 0x35;
	h[59] = 8 + 11;
	memset(h + 62, 0x77, 11);
	sge = (struct ibv_sge){ (uintptr_t)h, len6, e.mr->lkey };
	mk_wr(&wr, &sge, 3, IBV_SEND_IP_CSUM);
	VT_CHECK_EQ(ibv_post_send(e.qp, &wr, &bad), 0, "post v6");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 1, "sent");
	VT_CHECK(rx->data[0][60] != 0 || rx->data[0][61] != 0, "set");
	VT_CHECK_EQ(l4_verify(rx->data[0], true, 14, 54, IPPROTO_UDP, 19),
		    0xffff, "UDP over IPv6 checksum");
	VT_CHECK_EQ(senv_close(&e), 0, "close");
	free(rx);
	return VT_OK;
}

/* ---- TSO ---- */

/* A send QP with room for TSO headers of hdr bytes (libmlx5's
 * IBV_QP_INIT_ATTR_MAX_TSO_HEADER), ready. */
static struct ibv_qp *
mk_tso_qp(struct senv *e, uint32_t hdr, uint32_t max_sge)
{
	struct ibv_qp_init_attr_ex a;
	struct ibv_qp *qp;

	memset(&a, 0, sizeof(a));
	a.send_cq = ibv_cq_ex_to_cq(e->cq);
	a.recv_cq = ibv_cq_ex_to_cq(e->cq);
	a.qp_type = IBV_QPT_RAW_PACKET;
	a.cap.max_send_wr = 16;
	a.cap.max_send_sge = max_sge;
	a.sq_sig_all = 1;
	a.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_MAX_TSO_HEADER;
	a.pd = e->d.pd;
	a.max_tso_header = hdr;
	qp = ibv_create_qp_ex(e->d.ctx, &a);
	if (qp != NULL && qp_rts(qp) != 0) {
		sv_destroy_qp(qp);
		return NULL;
	}
	return qp;
}

/* Ethernet + IPv4 + TCP headers (54 bytes) with a total length of
 * ip_len (what a TSO header holds is the sender's guess). */
static void
mk_tcp4_hdr(uint8_t *f, uint16_t ip_len, uint8_t tcp_flags)
{
	memset(f, 0, 54);
	memcpy(f, "\x02\x00\x00\x00\x00\x02\x02\x00\x00\x00\x00\x01", 12);
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = (uint8_t)(ip_len >> 8);
	f[17] = (uint8_t)ip_len;
	f[18] = 0x12; /* id 0x1234 */
	f[19] = 0x34;
	f[22] = 64;
	f[23] = IPPROTO_TCP;
	memcpy(f + 26, "\x0a\x00\x00\x01\x0a\x00\x00\x02", 8);
	f[34] = 0x30; /* ports 12345 -> 80 */
	f[35] = 0x39;
	f[37] = 80;
	memcpy(f + 38, "\x10\x00\x00\x00", 4); /* seq 0x10000000 */
	f[46] = 0x50;			       /* 20-byte header */
	f[47] = tcp_flags;
	f[48] = 0xff; /* window */
}

static uint32_t
rd32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

/* A frame's IPv4 header and TCP checksums verify. */
static bool
tcp4_csum_ok(const uint8_t *f, uint32_t len)
{
	return csum(f + 14, 20, 0) == 0xffff &&
	       l4_verify(f, false, 14, 34, IPPROTO_TCP, len - 34) == 0xffff;
}

/*
 * IBV_WR_TSO on a raw packet QP, as libmlx5 44 takes it and a ConnectX
 * puts it on the wire: the header (inline in the WQE) in front of each
 * mss-byte piece of the payload, IPv4 total length and id, TCP sequence
 * number, flags and checksums made right per frame; the completion
 * IBV_WC_TSO. What libmlx5 refuses at post time is refused (EINVAL), what
 * the device cannot send completes in error.
 */
static int
test_tso_send(void)
{
	struct ibv_device_attr_ex da;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_qp *qp;
	struct rxbuf *rx;
	struct wc w[4];
	struct senv e;
	uint8_t *hdr, *pay;
	uint32_t i;

	rx = malloc(sizeof(*rx));
	VT_CHECK(rx != NULL, "alloc");
	VT_CHECK_EQ(senv_open_profile(&e, "mem:objtso", 16, 1, SV_PROFILE_MLX5),
		    0, "env");
	memset(&da, 0, sizeof(da));
	VT_CHECK_EQ(ibv_query_device_ex(e.d.ctx, NULL, &da), 0, "query");
	VT_CHECK(da.tso_caps.max_tso == SV_MAX_TSO &&
			 da.tso_caps.supported_qpts ==
				 (1u << IBV_QPT_RAW_PACKET),
		 "tso_caps %u %#x", da.tso_caps.max_tso,
		 da.tso_caps.supported_qpts);
	/* The header lives in the WQE: 48 + 1024 + 16 bytes do not fit. */
	VT_CHECK(mk_tso_qp(&e, 1024, 1) == NULL && errno == EINVAL,
		 "a 1024-byte TSO header");
	qp = mk_tso_qp(&e, 192, 2);
	VT_CHECK(qp != NULL, "TSO QP");
	hdr = e.buf;
	pay = e.buf + 1024;
	mk_tcp4_hdr(hdr, 0, 0x19); /* FIN PSH ACK; total length unset */
	for (i = 0; i < 3000; i++)
		pay[i] = (uint8_t)(i * 7 + 1);
	sge = (struct ibv_sge){ (uintptr_t)pay, 3000, e.mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 9;
	wr.opcode = IBV_WR_TSO;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.send_flags = IBV_SEND_IP_CSUM;
	wr.tso.hdr = hdr;
	wr.tso.hdr_sz = 54;
	wr.tso.mss = 1000;
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), 0, "TSO post");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 3, "three frames of 1000 bytes");
	for (i = 0; i < 3; i++) {
		const uint8_t *f = rx->data[i];

		VT_CHECK_EQ(rx->len[i], 54 + 1000, "frame %u length", i);
		VT_CHECK_EQ(f[16] << 8 | f[17], 1040, "frame %u total length",
			    i);
		VT_CHECK_EQ(f[18] << 8 | f[19], 0x1234 + i, "frame %u IP id",
			    i);
		VT_CHECK_EQ(rd32(f + 38), 0x10000000u + 1000 * i,
			    "frame %u sequence number", i);
		VT_CHECK_EQ(f[47], i < 2 ? 0x10 : 0x19, "frame %u flags", i);
		VT_CHECK(tcp4_csum_ok(f, rx->len[i]), "frame %u checksums", i);
		VT_CHECK(memcmp(f + 54, pay + 1000 * i, 1000) == 0,
			 "frame %u payload", i);
	}
	VT_CHECK_EQ(poll_all(e.cq, w, 4), 1, "one completion");
	VT_CHECK(w[0].wr_id == 9 && w[0].status == IBV_WC_SUCCESS &&
			 w[0].opcode == IBV_WC_TSO,
		 "TSO completion %d %d", (int)w[0].status, (int)w[0].opcode);
	/* A last piece shorter than mss, and the payload in two SGEs. */
	sge.length = 1500;
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), 0, "TSO of 1500");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 2, "1000 + 500");
	VT_CHECK(rx->len[0] == 1054 && rx->len[1] == 554 &&
			 tcp4_csum_ok(rx->data[1], rx->len[1]) &&
			 memcmp(rx->data[1] + 54, pay + 1000, 500) == 0,
		 "the short last frame");
	VT_CHECK_EQ(poll_all(e.cq, w, 4), 1, "completion");

	/* Refused at post (set_tso_eth_seg(), the max_tso check). */
	wr.tso.hdr_sz = 17;
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), EINVAL, "17-byte header");
	wr.tso.hdr_sz = 193;
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), EINVAL,
		    "header beyond max_tso_header");
	wr.tso.hdr_sz = 54;
	sge.length = SV_MAX_TSO + 1;
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), EINVAL, "beyond max_tso");
	sge.length = 3000;
	VT_CHECK_EQ(ibv_post_send(e.qp, &wr, &bad), EINVAL,
		    "a QP without TSO headers");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 0, "nothing sent");
	/* What the port cannot carry: frames longer than MTU + 18. */
	wr.tso.mss = 1500;
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), 0, "post, mss 1500");
	VT_CHECK_EQ(poll_all(e.cq, w, 4), 1, "completion");
	VT_CHECK_EQ(w[0].status, IBV_WC_LOC_LEN_ERR, "1554-byte frames");
	VT_CHECK_EQ(peer_rx(e.peer, rx), 0, "nothing sent");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
	VT_CHECK_EQ(senv_close(&e), 0, "close");

	/* The generic profile reports no TSO: no payload is taken. */
	VT_CHECK_EQ(senv_open(&e, "mem:objtsog", 16, 1), 0, "generic env");
	memset(&da, 0, sizeof(da));
	VT_CHECK_EQ(ibv_query_device_ex(e.d.ctx, NULL, &da), 0, "query");
	VT_CHECK(da.tso_caps.max_tso == 0 && da.tso_caps.supported_qpts == 0,
		 "no tso_caps");
	qp = mk_tso_qp(&e, 192, 2);
	VT_CHECK(qp != NULL, "a QP with TSO headers all the same");
	mk_tcp4_hdr(e.buf, 0, 0x10);
	sge = (struct ibv_sge){ (uintptr_t)e.buf + 1024, 100, e.mr->lkey };
	wr.sg_list = &sge;
	wr.tso.hdr = e.buf;
	wr.tso.mss = 1000;
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), EINVAL, "no max_tso");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy");
	VT_CHECK_EQ(senv_close(&e), 0, "close");
	free(rx);
	return VT_OK;
}

/*
 * Completion timestamps (mlx5 profile): a CQ-ex with
 * IBV_WC_EX_WITH_COMPLETION_TIMESTAMP stamps each completion with the
 * device clock that ibv_query_rt_values_ex() reads (hca_core_clock kHz,
 * raw_clock.tv_nsec as libmlx5 gives it). The generic profile has no
 * clock: such a CQ and the clock read are EOPNOTSUPP.
 */
static int
test_cq_timestamps(void)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 8,
		.wc_flags = CQ_FLAGS | IBV_WC_EX_WITH_COMPLETION_TIMESTAMP,
	};
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	struct ibv_device_attr_ex da;
	struct ibv_values_ex v0, v1;
	struct ibv_send_wr wr, *bad;
	struct ibv_cq_ex *cq;
	struct ibv_qp *qp;
	struct ibv_sge sge;
	struct rxbuf *rx;
	struct senv e;
	uint64_t ts;

	rx = malloc(sizeof(*rx));
	VT_CHECK(rx != NULL, "alloc");
	VT_CHECK_EQ(senv_open_profile(&e, "mem:objts", 16, 1, SV_PROFILE_MLX5),
		    0, "env");
	memset(&da, 0, sizeof(da));
	VT_CHECK_EQ(ibv_query_device_ex(e.d.ctx, NULL, &da), 0, "query");
	VT_CHECK(da.completion_timestamp_mask == SV_TIMESTAMP_MASK &&
			 da.hca_core_clock == SV_CORE_CLOCK_KHZ,
		 "mask %#" PRIx64 " clock %" PRIu64,
		 da.completion_timestamp_mask, da.hca_core_clock);
	cq = ibv_create_cq_ex(e.d.ctx, &ca);
	VT_CHECK(cq != NULL, "CQ with timestamps");
	qp = mk_send_qp(&e.d, cq, 8, 1, 0, 1);
	VT_CHECK(qp != NULL && qp_rts(qp) == 0, "QP");
	memset(&v0, 0, sizeof(v0));
	v0.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	v1 = v0;
	VT_CHECK_EQ(ibv_query_rt_values_ex(e.d.ctx, &v0), 0, "clock before");
	VT_CHECK(v0.comp_mask == IBV_VALUES_MASK_RAW_CLOCK &&
			 v0.raw_clock.tv_sec == 0,
		 "raw clock in tv_nsec");
	sge = (struct ibv_sge){ (uintptr_t)e.buf, mk_udp4(e.buf, 50, 3),
				e.mr->lkey };
	mk_wr(&wr, &sge, 5, IBV_SEND_SIGNALED);
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), 0, "send");
	VT_CHECK_EQ(ibv_query_rt_values_ex(e.d.ctx, &v1), 0, "clock after");
	VT_CHECK_EQ(ibv_start_poll(cq, &pa), 0, "completion");
	ts = ibv_wc_read_completion_ts(cq);
	ibv_end_poll(cq);
	VT_CHECK((uint64_t)v0.raw_clock.tv_nsec <= ts &&
			 ts <= (uint64_t)v1.raw_clock.tv_nsec,
		 "timestamp %" PRIu64 " not within %ld..%ld", ts,
		 v0.raw_clock.tv_nsec, v1.raw_clock.tv_nsec);
	VT_CHECK_EQ(peer_rx(e.peer, rx), 1, "sent");
	v0.comp_mask = 2;
	VT_CHECK_EQ(ibv_query_rt_values_ex(e.d.ctx, &v0), EINVAL,
		    "an unknown comp_mask bit");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "destroy QP");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "destroy CQ");
	VT_CHECK_EQ(senv_close(&e), 0, "close");

	VT_CHECK_EQ(senv_open(&e, "mem:objtsg", 16, 1), 0, "generic env");
	memset(&da, 0, sizeof(da));
	VT_CHECK_EQ(ibv_query_device_ex(e.d.ctx, NULL, &da), 0, "query");
	VT_CHECK(da.completion_timestamp_mask == 0 && da.hca_core_clock == 0,
		 "no clock");
	errno = 0;
	VT_CHECK(ibv_create_cq_ex(e.d.ctx, &ca) == NULL && errno == EOPNOTSUPP,
		 "timestamps without a clock");
	v0.comp_mask = IBV_VALUES_MASK_RAW_CLOCK;
	VT_CHECK_EQ(ibv_query_rt_values_ex(e.d.ctx, &v0), EOPNOTSUPP,
		    "no clock to read");
	VT_CHECK_EQ(senv_close(&e), 0, "close");
	free(rx);
	return VT_OK;
}

/* ---- counters ---- */

static int
test_counters(void)
{
	struct ibv_counters_init_attr ca = { .comp_mask = 1 };
	struct ibv_counter_attach_attr at = { 0 };
	struct ibv_counters *c, *c2;
	struct sv_counters *sc;
	struct ibv_flow fake;
	uint64_t v[4];
	struct tdev d;

	VT_CHECK_EQ(tdev_open(&d, "mem:objcnt", SV_PROFILE_GENERIC), 0, "open");
	VT_CHECK(ibv_create_counters(d.ctx, &ca) == NULL && errno == EOPNOTSUPP,
		 "comp_mask");
	ca.comp_mask = 0;
	c = ibv_create_counters(d.ctx, &ca);
	VT_CHECK(c != NULL, "create");
	sc = sv_container_of(c, struct sv_counters, c);
	memset(&fake, 0, sizeof(fake));
	at.counter_desc = IBV_COUNTER_PACKETS;
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &at, &fake), ENOTSUP,
		    "dynamic attach");
	at.counter_desc = (enum ibv_counter_description)(IBV_COUNTER_BYTES + 1);
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &at, NULL), ENOTSUP,
		    "unknown description");
	at.counter_desc = IBV_COUNTER_PACKETS;
	at.index = 0;
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &at, NULL), 0,
		    "packets at 0");
	at.counter_desc = IBV_COUNTER_BYTES;
	at.index = 2;
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &at, NULL), 0,
		    "bytes at 2");
	/* No flow uses it: the kernel reads nothing (uverbs: EINVAL). */
	VT_CHECK_EQ(ibv_read_counters(c, v, 4, 0), EINVAL, "read unbound");
	VT_CHECK_EQ(ibv_read_counters(c, v, 4, 1u << 5), EOPNOTSUPP,
		    "unknown read flag");

	/* Bound to a flow: no more attach, no destroy; values move. */
	VT_CHECK_EQ(sv_counters_bind(sc), 0, "bind");
	VT_CHECK_EQ(ibv_read_counters(c, v, 2, 0), EINVAL,
		    "ncounters below highest index + 1");
	memset(v, 0xff, sizeof(v));
	VT_CHECK_EQ(ibv_read_counters(c, v, 4,
				      IBV_READ_COUNTERS_ATTR_PREFER_CACHED),
		    0, "read");
	VT_CHECK(v[0] == 0 && v[1] == 0 && v[2] == 0 && v[3] == 0,
		 "cleared on creation; unused slots zero");
	at.counter_desc = IBV_COUNTER_PACKETS;
	at.index = 1;
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &at, NULL), EBUSY,
		    "attach after bind");
	VT_CHECK_EQ(ibv_destroy_counters(c), EBUSY, "destroy while bound");
	sv_counters_add(sc, 100);
	sv_counters_add(sc, 60);
	VT_CHECK_EQ(sv_counters_bind(sc), 0, "a second flow");
	sv_counters_add(sc, 40);
	VT_CHECK_EQ(ibv_read_counters(c, v, 3, 0), 0, "read");
	VT_CHECK(v[0] == 3 && v[1] == 0 && v[2] == 200,
		 "accumulated over flows: %llu %llu %llu",
		 (unsigned long long)v[0], (unsigned long long)v[1],
		 (unsigned long long)v[2]);
	sv_counters_unbind(sc);
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &at, NULL), EBUSY,
		    "one flow still bound");
	sv_counters_unbind(sc);
	VT_CHECK_EQ(ibv_read_counters(c, v, 3, 0), EINVAL,
		    "the last flow gone: not readable");
	/* Unbound: attach works again; points sharing an index add up.
	 * Bound again, the values go on from where they were (mlx5_ib
	 * keeps the hardware counter). */
	at.index = 2;
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &at, NULL), 0,
		    "packets at 2 as well");
	VT_CHECK_EQ(sv_counters_bind(sc), 0, "bound again");
	VT_CHECK_EQ(ibv_read_counters(c, v, 3, 0), 0, "read");
	VT_CHECK(v[0] == 3 && v[2] == 203, "index 2 = bytes + packets");
	sv_counters_add(sc, 10);
	VT_CHECK_EQ(ibv_read_counters(c, v, 3, 0), 0, "read");
	VT_CHECK(v[0] == 4 && v[2] == 214, "counting on: %llu %llu",
		 (unsigned long long)v[0], (unsigned long long)v[2]);
	sv_counters_unbind(sc);
	VT_CHECK_EQ(ibv_destroy_counters(c), 0, "destroy");

	/* An object without attach points cannot be bound. */
	c2 = ibv_create_counters(d.ctx, &ca);
	VT_CHECK(c2 != NULL, "create");
	VT_CHECK_EQ(sv_counters_bind(
			    sv_container_of(c2, struct sv_counters, c)),
		    EINVAL, "bind without points");
	VT_CHECK_EQ(ibv_read_counters(c2, NULL, 0, 0), EINVAL,
		    "never bound: nothing to read");
	VT_CHECK_EQ(ibv_destroy_counters(c2), 0, "destroy");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* ---- the receive path, end to end ---- */

/* A frame from the far end reaches a posted buffer through a flow on a
 * hash QP; the device has no thread: ibv_start_poll() on the empty CQ
 * pumps the port. Counters bound by the flow count it. */
static int
test_rx_through_flow(void)
{
	static uint8_t mem[4096];
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
		struct ibv_flow_spec_action_tag tag;
		struct ibv_flow_spec_counter_action count;
	} fa;
	struct ibv_counter_attach_attr at = { 0 };
	struct ibv_counters_init_attr ca = { 0 };
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_rwq_ind_table *ind;
	struct ibv_counters *cnt;
	struct ibv_recv_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_cq_ex *cq;
	struct ibv_flow *flow;
	struct ibv_wq *wq;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct sv_wire *peer;
	struct iovec iov;
	unsigned int first[2] = { 0, 1 };
	uint8_t mac[6], pmac[6], frame[128];
	uint64_t v[2];
	struct wc w[4];
	struct tdev d;
	int end, i;

	VT_CHECK_EQ(tdev_open(&d, "mem:objrx", SV_PROFILE_GENERIC), 0, "open");
	VT_CHECK_EQ(sv_wire_open("mem:objrx", &peer, &end, pmac), 0, "peer");
	VT_CHECK_EQ(softverbs_port_mac(d.ctx, 1, mac), 0, "mac");
	cq = mk_cq(&d, 16);
	wq = mk_wq(&d, cq, 4, 1);
	mr = sv_reg_mr(d.pd, mem, sizeof(mem), IBV_ACCESS_LOCAL_WRITE);
	VT_CHECK(cq && wq && mr, "objects");
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_RDY), 0, "RDY");
	sge = (struct ibv_sge){ (uintptr_t)mem, 2048, mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = 77;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	VT_CHECK_EQ(ibv_post_wq_recv(wq, &wr, &bad), 0, "post");
	memset(&ia, 0, sizeof(ia));
	ia.ind_tbl = &wq;
	ind = ibv_create_rwq_ind_table(d.ctx, &ia);
	qp = ind == NULL ? NULL : mk_hash_qp(&d, ind, 0, 40);
	VT_CHECK(qp != NULL, "hash QP");
	cnt = ibv_create_counters(d.ctx, &ca);
	VT_CHECK(cnt != NULL, "counters");
	at.counter_desc = IBV_COUNTER_PACKETS;
	VT_CHECK_EQ(ibv_attach_counters_point_flow(cnt, &at, NULL), 0, "pkts");
	at.counter_desc = IBV_COUNTER_BYTES;
	at.index = 1;
	VT_CHECK_EQ(ibv_attach_counters_point_flow(cnt, &at, NULL), 0, "bytes");

	memset(&fa, 0, sizeof(fa));
	fa.attr.type = IBV_FLOW_ATTR_NORMAL;
	fa.attr.size = sizeof(fa);
	fa.attr.num_of_specs = 3;
	fa.attr.port = 1;
	fa.eth.type = IBV_FLOW_SPEC_ETH;
	fa.eth.size = sizeof(fa.eth);
	memcpy(fa.eth.val.dst_mac, mac, 6);
	memset(fa.eth.mask.dst_mac, 0xff, 6);
	fa.tag.type = IBV_FLOW_SPEC_ACTION_TAG;
	fa.tag.size = sizeof(fa.tag);
	fa.tag.tag_id = 0xbeef;
	fa.count.type = IBV_FLOW_SPEC_ACTION_COUNT;
	fa.count.size = sizeof(fa.count);
	fa.count.counters = cnt;
	flow = ibv_create_flow(qp, &fa.attr);
	VT_CHECK(flow != NULL, "flow: %s", strerror(errno));
	VT_CHECK_EQ(sv_destroy_qp(qp), EBUSY, "QP with a flow");
	VT_CHECK_EQ(ibv_attach_counters_point_flow(cnt, &at, NULL), EBUSY,
		    "counters bound by the flow");
	VT_CHECK_EQ(ibv_destroy_counters(cnt), EBUSY, "bound counters");

	for (i = 0; i < (int)sizeof(frame); i++)
		frame[i] = (uint8_t)(i * 7);
	memcpy(frame, mac, 6);
	memcpy(frame + 6, pmac, 6);
	frame[12] = 0x88;
	frame[13] = 0xb5;
	iov.iov_base = frame;
	iov.iov_len = sizeof(frame);
	VT_CHECK_EQ(sv_wire_tx(peer, &iov, first, 1), 1, "peer sends");
	VT_CHECK_EQ(poll_all(cq, w, 4), 1, "polling pumped the frame in");
	VT_CHECK(w[0].wr_id == 77 && w[0].status == IBV_WC_SUCCESS &&
			 w[0].byte_len == sizeof(frame) &&
			 w[0].flow_tag == 0xbeef,
		 "completion");
	VT_CHECK(memcmp(mem, frame, sizeof(frame)) == 0, "bytes");
	/* No buffer left: the next frame is dropped and counted. */
	VT_CHECK_EQ(sv_wire_tx(peer, &iov, first, 1), 1, "peer sends again");
	VT_CHECK_EQ(poll_all(cq, w, 4), 0, "nothing to complete");
	VT_CHECK_EQ(ibv_read_counters(cnt, v, 2, 0), 0, "read");
	VT_CHECK(v[0] == 2 && v[1] == 2 * sizeof(frame), "counted %llu %llu",
		 (unsigned long long)v[0], (unsigned long long)v[1]);

	VT_CHECK_EQ(ibv_destroy_flow(flow), 0, "destroy flow");
	VT_CHECK_EQ(ibv_destroy_counters(cnt), 0, "destroy counters");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "qp");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind), 0, "ind");
	VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "wq");
	VT_CHECK_EQ(sv_dereg_mr(mr), 0, "mr");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "cq");
	sv_wire_close(peer);
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* ---- threads ---- */

#define MT_FRAMES 3000
#define MT_BUFS 64
#define MT_BUFSZ 256

struct mt_q {
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	uint8_t *mem;
	uint32_t lkey;
	atomic_int got;
	atomic_int errors;
	pthread_t th;
};

struct mt {
	struct mt_q q[2];
	atomic_int stop;
	atomic_int delivered;
	uint8_t seen[MT_FRAMES];
	/* the sender thread */
	struct ibv_qp *sqp;
	struct ibv_cq_ex *scq;
	uint8_t *sbuf;
	uint32_t slkey;
	atomic_int sent, send_errors;
};

static int
mt_post(struct mt_q *q, unsigned int slot)
{
	struct ibv_sge sge = { (uintptr_t)q->mem + slot * MT_BUFSZ, MT_BUFSZ,
			       q->lkey };
	struct ibv_recv_wr wr = { .wr_id = slot,
				  .sg_list = &sge,
				  .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_wq_recv(q->wq, &wr, &bad);
}

struct mt_arg {
	struct mt *m;
	int qi;
};

/* An Rx lcore: poll (pumping the port when empty), record, repost. */
static void *
mt_poller(void *arg)
{
	struct mt_arg *a = arg;
	struct mt *m = a->m;
	struct mt_q *q = &m->q[a->qi];
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };

	while (!atomic_load(&m->stop)) {
		if (ibv_start_poll(q->cq, &pa) != 0) {
			sched_yield();
			continue;
		}
		do {
			unsigned int slot = (unsigned int)q->cq->wr_id;
			uint32_t seq;

			if (q->cq->status != IBV_WC_SUCCESS ||
			    ibv_wc_read_byte_len(q->cq) != 14 + 20 + 8 + 8) {
				atomic_fetch_add(&q->errors, 1);
			} else {
				memcpy(&seq, q->mem + slot * MT_BUFSZ + 42, 4);
				if (seq < MT_FRAMES)
					__atomic_fetch_add(&m->seen[seq], 1,
							   __ATOMIC_RELAXED);
				atomic_fetch_add(&q->got, 1);
			}
			if (mt_post(q, slot) != 0)
				atomic_fetch_add(&q->errors, 1);
			atomic_fetch_add(&m->delivered, 1);
		} while (ibv_next_poll(q->cq) == 0);
		ibv_end_poll(q->cq);
	}
	return NULL;
}

/* A Tx lcore on the same port: posts and reaps its own completions
 * (polling its empty CQ pumps the port too). */
static void *
mt_sender(void *arg)
{
	struct mt *m = arg;
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	/* Its own memory, after the receive buffers. */
	struct ibv_sge sge = { (uintptr_t)m->sbuf + 2 * MT_BUFS * MT_BUFSZ, 60,
			       m->slkey };
	struct ibv_send_wr wr, *bad;
	int inflight = 0;

	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	wr.send_flags = IBV_SEND_SIGNALED;
	while (!atomic_load(&m->stop)) {
		if (inflight < 8) {
			if (ibv_post_send(m->sqp, &wr, &bad) == 0)
				inflight++;
			else
				atomic_fetch_add(&m->send_errors, 1);
		}
		if (ibv_start_poll(m->scq, &pa) != 0)
			continue;
		do {
			if (m->scq->status != IBV_WC_SUCCESS)
				atomic_fetch_add(&m->send_errors, 1);
			inflight--;
			atomic_fetch_add(&m->sent, 1);
		} while (ibv_next_poll(m->scq) == 0);
		ibv_end_poll(m->scq);
		sched_yield();
	}
	return NULL;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A thread domain and a parent domain over d->pd holding it. */
static struct ibv_pd *
mk_td_pd(struct tdev *d, struct ibv_td **td)
{
	struct ibv_parent_domain_init_attr pa;

	*td = ibv_alloc_td(d->ctx, &(struct ibv_td_init_attr){ 0 });
	if (*td == NULL)
		return NULL;
	memset(&pa, 0, sizeof(pa));
	pa.pd = d->pd;
	pa.td = *td;
	return ibv_alloc_parent_domain(d->ctx, &pa);
}

/* A CQ polled by one thread. */
static struct ibv_cq_ex *
mk_cq_st(struct tdev *d, uint32_t cqe)
{
	struct ibv_cq_init_attr_ex a = {
		.cqe = cqe,
		.wc_flags = CQ_FLAGS,
		.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS,
		.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED,
	};

	return ibv_create_cq_ex(d->ctx, &a);
}

/* Two Rx lcores poll their own CQs while either pumps and delivers into
 * both, and a third posts sends on the port: every frame is delivered
 * exactly once, both queues get a share, nothing is lost for buffers.
 * With td, each thread's queue is made as the driver makes it: on a
 * parent domain of its own thread domain, with a single-threaded CQ, so
 * that softverbs takes no lock on them; the pump of either thread still
 * delivers into both. */
static int
mt_run(bool td)
{
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
	} fa;
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_rwq_ind_table *ind;
	struct ibv_wq *wqs[2];
	struct sv_port_stats st;
	struct mt_arg args[2];
	struct ibv_flow *flow;
	struct ibv_qp *qp;
	struct ibv_mr *mr;
	struct sv_wire *peer;
	struct ibv_td *tds[3] = { NULL, NULL, NULL };
	struct ibv_pd *pds[3] = { NULL, NULL, NULL }, *ppd;
	struct mt *m;
	struct tdev d;
	pthread_t sth;
	uint8_t mac[6], pmac[6], frames[16][64];
	struct iovec iov[16];
	unsigned int first[17];
	uint32_t seq = 0;
	double deadline;
	int end, i, j, n;

	m = calloc(1, sizeof(*m));
	VT_CHECK(m != NULL, "alloc");
	VT_CHECK_EQ(tdev_open(&d, "mem:objmt", SV_PROFILE_GENERIC), 0, "open");
	VT_CHECK_EQ(sv_wire_open("mem:objmt", &peer, &end, pmac), 0, "peer");
	VT_CHECK_EQ(softverbs_port_mac(d.ctx, 1, mac), 0, "mac");
	m->sbuf = calloc(3, MT_BUFS * MT_BUFSZ);
	mr = sv_reg_mr(d.pd, m->sbuf, 3 * MT_BUFS * MT_BUFSZ,
		       IBV_ACCESS_LOCAL_WRITE);
	VT_CHECK(m->sbuf != NULL && mr != NULL, "memory");
	for (i = 0; td && i < 3; i++) {
		pds[i] = mk_td_pd(&d, &tds[i]);
		VT_CHECK(pds[i] != NULL, "thread domain %d", i);
	}
	for (i = 0; i < 2; i++) {
		struct mt_q *q = &m->q[i];
		struct ibv_pd *dpd = d.pd;

		q->mem = m->sbuf + i * MT_BUFS * MT_BUFSZ;
		q->lkey = mr->lkey;
		q->cq = td ? mk_cq_st(&d, 2 * MT_BUFS) : mk_cq(&d, 2 * MT_BUFS);
		/* The buffers' MR is the plain PD's: the parent domain
		 * stands for it. */
		if (td)
			d.pd = pds[i];
		q->wq = q->cq == NULL ? NULL : mk_wq(&d, q->cq, MT_BUFS, 1);
		d.pd = dpd;
		VT_CHECK(q->wq != NULL, "queue %d", i);
		VT_CHECK_EQ(sv_container_of(q->wq, struct sv_wq, wq)->single,
			    td, "queue %d posts without a lock", i);
		VT_CHECK_EQ(sv_cq_from_ibv(ibv_cq_ex_to_cq(q->cq))->single, td,
			    "queue %d polls without a lock", i);
		VT_CHECK_EQ(wq_to(q->wq, IBV_WQS_RDY), 0, "RDY");
		for (j = 0; j < MT_BUFS; j++)
			VT_CHECK_EQ(mt_post(q, (unsigned int)j), 0, "post");
		wqs[i] = q->wq;
	}
	memset(&ia, 0, sizeof(ia));
	ia.log_ind_tbl_size = 1;
	ia.ind_tbl = wqs;
	ind = ibv_create_rwq_ind_table(d.ctx, &ia);
	VT_CHECK(ind != NULL, "table");
	qp = mk_hash_qp(&d, ind, F_V4, 40);
	VT_CHECK(qp != NULL, "hash qp");
	memset(&fa, 0, sizeof(fa));
	fa.attr.type = IBV_FLOW_ATTR_NORMAL;
	fa.attr.size = sizeof(fa);
	fa.attr.num_of_specs = 1;
	fa.attr.port = 1;
	fa.eth.type = IBV_FLOW_SPEC_ETH;
	fa.eth.size = sizeof(fa.eth);
	memcpy(fa.eth.val.dst_mac, mac, 6);
	memset(fa.eth.mask.dst_mac, 0xff, 6);
	flow = ibv_create_flow(qp, &fa.attr);
	VT_CHECK(flow != NULL, "flow");
	/* The sender's frames go to the far end, nobody reads them. */
	m->scq = td ? mk_cq_st(&d, 16) : mk_cq(&d, 16);
	ppd = d.pd;
	if (td)
		d.pd = pds[2];
	m->sqp = m->scq == NULL ? NULL : mk_send_qp(&d, m->scq, 8, 1, 0, 0);
	d.pd = ppd;
	VT_CHECK(m->sqp != NULL && qp_rts(m->sqp) == 0, "send qp");
	VT_CHECK_EQ(sv_qp(m->sqp)->single, td, "send queue without a lock");
	m->slkey = mr->lkey;

	for (i = 0; i < 2; i++) {
		args[i].m = m;
		args[i].qi = i;
		VT_CHECK_EQ(pthread_create(&m->q[i].th, NULL, mt_poller,
					   &args[i]),
			    0, "thread");
	}
	VT_CHECK_EQ(pthread_create(&sth, NULL, mt_sender, m), 0, "thread");
	deadline = now_s() + 10.0;
	while (seq < MT_FRAMES && now_s() < deadline) {
		/* Keep what is in flight below the posted buffers. */
		if ((int)seq - atomic_load(&m->delivered) > 32) {
			sched_yield();
			continue;
		}
		for (n = 0; n < 16 && seq < MT_FRAMES; n++, seq++) {
			uint8_t *f = frames[n];

			mk_udp4(f, 8, 0);
			memcpy(f, mac, 6);
			memcpy(f + 6, pmac, 6);
			/* The source address spreads frames over the table. */
			f[28] = (uint8_t)(seq >> 8);
			f[29] = (uint8_t)(seq * 37);
			memcpy(f + 42, &seq, 4);
			iov[n].iov_base = f;
			iov[n].iov_len = 14 + 20 + 8 + 8;
			first[n] = (unsigned int)n;
		}
		first[n] = (unsigned int)n;
		VT_CHECK_EQ(sv_wire_tx(peer, iov, first, (unsigned int)n),
			    (unsigned int)n, "peer sends");
	}
	while (atomic_load(&m->delivered) < MT_FRAMES && now_s() < deadline)
		sched_yield();
	/* On a busy machine the frames can all be in before the sender
	 * thread was first scheduled: give it until the deadline. */
	while (atomic_load(&m->sent) == 0 && now_s() < deadline)
		sched_yield();
	atomic_store(&m->stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(m->q[i].th, NULL);
	pthread_join(sth, NULL);

	VT_CHECK_EQ(atomic_load(&m->delivered), MT_FRAMES, "all delivered");
	for (i = 0; i < MT_FRAMES; i++)
		VT_CHECK_EQ(m->seen[i], 1, "frame %d seen once", i);
	for (i = 0; i < 2; i++) {
		VT_CHECK_EQ(atomic_load(&m->q[i].errors), 0, "queue %d", i);
		VT_CHECK(atomic_load(&m->q[i].got) > MT_FRAMES / 4,
			 "queue %d got a share: %d", i,
			 atomic_load(&m->q[i].got));
	}
	VT_CHECK(atomic_load(&m->sent) > 0, "the sender ran");
	VT_CHECK_EQ(atomic_load(&m->send_errors), 0, "send errors");
	VT_CHECK_EQ(softverbs_port_stats(d.ctx, 1, &st), 0, "stats");
	VT_CHECK_EQ(st.rx_no_buffer, 0, "never short of buffers");
	VT_CHECK_EQ(st.rx_frames, MT_FRAMES, "rx_frames");

	VT_CHECK_EQ(ibv_destroy_flow(flow), 0, "flow");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "qp");
	VT_CHECK_EQ(sv_destroy_qp(m->sqp), 0, "send qp");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(m->scq)), 0, "send cq");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind), 0, "ind");
	for (i = 0; i < 2; i++) {
		VT_CHECK_EQ(ibv_destroy_wq(m->q[i].wq), 0, "wq");
		VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(m->q[i].cq)), 0,
			    "cq");
	}
	for (i = 0; td && i < 3; i++) {
		VT_CHECK_EQ(sv_dealloc_pd(pds[i]), 0, "parent domain %d", i);
		VT_CHECK_EQ(ibv_dealloc_td(tds[i]), 0, "thread domain %d", i);
	}
	VT_CHECK_EQ(sv_dereg_mr(mr), 0, "mr");
	sv_wire_close(peer);
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	free(m->sbuf);
	free(m);
	return VT_OK;
}

/* ---- thread and parent domains ---- */

/*
 * What libmlx5 checks for thread and parent domains, clause by clause
 * (mlx5_alloc_td, mlx5_dealloc_td, mlx5_alloc_parent_domain,
 * mlx5_dealloc_parent_domain, create_cq, create_qp, create_wq), and that
 * a parent domain stands for its protection domain.
 */
static int
test_thread_domains(void)
{
	static uint8_t mem[4096];
	struct ibv_parent_domain_init_attr pa;
	struct ibv_cq_init_attr_ex ca;
	struct ibv_pd *par, *par2, *pd2, *hpd;
	struct ibv_td *td;
	struct ibv_cq_ex *cq, *pcq;
	struct ibv_wq *wq;
	struct ibv_qp *sqp, *hqp;
	struct ibv_rwq_ind_table *ind;
	struct ibv_rwq_ind_table_init_attr ia;
	struct ibv_mr *mr, *mr2;
	struct ibv_recv_wr rwr, *rbad;
	struct ibv_sge sge;
	struct wc w[4];
	uint8_t frame[64];
	struct tdev d;

	VT_CHECK_EQ(tdev_open(&d, "mem:objtd", SV_PROFILE_MLX5), 0, "open");
	/* mlx5_alloc_td(): no comp_mask bit exists. */
	VT_CHECK(ibv_alloc_td(d.ctx, &(struct ibv_td_init_attr){ 1 }) == NULL &&
			 errno == EINVAL,
		 "td comp_mask");
	td = ibv_alloc_td(d.ctx, &(struct ibv_td_init_attr){ 0 });
	VT_CHECK(td != NULL && td->context == d.ctx, "td");

	/* ibv_check_alloc_parent_domain(): a protection domain is needed. */
	memset(&pa, 0, sizeof(pa));
	pa.td = td;
	VT_CHECK(ibv_alloc_parent_domain(d.ctx, &pa) == NULL && errno == EINVAL,
		 "parent domain without pd");
	/* mlx5_alloc_parent_domain(): allocators and a context only. */
	pa.pd = d.pd;
	pa.comp_mask = 1u << 2;
	VT_CHECK(ibv_alloc_parent_domain(d.ctx, &pa) == NULL && errno == EINVAL,
		 "unknown parent domain comp_mask bit");
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.pd_context = &pa;
	par = ibv_alloc_parent_domain(d.ctx, &pa);
	VT_CHECK(par != NULL, "parent domain");
	/* ibv_initialize_parent_domain(): the PD's context and handle. */
	VT_CHECK(par->context == d.ctx && par->handle == d.pd->handle,
		 "stands for its pd");
	/* A parent domain without a thread domain, and one over another
	 * parent domain. */
	pa.td = NULL;
	pa.comp_mask = 0;
	par2 = ibv_alloc_parent_domain(d.ctx, &pa);
	VT_CHECK(par2 != NULL, "parent domain without td");
	pa.pd = par;
	pd2 = ibv_alloc_parent_domain(d.ctx, &pa);
	VT_CHECK(pd2 != NULL && pd2->handle == d.pd->handle, "nested");

	/* mlx5_dealloc_td(): while a parent domain holds it, EBUSY; the
	 * same for the protection domain (its refcount) and for a parent
	 * domain another one was made over. */
	VT_CHECK_EQ(ibv_dealloc_td(td), EBUSY, "td held by a parent domain");
	VT_CHECK_EQ(sv_dealloc_pd(d.pd), EBUSY, "pd held by parent domains");
	VT_CHECK_EQ(sv_dealloc_pd(par), EBUSY, "parent held by a nested one");
	VT_CHECK_EQ(sv_close_device(d.ctx), EBUSY, "close with live domains");
	VT_CHECK_EQ(sv_dealloc_pd(pd2), 0, "nested gone");
	VT_CHECK_EQ(sv_dealloc_pd(par2), 0, "parent without td gone");

	/* create_cq(): IBV_CQ_INIT_ATTR_MASK_PD takes a parent domain only,
	 * and holds it; unknown comp_mask bits and flags are EINVAL. */
	memset(&ca, 0, sizeof(ca));
	ca.cqe = 16;
	ca.wc_flags = CQ_FLAGS;
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD;
	ca.parent_domain = d.pd;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &ca) == NULL && errno == EINVAL,
		 "cq on a plain pd");
	ca.comp_mask = 1u << 7;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &ca) == NULL && errno == EINVAL,
		 "cq comp_mask (mlx5)");
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.flags = 1u << 5;
	VT_CHECK(ibv_create_cq_ex(d.ctx, &ca) == NULL && errno == EINVAL,
		 "cq flags (mlx5)");
	ca.comp_mask = IBV_CQ_INIT_ATTR_MASK_PD | IBV_CQ_INIT_ATTR_MASK_FLAGS;
	ca.flags = IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	ca.parent_domain = par;
	pcq = ibv_create_cq_ex(d.ctx, &ca);
	VT_CHECK(pcq != NULL, "single-threaded cq on the parent domain");
	VT_CHECK(sv_cq_from_ibv(ibv_cq_ex_to_cq(pcq))->single, "no poll lock");
	VT_CHECK_EQ(sv_dealloc_pd(par), EBUSY, "parent held by its cq");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(pcq)), 0, "cq gone");

	/* A send QP holds the parent domain (create_qp()), a WQ does not
	 * (create_wq()): both take no lock in a thread domain. */
	cq = mk_cq(&d, 64);
	VT_CHECK(cq != NULL, "cq");
	hpd = d.pd;
	d.pd = par;
	sqp = mk_send_qp(&d, cq, 8, 1, 0, 0);
	wq = mk_wq(&d, cq, 8, 1);
	d.pd = hpd;
	VT_CHECK(sqp != NULL && wq != NULL, "qp and wq on the parent domain");
	VT_CHECK(sv_qp(sqp)->single, "send queue without a lock");
	VT_CHECK(sv_container_of(wq, struct sv_wq, wq)->single,
		 "wq without a lock");
	VT_CHECK_EQ(sv_dealloc_pd(par), EBUSY, "parent held by its send qp");
	/* A hash QP on it holds none either (the RSS path of create_qp()
	 * returns before the reference is taken). */
	memset(&ia, 0, sizeof(ia));
	ia.log_ind_tbl_size = 0;
	ia.ind_tbl = &wq;
	ind = ibv_create_rwq_ind_table(d.ctx, &ia);
	VT_CHECK(ind != NULL, "ind");
	d.pd = par;
	hqp = mk_hash_qp(&d, ind, F_V4, 40);
	d.pd = hpd;
	VT_CHECK(hqp != NULL, "hash qp on the parent domain");

	/* Memory registered through either domain is the protection
	 * domain's: a WQ made on the parent domain receives into an MR of
	 * the plain PD, not into one of another PD. */
	mr = sv_reg_mr(par, mem, 2048, IBV_ACCESS_LOCAL_WRITE);
	VT_CHECK(mr != NULL && mr->pd == par, "mr through the parent domain");
	VT_CHECK_EQ(sv_dealloc_pd(par), EBUSY, "still held by the send qp");
	hpd = sv_alloc_pd(d.ctx);
	VT_CHECK(hpd != NULL, "another pd");
	mr2 = sv_reg_mr(hpd, mem + 2048, 2048, IBV_ACCESS_LOCAL_WRITE);
	VT_CHECK(mr2 != NULL, "mr of another pd");
	VT_CHECK_EQ(wq_to(wq, IBV_WQS_RDY), 0, "RDY");
	memset(&rwr, 0, sizeof(rwr));
	rwr.sg_list = &sge;
	rwr.num_sge = 1;
	sge = (struct ibv_sge){ (uintptr_t)mem, 256, mr->lkey };
	rwr.wr_id = 1;
	VT_CHECK_EQ(ibv_post_wq_recv(wq, &rwr, &rbad), 0, "post");
	sge = (struct ibv_sge){ (uintptr_t)mem + 2048, 256, mr2->lkey };
	rwr.wr_id = 2;
	VT_CHECK_EQ(ibv_post_wq_recv(wq, &rwr, &rbad), 0, "post");
	mk_udp4(frame, 22, 0x77);
	VT_CHECK_EQ(sv_wq_deliver(sv_container_of(wq, struct sv_wq, wq), frame,
				  64, NULL, 0),
		    0, "deliver");
	VT_CHECK_EQ(sv_wq_deliver(sv_container_of(wq, struct sv_wq, wq), frame,
				  64, NULL, 0),
		    0, "deliver");
	VT_CHECK_EQ(poll_all(cq, w, 4), 2, "two completions");
	VT_CHECK(w[0].wr_id == 1 && w[0].status == IBV_WC_SUCCESS &&
			 w[0].byte_len == 64 && memcmp(mem, frame, 64) == 0,
		 "the protection domain's memory");
	VT_CHECK(w[1].wr_id == 2 && w[1].status == IBV_WC_LOC_PROT_ERR,
		 "another pd's memory: %d", w[1].status);

	VT_CHECK_EQ(sv_dereg_mr(mr2), 0, "mr2");
	VT_CHECK_EQ(sv_dealloc_pd(hpd), 0, "other pd");
	VT_CHECK_EQ(sv_destroy_qp(sqp), 0, "send qp");
	/* Only the WQ and the hash QP are left on it: they hold none. */
	VT_CHECK_EQ(sv_dealloc_pd(par), 0, "parent domain gone");
	VT_CHECK_EQ(ibv_dealloc_td(td), 0, "td gone with it");
	/* The protection domain is still held by the MR, WQ and hash QP. */
	VT_CHECK_EQ(sv_dealloc_pd(d.pd), EBUSY, "pd held by its objects");
	VT_CHECK_EQ(sv_destroy_qp(hqp), 0, "hash qp");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind), 0, "ind");
	VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "wq");
	VT_CHECK_EQ(sv_dereg_mr(mr), 0, "mr");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "cq");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

/* A parent domain's allocators, as libmlx5 uses them: the buffers of the
 * QPs and WQs made on it come from alloc (MLX5DV_RES_TYPE_QP / _RWQ, with
 * its pd_context) and go back through free; IBV_ALLOCATOR_USE_DEFAULT
 * leaves the buffer to the provider, NULL fails the creation. */
struct td_alloc {
	int mode; /* 0: allocate, 1: use default, 2: fail */
	int allocs, frees, rwq, qp;
	void *ctx_seen;
};

static void *
td_alloc_cb(struct ibv_pd *pd, void *pd_context, size_t size, size_t alignment,
	    uint64_t resource_type)
{
	struct td_alloc *t = pd_context;
	void *p;

	(void)pd;
	t->ctx_seen = pd_context;
	if (t->mode == 1)
		return IBV_ALLOCATOR_USE_DEFAULT;
	if (t->mode == 2)
		return NULL;
	if (posix_memalign(&p, alignment, size) != 0)
		return NULL;
	memset(p, 0, size);
	t->allocs++;
	t->rwq += resource_type == MLX5DV_RES_TYPE_RWQ;
	t->qp += resource_type == MLX5DV_RES_TYPE_QP;
	return p;
}

static void
td_free_cb(struct ibv_pd *pd, void *pd_context, void *ptr,
	   uint64_t resource_type)
{
	struct td_alloc *t = pd_context;

	(void)pd;
	(void)resource_type;
	t->frees++;
	free(ptr);
}

static int
test_parent_domain_allocators(void)
{
	struct ibv_parent_domain_init_attr pa;
	struct td_alloc t;
	struct ibv_cq_ex *cq;
	struct ibv_pd *par, *ppd;
	struct ibv_wq *wq;
	struct ibv_qp *qp;
	struct tdev d;

	memset(&t, 0, sizeof(t));
	VT_CHECK_EQ(tdev_open(&d, "mem:objalloc", SV_PROFILE_MLX5), 0, "open");
	memset(&pa, 0, sizeof(pa));
	pa.pd = d.pd;
	pa.comp_mask = IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS |
		       IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT;
	pa.alloc = td_alloc_cb;
	pa.free = td_free_cb;
	pa.pd_context = &t;
	par = ibv_alloc_parent_domain(d.ctx, &pa);
	VT_CHECK(par != NULL, "parent domain with allocators");
	cq = mk_cq(&d, 64);
	VT_CHECK(cq != NULL, "cq");
	ppd = d.pd;
	d.pd = par;
	wq = mk_wq(&d, cq, 8, 1);
	qp = mk_send_qp(&d, cq, 8, 1, 0, 0);
	VT_CHECK(wq != NULL && qp != NULL, "wq and qp");
	VT_CHECK(t.allocs == 2 && t.rwq == 1 && t.qp == 1 && t.ctx_seen == &t,
		 "buffers from alloc: %d (rwq %d, qp %d)", t.allocs, t.rwq,
		 t.qp);
	VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "wq");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "qp");
	VT_CHECK_EQ(t.frees, 2, "given back through free");
	t.mode = 1;
	wq = mk_wq(&d, cq, 8, 1);
	VT_CHECK(wq != NULL && t.allocs == 2, "default allocation");
	VT_CHECK_EQ(ibv_destroy_wq(wq), 0, "wq");
	VT_CHECK_EQ(t.frees, 2, "nothing to give back");
	t.mode = 2;
	VT_CHECK(mk_wq(&d, cq, 8, 1) == NULL && errno == ENOMEM,
		 "the allocator failed");
	VT_CHECK(mk_send_qp(&d, cq, 8, 1, 0, 0) == NULL && errno == ENOMEM,
		 "the allocator failed");
	d.pd = ppd;
	VT_CHECK_EQ(sv_dealloc_pd(par), 0, "parent domain");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(cq)), 0, "cq");
	VT_CHECK_EQ(tdev_close(&d), 0, "close");
	return VT_OK;
}

static int
test_threads(void)
{
	return mt_run(false);
}

static int
test_threads_td(void)
{
	return mt_run(true);
}

static const struct vt_case cases[] = {
	VT_CASE(test_device_list_open_close),
	VT_CASE(test_query_device),
	VT_CASE(test_query_port),
	VT_CASE(test_mr),
	VT_CASE(test_cq),
	VT_CASE(test_wq_create_modify),
	VT_CASE(test_wq_deliver),
	VT_CASE(test_wq_error_state),
	VT_CASE(test_ind_table),
	VT_CASE(test_hash_qp_generic),
	VT_CASE(test_hash_qp_mlx5),
	VT_CASE(test_hash_qp_tunnel),
	VT_CASE(test_device_opts),
	VT_CASE(test_ind_table_opt),
	VT_CASE(test_qp_state_machine),
	VT_CASE(test_send_wire),
	VT_CASE(test_tso_send),
	VT_CASE(test_cq_timestamps),
	VT_CASE(test_send_immediate_errors),
	VT_CASE(test_send_queue_blocks),
	VT_CASE(test_send_queue_full),
	VT_CASE(test_send_local_errors),
	VT_CASE(test_send_ip_csum),
	VT_CASE(test_counters),
	VT_CASE(test_rx_through_flow),
	VT_CASE(test_thread_domains),
	VT_CASE(test_parent_domain_allocators),
	VT_CASE(test_threads),
	VT_CASE(test_threads_td),
	{ 0 },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
