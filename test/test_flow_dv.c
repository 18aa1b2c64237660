/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * rte_flow -> PRM fte_match_param translation (vsteer_flow_dv.c): every
 * field the matcher engine takes, the matcher entries of an RSS expansion,
 * what the engine refuses (and which refusals are engine limitations the
 * flow layer routes on), rte_flow's degenerate ranges.
 *
 * Expected buffers are written byte by byte from the PRM layout
 * (fte_match_param: outer_headers at byte 0, misc_parameters at 64,
 * inner_headers at 128, misc_parameters_2 at 192; in fte_match_set_lyr_2_4
 * smac at byte 0, ethertype 6, dmac 8, first_prio/cfi/vid 14, ip_protocol
 * 16, ip_dscp/ip_ecn 17, cvlan/svlan/frag/ip_version/tcp_flags 18-19,
 * tcp ports 20/22, ttl_hoplimit 27, udp ports 28/30, src ip 32, dst ip 48),
 * never with the accessors under test, and compared whole.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "vsteer_flow_dv.h"
#include "vt_test.h"

#define OUTER 0
#define MISC 64
#define INNER 128
#define MISC2 192

#define BE16(x) RTE_BE16(x)
#define BE32(x) RTE_BE32(x)

/* Expected mask and value, 512 bytes each. */
struct expect {
	uint8_t m[VSTEER_PRM_MATCH_PARAM_BYTES];
	uint8_t v[VSTEER_PRM_MATCH_PARAM_BYTES];
};

static void
ex_put(struct expect *e, unsigned int off, const void *m, const void *v,
       unsigned int n)
{
	const uint8_t *mb = m, *vb = v;
	unsigned int i;

	for (i = 0; i < n; i++) {
		e->m[off + i] |= mb[i];
		e->v[off + i] |= vb[i] & mb[i];
	}
}

static void
ex_byte(struct expect *e, unsigned int off, uint8_t m, uint8_t v)
{
	ex_put(e, off, &m, &v, 1);
}

static void
ex_be16(struct expect *e, unsigned int off, uint16_t m, uint16_t v)
{
	uint8_t mb[2] = { m >> 8, m & 0xff }, vb[2] = { v >> 8, v & 0xff };

	ex_put(e, off, mb, vb, 2);
}

/* ip_version 0xf / ver at byte 18 bits 1..4 (bit 0x93 of the set). */
static void
ex_ipver(struct expect *e, unsigned int sect, uint8_t ver)
{
	ex_byte(e, sect + 18, 0x1e, (uint8_t)(ver << 1));
}

static int
dump_diff(const char *what, const uint8_t *got, const uint8_t *want)
{
	unsigned int i;

	for (i = 0; i < VSTEER_PRM_MATCH_PARAM_BYTES; i++)
		if (got[i] != want[i]) {
			fprintf(stderr,
				"  %s differs at byte %u (0x%x): got 0x%02x want 0x%02x\n",
				what, i, i, got[i], want[i]);
			return 1;
		}
	return 0;
}

static int
check_expect(const struct vsteer_dv_match *m, const struct expect *e)
{
	int bad = dump_diff("mask", (const uint8_t *)m->mask.buf, e->m);

	bad |= dump_diff("value", (const uint8_t *)m->value.buf, e->v);
	return bad;
}

static const struct rte_flow_attr attr_in = { .ingress = 1 };
static const struct rte_flow_action_queue queue0 = { .index = 0 };
static const struct rte_flow_action act_queue0[] = {
	{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue0 },
	{ .type = RTE_FLOW_ACTION_TYPE_END },
};

/* The plan is a few KiB: one per program. */
static struct vsteer_flow_plan plan;

/* An mlx5 device with matchers, DevX, tags and counters. */
static struct vsteer_xlate_ctx
ctx_default(void)
{
	struct vsteer_xlate_ctx c;

	memset(&c, 0, sizeof(c));
	c.nb_rx_queues = 8;
	c.port_num = 1;
	c.max_verbs_prio = 15;
	c.tag_ok = true;
	c.inner_rss_ok = true;
	c.count_ok = true;
	c.dv_ok = true;
	c.devx_ok = true;
	c.mpls_ok = true;
	c.ihl_ok = true;
	c.ihl_inner_ok = true;
	c.rss_hf_supported = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP |
			     RTE_ETH_RSS_UDP | RTE_ETH_RSS_ESP;
	c.rss_hf_default = RTE_ETH_RSS_IP;
	return c;
}

static int
translate_full(const struct vsteer_xlate_ctx *c, const struct rte_flow_attr *a,
	       const struct rte_flow_item *p, const struct rte_flow_action *act,
	       struct vsteer_dv_match *m, struct rte_flow_error *err)
{
	memset(err, 0, sizeof(*err));
	rte_errno = 0;
	return vsteer_flow_dv_translate(c, a, p, act, &plan, m, err);
}

/* A pattern with ingress / QUEUE 0 on the default device. */
static int
translate(const struct rte_flow_item *p, struct vsteer_dv_match *m,
	  struct rte_flow_error *err)
{
	struct vsteer_xlate_ctx c = ctx_default();

	return translate_full(&c, &attr_in, p, act_queue0, m, err);
}

#define END_ITEM                               \
	{                                      \
		.type = RTE_FLOW_ITEM_TYPE_END \
	}

/* --- the accessors against hand-computed PRM bit positions --- */

static int
test_prm_accessors(void)
{
	uint8_t b[64];

	memset(b, 0, sizeof(b));
	/* first_vid: 12 bits at 0x74, the low bits of bytes 14-15. */
	vsteer_prm_set(b, VSTEER_PRM_L24_FIRST_VID_OFF,
		       VSTEER_PRM_L24_FIRST_VID_LEN, 0xabc);
	VT_CHECK(b[14] == 0x0a && b[15] == 0xbc, "vid %02x %02x", b[14], b[15]);
	/* first_prio: 3 bits at 0x70, the top of byte 14. */
	vsteer_prm_set(b, VSTEER_PRM_L24_FIRST_PRIO_OFF,
		       VSTEER_PRM_L24_FIRST_PRIO_LEN, 5);
	VT_CHECK(b[14] == 0xaa, "prio %02x", b[14]);
	/* ip_version at 0x93: byte 18, 0x1e. */
	vsteer_prm_set(b, VSTEER_PRM_L24_IP_VERSION_OFF,
		       VSTEER_PRM_L24_IP_VERSION_LEN, 6);
	VT_CHECK(b[18] == 0x0c, "ip_version %02x", b[18]);
	/* tcp_flags 9 bits at 0x97: bit 0 of byte 18 and byte 19. */
	vsteer_prm_set(b, VSTEER_PRM_L24_TCP_FLAGS_OFF,
		       VSTEER_PRM_L24_TCP_FLAGS_LEN, 0x1ff);
	VT_CHECK(b[18] == 0x0d && b[19] == 0xff, "tcp_flags %02x %02x", b[18],
		 b[19]);
	VT_CHECK_EQ(vsteer_prm_get(b, VSTEER_PRM_L24_IP_VERSION_OFF,
				   VSTEER_PRM_L24_IP_VERSION_LEN),
		    6, "get");
	/* Writing a field leaves its neighbours alone. */
	vsteer_prm_set(b, VSTEER_PRM_L24_IP_VERSION_OFF,
		       VSTEER_PRM_L24_IP_VERSION_LEN, 0);
	VT_CHECK(b[18] == 0x01 && b[19] == 0xff, "neighbours %02x %02x", b[18],
		 b[19]);
	/* Values wider than the field are cut to it. */
	vsteer_prm_set(b, VSTEER_PRM_L24_FIRST_CFI_OFF,
		       VSTEER_PRM_L24_FIRST_CFI_LEN, 0xfe);
	VT_CHECK(b[14] == 0xaa, "cfi %02x", b[14]);
	/* 32-bit field and 64-bit counters. */
	vsteer_prm_set(b, VSTEER_PRM_L24_DMAC_47_16_OFF, 32, 0x01020304);
	VT_CHECK(b[8] == 1 && b[9] == 2 && b[10] == 3 && b[11] == 4,
		 "dmac_47_16");
	vsteer_prm_set64(b, 0x100, UINT64_C(0x1122334455667788));
	VT_CHECK(b[32] == 0x11 && b[39] == 0x88, "set64");
	VT_CHECK(vsteer_prm_get64(b, 0x100) == UINT64_C(0x1122334455667788),
		 "get64");
	/* Section sizes and criteria bits. */
	VT_CHECK_EQ(VSTEER_PRM_MATCH_PARAM_BYTES, 512, "fte_match_param");
	VT_CHECK_EQ(vsteer_prm_match_size(0x1f), 320, "misc3 end");
	VT_CHECK_EQ(vsteer_prm_match_size(0x20), 384, "misc4");
	VT_CHECK_EQ(vsteer_prm_match_size(0x40), 448, "misc5");
	VT_CHECK_EQ(vsteer_prm_match_min_size(0x05), 192, "inner end");
	VT_CHECK_EQ(vsteer_prm_match_min_size(0), 0, "none");
	return VT_OK;
}

/* --- items --- */

static int
test_eth(void)
{
	struct rte_flow_item_eth spec = {
		.hdr.dst_addr.addr_bytes = { 0x00, 0x11, 0x22, 0x33, 0x44,
					     0x55 },
		.hdr.src_addr.addr_bytes = { 0x66, 0x77, 0x88, 0x99, 0xaa,
					     0xbb },
		.hdr.ether_type = BE16(0x0806),
	};
	struct rte_flow_item_eth mask = {
		.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff },
		.hdr.src_addr.addr_bytes = { 0xff, 0xff, 0xff, 0x00, 0x00,
					     0x00 },
		.hdr.ether_type = BE16(0xffff),
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &spec, .mask = &mask },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;
	const uint8_t *mk = (const uint8_t *)m.mask.buf;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_put(&e, OUTER + 8, mask.hdr.dst_addr.addr_bytes,
	       spec.hdr.dst_addr.addr_bytes, 6);
	ex_put(&e, OUTER + 0, mask.hdr.src_addr.addr_bytes,
	       spec.hdr.src_addr.addr_bytes, 6);
	ex_be16(&e, OUTER + 6, 0xffff, 0x0806);
	VT_CHECK(check_expect(&m, &e) == 0, "ETH bytes");
	/* dmac_47_16 is the dword at bit 0x40 of the set, dmac_15_0 the
	 * half at 0x60; smac_47_16 is at bit 0. */
	VT_CHECK(mk[8] == 0xff && mk[13] == 0xff && mk[7] == 0xff &&
			 mk[14] == 0,
		 "dmac at 0x40..0x6f");
	VT_CHECK_EQ(m.criteria, 1u << VSTEER_PRM_CRIT_OUTER_BIT, "criteria");
	VT_CHECK_EQ(m.mask.size, 320, "match_sz");
	VT_CHECK_EQ(m.value.size, 320, "match_sz");
	VT_CHECK_EQ(m.layers, VSTEER_DV_L_OUTER_L2, "layers");
	return VT_OK;
}

static int
test_eth_default_mask(void)
{
	struct rte_flow_item_eth spec = {
		.hdr.dst_addr.addr_bytes = { 2, 2, 3, 4, 5, 6 },
		.hdr.src_addr.addr_bytes = { 7, 8, 9, 10, 11, 12 },
		.hdr.ether_type = BE16(0x0800),
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &spec },
		END_ITEM,
	};
	static const uint8_t ff[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	/* rte_flow_item_eth_mask: both addresses, not the type. */
	memset(&e, 0, sizeof(e));
	ex_put(&e, OUTER + 8, ff, spec.hdr.dst_addr.addr_bytes, 6);
	ex_put(&e, OUTER + 0, ff, spec.hdr.src_addr.addr_bytes, 6);
	VT_CHECK(check_expect(&m, &e) == 0, "default mask bytes");
	return VT_OK;
}

static int
test_eth_vlan(void)
{
	struct rte_flow_item_eth eth = { .hdr.ether_type = BE16(0x8100) };
	struct rte_flow_item_eth eth_m = { .hdr.ether_type = BE16(0xffff) };
	struct rte_flow_item_vlan vlan = {
		.hdr.vlan_tci = BE16(0xb064), /* prio 5, cfi 1, vid 100 */
		.hdr.eth_proto = BE16(0x86dd),
	};
	struct rte_flow_item_vlan vlan_m = {
		.hdr.vlan_tci = BE16(0xefff), /* prio + vid, not cfi */
		.hdr.eth_proto = BE16(0xffff),
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN,
		  .spec = &vlan,
		  .mask = &vlan_m },
		END_ITEM,
	};
	struct rte_flow_item p2[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN, .spec = &vlan },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	/* TPID 0x8100 is cvlan_tag, not an ethertype: byte 18 bit 0x80. */
	ex_byte(&e, OUTER + 18, 0x80, 0x80);
	/* TCI laid out as prio:cfi:vid at bytes 14-15. */
	ex_be16(&e, OUTER + 14, 0xefff, 0xb064);
	/* The ethertype right after the tag: so no second tag either
	 * (outer_second_cvlan_tag / svlan_tag 1/0 at misc bits 0x60 and
	 * 0x62, byte 12 0x80 and 0x20). */
	ex_be16(&e, OUTER + 6, 0xffff, 0x86dd);
	ex_byte(&e, MISC + 12, 0xa0, 0x00);
	VT_CHECK(check_expect(&m, &e) == 0, "ETH TPID + VLAN bytes");
	VT_CHECK_EQ(m.layers, VSTEER_DV_L_OUTER_L2 | VSTEER_DV_L_OUTER_VLAN,
		    "layers");

	/* Default VLAN mask: VID only; an empty ETH adds nothing. */
	VT_CHECK_EQ(translate(p2, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_byte(&e, OUTER + 18, 0x80, 0x80);
	ex_be16(&e, OUTER + 14, 0x0fff, 0x0064);
	VT_CHECK(check_expect(&m, &e) == 0, "default VLAN mask bytes");
	return VT_OK;
}

static int
test_eth_has_vlan(void)
{
	struct rte_flow_item_eth eth = { .has_vlan = 0 };
	struct rte_flow_item_eth eth_m = { .has_vlan = 1 };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		END_ITEM,
	};
	struct rte_flow_item p2[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	/* has_vlan 0 under mask: untagged frames only, neither an 802.1Q
	 * (cvlan_tag, byte 18 0x80) nor an 802.1ad tag (svlan_tag, 0x40). */
	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_byte(&e, OUTER + 18, 0xc0, 0x00);
	VT_CHECK(check_expect(&m, &e) == 0, "cvlan_tag, svlan_tag 1/0");
	/* has_vlan 1: a tagged frame, first tag 802.1Q (mlx5's reading). */
	eth.has_vlan = 1;
	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_byte(&e, OUTER + 18, 0x80, 0x80);
	VT_CHECK(check_expect(&m, &e) == 0, "cvlan_tag 1/1");
	eth.has_vlan = 0;
	/* ...which a VLAN item then contradicts. */
	VT_CHECK_EQ(translate(p2, &m, &err), -EINVAL, "has_vlan 0 + VLAN");
	VT_CHECK(err.cause == &p2[1], "cause");
	return VT_OK;
}

static int
test_ipv4(void)
{
	struct rte_flow_item_ipv4 ip = {
		.hdr = {
			.version_ihl = 0x45,
			.type_of_service = 0xb9, /* dscp 0x2e, ecn 1 */
			.time_to_live = 64,
			.next_proto_id = 17,
			.src_addr = BE32(0x0a000001),
			.dst_addr = BE32(0xc0a80102),
		},
	};
	struct rte_flow_item_ipv4 ip_m = {
		.hdr = {
			.version_ihl = 0xf0,
			.type_of_service = 0xff,
			.time_to_live = 0xff,
			.next_proto_id = 0xff,
			.src_addr = BE32(0xffffffff),
			.dst_addr = BE32(0xffffff00),
		},
	};
	struct rte_flow_item_eth eth = { .hdr.ether_type = BE16(0x0800) };
	struct rte_flow_item_eth eth_m = { .hdr.ether_type = BE16(0xffff) };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		END_ITEM,
	};
	static const uint8_t src_m[4] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t src_v[4] = { 10, 0, 0, 1 };
	static const uint8_t dst_m[4] = { 0xff, 0xff, 0xff, 0x00 };
	static const uint8_t dst_v[4] = { 192, 168, 1, 2 };
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	/* ip_version replaces the ethertype (as mlx5 DV does). */
	ex_ipver(&e, OUTER, 4);
	/* ipv4_layout: the last 32 bits of the 128-bit union. */
	ex_put(&e, OUTER + 32 + 12, src_m, src_v, 4);
	ex_put(&e, OUTER + 48 + 12, dst_m, dst_v, 4);
	ex_byte(&e, OUTER + 17, 0xff, 0xb9); /* ip_dscp:ip_ecn */
	ex_byte(&e, OUTER + 16, 0xff, 17);   /* ip_protocol */
	ex_byte(&e, OUTER + 27, 0xff, 64);   /* ttl_hoplimit */
	VT_CHECK(check_expect(&m, &e) == 0, "IPV4 bytes");
	VT_CHECK_EQ(m.layers, VSTEER_DV_L_OUTER_L2 | VSTEER_DV_L_OUTER_IPV4,
		    "layers");
	return VT_OK;
}

static int
test_ipv4_frag(void)
{
	struct rte_flow_item_ipv4 ip = { .hdr.fragment_offset = BE16(0) };
	struct rte_flow_item_ipv4 last = { .hdr.fragment_offset = 0 };
	struct rte_flow_item_ipv4 ip_m = {
		.hdr.fragment_offset = BE16(0x3fff),
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	/* spec 0 / mask 0x3fff: not a fragment, frag 1/0 (byte 18, 0x20). */
	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 18, 0x20, 0x00);
	VT_CHECK(check_expect(&m, &e) == 0, "not a fragment");

	/* spec 1 .. last 0x3fff: any fragment, frag 1/1. */
	ip.hdr.fragment_offset = BE16(1);
	last.hdr.fragment_offset = BE16(0x3fff);
	p[0].last = &last;
	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	ex_byte(&e, OUTER + 18, 0x20, 0x20);
	VT_CHECK(check_expect(&m, &e) == 0, "any fragment");

	/* Another range: refused on ITEM_LAST. */
	last.hdr.fragment_offset = BE16(0x1fff);
	VT_CHECK_EQ(translate(p, &m, &err), -ENOTSUP, "range 1..0x1fff");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ITEM_LAST, "type");
	VT_CHECK(err.cause == &p[0], "cause");

	/* First fragment only (MF set, offset 0): not expressible. */
	p[0].last = NULL;
	ip.hdr.fragment_offset = BE16(0x2000);
	VT_CHECK_EQ(translate(p, &m, &err), -ENOTSUP, "MF only");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, "type");
	VT_CHECK(strstr(err.message, "fragment_offset") != NULL, "%s",
		 err.message);

	/* A mask other than 0x3fff. */
	ip.hdr.fragment_offset = 0;
	ip_m.hdr.fragment_offset = BE16(0x1fff);
	VT_CHECK_EQ(translate(p, &m, &err), -ENOTSUP, "mask 0x1fff");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ITEM_MASK, "type");
	return VT_OK;
}

static int
test_ipv6(void)
{
	struct rte_flow_item_ipv6 ip = {
		.hdr = {
			/* version 6, traffic class 0xb8, flow label 0x12345 */
			.vtc_flow = BE32(0x6b812345),
			.proto = 6,
			.hop_limits = 255,
			.src_addr = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
				      0, 0, 0, 0, 0, 0, 0, 1 },
			.dst_addr = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
				      0, 0, 0, 0, 0, 0, 0, 2 },
		},
	};
	struct rte_flow_item_ipv6 ip_m = {
		.hdr = {
			.vtc_flow = BE32(0x0fffffff),
			.proto = 0xff,
			.hop_limits = 0xff,
		},
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &ip, .mask = &ip_m },
		END_ITEM,
	};
	struct rte_flow_item p_default[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &ip },
		END_ITEM,
	};
	static const uint8_t ff16[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 6);
	ex_byte(&e, OUTER + 17, 0xff, 0xb8); /* dscp 0x2e, ecn 0 */
	ex_byte(&e, OUTER + 16, 0xff, 6);
	ex_byte(&e, OUTER + 27, 0xff, 255);
	/* outer_ipv6_flow_label: misc bits 0xec..0xff. */
	ex_byte(&e, MISC + 29, 0x0f, 0x01);
	ex_be16(&e, MISC + 30, 0xffff, 0x2345);
	VT_CHECK(check_expect(&m, &e) == 0, "IPV6 bytes");
	VT_CHECK_EQ(m.criteria,
		    (1u << VSTEER_PRM_CRIT_OUTER_BIT) |
			    (1u << VSTEER_PRM_CRIT_MISC_BIT),
		    "criteria");

	/* Default mask: both addresses, all 128 bits. */
	VT_CHECK_EQ(translate(p_default, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 6);
	ex_put(&e, OUTER + 32, ff16, ip.hdr.src_addr, 16);
	ex_put(&e, OUTER + 48, ff16, ip.hdr.dst_addr, 16);
	VT_CHECK(check_expect(&m, &e) == 0, "IPV6 default mask bytes");
	VT_CHECK_EQ(m.criteria, 1u << VSTEER_PRM_CRIT_OUTER_BIT, "criteria");

	/* An extension header as next protocol is refused. */
	ip.hdr.proto = 44;
	VT_CHECK_EQ(translate(p, &m, &err), -EINVAL, "fragment header");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, "type");
	VT_CHECK(err.cause == &p[1], "cause");
	return VT_OK;
}

static int
test_tcp_udp(void)
{
	struct rte_flow_item_tcp tcp = {
		.hdr = { .src_port = BE16(1234),
			 .dst_port = BE16(80),
			 .tcp_flags = 0x12 },
	};
	struct rte_flow_item_tcp tcp_m = {
		.hdr = { .dst_port = BE16(0xffff), .tcp_flags = 0x02 },
	};
	struct rte_flow_item_udp udp = {
		.hdr = { .src_port = BE16(53), .dst_port = BE16(5353) },
	};
	struct rte_flow_item pt[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &tcp, .mask = &tcp_m },
		END_ITEM,
	};
	struct rte_flow_item pu[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(pt, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 16, 0xff, 6);    /* ip_protocol TCP */
	ex_be16(&e, OUTER + 22, 0xffff, 80); /* tcp_dport */
	ex_byte(&e, OUTER + 19, 0x02, 0x12); /* tcp_flags, low 8 bits */
	VT_CHECK(check_expect(&m, &e) == 0, "TCP bytes");
	VT_CHECK_EQ(m.layers,
		    VSTEER_DV_L_OUTER_L2 | VSTEER_DV_L_OUTER_IPV4 |
			    VSTEER_DV_L_OUTER_TCP,
		    "layers");

	VT_CHECK_EQ(translate(pu, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 6);
	ex_byte(&e, OUTER + 16, 0xff, 17);
	ex_be16(&e, OUTER + 28, 0xffff, 53);   /* udp_sport */
	ex_be16(&e, OUTER + 30, 0xffff, 5353); /* udp_dport */
	VT_CHECK(check_expect(&m, &e) == 0, "UDP bytes");
	return VT_OK;
}

static int
test_vxlan_inner(void)
{
	struct rte_flow_item_vxlan vx = { .vni = { 0x12, 0x34, 0x56 } };
	struct rte_flow_item_eth ieth = {
		.hdr.dst_addr.addr_bytes = { 2, 0, 0, 0, 0, 9 },
	};
	struct rte_flow_item_eth ieth_m = {
		.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff },
	};
	struct rte_flow_item_ipv4 iip = { .hdr.dst_addr = BE32(0x01020304) };
	struct rte_flow_item_tcp itcp = { .hdr.dst_port = BE16(22) };
	struct rte_flow_item_udp oudp = { .hdr.dst_port = BE16(4790) };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN, .spec = &vx },
		{ .type = RTE_FLOW_ITEM_TYPE_ETH,
		  .spec = &ieth,
		  .mask = &ieth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_VOID },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &iip },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &itcp },
		END_ITEM,
	};
	static const uint8_t ip_m[4] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t ip_v[4] = { 1, 2, 3, 4 };
	static const uint8_t vni_m[3] = { 0xff, 0xff, 0xff };
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 16, 0xff, 17);
	ex_be16(&e, OUTER + 30, 0xffff, 4789);	 /* VXLAN port, implied */
	ex_put(&e, MISC + 20, vni_m, vx.vni, 3); /* vxlan_vni at 0xa0 */
	ex_put(&e, INNER + 8, ieth_m.hdr.dst_addr.addr_bytes,
	       ieth.hdr.dst_addr.addr_bytes, 6);
	ex_ipver(&e, INNER, 4);
	/* Inner IPv4: default mask takes both addresses, src is 0. */
	ex_put(&e, INNER + 32 + 12, ip_m, (const uint8_t[4]){ 0 }, 4);
	ex_put(&e, INNER + 48 + 12, ip_m, ip_v, 4);
	ex_byte(&e, INNER + 16, 0xff, 6);
	ex_be16(&e, INNER + 20, 0xffff, 0);
	ex_be16(&e, INNER + 22, 0xffff, 22);
	VT_CHECK(check_expect(&m, &e) == 0, "VXLAN + inner bytes");
	VT_CHECK_EQ(m.criteria, 0x7, "outer | misc | inner");
	VT_CHECK_EQ(m.layers,
		    VSTEER_DV_L_OUTER_L2 | VSTEER_DV_L_OUTER_IPV4 |
			    VSTEER_DV_L_OUTER_UDP | VSTEER_DV_L_VXLAN |
			    VSTEER_DV_L_INNER_L2 | VSTEER_DV_L_INNER_IPV4 |
			    VSTEER_DV_L_INNER_TCP,
		    "layers");

	/* A UDP port chosen by the application is kept. */
	p[2].spec = &oudp;
	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	VT_CHECK(((const uint8_t *)m.value.buf)[OUTER + 30] == 0x12 &&
			 ((const uint8_t *)m.value.buf)[OUTER + 31] == 0xb6,
		 "udp_dport 4790");
	return VT_OK;
}

static int
test_gre_key(void)
{
	struct rte_flow_item_gre gre = {
		.c_rsvd0_ver = BE16(0x8000), /* C set */
	};
	struct rte_flow_item_gre gre_m = {
		.c_rsvd0_ver = BE16(0xb000), /* C, K, S under mask */
	};
	rte_be32_t key = BE32(0xdeadbeef);
	struct rte_flow_item_ipv6 iip = { .hdr.proto = 0 };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE, .spec = &gre, .mask = &gre_m },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE_KEY, .spec = &key },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6, .spec = &iip },
		END_ITEM,
	};
	static const uint8_t k_m[4] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t k_v[4] = { 0xde, 0xad, 0xbe, 0xef };
	static const uint8_t z16[16];
	static const uint8_t ff16[16] = {
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	/* The GRE item clears K, GRE_KEY needs it. */
	VT_CHECK_EQ(translate(p, &m, &err), -EINVAL, "K bit clear + key");
	VT_CHECK(err.cause == &p[3], "cause");
	gre.c_rsvd0_ver = BE16(0xa000); /* C and K */
	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 16, 0xff, 47); /* ip_protocol GRE */
	/* gre_c_present bit 0, gre_k_present bit 2, gre_s_present bit 3. */
	ex_byte(&e, MISC + 0, 0xb0, 0xa0);
	ex_put(&e, MISC + 16, k_m, k_v, 4); /* gre_key at 0x80 */
	/* No protocol in the GRE item: taken from the inner layer. */
	ex_be16(&e, MISC + 14, 0xffff, 0x86dd);
	ex_ipver(&e, INNER, 6);
	ex_put(&e, INNER + 32, ff16, z16, 16);
	ex_put(&e, INNER + 48, ff16, z16, 16);
	VT_CHECK(check_expect(&m, &e) == 0, "GRE + GRE_KEY bytes");
	VT_CHECK_EQ(m.criteria, 0x7, "criteria");

	/* GRE_KEY without spec: only the K bit. */
	p[3].spec = NULL;
	p[4].type = RTE_FLOW_ITEM_TYPE_END;
	gre_m.c_rsvd0_ver = 0;
	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 16, 0xff, 47);
	ex_byte(&e, MISC + 0, 0x20, 0x20);
	VT_CHECK(check_expect(&m, &e) == 0, "K bit only");
	return VT_OK;
}

static int
test_mpls(void)
{
	struct rte_flow_item_mpls mpls = {
		.label_tc_s = { 0x12, 0x34, 0x5f },
		.ttl = 9,
	};
	struct rte_flow_item pu[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_MPLS, .spec = &mpls },
		END_ITEM,
	};
	struct rte_flow_item pg[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6 },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE },
		{ .type = RTE_FLOW_ITEM_TYPE_MPLS, .spec = &mpls },
		END_ITEM,
	};
	static const uint8_t lm[4] = { 0xff, 0xff, 0xf0, 0x00 };
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	/* Default mask: the 20-bit label only. */
	VT_CHECK_EQ(translate(pu, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 16, 0xff, 17);
	ex_be16(&e, OUTER + 30, 0xffff, 6635);
	/* outer_first_mpls_over_udp at misc2 bit 0x60. */
	ex_put(&e, MISC2 + 12, lm, &mpls, 4);
	VT_CHECK(check_expect(&m, &e) == 0, "MPLS over UDP bytes");
	VT_CHECK_EQ(m.criteria,
		    (1u << VSTEER_PRM_CRIT_OUTER_BIT) |
			    (1u << VSTEER_PRM_CRIT_MISC2_BIT),
		    "criteria");

	VT_CHECK_EQ(translate(pg, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 6);
	ex_byte(&e, OUTER + 16, 0xff, 47);
	ex_be16(&e, MISC + 14, 0xffff, 0x8847);
	/* outer_first_mpls_over_gre at misc2 bit 0x40. */
	ex_put(&e, MISC2 + 8, lm, &mpls, 4);
	VT_CHECK(check_expect(&m, &e) == 0, "MPLS over GRE bytes");

	/* The TTL is the last byte of the same PRM entry. */
	pu[3].mask = &(struct rte_flow_item_mpls){ .ttl = 0xff };
	VT_CHECK_EQ(translate(pu, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 16, 0xff, 17);
	ex_be16(&e, OUTER + 30, 0xffff, 6635);
	ex_byte(&e, MISC2 + 15, 0xff, 9);
	VT_CHECK(check_expect(&m, &e) == 0, "MPLS ttl bytes");

	/* Firmware without the MPLS parser: refused on the item, whatever
	 * the engine (no limit for flow_engine=auto to route on). */
	{
		struct vsteer_xlate_ctx c = ctx_default();

		c.mpls_ok = false;
		VT_CHECK_EQ(translate_full(&c, &attr_in, pg, act_queue0, &m,
					   &err),
			    -ENOTSUP, "no MPLS parser");
		VT_CHECK(err.type == RTE_FLOW_ERROR_TYPE_ITEM &&
				 err.cause == &pg[2] && !plan.limit.set &&
				 strstr(err.message,
					"FLEX_PARSER_PROFILE_ENABLE=1") != NULL,
			 "message: %s", err.message);
	}
	return VT_OK;
}

static int
test_empty_and_void(void)
{
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_VOID },
		{ .type = RTE_FLOW_ITEM_TYPE_VOID },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	memset(&m, 0xa5, sizeof(m));
	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	VT_CHECK(check_expect(&m, &e) == 0, "all zero");
	VT_CHECK_EQ(m.criteria, 0, "criteria");
	VT_CHECK_EQ(m.layers, 0, "layers");
	VT_CHECK_EQ(m.mask.size, 320, "match_sz");
	return VT_OK;
}

static int
test_value_anded(void)
{
	struct rte_flow_item_eth spec = {
		.hdr.src_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff },
	};
	struct rte_flow_item_eth mask = {
		.hdr.src_addr.addr_bytes = { 0x01, 0, 0, 0, 0, 0 },
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &spec, .mask = &mask },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	struct rte_flow_error err;
	const uint8_t *v = (const uint8_t *)m.value.buf;
	unsigned int i;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	VT_CHECK(v[0] == 0x01, "group bit of smac kept");
	for (i = 0; i < VSTEER_PRM_MATCH_PARAM_BYTES; i++)
		if (i != 0)
			VT_CHECK(v[i] == 0, "byte %u not masked", i);
	return VT_OK;
}

/*
 * A multicast destination the kernel would put in its multicast table
 * (raw_fs_is_multicast(): outer dmac group bit in value and mask, or an
 * outer IPv4 dst whose value and mask are both in 224.0.0.0/4): the
 * matcher cannot keep the rule's priority, a limit (auto takes verbs).
 */
static int
test_mcast_dst(void)
{
	struct rte_flow_item_eth eth = {
		.hdr.dst_addr.addr_bytes = { 0x01, 0x00, 0x5e, 0, 0, 0xfb },
	};
	struct rte_flow_item_eth eth_m = {
		.hdr.dst_addr.addr_bytes = { 0x01, 0, 0, 0, 0, 0 },
	};
	struct rte_flow_item_ipv4 ip = { .hdr.dst_addr = BE32(0xe00000fb) };
	struct rte_flow_item_ipv4 ip_m = { .hdr.dst_addr = BE32(0xffffffff) };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p, &m, &err), -ENOTSUP, "group bit");
	VT_CHECK(err.type == RTE_FLOW_ERROR_TYPE_ITEM_SPEC &&
			 err.cause == &p[0] && plan.limit.set &&
			 strstr(err.message,
				"ETH item: dst: the mlx5dv matcher cannot keep the priority of a multicast dst") !=
				 NULL,
		 "message: %s", err.message);
	/* The group bit in the mask only, or in the value only: no. */
	eth.hdr.dst_addr.addr_bytes[0] = 0x02;
	VT_CHECK_EQ(translate(p, &m, &err), 0, "unicast under the bit: %s",
		    err.message);
	eth.hdr.dst_addr.addr_bytes[0] = 0x01;
	eth_m.hdr.dst_addr.addr_bytes[0] = 0xfe;
	VT_CHECK_EQ(translate(p, &m, &err), 0, "bit not masked: %s",
		    err.message);
	/* IPv4: a /32 is no multicast mask for the kernel; a /3 is. */
	p[0].spec = NULL;
	p[0].mask = NULL;
	VT_CHECK_EQ(translate(p, &m, &err), 0, "224.0.0.251/32: %s",
		    err.message);
	ip.hdr.dst_addr = BE32(0xe0000000);
	ip_m.hdr.dst_addr = BE32(0xe0000000);
	VT_CHECK_EQ(translate(p, &m, &err), -ENOTSUP, "224.0.0.0/3");
	VT_CHECK(err.cause == &p[1] && plan.limit.set &&
			 strstr(err.message, "IPv4 item: dst_addr: the mlx5dv "
					     "matcher cannot keep") != NULL,
		 "message: %s", err.message);
	return VT_OK;
}

/* --- what only the matcher takes --- */

/* TTL and hop limit: ttl_hoplimit (byte 27), outer and inner. */
static int
test_ttl_hop(void)
{
	struct rte_flow_item_ipv4 ip = { .hdr.time_to_live = 2 };
	struct rte_flow_item_ipv4 ip_m = { .hdr.time_to_live = 0xff };
	struct rte_flow_item_ipv6 ip6 = { .hdr.hop_limits = 60 };
	struct rte_flow_item_ipv6 ip6_m = { .hdr.hop_limits = 0xff };
	struct rte_flow_item p4[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		END_ITEM,
	};
	struct rte_flow_item p6[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6,
		  .spec = &ip6,
		  .mask = &ip6_m },
		END_ITEM,
	};
	struct rte_flow_item pin[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN },
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p4, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 27, 0xff, 2);
	VT_CHECK(check_expect(&m, &e) == 0, "IPv4 ttl");
	VT_CHECK_EQ(translate(p6, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 6);
	ex_byte(&e, OUTER + 27, 0xff, 60);
	VT_CHECK(check_expect(&m, &e) == 0, "IPv6 hop limit");
	VT_CHECK_EQ(translate(pin, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 16, 0xff, 17);
	ex_be16(&e, OUTER + 30, 0xffff, 4789);
	ex_ipver(&e, INNER, 4);
	ex_byte(&e, INNER + 27, 0xff, 2);
	VT_CHECK(check_expect(&m, &e) == 0, "inner ttl");
	return VT_OK;
}

/* ihl: ipv4_ihl, 4 bits at 0xd0 (byte 26, high nibble). */
static int
test_ipv4_ihl(void)
{
	struct rte_flow_item_ipv4 ip = { .hdr.version_ihl = 0x46 };
	struct rte_flow_item_ipv4 ip_m = { .hdr.version_ihl = 0xff };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	struct vsteer_xlate_ctx c = ctx_default();

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 26, 0xf0, 0x60);
	VT_CHECK(check_expect(&m, &e) == 0, "ipv4_ihl 6");
	/* A device without the match field (QUERY_HCA_CAP said so): the
	 * matcher cannot; the inner field is a capability of its own. */
	c.ihl_ok = false;
	VT_CHECK_EQ(translate_full(&c, &attr_in, p, act_queue0, &m, &err),
		    -ENOTSUP, "no outer IHL field");
	VT_CHECK(err.type == RTE_FLOW_ERROR_TYPE_ITEM_MASK &&
			 err.cause == &p[0] && plan.limit.set &&
			 strstr(err.message, "IPv4 item: ihl: the mlx5dv "
					     "matcher cannot match it: the "
					     "device has no IPv4 IHL match "
					     "field") != NULL,
		 "message: %s", err.message);
	c.ihl_ok = true;
	c.ihl_inner_ok = false;
	VT_CHECK_EQ(translate_full(&c, &attr_in, p, act_queue0, &m, &err), 0,
		    "outer IHL with the outer field: %s", err.message);
	/* A version other than 4 under mask. */
	ip.hdr.version_ihl = 0x56;
	VT_CHECK_EQ(translate(p, &m, &err), -EINVAL, "version 5");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, "type");
	return VT_OK;
}

/* tcp_flags: 9 bits at 0x97, NS (the low bit of data_off) is bit 8. */
static int
test_tcp_flags_ns(void)
{
	struct rte_flow_item_tcp tcp = {
		.hdr = { .data_off = 0x51, .tcp_flags = 0x12 },
	};
	struct rte_flow_item_tcp tcp_m = {
		.hdr = { .data_off = 0x01, .tcp_flags = 0x17 },
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &tcp, .mask = &tcp_m },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 16, 0xff, 6);
	ex_byte(&e, OUTER + 18, 0x01, 0x01); /* NS */
	ex_byte(&e, OUTER + 19, 0x17,
		0x12); /* SYN ACK, under RST|SYN|FIN|ACK */
	VT_CHECK(check_expect(&m, &e) == 0, "tcp_flags with NS");
	/* The data offset itself is matched by neither engine. */
	tcp_m.hdr.data_off = 0xf0;
	VT_CHECK_EQ(translate(p, &m, &err), -ENOTSUP, "data offset");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ITEM_MASK, "type");
	VT_CHECK(strstr(err.message,
			"TCP item: data_off: the mlx5dv matcher cannot match it") !=
			 NULL,
		 "%s", err.message);
	VT_CHECK(plan.limit.set, "an engine limitation");
	return VT_OK;
}

/*
 * Tags: an empty VLAN item (any tag), QinQ (ETH type 0x88a8: svlan_tag,
 * byte 18 0x40), a second tag by inner_type or has_more_vlan (misc byte
 * 12: outer_second_cvlan_tag 0x80, outer_second_svlan_tag 0x20).
 */
static int
test_vlan_tags(void)
{
	struct rte_flow_item_eth qinq = { .hdr.ether_type = BE16(0x88a8) };
	struct rte_flow_item_eth type_m = { .hdr.ether_type = BE16(0xffff) };
	struct rte_flow_item_vlan v = {
		.hdr.vlan_tci = BE16(100),
		.hdr.eth_proto = BE16(0x8100),
	};
	struct rte_flow_item_vlan v_m = {
		.hdr.vlan_tci = BE16(0x0fff),
		.hdr.eth_proto = BE16(0xffff),
	};
	struct rte_flow_item_vlan more = { .has_more_vlan = 1 };
	struct rte_flow_item_vlan more_m = { .has_more_vlan = 1 };
	struct rte_flow_item pe[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN },
		END_ITEM,
	};
	struct rte_flow_item pq[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH,
		  .spec = &qinq,
		  .mask = &type_m },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN, .spec = &v, .mask = &v_m },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		END_ITEM,
	};
	struct rte_flow_item pm[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN,
		  .spec = &more,
		  .mask = &more_m },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	/* No TCI mask: the tag's presence (verbs cannot say it). */
	VT_CHECK_EQ(translate(pe, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_byte(&e, OUTER + 18, 0x80, 0x80);
	VT_CHECK(check_expect(&m, &e) == 0, "cvlan_tag only");

	/* 802.1ad outer tag, VID 100, then an 802.1Q tag, then IPv4. */
	VT_CHECK_EQ(translate(pq, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_byte(&e, OUTER + 18, 0x40, 0x40);
	ex_be16(&e, OUTER + 14, 0x0fff, 100);
	ex_byte(&e, MISC + 12, 0x80, 0x80);
	ex_ipver(&e, OUTER, 4);
	VT_CHECK(check_expect(&m, &e) == 0, "QinQ bytes");
	/* ... or an 802.1ad second tag. */
	v.hdr.eth_proto = BE16(0x88a8);
	VT_CHECK_EQ(translate(pq, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_byte(&e, OUTER + 18, 0x40, 0x40);
	ex_be16(&e, OUTER + 14, 0x0fff, 100);
	ex_byte(&e, MISC + 12, 0x20, 0x20);
	ex_ipver(&e, OUTER, 4);
	VT_CHECK(check_expect(&m, &e) == 0, "second tag 802.1ad");

	/* has_more_vlan 1: a second 802.1Q tag; 0: no second tag. */
	VT_CHECK_EQ(translate(pm, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_byte(&e, OUTER + 18, 0x80, 0x80);
	ex_byte(&e, MISC + 12, 0x80, 0x80);
	VT_CHECK(check_expect(&m, &e) == 0, "has_more_vlan 1");
	more.has_more_vlan = 0;
	VT_CHECK_EQ(translate(pm, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_byte(&e, OUTER + 18, 0x80, 0x80);
	ex_byte(&e, MISC + 12, 0xa0, 0x00);
	VT_CHECK(check_expect(&m, &e) == 0, "has_more_vlan 0");

	/* inner_type 0x0800 says "one tag": has_more_vlan 1 contradicts. */
	more.has_more_vlan = 1;
	more.hdr.eth_proto = BE16(0x0800);
	more_m.hdr.eth_proto = BE16(0xffff);
	VT_CHECK_EQ(translate(pm, &m, &err), -EINVAL, "contradiction");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, "type");
	VT_CHECK(err.cause == &pm[1], "cause");
	return VT_OK;
}

/* ESP: ip_protocol 50 and misc.outer_esp_spi (bit 0x180, byte 48). */
static int
test_esp(void)
{
	struct rte_flow_item_esp esp = { .hdr.spi = BE32(0x00001234) };
	struct rte_flow_item po[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_ESP, .spec = &esp },
		END_ITEM,
	};
	struct rte_flow_item pi[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_ESP, .spec = &esp },
		END_ITEM,
	};
	static const uint8_t spi_m[4] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t spi_v[4] = { 0, 0, 0x12, 0x34 };
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(po, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 16, 0xff, 50);
	ex_put(&e, MISC + 48, spi_m, spi_v, 4);
	VT_CHECK(check_expect(&m, &e) == 0, "ESP SPI bytes");
	/* The PRM's SPI field is the outer header's. */
	VT_CHECK_EQ(translate(pi, &m, &err), -ENOTSUP, "inner SPI");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ITEM_MASK, "type");
	VT_CHECK(strstr(err.message,
			"ESP item: spi: the mlx5dv matcher cannot match it after a tunnel item") !=
			 NULL,
		 "%s", err.message);
	/* An inner ESP header without SPI: ip_protocol 50 inside. */
	pi[5].spec = NULL;
	VT_CHECK_EQ(translate(pi, &m, &err), 0, "%s", err.message);
	VT_CHECK(((const uint8_t *)m.value.buf)[INNER + 16] == 50,
		 "inner ip_protocol");
	return VT_OK;
}

/*
 * rte_flow.rst: a last field equal to spec, or zero, is no range. Both
 * give the exact match of spec; a real range is refused (ITEM_LAST) but
 * on fragment_offset.
 */
static int
test_degenerate_ranges(void)
{
	struct rte_flow_item_ipv4 ip = {
		.hdr = { .dst_addr = BE32(0x0a000001), .time_to_live = 7 },
	};
	struct rte_flow_item_ipv4 ip_m = {
		.hdr = { .dst_addr = BE32(0xffffffff),
			 .time_to_live = 0xff,
			 .fragment_offset = BE16(0x3fff) },
	};
	struct rte_flow_item_ipv4 last = {
		.hdr = { .dst_addr = BE32(0x0a000001) }, /* equal; ttl 0 */
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &ip,
		  .last = &last,
		  .mask = &ip_m },
		END_ITEM,
	};
	static const uint8_t dst_m[4] = { 0xff, 0xff, 0xff, 0xff };
	static const uint8_t dst_v[4] = { 10, 0, 0, 1 };
	static struct vsteer_dv_match m;
	static struct expect e;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	memset(&e, 0, sizeof(e));
	ex_ipver(&e, OUTER, 4);
	ex_put(&e, OUTER + 48 + 12, dst_m, dst_v, 4);
	ex_byte(&e, OUTER + 27, 0xff, 7);
	ex_byte(&e, OUTER + 18, 0x20, 0x00); /* not a fragment */
	VT_CHECK(check_expect(&m, &e) == 0, "degenerate last: exact");
	/* The same with the whole last zero. */
	memset(&last, 0, sizeof(last));
	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	VT_CHECK(check_expect(&m, &e) == 0, "zero last: exact");
	/* A real range on the address. */
	last.hdr.dst_addr = BE32(0x0a0000ff);
	VT_CHECK_EQ(translate(p, &m, &err), -ENOTSUP, "range");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ITEM_LAST, "type");
	VT_CHECK(err.cause == &p[0], "cause");
	VT_CHECK(strstr(err.message, "IPv4 item: dst_addr") != NULL, "%s",
		 err.message);
	return VT_OK;
}

/* Find the matcher entry of a plan with the given hash fields. */
static int
entry_by_hash(uint64_t h)
{
	unsigned int i;

	for (i = 0; i < plan.n_rules; i++)
		if (plan.var[i].hash_fields == h)
			return (int)i;
	return -1;
}

#define H4 (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)
#define H6 (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6)
#define HT (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)
#define HU (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)

/*
 * RSS expansion on the matcher: OVS 3.1's partial offload shape (ETH with
 * has_vlan 0, IPv4 not a fragment, MARK + RSS IP|TCP|UDP) becomes three
 * matcher entries: TCP and UDP at sub-priority L4 with ip_protocol, the
 * pattern itself at L3; each to the hash QP of its type.
 */
static int
test_rss_expansion(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const uint16_t qs[] = { 0, 1, 2, 3 };
	const struct rte_flow_action_mark mark = { .id = 1 };
	const struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP,
		.queue_num = RTE_DIM(qs),
		.queue = qs,
	};
	const struct rte_flow_action acts[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark },
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_item_eth eth = {
		.hdr.dst_addr.addr_bytes = { 2, 0, 0, 0, 0, 1 },
		.hdr.src_addr.addr_bytes = { 2, 0, 0, 0, 0, 2 },
		.hdr.ether_type = BE16(0x0800),
		.has_vlan = 0,
	};
	struct rte_flow_item_eth eth_m = {
		.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff },
		.hdr.src_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff },
		.hdr.ether_type = BE16(0xffff),
		.has_vlan = 1,
	};
	struct rte_flow_item_ipv4 ip = { .hdr.fragment_offset = 0 };
	struct rte_flow_item_ipv4 ip_m = {
		.hdr.fragment_offset = BE16(0x3fff),
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		END_ITEM,
	};
	static struct vsteer_dv_match base, m;
	static struct expect e, want;
	struct rte_flow_error err;
	int i;

	VT_CHECK_EQ(translate_full(&c, &attr_in, p, acts, &base, &err), 0, "%s",
		    err.message);
	VT_CHECK_EQ(plan.n_rules, 3, "three matcher entries");
	VT_CHECK(plan.mark && plan.mark_id == 1, "mark");
	/* The pattern's own bytes, shared by the three. */
	memset(&e, 0, sizeof(e));
	ex_put(&e, OUTER + 8, eth_m.hdr.dst_addr.addr_bytes,
	       eth.hdr.dst_addr.addr_bytes, 6);
	ex_put(&e, OUTER + 0, eth_m.hdr.src_addr.addr_bytes,
	       eth.hdr.src_addr.addr_bytes, 6);
	ex_ipver(&e, OUTER, 4);
	ex_byte(&e, OUTER + 18, 0xe0, 0x00); /* untagged, not a fragment */
	VT_CHECK(check_expect(&base, &e) == 0, "base match");
	/* Most specific first: the L4 entries, then the pattern. */
	VT_CHECK_EQ(plan.var[0].sub, VSTEER_SUBPRIO_L4, "entry 0");
	VT_CHECK_EQ(plan.var[1].sub, VSTEER_SUBPRIO_L4, "entry 1");
	VT_CHECK_EQ(plan.var[2].sub, VSTEER_SUBPRIO_L3, "entry 2");
	i = entry_by_hash(H4 | HU);
	VT_CHECK(i >= 0, "UDP entry");
	vsteer_flow_dv_rule_match(&base, &plan, (unsigned int)i, &m);
	want = e;
	ex_byte(&want, OUTER + 16, 0xff, 17);
	VT_CHECK(check_expect(&m, &want) == 0, "UDP entry bytes");
	i = entry_by_hash(H4 | HT);
	VT_CHECK(i >= 0, "TCP entry");
	vsteer_flow_dv_rule_match(&base, &plan, (unsigned int)i, &m);
	want = e;
	ex_byte(&want, OUTER + 16, 0xff, 6);
	VT_CHECK(check_expect(&m, &want) == 0, "TCP entry bytes");
	i = entry_by_hash(H4);
	VT_CHECK(i >= 0 && plan.var[i].sub == VSTEER_SUBPRIO_L3, "L3 entry");
	vsteer_flow_dv_rule_match(&base, &plan, (unsigned int)i, &m);
	VT_CHECK(check_expect(&m, &e) == 0, "L3 entry bytes");

	/* An empty ETH: both families, each with UDP, TCP and L3 entries,
	 * and the pattern itself (L2, not hashed). */
	p[0].spec = NULL;
	p[0].mask = NULL;
	p[1].type = RTE_FLOW_ITEM_TYPE_END;
	VT_CHECK_EQ(translate_full(&c, &attr_in, p, acts, &base, &err), 0, "%s",
		    err.message);
	VT_CHECK_EQ(plan.n_rules, 7, "seven entries");
	VT_CHECK_EQ(plan.var[6].sub, VSTEER_SUBPRIO_L2, "last the pattern");
	VT_CHECK_EQ(plan.var[6].hash_fields, 0, "not hashed");
	i = entry_by_hash(H6 | HT);
	VT_CHECK(i >= 0, "IPv6 TCP entry");
	vsteer_flow_dv_rule_match(&base, &plan, (unsigned int)i, &m);
	memset(&want, 0, sizeof(want));
	ex_ipver(&want, OUTER, 6);
	ex_byte(&want, OUTER + 16, 0xff, 6);
	VT_CHECK(check_expect(&m, &want) == 0, "IPv6 TCP entry bytes");

	/* ARP by ethertype: nothing to expand, one entry to queue 0. */
	eth.hdr.ether_type = BE16(0x0806);
	p[0].spec = &eth;
	p[0].mask = &eth_m;
	VT_CHECK_EQ(translate_full(&c, &attr_in, p, acts, &base, &err), 0, "%s",
		    err.message);
	VT_CHECK_EQ(plan.n_rules, 1, "ARP: one entry");
	VT_CHECK_EQ(plan.var[0].hash_fields, 0, "ARP: not hashed");
	return VT_OK;
}

/* Attributes and actions: what the matcher engine refuses, and why. */
static int
test_attr_actions(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	struct rte_flow_attr a = { .ingress = 1 };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		END_ITEM,
	};
	const struct rte_flow_action passthru[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_PASSTHRU },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action count[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue0 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	static struct vsteer_dv_match m;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate_full(&c, &a, p, passthru, &m, &err), -ENOTSUP,
		    "PASSTHRU");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ACTION, "type");
	VT_CHECK(err.cause == &passthru[0], "cause");
	VT_CHECK(plan.limit.set, "a limitation");
	VT_CHECK(strstr(err.message,
			"PASSTHRU action: the mlx5dv matcher cannot take it") !=
			 NULL,
		 "%s", err.message);
	/* COUNT is a DevX counter on this engine. */
	VT_CHECK_EQ(translate_full(&c, &a, p, count, &m, &err), 0, "%s",
		    err.message);
	VT_CHECK(plan.count, "count");
	c.devx_ok = false;
	VT_CHECK_EQ(translate_full(&c, &a, p, count, &m, &err), -ENOTSUP,
		    "COUNT without DevX");
	VT_CHECK(err.cause == &count[0] && plan.limit.set, "cause, limit");
	VT_CHECK(strstr(err.message,
			"COUNT action: the mlx5dv matcher cannot take it: the device offers no DevX flow counters") !=
			 NULL,
		 "%s", err.message);
	c.devx_ok = true;
	/* Egress: the transmit table's matchers, DROP among what they
	 * take (whether verbs egress works or not). */
	a.ingress = 0;
	a.egress = 1;
	c.egress_ok = false;
	VT_CHECK_EQ(translate_full(&c, &a, p, drop, &m, &err), 0, "egress: %s",
		    err.message);
	VT_CHECK(plan.egress && !plan.ingress && plan.fate == VSTEER_FATE_DROP,
		 "egress DROP plan");
	c.egress_ok = true;
	/* Transfer: neither engine; type ATTR_TRANSFER, even with no
	 * direction given (OVS's full offload attempt). */
	a.egress = 0;
	a.transfer = 1;
	VT_CHECK_EQ(translate_full(&c, &a, p, drop, &m, &err), -ENOTSUP,
		    "transfer");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, "type");
	VT_CHECK(!plan.limit.set, "no engine would");
	a.transfer = 0;
	a.ingress = 1;
	a.group = 2;
	VT_CHECK_EQ(translate_full(&c, &a, p, drop, &m, &err), -ENOTSUP,
		    "group");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ATTR_GROUP, "type");
	a.group = 0;
	a.priority = 4;
	VT_CHECK_EQ(translate_full(&c, &a, p, drop, &m, &err), -ENOTSUP,
		    "priority");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, "type");
	/* Matcher priority: 3 x priority + sub-priority, as verbs. */
	a.priority = 2;
	VT_CHECK_EQ(translate_full(&c, &a, p, drop, &m, &err), 0, "%s",
		    err.message);
	VT_CHECK_EQ(vsteer_flow_verbs_prio(&c, plan.rte_priority,
					   plan.var[0].sub),
		    8, "L2 at level 2");
	return VT_OK;
}

/* --- errors: errno, type, cause, a message naming the field --- */

struct err_case {
	const char *name;
	struct rte_flow_item p[6];
	int bad; /* index of the offending item */
	int rc;
	enum rte_flow_error_type type;
	const char *word; /* in the message */
};

static int
test_errors(void)
{
	static const struct rte_flow_item_ipv4 ip_len = {
		.hdr.total_length = BE16(0xffff),
	};
	static const struct rte_flow_item_ipv4 ip_a = {
		.hdr.src_addr = BE32(0x0a000001),
	};
	static const struct rte_flow_item_ipv4 ip_b = {
		.hdr.src_addr = BE32(0x0a0000ff),
	};
	static const struct rte_flow_item_ipv4 ip_proto_part = {
		.hdr.next_proto_id = 0x0f,
	};
	static const struct rte_flow_item_ipv4 ip_udp = {
		.hdr.next_proto_id = 17,
	};
	static const struct rte_flow_item_ipv4 ip_proto_full = {
		.hdr.next_proto_id = 0xff,
	};
	static const struct rte_flow_item_eth eth_v6 = {
		.hdr.ether_type = BE16(0x86dd),
	};
	static const struct rte_flow_item_eth eth_type_m = {
		.hdr.ether_type = BE16(0xffff),
	};
	static const struct rte_flow_item_vxlan vxlan_flags = {
		.flags = 0xff,
	};
	static const struct rte_flow_item_gre gre_ver = {
		.c_rsvd0_ver = BE16(0x0007),
	};
	static const struct rte_flow_item_tcp tcp_seq = {
		.hdr.sent_seq = BE32(1),
	};
	static const struct err_case cases[] = {
		{ "unknown item",
		  { { .type = RTE_FLOW_ITEM_TYPE_ETH },
		    { .type = RTE_FLOW_ITEM_TYPE_ICMP },
		    END_ITEM },
		  1,
		  -ENOTSUP,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "not supported" },
		{ "mask without spec",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4, .mask = &ip_a },
		    END_ITEM },
		  0,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "spec" },
		{ "last without spec",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4, .last = &ip_a },
		    END_ITEM },
		  0,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "spec" },
		{ "range on src_addr",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4,
		      .spec = &ip_a,
		      .last = &ip_b },
		    END_ITEM },
		  0,
		  -ENOTSUP,
		  RTE_FLOW_ERROR_TYPE_ITEM_LAST,
		  "src_addr" },
		{ "unsupported field",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4,
		      .spec = &ip_len,
		      .mask = &ip_len },
		    END_ITEM },
		  0,
		  -ENOTSUP,
		  RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		  "total_length" },
		{ "TCP sequence number",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_TCP,
		      .spec = &tcp_seq,
		      .mask = &tcp_seq },
		    END_ITEM },
		  1,
		  -ENOTSUP,
		  RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		  "sent_seq" },
		{ "partial protocol mask",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4,
		      .spec = &ip_proto_part,
		      .mask = &ip_proto_part },
		    END_ITEM },
		  0,
		  -ENOTSUP,
		  RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		  "next_proto_id" },
		{ "VXLAN flags",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_UDP },
		    { .type = RTE_FLOW_ITEM_TYPE_VXLAN,
		      .spec = &vxlan_flags,
		      .mask = &vxlan_flags },
		    END_ITEM },
		  2,
		  -ENOTSUP,
		  RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		  "flags" },
		{ "GRE version",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_GRE,
		      .spec = &gre_ver,
		      .mask = &gre_ver },
		    END_ITEM },
		  1,
		  -ENOTSUP,
		  RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		  "c_rsvd0_ver" },
		{ "L4 without L3",
		  { { .type = RTE_FLOW_ITEM_TYPE_ETH },
		    { .type = RTE_FLOW_ITEM_TYPE_TCP },
		    END_ITEM },
		  1,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "TCP item cannot follow ETH item" },
		{ "TCP after protocol UDP",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4,
		      .spec = &ip_udp,
		      .mask = &ip_proto_full },
		    { .type = RTE_FLOW_ITEM_TYPE_TCP },
		    END_ITEM },
		  1,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
		  "does not carry TCP" },
		{ "two L3",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_IPV6 },
		    END_ITEM },
		  1,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "IPv6 item cannot follow IPv4 item" },
		{ "VLAN after L3",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_VLAN },
		    END_ITEM },
		  1,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "VLAN item cannot follow IPv4 item" },
		{ "L2 after L3",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_ETH },
		    END_ITEM },
		  1,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "ETH item cannot follow IPv4 item" },
		{ "IPv4 after ether type IPv6",
		  { { .type = RTE_FLOW_ITEM_TYPE_ETH,
		      .spec = &eth_v6,
		      .mask = &eth_type_m },
		    { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    END_ITEM },
		  1,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
		  "ether type" },
		{ "VXLAN without UDP",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_VXLAN },
		    END_ITEM },
		  1,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "VXLAN item cannot follow IPv4 item" },
		{ "GRE without L3",
		  { { .type = RTE_FLOW_ITEM_TYPE_ETH },
		    { .type = RTE_FLOW_ITEM_TYPE_GRE },
		    END_ITEM },
		  1,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "GRE item cannot follow ETH item" },
		{ "GRE_KEY without GRE",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_GRE_KEY },
		    END_ITEM },
		  1,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "GRE_KEY item cannot follow IPv4 item" },
		{ "two tunnels",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_UDP },
		    { .type = RTE_FLOW_ITEM_TYPE_VXLAN },
		    { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_GRE },
		    END_ITEM },
		  4,
		  -ENOTSUP,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "tunnel" },
		{ "MPLS after TCP",
		  { { .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		    { .type = RTE_FLOW_ITEM_TYPE_TCP },
		    { .type = RTE_FLOW_ITEM_TYPE_MPLS },
		    END_ITEM },
		  2,
		  -EINVAL,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "MPLS item cannot follow TCP item" },
		{ "two VLAN",
		  { { .type = RTE_FLOW_ITEM_TYPE_VLAN },
		    { .type = RTE_FLOW_ITEM_TYPE_VLAN },
		    END_ITEM },
		  1,
		  -ENOTSUP,
		  RTE_FLOW_ERROR_TYPE_ITEM,
		  "VLAN item: a second VLAN item: the mlx5dv matcher cannot express it" },
	};
	static struct vsteer_dv_match m;
	struct rte_flow_error err;
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		const struct err_case *c = &cases[i];
		int rc;

		rte_errno = 0;
		rc = translate(c->p, &m, &err);
		VT_CHECK_EQ(rc, c->rc, "%s", c->name);
		VT_CHECK_EQ(rte_errno, -c->rc, "%s: rte_errno", c->name);
		VT_CHECK_EQ(err.type, c->type, "%s: type", c->name);
		VT_CHECK(err.cause == &c->p[c->bad], "%s: cause %p want %p",
			 c->name, err.cause, (const void *)&c->p[c->bad]);
		VT_CHECK(err.message != NULL &&
				 strstr(err.message, c->word) != NULL,
			 "%s: message \"%s\" lacks \"%s\"", c->name,
			 err.message ? err.message : "(null)", c->word);
	}
	return VT_OK;
}

/* last equal to spec under the mask is no range. */
static int
test_last_equal(void)
{
	struct rte_flow_item_ipv4 a = { .hdr.src_addr = BE32(0x0a000001) };
	/* Differs only in bits the mask ignores. */
	struct rte_flow_item_ipv4 b = {
		.hdr.src_addr = BE32(0x0a000001),
		.hdr.total_length = BE16(99),
	};
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &a, .last = &b },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	VT_CHECK(((const uint8_t *)m.value.buf)[44] == 10, "src kept");
	return VT_OK;
}

/* --- matcher cache key --- */

static int
test_matcher_key(void)
{
	struct rte_flow_item_ipv4 a = { .hdr.dst_addr = BE32(0x0a000001) };
	struct rte_flow_item_ipv4 b = { .hdr.dst_addr = BE32(0x0a000002) };
	struct rte_flow_item_ipv4 c_m = { .hdr.dst_addr = BE32(0xffffff00) };
	struct rte_flow_item pa[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &a },
		END_ITEM,
	};
	struct rte_flow_item pb[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &b },
		END_ITEM,
	};
	struct rte_flow_item pc[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &a, .mask = &c_m },
		END_ITEM,
	};
	static struct vsteer_dv_match ma, mb, mc;
	struct rte_flow_error err;

	VT_CHECK_EQ(translate(pa, &ma, &err), 0, "a");
	VT_CHECK_EQ(translate(pb, &mb, &err), 0, "b");
	VT_CHECK_EQ(translate(pc, &mc, &err), 0, "c");
	/* Same mask, other value: one matcher. */
	VT_CHECK(vsteer_flow_dv_matcher_equal(&ma, 3, &mb, 3), "a == b");
	VT_CHECK_EQ(vsteer_flow_dv_matcher_hash(&ma, 3),
		    vsteer_flow_dv_matcher_hash(&mb, 3), "hash a == b");
	/* Another priority or mask: another matcher. */
	VT_CHECK(!vsteer_flow_dv_matcher_equal(&ma, 3, &mb, 4), "prio");
	VT_CHECK(!vsteer_flow_dv_matcher_equal(&ma, 3, &mc, 3), "mask");
	VT_CHECK(vsteer_flow_dv_matcher_hash(&ma, 3) !=
			 vsteer_flow_dv_matcher_hash(&mc, 3),
		 "hash mask");
	return VT_OK;
}

/* --- dump --- */

static int
test_dump(void)
{
	struct rte_flow_item_eth eth = {
		.hdr.dst_addr.addr_bytes = { 0x00, 0x11, 0x22, 0x33, 0x44,
					     0x55 },
	};
	struct rte_flow_item_eth eth_m = {
		.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff,
					     0xff },
	};
	struct rte_flow_item_ipv4 ip = { .hdr.dst_addr = BE32(0xc0a80001) };
	struct rte_flow_item_vxlan vx = { .vni = { 0, 0, 42 } };
	struct rte_flow_item p[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN, .spec = &vx },
		END_ITEM,
	};
	static struct vsteer_dv_match m;
	struct rte_flow_error err;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	VT_CHECK_EQ(translate(p, &m, &err), 0, "%s", err.message);
	/* A bit no named field covers (reserved at 0xc0 of the set). */
	((uint8_t *)m.mask.buf)[24] = 0x80;
	f = open_memstream(&text, &len);
	VT_CHECK(f != NULL, "memstream");
	vsteer_flow_dv_dump(f, &m);
	fclose(f);
	VT_CHECK(strstr(text, "criteria 0x03") != NULL, "%s", text);
	VT_CHECK(strstr(text,
			"outer.dmac mask ff:ff:ff:ff:ff:ff value 00:11:22:33:44:55") !=
			 NULL,
		 "%s", text);
	VT_CHECK(strstr(text, "outer.ip_version mask 0xf value 0x4") != NULL,
		 "%s", text);
	VT_CHECK(strstr(text,
			"outer.dst_ip(ipv4) mask ff.ff.ff.ff value c0.a8.00.01") !=
			 NULL,
		 "%s", text);
	VT_CHECK(strstr(text, "outer.udp_dport mask 0xffff value 0x12b5") !=
			 NULL,
		 "%s", text);
	VT_CHECK(strstr(text, "misc.vxlan_vni mask 0xffffff value 0x00002a") !=
			 NULL,
		 "%s", text);
	VT_CHECK(strstr(text, "outer+0x0c0 mask 0x80000000") != NULL, "%s",
		 text);
	/* Unmasked fields stay out. */
	VT_CHECK(strstr(text, "smac") == NULL, "%s", text);
	VT_CHECK(strstr(text, "inner") == NULL, "%s", text);
	free(text);
	return VT_OK;
}

/* --- DevX flow counter commands --- */

static int
test_counter_cmds(void)
{
	uint8_t in[32], out[32];
	uint64_t pk = 0, by = 0;
	uint32_t id = 0;
	unsigned int i;

	memset(in, 0xee, sizeof(in));
	vsteer_dv_cmd_alloc_counter(in);
	VT_CHECK(in[0] == 0x09 && in[1] == 0x39, "ALLOC opcode 0x939");
	for (i = 2; i < VSTEER_PRM_ALLOC_FC_IN_BYTES; i++)
		VT_CHECK(in[i] == 0, "alloc byte %u", i);

	memset(out, 0, sizeof(out));
	out[8] = 0x00;
	out[9] = 0x01;
	out[10] = 0x02;
	out[11] = 0x03;
	VT_CHECK_EQ(vsteer_dv_cmd_alloc_counter_parse(out, 16, &id), 0, "ok");
	VT_CHECK_EQ(id, 0x010203, "flow_counter_id at bit 0x40");
	VT_CHECK_EQ(vsteer_dv_cmd_alloc_counter_parse(out, 15, &id), -EINVAL,
		    "short");
	out[0] = 0x03; /* BAD_PARAM */
	VT_CHECK_EQ(vsteer_dv_cmd_alloc_counter_parse(out, 16, &id), -EIO,
		    "status");

	memset(in, 0xee, sizeof(in));
	vsteer_dv_cmd_query_counter(in, 0xa0b0c0d0, true);
	VT_CHECK(in[0] == 0x09 && in[1] == 0x3b, "QUERY opcode 0x93b");
	VT_CHECK(in[24] == 0x80, "clear at bit 0xc0: %02x", in[24]);
	VT_CHECK(in[28] == 0xa0 && in[29] == 0xb0 && in[30] == 0xc0 &&
			 in[31] == 0xd0,
		 "flow_counter_id at bit 0xe0");
	for (i = 2; i < 24; i++)
		VT_CHECK(in[i] == 0, "query byte %u", i);
	vsteer_dv_cmd_query_counter(in, 1, false);
	VT_CHECK(in[24] == 0, "no clear");

	memset(out, 0, sizeof(out));
	/* flow_statistics at bit 0x80: packets then octets, 64-bit BE. */
	out[23] = 7;
	out[24] = 0x01;
	out[31] = 0x02;
	VT_CHECK_EQ(vsteer_dv_cmd_query_counter_parse(out, 32, &pk, &by), 0,
		    "ok");
	VT_CHECK(pk == 7, "packets %llu", (unsigned long long)pk);
	VT_CHECK(by == UINT64_C(0x0100000000000002), "octets %llx",
		 (unsigned long long)by);
	VT_CHECK_EQ(vsteer_dv_cmd_query_counter_parse(out, 31, &pk, &by),
		    -EINVAL, "short");

	memset(in, 0xee, sizeof(in));
	vsteer_dv_cmd_dealloc_counter(in, 0x42);
	VT_CHECK(in[0] == 0x09 && in[1] == 0x3a, "DEALLOC opcode 0x93a");
	VT_CHECK(in[8] == 0 && in[11] == 0x42, "flow_counter_id at 0x40");
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_prm_accessors),
	VT_CASE(test_eth),
	VT_CASE(test_eth_default_mask),
	VT_CASE(test_eth_vlan),
	VT_CASE(test_eth_has_vlan),
	VT_CASE(test_ipv4),
	VT_CASE(test_ipv4_frag),
	VT_CASE(test_ipv6),
	VT_CASE(test_tcp_udp),
	VT_CASE(test_vxlan_inner),
	VT_CASE(test_gre_key),
	VT_CASE(test_mpls),
	VT_CASE(test_empty_and_void),
	VT_CASE(test_value_anded),
	VT_CASE(test_mcast_dst),
	VT_CASE(test_errors),
	VT_CASE(test_last_equal),
	VT_CASE(test_matcher_key),
	VT_CASE(test_dump),
	VT_CASE(test_counter_cmds),
	VT_CASE(test_ttl_hop),
	VT_CASE(test_ipv4_ihl),
	VT_CASE(test_tcp_flags_ns),
	VT_CASE(test_vlan_tags),
	VT_CASE(test_esp),
	VT_CASE(test_degenerate_ranges),
	VT_CASE(test_rss_expansion),
	VT_CASE(test_attr_actions),
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
