/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * rte_flow -> verbs translator: byte-exact spec chains (expected chains are
 * built field by field with the <infiniband/verbs.h> structs), RSS
 * expansion, priorities, every error (type, cause, errno, message) and the
 * dump. No EAL: rte_flow_error_set() only needs rte_errno.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "vsteer_flow_verbs.h"
#include "vt_seed.h"
#include "vt_test.h"

#define ALL_TYPES \
	(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_ESP)

static const uint8_t test_key[VSTEER_RSS_KEY_LEN] = {
	1,  2,	3,  4,	5,  6,	7,  8,	9,  10, 11, 12, 13, 14,
	15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28,
	29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40,
};

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
	c.verbs_esp_ok = true;
	c.mpls_ok = true;
	c.rss_hf_supported = ALL_TYPES;
	c.rss_hf_default = RTE_ETH_RSS_IP;
	c.rss_key_default = test_key;
	return c;
}

static const struct rte_flow_attr attr_in = { .ingress = 1 };
static const struct rte_flow_action_queue queue0 = { .index = 0 };
static const struct rte_flow_action act_queue0[] = {
	{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue0 },
	{ .type = RTE_FLOW_ACTION_TYPE_END },
};

/* The plan is a few KiB: one per program. */
static struct vsteer_flow_plan plan;

/* Expected rule: attr, then specs appended field by field. */
struct xbuf {
	uint8_t b[VSTEER_MAX_SPEC_BYTES];
	size_t len;
	unsigned int n;
};

static void
xb_init(struct xbuf *x)
{
	memset(x, 0, sizeof(*x));
	x->len = sizeof(struct ibv_flow_attr);
}

static void
xb_add(struct xbuf *x, const void *spec, size_t sz)
{
	memcpy(x->b + x->len, spec, sz);
	x->len += sz;
	x->n++;
}

static void
xb_attr(struct xbuf *x, uint16_t prio, uint32_t flags)
{
	struct ibv_flow_attr a;

	memset(&a, 0, sizeof(a));
	a.comp_mask = 0;
	a.type = IBV_FLOW_ATTR_NORMAL;
	a.size = x->len;
	a.priority = prio;
	a.num_of_specs = x->n;
	a.port = 1;
	a.flags = flags;
	memcpy(x->b, &a, sizeof(a));
}

static void
hexdump(const char *what, const uint8_t *p, size_t len)
{
	size_t i;

	fprintf(stderr, "  %s (%zu bytes):", what, len);
	for (i = 0; i < len; i++)
		fprintf(stderr, "%s%02x", i % 16 ? " " : "\n    ", p[i]);
	fprintf(stderr, "\n");
}

/* Rule bytes == expected bytes, or show both. */
static int
rule_is(const struct vsteer_verbs_rule *r, const struct xbuf *x)
{
	if (r == NULL) {
		fprintf(stderr, "  no such rule\n");
		return 0;
	}
	if (r->size == x->len && memcmp(r->buf, x->b, x->len) == 0)
		return 1;
	hexdump("got", r->buf, r->size);
	hexdump("expected", x->b, x->len);
	vsteer_flow_verbs_dump(stderr, r);
	return 0;
}

static int
xlate(const struct vsteer_xlate_ctx *c, const struct rte_flow_attr *a,
      const struct rte_flow_item *p, const struct rte_flow_action *act,
      struct rte_flow_error *err)
{
	memset(err, 0, sizeof(*err));
	rte_errno = 0;
	return vsteer_flow_verbs_translate(c, a, p, act, &plan, err);
}

/* Translation must succeed; print the error otherwise. */
#define XLATE_OK(c, a, p, act)                                            \
	do {                                                              \
		struct rte_flow_error e_;                                 \
		int r_ = xlate((c), (a), (p), (act), &e_);                \
		VT_CHECK(r_ == 0, "translate failed: %d type %d: %s", r_, \
			 (int)e_.type, e_.message ? e_.message : "");     \
	} while (0)

/*
 * Translation must fail with errno code, type, cause and a key word; an
 * engine limitation (limit: the matcher might take the rule) must say so
 * in plan.limit, a plain error must not.
 */
static int
expect_err(int line, const struct vsteer_xlate_ctx *c,
	   const struct rte_flow_attr *a, const struct rte_flow_item *p,
	   const struct rte_flow_action *act, int code,
	   enum rte_flow_error_type type, const void *cause, const char *word,
	   bool limit)
{
	struct rte_flow_error e;
	int ret = xlate(c, a, p, act, &e);
	const char *msg = e.message != NULL ? e.message : "";

	if (ret != -code || rte_errno != code || e.type != type ||
	    e.cause != cause || strstr(msg, word) == NULL ||
	    plan.n_rules != 0 || plan.limit.set != limit) {
		fprintf(stderr,
			"  line %d: got ret %d rte_errno %d type %d cause %p msg \"%s\" n_rules %u limit %d\n"
			"  expected ret %d type %d cause %p word \"%s\" limit %d\n",
			line, ret, rte_errno, (int)e.type, e.cause, msg,
			plan.n_rules, plan.limit.set, -code, (int)type, cause,
			word, limit);
		return VT_FAIL;
	}
	return VT_OK;
}

#define EXPECT_ERR(c, a, p, act, code, type, cause, word)                    \
	VT_CHECK(expect_err(__LINE__, c, a, p, act, code, type, cause, word, \
			    false) == VT_OK,                                 \
		 "error case")
/* What verbs cannot express: ENOTSUP, flagged for the matcher. */
#define EXPECT_LIMIT(c, a, p, act, type, cause, word)                     \
	VT_CHECK(expect_err(__LINE__, c, a, p, act, ENOTSUP, type, cause, \
			    word, true) == VT_OK,                         \
		 "limitation case")

/* Spec initializers: zeroed, with type and size. */
#define SPEC(var, stype, t)           \
	struct stype var;             \
	memset(&var, 0, sizeof(var)); \
	var.type = (t);               \
	var.size = sizeof(var)

static const uint8_t mac_ff[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

/* The same rule in rte_flow: ETH with its default mask (dst and src),
 * IPv4 with a source-only mask. */
static const struct rte_flow_item_eth seed_eth = {
	.dst.addr_bytes = { 0x66, 0x11, 0x22, 0x33, 0x44, 0x55 },
};
static const struct rte_flow_item_ipv4 seed_ipv4 = {
	.hdr.src_addr = 0x0B86C806,
};
static const struct rte_flow_item_ipv4 seed_ipv4_mask = {
	.hdr.src_addr = 0xFFFFFFFF,
};
static const struct rte_flow_item seed_pattern[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &seed_eth },
	{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
	  .spec = &seed_ipv4,
	  .mask = &seed_ipv4_mask },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};

static int
test_seed_example(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	struct raw_eth_flow_attr want;
	const struct vsteer_verbs_rule *r;

	XLATE_OK(&c, &attr_in, seed_pattern, act_queue0);
	VT_CHECK_EQ(plan.n_rules, 1, "one verbs rule");
	r = &plan.rules[0];
	/* rte priority 0, deepest layer L3 -> verbs priority 3 * 0 + 1. */
	VT_CHECK_EQ(r->subprio, VSTEER_SUBPRIO_L3, "IPv4 is the deepest layer");
	VT_CHECK_EQ(r->attr.priority, 1, "verbs priority of rte 0 / L3");
	VT_CHECK_EQ(r->size, sizeof(vt_seed_flow_attr), "84 bytes");
	/* Everything else is the man page's own bytes. */
	memcpy(&want, &vt_seed_flow_attr, sizeof(want));
	want.attr.priority = 1;
	VT_CHECK(memcmp(r->buf, &want, sizeof(want)) == 0, "man page bytes");
	VT_CHECK(memcmp(r->buf + sizeof(struct ibv_flow_attr),
			(const uint8_t *)&vt_seed_flow_attr +
				sizeof(struct ibv_flow_attr),
			sizeof(vt_seed_flow_attr) -
				sizeof(struct ibv_flow_attr)) == 0,
		 "specs byte-exact");
	VT_CHECK_EQ(r->hash_fields, 0, "QUEUE: no hashing");
	VT_CHECK_EQ(r->count_off, 0, "no counter");
	VT_CHECK_EQ(plan.fate, VSTEER_FATE_QUEUE, "fate");
	VT_CHECK_EQ(plan.queue_num, 1, "one queue");
	VT_CHECK_EQ(plan.queues[0], 0, "queue 0");
	VT_CHECK(plan.ingress && !plan.egress, "ingress");
	VT_CHECK(memcmp(plan.rss_key, test_key, sizeof(test_key)) == 0,
		 "QUEUE gets the default key for its hash QP");
	return VT_OK;
}

/* Values are ANDed with masks; ETH type is kept; VOIDs are skipped. */
static int
test_eth_masking_void(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_item_eth spec = {
		.dst.addr_bytes = { 0x02, 0x11, 0x22, 0x33, 0x44, 0x55 },
		.src.addr_bytes = { 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff },
		.type = RTE_BE16(0x88cc),
	};
	static const struct rte_flow_item_eth mask = {
		.dst.addr_bytes = { 0xff, 0xff, 0xff, 0x00, 0x00, 0x0f },
		.type = RTE_BE16(0xffff),
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_VOID },
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &spec, .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_VOID },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_VOID },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue0 },
		{ .type = RTE_FLOW_ACTION_TYPE_VOID },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_attr a = { .ingress = 1, .priority = 2 };
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	eth.val.dst_mac[0] = 0x02;
	eth.val.dst_mac[1] = 0x11;
	eth.val.dst_mac[2] = 0x22;
	eth.val.dst_mac[5] = 0x05;
	eth.mask.dst_mac[0] = 0xff;
	eth.mask.dst_mac[1] = 0xff;
	eth.mask.dst_mac[2] = 0xff;
	eth.mask.dst_mac[5] = 0x0f;
	eth.val.ether_type = htons(0x88cc);
	eth.mask.ether_type = 0xffff;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_attr(&x, 3 * 2 + 2, 0);
	XLATE_OK(&c, &a, pattern, actions);
	VT_CHECK_EQ(plan.n_rules, 1, "one rule");
	VT_CHECK(rule_is(&plan.rules[0], &x), "ETH bytes");
	VT_CHECK_EQ(plan.rules[0].subprio, VSTEER_SUBPRIO_L2, "L2");
	return VT_OK;
}

/* An empty pattern is one ETH spec matching everything. */
static int
test_empty_pattern(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_attr(&x, 2, 0);
	XLATE_OK(&c, &attr_in, pattern, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "empty ETH spec");
	return VT_OK;
}

/* VLAN folds into the ETH spec: vlan_tag = TCI, ether_type = inner. */
static int
test_vlan_folded(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_item_eth eth_spec = {
		.dst.addr_bytes = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05 },
		.type = RTE_BE16(0x8100), /* TPID, accepted before VLAN */
	};
	static const struct rte_flow_item_eth eth_mask = {
		.dst.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		.type = RTE_BE16(0xffff),
	};
	static const struct rte_flow_item_vlan vlan_spec = {
		.tci = RTE_BE16(0xa064), /* PCP 5, VID 100 */
		.inner_type = RTE_BE16(0x0800),
	};
	static const struct rte_flow_item_vlan vlan_mask = {
		.tci = RTE_BE16(0xefff),
		.inner_type = RTE_BE16(0xffff),
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH,
		  .spec = &eth_spec,
		  .mask = &eth_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN,
		  .spec = &vlan_spec,
		  .mask = &vlan_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item pattern_vlan_only[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_VLAN, .spec = &vlan_spec },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip, ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4);
	memcpy(eth.val.dst_mac, eth_spec.dst.addr_bytes, 6);
	memcpy(eth.mask.dst_mac, mac_ff, 6);
	eth.val.vlan_tag = htons(0xa064);
	eth.mask.vlan_tag = htons(0xefff);
	eth.val.ether_type = htons(0x0800);
	eth.mask.ether_type = 0xffff;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_attr(&x, 1, 0);
	XLATE_OK(&c, &attr_in, pattern, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "ETH+VLAN+IPv4 bytes");

	/* VLAN first: it gets an ETH spec of its own; default TCI mask. */
	memset(&eth.val, 0, sizeof(eth.val));
	memset(&eth.mask, 0, sizeof(eth.mask));
	eth.val.vlan_tag = htons(0x0064);
	eth.mask.vlan_tag = htons(0x0fff);
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_attr(&x, 2, 0);
	XLATE_OK(&c, &attr_in, pattern_vlan_only, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "VLAN-only bytes");
	return VT_OK;
}

/* IPv4 with protocol / TOS: IPV4_EXT; rte priority 1 at L3 -> 4. */
static int
test_ipv4_ext(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_item_ipv4 spec = {
		.hdr = {
			.type_of_service = 0xb8,
			.next_proto_id = 132,
			.src_addr = RTE_BE32(0x0a000001),
			.dst_addr = RTE_BE32(0xc0a80117),
		},
	};
	static const struct rte_flow_item_ipv4 mask = {
		.hdr = {
			.type_of_service = 0xfc,
			.next_proto_id = 0xff,
			.src_addr = RTE_BE32(0xffffff00),
			.dst_addr = RTE_BE32(0xffffffff),
		},
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &spec,
		  .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_attr a = { .ingress = 1, .priority = 1 };
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip, ibv_flow_spec_ipv4_ext, IBV_FLOW_SPEC_IPV4_EXT);
	ip.val.src_ip = htonl(0x0a000000);
	ip.val.dst_ip = htonl(0xc0a80117);
	ip.val.proto = 132;
	ip.val.tos = 0xb8;
	ip.mask.src_ip = htonl(0xffffff00);
	ip.mask.dst_ip = 0xffffffff;
	ip.mask.proto = 0xff;
	ip.mask.tos = 0xfc;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_attr(&x, 4, 0);
	XLATE_OK(&c, &a, pattern, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "IPV4_EXT bytes");
	return VT_OK;
}

/* IPv6: addresses, flow label, traffic class, next header; then UDP. */
static int
test_ipv6_udp(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_item_ipv6 spec = {
		.hdr = {
			.vtc_flow = RTE_BE32(0x6ab12345),
			.proto = 17,
			.src_addr = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 },
			.dst_addr = { 0xfe, 0x80, [15] = 2 },
		},
	};
	static const struct rte_flow_item_ipv6 mask = {
		.hdr = {
			.vtc_flow = RTE_BE32(0x0f00ffff),
			.proto = 0xff,
			.src_addr = { 0xff, 0xff, 0xff, 0xff },
			.dst_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				      0xff, 0xff },
		},
	};
	static const struct rte_flow_item_udp udp = {
		.hdr = { .src_port = RTE_BE16(1234), .dst_port = RTE_BE16(53) },
	};
	static const struct rte_flow_item_udp udp_mask = {
		.hdr = { .dst_port = RTE_BE16(0xffff) },
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6,
		  .spec = &spec,
		  .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP,
		  .spec = &udp,
		  .mask = &udp_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip, ibv_flow_spec_ipv6, IBV_FLOW_SPEC_IPV6);
	SPEC(l4, ibv_flow_spec_tcp_udp, IBV_FLOW_SPEC_UDP);
	memcpy(ip.val.src_ip, spec.hdr.src_addr, 4); /* masked to /32 */
	memcpy(ip.val.dst_ip, spec.hdr.dst_addr, 16);
	memcpy(ip.mask.src_ip, mask.hdr.src_addr, 16);
	memcpy(ip.mask.dst_ip, mask.hdr.dst_addr, 16);
	ip.val.flow_label = htonl(0x02345); /* 0x12345 & 0x0ffff */
	ip.mask.flow_label = htonl(0x0ffff);
	ip.val.traffic_class = 0xa0; /* 0xab & 0xf0 */
	ip.mask.traffic_class = 0xf0;
	ip.val.next_hdr = 17;
	ip.mask.next_hdr = 0xff;
	l4.val.dst_port = htons(53);
	l4.mask.dst_port = 0xffff;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &l4, sizeof(l4));
	xb_attr(&x, 0, 0);
	XLATE_OK(&c, &attr_in, pattern, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "IPv6 + UDP bytes");
	VT_CHECK_EQ(plan.rules[0].subprio, VSTEER_SUBPRIO_L4, "L4");
	return VT_OK;
}

/* TCP ports (default mask), IPv4 protocol left to the device. */
static int
test_ipv4_tcp(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_item_ipv4 ip4 = {
		.hdr.dst_addr = RTE_BE32(0x0a000002),
	};
	static const struct rte_flow_item_tcp tcp = {
		.hdr = {
			.src_port = RTE_BE16(40000),
			.dst_port = RTE_BE16(80),
			.tcp_flags = 0x02, /* not in the default mask */
		},
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip4 },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &tcp },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_attr a = { .ingress = 1, .priority = 3 };
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip, ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4);
	SPEC(l4, ibv_flow_spec_tcp_udp, IBV_FLOW_SPEC_TCP);
	ip.val.dst_ip = htonl(0x0a000002);
	ip.mask.src_ip = 0xffffffff;
	ip.mask.dst_ip = 0xffffffff;
	l4.val.src_port = htons(40000);
	l4.val.dst_port = htons(80);
	l4.mask.src_port = 0xffff;
	l4.mask.dst_port = 0xffff;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &l4, sizeof(l4));
	xb_attr(&x, 9, 0); /* 3 * 3 + L4 */
	XLATE_OK(&c, &a, pattern, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "IPv4 + TCP bytes");
	return VT_OK;
}

static const struct rte_flow_item_vxlan vxlan_vni = {
	.vni = { 0x12, 0x34, 0x56 },
};

/* VXLAN: UDP port 4789 implied, VNI in tunnel_id, inner specs INNER. */
static int
test_vxlan_inner(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_item_ipv4 in_ip = {
		.hdr.src_addr = RTE_BE32(0xac100001),
	};
	static const struct rte_flow_item_ipv4 in_ip_mask = {
		.hdr.src_addr = RTE_BE32(0xffffffff),
	};
	static const struct rte_flow_item_tcp in_tcp = {
		.hdr.dst_port = RTE_BE16(443),
	};
	static const struct rte_flow_item_udp udp_8472 = {
		.hdr.dst_port = RTE_BE16(8472),
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN, .spec = &vxlan_vni },
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &in_ip,
		  .mask = &in_ip_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_TCP, .spec = &in_tcp },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item pattern_port[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp_8472 },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip, ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4);
	SPEC(udp, ibv_flow_spec_tcp_udp, IBV_FLOW_SPEC_UDP);
	SPEC(vx, ibv_flow_spec_tunnel, IBV_FLOW_SPEC_VXLAN_TUNNEL);
	SPEC(ieth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH | IBV_FLOW_SPEC_INNER);
	SPEC(iip, ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER);
	SPEC(itcp, ibv_flow_spec_tcp_udp,
	     IBV_FLOW_SPEC_TCP | IBV_FLOW_SPEC_INNER);
	udp.val.dst_port = htons(4789);
	udp.mask.dst_port = 0xffff;
	vx.val.tunnel_id = htonl(0x123456);
	vx.mask.tunnel_id = htonl(0xffffff);
	iip.val.src_ip = htonl(0xac100001);
	iip.mask.src_ip = 0xffffffff;
	itcp.val.dst_port = htons(443);
	itcp.mask.src_port = 0xffff;
	itcp.mask.dst_port = 0xffff;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &udp, sizeof(udp));
	xb_add(&x, &vx, sizeof(vx));
	xb_add(&x, &ieth, sizeof(ieth));
	xb_add(&x, &iip, sizeof(iip));
	xb_add(&x, &itcp, sizeof(itcp));
	xb_attr(&x, 0, 0); /* tunnel: L4 */
	XLATE_OK(&c, &attr_in, pattern, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "VXLAN chain bytes");
	VT_CHECK_EQ(plan.rules[0].subprio, VSTEER_SUBPRIO_L4, "tunnel is L4");

	/* A port the user gave is kept (a VXLAN item without spec: VNI any). */
	memset(&vx.val, 0, sizeof(vx.val));
	memset(&vx.mask, 0, sizeof(vx.mask));
	udp.val.dst_port = htons(8472);
	udp.mask.src_port = 0xffff;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &udp, sizeof(udp));
	xb_add(&x, &vx, sizeof(vx));
	xb_attr(&x, 0, 0);
	XLATE_OK(&c, &attr_in, pattern_port, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "VXLAN port 8472 kept");
	return VT_OK;
}

/* GRE: IP protocol 47 and GRE protocol implied; GRE_KEY into key. */
static int
test_gre_key(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const rte_be32_t key = RTE_BE32(0xdeadbeef);
	static const rte_be32_t key_mask = RTE_BE32(0xffff0000);
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE_KEY,
		  .spec = &key,
		  .mask = &key_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item pattern_teb[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6 },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE_KEY, .spec = &key },
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip, ibv_flow_spec_ipv4_ext, IBV_FLOW_SPEC_IPV4_EXT);
	SPEC(gre, ibv_flow_spec_gre, IBV_FLOW_SPEC_GRE);
	SPEC(iip6, ibv_flow_spec_ipv6,
	     IBV_FLOW_SPEC_IPV6 | IBV_FLOW_SPEC_INNER);
	SPEC(iudp, ibv_flow_spec_tcp_udp,
	     IBV_FLOW_SPEC_UDP | IBV_FLOW_SPEC_INNER);
	SPEC(ip6, ibv_flow_spec_ipv6, IBV_FLOW_SPEC_IPV6);
	SPEC(ieth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH | IBV_FLOW_SPEC_INNER);
	ip.val.proto = 47;
	ip.mask.proto = 0xff;
	gre.val.protocol = htons(0x86dd);
	gre.mask.protocol = 0xffff;
	gre.val.key = htonl(0xdead0000);
	gre.mask.key = htonl(0xffff0000);
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &gre, sizeof(gre));
	xb_add(&x, &iip6, sizeof(iip6));
	xb_add(&x, &iudp, sizeof(iudp));
	xb_attr(&x, 0, 0);
	XLATE_OK(&c, &attr_in, pattern, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "GRE + key + inner IPv6 bytes");

	/* IPv6 outer: next header 47; Ethernet inside: protocol 0x6558. */
	ip6.val.next_hdr = 47;
	ip6.mask.next_hdr = 0xff;
	gre.val.protocol = htons(0x6558);
	gre.val.key = htonl(0xdeadbeef);
	gre.mask.key = 0xffffffff; /* GRE_KEY default mask: full */
	xb_init(&x);
	xb_add(&x, &ip6, sizeof(ip6));
	xb_add(&x, &gre, sizeof(gre));
	xb_add(&x, &ieth, sizeof(ieth));
	xb_attr(&x, 0, 0);
	XLATE_OK(&c, &attr_in, pattern_teb, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "IPv6/GRE/ETH bytes");
	return VT_OK;
}

/* MPLS over UDP (port 6635) and over GRE (protocol 0x8847). */
static int
test_mpls(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	/* label 0x12345, TC 0, S 1, TTL 64 (TTL and S not in the mask) */
	static const struct rte_flow_item_mpls mpls = {
		.label_tc_s = { 0x12, 0x34, 0x51 },
		.ttl = 64,
	};
	const struct rte_flow_item pattern_udp[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_MPLS, .spec = &mpls },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item pattern_gre[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV6 },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE },
		{ .type = RTE_FLOW_ITEM_TYPE_MPLS, .spec = &mpls },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const uint8_t lv[4] = { 0x12, 0x34, 0x50, 0x00 };
	const uint8_t lm[4] = { 0xff, 0xff, 0xf0, 0x00 };
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip, ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4);
	SPEC(udp, ibv_flow_spec_tcp_udp, IBV_FLOW_SPEC_UDP);
	SPEC(m, ibv_flow_spec_mpls, IBV_FLOW_SPEC_MPLS);
	SPEC(iip, ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER);
	SPEC(ip6, ibv_flow_spec_ipv6, IBV_FLOW_SPEC_IPV6);
	SPEC(gre, ibv_flow_spec_gre, IBV_FLOW_SPEC_GRE);
	udp.val.dst_port = htons(6635);
	udp.mask.dst_port = 0xffff;
	memcpy(&m.val.label, lv, 4);
	memcpy(&m.mask.label, lm, 4);
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &udp, sizeof(udp));
	xb_add(&x, &m, sizeof(m));
	xb_add(&x, &iip, sizeof(iip));
	xb_attr(&x, 0, 0);
	XLATE_OK(&c, &attr_in, pattern_udp, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "MPLSoUDP bytes");

	ip6.val.next_hdr = 47;
	ip6.mask.next_hdr = 0xff;
	gre.val.protocol = htons(0x8847);
	gre.mask.protocol = 0xffff;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip6, sizeof(ip6));
	xb_add(&x, &gre, sizeof(gre));
	xb_add(&x, &m, sizeof(m));
	xb_attr(&x, 0, 0);
	XLATE_OK(&c, &attr_in, pattern_gre, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "MPLSoGRE bytes");
	return VT_OK;
}

/* ESP: SPI; IP protocol 50 implied (so IPV4_EXT). */
static int
test_esp(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_item_esp esp = {
		.hdr = { .spi = RTE_BE32(0x1000), .seq = RTE_BE32(7) },
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_ESP, .spec = &esp },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip, ibv_flow_spec_ipv4_ext, IBV_FLOW_SPEC_IPV4_EXT);
	SPEC(e, ibv_flow_spec_esp, IBV_FLOW_SPEC_ESP);
	ip.val.proto = 50;
	ip.mask.proto = 0xff;
	e.val.spi = htonl(0x1000);
	e.mask.spi = 0xffffffff;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &e, sizeof(e));
	xb_attr(&x, 0, 0);
	XLATE_OK(&c, &attr_in, pattern, act_queue0);
	VT_CHECK(rule_is(&plan.rules[0], &x), "ESP bytes");
	return VT_OK;
}

static const struct rte_flow_item eth_only[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};

/* MARK / FLAG / COUNT / DROP / INDIRECT specs, in action order. */
static int
test_action_specs(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_action_mark mark = { .id = 5 };
	static const struct rte_flow_action_count count = { .id = 7 };
	const struct rte_flow_action act_mark_count[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_MARK, .conf = &mark },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue0 },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT, .conf = &count },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_flag[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue0 },
		{ .type = RTE_FLOW_ACTION_TYPE_FLAG },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_count_drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action_handle *handle =
		(const struct rte_flow_action_handle *)(uintptr_t)0x1000;
	const struct rte_flow_action act_indirect[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_INDIRECT, .conf = handle },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(tag, ibv_flow_spec_action_tag, IBV_FLOW_SPEC_ACTION_TAG);
	SPEC(cnt, ibv_flow_spec_counter_action, IBV_FLOW_SPEC_ACTION_COUNT);
	SPEC(drop, ibv_flow_spec_action_drop, IBV_FLOW_SPEC_ACTION_DROP);

	tag.tag_id = 6; /* id + 1, host order */
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &tag, sizeof(tag));
	xb_add(&x, &cnt, sizeof(cnt));
	xb_attr(&x, 2, 0);
	XLATE_OK(&c, &attr_in, eth_only, act_mark_count);
	VT_CHECK(rule_is(&plan.rules[0], &x), "ETH + TAG + COUNT bytes");
	VT_CHECK_EQ(plan.rules[0].count_off, 20 + 40 + 12, "COUNT offset");
	VT_CHECK(plan.mark && plan.mark_id == 5 && !plan.flag, "mark");
	VT_CHECK(plan.count && plan.count_id == 7, "count id");
	VT_CHECK(plan.count_handle == NULL, "no handle");

	tag.tag_id = 0xffffff;
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &tag, sizeof(tag));
	xb_attr(&x, 2, 0);
	XLATE_OK(&c, &attr_in, eth_only, act_flag);
	VT_CHECK(rule_is(&plan.rules[0], &x), "FLAG tag 0xffffff");
	VT_CHECK(plan.flag && !plan.mark, "flag");

	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &cnt, sizeof(cnt));
	xb_add(&x, &drop, sizeof(drop));
	xb_attr(&x, 2, 0);
	XLATE_OK(&c, &attr_in, eth_only, act_count_drop);
	VT_CHECK(rule_is(&plan.rules[0], &x), "COUNT + DROP bytes");
	VT_CHECK_EQ(plan.fate, VSTEER_FATE_DROP, "drop fate");
	VT_CHECK(plan.count && plan.count_id == 0, "COUNT without conf: id 0");
	VT_CHECK_EQ(plan.rules[0].count_off, 60, "COUNT offset");

	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &drop, sizeof(drop));
	xb_add(&x, &cnt, sizeof(cnt));
	xb_attr(&x, 2, 0);
	XLATE_OK(&c, &attr_in, eth_only, act_indirect);
	VT_CHECK(rule_is(&plan.rules[0], &x), "DROP + indirect COUNT bytes");
	VT_CHECK(plan.count_handle == handle && !plan.count, "handle kept");
	VT_CHECK_EQ(plan.rules[0].count_off, 68, "COUNT offset");
	return VT_OK;
}

/*
 * AGE: the flow ages on its own counter, one COUNT spec whether or not the
 * rule counts too; the plan carries the timeout and context.
 */
static int
test_age_specs(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static int ctx_obj;
	static const struct rte_flow_action_age age = { .timeout = 10,
							.context = &ctx_obj };
	static const struct rte_flow_action_age age0 = { .timeout = 0 };
	const struct rte_flow_action act_age[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue0 },
		{ .type = RTE_FLOW_ACTION_TYPE_AGE, .conf = &age },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_age_count[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_AGE, .conf = &age },
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action_handle *handle =
		(const struct rte_flow_action_handle *)(uintptr_t)0x1000;
	struct rte_flow_action act[4];
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(cnt, ibv_flow_spec_counter_action, IBV_FLOW_SPEC_ACTION_COUNT);
	SPEC(drop, ibv_flow_spec_action_drop, IBV_FLOW_SPEC_ACTION_DROP);

	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &cnt, sizeof(cnt));
	xb_attr(&x, 2, 0);
	XLATE_OK(&c, &attr_in, eth_only, act_age);
	VT_CHECK(rule_is(&plan.rules[0], &x), "AGE alone: a COUNT spec");
	VT_CHECK(plan.age && plan.age_timeout == 10 &&
			 plan.age_context == &ctx_obj,
		 "age in the plan");
	VT_CHECK(plan.count, "AGE makes the flow's own counter");
	VT_CHECK_EQ(plan.rules[0].count_off, 60, "COUNT offset");

	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &cnt, sizeof(cnt));
	xb_add(&x, &drop, sizeof(drop));
	xb_attr(&x, 2, 0);
	XLATE_OK(&c, &attr_in, eth_only, act_age_count);
	VT_CHECK(rule_is(&plan.rules[0], &x), "AGE + COUNT: one COUNT spec");
	VT_CHECK(plan.age && plan.count, "age and count");

	memcpy(act, act_age, sizeof(act_age));
	act[1].conf = &age0;
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[1], "timeout 0");
	act[1].conf = NULL;
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[1],
		   "no configuration");
	act[1].conf = &age;
	act[2] = act[1];
	act[3] = (struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_END };
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[2], "only one AGE");
	act[2] =
		(struct rte_flow_action){ .type = RTE_FLOW_ACTION_TYPE_INDIRECT,
					  .conf = handle };
	EXPECT_ERR(&c, &attr_in, eth_only, act, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[1], "indirect COUNT");
	/* No counters on the device: verbs cannot age. */
	c.count_ok = false;
	EXPECT_LIMIT(
		&c, &attr_in, eth_only, act_age, RTE_FLOW_ERROR_TYPE_ACTION,
		&act_age[1],
		"AGE action: verbs cannot take it: the device has no flow counters");
	return VT_OK;
}

/* PASSTHRU: DONT_TRAP, no action spec of its own. */
static int
test_passthru(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_PASSTHRU },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct xbuf x;

	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(cnt, ibv_flow_spec_counter_action, IBV_FLOW_SPEC_ACTION_COUNT);
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &cnt, sizeof(cnt));
	xb_attr(&x, 2, IBV_FLOW_ATTR_FLAGS_DONT_TRAP);
	XLATE_OK(&c, &attr_in, eth_only, act);
	VT_CHECK(rule_is(&plan.rules[0], &x), "PASSTHRU bytes");
	VT_CHECK_EQ(plan.fate, VSTEER_FATE_PASSTHRU, "fate");
	return VT_OK;
}

/* Egress: EGRESS flag, DROP and COUNT only. */
static int
test_egress(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	const struct rte_flow_attr eg = { .egress = 1 };
	const struct rte_flow_action act_drop[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_count[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_mark[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_FLAG },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action act_void[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_VOID },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct xbuf x;

	EXPECT_LIMIT(
		&c, &eg, eth_only, act_drop, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS,
		&eg,
		"attribute egress: verbs cannot take it: the device takes no egress rules");
	c.egress_ok = true;
	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(drop, ibv_flow_spec_action_drop, IBV_FLOW_SPEC_ACTION_DROP);
	SPEC(cnt, ibv_flow_spec_counter_action, IBV_FLOW_SPEC_ACTION_COUNT);
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &drop, sizeof(drop));
	xb_attr(&x, 2, IBV_FLOW_ATTR_FLAGS_EGRESS);
	XLATE_OK(&c, &eg, eth_only, act_drop);
	VT_CHECK(rule_is(&plan.rules[0], &x), "egress DROP bytes");
	VT_CHECK(plan.egress && !plan.ingress, "egress plan");

	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &cnt, sizeof(cnt));
	xb_attr(&x, 2, IBV_FLOW_ATTR_FLAGS_EGRESS);
	XLATE_OK(&c, &eg, eth_only, act_count);
	VT_CHECK(rule_is(&plan.rules[0], &x), "egress COUNT bytes");
	VT_CHECK_EQ(plan.fate, VSTEER_FATE_NONE, "count-only egress: sent");

	EXPECT_ERR(&c, &eg, eth_only, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act_queue0[0], "egress");
	EXPECT_ERR(&c, &eg, eth_only, act_mark, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act_mark[1], "FLAG");
	EXPECT_ERR(&c, &eg, eth_only, act_void, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act_void[1], "DROP, COUNT");
	return VT_OK;
}

/* Levels, reserved level, verbs priorities. */
static int
test_priorities(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	struct rte_flow_attr a = { .ingress = 1, .priority = 3 };

	VT_CHECK_EQ(vsteer_flow_user_levels(&c), 4, "16 verbs prios");
	c.max_verbs_prio = 7;
	VT_CHECK_EQ(vsteer_flow_user_levels(&c), 1, "8 verbs prios");
	c.max_verbs_prio = 2;
	VT_CHECK_EQ(vsteer_flow_user_levels(&c), 0, "3 verbs prios");
	c.max_verbs_prio = 15;
	VT_CHECK_EQ(vsteer_flow_verbs_prio(&c, 0, VSTEER_SUBPRIO_L4), 0, "0");
	VT_CHECK_EQ(vsteer_flow_verbs_prio(&c, 2, VSTEER_SUBPRIO_L3), 7, "7");
	VT_CHECK_EQ(vsteer_flow_verbs_prio(&c, 4, VSTEER_SUBPRIO_L2), 14, "14");

	XLATE_OK(&c, &a, eth_only, act_queue0);
	VT_CHECK_EQ(plan.rules[0].attr.priority, 11, "rte 3, L2");
	VT_CHECK_EQ(plan.rte_priority, 3, "plan priority");
	a.priority = 4;
	EXPECT_ERR(&c, &a, eth_only, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, &a, "4 levels");
	/* The driver's default flows own level 4. */
	c.internal = true;
	XLATE_OK(&c, &a, eth_only, act_queue0);
	VT_CHECK_EQ(plan.rules[0].attr.priority, 14, "default flow level");
	a.priority = 5;
	EXPECT_ERR(&c, &a, eth_only, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, &a, "out of range");
	c.internal = false;
	c.max_verbs_prio = 7;
	a.priority = 1;
	EXPECT_ERR(&c, &a, eth_only, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, &a, "0 to 0");
	return VT_OK;
}

/* last equal to spec under the mask is no range; anything else is. */
static int
test_last(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_item_udp spec = {
		.hdr = { .dst_port = RTE_BE16(53), .dgram_len = RTE_BE16(1) },
	};
	static const struct rte_flow_item_udp same = {
		.hdr = { .dst_port = RTE_BE16(53), .dgram_len = RTE_BE16(99) },
	};
	static const struct rte_flow_item_udp range = {
		.hdr = { .dst_port = RTE_BE16(60) },
	};
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &spec, .last = &same },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};

	XLATE_OK(&c, &attr_in, pattern, act_queue0);
	VT_CHECK_EQ(plan.n_rules, 1, "accepted");
	pattern[2].last = &range;
	EXPECT_LIMIT(&c, &attr_in, pattern, act_queue0,
		     RTE_FLOW_ERROR_TYPE_ITEM_LAST, &pattern[2],
		     "UDP item: dst_port: verbs cannot match a range (last)");
	return VT_OK;
}

/* Find the rule of an expansion with the given hash fields. */
static const struct vsteer_verbs_rule *
rule_by_hash(uint64_t h)
{
	unsigned int i;

	for (i = 0; i < plan.n_rules; i++)
		if (plan.rules[i].hash_fields == h)
			return &plan.rules[i];
	return NULL;
}

#define H4 (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)
#define H6 (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6)
#define HT (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)
#define HU (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)

/* eth + RSS IP|UDP|TCP: seven rules, L4 first, each hashing its own. */
static int
test_rss_expand_eth(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const uint16_t queues[] = { 0, 1, 2, 3 };
	const struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP,
		.queue_num = RTE_DIM(queues),
		.queue = queues,
	};
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_attr a = { .ingress = 1, .priority = 1 };
	static const struct {
		uint64_t hash;
		enum vsteer_subprio sub;
	} want[] = {
		{ H4 | HU, VSTEER_SUBPRIO_L4 }, { H4 | HT, VSTEER_SUBPRIO_L4 },
		{ H6 | HU, VSTEER_SUBPRIO_L4 }, { H6 | HT, VSTEER_SUBPRIO_L4 },
		{ H4, VSTEER_SUBPRIO_L3 },	{ H6, VSTEER_SUBPRIO_L3 },
		{ 0, VSTEER_SUBPRIO_L2 },
	};
	const struct vsteer_verbs_rule *r;
	unsigned int i;
	struct xbuf x;

	XLATE_OK(&c, &a, eth_only, act);
	VT_CHECK_EQ(plan.n_rules, RTE_DIM(want), "7 rules");
	VT_CHECK_EQ(plan.fate, VSTEER_FATE_RSS, "fate");
	VT_CHECK_EQ(plan.queue_num, 4, "queues");
	VT_CHECK(plan.queues[3] == 3, "queue list");
	for (i = 0; i < RTE_DIM(want); i++) {
		r = rule_by_hash(want[i].hash);
		VT_CHECK(r != NULL, "rule with hash 0x%llx",
			 (unsigned long long)want[i].hash);
		VT_CHECK_EQ(r->subprio, want[i].sub, "subprio of 0x%llx",
			    (unsigned long long)want[i].hash);
		VT_CHECK_EQ(r->attr.priority, 3 + want[i].sub, "verbs prio");
	}
	for (i = 1; i < plan.n_rules; i++)
		VT_CHECK(plan.rules[i - 1].subprio <= plan.rules[i].subprio,
			 "L4 rules before L3 before L2");

	/* Bytes of two of them: ETH + empty IPv4 + empty UDP, ETH + IPv6. */
	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip4, ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4);
	SPEC(ip6, ibv_flow_spec_ipv6, IBV_FLOW_SPEC_IPV6);
	SPEC(udp, ibv_flow_spec_tcp_udp, IBV_FLOW_SPEC_UDP);
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip4, sizeof(ip4));
	xb_add(&x, &udp, sizeof(udp));
	xb_attr(&x, 3, 0);
	VT_CHECK(rule_is(rule_by_hash(H4 | HU), &x), "eth/ipv4/udp bytes");
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip6, sizeof(ip6));
	xb_attr(&x, 4, 0);
	VT_CHECK(rule_is(rule_by_hash(H6), &x), "eth/ipv6 bytes");
	return VT_OK;
}

/*
 * An RSS action that may change under the rule (an indirect one): one
 * device rule for every type the device hashes, each hashing what the
 * action's types say now (TCP, not a type: the first queue), so that a
 * new types list only changes hash fields.
 */
static int
test_rss_expand_shared(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const uint16_t queues[] = { 1, 3 };
	struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP,
		.queue_num = RTE_DIM(queues),
		.queue = queues,
	};
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	unsigned int i, tcp = 0;

	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.n_rules, 2, "ipv4 and ipv4/udp, as asked");
	c.rss_shared = true;
	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.n_rules, 3, "ipv4, ipv4/udp and ipv4/tcp");
	VT_CHECK(rule_by_hash(H4 | HU) != NULL, "udp rule hashes the ports");
	for (i = 0; i < plan.n_rules; i++) {
		VT_CHECK(plan.rules[i].hash_fields == 0 ||
				 plan.rules[i].hash_fields == (H4 | HU),
			 "rule %u hashes 0x%" PRIx64, i,
			 plan.rules[i].hash_fields);
		tcp += plan.var[i].l4p == IPPROTO_TCP;
	}
	VT_CHECK_EQ(tcp, 1, "one TCP rule, not hashed");
	VT_CHECK_EQ(vsteer_flow_rss_fields(RTE_ETH_RSS_IPV4, 4, IPPROTO_TCP,
					   false),
		    H4, "its fields once the types say IPv4");
	return VT_OK;
}

/* Expansion from L3, limited by the user's protocol; none from L4. */
static int
test_rss_expand_l3(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const uint16_t queues[] = { 1, 3 };
	struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_UDP,
		.queue_num = RTE_DIM(queues),
		.queue = queues,
	};
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	static const struct rte_flow_item_ipv4 udp_only = {
		.hdr.next_proto_id = 17,
	};
	static const struct rte_flow_item_ipv4 proto_mask = {
		.hdr.next_proto_id = 0xff,
	};
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct vsteer_verbs_rule *r;

	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.n_rules, 2, "ipv4 and ipv4/udp");
	r = rule_by_hash(H4 | HU);
	VT_CHECK(r != NULL && r->subprio == VSTEER_SUBPRIO_L4, "udp rule");
	VT_CHECK(r == &plan.rules[0], "L4 first");
	r = rule_by_hash(H4);
	VT_CHECK(r != NULL && r->subprio == VSTEER_SUBPRIO_L3, "ipv4 rule");

	/* IPv4 protocol 17: a TCP type adds no rule. */
	rss.types = RTE_ETH_RSS_NONFRAG_IPV4_TCP;
	pattern[1].spec = &udp_only;
	pattern[1].mask = &proto_mask;
	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.n_rules, 1, "no TCP under protocol 17");
	VT_CHECK_EQ(plan.rules[0].hash_fields, 0, "TCP type: IPv4 not hashed");

	/* Down to L4: never expanded, the pattern's own hash. */
	rss.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP;
	pattern[1].spec = NULL;
	pattern[1].mask = NULL;
	pattern[2].type = RTE_FLOW_ITEM_TYPE_UDP;
	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.n_rules, 1, "one rule");
	VT_CHECK_EQ(plan.rules[0].hash_fields, H4 | HU, "ipv4 + udp ports");

	/* Source-only / destination-only modifiers. */
	rss.types = RTE_ETH_RSS_NONFRAG_IPV4_UDP | RTE_ETH_RSS_L3_SRC_ONLY |
		    RTE_ETH_RSS_L4_DST_ONLY;
	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.rules[0].hash_fields,
		    IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_PORT_UDP,
		    "src ip, dst port");

	/* ETH type IPv6: only IPv6 rules are added. */
	{
		static const struct rte_flow_item_eth e6 = {
			.type = RTE_BE16(0x86dd),
		};
		static const struct rte_flow_item_eth e6m = {
			.type = RTE_BE16(0xffff),
		};
		const struct rte_flow_item p6[] = {
			{ .type = RTE_FLOW_ITEM_TYPE_ETH,
			  .spec = &e6,
			  .mask = &e6m },
			{ .type = RTE_FLOW_ITEM_TYPE_END },
		};

		rss.types = RTE_ETH_RSS_IP;
		XLATE_OK(&c, &attr_in, p6, act);
		VT_CHECK_EQ(plan.n_rules, 2, "eth and eth/ipv6");
		VT_CHECK(rule_by_hash(H6) != NULL, "ipv6 rule");
		VT_CHECK(rule_by_hash(H4) == NULL, "no ipv4 rule");
	}

	/* Types 0: the port's default types. */
	rss.types = 0;
	c.rss_hf_default = RTE_ETH_RSS_NONFRAG_IPV4_UDP;
	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.rss_types, RTE_ETH_RSS_NONFRAG_IPV4_UDP, "default");
	VT_CHECK_EQ(plan.rules[0].hash_fields, H4 | HU, "default types hash");

	/* Key: default with key_len 0, the user's with 40. */
	VT_CHECK(memcmp(plan.rss_key, test_key, 40) == 0, "default key");
	{
		static const uint8_t k[40] = { 0xaa, [39] = 0x55 };

		rss.key = k;
		rss.key_len = 40;
		XLATE_OK(&c, &attr_in, pattern, act);
		VT_CHECK(memcmp(plan.rss_key, k, 40) == 0, "user key");
	}
	/* Weighted table: repeated queues are kept in order. */
	{
		static const uint16_t rep[] = { 2, 2, 5 };

		rss.queue = rep;
		rss.queue_num = 3;
		XLATE_OK(&c, &attr_in, pattern, act);
		VT_CHECK(plan.queue_num == 3 && plan.queues[0] == 2 &&
				 plan.queues[1] == 2 && plan.queues[2] == 5,
			 "queues");
	}
	/* ESP: the SPI joins the addresses; ESP counts as L4. */
	{
		const struct rte_flow_item pe[] = {
			{ .type = RTE_FLOW_ITEM_TYPE_ETH },
			{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
			{ .type = RTE_FLOW_ITEM_TYPE_ESP },
			{ .type = RTE_FLOW_ITEM_TYPE_END },
		};

		rss.types = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_ESP;
		XLATE_OK(&c, &attr_in, pe, act);
		VT_CHECK_EQ(plan.n_rules, 1, "no expansion above ESP");
		VT_CHECK_EQ(plan.rules[0].hash_fields,
			    H4 | IBV_RX_HASH_IPSEC_SPI, "addresses + SPI");
		VT_CHECK_EQ(plan.rules[0].subprio, VSTEER_SUBPRIO_L4, "L4");
	}
	return VT_OK;
}

/* Inner RSS (level 2) over VXLAN; outer RSS (level 1) on a tunnel. */
static int
test_rss_inner(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const uint16_t queues[] = { 0, 1 };
	struct rte_flow_action_rss rss = {
		.level = 2,
		.types = RTE_ETH_RSS_IP,
		.queue_num = RTE_DIM(queues),
		.queue = queues,
	};
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN, .spec = &vxlan_vni },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct vsteer_verbs_rule *r;
	struct xbuf x;

	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.n_rules, 3, "tunnel, inner ipv4, inner ipv6");
	r = rule_by_hash(H4 | IBV_RX_HASH_INNER);
	VT_CHECK(r != NULL && r->subprio == VSTEER_SUBPRIO_L3, "inner ipv4");
	VT_CHECK(rule_by_hash(H6 | IBV_RX_HASH_INNER) != NULL, "inner ipv6");
	VT_CHECK(rule_by_hash(0) != NULL &&
			 rule_by_hash(0)->subprio == VSTEER_SUBPRIO_L2,
		 "inner RSS: the bare tunnel rule is L2");
	SPEC(eth, ibv_flow_spec_eth, IBV_FLOW_SPEC_ETH);
	SPEC(ip, ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4);
	SPEC(udp, ibv_flow_spec_tcp_udp, IBV_FLOW_SPEC_UDP);
	SPEC(vx, ibv_flow_spec_tunnel, IBV_FLOW_SPEC_VXLAN_TUNNEL);
	SPEC(iip, ibv_flow_spec_ipv4, IBV_FLOW_SPEC_IPV4 | IBV_FLOW_SPEC_INNER);
	udp.val.dst_port = htons(4789);
	udp.mask.dst_port = 0xffff;
	vx.val.tunnel_id = htonl(0x123456);
	vx.mask.tunnel_id = htonl(0xffffff);
	xb_init(&x);
	xb_add(&x, &eth, sizeof(eth));
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &udp, sizeof(udp));
	xb_add(&x, &vx, sizeof(vx));
	xb_add(&x, &iip, sizeof(iip));
	xb_attr(&x, 1, 0);
	VT_CHECK(rule_is(r, &x), "inner IPv4 rule bytes");

	/* Level 1 on a tunnel: outer hash, no expansion, L4. */
	rss.level = 1;
	rss.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP;
	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.n_rules, 1, "one rule");
	VT_CHECK_EQ(plan.rules[0].hash_fields, H4 | HU, "outer 4-tuple");
	VT_CHECK_EQ(plan.rules[0].subprio, VSTEER_SUBPRIO_L4, "tunnel L4");

	/* Level 2: device support and a tunnel are needed. */
	rss.level = 2;
	c.inner_rss_ok = false;
	EXPECT_ERR(&c, &attr_in, pattern, act, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "inner");
	c.inner_rss_ok = true;
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "tunnel");
	rss.level = 3;
	EXPECT_ERR(&c, &attr_in, pattern, act, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "level 3");
	return VT_OK;
}

/* Inner RSS over GRE: the added inner L3 also fixes the GRE protocol. */
static int
test_rss_inner_gre(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const uint16_t queues[] = { 0, 1 };
	const struct rte_flow_action_rss rss = {
		.level = 2,
		.types = RTE_ETH_RSS_IPV6,
		.queue_num = RTE_DIM(queues),
		.queue = queues,
	};
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_GRE },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct xbuf x;

	XLATE_OK(&c, &attr_in, pattern, act);
	VT_CHECK_EQ(plan.n_rules, 2, "GRE and GRE/ipv6");
	SPEC(ip, ibv_flow_spec_ipv4_ext, IBV_FLOW_SPEC_IPV4_EXT);
	SPEC(gre, ibv_flow_spec_gre, IBV_FLOW_SPEC_GRE);
	SPEC(ip6, ibv_flow_spec_ipv6, IBV_FLOW_SPEC_IPV6 | IBV_FLOW_SPEC_INNER);
	ip.val.proto = 47;
	ip.mask.proto = 0xff;
	gre.val.protocol = htons(0x86dd);
	gre.mask.protocol = 0xffff;
	xb_init(&x);
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &gre, sizeof(gre));
	xb_add(&x, &ip6, sizeof(ip6));
	xb_attr(&x, 1, 0);
	VT_CHECK(rule_is(rule_by_hash(H6 | IBV_RX_HASH_INNER), &x),
		 "IPv4/GRE/inner IPv6 bytes");
	memset(&gre.val, 0, sizeof(gre.val));
	memset(&gre.mask, 0, sizeof(gre.mask));
	xb_init(&x);
	xb_add(&x, &ip, sizeof(ip));
	xb_add(&x, &gre, sizeof(gre));
	xb_attr(&x, 2, 0);
	VT_CHECK(rule_is(rule_by_hash(0), &x), "bare GRE rule bytes");
	return VT_OK;
}

/* Attribute errors. */
static int
test_err_attr(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	struct rte_flow_attr a = { .ingress = 1, .group = 1 };

	EXPECT_ERR(&c, &a, eth_only, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ATTR_GROUP, &a, "group");
	a.group = 0;
	a.transfer = 1;
	EXPECT_ERR(&c, &a, eth_only, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, &a, "transfer");
	a.transfer = 0;
	a.ingress = 0;
	EXPECT_ERR(&c, &a, eth_only, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ATTR_INGRESS, &a, "ingress or egress");
	a.ingress = 1;
	a.egress = 1;
	EXPECT_ERR(&c, &a, eth_only, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ATTR, &a, "exclusive");
	EXPECT_ERR(&c, NULL, eth_only, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ATTR, NULL, "attributes");
	EXPECT_ERR(&c, &attr_in, NULL, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL, "pattern");
	return VT_OK;
}

/* Fate, queue, RSS, MARK, COUNT errors: cause is the offending action. */
static int
test_err_actions(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_action_queue q9 = { .index = 8 };
	static const struct rte_flow_action_mark m_big = { .id = 0xfffff0 };
	static const struct rte_flow_action_mark m1 = { .id = 1 };
	static const uint16_t qs[] = { 0, 9 };
	struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_IP,
		.queue_num = 1,
		.queue = qs,
	};
	struct rte_flow_action act[4] = {
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};

#define ACTS(t0, c0, t1, c1, t2, c2)                                         \
	do {                                                                 \
		act[0] = (struct rte_flow_action){ .type = t0, .conf = c0 }; \
		act[1] = (struct rte_flow_action){ .type = t1, .conf = c1 }; \
		act[2] = (struct rte_flow_action){ .type = t2, .conf = c2 }; \
		act[3] = (struct rte_flow_action){                           \
			.type = RTE_FLOW_ACTION_TYPE_END                     \
		};                                                           \
	} while (0)
#define A(x) RTE_FLOW_ACTION_TYPE_##x
	ACTS(A(QUEUE), &queue0, A(DROP), NULL, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[1], "fate");
	ACTS(A(RSS), &rss, A(PASSTHRU), NULL, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[1], "fate");
	ACTS(A(MARK), &m1, A(COUNT), NULL, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[2], "no fate");
	ACTS(A(QUEUE), &q9, A(END), NULL, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "8 Rx queues");
	ACTS(A(QUEUE), NULL, A(END), NULL, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "configuration");

	ACTS(A(RSS), &rss, A(END), NULL, A(END), NULL);
	rss.queue_num = 0;
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "no queue");
	rss.queue_num = 2;
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0],
		   "queue[1] index 9");
	rss.queue_num = 1;
	rss.key_len = 20;
	rss.key = test_key;
	EXPECT_ERR(&c, &attr_in, eth_only, act, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "key length 20");
	rss.key_len = 40;
	rss.key = NULL;
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "no key");
	rss.key_len = 0;
	rss.func = RTE_ETH_HASH_FUNCTION_SIMPLE_XOR;
	EXPECT_ERR(&c, &attr_in, eth_only, act, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "Toeplitz");
	rss.func = RTE_ETH_HASH_FUNCTION_TOEPLITZ;
	rss.types = RTE_ETH_RSS_NONFRAG_IPV4_SCTP;
	EXPECT_ERR(&c, &attr_in, eth_only, act, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "types 0x40");
	rss.types = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_L3_SRC_ONLY |
		    RTE_ETH_RSS_L3_DST_ONLY;
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "exclusive");
	rss.types = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_L4_SRC_ONLY;
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "TCP or UDP");
	rss.types = RTE_ETH_RSS_IPV6;
	c.rss_hf_supported = RTE_ETH_RSS_IPV4;
	EXPECT_ERR(&c, &attr_in, eth_only, act, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[0], "by the device");
	c.rss_hf_supported = ALL_TYPES;

	ACTS(A(QUEUE), &queue0, A(MARK), &m_big, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[1], "0xfffff0");
	ACTS(A(QUEUE), &queue0, A(MARK), &m1, A(FLAG), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[2], "one MARK or FLAG");
	ACTS(A(MARK), &m1, A(QUEUE), &queue0, A(MARK), &m1);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[2], "one MARK or FLAG");
	ACTS(A(FLAG), NULL, A(DROP), NULL, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[1], "MARK or FLAG");
	ACTS(A(DROP), NULL, A(MARK), &m1, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[1], "DROP");
	ACTS(A(PASSTHRU), NULL, A(FLAG), NULL, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[1], "PASSTHRU");
	ACTS(A(QUEUE), &queue0, A(MARK), &m1, A(END), NULL);
	c.tag_ok = false;
	EXPECT_LIMIT(
		&c, &attr_in, eth_only, act, RTE_FLOW_ERROR_TYPE_ACTION,
		&act[1],
		"MARK action: verbs cannot take it: the device has no flow tags");
	c.tag_ok = true;
	ACTS(A(COUNT), NULL, A(QUEUE), &queue0, A(COUNT), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[2], "one COUNT");
	ACTS(A(COUNT), NULL, A(QUEUE), &queue0, A(INDIRECT), &m1);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[2], "one COUNT");
	ACTS(A(QUEUE), &queue0, A(INDIRECT), NULL, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ACTION_CONF, &act[1], "handle");
	ACTS(A(QUEUE), &queue0, A(COUNT), NULL, A(END), NULL);
	c.count_ok = false;
	EXPECT_LIMIT(
		&c, &attr_in, eth_only, act, RTE_FLOW_ERROR_TYPE_ACTION,
		&act[1],
		"COUNT action: verbs cannot take it: the device has no flow counters");
	c.count_ok = true;
	ACTS(A(QUEUE), &queue0, A(JUMP), NULL, A(END), NULL);
	EXPECT_ERR(&c, &attr_in, eth_only, act, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ACTION, &act[1], "not supported");
#undef A
#undef ACTS
	return VT_OK;
}

/* Item errors: unsupported, order, masks (naming the field), specs. */
static int
test_err_items(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	static const struct rte_flow_item_ipv4 frag_mask = {
		.hdr.fragment_offset = RTE_BE16(0x3fff),
	};
	static const struct rte_flow_item_ipv4 ttl_mask = {
		.hdr.time_to_live = 0xff,
	};
	static const struct rte_flow_item_ipv4 ip_any = { .hdr.ihl = 5 };
	static const struct rte_flow_item_ipv6 hop_mask = {
		.hdr.hop_limits = 0xff,
	};
	static const struct rte_flow_item_ipv6 ver_mask = {
		.hdr.vtc_flow = RTE_BE32(0xf0000000),
	};
	static const struct rte_flow_item_ipv6 ip6_any;
	static const struct rte_flow_item_tcp tcp_flags = {
		.hdr.tcp_flags = 0xff,
	};
	static const struct rte_flow_item_tcp tcp_any;
	static const struct rte_flow_item_gre gre_ck = {
		.c_rsvd0_ver = RTE_BE16(0xb000),
	};
	static const struct rte_flow_item_gre gre_any;
	static const struct rte_flow_item_esp esp_seq = {
		.hdr.seq = RTE_BE32(0xffffffff),
	};
	static const struct rte_flow_item_esp esp_any;
	static const struct rte_flow_item_vxlan vx_flags = { .flags = 0xff };
	static const struct rte_flow_item_mpls mpls_ttl = { .ttl = 0xff };
	static const struct rte_flow_item_mpls mpls_any;
	static const struct rte_flow_item_eth eth_has_vlan = { .has_vlan = 1 };
	static const struct rte_flow_item_eth eth_any;
	static const struct rte_flow_item_eth eth_v6 = {
		.type = RTE_BE16(0x86dd),
	};
	static const struct rte_flow_item_eth eth_vlan = {
		.type = RTE_BE16(0x8100),
	};
	static const struct rte_flow_item_eth eth_qinq = {
		.type = RTE_BE16(0x88a8),
	};
	static const struct rte_flow_item_eth type_mask = {
		.type = RTE_BE16(0xffff),
	};
	static const struct rte_flow_item_vlan vlan_empty;
	static const struct rte_flow_item_vlan vlan_100 = {
		.tci = RTE_BE16(100),
	};
	static const struct rte_flow_item_ipv4 ip_tcp = {
		.hdr.next_proto_id = 6,
	};
	static const struct rte_flow_item_ipv4 ip_gre = {
		.hdr.next_proto_id = 4,
	};
	static const struct rte_flow_item_ipv4 proto_mask = {
		.hdr.next_proto_id = 0xff,
	};
	static const struct rte_flow_item_gre gre_ip4 = {
		.protocol = RTE_BE16(0x0800),
	};
	struct rte_flow_item p[10];
	struct rte_flow_error e;
	unsigned int i;

#define I(x) RTE_FLOW_ITEM_TYPE_##x
#define SET(n, t, s, m) \
	p[n] = (struct rte_flow_item){ .type = I(t), .spec = s, .mask = m }
#define RESET()                                                          \
	do {                                                             \
		for (i = 0; i < RTE_DIM(p); i++)                         \
			p[i] = (struct rte_flow_item){ .type = I(END) }; \
	} while (0)

	RESET();
	SET(0, ETH, NULL, NULL);
	SET(1, ICMP, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ITEM, &p[1], "(ICMP) not supported");
	/* An impossible order is an invalid pattern, type ITEM. */
	RESET();
	SET(0, ETH, NULL, NULL);
	SET(1, TCP, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM, &p[1],
		   "TCP item cannot follow ETH item");
	RESET();
	SET(0, UDP, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM, &p[0], "start of pattern");
	RESET();
	SET(0, ETH, NULL, NULL);
	SET(1, VLAN, &vlan_100, NULL);
	SET(2, VLAN, &vlan_100, NULL);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM,
		     &p[2],
		     "VLAN item: a second VLAN item: verbs cannot express it");
	RESET();
	SET(0, ETH, NULL, NULL);
	SET(1, IPV4, NULL, NULL);
	SET(2, UDP, NULL, NULL);
	SET(3, VXLAN, NULL, NULL);
	SET(4, ETH, NULL, NULL);
	SET(5, IPV4, NULL, NULL);
	SET(6, UDP, NULL, NULL);
	SET(7, VXLAN, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ITEM, &p[7], "nested tunnels");
	RESET();
	SET(0, ETH, NULL, NULL);
	SET(1, IPV4, NULL, NULL);
	SET(2, GRE, NULL, NULL);
	SET(3, IPV4, NULL, NULL);
	SET(4, GRE, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ITEM, &p[4], "nested tunnels");

	/* A partial protocol mask under an L4 item: the kernel would
	 * refuse the rule at create time, so validate does. */
	{
		static const struct rte_flow_item_ipv4 proto6 = {
			.hdr.next_proto_id = IPPROTO_TCP
		};
		static const struct rte_flow_item_ipv4 proto_partial = {
			.hdr.next_proto_id = 0xdf
		};

		RESET();
		SET(0, ETH, NULL, NULL);
		SET(1, IPV4, &proto6, &proto_partial);
		SET(2, TCP, NULL, NULL);
		EXPECT_ERR(&c, &attr_in, p, act_queue0, ENOTSUP,
			   RTE_FLOW_ERROR_TYPE_ITEM_MASK, &p[2],
			   "partial mask 0xdf on the preceding IPv4 next_proto_id");
	}

	/* What verbs cannot match names the field, for the matcher to try. */
	RESET();
	SET(0, ETH, NULL, NULL);
	SET(1, IPV4, &ip_any, &frag_mask);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[1],
		     "IPv4 item: fragment_offset: verbs cannot match it");
	SET(1, IPV4, &ip_any, &ttl_mask);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[1], "IPv4 item: time_to_live: verbs cannot match it");
	SET(1, IPV6, &ip6_any, &hop_mask);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[1], "IPv6 item: hop_limits: verbs cannot match it");
	/* The version an IPv6 spec implies: a mask on it must say 6. */
	SET(1, IPV6, &ip6_any, &ver_mask);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM_SPEC, &p[1], "version 0 is not 6");
	SET(0, ETH, &eth_any, &eth_has_vlan);
	SET(1, END, NULL, NULL);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[0], "ETH item: has_vlan: verbs cannot match it");
	RESET();
	SET(0, ETH, NULL, NULL);
	SET(1, IPV4, NULL, NULL);
	SET(2, TCP, &tcp_any, &tcp_flags);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[2], "TCP item: tcp_flags: verbs cannot match it");
	SET(2, GRE, &gre_any, &gre_ck);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[2],
		     "GRE item: c_rsvd0_ver C bit: verbs cannot match it");
	SET(2, ESP, &esp_any, &esp_seq);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[2], "ESP item: seq: verbs cannot match it");
	SET(2, UDP, NULL, NULL);
	SET(3, VXLAN, &vxlan_vni, &vx_flags);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[3], "VXLAN item: flags: verbs cannot match it");
	SET(3, MPLS, &mpls_any, &mpls_ttl);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[3], "MPLS item: ttl: verbs cannot match it");
	/* ESP at all, on a kernel that refuses IBV_FLOW_SPEC_ESP. */
	SET(2, ESP, NULL, NULL);
	SET(3, END, NULL, NULL);
	c.verbs_esp_ok = false;
	EXPECT_LIMIT(
		&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM, &p[2],
		"ESP item: the ESP header: verbs cannot express it: the device refuses IBV_FLOW_SPEC_ESP");
	c.verbs_esp_ok = true;
	/* MPLS where the firmware has no MPLS parser (the default profile
	 * of FLEX_PARSER_PROFILE_ENABLE): refused whatever the engine, so
	 * not an engine limit, with the setting named. */
	SET(2, UDP, NULL, NULL);
	SET(3, MPLS, NULL, NULL);
	SET(4, END, NULL, NULL);
	c.mpls_ok = false;
	EXPECT_ERR(&c, &attr_in, p, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ITEM, &p[3],
		   "MPLS item: the device's firmware does not parse MPLS over GRE and UDP: set FLEX_PARSER_PROFILE_ENABLE=1");
	SET(2, GRE, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, ENOTSUP,
		   RTE_FLOW_ERROR_TYPE_ITEM, &p[3],
		   "FLEX_PARSER_PROFILE_ENABLE");
	c.mpls_ok = true;
	VT_CHECK_EQ(xlate(&c, &attr_in, p, act_queue0, &e), 0,
		    "MPLS over GRE with the parser: %s",
		    e.message != NULL ? e.message : "");

	/* mask or last without spec. */
	RESET();
	SET(0, ETH, NULL, &type_mask);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM, &p[0], "without spec");
	p[0].mask = NULL;
	p[0].last = &eth_v6;
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM, &p[0], "without spec");

	/* Values that contradict the next item. */
	RESET();
	SET(0, ETH, &eth_v6, &type_mask);
	SET(1, IPV4, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM_SPEC, &p[1], "0x86dd");
	RESET();
	SET(0, ETH, NULL, NULL);
	SET(1, IPV4, &ip_tcp, &proto_mask);
	SET(2, UDP, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM_SPEC, &p[2], "does not carry UDP");
	SET(1, IPV4, &ip_gre, &proto_mask);
	SET(2, GRE, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM_SPEC, &p[2], "does not carry GRE");
	SET(1, IPV4, NULL, NULL);
	SET(2, GRE, &gre_ip4, NULL);
	SET(3, IPV6, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM_SPEC, &p[3], "GRE protocol 0x0800");
	RESET();
	SET(0, ETH, &eth_vlan, &type_mask);
	SET(1, IPV4, NULL, NULL);
	EXPECT_ERR(&c, &attr_in, p, act_queue0, EINVAL,
		   RTE_FLOW_ERROR_TYPE_ITEM_SPEC, &p[1], "not IPv4");
	/* Tag shapes verbs cannot say. */
	SET(1, END, NULL, NULL);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
		     &p[0], "ETH item: type 0x8100 and no VLAN item");
	SET(0, ETH, &eth_qinq, &type_mask);
	SET(1, VLAN, &vlan_100, NULL);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
		     &p[0], "ETH item: type 0x88a8");
	SET(0, ETH, NULL, NULL);
	SET(1, VLAN, &vlan_empty, &vlan_empty);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[1], "VLAN item: tag presence alone");
	SET(1, VLAN, NULL, NULL);
	EXPECT_LIMIT(&c, &attr_in, p, act_queue0, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
		     &p[1], "VLAN item: tag presence alone");

	/* Too many spec bytes for the provider: cause is what overflowed. */
	RESET();
	SET(0, ETH, NULL, NULL);
	SET(1, IPV4, NULL, NULL);
	c.max_spec_bytes = 64; /* attr 20 + ETH 40 fit, IPv4 24 does not */
	EXPECT_ERR(&c, &attr_in, p, act_queue0, E2BIG, RTE_FLOW_ERROR_TYPE_ITEM,
		   &p[1], "64 bytes");
	{
		const struct rte_flow_action drop[] = {
			{ .type = RTE_FLOW_ACTION_TYPE_DROP },
			{ .type = RTE_FLOW_ACTION_TYPE_END },
		};

		SET(1, END, NULL, NULL);
		c.max_spec_bytes = 65; /* ETH fits, DROP (8) does not */
		EXPECT_ERR(&c, &attr_in, p, drop, E2BIG,
			   RTE_FLOW_ERROR_TYPE_ACTION, &drop[0], "65 bytes");
		c.max_spec_bytes = 68;
		XLATE_OK(&c, &attr_in, p, drop);
	}
#undef RESET
#undef SET
#undef I
	return VT_OK;
}

/* The dump decodes attr and specs by name, with hex. */
static int
test_dump(void)
{
	struct vsteer_xlate_ctx c = ctx_default();
	struct vsteer_verbs_rule bad;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	XLATE_OK(&c, &attr_in, seed_pattern, act_queue0);
	f = open_memstream(&out, &len);
	VT_CHECK(f != NULL, "memstream");
	vsteer_flow_verbs_dump(f, &plan.rules[0]);
	/* A broken rule must not be read past its size. */
	memcpy(&bad, &plan.rules[0], sizeof(bad));
	bad.attr.num_of_specs = 3;
	vsteer_flow_verbs_dump(f, &bad);
	bad.size = 10;
	vsteer_flow_verbs_dump(f, &bad);
	fclose(f);
	VT_CHECK(strstr(out,
			"type NORMAL size 84 priority 1 num_of_specs 2 port 1") !=
			 NULL,
		 "attr line: %s", out);
	VT_CHECK(strstr(out,
			"ETH (0x20) size 40: dst 66:11:22:33:44:55/ff:ff:ff:ff:ff:ff src 00:00:00:00:00:00/ff:ff:ff:ff:ff:ff") !=
			 NULL,
		 "ETH line: %s", out);
	VT_CHECK(strstr(out,
			"IPV4 (0x30) size 24: src 6.200.134.11/255.255.255.255 dst 0.0.0.0/0.0.0.0") !=
			 NULL,
		 "IPv4 line: %s", out);
	VT_CHECK(strstr(out, "20 00 00 00 28 00 66 11 22 33 44 55") != NULL,
		 "hex of the ETH spec: %s", out);
	VT_CHECK(strstr(out, "spec[2]: truncated") != NULL, "truncated: %s",
		 out);
	VT_CHECK(strstr(out, "too short") != NULL, "short: %s", out);
	free(out);
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_seed_example),
	VT_CASE(test_eth_masking_void),
	VT_CASE(test_empty_pattern),
	VT_CASE(test_vlan_folded),
	VT_CASE(test_ipv4_ext),
	VT_CASE(test_ipv6_udp),
	VT_CASE(test_ipv4_tcp),
	VT_CASE(test_vxlan_inner),
	VT_CASE(test_gre_key),
	VT_CASE(test_mpls),
	VT_CASE(test_esp),
	VT_CASE(test_action_specs),
	VT_CASE(test_age_specs),
	VT_CASE(test_passthru),
	VT_CASE(test_egress),
	VT_CASE(test_priorities),
	VT_CASE(test_last),
	VT_CASE(test_rss_expand_eth),
	VT_CASE(test_rss_expand_l3),
	VT_CASE(test_rss_expand_shared),
	VT_CASE(test_rss_inner),
	VT_CASE(test_rss_inner_gre),
	VT_CASE(test_err_attr),
	VT_CASE(test_err_actions),
	VT_CASE(test_err_items),
	VT_CASE(test_dump),
	{ 0 },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
