/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Frame parser: one received or sent frame into the classification key
 * (sv_key.h). It looks only at headers that verbs specs can match, stops at
 * the first thing it does not understand, and never reads at or beyond len.
 *
 * What lands where:
 *   outer    Ethernet, up to two VLAN tags (0x8100 / 0x88a8: which of them
 *            each is, as the PRM's cvlan_tag / svlan_tag and second-tag
 *            bits tell), IPv4 (addresses in the last 4 bytes of the
 *            address fields, as the PRM's ipv4_layout) or IPv6 (extension
 *            headers walked), TCP (flags with NS) / UDP / ESP / GRE,
 *            plain MPLS (ethertype 0x8847 / 0x8848: first label only,
 *            nothing after)
 *   tunnels  (outer only, never nested)
 *            VXLAN  UDP dst port 4789, inner Ethernet stack
 *            GRE    IP protocol 47, version 0; protocol 0x6558 inner
 *                   Ethernet, 0x0800 / 0x86DD inner IP without L2,
 *                   0x8847 / 0x8848 MPLS
 *            MPLS   UDP dst port 6635 or GRE: the first label stack entry
 *                   goes to mpls_label with SV_P_MPLS in the outer stack;
 *                   after the bottom of stack, an inner IPv4 / IPv6 packet
 *                   (told apart by its version nibble) without L2
 *   inner    the same header set, ESP and MPLS (by ethertype) included,
 *            with no further tunnel decoding
 *
 * Fragments (IPv4 MF or offset, or an IPv6 fragment header) set
 * SV_P_IPFRAG and stop before L4, even for the first fragment. ip_proto is
 * the upper-layer protocol after IPv6 extension headers.
 */

#include <arpa/inet.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sv_csum.h"
#include "sv_key.h"

#define SV_ETH_HLEN 14
#define SV_ET_IPV4 0x0800
#define SV_ET_IPV6 0x86dd
#define SV_ET_VLAN 0x8100
#define SV_ET_QINQ 0x88a8
#define SV_ET_MPLS 0x8847
#define SV_ET_MPLS_MC 0x8848
#define SV_ET_TEB 0x6558 /* transparent Ethernet bridging */
#define SV_MAX_VLAN 2
#define SV_MAX_IPV6_EXT 8 /* extension headers walked at most */
#define SV_MAX_MPLS 8	  /* label stack entries walked at most */
#define SV_VXLAN_PORT 4789
#define SV_MPLS_UDP_PORT 6635

#define SV_IPPROTO_HOPOPTS 0
#define SV_IPPROTO_TCP 6
#define SV_IPPROTO_UDP 17
#define SV_IPPROTO_ROUTING 43
#define SV_IPPROTO_FRAGMENT 44
#define SV_IPPROTO_GRE 47
#define SV_IPPROTO_ESP 50
#define SV_IPPROTO_DSTOPTS 60

struct sv_parser {
	const uint8_t *f;
	struct sv_key *key;
	struct sv_pkt_info *info;
};

/* Where the L4 checksum pseudo header comes from (outer stack only). */
struct sv_l3ctx {
	bool inner;
	bool v6;
	bool complete; /* the IP packet is not truncated */
	uint32_t l3_off;
};

static void
sv_parse_eth(struct sv_parser *ps, uint32_t off, uint32_t end, bool inner);
static void sv_parse_l3(struct sv_parser *ps, uint32_t off, uint32_t end,
			uint16_t et, bool inner);

static inline struct sv_hdrs *
sv_stack(struct sv_parser *ps, bool inner)
{
	return inner ? &ps->key->inner : &ps->key->outer;
}

/* One's complement sum over pseudo header + segment must be all ones. */
static bool
sv_l4_csum_ok(const struct sv_parser *ps, const struct sv_l3ctx *l3,
	      uint8_t proto, uint32_t off, uint32_t seg_len)
{
	const uint8_t *ip = ps->f + l3->l3_off;
	uint64_t sum = 0;

	if (l3->v6)
		sum = sv_csum_add(sum, ip + 8, 32);
	else
		sum = sv_csum_add(sum, ip + 12, 8);
	sum += proto;
	sum += seg_len & 0xffff;
	sum += seg_len >> 16;
	sum = sv_csum_add(sum, ps->f + off, seg_len);
	return sv_csum_fold(sum) == 0xffff;
}

/*
 * A label stack entry at off: the first one is the key's mpls_label. With
 * tunnel set, walk to the bottom of stack and parse the payload as an
 * inner IP packet.
 */
static void
sv_parse_mpls(struct sv_parser *ps, uint32_t off, uint32_t end, bool inner,
	      bool tunnel)
{
	const uint8_t *f = ps->f;
	unsigned int n;

	if (off > end || end - off < 4)
		return;
	memcpy(&ps->key->mpls_label, f + off, 4);
	sv_stack(ps, inner)->present |= SV_P_MPLS;
	if (!tunnel)
		return;
	ps->key->tunnel = SV_TUN_MPLS;
	for (n = 0; n < SV_MAX_MPLS; n++) {
		bool bos;

		if (end - off < 4)
			return;
		bos = (f[off + 2] & 0x01) != 0;
		off += 4;
		if (bos)
			break;
	}
	if (n == SV_MAX_MPLS || off >= end)
		return;
	/* No inner L2: the IP version stands for the ethertype. */
	switch (f[off] >> 4) {
	case 4:
		ps->key->inner.ether_type = htons(SV_ET_IPV4);
		sv_parse_l3(ps, off, end, SV_ET_IPV4, true);
		break;
	case 6:
		ps->key->inner.ether_type = htons(SV_ET_IPV6);
		sv_parse_l3(ps, off, end, SV_ET_IPV6, true);
		break;
	default:
		break;
	}
}

static void
sv_parse_gre(struct sv_parser *ps, uint32_t off, uint32_t end)
{
	const uint8_t *f = ps->f;
	struct sv_key *key = ps->key;
	uint16_t flags, proto;
	uint32_t hl = 4;

	if (end - off < 4)
		return;
	flags = sv_rd16(f + off);
	proto = sv_rd16(f + off + 2);
	memcpy(&key->gre_c_ks_ver, f + off, 2);
	memcpy(&key->gre_protocol, f + off + 2, 2);
	key->outer.present |= SV_P_GRE;
	key->tunnel = SV_TUN_GRE;
	/* C (or the RFC 1701 R bit): checksum and offset words. */
	if (flags & 0xc000)
		hl += 4;
	if (flags & 0x2000) {
		if (end - off < hl + 4)
			return;
		memcpy(&key->gre_key, f + off + hl, 4);
		hl += 4;
	}
	if (flags & 0x1000)
		hl += 4;
	if (end - off < hl)
		return;
	/* Routing entries (R) and version 1 (PPTP) carry nothing we decode. */
	if ((flags & 0x4000) || (flags & 0x0007))
		return;
	off += hl;
	switch (proto) {
	case SV_ET_TEB:
		sv_parse_eth(ps, off, end, true);
		break;
	case SV_ET_IPV4:
	case SV_ET_IPV6:
		/* No inner L2: the GRE protocol stands for its ethertype. */
		memcpy(&key->inner.ether_type, &key->gre_protocol, 2);
		sv_parse_l3(ps, off, end, proto, true);
		break;
	case SV_ET_MPLS:
	case SV_ET_MPLS_MC:
		sv_parse_mpls(ps, off, end, false, true);
		break;
	default:
		break;
	}
}

static void
sv_parse_l4(struct sv_parser *ps, uint32_t off, uint32_t end, uint8_t proto,
	    const struct sv_l3ctx *l3)
{
	const uint8_t *f = ps->f;
	struct sv_key *key = ps->key;
	struct sv_hdrs *h = sv_stack(ps, l3->inner);
	uint32_t avail = end - off;

	switch (proto) {
	case SV_IPPROTO_TCP:
		if (avail < 20)
			return;
		h->present |= SV_P_TCP;
		memcpy(&h->sport, f + off, 2);
		memcpy(&h->dport, f + off + 2, 2);
		h->tcp_flags = f[off + 13];
		/* RFC 3540's NS is the low bit of the data offset byte. */
		h->tcp_ns = f[off + 12] & 0x01;
		if (l3->inner) {
			ps->info->inner_l4_off = (uint16_t)off;
			return;
		}
		ps->info->l4_off = (uint16_t)off;
		if (l3->complete)
			ps->info->l4_csum_ok =
				sv_l4_csum_ok(ps, l3, proto, off, avail);
		return;
	case SV_IPPROTO_UDP: {
		uint16_t dport, ulen, csum;

		if (avail < 8)
			return;
		h->present |= SV_P_UDP;
		memcpy(&h->sport, f + off, 2);
		memcpy(&h->dport, f + off + 2, 2);
		dport = sv_rd16(f + off + 2);
		ulen = sv_rd16(f + off + 4);
		csum = sv_rd16(f + off + 6);
		if (l3->inner) {
			ps->info->inner_l4_off = (uint16_t)off;
			return;
		}
		ps->info->l4_off = (uint16_t)off;
		if (l3->complete && ulen >= 8 && ulen <= avail) {
			if (csum == 0)
				ps->info->l4_csum_ok = !l3->v6;
			else
				ps->info->l4_csum_ok =
					sv_l4_csum_ok(ps, l3, proto, off, ulen);
		}
		if (dport == SV_VXLAN_PORT) {
			/* tunnel_id layout: htonl(VNI), high byte zero. */
			uint8_t vni[4] = { 0 };

			if (avail < 16)
				return;
			memcpy(vni + 1, f + off + 12, 3);
			memcpy(&key->vni, vni, 4);
			key->tunnel = SV_TUN_VXLAN;
			sv_parse_eth(ps, off + 16, end, true);
		} else if (dport == SV_MPLS_UDP_PORT) {
			sv_parse_mpls(ps, off + 8, end, false, true);
		}
		return;
	}
	case SV_IPPROTO_ESP:
		if (avail < 8)
			return;
		h->present |= SV_P_ESP;
		memcpy(&key->esp_spi, f + off, 4);
		memcpy(&key->esp_seq, f + off + 4, 4);
		if (!l3->inner)
			memcpy(&key->outer_esp_spi, f + off, 4);
		return;
	case SV_IPPROTO_GRE:
		if (!l3->inner)
			sv_parse_gre(ps, off, end);
		return;
	default:
		return;
	}
}

static void
sv_parse_ipv4(struct sv_parser *ps, uint32_t off, uint32_t end, bool inner)
{
	const uint8_t *p = ps->f + off;
	struct sv_hdrs *h = sv_stack(ps, inner);
	struct sv_l3ctx l3 = { .inner = inner, .v6 = false, .l3_off = off };
	uint32_t hl, tot, ip_end;
	uint16_t frag;

	if (end - off < 20 || (p[0] >> 4) != 4)
		return;
	hl = (uint32_t)(p[0] & 0x0f) * 4;
	if (hl < 20 || end - off < hl)
		return;
	tot = sv_rd16(p + 2);
	if (tot < hl)
		return;
	h->present |= SV_P_IPV4;
	h->ip_version = 4;
	h->ihl = p[0] & 0x0f;
	h->tos = p[1];
	h->ip_flags = p[6] >> 5;
	h->ttl = p[8];
	h->ip_proto = p[9];
	memcpy(h->src_ip + SV_IPV4_OFF, p + 12, 4);
	memcpy(h->dst_ip + SV_IPV4_OFF, p + 16, 4);
	/* Ethernet padding beyond total length is not IP payload; a
	 * truncated packet is parsed as far as it goes. */
	l3.complete = tot <= end - off;
	ip_end = l3.complete ? off + tot : end;
	if (inner) {
		ps->info->inner_l3_off = (uint16_t)off;
	} else {
		ps->info->l3_off = (uint16_t)off;
		ps->info->l3_csum_ok = sv_csum_fold(sv_csum_add(0, p, hl)) ==
				       0xffff;
	}
	frag = sv_rd16(p + 6);
	if (frag & 0x3fff) {
		h->present |= SV_P_IPFRAG;
		return;
	}
	sv_parse_l4(ps, off + hl, ip_end, h->ip_proto, &l3);
}

static void
sv_parse_ipv6(struct sv_parser *ps, uint32_t off, uint32_t end, bool inner)
{
	const uint8_t *f = ps->f;
	const uint8_t *p = f + off;
	struct sv_hdrs *h = sv_stack(ps, inner);
	struct sv_l3ctx l3 = { .inner = inner, .v6 = true, .l3_off = off };
	uint8_t fl[4] = { 0 };
	uint32_t plen, ip_end, cur;
	uint8_t next;
	unsigned int n;

	if (end - off < 40 || (p[0] >> 4) != 6)
		return;
	h->present |= SV_P_IPV6;
	h->ip_version = 6;
	h->tos = (uint8_t)((p[0] & 0x0f) << 4 | p[1] >> 4);
	/* Low 20 bits of a network-order word, as ibv_flow_ipv6_filter. */
	fl[1] = p[1] & 0x0f;
	fl[2] = p[2];
	fl[3] = p[3];
	memcpy(&h->flow_label, fl, 4);
	h->ttl = p[7];
	memcpy(h->src_ip, p + 8, 16);
	memcpy(h->dst_ip, p + 24, 16);
	if (inner)
		ps->info->inner_l3_off = (uint16_t)off;
	else
		ps->info->l3_off = (uint16_t)off;
	plen = sv_rd16(p + 4);
	/* plen 0 is a jumbogram: take the frame as it is. */
	l3.complete = plen != 0 && plen <= end - off - 40;
	ip_end = l3.complete ? off + 40 + plen : end;
	next = p[6];
	cur = off + 40;
	for (n = 0;; n++) {
		uint32_t elen;

		if (next != SV_IPPROTO_HOPOPTS && next != SV_IPPROTO_ROUTING &&
		    next != SV_IPPROTO_DSTOPTS && next != SV_IPPROTO_FRAGMENT)
			break;
		/* Bounded walk: past the limit the L4 header stays unknown. */
		if (n == SV_MAX_IPV6_EXT || ip_end - cur < 8) {
			h->ip_proto = next;
			return;
		}
		if (next == SV_IPPROTO_FRAGMENT) {
			h->present |= SV_P_IPFRAG;
			h->ip_proto = f[cur];
			return;
		}
		elen = ((uint32_t)f[cur + 1] + 1) * 8;
		if (ip_end - cur < elen) {
			h->ip_proto = next;
			return;
		}
		next = f[cur];
		cur += elen;
	}
	h->ip_proto = next;
	sv_parse_l4(ps, cur, ip_end, next, &l3);
}

static void
sv_parse_l3(struct sv_parser *ps, uint32_t off, uint32_t end, uint16_t et,
	    bool inner)
{
	switch (et) {
	case SV_ET_IPV4:
		sv_parse_ipv4(ps, off, end, inner);
		break;
	case SV_ET_IPV6:
		sv_parse_ipv6(ps, off, end, inner);
		break;
	case SV_ET_MPLS:
	case SV_ET_MPLS_MC:
		sv_parse_mpls(ps, off, end, inner, false);
		break;
	default:
		break;
	}
}

static void
sv_parse_eth(struct sv_parser *ps, uint32_t off, uint32_t end, bool inner)
{
	const uint8_t *f = ps->f;
	struct sv_hdrs *h = sv_stack(ps, inner);
	uint16_t et;
	unsigned int tags = 0;

	if (off > end || end - off < SV_ETH_HLEN)
		return;
	h->present |= SV_P_ETH;
	memcpy(h->dmac, f + off, 6);
	memcpy(h->smac, f + off + 6, 6);
	et = sv_rd16(f + off + 12);
	off += SV_ETH_HLEN;
	while ((et == SV_ET_VLAN || et == SV_ET_QINQ) && tags < SV_MAX_VLAN) {
		if (end - off < 4)
			break;
		if (tags == 0) {
			h->present |= SV_P_VLAN;
			h->present |= et == SV_ET_VLAN ? SV_P_CVLAN :
							 SV_P_SVLAN;
			memcpy(&h->vlan_tci, f + off, 2);
		} else {
			h->present |= et == SV_ET_VLAN ? SV_P_CVLAN2 :
							 SV_P_SVLAN2;
		}
		et = sv_rd16(f + off + 2);
		off += 4;
		tags++;
	}
	/* The last ethertype read, in wire order. */
	memcpy(&h->ether_type, f + off - 2, 2);
	if (et == SV_ET_VLAN || et == SV_ET_QINQ)
		return;
	sv_parse_l3(ps, off, end, et, inner);
}

void
sv_parse_generic(const uint8_t *frame, uint32_t len, struct sv_key *key,
		 struct sv_pkt_info *info)
{
	struct sv_pkt_info dummy;
	struct sv_parser ps = {
		.f = frame,
		.key = key,
		.info = info != NULL ? info : &dummy,
	};

	memset(key, 0, sizeof(*key));
	memset(ps.info, 0, sizeof(*ps.info));
	if (frame == NULL)
		return;
	sv_parse_eth(&ps, 0, len, false);
}

/*
 * The common frame, fast: Ethernet without tags, IPv4 without options,
 * not a fragment, complete, carrying UDP (not to a tunnel port) or TCP.
 * It fills exactly what sv_parse_generic() does for such a frame (a unit
 * test holds them to it), but writes the outer stack as whole 64-bit
 * words built in registers: the rule table reads the key by words right
 * after, and a word load over a train of narrow stores waits for all of
 * them to reach the cache (a failed store-to-load forward). Returns false
 * for any other frame.
 */
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
_Static_assert(offsetof(struct sv_hdrs, dmac) == 4 &&
		       offsetof(struct sv_hdrs, smac) == 10 &&
		       offsetof(struct sv_hdrs, vlan_tci) == 16 &&
		       offsetof(struct sv_hdrs, ether_type) == 18 &&
		       offsetof(struct sv_hdrs, src_ip) == 20 &&
		       offsetof(struct sv_hdrs, dst_ip) == 36 &&
		       offsetof(struct sv_hdrs, flow_label) == 52 &&
		       offsetof(struct sv_hdrs, ip_proto) == 56 &&
		       offsetof(struct sv_hdrs, tos) == 57 &&
		       offsetof(struct sv_hdrs, ttl) == 58 &&
		       offsetof(struct sv_hdrs, ip_flags) == 59 &&
		       offsetof(struct sv_hdrs, sport) == 60 &&
		       offsetof(struct sv_hdrs, dport) == 62 &&
		       offsetof(struct sv_hdrs, tcp_flags) == 64 &&
		       offsetof(struct sv_hdrs, tcp_ns) == 65 &&
		       offsetof(struct sv_hdrs, ihl) == 66 &&
		       offsetof(struct sv_hdrs, ip_version) == 67 &&
		       sizeof(struct sv_hdrs) == 68 &&
		       offsetof(struct sv_key, outer) == 0 &&
		       offsetof(struct sv_key, inner) == 68,
	       "sv_parse_fast() writes the outer stack by this layout");

static inline uint64_t
sv_ld(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	memcpy(&v, p, n);
	return v;
}

/* The header checksum of a 20-byte IPv4 header verifies: five native
 * words, folded (see sv_csum_add()). */
static inline bool
sv_ipv4_hdr_ok(const uint8_t *p)
{
	uint64_t s = sv_ld(p, 4) + sv_ld(p + 4, 4) + sv_ld(p + 8, 4) +
		     sv_ld(p + 12, 4) + sv_ld(p + 16, 4);

	s = (s & 0xffffffff) + (s >> 32);
	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

/* Word i of the key. */
static inline void
sv_st(struct sv_key *key, unsigned int i, uint64_t v)
{
	memcpy((uint8_t *)key + 8 * i, &v, sizeof(v));
}

static bool
sv_parse_fast(const uint8_t *f, uint32_t len, struct sv_key *key,
	      struct sv_pkt_info *info)
{
	uint32_t tot, avail, present = SV_P_ETH | SV_P_IPV4;
	uint64_t w8, sum;
	bool l4_ok = false;
	uint8_t proto;

	if (len < 14 + 20 + 8 || f[12] != 0x08 || f[13] != 0x00 ||
	    f[14] != 0x45)
		return false;
	tot = sv_rd16(f + 16);
	/* Truncated, or a fragment (MF or an offset). */
	if (tot < 20 || tot > len - 14 || (sv_rd16(f + 20) & 0x3fff))
		return false;
	avail = tot - 20;
	proto = f[23];
	if (proto == SV_IPPROTO_UDP) {
		uint16_t dport = sv_rd16(f + 36), ulen = sv_rd16(f + 38);

		if (avail < 8 || dport == SV_VXLAN_PORT ||
		    dport == SV_MPLS_UDP_PORT)
			return false;
		present |= SV_P_UDP;
		if (ulen >= 8 && ulen <= avail) {
			if (sv_rd16(f + 40) == 0) {
				l4_ok = true;
			} else {
				sum = sv_csum_add(0, f + 26, 8) + proto + ulen;
				sum = sv_csum_add(sum, f + 34, ulen);
				l4_ok = sv_csum_fold(sum) == 0xffff;
			}
		}
	} else if (proto == SV_IPPROTO_TCP) {
		if (avail < 20)
			return false;
		present |= SV_P_TCP;
		sum = sv_csum_add(0, f + 26, 8) + proto + avail;
		sum = sv_csum_add(sum, f + 34, avail);
		l4_ok = sv_csum_fold(sum) == 0xffff;
	} else {
		return false;
	}
	/* Outer stack: present, dmac, smac, (vlan_tci), ether_type, source
	 * and destination IPv4 in the last 4 bytes of their fields,
	 * protocol, TOS, TTL, flags, ports, TCP flags and NS, IHL, IP
	 * version; each word stored once, straight into the key. */
	w8 = (uint64_t)5 << 16 | (uint64_t)4 << 24;
	if (proto == SV_IPPROTO_TCP)
		w8 |= (uint64_t)f[47] | (uint64_t)(f[46] & 0x01) << 8;
	sv_st(key, 0, present | sv_ld(f, 4) << 32);
	sv_st(key, 1, sv_ld(f + 4, 8));
	sv_st(key, 2, sv_ld(f + 12, 2) << 16);
	sv_st(key, 3, 0);
	sv_st(key, 4, sv_ld(f + 26, 4));
	sv_st(key, 5, 0);
	sv_st(key, 6, sv_ld(f + 30, 4));
	sv_st(key, 7,
	      (uint64_t)f[23] | (uint64_t)f[15] << 8 | (uint64_t)f[22] << 16 |
		      (uint64_t)(f[20] >> 5) << 24 | sv_ld(f + 34, 4) << 32);
	sv_st(key, 8, w8);
	/* The rest is zero: word stores too (a string store would cost
	 * more than the whole key at this size). */
	_Static_assert(sizeof(*key) == 21 * 8, "key words");
	sv_st(key, 9, 0);
	sv_st(key, 10, 0);
	sv_st(key, 11, 0);
	sv_st(key, 12, 0);
	sv_st(key, 13, 0);
	sv_st(key, 14, 0);
	sv_st(key, 15, 0);
	sv_st(key, 16, 0);
	sv_st(key, 17, 0);
	sv_st(key, 18, 0);
	sv_st(key, 19, 0);
	sv_st(key, 20, 0);
	memset(info, 0, sizeof(*info));
	info->l3_off = 14;
	info->l4_off = 34;
	info->l3_csum_ok = sv_ipv4_hdr_ok(f + 14);
	info->l4_csum_ok = l4_ok;
	return true;
}
#else
static bool
sv_parse_fast(const uint8_t *f, uint32_t len, struct sv_key *key,
	      struct sv_pkt_info *info)
{
	return false;
}
#endif

void
sv_parse(const uint8_t *frame, uint32_t len, struct sv_key *key,
	 struct sv_pkt_info *info)
{
	struct sv_pkt_info dummy;

	if (frame != NULL &&
	    sv_parse_fast(frame, len, key, info != NULL ? info : &dummy))
		return;
	sv_parse_generic(frame, len, key, info);
}
