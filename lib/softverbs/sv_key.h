/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_KEY_H
#define SV_KEY_H

/*
 * The classification key: one parsed frame, and the contract between the
 * packet parser and rule compilers (sv_parse.c, sv_spec.c, sv_fte.c) and the
 * rule table (sv_steer.c).
 *
 * A rule is a (mask, value) pair over struct sv_key, compared bytewise:
 * a frame matches when (key & mask) == value for every byte. Every field is
 * kept in wire (network) byte order so that verbs filters and PRM match
 * values can be copied in without conversion. The "present" bitmaps make
 * protocol presence matchable: a rule with an IPv4 spec sets SV_P_IPV4 in
 * both mask and value, so it only matches IPv4 frames even with an all-zero
 * address mask.
 *
 * The rule table treats the key as opaque bytes (hash of key & mask per
 * distinct mask); only the parser and the compilers interpret fields.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <infiniband/verbs.h>

/* struct sv_hdrs.present bits */
#define SV_P_ETH (1u << 0)
#define SV_P_VLAN (1u << 1) /* at least one 802.1Q/802.1ad tag */
#define SV_P_IPV4 (1u << 2)
#define SV_P_IPV6 (1u << 3)
#define SV_P_TCP (1u << 4)
#define SV_P_UDP (1u << 5)
#define SV_P_IPFRAG (1u << 6) /* IPv4 MF set or offset != 0; IPv6 frag hdr */
#define SV_P_ESP (1u << 7)
#define SV_P_GRE (1u << 8)
#define SV_P_MPLS (1u << 9)
/* Which tags, as the PRM's cvlan_tag / svlan_tag and the second-tag bits
 * of misc tell them apart (by TPID). */
#define SV_P_CVLAN (1u << 10)  /* the first tag is 802.1Q (0x8100) */
#define SV_P_SVLAN (1u << 11)  /* the first tag is 802.1ad (0x88a8) */
#define SV_P_CVLAN2 (1u << 12) /* a second tag, 802.1Q */
#define SV_P_SVLAN2 (1u << 13) /* a second tag, 802.1ad */

/*
 * Addresses are kept as the PRM's ipv4_layout / ipv6_layout union keeps
 * them: an IPv6 address fills the 16 bytes, an IPv4 address is the last 4
 * (the first 12 stay zero). A mask on the low 32 bits then means the same
 * for both families, as on the device.
 */
#define SV_IPV4_OFF 12

/* One header stack: the outer frame, or the frame inside a tunnel. */
struct sv_hdrs {
	uint32_t present; /* SV_P_* (host order: a bitmap, not a field) */
	uint8_t dmac[6];
	uint8_t smac[6];
	uint16_t vlan_tci;   /* first tag's TCI (PCP, DEI, VID) */
	uint16_t ether_type; /* after the VLAN tags */
	uint8_t src_ip[16];  /* IPv4: bytes SV_IPV4_OFF.. */
	uint8_t dst_ip[16];
	uint32_t flow_label; /* IPv6, low 20 bits, network order */
	uint8_t ip_proto;    /* IPv4 protocol / IPv6 next header (L4) */
	uint8_t tos;	     /* IPv4 TOS / IPv6 traffic class */
	uint8_t ttl;	     /* IPv4 TTL / IPv6 hop limit */
	uint8_t ip_flags;    /* IPv4 flags (3 bits, right aligned) */
	uint16_t sport;	     /* TCP / UDP */
	uint16_t dport;
	uint8_t tcp_flags;  /* CWR .. FIN */
	uint8_t tcp_ns;	    /* the NS flag (low bit of the offset byte) */
	uint8_t ihl;	    /* IPv4 header length, 32-bit words */
	uint8_t ip_version; /* the L3 header's version: 4, 6, 0 without */
};

/* struct sv_key.tunnel values */
#define SV_TUN_NONE 0
#define SV_TUN_VXLAN 1
#define SV_TUN_GRE 2
#define SV_TUN_MPLS 3 /* MPLS over UDP (port 6635) or over GRE */

struct sv_key {
	struct sv_hdrs outer;
	struct sv_hdrs inner; /* valid when tunnel != SV_TUN_NONE */
	uint8_t tunnel;
	uint8_t pad_[3];
	uint32_t vni;	       /* VXLAN VNI, as ibv_flow_tunnel_filter */
	uint16_t gre_c_ks_ver; /* GRE C/K/S bits and version (first 16 bits) */
	uint16_t gre_protocol;
	uint32_t gre_key;
	uint32_t mpls_label; /* first label stack entry, whole 32 bits */
	uint32_t esp_spi;    /* the ESP header's, outer or inner */
	uint32_t esp_seq;
	/* The SPI of an ESP header of the outer stack only (the PRM's
	 * misc.outer_esp_spi): 0 when the outer stack has none. */
	uint32_t outer_esp_spi;
};

struct sv_match {
	struct sv_key mask;
	struct sv_key value; /* already ANDed with mask */
};

/* Per-frame facts that are not matchable but the device reports. */
struct sv_pkt_info {
	uint16_t l3_off; /* outer L3 header offset, 0 if none */
	uint16_t l4_off; /* outer L4 header offset, 0 if none */
	uint16_t inner_l3_off;
	uint16_t inner_l4_off;
	bool l3_csum_ok; /* outer IPv4 header checksum verified */
	bool l4_csum_ok; /* outer TCP/UDP checksum verified */
};

/*
 * Parse a frame into key (and info when not NULL). Never fails: what cannot
 * be parsed stays absent from key->*.present. Bounded by len.
 */
void sv_parse(const uint8_t *frame, uint32_t len, struct sv_key *key,
	      struct sv_pkt_info *info);
/* The parser without its fast path for the common frame (sv_parse()
 * gives the same result): for tests. */
void sv_parse_generic(const uint8_t *frame, uint32_t len, struct sv_key *key,
		      struct sv_pkt_info *info);

static inline bool
sv_match_hit(const struct sv_match *m, const struct sv_key *key)
{
	const uint8_t *k = (const uint8_t *)key;
	const uint8_t *mk = (const uint8_t *)&m->mask;
	const uint8_t *v = (const uint8_t *)&m->value;
	size_t i;

	for (i = 0; i < sizeof(*key); i++)
		if ((k[i] & mk[i]) != v[i])
			return false;
	return true;
}

struct sv_counters;
struct sv_edit;

/* What a rule does with a frame it matches (besides its QP destination). */
struct sv_actions {
	bool drop;
	bool has_tag;
	uint32_t tag;		      /* < 2^24 */
	struct sv_counters *counters; /* NULL when none */
	/* Decap, header rewrite, encap (mlx5dv flow actions, sv_pktedit.h);
	 * NULL when none. */
	const struct sv_edit *edit;
};

/* What a device enforces when compiling rules (see enum sv_profile). */
struct sv_caps {
	int profile;	       /* enum sv_profile */
	uint32_t max_priority; /* highest verbs priority accepted */
	/* mlx5: the firmware parses MPLS over GRE and over UDP
	 * (FLEX_PARSER_PROFILE_ENABLE=1); the rest are matched anyway. */
	bool mpls_over_l4;
	/* mlx5: the IPv4 IHL match field (outer and inner). */
	bool ipv4_ihl;
	/* mlx5: flow table capabilities of the NIC receive and transmit
	 * tables: max_modify_header_actions (both) and the flow table's
	 * max_encap_header_size. */
	uint32_t max_modify_actions;
	uint32_t max_encap_size;
};

/*
 * Compile a verbs rule (struct ibv_flow_attr followed by its specs, as
 * ibv_create_flow(3) lays them out) into match + actions.
 * Returns 0 or a positive errno as the man page / the profile says
 * (EINVAL unknown spec or malformed chain, EOPNOTSUPP unsupported mask, ...).
 */
int
sv_spec_compile(const struct sv_caps *caps, const struct ibv_flow_attr *attr,
		struct sv_match *m, struct sv_actions *act);

/*
 * Compile a PRM fte_match_param (mask or value buffer of
 * mlx5dv_create_flow_matcher(3) / mlx5dv_create_flow(3)) with
 * match_criteria_enable into the sv_key layout. Used twice: once for the
 * matcher mask (mask NULL), once for each rule value, with the matcher's
 * compiled mask (what a value means can depend on the mask: ports matched
 * without an IP protocol, see sv_fte.c).
 */
int sv_fte_compile(const struct sv_caps *caps, uint8_t criteria_enable,
		   const void *buf, size_t len, const struct sv_key *mask,
		   struct sv_key *out);

#endif /* SV_KEY_H */
