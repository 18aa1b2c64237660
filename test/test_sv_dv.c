/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The mlx5dv matcher path across the glue: the driver's translator
 * (vsteer_flow_dv.c) writes PRM fte_match_param buffers, softverbs
 * (sv_fte.c, sv_dv.c) reads them. Checked here:
 *   - both sides agree on the layout: a translated rte_flow pattern,
 *     compiled by sv_fte_compile(), hits and misses parsed frames as the
 *     pattern says;
 *   - sv_fte_compile() refuses what it cannot match or cannot read;
 *   - mlx5dv_create_flow_matcher(3) / mlx5dv_create_flow(3) errors as
 *     rdma-core 44 and the mlx5 kernel give them;
 *   - DevX flow counters: alloc, query (with clear), dealloc;
 *   - traffic on an in-memory link: DEST_IBV_QP with a TAG seen in
 *     ibv_wc_read_flow_tag(), DROP, COUNTERS_DEVX counting.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_flow.h>

#include "softverbs.h"
#include "sv_internal.h"
#include "sv_key.h"
#include "vsteer_flow_dv.h"
#include "vt_svenv.h"
#include "vt_test.h"

#define BE16(x) RTE_BE16(x)
#define BE32(x) RTE_BE32(x)
#define END_ITEM                               \
	{                                      \
		.type = RTE_FLOW_ITEM_TYPE_END \
	}

static const struct sv_caps mlx5_caps = {
	.profile = SV_PROFILE_MLX5,
	.max_priority = SV_MAX_PRIO_MLX5,
	.mpls_over_l4 = true,
	.ipv4_ihl = true,
};

static const uint8_t mac_a[6] = { 0x02, 0, 0, 0, 0, 0x0a };
static const uint8_t mac_b[6] = { 0x02, 0, 0, 0, 0, 0x0b };
static const uint8_t mac_s[6] = { 0x02, 0, 0, 0, 0, 0x01 };
static const uint8_t ip_a[4] = { 10, 1, 2, 3 };
static const uint8_t ip_b[4] = { 10, 1, 3, 3 };
static const uint8_t ip6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				   0,	 0,    0,    0,	   0, 0, 0, 1 };
static const uint8_t ip6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				   0,	 0,    0,    0,	   0, 0, 0, 2 };

/* ---- frames ---- */

/* Appends headers; fb_end() fills in the IP and UDP lengths. */
struct fb {
	uint8_t b[256];
	uint32_t n;
	uint32_t ip4[2], ip6[2], udp[2];
	unsigned int n4, n6, nu;
};

static uint8_t *
fb_put(struct fb *f, uint32_t len)
{
	uint8_t *p = f->b + f->n;

	memset(p, 0, len);
	f->n += len;
	return p;
}

static void
wr16(uint8_t *p, uint16_t v)
{
	p[0] = v >> 8;
	p[1] = v & 0xff;
}

static void
wr32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

static void
fb_eth(struct fb *f, const uint8_t dmac[6], uint16_t type)
{
	uint8_t *p = fb_put(f, 14);

	memcpy(p, dmac, 6);
	memcpy(p + 6, mac_s, 6);
	wr16(p + 12, type);
}

/* A tag after the ETH header (whose type must be a TPID). */
static void
fb_vlan(struct fb *f, uint16_t tci, uint16_t type)
{
	uint8_t *p = fb_put(f, 4);

	wr16(p, tci);
	wr16(p + 2, type);
}

static void
fb_ipv4(struct fb *f, const uint8_t src[4], const uint8_t dst[4], uint8_t proto,
	uint8_t tos, uint16_t frag)
{
	uint8_t *p;

	f->ip4[f->n4++] = f->n;
	p = fb_put(f, 20);
	p[0] = 0x45;
	p[1] = tos;
	wr16(p + 6, frag);
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, src, 4);
	memcpy(p + 16, dst, 4);
}

static void
fb_ipv6(struct fb *f, const uint8_t src[16], const uint8_t dst[16],
	uint8_t next, uint32_t flow_label)
{
	uint8_t *p;

	f->ip6[f->n6++] = f->n;
	p = fb_put(f, 40);
	wr32(p, 0x60000000 | (flow_label & 0xfffff));
	p[6] = next;
	p[7] = 64;
	memcpy(p + 8, src, 16);
	memcpy(p + 24, dst, 16);
}

static void
fb_udp(struct fb *f, uint16_t sport, uint16_t dport)
{
	uint8_t *p;

	f->udp[f->nu++] = f->n;
	p = fb_put(f, 8);
	wr16(p, sport);
	wr16(p + 2, dport);
}

static void
fb_tcp(struct fb *f, uint16_t sport, uint16_t dport, uint8_t flags)
{
	uint8_t *p = fb_put(f, 20);

	wr16(p, sport);
	wr16(p + 2, dport);
	p[12] = 5 << 4;
	p[13] = flags;
}

static void
fb_vxlan(struct fb *f, uint32_t vni)
{
	uint8_t *p = fb_put(f, 8);

	p[0] = 0x08;
	wr32(p + 4, vni << 8);
}

/* GRE with the K bit when key != 0. */
static void
fb_gre(struct fb *f, uint16_t proto, uint32_t key)
{
	uint8_t *p = fb_put(f, key ? 8 : 4);

	wr16(p, key ? 0x2000 : 0);
	wr16(p + 2, proto);
	if (key)
		wr32(p + 4, key);
}

static void
fb_mpls(struct fb *f, uint32_t label, int bos)
{
	wr32(fb_put(f, 4), label << 12 | (bos ? 0x100 : 0) | 64);
}

static uint32_t
fb_end(struct fb *f)
{
	unsigned int i;

	fb_put(f, 16); /* payload */
	for (i = 0; i < f->n4; i++)
		wr16(f->b + f->ip4[i] + 2, (uint16_t)(f->n - f->ip4[i]));
	for (i = 0; i < f->n6; i++)
		wr16(f->b + f->ip6[i] + 4, (uint16_t)(f->n - f->ip6[i] - 40));
	for (i = 0; i < f->nu; i++)
		wr16(f->b + f->udp[i] + 4, (uint16_t)(f->n - f->udp[i]));
	return f->n;
}

/* Common frames. */
static uint32_t
mk_udp4(struct fb *f, const uint8_t dmac[6], const uint8_t dip[4],
	uint16_t dport)
{
	memset(f, 0, sizeof(*f));
	fb_eth(f, dmac, 0x0800);
	fb_ipv4(f, ip_b, dip, 17, 0, 0);
	fb_udp(f, 1000, dport);
	return fb_end(f);
}

/* ---- the two layouts ---- */

static struct rte_flow_error ferr;

/* The driver's matcher translation of a pattern (ingress, QUEUE 0). */
static int
dv_xlate(const struct rte_flow_item *p, struct vsteer_dv_match *dm,
	 struct rte_flow_error *err)
{
	static const struct rte_flow_attr attr = { .ingress = 1 };
	static const struct rte_flow_action_queue q0 = { .index = 0 };
	static const struct rte_flow_action acts[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q0 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	static struct vsteer_flow_plan plan;
	struct vsteer_xlate_ctx ctx;

	memset(&ctx, 0, sizeof(ctx));
	ctx.nb_rx_queues = 1;
	ctx.port_num = 1;
	ctx.max_verbs_prio = 15;
	ctx.dv_ok = true;
	ctx.devx_ok = true;
	ctx.mpls_ok = true;
	ctx.ihl_ok = true;
	ctx.ihl_inner_ok = true;
	ctx.tag_ok = true;
	ctx.count_ok = true;
	return vsteer_flow_dv_translate(&ctx, &attr, p, acts, &plan, dm, err);
}

/* Translate with the driver, compile with softverbs. */
static int
compile(const struct rte_flow_item *p, struct sv_match *m)
{
	static struct vsteer_dv_match dm;
	int rc;
	size_t i;

	memset(&ferr, 0, sizeof(ferr));
	rc = dv_xlate(p, &dm, &ferr);
	if (rc != 0)
		return rc;
	rc = sv_fte_compile(&mlx5_caps, dm.criteria, dm.mask.buf, dm.mask.size,
			    NULL, &m->mask);
	if (rc == 0)
		rc = sv_fte_compile(&mlx5_caps, dm.criteria, dm.value.buf,
				    dm.value.size, &m->mask, &m->value);
	for (i = 0; i < sizeof(m->value); i++)
		((uint8_t *)&m->value)[i] &= ((uint8_t *)&m->mask)[i];
	return rc;
}

static bool
hit(const struct sv_match *m, struct fb *f)
{
	struct sv_key k;

	sv_parse(f->b, f->n, &k, NULL);
	return sv_match_hit(m, &k);
}

#define COMPILE(p, m)                                   \
	VT_CHECK(compile((p), (m)) == 0, "compile: %s", \
		 ferr.message ? ferr.message : "sv_fte_compile failed")

static int
test_agree_l2_l4(void)
{
	struct rte_flow_item_eth eth = {
		.hdr.dst_addr.addr_bytes = { 0x02, 0, 0, 0, 0, 0x0a },
	};
	struct rte_flow_item_eth eth_m = {
		.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff },
	};
	struct rte_flow_item_ipv4 ip = { .hdr.dst_addr = BE32(0x0a010200) };
	struct rte_flow_item_ipv4 ip_m = { .hdr.dst_addr = BE32(0xffffff00) };
	struct rte_flow_item_udp udp = { .hdr.dst_port = BE16(53) };
	struct rte_flow_item_udp udp_m = { .hdr.dst_port = BE16(0xffff) };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp, .mask = &udp_m },
		END_ITEM,
	};
	static struct sv_match m;
	struct fb f;

	COMPILE(p, &m);
	mk_udp4(&f, mac_a, ip_a, 53);
	VT_CHECK(hit(&m, &f), "the frame the pattern describes");
	mk_udp4(&f, mac_a, (const uint8_t[4]){ 10, 1, 2, 250 }, 53);
	VT_CHECK(hit(&m, &f), "another host of the /24");
	mk_udp4(&f, mac_a, ip_b, 53);
	VT_CHECK(!hit(&m, &f), "outside the /24");
	mk_udp4(&f, mac_b, ip_a, 53);
	VT_CHECK(!hit(&m, &f), "other dmac");
	mk_udp4(&f, mac_a, ip_a, 54);
	VT_CHECK(!hit(&m, &f), "other port");
	/* TCP to port 53: ip_protocol tells them apart. */
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 6, 0, 0);
	fb_tcp(&f, 1000, 53, 0x02);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "TCP");
	/* IPv6 to a UDP port 53: ip_version. */
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x86dd);
	fb_ipv6(&f, ip6_a, ip6_b, 17, 0);
	fb_udp(&f, 1000, 53);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "IPv6");
	return VT_OK;
}

static int
test_agree_vlan(void)
{
	struct rte_flow_item_vlan vlan = { .hdr.vlan_tci = BE16(100) };
	struct rte_flow_item_eth untagged = { .has_vlan = 0 };
	struct rte_flow_item_eth has_vlan_m = { .has_vlan = 1 };
	struct rte_flow_item pv[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN, .spec = &vlan },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		END_ITEM,
	};
	struct rte_flow_item pu[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH,
		  .spec = &untagged,
		  .mask = &has_vlan_m },
		END_ITEM,
	};
	static struct sv_match m;
	struct fb f;

	COMPILE(pv, &m);
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x8100);
	fb_vlan(&f, 0xa000 | 100, 0x0800); /* PCP 5 not masked */
	fb_ipv4(&f, ip_b, ip_a, 17, 0, 0);
	fb_udp(&f, 1, 2);
	fb_end(&f);
	VT_CHECK(hit(&m, &f), "VID 100");
	f.b[15] = 101;
	VT_CHECK(!hit(&m, &f), "VID 101");
	mk_udp4(&f, mac_a, ip_a, 53);
	VT_CHECK(!hit(&m, &f), "untagged");

	COMPILE(pu, &m);
	VT_CHECK(hit(&m, &f), "has_vlan 0: untagged");
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x8100);
	fb_vlan(&f, 7, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 17, 0, 0);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "has_vlan 0: tagged");
	return VT_OK;
}

static int
test_agree_ipv6_tcp(void)
{
	struct rte_flow_item_ipv6 ip = {
		.hdr.vtc_flow = BE32(0x00012345),
	};
	struct rte_flow_item_ipv6 ip_m = {
		.hdr.vtc_flow = BE32(0x000fffff),
		.hdr.src_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				  0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				  0xff, 0xff },
	};
	struct rte_flow_item_tcp tcp = { .hdr.tcp_flags = 0x02 };
	struct rte_flow_item_tcp tcp_m = { .hdr.tcp_flags = 0x02 };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &ip, .mask = &ip_m },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &tcp, .mask = &tcp_m },
		END_ITEM,
	};
	static struct sv_match m;
	struct fb f;

	memcpy(ip.hdr.src_addr, ip6_a, 16);
	COMPILE(p, &m);
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x86dd);
	fb_ipv6(&f, ip6_a, ip6_b, 6, 0x12345);
	fb_tcp(&f, 1000, 80, 0x12); /* SYN+ACK: SYN under mask */
	fb_end(&f);
	VT_CHECK(hit(&m, &f), "SYN from ip6_a, flow label 0x12345");
	f.b[14 + 40 + 13] = 0x10; /* ACK only */
	VT_CHECK(!hit(&m, &f), "no SYN");
	f.b[14 + 40 + 13] = 0x02;
	f.b[14 + 3] = 0x46; /* flow label 0x12346 */
	VT_CHECK(!hit(&m, &f), "other flow label");
	f.b[14 + 3] = 0x45;
	f.b[14 + 8 + 15] = 9; /* other source */
	VT_CHECK(!hit(&m, &f), "other source");
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 6, 0, 0);
	fb_tcp(&f, 1000, 80, 0x02);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "IPv4 SYN");
	return VT_OK;
}

static int
test_agree_ipv4_fields(void)
{
	struct rte_flow_item_ipv4 ip = {
		.hdr = { .type_of_service = 0xb8,
			 .time_to_live = 64,
			 .fragment_offset = 0 },
	};
	struct rte_flow_item_ipv4 ip_m = {
		.hdr = { .type_of_service = 0xfc,
			 .time_to_live = 0xff,
			 .fragment_offset = BE16(0x3fff) },
	};
	struct rte_flow_item_ipv4 frag = {
		.hdr.fragment_offset = BE16(1),
	};
	struct rte_flow_item_ipv4 frag_last = {
		.hdr.fragment_offset = BE16(0x3fff),
	};
	struct rte_flow_item_ipv4 frag_m = {
		.hdr.fragment_offset = BE16(0x3fff),
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		END_ITEM,
	};
	struct rte_flow_item pf[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &frag,
		  .last = &frag_last,
		  .mask = &frag_m },
		END_ITEM,
	};
	static struct sv_match m;
	struct fb f;

	COMPILE(p, &m);
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 17, 0xb9, 0); /* DSCP 46, ECN 1 */
	fb_udp(&f, 1, 2);
	fb_end(&f);
	VT_CHECK(hit(&m, &f), "DSCP 46, TTL 64, not a fragment");
	f.b[14 + 1] = 0xa0;
	VT_CHECK(!hit(&m, &f), "other DSCP");
	f.b[14 + 1] = 0xb8;
	f.b[14 + 8] = 63;
	VT_CHECK(!hit(&m, &f), "other TTL");
	f.b[14 + 8] = 64;
	f.b[14 + 6] = 0x20; /* MF */
	VT_CHECK(!hit(&m, &f), "a fragment");

	COMPILE(pf, &m);
	VT_CHECK(hit(&m, &f), "any fragment: MF");
	f.b[14 + 6] = 0x00;
	f.b[14 + 7] = 0x10; /* offset, last fragment */
	VT_CHECK(hit(&m, &f), "any fragment: offset");
	f.b[14 + 7] = 0;
	VT_CHECK(!hit(&m, &f), "any fragment: whole packet");
	return VT_OK;
}

static int
test_agree_vxlan(void)
{
	struct rte_flow_item_vxlan vx = { .vni = { 0, 0, 42 } };
	struct rte_flow_item_eth ieth = {
		.hdr.dst_addr.addr_bytes = { 0x02, 0, 0, 0, 0, 0x0b },
	};
	struct rte_flow_item_eth ieth_m = {
		.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff },
	};
	struct rte_flow_item_tcp tcp = { .hdr.dst_port = BE16(22) };
	struct rte_flow_item_tcp tcp_m = { .hdr.dst_port = BE16(0xffff) };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN, .spec = &vx },
		{ .type = RTE_FLOW_ITEM_TYPE_ETH,
		  .spec = &ieth,
		  .mask = &ieth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &tcp, .mask = &tcp_m },
		END_ITEM,
	};
	static struct sv_match m;
	struct fb f;
	uint32_t vni_off;

	COMPILE(p, &m);
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 17, 0, 0);
	fb_udp(&f, 5555, 4789);
	vni_off = f.n + 4;
	fb_vxlan(&f, 42);
	fb_eth(&f, mac_b, 0x0800);
	fb_ipv4(&f, ip_a, ip_b, 6, 0, 0);
	fb_tcp(&f, 1000, 22, 0x02);
	fb_end(&f);
	VT_CHECK(hit(&m, &f), "VNI 42, inner dmac, inner TCP 22");
	f.b[vni_off + 2] = 43;
	VT_CHECK(!hit(&m, &f), "VNI 43");
	f.b[vni_off + 2] = 42;
	f.b[f.n - 16 - 20 + 3] = 23;
	VT_CHECK(!hit(&m, &f), "inner port 23");
	/* The same TCP header, not tunnelled. */
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_b, 0x0800);
	fb_ipv4(&f, ip_a, ip_b, 6, 0, 0);
	fb_tcp(&f, 1000, 22, 0x02);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "plain TCP 22");
	return VT_OK;
}

static int
test_agree_gre(void)
{
	struct rte_flow_item_gre gre = { .c_rsvd0_ver = 0 };
	rte_be32_t key = BE32(0x1234);
	struct rte_flow_item_ipv4 iip = { .hdr.dst_addr = BE32(0x0a010303) };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE, .spec = &gre },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE_KEY, .spec = &key },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &iip },
		END_ITEM,
	};
	static struct sv_match m;
	struct fb f;

	/* The GRE mask (protocol) comes from the default; spec protocol 0
	 * would pin it to 0, so leave the protocol to the inner layer. */
	p[2].spec = NULL;
	COMPILE(p, &m);
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_a, ip_b, 47, 0, 0);
	fb_gre(&f, 0x0800, 0x1234);
	fb_ipv4(&f, ip_a, ip_b, 17, 0, 0);
	fb_udp(&f, 1, 2);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "inner source is ip_a, rule wants 0.0.0.0");
	iip.hdr.src_addr = BE32(0x0a010203);
	COMPILE(p, &m);
	VT_CHECK(hit(&m, &f), "key 0x1234, inner 10.1.2.3 -> 10.1.3.3");
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_a, ip_b, 47, 0, 0);
	fb_gre(&f, 0x0800, 0x1235);
	fb_ipv4(&f, ip_a, ip_b, 17, 0, 0);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "key 0x1235");
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_a, ip_b, 47, 0, 0);
	fb_gre(&f, 0x0800, 0);
	fb_ipv4(&f, ip_a, ip_b, 17, 0, 0);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "no key");
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_a, ip_b, 47, 0, 0);
	fb_gre(&f, 0x86dd, 0x1234);
	fb_ipv6(&f, ip6_a, ip6_b, 17, 0);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "inner IPv6");
	return VT_OK;
}

static int
test_agree_mpls(void)
{
	/* Label 1000 = 0x003e8: bytes 00 3e 80 under mask ff ff f0. */
	struct rte_flow_item_mpls mpls = { .label_tc_s = { 0x00, 0x3e, 0x81 } };
	struct rte_flow_item pu[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_MPLS, .spec = &mpls },
		END_ITEM,
	};
	struct rte_flow_item pg[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE },
		{ .type = RTE_FLOW_ITEM_TYPE_MPLS, .spec = &mpls },
		END_ITEM,
	};
	static struct sv_match mu, mg;
	struct fb fu, fg;

	COMPILE(pu, &mu);
	COMPILE(pg, &mg);
	memset(&fu, 0, sizeof(fu));
	fb_eth(&fu, mac_a, 0x0800);
	fb_ipv4(&fu, ip_a, ip_b, 17, 0, 0);
	fb_udp(&fu, 1, 6635);
	fb_mpls(&fu, 1000, 1);
	fb_ipv4(&fu, ip_a, ip_b, 17, 0, 0);
	fb_end(&fu);
	memset(&fg, 0, sizeof(fg));
	fb_eth(&fg, mac_a, 0x0800);
	fb_ipv4(&fg, ip_a, ip_b, 47, 0, 0);
	fb_gre(&fg, 0x8847, 0);
	fb_mpls(&fg, 1000, 1);
	fb_ipv4(&fg, ip_a, ip_b, 17, 0, 0);
	fb_end(&fg);
	VT_CHECK(hit(&mu, &fu), "over UDP: label 1000");
	VT_CHECK(!hit(&mu, &fg), "over UDP rule, GRE frame");
	VT_CHECK(hit(&mg, &fg), "over GRE: label 1000");
	VT_CHECK(!hit(&mg, &fu), "over GRE rule, UDP frame");
	fu.b[14 + 20 + 8 + 1] = 0x3f; /* label 1016 */
	VT_CHECK(!hit(&mu, &fu), "label 1016");
	return VT_OK;
}

static int
test_agree_empty(void)
{
	struct rte_flow_item p[] = { END_ITEM };
	static struct sv_match m;
	struct fb f;

	COMPILE(p, &m);
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_b, 0x0806); /* ARP */
	fb_end(&f);
	VT_CHECK(hit(&m, &f), "empty pattern matches anything");
	return VT_OK;
}

/*
 * Tags by TPID, as the PRM's cvlan_tag / svlan_tag and second-tag bits
 * tell them apart: has_vlan 0 is untagged (no 802.1ad tag either), a
 * QinQ pattern (ETH type 0x88a8) matches only an 802.1ad outer tag, an
 * empty VLAN item any 802.1Q tag, has_more_vlan 1 a second tag.
 */
static int
test_agree_tags(void)
{
	struct rte_flow_item_eth untagged = { .has_vlan = 0 };
	struct rte_flow_item_eth has_vlan_m = { .has_vlan = 1 };
	struct rte_flow_item_eth qinq = { .hdr.ether_type = BE16(0x88a8) };
	struct rte_flow_item_eth type_m = { .hdr.ether_type = BE16(0xffff) };
	struct rte_flow_item_vlan svid = {
		.hdr.vlan_tci = BE16(10),
		.hdr.eth_proto = BE16(0x8100),
	};
	struct rte_flow_item_vlan svid_m = {
		.hdr.vlan_tci = BE16(0x0fff),
		.hdr.eth_proto = BE16(0xffff),
	};
	struct rte_flow_item_vlan more = { .has_more_vlan = 1 };
	struct rte_flow_item pu[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH,
		  .spec = &untagged,
		  .mask = &has_vlan_m },
		END_ITEM,
	};
	struct rte_flow_item pq[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH,
		  .spec = &qinq,
		  .mask = &type_m },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN,
		  .spec = &svid,
		  .mask = &svid_m },
		END_ITEM,
	};
	struct rte_flow_item pe[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN },
		END_ITEM,
	};
	struct rte_flow_item pm[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN,
		  .spec = &more,
		  .mask = &more },
		END_ITEM,
	};
	static struct sv_match m;
	struct fb s_tag, c_tag, qq, plain;

	memset(&s_tag, 0, sizeof(s_tag));
	fb_eth(&s_tag, mac_a, 0x88a8);
	fb_vlan(&s_tag, 10, 0x0800);
	fb_ipv4(&s_tag, ip_b, ip_a, 17, 0, 0);
	fb_end(&s_tag);
	memset(&c_tag, 0, sizeof(c_tag));
	fb_eth(&c_tag, mac_a, 0x8100);
	fb_vlan(&c_tag, 10, 0x0800);
	fb_ipv4(&c_tag, ip_b, ip_a, 17, 0, 0);
	fb_end(&c_tag);
	memset(&qq, 0, sizeof(qq));
	fb_eth(&qq, mac_a, 0x88a8);
	fb_vlan(&qq, 10, 0x8100);
	fb_vlan(&qq, 20, 0x0800);
	fb_ipv4(&qq, ip_b, ip_a, 17, 0, 0);
	fb_end(&qq);
	mk_udp4(&plain, mac_a, ip_a, 53);

	COMPILE(pu, &m);
	VT_CHECK(hit(&m, &plain), "has_vlan 0: untagged");
	VT_CHECK(!hit(&m, &c_tag), "has_vlan 0: 802.1Q");
	VT_CHECK(!hit(&m, &s_tag), "has_vlan 0: 802.1ad");

	COMPILE(pq, &m);
	VT_CHECK(hit(&m, &qq), "QinQ: S-tag 10, then a C-tag");
	VT_CHECK(!hit(&m, &s_tag), "QinQ: S-tag alone");
	VT_CHECK(!hit(&m, &c_tag), "QinQ: a C-tag first");
	qq.b[15] = 11;
	VT_CHECK(!hit(&m, &qq), "QinQ: other S-VID");

	COMPILE(pe, &m);
	VT_CHECK(hit(&m, &c_tag), "empty VLAN: a C-tag");
	VT_CHECK(!hit(&m, &plain), "empty VLAN: untagged");

	COMPILE(pm, &m);
	memset(&qq, 0, sizeof(qq));
	fb_eth(&qq, mac_a, 0x8100);
	fb_vlan(&qq, 10, 0x8100);
	fb_vlan(&qq, 20, 0x0800);
	fb_end(&qq);
	VT_CHECK(hit(&m, &qq), "has_more_vlan: two C-tags");
	VT_CHECK(!hit(&m, &c_tag), "has_more_vlan: one tag");
	return VT_OK;
}

/*
 * Fields only the matcher takes, against real headers: IPv4 ihl, TCP
 * flags with NS, IPv6 hop limit and fragment header, an IPv6 address
 * masked on its low 32 bits.
 */
static int
test_agree_matcher_fields(void)
{
	struct rte_flow_item_ipv4 ihl = { .hdr.version_ihl = 0x46 };
	struct rte_flow_item_ipv4 ihl_m = { .hdr.version_ihl = 0x0f };
	struct rte_flow_item_tcp ns = {
		.hdr = { .data_off = 0x01, .tcp_flags = 0x02 },
	};
	struct rte_flow_item_tcp ns_m = {
		.hdr = { .data_off = 0x01, .tcp_flags = 0x02 },
	};
	struct rte_flow_item_ipv6 hop = { .hdr.hop_limits = 60 };
	struct rte_flow_item_ipv6 hop_m = {
		.hdr = {
			.hop_limits = 0xff,
			.dst_addr = { 0, 0, 0, 0, 0, 0, 0, 0,
				      0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff },
		},
		.has_frag_ext = 1,
	};
	struct rte_flow_item p4[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &ihl,
		  .mask = &ihl_m },
		END_ITEM,
	};
	struct rte_flow_item pt[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &ns, .mask = &ns_m },
		END_ITEM,
	};
	struct rte_flow_item p6[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6,
		  .spec = &hop,
		  .mask = &hop_m },
		END_ITEM,
	};
	static struct sv_match m;
	struct fb f;

	COMPILE(p4, &m);
	mk_udp4(&f, mac_a, ip_a, 53);
	VT_CHECK(!hit(&m, &f), "ihl 5");
	f.b[14] = 0x46;
	VT_CHECK(hit(&m, &f), "ihl 6");

	COMPILE(pt, &m);
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 6, 0, 0);
	fb_tcp(&f, 1, 2, 0x02);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "SYN without NS");
	f.b[14 + 20 + 12] |= 0x01;
	VT_CHECK(hit(&m, &f), "SYN with NS");

	/* ::ip_a's low 32 bits: ip6_b ends in 0.0.0.2. */
	memcpy(hop.hdr.dst_addr + 12, ip6_b + 12, 4);
	COMPILE(p6, &m);
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x86dd);
	fb_ipv6(&f, ip6_a, ip6_b, 17, 0);
	fb_udp(&f, 1, 2);
	fb_end(&f);
	f.b[14 + 7] = 60;
	VT_CHECK(hit(&m, &f), "hop limit 60, dst low bits, no fragment");
	f.b[14 + 7] = 61;
	VT_CHECK(!hit(&m, &f), "hop limit 61");
	f.b[14 + 7] = 60;
	f.b[14 + 24 + 15] = 3;
	VT_CHECK(!hit(&m, &f), "other dst low bits");
	f.b[14 + 24 + 15] = 2;
	f.b[14 + 6] = 44; /* a fragment header follows */
	VT_CHECK(!hit(&m, &f), "a fragment");
	return VT_OK;
}

/* ESP SPI: the outer ESP header's, not one inside a tunnel. */
static int
test_agree_esp(void)
{
	struct rte_flow_item_esp esp = { .hdr.spi = BE32(0x1234) };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_ESP, .spec = &esp },
		END_ITEM,
	};
	static struct sv_match m;
	struct fb f;
	uint8_t *e;

	COMPILE(p, &m);
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 50, 0, 0);
	e = fb_put(&f, 8);
	wr32(e, 0x1234);
	wr32(e + 4, 1);
	fb_end(&f);
	VT_CHECK(hit(&m, &f), "outer ESP, SPI 0x1234");
	wr32(e, 0x1235);
	VT_CHECK(!hit(&m, &f), "other SPI");
	/* The same SPI in an ESP header inside VXLAN. */
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 17, 0, 0);
	fb_udp(&f, 1, 4789);
	fb_vxlan(&f, 5);
	fb_eth(&f, mac_b, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 50, 0, 0);
	e = fb_put(&f, 8);
	wr32(e, 0x1234);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "inner ESP");
	return VT_OK;
}

/* ---- sv_fte_compile on hand-made buffers ---- */

static int
test_fte_refusals(void)
{
	static uint8_t b[VSTEER_PRM_MATCH_PARAM_BYTES];
	const uint8_t all = VSTEER_PRM_CRIT_ALL & 0x0f;
	static struct sv_key k;

#define RESET() memset(b, 0, sizeof(b))
	RESET();
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x0f, b, 320, NULL, &k), 0,
		    "zero");
	/* Sizes: shorter than the enabled sections, longer than the PRM. */
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x05, b, 128, NULL, &k), EINVAL,
		    "inner section cut");
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x05, b, 192, NULL, &k), 0,
		    "up to inner");
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x01, b, 513, NULL, &k), EINVAL,
		    "513 bytes");
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x80, b, 512, NULL, &k), EINVAL,
		    "criteria bit 7");
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x01, NULL, 64, NULL, &k),
		    EINVAL, "NULL buffer");
	/* Fields softverbs does not model. */
	vsteer_prm_set(b,
		       VSTEER_PRM_MISC + VSTEER_PRM_MISC_OUTER_SECOND_VID_OFF,
		       VSTEER_PRM_MISC_OUTER_SECOND_VID_LEN, 7);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, all, b, 320, NULL, &k),
		    EOPNOTSUPP, "outer_second_vid");
	RESET();
	/* inner_esp_spi: misc bits 0x160..0x17f (the outer one is
	 * modelled, the inner one is not). */
	vsteer_prm_set(b, VSTEER_PRM_MISC + 0x160, 32, 0x1234);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, all, b, 320, NULL, &k),
		    EOPNOTSUPP, "inner_esp_spi");
	RESET();
	VSTEER_PRM_SET(b, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GENEVE_VNI, 1);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, all, b, 320, NULL, &k),
		    EOPNOTSUPP, "geneve_vni");
	RESET();
	VSTEER_PRM_SET(b, VSTEER_PRM_MISC3, VSTEER_PRM_MISC3_ICMP_TYPE, 8);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x1f, b, 320, NULL, &k),
		    EOPNOTSUPP, "misc3 icmp_type");
	/* ...but a disabled section is not looked at. */
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x0f, b, 320, NULL, &k), 0,
		    "misc3 disabled");
	RESET();
	vsteer_prm_set(b,
		       VSTEER_PRM_MISC2 + VSTEER_PRM_MISC2_METADATA_REG_A_OFF,
		       32, 1);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, all, b, 320, NULL, &k),
		    EOPNOTSUPP, "metadata_reg_a");
	/* L4 ports whose protocol is masked but partly. */
	RESET();
	VSTEER_PRM_SET(b, VSTEER_PRM_OUTER, VSTEER_PRM_L24_TCP_DPORT, 80);
	VSTEER_PRM_SET(b, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_PROTOCOL, 0x0f);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, all, b, 320, NULL, &k),
		    EOPNOTSUPP, "tcp_dport under ip_protocol mask 0x0f");
	VSTEER_PRM_SET(b, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_PROTOCOL, 0xff);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, all, b, 320, NULL, &k), 0,
		    "tcp_dport under a full ip_protocol mask");
	VT_CHECK(k.outer.dport == htons(80) && k.outer.ip_proto == 0xff &&
			 !(k.outer.present & SV_P_TCP),
		 "dport in the key, the protocol says whose");
	VSTEER_PRM_SET(b, VSTEER_PRM_OUTER, VSTEER_PRM_L24_UDP_SPORT, 1);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, all, b, 320, NULL, &k),
		    EOPNOTSUPP, "TCP and UDP ports");
	RESET();
	VSTEER_PRM_SET(b, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_PROTOCOL, 47);
	vsteer_prm_set(b,
		       VSTEER_PRM_MISC2 +
			       VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_UDP_OFF,
		       32, 1);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, all, b, 320, NULL, &k),
		    EOPNOTSUPP, "MPLS over UDP in GRE");
	/* An address mask on the low 32 bits only is the same bits for
	 * both families (the PRM union): no layout is guessed, nothing is
	 * refused, the key holds the union as it is. */
	RESET();
	VSTEER_PRM_SET(b, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_VERSION, 0xf);
	memset(b + VSTEER_PRM_L24_SRC_IP_OFF / 8 + 12, 0xff, 4);
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, all, b, 320, NULL, &k), 0,
		    "low 32 bits of an address");
	VT_CHECK(k.outer.src_ip[12] == 0xff && k.outer.src_ip[15] == 0xff &&
			 k.outer.src_ip[0] == 0,
		 "kept where the PRM has them");
#undef RESET
	return VT_OK;
}

/* Field by field into the key (the reading side of the layout). */
static int
test_fte_fields(void)
{
	static uint8_t b[VSTEER_PRM_MATCH_PARAM_BYTES];
	static uint8_t mb[VSTEER_PRM_MATCH_PARAM_BYTES];
	static struct sv_key k, km;
	const uint8_t o = VSTEER_PRM_OUTER / 8, i = VSTEER_PRM_INNER / 8;
	uint8_t want4[4] = { 0, 0x12, 0x34, 0x56 };

	memset(b, 0, sizeof(b));
	memcpy(b + o + 8, mac_a, 6); /* dmac at bit 0x40 */
	memcpy(b + o + 0, mac_b, 6); /* smac at bit 0 */
	b[o + 6] = 0x88;
	b[o + 7] = 0x47; /* ethertype */
	b[o + 14] = 0xa0;
	b[o + 15] = 0x64;	     /* prio 5, vid 100 */
	b[o + 18] = 0x80 | (6 << 1); /* cvlan_tag, ip_version 6 */
	b[o + 18] |= 0x01;	     /* tcp_flags bit 8: NS */
	b[o + 19] = 0x12;	     /* tcp_flags SYN ACK */
	b[o + 16] = 6;		     /* ip_protocol TCP */
	b[o + 17] = 0xb9;	     /* dscp:ecn */
	b[o + 27] = 7;		     /* ttl_hoplimit */
	memcpy(b + o + 32, ip6_a, 16);
	memcpy(b + i + 48 + 12, ip_a, 4);   /* inner ipv4 dst */
	b[i + 18] = 0x40 | 0x20 | (4 << 1); /* inner svlan_tag, frag, ipv4 */
	b[i + 26] = 0x50;		    /* inner ipv4_ihl 5 */
	b[64 + 12] = 0x80 | 0x10;	    /* outer_second_cvlan_tag,
					     * inner_second_svlan_tag */
	b[64 + 48] = 0xde;		    /* outer_esp_spi */
	b[64 + 51] = 0x01;
	b[64 + 0] = 0xb0; /* gre C, K, S */
	b[64 + 14] = 0x65;
	b[64 + 15] = 0x58; /* gre_protocol */
	b[64 + 19] = 0x99; /* gre_key */
	b[64 + 20] = 0x12;
	b[64 + 21] = 0x34;
	b[64 + 22] = 0x56;
	b[64 + 29] = 0x0a;
	b[64 + 30] = 0xbc;
	b[64 + 31] = 0xde;
	b[64 + 33] = 0x01;
	b[64 + 35] = 0x02;
	/* A value: the matcher's mask has a full ip_protocol mask. */
	memcpy(mb, b, sizeof(mb));
	mb[o + 16] = 0xff;
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x07, mb, 320, NULL, &km), 0,
		    "mask");
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x07, b, 320, &km, &k), 0, "ok");
	VT_CHECK(memcmp(k.outer.dmac, mac_a, 6) == 0, "dmac");
	VT_CHECK(memcmp(k.outer.smac, mac_b, 6) == 0, "smac");
	VT_CHECK(k.outer.ether_type == htons(0x8847), "ethertype");
	VT_CHECK(k.outer.vlan_tci == htons(0xa064), "tci");
	VT_CHECK(k.outer.tos == 0xb9 && k.outer.ttl == 7, "tos ttl");
	VT_CHECK(k.outer.tcp_flags == 0x12 && k.outer.tcp_ns == 1,
		 "tcp flags, NS");
	VT_CHECK_EQ(k.outer.present, SV_P_CVLAN | SV_P_CVLAN2, "outer present");
	VT_CHECK(k.outer.ip_version == 6 && k.inner.ip_version == 4,
		 "ip_version");
	VT_CHECK(memcmp(k.outer.src_ip, ip6_a, 16) == 0, "ipv6 src");
	VT_CHECK(memcmp(k.inner.dst_ip + SV_IPV4_OFF, ip_a, 4) == 0,
		 "inner ipv4 dst in the last 4 bytes");
	VT_CHECK(k.inner.ihl == 5, "inner ihl");
	VT_CHECK_EQ(k.inner.present, SV_P_SVLAN | SV_P_SVLAN2 | SV_P_IPFRAG,
		    "inner present");
	VT_CHECK(k.outer_esp_spi == htonl(0xde000001), "outer_esp_spi");
	VT_CHECK(k.gre_c_ks_ver == htons(0xb000), "gre C K S");
	VT_CHECK(k.gre_protocol == htons(0x6558), "gre_protocol");
	VT_CHECK(k.gre_key == htonl(0x99), "gre_key");
	VT_CHECK(memcmp(&k.vni, want4, 4) == 0, "vni as tunnel_id");
	VT_CHECK(k.outer.flow_label == htonl(0xabcde), "outer flow label");
	VT_CHECK(k.inner.flow_label == htonl(0x10002), "inner flow label");
	/* The misc section is ignored when not enabled. */
	VT_CHECK_EQ(sv_fte_compile(&mlx5_caps, 0x05, b, 320, &km, &k), 0, "ok");
	VT_CHECK(k.gre_key == 0 && k.vni == 0, "misc disabled");
	return VT_OK;
}

/*
 * Masks the device takes as they are (Linux 6.1 and rdma-core 44 pass the
 * matcher's mask to the firmware unchanged), and what it matches with
 * them: a rule built from hand-made mask and value buffers, compiled as
 * softverbs compiles a matcher and its rule.
 */
static int
fte_rule(uint8_t crit, const uint8_t *mask, const uint8_t *value,
	 struct sv_match *m)
{
	size_t i;
	int rc;

	rc = sv_fte_compile(&mlx5_caps, crit, mask, 320, NULL, &m->mask);
	if (rc == 0)
		rc = sv_fte_compile(&mlx5_caps, crit, value, 320, &m->mask,
				    &m->value);
	for (i = 0; i < sizeof(m->value); i++)
		((uint8_t *)&m->value)[i] &= ((uint8_t *)&m->mask)[i];
	return rc;
}

static void
mk_tcp4(struct fb *f, uint16_t dport, uint8_t flags)
{
	memset(f, 0, sizeof(*f));
	fb_eth(f, mac_a, 0x0800);
	fb_ipv4(f, ip_b, ip_a, 6, 0, 0);
	fb_tcp(f, 1000, dport, flags);
	fb_end(f);
}

static int
test_fte_as_device(void)
{
	static uint8_t mb[VSTEER_PRM_MATCH_PARAM_BYTES];
	static uint8_t vb[VSTEER_PRM_MATCH_PARAM_BYTES];
	static struct sv_match m;
	const uint8_t outer = 1u << VSTEER_PRM_CRIT_OUTER_BIT;
	struct fb f;

	/* TCP fields without an ip_protocol match: a frame of another
	 * protocol reads them as zero, so a non-zero value means TCP. */
	memset(mb, 0, sizeof(mb));
	memset(vb, 0, sizeof(vb));
	VSTEER_PRM_SET(mb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_TCP_DPORT, 0xffff);
	VSTEER_PRM_SET(vb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_TCP_DPORT, 80);
	VT_CHECK_EQ(fte_rule(outer, mb, vb, &m), 0, "tcp_dport alone");
	mk_tcp4(&f, 80, 0x10);
	VT_CHECK(hit(&m, &f), "TCP to port 80");
	mk_tcp4(&f, 81, 0x10);
	VT_CHECK(!hit(&m, &f), "TCP to port 81");
	mk_udp4(&f, mac_a, ip_a, 80);
	VT_CHECK(!hit(&m, &f), "UDP to port 80");
	/* Port 0: every non-TCP frame as well, not one key match. */
	VSTEER_PRM_SET(vb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_TCP_DPORT, 0);
	VT_CHECK_EQ(fte_rule(outer, mb, vb, &m), EOPNOTSUPP, "tcp_dport 0");
	/* The same for UDP, and for TCP flags. */
	memset(mb, 0, sizeof(mb));
	memset(vb, 0, sizeof(vb));
	VSTEER_PRM_SET(mb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_UDP_DPORT, 0xff00);
	VSTEER_PRM_SET(vb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_UDP_DPORT, 0x3500);
	VT_CHECK_EQ(fte_rule(outer, mb, vb, &m), 0, "udp_dport alone");
	mk_udp4(&f, mac_a, ip_a, 0x3535);
	VT_CHECK(hit(&m, &f), "UDP 0x3535 under 0xff00");
	mk_tcp4(&f, 0x3535, 0x10);
	VT_CHECK(!hit(&m, &f), "TCP 0x3535");
	memset(mb, 0, sizeof(mb));
	memset(vb, 0, sizeof(vb));
	VSTEER_PRM_SET(mb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_TCP_FLAGS, 0x02);
	VSTEER_PRM_SET(vb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_TCP_FLAGS, 0x02);
	VT_CHECK_EQ(fte_rule(outer, mb, vb, &m), 0, "SYN alone");
	mk_tcp4(&f, 80, 0x12);
	VT_CHECK(hit(&m, &f), "SYN ACK");
	mk_tcp4(&f, 80, 0x10);
	VT_CHECK(!hit(&m, &f), "ACK");
	mk_udp4(&f, mac_a, ip_a, 80);
	VT_CHECK(!hit(&m, &f), "UDP");

	/* ip_version under any mask: the version bits themselves. 4 is
	 * 0100, 6 is 0110, no IP header 0000. */
	memset(mb, 0, sizeof(mb));
	memset(vb, 0, sizeof(vb));
	VSTEER_PRM_SET(mb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_VERSION, 0x4);
	VSTEER_PRM_SET(vb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_VERSION, 0x4);
	VT_CHECK_EQ(fte_rule(outer, mb, vb, &m), 0, "ip_version mask 4");
	mk_udp4(&f, mac_a, ip_a, 53);
	VT_CHECK(hit(&m, &f), "mask 4: IPv4");
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x86dd);
	fb_ipv6(&f, ip6_a, ip6_b, 17, 0);
	fb_udp(&f, 1, 2);
	fb_end(&f);
	VT_CHECK(hit(&m, &f), "mask 4: IPv6");
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0806);
	fb_end(&f);
	VT_CHECK(!hit(&m, &f), "mask 4: ARP");
	VSTEER_PRM_SET(mb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_VERSION, 0x2);
	VSTEER_PRM_SET(vb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_VERSION, 0x2);
	VT_CHECK_EQ(fte_rule(outer, mb, vb, &m), 0, "ip_version mask 2");
	mk_udp4(&f, mac_a, ip_a, 53);
	VT_CHECK(!hit(&m, &f), "mask 2: IPv4");
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x86dd);
	fb_ipv6(&f, ip6_a, ip6_b, 17, 0);
	fb_udp(&f, 1, 2);
	fb_end(&f);
	VT_CHECK(hit(&m, &f), "mask 2: IPv6");
	VSTEER_PRM_SET(mb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_VERSION, 0xf);
	VSTEER_PRM_SET(vb, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_VERSION, 0x5);
	VT_CHECK_EQ(fte_rule(outer, mb, vb, &m), 0, "ip_version 5");
	VT_CHECK(!hit(&m, &f), "version 5: nothing");

	/* Criteria of a section match_criteria_enable leaves off: taken,
	 * and not matched (the rule is the other sections'). */
	memset(mb, 0, sizeof(mb));
	memset(vb, 0, sizeof(vb));
	memset(mb + VSTEER_PRM_L24_DMAC_OFF / 8, 0xff, 6);
	memcpy(vb + VSTEER_PRM_L24_DMAC_OFF / 8, mac_b, 6);
	VSTEER_PRM_SET(mb, VSTEER_PRM_MISC, VSTEER_PRM_MISC_VXLAN_VNI,
		       0xffffff);
	VSTEER_PRM_SET(vb, VSTEER_PRM_MISC, VSTEER_PRM_MISC_VXLAN_VNI, 7);
	VT_CHECK_EQ(fte_rule(1u << VSTEER_PRM_CRIT_MISC_BIT, mb, vb, &m), 0,
		    "dmac in a disabled section");
	memset(&f, 0, sizeof(f));
	fb_eth(&f, mac_a, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 17, 0, 0);
	fb_udp(&f, 1000, 4789);
	fb_vxlan(&f, 7);
	fb_eth(&f, mac_b, 0x0800);
	fb_ipv4(&f, ip_b, ip_a, 17, 0, 0);
	fb_udp(&f, 1, 2);
	fb_end(&f);
	VT_CHECK(hit(&m, &f), "VNI 7 to another dmac");
	return VT_OK;
}

/* ---- devices ---- */

#define NQ 2
#define NBUF 32

/* Any key will do: these hash QPs hash no field. */
static const uint8_t rss_key[SV_RSS_KEY_LEN] = { 1, 2, 3, 4 };

/* End 0 (generic) sends, end 1 (mlx5) receives, has the matchers, and
 * sends through its egress rules. */
static const struct vt_svenv_cfg env_cfg = {
	.link_prefix = "svdv",
	.nq = NQ,
	.nbuf = NBUF,
	.rx_cqe = 64,
	.tx_wr = 16,
	.tx_slots = 1,
	.rss_key = rss_key,
};

/* Send a frame from an end and wait for its send completion. */
static int
xmit(struct vt_svenv *e, int end, const struct fb *f)
{
	return vt_svenv_xmit(e, end, f->b, f->n);
}

/* From end 0 to end 1, which will take it off the wire. */
static int
send0(struct vt_svenv *e, const struct fb *f)
{
	if (xmit(e, 0, f) != 0)
		return -1;
	e->rx_expect++;
	return 0;
}

static struct sv_port_stats
stats1(struct vt_svenv *e)
{
	return vt_svenv_stats(e, 1);
}

struct rx {
	int n;
	uint32_t tag[NBUF];
	uint32_t len[NBUF];
};

/* Pump end 1 (polling an empty CQ does) until it took every frame sent,
 * then take queue qi's completions. Bounded in time. */
static int
collect(struct vt_svenv *e, int qi, struct rx *r)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	struct ibv_cq_ex *cq = e->q[qi].cq;
	double deadline = vt_now_s() + 2.0;
	int rc;

	r->n = 0;
	while (stats1(e).rx_frames < e->rx_expect && vt_now_s() < deadline) {
		struct ibv_cq_ex *other = e->q[!qi].cq;

		/* Poll the other queue: pumps without taking ours. */
		if (ibv_start_poll(other, &pa) == 0)
			ibv_end_poll(other);
	}
	if (stats1(e).rx_frames != e->rx_expect)
		return -1;
	rc = ibv_start_poll(cq, &pa);
	if (rc == ENOENT)
		return 0;
	if (rc != 0)
		return -1;
	do {
		if (r->n < NBUF) {
			r->tag[r->n] = ibv_wc_read_flow_tag(cq);
			r->len[r->n] = ibv_wc_read_byte_len(cq);
			r->n++;
		}
		if (cq->status != IBV_WC_SUCCESS ||
		    vt_svenv_post_rx(&e->q[qi], cq->wr_id) != 0) {
			ibv_end_poll(cq);
			return -1;
		}
		rc = ibv_next_poll(cq);
	} while (rc == 0);
	ibv_end_poll(cq);
	return rc == ENOENT ? 0 : -1;
}

static struct vt_svenv E;

#define ENV_UP(e)                                                           \
	VT_CHECK(vt_svenv_up(e, &env_cfg) == 0, "set-up failed (errno %d)", \
		 errno)
#define ENV_DOWN(e) VT_CHECK(vt_svenv_down(e) == 0, "tear-down failed")

/* A matcher from a pattern's mask. */
static struct mlx5dv_flow_matcher *
mk_matcher(struct ibv_context *ctx, const struct rte_flow_item *p,
	   uint16_t prio, struct vsteer_dv_match *dm)
{
	struct mlx5dv_flow_matcher_attr ma = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.priority = prio,
	};

	if (dv_xlate(p, dm, &ferr) != 0) {
		errno = 0;
		return NULL;
	}
	ma.match_criteria_enable = dm->criteria;
	ma.match_mask = vsteer_dv_params(&dm->mask);
	return sv_mlx5dv_create_flow_matcher(ctx, &ma);
}

/* UDP to a destination port, any IPv4. */
static void
udp_pattern(struct rte_flow_item p[4], struct rte_flow_item_udp *u,
	    uint16_t dport)
{
	static const struct rte_flow_item_udp udp_m = {
		.hdr.dst_port = BE16(0xffff),
	};

	memset(u, 0, sizeof(*u));
	u->hdr.dst_port = rte_cpu_to_be_16(dport);
	memset(p, 0, 4 * sizeof(*p));
	p[0].type = RTE_FLOW_ITEM_TYPE_ETH;
	p[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	p[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	p[2].spec = u;
	p[2].mask = &udp_m;
	p[3].type = RTE_FLOW_ITEM_TYPE_END;
}

static int
test_dv_device(void)
{
	struct vt_svenv *e = &E;
	struct mlx5dv_context dv;
	struct ibv_device **list;
	int n, i, mlx5 = 0, generic = 0;

	ENV_UP(e);
	list = sv_get_device_list(&n);
	VT_CHECK(list != NULL, "device list");
	for (i = 0; i < n; i++) {
		const char *nm = sv_get_device_name(list[i]);

		if (strcmp(nm, e->name[1]) == 0)
			mlx5 += sv_mlx5dv_is_supported(list[i]);
		if (strcmp(nm, e->name[0]) == 0)
			generic += !sv_mlx5dv_is_supported(list[i]);
	}
	sv_free_device_list(list);
	VT_CHECK_EQ(mlx5, 1, "mlx5 profile device supports mlx5dv");
	VT_CHECK_EQ(generic, 1, "generic device does not");
	memset(&dv, 0xff, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_CQE_COMPRESION;
	VT_CHECK_EQ(sv_mlx5dv_query_device(e->ctx[1], &dv), 0, "query");
	VT_CHECK_EQ(dv.comp_mask, 0, "nothing optional filled");
	VT_CHECK_EQ(sv_mlx5dv_query_device(e->ctx[0], &dv), EOPNOTSUPP,
		    "generic device");
	ENV_DOWN(e);
	return VT_OK;
}

static int
test_matcher_errors(void)
{
	struct vt_svenv *e = &E;
	static struct vsteer_dv_match dm;
	struct rte_flow_item p[4];
	struct rte_flow_item_udp u;
	struct mlx5dv_flow_matcher_attr ma;
	struct mlx5dv_flow_matcher *m;

	ENV_UP(e);
	udp_pattern(p, &u, 53);
	VT_CHECK_EQ(dv_xlate(p, &dm, &ferr), 0, "translate");
#define MA_RESET()                                          \
	do {                                                \
		memset(&ma, 0, sizeof(ma));                 \
		ma.type = IBV_FLOW_ATTR_NORMAL;             \
		ma.match_criteria_enable = dm.criteria;     \
		ma.match_mask = vsteer_dv_params(&dm.mask); \
	} while (0)
#define MA_FAILS(ctx, err, what)                                            \
	do {                                                                \
		errno = 0;                                                  \
		VT_CHECK(sv_mlx5dv_create_flow_matcher((ctx), &ma) == NULL, \
			 what);                                             \
		VT_CHECK_EQ(errno, err, what);                              \
	} while (0)
	MA_RESET();
	MA_FAILS(e->ctx[0], EOPNOTSUPP, "generic device");
	ma.type = IBV_FLOW_ATTR_ALL_DEFAULT;
	MA_FAILS(e->ctx[1], EOPNOTSUPP, "type ALL_DEFAULT");
	ma.type = IBV_FLOW_ATTR_SNIFFER;
	MA_FAILS(e->ctx[1], EOPNOTSUPP, "type SNIFFER");
	MA_RESET();
	ma.comp_mask = 2;
	MA_FAILS(e->ctx[1], EOPNOTSUPP, "comp_mask bit 1");
	MA_RESET();
	ma.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
	ma.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
	ma.flags = IBV_FLOW_ATTR_FLAGS_EGRESS;
	MA_FAILS(e->ctx[1], EINVAL, "ft_type and flags");
	ma.flags = 0;
	ma.ft_type = MLX5DV_FLOW_TABLE_TYPE_FDB;
	MA_FAILS(e->ctx[1], EOPNOTSUPP, "FDB");
	ma.ft_type = (enum mlx5dv_flow_table_type)99;
	MA_FAILS(e->ctx[1], EINVAL, "unknown ft_type");
	MA_RESET();
	ma.flags = IBV_FLOW_ATTR_FLAGS_DONT_TRAP;
	MA_FAILS(e->ctx[1], EINVAL, "DONT_TRAP");
	MA_RESET();
	ma.match_mask = NULL;
	MA_FAILS(e->ctx[1], EINVAL, "no mask");
	MA_RESET();
	dm.mask.size = 32;
	MA_FAILS(e->ctx[1], EINVAL, "mask shorter than outer_headers");
	dm.mask.size = 320;
	/* A bit no field of the PRM has (outer bit 0xc0). */
	((uint8_t *)dm.mask.buf)[24] = 0x80;
	MA_FAILS(e->ctx[1], EOPNOTSUPP, "reserved bits");
	((uint8_t *)dm.mask.buf)[24] = 0;
	/* NIC_TX is an egress matcher; 16 is accepted until a rule. */
	ma.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
	ma.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_TX;
	ma.priority = 16;
	m = sv_mlx5dv_create_flow_matcher(e->ctx[1], &ma);
	VT_CHECK(m != NULL, "NIC_TX matcher: errno %d", errno);
	/* A live matcher keeps the context open. */
	VT_CHECK_EQ(sv_close_device(e->ctx[1]), EBUSY, "close with matcher");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "destroy");
#undef MA_FAILS
#undef MA_RESET
	ENV_DOWN(e);
	return VT_OK;
}

static struct mlx5dv_devx_obj *
alloc_counter(struct ibv_context *ctx, uint32_t *id)
{
	uint8_t in[VSTEER_PRM_ALLOC_FC_IN_BYTES];
	uint8_t out[VSTEER_PRM_ALLOC_FC_OUT_BYTES];
	struct mlx5dv_devx_obj *obj;

	vsteer_dv_cmd_alloc_counter(in);
	memset(out, 0xff, sizeof(out));
	obj = sv_mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	if (obj != NULL &&
	    vsteer_dv_cmd_alloc_counter_parse(out, sizeof(out), id) != 0)
		return NULL;
	return obj;
}

static int
query_counter(struct mlx5dv_devx_obj *obj, uint32_t id, bool clear,
	      uint64_t *pk, uint64_t *by)
{
	uint8_t in[VSTEER_PRM_QUERY_FC_IN_BYTES];
	uint8_t out[VSTEER_PRM_QUERY_FC_OUT_BYTES];
	int rc;

	vsteer_dv_cmd_query_counter(in, id, clear);
	memset(out, 0xff, sizeof(out));
	rc = sv_mlx5dv_devx_obj_query(obj, in, sizeof(in), out, sizeof(out));
	if (rc != 0)
		return rc;
	return vsteer_dv_cmd_query_counter_parse(out, sizeof(out), pk, by);
}

static int
test_devx_counter(void)
{
	struct vt_svenv *e = &E;
	struct mlx5dv_devx_obj *c1, *c2;
	uint8_t in[64], out[64];
	uint32_t id1 = 0, id2 = 0;
	uint64_t pk = 1, by = 1;

	ENV_UP(e);
	c1 = alloc_counter(e->ctx[1], &id1);
	c2 = alloc_counter(e->ctx[1], &id2);
	VT_CHECK(c1 != NULL && c2 != NULL, "alloc: errno %d", errno);
	VT_CHECK(id1 != id2, "distinct flow_counter_id");
	VT_CHECK_EQ(query_counter(c1, id1, false, &pk, &by), 0, "query");
	VT_CHECK(pk == 0 && by == 0, "cleared on creation");
	/* The command must name the object queried. */
	VT_CHECK_EQ(query_counter(c1, id2, false, &pk, &by), EINVAL,
		    "other id");
	/* Wrong class of command for the entry point. */
	vsteer_dv_cmd_query_counter(in, id1, false);
	VT_CHECK_EQ(sv_mlx5dv_devx_general_cmd(e->ctx[1], in, 32, out, 32),
		    EINVAL, "QUERY_FLOW_COUNTER is not a general command");
	errno = 0;
	VT_CHECK(sv_mlx5dv_devx_obj_create(e->ctx[1], in, 32, out, 32) ==
				 NULL &&
			 errno == EINVAL,
		 "QUERY as create");
	vsteer_dv_cmd_alloc_counter(in);
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_query(c1, in, 16, out, 32), EINVAL,
		    "ALLOC as query");
	/* Opcodes softverbs does not model (CREATE_TIR 0x900). */
	memset(in, 0, sizeof(in));
	in[0] = 0x09;
	errno = 0;
	VT_CHECK(sv_mlx5dv_devx_obj_create(e->ctx[1], in, 64, out, 64) ==
				 NULL &&
			 errno == EOPNOTSUPP,
		 "CREATE_TIR");
	/* Bulk allocation, short output, generic device. */
	vsteer_dv_cmd_alloc_counter(in);
	in[15] = 1;
	errno = 0;
	VT_CHECK(sv_mlx5dv_devx_obj_create(e->ctx[1], in, 16, out, 16) ==
				 NULL &&
			 errno == EOPNOTSUPP,
		 "bulk");
	in[15] = 0;
	errno = 0;
	VT_CHECK(sv_mlx5dv_devx_obj_create(e->ctx[1], in, 16, out, 8) == NULL &&
			 errno == EINVAL,
		 "outlen 8");
	errno = 0;
	VT_CHECK(sv_mlx5dv_devx_obj_create(e->ctx[0], in, 16, out, 16) ==
				 NULL &&
			 errno == EOPNOTSUPP,
		 "generic device");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(c1), 0, "dealloc 1");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(c2), 0, "dealloc 2");
	ENV_DOWN(e);
	return VT_OK;
}

/* A device of its own, opened through libmlx5's entry point. */
static int
dv_dev_add(const char *tag, uint32_t lacks, enum sv_profile profile, char *name,
	   size_t len, struct ibv_device **dev, struct ibv_device ***list)
{
	struct sv_device_opts o = { .profile = profile, .lacks = lacks };
	char wire[64];
	int i, n;

	snprintf(wire, sizeof(wire), "mem:%s-%d", tag, (int)getpid());
	if (softverbs_device_add(wire, &o, name, len) != 0)
		return -1;
	*list = sv_get_device_list(&n);
	*dev = NULL;
	for (i = 0; *list != NULL && i < n; i++)
		if (strcmp(sv_get_device_name((*list)[i]), name) == 0)
			*dev = (*list)[i];
	return *dev == NULL ? -1 : 0;
}

/*
 * DevX contexts: libmlx5 44's mlx5_alloc_context() asks the kernel for a
 * DevX context whether the caller asked or not, and falls back only when
 * the kernel refuses it; a DevX command on a context without a DevX uid
 * finds no DevX method on a device without DevX (EPROTONOSUPPORT).
 */
static int
test_devx_context(void)
{
	struct mlx5dv_context_attr da = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list, *dev;
	struct ibv_context *ctx;
	struct mlx5dv_devx_obj *c;
	char name[64];
	uint8_t in[64], out[64];
	uint32_t id;

	/* A DevX device: every way of opening gives a DevX context. */
	VT_CHECK(dv_dev_add("dvx", 0, SV_PROFILE_MLX5, name, sizeof(name), &dev,
			    &list) == 0,
		 "device");
	ctx = sv_mlx5dv_open_device(dev, &da);
	VT_CHECK(ctx != NULL, "open with DEVX: errno %d", errno);
	c = alloc_counter(ctx, &id);
	VT_CHECK(c != NULL, "DevX counter: errno %d", errno);
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(c), 0, "dealloc");
	VT_CHECK_EQ(sv_close_device(ctx), 0, "close");
	ctx = sv_open_device(dev);
	VT_CHECK(ctx != NULL && sv_ctx(ctx)->devx,
		 "ibv_open_device() is a DevX context too");
	VT_CHECK_EQ(sv_close_device(ctx), 0, "close");
	ctx = sv_mlx5dv_open_device(dev, NULL);
	VT_CHECK(ctx != NULL && sv_ctx(ctx)->devx, "no attributes");
	VT_CHECK_EQ(sv_close_device(ctx), 0, "close");
	/* mlx5_alloc_context(): comp_mask and unknown flags. */
	da.comp_mask = 1;
	errno = 0;
	VT_CHECK(sv_mlx5dv_open_device(dev, &da) == NULL && errno == EINVAL,
		 "comp_mask: errno %d", errno);
	da.comp_mask = 0;
	da.flags = 2;
	errno = 0;
	VT_CHECK(sv_mlx5dv_open_device(dev, &da) == NULL && errno == EINVAL,
		 "unknown flag: errno %d", errno);
	da.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
	sv_free_device_list(list);
	VT_CHECK_EQ(softverbs_device_remove(name), 0, "remove");

	/* No DevX: the flag is refused (mlx5_ib_devx_create()), a plain
	 * open falls back, and DevX commands find no method. */
	VT_CHECK(dv_dev_add("dvn", SV_DEV_NO_DEVX, SV_PROFILE_MLX5, name,
			    sizeof(name), &dev, &list) == 0,
		 "device without DevX");
	errno = 0;
	VT_CHECK(sv_mlx5dv_open_device(dev, &da) == NULL && errno == EINVAL,
		 "DEVX refused: errno %d", errno);
	ctx = sv_mlx5dv_open_device(dev, NULL);
	VT_CHECK(ctx != NULL && !sv_ctx(ctx)->devx, "fallback: errno %d",
		 errno);
	errno = 0;
	VT_CHECK(alloc_counter(ctx, &id) == NULL && errno == EPROTONOSUPPORT,
		 "ALLOC_FLOW_COUNTER without DevX: errno %d", errno);
	vsteer_dv_cmd_query_counter(in, 1, false);
	VT_CHECK_EQ(sv_mlx5dv_devx_general_cmd(ctx, in, 32, out, 32),
		    EPROTONOSUPPORT, "general command without DevX");
	VT_CHECK_EQ(sv_close_device(ctx), 0, "close");
	ctx = sv_open_device(dev);
	VT_CHECK(ctx != NULL && !sv_ctx(ctx)->devx, "ibv_open_device()");
	VT_CHECK_EQ(sv_close_device(ctx), 0, "close");
	sv_free_device_list(list);
	VT_CHECK_EQ(softverbs_device_remove(name), 0, "remove");

	/* Not an mlx5 device: libmlx5 says so. */
	VT_CHECK(dv_dev_add("dvg", 0, SV_PROFILE_GENERIC, name, sizeof(name),
			    &dev, &list) == 0,
		 "generic device");
	errno = 0;
	VT_CHECK(sv_mlx5dv_open_device(dev, &da) == NULL && errno == EOPNOTSUPP,
		 "generic: errno %d", errno);
	ctx = sv_open_device(dev);
	VT_CHECK(ctx != NULL && !sv_ctx(ctx)->devx, "generic: no DevX");
	VT_CHECK_EQ(sv_close_device(ctx), 0, "close");
	sv_free_device_list(list);
	VT_CHECK_EQ(softverbs_device_remove(name), 0, "remove");
	return VT_OK;
}

/* A matcher on end 1 for pattern p, and its rule to queue qi. */
/* The rule's value byte at (byte offset) off gets |= or (the driver
 * refuses the multicast destinations these make: the buffers softverbs
 * must still take are made by hand from a translated one). */
static struct ibv_flow *
dv_rule_or(struct vt_svenv *e, const struct rte_flow_item *p, int qi,
	   struct mlx5dv_flow_matcher **m, uint32_t off, uint8_t or)
{
	static struct vsteer_dv_match dm;
	struct mlx5dv_flow_action_attr a;

	*m = mk_matcher(e->ctx[1], p, 0, &dm);
	if (*m == NULL)
		return NULL;
	((uint8_t *)dm.value.buf)[off] |= or ;
	memset(&a, 0, sizeof(a));
	a.type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	a.qp = e->q[qi].hqp;
	return sv_mlx5dv_create_flow(*m, vsteer_dv_params(&dm.value), 1, &a);
}

static struct ibv_flow *
dv_rule(struct vt_svenv *e, const struct rte_flow_item *p, int qi,
	struct mlx5dv_flow_matcher **m)
{
	return dv_rule_or(e, p, qi, m, 0, 0);
}

/*
 * raw_fs_is_multicast(): an mlx5dv rule whose outer dmac has the group bit
 * in value and mask, or whose outer IPv4 dst is in 224.0.0.0/4 in value
 * and mask (a /32 mask is not: 0xff... is not 0xe...), goes to the
 * multicast table, after a verbs catch-all at priority 5.
 */
static int
test_dv_mcast(void)
{
	/* The group bit is put in the value after translation. */
	static const struct rte_flow_item_eth eth_mc = {
		.hdr.dst_addr.addr_bytes = { 0x00, 0x00, 0x5e, 0, 0, 1 },
	};
	static const uint8_t dmac_mc[6] = { 0x01, 0x00, 0x5e, 0, 0, 1 };
	static const struct rte_flow_item_eth eth_m = {
		.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff },
	};
	struct rte_flow_item_ipv4 ip4 = { .hdr.dst_addr = BE32(0xef010203) };
	struct rte_flow_item_ipv4 ip4m = { .hdr.dst_addr = BE32(0xffffffff) };
	struct rte_flow_item p[3] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH,
		  .spec = &eth_mc,
		  .mask = &eth_m },
		END_ITEM,
		END_ITEM,
	};
	static const uint8_t ip_mc[4] = { 239, 1, 2, 3 };
	struct mlx5dv_flow_matcher *m;
	struct vt_svenv *e = &E;
	struct ibv_flow *any, *fl;
	struct ibv_flow_attr *fa;
	union {
		struct ibv_flow_attr attr;
		uint8_t b[sizeof(struct ibv_flow_attr) +
			  sizeof(struct ibv_flow_spec_eth)];
	} catchall;
	struct ibv_flow_spec_eth es;
	struct rx r;
	struct fb f;

	ENV_UP(e);
	memset(&catchall, 0, sizeof(catchall));
	fa = &catchall.attr;
	fa->type = IBV_FLOW_ATTR_NORMAL;
	fa->priority = 5;
	fa->port = 1;
	fa->num_of_specs = 1;
	fa->size = sizeof(catchall);
	memset(&es, 0, sizeof(es));
	es.type = IBV_FLOW_SPEC_ETH;
	es.size = sizeof(es);
	memcpy(catchall.b + sizeof(*fa), &es, sizeof(es));
	any = ibv_create_flow(e->q[0].hqp, fa);
	VT_CHECK(any != NULL, "catch-all: errno %d", errno);

	fl = dv_rule_or(e, p, 1, &m, VSTEER_PRM_L24_DMAC_OFF / 8, 0x01);
	VT_CHECK(fl != NULL, "dmac multicast rule: errno %d", errno);
	mk_udp4(&f, dmac_mc, ip_a, 53);
	VT_CHECK(send0(e, &f) == 0, "send");
	VT_CHECK(collect(e, 0, &r) == 0 && r.n == 1,
		 "dmac multicast: the catch-all first (%d)", r.n);
	VT_CHECK(collect(e, 1, &r) == 0 && r.n == 0, "not the matcher");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher");

	/* IPv4 dst 239.1.2.3/32: not multicast for the kernel. */
	p[0].spec = NULL;
	p[0].mask = NULL;
	p[1].type = RTE_FLOW_ITEM_TYPE_IPV4;
	p[1].spec = &ip4;
	p[1].mask = &ip4m;
	fl = dv_rule(e, p, 1, &m);
	VT_CHECK(fl != NULL, "IPv4 /32 rule: errno %d", errno);
	mk_udp4(&f, mac_a, ip_mc, 53);
	VT_CHECK(send0(e, &f) == 0, "send");
	VT_CHECK(collect(e, 1, &r) == 0 && r.n == 1,
		 "IPv4 mc /32: regular table, priority 0 (%d)", r.n);
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher");
	/* A mask whose first nibble is 1110 (224.0.0.0/3): multicast. */
	ip4m.hdr.dst_addr = BE32(0xe0000000);
	ip4.hdr.dst_addr = BE32(0xc0000000);
	fl = dv_rule_or(e, p, 1, &m, VSTEER_PRM_L24_DST_IPV4_OFF / 8, 0x20);
	VT_CHECK(fl != NULL, "IPv4 224/3 rule: errno %d", errno);
	VT_CHECK(send0(e, &f) == 0, "send");
	VT_CHECK(collect(e, 0, &r) == 0 && r.n == 1,
		 "IPv4 224/3: the catch-all first (%d)", r.n);
	VT_CHECK(collect(e, 1, &r) == 0 && r.n == 0, "not the matcher");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher");
	VT_CHECK_EQ(ibv_destroy_flow(any), 0, "destroy");
	ENV_DOWN(e);
	return VT_OK;
}

/*
 * What the parser and the match fields of a modelled device offer, and
 * where a rule that needs what it lacks fails: the tunnel offloads as
 * mlx5dv_query_device() reports them (MPLS over GRE / UDP only with the
 * flex parser profile), the IHL field in QUERY_HCA_CAP (a DevX general
 * command), and a matcher using either accepted, its rules refused by
 * the firmware (EINVAL at mlx5dv_create_flow()).
 */
static const struct sv_device_opts flex_noihl_opts = {
	.profile = SV_PROFILE_MLX5,
	.lacks = SV_DEV_NO_IPV4_IHL,
	.flex_parser = 1,
};

static int
parser_case(struct vt_svenv *e, bool flex, bool ihl)
{
	static const struct rte_flow_item_mpls mpls = {
		.label_tc_s = { 0, 0x04, 0xd0 },
	};
	static const struct rte_flow_item_ipv4 v4 = { .hdr.version_ihl = 0x45 };
	static const struct rte_flow_item_ipv4 v4m = { .hdr.version_ihl =
							       0x0f };
	const struct rte_flow_item pm[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_MPLS, .spec = &mpls },
		END_ITEM,
	};
	const struct rte_flow_item pi[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &v4, .mask = &v4m },
		END_ITEM,
	};
	uint8_t in[VSTEER_PRM_QUERY_HCA_CAP_IN_BYTES];
	static uint8_t out[VSTEER_PRM_QUERY_HCA_CAP_OUT_BYTES];
	struct mlx5dv_context dv;
	struct mlx5dv_flow_matcher *m;
	const struct sv_device *dev = sv_ctx(e->ctx[1])->dev;
	struct vsteer_dv_ft_caps fc;
	struct ibv_flow *fl;
	bool outer = !ihl, inner = !ihl;
	uint32_t mpls_bits =
		MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_GRE |
		MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_UDP;

	memset(&dv, 0, sizeof(dv));
	dv.comp_mask = MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS |
		       MLX5DV_CONTEXT_MASK_STRIDING_RQ;
	VT_CHECK_EQ(sv_mlx5dv_query_device(e->ctx[1], &dv), 0, "query");
	VT_CHECK_EQ(dv.comp_mask, MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS,
		    "only what it fills");
	VT_CHECK(dv.tunnel_offloads_caps &
			 MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN,
		 "VXLAN offload");
	VT_CHECK_EQ(dv.tunnel_offloads_caps & mpls_bits, flex ? mpls_bits : 0,
		    "MPLS over GRE / UDP");
	vsteer_dv_cmd_query_ft_caps(in);
	VT_CHECK_EQ(sv_mlx5dv_devx_general_cmd(e->ctx[1], in, sizeof(in), out,
					       sizeof(out)),
		    0, "QUERY_HCA_CAP");
	VT_CHECK_EQ(vsteer_dv_cmd_query_ft_caps_parse(out, sizeof(out), &fc), 0,
		    "status");
	outer = fc.ihl_outer;
	inner = fc.ihl_inner;
	VT_CHECK(outer == ihl && inner == ihl, "IHL fields %d %d", outer,
		 inner);
	/* The driver's reading of the rewrite and reformat limits. */
	VT_CHECK(fc.max_modify_rx == dev->caps.max_modify_actions &&
			 fc.max_modify_tx == dev->caps.max_modify_actions &&
			 fc.max_encap == dev->caps.max_encap_size,
		 "limits %u %u %u", fc.max_modify_rx, fc.max_modify_tx,
		 fc.max_encap);
	VT_CHECK_EQ(sv_mlx5dv_devx_general_cmd(e->ctx[1], in, sizeof(in), out,
					       64),
		    EINVAL, "output too short");
	vsteer_prm_set(in, VSTEER_PRM_IN_OP_MOD_OFF, VSTEER_PRM_IN_OP_MOD_LEN,
		       0x1); /* the general device capabilities: not here */
	VT_CHECK_EQ(sv_mlx5dv_devx_general_cmd(e->ctx[1], in, sizeof(in), out,
					       sizeof(out)),
		    EOPNOTSUPP, "another capability page");

	/* The matcher is taken; its rules only where the device has the
	 * field. */
	errno = 0;
	fl = dv_rule(e, pm, 0, &m);
	VT_CHECK(m != NULL, "MPLS matcher: errno %d", errno);
	if (flex) {
		VT_CHECK(fl != NULL, "MPLS over UDP: errno %d", errno);
		VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	} else {
		VT_CHECK(fl == NULL && errno == EINVAL,
			 "MPLS over UDP without the parser: errno %d", errno);
	}
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher");
	errno = 0;
	fl = dv_rule(e, pi, 0, &m);
	VT_CHECK(m != NULL, "IHL matcher: errno %d", errno);
	if (ihl) {
		VT_CHECK(fl != NULL, "IHL: errno %d", errno);
		VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy");
	} else {
		VT_CHECK(fl == NULL && errno == EINVAL,
			 "IHL without the field: errno %d", errno);
	}
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher");
	return VT_OK;
}

static int
test_parser_caps(void)
{
	struct vt_svenv_cfg cfg = env_cfg;
	struct vt_svenv *e = &E;

	ENV_UP(e);
	VT_CHECK(parser_case(e, false, true) == VT_OK, "default firmware");
	ENV_DOWN(e);
	cfg.opts1 = &flex_noihl_opts;
	VT_CHECK(vt_svenv_up(e, &cfg) == 0, "set-up: errno %d", errno);
	VT_CHECK(parser_case(e, true, false) == VT_OK,
		 "flex parser, no IHL field");
	ENV_DOWN(e);
	return VT_OK;
}

static int
test_flow_errors(void)
{
	struct vt_svenv *e = &E;
	static struct vsteer_dv_match dm, dm16;
	struct rte_flow_item p[4];
	struct rte_flow_item_udp u;
	struct mlx5dv_flow_matcher *m, *m16;
	struct mlx5dv_flow_action_attr a[4];
	struct mlx5dv_devx_obj *c1, *c2;
	struct ibv_flow *fl, *fl2;
	uint32_t id1, id2;

	ENV_UP(e);
	udp_pattern(p, &u, 53);
	m = mk_matcher(e->ctx[1], p, 2, &dm);
	VT_CHECK(m != NULL, "matcher: errno %d", errno);
	c1 = alloc_counter(e->ctx[1], &id1);
	c2 = alloc_counter(e->ctx[1], &id2);
	VT_CHECK(c1 != NULL && c2 != NULL, "counters");
#define FLOW_FAILS(mt, n, err, what)                                        \
	do {                                                                \
		errno = 0;                                                  \
		VT_CHECK(sv_mlx5dv_create_flow((mt),                        \
					       vsteer_dv_params(&dm.value), \
					       (n), a) == NULL,             \
			 what);                                             \
		VT_CHECK_EQ(errno, err, what);                              \
	} while (0)
	memset(a, 0, sizeof(a));
	a[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	a[0].qp = e->q[0].hqp;
	a[1].type = MLX5DV_FLOW_ACTION_DROP;
	FLOW_FAILS(m, 2, EOPNOTSUPP, "QP + DROP");
	a[0].type = MLX5DV_FLOW_ACTION_DEFAULT_MISS;
	FLOW_FAILS(m, 2, EOPNOTSUPP, "DEFAULT_MISS + DROP");
	a[0].type = MLX5DV_FLOW_ACTION_TAG;
	a[0].tag_value = 1;
	a[1] = a[0];
	FLOW_FAILS(m, 2, EINVAL, "two TAG");
	a[0].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	a[0].obj = c1;
	a[1].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	a[1].obj = c2;
	a[2].type = MLX5DV_FLOW_ACTION_DROP;
	FLOW_FAILS(m, 3, EOPNOTSUPP, "two COUNTERS_DEVX");
	memset(a, 0, sizeof(a));
	a[0].type = MLX5DV_FLOW_ACTION_IBV_COUNTER;
	FLOW_FAILS(m, 1, EOPNOTSUPP, "IBV_COUNTER (rdma-core 44)");
	/* Flow actions are test_sv_actions'; one with none is no object. */
	a[0].type = MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION;
	FLOW_FAILS(m, 1, EINVAL, "IBV_FLOW_ACTION without an action");
	a[0].type = MLX5DV_FLOW_ACTION_TAG;
	a[0].tag_value = 1;
	FLOW_FAILS(m, 1, EINVAL, "no destination");
	a[1].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	a[1].qp = e->q[0].hqp;
	a[0].tag_value = 1u << 24;
	FLOW_FAILS(m, 2, EINVAL, "tag 2^24");
	a[0].tag_value = 5;
	a[1].qp = e->tx[0].qp;
	FLOW_FAILS(m, 2, EINVAL, "QP of another device");
	a[1].qp = e->tx[1].qp;
	FLOW_FAILS(m, 2, EINVAL, "send-only QP");
	a[1].qp = e->q[0].hqp;
	/* A value bit outside the matcher mask: the mlx5 core refuses. */
	((uint8_t *)dm.value.buf)[0] = 1;
	FLOW_FAILS(m, 2, EINVAL, "value outside mask");
	((uint8_t *)dm.value.buf)[0] = 0;
	/* ... in a section the criteria leave off too (check_valid_spec()
	 * reads the whole match). */
	VSTEER_PRM_SET(dm.value.buf, VSTEER_PRM_MISC, VSTEER_PRM_MISC_VXLAN_VNI,
		       7);
	FLOW_FAILS(m, 2, EINVAL, "value in a disabled section");
	VSTEER_PRM_SET(dm.value.buf, VSTEER_PRM_MISC, VSTEER_PRM_MISC_VXLAN_VNI,
		       0);
	dm.value.size = 16;
	FLOW_FAILS(m, 2, EINVAL, "value shorter than criteria");
	dm.value.size = 320;
	/* Priority 16: the kernel has no table for it, at rule time. */
	m16 = mk_matcher(e->ctx[1], p, 16, &dm16);
	VT_CHECK(m16 != NULL, "priority 16 matcher");
	FLOW_FAILS(m16, 2, ENOMEM, "priority 16");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m16), 0, "destroy m16");

	fl = sv_mlx5dv_create_flow(m, vsteer_dv_params(&dm.value), 2, a);
	VT_CHECK(fl != NULL, "QP + TAG: errno %d", errno);
	VT_CHECK(fl->context == e->ctx[1], "flow context");
	/* Same match and level, other tag: one FTE, conflicting. */
	a[0].tag_value = 6;
	FLOW_FAILS(m, 2, EEXIST, "same match, other tag");
	/* In use: matcher and QP. */
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), EBUSY, "matcher busy");
	VT_CHECK_EQ(sv_destroy_qp(e->q[0].hqp), EBUSY, "QP busy");
	/* A DROP rule counting in c1: c1 cannot go while it counts. */
	memset(a, 0, sizeof(a));
	a[0].type = MLX5DV_FLOW_ACTION_DROP;
	a[1].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	a[1].obj = c1;
	udp_pattern(p, &u, 54);
	VT_CHECK_EQ(dv_xlate(p, &dm, &ferr), 0, "translate");
	fl2 = sv_mlx5dv_create_flow(m, vsteer_dv_params(&dm.value), 2, a);
	VT_CHECK(fl2 != NULL, "DROP + COUNTERS_DEVX: errno %d", errno);
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(c1), EBUSY, "counter busy");
	VT_CHECK_EQ(ibv_destroy_flow(fl2), 0, "destroy flow 2");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(c1), 0, "counter free");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy flow");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher free");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(c2), 0, "counter 2");
#undef FLOW_FAILS
	ENV_DOWN(e);
	return VT_OK;
}

/* Frames through mlx5dv rules: QP + TAG, DROP, COUNTERS_DEVX. */
static int
test_traffic(void)
{
	struct vt_svenv *e = &E;
	static struct vsteer_dv_match dm;
	struct rte_flow_item p[4];
	struct rte_flow_item_udp u;
	struct mlx5dv_flow_matcher *m;
	struct mlx5dv_flow_action_attr a[3];
	struct mlx5dv_devx_obj *cq1, *cdrop;
	struct ibv_flow *f53, *f54;
	uint32_t id_q1, id_drop;
	uint64_t pk = 0, by = 0;
	struct rx r;
	struct fb f;
	uint32_t len;

	ENV_UP(e);
	udp_pattern(p, &u, 53);
	m = mk_matcher(e->ctx[1], p, 0, &dm);
	VT_CHECK(m != NULL, "matcher: errno %d", errno);
	cq1 = alloc_counter(e->ctx[1], &id_q1);
	cdrop = alloc_counter(e->ctx[1], &id_drop);
	VT_CHECK(cq1 != NULL && cdrop != NULL, "counters");

	/* UDP 53 -> queue 1, tagged 0x123, counted. */
	memset(a, 0, sizeof(a));
	a[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	a[0].qp = e->q[1].hqp;
	a[1].type = MLX5DV_FLOW_ACTION_TAG;
	a[1].tag_value = 0x123;
	a[2].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	a[2].obj = cq1;
	f53 = sv_mlx5dv_create_flow(m, vsteer_dv_params(&dm.value), 3, a);
	VT_CHECK(f53 != NULL, "flow 53: errno %d", errno);
	/* UDP 54 dropped, counted. */
	udp_pattern(p, &u, 54);
	VT_CHECK_EQ(dv_xlate(p, &dm, &ferr), 0, "translate");
	memset(a, 0, sizeof(a));
	a[0].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	a[0].obj = cdrop;
	a[1].type = MLX5DV_FLOW_ACTION_DROP;
	f54 = sv_mlx5dv_create_flow(m, vsteer_dv_params(&dm.value), 2, a);
	VT_CHECK(f54 != NULL, "flow 54: errno %d", errno);

	len = mk_udp4(&f, mac_a, ip_a, 53);
	VT_CHECK(send0(e, &f) == 0, "send");
	VT_CHECK(send0(e, &f) == 0, "send");
	mk_udp4(&f, mac_a, ip_a, 54);
	VT_CHECK(send0(e, &f) == 0, "send");
	mk_udp4(&f, mac_a, ip_a, 55);
	VT_CHECK(send0(e, &f) == 0, "send");
	VT_CHECK(collect(e, 1, &r) == 0, "frames not taken: %llu of %llu",
		 (unsigned long long)stats1(e).rx_frames,
		 (unsigned long long)e->rx_expect);
	VT_CHECK_EQ(r.n, 2, "two frames to UDP 53 on queue 1");
	VT_CHECK_EQ(r.tag[0], 0x123, "flow tag");
	VT_CHECK_EQ(r.tag[1], 0x123, "flow tag");
	VT_CHECK_EQ(r.len[0], len, "byte_len");
	VT_CHECK(collect(e, 0, &r) == 0 && r.n == 0, "nothing on queue 0");
	VT_CHECK_EQ(stats1(e).rx_dropped, 1, "UDP 54 dropped");
	VT_CHECK_EQ(stats1(e).rx_unsteered, 1, "UDP 55 matched nothing");
	VT_CHECK_EQ(query_counter(cq1, id_q1, false, &pk, &by), 0, "query");
	VT_CHECK(pk == 2 && by == 2 * len, "queue counter %llu/%llu",
		 (unsigned long long)pk, (unsigned long long)by);
	/* clear: read, then start again from zero. */
	VT_CHECK_EQ(query_counter(cdrop, id_drop, true, &pk, &by), 0, "query");
	VT_CHECK(pk == 1 && by == len, "drop counter %llu/%llu",
		 (unsigned long long)pk, (unsigned long long)by);
	VT_CHECK_EQ(query_counter(cdrop, id_drop, false, &pk, &by), 0, "query");
	VT_CHECK(pk == 0 && by == 0, "cleared");

	/* Gone with ibv_destroy_flow(): UDP 53 unsteered after. */
	VT_CHECK_EQ(ibv_destroy_flow(f53), 0, "destroy f53");
	mk_udp4(&f, mac_a, ip_a, 53);
	VT_CHECK(send0(e, &f) == 0, "send");
	VT_CHECK(collect(e, 1, &r) == 0 && r.n == 0, "no delivery");
	VT_CHECK_EQ(stats1(e).rx_unsteered, 2, "unsteered after destroy");
	VT_CHECK_EQ(ibv_destroy_flow(f54), 0, "destroy f54");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(cq1), 0, "dealloc");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(cdrop), 0, "dealloc");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher");
	ENV_DOWN(e);
	return VT_OK;
}

/* NIC_TX matchers hold egress rules: DROP drops what is sent, a rule
 * without fate lets it go, both count. */
static int
test_egress(void)
{
	struct vt_svenv *e = &E;
	static struct vsteer_dv_match dm;
	struct rte_flow_item p[4];
	struct rte_flow_item_udp u;
	struct mlx5dv_flow_matcher_attr ma = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE,
		.ft_type = MLX5DV_FLOW_TABLE_TYPE_NIC_TX,
	};
	struct mlx5dv_flow_matcher *m;
	struct mlx5dv_flow_action_attr a[2];
	struct mlx5dv_devx_obj *cd, *cp;
	struct ibv_flow *fd, *fp;
	uint32_t idd, idp;
	uint64_t pk = 0, by = 0;
	double deadline;
	struct fb f;
	uint32_t len;

	ENV_UP(e);
	udp_pattern(p, &u, 53);
	VT_CHECK_EQ(dv_xlate(p, &dm, &ferr), 0, "translate");
	ma.match_criteria_enable = dm.criteria;
	ma.match_mask = vsteer_dv_params(&dm.mask);
	m = sv_mlx5dv_create_flow_matcher(e->ctx[1], &ma);
	VT_CHECK(m != NULL, "NIC_TX matcher: errno %d", errno);
	cd = alloc_counter(e->ctx[1], &idd);
	cp = alloc_counter(e->ctx[1], &idp);
	VT_CHECK(cd != NULL && cp != NULL, "counters");
	memset(a, 0, sizeof(a));
	/* Sent frames go to the wire, not to a QP, and carry no tag. */
	a[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	a[0].qp = e->q[0].hqp;
	errno = 0;
	VT_CHECK(sv_mlx5dv_create_flow(m, vsteer_dv_params(&dm.value), 1, a) ==
				 NULL &&
			 errno == EINVAL,
		 "egress to a QP");
	a[0].type = MLX5DV_FLOW_ACTION_TAG;
	a[0].tag_value = 1;
	a[1].type = MLX5DV_FLOW_ACTION_DROP;
	errno = 0;
	VT_CHECK(sv_mlx5dv_create_flow(m, vsteer_dv_params(&dm.value), 2, a) ==
				 NULL &&
			 errno == EINVAL,
		 "egress tag");
	a[0].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	a[0].obj = cd;
	fd = sv_mlx5dv_create_flow(m, vsteer_dv_params(&dm.value), 2, a);
	VT_CHECK(fd != NULL, "egress DROP: errno %d", errno);
	udp_pattern(p, &u, 54);
	VT_CHECK_EQ(dv_xlate(p, &dm, &ferr), 0, "translate");
	a[0].obj = cp;
	fp = sv_mlx5dv_create_flow(m, vsteer_dv_params(&dm.value), 1, a);
	VT_CHECK(fp != NULL, "egress count only: errno %d", errno);

	len = mk_udp4(&f, mac_a, ip_a, 53);
	VT_CHECK(xmit(e, 1, &f) == 0, "send 53");
	mk_udp4(&f, mac_a, ip_a, 54);
	VT_CHECK(xmit(e, 1, &f) == 0, "send 54");
	mk_udp4(&f, mac_a, ip_a, 55);
	VT_CHECK(xmit(e, 1, &f) == 0, "send 55");
	VT_CHECK_EQ(vt_svenv_stats(e, 1).tx_frames, 2, "UDP 53 never left");
	/* End 0 takes what reached the wire (polling its CQ pumps). */
	deadline = vt_now_s() + 2.0;
	while (vt_svenv_stats(e, 0).rx_frames < 2 && vt_now_s() < deadline) {
		struct ibv_wc wc;

		ibv_poll_cq(e->tx[0].cq, 1, &wc);
	}
	VT_CHECK_EQ(vt_svenv_stats(e, 0).rx_frames, 2, "end 0 got 54 and 55");
	VT_CHECK_EQ(query_counter(cd, idd, false, &pk, &by), 0, "query");
	VT_CHECK(pk == 1 && by == len, "drop counter %llu",
		 (unsigned long long)pk);
	VT_CHECK_EQ(query_counter(cp, idp, false, &pk, &by), 0, "query");
	VT_CHECK(pk == 1 && by == len, "pass counter %llu",
		 (unsigned long long)pk);
	VT_CHECK_EQ(ibv_destroy_flow(fd), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(fp), 0, "destroy");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(cd), 0, "dealloc");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(cp), 0, "dealloc");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher");
	ENV_DOWN(e);
	return VT_OK;
}

static const struct vt_case cases[] = {
	/* clang-format off */
	VT_CASE(test_agree_l2_l4),
	VT_CASE(test_agree_vlan),
	VT_CASE(test_agree_ipv6_tcp),
	VT_CASE(test_agree_ipv4_fields),
	VT_CASE(test_agree_vxlan),
	VT_CASE(test_agree_gre),
	VT_CASE(test_agree_mpls),
	VT_CASE(test_agree_empty),
	VT_CASE(test_agree_tags),
	VT_CASE(test_agree_matcher_fields),
	VT_CASE(test_agree_esp),
	VT_CASE(test_fte_refusals),
	VT_CASE(test_fte_fields),
	VT_CASE(test_fte_as_device),
	VT_CASE(test_dv_device),
	VT_CASE(test_matcher_errors),
	VT_CASE(test_devx_counter),
	VT_CASE(test_devx_context),
	VT_CASE(test_dv_mcast),
	VT_CASE(test_parser_caps),
	VT_CASE(test_flow_errors),
	VT_CASE(test_traffic),
	VT_CASE(test_egress),
	{ NULL, NULL },
	/* clang-format on */
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
