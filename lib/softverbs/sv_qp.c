/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Queue pairs. Only IBV_QPT_RAW_PACKET exists on this device, in two
 * shapes:
 *   - hash QPs (ibv_create_qp_ex with IBV_QP_INIT_ATTR_IND_TABLE and
 *     IBV_QP_INIT_ATTR_RX_HASH): receive-side steering targets that spread
 *     frames over the WQs of an indirection table;
 *   - send QPs: a send queue whose WRs go to the wire (ibv_post_send(3)).
 * There is no receive queue inside a QP: receive through WQs.
 *
 * mlx5dv_create_qp(3) creates the same two shapes with mlx5 creation
 * flags; MLX5DV_QP_CREATE_TUNNEL_OFFLOADS is the one that matters to
 * steering: the mlx5 kernel refuses a hash QP over inner headers without
 * it (create_rss_raw_qp_tir(): "Tunnel offloads must be set for inner
 * RSS", EOPNOTSUPP). For tunnel rules it refuses nothing: what the flag
 * changes on hardware (tunneled_offload_en in the TIR: checksum and packet
 * type of the inner headers in the CQE) softverbs does not report, so a
 * tunnel QP delivers exactly what a plain one does.
 *
 * The send queue is processed synchronously: ibv_post_send() builds the
 * frames of the whole WR list, sends them in one batch and writes the
 * completions. Send queue slots are freed when their completion is read
 * from the CQ, as on hardware, so an application that never polls the send
 * CQ (or never signals) runs into ENOMEM.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "sv_internal.h"
#include "sv_offload.h"

#define SV_MAX_INLINE 512
#define SV_ETH_HLEN 14
#define SV_MLX5_DATA_SEG 16 /* struct mlx5_wqe_data_seg */
#define SV_ALIGN_UP(v, a) (((v) + (a)-1) / (a) * (a))

#define SV_QP_COMP_MASK                                          \
	(IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_CREATE_FLAGS |   \
	 IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH | \
	 IBV_QP_INIT_ATTR_MAX_TSO_HEADER)
/* The shortest TSO header libmlx5 takes (MLX5_ETH_L2_MIN_HEADER_SIZE). */
#define SV_TSO_HDR_MIN 18u
#define SV_SEND_FLAGS                                               \
	(IBV_SEND_SIGNALED | IBV_SEND_SOLICITED | IBV_SEND_INLINE | \
	 IBV_SEND_IP_CSUM)

/* One accepted send WR. */
struct sv_sq_wr {
	uint64_t len; /* bytes its SGEs add up to */
};

/* Send queue state and per-call scratch, kept across calls. */
struct sv_sq {
	pthread_mutex_t lock; /* posting (unless single), state changes */
	uint32_t pending;     /* WRs not yet covered by a CQE */
	/* The send queue's buffer: one entry per WR a post may carry. */
	struct sv_buf buf;
	struct sv_sq_wr *wrs;
	struct iovec *iov;
	unsigned int *first; /* max_send_wr (at least 1) + 1 */
	struct sv_cqe *cqes;
	uint8_t *scratch; /* frames that are copied */
	size_t scratch_cap;
	/* A post with TSO WRs: their frames (more than one per WR) in
	 * frames_cap-sized arrays of their own, each super-frame put
	 * together in super first. */
	struct iovec *xiov;
	unsigned int *xfirst;
	unsigned int frames_cap;
	uint8_t *super;
	size_t super_cap;
};

static inline struct sv_sq *
sv_sq(struct sv_qp *qp)
{
	return qp->sq_priv_;
}

/* ---- creation ---- */

static struct sv_qp *
sv_qp_alloc(struct sv_context *ctx, struct ibv_qp_init_attr_ex *attr,
	    enum sv_qp_kind kind)
{
	struct sv_pd *pd = sv_pd_of(attr->pd);
	struct sv_qp *qp;
	struct sv_sq *sq;

	qp = calloc(1, sizeof(*qp));
	sq = calloc(1, sizeof(*sq));
	if (qp == NULL || sq == NULL) {
		free(qp);
		free(sq);
		errno = ENOMEM;
		return NULL;
	}
	/* The send queue's buffer, from the parent domain's allocator when
	 * it has one (mlx5_alloc_qp_buf()); a hash QP has none. */
	if (kind == SV_QP_RAW) {
		unsigned int cap =
			attr->cap.max_send_wr ? attr->cap.max_send_wr : 1;
		size_t sz = cap * (sizeof(*sq->wrs) + sizeof(*sq->iov) +
				   sizeof(*sq->first) + sizeof(*sq->cqes)) +
			    sizeof(*sq->first);

		if (sv_buf_alloc(pd, sz, MLX5DV_RES_TYPE_QP, &sq->buf) != 0) {
			free(qp);
			free(sq);
			errno = ENOMEM;
			return NULL;
		}
		sq->cqes = sq->buf.p;
		sq->wrs = (struct sv_sq_wr *)(void *)(sq->cqes + cap);
		sq->iov = (struct iovec *)(void *)(sq->wrs + cap);
		sq->first = (unsigned int *)(void *)(sq->iov + cap);
	}
	pthread_mutex_lock(&ctx->lock);
	if (ctx->n_qp >= SV_MAX_QP) {
		pthread_mutex_unlock(&ctx->lock);
		if (sq->buf.p != NULL)
			sv_buf_free(&sq->buf);
		free(qp);
		free(sq);
		errno = ENOMEM;
		return NULL;
	}
	ctx->n_qp++;
	qp->qp.qp_num = ctx->next_qpn++;
	pthread_mutex_unlock(&ctx->lock);
	pthread_mutex_init(&sq->lock, NULL);
	qp->sq_priv_ = sq;
	qp->ctx = ctx;
	qp->kind = kind;
	/* The QP holds the protection domain, as the kernel QP does; a send
	 * QP also holds a parent domain it was made on (libmlx5's
	 * create_qp() takes a reference, not for RSS QPs) and posts without
	 * a lock when that has a thread domain (mlx5_spinlock_init_pd()). */
	qp->pd = pd->prot;
	if (kind == SV_QP_RAW && pd->over != NULL) {
		qp->parent = pd;
		qp->single = sv_pd_single_threaded(pd);
		atomic_fetch_add(&pd->usecnt, 1);
	}
	qp->sq_posted = 0;
	atomic_init(&qp->sq_retired, 0);
	atomic_init(&qp->usecnt, 0);
	qp->qp.context = &ctx->vctx.context;
	qp->qp.qp_context = attr->qp_context;
	qp->qp.pd = attr->pd;
	qp->qp.handle = qp->qp.qp_num;
	qp->qp.state = IBV_QPS_RESET;
	qp->qp.qp_type = IBV_QPT_RAW_PACKET;
	pthread_mutex_init(&qp->qp.mutex, NULL);
	pthread_cond_init(&qp->qp.cond, NULL);
	atomic_fetch_add(&qp->pd->usecnt, 1);
	atomic_fetch_add(&ctx->nobjs, 1);
	return qp;
}

#define SV_HASH_V4 (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)
#define SV_HASH_V6 (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6)
#define SV_HASH_TCP (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)
#define SV_HASH_UDP (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)

static struct ibv_qp *
sv_create_hash_qp(struct sv_context *ctx, struct ibv_qp_init_attr_ex *attr,
		  bool tunnel)
{
	const struct ibv_rx_hash_conf *h = &attr->rx_hash_conf;
	uint64_t fields = h->rx_hash_fields_mask;
	struct sv_toeplitz_tbl *tbl;
	struct sv_ind *ind;
	struct sv_qp *qp;

	/* Checks as uverbs and the mlx5 kernel make them
	 * (create_rss_raw_qp_tir): a hash QP has no queues of its own. */
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_IND_TABLE) ||
	    !(attr->comp_mask & IBV_QP_INIT_ATTR_RX_HASH) ||
	    attr->rwq_ind_tbl == NULL ||
	    attr->rwq_ind_tbl->context != &ctx->vctx.context ||
	    attr->send_cq != NULL || attr->recv_cq != NULL ||
	    attr->srq != NULL || attr->cap.max_recv_wr != 0 ||
	    attr->cap.max_recv_sge != 0 ||
	    ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	     attr->create_flags != 0)) {
		errno = EINVAL;
		return NULL;
	}
	if (h->rx_hash_function != IBV_RX_HASH_FUNC_TOEPLITZ) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (h->rx_hash_key_len != SV_RSS_KEY_LEN || h->rx_hash_key == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (fields & ~(uint64_t)SV_RX_HASH_FIELDS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* create_rss_raw_qp_tir(): inner hashing needs tunnel offloads. */
	if (ctx->dev->caps.profile == SV_PROFILE_MLX5 &&
	    (fields & IBV_RX_HASH_INNER) && !tunnel) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ind = sv_container_of(attr->rwq_ind_tbl, struct sv_ind, ind);
	/* One mlx5 TIR hashes one L3 family and one L4 protocol, and
	 * without fields it can only lead to a single-entry table. */
	if (ctx->dev->caps.profile == SV_PROFILE_MLX5 &&
	    (((fields & SV_HASH_V4) && (fields & SV_HASH_V6)) ||
	     ((fields & SV_HASH_TCP) && (fields & SV_HASH_UDP)) ||
	     (fields == 0 && ind->log_size > 0))) {
		errno = EINVAL;
		return NULL;
	}
	/* The key's table, once: hashing a frame is then one lookup per
	 * input byte. */
	tbl = sv_toeplitz_prepare(h->rx_hash_key, sv_rx_hash_max_input(fields));
	if (tbl == NULL)
		return NULL;
	qp = sv_qp_alloc(ctx, attr, SV_QP_HASH);
	if (qp == NULL) {
		free(tbl);
		return NULL;
	}
	qp->toeplitz = tbl;
	qp->ind = ind;
	qp->tunnel = tunnel;
	qp->hash_fields = fields;
	atomic_fetch_add(&ind->usecnt, 1);
	return &qp->qp;
}

/*
 * libmlx5 sizes a send queue in 64-byte WQE basic blocks (rdma-core
 * v44.0, providers/mlx5/verbs.c). A raw packet WQE is the control (16
 * bytes) and Ethernet (32, with inline headers) segments, the room for TSO
 * headers (IBV_QP_INIT_ATTR_MAX_TSO_HEADER, rounded up to 16 bytes), then
 * 16 bytes per SGE; or the inline data behind a 4-byte header after the
 * two segments, whichever is larger, rounded up to a block
 * (mlx5_calc_send_wqe(), _sq_overhead()); more SGEs than the largest WQE
 * holds, or a WQE beyond it (max_sq_desc_sz, the firmware's max_wqe_sz_sq,
 * 1024 bytes on ConnectX-4 and later): EINVAL. The queue is max_send_wr WQEs
 * rounded up to a power of two; more blocks than max_send_wqebb (1 <<
 * log_max_qp_sz, which the kernel reports as max_qp_wr too): EINVAL
 * (mlx5_calc_sq_size()). The caps come back with what the queue holds:
 * wq_size / wqe_size WRs, inline data up to what a WQE leaves
 * (create_qp()).
 */
#define SV_MLX5_SEND_WQE_BB 64
#define SV_MLX5_SQ_DESC_MAX 1024 /* max_wqe_sz_sq of the modelled device */
#define SV_MLX5_SQ_OVERHEAD (16 + 32)
#define SV_MLX5_INL_HDR 4

static uint32_t
sv_pow2_above(uint64_t v)
{
	uint64_t p = 1;

	while (p < v)
		p <<= 1;
	return p > UINT32_MAX ? 0 : (uint32_t)p;
}

static int
sv_mlx5_sq_size(struct ibv_qp_cap *cap, uint32_t tso_hdr)
{
	uint32_t size = SV_MLX5_SQ_OVERHEAD, inl = 0, wqe, wq;

	if (cap->max_send_wr == 0)
		return 0;
	if (cap->max_inline_data != 0)
		inl = size +
		      SV_ALIGN_UP(SV_MLX5_INL_HDR + cap->max_inline_data, 16);
	if (tso_hdr > SV_MLX5_SQ_DESC_MAX)
		return EINVAL;
	size += SV_ALIGN_UP(tso_hdr, 16);
	if (size > SV_MLX5_SQ_DESC_MAX ||
	    cap->max_send_sge > (SV_MLX5_SQ_DESC_MAX - size) / SV_MLX5_DATA_SEG)
		return EINVAL;
	size += cap->max_send_sge * SV_MLX5_DATA_SEG;
	if (inl > size)
		size = inl;
	if (size > SV_MLX5_SQ_DESC_MAX)
		return EINVAL;
	wqe = SV_ALIGN_UP(size, SV_MLX5_SEND_WQE_BB);
	if (cap->max_send_wr > 0x7fffffff / SV_MLX5_SQ_DESC_MAX)
		return EINVAL;
	wq = sv_pow2_above((uint64_t)cap->max_send_wr * wqe);
	if (wq == 0 || wq / SV_MLX5_SEND_WQE_BB > SV_MAX_QP_WR)
		return EINVAL;
	cap->max_send_wr = wq / wqe;
	cap->max_inline_data = wqe - SV_MLX5_SQ_OVERHEAD - SV_MLX5_INL_HDR;
	return 0;
}

static struct ibv_qp *
sv_create_send_qp(struct sv_context *ctx, struct ibv_qp_init_attr_ex *attr)
{
	struct ibv_context *context = &ctx->vctx.context;
	struct ibv_qp_cap *cap = &attr->cap;
	struct sv_qp *qp;
	int rc;

	if (attr->send_cq == NULL || attr->send_cq->context != context ||
	    (attr->recv_cq != NULL && attr->recv_cq->context != context) ||
	    attr->srq != NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* Beyond the device's capabilities: no receive queue in a QP. */
	if (cap->max_recv_wr != 0 || cap->max_recv_sge != 0) {
		errno = EINVAL;
		return NULL;
	}
	if (ctx->dev->caps.profile == SV_PROFILE_MLX5) {
		rc = sv_mlx5_sq_size(cap, (attr->comp_mask &
					   IBV_QP_INIT_ATTR_MAX_TSO_HEADER) ?
						  attr->max_tso_header :
						  0);
		if (rc != 0) {
			errno = rc;
			return NULL;
		}
	} else if (cap->max_send_wr > SV_MAX_QP_WR ||
		   cap->max_send_sge > SV_MAX_SGE ||
		   cap->max_inline_data > SV_MAX_INLINE) {
		errno = EINVAL;
		return NULL;
	}
	if ((attr->comp_mask & IBV_QP_INIT_ATTR_CREATE_FLAGS) &&
	    attr->create_flags != 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	qp = sv_qp_alloc(ctx, attr, SV_QP_RAW);
	if (qp == NULL)
		return NULL;
	qp->scq = sv_cq_from_ibv(attr->send_cq);
	qp->qp.send_cq = attr->send_cq;
	qp->qp.recv_cq = attr->recv_cq;
	qp->max_send_wr = cap->max_send_wr;
	qp->max_send_sge = cap->max_send_sge == 0 ? 1 : cap->max_send_sge;
	qp->max_inline = cap->max_inline_data;
	if (attr->comp_mask & IBV_QP_INIT_ATTR_MAX_TSO_HEADER)
		qp->max_tso_header = attr->max_tso_header;
	/* libmlx5 takes max_tso from the device's tso_caps when they list
	 * raw packet QPs (mlx5_create_qp()), else 0: no TSO payload. */
	qp->max_tso = ctx->dev->caps.profile == SV_PROFILE_MLX5 ? SV_MAX_TSO :
								  0;
	qp->sq_sig_all = attr->sq_sig_all;
	/* From now on the receive side locks the CQ against this QP's
	 * completions: counted under the pump lock, so that no delivery
	 * runs unlocked past it. */
	pthread_spin_lock(&ctx->dev->port.pump_lock);
	atomic_fetch_add(&qp->scq->n_sq, 1);
	pthread_spin_unlock(&ctx->dev->port.pump_lock);
	atomic_fetch_add(&qp->scq->usecnt, 1);
	if (attr->recv_cq != NULL)
		atomic_fetch_add(&sv_cq_from_ibv(attr->recv_cq)->usecnt, 1);
	/* "will update the qp_init_attr_ex->cap struct with the actual QP
	 * values". */
	cap->max_send_sge = qp->max_send_sge;
	return &qp->qp;
}

static struct ibv_qp *
sv_create_qp_common(struct ibv_context *context,
		    struct ibv_qp_init_attr_ex *attr, bool tunnel)
{
	struct sv_context *ctx;
	struct ibv_qp *qp;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = sv_ctx(context);
	/* XRC domains, TSO, the ibv_wr_* send ops and unknown bits. */
	if (attr->comp_mask & ~(uint32_t)SV_QP_COMP_MASK) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (!(attr->comp_mask & IBV_QP_INIT_ATTR_PD) || attr->pd == NULL ||
	    attr->pd->context != context) {
		errno = EINVAL;
		return NULL;
	}
	/* Only raw packet QPs, as the mlx5 kernel answers for a hash QP of
	 * another type. */
	if (attr->qp_type != IBV_QPT_RAW_PACKET) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (attr->comp_mask &
	    (IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH))
		return sv_create_hash_qp(ctx, attr, tunnel);
	qp = sv_create_send_qp(ctx, attr);
	if (qp != NULL)
		sv_qp(qp)->tunnel = tunnel;
	return qp;
}

struct ibv_qp *
sv_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr)
{
	return sv_create_qp_common(context, attr, false);
}

/* mlx5dv creation flags rdma-core 44 knows (MLX5DV_QP_CREATE_SUP_FLAGS)
 * and the vendor comp_mask bits it takes (MLX5_DV_CREATE_QP_SUP_COMP_MASK). */
#define SV_DV_QP_FLAGS                                 \
	(MLX5DV_QP_CREATE_TUNNEL_OFFLOADS |            \
	 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_UC | \
	 MLX5DV_QP_CREATE_TIR_ALLOW_SELF_LOOPBACK_MC | \
	 MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE |     \
	 MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE |       \
	 MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE |   \
	 MLX5DV_QP_CREATE_SIG_PIPELINING)
#define SV_DV_QP_COMP_MASK                          \
	(MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS | \
	 MLX5DV_QP_INIT_ATTR_MASK_DC |              \
	 MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS |  \
	 MLX5DV_QP_INIT_ATTR_MASK_DCI_STREAMS)

struct ibv_qp *
sv_mlx5dv_create_qp(struct ibv_context *context,
		    struct ibv_qp_init_attr_ex *attr,
		    struct mlx5dv_qp_init_attr *dv)
{
	bool hash, tunnel = false;
	uint32_t fl = 0;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* libmlx5: not one of its devices. */
	if (sv_ctx(context)->dev->caps.profile != SV_PROFILE_MLX5) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	hash = attr->comp_mask &
	       (IBV_QP_INIT_ATTR_IND_TABLE | IBV_QP_INIT_ATTR_RX_HASH);
	if (dv != NULL) {
		/* libmlx5 create_qp(): the vendor attributes first. */
		if ((dv->comp_mask & ~(uint64_t)SV_DV_QP_COMP_MASK) ||
		    ((dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_DC) &&
		     attr->qp_type != IBV_QPT_DRIVER)) {
			errno = EINVAL;
			return NULL;
		}
		if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_QP_CREATE_FLAGS)
			fl = dv->create_flags;
		if ((fl & ~(uint32_t)SV_DV_QP_FLAGS) ||
		    ((fl & MLX5DV_QP_CREATE_DISABLE_SCATTER_TO_CQE) &&
		     (fl & MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE))) {
			errno = EINVAL;
			return NULL;
		}
		/* The ibv_wr_* send API is not offered (see above). */
		if (dv->comp_mask & MLX5DV_QP_INIT_ATTR_MASK_SEND_OPS_FLAGS) {
			errno = EOPNOTSUPP;
			return NULL;
		}
	}
	/*
	 * The kernel's process_vendor_flags(): tunnel offloads need the
	 * device's tunnel_stateless caps and scatter-to-CQE and credit mode
	 * do not apply to a hash QP; a flag left over is EINVAL.
	 */
	if (fl & MLX5DV_QP_CREATE_TUNNEL_OFFLOADS) {
		if (attr->qp_type != IBV_QPT_RAW_PACKET ||
		    !sv_dev_has(sv_ctx(context)->dev,
				SV_DEV_NO_TUNNEL_OFFLOADS)) {
			errno = EINVAL;
			return NULL;
		}
		tunnel = true;
	}
	if ((fl & MLX5DV_QP_CREATE_PACKET_BASED_CREDIT_MODE) ||
	    (hash && (fl & MLX5DV_QP_CREATE_ALLOW_SCATTER_TO_CQE))) {
		errno = EINVAL;
		return NULL;
	}
	return sv_create_qp_common(context, attr, tunnel);
}

struct ibv_qp *
sv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *init)
{
	struct ibv_qp_init_attr_ex ex;
	struct ibv_qp *qp;

	if (pd == NULL || init == NULL) {
		errno = EINVAL;
		return NULL;
	}
	memset(&ex, 0, sizeof(ex));
	ex.qp_context = init->qp_context;
	ex.send_cq = init->send_cq;
	ex.recv_cq = init->recv_cq;
	ex.srq = init->srq;
	ex.cap = init->cap;
	ex.qp_type = init->qp_type;
	ex.sq_sig_all = init->sq_sig_all;
	ex.comp_mask = IBV_QP_INIT_ATTR_PD;
	ex.pd = pd;
	qp = sv_create_qp_ex(pd->context, &ex);
	if (qp != NULL)
		init->cap = ex.cap;
	return qp;
}

int
sv_destroy_qp(struct ibv_qp *ibqp)
{
	struct sv_context *ctx;
	struct sv_qp *qp;
	struct sv_sq *sq;

	if (ibqp == NULL)
		return EINVAL;
	qp = sv_qp(ibqp);
	ctx = qp->ctx;
	sq = sv_sq(qp);
	/* Flows still point at the QP. */
	if (atomic_load(&qp->usecnt) > 0)
		return EBUSY;
	if (qp->kind == SV_QP_HASH) {
		atomic_fetch_sub(&qp->ind->usecnt, 1);
	} else {
		/* Completions left in the CQ must not free slots of a QP
		 * that is gone. */
		sv_cq_forget_sq(qp->scq, &qp->sq_retired);
		atomic_fetch_sub(&qp->scq->n_sq, 1);
		atomic_fetch_sub(&qp->scq->usecnt, 1);
		if (qp->qp.recv_cq != NULL)
			atomic_fetch_sub(&sv_cq_from_ibv(qp->qp.recv_cq)->usecnt,
					 1);
	}
	atomic_fetch_sub(&qp->pd->usecnt, 1);
	if (qp->parent != NULL)
		atomic_fetch_sub(&qp->parent->usecnt, 1);
	pthread_mutex_lock(&ctx->lock);
	ctx->n_qp--;
	pthread_mutex_unlock(&ctx->lock);
	atomic_fetch_sub(&ctx->nobjs, 1);
	pthread_mutex_destroy(&sq->lock);
	pthread_mutex_destroy(&qp->qp.mutex);
	pthread_cond_destroy(&qp->qp.cond);
	if (sq->buf.p != NULL)
		sv_buf_free(&sq->buf);
	free(sq->scratch);
	free(sq->xiov);
	free(sq->xfirst);
	free(sq->super);
	free(sq);
	free(qp->toeplitz);
	free(qp);
	return 0;
}

/* ---- state machine ---- */

/*
 * The raw packet rows of the IB state table (ibv_modify_qp(3), and the
 * kernel's qp_state_table): required and allowed attr_mask bits per
 * transition. SQD and SQE are not implemented.
 */
static bool
sv_qp_transition_ok(enum ibv_qp_state cur, enum ibv_qp_state next, int mask)
{
	int req = 0, opt = 0;

	switch (cur) {
	case IBV_QPS_RESET:
		if (next == IBV_QPS_INIT)
			req = IBV_QP_PORT;
		else if (next != IBV_QPS_RESET)
			return false;
		break;
	case IBV_QPS_INIT:
		if (next == IBV_QPS_INIT)
			opt = IBV_QP_PORT;
		else if (next != IBV_QPS_RTR && next != IBV_QPS_RESET &&
			 next != IBV_QPS_ERR)
			return false;
		break;
	case IBV_QPS_RTR:
		if (next != IBV_QPS_RTS && next != IBV_QPS_RESET &&
		    next != IBV_QPS_ERR)
			return false;
		break;
	case IBV_QPS_RTS:
		if (next != IBV_QPS_RTS && next != IBV_QPS_RESET &&
		    next != IBV_QPS_ERR)
			return false;
		break;
	case IBV_QPS_ERR:
		if (next != IBV_QPS_RESET && next != IBV_QPS_ERR)
			return false;
		break;
	default:
		return false;
	}
	if ((mask & req) != req)
		return false;
	return (mask & ~(req | opt | IBV_QP_STATE)) == 0;
}

int
sv_modify_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask)
{
	enum ibv_qp_state cur, next;
	struct sv_qp *qp;
	struct sv_sq *sq;
	int rc = 0;

	if (ibqp == NULL || (attr == NULL && mask != 0))
		return EINVAL;
	qp = sv_qp(ibqp);
	sq = sv_sq(qp);
	/* libmlx5 refuses any modify of a hash QP before the kernel sees it
	 * (rdma-core v44.0, mlx5_modify_qp(): "if (mqp->rss_qp) return
	 * EOPNOTSUPP"; releases before 28 answered ENOSYS). */
	if (qp->kind == SV_QP_HASH &&
	    qp->ctx->dev->caps.profile == SV_PROFILE_MLX5)
		return EOPNOTSUPP;
	pthread_mutex_lock(&sq->lock);
	cur = qp->qp.state;
	next = (mask & IBV_QP_STATE) ? attr->qp_state : cur;
	/* "If any of the modify attributes or the modify mask are invalid,
	 * none of the attributes will be modified". */
	if (!sv_qp_transition_ok(cur, next, mask) ||
	    ((mask & IBV_QP_PORT) &&
	     attr->port_num != qp->ctx->dev->port.port_num)) {
		rc = EINVAL;
		goto out;
	}
	if (mask & IBV_QP_PORT)
		qp->port_num = attr->port_num;
	if (next == IBV_QPS_RESET && cur != IBV_QPS_RESET &&
	    qp->kind == SV_QP_RAW) {
		/* Reset empties the send queue: its slots are free and
		 * completions still in the CQ no longer stand for them. */
		sv_cq_forget_sq(qp->scq, &qp->sq_retired);
		qp->sq_posted = atomic_load(&qp->sq_retired);
		sq->pending = 0;
	}
	qp->qp.state = next;
out:
	pthread_mutex_unlock(&sq->lock);
	return rc;
}

int
sv_query_qp(struct ibv_qp *ibqp, struct ibv_qp_attr *attr, int mask,
	    struct ibv_qp_init_attr *init)
{
	struct sv_qp *qp;

	if (ibqp == NULL || attr == NULL || init == NULL)
		return EINVAL;
	qp = sv_qp(ibqp);
	memset(attr, 0, sizeof(*attr));
	memset(init, 0, sizeof(*init));
	attr->qp_state = ibqp->state;
	attr->cur_qp_state = ibqp->state;
	attr->port_num = qp->port_num;
	attr->cap.max_send_wr = qp->max_send_wr;
	attr->cap.max_send_sge = qp->max_send_sge;
	attr->cap.max_inline_data = qp->max_inline;
	init->qp_context = ibqp->qp_context;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->cap = attr->cap;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_all = qp->sq_sig_all;
	return 0;
}

/* ---- send ---- */

/*
 * IBV_WR_TSO, as libmlx5 44's mlx5_post_send() takes it: a header of
 * SV_TSO_HDR_MIN to max_tso_header bytes (set_tso_eth_seg()), SGEs whose
 * bytes add up to at most the QP's max_tso (0 without device TSO), EINVAL
 * otherwise. The payload may be empty. *len: the payload's bytes.
 */
static int
sv_sq_check_tso(const struct sv_qp *qp, const struct ibv_send_wr *w,
		uint64_t *len)
{
	uint64_t n = 0;
	int i;

	if (w->tso.hdr == NULL || w->tso.hdr_sz < SV_TSO_HDR_MIN ||
	    w->tso.hdr_sz > qp->max_tso_header)
		return EINVAL;
	if (w->num_sge < 0 || (uint32_t)w->num_sge > qp->max_send_sge ||
	    (w->num_sge > 0 && w->sg_list == NULL))
		return EINVAL;
	if (w->send_flags & ~(unsigned int)SV_SEND_FLAGS)
		return EINVAL;
	for (i = 0; i < w->num_sge; i++)
		n += w->sg_list[i].length;
	if (n > qp->max_tso)
		return EINVAL;
	if ((w->send_flags & IBV_SEND_INLINE) && n > qp->max_inline)
		return ENOMEM;
	*len = n;
	return 0;
}

/* Frames a TSO WR of payload bytes becomes (at least one). */
static inline unsigned int
sv_tso_frames(const struct ibv_send_wr *w, uint64_t payload)
{
	if (w->tso.mss == 0 || payload == 0)
		return 1;
	return (unsigned int)((payload + w->tso.mss - 1) / w->tso.mss);
}

/* Errors ibv_post_send() returns at once (the WR is not posted); the
 * WR's length in *len. */
static inline int
sv_sq_check(const struct sv_qp *qp, const struct ibv_send_wr *w, uint64_t *len)
{
	uint64_t n = 0;
	int i;

	/* A raw packet QP only sends (ibv_post_send(3) opcode table):
	 * plain, or TSO. */
	if (sv_unlikely(w->opcode == IBV_WR_TSO))
		return sv_sq_check_tso(qp, w, len);
	if (sv_unlikely(w->opcode != IBV_WR_SEND))
		return EINVAL;
	/* libmlx5 refuses a raw packet send without data. */
	if (sv_unlikely(w->num_sge <= 0 ||
			(uint32_t)w->num_sge > qp->max_send_sge ||
			w->sg_list == NULL))
		return EINVAL;
	if (sv_unlikely(w->send_flags & ~(unsigned int)SV_SEND_FLAGS))
		return EINVAL;
	for (i = 0; i < w->num_sge; i++)
		n += w->sg_list[i].length;
	/* libmlx5 answers ENOMEM for inline data beyond max_inline_data. */
	if ((w->send_flags & IBV_SEND_INLINE) && n > qp->max_inline)
		return ENOMEM;
	*len = n;
	return 0;
}

static inline bool
sv_wr_copies(const struct ibv_send_wr *w)
{
	return w->num_sge > 1 || (w->send_flags & IBV_SEND_IP_CSUM);
}

static int
sv_sq_reserve(struct sv_sq *sq, size_t scratch)
{
	if (scratch > sq->scratch_cap) {
		uint8_t *p = realloc(sq->scratch, scratch);

		if (p == NULL)
			return ENOMEM;
		sq->scratch = p;
		sq->scratch_cap = scratch;
	}
	return 0;
}

/* Every SGE of the WR in a registration of the QP's PD; the lkey is not
 * checked for inline data (ibv_post_send(3)). */
static inline bool
sv_sq_lkeys_ok(const struct sv_qp *qp, const struct ibv_send_wr *w)
{
	int i;

	if (w->send_flags & IBV_SEND_INLINE)
		return true;
	for (i = 0; i < w->num_sge; i++) {
		const struct ibv_sge *s = &w->sg_list[i];
		const struct sv_mr *mr;

		if (s->length == 0)
			continue;
		mr = sv_mr_lookup(qp->ctx, s->lkey, s->addr, s->length);
		if (sv_unlikely(mr == NULL || mr->prot != qp->pd))
			return false;
	}
	return true;
}

/* Check the buffers of an accepted WR of total bytes and make its frame:
 * a WC status. */
static inline enum ibv_wc_status
sv_sq_build(struct sv_qp *qp, const struct ibv_send_wr *w, uint64_t total,
	    uint32_t max_frame, uint8_t **scratch, const uint8_t **frame)
{
	uint8_t *p;
	int i;

	if (sv_unlikely(!sv_sq_lkeys_ok(qp, w)))
		return IBV_WC_LOC_PROT_ERR;
	/* Longer than the port's MTU plus an Ethernet header and a VLAN
	 * tag, or shorter than an Ethernet header. */
	if (sv_unlikely(total < SV_ETH_HLEN || total > max_frame))
		return IBV_WC_LOC_LEN_ERR;
	if (sv_likely(!sv_wr_copies(w))) {
		*frame = (const uint8_t *)(uintptr_t)w->sg_list[0].addr;
		return IBV_WC_SUCCESS;
	}
	p = *scratch;
	for (i = 0; i < w->num_sge; i++) {
		const struct ibv_sge *s = &w->sg_list[i];

		memcpy(p, (const void *)(uintptr_t)s->addr, s->length);
		p += s->length;
	}
	/* IBV_SEND_IP_CSUM: "Offload the IPv4 and TCP/UDP checksum
	 * calculation" (ibv_post_send(3)). */
	if (w->send_flags & IBV_SEND_IP_CSUM)
		sv_csum_fill(*scratch, (uint32_t)total, true);
	*frame = *scratch;
	*scratch = p;
	return IBV_WC_SUCCESS;
}

/* Room for a post of frames frames (iov, first) whose largest TSO
 * super-frame has super bytes (and as many again to cut it in). */
static int
sv_sq_reserve_tso(struct sv_sq *sq, unsigned int frames, size_t super)
{
	if (frames + 1 > sq->frames_cap) {
		struct iovec *iov = realloc(sq->xiov, frames * sizeof(*iov));
		unsigned int *first;

		if (iov == NULL)
			return ENOMEM;
		sq->xiov = iov;
		first = realloc(sq->xfirst, (frames + 1) * sizeof(*first));
		if (first == NULL)
			return ENOMEM;
		sq->xfirst = first;
		sq->frames_cap = frames + 1;
	}
	/* The super-frame and a segment being cut: at most as long. */
	if (2 * super > sq->super_cap) {
		uint8_t *p = realloc(sq->super, 2 * super);

		if (p == NULL)
			return ENOMEM;
		sq->super = p;
		sq->super_cap = 2 * super;
	}
	return 0;
}

/* Where the frames of a TSO WR go: one iovec each, their bytes in the
 * post's scratch. */
struct sv_tso_out {
	struct sv_port *port;
	bool egress;
	uint8_t *scratch;
	struct iovec *iov;
	unsigned int *first;
	unsigned int nfr;
};

static void
sv_tso_emit(void *arg, const uint8_t *frame, uint32_t len)
{
	struct sv_tso_out *o = arg;

	const uint8_t *f = o->scratch;
	uint32_t flen = len;

	memcpy(o->scratch, frame, len);
	o->scratch += len;
	/* An egress rewrite or encap writes the frame after it. */
	if (!o->egress || sv_port_egress(o->port, &f, &flen, o->scratch,
					 sv_port_egress_room(o->port, len))) {
		if (f == o->scratch)
			o->scratch += flen;
		o->first[o->nfr] = o->nfr;
		o->iov[o->nfr].iov_base = (void *)(uintptr_t)f;
		o->iov[o->nfr].iov_len = flen;
		o->nfr++;
	}
}

/*
 * A TSO WR, as a ConnectX puts it on the wire (PRM large send offload):
 * its header (wr->tso.hdr, copied into the WQE by libmlx5) in front of the
 * payload its SGEs gather, cut into frames of at most mss payload bytes,
 * each with the header's IPv4 total length and id (+1 per frame) or IPv6
 * payload length, TCP sequence number and flags (FIN and PSH on the last,
 * CWR on the first) made right, and its IPv4 and TCP checksums. A frame
 * longer than the port's largest, an mss of 0 or a header that is no TCP
 * one completes in error (IBV_WC_LOC_LEN_ERR).
 */
static enum ibv_wc_status
sv_sq_build_tso(struct sv_qp *qp, struct sv_sq *sq, const struct ibv_send_wr *w,
		uint64_t payload, uint32_t max_frame, struct sv_tso_out *o)
{
	uint32_t hdr = w->tso.hdr_sz, total = hdr + (uint32_t)payload;
	uint8_t *p = sq->super;
	int i;

	if (!sv_sq_lkeys_ok(qp, w))
		return IBV_WC_LOC_PROT_ERR;
	if (w->tso.mss == 0 ||
	    hdr + (payload < w->tso.mss ? payload : w->tso.mss) > max_frame)
		return IBV_WC_LOC_LEN_ERR;
	memcpy(p, w->tso.hdr, hdr);
	p += hdr;
	for (i = 0; i < w->num_sge; i++) {
		memcpy(p, (const void *)(uintptr_t)w->sg_list[i].addr,
		       w->sg_list[i].length);
		p += w->sg_list[i].length;
	}
	if (!sv_ip_len_fill(sq->super, total) ||
	    sv_gso_cut(sq->super, total, true, w->tso.mss, sq->super + total,
		       total, sv_tso_emit, o) == 0)
		return IBV_WC_LOC_LEN_ERR;
	return IBV_WC_SUCCESS;
}

/*
 * The send queue runs inside the call: the frames of the whole WR list go
 * to the wire in one batch, and the completions it owes (signalled WRs,
 * every error) are written in one go. Posts take the send queue lock
 * unless the QP belongs to a thread domain.
 */
int
sv_post_send(struct ibv_qp *ibqp, struct ibv_send_wr *wr,
	     struct ibv_send_wr **bad_wr)
{
	struct sv_qp *qp = sv_qp(ibqp);
	struct sv_sq *sq = sv_sq(qp);
	struct sv_port *port = &qp->ctx->dev->port;
	struct ibv_send_wr *w;
	unsigned int n = 0, nfr = 0, ncqe = 0, sent, i, outstanding;
	unsigned int frames = 0;
	uint32_t max_frame;
	size_t copy = 0, super = 0;
	uint8_t *scratch;
	struct iovec *iov = sq->iov;
	unsigned int *first = sq->first;
	bool err, egress, tso = false;
	uint64_t ts = 0;
	int rc = 0;

	if (sv_unlikely(qp->kind != SV_QP_RAW)) {
		if (bad_wr != NULL)
			*bad_wr = wr;
		return EINVAL;
	}
	/* The wire's MTU now: an interface changed behind the device's back
	 * is followed at the next post. */
	max_frame = SV_WIRE_FRAME_MAX(sv_wire_mtu(port->wire));
	if (!qp->single)
		pthread_mutex_lock(&sq->lock);
	/* The send queue takes WRs in RTS, and in ERR where they are
	 * flushed; before RTS posting is an error. */
	if (sv_unlikely(qp->qp.state != IBV_QPS_RTS &&
			qp->qp.state != IBV_QPS_ERR)) {
		w = wr;
		rc = EINVAL;
		goto out;
	}
	outstanding =
		qp->sq_posted -
		atomic_load_explicit(&qp->sq_retired, memory_order_acquire);
	/* Egress rules may rewrite and encap a frame: it is sent from the
	 * scratch then, with room for the header they push. */
	egress = !sv_port_egress_idle(port);
	for (w = wr; w != NULL; w = w->next) {
		uint64_t len;

		rc = sv_sq_check(qp, w, &len);
		if (sv_unlikely(rc != 0))
			break;
		if (sv_unlikely(outstanding + n >= qp->max_send_wr)) {
			rc = ENOMEM;
			break;
		}
		if (sv_unlikely(w->opcode == IBV_WR_TSO)) {
			unsigned int k = sv_tso_frames(w, len);

			tso = true;
			frames += k;
			copy += (size_t)k * w->tso.hdr_sz + len;
			if (sv_unlikely(egress))
				copy += (size_t)k *
						(w->tso.hdr_sz +
						 sv_port_egress_room(port, 0)) +
					len;
			if (w->tso.hdr_sz + len > super)
				super = w->tso.hdr_sz + len;
		} else {
			frames++;
			if (sv_unlikely(sv_wr_copies(w)) && len <= max_frame)
				copy += len;
			if (sv_unlikely(egress))
				copy += sv_port_egress_room(port,
							    (uint32_t)len);
		}
		sq->wrs[n].len = len;
		n++;
	}
	if (n == 0)
		goto out;
	if ((sv_unlikely(copy > 0) && sv_sq_reserve(sq, copy) != 0) ||
	    (sv_unlikely(tso) && sv_sq_reserve_tso(sq, frames, super) != 0)) {
		w = wr;
		rc = ENOMEM;
		goto out;
	}
	if (sv_unlikely(tso)) {
		iov = sq->xiov;
		first = sq->xfirst;
	}
	if (sv_unlikely(qp->scq->ts))
		ts = sv_clock_ticks();
	qp->sq_posted += n;

	/* Build the frames in order, and the completions they owe:
	 * signalled WRs and every error, each covering the WRs posted
	 * before it since the last one. The first WR that fails moves the
	 * QP to the error state, and the WRs after it are flushed. */
	scratch = sq->scratch;
	err = qp->qp.state == IBV_QPS_ERR;
	for (i = 0, w = wr; i < n; i++, w = w->next) {
		const uint8_t *frame = NULL;
		uint64_t total = sq->wrs[i].len;
		enum ibv_wc_status st = IBV_WC_WR_FLUSH_ERR;
		struct sv_cqe *cqe;

		if (sv_unlikely(!err && w->opcode == IBV_WR_TSO)) {
			struct sv_tso_out o = {
				.port = port,
				.egress = egress,
				.scratch = scratch,
				.iov = iov,
				.first = first,
				.nfr = nfr,
			};

			st = sv_sq_build_tso(qp, sq, w, total, max_frame, &o);
			if (st == IBV_WC_SUCCESS) {
				scratch = o.scratch;
				nfr = o.nfr;
			} else {
				err = true;
				qp->qp.state = IBV_QPS_ERR;
			}
		} else if (sv_likely(!err)) {
			st = sv_sq_build(qp, w, total, max_frame, &scratch,
					 &frame);
			if (sv_likely(st == IBV_WC_SUCCESS)) {
				uint32_t flen = (uint32_t)total;

				if (sv_likely(!egress) ||
				    sv_port_egress(port, &frame, &flen, scratch,
						   sv_port_egress_room(port,
								       flen))) {
					if (frame == scratch)
						scratch += flen;
					first[nfr] = nfr;
					iov[nfr].iov_base =
						(void *)(uintptr_t)frame;
					iov[nfr].iov_len = flen;
					nfr++;
				}
			} else {
				err = true;
				qp->qp.state = IBV_QPS_ERR;
			}
		}
		sq->pending++;
		if (sv_likely(st == IBV_WC_SUCCESS) && !qp->sq_sig_all &&
		    !(w->send_flags & IBV_SEND_SIGNALED))
			continue;
		cqe = &sq->cqes[ncqe++];
		cqe->wr_id = w->wr_id;
		cqe->status = st;
		/* libmlx5: MLX5_OPCODE_TSO completes as IBV_WC_TSO. */
		cqe->opcode = w->opcode == IBV_WR_TSO ? IBV_WC_TSO :
							IBV_WC_SEND;
		cqe->byte_len = st == IBV_WC_SUCCESS ? (uint32_t)total : 0;
		cqe->ts = ts;
		cqe->flow_tag = 0;
		cqe->wc_flags = 0;
		cqe->qp_num = qp->qp.qp_num;
		cqe->cvlan = 0;
		cqe->sq_retired = &qp->sq_retired;
		cqe->sq_retire = sq->pending;
		sq->pending = 0;
	}
	first[nfr] = nfr;
	/* One kick of the wire for the whole list. */
	if (nfr > 0) {
		sent = sv_wire_tx(port->wire, iov, first, nfr);
		atomic_fetch_add_explicit(&port->tx_frames, sent,
					  memory_order_relaxed);
		if (sv_unlikely(sent < nfr))
			atomic_fetch_add_explicit(&port->tx_errors, nfr - sent,
						  memory_order_relaxed);
	}
	if (ncqe > 0) {
		i = sv_cq_push_n(qp->scq, sq->cqes, ncqe);
		/* Completions the CQ had no room for free their slots now:
		 * nobody will read them. */
		for (; i < ncqe; i++)
			qp->sq_posted -= sq->cqes[i].sq_retire;
	}
	/* rc and w tell where posting stopped, if it did. */
out:
	if (!qp->single)
		pthread_mutex_unlock(&sq->lock);
	if (rc != 0 && bad_wr != NULL)
		*bad_wr = w;
	return rc;
}
