/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Fuzz target: sv_edit_apply(), the flow actions softverbs runs on the
 * frames a rule takes (received frames included: the frame is anyone's).
 *
 * Input: the reformat (byte, mod 5), the number of header modify actions
 * (byte, mod 9), each as field, op (bit 0: ADD), offset, length and 4
 * data bytes (big-endian), kept only where
 * mlx5dv_create_flow_action_modify_header() on softverbs would take it
 * (a field it rewrites, ADD where the field takes it, bits within the
 * field, one L3 family and one L4 protocol per list); the reformat data
 * (encap: a length byte and one byte more than it says, as an encap
 * without data is refused; L3 decap: 14 or 18 bytes by
 * a byte's bit 0); the rest is the frame, in a buffer of exactly its
 * length.
 *
 * Invariants, with out of sv_edit_room() bytes: a result, never longer
 * than that, and the same twice; no action, no change; a decap leaves a
 * tail of the frame (after an L3 decap behind the data, verbatim), an L2
 * encap the data and then the frame, an L3 encap the data and a tail of
 * the frame (where the data holds the whole outer header the device
 * fills in); rewrites change no length, and keep a valid IPv4 header
 * checksum and a valid TCP or UDP checksum valid (one of 0 stays 0), as
 * a full recomputation finds them; an encap of Ethernet and IPv4 data
 * gets the outer total length and header checksum right. A frame the
 * actions change counts as accepted, one they leave alone (no tunnel to
 * decap, no header to rewrite) as refused.
 */

#include <stdlib.h>

#include "fuzz.h"
#include "sv_pktedit.h"
#include "vsteer_prm.h"

#define FZ_MAX_MOD 8
#define FZ_ETH 14

static uint32_t
fz_be32(struct fz_in *in)
{
	uint8_t b[4];

	fz_bytes(in, b, sizeof(b));
	return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 |
	       (uint32_t)b[2] << 8 | b[3];
}

static uint16_t
fz_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

/* The one's complement sum of n bytes, folded. */
static uint16_t
fz_sum(uint32_t acc, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		acc += fz_rd16(p + i);
	if (n & 1)
		acc += (uint32_t)p[n - 1] << 8;
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/* Where an untagged IPv4 frame's checksums stand: -1 no such frame, else
 * bit 0 the header checksum valid, bit 1 a TCP or UDP segment that fills
 * the IP length, bit 2 its checksum valid, bit 3 a UDP checksum of 0. */
static int
fz_csums(const uint8_t *f, uint32_t len)
{
	uint32_t ihl, tot, l4len;
	uint8_t proto;
	int st = 0;

	if (len < FZ_ETH + 20 || fz_rd16(f + 12) != 0x0800 ||
	    (f[FZ_ETH] >> 4) != 4)
		return -1;
	ihl = (uint32_t)(f[FZ_ETH] & 0xf) * 4;
	if (ihl < 20 || FZ_ETH + ihl > len)
		return -1;
	if (fz_sum(0, f + FZ_ETH, ihl) == 0xffff)
		st |= 1;
	tot = fz_rd16(f + FZ_ETH + 2);
	proto = f[FZ_ETH + 9];
	/* Whole, unfragmented, exactly the frame: no padding to guess. */
	if (tot != len - FZ_ETH || tot < ihl ||
	    (fz_rd16(f + FZ_ETH + 6) & 0x3fff) != 0 ||
	    (proto != 6 && proto != 17))
		return st;
	l4len = tot - ihl;
	/* A whole TCP or UDP header. */
	if (l4len < (proto == 6 ? 20u : 8u))
		return st;
	st |= 2;
	if (proto == 17 && fz_rd16(f + FZ_ETH + ihl + 6) == 0)
		return st | 8;
	if (fz_sum(fz_sum(proto + l4len, f + FZ_ETH + 12, 8), f + FZ_ETH + ihl,
		   l4len) == 0xffff)
		st |= 4;
	return st;
}

/* Does the encap data hold the whole outer header chain the device fills
 * (Ethernet, IPv4 or IPv6, and UDP when the IP header says so)? Else the
 * fill reaches into the frame, as the device's parser would see it. */
static bool
fz_whole_outer(const uint8_t *d, uint32_t n)
{
	uint32_t l4;
	uint8_t proto;

	if (n < FZ_ETH + 20)
		return false;
	if (fz_rd16(d + 12) == 0x0800 && (d[FZ_ETH] >> 4) == 4) {
		l4 = FZ_ETH + (uint32_t)(d[FZ_ETH] & 0xf) * 4;
		proto = d[FZ_ETH + 9];
		if (l4 < FZ_ETH + 20)
			return false;
	} else if (fz_rd16(d + 12) == 0x86dd && (d[FZ_ETH] >> 4) == 6) {
		l4 = FZ_ETH + 40;
		proto = n >= l4 ? d[FZ_ETH + 6] : 0;
		/* Extension headers: the walk would go on. */
		if (proto == 0 || proto == 43 || proto == 44 || proto == 60)
			return false;
	} else {
		return false;
	}
	return l4 + (proto == 17 ? 8u : 0u) <= n;
}

/* A tail of in, of n bytes. */
static bool
fz_tail(const uint8_t *in, uint32_t len, const uint8_t *p, uint32_t n)
{
	return n <= len && memcmp(in + len - n, p, n) == 0;
}

static void
fz_decode_mod(struct fz_in *in, struct sv_mod_cmd *c, uint32_t *n)
{
	unsigned int fam = 0, l4 = 0, i, want = fz_u8(in) % (FZ_MAX_MOD + 1);

	*n = 0;
	for (i = 0; i < want; i++) {
		struct sv_mod_cmd m;
		unsigned int w, f, p;

		m.field = fz_u8(in) & 0x7f;
		m.op = (fz_u8(in) & 1) ? VSTEER_PRM_MOD_ADD :
					 VSTEER_PRM_MOD_SET;
		m.off = fz_u8(in) & 0x1f;
		m.len = fz_u8(in) & 0x1f;
		m.data = fz_be32(in);
		w = sv_mod_field_width(m.field);
		if (w == 0)
			continue;
		if (m.op == VSTEER_PRM_MOD_ADD) {
			if (!sv_mod_field_addable(m.field))
				continue;
			m.off = 0;
			m.len = (uint8_t)w;
		} else {
			if (m.len == 0)
				m.len = 32;
			if ((unsigned int)m.off + m.len > w)
				continue;
		}
		f = sv_mod_field_family(m.field);
		p = sv_mod_field_l4(m.field);
		if ((f != 0 && fam != 0 && f != fam) ||
		    (p != 0 && l4 != 0 && p != l4))
			continue;
		fam = f != 0 ? f : fam;
		l4 = p != 0 ? p : l4;
		c[(*n)++] = m;
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	struct sv_mod_cmd mod[FZ_MAX_MOD];
	uint8_t hdr[257];
	struct sv_edit e;
	uint8_t *frame, *out, *out2;
	uint32_t len, room, n, n2;
	int before, after;
	bool changed;

	memset(&e, 0, sizeof(e));
	e.reformat = fz_u8(&in) % (SV_REFORMAT_ENCAP_L3 + 1);
	fz_decode_mod(&in, mod, &e.n_mod);
	e.mod = mod;
	/* An encap without data is refused (ENOENT, the kernel). */
	if (e.reformat == SV_REFORMAT_ENCAP_L2 ||
	    e.reformat == SV_REFORMAT_ENCAP_L3)
		e.data_len = 1u + fz_u8(&in);
	else if (e.reformat == SV_REFORMAT_DECAP_L3)
		e.data_len = (fz_u8(&in) & 1) ? 18 : 14;
	fz_bytes(&in, hdr, e.data_len);
	e.data = hdr;
	len = (uint32_t)fz_left(&in);
	frame = malloc(len + 1);
	room = sv_edit_room(&e, len);
	out = malloc(room + 1);
	out2 = malloc(room + 1);
	if (frame == NULL || out == NULL || out2 == NULL)
		abort();
	fz_bytes(&in, frame, len);

	n = sv_edit_apply(&e, frame, len, out, room);
	n2 = sv_edit_apply(&e, frame, len, out2, room);
	FZ_CHECK(n != 0 || len == 0, "no result for %u bytes in %u", len, room);
	FZ_CHECK(n <= room, "%u bytes, room %u", n, room);
	FZ_CHECK(n == n2 && memcmp(out, out2, n) == 0, "not the same twice");
	changed = n != len || memcmp(out, frame, n) != 0;
	if (e.n_mod == 0 && e.reformat == SV_REFORMAT_NONE)
		FZ_CHECK(!changed, "no action changed the frame");

	switch (e.reformat) {
	case SV_REFORMAT_NONE:
		FZ_CHECK(n == len, "a rewrite made %u bytes of %u", n, len);
		break;
	case SV_REFORMAT_DECAP_L2:
		FZ_CHECK(n <= len, "decap grew %u to %u", len, n);
		if (e.n_mod == 0)
			FZ_CHECK(fz_tail(frame, len, out, n),
				 "decap left no tail of the frame");
		break;
	case SV_REFORMAT_DECAP_L3:
		if (e.n_mod != 0 || !changed)
			break;
		FZ_CHECK(n >= e.data_len && memcmp(out, hdr, e.data_len) == 0 &&
				 fz_tail(frame, len, out + e.data_len,
					 n - e.data_len),
			 "L3 decap: not the data and a tail of the frame");
		break;
	case SV_REFORMAT_ENCAP_L2:
		FZ_CHECK(n == len + e.data_len, "L2 encap made %u of %u + %u",
			 n, len, e.data_len);
		if (e.n_mod == 0 && fz_whole_outer(hdr, e.data_len))
			FZ_CHECK(memcmp(out + e.data_len, frame, len) == 0,
				 "L2 encap: the frame changed");
		/* Ethernet and a whole IPv4 header in the data: filled. */
		if (e.data_len >= FZ_ETH + 20 && fz_rd16(hdr + 12) == 0x0800 &&
		    hdr[FZ_ETH] == 0x45)
			FZ_CHECK(fz_rd16(out + FZ_ETH + 2) == n - FZ_ETH &&
					 fz_sum(0, out + FZ_ETH, 20) == 0xffff,
				 "L2 encap: outer IPv4 length or checksum");
		break;
	default: /* ENCAP_L3 */
		FZ_CHECK(n >= e.data_len, "L3 encap made %u of %u", n,
			 e.data_len);
		if (e.n_mod == 0 && fz_whole_outer(hdr, e.data_len))
			FZ_CHECK(fz_tail(frame, len, out + e.data_len,
					 n - e.data_len),
				 "L3 encap: no tail of the frame after the data");
		break;
	}

	/* Checksums through rewrites alone. */
	if (e.reformat == SV_REFORMAT_NONE && e.n_mod != 0) {
		before = fz_csums(frame, len);
		after = fz_csums(out, n);
		if (before >= 0 && after >= 0 && out[FZ_ETH] == frame[FZ_ETH]) {
			if (before & 1)
				FZ_CHECK(after & 1, "IPv4 checksum broken");
			if ((before & 6) == 6)
				FZ_CHECK((after & 6) == 6,
					 "L4 checksum broken");
			if (before & 8)
				FZ_CHECK((after & 10) == 10,
					 "UDP checksum 0 made up");
		}
	}
	if (changed)
		fz_accepted++;
	else
		fz_refused++;
	free(frame);
	free(out);
	free(out2);
	return 0;
}
