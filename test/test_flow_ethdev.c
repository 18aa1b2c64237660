/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * In-process rte_flow tests of net_vsteer: two ports on the two ends of an
 * in-memory softverbs link. Port A sends with rte_eth_tx_burst, port B
 * receives on 4 Rx queues (default RSS over IP/UDP/TCP). Every case runs
 * on each flow engine it concerns: verbs and mlx5dv matchers on the mlx5
 * profile, egress on the generic profile. Each run ends by closing both
 * ports and checking that nothing was left behind in the device.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_flow.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_random.h>
#include <rte_tcp.h>
#include <rte_thash.h>
#include <rte_udp.h>

#include "softverbs.h"
#include "sv_internal.h"
#include "vsteer.h"
#include "vt_test.h"
#ifdef VT_RDMA_GLUE
#include "vt_rdma.h"
static char rdma_base[PATH_MAX];
#endif

#define NB_MBUF 4095
#define NQ 4 /* Rx queues of port B */
#define RETA_MAX 512
#define POLL_ROUNDS 64	    /* rounds over every queue before "nothing" */
#define POLL_EXTRA 4	    /* rounds after a hit, to catch duplicates */
#define POLL_NS 1000000000L /* and never longer than this per frame */
#define VXLAN_PORT 4789
/* User priority levels: 16 verbs priorities (mlx5) / 3 sub-priorities,
 * the last level kept for the default flows. */
#define USER_LEVELS 4
/* Driver state of one simple rule (ETH / IPV4 / QUEUE): well inside the
 * 512 bytes of driver and device state a rule may take. */
#define FLOW_BYTES_MAX 256

enum run {
	RUN_VERBS,
	RUN_DV,
	RUN_GENERIC,
	RUN_AUTO,
	RUN_NONE,
};

static const struct {
	const char *name;
	const char *args;
} runs[] = {
	[RUN_VERBS] = { "verbs", "profile=mlx5,flow_engine=verbs" },
	[RUN_DV] = { "dv", "profile=mlx5,flow_engine=dv" },
	[RUN_GENERIC] = { "generic", "profile=generic,flow_engine=verbs" },
	[RUN_AUTO] = { "auto", "profile=mlx5,flow_engine=auto" },
};

#define VDEV_A "net_vsteer_fa"
#define VDEV_B "net_vsteer_fb"

static struct rte_mempool *pool;
static enum run cur = RUN_NONE;
static unsigned int link_seq;
static char link_name[32];
static uint16_t pa, pb;
static struct rte_ether_addr mac_a, mac_b;
static uint8_t key_b[40];	  /* port B's RSS key */
static uint16_t reta_b[RETA_MAX]; /* port B's RETA */
static uint16_t reta_n;
/* Indirect actions a case made, destroyed after it whatever happened. */
static struct rte_flow_action_handle *handles[4];

static const uint8_t rss_key_custom[40] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

#define IP(a, b, c, d) \
	((uint32_t)(a) << 24 | (uint32_t)(b) << 16 | (uint32_t)(c) << 8 | (d))

/* --- frames --- */

struct pkt {
	uint32_t sip, dip; /* host order */
	uint8_t proto;	   /* IPPROTO_UDP, IPPROTO_TCP or other */
	uint16_t sport, dport;
	uint16_t len; /* frame bytes */
};

static uint16_t
l4_hlen(uint8_t proto)
{
	if (proto == IPPROTO_UDP)
		return sizeof(struct rte_udp_hdr);
	if (proto == IPPROTO_TCP)
		return sizeof(struct rte_tcp_hdr);
	return 0;
}

/* IPv4 + L4 header at p; len counts from the IPv4 header on. */
static void
put_ipv4(uint8_t *p, uint16_t len, uint32_t sip, uint32_t dip, uint8_t proto,
	 uint16_t sport, uint16_t dport)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)p;

	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(len);
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(sip);
	ip->dst_addr = rte_cpu_to_be_32(dip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (proto == IPPROTO_UDP) {
		struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);

		udp->src_port = rte_cpu_to_be_16(sport);
		udp->dst_port = rte_cpu_to_be_16(dport);
		udp->dgram_len = rte_cpu_to_be_16(len - sizeof(*ip));
		udp->dgram_cksum = 0;
	} else if (proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *tcp = (struct rte_tcp_hdr *)(ip + 1);

		memset(tcp, 0, sizeof(*tcp));
		tcp->src_port = rte_cpu_to_be_16(sport);
		tcp->dst_port = rte_cpu_to_be_16(dport);
		tcp->data_off = 0x50;
		tcp->tcp_flags = RTE_TCP_ACK_FLAG;
		tcp->rx_win = RTE_BE16(8192);
	}
}

static struct rte_mbuf *
frame(const struct pkt *k)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	uint8_t *p;
	uint16_t i, hdr;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, k->len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eth = (struct rte_ether_hdr *)p;
	eth->dst_addr = mac_b;
	eth->src_addr = mac_a;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	put_ipv4(p + sizeof(*eth), k->len - sizeof(*eth), k->sip, k->dip,
		 k->proto, k->sport, k->dport);
	hdr = sizeof(*eth) + sizeof(struct rte_ipv4_hdr) + l4_hlen(k->proto);
	for (i = hdr; i < k->len; i++)
		p[i] = (uint8_t)i;
	return m;
}

static struct pkt
udp(uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport, uint16_t len)
{
	struct pkt k = { sip, dip, IPPROTO_UDP, sport, dport, len };

	return k;
}

static struct pkt
tcp(uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport, uint16_t len)
{
	struct pkt k = { sip, dip, IPPROTO_TCP, sport, dport, len };

	return k;
}

/*
 * Outer Ethernet/IPv4/UDP(4789)/VXLAN(vni), inner Ethernet/IPv4/UDP, built
 * by hand: 92 bytes of headers, then payload up to len.
 */
static struct rte_mbuf *
vxlan_frame(uint16_t osport, uint32_t vni, uint32_t isip, uint32_t idip,
	    uint16_t len)
{
	const struct rte_ether_addr inner_dst = {
		.addr_bytes = { 0x02, 0x00, 0x00, 0x00, 0x77, 0x01 }
	};
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	uint8_t *p, *vx;
	uint16_t off, i;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eth = (struct rte_ether_hdr *)p;
	eth->dst_addr = mac_b;
	eth->src_addr = mac_a;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	off = sizeof(*eth);
	put_ipv4(p + off, len - off, IP(10, 1, 0, 1), IP(10, 1, 0, 2),
		 IPPROTO_UDP, osport, VXLAN_PORT);
	off += sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr);
	vx = p + off;
	memset(vx, 0, 8);
	vx[0] = 0x08; /* I flag: the VNI is valid */
	vx[4] = (uint8_t)(vni >> 16);
	vx[5] = (uint8_t)(vni >> 8);
	vx[6] = (uint8_t)vni;
	off += 8;
	eth = (struct rte_ether_hdr *)(p + off);
	eth->dst_addr = inner_dst;
	eth->src_addr = mac_a;
	eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	off += sizeof(*eth);
	put_ipv4(p + off, len - off, isip, idip, IPPROTO_UDP, 1111, 2222);
	off += sizeof(struct rte_ipv4_hdr) + sizeof(struct rte_udp_hdr);
	for (i = off; i < len; i++)
		p[i] = (uint8_t)i;
	return m;
}

/* --- traffic --- */

static long
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000L + ts.tv_nsec;
}

/* Rx queues port B has now (NQ but in rxq_shrink()). */
static uint16_t nq_b = NQ;

static int
send_a(struct rte_mbuf *m)
{
	int tries;

	if (m == NULL)
		return -ENOMEM;
	for (tries = 0; tries < 1000; tries++)
		if (rte_eth_tx_burst(pa, 0, &m, 1) == 1)
			return 0;
	rte_pktmbuf_free(m);
	return -EIO;
}

/*
 * Send one frame from A and see where B gets it: the queue, -1 when it
 * never arrives, -2 when more than one frame arrives. The received mbuf
 * goes to *out when out is not NULL, else it is freed.
 */
static int
xfer(struct rte_mbuf *m, struct rte_mbuf **out)
{
	struct rte_mbuf *r[8], *got = NULL;
	int found = -1, round, extra = 0, n = 0;
	long deadline;
	uint16_t q, k, i;

	if (out != NULL)
		*out = NULL;
	if (send_a(m) != 0)
		return -3;
	deadline = now_ns() + POLL_NS;
	for (round = 0; round < POLL_ROUNDS && extra < POLL_EXTRA; round++) {
		for (q = 0; q < nq_b; q++) {
			k = rte_eth_rx_burst(pb, q, r, RTE_DIM(r));
			for (i = 0; i < k; i++) {
				if (n++ == 0) {
					got = r[i];
					found = q;
				} else {
					rte_pktmbuf_free(r[i]);
				}
			}
		}
		if (found >= 0)
			extra++;
		if (now_ns() > deadline)
			break;
	}
	if (n > 1) {
		rte_pktmbuf_free(got);
		return -2;
	}
	if (got != NULL && out != NULL)
		*out = got;
	else
		rte_pktmbuf_free(got);
	return found;
}

static int
xfer_pkt(const struct pkt *k)
{
	return xfer(frame(k), NULL);
}

/* Drain every queue of both ports; returns the frames B got. */
static unsigned int
drain(void)
{
	struct rte_mbuf *m[32];
	unsigned int total = 0;
	uint16_t q, k;
	int round;

	for (round = 0; round < 8; round++) {
		for (q = 0; q < nq_b; q++) {
			k = rte_eth_rx_burst(pb, q, m, RTE_DIM(m));
			rte_pktmbuf_free_bulk(m, k);
			total += k;
		}
		k = rte_eth_rx_burst(pa, 0, m, RTE_DIM(m));
		rte_pktmbuf_free_bulk(m, k);
	}
	return total;
}

/* --- RSS predictions --- */

static uint32_t
toeplitz(const uint8_t *key, const struct pkt *k, bool l4)
{
	union rte_thash_tuple t;

	memset(&t, 0, sizeof(t));
	t.v4.src_addr = k->sip;
	t.v4.dst_addr = k->dip;
	t.v4.sport = k->sport;
	t.v4.dport = k->dport;
	return rte_softrss((uint32_t *)&t,
			   l4 ? RTE_THASH_V4_L4_LEN : RTE_THASH_V4_L3_LEN, key);
}

/* Port B's default RSS (IP, UDP, TCP): L4 frames hash 4 fields. */
static int
default_queue(const struct pkt *k)
{
	bool l4 = k->proto == IPPROTO_UDP || k->proto == IPPROTO_TCP;

	return reta_b[toeplitz(key_b, k, l4) % reta_n];
}

/*
 * Queue of an RSS action over queues[0..n-1]: vsteer_rss.c makes a table
 * of the list itself when n is a power of two, else of the list repeated
 * over the largest table (RETA_MAX entries); the low hash bits index it.
 */
static int
rss_queue(const uint8_t *key, const uint16_t *queues, uint32_t n,
	  const struct pkt *k, bool l4)
{
	uint32_t size = rte_is_power_of_2(n) ? n : RETA_MAX;
	uint32_t h = toeplitz(key, k, l4);

	return queues[(h & (size - 1)) % n];
}

/* A UDP frame to dip whose default RSS queue is not avoid. */
static struct pkt
udp_not_on(uint32_t sip, uint32_t dip, uint16_t dport, int avoid)
{
	struct pkt k = udp(sip, dip, 1000, dport, 100);

	while (default_queue(&k) == avoid)
		k.sport++;
	return k;
}

static struct pkt
tcp_not_on(uint32_t sip, uint32_t dip, uint16_t dport, int avoid)
{
	struct pkt k = tcp(sip, dip, 1000, dport, 100);

	while (default_queue(&k) == avoid)
		k.sport++;
	return k;
}

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0)
		return UINT64_MAX;
	if (rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

/* --- flow helpers --- */

static const struct rte_flow_attr attr_in = { .ingress = 1 };

#define ITEM(t, s, m)                                                    \
	{                                                                \
		.type = RTE_FLOW_ITEM_TYPE_##t, .spec = (s), .mask = (m) \
	}
#define ITEM_END                               \
	{                                      \
		.type = RTE_FLOW_ITEM_TYPE_END \
	}

static const struct rte_flow_item_ipv4 ipv4_dst_mask = {
	.hdr.dst_addr = RTE_BE32(0xffffffff)
};
static const struct rte_flow_item_ipv4 ipv4_src_mask = {
	.hdr.src_addr = RTE_BE32(0xffffffff)
};
static const struct rte_flow_item_udp udp_dport_mask = {
	.hdr.dst_port = RTE_BE16(0xffff)
};
static const struct rte_flow_item_tcp tcp_dport_mask = {
	.hdr.dst_port = RTE_BE16(0xffff)
};

/* Pattern ETH / IPV4 (dst or src when not 0) / END. */
struct pat_ip {
	struct rte_flow_item_ipv4 spec;
	struct rte_flow_item items[3];
};

static const struct rte_flow_item *
pat_ipv4(struct pat_ip *p, uint32_t src, uint32_t dst)
{
	memset(p, 0, sizeof(*p));
	p->spec.hdr.src_addr = rte_cpu_to_be_32(src);
	p->spec.hdr.dst_addr = rte_cpu_to_be_32(dst);
	p->items[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	p->items[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	p->items[1].spec = &p->spec;
	p->items[1].mask = src != 0 ? &ipv4_src_mask : &ipv4_dst_mask;
	p->items[2].type = RTE_FLOW_ITEM_TYPE_END;
	return p->items;
}

/* Pattern ETH / IPV4 / UDP or TCP (dport) / END. */
struct pat_l4 {
	struct rte_flow_item_udp udp;
	struct rte_flow_item_tcp tcp;
	struct rte_flow_item items[4];
};

static const struct rte_flow_item *
pat_l4(struct pat_l4 *p, uint8_t proto, uint16_t dport)
{
	memset(p, 0, sizeof(*p));
	p->items[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	p->items[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	if (proto == IPPROTO_UDP) {
		p->udp.hdr.dst_port = rte_cpu_to_be_16(dport);
		p->items[2].type = RTE_FLOW_ITEM_TYPE_UDP;
		p->items[2].spec = &p->udp;
		p->items[2].mask = &udp_dport_mask;
	} else {
		p->tcp.hdr.dst_port = rte_cpu_to_be_16(dport);
		p->items[2].type = RTE_FLOW_ITEM_TYPE_TCP;
		p->items[2].spec = &p->tcp;
		p->items[2].mask = &tcp_dport_mask;
	}
	p->items[3].type = RTE_FLOW_ITEM_TYPE_END;
	return p->items;
}

/* Actions: fate QUEUE q, optionally preceded by one more action. */
struct act_q {
	struct rte_flow_action_queue queue;
	struct rte_flow_action_mark mark;
	struct rte_flow_action_count count;
	struct rte_flow_action actions[3];
};

static const struct rte_flow_action *
act_queue(struct act_q *a, uint16_t q, enum rte_flow_action_type extra,
	  const void *extra_conf)
{
	unsigned int n = 0;

	memset(a, 0, sizeof(*a));
	a->queue.index = q;
	if (extra != RTE_FLOW_ACTION_TYPE_END) {
		a->actions[n].type = extra;
		if (extra == RTE_FLOW_ACTION_TYPE_COUNT)
			a->actions[n].conf = &a->count;
		else
			a->actions[n].conf = extra_conf;
		n++;
	}
	a->actions[n].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	a->actions[n].conf = &a->queue;
	a->actions[n + 1].type = RTE_FLOW_ACTION_TYPE_END;
	return a->actions;
}

static struct rte_flow *
flow_new(uint16_t port, const struct rte_flow_attr *attr,
	 const struct rte_flow_item *pattern,
	 const struct rte_flow_action *actions)
{
	struct rte_flow_error err;
	struct rte_flow *f;

	memset(&err, 0, sizeof(err));
	f = rte_flow_create(port, attr, pattern, actions, &err);
	if (f == NULL)
		fprintf(stderr, "  flow create on port %u: %s (type %d, %s)\n",
			port, err.message ? err.message : "(no message)",
			(int)err.type, rte_strerror(rte_errno));
	return f;
}

static int
count_query(uint16_t port, struct rte_flow *f, int reset,
	    struct rte_flow_query_count *qc)
{
	const struct rte_flow_action count[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;
	int ret;

	memset(qc, 0, sizeof(*qc));
	qc->reset = reset;
	ret = rte_flow_query(port, f, count, qc, &err);
	if (ret != 0)
		fprintf(stderr, "  flow query: %s\n",
			err.message ? err.message : "(no message)");
	return ret;
}

/* --- ports --- */

static int
port_up(uint16_t port, uint16_t nq, uint64_t rss_hf)
{
	struct rte_eth_conf conf;
	uint16_t q;
	int ret;

	rte_eth_dev_stop(port);
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mq_mode = rss_hf ? RTE_ETH_MQ_RX_RSS : RTE_ETH_MQ_RX_NONE;
	conf.rx_adv_conf.rss_conf.rss_hf = rss_hf;
	ret = rte_eth_dev_configure(port, nq, 1, &conf);
	if (ret != 0)
		return ret;
	if (port == pb)
		nq_b = nq;
	for (q = 0; q < nq; q++) {
		ret = rte_eth_rx_queue_setup(port, q, 128, 0, NULL, pool);
		if (ret != 0)
			return ret;
	}
	ret = rte_eth_tx_queue_setup(port, 0, 256, 0, NULL);
	if (ret != 0)
		return ret;
	return rte_eth_dev_start(port);
}

/* Key and RETA of port B, as the application can read them. */
static int
read_rss_b(void)
{
	struct rte_eth_rss_reta_entry64 conf[RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_eth_rss_conf rc;
	struct rte_eth_dev_info info;
	unsigned int i;

	if (rte_eth_dev_info_get(pb, &info) != 0 || info.reta_size == 0 ||
	    info.reta_size > RETA_MAX)
		return -1;
	reta_n = info.reta_size;
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = key_b;
	rc.rss_key_len = sizeof(key_b);
	if (rte_eth_dev_rss_hash_conf_get(pb, &rc) != 0)
		return -1;
	memset(conf, 0, sizeof(conf));
	for (i = 0; i < RTE_DIM(conf); i++)
		conf[i].mask = UINT64_MAX;
	if (rte_eth_dev_rss_reta_query(pb, conf, reta_n) != 0)
		return -1;
	for (i = 0; i < reta_n; i++)
		reta_b[i] = conf[i / RTE_ETH_RETA_GROUP_SIZE]
				    .reta[i % RTE_ETH_RETA_GROUP_SIZE];
	return 0;
}

static int
sv_device_exists(const char *name)
{
	struct ibv_device **list;
	int n = 0, i, found = 0;

	list = sv_get_device_list(&n);
	for (i = 0; list != NULL && i < n; i++)
		if (strcmp(sv_get_device_name(list[i]), name) == 0)
			found = 1;
	if (list != NULL)
		sv_free_device_list(list);
	return found;
}

static void
handles_release(void)
{
	struct rte_flow_error err;
	unsigned int i;

	for (i = 0; i < RTE_DIM(handles); i++) {
		if (handles[i] != NULL)
			rte_flow_action_handle_destroy(pb, handles[i], &err);
		handles[i] = NULL;
	}
}

static int
pair_open(enum run r)
{
	char args[128];

	snprintf(link_name, sizeof(link_name), "fl%d-%u", (int)getpid(),
		 link_seq++);
#ifdef VT_RDMA_GLUE
	/* The same devices as rdma-core devices (vt_rdma.h): the profile
	 * is the device's, the rest of the devargs the port's. */
	{
		const char *rest = strchr(runs[r].args, ',');
		char args_b[128];

		if (vt_rdma_pair(link_name, r == RUN_GENERIC, 0, 0, 0,
				 link_name, rdma_base) != 0)
			return -1;
		snprintf(args, sizeof(args), "dev=%sa%s", link_name,
			 rest != NULL ? rest : "");
		snprintf(args_b, sizeof(args_b), "dev=%sb%s", link_name,
			 rest != NULL ? rest : "");
		if (rte_vdev_init(VDEV_A, args) != 0 ||
		    rte_vdev_init(VDEV_B, args_b) != 0)
			args[0] = '\0';
	}
	if (args[0] == '\0' ||
#else
	snprintf(args, sizeof(args), "dev=mem:%s,%s", link_name, runs[r].args);
	if (rte_vdev_init(VDEV_A, args) != 0 ||
	    rte_vdev_init(VDEV_B, args) != 0 ||
#endif
	    rte_eth_dev_get_port_by_name(VDEV_A, &pa) != 0 ||
	    rte_eth_dev_get_port_by_name(VDEV_B, &pb) != 0) {
		fprintf(stderr, "  cannot probe net_vsteer with %s\n", args);
		rte_vdev_uninit(VDEV_A);
		rte_vdev_uninit(VDEV_B);
		return -1;
	}
	rte_eth_macaddr_get(pa, &mac_a);
	rte_eth_macaddr_get(pb, &mac_b);
	cur = r;
	return 0;
}

/*
 * Close both ports and check the device was left clean: the driver logs
 * at ERR level whatever it could not destroy, and the softverbs device
 * can only be removed (at close) once every object in it is gone.
 * log gets what was logged at ERR or above.
 */
static int
pair_close(char *log, size_t len)
{
	FILE *saved = rte_log_get_stream();
	char dev0[64], dev1[64], *buf = NULL;
	size_t blen = 0;
	int ret = 0;
	FILE *f;

	log[0] = '\0';
	if (cur == RUN_NONE)
		return 0;
	handles_release();
	snprintf(dev0, sizeof(dev0), "mem:%s.0", link_name);
	snprintf(dev1, sizeof(dev1), "mem:%s.1", link_name);
	f = open_memstream(&buf, &blen);
	if (f != NULL) {
		rte_log_set_level_pattern("pmd.net.vsteer*", RTE_LOG_ERR);
		rte_openlog_stream(f);
	}
	/* ethdev closes stopped ports only. */
	rte_eth_dev_stop(pa);
	rte_eth_dev_stop(pb);
	if (rte_eth_dev_close(pa) != 0)
		ret = -1;
	if (rte_eth_dev_close(pb) != 0)
		ret = -1;
	if (f != NULL) {
		fflush(f);
		rte_openlog_stream(saved);
		rte_log_set_level_pattern("pmd.net.vsteer*", RTE_LOG_NOTICE);
		fclose(f);
		snprintf(log, len, "%s", buf != NULL ? buf : "");
		free(buf);
	}
	rte_vdev_uninit(VDEV_A);
	rte_vdev_uninit(VDEV_B);
	cur = RUN_NONE;
#ifdef VT_RDMA_GLUE
	/* rdma-core devices outlive the ports: removable only if empty. */
	if (vt_rdma_pair_remove(link_name, link_name) != 0)
		ret = -1;
#endif
	if (sv_device_exists(dev0) || sv_device_exists(dev1))
		ret = -1;
	if (log[0] != '\0')
		ret = -1;
	return ret;
}

/* Ports of run r, configured afresh, no flow, nothing pending. */
static int
use_run(enum run r)
{
	char log[2048];
	struct rte_flow_error err;

	if (cur != r) {
		if (pair_close(log, sizeof(log)) != 0)
			fprintf(stderr,
				"  previous run did not close clean: %s\n",
				log);
		if (pair_open(r) != 0)
			return -1;
	}
	handles_release();
	rte_flow_flush(pa, &err);
	rte_flow_flush(pb, &err);
	rte_flow_isolate(pb, 0, &err);
	if (port_up(pa, 1, 0) != 0 ||
	    port_up(pb, NQ,
		    RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP) != 0) {
		fprintf(stderr, "  cannot start the ports\n");
		return -1;
	}
	if (rte_eth_promiscuous_disable(pb) != 0 || read_rss_b() != 0)
		return -1;
	drain();
	rte_eth_stats_reset(pa);
	rte_eth_stats_reset(pb);
	rte_eth_xstats_reset(pa);
	rte_eth_xstats_reset(pb);
	return 0;
}

/* Run fn with the driver's log at ERR level captured: any such line
 * (a leaked RSS context at stop, a failed destroy) fails the case. */
static int
in_run(enum run r, int (*fn)(void))
{
	FILE *saved = rte_log_get_stream(), *f;
	struct rte_flow_error err;
	char *buf = NULL;
	size_t len = 0;
	int ret;

	if (use_run(r) != 0)
		return VT_FAIL;
	f = open_memstream(&buf, &len);
	VT_CHECK(f != NULL, "memstream");
	rte_log_set_level_pattern("pmd.net.vsteer*", RTE_LOG_ERR);
	rte_openlog_stream(f);
	ret = fn();
	/* Whatever the outcome, the next case starts without flows. */
	handles_release();
	rte_flow_flush(pa, &err);
	rte_flow_flush(pb, &err);
	rte_eth_dev_stop(pb);
	fflush(f);
	rte_openlog_stream(saved);
	rte_log_set_level_pattern("pmd.net.vsteer*", RTE_LOG_NOTICE);
	fclose(f);
	if (ret == VT_OK && buf != NULL && strstr(buf, "vsteer_") != NULL) {
		fprintf(stderr, "  the driver logged errors:\n%s", buf);
		ret = VT_FAIL;
	}
	free(buf);
	return ret;
}

#define PER_ENGINE(fn)                        \
	static int fn##_verbs(void)           \
	{                                     \
		return in_run(RUN_VERBS, fn); \
	}                                     \
	static int fn##_dv(void)              \
	{                                     \
		return in_run(RUN_DV, fn);    \
	}

/* Also under flow_engine=auto (the default). */
#define PER_ENGINE3(fn)                      \
	PER_ENGINE(fn)                       \
	static int fn##_auto(void)           \
	{                                    \
		return in_run(RUN_AUTO, fn); \
	}

#define CHECK_OK(expr)                  \
	do {                            \
		if ((expr) != VT_OK)    \
			return VT_FAIL; \
	} while (0)

/* --- cases --- */

/* Steer by IPv4 dst, TCP dport and UDP dport; the rest follows RSS. */
static int
steer(void)
{
	const uint32_t dst = IP(192, 168, 10, 1);
	struct pat_ip pi;
	struct pat_l4 pt, pu;
	struct act_q a1, a2, a3;
	struct pkt k;
	unsigned int i;

	VT_CHECK(flow_new(pb, &attr_in, pat_ipv4(&pi, 0, dst),
			  act_queue(&a1, 3, RTE_FLOW_ACTION_TYPE_END, NULL)) !=
			 NULL,
		 "IPv4 dst flow");
	VT_CHECK(flow_new(pb, &attr_in, pat_l4(&pt, IPPROTO_TCP, 8080),
			  act_queue(&a2, 2, RTE_FLOW_ACTION_TYPE_END, NULL)) !=
			 NULL,
		 "TCP dport flow");
	VT_CHECK(flow_new(pb, &attr_in, pat_l4(&pu, IPPROTO_UDP, 5353),
			  act_queue(&a3, 1, RTE_FLOW_ACTION_TYPE_END, NULL)) !=
			 NULL,
		 "UDP dport flow");
	for (i = 0; i < 4; i++) {
		/* Each frame's default queue differs from the flow's. */
		k = udp_not_on(IP(10, 0, 0, 1 + i), dst, 9999, 3);
		VT_CHECK_EQ(xfer_pkt(&k), 3, "UDP to the IPv4 dst %u", i);
		k = tcp_not_on(IP(10, 0, 0, 1 + i), dst, 443, 3);
		VT_CHECK_EQ(xfer_pkt(&k), 3, "TCP to the IPv4 dst %u", i);
		k = tcp_not_on(IP(10, 0, 1, 1 + i), IP(10, 0, 2, 2), 8080, 2);
		VT_CHECK_EQ(xfer_pkt(&k), 2, "TCP dport 8080 %u", i);
		k = udp_not_on(IP(10, 0, 1, 1 + i), IP(10, 0, 2, 2), 5353, 1);
		VT_CHECK_EQ(xfer_pkt(&k), 1, "UDP dport 5353 %u", i);
	}
	/* Same port numbers under the other L4 protocol: not matched. */
	k = udp_not_on(IP(10, 0, 1, 9), IP(10, 0, 2, 2), 8080, 2);
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "UDP dport 8080");
	k = tcp_not_on(IP(10, 0, 1, 9), IP(10, 0, 2, 2), 5353, 1);
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "TCP dport 5353");
	/* Everything else: default RSS, on the predicted queue. */
	rte_srand(7);
	for (i = 0; i < 24; i++) {
		k = udp(IP(10, 3, 0, 0) + (uint32_t)(rte_rand() & 0xffff),
			IP(10, 4, 0, 0) + (uint32_t)(rte_rand() & 0xffff),
			(uint16_t)rte_rand(), (uint16_t)(10000 + i), 80);
		if (i & 1)
			k.proto = IPPROTO_TCP;
		VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k),
			    "default traffic %u", i);
	}
	VT_CHECK_EQ(drain(), 0, "extra frames");
	return VT_OK;
}
PER_ENGINE(steer)

/* RSS action over a queue subset, each frame on its Toeplitz queue. */
static int
rss_subset(void)
{
	static const uint16_t q2[] = { 1, 3 };
	static const uint16_t q3[] = { 0, 2, 3 };
	struct rte_flow_action_rss rss = {
		.func = RTE_ETH_HASH_FUNCTION_TOEPLITZ,
		.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP,
		.key_len = sizeof(rss_key_custom),
		.key = rss_key_custom,
		.queue_num = RTE_DIM(q2),
		.queue = q2,
	};
	const struct rte_flow_item pat_udp[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item pat_ip[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	unsigned int per_q[NQ] = { 0 }, i;
	struct rte_flow *f;
	struct rte_flow_error err;
	struct pkt k;
	int q;

	f = flow_new(pb, &attr_in, pat_udp, actions);
	VT_CHECK(f != NULL, "RSS flow over queues 1, 3");
	rte_srand(11);
	for (i = 0; i < 48; i++) {
		k = udp(IP(10, 0, 0, 0) + (uint32_t)(rte_rand() & 0xffffff),
			IP(172, 16, 0, 0) + (uint32_t)(rte_rand() & 0xffff),
			(uint16_t)rte_rand(), (uint16_t)rte_rand(), 90);
		q = xfer_pkt(&k);
		VT_CHECK_EQ(q, rss_queue(rss_key_custom, q2, 2, &k, true),
			    "UDP frame %u (%08x:%u > %08x:%u)", i, k.sip,
			    k.sport, k.dip, k.dport);
		per_q[q]++;
	}
	VT_CHECK(per_q[1] > 0 && per_q[3] > 0 && per_q[0] + per_q[2] == 0,
		 "spread %u %u %u %u", per_q[0], per_q[1], per_q[2], per_q[3]);
	/* TCP is not matched: default RSS. */
	for (i = 0; i < 8; i++) {
		k = tcp(IP(10, 9, 0, i), IP(10, 8, 0, 1), (uint16_t)(4000 + i),
			80, 80);
		VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "TCP %u", i);
	}
	VT_CHECK_EQ(rte_flow_destroy(pb, f, &err), 0, "destroy");

	/* Three queues (the list repeated over the table), L3 hashing with
	 * the port's key (key_len 0). */
	rss.types = RTE_ETH_RSS_IPV4;
	rss.key_len = 0;
	rss.key = NULL;
	rss.queue_num = RTE_DIM(q3);
	rss.queue = q3;
	f = flow_new(pb, &attr_in, pat_ip, actions);
	VT_CHECK(f != NULL, "RSS flow over queues 0, 2, 3");
	memset(per_q, 0, sizeof(per_q));
	rte_srand(12);
	for (i = 0; i < 48; i++) {
		k = udp(IP(10, 0, 0, 0) + (uint32_t)(rte_rand() & 0xffffff),
			IP(172, 16, 0, 0) + (uint32_t)(rte_rand() & 0xffff),
			(uint16_t)rte_rand(), (uint16_t)rte_rand(), 90);
		if (i & 1)
			k.proto = IPPROTO_TCP;
		q = xfer_pkt(&k);
		VT_CHECK_EQ(q, rss_queue(key_b, q3, 3, &k, false),
			    "frame %u (%08x > %08x)", i, k.sip, k.dip);
		per_q[q]++;
	}
	VT_CHECK(per_q[1] == 0 && per_q[0] > 0 && per_q[2] > 0 && per_q[3] > 0,
		 "spread %u %u %u %u", per_q[0], per_q[1], per_q[2], per_q[3]);
	VT_CHECK_EQ(drain(), 0, "extra frames");
	return VT_OK;
}
PER_ENGINE(rss_subset)

/*
 * An RSS action on ETH / IPV4 with IPv4, UDP and TCP types: each engine
 * expands it into one device rule per L4 protocol plus the L3 one (verbs
 * rules, or matcher entries each to the hash QP of its type), and every
 * frame lands on the queue rte_softrss predicts for its protocol.
 */
static int
rss_expand(void)
{
	static const uint16_t qs[] = { 1, 2 };
	const struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP |
			 RTE_ETH_RSS_NONFRAG_IPV4_TCP,
		.key_len = sizeof(rss_key_custom),
		.key = rss_key_custom,
		.queue_num = RTE_DIM(qs),
		.queue = qs,
	};
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;
	struct rte_flow *f;
	unsigned int i, per_q[NQ] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	struct pkt k;
	FILE *fp;
	int ret, q;

	memset(&err, 0, sizeof(err));
	ret = rte_flow_validate(pb, &attr_in, pat, actions, &err);
	VT_CHECK_EQ(ret, 0, "validate: %s", err.message ? err.message : "");
	f = flow_new(pb, &attr_in, pat, actions);
	VT_CHECK(f != NULL, "create");
	fp = open_memstream(&buf, &len);
	VT_CHECK(fp != NULL, "memstream");
	ret = rte_flow_dev_dump(pb, f, fp, &err);
	fclose(fp);
	VT_CHECK(ret == 0 && buf != NULL &&
			 strstr(buf, cur == RUN_DV ?
					     "matcher entry 3 of 3" :
					     "verbs rule 3 of 3") != NULL,
		 "not 3 device rules:\n%s", buf ? buf : "");
	free(buf);
	rte_srand(13);
	for (i = 0; i < 48; i++) {
		k = udp(IP(10, 0, 0, 0) + (uint32_t)(rte_rand() & 0xffffff),
			IP(172, 16, 0, 0) + (uint32_t)(rte_rand() & 0xffff),
			(uint16_t)rte_rand(), (uint16_t)rte_rand(), 90);
		k.proto = i % 3 == 0 ? IPPROTO_UDP :
			  i % 3 == 1 ? IPPROTO_TCP :
				       IPPROTO_ICMP;
		q = xfer_pkt(&k);
		VT_CHECK_EQ(q,
			    rss_queue(rss_key_custom, qs, 2, &k,
				      k.proto != IPPROTO_ICMP),
			    "frame %u, protocol %u", i, k.proto);
		per_q[q]++;
	}
	VT_CHECK(per_q[1] > 0 && per_q[2] > 0, "spread %u %u", per_q[1],
		 per_q[2]);
	return VT_OK;
}
PER_ENGINE(rss_expand)

/* DROP by source address; stats and xstats account for every frame. */
static int
drop_src(void)
{
	const uint32_t bad = IP(10, 66, 6, 6);
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_eth_stats sa, sb;
	struct pat_ip pi;
	uint64_t good_bytes = 0;
	unsigned int i, good = 0, dropped = 0;
	struct pkt k;

	VT_CHECK(flow_new(pb, &attr_in, pat_ipv4(&pi, bad, 0), actions) != NULL,
		 "DROP flow");
	for (i = 0; i < 12; i++) {
		bool is_bad = i % 3 == 0;

		k = udp(is_bad ? bad : IP(10, 66, 6, 7 + i), IP(10, 1, 1, 1),
			(uint16_t)(2000 + i), 53, (uint16_t)(70 + 10 * i));
		if (i % 2)
			k.proto = IPPROTO_TCP;
		if (is_bad) {
			VT_CHECK_EQ(xfer_pkt(&k), -1,
				    "frame %u from the dropped source arrived",
				    i);
			dropped++;
		} else {
			VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "frame %u",
				    i);
			good++;
			good_bytes += k.len;
		}
	}
	VT_CHECK_EQ(rte_eth_stats_get(pb, &sb), 0, "stats B");
	VT_CHECK_EQ(rte_eth_stats_get(pa, &sa), 0, "stats A");
	VT_CHECK_EQ(sa.opackets, good + dropped, "A sent every frame");
	VT_CHECK_EQ(sb.ipackets, good, "B ipackets");
	VT_CHECK_EQ(sb.ibytes, good_bytes, "B ibytes");
	VT_CHECK_EQ(sb.ierrors, 0, "a rule drop is no receive error");
	VT_CHECK_EQ(sb.imissed, 0, "a rule drop is no missed frame");
	VT_CHECK_EQ(xstat(pb, "rx_rule_drop_packets"), dropped,
		    "dropped by the rule");
	VT_CHECK_EQ(xstat(pb, "rx_wire_packets"), good + dropped,
		    "frames off the wire");
	VT_CHECK_EQ(xstat(pb, "rx_unsteered_packets"), 0, "unsteered");
	VT_CHECK_EQ(xstat(pb, "rx_no_buffer_packets"), 0, "no buffer");
	return VT_OK;
}
PER_ENGINE(drop_src)

/* MARK id with QUEUE sets the FDIR id; FLAG only the FDIR flag. */
static int
mark_flag(void)
{
	const uint32_t d_mark = IP(10, 7, 0, 42), d_flag = IP(10, 7, 0, 43);
	const uint32_t d_zero = IP(10, 7, 0, 44);
	const struct rte_flow_action_mark m42 = { .id = 42 }, m0 = { .id = 0 };
	struct pat_ip p1, p2, p3;
	struct act_q a1, a2, a3;
	struct rte_mbuf *r;
	struct pkt k;
	int q;

	VT_CHECK(flow_new(pb, &attr_in, pat_ipv4(&p1, 0, d_mark),
			  act_queue(&a1, 2, RTE_FLOW_ACTION_TYPE_MARK, &m42)) !=
			 NULL,
		 "MARK 42 flow");
	VT_CHECK(flow_new(pb, &attr_in, pat_ipv4(&p2, 0, d_flag),
			  act_queue(&a2, 1, RTE_FLOW_ACTION_TYPE_FLAG, NULL)) !=
			 NULL,
		 "FLAG flow");
	VT_CHECK(flow_new(pb, &attr_in, pat_ipv4(&p3, 0, d_zero),
			  act_queue(&a3, 3, RTE_FLOW_ACTION_TYPE_MARK, &m0)) !=
			 NULL,
		 "MARK 0 flow");

	k = udp_not_on(IP(10, 0, 0, 1), d_mark, 1, 2);
	q = xfer(frame(&k), &r);
	VT_CHECK_EQ(q, 2, "MARK frame queue");
	VT_CHECK_EQ(r->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID),
		    RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID,
		    "MARK: ol_flags 0x%" PRIx64, r->ol_flags);
	VT_CHECK_EQ(r->hash.fdir.hi, 42, "MARK id");
	rte_pktmbuf_free(r);

	k = udp_not_on(IP(10, 0, 0, 1), d_flag, 1, 1);
	q = xfer(frame(&k), &r);
	VT_CHECK_EQ(q, 1, "FLAG frame queue");
	VT_CHECK(r->ol_flags & RTE_MBUF_F_RX_FDIR, "FLAG: no FDIR flag");
	VT_CHECK((r->ol_flags & RTE_MBUF_F_RX_FDIR_ID) == 0,
		 "FLAG: FDIR_ID set (hi %u)", r->hash.fdir.hi);
	rte_pktmbuf_free(r);

	/* Id 0 is a valid mark, distinct from no mark. */
	k = udp_not_on(IP(10, 0, 0, 1), d_zero, 1, 3);
	q = xfer(frame(&k), &r);
	VT_CHECK_EQ(q, 3, "MARK 0 frame queue");
	VT_CHECK_EQ(r->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID),
		    RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID,
		    "MARK 0: ol_flags 0x%" PRIx64, r->ol_flags);
	VT_CHECK_EQ(r->hash.fdir.hi, 0, "MARK id 0");
	rte_pktmbuf_free(r);

	/* Unmatched frames carry no FDIR flag. */
	k = udp(IP(10, 0, 0, 1), IP(10, 7, 0, 45), 1, 1, 100);
	q = xfer(frame(&k), &r);
	VT_CHECK_EQ(q, default_queue(&k), "unmatched frame");
	VT_CHECK((r->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID)) ==
			 0,
		 "unmatched frame flagged: 0x%" PRIx64, r->ol_flags);
	rte_pktmbuf_free(r);
	return VT_OK;
}
PER_ENGINE(mark_flag)

/* COUNT: hits and frame bytes, query with reset, no COUNT no query. */
static int
count(void)
{
	const uint32_t dst = IP(10, 8, 0, 1);
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *fc, *fn;
	struct pat_ip p1, p2;
	struct act_q a1, a2;
	uint64_t bytes = 0;
	unsigned int i;
	struct pkt k;
	const struct rte_flow_action count_act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

	fc = flow_new(pb, &attr_in, pat_ipv4(&p1, 0, dst),
		      act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_COUNT, NULL));
	VT_CHECK(fc != NULL, "COUNT flow");
	fn = flow_new(pb, &attr_in, pat_ipv4(&p2, 0, IP(10, 8, 0, 2)),
		      act_queue(&a2, 2, RTE_FLOW_ACTION_TYPE_END, NULL));
	VT_CHECK(fn != NULL, "flow without COUNT");
	VT_CHECK_EQ(count_query(pb, fc, 0, &qc), 0, "query");
	VT_CHECK(qc.hits_set && qc.bytes_set, "hits/bytes not set");
	VT_CHECK_EQ(qc.hits, 0, "fresh counter hits");
	VT_CHECK_EQ(qc.bytes, 0, "fresh counter bytes");
	for (i = 0; i < 10; i++) {
		k = udp(IP(10, 0, 0, 1), dst, (uint16_t)i, 7,
			(uint16_t)(60 + 37 * i));
		VT_CHECK_EQ(xfer_pkt(&k), 1, "counted frame %u", i);
		bytes += k.len;
		/* Not counted: the other flow and default traffic. */
		k.dip = IP(10, 8, 0, 2);
		VT_CHECK_EQ(xfer_pkt(&k), 2, "other flow %u", i);
		k.dip = IP(10, 8, 0, 3);
		VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "default %u", i);
	}
	VT_CHECK_EQ(count_query(pb, fc, 0, &qc), 0, "query");
	VT_CHECK_EQ(qc.hits, 10, "hits");
	VT_CHECK_EQ(qc.bytes, bytes, "bytes: the frame lengths");
	/* A read does not reset. */
	VT_CHECK_EQ(count_query(pb, fc, 1, &qc), 0, "query with reset");
	VT_CHECK_EQ(qc.hits, 10, "hits before the reset");
	VT_CHECK_EQ(qc.bytes, bytes, "bytes before the reset");
	VT_CHECK_EQ(count_query(pb, fc, 0, &qc), 0, "query after reset");
	VT_CHECK_EQ(qc.hits, 0, "hits after reset");
	VT_CHECK_EQ(qc.bytes, 0, "bytes after reset");
	k = udp(IP(10, 0, 0, 1), dst, 1, 7, 200);
	VT_CHECK_EQ(xfer_pkt(&k), 1, "one more");
	k.len = 300;
	VT_CHECK_EQ(xfer_pkt(&k), 1, "one more");
	VT_CHECK_EQ(count_query(pb, fc, 0, &qc), 0, "query");
	VT_CHECK_EQ(qc.hits, 2, "hits after reset and 2 frames");
	VT_CHECK_EQ(qc.bytes, 500, "bytes after reset and 2 frames");

	/* No COUNT on the flow: an error, never a silent zero. */
	memset(&qc, 0, sizeof(qc));
	memset(&err, 0, sizeof(err));
	VT_CHECK(rte_flow_query(pb, fn, count_act, &qc, &err) < 0,
		 "query of a flow without COUNT succeeded (hits %" PRIu64 ")",
		 qc.hits);
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ACTION, "error type");
	VT_CHECK(!qc.hits_set && !qc.bytes_set, "failed query set values");
	VT_CHECK_EQ(rte_flow_destroy(pb, fc, &err), 0, "destroy");
	VT_CHECK_EQ(rte_flow_destroy(pb, fn, &err), 0, "destroy");
	return VT_OK;
}
PER_ENGINE(count)

/* One indirect COUNT shared by two flows. */
static int
count_shared(void)
{
	const struct rte_flow_indir_action_conf conf = { .ingress = 1 };
	const struct rte_flow_action_count cnt = { .id = 0 };
	const struct rte_flow_action count_action = {
		.type = RTE_FLOW_ACTION_TYPE_COUNT, .conf = &cnt
	};
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *f1, *f2, *f3;
	struct pat_ip p1, p2, p3;
	struct act_q a1, a2, a3;
	struct rte_flow_action_handle *h;
	uint64_t bytes = 0;
	unsigned int i;
	struct pkt k;
	int ret;

	memset(&err, 0, sizeof(err));
	h = rte_flow_action_handle_create(pb, &conf, &count_action, &err);
	VT_CHECK(h != NULL, "indirect COUNT: %s",
		 err.message ? err.message : "");
	handles[0] = h;
	f1 = flow_new(pb, &attr_in, pat_ipv4(&p1, 0, IP(10, 9, 0, 1)),
		      act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_INDIRECT, h));
	f2 = flow_new(pb, &attr_in, pat_ipv4(&p2, 0, IP(10, 9, 0, 2)),
		      act_queue(&a2, 3, RTE_FLOW_ACTION_TYPE_INDIRECT, h));
	VT_CHECK(f1 != NULL && f2 != NULL, "two flows on the handle");
	for (i = 0; i < 6; i++) {
		k = udp(IP(10, 0, 0, 1), IP(10, 9, 0, 1 + i % 2), (uint16_t)i,
			9, (uint16_t)(64 + 100 * i));
		VT_CHECK_EQ(xfer_pkt(&k), i % 2 ? 3 : 1, "frame %u", i);
		bytes += k.len;
	}
	k = udp(IP(10, 0, 0, 1), IP(10, 9, 0, 3), 1, 9, 100);
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "unmatched frame");
	memset(&qc, 0, sizeof(qc));
	VT_CHECK_EQ(rte_flow_action_handle_query(pb, h, &qc, &err), 0,
		    "handle query: %s", err.message ? err.message : "");
	VT_CHECK_EQ(qc.hits, 6, "hits of both flows");
	VT_CHECK_EQ(qc.bytes, bytes, "bytes of both flows");
	/* A flow query of a user of the handle reads the same counter. */
	VT_CHECK_EQ(count_query(pb, f1, 0, &qc), 0, "flow query");
	VT_CHECK_EQ(qc.hits, 6, "flow query reads the shared counter");

	memset(&err, 0, sizeof(err));
	ret = rte_flow_action_handle_destroy(pb, h, &err);
	VT_CHECK_EQ(ret, -EBUSY, "destroy while used");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_HANDLE, "error type");
	VT_CHECK_EQ(rte_flow_destroy(pb, f1, &err), 0, "destroy flow 1");
	ret = rte_flow_action_handle_destroy(pb, h, &err);
	VT_CHECK_EQ(ret, -EBUSY, "destroy while still used by one flow");
	/* Counts of the remaining flow keep adding up. */
	k = udp(IP(10, 0, 0, 1), IP(10, 9, 0, 2), 1, 9, 100);
	VT_CHECK_EQ(xfer_pkt(&k), 3, "frame to flow 2");
	memset(&qc, 0, sizeof(qc));
	VT_CHECK_EQ(rte_flow_action_handle_query(pb, h, &qc, &err), 0,
		    "handle query");
	VT_CHECK_EQ(qc.hits, 7, "hits");
	VT_CHECK_EQ(qc.bytes, bytes + 100, "bytes");
	/* A third flow joins a used handle. */
	f3 = flow_new(pb, &attr_in, pat_ipv4(&p3, 0, IP(10, 9, 0, 4)),
		      act_queue(&a3, 0, RTE_FLOW_ACTION_TYPE_INDIRECT, h));
	VT_CHECK(f3 != NULL, "third flow");
	k = udp(IP(10, 0, 0, 1), IP(10, 9, 0, 4), 1, 9, 80);
	VT_CHECK_EQ(xfer_pkt(&k), 0, "frame to flow 3");
	VT_CHECK_EQ(rte_flow_action_handle_query(pb, h, &qc, &err), 0,
		    "handle query");
	VT_CHECK_EQ(qc.hits, 8, "hits");
	VT_CHECK_EQ(rte_flow_destroy(pb, f2, &err), 0, "destroy flow 2");
	VT_CHECK_EQ(rte_flow_destroy(pb, f3, &err), 0, "destroy flow 3");
	/* No flow left: the handle still answers, and resets. */
	memset(&qc, 0, sizeof(qc));
	VT_CHECK_EQ(rte_flow_action_handle_query(pb, h, &qc, &err), 0,
		    "handle query, no flow left: %s",
		    err.message ? err.message : "");
	VT_CHECK_EQ(qc.hits, 8, "hits kept");
	VT_CHECK_EQ(qc.bytes, bytes + 180, "bytes kept");
	qc.reset = 1;
	VT_CHECK_EQ(rte_flow_action_handle_query(pb, h, &qc, &err), 0,
		    "query with reset, no flow left");
	VT_CHECK_EQ(qc.hits, 8, "hits before the reset");
	memset(&qc, 0, sizeof(qc));
	VT_CHECK_EQ(rte_flow_action_handle_query(pb, h, &qc, &err), 0,
		    "query after the reset");
	VT_CHECK_EQ(qc.hits, 0, "hits after the reset");
	/* A flow uses it again: it counts on from the reset. */
	f3 = flow_new(pb, &attr_in, pat_ipv4(&p3, 0, IP(10, 9, 0, 4)),
		      act_queue(&a3, 0, RTE_FLOW_ACTION_TYPE_INDIRECT, h));
	VT_CHECK(f3 != NULL, "a flow on the handle again");
	VT_CHECK_EQ(xfer_pkt(&k), 0, "frame to the new flow");
	memset(&qc, 0, sizeof(qc));
	VT_CHECK_EQ(rte_flow_action_handle_query(pb, h, &qc, &err), 0,
		    "handle query");
	VT_CHECK_EQ(qc.hits, 1, "hits since the reset");
	VT_CHECK_EQ(qc.bytes, 80, "bytes since the reset");
	VT_CHECK_EQ(rte_flow_destroy(pb, f3, &err), 0, "destroy flow 3");
	VT_CHECK_EQ(rte_flow_action_handle_destroy(pb, h, &err), 0,
		    "destroy when unused");
	handles[0] = NULL;
	/* A flow naming a destroyed handle is refused. */
	memset(&err, 0, sizeof(err));
	VT_CHECK(rte_flow_create(pb, &attr_in,
				 pat_ipv4(&p1, 0, IP(10, 9, 0, 1)),
				 act_queue(&a1, 1,
					   RTE_FLOW_ACTION_TYPE_INDIRECT, h),
				 &err) == NULL,
		 "flow on a destroyed handle");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ACTION_CONF, "error type");
	return VT_OK;
}
PER_ENGINE(count_shared)

/* --- indirect RSS --- */

/* Frames to dst (UDP, or TCP when tcp), each where RSS over queues[0..n-1]
 * with key puts it: l4 hashes the ports too, none (0 types the frame's
 * protocol) sends it to queues[0]. */
static int
indirect_rss_check(const char *what, uint32_t dst, bool tcp, const uint8_t *key,
		   const uint16_t *queues, uint32_t n, int hashed, bool l4)
{
	unsigned int per_q[NQ] = { 0 }, i, used = 0;
	struct pkt k;
	int q, want;

	for (i = 0; i < 32; i++) {
		k = udp(IP(10, 5, 0, 0) + (uint32_t)(rte_rand() & 0xffff), dst,
			(uint16_t)rte_rand(), (uint16_t)(2000 + i), 90);
		if (tcp)
			k.proto = IPPROTO_TCP;
		want = hashed ? rss_queue(key, queues, n, &k, l4) : queues[0];
		q = xfer_pkt(&k);
		VT_CHECK_EQ(q, want, "%s: frame %u", what, i);
		per_q[q]++;
	}
	for (i = 0; i < NQ; i++)
		used += per_q[i] != 0;
	VT_CHECK(!hashed || used > 1, "%s: one queue only", what);
	return VT_OK;
}

/*
 * An indirect RSS action shared by two rules, updated under them: new
 * queues, new types, a new key, each followed by every frame of both
 * rules on the queue the Toeplitz hash picks with the new settings, the
 * rules the same (handles, counters). What it cannot take is refused and
 * changes nothing.
 */
static int
indirect_rss(void)
{
	static const uint16_t q12[] = { 1, 2 };
	static const uint16_t q03[] = { 0, 3 };
	static const uint16_t q023[] = { 0, 2, 3 };
	const uint32_t dst[2] = { IP(10, 6, 0, 1), IP(10, 6, 0, 2) };
	struct rte_flow_action_rss rss = {
		.func = RTE_ETH_HASH_FUNCTION_TOEPLITZ,
		.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP,
		.key_len = sizeof(rss_key_custom),
		.key = rss_key_custom,
		.queue_num = RTE_DIM(q12),
		.queue = q12,
	};
	struct rte_flow_action rss_act = { .type = RTE_FLOW_ACTION_TYPE_RSS,
					   .conf = &rss };
	const struct rte_flow_indir_action_conf ic = { .ingress = 1 };
	struct rte_flow_action acts[3];
	struct rte_flow_action_handle *h, *hc;
	const struct rte_flow_action count_act = {
		.type = RTE_FLOW_ACTION_TYPE_COUNT
	};
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *f[2];
	struct pat_ip p[2];
	uint8_t key2[40];
	unsigned int i;

	rte_srand(21);
	h = rte_flow_action_handle_create(pb, &ic, &rss_act, &err);
	VT_CHECK(h != NULL, "indirect RSS: %s", err.message ? err.message : "");
	memset(acts, 0, sizeof(acts));
	acts[0].type = RTE_FLOW_ACTION_TYPE_INDIRECT;
	acts[0].conf = h;
	acts[1].type = RTE_FLOW_ACTION_TYPE_COUNT;
	acts[2].type = RTE_FLOW_ACTION_TYPE_END;
	for (i = 0; i < 2; i++) {
		f[i] = flow_new(pb, &attr_in, pat_ipv4(&p[i], 0, dst[i]), acts);
		VT_CHECK(f[i] != NULL, "rule %u with the indirect RSS", i);
	}
	for (i = 0; i < 2; i++) {
		CHECK_OK(indirect_rss_check("queues 1 2", dst[i], false,
					    rss_key_custom, q12, 2, 1, true));
		/* TCP is no type of the action: the first queue. */
		CHECK_OK(indirect_rss_check("TCP, UDP types", dst[i], true,
					    rss_key_custom, q12, 2, 0, false));
	}
	/* New queues: the rules follow. */
	rss.queue = q03;
	VT_CHECK_EQ(rte_flow_action_handle_update(pb, h, &rss_act, &err), 0,
		    "update queues: %s", err.message ? err.message : "");
	for (i = 0; i < 2; i++)
		CHECK_OK(indirect_rss_check("queues 0 3", dst[i], false,
					    rss_key_custom, q03, 2, 1, true));
	/* New types, three queues: IPv4 addresses only, TCP too. */
	rss.types = RTE_ETH_RSS_IPV4;
	rss.queue = q023;
	rss.queue_num = RTE_DIM(q023);
	VT_CHECK_EQ(rte_flow_action_handle_update(pb, h, &rss_act, &err), 0,
		    "update types: %s", err.message ? err.message : "");
	for (i = 0; i < 2; i++) {
		CHECK_OK(indirect_rss_check("types ipv4", dst[i], false,
					    rss_key_custom, q023, 3, 1, false));
		CHECK_OK(indirect_rss_check("types ipv4, TCP", dst[i], true,
					    rss_key_custom, q023, 3, 1, false));
	}
	/* Back to UDP with ports, another key. */
	for (i = 0; i < sizeof(key2); i++)
		key2[i] = (uint8_t)(0x3c + 7 * i);
	rss.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	rss.key = key2;
	VT_CHECK_EQ(rte_flow_action_handle_update(pb, h, &rss_act, &err), 0,
		    "update key: %s", err.message ? err.message : "");
	for (i = 0; i < 2; i++)
		CHECK_OK(indirect_rss_check("new key", dst[i], false, key2,
					    q023, 3, 1, true));
	/* The same rules: their counters counted all of it. */
	VT_CHECK_EQ(count_query(pb, f[0], 0, &qc), 0, "count");
	VT_CHECK_EQ(qc.hits, 32 * 6, "rule 0's hits");
	/* Refused, nothing changed: a queue beyond the port's, another
	 * level, a COUNT update, a query, a destroy while used. */
	rss.queue = (const uint16_t[]){ 0, 9 };
	rss.queue_num = 2;
	VT_CHECK_EQ(rte_flow_action_handle_update(pb, h, &rss_act, &err),
		    -EINVAL, "queue 9");
	VT_CHECK(err.cause == &rss_act, "cause: the update's action");
	rss.queue = q023;
	rss.queue_num = 3;
	rss.level = 2;
	VT_CHECK(rte_flow_action_handle_update(pb, h, &rss_act, &err) < 0,
		 "level 2");
	rss.level = 0;
	for (i = 0; i < 2; i++)
		CHECK_OK(indirect_rss_check("after refusals", dst[i], false,
					    key2, q023, 3, 1, true));
	VT_CHECK_EQ(rte_flow_action_handle_query(pb, h, &qc, &err), -ENOTSUP,
		    "query of an RSS action");
	VT_CHECK_EQ(rte_flow_action_handle_destroy(pb, h, &err), -EBUSY,
		    "destroy while used");
	hc = rte_flow_action_handle_create(pb, &ic, &count_act, &err);
	VT_CHECK(hc != NULL, "indirect COUNT");
	VT_CHECK_EQ(rte_flow_action_handle_update(pb, hc, &rss_act, &err),
		    -ENOTSUP, "update of a COUNT");
	VT_CHECK_EQ(rte_flow_action_handle_destroy(pb, hc, &err), 0,
		    "destroy the COUNT");
	/* Kept across stop/start with what the last update said. */
	VT_CHECK_EQ(rte_eth_dev_stop(pb), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_start(pb), 0, "start");
	CHECK_OK(indirect_rss_check("after a restart", dst[1], false, key2,
				    q023, 3, 1, true));
	for (i = 0; i < 2; i++)
		VT_CHECK_EQ(rte_flow_destroy(pb, f[i], &err), 0, "destroy");
	VT_CHECK_EQ(rte_flow_action_handle_destroy(pb, h, &err), 0,
		    "destroy the RSS action");
	VT_CHECK_EQ(drain(), 0, "extra frames");
	return VT_OK;
}
PER_ENGINE(indirect_rss)

/* --- aging --- */

static atomic_uint aged_events;

static int
aged_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	RTE_SET_USED(port);
	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (type == RTE_ETH_EVENT_FLOW_AGED)
		atomic_fetch_add(&aged_events, 1);
	return 0;
}

static int
age_query(struct rte_flow *f, struct rte_flow_query_age *q)
{
	const struct rte_flow_action age[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_AGE },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;

	memset(q, 0, sizeof(*q));
	return rte_flow_query(pb, f, age, q, &err);
}

static bool
age_is_aged(struct rte_flow *f)
{
	struct rte_flow_query_age q;

	return age_query(f, &q) == 0 && q.aged;
}

/* A frame to each of the n destinations (dst[i] steered to queue[i]),
 * every 200 ms for ms, or until watch aged. */
static int
age_traffic(const uint32_t *dst, const int *queue, unsigned int n,
	    unsigned int ms, struct rte_flow *watch)
{
	unsigned int t, i;
	struct pkt k;

	for (t = 0; t < ms; t += 200) {
		for (i = 0; i < n; i++) {
			k = udp(IP(10, 0, 0, 1), dst[i], 1000, 7, 80);
			if (xfer_pkt(&k) != queue[i]) {
				fprintf(stderr, "  frame to flow %u lost\n", i);
				return -1;
			}
		}
		if (watch != NULL && age_is_aged(watch))
			return 0;
		rte_delay_us_sleep(200 * 1000);
	}
	return 0;
}

/* Until cond holds, for at most 6 s (the check runs every second). */
#define AGE_WAIT(cond)                                  \
	do {                                            \
		unsigned int w_;                        \
		for (w_ = 0; w_ < 60 && !(cond); w_++)  \
			rte_delay_us_sleep(100 * 1000); \
	} while (0)

/*
 * AGE as DPDK's mlx5 ages its root table's rules: a flow that sees no hit
 * for more than its timeout (seconds, counters read each second) is
 * reported by rte_flow_get_aged_flows() with its context (the flow
 * handle when none was given), in the order flows aged, and announced by
 * RTE_ETH_EVENT_FLOW_AGED, once until the application reads them; a flow
 * that is hit does not age, and a destroyed flow leaves the report.
 */
static int
aging_body(void)
{
	static int ctx_a;
	const uint32_t dst[] = { IP(10, 9, 0, 1), IP(10, 9, 0, 2),
				 IP(10, 9, 0, 3), IP(10, 9, 0, 4) };
	const int queue[] = { 1, 2, 3, 1 };
	struct rte_flow_action_age age1 = { .timeout = 1, .context = &ctx_a };
	struct rte_flow_action_age age1n = { .timeout = 1 };
	struct rte_flow_action_age age60 = { .timeout = 60 };
	struct rte_flow *fa, *fb, *fc, *fd;
	struct rte_flow_query_count qc;
	struct rte_flow_query_age q;
	struct rte_flow_error err;
	struct pat_ip p[4];
	struct act_q a[4];
	void *ctx[4];

	fa = flow_new(pb, &attr_in, pat_ipv4(&p[0], 0, dst[0]),
		      act_queue(&a[0], 1, RTE_FLOW_ACTION_TYPE_AGE, &age1));
	/* With COUNT as well: one counter for both. */
	fb = flow_new(pb, &attr_in, pat_ipv4(&p[1], 0, dst[1]),
		      act_queue(&a[1], 2, RTE_FLOW_ACTION_TYPE_AGE, &age1n));
	fc = flow_new(pb, &attr_in, pat_ipv4(&p[2], 0, dst[2]),
		      act_queue(&a[2], 3, RTE_FLOW_ACTION_TYPE_AGE, &age60));
	VT_CHECK(fa != NULL && fb != NULL && fc != NULL, "AGE flows");
	/* Hit every 200 ms: none ages. */
	if (age_traffic(dst, queue, 2, 2600, NULL) != 0)
		return VT_FAIL;
	VT_CHECK(!age_is_aged(fa) && !age_is_aged(fb),
		 "a flow hit every 200 ms aged");
	VT_CHECK(age_query(fa, &q) == 0 && q.sec_since_last_hit_valid &&
			 q.sec_since_last_hit <= 1,
		 "%u s since the last hit", q.sec_since_last_hit);
	VT_CHECK(rte_flow_get_aged_flows(pb, NULL, 0, &err) == 0,
		 "aged flows while hit");
	VT_CHECK(atomic_load(&aged_events) == 0, "event while hit");
	/* Only fb hit: fa ages, announced once. */
	if (age_traffic(&dst[1], &queue[1], 1, 5000, fa) != 0)
		return VT_FAIL;
	AGE_WAIT(atomic_load(&aged_events) == 1);
	VT_CHECK(age_is_aged(fa), "fa did not age");
	VT_CHECK(!age_is_aged(fb), "fb, still hit, aged");
	VT_CHECK(atomic_load(&aged_events) == 1, "%u events",
		 atomic_load(&aged_events));
	VT_CHECK(age_query(fa, &q) == 0 && q.aged &&
			 !q.sec_since_last_hit_valid,
		 "fa's query");
	/* fb ages too, unread: no second event until the application
	 * reads them. */
	AGE_WAIT(age_is_aged(fb));
	VT_CHECK(age_is_aged(fb), "fb did not age");
	rte_delay_us_sleep(1200 * 1000);
	VT_CHECK(atomic_load(&aged_events) == 1,
		 "%u events before the aged flows were read",
		 atomic_load(&aged_events));
	VT_CHECK(rte_flow_get_aged_flows(pb, NULL, 0, &err) == 2,
		 "two aged flows");
	memset(ctx, 0, sizeof(ctx));
	VT_CHECK(rte_flow_get_aged_flows(pb, ctx, 4, &err) == 2 &&
			 ctx[0] == &ctx_a && ctx[1] == (void *)fb,
		 "contexts %p %p: want %p and the handle %p", ctx[0], ctx[1],
		 (void *)&ctx_a, (void *)fb);
	VT_CHECK(rte_flow_get_aged_flows(pb, ctx, 1, &err) == 1 &&
			 ctx[0] == &ctx_a,
		 "the first only");
	/* Aged stays aged, whatever hits it. */
	if (age_traffic(dst, queue, 2, 400, NULL) != 0)
		return VT_FAIL;
	VT_CHECK(age_is_aged(fa), "fa came back");
	VT_CHECK(count_query(pb, fb, 0, &qc) == 0 && qc.hits > 0, "fb's COUNT");
	/* The one that waits 60 s keeps counting its idle time. */
	VT_CHECK(age_query(fc, &q) == 0 && !q.aged && q.sec_since_last_hit >= 3,
		 "fc: %u s without a hit", q.sec_since_last_hit);
	/* Destroyed: out of the report. Read, the next one is announced. */
	VT_CHECK(rte_flow_destroy(pb, fa, &err) == 0, "destroy fa");
	fa = NULL;
	VT_CHECK(rte_flow_get_aged_flows(pb, ctx, 4, &err) == 1 &&
			 ctx[0] == (void *)fb,
		 "after destroying fa");
	fd = flow_new(pb, &attr_in, pat_ipv4(&p[3], 0, dst[3]),
		      act_queue(&a[3], 1, RTE_FLOW_ACTION_TYPE_AGE, &age1n));
	VT_CHECK(fd != NULL, "fd");
	AGE_WAIT(atomic_load(&aged_events) == 2);
	VT_CHECK(atomic_load(&aged_events) == 2, "%u events",
		 atomic_load(&aged_events));
	VT_CHECK(rte_flow_get_aged_flows(pb, ctx, 4, &err) == 2 &&
			 ctx[1] == (void *)fd,
		 "fd after fb");
	return VT_OK;
}

static int
aging(void)
{
	int ret;

	atomic_store(&aged_events, 0);
	VT_CHECK_EQ(rte_eth_dev_callback_register(pb, RTE_ETH_EVENT_FLOW_AGED,
						  aged_cb, NULL),
		    0, "event callback");
	ret = aging_body();
	rte_eth_dev_callback_unregister(pb, RTE_ETH_EVENT_FLOW_AGED, aged_cb,
					NULL);
	return ret;
}
PER_ENGINE(aging)

/* Priority 0 beats 1; within a priority L4 beats L3. */
static int
priorities(void)
{
	const uint32_t src = IP(10, 20, 0, 1), dst = IP(10, 20, 0, 2);
	struct rte_flow_attr a0 = { .ingress = 1, .priority = 0 };
	struct rte_flow_attr a1 = { .ingress = 1, .priority = 1 };
	struct rte_flow *f_hi, *f_lo;
	struct rte_flow_error err;
	struct pat_ip ps, pd;
	struct pat_l4 pu;
	struct act_q q1, q2;
	struct pkt k;
	int order;

	/* Both creation orders: priority decides, not the order. */
	for (order = 0; order < 2; order++) {
		if (order == 0) {
			f_lo = flow_new(pb, &a1, pat_ipv4(&ps, src, 0),
					act_queue(&q1, 1,
						  RTE_FLOW_ACTION_TYPE_END,
						  NULL));
			f_hi = flow_new(pb, &a0, pat_ipv4(&pd, 0, dst),
					act_queue(&q2, 2,
						  RTE_FLOW_ACTION_TYPE_END,
						  NULL));
		} else {
			f_hi = flow_new(pb, &a0, pat_ipv4(&pd, 0, dst),
					act_queue(&q2, 2,
						  RTE_FLOW_ACTION_TYPE_END,
						  NULL));
			f_lo = flow_new(pb, &a1, pat_ipv4(&ps, src, 0),
					act_queue(&q1, 1,
						  RTE_FLOW_ACTION_TYPE_END,
						  NULL));
		}
		VT_CHECK(f_lo != NULL && f_hi != NULL, "flows (order %d)",
			 order);
		k = udp(src, dst, 1, 1, 100);
		VT_CHECK_EQ(xfer_pkt(&k), 2,
			    "both match: priority 0 wins (order %d)", order);
		k = udp(src, IP(10, 20, 0, 3), 1, 1, 100);
		VT_CHECK_EQ(xfer_pkt(&k), 1, "priority 1 alone (order %d)",
			    order);
		k = udp_not_on(IP(10, 20, 0, 4), IP(10, 20, 0, 3), 1, 1);
		VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "neither");
		VT_CHECK_EQ(rte_flow_destroy(pb, f_lo, &err), 0, "destroy");
		VT_CHECK_EQ(rte_flow_destroy(pb, f_hi, &err), 0, "destroy");
	}
	/* Same priority: the L4 rule beats the L3 rule, in both orders. */
	for (order = 0; order < 2; order++) {
		if (order == 0) {
			f_lo = flow_new(pb, &a0, pat_ipv4(&pd, 0, dst),
					act_queue(&q1, 1,
						  RTE_FLOW_ACTION_TYPE_END,
						  NULL));
			f_hi = flow_new(pb, &a0, pat_l4(&pu, IPPROTO_UDP, 7000),
					act_queue(&q2, 3,
						  RTE_FLOW_ACTION_TYPE_END,
						  NULL));
		} else {
			f_hi = flow_new(pb, &a0, pat_l4(&pu, IPPROTO_UDP, 7000),
					act_queue(&q2, 3,
						  RTE_FLOW_ACTION_TYPE_END,
						  NULL));
			f_lo = flow_new(pb, &a0, pat_ipv4(&pd, 0, dst),
					act_queue(&q1, 1,
						  RTE_FLOW_ACTION_TYPE_END,
						  NULL));
		}
		VT_CHECK(f_lo != NULL && f_hi != NULL, "flows (order %d)",
			 order);
		k = udp(src, dst, 1, 7000, 100);
		VT_CHECK_EQ(xfer_pkt(&k), 3, "both match: L4 wins (order %d)",
			    order);
		k = udp(src, dst, 1, 7001, 100);
		VT_CHECK_EQ(xfer_pkt(&k), 1, "L3 alone (order %d)", order);
		k = udp(src, IP(10, 20, 0, 9), 1, 7000, 100);
		VT_CHECK_EQ(xfer_pkt(&k), 3, "L4 alone (order %d)", order);
		VT_CHECK_EQ(rte_flow_destroy(pb, f_lo, &err), 0, "destroy");
		VT_CHECK_EQ(rte_flow_destroy(pb, f_hi, &err), 0, "destroy");
	}
	/* The rte priority comes first: an L3 rule at 0 beats L4 at 1. */
	f_lo = flow_new(pb, &a1, pat_l4(&pu, IPPROTO_UDP, 7000),
			act_queue(&q2, 3, RTE_FLOW_ACTION_TYPE_END, NULL));
	f_hi = flow_new(pb, &a0, pat_ipv4(&pd, 0, dst),
			act_queue(&q1, 1, RTE_FLOW_ACTION_TYPE_END, NULL));
	VT_CHECK(f_lo != NULL && f_hi != NULL, "flows");
	k = udp(src, dst, 1, 7000, 100);
	VT_CHECK_EQ(xfer_pkt(&k), 1, "L3 at priority 0 beats L4 at 1");
	/* The lowest user level is still above the default flows. */
	a1.priority = USER_LEVELS - 1;
	VT_CHECK(flow_new(pb, &a1, pat_ipv4(&ps, src, 0),
			  act_queue(&q2, 2, RTE_FLOW_ACTION_TYPE_END, NULL)) !=
			 NULL,
		 "flow at the last user level");
	k = udp_not_on(src, IP(10, 20, 0, 5), 1, 2);
	VT_CHECK_EQ(xfer_pkt(&k), 2, "last user level beats default RSS");
	return VT_OK;
}
PER_ENGINE(priorities)

/* Flows made while stopped, kept over stop/start, flushed, isolate. */
static int
lifecycle(void)
{
	const uint32_t dst = IP(10, 30, 0, 1);
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *f;
	struct pat_ip pi;
	struct act_q a;
	unsigned int i;
	struct pkt k, other;
	int ret;

	VT_CHECK_EQ(rte_eth_dev_stop(pb), 0, "stop");
	f = flow_new(pb, &attr_in, pat_ipv4(&pi, 0, dst),
		     act_queue(&a, 2, RTE_FLOW_ACTION_TYPE_COUNT, NULL));
	VT_CHECK(f != NULL, "flow created while stopped");
	VT_CHECK_EQ(rte_eth_dev_start(pb), 0, "start");
	k = udp_not_on(IP(10, 0, 0, 1), dst, 1, 2);
	for (i = 0; i < 3; i++)
		VT_CHECK_EQ(xfer_pkt(&k), 2, "frame %u after the first start",
			    i);
	VT_CHECK_EQ(count_query(pb, f, 0, &qc), 0, "query");
	VT_CHECK_EQ(qc.hits, 3, "hits");

	for (i = 0; i < 2; i++) {
		VT_CHECK_EQ(rte_eth_dev_stop(pb), 0, "stop %u", i);
		/* Queried while stopped: the counter is still there. */
		VT_CHECK_EQ(count_query(pb, f, 0, &qc), 0, "query stopped");
		VT_CHECK_EQ(qc.hits, 3 + 2 * i, "hits while stopped");
		VT_CHECK_EQ(rte_eth_dev_start(pb), 0, "start %u", i);
		VT_CHECK_EQ(xfer_pkt(&k), 2, "after restart %u", i);
		VT_CHECK_EQ(xfer_pkt(&k), 2, "after restart %u", i);
		VT_CHECK_EQ(count_query(pb, f, 0, &qc), 0, "query");
		VT_CHECK_EQ(qc.hits, 5 + 2 * i, "counter continues (%u)", i);
		VT_CHECK_EQ(qc.bytes, (5 + 2 * i) * k.len, "bytes (%u)", i);
	}

	/* Isolated: only flow-matched traffic arrives. */
	other = udp(IP(10, 0, 0, 1), IP(10, 30, 0, 2), 5, 5, 100);
	VT_CHECK_EQ(xfer_pkt(&other), default_queue(&other), "default");
	memset(&err, 0, sizeof(err));
	ret = rte_flow_isolate(pb, 1, &err);
	VT_CHECK_EQ(ret, 0, "isolate: %s", err.message ? err.message : "");
	VT_CHECK_EQ(xfer_pkt(&other), -1, "default traffic while isolated");
	VT_CHECK_EQ(xfer_pkt(&k), 2, "flow traffic while isolated");
	VT_CHECK_EQ(xstat(pb, "rx_unsteered_packets"), 1,
		    "the isolated frame counts as unsteered");
	/* Isolation survives a restart. */
	VT_CHECK_EQ(rte_eth_dev_stop(pb), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_start(pb), 0, "start");
	VT_CHECK_EQ(xfer_pkt(&other), -1, "isolated after restart");
	VT_CHECK_EQ(xfer_pkt(&k), 2, "flow after restart");
	VT_CHECK_EQ(rte_flow_isolate(pb, 0, &err), 0, "leave isolation");
	VT_CHECK_EQ(xfer_pkt(&other), default_queue(&other),
		    "default traffic back");

	/* Flush: the flow is gone, its traffic back to default RSS. */
	VT_CHECK_EQ(rte_flow_flush(pb, &err), 0, "flush");
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "after flush");
	/* Flush while stopped removes kept flows too. */
	VT_CHECK_EQ(rte_eth_dev_stop(pb), 0, "stop");
	f = flow_new(pb, &attr_in, pat_ipv4(&pi, 0, dst),
		     act_queue(&a, 2, RTE_FLOW_ACTION_TYPE_END, NULL));
	VT_CHECK(f != NULL, "flow while stopped");
	VT_CHECK_EQ(rte_flow_flush(pb, &err), 0, "flush while stopped");
	VT_CHECK_EQ(rte_eth_dev_start(pb), 0, "start");
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "flushed while stopped");
	VT_CHECK_EQ(drain(), 0, "extra frames");
	return VT_OK;
}
PER_ENGINE(lifecycle)

/*
 * Rules kept over Rx queues that a later rte_eth_dev_configure() takes
 * away (Open vSwitch lowering n_rxq): the port starts, an RSS rule
 * spreads over the listed queues that are left, a QUEUE rule whose queue
 * is gone is kept but not applied (its frames follow the default RSS,
 * its counter stands still) until the queue comes back.
 */
static int
rxq_shrink(void)
{
	static const uint16_t qs[NQ] = { 0, 1, 2, 3 };
	static const uint16_t left[2] = { 0, 1 };
	const uint32_t dst_rss = IP(10, 40, 0, 1), dst_q = IP(10, 40, 0, 2);
	const struct rte_flow_action_rss rss = {
		.func = RTE_ETH_HASH_FUNCTION_DEFAULT,
		.types = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP,
		.queue_num = NQ,
		.queue = qs,
	};
	const struct rte_flow_action act_rss[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const uint64_t hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP;
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *fr, *fq;
	uint8_t key[sizeof(key_b)];
	struct pkt k[8], kq;
	struct pat_ip pi, pq;
	unsigned int i, n;
	char *buf = NULL;
	size_t len = 0;
	struct act_q a;
	FILE *fp;
	int ret;

	memcpy(key, key_b, sizeof(key));
	fr = flow_new(pb, &attr_in, pat_ipv4(&pi, 0, dst_rss), act_rss);
	fq = flow_new(pb, &attr_in, pat_ipv4(&pq, 0, dst_q),
		      act_queue(&a, 3, RTE_FLOW_ACTION_TYPE_COUNT, NULL));
	VT_CHECK(fr != NULL && fq != NULL, "rules over 4 queues");
	/* Frames the 4-queue rule puts on queues 2 and 3. */
	for (i = 0, n = 0; n < RTE_DIM(k) && i < 4096; i++) {
		k[n] = udp(IP(10, 1, 0, 0) + i, dst_rss, (uint16_t)(2000 + i),
			   53, 90);
		if (rss_queue(key, qs, NQ, &k[n], true) >= 2)
			n++;
	}
	VT_CHECK_EQ(n, RTE_DIM(k), "frames for queues 2 and 3");
	for (i = 0; i < n; i++)
		VT_CHECK_EQ(xfer_pkt(&k[i]),
			    rss_queue(key, qs, NQ, &k[i], true),
			    "4 queues: frame %u", i);
	kq = udp_not_on(IP(10, 2, 0, 1), dst_q, 7, 3);
	VT_CHECK_EQ(xfer_pkt(&kq), 3, "QUEUE 3 with 4 queues");

	VT_CHECK_EQ(port_up(pb, 2, hf), 0, "start with 2 queues");
	VT_CHECK_EQ(read_rss_b(), 0, "RSS of port B");
	for (i = 0; i < n; i++)
		VT_CHECK_EQ(xfer_pkt(&k[i]),
			    rss_queue(key, left, 2, &k[i], true),
			    "2 queues: frame %u", i);
	VT_CHECK_EQ(xfer_pkt(&kq), default_queue(&kq),
		    "QUEUE 3 with 2 queues: default RSS");
	VT_CHECK_EQ(count_query(pb, fq, 0, &qc), 0, "query the kept rule");
	VT_CHECK_EQ(qc.hits, 1, "not applied: not counting");
	fp = open_memstream(&buf, &len);
	VT_CHECK(fp != NULL, "memstream");
	ret = rte_flow_dev_dump(pb, NULL, fp, &err);
	fclose(fp);
	VT_CHECK(ret == 0 && buf != NULL &&
			 strstr(buf, "queues 0 1 2 3 (2 of them configured)") !=
				 NULL &&
			 strstr(buf, "kept, not applied: none of its queues") !=
				 NULL,
		 "dump:\n%s", buf != NULL ? buf : "");
	free(buf);

	VT_CHECK_EQ(port_up(pb, NQ, hf), 0, "start with 4 queues again");
	VT_CHECK_EQ(read_rss_b(), 0, "RSS of port B");
	for (i = 0; i < n; i++)
		VT_CHECK_EQ(xfer_pkt(&k[i]),
			    rss_queue(key, qs, NQ, &k[i], true),
			    "4 queues again: frame %u", i);
	VT_CHECK_EQ(xfer_pkt(&kq), 3, "QUEUE 3 applied again");
	VT_CHECK_EQ(count_query(pb, fq, 0, &qc), 0, "query");
	VT_CHECK_EQ(qc.hits, 2, "counting again");
	VT_CHECK_EQ(drain(), 0, "extra frames");
	return VT_OK;
}
PER_ENGINE(rxq_shrink)

/* VXLAN VNI + inner IPv4 destination to a queue. */
static int
vxlan(void)
{
	const uint32_t idst = IP(172, 16, 0, 9);
	const struct rte_flow_item_vxlan vx = { .vni = { 0x00, 0x00,
							 0x64 } }; /* 100 */
	const struct rte_flow_item_ipv4 inner = { .hdr.dst_addr = RTE_BE32(
							  IP(172, 16, 0, 9)) };
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN,
		  .spec = &vx,
		  .mask = &rte_flow_item_vxlan_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &inner,
		  .mask = &ipv4_dst_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct act_q a;
	struct pkt outer;
	uint16_t sport;
	int i;

	VT_CHECK(flow_new(pb, &attr_in, pat,
			  act_queue(&a, 3, RTE_FLOW_ACTION_TYPE_END, NULL)) !=
			 NULL,
		 "VXLAN flow");
	for (i = 0; i < 4; i++) {
		/* Outer tuples whose default queue is not 3. */
		outer = udp(IP(10, 1, 0, 1), IP(10, 1, 0, 2),
			    (uint16_t)(30000 + 7 * i), VXLAN_PORT, 128);
		while (default_queue(&outer) == 3)
			outer.sport++;
		sport = outer.sport;
		VT_CHECK_EQ(xfer(vxlan_frame(sport, 100, IP(10, 5, 0, 1), idst,
					     128),
				 NULL),
			    3, "VNI 100, inner dst matched (%d)", i);
		VT_CHECK_EQ(xfer(vxlan_frame(sport, 101, IP(10, 5, 0, 1), idst,
					     128),
				 NULL),
			    default_queue(&outer), "other VNI (%d)", i);
		VT_CHECK_EQ(xfer(vxlan_frame(sport, 100, IP(10, 5, 0, 1),
					     idst + 1, 128),
				 NULL),
			    default_queue(&outer), "other inner dst (%d)", i);
	}
	return VT_OK;
}
PER_ENGINE(vxlan)

/*
 * PASSTHRU + COUNT: the rule counts, each frame goes on to the default
 * flows and arrives exactly once, and the discarded copy shows in its own
 * xstat, never as a missed packet. Verbs only: a matcher has no DONT_TRAP.
 */
static int
passthru(void)
{
	struct rte_flow_action_count cnt = { 0 };
	const struct rte_flow_action acts[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_PASSTHRU },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT, .conf = &cnt },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_query_count qc;
	struct rte_eth_stats st0, st1;
	uint64_t copies0, copies1;
	struct rte_flow *f;
	struct pat_l4 p;
	struct pkt k;
	int i;

	f = flow_new(pb, &attr_in, pat_l4(&p, IPPROTO_UDP, 53), acts);
	VT_CHECK(f != NULL, "PASSTHRU flow");
	copies0 = xstat(pb, "rx_passthru_copy_packets");
	VT_CHECK(copies0 != UINT64_MAX, "xstat rx_passthru_copy_packets");
	VT_CHECK_EQ(rte_eth_stats_get(pb, &st0), 0, "stats");
	for (i = 0; i < 8; i++) {
		k = udp(IP(10, 2, 0, 1), IP(10, 2, 0, 2), (uint16_t)(1000 + i),
			53, 100);
		VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k),
			    "frame %d once, on its default queue", i);
	}
	k = udp(IP(10, 2, 0, 1), IP(10, 2, 0, 2), 1000, 54, 100);
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "other port");
	VT_CHECK_EQ(count_query(pb, f, 0, &qc), 0, "query");
	VT_CHECK_EQ(qc.hits, 8, "the rule counted its frames only");
	copies1 = xstat(pb, "rx_passthru_copy_packets");
	VT_CHECK_EQ(copies1 - copies0, 8, "copies discarded");
	VT_CHECK_EQ(rte_eth_stats_get(pb, &st1), 0, "stats");
	VT_CHECK_EQ(st1.imissed - st0.imissed, 0,
		    "copies are not missed packets");
	VT_CHECK_EQ(st1.ipackets - st0.ipackets, 9, "every frame delivered");
	return VT_OK;
}

static int
passthru_verbs(void)
{
	return in_run(RUN_VERBS, passthru);
}

/* Validate names the field; create refuses the same way. */
static int
expect_err(const char *what, const struct rte_flow_attr *attr,
	   const struct rte_flow_item *pattern,
	   const struct rte_flow_action *actions, int code,
	   enum rte_flow_error_type type, const void *cause, const char *msg)
{
	struct rte_flow_error err;
	struct rte_flow *f;
	int ret;

	memset(&err, 0, sizeof(err));
	ret = rte_flow_validate(pb, attr, pattern, actions, &err);
	VT_CHECK_EQ(ret, -code, "%s: validate (%s)", what,
		    err.message ? err.message : "no message");
	VT_CHECK_EQ(err.type, type, "%s: error type (%s)", what,
		    err.message ? err.message : "no message");
	VT_CHECK(err.cause == cause, "%s: cause %p, expected %p", what,
		 err.cause, cause);
	VT_CHECK(err.message != NULL && strstr(err.message, msg) != NULL,
		 "%s: message '%s' lacks '%s'", what,
		 err.message ? err.message : "", msg);
	memset(&err, 0, sizeof(err));
	rte_errno = 0;
	f = rte_flow_create(pb, attr, pattern, actions, &err);
	VT_CHECK(f == NULL, "%s: create took what validate refused", what);
	VT_CHECK_EQ(rte_errno, code, "%s: create errno", what);
	VT_CHECK_EQ(err.type, type, "%s: create error type", what);
	VT_CHECK(err.cause == cause, "%s: create cause", what);
	return VT_OK;
}

/* validate == 0 exactly when create makes the flow. */
static int
expect_agree(const char *what, const struct rte_flow_attr *attr,
	     const struct rte_flow_item *pattern,
	     const struct rte_flow_action *actions)
{
	struct rte_flow_error e1, e2;
	struct rte_flow *f;
	int ret;

	memset(&e1, 0, sizeof(e1));
	memset(&e2, 0, sizeof(e2));
	ret = rte_flow_validate(pb, attr, pattern, actions, &e1);
	rte_errno = 0;
	f = rte_flow_create(pb, attr, pattern, actions, &e2);
	if (ret == 0) {
		VT_CHECK(f != NULL, "%s: validated but not created: %s", what,
			 e2.message ? e2.message : "");
		VT_CHECK_EQ(rte_flow_destroy(pb, f, &e2), 0, "%s: destroy",
			    what);
		return VT_OK;
	}
	VT_CHECK(f == NULL, "%s: refused by validate (%s), made by create",
		 what, e1.message ? e1.message : "");
	VT_CHECK_EQ(rte_errno, -ret, "%s: errno", what);
	VT_CHECK_EQ(e2.type, e1.type, "%s: error type", what);
	return VT_OK;
}

static int
errors(void)
{
	struct rte_flow_attr attr;
	const struct rte_flow_item_ipv4 ip_spec = { .hdr.dst_addr = RTE_BE32(
							    IP(10, 0, 0, 1)) };
	const struct rte_flow_item_ipv4 ip_last = { .hdr.dst_addr = RTE_BE32(
							    IP(10, 0, 0, 9)) };
	const struct rte_flow_item pat_ok[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &ip_spec,
		  .mask = &ipv4_dst_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item pat_last[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &ip_spec,
		  .last = &ip_last,
		  .mask = &ipv4_dst_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item pat_icmp[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_ICMP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action_queue q1 = { .index = 1 };
	const struct rte_flow_action_queue q_bad = { .index = NQ };
	const struct rte_flow_action act_ok[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q1 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_bad_q[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q_bad },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_two_fates[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q1 },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_count_drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_none[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	char limit[32];
	struct pkt k;

	memset(&attr, 0, sizeof(attr));
	attr.ingress = 1;
	attr.group = 1;
	CHECK_OK(expect_err("group 1", &attr, pat_ok, act_ok, ENOTSUP,
			    RTE_FLOW_ERROR_TYPE_ATTR_GROUP, &attr, "group 1"));
	memset(&attr, 0, sizeof(attr));
	attr.transfer = 1;
	CHECK_OK(expect_err("transfer", &attr, pat_ok, act_ok, ENOTSUP,
			    RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, &attr,
			    "transfer"));
	/* Egress: whether the device takes it is probed (egress_ok), and
	 * current mlx5 kernels do; test_ethdev.c checks both answers. */
	memset(&attr, 0, sizeof(attr));
	attr.ingress = 1;
	attr.priority = USER_LEVELS;
	snprintf(limit, sizeof(limit), "0 to %u", USER_LEVELS - 1);
	CHECK_OK(expect_err("priority", &attr, pat_ok, act_ok, ENOTSUP,
			    RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, &attr, limit));
	attr.priority = USER_LEVELS - 1;
	CHECK_OK(expect_agree("last priority", &attr, pat_ok, act_ok));
	memset(&attr, 0, sizeof(attr));
	VT_CHECK_EQ(rte_flow_validate(pb, &attr_in, pat_ok, act_ok, NULL), 0,
		    "a plain rule");
	CHECK_OK(expect_err("queue index", &attr_in, pat_ok, act_bad_q, EINVAL,
			    RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act_bad_q[0],
			    "out of range"));
	CHECK_OK(expect_err("last", &attr_in, pat_last, act_ok, ENOTSUP,
			    RTE_FLOW_ERROR_TYPE_ITEM_LAST, &pat_last[1],
			    "range"));
	CHECK_OK(expect_err("unsupported item", &attr_in, pat_icmp, act_ok,
			    ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, &pat_icmp[2],
			    "ICMP"));
	CHECK_OK(expect_err("two fates", &attr_in, pat_ok, act_two_fates,
			    EINVAL, RTE_FLOW_ERROR_TYPE_ACTION,
			    &act_two_fates[1], "DROP"));
	CHECK_OK(expect_err("no fate", &attr_in, pat_ok, act_none, EINVAL,
			    RTE_FLOW_ERROR_TYPE_ACTION, &act_none[0], "fate"));
	{
		/* An INDIRECT action whose handle this port never made. */
		static int not_a_handle;
		const struct rte_flow_action act_bad_handle[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_INDIRECT,
			  .conf = &not_a_handle },
			{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q1 },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		CHECK_OK(expect_err("unknown handle", &attr_in, pat_ok,
				    act_bad_handle, EINVAL,
				    RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				    &act_bad_handle[0],
				    "unknown indirect action handle"));
	}
	/* Accepted rules are made, refused ones refused alike. */
	CHECK_OK(expect_agree("queue", &attr_in, pat_ok, act_ok));
	CHECK_OK(expect_agree("count drop", &attr_in, pat_ok, act_count_drop));
	CHECK_OK(expect_agree("icmp", &attr_in, pat_icmp, act_ok));
	CHECK_OK(expect_agree("two fates", &attr_in, pat_ok, act_two_fates));
	/* Nothing was left behind by the refusals. */
	k = udp(IP(10, 0, 0, 2), IP(10, 0, 0, 1), 1, 1, 64);
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "no rule left");
	return VT_OK;
}
PER_ENGINE3(errors)

/* What rte_flow_dev_dump() prints for flow f (NULL: the port) on port
 * pb, to free(); NULL when it fails. */
static char *
dump_text(struct rte_flow *f)
{
	struct rte_flow_error err;
	char *buf = NULL;
	size_t len = 0;
	FILE *fp;
	int ret;

	fp = open_memstream(&buf, &len);
	if (fp == NULL)
		return NULL;
	ret = rte_flow_dev_dump(pb, f, fp, &err);
	fclose(fp);
	if (ret != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* The number the dump heads flow f with ("flow rule <n> (handle ...)"),
 * or -1. */
static int
dump_rule_id(struct rte_flow *f)
{
	char *buf = dump_text(f);
	int id = -1;

	if (buf == NULL || sscanf(buf, "flow rule %d (handle ", &id) != 1)
		id = -1;
	free(buf);
	return id;
}

/*
 * A rule is headed with the ID testpmd gives it (port_flow_create(): the
 * newest rule's ID + 1, or 0), so that `flow dump 0 rule 3` prints rule
 * 3: after destroying the newest rule its ID comes again, after
 * destroying an older one it does not. first: the port's only flow.
 */
static int
dump_rule_ids(struct rte_flow *first)
{
	struct pat_ip ip[4];
	struct rte_flow *f[4];
	struct rte_flow_error err;
	struct act_q a;
	unsigned int i;

	VT_CHECK_EQ(dump_rule_id(first), 0, "the first rule");
	for (i = 0; i < 3; i++) {
		f[i] = flow_new(pb, &attr_in,
				pat_ipv4(&ip[i], 0, 0x0a000001 + i),
				act_queue(&a, 1, RTE_FLOW_ACTION_TYPE_END,
					  NULL));
		VT_CHECK(f[i] != NULL, "rule %u", i + 1);
		VT_CHECK_EQ(dump_rule_id(f[i]), (int)i + 1, "rule %u", i + 1);
	}
	/* testpmd: 0 1 2 3, destroy 3 -> the next is 3 again. */
	VT_CHECK_EQ(rte_flow_destroy(pb, f[2], &err), 0, "destroy rule 3");
	f[2] = flow_new(pb, &attr_in, pat_ipv4(&ip[2], 0, 0x0a000003),
			act_queue(&a, 1, RTE_FLOW_ACTION_TYPE_END, NULL));
	VT_CHECK_EQ(dump_rule_id(f[2]), 3, "the newest rule's ID again");
	/* Destroy 1: the next is 4, 1 stays a gap. */
	VT_CHECK_EQ(rte_flow_destroy(pb, f[0], &err), 0, "destroy rule 1");
	f[3] = flow_new(pb, &attr_in, pat_ipv4(&ip[3], 0, 0x0a000004),
			act_queue(&a, 1, RTE_FLOW_ACTION_TYPE_END, NULL));
	VT_CHECK_EQ(dump_rule_id(f[3]), 4, "after a gap");
	VT_CHECK_EQ(dump_rule_id(f[1]), 2, "rule 2 kept its ID");
	/* A flush starts over, as testpmd's list does. */
	VT_CHECK_EQ(rte_flow_flush(pb, &err), 0, "flush");
	f[0] = flow_new(pb, &attr_in, pat_ipv4(&ip[0], 0, 0x0a000001),
			act_queue(&a, 1, RTE_FLOW_ACTION_TYPE_END, NULL));
	VT_CHECK_EQ(dump_rule_id(f[0]), 0, "after a flush");
	return VT_OK;
}

/* rte_flow_dev_dump prints the device-level translation. */
static int
dump(void)
{
	struct rte_flow_item_eth eth = { .hdr.dst_addr = mac_b };
	const struct rte_flow_item_eth eth_mask = {
		.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff }
	};
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH,
		  .spec = &eth,
		  .mask = &eth_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_error err;
	static uint64_t bogus[8];
	struct rte_flow *f;
	struct act_q a;
	char mac[RTE_ETHER_ADDR_FMT_SIZE], *buf = NULL;
	const char *p;
	unsigned int bytes;
	size_t len = 0;
	FILE *fp;
	int ret;

	f = flow_new(pb, &attr_in, pat,
		     act_queue(&a, 2, RTE_FLOW_ACTION_TYPE_END, NULL));
	VT_CHECK(f != NULL, "flow");
	snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x",
		 mac_b.addr_bytes[0], mac_b.addr_bytes[1], mac_b.addr_bytes[2],
		 mac_b.addr_bytes[3], mac_b.addr_bytes[4], mac_b.addr_bytes[5]);
	fp = open_memstream(&buf, &len);
	VT_CHECK(fp != NULL, "memstream");
	ret = rte_flow_dev_dump(pb, f, fp, &err);
	fclose(fp);
	VT_CHECK_EQ(ret, 0, "dump");
	VT_CHECK(buf != NULL && strstr(buf, mac) != NULL,
		 "dump lacks the MAC %s:\n%s", mac, buf ? buf : "");
	/* A simple rule's own driver state stays small (one allocation:
	 * the record and the rule bytes; queues and matchers are shared). */
	p = strstr(buf, ", applied, ");
	VT_CHECK(p != NULL && sscanf(p, ", applied, %u bytes", &bytes) == 1,
		 "no state size:\n%s", buf);
	VT_CHECK(bytes > 0 && bytes <= FLOW_BYTES_MAX, "%u bytes of flow state",
		 bytes);
	if (cur == RUN_DV) {
		VT_CHECK(strstr(buf, "mlx5dv") != NULL &&
				 strstr(buf, "dmac") != NULL &&
				 strstr(buf, "ip_version") != NULL,
			 "no matcher dump:\n%s", buf);
	} else {
		VT_CHECK(strstr(buf, "ETH") != NULL &&
				 strstr(buf, "IPV4") != NULL &&
				 strstr(buf, "verbs rule") != NULL,
			 "no verbs spec decode:\n%s", buf);
	}
	free(buf);
	buf = NULL;
	/* The whole port: the flow and the default flows. */
	fp = open_memstream(&buf, &len);
	VT_CHECK(fp != NULL, "memstream");
	ret = rte_flow_dev_dump(pb, NULL, fp, &err);
	fclose(fp);
	VT_CHECK_EQ(ret, 0, "dump all");
	VT_CHECK(buf != NULL && strstr(buf, mac) != NULL &&
			 strstr(buf, "default flow") != NULL,
		 "port dump:\n%s", buf ? buf : "");
	free(buf);
	buf = NULL;
	/* A pointer that is no flow of the port is refused. */
	fp = open_memstream(&buf, &len);
	VT_CHECK(fp != NULL, "memstream");
	memset(&err, 0, sizeof(err));
	ret = rte_flow_dev_dump(pb, (struct rte_flow *)bogus, fp, &err);
	fclose(fp);
	free(buf);
	VT_CHECK_EQ(ret, -EINVAL, "dump of an unknown flow");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_HANDLE, "error type");
	return dump_rule_ids(f);
}
PER_ENGINE(dump)

/* An error naming a flow handle: EINVAL, type HANDLE, the handle. */
static int
expect_no_flow(const char *what, int ret, const struct rte_flow_error *err,
	       const struct rte_flow *f)
{
	VT_CHECK_EQ(ret, -EINVAL, "%s", what);
	VT_CHECK_EQ(err->type, RTE_FLOW_ERROR_TYPE_HANDLE, "%s: type", what);
	VT_CHECK(err->cause == f, "%s: cause", what);
	VT_CHECK(err->message != NULL &&
			 strstr(err->message, "no such flow on port") != NULL,
		 "%s: message %s", what, err->message ? err->message : "");
	return VT_OK;
}

static int
dump_to_null(uint16_t port, struct rte_flow *f, struct rte_flow_error *err)
{
	FILE *fp = fopen("/dev/null", "w");
	int ret;

	if (fp == NULL)
		return -errno;
	ret = rte_flow_dev_dump(port, f, fp, err);
	fclose(fp);
	return ret;
}

/*
 * Flow handles: a destroyed one, a stale one whose slot now holds a newer
 * flow, one of the other port, NULL and a pointer to something else are
 * refused by destroy, query and dump, and the live flows stay.
 */
static int
flow_handles(void)
{
	const uint32_t d1 = IP(10, 60, 0, 1), d2 = IP(10, 60, 0, 2);
	const uint32_t d3 = IP(10, 60, 0, 3);
	const struct rte_flow_action count_action[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *f1, *f2, *fa;
	static uint64_t bogus[32];
	struct pat_ip p1, p2, p3;
	struct act_q a1, a2, a3;
	struct pkt k;

	f1 = flow_new(pb, &attr_in, pat_ipv4(&p1, 0, d1),
		      act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_COUNT, NULL));
	VT_CHECK(f1 != NULL, "flow 1");
	VT_CHECK_EQ(rte_flow_destroy(pb, f1, &err), 0, "destroy");
	memset(&err, 0, sizeof(err));
	CHECK_OK(expect_no_flow("destroyed twice",
				rte_flow_destroy(pb, f1, &err), &err, f1));
	memset(&err, 0, sizeof(err));
	memset(&qc, 0, sizeof(qc));
	CHECK_OK(expect_no_flow("query of a destroyed flow",
				rte_flow_query(pb, f1, count_action, &qc, &err),
				&err, f1));
	memset(&err, 0, sizeof(err));
	CHECK_OK(expect_no_flow("dump of a destroyed flow",
				dump_to_null(pb, f1, &err), &err, f1));
	/* A new flow, likely in the slot f1 had: f1 still names nothing. */
	f2 = flow_new(pb, &attr_in, pat_ipv4(&p2, 0, d2),
		      act_queue(&a2, 2, RTE_FLOW_ACTION_TYPE_COUNT, NULL));
	VT_CHECK(f2 != NULL, "flow 2");
	VT_CHECK(f2 != f1, "a new flow has a new handle");
	memset(&err, 0, sizeof(err));
	CHECK_OK(expect_no_flow("stale handle", rte_flow_destroy(pb, f1, &err),
				&err, f1));
	/* Nothing that is no flow of the port is read or destroyed. */
	memset(&err, 0, sizeof(err));
	CHECK_OK(expect_no_flow("NULL", rte_flow_destroy(pb, NULL, &err), &err,
				NULL));
	memset(&err, 0, sizeof(err));
	CHECK_OK(expect_no_flow("a pointer to zeroes",
				rte_flow_destroy(pb, (struct rte_flow *)bogus,
						 &err),
				&err, (struct rte_flow *)bogus));
	memset(bogus, 0xff, sizeof(bogus));
	memset(&err, 0, sizeof(err));
	CHECK_OK(expect_no_flow("a pointer to ones",
				rte_flow_destroy(pb, (struct rte_flow *)bogus,
						 &err),
				&err, (struct rte_flow *)bogus));
	/* The other port's flow is not this port's. */
	fa = flow_new(pa, &attr_in, pat_ipv4(&p3, 0, d3),
		      act_queue(&a3, 0, RTE_FLOW_ACTION_TYPE_END, NULL));
	VT_CHECK(fa != NULL, "flow on port A");
	memset(&err, 0, sizeof(err));
	CHECK_OK(expect_no_flow("port A's flow on port B",
				rte_flow_destroy(pb, fa, &err), &err, fa));
	memset(&err, 0, sizeof(err));
	CHECK_OK(expect_no_flow("port B's flow on port A",
				rte_flow_destroy(pa, f2, &err), &err, f2));
	VT_CHECK_EQ(rte_flow_destroy(pa, fa, &err), 0, "port A's own flow");
	/* f2 lived through all that. */
	k = udp(IP(10, 0, 0, 9), d2, 1, 1, 100);
	VT_CHECK_EQ(xfer_pkt(&k), 2, "flow 2 steers");
	VT_CHECK_EQ(count_query(pb, f2, 0, &qc), 0, "query flow 2");
	VT_CHECK_EQ(qc.hits, 1, "flow 2 counted");
	k = udp(IP(10, 0, 0, 9), d1, 1, 1, 100);
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "flow 1 is gone");
	VT_CHECK_EQ(rte_flow_destroy(pb, f2, &err), 0, "destroy flow 2");
	k = udp(IP(10, 0, 0, 9), d2, 1, 1, 100);
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "flow 2 is gone");
	return VT_OK;
}
PER_ENGINE(flow_handles)

/* The dump header's "<n> flow rule(s), flow pool <b> bytes in <s>
 * slab(s)". */
static int
pool_state(unsigned int *rules, size_t *bytes, unsigned int *slabs)
{
	struct rte_flow_error err;
	char *buf = NULL;
	const char *p;
	size_t len = 0;
	FILE *fp;
	int ret;

	fp = open_memstream(&buf, &len);
	VT_CHECK(fp != NULL, "memstream");
	ret = rte_flow_dev_dump(pb, NULL, fp, &err);
	fclose(fp);
	VT_CHECK_EQ(ret, 0, "dump");
	p = buf != NULL ? strstr(buf, "\n") : NULL;
	ret = p != NULL &&
	      sscanf(p + 1,
		     "%u flow rule(s), flow pool %zu bytes in %u slab(s)",
		     rules, bytes, slabs) == 3;
	if (!ret)
		fprintf(stderr, "  dump header:\n%.300s\n", buf ? buf : "");
	free(buf);
	return ret ? VT_OK : VT_FAIL;
}

/*
 * The flow pool grows with the rules (by slabs of 1024) and gives the
 * memory back as they go, whether destroyed one by one (here in reverse
 * order) or flushed.
 */
static int
flow_pool(void)
{
	enum {
		N = 2500
	};
	static struct rte_flow *f[N];
	struct rte_flow_error err;
	unsigned int rules, slabs, i;
	struct pat_ip pi;
	struct act_q a;
	size_t bytes, full;
	struct pkt k;
	int round;

	CHECK_OK(pool_state(&rules, &bytes, &slabs));
	VT_CHECK_EQ(rules, 0, "no rule at the start");
	VT_CHECK(slabs <= 1, "%u slabs with no rule", slabs);
	for (round = 0; round < 2; round++) {
		for (i = 0; i < N; i++) {
			f[i] = flow_new(pb, &attr_in,
					pat_ipv4(&pi, 0,
						 IP(10, 70, i >> 8, i & 0xff)),
					act_queue(&a, (uint16_t)(i % NQ),
						  RTE_FLOW_ACTION_TYPE_END,
						  NULL));
			VT_CHECK(f[i] != NULL, "flow %u", i);
		}
		CHECK_OK(pool_state(&rules, &full, &slabs));
		VT_CHECK_EQ(rules, N, "rules in the pool");
		VT_CHECK(slabs >= 2 && full >= N * 184,
			 "%zu bytes in %u slabs for %u rules", full, slabs, N);
		for (i = 0; i < N; i += 499) {
			k = udp(IP(10, 0, 0, 9), IP(10, 70, i >> 8, i & 0xff),
				1, 1, 100);
			VT_CHECK_EQ(xfer_pkt(&k), (int)(i % NQ),
				    "rule %u steers", i);
		}
		if (round == 0) {
			for (i = N; i-- > 0;)
				VT_CHECK_EQ(rte_flow_destroy(pb, f[i], &err), 0,
					    "destroy %u", i);
		} else {
			VT_CHECK_EQ(rte_flow_flush(pb, &err), 0, "flush");
		}
		CHECK_OK(pool_state(&rules, &bytes, &slabs));
		VT_CHECK_EQ(rules, 0, "rules left (round %d)", round);
		VT_CHECK(slabs <= 1 && bytes < full / 2,
			 "round %d: %zu of %zu bytes kept in %u slabs", round,
			 bytes, full, slabs);
		k = udp(IP(10, 0, 0, 9), IP(10, 70, 0, 5), 1, 1, 100);
		VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "no rule left");
	}
	return VT_OK;
}
PER_ENGINE(flow_pool)

/* Egress rules on the sender (generic profile: the man page's device). */
static int
egress(void)
{
	const struct rte_flow_attr attr_out = { .egress = 1 };
	const uint32_t blocked = IP(10, 40, 0, 1), counted = IP(10, 40, 0, 2);
	const struct rte_flow_action drop_count[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action count_only[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action_queue q = { .index = 0 };
	const struct rte_flow_action queue[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *fd, *fc;
	struct rte_eth_stats sa;
	struct pat_ip p1, p2;
	unsigned int i;
	struct pkt k;

	fd = flow_new(pa, &attr_out, pat_ipv4(&p1, 0, blocked), drop_count);
	fc = flow_new(pa, &attr_out, pat_ipv4(&p2, 0, counted), count_only);
	VT_CHECK(fd != NULL && fc != NULL, "egress flows");
	for (i = 0; i < 5; i++) {
		k = udp(IP(10, 0, 0, 1), blocked, (uint16_t)i, 1, 100);
		VT_CHECK_EQ(xfer_pkt(&k), -1, "blocked frame %u sent", i);
		k = udp(IP(10, 0, 0, 1), counted, (uint16_t)i, 1, 200);
		VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "counted frame %u",
			    i);
		k = udp(IP(10, 0, 0, 1), IP(10, 40, 0, 3), (uint16_t)i, 1, 300);
		VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "other frame %u",
			    i);
	}
	VT_CHECK_EQ(count_query(pa, fd, 0, &qc), 0, "query drop");
	VT_CHECK_EQ(qc.hits, 5, "dropped hits");
	VT_CHECK_EQ(qc.bytes, 500, "dropped bytes");
	VT_CHECK_EQ(count_query(pa, fc, 0, &qc), 0, "query count");
	VT_CHECK_EQ(qc.hits, 5, "counted hits");
	VT_CHECK_EQ(qc.bytes, 1000, "counted bytes");
	VT_CHECK_EQ(rte_eth_stats_get(pa, &sa), 0, "stats");
	VT_CHECK_EQ(sa.opackets, 15, "the driver sent 15");
	VT_CHECK_EQ(xstat(pa, "tx_wire_packets"), 10, "10 reached the wire");
	VT_CHECK_EQ(xstat(pb, "rx_wire_packets"), 10, "10 reached B");
	/* Egress takes no Rx fate. */
	memset(&err, 0, sizeof(err));
	VT_CHECK(rte_flow_validate(pa, &attr_out, pat_ipv4(&p1, 0, blocked),
				   queue, &err) == -ENOTSUP,
		 "egress QUEUE accepted");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ACTION, "error type");
	VT_CHECK(err.cause == &queue[0], "cause");
	/* Removing the rule lets the frames through. */
	VT_CHECK_EQ(rte_flow_destroy(pa, fd, &err), 0, "destroy");
	k = udp(IP(10, 0, 0, 1), blocked, 1, 1, 100);
	VT_CHECK_EQ(xfer_pkt(&k), default_queue(&k), "unblocked");
	return VT_OK;
}

static int
egress_generic(void)
{
	return in_run(RUN_GENERIC, egress);
}

/* The dump line of a flow: "flow <ptr>: ..., engine <name>, ...". */
static int
flow_engine_is(struct rte_flow *f, const char *engine)
{
	char *buf = NULL, want[32];
	struct rte_flow_error err;
	size_t len = 0;
	FILE *fp;
	int ret;

	fp = open_memstream(&buf, &len);
	if (fp == NULL)
		return 0;
	ret = rte_flow_dev_dump(pb, f, fp, &err);
	fclose(fp);
	snprintf(want, sizeof(want), "engine %s,", engine);
	ret = ret == 0 && buf != NULL && strstr(buf, want) != NULL;
	if (!ret)
		fprintf(stderr, "  not engine %s:\n%s", engine, buf ? buf : "");
	free(buf);
	return ret;
}

/*
 * flow_engine=auto: verbs for every rule a verbs chain carries (QUEUE,
 * DROP, MARK and COUNT ones included), matchers for the rest (here: rules
 * on the TTL); both kinds share one priority space on the device.
 */
static int
auto_mix(void)
{
	const uint32_t d1 = IP(10, 50, 0, 1), d2 = IP(10, 50, 0, 2);
	const uint32_t d3 = IP(10, 50, 0, 3);
	const uint32_t bad = IP(10, 50, 9, 9), bad2 = IP(10, 50, 9, 10);
	const struct rte_flow_attr a0 = { .ingress = 1, .priority = 0 };
	const struct rte_flow_attr a1 = { .ingress = 1, .priority = 1 };
	const struct rte_flow_action_mark mark = { .id = 7 };
	const struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_item_ipv4 ttl = { .hdr.time_to_live = 64 };
	const struct rte_flow_item_ipv4 ttl_m = { .hdr.time_to_live = 0xff };
	const struct rte_flow_item_ipv4 ttl_src = {
		.hdr.time_to_live = 64, .hdr.src_addr = RTE_BE32(bad)
	};
	const struct rte_flow_item_ipv4 ttl_src_m = {
		.hdr.time_to_live = 0xff, .hdr.src_addr = RTE_BE32(0xffffffff)
	};
	const struct rte_flow_item_ipv4 ttl_dst = {
		.hdr.time_to_live = 64, .hdr.dst_addr = RTE_BE32(d2)
	};
	const struct rte_flow_item_ipv4 ttl_dst_m = {
		.hdr.time_to_live = 0xff, .hdr.dst_addr = RTE_BE32(0xffffffff)
	};
	const struct rte_flow_item_udp u9 = { .hdr.dst_port = RTE_BE16(9) };
	const struct rte_flow_item p_ttl_udp[] = {
		ITEM(ETH, NULL, NULL), ITEM(IPV4, &ttl, &ttl_m),
		ITEM(UDP, &u9, &udp_dport_mask), ITEM_END
	};
	const struct rte_flow_item p_ttl_src[] = {
		ITEM(ETH, NULL, NULL), ITEM(IPV4, &ttl_src, &ttl_src_m),
		ITEM_END
	};
	const struct rte_flow_item p_ttl_dst[] = {
		ITEM(ETH, NULL, NULL), ITEM(IPV4, &ttl_dst, &ttl_dst_m),
		ITEM_END
	};
	struct rte_flow *fv1, *fc, *fd, *fv2, *fm, *fvc, *fvd, *fvm;
	struct rte_flow_query_count qc;
	struct pat_ip p1, p3, p5, p6, p7;
	struct act_q q1, q2, q3, q4, q5, q6;
	struct rte_mbuf *r;
	struct pkt k;

	/* Verbs at priority 1 under a matcher COUNT and a matcher DROP at
	 * priority 0. */
	fv1 = flow_new(pb, &a1, pat_ipv4(&p1, 0, d1),
		       act_queue(&q1, 1, RTE_FLOW_ACTION_TYPE_END, NULL));
	fc = flow_new(pb, &a0, p_ttl_udp,
		      act_queue(&q2, 3, RTE_FLOW_ACTION_TYPE_COUNT, NULL));
	fd = flow_new(pb, &a0, p_ttl_src, drop);
	VT_CHECK(fv1 != NULL && fc != NULL && fd != NULL, "flows");
	VT_CHECK(flow_engine_is(fv1, "verbs"), "QUEUE flow on verbs");
	VT_CHECK(flow_engine_is(fc, "mlx5dv"), "TTL COUNT flow on a matcher");
	VT_CHECK(flow_engine_is(fd, "mlx5dv"), "TTL DROP flow on a matcher");
	/* COUNT, DROP and MARK rules verbs can carry stay on verbs. */
	fvc = flow_new(pb, &a1, pat_ipv4(&p5, 0, d3),
		       act_queue(&q5, 2, RTE_FLOW_ACTION_TYPE_COUNT, NULL));
	fvd = flow_new(pb, &a1, pat_ipv4(&p6, bad2, 0), drop);
	fvm = flow_new(pb, &a1, pat_ipv4(&p7, 0, IP(10, 50, 0, 4)),
		       act_queue(&q6, 0, RTE_FLOW_ACTION_TYPE_MARK, &mark));
	VT_CHECK(fvc != NULL && fvd != NULL && fvm != NULL, "flows");
	VT_CHECK(flow_engine_is(fvc, "verbs"), "COUNT flow on verbs");
	VT_CHECK(flow_engine_is(fvd, "verbs"), "DROP flow on verbs");
	VT_CHECK(flow_engine_is(fvm, "verbs"), "MARK flow on verbs");
	k = udp(IP(10, 0, 0, 1), d1, 1, 9, 100);
	VT_CHECK_EQ(xfer_pkt(&k), 3, "matcher at 0 beats verbs at 1");
	k.dport = 10;
	VT_CHECK_EQ(xfer_pkt(&k), 1, "verbs flow alone");
	k.sip = bad;
	VT_CHECK_EQ(xfer_pkt(&k), -1, "matcher DROP at 0 beats verbs at 1");
	VT_CHECK_EQ(count_query(pb, fc, 0, &qc), 0, "query");
	VT_CHECK_EQ(qc.hits, 1, "hits");
	VT_CHECK_EQ(qc.bytes, 100, "bytes");
	k = udp(IP(10, 0, 0, 1), d3, 1, 10, 120);
	VT_CHECK_EQ(xfer_pkt(&k), 2, "verbs COUNT flow");
	VT_CHECK_EQ(count_query(pb, fvc, 0, &qc), 0, "query");
	VT_CHECK_EQ(qc.hits, 1, "verbs COUNT hits");
	VT_CHECK_EQ(qc.bytes, 120, "verbs COUNT bytes");
	k = udp(bad2, IP(10, 50, 0, 5), 1, 10, 120);
	VT_CHECK_EQ(xfer_pkt(&k), -1, "verbs DROP flow");
	/* And the other way: verbs at 0 over a MARK matcher at 1. */
	fv2 = flow_new(pb, &a0, pat_ipv4(&p3, 0, d2),
		       act_queue(&q3, 2, RTE_FLOW_ACTION_TYPE_END, NULL));
	fm = flow_new(pb, &a1, p_ttl_dst,
		      act_queue(&q4, 1, RTE_FLOW_ACTION_TYPE_MARK, &mark));
	VT_CHECK(fv2 != NULL && fm != NULL, "flows");
	VT_CHECK(flow_engine_is(fm, "mlx5dv"), "TTL MARK flow on a matcher");
	k = udp(IP(10, 0, 0, 1), d2, 1, 10, 100);
	VT_CHECK_EQ(xfer(frame(&k), &r), 2, "verbs at 0 beats matcher at 1");
	VT_CHECK((r->ol_flags & RTE_MBUF_F_RX_FDIR) == 0, "marked");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(rte_flow_destroy(pb, fv2, NULL), 0, "destroy");
	VT_CHECK_EQ(xfer(frame(&k), &r), 1, "the matcher once verbs is gone");
	VT_CHECK(r->ol_flags & RTE_MBUF_F_RX_FDIR_ID && r->hash.fdir.hi == 7,
		 "not marked 7");
	rte_pktmbuf_free(r);
	return VT_OK;
}

static int
auto_mix_auto(void)
{
	return in_run(RUN_AUTO, auto_mix);
}

static int
rss_expand_auto(void)
{
	return in_run(RUN_AUTO, rss_expand);
}

/* --- hand-built frames: tags, IPv6, GRE, ESP, fragments, TCP flags --- */

#define FB_MAX 256

struct fb {
	uint8_t b[FB_MAX];
	uint16_t n;
	uint16_t off4[2], off6[2], offu[2]; /* headers whose lengths follow */
	uint8_t n4, n6, nu;
};

/* An IPv4 header as the cases vary it (host order). */
struct v4 {
	uint32_t sip, dip;
	uint8_t proto, tos, ttl, ihl;
	uint16_t frag; /* flags and offset */
};

static struct v4
v4_hdr(uint32_t sip, uint32_t dip, uint8_t proto)
{
	struct v4 h = { sip, dip, proto, 0, 64, 5, 0 };

	return h;
}

static void
fb_init(struct fb *f)
{
	memset(f, 0, sizeof(*f));
}

static void
fb_be16(struct fb *f, uint16_t v)
{
	f->b[f->n++] = (uint8_t)(v >> 8);
	f->b[f->n++] = (uint8_t)v;
}

static void
fb_be32(struct fb *f, uint32_t v)
{
	fb_be16(f, (uint16_t)(v >> 16));
	fb_be16(f, (uint16_t)v);
}

/* Ethernet to port B; type is the first TPID for a tagged frame. */
static void
fb_eth(struct fb *f, uint16_t type)
{
	memcpy(f->b + f->n, mac_b.addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(f->b + f->n + 6, mac_a.addr_bytes, RTE_ETHER_ADDR_LEN);
	f->n += 12;
	fb_be16(f, type);
}

/* A tag: TCI, then the type after it (the next TPID or the L3 type). */
static void
fb_tag(struct fb *f, uint16_t tci, uint16_t type)
{
	fb_be16(f, tci);
	fb_be16(f, type);
}

static void
fb_ipv4(struct fb *f, const struct v4 *h)
{
	unsigned int i;

	f->off4[f->n4++] = f->n;
	f->b[f->n++] = (uint8_t)(0x40 | h->ihl);
	f->b[f->n++] = h->tos;
	fb_be16(f, 0); /* total length, at the end */
	fb_be16(f, 0x1234);
	fb_be16(f, h->frag);
	f->b[f->n++] = h->ttl;
	f->b[f->n++] = h->proto;
	fb_be16(f, 0); /* checksum, at the end */
	fb_be32(f, h->sip);
	fb_be32(f, h->dip);
	for (i = 5; i < h->ihl; i++)
		fb_be32(f, 0x01010101); /* NOP options */
}

/* 2001:db8::<s> > 2001:db8::<d>; frag adds a fragment header (first
 * fragment: offset 0, M set) before next header nh. */
static void
fb_ipv6(struct fb *f, uint8_t s, uint8_t d, uint8_t nh, uint8_t tc,
	uint32_t flow_label, uint8_t hop, bool frag)
{
	static const uint8_t prefix[14] = { 0x20, 0x01, 0x0d, 0xb8 };

	f->off6[f->n6++] = f->n;
	fb_be32(f, 6u << 28 | (uint32_t)tc << 20 | (flow_label & 0xfffff));
	fb_be16(f, 0); /* payload length, at the end */
	f->b[f->n++] = frag ? 44 : nh;
	f->b[f->n++] = hop;
	memcpy(f->b + f->n, prefix, sizeof(prefix));
	f->b[f->n + 14] = 0;
	f->b[f->n + 15] = s;
	f->n += 16;
	memcpy(f->b + f->n, prefix, sizeof(prefix));
	f->b[f->n + 14] = 0;
	f->b[f->n + 15] = d;
	f->n += 16;
	if (frag) {
		f->b[f->n++] = nh;
		f->b[f->n++] = 0;
		fb_be16(f, 0x0001); /* offset 0, more fragments */
		fb_be32(f, 0xabcd);
	}
}

static void
fb_udp(struct fb *f, uint16_t sport, uint16_t dport)
{
	f->offu[f->nu++] = f->n;
	fb_be16(f, sport);
	fb_be16(f, dport);
	fb_be32(f, 0); /* length (at the end), no checksum */
}

/* flags: the 9 flag bits, NS in bit 8. */
static void
fb_tcp(struct fb *f, uint16_t sport, uint16_t dport, uint16_t flags)
{
	fb_be16(f, sport);
	fb_be16(f, dport);
	fb_be32(f, 1);
	fb_be32(f, 0);
	f->b[f->n++] = (uint8_t)(0x50 | (flags >> 8 & 1));
	f->b[f->n++] = (uint8_t)flags;
	fb_be16(f, 8192);
	fb_be32(f, 0);
}

#define GRE_C 0x8000
#define GRE_K 0x2000
#define GRE_S 0x1000

/* GRE with the optional fields its C/K/S bits announce. */
static void
fb_gre(struct fb *f, uint16_t cks, uint16_t proto, uint32_t key)
{
	fb_be16(f, cks);
	fb_be16(f, proto);
	if (cks & GRE_C)
		fb_be32(f, 0);
	if (cks & GRE_K)
		fb_be32(f, key);
	if (cks & GRE_S)
		fb_be32(f, 7);
}

static void
fb_esp(struct fb *f, uint32_t spi)
{
	fb_be32(f, spi);
	fb_be32(f, 1);
}

/* Pad to 64 bytes, write the lengths and checksums, make the mbuf. */
static struct rte_mbuf *
fb_mbuf(struct fb *f)
{
	struct rte_mbuf *m;
	unsigned int i;
	uint8_t *p;

	while (f->n < 64)
		f->b[f->n] = (uint8_t)f->n, f->n++;
	for (i = 0; i < f->nu; i++) {
		uint16_t len = f->n - f->offu[i];

		f->b[f->offu[i] + 4] = (uint8_t)(len >> 8);
		f->b[f->offu[i] + 5] = (uint8_t)len;
	}
	for (i = 0; i < f->n6; i++) {
		uint16_t len = f->n - f->off6[i] - 40;

		f->b[f->off6[i] + 4] = (uint8_t)(len >> 8);
		f->b[f->off6[i] + 5] = (uint8_t)len;
	}
	for (i = 0; i < f->n4; i++) {
		struct rte_ipv4_hdr *ip =
			(struct rte_ipv4_hdr *)(f->b + f->off4[i]);

		ip->total_length = rte_cpu_to_be_16(f->n - f->off4[i]);
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	m = rte_pktmbuf_alloc(pool);
	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, f->n);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memcpy(p, f->b, f->n);
	return m;
}

/* Ethernet (untagged) / IPv4 h / UDP. */
static void
fb_v4_udp(struct fb *f, const struct v4 *h, uint16_t sport, uint16_t dport)
{
	fb_init(f);
	fb_eth(f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(f, h);
	if (h->proto == IPPROTO_UDP)
		fb_udp(f, sport, dport);
	else if (h->proto == IPPROTO_TCP)
		fb_tcp(f, sport, dport, RTE_TCP_ACK_FLAG);
}

/*
 * Send a hand-built frame; it must arrive once, on queue q (any queue when
 * q < 0), carrying MARK id (no FDIR flag at all when id < 0). The MARK is
 * the oracle of "the rule matched": unmatched frames go to default RSS.
 */
static int
fb_expect(struct fb *f, int q, int id, const char *what)
{
	struct rte_mbuf *r;
	uint64_t fl;
	uint32_t hi;
	int got;

	got = xfer(fb_mbuf(f), &r);
	VT_CHECK(got >= 0, "%s: %s", what,
		 got == -1 ? "never arrived" : "arrived more than once");
	fl = r->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID);
	hi = r->hash.fdir.hi;
	rte_pktmbuf_free(r);
	if (id < 0)
		VT_CHECK_EQ(fl, 0, "%s: marked (id %u): a rule matched", what,
			    hi);
	else
		VT_CHECK(fl == (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID) &&
				 hi == (uint32_t)id,
			 "%s: flags 0x%" PRIx64 " id %u, want MARK %d", what,
			 fl, hi, id);
	if (q >= 0)
		VT_CHECK_EQ(got, q, "%s: queue", what);
	return VT_OK;
}

/* rte_softrss over an IPv6 pair (2001:db8::s > ::d), ports when l4. */
static uint32_t
toeplitz6(const uint8_t *key, uint8_t s, uint8_t d, uint16_t sport,
	  uint16_t dport, bool l4)
{
	static const uint8_t prefix[14] = { 0x20, 0x01, 0x0d, 0xb8 };
	struct rte_ipv6_hdr ip;
	union rte_thash_tuple t;

	memset(&ip, 0, sizeof(ip));
	memcpy(ip.src_addr, prefix, sizeof(prefix));
	memcpy(ip.dst_addr, prefix, sizeof(prefix));
	ip.src_addr[15] = s;
	ip.dst_addr[15] = d;
	memset(&t, 0, sizeof(t));
	rte_thash_load_v6_addrs(&ip, &t);
	t.v6.sport = sport;
	t.v6.dport = dport;
	return rte_softrss((uint32_t *)&t,
			   l4 ? RTE_THASH_V6_L4_LEN : RTE_THASH_V6_L3_LEN, key);
}

/* --- engine capabilities a case changes (restored after it) --- */

static struct vsteer_priv *
priv_b(void)
{
	return vsteer_priv(&rte_eth_devices[pb]);
}

struct caps {
	uint32_t dv_ok, devx_ok, verbs_esp_ok;
};

static struct caps
caps_set(int dv_ok, int devx_ok, int verbs_esp_ok)
{
	struct vsteer_priv *p = priv_b();
	struct caps saved = { p->dv_ok, p->devx_ok, p->verbs_esp_ok };

	if (dv_ok >= 0)
		p->dv_ok = (uint32_t)dv_ok;
	if (devx_ok >= 0)
		p->devx_ok = (uint32_t)devx_ok;
	if (verbs_esp_ok >= 0)
		p->verbs_esp_ok = (uint32_t)verbs_esp_ok;
	return saved;
}

static void
caps_restore(struct caps c)
{
	struct vsteer_priv *p = priv_b();

	p->dv_ok = c.dv_ok;
	p->devx_ok = c.devx_ok;
	p->verbs_esp_ok = c.verbs_esp_ok;
}

/*
 * A rule only the matcher can express: flow_engine=verbs refuses it
 * (validate and create alike) with ENOTSUP, the error type and cause
 * given, and a message naming the field; dv makes it; auto makes it on a
 * matcher. *out gets the flow (NULL on verbs).
 */
static int
matcher_rule(const char *what, const struct rte_flow_item *pattern,
	     const struct rte_flow_action *actions,
	     enum rte_flow_error_type type, const void *cause,
	     const char *field, struct rte_flow **out)
{
	struct rte_flow_error err;
	char msg[160];
	int ret;

	*out = NULL;
	if (cur == RUN_VERBS) {
		snprintf(msg, sizeof(msg), "%s: verbs cannot", field);
		CHECK_OK(expect_err(what, &attr_in, pattern, actions, ENOTSUP,
				    type, cause, msg));
		return VT_OK;
	}
	memset(&err, 0, sizeof(err));
	ret = rte_flow_validate(pb, &attr_in, pattern, actions, &err);
	VT_CHECK_EQ(ret, 0, "%s: validate: %s", what,
		    err.message ? err.message : "");
	*out = flow_new(pb, &attr_in, pattern, actions);
	VT_CHECK(*out != NULL, "%s: create", what);
	if (cur == RUN_AUTO)
		VT_CHECK(flow_engine_is(*out, "mlx5dv"), "%s: engine", what);
	return VT_OK;
}

/* IPv4 time_to_live and IPv6 hop_limits (matcher only). */
static int
ttl_hop(void)
{
	const struct rte_flow_item_ipv4 v4 = { .hdr.time_to_live = 2 };
	const struct rte_flow_item_ipv4 v4m = { .hdr.time_to_live = 0xff };
	const struct rte_flow_item_ipv6 v6 = { .hdr.hop_limits = 60 };
	const struct rte_flow_item_ipv6 v6m = { .hdr.hop_limits = 0xff };
	const struct rte_flow_item p4[] = { ITEM(ETH, NULL, NULL),
					    ITEM(IPV4, &v4, &v4m), ITEM_END };
	const struct rte_flow_item p6[] = { ITEM(ETH, NULL, NULL),
					    ITEM(IPV6, &v6, &v6m), ITEM_END };
	const struct rte_flow_action_mark m1 = { .id = 1 }, m2 = { .id = 2 };
	struct rte_flow *f1, *f2;
	struct act_q a1, a2;
	struct fb f;
	struct v4 h;

	CHECK_OK(matcher_rule("ttl is 2", p4,
			      act_queue(&a1, 3, RTE_FLOW_ACTION_TYPE_MARK, &m1),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p4[1],
			      "IPv4 item: time_to_live", &f1));
	CHECK_OK(matcher_rule("hop is 60", p6,
			      act_queue(&a2, 2, RTE_FLOW_ACTION_TYPE_MARK, &m2),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p6[1],
			      "IPv6 item: hop_limits", &f2));
	if (cur == RUN_VERBS)
		return VT_OK;
	h = v4_hdr(IP(10, 0, 0, 1), IP(10, 0, 0, 2), IPPROTO_UDP);
	h.ttl = 2;
	fb_v4_udp(&f, &h, 1000, 2000);
	CHECK_OK(fb_expect(&f, 3, 1, "IPv4 UDP ttl 2"));
	h.proto = IPPROTO_TCP;
	fb_v4_udp(&f, &h, 1000, 2000);
	CHECK_OK(fb_expect(&f, 3, 1, "IPv4 TCP ttl 2"));
	h.ttl = 3;
	fb_v4_udp(&f, &h, 1000, 2000);
	CHECK_OK(fb_expect(&f, -1, -1, "IPv4 ttl 3"));
	h.ttl = 64;
	fb_v4_udp(&f, &h, 1000, 2000);
	CHECK_OK(fb_expect(&f, -1, -1, "IPv4 ttl 64"));

	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV6);
	fb_ipv6(&f, 1, 2, IPPROTO_UDP, 0, 0, 60, false);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, 2, 2, "IPv6 hop 60"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV6);
	fb_ipv6(&f, 1, 2, IPPROTO_UDP, 0, 0, 61, false);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, -1, -1, "IPv6 hop 61"));
	/* The IPv4 rule is no rule on IPv6's hop limit. */
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV6);
	fb_ipv6(&f, 1, 2, IPPROTO_UDP, 0, 0, 2, false);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, -1, -1, "IPv6 hop 2"));
	return VT_OK;
}
PER_ENGINE3(ttl_hop)

/*
 * Fragments, as rte_flow defines them: fragment_offset spec 0 mask 0x3fff
 * is "not a fragment" (DF does not count), spec 1 last 0x3fff mask 0x3fff
 * "is a fragment"; IPv6 has_frag_ext 0 / 1.
 */
static int
fragments(void)
{
	const struct rte_flow_item_ipv4 v4_not = { .hdr.fragment_offset = 0 };
	const struct rte_flow_item_ipv4 v4_is = { .hdr.fragment_offset =
							  RTE_BE16(1) };
	const struct rte_flow_item_ipv4 v4_is_last = {
		.hdr.fragment_offset = RTE_BE16(0x3fff)
	};
	const struct rte_flow_item_ipv4 v4_m = {
		.hdr.fragment_offset = RTE_BE16(0x3fff),
		.hdr.dst_addr = RTE_BE32(0xffffffff),
	};
	struct rte_flow_item_ipv4 v4_not_d = v4_not, v4_is_d = v4_is;
	struct rte_flow_item_ipv6 v6_not = { .has_frag_ext = 0 };
	struct rte_flow_item_ipv6 v6_is = { .has_frag_ext = 1 };
	struct rte_flow_item_ipv6 v6_m = { .has_frag_ext = 1 };
	const uint32_t dst = IP(10, 30, 0, 1);
	const struct rte_flow_action_mark m1 = { .id = 1 }, m2 = { .id = 2 };
	const struct rte_flow_action_mark m3 = { .id = 3 }, m4 = { .id = 4 };
	struct rte_flow_item p_not[3], p_is[3], p6_not[3], p6_is[3];
	struct rte_flow *f1, *f2, *f3, *f4;
	struct act_q a1, a2, a3, a4;
	struct fb f;
	struct v4 h;

	v4_not_d.hdr.dst_addr = RTE_BE32(dst);
	v4_is_d.hdr.dst_addr = RTE_BE32(dst);
	memset(p_not, 0, sizeof(p_not));
	p_not[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	p_not[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	p_not[1].spec = &v4_not_d;
	p_not[1].mask = &v4_m;
	p_not[2].type = RTE_FLOW_ITEM_TYPE_END;
	memcpy(p_is, p_not, sizeof(p_is));
	p_is[1].spec = &v4_is_d;
	p_is[1].last = &v4_is_last;
	memcpy(p6_not, p_not, sizeof(p6_not));
	p6_not[1].type = RTE_FLOW_ITEM_TYPE_IPV6;
	p6_not[1].spec = &v6_not;
	p6_not[1].mask = &v6_m;
	memcpy(p6_is, p6_not, sizeof(p6_is));
	p6_is[1].spec = &v6_is;

	CHECK_OK(matcher_rule("not a fragment", p_not,
			      act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_MARK, &m1),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_not[1],
			      "IPv4 item: fragment_offset", &f1));
	/* verbs refuses the mask before it looks at the range. */
	CHECK_OK(matcher_rule("is a fragment", p_is,
			      act_queue(&a2, 2, RTE_FLOW_ACTION_TYPE_MARK, &m2),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_is[1],
			      "IPv4 item: fragment_offset", &f2));
	CHECK_OK(matcher_rule("IPv6 no fragment header", p6_not,
			      act_queue(&a3, 3, RTE_FLOW_ACTION_TYPE_MARK, &m3),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p6_not[1],
			      "IPv6 item: has_frag_ext", &f3));
	CHECK_OK(matcher_rule("IPv6 fragment header", p6_is,
			      act_queue(&a4, 0, RTE_FLOW_ACTION_TYPE_MARK, &m4),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p6_is[1],
			      "IPv6 item: has_frag_ext", &f4));
	if (cur == RUN_VERBS)
		return VT_OK;
	h = v4_hdr(IP(10, 0, 0, 1), dst, IPPROTO_UDP);
	fb_v4_udp(&f, &h, 1, 2);
	CHECK_OK(fb_expect(&f, 1, 1, "whole datagram"));
	h.frag = 0x4000; /* DF */
	fb_v4_udp(&f, &h, 1, 2);
	CHECK_OK(fb_expect(&f, 1, 1, "DF: not a fragment"));
	h.frag = 0x2000; /* MF, offset 0: the first fragment */
	fb_v4_udp(&f, &h, 1, 2);
	CHECK_OK(fb_expect(&f, 2, 2, "first fragment"));
	h.frag = 0x0064; /* offset 100, no MF: the last fragment */
	fb_v4_udp(&f, &h, 1, 2);
	CHECK_OK(fb_expect(&f, 2, 2, "last fragment"));
	h.frag = 0x6010; /* DF | MF, offset 16 */
	fb_v4_udp(&f, &h, 1, 2);
	CHECK_OK(fb_expect(&f, 2, 2, "middle fragment with DF"));
	h.frag = 0;
	h.dip = dst + 1;
	fb_v4_udp(&f, &h, 1, 2);
	CHECK_OK(fb_expect(&f, -1, -1, "other destination"));

	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV6);
	fb_ipv6(&f, 1, 2, IPPROTO_UDP, 0, 0, 64, false);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, 3, 3, "IPv6 whole datagram"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV6);
	fb_ipv6(&f, 1, 2, IPPROTO_UDP, 0, 0, 64, true);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, 0, 4, "IPv6 fragment"));
	return VT_OK;
}
PER_ENGINE3(fragments)

/* TCP flags: a pure SYN (SYN set; FIN, RST, ACK clear), and NS. */
static int
tcp_flags(void)
{
	const struct rte_flow_item_tcp syn = { .hdr.tcp_flags =
						       RTE_TCP_SYN_FLAG };
	const struct rte_flow_item_tcp syn_m = {
		.hdr.tcp_flags = RTE_TCP_FIN_FLAG | RTE_TCP_SYN_FLAG |
				 RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG
	};
	const struct rte_flow_item_tcp ns = { .hdr.data_off = 0x01 };
	const struct rte_flow_item_tcp ns_m = { .hdr.data_off = 0x01 };
	const struct rte_flow_item p_syn[] = { ITEM(ETH, NULL, NULL),
					       ITEM(IPV4, NULL, NULL),
					       ITEM(TCP, &syn, &syn_m),
					       ITEM_END };
	const struct rte_flow_item p_ns[] = { ITEM(ETH, NULL, NULL),
					      ITEM(IPV4, NULL, NULL),
					      ITEM(TCP, &ns, &ns_m), ITEM_END };
	const struct rte_flow_action_mark m1 = { .id = 1 }, m2 = { .id = 2 };
	struct rte_flow *f1, *f2;
	struct act_q a1, a2;
	struct fb f;
	struct v4 h = v4_hdr(IP(10, 0, 0, 1), IP(10, 0, 0, 2), IPPROTO_TCP);

	CHECK_OK(matcher_rule("pure SYN", p_syn,
			      act_queue(&a1, 3, RTE_FLOW_ACTION_TYPE_MARK, &m1),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_syn[2],
			      "TCP item: tcp_flags", &f1));
	CHECK_OK(matcher_rule("NS", p_ns,
			      act_queue(&a2, 1, RTE_FLOW_ACTION_TYPE_MARK, &m2),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_ns[2],
			      "TCP item: data_off NS flag", &f2));
	if (cur == RUN_VERBS)
		return VT_OK;
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_tcp(&f, 1000, 80, RTE_TCP_SYN_FLAG);
	CHECK_OK(fb_expect(&f, 3, 1, "SYN"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_tcp(&f, 1000, 80, RTE_TCP_SYN_FLAG | RTE_TCP_PSH_FLAG);
	CHECK_OK(fb_expect(&f, 3, 1, "SYN+PSH (PSH not in the mask)"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_tcp(&f, 1000, 80, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	CHECK_OK(fb_expect(&f, -1, -1, "SYN+ACK"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_tcp(&f, 1000, 80, RTE_TCP_ACK_FLAG);
	CHECK_OK(fb_expect(&f, -1, -1, "ACK"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_tcp(&f, 1000, 80, 0x100 | RTE_TCP_ACK_FLAG);
	CHECK_OK(fb_expect(&f, 1, 2, "NS+ACK"));
	return VT_OK;
}
PER_ENGINE3(tcp_flags)

/*
 * Tag presence: has_vlan 1 (an 802.1Q tag first), has_vlan 0 (no tag),
 * an empty VLAN item (some 802.1Q tag).
 */
static int
vlan_presence(void)
{
	const uint32_t d1 = IP(10, 31, 0, 1), d2 = IP(10, 31, 0, 2);
	const struct rte_flow_item_eth e1 = { .has_vlan = 1 };
	const struct rte_flow_item_eth e0 = { .has_vlan = 0 };
	const struct rte_flow_item_eth em = { .has_vlan = 1 };
	const struct rte_flow_item_ipv4 i1 = { .hdr.dst_addr = RTE_BE32(d1) };
	const struct rte_flow_item_ipv4 i2 = { .hdr.dst_addr = RTE_BE32(d2) };
	const struct rte_flow_item p_tag[] = { ITEM(ETH, &e1, &em),
					       ITEM(IPV4, &i1, &ipv4_dst_mask),
					       ITEM_END };
	const struct rte_flow_item p_untag[] = {
		ITEM(ETH, &e0, &em), ITEM(IPV4, &i1, &ipv4_dst_mask), ITEM_END
	};
	const struct rte_flow_item p_vlan[] = { ITEM(ETH, NULL, NULL),
						ITEM(VLAN, NULL, NULL),
						ITEM(IPV4, &i2, &ipv4_dst_mask),
						ITEM_END };
	const struct rte_flow_action_mark m1 = { .id = 1 }, m2 = { .id = 2 };
	const struct rte_flow_action_mark m3 = { .id = 3 };
	struct rte_flow *f1, *f2, *f3;
	struct act_q a1, a2, a3;
	struct fb f;
	struct v4 h1 = v4_hdr(IP(10, 0, 0, 1), d1, IPPROTO_UDP);
	struct v4 h2 = v4_hdr(IP(10, 0, 0, 1), d2, IPPROTO_UDP);

	CHECK_OK(matcher_rule("has_vlan 1", p_tag,
			      act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_MARK, &m1),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_tag[0],
			      "ETH item: has_vlan", &f1));
	CHECK_OK(matcher_rule("has_vlan 0", p_untag,
			      act_queue(&a2, 2, RTE_FLOW_ACTION_TYPE_MARK, &m2),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_untag[0],
			      "ETH item: has_vlan", &f2));
	CHECK_OK(matcher_rule("empty VLAN", p_vlan,
			      act_queue(&a3, 3, RTE_FLOW_ACTION_TYPE_MARK, &m3),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_vlan[1],
			      "VLAN item: tag presence alone (empty tci mask)",
			      &f3));
	if (cur == RUN_VERBS)
		return VT_OK;
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_VLAN);
	fb_tag(&f, 5, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h1);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, 1, 1, "802.1Q-tagged, has_vlan 1"));
	fb_v4_udp(&f, &h1, 1, 2);
	CHECK_OK(fb_expect(&f, 2, 2, "untagged, has_vlan 0"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_QINQ);
	fb_tag(&f, 5, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h1);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, -1, -1, "802.1ad-tagged: neither"));

	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_VLAN);
	fb_tag(&f, 0xe123, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h2);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, 3, 3, "tagged, empty VLAN item"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_VLAN);
	fb_tag(&f, 0, RTE_ETHER_TYPE_IPV4); /* priority tag, VID 0 */
	fb_ipv4(&f, &h2);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, 3, 3, "priority-tagged, empty VLAN item"));
	fb_v4_udp(&f, &h2, 1, 2);
	CHECK_OK(fb_expect(&f, -1, -1, "untagged, empty VLAN item"));
	return VT_OK;
}
PER_ENGINE3(vlan_presence)

/*
 * QinQ: ETH type 0x88a8 makes the first tag an 802.1ad one; has_more_vlan
 * or a TPID inner_type asks for a second (802.1Q) tag, a non-TPID
 * inner_type for none.
 */
static int
qinq(void)
{
	const struct rte_flow_item_eth e_s = { .hdr.ether_type = RTE_BE16(
						       RTE_ETHER_TYPE_QINQ) };
	const struct rte_flow_item_eth e_m = { .hdr.ether_type =
						       RTE_BE16(0xffff) };
	const struct rte_flow_item_vlan v_more = {
		.hdr.vlan_tci = RTE_BE16(100), .has_more_vlan = 1
	};
	const struct rte_flow_item_vlan v_more_m = {
		.hdr.vlan_tci = RTE_BE16(0x0fff), .has_more_vlan = 1
	};
	const struct rte_flow_item_vlan v_one = {
		.hdr.vlan_tci = RTE_BE16(100),
		.hdr.eth_proto = RTE_BE16(RTE_ETHER_TYPE_IPV4)
	};
	const struct rte_flow_item_vlan v_tpid = {
		.hdr.vlan_tci = RTE_BE16(300),
		.hdr.eth_proto = RTE_BE16(RTE_ETHER_TYPE_VLAN)
	};
	const struct rte_flow_item_vlan v_m = {
		.hdr.vlan_tci = RTE_BE16(0x0fff),
		.hdr.eth_proto = RTE_BE16(0xffff)
	};
	const struct rte_flow_item p_more[] = { ITEM(ETH, &e_s, &e_m),
						ITEM(VLAN, &v_more, &v_more_m),
						ITEM_END };
	const struct rte_flow_item p_one[] = { ITEM(ETH, &e_s, &e_m),
					       ITEM(VLAN, &v_one, &v_m),
					       ITEM_END };
	const struct rte_flow_item p_tpid[] = { ITEM(ETH, &e_s, &e_m),
						ITEM(VLAN, &v_tpid, &v_m),
						ITEM_END };
	const struct rte_flow_action_mark m1 = { .id = 1 }, m2 = { .id = 2 };
	const struct rte_flow_action_mark m3 = { .id = 3 };
	struct rte_flow *f1, *f2, *f3;
	struct act_q a1, a2, a3;
	struct fb f;
	struct v4 h = v4_hdr(IP(10, 0, 0, 1), IP(10, 32, 0, 1), IPPROTO_UDP);

	CHECK_OK(
		matcher_rule("S-tag 100 and a C-tag", p_more,
			     act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_MARK, &m1),
			     RTE_FLOW_ERROR_TYPE_ITEM_SPEC, &p_more[0],
			     "ETH item: type 0x88a8 (the first tag is 802.1ad)",
			     &f1));
	CHECK_OK(
		matcher_rule("S-tag 100 alone", p_one,
			     act_queue(&a2, 2, RTE_FLOW_ACTION_TYPE_MARK, &m2),
			     RTE_FLOW_ERROR_TYPE_ITEM_SPEC, &p_one[0],
			     "ETH item: type 0x88a8 (the first tag is 802.1ad)",
			     &f2));
	CHECK_OK(
		matcher_rule("S-tag 300, inner_type 0x8100", p_tpid,
			     act_queue(&a3, 3, RTE_FLOW_ACTION_TYPE_MARK, &m3),
			     RTE_FLOW_ERROR_TYPE_ITEM_SPEC, &p_tpid[0],
			     "ETH item: type 0x88a8 (the first tag is 802.1ad)",
			     &f3));
	if (cur == RUN_VERBS)
		return VT_OK;
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_QINQ);
	fb_tag(&f, 100, RTE_ETHER_TYPE_VLAN);
	fb_tag(&f, 200, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, 1, 1, "S100 C200"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_QINQ);
	fb_tag(&f, 0x2000 | 100, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, 2, 2, "S100 (PCP 1) alone"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_VLAN);
	fb_tag(&f, 100, RTE_ETHER_TYPE_VLAN);
	fb_tag(&f, 200, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, -1, -1, "C100 C200: not an S-tag"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_QINQ);
	fb_tag(&f, 101, RTE_ETHER_TYPE_VLAN);
	fb_tag(&f, 200, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, -1, -1, "S101 C200"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_QINQ);
	fb_tag(&f, 300, RTE_ETHER_TYPE_VLAN);
	fb_tag(&f, 7, RTE_ETHER_TYPE_IPV6);
	fb_ipv6(&f, 1, 2, IPPROTO_UDP, 0, 0, 64, false);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, 3, 3, "S300 C7 IPv6"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_QINQ);
	fb_tag(&f, 300, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_udp(&f, 1, 2);
	CHECK_OK(fb_expect(&f, -1, -1, "S300 alone: no second tag"));
	return VT_OK;
}
PER_ENGINE3(qinq)

/* GRE C/K/S bits: key present and no checksum or sequence number; none. */
static int
gre_bits(void)
{
	const struct rte_flow_item_gre g_k = { .c_rsvd0_ver = RTE_BE16(GRE_K) };
	const struct rte_flow_item_gre g_none = {
		.protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4)
	};
	const struct rte_flow_item_gre g_m = { .c_rsvd0_ver = RTE_BE16(
						       GRE_C | GRE_K | GRE_S) };
	const struct rte_flow_item_gre g_pm = { .c_rsvd0_ver = RTE_BE16(
							GRE_C | GRE_K | GRE_S),
						.protocol = RTE_BE16(0xffff) };
	const struct rte_flow_item p_k[] = { ITEM(ETH, NULL, NULL),
					     ITEM(IPV4, NULL, NULL),
					     ITEM(GRE, &g_k, &g_m), ITEM_END };
	const struct rte_flow_item p_none[] = { ITEM(ETH, NULL, NULL),
						ITEM(IPV4, NULL, NULL),
						ITEM(GRE, &g_none, &g_pm),
						ITEM_END };
	const struct rte_flow_action_mark m1 = { .id = 1 }, m2 = { .id = 2 };
	struct rte_flow *f1, *f2;
	struct act_q a1, a2;
	struct v4 o = v4_hdr(IP(10, 1, 0, 1), IP(10, 1, 0, 2), IPPROTO_GRE);
	struct v4 in = v4_hdr(IP(10, 2, 0, 1), IP(10, 2, 0, 2), IPPROTO_UDP);
	static const uint16_t bits[] = { GRE_K,		0,     GRE_C | GRE_K,
					 GRE_K | GRE_S, GRE_C, GRE_S };
	static const int want[] = { 1, 2, -1, -1, -1, -1 };
	struct fb f;
	unsigned int i;
	char what[64];

	CHECK_OK(matcher_rule("GRE K only", p_k,
			      act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_MARK, &m1),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_k[2],
			      "GRE item: c_rsvd0_ver C bit", &f1));
	CHECK_OK(matcher_rule("GRE no option", p_none,
			      act_queue(&a2, 2, RTE_FLOW_ACTION_TYPE_MARK, &m2),
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_none[2],
			      "GRE item: c_rsvd0_ver C bit", &f2));
	if (cur == RUN_VERBS)
		return VT_OK;
	for (i = 0; i < RTE_DIM(bits); i++) {
		fb_init(&f);
		fb_eth(&f, RTE_ETHER_TYPE_IPV4);
		fb_ipv4(&f, &o);
		fb_gre(&f, bits[i], RTE_ETHER_TYPE_IPV4, 0x1234);
		fb_ipv4(&f, &in);
		fb_udp(&f, 1, 2);
		snprintf(what, sizeof(what), "GRE flags 0x%04x", bits[i]);
		CHECK_OK(fb_expect(&f, want[i] < 0 ? -1 : want[i], want[i],
				   what));
	}
	return VT_OK;
}
PER_ENGINE3(gre_bits)

/*
 * ESP SPI on a device whose kernel refuses the verbs ESP spec
 * (verbs_esp_ok 0): only the matcher (misc.outer_esp_spi) takes it.
 */
static int
esp_spi_body(void)
{
	const struct rte_flow_item_esp e = { .hdr.spi = RTE_BE32(0x1234) };
	const struct rte_flow_item p[] = { ITEM(ETH, NULL, NULL),
					   ITEM(IPV4, NULL, NULL),
					   ITEM(ESP, &e, NULL), ITEM_END };
	const struct rte_flow_action_mark m1 = { .id = 1 };
	struct rte_flow *f1;
	struct act_q a1;
	struct v4 h = v4_hdr(IP(10, 3, 0, 1), IP(10, 3, 0, 2), IPPROTO_ESP);
	struct fb f;

	CHECK_OK(matcher_rule("ESP spi", p,
			      act_queue(&a1, 2, RTE_FLOW_ACTION_TYPE_MARK, &m1),
			      RTE_FLOW_ERROR_TYPE_ITEM, &p[2],
			      "ESP item: the ESP header", &f1));
	if (cur == RUN_VERBS)
		return VT_OK;
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_esp(&f, 0x1234);
	CHECK_OK(fb_expect(&f, 2, 1, "SPI 0x1234"));
	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	fb_esp(&f, 0x1235);
	CHECK_OK(fb_expect(&f, -1, -1, "SPI 0x1235"));
	h.proto = IPPROTO_UDP;
	fb_v4_udp(&f, &h, 0x0000, 0x1234);
	CHECK_OK(fb_expect(&f, -1, -1, "UDP, not ESP"));
	return VT_OK;
}

static int
esp_spi(void)
{
	struct caps saved = caps_set(-1, -1, 0);
	int ret = esp_spi_body();

	caps_restore(saved);
	return ret;
}
PER_ENGINE3(esp_spi)

/* Degenerate ranges: last equal to spec, or 0, is an exact match. */
static int
degenerate(void)
{
	const uint32_t dst = IP(10, 33, 0, 1), src = IP(10, 33, 1, 1);
	const struct rte_flow_item_ipv4 i_spec = {
		.hdr.src_addr = RTE_BE32(src), .hdr.dst_addr = RTE_BE32(dst)
	};
	const struct rte_flow_item_ipv4 i_last = {
		.hdr.src_addr = 0, .hdr.dst_addr = RTE_BE32(dst)
	};
	const struct rte_flow_item_ipv4 i_mask = {
		.hdr.src_addr = RTE_BE32(0xffffffff),
		.hdr.dst_addr = RTE_BE32(0xffffffff)
	};
	const struct rte_flow_item_udp u = { .hdr.dst_port = RTE_BE16(53) };
	const struct rte_flow_item p[] = { ITEM(ETH, NULL, NULL),
					   { .type = RTE_FLOW_ITEM_TYPE_IPV4,
					     .spec = &i_spec,
					     .last = &i_last,
					     .mask = &i_mask },
					   { .type = RTE_FLOW_ITEM_TYPE_UDP,
					     .spec = &u,
					     .last = &u,
					     .mask = &udp_dport_mask },
					   ITEM_END };
	const struct rte_flow_action_mark m1 = { .id = 1 };
	struct act_q a1;
	struct fb f;
	struct v4 h = v4_hdr(src, dst, IPPROTO_UDP);

	CHECK_OK(expect_agree("degenerate ranges", &attr_in, p,
			      act_queue(&a1, 3, RTE_FLOW_ACTION_TYPE_MARK,
					&m1)));
	VT_CHECK(flow_new(pb, &attr_in, p,
			  act_queue(&a1, 3, RTE_FLOW_ACTION_TYPE_MARK, &m1)) !=
			 NULL,
		 "degenerate ranges");
	fb_v4_udp(&f, &h, 1, 53);
	CHECK_OK(fb_expect(&f, 3, 1, "exact match"));
	fb_v4_udp(&f, &h, 1, 54);
	CHECK_OK(fb_expect(&f, -1, -1, "port 54: last is no range"));
	h.dip = dst + 1;
	fb_v4_udp(&f, &h, 1, 53);
	CHECK_OK(fb_expect(&f, -1, -1, "dst + 1: last is no range"));
	h.dip = dst;
	h.sip = src + 1;
	fb_v4_udp(&f, &h, 1, 53);
	CHECK_OK(fb_expect(&f, -1, -1, "src + 1: last 0 is no wildcard"));
	return VT_OK;
}
PER_ENGINE3(degenerate)

/*
 * Open vSwitch 3.1's partial offload (lib/netdev-offload-dpdk.c): ETH
 * with both MACs, the type and has_vlan 0; IPv4 "not a fragment" or IPv6
 * has_frag_ext 0 or nothing (ARP); MARK + RSS over every queue with types
 * IP | TCP | UDP, level 0, no key. Frames are marked and on the queue the
 * port key's Toeplitz hash picks; the rules outlive a stop/start.
 */
static int
ovs_shapes(void)
{
	static const uint16_t qs[NQ] = { 0, 1, 2, 3 };
	const struct rte_flow_action_rss rss = {
		.func = RTE_ETH_HASH_FUNCTION_DEFAULT,
		.level = 0,
		.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP,
		.key_len = 0,
		.key = NULL,
		.queue_num = NQ,
		.queue = qs,
	};
	struct rte_flow_item_eth e4, e6, earp, em;
	const struct rte_flow_item_ipv4 i4 = { .hdr.fragment_offset = 0 };
	const struct rte_flow_item_ipv4 i4m = { .hdr.fragment_offset =
							RTE_BE16(0x3fff) };
	const struct rte_flow_item_ipv6 i6 = { .has_frag_ext = 0 };
	const struct rte_flow_item_ipv6 i6m = { .has_frag_ext = 1 };
	const struct rte_flow_action_mark m1 = { .id = 1 }, m2 = { .id = 2 };
	const struct rte_flow_action_mark m3 = { .id = 3 };
	const struct rte_flow_action act1[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &m1 },
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act2[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &m2 },
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act3[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &m3 },
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_item p4[] = { ITEM(ETH, &e4, &em),
				      ITEM(IPV4, &i4, &i4m), ITEM_END };
	struct rte_flow_item p6[] = { ITEM(ETH, &e6, &em),
				      ITEM(IPV6, &i6, &i6m), ITEM_END };
	struct rte_flow_item parp[] = { ITEM(ETH, &earp, &em), ITEM_END };
	struct rte_flow *f4, *f6, *farp;
	struct pkt k;
	struct fb f;
	struct v4 h;
	unsigned int i, round;
	int q;

	memset(&em, 0, sizeof(em));
	memset(&em.hdr, 0xff, sizeof(em.hdr));
	em.has_vlan = 1;
	memset(&e4, 0, sizeof(e4)); /* has_vlan 0: untagged */
	e4.hdr.dst_addr = mac_b;
	e4.hdr.src_addr = mac_a;
	e4.hdr.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	e6 = e4;
	e6.hdr.ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	earp = e4;
	earp.hdr.ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	CHECK_OK(matcher_rule("OVS IPv4", p4, act1,
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p4[0],
			      "ETH item: has_vlan", &f4));
	CHECK_OK(matcher_rule("OVS IPv6", p6, act2,
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p6[0],
			      "ETH item: has_vlan", &f6));
	CHECK_OK(matcher_rule("OVS ARP", parp, act3,
			      RTE_FLOW_ERROR_TYPE_ITEM_MASK, &parp[0],
			      "ETH item: has_vlan", &farp));
	if (cur == RUN_VERBS)
		return VT_OK;
	for (round = 0; round < 2; round++) {
		rte_srand(21 + round);
		for (i = 0; i < 24; i++) {
			/* UDP, TCP, ICMP: 4-tuple, 4-tuple, address hash. */
			k = udp(IP(10, 0, 0, 0) +
					(uint32_t)(rte_rand() & 0xffff),
				IP(10, 5, 0, 0) +
					(uint32_t)(rte_rand() & 0xffff),
				(uint16_t)rte_rand(), (uint16_t)rte_rand(), 90);
			k.proto = i % 3 == 0 ? IPPROTO_UDP :
				  i % 3 == 1 ? IPPROTO_TCP :
					       IPPROTO_ICMP;
			q = rss_queue(key_b, qs, NQ, &k,
				      k.proto != IPPROTO_ICMP);
			h = v4_hdr(k.sip, k.dip, k.proto);
			fb_v4_udp(&f, &h, k.sport, k.dport);
			CHECK_OK(fb_expect(&f, q, 1, "OVS IPv4 frame"));
		}
		/* A fragment or a tagged frame stays in software. */
		h = v4_hdr(IP(10, 0, 0, 1), IP(10, 5, 0, 1), IPPROTO_UDP);
		h.frag = 0x2000;
		fb_v4_udp(&f, &h, 1, 2);
		CHECK_OK(fb_expect(&f, -1, -1, "OVS: an IPv4 fragment"));
		h.frag = 0;
		fb_init(&f);
		fb_eth(&f, RTE_ETHER_TYPE_VLAN);
		fb_tag(&f, 10, RTE_ETHER_TYPE_IPV4);
		fb_ipv4(&f, &h);
		fb_udp(&f, 1, 2);
		CHECK_OK(fb_expect(&f, -1, -1, "OVS: a tagged frame"));
		for (i = 0; i < 12; i++) {
			uint8_t s = (uint8_t)(1 + i), d = (uint8_t)(100 + i);
			uint16_t sp = (uint16_t)(1000 + 7 * i), dp = 53;
			bool l4 = i % 3 != 2;

			fb_init(&f);
			fb_eth(&f, RTE_ETHER_TYPE_IPV6);
			fb_ipv6(&f, s, d, l4 ? IPPROTO_UDP : IPPROTO_ICMPV6, 0,
				0, 64, false);
			if (l4)
				fb_udp(&f, sp, dp);
			q = qs[toeplitz6(key_b, s, d, sp, dp, l4) % NQ];
			CHECK_OK(fb_expect(&f, q, 2, "OVS IPv6 frame"));
		}
		fb_init(&f);
		fb_eth(&f, RTE_ETHER_TYPE_IPV6);
		fb_ipv6(&f, 1, 2, IPPROTO_UDP, 0, 0, 64, true);
		fb_udp(&f, 1, 2);
		CHECK_OK(fb_expect(&f, -1, -1, "OVS: an IPv6 fragment"));
		/* ARP: nothing the types hash, so the first queue. */
		for (i = 0; i < 4; i++) {
			fb_init(&f);
			fb_eth(&f, RTE_ETHER_TYPE_ARP);
			fb_be32(&f, 0x00010800);
			fb_be32(&f, 0x06040001);
			fb_be32(&f, i);
			CHECK_OK(fb_expect(&f, qs[0], 3, "OVS ARP frame"));
		}
		/* OVS keeps its rules over a port restart. */
		VT_CHECK_EQ(rte_eth_dev_stop(pb), 0, "stop");
		VT_CHECK_EQ(rte_eth_dev_start(pb), 0, "start");
		drain();
	}
	return VT_OK;
}
PER_ENGINE3(ovs_shapes)

/*
 * Partial masks, one rule at a time (MARK 1, queue 3), on every field
 * each engine matches. Each spec has bits outside its mask, which the
 * driver must clear (the mlx5 kernel refuses a verbs value with bits
 * outside its mask, check_valid_spec(); a matcher value is checked the
 * same way); each rule gets frames that differ from the spec only outside
 * the mask (they must match: a translation that took the mask as full
 * would miss them) and frames that differ inside it (they must not).
 */
#define PM_Q 3

struct pm_frame {
	int match;
	const char *what;
};

/* The partial-mask rule, or NULL where verbs must refuse it (field: the
 * field named in the refusal, NULL when both engines take the rule). */
static int
pm_rule(const char *what, const struct rte_flow_item *pattern,
	const char *field, struct rte_flow **out)
{
	static const struct rte_flow_action_mark m = { .id = 1 };
	struct act_q a;

	act_queue(&a, PM_Q, RTE_FLOW_ACTION_TYPE_MARK, &m);
	if (field != NULL) {
		const struct rte_flow_item *it = pattern;

		while (it->mask == NULL || it->type == RTE_FLOW_ITEM_TYPE_ETH)
			it++;
		return matcher_rule(what, pattern, a.actions,
				    RTE_FLOW_ERROR_TYPE_ITEM_MASK, it, field,
				    out);
	}
	*out = flow_new(pb, &attr_in, pattern, a.actions);
	VT_CHECK(*out != NULL, "%s: create", what);
	return VT_OK;
}

static int
pm_expect(struct fb *f, bool match, const char *what)
{
	return fb_expect(f, match ? PM_Q : -1, match ? 1 : -1, what);
}

static int
pm_done(struct rte_flow *fl)
{
	struct rte_flow_error err;

	if (fl != NULL)
		VT_CHECK_EQ(rte_flow_destroy(pb, fl, &err), 0, "destroy");
	return VT_OK;
}

/* Ethernet from src to dst, type. */
static void
fb_eth_to(struct fb *f, const struct rte_ether_addr *dst,
	  const struct rte_ether_addr *src, uint16_t type)
{
	memcpy(f->b + f->n, dst->addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(f->b + f->n + 6, src->addr_bytes, RTE_ETHER_ADDR_LEN);
	f->n += 12;
	fb_be16(f, type);
}

/* Ethernet / IPv4 / UDP with the given addresses. */
static void
fb_macs(struct fb *f, const struct rte_ether_addr *dst,
	const struct rte_ether_addr *src)
{
	struct v4 h = v4_hdr(IP(10, 40, 0, 1), IP(10, 40, 0, 2), IPPROTO_UDP);

	fb_init(f);
	fb_eth_to(f, dst, src, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(f, &h);
	fb_udp(f, 1, 2);
}

static int
pm_eth(void)
{
	struct rte_flow_item_eth spec, mask;
	const struct rte_flow_item p[] = { ITEM(ETH, &spec, &mask), ITEM_END };
	struct rte_ether_addr bcast, other;
	struct rte_flow *fl;
	struct fb f;

	/* dst: the first three bytes (b's, the rest not b's). */
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	spec.hdr.dst_addr = mac_b;
	spec.hdr.dst_addr.addr_bytes[3] ^= 0xff;
	spec.hdr.dst_addr.addr_bytes[5] ^= 0x5a;
	memset(mask.hdr.dst_addr.addr_bytes, 0xff, 3);
	CHECK_OK(pm_rule("ETH dst first 3 bytes", p, NULL, &fl));
	fb_macs(&f, &mac_b, &mac_a);
	CHECK_OK(pm_expect(&f, true, "dst b"));
	memset(bcast.addr_bytes, 0xff, RTE_ETHER_ADDR_LEN);
	fb_macs(&f, &bcast, &mac_a);
	CHECK_OK(pm_expect(&f, false, "dst broadcast"));
	CHECK_OK(pm_done(fl));
	/* src: the last three bytes. */
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	spec.hdr.src_addr = mac_a;
	spec.hdr.src_addr.addr_bytes[0] ^= 0x0c;
	spec.hdr.src_addr.addr_bytes[2] ^= 0xff;
	memset(mask.hdr.src_addr.addr_bytes + 3, 0xff, 3);
	CHECK_OK(pm_rule("ETH src last 3 bytes", p, NULL, &fl));
	fb_macs(&f, &mac_b, &mac_a);
	CHECK_OK(pm_expect(&f, true, "src a"));
	other = mac_a;
	other.addr_bytes[0] ^= 0x0c;
	fb_macs(&f, &mac_b, &other);
	CHECK_OK(pm_expect(&f, true, "src a, byte 0 changed"));
	other = mac_a;
	other.addr_bytes[5] ^= 0x01;
	fb_macs(&f, &mac_b, &other);
	CHECK_OK(pm_expect(&f, false, "src a, byte 5 changed"));
	return pm_done(fl);
}

static void
fb_tagged(struct fb *f, uint16_t tci)
{
	struct v4 h = v4_hdr(IP(10, 41, 0, 1), IP(10, 41, 0, 2), IPPROTO_UDP);

	fb_init(f);
	fb_eth(f, RTE_ETHER_TYPE_VLAN);
	fb_tag(f, tci, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(f, &h);
	fb_udp(f, 1, 2);
}

static int
pm_vlan(void)
{
	/* The VID only: PCP 7 in the spec. */
	const struct rte_flow_item_vlan spec = { .hdr.vlan_tci =
							 RTE_BE16(0xe00a) };
	const struct rte_flow_item_vlan mask = { .hdr.vlan_tci =
							 RTE_BE16(0x0fff) };
	const struct rte_flow_item p[] = { ITEM(ETH, NULL, NULL),
					   ITEM(VLAN, &spec, &mask), ITEM_END };
	struct rte_flow *fl;
	struct fb f;

	CHECK_OK(pm_rule("VLAN VID", p, NULL, &fl));
	fb_tagged(&f, 0x000a);
	CHECK_OK(pm_expect(&f, true, "VID 10, PCP 0"));
	fb_tagged(&f, 0x300a);
	CHECK_OK(pm_expect(&f, true, "VID 10, PCP 1, DEI"));
	fb_tagged(&f, 0xe00b);
	CHECK_OK(pm_expect(&f, false, "VID 11, PCP 7"));
	return pm_done(fl);
}

static int
pm_v4_send(const struct v4 *h, bool match, const char *what)
{
	struct fb f;

	fb_v4_udp(&f, h, 1000, 2000);
	return pm_expect(&f, match, what);
}

static int
pm_ipv4(void)
{
	struct rte_flow_item_ipv4 spec, mask;
	const struct rte_flow_item p[] = { ITEM(ETH, NULL, NULL),
					   ITEM(IPV4, &spec, &mask), ITEM_END };
	struct rte_flow *fl;
	struct v4 h;

	/* Prefixes: src /16, dst /20, host bits in the spec. */
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	spec.hdr.src_addr = RTE_BE32(IP(10, 7, 99, 99));
	mask.hdr.src_addr = RTE_BE32(0xffff0000);
	spec.hdr.dst_addr = RTE_BE32(IP(10, 9, 47, 200));
	mask.hdr.dst_addr = RTE_BE32(0xfffff000);
	CHECK_OK(pm_rule("IPv4 prefixes", p, NULL, &fl));
	h = v4_hdr(IP(10, 7, 1, 1), IP(10, 9, 32, 1), IPPROTO_UDP);
	CHECK_OK(pm_v4_send(&h, true, "10.7.1.1 > 10.9.32.1"));
	h.dip = IP(10, 9, 47, 255);
	CHECK_OK(pm_v4_send(&h, true, "10.7.1.1 > 10.9.47.255"));
	h.dip = IP(10, 9, 48, 1);
	CHECK_OK(pm_v4_send(&h, false, "10.7.1.1 > 10.9.48.1"));
	h = v4_hdr(IP(10, 8, 99, 99), IP(10, 9, 47, 200), IPPROTO_UDP);
	CHECK_OK(pm_v4_send(&h, false, "10.8.99.99 > 10.9.47.200"));
	CHECK_OK(pm_done(fl));
	/* type_of_service: DSCP only (ECN 1 in the spec). */
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	spec.hdr.type_of_service = 0xb9;
	mask.hdr.type_of_service = 0xfc;
	CHECK_OK(pm_rule("IPv4 DSCP", p, NULL, &fl));
	h = v4_hdr(IP(10, 42, 0, 1), IP(10, 42, 0, 2), IPPROTO_UDP);
	h.tos = 0xba;
	CHECK_OK(pm_v4_send(&h, true, "DSCP 46, ECN 2"));
	h.tos = 0xb8;
	CHECK_OK(pm_v4_send(&h, true, "DSCP 46, ECN 0"));
	h.tos = 0xbc;
	CHECK_OK(pm_v4_send(&h, false, "DSCP 47"));
	CHECK_OK(pm_done(fl));
	/* time_to_live: the high nibble (matcher only). */
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	spec.hdr.time_to_live = 0x47;
	mask.hdr.time_to_live = 0xf0;
	CHECK_OK(pm_rule("IPv4 ttl high nibble", p, "IPv4 item: time_to_live",
			 &fl));
	if (fl == NULL)
		return VT_OK;
	h = v4_hdr(IP(10, 43, 0, 1), IP(10, 43, 0, 2), IPPROTO_UDP);
	h.ttl = 0x41;
	CHECK_OK(pm_v4_send(&h, true, "ttl 0x41"));
	h.ttl = 0x4f;
	CHECK_OK(pm_v4_send(&h, true, "ttl 0x4f"));
	h.ttl = 0x37;
	CHECK_OK(pm_v4_send(&h, false, "ttl 0x37"));
	return pm_done(fl);
}

static int
pm_v6_send(uint8_t s, uint8_t d, uint8_t tc, uint32_t label, uint8_t hop,
	   bool match, const char *what)
{
	struct fb f;

	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV6);
	fb_ipv6(&f, s, d, IPPROTO_UDP, tc, label, hop, false);
	fb_udp(&f, 1, 2);
	return pm_expect(&f, match, what);
}

static int
pm_ipv6(void)
{
	static const uint8_t prefix[14] = { 0x20, 0x01, 0x0d, 0xb8 };
	struct rte_flow_item_ipv6 spec, mask;
	const struct rte_flow_item p[] = { ITEM(ETH, NULL, NULL),
					   ITEM(IPV6, &spec, &mask), ITEM_END };
	struct rte_flow *fl;

	/* Prefixes /124: 2001:db8::10/124 > 2001:db8::20/124. */
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	memcpy(spec.hdr.src_addr, prefix, sizeof(prefix));
	memcpy(spec.hdr.dst_addr, prefix, sizeof(prefix));
	spec.hdr.src_addr[15] = 0x15;
	spec.hdr.dst_addr[15] = 0x2a;
	memset(mask.hdr.src_addr, 0xff, 15);
	memset(mask.hdr.dst_addr, 0xff, 15);
	mask.hdr.src_addr[15] = 0xf0;
	mask.hdr.dst_addr[15] = 0xf0;
	CHECK_OK(pm_rule("IPv6 prefixes", p, NULL, &fl));
	CHECK_OK(pm_v6_send(0x12, 0x21, 0, 0, 64, true, "::12 > ::21"));
	CHECK_OK(pm_v6_send(0x1f, 0x2f, 0, 0, 64, true, "::1f > ::2f"));
	CHECK_OK(pm_v6_send(0x22, 0x21, 0, 0, 64, false, "::22 > ::21"));
	CHECK_OK(pm_v6_send(0x12, 0x31, 0, 0, 64, false, "::12 > ::31"));
	CHECK_OK(pm_done(fl));
	/* Traffic class: DSCP only; flow label: all but the low 4 bits. */
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	spec.hdr.vtc_flow = RTE_BE32(0xb9u << 20 | 0x12345);
	mask.hdr.vtc_flow = RTE_BE32(0xfcu << 20 | 0xffff0);
	CHECK_OK(pm_rule("IPv6 DSCP and flow label", p, NULL, &fl));
	CHECK_OK(pm_v6_send(1, 2, 0xba, 0x1234f, 64, true,
			    "DSCP 46 ECN 2, label 0x1234f"));
	CHECK_OK(pm_v6_send(1, 2, 0xb8, 0x12340, 64, true,
			    "DSCP 46 ECN 0, label 0x12340"));
	CHECK_OK(pm_v6_send(1, 2, 0xbc, 0x12345, 64, false, "DSCP 47"));
	CHECK_OK(pm_v6_send(1, 2, 0xb9, 0x12445, 64, false, "label 0x12445"));
	CHECK_OK(pm_done(fl));
	/* hop_limits: the high nibble (matcher only). */
	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	spec.hdr.hop_limits = 0x3f;
	mask.hdr.hop_limits = 0xf0;
	CHECK_OK(pm_rule("IPv6 hop limit high nibble", p,
			 "IPv6 item: hop_limits", &fl));
	if (fl == NULL)
		return VT_OK;
	CHECK_OK(pm_v6_send(1, 2, 0, 0, 0x30, true, "hop 0x30"));
	CHECK_OK(pm_v6_send(1, 2, 0, 0, 0x40, false, "hop 0x40"));
	return pm_done(fl);
}

static int
pm_l4_send(uint8_t proto, uint16_t sport, uint16_t dport, uint16_t flags,
	   bool match, const char *what)
{
	struct v4 h = v4_hdr(IP(10, 44, 0, 1), IP(10, 44, 0, 2), proto);
	struct fb f;

	fb_init(&f);
	fb_eth(&f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(&f, &h);
	if (proto == IPPROTO_TCP)
		fb_tcp(&f, sport, dport, flags);
	else
		fb_udp(&f, sport, dport);
	return pm_expect(&f, match, what);
}

static int
pm_l4(void)
{
	struct rte_flow_item_tcp ts, tm;
	struct rte_flow_item_udp us, um;
	const struct rte_flow_item pt[] = { ITEM(ETH, NULL, NULL),
					    ITEM(IPV4, NULL, NULL),
					    ITEM(TCP, &ts, &tm), ITEM_END };
	const struct rte_flow_item pu[] = { ITEM(ETH, NULL, NULL),
					    ITEM(IPV4, NULL, NULL),
					    ITEM(UDP, &us, &um), ITEM_END };
	const uint8_t T = IPPROTO_TCP, U = IPPROTO_UDP;
	struct rte_flow *fl;

	/* TCP ports: sport's low byte, dport's high byte. */
	memset(&ts, 0, sizeof(ts));
	memset(&tm, 0, sizeof(tm));
	ts.hdr.src_port = RTE_BE16(0xcd34);
	tm.hdr.src_port = RTE_BE16(0x00ff);
	ts.hdr.dst_port = RTE_BE16(0x12ab);
	tm.hdr.dst_port = RTE_BE16(0xff00);
	CHECK_OK(pm_rule("TCP port bytes", pt, NULL, &fl));
	CHECK_OK(pm_l4_send(T, 0x0034, 0x1200, RTE_TCP_ACK_FLAG, true,
			    "TCP 0x0034 > 0x1200"));
	CHECK_OK(pm_l4_send(T, 0xff34, 0x12ff, RTE_TCP_ACK_FLAG, true,
			    "TCP 0xff34 > 0x12ff"));
	CHECK_OK(pm_l4_send(T, 0x0035, 0x1200, RTE_TCP_ACK_FLAG, false,
			    "TCP 0x0035 > 0x1200"));
	CHECK_OK(pm_l4_send(T, 0x0034, 0x1300, RTE_TCP_ACK_FLAG, false,
			    "TCP 0x0034 > 0x1300"));
	CHECK_OK(
		pm_l4_send(U, 0x0034, 0x1200, 0, false, "UDP 0x0034 > 0x1200"));
	CHECK_OK(pm_done(fl));
	/* TCP flags: SYN alone in the mask, ACK in the spec (matcher only). */
	memset(&ts, 0, sizeof(ts));
	memset(&tm, 0, sizeof(tm));
	ts.hdr.tcp_flags = RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG;
	tm.hdr.tcp_flags = RTE_TCP_SYN_FLAG;
	CHECK_OK(pm_rule("TCP SYN bit", pt, "TCP item: tcp_flags", &fl));
	if (fl != NULL) {
		CHECK_OK(pm_l4_send(T, 1, 2, RTE_TCP_SYN_FLAG, true, "SYN"));
		CHECK_OK(pm_l4_send(T, 1, 2,
				    RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, true,
				    "SYN+ACK"));
		CHECK_OK(pm_l4_send(T, 1, 2,
				    RTE_TCP_SYN_FLAG | RTE_TCP_FIN_FLAG, true,
				    "SYN+FIN"));
		CHECK_OK(pm_l4_send(T, 1, 2, RTE_TCP_ACK_FLAG, false, "ACK"));
		CHECK_OK(pm_done(fl));
	}
	/* UDP ports: sport's top 12 bits, dport's second nibble. */
	memset(&us, 0, sizeof(us));
	memset(&um, 0, sizeof(um));
	us.hdr.src_port = RTE_BE16(0x100f);
	um.hdr.src_port = RTE_BE16(0xfff0);
	us.hdr.dst_port = RTE_BE16(0x0abc);
	um.hdr.dst_port = RTE_BE16(0x0f00);
	CHECK_OK(pm_rule("UDP port bits", pu, NULL, &fl));
	CHECK_OK(pm_l4_send(U, 0x1000, 0x0a00, 0, true, "UDP 0x1000 > 0x0a00"));
	CHECK_OK(pm_l4_send(U, 0x100f, 0xfaff, 0, true, "UDP 0x100f > 0xfaff"));
	CHECK_OK(
		pm_l4_send(U, 0x1010, 0x0a00, 0, false, "UDP 0x1010 > 0x0a00"));
	CHECK_OK(
		pm_l4_send(U, 0x1000, 0x0b00, 0, false, "UDP 0x1000 > 0x0b00"));
	return pm_done(fl);
}

/* Ethernet / IPv4 / UDP 4789 / VXLAN vni / Ethernet / IPv4 / UDP. */
static void
fb_vxlan(struct fb *f, uint32_t vni)
{
	struct v4 o = v4_hdr(IP(10, 45, 0, 1), IP(10, 45, 0, 2), IPPROTO_UDP);
	struct v4 in = v4_hdr(IP(10, 46, 0, 1), IP(10, 46, 0, 2), IPPROTO_UDP);

	fb_init(f);
	fb_eth(f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(f, &o);
	fb_udp(f, 30000, VXLAN_PORT);
	fb_be32(f, 0x08000000); /* I flag */
	fb_be32(f, vni << 8);
	fb_eth(f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(f, &in);
	fb_udp(f, 1, 2);
}

static void
fb_gre_key(struct fb *f, uint32_t key)
{
	struct v4 o = v4_hdr(IP(10, 47, 0, 1), IP(10, 47, 0, 2), IPPROTO_GRE);
	struct v4 in = v4_hdr(IP(10, 48, 0, 1), IP(10, 48, 0, 2), IPPROTO_UDP);

	fb_init(f);
	fb_eth(f, RTE_ETHER_TYPE_IPV4);
	fb_ipv4(f, &o);
	fb_gre(f, GRE_K, RTE_ETHER_TYPE_IPV4, key);
	fb_ipv4(f, &in);
	fb_udp(f, 1, 2);
}

static int
pm_tunnels(void)
{
	const struct rte_flow_item_vxlan vs = { .vni = { 0x12, 0x34, 0x56 } };
	const struct rte_flow_item_vxlan vm = { .vni = { 0xff, 0xff, 0x00 } };
	const rte_be32_t ks = RTE_BE32(0xabcd1234), km = RTE_BE32(0x0000ffff);
	const struct rte_flow_item pv[] = { ITEM(ETH, NULL, NULL),
					    ITEM(IPV4, NULL, NULL),
					    ITEM(UDP, NULL, NULL),
					    ITEM(VXLAN, &vs, &vm), ITEM_END };
	const struct rte_flow_item pg[] = { ITEM(ETH, NULL, NULL),
					    ITEM(IPV4, NULL, NULL),
					    ITEM(GRE, NULL, NULL),
					    ITEM(GRE_KEY, &ks, &km), ITEM_END };
	struct rte_flow *fl;
	struct fb f;

	/* VXLAN VNI: the first two bytes. */
	CHECK_OK(pm_rule("VXLAN VNI", pv, NULL, &fl));
	fb_vxlan(&f, 0x123400);
	CHECK_OK(pm_expect(&f, true, "VNI 0x123400"));
	fb_vxlan(&f, 0x1234ff);
	CHECK_OK(pm_expect(&f, true, "VNI 0x1234ff"));
	fb_vxlan(&f, 0x123556);
	CHECK_OK(pm_expect(&f, false, "VNI 0x123556"));
	CHECK_OK(pm_done(fl));
	/* GRE key: the low 16 bits. */
	CHECK_OK(pm_rule("GRE key", pg, NULL, &fl));
	fb_gre_key(&f, 0x00001234);
	CHECK_OK(pm_expect(&f, true, "key 0x00001234"));
	fb_gre_key(&f, 0xffff1234);
	CHECK_OK(pm_expect(&f, true, "key 0xffff1234"));
	fb_gre_key(&f, 0xabcd1235);
	CHECK_OK(pm_expect(&f, false, "key 0xabcd1235"));
	return pm_done(fl);
}

static int
partial_masks(void)
{
	CHECK_OK(pm_eth());
	CHECK_OK(pm_vlan());
	CHECK_OK(pm_ipv4());
	CHECK_OK(pm_ipv6());
	CHECK_OK(pm_l4());
	CHECK_OK(pm_tunnels());
	VT_CHECK_EQ(drain(), 0, "extra frames");
	return VT_OK;
}
PER_ENGINE(partial_masks)

/*
 * RSS on one side only: l3-src-only, l3-dst-only, l4-src-only and
 * l4-dst-only, each on UDP and on TCP, over queues 0 to 3 with a key of
 * the rule's own; every frame must land where rte_softrss puts it with
 * the fields the type keeps, in the device's order (source address,
 * destination address, source port, destination port; a field left out
 * is not hashed, and trailing zero bytes add nothing to a Toeplitz hash).
 */
static int
rss_one_side(void)
{
	static const uint16_t qs[] = { 0, 1, 2, 3 };
	static const struct {
		uint64_t only;
		const char *name;
	} sides[] = {
		{ RTE_ETH_RSS_L3_SRC_ONLY, "l3-src-only" },
		{ RTE_ETH_RSS_L3_DST_ONLY, "l3-dst-only" },
		{ RTE_ETH_RSS_L4_SRC_ONLY, "l4-src-only" },
		{ RTE_ETH_RSS_L4_DST_ONLY, "l4-dst-only" },
	};
	struct rte_flow_action_rss rss = {
		.func = RTE_ETH_HASH_FUNCTION_TOEPLITZ,
		.key_len = sizeof(rss_key_custom),
		.key = rss_key_custom,
		.queue_num = RTE_DIM(qs),
		.queue = qs,
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_item pat[] = { ITEM(ETH, NULL, NULL),
				       ITEM(IPV4, NULL, NULL),
				       ITEM(UDP, NULL, NULL), ITEM_END };
	struct rte_flow_error err;
	unsigned int s, l4, i, per_q[NQ];
	struct rte_flow *fl;
	uint32_t t[3], n;
	struct pkt k;

	rte_srand(13);
	for (l4 = 0; l4 < 2; l4++) {
		pat[2].type = l4 ? RTE_FLOW_ITEM_TYPE_TCP :
				   RTE_FLOW_ITEM_TYPE_UDP;
		for (s = 0; s < RTE_DIM(sides); s++) {
			rss.types = sides[s].only |
				    (l4 ? RTE_ETH_RSS_NONFRAG_IPV4_TCP :
					  RTE_ETH_RSS_NONFRAG_IPV4_UDP);
			fl = flow_new(pb, &attr_in, pat, actions);
			VT_CHECK(fl != NULL, "%s %s", sides[s].name,
				 l4 ? "TCP" : "UDP");
			memset(per_q, 0, sizeof(per_q));
			for (i = 0; i < 32; i++) {
				k = udp(IP(10, 50, 0, 0) +
						(uint32_t)(rte_rand() & 0xffff),
					IP(10, 51, 0, 0) +
						(uint32_t)(rte_rand() & 0xffff),
					(uint16_t)rte_rand(),
					(uint16_t)rte_rand(), 80);
				if (l4)
					k.proto = IPPROTO_TCP;
				n = 0;
				if (s != 1)
					t[n++] = k.sip;
				if (s != 0)
					t[n++] = k.dip;
				if (s == 2)
					t[n++] = (uint32_t)k.sport << 16;
				else if (s == 3)
					t[n++] = (uint32_t)k.dport << 16;
				else
					t[n++] = (uint32_t)k.sport << 16 |
						 k.dport;
				VT_CHECK_EQ(xfer_pkt(&k),
					    qs[rte_softrss(t, n, rss_key_custom) &
					       3],
					    "%s %s: frame %u (%08x:%u > %08x:%u)",
					    sides[s].name, l4 ? "TCP" : "UDP",
					    i, k.sip, k.sport, k.dip, k.dport);
				per_q[qs[rte_softrss(t, n, rss_key_custom) &
					 3]]++;
			}
			VT_CHECK(per_q[0] && per_q[1] && per_q[2] && per_q[3],
				 "%s: spread %u %u %u %u", sides[s].name,
				 per_q[0], per_q[1], per_q[2], per_q[3]);
			VT_CHECK_EQ(rte_flow_destroy(pb, fl, &err), 0,
				    "destroy");
		}
	}
	VT_CHECK_EQ(drain(), 0, "extra frames");
	return VT_OK;
}
PER_ENGINE(rss_one_side)

/*
 * COUNT where DevX is not offered (devx_ok 0), flow_engine=auto: a rule
 * verbs can carry counts with ibv_counters; a matcher-only rule with COUNT
 * is refused naming both reasons; without COUNT it is made.
 */
static int
count_nodevx_body(void)
{
	const uint32_t d1 = IP(10, 34, 0, 1), d2 = IP(10, 34, 0, 2);
	const struct rte_flow_item_ipv4 t = { .hdr.time_to_live = 64,
					      .hdr.dst_addr = RTE_BE32(d2) };
	const struct rte_flow_item_ipv4 tm = {
		.hdr.time_to_live = 0xff, .hdr.dst_addr = RTE_BE32(0xffffffff)
	};
	const struct rte_flow_item p_ttl[] = { ITEM(ETH, NULL, NULL),
					       ITEM(IPV4, &t, &tm), ITEM_END };
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *fc, *ft;
	struct act_q a1, a2, a3;
	struct pat_ip pi;
	unsigned int i;
	struct pkt k;

	fc = flow_new(pb, &attr_in, pat_ipv4(&pi, 0, d1),
		      act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_COUNT, NULL));
	VT_CHECK(fc != NULL, "COUNT rule verbs can carry");
	VT_CHECK(flow_engine_is(fc, "verbs"), "COUNT rule on verbs");
	for (i = 0; i < 3; i++) {
		k = udp(IP(10, 0, 0, 1), d1, (uint16_t)i, 7, 100);
		VT_CHECK_EQ(xfer_pkt(&k), 1, "counted frame %u", i);
	}
	VT_CHECK_EQ(count_query(pb, fc, 0, &qc), 0, "query");
	VT_CHECK_EQ(qc.hits, 3, "hits");
	VT_CHECK_EQ(qc.bytes, 300, "bytes");

	memset(&err, 0, sizeof(err));
	VT_CHECK_EQ(rte_flow_validate(pb, &attr_in, p_ttl,
				      act_queue(&a2, 2,
						RTE_FLOW_ACTION_TYPE_COUNT,
						NULL),
				      &err),
		    -ENOTSUP, "matcher-only rule with COUNT, no DevX");
	VT_CHECK(err.message != NULL &&
			 strstr(err.message,
				"IPv4 item: time_to_live: verbs cannot") !=
				 NULL &&
			 strstr(err.message, "COUNT action") != NULL &&
			 strstr(err.message, "DevX") != NULL,
		 "message '%s'", err.message ? err.message : "");
	CHECK_OK(expect_agree("matcher-only COUNT, no DevX", &attr_in, p_ttl,
			      act_queue(&a2, 2, RTE_FLOW_ACTION_TYPE_COUNT,
					NULL)));
	ft = flow_new(pb, &attr_in, p_ttl,
		      act_queue(&a3, 2, RTE_FLOW_ACTION_TYPE_END, NULL));
	VT_CHECK(ft != NULL, "the same rule without COUNT");
	VT_CHECK(flow_engine_is(ft, "mlx5dv"), "on a matcher");
	k = udp(IP(10, 0, 0, 1), d2, 1, 7, 100);
	VT_CHECK_EQ(xfer_pkt(&k), 2, "ttl 64 frame");
	return VT_OK;
}

static int
count_nodevx(void)
{
	struct caps saved = caps_set(-1, 0, -1);
	int ret = count_nodevx_body();

	caps_restore(saved);
	return ret;
}

static int
count_nodevx_auto(void)
{
	return in_run(RUN_AUTO, count_nodevx);
}

/* flow_engine=dv without DevX: COUNT is refused, the rest is made. */
static int
count_nodevx_dv_body(void)
{
	struct act_q a1;
	struct pat_ip pi;

	CHECK_OK(expect_err("COUNT without DevX", &attr_in,
			    pat_ipv4(&pi, 0, IP(10, 35, 0, 1)),
			    act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_COUNT, NULL),
			    ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, &a1.actions[0],
			    "DevX"));
	VT_CHECK(flow_new(pb, &attr_in, pat_ipv4(&pi, 0, IP(10, 35, 0, 1)),
			  act_queue(&a1, 1, RTE_FLOW_ACTION_TYPE_END, NULL)) !=
			 NULL,
		 "without COUNT");
	return VT_OK;
}

static int
count_nodevx_dv_fn(void)
{
	struct caps saved = caps_set(-1, 0, -1);
	int ret = count_nodevx_dv_body();

	caps_restore(saved);
	return ret;
}

static int
count_nodevx_dv(void)
{
	return in_run(RUN_DV, count_nodevx_dv_fn);
}

/*
 * What each engine lacks, in the words of the message: forced engines
 * name themselves, auto names both or the missing matcher.
 */
static int
limits(void)
{
	const struct rte_flow_item_ipv4 t = { .hdr.time_to_live = 2 };
	const struct rte_flow_item_ipv4 tm = { .hdr.time_to_live = 0xff };
	const struct rte_flow_item p_ttl[] = { ITEM(ETH, NULL, NULL),
					       ITEM(IPV4, &t, &tm), ITEM_END };
	const struct rte_flow_item p_order[] = { ITEM(ETH, NULL, NULL),
						 ITEM(IPV4, NULL, NULL),
						 ITEM(ETH, NULL, NULL),
						 ITEM_END };
	const struct rte_flow_item p_vlan_after_ip[] = { ITEM(ETH, NULL, NULL),
							 ITEM(IPV4, NULL, NULL),
							 ITEM(VLAN, NULL, NULL),
							 ITEM_END };
	const struct rte_flow_action_queue q1 = { .index = 1 };
	const struct rte_flow_action passthru[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_PASSTHRU },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q1 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct act_q a;
	struct pat_ip pi;
	struct caps saved;
	int ret;

	/* An impossible order is the pattern's fault on every engine. */
	CHECK_OK(expect_err("ETH after IPv4", &attr_in, p_order,
			    act_queue(&a, 1, RTE_FLOW_ACTION_TYPE_END, NULL),
			    EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, &p_order[2],
			    "ETH item cannot follow IPv4 item"));
	CHECK_OK(expect_err("VLAN after IPv4", &attr_in, p_vlan_after_ip,
			    act_queue(&a, 1, RTE_FLOW_ACTION_TYPE_END, NULL),
			    EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
			    &p_vlan_after_ip[2],
			    "VLAN item cannot follow IPv4 item"));
	switch (cur) {
	case RUN_VERBS:
		return expect_err(
			"ttl on verbs", &attr_in, p_ttl,
			act_queue(&a, 1, RTE_FLOW_ACTION_TYPE_END, NULL),
			ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_ttl[1],
			"IPv4 item: time_to_live: verbs cannot match it (flow_engine=verbs)");
	case RUN_DV:
		return expect_err(
			"PASSTHRU on dv", &attr_in,
			pat_ipv4(&pi, 0, IP(10, 36, 0, 1)), passthru, ENOTSUP,
			RTE_FLOW_ERROR_TYPE_ACTION, &passthru[0],
			"PASSTHRU action: the mlx5dv matcher cannot take it (flow_engine=dv)");
	default:
		break;
	}
	/* auto: both engines lack something. */
	CHECK_OK(expect_err(
		"ttl and PASSTHRU", &attr_in, p_ttl, passthru, ENOTSUP,
		RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_ttl[1],
		"IPv4 item: time_to_live: verbs cannot match it; PASSTHRU action: the mlx5dv matcher cannot take it"));
	/* auto on a device without mlx5dv. */
	saved = caps_set(0, 0, -1);
	ret = expect_err(
		"ttl without mlx5dv", &attr_in, p_ttl,
		act_queue(&a, 1, RTE_FLOW_ACTION_TYPE_END, NULL), ENOTSUP,
		RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p_ttl[1],
		"IPv4 item: time_to_live: verbs cannot match it and the device offers no mlx5dv matcher");
	caps_restore(saved);
	return ret;
}
PER_ENGINE3(limits)

/*
 * A full priority: on mlx5 the kernel's flow table of a priority holds
 * 65536 entries. 65536 rules for one IPv4 destination each take them;
 * the next validates (nothing of the device is asked) and is refused at
 * create with ENOSPC and a message that names the limit; a rule at
 * another priority is taken, and so is the refused one once a rule went.
 */
static int
table_full(void)
{
	const struct rte_flow_attr attr_p1 = { .ingress = 1, .priority = 1 };
	static struct rte_flow *fl[65536];
	struct rte_flow_error err;
	struct rte_flow *f;
	struct act_q a;
	struct pat_ip pi;
	unsigned int i;

	act_queue(&a, 1, RTE_FLOW_ACTION_TYPE_END, NULL);
	for (i = 0; i < RTE_DIM(fl); i++) {
		fl[i] = rte_flow_create(pb, &attr_in,
					pat_ipv4(&pi, 0, IP(11, 0, 0, 0) + i),
					a.actions, &err);
		VT_CHECK(fl[i] != NULL, "rule %u: %s", i,
			 err.message ? err.message : "no message");
	}
	pat_ipv4(&pi, 0, IP(11, 1, 0, 0));
	VT_CHECK_EQ(rte_flow_validate(pb, &attr_in, pi.items, a.actions, &err),
		    0, "validate at a full priority");
	memset(&err, 0, sizeof(err));
	f = rte_flow_create(pb, &attr_in, pi.items, a.actions, &err);
	VT_CHECK(f == NULL, "rule 65537 at one priority taken");
	VT_CHECK_EQ(rte_errno, ENOSPC, "errno");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_HANDLE, "error type");
	VT_CHECK(err.message != NULL &&
			 strstr(err.message,
				"flow table of that priority is full (65536 entries a priority on mlx5)") !=
				 NULL,
		 "message '%s'", err.message ? err.message : "");
	f = rte_flow_create(pb, &attr_p1, pi.items, a.actions, &err);
	VT_CHECK(f != NULL, "another priority: %s",
		 err.message ? err.message : "no message");
	VT_CHECK_EQ(rte_flow_destroy(pb, f, &err), 0, "destroy");
	VT_CHECK_EQ(rte_flow_destroy(pb, fl[9], &err), 0, "destroy");
	f = rte_flow_create(pb, &attr_in, pi.items, a.actions, &err);
	VT_CHECK(f != NULL, "room made: %s",
		 err.message ? err.message : "no message");
	return VT_OK;
}
PER_ENGINE(table_full)

/*
 * Nothing leaked: a port with flows of every kind, an indirect action
 * and (dv) matchers, flushed, then more flows left for close to clean up.
 */
static int
leaks(void)
{
	const struct rte_flow_indir_action_conf conf = { .ingress = 1 };
	const struct rte_flow_action count_action = {
		.type = RTE_FLOW_ACTION_TYPE_COUNT
	};
	static const uint16_t qs[] = { 0, 1 };
	const struct rte_flow_action_rss rss = { .types = RTE_ETH_RSS_IPV4,
						 .queue_num = 2,
						 .queue = qs };
	const struct rte_flow_action rss_act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action_mark mark = { .id = 5 };
	struct rte_flow_error err;
	struct rte_flow_action_handle *h;
	struct pat_ip p[6];
	struct act_q a[3];
	char log[2048];
	struct pkt k;
	int round;

	for (round = 0; round < 2; round++) {
		h = rte_flow_action_handle_create(pb, &conf, &count_action,
						  &err);
		VT_CHECK(h != NULL, "handle");
		VT_CHECK(flow_new(pb, &attr_in,
				  pat_ipv4(&p[0], 0, IP(1, 0, 0, 1)),
				  act_queue(&a[0], 1,
					    RTE_FLOW_ACTION_TYPE_INDIRECT,
					    h)) != NULL,
			 "flow");
		VT_CHECK(flow_new(pb, &attr_in,
				  pat_ipv4(&p[1], 0, IP(1, 0, 0, 2)),
				  act_queue(&a[1], 2, RTE_FLOW_ACTION_TYPE_MARK,
					    &mark)) != NULL,
			 "flow");
		VT_CHECK(flow_new(pb, &attr_in,
				  pat_ipv4(&p[2], 0, IP(1, 0, 0, 3)),
				  act_queue(&a[2], 3,
					    RTE_FLOW_ACTION_TYPE_COUNT,
					    NULL)) != NULL,
			 "flow");
		VT_CHECK(flow_new(pb, &attr_in,
				  pat_ipv4(&p[3], IP(1, 0, 0, 4), 0),
				  drop) != NULL,
			 "flow");
		VT_CHECK(flow_new(pb, &attr_in,
				  pat_ipv4(&p[4], 0, IP(1, 0, 0, 5)),
				  rss_act) != NULL,
			 "flow");
		k = udp(IP(1, 0, 0, 4), IP(1, 0, 0, 9), 1, 1, 64);
		VT_CHECK_EQ(xfer_pkt(&k), -1, "dropped");
		if (round == 0) {
			/* Flush, then destroy the handle: all clean. */
			VT_CHECK_EQ(rte_flow_flush(pb, &err), 0, "flush");
			VT_CHECK_EQ(rte_flow_action_handle_destroy(pb, h, &err),
				    0, "handle destroy");
		}
		/* Round 1: flows and handle left for close. */
	}
	/* A flow kept while the port is stopped, too. */
	VT_CHECK_EQ(rte_eth_dev_stop(pb), 0, "stop");
	VT_CHECK(flow_new(pb, &attr_in, pat_ipv4(&p[5], 0, IP(1, 0, 0, 6)),
			  act_queue(&a[0], 1, RTE_FLOW_ACTION_TYPE_COUNT,
				    NULL)) != NULL,
		 "flow while stopped");
	VT_CHECK_EQ(rte_eth_dev_start(pb), 0, "start");
	VT_CHECK_EQ(pair_close(log, sizeof(log)), 0,
		    "close left objects behind; ERR log:\n%s", log);
	return VT_OK;
}

static int
leaks_verbs(void)
{
	if (use_run(RUN_VERBS) != 0)
		return VT_FAIL;
	return leaks();
}

static int
leaks_dv(void)
{
	if (use_run(RUN_DV) != 0)
		return VT_FAIL;
	return leaks();
}

static int
leaks_auto(void)
{
	if (use_run(RUN_AUTO) != 0)
		return VT_FAIL;
	return leaks();
}

static int
leaks_generic(void)
{
	const struct rte_flow_attr attr_out = { .egress = 1 };
	const struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct pat_ip p;
	char log[2048];

	if (use_run(RUN_GENERIC) != 0)
		return VT_FAIL;
	VT_CHECK(flow_new(pa, &attr_out, pat_ipv4(&p, 0, IP(1, 0, 0, 1)),
			  drop) != NULL,
		 "egress flow");
	VT_CHECK_EQ(pair_close(log, sizeof(log)), 0,
		    "close left objects behind; ERR log:\n%s", log);
	return VT_OK;
}

/*
 * Thread safety (RTE_ETH_DEV_FLOW_OPS_THREAD_SAFE): two threads create,
 * validate, query and destroy rules while a third toggles promiscuous
 * mode (default flows), dumps the rules and restarts the port (every
 * rule removed and applied again, RSS contexts and matchers made anew).
 * ethdev takes no lock for these: the driver's control lock must keep
 * the lists and the device consistent. Afterwards every rule that said
 * it was created steers its frames, with its mark and count; every rule
 * destroyed is gone; the dump lists exactly the live rules; flushing
 * brings the device back to the objects it had before; close leaves
 * nothing behind. Bounded: a fixed number of toggles, MT_ROUNDS_MAX
 * rounds per worker and MT_SECONDS in all.
 */
#define MT_WORKERS 2
#define MT_KEEP 6 /* rules each worker keeps alive */
#define MT_ROUNDS_MIN 60
#define MT_ROUNDS_MAX 200000
#define MT_TOGGLES 160
#define MT_RESTART_EVERY 2
#define MT_SECONDS 60

struct mt_rule {
	struct rte_flow *flow;
	uint16_t dport;
	uint16_t queue;
	uint32_t mark;
};

struct mt_worker {
	pthread_t tid;
	unsigned int id;
	unsigned int rounds;
	unsigned int created;
	unsigned int destroyed;
	unsigned int head; /* live rules: ring[head - n .. head - 1] */
	unsigned int n;
	struct mt_rule ring[MT_KEEP];
	struct mt_rule gone; /* the last rule destroyed */
	char err[256];
};

static int mt_toggling; /* atomic: the toggler is still at work */
static long mt_deadline;

static void
mt_rule_actions(struct rte_flow_action *act, struct rte_flow_action_mark *mk,
		struct rte_flow_action_queue *q,
		struct rte_flow_action_count *cnt, const struct mt_rule *r)
{
	memset(act, 0, 4 * sizeof(*act));
	mk->id = r->mark;
	q->index = r->queue;
	memset(cnt, 0, sizeof(*cnt));
	act[0].type = RTE_FLOW_ACTION_TYPE_MARK;
	act[0].conf = mk;
	act[1].type = RTE_FLOW_ACTION_TYPE_COUNT;
	act[1].conf = cnt;
	act[2].type = RTE_FLOW_ACTION_TYPE_QUEUE;
	act[2].conf = q;
	act[3].type = RTE_FLOW_ACTION_TYPE_END;
}

static void *
mt_worker_main(void *arg)
{
	struct mt_worker *w = arg;
	struct rte_flow_action act[4];
	struct rte_flow_action_mark mk;
	struct rte_flow_action_queue q;
	struct rte_flow_action_count cnt;
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct pat_l4 pat;
	unsigned int r;

	for (r = 0; r < MT_ROUNDS_MAX; r++) {
		struct mt_rule nr = {
			/* Ports of one worker, reused once long destroyed. */
			.dport = (uint16_t)(20000 + w->id * 4000 + r % 4000),
			.queue = (uint16_t)(1 + r % (NQ - 1)),
			.mark = w->id * MT_ROUNDS_MAX + r + 1,
		};
		struct mt_rule *slot = &w->ring[w->head % MT_KEEP];

		if (r >= MT_ROUNDS_MIN &&
		    !__atomic_load_n(&mt_toggling, __ATOMIC_ACQUIRE))
			break;
		if (now_ns() > mt_deadline) {
			snprintf(w->err, sizeof(w->err),
				 "worker %u: out of time after %u rounds",
				 w->id, r);
			break;
		}
		mt_rule_actions(act, &mk, &q, &cnt, &nr);
		pat_l4(&pat, IPPROTO_UDP, nr.dport);
		memset(&err, 0, sizeof(err));
		if (rte_flow_validate(pb, &attr_in, pat.items, act, &err) !=
		    0) {
			snprintf(w->err, sizeof(w->err),
				 "worker %u round %u: validate: %s", w->id, r,
				 err.message ? err.message : "?");
			break;
		}
		/* Full ring: the oldest live rule goes first. */
		if (w->n == MT_KEEP) {
			memset(&err, 0, sizeof(err));
			if (count_query(pb, slot->flow, r & 1, &qc) != 0 ||
			    rte_flow_destroy(pb, slot->flow, &err) != 0) {
				snprintf(w->err, sizeof(w->err),
					 "worker %u round %u: query/destroy: %s",
					 w->id, r,
					 err.message ? err.message : "?");
				break;
			}
			w->gone = *slot;
			w->destroyed++;
			w->n--;
		}
		memset(&err, 0, sizeof(err));
		nr.flow = rte_flow_create(pb, &attr_in, pat.items, act, &err);
		if (nr.flow == NULL) {
			snprintf(w->err, sizeof(w->err),
				 "worker %u round %u: create: %s", w->id, r,
				 err.message ? err.message : "?");
			break;
		}
		*slot = nr;
		w->head++;
		w->n++;
		w->created++;
	}
	w->rounds = r;
	return NULL;
}

static int
mt_toggle(unsigned int *restarts)
{
	FILE *null = fopen("/dev/null", "w");
	struct rte_flow_error err;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < MT_TOGGLES && ret == 0 && now_ns() < mt_deadline; i++) {
		ret = (i & 1) ? rte_eth_promiscuous_disable(pb) :
				rte_eth_promiscuous_enable(pb);
		if (ret == 0 && null != NULL)
			ret = rte_flow_dev_dump(pb, NULL, null, &err);
		if (ret == 0 && i % MT_RESTART_EVERY == MT_RESTART_EVERY - 1) {
			ret = rte_eth_dev_stop(pb);
			if (ret == 0)
				ret = rte_eth_dev_start(pb);
			(*restarts)++;
		}
	}
	if (null != NULL)
		fclose(null);
	if (ret == 0 && i < MT_TOGGLES)
		ret = -ETIMEDOUT;
	return ret;
}

/* Lines of the dump that open a rule: "flow rule 3 (handle 0x...): ingress,
 * ...". */
static int
mt_dumped_rules(void)
{
	char *buf = dump_text(NULL), *p;
	int n = 0;

	if (buf == NULL)
		return -1;
	for (p = buf; *p != '\0'; p++) {
		if ((p == buf || p[-1] == '\n') && strncmp(p, "flow ", 5) == 0)
			n++;
	}
	free(buf);
	return n;
}

static int
mt_device_objects(void)
{
	struct vsteer_priv *priv = rte_eth_devices[pb].data->dev_private;

	return atomic_load(&sv_ctx(priv->ctx)->nobjs);
}

static int
threads(void)
{
	struct mt_worker w[MT_WORKERS];
	struct rte_flow_query_count qc;
	unsigned int i, k, restarts = 0, live = 0;
	int base_objs, toggled;
	char log[2048];

	base_objs = mt_device_objects();
	memset(w, 0, sizeof(w));
	mt_deadline = now_ns() + MT_SECONDS * 1000000000L;
	__atomic_store_n(&mt_toggling, 1, __ATOMIC_RELEASE);
	for (i = 0; i < MT_WORKERS; i++) {
		w[i].id = i;
		VT_CHECK_EQ(pthread_create(&w[i].tid, NULL, mt_worker_main,
					   &w[i]),
			    0, "worker %u", i);
	}
	toggled = mt_toggle(&restarts);
	__atomic_store_n(&mt_toggling, 0, __ATOMIC_RELEASE);
	for (i = 0; i < MT_WORKERS; i++)
		pthread_join(w[i].tid, NULL);
	VT_CHECK_EQ(toggled, 0, "promiscuous toggles and restarts: %s",
		    rte_strerror(-toggled));
	printf("# %u restarts; worker rounds %u and %u\n", restarts,
	       w[0].rounds, w[1].rounds);
	for (i = 0; i < MT_WORKERS; i++) {
		VT_CHECK(w[i].err[0] == '\0', "%s", w[i].err);
		VT_CHECK(w[i].rounds >= MT_ROUNDS_MIN, "worker %u: %u rounds",
			 i, w[i].rounds);
		VT_CHECK_EQ(w[i].created, w[i].destroyed + w[i].n,
			    "worker %u: created = destroyed + live", i);
		VT_CHECK_EQ(w[i].n, MT_KEEP, "worker %u: live rules", i);
		live += w[i].n;
	}
	VT_CHECK(restarts >= MT_TOGGLES / MT_RESTART_EVERY, "%u restarts",
		 restarts);
	VT_CHECK(rte_eth_promiscuous_get(pb) == 0, "promiscuous left on");
	VT_CHECK_EQ(mt_dumped_rules(), (int)live, "rules in the dump");
	drain();
	/* Each live rule steers its frame, marks and counts it once. */
	for (i = 0; i < MT_WORKERS; i++) {
		for (k = 0; k < MT_KEEP; k++) {
			const struct mt_rule *r = &w[i].ring[k];
			struct pkt pk = udp_not_on(IP(10, 50, i, 1),
						   IP(10, 60, 0, 1), r->dport,
						   r->queue);
			struct rte_mbuf *m;
			int qn;

			qn = xfer(frame(&pk), &m);
			VT_CHECK_EQ(qn, r->queue, "worker %u rule dport %u", i,
				    r->dport);
			VT_CHECK(m != NULL &&
					 (m->ol_flags &
					  RTE_MBUF_F_RX_FDIR_ID) &&
					 m->hash.fdir.hi == r->mark,
				 "worker %u rule dport %u: mark %u", i,
				 r->dport, r->mark);
			rte_pktmbuf_free(m);
			VT_CHECK_EQ(count_query(pb, r->flow, 0, &qc), 0,
				    "query");
			VT_CHECK(qc.hits == 1 && qc.bytes == pk.len,
				 "worker %u rule dport %u: %" PRIu64
				 " hits, %" PRIu64 " bytes",
				 i, r->dport, qc.hits, qc.bytes);
		}
		/* The last rule destroyed steers nothing any more. */
		{
			struct pkt pk =
				udp_not_on(IP(10, 51, i, 1), IP(10, 60, 0, 1),
					   w[i].gone.dport, w[i].gone.queue);
			struct rte_mbuf *m;

			VT_CHECK_EQ(xfer(frame(&pk), &m), default_queue(&pk),
				    "worker %u destroyed rule dport %u", i,
				    w[i].gone.dport);
			VT_CHECK(m != NULL && !(m->ol_flags &
						(RTE_MBUF_F_RX_FDIR |
						 RTE_MBUF_F_RX_FDIR_ID)),
				 "a destroyed rule still marks");
			rte_pktmbuf_free(m);
		}
	}
	VT_CHECK_EQ(drain(), 0, "extra frames");
	/* Flushed: the device holds what it held before the threads. */
	VT_CHECK_EQ(rte_flow_flush(pb, NULL), 0, "flush");
	VT_CHECK_EQ(mt_dumped_rules(), 0, "rules in the dump after flush");
	VT_CHECK_EQ(mt_device_objects(), base_objs,
		    "device objects after flush");
	VT_CHECK_EQ(pair_close(log, sizeof(log)), 0,
		    "close left objects behind; ERR log:\n%s", log);
	return VT_OK;
}

static int
threads_verbs(void)
{
	if (use_run(RUN_VERBS) != 0)
		return VT_FAIL;
	return threads();
}

/* --- packet actions (matcher rules) --- */

/* frame(), with the UDP or TCP checksum computed as a sender's stack does
 * (frame() leaves it 0). */
static struct rte_mbuf *
frame_csum(const struct pkt *k)
{
	struct rte_mbuf *m = frame(k);
	struct rte_ipv4_hdr *ip;
	uint8_t *l4;

	if (m == NULL)
		return NULL;
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
				     sizeof(struct rte_ether_hdr));
	l4 = (uint8_t *)(ip + 1);
	if (k->proto == IPPROTO_UDP)
		((struct rte_udp_hdr *)l4)->dgram_cksum =
			rte_ipv4_udptcp_cksum(ip, l4);
	else if (k->proto == IPPROTO_TCP)
		((struct rte_tcp_hdr *)l4)->cksum =
			rte_ipv4_udptcp_cksum(ip, l4);
	return m;
}

/* The IPv4 header checksum and the UDP checksum of the IPv4 packet at off
 * of m are what DPDK computes over the whole header and datagram. */
static bool
ip_udp_csum_ok(struct rte_mbuf *m, uint32_t off)
{
	struct rte_ipv4_hdr *ip =
		rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, off);
	struct rte_udp_hdr *udp = (struct rte_udp_hdr *)(ip + 1);
	uint16_t ck = udp->dgram_cksum, want;

	if (rte_ipv4_cksum(ip) != 0)
		return false;
	udp->dgram_cksum = 0;
	want = rte_ipv4_udptcp_cksum(ip, udp);
	udp->dgram_cksum = ck;
	return ck == want;
}

static const struct rte_flow_attr attr_out = { .egress = 1 };

/*
 * Ingress rewrite: matching frames reach the rule's queue with the new
 * destination address, port, TTL and source MAC and valid checksums, and
 * are counted at their length on the wire; the rule's actions are made
 * again across a restart. verbs chains carry no flow action: refused
 * there, with what auto routes on.
 */
static int
edit_rewrite(void)
{
	const uint32_t dst = IP(10, 60, 0, 1), dst2 = IP(10, 60, 0, 2);
	const struct rte_flow_item_ipv4 ip = { .hdr.dst_addr = RTE_BE32(dst) };
	const struct rte_flow_item_udp u = { .hdr.dst_port = RTE_BE16(53) };
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &ip,
		  .mask = &ipv4_dst_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP,
		  .spec = &u,
		  .mask = &udp_dport_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action_set_ipv4 sd = { RTE_BE32(dst2) };
	const struct rte_flow_action_set_tp tp = { RTE_BE16(5353) };
	const struct rte_flow_action_set_mac sm = { { 0x02, 0x00, 0x5e, 0x00,
						      0x53, 0x01 } };
	const struct rte_flow_action_queue q2 = { .index = 2 };
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_SET_IPV4_DST, .conf = &sd },
		{ .type = RTE_FLOW_ACTION_TYPE_SET_TP_DST, .conf = &tp },
		{ .type = RTE_FLOW_ACTION_TYPE_DEC_TTL },
		{ .type = RTE_FLOW_ACTION_TYPE_SET_MAC_SRC, .conf = &sm },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q2 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_mbuf *r;
	struct rte_flow *f;
	unsigned int i, round;
	struct pkt k;

	if (cur == RUN_VERBS) {
		memset(&err, 0, sizeof(err));
		VT_CHECK(rte_flow_validate(pb, &attr_in, pat, act, &err) ==
				 -ENOTSUP,
			 "verbs took a rewrite");
		VT_CHECK(err.cause == &act[0] &&
				 strstr(err.message,
					"SET_IPV4_DST action: verbs cannot take it (flow_engine=verbs)") !=
					 NULL,
			 "%s", err.message);
		return VT_OK;
	}
	f = flow_new(pb, &attr_in, pat, act);
	VT_CHECK(f != NULL, "rewrite flow");
	VT_CHECK(flow_engine_is(f, "mlx5dv"), "engine");
#ifdef VT_RDMA_GLUE
	VT_CHECK(vt_rdma_calls.modify_header_create > 0,
		 "through mlx5dv_create_flow_action_modify_header()");
#endif
	for (round = 0; round < 2; round++) {
		for (i = 0; i < 3; i++) {
			k = udp(IP(10, 0, 0, 1), dst, (uint16_t)(100 + i), 53,
				(uint16_t)(100 + i));
			VT_CHECK_EQ(xfer(frame_csum(&k), &r), 2,
				    "frame %u to queue 2", i);
			VT_CHECK(r->pkt_len == k.len, "length");
			VT_CHECK_EQ(rte_be_to_cpu_32(
					    rte_pktmbuf_mtod_offset(r,
								    struct rte_ipv4_hdr
									    *,
								    14)
						    ->dst_addr),
				    dst2, "destination address");
			VT_CHECK_EQ(*rte_pktmbuf_mtod_offset(r, uint8_t *, 22),
				    63, "TTL");
			VT_CHECK_EQ(rte_be_to_cpu_16(
					    *rte_pktmbuf_mtod_offset(r,
								     rte_be16_t
									     *,
								     36)),
				    5353, "destination port");
			VT_CHECK(memcmp(rte_pktmbuf_mtod_offset(r, uint8_t *,
								6),
					sm.mac_addr, 6) == 0,
				 "source MAC");
			VT_CHECK(ip_udp_csum_ok(r, 14), "checksums");
			rte_pktmbuf_free(r);
		}
		/* Not the rule's: untouched, by default RSS. */
		k = udp(IP(10, 0, 0, 1), dst, 7, 54, 90);
		VT_CHECK_EQ(xfer(frame_csum(&k), &r), default_queue(&k),
			    "other port");
		VT_CHECK_EQ(*rte_pktmbuf_mtod_offset(r, uint8_t *, 22), 64,
			    "other frame's TTL");
		rte_pktmbuf_free(r);
		/* The actions are device objects: gone at stop, made again
		 * at start. */
		VT_CHECK_EQ(rte_eth_dev_stop(pb), 0, "stop");
		VT_CHECK_EQ(rte_eth_dev_start(pb), 0, "start");
	}
	VT_CHECK_EQ(count_query(pb, f, 0, &qc), 0, "query");
	VT_CHECK(qc.hits == 6 && qc.bytes == 2 * (100 + 101 + 102),
		 "counted %" PRIu64 " frames, %" PRIu64 " bytes", qc.hits,
		 qc.bytes);
	return VT_OK;
}

static int
edit_rewrite_verbs(void)
{
	return in_run(RUN_VERBS, edit_rewrite);
}

static int
edit_rewrite_dv(void)
{
	return in_run(RUN_DV, edit_rewrite);
}

static int
edit_rewrite_auto(void)
{
	return in_run(RUN_AUTO, edit_rewrite);
}

/* VXLAN decap: the queue gets the inner frame, byte for byte, marked,
 * and the rule counts the frames as they came off the wire. */
static int
edit_decap(void)
{
	const struct rte_flow_item_vxlan vx = { .vni = { 0, 0, 100 } };
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN,
		  .spec = &vx,
		  .mask = &rte_flow_item_vxlan_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action_mark mark = { .id = 77 };
	const struct rte_flow_action_queue q1 = { .index = 1 };
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_VXLAN_DECAP },
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q1 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const uint16_t hdr = 14 + 20 + 8 + 8; /* outer headers */
	struct rte_flow_query_count qc;
	struct rte_mbuf *m, *r;
	struct rte_flow *f;
	uint8_t sent[256];
	unsigned int i;

	f = flow_new(pb, &attr_in, pat, act);
	VT_CHECK(f != NULL, "decap flow");
	for (i = 0; i < 3; i++) {
		m = vxlan_frame((uint16_t)(40000 + i), 100, IP(10, 5, 0, 1),
				IP(10, 5, 0, 2), (uint16_t)(128 + i));
		VT_CHECK(m != NULL, "frame");
		memcpy(sent, rte_pktmbuf_mtod(m, uint8_t *), m->pkt_len);
		VT_CHECK_EQ(xfer(m, &r), 1, "frame %u to queue 1", i);
		VT_CHECK(r->pkt_len == 128u + i - hdr &&
				 memcmp(rte_pktmbuf_mtod(r, uint8_t *),
					sent + hdr, r->pkt_len) == 0,
			 "the inner frame, byte for byte (%u bytes)",
			 r->pkt_len);
		VT_CHECK((r->ol_flags & RTE_MBUF_F_RX_FDIR_ID) &&
				 r->hash.fdir.hi == 77,
			 "marked");
		rte_pktmbuf_free(r);
	}
	/* Another VNI: not the rule's, delivered whole. */
	m = vxlan_frame(40000, 101, IP(10, 5, 0, 1), IP(10, 5, 0, 2), 128);
	VT_CHECK(xfer(m, &r) >= 0, "other VNI");
	VT_CHECK_EQ(r->pkt_len, 128, "whole");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(count_query(pb, f, 0, &qc), 0, "query");
	VT_CHECK(qc.hits == 3 && qc.bytes == 128 + 129 + 130,
		 "counted %" PRIu64 " frames, %" PRIu64 " bytes", qc.hits,
		 qc.bytes);
	return VT_OK;
}

static int
edit_decap_dv(void)
{
	return in_run(RUN_DV, edit_decap);
}

static int
edit_decap_auto(void)
{
	return in_run(RUN_AUTO, edit_decap);
}

/*
 * Egress: what A sends to one address goes out rewritten and
 * encapsulated in VXLAN (outer lengths and IPv4 checksum filled, UDP
 * checksum 0), what it sends to another is dropped and counted.
 */
static int
edit_egress(void)
{
	const uint32_t enc = IP(10, 70, 0, 1), blk = IP(10, 70, 0, 2);
	const struct rte_flow_item_ipv4 ipe = { .hdr.dst_addr = RTE_BE32(enc) };
	const struct rte_flow_item_ipv4 ipb = { .hdr.dst_addr = RTE_BE32(blk) };
	struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &ipe,
		  .mask = &ipv4_dst_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_item_eth oeth = { .hdr.ether_type = 0 };
	const struct rte_flow_item_ipv4 oip = {
		.hdr.src_addr = RTE_BE32(IP(10, 9, 0, 1)),
		.hdr.dst_addr = RTE_BE32(IP(10, 9, 0, 2)),
	};
	const struct rte_flow_item_udp oudp = { .hdr.src_port =
							RTE_BE16(4000) };
	const struct rte_flow_item_vxlan ovx = { .vni = { 0, 0, 55 } };
	struct rte_flow_item def[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &oeth },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &oip },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &oudp },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN, .spec = &ovx },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action_vxlan_encap ve = { .definition = def };
	const struct rte_flow_action_set_tp sp = { RTE_BE16(7777) };
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_SET_TP_SRC, .conf = &sp },
		{ .type = RTE_FLOW_ACTION_TYPE_VXLAN_ENCAP, .conf = &ve },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const uint16_t push = 14 + 20 + 8 + 8;
	struct rte_flow_query_count qc;
	struct rte_flow *fe, *fd;
	struct rte_mbuf *m, *r;
	struct rte_ipv4_hdr *oh;
	uint8_t sent[256], *p;
	unsigned int i;
	struct pkt k;

	oeth.hdr.dst_addr = mac_b;
	oeth.hdr.src_addr = mac_a;
	fe = flow_new(pa, &attr_out, pat, act);
	pat[1].spec = &ipb;
	fd = flow_new(pa, &attr_out, pat, drop);
	VT_CHECK(fe != NULL && fd != NULL, "egress flows");
	for (i = 0; i < 3; i++) {
		k = udp(IP(10, 0, 0, 1), enc, (uint16_t)(1000 + i), 99,
			(uint16_t)(80 + i));
		m = frame_csum(&k);
		VT_CHECK(m != NULL, "frame");
		memcpy(sent, rte_pktmbuf_mtod(m, uint8_t *), m->pkt_len);
		VT_CHECK(xfer(m, &r) >= 0, "encapsulated frame %u", i);
		p = rte_pktmbuf_mtod(r, uint8_t *);
		oh = (struct rte_ipv4_hdr *)(p + 14);
		VT_CHECK_EQ(r->pkt_len, k.len + push, "length");
		VT_CHECK(memcmp(p, &mac_b, 6) == 0 &&
				 memcmp(p + 6, &mac_a, 6) == 0 &&
				 p[12] == 0x08 && p[13] == 0x00,
			 "outer Ethernet");
		VT_CHECK(oh->version_ihl == 0x45 && oh->time_to_live == 64 &&
				 oh->next_proto_id == IPPROTO_UDP &&
				 rte_be_to_cpu_16(oh->total_length) ==
					 r->pkt_len - 14 &&
				 rte_ipv4_cksum(oh) == 0 &&
				 oh->src_addr == oip.hdr.src_addr &&
				 oh->dst_addr == oip.hdr.dst_addr,
			 "outer IPv4: lengths and checksum filled");
		VT_CHECK(rte_be_to_cpu_16(*(rte_be16_t *)(p + 34)) == 4000 &&
				 rte_be_to_cpu_16(*(rte_be16_t *)(p + 36)) ==
					 VXLAN_PORT &&
				 rte_be_to_cpu_16(*(rte_be16_t *)(p + 38)) ==
					 r->pkt_len - 34 &&
				 *(rte_be16_t *)(p + 40) == 0,
			 "outer UDP: port 4789, length, no checksum");
		VT_CHECK(p[42] == 0x08 && p[46] == 0 && p[47] == 0 &&
				 p[48] == 55,
			 "VXLAN VNI 55");
		VT_CHECK(memcmp(p + push, sent, 34) == 0 &&
				 memcmp(p + push + 36, sent + 36, 4) == 0 &&
				 memcmp(p + push + 42, sent + 42, k.len - 42) ==
					 0 &&
				 rte_be_to_cpu_16(*(rte_be16_t *)(p + push +
								  34)) == 7777,
			 "the frame inside, its source port rewritten");
		VT_CHECK(ip_udp_csum_ok(r, push + 14), "inner checksums");
		rte_pktmbuf_free(r);
		k.dip = blk;
		VT_CHECK_EQ(xfer(frame(&k), NULL), -1, "dropped frame %u", i);
	}
	VT_CHECK_EQ(count_query(pa, fd, 0, &qc), 0, "query");
	VT_CHECK(qc.hits == 3 && qc.bytes == 80 + 81 + 82,
		 "dropped %" PRIu64 " frames, %" PRIu64 " bytes", qc.hits,
		 qc.bytes);
#ifdef VT_RDMA_GLUE
	VT_CHECK(vt_rdma_calls.packet_reformat_create > 0,
		 "through mlx5dv_create_flow_action_packet_reformat()");
#endif
	return VT_OK;
}

static int
edit_egress_dv(void)
{
	return in_run(RUN_DV, edit_egress);
}

static int
edit_egress_auto(void)
{
	return in_run(RUN_AUTO, edit_egress);
}

static int
threads_dv(void)
{
	if (use_run(RUN_DV) != 0)
		return VT_FAIL;
	return threads();
}

static const struct vt_case cases[] = {
	VT_CASE(steer_verbs),
	VT_CASE(rss_subset_verbs),
	VT_CASE(rss_expand_verbs),
	VT_CASE(drop_src_verbs),
	VT_CASE(mark_flag_verbs),
	VT_CASE(count_verbs),
	VT_CASE(count_shared_verbs),
	VT_CASE(aging_verbs),
	VT_CASE(indirect_rss_verbs),
	VT_CASE(priorities_verbs),
	VT_CASE(lifecycle_verbs),
	VT_CASE(rxq_shrink_verbs),
	VT_CASE(vxlan_verbs),
	VT_CASE(passthru_verbs),
	VT_CASE(errors_verbs),
	VT_CASE(dump_verbs),
	VT_CASE(flow_handles_verbs),
	VT_CASE(flow_pool_verbs),
	VT_CASE(ttl_hop_verbs),
	VT_CASE(fragments_verbs),
	VT_CASE(tcp_flags_verbs),
	VT_CASE(vlan_presence_verbs),
	VT_CASE(qinq_verbs),
	VT_CASE(gre_bits_verbs),
	VT_CASE(esp_spi_verbs),
	VT_CASE(degenerate_verbs),
	VT_CASE(ovs_shapes_verbs),
	VT_CASE(limits_verbs),
	VT_CASE(table_full_verbs),
	VT_CASE(partial_masks_verbs),
	VT_CASE(rss_one_side_verbs),
	VT_CASE(leaks_verbs),
	VT_CASE(threads_verbs),
	VT_CASE(steer_dv),
	VT_CASE(rss_subset_dv),
	VT_CASE(rss_expand_dv),
	VT_CASE(drop_src_dv),
	VT_CASE(mark_flag_dv),
	VT_CASE(count_dv),
	VT_CASE(count_shared_dv),
	VT_CASE(aging_dv),
	VT_CASE(indirect_rss_dv),
	VT_CASE(priorities_dv),
	VT_CASE(lifecycle_dv),
	VT_CASE(rxq_shrink_dv),
	VT_CASE(vxlan_dv),
	VT_CASE(errors_dv),
	VT_CASE(dump_dv),
	VT_CASE(flow_handles_dv),
	VT_CASE(flow_pool_dv),
	VT_CASE(ttl_hop_dv),
	VT_CASE(fragments_dv),
	VT_CASE(tcp_flags_dv),
	VT_CASE(vlan_presence_dv),
	VT_CASE(qinq_dv),
	VT_CASE(gre_bits_dv),
	VT_CASE(esp_spi_dv),
	VT_CASE(degenerate_dv),
	VT_CASE(ovs_shapes_dv),
	VT_CASE(limits_dv),
	VT_CASE(table_full_dv),
	VT_CASE(partial_masks_dv),
	VT_CASE(rss_one_side_dv),
	VT_CASE(count_nodevx_dv),
	VT_CASE(leaks_dv),
	VT_CASE(threads_dv),
	VT_CASE(egress_generic),
	VT_CASE(edit_rewrite_verbs),
	VT_CASE(edit_rewrite_dv),
	VT_CASE(edit_rewrite_auto),
	VT_CASE(edit_decap_dv),
	VT_CASE(edit_decap_auto),
	VT_CASE(edit_egress_dv),
	VT_CASE(edit_egress_auto),
	VT_CASE(leaks_generic),
	VT_CASE(auto_mix_auto),
	VT_CASE(rss_expand_auto),
	VT_CASE(errors_auto),
	VT_CASE(ttl_hop_auto),
	VT_CASE(fragments_auto),
	VT_CASE(tcp_flags_auto),
	VT_CASE(vlan_presence_auto),
	VT_CASE(qinq_auto),
	VT_CASE(gre_bits_auto),
	VT_CASE(esp_spi_auto),
	VT_CASE(degenerate_auto),
	VT_CASE(ovs_shapes_auto),
	VT_CASE(limits_auto),
	VT_CASE(count_nodevx_auto),
	VT_CASE(leaks_auto),
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	char prefix[64], log[2048], rundir[PATH_MAX];
	char *eal[] = {
		argv[0],
		"--no-huge",
		"-m",
		"256",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"-l",
		"0",
		prefix,
		"--log-level=pmd.net.vsteer*:notice",
		NULL,
	};
	int ret;

	snprintf(prefix, sizeof(prefix), "--file-prefix=vsteer_flow_%d",
		 (int)getpid());
	ret = rte_eal_init((int)RTE_DIM(eal) - 1, eal);
	if (ret < 0) {
		/* Nothing here depends on the host: a failed start is a
		 * failure, not a skip. */
		fprintf(stderr, "EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return VT_FAIL;
	}
	pool = rte_pktmbuf_pool_create("flow_pool", NB_MBUF, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL) {
		fprintf(stderr, "mempool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
#ifdef VT_RDMA_GLUE
	if (vt_rdma_base(rdma_base, sizeof(rdma_base)) != 0) {
		fprintf(stderr, "rdma-core sysfs directory\n");
		return 1;
	}
#endif
	ret = vt_main(argc, argv, cases);
	/* A run a name filter left open must close clean too. */
	if (pair_close(log, sizeof(log)) != 0) {
		fprintf(stderr, "close left objects behind: %s\n", log);
		ret = 1;
	}
	if (rte_mempool_avail_count(pool) != NB_MBUF) {
		fprintf(stderr, "%u mbufs not returned\n",
			rte_mempool_in_use_count(pool));
		ret = 1;
	}
	rte_mempool_free(pool);
#ifdef VT_RDMA_GLUE
	vt_rdma_base_remove(rdma_base);
#endif
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	/* EAL leaves the (empty, with --no-shconf) runtime directory. */
	rmdir(rundir);
	return ret;
}
