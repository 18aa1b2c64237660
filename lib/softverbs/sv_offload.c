/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Checksum fill and segmentation (sv_offload.h): what skb_checksum_help()
 * and the kernel's GSO (tcp_gso_segment, __udp_gso_segment) do to a frame
 * before a device without those offloads sends it.
 */

#include <string.h>

#include "sv_csum.h"
#include "sv_offload.h"

#define SV_ETH_HLEN 14u
#define SV_ETH_P_IPV4 0x0800
#define SV_ETH_P_IPV6 0x86dd
#define SV_ETH_P_8021Q 0x8100
#define SV_ETH_P_8021AD 0x88a8
#define SV_IPPROTO_TCP 6
#define SV_IPPROTO_UDP 17
#define SV_TCP_HLEN 20u
#define SV_UDP_HLEN 8u
#define SV_TCP_FIN 0x01
#define SV_TCP_PSH 0x08
#define SV_TCP_CWR 0x80
#define SV_IPV6_EXT_MAX 8 /* extension headers walked */

/* The L3 header after the Ethernet header and up to two VLAN tags: its
 * offset in *off, the ethertype returned; 0 for a frame too short. */
static uint16_t
sv_l3_locate(const uint8_t *f, uint32_t len, uint32_t *off)
{
	uint16_t et;
	int i;

	*off = SV_ETH_HLEN;
	if (len < SV_ETH_HLEN)
		return 0;
	et = sv_rd16(f + 12);
	for (i = 0; i < 2 && (et == SV_ETH_P_8021Q || et == SV_ETH_P_8021AD);
	     i++) {
		if (*off + 4 > len)
			return 0;
		et = sv_rd16(f + *off + 2);
		*off += 4;
	}
	return et;
}

bool
sv_l4_locate(const uint8_t *f, uint32_t len, struct sv_l4loc *loc)
{
	uint32_t off, end, hl;
	uint16_t et;
	uint8_t nh;
	int i;

	memset(loc, 0, sizeof(*loc));
	et = sv_l3_locate(f, len, &off);
	if (et == 0)
		return false;
	loc->l3 = off;
	if (et == SV_ETH_P_IPV4) {
		if (off + 20 > len || (f[off] >> 4) != 4)
			return false;
		hl = (f[off] & 0xfu) * 4u;
		end = off + sv_rd16(f + off + 2);
		if (hl < 20 || end < off + hl || end > len)
			return false;
		loc->v4 = true;
		/* A fragment's L4 checksum covers the whole datagram. */
		if (sv_rd16(f + off + 6) & 0x3fff)
			return true;
		nh = f[off + 9];
		off += hl;
	} else if (et == SV_ETH_P_IPV6) {
		if (off + 40 > len || (f[off] >> 4) != 6)
			return false;
		end = off + 40 + sv_rd16(f + off + 4);
		if (end > len)
			return false;
		nh = f[off + 6];
		off += 40;
		for (i = 0; i < SV_IPV6_EXT_MAX; i++) {
			if (nh != 0 && nh != 43 && nh != 60 && nh != 51)
				break;
			if (off + 2 > end)
				return true;
			/* AH counts 4-byte words, the others 8-byte ones. */
			hl = nh == 51 ? (f[off + 1] + 2u) * 4u :
					(f[off + 1] + 1u) * 8u;
			nh = f[off];
			off += hl;
		}
		if (off > end)
			return true;
	} else {
		return false;
	}
	if (nh != SV_IPPROTO_TCP && nh != SV_IPPROTO_UDP)
		return true;
	if (end - off < (nh == SV_IPPROTO_TCP ? SV_TCP_HLEN : SV_UDP_HLEN))
		return true;
	loc->l4 = off;
	loc->l4_len = end - off;
	loc->proto = nh;
	return true;
}

static void
sv_ipv4_hdr_fill(uint8_t *ip)
{
	unsigned int hl = (ip[0] & 0xfu) * 4u;

	sv_wr16(ip + 10, 0);
	sv_wr16(ip + 10, (uint16_t)~sv_csum_fold(sv_csum_add(0, ip, hl)));
}

/* The L4 checksum over the headers at loc (length l4_len). */
static void
sv_l4_fill(uint8_t *f, const struct sv_l4loc *loc)
{
	unsigned int coff = loc->proto == SV_IPPROTO_TCP ? 16 : 6;
	uint8_t *l4 = f + loc->l4;
	uint64_t sum;
	uint16_t c;

	sv_wr16(l4 + coff, 0);
	/* Pseudo header: addresses, protocol, L4 length. */
	if (loc->v4)
		sum = sv_csum_add(0, f + loc->l3 + 12, 8);
	else
		sum = sv_csum_add(0, f + loc->l3 + 8, 32);
	sum += loc->proto;
	sum += loc->l4_len;
	sum = sv_csum_add(sum, l4, loc->l4_len);
	c = (uint16_t)~sv_csum_fold(sum);
	/* UDP: 0 means "no checksum". */
	if (c == 0 && loc->proto == SV_IPPROTO_UDP)
		c = 0xffff;
	sv_wr16(l4 + coff, c);
}

bool
sv_csum_fill(uint8_t *f, uint32_t len, bool ip_hdr)
{
	struct sv_l4loc loc;

	if (!sv_l4_locate(f, len, &loc))
		return false;
	if (ip_hdr && loc.v4)
		sv_ipv4_hdr_fill(f + loc.l3);
	if (loc.l4 == 0 || loc.l4_len > 0xffff)
		return false;
	sv_l4_fill(f, &loc);
	return true;
}

bool
sv_ip_len_fill(uint8_t *f, uint32_t len)
{
	uint32_t off;
	uint16_t et = sv_l3_locate(f, len, &off);

	if (et == SV_ETH_P_IPV4 && off + 20 <= len && (f[off] >> 4) == 4 &&
	    len - off <= 0xffff) {
		sv_wr16(f + off + 2, (uint16_t)(len - off));
		sv_ipv4_hdr_fill(f + off);
		return true;
	}
	if (et == SV_ETH_P_IPV6 && off + 40 <= len && (f[off] >> 4) == 6 &&
	    len - off - 40 <= 0xffff) {
		sv_wr16(f + off + 4, (uint16_t)(len - off - 40));
		return true;
	}
	return false;
}

unsigned int
sv_gso_cut(const uint8_t *f, uint32_t len, bool tcp, uint32_t mss, uint8_t *seg,
	   uint32_t seg_cap, sv_frame_cb cb, void *arg)
{
	struct sv_l4loc loc, sl;
	uint32_t hdr, payload, off, chunk, seq = 0;
	uint16_t ip_id = 0;
	uint8_t flags = 0;
	unsigned int n = 0;

	if (mss == 0 || !sv_l4_locate(f, len, &loc) || loc.l4 == 0 ||
	    loc.proto != (tcp ? SV_IPPROTO_TCP : SV_IPPROTO_UDP))
		return 0;
	if (tcp) {
		hdr = loc.l4 + (f[loc.l4 + 12] >> 4) * 4u;
		if (hdr < loc.l4 + SV_TCP_HLEN || hdr > loc.l4 + loc.l4_len)
			return 0;
		seq = (uint32_t)sv_rd16(f + loc.l4 + 4) << 16 |
		      sv_rd16(f + loc.l4 + 6);
		flags = f[loc.l4 + 13];
	} else {
		hdr = loc.l4 + SV_UDP_HLEN;
	}
	payload = loc.l4 + loc.l4_len - hdr;
	if (loc.v4)
		ip_id = sv_rd16(f + loc.l3 + 4);
	for (off = 0; off < payload || n == 0; off += chunk) {
		chunk = payload - off < mss ? payload - off : mss;
		if (hdr + chunk > seg_cap)
			return n;
		memcpy(seg, f, hdr);
		memcpy(seg + hdr, f + hdr + off, chunk);
		sl = loc;
		sl.l4_len = hdr - loc.l4 + chunk;
		if (loc.v4) {
			sv_wr16(seg + loc.l3 + 2,
				(uint16_t)(loc.l4 - loc.l3 + sl.l4_len));
			sv_wr16(seg + loc.l3 + 4, (uint16_t)(ip_id + n));
			sv_ipv4_hdr_fill(seg + loc.l3);
		} else {
			sv_wr16(seg + loc.l3 + 4,
				(uint16_t)(loc.l4 - loc.l3 - 40 + sl.l4_len));
		}
		if (tcp) {
			uint32_t s = seq + off;
			uint8_t fl = flags;

			sv_wr16(seg + loc.l4 + 4, (uint16_t)(s >> 16));
			sv_wr16(seg + loc.l4 + 6, (uint16_t)s);
			if (off + chunk < payload)
				fl &= (uint8_t) ~(SV_TCP_FIN | SV_TCP_PSH);
			if (n > 0)
				fl &= (uint8_t)~SV_TCP_CWR;
			seg[loc.l4 + 13] = fl;
		} else {
			sv_wr16(seg + loc.l4 + 4, (uint16_t)sl.l4_len);
		}
		sv_l4_fill(seg, &sl);
		cb(arg, seg, hdr + chunk);
		n++;
		if (chunk == 0)
			break;
	}
	return n;
}
