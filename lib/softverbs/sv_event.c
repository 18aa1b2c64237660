/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Events: completion channels (ibv_create_comp_channel(3),
 * ibv_get_cq_event(3)) and async events (ibv_get_async_event(3)).
 *
 * The device has no thread: frames reach the CQs only when someone pumps
 * the port. A waiter must still wake up when a frame arrives, so the fds
 * handed out are epoll sets of what could make an event:
 *
 *   comp_channel.fd   an eventfd readable while events are queued, and,
 *                     while one of the channel's CQs is armed, the wire's
 *                     rx fd (readable while frames wait to be pumped);
 *   context.async_fd  an eventfd readable while async events are queued,
 *                     and the wire's link fd (readable after a link
 *                     change).
 *
 * Both poll readable when an event may be had, level-triggered. The calls
 * that read them do the device's work first: ibv_get_cq_event() pumps the
 * port (the frames land in their CQs, armed ones queue their event) and
 * ibv_get_async_event() reads the wire's link changes into every open
 * context's queue. Then each answers as the kernel's read() would: an
 * event, EAGAIN on a non-blocking fd, or it sleeps on the fd. The fds are
 * for poll/epoll/select and fcntl; reading them is these calls' business.
 *
 * A channel with no CQ armed is never readable for a frame: it can have
 * no event. A frame for another queue can still make an armed channel
 * readable for nothing (the wire cannot tell whose it is before the
 * pump): its waiter then gets EAGAIN, the frame having gone where it
 * belongs.
 */

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/epoll.h>
#include <sys/eventfd.h>

#include "sv_internal.h"

/* Frames pumped at most per ibv_get_cq_event() before it answers. */
#define SV_EVENT_PUMP_MAX 4096u

/* A set polling readable when efd or the other fd (if any) is. */
static int
sv_event_set(int efd, int other)
{
	struct epoll_event ev;
	int fd, i, fds[2] = { efd, other };

	fd = epoll_create1(EPOLL_CLOEXEC);
	if (fd < 0)
		return -errno;
	for (i = 0; i < 2; i++) {
		if (fds[i] < 0)
			continue;
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.fd = fds[i];
		if (epoll_ctl(fd, EPOLL_CTL_ADD, fds[i], &ev) != 0) {
			i = -errno;
			close(fd);
			return i;
		}
	}
	return fd;
}

static void
sv_efd_set(int efd)
{
	uint64_t one = 1;

	if (write(efd, &one, sizeof(one)) < 0) {
		/* Cannot overflow: at most one write per clear. */
	}
}

static void
sv_efd_clear(int efd)
{
	uint64_t v;

	if (read(efd, &v, sizeof(v)) < 0) {
		/* Clear already (EAGAIN). */
	}
}

/* Wait for fd as a blocking read() would: 0, or -1 with errno (EAGAIN on
 * a non-blocking fd, EINTR). */
static int
sv_event_wait(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int flags = fcntl(fd, F_GETFL);

	if (flags < 0)
		return -1;
	if (flags & O_NONBLOCK) {
		errno = EAGAIN;
		return -1;
	}
	if (poll(&pfd, 1, -1) < 0)
		return -1;
	return 0;
}

/* ---- completion channels ---- */

struct ibv_comp_channel *
sv_create_comp_channel(struct ibv_context *context)
{
	struct sv_channel *ch;
	struct sv_context *ctx;
	int wire_fd, rc;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = sv_ctx(context);
	/* No fd that a frame makes readable: a waiter would sleep through
	 * every completion. */
	wire_fd = sv_wire_rx_fd(ctx->dev->port.wire);
	if (wire_fd < 0) {
		errno = wire_fd == -ENOTSUP ? EOPNOTSUPP : -wire_fd;
		return NULL;
	}
	ch = calloc(1, sizeof(*ch));
	if (ch == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	ch->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (ch->efd < 0) {
		rc = errno;
		free(ch);
		errno = rc;
		return NULL;
	}
	rc = sv_event_set(ch->efd, -1);
	if (rc < 0) {
		close(ch->efd);
		free(ch);
		errno = -rc;
		return NULL;
	}
	pthread_mutex_init(&ch->lock, NULL);
	TAILQ_INIT(&ch->events);
	ch->ctx = ctx;
	ch->wire_fd = wire_fd;
	/* A blocking fd, as the kernel's (ibv_get_cq_event() then waits). */
	ch->ch.context = context;
	ch->ch.fd = rc;
	ch->ch.refcnt = 0;
	atomic_fetch_add(&ctx->nobjs, 1);
	return &ch->ch;
}

int
sv_destroy_comp_channel(struct ibv_comp_channel *channel)
{
	struct ibv_context *context;
	struct sv_channel *ch;

	if (channel == NULL)
		return EINVAL;
	ch = sv_container_of(channel, struct sv_channel, ch);
	context = channel->context;
	/* libibverbs' ibv_destroy_comp_channel(): not while CQs use it. */
	pthread_mutex_lock(&context->mutex);
	if (channel->refcnt != 0) {
		pthread_mutex_unlock(&context->mutex);
		return EBUSY;
	}
	pthread_mutex_unlock(&context->mutex);
	close(channel->fd);
	close(ch->efd);
	pthread_mutex_destroy(&ch->lock);
	atomic_fetch_sub(&ch->ctx->nobjs, 1);
	free(ch);
	return 0;
}

/* The wire's fd is in the set while a CQ is armed (armed_n may dip below
 * 0 when an arming ends before it was counted: the sum is what counts). */
void
sv_channel_armed(struct sv_channel *ch, int delta)
{
	struct epoll_event ev;
	bool want;

	pthread_mutex_lock(&ch->lock);
	ch->armed_n += delta;
	want = ch->armed_n > 0;
	if (want != ch->wire_in) {
		memset(&ev, 0, sizeof(ev));
		ev.events = EPOLLIN;
		ev.data.fd = ch->wire_fd;
		/* Cannot fail for a valid fd in or out of the set as we
		 * track it; a failure leaves a waiter to the next event. */
		if (epoll_ctl(ch->ch.fd, want ? EPOLL_CTL_ADD : EPOLL_CTL_DEL,
			      ch->wire_fd, &ev) == 0)
			ch->wire_in = want;
	}
	pthread_mutex_unlock(&ch->lock);
}

/*
 * Events wait as a list of CQs with a count each: no allocation where a
 * producer raises one. Events of one CQ come out in order; across CQs
 * the order is that of their first pending event.
 */
void
sv_channel_post(struct sv_cq *cq)
{
	struct sv_channel *ch = cq->channel;

	sv_channel_armed(ch, -1);
	pthread_mutex_lock(&ch->lock);
	if (cq->ev_pending++ == 0) {
		if (TAILQ_EMPTY(&ch->events))
			sv_efd_set(ch->efd);
		TAILQ_INSERT_TAIL(&ch->events, cq, ev_next);
	}
	pthread_mutex_unlock(&ch->lock);
}

void
sv_channel_forget(struct sv_cq *cq)
{
	struct sv_channel *ch = cq->channel;

	pthread_mutex_lock(&ch->lock);
	if (cq->ev_pending != 0) {
		TAILQ_REMOVE(&ch->events, cq, ev_next);
		cq->ev_pending = 0;
		if (TAILQ_EMPTY(&ch->events))
			sv_efd_clear(ch->efd);
	}
	pthread_mutex_unlock(&ch->lock);
}

/* The oldest event, counted as handed out; NULL when none. */
static struct sv_cq *
sv_channel_take(struct sv_channel *ch)
{
	struct sv_cq *cq;

	pthread_mutex_lock(&ch->lock);
	cq = TAILQ_FIRST(&ch->events);
	if (cq != NULL) {
		TAILQ_REMOVE(&ch->events, cq, ev_next);
		if (--cq->ev_pending != 0)
			TAILQ_INSERT_TAIL(&ch->events, cq, ev_next);
		else if (TAILQ_EMPTY(&ch->events))
			sv_efd_clear(ch->efd);
		/* Before the lock goes: a destroy_cq that follows waits for
		 * this event's ack. */
		pthread_mutex_lock(&cq->cqx.mutex);
		cq->events_got++;
		pthread_mutex_unlock(&cq->cqx.mutex);
	}
	pthread_mutex_unlock(&ch->lock);
	return cq;
}

int
sv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		void **cq_context)
{
	struct sv_channel *ch;
	struct sv_port *port;
	struct sv_cq *got;
	unsigned int pumped, n;

	if (channel == NULL || cq == NULL || cq_context == NULL) {
		errno = EINVAL;
		return -1;
	}
	ch = sv_container_of(channel, struct sv_channel, ch);
	port = &ch->ctx->dev->port;
	for (;;) {
		/* What a NIC would have delivered by now: pump until the
		 * wire runs dry (a short batch) or an event comes. */
		pumped = 0;
		while ((got = sv_channel_take(ch)) == NULL &&
		       pumped < SV_EVENT_PUMP_MAX) {
			n = sv_port_pump(port);
			pumped += n;
			if (n < SV_RX_BATCH) {
				got = sv_channel_take(ch);
				break;
			}
		}
		if (got != NULL)
			break;
		if (sv_event_wait(channel->fd) != 0)
			return -1;
	}
	*cq = ibv_cq_ex_to_cq(&got->cqx);
	*cq_context = got->cqx.cq_context;
	return 0;
}

/* libibverbs' own: the count destroy_cq waits on. */
void
sv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents)
{
	if (cq == NULL)
		return;
	pthread_mutex_lock(&cq->mutex);
	cq->comp_events_completed += nevents;
	pthread_cond_signal(&cq->cond);
	pthread_mutex_unlock(&cq->mutex);
}

/* ---- async events ---- */

static void sv_async_link_poll(struct sv_device *dev);

int
sv_async_open(struct sv_context *ctx)
{
	struct sv_device *dev = ctx->dev;
	int link_fd, fd, rc;

	ctx->vctx.context.async_fd = -1;
	ctx->async_efd = -1;
	pthread_mutex_init(&ctx->async_lock, NULL);
	/* A wire that cannot say when its link changes has no events to
	 * give: no fd to sleep on for nothing. */
	link_fd = sv_wire_link_fd(dev->port.wire);
	if (link_fd >= 0) {
		ctx->async_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (ctx->async_efd < 0) {
			rc = errno;
			pthread_mutex_destroy(&ctx->async_lock);
			return rc;
		}
		fd = sv_event_set(ctx->async_efd, link_fd);
		if (fd < 0) {
			close(ctx->async_efd);
			pthread_mutex_destroy(&ctx->async_lock);
			return -fd;
		}
		ctx->vctx.context.async_fd = fd;
	}
	/* Changes before the context existed are not its events. */
	sv_async_link_poll(dev);
	pthread_mutex_lock(&dev->ev_lock);
	TAILQ_INSERT_TAIL(&dev->ctxs, ctx, dev_next);
	pthread_mutex_unlock(&dev->ev_lock);
	return 0;
}

void
sv_async_close(struct sv_context *ctx)
{
	struct sv_device *dev = ctx->dev;

	pthread_mutex_lock(&dev->ev_lock);
	TAILQ_REMOVE(&dev->ctxs, ctx, dev_next);
	pthread_mutex_unlock(&dev->ev_lock);
	if (ctx->vctx.context.async_fd >= 0)
		close(ctx->vctx.context.async_fd);
	if (ctx->async_efd >= 0)
		close(ctx->async_efd);
	ctx->vctx.context.async_fd = -1;
	pthread_mutex_destroy(&ctx->async_lock);
}

/* Queue an event on a context (the oldest goes when the queue is full). */
static void
sv_async_push(struct sv_context *ctx, const struct ibv_async_event *ev)
{
	pthread_mutex_lock(&ctx->async_lock);
	if (ctx->async_n == SV_ASYNC_QLEN) {
		ctx->async_head = (ctx->async_head + 1) % SV_ASYNC_QLEN;
		ctx->async_n--;
	}
	ctx->async_q[(ctx->async_head + ctx->async_n) % SV_ASYNC_QLEN] = *ev;
	if (ctx->async_n++ == 0)
		sv_efd_set(ctx->async_efd);
	pthread_mutex_unlock(&ctx->async_lock);
}

static bool
sv_async_pop(struct sv_context *ctx, struct ibv_async_event *ev)
{
	bool got = false;

	pthread_mutex_lock(&ctx->async_lock);
	if (ctx->async_n != 0) {
		*ev = ctx->async_q[ctx->async_head];
		ctx->async_head = (ctx->async_head + 1) % SV_ASYNC_QLEN;
		if (--ctx->async_n == 0)
			sv_efd_clear(ctx->async_efd);
		got = true;
	}
	pthread_mutex_unlock(&ctx->async_lock);
	return got;
}

/*
 * The wire's link changes, as port events to every context of the device.
 * As the mlx5 kernel for a RoCE port (mlx5_netdev_event(): on a netdev
 * change, IB_EVENT_PORT_ACTIVE or IB_EVENT_PORT_ERR when the port state
 * query_port gives differs from roce.last_port_state), one event per
 * change of state, none for a repeat.
 */
static void
sv_async_link_poll(struct sv_device *dev)
{
	struct ibv_async_event ev;
	struct sv_context *ctx;
	bool states[16];
	unsigned int n, i;

	pthread_mutex_lock(&dev->ev_lock);
	n = sv_wire_link_poll(dev->port.wire, states,
			      sizeof(states) / sizeof(states[0]));
	for (i = 0; i < n; i++) {
		if (states[i] == dev->port.link_reported)
			continue;
		dev->port.link_reported = states[i];
		memset(&ev, 0, sizeof(ev));
		ev.event_type = states[i] ? IBV_EVENT_PORT_ACTIVE :
					    IBV_EVENT_PORT_ERR;
		ev.element.port_num = dev->port.port_num;
		TAILQ_FOREACH(ctx, &dev->ctxs, dev_next)
			if (ctx->async_efd >= 0)
				sv_async_push(ctx, &ev);
	}
	pthread_mutex_unlock(&dev->ev_lock);
}

int
sv_get_async_event(struct ibv_context *context, struct ibv_async_event *event)
{
	struct sv_context *ctx;

	if (context == NULL || event == NULL) {
		errno = EINVAL;
		return -1;
	}
	ctx = sv_ctx(context);
	if (context->async_fd < 0) {
		errno = EOPNOTSUPP;
		return -1;
	}
	for (;;) {
		sv_async_link_poll(ctx->dev);
		if (sv_async_pop(ctx, event))
			return 0;
		if (sv_event_wait(context->async_fd) != 0)
			return -1;
	}
}

/* libibverbs' ibv_ack_async_event(): the object's count its destroy waits
 * on; port and device events have none. */
void
sv_ack_async_event(struct ibv_async_event *event)
{
	struct ibv_cq *cq;
	struct ibv_qp *qp;
	struct ibv_wq *wq;

	if (event == NULL)
		return;
	switch (event->event_type) {
	case IBV_EVENT_CQ_ERR:
		cq = event->element.cq;
		pthread_mutex_lock(&cq->mutex);
		cq->async_events_completed++;
		pthread_cond_signal(&cq->cond);
		pthread_mutex_unlock(&cq->mutex);
		break;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
	case IBV_EVENT_COMM_EST:
	case IBV_EVENT_SQ_DRAINED:
	case IBV_EVENT_PATH_MIG:
	case IBV_EVENT_PATH_MIG_ERR:
	case IBV_EVENT_QP_LAST_WQE_REACHED:
		qp = event->element.qp;
		pthread_mutex_lock(&qp->mutex);
		qp->events_completed++;
		pthread_cond_signal(&qp->cond);
		pthread_mutex_unlock(&qp->mutex);
		break;
	case IBV_EVENT_WQ_FATAL:
		wq = event->element.wq;
		pthread_mutex_lock(&wq->mutex);
		wq->events_completed++;
		pthread_cond_signal(&wq->cond);
		pthread_mutex_unlock(&wq->mutex);
		break;
	default:
		break;
	}
}
