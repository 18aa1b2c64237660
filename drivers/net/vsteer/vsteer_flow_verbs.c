/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * rte_flow -> ibv_flow_attr + ibv_flow_spec_* translation.
 *
 * One walk serves validate and create: attributes and actions (the steps
 * both engines share, vsteer_flow_xlate.c), then the pattern item by item
 * (one handler per item type; every masked field is first checked against
 * the verbs column of the engine rows, vsteer_flow_engines.c), then the
 * verbs rules are written. Nothing is allocated and no device is called,
 * so a failed translation leaves nothing behind.
 *
 * Pattern items first become "pending" specs (whole struct ibv_flow_spec
 * each) so that a later item can complete an earlier spec: VLAN folds into
 * the ETH spec before it, GRE_KEY into the GRE spec, a tunnel item implies
 * the UDP port or IP protocol that carries it. The pending specs are then
 * serialized once per verbs rule: the pattern's own, the specs an RSS
 * expansion adds, and the action specs (TAG, DROP, COUNT) in action order.
 *
 * Implied fields, as the mlx5 verbs engine writes them:
 * - not written: the ETH ether_type under an IPv4/IPv6 item and the IP
 *   protocol under TCP/UDP. The device implies them from the presence of
 *   the deeper spec (the mlx5 kernel sets ip_version / ip_protocol,
 *   softverbs matches the header's presence). This keeps the man page's
 *   example byte for byte.
 * - written when the user left them unmasked: IP protocol 47 under GRE and
 *   50 under ESP; UDP destination port 4789 under VXLAN and 6635 under
 *   MPLS; the GRE protocol from what follows GRE (0x6558 Ethernet, 0x0800,
 *   0x86dd, 0x8847 MPLS).
 * - a user value that contradicts the item after it (ETH type 0x86dd then
 *   IPv4, IPv4 protocol 6 then UDP, ...) is refused with EINVAL.
 * What verbs cannot say (vsteer_flow_engines.c): the GRE C/K/S/version
 * bits (the mlx5 kernel refuses any mask on them; a GRE_KEY item implies
 * the K bit), TTL and hop limit, IP fragments, TCP flags, VLAN presence
 * alone, an untagged-only match, 802.1ad tags, ESP where the kernel
 * refuses IBV_FLOW_SPEC_ESP: such rules are refused with plan->limit set.
 *
 * IPv4 is written as IBV_FLOW_SPEC_IPV4 (24 bytes) when only addresses are
 * matched, as IBV_FLOW_SPEC_IPV4_EXT (32 bytes) when the protocol or TOS
 * is; rdma-core turns both into the same kernel spec.
 */

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_ether.h>
#include <rte_flow.h>
#include <rte_ip.h>

#include "vsteer_flow_verbs.h"

/* Pending specs of one pattern (the item graph allows about ten). */
#define XL_MAX_SPECS 16

#define XL_UDP_PORT_VXLAN 4789
#define XL_UDP_PORT_MPLS 6635

#define XL_ENG VSTEER_FLOW_ENGINE_VERBS

enum xl_tunnel {
	XL_TUN_NONE = 0,
	XL_TUN_VXLAN,
	XL_TUN_GRE,
	XL_TUN_MPLS, /* MPLS over UDP */
};

/* One header stack: [0] outer, [1] inside the tunnel. */
struct xl_layers {
	int l2;	     /* pending index of the ETH spec, or -1 */
	int l3;	     /* IPv4/IPv6 spec, or -1 */
	int l4;	     /* TCP/UDP/ESP spec, or -1 */
	uint8_t fam; /* 0, 4, 6 */
	uint8_t l4p; /* 0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ESP */
	bool vlan;
	const struct rte_flow_item *eth_item;
};

struct xl_pending {
	struct ibv_flow_spec spec;
	const void *cause;
	enum rte_flow_error_type cause_type;
};

struct xl_state {
	const struct vsteer_xlate_ctx *ctx;
	struct vsteer_flow_plan *plan;
	struct xl_pending specs[XL_MAX_SPECS];
	unsigned int n_specs;
	struct xl_layers lay[2];
	bool tunnel; /* later items are inner */
	enum xl_tunnel tun_kind;
	int tun;  /* VXLAN / GRE spec */
	int mpls; /* MPLS spec */
	uint16_t max_bytes;
};

typedef int(xl_item_fn)(struct xl_state *st, const struct rte_flow_item *item,
			const struct vsteer_item_vals *v,
			struct rte_flow_error *error);

static inline struct xl_layers *
xl_cur(struct xl_state *st)
{
	return &st->lay[st->tunnel ? 1 : 0];
}

static inline uint16_t
xl_inner(const struct xl_state *st)
{
	return st->tunnel ? IBV_FLOW_SPEC_INNER : 0;
}

/* A named row the engine lacks: refuse with plan->limit set. */
static int
xl_named_limit(struct xl_state *st, enum vsteer_row_id id,
	       enum rte_flow_error_type type, const void *cause,
	       struct rte_flow_error *error)
{
	return vsteer_flow_row_limit(st->plan, st->ctx, &vsteer_flow_named[id],
				     st->tunnel, error, type, cause);
}

/* Add a zeroed pending spec; returns its index or a negative errno. */
static int
xl_spec_add(struct xl_state *st, uint16_t type, uint16_t size,
	    const struct rte_flow_item *item, struct rte_flow_error *error)
{
	struct xl_pending *p;

	if (st->n_specs >= XL_MAX_SPECS)
		return vsteer_flow_err(error, E2BIG, RTE_FLOW_ERROR_TYPE_ITEM,
				       item,
				       "pattern needs more than %u verbs specs",
				       XL_MAX_SPECS);
	p = &st->specs[st->n_specs];
	memset(p, 0, sizeof(*p));
	p->spec.hdr.type = type;
	p->spec.hdr.size = size;
	p->cause = item;
	p->cause_type = RTE_FLOW_ERROR_TYPE_ITEM;
	return st->n_specs++;
}
/* Masked L3 protocol of a stack: *v / *m; false when there is no L3. */
static bool
xl_l3_proto(struct xl_state *st, const struct xl_layers *l, uint8_t **v,
	    uint8_t **m)
{
	struct ibv_flow_spec *s;

	if (l->l3 < 0)
		return false;
	s = &st->specs[l->l3].spec;
	if (l->fam == 4) {
		*v = &s->ipv4_ext.val.proto;
		*m = &s->ipv4_ext.mask.proto;
	} else {
		*v = &s->ipv6.val.next_hdr;
		*m = &s->ipv6.mask.next_hdr;
	}
	return true;
}

/*
 * An item above L3 needs protocol proto: write it when the user left it
 * unmasked (imply), refuse it when the user's value says otherwise.
 */
static int
xl_l3_need_proto(struct xl_state *st, struct xl_layers *l, uint8_t proto,
		 bool imply, const struct rte_flow_item *item, const char *what,
		 struct rte_flow_error *error)
{
	uint8_t *v, *m;

	if (!xl_l3_proto(st, l, &v, &m))
		return 0;
	if (*m == 0) {
		if (imply) {
			*v = proto;
			*m = 0xff;
		}
		return 0;
	}
	/* The kernel takes the protocol under an L4/tunnel spec only when
	 * exact (mlx5 set_proto()). */
	if (*m != 0xff)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
			"%s item: partial mask 0x%02x on the preceding %s is not supported",
			what, *m,
			l->fam == 4 ? "IPv4 next_proto_id" :
				      "IPv6 next header");
	if ((proto & *m) != *v)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
			"%s item: %s %u (mask 0x%02x) does not carry %s (%u)",
			what,
			l->fam == 4 ? "IPv4 next_proto_id" : "IPv6 next header",
			*v, *m, what, proto);
	return 0;
}

/* Same for the L2 ether_type under an IPv4/IPv6 item (never implied). */
static int
xl_l2_need_type(struct xl_state *st, struct xl_layers *l, uint16_t type,
		const struct rte_flow_item *item, const char *what,
		struct rte_flow_error *error)
{
	struct ibv_flow_spec_eth *eth;

	if (l->l2 < 0)
		return 0;
	eth = &st->specs[l->l2].spec.eth;
	if (eth->mask.ether_type == 0)
		return 0;
	/* The kernel takes a masked ether_type under L3 only when exact. */
	if (eth->mask.ether_type != RTE_BE16(0xffff) ||
	    eth->val.ether_type != rte_cpu_to_be_16(type))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
			"%s item: preceding ETH/VLAN type 0x%04x (mask 0x%04x) is not %s (0x%04x)",
			what, rte_be_to_cpu_16(eth->val.ether_type),
			rte_be_to_cpu_16(eth->mask.ether_type), what, type);
	return 0;
}

/* The first inner header of a GRE tunnel fixes the GRE protocol. */
static int
xl_gre_payload(struct xl_state *st, uint16_t ethertype,
	       const struct rte_flow_item *item, const char *what,
	       struct rte_flow_error *error)
{
	struct ibv_flow_spec_gre *gre;

	if (st->tun_kind != XL_TUN_GRE || st->mpls >= 0)
		return 0;
	gre = &st->specs[st->tun].spec.gre;
	if (gre->mask.protocol == 0) {
		gre->val.protocol = rte_cpu_to_be_16(ethertype);
		gre->mask.protocol = RTE_BE16(0xffff);
		return 0;
	}
	if ((rte_cpu_to_be_16(ethertype) & gre->mask.protocol) !=
	    gre->val.protocol)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
			"%s item: GRE protocol 0x%04x (mask 0x%04x) does not carry %s (0x%04x)",
			what, rte_be_to_cpu_16(gre->val.protocol),
			rte_be_to_cpu_16(gre->mask.protocol), what, ethertype);
	return 0;
}

/* A UDP item carrying a tunnel: its destination port. */
static void
xl_udp_imply_port(struct xl_state *st, uint16_t port)
{
	struct ibv_flow_spec_tcp_udp *udp =
		&st->specs[st->lay[0].l4].spec.tcp_udp;

	if (udp->mask.dst_port == 0) {
		udp->val.dst_port = rte_cpu_to_be_16(port);
		udp->mask.dst_port = RTE_BE16(0xffff);
	}
}

static int
xl_item_eth(struct xl_state *st, const struct rte_flow_item *item,
	    const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	const struct rte_flow_item_eth *v = &vals->val.eth,
				       *m = &vals->mask.eth;
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_eth *eth;
	int idx;

	/* An 802.1ad tag: the kernel's vlan_tag means an 802.1Q one. */
	if (m->hdr.ether_type == RTE_BE16(0xffff) &&
	    v->hdr.ether_type == RTE_BE16(RTE_ETHER_TYPE_QINQ))
		return xl_named_limit(st, VSTEER_ROW_ETH_TPID_S,
				      RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				      error);
	idx = xl_spec_add(st, IBV_FLOW_SPEC_ETH | xl_inner(st), sizeof(*eth),
			  item, error);
	if (idx < 0)
		return idx;
	eth = &st->specs[idx].spec.eth;
	memcpy(eth->val.dst_mac, v->hdr.dst_addr.addr_bytes,
	       RTE_ETHER_ADDR_LEN);
	memcpy(eth->val.src_mac, v->hdr.src_addr.addr_bytes,
	       RTE_ETHER_ADDR_LEN);
	eth->val.ether_type = v->hdr.ether_type;
	memcpy(eth->mask.dst_mac, m->hdr.dst_addr.addr_bytes,
	       RTE_ETHER_ADDR_LEN);
	memcpy(eth->mask.src_mac, m->hdr.src_addr.addr_bytes,
	       RTE_ETHER_ADDR_LEN);
	eth->mask.ether_type = m->hdr.ether_type;
	l->l2 = idx;
	l->eth_item = item;
	return xl_gre_payload(st, RTE_ETHER_TYPE_TEB, item, "ETH", error);
}

static int
xl_item_vlan(struct xl_state *st, const struct rte_flow_item *item,
	     const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	const struct rte_flow_item_vlan *v = &vals->val.vlan,
					*m = &vals->mask.vlan;
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_eth *eth;
	int ret;

	if (l->vlan)
		return xl_named_limit(st, VSTEER_ROW_VLAN_TWO_ITEMS,
				      RTE_FLOW_ERROR_TYPE_ITEM, item, error);
	/* A rule without vlan_tag mask matches tagged and untagged frames. */
	if (m->hdr.vlan_tci == 0)
		return xl_named_limit(st, VSTEER_ROW_VLAN_PRESENCE,
				      RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
				      error);
	/* ether_type is the one after the last tag (ibv_create_flow(3)):
	 * it cannot name a second tag. */
	if (m->hdr.eth_proto == RTE_BE16(0xffff) &&
	    (v->hdr.eth_proto == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
	     v->hdr.eth_proto == RTE_BE16(RTE_ETHER_TYPE_QINQ)))
		return xl_named_limit(st, VSTEER_ROW_VLAN_SECOND_TAG,
				      RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				      error);
	if (l->l2 < 0) {
		/* No ETH item before: the VLAN needs an ETH spec to live in. */
		ret = xl_spec_add(st, IBV_FLOW_SPEC_ETH | xl_inner(st),
				  sizeof(*eth), item, error);
		if (ret < 0)
			return ret;
		l->l2 = ret;
		ret = xl_gre_payload(st, RTE_ETHER_TYPE_TEB, item, "VLAN",
				     error);
		if (ret < 0)
			return ret;
	}
	eth = &st->specs[l->l2].spec.eth;
	/* The ETH item's type is the TPID here; 0x8100 is what vlan_tag
	 * means (0x88a8 was refused at the ETH item). */
	if (eth->mask.ether_type != 0 &&
	    (eth->mask.ether_type != RTE_BE16(0xffff) ||
	     eth->val.ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN)))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
			"VLAN item: the ETH item's type 0x%04x (mask 0x%04x) is no VLAN TPID",
			rte_be_to_cpu_16(eth->val.ether_type),
			rte_be_to_cpu_16(eth->mask.ether_type));
	eth->val.vlan_tag = v->hdr.vlan_tci;
	eth->mask.vlan_tag = m->hdr.vlan_tci;
	eth->val.ether_type = v->hdr.eth_proto;
	eth->mask.ether_type = m->hdr.eth_proto;
	l->vlan = true;
	return 0;
}

static int
xl_item_ipv4(struct xl_state *st, const struct rte_flow_item *item,
	     const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	const struct rte_flow_item_ipv4 *v = &vals->val.ipv4,
					*m = &vals->mask.ipv4;
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_ipv4_ext *ip;
	int idx, ret;

	/* The spec implies version 4: a mask on it must say 4. */
	if ((m->hdr.version_ihl & 0xf0) &&
	    (v->hdr.version_ihl ^ 0x40) & m->hdr.version_ihl & 0xf0)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				       "IPv4 item: version %u is not 4",
				       v->hdr.version_ihl >> 4);
	ret = xl_l2_need_type(st, l, RTE_ETHER_TYPE_IPV4, item, "IPv4", error);
	if (ret < 0)
		return ret;
	if (l->l2 < 0) {
		ret = xl_gre_payload(st, RTE_ETHER_TYPE_IPV4, item, "IPv4",
				     error);
		if (ret < 0)
			return ret;
	}
	idx = xl_spec_add(st, IBV_FLOW_SPEC_IPV4_EXT | xl_inner(st),
			  sizeof(*ip), item, error);
	if (idx < 0)
		return idx;
	ip = &st->specs[idx].spec.ipv4_ext;
	ip->val.src_ip = v->hdr.src_addr;
	ip->val.dst_ip = v->hdr.dst_addr;
	ip->val.proto = v->hdr.next_proto_id;
	ip->val.tos = v->hdr.type_of_service;
	ip->mask.src_ip = m->hdr.src_addr;
	ip->mask.dst_ip = m->hdr.dst_addr;
	ip->mask.proto = m->hdr.next_proto_id;
	ip->mask.tos = m->hdr.type_of_service;
	l->l3 = idx;
	l->fam = 4;
	return 0;
}

static int
xl_item_ipv6(struct xl_state *st, const struct rte_flow_item *item,
	     const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	const struct rte_flow_item_ipv6 *v = &vals->val.ipv6,
					*m = &vals->mask.ipv6;
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_ipv6 *ip;
	uint32_t vtc_v, vtc_m;
	int idx, ret;

	/* vtc_flow = version(4) | traffic class(8) | flow label(20). */
	vtc_v = rte_be_to_cpu_32(v->hdr.vtc_flow);
	vtc_m = rte_be_to_cpu_32(m->hdr.vtc_flow);
	if (((vtc_v >> 28) ^ 6) & (vtc_m >> 28))
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
				       "IPv6 item: version %u is not 6",
				       vtc_v >> 28);
	ret = xl_l2_need_type(st, l, RTE_ETHER_TYPE_IPV6, item, "IPv6", error);
	if (ret < 0)
		return ret;
	if (l->l2 < 0) {
		ret = xl_gre_payload(st, RTE_ETHER_TYPE_IPV6, item, "IPv6",
				     error);
		if (ret < 0)
			return ret;
	}
	idx = xl_spec_add(st, IBV_FLOW_SPEC_IPV6 | xl_inner(st), sizeof(*ip),
			  item, error);
	if (idx < 0)
		return idx;
	ip = &st->specs[idx].spec.ipv6;
	memcpy(ip->val.src_ip, v->hdr.src_addr, 16);
	memcpy(ip->val.dst_ip, v->hdr.dst_addr, 16);
	memcpy(ip->mask.src_ip, m->hdr.src_addr, 16);
	memcpy(ip->mask.dst_ip, m->hdr.dst_addr, 16);
	ip->val.flow_label = rte_cpu_to_be_32(vtc_v & RTE_IPV6_HDR_FL_MASK);
	ip->mask.flow_label = rte_cpu_to_be_32(vtc_m & RTE_IPV6_HDR_FL_MASK);
	ip->val.traffic_class = (vtc_v & RTE_IPV6_HDR_TC_MASK) >>
				RTE_IPV6_HDR_TC_SHIFT;
	ip->mask.traffic_class = (vtc_m & RTE_IPV6_HDR_TC_MASK) >>
				 RTE_IPV6_HDR_TC_SHIFT;
	ip->val.next_hdr = v->hdr.proto;
	ip->mask.next_hdr = m->hdr.proto;
	l->l3 = idx;
	l->fam = 6;
	return 0;
}

static int
xl_item_l4(struct xl_state *st, const struct rte_flow_item *item, uint16_t type,
	   uint8_t proto, const char *what, rte_be16_t sv, rte_be16_t dv,
	   rte_be16_t sm, rte_be16_t dm, struct rte_flow_error *error)
{
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_tcp_udp *p;
	int idx, ret;

	ret = xl_l3_need_proto(st, l, proto, false, item, what, error);
	if (ret < 0)
		return ret;
	idx = xl_spec_add(st, type | xl_inner(st), sizeof(*p), item, error);
	if (idx < 0)
		return idx;
	p = &st->specs[idx].spec.tcp_udp;
	p->val.src_port = sv;
	p->val.dst_port = dv;
	p->mask.src_port = sm;
	p->mask.dst_port = dm;
	l->l4 = idx;
	l->l4p = proto;
	return 0;
}

static int
xl_item_tcp(struct xl_state *st, const struct rte_flow_item *item,
	    const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	const struct rte_flow_item_tcp *v = &vals->val.tcp,
				       *m = &vals->mask.tcp;

	return xl_item_l4(st, item, IBV_FLOW_SPEC_TCP, IPPROTO_TCP, "TCP",
			  v->hdr.src_port, v->hdr.dst_port, m->hdr.src_port,
			  m->hdr.dst_port, error);
}

static int
xl_item_udp(struct xl_state *st, const struct rte_flow_item *item,
	    const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	const struct rte_flow_item_udp *v = &vals->val.udp,
				       *m = &vals->mask.udp;

	return xl_item_l4(st, item, IBV_FLOW_SPEC_UDP, IPPROTO_UDP, "UDP",
			  v->hdr.src_port, v->hdr.dst_port, m->hdr.src_port,
			  m->hdr.dst_port, error);
}

/* tunnel_id as the mlx5 verbs engine builds it: VNI in the low 24 bits
 * of a network-order word. */
static uint32_t
xl_vni(const uint8_t vni[3])
{
	uint8_t b[4] = { 0, vni[0], vni[1], vni[2] };
	uint32_t id;

	memcpy(&id, b, sizeof(id));
	return id;
}

static int
xl_item_vxlan(struct xl_state *st, const struct rte_flow_item *item,
	      const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	const struct rte_flow_item_vxlan *v = &vals->val.vxlan,
					 *m = &vals->mask.vxlan;
	struct ibv_flow_spec_tunnel *t;
	int idx;

	idx = xl_spec_add(st, IBV_FLOW_SPEC_VXLAN_TUNNEL, sizeof(*t), item,
			  error);
	if (idx < 0)
		return idx;
	t = &st->specs[idx].spec.tunnel;
	t->val.tunnel_id = xl_vni(v->vni);
	t->mask.tunnel_id = xl_vni(m->vni);
	xl_udp_imply_port(st, XL_UDP_PORT_VXLAN);
	st->tunnel = true;
	st->tun_kind = XL_TUN_VXLAN;
	st->tun = idx;
	return 0;
}

static int
xl_item_gre(struct xl_state *st, const struct rte_flow_item *item,
	    const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	const struct rte_flow_item_gre *v = &vals->val.gre,
				       *m = &vals->mask.gre;
	struct ibv_flow_spec_gre *gre;
	int idx, ret;

	ret = xl_l3_need_proto(st, &st->lay[0], IPPROTO_GRE, true, item, "GRE",
			       error);
	if (ret < 0)
		return ret;
	idx = xl_spec_add(st, IBV_FLOW_SPEC_GRE, sizeof(*gre), item, error);
	if (idx < 0)
		return idx;
	gre = &st->specs[idx].spec.gre;
	/* c_rsvd0_ver: no verbs row takes it, it stays zero. */
	gre->val.protocol = v->protocol;
	gre->mask.protocol = m->protocol;
	st->tunnel = true;
	st->tun_kind = XL_TUN_GRE;
	st->tun = idx;
	return 0;
}

static int
xl_item_gre_key(struct xl_state *st, const struct rte_flow_item *item,
		const struct vsteer_item_vals *vals,
		struct rte_flow_error *error)
{
	struct ibv_flow_spec_gre *gre = &st->specs[st->tun].spec.gre;

	RTE_SET_USED(item);
	RTE_SET_USED(error);
	/* The K bit is implied by the device parsing a key at all. */
	gre->val.key = vals->val.gre_key;
	gre->mask.key = vals->mask.gre_key;
	return 0;
}

/* NVGRE: a GRE spec of protocol 0x6558 whose key is the virtual subnet id
 * (high 24 bits) and the flow id; the K bit cannot be required (the
 * kernel refuses a c_ks_res0_ver mask), a key is only found with it. */
static int
xl_item_nvgre(struct xl_state *st, const struct rte_flow_item *item,
	      const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	const struct rte_flow_item_nvgre *v = &vals->val.nvgre,
					 *m = &vals->mask.nvgre;
	struct vsteer_item_vals g;
	struct ibv_flow_spec_gre *gre;
	int ret;

	memset(&g, 0, sizeof(g));
	g.val.gre.protocol = RTE_BE16(RTE_ETHER_TYPE_TEB);
	g.mask.gre.protocol = RTE_BE16(0xffff);
	ret = xl_item_gre(st, item, &g, error);
	if (ret < 0)
		return ret;
	gre = &st->specs[st->tun].spec.gre;
	gre->val.key =
		rte_cpu_to_be_32((uint32_t)v->tni[0] << 24 | v->tni[1] << 16 |
				 v->tni[2] << 8 | v->flow_id);
	gre->mask.key =
		rte_cpu_to_be_32((uint32_t)m->tni[0] << 24 | m->tni[1] << 16 |
				 m->tni[2] << 8 | m->flow_id);
	return 0;
}

static int
xl_item_mpls(struct xl_state *st, const struct rte_flow_item *item,
	     const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	struct ibv_flow_spec_mpls *mpls;
	int idx, ret;

	if (st->tun_kind == XL_TUN_GRE) {
		ret = xl_gre_payload(st, RTE_ETHER_TYPE_MPLS, item, "MPLS",
				     error);
		if (ret < 0)
			return ret;
	}
	/* Not INNER: the kernel places it after the UDP or GRE spec. */
	idx = xl_spec_add(st, IBV_FLOW_SPEC_MPLS, sizeof(*mpls), item, error);
	if (idx < 0)
		return idx;
	mpls = &st->specs[idx].spec.mpls;
	/* The whole label stack entry, in wire order. */
	memcpy(&mpls->val.label, &vals->val.mpls, sizeof(mpls->val.label));
	memcpy(&mpls->mask.label, &vals->mask.mpls, sizeof(mpls->mask.label));
	if (st->tun_kind == XL_TUN_NONE) {
		xl_udp_imply_port(st, XL_UDP_PORT_MPLS);
		st->tunnel = true;
		st->tun_kind = XL_TUN_MPLS;
		st->tun = idx;
	}
	st->mpls = idx;
	return 0;
}

static int
xl_item_esp(struct xl_state *st, const struct rte_flow_item *item,
	    const struct vsteer_item_vals *vals, struct rte_flow_error *error)
{
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_esp *esp;
	int idx, ret;

	ret = xl_l3_need_proto(st, l, IPPROTO_ESP, true, item, "ESP", error);
	if (ret < 0)
		return ret;
	idx = xl_spec_add(st, IBV_FLOW_SPEC_ESP | xl_inner(st), sizeof(*esp),
			  item, error);
	if (idx < 0)
		return idx;
	esp = &st->specs[idx].spec.esp;
	esp->val.spi = vals->val.esp.hdr.spi;
	esp->mask.spi = vals->mask.esp.hdr.spi;
	l->l4 = idx;
	l->l4p = IPPROTO_ESP;
	return 0;
}

/* Adding an item is a row in vsteer_flow_engines.c and a handler here. */
static xl_item_fn *const xl_item_fns[VSTEER_ITEM_N] = {
	[VSTEER_ITEM_ETH] = xl_item_eth,
	[VSTEER_ITEM_VLAN] = xl_item_vlan,
	[VSTEER_ITEM_IPV4] = xl_item_ipv4,
	[VSTEER_ITEM_IPV6] = xl_item_ipv6,
	[VSTEER_ITEM_TCP] = xl_item_tcp,
	[VSTEER_ITEM_UDP] = xl_item_udp,
	[VSTEER_ITEM_VXLAN] = xl_item_vxlan,
	[VSTEER_ITEM_GRE] = xl_item_gre,
	[VSTEER_ITEM_GRE_KEY] = xl_item_gre_key,
	[VSTEER_ITEM_NVGRE] = xl_item_nvgre,
	[VSTEER_ITEM_MPLS] = xl_item_mpls,
	[VSTEER_ITEM_ESP] = xl_item_esp,
};

static int
xl_walk_items(struct xl_state *st, const struct rte_flow_item pattern[],
	      struct rte_flow_error *error)
{
	const enum rte_flow_item_type *next = vsteer_flow_item_roots;
	const char *prev = NULL;
	const struct rte_flow_item *item;
	struct vsteer_item_vals vals;
	unsigned int l;
	int ret;

	for (item = pattern; item->type != RTE_FLOW_ITEM_TYPE_END; item++) {
		const struct vsteer_flow_item_desc *d;

		if (item->type == RTE_FLOW_ITEM_TYPE_VOID)
			continue;
		d = vsteer_flow_item_desc(item->type);
		if (d == NULL)
			return vsteer_flow_err(error, ENOTSUP,
					       RTE_FLOW_ERROR_TYPE_ITEM, item,
					       "item type %d (%s) not supported",
					       (int)item->type,
					       vsteer_flow_item_type_name(
						       item->type));
		if (!vsteer_flow_item_may_follow(next, item->type))
			return vsteer_flow_err(error, EINVAL,
					       RTE_FLOW_ERROR_TYPE_ITEM, item,
					       "%s item cannot follow %s%s",
					       d->name,
					       prev != NULL ?
						       prev :
						       "start of pattern",
					       prev != NULL ? " item" : "");
		if (d->tunnel && st->tunnel &&
		    (st->lay[1].l2 >= 0 || st->lay[1].l3 >= 0))
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"%s item: nested tunnels are not supported",
				d->name);
		if (d->id == VSTEER_ITEM_ESP &&
		    !vsteer_flow_row_ok(&vsteer_flow_named[VSTEER_ROW_ESP_HEADER],
					XL_ENG, st->ctx, st->tunnel))
			return xl_named_limit(st, VSTEER_ROW_ESP_HEADER,
					      RTE_FLOW_ERROR_TYPE_ITEM, item,
					      error);
		ret = vsteer_flow_item_device_check(st->ctx, d, item, error);
		if (ret < 0)
			return ret;
		ret = vsteer_flow_item_check(st->ctx, d, item, st->tunnel,
					     &vals, st->plan, error);
		if (ret == 0)
			ret = xl_item_fns[d->id](st, item, &vals, error);
		if (ret < 0)
			return ret;
		next = d->next;
		prev = d->name;
	}
	/* An empty pattern matches every Ethernet frame: one empty ETH. */
	if (st->n_specs == 0) {
		ret = xl_spec_add(st, IBV_FLOW_SPEC_ETH,
				  sizeof(struct ibv_flow_spec_eth), item,
				  error);
		if (ret < 0)
			return ret;
		st->lay[0].l2 = ret;
	}
	/* ETH type 0x8100 with no VLAN item: any 802.1Q-tagged frame, which
	 * verbs cannot say (ether_type is the one after the tags). */
	for (l = 0; l < RTE_DIM(st->lay); l++) {
		const struct xl_layers *ly = &st->lay[l];
		const struct ibv_flow_spec_eth *eth;

		if (ly->l2 < 0 || ly->vlan || ly->eth_item == NULL)
			continue;
		eth = &st->specs[ly->l2].spec.eth;
		if (eth->mask.ether_type == RTE_BE16(0xffff) &&
		    eth->val.ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN))
			return vsteer_flow_row_limit(
				st->plan, st->ctx,
				&vsteer_flow_named[VSTEER_ROW_ETH_TPID_C],
				l == 1, error, RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
				ly->eth_item);
	}
	return 0;
}

/* What the expansion needs to know of a stack. */
static void
xl_stack(struct xl_state *st, const struct xl_layers *l,
	 struct vsteer_flow_stack *s)
{
	memset(s, 0, sizeof(*s));
	s->fam = l->fam;
	s->l4p = l->l4p;
	s->l4 = l->l4 >= 0;
	if (l->l2 >= 0) {
		const struct ibv_flow_spec_eth *eth =
			&st->specs[l->l2].spec.eth;

		s->type_m = rte_be_to_cpu_16(eth->mask.ether_type);
		s->type_v = rte_be_to_cpu_16(eth->val.ether_type);
	}
	if (l->l3 >= 0) {
		uint8_t *v, *m;

		if (xl_l3_proto(st, l, &v, &m)) {
			s->proto_m = *m;
			s->proto_v = *v;
		}
	}
}

/*
 * Rules: serialization.
 */

/* Append one spec to a rule; IPv4 without protocol/TOS goes short. */
static int
xl_emit_spec(struct xl_state *st, struct vsteer_verbs_rule *rule,
	     const struct ibv_flow_spec *spec, const void *cause,
	     enum rte_flow_error_type cause_type, struct rte_flow_error *error)
{
	struct ibv_flow_spec_ipv4 v4;
	const void *src = spec;
	uint16_t size = spec->hdr.size;

	if ((spec->hdr.type & ~IBV_FLOW_SPEC_INNER) == IBV_FLOW_SPEC_IPV4_EXT &&
	    spec->ipv4_ext.mask.proto == 0 && spec->ipv4_ext.mask.tos == 0) {
		memset(&v4, 0, sizeof(v4));
		v4.type = IBV_FLOW_SPEC_IPV4 |
			  (spec->hdr.type & IBV_FLOW_SPEC_INNER);
		v4.size = sizeof(v4);
		v4.val.src_ip = spec->ipv4_ext.val.src_ip;
		v4.val.dst_ip = spec->ipv4_ext.val.dst_ip;
		v4.mask.src_ip = spec->ipv4_ext.mask.src_ip;
		v4.mask.dst_ip = spec->ipv4_ext.mask.dst_ip;
		src = &v4;
		size = sizeof(v4);
	}
	if ((size_t)rule->size + size > st->max_bytes)
		return vsteer_flow_err(
			error, E2BIG, cause_type, cause,
			"verbs rule needs more than %u bytes of specs",
			st->max_bytes);
	if (spec->hdr.type == IBV_FLOW_SPEC_ACTION_COUNT)
		rule->count_off = rule->size;
	memcpy(rule->buf + rule->size, src, size);
	rule->size += size;
	rule->attr.num_of_specs++;
	return 0;
}

/*
 * Would the mlx5 kernel put a rule starting with spec s in its multicast
 * table? flow_is_multicast_only() (Linux 6.1) looks at the first spec
 * alone: an ETH whose dst_mac has the group bit in value and mask, or an
 * IPv4 (IPV4_EXT too: rdma-core sends it as the kernel's IPv4 spec) whose
 * dst_ip value is in 224.0.0.0/4; get_flow_table() then ignores the
 * rule's priority (MLX5_IB_FLOW_MCAST_PRIO, after every priority) unless
 * it is DONT_TRAP.
 */
static bool
xl_mcast_first(const struct ibv_flow_spec *s)
{
	uint32_t type = s->hdr.type;

	if (type == IBV_FLOW_SPEC_ETH)
		return (s->eth.val.dst_mac[0] & s->eth.mask.dst_mac[0] & 1) !=
		       0;
	if (type == IBV_FLOW_SPEC_IPV4_EXT)
		return (rte_be_to_cpu_32(s->ipv4_ext.val.dst_ip) &
			0xf0000000) == 0xe0000000;
	return false;
}

/* The action spec a plan asks for, in action order. */
static void
xl_action_spec(const struct vsteer_flow_plan *plan, enum vsteer_aspec a,
	       struct ibv_flow_spec *s)
{
	memset(s, 0, sizeof(*s));
	switch (a) {
	case VSTEER_ASPEC_TAG:
		s->flow_tag.type = IBV_FLOW_SPEC_ACTION_TAG;
		s->flow_tag.size = sizeof(struct ibv_flow_spec_action_tag);
		/* Emitted for MARK or FLAG only: never tag 0. */
		s->flow_tag.tag_id = vsteer_flow_plan_tag(plan);
		break;
	case VSTEER_ASPEC_DROP:
		s->drop.type = IBV_FLOW_SPEC_ACTION_DROP;
		s->drop.size = sizeof(struct ibv_flow_spec_action_drop);
		break;
	default:
		/* Placeholder: the counters pointer is filled when applied. */
		s->flow_count.type = IBV_FLOW_SPEC_ACTION_COUNT;
		s->flow_count.size =
			sizeof(struct ibv_flow_spec_counter_action);
		s->flow_count.counters = NULL;
		break;
	}
}

static int
xl_emit_rule(struct xl_state *st, const struct vsteer_flow_variant *v,
	     struct vsteer_verbs_rule *rule, struct rte_flow_error *error)
{
	const struct vsteer_flow_plan *plan = st->plan;
	bool inner = st->tunnel && plan->fate == VSTEER_FATE_RSS &&
		     plan->rss_level >= 2;
	const struct xl_layers *hl = &st->lay[inner ? 1 : 0]; /* hashed */
	const void *rss = plan->rss_act;
	struct ibv_flow_spec extra;
	unsigned int i;
	int ret;

	memset(&rule->attr, 0, sizeof(rule->attr));
	rule->size = sizeof(struct ibv_flow_attr);
	rule->count_off = 0;
	/*
	 * An application's rule on a multicast destination keeps its
	 * priority: in the kernel's multicast table it would come after the
	 * port's default flows (promiscuous, all-multicast, the multicast
	 * list) and never match. An ETH spec that matches every frame, first,
	 * is no multicast-only chain; the kernel writes the fields of the
	 * ETH spec after it over its zeros (parse_flow_attr() sets them
	 * whole), so the rule matches what it says. The driver's own default
	 * flows stay in that table, after every application rule.
	 */
	if (!st->ctx->internal && st->n_specs > 0 &&
	    !(plan->flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP) &&
	    xl_mcast_first(&st->specs[0].spec)) {
		memset(&extra, 0, sizeof(extra));
		extra.hdr.type = IBV_FLOW_SPEC_ETH;
		extra.hdr.size = sizeof(struct ibv_flow_spec_eth);
		ret = xl_emit_spec(st, rule, &extra, st->specs[0].cause,
				   st->specs[0].cause_type, error);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < st->n_specs; i++) {
		const struct xl_pending *p = &st->specs[i];
		struct ibv_flow_spec gre, eth, l3;
		const struct ibv_flow_spec *s = &p->spec;

		/*
		 * An added L3 under a partly masked ETH type: the mlx5 kernel
		 * takes a masked ether_type beside an IP spec only when it is
		 * exact (is_valid_ethertype(): EINVAL). The variant matches
		 * that family only, which the partial mask lets through
		 * (vsteer_flow_variants()): say so exactly.
		 */
		if (v->add_l3 && (int)i == hl->l2 &&
		    s->eth.mask.ether_type != 0 &&
		    s->eth.mask.ether_type != RTE_BE16(0xffff)) {
			memcpy(&eth, s, sizeof(eth));
			eth.eth.val.ether_type = rte_cpu_to_be_16(
				v->fam == 4 ? RTE_ETHER_TYPE_IPV4 :
					      RTE_ETHER_TYPE_IPV6);
			eth.eth.mask.ether_type = RTE_BE16(0xffff);
			s = &eth;
		}
		/* Likewise an added L4 under a partly masked IP protocol
		 * (the kernel's set_proto(): EINVAL). */
		if (v->add_l4 && (int)i == hl->l3) {
			uint8_t *pv, *pm;

			memcpy(&l3, s, sizeof(l3));
			pv = hl->fam == 4 ? &l3.ipv4_ext.val.proto :
					    &l3.ipv6.val.next_hdr;
			pm = hl->fam == 4 ? &l3.ipv4_ext.mask.proto :
					    &l3.ipv6.mask.next_hdr;
			if (*pm != 0 && *pm != 0xff) {
				*pv = v->l4p;
				*pm = 0xff;
				s = &l3;
			}
		}
		/* An added inner L3 fixes an unmasked GRE protocol too. */
		if (v->add_l3 && inner && (int)i == st->tun &&
		    st->tun_kind == XL_TUN_GRE && st->mpls < 0 &&
		    s->gre.mask.protocol == 0) {
			memcpy(&gre, s, sizeof(gre));
			gre.gre.val.protocol = rte_cpu_to_be_16(
				v->fam == 4 ? RTE_ETHER_TYPE_IPV4 :
					      RTE_ETHER_TYPE_IPV6);
			gre.gre.mask.protocol = RTE_BE16(0xffff);
			s = &gre;
		}
		ret = xl_emit_spec(st, rule, s, p->cause, p->cause_type, error);
		if (ret < 0)
			return ret;
	}
	if (v->add_l3) {
		memset(&extra, 0, sizeof(extra));
		if (v->fam == 4) {
			extra.hdr.type = IBV_FLOW_SPEC_IPV4_EXT;
			extra.hdr.size = sizeof(struct ibv_flow_spec_ipv4_ext);
		} else {
			extra.hdr.type = IBV_FLOW_SPEC_IPV6;
			extra.hdr.size = sizeof(struct ibv_flow_spec_ipv6);
		}
		extra.hdr.type |= inner ? IBV_FLOW_SPEC_INNER : 0;
		ret = xl_emit_spec(st, rule, &extra, rss,
				   RTE_FLOW_ERROR_TYPE_ACTION, error);
		if (ret < 0)
			return ret;
	}
	if (v->add_l4) {
		memset(&extra, 0, sizeof(extra));
		extra.hdr.type = v->l4p == IPPROTO_TCP ? IBV_FLOW_SPEC_TCP :
							 IBV_FLOW_SPEC_UDP;
		extra.hdr.type |= inner ? IBV_FLOW_SPEC_INNER : 0;
		extra.hdr.size = sizeof(struct ibv_flow_spec_tcp_udp);
		ret = xl_emit_spec(st, rule, &extra, rss,
				   RTE_FLOW_ERROR_TYPE_ACTION, error);
		if (ret < 0)
			return ret;
	}
	for (i = 0; i < plan->n_aspecs; i++) {
		xl_action_spec(plan, (enum vsteer_aspec)plan->aspecs[i],
			       &extra);
		ret = xl_emit_spec(st, rule, &extra, plan->aspec_act[i],
				   RTE_FLOW_ERROR_TYPE_ACTION, error);
		if (ret < 0)
			return ret;
	}
	rule->attr.comp_mask = 0;
	rule->attr.type = IBV_FLOW_ATTR_NORMAL;
	rule->attr.size = rule->size;
	rule->attr.priority =
		vsteer_flow_verbs_prio(st->ctx, plan->rte_priority, v->sub);
	rule->attr.port = st->ctx->port_num;
	rule->attr.flags = plan->flags;
	rule->hash_fields = v->hash_fields;
	rule->subprio = v->sub;
	return 0;
}

int
vsteer_flow_verbs_translate(const struct vsteer_xlate_ctx *ctx,
			    const struct rte_flow_attr *attr,
			    const struct rte_flow_item pattern[],
			    const struct rte_flow_action actions[],
			    struct vsteer_flow_plan *plan,
			    struct rte_flow_error *error)
{
	struct vsteer_flow_stack stacks[2];
	struct xl_state st;
	bool inner;
	unsigned int i, n;
	int ret;

	if (ctx == NULL || plan == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				       "no translation context or plan");
	vsteer_flow_plan_init(plan, ctx, XL_ENG);
	st.ctx = ctx;
	st.plan = plan;
	st.n_specs = 0;
	st.tunnel = false;
	st.tun_kind = XL_TUN_NONE;
	st.tun = -1;
	st.mpls = -1;
	memset(st.lay, 0, sizeof(st.lay));
	for (i = 0; i < RTE_DIM(st.lay); i++) {
		st.lay[i].l2 = -1;
		st.lay[i].l3 = -1;
		st.lay[i].l4 = -1;
	}
	st.max_bytes = ctx->max_spec_bytes != 0 &&
				       ctx->max_spec_bytes <
					       VSTEER_MAX_SPEC_BYTES ?
			       ctx->max_spec_bytes :
			       VSTEER_MAX_SPEC_BYTES;
	ret = vsteer_flow_attr(ctx, attr, plan, error);
	if (ret == 0 && pattern == NULL)
		ret = vsteer_flow_err(error, EINVAL,
				      RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL,
				      "no pattern");
	if (ret == 0)
		ret = xl_walk_items(&st, pattern, error);
	if (ret == 0)
		ret = vsteer_flow_actions(ctx, actions, plan, error);
	if (ret == 0 && plan->fate == VSTEER_FATE_RSS && plan->rss_level >= 2 &&
	    !st.tunnel)
		ret = vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
			plan->rss_act,
			"RSS action: level %u (inner) needs a tunnel item in the pattern",
			plan->rss_level);
	if (ret < 0)
		goto fail;
	plan->tunnel = st.tunnel;
	inner = plan->fate == VSTEER_FATE_RSS && plan->rss_level >= 2;
	xl_stack(&st, &st.lay[0], &stacks[0]);
	xl_stack(&st, &st.lay[1], &stacks[1]);
	n = vsteer_flow_variants(plan, &stacks[inner], inner == st.tunnel,
				 st.tunnel, plan->var);
	for (i = 0; i < n; i++) {
		ret = xl_emit_rule(&st, &plan->var[i], &plan->rules[i], error);
		if (ret < 0)
			goto fail;
	}
	plan->n_rules = n;
	return 0;
fail:
	plan->n_rules = 0;
	return ret;
}

/*
 */

static const char *
xl_spec_name(uint32_t type)
{
	switch (type & ~IBV_FLOW_SPEC_INNER) {
	case IBV_FLOW_SPEC_ETH:
		return "ETH";
	case IBV_FLOW_SPEC_IPV4:
		return "IPV4";
	case IBV_FLOW_SPEC_IPV6:
		return "IPV6";
	case IBV_FLOW_SPEC_IPV4_EXT:
		return "IPV4_EXT";
	case IBV_FLOW_SPEC_ESP:
		return "ESP";
	case IBV_FLOW_SPEC_TCP:
		return "TCP";
	case IBV_FLOW_SPEC_UDP:
		return "UDP";
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		return "VXLAN_TUNNEL";
	case IBV_FLOW_SPEC_GRE:
		return "GRE";
	case IBV_FLOW_SPEC_MPLS:
		return "MPLS";
	case IBV_FLOW_SPEC_ACTION_TAG:
		return "ACTION_TAG";
	case IBV_FLOW_SPEC_ACTION_DROP:
		return "ACTION_DROP";
	case IBV_FLOW_SPEC_ACTION_HANDLE:
		return "ACTION_HANDLE";
	case IBV_FLOW_SPEC_ACTION_COUNT:
		return "ACTION_COUNT";
	default:
		return "unknown";
	}
}

static void
xl_dump_hex(FILE *f, const uint8_t *p, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		if (i % 16 == 0)
			fprintf(f, "%s      %04zx:", i ? "\n" : "", i);
		fprintf(f, " %02x", p[i]);
	}
	fprintf(f, "\n");
}

static void
xl_dump_mac(FILE *f, const char *name, const uint8_t *v, const uint8_t *m)
{
	fprintf(f,
		" %s %02x:%02x:%02x:%02x:%02x:%02x/%02x:%02x:%02x:%02x:%02x:%02x",
		name, v[0], v[1], v[2], v[3], v[4], v[5], m[0], m[1], m[2],
		m[3], m[4], m[5]);
}

static void
xl_dump_ip4(FILE *f, const char *name, uint32_t v, uint32_t m)
{
	char a[INET_ADDRSTRLEN], b[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &v, a, sizeof(a));
	inet_ntop(AF_INET, &m, b, sizeof(b));
	fprintf(f, " %s %s/%s", name, a, b);
}

static void
xl_dump_ip6(FILE *f, const char *name, const uint8_t *v, const uint8_t *m)
{
	char a[INET6_ADDRSTRLEN], b[INET6_ADDRSTRLEN];

	inet_ntop(AF_INET6, v, a, sizeof(a));
	inet_ntop(AF_INET6, m, b, sizeof(b));
	fprintf(f, " %s %s/%s", name, a, b);
}

/* Decode the fields of one spec, already copied to an aligned union. */
static void
xl_dump_fields(FILE *f, const struct ibv_flow_spec *s)
{
	switch (s->hdr.type & ~IBV_FLOW_SPEC_INNER) {
	case IBV_FLOW_SPEC_ETH:
		xl_dump_mac(f, "dst", s->eth.val.dst_mac, s->eth.mask.dst_mac);
		xl_dump_mac(f, "src", s->eth.val.src_mac, s->eth.mask.src_mac);
		fprintf(f, " ether_type 0x%04x/0x%04x vlan_tag 0x%04x/0x%04x",
			ntohs(s->eth.val.ether_type),
			ntohs(s->eth.mask.ether_type),
			ntohs(s->eth.val.vlan_tag),
			ntohs(s->eth.mask.vlan_tag));
		break;
	case IBV_FLOW_SPEC_IPV4:
		xl_dump_ip4(f, "src", s->ipv4.val.src_ip, s->ipv4.mask.src_ip);
		xl_dump_ip4(f, "dst", s->ipv4.val.dst_ip, s->ipv4.mask.dst_ip);
		break;
	case IBV_FLOW_SPEC_IPV4_EXT:
		xl_dump_ip4(f, "src", s->ipv4_ext.val.src_ip,
			    s->ipv4_ext.mask.src_ip);
		xl_dump_ip4(f, "dst", s->ipv4_ext.val.dst_ip,
			    s->ipv4_ext.mask.dst_ip);
		fprintf(f,
			" proto %u/0x%02x tos 0x%02x/0x%02x ttl %u/0x%02x flags 0x%02x/0x%02x",
			s->ipv4_ext.val.proto, s->ipv4_ext.mask.proto,
			s->ipv4_ext.val.tos, s->ipv4_ext.mask.tos,
			s->ipv4_ext.val.ttl, s->ipv4_ext.mask.ttl,
			s->ipv4_ext.val.flags, s->ipv4_ext.mask.flags);
		break;
	case IBV_FLOW_SPEC_IPV6:
		xl_dump_ip6(f, "src", s->ipv6.val.src_ip, s->ipv6.mask.src_ip);
		xl_dump_ip6(f, "dst", s->ipv6.val.dst_ip, s->ipv6.mask.dst_ip);
		fprintf(f,
			" flow_label 0x%05x/0x%05x next_hdr %u/0x%02x traffic_class 0x%02x/0x%02x hop_limit %u/0x%02x",
			ntohl(s->ipv6.val.flow_label),
			ntohl(s->ipv6.mask.flow_label), s->ipv6.val.next_hdr,
			s->ipv6.mask.next_hdr, s->ipv6.val.traffic_class,
			s->ipv6.mask.traffic_class, s->ipv6.val.hop_limit,
			s->ipv6.mask.hop_limit);
		break;
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP:
		fprintf(f, " src_port %u/0x%04x dst_port %u/0x%04x",
			ntohs(s->tcp_udp.val.src_port),
			ntohs(s->tcp_udp.mask.src_port),
			ntohs(s->tcp_udp.val.dst_port),
			ntohs(s->tcp_udp.mask.dst_port));
		break;
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		fprintf(f, " tunnel_id (vni) %u/0x%06x",
			ntohl(s->tunnel.val.tunnel_id),
			ntohl(s->tunnel.mask.tunnel_id));
		break;
	case IBV_FLOW_SPEC_GRE:
		fprintf(f,
			" c_ks_res0_ver 0x%04x/0x%04x protocol 0x%04x/0x%04x key 0x%08x/0x%08x",
			ntohs(s->gre.val.c_ks_res0_ver),
			ntohs(s->gre.mask.c_ks_res0_ver),
			ntohs(s->gre.val.protocol), ntohs(s->gre.mask.protocol),
			ntohl(s->gre.val.key), ntohl(s->gre.mask.key));
		break;
	case IBV_FLOW_SPEC_MPLS:
		fprintf(f,
			" label %u/0x%05x tc %u s %u ttl %u (word 0x%08x/0x%08x)",
			ntohl(s->mpls.val.label) >> 12,
			ntohl(s->mpls.mask.label) >> 12,
			(ntohl(s->mpls.val.label) >> 9) & 7,
			(ntohl(s->mpls.val.label) >> 8) & 1,
			ntohl(s->mpls.val.label) & 0xff,
			ntohl(s->mpls.val.label), ntohl(s->mpls.mask.label));
		break;
	case IBV_FLOW_SPEC_ESP:
		fprintf(f, " spi 0x%08x/0x%08x seq 0x%08x/0x%08x",
			ntohl(s->esp.val.spi), ntohl(s->esp.mask.spi),
			ntohl(s->esp.val.seq), ntohl(s->esp.mask.seq));
		break;
	case IBV_FLOW_SPEC_ACTION_TAG:
		fprintf(f, " tag_id 0x%06x%s", s->flow_tag.tag_id,
			s->flow_tag.tag_id == VSTEER_TAG_FLAG ? " (FLAG)" : "");
		break;
	case IBV_FLOW_SPEC_ACTION_COUNT:
		fprintf(f, " counters %p", (void *)s->flow_count.counters);
		break;
	default:
		break;
	}
}

/* Minimal size of each known spec, so a short one is not decoded. */
static uint16_t
xl_spec_min_size(uint32_t type)
{
	switch (type & ~IBV_FLOW_SPEC_INNER) {
	case IBV_FLOW_SPEC_ETH:
		return sizeof(struct ibv_flow_spec_eth);
	case IBV_FLOW_SPEC_IPV4:
		return sizeof(struct ibv_flow_spec_ipv4);
	case IBV_FLOW_SPEC_IPV4_EXT:
		return sizeof(struct ibv_flow_spec_ipv4_ext);
	case IBV_FLOW_SPEC_IPV6:
		return sizeof(struct ibv_flow_spec_ipv6);
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP:
		return sizeof(struct ibv_flow_spec_tcp_udp);
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		return sizeof(struct ibv_flow_spec_tunnel);
	case IBV_FLOW_SPEC_GRE:
		return sizeof(struct ibv_flow_spec_gre);
	case IBV_FLOW_SPEC_MPLS:
		return sizeof(struct ibv_flow_spec_mpls);
	case IBV_FLOW_SPEC_ESP:
		return sizeof(struct ibv_flow_spec_esp);
	case IBV_FLOW_SPEC_ACTION_TAG:
		return sizeof(struct ibv_flow_spec_action_tag);
	case IBV_FLOW_SPEC_ACTION_COUNT:
		return sizeof(struct ibv_flow_spec_counter_action);
	default:
		return UINT16_MAX;
	}
}

static const char *
xl_subprio_name(enum vsteer_subprio sub)
{
	switch (sub) {
	case VSTEER_SUBPRIO_L4:
		return "L4";
	case VSTEER_SUBPRIO_L3:
		return "L3";
	case VSTEER_SUBPRIO_L2:
		return "L2";
	default:
		return "?";
	}
}

void
vsteer_flow_verbs_dump(FILE *f, const struct vsteer_verbs_rule *rule)
{
	struct ibv_flow_attr attr;
	size_t off, size;
	unsigned int i;

	if (f == NULL || rule == NULL)
		return;
	size = RTE_MIN((size_t)rule->size, sizeof(rule->buf));
	if (size < sizeof(attr)) {
		fprintf(f, "  verbs rule: %zu bytes, too short for an attr\n",
			size);
		return;
	}
	memcpy(&attr, rule->buf, sizeof(attr));
	fprintf(f,
		"  verbs rule: %zu bytes, subprio %s, hash_fields 0x%" PRIx64
		"%s\n",
		size, xl_subprio_name(rule->subprio), rule->hash_fields,
		rule->count_off ? ", counter spec" : "");
	fprintf(f,
		"    attr: comp_mask 0x%x type %s size %u priority %u num_of_specs %u port %u flags 0x%x%s%s\n",
		attr.comp_mask,
		attr.type == IBV_FLOW_ATTR_NORMAL      ? "NORMAL" :
		attr.type == IBV_FLOW_ATTR_ALL_DEFAULT ? "ALL_DEFAULT" :
		attr.type == IBV_FLOW_ATTR_MC_DEFAULT  ? "MC_DEFAULT" :
		attr.type == IBV_FLOW_ATTR_SNIFFER     ? "SNIFFER" :
							 "unknown",
		attr.size, attr.priority, attr.num_of_specs, attr.port,
		attr.flags,
		(attr.flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP) ? " DONT_TRAP" :
							       "",
		(attr.flags & IBV_FLOW_ATTR_FLAGS_EGRESS) ? " EGRESS" : "");
	xl_dump_hex(f, rule->buf, sizeof(attr));
	off = sizeof(attr);
	for (i = 0; i < attr.num_of_specs; i++) {
		struct ibv_flow_spec s;
		uint32_t type;
		uint16_t len;

		if (off + 8 > size) {
			/* type and size are the first 8 bytes (enum + u16) */
			fprintf(f, "    spec[%u]: truncated at offset %zu\n", i,
				off);
			return;
		}
		memcpy(&type, rule->buf + off, sizeof(type));
		memcpy(&len, rule->buf + off + sizeof(type), sizeof(len));
		if (len < 8 || off + len > size) {
			fprintf(f, "    spec[%u]: bad size %u at offset %zu\n",
				i, len, off);
			return;
		}
		fprintf(f, "    spec[%u] @%zu %s%s (0x%x) size %u:", i, off,
			(type & IBV_FLOW_SPEC_INNER) ? "INNER " : "",
			xl_spec_name(type), type, len);
		if (len >= xl_spec_min_size(type) && len <= sizeof(s)) {
			memset(&s, 0, sizeof(s));
			memcpy(&s, rule->buf + off, len);
			xl_dump_fields(f, &s);
		}
		fprintf(f, "\n");
		xl_dump_hex(f, rule->buf + off, len);
		off += len;
	}
	if (off != size)
		fprintf(f, "    %zu trailing bytes\n", size - off);
}
