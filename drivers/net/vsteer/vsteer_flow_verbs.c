/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * rte_flow -> ibv_flow_attr + ibv_flow_spec_* translation.
 *
 * One walk serves validate and create: attributes, then the pattern
 * (table-driven, one row per item type), then the actions (one row per
 * action type), then the verbs rules are written. Nothing is allocated and
 * no device is called, so a failed translation leaves nothing behind.
 *
 * Pattern items first become "pending" specs (whole struct ibv_flow_spec
 * each) so that a later item can complete an earlier spec: VLAN folds into
 * the ETH spec before it, GRE_KEY into the GRE spec, a tunnel item implies
 * the UDP port or IP protocol that carries it. The pending specs are then
 * serialized once per verbs rule: the pattern's own, the specs an RSS
 * expansion adds, and the action specs (TAG, DROP, COUNT) in action order.
 *
 * Priority mapping. Each rte_flow priority level owns three consecutive
 * verbs priorities, one per sub-priority, so that inside a level a rule
 * matching deeper headers is tested first (rules overlapping at one
 * verbs priority have no defined order):
 *	verbs priority = 3 * rte priority + sub-priority
 *	sub-priority = 0 (L4: TCP, UDP, ESP), 1 (L3: IPv4, IPv6), 2 (L2)
 * taken from the deepest layer the rule matches. A pattern holding a
 * tunnel item counts as L4, except when RSS hashes the inner headers
 * (level >= 2): the inner stack decides, as every expanded rule differs
 * there. The device has max_verbs_prio + 1 priorities, so
 * (max_verbs_prio + 1) / 3 levels; the last is reserved for the driver's
 * default flows (ctx->internal), leaving levels - 1 to applications:
 * 16 verbs priorities -> 5 levels -> rte priorities 0..3, defaults at 4.
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
 * The GRE C/K/S/version bits cannot be matched (the mlx5 kernel refuses
 * any mask on them); a GRE_KEY item implies the K bit.
 *
 * IPv4 is written as IBV_FLOW_SPEC_IPV4 (24 bytes) when only addresses are
 * matched, as IBV_FLOW_SPEC_IPV4_EXT (32 bytes) when the protocol or TOS
 * is; rdma-core turns both into the same kernel spec.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_flow.h>
#include <rte_ip.h>

#include "vsteer_flow_verbs.h"

/* Pending specs of one pattern (the item graph allows about ten). */
#define XL_MAX_SPECS 16
/* Action specs: one TAG, one DROP, one COUNT. */
#define XL_MAX_ASPECS 4

#define XL_UDP_PORT_VXLAN 4789
#define XL_UDP_PORT_MPLS 6635
#define XL_MARK_MAX 0xfffff0u /* MARK ids above are reserved */
#define XL_TAG_FLAG 0xffffffu /* FLAG's tag; MARK id n is tag n + 1 */

/* Usual default Toeplitz key of mlx4/mlx5 (and of the Linux drivers). */
static const uint8_t xl_rss_key_default[VSTEER_RSS_KEY_LEN] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
	0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
	0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
	0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

/* RSS types per family and protocol (RTE_ETH_RSS_*). */
#define XL_RSS_IPV4_L3                              \
	(RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | \
	 RTE_ETH_RSS_NONFRAG_IPV4_OTHER)
#define XL_RSS_IPV4_TCP RTE_ETH_RSS_NONFRAG_IPV4_TCP
#define XL_RSS_IPV4_UDP RTE_ETH_RSS_NONFRAG_IPV4_UDP
#define XL_RSS_IPV6_L3                              \
	(RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_FRAG_IPV6 | \
	 RTE_ETH_RSS_NONFRAG_IPV6_OTHER | RTE_ETH_RSS_IPV6_EX)
#define XL_RSS_IPV6_TCP (RTE_ETH_RSS_NONFRAG_IPV6_TCP | RTE_ETH_RSS_IPV6_TCP_EX)
#define XL_RSS_IPV6_UDP (RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_IPV6_UDP_EX)
#define XL_RSS_L3 (XL_RSS_IPV4_L3 | XL_RSS_IPV6_L3)
#define XL_RSS_L4 \
	(XL_RSS_IPV4_TCP | XL_RSS_IPV4_UDP | XL_RSS_IPV6_TCP | XL_RSS_IPV6_UDP)
#define XL_RSS_MODS                                          \
	(RTE_ETH_RSS_L3_SRC_ONLY | RTE_ETH_RSS_L3_DST_ONLY | \
	 RTE_ETH_RSS_L4_SRC_ONLY | RTE_ETH_RSS_L4_DST_ONLY)
#define XL_RSS_ALL (XL_RSS_L3 | XL_RSS_L4 | RTE_ETH_RSS_ESP | XL_RSS_MODS)

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
	struct xl_pending aspecs[XL_MAX_ASPECS];
	unsigned int n_aspecs;
	struct xl_layers lay[2];
	bool tunnel; /* later items are inner */
	enum xl_tunnel tun_kind;
	int tun;  /* VXLAN / GRE spec */
	int mpls; /* MPLS spec */
	/* Actions seen, for the combination rules. */
	const struct rte_flow_action *fate_act;
	const struct rte_flow_action *tag_act;
	const struct rte_flow_action *count_act;
	const struct rte_flow_action *rss_act;
	uint32_t flags; /* IBV_FLOW_ATTR_FLAGS_* */
	uint16_t max_bytes;
};

/* Error messages name fields and limits, so they are formatted. */
static __thread char vsteer_flow_errmsg[256];

int
vsteer_flow_err(struct rte_flow_error *error, int code,
		enum rte_flow_error_type type, const void *cause,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(vsteer_flow_errmsg, sizeof(vsteer_flow_errmsg), fmt, ap);
	va_end(ap);
	return rte_flow_error_set(error, code, type, cause, vsteer_flow_errmsg);
}

/*
 * Pattern items: the table.
 */

/* A named byte range of an item struct, to name the field in errors. */
struct xl_field {
	const char *name;
	uint16_t off;
	uint16_t len;
};

#define XL_FIELD(t, n, m)                              \
	{                                              \
		n, offsetof(t, m), sizeof(((t *)0)->m) \
	}
/* The bit-fields after the header of some item structs (where the
 * compiler packs them is its business: take everything after hdr). */
#define XL_FIELD_TAIL(t, n)                                                  \
	{                                                                    \
		n, offsetof(t, hdr) + sizeof(((t *)0)->hdr),                 \
			sizeof(t) - offsetof(t, hdr) - sizeof(((t *)0)->hdr) \
	}

typedef int(xl_item_fn)(struct xl_state *st, const struct rte_flow_item *item,
			const void *val, const void *mask,
			struct rte_flow_error *error);

struct xl_item {
	const char *name;
	const void *mask_sup; /* bits the translation can match */
	const void *mask_def; /* rte_flow_item_X_mask */
	uint16_t mask_sz;
	uint16_t spec_type; /* IBV_FLOW_SPEC_* written (0: folded) */
	bool tunnel;	    /* items after it are inner */
	const struct xl_field *fields;
	const enum rte_flow_item_type *next; /* END-terminated */
	xl_item_fn *fn;
};

#define XL_NEXT(...)                                     \
	((const enum rte_flow_item_type[]){ __VA_ARGS__, \
					    RTE_FLOW_ITEM_TYPE_END })

/* Largest item struct, for the masked copy of a spec. */
union xl_item_buf {
	struct rte_flow_item_eth eth;
	struct rte_flow_item_vlan vlan;
	struct rte_flow_item_ipv4 ipv4;
	struct rte_flow_item_ipv6 ipv6;
	struct rte_flow_item_tcp tcp;
	struct rte_flow_item_udp udp;
	struct rte_flow_item_vxlan vxlan;
	struct rte_flow_item_gre gre;
	rte_be32_t gre_key;
	struct rte_flow_item_mpls mpls;
	struct rte_flow_item_esp esp;
	uint8_t raw[64];
};

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
	    const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_eth *v = val, *m = mask;
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_eth *eth;
	int idx;

	idx = xl_spec_add(st, IBV_FLOW_SPEC_ETH | xl_inner(st), sizeof(*eth),
			  item, error);
	if (idx < 0)
		return idx;
	eth = &st->specs[idx].spec.eth;
	memcpy(eth->val.dst_mac, v->dst.addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(eth->val.src_mac, v->src.addr_bytes, RTE_ETHER_ADDR_LEN);
	eth->val.ether_type = v->type;
	memcpy(eth->mask.dst_mac, m->dst.addr_bytes, RTE_ETHER_ADDR_LEN);
	memcpy(eth->mask.src_mac, m->src.addr_bytes, RTE_ETHER_ADDR_LEN);
	eth->mask.ether_type = m->type;
	l->l2 = idx;
	l->eth_item = item;
	return xl_gre_payload(st, RTE_ETHER_TYPE_TEB, item, "ETH", error);
}

static int
xl_item_vlan(struct xl_state *st, const struct rte_flow_item *item,
	     const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_vlan *v = val, *m = mask;
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_eth *eth;
	int ret;

	/* A rule without vlan_tag mask matches tagged and untagged frames. */
	if (m->tci == 0)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK, item,
			"VLAN item: empty TCI mask: verbs cannot match the presence of a tag alone");
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
	/* The ETH item's type is the TPID here; only 802.1Q is matched. */
	if (eth->mask.ether_type != 0 &&
	    (eth->mask.ether_type != RTE_BE16(0xffff) ||
	     eth->val.ether_type != RTE_BE16(RTE_ETHER_TYPE_VLAN)))
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_SPEC, item,
			"VLAN item: TPID 0x%04x (mask 0x%04x) of the ETH item not supported, only 0x8100",
			rte_be_to_cpu_16(eth->val.ether_type),
			rte_be_to_cpu_16(eth->mask.ether_type));
	eth->val.vlan_tag = v->tci;
	eth->mask.vlan_tag = m->tci;
	/* ether_type is the one after the last tag (ibv_create_flow(3)). */
	eth->val.ether_type = v->inner_type;
	eth->mask.ether_type = m->inner_type;
	l->vlan = true;
	return 0;
}

static int
xl_item_ipv4(struct xl_state *st, const struct rte_flow_item *item,
	     const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_ipv4 *v = val, *m = mask;
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_ipv4_ext *ip;
	int idx, ret;

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
	     const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_ipv6 *v = val, *m = mask;
	struct xl_layers *l = xl_cur(st);
	struct ibv_flow_spec_ipv6 *ip;
	uint32_t vtc_v, vtc_m;
	int idx, ret;

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
	/* vtc_flow = version(4) | traffic class(8) | flow label(20). */
	vtc_v = rte_be_to_cpu_32(v->hdr.vtc_flow);
	vtc_m = rte_be_to_cpu_32(m->hdr.vtc_flow);
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
	    const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_tcp *v = val, *m = mask;

	return xl_item_l4(st, item, IBV_FLOW_SPEC_TCP, IPPROTO_TCP, "TCP",
			  v->hdr.src_port, v->hdr.dst_port, m->hdr.src_port,
			  m->hdr.dst_port, error);
}

static int
xl_item_udp(struct xl_state *st, const struct rte_flow_item *item,
	    const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_udp *v = val, *m = mask;

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
	      const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_vxlan *v = val, *m = mask;
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
	    const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_gre *v = val, *m = mask;
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
	/* c_rsvd0_ver is not in the supported mask: left zero. */
	gre->val.protocol = v->protocol;
	gre->mask.protocol = m->protocol;
	st->tunnel = true;
	st->tun_kind = XL_TUN_GRE;
	st->tun = idx;
	return 0;
}

static int
xl_item_gre_key(struct xl_state *st, const struct rte_flow_item *item,
		const void *val, const void *mask, struct rte_flow_error *error)
{
	const rte_be32_t *v = val, *m = mask;
	struct ibv_flow_spec_gre *gre = &st->specs[st->tun].spec.gre;

	RTE_SET_USED(item);
	RTE_SET_USED(error);
	/* The K bit is implied by the device parsing a key at all. */
	gre->val.key = *v;
	gre->mask.key = *m;
	return 0;
}

static int
xl_item_mpls(struct xl_state *st, const struct rte_flow_item *item,
	     const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_mpls *v = val, *m = mask;
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
	memcpy(&mpls->val.label, v, sizeof(mpls->val.label));
	memcpy(&mpls->mask.label, m, sizeof(mpls->mask.label));
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
	    const void *val, const void *mask, struct rte_flow_error *error)
{
	const struct rte_flow_item_esp *v = val, *m = mask;
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
	esp->val.spi = v->hdr.spi;
	esp->mask.spi = m->hdr.spi;
	l->l4 = idx;
	l->l4p = IPPROTO_ESP;
	return 0;
}

/* Supported masks: what each spec can carry and the device can match. */
static const struct rte_flow_item_eth xl_eth_sup = {
	.dst.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	.src.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	.type = RTE_BE16(0xffff),
};

static const struct rte_flow_item_vlan xl_vlan_sup = {
	.tci = RTE_BE16(0xffff),
	.inner_type = RTE_BE16(0xffff),
};

static const struct rte_flow_item_ipv4 xl_ipv4_sup = {
	.hdr = {
		.type_of_service = 0xff,
		.next_proto_id = 0xff,
		.src_addr = RTE_BE32(0xffffffff),
		.dst_addr = RTE_BE32(0xffffffff),
	},
};

static const struct rte_flow_item_ipv6 xl_ipv6_sup = {
	.hdr = {
		/* traffic class and flow label, not the version */
		.vtc_flow = RTE_BE32(0x0fffffff),
		.proto = 0xff,
		.src_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
		.dst_addr = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
			      0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	},
};

static const struct rte_flow_item_tcp xl_tcp_sup = {
	.hdr = {
		.src_port = RTE_BE16(0xffff),
		.dst_port = RTE_BE16(0xffff),
	},
};

static const struct rte_flow_item_udp xl_udp_sup = {
	.hdr = {
		.src_port = RTE_BE16(0xffff),
		.dst_port = RTE_BE16(0xffff),
	},
};

static const struct rte_flow_item_vxlan xl_vxlan_sup = {
	.vni = { 0xff, 0xff, 0xff },
};

static const struct rte_flow_item_gre xl_gre_sup = {
	.protocol = RTE_BE16(0xffff),
};

static const rte_be32_t xl_gre_key_sup = RTE_BE32(0xffffffff);
/* rte_flow.h documents a full default mask but defines none. */
static const rte_be32_t xl_gre_key_def = RTE_BE32(0xffffffff);

static const struct rte_flow_item_mpls xl_mpls_sup = {
	.label_tc_s = { 0xff, 0xff, 0xff },
};

static const struct rte_flow_item_esp xl_esp_sup = {
	.hdr = {
		.spi = RTE_BE32(0xffffffff),
	},
};

#define XL_END             \
	{                  \
		NULL, 0, 0 \
	}

static const struct xl_field xl_eth_fields[] = {
	XL_FIELD(struct rte_flow_item_eth, "dst", dst),
	XL_FIELD(struct rte_flow_item_eth, "src", src),
	XL_FIELD(struct rte_flow_item_eth, "type", type),
	XL_FIELD_TAIL(struct rte_flow_item_eth, "has_vlan"),
	XL_END,
};

static const struct xl_field xl_vlan_fields[] = {
	XL_FIELD(struct rte_flow_item_vlan, "tci", tci),
	XL_FIELD(struct rte_flow_item_vlan, "inner_type", inner_type),
	XL_FIELD_TAIL(struct rte_flow_item_vlan, "has_more_vlan"),
	XL_END,
};

static const struct xl_field xl_ipv4_fields[] = {
	XL_FIELD(struct rte_flow_item_ipv4, "version_ihl", hdr.version_ihl),
	XL_FIELD(struct rte_flow_item_ipv4, "type_of_service",
		 hdr.type_of_service),
	XL_FIELD(struct rte_flow_item_ipv4, "total_length", hdr.total_length),
	XL_FIELD(struct rte_flow_item_ipv4, "packet_id", hdr.packet_id),
	XL_FIELD(struct rte_flow_item_ipv4, "fragment_offset",
		 hdr.fragment_offset),
	XL_FIELD(struct rte_flow_item_ipv4, "time_to_live", hdr.time_to_live),
	XL_FIELD(struct rte_flow_item_ipv4, "next_proto_id", hdr.next_proto_id),
	XL_FIELD(struct rte_flow_item_ipv4, "hdr_checksum", hdr.hdr_checksum),
	XL_FIELD(struct rte_flow_item_ipv4, "src_addr", hdr.src_addr),
	XL_FIELD(struct rte_flow_item_ipv4, "dst_addr", hdr.dst_addr),
	XL_END,
};

static const struct xl_field xl_ipv6_fields[] = {
	/* Only the version bits of vtc_flow's first byte are refused. */
	{ "version", offsetof(struct rte_flow_item_ipv6, hdr.vtc_flow), 1 },
	XL_FIELD(struct rte_flow_item_ipv6, "vtc_flow", hdr.vtc_flow),
	XL_FIELD(struct rte_flow_item_ipv6, "payload_len", hdr.payload_len),
	XL_FIELD(struct rte_flow_item_ipv6, "proto", hdr.proto),
	XL_FIELD(struct rte_flow_item_ipv6, "hop_limits", hdr.hop_limits),
	XL_FIELD(struct rte_flow_item_ipv6, "src_addr", hdr.src_addr),
	XL_FIELD(struct rte_flow_item_ipv6, "dst_addr", hdr.dst_addr),
	XL_FIELD_TAIL(struct rte_flow_item_ipv6, "extension header flags"),
	XL_END,
};

static const struct xl_field xl_tcp_fields[] = {
	XL_FIELD(struct rte_flow_item_tcp, "src_port", hdr.src_port),
	XL_FIELD(struct rte_flow_item_tcp, "dst_port", hdr.dst_port),
	XL_FIELD(struct rte_flow_item_tcp, "sent_seq", hdr.sent_seq),
	XL_FIELD(struct rte_flow_item_tcp, "recv_ack", hdr.recv_ack),
	XL_FIELD(struct rte_flow_item_tcp, "data_off", hdr.data_off),
	XL_FIELD(struct rte_flow_item_tcp, "tcp_flags", hdr.tcp_flags),
	XL_FIELD(struct rte_flow_item_tcp, "rx_win", hdr.rx_win),
	XL_FIELD(struct rte_flow_item_tcp, "cksum", hdr.cksum),
	XL_FIELD(struct rte_flow_item_tcp, "tcp_urp", hdr.tcp_urp),
	XL_END,
};

static const struct xl_field xl_udp_fields[] = {
	XL_FIELD(struct rte_flow_item_udp, "src_port", hdr.src_port),
	XL_FIELD(struct rte_flow_item_udp, "dst_port", hdr.dst_port),
	XL_FIELD(struct rte_flow_item_udp, "dgram_len", hdr.dgram_len),
	XL_FIELD(struct rte_flow_item_udp, "dgram_cksum", hdr.dgram_cksum),
	XL_END,
};

static const struct xl_field xl_vxlan_fields[] = {
	XL_FIELD(struct rte_flow_item_vxlan, "flags", flags),
	XL_FIELD(struct rte_flow_item_vxlan, "rsvd0", rsvd0),
	XL_FIELD(struct rte_flow_item_vxlan, "vni", vni),
	XL_FIELD(struct rte_flow_item_vxlan, "rsvd1", rsvd1),
	XL_END,
};

static const struct xl_field xl_gre_fields[] = {
	XL_FIELD(struct rte_flow_item_gre, "c_rsvd0_ver", c_rsvd0_ver),
	XL_FIELD(struct rte_flow_item_gre, "protocol", protocol),
	XL_END,
};

static const struct xl_field xl_gre_key_fields[] = {
	{ "key", 0, sizeof(rte_be32_t) },
	XL_END,
};

static const struct xl_field xl_mpls_fields[] = {
	XL_FIELD(struct rte_flow_item_mpls, "label_tc_s", label_tc_s),
	XL_FIELD(struct rte_flow_item_mpls, "ttl", ttl),
	XL_END,
};

static const struct xl_field xl_esp_fields[] = {
	XL_FIELD(struct rte_flow_item_esp, "spi", hdr.spi),
	XL_FIELD(struct rte_flow_item_esp, "seq", hdr.seq),
	XL_END,
};

/* What may start a pattern (and start the stack inside a tunnel). */
static const struct xl_item xl_item_root = {
	.name = "start of pattern",
	.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_ETH, RTE_FLOW_ITEM_TYPE_VLAN,
			RTE_FLOW_ITEM_TYPE_IPV4, RTE_FLOW_ITEM_TYPE_IPV6),
};

#define XL_ITEM_MASKS(type, sup, def) \
	.mask_sup = (sup), .mask_def = (def), .mask_sz = sizeof(type)

/* Adding an item is adding a row. */
static const struct xl_item xl_items[] = {
	[RTE_FLOW_ITEM_TYPE_ETH] = {
		.name = "ETH",
		XL_ITEM_MASKS(struct rte_flow_item_eth, &xl_eth_sup,
			      &rte_flow_item_eth_mask),
		.spec_type = IBV_FLOW_SPEC_ETH,
		.fields = xl_eth_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_VLAN,
				RTE_FLOW_ITEM_TYPE_IPV4,
				RTE_FLOW_ITEM_TYPE_IPV6),
		.fn = xl_item_eth,
	},
	[RTE_FLOW_ITEM_TYPE_VLAN] = {
		.name = "VLAN",
		XL_ITEM_MASKS(struct rte_flow_item_vlan, &xl_vlan_sup,
			      &rte_flow_item_vlan_mask),
		.spec_type = 0, /* folded into the ETH spec */
		.fields = xl_vlan_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_IPV4,
				RTE_FLOW_ITEM_TYPE_IPV6),
		.fn = xl_item_vlan,
	},
	[RTE_FLOW_ITEM_TYPE_IPV4] = {
		.name = "IPv4",
		XL_ITEM_MASKS(struct rte_flow_item_ipv4, &xl_ipv4_sup,
			      &rte_flow_item_ipv4_mask),
		.spec_type = IBV_FLOW_SPEC_IPV4_EXT,
		.fields = xl_ipv4_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_TCP, RTE_FLOW_ITEM_TYPE_UDP,
				RTE_FLOW_ITEM_TYPE_GRE, RTE_FLOW_ITEM_TYPE_ESP),
		.fn = xl_item_ipv4,
	},
	[RTE_FLOW_ITEM_TYPE_IPV6] = {
		.name = "IPv6",
		XL_ITEM_MASKS(struct rte_flow_item_ipv6, &xl_ipv6_sup,
			      &rte_flow_item_ipv6_mask),
		.spec_type = IBV_FLOW_SPEC_IPV6,
		.fields = xl_ipv6_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_TCP, RTE_FLOW_ITEM_TYPE_UDP,
				RTE_FLOW_ITEM_TYPE_GRE, RTE_FLOW_ITEM_TYPE_ESP),
		.fn = xl_item_ipv6,
	},
	[RTE_FLOW_ITEM_TYPE_TCP] = {
		.name = "TCP",
		XL_ITEM_MASKS(struct rte_flow_item_tcp, &xl_tcp_sup,
			      &rte_flow_item_tcp_mask),
		.spec_type = IBV_FLOW_SPEC_TCP,
		.fields = xl_tcp_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_END),
		.fn = xl_item_tcp,
	},
	[RTE_FLOW_ITEM_TYPE_UDP] = {
		.name = "UDP",
		XL_ITEM_MASKS(struct rte_flow_item_udp, &xl_udp_sup,
			      &rte_flow_item_udp_mask),
		.spec_type = IBV_FLOW_SPEC_UDP,
		.fields = xl_udp_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_VXLAN,
				RTE_FLOW_ITEM_TYPE_MPLS),
		.fn = xl_item_udp,
	},
	[RTE_FLOW_ITEM_TYPE_VXLAN] = {
		.name = "VXLAN",
		XL_ITEM_MASKS(struct rte_flow_item_vxlan, &xl_vxlan_sup,
			      &rte_flow_item_vxlan_mask),
		.spec_type = IBV_FLOW_SPEC_VXLAN_TUNNEL,
		.tunnel = true,
		.fields = xl_vxlan_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_ETH,
				RTE_FLOW_ITEM_TYPE_IPV4,
				RTE_FLOW_ITEM_TYPE_IPV6),
		.fn = xl_item_vxlan,
	},
	[RTE_FLOW_ITEM_TYPE_GRE] = {
		.name = "GRE",
		XL_ITEM_MASKS(struct rte_flow_item_gre, &xl_gre_sup,
			      &rte_flow_item_gre_mask),
		.spec_type = IBV_FLOW_SPEC_GRE,
		.tunnel = true,
		.fields = xl_gre_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_GRE_KEY,
				RTE_FLOW_ITEM_TYPE_MPLS,
				RTE_FLOW_ITEM_TYPE_ETH,
				RTE_FLOW_ITEM_TYPE_IPV4,
				RTE_FLOW_ITEM_TYPE_IPV6),
		.fn = xl_item_gre,
	},
	[RTE_FLOW_ITEM_TYPE_GRE_KEY] = {
		.name = "GRE_KEY",
		XL_ITEM_MASKS(rte_be32_t, &xl_gre_key_sup, &xl_gre_key_def),
		.spec_type = 0, /* folded into the GRE spec */
		.fields = xl_gre_key_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_MPLS,
				RTE_FLOW_ITEM_TYPE_ETH,
				RTE_FLOW_ITEM_TYPE_IPV4,
				RTE_FLOW_ITEM_TYPE_IPV6),
		.fn = xl_item_gre_key,
	},
	[RTE_FLOW_ITEM_TYPE_MPLS] = {
		.name = "MPLS",
		XL_ITEM_MASKS(struct rte_flow_item_mpls, &xl_mpls_sup,
			      &rte_flow_item_mpls_mask),
		.spec_type = IBV_FLOW_SPEC_MPLS,
		.tunnel = true,
		.fields = xl_mpls_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_ETH,
				RTE_FLOW_ITEM_TYPE_IPV4,
				RTE_FLOW_ITEM_TYPE_IPV6),
		.fn = xl_item_mpls,
	},
	[RTE_FLOW_ITEM_TYPE_ESP] = {
		.name = "ESP",
		XL_ITEM_MASKS(struct rte_flow_item_esp, &xl_esp_sup,
			      &rte_flow_item_esp_mask),
		.spec_type = IBV_FLOW_SPEC_ESP,
		.fields = xl_esp_fields,
		.next = XL_NEXT(RTE_FLOW_ITEM_TYPE_END),
		.fn = xl_item_esp,
	},
};

static const struct xl_item *
xl_item_row(enum rte_flow_item_type type)
{
	if ((unsigned int)type >= RTE_DIM(xl_items) ||
	    xl_items[type].fn == NULL)
		return NULL;
	return &xl_items[type];
}

static bool
xl_item_follows(const struct xl_item *prev, enum rte_flow_item_type type)
{
	const enum rte_flow_item_type *n;

	for (n = prev->next; *n != RTE_FLOW_ITEM_TYPE_END; n++)
		if (*n == type)
			return true;
	return false;
}

static const char *
xl_field_name(const struct xl_item *row, size_t off)
{
	const struct xl_field *f;

	for (f = row->fields; f != NULL && f->name != NULL; f++)
		if (off >= f->off && off < (size_t)f->off + f->len)
			return f->name;
	return "reserved bits";
}

static const char *
xl_item_type_name(enum rte_flow_item_type type)
{
	const char *name = NULL;

	if ((int)type < 0 ||
	    rte_flow_conv(RTE_FLOW_CONV_OP_ITEM_NAME_PTR, &name, sizeof(name),
			  (void *)(uintptr_t)type, NULL) <= 0 ||
	    name == NULL)
		return "unknown";
	return name;
}

static const char *
xl_action_type_name(enum rte_flow_action_type type)
{
	const char *name = NULL;

	if ((int)type < 0 ||
	    rte_flow_conv(RTE_FLOW_CONV_OP_ACTION_NAME_PTR, &name, sizeof(name),
			  (void *)(uintptr_t)type, NULL) <= 0 ||
	    name == NULL)
		return "unknown";
	return name;
}

/*
 * Generic checks of one item (mask subset of the supported mask, no
 * range, no mask or last without spec), then the masked value and the
 * effective mask go to the row's handler.
 */
static int
xl_item_one(struct xl_state *st, const struct xl_item *row,
	    const struct rte_flow_item *item, struct rte_flow_error *error)
{
	const uint8_t *sup = row->mask_sup;
	const uint8_t *mask, *spec = item->spec, *last = item->last;
	union xl_item_buf val;
	size_t i;

	RTE_BUILD_BUG_ON(sizeof(struct rte_flow_item_ipv6) > sizeof(val.raw));
	if (spec == NULL && (item->mask != NULL || last != NULL))
		return vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
				       item,
				       "%s item: mask or last given without spec",
				       row->name);
	mask = item->mask != NULL ? item->mask : row->mask_def;
	for (i = 0; i < row->mask_sz; i++)
		if (mask[i] & ~sup[i])
			return vsteer_flow_err(error, ENOTSUP,
					       RTE_FLOW_ERROR_TYPE_ITEM_MASK,
					       item,
					       "%s item: mask on %s not supported",
					       row->name,
					       xl_field_name(row, i));
	memset(&val, 0, sizeof(val));
	if (spec == NULL) {
		/* No spec: any header of this type, whatever its fields. */
		return row->fn(st, item, &val, &val, error);
	}
	for (i = 0; i < row->mask_sz; i++) {
		if (last != NULL && (last[i] & mask[i]) != (spec[i] & mask[i]))
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_LAST,
				item,
				"%s item: ranges are not supported (last differs from spec on %s)",
				row->name, xl_field_name(row, i));
		/* Values are written ANDed with their masks. */
		val.raw[i] = spec[i] & mask[i];
	}
	return row->fn(st, item, &val, mask, error);
}

static int
xl_walk_items(struct xl_state *st, const struct rte_flow_item pattern[],
	      struct rte_flow_error *error)
{
	const struct xl_item *prev = &xl_item_root;
	const struct rte_flow_item *item;
	unsigned int l;
	int ret;

	for (item = pattern; item->type != RTE_FLOW_ITEM_TYPE_END; item++) {
		const struct xl_item *row;

		if (item->type == RTE_FLOW_ITEM_TYPE_VOID)
			continue;
		row = xl_item_row(item->type);
		if (row == NULL)
			return vsteer_flow_err(error, ENOTSUP,
					       RTE_FLOW_ERROR_TYPE_ITEM, item,
					       "item type %d (%s) not supported",
					       (int)item->type,
					       xl_item_type_name(item->type));
		if (!xl_item_follows(prev, item->type))
			return vsteer_flow_err(error, ENOTSUP,
					       RTE_FLOW_ERROR_TYPE_ITEM, item,
					       "%s item cannot follow %s%s",
					       row->name, prev->name,
					       prev == &xl_item_root ? "" :
								       " item");
		if (row->tunnel && st->tunnel &&
		    (st->lay[1].l2 >= 0 || st->lay[1].l3 >= 0))
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
				"%s item: nested tunnels are not supported",
				row->name);
		ret = xl_item_one(st, row, item, error);
		if (ret < 0)
			return ret;
		prev = row;
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
	/* A TPID as ETH type with no VLAN item would never match. */
	for (l = 0; l < RTE_DIM(st->lay); l++) {
		const struct xl_layers *ly = &st->lay[l];
		const struct ibv_flow_spec_eth *eth;

		if (ly->l2 < 0 || ly->vlan || ly->eth_item == NULL)
			continue;
		eth = &st->specs[ly->l2].spec.eth;
		if (eth->mask.ether_type == RTE_BE16(0xffff) &&
		    (eth->val.ether_type == RTE_BE16(RTE_ETHER_TYPE_VLAN) ||
		     eth->val.ether_type == RTE_BE16(RTE_ETHER_TYPE_QINQ)))
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_SPEC,
				ly->eth_item,
				"ETH item: type 0x%04x is a VLAN TPID: match the tag with a VLAN item",
				rte_be_to_cpu_16(eth->val.ether_type));
	}
	return 0;
}

/*
 * Actions.
 */

typedef int(xl_action_fn)(struct xl_state *st,
			  const struct rte_flow_action *act,
			  struct rte_flow_error *error);

struct xl_action {
	const char *name;
	bool egress; /* allowed on egress rules */
	xl_action_fn *fn;
};

static const char *
xl_fate_name(enum vsteer_fate fate)
{
	switch (fate) {
	case VSTEER_FATE_QUEUE:
		return "QUEUE";
	case VSTEER_FATE_RSS:
		return "RSS";
	case VSTEER_FATE_DROP:
		return "DROP";
	case VSTEER_FATE_PASSTHRU:
		return "PASSTHRU";
	default:
		return "none";
	}
}

static int
xl_set_fate(struct xl_state *st, const struct rte_flow_action *act,
	    enum vsteer_fate fate, struct rte_flow_error *error)
{
	if (st->plan->fate != VSTEER_FATE_NONE)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: a flow takes one fate action, %s already given",
			xl_fate_name(fate), xl_fate_name(st->plan->fate));
	st->plan->fate = fate;
	st->fate_act = act;
	return 0;
}

static int
xl_aspec_add(struct xl_state *st, const struct ibv_flow_spec *spec,
	     const struct rte_flow_action *act)
{
	struct xl_pending *p = &st->aspecs[st->n_aspecs++];

	/* Bounded: one TAG, one DROP and one COUNT at most. */
	RTE_VERIFY(st->n_aspecs <= XL_MAX_ASPECS);
	memset(p, 0, sizeof(*p));
	memcpy(&p->spec, spec, spec->hdr.size);
	p->cause = act;
	p->cause_type = RTE_FLOW_ERROR_TYPE_ACTION;
	return 0;
}

static int
xl_act_queue(struct xl_state *st, const struct rte_flow_action *act,
	     struct rte_flow_error *error)
{
	const struct rte_flow_action_queue *q = act->conf;
	struct vsteer_flow_plan *plan = st->plan;
	int ret;

	ret = xl_set_fate(st, act, VSTEER_FATE_QUEUE, error);
	if (ret < 0)
		return ret;
	if (q == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "QUEUE action: no configuration");
	if (q->index >= st->ctx->nb_rx_queues)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"QUEUE action: queue index %u out of range (%u Rx queues configured)",
			q->index, st->ctx->nb_rx_queues);
	plan->queues[0] = q->index;
	plan->queue_num = 1;
	return 0;
}

static int
xl_rss_types(struct xl_state *st, const struct rte_flow_action *act,
	     uint64_t types, struct rte_flow_error *error)
{
	uint64_t bad = types & ~XL_RSS_ALL;

	if (bad != 0)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: types 0x%" PRIx64
			" not supported (IPv4/IPv6, TCP, UDP, ESP, L3/L4 SRC/DST_ONLY)",
			bad);
	bad = types & ~XL_RSS_MODS & ~st->ctx->rss_hf_supported;
	if (bad != 0)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: types 0x%" PRIx64
			" not supported by the device (supported 0x%" PRIx64
			")",
			bad, st->ctx->rss_hf_supported);
	if ((types & RTE_ETH_RSS_L3_SRC_ONLY) &&
	    (types & RTE_ETH_RSS_L3_DST_ONLY))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: L3_SRC_ONLY and L3_DST_ONLY are exclusive");
	if ((types & RTE_ETH_RSS_L4_SRC_ONLY) &&
	    (types & RTE_ETH_RSS_L4_DST_ONLY))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: L4_SRC_ONLY and L4_DST_ONLY are exclusive");
	if ((types & (RTE_ETH_RSS_L3_SRC_ONLY | RTE_ETH_RSS_L3_DST_ONLY)) &&
	    !(types & (XL_RSS_L3 | XL_RSS_L4)))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: L3_SRC_ONLY/L3_DST_ONLY without an IPv4 or IPv6 type");
	if ((types & (RTE_ETH_RSS_L4_SRC_ONLY | RTE_ETH_RSS_L4_DST_ONLY)) &&
	    !(types & XL_RSS_L4))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: L4_SRC_ONLY/L4_DST_ONLY without a TCP or UDP type");
	return 0;
}

static int
xl_act_rss(struct xl_state *st, const struct rte_flow_action *act,
	   struct rte_flow_error *error)
{
	const struct rte_flow_action_rss *rss = act->conf;
	const struct vsteer_xlate_ctx *ctx = st->ctx;
	struct vsteer_flow_plan *plan = st->plan;
	uint64_t types;
	uint32_t i;
	int ret;

	ret = xl_set_fate(st, act, VSTEER_FATE_RSS, error);
	if (ret < 0)
		return ret;
	if (rss == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "RSS action: no configuration");
	if (rss->func != RTE_ETH_HASH_FUNCTION_DEFAULT &&
	    rss->func != RTE_ETH_HASH_FUNCTION_TOEPLITZ)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: hash function %d not supported, only Toeplitz",
			(int)rss->func);
	if (rss->level > 2)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: level %u not supported (0 or 1 outer, 2 inner)",
			rss->level);
	if (rss->level == 2 && !ctx->inner_rss_ok)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: level 2 (inner) not supported by the device");
	if (rss->key_len == 0) {
		memcpy(plan->rss_key,
		       ctx->rss_key_default != NULL ? ctx->rss_key_default :
						      xl_rss_key_default,
		       VSTEER_RSS_KEY_LEN);
	} else if (rss->key_len != VSTEER_RSS_KEY_LEN) {
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: key length %u not supported, must be 0 (default key) or %u",
			rss->key_len, VSTEER_RSS_KEY_LEN);
	} else if (rss->key == NULL) {
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "RSS action: key length %u with no key",
				       rss->key_len);
	} else {
		memcpy(plan->rss_key, rss->key, VSTEER_RSS_KEY_LEN);
	}
	if (rss->queue_num == 0 || rss->queue == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "RSS action: no queue given");
	if (rss->queue_num > RTE_DIM(plan->queues))
		return vsteer_flow_err(error, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "RSS action: %u queues, at most %u",
				       rss->queue_num,
				       (unsigned int)RTE_DIM(plan->queues));
	/* Repeated queues are kept: they weigh the indirection table. */
	for (i = 0; i < rss->queue_num; i++) {
		if (rss->queue[i] >= ctx->nb_rx_queues)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				act,
				"RSS action: queue[%u] index %u out of range (%u Rx queues configured)",
				i, rss->queue[i], ctx->nb_rx_queues);
		plan->queues[i] = rss->queue[i];
	}
	plan->queue_num = rss->queue_num;
	types = rss->types != 0 ? rss->types : ctx->rss_hf_default;
	ret = xl_rss_types(st, act, types, error);
	if (ret < 0)
		return ret;
	plan->rss_types = types;
	plan->rss_level = rss->level;
	st->rss_act = act;
	return 0;
}

static int
xl_act_drop(struct xl_state *st, const struct rte_flow_action *act,
	    struct rte_flow_error *error)
{
	struct ibv_flow_spec
		spec = { .drop = {
				 .type = IBV_FLOW_SPEC_ACTION_DROP,
				 .size = sizeof(
					 struct ibv_flow_spec_action_drop),
			 } };
	int ret;

	ret = xl_set_fate(st, act, VSTEER_FATE_DROP, error);
	if (ret < 0)
		return ret;
	if (st->tag_act != NULL)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"DROP action: cannot be combined with MARK or FLAG");
	return xl_aspec_add(st, &spec, act);
}

static int
xl_act_passthru(struct xl_state *st, const struct rte_flow_action *act,
		struct rte_flow_error *error)
{
	int ret;

	ret = xl_set_fate(st, act, VSTEER_FATE_PASSTHRU, error);
	if (ret < 0)
		return ret;
	if (st->tag_act != NULL)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"PASSTHRU action: cannot be combined with MARK or FLAG (the frame that goes on is not tagged)");
	st->flags |= IBV_FLOW_ATTR_FLAGS_DONT_TRAP;
	return 0;
}

static int
xl_tag(struct xl_state *st, const struct rte_flow_action *act, const char *what,
       uint32_t tag, struct rte_flow_error *error)
{
	struct ibv_flow_spec
		spec = { .flow_tag = {
				 .type = IBV_FLOW_SPEC_ACTION_TAG,
				 .size = sizeof(struct ibv_flow_spec_action_tag),
				 .tag_id = tag,
			 } };

	if (!st->ctx->tag_ok)
		return vsteer_flow_err(error, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION, act,
				       "%s action: the device has no flow tags",
				       what);
	if (st->tag_act != NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION, act,
				       "%s action: only one MARK or FLAG per flow",
				       what);
	if (st->plan->fate == VSTEER_FATE_DROP)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION, act,
				       "%s action: cannot be combined with DROP",
				       what);
	if (st->plan->fate == VSTEER_FATE_PASSTHRU)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: cannot be combined with PASSTHRU (the frame that goes on is not tagged)",
			what);
	st->tag_act = act;
	return xl_aspec_add(st, &spec, act);
}

static int
xl_act_mark(struct xl_state *st, const struct rte_flow_action *act,
	    struct rte_flow_error *error)
{
	const struct rte_flow_action_mark *mark = act->conf;
	int ret;

	if (mark == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "MARK action: no configuration");
	if (mark->id >= XL_MARK_MAX)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"MARK action: id %u out of range, must be below 0x%x",
			mark->id, XL_MARK_MAX);
	/* Tag 0 means "no tag" in completions. */
	ret = xl_tag(st, act, "MARK", mark->id + 1, error);
	if (ret < 0)
		return ret;
	st->plan->mark = true;
	st->plan->mark_id = mark->id;
	return 0;
}

static int
xl_act_flag(struct xl_state *st, const struct rte_flow_action *act,
	    struct rte_flow_error *error)
{
	int ret;

	ret = xl_tag(st, act, "FLAG", XL_TAG_FLAG, error);
	if (ret < 0)
		return ret;
	st->plan->flag = true;
	return 0;
}

static int
xl_count(struct xl_state *st, const struct rte_flow_action *act,
	 const char *what, struct rte_flow_error *error)
{
	/* Placeholder: the counters pointer is filled when applied. */
	struct ibv_flow_spec
		spec = { .flow_count = {
				 .type = IBV_FLOW_SPEC_ACTION_COUNT,
				 .size = sizeof(
					 struct ibv_flow_spec_counter_action),
				 .counters = NULL,
			 } };

	if (!st->ctx->count_ok)
		return vsteer_flow_err(error, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION, act,
				       "%s action: the device has no flow counters",
				       what);
	if (st->count_act != NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION, act,
				       "%s action: only one COUNT per flow",
				       what);
	st->count_act = act;
	return xl_aspec_add(st, &spec, act);
}

static int
xl_act_count(struct xl_state *st, const struct rte_flow_action *act,
	     struct rte_flow_error *error)
{
	const struct rte_flow_action_count *c = act->conf;
	int ret;

	ret = xl_count(st, act, "COUNT", error);
	if (ret < 0)
		return ret;
	st->plan->count = true;
	st->plan->count_id = c != NULL ? c->id : 0;
	return 0;
}

static int
xl_act_indirect(struct xl_state *st, const struct rte_flow_action *act,
		struct rte_flow_error *error)
{
	int ret;

	/* The flow layer checks that the handle is a COUNT one. */
	if (act->conf == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "INDIRECT action: no handle");
	ret = xl_count(st, act, "INDIRECT", error);
	if (ret < 0)
		return ret;
	st->plan->count_handle = act->conf;
	return 0;
}

/* Adding an action is adding a row. */
static const struct xl_action xl_actions[] = {
	[RTE_FLOW_ACTION_TYPE_QUEUE] = { "QUEUE", false, xl_act_queue },
	[RTE_FLOW_ACTION_TYPE_RSS] = { "RSS", false, xl_act_rss },
	[RTE_FLOW_ACTION_TYPE_DROP] = { "DROP", true, xl_act_drop },
	[RTE_FLOW_ACTION_TYPE_PASSTHRU] = { "PASSTHRU", false,
					    xl_act_passthru },
	[RTE_FLOW_ACTION_TYPE_MARK] = { "MARK", false, xl_act_mark },
	[RTE_FLOW_ACTION_TYPE_FLAG] = { "FLAG", false, xl_act_flag },
	[RTE_FLOW_ACTION_TYPE_COUNT] = { "COUNT", true, xl_act_count },
	[RTE_FLOW_ACTION_TYPE_INDIRECT] = { "INDIRECT", true, xl_act_indirect },
};

static int
xl_walk_actions(struct xl_state *st, const struct rte_flow_action actions[],
		struct rte_flow_error *error)
{
	const struct rte_flow_action *act;
	int ret;

	for (act = actions; act->type != RTE_FLOW_ACTION_TYPE_END; act++) {
		const struct xl_action *row;

		if (act->type == RTE_FLOW_ACTION_TYPE_VOID)
			continue;
		if ((unsigned int)act->type >= RTE_DIM(xl_actions) ||
		    xl_actions[act->type].fn == NULL)
			return vsteer_flow_err(error, ENOTSUP,
					       RTE_FLOW_ERROR_TYPE_ACTION, act,
					       "action type %d (%s) not supported",
					       (int)act->type,
					       xl_action_type_name(act->type));
		row = &xl_actions[act->type];
		if (st->plan->egress && !row->egress)
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
				"%s action: not supported on egress rules (only DROP and COUNT)",
				row->name);
		ret = row->fn(st, act, error);
		if (ret < 0)
			return ret;
	}
	if (st->plan->egress) {
		if (st->plan->fate == VSTEER_FATE_NONE && st->count_act == NULL)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
				"egress rule without DROP or COUNT action");
	} else if (st->plan->fate == VSTEER_FATE_NONE) {
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"no fate action: give QUEUE, RSS, DROP or PASSTHRU");
	}
	return 0;
}

/*
 * Attributes and priorities.
 */

uint32_t
vsteer_flow_user_levels(const struct vsteer_xlate_ctx *ctx)
{
	uint32_t levels = (ctx->max_verbs_prio + 1) / VSTEER_SUBPRIO_N;

	/* The last level holds the driver's default flows. */
	return levels > 0 ? levels - 1 : 0;
}

uint32_t
vsteer_flow_verbs_prio(const struct vsteer_xlate_ctx *ctx, uint32_t rte_prio,
		       enum vsteer_subprio sub)
{
	RTE_SET_USED(ctx);
	return rte_prio * VSTEER_SUBPRIO_N + (uint32_t)sub;
}

static int
xl_attr(struct xl_state *st, const struct rte_flow_attr *attr,
	struct rte_flow_error *error)
{
	const struct vsteer_xlate_ctx *ctx = st->ctx;
	uint32_t levels = vsteer_flow_user_levels(ctx);

	if (attr->group != 0)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_GROUP, attr,
			"group %u not supported: verbs rules live in one table (group 0)",
			attr->group);
	if (attr->transfer)
		return vsteer_flow_err(error, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, attr,
				       "transfer not supported");
	if (attr->ingress && attr->egress)
		return vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR,
				       attr,
				       "ingress and egress are exclusive");
	if (!attr->ingress && !attr->egress)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ATTR_INGRESS, attr,
				       "one of ingress or egress is required");
	if (attr->egress && !ctx->egress_ok)
		return vsteer_flow_err(error, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ATTR_EGRESS, attr,
				       "egress not supported by the device");
	if (attr->priority > levels ||
	    (attr->priority == levels && !ctx->internal)) {
		if (levels == 0)
			return vsteer_flow_err(
				error, ENOTSUP,
				RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, attr,
				"priority %u out of range: the device has no priority level for applications (max verbs priority %u)",
				attr->priority, ctx->max_verbs_prio);
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, attr,
			"priority %u out of range: %u levels available (0 to %u)",
			attr->priority, levels, levels - 1);
	}
	st->plan->ingress = attr->ingress;
	st->plan->egress = attr->egress;
	st->plan->rte_priority = attr->priority;
	if (attr->egress)
		st->flags |= IBV_FLOW_ATTR_FLAGS_EGRESS;
	return 0;
}

/*
 * Rules: RSS expansion and serialization.
 */

/* One verbs rule to write: the pattern plus at most an L3 and an L4. */
struct xl_variant {
	uint8_t fam;	     /* L3 family of the hashed stack */
	uint8_t l4p;	     /* L4 protocol of the hashed stack */
	bool add_l3, add_l4; /* specs added by the expansion */
	enum vsteer_subprio sub;
	uint64_t hash;
};

static uint64_t
xl_hash_fields(uint64_t types, uint8_t fam, uint8_t l4p, bool inner)
{
	uint64_t l3t, tcpt, udpt, l3f, h = 0;

	if (fam == 4) {
		l3t = XL_RSS_IPV4_L3;
		tcpt = XL_RSS_IPV4_TCP;
		udpt = XL_RSS_IPV4_UDP;
		l3f = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4;
		if (types & RTE_ETH_RSS_L3_SRC_ONLY)
			l3f = IBV_RX_HASH_SRC_IPV4;
		else if (types & RTE_ETH_RSS_L3_DST_ONLY)
			l3f = IBV_RX_HASH_DST_IPV4;
	} else if (fam == 6) {
		l3t = XL_RSS_IPV6_L3;
		tcpt = XL_RSS_IPV6_TCP;
		udpt = XL_RSS_IPV6_UDP;
		l3f = IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6;
		if (types & RTE_ETH_RSS_L3_SRC_ONLY)
			l3f = IBV_RX_HASH_SRC_IPV6;
		else if (types & RTE_ETH_RSS_L3_DST_ONLY)
			l3f = IBV_RX_HASH_DST_IPV6;
	} else {
		return 0;
	}
	if (l4p == IPPROTO_TCP && (types & tcpt)) {
		h = l3f | IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
		if (types & RTE_ETH_RSS_L4_SRC_ONLY)
			h &= ~(uint64_t)IBV_RX_HASH_DST_PORT_TCP;
		else if (types & RTE_ETH_RSS_L4_DST_ONLY)
			h &= ~(uint64_t)IBV_RX_HASH_SRC_PORT_TCP;
	} else if (l4p == IPPROTO_UDP && (types & udpt)) {
		h = l3f | IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
		if (types & RTE_ETH_RSS_L4_SRC_ONLY)
			h &= ~(uint64_t)IBV_RX_HASH_DST_PORT_UDP;
		else if (types & RTE_ETH_RSS_L4_DST_ONLY)
			h &= ~(uint64_t)IBV_RX_HASH_SRC_PORT_UDP;
	} else if (types & l3t) {
		h = l3f;
	}
	if (l4p == IPPROTO_ESP && (types & RTE_ETH_RSS_ESP))
		h |= IBV_RX_HASH_IPSEC_SPI;
	if (h != 0 && inner)
		h |= IBV_RX_HASH_INNER;
	return h;
}

/* May the expansion put an L3 of family fam under the stack's L2? */
static bool
xl_l2_allows(struct xl_state *st, const struct xl_layers *l, uint8_t fam)
{
	const struct ibv_flow_spec_eth *eth;
	uint16_t type = fam == 4 ? RTE_ETHER_TYPE_IPV4 : RTE_ETHER_TYPE_IPV6;

	if (l->l2 < 0)
		return true;
	eth = &st->specs[l->l2].spec.eth;
	return (rte_cpu_to_be_16(type) & eth->mask.ether_type) ==
	       eth->val.ether_type;
}

static bool
xl_l3_allows(struct xl_state *st, const struct xl_layers *l, uint8_t proto)
{
	uint8_t *v, *m;

	if (!xl_l3_proto(st, l, &v, &m))
		return true;
	return (proto & *m) == *v;
}

static void
xl_variant_add(struct xl_variant *vs, unsigned int *n, uint8_t fam, uint8_t l4p,
	       bool add_l3, bool add_l4)
{
	struct xl_variant *v = &vs[(*n)++];

	memset(v, 0, sizeof(*v));
	v->fam = fam;
	v->l4p = l4p;
	v->add_l3 = add_l3;
	v->add_l4 = add_l4;
}

/*
 * The verbs rules of the flow. The "hashed" stack is the outer one, or
 * the inner one for RSS level 2. RSS expands a pattern that ends in that
 * stack above L4 into one rule per L3 family / L4 protocol the types ask
 * for, because one hash QP hashes one family and one protocol; the
 * pattern itself stays as the least specific rule. Returns the count.
 */
static unsigned int
xl_variants(struct xl_state *st, struct xl_variant vs[VSTEER_MAX_EXPAND])
{
	const struct vsteer_flow_plan *plan = st->plan;
	bool rss = plan->fate == VSTEER_FATE_RSS;
	bool inner = rss && plan->rss_level >= 2;
	const struct xl_layers *l = &st->lay[inner ? 1 : 0];
	uint64_t t = plan->rss_types;
	unsigned int n = 0, i, j;
	static const uint8_t fams[] = { 4, 6 };

	xl_variant_add(vs, &n, l->fam, l->l4p, false, false);
	/* The hashed stack must be the last one and still open above. */
	if (rss && inner == st->tunnel && l->l4 < 0) {
		for (i = 0; i < RTE_DIM(fams); i++) {
			uint8_t f = fams[i];
			uint64_t l3t = f == 4 ? XL_RSS_IPV4_L3 : XL_RSS_IPV6_L3;
			uint64_t tcpt = f == 4 ? XL_RSS_IPV4_TCP :
						 XL_RSS_IPV6_TCP;
			uint64_t udpt = f == 4 ? XL_RSS_IPV4_UDP :
						 XL_RSS_IPV6_UDP;

			if (l->fam != 0 && l->fam != f)
				continue;
			if (l->fam == 0 && !xl_l2_allows(st, l, f))
				continue;
			if ((t & udpt) && xl_l3_allows(st, l, IPPROTO_UDP))
				xl_variant_add(vs, &n, f, IPPROTO_UDP,
					       l->fam == 0, true);
			if ((t & tcpt) && xl_l3_allows(st, l, IPPROTO_TCP))
				xl_variant_add(vs, &n, f, IPPROTO_TCP,
					       l->fam == 0, true);
			if (l->fam == 0 && (t & l3t))
				xl_variant_add(vs, &n, f, 0, true, false);
		}
	}
	RTE_VERIFY(n <= VSTEER_MAX_EXPAND);
	for (i = 0; i < n; i++) {
		struct xl_variant *v = &vs[i];

		if (st->tunnel && !inner)
			v->sub = VSTEER_SUBPRIO_L4;
		else if (v->l4p != 0)
			v->sub = VSTEER_SUBPRIO_L4;
		else if (v->fam != 0)
			v->sub = VSTEER_SUBPRIO_L3;
		else
			v->sub = VSTEER_SUBPRIO_L2;
		v->hash = rss ? xl_hash_fields(t, v->fam, v->l4p, inner) : 0;
	}
	/* Most specific rules first (stable). */
	for (i = 1; i < n; i++) {
		struct xl_variant tmp = vs[i];

		for (j = i; j > 0 && vs[j - 1].sub > tmp.sub; j--)
			vs[j] = vs[j - 1];
		vs[j] = tmp;
	}
	return n;
}

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

static int
xl_emit_rule(struct xl_state *st, const struct xl_variant *v,
	     struct vsteer_verbs_rule *rule, struct rte_flow_error *error)
{
	const struct vsteer_flow_plan *plan = st->plan;
	bool inner = st->tunnel && plan->fate == VSTEER_FATE_RSS &&
		     plan->rss_level >= 2;
	const void *rss = st->rss_act;
	struct ibv_flow_spec extra;
	unsigned int i;
	int ret;

	memset(rule, 0, sizeof(*rule));
	rule->size = sizeof(struct ibv_flow_attr);
	for (i = 0; i < st->n_specs; i++) {
		const struct xl_pending *p = &st->specs[i];
		struct ibv_flow_spec gre;
		const struct ibv_flow_spec *s = &p->spec;

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
	for (i = 0; i < st->n_aspecs; i++) {
		const struct xl_pending *p = &st->aspecs[i];

		ret = xl_emit_spec(st, rule, &p->spec, p->cause, p->cause_type,
				   error);
		if (ret < 0)
			return ret;
	}
	rule->attr.comp_mask = 0;
	rule->attr.type = IBV_FLOW_ATTR_NORMAL;
	rule->attr.size = rule->size;
	rule->attr.priority =
		vsteer_flow_verbs_prio(st->ctx, plan->rte_priority, v->sub);
	rule->attr.port = st->ctx->port_num;
	rule->attr.flags = st->flags;
	rule->hash_fields = v->hash;
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
	struct xl_variant vs[VSTEER_MAX_EXPAND];
	struct xl_state st;
	unsigned int i, n;
	int ret;

	if (ctx == NULL || plan == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_UNSPECIFIED, NULL,
				       "no translation context or plan");
	if (attr == NULL)
		return vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR,
				       NULL, "no attributes");
	if (pattern == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ITEM_NUM, NULL,
				       "no pattern");
	if (actions == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_NUM, NULL,
				       "no actions");
	memset(plan, 0, sizeof(*plan));
	memset(&st, 0, sizeof(st));
	st.ctx = ctx;
	st.plan = plan;
	st.tun = -1;
	st.mpls = -1;
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
	/* QUEUE and DROP still go through a hash QP, which needs a key. */
	memcpy(plan->rss_key,
	       ctx->rss_key_default != NULL ? ctx->rss_key_default :
					      xl_rss_key_default,
	       VSTEER_RSS_KEY_LEN);
	ret = xl_attr(&st, attr, error);
	if (ret == 0)
		ret = xl_walk_items(&st, pattern, error);
	if (ret == 0)
		ret = xl_walk_actions(&st, actions, error);
	if (ret == 0 && plan->fate == VSTEER_FATE_RSS && plan->rss_level >= 2 &&
	    !st.tunnel)
		ret = vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
			st.rss_act,
			"RSS action: level %u (inner) needs a tunnel item in the pattern",
			plan->rss_level);
	if (ret < 0)
		goto fail;
	n = xl_variants(&st, vs);
	for (i = 0; i < n; i++) {
		ret = xl_emit_rule(&st, &vs[i], &plan->rules[i], error);
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
 * Dump.
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
			s->flow_tag.tag_id == XL_TAG_FLAG ? " (FLAG)" : "");
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
