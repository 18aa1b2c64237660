/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_CSUM_H
#define SV_CSUM_H

/* The Internet checksum (RFC 1071), for the parser's checks and the send
 * side's IBV_SEND_IP_CSUM offload. */

#include <stddef.h>
#include <stdint.h>

/* Add n bytes, as big-endian 16-bit words (an odd last byte padded), to a
 * running one's complement sum. */
static inline uint64_t
sv_csum_add(uint64_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
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
