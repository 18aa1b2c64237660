/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Packet actions: header rewrites, decap and encap, as a ConnectX's root
 * tables take them through the public mlx5dv API. A rule gets at most one
 * list of PRM header modify actions (mlx5dv_create_flow_action_modify_
 * header(), every rewrite of the rule) and one packet reformat
 * (mlx5dv_create_flow_action_packet_reformat()): the kernel takes two
 * flow actions, one of each kind (fs.c MLX5_IB_CREATE_FLOW_MAX_FLOW_ACTIONS,
 * parse_flow_flow_action()). The device applies them in a fixed order,
 * decap, rewrite, encap, so the rule must list them in that order: a
 * rewrite after a decap rewrites the decapsulated (formerly inner)
 * headers, and the pattern's items after the tunnel say which. Decap
 * exists on the receive table only and encap on the transmit table only
 * (mlx5_ib_flow_action_packet_reformat_valid()): decap on ingress rules,
 * encap on egress rules. No VLAN push or pop exists on these tables.
 *
 * What rewrites which field follows DPDK 22.11's mlx5 (mlx5_flow_dv.c):
 * SET_TP_* and SET_TTL pick the TCP or UDP, IPv4 or IPv6 field from the
 * pattern's item; MODIFY_FIELD takes an immediate value laid out as the
 * field (its offset counted from the field's first bit), and only SET and
 * ADD, as the root tables do no COPY ("modify field action is not
 * supported for group 0"); RAW_DECAP with RAW_ENCAP is an L3 decap when
 * the decap data is longer than an Ethernet and IPv4 header and the encap
 * data shorter (14 or 18 bytes: the new L2 header), an L3 encap the other
 * way round (MLX5_ENCAPSULATION_DECISION_SIZE); an L2 encap's outer UDP
 * checksum is sent as 0 (flow_dv_zero_encap_udp_csum()), and the device
 * fills the outer lengths and the IPv4 header checksum.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#include <infiniband/mlx5dv.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_flow.h>
#include <rte_ip.h>
#include <rte_udp.h>

#include "vsteer_flow_xlate.h"
#include "vsteer_prm.h"

/* An Ethernet and an IPv4 header: what tells an L3 reformat's encap data
 * from its decap data (DPDK's MLX5_ENCAPSULATION_DECISION_SIZE). */
#define ED_DECISION_SIZE (RTE_ETHER_HDR_LEN + sizeof(struct rte_ipv4_hdr))
#define ED_VXLAN_PORT 4789
#define ED_ETHER_TYPE_TEB 0x6558

#define ED_F(x) VSTEER_PRM_MODI_OUT_##x

/* An rte_flow field as header modify actions write it: a value of width
 * bits (nbytes, big-endian, as the item lays it out), made of up to four
 * PRM fields, each its bits [lo, lo + bits). */
struct ed_map {
	const char *name;
	uint16_t width;
	uint8_t nbytes;
	uint8_t n;
	struct {
		uint8_t prm;
		uint8_t lo;
		uint8_t bits;
	} part[4];
};

/* A field of one PRM field f, of bits [0, w). */
/* clang-format off */
#define ED_ONE(nm, w, nb, f) { nm, w, nb, 1, { { f, 0, w } } }
/* clang-format on */

/* clang-format off */
static const struct ed_map ed_maps[] = {
	[RTE_FLOW_FIELD_MAC_DST] = { "mac_dst", 48, 6, 2,
		{ { ED_F(DMAC_47_16), 16, 32 }, { ED_F(DMAC_15_0), 0, 16 } } },
	[RTE_FLOW_FIELD_MAC_SRC] = { "mac_src", 48, 6, 2,
		{ { ED_F(SMAC_47_16), 16, 32 }, { ED_F(SMAC_15_0), 0, 16 } } },
	[RTE_FLOW_FIELD_VLAN_ID] = ED_ONE("vlan_id", 12, 2, ED_F(FIRST_VID)),
	[RTE_FLOW_FIELD_MAC_TYPE] = ED_ONE("mac_type", 16, 2, ED_F(ETHERTYPE)),
	[RTE_FLOW_FIELD_IPV4_DSCP] = ED_ONE("ipv4_dscp", 6, 1, ED_F(IP_DSCP)),
	[RTE_FLOW_FIELD_IPV4_TTL] = ED_ONE("ipv4_ttl", 8, 1, ED_F(IPV4_TTL)),
	[RTE_FLOW_FIELD_IPV4_SRC] = ED_ONE("ipv4_src", 32, 4, ED_F(SIPV4)),
	[RTE_FLOW_FIELD_IPV4_DST] = ED_ONE("ipv4_dst", 32, 4, ED_F(DIPV4)),
	[RTE_FLOW_FIELD_IPV6_DSCP] = ED_ONE("ipv6_dscp", 6, 1, ED_F(IP_DSCP)),
	[RTE_FLOW_FIELD_IPV6_HOPLIMIT] =
		ED_ONE("ipv6_hoplimit", 8, 1, ED_F(IPV6_HOPLIMIT)),
	[RTE_FLOW_FIELD_IPV6_SRC] = { "ipv6_src", 128, 16, 4,
		{ { ED_F(SIPV6_127_96), 96, 32 }, { ED_F(SIPV6_95_64), 64, 32 },
		  { ED_F(SIPV6_63_32), 32, 32 }, { ED_F(SIPV6_31_0), 0, 32 } } },
	[RTE_FLOW_FIELD_IPV6_DST] = { "ipv6_dst", 128, 16, 4,
		{ { ED_F(DIPV6_127_96), 96, 32 }, { ED_F(DIPV6_95_64), 64, 32 },
		  { ED_F(DIPV6_63_32), 32, 32 }, { ED_F(DIPV6_31_0), 0, 32 } } },
	[RTE_FLOW_FIELD_TCP_PORT_SRC] = ED_ONE("tcp_port_src", 16, 2, ED_F(TCP_SPORT)),
	[RTE_FLOW_FIELD_TCP_PORT_DST] = ED_ONE("tcp_port_dst", 16, 2, ED_F(TCP_DPORT)),
	[RTE_FLOW_FIELD_TCP_SEQ_NUM] =
		ED_ONE("tcp_seq_num", 32, 4, ED_F(TCP_SEQ_NUM)),
	[RTE_FLOW_FIELD_TCP_ACK_NUM] =
		ED_ONE("tcp_ack_num", 32, 4, ED_F(TCP_ACK_NUM)),
	[RTE_FLOW_FIELD_TCP_FLAGS] = ED_ONE("tcp_flags", 9, 2, ED_F(TCP_FLAGS)),
	[RTE_FLOW_FIELD_UDP_PORT_SRC] = ED_ONE("udp_port_src", 16, 2, ED_F(UDP_SPORT)),
	[RTE_FLOW_FIELD_UDP_PORT_DST] = ED_ONE("udp_port_dst", 16, 2, ED_F(UDP_DPORT)),
};
/* clang-format on */

static const struct ed_map *
ed_map(enum rte_flow_field_id f)
{
	if ((unsigned int)f >= RTE_DIM(ed_maps) || ed_maps[f].n == 0)
		return NULL;
	return &ed_maps[f];
}

bool
vsteer_flow_edit_type(enum rte_flow_action_type type)
{
	switch (type) {
	case RTE_FLOW_ACTION_TYPE_SET_MAC_SRC:
	case RTE_FLOW_ACTION_TYPE_SET_MAC_DST:
	case RTE_FLOW_ACTION_TYPE_SET_IPV4_SRC:
	case RTE_FLOW_ACTION_TYPE_SET_IPV4_DST:
	case RTE_FLOW_ACTION_TYPE_SET_IPV6_SRC:
	case RTE_FLOW_ACTION_TYPE_SET_IPV6_DST:
	case RTE_FLOW_ACTION_TYPE_SET_TP_SRC:
	case RTE_FLOW_ACTION_TYPE_SET_TP_DST:
	case RTE_FLOW_ACTION_TYPE_SET_TTL:
	case RTE_FLOW_ACTION_TYPE_DEC_TTL:
	case RTE_FLOW_ACTION_TYPE_SET_IPV4_DSCP:
	case RTE_FLOW_ACTION_TYPE_SET_IPV6_DSCP:
	case RTE_FLOW_ACTION_TYPE_INC_TCP_SEQ:
	case RTE_FLOW_ACTION_TYPE_DEC_TCP_SEQ:
	case RTE_FLOW_ACTION_TYPE_INC_TCP_ACK:
	case RTE_FLOW_ACTION_TYPE_DEC_TCP_ACK:
	case RTE_FLOW_ACTION_TYPE_MODIFY_FIELD:
	case RTE_FLOW_ACTION_TYPE_VXLAN_DECAP:
	case RTE_FLOW_ACTION_TYPE_NVGRE_DECAP:
	case RTE_FLOW_ACTION_TYPE_RAW_DECAP:
	case RTE_FLOW_ACTION_TYPE_VXLAN_ENCAP:
	case RTE_FLOW_ACTION_TYPE_NVGRE_ENCAP:
	case RTE_FLOW_ACTION_TYPE_RAW_ENCAP:
		return true;
	default:
		return false;
	}
}

void
vsteer_flow_edit_reset(struct vsteer_flow_edit *e)
{
	/* The arrays are written as actions come. */
	memset(e, 0, offsetof(struct vsteer_flow_edit, mod));
}

static const char *
ed_name(const struct rte_flow_action *act)
{
	const struct vsteer_flow_row *row = vsteer_flow_action_row(act->type);

	return row != NULL ? row->name : "?";
}

/* --- header modify actions --- */

/* Bits [lo, lo + len) (len <= 32) of a big-endian value of nbytes. */
static uint32_t
ed_bits(const uint8_t *v, unsigned int nbytes, unsigned int lo,
	unsigned int len)
{
	uint32_t r = 0;
	unsigned int i, b;

	for (i = len; i > 0; i--) {
		b = lo + i - 1;
		r = r << 1 | ((v[nbytes - 1 - b / 8] >> (b % 8)) & 1);
	}
	return r;
}

/* One PRM action, checked against the device's rules on what one list
 * may mix (vsteer_prm_modi_field()). */
static int
ed_push(struct vsteer_flow_plan *plan, const struct rte_flow_action *act,
	uint32_t type, uint32_t field, uint32_t off, uint32_t len,
	uint32_t data, struct rte_flow_error *error)
{
	struct vsteer_flow_edit *e = &plan->edit;
	struct vsteer_prm_modi_field fd = vsteer_prm_modi_field(field);
	uint8_t b[VSTEER_PRM_MOD_ACTION_BYTES] = { 0 };

	if (e->n_mod == VSTEER_EDIT_MAX_MOD)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: more than %u header modify actions in one rule",
			ed_name(act), VSTEER_EDIT_MAX_MOD);
	if ((fd.fam != 0 && e->fam != 0 && fd.fam != e->fam) ||
	    (fd.l4 != 0 && e->l4 != 0 && fd.l4 != e->l4))
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: rewrites %s fields where the rule rewrites %s ones: the device rewrites one L3 family and one L4 protocol per rule",
			ed_name(act),
			fd.fam != 0 && fd.fam != e->fam ?
				(fd.fam == 4 ? "IPv4" : "IPv6") :
				(fd.l4 == IPPROTO_TCP ? "TCP" : "UDP"),
			fd.fam != 0 && fd.fam != e->fam ?
				(e->fam == 4 ? "IPv4" : "IPv6") :
				(e->l4 == IPPROTO_TCP ? "TCP" : "UDP"));
	if (fd.fam != 0)
		e->fam = fd.fam;
	if (fd.l4 != 0)
		e->l4 = fd.l4;
	vsteer_prm_set(b, VSTEER_PRM_MOD_TYPE_OFF, VSTEER_PRM_MOD_TYPE_LEN,
		       type);
	vsteer_prm_set(b, VSTEER_PRM_MOD_FIELD_OFF, VSTEER_PRM_MOD_FIELD_LEN,
		       field);
	/* ADD takes the whole field; a length of 32 is written 0. */
	if (type == VSTEER_PRM_MOD_SET) {
		vsteer_prm_set(b, VSTEER_PRM_MOD_OFFSET_OFF,
			       VSTEER_PRM_MOD_OFFSET_LEN, off);
		vsteer_prm_set(b, VSTEER_PRM_MOD_LENGTH_OFF,
			       VSTEER_PRM_MOD_LENGTH_LEN, len & 31);
	}
	vsteer_prm_set(b, VSTEER_PRM_MOD_DATA_OFF, VSTEER_PRM_MOD_DATA_LEN,
		       data);
	memcpy(&e->mod[e->n_mod++], b, sizeof(b));
	return 0;
}

/*
 * Write the bits of map's field that rte_flow's offset (from the field's
 * first bit) and width select: SET from the same bits of value, or ADD of
 * value to the whole field.
 */
static int
ed_write(struct vsteer_flow_plan *plan, const struct rte_flow_action *act,
	 const struct ed_map *m, bool add, const uint8_t *value,
	 uint32_t offset, uint32_t width, struct rte_flow_error *error)
{
	uint32_t sel_lo = m->width - offset - width, sel_hi = sel_lo + width;
	unsigned int i;
	int ret;

	for (i = 0; i < m->n; i++) {
		uint32_t lo = RTE_MAX(sel_lo, (uint32_t)m->part[i].lo);
		uint32_t hi = RTE_MIN(sel_hi, (uint32_t)m->part[i].lo +
						      m->part[i].bits);

		if (lo >= hi)
			continue;
		ret = ed_push(plan, act,
			      add ? VSTEER_PRM_MOD_ADD : VSTEER_PRM_MOD_SET,
			      m->part[i].prm, lo - m->part[i].lo, hi - lo,
			      ed_bits(value, m->nbytes, lo, hi - lo), error);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/* The level a rewrite listed now writes: 1 (the former inner headers)
 * after a decap. */
static unsigned int
ed_level(const struct vsteer_flow_plan *plan)
{
	const struct vsteer_flow_edit *e = &plan->edit;

	return e->decap_act != NULL || (e->raw_decap != NULL && plan->ingress);
}

/* What every rewrite checks first. */
static int
ed_rewrite_begin(struct vsteer_flow_plan *plan,
		 const struct rte_flow_action *act, bool conf,
		 struct rte_flow_error *error)
{
	struct vsteer_flow_edit *e = &plan->edit;

	if (conf && act->conf == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "%s action: no configuration",
				       ed_name(act));
	if (e->encap_act != NULL || (e->raw_decap != NULL && plan->egress) ||
	    e->raw_encap != NULL)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: listed after %s: the device rewrites the frame before it encapsulates it, list the rewrite first",
			ed_name(act),
			ed_name(e->encap_act != NULL ? e->encap_act :
				e->raw_decap != NULL ? e->raw_decap :
						       e->raw_encap));
	if (e->mod_act == NULL)
		e->mod_act = act;
	return 0;
}

/* The pattern's header at the rewrite's level, or an error naming it. */
static int
ed_need(const struct vsteer_flow_plan *plan, const struct rte_flow_action *act,
	bool ok, const char *what, struct rte_flow_error *error)
{
	if (ok)
		return 0;
	return vsteer_flow_err(
		error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
		"%s action: the pattern has no %s item%s: the device rewrites the headers the rule matches",
		ed_name(act), what,
		ed_level(plan) ?
			" after its tunnel item (the decap leaves those headers)" :
			"");
}

/* SET_TTL / DEC_TTL: IPv4 TTL or IPv6 hop limit, by the pattern. */
static int
ed_ttl(struct vsteer_flow_plan *plan, const struct rte_flow_action *act,
       bool add, uint8_t v, struct rte_flow_error *error)
{
	unsigned int lvl = ed_level(plan);
	enum rte_flow_field_id f = plan->pat.fam[lvl] == 6 ?
					   RTE_FLOW_FIELD_IPV6_HOPLIMIT :
					   RTE_FLOW_FIELD_IPV4_TTL;
	int ret;

	ret = ed_need(plan, act, plan->pat.fam[lvl] != 0, "IPv4 or IPv6",
		      error);
	if (ret < 0)
		return ret;
	return ed_write(plan, act, ed_map(f), add, &v, 0, 8, error);
}

/* SET_TP_SRC / SET_TP_DST: the TCP or UDP port, by the pattern. */
static int
ed_port(struct vsteer_flow_plan *plan, const struct rte_flow_action *act,
	bool src, struct rte_flow_error *error)
{
	const struct rte_flow_action_set_tp *tp = act->conf;
	unsigned int lvl = ed_level(plan);
	uint8_t p = plan->pat.l4p[lvl];
	enum rte_flow_field_id f;
	int ret;

	ret = ed_need(plan, act, p == IPPROTO_TCP || p == IPPROTO_UDP,
		      "TCP or UDP", error);
	if (ret < 0)
		return ret;
	if (p == IPPROTO_TCP)
		f = src ? RTE_FLOW_FIELD_TCP_PORT_SRC :
			  RTE_FLOW_FIELD_TCP_PORT_DST;
	else
		f = src ? RTE_FLOW_FIELD_UDP_PORT_SRC :
			  RTE_FLOW_FIELD_UDP_PORT_DST;
	return ed_write(plan, act, ed_map(f), false, (const uint8_t *)&tp->port,
			0, 16, error);
}

static int
ed_modify_field(const struct vsteer_xlate_ctx *ctx,
		struct vsteer_flow_plan *plan,
		const struct rte_flow_action *act, struct rte_flow_error *error)
{
	const struct rte_flow_action_modify_field *mf = act->conf;
	const struct ed_map *m;
	const uint8_t *value;
	bool add;

	RTE_SET_USED(ctx);
	if (mf->operation != RTE_FLOW_MODIFY_SET &&
	    mf->operation != RTE_FLOW_MODIFY_ADD)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"MODIFY_FIELD action: operation %d not supported: set or add",
			(int)mf->operation);
	if (mf->src.field != RTE_FLOW_FIELD_VALUE &&
	    mf->src.field != RTE_FLOW_FIELD_POINTER)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"MODIFY_FIELD action: a field as source is a copy, which the root table does not take: give an immediate value or a pointer to one");
	m = ed_map(mf->dst.field);
	if (m == NULL)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"MODIFY_FIELD action: destination field %d not supported (MAC and IP addresses, EtherType, VLAN id, DSCP, TTL, hop limit, TCP and UDP ports, TCP sequence, acknowledgment and flags)",
			(int)mf->dst.field);
	if (mf->dst.level > 1)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"MODIFY_FIELD action: %s level %u: the device rewrites the outer headers only (a decap first makes the inner ones outer)",
			m->name, mf->dst.level);
	if (mf->width == 0)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"MODIFY_FIELD action: width 0: no bits to write");
	if (mf->width > m->width || mf->dst.offset > m->width - mf->width)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"MODIFY_FIELD action: %s is %u bits: offset %u and width %u do not fit",
			m->name, m->width, mf->dst.offset, mf->width);
	add = mf->operation == RTE_FLOW_MODIFY_ADD;
	/* The device adds to a whole field, and to a few only. */
	if (add && (!vsteer_prm_modi_field(m->part[0].prm).add || m->n != 1 ||
		    mf->width != m->width))
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"MODIFY_FIELD action: add to %s%s: the device adds to a whole TTL, hop limit, TCP sequence or acknowledgment number only",
			m->name,
			mf->width != m->width ? " (part of the field)" : "");
	value = mf->src.field == RTE_FLOW_FIELD_VALUE ? mf->src.value :
							mf->src.pvalue;
	if (value == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "MODIFY_FIELD action: no value");
	return ed_write(plan, act, m, add, value, mf->dst.offset, mf->width,
			error);
}

/* Every rewrite action: SET_*, DEC_TTL, INC/DEC_TCP_*, MODIFY_FIELD. */
static int
ed_rewrite(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	   const struct rte_flow_action *act, struct rte_flow_error *error)
{
	unsigned int lvl = ed_level(plan);
	const struct vsteer_flow_pat *pat = &plan->pat;
	bool v4 = pat->fam[lvl] == 4, v6 = pat->fam[lvl] == 6;
	bool src = false, tcp = pat->l4p[lvl] == IPPROTO_TCP;
	const struct rte_flow_action_set_dscp *dscp;
	rte_be32_t n;
	int ret;

	ret = ed_rewrite_begin(plan, act,
			       act->type != RTE_FLOW_ACTION_TYPE_DEC_TTL,
			       error);
	if (ret < 0)
		return ret;
	switch (act->type) {
	case RTE_FLOW_ACTION_TYPE_SET_MAC_SRC:
		src = true;
		/* fall through */
	case RTE_FLOW_ACTION_TYPE_SET_MAC_DST:
		/* After an L3 decap the L2 header is the action's. */
		ret = ed_need(plan, act,
			      pat->eth[lvl] || (lvl == 1 &&
						plan->edit.raw_decap != NULL),
			      "ETH", error);
		return ret < 0 ? ret :
				 ed_write(plan, act,
					  ed_map(src ? RTE_FLOW_FIELD_MAC_SRC :
						       RTE_FLOW_FIELD_MAC_DST),
					  false,
					  ((const struct rte_flow_action_set_mac
						    *)act->conf)
						  ->mac_addr,
					  0, 48, error);
	case RTE_FLOW_ACTION_TYPE_SET_IPV4_SRC:
		src = true;
		/* fall through */
	case RTE_FLOW_ACTION_TYPE_SET_IPV4_DST:
		ret = ed_need(plan, act, v4, "IPv4", error);
		return ret < 0 ?
			       ret :
			       ed_write(plan, act,
					ed_map(src ? RTE_FLOW_FIELD_IPV4_SRC :
						     RTE_FLOW_FIELD_IPV4_DST),
					false,
					(const uint8_t *)&(
						(const struct rte_flow_action_set_ipv4
							 *)act->conf)
						->ipv4_addr,
					0, 32, error);
	case RTE_FLOW_ACTION_TYPE_SET_IPV6_SRC:
		src = true;
		/* fall through */
	case RTE_FLOW_ACTION_TYPE_SET_IPV6_DST:
		ret = ed_need(plan, act, v6, "IPv6", error);
		return ret < 0 ?
			       ret :
			       ed_write(plan, act,
					ed_map(src ? RTE_FLOW_FIELD_IPV6_SRC :
						     RTE_FLOW_FIELD_IPV6_DST),
					false,
					((const struct rte_flow_action_set_ipv6
						  *)act->conf)
						->ipv6_addr,
					0, 128, error);
	case RTE_FLOW_ACTION_TYPE_SET_TP_SRC:
	case RTE_FLOW_ACTION_TYPE_SET_TP_DST:
		return ed_port(plan, act,
			       act->type == RTE_FLOW_ACTION_TYPE_SET_TP_SRC,
			       error);
	case RTE_FLOW_ACTION_TYPE_SET_TTL:
		return ed_ttl(plan, act, false,
			      ((const struct rte_flow_action_set_ttl *)act->conf)
				      ->ttl_value,
			      error);
	case RTE_FLOW_ACTION_TYPE_DEC_TTL:
		return ed_ttl(plan, act, true, 0xff, error);
	case RTE_FLOW_ACTION_TYPE_SET_IPV4_DSCP:
	case RTE_FLOW_ACTION_TYPE_SET_IPV6_DSCP:
		dscp = act->conf;
		src = act->type == RTE_FLOW_ACTION_TYPE_SET_IPV4_DSCP;
		ret = ed_need(plan, act, src ? v4 : v6, src ? "IPv4" : "IPv6",
			      error);
		if (ret < 0)
			return ret;
		if (dscp->dscp > 63)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				act,
				"%s action: DSCP %u out of range (0 to 63)",
				ed_name(act), dscp->dscp);
		return ed_write(plan, act,
				ed_map(src ? RTE_FLOW_FIELD_IPV4_DSCP :
					     RTE_FLOW_FIELD_IPV6_DSCP),
				false, &dscp->dscp, 0, 6, error);
	case RTE_FLOW_ACTION_TYPE_INC_TCP_SEQ:
	case RTE_FLOW_ACTION_TYPE_DEC_TCP_SEQ:
	case RTE_FLOW_ACTION_TYPE_INC_TCP_ACK:
	case RTE_FLOW_ACTION_TYPE_DEC_TCP_ACK:
		ret = ed_need(plan, act, tcp, "TCP", error);
		if (ret < 0)
			return ret;
		n = *(const rte_be32_t *)act->conf;
		if (act->type == RTE_FLOW_ACTION_TYPE_DEC_TCP_SEQ ||
		    act->type == RTE_FLOW_ACTION_TYPE_DEC_TCP_ACK)
			n = rte_cpu_to_be_32(-rte_be_to_cpu_32(n));
		return ed_write(
			plan, act,
			ed_map(act->type == RTE_FLOW_ACTION_TYPE_INC_TCP_SEQ ||
					       act->type ==
						       RTE_FLOW_ACTION_TYPE_DEC_TCP_SEQ ?
				       RTE_FLOW_FIELD_TCP_SEQ_NUM :
				       RTE_FLOW_FIELD_TCP_ACK_NUM),
			true, (const uint8_t *)&n, 0, 32, error);
	default:
		return ed_modify_field(ctx, plan, act, error);
	}
}

/* --- reformat --- */

/* Where a decap or encap may stand: direction and order. */
static int
ed_reformat_begin(struct vsteer_flow_plan *plan,
		  const struct rte_flow_action *act, bool decap,
		  struct rte_flow_error *error)
{
	struct vsteer_flow_edit *e = &plan->edit;

	if (decap && plan->egress)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: no decap on egress rules: the transmit table takes encap, the receive table decap",
			ed_name(act));
	if (!decap && plan->ingress)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: no encap on ingress rules: the receive table takes decap, the transmit table encap",
			ed_name(act));
	if (decap && e->decap_act != NULL)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: the rule has a decap already (%s): one per rule",
			ed_name(act), ed_name(e->decap_act));
	if (!decap && e->encap_act != NULL)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: the rule has an encap already (%s): one per rule",
			ed_name(act), ed_name(e->encap_act));
	if (decap && e->mod_act != NULL)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: listed after %s: the device decapsulates before it rewrites, list the decap first",
			ed_name(act), ed_name(e->mod_act));
	return 0;
}

/* A tunnel the device decapsulates to L2: VXLAN on its port, GRE (or
 * NVGRE) carrying Ethernet. */
static int
ed_l2_tunnel(const struct vsteer_flow_plan *plan,
	     const struct rte_flow_action *act, uint8_t item,
	     struct rte_flow_error *error)
{
	const struct vsteer_flow_pat *pat = &plan->pat;

	if (pat->tunnel == VSTEER_ITEM_N ||
	    (item != VSTEER_ITEM_N && pat->tunnel != item &&
	     !(item == VSTEER_ITEM_GRE && pat->tunnel == VSTEER_ITEM_NVGRE)))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: the pattern has no %s item: the device decapsulates the tunnel the rule matches",
			ed_name(act),
			item == VSTEER_ITEM_VXLAN ? "VXLAN" :
			item == VSTEER_ITEM_GRE	  ? "GRE or NVGRE" :
						    "VXLAN, GRE or NVGRE");
	if (pat->tunnel == VSTEER_ITEM_VXLAN && !pat->vxlan_port)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: the device parses VXLAN on UDP port %u only (the pattern's UDP dst_port differs)",
			ed_name(act), ED_VXLAN_PORT);
	if (!pat->l2_tunnel)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: the pattern's tunnel does not carry Ethernet (GRE protocol 0x6558, or an ETH item after the tunnel item): an L2 decap leaves the inner Ethernet frame",
			ed_name(act));
	return 0;
}

static int
ed_set_data(struct vsteer_flow_plan *plan, const struct vsteer_xlate_ctx *ctx,
	    const struct rte_flow_action *act, const uint8_t *data, size_t len,
	    struct rte_flow_error *error)
{
	uint16_t max = RTE_MIN(ctx->max_encap, (uint16_t)VSTEER_EDIT_MAX_DATA);

	if (len > max)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: a %zu-byte header: the device pushes at most %u (max_encap_header_size)",
			ed_name(act), len, max);
	memcpy(plan->edit.data, data, len);
	plan->edit.data_len = (uint16_t)len;
	return 0;
}

/*
 * The outer UDP checksum of an L2 encap header goes out as 0: the device
 * does not compute it (DPDK's mlx5 zeroes it too). The header must be
 * Ethernet, VLAN tags, then IPv4 or IPv6.
 */
static int
ed_encap_l2_check(struct vsteer_flow_plan *plan,
		  const struct rte_flow_action *act,
		  struct rte_flow_error *error)
{
	uint8_t *d = plan->edit.data;
	uint32_t off = RTE_ETHER_HDR_LEN, len = plan->edit.data_len;
	uint16_t type;
	uint8_t proto;

	if (len < RTE_ETHER_HDR_LEN)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "%s action: %u bytes hold no Ethernet header",
				       ed_name(act), len);
	type = (uint16_t)(d[12] << 8 | d[13]);
	while ((type == RTE_ETHER_TYPE_VLAN || type == RTE_ETHER_TYPE_QINQ) &&
	       off + 4 <= len) {
		type = (uint16_t)(d[off + 2] << 8 | d[off + 3]);
		off += 4;
	}
	if (type == RTE_ETHER_TYPE_IPV4 &&
	    off + sizeof(struct rte_ipv4_hdr) <= len) {
		proto = d[off + 9];
		off += (d[off] & 0xf) * 4;
	} else if (type == RTE_ETHER_TYPE_IPV6 &&
		   off + sizeof(struct rte_ipv6_hdr) <= len) {
		proto = d[off + 6];
		off += sizeof(struct rte_ipv6_hdr);
	} else {
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"%s action: the header must be Ethernet, VLAN tags, then IPv4 or IPv6 (type 0x%04x)",
			ed_name(act), type);
	}
	if (proto == IPPROTO_UDP && off + sizeof(struct rte_udp_hdr) <= len)
		memset(d + off + offsetof(struct rte_udp_hdr, dgram_cksum), 0,
		       2);
	return 0;
}

/*
 * VXLAN_ENCAP and NVGRE_ENCAP: the header from the definition's items,
 * each spec as its header, with what DPDK's mlx5 fills when zero
 * (flow_dv_convert_encap_data()): the ethertypes, IPv4 version and IHL,
 * TTL 64, IPv6 version and hop limit 255, the IP protocol, VXLAN's UDP
 * port and flags.
 */
static int
ed_encap_items(const struct vsteer_xlate_ctx *ctx,
	       struct vsteer_flow_plan *plan, const struct rte_flow_action *act,
	       const struct rte_flow_item *items, struct rte_flow_error *error)
{
	uint8_t buf[VSTEER_EDIT_MAX_DATA];
	struct rte_ether_hdr *eth = NULL;
	struct rte_vlan_hdr *vlan = NULL;
	struct rte_ipv4_hdr *ip4 = NULL;
	struct rte_ipv6_hdr *ip6 = NULL;
	struct rte_udp_hdr *udp = NULL;
	bool tunnel = false;
	size_t n = 0, len;
	const char *missing;

	memset(buf, 0, sizeof(buf));
	for (; items != NULL && items->type != RTE_FLOW_ITEM_TYPE_END;
	     items++) {
		uint8_t *h = buf + n;

		missing = NULL;
		switch (items->type) {
		case RTE_FLOW_ITEM_TYPE_VOID:
			continue;
		case RTE_FLOW_ITEM_TYPE_ETH:
			len = sizeof(*eth);
			if (eth != NULL)
				missing = "one ETH item only";
			break;
		case RTE_FLOW_ITEM_TYPE_VLAN:
			len = sizeof(*vlan);
			if (eth == NULL)
				missing = "ETH before VLAN";
			break;
		case RTE_FLOW_ITEM_TYPE_IPV4:
			len = sizeof(*ip4);
			if (eth == NULL || ip4 != NULL || ip6 != NULL)
				missing = "ETH before one IPv4 or IPv6";
			break;
		case RTE_FLOW_ITEM_TYPE_IPV6:
			len = sizeof(*ip6);
			if (eth == NULL || ip4 != NULL || ip6 != NULL)
				missing = "ETH before one IPv4 or IPv6";
			break;
		case RTE_FLOW_ITEM_TYPE_UDP:
			len = sizeof(*udp);
			if (ip4 == NULL && ip6 == NULL)
				missing = "IPv4 or IPv6 before UDP";
			break;
		case RTE_FLOW_ITEM_TYPE_VXLAN:
			len = sizeof(struct rte_vxlan_hdr);
			if (udp == NULL)
				missing = "UDP before VXLAN";
			break;
		case RTE_FLOW_ITEM_TYPE_NVGRE:
			len = sizeof(struct rte_flow_item_nvgre);
			if (ip4 == NULL && ip6 == NULL)
				missing = "IPv4 or IPv6 before NVGRE";
			break;
		default:
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				act,
				"%s action: item %s in the definition not supported (ETH, VLAN, IPV4, IPV6, UDP, VXLAN, NVGRE)",
				ed_name(act),
				vsteer_flow_item_type_name(items->type));
		}
		if (missing == NULL && tunnel)
			missing = "nothing after the tunnel item";
		if (missing != NULL)
			return vsteer_flow_err(error, EINVAL,
					       RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					       act, "%s action: definition: %s",
					       ed_name(act), missing);
		if (n + len > sizeof(buf))
			return ed_set_data(plan, ctx, act, buf, n + len, error);
		if (items->spec != NULL)
			memcpy(h, items->spec, len);
		switch (items->type) {
		case RTE_FLOW_ITEM_TYPE_ETH:
			eth = (struct rte_ether_hdr *)h;
			break;
		case RTE_FLOW_ITEM_TYPE_VLAN:
			vlan = (struct rte_vlan_hdr *)h;
			if (eth->ether_type == 0)
				eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_VLAN);
			break;
		case RTE_FLOW_ITEM_TYPE_IPV4:
		case RTE_FLOW_ITEM_TYPE_IPV6: {
			rte_be16_t t = items->type == RTE_FLOW_ITEM_TYPE_IPV4 ?
					       RTE_BE16(RTE_ETHER_TYPE_IPV4) :
					       RTE_BE16(RTE_ETHER_TYPE_IPV6);

			if (vlan != NULL && vlan->eth_proto == 0)
				vlan->eth_proto = t;
			else if (vlan == NULL && eth->ether_type == 0)
				eth->ether_type = t;
			if (items->type == RTE_FLOW_ITEM_TYPE_IPV4) {
				ip4 = (struct rte_ipv4_hdr *)h;
				if (ip4->version_ihl == 0)
					ip4->version_ihl = 0x45;
				if (ip4->time_to_live == 0)
					ip4->time_to_live = 64;
			} else {
				ip6 = (struct rte_ipv6_hdr *)h;
				if (ip6->vtc_flow == 0)
					ip6->vtc_flow = RTE_BE32(0x60000000);
				if (ip6->hop_limits == 0)
					ip6->hop_limits = 0xff;
			}
			break;
		}
		case RTE_FLOW_ITEM_TYPE_UDP:
			udp = (struct rte_udp_hdr *)h;
			if (ip4 != NULL && ip4->next_proto_id == 0)
				ip4->next_proto_id = IPPROTO_UDP;
			else if (ip6 != NULL && ip6->proto == 0)
				ip6->proto = IPPROTO_UDP;
			break;
		case RTE_FLOW_ITEM_TYPE_VXLAN:
			tunnel = true;
			if (udp->dst_port == 0)
				udp->dst_port = RTE_BE16(ED_VXLAN_PORT);
			if (((struct rte_vxlan_hdr *)h)->vx_flags == 0)
				((struct rte_vxlan_hdr *)h)->vx_flags =
					RTE_BE32(0x08000000);
			break;
		default: /* NVGRE */
			tunnel = true;
			if (((struct rte_flow_item_nvgre *)h)->protocol == 0)
				return vsteer_flow_err(
					error, EINVAL,
					RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
					"%s action: definition: the NVGRE item has no protocol",
					ed_name(act));
			if (ip4 != NULL && ip4->next_proto_id == 0)
				ip4->next_proto_id = IPPROTO_GRE;
			else if (ip6 != NULL && ip6->proto == 0)
				ip6->proto = IPPROTO_GRE;
			break;
		}
		n += len;
	}
	if (!tunnel ||
	    (act->type == RTE_FLOW_ACTION_TYPE_VXLAN_ENCAP) != (udp != NULL))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"%s action: definition: %s", ed_name(act),
			act->type == RTE_FLOW_ACTION_TYPE_VXLAN_ENCAP ?
				"ETH, [VLAN,] IPV4 or IPV6, UDP, VXLAN" :
				"ETH, [VLAN,] IPV4 or IPV6, NVGRE");
	return ed_set_data(plan, ctx, act, buf, n, error);
}

static int
ed_reformat(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	    const struct rte_flow_action *act, struct rte_flow_error *error)
{
	struct vsteer_flow_edit *e = &plan->edit;
	const struct rte_flow_action_vxlan_encap *ve;
	const struct rte_flow_action_nvgre_encap *ne;
	const struct rte_flow_action_raw_encap *re;
	const struct rte_flow_action_raw_decap *rd;
	bool decap = act->type == RTE_FLOW_ACTION_TYPE_VXLAN_DECAP ||
		     act->type == RTE_FLOW_ACTION_TYPE_NVGRE_DECAP;
	int ret;

	switch (act->type) {
	case RTE_FLOW_ACTION_TYPE_RAW_DECAP:
		rd = act->conf;
		if (rd == NULL || rd->size == 0)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				act,
				"RAW_DECAP action: no size: the header it takes away");
		if (e->raw_decap != NULL)
			return vsteer_flow_err(error, ENOTSUP,
					       RTE_FLOW_ERROR_TYPE_ACTION, act,
					       "RAW_DECAP action: one per rule");
		/* Decap or L3 encap: ed_finish() knows which. */
		if (plan->ingress) {
			ret = ed_reformat_begin(plan, act, true, error);
			if (ret < 0)
				return ret;
		}
		e->raw_decap = act;
		return 0;
	case RTE_FLOW_ACTION_TYPE_RAW_ENCAP:
		re = act->conf;
		if (re == NULL || re->data == NULL || re->size == 0)
			return vsteer_flow_err(error, EINVAL,
					       RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					       act,
					       "RAW_ENCAP action: no data");
		if (re->preserve != NULL)
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				act,
				"RAW_ENCAP action: preserve not supported: the header is pushed as it is");
		if (e->raw_encap != NULL || e->encap_act != NULL)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
				"RAW_ENCAP action: the rule has an encap already: one per rule");
		e->raw_encap = act;
		return 0;
	default:
		break;
	}
	ret = ed_reformat_begin(plan, act, decap, error);
	if (ret < 0)
		return ret;
	switch (act->type) {
	case RTE_FLOW_ACTION_TYPE_VXLAN_DECAP:
	case RTE_FLOW_ACTION_TYPE_NVGRE_DECAP:
		ret = ed_l2_tunnel(plan, act,
				   act->type == RTE_FLOW_ACTION_TYPE_VXLAN_DECAP ?
					   VSTEER_ITEM_VXLAN :
					   VSTEER_ITEM_GRE,
				   error);
		if (ret < 0)
			return ret;
		e->decap_act = act;
		e->reformat = VSTEER_REFORMAT_DECAP_L2;
		return 0;
	case RTE_FLOW_ACTION_TYPE_VXLAN_ENCAP:
		ve = act->conf;
		if (ve == NULL || ve->definition == NULL)
			return vsteer_flow_err(error, EINVAL,
					       RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					       act,
					       "VXLAN_ENCAP action: no definition");
		ret = ed_encap_items(ctx, plan, act, ve->definition, error);
		break;
	default:
		ne = act->conf;
		if (ne == NULL || ne->definition == NULL)
			return vsteer_flow_err(error, EINVAL,
					       RTE_FLOW_ERROR_TYPE_ACTION_CONF,
					       act,
					       "NVGRE_ENCAP action: no definition");
		ret = ed_encap_items(ctx, plan, act, ne->definition, error);
		break;
	}
	if (ret < 0)
		return ret;
	e->encap_act = act;
	e->reformat = VSTEER_REFORMAT_ENCAP_L2;
	return ed_encap_l2_check(plan, act, error);
}

int
vsteer_flow_edit_action(const struct vsteer_xlate_ctx *ctx,
			struct vsteer_flow_plan *plan,
			const struct rte_flow_action *act,
			struct rte_flow_error *error)
{
	switch (act->type) {
	case RTE_FLOW_ACTION_TYPE_VXLAN_DECAP:
	case RTE_FLOW_ACTION_TYPE_NVGRE_DECAP:
	case RTE_FLOW_ACTION_TYPE_RAW_DECAP:
	case RTE_FLOW_ACTION_TYPE_VXLAN_ENCAP:
	case RTE_FLOW_ACTION_TYPE_NVGRE_ENCAP:
	case RTE_FLOW_ACTION_TYPE_RAW_ENCAP:
		return ed_reformat(ctx, plan, act, error);
	default:
		if (act->type == RTE_FLOW_ACTION_TYPE_MODIFY_FIELD &&
		    act->conf == NULL)
			break;
		return ed_rewrite(ctx, plan, act, error);
	}
	return vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
			       act, "MODIFY_FIELD action: no configuration");
}

/* RAW_DECAP and RAW_ENCAP, now that both are known. */
static int
ed_raw(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
       struct rte_flow_error *error)
{
	struct vsteer_flow_edit *e = &plan->edit;
	const struct rte_flow_action_raw_encap *re =
		e->raw_encap != NULL ? e->raw_encap->conf : NULL;
	const struct rte_flow_action_raw_decap *rd =
		e->raw_decap != NULL ? e->raw_decap->conf : NULL;
	const struct rte_flow_action *act;
	bool big_d = rd != NULL && rd->size > ED_DECISION_SIZE;
	bool big_e = re != NULL && re->size > ED_DECISION_SIZE;
	int ret;

	if (rd == NULL && re == NULL)
		return 0;
	if (rd != NULL && re != NULL && big_d == big_e)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION,
			e->raw_encap,
			"RAW_ENCAP action: with RAW_DECAP, one of them is an L2 header (%zu bytes at most) and the other longer: an L3 decap or an L3 encap (%zu and %zu bytes given)",
			ED_DECISION_SIZE, rd->size, re->size);
	if (rd != NULL && (re == NULL || big_d)) {
		/* A decap: to L2 alone, to L3 with the new L2 header. */
		act = e->raw_decap;
		if (plan->egress)
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
				"RAW_DECAP action: no decap on egress rules: the transmit table takes encap, the receive table decap");
		if (e->reformat != VSTEER_REFORMAT_NONE)
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
				"RAW_DECAP action: the rule has a decap already: one per rule");
		if (re == NULL) {
			ret = ed_l2_tunnel(plan, act, VSTEER_ITEM_N, error);
			if (ret < 0)
				return ret;
			e->reformat = VSTEER_REFORMAT_DECAP_L2;
			e->decap_act = act;
			return 0;
		}
		if (plan->pat.tunnel == VSTEER_ITEM_N)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
				"RAW_DECAP action: the pattern has no tunnel item: the device decapsulates the tunnel the rule matches");
		/* "data should be MAC or MAC + vlan (14 or 18 bytes)",
		 * mlx5dv_create_flow_action_packet_reformat(3). */
		if (re->size != RTE_ETHER_HDR_LEN &&
		    re->size != RTE_ETHER_HDR_LEN + sizeof(struct rte_vlan_hdr))
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				e->raw_encap,
				"RAW_ENCAP action: the L2 header of an L3 decap is 14 or 18 bytes (MAC, or MAC and one VLAN tag), not %zu",
				re->size);
		e->reformat = VSTEER_REFORMAT_DECAP_L3;
		e->decap_act = act;
		return ed_set_data(plan, ctx, e->raw_encap, re->data, re->size,
				   error);
	}
	/* An encap: L2 alone, L3 after RAW_DECAP of the L2 header. */
	act = e->raw_encap;
	if (plan->ingress)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"RAW_ENCAP action: no encap on ingress rules: the receive table takes decap, the transmit table encap");
	if (rd == NULL && !big_e)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RAW_ENCAP action: %zu bytes: an L2 encap header is longer than an Ethernet and an IPv4 header (%zu bytes); an L3 encap takes RAW_DECAP of the L2 header first",
			re->size, ED_DECISION_SIZE);
	ret = ed_set_data(plan, ctx, act, re->data, re->size, error);
	if (ret < 0)
		return ret;
	e->encap_act = act;
	if (rd != NULL) {
		e->reformat = VSTEER_REFORMAT_ENCAP_L3;
		return 0;
	}
	e->reformat = VSTEER_REFORMAT_ENCAP_L2;
	return ed_encap_l2_check(plan, act, error);
}

int
vsteer_flow_edit_finish(const struct vsteer_xlate_ctx *ctx,
			struct vsteer_flow_plan *plan,
			const struct rte_flow_action *end,
			struct rte_flow_error *error)
{
	struct vsteer_flow_edit *e = &plan->edit;
	const struct rte_flow_action *first;
	uint16_t max;
	int ret;

	ret = ed_raw(ctx, plan, error);
	if (ret < 0)
		return ret;
	first = e->mod_act != NULL   ? e->mod_act :
		e->decap_act != NULL ? e->decap_act :
				       e->encap_act;
	if (first == NULL)
		return 0;
	if (plan->fate == VSTEER_FATE_DROP)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, first,
			"%s action: cannot be combined with DROP (nothing is left to rewrite or reformat)",
			ed_name(first));
	max = plan->egress ? ctx->max_modify_tx : ctx->max_modify_rx;
	if (e->n_mod > max)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, e->mod_act,
			"header rewrites: %u header modify actions, the device's %s table takes at most %u (max_modify_header_actions)",
			e->n_mod, plan->egress ? "transmit" : "receive", max);
	plan->decap = e->reformat == VSTEER_REFORMAT_DECAP_L2 ||
		      e->reformat == VSTEER_REFORMAT_DECAP_L3;
	RTE_SET_USED(end);
	return 0;
}

int
vsteer_flow_edit_reformat_type(uint8_t reformat)
{
	switch (reformat) {
	case VSTEER_REFORMAT_DECAP_L2:
		return MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2;
	case VSTEER_REFORMAT_DECAP_L3:
		return MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L3_TUNNEL_TO_L2;
	case VSTEER_REFORMAT_ENCAP_L2:
		return MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL;
	case VSTEER_REFORMAT_ENCAP_L3:
		return MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L3_TUNNEL;
	default:
		return -1;
	}
}

int
vsteer_flow_edit_ft_type(bool egress)
{
	return egress ? MLX5DV_FLOW_TABLE_TYPE_NIC_TX :
			MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
}

/* --- dump --- */

static const char *
ed_prm_name(uint32_t field)
{
	static const char *const names[] = {
		[ED_F(SMAC_47_16)] = "smac_47_16",
		[ED_F(SMAC_15_0)] = "smac_15_0",
		[ED_F(ETHERTYPE)] = "ethertype",
		[ED_F(DMAC_47_16)] = "dmac_47_16",
		[ED_F(DMAC_15_0)] = "dmac_15_0",
		[ED_F(IP_DSCP)] = "ip_dscp",
		[ED_F(TCP_FLAGS)] = "tcp_flags",
		[ED_F(TCP_SPORT)] = "tcp_sport",
		[ED_F(TCP_DPORT)] = "tcp_dport",
		[ED_F(IPV4_TTL)] = "ipv4_ttl",
		[ED_F(UDP_SPORT)] = "udp_sport",
		[ED_F(UDP_DPORT)] = "udp_dport",
		[ED_F(SIPV6_127_96)] = "sipv6_127_96",
		[ED_F(SIPV6_95_64)] = "sipv6_95_64",
		[ED_F(SIPV6_63_32)] = "sipv6_63_32",
		[ED_F(SIPV6_31_0)] = "sipv6_31_0",
		[ED_F(DIPV6_127_96)] = "dipv6_127_96",
		[ED_F(DIPV6_95_64)] = "dipv6_95_64",
		[ED_F(DIPV6_63_32)] = "dipv6_63_32",
		[ED_F(DIPV6_31_0)] = "dipv6_31_0",
		[ED_F(SIPV4)] = "sipv4",
		[ED_F(DIPV4)] = "dipv4",
		[ED_F(FIRST_VID)] = "first_vid",
		[ED_F(IPV6_HOPLIMIT)] = "ipv6_hoplimit",
		[ED_F(TCP_SEQ_NUM)] = "tcp_seq_num",
		[ED_F(TCP_ACK_NUM)] = "tcp_ack_num",
		[ED_F(IP_ECN)] = "ip_ecn",
	};

	if (field < RTE_DIM(names) && names[field] != NULL)
		return names[field];
	return "?";
}

void
vsteer_flow_edit_dump_mod(FILE *f, const uint64_t *mod, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		uint8_t b[VSTEER_PRM_MOD_ACTION_BYTES];
		uint32_t type, field, off, len;

		memcpy(b, &mod[i], sizeof(b));
		type = vsteer_prm_get(b, VSTEER_PRM_MOD_TYPE_OFF,
				      VSTEER_PRM_MOD_TYPE_LEN);
		field = vsteer_prm_get(b, VSTEER_PRM_MOD_FIELD_OFF,
				       VSTEER_PRM_MOD_FIELD_LEN);
		off = vsteer_prm_get(b, VSTEER_PRM_MOD_OFFSET_OFF,
				     VSTEER_PRM_MOD_OFFSET_LEN);
		len = vsteer_prm_get(b, VSTEER_PRM_MOD_LENGTH_OFF,
				     VSTEER_PRM_MOD_LENGTH_LEN);
		fprintf(f, "    %s %s",
			type == VSTEER_PRM_MOD_ADD ? "add" : "set",
			ed_prm_name(field));
		if (type == VSTEER_PRM_MOD_SET)
			fprintf(f, " bits %u..%u", off,
				off + (len == 0 ? 32 : len) - 1);
		fprintf(f, " 0x%08x (%08x %08x)\n",
			vsteer_prm_get(b, VSTEER_PRM_MOD_DATA_OFF,
				       VSTEER_PRM_MOD_DATA_LEN),
			vsteer_prm_rd32(b, 0), vsteer_prm_rd32(b, 4));
	}
}

void
vsteer_flow_edit_dump_reformat(FILE *f, uint8_t reformat, const uint8_t *data,
			       unsigned int len)
{
	static const char *const names[] = {
		[VSTEER_REFORMAT_DECAP_L2] = "L2_TUNNEL_TO_L2",
		[VSTEER_REFORMAT_DECAP_L3] = "L3_TUNNEL_TO_L2",
		[VSTEER_REFORMAT_ENCAP_L2] = "L2_TO_L2_TUNNEL",
		[VSTEER_REFORMAT_ENCAP_L3] = "L2_TO_L3_TUNNEL",
	};
	unsigned int i;

	fprintf(f, "  packet reformat %s, %u bytes",
		reformat < RTE_DIM(names) && names[reformat] != NULL ?
			names[reformat] :
			"?",
		len);
	for (i = 0; i < len; i++)
		fprintf(f, "%s%02x", i % 32 == 0 ? "\n    " : " ", data[i]);
	fprintf(f, "\n");
}
