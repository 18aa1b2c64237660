/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VT_SVENV_H
#define VT_SVENV_H

/*
 * Two softverbs devices on an in-memory link, for tests that send and
 * receive real frames: end 0 (generic profile) and end 1 (mlx5 profile,
 * as rdma-core + the mlx5 kernel, or cfg->opts1). Each end has a PD and a raw packet
 * send QP; end 1 has cfg->nq receive queues, each a WQ on a CQ-ex behind
 * a 1-entry indirection table and a hash QP, ready for flow rules.
 *
 *   static const struct vt_svenv_cfg cfg = { .link_prefix = "mytest", ... };
 *   struct vt_svenv e;
 *   if (vt_svenv_up(&e, &cfg) != 0) ...
 *   vt_svenv_xmit(&e, 0, frame, len);
 *   vt_svenv_down(&e);
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "softverbs.h"
#include "sv_internal.h"

#define VT_SVENV_MAXQ 4	    /* receive queues on end 1, at most */
#define VT_SVENV_BUFSZ 2048 /* bytes per receive and send buffer */

struct vt_svenv_cfg {
	const char *link_prefix; /* link is "mem:<prefix>-<pid>-<n>" */
	unsigned int nq;	 /* receive queues on end 1 */
	unsigned int nbuf;	 /* receive buffers per queue */
	int rx_cqe;		 /* CQ-ex entries per receive queue */
	unsigned int tx_wr;	 /* max_send_wr (send CQ gets twice that) */
	unsigned int tx_slots;	 /* send buffers, used in turn */
	const uint8_t *rss_key;	 /* SV_RSS_KEY_LEN bytes, for hash QPs */
	bool pump;		 /* create an empty CQ-ex on end 1 */
	/* End 1's device options; NULL: the mlx5 profile's defaults. */
	const struct sv_device_opts *opts1;
};

struct vt_rxq {
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_rwq_ind_table *ind; /* 1 entry: this WQ */
	struct ibv_qp *hqp;	       /* hash QP over ind */
};

struct vt_txq {
	struct ibv_cq *cq;
	struct ibv_qp *qp; /* raw send QP */
	struct ibv_mr *mr;
	uint8_t *buf;
	unsigned int slot;
};

struct vt_svenv {
	const struct vt_svenv_cfg *cfg;
	char name[2][64];
	struct ibv_context *ctx[2];
	struct ibv_pd *pd[2];
	struct vt_txq tx[2];		/* raw send QP on each end */
	struct vt_rxq q[VT_SVENV_MAXQ]; /* on end 1 */
	struct ibv_cq_ex *pump; /* empty CQ of end 1 (cfg->pump): polling pumps */
	uint64_t rx_expect;	/* frames end 1 should have taken */
};

static inline double
vt_now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static inline struct ibv_context *
vt_open_by_name(const char *name)
{
	struct ibv_context *ctx = NULL;
	struct ibv_device **list;
	int n, i;

	list = sv_get_device_list(&n);
	if (list == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		if (strcmp(sv_get_device_name(list[i]), name) == 0)
			ctx = sv_open_device(list[i]);
	sv_free_device_list(list);
	return ctx;
}

/* Post receive buffer idx of q (wr_id is the index). */
static inline int
vt_svenv_post_rx(struct vt_rxq *q, uint64_t idx)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(q->buf + idx * VT_SVENV_BUFSZ),
		.length = VT_SVENV_BUFSZ,
		.lkey = q->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = idx, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad = NULL;

	return ibv_post_wq_recv(q->wq, &wr, &bad);
}

/* A Toeplitz hash QP on an end over ind, hashing fields. */
static inline struct ibv_qp *
vt_svenv_hash_qp_on(struct vt_svenv *e, int end, struct ibv_rwq_ind_table *ind,
		    uint64_t fields)
{
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.pd = e->pd[end],
		.rwq_ind_tbl = ind,
		.rx_hash_conf = {
			.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
			.rx_hash_key_len = SV_RSS_KEY_LEN,
			.rx_hash_key = (uint8_t *)(uintptr_t)e->cfg->rss_key,
			.rx_hash_fields_mask = fields,
		},
	};

	return ibv_create_qp_ex(e->ctx[end], &qa);
}

/* ... on end 1. */
static inline struct ibv_qp *
vt_svenv_hash_qp(struct vt_svenv *e, struct ibv_rwq_ind_table *ind,
		 uint64_t fields)
{
	return vt_svenv_hash_qp_on(e, 1, ind, fields);
}

/* A receive queue on an end with nposted of its cfg->nbuf buffers
 * posted. */
static inline int
vt_svenv_rxq_up_on(struct vt_svenv *e, int end, struct vt_rxq *q,
		   unsigned int nposted)
{
	size_t bytes = (size_t)e->cfg->nbuf * VT_SVENV_BUFSZ;
	struct ibv_cq_init_attr_ex ca = {
		.cqe = e->cfg->rx_cqe,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_FLOW_TAG,
	};
	struct ibv_wq_init_attr wa = {
		.wq_type = IBV_WQT_RQ,
		.max_wr = e->cfg->nbuf,
		.max_sge = 1,
	};
	struct ibv_wq_attr ma = {
		.attr_mask = IBV_WQ_ATTR_STATE,
		.wq_state = IBV_WQS_RDY,
	};
	struct ibv_rwq_ind_table_init_attr ia = { .log_ind_tbl_size = 0 };
	unsigned int i;

	memset(q, 0, sizeof(*q));
	wa.pd = e->pd[end];
	q->cq = ibv_create_cq_ex(e->ctx[end], &ca);
	if (q->cq == NULL)
		return -1;
	wa.cq = ibv_cq_ex_to_cq(q->cq);
	q->wq = ibv_create_wq(e->ctx[end], &wa);
	if (q->wq == NULL || ibv_modify_wq(q->wq, &ma) != 0)
		return -1;
	q->buf = aligned_alloc(64, bytes);
	if (q->buf == NULL)
		return -1;
	memset(q->buf, 0, bytes);
	q->mr = sv_reg_mr(e->pd[end], q->buf, bytes, IBV_ACCESS_LOCAL_WRITE);
	if (q->mr == NULL)
		return -1;
	for (i = 0; i < nposted; i++)
		if (vt_svenv_post_rx(q, i) != 0)
			return -1;
	ia.ind_tbl = &q->wq;
	q->ind = ibv_create_rwq_ind_table(e->ctx[end], &ia);
	if (q->ind == NULL)
		return -1;
	q->hqp = vt_svenv_hash_qp_on(e, end, q->ind, 0);
	return q->hqp == NULL ? -1 : 0;
}

/* ... on end 1. */
static inline int
vt_svenv_rxq_up(struct vt_svenv *e, struct vt_rxq *q, unsigned int nposted)
{
	return vt_svenv_rxq_up_on(e, 1, q, nposted);
}

/* Destroy a receive queue: 0, or a non-zero errno of some destroy. */
static inline int
vt_svenv_rxq_down(struct vt_rxq *q)
{
	int rc = 0;

	rc |= sv_destroy_qp(q->hqp);
	rc |= ibv_destroy_rwq_ind_table(q->ind);
	rc |= ibv_destroy_wq(q->wq);
	rc |= sv_destroy_cq(ibv_cq_ex_to_cq(q->cq));
	rc |= sv_dereg_mr(q->mr);
	free(q->buf);
	return rc;
}

/* A raw packet send QP on an end, moved to RTS. */
static inline int
vt_svenv_txq_up(struct vt_svenv *e, int end, struct vt_txq *t)
{
	size_t bytes = (size_t)e->cfg->tx_slots * VT_SVENV_BUFSZ;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = { .max_send_wr = e->cfg->tx_wr, .max_send_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_qp_attr ma;

	t->cq = sv_create_cq(e->ctx[end], e->cfg->tx_wr * 2, NULL, NULL, 0);
	if (t->cq == NULL)
		return -1;
	qa.send_cq = t->cq;
	qa.recv_cq = t->cq;
	t->qp = sv_create_qp(e->pd[end], &qa);
	if (t->qp == NULL)
		return -1;
	memset(&ma, 0, sizeof(ma));
	ma.qp_state = IBV_QPS_INIT;
	ma.port_num = 1;
	if (sv_modify_qp(t->qp, &ma, IBV_QP_STATE | IBV_QP_PORT) != 0)
		return -1;
	ma.qp_state = IBV_QPS_RTR;
	if (sv_modify_qp(t->qp, &ma, IBV_QP_STATE) != 0)
		return -1;
	ma.qp_state = IBV_QPS_RTS;
	if (sv_modify_qp(t->qp, &ma, IBV_QP_STATE) != 0)
		return -1;
	t->buf = aligned_alloc(64, bytes);
	if (t->buf == NULL)
		return -1;
	t->mr = sv_reg_mr(e->pd[end], t->buf, bytes, IBV_ACCESS_LOCAL_WRITE);
	return t->mr == NULL ? -1 : 0;
}

static inline int
vt_svenv_up(struct vt_svenv *e, const struct vt_svenv_cfg *cfg)
{
	static unsigned int link_no;
	struct ibv_cq_init_attr_ex ca = { .cqe = 16 };
	struct sv_device_opts opts;
	char link[64];
	unsigned int i;

	memset(e, 0, sizeof(*e));
	memset(&opts, 0, sizeof(opts));
	e->cfg = cfg;
	if (cfg->nq > VT_SVENV_MAXQ)
		return -1;
	snprintf(link, sizeof(link), "mem:%s-%d-%u", cfg->link_prefix,
		 (int)getpid(), link_no++);
	for (i = 0; i < 2; i++) {
		/* End 0 generic, end 1 as rdma-core + the mlx5 kernel. */
		opts.profile = i == 0 ? SV_PROFILE_GENERIC : SV_PROFILE_MLX5;
		if (i == 1 && cfg->opts1 != NULL)
			opts = *cfg->opts1;
		if (softverbs_device_add(link, &opts, e->name[i],
					 sizeof(e->name[i])) != 0)
			return -1;
		e->ctx[i] = vt_open_by_name(e->name[i]);
		if (e->ctx[i] == NULL)
			return -1;
		e->pd[i] = sv_alloc_pd(e->ctx[i]);
		if (e->pd[i] == NULL)
			return -1;
		if (vt_svenv_txq_up(e, i, &e->tx[i]) != 0)
			return -1;
	}
	for (i = 0; i < cfg->nq; i++)
		if (vt_svenv_rxq_up(e, &e->q[i], cfg->nbuf) != 0)
			return -1;
	if (!cfg->pump)
		return 0;
	e->pump = ibv_create_cq_ex(e->ctx[1], &ca);
	return e->pump == NULL ? -1 : 0;
}

static inline int
vt_svenv_down(struct vt_svenv *e)
{
	unsigned int i;
	int rc = 0;

	for (i = 0; i < e->cfg->nq; i++)
		rc |= vt_svenv_rxq_down(&e->q[i]);
	if (e->cfg->pump)
		rc |= sv_destroy_cq(ibv_cq_ex_to_cq(e->pump));
	for (i = 0; i < 2; i++) {
		rc |= sv_destroy_qp(e->tx[i].qp);
		rc |= sv_destroy_cq(e->tx[i].cq);
		rc |= sv_dereg_mr(e->tx[i].mr);
		free(e->tx[i].buf);
		rc |= sv_dealloc_pd(e->pd[i]);
		rc |= sv_close_device(e->ctx[i]);
		rc |= softverbs_device_remove(e->name[i]);
	}
	return rc;
}

/* Send one frame from an end (in the next send buffer) and reap its send
 * completion, waiting at most 2 s. */
static inline int
vt_svenv_xmit(struct vt_svenv *e, int end, const uint8_t *frame, uint32_t len)
{
	struct vt_txq *t = &e->tx[end];
	uint8_t *slot =
		t->buf + (t->slot++ % e->cfg->tx_slots) * VT_SVENV_BUFSZ;
	struct ibv_sge sge = {
		.addr = (uintptr_t)slot,
		.length = len,
		.lkey = t->mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = t->slot,
		.sg_list = &sge,
		.num_sge = 1,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad = NULL;
	double deadline = vt_now_s() + 2.0;
	struct ibv_wc wc;
	int n;

	memcpy(slot, frame, len);
	if (ibv_post_send(t->qp, &wr, &bad) != 0)
		return -1;
	do {
		n = ibv_poll_cq(t->cq, 1, &wc);
	} while (n == 0 && vt_now_s() < deadline);
	if (n != 1 || wc.status != IBV_WC_SUCCESS)
		return -1;
	return 0;
}

/* Port counters of an end (zeroed if the query fails). */
static inline struct sv_port_stats
vt_svenv_stats(struct vt_svenv *e, int end)
{
	struct sv_port_stats st;

	memset(&st, 0, sizeof(st));
	softverbs_port_stats(e->ctx[end], 1, &st);
	return st;
}

#endif /* VT_SVENV_H */
