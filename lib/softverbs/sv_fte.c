/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * PRM fte_match_param compiler: the mask or value buffer of
 * mlx5dv_create_flow_matcher(3) / mlx5dv_create_flow(3) into struct sv_key.
 * The layout is the driver's own (vsteer_prm.h): one definition for the
 * side that writes the buffer and the side that reads it.
 *
 * PRM field (lyr_2_4: S = outer or inner stack) -> key field
 *   smac, dmac                 -> S.smac, S.dmac
 *   ethertype                  -> S.ether_type (after the VLAN tags)
 *   first_prio/first_cfi/first_vid -> S.vlan_tci (same bit layout)
 *   cvlan_tag / svlan_tag      -> SV_P_CVLAN / SV_P_SVLAN in S.present (the
 *                                 first tag is 802.1Q / 802.1ad; PRM:
 *                                 "the first vlan in the packet is c-vlan
 *                                 (0x8100)" / "s-vlan (0x88a8)")
 *   ip_version                 -> S.ip_version (the parser writes 4 or
 *                                 6, as the device does; any mask)
 *   frag                       -> SV_P_IPFRAG
 *   ip_protocol                -> S.ip_proto
 *   ip_dscp:ip_ecn             -> S.tos (the same 8 bits)
 *   ipv4_ihl                   -> S.ihl
 *   ttl_hoplimit               -> S.ttl
 *   tcp_flags (9 bits)         -> S.tcp_ns (bit 8, NS), S.tcp_flags (0-7)
 *   tcp_sport/dport or udp_sport/dport -> S.sport, S.dport
 *   src/dst ipv4_layout / ipv6_layout -> S.src_ip, S.dst_ip as they are
 *                                 (the key keeps the union's layout: IPv4
 *                                 in the last 4 bytes, sv_key.h)
 * misc
 *   gre_c/k/s_present          -> gre_c_ks_ver C (0x8000), K (0x2000),
 *                                 S (0x1000), network order
 *   gre_protocol, gre_key      -> gre_protocol, gre_key
 *   vxlan_vni                  -> vni (as ibv_flow_tunnel_filter)
 *   outer/inner_ipv6_flow_label -> outer/inner.flow_label
 *   outer/inner_second_cvlan_tag, _svlan_tag -> SV_P_CVLAN2 / SV_P_SVLAN2
 *                                 in outer/inner.present
 *   outer_esp_spi              -> outer_esp_spi (an outer ESP header's)
 * misc2
 *   outer_first_mpls_over_gre / _over_udp -> mpls_label
 *
 * Absent headers: the device reads the fields of a header a frame does
 * not have as zero, and so does the parser (sv_parse() zeroes the key).
 * A field therefore compiles to its key field alone, without a presence
 * bit; only the fields that are presence bits in the PRM (cvlan_tag,
 * svlan_tag, the second-tag bits, frag) set SV_P_* bits.
 *
 * TCP and UDP ports (and TCP flags): the PRM has a pair of each, the key
 * one pair, filled from whichever header the frame has. Under an
 * ip_protocol mask of 0xff the protocol says whose they are (6 for TCP
 * fields, 17 for UDP; another protocol is EOPNOTSUPP). Without an
 * ip_protocol mask the device takes them all the same (Linux 6.1 and
 * rdma-core 44 pass the matcher's mask as it is): a frame of another
 * protocol reads them as zero, so a rule whose value is not zero there
 * matches frames of that protocol only, which the key says with SV_P_TCP
 * / SV_P_UDP in the mask and the value. A value of zero there would also
 * match every frame of other protocols: not one match in the key, so
 * EOPNOTSUPP (not modelled). The value's compile is given the matcher's
 * compiled mask for this. A partial ip_protocol mask under port fields,
 * TCP and UDP fields together, and MPLS over UDP / over GRE without
 * ip_protocol 17 / 47 (or a full mask) are EOPNOTSUPP too.
 *
 * Fields softverbs does not model (the second tag's VID/PCP/CFI, GENEVE,
 * inner ESP SPI, metadata, misc3 and beyond) must be zero in enabled
 * sections: EOPNOTSUPP. Disabled sections are ignored, as by the device:
 * Linux 6.1 hands the matcher's criteria and match_criteria_enable to the
 * firmware as they are (mlx5_ib's flow matcher, fs_core's autogroups);
 * older kernels refused criteria bits in a disabled section
 * (check_valid_mask(), removed since).
 */

#include <errno.h>
#include <stdint.h>
#include <string.h>

#include "sv_internal.h"
#include "sv_key.h"
#include "vsteer_prm.h"

#define SV_IPPROTO_TCP 6
#define SV_IPPROTO_UDP 17
#define SV_IPPROTO_GRE 47

/* The bits of a section softverbs can match. */
struct sv_fte_sup {
	uint8_t l24[VSTEER_PRM_SECT_BYTES];
	uint8_t misc[VSTEER_PRM_SECT_BYTES];
	uint8_t misc2[VSTEER_PRM_SECT_BYTES];
};

#define SV_SUP(buf, fld) vsteer_prm_set((buf), fld##_OFF, fld##_LEN, UINT32_MAX)

static void
sv_fte_sup_init(struct sv_fte_sup *s)
{
	memset(s, 0, sizeof(*s));
	memset(s->l24 + VSTEER_PRM_L24_SMAC_OFF / 8, 0xff, 6);
	memset(s->l24 + VSTEER_PRM_L24_DMAC_OFF / 8, 0xff, 6);
	SV_SUP(s->l24, VSTEER_PRM_L24_ETHERTYPE);
	SV_SUP(s->l24, VSTEER_PRM_L24_FIRST_PRIO);
	SV_SUP(s->l24, VSTEER_PRM_L24_FIRST_CFI);
	SV_SUP(s->l24, VSTEER_PRM_L24_FIRST_VID);
	SV_SUP(s->l24, VSTEER_PRM_L24_IP_PROTOCOL);
	SV_SUP(s->l24, VSTEER_PRM_L24_IP_DSCP);
	SV_SUP(s->l24, VSTEER_PRM_L24_IP_ECN);
	SV_SUP(s->l24, VSTEER_PRM_L24_CVLAN_TAG);
	SV_SUP(s->l24, VSTEER_PRM_L24_SVLAN_TAG);
	SV_SUP(s->l24, VSTEER_PRM_L24_FRAG);
	SV_SUP(s->l24, VSTEER_PRM_L24_IP_VERSION);
	SV_SUP(s->l24, VSTEER_PRM_L24_TCP_FLAGS);
	SV_SUP(s->l24, VSTEER_PRM_L24_TCP_SPORT);
	SV_SUP(s->l24, VSTEER_PRM_L24_TCP_DPORT);
	SV_SUP(s->l24, VSTEER_PRM_L24_IPV4_IHL);
	SV_SUP(s->l24, VSTEER_PRM_L24_TTL_HOPLIMIT);
	SV_SUP(s->l24, VSTEER_PRM_L24_UDP_SPORT);
	SV_SUP(s->l24, VSTEER_PRM_L24_UDP_DPORT);
	memset(s->l24 + VSTEER_PRM_L24_SRC_IP_OFF / 8, 0xff, 16);
	memset(s->l24 + VSTEER_PRM_L24_DST_IP_OFF / 8, 0xff, 16);

	SV_SUP(s->misc, VSTEER_PRM_MISC_GRE_C_PRESENT);
	SV_SUP(s->misc, VSTEER_PRM_MISC_GRE_K_PRESENT);
	SV_SUP(s->misc, VSTEER_PRM_MISC_GRE_S_PRESENT);
	SV_SUP(s->misc, VSTEER_PRM_MISC_GRE_PROTOCOL);
	SV_SUP(s->misc, VSTEER_PRM_MISC_GRE_KEY);
	SV_SUP(s->misc, VSTEER_PRM_MISC_VXLAN_VNI);
	SV_SUP(s->misc, VSTEER_PRM_MISC_OUTER_IPV6_FLOW_LABEL);
	SV_SUP(s->misc, VSTEER_PRM_MISC_INNER_IPV6_FLOW_LABEL);
	SV_SUP(s->misc, VSTEER_PRM_MISC_OUTER_SECOND_CVLAN_TAG);
	SV_SUP(s->misc, VSTEER_PRM_MISC_INNER_SECOND_CVLAN_TAG);
	SV_SUP(s->misc, VSTEER_PRM_MISC_OUTER_SECOND_SVLAN_TAG);
	SV_SUP(s->misc, VSTEER_PRM_MISC_INNER_SECOND_SVLAN_TAG);
	SV_SUP(s->misc, VSTEER_PRM_MISC_OUTER_ESP_SPI);

	memset(s->misc2 + VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_GRE_OFF / 8,
	       0xff, 4);
	memset(s->misc2 + VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_UDP_OFF / 8,
	       0xff, 4);
}

/* EOPNOTSUPP when the section has a bit outside sup. */
static int
sv_fte_check(const uint8_t *sect, const uint8_t *sup)
{
	unsigned int i;

	for (i = 0; i < VSTEER_PRM_SECT_BYTES; i++)
		if (sect[i] & ~sup[i])
			return EOPNOTSUPP;
	return 0;
}

static bool
sv_fte_nonzero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i])
			return true;
	return false;
}

#define SV_GET(sect, fld) vsteer_prm_get((sect), fld##_OFF, fld##_LEN)

/*
 * The ports (and flags) of one L4 protocol: bit is SV_P_TCP or SV_P_UDP,
 * proto its IP protocol; hm is the matcher's compiled stack when s is a
 * rule's value, NULL when s is the mask (see the top of the file).
 */
static int
sv_fte_l4(const uint8_t *s, struct sv_hdrs *h, const struct sv_hdrs *hm,
	  uint32_t bit, uint8_t proto, uint32_t sport_off, uint32_t dport_off)
{
	uint32_t p = SV_GET(s, VSTEER_PRM_L24_IP_PROTOCOL);

	if (hm == NULL) {
		if (p == 0)
			h->present |= bit;
		else if (p != 0xff)
			return EOPNOTSUPP;
	} else if (hm->present & bit) {
		h->present |= bit;
	} else if (p != proto) {
		return EOPNOTSUPP;
	}
	memcpy(&h->sport, s + sport_off / 8, 2);
	memcpy(&h->dport, s + dport_off / 8, 2);
	return 0;
}

static int
sv_fte_l24(const uint8_t *s, struct sv_hdrs *h, const struct sv_hdrs *hm)
{
	uint32_t ipv = SV_GET(s, VSTEER_PRM_L24_IP_VERSION);
	uint32_t proto = SV_GET(s, VSTEER_PRM_L24_IP_PROTOCOL);
	uint32_t flags = SV_GET(s, VSTEER_PRM_L24_TCP_FLAGS);
	bool tcp, udp;

	memcpy(h->smac, s + VSTEER_PRM_L24_SMAC_OFF / 8, 6);
	memcpy(h->dmac, s + VSTEER_PRM_L24_DMAC_OFF / 8, 6);
	memcpy(&h->ether_type, s + VSTEER_PRM_L24_ETHERTYPE_OFF / 8, 2);
	/* first_prio:first_cfi:first_vid is a TCI, bit for bit. */
	memcpy(&h->vlan_tci, s + VSTEER_PRM_L24_FIRST_PRIO_OFF / 8, 2);
	h->ip_proto = (uint8_t)proto;
	/* ip_dscp:ip_ecn is the TOS / traffic class byte. */
	h->tos = s[VSTEER_PRM_L24_IP_DSCP_OFF / 8];
	h->ttl = (uint8_t)SV_GET(s, VSTEER_PRM_L24_TTL_HOPLIMIT);
	h->ihl = (uint8_t)SV_GET(s, VSTEER_PRM_L24_IPV4_IHL);
	/* tcp_flags bit 8 is NS, bits 7..0 CWR .. FIN. */
	h->tcp_flags = (uint8_t)flags;
	h->tcp_ns = (uint8_t)(flags >> 8);
	if (SV_GET(s, VSTEER_PRM_L24_CVLAN_TAG))
		h->present |= SV_P_CVLAN;
	if (SV_GET(s, VSTEER_PRM_L24_SVLAN_TAG))
		h->present |= SV_P_SVLAN;
	if (SV_GET(s, VSTEER_PRM_L24_FRAG))
		h->present |= SV_P_IPFRAG;
	/* The version the device parsed, bit for bit: any mask. */
	h->ip_version = (uint8_t)ipv;
	/* The address union as it is: no family to guess. */
	memcpy(h->src_ip, s + VSTEER_PRM_L24_SRC_IP_OFF / 8, 16);
	memcpy(h->dst_ip, s + VSTEER_PRM_L24_DST_IP_OFF / 8, 16);
	/* One pair of ports in the key: the protocol must say whose. */
	tcp = flags || SV_GET(s, VSTEER_PRM_L24_TCP_SPORT) ||
	      SV_GET(s, VSTEER_PRM_L24_TCP_DPORT);
	udp = SV_GET(s, VSTEER_PRM_L24_UDP_SPORT) ||
	      SV_GET(s, VSTEER_PRM_L24_UDP_DPORT);
	if (tcp && udp)
		return EOPNOTSUPP;
	if (tcp)
		return sv_fte_l4(s, h, hm, SV_P_TCP, SV_IPPROTO_TCP,
				 VSTEER_PRM_L24_TCP_SPORT_OFF,
				 VSTEER_PRM_L24_TCP_DPORT_OFF);
	if (udp)
		return sv_fte_l4(s, h, hm, SV_P_UDP, SV_IPPROTO_UDP,
				 VSTEER_PRM_L24_UDP_SPORT_OFF,
				 VSTEER_PRM_L24_UDP_DPORT_OFF);
	/* Masked without a protocol, valued zero (see above). */
	if (hm != NULL && (hm->present & (SV_P_TCP | SV_P_UDP)))
		return EOPNOTSUPP;
	return 0;
}

/* A 20-bit flow label field into the key's network-order word. */
static void
sv_fte_flow_label(const uint8_t *misc, uint32_t off, uint32_t *out)
{
	uint32_t fl = vsteer_prm_get(misc, off,
				     VSTEER_PRM_MISC_OUTER_IPV6_FLOW_LABEL_LEN);
	uint8_t b[4] = { 0, (uint8_t)(fl >> 16), (uint8_t)(fl >> 8),
			 (uint8_t)fl };

	memcpy(out, b, 4);
}

static void
sv_fte_misc(const uint8_t *m, struct sv_key *k)
{
	uint8_t cks[2] = { 0, 0 };
	uint8_t vni[4] = { 0 };

	if (SV_GET(m, VSTEER_PRM_MISC_GRE_C_PRESENT))
		cks[0] |= 0x80;
	if (SV_GET(m, VSTEER_PRM_MISC_GRE_K_PRESENT))
		cks[0] |= 0x20;
	if (SV_GET(m, VSTEER_PRM_MISC_GRE_S_PRESENT))
		cks[0] |= 0x10;
	memcpy(&k->gre_c_ks_ver, cks, 2);
	memcpy(&k->gre_protocol, m + VSTEER_PRM_MISC_GRE_PROTOCOL_OFF / 8, 2);
	memcpy(&k->gre_key, m + VSTEER_PRM_MISC_GRE_KEY_OFF / 8, 4);
	memcpy(vni + 1, m + VSTEER_PRM_MISC_VXLAN_VNI_OFF / 8, 3);
	memcpy(&k->vni, vni, 4);
	sv_fte_flow_label(m, VSTEER_PRM_MISC_OUTER_IPV6_FLOW_LABEL_OFF,
			  &k->outer.flow_label);
	sv_fte_flow_label(m, VSTEER_PRM_MISC_INNER_IPV6_FLOW_LABEL_OFF,
			  &k->inner.flow_label);
	if (SV_GET(m, VSTEER_PRM_MISC_OUTER_SECOND_CVLAN_TAG))
		k->outer.present |= SV_P_CVLAN2;
	if (SV_GET(m, VSTEER_PRM_MISC_OUTER_SECOND_SVLAN_TAG))
		k->outer.present |= SV_P_SVLAN2;
	if (SV_GET(m, VSTEER_PRM_MISC_INNER_SECOND_CVLAN_TAG))
		k->inner.present |= SV_P_CVLAN2;
	if (SV_GET(m, VSTEER_PRM_MISC_INNER_SECOND_SVLAN_TAG))
		k->inner.present |= SV_P_SVLAN2;
	memcpy(&k->outer_esp_spi, m + VSTEER_PRM_MISC_OUTER_ESP_SPI_OFF / 8, 4);
}

static int
sv_fte_misc2(const uint8_t *m2, uint8_t outer_proto, struct sv_key *k)
{
	const uint8_t *gre =
		m2 + VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_GRE_OFF / 8;
	const uint8_t *udp =
		m2 + VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_UDP_OFF / 8;
	bool over_gre = sv_fte_nonzero(gre, 4);
	bool over_udp = sv_fte_nonzero(udp, 4);

	/* The key has one label: the outer protocol tells the carriers
	 * apart. */
	if (over_gre && over_udp)
		return EOPNOTSUPP;
	if (over_gre) {
		if (outer_proto != 0xff && outer_proto != SV_IPPROTO_GRE)
			return EOPNOTSUPP;
		memcpy(&k->mpls_label, gre, 4);
	} else if (over_udp) {
		if (outer_proto != 0xff && outer_proto != SV_IPPROTO_UDP)
			return EOPNOTSUPP;
		memcpy(&k->mpls_label, udp, 4);
	}
	return 0;
}

int
sv_fte_compile(const struct sv_caps *caps, uint8_t criteria_enable,
	       const void *buf, size_t len, const struct sv_key *mask,
	       struct sv_key *out)
{
	const uint8_t *b = buf;
	struct sv_fte_sup sup;
	unsigned int i;
	int rc;

	(void)caps;
	if (out == NULL)
		return EINVAL;
	memset(out, 0, sizeof(*out));
	if (criteria_enable & ~VSTEER_PRM_CRIT_ALL)
		return EINVAL;
	if (len > VSTEER_PRM_MATCH_PARAM_BYTES ||
	    len < vsteer_prm_match_min_size(criteria_enable) ||
	    (len > 0 && buf == NULL))
		return EINVAL;
	sv_fte_sup_init(&sup);
	/* Sections softverbs has no key fields for at all. */
	for (i = VSTEER_PRM_CRIT_MISC3_BIT; i < VSTEER_PRM_NUM_SECTS; i++)
		if ((criteria_enable & (1u << i)) &&
		    sv_fte_nonzero(b + i * VSTEER_PRM_SECT_BYTES,
				   VSTEER_PRM_SECT_BYTES))
			return EOPNOTSUPP;
	if (criteria_enable & (1u << VSTEER_PRM_CRIT_OUTER_BIT)) {
		const uint8_t *s = b + VSTEER_PRM_OUTER / 8;

		rc = sv_fte_check(s, sup.l24);
		if (rc == 0)
			rc = sv_fte_l24(s, &out->outer,
					mask != NULL ? &mask->outer : NULL);
		if (rc != 0)
			return rc;
	}
	if (criteria_enable & (1u << VSTEER_PRM_CRIT_INNER_BIT)) {
		const uint8_t *s = b + VSTEER_PRM_INNER / 8;

		rc = sv_fte_check(s, sup.l24);
		if (rc == 0)
			rc = sv_fte_l24(s, &out->inner,
					mask != NULL ? &mask->inner : NULL);
		if (rc != 0)
			return rc;
	}
	if (criteria_enable & (1u << VSTEER_PRM_CRIT_MISC_BIT)) {
		const uint8_t *s = b + VSTEER_PRM_MISC / 8;

		rc = sv_fte_check(s, sup.misc);
		if (rc != 0)
			return rc;
		sv_fte_misc(s, out);
	}
	if (criteria_enable & (1u << VSTEER_PRM_CRIT_MISC2_BIT)) {
		const uint8_t *s = b + VSTEER_PRM_MISC2 / 8;

		rc = sv_fte_check(s, sup.misc2);
		if (rc == 0)
			rc = sv_fte_misc2(s, out->outer.ip_proto, out);
		if (rc != 0)
			return rc;
	}
	return 0;
}
