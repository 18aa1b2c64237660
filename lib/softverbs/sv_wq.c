/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Receive work queues (ibv_create_wq(3), ibv_modify_wq(3),
 * ibv_post_wq_recv) and receive WQ indirection tables
 * (ibv_create_rwq_ind_table(3)), and the delivery of a steered frame into
 * the oldest posted buffer of a WQ.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sv_csum.h"
#include "sv_internal.h"

#define SV_WQ_ETH_HLEN 14u
#define SV_WQ_ETH_P_8021Q 0x8100

/* VLAN stripping takes the outer tag out when it is a customer (802.1Q)
 * tag; the completion carries its TCI (the CQE's vlan_info, only valid
 * for a stripped frame: mlx5_cq_read_wc_cvlan). */
bool
sv_wq_strip(const uint8_t *frame, uint32_t len, uint16_t *tci)
{
	if (len < SV_WQ_ETH_HLEN + SV_WQ_STRIP_LEN ||
	    sv_rd16(frame + SV_WQ_STRIP_AT) != SV_WQ_ETH_P_8021Q)
		return false;
	*tci = sv_rd16(frame + SV_WQ_STRIP_AT + 2);
	return true;
}

static inline struct sv_wq *
sv_wq_of(struct ibv_wq *wq)
{
	return sv_container_of(wq, struct sv_wq, wq);
}

/* WQE number i (free running) of the ring. */
static inline struct sv_rwqe *
sv_wq_wqe(const struct sv_wq *wq, uint32_t i)
{
	return (struct sv_rwqe *)(void *)(wq->ring +
					  (size_t)(i & (wq->size - 1)) *
						  wq->stride);
}

static inline struct sv_ind *
sv_ind_of(struct ibv_rwq_ind_table *t)
{
	return sv_container_of(t, struct sv_ind, ind);
}

/* Complete every posted WR with IBV_WC_WR_FLUSH_ERR (WQ in error). The
 * device side: called with the port's pump lock held. */
static void
sv_wq_flush_locked(struct sv_wq *wq)
{
	uint32_t tail = __atomic_load_n(&wq->tail, __ATOMIC_ACQUIRE);
	struct sv_cqe cqe;

	while (wq->head != tail) {
		const struct sv_rwqe *e = sv_wq_wqe(wq, wq->head);

		memset(&cqe, 0, sizeof(cqe));
		cqe.wr_id = e->wr_id;
		cqe.status = IBV_WC_WR_FLUSH_ERR;
		cqe.opcode = IBV_WC_RECV;
		cqe.qp_num = wq->wq.wq_num;
		__atomic_store_n(&wq->head, wq->head + 1, __ATOMIC_RELEASE);
		sv_cq_push_rx(wq->cq, &cqe);
	}
}

static inline struct sv_port *
sv_wq_port(const struct sv_wq *wq)
{
	return &wq->ctx->dev->port;
}

/*
 * ibv_post_wq_recv. Buffers may be posted in any state (the verbs pages
 * put no condition on it and providers accept it); frames are only
 * delivered in IBV_WQS_RDY. Buffers posted to a WQ in error are flushed
 * at once, as a QP in error flushes its receive queue. Posts lock against
 * each other unless the WQ belongs to a thread domain (libmlx5 elides its
 * rq lock then, mlx5_spinlock_init_pd()); the device side never needs
 * the lock: tail is published once for the whole list.
 */
static int
sv_wq_post_recv(struct ibv_wq *ibwq, struct ibv_recv_wr *wr,
		struct ibv_recv_wr **bad_wr)
{
	struct sv_wq *wq = sv_wq_of(ibwq);
	uint32_t tail, head;
	int rc = 0;

	if (!wq->single)
		pthread_spin_lock(&wq->lock);
	tail = wq->tail;
	head = __atomic_load_n(&wq->head, __ATOMIC_ACQUIRE);
	for (; wr != NULL; wr = wr->next) {
		struct sv_rwqe *e;

		if (sv_unlikely(wr->num_sge < 0 ||
				(uint32_t)wr->num_sge > wq->max_sge ||
				(wr->num_sge > 0 && wr->sg_list == NULL))) {
			rc = EINVAL;
			break;
		}
		if (sv_unlikely(tail - head >= wq->size)) {
			head = __atomic_load_n(&wq->head, __ATOMIC_ACQUIRE);
			if (tail - head >= wq->size) {
				rc = ENOMEM;
				break;
			}
		}
		e = sv_wq_wqe(wq, tail);
		e->wr_id = wr->wr_id;
		e->num_sge = (uint32_t)wr->num_sge;
		if (sv_likely(wr->num_sge == 1))
			e->sge[0] = wr->sg_list[0];
		else if (wr->num_sge > 0)
			memcpy(e->sge, wr->sg_list,
			       sizeof(*e->sge) * (size_t)wr->num_sge);
		tail++;
	}
	__atomic_store_n(&wq->tail, tail, __ATOMIC_RELEASE);
	if (sv_unlikely(wq->wq.state == IBV_WQS_ERR ||
			__atomic_load_n(&wq->dev_err, __ATOMIC_RELAXED))) {
		pthread_spin_lock(&sv_wq_port(wq)->pump_lock);
		sv_wq_flush_locked(wq);
		pthread_spin_unlock(&sv_wq_port(wq)->pump_lock);
	}
	if (!wq->single)
		pthread_spin_unlock(&wq->lock);
	if (rc != 0 && bad_wr != NULL)
		*bad_wr = wr;
	return rc;
}

/* Every buffer must lie in memory registered in the WQ's PD with local
 * write access; a WC status, and the room the buffers give. */
static inline enum ibv_wc_status
sv_wq_check_sges(struct sv_wq *wq, const struct ibv_sge *sge, uint32_t n,
		 uint64_t *room)
{
	uint32_t i;

	*room = 0;
	for (i = 0; i < n; i++) {
		const struct ibv_sge *s = &sge[i];
		const struct sv_mr *mr;

		if (s->length == 0)
			continue;
		mr = sv_mr_lookup(wq->ctx, s->lkey, s->addr, s->length);
		if (mr == NULL || mr->prot != wq->pd ||
		    !(mr->access & IBV_ACCESS_LOCAL_WRITE))
			return IBV_WC_LOC_PROT_ERR;
		*room += s->length;
	}
	return IBV_WC_SUCCESS;
}

enum ibv_wc_status
sv_wq_scatter(struct sv_wq *wq, const struct ibv_sge *sge, uint32_t n,
	      const uint8_t *frame, uint32_t len, uint32_t skip_at,
	      uint32_t skip)
{
	enum ibv_wc_status st;
	uint64_t room;
	uint32_t i, off, src;

	st = sv_wq_check_sges(wq, sge, n, &room);
	if (st != IBV_WC_SUCCESS)
		return st;
	len -= skip;
	if (len > room)
		return IBV_WC_LOC_LEN_ERR;
	for (i = 0, off = 0; i < n && off < len; i++) {
		const struct ibv_sge *s = &sge[i];
		uint32_t n = len - off < s->length ? len - off : s->length;
		uint8_t *dst = (uint8_t *)(uintptr_t)s->addr;
		uint32_t k;

		/* Source offset off, or off + skip past the gap. */
		for (k = 0; k < n;) {
			uint32_t at = off + k, piece;

			src = at < skip_at ? at : at + skip;
			piece = at < skip_at ? skip_at - at : n - k;
			if (piece > n - k)
				piece = n - k;
			memcpy(dst + k, frame + src, piece);
			k += piece;
		}
		off += n;
	}
	return IBV_WC_SUCCESS;
}

int
sv_wq_deliver(struct sv_wq *wq, const uint8_t *frame, uint32_t len,
	      const struct sv_actions *act, unsigned int wc_flags)
{
	uint32_t skip_at = 0, skip = 0, head = wq->head, tag = 0;
	enum ibv_wc_status status;
	const struct sv_rwqe *e;
	struct sv_cqe *cqe;
	uint64_t wr_id;
	uint16_t cvlan = 0;

	/* The device's side of the ring: the pump lock serialises it with
	 * flushes and state changes, and posts only ever add behind tail,
	 * so completions come out in posting order. */
	if (sv_unlikely(wq->wq.state != IBV_WQS_RDY))
		return EAGAIN;
	if (head == __atomic_load_n(&wq->tail, __ATOMIC_ACQUIRE) ||
	    sv_unlikely(wq->dev_err))
		return ENOBUFS;
	e = sv_wq_wqe(wq, head);
	wr_id = e->wr_id;
	/* The next frame's buffer and the WQE after it were posted a ring
	 * ago: start fetching them (a NIC writes buffers without the CPU's
	 * caches). */
	__builtin_prefetch(sv_wq_wqe(wq, head + 2));
	__builtin_prefetch((const void *)(uintptr_t)sv_wq_wqe(wq, head + 1)
				   ->sge[0]
				   .addr,
			   1);
	if (sv_unlikely(wq->flags & IBV_WQ_FLAGS_CVLAN_STRIPPING) &&
	    sv_wq_strip(frame, len, &cvlan)) {
		skip_at = SV_WQ_STRIP_AT;
		skip = SV_WQ_STRIP_LEN;
	}
	/* The common case first: one buffer of the WQ's domain, nothing
	 * left out. */
	if (sv_likely(e->num_sge == 1 && skip == 0)) {
		const struct sv_mr *mr = sv_mr_lookup(wq->ctx, e->sge[0].lkey,
						      e->sge[0].addr,
						      e->sge[0].length);

		if (sv_likely(mr != NULL && mr->prot == wq->pd &&
			      (mr->access & IBV_ACCESS_LOCAL_WRITE) &&
			      len <= e->sge[0].length)) {
			memcpy((void *)(uintptr_t)e->sge[0].addr, frame, len);
			status = IBV_WC_SUCCESS;
		} else {
			status = sv_wq_scatter(wq, e->sge, e->num_sge, frame,
					       len, 0, 0);
		}
	} else {
		status = sv_wq_scatter(wq, e->sge, e->num_sge, frame, len,
				       skip_at, skip);
	}
	if (sv_likely(status == IBV_WC_SUCCESS)) {
		len -= skip;
		if (act != NULL && act->has_tag)
			tag = act->tag;
	} else {
		len = 0;
		wc_flags = 0;
		cvlan = 0;
	}
	/* The slot is free before its completion shows: a poller that
	 * reposts at once finds room. */
	__atomic_store_n(&wq->head, head + 1, __ATOMIC_RELEASE);
	/* Written in place, field by field (no copy of a struct just
	 * written). A full CQ loses the completion (overrun). */
	cqe = sv_cq_rx_reserve(wq->cq);
	if (sv_likely(cqe != NULL)) {
		cqe->wr_id = wr_id;
		cqe->status = status;
		cqe->opcode = IBV_WC_RECV;
		cqe->byte_len = len;
		cqe->flow_tag = tag;
		cqe->wc_flags = wc_flags;
		cqe->qp_num = wq->wq.wq_num;
		cqe->cvlan = cvlan;
		cqe->sq_retired = NULL;
		cqe->sq_retire = 0;
		if (sv_unlikely(wq->cq->ts))
			cqe->ts = sv_clock_ticks();
		sv_cq_rx_commit(wq->cq);
	}
	/* On a ConnectX a receive error moves the RQ to error: the WQEs
	 * behind it complete flushed and nothing more is received until
	 * software resets it (mlx5e and DPDK's mlx5_rx_err_handle() reset
	 * it and post again, Linux 6.1 en/health.h
	 * cqe_syndrome_needs_recover(), DPDK 22.11 mlx5_rx.c). The man
	 * page's device completes the WR and stays ready. */
	if (sv_unlikely(status != IBV_WC_SUCCESS) &&
	    wq->ctx->dev->caps.profile == SV_PROFILE_MLX5) {
		__atomic_store_n(&wq->dev_err, true, __ATOMIC_RELAXED);
		sv_wq_flush_locked(wq);
	}
	return 0;
}

#define SV_WQ_ATTR_MASK \
	(IBV_WQ_ATTR_STATE | IBV_WQ_ATTR_CURR_STATE | IBV_WQ_ATTR_FLAGS)
/* The WQ flags this device implements (query_device_ex raw_packet_caps:
 * IBV_RAW_PACKET_CAP_CVLAN_STRIPPING). */
#define SV_WQ_FLAGS IBV_WQ_FLAGS_CVLAN_STRIPPING

struct ibv_wq *
sv_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr)
{
	struct sv_context *ctx;
	struct sv_wq *wq;
	struct sv_cq *cq;
	struct sv_pd *pd;
	uint32_t size, max_sge;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = sv_ctx(context);
	if (attr->comp_mask & ~(uint32_t)IBV_WQ_INIT_ATTR_FLAGS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* VLAN stripping is implemented; FCS scatter, delay drop and end
	 * padding are not: a device without the capability answers
	 * EOPNOTSUPP (mlx5_ib create_rq: "... is not supported"). */
	if ((attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS) &&
	    (attr->create_flags & ~(uint32_t)SV_WQ_FLAGS)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->wq_type != IBV_WQT_RQ || attr->pd == NULL ||
	    attr->cq == NULL || attr->pd->context != context ||
	    attr->cq->context != context) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->max_wr == 0 || attr->max_wr > SV_MAX_QP_WR ||
	    attr->max_sge > SV_MAX_SGE) {
		errno = EINVAL;
		return NULL;
	}
	cq = sv_cq_from_ibv(attr->cq);
	pd = sv_pd_of(attr->pd);
	for (size = 1; size < attr->max_wr; size <<= 1)
		;
	max_sge = attr->max_sge == 0 ? 1 : attr->max_sge;
	wq = calloc(1, sizeof(*wq));
	if (wq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	/* The ring is the WQ's buffer, which libmlx5 takes from the parent
	 * domain's allocator when it has one (mlx5_alloc_rwq_buf()). */
	wq->stride = (uint32_t)(sizeof(struct sv_rwqe) +
				max_sge * sizeof(struct ibv_sge));
	if (sv_buf_alloc(pd, (size_t)size * wq->stride, MLX5DV_RES_TYPE_RWQ,
			 &wq->buf) != 0) {
		free(wq);
		errno = ENOMEM;
		return NULL;
	}
	wq->ring = wq->buf.p;
	pthread_mutex_lock(&ctx->lock);
	if (ctx->n_wq >= SV_MAX_WQ) {
		pthread_mutex_unlock(&ctx->lock);
		errno = ENOMEM;
		goto err_alloc;
	}
	ctx->n_wq++;
	wq->wq.wq_num = ctx->next_qpn++;
	pthread_mutex_unlock(&ctx->lock);

	wq->ctx = ctx;
	wq->cq = cq;
	/* A WQ holds the protection domain, not a parent domain it was made
	 * on (libmlx5's create_wq() takes no reference on it). */
	wq->pd = pd->prot;
	wq->single = sv_pd_single_threaded(pd);
	wq->size = size;
	wq->max_sge = max_sge;
	if (attr->comp_mask & IBV_WQ_INIT_ATTR_FLAGS)
		wq->flags = attr->create_flags;
	pthread_spin_init(&wq->lock, PTHREAD_PROCESS_PRIVATE);
	atomic_init(&wq->usecnt, 0);
	wq->wq.context = context;
	wq->wq.wq_context = attr->wq_context;
	wq->wq.pd = attr->pd;
	wq->wq.cq = attr->cq;
	wq->wq.handle = wq->wq.wq_num;
	wq->wq.state = IBV_WQS_RESET;
	wq->wq.wq_type = IBV_WQT_RQ;
	wq->wq.post_recv = sv_wq_post_recv;
	wq->wq.comp_mask = 0;
	atomic_fetch_add(&cq->usecnt, 1);
	atomic_fetch_add(&wq->pd->usecnt, 1);
	atomic_fetch_add(&ctx->nobjs, 1);
	/* "will update the max_wr and max_sge fields with the actual WQ
	 * values". */
	attr->max_wr = size;
	attr->max_sge = max_sge;
	return &wq->wq;

err_alloc:
	sv_buf_free(&wq->buf);
	free(wq);
	return NULL;
}

/* RESET -> RDY, RDY -> RDY (flags), RDY -> RESET / ERR, ERR -> RESET / ERR,
 * RESET -> RESET. */
static bool
sv_wq_transition_ok(enum ibv_wq_state cur, enum ibv_wq_state next)
{
	switch (cur) {
	case IBV_WQS_RESET:
		return next == IBV_WQS_RESET || next == IBV_WQS_RDY;
	case IBV_WQS_RDY:
		return next == IBV_WQS_RDY || next == IBV_WQS_RESET ||
		       next == IBV_WQS_ERR;
	case IBV_WQS_ERR:
		return next == IBV_WQS_RESET || next == IBV_WQS_ERR;
	default:
		return false;
	}
}

int
sv_modify_wq(struct ibv_wq *ibwq, struct ibv_wq_attr *attr)
{
	uint32_t ignored;
	struct sv_wq *wq;
	enum ibv_wq_state next;
	int rc = 0;

	if (ibwq == NULL || attr == NULL)
		return EINVAL;
	wq = sv_wq_of(ibwq);
	/* libibverbs refuses unknown attr_mask bits with EINVAL. */
	if (attr->attr_mask & ~(uint32_t)SV_WQ_ATTR_MASK)
		return EINVAL;
	if (attr->attr_mask & IBV_WQ_ATTR_FLAGS) {
		ignored = 0;
		/* mlx5_ib_modify_wq: VLAN stripping is modified, end padding
		 * refused with EOPNOTSUPP, the other flags left as they are.
		 * The man page's device refuses what it does not have. */
		if (wq->ctx->dev->caps.profile == SV_PROFILE_MLX5)
			ignored = IBV_WQ_FLAGS_SCATTER_FCS |
				  IBV_WQ_FLAGS_DELAY_DROP;
		if (attr->flags_mask & ~(uint32_t)(SV_WQ_FLAGS | ignored))
			return EOPNOTSUPP;
	}
	/* Posts, then the device side: nothing is posted or delivered
	 * while the state or the flags change. */
	pthread_spin_lock(&wq->lock);
	pthread_spin_lock(&sv_wq_port(wq)->pump_lock);
	/* "Assume this is the current state": a wrong assumption is an
	 * invalid argument. */
	if ((attr->attr_mask & IBV_WQ_ATTR_CURR_STATE) &&
	    attr->curr_wq_state != wq->wq.state) {
		rc = EINVAL;
		goto out;
	}
	if ((attr->attr_mask & IBV_WQ_ATTR_STATE) &&
	    !sv_wq_transition_ok(wq->wq.state, attr->wq_state)) {
		rc = EINVAL;
		goto out;
	}
	/* In error on the device, the RQ takes RESET (or ERR) only: the
	 * firmware refuses a MODIFY_RQ to ready from error, which a flags
	 * change is too (the kernel's mlx5_ib_modify_wq() asks for the
	 * current state; a bad resource state is EINVAL). */
	if (wq->dev_err && (!(attr->attr_mask & IBV_WQ_ATTR_STATE) ||
			    attr->wq_state == IBV_WQS_RDY)) {
		rc = EINVAL;
		goto out;
	}
	/* Frames delivered from now on see the new flags. */
	if (attr->attr_mask & IBV_WQ_ATTR_FLAGS)
		wq->flags = (wq->flags & ~(attr->flags_mask & SV_WQ_FLAGS)) |
			    (attr->flags & attr->flags_mask & SV_WQ_FLAGS);
	if (!(attr->attr_mask & IBV_WQ_ATTR_STATE))
		goto out;
	next = attr->wq_state;
	if (next == IBV_WQS_RESET) {
		/* Back to reset: posted buffers are forgotten, without
		 * completions, and the ring starts over. */
		wq->head = 0;
		wq->tail = 0;
		__atomic_store_n(&wq->dev_err, false, __ATOMIC_RELAXED);
	}
	if (wq->wq.state == IBV_WQS_RDY && next != IBV_WQS_RDY)
		sv_wq_port(wq)->rx_wqs_ready--;
	else if (wq->wq.state != IBV_WQS_RDY && next == IBV_WQS_RDY)
		sv_wq_port(wq)->rx_wqs_ready++;
	wq->wq.state = next;
	if (next == IBV_WQS_ERR)
		sv_wq_flush_locked(wq);
out:
	pthread_spin_unlock(&sv_wq_port(wq)->pump_lock);
	pthread_spin_unlock(&wq->lock);
	return rc;
}

int
sv_destroy_wq(struct ibv_wq *ibwq)
{
	struct sv_context *ctx;
	struct sv_wq *wq;

	if (ibwq == NULL)
		return EINVAL;
	wq = sv_wq_of(ibwq);
	ctx = wq->ctx;
	/* Still an entry of an indirection table. */
	if (atomic_load(&wq->usecnt) > 0)
		return EBUSY;
	if (wq->wq.state == IBV_WQS_RDY) {
		pthread_spin_lock(&sv_wq_port(wq)->pump_lock);
		sv_wq_port(wq)->rx_wqs_ready--;
		pthread_spin_unlock(&sv_wq_port(wq)->pump_lock);
	}
	atomic_fetch_sub(&wq->cq->usecnt, 1);
	atomic_fetch_sub(&wq->pd->usecnt, 1);
	pthread_mutex_lock(&ctx->lock);
	ctx->n_wq--;
	pthread_mutex_unlock(&ctx->lock);
	atomic_fetch_sub(&ctx->nobjs, 1);
	pthread_spin_destroy(&wq->lock);
	sv_buf_free(&wq->buf);
	free(wq);
	return 0;
}

struct ibv_rwq_ind_table *
sv_create_rwq_ind_table(struct ibv_context *context,
			struct ibv_rwq_ind_table_init_attr *attr)
{
	struct sv_context *ctx;
	struct sv_ind *ind;
	uint32_t n, i;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = sv_ctx(context);
	if (attr->comp_mask != 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->log_ind_tbl_size > ctx->dev->log_ind_tbl ||
	    attr->ind_tbl == NULL) {
		errno = EINVAL;
		return NULL;
	}
	n = UINT32_C(1) << attr->log_ind_tbl_size;
	for (i = 0; i < n; i++) {
		struct ibv_wq *w = attr->ind_tbl[i];

		if (w == NULL || w->context != context ||
		    w->wq_type != IBV_WQT_RQ) {
			errno = EINVAL;
			return NULL;
		}
	}
	ind = calloc(1, sizeof(*ind));
	if (ind != NULL)
		ind->wqs = calloc(n, sizeof(*ind->wqs));
	if (ind == NULL || ind->wqs == NULL) {
		free(ind);
		errno = ENOMEM;
		return NULL;
	}
	for (i = 0; i < n; i++) {
		ind->wqs[i] = sv_wq_of(attr->ind_tbl[i]);
		atomic_fetch_add(&ind->wqs[i]->usecnt, 1);
	}
	ind->ctx = ctx;
	ind->log_size = attr->log_ind_tbl_size;
	atomic_init(&ind->usecnt, 0);
	ind->ind.context = context;
	ind->ind.comp_mask = 0;
	pthread_mutex_lock(&ctx->lock);
	ind->ind.ind_tbl_handle = ctx->next_qpn;
	ind->ind.ind_tbl_num = ctx->next_qpn++;
	pthread_mutex_unlock(&ctx->lock);
	atomic_fetch_add(&ctx->nobjs, 1);
	return &ind->ind;
}

int
sv_destroy_rwq_ind_table(struct ibv_rwq_ind_table *tbl)
{
	struct sv_ind *ind;
	uint32_t i;

	if (tbl == NULL)
		return EINVAL;
	ind = sv_ind_of(tbl);
	/* Still the table of a hash QP. */
	if (atomic_load(&ind->usecnt) > 0)
		return EBUSY;
	for (i = 0; i < (UINT32_C(1) << ind->log_size); i++)
		atomic_fetch_sub(&ind->wqs[i]->usecnt, 1);
	atomic_fetch_sub(&ind->ctx->nobjs, 1);
	free(ind->wqs);
	free(ind);
	return 0;
}
