/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The device engine: what the ConnectX does beside the CPU, on a thread
 * of its own per device.
 *
 *  - Receive: softverbs' pump takes frames from the wire and steers them
 *    (rules, Toeplitz over the indirection table); the WQ it picks is a
 *    model WQ, whose face (mm_wq_deliver) takes the next receive WQE
 *    libmlx5 posted (data segments, doorbell record), writes the frame
 *    and a 64-byte CQE in the PRM layout (byte count, flow tag, L3/L4
 *    types and checksum bits, RSS hash result and type, stripped VLAN,
 *    user index, WQE counter, owner bit) into the CQ ring.
 *  - Send: each raw packet QP's send WQEs (control segment, Ethernet
 *    segment with its inline headers, data or inline segments), found
 *    through the send doorbell record, become frames softverbs' send
 *    path puts on the wire (egress rules, checksum offload, counters);
 *    the WQEs that ask for it (CQ_UPDATE) and every error complete with
 *    a requester CQE.
 *  - Completion events: a CQ armed through its doorbell record (or its
 *    UAR doorbell) raises one event on its channel at the next CQE.
 *  - Port events and the out_of_buffer counter.
 *
 * The thread polls while there is work and backs off to sleeping (up to
 * MM_SLEEP_MAX_NS, or until the wire has frames) when there is none: a
 * device with nothing to do costs about a thousand wake-ups a second.
 * Doorbells are plain memory the model cannot trap, so a send after a
 * quiet spell waits for the next wake-up.
 */

#define _GNU_SOURCE
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/mlx5dv.h>

#include "mm_internal.h"
#include "sv_key.h"

#define MM_SPIN_IDLE 64		     /* empty rounds before sleeping */
#define MM_SLEEP_MIN_NS 20000L	     /* first sleep: 20 us */
#define MM_SLEEP_MAX_NS 1000000L     /* longest sleep: 1 ms */
#define MM_SLEEP_EMPTY_NS 20000000L  /* with no queue at all: 20 ms */
#define MM_SCRATCH_SLOT 1024	     /* inline bytes per WQE */
#define MM_LINEAR_SLOT 16384	     /* a WQE of many pieces, copied */
#define MM_WQE_PIECES 64	     /* pieces of a WQE: ds < 64 */
#define MM_HOUSEKEEPING_NS 10000000L /* link and counters: 10 ms */

#define MM_CQ_SET_CI 0
#define MM_CQ_ARM_DB 1
#define MM_RCV_DBR 0
#define MM_SND_DBR 1
#define MM_CQ_DOORBELL 0x20 /* in the CQ's UAR page */
#define MM_INVALID_LKEY 0x100
#define MM_INLINE_SEG 0x80000000u

struct mm_engine {
	struct mm_dev *dev;
	pthread_t thread;
	pthread_mutex_t lock;
	int kick; /* eventfd: wakes the thread */
	bool stop;
	struct mm_cq *cqs;
	struct mm_qp *qps;
	uint64_t out_of_buffer_written;
	struct timespec last_housekeeping;
};

static inline uint32_t
mm_rd32(const volatile uint32_t *p)
{
	return __builtin_bswap32(__atomic_load_n(p, __ATOMIC_ACQUIRE));
}

static inline uint16_t
mm_be16(const void *p)
{
	const uint8_t *b = p;

	return (uint16_t)(b[0] << 8 | b[1]);
}

static inline uint32_t
mm_be32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return __builtin_bswap32(v);
}

static inline uint64_t
mm_be64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return __builtin_bswap64(v);
}

/* ---- lists and locking ---- */

void
mm_engine_lock(struct mm_dev *dev)
{
	pthread_mutex_lock(&dev->eng->lock);
}

void
mm_engine_unlock(struct mm_dev *dev)
{
	pthread_mutex_unlock(&dev->eng->lock);
}

void
mm_engine_kick(struct mm_dev *dev)
{
	uint64_t one = 1;

	if (dev->eng != NULL && mm_real_write(dev->eng->kick, &one, 8) < 0)
		mm_trace("engine kick: %s", strerror(errno));
}

void
mm_engine_add_cq(struct mm_dev *dev, struct mm_cq *cq)
{
	cq->next = dev->eng->cqs;
	dev->eng->cqs = cq;
}

void
mm_engine_del_cq(struct mm_dev *dev, struct mm_cq *cq)
{
	struct mm_cq **pp;

	for (pp = &dev->eng->cqs; *pp != NULL; pp = &(*pp)->next)
		if (*pp == cq) {
			*pp = cq->next;
			return;
		}
}

void
mm_engine_add_qp(struct mm_dev *dev, struct mm_qp *qp)
{
	qp->next = dev->eng->qps;
	dev->eng->qps = qp;
}

void
mm_engine_del_qp(struct mm_dev *dev, struct mm_qp *qp)
{
	struct mm_qp **pp;

	for (pp = &dev->eng->qps; *pp != NULL; pp = &(*pp)->next)
		if (*pp == qp) {
			*pp = qp->next;
			return;
		}
}

/* ---- CQEs ---- */

/* The 64-byte CQE of a CQ slot (the second half of a 128-byte one). */
static inline struct mlx5_cqe64 *
mm_cqe_at(const struct mm_cq *cq, uint32_t n)
{
	uint8_t *p = cq->buf + (size_t)(n & (cq->ncqe - 1)) * cq->cqe_size;

	return (struct mlx5_cqe64 *)(void *)(cq->cqe_size == 128 ? p + 64 : p);
}

/* Room for one more CQE: what the consumer index (the CQ's doorbell
 * record) says libmlx5 has read. */
static inline bool
mm_cq_room(const struct mm_cq *cq)
{
	uint32_t ci = mm_rd32(&cq->dbrec[MM_CQ_SET_CI]) & 0xffffff;

	return ((cq->pi - ci) & 0xffffff) < cq->ncqe;
}

static void
mm_cq_event(struct mm_cq *cq)
{
	struct ib_uverbs_comp_event_desc ev = {
		.cq_handle = cq->u->user_handle,
	};

	cq->armed = false;
	if (cq->channel == NULL)
		return;
	/* ib_uverbs_comp_handler(): the event, counted when read. */
	mm_evfile_post(cq->channel->priv, &ev, sizeof(ev), cq,
		       &cq->comp_events_reported);
}

/*
 * Publish a CQE built in e: every field, then the opcode and owner byte
 * (the owner bit is the parity of the pass over the ring), which is what
 * libmlx5 reads first. An armed CQ raises its event.
 */
static void
mm_cq_put(struct mm_cq *cq, struct mlx5_cqe64 *e, uint8_t opcode, bool error)
{
	struct mlx5_cqe64 *slot = mm_cqe_at(cq, cq->pi);
	uint8_t own = (uint8_t)(opcode << 4 | ((cq->pi / cq->ncqe) & 1));

	/* A completion carries the free-running clock of its writing (an
	 * error CQE has its syndrome there). */
	if (!error)
		e->timestamp = htobe64(mm_dev_clock(cq->f->dev));
	if (cq->cqe_size == 128)
		memset((uint8_t *)slot - 64, 0, 64);
	memcpy(slot, e, offsetof(struct mlx5_cqe64, op_own));
	__atomic_store_n(&slot->op_own, own, __ATOMIC_RELEASE);
	cq->pi++;
	/* MLX5_CQ_DB_REQ_NOT: any CQE; solicited only: errors (raw
	 * Ethernet has no solicited completion). */
	if (cq->armed && (!(cq->arm_last & (1u << 24)) || error))
		mm_cq_event(cq);
}

/* A CQ found full: the completion is lost, as on a CQ overrun; the first
 * one raises IBV_EVENT_CQ_ERR. */
static void
mm_cq_overrun(struct mm_cq *cq)
{
	if (cq->overrun)
		return;
	cq->overrun = true;
	mm_async_event(cq->f, cq->u->user_handle, IBV_EVENT_CQ_ERR);
	cq->async_events_reported++;
	mm_trace("CQ %u overrun", cq->cqn);
}

/* ---- receive: the WQ face ---- */

/* The CQE's TCP type: 1 without ACK, 3 an ACK with no data, 4 an ACK
 * with data. */
static uint8_t
mm_tcp_type(const struct sv_hdrs *h, const struct sv_pkt_info *info,
	    const uint8_t *frame)
{
	uint32_t l3 = info->l3_off, l4 = info->l4_off, ip_end, doff;

	if (!(h->tcp_flags & 0x10))
		return 1;
	if (l3 == 0 || l4 == 0)
		return 4;
	if (h->present & SV_P_IPV4)
		ip_end = l3 + mm_be16(frame + l3 + 2);
	else
		ip_end = l3 + 40 + mm_be16(frame + l3 + 4);
	doff = (uint32_t)(frame[l4 + 12] >> 4) * 4;
	return ip_end > l4 + doff ? 4 : 3;
}

/* The L3 / L4 header types and the ok bits of a received frame's CQE
 * (hds_ip_ext, l4_hdr_type_etc). */
static void
mm_cqe_rx_types(const struct sv_key *k, const struct sv_pkt_info *info,
		const uint8_t *frame, struct mlx5_cqe64 *e)
{
	const struct sv_hdrs *h = &k->outer;
	uint8_t l3 = MLX5_CQE_L3_HDR_TYPE_NONE, l4 = 0, ok = 0;

	if (h->present & SV_P_IPV4) {
		l3 = MLX5_CQE_L3_HDR_TYPE_IPV4;
		if (info->l3_csum_ok)
			ok |= MLX5_CQE_L3_OK;
	} else if (h->present & SV_P_IPV6) {
		/* IPv6 has no header checksum: a parsed header is ok. */
		l3 = MLX5_CQE_L3_HDR_TYPE_IPV6;
		ok |= MLX5_CQE_L3_OK;
	}
	if (!(h->present & SV_P_IPFRAG)) {
		if (h->present & SV_P_TCP)
			l4 = mm_tcp_type(h, info, frame);
		else if (h->present & SV_P_UDP)
			l4 = 2;
		if (l4 != 0 && info->l4_csum_ok)
			ok |= MLX5_CQE_L4_OK;
	}
	e->hds_ip_ext = ok;
	e->l4_hdr_type_etc = (uint8_t)(l4 << 4 | l3 << 2 |
				       ((h->present & SV_P_IPFRAG) ? 0x80 : 0));
}

/* The CQE's hash type (rx_hash_type, byte 16): the layers the hash QP
 * hashed on this frame. */
static uint8_t
mm_cqe_hash_type(const struct sv_qp *qp, const struct sv_key *k)
{
	const struct sv_hdrs *h = (qp->hash_fields & IBV_RX_HASH_INNER) &&
						  k->tunnel != SV_TUN_NONE ?
					  &k->inner :
					  &k->outer;
	uint64_t f = qp->hash_fields;
	uint8_t t = 0;

	if ((f & (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)) &&
	    (h->present & SV_P_IPV4))
		t |= 1;
	else if ((f & (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6)) &&
		 (h->present & SV_P_IPV6))
		t |= 2;
	if ((f & (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)) &&
	    (h->present & SV_P_TCP))
		t |= 1 << 2;
	else if ((f & (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)) &&
		 (h->present & SV_P_UDP))
		t |= 2 << 2;
	return t;
}

/* An RQ in error flushes what is posted (flush_in_error_en), WQE by WQE,
 * with flush error CQEs. Pump lock or engine lock held. */
static void
mm_wq_flush(struct mm_wq *wq)
{
	struct mm_cq *cq = wq->cq->priv;
	uint16_t head = (uint16_t)(mm_rd32(&wq->dbrec[MM_RCV_DBR]) & 0xffff);
	struct mlx5_cqe64 e;

	while ((uint16_t)wq->ci != head) {
		struct mlx5_err_cqe *err = (struct mlx5_err_cqe *)(void *)&e;

		if (!mm_cq_room(cq)) {
			mm_cq_overrun(cq);
			return;
		}
		memset(&e, 0, sizeof(e));
		e.srqn_uidx = __builtin_bswap32(wq->user_index & 0xffffff);
		e.wqe_counter = __builtin_bswap16((uint16_t)wq->ci);
		err->syndrome = MLX5_CQE_SYNDROME_WR_FLUSH_ERR;
		e.sop_drop_qpn = __builtin_bswap32(wq->wqn & 0xffffff);
		mm_cq_put(cq, &e, MLX5_CQE_RESP_ERR, true);
		wq->ci++;
	}
}

/* A receive error moves the RQ to error, as the hardware does with a
 * length or protection error; what is posted is flushed after it. */
static void
mm_wq_error(struct mm_wq *wq, struct mm_cq *cq, uint8_t syndrome)
{
	struct mlx5_cqe64 e;
	struct mlx5_err_cqe *err = (struct mlx5_err_cqe *)(void *)&e;

	memset(&e, 0, sizeof(e));
	e.srqn_uidx = __builtin_bswap32(wq->user_index & 0xffffff);
	e.wqe_counter = __builtin_bswap16((uint16_t)wq->ci);
	e.sop_drop_qpn = __builtin_bswap32(wq->wqn & 0xffffff);
	err->syndrome = syndrome;
	mm_cq_put(cq, &e, MLX5_CQE_RESP_ERR, true);
	wq->ci++;
	wq->sv->state = IBV_WQS_ERR;
	mm_wq_flush(wq);
}

/*
 * The receive face: the pump hands a steered frame to a model WQ (under
 * the port's pump lock, on the engine's thread). Returns 0, ENOBUFS
 * when libmlx5 has posted nothing, EAGAIN when the WQ is not ready.
 */
int
mm_wq_deliver(struct sv_wq *svwq, const struct sv_rx_frame *f)
{
	struct mm_wq *wq = svwq->face->priv;
	struct mm_cq *cq = wq->cq->priv;
	struct ibv_sge sge[64];
	const uint8_t *wqe, *seg;
	uint32_t nseg, n = 0, i, skip_at = 0, skip = 0, len = f->len;
	enum ibv_wc_status st;
	struct mlx5_cqe64 e;
	uint16_t head, tci = 0;
	bool stripped = false;

	if (mm_unlikely(svwq->wq.state != IBV_WQS_RDY))
		return EAGAIN;
	head = (uint16_t)(mm_rd32(&wq->dbrec[MM_RCV_DBR]) & 0xffff);
	if ((uint16_t)wq->ci == head)
		return ENOBUFS;
	/* The CQE must have room before the WQE is taken. */
	if (mm_unlikely(!mm_cq_room(cq))) {
		mm_cq_overrun(cq);
		return ENOBUFS;
	}
	wqe = wq->buf + ((size_t)(wq->ci & (wq->wqe_cnt - 1)) << wq->wqe_shift);
	nseg = (1u << wq->wqe_shift) / MM_DATA_SEG_SIZE;
	/* A signature segment first (MLX5_WQ_FLAG_SIGNATURE). */
	for (i = wq->sig ? 1 : 0; i < nseg && n < MM_ARRAY_SIZE(sge); i++) {
		seg = wqe + (size_t)i * MM_DATA_SEG_SIZE;
		/* The end: MLX5_INVALID_LKEY closes a shorter list. */
		if (mm_be32(seg + 4) == MM_INVALID_LKEY)
			break;
		sge[n].length = mm_be32(seg);
		sge[n].lkey = mm_be32(seg + 4);
		sge[n].addr = mm_be64(seg + 8);
		n++;
	}
	if ((svwq->flags & IBV_WQ_FLAGS_CVLAN_STRIPPING) &&
	    sv_wq_strip(f->data, f->len, &tci)) {
		stripped = true;
		skip_at = SV_WQ_STRIP_AT;
		skip = SV_WQ_STRIP_LEN;
	}
	st = sv_wq_scatter(svwq, sge, n, f->data, f->len, skip_at, skip);
	if (mm_unlikely(st != IBV_WC_SUCCESS)) {
		mm_wq_error(wq, cq,
			    st == IBV_WC_LOC_LEN_ERR ?
				    MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR :
				    MLX5_CQE_SYNDROME_LOCAL_PROT_ERR);
		return 0;
	}
	len -= skip;
	memset(&e, 0, sizeof(e));
	mm_cqe_rx_types(f->key, f->info, f->data, &e);
	if (stripped) {
		e.l4_hdr_type_etc |= 1; /* MLX5_CQE_VLAN_STRIPPED */
		e.vlan_info = __builtin_bswap16(tci);
	}
	if (f->qp != NULL && f->qp->hash_fields != 0) {
		uint32_t h = sv_qp_rx_hash(f->qp, f->key);
		uint8_t *raw = (uint8_t *)&e;

		/* rx_hash_res (byte 12) and rx_hash_type (byte 16) */
		raw[12] = (uint8_t)(h >> 24);
		raw[13] = (uint8_t)(h >> 16);
		raw[14] = (uint8_t)(h >> 8);
		raw[15] = (uint8_t)h;
		raw[16] = mm_cqe_hash_type(f->qp, f->key);
	}
	e.srqn_uidx = __builtin_bswap32(wq->user_index & 0xffffff);
	e.byte_cnt = __builtin_bswap32(len);
	/* The flow tag of the rule that steered the frame. */
	e.sop_drop_qpn = __builtin_bswap32(
		f->act != NULL && f->act->has_tag ? f->act->tag & 0xffffff : 0);
	e.wqe_counter = __builtin_bswap16((uint16_t)wq->ci);
	mm_cq_put(cq, &e, MLX5_CQE_RESP_SEND, false);
	wq->ci++;
	return 0;
}

/* ---- send ---- */

int
mm_qp_scratch_setup(struct mm_qp *qp)
{
	size_t len = (size_t)MM_TX_BATCH * MM_SCRATCH_SLOT;

	qp->scratch = aligned_alloc(MM_PAGE, len);
	if (qp->scratch == NULL)
		return -ENOMEM;
	memset(qp->scratch, 0, len);
	qp->scratch_mr = sv_reg_mr(((struct mm_pd *)qp->pd->priv)->sv,
				   qp->scratch, len, 0);
	if (qp->scratch_mr == NULL) {
		free(qp->scratch);
		qp->scratch = NULL;
		return -errno;
	}
	return 0;
}

/* The 16-byte unit k of the WQE starting at block b (the ring wraps). */
static inline const uint8_t *
mm_sq_unit(const struct mm_qp *qp, uint32_t b, uint32_t k)
{
	size_t ring = (size_t)qp->sq_wqe_cnt * 64;

	return qp->sq_buf + (((size_t)b * 64 + (size_t)k * 16) % ring);
}

/* The 64-byte blocks of the WQE starting at block b (its ds). */
static inline uint32_t
mm_tx_blocks(const struct mm_qp *qp, uint32_t b)
{
	uint32_t ds = mm_be32(mm_sq_unit(qp, b, 0) + 4) & 0x3f;

	return ((ds ? ds : 1) * 16 + 63) / 64;
}

/* Copy n bytes of the WQE from byte offset off of unit k on. */
static void
mm_sq_copy(const struct mm_qp *qp, uint32_t b, uint32_t k, uint32_t off,
	   uint8_t *dst, uint32_t n)
{
	while (n > 0) {
		uint32_t piece = 16 - off;

		if (piece > n)
			piece = n;
		memcpy(dst, mm_sq_unit(qp, b, k) + off, piece);
		dst += piece;
		n -= piece;
		k++;
		off = 0;
	}
}

struct mm_tx_wqe {
	uint32_t block;	  /* where it starts */
	uint16_t counter; /* its wqe_index */
	uint8_t opcode;
	bool signaled;
	/* Not sent: what its completion says (IBV_WC_SUCCESS: sent). */
	enum ibv_wc_status refused;
	/* For the next batch: it needs the QP's TSO buffer, taken. */
	bool later;
};

/* A piece of a frame: inline bytes in the scratch memory, or a data
 * segment's memory under its lkey. */
struct mm_piece {
	uint64_t addr;
	uint32_t len;
	uint32_t lkey;
};

/* Memory of the QP's own, registered, made at first use: *buf of len
 * bytes under *mr. */
static bool
mm_tx_buffer(struct mm_qp *qp, uint8_t **buf, struct ibv_mr **mr, size_t len)
{
	if (*buf != NULL)
		return true;
	*buf = aligned_alloc(MM_PAGE, len);
	if (*buf == NULL)
		return false;
	*mr = sv_reg_mr(((struct mm_pd *)qp->pd->priv)->sv, *buf, len, 0);
	if (*mr == NULL) {
		free(*buf);
		*buf = NULL;
		return false;
	}
	return true;
}

/* The pieces of one WQE into one piece of dst (cap bytes, under mr),
 * checking each data segment's lkey as the device does: an unknown key
 * or memory outside its registration is a local protection error. */
static enum ibv_wc_status
mm_tx_linearize(struct mm_qp *qp, uint8_t *dst, size_t cap,
		const struct ibv_mr *mr, struct mm_piece *p, uint32_t n)
{
	struct sv_context *ctx = sv_ctx(qp->sv->context);
	uint32_t i;
	size_t total = 0;

	for (i = 0; i < n; i++) {
		if (p[i].lkey != qp->scratch_mr->lkey &&
		    sv_mr_lookup(ctx, p[i].lkey, p[i].addr, p[i].len) == NULL)
			return IBV_WC_LOC_PROT_ERR;
		if (total + p[i].len > cap)
			return IBV_WC_LOC_LEN_ERR;
		memcpy(dst + total, (const void *)(uintptr_t)p[i].addr,
		       p[i].len);
		total += p[i].len;
	}
	p[0].addr = (uintptr_t)dst;
	p[0].len = (uint32_t)total;
	p[0].lkey = mr->lkey;
	return IBV_WC_SUCCESS;
}

/*
 * One send WQE into a work request of the device's send QP: the inline
 * headers (and inline data) through the QP's scratch memory, then the
 * data segments as they are, or all of it copied into one piece when
 * there are more than the device QP's SGEs. A TSO WQE (MLX5_OPCODE_TSO)
 * becomes an IBV_WR_TSO of its inline header and MSS, which softverbs
 * cuts as a ConnectX does. *tso_busy: the QP's TSO buffer is taken in
 * this batch. Returns the blocks it takes.
 */
static uint32_t
mm_tx_parse(struct mm_qp *qp, uint32_t block, unsigned int slot,
	    struct ibv_send_wr *wr, struct ibv_sge *sge, struct mm_tx_wqe *w,
	    bool *tso_busy)
{
	const uint8_t *ctrl = mm_sq_unit(qp, block, 0);
	uint8_t *scratch = qp->scratch + (size_t)slot * MM_SCRATCH_SLOT;
	uint32_t opmod_idx_opcode = mm_be32(ctrl);
	uint32_t ds = mm_be32(ctrl + 4) & 0x3f;
	uint32_t blocks = ((ds ? ds : 1) * 16 + 63) / 64;
	struct mm_piece p[MM_WQE_PIECES];
	uint32_t k, at = 0, used, inl, n = 0, i;
	const uint8_t *eseg;
	bool tso;

	w->block = block;
	w->counter = (uint16_t)(opmod_idx_opcode >> 8);
	w->opcode = (uint8_t)opmod_idx_opcode;
	w->signaled = ctrl[11] & MLX5_WQE_CTRL_CQ_UPDATE;
	w->refused = IBV_WC_SUCCESS;
	w->later = false;
	memset(wr, 0, sizeof(*wr));
	wr->wr_id = slot;
	wr->opcode = IBV_WR_SEND;
	wr->send_flags = IBV_SEND_SIGNALED;
	wr->sg_list = sge;
	tso = w->opcode == MLX5_OPCODE_TSO;
	if ((w->opcode != MLX5_OPCODE_SEND && !tso) || ds < 2) {
		/* NOP, multi-packet sends and the rest are not modelled:
		 * an error completion (local QP operation error). */
		w->refused = IBV_WC_LOC_QP_OP_ERR;
		return blocks;
	}
	/* The Ethernet segment: checksum flags, MSS, inline headers. */
	eseg = mm_sq_unit(qp, block, 1);
	if (eseg[4] & (MLX5_ETH_WQE_L3_CSUM | MLX5_ETH_WQE_L4_CSUM))
		wr->send_flags |= IBV_SEND_IP_CSUM;
	inl = mm_be16(eseg + 12);
	if (inl > MM_SCRATCH_SLOT || (tso && inl > MM_TSO_HDR_MAX)) {
		w->refused = IBV_WC_LOC_QP_OP_ERR;
		return blocks;
	}
	mm_sq_copy(qp, block, 1, 14, scratch, inl);
	used = inl;
	if (tso) {
		/* The header is the WR's, not a piece of the payload. */
		wr->opcode = IBV_WR_TSO;
		wr->tso.hdr = scratch;
		wr->tso.hdr_sz = (uint16_t)inl;
		wr->tso.mss = mm_be16(eseg + 6);
		at = inl;
		used = 0;
	}
	k = 2 + (inl > 2 ? (inl - 2 + 15) / 16 : 0);
	/* Data and inline segments fill the rest of ds; consecutive inline
	 * bytes make one piece. */
	while (k < ds) {
		const uint8_t *d = mm_sq_unit(qp, block, k);
		uint32_t bc = mm_be32(d);

		if (bc & MM_INLINE_SEG) {
			uint32_t len = bc & ~MM_INLINE_SEG;

			if (at + used + len > MM_SCRATCH_SLOT) {
				w->refused = IBV_WC_LOC_QP_OP_ERR;
				return blocks;
			}
			mm_sq_copy(qp, block, k, 4, scratch + at + used, len);
			used += len;
			k += (4 + len + 15) / 16;
			continue;
		}
		if (used > 0) {
			p[n++] = (struct mm_piece){ (uintptr_t)(scratch + at),
						    used,
						    qp->scratch_mr->lkey };
			at += used;
			used = 0;
		}
		if (bc != 0)
			p[n++] = (struct mm_piece){ mm_be64(d + 8), bc,
						    mm_be32(d + 4) };
		k++;
	}
	if (used > 0)
		p[n++] = (struct mm_piece){ (uintptr_t)(scratch + at), used,
					    qp->scratch_mr->lkey };
	if (n > MM_TX_SGE && !tso) {
		if (!mm_tx_buffer(qp, &qp->linear, &qp->linear_mr,
				  (size_t)MM_TX_BATCH * MM_LINEAR_SLOT)) {
			w->refused = IBV_WC_LOC_QP_OP_ERR;
			return blocks;
		}
		w->refused =
			mm_tx_linearize(qp,
					qp->linear +
						(size_t)slot * MM_LINEAR_SLOT,
					MM_LINEAR_SLOT, qp->linear_mr, p, n);
		if (w->refused != IBV_WC_SUCCESS)
			return blocks;
		n = 1;
	} else if (n > MM_TX_SGE) {
		/* A TSO payload of many pieces: the QP's one TSO buffer,
		 * free again once the batch is posted (softverbs copies the
		 * payload at the post). */
		if (*tso_busy) {
			w->later = true;
			return blocks;
		}
		if (!mm_tx_buffer(qp, &qp->tso_buf, &qp->tso_mr,
				  MM_TSO_PAYLOAD_MAX)) {
			w->refused = IBV_WC_LOC_QP_OP_ERR;
			return blocks;
		}
		w->refused = mm_tx_linearize(qp, qp->tso_buf,
					     MM_TSO_PAYLOAD_MAX, qp->tso_mr, p,
					     n);
		if (w->refused != IBV_WC_SUCCESS)
			return blocks;
		*tso_busy = true;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		sge[i].addr = p[i].addr;
		sge[i].length = p[i].len;
		sge[i].lkey = p[i].lkey;
	}
	wr->num_sge = (int)n;
	return blocks;
}

static uint8_t
mm_syndrome(enum ibv_wc_status st)
{
	switch (st) {
	case IBV_WC_LOC_LEN_ERR:
		return MLX5_CQE_SYNDROME_LOCAL_LENGTH_ERR;
	case IBV_WC_LOC_PROT_ERR:
		return MLX5_CQE_SYNDROME_LOCAL_PROT_ERR;
	case IBV_WC_LOC_QP_OP_ERR:
		return MLX5_CQE_SYNDROME_LOCAL_QP_OP_ERR;
	default:
		return MLX5_CQE_SYNDROME_WR_FLUSH_ERR;
	}
}

/* A requester CQE for WQE w (status st). */
static void
mm_tx_complete(struct mm_qp *qp, const struct mm_tx_wqe *w,
	       enum ibv_wc_status st)
{
	struct mm_cq *cq = qp->send_cq;
	struct mlx5_cqe64 e;

	if (st == IBV_WC_SUCCESS && !w->signaled)
		return;
	if (!mm_cq_room(cq)) {
		mm_cq_overrun(cq);
		return;
	}
	memset(&e, 0, sizeof(e));
	e.srqn_uidx = __builtin_bswap32(qp->uidx & 0xffffff);
	e.wqe_counter = __builtin_bswap16(w->counter);
	if (st == IBV_WC_SUCCESS) {
		e.sop_drop_qpn =
			__builtin_bswap32((uint32_t)w->opcode << 24 | qp->qpn);
		mm_cq_put(cq, &e, MLX5_CQE_REQ, false);
	} else {
		struct mlx5_err_cqe *err = (struct mlx5_err_cqe *)(void *)&e;

		err->syndrome = mm_syndrome(st);
		err->s_wqe_opcode_qpn =
			__builtin_bswap32((uint32_t)w->opcode << 24 | qp->qpn);
		mm_cq_put(cq, &e, MLX5_CQE_REQ_ERR, true);
	}
}

/* Room for every CQE a batch of n WQEs could need. */
static uint32_t
mm_cq_free(const struct mm_cq *cq)
{
	uint32_t ci = mm_rd32(&cq->dbrec[MM_CQ_SET_CI]) & 0xffffff;

	return cq->ncqe - ((cq->pi - ci) & 0xffffff);
}

/* Send what libmlx5 posted on one QP; returns the WQEs done. */
static unsigned int
mm_tx_qp(struct mm_qp *qp)
{
	struct ibv_send_wr wrs[MM_TX_BATCH], *bad;
	struct ibv_sge sges[MM_TX_BATCH][MM_TX_SGE];
	struct mm_tx_wqe w[MM_TX_BATCH];
	struct ibv_wc wc[MM_TX_BATCH];
	unsigned int n = 0, i, done = 0, room;
	bool tso_busy = false;
	uint16_t head;
	int got, rc;

	if (qp->state != IBV_QPS_RTS && qp->state != IBV_QPS_ERR)
		return 0;
	head = (uint16_t)(mm_rd32(&qp->dbrec[MM_SND_DBR]) & 0xffff);
	room = mm_cq_free(qp->send_cq);
	while ((uint16_t)qp->sq_ci != head && n < MM_TX_BATCH && n < room) {
		uint32_t blocks = mm_tx_parse(qp, qp->sq_ci, n, &wrs[n],
					      sges[n], &w[n], &tso_busy);

		if (w[n].later)
			break;
		qp->sq_ci += blocks;
		if (w[n].refused != IBV_WC_SUCCESS) {
			/* Stop before it: the WQEs ahead go first. */
			if (n == 0) {
				mm_tx_complete(qp, &w[0], w[0].refused);
				qp->state = IBV_QPS_ERR;
				qp->sv->state = IBV_QPS_ERR;
				return 1;
			}
			qp->sq_ci -= blocks;
			break;
		}
		if (n > 0)
			wrs[n - 1].next = &wrs[n];
		n++;
	}
	if (n == 0)
		return 0;
	rc = sv_post_send(qp->sv, &wrs[0], &bad);
	if (rc != 0) {
		/* The device's send queue took the WRs before bad only:
		 * the rest wait for the next round; a WR it refuses for
		 * itself (not for room) fails its WQE. */
		mm_trace("QP %u: post of %u WQEs: %s", qp->qpn, n,
			 strerror(rc));
		n = (unsigned int)(bad - wrs);
		qp->sq_ci = w[n].block;
		if (n == 0 && rc != ENOMEM) {
			mm_tx_complete(qp, &w[0], IBV_WC_LOC_QP_OP_ERR);
			qp->sq_ci += mm_tx_blocks(qp, w[0].block);
			qp->state = IBV_QPS_ERR;
			qp->sv->state = IBV_QPS_ERR;
			return 1;
		}
	}
	/* Every WR was signalled: each completion says what its WQE
	 * became. */
	while (done < n) {
		got = sv_poll_cq(ibv_cq_ex_to_cq(qp->send_cq->sv),
				 (int)(n - done), wc);
		if (got <= 0)
			break;
		for (i = 0; i < (unsigned int)got; i++) {
			const struct mm_tx_wqe *x = &w[wc[i].wr_id];

			mm_tx_complete(qp, x, wc[i].status);
			if (wc[i].status != IBV_WC_SUCCESS)
				qp->state = IBV_QPS_ERR;
		}
		done += (unsigned int)got;
	}
	return n;
}

/* ---- arming ---- */

/* A new arm request: through the CQ's arm doorbell record (its value
 * changes with each arming: sequence number, consumer index), or the
 * CQ doorbell of its UAR page naming it (taken, so that an arming that
 * writes the record unchanged is still seen). */
static void
mm_cq_arm_check(struct mm_cq *cq)
{
	uint32_t db = mm_rd32(&cq->dbrec[MM_CQ_ARM_DB]);
	bool uar = false;
	uint32_t ci;

	if (cq->channel == NULL)
		return;
	if (cq->uar_db != NULL) {
		uint64_t v = __atomic_load_n(cq->uar_db, __ATOMIC_ACQUIRE);
		uint8_t b[8];

		memcpy(b, &v, 8);
		if (v != 0 && mm_be32(b + 4) == cq->cqn &&
		    __atomic_compare_exchange_n(cq->uar_db, &v, 0, false,
						__ATOMIC_ACQ_REL,
						__ATOMIC_ACQUIRE)) {
			uar = true;
			db = mm_be32(b);
		}
	}
	if (!uar && db == cq->arm_last)
		return;
	cq->arm_last = db;
	cq->armed = true;
	/* Completions beyond the consumer index given raise it at once. */
	ci = db & 0xffffff;
	if (((cq->pi - ci) & 0xffffff) != 0 && !(db & (1u << 24)))
		mm_cq_event(cq);
}

/* ---- the thread ---- */

static void
mm_housekeeping(struct mm_engine *eng)
{
	struct mm_dev *dev = eng->dev;
	struct ibv_async_event ev;
	struct sv_port_stats st;
	char path[1024];

	/* Port state changes: every file of the device gets them. */
	while (sv_get_async_event(dev->kctx, &ev) == 0) {
		mm_trace("%s: port event %d", dev->ibdev, ev.event_type);
		mm_dev_async_event(dev, ev.element.port_num, ev.event_type);
		sv_ack_async_event(&ev);
	}
	/* The out_of_buffer counter of sysfs (hw_counters), kept as the
	 * kernel's read would give it. */
	if (softverbs_port_stats(dev->kctx, 1, &st) == 0 &&
	    st.rx_no_buffer != eng->out_of_buffer_written) {
		FILE *f;

		snprintf(path, sizeof(path),
			 "%s/class/infiniband/%s/ports/1/hw_counters/out_of_buffer",
			 mm_sysfs_root(), dev->ibdev);
		f = fopen(path, "r+");
		if (f != NULL) {
			fprintf(f, "%llu\n",
				(unsigned long long)st.rx_no_buffer);
			fclose(f);
			eng->out_of_buffer_written = st.rx_no_buffer;
		}
	}
}

uint64_t
mm_engine_out_of_buffer(struct mm_dev *dev)
{
	struct sv_port_stats st;

	return softverbs_port_stats(dev->kctx, 1, &st) == 0 ? st.rx_no_buffer :
							      0;
}

static long
mm_ns_since(const struct timespec *t)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - t->tv_sec) * 1000000000L +
	       (now.tv_nsec - t->tv_nsec);
}

static unsigned int
mm_engine_round(struct mm_engine *eng)
{
	struct sv_device *svd;
	struct mm_cq *cq;
	struct mm_qp *qp;
	unsigned int work = 0, n;

	mm_dev_clock_publish(eng->dev);
	for (qp = eng->qps; qp != NULL; qp = qp->next)
		work += mm_tx_qp(qp);
	svd = sv_ctx(eng->dev->kctx)->dev;
	do {
		n = sv_port_pump(&svd->port);
		work += n;
	} while (n != 0 && work < 1024);
	for (cq = eng->cqs; cq != NULL; cq = cq->next)
		mm_cq_arm_check(cq);
	if (mm_ns_since(&eng->last_housekeeping) > MM_HOUSEKEEPING_NS) {
		clock_gettime(CLOCK_MONOTONIC, &eng->last_housekeeping);
		mm_housekeeping(eng);
	}
	return work;
}

static void *
mm_engine_main(void *arg)
{
	struct mm_engine *eng = arg;
	struct sv_device *svd = sv_ctx(eng->dev->kctx)->dev;
	struct pollfd pfd[2];
	unsigned int idle = 0;
	long sleep_ns = MM_SLEEP_MIN_NS;
	int wire_fd = sv_wire_rx_fd(svd->port.wire);
	uint64_t v;

	pfd[0].fd = eng->kick;
	pfd[0].events = POLLIN;
	pfd[1].fd = wire_fd;
	pfd[1].events = POLLIN;
	for (;;) {
		unsigned int work;

		pthread_mutex_lock(&eng->lock);
		if (eng->stop) {
			pthread_mutex_unlock(&eng->lock);
			break;
		}
		work = mm_engine_round(eng);
		pthread_mutex_unlock(&eng->lock);
		if (work != 0) {
			idle = 0;
			sleep_ns = MM_SLEEP_MIN_NS;
			continue;
		}
		if (++idle < MM_SPIN_IDLE)
			continue;
		{
			struct timespec ts = { 0, sleep_ns };

			if (ppoll(pfd, wire_fd >= 0 ? 2 : 1, &ts, NULL) > 0 &&
			    (pfd[0].revents & POLLIN) &&
			    mm_real_read(eng->kick, &v, sizeof(v)) < 0)
				mm_trace("engine: kick: %s", strerror(errno));
		}
		sleep_ns *= 2;
		if (sleep_ns > MM_SLEEP_MAX_NS)
			sleep_ns = eng->cqs == NULL && eng->qps == NULL ?
					   MM_SLEEP_EMPTY_NS :
					   MM_SLEEP_MAX_NS;
	}
	return NULL;
}

int
mm_engine_start(struct mm_dev *dev)
{
	struct mm_engine *eng = calloc(1, sizeof(*eng));
	sigset_t all, old;
	int rc;

	if (eng == NULL)
		return -ENOMEM;
	eng->dev = dev;
	pthread_mutex_init(&eng->lock, NULL);
	eng->kick = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (eng->kick < 0) {
		free(eng);
		return -errno;
	}
	/* Events of the device's own context, read without blocking. */
	if (dev->kctx->async_fd >= 0)
		fcntl(dev->kctx->async_fd, F_SETFL,
		      fcntl(dev->kctx->async_fd, F_GETFL) | O_NONBLOCK);
	clock_gettime(CLOCK_MONOTONIC, &eng->last_housekeeping);
	dev->eng = eng;
	/* The application's signals are the application's threads'. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&eng->thread, NULL, mm_engine_main, eng);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		dev->eng = NULL;
		mm_real_close(eng->kick);
		free(eng);
		return -rc;
	}
	pthread_setname_np(eng->thread, "mlx5model");
	return 0;
}

void
mm_engine_stop(struct mm_dev *dev)
{
	struct mm_engine *eng = dev->eng;

	if (eng == NULL)
		return;
	pthread_mutex_lock(&eng->lock);
	eng->stop = true;
	pthread_mutex_unlock(&eng->lock);
	mm_engine_kick(dev);
	pthread_join(eng->thread, NULL);
}
