/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_PKTEDIT_H
#define SV_PKTEDIT_H

/*
 * What the flow actions of a steering entry do to a frame, as a ConnectX
 * does it (sv_pktedit.c): one packet reformat and one header modify list
 * at most (the kernel takes one of each, fs.c parse_flow_flow_action()),
 * applied in the hardware's fixed order decap -> modify -> encap whatever
 * order the rule listed them in: an FTE carries one modify_header_id, one
 * packet_reformat_id and the action bits, no order (mlx5_ifc.h
 * flow_context). After a decap the modify list's "outer" fields are the
 * headers of the decapsulated frame.
 *
 * Pure functions over byte buffers, so that unit tests and the fuzzer can
 * hold them to an independent model (full checksum recomputation, scapy).
 */

#include <stdbool.h>
#include <stdint.h>

/* A header modify action, decoded (PRM set_action_in / add_action_in). */
struct sv_mod_cmd {
	uint8_t op;    /* VSTEER_PRM_MOD_SET or VSTEER_PRM_MOD_ADD */
	uint8_t field; /* VSTEER_PRM_MODI_OUT_* */
	uint8_t off;   /* SET: first bit of the field replaced */
	uint8_t len;   /* SET: bits replaced, 1 .. 32 */
	uint32_t data; /* SET: right-aligned bits; ADD: the addend */
};

/* The packet reformat of an entry. */
enum sv_reformat {
	SV_REFORMAT_NONE = 0,
	SV_REFORMAT_DECAP_L2, /* L2_TUNNEL_TO_L2: down to the inner L2 */
	SV_REFORMAT_DECAP_L3, /* L3_TUNNEL_TO_L2: down to the inner L3,
			       * data (the new L2 header) in front */
	SV_REFORMAT_ENCAP_L2, /* L2_TO_L2_TUNNEL: data in front */
	SV_REFORMAT_ENCAP_L3, /* L2_TO_L3_TUNNEL: data instead of the L2 */
};

/* The largest reformat data the PRM can describe (max_encap_header_size
 * is 10 bits). */
#define SV_EDIT_DATA_MAX 1023

/* What an entry does to the frames it takes. mod_obj and reformat_obj
 * name the device objects the program came from: entries are the same
 * when they are. */
struct sv_edit {
	const struct sv_mod_cmd *mod;
	uint32_t n_mod;
	uint8_t reformat; /* enum sv_reformat */
	const uint8_t *data;
	uint32_t data_len;
	const void *mod_obj;
	const void *reformat_obj;
};

/* Width in bits of a field the device rewrites, 0 for a field id this
 * model does not rewrite (sv_flow_action.c says which refusal that is). */
unsigned int sv_mod_field_width(uint32_t field);
/* Fields ADD takes (TTL, hop limit, TCP sequence and acknowledgment). */
bool sv_mod_field_addable(uint32_t field);
/* The L3 family a field needs, 4 or 6 (0: either or none), and the L4
 * protocol (IPPROTO_TCP, IPPROTO_UDP, 0). */
unsigned int sv_mod_field_family(uint32_t field);
unsigned int sv_mod_field_l4(uint32_t field);

/*
 * Apply e to the len-byte frame in, writing the result to out (cap bytes,
 * not overlapping in). Returns the new length, or 0 when out is too small.
 * What a frame does not have is left alone: a decap of a frame the parser
 * finds no tunnel in, a field of a header the frame lacks.
 */
uint32_t sv_edit_apply(const struct sv_edit *e, const uint8_t *in, uint32_t len,
		       uint8_t *out, uint32_t cap);

/* Room sv_edit_apply() needs for a frame of len bytes. */
static inline uint32_t
sv_edit_room(const struct sv_edit *e, uint32_t len)
{
	return len + e->data_len;
}

#endif /* SV_PKTEDIT_H */
