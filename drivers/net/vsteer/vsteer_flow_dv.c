/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * rte_flow pattern -> PRM fte_match_param, for mlx5dv matchers.
 *
 * Table-driven: each supported item has a descriptor (default mask, the
 * mask the device can take, its fields by name) and a handler. A generic
 * pass checks spec/mask/last against the descriptor, then the handler
 * checks the item's place in the pattern and writes mask and value.
 *
 * Semantics follow the device: a header that is absent reads as zero, so
 * every L3/L4/tunnel item also pins the field that proves the protocol
 * (ip_version, ip_protocol, the UDP port of VXLAN/MPLS, the GRE protocol),
 * as DPDK's mlx5 DV engine does.
 */

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_errno.h>
#include <rte_flow.h>
#include <rte_jhash.h>

#include "vsteer_flow_dv.h"
#include "vsteer_flow_verbs.h"

#define DV_ETHER_TYPE_IPV4 0x0800
#define DV_ETHER_TYPE_IPV6 0x86dd
#define DV_ETHER_TYPE_VLAN 0x8100
#define DV_ETHER_TYPE_QINQ 0x88a8
#define DV_ETHER_TYPE_TEB 0x6558 /* transparent Ethernet bridging */
#define DV_ETHER_TYPE_MPLS 0x8847
#define DV_IPPROTO_TCP 6
#define DV_IPPROTO_UDP 17
#define DV_IPPROTO_GRE 47
#define DV_VXLAN_PORT 4789
#define DV_MPLS_UDP_PORT 6635
#define DV_IPV4_FRAG_MASK 0x3fff /* MF flag + fragment offset */

/* vsteer_dv_params() hands our buffer to rdma-core as its own struct. */
_Static_assert(offsetof(struct vsteer_dv_params, buf) ==
		       offsetof(struct mlx5dv_flow_match_parameters, match_buf),
	       "vsteer_dv_params must match mlx5dv_flow_match_parameters");

/* A named byte range of an item's spec struct. */
struct dv_field {
	const char *name;
	uint16_t off;
	uint16_t len;
	bool range_ok; /* handler validates "last" itself */
};

/* Per header level (0 outer, 1 inner) facts later items check. */
struct dv_level {
	uint16_t l2_type_m; /* ethertype constraint after VLAN, host */
	uint16_t l2_type_v;
	bool l2_tpid;	 /* ETH type was a VLAN TPID */
	uint8_t proto_m; /* L3 next protocol constraint */
	uint8_t proto_v;
};

struct dv_ctx {
	struct vsteer_dv_match *m;
	uint8_t *mk;
	uint8_t *vl;
	struct dv_level lv[2];
	struct rte_flow_error *error;
};

struct dv_item {
	enum rte_flow_item_type type;
	const char *name;
	size_t size;
	const void *default_mask;
	const void *nic_mask;
	const struct dv_field *fields;
	int (*translate)(struct dv_ctx *c, const struct rte_flow_item *item,
			 const void *spec, const void *mask, const void *last);
};

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
	return dv_inner(c) ? outer_bit << 6 : outer_bit;
}

#define DV_L3 (VSTEER_DV_L_OUTER_IPV4 | VSTEER_DV_L_OUTER_IPV6)
#define DV_L4 (VSTEER_DV_L_OUTER_TCP | VSTEER_DV_L_OUTER_UDP)

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

/* --- ETH --- */

static const struct rte_flow_item_eth dv_eth_nic = {
	.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	.hdr.src_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	.hdr.ether_type = RTE_BE16(0xffff),
	.has_vlan = 1,
};

static const struct dv_field dv_eth_fields[] = {
	{ "dst", 0, 6, false },
	{ "src", 6, 6, false },
	{ "type", 12, 2, false },
	{ "has_vlan", sizeof(struct rte_flow_item_eth) - 4, 4, false },
	{ NULL, 0, 0, false },
};

static int
dv_eth(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
       const void *mk, const void *last)
{
	const struct rte_flow_item_eth *spec = s, *mask = mk;
	struct dv_level *lv = dv_level(c);
	uint32_t sect = dv_sect(c);
	uint16_t tm, tv;

	RTE_SET_USED(last);
	if (dv_has(c, VSTEER_DV_L_OUTER_L2))
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"ETH: multiple L2 layers not supported");
	if (dv_has(c, VSTEER_DV_L_OUTER_VLAN | DV_L3 | DV_L4))
		return dv_error(
			c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
			"ETH: L2 layer cannot follow VLAN, L3 or L4 layers");
	c->m->layers |= dv_lbit(c, VSTEER_DV_L_OUTER_L2);
	if (spec == NULL)
		return 0;
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
		DV_SET(c, sect, VSTEER_PRM_L24_CVLAN_TAG, 1, 1);
		lv->l2_tpid = true;
	} else if (tm == 0xffff && tv == DV_ETHER_TYPE_QINQ) {
		DV_SET(c, sect, VSTEER_PRM_L24_SVLAN_TAG, 1, 1);
		lv->l2_tpid = true;
	} else if (tm) {
		DV_SET(c, sect, VSTEER_PRM_L24_ETHERTYPE, tm, tv);
		lv->l2_type_m = tm;
		lv->l2_type_v = tv;
	}
	if (mask->has_vlan) {
		if (lv->l2_tpid && !spec->has_vlan)
			return dv_error(
				c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"ETH: has_vlan 0 contradicts a VLAN ether type");
		DV_SET(c, sect, VSTEER_PRM_L24_CVLAN_TAG, 1, spec->has_vlan);
	}
	return 0;
}

/* --- VLAN --- */

static const struct rte_flow_item_vlan dv_vlan_nic = {
	.hdr.vlan_tci = RTE_BE16(0xffff),
	.hdr.eth_proto = RTE_BE16(0xffff),
};

static const struct dv_field dv_vlan_fields[] = {
	{ "tci", 0, 2, false },
	{ "inner_type", 2, 2, false },
	{ "has_more_vlan", sizeof(struct rte_flow_item_vlan) - 4, 4, false },
	{ NULL, 0, 0, false },
};

static int
dv_vlan(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
	const void *mk, const void *last)
{
	const struct rte_flow_item_vlan *spec = s, *mask = mk;
	struct dv_level *lv = dv_level(c);
	uint32_t sect = dv_sect(c);
	uint16_t tm, tv;

	RTE_SET_USED(last);
	if (dv_has(c, VSTEER_DV_L_OUTER_VLAN))
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"VLAN: multiple VLAN layers not supported");
	if (dv_has(c, DV_L3 | DV_L4))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"VLAN: cannot follow L3 or L4 layers");
	if (lv->l2_type_m)
		return dv_error(
			c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
			"VLAN: cannot follow an ETH item whose type is not a VLAN TPID");
	if (DV_MASK(c, sect, VSTEER_PRM_L24_CVLAN_TAG) &&
	    !DV_VALUE(c, sect, VSTEER_PRM_L24_CVLAN_TAG))
		return dv_error(
			c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
			"VLAN: the ETH item excludes tagged frames (has_vlan 0)");
	c->m->layers |= dv_lbit(c, VSTEER_DV_L_OUTER_VLAN);
	if (!DV_MASK(c, sect, VSTEER_PRM_L24_SVLAN_TAG))
		DV_SET(c, sect, VSTEER_PRM_L24_CVLAN_TAG, 1, 1);
	if (spec == NULL)
		return 0;
	tm = rte_be_to_cpu_16(mask->hdr.vlan_tci);
	tv = rte_be_to_cpu_16(spec->hdr.vlan_tci);
	DV_SET(c, sect, VSTEER_PRM_L24_FIRST_PRIO, tm >> 13, tv >> 13);
	DV_SET(c, sect, VSTEER_PRM_L24_FIRST_CFI, tm >> 12, tv >> 12);
	DV_SET(c, sect, VSTEER_PRM_L24_FIRST_VID, tm, tv);
	tm = rte_be_to_cpu_16(mask->hdr.eth_proto);
	tv = rte_be_to_cpu_16(spec->hdr.eth_proto) & tm;
	if (tm) {
		DV_SET(c, sect, VSTEER_PRM_L24_ETHERTYPE, tm, tv);
		lv->l2_type_m = tm;
		lv->l2_type_v = tv;
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

	/* An L4 item needs an L3 one: no "L3 after L4" case beyond this. */
	if (dv_has(c, DV_L3))
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"%s: multiple L3 layers not supported", name);
	if ((lv->l2_type_v ^ ether_type) & lv->l2_type_m)
		return dv_error(
			c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
			"%s: cannot follow an L2 layer whose ether type is 0x%04x",
			name, lv->l2_type_v);
	c->m->layers |= dv_lbit(c, layer);
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
	     const char *name, const char *field, uint8_t m, uint8_t v)
{
	struct dv_level *lv = dv_level(c);

	if (m == 0)
		return 0;
	if (m != 0xff)
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
				"%s: partial mask on %s is not supported", name,
				field);
	DV_SET(c, dv_sect(c), VSTEER_PRM_L24_IP_PROTOCOL, m, v);
	lv->proto_m = m;
	lv->proto_v = v;
	return 0;
}

static const struct rte_flow_item_ipv4 dv_ipv4_nic = {
	.hdr = {
		.version_ihl = 0xf0,
		.type_of_service = 0xff,
		.fragment_offset = RTE_BE16(DV_IPV4_FRAG_MASK),
		.time_to_live = 0xff,
		.next_proto_id = 0xff,
		.src_addr = RTE_BE32(0xffffffff),
		.dst_addr = RTE_BE32(0xffffffff),
	},
};

static const struct dv_field dv_ipv4_fields[] = {
	{ "version_ihl", 0, 1, false },
	{ "type_of_service", 1, 1, false },
	{ "total_length", 2, 2, false },
	{ "packet_id", 4, 2, false },
	{ "fragment_offset", 6, 2, true },
	{ "time_to_live", 8, 1, false },
	{ "next_proto_id", 9, 1, false },
	{ "hdr_checksum", 10, 2, false },
	{ "src_addr", 12, 4, false },
	{ "dst_addr", 16, 4, false },
	{ NULL, 0, 0, false },
};

static int
dv_ipv4(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
	const void *mk, const void *l)
{
	const struct rte_flow_item_ipv4 *spec = s, *mask = mk, *last = l;
	uint32_t sect;
	uint16_t fm, fv, fl;
	int ret;

	ret = dv_l3_common(c, item, "IPV4", DV_ETHER_TYPE_IPV4, 4,
			   VSTEER_DV_L_OUTER_IPV4);
	if (ret || spec == NULL)
		return ret;
	sect = dv_sect(c);
	if ((spec->hdr.version_ihl ^ 0x40) & mask->hdr.version_ihl)
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"IPV4: version in version_ihl is not 4");
	dv_set_bytes(c, sect + VSTEER_PRM_L24_SRC_IPV4_OFF, &mask->hdr.src_addr,
		     &spec->hdr.src_addr, 4);
	dv_set_bytes(c, sect + VSTEER_PRM_L24_DST_IPV4_OFF, &mask->hdr.dst_addr,
		     &spec->hdr.dst_addr, 4);
	dv_set_tos(c, mask->hdr.type_of_service, spec->hdr.type_of_service);
	if (mask->hdr.time_to_live)
		DV_SET(c, sect, VSTEER_PRM_L24_TTL_HOPLIMIT,
		       mask->hdr.time_to_live, spec->hdr.time_to_live);
	ret = dv_set_proto(c, item, "IPV4", "next_proto_id",
			   mask->hdr.next_proto_id, spec->hdr.next_proto_id);
	if (ret)
		return ret;
	/* The device has one "frag" bit: mask 0x3fff with spec 0 means not
	 * a fragment, spec 1 .. last 0x3fff any fragment (DPDK's idiom). */
	fm = rte_be_to_cpu_16(mask->hdr.fragment_offset);
	fv = rte_be_to_cpu_16(spec->hdr.fragment_offset) & fm;
	fl = last ? rte_be_to_cpu_16(last->hdr.fragment_offset) & fm : fv;
	if (fm == 0)
		return 0;
	if (fm != DV_IPV4_FRAG_MASK)
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
				"IPV4: fragment_offset mask must be 0x3fff");
	if (fv == 0 && fl == 0)
		DV_SET(c, sect, VSTEER_PRM_L24_FRAG, 1, 0);
	else if (fv == 1 && fl == DV_IPV4_FRAG_MASK)
		DV_SET(c, sect, VSTEER_PRM_L24_FRAG, 1, 1);
	else if (fl != fv)
		return dv_error(
			c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST, item,
			"IPV4: fragment_offset range must be 1..0x3fff (any fragment)");
	else
		return dv_error(
			c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
			"IPV4: fragment_offset must be 0 (not a fragment) or 1..0x3fff (any fragment)");
	return 0;
}

static const struct rte_flow_item_ipv6 dv_ipv6_nic = {
	.hdr = {
		.vtc_flow = RTE_BE32(0xffffffff),
		.proto = 0xff,
		.hop_limits = 0xff,
		.src_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		.dst_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	},
	.has_frag_ext = 1,
};

static const struct dv_field dv_ipv6_fields[] = {
	{ "vtc_flow", 0, 4, false },
	{ "payload_len", 4, 2, false },
	{ "proto", 6, 1, false },
	{ "hop_limits", 7, 1, false },
	{ "src_addr", 8, 16, false },
	{ "dst_addr", 24, 16, false },
	{ "has_*_ext", sizeof(struct rte_flow_item_ipv6) - 4, 4, false },
	{ NULL, 0, 0, false },
};

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
dv_ipv6(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
	const void *mk, const void *last)
{
	const struct rte_flow_item_ipv6 *spec = s, *mask = mk;
	uint32_t sect, vm, vv, fl_off;
	int ret;

	RTE_SET_USED(last);
	ret = dv_l3_common(c, item, "IPV6", DV_ETHER_TYPE_IPV6, 6,
			   VSTEER_DV_L_OUTER_IPV6);
	if (ret || spec == NULL)
		return ret;
	sect = dv_sect(c);
	vm = rte_be_to_cpu_32(mask->hdr.vtc_flow);
	vv = rte_be_to_cpu_32(spec->hdr.vtc_flow);
	if (((vv >> 28) ^ 6) & (vm >> 28))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				"IPV6: version in vtc_flow is not 6");
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
	return dv_set_proto(c, item, "IPV6", "proto", mask->hdr.proto,
			    spec->hdr.proto);
}

/* --- TCP / UDP --- */

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
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"%s: L3 next protocol %u is not compatible with %s",
				name, lv->proto_v, name);
	c->m->layers |= dv_lbit(c, layer);
	DV_SET(c, dv_sect(c), VSTEER_PRM_L24_IP_PROTOCOL, 0xff, proto);
	lv->proto_m = 0xff;
	lv->proto_v = proto;
	return 0;
}

static const struct rte_flow_item_tcp dv_tcp_nic = {
	.hdr = {
		.src_port = RTE_BE16(0xffff),
		.dst_port = RTE_BE16(0xffff),
		.tcp_flags = 0xff,
	},
};

static const struct dv_field dv_tcp_fields[] = {
	{ "src_port", 0, 2, false },  { "dst_port", 2, 2, false },
	{ "sent_seq", 4, 4, false },  { "recv_ack", 8, 4, false },
	{ "data_off", 12, 1, false }, { "tcp_flags", 13, 1, false },
	{ "rx_win", 14, 2, false },   { "cksum", 16, 2, false },
	{ "tcp_urp", 18, 2, false },  { NULL, 0, 0, false },
};

static int
dv_tcp(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
       const void *mk, const void *last)
{
	const struct rte_flow_item_tcp *spec = s, *mask = mk;
	uint32_t sect;
	int ret;

	RTE_SET_USED(last);
	ret = dv_l4_common(c, item, "TCP", DV_IPPROTO_TCP,
			   VSTEER_DV_L_OUTER_TCP);
	if (ret || spec == NULL)
		return ret;
	sect = dv_sect(c);
	DV_SET(c, sect, VSTEER_PRM_L24_TCP_SPORT,
	       rte_be_to_cpu_16(mask->hdr.src_port),
	       rte_be_to_cpu_16(spec->hdr.src_port));
	DV_SET(c, sect, VSTEER_PRM_L24_TCP_DPORT,
	       rte_be_to_cpu_16(mask->hdr.dst_port),
	       rte_be_to_cpu_16(spec->hdr.dst_port));
	DV_SET(c, sect, VSTEER_PRM_L24_TCP_FLAGS, mask->hdr.tcp_flags,
	       spec->hdr.tcp_flags);
	return 0;
}

static const struct rte_flow_item_udp dv_udp_nic = {
	.hdr = {
		.src_port = RTE_BE16(0xffff),
		.dst_port = RTE_BE16(0xffff),
	},
};

static const struct dv_field dv_udp_fields[] = {
	{ "src_port", 0, 2, false },  { "dst_port", 2, 2, false },
	{ "dgram_len", 4, 2, false }, { "dgram_cksum", 6, 2, false },
	{ NULL, 0, 0, false },
};

static int
dv_udp(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
       const void *mk, const void *last)
{
	const struct rte_flow_item_udp *spec = s, *mask = mk;
	uint32_t sect;
	int ret;

	RTE_SET_USED(last);
	ret = dv_l4_common(c, item, "UDP", DV_IPPROTO_UDP,
			   VSTEER_DV_L_OUTER_UDP);
	if (ret || spec == NULL)
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

static const struct rte_flow_item_vxlan dv_vxlan_nic = {
	.vni = { 0xff, 0xff, 0xff },
};

static const struct dv_field dv_vxlan_fields[] = {
	{ "flags", 0, 1, false }, { "rsvd0", 1, 3, false },
	{ "vni", 4, 3, false },	  { "rsvd1", 7, 1, false },
	{ NULL, 0, 0, false },
};

static int
dv_vxlan(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
	 const void *mk, const void *last)
{
	const struct rte_flow_item_vxlan *spec = s, *mask = mk;
	uint32_t vm, vv;
	int ret;

	RTE_SET_USED(last);
	ret = dv_tunnel_common(c, item, "VXLAN");
	if (ret)
		return ret;
	if (!(c->m->layers & VSTEER_DV_L_OUTER_UDP))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"VXLAN: no outer UDP layer found");
	c->m->layers |= VSTEER_DV_L_VXLAN;
	dv_default_udp_dport(c, DV_VXLAN_PORT);
	if (spec == NULL)
		return 0;
	vm = (uint32_t)mask->vni[0] << 16 | mask->vni[1] << 8 | mask->vni[2];
	vv = (uint32_t)spec->vni[0] << 16 | spec->vni[1] << 8 | spec->vni[2];
	DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_VXLAN_VNI, vm, vv);
	return 0;
}

#define DV_GRE_C 0x8000
#define DV_GRE_K 0x2000
#define DV_GRE_S 0x1000

static const struct rte_flow_item_gre dv_gre_nic = {
	.c_rsvd0_ver = RTE_BE16(DV_GRE_C | DV_GRE_K | DV_GRE_S),
	.protocol = RTE_BE16(0xffff),
};

static const struct dv_field dv_gre_fields[] = {
	{ "c_rsvd0_ver", 0, 2, false },
	{ "protocol", 2, 2, false },
	{ NULL, 0, 0, false },
};

static int
dv_gre(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
       const void *mk, const void *last)
{
	const struct rte_flow_item_gre *spec = s, *mask = mk;
	struct dv_level *lv = &c->lv[0];
	uint16_t fm, fv;
	int ret;

	RTE_SET_USED(last);
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
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"GRE: L3 next protocol %u is not GRE",
				lv->proto_v);
	DV_SET(c, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IP_PROTOCOL, 0xff,
	       DV_IPPROTO_GRE);
	lv->proto_m = 0xff;
	lv->proto_v = DV_IPPROTO_GRE;
	c->m->layers |= VSTEER_DV_L_GRE;
	if (spec == NULL)
		return 0;
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

/* GRE_KEY has a bare rte_be32_t spec and no exported default mask. */
static const rte_be32_t dv_gre_key_mask = RTE_BE32(UINT32_MAX);

static const struct dv_field dv_gre_key_fields[] = {
	{ "key", 0, 4, false },
	{ NULL, 0, 0, false },
};

static int
dv_gre_key(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
	   const void *mk, const void *last)
{
	const rte_be32_t *spec = s, *mask = mk;

	RTE_SET_USED(last);
	if (!(c->m->layers & VSTEER_DV_L_GRE))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"GRE_KEY: no preceding GRE item");
	if (c->m->layers & VSTEER_DV_L_GRE_KEY)
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"GRE_KEY: multiple GRE_KEY items not supported");
	if (c->m->layers & ~(VSTEER_DV_L_GRE | VSTEER_DV_L_OUTER_L2 |
			     VSTEER_DV_L_OUTER_VLAN | DV_L3))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"GRE_KEY: must directly follow the GRE item");
	if (DV_MASK(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_K_PRESENT) &&
	    !DV_VALUE(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_K_PRESENT))
		return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"GRE_KEY: the GRE item requires the K bit clear");
	c->m->layers |= VSTEER_DV_L_GRE_KEY;
	/* A key implies the K bit (rte_flow.h: matched as 1). */
	DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_K_PRESENT, 1, 1);
	if (spec == NULL)
		return 0;
	DV_SET(c, VSTEER_PRM_MISC, VSTEER_PRM_MISC_GRE_KEY,
	       rte_be_to_cpu_32(*mask), rte_be_to_cpu_32(*spec));
	return 0;
}

static const struct rte_flow_item_mpls dv_mpls_nic = {
	.label_tc_s = { 0xff, 0xff, 0xf0 },
};

static const struct dv_field dv_mpls_fields[] = {
	{ "label_tc_s", 0, 3, false },
	{ "ttl", 3, 1, false },
	{ NULL, 0, 0, false },
};

static int
dv_mpls(struct dv_ctx *c, const struct rte_flow_item *item, const void *s,
	const void *mk, const void *last)
{
	const struct rte_flow_item_mpls *spec = s, *mask = mk;
	uint32_t off;

	RTE_SET_USED(last);
	if (c->m->layers & (VSTEER_DV_L_VXLAN | VSTEER_DV_L_MPLS))
		return dv_error(c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"MPLS: multiple tunnel layers not supported");
	if (c->m->layers & VSTEER_DV_L_GRE) {
		if (c->m->layers & (VSTEER_DV_L_INNER_L2 |
				    VSTEER_DV_L_INNER_VLAN | (DV_L3 << 6)))
			return dv_error(c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
					item,
					"MPLS: must directly follow GRE or UDP");
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
	if (spec == NULL)
		return 0;
	/* The PRM entry is laid out as the label stack entry on the wire. */
	dv_set_bytes(c, VSTEER_PRM_MISC2 + off, mask, spec, 4);
	return 0;
}

/* --- the table --- */

static const struct dv_item dv_items[] = {
	{ RTE_FLOW_ITEM_TYPE_ETH, "ETH", sizeof(struct rte_flow_item_eth),
	  &rte_flow_item_eth_mask, &dv_eth_nic, dv_eth_fields, dv_eth },
	{ RTE_FLOW_ITEM_TYPE_VLAN, "VLAN", sizeof(struct rte_flow_item_vlan),
	  &rte_flow_item_vlan_mask, &dv_vlan_nic, dv_vlan_fields, dv_vlan },
	{ RTE_FLOW_ITEM_TYPE_IPV4, "IPV4", sizeof(struct rte_flow_item_ipv4),
	  &rte_flow_item_ipv4_mask, &dv_ipv4_nic, dv_ipv4_fields, dv_ipv4 },
	{ RTE_FLOW_ITEM_TYPE_IPV6, "IPV6", sizeof(struct rte_flow_item_ipv6),
	  &rte_flow_item_ipv6_mask, &dv_ipv6_nic, dv_ipv6_fields, dv_ipv6 },
	{ RTE_FLOW_ITEM_TYPE_TCP, "TCP", sizeof(struct rte_flow_item_tcp),
	  &rte_flow_item_tcp_mask, &dv_tcp_nic, dv_tcp_fields, dv_tcp },
	{ RTE_FLOW_ITEM_TYPE_UDP, "UDP", sizeof(struct rte_flow_item_udp),
	  &rte_flow_item_udp_mask, &dv_udp_nic, dv_udp_fields, dv_udp },
	{ RTE_FLOW_ITEM_TYPE_VXLAN, "VXLAN", sizeof(struct rte_flow_item_vxlan),
	  &rte_flow_item_vxlan_mask, &dv_vxlan_nic, dv_vxlan_fields, dv_vxlan },
	{ RTE_FLOW_ITEM_TYPE_GRE, "GRE", sizeof(struct rte_flow_item_gre),
	  &rte_flow_item_gre_mask, &dv_gre_nic, dv_gre_fields, dv_gre },
	{ RTE_FLOW_ITEM_TYPE_GRE_KEY, "GRE_KEY", sizeof(rte_be32_t),
	  &dv_gre_key_mask, &dv_gre_key_mask, dv_gre_key_fields, dv_gre_key },
	{ RTE_FLOW_ITEM_TYPE_MPLS, "MPLS", sizeof(struct rte_flow_item_mpls),
	  &rte_flow_item_mpls_mask, &dv_mpls_nic, dv_mpls_fields, dv_mpls },
};

static const struct dv_item *
dv_item_find(enum rte_flow_item_type type)
{
	size_t i;

	for (i = 0; i < RTE_DIM(dv_items); i++)
		if (dv_items[i].type == type)
			return &dv_items[i];
	return NULL;
}

/* spec/mask/last against the descriptor, field by field. */
static int
dv_item_check(struct dv_ctx *c, const struct dv_item *d,
	      const struct rte_flow_item *item, const uint8_t *mask)
{
	const uint8_t *nic = d->nic_mask;
	const uint8_t *spec = item->spec, *last = item->last;
	const struct dv_field *f;
	unsigned int i;

	for (f = d->fields; f->name != NULL; f++) {
		bool any = false, outside = false;

		for (i = f->off; i < (unsigned int)f->off + f->len; i++) {
			any |= nic[i] != 0;
			outside |= (mask[i] & ~nic[i]) != 0;
		}
		if (outside)
			return dv_error(
				c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
				any ? "%s: mask on %s has bits the device cannot match" :
				      "%s: matching on %s is not supported",
				d->name, f->name);
		if (last == NULL || f->range_ok)
			continue;
		for (i = f->off; i < (unsigned int)f->off + f->len; i++)
			if ((spec[i] ^ last[i]) & mask[i])
				return dv_error(
					c, ENOTSUP,
					RTE_FLOW_ERROR_TYPE_ITEM_LAST, item,
					"%s: range (last) on %s is not supported",
					d->name, f->name);
	}
	return 0;
}

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

int
vsteer_flow_dv_translate(const struct rte_flow_item pattern[],
			 struct vsteer_dv_match *out,
			 struct rte_flow_error *error)
{
	struct dv_ctx c = {
		.m = out,
		.mk = (uint8_t *)out->mask.buf,
		.vl = (uint8_t *)out->value.buf,
		.error = error,
	};
	const struct rte_flow_item *item;
	size_t i;
	int ret;

	memset(out, 0, sizeof(*out));
	if (pattern == NULL)
		return dv_error(&c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL,
				"NULL pattern");
	for (item = pattern; item->type != RTE_FLOW_ITEM_TYPE_END; item++) {
		const struct dv_item *d;
		const void *mask;

		if (item->type == RTE_FLOW_ITEM_TYPE_VOID)
			continue;
		d = dv_item_find(item->type);
		if (d == NULL) {
			const char *name = NULL;

			/* rte_flow knows every item's name. */
			if (rte_flow_conv(RTE_FLOW_CONV_OP_ITEM_NAME_PTR, &name,
					  sizeof(name),
					  (void *)(uintptr_t)item->type,
					  NULL) <= 0)
				name = NULL;
			return dv_error(
				&c, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"item type %d (%s) not supported by the mlx5dv matcher path",
				(int)item->type,
				name != NULL ? name : "unknown");
		}
		if (item->spec == NULL && (item->mask || item->last))
			return dv_error(
				&c, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"%s: mask or last without a spec is not supported",
				d->name);
		mask = item->mask ? item->mask : d->default_mask;
		if (item->spec) {
			ret = dv_item_check(&c, d, item, mask);
			if (ret)
				return ret;
		}
		ret = d->translate(&c, item, item->spec,
				   item->spec ? mask : NULL, item->last);
		if (ret)
			return ret;
	}
	dv_gre_protocol_from_inner(&c);
	/* Values never carry bits outside the mask (mlx5 core rejects). */
	for (i = 0; i < RTE_DIM(out->value.buf); i++)
		out->value.buf[i] &= out->mask.buf[i];
	out->criteria = vsteer_prm_criteria(out->mask.buf,
					    VSTEER_PRM_MATCH_PARAM_BYTES);
	out->mask.size = vsteer_prm_match_size(out->criteria);
	out->value.size = out->mask.size;
	return 0;
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
