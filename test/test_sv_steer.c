/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * softverbs flow steering, clause by clause of ibv_create_flow(3) and
 * ibv_attach_counters_point_flow(3).
 *
 * Two softverbs devices on an in-memory link: end 0 (generic profile)
 * sends hand-built frames with ibv_post_send() on a raw packet QP, end 1
 * (mlx5 profile) receives them through hash QPs over WQs and CQ-ex, polled
 * with ibv_start_poll() as an application would. Polling an empty CQ pumps
 * the port, so the test polls an unattached CQ until the port has taken
 * every frame sent, then drains the receive queues.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
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
#include "vt_seed.h"
#include "vt_svenv.h"
#include "vt_test.h"

#define NQ 4	/* receive queues, each with a 1-entry hash QP */
#define NBUF 64 /* receive buffers per queue */
#define NTXBUF 64
#define MAXREC 128

/* What one completion carried. */
struct rec {
	uint64_t wr_id;
	enum ibv_wc_status status;
	uint32_t len;
	uint32_t tag;
	unsigned int flags;
	uint32_t seq; /* payload sequence number */
	uint8_t head[64];
};

struct got {
	int n;
	struct rec r[MAXREC];
};

static const uint8_t rss_key[SV_RSS_KEY_LEN] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
	0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
	0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
	0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

static const uint8_t mac_a[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x0b };
static const uint8_t mac_src[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 };
static const uint8_t mac_mc[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01 };
static const uint8_t mac_ff[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
static const uint8_t ip_1[4] = { 10, 0, 0, 1 };
static const uint8_t ip_2[4] = { 10, 0, 0, 2 };
static const uint8_t ip_3[4] = { 10, 0, 0, 3 };

/* ---- hand-built frames ---- */

static uint32_t
csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (len & 1)
		sum += (uint32_t)p[len - 1] << 8;
	return sum;
}

static uint16_t
csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static void
put16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void
put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static uint32_t
get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

#define PAYLOAD 18  /* frames are 60 bytes (IPv4) */
#define SEQ_OFF4 42 /* 14 + 20 + 8 */

/* Ethernet / IPv4 / UDP with correct checksums and seq in the payload. */
static uint32_t
mk_udp4(uint8_t *f, const uint8_t dmac[6], const uint8_t smac[6],
	const uint8_t sip[4], const uint8_t dip[4], uint16_t sport,
	uint16_t dport, uint32_t seq)
{
	uint8_t *ip = f + 14, *udp = ip + 20, pseudo[12];
	uint32_t sum;

	memset(f, 0, 14 + 20 + 8 + PAYLOAD);
	memcpy(f, dmac, 6);
	memcpy(f + 6, smac, 6);
	put16(f + 12, 0x0800);
	ip[0] = 0x45;
	put16(ip + 2, 20 + 8 + PAYLOAD);
	put16(ip + 4, (uint16_t)seq);
	ip[8] = 64;
	ip[9] = 17;
	memcpy(ip + 12, sip, 4);
	memcpy(ip + 16, dip, 4);
	put16(ip + 10, csum_fold(csum_add(0, ip, 20)));
	put16(udp, sport);
	put16(udp + 2, dport);
	put16(udp + 4, 8 + PAYLOAD);
	put32(udp + 8, seq);
	memcpy(pseudo, sip, 4);
	memcpy(pseudo + 4, dip, 4);
	pseudo[8] = 0;
	pseudo[9] = 17;
	put16(pseudo + 10, 8 + PAYLOAD);
	sum = csum_add(csum_add(0, pseudo, 12), udp, 8 + PAYLOAD);
	put16(udp + 6, csum_fold(sum) ? csum_fold(sum) : 0xffff);
	return 14 + 20 + 8 + PAYLOAD;
}

/* Ethernet / IPv6 / UDP, checksummed, seq in the payload. */
static uint32_t
mk_udp6(uint8_t *f, const uint8_t dmac[6], uint32_t seq)
{
	uint8_t *ip = f + 14, *udp = ip + 40, pseudo[40];
	uint32_t sum;

	memset(f, 0, 14 + 40 + 8 + PAYLOAD);
	memcpy(f, dmac, 6);
	memcpy(f + 6, mac_src, 6);
	put16(f + 12, 0x86dd);
	ip[0] = 0x60;
	put16(ip + 4, 8 + PAYLOAD);
	ip[6] = 17;
	ip[7] = 64;
	ip[8] = 0xfd;
	ip[23] = 1;
	ip[24] = 0xfd;
	ip[39] = 2;
	put16(udp, 1000);
	put16(udp + 2, 2000);
	put16(udp + 4, 8 + PAYLOAD);
	put32(udp + 8, seq);
	memset(pseudo, 0, sizeof(pseudo));
	memcpy(pseudo, ip + 8, 32);
	put32(pseudo + 32, 8 + PAYLOAD);
	pseudo[39] = 17;
	sum = csum_add(csum_add(0, pseudo, 40), udp, 8 + PAYLOAD);
	put16(udp + 6, csum_fold(sum));
	return 14 + 40 + 8 + PAYLOAD;
}

/* A plain IPv4/UDP frame to dmac, numbered seq. */
static uint32_t
mk_to(uint8_t *f, const uint8_t dmac[6], uint32_t seq)
{
	return mk_udp4(f, dmac, mac_src, ip_1, ip_2, 1000, 2000, seq);
}

/* ---- rules ---- */

struct rule_buf {
	union {
		struct ibv_flow_attr attr;
		uint8_t b[512];
	} u;
	size_t off;
};

static struct ibv_flow_attr *
rb_init(struct rule_buf *rb, enum ibv_flow_attr_type type, uint16_t prio,
	uint32_t flags)
{
	memset(rb, 0, sizeof(*rb));
	rb->u.attr.type = type;
	rb->u.attr.priority = prio;
	rb->u.attr.flags = flags;
	rb->u.attr.port = 1;
	rb->u.attr.size = sizeof(struct ibv_flow_attr);
	rb->off = sizeof(struct ibv_flow_attr);
	return &rb->u.attr;
}

/* Specs follow each other unaligned (a COUNT spec holds a pointer):
 * build each one aside and copy it in, as verbs users do. */
static void
rb_put(struct rule_buf *rb, const void *spec, size_t size)
{
	memcpy(rb->u.b + rb->off, spec, size);
	rb->off += size;
	rb->u.attr.size += size;
	rb->u.attr.num_of_specs++;
}

static void
rb_eth_dst(struct rule_buf *rb, const uint8_t dmac[6], const uint8_t mask[6])
{
	struct ibv_flow_spec_eth s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_ETH;
	s.size = sizeof(s);
	memcpy(s.val.dst_mac, dmac, 6);
	memcpy(s.mask.dst_mac, mask, 6);
	rb_put(rb, &s, sizeof(s));
}

static void
rb_ipv4(struct rule_buf *rb, const uint8_t *src, const uint8_t *dst)
{
	struct ibv_flow_spec_ipv4 s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_IPV4;
	s.size = sizeof(s);
	if (src != NULL) {
		memcpy(&s.val.src_ip, src, 4);
		s.mask.src_ip = 0xffffffff;
	}
	if (dst != NULL) {
		memcpy(&s.val.dst_ip, dst, 4);
		s.mask.dst_ip = 0xffffffff;
	}
	rb_put(rb, &s, sizeof(s));
}

static void
rb_tag(struct rule_buf *rb, uint32_t tag)
{
	struct ibv_flow_spec_action_tag s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_ACTION_TAG;
	s.size = sizeof(s);
	s.tag_id = tag;
	rb_put(rb, &s, sizeof(s));
}

static void
rb_drop(struct rule_buf *rb)
{
	struct ibv_flow_spec_action_drop s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_ACTION_DROP;
	s.size = sizeof(s);
	rb_put(rb, &s, sizeof(s));
}

static void
rb_count(struct rule_buf *rb, struct ibv_counters *c)
{
	struct ibv_flow_spec_counter_action s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_ACTION_COUNT;
	s.size = sizeof(s);
	s.counters = c;
	rb_put(rb, &s, sizeof(s));
}

static const uint8_t ff6[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* NORMAL rule: ETH dst = dmac (full mask) at prio, with flags. */
static struct ibv_flow *
flow_dst(struct ibv_qp *qp, const uint8_t dmac[6], uint16_t prio,
	 uint32_t flags)
{
	struct rule_buf rb;

	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, prio, flags);
	rb_eth_dst(&rb, dmac, ff6);
	return ibv_create_flow(qp, &rb.u.attr);
}

static struct ibv_flow *
flow_type(struct ibv_qp *qp, enum ibv_flow_attr_type type)
{
	struct rule_buf rb;

	rb_init(&rb, type, 0, 0);
	return ibv_create_flow(qp, &rb.u.attr);
}

/* ---- devices and queues ---- */

/* End 1 with nq receive queues, device options opts (NULL: mlx5). */
#define STEER_CFG(prefix, nq_, opts)                                \
	{                                                           \
		.link_prefix = (prefix), .nq = (nq_), .nbuf = NBUF, \
		.rx_cqe = 256, .tx_wr = NTXBUF, .tx_slots = NTXBUF, \
		.rss_key = rss_key, .pump = true, .opts1 = (opts),  \
	}

static const struct vt_svenv_cfg env_cfg = STEER_CFG("svsteer", NQ, NULL);

/* Send from end 0 a frame that end 1 will take off the wire. */
static int
send0(struct vt_svenv *e, const uint8_t *frame, uint32_t len)
{
	e->rx_expect++;
	return vt_svenv_xmit(e, 0, frame, len);
}

/* Poll the empty CQ (which pumps the port) until end 1 has taken every
 * frame sent to it; a few more pumps show that nothing else comes. */
static int
settle(struct vt_svenv *e)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	double deadline = vt_now_s() + 2.0;
	int extra = 4;

	while (vt_now_s() < deadline) {
		if (ibv_start_poll(e->pump, &pa) == 0)
			ibv_end_poll(e->pump);
		if (vt_svenv_stats(e, 1).rx_frames >= e->rx_expect &&
		    extra-- == 0)
			break;
	}
	return vt_svenv_stats(e, 1).rx_frames == e->rx_expect ? 0 : -1;
}

/* Take every completion of a queue (re-posting its buffers). */
static int
drain(struct vt_rxq *q, struct got *g)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	int rc;

	g->n = 0;
	rc = ibv_start_poll(q->cq, &pa);
	if (rc == ENOENT)
		return 0;
	if (rc != 0)
		return -1;
	do {
		struct rec *r = &g->r[g->n < MAXREC ? g->n : MAXREC - 1];
		const uint8_t *data;

		r->wr_id = q->cq->wr_id;
		r->status = q->cq->status;
		r->len = ibv_wc_read_byte_len(q->cq);
		r->tag = ibv_wc_read_flow_tag(q->cq);
		r->flags = ibv_wc_read_wc_flags(q->cq);
		data = q->buf + r->wr_id * VT_SVENV_BUFSZ;
		memcpy(r->head, data, sizeof(r->head));
		r->seq = r->len >= SEQ_OFF4 + 4 ? get32(data + SEQ_OFF4) : 0;
		if (g->n < MAXREC)
			g->n++;
		if (vt_svenv_post_rx(q, r->wr_id) != 0) {
			ibv_end_poll(q->cq);
			return -1;
		}
		rc = ibv_next_poll(q->cq);
	} while (rc == 0);
	ibv_end_poll(q->cq);
	return rc == ENOENT ? 0 : -1;
}

static int
drain_all(struct vt_svenv *e, struct got g[NQ])
{
	int i;

	for (i = 0; i < NQ; i++)
		if (drain(&e->q[i], &g[i]) != 0)
			return -1;
	return 0;
}

/* Settle, drain, and give the per-queue completion counts. */
static int
collect(struct vt_svenv *e, struct got g[NQ], int n[NQ])
{
	int i;

	if (settle(e) != 0 || drain_all(e, g) != 0)
		return -1;
	for (i = 0; i < NQ; i++)
		n[i] = g[i].n;
	return 0;
}

#define ENV_UP(e)                               \
	VT_CHECK(vt_svenv_up(e, &env_cfg) == 0, \
		 "device set-up failed (errno %d)", errno)
#define ENV_DOWN(e) VT_CHECK(vt_svenv_down(e) == 0, "tear-down failed")
#define COLLECT(e, g, n)                                             \
	VT_CHECK(collect(e, g, n) == 0,                              \
		 "frames not taken: rx_frames %llu, sent %llu",      \
		 (unsigned long long)vt_svenv_stats(e, 1).rx_frames, \
		 (unsigned long long)(e)->rx_expect)
#define SEND(e, f, l) VT_CHECK(send0(e, f, l) == 0, "send failed")

static struct vt_svenv E;
static struct got G[NQ];

/* ---- cases ---- */

/* "the packet is steered to its attached qp": an ETH destination rule. */
static int
test_eth_dst(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *fl;
	uint8_t f[128];
	uint32_t len;
	int n[NQ];

	ENV_UP(e);
	fl = flow_dst(e->q[1].hqp, mac_a, 0, 0);
	VT_CHECK(fl != NULL, "create_flow: errno %d", errno);
	VT_CHECK(fl->context == e->ctx[1], "flow context");
	len = mk_to(f, mac_a, 7);
	SEND(e, f, len);
	SEND(e, f, mk_to(f, mac_b, 8));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 0, "queue 0");
	VT_CHECK_EQ(n[1], 1, "queue 1 gets the frame to mac_a only");
	VT_CHECK_EQ(n[2] + n[3], 0, "other queues");
	VT_CHECK_EQ(G[1].r[0].status, IBV_WC_SUCCESS, "status");
	VT_CHECK_EQ(G[1].r[0].len, len, "byte_len");
	VT_CHECK_EQ(G[1].r[0].seq, 7, "payload");
	VT_CHECK(memcmp(G[1].r[0].head, mac_a, 6) == 0, "frame bytes");
	VT_CHECK_EQ(G[1].r[0].tag, 0, "no tag without a TAG action");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_unsteered, 1,
		    "mac_b matched nothing");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy_flow");
	/* Destroyed: the same frame is no longer steered. */
	SEND(e, f, mk_to(f, mac_a, 9));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[1], 0, "no delivery after destroy");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_unsteered, 2,
		    "unsteered after destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* The man page's EXAMPLE, byte for byte: dst MAC 66:11:22:33:44:55 and
 * src IPv4 0x0B86C806 (as stored, i.e. already in network order), at
 * priority 0. Its ETH mask also covers the source MAC with value 0. */
static int
test_manpage_example(void)
{
	static const uint8_t dmac[6] = { 0x66, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const uint8_t zero_mac[6];
	/* The packed example, placed where its header is aligned. */
	union {
		struct raw_eth_flow_attr raw;
		struct ibv_flow_attr attr;
	} u;
	uint32_t src_host = 0x0B86C806;
	uint8_t sip[4], sip_swapped[4] = { 0x0b, 0x86, 0xc8, 0x06 };
	struct vt_svenv *e = &E;
	struct ibv_flow *fl;
	uint8_t f[128];
	int n[NQ];

	memcpy(sip, &src_host, 4); /* the wire bytes of the example */
	ENV_UP(e);
	u.raw = vt_seed_flow_attr;
	fl = ibv_create_flow(e->q[2].hqp, &u.attr);
	VT_CHECK(fl != NULL, "man page example: errno %d", errno);
	/* Hit: dst MAC, zero src MAC, src IP. */
	SEND(e, f, mk_udp4(f, dmac, zero_mac, sip, ip_2, 1, 2, 1));
	/* Misses: other src IP byte order, other src MAC, other dst MAC. */
	if (memcmp(sip, sip_swapped, 4) != 0)
		SEND(e, f,
		     mk_udp4(f, dmac, zero_mac, sip_swapped, ip_2, 1, 2, 2));
	SEND(e, f, mk_udp4(f, dmac, mac_src, sip, ip_2, 1, 2, 3));
	SEND(e, f, mk_udp4(f, mac_a, zero_mac, sip, ip_2, 1, 2, 4));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 1, "exactly the matching frame");
	VT_CHECK_EQ(G[2].r[0].seq, 1, "the matching frame");
	VT_CHECK_EQ(n[0] + n[1] + n[3], 0, "nothing elsewhere");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* "A lower priority numeric value takes precedence", whatever the
 * creation order; ties between masks go to the rule created first. */
static int
test_priority(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *broad, *narrow, *fl[2];
	struct rule_buf rb;
	uint8_t f[128];
	int n[NQ];

	ENV_UP(e);
	/* Broad (ETH dst) at 3 created first, narrow (+ IPv4 dst) at 1. */
	broad = flow_dst(e->q[0].hqp, mac_a, 3, 0);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 1, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_ipv4(&rb, NULL, ip_3);
	narrow = ibv_create_flow(e->q[1].hqp, &rb.u.attr);
	VT_CHECK(broad != NULL && narrow != NULL, "create: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 1));
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_2, 1, 2, 2));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[1], 1, "priority 1 beats priority 3");
	VT_CHECK_EQ(G[1].r[0].seq, 1, "the frame to ip_3");
	VT_CHECK_EQ(n[0], 1, "the other frame falls to priority 3");
	VT_CHECK_EQ(G[0].r[0].seq, 2, "the frame to ip_2");
	VT_CHECK_EQ(ibv_destroy_flow(broad), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(narrow), 0, "destroy");

	/* Now the broad rule wins at the lower value. */
	broad = flow_dst(e->q[0].hqp, mac_a, 0, 0);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 2, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_ipv4(&rb, NULL, ip_3);
	narrow = ibv_create_flow(e->q[1].hqp, &rb.u.attr);
	VT_CHECK(broad != NULL && narrow != NULL, "create: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 3));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "priority 0 beats the narrower priority 2");
	VT_CHECK_EQ(n[1], 0, "priority 2");
	VT_CHECK_EQ(ibv_destroy_flow(broad), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(narrow), 0, "destroy");

	/* Same priority, different masks: the rule created first wins,
	 * in both creation orders. */
	fl[0] = flow_dst(e->q[2].hqp, mac_a, 1, 0);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 1, 0);
	rb_ipv4(&rb, NULL, ip_3);
	fl[1] = ibv_create_flow(e->q[3].hqp, &rb.u.attr);
	VT_CHECK(fl[0] != NULL && fl[1] != NULL, "create: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 4));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 1, "first created (ETH) wins the tie");
	VT_CHECK_EQ(n[3], 0, "second created");
	VT_CHECK_EQ(ibv_destroy_flow(fl[0]), 0, "destroy");
	fl[0] = flow_dst(e->q[2].hqp, mac_a, 1, 0);
	VT_CHECK(fl[0] != NULL, "re-create: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 5));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[3], 1, "now the IPv4 rule is older and wins");
	VT_CHECK_EQ(n[2], 0, "younger ETH rule");
	VT_CHECK_EQ(ibv_destroy_flow(fl[0]), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(fl[1]), 0, "destroy");

	/* Rule age, not mask age: the ETH mask exists first (priority 5),
	 * then an IPv4 rule and a younger ETH rule both at priority 1. */
	broad = flow_dst(e->q[0].hqp, mac_a, 5, 0);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 1, 0);
	rb_ipv4(&rb, NULL, ip_3);
	fl[1] = ibv_create_flow(e->q[1].hqp, &rb.u.attr);
	fl[0] = flow_dst(e->q[2].hqp, mac_a, 1, 0);
	VT_CHECK(broad && fl[0] && fl[1], "create: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 6));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[1], 1, "the older priority-1 rule wins");
	VT_CHECK_EQ(n[0] + n[2], 0, "not the younger one nor priority 5");
	VT_CHECK_EQ(ibv_destroy_flow(broad), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(fl[0]), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(fl[1]), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* ALL_DEFAULT: "all Eth traffic which isn't steered to any QP";
 * MC_DEFAULT: "all Eth multicast traffic which isn't steered". */
static int
test_defaults(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *norm, *mc_norm, *all, *mc;
	uint8_t f[128];
	int n[NQ];

	ENV_UP(e);
	norm = flow_dst(e->q[0].hqp, mac_a, 0, 0);
	mc_norm = flow_dst(e->q[0].hqp, mac_ff, 0, 0);
	all = flow_type(e->q[1].hqp, IBV_FLOW_ATTR_ALL_DEFAULT);
	mc = flow_type(e->q[2].hqp, IBV_FLOW_ATTR_MC_DEFAULT);
	VT_CHECK(norm && mc_norm && all && mc, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 1));	 /* NORMAL */
	SEND(e, f, mk_to(f, mac_b, 2));	 /* unicast, not steered */
	SEND(e, f, mk_to(f, mac_mc, 3)); /* multicast, not steered */
	SEND(e, f, mk_to(f, mac_ff, 4)); /* broadcast, NORMAL */
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 2, "NORMAL rules keep their frames");
	VT_CHECK_EQ(n[1], 1, "ALL_DEFAULT: the unicast leftover");
	VT_CHECK_EQ(G[1].r[0].seq, 2, "ALL_DEFAULT frame");
	VT_CHECK_EQ(n[2], 1, "MC_DEFAULT: the multicast leftover");
	VT_CHECK_EQ(G[2].r[0].seq, 3, "MC_DEFAULT frame");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_unsteered, 0, "all steered");

	/* Without MC_DEFAULT, ALL_DEFAULT takes multicast leftovers too. */
	VT_CHECK_EQ(ibv_destroy_flow(mc), 0, "destroy");
	SEND(e, f, mk_to(f, mac_mc, 5));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[1], 1, "ALL_DEFAULT takes multicast");
	VT_CHECK_EQ(n[2], 0, "MC_DEFAULT gone");

	/* MC_DEFAULT alone leaves unicast leftovers unsteered. */
	VT_CHECK_EQ(ibv_destroy_flow(all), 0, "destroy");
	mc = flow_type(e->q[2].hqp, IBV_FLOW_ATTR_MC_DEFAULT);
	VT_CHECK(mc != NULL, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_b, 6));
	SEND(e, f, mk_to(f, mac_mc, 7));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 1, "multicast leftover");
	VT_CHECK_EQ(G[2].r[0].seq, 7, "MC_DEFAULT frame");
	VT_CHECK_EQ(n[1], 0, "no ALL_DEFAULT any more");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_unsteered, 1,
		    "unicast leftover dropped");
	VT_CHECK_EQ(ibv_destroy_flow(mc), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(norm), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(mc_norm), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* SNIFFER: "receive all port traffic" -- a copy of each received frame
 * whatever the other rules do (DROP included), and of each sent one. */
static int
test_sniffer(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *norm, *drop, *sniff;
	struct rule_buf rb;
	uint8_t f[128];
	int n[NQ];

	ENV_UP(e);
	norm = flow_dst(e->q[0].hqp, mac_a, 0, 0);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_b, ff6);
	rb_drop(&rb);
	drop = ibv_create_flow(e->q[1].hqp, &rb.u.attr);
	sniff = flow_type(e->q[3].hqp, IBV_FLOW_ATTR_SNIFFER);
	VT_CHECK(norm && drop && sniff, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 1));
	SEND(e, f, mk_to(f, mac_b, 2));
	SEND(e, f, mk_to(f, mac_mc, 3));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "NORMAL still gets its frame");
	VT_CHECK_EQ(n[1], 0, "dropped");
	VT_CHECK_EQ(n[3], 3, "the sniffer sees every received frame");
	VT_CHECK_EQ(G[3].r[0].seq, 1, "order");
	VT_CHECK_EQ(G[3].r[2].seq, 3, "order");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_dropped, 1, "DROP counted");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_unsteered, 1, "mac_mc not steered");

	/* Sent by end 1: copied to its own sniffer (mlx5 sniffs Tx). */
	VT_CHECK(vt_svenv_xmit(e, 1, f, mk_to(f, mac_b, 4)) == 0,
		 "send from end 1");
	VT_CHECK(drain_all(e, G) == 0, "drain");
	VT_CHECK_EQ(G[3].n, 1, "Tx copy on the sniffer");
	VT_CHECK_EQ(G[3].r[0].seq, 4, "Tx copy");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_dropped, 1,
		    "not run through Rx rules");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_frames, 3, "not an Rx frame");
	VT_CHECK_EQ(ibv_destroy_flow(sniff), 0, "destroy");
	VT_CHECK(vt_svenv_xmit(e, 1, f, mk_to(f, mac_b, 5)) == 0,
		 "send from end 1");
	VT_CHECK(drain_all(e, G) == 0, "drain");
	VT_CHECK_EQ(G[3].n, 0, "no copy without the sniffer");
	VT_CHECK_EQ(ibv_destroy_flow(norm), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(drop), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* DONT_TRAP: "doesn't trap received packets, allowing them to match
 * lower prioritized rules". */
static int
test_dont_trap(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *dt, *low, *all;
	uint8_t f[128];
	int n[NQ];

	ENV_UP(e);
	dt = flow_dst(e->q[0].hqp, mac_a, 0, IBV_FLOW_ATTR_FLAGS_DONT_TRAP);
	low = flow_dst(e->q[1].hqp, mac_a, 2, 0);
	all = flow_type(e->q[2].hqp, IBV_FLOW_ATTR_ALL_DEFAULT);
	VT_CHECK(dt && low && all, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 1));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "DONT_TRAP rule gets a copy");
	VT_CHECK_EQ(n[1], 1, "the lower priority rule still gets it");
	VT_CHECK_EQ(n[2], 0, "trapped by the priority-2 rule");

	/* A DONT_TRAP hit alone does not trap: defaults still apply. */
	VT_CHECK_EQ(ibv_destroy_flow(low), 0, "destroy");
	SEND(e, f, mk_to(f, mac_a, 2));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "DONT_TRAP copy");
	VT_CHECK_EQ(n[2], 1, "ALL_DEFAULT gets the untrapped frame");

	/* Control: the same rule without DONT_TRAP traps. */
	VT_CHECK_EQ(ibv_destroy_flow(dt), 0, "destroy");
	dt = flow_dst(e->q[0].hqp, mac_a, 0, 0);
	low = flow_dst(e->q[1].hqp, mac_a, 2, 0);
	VT_CHECK(dt && low, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 3));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "trapping rule");
	VT_CHECK_EQ(n[1] + n[2], 0, "nothing below it");

	/* At one priority, DONT_TRAP rules are tested before trapping
	 * ones (kernel table 2p before 2p + 1). */
	VT_CHECK_EQ(ibv_destroy_flow(low), 0, "destroy");
	low = flow_dst(e->q[3].hqp, mac_a, 0, IBV_FLOW_ATTR_FLAGS_DONT_TRAP);
	VT_CHECK(low != NULL, "same match, DONT_TRAP: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 4));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[3], 1, "DONT_TRAP at the same priority first");
	VT_CHECK_EQ(n[0], 1, "then the trapping rule");
	VT_CHECK_EQ(ibv_destroy_flow(dt), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(low), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(all), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* ACTION_DROP: on any QP (here the raw send QP), beats defaults. */
static int
test_drop(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *drop, *all, *low;
	struct rule_buf rb;
	uint8_t f[128];
	int n[NQ];

	ENV_UP(e);
	all = flow_type(e->q[1].hqp, IBV_FLOW_ATTR_ALL_DEFAULT);
	low = flow_dst(e->q[2].hqp, mac_a, 5, 0);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 1, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_drop(&rb);
	drop = ibv_create_flow(e->tx[1].qp, &rb.u.attr);
	VT_CHECK(all && low && drop, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 1));
	SEND(e, f, mk_to(f, mac_b, 2));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 0, "lower priority rule never sees it");
	VT_CHECK_EQ(n[1], 1, "only the other frame reaches ALL_DEFAULT");
	VT_CHECK_EQ(G[1].r[0].seq, 2, "ALL_DEFAULT frame");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_dropped, 1, "rx_dropped");
	/* The flow holds its QP. */
	VT_CHECK_EQ(sv_destroy_qp(e->tx[1].qp), EBUSY, "QP in use by a flow");
	VT_CHECK_EQ(ibv_destroy_flow(drop), 0, "destroy");
	SEND(e, f, mk_to(f, mac_a, 3));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 1, "no drop any more");
	VT_CHECK_EQ(ibv_destroy_flow(all), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(low), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* ACTION_TAG: the tag shows in ibv_wc_read_flow_tag(). */
static int
test_tag(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *t1, *t2, *plain;
	struct rule_buf rb;
	uint8_t f[128];
	int n[NQ];

	ENV_UP(e);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_tag(&rb, 0x123456);
	t1 = ibv_create_flow(e->q[0].hqp, &rb.u.attr);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_b, ff6);
	rb_tag(&rb, 0xffffff);
	t2 = ibv_create_flow(e->q[0].hqp, &rb.u.attr);
	plain = flow_dst(e->q[0].hqp, mac_mc, 0, 0);
	VT_CHECK(t1 && t2 && plain, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 1));
	SEND(e, f, mk_to(f, mac_b, 2));
	SEND(e, f, mk_to(f, mac_mc, 3));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 3, "all three");
	VT_CHECK_EQ(G[0].r[0].tag, 0x123456, "tag of rule 1");
	VT_CHECK_EQ(G[0].r[1].tag, 0xffffff, "tag of rule 2");
	VT_CHECK_EQ(G[0].r[2].tag, 0, "untagged rule");
	/* 2^24 and above: EINVAL (mlx5 kernel). */
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_src, ff6);
	rb_tag(&rb, 0x1000000);
	errno = 0;
	VT_CHECK(ibv_create_flow(e->q[0].hqp, &rb.u.attr) == NULL, "tag 2^24");
	VT_CHECK_EQ(errno, EINVAL, "tag 2^24");
	VT_CHECK_EQ(ibv_destroy_flow(t1), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(t2), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(plain), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

static struct ibv_counters *
mk_counters(struct ibv_context *ctx)
{
	struct ibv_counters_init_attr ia = { .comp_mask = 0 };
	struct ibv_counter_attach_attr pk = {
		.counter_desc = IBV_COUNTER_PACKETS,
		.index = 0,
	};
	struct ibv_counter_attach_attr by = {
		.counter_desc = IBV_COUNTER_BYTES,
		.index = 1,
	};
	struct ibv_counters *c = ibv_create_counters(ctx, &ia);

	if (c == NULL)
		return NULL;
	if (ibv_attach_counters_point_flow(c, &pk, NULL) != 0 ||
	    ibv_attach_counters_point_flow(c, &by, NULL) != 0) {
		ibv_destroy_counters(c);
		return NULL;
	}
	return c;
}

/* ACTION_COUNT: "creating several ibv_flow(s) with the same ibv_counters
 * handle will collect the values from all relevant flows". */
static int
test_count_shared(void)
{
	struct ibv_counter_attach_attr pk = {
		.counter_desc = IBV_COUNTER_PACKETS,
		.index = 2,
	};
	struct vt_svenv *e = &E;
	struct ibv_counters *c;
	struct ibv_flow *fa, *fb;
	struct rule_buf rb;
	uint64_t v[2] = { 0, 0 }, bytes = 0;
	uint8_t f[128];
	int n[NQ], i;

	ENV_UP(e);
	c = mk_counters(e->ctx[1]);
	VT_CHECK(c != NULL, "counters: errno %d", errno);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_count(&rb, c);
	fa = ibv_create_flow(e->q[0].hqp, &rb.u.attr);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_b, ff6);
	rb_count(&rb, c);
	rb_drop(&rb);
	fb = ibv_create_flow(e->q[1].hqp, &rb.u.attr);
	VT_CHECK(fa && fb, "create: errno %d", errno);
	/* Bound: no more attach points. */
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &pk, NULL), EBUSY,
		    "attach after bind");
	for (i = 0; i < 2; i++) {
		uint32_t len = mk_to(f, mac_a, i);

		SEND(e, f, len);
		bytes += len;
	}
	for (i = 0; i < 3; i++) {
		uint32_t len = mk_udp6(f, mac_b, 10 + i);

		SEND(e, f, len);
		bytes += len;
	}
	SEND(e, f, mk_to(f, mac_mc, 99)); /* counted nowhere */
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 2, "forwarded by the first flow");
	VT_CHECK_EQ(n[1], 0, "dropped by the second");
	VT_CHECK_EQ(ibv_read_counters(c, v, 2, 0), 0, "read_counters");
	VT_CHECK_EQ(v[0], 5, "packets from both flows");
	VT_CHECK_EQ(v[1], bytes, "bytes from both flows");
	/* Unbound once both flows are gone: attach works again. */
	VT_CHECK_EQ(ibv_destroy_flow(fa), 0, "destroy");
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &pk, NULL), EBUSY,
		    "still bound to one flow");
	VT_CHECK_EQ(ibv_destroy_flow(fb), 0, "destroy");
	VT_CHECK_EQ(ibv_attach_counters_point_flow(c, &pk, NULL), 0,
		    "attach when no flow is bound");
	VT_CHECK_EQ(ibv_destroy_counters(c), 0, "destroy counters");
	ENV_DOWN(e);
	return VT_OK;
}

/*
 * The same match at the same priority is one entry (one FTE of the mlx5
 * kernel's flow table): DROP against a destination and another tag are
 * EEXIST (check_conflicting_ftes()); another QP joins the entry as one
 * more destination (mlx5_ib does not ask for FLOW_ACT_NO_APPEND), every
 * frame going to each QP once with the entry's tag; an identical rule
 * shares it.
 */
static int
test_eexist(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *fl, *same, *other_prio, *dt, *dt2, *other_qp;
	struct rule_buf rb;
	uint8_t f[128];
	int n[NQ];

	ENV_UP(e);
	fl = flow_dst(e->q[0].hqp, mac_a, 1, 0);
	VT_CHECK(fl != NULL, "create: errno %d", errno);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 1, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_drop(&rb);
	errno = 0;
	VT_CHECK(ibv_create_flow(e->q[0].hqp, &rb.u.attr) == NULL, "drop");
	VT_CHECK_EQ(errno, EEXIST, "drop vs forward");
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 1, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_tag(&rb, 5);
	errno = 0;
	VT_CHECK(ibv_create_flow(e->q[0].hqp, &rb.u.attr) == NULL, "tag");
	VT_CHECK_EQ(errno, EEXIST, "another tag");
	same = flow_dst(e->q[0].hqp, mac_a, 1, 0);
	VT_CHECK(same != NULL, "identical rule shares the entry: errno %d",
		 errno);
	other_prio = flow_dst(e->q[1].hqp, mac_a, 2, 0);
	VT_CHECK(other_prio != NULL, "other priority: errno %d", errno);
	dt = flow_dst(e->q[2].hqp, mac_a, 1, IBV_FLOW_ATTR_FLAGS_DONT_TRAP);
	VT_CHECK(dt != NULL, "DONT_TRAP is another table: errno %d", errno);
	dt2 = flow_dst(e->q[2].hqp, mac_a, 1, IBV_FLOW_ATTR_FLAGS_DONT_TRAP);
	VT_CHECK(dt2 != NULL, "identical DONT_TRAP rule: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 1));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "the shared entry delivers once");
	VT_CHECK_EQ(n[2], 1, "one DONT_TRAP copy for the shared entry");
	VT_CHECK_EQ(n[1], 0, "lower priority");
	/* Another QP: a second destination of the entry. */
	other_qp = flow_dst(e->q[3].hqp, mac_a, 1, 0);
	VT_CHECK(other_qp != NULL, "other QP joins: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 2));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "first destination once");
	VT_CHECK_EQ(n[3], 1, "second destination once");
	VT_CHECK_EQ(n[1], 0, "lower priority");
	/* Removing one of the sharers keeps the entry and its other
	 * destinations. */
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	SEND(e, f, mk_to(f, mac_a, 3));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "entry still there");
	VT_CHECK_EQ(n[3], 1, "and its second destination");
	VT_CHECK_EQ(ibv_destroy_flow(same), 0, "destroy");
	SEND(e, f, mk_to(f, mac_a, 4));
	COLLECT(e, G, n);
	VT_CHECK(n[0] == 0 && n[3] == 1, "only the second destination left");
	VT_CHECK_EQ(ibv_destroy_flow(other_qp), 0, "destroy");
	/* The entry's tag is that of the rule that made it: an untagged
	 * rule joins and its frames are tagged, also once that rule is
	 * gone (the FTE keeps its flow context). */
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 2, 0);
	rb_eth_dst(&rb, mac_b, ff6);
	rb_tag(&rb, 9);
	fl = ibv_create_flow(e->q[0].hqp, &rb.u.attr);
	other_qp = flow_dst(e->q[1].hqp, mac_b, 2, 0);
	VT_CHECK(fl != NULL && other_qp != NULL, "tagged, then untagged: %d",
		 errno);
	SEND(e, f, mk_to(f, mac_b, 5));
	COLLECT(e, G, n);
	VT_CHECK(n[0] == 1 && n[1] == 1, "both destinations: %d %d", n[0],
		 n[1]);
	VT_CHECK(G[0].r[0].tag == 9 && G[1].r[0].tag == 9,
		 "the entry's tag on both: %u %u", G[0].r[0].tag,
		 G[1].r[0].tag);
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	SEND(e, f, mk_to(f, mac_b, 6));
	COLLECT(e, G, n);
	VT_CHECK(n[0] == 0 && n[1] == 1 && G[1].r[0].tag == 9,
		 "tag kept: %d %d tag %u", n[0], n[1], G[1].r[0].tag);
	VT_CHECK_EQ(ibv_destroy_flow(other_qp), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(other_prio), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(dt), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(dt2), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

static int
expect_fail(struct ibv_qp *qp, struct ibv_flow_attr *attr, int err)
{
	struct ibv_flow *fl;

	errno = 0;
	fl = ibv_create_flow(qp, attr);
	if (fl != NULL) {
		ibv_destroy_flow(fl);
		return -1;
	}
	return errno == err ? 0 : errno;
}

#define EXPECT_FAIL(qp, attr, err, what)                     \
	do {                                                 \
		int r_ = expect_fail(qp, attr, err);         \
		VT_CHECK(r_ == 0, "%s: %s", what,            \
			 r_ < 0 ? "created" : strerror(r_)); \
	} while (0)

/* What the man page, uverbs and the mlx5 kernel refuse. */
static int
test_invalid(void)
{
	struct vt_svenv *e = &E;
	struct ibv_qp *hq = NULL;
	struct ibv_flow *fl;
	struct ibv_flow_attr *a;
	struct rule_buf rb;
	uint32_t bad_type;

	ENV_UP(e);
	hq = e->q[0].hqp;
	a = rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	a->comp_mask = 1;
	EXPECT_FAIL(hq, a, EINVAL, "comp_mask");
	a->comp_mask = 0;
	a->flags = 1 << 0;
	EXPECT_FAIL(hq, a, EINVAL, "deprecated flag bit 0");
	a->flags = 1 << 3;
	EXPECT_FAIL(hq, a, EINVAL, "unknown flag");
	a->flags = 0;
	a->port = 2;
	EXPECT_FAIL(hq, a, EINVAL, "port 2");
	a->port = 0;
	EXPECT_FAIL(hq, a, EINVAL, "port 0");
	a->port = 1;
	a->type = 4;
	EXPECT_FAIL(hq, a, EINVAL, "unknown type");

	/* Note 4: DONT_TRAP is for NORMAL rules only. */
	a = rb_init(&rb, IBV_FLOW_ATTR_ALL_DEFAULT, 0,
		    IBV_FLOW_ATTR_FLAGS_DONT_TRAP);
	EXPECT_FAIL(hq, a, EINVAL, "ALL_DEFAULT + DONT_TRAP");
	a->type = IBV_FLOW_ATTR_MC_DEFAULT;
	EXPECT_FAIL(hq, a, EINVAL, "MC_DEFAULT + DONT_TRAP");
	a->type = IBV_FLOW_ATTR_SNIFFER;
	EXPECT_FAIL(hq, a, EINVAL, "SNIFFER + DONT_TRAP");

	/* "Flow tag ... isn't allowed in leftovers". */
	a = rb_init(&rb, IBV_FLOW_ATTR_ALL_DEFAULT, 0, 0);
	rb_tag(&rb, 1);
	EXPECT_FAIL(hq, a, EINVAL, "ALL_DEFAULT + TAG");
	a->type = IBV_FLOW_ATTR_MC_DEFAULT;
	EXPECT_FAIL(hq, a, EINVAL, "MC_DEFAULT + TAG");

	/* Priority: mlx5 kernel ENOMEM above 15; generic EINVAL above the
	 * device maximum. */
	a = rb_init(&rb, IBV_FLOW_ATTR_NORMAL, SV_MAX_PRIO_MLX5 + 1, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	EXPECT_FAIL(hq, a, ENOMEM, "mlx5 priority 16");
	a->priority = SV_MAX_PRIO_MLX5;
	fl = ibv_create_flow(hq, a);
	VT_CHECK(fl != NULL, "mlx5 priority 15: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	/* End 0 is generic: its rules are egress ones (any QP). */
	a = rb_init(&rb, IBV_FLOW_ATTR_NORMAL, SV_MAX_PRIO + 1,
		    IBV_FLOW_ATTR_FLAGS_EGRESS);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_drop(&rb);
	EXPECT_FAIL(e->tx[0].qp, a, EINVAL, "generic priority 0x1000");
	a->priority = SV_MAX_PRIO;
	fl = ibv_create_flow(e->tx[0].qp, a);
	VT_CHECK(fl != NULL, "generic priority 0xfff: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");

	/* Egress is for NORMAL rules, without tags. */
	a = rb_init(&rb, IBV_FLOW_ATTR_ALL_DEFAULT, 0,
		    IBV_FLOW_ATTR_FLAGS_EGRESS);
	EXPECT_FAIL(e->tx[0].qp, a, EINVAL, "egress ALL_DEFAULT");
	a = rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, IBV_FLOW_ATTR_FLAGS_EGRESS);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_tag(&rb, 3);
	EXPECT_FAIL(e->tx[0].qp, a, EINVAL, "egress TAG");

	/* Forwarding needs a QP that can receive (a hash QP here). */
	a = rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	EXPECT_FAIL(e->tx[1].qp, a, EINVAL, "forward to a send-only QP");

	/* Malformed chains, from the compiler, passed through. */
	a = rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	bad_type = 0x99;
	memcpy(rb.u.b + sizeof(struct ibv_flow_attr), &bad_type,
	       sizeof(bad_type));
	EXPECT_FAIL(hq, a, EINVAL, "unknown spec type");

	/* Nothing half-made: the refused rules left no trace. */
	fl = flow_dst(hq, mac_a, 0, 0);
	VT_CHECK(fl != NULL, "valid rule after the refusals: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* A frame steered to a WQ without posted buffers is lost and counted. */
static int
test_no_buffer(void)
{
	struct vt_svenv *e = &E;
	struct vt_rxq dry;
	struct ibv_flow *fl;
	struct got g;
	uint8_t f[128];
	int n[NQ];

	ENV_UP(e);
	memset(&dry, 0, sizeof(dry));
	VT_CHECK(vt_svenv_rxq_up(e, &dry, 0) == 0, "queue without buffers");
	fl = flow_dst(dry.hqp, mac_a, 0, 0);
	VT_CHECK(fl != NULL, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 1));
	SEND(e, f, mk_to(f, mac_a, 2));
	COLLECT(e, G, n);
	VT_CHECK(drain(&dry, &g) == 0, "drain");
	VT_CHECK_EQ(g.n, 0, "nothing completed");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_no_buffer, 2, "rx_no_buffer");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_unsteered, 0,
		    "steered, not unsteered");
	/* With a buffer posted the next frame arrives. */
	VT_CHECK_EQ(vt_svenv_post_rx(&dry, 0), 0, "post");
	SEND(e, f, mk_to(f, mac_a, 3));
	COLLECT(e, G, n);
	VT_CHECK(drain(&dry, &g) == 0, "drain");
	VT_CHECK_EQ(g.n, 1, "delivered");
	VT_CHECK_EQ(g.r[0].seq, 3, "the third frame");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_no_buffer, 2, "no new loss");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	VT_CHECK_EQ(sv_destroy_qp(dry.hqp), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(dry.ind), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_wq(dry.wq), 0, "destroy");
	VT_CHECK_EQ(sv_destroy_cq(ibv_cq_ex_to_cq(dry.cq)), 0, "destroy");
	VT_CHECK_EQ(sv_dereg_mr(dry.mr), 0, "dereg");
	free(dry.buf);
	ENV_DOWN(e);
	return VT_OK;
}

/* End 1 as the man page's device (the generic profile). */
static const struct sv_device_opts generic_opts = {
	.profile = SV_PROFILE_GENERIC,
};
static const struct vt_svenv_cfg generic_cfg =
	STEER_CFG("svsteerg", NQ, &generic_opts);

/* IBV_WC_IP_CSUM_OK: IPv4 with good IP and UDP checksums only, on the
 * man page's device; never on a WQ of mlx5 (libmlx5 44 reads the CQE's
 * checksum bits for a QP's receive queue only, handle_responder_lazy()). */
static int
csum_flag(const struct vt_svenv_cfg *cfg, bool mlx5)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *fl;
	uint8_t f[128];
	uint32_t len;
	int n[NQ];

	VT_CHECK(vt_svenv_up(e, cfg) == 0, "set-up: errno %d", errno);
	fl = flow_type(e->q[0].hqp, IBV_FLOW_ATTR_ALL_DEFAULT);
	VT_CHECK(fl != NULL, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 1));
	len = mk_to(f, mac_a, 2);
	f[14 + 10] ^= 0x01; /* bad IPv4 checksum */
	SEND(e, f, len);
	len = mk_to(f, mac_a, 3);
	f[SEQ_OFF4 + 5] ^= 0x01; /* payload: bad UDP sum */
	SEND(e, f, len);
	SEND(e, f, mk_udp6(f, mac_a, 4)); /* IPv6: never set */
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 4, "all four");
	VT_CHECK_EQ(G[0].r[0].flags & IBV_WC_IP_CSUM_OK,
		    mlx5 ? 0 : IBV_WC_IP_CSUM_OK, "good IPv4/UDP");
	VT_CHECK(!(G[0].r[1].flags & IBV_WC_IP_CSUM_OK), "bad IP csum");
	VT_CHECK(!(G[0].r[2].flags & IBV_WC_IP_CSUM_OK), "bad UDP csum");
	VT_CHECK(!(G[0].r[3].flags & IBV_WC_IP_CSUM_OK), "IPv6");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

static int
test_csum_flag(void)
{
	return csum_flag(&generic_cfg, false);
}

static int
test_csum_flag_mlx5(void)
{
	return csum_flag(&env_cfg, true);
}

/* RSS: a 4-entry table; each frame lands where the low bits of the
 * Toeplitz hash point. */
static int
test_rss_spread(void)
{
	const uint64_t fields = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 |
				IBV_RX_HASH_SRC_PORT_UDP |
				IBV_RX_HASH_DST_PORT_UDP;
	struct ibv_rwq_ind_table_init_attr ia = { .log_ind_tbl_size = 2 };
	struct vt_svenv *e = &E;
	struct ibv_wq *wqs[4];
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *hq;
	struct ibv_flow *fl;
	int expect_q[64], n[NQ], used = 0, i, j, k;
	uint8_t f[128];

	ENV_UP(e);
	for (i = 0; i < 4; i++)
		wqs[i] = e->q[i].wq;
	ia.ind_tbl = wqs;
	ind = ibv_create_rwq_ind_table(e->ctx[1], &ia);
	VT_CHECK(ind != NULL, "4-entry table: errno %d", errno);
	hq = vt_svenv_hash_qp(e, ind, fields);
	VT_CHECK(hq != NULL, "hash QP: errno %d", errno);
	fl = flow_type(hq, IBV_FLOW_ATTR_ALL_DEFAULT);
	VT_CHECK(fl != NULL, "create: errno %d", errno);
	for (i = 0; i < 48; i++) {
		uint8_t sip[4] = { 192, 168, (uint8_t)(i / 7),
				   (uint8_t)(i * 37) };
		uint32_t len = mk_udp4(f, mac_a, mac_src, sip, ip_2,
				       (uint16_t)(1024 + i * 131),
				       (uint16_t)(80 + i), (uint32_t)i);
		struct sv_key key;

		sv_parse(f, len, &key, NULL);
		expect_q[i] = sv_rx_hash(rss_key, fields, &key) & 3;
		SEND(e, f, len);
	}
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0] + n[1] + n[2] + n[3], 48, "every frame once");
	for (k = 0; k < 4; k++) {
		if (n[k] > 0)
			used++;
		for (j = 0; j < n[k]; j++) {
			uint32_t s = G[k].r[j].seq;

			VT_CHECK(s < 48, "seq %u", s);
			VT_CHECK_EQ(expect_q[s], k, "frame %u on queue %d", s,
				    k);
		}
	}
	VT_CHECK(used >= 3, "48 flows spread over %d queues only", used);
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	VT_CHECK_EQ(sv_destroy_qp(hq), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_rwq_ind_table(ind), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* EGRESS: note 6, the QP only names the device; DROP stops the frame
 * before the wire, COUNT counts, a frame matching nothing is sent. */
static int
test_egress(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *drop, *count, *all;
	struct ibv_counters *c;
	struct rule_buf rb;
	uint64_t v[2] = { 0, 0 };
	uint8_t f[128];
	uint32_t len;
	int n[NQ];

	ENV_UP(e);
	all = flow_type(e->q[0].hqp, IBV_FLOW_ATTR_ALL_DEFAULT);
	VT_CHECK(all != NULL, "create: errno %d", errno);
	c = mk_counters(e->ctx[0]);
	VT_CHECK(c != NULL, "counters: errno %d", errno);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, IBV_FLOW_ATTR_FLAGS_EGRESS);
	rb_eth_dst(&rb, mac_b, ff6);
	rb_drop(&rb);
	drop = ibv_create_flow(e->tx[0].qp, &rb.u.attr);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, IBV_FLOW_ATTR_FLAGS_EGRESS);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_count(&rb, c);
	count = ibv_create_flow(e->tx[0].qp, &rb.u.attr);
	VT_CHECK(drop && count, "egress rules: errno %d", errno);
	/* Dropped before the wire: end 1 never takes it. */
	VT_CHECK(vt_svenv_xmit(e, 0, f, mk_to(f, mac_b, 1)) == 0, "send");
	len = mk_to(f, mac_a, 2);
	SEND(e, f, len);
	SEND(e, f, mk_to(f, mac_mc, 3));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 2, "counted and unmatched frames are sent");
	VT_CHECK_EQ(G[0].r[0].seq, 2, "first frame on the wire");
	VT_CHECK_EQ(G[0].r[1].seq, 3, "second frame on the wire");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_frames, 2,
		    "the dropped one never left");
	VT_CHECK_EQ(ibv_read_counters(c, v, 2, 0), 0, "read");
	VT_CHECK_EQ(v[0], 1, "egress packets counted");
	VT_CHECK_EQ(v[1], len, "egress bytes counted");
	VT_CHECK_EQ(ibv_destroy_flow(drop), 0, "destroy");
	SEND(e, f, mk_to(f, mac_b, 4));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "sent once the rule is gone");
	VT_CHECK_EQ(ibv_destroy_flow(count), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_counters(c), 0, "destroy counters");
	VT_CHECK_EQ(ibv_destroy_flow(all), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* NORMAL rule with an IPv4 dst first (IPV4 or IPV4_EXT), mask given. */
static struct ibv_flow *
flow_ip_first(struct ibv_qp *qp, bool ext, const uint8_t dip[4], uint32_t mask,
	      uint16_t prio, uint32_t flags)
{
	struct ibv_flow_spec_ipv4_ext x;
	struct ibv_flow_spec_ipv4 s;
	struct rule_buf rb;

	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, prio, flags);
	if (ext) {
		memset(&x, 0, sizeof(x));
		x.type = IBV_FLOW_SPEC_IPV4_EXT;
		x.size = sizeof(x);
		memcpy(&x.val.dst_ip, dip, 4);
		x.mask.dst_ip = htonl(mask);
		x.val.dst_ip &= x.mask.dst_ip;
		rb_put(&rb, &x, sizeof(x));
	} else {
		memset(&s, 0, sizeof(s));
		s.type = IBV_FLOW_SPEC_IPV4;
		s.size = sizeof(s);
		memcpy(&s.val.dst_ip, dip, 4);
		s.mask.dst_ip = htonl(mask);
		s.val.dst_ip &= s.mask.dst_ip;
		rb_put(&rb, &s, sizeof(s));
	}
	return ibv_create_flow(qp, &rb.u.attr);
}

/* Everything, at prio: ETH with an empty mask. */
static struct ibv_flow *
flow_any(struct ibv_qp *qp, uint16_t prio)
{
	static const uint8_t zero6[6];
	struct rule_buf rb;

	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, prio, 0);
	rb_eth_dst(&rb, zero6, zero6);
	return ibv_create_flow(qp, &rb.u.attr);
}

static const uint8_t ip_mc[4] = { 239, 1, 2, 3 };

/*
 * The mlx5 multicast table (get_flow_table(), flow_is_multicast_only()):
 * each clause of the kernel's test, against a catch-all at a worse
 * priority that a rule of the regular tables beats.
 */
static int
test_mcast_table(void)
{
	static const uint8_t not_group[6] = {
		0xfe, 0xff, 0xff, 0xff, 0xff, 0xff
	};
	struct vt_svenv *e = &E;
	struct ibv_flow *any, *mc, *ctl;
	struct rule_buf rb;
	uint8_t f[128];
	int n[NQ];

	ENV_UP(e);
	any = flow_any(e->q[1].hqp, 5);
	VT_CHECK(any != NULL, "catch-all: errno %d", errno);

	/* ETH first, group bit in value and mask: after priority 5. */
	mc = flow_dst(e->q[0].hqp, mac_mc, 0, 0);
	VT_CHECK(mc != NULL, "ETH multicast: errno %d", errno);
	SEND(e, f, mk_to(f, mac_mc, 1));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[1], 1, "priority 5 catch-all first");
	VT_CHECK_EQ(n[0], 0, "multicast-only rule at priority 0");
	/* Without the catch-all, the multicast table still takes it. */
	VT_CHECK_EQ(ibv_destroy_flow(any), 0, "destroy");
	SEND(e, f, mk_to(f, mac_mc, 2));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "multicast table");
	any = flow_any(e->q[1].hqp, 5);
	VT_CHECK(any != NULL, "catch-all: errno %d", errno);
	/* DONT_TRAP: the regular table 2p, a copy before priority 5. */
	VT_CHECK_EQ(ibv_destroy_flow(mc), 0, "destroy");
	mc = flow_dst(e->q[0].hqp, mac_mc, 0, IBV_FLOW_ATTR_FLAGS_DONT_TRAP);
	VT_CHECK(mc != NULL, "DONT_TRAP: errno %d", errno);
	SEND(e, f, mk_to(f, mac_mc, 3));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "DONT_TRAP copy at priority 0");
	VT_CHECK_EQ(n[1], 1, "then the catch-all");
	VT_CHECK_EQ(ibv_destroy_flow(mc), 0, "destroy");
	/* Group bit in the value only (mask without it): regular table. */
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, (const uint8_t[6]){ 0, 0, 0x5e, 0, 0, 1 }, not_group);
	ctl = ibv_create_flow(e->q[2].hqp, &rb.u.attr);
	VT_CHECK(ctl != NULL, "mask without group bit: errno %d", errno);
	SEND(e, f, mk_to(f, mac_mc, 4));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 1, "priority 0 of the regular table wins");
	VT_CHECK_EQ(n[1], 0, "catch-all");
	VT_CHECK_EQ(ibv_destroy_flow(ctl), 0, "destroy");

	/* IPv4 first with a multicast dst, whatever the mask, IPV4 or
	 * IPV4_EXT: the multicast table. */
	mc = flow_ip_first(e->q[0].hqp, false, ip_mc, 0xffffffff, 0, 0);
	VT_CHECK(mc != NULL, "IPv4 multicast: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_mc, 1, 2, 5));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[1], 1, "IPV4 mc: catch-all first");
	VT_CHECK_EQ(n[0], 0, "IPV4 mc: priority 0 ignored");
	VT_CHECK_EQ(ibv_destroy_flow(mc), 0, "destroy");
	mc = flow_ip_first(e->q[0].hqp, true, ip_mc, 0xf0000000, 0, 0);
	VT_CHECK(mc != NULL, "IPV4_EXT 224/4: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_mc, 1, 2, 6));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[1], 1, "IPV4_EXT 224/4: catch-all first");
	VT_CHECK_EQ(ibv_destroy_flow(mc), 0, "destroy");
	/* The same IPv4 match behind an ETH spec: regular table. */
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_ipv4(&rb, NULL, ip_mc);
	ctl = ibv_create_flow(e->q[2].hqp, &rb.u.attr);
	VT_CHECK(ctl != NULL, "ETH / IPv4 mc: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_mc, 1, 2, 7));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 1, "IPv4 not first: priority 0 wins");
	VT_CHECK_EQ(ibv_destroy_flow(ctl), 0, "destroy");
	/* A unicast IPv4 dst first: regular table. */
	ctl = flow_ip_first(e->q[2].hqp, false, ip_3, 0xffffffff, 0, 0);
	VT_CHECK(ctl != NULL, "IPv4 unicast: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 8));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 1, "IPv4 unicast first: priority 0 wins");
	VT_CHECK_EQ(ibv_destroy_flow(ctl), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(any), 0, "destroy");

	/* One table: among multicast-only rules, creation order, not
	 * priority; an identical match at another priority is the same
	 * entry. */
	mc = flow_dst(e->q[0].hqp, mac_mc, 7, 0);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_mc, ff6);
	rb_ipv4(&rb, NULL, ip_2);
	ctl = ibv_create_flow(e->q[2].hqp, &rb.u.attr);
	VT_CHECK(mc != NULL && ctl != NULL, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_mc, 9));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "the older rule (priority 7) wins");
	VT_CHECK_EQ(n[2], 0, "the narrower priority-0 rule");
	any = flow_dst(e->q[3].hqp, mac_mc, 3, 0);
	VT_CHECK(any != NULL,
		 "same match at priority 3, other QP: joins (errno %d)", errno);
	SEND(e, f, mk_to(f, mac_mc, 10));
	COLLECT(e, G, n);
	VT_CHECK(n[0] == 1 && n[3] == 1 && n[2] == 0,
		 "one entry, two destinations: %d %d %d", n[0], n[3], n[2]);
	VT_CHECK_EQ(ibv_destroy_flow(any), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(mc), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(ctl), 0, "destroy");
	/* Control, regular table: the same pair by priority. */
	mc = flow_dst(e->q[0].hqp, mac_a, 7, 0);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, 0);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_ipv4(&rb, NULL, ip_2);
	ctl = ibv_create_flow(e->q[2].hqp, &rb.u.attr);
	any = flow_dst(e->q[3].hqp, mac_a, 3, 0);
	VT_CHECK(mc && ctl && any, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_a, 11));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 1, "unicast: priority 0 wins");
	VT_CHECK_EQ(ibv_destroy_flow(mc), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(ctl), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(any), 0, "destroy");
	/* Priorities beyond the device's are refused before the table is
	 * chosen (mlx5_ib_create_flow(): ENOMEM). */
	errno = 0;
	VT_CHECK(flow_dst(e->q[0].hqp, mac_mc, 16, 0) == NULL &&
			 errno == ENOMEM,
		 "multicast rule at priority 16: errno %d", errno);
	ENV_DOWN(e);
	return VT_OK;
}

/* The generic profile (the man page) has no multicast table. */
static int
test_mcast_generic(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *any, *mc;
	uint8_t f[128];
	int n[NQ];

	VT_CHECK(vt_svenv_up(e, &generic_cfg) == 0, "set-up: errno %d", errno);
	any = flow_any(e->q[1].hqp, 5);
	mc = flow_dst(e->q[0].hqp, mac_mc, 0, 0);
	VT_CHECK(any && mc, "create: errno %d", errno);
	SEND(e, f, mk_to(f, mac_mc, 1));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 1, "priority 0 wins on the man page's device");
	VT_CHECK_EQ(n[1], 0, "catch-all");
	/* The man page is silent on identical rules: one fate per entry. */
	errno = 0;
	VT_CHECK(flow_dst(e->q[2].hqp, mac_mc, 0, 0) == NULL && errno == EEXIST,
		 "same match, other QP: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow(mc), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(any), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* Egress on the mlx5 profile: current kernels take a NORMAL egress rule
 * without an IPsec action (is_valid_esp_aes_gcm() is gone); not with
 * ALL_DEFAULT / MC_DEFAULT (mlx5_ib_create_flow(): EINVAL); kernels that
 * took IPsec egress rules only refused it (SV_DEV_NO_VERBS_EGRESS). A
 * multicast-only egress rule goes to the egress multicast table. */
static const struct sv_device_opts no_egress_opts = {
	.profile = SV_PROFILE_MLX5,
	.lacks = SV_DEV_NO_VERBS_EGRESS,
};
static const struct vt_svenv_cfg no_egress_cfg =
	STEER_CFG("svsteere", 1, &no_egress_opts);

/* Frames end 0 has taken off the wire (end 0 is pumped by polling its
 * send CQ, which is empty between sends). */
static uint64_t
rx0(struct vt_svenv *e)
{
	struct ibv_wc wc;
	int i;

	for (i = 0; i < 8; i++)
		ibv_poll_cq(e->tx[0].cq, 1, &wc);
	return vt_svenv_stats(e, 0).rx_frames;
}

static int
test_egress_mlx5(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *allow, *drop;
	struct rule_buf rb;
	uint64_t before;
	uint8_t f[128];

	ENV_UP(e);
	errno = 0;
	rb_init(&rb, IBV_FLOW_ATTR_ALL_DEFAULT, 0, IBV_FLOW_ATTR_FLAGS_EGRESS);
	VT_CHECK(ibv_create_flow(e->tx[1].qp, &rb.u.attr) == NULL &&
			 errno == EINVAL,
		 "egress ALL_DEFAULT: errno %d", errno);
	/* Unicast: a DROP at priority 0 beats an allowing rule at 3. */
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 3, IBV_FLOW_ATTR_FLAGS_EGRESS);
	rb_eth_dst(&rb, (const uint8_t[6]){ 0 }, (const uint8_t[6]){ 0 });
	allow = ibv_create_flow(e->tx[1].qp, &rb.u.attr);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, IBV_FLOW_ATTR_FLAGS_EGRESS);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_drop(&rb);
	drop = ibv_create_flow(e->tx[1].qp, &rb.u.attr);
	VT_CHECK(allow && drop, "egress rules: errno %d", errno);
	before = rx0(e);
	VT_CHECK(vt_svenv_xmit(e, 1, f, mk_to(f, mac_a, 1)) == 0, "send");
	VT_CHECK_EQ(rx0(e), before, "dropped before the wire");
	VT_CHECK_EQ(ibv_destroy_flow(drop), 0, "destroy");
	/* Multicast-only: after priority 3, so the allowing rule wins. */
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, IBV_FLOW_ATTR_FLAGS_EGRESS);
	rb_eth_dst(&rb, mac_mc, ff6);
	rb_drop(&rb);
	drop = ibv_create_flow(e->tx[1].qp, &rb.u.attr);
	VT_CHECK(drop != NULL, "egress multicast drop: errno %d", errno);
	VT_CHECK(vt_svenv_xmit(e, 1, f, mk_to(f, mac_mc, 2)) == 0, "send");
	VT_CHECK_EQ(rx0(e), before + 1, "multicast drop after priority 3");
	VT_CHECK_EQ(ibv_destroy_flow(allow), 0, "destroy");
	VT_CHECK(vt_svenv_xmit(e, 1, f, mk_to(f, mac_mc, 3)) == 0, "send");
	VT_CHECK_EQ(rx0(e), before + 1, "dropped once alone");
	VT_CHECK_EQ(ibv_destroy_flow(drop), 0, "destroy");
	ENV_DOWN(e);

	VT_CHECK(vt_svenv_up(e, &no_egress_cfg) == 0, "set-up: errno %d",
		 errno);
	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, 0, IBV_FLOW_ATTR_FLAGS_EGRESS);
	rb_eth_dst(&rb, mac_a, ff6);
	rb_drop(&rb);
	errno = 0;
	VT_CHECK(ibv_create_flow(e->tx[1].qp, &rb.u.attr) == NULL &&
			 errno == EINVAL,
		 "kernel without verbs egress: errno %d", errno);
	/* Ingress rules are not concerned. */
	drop = flow_dst(e->q[0].hqp, mac_a, 0, 0);
	VT_CHECK(drop != NULL, "ingress rule: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow(drop), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* sv_device_opts.flow_prios: 8 models kernels with 8 bypass priorities
 * (mlx5_ib_create_flow(): ENOMEM above); generic: EINVAL above. */
static const struct sv_device_opts prio8_opts = {
	.profile = SV_PROFILE_MLX5,
	.flow_prios = 8,
};
static const struct vt_svenv_cfg prio8_cfg =
	STEER_CFG("svsteerp", 1, &prio8_opts);

static int
test_flow_prios_option(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *fl;

	VT_CHECK(vt_svenv_up(e, &prio8_cfg) == 0, "set-up: errno %d", errno);
	fl = flow_dst(e->q[0].hqp, mac_a, 7, 0);
	VT_CHECK(fl != NULL, "priority 7 of 8: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	errno = 0;
	VT_CHECK(flow_dst(e->q[0].hqp, mac_a, 8, 0) == NULL && errno == ENOMEM,
		 "priority 8 of 8: errno %d", errno);
	ENV_DOWN(e);
	return VT_OK;
}

/* A rule of one mask at prio with a tag, DONT_TRAP or not: which:
 * 0 ETH dst mac_a, 1 IPv4 dst ip_3, 2 any Ethernet frame, 3 both. */
static struct ibv_flow *
flow_tagged(struct ibv_qp *qp, int which, uint16_t prio, uint32_t flags,
	    uint32_t tag)
{
	static const uint8_t zero6[6];
	struct rule_buf rb;

	rb_init(&rb, IBV_FLOW_ATTR_NORMAL, prio, flags);
	if (which == 0 || which == 3)
		rb_eth_dst(&rb, mac_a, ff6);
	else
		rb_eth_dst(&rb, zero6, zero6);
	if (which == 1 || which == 3)
		rb_ipv4(&rb, NULL, ip_3);
	rb_tag(&rb, tag);
	return ibv_create_flow(qp, &rb.u.attr);
}

/*
 * Rules of several masks at one priority, through the receive path: every
 * DONT_TRAP copy, in creation order whatever the mask, then the trapping
 * rule created first, also when one mask shares no field with the others
 * (the table's filter cannot cover it).
 */
static int
test_same_prio_masks(void)
{
	struct vt_svenv *e = &E;
	struct ibv_flow *dt[3], *trap[2];
	uint8_t f[128];
	int n[NQ], i;

	ENV_UP(e);
	for (i = 0; i < 3; i++)
		dt[i] = flow_tagged(e->q[0].hqp, i, 1,
				    IBV_FLOW_ATTR_FLAGS_DONT_TRAP, 1 + i);
	trap[0] = flow_tagged(e->q[1].hqp, 3, 1, 0, 10);
	VT_CHECK(dt[0] && dt[1] && dt[2] && trap[0], "create: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 1));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 3, "a copy for each DONT_TRAP rule");
	VT_CHECK_EQ(G[0].r[0].tag, 1, "ETH rule first (oldest)");
	VT_CHECK_EQ(G[0].r[1].tag, 2, "then the IPv4 rule");
	VT_CHECK_EQ(G[0].r[2].tag, 3, "then the catch-all");
	VT_CHECK_EQ(n[1], 1, "and the trapping rule");
	VT_CHECK_EQ(G[1].r[0].tag, 10, "trapping rule");
	/* The ETH rule again: now the youngest copy. */
	VT_CHECK_EQ(ibv_destroy_flow(dt[0]), 0, "destroy");
	dt[0] = flow_tagged(e->q[0].hqp, 0, 1, IBV_FLOW_ATTR_FLAGS_DONT_TRAP,
			    1);
	VT_CHECK(dt[0] != NULL, "re-create: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 2));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 3, "three copies");
	VT_CHECK_EQ(G[0].r[0].tag, 2, "creation order: IPv4");
	VT_CHECK_EQ(G[0].r[1].tag, 3, "catch-all");
	VT_CHECK_EQ(G[0].r[2].tag, 1, "ETH");
	/* A frame to another address meets two of them. */
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_2, 1, 2, 3));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0], 2, "catch-all and ETH copies");
	VT_CHECK_EQ(G[0].r[0].tag, 3, "catch-all");
	VT_CHECK_EQ(G[0].r[1].tag, 1, "ETH");
	VT_CHECK_EQ(n[1], 0, "the trapping rule wants ip_3");
	for (i = 0; i < 3; i++)
		VT_CHECK_EQ(ibv_destroy_flow(dt[i]), 0, "destroy");

	/* Trapping, the catch-all (no field shared) older: it wins. */
	trap[1] = flow_tagged(e->q[2].hqp, 2, 1, 0, 20);
	VT_CHECK(trap[1] != NULL, "create: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow(trap[0]), 0, "destroy");
	trap[0] = flow_tagged(e->q[1].hqp, 3, 1, 0, 10);
	VT_CHECK(trap[0] != NULL, "create: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 4));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[2], 1, "the older catch-all wins");
	VT_CHECK_EQ(n[1], 0, "the younger, narrower rule");
	/* Younger catch-all: the narrower rule wins. */
	VT_CHECK_EQ(ibv_destroy_flow(trap[1]), 0, "destroy");
	trap[1] = flow_tagged(e->q[2].hqp, 2, 1, 0, 20);
	VT_CHECK(trap[1] != NULL, "create: errno %d", errno);
	SEND(e, f, mk_udp4(f, mac_a, mac_src, ip_1, ip_3, 1, 2, 5));
	SEND(e, f, mk_udp4(f, mac_b, mac_src, ip_1, ip_3, 1, 2, 6));
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[1], 1, "the older narrow rule wins");
	VT_CHECK_EQ(G[1].r[0].seq, 5, "its frame");
	VT_CHECK_EQ(n[2], 1, "the catch-all takes the other frame");
	VT_CHECK_EQ(G[2].r[0].seq, 6, "the other frame");
	VT_CHECK_EQ(ibv_destroy_flow(trap[0]), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(trap[1]), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/* 1000 rules of one mask (one hash table): each frame finds its own. */
#define MANY 1000
static int
test_many_rules(void)
{
	static struct ibv_flow *fl[MANY];
	static const int probe[] = { 0, 1, 2, 499, 500, 998, 999 };
	struct vt_svenv *e = &E;
	struct rule_buf rb;
	uint8_t f[128], mac[6] = { 0x02, 0x10, 0, 0, 0, 0 };
	double t0;
	int n[NQ], i;

	ENV_UP(e);
	t0 = vt_now_s();
	for (i = 0; i < MANY; i++) {
		mac[4] = i >> 8;
		mac[5] = i & 0xff;
		rb_init(&rb, IBV_FLOW_ATTR_NORMAL, (uint16_t)(i % 3), 0);
		rb_eth_dst(&rb, mac, ff6);
		rb_tag(&rb, (uint32_t)i + 1);
		fl[i] = ibv_create_flow(e->q[i % 2].hqp, &rb.u.attr);
		VT_CHECK(fl[i] != NULL, "rule %d: errno %d", i, errno);
	}
	for (i = 0; i < (int)(sizeof(probe) / sizeof(probe[0])); i++) {
		mac[4] = probe[i] >> 8;
		mac[5] = probe[i] & 0xff;
		SEND(e, f, mk_to(f, mac, (uint32_t)probe[i]));
	}
	mac[4] = MANY >> 8;
	mac[5] = MANY & 0xff;
	SEND(e, f, mk_to(f, mac, 5000)); /* no rule */
	COLLECT(e, G, n);
	VT_CHECK_EQ(n[0] + n[1], 7, "every probe found its rule");
	for (i = 0; i < 2; i++) {
		int j;

		for (j = 0; j < G[i].n; j++) {
			uint32_t s = G[i].r[j].seq;

			VT_CHECK_EQ(G[i].r[j].tag, s + 1, "rule of frame %u",
				    s);
			VT_CHECK_EQ((int)(s % 2), i, "queue of frame %u", s);
		}
	}
	VT_CHECK_EQ(vt_svenv_stats(e, 1).rx_unsteered, 1, "the stray frame");
	for (i = 0; i < MANY; i++)
		VT_CHECK_EQ(ibv_destroy_flow(fl[i]), 0, "destroy %d", i);
	VT_CHECK(vt_now_s() - t0 < 5.0, "1000 rules took %.1f s",
		 vt_now_s() - t0);
	ENV_DOWN(e);
	return VT_OK;
}

/* Flows created and destroyed by a control thread while frames flow:
 * every frame ends up either on the rule's queue or on ALL_DEFAULT. */
struct churn {
	struct ibv_qp *qp;
	atomic_int stop;
	atomic_int errors;
	atomic_int rounds;
};

static void *
churn_main(void *arg)
{
	struct churn *c = arg;
	double deadline = vt_now_s() + 3.0;

	while (!atomic_load(&c->stop) && vt_now_s() < deadline &&
	       atomic_load(&c->rounds) < 20000) {
		struct ibv_flow *fl = flow_dst(c->qp, mac_a, 0, 0);

		if (fl == NULL || ibv_destroy_flow(fl) != 0)
			atomic_fetch_add(&c->errors, 1);
		atomic_fetch_add(&c->rounds, 1);
	}
	return NULL;
}

static int
test_concurrent_churn(void)
{
	struct vt_svenv *e = &E;
	struct churn c;
	struct ibv_flow *all;
	pthread_t th;
	uint8_t f[128];
	int n[NQ], i, total = 0, k;
	double deadline;

	ENV_UP(e);
	all = flow_type(e->q[1].hqp, IBV_FLOW_ATTR_ALL_DEFAULT);
	VT_CHECK(all != NULL, "create: errno %d", errno);
	c.qp = e->q[0].hqp;
	atomic_init(&c.stop, 0);
	atomic_init(&c.errors, 0);
	atomic_init(&c.rounds, 0);
	VT_CHECK_EQ(pthread_create(&th, NULL, churn_main, &c), 0, "thread");
	/* Traffic only once the control thread is busy. */
	deadline = vt_now_s() + 2.0;
	while (atomic_load(&c.rounds) == 0 && vt_now_s() < deadline)
		sched_yield();
	for (i = 0; i < 10; i++) {
		for (k = 0; k < 20; k++)
			if (send0(e, f, mk_to(f, mac_a, (uint32_t)k)) != 0)
				break;
		if (collect(e, G, n) != 0)
			break;
		total += n[0] + n[1];
	}
	atomic_store(&c.stop, 1);
	pthread_join(th, NULL);
	VT_CHECK_EQ(i, 10, "traffic rounds");
	VT_CHECK_EQ(atomic_load(&c.errors), 0, "create/destroy failures");
	VT_CHECK(atomic_load(&c.rounds) > 0, "the control thread ran");
	VT_CHECK_EQ(total, 200, "each frame delivered exactly once");
	VT_CHECK_EQ(ibv_destroy_flow(all), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_eth_dst),
	VT_CASE(test_manpage_example),
	VT_CASE(test_priority),
	VT_CASE(test_defaults),
	VT_CASE(test_sniffer),
	VT_CASE(test_dont_trap),
	VT_CASE(test_drop),
	VT_CASE(test_tag),
	VT_CASE(test_count_shared),
	VT_CASE(test_eexist),
	VT_CASE(test_invalid),
	VT_CASE(test_no_buffer),
	VT_CASE(test_csum_flag),
	VT_CASE(test_csum_flag_mlx5),
	VT_CASE(test_rss_spread),
	VT_CASE(test_egress),
	VT_CASE(test_mcast_table),
	VT_CASE(test_mcast_generic),
	VT_CASE(test_egress_mlx5),
	VT_CASE(test_flow_prios_option),
	VT_CASE(test_same_prio_masks),
	VT_CASE(test_many_rules),
	VT_CASE(test_concurrent_churn),
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
