/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Decap, header rewrite and encap on frames, as a ConnectX's steering
 * actions do them (sv_pktedit.h):
 *
 * - Decap (L2_TUNNEL_TO_L2) strips everything up to the inner Ethernet
 *   header of the outermost tunnel the parser finds: VXLAN (UDP port 4789,
 *   the one port a ConnectX-5 parses as VXLAN from its start, DPDK's
 *   mlx5.rst) and GRE carrying Ethernet (protocol 0x6558, NVGRE among
 *   them). L3_TUNNEL_TO_L2 strips up to the inner L3 header (of VXLAN,
 *   GRE, MPLS over GRE or UDP port 6635) and puts the action's data, the
 *   new L2 header, in front, verbatim. A frame without such a tunnel is
 *   left as it is.
 * - Rewrite sets bits of a field or adds to it (modulo its width), and
 *   then updates the IPv4 header checksum and the TCP or UDP checksum
 *   (pseudo-header included) for what changed, the one's complement way
 *   of RFC 1624: "the HW recalcs checksums only if re-writing headers"
 *   (mlx5e's tc csum action, which it takes only with a rewrite of IPv4,
 *   TCP or UDP). A UDP checksum of 0 (none) stays 0, as Linux's own
 *   helpers keep it. A field of a header the frame lacks is skipped.
 * - Encap (L2_TO_L2_TUNNEL) puts the data in front of the frame;
 *   L2_TO_L3_TUNNEL puts it in place of the frame's Ethernet header and
 *   tags. The device then fills what the data cannot know: the outer IPv4
 *   total length and header checksum, the IPv6 payload length and the UDP
 *   length (DPDK's mlx5 sends them as zeros, flow_dv_convert_encap_data(),
 *   and the kernel's own encap leaves "the HW fills up ipv6 payload len",
 *   mlx5e_tc_tun_create_header_ipv6()). Everything else is the data's,
 *   the UDP checksum included (DPDK zeroes it, flow_dv_zero_encap_udp_csum()).
 */

#include <stddef.h>
#include <string.h>
#include <netinet/in.h>

#include "sv_csum.h"
#include "sv_pktedit.h"
#include "vsteer_prm.h"

#define ED_ETH_HLEN 14
#define ED_ET_IPV4 0x0800
#define ED_ET_IPV6 0x86dd
#define ED_ET_VLAN 0x8100
#define ED_ET_QINQ 0x88a8
#define ED_ET_TEB 0x6558
#define ED_ET_MPLS 0x8847
#define ED_ET_MPLS_MC 0x8848
#define ED_VXLAN_PORT 4789
#define ED_MPLS_UDP_PORT 6635
#define ED_IPPROTO_GRE 47
#define ED_MAX_TAGS 2
#define ED_MAX_IPV6_EXT 8
#define ED_MAX_MPLS 8

/* Where the headers of a frame are (0: absent; every header is after
 * byte 0, so 0 never names one). */
struct ed_hdrs {
	uint32_t tci;	 /* first VLAN tag's TCI */
	uint32_t etype;	 /* the ethertype after the tags */
	uint32_t l3;	 /* IPv4 / IPv6 header */
	uint8_t fam;	 /* 4, 6 */
	uint32_t l3_len; /* bytes of the IPv4 header (IHL) */
	uint32_t pay;	 /* what the IP header carries, if not a fragment */
	uint8_t proto;	 /* its protocol */
	uint32_t l4;	 /* pay, when a whole TCP or UDP header is there */
};

static void
ed_walk(const uint8_t *f, uint32_t len, struct ed_hdrs *h)
{
	uint32_t off = ED_ETH_HLEN, n;
	uint16_t et;

	memset(h, 0, sizeof(*h));
	if (len < ED_ETH_HLEN)
		return;
	et = sv_rd16(f + 12);
	h->etype = 12;
	for (n = 0; n < ED_MAX_TAGS && (et == ED_ET_VLAN || et == ED_ET_QINQ);
	     n++) {
		if (off + 4 > len)
			return;
		if (n == 0)
			h->tci = off;
		h->etype = off + 2;
		et = sv_rd16(f + off + 2);
		off += 4;
	}
	if (et == ED_ET_IPV4 && off + 20 <= len && (f[off] >> 4) == 4) {
		uint32_t ihl = (uint32_t)(f[off] & 0xf) * 4;

		if (ihl < 20 || off + ihl > len)
			return;
		h->l3 = off;
		h->fam = 4;
		h->l3_len = ihl;
		/* A later fragment carries no L4 header. */
		if (sv_rd16(f + off + 6) & 0x1fff)
			return;
		h->proto = f[off + 9];
		h->pay = off + ihl;
	} else if (et == ED_ET_IPV6 && off + 40 <= len && (f[off] >> 4) == 6) {
		uint32_t p = off + 40;
		uint8_t nh = f[off + 6];

		h->l3 = off;
		h->fam = 6;
		h->l3_len = 40;
		for (n = 0; n < ED_MAX_IPV6_EXT; n++) {
			if (nh != 0 && nh != 43 && nh != 44 && nh != 60)
				break;
			if (p + 8 > len)
				return;
			if (nh == 44) {
				if (sv_rd16(f + p + 2) & 0xfff8)
					return;
				nh = f[p];
				p += 8;
				continue;
			}
			nh = f[p];
			p += ((uint32_t)f[p + 1] + 1) * 8;
		}
		if (p > len)
			return;
		h->proto = nh;
		h->pay = p;
	} else {
		return;
	}
	if ((h->proto == IPPROTO_TCP && h->pay + 20 <= len) ||
	    (h->proto == IPPROTO_UDP && h->pay + 8 <= len))
		h->l4 = h->pay;
}

/* The header after a GRE header at off, and its protocol; 0 when it is
 * no version 0 GRE header. */
static uint32_t
ed_gre(const uint8_t *f, uint32_t len, uint32_t off, uint16_t *proto)
{
	uint16_t flags;
	uint32_t hlen = 4;

	if (off + 4 > len)
		return 0;
	flags = sv_rd16(f + off);
	if (flags & 0x0007)
		return 0;
	if (flags & 0x8000)
		hlen += 4; /* checksum and reserved */
	if (flags & 0x2000)
		hlen += 4; /* key */
	if (flags & 0x1000)
		hlen += 4; /* sequence number */
	*proto = sv_rd16(f + off + 2);
	return off + hlen <= len ? off + hlen : 0;
}

/* The inner Ethernet header of the frame's L2 tunnel, 0 when none. */
static uint32_t
ed_inner_l2(const uint8_t *f, uint32_t len, const struct ed_hdrs *h)
{
	uint32_t in = 0;
	uint16_t proto = 0;

	if (h->l4 != 0 && h->proto == IPPROTO_UDP) {
		if (sv_rd16(f + h->l4 + 2) == ED_VXLAN_PORT)
			in = h->l4 + 8 + 8;
	} else if (h->pay != 0 && h->proto == ED_IPPROTO_GRE) {
		in = ed_gre(f, len, h->pay, &proto);
		if (proto != ED_ET_TEB)
			in = 0;
	}
	return in != 0 && in + ED_ETH_HLEN <= len ? in : 0;
}

/* The IPv4 / IPv6 header after an MPLS label stack at off, 0 when none. */
static uint32_t
ed_after_mpls(const uint8_t *f, uint32_t len, uint32_t off)
{
	unsigned int n;

	for (n = 0; n < ED_MAX_MPLS; n++, off += 4) {
		if (off + 4 > len)
			return 0;
		if (f[off + 2] & 1) { /* bottom of stack */
			off += 4;
			if (off < len &&
			    ((f[off] >> 4) == 4 || (f[off] >> 4) == 6))
				return off;
			return 0;
		}
	}
	return 0;
}

/* The IPv4 / IPv6 header after the Ethernet header at off, 0 when none. */
static uint32_t
ed_l3_after_eth(const uint8_t *f, uint32_t len, uint32_t off)
{
	struct ed_hdrs h;

	ed_walk(f + off, len - off, &h);
	return h.l3 != 0 ? off + h.l3 : 0;
}

/* The inner L3 header of the frame's tunnel, 0 when none. */
static uint32_t
ed_inner_l3(const uint8_t *f, uint32_t len, const struct ed_hdrs *h)
{
	uint32_t in;
	uint16_t proto;

	if (h->l4 != 0 && h->proto == IPPROTO_UDP) {
		uint16_t dport = sv_rd16(f + h->l4 + 2);

		if (dport == ED_VXLAN_PORT && h->l4 + 16 < len)
			return ed_l3_after_eth(f, len, h->l4 + 16);
		if (dport == ED_MPLS_UDP_PORT)
			return ed_after_mpls(f, len, h->l4 + 8);
		return 0;
	}
	if (h->pay == 0 || h->proto != ED_IPPROTO_GRE)
		return 0;
	in = ed_gre(f, len, h->pay, &proto);
	if (in == 0 || in >= len)
		return 0;
	switch (proto) {
	case ED_ET_TEB:
		return ed_l3_after_eth(f, len, in);
	case ED_ET_IPV4:
	case ED_ET_IPV6:
		return ((f[in] >> 4) == 4 || (f[in] >> 4) == 6) ? in : 0;
	case ED_ET_MPLS:
	case ED_ET_MPLS_MC:
		return ed_after_mpls(f, len, in);
	default:
		return 0;
	}
}

/* --- header rewrite --- */

/* A field's place: a big-endian container of bytes bytes, the field's
 * bits at shift. */
struct ed_loc {
	uint32_t off;
	uint8_t bytes;
	uint8_t shift;
	uint8_t width;
};

unsigned int
sv_mod_field_width(uint32_t field)
{
	return vsteer_prm_modi_field(field).width;
}

bool
sv_mod_field_addable(uint32_t field)
{
	return vsteer_prm_modi_field(field).add != 0;
}

unsigned int
sv_mod_field_family(uint32_t field)
{
	return vsteer_prm_modi_field(field).fam;
}

unsigned int
sv_mod_field_l4(uint32_t field)
{
	return vsteer_prm_modi_field(field).l4;
}

/* Where field is in a frame with headers h; false when it has none. */
static bool
ed_locate(uint32_t field, const struct ed_hdrs *h, const uint8_t *f,
	  struct ed_loc *l)
{
	struct vsteer_prm_modi_field fd = vsteer_prm_modi_field(field);
	uint32_t i;

	if (fd.width == 0 || (fd.fam != 0 && fd.fam != h->fam) ||
	    (fd.l4 != 0 && (h->l4 == 0 || h->proto != fd.l4)))
		return false;
	l->width = fd.width;
	l->shift = 0;
	/* A frame shorter than an Ethernet header has none of these (the
	 * walk found no EtherType): not even its MAC addresses. */
	if (h->etype == 0)
		return false;
	switch (field) {
	case VSTEER_PRM_MODI_OUT_SMAC_47_16:
		l->off = 6;
		l->bytes = 4;
		return true;
	case VSTEER_PRM_MODI_OUT_SMAC_15_0:
		l->off = 10;
		l->bytes = 2;
		return true;
	case VSTEER_PRM_MODI_OUT_DMAC_47_16:
		l->off = 0;
		l->bytes = 4;
		return true;
	case VSTEER_PRM_MODI_OUT_DMAC_15_0:
		l->off = 4;
		l->bytes = 2;
		return true;
	case VSTEER_PRM_MODI_OUT_ETHERTYPE:
		l->off = h->etype;
		l->bytes = 2;
		return h->etype != 0;
	case VSTEER_PRM_MODI_OUT_FIRST_VID:
		l->off = h->tci;
		l->bytes = 2;
		return h->tci != 0;
	case VSTEER_PRM_MODI_OUT_IP_DSCP:
	case VSTEER_PRM_MODI_OUT_IP_ECN:
		/* IPv4 TOS byte, or the IPv6 traffic class in bits 27..20
		 * of the first word. */
		if (h->fam == 4) {
			l->off = h->l3 + 1;
			l->bytes = 1;
			l->shift = field == VSTEER_PRM_MODI_OUT_IP_DSCP ? 2 : 0;
			return true;
		}
		if (h->fam != 6)
			return false;
		l->off = h->l3;
		l->bytes = 4;
		l->shift = field == VSTEER_PRM_MODI_OUT_IP_DSCP ? 22 : 20;
		return true;
	case VSTEER_PRM_MODI_OUT_IPV4_TTL:
		l->off = h->l3 + 8;
		l->bytes = 1;
		return true;
	case VSTEER_PRM_MODI_OUT_IPV6_HOPLIMIT:
		l->off = h->l3 + 7;
		l->bytes = 1;
		return true;
	case VSTEER_PRM_MODI_OUT_SIPV4:
	case VSTEER_PRM_MODI_OUT_DIPV4:
		l->off = h->l3 + (field == VSTEER_PRM_MODI_OUT_SIPV4 ? 12 : 16);
		l->bytes = 4;
		return true;
	case VSTEER_PRM_MODI_OUT_TCP_SPORT:
	case VSTEER_PRM_MODI_OUT_UDP_SPORT:
		l->off = h->l4;
		l->bytes = 2;
		return true;
	case VSTEER_PRM_MODI_OUT_TCP_DPORT:
	case VSTEER_PRM_MODI_OUT_UDP_DPORT:
		l->off = h->l4 + 2;
		l->bytes = 2;
		return true;
	case VSTEER_PRM_MODI_OUT_TCP_SEQ_NUM:
	case VSTEER_PRM_MODI_OUT_TCP_ACK_NUM:
		l->off = h->l4 +
			 (field == VSTEER_PRM_MODI_OUT_TCP_SEQ_NUM ? 4 : 8);
		l->bytes = 4;
		return true;
	case VSTEER_PRM_MODI_OUT_TCP_FLAGS:
		/* NS is the low bit of the data offset byte. */
		l->off = h->l4 + 12;
		l->bytes = 2;
		return true;
	default:
		break;
	}
	/* The IPv6 addresses, four 32-bit words each. */
	if (field >= VSTEER_PRM_MODI_OUT_SIPV6_127_96 &&
	    field <= VSTEER_PRM_MODI_OUT_DIPV6_31_0) {
		i = field - VSTEER_PRM_MODI_OUT_SIPV6_127_96;
		l->off = h->l3 + 8 + i * 4;
		l->bytes = 4;
		return true;
	}
	return false;
}

static uint32_t
ed_rd(const uint8_t *p, unsigned int bytes)
{
	uint32_t v = 0;
	unsigned int i;

	for (i = 0; i < bytes; i++)
		v = v << 8 | p[i];
	return v;
}

static void
ed_wr(uint8_t *p, unsigned int bytes, uint32_t v)
{
	unsigned int i;

	for (i = bytes; i > 0; i--) {
		p[i - 1] = (uint8_t)v;
		v >>= 8;
	}
}

static uint32_t
ed_mask(unsigned int bits)
{
	return bits >= 32 ? UINT32_MAX : (UINT32_C(1) << bits) - 1;
}

static void
ed_mod_one(uint8_t *f, const struct ed_loc *l, const struct sv_mod_cmd *c)
{
	uint32_t wm = ed_mask(l->width);
	uint32_t v = ed_rd(f + l->off, l->bytes);
	uint32_t fv = (v >> l->shift) & wm;

	if (c->op == VSTEER_PRM_MOD_ADD) {
		fv = (fv + c->data) & wm;
	} else {
		uint32_t m = ed_mask(c->len) << c->off;

		fv = (fv & ~m) | ((c->data << c->off) & m);
		fv &= wm;
	}
	v = (v & ~(wm << l->shift)) | (fv << l->shift);
	ed_wr(f + l->off, l->bytes, v);
}

/* One's complement sum of (~old + new) over the 16-bit words of n bytes
 * (RFC 1624, eqn. 3), the word at skip (a checksum) left out. */
static uint64_t
ed_csum_delta(uint64_t acc, const uint8_t *old, const uint8_t *new, uint32_t n,
	      uint32_t skip)
{
	uint32_t i;

	for (i = 0; i + 1 < n; i += 2) {
		if (i == skip)
			continue;
		acc += (uint16_t)~sv_rd16(old + i);
		acc += sv_rd16(new + i);
	}
	return acc;
}

static void
ed_csum_update(uint8_t *csum, uint64_t delta)
{
	uint64_t sum = (uint16_t)~sv_rd16(csum) + delta;

	sv_wr16(csum, (uint16_t)~sv_csum_fold(sum));
}

#define ED_SNAP 40 /* the bytes of a header a rewrite can change */

static void
ed_modify(const struct sv_edit *e, uint8_t *f, uint32_t len)
{
	uint8_t l3_old[ED_SNAP], l4_old[ED_SNAP];
	uint32_t i, l3n = 0, l4n = 0, ck;
	struct ed_hdrs h;
	struct ed_loc l;
	uint64_t d;

	ed_walk(f, len, &h);
	if (h.l3 != 0) {
		l3n = h.fam == 4 ? 20 : 40;
		memcpy(l3_old, f + h.l3, l3n);
	}
	if (h.l4 != 0) {
		l4n = h.proto == IPPROTO_TCP ? 20 : 8;
		memcpy(l4_old, f + h.l4, l4n);
	}
	for (i = 0; i < e->n_mod; i++)
		if (ed_locate(e->mod[i].field, &h, f, &l))
			ed_mod_one(f, &l, &e->mod[i]);
	if (h.fam == 4 && memcmp(l3_old, f + h.l3, l3n) != 0)
		ed_csum_update(f + h.l3 + 10,
			       ed_csum_delta(0, l3_old, f + h.l3, l3n, 10));
	if (h.l4 == 0)
		return;
	ck = h.proto == IPPROTO_TCP ? 16 : 6;
	/* No checksum in this UDP datagram: none is made up. */
	if (h.proto == IPPROTO_UDP && sv_rd16(f + h.l4 + ck) == 0)
		return;
	/* The pseudo-header's addresses, then the L4 header. */
	d = h.fam == 4 ?
		    ed_csum_delta(0, l3_old + 12, f + h.l3 + 12, 8,
				  UINT32_MAX) :
		    ed_csum_delta(0, l3_old + 8, f + h.l3 + 8, 32, UINT32_MAX);
	d = ed_csum_delta(d, l4_old, f + h.l4, l4n, ck);
	if (d == 0)
		return;
	ed_csum_update(f + h.l4 + ck, d);
	/* A computed UDP checksum of 0 goes out as 0xffff (RFC 768). */
	if (h.proto == IPPROTO_UDP && sv_rd16(f + h.l4 + ck) == 0)
		sv_wr16(f + h.l4 + ck, 0xffff);
}

/* --- encap --- */

/* The lengths and the IPv4 header checksum of the pushed header. */
static void
ed_encap_fill(uint8_t *f, uint32_t len)
{
	struct ed_hdrs h;
	uint64_t sum;

	ed_walk(f, len, &h);
	if (h.fam == 4) {
		sv_wr16(f + h.l3 + 2, (uint16_t)(len - h.l3));
		sv_wr16(f + h.l3 + 10, 0);
		sum = sv_csum_add(0, f + h.l3, h.l3_len);
		sv_wr16(f + h.l3 + 10, (uint16_t)~sv_csum_fold(sum));
	} else if (h.fam == 6) {
		sv_wr16(f + h.l3 + 4, (uint16_t)(len - h.l3 - 40));
	}
	if (h.pay != 0 && h.proto == IPPROTO_UDP && h.pay + 8 <= len)
		sv_wr16(f + h.pay + 4, (uint16_t)(len - h.pay));
}

uint32_t
sv_edit_apply(const struct sv_edit *e, const uint8_t *in, uint32_t len,
	      uint8_t *out, uint32_t cap)
{
	bool encap = e->reformat == SV_REFORMAT_ENCAP_L2 ||
		     e->reformat == SV_REFORMAT_ENCAP_L3;
	uint32_t head = encap ? e->data_len : 0, skip = 0, pre = 0, l3;
	struct ed_hdrs h;
	uint8_t *f;

	if (e->reformat == SV_REFORMAT_DECAP_L2 ||
	    e->reformat == SV_REFORMAT_DECAP_L3) {
		ed_walk(in, len, &h);
		if (e->reformat == SV_REFORMAT_DECAP_L2) {
			skip = ed_inner_l2(in, len, &h);
		} else {
			skip = ed_inner_l3(in, len, &h);
			pre = skip != 0 ? e->data_len : 0;
		}
	}
	if ((uint64_t)head + pre + (len - skip) > cap)
		return 0;
	f = out + head;
	if (pre != 0)
		memcpy(f, e->data, pre);
	memcpy(f + pre, in + skip, len - skip);
	len = pre + len - skip;
	if (e->n_mod != 0)
		ed_modify(e, f, len);
	if (!encap)
		return len;
	if (e->reformat == SV_REFORMAT_ENCAP_L3) {
		/* The frame's own L2 header and tags go. */
		ed_walk(f, len, &h);
		l3 = h.l3 != 0 ? h.l3 : h.etype != 0 ? h.etype + 2 : 0;
		f += l3;
		len -= l3;
	}
	f -= e->data_len;
	memcpy(f, e->data, e->data_len);
	len += e->data_len;
	if (f != out)
		memmove(out, f, len);
	ed_encap_fill(out, len);
	return len;
}
