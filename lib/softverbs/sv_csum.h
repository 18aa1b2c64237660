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

/* Add n bytes, as big-endian 16-bit words (an odd last byte padded), to a
 * running one's complement sum. */
static inline uint64_t
sv_csum_add(uint64_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += sv_rd16(p + i);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
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
