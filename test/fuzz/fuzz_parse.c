/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Fuzz target: sv_parse() on arbitrary frames.
 *
 * The whole input is the frame, in a buffer of exactly its length (so a
 * read past len is a sanitizer report). Invariants:
 * - the same frame parses to the same key (no uninitialised state);
 * - reported header offsets lie inside the frame, in header order;
 * - presence bits are consistent: no L4 without an IP header in the same
 *   stack, never IPv4 and IPv6 together, inner headers only behind a
 *   tunnel, VXLAN only behind outer UDP port 4789, GRE only with SV_P_GRE,
 *   exactly one of the first tag's TPID bits with a tag and a second-tag
 *   bit only after one, the outer ESP SPI only with an outer ESP header,
 *   the IPv4 address bytes before the last four zero;
 * - the key's padding stays zero (the rule table hashes raw key bytes);
 * - a prefix of the frame never shows a header the whole frame lacks,
 *   nor another tunnel (but GRE for MPLS over GRE: the label is cut off).
 */

#include <arpa/inet.h>
#include <stdlib.h>

#include "fuzz.h"
#include "sv_key.h"

#define FZ_L4_BITS (SV_P_TCP | SV_P_UDP | SV_P_ESP)

static bool
fz_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static void
fz_check_stack(const struct sv_hdrs *h, const char *which)
{
	FZ_CHECK(!((h->present & SV_P_IPV4) && (h->present & SV_P_IPV6)),
		 "%s stack has IPv4 and IPv6", which);
	FZ_CHECK(!(h->present & FZ_L4_BITS) ||
			 (h->present & (SV_P_IPV4 | SV_P_IPV6)),
		 "%s stack has L4 (0x%x) without IP", which, h->present);
	FZ_CHECK(!(h->present & SV_P_IPFRAG) ||
			 (h->present & (SV_P_IPV4 | SV_P_IPV6)),
		 "%s stack has a fragment without IP", which);
	/* A first fragment is not parsed past L3. */
	FZ_CHECK(!((h->present & SV_P_IPFRAG) && (h->present & FZ_L4_BITS)),
		 "%s stack: fragment with L4 0x%x", which, h->present);
	FZ_CHECK(!(h->present & SV_P_VLAN) || (h->present & SV_P_ETH),
		 "%s stack: VLAN without Ethernet", which);
	FZ_CHECK(!!(h->present & SV_P_VLAN) ==
				 !!(h->present & (SV_P_CVLAN | SV_P_SVLAN)) &&
			 (h->present & (SV_P_CVLAN | SV_P_SVLAN)) !=
				 (SV_P_CVLAN | SV_P_SVLAN),
		 "%s stack: tag bits 0x%x", which, h->present);
	FZ_CHECK(!(h->present & (SV_P_CVLAN2 | SV_P_SVLAN2)) ||
			 ((h->present & SV_P_VLAN) &&
			  (h->present & (SV_P_CVLAN2 | SV_P_SVLAN2)) !=
				  (SV_P_CVLAN2 | SV_P_SVLAN2)),
		 "%s stack: second-tag bits 0x%x", which, h->present);
	if (h->present & SV_P_IPV4)
		FZ_CHECK(fz_zero(h->src_ip, SV_IPV4_OFF) &&
				 fz_zero(h->dst_ip, SV_IPV4_OFF),
			 "%s stack: IPv4 address outside the last 4 bytes",
			 which);
	FZ_CHECK(h->ip_version == ((h->present & SV_P_IPV4) ? 4 :
				   (h->present & SV_P_IPV6) ? 6 :
							      0),
		 "%s stack: ip_version %u for presence 0x%x", which,
		 h->ip_version, h->present);
	if (!(h->present & (SV_P_TCP | SV_P_UDP)))
		FZ_CHECK(h->sport == 0 && h->dport == 0,
			 "%s stack: ports without TCP/UDP", which);
}

static void
fz_check_key(const struct sv_key *k, const struct sv_pkt_info *info,
	     uint32_t len)
{
	const uint32_t outer_tun = SV_P_GRE;

	fz_check_stack(&k->outer, "outer");
	fz_check_stack(&k->inner, "inner");
	FZ_CHECK(fz_zero(k->pad_, sizeof(k->pad_)), "key padding");
	FZ_CHECK(k->tunnel <= SV_TUN_MPLS, "tunnel %u", k->tunnel);
	FZ_CHECK(!(k->inner.present & outer_tun), "GRE in the inner stack");
	FZ_CHECK(k->inner.present == 0 || k->tunnel != SV_TUN_NONE,
		 "inner headers 0x%x without a tunnel", k->inner.present);
	FZ_CHECK(k->outer.present != 0 || len < 14,
		 "a frame of %u bytes without Ethernet", len);
	switch (k->tunnel) {
	case SV_TUN_VXLAN:
		FZ_CHECK((k->outer.present & SV_P_UDP) &&
				 k->outer.dport == htons(4789),
			 "VXLAN without UDP 4789");
		break;
	case SV_TUN_GRE:
		FZ_CHECK(k->outer.present & SV_P_GRE, "GRE tunnel, no GRE bit");
		break;
	case SV_TUN_MPLS:
		FZ_CHECK(k->outer.present & SV_P_MPLS,
			 "MPLS tunnel, no MPLS bit");
		FZ_CHECK((k->outer.present & SV_P_GRE) ||
				 ((k->outer.present & SV_P_UDP) &&
				  k->outer.dport == htons(6635)),
			 "MPLS tunnel over neither GRE nor UDP 6635");
		break;
	default:
		FZ_CHECK(k->vni == 0, "VNI without VXLAN");
		break;
	}
	FZ_CHECK(k->outer_esp_spi == 0 || (k->outer.present & SV_P_ESP),
		 "outer ESP SPI without an outer ESP header");
	if (!(k->outer.present & SV_P_GRE))
		FZ_CHECK(k->gre_key == 0 && k->gre_protocol == 0 &&
				 k->gre_c_ks_ver == 0,
			 "GRE fields without GRE");
	/* Offsets: inside the frame, L3 before L4. */
	FZ_CHECK(info->l3_off < len || info->l3_off == 0, "l3_off %u of %u",
		 info->l3_off, len);
	FZ_CHECK(info->l4_off < len || info->l4_off == 0, "l4_off %u of %u",
		 info->l4_off, len);
	FZ_CHECK(info->inner_l3_off < len || info->inner_l3_off == 0,
		 "inner_l3_off %u of %u", info->inner_l3_off, len);
	FZ_CHECK(info->inner_l4_off < len || info->inner_l4_off == 0,
		 "inner_l4_off %u of %u", info->inner_l4_off, len);
	if (info->l4_off != 0)
		FZ_CHECK(info->l3_off != 0 && info->l4_off > info->l3_off,
			 "l4_off %u, l3_off %u", info->l4_off, info->l3_off);
	if (info->inner_l3_off != 0)
		FZ_CHECK(info->inner_l3_off > info->l3_off,
			 "inner_l3_off %u, l3_off %u", info->inner_l3_off,
			 info->l3_off);
	if (info->inner_l4_off != 0)
		FZ_CHECK(info->inner_l4_off > info->inner_l3_off,
			 "inner_l4_off %u, inner_l3_off %u", info->inner_l4_off,
			 info->inner_l3_off);
	FZ_CHECK(!info->l3_csum_ok || (k->outer.present & SV_P_IPV4),
		 "L3 checksum ok without outer IPv4");
	FZ_CHECK(!info->l4_csum_ok ||
			 (k->outer.present & (SV_P_TCP | SV_P_UDP)),
		 "L4 checksum ok without outer TCP/UDP");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sv_key k1, k2, kp;
	struct sv_pkt_info i1, i2, ip;
	uint32_t len = size > UINT16_MAX ? UINT16_MAX : (uint32_t)size;
	uint32_t plen;

	/* Poison the outputs: the parser must write all of them. */
	memset(&k1, 0xa5, sizeof(k1));
	memset(&i1, 0xa5, sizeof(i1));
	memset(&k2, 0x5a, sizeof(k2));
	memset(&i2, 0x5a, sizeof(i2));
	sv_parse(data, len, &k1, &i1);
	sv_parse(data, len, &k2, &i2);
	FZ_CHECK(memcmp(&k1, &k2, sizeof(k1)) == 0, "key differs between runs");
	FZ_CHECK(memcmp(&i1, &i2, sizeof(i1)) == 0,
		 "info differs between runs");
	/* The fast path for the common frame gives what the generic parser
	 * gives. */
	memset(&k2, 0x5a, sizeof(k2));
	memset(&i2, 0x5a, sizeof(i2));
	sv_parse_generic(data, len, &k2, &i2);
	FZ_CHECK(memcmp(&k1, &k2, sizeof(k1)) == 0,
		 "key differs from the generic parser's");
	FZ_CHECK(i1.l3_off == i2.l3_off && i1.l4_off == i2.l4_off &&
			 i1.inner_l3_off == i2.inner_l3_off &&
			 i1.inner_l4_off == i2.inner_l4_off &&
			 i1.l3_csum_ok == i2.l3_csum_ok &&
			 i1.l4_csum_ok == i2.l4_csum_ok,
		 "info differs from the generic parser's");
	/* info is optional. */
	sv_parse(data, len, &k2, NULL);
	FZ_CHECK(memcmp(&k1, &k2, sizeof(k1)) == 0, "key differs without info");
	fz_check_key(&k1, &i1, len);

	/* A prefix (cut chosen by the frame's last byte) sees no more. */
	plen = len > 0 ? data[len - 1] % len : 0;
	sv_parse(data, plen, &kp, &ip);
	FZ_CHECK((kp.outer.present & ~k1.outer.present) == 0,
		 "prefix of %u/%u bytes shows outer 0x%x, frame 0x%x", plen,
		 len, kp.outer.present, k1.outer.present);
	FZ_CHECK((kp.inner.present & ~k1.inner.present) == 0,
		 "prefix of %u/%u bytes shows inner 0x%x, frame 0x%x", plen,
		 len, kp.inner.present, k1.inner.present);
	/* MPLS over GRE is a GRE tunnel until the label is read. */
	FZ_CHECK(kp.tunnel == SV_TUN_NONE || kp.tunnel == k1.tunnel ||
			 (kp.tunnel == SV_TUN_GRE && k1.tunnel == SV_TUN_MPLS),
		 "prefix tunnel %u, frame tunnel %u", kp.tunnel, k1.tunnel);
	if (k1.outer.present & (SV_P_TCP | SV_P_UDP))
		fz_accepted++;
	else
		fz_refused++;
	return 0;
}
