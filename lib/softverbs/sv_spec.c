/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Verbs spec-chain compiler: struct ibv_flow_attr followed by its
 * ibv_flow_spec_* (ibv_create_flow(3)) into a (mask, value) pair over
 * struct sv_key plus the rule's actions.
 *
 * Spec field             -> key field (S = key->outer, or key->inner when
 *                           the spec type carries IBV_FLOW_SPEC_INNER)
 *   ETH dst_mac          -> S.dmac
 *   ETH src_mac          -> S.smac
 *   ETH ether_type       -> S.ether_type (the one after the VLAN tags,
 *                           ibv_create_flow(3) NOTES 3)
 *   ETH vlan_tag         -> S.vlan_tci; a non-zero mask also requires
 *                           SV_P_VLAN (a tagged frame)
 *   IPV4 / IPV4_EXT src_ip, dst_ip -> S.src_ip[12..15], S.dst_ip[12..15]
 *                           (SV_IPV4_OFF: the PRM's ipv4_layout)
 *   IPV4_EXT proto       -> S.ip_proto
 *   IPV4_EXT tos         -> S.tos
 *   IPV4_EXT ttl         -> S.ttl
 *   IPV4_EXT flags       -> S.ip_flags (3 bits, right aligned: MF = 1)
 *   IPV6 src_ip, dst_ip  -> S.src_ip, S.dst_ip
 *   IPV6 flow_label      -> S.flow_label (network order, low 20 bits)
 *   IPV6 next_hdr        -> S.ip_proto (upper layer, after extension hdrs)
 *   IPV6 traffic_class   -> S.tos
 *   IPV6 hop_limit       -> S.ttl
 *   TCP / UDP dst_port, src_port -> S.dport, S.sport; implies
 *                           S.ip_proto 6 / 17
 *   ESP spi, seq         -> key->esp_spi, key->esp_seq
 *   MPLS label           -> key->mpls_label (whole label stack entry)
 *   VXLAN_TUNNEL tunnel_id -> key->vni; requires tunnel == SV_TUN_VXLAN
 *   GRE c_ks_res0_ver    -> key->gre_c_ks_ver
 *   GRE protocol         -> key->gre_protocol
 *   GRE key              -> key->gre_key; implies outer ip_proto 47
 *   ACTION_TAG tag_id    -> act->has_tag, act->tag
 *   ACTION_DROP          -> act->drop
 *   ACTION_COUNT counters -> act->counters (the struct sv_counters that
 *                           embeds the ibv_counters)
 *
 * Presence: each header spec also requires its SV_P_* bit in S.present
 * (ETH, IPV4, IPV6, TCP, UDP, ESP, MPLS; GRE in the outer stack), so a
 * spec with all-zero masks still matches only frames that have the header.
 * GRE and VXLAN are the tunnel headers themselves and take no INNER flag.
 * The INNER flag alone decides which stack a spec applies to: a spec
 * without it applies to the outer headers even after a tunnel spec
 * (ibv_create_flow(3), "Rules definition ordering"). An MPLS spec without
 * INNER is placed by the spec before it: after UDP or GRE it is the tunnel
 * label (tunnel == SV_TUN_MPLS), otherwise MPLS right after outer L2
 * (tunnel == SV_TUN_NONE).
 *
 * Several specs constraining the same bits must agree (AND of the specs);
 * a contradiction (ether_type vs. IP version, IP protocol vs. L4 spec, two
 * tunnels, IPv4 and IPv6 in one stack) is EINVAL, as the mlx5 kernel's
 * set_proto() / is_valid_ethertype() do.
 *
 * Spec layout follows rdma-core 44 (libibverbs/cmd.c, ib_spec_to_kern_spec
 * and get_filters_size): IPV4_EXT, IPV6 and VXLAN_TUNNEL may be longer than
 * their struct, the value and the mask then each taking half of what
 * follows the 8-byte header, and non-zero mask bytes beyond the known
 * fields are EOPNOTSUPP; other specs are read at their struct offsets and
 * any extra bytes are skipped. A spec shorter than its struct is EINVAL.
 *
 * Length: ibv_create_flow(3) defines attr.size as the size of the whole
 * rule, attr and specs. The walk of num_of_specs specs, each advanced by
 * its own size, stays inside it: a chain that runs past attr.size, or
 * leaves bytes of it over, is EINVAL on both profiles, as the kernel
 * refuses a command whose specs do not use up its length exactly
 * (ib_uverbs_ex_create_flow(): "bytes left from uverb cmd"). rdma-core 44
 * itself never reads attr.size: ibv_cmd_create_flow() walks the specs in
 * the caller's memory and recomputes the size it sends. So on a ConnectX
 * an inconsistent attr.size goes unnoticed and a num_of_specs that says
 * too much reads past the caller's buffer; softverbs refuses both, so
 * that a driver that gets them wrong fails here.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sv_internal.h"
#include "sv_key.h"

/* The common spec header: type then size, padded to 8 bytes. */
#define SV_SPEC_HDR_LEN 8

#define SV_IPPROTO_TCP 6
#define SV_IPPROTO_UDP 17
#define SV_IPPROTO_GRE 47

#define SV_GRE_K htons(0x2000)

enum {
	SV_OUTER = 0,
	SV_INNER = 1,
	SV_NLAYER = 2
};

/* sv_spec_load() relies on the extensible specs being header, value,
 * mask with no padding between them. */
#define SV_EXT_LAYOUT(st, ft)                                  \
	(offsetof(st, val) == SV_SPEC_HDR_LEN &&               \
	 offsetof(st, mask) == SV_SPEC_HDR_LEN + sizeof(ft) && \
	 sizeof(st) == SV_SPEC_HDR_LEN + 2 * sizeof(ft))
_Static_assert(SV_EXT_LAYOUT(struct ibv_flow_spec_ipv4_ext,
			     struct ibv_flow_ipv4_ext_filter),
	       "ipv4_ext spec layout");
_Static_assert(SV_EXT_LAYOUT(struct ibv_flow_spec_ipv6,
			     struct ibv_flow_ipv6_filter),
	       "ipv6 spec layout");
_Static_assert(SV_EXT_LAYOUT(struct ibv_flow_spec_tunnel,
			     struct ibv_flow_tunnel_filter),
	       "tunnel spec layout");

/* Per stack, what the mlx5 kernel's is_valid_ethertype() looks at. */
struct sv_etype_scan {
	bool has_ethertype;
	bool mask_valid;
	uint16_t eth_type; /* host order */
	uint32_t ip_spec;  /* IBV_FLOW_SPEC_IPV4 / _IPV6, 0 if none */
};

struct sv_cc {
	bool mlx5;
	bool mpls_over_l4; /* sv_caps.mpls_over_l4 */
	enum ibv_flow_attr_type attr_type;
	struct sv_match *m; /* the caller's, written in place */
	struct sv_actions act;
	unsigned int ntag;
	/* mlx5: a value bit outside its mask reached the match the kernel
	 * builds (see sv_val_check()). */
	bool val_out;
};

struct sv_spec_desc {
	uint16_t ssize; /* sizeof the verbs struct */
	bool inner_ok;
	/* Extensible filter (rdma-core get_filters_size). */
	bool ext;
	uint16_t fsize; /* sizeof the filter */
	uint16_t known; /* end of the last field in the filter */
};

/* One row per spec type (rdma-core get_filters_size for the extensible
 * ones); looked up twice per spec, so a table, not a constructor. */
static const struct sv_spec_desc sv_desc_eth = {
	.ssize = sizeof(struct ibv_flow_spec_eth),
	.inner_ok = true,
};
static const struct sv_spec_desc sv_desc_ipv4 = {
	.ssize = sizeof(struct ibv_flow_spec_ipv4),
	.inner_ok = true,
};
static const struct sv_spec_desc sv_desc_ipv4_ext = {
	.ssize = sizeof(struct ibv_flow_spec_ipv4_ext),
	.inner_ok = true,
	.ext = true,
	.fsize = sizeof(struct ibv_flow_ipv4_ext_filter),
	.known = offsetof(struct ibv_flow_ipv4_ext_filter, flags) + 1,
};
static const struct sv_spec_desc sv_desc_ipv6 = {
	.ssize = sizeof(struct ibv_flow_spec_ipv6),
	.inner_ok = true,
	.ext = true,
	.fsize = sizeof(struct ibv_flow_ipv6_filter),
	.known = offsetof(struct ibv_flow_ipv6_filter, hop_limit) + 1,
};
static const struct sv_spec_desc sv_desc_esp = {
	.ssize = sizeof(struct ibv_flow_spec_esp),
	.inner_ok = true,
};
static const struct sv_spec_desc sv_desc_tcp_udp = {
	.ssize = sizeof(struct ibv_flow_spec_tcp_udp),
	.inner_ok = true,
};
static const struct sv_spec_desc sv_desc_vxlan = {
	.ssize = sizeof(struct ibv_flow_spec_tunnel),
	.ext = true,
	.fsize = sizeof(struct ibv_flow_tunnel_filter),
	.known = sizeof(uint32_t),
};
static const struct sv_spec_desc sv_desc_gre = {
	.ssize = sizeof(struct ibv_flow_spec_gre),
};
static const struct sv_spec_desc sv_desc_mpls = {
	.ssize = sizeof(struct ibv_flow_spec_mpls),
	.inner_ok = true,
};
static const struct sv_spec_desc sv_desc_tag = {
	.ssize = sizeof(struct ibv_flow_spec_action_tag),
};
static const struct sv_spec_desc sv_desc_drop = {
	.ssize = sizeof(struct ibv_flow_spec_action_drop),
};
static const struct sv_spec_desc sv_desc_handle = {
	.ssize = sizeof(struct ibv_flow_spec_action_handle),
};
static const struct sv_spec_desc sv_desc_count = {
	.ssize = sizeof(struct ibv_flow_spec_counter_action),
};

/* The row of a spec type, NULL for an unknown one. */
static const struct sv_spec_desc *
sv_spec_desc(uint32_t base)
{
	switch (base) {
	case IBV_FLOW_SPEC_ETH:
		return &sv_desc_eth;
	case IBV_FLOW_SPEC_IPV4:
		return &sv_desc_ipv4;
	case IBV_FLOW_SPEC_IPV4_EXT:
		return &sv_desc_ipv4_ext;
	case IBV_FLOW_SPEC_IPV6:
		return &sv_desc_ipv6;
	case IBV_FLOW_SPEC_ESP:
		return &sv_desc_esp;
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP:
		return &sv_desc_tcp_udp;
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		return &sv_desc_vxlan;
	case IBV_FLOW_SPEC_GRE:
		return &sv_desc_gre;
	case IBV_FLOW_SPEC_MPLS:
		return &sv_desc_mpls;
	case IBV_FLOW_SPEC_ACTION_TAG:
		return &sv_desc_tag;
	case IBV_FLOW_SPEC_ACTION_DROP:
		return &sv_desc_drop;
	case IBV_FLOW_SPEC_ACTION_HANDLE:
		return &sv_desc_handle;
	case IBV_FLOW_SPEC_ACTION_COUNT:
		return &sv_desc_count;
	default:
		return NULL;
	}
}

/* Type and size of the spec at p; reads only those 6 bytes. */
static void
sv_spec_hdr(const uint8_t *p, uint32_t *type, uint16_t *size)
{
	enum ibv_flow_spec_type t;

	memcpy(&t, p, sizeof(t));
	memcpy(size, p + offsetof(struct ibv_flow_spec_action_drop, size),
	       sizeof(*size));
	*type = (uint32_t)t;
}

/*
 * Copy the spec at p into its struct (dst, d->ssize bytes). An extensible
 * spec longer than its struct has its mask half-way through the filters.
 */
static void
sv_spec_load(const uint8_t *p, uint16_t size, const struct sv_spec_desc *d,
	     void *dst)
{
	uint8_t *o = dst;
	uint32_t fs;

	if (!d->ext || size == d->ssize) {
		memcpy(dst, p, d->ssize);
		return;
	}
	fs = (uint32_t)(size - SV_SPEC_HDR_LEN) / 2;
	memcpy(o, p, SV_SPEC_HDR_LEN + d->fsize);
	memcpy(o + SV_SPEC_HDR_LEN + d->fsize, p + SV_SPEC_HDR_LEN + fs,
	       d->fsize);
}

/* Non-zero mask bytes past the known fields of an extensible filter. */
static bool
sv_spec_trailing_mask(const uint8_t *p, uint16_t size,
		      const struct sv_spec_desc *d)
{
	uint32_t fs = (uint32_t)(size - SV_SPEC_HDR_LEN) / 2;
	const uint8_t *mask = p + SV_SPEC_HDR_LEN + fs;
	uint32_t i;

	for (i = d->known; i < fs; i++)
		if (mask[i] != 0)
			return true;
	return false;
}

static inline size_t
sv_hoff(int layer)
{
	return layer == SV_INNER ? offsetof(struct sv_key, inner) :
				   offsetof(struct sv_key, outer);
}

#define SV_HF(layer, field) (sv_hoff(layer) + offsetof(struct sv_hdrs, field))
#define SV_KF(field) offsetof(struct sv_key, field)

static inline struct sv_hdrs *
sv_hm(struct sv_cc *cc, int layer)
{
	return layer == SV_INNER ? &cc->m->mask.inner : &cc->m->mask.outer;
}

static inline struct sv_hdrs *
sv_hv(struct sv_cc *cc, int layer)
{
	return layer == SV_INNER ? &cc->m->value.inner : &cc->m->value.outer;
}

/*
 * Add the constraint (key & mask) == (val & mask) on n key bytes at off.
 * EINVAL when it contradicts what earlier specs asked of the same bits.
 */
/* One chunk of sv_put(): n is 8, 4, 2 or 1. */
#define SV_PUT_CHUNK(type)                          \
	do {                                        \
		type km_, kv_, v_, mk_;             \
		memcpy(&km_, km + i, sizeof(type)); \
		memcpy(&kv_, kv + i, sizeof(type)); \
		memcpy(&v_, v + i, sizeof(type));   \
		memcpy(&mk_, mk + i, sizeof(type)); \
		if (mk_ == 0) {                     \
			i += sizeof(type);          \
			break;                      \
		}                                   \
		if (km_ & mk_ & (kv_ ^ v_))         \
			return EINVAL;              \
		km_ |= mk_;                         \
		kv_ |= v_ & mk_;                    \
		memcpy(km + i, &km_, sizeof(type)); \
		memcpy(kv + i, &kv_, sizeof(type)); \
		i += sizeof(type);                  \
	} while (0)

/*
 * Add the constraint (key & mask) == (val & mask) on n key bytes at off.
 * EINVAL when it contradicts what earlier specs asked of the same bits
 * (nothing is written then past the chunk that contradicts, and the
 * compile fails as a whole). Word by word: a rule is compiled on every
 * ibv_create_flow().
 */
static inline __attribute__((always_inline)) int
sv_put(struct sv_cc *cc, size_t off, const void *val, const void *mask,
       size_t n)
{
	uint8_t *km = (uint8_t *)&cc->m->mask + off;
	uint8_t *kv = (uint8_t *)&cc->m->value + off;
	const uint8_t *v = val;
	const uint8_t *mk = mask;
	size_t i = 0;

	while (n - i >= 8)
		SV_PUT_CHUNK(uint64_t);
	if (n - i >= 4)
		SV_PUT_CHUNK(uint32_t);
	if (n - i >= 2)
		SV_PUT_CHUNK(uint16_t);
	if (n - i >= 1)
		SV_PUT_CHUNK(uint8_t);
	return 0;
}

static inline void
sv_present(struct sv_cc *cc, int layer, uint32_t bit)
{
	sv_hm(cc, layer)->present |= bit;
	sv_hv(cc, layer)->present |= bit;
}

/*
 * The mlx5 kernel copies a spec's value and mask into the PRM match as
 * they are (parse_flow_attr(), Linux 6.1: memcpy of addresses, MLX5_SET of
 * narrower fields, which drops only the bits above a field's width) and
 * mlx5 core refuses a match whose value has a bit its mask lacks:
 * check_valid_spec() in _mlx5_add_flow_rules(), "match_value differs from
 * match_criteria", EINVAL, once every spec is parsed. Fields the kernel
 * copies only under a mask (set_proto(), the VLAN TCI) or not at all
 * (TTL, IPv4 flags, hop limit, GRE C/K/S) are not checked for them. The
 * man page says nothing: the generic profile ANDs the value, as before.
 */
static void
sv_val_check(struct sv_cc *cc, const void *val, const void *mask, size_t n)
{
	const uint8_t *v = val, *m = mask;
	size_t i;

	if (!cc->mlx5)
		return;
	for (i = 0; i < n; i++)
		if (v[i] & ~m[i])
			cc->val_out = true;
}

static int
sv_put_tunnel(struct sv_cc *cc, uint8_t tunnel)
{
	uint8_t all = 0xff;

	return sv_put(cc, SV_KF(tunnel), &tunnel, &all, 1);
}

/*
 * IP protocol from an IP spec or implied by an L4 / GRE spec. mlx5 kernel
 * (drivers/infiniband/hw/mlx5/fs.c, set_proto()): a second non-zero
 * protocol mask must repeat the first mask and value exactly, else EINVAL.
 */
static int
sv_put_proto(struct sv_cc *cc, int layer, uint8_t mask, uint8_t val)
{
	struct sv_hdrs *hm = sv_hm(cc, layer);
	struct sv_hdrs *hv = sv_hv(cc, layer);

	if (cc->mlx5 && mask != 0 && hm->ip_proto != 0) {
		if (mask != hm->ip_proto || (val & mask) != hv->ip_proto)
			return EINVAL;
		return 0;
	}
	return sv_put(cc, SV_HF(layer, ip_proto), &val, &mask, 1);
}

static int
sv_cc_eth(struct sv_cc *cc, int layer, const struct ibv_flow_spec_eth *s)
{
	int rc;

	sv_val_check(cc, s->val.dst_mac, s->mask.dst_mac, 6);
	sv_val_check(cc, s->val.src_mac, s->mask.src_mac, 6);
	sv_val_check(cc, &s->val.ether_type, &s->mask.ether_type, 2);
	/* first_vid, first_cfi, first_prio: set only under a vlan_tag mask. */
	if (s->mask.vlan_tag != 0)
		sv_val_check(cc, &s->val.vlan_tag, &s->mask.vlan_tag, 2);
	rc = sv_put(cc, SV_HF(layer, dmac), s->val.dst_mac, s->mask.dst_mac, 6);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, smac), s->val.src_mac,
			    s->mask.src_mac, 6);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, ether_type), &s->val.ether_type,
			    &s->mask.ether_type, 2);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, vlan_tci), &s->val.vlan_tag,
			    &s->mask.vlan_tag, 2);
	if (rc != 0)
		return rc;
	/* mlx5 fs.c: a vlan_tag mask sets cvlan_tag (tagged frames only). */
	if (s->mask.vlan_tag != 0)
		sv_present(cc, layer, SV_P_VLAN);
	sv_present(cc, layer, SV_P_ETH);
	return 0;
}

static int
sv_cc_ipv4_addr(struct sv_cc *cc, int layer, const uint32_t *src_v,
		const uint32_t *src_m, const uint32_t *dst_v,
		const uint32_t *dst_m)
{
	int rc;

	sv_val_check(cc, src_v, src_m, 4);
	sv_val_check(cc, dst_v, dst_m, 4);
	rc = sv_put(cc, SV_HF(layer, src_ip) + SV_IPV4_OFF, src_v, src_m, 4);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, dst_ip) + SV_IPV4_OFF, dst_v,
			    dst_m, 4);
	if (rc == 0)
		sv_present(cc, layer, SV_P_IPV4);
	return rc;
}

static int
sv_cc_ipv4_ext(struct sv_cc *cc, int layer,
	       const struct ibv_flow_spec_ipv4_ext *s)
{
	uint8_t flags_v = s->val.flags, flags_m = s->mask.flags;
	int rc;

	/* mlx5 fs.c: LAST_IPV4_FIELD is tos; FIELDS_NOT_SUPPORTED() makes a
	 * ttl or flags mask EOPNOTSUPP. */
	if (cc->mlx5 && (s->mask.ttl != 0 || s->mask.flags != 0))
		return EOPNOTSUPP;
	/* set_tos() writes ip_ecn and ip_dscp whatever the mask; set_proto()
	 * only under a mask. */
	sv_val_check(cc, &s->val.tos, &s->mask.tos, 1);
	if (s->mask.proto != 0)
		sv_val_check(cc, &s->val.proto, &s->mask.proto, 1);
	rc = sv_cc_ipv4_addr(cc, layer, &s->val.src_ip, &s->mask.src_ip,
			     &s->val.dst_ip, &s->mask.dst_ip);
	if (rc == 0)
		rc = sv_put_proto(cc, layer, s->mask.proto, s->val.proto);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, tos), &s->val.tos, &s->mask.tos,
			    1);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, ttl), &s->val.ttl, &s->mask.ttl,
			    1);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, ip_flags), &flags_v, &flags_m, 1);
	return rc;
}

static int
sv_cc_ipv6(struct sv_cc *cc, int layer, const struct ibv_flow_spec_ipv6 *s)
{
	uint32_t fl_v = s->val.flow_label, fl_m = s->mask.flow_label;
	int rc;

	/* mlx5 fs.c: LAST_IPV6_FIELD is traffic_class, so a hop_limit mask
	 * is EOPNOTSUPP. */
	if (cc->mlx5 && s->mask.hop_limit != 0)
		return EOPNOTSUPP;
	/* mlx5 fs.c set_flow_label(): MLX5_SET keeps the 20-bit field. */
	if (cc->mlx5) {
		fl_v &= htonl(0x000fffff);
		fl_m &= htonl(0x000fffff);
	}
	sv_val_check(cc, s->val.src_ip, s->mask.src_ip, 16);
	sv_val_check(cc, s->val.dst_ip, s->mask.dst_ip, 16);
	sv_val_check(cc, &fl_v, &fl_m, 4);
	sv_val_check(cc, &s->val.traffic_class, &s->mask.traffic_class, 1);
	if (s->mask.next_hdr != 0)
		sv_val_check(cc, &s->val.next_hdr, &s->mask.next_hdr, 1);
	rc = sv_put(cc, SV_HF(layer, src_ip), s->val.src_ip, s->mask.src_ip,
		    16);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, dst_ip), s->val.dst_ip,
			    s->mask.dst_ip, 16);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, flow_label), &fl_v, &fl_m, 4);
	if (rc == 0)
		rc = sv_put_proto(cc, layer, s->mask.next_hdr, s->val.next_hdr);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, tos), &s->val.traffic_class,
			    &s->mask.traffic_class, 1);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, ttl), &s->val.hop_limit,
			    &s->mask.hop_limit, 1);
	if (rc == 0)
		sv_present(cc, layer, SV_P_IPV6);
	return rc;
}

static int
sv_cc_l4(struct sv_cc *cc, int layer, const struct ibv_flow_spec_tcp_udp *s,
	 bool tcp)
{
	int rc;

	sv_val_check(cc, &s->val.dst_port, &s->mask.dst_port, 2);
	sv_val_check(cc, &s->val.src_port, &s->mask.src_port, 2);
	rc = sv_put_proto(cc, layer, 0xff,
			  tcp ? SV_IPPROTO_TCP : SV_IPPROTO_UDP);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, dport), &s->val.dst_port,
			    &s->mask.dst_port, 2);
	if (rc == 0)
		rc = sv_put(cc, SV_HF(layer, sport), &s->val.src_port,
			    &s->mask.src_port, 2);
	if (rc == 0)
		sv_present(cc, layer, tcp ? SV_P_TCP : SV_P_UDP);
	return rc;
}

static int
sv_cc_esp(struct sv_cc *cc, int layer, const struct ibv_flow_spec_esp *s)
{
	int rc;

	/* mlx5 fs.c parse_flow_attr(): "case IB_FLOW_SPEC_ESP: return
	 * -EOPNOTSUPP" since IPsec steering left mlx5_ib; the SPI is matched
	 * through a matcher (misc_parameters.outer_esp_spi) instead. */
	if (cc->mlx5)
		return EOPNOTSUPP;
	rc = sv_put(cc, SV_KF(esp_spi), &s->val.spi, &s->mask.spi, 4);
	if (rc == 0)
		rc = sv_put(cc, SV_KF(esp_seq), &s->val.seq, &s->mask.seq, 4);
	if (rc == 0)
		sv_present(cc, layer, SV_P_ESP);
	return rc;
}

static int
sv_cc_vxlan(struct sv_cc *cc, const struct ibv_flow_spec_tunnel *s)
{
	uint32_t v = s->val.tunnel_id, mk = s->mask.tunnel_id;
	int rc;

	/* A VNI above 24 bits never reaches here on mlx5 (sv_spec_scan). */
	sv_val_check(cc, &v, &mk, 4);
	rc = sv_put_tunnel(cc, SV_TUN_VXLAN);
	if (rc == 0)
		rc = sv_put(cc, SV_KF(vni), &v, &mk, 4);
	return rc;
}

static int
sv_cc_gre(struct sv_cc *cc, const struct ibv_flow_spec_gre *s)
{
	uint16_t cks_v = s->val.c_ks_res0_ver, cks_m = s->mask.c_ks_res0_ver;
	int rc;

	/* mlx5 fs.c: any c_ks_res0_ver mask is EOPNOTSUPP. */
	if (cc->mlx5 && cks_m != 0)
		return EOPNOTSUPP;
	sv_val_check(cc, &s->val.protocol, &s->mask.protocol, 2);
	sv_val_check(cc, &s->val.key, &s->mask.key, 4);
	/* The key exists only with K set: a key match asks for it (the
	 * mlx5 profile cannot, its C/K/S mask must stay zero). */
	if (!cc->mlx5 && s->mask.key != 0) {
		uint16_t k = SV_GRE_K;

		rc = sv_put(cc, SV_KF(gre_c_ks_ver), &k, &k, 2);
		if (rc != 0)
			return rc;
	}
	rc = sv_put(cc, SV_KF(gre_c_ks_ver), &cks_v, &cks_m, 2);
	if (rc == 0)
		rc = sv_put(cc, SV_KF(gre_protocol), &s->val.protocol,
			    &s->mask.protocol, 2);
	if (rc == 0)
		rc = sv_put(cc, SV_KF(gre_key), &s->val.key, &s->mask.key, 4);
	/* mlx5 fs.c: GRE implies IP protocol 47 through set_proto(). */
	if (rc == 0)
		rc = sv_put_proto(cc, SV_OUTER, 0xff, SV_IPPROTO_GRE);
	if (rc == 0)
		sv_present(cc, SV_OUTER, SV_P_GRE);
	return rc;
}

static int
sv_cc_mpls(struct sv_cc *cc, int layer, const struct ibv_flow_spec_mpls *s,
	   uint32_t prev_type)
{
	bool over_l4 = prev_type == IBV_FLOW_SPEC_UDP ||
		       prev_type == IBV_FLOW_SPEC_GRE;
	int rc;

	/* mlx5 fs.c parse_flow_attr() -> check_mpls_supp_fields(): a masked
	 * label, EXP, S or TTL bit the device has no match field for is
	 * EOPNOTSUPP; over UDP and over GRE the firmware parses MPLS only
	 * with FLEX_PARSER_PROFILE_ENABLE=1
	 * (ft_field_support.outer_first_mpls_over_udp / _over_gre). */
	if (cc->mlx5 && over_l4 && !cc->mpls_over_l4 && s->mask.label != 0)
		return EOPNOTSUPP;
	/* Placement as mlx5 fs.c does it from the previous spec: over UDP,
	 * over GRE, or right after the outer L2. */
	if (layer == SV_OUTER) {
		if (over_l4)
			rc = sv_put_tunnel(cc, SV_TUN_MPLS);
		else
			rc = sv_put_tunnel(cc, SV_TUN_NONE);
		if (rc != 0)
			return rc;
	}
	sv_val_check(cc, &s->val.label, &s->mask.label, 4);
	rc = sv_put(cc, SV_KF(mpls_label), &s->val.label, &s->mask.label, 4);
	if (rc == 0)
		sv_present(cc, layer, SV_P_MPLS);
	return rc;
}

static int
sv_cc_tag(struct sv_cc *cc, const struct ibv_flow_spec_action_tag *s)
{
	if (cc->mlx5) {
		/* mlx5 fs.c parse_flow_attr(): tag_id >= BIT(24) -> EINVAL;
		 * a later TAG spec overwrites the flow tag. */
		if (s->tag_id >= (1u << 24))
			return EINVAL;
	} else if (cc->ntag > 0 && cc->act.tag != s->tag_id) {
		/* Two different tags for one rule: ambiguous. */
		return EINVAL;
	}
	cc->ntag++;
	cc->act.has_tag = true;
	cc->act.tag = s->tag_id;
	return 0;
}

static int
sv_cc_count(struct sv_cc *cc, const struct ibv_flow_spec_counter_action *s)
{
	struct sv_counters *c;

	if (s->counters == NULL)
		return EINVAL;
	/* Whether it has attach points is checked when the flow binds it
	 * (sv_counters_bind), not here: compiling has no side effects. */
	c = sv_container_of(s->counters, struct sv_counters, c);
	cc->act.counters = c;
	return 0;
}

static int
sv_cc_spec(struct sv_cc *cc, const uint8_t *p, uint32_t type, uint16_t size,
	   uint32_t prev_type)
{
	uint32_t base = type & ~(uint32_t)IBV_FLOW_SPEC_INNER;
	int layer = (type & IBV_FLOW_SPEC_INNER) ? SV_INNER : SV_OUTER;
	const struct sv_spec_desc *d = sv_spec_desc(base);
	union {
		struct ibv_flow_spec_eth eth;
		struct ibv_flow_spec_ipv4 ipv4;
		struct ibv_flow_spec_ipv4_ext ipv4_ext;
		struct ibv_flow_spec_ipv6 ipv6;
		struct ibv_flow_spec_tcp_udp tcp_udp;
		struct ibv_flow_spec_esp esp;
		struct ibv_flow_spec_tunnel tunnel;
		struct ibv_flow_spec_gre gre;
		struct ibv_flow_spec_mpls mpls;
		struct ibv_flow_spec_action_tag tag;
		struct ibv_flow_spec_counter_action count;
	} s;

	if (d == NULL)
		return EINVAL;
	sv_spec_load(p, size, d, &s);
	switch (base) {
	case IBV_FLOW_SPEC_ETH:
		return sv_cc_eth(cc, layer, &s.eth);
	case IBV_FLOW_SPEC_IPV4:
		return sv_cc_ipv4_addr(cc, layer, &s.ipv4.val.src_ip,
				       &s.ipv4.mask.src_ip, &s.ipv4.val.dst_ip,
				       &s.ipv4.mask.dst_ip);
	case IBV_FLOW_SPEC_IPV4_EXT:
		return sv_cc_ipv4_ext(cc, layer, &s.ipv4_ext);
	case IBV_FLOW_SPEC_IPV6:
		return sv_cc_ipv6(cc, layer, &s.ipv6);
	case IBV_FLOW_SPEC_TCP:
		return sv_cc_l4(cc, layer, &s.tcp_udp, true);
	case IBV_FLOW_SPEC_UDP:
		return sv_cc_l4(cc, layer, &s.tcp_udp, false);
	case IBV_FLOW_SPEC_ESP:
		return sv_cc_esp(cc, layer, &s.esp);
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		return sv_cc_vxlan(cc, &s.tunnel);
	case IBV_FLOW_SPEC_GRE:
		return sv_cc_gre(cc, &s.gre);
	case IBV_FLOW_SPEC_MPLS:
		return sv_cc_mpls(cc, layer, &s.mpls, prev_type);
	case IBV_FLOW_SPEC_ACTION_TAG:
		return sv_cc_tag(cc, &s.tag);
	case IBV_FLOW_SPEC_ACTION_DROP:
		cc->act.drop = true;
		return 0;
	case IBV_FLOW_SPEC_ACTION_COUNT:
		return sv_cc_count(cc, &s.count);
	case IBV_FLOW_SPEC_ACTION_HANDLE:
		/* Flow actions (ibv_create_flow_action) are not modelled. */
		return EOPNOTSUPP;
	default:
		return EINVAL;
	}
}

/*
 * First pass, what rdma-core checks before the kernel sees the rule
 * (providers/mlx5/verbs.c get_flow_mcounters, libibverbs/cmd.c
 * ib_spec_to_kern_spec): sizes, known types, INNER only on header specs,
 * no mask bits past the known fields, at most one COUNT spec. Also
 * gathers what is_valid_ethertype() needs. The specs must fill attr.size
 * exactly (see the top of the file); nothing past it is read.
 */
static int
sv_spec_scan(const struct ibv_flow_attr *attr, bool mlx5,
	     struct sv_etype_scan scan[SV_NLAYER])
{
	const uint8_t *p = (const uint8_t *)(attr + 1);
	size_t left;
	unsigned int i, ncount = 0;

	memset(scan, 0, sizeof(*scan) * SV_NLAYER);
	scan[SV_OUTER].mask_valid = true;
	scan[SV_INNER].mask_valid = true;
	if (attr->size < sizeof(*attr))
		return EINVAL;
	left = attr->size - sizeof(*attr);
	for (i = 0; i < attr->num_of_specs; i++) {
		const struct sv_spec_desc *d;
		uint32_t type, base;
		uint16_t size;
		int layer;

		/* The next header, then the whole spec, inside attr.size. */
		if (left < SV_SPEC_HDR_LEN)
			return EINVAL;
		sv_spec_hdr(p, &type, &size);
		if (size < SV_SPEC_HDR_LEN || size > left)
			return EINVAL;
		base = type & ~(uint32_t)IBV_FLOW_SPEC_INNER;
		layer = (type & IBV_FLOW_SPEC_INNER) ? SV_INNER : SV_OUTER;
		d = sv_spec_desc(base);
		if (d == NULL)
			return EINVAL;
		if (layer == SV_INNER && !d->inner_ok)
			return EINVAL;
		if (size < d->ssize)
			return EINVAL;
		if (d->ext && sv_spec_trailing_mask(p, size, d))
			return EOPNOTSUPP;
		if (base == IBV_FLOW_SPEC_ACTION_COUNT && ++ncount > 1)
			return EINVAL;
		/* uverbs kern_spec_to_ib_spec_filter(), before the driver
		 * sees any spec: a tunnel_id value or mask of 2^24 or more
		 * (host order) is EINVAL. */
		if (mlx5 && base == IBV_FLOW_SPEC_VXLAN_TUNNEL) {
			struct ibv_flow_spec_tunnel t;

			sv_spec_load(p, size, d, &t);
			if (ntohl(t.val.tunnel_id) >= (UINT32_C(1) << 24) ||
			    ntohl(t.mask.tunnel_id) >= (UINT32_C(1) << 24))
				return EINVAL;
		}
		if (base == IBV_FLOW_SPEC_ETH) {
			struct ibv_flow_spec_eth eth;

			memcpy(&eth, p, sizeof(eth));
			if (eth.mask.ether_type != 0) {
				scan[layer].has_ethertype = true;
				scan[layer].mask_valid = eth.mask.ether_type ==
							 0xffff;
				scan[layer].eth_type =
					ntohs(eth.val.ether_type);
			}
		} else if (base == IBV_FLOW_SPEC_IPV4 ||
			   base == IBV_FLOW_SPEC_IPV4_EXT) {
			scan[layer].ip_spec = IBV_FLOW_SPEC_IPV4;
		} else if (base == IBV_FLOW_SPEC_IPV6) {
			scan[layer].ip_spec = IBV_FLOW_SPEC_IPV6;
		}
		p += size;
		left -= size;
	}
	/* ib_uverbs_ex_create_flow(): bytes left over are EINVAL too. */
	return left == 0 ? 0 : EINVAL;
}

/*
 * mlx5 fs.c is_valid_ethertype(): with an IP spec in a stack, a masked
 * ether_type there must be fully masked and name that IP version. (The
 * MPLS ethertypes it also lets through need ip_version matching, which
 * this device model does not claim.)
 */
static bool
sv_mlx5_ethertype_ok(const struct sv_etype_scan *s)
{
	if (!s->has_ethertype || s->ip_spec == 0)
		return true;
	if (!s->mask_valid)
		return false;
	return (s->eth_type == 0x0800 && s->ip_spec == IBV_FLOW_SPEC_IPV4) ||
	       (s->eth_type == 0x86dd && s->ip_spec == IBV_FLOW_SPEC_IPV6);
}

/* The stack's masked ether_type must agree with its IP version. */
static int
sv_check_layer(struct sv_cc *cc, int layer)
{
	const struct sv_hdrs *hm = sv_hm(cc, layer);
	const struct sv_hdrs *hv = sv_hv(cc, layer);
	uint16_t et;

	if ((hm->present & SV_P_IPV4) && (hm->present & SV_P_IPV6))
		return EINVAL;
	if (hm->present & SV_P_IPV4)
		et = htons(0x0800);
	else if (hm->present & SV_P_IPV6)
		et = htons(0x86dd);
	else
		return 0;
	if ((et & hm->ether_type) != hv->ether_type)
		return EINVAL;
	return 0;
}

/* m is written even when compiling fails (then it means nothing). */
int
sv_spec_compile(const struct sv_caps *caps, const struct ibv_flow_attr *attr,
		struct sv_match *m, struct sv_actions *act)
{
	struct sv_etype_scan scan[SV_NLAYER];
	struct sv_cc cc;
	const uint8_t *p;
	uint32_t prev_type = 0;
	unsigned int i;
	int rc;

	if (caps == NULL || attr == NULL || m == NULL || act == NULL)
		return EINVAL;
	/* Compiled in place: the match is zeroed once, never copied. */
	memset(m, 0, sizeof(*m));
	memset(&cc, 0, sizeof(cc));
	cc.m = m;
	cc.mlx5 = caps->profile == SV_PROFILE_MLX5;
	cc.mpls_over_l4 = caps->mpls_over_l4;
	cc.attr_type = attr->type;

	rc = sv_spec_scan(attr, cc.mlx5, scan);
	if (rc != 0)
		return rc;
	if (cc.mlx5 && (!sv_mlx5_ethertype_ok(&scan[SV_OUTER]) ||
			!sv_mlx5_ethertype_ok(&scan[SV_INNER])))
		return EINVAL;

	p = (const uint8_t *)(attr + 1);
	for (i = 0; i < attr->num_of_specs; i++) {
		uint32_t type;
		uint16_t size;

		sv_spec_hdr(p, &type, &size);
		rc = sv_cc_spec(&cc, p, type, size, prev_type);
		if (rc != 0)
			return rc;
		prev_type = type;
		p += size;
	}

	rc = sv_check_layer(&cc, SV_OUTER);
	if (rc == 0)
		rc = sv_check_layer(&cc, SV_INNER);
	if (rc != 0)
		return rc;
	/* mlx5 fs.c _create_flow_rule(): "Flow tag ... isn't allowed in
	 * leftovers" (ALL_DEFAULT / MC_DEFAULT) -> EINVAL. */
	if (cc.mlx5 && cc.act.has_tag &&
	    (cc.attr_type == IBV_FLOW_ATTR_ALL_DEFAULT ||
	     cc.attr_type == IBV_FLOW_ATTR_MC_DEFAULT))
		return EINVAL;
	/* check_valid_spec(), after the specs are parsed; the kernel builds
	 * its own match for the other rule types (create_leftovers_rule(),
	 * create_sniffer_rule()). */
	if (cc.val_out && cc.attr_type == IBV_FLOW_ATTR_NORMAL)
		return EINVAL;

	*act = cc.act;
	return 0;
}
