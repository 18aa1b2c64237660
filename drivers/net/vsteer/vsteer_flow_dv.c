/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * rte_flow -> PRM fte_match_param, for mlx5dv matchers.
 *
 * One handler per item type; the generic checks (every masked field
 * against the matcher column of vsteer_flow_engines.c, ranges) come first
 * and are shared with the verbs engine, as are attributes, actions and the
 * RSS expansion (vsteer_flow_xlate.c). The handler checks the item's place
 * in the pattern and writes mask and value.
 *
 * Semantics follow the device: a header that is absent reads as zero, so
 * every L3/L4/tunnel item also pins the field that proves the protocol
 * (ip_version, ip_protocol, the UDP port of VXLAN/MPLS, the GRE protocol),
 * as DPDK's mlx5 DV engine does. Where the PRM says more than rte_flow
 * asks, the stricter reading of rte_flow wins:
 * - ETH has_vlan 0: cvlan_tag and svlan_tag both 0 (untagged); has_vlan 1
 *   without a TPID: cvlan_tag 1 (first tag 802.1Q, as mlx5 reads it).
 * - ETH type 0x8100 / 0x88a8: cvlan_tag / svlan_tag 1 (the PRM ethertype
 *   is the one after the tags); a VLAN item after it matches that tag.
 * - VLAN inner_type: a TPID (0x8100 / 0x88a8) is a second tag
 *   (outer_second_cvlan_tag / svlan_tag); any other value is the
 *   ethertype after this tag, so "no second tag" is matched too.
 *   has_more_vlan 0: no second tag; 1: a second 802.1Q tag (mlx5's
 *   reading; give inner_type 0x88a8 for an 802.1ad one).
 * - IPv4 fragment_offset: the PRM has one "frag" bit, so only mask 0x3fff
 *   with 0 (not a fragment) or the range 1..0x3fff (a fragment) is taken.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_ether.h>
#include <rte_flow.h>
#include <rte_jhash.h>

#include "vsteer_flow_dv.h"

#define DV_ENG VSTEER_FLOW_ENGINE_DV

#define DV_ETHER_TYPE_IPV4 0x0800
#define DV_ETHER_TYPE_IPV6 0x86dd
#define DV_ETHER_TYPE_VLAN 0x8100
#define DV_ETHER_TYPE_QINQ 0x88a8
#define DV_ETHER_TYPE_TEB 0x6558 /* transparent Ethernet bridging */
#define DV_ETHER_TYPE_MPLS 0x8847
#define DV_IPPROTO_GRE 47
#define DV_VXLAN_PORT 4789
#define DV_MPLS_UDP_PORT 6635
#define DV_IPV4_FRAG_MASK 0x3fff /* MF flag + fragment offset */
#define DV_IPV4_MF 0x2000

/* vsteer_dv_params() hands our buffer to rdma-core as its own struct. */
_Static_assert(offsetof(struct vsteer_dv_params, buf) ==
		       offsetof(struct mlx5dv_flow_match_parameters, match_buf),
	       "vsteer_dv_params must match mlx5dv_flow_match_parameters");

/* Per header level (0 outer, 1 inner) facts later items check. */
struct dv_level {
	uint16_t l2_type_m; /* ethertype constraint after the tags, host */
	uint16_t l2_type_v;
	bool l2_tpid;	 /* ETH type was a VLAN TPID */
	bool svlan;	 /* ... 0x88a8 */
	bool vlan;	 /* a VLAN item */
	uint8_t proto_m; /* L3 next protocol constraint */
	uint8_t proto_v;
	uint8_t fam; /* 0, 4, 6 */
	uint8_t l4p; /* 0, TCP, UDP, ESP */
};

struct dv_ctx {
	const struct vsteer_xlate_ctx *xctx;
	struct vsteer_flow_plan *plan;
	struct vsteer_dv_match *m;
	uint8_t *mk;
	uint8_t *vl;
	struct dv_level lv[2];
	struct rte_flow_error *error;
};

typedef int(dv_item_fn)(struct dv_ctx *c, const struct rte_flow_item *item,
			const struct vsteer_item_vals *v);

/* Messages name a field (vsteer_flow_err() formats them). */
#define dv_error(c, code, type, item, ...) \
	vsteer_flow_err((c)->error, code, type, item, __VA_ARGS__)

/* --- writing mask and value --- */

static void
dv_set(struct dv_ctx *c, uint32_t off, uint32_t len, uint32_t m, uint32_t v)
{
	vsteer_prm_set(c->mk, off, len, m);
	vsteer_prm_set(c->vl, off, len, v & m);
}

static void
dv_set_bytes(struct dv_ctx *c, uint32_t off, const void *m, const void *v,
	     size_t n)
{
	const uint8_t *mb = m, *vb = v;
	uint8_t *dm = vsteer_prm_bytes(c->mk, off);
	uint8_t *dv = vsteer_prm_bytes(c->vl, off);
	size_t i;

	for (i = 0; i < n; i++) {
		dm[i] = mb[i];
		dv[i] = vb[i] & mb[i];
	}
}

static uint32_t
dv_get_mask(struct dv_ctx *c, uint32_t off, uint32_t len)
{
	return vsteer_prm_get(c->mk, off, len);
}

static uint32_t
dv_get_value(struct dv_ctx *c, uint32_t off, uint32_t len)
{
	return vsteer_prm_get(c->vl, off, len);
}

#define DV_SET(c, sect, fld, m, v) \
	dv_set((c), (sect) + fld##_OFF, fld##_LEN, (m), (v))
#define DV_MASK(c, sect, fld) dv_get_mask((c), (sect) + fld##_OFF, fld##_LEN)
#define DV_VALUE(c, sect, fld) dv_get_value((c), (sect) + fld##_OFF, fld##_LEN)

/* --- layers --- */

static bool
dv_inner(const struct dv_ctx *c)
{
	return (c->m->layers & VSTEER_DV_L_TUNNEL) != 0;
}

static uint32_t
dv_sect(const struct dv_ctx *c)
{
	return dv_inner(c) ? VSTEER_PRM_INNER : VSTEER_PRM_OUTER;
}

/* Layer bit at the current level: outer bits shifted for inner. */
static uint32_t
dv_lbit(const struct dv_ctx *c, uint32_t outer_bit)
{
	return dv_inner(c) ? outer_bit << VSTEER_DV_L_INNER_SHIFT : outer_bit;
}

#define DV_L3 (VSTEER_DV_L_OUTER_IPV4 | VSTEER_DV_L_OUTER_IPV6)
#define DV_L4 \
	(VSTEER_DV_L_OUTER_TCP | VSTEER_DV_L_OUTER_UDP | VSTEER_DV_L_OUTER_ESP)

static bool
dv_has(const struct dv_ctx *c, uint32_t outer_bits)
{
	return (c->m->layers & dv_lbit(c, outer_bits)) != 0;
}

static struct dv_level *
dv_level(struct dv_ctx *c)
{
	return &c->lv[dv_inner(c)];
}

/* A named row the matcher lacks here: refuse with plan->limit set. */
static int
dv_named_check(struct dv_ctx *c, enum vsteer_row_id id,
	       enum rte_flow_error_type type, const struct rte_flow_item *item)
{
	const struct vsteer_flow_row *row = &vsteer_flow_named[id];

	if (vsteer_flow_row_ok(row, DV_ENG, c->xctx, dv_inner(c)))
		return 0;
	return vsteer_flow_row_limit(c->plan, c->xctx, row, dv_inner(c),
				     c->error, type, item);
}

/*
 * raw_fs_is_multicast() (Linux 6.1): a matcher rule whose outer dmac has
 * the group bit in value and mask, or whose outer IPv4 dst value and mask
 * are both in 224.0.0.0/4, goes to the kernel's multicast table, after
 * every priority and after the port's default flows, which take its
 * frames first. Unlike a verbs chain (vsteer_flow_verbs.c), the matcher
 * has no way around it: refuse, so that flow_engine=auto takes verbs.
 */
static int
dv_mcast_check(struct dv_ctx *c, enum vsteer_row_id id, bool mcast,
	       const struct rte_flow_item *item, const char *subject)
{
	if (!mcast || dv_inner(c) ||
	    vsteer_flow_row_ok(&vsteer_flow_named[id], DV_ENG, c->xctx, false))
		return 0;
	return vsteer_flow_limit(
		c->plan, c->error, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item, subject,
		"keep the priority of a multicast dst (the kernel's multicast table is after every priority and the default flows)");
}

/* --- ETH --- */

static int
dv_eth(struct dv_ctx *c, const struct rte_flow_item *item,
       const struct vsteer_item_vals *v)
{
	const struct rte_flow_item_eth *spec = &v->val.eth,
				       *mask = &v->mask.eth;
	struct dv_level *lv = dv_level(c);
	uint32_t sect = dv_sect(c);
	uint16_t tm, tv;
	int ret;

	if (dv_has(c, VSTEER_DV_L_OUTER_L2 | VSTEER_DV_L_OUTER_VLAN | DV_L3 |
			      DV_L4))
		return dv_error(
			c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
			"ETH: L2 layer cannot follow L2, VLAN, L3 or L4 layers");
	ret = dv_mcast_check(c, VSTEER_ROW_ETH_MCAST,
			     spec->hdr.dst_addr.addr_bytes[0] &
				     mask->hdr.dst_addr.addr_bytes[0] & 1,
			     item, "ETH item: dst");
	if (ret < 0)
		return ret;
	c->m->layers |= dv_lbit(c, VSTEER_DV_L_OUTER_L2);
	dv_set_bytes(c, sect + VSTEER_PRM_L24_DMAC_OFF,
		     mask->hdr.dst_addr.addr_bytes,
		     spec->hdr.dst_addr.addr_bytes, RTE_ETHER_ADDR_LEN);
	dv_set_bytes(c, sect + VSTEER_PRM_L24_SMAC_OFF,
		     mask->hdr.src_addr.addr_bytes,
		     spec->hdr.src_addr.addr_bytes, RTE_ETHER_ADDR_LEN);
	tm = rte_be_to_cpu_16(mask->hdr.ether_type);
	tv = rte_be_to_cpu_16(spec->hdr.ether_type) & tm;
	/* The PRM ethertype is the one after the VLAN tags: a TPID here
	 * means "tagged" (cvlan_tag / svlan_tag), as in mlx5 DV. */
	if (tm == 0xffff && tv == DV_ETHER_TYPE_VLAN) {
		ret = dv_named_check(c, VSTEER_ROW_ETH_TPID_C,
				     RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item);
		if (ret < 0)
			return ret;
		DV_SET(c, sect, VSTEER_PRM_L24_CVLAN_TAG, 1, 1);
		lv->l2_tpid = true;
	} else if (tm == 0xffff && tv == DV_ETHER_TYPE_QINQ) {
		ret = dv_named_check(c, VSTEER_ROW_ETH_TPID_S,
				     RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item);
		if (ret < 0)
			return ret;
		DV_SET(c, sect, VSTEER_PRM_L24_SVLAN_TAG, 1, 1);
		lv->l2_tpid = true;
		lv->svlan = true;
	} else if (tm) {
		DV_SET(c, sect, VSTEER_PRM_L24_ETHERTYPE, tm, tv);
		lv->l2_type_m = tm;
		lv->l2_type_v = tv;
	}
	if (mask->has_vlan) {
		if (!spec->has_vlan) {
			if (lv->l2_tpid)
				return dv_error(
					c, EINVAL,
					RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
					"ETH: has_vlan 0 contradicts the VLAN TPID type 0x%04x",
					tv);
			/* Untagged: neither an 802.1Q nor an 802.1ad tag. */
			DV_SET(c, sect, VSTEER_PRM_L24_CVLAN_TAG, 1, 0);
			DV_SET(c, sect, VSTEER_PRM_L24_SVLAN_TAG, 1, 0);
		} else if (!lv->l2_tpid) {
			DV_SET(c, sect, VSTEER_PRM_L24_CVLAN_TAG, 1, 1);
		}
	}
	return 0;
}

/* --- VLAN --- */

/* The misc bits of the second tag of the current level. */
static void
dv_second_tag(struct dv_ctx *c, uint32_t cm, uint32_t cv, uint32_t sm,
	      uint32_t sv)
{
	if (dv_inner(c)) {
		DV_SET(c, VSTEER_PRM_MISC,
		       VSTEER_PRM_MISC_INNER_SECOND_CVLAN_TAG, cm, cv);
		DV_SET(c, VSTEER_PRM_MISC,
		       VSTEER_PRM_MISC_INNER_SECOND_SVLAN_TAG, sm, sv);
	} else {
		DV_SET(c, VSTEER_PRM_MISC,
		       VSTEER_PRM_MISC_OUTER_SECOND_CVLAN_TAG, cm, cv);
		DV_SET(c, VSTEER_PRM_MISC,
		       VSTEER_PRM_MISC_OUTER_SECOND_SVLAN_TAG, sm, sv);
	}
}

static int
dv_vlan(struct dv_ctx *c, const struct rte_flow_item *item,
	const struct vsteer_item_vals *v)
{
	const struct rte_flow_item_vlan *spec = &v->val.vlan,
					*mask = &v->mask.vlan;
	struct dv_level *lv = dv_level(c);
	uint32_t sect = dv_sect(c);
	uint16_t tm, tv;
	int ret;

	if (lv->vlan)
		return dv_named_check(c, VSTEER_ROW_VLAN_TWO_ITEMS,
				      RTE_FLOW_ERROR_TYPE_ITEM, item);
	if (dv_has(c, DV_L3 | DV_L4))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"VLAN: cannot follow L3 or L4 layers");
	if (lv->l2_type_m)
		return dv_error(
			c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
			"VLAN: cannot follow an ETH item whose type 0x%04x (mask 0x%04x) is no VLAN TPID",
			lv->l2_type_v, lv->l2_type_m);
	if (DV_MASK(c, sect, VSTEER_PRM_L24_CVLAN_TAG) &&
	    !DV_VALUE(c, sect, VSTEER_PRM_L24_CVLAN_TAG) &&
	    DV_MASK(c, sect, VSTEER_PRM_L24_SVLAN_TAG) &&
	    !DV_VALUE(c, sect, VSTEER_PRM_L24_SVLAN_TAG))
		return dv_error(
			c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
			"VLAN: the ETH item excludes tagged frames (has_vlan 0)");
	if (mask->hdr.vlan_tci == 0) {
		ret = dv_named_check(c, VSTEER_ROW_VLAN_PRESENCE,
				     RTE_FLOW_ERROR_TYPE_ITEM_MASK, item);
		if (ret < 0)
			return ret;
	}
	c->m->layers |= dv_lbit(c, VSTEER_DV_L_OUTER_VLAN);
	lv->vlan = true;
	/* A VLAN item means a tag, even without a TCI mask. */
	if (!lv->svlan)
		DV_SET(c, sect, VSTEER_PRM_L24_CVLAN_TAG, 1, 1);
	tm = rte_be_to_cpu_16(mask->hdr.vlan_tci);
	tv = rte_be_to_cpu_16(spec->hdr.vlan_tci);
	DV_SET(c, sect, VSTEER_PRM_L24_FIRST_PRIO, tm >> 13, tv >> 13);
	DV_SET(c, sect, VSTEER_PRM_L24_FIRST_CFI, tm >> 12, tv >> 12);
	DV_SET(c, sect, VSTEER_PRM_L24_FIRST_VID, tm, tv);
	tm = rte_be_to_cpu_16(mask->hdr.eth_proto);
	tv = rte_be_to_cpu_16(spec->hdr.eth_proto) & tm;
	if (tm == 0xffff &&
	    (tv == DV_ETHER_TYPE_VLAN || tv == DV_ETHER_TYPE_QINQ)) {
		ret = dv_named_check(c, VSTEER_ROW_VLAN_SECOND_TAG,
				     RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item);
		if (ret < 0)
			return ret;
		if (mask->has_more_vlan && !spec->has_more_vlan)
			return dv_error(
				c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"VLAN: has_more_vlan 0 contradicts inner_type 0x%04x",
				tv);
		if (tv == DV_ETHER_TYPE_VLAN)
			dv_second_tag(c, 1, 1, 0, 0);
		else
			dv_second_tag(c, 0, 0, 1, 1);
		return 0;
	}
	if (tm) {
		if (mask->has_more_vlan && spec->has_more_vlan)
			return dv_error(
				c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"VLAN: has_more_vlan 1 contradicts inner_type 0x%04x (mask 0x%04x)",
				tv, tm);
		/* The type right after this tag: so no second tag. */
		DV_SET(c, sect, VSTEER_PRM_L24_ETHERTYPE, tm, tv);
		dv_second_tag(c, 1, 0, 1, 0);
		lv->l2_type_m = tm;
		lv->l2_type_v = tv;
		return 0;
	}
	if (mask->has_more_vlan) {
		if (spec->has_more_vlan)
			dv_second_tag(c, 1, 1, 0, 0);
		else
			dv_second_tag(c, 1, 0, 1, 0);
	}
	return 0;
}

/* --- IPv4 / IPv6 --- */

static int
dv_l3_common(struct dv_ctx *c, const struct rte_flow_item *item,
	     const char *name, uint16_t ether_type, uint8_t version,
	     uint32_t layer)
{
	struct dv_level *lv = dv_level(c);
	uint32_t sect = dv_sect(c);

	if (dv_has(c, DV_L3 | DV_L4))
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"%s: multiple L3 layers not supported", name);
	if ((lv->l2_type_v ^ ether_type) & lv->l2_type_m)
		return dv_error(
			c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
			"%s: cannot follow an L2 layer whose ether type is 0x%04x",
			name, lv->l2_type_v);
	c->m->layers |= dv_lbit(c, layer);
	lv->fam = version;
	/* ip_version says it all; the ethertype would be redundant. */
	DV_SET(c, sect, VSTEER_PRM_L24_IP_VERSION, 0xf, version);
	DV_SET(c, sect, VSTEER_PRM_L24_ETHERTYPE, 0, 0);
	return 0;
}

static void
dv_set_tos(struct dv_ctx *c, uint8_t m, uint8_t v)
{
	uint32_t sect = dv_sect(c);

	if (m >> 2)
		DV_SET(c, sect, VSTEER_PRM_L24_IP_DSCP, m >> 2, v >> 2);
	if (m & 3)
		DV_SET(c, sect, VSTEER_PRM_L24_IP_ECN, m, v);
}

static int
dv_set_proto(struct dv_ctx *c, const struct rte_flow_item *item,
	     const char *subject, uint8_t m, uint8_t v)
{
	struct dv_level *lv = dv_level(c);

	if (m == 0)
		return 0;
	/* As mlx5's validator: the protocol is matched whole. */
	if (m != 0xff)
		return vsteer_flow_limit(c->plan, c->error,
					 RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
					 subject, "match a partial mask 0x%02x",
					 m);
	DV_SET(c, dv_sect(c), VSTEER_PRM_L24_IP_PROTOCOL, m, v);
	lv->proto_m = m;
	lv->proto_v = v;
	return 0;
}

/* fragment_offset: the PRM's frag bit, "is a fragment". */
static int
dv_ipv4_frag(struct dv_ctx *c, const struct rte_flow_item *item,
	     const struct vsteer_item_vals *v)
{
	uint16_t fm = rte_be_to_cpu_16(v->mask.ipv4.hdr.fragment_offset);
	uint16_t fv = rte_be_to_cpu_16(v->val.ipv4.hdr.fragment_offset);
	uint16_t fl = rte_be_to_cpu_16(v->last.ipv4.hdr.fragment_offset);
	const char *subject = "IPv4 item: fragment_offset";

	fm &= DV_IPV4_FRAG_MASK; /* the other bits have their own row */
	if (fm == 0)
		return 0;
	if (fm != DV_IPV4_FRAG_MASK)
		return vsteer_flow_limit(
			c->plan, c->error, RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
			subject,
			"match mask 0x%04x (only 0x3fff: fragment or not)", fm);
	if (fl != 0) {
		if (fv == 1 && fl == DV_IPV4_FRAG_MASK) {
			DV_SET(c, dv_sect(c), VSTEER_PRM_L24_FRAG, 1, 1);
			return 0;
		}
		return vsteer_flow_limit(
			c->plan, c->error, RTE_FLOW_ERROR_TYPE_ITEM_LAST, item,
			subject,
			"match the range 0x%04x to 0x%04x (only 1 to 0x3fff: any fragment)",
			fv, fl);
	}
	if (fv == 0) {
		DV_SET(c, dv_sect(c), VSTEER_PRM_L24_FRAG, 1, 0);
		return 0;
	}
	return vsteer_flow_limit(
		c->plan, c->error, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item, subject,
		"match the value 0x%04x (only 0, not a fragment, or the range 1 to 0x3fff)",
		fv);
}

static int
dv_ipv4(struct dv_ctx *c, const struct rte_flow_item *item,
	const struct vsteer_item_vals *v)
{
	const struct rte_flow_item_ipv4 *spec = &v->val.ipv4,
					*mask = &v->mask.ipv4;
	uint32_t sect;
	int ret;

	ret = dv_l3_common(c, item, "IPV4", DV_ETHER_TYPE_IPV4, 4,
			   VSTEER_DV_L_OUTER_IPV4);
	if (ret)
		return ret;
	sect = dv_sect(c);
	if ((spec->hdr.version_ihl ^ 0x40) & mask->hdr.version_ihl & 0xf0)
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"IPV4: version in version_ihl is not 4");
	ret = dv_mcast_check(c, VSTEER_ROW_IPV4_MCAST,
			     (rte_be_to_cpu_32(spec->hdr.dst_addr) &
			      0xf0000000) == 0xe0000000 &&
				     (rte_be_to_cpu_32(mask->hdr.dst_addr) &
				      0xf0000000) == 0xe0000000,
			     item, "IPv4 item: dst_addr");
	if (ret < 0)
		return ret;
	if (mask->hdr.version_ihl & 0x0f)
		DV_SET(c, sect, VSTEER_PRM_L24_IPV4_IHL,
		       mask->hdr.version_ihl & 0x0f,
		       spec->hdr.version_ihl & 0x0f);
	dv_set_bytes(c, sect + VSTEER_PRM_L24_SRC_IPV4_OFF, &mask->hdr.src_addr,
		     &spec->hdr.src_addr, 4);
	dv_set_bytes(c, sect + VSTEER_PRM_L24_DST_IPV4_OFF, &mask->hdr.dst_addr,
		     &spec->hdr.dst_addr, 4);
	dv_set_tos(c, mask->hdr.type_of_service, spec->hdr.type_of_service);
	if (mask->hdr.time_to_live)
		DV_SET(c, sect, VSTEER_PRM_L24_TTL_HOPLIMIT,
		       mask->hdr.time_to_live, spec->hdr.time_to_live);
	ret = dv_set_proto(c, item, "IPv4 item: next_proto_id",
			   mask->hdr.next_proto_id, spec->hdr.next_proto_id);
	if (ret)
		return ret;
	return dv_ipv4_frag(c, item, v);
}

static bool
dv_ipv6_ext_hdr(uint8_t proto)
{
	switch (proto) {
	case 0:	 /* hop-by-hop */
	case 43: /* routing */
	case 44: /* fragment */
	case 50: /* ESP */
	case 51: /* AH */
	case 60: /* destination options */
		return true;
	default:
		return false;
	}
}

static int
dv_ipv6(struct dv_ctx *c, const struct rte_flow_item *item,
	const struct vsteer_item_vals *v)
{
	const struct rte_flow_item_ipv6 *spec = &v->val.ipv6,
					*mask = &v->mask.ipv6;
	uint32_t sect, vm, vv, fl_off;
	int ret;

	ret = dv_l3_common(c, item, "IPV6", DV_ETHER_TYPE_IPV6, 6,
			   VSTEER_DV_L_OUTER_IPV6);
	if (ret)
		return ret;
	sect = dv_sect(c);
	vm = rte_be_to_cpu_32(mask->hdr.vtc_flow);
	vv = rte_be_to_cpu_32(spec->hdr.vtc_flow);
	if (((vv >> 28) ^ 6) & (vm >> 28))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"IPV6: version in vtc_flow is not 6");
	/* As mlx5's validator: the next header names the upper layer. */
	if (mask->hdr.proto == 0xff && dv_ipv6_ext_hdr(spec->hdr.proto))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"IPV6: proto %u is an extension header",
				spec->hdr.proto);
	dv_set_bytes(c, sect + VSTEER_PRM_L24_SRC_IP_OFF, mask->hdr.src_addr,
		     spec->hdr.src_addr, 16);
	dv_set_bytes(c, sect + VSTEER_PRM_L24_DST_IP_OFF, mask->hdr.dst_addr,
		     spec->hdr.dst_addr, 16);
	dv_set_tos(c, (vm >> 20) & 0xff, (vv >> 20) & 0xff);
	fl_off = dv_inner(c) ? VSTEER_PRM_MISC_INNER_IPV6_FLOW_LABEL_OFF :
			       VSTEER_PRM_MISC_OUTER_IPV6_FLOW_LABEL_OFF;
	if (vm & 0xfffff)
		dv_set(c, VSTEER_PRM_MISC + fl_off,
		       VSTEER_PRM_MISC_OUTER_IPV6_FLOW_LABEL_LEN, vm, vv);
	if (mask->hdr.hop_limits)
		DV_SET(c, sect, VSTEER_PRM_L24_TTL_HOPLIMIT,
		       mask->hdr.hop_limits, spec->hdr.hop_limits);
	if (mask->has_frag_ext)
		DV_SET(c, sect, VSTEER_PRM_L24_FRAG, 1, spec->has_frag_ext);
	return dv_set_proto(c, item, "IPv6 item: proto", mask->hdr.proto,
			    spec->hdr.proto);
}

/* --- TCP / UDP / ESP --- */

static int
dv_l4_common(struct dv_ctx *c, const struct rte_flow_item *item,
	     const char *name, uint8_t proto, uint32_t layer)
{
	struct dv_level *lv = dv_level(c);

	if (!dv_has(c, DV_L3))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"%s: L3 is mandatory to filter on L4", name);
	if (dv_has(c, DV_L4))
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"%s: multiple L4 layers not supported", name);
	if (lv->proto_m && lv->proto_v != proto)
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"%s: L3 next protocol %u does not carry %s (%u)",
				name, lv->proto_v, name, proto);
	c->m->layers |= dv_lbit(c, layer);
	DV_SET(c, dv_sect(c), VSTEER_PRM_L24_IP_PROTOCOL, 0xff, proto);
	lv->proto_m = 0xff;
	lv->proto_v = proto;
	lv->l4p = proto;
	return 0;
}

static int
dv_tcp(struct dv_ctx *c, const struct rte_flow_item *item,
       const struct vsteer_item_vals *v)
{
	const struct rte_flow_item_tcp *spec = &v->val.tcp,
				       *mask = &v->mask.tcp;
	uint32_t sect;
	int ret;

	ret = dv_l4_common(c, item, "TCP", IPPROTO_TCP, VSTEER_DV_L_OUTER_TCP);
	if (ret)
		return ret;
	sect = dv_sect(c);
	DV_SET(c, sect, VSTEER_PRM_L24_TCP_SPORT,
	       rte_be_to_cpu_16(mask->hdr.src_port),
	       rte_be_to_cpu_16(spec->hdr.src_port));
	DV_SET(c, sect, VSTEER_PRM_L24_TCP_DPORT,
	       rte_be_to_cpu_16(mask->hdr.dst_port),
	       rte_be_to_cpu_16(spec->hdr.dst_port));
	/* tcp_flags: NS (the low bit of data_off) is bit 8. */
	DV_SET(c, sect, VSTEER_PRM_L24_TCP_FLAGS,
	       (uint32_t)(mask->hdr.data_off & 1) << 8 | mask->hdr.tcp_flags,
	       (uint32_t)(spec->hdr.data_off & 1) << 8 | spec->hdr.tcp_flags);
	return 0;
}

static int
dv_udp(struct dv_ctx *c, const struct rte_flow_item *item,
       const struct vsteer_item_vals *v)
{
	const struct rte_flow_item_udp *spec = &v->val.udp,
				       *mask = &v->mask.udp;
	uint32_t sect;
	int ret;

	ret = dv_l4_common(c, item, "UDP", IPPROTO_UDP, VSTEER_DV_L_OUTER_UDP);
	if (ret)
		return ret;
	sect = dv_sect(c);
	DV_SET(c, sect, VSTEER_PRM_L24_UDP_SPORT,
	       rte_be_to_cpu_16(mask->hdr.src_port),
	       rte_be_to_cpu_16(spec->hdr.src_port));
	DV_SET(c, sect, VSTEER_PRM_L24_UDP_DPORT,
	       rte_be_to_cpu_16(mask->hdr.dst_port),
	       rte_be_to_cpu_16(spec->hdr.dst_port));
	return 0;
}

/* ESP: ip_protocol 50 and, outer only, misc.outer_esp_spi (the mlx5
 * kernel's verbs ESP wrote the same field, fs.c parse_flow_attr()). */
static int
dv_esp(struct dv_ctx *c, const struct rte_flow_item *item,
       const struct vsteer_item_vals *v)
{
	int ret;

	ret = dv_l4_common(c, item, "ESP", IPPROTO_ESP, VSTEER_DV_L_OUTER_ESP);
	if (ret)
		return ret;
	if (v->mask.esp.hdr.spi)
		DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_OUTER_ESP_SPI,
		       rte_be_to_cpu_32(v->mask.esp.hdr.spi),
		       rte_be_to_cpu_32(v->val.esp.hdr.spi));
	return 0;
}

/* --- tunnels --- */

static int
dv_tunnel_common(struct dv_ctx *c, const struct rte_flow_item *item,
		 const char *name)
{
	if (c->m->layers & VSTEER_DV_L_TUNNEL)
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"%s: multiple tunnel layers not supported",
				name);
	return 0;
}

/* Pin the outer UDP destination port to the tunnel's, unless the
 * application chose one. */
static void
dv_default_udp_dport(struct dv_ctx *c, uint16_t port)
{
	if (!DV_MASK(c, VSTEER_PRM_OUTER, VSTEER_PRM_L24_UDP_DPORT))
		DV_SET(c, VSTEER_PRM_OUTER, VSTEER_PRM_L24_UDP_DPORT, 0xffff,
		       port);
}

static int
dv_vxlan(struct dv_ctx *c, const struct rte_flow_item *item,
	 const struct vsteer_item_vals *v)
{
	const struct rte_flow_item_vxlan *spec = &v->val.vxlan,
					 *mask = &v->mask.vxlan;
	uint32_t vm, vv;
	int ret;

	ret = dv_tunnel_common(c, item, "VXLAN");
	if (ret)
		return ret;
	if (!(c->m->layers & VSTEER_DV_L_OUTER_UDP))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"VXLAN: no outer UDP layer found");
	c->m->layers |= VSTEER_DV_L_VXLAN;
	dv_default_udp_dport(c, DV_VXLAN_PORT);
	vm = (uint32_t)mask->vni[0] << 16 | mask->vni[1] << 8 | mask->vni[2];
	vv = (uint32_t)spec->vni[0] << 16 | spec->vni[1] << 8 | spec->vni[2];
	DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_VXLAN_VNI, vm, vv);
	return 0;
}

#define DV_GRE_C 0x8000
#define DV_GRE_K 0x2000
#define DV_GRE_S 0x1000

static int
dv_gre(struct dv_ctx *c, const struct rte_flow_item *item,
       const struct vsteer_item_vals *v)
{
	const struct rte_flow_item_gre *spec = &v->val.gre,
				       *mask = &v->mask.gre;
	struct dv_level *lv = &c->lv[0];
	uint16_t fm, fv;
	int ret;

	ret = dv_tunnel_common(c, item, "GRE");
	if (ret)
		return ret;
	if (!(c->m->layers & DV_L3))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"GRE: L3 layer is missing");
	if (c->m->layers & DV_L4)
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"GRE: cannot follow an L4 layer");
	if (lv->proto_m && lv->proto_v != DV_IPPROTO_GRE)
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"GRE: L3 next protocol %u does not carry GRE (47)",
				lv->proto_v);
	DV_SET(c, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_PROTOCOL, 0xff,
	       DV_IPPROTO_GRE);
	lv->proto_m = 0xff;
	lv->proto_v = DV_IPPROTO_GRE;
	c->m->layers |= VSTEER_DV_L_GRE;
	fm = rte_be_to_cpu_16(mask->c_rsvd0_ver);
	fv = rte_be_to_cpu_16(spec->c_rsvd0_ver);
	if (fm & DV_GRE_C)
		DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_C_PRESENT, 1,
		       !!(fv & DV_GRE_C));
	if (fm & DV_GRE_K)
		DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_K_PRESENT, 1,
		       !!(fv & DV_GRE_K));
	if (fm & DV_GRE_S)
		DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_S_PRESENT, 1,
		       !!(fv & DV_GRE_S));
	DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_PROTOCOL,
	       rte_be_to_cpu_16(mask->protocol),
	       rte_be_to_cpu_16(spec->protocol));
	return 0;
}

static int
dv_gre_key(struct dv_ctx *c, const struct rte_flow_item *item,
	   const struct vsteer_item_vals *v)
{
	if (!(c->m->layers & VSTEER_DV_L_GRE))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"GRE_KEY: no preceding GRE item");
	if (DV_MASK(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_K_PRESENT) &&
	    !DV_VALUE(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_K_PRESENT))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"GRE_KEY: the GRE item requires the K bit clear");
	c->m->layers |= VSTEER_DV_L_GRE_KEY;
	/* A key implies the K bit (rte_flow.h: matched as 1). */
	DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_K_PRESENT, 1, 1);
	DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_KEY,
	       rte_be_to_cpu_32(v->mask.gre_key),
	       rte_be_to_cpu_32(v->val.gre_key));
	return 0;
}

/* NVGRE: GRE with the K bit and protocol 0x6558, the key from the virtual
 * subnet id (high 24 bits) and the flow id. */
static int
dv_nvgre(struct dv_ctx *c, const struct rte_flow_item *item,
	 const struct vsteer_item_vals *v)
{
	const struct rte_flow_item_nvgre *spec = &v->val.nvgre,
					 *mask = &v->mask.nvgre;
	struct vsteer_item_vals g;
	int ret;

	/* The GRE item's own checks and match, protocol Ethernet. */
	memset(&g, 0, sizeof(g));
	g.val.gre.protocol = RTE_BE16(DV_ETHER_TYPE_TEB);
	g.mask.gre.protocol = RTE_BE16(0xffff);
	ret = dv_gre(c, item, &g);
	if (ret < 0)
		return ret;
	c->m->layers |= VSTEER_DV_L_NVGRE;
	DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_K_PRESENT, 1, 1);
	DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_KEY,
	       (uint32_t)mask->tni[0] << 24 | mask->tni[1] << 16 |
		       mask->tni[2] << 8 | mask->flow_id,
	       (uint32_t)spec->tni[0] << 24 | spec->tni[1] << 16 |
		       spec->tni[2] << 8 | spec->flow_id);
	return 0;
}

static int
dv_mpls(struct dv_ctx *c, const struct rte_flow_item *item,
	const struct vsteer_item_vals *v)
{
	uint32_t off;

	if (c->m->layers & (VSTEER_DV_L_VXLAN | VSTEER_DV_L_MPLS))
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"MPLS: multiple tunnel layers not supported");
	if (c->m->layers & VSTEER_DV_L_GRE) {
		off = VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_GRE_OFF;
		if (!DV_MASK(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_PROTOCOL))
			DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_PROTOCOL,
			       0xffff, DV_ETHER_TYPE_MPLS);
	} else if (c->m->layers & VSTEER_DV_L_OUTER_UDP) {
		off = VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_UDP_OFF;
		dv_default_udp_dport(c, DV_MPLS_UDP_PORT);
	} else {
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"MPLS: must follow UDP or GRE");
	}
	c->m->layers |= VSTEER_DV_L_MPLS;
	/* The PRM entry is laid out as the label stack entry on the wire. */
	dv_set_bytes(c, VSTEER_PRM_MISC2 + off, &v->mask.mpls, &v->val.mpls, 4);
	return 0;
}

/* Adding an item is a row in vsteer_flow_engines.c and a handler here. */
static dv_item_fn *const dv_item_fns[VSTEER_ITEM_N] = {
	[VSTEER_ITEM_ETH] = dv_eth,	    [VSTEER_ITEM_VLAN] = dv_vlan,
	[VSTEER_ITEM_IPV4] = dv_ipv4,	    [VSTEER_ITEM_IPV6] = dv_ipv6,
	[VSTEER_ITEM_TCP] = dv_tcp,	    [VSTEER_ITEM_UDP] = dv_udp,
	[VSTEER_ITEM_VXLAN] = dv_vxlan,	    [VSTEER_ITEM_GRE] = dv_gre,
	[VSTEER_ITEM_GRE_KEY] = dv_gre_key, [VSTEER_ITEM_MPLS] = dv_mpls,
	[VSTEER_ITEM_ESP] = dv_esp,	    [VSTEER_ITEM_NVGRE] = dv_nvgre,
};

/* GRE without a protocol: take it from the inner layer, as mlx5 does. */
static void
dv_gre_protocol_from_inner(struct dv_ctx *c)
{
	uint32_t l = c->m->layers;
	uint16_t proto = 0;

	if (!(l & VSTEER_DV_L_GRE) || (l & VSTEER_DV_L_MPLS) ||
	    DV_MASK(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_PROTOCOL))
		return;
	if (l & (VSTEER_DV_L_INNER_L2 | VSTEER_DV_L_INNER_VLAN))
		proto = DV_ETHER_TYPE_TEB;
	else if (l & VSTEER_DV_L_INNER_IPV4)
		proto = DV_ETHER_TYPE_IPV4;
	else if (l & VSTEER_DV_L_INNER_IPV6)
		proto = DV_ETHER_TYPE_IPV6;
	if (proto)
		DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_PROTOCOL, 0xffff,
		       proto);
}

static int
dv_walk_items(struct dv_ctx *c, const struct rte_flow_item pattern[])
{
	const enum rte_flow_item_type *next = vsteer_flow_item_roots;
	const char *prev = NULL;
	const struct rte_flow_item *item;
	struct vsteer_item_vals vals;
	int ret;

	for (item = pattern; item->type != RTE_FLOW_ITEM_TYPE_END; item++) {
		const struct vsteer_flow_item_desc *d;

		if (item->type == RTE_FLOW_ITEM_TYPE_VOID)
			continue;
		d = vsteer_flow_item_desc(item->type);
		if (d == NULL)
			return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM,
					item, "item type %d (%s) not supported",
					(int)item->type,
					vsteer_flow_item_type_name(item->type));
		if (!vsteer_flow_item_may_follow(next, item->type))
			return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
					item, "%s item cannot follow %s%s",
					d->name,
					prev != NULL ? prev :
						       "start of pattern",
					prev != NULL ? " item" : "");
		if (d->id == VSTEER_ITEM_ESP) {
			ret = dv_named_check(c, VSTEER_ROW_ESP_HEADER,
					     RTE_FLOW_ERROR_TYPE_ITEM, item);
			if (ret < 0)
				return ret;
		}
		ret = vsteer_flow_item_device_check(c->xctx, d, item, c->error);
		if (ret < 0)
			return ret;
		ret = vsteer_flow_item_check(c->xctx, d, item, dv_inner(c),
					     &vals, c->plan, c->error);
		if (ret == 0)
			ret = dv_item_fns[d->id](c, item, &vals);
		if (ret < 0)
			return ret;
		next = d->next;
		prev = d->name;
	}
	dv_gre_protocol_from_inner(c);
	return 0;
}

void
vsteer_flow_dv_finish(struct vsteer_dv_match *m)
{
	size_t i;

	/* Values never carry bits outside the mask (mlx5 core rejects). */
	for (i = 0; i < RTE_DIM(m->value.buf); i++)
		m->value.buf[i] &= m->mask.buf[i];
	m->criteria =
		vsteer_prm_criteria(m->mask.buf, VSTEER_PRM_MATCH_PARAM_BYTES);
	m->mask.size = vsteer_prm_match_size(m->criteria);
	m->value.size = m->mask.size;
}

/* What the packet actions need of the pattern (vsteer_flow_edit.c). */
static void
dv_pattern_facts(struct dv_ctx *c, struct vsteer_flow_pat *pat)
{
	uint32_t l = c->m->layers;
	unsigned int i;

	for (i = 0; i < 2; i++) {
		pat->fam[i] = c->lv[i].fam;
		pat->l4p[i] = c->lv[i].l4p;
	}
	pat->eth[0] = (l & VSTEER_DV_L_OUTER_L2) != 0;
	pat->eth[1] = (l & VSTEER_DV_L_INNER_L2) != 0;
	pat->tunnel = VSTEER_ITEM_N;
	if (l & VSTEER_DV_L_VXLAN)
		pat->tunnel = VSTEER_ITEM_VXLAN;
	else if (l & VSTEER_DV_L_MPLS)
		pat->tunnel = VSTEER_ITEM_MPLS;
	else if (l & VSTEER_DV_L_NVGRE)
		pat->tunnel = VSTEER_ITEM_NVGRE;
	else if (l & VSTEER_DV_L_GRE)
		pat->tunnel = VSTEER_ITEM_GRE;
	pat->vxlan_port = DV_MASK(c, VSTEER_PRM_OUTER,
				  VSTEER_PRM_L24_UDP_DPORT) == 0xffff &&
			  DV_VALUE(c, VSTEER_PRM_OUTER,
				   VSTEER_PRM_L24_UDP_DPORT) == DV_VXLAN_PORT;
	pat->l2_tunnel =
		(l & VSTEER_DV_L_VXLAN) ||
		((l & VSTEER_DV_L_GRE) && !(l & VSTEER_DV_L_MPLS) &&
		 DV_MASK(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_PROTOCOL) ==
			 0xffff &&
		 DV_VALUE(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_PROTOCOL) ==
			 DV_ETHER_TYPE_TEB);
}

static void
dv_stack(const struct dv_level *lv, struct vsteer_flow_stack *s)
{
	memset(s, 0, sizeof(*s));
	s->fam = lv->fam;
	s->l4p = lv->l4p;
	s->l4 = lv->l4p != 0;
	s->type_m = lv->l2_type_m;
	s->type_v = lv->l2_type_v;
	s->proto_m = lv->proto_m;
	s->proto_v = lv->proto_v;
}

int
vsteer_flow_dv_translate(const struct vsteer_xlate_ctx *ctx,
			 const struct rte_flow_attr *attr,
			 const struct rte_flow_item pattern[],
			 const struct rte_flow_action actions[],
			 struct vsteer_flow_plan *plan,
			 struct vsteer_dv_match *base,
			 struct rte_flow_error *error)
{
	struct dv_ctx c;
	struct vsteer_flow_stack stacks[2];
	bool tunnel, inner;
	int ret;

	if (ctx == NULL || plan == NULL || base == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				       "no translation context or plan");
	vsteer_flow_plan_init(plan, ctx, DV_ENG);
	memset(base, 0, sizeof(*base));
	memset(&c, 0, sizeof(c));
	c.xctx = ctx;
	c.plan = plan;
	c.m = base;
	c.mk = (uint8_t *)base->mask.buf;
	c.vl = (uint8_t *)base->value.buf;
	c.error = error;
	ret = vsteer_flow_attr(ctx, attr, plan, error);
	if (ret == 0 && pattern == NULL)
		ret = vsteer_flow_err(error, EINVAL,
				      RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL,
				      "no pattern");
	if (ret == 0)
		ret = dv_walk_items(&c, pattern);
	if (ret == 0) {
		dv_pattern_facts(&c, &plan->pat);
		ret = vsteer_flow_actions(ctx, actions, plan, error);
	}
	tunnel = dv_inner(&c);
	if (ret == 0 && plan->fate == VSTEER_FATE_RSS && plan->rss_level >= 2 &&
	    !tunnel)
		ret = vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
			plan->rss_act,
			"RSS action: level %u (inner) needs a tunnel item in the pattern",
			plan->rss_level);
	/* After a decap the hashed headers are the former inner ones, now
	 * outer: level 0 or 1 says it. */
	if (ret == 0 && plan->fate == VSTEER_FATE_RSS && plan->rss_level >= 2 &&
	    plan->decap)
		ret = vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
			plan->rss_act,
			"RSS action: level %u with a decap: the frame is hashed decapsulated, its former inner headers are outer (level 0 or 1)",
			plan->rss_level);
	if (ret < 0) {
		plan->n_rules = 0;
		return ret;
	}
	vsteer_flow_dv_finish(base);
	plan->tunnel = tunnel;
	inner = plan->fate == VSTEER_FATE_RSS &&
		(plan->rss_level >= 2 || plan->decap);
	dv_stack(&c.lv[0], &stacks[0]);
	dv_stack(&c.lv[1], &stacks[1]);
	plan->n_rules = vsteer_flow_variants(plan, &stacks[inner],
					     inner == tunnel, tunnel,
					     plan->var);
	return 0;
}

void
vsteer_flow_dv_rule_match(const struct vsteer_dv_match *base,
			  const struct vsteer_flow_plan *plan, unsigned int i,
			  struct vsteer_dv_match *out)
{
	const struct vsteer_flow_variant *v = &plan->var[i];
	bool inner = plan->fate == VSTEER_FATE_RSS &&
		     (plan->rss_level >= 2 || plan->decap);
	uint32_t sect = inner ? VSTEER_PRM_INNER : VSTEER_PRM_OUTER;
	struct dv_ctx c = {
		.m = out,
		.mk = (uint8_t *)out->mask.buf,
		.vl = (uint8_t *)out->value.buf,
	};

	*out = *base;
	if (!v->add_l3 && !v->add_l4)
		return;
	if (v->add_l3) {
		DV_SET(&c, sect, VSTEER_PRM_L24_IP_VERSION, 0xf, v->fam);
		/* An added inner L3 fixes an unmasked GRE protocol too. */
		if (inner && (base->layers & VSTEER_DV_L_GRE) &&
		    !(base->layers & VSTEER_DV_L_MPLS) &&
		    !DV_MASK(&c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_PROTOCOL))
			DV_SET(&c, VSTEER_PRM_MISC,
			       VSTEER_PRM_MISC_GRE_PROTOCOL, 0xffff,
			       v->fam == 4 ? DV_ETHER_TYPE_IPV4 :
					     DV_ETHER_TYPE_IPV6);
	}
	if (v->add_l4)
		DV_SET(&c, sect, VSTEER_PRM_L24_IP_PROTOCOL, 0xff, v->l4p);
	vsteer_flow_dv_finish(out);
}

/* --- matcher cache key --- */

uint32_t
vsteer_flow_dv_matcher_hash(const struct vsteer_dv_match *m, uint16_t priority)
{
	return rte_jhash(m->mask.buf, m->mask.size,
			 (uint32_t)m->criteria << 16 | priority);
}

bool
vsteer_flow_dv_matcher_equal(const struct vsteer_dv_match *a, uint16_t prio_a,
			     const struct vsteer_dv_match *b, uint16_t prio_b)
{
	return prio_a == prio_b && a->criteria == b->criteria &&
	       a->mask.size == b->mask.size &&
	       memcmp(a->mask.buf, b->mask.buf, a->mask.size) == 0;
}

/* --- dump --- */

struct dv_dump_field {
	const char *name;
	uint16_t off; /* in the section */
	uint16_t len; /* bits; > 32: byte string */
};

static const struct dv_dump_field dv_dump_l24[] = {
	{ "smac", VSTEER_PRM_L24_SMAC_OFF, VSTEER_PRM_L24_SMAC_LEN },
	{ "ethertype", VSTEER_PRM_L24_ETHERTYPE_OFF,
	  VSTEER_PRM_L24_ETHERTYPE_LEN },
	{ "dmac", VSTEER_PRM_L24_DMAC_OFF, VSTEER_PRM_L24_DMAC_LEN },
	{ "first_prio", VSTEER_PRM_L24_FIRST_PRIO_OFF,
	  VSTEER_PRM_L24_FIRST_PRIO_LEN },
	{ "first_cfi", VSTEER_PRM_L24_FIRST_CFI_OFF,
	  VSTEER_PRM_L24_FIRST_CFI_LEN },
	{ "first_vid", VSTEER_PRM_L24_FIRST_VID_OFF,
	  VSTEER_PRM_L24_FIRST_VID_LEN },
	{ "ip_protocol", VSTEER_PRM_L24_IP_PROTOCOL_OFF,
	  VSTEER_PRM_L24_IP_PROTOCOL_LEN },
	{ "ip_dscp", VSTEER_PRM_L24_IP_DSCP_OFF, VSTEER_PRM_L24_IP_DSCP_LEN },
	{ "ip_ecn", VSTEER_PRM_L24_IP_ECN_OFF, VSTEER_PRM_L24_IP_ECN_LEN },
	{ "cvlan_tag", VSTEER_PRM_L24_CVLAN_TAG_OFF,
	  VSTEER_PRM_L24_CVLAN_TAG_LEN },
	{ "svlan_tag", VSTEER_PRM_L24_SVLAN_TAG_OFF,
	  VSTEER_PRM_L24_SVLAN_TAG_LEN },
	{ "frag", VSTEER_PRM_L24_FRAG_OFF, VSTEER_PRM_L24_FRAG_LEN },
	{ "ip_version", VSTEER_PRM_L24_IP_VERSION_OFF,
	  VSTEER_PRM_L24_IP_VERSION_LEN },
	{ "tcp_flags", VSTEER_PRM_L24_TCP_FLAGS_OFF,
	  VSTEER_PRM_L24_TCP_FLAGS_LEN },
	{ "tcp_sport", VSTEER_PRM_L24_TCP_SPORT_OFF,
	  VSTEER_PRM_L24_TCP_SPORT_LEN },
	{ "tcp_dport", VSTEER_PRM_L24_TCP_DPORT_OFF,
	  VSTEER_PRM_L24_TCP_DPORT_LEN },
	{ "ipv4_ihl", VSTEER_PRM_L24_IPV4_IHL_OFF,
	  VSTEER_PRM_L24_IPV4_IHL_LEN },
	{ "ttl_hoplimit", VSTEER_PRM_L24_TTL_HOPLIMIT_OFF,
	  VSTEER_PRM_L24_TTL_HOPLIMIT_LEN },
	{ "udp_sport", VSTEER_PRM_L24_UDP_SPORT_OFF,
	  VSTEER_PRM_L24_UDP_SPORT_LEN },
	{ "udp_dport", VSTEER_PRM_L24_UDP_DPORT_OFF,
	  VSTEER_PRM_L24_UDP_DPORT_LEN },
	{ "src_ip", VSTEER_PRM_L24_SRC_IP_OFF, VSTEER_PRM_L24_SRC_IP_LEN },
	{ "dst_ip", VSTEER_PRM_L24_DST_IP_OFF, VSTEER_PRM_L24_DST_IP_LEN },
	{ NULL, 0, 0 },
};

static const struct dv_dump_field dv_dump_misc[] = {
	{ "gre_c_present", VSTEER_PRM_MISC_GRE_C_PRESENT_OFF,
	  VSTEER_PRM_MISC_GRE_C_PRESENT_LEN },
	{ "gre_k_present", VSTEER_PRM_MISC_GRE_K_PRESENT_OFF,
	  VSTEER_PRM_MISC_GRE_K_PRESENT_LEN },
	{ "gre_s_present", VSTEER_PRM_MISC_GRE_S_PRESENT_OFF,
	  VSTEER_PRM_MISC_GRE_S_PRESENT_LEN },
	{ "source_vhca_port", VSTEER_PRM_MISC_SOURCE_VHCA_PORT_OFF,
	  VSTEER_PRM_MISC_SOURCE_VHCA_PORT_LEN },
	{ "source_sqn", VSTEER_PRM_MISC_SOURCE_SQN_OFF,
	  VSTEER_PRM_MISC_SOURCE_SQN_LEN },
	{ "source_port", VSTEER_PRM_MISC_SOURCE_PORT_OFF,
	  VSTEER_PRM_MISC_SOURCE_PORT_LEN },
	{ "outer_second_vid", VSTEER_PRM_MISC_OUTER_SECOND_VID_OFF,
	  VSTEER_PRM_MISC_OUTER_SECOND_VID_LEN },
	{ "inner_second_vid", VSTEER_PRM_MISC_INNER_SECOND_VID_OFF,
	  VSTEER_PRM_MISC_INNER_SECOND_VID_LEN },
	{ "outer_second_cvlan_tag", VSTEER_PRM_MISC_OUTER_SECOND_CVLAN_TAG_OFF,
	  VSTEER_PRM_MISC_OUTER_SECOND_CVLAN_TAG_LEN },
	{ "inner_second_cvlan_tag", VSTEER_PRM_MISC_INNER_SECOND_CVLAN_TAG_OFF,
	  VSTEER_PRM_MISC_INNER_SECOND_CVLAN_TAG_LEN },
	{ "outer_second_svlan_tag", VSTEER_PRM_MISC_OUTER_SECOND_SVLAN_TAG_OFF,
	  VSTEER_PRM_MISC_OUTER_SECOND_SVLAN_TAG_LEN },
	{ "inner_second_svlan_tag", VSTEER_PRM_MISC_INNER_SECOND_SVLAN_TAG_OFF,
	  VSTEER_PRM_MISC_INNER_SECOND_SVLAN_TAG_LEN },
	{ "gre_protocol", VSTEER_PRM_MISC_GRE_PROTOCOL_OFF,
	  VSTEER_PRM_MISC_GRE_PROTOCOL_LEN },
	{ "gre_key", VSTEER_PRM_MISC_GRE_KEY_OFF, VSTEER_PRM_MISC_GRE_KEY_LEN },
	{ "vxlan_vni", VSTEER_PRM_MISC_VXLAN_VNI_OFF,
	  VSTEER_PRM_MISC_VXLAN_VNI_LEN },
	{ "geneve_vni", VSTEER_PRM_MISC_GENEVE_VNI_OFF,
	  VSTEER_PRM_MISC_GENEVE_VNI_LEN },
	{ "outer_ipv6_flow_label", VSTEER_PRM_MISC_OUTER_IPV6_FLOW_LABEL_OFF,
	  VSTEER_PRM_MISC_OUTER_IPV6_FLOW_LABEL_LEN },
	{ "inner_ipv6_flow_label", VSTEER_PRM_MISC_INNER_IPV6_FLOW_LABEL_OFF,
	  VSTEER_PRM_MISC_INNER_IPV6_FLOW_LABEL_LEN },
	{ "outer_esp_spi", VSTEER_PRM_MISC_OUTER_ESP_SPI_OFF,
	  VSTEER_PRM_MISC_OUTER_ESP_SPI_LEN },
	{ NULL, 0, 0 },
};

static const struct dv_dump_field dv_dump_misc2[] = {
	{ "outer_first_mpls", VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OFF,
	  VSTEER_PRM_MISC2_MPLS_LEN },
	{ "inner_first_mpls", VSTEER_PRM_MISC2_INNER_FIRST_MPLS_OFF,
	  VSTEER_PRM_MISC2_MPLS_LEN },
	{ "outer_first_mpls_over_gre",
	  VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_GRE_OFF,
	  VSTEER_PRM_MISC2_MPLS_LEN },
	{ "outer_first_mpls_over_udp",
	  VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_UDP_OFF,
	  VSTEER_PRM_MISC2_MPLS_LEN },
	{ "metadata_reg_c_0", VSTEER_PRM_MISC2_METADATA_REG_C_0_OFF,
	  VSTEER_PRM_MISC2_METADATA_REG_LEN },
	{ "metadata_reg_a", VSTEER_PRM_MISC2_METADATA_REG_A_OFF,
	  VSTEER_PRM_MISC2_METADATA_REG_LEN },
	{ NULL, 0, 0 },
};

static const struct dv_dump_field dv_dump_misc3[] = {
	{ "outer_vxlan_gpe_vni", VSTEER_PRM_MISC3_OUTER_VXLAN_GPE_VNI_OFF,
	  VSTEER_PRM_MISC3_OUTER_VXLAN_GPE_VNI_LEN },
	{ "icmp_type", VSTEER_PRM_MISC3_ICMP_TYPE_OFF,
	  VSTEER_PRM_MISC3_ICMP_TYPE_LEN },
	{ "icmp_code", VSTEER_PRM_MISC3_ICMP_CODE_OFF,
	  VSTEER_PRM_MISC3_ICMP_CODE_LEN },
	{ NULL, 0, 0 },
};

static const struct {
	const char *name;
	uint32_t base;
	const struct dv_dump_field *fields;
} dv_dump_sects[VSTEER_PRM_NUM_SECTS] = {
	{ "outer", VSTEER_PRM_OUTER, dv_dump_l24 },
	{ "misc", VSTEER_PRM_MISC, dv_dump_misc },
	{ "inner", VSTEER_PRM_INNER, dv_dump_l24 },
	{ "misc2", VSTEER_PRM_MISC2, dv_dump_misc2 },
	{ "misc3", VSTEER_PRM_MISC3, dv_dump_misc3 },
	{ "misc4", VSTEER_PRM_MISC4, NULL },
	{ "misc5", VSTEER_PRM_MISC5, NULL },
};

static void
dv_dump_bytes(FILE *f, const uint8_t *p, unsigned int n, char sep)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		if (i && sep)
			fputc(sep, f);
		fprintf(f, "%02x", p[i]);
	}
}

static bool
dv_field_zero(const uint8_t *mk, uint32_t off, uint32_t len)
{
	if (len <= 32)
		return vsteer_prm_get(mk, off, len) == 0;
	return vsteer_prm_zero(mk, off, len);
}

static void
dv_dump_field(FILE *f, const char *sect, const struct dv_dump_field *d,
	      const uint8_t *mk, const uint8_t *vl, uint32_t off)
{
	char sep = d->len == VSTEER_PRM_L24_DMAC_LEN ? ':' : 0;

	fprintf(f, "  %s.%s", sect, d->name);
	if (d->len <= 32) {
		int w = (d->len + 3) / 4;

		fprintf(f, " mask 0x%0*x value 0x%0*x\n", w,
			vsteer_prm_get(mk, off, d->len), w,
			vsteer_prm_get(vl, off, d->len));
		return;
	}
	/* An IPv4 address sits in the last 32 bits of the IP union. */
	if (d->len == VSTEER_PRM_L24_SRC_IP_LEN &&
	    vsteer_prm_zero(mk, off, VSTEER_PRM_IPV4_IN_LAYOUT_OFF)) {
		off += VSTEER_PRM_IPV4_IN_LAYOUT_OFF;
		fprintf(f, "(ipv4) mask ");
		dv_dump_bytes(f, vsteer_prm_cbytes(mk, off), 4, '.');
		fprintf(f, " value ");
		dv_dump_bytes(f, vsteer_prm_cbytes(vl, off), 4, '.');
		fprintf(f, "\n");
		return;
	}
	fprintf(f, " mask ");
	dv_dump_bytes(f, vsteer_prm_cbytes(mk, off), d->len / 8, sep);
	fprintf(f, " value ");
	dv_dump_bytes(f, vsteer_prm_cbytes(vl, off), d->len / 8, sep);
	fprintf(f, "\n");
}

static void
dv_clear_bits(uint8_t *buf, uint32_t off, uint32_t len)
{
	while (len) {
		uint32_t n = RTE_MIN(len, 32 - (off & 31));

		vsteer_prm_set(buf, off, n, 0);
		off += n;
		len -= n;
	}
}

void
vsteer_flow_dv_dump(FILE *f, const struct vsteer_dv_match *m)
{
	const uint8_t *mk = (const uint8_t *)m->mask.buf;
	const uint8_t *vl = (const uint8_t *)m->value.buf;
	uint8_t rest[VSTEER_PRM_MATCH_PARAM_BYTES];
	unsigned int s, i;

	fprintf(f, "dv match: criteria 0x%02x, match_sz %zu\n", m->criteria,
		m->mask.size);
	/* Whatever no named field covers is printed raw, by 32-bit word. */
	memcpy(rest, mk, sizeof(rest));
	for (s = 0; s < VSTEER_PRM_NUM_SECTS; s++) {
		const struct dv_dump_field *d = dv_dump_sects[s].fields;
		uint32_t base = dv_dump_sects[s].base;

		if ((s + 1) * VSTEER_PRM_SECT_BYTES > m->mask.size ||
		    vsteer_prm_zero(mk, base, VSTEER_PRM_SECT_BITS))
			continue;
		for (; d != NULL && d->name != NULL; d++) {
			if (dv_field_zero(mk, base + d->off, d->len))
				continue;
			dv_dump_field(f, dv_dump_sects[s].name, d, mk, vl,
				      base + d->off);
			dv_clear_bits(rest, base + d->off, d->len);
		}
		for (i = base / 32; i < (base + VSTEER_PRM_SECT_BITS) / 32;
		     i++) {
			uint32_t w = vsteer_prm_rd32(rest, i * 4);

			if (w == 0)
				continue;
			fprintf(f, "  %s+0x%03x mask 0x%08x value 0x%08x\n",
				dv_dump_sects[s].name, i * 32 - base, w,
				vsteer_prm_rd32(vl, i * 4));
		}
	}
}

/* --- DevX flow counters --- */

void
vsteer_dv_cmd_alloc_counter(void *in)
{
	memset(in, 0, VSTEER_PRM_ALLOC_FC_IN_BYTES);
	vsteer_prm_set(in, VSTEER_PRM_IN_OPCODE_OFF, VSTEER_PRM_IN_OPCODE_LEN,
		       VSTEER_PRM_CMD_ALLOC_FLOW_COUNTER);
}

static int
dv_cmd_status(const void *out, size_t outlen, size_t need)
{
	if (out == NULL || outlen < need)
		return -EINVAL;
	if (vsteer_prm_get(out, VSTEER_PRM_OUT_STATUS_OFF,
			   VSTEER_PRM_OUT_STATUS_LEN) != VSTEER_PRM_STATUS_OK)
		return -EIO;
	return 0;
}

int
vsteer_dv_cmd_alloc_counter_parse(const void *out, size_t outlen, uint32_t *id)
{
	int ret = dv_cmd_status(out, outlen, VSTEER_PRM_ALLOC_FC_OUT_BYTES);

	if (ret)
		return ret;
	*id = vsteer_prm_get(out, VSTEER_PRM_ALLOC_FC_OUT_ID_OFF,
			     VSTEER_PRM_ALLOC_FC_OUT_ID_LEN);
	return 0;
}

void
vsteer_dv_cmd_query_counter(void *in, uint32_t id, bool clear)
{
	memset(in, 0, VSTEER_PRM_QUERY_FC_IN_BYTES);
	vsteer_prm_set(in, VSTEER_PRM_IN_OPCODE_OFF, VSTEER_PRM_IN_OPCODE_LEN,
		       VSTEER_PRM_CMD_QUERY_FLOW_COUNTER);
	vsteer_prm_set(in, VSTEER_PRM_QUERY_FC_IN_CLEAR_OFF,
		       VSTEER_PRM_QUERY_FC_IN_CLEAR_LEN, clear);
	vsteer_prm_set(in, VSTEER_PRM_QUERY_FC_IN_ID_OFF,
		       VSTEER_PRM_QUERY_FC_IN_ID_LEN, id);
}

int
vsteer_dv_cmd_query_counter_parse(const void *out, size_t outlen,
				  uint64_t *packets, uint64_t *bytes)
{
	int ret = dv_cmd_status(out, outlen, VSTEER_PRM_QUERY_FC_OUT_BYTES);

	if (ret)
		return ret;
	*packets =
		vsteer_prm_get64(out, VSTEER_PRM_QUERY_FC_OUT_STATS_OFF +
					      VSTEER_PRM_TRAFFIC_PACKETS_OFF);
	*bytes = vsteer_prm_get64(out, VSTEER_PRM_QUERY_FC_OUT_STATS_OFF +
					       VSTEER_PRM_TRAFFIC_OCTETS_OFF);
	return 0;
}

void
vsteer_dv_cmd_dealloc_counter(void *in, uint32_t id)
{
	memset(in, 0, VSTEER_PRM_DEALLOC_FC_IN_BYTES);
	vsteer_prm_set(in, VSTEER_PRM_IN_OPCODE_OFF, VSTEER_PRM_IN_OPCODE_LEN,
		       VSTEER_PRM_CMD_DEALLOC_FLOW_COUNTER);
	vsteer_prm_set(in, VSTEER_PRM_DEALLOC_FC_IN_ID_OFF,
		       VSTEER_PRM_DEALLOC_FC_IN_ID_LEN, id);
}

/* --- flow table capabilities --- */

void
vsteer_dv_cmd_query_ft_caps(void *in)
{
	memset(in, 0, VSTEER_PRM_QUERY_HCA_CAP_IN_BYTES);
	vsteer_prm_set(in, VSTEER_PRM_IN_OPCODE_OFF, VSTEER_PRM_IN_OPCODE_LEN,
		       VSTEER_PRM_CMD_QUERY_HCA_CAP);
	vsteer_prm_set(in, VSTEER_PRM_IN_OP_MOD_OFF, VSTEER_PRM_IN_OP_MOD_LEN,
		       VSTEER_PRM_HCA_CAP_OP_MOD_NIC_FLOW_TABLE |
			       VSTEER_PRM_HCA_CAP_OPMOD_GET_CUR);
}

int
vsteer_dv_cmd_query_ft_caps_parse(const void *out, size_t outlen,
				  struct vsteer_dv_ft_caps *caps)
{
	const uint32_t cap = VSTEER_PRM_QUERY_HCA_CAP_OUT_CAPABILITY_OFF;
	uint32_t f2 = cap + VSTEER_PRM_FT_NIC_FIELD_SUPPORT_2_RX_OFF;
	int ret =
		dv_cmd_status(out, outlen, VSTEER_PRM_QUERY_HCA_CAP_OUT_BYTES);

	if (ret)
		return ret;
	caps->ihl_outer =
		vsteer_prm_get(out,
			       f2 + VSTEER_PRM_FT_FIELDS_2_OUTER_IPV4_IHL_OFF,
			       VSTEER_PRM_FT_FIELDS_2_OUTER_IPV4_IHL_LEN);
	caps->ihl_inner =
		vsteer_prm_get(out,
			       f2 + VSTEER_PRM_FT_FIELDS_2_INNER_IPV4_IHL_OFF,
			       VSTEER_PRM_FT_FIELDS_2_INNER_IPV4_IHL_LEN);
	caps->max_modify_rx = (uint16_t)vsteer_prm_get(
		out,
		cap + VSTEER_PRM_FT_NIC_RX_PROPS_OFF +
			VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_OFF,
		VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_LEN);
	caps->max_modify_tx = (uint16_t)vsteer_prm_get(
		out,
		cap + VSTEER_PRM_FT_NIC_TX_PROPS_OFF +
			VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_OFF,
		VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_LEN);
	caps->max_encap = (uint16_t)
		vsteer_prm_get(out,
			       cap + VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_OFF,
			       VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_LEN);
	return 0;
}
