/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Completion queues: ibv_create_cq(3), ibv_create_cq_ex(3), ibv_poll_cq(3)
 * and the ibv_start_poll / ibv_next_poll / ibv_end_poll iterator.
 *
 * The ring has one consumer at a time, the application: several threads
 * may poll a CQ, serialised by poll_lock from start_poll to end_poll (or
 * over one poll_cq call), unless the CQ was made
 * IBV_CREATE_CQ_ATTR_SINGLE_THREADED, which promises one thread and takes
 * no lock, as libmlx5 then picks its lock-free pollers
 * (mlx5_cq_fill_pfns()). Producers are the device: receive completions are
 * written under the port's pump lock, send completions by the thread
 * posting to the send queue; the producer lock serialises the two kinds
 * (taken by the receive side only while a send QP completes on the CQ
 * too, or when the CQ is on a completion channel) and is taken once per
 * batch of completions. Consumer and producers
 * publish their side with release stores (head, tail).
 *
 * The device has no thread of its own. A poller that finds its CQ empty
 * pumps the port once (pulls frames from the wire and steers them) before
 * answering ENOENT.
 *
 * Arming (ibv_req_notify_cq) is a flag under the producers' lock: the
 * producer that writes a completion an armed CQ is waiting for disarms it
 * and queues the CQ's one event on its channel (sv_event.c). Under the
 * same lock, so that arming and producing see each other: a completion is
 * either written before the arming (an mlx5 device then raises the event
 * at once) or finds the CQ armed.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sv_internal.h"

/* What ibv_wc_read_* can return on this device. SLID, SL and DLID path
 * bits are InfiniBand fields and there is no device clock. */
#define SV_CQ_WC_FLAGS                                     \
	(IBV_WC_EX_WITH_BYTE_LEN | IBV_WC_EX_WITH_QP_NUM | \
	 IBV_WC_EX_WITH_SRC_QP | IBV_WC_EX_WITH_CVLAN |    \
	 IBV_WC_EX_WITH_FLOW_TAG)
#define SV_CQ_FLAGS \
	(IBV_CREATE_CQ_ATTR_SINGLE_THREADED | IBV_CREATE_CQ_ATTR_IGNORE_OVERRUN)

static inline struct sv_cq *
sv_cq_of(struct ibv_cq_ex *cqx)
{
	return sv_container_of(cqx, struct sv_cq, cqx);
}

struct sv_cq *
sv_cq_from_ibv(struct ibv_cq *cq)
{
	return sv_cq_of((struct ibv_cq_ex *)cq);
}

/*
 * Does a completion of status st end the arming (lock held)? Every
 * completion does for ibv_req_notify_cq(cq, 0); with solicited_only only a
 * solicited one: raw Ethernet frames carry no Solicited Event bit, so an
 * error completion (ibv_req_notify_cq(3): "or if the status is not
 * successful"). The arming is one-shot: it ends here.
 */
static bool
sv_cq_arm_fires(struct sv_cq *cq, enum ibv_wc_status st)
{
	if (!(cq->armed & SV_CQ_ARM_NEXT) && st == IBV_WC_SUCCESS)
		return false;
	cq->armed = 0;
	return true;
}

/* Write n completions after tail; the producer side is held. *fire: one
 * of them ended the CQ's arming. */
static inline uint32_t
sv_cq_put(struct sv_cq *cq, const struct sv_cqe *cqe, uint32_t n, bool *fire)
{
	uint32_t tail = cq->tail, head, room, i;

	head = __atomic_load_n(&cq->head, __ATOMIC_ACQUIRE);
	room = cq->size - (tail - head);
	if (n > room) {
		cq->overruns += n - room;
		n = room;
	}
	for (i = 0; i < n; i++)
		cq->ring[(tail + i) & (cq->size - 1)] = cqe[i];
	__atomic_store_n(&cq->tail, tail + n, __ATOMIC_RELEASE);
	/* Only CQs on a channel are ever armed. */
	for (i = 0; sv_unlikely(cq->armed != 0) && i < n && !*fire; i++)
		*fire = sv_cq_arm_fires(cq, cqe[i].status);
	return n;
}

uint32_t
sv_cq_push_n(struct sv_cq *cq, const struct sv_cqe *cqe, uint32_t n)
{
	bool fire = false;

	pthread_spin_lock(&cq->lock);
	n = sv_cq_put(cq, cqe, n, &fire);
	pthread_spin_unlock(&cq->lock);
	if (sv_unlikely(fire))
		sv_channel_post(cq);
	return n;
}

bool
sv_cq_push(struct sv_cq *cq, const struct sv_cqe *cqe)
{
	return sv_cq_push_n(cq, cqe, 1) == 1;
}

void
sv_cq_rx_unlock(struct sv_cq *cq)
{
	bool fire = false;

	if (sv_unlikely(cq->armed != 0))
		fire = sv_cq_arm_fires(cq,
				       cq->ring[(cq->tail - 1) & (cq->size - 1)]
					       .status);
	pthread_spin_unlock(&cq->lock);
	if (sv_unlikely(fire))
		sv_channel_post(cq);
}

bool
sv_cq_push_rx(struct sv_cq *cq, const struct sv_cqe *cqe)
{
	struct sv_cqe *e = sv_cq_rx_reserve(cq);

	if (e == NULL)
		return false;
	*e = *cqe;
	sv_cq_rx_commit(cq);
	return true;
}

void
sv_cq_forget_sq(struct sv_cq *cq, const atomic_uint *sq_retired)
{
	uint32_t i;

	pthread_spin_lock(&cq->lock);
	for (i = __atomic_load_n(&cq->head, __ATOMIC_ACQUIRE); i != cq->tail;
	     i++) {
		struct sv_cqe *e = &cq->ring[i & (cq->size - 1)];

		if (e->sq_retired == sq_retired)
			e->sq_retired = NULL;
	}
	pthread_spin_unlock(&cq->lock);
}

/* The oldest completion, or NULL. Consumer side only. */
static inline struct sv_cqe *
sv_cq_peek(struct sv_cq *cq)
{
	uint32_t head = cq->head;

	if (head == __atomic_load_n(&cq->tail, __ATOMIC_ACQUIRE))
		return NULL;
	return &cq->ring[head & (cq->size - 1)];
}

/* Give the oldest completion's slot back to producers. */
static inline void
sv_cq_release(struct sv_cq *cq)
{
	__atomic_store_n(&cq->head, cq->head + 1, __ATOMIC_RELEASE);
}

/* A send completion frees the send queue slots it stands for when it is
 * read, as hardware frees them when the CQE is polled. */
static inline void
sv_cq_retire(const struct sv_cqe *e)
{
	/* One reader of a CQ at a time: no read-modify-write needed. */
	if (e->sq_retired != NULL)
		atomic_store_explicit(e->sq_retired,
				      atomic_load_explicit(e->sq_retired,
							   memory_order_relaxed) +
					      e->sq_retire,
				      memory_order_release);
}

static struct sv_cqe *
sv_cq_peek_or_pump(struct sv_cq *cq)
{
	struct sv_cqe *e = sv_cq_peek(cq);

	if (e == NULL && sv_port_pump(&cq->ctx->dev->port) > 0)
		e = sv_cq_peek(cq);
	return e;
}

/* Consumers: one at a time, unless the application promised it. */
static inline void
sv_cq_poll_lock(struct sv_cq *cq)
{
	if (!cq->single)
		pthread_spin_lock(&cq->poll_lock);
}

static inline void
sv_cq_poll_unlock(struct sv_cq *cq)
{
	if (!cq->single)
		pthread_spin_unlock(&cq->poll_lock);
}

static inline void
sv_cq_set_cur(struct sv_cq *cq, struct sv_cqe *e)
{
	cq->cur = e;
	cq->cqx.wr_id = e->wr_id;
	cq->cqx.status = e->status;
	sv_cq_retire(e);
}

static int
sv_cq_start_poll(struct ibv_cq_ex *cqx, struct ibv_poll_cq_attr *attr)
{
	struct sv_cq *cq = sv_cq_of(cqx);
	struct sv_cqe *e;

	if (attr != NULL && attr->comp_mask != 0)
		return EINVAL;
	sv_cq_poll_lock(cq);
	e = sv_cq_peek_or_pump(cq);
	if (e == NULL) {
		/* ENOENT: no end_poll follows. */
		sv_cq_poll_unlock(cq);
		return ENOENT;
	}
	sv_cq_set_cur(cq, e);
	return 0;
}

static int
sv_cq_next_poll(struct ibv_cq_ex *cqx)
{
	struct sv_cq *cq = sv_cq_of(cqx);
	struct sv_cqe *e;

	if (cq->cur != NULL) {
		cq->cur = NULL;
		sv_cq_release(cq);
	}
	e = sv_cq_peek(cq);
	if (e == NULL)
		return ENOENT;
	sv_cq_set_cur(cq, e);
	return 0;
}

static void
sv_cq_end_poll(struct ibv_cq_ex *cqx)
{
	struct sv_cq *cq = sv_cq_of(cqx);

	if (cq->cur != NULL) {
		cq->cur = NULL;
		sv_cq_release(cq);
	}
	sv_cq_poll_unlock(cq);
}

static enum ibv_wc_opcode
sv_cq_read_opcode(struct ibv_cq_ex *cqx)
{
	return sv_cq_of(cqx)->cur->opcode;
}

static uint32_t
sv_cq_read_vendor_err(struct ibv_cq_ex *cqx)
{
	/* No vendor syndrome: the status says it all. */
	return sv_cq_of(cqx)->cur->status == IBV_WC_SUCCESS ? 0 : 1;
}

static uint32_t
sv_cq_read_byte_len(struct ibv_cq_ex *cqx)
{
	return sv_cq_of(cqx)->cur->byte_len;
}

static uint32_t
sv_cq_read_qp_num(struct ibv_cq_ex *cqx)
{
	return sv_cq_of(cqx)->cur->qp_num;
}

static uint32_t
sv_cq_read_src_qp(struct ibv_cq_ex *cqx)
{
	/* Raw Ethernet frames come from no QP. */
	return 0;
}

static unsigned int
sv_cq_read_wc_flags(struct ibv_cq_ex *cqx)
{
	return sv_cq_of(cqx)->cur->wc_flags;
}

static uint16_t
sv_cq_read_cvlan(struct ibv_cq_ex *cqx)
{
	return sv_cq_of(cqx)->cur->cvlan;
}

static uint32_t
sv_cq_read_flow_tag(struct ibv_cq_ex *cqx)
{
	return sv_cq_of(cqx)->cur->flow_tag;
}

static uint64_t
sv_cq_read_completion_ts(struct ibv_cq_ex *cqx)
{
	return sv_cq_of(cqx)->cur->ts;
}

int
sv_poll_cq(struct ibv_cq *ibcq, int num_entries, struct ibv_wc *wc)
{
	struct sv_cq *cq;
	struct sv_cqe *e;
	int n;

	if (ibcq == NULL || num_entries < 0 || (num_entries > 0 && wc == NULL))
		return -EINVAL;
	cq = sv_cq_from_ibv(ibcq);
	sv_cq_poll_lock(cq);
	for (n = 0; n < num_entries; n++) {
		e = n == 0 ? sv_cq_peek_or_pump(cq) : sv_cq_peek(cq);
		if (e == NULL)
			break;
		memset(&wc[n], 0, sizeof(wc[n]));
		wc[n].wr_id = e->wr_id;
		wc[n].status = e->status;
		wc[n].opcode = e->opcode;
		wc[n].vendor_err = e->status == IBV_WC_SUCCESS ? 0 : 1;
		wc[n].byte_len = e->byte_len;
		wc[n].qp_num = e->qp_num;
		wc[n].wc_flags = e->wc_flags;
		sv_cq_retire(e);
		sv_cq_release(cq);
	}
	sv_cq_poll_unlock(cq);
	return n;
}

static struct sv_cq *
sv_cq_new(struct ibv_context *context, uint32_t cqe, void *cq_context,
	  struct ibv_comp_channel *channel, int comp_vector, uint64_t wc_flags,
	  bool single, struct sv_pd *parent)
{
	struct sv_context *ctx = sv_ctx(context);
	struct sv_cq *cq;
	uint32_t size;

	if (cqe == 0 || cqe > SV_MAX_CQE) {
		errno = EINVAL;
		return NULL;
	}
	/* A channel of this context (the kernel looks the fd up in the
	 * caller's own file table, ib_uverbs_lookup_comp_file()). */
	if (channel != NULL && channel->context != context) {
		errno = EINVAL;
		return NULL;
	}
	if (comp_vector < 0 || comp_vector >= context->num_comp_vectors) {
		errno = EINVAL;
		return NULL;
	}
	cq = calloc(1, sizeof(*cq));
	if (cq == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	for (size = 1; size < cqe; size <<= 1)
		;
	cq->ring = aligned_alloc(sizeof(*cq->ring), size * sizeof(*cq->ring));
	if (cq->ring != NULL)
		memset(cq->ring, 0, size * sizeof(*cq->ring));
	if (cq->ring == NULL) {
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&ctx->lock);
	if (ctx->n_cq >= SV_MAX_CQ) {
		pthread_mutex_unlock(&ctx->lock);
		free(cq->ring);
		free(cq);
		errno = ENOMEM;
		return NULL;
	}
	ctx->n_cq++;
	cq->cqx.handle = ctx->next_qpn++;
	pthread_mutex_unlock(&ctx->lock);
	atomic_fetch_add(&ctx->nobjs, 1);

	cq->ctx = ctx;
	cq->size = size;
	cq->wc_flags = wc_flags;
	cq->single = single;
	pthread_spin_init(&cq->lock, PTHREAD_PROCESS_PRIVATE);
	pthread_spin_init(&cq->poll_lock, PTHREAD_PROCESS_PRIVATE);
	atomic_init(&cq->n_sq, 0);
	atomic_init(&cq->usecnt, 0);
	cq->parent = parent;
	if (parent != NULL)
		atomic_fetch_add(&parent->usecnt, 1);
	cq->cqx.context = context;
	cq->cqx.channel = channel;
	cq->cqx.cq_context = cq_context;
	if (channel != NULL) {
		/* libibverbs' verbs_init_cq(): the channel counts its CQs. */
		cq->channel = sv_container_of(channel, struct sv_channel, ch);
		pthread_mutex_lock(&context->mutex);
		channel->refcnt++;
		pthread_mutex_unlock(&context->mutex);
	}
	/* The actual size: "greater than or equal to the requested". */
	cq->cqx.cqe = (int)size;
	pthread_mutex_init(&cq->cqx.mutex, NULL);
	pthread_cond_init(&cq->cqx.cond, NULL);
	cq->cqx.start_poll = sv_cq_start_poll;
	cq->cqx.next_poll = sv_cq_next_poll;
	cq->cqx.end_poll = sv_cq_end_poll;
	cq->cqx.read_opcode = sv_cq_read_opcode;
	cq->cqx.read_vendor_err = sv_cq_read_vendor_err;
	cq->cqx.read_wc_flags = sv_cq_read_wc_flags;
	/* Like rdma-core providers, only the fields asked for can be
	 * read. */
	if (wc_flags & IBV_WC_EX_WITH_BYTE_LEN)
		cq->cqx.read_byte_len = sv_cq_read_byte_len;
	if (wc_flags & IBV_WC_EX_WITH_QP_NUM)
		cq->cqx.read_qp_num = sv_cq_read_qp_num;
	if (wc_flags & IBV_WC_EX_WITH_SRC_QP)
		cq->cqx.read_src_qp = sv_cq_read_src_qp;
	if (wc_flags & IBV_WC_EX_WITH_CVLAN)
		cq->cqx.read_cvlan = sv_cq_read_cvlan;
	if (wc_flags & IBV_WC_EX_WITH_FLOW_TAG)
		cq->cqx.read_flow_tag = sv_cq_read_flow_tag;
	if (wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) {
		cq->cqx.read_completion_ts = sv_cq_read_completion_ts;
		cq->ts = true;
	}
	return cq;
}

#define SV_CQ_COMP_MASK (IBV_CQ_INIT_ATTR_MASK_FLAGS | IBV_CQ_INIT_ATTR_MASK_PD)

struct ibv_cq_ex *
sv_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr)
{
	struct sv_pd *parent = NULL;
	bool single = false;
	struct sv_cq *cq;
	int bad_mask;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* Unknown comp_mask bits and creation flags: libmlx5's create_cq()
	 * answers EINVAL; the man page's device says "not supported". */
	bad_mask = sv_ctx(context)->dev->caps.profile == SV_PROFILE_MLX5 ?
			   EINVAL :
			   EOPNOTSUPP;
	if (attr->comp_mask & ~(uint32_t)SV_CQ_COMP_MASK) {
		errno = bad_mask;
		return NULL;
	}
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_FLAGS) {
		if (attr->flags & ~(uint32_t)SV_CQ_FLAGS) {
			errno = bad_mask;
			return NULL;
		}
		single = attr->flags & IBV_CREATE_CQ_ATTR_SINGLE_THREADED;
	}
	/* Fields this device cannot report (create_cq(): ENOTSUP). libmlx5
	 * 44 takes completion timestamps on any device
	 * (CREATE_CQ_SUPPORTED_WC_FLAGS); the generic profile, which reports
	 * no device clock, refuses them. */
	if ((attr->wc_flags & ~(uint64_t)SV_CQ_WC_FLAGS &
	     ~(uint64_t)IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) ||
	    ((attr->wc_flags & IBV_WC_EX_WITH_COMPLETION_TIMESTAMP) &&
	     sv_ctx(context)->dev->caps.profile != SV_PROFILE_MLX5)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* create_cq(): the PD given must be a parent domain. */
	if (attr->comp_mask & IBV_CQ_INIT_ATTR_MASK_PD) {
		if (attr->parent_domain == NULL ||
		    sv_pd_of(attr->parent_domain)->over == NULL ||
		    attr->parent_domain->context != context) {
			errno = EINVAL;
			return NULL;
		}
		parent = sv_pd_of(attr->parent_domain);
	}
	cq = sv_cq_new(context, attr->cqe, attr->cq_context, attr->channel,
		       (int)attr->comp_vector, attr->wc_flags, single, parent);
	return cq == NULL ? NULL : &cq->cqx;
}

struct ibv_cq *
sv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	     struct ibv_comp_channel *channel, int comp_vector)
{
	struct sv_cq *cq;

	if (context == NULL || cqe < 1) {
		errno = EINVAL;
		return NULL;
	}
	cq = sv_cq_new(context, (uint32_t)cqe, cq_context, channel, comp_vector,
		       SV_CQ_WC_FLAGS, false, NULL);
	return cq == NULL ? NULL : ibv_cq_ex_to_cq(&cq->cqx);
}

int
sv_destroy_cq(struct ibv_cq *ibcq)
{
	struct sv_context *ctx;
	struct sv_cq *cq;
	bool armed;

	if (ibcq == NULL)
		return EINVAL;
	cq = sv_cq_from_ibv(ibcq);
	ctx = cq->ctx;
	if (atomic_load(&cq->usecnt) > 0)
		return EBUSY;
	if (cq->channel != NULL) {
		/* Events not read yet go with the CQ (the kernel's
		 * ib_uverbs_release_ucq()); those read must all be
		 * acknowledged first: ibv_get_cq_event(3), "destroying a CQ
		 * will wait for all completion events to be acknowledged". */
		pthread_spin_lock(&cq->lock);
		armed = cq->armed != 0;
		cq->armed = 0;
		pthread_spin_unlock(&cq->lock);
		if (armed)
			sv_channel_armed(cq->channel, -1);
		sv_channel_forget(cq);
		pthread_mutex_lock(&cq->cqx.mutex);
		while (cq->cqx.comp_events_completed != cq->events_got)
			pthread_cond_wait(&cq->cqx.cond, &cq->cqx.mutex);
		pthread_mutex_unlock(&cq->cqx.mutex);
		pthread_mutex_lock(&ibcq->context->mutex);
		ibcq->channel->refcnt--;
		pthread_mutex_unlock(&ibcq->context->mutex);
	}
	pthread_mutex_lock(&ctx->lock);
	ctx->n_cq--;
	pthread_mutex_unlock(&ctx->lock);
	atomic_fetch_sub(&ctx->nobjs, 1);
	if (cq->parent != NULL)
		atomic_fetch_sub(&cq->parent->usecnt, 1);
	pthread_spin_destroy(&cq->lock);
	pthread_spin_destroy(&cq->poll_lock);
	pthread_mutex_destroy(&cq->cqx.mutex);
	pthread_cond_destroy(&cq->cqx.cond);
	free(cq->ring);
	free(cq);
	return 0;
}

/*
 * ibv_req_notify_cq(3): one event for the next completion (any, or a
 * solicited one), whatever the number of calls before it. Where the CQ
 * already holds completions the consumer has not read, the mlx5 profile
 * raises the event at once: libmlx5's mlx5_arm_cq() arms with the
 * consumer index, and the device raises the event when the CQ has
 * completions past it (mlx5e's NAPI re-arms after its last poll without
 * polling again and relies on this). The man page promises events for new
 * completions only, which is all the generic profile gives.
 */
int
sv_req_notify_cq(struct ibv_cq *ibcq, int solicited_only)
{
	struct sv_cq *cq;
	bool fire = false, newly;
	uint32_t i;

	if (ibcq == NULL)
		return EINVAL;
	cq = sv_cq_from_ibv(ibcq);
	/* Without a channel no event has anywhere to go (the kernel's
	 * ib_uverbs_comp_handler() drops it). */
	if (cq->channel == NULL)
		return 0;
	pthread_spin_lock(&cq->lock);
	newly = cq->armed == 0;
	cq->armed |= solicited_only ? SV_CQ_ARM_SOL : SV_CQ_ARM_NEXT;
	if (cq->ctx->dev->caps.profile == SV_PROFILE_MLX5) {
		for (i = __atomic_load_n(&cq->head, __ATOMIC_ACQUIRE);
		     i != cq->tail && !fire; i++)
			fire = sv_cq_arm_fires(cq, cq->ring[i & (cq->size - 1)]
							   .status);
	}
	pthread_spin_unlock(&cq->lock);
	/* Counted before the event that ends it, which counts it off. */
	if (newly)
		sv_channel_armed(cq->channel, 1);
	if (fire)
		sv_channel_post(cq);
	return 0;
}
