/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Packet actions in the translation (vsteer_flow_edit.c, through the
 * matcher engine's translator): the PRM header modify actions each
 * rewrite becomes, the reformat type and data of each decap and encap,
 * and every refusal with its errno, error type, cause and message.
 *
 * Expected modify actions are written as the PRM's two big-endian words
 * (type << 28 | field << 16 | offset << 8 | length, then the data), never
 * with the accessors the translator uses; expected encap headers byte by
 * byte.
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
#include "vsteer_flow_verbs.h"
#include "vt_test.h"

#define BE16(x) RTE_BE16(x)
#define BE32(x) RTE_BE32(x)
#define END_ITEM                               \
	{                                      \
		.type = RTE_FLOW_ITEM_TYPE_END \
	}
#define END_ACT                                  \
	{                                        \
		.type = RTE_FLOW_ACTION_TYPE_END \
	}
#define ITEM(t)                                \
	{                                      \
		.type = RTE_FLOW_ITEM_TYPE_##t \
	}
#define ITEM_S(t, s)                                      \
	{                                                 \
		.type = RTE_FLOW_ITEM_TYPE_##t, .spec = s \
	}
#define ACT(t, c)                                           \
	{                                                   \
		.type = RTE_FLOW_ACTION_TYPE_##t, .conf = c \
	}

/* The PRM words of one action. */
#define MOD(type, field, off, len, data)                           \
	{                                                          \
		(uint32_t)(type) << 28 | (uint32_t)(field) << 16 | \
			(off) << 8 | (len),                        \
			(data)                                     \
	}
#define SET 1
#define ADD 2

struct mod {
	uint32_t w0, w1;
};

static struct vsteer_flow_plan plan;
static struct vsteer_dv_match base;

static const struct rte_flow_attr in = { .ingress = 1 };
static const struct rte_flow_attr eg = { .egress = 1 };
static const struct rte_flow_action_queue q0 = { .index = 0 };

/* An mlx5 device: matchers, DevX, 16 modify actions, 128-byte headers. */
static struct vsteer_xlate_ctx
ctx(void)
{
	struct vsteer_xlate_ctx c;

	memset(&c, 0, sizeof(c));
	c.nb_rx_queues = 4;
	c.port_num = 1;
	c.max_verbs_prio = 15;
	c.tag_ok = c.count_ok = c.dv_ok = c.devx_ok = c.egress_ok = true;
	c.inner_rss_ok = c.mpls_ok = c.ihl_ok = c.ihl_inner_ok = true;
	c.rss_hf_supported = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP;
	c.rss_hf_default = RTE_ETH_RSS_IP;
	c.max_modify_rx = c.max_modify_tx = 16;
	c.max_encap = 128;
	return c;
}

static struct rte_flow_error err;

static int
dv(const struct vsteer_xlate_ctx *c, const struct rte_flow_attr *a,
   const struct rte_flow_item *p, const struct rte_flow_action *act)
{
	memset(&err, 0, sizeof(err));
	return vsteer_flow_dv_translate(c, a, p, act, &plan, &base, &err);
}

static int
dv_ok(const struct rte_flow_attr *a, const struct rte_flow_item *p,
      const struct rte_flow_action *act)
{
	struct vsteer_xlate_ctx c = ctx();

	return dv(&c, a, p, act);
}

/* The plan's modify actions are exactly want[]. */
static int
mods_are(const struct mod *want, unsigned int n)
{
	unsigned int i;

	VT_CHECK_EQ(plan.edit.n_mod, n, "modify actions");
	for (i = 0; i < n; i++) {
		const uint8_t *b = (const uint8_t *)&plan.edit.mod[i];
		uint32_t w0 = (uint32_t)b[0] << 24 | b[1] << 16 | b[2] << 8 |
			      b[3];
		uint32_t w1 = (uint32_t)b[4] << 24 | b[5] << 16 | b[6] << 8 |
			      b[7];

		VT_CHECK(w0 == want[i].w0 && w1 == want[i].w1,
			 "action %u: %08x %08x, want %08x %08x", i, w0, w1,
			 want[i].w0, want[i].w1);
	}
	return VT_OK;
}

/* A refusal: errno, type, cause and a word of the message. */
static int
refused(int ret, int code, enum rte_flow_error_type type, const void *cause,
	const char *word)
{
	VT_CHECK_EQ(ret, -code, "errno (%s)",
		    err.message ? err.message : "no message");
	VT_CHECK_EQ(rte_errno, code, "rte_errno");
	VT_CHECK_EQ(err.type, type, "error type (%s)", err.message);
	VT_CHECK(err.cause == cause, "cause %p, want %p (%s)", err.cause, cause,
		 err.message);
	VT_CHECK(err.message != NULL && strstr(err.message, word) != NULL,
		 "message \"%s\" lacks \"%s\"", err.message, word);
	return VT_OK;
}

#define REFUSED(ret, code, type, cause, word)                                \
	VT_CHECK(refused((ret), (code), RTE_FLOW_ERROR_TYPE_##type, (cause), \
			 (word)) == VT_OK,                                   \
		 "refusal")

/* --- rewrites --- */

static int
test_rewrite_ipv4_udp(void)
{
	const struct rte_flow_action_set_mac smac = { { 0x02, 0xaa, 0xbb, 0xcc,
							0xdd, 0xee } };
	const struct rte_flow_action_set_mac dmac = { { 0x02, 0x11, 0x22, 0x33,
							0x44, 0x55 } };
	const struct rte_flow_action_set_ipv4 src = { BE32(0x0a000001) };
	const struct rte_flow_action_set_ipv4 dst = { BE32(0xc6336401) };
	const struct rte_flow_action_set_tp sp = { BE16(1111) };
	const struct rte_flow_action_set_tp dp = { BE16(2222) };
	const struct rte_flow_action_set_ttl ttl = { 5 };
	const struct rte_flow_action_set_dscp dscp = { 46 };
	const struct rte_flow_item p[] = { ITEM(ETH), ITEM(IPV4), ITEM(UDP),
					   END_ITEM };
	const struct rte_flow_action a[] = {
		ACT(SET_MAC_SRC, &smac), ACT(SET_MAC_DST, &dmac),
		ACT(SET_IPV4_SRC, &src), ACT(SET_IPV4_DST, &dst),
		ACT(SET_TP_SRC, &sp),	 ACT(SET_TP_DST, &dp),
		ACT(SET_TTL, &ttl),	 ACT(SET_IPV4_DSCP, &dscp),
		ACT(QUEUE, &q0),	 END_ACT,
	};
	static const struct mod want[] = {
		MOD(SET, 0x01, 0, 0, 0x02aabbcc),
		MOD(SET, 0x02, 0, 16, 0xddee),
		MOD(SET, 0x04, 0, 0, 0x02112233),
		MOD(SET, 0x05, 0, 16, 0x4455),
		MOD(SET, 0x15, 0, 0, 0x0a000001),
		MOD(SET, 0x16, 0, 0, 0xc6336401),
		MOD(SET, 0x0b, 0, 16, 1111),
		MOD(SET, 0x0c, 0, 16, 2222),
		MOD(SET, 0x0a, 0, 8, 5),
		MOD(SET, 0x06, 0, 6, 46),
	};

	VT_CHECK_EQ(dv_ok(&in, p, a), 0, "%s", err.message);
	VT_CHECK(mods_are(want, RTE_DIM(want)) == VT_OK, "actions");
	VT_CHECK_EQ(plan.edit.reformat, VSTEER_REFORMAT_NONE, "no reformat");
	VT_CHECK_EQ(plan.fate, VSTEER_FATE_QUEUE, "fate");
	return VT_OK;
}

static int
test_rewrite_ipv6_tcp(void)
{
	const struct rte_flow_action_set_ipv6 src = {
		{ 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3 }
	};
	const struct rte_flow_action_set_tp dp = { BE16(80) };
	const struct rte_flow_action_set_dscp dscp = { 10 };
	const rte_be32_t inc = BE32(1000), dec = BE32(5);
	const struct rte_flow_item p[] = { ITEM(ETH), ITEM(IPV6), ITEM(TCP),
					   END_ITEM };
	const struct rte_flow_action a[] = {
		ACT(SET_IPV6_SRC, &src), ACT(SET_TP_DST, &dp),
		ACT(DEC_TTL, NULL),	 ACT(SET_IPV6_DSCP, &dscp),
		ACT(INC_TCP_SEQ, &inc),	 ACT(DEC_TCP_ACK, &dec),
		ACT(QUEUE, &q0),	 END_ACT,
	};
	static const struct mod want[] = {
		MOD(SET, 0x0d, 0, 0, 0x20010db8), MOD(SET, 0x0e, 0, 0, 1),
		MOD(SET, 0x0f, 0, 0, 2),	  MOD(SET, 0x10, 0, 0, 3),
		MOD(SET, 0x09, 0, 16, 80),	  MOD(ADD, 0x47, 0, 0, 0xff),
		MOD(SET, 0x06, 0, 6, 10),	  MOD(ADD, 0x59, 0, 0, 1000),
		MOD(ADD, 0x5b, 0, 0, 0xfffffffb),
	};

	VT_CHECK_EQ(dv_ok(&eg, p, a + 0), -ENOTSUP, "QUEUE on egress");
	VT_CHECK_EQ(dv_ok(&in, p, a), 0, "%s", err.message);
	VT_CHECK(mods_are(want, RTE_DIM(want)) == VT_OK, "actions");
	return VT_OK;
}

static int
test_modify_field(void)
{
	struct rte_flow_action_modify_field mf[3];
	const struct rte_flow_item p[] = { ITEM(ETH), ITEM(IPV4), ITEM(UDP),
					   END_ITEM };
	struct rte_flow_action a[] = {
		ACT(MODIFY_FIELD, &mf[0]),
		ACT(MODIFY_FIELD, &mf[1]),
		ACT(MODIFY_FIELD, &mf[2]),
		ACT(QUEUE, &q0),
		END_ACT,
	};
	static const struct mod want[] = {
		MOD(SET, 0x16, 0, 0, 0x0a000001),
		/* 16 bits after the first 8 of the MAC: bits 24..39. */
		MOD(SET, 0x04, 8, 16, 0x2233),
		MOD(ADD, 0x0a, 0, 0, 0x40),
	};
	uint8_t mac[6] = { 0x02, 0x22, 0x33, 0x44, 0x55, 0x66 };

	memset(mf, 0, sizeof(mf));
	mf[0].operation = RTE_FLOW_MODIFY_SET;
	mf[0].dst.field = RTE_FLOW_FIELD_IPV4_DST;
	mf[0].src.field = RTE_FLOW_FIELD_VALUE;
	memcpy(mf[0].src.value, "\x0a\x00\x00\x01", 4);
	mf[0].width = 32;
	mf[1].operation = RTE_FLOW_MODIFY_SET;
	mf[1].dst.field = RTE_FLOW_FIELD_MAC_DST;
	mf[1].dst.offset = 8;
	mf[1].src.field = RTE_FLOW_FIELD_POINTER;
	mf[1].src.pvalue = mac;
	mf[1].width = 16;
	mf[2].operation = RTE_FLOW_MODIFY_ADD;
	mf[2].dst.field = RTE_FLOW_FIELD_IPV4_TTL;
	mf[2].src.field = RTE_FLOW_FIELD_VALUE;
	mf[2].src.value[0] = 0x40;
	mf[2].width = 8;
	VT_CHECK_EQ(dv_ok(&in, p, a), 0, "%s", err.message);
	VT_CHECK(mods_are(want, RTE_DIM(want)) == VT_OK, "actions");

	/* What the root table does not take. */
	a[1].type = RTE_FLOW_ACTION_TYPE_END;
	mf[0].src.field = RTE_FLOW_FIELD_IPV4_SRC;
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION_CONF, &a[0], "copy");
	mf[0].src.field = RTE_FLOW_FIELD_VALUE;
	mf[0].operation = RTE_FLOW_MODIFY_SUB;
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION_CONF, &a[0], "set or add");
	mf[0].operation = RTE_FLOW_MODIFY_ADD;
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION_CONF, &a[0],
		"adds to a whole TTL");
	mf[0].operation = RTE_FLOW_MODIFY_SET;
	mf[0].width = 0;
	REFUSED(dv_ok(&in, p, a), EINVAL, ACTION_CONF, &a[0], "width 0");
	mf[0].width = 33;
	REFUSED(dv_ok(&in, p, a), EINVAL, ACTION_CONF, &a[0], "do not fit");
	mf[0].width = 16;
	mf[0].dst.offset = 17;
	REFUSED(dv_ok(&in, p, a), EINVAL, ACTION_CONF, &a[0], "do not fit");
	mf[0].dst.offset = 0;
	mf[0].dst.level = 2;
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION_CONF, &a[0], "level 2");
	mf[0].dst.level = 0;
	mf[0].dst.field = RTE_FLOW_FIELD_VXLAN_VNI;
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION_CONF, &a[0],
		"destination field");
	mf[0].dst.field = RTE_FLOW_FIELD_IPV4_ECN;
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION_CONF, &a[0],
		"destination field");
	/* IPv4 and IPv6 fields in one list: the device takes one family. */
	mf[0].dst.field = RTE_FLOW_FIELD_IPV4_DST;
	mf[0].width = 32;
	mf[1] = mf[0];
	mf[1].dst.field = RTE_FLOW_FIELD_IPV6_DST;
	a[1].type = RTE_FLOW_ACTION_TYPE_MODIFY_FIELD;
	a[2].type = RTE_FLOW_ACTION_TYPE_END;
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION, &a[1], "one L3 family");
	mf[1].dst.field = RTE_FLOW_FIELD_TCP_PORT_DST;
	mf[1].width = 16;
	mf[0].dst.field = RTE_FLOW_FIELD_UDP_PORT_DST;
	mf[0].width = 16;
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION, &a[1], "one L4 protocol");
	a[0].conf = NULL;
	REFUSED(dv_ok(&in, p, a), EINVAL, ACTION_CONF, &a[0],
		"no configuration");
	return VT_OK;
}

/* The pattern says which header a rewrite writes; without it, refused. */
static int
test_rewrite_needs(void)
{
	const struct rte_flow_action_set_ipv4 v4 = { BE32(1) };
	const struct rte_flow_action_set_tp tp = { BE16(1) };
	const struct rte_flow_action_set_ttl ttl = { 1 };
	const struct rte_flow_action_set_dscp dscp = { 64 };
	const struct rte_flow_action_set_mac mac = { { 2 } };
	const rte_be32_t n = BE32(1);
	const struct rte_flow_item p6[] = { ITEM(ETH), ITEM(IPV6), END_ITEM };
	const struct rte_flow_item p4[] = { ITEM(IPV4), END_ITEM };
	struct rte_flow_action a[] = { ACT(SET_IPV4_SRC, &v4), ACT(QUEUE, &q0),
				       END_ACT };

	REFUSED(dv_ok(&in, p6, a), EINVAL, ACTION, &a[0], "no IPv4 item");
	a[0] = (struct rte_flow_action)ACT(SET_TP_SRC, &tp);
	REFUSED(dv_ok(&in, p6, a), EINVAL, ACTION, &a[0], "no TCP or UDP");
	a[0] = (struct rte_flow_action)ACT(SET_TTL, &ttl);
	REFUSED(dv_ok(&in, p6 + 2, a), EINVAL, ACTION, &a[0],
		"no IPv4 or IPv6");
	a[0] = (struct rte_flow_action)ACT(SET_MAC_DST, &mac);
	REFUSED(dv_ok(&in, p4, a), EINVAL, ACTION, &a[0], "no ETH item");
	a[0] = (struct rte_flow_action)ACT(INC_TCP_ACK, &n);
	REFUSED(dv_ok(&in, p4, a), EINVAL, ACTION, &a[0], "no TCP item");
	a[0] = (struct rte_flow_action)ACT(SET_IPV4_DSCP, &dscp);
	REFUSED(dv_ok(&in, p4, a), EINVAL, ACTION_CONF, &a[0], "out of range");
	a[0] = (struct rte_flow_action)ACT(SET_IPV4_SRC, NULL);
	REFUSED(dv_ok(&in, p4, a), EINVAL, ACTION_CONF, &a[0],
		"no configuration");
	return VT_OK;
}

/* --- decap --- */

static int
test_decap(void)
{
	const struct rte_flow_action_set_ipv4 dst = { BE32(0x0a0a0a0a) };
	const struct rte_flow_action_mark mark = { .id = 7 };
	const uint16_t qs[] = { 0, 1, 2, 3 };
	const struct rte_flow_action_rss rss = {
		.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP,
		.queue_num = 4,
		.queue = qs,
	};
	const struct rte_flow_item_vxlan vni = { .vni = { 0, 0, 100 } };
	const struct rte_flow_item p[] = {
		ITEM(ETH), ITEM(IPV4), ITEM(UDP), ITEM_S(VXLAN, &vni),
		ITEM(ETH), ITEM(IPV4), END_ITEM,
	};
	struct rte_flow_action a[] = {
		ACT(VXLAN_DECAP, NULL), ACT(SET_IPV4_DST, &dst),
		ACT(MARK, &mark),	ACT(COUNT, NULL),
		ACT(RSS, &rss),		END_ACT,
	};
	static const struct mod want[] = { MOD(SET, 0x16, 0, 0, 0x0a0a0a0a) };
	unsigned int i;

	VT_CHECK_EQ(dv_ok(&in, p, a), 0, "%s", err.message);
	VT_CHECK_EQ(plan.edit.reformat, VSTEER_REFORMAT_DECAP_L2, "L2 decap");
	VT_CHECK_EQ(plan.edit.data_len, 0, "no data");
	VT_CHECK(mods_are(want, 1) == VT_OK, "the inner address");
	VT_CHECK(plan.decap && plan.mark && plan.count, "decap, mark, count");
	/* The RSS hashes the decapsulated headers: the inner IPv4 one,
	 * expanded to UDP, with outer hash fields. */
	VT_CHECK_EQ(plan.n_rules, 2, "inner UDP and IPv4 rules");
	for (i = 0; i < plan.n_rules; i++) {
		VT_CHECK(!(plan.var[i].hash_fields & IBV_RX_HASH_INNER),
			 "rule %u hashes the frame as it is delivered", i);
		VT_CHECK(plan.var[i].hash_fields & IBV_RX_HASH_DST_IPV4,
			 "rule %u hashes IPv4", i);
	}
	VT_CHECK_EQ(plan.var[0].l4p, IPPROTO_UDP, "UDP first");
	VT_CHECK_EQ(vsteer_flow_edit_reformat_type(plan.edit.reformat),
		    MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2,
		    "mlx5dv type");
	/* Order: the device decapsulates first. */
	a[0] = (struct rte_flow_action)ACT(SET_IPV4_DST, &dst);
	a[1] = (struct rte_flow_action)ACT(VXLAN_DECAP, NULL);
	REFUSED(dv_ok(&in, p, a), EINVAL, ACTION, &a[1], "decap first");
	/* One decap. */
	a[0] = a[1];
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION, &a[1], "one per rule");
	/* No decap on egress. */
	a[1] = (struct rte_flow_action)ACT(COUNT, NULL);
	a[2] = (struct rte_flow_action)END_ACT;
	REFUSED(dv_ok(&eg, p, a), ENOTSUP, ACTION, &a[0], "no decap on egress");
	/* RSS level 2 means nothing after a decap. */
	a[2] = (struct rte_flow_action)ACT(RSS, &rss);
	a[3] = (struct rte_flow_action)END_ACT;
	((struct rte_flow_action_rss *)(uintptr_t)&rss)->level = 2;
	REFUSED(dv_ok(&in, p, a), EINVAL, ACTION_CONF, &a[2], "with a decap");
	((struct rte_flow_action_rss *)(uintptr_t)&rss)->level = 0;
	/* DROP leaves nothing to decapsulate. */
	a[2] = (struct rte_flow_action)ACT(DROP, NULL);
	REFUSED(dv_ok(&in, p, a), EINVAL, ACTION, &a[0], "DROP");
	return VT_OK;
}

static int
test_decap_tunnels(void)
{
	const struct rte_flow_item_udp udp4790 = { .hdr.dst_port = BE16(4790) };
	const struct rte_flow_item_gre gre_ip = { .protocol = BE16(0x0800) };
	const struct rte_flow_item_nvgre tni = { .tni = { 1, 2, 3 } };
	const struct rte_flow_item vx_port[] = {
		ITEM(ETH),   ITEM(IPV4), ITEM_S(UDP, &udp4790),
		ITEM(VXLAN), END_ITEM,
	};
	const struct rte_flow_item nv[] = { ITEM(ETH), ITEM(IPV4),
					    ITEM_S(NVGRE, &tni), END_ITEM };
	const struct rte_flow_item gre_eth[] = { ITEM(ETH), ITEM(IPV6),
						 ITEM(GRE), ITEM(ETH),
						 END_ITEM };
	const struct rte_flow_item gre4[] = { ITEM(ETH), ITEM(IPV4),
					      ITEM_S(GRE, &gre_ip), END_ITEM };
	const struct rte_flow_item plain[] = { ITEM(ETH), ITEM(IPV4), ITEM(UDP),
					       END_ITEM };
	struct rte_flow_action a[] = { ACT(VXLAN_DECAP, NULL), ACT(QUEUE, &q0),
				       END_ACT };

	REFUSED(dv_ok(&in, vx_port, a), ENOTSUP, ACTION, &a[0], "port 4789");
	REFUSED(dv_ok(&in, nv, a), EINVAL, ACTION, &a[0], "no VXLAN item");
	a[0].type = RTE_FLOW_ACTION_TYPE_NVGRE_DECAP;
	VT_CHECK_EQ(dv_ok(&in, nv, a), 0, "NVGRE: %s", err.message);
	VT_CHECK_EQ(dv_ok(&in, gre_eth, a), 0, "GRE/ETH: %s", err.message);
	REFUSED(dv_ok(&in, gre4, a), EINVAL, ACTION, &a[0],
		"does not carry Ethernet");
	REFUSED(dv_ok(&in, plain, a), EINVAL, ACTION, &a[0], "no GRE or NVGRE");
	return VT_OK;
}

static int
test_raw_decap(void)
{
	static uint8_t l2[18] = { 0x02, 0, 0, 0,    0, 1, 0x02, 0,    0,
				  0,	0, 2, 0x81, 0, 0, 7,	0x08, 0 };
	uint8_t big[64] = { 0 };
	struct rte_flow_action_raw_decap rd = { .size = 50 };
	struct rte_flow_action_raw_encap re = { .data = l2, .size = 18 };
	const struct rte_flow_item mplsou[] = { ITEM(ETH), ITEM(IPV4),
						ITEM(UDP), ITEM(MPLS),
						END_ITEM };
	const struct rte_flow_item plain[] = { ITEM(ETH), ITEM(IPV4),
					       END_ITEM };
	const struct rte_flow_item vx[] = { ITEM(ETH), ITEM(IPV4), ITEM(UDP),
					    ITEM(VXLAN), END_ITEM };
	struct rte_flow_action a[] = { ACT(RAW_DECAP, &rd), ACT(RAW_ENCAP, &re),
				       ACT(QUEUE, &q0), END_ACT };

	/* L3 decap: the 18-byte header in place of the tunnel's. */
	VT_CHECK_EQ(dv_ok(&in, mplsou, a), 0, "%s", err.message);
	VT_CHECK_EQ(plan.edit.reformat, VSTEER_REFORMAT_DECAP_L3, "L3 decap");
	VT_CHECK(plan.edit.data_len == 18 &&
			 memcmp(plan.edit.data, l2, 18) == 0,
		 "the new L2 header");
	re.size = 16;
	REFUSED(dv_ok(&in, mplsou, a), EINVAL, ACTION_CONF, &a[1],
		"14 or 18 bytes");
	re.size = 14;
	REFUSED(dv_ok(&in, plain, a), EINVAL, ACTION, &a[0], "no tunnel item");
	rd.size = 20;
	REFUSED(dv_ok(&in, mplsou, a), ENOTSUP, ACTION, &a[1], "L3 decap");
	re.data = big;
	re.size = 60;
	rd.size = 60;
	REFUSED(dv_ok(&in, mplsou, a), ENOTSUP, ACTION, &a[1], "L3 decap");
	/* Alone: an L2 decap. */
	a[1] = (struct rte_flow_action)ACT(QUEUE, &q0);
	a[2] = (struct rte_flow_action)END_ACT;
	VT_CHECK_EQ(dv_ok(&in, vx, a), 0, "%s", err.message);
	VT_CHECK_EQ(plan.edit.reformat, VSTEER_REFORMAT_DECAP_L2, "L2 decap");
	REFUSED(dv_ok(&in, mplsou, a), EINVAL, ACTION, &a[0],
		"does not carry Ethernet");
	rd.size = 0;
	REFUSED(dv_ok(&in, vx, a), EINVAL, ACTION_CONF, &a[0], "no size");
	return VT_OK;
}

/* --- encap --- */

/* The VXLAN header testpmd's "set vxlan" gives, and what goes out. */
static int
test_vxlan_encap(void)
{
	struct rte_flow_item_eth eth = {
		.hdr.dst_addr.addr_bytes = { 0x02, 0, 0, 0, 0, 0xd },
		.hdr.src_addr.addr_bytes = { 0x02, 0, 0, 0, 0, 0x5 },
	};
	struct rte_flow_item_vlan vlan = { .hdr.vlan_tci = BE16(42) };
	struct rte_flow_item_ipv4 ip = {
		.hdr.src_addr = BE32(0xc6336401),
		.hdr.dst_addr = BE32(0xc6336402),
	};
	struct rte_flow_item_udp udp = { .hdr.src_port = BE16(4000),
					 .hdr.dgram_cksum = BE16(0x1234) };
	struct rte_flow_item_vxlan vx = { .vni = { 0, 0, 100 } };
	struct rte_flow_item def[] = {
		ITEM_S(ETH, &eth), ITEM_S(VLAN, &vlan), ITEM_S(IPV4, &ip),
		ITEM_S(UDP, &udp), ITEM_S(VXLAN, &vx),	END_ITEM,
	};
	const struct rte_flow_action_vxlan_encap ve = { .definition = def };
	const struct rte_flow_action_set_tp dp = { BE16(9999) };
	const struct rte_flow_item p[] = { ITEM(ETH), ITEM(IPV4), ITEM(UDP),
					   END_ITEM };
	struct rte_flow_action a[] = { ACT(SET_TP_DST, &dp),
				       ACT(VXLAN_ENCAP, &ve), ACT(COUNT, NULL),
				       END_ACT };
	static const uint8_t want[] = {
		/* Ethernet, the type filled for the tag */
		0x02,
		0,
		0,
		0,
		0,
		0xd,
		0x02,
		0,
		0,
		0,
		0,
		0x5,
		0x81,
		0x00,
		/* VLAN 42, then IPv4 */
		0x00,
		42,
		0x08,
		0x00,
		/* IPv4: version and IHL, TTL 64 and protocol 17 filled;
		 * the lengths and checksum are the device's */
		0x45,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		64,
		17,
		0,
		0,
		198,
		51,
		100,
		1,
		198,
		51,
		100,
		2,
		/* UDP: port 4789 filled, checksum 0 */
		0x0f,
		0xa0,
		0x12,
		0xb5,
		0,
		0,
		0,
		0,
		/* VXLAN: flags filled, VNI 100 */
		0x08,
		0,
		0,
		0,
		0,
		0,
		100,
		0,
	};
	static const struct mod mods[] = { MOD(SET, 0x0c, 0, 16, 9999) };

	VT_CHECK_EQ(dv_ok(&eg, p, a), 0, "%s", err.message);
	VT_CHECK_EQ(plan.edit.reformat, VSTEER_REFORMAT_ENCAP_L2, "L2 encap");
	VT_CHECK(plan.edit.data_len == sizeof(want) &&
			 memcmp(plan.edit.data, want, sizeof(want)) == 0,
		 "header (%u bytes)", plan.edit.data_len);
	VT_CHECK(mods_are(mods, 1) == VT_OK, "rewrite before the push");
	VT_CHECK_EQ(plan.fate, VSTEER_FATE_NONE, "to the wire");
	VT_CHECK_EQ(plan.n_rules, 1, "one matcher entry");
	/* Encap is the transmit table's. */
	a[2] = (struct rte_flow_action)ACT(QUEUE, &q0);
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ACTION, &a[1],
		"no encap on ingress");
	/* The device rewrites first. */
	a[0] = (struct rte_flow_action)ACT(VXLAN_ENCAP, &ve);
	a[1] = (struct rte_flow_action)ACT(SET_TP_DST, &dp);
	a[2] = (struct rte_flow_action)END_ACT;
	REFUSED(dv_ok(&eg, p, a), EINVAL, ACTION, &a[1],
		"list the rewrite first");
	a[1] = a[0];
	REFUSED(dv_ok(&eg, p, a), EINVAL, ACTION, &a[1], "encap already");
	/* Definitions. */
	a[1] = (struct rte_flow_action)END_ACT;
	def[3] = (struct rte_flow_item)END_ITEM;
	REFUSED(dv_ok(&eg, p, a), EINVAL, ACTION_CONF, &a[0], "UDP, VXLAN");
	def[1] = (struct rte_flow_item)ITEM_S(UDP, &udp);
	REFUSED(dv_ok(&eg, p, a), EINVAL, ACTION_CONF, &a[0],
		"IPv4 or IPv6 before UDP");
	def[1] = (struct rte_flow_item)ITEM(TCP);
	REFUSED(dv_ok(&eg, p, a), ENOTSUP, ACTION_CONF, &a[0], "item TCP");
	return VT_OK;
}

static int
test_nvgre_encap(void)
{
	struct rte_flow_item_eth eth = { .hdr.ether_type = 0 };
	struct rte_flow_item_ipv6 ip = { .hdr.proto = 0 };
	struct rte_flow_item_nvgre nv = {
		.c_k_s_rsvd0_ver = BE16(0x2000),
		.protocol = BE16(0x6558),
		.tni = { 0, 1, 2 },
		.flow_id = 3,
	};
	struct rte_flow_item def[] = { ITEM_S(ETH, &eth), ITEM_S(IPV6, &ip),
				       ITEM_S(NVGRE, &nv), END_ITEM };
	const struct rte_flow_action_nvgre_encap ne = { .definition = def };
	const struct rte_flow_item p[] = { ITEM(ETH), END_ITEM };
	const struct rte_flow_action a[] = { ACT(NVGRE_ENCAP, &ne), END_ACT };
	uint8_t want[14 + 40 + 8];

	memset(want, 0, sizeof(want));
	want[12] = 0x86;
	want[13] = 0xdd;
	want[14] = 0x60;
	want[14 + 6] = 47;
	want[14 + 7] = 255;
	memcpy(want + 54, "\x20\x00\x65\x58\x00\x01\x02\x03", 8);
	VT_CHECK_EQ(dv_ok(&eg, p, a), 0, "%s", err.message);
	VT_CHECK(plan.edit.data_len == sizeof(want) &&
			 memcmp(plan.edit.data, want, sizeof(want)) == 0,
		 "header (%u bytes)", plan.edit.data_len);
	return VT_OK;
}

static int
test_raw_encap(void)
{
	uint8_t hdr[200];
	struct rte_flow_action_raw_encap re = { .data = hdr, .size = 50 };
	struct rte_flow_action_raw_decap rd = { .size = 14 };
	const struct rte_flow_item p[] = { ITEM(ETH), END_ITEM };
	struct rte_flow_action a[] = { ACT(RAW_ENCAP, &re), END_ACT, END_ACT };

	/* Ethernet, IPv4 carrying UDP, UDP with a checksum, 8 more bytes. */
	memset(hdr, 0xee, sizeof(hdr));
	hdr[12] = 0x08;
	hdr[13] = 0x00;
	hdr[14] = 0x45;
	hdr[23] = 17;
	VT_CHECK_EQ(dv_ok(&eg, p, a), 0, "%s", err.message);
	VT_CHECK_EQ(plan.edit.reformat, VSTEER_REFORMAT_ENCAP_L2, "L2 encap");
	VT_CHECK(plan.edit.data_len == 50 && plan.edit.data[40] == 0 &&
			 plan.edit.data[41] == 0 &&
			 memcmp(plan.edit.data, hdr, 40) == 0 &&
			 memcmp(plan.edit.data + 42, hdr + 42, 8) == 0,
		 "the header as given, its UDP checksum 0");
	/* With RAW_DECAP of the L2 header: an L3 encap, as given. */
	a[0] = (struct rte_flow_action)ACT(RAW_DECAP, &rd);
	a[1] = (struct rte_flow_action)ACT(RAW_ENCAP, &re);
	VT_CHECK_EQ(dv_ok(&eg, p, a), 0, "%s", err.message);
	VT_CHECK_EQ(plan.edit.reformat, VSTEER_REFORMAT_ENCAP_L3, "L3 encap");
	VT_CHECK(plan.edit.data_len == 50 &&
			 memcmp(plan.edit.data, hdr, 50) == 0,
		 "the header verbatim");
	VT_CHECK_EQ(vsteer_flow_edit_reformat_type(plan.edit.reformat),
		    MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L3_TUNNEL,
		    "mlx5dv type");
	/* Too short for an L2 encap, too long for the device, not IP. */
	a[0] = (struct rte_flow_action)ACT(RAW_ENCAP, &re);
	a[1] = (struct rte_flow_action)END_ACT;
	re.size = 30;
	REFUSED(dv_ok(&eg, p, a), ENOTSUP, ACTION_CONF, &a[0],
		"longer than an Ethernet and an IPv4 header");
	re.size = 129;
	REFUSED(dv_ok(&eg, p, a), ENOTSUP, ACTION, &a[0],
		"at most 128 (max_encap_header_size)");
	re.size = 50;
	hdr[13] = 0x06;
	REFUSED(dv_ok(&eg, p, a), ENOTSUP, ACTION_CONF, &a[0],
		"then IPv4 or IPv6");
	re.preserve = hdr;
	REFUSED(dv_ok(&eg, p, a), ENOTSUP, ACTION_CONF, &a[0], "preserve");
	re.preserve = NULL;
	re.data = NULL;
	REFUSED(dv_ok(&eg, p, a), EINVAL, ACTION_CONF, &a[0], "no data");
	return VT_OK;
}

/* --- what the device takes --- */

static int
test_limits(void)
{
	struct vsteer_xlate_ctx c = ctx();
	const struct rte_flow_action_set_mac mac = { { 2 } };
	const struct rte_flow_action_set_ipv4 v4 = { BE32(1) };
	const struct rte_flow_action_mark mark = { .id = 1 };
	const struct rte_flow_item p[] = { ITEM(ETH), ITEM(IPV4), END_ITEM };
	struct rte_flow_action a[] = { ACT(SET_MAC_SRC, &mac),
				       ACT(SET_IPV4_DST, &v4), ACT(QUEUE, &q0),
				       END_ACT };
	struct rte_flow_action e[] = { ACT(SET_MAC_SRC, &mac), ACT(MARK, &mark),
				       END_ACT };

	/* Three modify actions on a table that takes two. */
	c.max_modify_rx = 2;
	REFUSED(dv(&c, &in, p, a), ENOTSUP, ACTION, &a[0],
		"receive table takes at most 2");
	c.max_modify_rx = 3;
	VT_CHECK_EQ(dv(&c, &in, p, a), 0, "%s", err.message);
	c.max_modify_tx = 1;
	a[2] = (struct rte_flow_action)END_ACT;
	REFUSED(dv(&c, &eg, p, a), ENOTSUP, ACTION, &a[0],
		"transmit table takes at most 1");
	/* Egress: no tag, no queue. */
	REFUSED(dv_ok(&eg, p, e), ENOTSUP, ACTION, &e[1], "egress");
	/* An egress rule that changes nothing. */
	e[0] = (struct rte_flow_action)END_ACT;
	REFUSED(dv_ok(&eg, p, e), EINVAL, ACTION, &e[0], "change nothing");
	/* Verbs chains carry no flow action: a limit auto routes on. */
	memset(&err, 0, sizeof(err));
	VT_CHECK_EQ(vsteer_flow_verbs_translate(&c, &in, p, a, &plan, &err),
		    -ENOTSUP, "verbs");
	VT_CHECK(plan.limit.set && strstr(err.message, "SET_MAC_SRC action") &&
			 strstr(err.message, "verbs cannot take it"),
		 "limit: %s", err.message);
	return VT_OK;
}

/* --- NVGRE as a pattern item --- */

static int
test_nvgre_item(void)
{
	const struct rte_flow_item_nvgre nv = {
		.tni = { 0x12, 0x34, 0x56 },
		.flow_id = 0x78,
	};
	const struct rte_flow_item_nvgre nv_m = {
		.tni = { 0xff, 0xff, 0xff },
		.flow_id = 0xff,
	};
	const struct rte_flow_item_nvgre nv_k = { .c_k_s_rsvd0_ver =
							  BE16(0x2000) };
	struct rte_flow_item p[] = {
		ITEM(ETH),
		ITEM(IPV4),
		{ .type = RTE_FLOW_ITEM_TYPE_NVGRE, .spec = &nv, .mask = &nv_m },
		ITEM(ETH),
		END_ITEM,
	};
	const struct rte_flow_action a[] = { ACT(QUEUE, &q0), END_ACT };
	struct vsteer_xlate_ctx c = ctx();
	const uint8_t *mk = (const uint8_t *)base.mask.buf;
	const uint8_t *vl = (const uint8_t *)base.value.buf;
	const struct ibv_flow_spec_gre *gre = NULL;
	const uint8_t *s;
	unsigned int i;

	VT_CHECK_EQ(dv_ok(&in, p, a), 0, "%s", err.message);
	/* misc: gre_k_present (byte 0, 0x20), gre_protocol at byte 14,
	 * gre_key at byte 16; outer ip_protocol 47. */
	VT_CHECK(mk[64] == 0x20 && vl[64] == 0x20, "K bit");
	VT_CHECK(mk[78] == 0xff && mk[79] == 0xff && vl[78] == 0x65 &&
			 vl[79] == 0x58,
		 "protocol 0x6558");
	VT_CHECK(vl[80] == 0x12 && vl[81] == 0x34 && vl[82] == 0x56 &&
			 vl[83] == 0x78 && mk[80] == 0xff && mk[83] == 0xff,
		 "key from tni and flow_id");
	VT_CHECK(mk[16] == 0xff && vl[16] == 47, "GRE");
	/* Verbs: a GRE spec with the protocol and the key. */
	memset(&err, 0, sizeof(err));
	VT_CHECK_EQ(vsteer_flow_verbs_translate(&c, &in, p, a, &plan, &err), 0,
		    "verbs: %s", err.message);
	s = plan.rules[0].buf + sizeof(struct ibv_flow_attr);
	for (i = 0; i < plan.rules[0].attr.num_of_specs; i++) {
		/* Specs follow each other at 4-byte boundaries: read each
		 * as its own type, never as the 8-byte aligned union. */
		enum ibv_flow_spec_type type;
		uint16_t size;

		memcpy(&type, s, sizeof(type));
		memcpy(&size, s + sizeof(type), sizeof(size));
		if (type == IBV_FLOW_SPEC_GRE)
			gre = (const void *)s;
		s += size;
	}
	VT_CHECK(gre != NULL, "GRE spec");
	VT_CHECK(gre->val.protocol == BE16(0x6558) &&
			 gre->mask.protocol == BE16(0xffff) &&
			 gre->val.key == BE32(0x12345678) &&
			 gre->mask.key == BE32(0xffffffff) &&
			 gre->mask.c_ks_res0_ver == 0,
		 "GRE spec fields");
	/* The K bit is implied, not matched. */
	p[2].spec = &nv_k;
	p[2].mask = &nv_k;
	REFUSED(dv_ok(&in, p, a), ENOTSUP, ITEM_MASK, &p[2], "c_k_s_rsvd0_ver");
	return VT_OK;
}

static int
test_dump(void)
{
	const uint64_t mod[2] = { 0, 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	uint8_t b[8] = { 0x10, 0x16, 0x00, 0x00, 0x0a, 0x0a, 0x0a, 0x0a };
	uint64_t m[2];

	VT_CHECK(f != NULL, "memstream");
	memcpy(&m[0], b, 8);
	b[0] = 0x20;
	b[1] = 0x0a;
	b[3] = 0x00;
	memcpy(&m[1], b, 8);
	vsteer_flow_edit_dump_mod(f, m, 2);
	vsteer_flow_edit_dump_reformat(f, VSTEER_REFORMAT_ENCAP_L2, b, 3);
	fclose(f);
	RTE_SET_USED(mod);
	VT_CHECK(strstr(buf, "set dipv4 bits 0..31 0x0a0a0a0a") != NULL &&
			 strstr(buf, "add ipv4_ttl 0x0a0a0a0a") != NULL &&
			 strstr(buf, "L2_TO_L2_TUNNEL, 3 bytes") != NULL,
		 "dump:\n%s", buf);
	free(buf);
	return VT_OK;
}

static const struct vt_case cases[] = {
	/* clang-format off */
	VT_CASE(test_rewrite_ipv4_udp),
	VT_CASE(test_rewrite_ipv6_tcp),
	VT_CASE(test_modify_field),
	VT_CASE(test_rewrite_needs),
	VT_CASE(test_decap),
	VT_CASE(test_decap_tunnels),
	VT_CASE(test_raw_decap),
	VT_CASE(test_vxlan_encap),
	VT_CASE(test_nvgre_encap),
	VT_CASE(test_raw_encap),
	VT_CASE(test_limits),
	VT_CASE(test_nvgre_item),
	VT_CASE(test_dump),
	{ NULL, NULL },
	/* clang-format on */
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
