/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * softverbs' mlx5dv flow actions: header modify lists and packet
 * reformats (sv_flow_action.c), what they do to frames (sv_pktedit.c),
 * and mlx5dv flows that use them on an in-memory link (sv_dv.c,
 * sv_steer.c). Checked here:
 *   - rewrites leave the fields asked for and valid checksums, as DPDK's
 *     own rte_ipv4_cksum() / rte_ipv*_udptcp_cksum() compute them over
 *     the whole header (the device updates them incrementally);
 *   - decap gives the inner frame byte for byte, encap the data in front
 *     with the outer lengths and IPv4 checksum filled, the UDP checksum as
 *     the data had it;
 *   - every refusal with the errno rdma-core 44 and Linux 6.1 give;
 *   - ingress rules deliver frames decapsulated and rewritten, tagged and
 *     counted at their length on the wire; egress rules rewrite and
 *     encapsulate what is sent, or drop and count it.
 */

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_ip.h>

#include "softverbs.h"
#include "sv_internal.h"
#include "sv_pktedit.h"
#include "vsteer_prm.h"
#include "vt_svenv.h"
#include "vt_test.h"

/* ---- frames ---- */

struct pkt {
	uint8_t b[512];
	uint32_t n;
	/* IPv4 / IPv6 / UDP / TCP headers pushed, for pkt_end(). */
	uint32_t off[8];
	uint8_t kind[8];
	unsigned int nh;
};

enum {
	K_IP4 = 1,
	K_IP6,
	K_UDP,
	K_TCP
};

static const uint8_t mac_d[6] = { 0x02, 0, 0, 0, 0, 0xd1 };
static const uint8_t mac_s[6] = { 0x02, 0, 0, 0, 0, 0x51 };

static uint8_t *
put(struct pkt *p, uint32_t len)
{
	uint8_t *q = p->b + p->n;

	memset(q, 0, len);
	p->n += len;
	return q;
}

static void
w16(uint8_t *q, uint16_t v)
{
	q[0] = (uint8_t)(v >> 8);
	q[1] = (uint8_t)v;
}

static void
w32(uint8_t *q, uint32_t v)
{
	w16(q, (uint16_t)(v >> 16));
	w16(q + 2, (uint16_t)v);
}

static uint16_t
r16(const uint8_t *q)
{
	return (uint16_t)(q[0] << 8 | q[1]);
}

static uint32_t
r32(const uint8_t *q)
{
	return (uint32_t)r16(q) << 16 | r16(q + 2);
}

static void
mark(struct pkt *p, uint8_t kind)
{
	p->off[p->nh] = p->n;
	p->kind[p->nh++] = kind;
}

static void
eth(struct pkt *p, uint16_t type)
{
	uint8_t *q = put(p, 14);

	memcpy(q, mac_d, 6);
	memcpy(q + 6, mac_s, 6);
	w16(q + 12, type);
}

static void
vlan(struct pkt *p, uint16_t tci, uint16_t type)
{
	uint8_t *q = put(p, 4);

	w16(q, tci);
	w16(q + 2, type);
}

static void
ipv4(struct pkt *p, uint32_t src, uint32_t dst, uint8_t proto, uint8_t ttl,
     uint8_t tos)
{
	uint8_t *q;

	mark(p, K_IP4);
	q = put(p, 20);
	q[0] = 0x45;
	q[1] = tos;
	w16(q + 4, 0x1234);
	q[8] = ttl;
	q[9] = proto;
	w32(q + 12, src);
	w32(q + 16, dst);
}

static void
ipv6(struct pkt *p, uint8_t last_src, uint8_t last_dst, uint8_t proto,
     uint8_t hop, uint8_t tc)
{
	uint8_t *q;

	mark(p, K_IP6);
	q = put(p, 40);
	w32(q, 0x60000000u | (uint32_t)tc << 20 | 0x12345);
	q[6] = proto;
	q[7] = hop;
	q[8] = 0x20;
	q[9] = 0x01;
	q[10] = 0x0d;
	q[11] = 0xb8;
	q[23] = last_src;
	memcpy(q + 24, q + 8, 4);
	q[39] = last_dst;
}

static void
udp(struct pkt *p, uint16_t sport, uint16_t dport)
{
	uint8_t *q;

	mark(p, K_UDP);
	q = put(p, 8);
	w16(q, sport);
	w16(q + 2, dport);
}

static void
tcp(struct pkt *p, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack)
{
	uint8_t *q;

	mark(p, K_TCP);
	q = put(p, 20);
	w16(q, sport);
	w16(q + 2, dport);
	w32(q + 4, seq);
	w32(q + 8, ack);
	q[12] = 0x50;
	q[13] = 0x18; /* PSH, ACK */
	w16(q + 14, 512);
}

static void
vxlan(struct pkt *p, uint32_t vni)
{
	uint8_t *q = put(p, 8);

	q[0] = 0x08;
	w32(q + 4, vni << 8);
}

static void
gre(struct pkt *p, uint16_t proto, bool key, uint32_t k)
{
	uint8_t *q = put(p, key ? 8 : 4);

	w16(q, key ? 0x2000 : 0);
	w16(q + 2, proto);
	if (key)
		w32(q + 4, k);
}

static void
mpls(struct pkt *p, uint32_t label, bool bos)
{
	uint8_t *q = put(p, 4);

	w32(q, label << 12 | (bos ? 0x100u : 0) | 64);
}

static void
payload(struct pkt *p, uint32_t n, uint8_t seed)
{
	uint8_t *q = put(p, n);
	uint32_t i;

	for (i = 0; i < n; i++)
		q[i] = (uint8_t)(seed + i * 7);
}

/* L4 checksum (checksum field as it is in frame f) computed by DPDK. */
static uint16_t
l4_csum(const uint8_t *f, uint32_t l3, uint32_t l4, uint32_t ck, bool v6)
{
	uint8_t c[512];

	memcpy(c, f, sizeof(c));
	w16(c + l4 + ck, 0);
	if (v6)
		return rte_be_to_cpu_16(
			rte_ipv6_udptcp_cksum((const struct rte_ipv6_hdr
						       *)(const void *)(c + l3),
					      c + l4));
	return rte_be_to_cpu_16(
		rte_ipv4_udptcp_cksum((const struct rte_ipv4_hdr
					       *)(const void *)(c + l3),
				      c + l4));
}

/* Lengths and checksums, innermost first, as a sender's stack fills
 * them; UDP checksums only where udp_ck. */
static void
pkt_end(struct pkt *p, bool udp_ck)
{
	unsigned int i, j;

	for (i = p->nh; i > 0; i--) {
		uint32_t o = p->off[i - 1];
		uint8_t *q = p->b + o;

		switch (p->kind[i - 1]) {
		case K_IP4:
			w16(q + 2, (uint16_t)(p->n - o));
			w16(q + 10, 0);
			w16(q + 10,
			    rte_be_to_cpu_16(rte_ipv4_cksum(
				    (const struct rte_ipv4_hdr *)(void *)q)));
			break;
		case K_IP6:
			w16(q + 4, (uint16_t)(p->n - o - 40));
			break;
		case K_UDP:
			w16(q + 4, (uint16_t)(p->n - o));
			break;
		default:
			break;
		}
		if (p->kind[i - 1] != K_UDP && p->kind[i - 1] != K_TCP)
			continue;
		/* The L3 header before it, lengths filled first. */
		for (j = i - 1; j > 0; j--)
			if (p->kind[j - 1] == K_IP4 || p->kind[j - 1] == K_IP6)
				break;
		if (j == 0)
			continue;
		if (p->kind[j - 1] == K_IP4)
			w16(p->b + p->off[j - 1] + 2,
			    (uint16_t)(p->n - p->off[j - 1]));
		else
			w16(p->b + p->off[j - 1] + 4,
			    (uint16_t)(p->n - p->off[j - 1] - 40));
		if (p->kind[i - 1] == K_UDP && !udp_ck)
			continue;
		w16(q + (p->kind[i - 1] == K_TCP ? 16 : 6),
		    l4_csum(p->b, p->off[j - 1], o,
			    p->kind[i - 1] == K_TCP ? 16 : 6,
			    p->kind[j - 1] == K_IP6));
	}
}

/* ---- modify commands ---- */

static uint64_t
cmd(uint32_t type, uint32_t field, uint32_t off, uint32_t len, uint32_t data)
{
	uint64_t v;

	vsteer_prm_mod_action(&v, type, field, off, len, data);
	return v;
}

#define SET(f, len, d) \
	cmd(VSTEER_PRM_MOD_SET, VSTEER_PRM_MODI_OUT_##f, 0, len, d)
#define ADD(f, d) cmd(VSTEER_PRM_MOD_ADD, VSTEER_PRM_MODI_OUT_##f, 0, 0, d)

/* The device objects and their program, on a softverbs mlx5 device. */
struct dev {
	char name[64];
	struct ibv_context *ctx;
};

static int
dev_up(struct dev *d, const char *link, uint32_t modify_actions)
{
	struct sv_device_opts o = {
		.profile = SV_PROFILE_MLX5,
		.modify_actions = modify_actions,
	};
	char wire[64];

	snprintf(wire, sizeof(wire), "mem:%s-%d", link, (int)getpid());
	if (softverbs_device_add(wire, &o, d->name, sizeof(d->name)) != 0)
		return -1;
	d->ctx = vt_open_by_name(d->name);
	return d->ctx != NULL ? 0 : -1;
}

static int
dev_down(struct dev *d)
{
	int rc = sv_close_device(d->ctx);

	return rc | softverbs_device_remove(d->name);
}

static struct ibv_flow_action *
modify(struct ibv_context *ctx, const uint64_t *c, size_t n, int ft)
{
	return sv_mlx5dv_create_flow_action_modify_header(
		ctx, n * sizeof(*c), (uint64_t *)(uintptr_t)c,
		(enum mlx5dv_flow_table_type)ft);
}

static struct ibv_flow_action *
reformat(struct ibv_context *ctx, const void *data, size_t n, int type, int ft)
{
	return sv_mlx5dv_create_flow_action_packet_reformat(
		ctx, n, (void *)(uintptr_t)data,
		(enum mlx5dv_flow_action_packet_reformat_type)type,
		(enum mlx5dv_flow_table_type)ft);
}

#define RX MLX5DV_FLOW_TABLE_TYPE_NIC_RX
#define TX MLX5DV_FLOW_TABLE_TYPE_NIC_TX
#define L2_DECAP MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2
#define L3_DECAP MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L3_TUNNEL_TO_L2
#define L2_ENCAP MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL
#define L3_ENCAP MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L3_TUNNEL

/* The program of one or two actions. */
static void
prog(struct sv_edit *e, struct ibv_flow_action *mod, struct ibv_flow_action *rf)
{
	const struct sv_flow_action *m = sv_flow_action_of(mod);
	const struct sv_flow_action *r = sv_flow_action_of(rf);

	memset(e, 0, sizeof(*e));
	if (m != NULL) {
		e->mod = (const struct sv_mod_cmd *)(const void *)m->buf;
		e->n_mod = m->n;
	}
	if (r != NULL) {
		e->reformat = r->reformat;
		e->data = r->buf;
		e->data_len = r->n;
	}
}

static struct dev D;

/* Apply mod (n commands, table ft) to p into out: its length. */
static uint32_t
apply_mod(const uint64_t *c, size_t n, int ft, const struct pkt *p,
	  uint8_t *out)
{
	struct ibv_flow_action *a = modify(D.ctx, c, n, ft);
	struct sv_edit e;
	uint32_t len;

	if (a == NULL)
		return 0;
	prog(&e, a, NULL);
	len = sv_edit_apply(&e, p->b, p->n, out, 1024);
	if (ibv_destroy_flow_action(a) != 0)
		return 0;
	return len;
}

static bool
ip4_ok(const uint8_t *f, uint32_t l3)
{
	return rte_ipv4_cksum((
		       const struct rte_ipv4_hdr *)(const void *)(f + l3)) == 0;
}

static bool
l4_ok(const uint8_t *f, uint32_t l3, uint32_t l4, uint32_t ck, bool v6)
{
	return l4_csum(f, l3, l4, ck, v6) == r16(f + l4 + ck);
}

/* ---- rewrite ---- */

static int
test_rewrite_ipv4_udp(void)
{
	const uint64_t c[] = {
		SET(SIPV4, 0, 0x0a000001),
		SET(DIPV4, 0, 0xc6336401),
		SET(UDP_SPORT, 16, 1111),
		SET(UDP_DPORT, 16, 2222),
		SET(IPV4_TTL, 8, 5),
		SET(IP_DSCP, 6, 46),
		SET(SMAC_47_16, 0, 0x02aabbcc),
		SET(SMAC_15_0, 16, 0xddee),
		SET(DMAC_47_16, 0, 0x02112233),
		SET(DMAC_15_0, 16, 0x4455),
	};
	static const uint8_t smac[6] = { 2, 0xaa, 0xbb, 0xcc, 0xdd, 0xee };
	static const uint8_t dmac[6] = { 2, 0x11, 0x22, 0x33, 0x44, 0x55 };
	uint8_t out[1024];
	struct pkt p = { 0 };
	uint32_t n;

	eth(&p, 0x0800);
	ipv4(&p, 0xc0000201, 0xc6336402, IPPROTO_UDP, 64, 0x03);
	udp(&p, 5000, 53);
	payload(&p, 37, 1);
	pkt_end(&p, true);
	n = apply_mod(c, RTE_DIM(c), RX, &p, out);
	VT_CHECK_EQ(n, p.n, "length kept (errno %d)", errno);
	VT_CHECK(memcmp(out, dmac, 6) == 0 && memcmp(out + 6, smac, 6) == 0,
		 "MACs");
	VT_CHECK_EQ(r32(out + 26), 0x0a000001, "source address");
	VT_CHECK_EQ(r32(out + 30), 0xc6336401, "destination address");
	VT_CHECK_EQ(out[22], 5, "TTL");
	VT_CHECK_EQ(out[15], 46 << 2 | 0x03, "DSCP set, ECN kept");
	VT_CHECK_EQ(r16(out + 34), 1111, "source port");
	VT_CHECK_EQ(r16(out + 36), 2222, "destination port");
	VT_CHECK(memcmp(out + 42, p.b + 42, 37) == 0, "payload untouched");
	VT_CHECK(ip4_ok(out, 14), "IPv4 header checksum");
	VT_CHECK(l4_ok(out, 14, 34, 6, false), "UDP checksum");
	return VT_OK;
}

static int
test_rewrite_tcp_add(void)
{
	const uint64_t c[] = {
		ADD(IPV4_TTL, 0xff),
		ADD(TCP_SEQ_NUM, 1000),
		ADD(TCP_ACK_NUM, (uint32_t)-5),
		SET(TCP_SPORT, 16, 80),
		SET(TCP_FLAGS, 9, 0x111),
		SET(IP_ECN, 2, 3),
	};
	uint8_t out[1024];
	struct pkt p = { 0 };

	eth(&p, 0x0800);
	ipv4(&p, 0xc0000201, 0xc6336402, IPPROTO_TCP, 1, 0xb8);
	tcp(&p, 4000, 8080, 0xfffffff0u, 3);
	payload(&p, 20, 9);
	pkt_end(&p, true);
	VT_CHECK_EQ(apply_mod(c, RTE_DIM(c), RX, &p, out), p.n, "applied");
	VT_CHECK_EQ(out[22], 0, "TTL 1 - 1");
	VT_CHECK_EQ(r32(out + 38), 0xfffffff0u + 1000, "sequence wraps");
	VT_CHECK_EQ(r32(out + 42), (uint32_t)-2, "acknowledgment 3 - 5");
	VT_CHECK_EQ(r16(out + 34), 80, "source port");
	VT_CHECK_EQ(out[46] & 1, 1, "NS");
	VT_CHECK_EQ(out[47], 0x11, "flags FIN ACK");
	VT_CHECK_EQ(out[46] >> 4, 5, "data offset kept");
	VT_CHECK_EQ(out[15], 0xbb, "ECN set, DSCP kept");
	VT_CHECK(ip4_ok(out, 14), "IPv4 header checksum");
	VT_CHECK(l4_ok(out, 14, 34, 16, false), "TCP checksum");
	return VT_OK;
}

static int
test_rewrite_ipv6(void)
{
	const uint64_t c[] = {
		SET(SIPV6_127_96, 0, 0x20010db8),
		SET(SIPV6_95_64, 0, 1),
		SET(SIPV6_63_32, 0, 2),
		SET(SIPV6_31_0, 0, 3),
		SET(DIPV6_31_0, 0, 0x99),
		ADD(IPV6_HOPLIMIT, 0xff),
		SET(IP_DSCP, 6, 10),
		SET(FIRST_VID, 12, 0x123),
		SET(UDP_DPORT, 16, 4242),
	};
	uint8_t out[1024];
	struct pkt p = { 0 };
	const uint32_t l3 = 18, l4 = 58;

	eth(&p, 0x8100);
	vlan(&p, 0xa064, 0x86dd);
	ipv6(&p, 1, 2, IPPROTO_UDP, 0, 0x03);
	udp(&p, 9, 10);
	payload(&p, 11, 3);
	pkt_end(&p, true);
	VT_CHECK_EQ(apply_mod(c, RTE_DIM(c), TX, &p, out), p.n, "applied");
	VT_CHECK_EQ(r16(out + 14), 0xa123, "VID set, PCP and DEI kept");
	VT_CHECK_EQ(r32(out + l3 + 8), 0x20010db8, "src[0]");
	VT_CHECK_EQ(r32(out + l3 + 20), 3, "src[3]");
	VT_CHECK_EQ(r32(out + l3 + 36), 0x99, "dst[3]");
	VT_CHECK_EQ(r32(out + l3 + 24), 0x20010db8, "dst[0] kept");
	VT_CHECK_EQ(out[l3 + 7], 0xff, "hop limit 0 - 1 wraps");
	VT_CHECK_EQ(r32(out + l3), 0x60000000u | (10u << 2 | 3) << 20 | 0x12345,
		    "traffic class DSCP, ECN and flow label kept");
	VT_CHECK(l4_ok(out, l3, l4, 6, true), "UDP over IPv6 checksum");
	return VT_OK;
}

/* A UDP datagram without checksum stays without; fields a frame does not
 * have are not written. */
static int
test_rewrite_absent(void)
{
	const uint64_t c[] = {
		SET(UDP_DPORT, 16, 99),
		SET(FIRST_VID, 12, 5),
		SET(DIPV4, 8, 0x7f),
	};
	/* One L3 family and one L4 protocol per list: another list. */
	const uint64_t none[] = {
		SET(TCP_DPORT, 16, 77),
		ADD(IPV6_HOPLIMIT, 1),
	};
	const uint64_t mac[] = {
		SET(SMAC_15_0, 16, 0x1234),
		SET(DMAC_47_16, 0, 0x02000000),
	};
	uint8_t out[1024];
	struct pkt p = { 0 };

	eth(&p, 0x0800);
	ipv4(&p, 0xc0000201, 0xc6336402, IPPROTO_UDP, 9, 0);
	udp(&p, 5, 6);
	payload(&p, 8, 1);
	pkt_end(&p, false);
	VT_CHECK_EQ(apply_mod(c, RTE_DIM(c), RX, &p, out), p.n, "applied");
	VT_CHECK_EQ(r16(out + 36), 99, "UDP port");
	VT_CHECK_EQ(r16(out + 40), 0, "no UDP checksum made up");
	/* offset 0, length 8: the low byte of the address. */
	VT_CHECK_EQ(r32(out + 30), 0xc633647f, "low byte of the address");
	VT_CHECK(ip4_ok(out, 14), "IPv4 header checksum");
	memcpy(out + 36, p.b + 36, 2);
	memcpy(out + 33, p.b + 33, 1);
	memcpy(out + 24, p.b + 24, 2);
	VT_CHECK(memcmp(out, p.b, p.n) == 0, "nothing else changed");
	VT_CHECK_EQ(apply_mod(none, RTE_DIM(none), RX, &p, out), p.n,
		    "applied");
	VT_CHECK(memcmp(out, p.b, p.n) == 0, "no TCP, no IPv6: unchanged");
	/* A runt frame has no MAC addresses either: nothing is written
	 * past its end (the fuzzer's first find). */
	p.n = 10;
	memset(out, 0xa5, sizeof(out));
	VT_CHECK_EQ(apply_mod(mac, RTE_DIM(mac), RX, &p, out), 10, "runt");
	VT_CHECK(memcmp(out, p.b, 10) == 0, "runt unchanged");
	VT_CHECK(out[10] == 0xa5 && out[11] == 0xa5, "written past the runt");
	return VT_OK;
}

/* SET's offset counts from the field's low bit. */
static int
test_rewrite_bits(void)
{
	const uint64_t c[] = {
		cmd(VSTEER_PRM_MOD_SET, VSTEER_PRM_MODI_OUT_SIPV4, 8, 8, 0xab),
		cmd(VSTEER_PRM_MOD_SET, VSTEER_PRM_MODI_OUT_UDP_SPORT, 4, 4,
		    0xff),
	};
	uint8_t out[1024];
	struct pkt p = { 0 };

	eth(&p, 0x0800);
	ipv4(&p, 0x01020304, 0x05060708, IPPROTO_UDP, 9, 0);
	udp(&p, 0x1234, 6);
	pkt_end(&p, true);
	VT_CHECK_EQ(apply_mod(c, RTE_DIM(c), RX, &p, out), p.n, "applied");
	VT_CHECK_EQ(r32(out + 26), 0x0102ab04, "bits 8..15");
	VT_CHECK_EQ(r16(out + 34), 0x12f4, "bits 4..7");
	VT_CHECK(ip4_ok(out, 14) && l4_ok(out, 14, 34, 6, false), "checksums");
	return VT_OK;
}

/* ---- reformat ---- */

/* An inner frame: what decap must give back. */
static void
inner_frame(struct pkt *in)
{
	memset(in, 0, sizeof(*in));
	eth(in, 0x0800);
	in->b[0] = 0x02;
	in->b[5] = 0x77;
	ipv4(in, 0x0a010101, 0x0a020202, IPPROTO_UDP, 33, 0);
	udp(in, 7, 8);
	payload(in, 21, 5);
	pkt_end(in, true);
}

static uint32_t
run(struct ibv_flow_action *mod, struct ibv_flow_action *rf, const uint8_t *f,
    uint32_t n, uint8_t *out)
{
	struct sv_edit e;

	prog(&e, mod, rf);
	return sv_edit_apply(&e, f, n, out, 1024);
}

/* A tunnel around in (whole frame, or from its L3 header where the
 * tunnel carries IP): an IPv4 (or IPv6) outer header, then the tunnel. */
enum tun {
	T_VXLAN,
	T_VXLAN_4790,
	T_NVGRE6,
	T_GRE_IP,
	T_MPLS_UDP
};

static void
tunnel(struct pkt *p, enum tun t, const struct pkt *in)
{
	bool l3 = t == T_GRE_IP || t == T_MPLS_UDP;

	memset(p, 0, sizeof(*p));
	eth(p, t == T_NVGRE6 ? 0x86dd : 0x0800);
	if (t == T_NVGRE6)
		ipv6(p, 1, 2, 47, 64, 0);
	else
		ipv4(p, 0xc6336401, 0xc6336402,
		     t == T_GRE_IP ? 47 : IPPROTO_UDP, 64, 0);
	switch (t) {
	case T_VXLAN:
	case T_VXLAN_4790:
		udp(p, 40000, t == T_VXLAN ? 4789 : 4790);
		vxlan(p, 100);
		break;
	case T_NVGRE6:
		gre(p, 0x6558, true, 0x123456);
		break;
	case T_GRE_IP:
		gre(p, 0x0800, true, 7);
		break;
	case T_MPLS_UDP:
		udp(p, 3, 6635);
		mpls(p, 10, false);
		mpls(p, 20, true);
		break;
	}
	memcpy(put(p, in->n - (l3 ? 14 : 0)), in->b + (l3 ? 14 : 0),
	       in->n - (l3 ? 14 : 0));
	pkt_end(p, false);
}

/* What each decap leaves of each tunnel: the inner frame, the inner
 * packet behind the action's L2 header, or the frame as it was. */
enum left {
	L_INNER,
	L_NEW_L2,
	L_ASIS
};

static int
test_decap(void)
{
	static const struct {
		int type;
		enum tun t;
		enum left left;
	} cases[] = {
		{ L2_DECAP, T_VXLAN, L_INNER },
		{ L2_DECAP, T_NVGRE6, L_INNER },
		{ L2_DECAP, T_GRE_IP, L_ASIS },
		{ L2_DECAP, T_VXLAN_4790, L_ASIS },
		{ L2_DECAP, T_MPLS_UDP, L_ASIS },
		{ L3_DECAP, T_VXLAN, L_NEW_L2 },
		{ L3_DECAP, T_NVGRE6, L_NEW_L2 },
		{ L3_DECAP, T_GRE_IP, L_NEW_L2 },
		{ L3_DECAP, T_MPLS_UDP, L_NEW_L2 },
		{ L3_DECAP, T_VXLAN_4790, L_ASIS },
	};
	struct ibv_flow_action *a;
	struct pkt in, p, l2 = { 0 };
	uint8_t out[1024];
	unsigned int i;
	uint32_t n;

	eth(&l2, 0x0800);
	l2.b[11] = 0x42;
	inner_frame(&in);
	for (i = 0; i < RTE_DIM(cases); i++) {
		a = reformat(D.ctx, cases[i].type == L2_DECAP ? NULL : l2.b,
			     cases[i].type == L2_DECAP ? 0 : 14, cases[i].type,
			     RX);
		VT_CHECK(a != NULL, "decap: errno %d", errno);
		tunnel(&p, cases[i].t, &in);
		n = run(NULL, a, p.b, p.n, out);
		VT_CHECK_EQ(ibv_destroy_flow_action(a), 0, "destroy");
		switch (cases[i].left) {
		case L_INNER:
			VT_CHECK(n == in.n && memcmp(out, in.b, n) == 0,
				 "case %u: the inner frame", i);
			break;
		case L_NEW_L2:
			VT_CHECK(n == in.n && memcmp(out, l2.b, 14) == 0 &&
					 memcmp(out + 14, in.b + 14,
						in.n - 14) == 0,
				 "case %u: new L2, inner packet", i);
			break;
		case L_ASIS:
			VT_CHECK(n == p.n && memcmp(out, p.b, n) == 0,
				 "case %u: left as is", i);
			break;
		}
	}
	/* No tunnel at all. */
	a = reformat(D.ctx, NULL, 0, L2_DECAP, RX);
	VT_CHECK(a != NULL, "decap: errno %d", errno);
	n = run(NULL, a, in.b, in.n, out);
	VT_CHECK(n == in.n && memcmp(out, in.b, n) == 0, "plain left as is");
	VT_CHECK_EQ(ibv_destroy_flow_action(a), 0, "destroy");
	return VT_OK;
}

/* The outer header of a VXLAN encap: zero lengths and checksum, a UDP
 * checksum that is sent as it is. */
static uint32_t
vxlan_hdr(struct pkt *h, bool v6, bool tag, uint16_t udp_ck)
{
	memset(h, 0, sizeof(*h));
	eth(h, tag ? 0x8100 : v6 ? 0x86dd : 0x0800);
	if (tag)
		vlan(h, 7, v6 ? 0x86dd : 0x0800);
	if (v6)
		ipv6(h, 5, 6, IPPROTO_UDP, 64, 0);
	else
		ipv4(h, 0xc6336401, 0xc6336402, IPPROTO_UDP, 64, 0);
	if (!v6) {
		w16(h->b + h->n - 20 + 4, 0);
		w16(h->b + h->n - 20 + 10, 0);
	}
	udp(h, 4000, 4789);
	w16(h->b + h->n - 2, udp_ck);
	vxlan(h, 100);
	return h->n;
}

static int
test_encap_l2(void)
{
	struct pkt in, h, want;
	struct ibv_flow_action *a;
	uint8_t out[1024];
	unsigned int v;
	uint32_t n;

	inner_frame(&in);
	for (v = 0; v < 4; v++) {
		bool v6 = v & 1, tag = v & 2;

		vxlan_hdr(&h, v6, tag, 0xbeef);
		a = reformat(D.ctx, h.b, h.n, L2_ENCAP, TX);
		VT_CHECK(a != NULL, "encap: errno %d", errno);
		n = run(NULL, a, in.b, in.n, out);
		/* What the wire must carry: lengths filled, the IPv4
		 * checksum computed, the UDP checksum the data's. */
		vxlan_hdr(&want, v6, tag, 0);
		memcpy(put(&want, in.n), in.b, in.n);
		pkt_end(&want, false);
		w16(want.b + h.n - 16 + 6, 0xbeef);
		VT_CHECK(n == want.n && memcmp(out, want.b, n) == 0,
			 "encap %s%s: %u bytes, want %u", v6 ? "IPv6" : "IPv4",
			 tag ? " tagged" : "", n, want.n);
		if (!v6)
			VT_CHECK(ip4_ok(out, tag ? 18 : 14), "outer checksum");
		VT_CHECK_EQ(ibv_destroy_flow_action(a), 0, "destroy");
	}
	return VT_OK;
}

static int
test_encap_l3(void)
{
	struct pkt in, h, want;
	struct ibv_flow_action *a;
	uint8_t out[1024];
	uint32_t n;

	memset(&in, 0, sizeof(in));
	eth(&in, 0x8100);
	vlan(&in, 3, 0x0800);
	ipv4(&in, 0x0a010101, 0x0a020202, IPPROTO_UDP, 33, 0);
	udp(&in, 7, 8);
	payload(&in, 9, 5);
	pkt_end(&in, true);
	/* MPLS over UDP: the frame's L2 header and tag make way. */
	memset(&h, 0, sizeof(h));
	eth(&h, 0x0800);
	ipv4(&h, 1, 2, IPPROTO_UDP, 64, 0);
	w16(h.b + 14 + 10, 0);
	w16(h.b + 14 + 2, 0);
	udp(&h, 5, 6635);
	mpls(&h, 77, true);
	a = reformat(D.ctx, h.b, h.n, L3_ENCAP, TX);
	VT_CHECK(a != NULL, "L3 encap: errno %d", errno);
	n = run(NULL, a, in.b, in.n, out);
	memcpy(&want, &h, sizeof(h));
	memcpy(put(&want, in.n - 18), in.b + 18, in.n - 18);
	pkt_end(&want, false);
	VT_CHECK(n == want.n && memcmp(out, want.b, n) == 0,
		 "MPLSoUDP encap: %u bytes, want %u", n, want.n);
	VT_CHECK_EQ(ibv_destroy_flow_action(a), 0, "destroy");
	return VT_OK;
}

/* Decap, then rewrite (of the frame the decap left); rewrite, then encap
 * (of the frame as sent): the hardware's order. */
static int
test_edit_order(void)
{
	const uint64_t c[] = { SET(DIPV4, 0, 0x0a0a0a0a) };
	struct ibv_flow_action *m, *d, *enc;
	struct pkt in, p, h;
	uint8_t out[1024];
	uint32_t n;

	inner_frame(&in);
	tunnel(&p, T_VXLAN, &in);
	m = modify(D.ctx, c, 1, RX);
	d = reformat(D.ctx, NULL, 0, L2_DECAP, RX);
	VT_CHECK(m != NULL && d != NULL, "actions: errno %d", errno);
	n = run(m, d, p.b, p.n, out);
	VT_CHECK_EQ(n, in.n, "decapsulated");
	VT_CHECK_EQ(r32(out + 30), 0x0a0a0a0a, "inner destination rewritten");
	VT_CHECK(ip4_ok(out, 14) && l4_ok(out, 14, 34, 6, false),
		 "inner checksums");
	VT_CHECK_EQ(ibv_destroy_flow_action(m), 0, "destroy");
	m = modify(D.ctx, c, 1, TX);
	vxlan_hdr(&h, false, false, 0);
	enc = reformat(D.ctx, h.b, h.n, L2_ENCAP, TX);
	VT_CHECK(m != NULL && enc != NULL, "actions: errno %d", errno);
	n = run(m, enc, in.b, in.n, out);
	VT_CHECK_EQ(n, in.n + h.n, "encapsulated");
	VT_CHECK_EQ(r32(out + 30), 0xc6336402, "outer destination as pushed");
	VT_CHECK_EQ(r32(out + h.n + 30), 0x0a0a0a0a,
		    "the frame rewritten before the push");
	VT_CHECK(ip4_ok(out, 14) && ip4_ok(out, h.n + 14), "checksums");
	VT_CHECK_EQ(ibv_destroy_flow_action(m), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(enc), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(d), 0, "destroy");
	return VT_OK;
}

/* ---- objects and their errors ---- */

#define REFUSED(call, err)                                               \
	do {                                                             \
		struct ibv_flow_action *r_;                              \
		errno = 0;                                               \
		r_ = (call);                                             \
		VT_CHECK(r_ == NULL && errno == (err),                   \
			 "%s: %s, errno %d, want %d", #call,             \
			 r_ != NULL ? "made" : "refused", errno, (err)); \
	} while (0)

static int
test_modify_errors(void)
{
	const uint64_t ok = SET(SIPV4, 0, 1);
	uint64_t c[300];
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++)
		c[i] = SET(IPV4_TTL, 8, i);
	/* Sizes (uverbs): under 8 bytes, not a multiple of 8. */
	REFUSED(sv_mlx5dv_create_flow_action_modify_header(D.ctx, 4, c, RX),
		EINVAL);
	REFUSED(sv_mlx5dv_create_flow_action_modify_header(D.ctx, 12, c, RX),
		EINVAL);
	/* Table types (mlx5_ib_ft_type_to_namespace()). */
	REFUSED(modify(D.ctx, &ok, 1, 5), EINVAL);
	REFUSED(modify(D.ctx, &ok, 1, MLX5DV_FLOW_TABLE_TYPE_FDB), EOPNOTSUPP);
	REFUSED(modify(D.ctx, &ok, 1, MLX5DV_FLOW_TABLE_TYPE_RDMA_RX),
		EOPNOTSUPP);
	/* max_modify_header_actions (16 here), a u8 count (256 is 0). */
	REFUSED(modify(D.ctx, c, 17, RX), EOPNOTSUPP);
	REFUSED(modify(D.ctx, c, 256, TX), EINVAL);
	REFUSED(modify(D.ctx, c, 273, TX), EOPNOTSUPP);
	/* What the firmware refuses. */
	c[0] = cmd(VSTEER_PRM_MOD_COPY, VSTEER_PRM_MODI_OUT_SIPV4, 0, 0, 0);
	REFUSED(modify(D.ctx, c, 1, RX), EINVAL);
	c[0] = cmd(7, VSTEER_PRM_MODI_OUT_SIPV4, 0, 0, 0);
	REFUSED(modify(D.ctx, c, 1, RX), EINVAL);
	c[0] = cmd(VSTEER_PRM_MOD_SET, 0x30, 0, 0, 0);
	REFUSED(modify(D.ctx, c, 1, RX), EINVAL);
	c[0] = SET(UDP_SPORT, 0, 1); /* 32 bits of a 16-bit field */
	REFUSED(modify(D.ctx, c, 1, RX), EINVAL);
	c[0] = cmd(VSTEER_PRM_MOD_SET, VSTEER_PRM_MODI_OUT_IPV4_TTL, 4, 5, 0);
	REFUSED(modify(D.ctx, c, 1, RX), EINVAL);
	c[0] = ADD(UDP_SPORT, 1);
	REFUSED(modify(D.ctx, c, 1, RX), EINVAL);
	c[0] = SET(SIPV4, 0, 1);
	c[1] = SET(SIPV6_31_0, 0, 1);
	REFUSED(modify(D.ctx, c, 2, RX), EINVAL);
	c[1] = SET(TCP_SPORT, 16, 1);
	c[2] = SET(UDP_DPORT, 16, 1);
	REFUSED(modify(D.ctx, c, 3, RX), EINVAL);
	/* Real fields not modelled. */
	c[0] = cmd(VSTEER_PRM_MOD_SET, VSTEER_PRM_MODI_META_REG_C_0, 0, 0, 1);
	REFUSED(modify(D.ctx, c, 1, RX), EOPNOTSUPP);
	c[0] = cmd(VSTEER_PRM_MOD_SET, VSTEER_PRM_MODI_IN_DIPV4, 0, 0, 1);
	REFUSED(modify(D.ctx, c, 1, RX), EOPNOTSUPP);
	return VT_OK;
}

static int
test_reformat_errors(void)
{
	uint8_t data[200] = { 0 };
	struct ibv_flow_action *a;

	/* libmlx5: data and size go together. */
	REFUSED(reformat(D.ctx, NULL, 14, L3_DECAP, RX), EINVAL);
	REFUSED(reformat(D.ctx, data, 0, L2_ENCAP, TX), EINVAL);
	/* The kernel: each type on its table only. */
	REFUSED(reformat(D.ctx, NULL, 0, L2_DECAP, TX), EOPNOTSUPP);
	REFUSED(reformat(D.ctx, data, 14, L3_DECAP, TX), EOPNOTSUPP);
	REFUSED(reformat(D.ctx, data, 50, L2_ENCAP, RX), EOPNOTSUPP);
	REFUSED(reformat(D.ctx, data, 50, L3_ENCAP, RX), EOPNOTSUPP);
	REFUSED(reformat(D.ctx, data, 50, 9, TX), EOPNOTSUPP);
	REFUSED(reformat(D.ctx, data, 50, L2_ENCAP, 7), EOPNOTSUPP);
	/* Data: needed, at most max_encap_header_size (128 here). */
	REFUSED(reformat(D.ctx, NULL, 0, L2_ENCAP, TX), ENOENT);
	REFUSED(reformat(D.ctx, data, 129, L2_ENCAP, TX), EINVAL);
	REFUSED(reformat(D.ctx, data, 15, L3_DECAP, RX), EINVAL);
	a = reformat(D.ctx, data, 128, L2_ENCAP, TX);
	VT_CHECK(a != NULL, "128 bytes: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow_action(a), 0, "destroy");
	a = reformat(D.ctx, data, 18, L3_DECAP, RX);
	VT_CHECK(a != NULL, "MAC and VLAN: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow_action(a), 0, "destroy");
	/* The decap type keeps no data. */
	a = reformat(D.ctx, data, 30, L2_DECAP, RX);
	VT_CHECK(a != NULL, "decap with data: errno %d", errno);
	VT_CHECK_EQ(sv_flow_action_of(a)->n, 0, "no data kept");
	VT_CHECK_EQ(ibv_destroy_flow_action(a), 0, "destroy");
	return VT_OK;
}

/* A device whose tables take fewer modify actions; the generic profile
 * has no mlx5dv at all. */
static int
test_device_limits(void)
{
	const uint64_t c[3] = { SET(SIPV4, 0, 1), SET(DIPV4, 0, 2),
				SET(IPV4_TTL, 8, 3) };
	struct sv_device_opts g = { .profile = SV_PROFILE_GENERIC };
	struct ibv_flow_action *a;
	struct dev d;
	char name[64];

	VT_CHECK(dev_up(&d, "svact-two", 2) == 0, "device: errno %d", errno);
	REFUSED(modify(d.ctx, c, 3, RX), EOPNOTSUPP);
	a = modify(d.ctx, c, 2, RX);
	VT_CHECK(a != NULL, "two actions: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow_action(a), 0, "destroy");
	VT_CHECK_EQ(dev_down(&d), 0, "down");
	g.modify_actions = 4;
	VT_CHECK_EQ(softverbs_device_add("mem:svact-g", &g, name, sizeof(name)),
		    EINVAL, "modify_actions on generic");
	g.profile = SV_PROFILE_MLX5;
	g.modify_actions = 256;
	VT_CHECK_EQ(softverbs_device_add("mem:svact-g", &g, name, sizeof(name)),
		    EINVAL, "modify_actions is 8 bits");
	g.profile = SV_PROFILE_GENERIC;
	g.modify_actions = 0;
	VT_CHECK_EQ(softverbs_device_add("mem:svact-g", &g, name, sizeof(name)),
		    0, "generic device");
	d.ctx = vt_open_by_name(name);
	VT_CHECK(d.ctx != NULL, "open");
	snprintf(d.name, sizeof(d.name), "%s", name);
	REFUSED(modify(d.ctx, c, 1, RX), EOPNOTSUPP);
	REFUSED(reformat(d.ctx, NULL, 0, L2_DECAP, RX), EOPNOTSUPP);
	VT_CHECK_EQ(dev_down(&d), 0, "down");
	return VT_OK;
}

/* QUERY_HCA_CAP reports the limits the actions are held to. */
static int
test_caps_query(void)
{
	uint8_t in[VSTEER_PRM_QUERY_HCA_CAP_IN_BYTES] = { 0 };
	static uint8_t out[VSTEER_PRM_QUERY_HCA_CAP_OUT_BYTES];
	const uint32_t cap = VSTEER_PRM_QUERY_HCA_CAP_OUT_CAPABILITY_OFF;
	struct dev d;

	VT_CHECK(dev_up(&d, "svact-caps", 7) == 0, "device: errno %d", errno);
	vsteer_prm_set(in, VSTEER_PRM_IN_OPCODE_OFF, VSTEER_PRM_IN_OPCODE_LEN,
		       VSTEER_PRM_CMD_QUERY_HCA_CAP);
	vsteer_prm_set(in, VSTEER_PRM_IN_OP_MOD_OFF, VSTEER_PRM_IN_OP_MOD_LEN,
		       VSTEER_PRM_HCA_CAP_OP_MOD_NIC_FLOW_TABLE |
			       VSTEER_PRM_HCA_CAP_OPMOD_GET_CUR);
	VT_CHECK_EQ(sv_mlx5dv_devx_general_cmd(d.ctx, in, sizeof(in), out,
					       sizeof(out)),
		    0, "QUERY_HCA_CAP");
	VT_CHECK_EQ(vsteer_prm_get(
			    out,
			    cap + VSTEER_PRM_FT_NIC_RX_PROPS_OFF +
				    VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_OFF,
			    VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_LEN),
		    7, "receive table");
	VT_CHECK_EQ(vsteer_prm_get(
			    out,
			    cap + VSTEER_PRM_FT_NIC_TX_PROPS_OFF +
				    VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_OFF,
			    VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_LEN),
		    7, "transmit table");
	VT_CHECK_EQ(vsteer_prm_get(out,
				   cap + VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_OFF,
				   VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_LEN),
		    SV_ENCAP_SIZE_DEFAULT, "max_encap_header_size");
	VT_CHECK_EQ(dev_down(&d), 0, "down");
	return VT_OK;
}

/* ---- flows ---- */

#define NBUF 16

static const struct vt_svenv_cfg env_cfg = {
	.link_prefix = "svact",
	.nq = 1,
	.nbuf = NBUF,
	.rx_cqe = NBUF,
	.tx_wr = 8,
	.tx_slots = 8,
	.rss_key = (const uint8_t[SV_RSS_KEY_LEN]){ 1 },
	.pump = true,
};

/* A matcher on the outer IPv4 destination; ft_type: NIC_RX or NIC_TX. */
static struct mlx5dv_flow_matcher *
dst_matcher(struct ibv_context *ctx, int ft)
{
	static uint64_t buf[1 + VSTEER_PRM_MATCH_PARAM_BYTES / 8];
	struct mlx5dv_flow_match_parameters *mp = (void *)buf;
	struct mlx5dv_flow_matcher_attr ma = {
		.type = IBV_FLOW_ATTR_NORMAL,
		.match_criteria_enable = 1u << VSTEER_PRM_CRIT_OUTER_BIT,
		.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE,
		.ft_type = (enum mlx5dv_flow_table_type)ft,
	};

	memset(buf, 0, sizeof(buf));
	mp->match_sz = VSTEER_PRM_SECT_BYTES;
	VSTEER_PRM_SET(mp->match_buf, VSTEER_PRM_OUTER,
		       VSTEER_PRM_L24_IP_VERSION, 0xf);
	VSTEER_PRM_SET(mp->match_buf, VSTEER_PRM_OUTER, VSTEER_PRM_L24_DST_IPV4,
		       UINT32_MAX);
	ma.match_mask = mp;
	return sv_mlx5dv_create_flow_matcher(ctx, &ma);
}

static struct ibv_flow *
dst_flow(struct mlx5dv_flow_matcher *m, uint32_t dst,
	 struct mlx5dv_flow_action_attr *a, size_t n)
{
	static uint64_t buf[1 + VSTEER_PRM_MATCH_PARAM_BYTES / 8];
	struct mlx5dv_flow_match_parameters *mp = (void *)buf;

	memset(buf, 0, sizeof(buf));
	mp->match_sz = VSTEER_PRM_SECT_BYTES;
	VSTEER_PRM_SET(mp->match_buf, VSTEER_PRM_OUTER,
		       VSTEER_PRM_L24_IP_VERSION, 4);
	VSTEER_PRM_SET(mp->match_buf, VSTEER_PRM_OUTER, VSTEER_PRM_L24_DST_IPV4,
		       dst);
	return sv_mlx5dv_create_flow(m, mp, n, a);
}

static void
fa_attr(struct mlx5dv_flow_action_attr *a, struct ibv_flow_action *fa)
{
	memset(a, 0, sizeof(*a));
	a->type = MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION;
	a->action = fa;
}

#define FLOW_REFUSED(m, dst, a, n, err)                                  \
	do {                                                             \
		struct ibv_flow *f_;                                     \
		errno = 0;                                               \
		f_ = dst_flow(m, dst, a, n);                             \
		VT_CHECK(f_ == NULL && errno == (err),                   \
			 "flow: %s, errno %d, want %d",                  \
			 f_ != NULL ? "made" : "refused", errno, (err)); \
	} while (0)

static struct vt_svenv E;

static int
test_flow_errors(void)
{
	const uint64_t c = SET(DIPV4, 0, 1);
	struct vt_svenv *e = &E;
	struct mlx5dv_flow_matcher *rx, *tx;
	struct ibv_flow_action *mrx, *mrx2, *mtx, *dec, *l3d, *enc;
	struct mlx5dv_flow_action_attr a[10];
	struct ibv_flow *f, *f2;
	uint8_t l2[14] = { 2, 0, 0, 0, 0, 1, 2, 0, 0, 0, 0, 2, 8, 0 };
	struct pkt h;
	unsigned int i;

	VT_CHECK(vt_svenv_up(e, &env_cfg) == 0, "set-up: errno %d", errno);
	rx = dst_matcher(e->ctx[1], RX);
	tx = dst_matcher(e->ctx[1], TX);
	VT_CHECK(rx != NULL && tx != NULL, "matchers: errno %d", errno);
	mrx = modify(e->ctx[1], &c, 1, RX);
	mrx2 = modify(e->ctx[1], &c, 1, RX);
	mtx = modify(e->ctx[1], &c, 1, TX);
	dec = reformat(e->ctx[1], NULL, 0, L2_DECAP, RX);
	l3d = reformat(e->ctx[1], l2, 14, L3_DECAP, RX);
	vxlan_hdr(&h, false, false, 0);
	enc = reformat(e->ctx[1], h.b, h.n, L2_ENCAP, TX);
	VT_CHECK(mrx && mrx2 && mtx && dec && l3d && enc, "actions: errno %d",
		 errno);
	memset(a, 0, sizeof(a));
	a[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	a[0].qp = e->q[0].hqp;
	/* libmlx5 sends 8 at most; the kernel takes 2. */
	for (i = 1; i < 10; i++)
		fa_attr(&a[i], mrx);
	FLOW_REFUSED(rx, 1, a, 10, EOPNOTSUPP);
	FLOW_REFUSED(rx, 1, a, 4, EINVAL);
	/* One of each kind. */
	fa_attr(&a[2], mrx2);
	FLOW_REFUSED(rx, 1, a, 3, EINVAL);
	fa_attr(&a[1], dec);
	fa_attr(&a[2], l3d);
	FLOW_REFUSED(rx, 1, a, 3, EINVAL);
	/* The table the action was made for. */
	fa_attr(&a[1], mtx);
	FLOW_REFUSED(rx, 1, a, 2, EINVAL);
	fa_attr(&a[1], enc);
	FLOW_REFUSED(rx, 1, a, 2, EINVAL);
	fa_attr(&a[0], dec);
	FLOW_REFUSED(tx, 1, a, 1, EINVAL);
	fa_attr(&a[0], mrx);
	FLOW_REFUSED(tx, 1, a, 1, EINVAL);
	a[0].action = NULL;
	FLOW_REFUSED(tx, 1, a, 1, EINVAL);
	/* Egress: rewrite and encap, no destination. */
	fa_attr(&a[0], mtx);
	fa_attr(&a[1], enc);
	f = dst_flow(tx, 1, a, 2);
	VT_CHECK(f != NULL, "egress rewrite + encap: errno %d", errno);
	/* In use: EBUSY. */
	VT_CHECK_EQ(ibv_destroy_flow_action(enc), EBUSY, "encap in use");
	VT_CHECK_EQ(ibv_destroy_flow_action(mtx), EBUSY, "modify in use");
	/* The same match with other actions: conflicting FTEs (EEXIST);
	 * with the same objects it joins. */
	FLOW_REFUSED(tx, 1, a, 1, EEXIST);
	f2 = dst_flow(tx, 1, a, 2);
	VT_CHECK(f2 != NULL, "same actions join: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow(f2), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(f), 0, "destroy");
	a[0].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	a[0].qp = e->q[0].hqp;
	fa_attr(&a[1], mrx);
	fa_attr(&a[2], dec);
	f = dst_flow(rx, 1, a, 3);
	VT_CHECK(f != NULL, "ingress decap + rewrite: errno %d", errno);
	fa_attr(&a[1], mrx2);
	FLOW_REFUSED(rx, 1, a, 3, EEXIST);
	VT_CHECK_EQ(ibv_destroy_flow(f), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(enc), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(mtx), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(mrx), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(mrx2), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(dec), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(l3d), 0, "destroy");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(rx), 0, "matcher");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(tx), 0, "matcher");
	VT_CHECK(vt_svenv_down(e) == 0, "tear-down");
	return VT_OK;
}

/* Take what end's queue q got: frames into f[] (at most NBUF). */
static int
take(struct vt_svenv *e, int end, struct vt_rxq *q, uint64_t want,
     struct pkt *f, uint32_t *tags, int *n)
{
	struct ibv_poll_cq_attr pa = { .comp_mask = 0 };
	double deadline = vt_now_s() + 2.0;
	int rc;

	*n = 0;
	while (vt_svenv_stats(e, end).rx_frames < want &&
	       vt_now_s() < deadline) {
		struct ibv_wc wc;

		/* Polling an empty CQ of the end pumps it. */
		ibv_poll_cq(e->tx[end].cq, 1, &wc);
	}
	rc = ibv_start_poll(q->cq, &pa);
	if (rc == ENOENT)
		return 0;
	if (rc != 0)
		return -1;
	do {
		uint32_t len = ibv_wc_read_byte_len(q->cq);

		if (q->cq->status != IBV_WC_SUCCESS || *n >= NBUF ||
		    len > sizeof(f->b)) {
			ibv_end_poll(q->cq);
			return -1;
		}
		memcpy(f[*n].b, q->buf + q->cq->wr_id * VT_SVENV_BUFSZ, len);
		f[*n].n = len;
		if (tags != NULL)
			tags[*n] = ibv_wc_read_flow_tag(q->cq);
		(*n)++;
		if (vt_svenv_post_rx(q, q->cq->wr_id) != 0) {
			ibv_end_poll(q->cq);
			return -1;
		}
		rc = ibv_next_poll(q->cq);
	} while (rc == 0);
	ibv_end_poll(q->cq);
	return rc == ENOENT ? 0 : -1;
}

static struct mlx5dv_devx_obj *
counter(struct ibv_context *ctx, uint32_t *id)
{
	uint8_t in[VSTEER_PRM_ALLOC_FC_IN_BYTES] = { 0 };
	uint8_t out[VSTEER_PRM_ALLOC_FC_OUT_BYTES] = { 0 };
	struct mlx5dv_devx_obj *o;

	vsteer_prm_set(in, VSTEER_PRM_IN_OPCODE_OFF, VSTEER_PRM_IN_OPCODE_LEN,
		       VSTEER_PRM_CMD_ALLOC_FLOW_COUNTER);
	o = sv_mlx5dv_devx_obj_create(ctx, in, sizeof(in), out, sizeof(out));
	if (o != NULL)
		*id = vsteer_prm_get(out, VSTEER_PRM_ALLOC_FC_OUT_ID_OFF,
				     VSTEER_PRM_ALLOC_FC_OUT_ID_LEN);
	return o;
}

static int
counted(struct mlx5dv_devx_obj *o, uint32_t id, uint64_t *pk, uint64_t *by)
{
	uint8_t in[VSTEER_PRM_QUERY_FC_IN_BYTES] = { 0 };
	uint8_t out[VSTEER_PRM_QUERY_FC_OUT_BYTES] = { 0 };
	int rc;

	vsteer_prm_set(in, VSTEER_PRM_IN_OPCODE_OFF, VSTEER_PRM_IN_OPCODE_LEN,
		       VSTEER_PRM_CMD_QUERY_FLOW_COUNTER);
	vsteer_prm_set(in, VSTEER_PRM_QUERY_FC_IN_ID_OFF,
		       VSTEER_PRM_QUERY_FC_IN_ID_LEN, id);
	rc = sv_mlx5dv_devx_obj_query(o, in, sizeof(in), out, sizeof(out));
	*pk = vsteer_prm_get64(out, VSTEER_PRM_QUERY_FC_OUT_STATS_OFF +
					    VSTEER_PRM_TRAFFIC_PACKETS_OFF);
	*by = vsteer_prm_get64(out, VSTEER_PRM_QUERY_FC_OUT_STATS_OFF +
					    VSTEER_PRM_TRAFFIC_OCTETS_OFF);
	return rc;
}

/* VXLAN frames sent to end 1: decapsulated, their inner destination
 * rewritten, tagged, counted at the length they had on the wire. */
static int
test_traffic_ingress(void)
{
	const uint64_t c[] = { SET(DIPV4, 0, 0x0a0b0c0d), ADD(IPV4_TTL, 0xff) };
	struct vt_svenv *e = &E;
	struct mlx5dv_flow_matcher *m;
	struct ibv_flow_action *mod, *dec;
	struct mlx5dv_flow_action_attr a[5];
	struct mlx5dv_devx_obj *cnt;
	struct ibv_flow *f;
	struct pkt in, p, got[NBUF];
	uint32_t id, tags[NBUF];
	uint64_t pk, by;
	int n;

	VT_CHECK(vt_svenv_up(e, &env_cfg) == 0, "set-up: errno %d", errno);
	m = dst_matcher(e->ctx[1], RX);
	mod = modify(e->ctx[1], c, RTE_DIM(c), RX);
	dec = reformat(e->ctx[1], NULL, 0, L2_DECAP, RX);
	cnt = counter(e->ctx[1], &id);
	VT_CHECK(m && mod && dec && cnt, "objects: errno %d", errno);
	/* Listed rewrite first: the decap still comes first. */
	fa_attr(&a[0], mod);
	fa_attr(&a[1], dec);
	a[2].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
	a[2].qp = e->q[0].hqp;
	a[3].type = MLX5DV_FLOW_ACTION_TAG;
	a[3].tag_value = 0x55;
	a[4].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	a[4].obj = cnt;
	f = dst_flow(m, 0xc6336402, a, 5);
	VT_CHECK(f != NULL, "flow: errno %d", errno);
	inner_frame(&in);
	tunnel(&p, T_VXLAN, &in);
	VT_CHECK(vt_svenv_xmit(e, 0, p.b, p.n) == 0, "send");
	VT_CHECK(vt_svenv_xmit(e, 0, p.b, p.n) == 0, "send");
	VT_CHECK(take(e, 1, &e->q[0], 2, got, tags, &n) == 0 && n == 2,
		 "two frames delivered (%d)", n);
	VT_CHECK_EQ(got[0].n, in.n, "inner length");
	VT_CHECK_EQ(tags[0], 0x55, "tagged");
	VT_CHECK_EQ(r32(got[0].b + 30), 0x0a0b0c0d, "rewritten");
	VT_CHECK_EQ(got[0].b[22], 32, "TTL decremented");
	VT_CHECK(memcmp(got[0].b, in.b, 22) == 0 &&
			 memcmp(got[0].b + 34, in.b + 34, 6) == 0 &&
			 memcmp(got[0].b + 42, in.b + 42, in.n - 42) == 0,
		 "the rest as sent inside");
	VT_CHECK(ip4_ok(got[0].b, 14) && l4_ok(got[0].b, 14, 34, 6, false),
		 "checksums");
	VT_CHECK_EQ(counted(cnt, id, &pk, &by), 0, "query");
	VT_CHECK(pk == 2 && by == 2ull * p.n, "counted %llu frames %llu bytes",
		 (unsigned long long)pk, (unsigned long long)by);
	VT_CHECK_EQ(ibv_destroy_flow(f), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(mod), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(dec), 0, "destroy");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(cnt), 0, "counter");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher");
	VT_CHECK(vt_svenv_down(e) == 0, "tear-down");
	return VT_OK;
}

/* Frames end 1 sends: one rule rewrites and encapsulates them before the
 * wire, another drops and counts; end 0 takes everything into a queue. */
static int
test_traffic_egress(void)
{
	const uint64_t c[] = { SET(UDP_DPORT, 16, 9999) };
	struct vt_svenv *e = &E;
	struct mlx5dv_flow_matcher *m;
	struct ibv_flow_action *mod, *enc;
	struct mlx5dv_flow_action_attr a[2];
	struct mlx5dv_devx_obj *cnt;
	struct ibv_flow *f, *fd, *dflt;
	struct pkt in, h, want, got[NBUF];
	struct ibv_flow_attr all = {
		.type = IBV_FLOW_ATTR_ALL_DEFAULT,
		.size = sizeof(all),
		.port = 1,
	};
	struct vt_rxq q0;
	uint32_t id;
	uint64_t pk, by;
	int n;

	VT_CHECK(vt_svenv_up(e, &env_cfg) == 0, "set-up: errno %d", errno);
	VT_CHECK(vt_svenv_rxq_up_on(e, 0, &q0, NBUF) == 0, "end 0 queue");
	dflt = ibv_create_flow(q0.hqp, &all);
	VT_CHECK(dflt != NULL, "end 0 takes all: errno %d", errno);
	m = dst_matcher(e->ctx[1], TX);
	mod = modify(e->ctx[1], c, 1, TX);
	vxlan_hdr(&h, false, true, 0);
	enc = reformat(e->ctx[1], h.b, h.n, L2_ENCAP, TX);
	cnt = counter(e->ctx[1], &id);
	VT_CHECK(m && mod && enc && cnt, "objects: errno %d", errno);
	fa_attr(&a[0], enc);
	fa_attr(&a[1], mod);
	f = dst_flow(m, 0x0a020202, a, 2);
	VT_CHECK(f != NULL, "encap flow: errno %d", errno);
	a[0].type = MLX5DV_FLOW_ACTION_DROP;
	a[1].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
	a[1].obj = cnt;
	fd = dst_flow(m, 0x0a020203, a, 2);
	VT_CHECK(fd != NULL, "drop flow: errno %d", errno);
	inner_frame(&in);
	VT_CHECK(vt_svenv_xmit(e, 1, in.b, in.n) == 0, "send");
	w32(in.b + 30, 0x0a020203);
	VT_CHECK(vt_svenv_xmit(e, 1, in.b, in.n) == 0, "send");
	VT_CHECK(vt_svenv_xmit(e, 1, in.b, in.n) == 0, "send");
	w32(in.b + 30, 0x0a020204);
	VT_CHECK(vt_svenv_xmit(e, 1, in.b, in.n) == 0, "send");
	VT_CHECK(take(e, 0, &q0, 2, got, NULL, &n) == 0 && n == 2,
		 "two frames on the wire (%d)", n);
	inner_frame(&in);
	memcpy(&want, &h, sizeof(h));
	memcpy(put(&want, in.n), in.b, in.n);
	pkt_end(&want, false);
	w16(want.b + h.n + 36, 9999);
	w16(want.b + h.n + 40, l4_csum(want.b, h.n + 14, h.n + 34, 6, false));
	VT_CHECK(got[0].n == want.n && memcmp(got[0].b, want.b, want.n) == 0,
		 "encapsulated, rewritten inside: %u bytes, want %u", got[0].n,
		 want.n);
	VT_CHECK_EQ(r32(got[1].b + 30), 0x0a020204, "the other one as sent");
	VT_CHECK_EQ(counted(cnt, id, &pk, &by), 0, "query");
	VT_CHECK(pk == 2 && by == 2ull * in.n, "dropped %llu, %llu bytes",
		 (unsigned long long)pk, (unsigned long long)by);
	VT_CHECK_EQ(ibv_destroy_flow(f), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(fd), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow(dflt), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(mod), 0, "destroy");
	VT_CHECK_EQ(ibv_destroy_flow_action(enc), 0, "destroy");
	VT_CHECK_EQ(sv_mlx5dv_devx_obj_destroy(cnt), 0, "counter");
	VT_CHECK_EQ(sv_mlx5dv_destroy_flow_matcher(m), 0, "matcher");
	VT_CHECK_EQ(vt_svenv_rxq_down(&q0), 0, "end 0 queue");
	VT_CHECK(vt_svenv_down(e) == 0, "tear-down");
	return VT_OK;
}

static const struct vt_case cases[] = {
	/* clang-format off */
	VT_CASE(test_rewrite_ipv4_udp),
	VT_CASE(test_rewrite_tcp_add),
	VT_CASE(test_rewrite_ipv6),
	VT_CASE(test_rewrite_absent),
	VT_CASE(test_rewrite_bits),
	VT_CASE(test_decap),
	VT_CASE(test_encap_l2),
	VT_CASE(test_encap_l3),
	VT_CASE(test_edit_order),
	VT_CASE(test_modify_errors),
	VT_CASE(test_reformat_errors),
	VT_CASE(test_device_limits),
	VT_CASE(test_caps_query),
	VT_CASE(test_flow_errors),
	VT_CASE(test_traffic_ingress),
	VT_CASE(test_traffic_egress),
	{ NULL, NULL },
	/* clang-format on */
};

/* The cases that need no link of their own use one device, D, which must
 * hold no object when they are done (close_device: EBUSY). */
int
main(int argc, char **argv)
{
	int rc;

	if (dev_up(&D, "svact-d", 0) != 0) {
		fprintf(stderr, "device: errno %d\n", errno);
		return 1;
	}
	rc = vt_main(argc, argv, cases);
	if (dev_down(&D) != 0) {
		fprintf(stderr, "objects left on the device\n");
		return 1;
	}
	return rc;
}
