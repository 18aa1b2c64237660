/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_OFFLOAD_H
#define SV_OFFLOAD_H

/*
 * What a NIC's transmit offloads do to a frame, done in software: fill the
 * IPv4 header and TCP/UDP checksums, and cut a TCP or UDP super-frame into
 * wire-sized frames. Used by the send path (IBV_SEND_IP_CSUM) and by the
 * packet wire, for frames the sending kernel left to such offloads
 * (a veth peer hands over checksums not done and 64 KiB TCP segments).
 */

#include <stdbool.h>
#include <stdint.h>

/* Where the outer L3 and L4 headers of an Ethernet frame are. */
struct sv_l4loc {
	uint32_t l3;	 /* L3 header offset (after up to two VLAN tags) */
	uint32_t l4;	 /* TCP/UDP header offset, 0 when none */
	uint32_t l4_len; /* TCP/UDP header + payload, from the IP header */
	uint8_t proto;	 /* IP protocol of the L4 header */
	bool v4;	 /* IPv4 (else IPv6) */
};

/*
 * Locate the outer IPv4/IPv6 header and, when it carries an unfragmented
 * TCP or UDP segment that fits the frame, that header. Returns false for
 * frames that are not IP or whose IP header is cut short.
 */
bool sv_l4_locate(const uint8_t *f, uint32_t len, struct sv_l4loc *loc);

/*
 * Fill the TCP/UDP checksum of a frame (pseudo header, header and payload;
 * a UDP result of 0 is sent as 0xffff) and, with ip_hdr, the IPv4 header
 * checksum. Frames without such headers are left alone. Returns true when
 * an L4 checksum was written.
 */
bool sv_csum_fill(uint8_t *f, uint32_t len, bool ip_hdr);

/*
 * Write the frame's length into its IPv4 total length (and the IPv4
 * header checksum) or IPv6 payload length: a TSO header's value is the
 * sender's guess, the device fills it in. False when the frame has no IP
 * header after its Ethernet header and VLAN tags.
 */
bool sv_ip_len_fill(uint8_t *f, uint32_t len);

typedef void (*sv_frame_cb)(void *arg, const uint8_t *frame, uint32_t len);

/*
 * Cut a TCP (tcp) or UDP super-frame into frames of at most mss payload
 * bytes, as a device with TSO / UDP segmentation puts it on the wire: each
 * frame has the headers of the original with the IPv4 total length and id
 * (+1 per frame), IPv6 payload length, TCP sequence number and flags (FIN
 * and PSH on the last frame only, CWR on the first only) or UDP length
 * adjusted, and complete checksums. Frames are built in seg (seg_cap
 * bytes) and handed to cb one by one. Returns how many, 0 when the frame
 * is not one it can cut (the caller drops it).
 */
unsigned int
sv_gso_cut(const uint8_t *f, uint32_t len, bool tcp, uint32_t mss, uint8_t *seg,
	   uint32_t seg_cap, sv_frame_cb cb, void *arg);

#endif /* SV_OFFLOAD_H */
