/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Fuzz target: sv_spec_compile() on an arbitrary ibv_flow_attr + spec
 * chain.
 *
 * Input: one option byte (bit 0: mlx5 profile, else generic), then the
 * chain itself: struct ibv_flow_attr followed by the specs, copied into a
 * heap buffer of exactly attr.size bytes (the caller's side of the
 * contract: attr.size is the size of the whole rule; input beyond it is
 * dropped, missing bytes are zero), so that any read past attr.size is an
 * AddressSanitizer report in the libFuzzer build.
 *
 * sv_spec_compile() walks num_of_specs specs, each advanced by its own
 * size field, inside attr.size, and refuses a chain that runs past it or
 * leaves bytes over (EINVAL, as the kernel's ib_uverbs_ex_create_flow()).
 *
 * Invariants on success: the specs fill attr.size exactly; the value has
 * no bit outside the mask; padding
 * stays zero; every header spec left its presence bit (in mask and value,
 * in the stack its INNER flag names); DROP / TAG / COUNT specs and only
 * they show in the actions; the result is the same on a second run.
 * Errors are only EINVAL or EOPNOTSUPP, and a chain with an unknown spec
 * type, a spec shorter than its struct or two COUNT specs never compiles.
 */

#include <errno.h>
#include <stdlib.h>

#include "fuzz.h"
#include "softverbs.h"
#include "sv_key.h"

/* As many 8-byte specs as a 16-bit attr.size holds. */
#define FZ_MAX_SPECS 8192

struct fz_spec_ref {
	uint32_t type;
	uint16_t size;
	size_t off;
};

/*
 * Walk the chain within len bytes (attr.size). Returns the number of
 * specs whose 8-byte header and body lie inside; *used is the bytes they
 * and the attr take.
 */
static unsigned int
fz_walk(const uint8_t *buf, size_t len, struct fz_spec_ref *refs, size_t *used)
{
	struct ibv_flow_attr attr;
	size_t off = sizeof(attr);
	unsigned int i;

	memcpy(&attr, buf, sizeof(attr));
	for (i = 0; i < attr.num_of_specs && i < FZ_MAX_SPECS; i++) {
		uint32_t type;
		uint16_t size;

		if (len - off < 8)
			break;
		memcpy(&type, buf + off, 4);
		memcpy(&size, buf + off + 4, 2);
		if (size < 8 || len - off < size)
			break;
		refs[i].type = type;
		refs[i].size = size;
		refs[i].off = off;
		off += size;
	}
	*used = off;
	return i;
}

static bool
fz_zero(const void *p, size_t n)
{
	const uint8_t *b = p;
	size_t i;

	for (i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

/* sizeof the verbs struct of a base spec type, 0 if unknown. */
static uint16_t
fz_spec_min(uint32_t base)
{
	switch (base) {
	case IBV_FLOW_SPEC_ETH:
		return sizeof(struct ibv_flow_spec_eth);
	case IBV_FLOW_SPEC_IPV4:
		return sizeof(struct ibv_flow_spec_ipv4);
	case IBV_FLOW_SPEC_IPV4_EXT:
		return sizeof(struct ibv_flow_spec_ipv4_ext);
	case IBV_FLOW_SPEC_IPV6:
		return sizeof(struct ibv_flow_spec_ipv6);
	case IBV_FLOW_SPEC_TCP:
	case IBV_FLOW_SPEC_UDP:
		return sizeof(struct ibv_flow_spec_tcp_udp);
	case IBV_FLOW_SPEC_ESP:
		return sizeof(struct ibv_flow_spec_esp);
	case IBV_FLOW_SPEC_VXLAN_TUNNEL:
		return sizeof(struct ibv_flow_spec_tunnel);
	case IBV_FLOW_SPEC_GRE:
		return sizeof(struct ibv_flow_spec_gre);
	case IBV_FLOW_SPEC_MPLS:
		return sizeof(struct ibv_flow_spec_mpls);
	case IBV_FLOW_SPEC_ACTION_TAG:
		return sizeof(struct ibv_flow_spec_action_tag);
	case IBV_FLOW_SPEC_ACTION_DROP:
		return sizeof(struct ibv_flow_spec_action_drop);
	case IBV_FLOW_SPEC_ACTION_HANDLE:
		return sizeof(struct ibv_flow_spec_action_handle);
	case IBV_FLOW_SPEC_ACTION_COUNT:
		return sizeof(struct ibv_flow_spec_counter_action);
	default:
		return 0;
	}
}

/* The presence bit a header spec leaves, 0 for others. */
static uint32_t
fz_spec_bit(uint32_t base)
{
	switch (base) {
	case IBV_FLOW_SPEC_ETH:
		return SV_P_ETH;
	case IBV_FLOW_SPEC_IPV4:
	case IBV_FLOW_SPEC_IPV4_EXT:
		return SV_P_IPV4;
	case IBV_FLOW_SPEC_IPV6:
		return SV_P_IPV6;
	case IBV_FLOW_SPEC_TCP:
		return SV_P_TCP;
	case IBV_FLOW_SPEC_UDP:
		return SV_P_UDP;
	case IBV_FLOW_SPEC_ESP:
		return SV_P_ESP;
	case IBV_FLOW_SPEC_GRE:
		return SV_P_GRE;
	case IBV_FLOW_SPEC_MPLS:
		return SV_P_MPLS;
	default:
		return 0;
	}
}

static void
fz_check_success(const struct sv_caps *caps, const uint8_t *buf,
		 const struct fz_spec_ref *refs, unsigned int n,
		 const struct sv_match *m, const struct sv_actions *act)
{
	const uint8_t *mk = (const uint8_t *)&m->mask;
	const uint8_t *v = (const uint8_t *)&m->value;
	unsigned int i, ndrop = 0, ntag = 0, ncount = 0;
	size_t b;

	for (b = 0; b < sizeof(m->mask); b++)
		FZ_CHECK((v[b] & ~mk[b]) == 0,
			 "value byte %zu 0x%02x outside mask 0x%02x", b, v[b],
			 mk[b]);
	/* Verbs specs say the IP version by presence, as the kernel's
	 * ip_version or ethertype does: the key's byte stays free. */
	FZ_CHECK(fz_zero(m->mask.pad_, sizeof(m->mask.pad_)) &&
			 m->mask.outer.ip_version == 0 &&
			 m->mask.inner.ip_version == 0,
		 "mask padding or ip_version set");
	FZ_CHECK(m->mask.outer.present == m->value.outer.present &&
			 m->mask.inner.present == m->value.inner.present,
		 "presence bits differ between mask and value");
	for (i = 0; i < n; i++) {
		uint32_t base = refs[i].type & ~(uint32_t)IBV_FLOW_SPEC_INNER;
		bool inner = (refs[i].type & IBV_FLOW_SPEC_INNER) != 0;
		uint16_t min = fz_spec_min(base);
		uint32_t bit = fz_spec_bit(base);
		const struct sv_hdrs *h = inner ? &m->mask.inner :
						  &m->mask.outer;

		FZ_CHECK(min != 0, "spec %u: unknown type 0x%x compiled", i,
			 refs[i].type);
		FZ_CHECK(refs[i].size >= min,
			 "spec %u: type 0x%x size %u < struct %u compiled", i,
			 refs[i].type, refs[i].size, min);
		if (bit != 0)
			FZ_CHECK(h->present & bit,
				 "spec %u (type 0x%x): presence 0x%x missing",
				 i, refs[i].type, bit);
		if (base == IBV_FLOW_SPEC_VXLAN_TUNNEL)
			FZ_CHECK(m->mask.tunnel == 0xff &&
					 m->value.tunnel == SV_TUN_VXLAN,
				 "VXLAN spec without the tunnel match");
		ndrop += base == IBV_FLOW_SPEC_ACTION_DROP;
		ntag += base == IBV_FLOW_SPEC_ACTION_TAG;
		ncount += base == IBV_FLOW_SPEC_ACTION_COUNT;
	}
	FZ_CHECK(act->drop == (ndrop > 0), "drop %d with %u DROP specs",
		 act->drop, ndrop);
	FZ_CHECK(act->has_tag == (ntag > 0), "has_tag %d with %u TAG specs",
		 act->has_tag, ntag);
	FZ_CHECK(ncount <= 1, "%u COUNT specs compiled", ncount);
	FZ_CHECK((act->counters != NULL) == (ncount > 0),
		 "counters %p with %u COUNT specs", (void *)act->counters,
		 ncount);
	if (caps->profile == SV_PROFILE_MLX5 && act->has_tag)
		FZ_CHECK(act->tag < (1u << 24), "mlx5 tag 0x%x", act->tag);
	(void)buf;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_spec_ref refs[FZ_MAX_SPECS];
	struct sv_caps caps = { .max_priority = 15, .mpls_over_l4 = true };
	struct ibv_flow_attr attr;
	struct sv_match m, m2;
	struct sv_actions act, act2;
	size_t len, used;
	uint8_t *buf;
	unsigned int n;
	int rc, rc2;

	if (size < 1)
		return 0;
	caps.profile = (data[0] & 1) ? SV_PROFILE_MLX5 : SV_PROFILE_GENERIC;
	data++;
	size--;
	/* The attr is always whole (zero-filled); the buffer holds
	 * attr.size bytes, or the attr alone when attr.size says less. */
	memset(&attr, 0, sizeof(attr));
	memcpy(&attr, data, size < sizeof(attr) ? size : sizeof(attr));
	len = attr.size > sizeof(attr) ? attr.size : sizeof(attr);
	buf = calloc(1, len);
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size < len ? size : len);
	n = fz_walk(buf, attr.size < sizeof(attr) ? sizeof(attr) : attr.size,
		    refs, &used);

	memset(&m, 0xa5, sizeof(m));
	memset(&act, 0xa5, sizeof(act));
	rc = sv_spec_compile(&caps, (const struct ibv_flow_attr *)buf, &m,
			     &act);
	FZ_CHECK(rc == 0 || rc == EINVAL || rc == EOPNOTSUPP, "rc %d", rc);
	memset(&m2, 0x5a, sizeof(m2));
	memset(&act2, 0x5a, sizeof(act2));
	rc2 = sv_spec_compile(&caps, (const struct ibv_flow_attr *)buf, &m2,
			      &act2);
	FZ_CHECK(rc == rc2, "rc %d then %d", rc, rc2);
	if (rc == 0 && rc2 == 0) {
		/* sv_key has no implicit padding; sv_actions may have. */
		FZ_CHECK(memcmp(&m, &m2, sizeof(m)) == 0 &&
				 act.drop == act2.drop &&
				 act.has_tag == act2.has_tag &&
				 act.tag == act2.tag &&
				 act.counters == act2.counters,
			 "second compile differs");
		FZ_CHECK(n == attr.num_of_specs,
			 "compiled with %u of %u specs inside attr.size", n,
			 attr.num_of_specs);
		FZ_CHECK(attr.size >= sizeof(attr) && used == attr.size,
			 "compiled with specs using %zu of attr.size %u bytes",
			 used, attr.size);
		fz_check_success(&caps, buf, refs, n, &m, &act);
		fz_accepted++;
	} else {
		fz_refused++;
	}
	FZ_CHECK(sv_spec_compile(NULL, (const struct ibv_flow_attr *)buf, &m,
				 &act) == EINVAL,
		 "NULL caps accepted");
	free(buf);
	return 0;
}
