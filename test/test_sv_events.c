/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * softverbs events, clause by clause: completion channels
 * (ibv_create_comp_channel(3), ibv_create_cq(3)'s channel,
 * ibv_req_notify_cq(3), ibv_get_cq_event(3) and its acks) and async events
 * (ibv_get_async_event(3): port events on link changes), and the wire
 * descriptors behind them. The device has no thread: these tests check
 * that a sleeper still wakes up when a frame arrives or the link changes,
 * with nobody pumping meanwhile.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <net/if.h>
#include <sys/wait.h>

#include "vt_svenv.h"
#include "vt_wire.h"
#include "vt_test.h"

static const struct sv_device_opts generic1 = {
	.profile = SV_PROFILE_GENERIC,
};

static const struct vt_svenv_cfg cfg = {
	.link_prefix = "svev",
	.nbuf = 16,
	.rx_cqe = 32,
	.tx_wr = 64,
	.tx_slots = 16,
};

static const struct vt_svenv_cfg cfg_generic = {
	.link_prefix = "svevg",
	.nbuf = 16,
	.rx_cqe = 32,
	.tx_wr = 64,
	.tx_slots = 16,
	.opts1 = &generic1,
};

static const uint8_t rss_key[SV_RSS_KEY_LEN] = { 1 };
static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0xa };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0xb };

/* A receive queue on end 1, its CQ on a channel (or not), behind a rule
 * for frames to dst (all frames when dst is NULL). */
struct evq {
	struct ibv_comp_channel *ch;
	struct ibv_cq_ex *cq;
	struct ibv_wq *wq;
	struct ibv_mr *mr;
	uint8_t *buf;
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *hqp;
	struct ibv_flow *flow;
	int marker; /* its address is the CQ's context */
};

#define EVQ_BUFS 16

static int
set_nonblock(int fd, bool on)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0)
		return -1;
	return fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK);
}

static int
evq_post(struct evq *q, unsigned int i, uint32_t buf_len)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(q->buf + i * VT_SVENV_BUFSZ),
		.length = buf_len,
		.lkey = q->mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = i, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_wq_recv(q->wq, &wr, &bad);
}

static int
evq_up(struct vt_svenv *e, struct evq *q, struct ibv_comp_channel *ch,
       const uint8_t *dst, uint32_t buf_len)
{
	struct ibv_cq_init_attr_ex ca = {
		.cqe = 32,
		.wc_flags = IBV_WC_EX_WITH_BYTE_LEN,
	};
	struct ibv_wq_init_attr wa = {
		.wq_type = IBV_WQT_RQ,
		.max_wr = EVQ_BUFS,
		.max_sge = 1,
		.pd = e->pd[1],
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
	q->ch = ch;
	ca.channel = ch;
	ca.cq_context = &q->marker;
	q->cq = ibv_create_cq_ex(e->ctx[1], &ca);
	VT_CHECK(q->cq != NULL, "CQ-ex on a channel: %s", strerror(errno));
	wa.cq = ibv_cq_ex_to_cq(q->cq);
	q->wq = ibv_create_wq(e->ctx[1], &wa);
	VT_CHECK(q->wq != NULL, "WQ");
	VT_CHECK_EQ(ibv_modify_wq(q->wq, &ma), 0, "RDY");
	q->buf = aligned_alloc(64, EVQ_BUFS * VT_SVENV_BUFSZ);
	VT_CHECK(q->buf != NULL, "alloc");
	q->mr = sv_reg_mr(e->pd[1], q->buf, EVQ_BUFS * VT_SVENV_BUFSZ,
			  IBV_ACCESS_LOCAL_WRITE);
	VT_CHECK(q->mr != NULL, "MR");
	for (i = 0; i < EVQ_BUFS; i++)
		VT_CHECK_EQ(evq_post(q, i, buf_len), 0, "post");
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
	if (dst != NULL) {
		memcpy(rule.eth.val.dst_mac, dst, 6);
		memset(rule.eth.mask.dst_mac, 0xff, 6);
	}
	q->flow = ibv_create_flow(q->hqp, &rule.attr);
	VT_CHECK(q->flow != NULL, "rule");
	return VT_OK;
}

/* Everything but the CQ (whose destroy the tests look at). */
static int
evq_down_but_cq(struct evq *q)
{
	int rc = 0;

	rc |= ibv_destroy_flow(q->flow);
	rc |= sv_destroy_qp(q->hqp);
	rc |= ibv_destroy_rwq_ind_table(q->ind);
	rc |= ibv_destroy_wq(q->wq);
	rc |= sv_dereg_mr(q->mr);
	free(q->buf);
	return rc;
}

static int
evq_down(struct evq *q)
{
	int rc = evq_down_but_cq(q);

	return rc | sv_destroy_cq(ibv_cq_ex_to_cq(q->cq));
}

/* Completions of q read (and their buffers posted again); statuses of the
 * first few in st. No pumping: only what is there. */
static unsigned int
evq_reap(struct evq *q, enum ibv_wc_status *st, unsigned int max_st)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	unsigned int n = 0;
	int ret;

	ret = ibv_start_poll(q->cq, &pa);
	while (ret == 0) {
		if (st != NULL && n < max_st)
			st[n] = q->cq->status;
		/* A flushed buffer goes back once the WQ is reset. */
		if (q->cq->status != IBV_WC_WR_FLUSH_ERR)
			evq_post(q, (unsigned int)q->cq->wr_id, VT_SVENV_BUFSZ);
		n++;
		ret = ibv_next_poll(q->cq);
	}
	if (n > 0)
		ibv_end_poll(q->cq);
	return n;
}

/* The WQ back from an error: RESET, RDY, every buffer posted again. */
static int
evq_reset(struct evq *q, uint32_t buf_len)
{
	struct ibv_wq_attr ma = { .attr_mask = IBV_WQ_ATTR_STATE };
	unsigned int i;

	ma.wq_state = IBV_WQS_RESET;
	VT_CHECK_EQ(ibv_modify_wq(q->wq, &ma), 0, "RESET");
	ma.wq_state = IBV_WQS_RDY;
	VT_CHECK_EQ(ibv_modify_wq(q->wq, &ma), 0, "RDY");
	for (i = 0; i < EVQ_BUFS; i++)
		VT_CHECK_EQ(evq_post(q, i, buf_len), 0, "post");
	return VT_OK;
}

/* An Ethernet frame of len bytes to dst. */
static uint32_t
frame_to(uint8_t *f, const uint8_t *dst, uint32_t len)
{
	uint32_t i;

	memset(f, 0, len);
	memcpy(f, dst, 6);
	f[6] = 0x02;
	f[12] = 0x08;
	f[13] = 0x00;
	f[14] = 0x45;
	for (i = 34; i < len; i++)
		f[i] = (uint8_t)i;
	return len;
}

static int
send_to(struct vt_svenv *e, const uint8_t *dst, uint32_t len)
{
	uint8_t f[2048];

	return vt_svenv_xmit(e, 0, f, frame_to(f, dst, len));
}

/* Does fd poll readable within ms? */
static bool
readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1 && (p.revents & POLLIN);
}

static double
now_ms(void)
{
	return vt_now_s() * 1000.0;
}

/* ---- completion channels ---- */

/* ibv_create_comp_channel(3): an fd and its context; a CQ counts on it
 * (refcnt), which ibv_destroy_comp_channel() refuses with EBUSY; a channel
 * of another context is no channel for this one; the context cannot close
 * before it (softverbs counts every object). */
static int
test_channel_objects(void)
{
	struct ibv_comp_channel *ch, *other;
	struct vt_svenv e;
	struct evq q;
	struct ibv_cq *cq;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	ch = sv_create_comp_channel(e.ctx[1]);
	VT_CHECK(ch != NULL, "channel: %s", strerror(errno));
	VT_CHECK(ch->fd >= 0, "an fd");
	VT_CHECK(ch->context == e.ctx[1], "its context");
	VT_CHECK_EQ(ch->refcnt, 0, "no CQ yet");
	VT_CHECK(!(fcntl(ch->fd, F_GETFL) & O_NONBLOCK),
		 "blocking, as the kernel's");
	VT_CHECK_EQ(evq_up(&e, &q, ch, NULL, VT_SVENV_BUFSZ), VT_OK, "queue");
	VT_CHECK(q.cq->channel == ch, "CQ on it");
	VT_CHECK_EQ(ch->refcnt, 1, "one CQ");
	VT_CHECK_EQ(sv_destroy_comp_channel(ch), EBUSY, "in use");
	other = sv_create_comp_channel(e.ctx[0]);
	VT_CHECK(other != NULL, "channel of end 0");
	cq = sv_create_cq(e.ctx[1], 8, NULL, other, 0);
	VT_CHECK(cq == NULL && errno == EINVAL, "another context's channel");
	cq = sv_create_cq(e.ctx[0], 8, NULL, other, 0);
	VT_CHECK(cq != NULL, "plain CQ on its own context's channel");
	VT_CHECK_EQ(other->refcnt, 1, "counted");
	VT_CHECK_EQ(sv_close_device(e.ctx[0]), EBUSY, "context with objects");
	VT_CHECK_EQ(sv_destroy_cq(cq), 0, "destroy");
	VT_CHECK_EQ(other->refcnt, 0, "uncounted");
	VT_CHECK_EQ(sv_destroy_comp_channel(other), 0, "free again");
	VT_CHECK_EQ(evq_down(&q), 0, "queue down");
	VT_CHECK_EQ(ch->refcnt, 0, "no CQ left");
	VT_CHECK_EQ(sv_destroy_comp_channel(ch), 0, "destroy");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* No arming, no event: the fd stays quiet with a frame on the wire (no CQ
 * of the channel waits for one), get_cq_event answers EAGAIN on a
 * non-blocking fd, the frame lands in the CQ. */
static int
test_no_event_unarmed(void)
{
	struct ibv_cq *ecq;
	struct vt_svenv e;
	struct evq q;
	void *ectx;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(evq_up(&e, &q, sv_create_comp_channel(e.ctx[1]), NULL,
			   VT_SVENV_BUFSZ),
		    VT_OK, "queue");
	VT_CHECK_EQ(set_nonblock(q.ch->fd, true), 0, "O_NONBLOCK");
	VT_CHECK(!readable(q.ch->fd, 0), "quiet at first");
	VT_CHECK_EQ(send_to(&e, mac_a, 80), 0, "send");
	VT_CHECK(!readable(q.ch->fd, 100), "quiet: nothing armed");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), -1, "no event");
	VT_CHECK_EQ(errno, EAGAIN, "EAGAIN");
	VT_CHECK(!readable(q.ch->fd, 0), "quiet once pumped");
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 1, "the frame is in the CQ");
	VT_CHECK_EQ(evq_down(&q), 0, "queue down");
	VT_CHECK_EQ(sv_destroy_comp_channel(q.ch), 0, "channel");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* ibv_req_notify_cq(3): "one shot", one event per call however many
 * completions follow; arming twice before a completion is still one; the
 * event names the CQ and its context; nobody pumps while the test sleeps
 * on the fd. */
static int
test_one_event_per_arming(void)
{
	struct ibv_cq *ecq;
	struct vt_svenv e;
	struct evq q;
	void *ectx;
	int i;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(evq_up(&e, &q, sv_create_comp_channel(e.ctx[1]), NULL,
			   VT_SVENV_BUFSZ),
		    VT_OK, "queue");
	VT_CHECK_EQ(set_nonblock(q.ch->fd, true), 0, "O_NONBLOCK");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 0), 0, "arm");
	VT_CHECK(!readable(q.ch->fd, 100), "no event without traffic");
	for (i = 0; i < 3; i++)
		VT_CHECK_EQ(send_to(&e, mac_a, 80 + i), 0, "send %d", i);
	VT_CHECK(readable(q.ch->fd, 1000), "woken by the frames");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), 0, "the event");
	VT_CHECK(ecq == ibv_cq_ex_to_cq(q.cq), "its CQ");
	VT_CHECK(ectx == &q.marker, "its cq_context");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), -1, "one only");
	VT_CHECK_EQ(errno, EAGAIN, "EAGAIN");
	VT_CHECK(!readable(q.ch->fd, 0), "quiet");
	sv_ack_cq_events(ibv_cq_ex_to_cq(q.cq), 1);
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 3, "three completions");
	/* Two armings, one completion: one event. */
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 0), 0, "arm");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 0), 0, "again");
	VT_CHECK_EQ(send_to(&e, mac_a, 90), 0, "send");
	VT_CHECK(readable(q.ch->fd, 1000), "woken");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), 0, "event");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), -1, "just one");
	sv_ack_cq_events(ecq, 1);
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 1, "the frame");
	/* Not armed now: the next frame wakes and raises nothing. */
	VT_CHECK_EQ(send_to(&e, mac_a, 91), 0, "send");
	VT_CHECK(!readable(q.ch->fd, 100), "quiet");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), -1, "disarmed");
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 1, "the frame");
	VT_CHECK_EQ(evq_down(&q), 0, "queue down");
	VT_CHECK_EQ(sv_destroy_comp_channel(q.ch), 0, "channel");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

struct later {
	struct vt_svenv *e;
	struct ibv_cq *cq; /* ack one event of it, or send a frame */
	int delay_ms;
	volatile int done;
};

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

static void *
later_send(void *arg)
{
	struct later *l = arg;

	sleep_ms(l->delay_ms);
	l->done = 1;
	send_to(l->e, mac_a, 100);
	return NULL;
}

static void *
later_ack(void *arg)
{
	struct later *l = arg;

	sleep_ms(l->delay_ms);
	l->done = 1;
	sv_ack_cq_events(l->cq, 1);
	return NULL;
}

/* ibv_get_cq_event(3) "waits for the next completion event": a blocking
 * channel sleeps until a frame sent by another thread arrives. */
static int
test_blocking_get(void)
{
	struct later l = { .delay_ms = 150 };
	struct ibv_cq *ecq;
	struct vt_svenv e;
	struct evq q;
	pthread_t t;
	void *ectx;
	double t0;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(evq_up(&e, &q, sv_create_comp_channel(e.ctx[1]), NULL,
			   VT_SVENV_BUFSZ),
		    VT_OK, "queue");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 0), 0, "arm");
	l.e = &e;
	t0 = now_ms();
	VT_CHECK_EQ(pthread_create(&t, NULL, later_send, &l), 0, "thread");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), 0, "event");
	VT_CHECK(l.done && now_ms() - t0 >= 100, "slept until the frame");
	pthread_join(t, NULL);
	sv_ack_cq_events(ecq, 1);
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 1, "the frame");
	VT_CHECK_EQ(evq_down(&q), 0, "queue down");
	VT_CHECK_EQ(sv_destroy_comp_channel(q.ch), 0, "channel");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* solicited_only: raw frames are never solicited, so only an error
 * completion (here a frame longer than the buffers) raises the event. */
static int
test_solicited_only(void)
{
	enum ibv_wc_status st[4];
	struct ibv_cq *ecq;
	struct vt_svenv e;
	struct evq q;
	void *ectx;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(evq_up(&e, &q, sv_create_comp_channel(e.ctx[1]), NULL, 256),
		    VT_OK, "queue with 256-byte buffers");
	VT_CHECK_EQ(set_nonblock(q.ch->fd, true), 0, "O_NONBLOCK");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 1), 0,
		    "arm, solicited only");
	VT_CHECK_EQ(send_to(&e, mac_a, 200), 0, "a frame that fits");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), -1, "unsolicited");
	VT_CHECK_EQ(errno, EAGAIN, "EAGAIN");
	VT_CHECK_EQ(send_to(&e, mac_a, 400), 0, "a frame too long");
	VT_CHECK(readable(q.ch->fd, 1000), "woken");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), 0, "the error's");
	sv_ack_cq_events(ecq, 1);
	/* The error put the WQ in error (mlx5): the 14 buffers behind it
	 * are flushed, and so are the two reaped ones posted again, until
	 * a reset. */
	VT_CHECK_EQ(evq_reap(&q, st, 4), EVQ_BUFS + 2, "every buffer back");
	VT_CHECK_EQ(st[0], IBV_WC_SUCCESS, "first fine");
	VT_CHECK_EQ(st[1], IBV_WC_LOC_LEN_ERR, "second too long");
	VT_CHECK_EQ(st[2], IBV_WC_WR_FLUSH_ERR, "then flushed");
	VT_CHECK_EQ(evq_reset(&q, VT_SVENV_BUFSZ), VT_OK, "WQ reset");
	/* Both armings at once: any completion ends it. */
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 1), 0, "sol");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 0), 0, "next");
	VT_CHECK_EQ(send_to(&e, mac_a, 100), 0, "a frame that fits");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), 0, "event");
	sv_ack_cq_events(ecq, 1);
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 1, "the frame");
	VT_CHECK_EQ(evq_down(&q), 0, "queue down");
	VT_CHECK_EQ(sv_destroy_comp_channel(q.ch), 0, "channel");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* Arming a CQ that holds completions not read yet: the mlx5 profile raises
 * the event at once (libmlx5 arms with the consumer index); the generic
 * one, following the man page, only for a new completion. */
static int
arm_with_pending(const struct vt_svenv_cfg *c, bool at_once)
{
	struct ibv_cq *ecq;
	struct vt_svenv e;
	struct evq q;
	void *ectx;

	VT_CHECK_EQ(vt_svenv_up(&e, c), 0, "fixture");
	VT_CHECK_EQ(evq_up(&e, &q, sv_create_comp_channel(e.ctx[1]), NULL,
			   VT_SVENV_BUFSZ),
		    VT_OK, "queue");
	VT_CHECK_EQ(set_nonblock(q.ch->fd, true), 0, "O_NONBLOCK");
	VT_CHECK_EQ(send_to(&e, mac_a, 80), 0, "send");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), -1, "pumped, unarmed");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 0), 0, "arm");
	if (at_once) {
		VT_CHECK(readable(q.ch->fd, 0), "event at once");
		VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), 0, "event");
		sv_ack_cq_events(ecq, 1);
	} else {
		VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), -1,
			    "nothing for the old completion");
		VT_CHECK_EQ(send_to(&e, mac_a, 81), 0, "send");
		VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), 0,
			    "a new one's event");
		sv_ack_cq_events(ecq, 1);
	}
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), at_once ? 1 : 2, "completions");
	VT_CHECK_EQ(evq_down(&q), 0, "queue down");
	VT_CHECK_EQ(sv_destroy_comp_channel(q.ch), 0, "channel");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

static int
test_arm_pending_mlx5(void)
{
	return arm_with_pending(&cfg, true);
}

static int
test_arm_pending_generic(void)
{
	return arm_with_pending(&cfg_generic, false);
}

/* "destroying a CQ will wait for all completion events to be
 * acknowledged": destroy_cq returns only after another thread acks. */
static int
test_destroy_waits_for_ack(void)
{
	struct later l = { .delay_ms = 150 };
	struct ibv_cq *ecq;
	struct vt_svenv e;
	struct evq q;
	pthread_t t;
	void *ectx;
	double t0;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(evq_up(&e, &q, sv_create_comp_channel(e.ctx[1]), NULL,
			   VT_SVENV_BUFSZ),
		    VT_OK, "queue");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 0), 0, "arm");
	VT_CHECK_EQ(send_to(&e, mac_a, 80), 0, "send");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), 0, "event, not acked");
	VT_CHECK_EQ(evq_down_but_cq(&q), 0, "WQ and the rest gone");
	l.cq = ecq;
	t0 = now_ms();
	VT_CHECK_EQ(pthread_create(&t, NULL, later_ack, &l), 0, "thread");
	VT_CHECK_EQ(sv_destroy_cq(ecq), 0, "destroy");
	VT_CHECK(l.done && now_ms() - t0 >= 100, "waited for the ack");
	pthread_join(t, NULL);
	VT_CHECK_EQ(sv_destroy_comp_channel(q.ch), 0, "channel");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* Events not read yet go with their CQ (the kernel's
 * ib_uverbs_release_ucq()): no wait, and the channel is quiet after. */
static int
test_destroy_drops_unread(void)
{
	struct ibv_cq *ecq;
	struct vt_svenv e;
	struct evq q;
	void *ectx;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(evq_up(&e, &q, sv_create_comp_channel(e.ctx[1]), NULL,
			   VT_SVENV_BUFSZ),
		    VT_OK, "queue");
	VT_CHECK_EQ(set_nonblock(q.ch->fd, true), 0, "O_NONBLOCK");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 0), 0, "arm");
	VT_CHECK_EQ(send_to(&e, mac_a, 80), 0, "send");
	/* Polling pumps: the frame lands and the event is queued unread. */
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 1, "the frame");
	VT_CHECK(readable(q.ch->fd, 0), "event queued");
	VT_CHECK_EQ(evq_down(&q), 0, "destroyed at once");
	VT_CHECK(!readable(q.ch->fd, 0), "quiet");
	VT_CHECK_EQ(sv_get_cq_event(q.ch, &ecq, &ectx), -1, "no event left");
	VT_CHECK_EQ(errno, EAGAIN, "EAGAIN");
	VT_CHECK_EQ(sv_destroy_comp_channel(q.ch), 0, "channel");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* Two queues, one armed: a frame for the other wakes the sleeper (the
 * wire cannot tell whose it is), get_cq_event says EAGAIN and the frame is
 * where its rule sent it. */
static int
test_other_queue_frame(void)
{
	struct ibv_comp_channel *ch;
	struct ibv_cq *ecq;
	struct vt_svenv e;
	struct evq qa, qb;
	void *ectx;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	ch = sv_create_comp_channel(e.ctx[1]);
	VT_CHECK(ch != NULL, "channel");
	VT_CHECK_EQ(set_nonblock(ch->fd, true), 0, "O_NONBLOCK");
	VT_CHECK_EQ(evq_up(&e, &qa, ch, mac_a, VT_SVENV_BUFSZ), VT_OK, "A");
	VT_CHECK_EQ(evq_up(&e, &qb, NULL, mac_b, VT_SVENV_BUFSZ), VT_OK, "B");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(qa.cq), 0), 0, "arm A");
	VT_CHECK_EQ(send_to(&e, mac_b, 80), 0, "a frame for B");
	VT_CHECK(readable(ch->fd, 1000), "woken by the wire");
	VT_CHECK_EQ(sv_get_cq_event(ch, &ecq, &ectx), -1, "nothing for A");
	VT_CHECK_EQ(errno, EAGAIN, "EAGAIN");
	VT_CHECK(!readable(ch->fd, 0), "quiet");
	VT_CHECK_EQ(evq_reap(&qb, NULL, 0), 1, "B has it");
	VT_CHECK_EQ(send_to(&e, mac_a, 80), 0, "a frame for A");
	VT_CHECK_EQ(sv_get_cq_event(ch, &ecq, &ectx), 0, "A's event");
	sv_ack_cq_events(ecq, 1);
	VT_CHECK_EQ(evq_reap(&qa, NULL, 0), 1, "A has it");
	VT_CHECK_EQ(evq_down(&qa), 0, "A down");
	VT_CHECK_EQ(evq_down(&qb), 0, "B down");
	VT_CHECK_EQ(sv_destroy_comp_channel(ch), 0, "channel");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* A send CQ on a channel: a signalled send completes inside post_send and
 * raises the event of a CQ armed for any completion, not of one armed for
 * solicited ones (a successful send is unsolicited). */
static int
test_send_cq_event(void)
{
	struct ibv_comp_channel *ch;
	struct ibv_qp_init_attr qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.cap = { .max_send_wr = 8, .max_send_sge = 1 },
		.sq_sig_all = 1,
	};
	struct ibv_qp_attr ma;
	struct ibv_cq *cq, *ecq;
	struct ibv_send_wr wr, *bad;
	struct ibv_sge sge;
	struct ibv_mr *mr;
	struct vt_svenv e;
	struct ibv_qp *qp;
	struct ibv_wc wc;
	uint8_t buf[128];
	void *ectx;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	ch = sv_create_comp_channel(e.ctx[0]);
	VT_CHECK(ch != NULL, "channel");
	VT_CHECK_EQ(set_nonblock(ch->fd, true), 0, "O_NONBLOCK");
	cq = sv_create_cq(e.ctx[0], 16, NULL, ch, 0);
	VT_CHECK(cq != NULL, "send CQ");
	qa.send_cq = cq;
	qa.recv_cq = cq;
	qp = sv_create_qp(e.pd[0], &qa);
	VT_CHECK(qp != NULL, "QP");
	memset(&ma, 0, sizeof(ma));
	ma.qp_state = IBV_QPS_INIT;
	ma.port_num = 1;
	VT_CHECK_EQ(sv_modify_qp(qp, &ma, IBV_QP_STATE | IBV_QP_PORT), 0,
		    "INIT");
	ma.qp_state = IBV_QPS_RTR;
	VT_CHECK_EQ(sv_modify_qp(qp, &ma, IBV_QP_STATE), 0, "RTR");
	ma.qp_state = IBV_QPS_RTS;
	VT_CHECK_EQ(sv_modify_qp(qp, &ma, IBV_QP_STATE), 0, "RTS");
	mr = sv_reg_mr(e.pd[0], buf, sizeof(buf), IBV_ACCESS_LOCAL_WRITE);
	VT_CHECK(mr != NULL, "MR");
	frame_to(buf, mac_a, sizeof(buf));
	sge = (struct ibv_sge){ (uintptr_t)buf, sizeof(buf), mr->lkey };
	memset(&wr, 0, sizeof(wr));
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_SEND;
	VT_CHECK_EQ(ibv_req_notify_cq(cq, 1), 0, "arm, solicited only");
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), 0, "send");
	VT_CHECK_EQ(sv_get_cq_event(ch, &ecq, &ectx), -1, "unsolicited");
	VT_CHECK_EQ(ibv_poll_cq(cq, 1, &wc), 1, "completion");
	VT_CHECK_EQ(ibv_req_notify_cq(cq, 0), 0, "arm");
	VT_CHECK_EQ(ibv_post_send(qp, &wr, &bad), 0, "send");
	VT_CHECK(readable(ch->fd, 0), "event queued by post_send");
	VT_CHECK_EQ(sv_get_cq_event(ch, &ecq, &ectx), 0, "event");
	VT_CHECK(ecq == cq, "the send CQ");
	sv_ack_cq_events(ecq, 1);
	VT_CHECK_EQ(ibv_poll_cq(cq, 1, &wc), 1, "completion");
	VT_CHECK_EQ(sv_destroy_qp(qp), 0, "QP");
	VT_CHECK_EQ(sv_destroy_cq(cq), 0, "CQ");
	VT_CHECK_EQ(sv_dereg_mr(mr), 0, "MR");
	VT_CHECK_EQ(sv_destroy_comp_channel(ch), 0, "channel");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* Arming a CQ that has no channel is accepted and raises nothing (the
 * kernel's comp handler has no queue to put it on). */
static int
test_arm_without_channel(void)
{
	struct vt_svenv e;
	struct evq q;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(evq_up(&e, &q, NULL, NULL, VT_SVENV_BUFSZ), VT_OK, "q");
	VT_CHECK_EQ(ibv_req_notify_cq(ibv_cq_ex_to_cq(q.cq), 0), 0, "arm");
	VT_CHECK_EQ(send_to(&e, mac_a, 80), 0, "send");
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 1, "the frame");
	VT_CHECK_EQ(evq_down(&q), 0, "queue down");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* ---- async events ---- */

/* The next async event within ms, or -1. */
static int
async_next(struct ibv_context *ctx, int ms, struct ibv_async_event *ev)
{
	if (!readable(ctx->async_fd, ms))
		return -1;
	if (sv_get_async_event(ctx, ev) != 0)
		return -1;
	sv_ack_async_event(ev);
	return (int)ev->event_type;
}

static int
port_state(struct ibv_context *ctx)
{
	struct ibv_port_attr pa;

	if (sv_query_port(ctx, 1, &pa) != 0)
		return -1;
	return pa.state;
}

/* ibv_get_async_event(3) for port events: taking one end of an in-memory
 * link down is IBV_EVENT_PORT_ERR on both ends, up again PORT_ACTIVE; one
 * event per change of state (a second down is none), each change kept in
 * order when nobody read in between; query_port agrees; a non-blocking
 * async_fd answers EAGAIN when there is nothing. */
static int
test_async_port_events(void)
{
	struct ibv_async_event ev;
	struct vt_svenv e;
	int i;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	/* End 0 was open before end 1 came: the link came up then. */
	VT_CHECK_EQ(async_next(e.ctx[0], 1000, &ev), IBV_EVENT_PORT_ACTIVE,
		    "end 0 saw the link come up");
	for (i = 0; i < 2; i++) {
		VT_CHECK(e.ctx[i]->async_fd >= 0, "async_fd of end %d", i);
		VT_CHECK_EQ(set_nonblock(e.ctx[i]->async_fd, true), 0,
			    "O_NONBLOCK");
		VT_CHECK_EQ(sv_get_async_event(e.ctx[i], &ev), -1, "none yet");
		VT_CHECK_EQ(errno, EAGAIN, "EAGAIN");
		VT_CHECK_EQ(port_state(e.ctx[i]), IBV_PORT_ACTIVE, "active");
	}
	VT_CHECK_EQ(softverbs_device_set_link(e.name[1], false), 0, "down");
	for (i = 0; i < 2; i++) {
		VT_CHECK_EQ(async_next(e.ctx[i], 1000, &ev), IBV_EVENT_PORT_ERR,
			    "end %d: port error", i);
		VT_CHECK_EQ(ev.element.port_num, 1, "port 1");
		VT_CHECK_EQ(port_state(e.ctx[i]), IBV_PORT_DOWN, "down");
	}
	VT_CHECK_EQ(softverbs_device_set_link(e.name[1], false), 0, "again");
	VT_CHECK_EQ(sv_get_async_event(e.ctx[0], &ev), -1, "no change");
	VT_CHECK_EQ(softverbs_device_set_link(e.name[0], false), 0, "both");
	VT_CHECK_EQ(softverbs_device_set_link(e.name[1], true), 0, "one up");
	VT_CHECK_EQ(sv_get_async_event(e.ctx[0], &ev), -1, "still down");
	VT_CHECK_EQ(softverbs_device_set_link(e.name[0], true), 0, "up");
	for (i = 0; i < 2; i++) {
		VT_CHECK_EQ(async_next(e.ctx[i], 1000, &ev),
			    IBV_EVENT_PORT_ACTIVE, "end %d: active", i);
		VT_CHECK_EQ(port_state(e.ctx[i]), IBV_PORT_ACTIVE, "active");
	}
	/* A flap nobody saw: both changes, in order. */
	VT_CHECK_EQ(softverbs_device_set_link(e.name[0], false), 0, "down");
	VT_CHECK_EQ(softverbs_device_set_link(e.name[0], true), 0, "up");
	VT_CHECK_EQ(async_next(e.ctx[1], 1000, &ev), IBV_EVENT_PORT_ERR, "1");
	VT_CHECK_EQ(async_next(e.ctx[1], 0, &ev), IBV_EVENT_PORT_ACTIVE, "2");
	VT_CHECK_EQ(async_next(e.ctx[1], 0, &ev), -1, "no more");
	VT_CHECK_EQ(softverbs_device_set_link("mem:nonesuch.0", false), ENODEV,
		    "no such device");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* Frames do not cross a link that is down, and do again once it is up. */
static int
test_link_down_carries_nothing(void)
{
	struct vt_svenv e;
	struct evq q;
	struct sv_port_stats st;

	VT_CHECK_EQ(vt_svenv_up(&e, &cfg), 0, "fixture");
	VT_CHECK_EQ(evq_up(&e, &q, NULL, NULL, VT_SVENV_BUFSZ), VT_OK, "q");
	VT_CHECK_EQ(softverbs_device_set_link(e.name[1], false), 0, "down");
	VT_CHECK_EQ(send_to(&e, mac_a, 80), 0, "sent into a dead link");
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 0, "nothing arrived");
	st = vt_svenv_stats(&e, 0);
	VT_CHECK_EQ(st.tx_errors, 1, "the wire refused it");
	VT_CHECK_EQ(softverbs_device_set_link(e.name[1], true), 0, "up");
	VT_CHECK_EQ(send_to(&e, mac_a, 80), 0, "send");
	VT_CHECK_EQ(evq_reap(&q, NULL, 0), 1, "arrived");
	VT_CHECK_EQ(evq_down(&q), 0, "queue down");
	VT_CHECK_EQ(vt_svenv_down(&e), 0, "teardown");
	return VT_OK;
}

/* The other end going away is a link down for this one. */
static int
test_async_peer_gone(void)
{
	struct ibv_async_event ev;
	struct ibv_context *ctx;
	char name[2][64], link[64];
	int i;

	snprintf(link, sizeof(link), "mem:svev-gone-%d", (int)getpid());
	for (i = 0; i < 2; i++)
		VT_CHECK_EQ(softverbs_device_add(link, NULL, name[i],
						 sizeof(name[i])),
			    0, "end %d", i);
	ctx = vt_open_by_name(name[0]);
	VT_CHECK(ctx != NULL, "open end 0");
	VT_CHECK_EQ(set_nonblock(ctx->async_fd, true), 0, "O_NONBLOCK");
	VT_CHECK_EQ(softverbs_device_remove(name[1]), 0, "end 1 gone");
	VT_CHECK_EQ(async_next(ctx, 1000, &ev), IBV_EVENT_PORT_ERR, "error");
	VT_CHECK_EQ(port_state(ctx), IBV_PORT_DOWN, "down");
	VT_CHECK_EQ(softverbs_device_add(link, NULL, name[1], sizeof(name[1])),
		    0, "end 1 back");
	VT_CHECK_EQ(async_next(ctx, 1000, &ev), IBV_EVENT_PORT_ACTIVE, "up");
	VT_CHECK_EQ(sv_close_device(ctx), 0, "close");
	for (i = 0; i < 2; i++)
		VT_CHECK_EQ(softverbs_device_remove(name[i]), 0, "remove");
	return VT_OK;
}

/* ---- the wire's descriptors ---- */

static void
rx_cb(void *arg, const uint8_t *f, uint32_t len)
{
	(void)f;
	(void)len;
	++*(unsigned int *)arg;
}

/* sv_wire_rx_fd() of the in-memory link: readable while frames wait, quiet
 * once they are taken, readable at once when asked for with frames
 * already there. sv_wire_link_fd()/sv_wire_link_poll(): the states. */
static int
test_mem_wire_fds(void)
{
	struct iovec iov = { 0 };
	unsigned int first[2] = { 0, 1 }, n = 0, i;
	struct sv_wire *w[2];
	uint8_t f[64], mac[6];
	char spec[64];
	bool st[4];
	int end, fd, lfd;

	snprintf(spec, sizeof(spec), "mem:svev-wire-%d", (int)getpid());
	for (i = 0; i < 2; i++)
		VT_CHECK_EQ(sv_wire_open(spec, &w[i], &end, mac), 0, "end %u",
			    i);
	frame_to(f, mac_a, sizeof(f));
	iov.iov_base = f;
	iov.iov_len = sizeof(f);
	VT_CHECK_EQ(sv_wire_tx(w[0], &iov, first, 1), 1, "a frame before");
	fd = sv_wire_rx_fd(w[1]);
	VT_CHECK(fd >= 0, "rx fd");
	VT_CHECK(readable(fd, 0), "readable: a frame waits");
	VT_CHECK_EQ(sv_wire_rx(w[1], 32, rx_cb, &n), 1, "taken");
	VT_CHECK(!readable(fd, 0), "quiet");
	for (i = 0; i < 3; i++)
		VT_CHECK_EQ(sv_wire_tx(w[0], &iov, first, 1), 1, "send");
	VT_CHECK(readable(fd, 0), "readable again");
	VT_CHECK_EQ(sv_wire_rx(w[1], 2, rx_cb, &n), 2, "two of three");
	VT_CHECK(readable(fd, 0), "one still waits");
	VT_CHECK_EQ(sv_wire_rx(w[1], 32, rx_cb, &n), 1, "the last");
	VT_CHECK(!readable(fd, 0), "quiet");
	VT_CHECK_EQ(sv_wire_rx_fd(w[1]), fd, "the same fd");
	lfd = sv_wire_link_fd(w[0]);
	VT_CHECK(lfd >= 0, "link fd");
	VT_CHECK_EQ(sv_wire_link_poll(w[0], st, 4), 2, "down, then up");
	VT_CHECK(!st[0] && st[1], "as end 1 came");
	VT_CHECK(!readable(lfd, 0), "quiet");
	VT_CHECK_EQ(sv_wire_set_link(w[1], false), 0, "end 1 down");
	VT_CHECK(readable(lfd, 0), "end 0 hears of it");
	VT_CHECK(!sv_wire_link_up(w[0]), "down");
	VT_CHECK_EQ(sv_wire_tx(w[0], &iov, first, 1), 0, "nothing crosses");
	VT_CHECK_EQ(sv_wire_link_poll(w[0], st, 4), 1, "one change");
	VT_CHECK(!st[0], "down");
	VT_CHECK_EQ(sv_wire_set_link(w[1], true), 0, "up");
	VT_CHECK(sv_wire_link_up(w[0]), "up");
	VT_CHECK_EQ(sv_wire_link_poll(w[0], st, 4), 1, "one change");
	VT_CHECK(st[0], "up");
	sv_wire_close(w[1]);
	VT_CHECK(readable(lfd, 0), "the peer left");
	VT_CHECK_EQ(sv_wire_link_poll(w[0], st, 4), 1, "one change");
	VT_CHECK(!st[0], "down");
	sv_wire_close(w[0]);
	VT_CHECK_EQ(n, 4, "frames");
	return VT_OK;
}

static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int
sh(const char *fmt, ...)
{
	char cmd[256];
	va_list ap;
	int rc;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "  '%s' failed (%d)\n", cmd, rc);
	return rc;
}

/* Is fd readable within ms, polling again until then (netlink messages
 * come from a kernel worker, a little after the command). */
static bool
readable_soon(int fd, int ms)
{
	double end = now_ms() + ms;

	do {
		if (readable(fd, 20))
			return true;
	} while (now_ms() < end);
	return false;
}

/* Counts only the test's own frames: a fresh link may still carry the
 * kernel's own traffic. */
static void
rx_ours(void *arg, const uint8_t *f, uint32_t len)
{
	if (len == 64 && memcmp(f, mac_a, 6) == 0 && f[6] == 0x02)
		++*(unsigned int *)arg;
}

/* The packet wire on a veth pair a/b (its own network namespace). */
static int
packet_wire_body(const char *a, const char *b)
{
	struct iovec iov = { 0 };
	unsigned int first[2] = { 0, 1 }, n = 0, got = 0, i;
	struct sv_wire *wa, *wb;
	char spec[32];
	uint8_t f[64], mac[6];
	bool st[8];
	int end, fd, lfd;

	snprintf(spec, sizeof(spec), "if:%s", a);
	VT_CHECK_EQ(sv_wire_open(spec, &wa, &end, mac), 0, "wire on a");
	snprintf(spec, sizeof(spec), "if:%s", b);
	VT_CHECK_EQ(sv_wire_open(spec, &wb, &end, mac), 0, "wire on b");
	fd = sv_wire_rx_fd(wa);
	lfd = sv_wire_link_fd(wa);
	VT_CHECK(fd >= 0 && lfd >= 0, "fds: %d %d", fd, lfd);
	VT_CHECK_EQ(sv_wire_set_link(wa, false), ENOTSUP, "not ours to set");
	/* Whatever the kernel said while the pair came up. */
	sv_wire_rx(wa, 1024, rx_cb, &n);
	sv_wire_link_poll(wa, st, 8);
	frame_to(f, mac_a, sizeof(f));
	iov.iov_base = f;
	iov.iov_len = sizeof(f);
	VT_CHECK(!readable(fd, 0), "quiet");
	VT_CHECK_EQ(sv_wire_tx(wb, &iov, first, 1), 1, "b sends");
	VT_CHECK(readable(fd, 1000), "a's fd readable");
	n = 0;
	for (i = 0; i < 50 && n == 0; i++)
		sv_wire_rx(wa, 32, rx_ours, &n);
	VT_CHECK_EQ(n, 1, "the frame");
	VT_CHECK(!readable(fd, 0), "quiet once read");
	VT_CHECK_EQ(sh("ip link set %s down", b), 0, "b down");
	VT_CHECK(readable_soon(lfd, 2000), "a hears of it");
	for (i = 0; i < 100 && got == 0; i++) {
		got = sv_wire_link_poll(wa, st, 8);
		if (got == 0)
			readable(lfd, 20);
	}
	VT_CHECK(got >= 1 && !st[got - 1], "down (%u states)", got);
	VT_CHECK(!sv_wire_link_up(wa), "query agrees");
	VT_CHECK_EQ(sh("ip link set %s up", b), 0, "b up");
	got = 0;
	for (i = 0; i < 100 && (got == 0 || !st[got - 1]); i++) {
		readable(lfd, 20);
		got = sv_wire_link_poll(wa, st, 8);
	}
	VT_CHECK(got >= 1 && st[got - 1], "up again (%u states)", got);
	sv_wire_close(wa);
	sv_wire_close(wb);
	return VT_OK;
}

/* sv_wire_rx_fd() of the packet wire is the packet socket, readable while
 * frames wait; sv_wire_link_fd() a route netlink socket that hears of the
 * peer going down and up (the interface's IFF_RUNNING). */
static int
test_packet_wire_fds(void)
{
	char a[IFNAMSIZ], b[IFNAMSIZ];
	int status;
	pid_t pid;

	VT_SKIP_IF(geteuid() != 0, "needs root for veth and AF_PACKET");
	VT_SKIP_IF(system("ip -V >/dev/null 2>&1") != 0, "needs ip(8)");
	snprintf(a, sizeof(a), "vte%da", (int)getpid());
	snprintf(b, sizeof(b), "vte%db", (int)getpid());
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	VT_CHECK(pid >= 0, "fork");
	if (pid == 0) {
		int rc = VT_FAIL;

		alarm(30);
		/* Its own namespace: the pair goes with the child. */
		if (unshare(CLONE_NEWNET) != 0)
			_exit(VT_SKIP);
		/* No IPv6 on links made here: no router solicitations or
		 * MLD reports arriving between the test's reads. */
		vt_disable_ipv6("default");
		if (sh("ip link add %s type veth peer name %s", a, b) == 0 &&
		    sh("ip link set %s up && ip link set %s up", a, b) == 0)
			rc = packet_wire_body(a, b);
		fflush(stdout);
		fflush(stderr);
		_exit(rc);
	}
	VT_CHECK(waitpid(pid, &status, 0) == pid, "waitpid");
	VT_CHECK(WIFEXITED(status), "child killed by signal %d",
		 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return WEXITSTATUS(status);
}

static const struct vt_case cases[] = {
	VT_CASE(test_channel_objects),
	VT_CASE(test_no_event_unarmed),
	VT_CASE(test_one_event_per_arming),
	VT_CASE(test_blocking_get),
	VT_CASE(test_solicited_only),
	VT_CASE(test_arm_pending_mlx5),
	VT_CASE(test_arm_pending_generic),
	VT_CASE(test_destroy_waits_for_ack),
	VT_CASE(test_destroy_drops_unread),
	VT_CASE(test_other_queue_frame),
	VT_CASE(test_send_cq_event),
	VT_CASE(test_arm_without_channel),
	VT_CASE(test_async_port_events),
	VT_CASE(test_link_down_carries_nothing),
	VT_CASE(test_async_peer_gone),
	VT_CASE(test_mem_wire_fds),
	VT_CASE(test_packet_wire_fds),
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
