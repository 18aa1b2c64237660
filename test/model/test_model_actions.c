/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Flow actions on the mlx5 model through rdma-core's own libmlx5: header
 * modify lists (mlx5dv_create_flow_action_modify_header()) and packet
 * reformats (mlx5dv_create_flow_action_packet_reformat()) named by
 * mlx5dv_create_flow() rules as MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION, on
 * the NIC receive table (rewrite, decap) and the transmit table (encap,
 * before the wire). mlx5_1 sends on its raw packet QP, mlx5_0 receives
 * on its WQ; each frame that arrives is compared byte for byte with one
 * built here, its checksums computed here in full. The refusals are
 * those of libmlx5 and the kernel (Linux 6.1 fs.c) with the device's
 * capabilities, errno for errno.
 *
 * The run gives the model 4 header modify actions per list
 * (devtools/mlx5-model --modify-actions 4), which the capability page
 * and the kernel's check both follow.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>

#include "../vt_test.h"
#include "model_side.h"
#include "vsteer_prm.h"

#define MODIFY_ACTIONS 4 /* the run's --modify-actions */
#define ENCAP_MAX 128	 /* the model's max_encap_header_size */

/* ---- frames ---- */

static uint16_t
csum_add(uint32_t sum, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The IPv4 header checksum and the UDP checksum (pseudo-header) of the
 * IPv4/UDP packet at ip, computed from scratch. */
static void
ipv4_udp_csums(uint8_t *ip)
{
	uint8_t *udp = ip + 20, ph[12];
	uint16_t ulen = (uint16_t)(udp[4] << 8 | udp[5]), s;

	ip[10] = ip[11] = 0;
	s = (uint16_t)~csum_add(0, ip, 20);
	ip[10] = (uint8_t)(s >> 8);
	ip[11] = (uint8_t)s;
	memcpy(ph, ip + 12, 8);
	ph[8] = 0;
	ph[9] = 17;
	ph[10] = udp[4];
	ph[11] = udp[5];
	udp[6] = udp[7] = 0;
	s = (uint16_t)~csum_add(csum_add(0, ph, 12), udp, ulen);
	if (s == 0)
		s = 0xffff;
	udp[6] = (uint8_t)(s >> 8);
	udp[7] = (uint8_t)s;
}

/* An IPv4/UDP frame to dport with both checksums set; its length. */
static uint32_t
udp_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
	  uint16_t dport, uint32_t payload, uint8_t seed)
{
	uint32_t len = make_udp(f, dst, src, dport, payload, seed);

	ipv4_udp_csums(f + 14);
	return len;
}

/* ---- mlx5dv rules ---- */

struct match {
	uint64_t buf[VSTEER_PRM_MATCH_PARAM_BYTES / 8 + 1];
};

static struct mlx5dv_flow_match_parameters *
match_params(struct match *m)
{
	struct mlx5dv_flow_match_parameters *p = (void *)m->buf;

	memset(m, 0, sizeof(*m));
	p->match_sz = vsteer_prm_match_size(1u << VSTEER_PRM_CRIT_OUTER_BIT);
	return p;
}

/* Outer UDP to dport (mask and value alike when all ones). */
static struct mlx5dv_flow_match_parameters *
match_udp(struct match *m, uint16_t dport)
{
	struct mlx5dv_flow_match_parameters *p = match_params(m);

	vsteer_prm_set(p->match_buf, VSTEER_PRM_L24_IP_PROTOCOL_OFF,
		       VSTEER_PRM_L24_IP_PROTOCOL_LEN, dport ? 17 : 0xff);
	vsteer_prm_set(p->match_buf, VSTEER_PRM_L24_UDP_DPORT_OFF,
		       VSTEER_PRM_L24_UDP_DPORT_LEN, dport ? dport : 0xffff);
	return p;
}

/* Outer destination MAC mac (NULL: the mask). */
static struct mlx5dv_flow_match_parameters *
match_dmac(struct match *m, const uint8_t *mac)
{
	struct mlx5dv_flow_match_parameters *p = match_params(m);
	static const uint8_t all[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (mac == NULL)
		mac = all;
	vsteer_prm_set(p->match_buf, VSTEER_PRM_L24_DMAC_47_16_OFF,
		       VSTEER_PRM_L24_DMAC_47_16_LEN,
		       (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 |
			       (uint32_t)mac[2] << 8 | mac[3]);
	vsteer_prm_set(p->match_buf, VSTEER_PRM_L24_DMAC_15_0_OFF,
		       VSTEER_PRM_L24_DMAC_15_0_LEN,
		       (uint32_t)mac[4] << 8 | mac[5]);
	return p;
}

static struct mlx5dv_flow_matcher *
matcher(struct ibv_context *ctx, enum mlx5dv_flow_table_type ft,
	struct mlx5dv_flow_match_parameters *mask)
{
	struct mlx5dv_flow_matcher_attr ma = { 0 };

	ma.type = IBV_FLOW_ATTR_NORMAL;
	ma.match_criteria_enable = 1u << VSTEER_PRM_CRIT_OUTER_BIT;
	ma.match_mask = mask;
	ma.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
	ma.ft_type = ft;
	return mlx5dv_create_flow_matcher(ctx, &ma);
}

/* A rule of m on value: to qp when not NULL, tagged with tag when not 0,
 * with the flow actions fa[0 .. nfa - 1]. */
static struct ibv_flow *
rule(struct mlx5dv_flow_matcher *m, struct mlx5dv_flow_match_parameters *value,
     struct ibv_qp *qp, uint32_t tag, struct ibv_flow_action **fa,
     unsigned int nfa)
{
	struct mlx5dv_flow_action_attr act[8];
	unsigned int n = 0, i;

	if (qp != NULL) {
		act[n].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
		act[n++].qp = qp;
	}
	if (tag != 0) {
		act[n].type = MLX5DV_FLOW_ACTION_TAG;
		act[n++].tag_value = tag;
	}
	for (i = 0; i < nfa; i++) {
		act[n].type = MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION;
		act[n++].action = fa[i];
	}
	return mlx5dv_create_flow(m, value, n, act);
}

/* A PRM header modify action (set_action_in / add_action_in), in the
 * device's byte order. */
static uint64_t
mod_action(uint32_t type, uint32_t field, uint32_t len, uint32_t data)
{
	uint64_t v;

	vsteer_prm_mod_action(&v, type, field, 0, len, data);
	return v;
}

/* ---- cases ---- */

/* The NIC flow table page (QUERY_HCA_CAP, current) says what the kernel
 * reads before it takes an action: max_modify_header_actions of both
 * tables (the run's 4), max_encap_header_size, decap and L3 decap on
 * receive, encap_general_header and L2-to-L3 encap on transmit, and a
 * transmit table. Offsets: Linux 6.1 mlx5_ifc.h flow_table_nic_cap and
 * flow_table_prop_layout (vsteer_prm.h's are checked against DPDK's). */
static int
test_caps(void)
{
	uint32_t in[4] = { 0 }, out[4 + 1024] = { 0 };
	const uint8_t *cap = (const uint8_t *)out + 16;
	const uint32_t rx = VSTEER_PRM_FT_NIC_RX_PROPS_OFF,
		       tx = VSTEER_PRM_FT_NIC_TX_PROPS_OFF;
	struct side a;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open");
	in[0] = __builtin_bswap32(0x100u << 16);  /* QUERY_HCA_CAP */
	in[1] = __builtin_bswap32(0x7u << 1 | 1); /* NIC flow table, current */
	VT_CHECK_EQ(mlx5dv_devx_general_cmd(a.ctx, in, sizeof(in), out,
					    sizeof(out)),
		    0, "QUERY_HCA_CAP");
	VT_CHECK_EQ(__builtin_bswap32(out[0]) >> 24, 0, "status");
	VT_CHECK_EQ(vsteer_prm_get(
			    cap,
			    rx + VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_OFF,
			    VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_LEN),
		    MODIFY_ACTIONS, "receive max_modify_header_actions");
	VT_CHECK_EQ(vsteer_prm_get(
			    cap,
			    tx + VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_OFF,
			    VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_LEN),
		    MODIFY_ACTIONS, "transmit max_modify_header_actions");
	VT_CHECK_EQ(vsteer_prm_get(cap,
				   VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_OFF,
				   VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_LEN),
		    ENCAP_MAX, "max_encap_header_size");
	VT_CHECK_EQ(vsteer_prm_get(cap, 0x20, 1), 1, "encap_general_header");
	VT_CHECK_EQ(vsteer_prm_get(cap, rx + 0x0, 1), 1, "receive ft_support");
	VT_CHECK_EQ(vsteer_prm_get(cap, rx + 0x8, 1), 1, "receive decap");
	VT_CHECK_EQ(vsteer_prm_get(cap, rx + 0x12, 1), 1,
		    "receive reformat_l3_tunnel_to_l2");
	VT_CHECK_EQ(vsteer_prm_get(cap, tx + 0x0, 1), 1, "transmit ft_support");
	VT_CHECK_EQ(vsteer_prm_get(cap, tx + 0x13, 1), 1,
		    "transmit reformat_l2_to_l3_tunnel");
	side_close(&a);
	return VT_OK;
}

/*
 * A receive rule with a header modify list: the IPv4 destination and UDP
 * port set, the TTL less one (ADD of 0xff), to the hash QP with a tag.
 * The frame arrives rewritten with both checksums right; the action is
 * busy while the rule holds it.
 */
static int
test_rewrite(void)
{
	uint64_t mods[3];
	struct side a, b;
	struct match mm, mv;
	struct mlx5dv_flow_matcher *m;
	struct ibv_flow_action *fa;
	struct ibv_flow *fl;
	uint8_t *f, want[256];
	uint32_t len;
	struct rx rx[2];

	VT_CHECK(pair_open(&a, &b) == 0, "open: %s", strerror(errno));
	mods[0] = mod_action(VSTEER_PRM_MOD_SET, VSTEER_PRM_MODI_OUT_DIPV4, 0,
			     0xcb007109); /* 203.0.113.9 */
	mods[1] = mod_action(VSTEER_PRM_MOD_SET, VSTEER_PRM_MODI_OUT_UDP_DPORT,
			     16, 7001);
	mods[2] = mod_action(VSTEER_PRM_MOD_ADD, VSTEER_PRM_MODI_OUT_IPV4_TTL,
			     0, 0xff);
	fa = mlx5dv_create_flow_action_modify_header(a.ctx, sizeof(mods), mods,
						     MLX5DV_FLOW_TABLE_TYPE_NIC_RX);
	VT_CHECK(fa != NULL, "modify header: %s", strerror(errno));
	m = matcher(a.ctx, MLX5DV_FLOW_TABLE_TYPE_NIC_RX, match_udp(&mm, 0));
	VT_CHECK(m != NULL, "matcher: %s", strerror(errno));
	fl = rule(m, match_udp(&mv, 7000), a.hqp, 0x77, &fa, 1);
	VT_CHECK(fl != NULL, "rule: %s", strerror(errno));

	f = b.mem + (size_t)NBUF * BUFSZ;
	len = udp_frame(f, a.mac, b.mac, 7000, 90, 3);
	memcpy(want, f, len);
	want[14 + 8]--; /* TTL */
	want[14 + 16] = 203, want[14 + 17] = 0, want[14 + 18] = 113;
	want[14 + 19] = 9;
	want[34 + 2] = 7001 >> 8;
	want[34 + 3] = 7001 & 0xff;
	ipv4_udp_csums(want + 14);
	VT_CHECK(send_frames(&b, &f, &len, 1) == 0, "send");
	VT_CHECK_EQ(poll_rx(&a, rx, 2), 1, "frames received");
	VT_CHECK_EQ(rx[0].status, IBV_WC_SUCCESS, "status");
	VT_CHECK_EQ(rx[0].tag, 0x77, "tag");
	VT_CHECK_EQ(rx[0].len, len, "length");
	VT_CHECK(memcmp(a.mem + rx[0].wr_id * BUFSZ, want, len) == 0,
		 "the frame as rewritten here");

	/* uverbs_free_flow_action(): in use */
	VT_CHECK_EQ(ibv_destroy_flow_action(fa), EBUSY, "destroy in use");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy rule");
	VT_CHECK_EQ(ibv_destroy_flow_action(fa), 0, "destroy action");
	VT_CHECK_EQ(mlx5dv_destroy_flow_matcher(m), 0, "destroy matcher");
	pair_close(&a, &b);
	return VT_OK;
}

/* A VXLAN frame around the frame at inner (ilen bytes), to dst: outer
 * IPv4/UDP 4789 with its checksums, VNI 100; its length. */
static uint32_t
vxlan_frame(uint8_t *f, const uint8_t dst[6], const uint8_t src[6],
	    const uint8_t *inner, uint32_t ilen)
{
	uint32_t len = make_udp(f, dst, src, 4789, 8 + ilen, 0);
	uint8_t *vx = f + 42;

	memset(vx, 0, 8);
	vx[0] = 0x08; /* I flag */
	vx[6] = 100;  /* VNI 100 */
	memcpy(vx + 8, inner, ilen);
	ipv4_udp_csums(f + 14);
	return len;
}

/*
 * Decap on the receive table (L2_TUNNEL_TO_L2, which keeps no data): the
 * WQ receives the inner frame of a VXLAN frame the rule takes, and both
 * the rule and the action go.
 */
static int
test_decap(void)
{
	static const uint8_t imac[6] = { 0x02, 0, 0, 0, 0, 0x42 };
	struct side a, b;
	struct match mm, mv;
	struct mlx5dv_flow_matcher *m;
	struct ibv_flow_action *fa;
	struct ibv_flow *fl;
	uint8_t *f, inner[160];
	uint32_t len, ilen;
	struct rx rx[2];

	VT_CHECK(pair_open(&a, &b) == 0, "open: %s", strerror(errno));
	fa = mlx5dv_create_flow_action_packet_reformat(
		a.ctx, 0, NULL,
		MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2,
		MLX5DV_FLOW_TABLE_TYPE_NIC_RX);
	VT_CHECK(fa != NULL, "decap: %s", strerror(errno));
	m = matcher(a.ctx, MLX5DV_FLOW_TABLE_TYPE_NIC_RX, match_udp(&mm, 0));
	VT_CHECK(m != NULL, "matcher: %s", strerror(errno));
	fl = rule(m, match_udp(&mv, 4789), a.hqp, 0x21, &fa, 1);
	VT_CHECK(fl != NULL, "rule: %s", strerror(errno));

	ilen = udp_frame(inner, imac, b.mac, 2000, 80, 9);
	f = b.mem + (size_t)NBUF * BUFSZ;
	len = vxlan_frame(f, a.mac, b.mac, inner, ilen);
	VT_CHECK(send_frames(&b, &f, &len, 1) == 0, "send");
	VT_CHECK_EQ(poll_rx(&a, rx, 2), 1, "frames received");
	VT_CHECK_EQ(rx[0].tag, 0x21, "tag");
	VT_CHECK_EQ(rx[0].len, ilen, "length: the inner frame's");
	VT_CHECK(memcmp(a.mem + rx[0].wr_id * BUFSZ, inner, ilen) == 0,
		 "the inner frame");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy rule");
	VT_CHECK_EQ(ibv_destroy_flow_action(fa), 0, "destroy action");
	VT_CHECK_EQ(mlx5dv_destroy_flow_matcher(m), 0, "destroy matcher");
	pair_close(&a, &b);
	return VT_OK;
}

/*
 * Encap on the transmit table (L2_TO_L2_TUNNEL, a rule with no
 * destination on an NIC_TX matcher): the frame mlx5_1 sends to UDP port
 * 9000 leaves inside the VXLAN header given, its IPv4 total length, UDP
 * length and IPv4 checksum filled in by the device (the UDP checksum
 * stays 0); a frame to another port leaves as it was.
 */
static int
test_encap(void)
{
	struct side a, b;
	struct match mm, mv, rm, rv;
	struct mlx5dv_flow_matcher *m, *rxm;
	struct ibv_flow_action *fa;
	struct ibv_flow *fl, *rxfl;
	uint8_t hdr[50], *f[2], want[400], *got;
	uint32_t len[2], i;
	struct rx rx[4];

	VT_CHECK(pair_open(&a, &b) == 0, "open: %s", strerror(errno));
	/* mlx5_0 takes what is sent to its MAC. */
	rxm = matcher(a.ctx, MLX5DV_FLOW_TABLE_TYPE_NIC_RX,
		      match_dmac(&rm, NULL));
	VT_CHECK(rxm != NULL, "receive matcher: %s", strerror(errno));
	rxfl = rule(rxm, match_dmac(&rv, a.mac), a.hqp, 0, NULL, 0);
	VT_CHECK(rxfl != NULL, "receive rule: %s", strerror(errno));

	/* Ethernet to mlx5_0, IPv4 (lengths and checksum 0), UDP 4789,
	 * VXLAN VNI 77. */
	make_udp(hdr, a.mac, b.mac, 4789, 8, 0);
	hdr[16] = hdr[17] = 0;	       /* total length */
	hdr[24] = hdr[25] = 0;	       /* checksum */
	hdr[34 + 4] = hdr[34 + 5] = 0; /* UDP length */
	memset(hdr + 42, 0, 8);
	hdr[42] = 0x08;
	hdr[48] = 77;
	fa = mlx5dv_create_flow_action_packet_reformat(
		b.ctx, sizeof(hdr), hdr,
		MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL,
		MLX5DV_FLOW_TABLE_TYPE_NIC_TX);
	VT_CHECK(fa != NULL, "encap: %s", strerror(errno));
	m = matcher(b.ctx, MLX5DV_FLOW_TABLE_TYPE_NIC_TX, match_udp(&mm, 0));
	VT_CHECK(m != NULL, "transmit matcher: %s", strerror(errno));
	/* fs.c get_dests(): a transmit rule goes to the port, not a QP. */
	fl = rule(m, match_udp(&mv, 9000), b.sqp, 0, &fa, 1);
	VT_CHECK(fl == NULL && errno == EINVAL, "transmit rule with a QP: %s",
		 strerror(errno));
	fl = rule(m, match_udp(&mv, 9000), NULL, 0, &fa, 1);
	VT_CHECK(fl != NULL, "transmit rule: %s", strerror(errno));

	for (i = 0; i < 2; i++) {
		f[i] = b.mem + (size_t)(NBUF + i) * BUFSZ;
		len[i] = udp_frame(f[i], a.mac, b.mac, i == 0 ? 9000 : 9001,
				   100 + 20 * i, (uint8_t)i);
	}
	memcpy(want, hdr, sizeof(hdr));
	memcpy(want + sizeof(hdr), f[0], len[0]);
	want[16] = (uint8_t)((36 + len[0]) >> 8);
	want[17] = (uint8_t)(36 + len[0]);
	want[38] = (uint8_t)((16 + len[0]) >> 8);
	want[39] = (uint8_t)(16 + len[0]);
	{
		uint16_t s = (uint16_t)~csum_add(0, want + 14, 20);

		want[24] = (uint8_t)(s >> 8);
		want[25] = (uint8_t)s;
	}
	VT_CHECK(send_frames(&b, f, len, 2) == 0, "send");
	VT_CHECK_EQ(poll_rx(&a, rx, 4), 2, "frames received");
	for (i = 0; i < 2; i++) {
		got = a.mem + rx[i].wr_id * BUFSZ;
		if (rx[i].len == sizeof(hdr) + len[0])
			VT_CHECK(memcmp(got, want, rx[i].len) == 0,
				 "the encapsulated frame");
		else
			VT_CHECK(rx[i].len == len[1] &&
					 memcmp(got, f[1], len[1]) == 0,
				 "the frame no rule takes, as sent");
	}
	VT_CHECK(rx[0].len != rx[1].len, "one of each");
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy rule");
	VT_CHECK_EQ(ibv_destroy_flow_action(fa), 0, "destroy action");
	VT_CHECK_EQ(mlx5dv_destroy_flow_matcher(m), 0, "destroy matcher");
	VT_CHECK_EQ(ibv_destroy_flow(rxfl), 0, "destroy receive rule");
	VT_CHECK_EQ(mlx5dv_destroy_flow_matcher(rxm), 0, "destroy matcher");
	pair_close(&a, &b);
	return VT_OK;
}

/* A refused create: NULL with errno err. */
#define REFUSED(call, err, what)                                          \
	do {                                                              \
		errno = 0;                                                \
		VT_CHECK((call) == NULL, "%s: taken", what);              \
		VT_CHECK_EQ(errno, err, "%s: %s", what, strerror(errno)); \
	} while (0)

/*
 * What libmlx5 and the kernel refuse, with their errno: the header modify
 * list (fs.c MLX5_IB_METHOD_FLOW_ACTION_CREATE_MODIFY_HEADER and
 * mlx5_cmd_modify_header_alloc()), the packet reformat
 * (mlx5_ib_flow_action_packet_reformat_valid(), the data), and the flow
 * actions of a rule (the array's 2 at most, parse_flow_flow_action()).
 */
static int
test_refusals(void)
{
	uint64_t mods[MODIFY_ACTIONS + 1];
	uint8_t hdr[ENCAP_MAX + 1];
	struct ibv_flow_action *fa[3], *tx;
	struct match mm, mv;
	struct mlx5dv_flow_matcher *m;
	struct ibv_flow *fl;
	struct side a;
	unsigned int i;

	VT_CHECK(side_open(&a, "mlx5_0", false) == 0, "open");
	VT_CHECK(side_rx(&a, 0) == 0, "rx");
	for (i = 0; i <= MODIFY_ACTIONS; i++)
		mods[i] = mod_action(VSTEER_PRM_MOD_SET,
				     VSTEER_PRM_MODI_OUT_UDP_DPORT, 16, 1 + i);
	/* One more than the table's max_modify_header_actions. */
	REFUSED(mlx5dv_create_flow_action_modify_header(
			a.ctx, sizeof(mods), mods,
			MLX5DV_FLOW_TABLE_TYPE_NIC_RX),
		EOPNOTSUPP, "5 actions");
	REFUSED(mlx5dv_create_flow_action_modify_header(
			a.ctx, 12, mods, MLX5DV_FLOW_TABLE_TYPE_NIC_RX),
		EINVAL, "12 bytes");
	REFUSED(mlx5dv_create_flow_action_modify_header(
			a.ctx, 4, mods, MLX5DV_FLOW_TABLE_TYPE_NIC_RX),
		EINVAL, "less than an action");
	REFUSED(mlx5dv_create_flow_action_modify_header(
			a.ctx, 8, mods, (enum mlx5dv_flow_table_type)9),
		EINVAL, "no such table type");
	REFUSED(mlx5dv_create_flow_action_modify_header(a.ctx, 8, mods,
							MLX5DV_FLOW_TABLE_TYPE_FDB),
		EOPNOTSUPP, "FDB outside switchdev");
	mods[0] = mod_action(VSTEER_PRM_MOD_SET, 0xfff, 8, 1);
	REFUSED(mlx5dv_create_flow_action_modify_header(
			a.ctx, 8, mods, MLX5DV_FLOW_TABLE_TYPE_NIC_RX),
		EINVAL, "no such field (the firmware)");

	memset(hdr, 0, sizeof(hdr));
	REFUSED(mlx5dv_create_flow_action_packet_reformat(
			a.ctx, 50, hdr,
			MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL,
			MLX5DV_FLOW_TABLE_TYPE_NIC_RX),
		EOPNOTSUPP, "encap on the receive table");
	REFUSED(mlx5dv_create_flow_action_packet_reformat(
			a.ctx, 0, NULL,
			MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2,
			MLX5DV_FLOW_TABLE_TYPE_NIC_TX),
		EOPNOTSUPP, "decap on the transmit table");
	REFUSED(mlx5dv_create_flow_action_packet_reformat(
			a.ctx, 0, NULL,
			MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL,
			MLX5DV_FLOW_TABLE_TYPE_NIC_TX),
		ENOENT, "encap without data");
	REFUSED(mlx5dv_create_flow_action_packet_reformat(
			a.ctx, 50, NULL,
			MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL,
			MLX5DV_FLOW_TABLE_TYPE_NIC_TX),
		EINVAL, "a size without data (libmlx5)");
	REFUSED(mlx5dv_create_flow_action_packet_reformat(
			a.ctx, sizeof(hdr), hdr,
			MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL,
			MLX5DV_FLOW_TABLE_TYPE_NIC_TX),
		EINVAL, "past max_encap_header_size");
	REFUSED(mlx5dv_create_flow_action_packet_reformat(
			a.ctx, 20, hdr,
			MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L3_TUNNEL_TO_L2,
			MLX5DV_FLOW_TABLE_TYPE_NIC_RX),
		EINVAL, "an L3 decap's header of 20 bytes");

	/* A rule's actions: two header modify lists, three actions, an
	 * action of the transmit table on the receive table. */
	mods[0] = mod_action(VSTEER_PRM_MOD_SET, VSTEER_PRM_MODI_OUT_UDP_DPORT,
			     16, 1);
	for (i = 0; i < 2; i++) {
		fa[i] = mlx5dv_create_flow_action_modify_header(
			a.ctx, 8, mods, MLX5DV_FLOW_TABLE_TYPE_NIC_RX);
		VT_CHECK(fa[i] != NULL, "modify header: %s", strerror(errno));
	}
	fa[2] = mlx5dv_create_flow_action_packet_reformat(
		a.ctx, 0, NULL,
		MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2,
		MLX5DV_FLOW_TABLE_TYPE_NIC_RX);
	VT_CHECK(fa[2] != NULL, "decap: %s", strerror(errno));
	tx = mlx5dv_create_flow_action_modify_header(a.ctx, 8, mods,
						     MLX5DV_FLOW_TABLE_TYPE_NIC_TX);
	VT_CHECK(tx != NULL, "transmit modify header: %s", strerror(errno));
	m = matcher(a.ctx, MLX5DV_FLOW_TABLE_TYPE_NIC_RX, match_udp(&mm, 0));
	VT_CHECK(m != NULL, "matcher: %s", strerror(errno));
	REFUSED(rule(m, match_udp(&mv, 7), a.hqp, 0, fa, 2), EINVAL,
		"two header modify lists");
	/* One of each kind is what a rule takes. */
	fl = rule(m, match_udp(&mv, 7), a.hqp, 0, fa + 1, 2);
	VT_CHECK(fl != NULL, "a header modify list and a decap: %s",
		 strerror(errno));
	VT_CHECK_EQ(ibv_destroy_flow(fl), 0, "destroy rule");
	REFUSED(rule(m, match_udp(&mv, 7), a.hqp, 0, fa, 3), EINVAL,
		"three actions");
	REFUSED(rule(m, match_udp(&mv, 7), a.hqp, 0, &tx, 1), EINVAL,
		"an action of the transmit table");
	VT_CHECK_EQ(mlx5dv_destroy_flow_matcher(m), 0, "destroy matcher");
	for (i = 0; i < 3; i++)
		VT_CHECK_EQ(ibv_destroy_flow_action(fa[i]), 0, "destroy %u", i);
	VT_CHECK_EQ(ibv_destroy_flow_action(tx), 0, "destroy");
	side_close(&a);
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_caps),  VT_CASE(test_rewrite),  VT_CASE(test_decap),
	VT_CASE(test_encap), VT_CASE(test_refusals), { 0 },
};

int
main(int argc, char **argv)
{
	static const char *const opts[] = { "--modify-actions", "4", NULL };

	return model_main(argc, argv, cases, opts);
}
