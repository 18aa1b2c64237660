/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The software device's RSS hash against DPDK's rte_softrss() and the
 * Microsoft RSS verification vectors ("Verifying the RSS Hash
 * Calculation"), and the choice of hash input per IBV_RX_HASH_* field set.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_thash.h>

#include "sv_internal.h"
#include "vt_test.h"

/* The verification key of the Microsoft RSS specification. */
static const uint8_t ms_key[SV_RSS_KEY_LEN] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2, 0x41, 0x67,
	0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0, 0xd0, 0xca, 0x2b, 0xcb,
	0xae, 0x7b, 0x30, 0xb4, 0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30,
	0xf2, 0x0c, 0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct ms_vec {
	const char *src, *dst;
	uint16_t sport, dport;
	uint32_t h_ip, h_tcp;
};

static const struct ms_vec ms_v4[] = {
	{ "66.9.149.187", "161.142.100.80", 2794, 1766, 0x323e8fc2,
	  0x51ccc178 },
	{ "199.92.111.2", "65.69.140.83", 14230, 4739, 0xd718262a, 0xc626b0ea },
	{ "24.19.198.95", "12.22.207.184", 12898, 38024, 0xd2d0a5de,
	  0x5c2b394a },
	{ "38.27.205.30", "209.142.163.6", 48228, 2217, 0x82989176,
	  0xafc7327f },
	{ "153.39.163.191", "202.188.127.2", 44251, 1303, 0x5d1809c5,
	  0x10e828a2 },
};

static const struct ms_vec ms_v6[] = {
	{ "3ffe:2501:200:1fff::7", "3ffe:2501:200:3::1", 2794, 1766, 0x2cc18cd5,
	  0x40207d3d },
	{ "3ffe:501:8::260:97ff:fe40:efab", "ff02::1", 14230, 4739, 0x0f0c461c,
	  0xdde51bbf },
	{ "3ffe:1900:4545:3:200:f8ff:fe21:67cf", "fe80::200:f8ff:fe21:67cf",
	  44251, 38024, 0x4b61e985, 0x02d1feef },
};

#define V4_FIELDS (IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4)
#define V6_FIELDS (IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6)
#define TCP_FIELDS (IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP)
#define UDP_FIELDS (IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP)

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint32_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

static void
rng_bytes(uint8_t *p, size_t n)
{
	while (n-- > 0)
		*p++ = (uint8_t)rng();
}

/* Host-order 32-bit words of network-order bytes, rte_softrss input. */
static uint32_t
word(const uint8_t *p)
{
	uint32_t w;

	memcpy(&w, p, 4);
	return rte_be_to_cpu_32(w);
}

static void
set_hdrs(struct sv_hdrs *h, bool v6, const uint8_t *src, const uint8_t *dst,
	 uint8_t proto, uint16_t sport, uint16_t dport)
{
	memset(h, 0, sizeof(*h));
	h->present = SV_P_ETH | (v6 ? SV_P_IPV6 : SV_P_IPV4);
	/* IPv4 addresses sit in the last 4 bytes (the PRM union layout). */
	memcpy(h->src_ip + (v6 ? 0 : SV_IPV4_OFF), src, v6 ? 16 : 4);
	memcpy(h->dst_ip + (v6 ? 0 : SV_IPV4_OFF), dst, v6 ? 16 : 4);
	h->ip_proto = proto;
	if (proto == IPPROTO_TCP)
		h->present |= SV_P_TCP;
	else if (proto == IPPROTO_UDP)
		h->present |= SV_P_UDP;
	h->sport = htons(sport);
	h->dport = htons(dport);
}

static int
test_ms_vectors_ipv4(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(ms_v4); i++) {
		const struct ms_vec *v = &ms_v4[i];
		uint8_t src[4], dst[4];
		struct sv_key k;

		VT_CHECK(inet_pton(AF_INET, v->src, src) == 1, "addr");
		VT_CHECK(inet_pton(AF_INET, v->dst, dst) == 1, "addr");
		memset(&k, 0, sizeof(k));
		set_hdrs(&k.outer, false, src, dst, IPPROTO_TCP, v->sport,
			 v->dport);
		VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS, &k), v->h_ip,
			    "IPv4 vector %u", i);
		VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS | TCP_FIELDS, &k),
			    v->h_tcp, "IPv4/TCP vector %u", i);
	}
	return VT_OK;
}

static int
test_ms_vectors_ipv6(void)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(ms_v6); i++) {
		const struct ms_vec *v = &ms_v6[i];
		uint8_t src[16], dst[16];
		struct sv_key k;

		VT_CHECK(inet_pton(AF_INET6, v->src, src) == 1, "addr");
		VT_CHECK(inet_pton(AF_INET6, v->dst, dst) == 1, "addr");
		memset(&k, 0, sizeof(k));
		set_hdrs(&k.outer, true, src, dst, IPPROTO_TCP, v->sport,
			 v->dport);
		VT_CHECK_EQ(sv_rx_hash(ms_key, V6_FIELDS, &k), v->h_ip,
			    "IPv6 vector %u", i);
		VT_CHECK_EQ(sv_rx_hash(ms_key, V6_FIELDS | TCP_FIELDS, &k),
			    v->h_tcp, "IPv6/TCP vector %u", i);
	}
	return VT_OK;
}

/* The raw hash over random keys and inputs of every length rte_softrss
 * takes (whole 32-bit words, up to what a 40-byte key covers). */
static int
test_toeplitz_vs_softrss(void)
{
	uint8_t key[SV_RSS_KEY_LEN], in[36];
	uint32_t tuple[9];
	unsigned int i, w, n;

	for (i = 0; i < 2000; i++) {
		rng_bytes(key, sizeof(key));
		n = 1 + rng() % 9;
		rng_bytes(in, n * 4);
		for (w = 0; w < n; w++)
			tuple[w] = word(in + 4 * w);
		VT_CHECK_EQ(sv_toeplitz(key, sizeof(key), in, n * 4),
			    rte_softrss(tuple, n, key), "round %u, %u words", i,
			    n);
	}
	return VT_OK;
}

/* A hash QP's table gives the bitwise hash for every input length up to
 * two IPv6 addresses and ports (odd lengths too), and rte_softrss()'s for
 * whole words. */
static int
test_toeplitz_table(void)
{
	uint8_t key[SV_RSS_KEY_LEN], in[SV_TOEPLITZ_MAX_IN];
	struct sv_toeplitz_tbl *t;
	uint32_t tuple[9];
	unsigned int i, n, w;

	for (i = 0; i < 300; i++) {
		rng_bytes(key, sizeof(key));
		t = sv_toeplitz_prepare(key, SV_TOEPLITZ_MAX_IN);
		VT_CHECK(t != NULL, "alloc");
		n = rng() % (SV_TOEPLITZ_MAX_IN + 1);
		rng_bytes(in, sizeof(in));
		VT_CHECK_EQ(sv_toeplitz_tbl(t, in, n),
			    sv_toeplitz(key, sizeof(key), in, n),
			    "round %u, %u bytes", i, n);
		n = 4 * (1 + rng() % 9);
		for (w = 0; w < n / 4; w++)
			tuple[w] = word(in + 4 * w);
		VT_CHECK_EQ(sv_toeplitz_tbl(t, in, n),
			    rte_softrss(tuple, n / 4, key),
			    "round %u, %u words", i, n / 4);
		free(t);
	}
	/* What a hash QP's fields need: IPv4 and ports, IPv6 and ports. */
	VT_CHECK_EQ(sv_rx_hash_max_input(IBV_RX_HASH_SRC_IPV4 |
					 IBV_RX_HASH_DST_IPV4 |
					 IBV_RX_HASH_SRC_PORT_UDP |
					 IBV_RX_HASH_DST_PORT_UDP),
		    12, "ipv4 and ports");
	VT_CHECK_EQ(sv_rx_hash_max_input(IBV_RX_HASH_SRC_IPV6 |
					 IBV_RX_HASH_DST_IPV6 |
					 IBV_RX_HASH_SRC_PORT_TCP |
					 IBV_RX_HASH_DST_PORT_TCP),
		    36, "ipv6 and ports");
	return VT_OK;
}

/* A random frame: IPv4 or IPv6, TCP, UDP or another protocol, sometimes
 * a fragment; random addresses and ports. */
static unsigned int
rand_frame(uint8_t *f, size_t size)
{
	bool v6 = rng() & 1;
	uint8_t proto = (uint8_t[]){ 6, 17, 1 }[rng() % 3];
	unsigned int l3 = v6 ? 40 : 20, len = 14 + l3 + 20 + rng() % 8;

	if (len > size)
		len = (unsigned int)size;
	rng_bytes(f, len);
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		f[14] = 0x60;
		f[18] = 0;
		f[19] = (uint8_t)(len - 14 - 40);
		f[20] = proto;
	} else {
		f[14] = 0x45;
		f[16] = 0;
		f[17] = (uint8_t)(len - 14);
		/* a fragment one time in four */
		f[20] = (rng() & 3) == 0 ? 0x20 : 0x40;
		f[21] = 0;
		f[23] = proto;
	}
	f[14 + l3 + 2] = (uint8_t)(rng() & 0x7f); /* no tunnel port */
	return len;
}

/* A hash QP hashes through its table (and its shortcut for IPv4 with
 * ports) exactly as sv_rx_hash() does, on parsed frames of every kind the
 * fields may or may not cover. */
static int
test_qp_rx_hash(void)
{
	static const uint64_t sel[] = {
		V4_FIELDS | TCP_FIELDS,
		V4_FIELDS | UDP_FIELDS,
		V4_FIELDS,
		V6_FIELDS | TCP_FIELDS,
		V6_FIELDS | UDP_FIELDS,
		V6_FIELDS,
		IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_PORT_UDP,
		V4_FIELDS | V6_FIELDS | TCP_FIELDS | UDP_FIELDS,
	};
	uint8_t key[SV_RSS_KEY_LEN], f[128];
	unsigned int i, len;
	struct sv_qp qp;
	struct sv_key k;

	for (i = 0; i < 4000; i++) {
		memset(&qp, 0, sizeof(qp));
		rng_bytes(key, sizeof(key));
		qp.hash_fields = sel[rng() % RTE_DIM(sel)];
		qp.toeplitz = sv_toeplitz_prepare(key, sv_rx_hash_max_input(
							       qp.hash_fields));
		VT_CHECK(qp.toeplitz != NULL, "table");
		len = rand_frame(f, sizeof(f));
		sv_parse(f, len, &k, NULL);
		VT_CHECK_EQ(sv_qp_rx_hash(&qp, &k),
			    sv_rx_hash(key, qp.hash_fields, &k),
			    "round %u, fields 0x%" PRIx64, i, qp.hash_fields);
		free(qp.toeplitz);
	}
	return VT_OK;
}

/*
 * sv_rx_hash() on random tuples and keys against rte_softrss() over the
 * tuple DPDK would build for the same fields: source address, destination
 * address, then the ports word (source port high, destination port low).
 * A single port is a half word: the other half is zero, which adds
 * nothing to a Toeplitz hash.
 */
static int
test_rx_hash_vs_softrss(void)
{
	static const uint64_t l3sel[] = { 3, 1, 2 };	/* both, src, dst */
	static const uint64_t l4sel[] = { 0, 3, 1, 2 }; /* none, both, ... */
	uint8_t key[SV_RSS_KEY_LEN], src[16], dst[16];
	uint32_t tuple[9], expect, got;
	unsigned int i, n, w;

	for (i = 0; i < 4000; i++) {
		bool v6 = rng() & 1, udp = rng() & 1;
		uint64_t l3 = l3sel[rng() % 3], l4 = l4sel[rng() % 4];
		uint16_t sport = (uint16_t)rng(), dport = (uint16_t)rng();
		uint64_t fields;
		struct sv_key k;

		rng_bytes(key, sizeof(key));
		rng_bytes(src, sizeof(src));
		rng_bytes(dst, sizeof(dst));
		memset(&k, 0, sizeof(k));
		set_hdrs(&k.outer, v6, src, dst,
			 udp ? IPPROTO_UDP : IPPROTO_TCP, sport, dport);
		fields = v6 ? ((l3 & 1) ? IBV_RX_HASH_SRC_IPV6 : 0) |
					 ((l3 & 2) ? IBV_RX_HASH_DST_IPV6 : 0) :
			      ((l3 & 1) ? IBV_RX_HASH_SRC_IPV4 : 0) |
					 ((l3 & 2) ? IBV_RX_HASH_DST_IPV4 : 0);
		if (udp)
			fields |= ((l4 & 1) ? IBV_RX_HASH_SRC_PORT_UDP : 0) |
				  ((l4 & 2) ? IBV_RX_HASH_DST_PORT_UDP : 0);
		else
			fields |= ((l4 & 1) ? IBV_RX_HASH_SRC_PORT_TCP : 0) |
				  ((l4 & 2) ? IBV_RX_HASH_DST_PORT_TCP : 0);
		n = 0;
		if (l3 & 1)
			for (w = 0; w < (v6 ? 4u : 1u); w++)
				tuple[n++] = word(src + 4 * w);
		if (l3 & 2)
			for (w = 0; w < (v6 ? 4u : 1u); w++)
				tuple[n++] = word(dst + 4 * w);
		if (l4 == 3)
			tuple[n++] = (uint32_t)sport << 16 | dport;
		else if (l4 == 1)
			tuple[n++] = (uint32_t)sport << 16;
		else if (l4 == 2)
			tuple[n++] = (uint32_t)dport << 16;
		expect = rte_softrss(tuple, n, key);
		got = sv_rx_hash(key, fields, &k);
		VT_CHECK_EQ(got, expect, "round %u fields %#llx", i,
			    (unsigned long long)fields);
		/* The same frame tunnelled: INNER hashes the inner stack. */
		k.inner = k.outer;
		memset(&k.outer, 0, sizeof(k.outer));
		k.outer.present = SV_P_ETH | SV_P_IPV4 | SV_P_UDP;
		k.tunnel = SV_TUN_VXLAN;
		VT_CHECK_EQ(sv_rx_hash(key, fields | IBV_RX_HASH_INNER, &k),
			    expect, "inner, round %u", i);
	}
	return VT_OK;
}

/* Hash input only from layers the frame has: otherwise 0. */
static int
test_rx_hash_missing_layers(void)
{
	uint8_t a4[4] = { 10, 0, 0, 1 }, b4[4] = { 10, 0, 0, 2 };
	uint8_t a6[16] = { 0xfe, 0x80, [15] = 1 };
	uint8_t b6[16] = { 0xfe, 0x80, [15] = 2 };
	struct sv_key k4, k6, kfrag, knone;

	memset(&k4, 0, sizeof(k4));
	set_hdrs(&k4.outer, false, a4, b4, IPPROTO_UDP, 1000, 2000);
	memset(&k6, 0, sizeof(k6));
	set_hdrs(&k6.outer, true, a6, b6, IPPROTO_TCP, 1000, 2000);
	kfrag = k4;
	kfrag.outer.present |= SV_P_IPFRAG;
	kfrag.outer.present &= ~(uint32_t)SV_P_UDP;
	memset(&knone, 0, sizeof(knone));
	knone.outer.present = SV_P_ETH;

	VT_CHECK(sv_rx_hash(ms_key, V4_FIELDS, &k4) != 0, "IPv4 hashes");
	VT_CHECK_EQ(sv_rx_hash(ms_key, V6_FIELDS, &k4), 0, "no IPv6 layer");
	VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS, &k6), 0, "no IPv4 layer");
	VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS | TCP_FIELDS, &k4), 0,
		    "UDP frame, TCP fields");
	VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS | UDP_FIELDS, &kfrag), 0,
		    "fragment has no ports");
	VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS, &knone), 0, "non-IP");
	VT_CHECK_EQ(sv_rx_hash(ms_key, 0, &k4), 0, "no fields");
	VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS | IBV_RX_HASH_INNER, &k4), 0,
		    "INNER on a frame without tunnel");
	/* A QP that selects both families (generic profile) hashes the one
	 * present, exactly as a single-family QP would. */
	VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS | V6_FIELDS, &k4),
		    sv_rx_hash(ms_key, V4_FIELDS, &k4), "mixed, IPv4");
	VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS | V6_FIELDS, &k6),
		    sv_rx_hash(ms_key, V6_FIELDS, &k6), "mixed, IPv6");
	VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS | TCP_FIELDS | UDP_FIELDS,
			       &k4),
		    sv_rx_hash(ms_key, V4_FIELDS | UDP_FIELDS, &k4),
		    "mixed L4, UDP");
	return VT_OK;
}

/* From frame bytes: the parser's key gives the vector's hash. */
static int
test_rx_hash_parsed_frame(void)
{
	const struct ms_vec *v = &ms_v4[0];
	uint8_t f[14 + 20 + 20];
	struct sv_key k;

	memset(f, 0, sizeof(f));
	f[12] = 0x08;
	f[14] = 0x45;
	f[16] = 0;
	f[17] = 40;
	f[22] = 64;
	f[23] = IPPROTO_TCP;
	inet_pton(AF_INET, v->src, f + 26);
	inet_pton(AF_INET, v->dst, f + 30);
	f[34] = (uint8_t)(v->sport >> 8);
	f[35] = (uint8_t)v->sport;
	f[36] = (uint8_t)(v->dport >> 8);
	f[37] = (uint8_t)v->dport;
	f[46] = 0x50;
	memset(&k, 0, sizeof(k));
	sv_parse(f, sizeof(f), &k, NULL);
	VT_CHECK(k.outer.present & SV_P_TCP, "parsed as TCP");
	VT_CHECK_EQ(sv_rx_hash(ms_key, V4_FIELDS | TCP_FIELDS, &k), v->h_tcp,
		    "vector 0 from a frame");
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_ms_vectors_ipv4),
	VT_CASE(test_ms_vectors_ipv6),
	VT_CASE(test_toeplitz_vs_softrss),
	VT_CASE(test_toeplitz_table),
	VT_CASE(test_qp_rx_hash),
	VT_CASE(test_rx_hash_vs_softrss),
	VT_CASE(test_rx_hash_missing_layers),
	VT_CASE(test_rx_hash_parsed_frame),
	{ 0 },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
