/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The Toeplitz hash of receive-side scaling, as the Microsoft RSS
 * specification defines it, and the input a hash QP feeds it: bit by bit
 * (the reference), or through a table a hash QP computes from its key
 * once, which turns each input byte into two lookups.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sv_internal.h"

uint32_t
sv_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in,
	    size_t in_len)
{
	uint32_t hash = 0;
	uint32_t window;
	size_t i, next;
	int b;

	/* window holds key bits [i * 8, i * 8 + 32): for each input bit
	 * that is set, XOR the 32 key bits starting at that bit. Key bits
	 * past the end of the key are zero. */
	window = 0;
	for (next = 0; next < 4; next++)
		window = window << 8 | (next < key_len ? key[next] : 0);
	for (i = 0; i < in_len; i++) {
		uint8_t nk = next < key_len ? key[next] : 0;

		for (b = 7; b >= 0; b--) {
			if (in[i] & (1u << b))
				hash ^= window;
			window = window << 1 | ((nk >> b) & 1);
		}
		next++;
	}
	return hash;
}

struct sv_toeplitz_tbl *
sv_toeplitz_prepare(const uint8_t key[SV_RSS_KEY_LEN], size_t n)
{
	struct sv_toeplitz_tbl *t;
	unsigned int pos, bit, v;

	if (n > SV_TOEPLITZ_MAX_IN)
		n = SV_TOEPLITZ_MAX_IN;
	t = malloc(sizeof(*t) + n * sizeof(t->byte[0]));
	if (t == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	t->n = (uint32_t)n;
	/* t->byte[i][v]: the hash of an input that is zero but for byte i,
	 * which holds v; the hash being linear in the input, XORing one
	 * entry per byte gives the whole hash. */
	for (pos = 0; pos < n; pos++) {
		uint32_t win[8];

		for (bit = 0; bit < 8; bit++) {
			/* The 32 key bits from input bit pos * 8 + bit. */
			unsigned int p = pos * 8 + bit, j;
			uint32_t w = 0;

			for (j = 0; j < 32; j++) {
				unsigned int kb = p + j;
				uint32_t b = 0;

				if (kb < SV_RSS_KEY_LEN * 8)
					b = (key[kb / 8] >> (7 - kb % 8)) & 1;
				w = w << 1 | b;
			}
			win[bit] = w;
		}
		for (v = 0; v < 256; v++) {
			uint32_t h = 0;

			for (bit = 0; bit < 8; bit++)
				if (v & (0x80u >> bit))
					h ^= win[bit];
			t->byte[pos][v] = h;
		}
	}
	return t;
}

uint32_t
sv_toeplitz_tbl(const struct sv_toeplitz_tbl *t, const uint8_t *in,
		size_t in_len)
{
	uint32_t hash = 0;
	size_t i;

	if (in_len > t->n)
		in_len = t->n;
	for (i = 0; i + 4 <= in_len; i += 4)
		hash ^= t->byte[i][in[i]] ^ t->byte[i + 1][in[i + 1]] ^
			t->byte[i + 2][in[i + 2]] ^ t->byte[i + 3][in[i + 3]];
	for (; i < in_len; i++)
		hash ^= t->byte[i][in[i]];
	return hash;
}

#define SV_HASH_L3_V4 (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)
#define SV_HASH_L3_V6 (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6)
#define SV_HASH_L4_TCP (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)
#define SV_HASH_L4_UDP (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)

/* The input under fields: source address, destination address, source
 * port, destination port; its length, 0 when the frame lacks a layer the
 * fields select. */
static size_t
sv_rx_hash_input(uint64_t fields, const struct sv_key *k,
		 uint8_t in[SV_TOEPLITZ_MAX_IN])
{
	const struct sv_hdrs *h;
	size_t n = 0;

	if (fields & IBV_RX_HASH_INNER) {
		if (k->tunnel == SV_TUN_NONE)
			return 0;
		h = &k->inner;
	} else {
		h = &k->outer;
	}
	/* Input order is fixed: source address, destination address,
	 * source port, destination port. A QP that may hash both families
	 * (generic profile) takes the one the frame carries. */
	if ((fields & SV_HASH_L3_V4) && (h->present & SV_P_IPV4)) {
		if (fields & IBV_RX_HASH_SRC_IPV4) {
			memcpy(in + n, h->src_ip + SV_IPV4_OFF, 4);
			n += 4;
		}
		if (fields & IBV_RX_HASH_DST_IPV4) {
			memcpy(in + n, h->dst_ip + SV_IPV4_OFF, 4);
			n += 4;
		}
	} else if ((fields & SV_HASH_L3_V6) && (h->present & SV_P_IPV6)) {
		if (fields & IBV_RX_HASH_SRC_IPV6) {
			memcpy(in + n, h->src_ip, 16);
			n += 16;
		}
		if (fields & IBV_RX_HASH_DST_IPV6) {
			memcpy(in + n, h->dst_ip, 16);
			n += 16;
		}
	} else if (fields & (SV_HASH_L3_V4 | SV_HASH_L3_V6)) {
		return 0;
	}
	/* Fragments carry no usable ports. */
	if ((fields & SV_HASH_L4_TCP) && (h->present & SV_P_TCP) &&
	    !(h->present & SV_P_IPFRAG)) {
		if (fields & IBV_RX_HASH_SRC_PORT_TCP) {
			memcpy(in + n, &h->sport, 2);
			n += 2;
		}
		if (fields & IBV_RX_HASH_DST_PORT_TCP) {
			memcpy(in + n, &h->dport, 2);
			n += 2;
		}
	} else if ((fields & SV_HASH_L4_UDP) && (h->present & SV_P_UDP) &&
		   !(h->present & SV_P_IPFRAG)) {
		if (fields & IBV_RX_HASH_SRC_PORT_UDP) {
			memcpy(in + n, &h->sport, 2);
			n += 2;
		}
		if (fields & IBV_RX_HASH_DST_PORT_UDP) {
			memcpy(in + n, &h->dport, 2);
			n += 2;
		}
	} else if (fields & (SV_HASH_L4_TCP | SV_HASH_L4_UDP)) {
		return 0;
	}
	return n;
}

size_t
sv_rx_hash_max_input(uint64_t fields)
{
	size_t n = 0;

	if (fields & IBV_RX_HASH_SRC_IPV6)
		n += 16;
	else if (fields & IBV_RX_HASH_SRC_IPV4)
		n += 4;
	if (fields & IBV_RX_HASH_DST_IPV6)
		n += 16;
	else if (fields & IBV_RX_HASH_DST_IPV4)
		n += 4;
	if (fields & (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_SRC_PORT_UDP))
		n += 2;
	if (fields & (IBV_RX_HASH_DST_PORT_TCP | IBV_RX_HASH_DST_PORT_UDP))
		n += 2;
	return n;
}

uint32_t
sv_rx_hash(const uint8_t key[SV_RSS_KEY_LEN], uint64_t fields,
	   const struct sv_key *k)
{
	uint8_t in[SV_TOEPLITZ_MAX_IN];
	size_t n = sv_rx_hash_input(fields, k, in);

	return sv_toeplitz(key, SV_RSS_KEY_LEN, in, n);
}

uint32_t
sv_qp_rx_hash(const struct sv_qp *qp, const struct sv_key *k)
{
	const uint32_t(*b)[256] = qp->toeplitz->byte;
	const struct sv_hdrs *h = &k->outer;
	uint8_t in[SV_TOEPLITZ_MAX_IN];
	const uint8_t *s, *d;
	size_t n;

	if (qp->hash_fields == 0)
		return 0;
	/* The common input, straight from the key: both IPv4 addresses and
	 * both ports of an unfragmented outer TCP or UDP header, the
	 * protocol the fields name. */
	if (((qp->hash_fields == (SV_HASH_L3_V4 | SV_HASH_L4_UDP) &&
	      (h->present & SV_P_UDP)) ||
	     (qp->hash_fields == (SV_HASH_L3_V4 | SV_HASH_L4_TCP) &&
	      (h->present & SV_P_TCP))) &&
	    (h->present & (SV_P_IPV4 | SV_P_IPFRAG)) == SV_P_IPV4) {
		const uint8_t *sp = (const uint8_t *)&h->sport;
		const uint8_t *dp = (const uint8_t *)&h->dport;

		s = h->src_ip + SV_IPV4_OFF;
		d = h->dst_ip + SV_IPV4_OFF;
		return b[0][s[0]] ^ b[1][s[1]] ^ b[2][s[2]] ^ b[3][s[3]] ^
		       b[4][d[0]] ^ b[5][d[1]] ^ b[6][d[2]] ^ b[7][d[3]] ^
		       b[8][sp[0]] ^ b[9][sp[1]] ^ b[10][dp[0]] ^ b[11][dp[1]];
	}
	n = sv_rx_hash_input(qp->hash_fields, k, in);
	return sv_toeplitz_tbl(qp->toeplitz, in, n);
}
