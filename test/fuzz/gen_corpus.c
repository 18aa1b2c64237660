/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Writes the seed corpus of the fuzz harnesses:
 *	fuzz_gen_corpus <dir>      (dir/parse, dir/spec, dir/fte, dir/xlate,
 *	                            dir/edit)
 * Deterministic: the same build writes the same bytes.
 *
 *   parse  frames: plain L2/L3/L4 with valid checksums, VLAN and QinQ,
 *          IPv6 extension headers, fragments, VXLAN, GRE (with key, TEB),
 *          MPLS over UDP / GRE / plain, ESP, truncated and runt frames
 *   xlate  a set of rte_flow rules (accepted and refused ones), in the
 *          fuzz_xlate input format (fuzz_xlate.h)
 *   spec   the ibv_create_flow(3) example chain, the verbs translation of
 *          every accepted seed flow, and hand-made chains (INNER specs,
 *          extended filters, bad sizes, unknown types)
 *   fte    the DV translation (mask and value) of every seed flow the
 *          mlx5dv path takes, as fuzz_fte inputs, plus bad criteria/sizes
 *   edit   flow actions (fuzz_edit format) on some of the parse frames:
 *          rewrites of each header, decap of VXLAN, GRE and MPLS, L2 and
 *          L3 encap, and actions that leave a frame alone
 *
 * Files of the same name are overwritten; regression inputs found by
 * fuzzing live beside them under other names (crash-*).
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <rte_byteorder.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "fuzz_xlate.h"
#include "vsteer_flow_dv.h"
#include "vsteer_flow_verbs.h"
#include "vsteer_prm.h"

struct out {
	uint8_t b[4096];
	size_t n;
};

static const char *out_dir;
static int n_written;

static void
put(struct out *o, const void *p, size_t n)
{
	if (o->n + n > sizeof(o->b)) {
		fprintf(stderr, "seed too large\n");
		exit(1);
	}
	memcpy(o->b + o->n, p, n);
	o->n += n;
}

static void
put8(struct out *o, uint8_t v)
{
	put(o, &v, 1);
}

static void
put16be(struct out *o, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(o, b, 2);
}

static void
put32be(struct out *o, uint32_t v)
{
	put16be(o, (uint16_t)(v >> 16));
	put16be(o, (uint16_t)v);
}

static void
put_zero(struct out *o, size_t n)
{
	while (n-- > 0)
		put8(o, 0);
}

/* Contents already written, to skip duplicate seeds (FNV-1a). */
static uint64_t seen[512];
static unsigned int n_seen;

static bool
seen_before(const char *target, const void *p, size_t n)
{
	const uint8_t *b = p;
	uint64_t h = 0xcbf29ce484222325ull;
	unsigned int i;
	size_t k;

	for (k = 0; target[k] != '\0'; k++)
		h = (h ^ (uint8_t)target[k]) * 0x100000001b3ull;
	for (k = 0; k < n; k++)
		h = (h ^ b[k]) * 0x100000001b3ull;
	for (i = 0; i < n_seen; i++)
		if (seen[i] == h)
			return true;
	if (n_seen < RTE_DIM(seen))
		seen[n_seen++] = h;
	return false;
}

static void
write_seed(const char *target, const char *name, const void *p, size_t n)
{
	char path[1024];
	FILE *fp;

	if (seen_before(target, p, n))
		return;

	snprintf(path, sizeof(path), "%s/%s", out_dir, target);
	if (mkdir(path, 0755) != 0 && errno != EEXIST) {
		perror(path);
		exit(1);
	}
	snprintf(path, sizeof(path), "%s/%s/%s", out_dir, target, name);
	fp = fopen(path, "wb");
	if (fp == NULL || fwrite(p, 1, n, fp) != n || fclose(fp) != 0) {
		perror(path);
		exit(1);
	}
	n_written++;
}

/*
 * Frames.
 */

static uint16_t
csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

static uint32_t
csum_add(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static void
eth(struct out *o, uint16_t type)
{
	static const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x01 };
	static const uint8_t src[6] = { 0x02, 0, 0, 0, 0, 0x02 };

	put(o, dst, 6);
	put(o, src, 6);
	put16be(o, type);
}

static void
vlan(struct out *o, uint16_t tci, uint16_t type)
{
	put16be(o, tci);
	put16be(o, type);
}

/* IPv4 header for a payload of plen bytes; returns its offset. */
static size_t
ipv4(struct out *o, uint8_t proto, size_t plen, uint16_t frag)
{
	size_t off = o->n;
	uint16_t c;

	put8(o, 0x45);
	put8(o, 0x10);
	put16be(o, (uint16_t)(20 + plen));
	put16be(o, 0x1234);
	put16be(o, frag);
	put8(o, 64);
	put8(o, proto);
	put16be(o, 0);
	put32be(o, 0x0a000001);
	put32be(o, 0x0a000002);
	c = csum_fold(csum_add(0, o->b + off, 20));
	o->b[off + 10] = (uint8_t)(c >> 8);
	o->b[off + 11] = (uint8_t)c;
	return off;
}

static size_t
ipv6(struct out *o, uint8_t next, size_t plen)
{
	size_t off = o->n;
	int i;

	put32be(o, 0x6a100001); /* version 6, class 0xa1, label 1 */
	put16be(o, (uint16_t)plen);
	put8(o, next);
	put8(o, 64);
	for (i = 0; i < 16; i++)
		put8(o, i == 15 ? 1 : (i == 0 ? 0x20 : 0));
	for (i = 0; i < 16; i++)
		put8(o, i == 15 ? 2 : (i == 0 ? 0x20 : 0));
	return off;
}

/* Fill the TCP/UDP checksum of the segment at l4 (to the frame's end). */
static void
l4_csum(struct out *o, size_t l3, size_t l4, uint8_t proto, bool v6)
{
	size_t len = o->n - l4, at = l4 + (proto == 6 ? 16 : 6);
	uint32_t sum = 0;
	uint16_t c;

	if (v6)
		sum = csum_add(sum, o->b + l3 + 8, 32);
	else
		sum = csum_add(sum, o->b + l3 + 12, 8);
	sum += proto + (uint32_t)len;
	o->b[at] = 0;
	o->b[at + 1] = 0;
	sum = csum_add(sum, o->b + l4, len);
	c = csum_fold(sum);
	o->b[at] = (uint8_t)(c >> 8);
	o->b[at + 1] = (uint8_t)c;
}

static size_t
tcp(struct out *o, uint16_t sport, uint16_t dport)
{
	size_t off = o->n;

	put16be(o, sport);
	put16be(o, dport);
	put32be(o, 1000);
	put32be(o, 0);
	put8(o, 0x50);
	put8(o, 0x02); /* SYN */
	put16be(o, 8192);
	put16be(o, 0);
	put16be(o, 0);
	return off;
}

static size_t
udp(struct out *o, uint16_t sport, uint16_t dport, size_t plen)
{
	size_t off = o->n;

	put16be(o, sport);
	put16be(o, dport);
	put16be(o, (uint16_t)(8 + plen));
	put16be(o, 0);
	return off;
}

static void
payload(struct out *o, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put8(o, (uint8_t)('a' + i % 26));
}

/*
 * Flow actions on frames (fuzz_edit format): a program, then the frame.
 */

enum {
	ED_NONE,
	ED_DECAP_L2,
	ED_DECAP_L3,
	ED_ENCAP_L2,
	ED_ENCAP_L3
};

static void
prog_mod(struct out *p, uint8_t field, bool add, uint8_t off, uint8_t len,
	 uint32_t data)
{
	put8(p, field);
	put8(p, add ? 1 : 0);
	put8(p, off);
	put8(p, len);
	put32be(p, data);
}

/* Encap data: Ethernet, IPv4 (lengths and checksum left to the device)
 * and, by kind, UDP to the VXLAN or MPLS port or NVGRE. */
static void
prog_encap_hdr(struct out *d, char kind)
{
	eth(d, 0x0800);
	ipv4(d, kind == 'n' ? 47 : 17, 0, 0);
	d->b[d->n - 20 + 2] = 0;
	d->b[d->n - 20 + 3] = 0;
	if (kind == 'n') {
		put16be(d, 0x2000);
		put16be(d, 0x6558);
		put32be(d, 0x00007700);
		return;
	}
	udp(d, 5000, kind == 'v' ? 4789 : 6635, 0);
	if (kind == 'v') {
		put32be(d, 0x08000000);
		put32be(d, 0x00004d00);
	} else {
		put32be(d, (77u << 12) | 0x100 | 0x40);
	}
}

static void
edit_seed(const char *name, const struct out *prog, const struct out *frame)
{
	struct out o = *prog;

	put(&o, frame->b, frame->n);
	write_seed("edit", name, o.b, o.n);
}

/* The edit seeds of a parse frame, by its name. */
static void
seed_edits(const char *frame_name, const struct out *f)
{
	struct out p, d;
	const char *k;

	memset(&p, 0, sizeof(p));
	memset(&d, 0, sizeof(d));
	if (strcmp(frame_name, "eth_ipv4_tcp") == 0) {
		put8(&p, ED_NONE);
		put8(&p, 4);
		prog_mod(&p, 0x15, false, 0, 0, 0xc0000201); /* SIPV4 */
		prog_mod(&p, 0x09, false, 0, 16, 8080);	     /* TCP_DPORT */
		prog_mod(&p, 0x0a, true, 0, 8, 0xff);	     /* TTL - 1 */
		prog_mod(&p, 0x06, false, 0, 6, 0x2e);	     /* DSCP */
		edit_seed("rw_ipv4_tcp", &p, f);
		p.n = 0;
		put8(&p, ED_NONE);
		put8(&p, 1);
		prog_mod(&p, 0x0b, false, 0, 16, 53); /* UDP_SPORT */
		edit_seed("bad_rewrite_udp_on_tcp", &p, f);
		p.n = 0;
		put8(&p, ED_DECAP_L2);
		put8(&p, 0);
		edit_seed("bad_decap_plain_frame", &p, f);
		for (k = "vn"; *k != '\0'; k++) {
			p.n = 0;
			d.n = 0;
			put8(&p, ED_ENCAP_L2);
			put8(&p, 0);
			prog_encap_hdr(&d, *k);
			put8(&p, (uint8_t)(d.n - 1));
			put(&p, d.b, d.n);
			edit_seed(*k == 'v' ? "encap_vxlan" : "encap_nvgre", &p,
				  f);
		}
	} else if (strcmp(frame_name, "runt") == 0) {
		/* No Ethernet header, no MAC address to rewrite. */
		put8(&p, ED_NONE);
		put8(&p, 2);
		prog_mod(&p, 0x02, false, 0, 16, 0x1234);    /* SMAC_15_0 */
		prog_mod(&p, 0x04, false, 0, 0, 0x0a0b0c0d); /* DMAC_47_16 */
		edit_seed("bad_rewrite_mac_runt", &p, f);
	} else if (strcmp(frame_name, "eth_ipv4_udp_padded") == 0) {
		put8(&p, ED_NONE);
		put8(&p, 2);
		prog_mod(&p, 0x0c, false, 0, 16, 5353);	  /* UDP_DPORT */
		prog_mod(&p, 0x05, false, 0, 16, 0x0203); /* DMAC_15_0 */
		edit_seed("rw_ipv4_udp_padded", &p, f);
	} else if (strcmp(frame_name, "eth_vlan_ipv6_udp") == 0) {
		put8(&p, ED_NONE);
		put8(&p, 3);
		prog_mod(&p, 0x14, false, 0, 0, 0x99);	/* DIPV6_31_0 */
		prog_mod(&p, 0x47, true, 0, 8, 0xff);	/* hop limit - 1 */
		prog_mod(&p, 0x0c, false, 0, 16, 4444); /* UDP_DPORT */
		edit_seed("rw_vlan_ipv6_udp", &p, f);
		p.n = 0;
		put8(&p, ED_ENCAP_L3);
		put8(&p, 0);
		prog_encap_hdr(&d, 'm');
		put8(&p, (uint8_t)(d.n - 1));
		put(&p, d.b, d.n);
		edit_seed("encap_l3_mpls_udp", &p, f);
	} else if (strcmp(frame_name, "eth_ipv6_ext_tcp") == 0) {
		put8(&p, ED_NONE);
		put8(&p, 3);
		prog_mod(&p, 0x59, true, 0, 0, 1000);	    /* TCP_SEQ */
		prog_mod(&p, 0x5b, true, 0, 0, 0xfffffc18); /* TCP_ACK */
		prog_mod(&p, 0x07, false, 0, 9, 0x12);	    /* TCP_FLAGS */
		edit_seed("rw_ipv6_tcp_seq", &p, f);
	} else if (strcmp(frame_name, "eth_ipv4_frag") == 0) {
		put8(&p, ED_NONE);
		put8(&p, 1);
		prog_mod(&p, 0x0c, false, 0, 16, 9); /* UDP_DPORT */
		edit_seed("rw_first_fragment", &p, f);
	} else if (strcmp(frame_name, "vxlan_ipv4_tcp") == 0) {
		put8(&p, ED_DECAP_L2);
		put8(&p, 0);
		edit_seed("decap_vxlan", &p, f);
		p.n = 0;
		put8(&p, ED_DECAP_L2);
		put8(&p, 2);
		prog_mod(&p, 0x16, false, 0, 0, 0x0a000063); /* DIPV4 */
		prog_mod(&p, 0x08, false, 0, 16, 7);	     /* TCP_SPORT */
		edit_seed("decap_vxlan_rewrite", &p, f);
	} else if (strcmp(frame_name, "gre_teb_ipv6_tcp") == 0) {
		put8(&p, ED_DECAP_L2);
		put8(&p, 0);
		edit_seed("decap_gre_teb", &p, f);
	} else if (strcmp(frame_name, "mpls_udp_ipv4") == 0 ||
		   strcmp(frame_name, "gre_key_ipv4_udp") == 0) {
		bool tag = frame_name[0] == 'g';

		put8(&p, ED_DECAP_L3);
		put8(&p, 0);
		put8(&p, tag ? 1 : 0);
		eth(&p, tag ? 0x8100 : 0x0800);
		if (tag)
			vlan(&p, 0x0064, 0x0800);
		edit_seed(tag ? "decap_l3_gre_vlan" : "decap_l3_mpls_udp", &p,
			  f);
	}
}

/* A parse seed, and the edit seeds of its frame. */
static void
frame_seed(const char *name, const struct out *o)
{
	write_seed("parse", name, o->b, o->n);
	seed_edits(name, o);
}

static void
seed_frames(void)
{
	struct out o;
	size_t l3, l4, inner;

	/* eth / ipv4 / tcp, valid checksums */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x0800);
	l3 = ipv4(&o, 6, 20 + 6, 0);
	l4 = tcp(&o, 1234, 80);
	payload(&o, 6);
	l4_csum(&o, l3, l4, 6, false);
	frame_seed("eth_ipv4_tcp", &o);
	/* the same, truncated inside TCP, and a runt */
	write_seed("parse", "eth_ipv4_tcp_truncated", o.b, 40);
	write_seed("parse", "runt", o.b, 10);
	o.n = 10;
	seed_edits("runt", &o);

	/* eth / ipv4 / udp with Ethernet padding past the IP length */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x0800);
	l3 = ipv4(&o, 17, 8 + 4, 0);
	l4 = udp(&o, 5000, 53, 4);
	payload(&o, 4);
	l4_csum(&o, l3, l4, 17, false);
	put_zero(&o, 60 - o.n);
	frame_seed("eth_ipv4_udp_padded", &o);

	/* eth / vlan / ipv6 / udp */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x8100);
	vlan(&o, 0x2064, 0x86dd);
	l3 = ipv6(&o, 17, 8 + 8);
	l4 = udp(&o, 4000, 4001, 8);
	payload(&o, 8);
	l4_csum(&o, l3, l4, 17, true);
	frame_seed("eth_vlan_ipv6_udp", &o);

	/* QinQ / ipv4 / tcp */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x88a8);
	vlan(&o, 0x0005, 0x8100);
	vlan(&o, 0x0006, 0x0800);
	l3 = ipv4(&o, 6, 20, 0);
	l4 = tcp(&o, 22, 2222);
	l4_csum(&o, l3, l4, 6, false);
	write_seed("parse", "qinq_ipv4_tcp", o.b, o.n);

	/* ipv4 first fragment (MF) */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x0800);
	ipv4(&o, 17, 16, 0x2000);
	udp(&o, 1, 2, 8);
	payload(&o, 8);
	frame_seed("eth_ipv4_frag", &o);

	/* ipv6 / hop-by-hop / dst options / tcp */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x86dd);
	l3 = ipv6(&o, 0, 8 + 16 + 20);
	put8(&o, 60);
	put8(&o, 0);
	put_zero(&o, 6);
	put8(&o, 6);
	put8(&o, 1);
	put_zero(&o, 14);
	l4 = tcp(&o, 443, 50000);
	l4_csum(&o, l3, l4, 6, true);
	frame_seed("eth_ipv6_ext_tcp", &o);

	/* ipv6 / fragment header / udp */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x86dd);
	ipv6(&o, 44, 8 + 8);
	put8(&o, 17);
	put8(&o, 0);
	put16be(&o, 0x0001);
	put32be(&o, 0xabcd);
	udp(&o, 7, 8, 0);
	write_seed("parse", "eth_ipv6_frag", o.b, o.n);

	/* vxlan: eth / ipv4 / udp 4789 / vxlan / eth / ipv4 / tcp */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x0800);
	l3 = ipv4(&o, 17, 8 + 8 + 14 + 20 + 20, 0);
	udp(&o, 49152, 4789, 8 + 14 + 20 + 20);
	put32be(&o, 0x08000000);
	put32be(&o, 0x00123400); /* VNI 0x1234 */
	eth(&o, 0x0800);
	inner = ipv4(&o, 6, 20, 0);
	l4 = tcp(&o, 1111, 2222);
	l4_csum(&o, inner, l4, 6, false);
	frame_seed("vxlan_ipv4_tcp", &o);

	/* gre with key / ipv4 / udp */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x0800);
	ipv4(&o, 47, 8 + 20 + 8, 0);
	put16be(&o, 0x2000);
	put16be(&o, 0x0800);
	put32be(&o, 0xdeadbeef);
	inner = ipv4(&o, 17, 8, 0);
	udp(&o, 10, 20, 0);
	frame_seed("gre_key_ipv4_udp", &o);

	/* gre (checksum + sequence) / TEB / eth / ipv6 / tcp */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x0800);
	ipv4(&o, 47, 12 + 14 + 40 + 20, 0);
	put16be(&o, 0x9000);
	put16be(&o, 0x6558);
	put32be(&o, 0);
	put32be(&o, 7);
	eth(&o, 0x86dd);
	inner = ipv6(&o, 6, 20);
	l4 = tcp(&o, 80, 8080);
	l4_csum(&o, inner, l4, 6, true);
	frame_seed("gre_teb_ipv6_tcp", &o);

	/* mpls over udp 6635: two labels / ipv4 / udp */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x0800);
	ipv4(&o, 17, 8 + 8 + 20 + 8, 0);
	udp(&o, 3000, 6635, 8 + 20 + 8);
	put32be(&o, (100u << 12) | 0x40);
	put32be(&o, (200u << 12) | 0x100 | 0x40);
	inner = ipv4(&o, 17, 8, 0);
	udp(&o, 1, 2, 0);
	frame_seed("mpls_udp_ipv4", &o);

	/* mpls over gre / ipv6 */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x86dd);
	ipv6(&o, 47, 4 + 4 + 40);
	put16be(&o, 0);
	put16be(&o, 0x8847);
	put32be(&o, (300u << 12) | 0x100 | 0x40);
	ipv6(&o, 59, 0);
	write_seed("parse", "mpls_gre_ipv6", o.b, o.n);

	/* plain mpls after L2 */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x8847);
	put32be(&o, (16u << 12) | 0x100 | 0x40);
	ipv4(&o, 6, 0, 0);
	write_seed("parse", "eth_mpls", o.b, o.n);

	/* esp */
	memset(&o, 0, sizeof(o));
	eth(&o, 0x0800);
	ipv4(&o, 50, 16, 0);
	put32be(&o, 0x1000);
	put32be(&o, 1);
	payload(&o, 8);
	write_seed("parse", "eth_ipv4_esp", o.b, o.n);
}

/*
 * Flows: rte_flow rules in the fuzz_xlate format; their verbs and DV
 * translations seed the spec and fte corpora.
 */

struct seed_flow {
	const char *name;
	uint8_t ctx_flags;
	uint8_t ctx2; /* FZ_CTX2_*; 0 means FZ_CTX2_ALL */
	uint8_t nb_rxq;
	uint8_t prio_sel; /* index in fz_max_prios */
	struct rte_flow_attr attr;
	struct rte_flow_item items[FZ_MAX_ITEMS + 1];
	struct rte_flow_action actions[FZ_MAX_ACTIONS + 1];
};

static const struct rte_flow_item_eth eth_dst = {
	.dst.addr_bytes = { 0x02, 0, 0, 0, 0, 0x01 },
};
static const struct rte_flow_item_eth eth_dst_mask = {
	.dst.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
};
static const struct rte_flow_item_eth eth_type_v4 = {
	.type = RTE_BE16(0x0800),
};
static const struct rte_flow_item_eth eth_type_mask = {
	.type = RTE_BE16(0xffff),
};
/* Type bits 0x4700 clear: IPv4 and IPv6 (and more) pass. */
static const struct rte_flow_item_eth eth_type_v4_zero = {
	.type = RTE_BE16(0),
};
static const struct rte_flow_item_eth eth_type_partial_mask = {
	.type = RTE_BE16(0x4700),
};
static const struct rte_flow_item_vlan vlan_100 = {
	.tci = RTE_BE16(100),
};
static const struct rte_flow_item_ipv4 ipv4_addrs = {
	.hdr = {
		.src_addr = RTE_BE32(0x0a000001),
		.dst_addr = RTE_BE32(0x0a000002),
	},
};
static const struct rte_flow_item_ipv4 ipv4_proto_tcp = {
	.hdr = { .next_proto_id = 6, .type_of_service = 0x10 },
};
static const struct rte_flow_item_ipv4 ipv4_proto_mask = {
	.hdr = { .next_proto_id = 0xff, .type_of_service = 0xff },
};
static const struct rte_flow_item_ipv4 ipv4_ttl = {
	.hdr = { .time_to_live = 64 },
};
static const struct rte_flow_item_ipv4 ipv4_ttl_mask = {
	.hdr = { .time_to_live = 0xff },
};
static const struct rte_flow_item_ipv4 ipv4_addrs_last = {
	.hdr = {
		.src_addr = RTE_BE32(0x0a0000ff),
		.dst_addr = RTE_BE32(0x0a000002),
	},
};
static const struct rte_flow_item_ipv6 ipv6_dst = {
	.hdr = {
		.dst_addr = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
			      0, 0, 0, 0, 0, 0, 0, 1 },
	},
};
static const struct rte_flow_item_udp udp_dport = {
	.hdr = { .dst_port = RTE_BE16(53) },
};
static const struct rte_flow_item_tcp tcp_ports = {
	.hdr = { .src_port = RTE_BE16(1234), .dst_port = RTE_BE16(80) },
};
static const struct rte_flow_item_vxlan vxlan_vni = {
	.vni = { 0x00, 0x12, 0x34 },
};
static const struct rte_flow_item_gre gre_v4 = {
	.protocol = RTE_BE16(0x0800),
};
static const rte_be32_t gre_key = RTE_BE32(0xdeadbeef);
static const struct rte_flow_item_mpls mpls_label = {
	.label_tc_s = { 0x00, 0x06, 0x41 },
};
static const struct rte_flow_item_esp esp_spi = {
	.hdr = { .spi = RTE_BE32(0x1000) },
};
static const struct rte_flow_item_icmp icmp_any;

static const struct rte_flow_action_queue queue3 = { .index = 3 };
static const struct rte_flow_action_queue queue9 = { .index = 9 };
static const struct rte_flow_action_mark mark7 = { .id = 7 };
static const struct rte_flow_action_count count1 = { .id = 1 };
static const struct rte_flow_action_jump jump1 = { .group = 1 };
static const uint16_t rss_queues[] = { 0, 1, 2, 3 };
static const uint8_t rss_key40[40] = { 0x6d, 0x5a, 0x6d, 0x5a };
static const struct rte_flow_action_rss rss_ip_udp = {
	.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP,
	.queue_num = 4,
	.queue = rss_queues,
};
static const struct rte_flow_action_rss rss_all = {
	.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP,
	.key_len = 40,
	.key = rss_key40,
	.queue_num = 4,
	.queue = rss_queues,
};
static const struct rte_flow_action_rss rss_inner = {
	.level = 2,
	.types = RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_NONFRAG_IPV4_TCP,
	.queue_num = 2,
	.queue = rss_queues,
};
static const struct rte_flow_action_rss rss_esp = {
	.types = RTE_ETH_RSS_ESP | RTE_ETH_RSS_IPV4,
	.queue_num = 3,
	.queue = rss_queues,
};
static const uint8_t rss_key52[52] = { 0x6d, 0x5a, 0x6d, 0x5a };
static const struct rte_flow_action_rss rss_bad_key = {
	.types = RTE_ETH_RSS_IP,
	.key_len = sizeof(rss_key52),
	.key = rss_key52,
	.queue_num = 1,
	.queue = rss_queues,
};

static const struct rte_flow_item_ipv6 ipv6_low32 = {
	.hdr = {
		.src_addr = { 0, 0, 0, 0, 0, 0, 0, 0,
			      0, 0, 0, 0, 0x0a, 0, 0, 0x01 },
	},
};
static const struct rte_flow_item_ipv6 ipv6_low32_mask = {
	.hdr = {
		.src_addr = { 0, 0, 0, 0, 0, 0, 0, 0,
			      0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff },
	},
};
static const struct rte_flow_item_ipv4 ipv4_proto6 = {
	.hdr = { .next_proto_id = 6 },
};
static const struct rte_flow_item_ipv4 ipv4_proto_partial = {
	.hdr = { .next_proto_id = 0xdf },
};
/* Protocol bit 0x08 clear: UDP (17) and TCP (6) pass. */
static const struct rte_flow_item_ipv4 ipv4_proto_zero = {
	.hdr = { .next_proto_id = 0 },
};
static const struct rte_flow_item_ipv4 ipv4_proto_bit1 = {
	.hdr = { .next_proto_id = 0x08 },
};
static const struct rte_flow_item_ipv6 ipv6_next_zero = {
	.hdr = { .proto = 0 },
};
static const struct rte_flow_item_ipv6 ipv6_next_bit1 = {
	.hdr = { .proto = 0x08 },
};

static const struct rte_flow_item_eth eth_type_qinq = {
	.type = RTE_BE16(0x88a8),
};
static const struct rte_flow_item_eth eth_type_vlan = {
	.type = RTE_BE16(0x8100),
};
static const struct rte_flow_item_ipv4 ipv4_frag_any = {
	.hdr = { .fragment_offset = RTE_BE16(1) },
};
static const struct rte_flow_item_ipv4 ipv4_frag_last = {
	.hdr = { .fragment_offset = RTE_BE16(0x3fff) },
};
static const struct rte_flow_item_ipv4 ipv4_frag_none = {
	.hdr = { .fragment_offset = RTE_BE16(0) },
};
static const struct rte_flow_item_ipv4 ipv4_frag_mask = {
	.hdr = { .fragment_offset = RTE_BE16(0x3fff) },
};
static const struct rte_flow_item_eth ovs_eth4 = {
	.hdr.dst_addr.addr_bytes = { 0x02, 0, 0, 0, 0, 0x0a },
	.hdr.src_addr.addr_bytes = { 0x02, 0, 0, 0, 0, 0x0b },
	.hdr.ether_type = RTE_BE16(0x0800),
	.has_vlan = 0,
};
static const struct rte_flow_item_eth ovs_eth6 = {
	.hdr.dst_addr.addr_bytes = { 0x02, 0, 0, 0, 0, 0x0a },
	.hdr.src_addr.addr_bytes = { 0x02, 0, 0, 0, 0, 0x0b },
	.hdr.ether_type = RTE_BE16(0x86dd),
};
static const struct rte_flow_item_eth ovs_arp = {
	.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	.hdr.src_addr.addr_bytes = { 0x02, 0, 0, 0, 0, 0x0b },
	.hdr.ether_type = RTE_BE16(0x0806),
};
static const struct rte_flow_item_eth ovs_eth_mask = {
	.hdr.dst_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	.hdr.src_addr.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff },
	.hdr.ether_type = RTE_BE16(0xffff),
	.has_vlan = 1,
};
static const struct rte_flow_action_rss rss_ovs = {
	.types = RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP,
	.queue_num = 4,
	.queue = rss_queues,
};
static const struct rte_flow_item_ipv6 ipv6_nofrag = { .has_frag_ext = 0 };
static const struct rte_flow_item_ipv6 ipv6_frag_mask = { .has_frag_ext = 1 };
static const struct rte_flow_item_ipv6 ipv6_hop = { .hdr.hop_limits = 60 };
static const struct rte_flow_item_ipv6 ipv6_hop_mask = {
	.hdr.hop_limits = 0xff,
};
static const struct rte_flow_item_tcp tcp_syn_ns = {
	.hdr = { .data_off = 0x01, .tcp_flags = 0x02 },
};
static const struct rte_flow_item_vlan vlan_s100 = {
	.hdr = { .vlan_tci = RTE_BE16(100), .eth_proto = RTE_BE16(0x8100) },
};
static const struct rte_flow_item_vlan vlan_s100_mask = {
	.hdr = { .vlan_tci = RTE_BE16(0x0fff), .eth_proto = RTE_BE16(0xffff) },
};
static const struct rte_flow_item_ipv4 ipv4_ihl = {
	.hdr.version_ihl = 0x46,
};
static const struct rte_flow_item_ipv4 ipv4_ihl_mask = {
	.hdr.version_ihl = 0x0f,
};
static const struct rte_flow_item_gre gre_k_clear = {
	.c_rsvd0_ver = RTE_BE16(0),
};
static const struct rte_flow_item_gre gre_k_mask = {
	.c_rsvd0_ver = RTE_BE16(0x2000),
};

/* Packet actions. */
static const struct rte_flow_action_set_ipv4 set_v4 = {
	.ipv4_addr = RTE_BE32(0x0a0a0a0a),
};
static const struct rte_flow_action_set_tp set_port = {
	.port = RTE_BE16(9999),
};
static const struct rte_flow_item_ipv4 encap_ip = {
	.hdr = {
		.src_addr = RTE_BE32(0xc6336401),
		.dst_addr = RTE_BE32(0xc6336402),
	},
};
static const struct rte_flow_item encap_def[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth_dst },
	{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &encap_ip },
	{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp_dport },
	{ .type = RTE_FLOW_ITEM_TYPE_VXLAN, .spec = &vxlan_vni },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};
static const struct rte_flow_action_vxlan_encap vxlan_encap = {
	.definition = (struct rte_flow_item *)(uintptr_t)encap_def,
};
static uint8_t raw_l2[14] = { 0x02, 0, 0, 0, 0, 1,    0x02,
			      0,    0, 0, 0, 2, 0x08, 0x00 };
static const struct rte_flow_action_raw_encap raw_encap_l2 = {
	.data = raw_l2,
	.size = sizeof(raw_l2),
};
static const struct rte_flow_action_raw_decap raw_decap50 = { .size = 50 };

#define I(t, ...)                                           \
	{                                                   \
		.type = RTE_FLOW_ITEM_TYPE_##t, __VA_ARGS__ \
	}
#define A(t, c)                                               \
	{                                                     \
		.type = RTE_FLOW_ACTION_TYPE_##t, .conf = (c) \
	}
#define ALL_OK \
	(FZ_CTX_EGRESS_OK | FZ_CTX_TAG_OK | FZ_CTX_INNER_RSS | FZ_CTX_COUNT_OK)
#define INGRESS              \
	{                    \
		.ingress = 1 \
	}

static const struct seed_flow seed_flows[] = {
	{ "eth_any_queue",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH) },
	  { A(QUEUE, &queue3) } },
	{ "empty_rss_expand",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { { .type = RTE_FLOW_ITEM_TYPE_END } },
	  { A(RSS, &rss_all) } },
	/* An RSS expansion under a partly masked ETH type: each added IP
	 * family gets an exact ether_type (mlx5 is_valid_ethertype()). */
	{ "eth_type_partial_rss_expand",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH, .spec = &eth_type_v4_zero, .mask = &eth_type_partial_mask) },
	  { A(RSS, &rss_all) } },
	/* The same under a partly masked IP protocol: each added L4 gets
	 * the exact protocol (the kernel's set_proto()). */
	{ "ipv4_proto_partial_rss_expand",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH),
	    I(IPV4, .spec = &ipv4_proto_zero, .mask = &ipv4_proto_bit1) },
	  { A(RSS, &rss_all) } },
	{ "ipv6_next_hdr_partial_rss_expand",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV6, .spec = &ipv6_next_zero, .mask = &ipv6_next_bit1) },
	  { A(RSS, &rss_all) } },
	{ "eth_ipv4_udp_rss_mark_count",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH, .spec = &eth_dst, .mask = &eth_dst_mask),
	    I(IPV4, .spec = &ipv4_addrs), I(UDP, .spec = &udp_dport) },
	  { A(MARK, &mark7), A(COUNT, &count1), A(RSS, &rss_ip_udp) } },
	{ "ipv6_tcp_drop",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(IPV6, .spec = &ipv6_dst), I(TCP, .spec = &tcp_ports) },
	  { A(DROP, NULL) } },
	{ "ipv4_ext_proto_tos",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH, .spec = &eth_type_v4, .mask = &eth_type_mask),
	    I(IPV4, .spec = &ipv4_proto_tcp, .mask = &ipv4_proto_mask),
	    I(TCP) },
	  { A(QUEUE, &queue3), A(FLAG, NULL) } },
	{ "vxlan_inner_rss",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4), I(UDP), I(VXLAN, .spec = &vxlan_vni), I(ETH),
	    I(IPV4) },
	  { A(RSS, &rss_inner) } },
	{ "gre_key_ipv4",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4), I(GRE, .spec = &gre_v4),
	    I(GRE_KEY, .spec = &gre_key), I(IPV4), I(UDP) },
	  { A(QUEUE, &queue3) } },
	{ "udp_mpls",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4), I(UDP), I(MPLS, .spec = &mpls_label) },
	  { A(QUEUE, &queue3) } },
	{ "gre_mpls_ipv6",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV6), I(GRE), I(MPLS), I(IPV6) },
	  { A(DROP, NULL), A(COUNT, NULL) } },
	{ "ipv4_esp_rss",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4), I(ESP, .spec = &esp_spi) },
	  { A(RSS, &rss_esp) } },
	{ "vlan_ipv4_passthru",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(VLAN, .spec = &vlan_100), I(IPV4) },
	  { A(PASSTHRU, NULL), A(INDIRECT, &queue3) } },
	{ "egress_count_drop",
	  ALL_OK,
	  0,
	  8,
	  0,
	  { .egress = 1, .priority = 1 },
	  { I(ETH), I(IPV4, .spec = &ipv4_addrs) },
	  { A(COUNT, NULL), A(DROP, NULL) } },
	/* Refused. */
	{ "bad_icmp_item",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4), I(ICMP, .spec = &icmp_any) },
	  { A(QUEUE, &queue3) } },
	{ "bad_group",
	  ALL_OK,
	  0,
	  8,
	  0,
	  { .ingress = 1, .group = 1 },
	  { I(ETH) },
	  { A(DROP, NULL) } },
	{ "bad_priority",
	  ALL_OK,
	  0,
	  8,
	  0,
	  { .ingress = 1, .priority = 7 },
	  { I(ETH) },
	  { A(DROP, NULL) } },
	{ "bad_range",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4, .spec = &ipv4_addrs, .last = &ipv4_addrs_last) },
	  { A(DROP, NULL) } },
	{ "bad_ttl_mask",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4, .spec = &ipv4_ttl, .mask = &ipv4_ttl_mask) },
	  { A(DROP, NULL) } },
	{ "bad_jump", ALL_OK, 0, 8, 0, INGRESS, { I(ETH) }, { A(JUMP, &jump1) } },
	{ "bad_queue_index",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH) },
	  { A(QUEUE, &queue9) } },
	{ "bad_rss_key",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(IPV4) },
	  { A(RSS, &rss_bad_key) } },
	{ "bad_no_tag",
	  FZ_CTX_COUNT_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH) },
	  { A(MARK, &mark7), A(QUEUE, &queue3) } },
	{ "bad_egress_queue",
	  ALL_OK,
	  0,
	  8,
	  0,
	  { .egress = 1 },
	  { I(ETH) },
	  { A(QUEUE, &queue3) } },
	/* DV-only matches: tag presence from the ETH type, fragments, GRE
	 * flag bits. */
	{ "eth_type_vlan_tpid",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH, .spec = &eth_type_vlan, .mask = &eth_type_mask), I(IPV4) },
	  { A(QUEUE, &queue3) } },
	{ "dv_eth_type_qinq",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH, .spec = &eth_type_qinq, .mask = &eth_type_mask) },
	  { A(QUEUE, &queue3) } },
	{ "ipv4_any_fragment",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4, .spec = &ipv4_frag_any, .last = &ipv4_frag_last,
		      .mask = &ipv4_frag_mask) },
	  { A(DROP, NULL) } },
	{ "ipv4_not_fragment",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4, .spec = &ipv4_frag_none, .mask = &ipv4_frag_mask),
	    I(UDP) },
	  { A(QUEUE, &queue3) } },
	{ "gre_k_clear_then_key",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4), I(GRE, .spec = &gre_k_clear, .mask = &gre_k_mask),
	    I(GRE_KEY, .spec = &gre_key) },
	  { A(QUEUE, &queue3) } },
	{ "dv_ipv6_low32_mask",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV6, .spec = &ipv6_low32, .mask = &ipv6_low32_mask) },
	  { A(QUEUE, &queue3) } },
	/* OVS 3.1's partial offload: ETH with has_vlan 0, IPv4 not a
	 * fragment / IPv6 without fragment header / ARP by ethertype, MARK
	 * and RSS IP|TCP|UDP over every queue. */
	{ "ovs_ipv4_mark_rss",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH, .spec = &ovs_eth4, .mask = &ovs_eth_mask),
	    I(IPV4, .spec = &ipv4_frag_none, .mask = &ipv4_frag_mask) },
	  { A(MARK, &mark7), A(RSS, &rss_ovs) } },
	{ "ovs_ipv6_mark_rss",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH, .spec = &ovs_eth6, .mask = &ovs_eth_mask),
	    I(IPV6, .spec = &ipv6_nofrag, .mask = &ipv6_frag_mask) },
	  { A(MARK, &mark7), A(RSS, &rss_ovs) } },
	{ "ovs_arp_mark_rss",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH, .spec = &ovs_arp, .mask = &ovs_eth_mask) },
	  { A(MARK, &mark7), A(RSS, &rss_ovs) } },
	/* Matcher-only fields. */
	{ "dv_ipv6_hop_tcp_flags_ns",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV6, .spec = &ipv6_hop, .mask = &ipv6_hop_mask),
	    I(TCP, .spec = &tcp_syn_ns, .mask = &tcp_syn_ns) },
	  { A(QUEUE, &queue3), A(COUNT, NULL) } },
	{ "dv_qinq_second_tag_ihl",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH, .spec = &eth_type_qinq, .mask = &eth_type_mask),
	    I(VLAN, .spec = &vlan_s100, .mask = &vlan_s100_mask),
	    I(IPV4, .spec = &ipv4_ihl, .mask = &ipv4_ihl_mask) },
	  { A(DROP, NULL) } },
	{ "dv_esp_no_verbs_esp",
	  ALL_OK,
	  FZ_CTX2_DV_OK | FZ_CTX2_DEVX_OK,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4), I(ESP, .spec = &esp_spi) },
	  { A(QUEUE, &queue3) } },
	{ "bad_dv_count_no_devx",
	  ALL_OK,
	  FZ_CTX2_DV_OK | FZ_CTX2_VERBS_ESP,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4, .spec = &ipv4_ttl, .mask = &ipv4_ttl_mask) },
	  { A(COUNT, NULL), A(DROP, NULL) } },
	{ "partial_proto_mask",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4, .spec = &ipv4_proto6, .mask = &ipv4_proto_partial),
	    I(TCP) },
	  { A(QUEUE, &queue3) } },
	/* Packet actions: a decap with a rewrite of the inner headers and a
	 * mark; an egress rewrite and VXLAN encap; an L3 decap; encap on
	 * ingress, refused. */
	{ "dv_vxlan_decap_rewrite_mark",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4), I(UDP), I(VXLAN, .spec = &vxlan_vni), I(ETH),
	    I(IPV4) },
	  { A(VXLAN_DECAP, NULL), A(SET_IPV4_DST, &set_v4), A(MARK, &mark7),
	    A(QUEUE, &queue3) } },
	{ "dv_egress_rewrite_vxlan_encap",
	  ALL_OK,
	  0,
	  8,
	  0,
	  { .egress = 1 },
	  { I(ETH), I(IPV4), I(UDP, .spec = &udp_dport) },
	  { A(SET_TP_DST, &set_port), A(VXLAN_ENCAP, &vxlan_encap),
	    A(COUNT, NULL) } },
	{ "dv_raw_l3_decap",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4), I(UDP), I(MPLS) },
	  { A(RAW_DECAP, &raw_decap50), A(RAW_ENCAP, &raw_encap_l2),
	    A(QUEUE, &queue3) } },
	{ "bad_encap_ingress",
	  ALL_OK,
	  0,
	  8,
	  0,
	  INGRESS,
	  { I(ETH), I(IPV4) },
	  { A(VXLAN_ENCAP, &vxlan_encap), A(QUEUE, &queue3) } },
	/* The driver's own flows on a device with a single verbs priority
	 * (fewer than VSTEER_VERBS_PRIOS_MIN): refused, as by the probe. */
	{ "bad_internal_prio_few_prios",
	  ALL_OK | FZ_CTX_INTERNAL,
	  0,
	  8,
	  5,
	  INGRESS,
	  { I(ETH) },
	  { A(QUEUE, &queue3) } },
};

static unsigned int
item_sel(enum rte_flow_item_type type, uint16_t *size)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(fz_item_types); i++)
		if (fz_item_types[i].type == type) {
			*size = fz_item_types[i].size;
			return i;
		}
	fprintf(stderr, "item type %d not in the table\n", (int)type);
	exit(1);
}

static unsigned int
action_sel(enum rte_flow_action_type type)
{
	unsigned int i;

	for (i = 0; i < RTE_DIM(fz_action_types); i++)
		if (fz_action_types[i] == type)
			return i;
	fprintf(stderr, "action type %d not in the table\n", (int)type);
	exit(1);
}

static unsigned int
count_items(const struct rte_flow_item *items)
{
	unsigned int n = 0;

	while (items[n].type != RTE_FLOW_ITEM_TYPE_END)
		n++;
	return n;
}

static unsigned int
count_actions(const struct rte_flow_action *actions)
{
	unsigned int n = 0;

	while (actions[n].type != RTE_FLOW_ACTION_TYPE_END)
		n++;
	return n;
}

/* Queues below 20 are encoded as bytes (action flag 0x08 clear). */
static bool
rss_queues_small(const struct rte_flow_action_rss *rss)
{
	unsigned int i;

	for (i = 0; i < rss->queue_num; i++)
		if (rss->queue[i] >= 20)
			return false;
	return true;
}

static void
encode_rss(struct out *o, const struct rte_flow_action_rss *rss)
{
	bool small = rss_queues_small(rss);
	unsigned int k, i;

	put8(o, (uint8_t)rss->func);
	put8(o, (uint8_t)rss->level);
	put8(o, 3); /* raw 64-bit types */
	put(o, &rss->types, sizeof(rss->types));
	for (k = 0; k < RTE_DIM(fz_key_lens); k++)
		if (fz_key_lens[k] == rss->key_len)
			break;
	put8(o, (uint8_t)k);
	if (rss->key != NULL && rss->key_len > 0)
		put(o, rss->key, rss->key_len);
	put8(o, (uint8_t)rss->queue_num);
	for (i = 0; i < rss->queue_num; i++) {
		if (small)
			put8(o, (uint8_t)rss->queue[i]);
		else
			put(o, &rss->queue[i], 2);
	}
}

/* A count, then each item: selector, presence, spec, mask, last. */
static void
encode_items(struct out *o, const struct rte_flow_item *items)
{
	unsigned int i, n = count_items(items);

	put8(o, (uint8_t)n);
	for (i = 0; i < n; i++) {
		const struct rte_flow_item *it = &items[i];
		uint16_t size;
		unsigned int sel = item_sel(it->type, &size);

		put8(o, (uint8_t)sel);
		/* spec, mask (raw bytes), last (raw bytes) */
		put8(o, (uint8_t)((it->spec != NULL) | (it->mask != NULL) << 1 |
				  (it->last != NULL) << 2));
		if (it->spec != NULL)
			put(o, it->spec, size);
		if (it->mask != NULL)
			put(o, it->mask, size);
		if (it->last != NULL)
			put(o, it->last, size);
	}
}

/* A configuration the harness reads as 64 raw bytes. */
static void
encode_raw_conf(struct out *o, const void *conf, size_t size)
{
	put(o, conf, size);
	put_zero(o, 64 - size);
}

/* The fuzz_xlate input that decodes to this flow. */
static void
encode_flow(struct out *o, const struct seed_flow *s)
{
	const struct rte_flow_attr *a = &s->attr;
	unsigned int i, n;

	memset(o, 0, sizeof(*o));
	put8(o, s->ctx_flags);
	put8(o, s->ctx2 != 0 ? s->ctx2 : FZ_CTX2_ALL);
	put8(o, (uint8_t)(s->nb_rxq - 1));
	put8(o, 1);	      /* port */
	put8(o, s->prio_sel); /* max verbs priority */
	put8(o, 0);	      /* max spec bytes: default */
	put8(o, (uint8_t)(a->ingress | a->egress << 1 | a->transfer << 2 |
			  (a->group != 0 ? 0x08 : 0)));
	if (a->group != 0)
		put(o, &a->group, 4);
	put8(o, (uint8_t)a->priority);
	encode_items(o, s->items);
	n = count_actions(s->actions);
	put8(o, (uint8_t)n);
	for (i = 0; i < n; i++) {
		const struct rte_flow_action *ac = &s->actions[i];
		uint8_t fl = ac->conf != NULL ? 0x01 : 0;

		put8(o, (uint8_t)action_sel(ac->type));
		switch (ac->type) {
		case RTE_FLOW_ACTION_TYPE_QUEUE: {
			const struct rte_flow_action_queue *q = ac->conf;

			put8(o, fl);
			if (q != NULL)
				put8(o, (uint8_t)q->index);
			break;
		}
		case RTE_FLOW_ACTION_TYPE_MARK: {
			const struct rte_flow_action_mark *m = ac->conf;

			put8(o, fl | 0x02); /* raw 32-bit id */
			if (m != NULL)
				put(o, &m->id, 4);
			break;
		}
		case RTE_FLOW_ACTION_TYPE_COUNT: {
			const struct rte_flow_action_count *c = ac->conf;

			put8(o, fl);
			if (c != NULL)
				put(o, &c->id, 4);
			break;
		}
		case RTE_FLOW_ACTION_TYPE_RSS: {
			const struct rte_flow_action_rss *r = ac->conf;

			if (r != NULL && r->key == NULL)
				fl |= 0x02;
			if (r != NULL && !rss_queues_small(r))
				fl |= 0x08;
			put8(o, fl);
			if (r != NULL)
				encode_rss(o, r);
			break;
		}
		case RTE_FLOW_ACTION_TYPE_JUMP:
			put8(o, fl);
			if (ac->conf != NULL)
				encode_raw_conf(o, ac->conf, sizeof(jump1));
			break;
		case RTE_FLOW_ACTION_TYPE_SET_IPV4_DST:
			put8(o, fl);
			encode_raw_conf(o, ac->conf, sizeof(set_v4));
			break;
		case RTE_FLOW_ACTION_TYPE_SET_TP_DST:
			put8(o, fl);
			encode_raw_conf(o, ac->conf, sizeof(set_port));
			break;
		case RTE_FLOW_ACTION_TYPE_VXLAN_ENCAP: {
			const struct rte_flow_action_vxlan_encap *v = ac->conf;

			put8(o, fl);
			encode_items(o, v->definition);
			break;
		}
		case RTE_FLOW_ACTION_TYPE_RAW_ENCAP:
		case RTE_FLOW_ACTION_TYPE_RAW_DECAP: {
			/* Both begin with data, then size (encap: and
			 * preserve, always NULL here). */
			const uint8_t *data =
				ac->type == RTE_FLOW_ACTION_TYPE_RAW_ENCAP ?
					((const struct rte_flow_action_raw_encap
						  *)ac->conf)
						->data :
					NULL;
			size_t size =
				ac->type == RTE_FLOW_ACTION_TYPE_RAW_ENCAP ?
					((const struct rte_flow_action_raw_encap
						  *)ac->conf)
						->size :
					((const struct rte_flow_action_raw_decap
						  *)ac->conf)
						->size;

			put8(o, fl);
			put8(o, (uint8_t)size); /* below 64 */
			if (data != NULL)
				put(o, data, size);
			else
				put_zero(o, size);
			break;
		}
		default:
			put8(o, fl);
			break;
		}
	}
}

/* A fuzz_fte input: criteria, option (profile; length = match_sz), and
 * the buffer's non-zero 32-bit words as (section, offset, 4 bytes). */
static void
encode_fte(struct out *o, uint8_t crit, uint8_t opt, const void *buf)
{
	const uint8_t *b = buf;
	size_t at;

	memset(o, 0, sizeof(*o));
	put8(o, crit);
	put8(o, opt);
	put16be(o, 0);
	for (at = 0; at < VSTEER_PRM_MATCH_PARAM_BYTES; at += 4) {
		if (b[at] == 0 && b[at + 1] == 0 && b[at + 2] == 0 &&
		    b[at + 3] == 0)
			continue;
		put8(o, (uint8_t)(at / VSTEER_PRM_SECT_BYTES));
		put8(o, (uint8_t)(at % VSTEER_PRM_SECT_BYTES));
		put8(o, 3); /* 4 bytes */
		put(o, b + at, 4);
	}
}

static struct vsteer_flow_plan plan;

static void
seed_flows_all(void)
{
	static const uint8_t key[VSTEER_RSS_KEY_LEN];
	unsigned int i, r;

	for (i = 0; i < RTE_DIM(seed_flows); i++) {
		const struct seed_flow *s = &seed_flows[i];
		uint8_t ctx2 = s->ctx2 != 0 ? s->ctx2 : FZ_CTX2_ALL;
		struct vsteer_xlate_ctx ctx = {
			.nb_rx_queues = s->nb_rxq,
			.port_num = 1,
			.max_verbs_prio = 15,
			.egress_ok = s->ctx_flags & FZ_CTX_EGRESS_OK,
			.tag_ok = s->ctx_flags & FZ_CTX_TAG_OK,
			.inner_rss_ok = s->ctx_flags & FZ_CTX_INNER_RSS,
			.count_ok = s->ctx_flags & FZ_CTX_COUNT_OK,
			.dv_ok = ctx2 & FZ_CTX2_DV_OK,
			.devx_ok = ctx2 & FZ_CTX2_DEVX_OK,
			.verbs_esp_ok = ctx2 & FZ_CTX2_VERBS_ESP,
			.rss_hf_supported = FZ_RSS_DEVICE,
			.rss_hf_default = RTE_ETH_RSS_IP,
			.rss_key_default = key,
			/* The harness's defaults without FZ_CTX2_LIMITS. */
			.max_modify_rx = 16,
			.max_modify_tx = 16,
			.max_encap = 128,
		};
		struct rte_flow_error err;
		static struct vsteer_dv_match base, m;
		struct out o;
		char name[128];

		encode_flow(&o, s);
		write_seed("xlate", s->name, o.b, o.n);

		if (vsteer_flow_verbs_translate(&ctx, &s->attr, s->items,
						s->actions, &plan, &err) == 0) {
			for (r = 0; r < plan.n_rules; r++) {
				struct vsteer_verbs_rule *rule = &plan.rules[r];
				/* Never dereferenced by the compiler. */
				uintptr_t counters = 0x1000;

				if (rule->count_off != 0)
					memcpy(rule->buf + rule->count_off +
						       offsetof(struct ibv_flow_spec_counter_action,
								counters),
					       &counters, sizeof(counters));
				memset(&o, 0, sizeof(o));
				put8(&o, (uint8_t)(r % 2)); /* profile */
				put(&o, rule->buf, rule->size);
				snprintf(name, sizeof(name), "xlate_%s_%u",
					 s->name, r);
				write_seed("spec", name, o.b, o.n);
			}
		}
		if (vsteer_flow_dv_translate(&ctx, &s->attr, s->items,
					     s->actions, &plan, &base,
					     &err) != 0)
			continue;
		/* Each matcher entry (one unless RSS expands). */
		for (r = 0; r < plan.n_rules; r++) {
			vsteer_flow_dv_rule_match(&base, &plan, r, &m);
			snprintf(name, sizeof(name), "xlate_%s_%u_mask",
				 s->name, r);
			encode_fte(&o, m.criteria, 0, m.mask.buf);
			write_seed("fte", name, o.b, o.n);
			snprintf(name, sizeof(name), "xlate_%s_%u_value",
				 s->name, r);
			encode_fte(&o, m.criteria, 1, m.value.buf);
			write_seed("fte", name, o.b, o.n);
		}
	}
}

/*
 * Hand-made spec chains.
 */

struct chain {
	uint8_t b[1024];
	size_t n;
	unsigned int nspecs;
};

static void
chain_init(struct chain *c)
{
	memset(c, 0, sizeof(*c));
	c->n = 1 + sizeof(struct ibv_flow_attr);
}

static void
chain_add(struct chain *c, const void *spec, size_t n)
{
	memcpy(c->b + c->n, spec, n);
	c->n += n;
	c->nspecs++;
}

static void
chain_write(struct chain *c, const char *name, uint8_t profile)
{
	struct ibv_flow_attr a;

	memset(&a, 0, sizeof(a));
	a.type = IBV_FLOW_ATTR_NORMAL;
	a.size = (uint16_t)(c->n - 1);
	a.num_of_specs = (uint8_t)c->nspecs;
	a.port = 1;
	c->b[0] = profile;
	memcpy(c->b + 1, &a, sizeof(a));
	write_seed("spec", name, c->b, c->n);
}

static void
seed_chains(void)
{
	struct ibv_flow_spec_eth e;
	struct ibv_flow_spec_ipv4 v4;
	struct ibv_flow_spec_ipv6 v6;
	struct ibv_flow_spec_tcp_udp l4;
	struct ibv_flow_spec_tunnel vx;
	struct ibv_flow_spec_gre gre;
	struct ibv_flow_spec_action_tag tag;
	struct ibv_flow_spec_counter_action cnt;
	uint8_t big[8 + 2 * 60];
	struct chain c;

	/* ibv_create_flow(3) example: ETH dst + IPv4 src. */
	memset(&e, 0, sizeof(e));
	e.type = IBV_FLOW_SPEC_ETH;
	e.size = sizeof(e);
	memcpy(e.val.dst_mac, "\x66\x11\x22\x33\x44\x55", 6);
	memset(e.mask.dst_mac, 0xff, 6);
	memset(e.mask.src_mac, 0xff, 6);
	memset(&v4, 0, sizeof(v4));
	v4.type = IBV_FLOW_SPEC_IPV4;
	v4.size = sizeof(v4);
	v4.val.src_ip = 0x0B86C806;
	v4.mask.src_ip = 0xFFFFFFFF;
	chain_init(&c);
	chain_add(&c, &e, sizeof(e));
	chain_add(&c, &v4, sizeof(v4));
	chain_write(&c, "man_page_example", 0);
	chain_write(&c, "man_page_example_mlx5", 1);
	/*
	 * attr.size holds 2 specs, num_of_specs says 3 (once a read past
	 * the caller's buffer), then 1 (bytes left over): both EINVAL.
	 */
	c.nspecs++;
	chain_write(&c, "bad_num_of_specs_past_size", 0);
	chain_write(&c, "bad_num_of_specs_past_size_mlx5", 1);
	c.nspecs -= 2;
	chain_write(&c, "bad_bytes_left_over", 0);

	/* VXLAN with INNER eth / ipv6 / tcp, a tag and a COUNT spec. */
	memset(&vx, 0, sizeof(vx));
	vx.type = IBV_FLOW_SPEC_VXLAN_TUNNEL;
	vx.size = sizeof(vx);
	vx.val.tunnel_id = htonl(0x1234);
	vx.mask.tunnel_id = htonl(0xffffff);
	memset(&v6, 0, sizeof(v6));
	v6.type = IBV_FLOW_SPEC_IPV6 | IBV_FLOW_SPEC_INNER;
	v6.size = sizeof(v6);
	v6.val.next_hdr = 6;
	v6.mask.next_hdr = 0xff;
	memset(&l4, 0, sizeof(l4));
	l4.type = IBV_FLOW_SPEC_TCP | IBV_FLOW_SPEC_INNER;
	l4.size = sizeof(l4);
	l4.val.dst_port = htons(80);
	l4.mask.dst_port = 0xffff;
	memset(&tag, 0, sizeof(tag));
	tag.type = IBV_FLOW_SPEC_ACTION_TAG;
	tag.size = sizeof(tag);
	tag.tag_id = 0x42;
	memset(&cnt, 0, sizeof(cnt));
	cnt.type = IBV_FLOW_SPEC_ACTION_COUNT;
	cnt.size = sizeof(cnt);
	/* Never dereferenced by the compiler; any non-NULL value. */
	cnt.counters = (struct ibv_counters *)(uintptr_t)0x1000;
	e.type = IBV_FLOW_SPEC_ETH;
	memset(&e.mask, 0, sizeof(e.mask));
	chain_init(&c);
	chain_add(&c, &e, sizeof(e));
	memset(&l4, 0, sizeof(l4));
	l4.type = IBV_FLOW_SPEC_UDP;
	l4.size = sizeof(l4);
	chain_add(&c, &l4, sizeof(l4));
	chain_add(&c, &vx, sizeof(vx));
	chain_add(&c, &v6, sizeof(v6));
	l4.type = IBV_FLOW_SPEC_TCP | IBV_FLOW_SPEC_INNER;
	l4.val.dst_port = htons(80);
	l4.mask.dst_port = 0xffff;
	chain_add(&c, &l4, sizeof(l4));
	chain_add(&c, &tag, sizeof(tag));
	chain_add(&c, &cnt, sizeof(cnt));
	chain_write(&c, "vxlan_inner_tag_count", 0);

	/* GRE with key; then a contradiction (UDP after GRE's proto 47). */
	memset(&gre, 0, sizeof(gre));
	gre.type = IBV_FLOW_SPEC_GRE;
	gre.size = sizeof(gre);
	gre.val.key = htonl(7);
	gre.mask.key = 0xffffffff;
	gre.val.protocol = htons(0x0800);
	gre.mask.protocol = 0xffff;
	chain_init(&c);
	chain_add(&c, &gre, sizeof(gre));
	chain_write(&c, "gre_key", 0);
	chain_add(&c, &l4, sizeof(l4));
	chain_write(&c, "gre_then_tcp_inner", 1);
	l4.type = IBV_FLOW_SPEC_UDP;
	chain_init(&c);
	chain_add(&c, &gre, sizeof(gre));
	chain_add(&c, &l4, sizeof(l4));
	chain_write(&c, "bad_gre_then_udp", 0);

	/* IPv6 longer than its struct: trailing mask zero, then not. */
	memset(big, 0, sizeof(big));
	memcpy(big, &v6, 8);
	big[0] = IBV_FLOW_SPEC_IPV6 & 0xff;
	big[1] = IBV_FLOW_SPEC_IPV6 >> 8;
	big[4] = sizeof(big);
	big[5] = 0;
	big[8 + 60 + 36] = 0xff; /* next_hdr mask */
	big[8 + 36] = 17;
	chain_init(&c);
	chain_add(&c, big, sizeof(big));
	chain_write(&c, "ipv6_extended_size", 0);
	big[8 + 60 + 50] = 0x01;
	chain_init(&c);
	chain_add(&c, big, sizeof(big));
	chain_write(&c, "bad_ipv6_trailing_mask", 1);

	/* A spec shorter than its struct, and an unknown type. */
	v4.size = sizeof(v4) - 4;
	chain_init(&c);
	chain_add(&c, &v4, sizeof(v4) - 4);
	chain_write(&c, "bad_short_ipv4", 0);
	v4.size = sizeof(v4);
	v4.type = (enum ibv_flow_spec_type)0x77;
	chain_init(&c);
	chain_add(&c, &v4, sizeof(v4));
	chain_write(&c, "bad_unknown_type", 0);
}

/*
 * fte: inputs no translation produces.
 */
static void
seed_fte(void)
{
	uint8_t buf[VSTEER_PRM_MATCH_PARAM_BYTES];
	struct out o;

	/* criteria with a reserved bit */
	memset(buf, 0, sizeof(buf));
	encode_fte(&o, 0x81, 0, buf);
	write_seed("fte", "bad_criteria", o.b, o.n);
	/* misc3 enabled, buffer cut to 100 bytes (length from the input) */
	encode_fte(&o, 0x10, 4 << 1, buf);
	o.b[2] = 100;
	o.b[3] = 0;
	write_seed("fte", "bad_short_buffer", o.b, o.n);
	/* outer ip_version 4 with an address only IPv6 can have: taken,
	 * the match is the bytes as given (the harness checks the key) */
	vsteer_prm_set(buf, VSTEER_PRM_L24_IP_VERSION_OFF,
		       VSTEER_PRM_L24_IP_VERSION_LEN, 4);
	buf[VSTEER_PRM_L24_SRC_IP_OFF / 8] = 0x20;
	encode_fte(&o, 0x01, 1, buf);
	write_seed("fte", "ipv4_version_ipv6_address", o.b, o.n);
	/* MPLS over UDP and over GRE at once (one label in the key) */
	memset(buf, 0, sizeof(buf));
	buf[VSTEER_PRM_MISC2 / 8 +
	    VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_GRE_OFF / 8] = 0xff;
	buf[VSTEER_PRM_MISC2 / 8 +
	    VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_UDP_OFF / 8] = 0xff;
	encode_fte(&o, 0x08, 0, buf);
	write_seed("fte", "bad_mpls_two_carriers", o.b, o.n);
}

int
main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s <corpus dir>\n", argv[0]);
		return 2;
	}
	out_dir = argv[1];
	if (mkdir(out_dir, 0755) != 0 && errno != EEXIST) {
		perror(out_dir);
		return 1;
	}
	seed_frames();
	seed_flows_all();
	seed_chains();
	seed_fte();
	printf("%d seed files written under %s\n", n_written, out_dir);
	return 0;
}
