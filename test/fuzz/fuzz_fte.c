/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Fuzz target: sv_fte_compile() on arbitrary fte_match_param buffers,
 * both profiles.
 *
 * Input: criteria byte, option byte (bit 0: mlx5 profile; bits 1-3 pick
 * the buffer length: the match_sz the driver sends, the whole
 * fte_match_param, the smallest size for the criteria, or a length from
 * the input), a 16-bit length, then writes into the zeroed buffer, each
 * (section 0-7, byte offset in it, 1-4 bytes). The buffer has exactly the
 * chosen length.
 *
 * Invariants: EINVAL exactly for bad criteria or length; otherwise 0 or
 * EOPNOTSUPP. On success, disabled sections leave their key fields zero
 * and scrambling them changes nothing; the key's padding stays zero and
 * only the presence bits the PRM encodes (cvlan_tag, svlan_tag, the
 * second-tag bits, frag) or L4 ports without an IP protocol imply are set;
 * a second compile gives the same key.
 */

#include <errno.h>
#include <stdlib.h>

#include "fuzz.h"
#include "softverbs.h"
#include "sv_key.h"
#include "vsteer_prm.h"

#define FZ_CRIT_BIT(b) (1u << VSTEER_PRM_CRIT_##b##_BIT)
#define FZ_PRM_PRESENT                                                     \
	(SV_P_VLAN | SV_P_CVLAN | SV_P_SVLAN | SV_P_CVLAN2 | SV_P_SVLAN2 | \
	 SV_P_IPFRAG | SV_P_TCP | SV_P_UDP)

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

static void
fz_check_key(uint8_t crit, const struct sv_key *k)
{
	static const struct sv_hdrs zero_hdrs;

	FZ_CHECK(fz_zero(k->pad_, sizeof(k->pad_)), "key padding set");
	FZ_CHECK(k->tunnel == 0 && k->esp_spi == 0 && k->esp_seq == 0,
		 "fields the PRM buffer has no source for");
	FZ_CHECK((k->outer.present & ~FZ_PRM_PRESENT) == 0 &&
			 (k->inner.present & ~FZ_PRM_PRESENT) == 0,
		 "presence bits 0x%x / 0x%x", k->outer.present,
		 k->inner.present);
	if (!(crit & FZ_CRIT_BIT(OUTER))) {
		struct sv_hdrs h = k->outer;

		/* flow_label and the second-tag bits come from misc. */
		h.flow_label = 0;
		h.present &= ~(SV_P_CVLAN2 | SV_P_SVLAN2);
		FZ_CHECK(memcmp(&h, &zero_hdrs, sizeof(h)) == 0,
			 "outer fields with outer_headers disabled");
	}
	if (!(crit & FZ_CRIT_BIT(INNER))) {
		struct sv_hdrs h = k->inner;

		h.flow_label = 0;
		h.present &= ~(SV_P_CVLAN2 | SV_P_SVLAN2);
		FZ_CHECK(memcmp(&h, &zero_hdrs, sizeof(h)) == 0,
			 "inner fields with inner_headers disabled");
	}
	if (!(crit & FZ_CRIT_BIT(MISC)))
		FZ_CHECK(k->gre_c_ks_ver == 0 && k->gre_protocol == 0 &&
				 k->gre_key == 0 && k->vni == 0 &&
				 k->outer_esp_spi == 0 &&
				 k->outer.flow_label == 0 &&
				 k->inner.flow_label == 0 &&
				 !((k->outer.present | k->inner.present) &
				   (SV_P_CVLAN2 | SV_P_SVLAN2)),
			 "misc fields with misc_parameters disabled");
	if (!(crit & FZ_CRIT_BIT(MISC2)))
		FZ_CHECK(k->mpls_label == 0,
			 "MPLS label with misc_parameters_2 disabled");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz_in in = { data, size };
	uint8_t full[VSTEER_PRM_MATCH_PARAM_BYTES + 64];
	struct sv_caps caps = { .max_priority = 15,
				.mpls_over_l4 = true,
				.ipv4_ihl = true };
	struct sv_key k1, k2;
	uint8_t crit, opt, *buf;
	uint16_t raw_len;
	size_t len, i;
	bool bad;
	int rc;

	crit = fz_u8(&in);
	opt = fz_u8(&in);
	raw_len = fz_u16(&in);
	caps.profile = (opt & 1) ? SV_PROFILE_MLX5 : SV_PROFILE_GENERIC;
	switch ((opt >> 1) & 7) {
	case 0:
	case 1:
		len = vsteer_prm_match_size(crit);
		break;
	case 2:
		len = VSTEER_PRM_MATCH_PARAM_BYTES;
		break;
	case 3:
		len = vsteer_prm_match_min_size(crit);
		break;
	default:
		len = raw_len % sizeof(full);
		break;
	}
	memset(full, 0, sizeof(full));
	while (fz_left(&in) > 0) {
		unsigned int sect = fz_u8(&in) % 8;
		unsigned int off = fz_u8(&in) % VSTEER_PRM_SECT_BYTES;
		unsigned int n = fz_u8(&in) % 4 + 1;
		size_t at = sect * VSTEER_PRM_SECT_BYTES + off;

		for (i = 0; i < n; i++)
			full[(at + i) % sizeof(full)] = fz_u8(&in);
	}
	/* Exactly len bytes: a read past match_sz is a sanitizer report. */
	buf = malloc(len > 0 ? len : 1);
	if (buf == NULL)
		return 0;
	memcpy(buf, full, len);

	memset(&k1, 0xa5, sizeof(k1));
	rc = sv_fte_compile(&caps, crit, len > 0 ? buf : NULL, len, NULL, &k1);
	bad = (crit & ~VSTEER_PRM_CRIT_ALL) != 0 ||
	      len > VSTEER_PRM_MATCH_PARAM_BYTES ||
	      len < vsteer_prm_match_min_size(crit);
	FZ_CHECK(rc == 0 || rc == EINVAL || rc == EOPNOTSUPP, "rc %d", rc);
	FZ_CHECK((rc == EINVAL) == bad,
		 "rc %d for criteria 0x%02x, %zu bytes (min %u)", rc, crit, len,
		 vsteer_prm_match_min_size(crit));
	if (rc == 0) {
		fz_check_key(crit, &k1);
		memset(&k2, 0x5a, sizeof(k2));
		FZ_CHECK(sv_fte_compile(&caps, crit, buf, len, NULL, &k2) ==
					 0 &&
				 memcmp(&k1, &k2, sizeof(k1)) == 0,
			 "second compile differs");
		/* The device ignores disabled sections: scramble them. */
		for (i = 0; i < VSTEER_PRM_NUM_SECTS; i++) {
			size_t s = i * VSTEER_PRM_SECT_BYTES, j;

			if (crit & (1u << i))
				continue;
			for (j = s; j < s + VSTEER_PRM_SECT_BYTES && j < len;
			     j++)
				buf[j] ^= (uint8_t)(0x5d + j);
		}
		memset(&k2, 0x5a, sizeof(k2));
		rc = sv_fte_compile(&caps, crit, buf, len, NULL, &k2);
		FZ_CHECK(rc == 0 && memcmp(&k1, &k2, sizeof(k1)) == 0,
			 "disabled sections changed the result (rc %d)", rc);
		fz_accepted++;
	} else {
		fz_refused++;
	}
	free(buf);
	return 0;
}
