/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_CSUM_H
#define SV_CSUM_H

/* Big-endian 16-bit fields of a frame, and the Internet checksum
 * (RFC 1071), for the parser's checks, the send side's IBV_SEND_IP_CSUM
 * offload and the receive side's VLAN tag reads. */

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline uint16_t
sv_rd16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static inline void
sv_wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/*
 * Add n bytes, as big-endian 16-bit words (an odd last byte padded), to a
 * running one's complement sum. The sum does not depend on byte order
 * (RFC 1071, 2.B): the bytes are added as native 32-bit words, folded to
 * 16 bits and swapped to network order once, which gives a value equal to
 * the big-endian sum modulo 0xffff (and zero only when it is zero).
 */
static inline uint64_t
sv_csum_add(uint64_t sum, const uint8_t *p, size_t n)
{
	uint64_t s = 0;
	uint32_t w;
	uint16_t h;
	size_t i = 0;

	for (; i + 4 <= n; i += 4) {
		memcpy(&w, p + i, 4);
		s += w;
	}
	if (i + 2 <= n) {
		memcpy(&h, p + i, 2);
		s += h;
		i += 2;
	}
	if (i < n) {
		/* The pad byte follows the last one in memory. */
		uint8_t last[2] = { p[i], 0 };

		memcpy(&h, last, 2);
		s += h;
	}
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	s = (uint16_t)(s << 8 | s >> 8);
#endif
	return sum + s;
}

/* Fold to 16 bits (not complemented: a valid packet folds to 0xffff). */
static inline uint16_t
sv_csum_fold(uint64_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

#endif /* SV_CSUM_H */
