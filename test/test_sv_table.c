/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The softverbs rule table at scale, against an oracle.
 *
 * The oracle knows nothing of levels, mask groups, filters or hash
 * tables: it keeps every live rule with its match as sv_spec_compile()
 * makes it, and walks them all in (priority, DONT_TRAP first, creation)
 * order, merging identical matches at one level as the man page's
 * "same rule" does, to say which rules a frame meets. The table must
 * agree on every frame of a small universe (two MACs, three addresses,
 * two ports) while thousands of random creations and destructions, over
 * masks that overlap, share bits or share none, go through it. Then: the
 * memory of 100 000 rules, and what is left of it when rules go, and how
 * many rules one priority of the mlx5 profile holds.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

#include "softverbs.h"
#include "sv_internal.h"
#include "vt_svenv.h"
#include "vt_test.h"

#define NQ 4
#define MAXWALK 64

static const uint8_t rss_key[SV_RSS_KEY_LEN] = { 0x6d, 0x5a };

static const struct vt_svenv_cfg env_cfg = {
	.link_prefix = "svtable",
	.nq = NQ,
	.nbuf = 4,
	.rx_cqe = 16,
	.tx_wr = 4,
	.tx_slots = 4,
	.rss_key = rss_key,
};

static struct vt_svenv E;

/* End 1 as the man page's device (no flow table size). */
static const struct sv_device_opts generic_opts = {
	.profile = SV_PROFILE_GENERIC,
};

/* ---- rules ---- */

struct rule_buf {
	union {
		struct ibv_flow_attr attr;
		uint8_t b[256];
	} u;
};

static void
rb_init(struct rule_buf *rb, uint16_t prio, uint32_t flags)
{
	memset(rb, 0, sizeof(*rb));
	rb->u.attr.type = IBV_FLOW_ATTR_NORMAL;
	rb->u.attr.priority = prio;
	rb->u.attr.flags = flags;
	rb->u.attr.port = 1;
	rb->u.attr.size = sizeof(struct ibv_flow_attr);
}

static void
rb_put(struct rule_buf *rb, const void *spec, size_t size)
{
	memcpy(rb->u.b + rb->u.attr.size, spec, size);
	rb->u.attr.size += size;
	rb->u.attr.num_of_specs++;
}

static void
rb_eth(struct rule_buf *rb, const uint8_t *dmac)
{
	struct ibv_flow_spec_eth s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_ETH;
	s.size = sizeof(s);
	if (dmac != NULL) {
		memcpy(s.val.dst_mac, dmac, 6);
		memset(s.mask.dst_mac, 0xff, 6);
	}
	rb_put(rb, &s, sizeof(s));
}

/* Addresses in host order with their prefix lengths (0: not matched). */
static void
rb_ipv4(struct rule_buf *rb, uint32_t src, unsigned int src_len, uint32_t dst,
	unsigned int dst_len)
{
	struct ibv_flow_spec_ipv4 s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_IPV4;
	s.size = sizeof(s);
	if (src_len > 0) {
		s.mask.src_ip = htonl(~UINT32_C(0) << (32 - src_len));
		s.val.src_ip = htonl(src) & s.mask.src_ip;
	}
	if (dst_len > 0) {
		s.mask.dst_ip = htonl(~UINT32_C(0) << (32 - dst_len));
		s.val.dst_ip = htonl(dst) & s.mask.dst_ip;
	}
	rb_put(rb, &s, sizeof(s));
}

static void
rb_udp_dport(struct rule_buf *rb, uint16_t dport)
{
	struct ibv_flow_spec_tcp_udp s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_UDP;
	s.size = sizeof(s);
	s.val.dst_port = htons(dport);
	s.mask.dst_port = 0xffff;
	rb_put(rb, &s, sizeof(s));
}

static void
rb_tag(struct rule_buf *rb, uint32_t tag)
{
	struct ibv_flow_spec_action_tag s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_ACTION_TAG;
	s.size = sizeof(s);
	s.tag_id = tag;
	rb_put(rb, &s, sizeof(s));
}

static void
rb_drop(struct rule_buf *rb)
{
	struct ibv_flow_spec_action_drop s;

	memset(&s, 0, sizeof(s));
	s.type = IBV_FLOW_SPEC_ACTION_DROP;
	s.size = sizeof(s);
	rb_put(rb, &s, sizeof(s));
}

/* ---- frames: keys through the parser, whatever the key layout ---- */

static const uint8_t macs[2][6] = {
	{ 0x02, 0, 0, 0, 0, 0x0a },
	{ 0x02, 0, 0, 0, 0, 0x0b },
};
static const uint32_t ips[3] = { 0x0a000001, 0x0a000002, 0x0a000103 };
static const uint16_t ports[2] = { 1000, 2000 };

static void
frame_key(struct sv_key *k, const uint8_t dmac[6], uint32_t src, uint32_t dst,
	  uint16_t sport, uint16_t dport)
{
	uint8_t f[64];
	uint32_t v;
	uint16_t w;

	memset(f, 0, sizeof(f));
	memcpy(f, dmac, 6);
	f[6] = 0x02;
	f[11] = 0x01;
	f[12] = 0x08;
	f[14] = 0x45;
	f[17] = 46;
	f[22] = 64;
	f[23] = 17;
	v = htonl(src);
	memcpy(f + 26, &v, 4);
	v = htonl(dst);
	memcpy(f + 30, &v, 4);
	w = htons(sport);
	memcpy(f + 34, &w, 2);
	w = htons(dport);
	memcpy(f + 36, &w, 2);
	f[39] = 26;
	sv_parse(f, 60, k, NULL);
}

/* ---- the oracle ---- */

struct orule {
	bool live;
	struct ibv_flow *fl;
	struct rule_buf rb;
	struct sv_match m;
	uint32_t level;
	uint64_t seq;
	bool drop, dt;
	int q;
	uint32_t tag;
};

static const struct sv_caps mlx5_caps = {
	.profile = SV_PROFILE_MLX5,
	.max_priority = 15,
};

static bool
same_match(const struct orule *a, const struct orule *b)
{
	return a->level == b->level && memcmp(&a->m, &b->m, sizeof(a->m)) == 0;
}

static bool
same_fate(const struct orule *a, const struct orule *b)
{
	if (a->drop != b->drop || a->tag != b->tag)
		return false;
	return a->drop || a->q == b->q;
}

static int
cmp_order(const void *x, const void *y)
{
	const struct orule *a = *(const struct orule *const *)x;
	const struct orule *b = *(const struct orule *const *)y;

	if (a->level != b->level)
		return a->level < b->level ? -1 : 1;
	return a->seq < b->seq ? -1 : a->seq > b->seq;
}

/* What a frame meets: the oldest of each identical match, in order,
 * until a rule traps or drops it. */
static unsigned int
oracle_walk(struct orule *const *sorted, unsigned int n, const struct sv_key *k,
	    const struct orule **out)
{
	unsigned int i, j, cnt = 0;

	for (i = 0; i < n && cnt < MAXWALK; i++) {
		const struct orule *r = sorted[i];

		if (!sv_match_hit(&r->m, k))
			continue;
		for (j = 0; j < i; j++)
			if (same_match(sorted[j], r))
				break;
		if (j < i)
			continue; /* merged into an older entry */
		out[cnt++] = r;
		if (r->drop || !r->dt)
			break;
	}
	return cnt;
}

/* The oracle's rule the table's entry stands for: fates are unique but
 * to copies, and an entry is headed by its oldest rule. */
static struct orule *
oracle_find(struct orule *rules, unsigned int n, const struct sv_rule *r)
{
	struct orule *best = NULL;
	unsigned int i;

	for (i = 0; i < n; i++)
		if (rules[i].live && rules[i].tag == r->act.tag &&
		    rules[i].drop == r->act.drop &&
		    (best == NULL || rules[i].seq < best->seq))
			best = &rules[i];
	return best;
}

/* What the checks saw: frames that met several rules, or none. */
static unsigned int seen_multi, seen_none, seen_checks;

/* The table's walk against the oracle's, for each key. */
static int
check_keys(struct orule *rules, unsigned int n, const struct sv_key *keys,
	   unsigned int nkeys, const char *when)
{
	static struct orule *sorted[4096];
	struct sv_port *port = &sv_ctx(E.ctx[1])->dev->port;
	const struct orule *want[MAXWALK];
	const struct sv_rule *got[MAXWALK];
	unsigned int i, j, live = 0, nw, ng;

	for (i = 0; i < n; i++)
		if (rules[i].live)
			sorted[live++] = &rules[i];
	qsort(sorted, live, sizeof(*sorted), cmp_order);
	for (j = 0; j < nkeys; j++) {
		nw = oracle_walk(sorted, live, &keys[j], want);
		ng = sv_steer_walk(port, false, &keys[j], got, MAXWALK, NULL);
		VT_CHECK_EQ(ng, nw, "%s: frame %u: rules met", when, j);
		seen_checks++;
		seen_multi += nw > 1;
		seen_none += nw == 0;
		for (i = 0; i < ng; i++)
			VT_CHECK(oracle_find(rules, n, got[i]) == want[i],
				 "%s: frame %u: step %u is tag %u, oracle says %u",
				 when, j, i, got[i]->act.tag, want[i]->tag);
	}
	return VT_OK;
}

/* Every frame of the universe: two MACs, three sources, three
 * destinations, two port pairs. */
static struct sv_key universe[36];

static void
universe_init(void)
{
	unsigned int a, b, c, d, n = 0;

	for (a = 0; a < 2; a++)
		for (b = 0; b < 3; b++)
			for (c = 0; c < 3; c++)
				for (d = 0; d < 2; d++)
					frame_key(&universe[n++], macs[a],
						  ips[b], ips[c], ports[d],
						  ports[1 - d]);
}

static int
check_all(struct orule *rules, unsigned int n, const char *when)
{
	return check_keys(rules, n, universe, 36, when);
}

static void
oracle_rule(struct orule *r, uint32_t tag, bool dt, bool drop, int q)
{
	uint16_t prio = r->rb.u.attr.priority;

	r->dt = dt;
	r->drop = drop;
	r->q = q;
	r->tag = tag;
	rb_tag(&r->rb, tag);
	if (drop)
		rb_drop(&r->rb);
	r->level = (uint32_t)prio << 1 | !dt;
}

static int
oracle_compile(struct orule *r)
{
	struct sv_actions act;

	VT_CHECK_EQ(sv_spec_compile(&mlx5_caps, &r->rb.u.attr, &r->m, &act), 0,
		    "compile");
	return VT_OK;
}

/* xorshift64: reproducible from the seed printed on failure. */
static uint64_t rng_state;

static uint32_t
rng(uint32_t n)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state % n);
}

/* One of ten masks over the universe, with random values. */
static void
random_match(struct rule_buf *rb, uint16_t prio, uint32_t flags)
{
	const uint8_t *mac = macs[rng(2)];
	uint32_t s = ips[rng(3)], d = ips[rng(3)];
	uint16_t port = ports[rng(2)];

	rb_init(rb, prio, flags);
	switch (rng(10)) {
	case 0: /* MAC */
		rb_eth(rb, mac);
		break;
	case 1: /* destination */
		rb_eth(rb, NULL);
		rb_ipv4(rb, 0, 0, d, 32);
		break;
	case 2: /* source */
		rb_eth(rb, NULL);
		rb_ipv4(rb, s, 32, 0, 0);
		break;
	case 3: /* both */
		rb_eth(rb, NULL);
		rb_ipv4(rb, s, 32, d, 32);
		break;
	case 4: /* MAC and destination */
		rb_eth(rb, mac);
		rb_ipv4(rb, 0, 0, d, 32);
		break;
	case 5: /* port */
		rb_eth(rb, NULL);
		rb_ipv4(rb, 0, 0, 0, 0);
		rb_udp_dport(rb, port);
		break;
	case 6: /* destination and port */
		rb_eth(rb, NULL);
		rb_ipv4(rb, 0, 0, d, 32);
		rb_udp_dport(rb, port);
		break;
	case 7: /* any Ethernet frame: shares no field with the others */
		rb_eth(rb, NULL);
		break;
	case 8: /* destination /24 */
		rb_eth(rb, NULL);
		rb_ipv4(rb, 0, 0, d, 24);
		break;
	default: /* destination and source /31 */
		rb_eth(rb, NULL);
		rb_ipv4(rb, s, 31, d, 32);
		break;
	}
}

#define NSLOTS 400
#define NOPS 6000

/*
 * Random rules at 6 priorities, some DONT_TRAP, some DROP, some copies of
 * a live rule (merged into its entry), some the same match with another
 * fate (EEXIST); random destructions; every frame checked every 20
 * operations. Then every rule destroyed in random order, checking every
 * 10, down to frames that meet nothing.
 */
static int
test_oracle(void)
{
	static struct orule rules[NSLOTS];
	unsigned int op, i, nlive = 0, eexist = 0, merged = 0, creates = 0;
	uint64_t seed = 0x9e3779b97f4a7c15ULL, seq = 0;
	uint32_t tag = 1;
	char when[64];

	rng_state = seed;
	memset(rules, 0, sizeof(rules));
	universe_init();
	seen_multi = seen_none = seen_checks = 0;
	VT_CHECK(vt_svenv_up(&E, &env_cfg) == 0, "set-up: errno %d", errno);
	for (op = 0; op < NOPS; op++) {
		/* About 200 live rules, after a climb. */
		bool create = nlive == 0 ||
			      (nlive < NSLOTS - 1 &&
			       rng(100) < (nlive < 200 ? 70u : 40u));

		if (create) {
			struct orule *r, *twin = NULL;
			unsigned int slot = rng(NSLOTS);
			int want = 0;

			while (rules[slot].live)
				slot = (slot + 1) % NSLOTS;
			r = &rules[slot];
			/* A copy of a live rule: the same entry. */
			if (nlive > 0 && rng(100) < 15) {
				unsigned int pick = rng(NSLOTS);

				while (!rules[pick].live)
					pick = (pick + 1) % NSLOTS;
				*r = rules[pick];
			} else {
				uint16_t prio = (uint16_t)rng(6);
				uint32_t flags =
					rng(100) < 20 ?
						IBV_FLOW_ATTR_FLAGS_DONT_TRAP :
						0;

				memset(r, 0, sizeof(*r));
				random_match(&r->rb, prio, flags);
				oracle_rule(r, tag++, flags != 0, rng(100) < 10,
					    (int)rng(NQ));
				if (oracle_compile(r) != VT_OK)
					return VT_FAIL;
			}
			r->live = false;
			r->fl = NULL;
			for (i = 0; i < NSLOTS; i++)
				if (rules[i].live && same_match(&rules[i], r)) {
					twin = &rules[i];
					break;
				}
			if (twin != NULL && !same_fate(twin, r))
				want = EEXIST;
			errno = 0;
			r->fl = ibv_create_flow(E.q[r->q].hqp, &r->rb.u.attr);
			if (want != 0) {
				VT_CHECK(r->fl == NULL && errno == want,
					 "op %u: same match, other fate: errno %d",
					 op, errno);
				eexist++;
				continue;
			}
			VT_CHECK(r->fl != NULL, "op %u: create: errno %d", op,
				 errno);
			merged += twin != NULL;
			r->live = true;
			r->seq = ++seq;
			creates++;
			nlive++;
		} else {
			unsigned int pick = rng(NSLOTS);

			while (!rules[pick].live)
				pick = (pick + 1) % NSLOTS;
			VT_CHECK_EQ(ibv_destroy_flow(rules[pick].fl), 0,
				    "op %u: destroy", op);
			rules[pick].live = false;
			nlive--;
		}
		if (op % 20 == 19) {
			snprintf(when, sizeof(when), "seed %llx op %u",
				 (unsigned long long)seed, op);
			if (check_all(rules, NSLOTS, when) != VT_OK)
				return VT_FAIL;
		}
	}
	VT_CHECK(nlive > 50, "the table held rules (%u)", nlive);
	for (op = 0; nlive > 0; op++) {
		unsigned int pick = rng(NSLOTS);

		while (!rules[pick].live)
			pick = (pick + 1) % NSLOTS;
		VT_CHECK_EQ(ibv_destroy_flow(rules[pick].fl), 0, "destroy");
		rules[pick].live = false;
		nlive--;
		if (op % 10 == 9 || nlive == 0) {
			snprintf(when, sizeof(when), "seed %llx, %u left",
				 (unsigned long long)seed, nlive);
			if (check_all(rules, NSLOTS, when) != VT_OK)
				return VT_FAIL;
		}
	}
	printf("# %u creations (%u merged, %u EEXIST), %u frames checked, "
	       "%u met several rules, %u none\n",
	       creates, merged, eexist, seen_checks, seen_multi, seen_none);
	/* The random rules overlapped, merged and clashed. */
	VT_CHECK(merged > 10 && eexist > 10, "merged %u, EEXIST %u", merged,
		 eexist);
	VT_CHECK(seen_multi > seen_checks / 10 && seen_none > 36,
		 "frames meeting several rules %u, none %u of %u", seen_multi,
		 seen_none, seen_checks);
	VT_CHECK(vt_svenv_down(&E) == 0, "tear-down");
	return VT_OK;
}

/*
 * 40 masks at one priority (more group slots than the filter names one by
 * one), all sharing the destination: rules with the same destination and
 * source prefixes of every length overlap, so the filter keeps several
 * groups per value, and the oldest matching rule must still win as the
 * oldest go one by one.
 */
static int
test_many_masks_overlap(void)
{
	static struct orule rules[40];
	const uint32_t d = 0x0a000002, s = 0xc0000201;
	static const uint32_t flip[] = { 0, 1, 0x100, 0x10000, 0x80000000 };
	struct sv_key keys[10];
	unsigned int i, nk = 0;
	char when[32];

	VT_CHECK(vt_svenv_up(&E, &env_cfg) == 0, "set-up: errno %d", errno);
	/* Longest prefixes first: the oldest rule is the narrowest. */
	for (i = 0; i < 40; i++) {
		struct orule *r = &rules[i];

		memset(r, 0, sizeof(*r));
		rb_init(&r->rb, 2, 0);
		rb_eth(&r->rb, NULL);
		if (i < 33) {
			rb_ipv4(&r->rb, s, 32 - i, d, 32);
		} else {
			rb_ipv4(&r->rb, s, 40 - i, d, 32);
			rb_udp_dport(&r->rb, ports[0]);
		}
		oracle_rule(r, i + 1, false, false, (int)(i % NQ));
		if (oracle_compile(r) != VT_OK)
			return VT_FAIL;
		r->seq = i + 1;
		r->fl = ibv_create_flow(E.q[r->q].hqp, &r->rb.u.attr);
		VT_CHECK(r->fl != NULL, "rule %u: errno %d", i, errno);
		r->live = true;
	}
	/* Sources equal to s or one bit off, to either port. */
	for (i = 0; i < 5; i++) {
		frame_key(&keys[nk++], macs[0], s ^ flip[i], d, 5, ports[0]);
		frame_key(&keys[nk++], macs[0], s ^ flip[i], d, 5, ports[1]);
	}
	for (i = 0; i < 40; i++) {
		snprintf(when, sizeof(when), "%u oldest gone", i);
		if (check_keys(rules, 40, keys, nk, when) != VT_OK)
			return VT_FAIL;
		VT_CHECK_EQ(ibv_destroy_flow(rules[i].fl), 0, "destroy %u", i);
		rules[i].live = false;
	}
	VT_CHECK(vt_svenv_down(&E) == 0, "tear-down");
	return VT_OK;
}

static uint64_t
rule_bytes(void)
{
	struct sv_rule_mem m;

	if (softverbs_port_rule_mem(E.ctx[1], 1, &m) != 0)
		return UINT64_MAX;
	return m.bytes;
}

static uint64_t
rule_count(void)
{
	struct sv_rule_mem m;

	if (softverbs_port_rule_mem(E.ctx[1], 1, &m) != 0)
		return UINT64_MAX;
	return m.rules;
}

#define BIG 100000
/* Rules per priority: 8 masks of 3125 rules fit in one of the mlx5
 * kernel's flow tables (6 autogroups of 9362 entries, then groups of
 * one: test_table_size). */
#define BIG_PER_PRIO 25000

/* The bench's rule: destination i, source prefix i % nmasks, priority
 * 1 + i / BIG_PER_PRIO. */
static void
big_rule(struct rule_buf *rb, unsigned int i, unsigned int nmasks)
{
	unsigned int k = i % nmasks;

	rb_init(rb, (uint16_t)(1 + i / BIG_PER_PRIO), 0);
	rb_eth(rb, NULL);
	rb_ipv4(rb, 0xc0000201, k, 0x0b000000 + i, 32);
	rb_tag(rb, i + 1);
}

/*
 * 100 000 simple rules (one mask, then 8) over 4 priorities: at most 200
 * bytes each in softverbs; every 997th found, with one lookup per priority
 * walked; down to 10 rules in random order (hash
 * tables shrink, slabs go back), the 10 still found and the memory down
 * to a few slabs; then none and the memory of an empty port.
 */
static int
test_memory(void)
{
	static struct ibv_flow *fl[BIG];
	static unsigned int order[BIG];
	static const unsigned int masks[] = { 1, 8 };
	struct sv_port *port;
	const struct sv_rule *got[MAXWALK];
	struct rule_buf rb;
	uint64_t empty, full;
	unsigned int v, i, probes;

	VT_CHECK(vt_svenv_up(&E, &env_cfg) == 0, "set-up: errno %d", errno);
	port = &sv_ctx(E.ctx[1])->dev->port;
	empty = rule_bytes();
	VT_CHECK(empty < 64 * 1024, "empty port holds %llu bytes",
		 (unsigned long long)empty);
	rng_state = 0x2545f4914f6cdd1dULL;
	for (v = 0; v < 2; v++) {
		for (i = 0; i < BIG; i++) {
			big_rule(&rb, i, masks[v]);
			fl[i] = ibv_create_flow(E.q[i % NQ].hqp, &rb.u.attr);
			VT_CHECK(fl[i] != NULL, "rule %u: errno %d", i, errno);
			order[i] = i;
		}
		full = rule_bytes();
		VT_CHECK_EQ(rule_count(), BIG, "rules counted");
		printf("# %u masks: %.1f bytes per rule\n", masks[v],
		       (double)(full - empty) / BIG);
		VT_CHECK(full - empty <= (uint64_t)BIG * 200,
			 "%u masks: %.1f bytes per rule", masks[v],
			 (double)(full - empty) / BIG);
		for (i = 0; i < BIG; i += 997) {
			struct sv_key k;

			frame_key(&k, macs[0], 0xc0000201, 0x0b000000 + i, 1,
				  2);
			VT_CHECK_EQ(sv_steer_walk(port, false, &k, got, MAXWALK,
						  &probes),
				    1, "rule %u found", i);
			VT_CHECK_EQ(got[0]->act.tag, i + 1, "rule %u", i);
			/* One lookup per priority: the mask's group, or
			 * with 8 masks the level's filter (that names the
			 * rule at the rule's priority). */
			VT_CHECK_EQ(probes, 1 + i / BIG_PER_PRIO,
				    "%u masks: lookups for rule %u", masks[v],
				    i);
		}
		/* Destroy in random order, all but 10. */
		for (i = BIG - 1; i > 0; i--) {
			unsigned int j = rng(i + 1), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		for (i = 10; i < BIG; i++)
			VT_CHECK_EQ(ibv_destroy_flow(fl[order[i]]), 0,
				    "destroy");
		VT_CHECK_EQ(rule_count(), 10, "rules left");
		/* At most a slab per rule left and the spare, small tables. */
		VT_CHECK(rule_bytes() <= empty + 12 * 64 * 1024,
			 "%u masks: %llu bytes left for 10 rules (%llu full)",
			 masks[v], (unsigned long long)rule_bytes(),
			 (unsigned long long)full);
		for (i = 0; i < 20; i++) {
			unsigned int r = order[i];
			struct sv_key k;
			unsigned int ng;

			frame_key(&k, macs[1], 0xc0000201, 0x0b000000 + r, 1,
				  2);
			ng = sv_steer_walk(port, false, &k, got, MAXWALK, NULL);
			if (i < 10) {
				VT_CHECK_EQ(ng, 1, "rule %u still found", r);
				VT_CHECK_EQ(got[0]->act.tag, r + 1, "rule %u",
					    r);
			} else {
				VT_CHECK_EQ(ng, 0, "rule %u gone", r);
			}
		}
		for (i = 0; i < 10; i++)
			VT_CHECK_EQ(ibv_destroy_flow(fl[order[i]]), 0,
				    "destroy");
		VT_CHECK_EQ(rule_count(), 0, "no rule");
		/* The spare slab is all that may stay. */
		VT_CHECK(rule_bytes() <= empty + 64 * 1024,
			 "%llu bytes held by an empty port (%llu before)",
			 (unsigned long long)rule_bytes(),
			 (unsigned long long)empty);
	}
	VT_CHECK(vt_svenv_down(&E) == 0, "tear-down");
	return VT_OK;
}

/*
 * What the filter saves, counted in lookups (hash tables looked into)
 * rather than timed: 4000 rules over 8 masks at one priority, and one
 * more rule, at the same priority, whose mask the filter cannot use:
 *  0. a catch-all (no field) created after the rules: younger than any
 *     of them, a frame they match never looks into it (1 lookup);
 *  1. the same catch-all created first: it wins every frame, looked into
 *     after the filter (2 lookups);
 *  2. a rule for another destination MAC created first, the 4000 rules
 *     also matching the MAC (the same for all): the MAC rule's mask was
 *     the only one when the filter's shared bits were first chosen, and
 *     they must be chosen again as the rules come, or every frame would
 *     look into every mask (2 lookups: the filter and the MAC rule).
 * A frame that no specific rule matches costs the filter and the other
 * rule's group.
 */
static int
test_filter_lookups(void)
{
	static struct ibv_flow *fl[4000];
	static const unsigned int want_probes[3] = { 1, 2, 2 };
	const struct sv_rule *got[MAXWALK];
	struct sv_port *port;
	struct ibv_flow *other;
	struct rule_buf rb;
	unsigned int order, i, probes, ng;
	struct sv_key k;

	VT_CHECK(vt_svenv_up(&E, &env_cfg) == 0, "set-up: errno %d", errno);
	port = &sv_ctx(E.ctx[1])->dev->port;
	for (order = 0; order < 3; order++) {
		other = NULL;
		for (i = 0; i <= 4000; i++) {
			if (i == (order == 0 ? 4000u : 0u)) {
				rb_init(&rb, 1, 0);
				rb_eth(&rb, order == 2 ? macs[1] : NULL);
				rb_ipv4(&rb, 0, 0, 0, 0);
				rb_tag(&rb, 99999);
				other = ibv_create_flow(E.q[1].hqp, &rb.u.attr);
				VT_CHECK(other != NULL, "order %u: errno %d",
					 order, errno);
			}
			if (i == 4000)
				break;
			rb_init(&rb, 1, 0);
			rb_eth(&rb, order == 2 ? macs[0] : NULL);
			rb_ipv4(&rb, 0xc0000201, i % 8, 0x0b000000 + i, 32);
			rb_tag(&rb, i + 1);
			fl[i] = ibv_create_flow(E.q[0].hqp, &rb.u.attr);
			VT_CHECK(fl[i] != NULL, "rule %u: errno %d", i, errno);
		}
		for (i = 0; i < 4000; i += 37) {
			frame_key(&k, macs[0], 0xc0000201, 0x0b000000 + i, 1,
				  2);
			ng = sv_steer_walk(port, false, &k, got, MAXWALK,
					   &probes);
			VT_CHECK_EQ(ng, 1, "order %u: frame %u", order, i);
			VT_CHECK_EQ(got[0]->act.tag, order == 1 ? 99999 : i + 1,
				    "order %u: frame %u", order, i);
			VT_CHECK_EQ(probes, want_probes[order],
				    "order %u: lookups for frame %u", order, i);
		}
		frame_key(&k, macs[order == 2], 0xc0000201, 0x0c000000, 1, 2);
		ng = sv_steer_walk(port, false, &k, got, MAXWALK, &probes);
		VT_CHECK(ng == 1 && got[0]->act.tag == 99999,
			 "order %u: a frame no specific rule takes", order);
		VT_CHECK_EQ(probes, 2, "order %u: lookups for that frame",
			    order);
		for (i = 0; i < 4000; i++)
			VT_CHECK_EQ(ibv_destroy_flow(fl[i]), 0, "destroy");
		VT_CHECK_EQ(ibv_destroy_flow(other), 0, "destroy");
	}
	VT_CHECK(vt_svenv_down(&E) == 0, "tear-down");
	return VT_OK;
}

#define FT_MAX 65536  /* MLX5_FS_MAX_ENTRIES */
#define FT_GROUP 9362 /* FT_MAX / (MLX5_FS_MAX_TYPES + 1) */

/* A rule at priority prio: destination 11.0.0.0 + i, source prefix
 * length k (the mask), to queue q. */
static struct ibv_flow *
size_rule(unsigned int prio, unsigned int k, uint32_t i, unsigned int q)
{
	struct rule_buf rb;

	rb_init(&rb, (uint16_t)prio, 0);
	rb_eth(&rb, NULL);
	rb_ipv4(&rb, 0xc0000201, k, 0x0b000000 + i, 32);
	return ibv_create_flow(E.q[q].hqp, &rb.u.attr);
}

/* n rules of mask k at prio, destinations from *next; 0 or the errno of
 * the first refused. */
static int
size_fill(struct ibv_flow **fl, unsigned int *nfl, unsigned int prio,
	  unsigned int k, unsigned int n, uint32_t *next)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct ibv_flow *f = size_rule(prio, k, (*next)++, 0);

		if (f == NULL)
			return errno;
		fl[(*nfl)++] = f;
	}
	return 0;
}

static int
size_refused(unsigned int prio, unsigned int k, uint32_t i)
{
	struct ibv_flow *f;

	errno = 0;
	f = size_rule(prio, k, i, 0);
	if (f != NULL) {
		ibv_destroy_flow(f);
		return 0;
	}
	return errno;
}

/*
 * How many rules one priority takes on the mlx5 profile: the kernel's
 * flow table of a priority has 65536 entries (MLX5_FS_MAX_ENTRIES), in 6
 * autogroups of 9362 (one per mask, the first six masks) and then groups
 * of one entry (mlx5_create_auto_grouped_flow_table(),
 * alloc_auto_flow_group(), Linux 6.1):
 *  1. 65536 rules of one mask fill a priority: one more is ENOSPC; a
 *     rule identical to one of them (another QP) joins its entry; other
 *     priorities are not full; one rule gone makes room for one;
 *  2. six masks with one rule each hold 6 x 9362 entries: a seventh mask
 *     gets the 9364 left, one at a time, then ENOSPC; the first mask
 *     fills its group and gets no second; when the sixth mask's only rule
 *     goes its group does, and the seventh mask gets a group of 9362;
 *  3. the generic profile (the man page) takes 65537 rules at a priority.
 */
static int
test_table_size(void)
{
	static struct ibv_flow *fl[FT_MAX + 2];
	struct vt_svenv_cfg generic_cfg = env_cfg;
	unsigned int nfl = 0, i;
	struct ibv_flow *join, *other;
	uint32_t next = 0;
	int rc;

	VT_CHECK(vt_svenv_up(&E, &env_cfg) == 0, "set-up: errno %d", errno);
	/* 1. */
	rc = size_fill(fl, &nfl, 3, 0, FT_MAX, &next);
	VT_CHECK_EQ(rc, 0, "rule %u of one mask: errno", nfl);
	VT_CHECK_EQ(size_refused(3, 0, next), ENOSPC,
		    "rule 65537 at a priority: errno");
	VT_CHECK_EQ(size_refused(3, 4, next), ENOSPC,
		    "another mask at a full priority: errno");
	join = size_rule(3, 0, 7, 1);
	VT_CHECK(join != NULL, "same match, another QP: errno %d", errno);
	other = size_rule(4, 0, next, 0);
	VT_CHECK(other != NULL, "another priority: errno %d", errno);
	VT_CHECK_EQ(ibv_destroy_flow(other), 0, "destroy");
	/* Its entry stays while the joined rule does. */
	VT_CHECK_EQ(ibv_destroy_flow(fl[7]), 0, "destroy");
	VT_CHECK_EQ(size_refused(3, 0, next), ENOSPC,
		    "entry of a joined rule freed: errno");
	VT_CHECK_EQ(ibv_destroy_flow(join), 0, "destroy");
	fl[7] = size_rule(3, 0, next++, 0);
	VT_CHECK(fl[7] != NULL, "room made: errno %d", errno);
	for (i = 0; i < nfl; i++)
		VT_CHECK_EQ(ibv_destroy_flow(fl[i]), 0, "destroy");
	nfl = 0;
	/* 2. */
	for (i = 1; i <= 6; i++)
		VT_CHECK_EQ(size_fill(fl, &nfl, 3, i, 1, &next), 0,
			    "mask %u: errno", i);
	rc = size_fill(fl, &nfl, 3, 7, FT_MAX - 6 * FT_GROUP, &next);
	VT_CHECK_EQ(rc, 0, "seventh mask, rule %u: errno", nfl - 6);
	VT_CHECK_EQ(size_refused(3, 7, next), ENOSPC,
		    "seventh mask past the table: errno");
	rc = size_fill(fl, &nfl, 3, 1, FT_GROUP - 1, &next);
	VT_CHECK_EQ(rc, 0, "first mask filling its group: errno");
	VT_CHECK_EQ(size_refused(3, 1, next), ENOSPC,
		    "first mask past its group: errno");
	VT_CHECK_EQ(ibv_destroy_flow(fl[5]), 0, "destroy");
	fl[5] = NULL;
	rc = size_fill(fl, &nfl, 3, 7, FT_GROUP, &next);
	VT_CHECK_EQ(rc, 0, "seventh mask's group: errno");
	VT_CHECK_EQ(size_refused(3, 7, next), ENOSPC,
		    "seventh mask past its group: errno");
	for (i = 0; i < nfl; i++)
		if (fl[i] != NULL)
			VT_CHECK_EQ(ibv_destroy_flow(fl[i]), 0, "destroy");
	nfl = 0;
	VT_CHECK(vt_svenv_down(&E) == 0, "tear-down");
	/* 3. */
	generic_cfg.opts1 = &generic_opts;
	VT_CHECK(vt_svenv_up(&E, &generic_cfg) == 0, "set-up: errno %d", errno);
	rc = size_fill(fl, &nfl, 3, 0, FT_MAX + 1, &next);
	VT_CHECK_EQ(rc, 0, "generic profile, rule %u: errno", nfl);
	for (i = 0; i < nfl; i++)
		VT_CHECK_EQ(ibv_destroy_flow(fl[i]), 0, "destroy");
	VT_CHECK(vt_svenv_down(&E) == 0, "tear-down");
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_oracle),	  VT_CASE(test_many_masks_overlap),
	VT_CASE(test_memory),	  VT_CASE(test_filter_lookups),
	VT_CASE(test_table_size), { NULL, NULL },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
