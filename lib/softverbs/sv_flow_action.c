/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * mlx5dv flow actions: mlx5dv_create_flow_action_modify_header(3) and
 * mlx5dv_create_flow_action_packet_reformat(3), destroyed with
 * ibv_destroy_flow_action(). What rdma-core 44 and the mlx5 kernel (Linux
 * 6.1) check, in their order:
 *
 *   modify header
 *     libmlx5 sends the buffer and the table type as they are
 *     (_mlx5dv_create_flow_action_modify_header()). The kernel: fewer
 *     than 8 bytes EINVAL (the attribute's UVERBS_ATTR_MIN_SIZE), a size
 *     that is no multiple of 8 EINVAL (uverbs_attr_ptr_get_array_size()),
 *     a table type above RDMA_TX EINVAL (mlx5_ib_ft_type_to_namespace()),
 *     FDB outside switchdev and RDMA_RX EOPNOTSUPP (no such namespace;
 *     RDMA tables are not modelled either), more actions than the table's
 *     max_modify_header_actions EOPNOTSUPP (mlx5_cmd_modify_header_alloc();
 *     the count is a u8 there, so 256 actions are none). What the actions
 *     say the firmware checks (ALLOC_MODIFY_HEADER_CONTEXT, BAD_PARAM:
 *     EINVAL): an unknown type or field, bits beyond the field's width,
 *     ADD on a field that takes none (rdma-core's software steering lists
 *     which take it, dr_action_modify_check_field_limitation_add()),
 *     IPv4 with IPv6 fields or TCP with UDP fields in one list ("HW
 *     limitation", dr_action_modify_sw_to_hw()). COPY is refused too: no
 *     source says a root table takes it and DPDK 22.11's mlx5 never asks
 *     ("modify field action is not supported for group 0"). Fields of
 *     the inner headers and metadata registers are real but not modelled:
 *     EOPNOTSUPP.
 *   packet reformat
 *     libmlx5: data without a size or a size without data EINVAL
 *     (_mlx5dv_create_flow_action_packet_reformat()). The kernel
 *     (mlx5_ib_flow_action_packet_reformat_valid()): decap types on the
 *     NIC receive table only, encap types on the transmit table only,
 *     else EOPNOTSUPP; L2_TUNNEL_TO_L2 keeps no data (its action is the
 *     FTE's DECAP bit); the others without data ENOENT
 *     (uverbs_attr_get_alloced_ptr()), with more than the flow table's
 *     max_encap_header_size EINVAL (mlx5_cmd_packet_reformat_alloc()).
 *     The firmware's: L3_TUNNEL_TO_L2 data of another size than a MAC
 *     header with or without one VLAN tag, 14 or 18 bytes (the man page),
 *     EINVAL.
 *   destroy
 *     EBUSY while a flow uses the action (uverbs_free_flow_action()).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>

#include "sv_internal.h"
#include "sv_pktedit.h"
#include "vsteer_prm.h"

#define SV_FA_MAGIC 0x73766661u /* "svfa" */

struct sv_flow_action *
sv_flow_action_of(struct ibv_flow_action *a)
{
	struct sv_flow_action *fa;

	if (a == NULL)
		return NULL;
	fa = sv_container_of(a, struct sv_flow_action, action);
	return fa->magic == SV_FA_MAGIC ? fa : NULL;
}

static struct ibv_flow_action *
sv_fa_fail(int rc)
{
	errno = rc;
	return NULL;
}

static struct sv_flow_action *
sv_fa_new(struct ibv_context *context, uint8_t kind, uint8_t ft_type,
	  size_t extra)
{
	struct sv_flow_action *fa = calloc(1, sizeof(*fa) + extra);

	if (fa == NULL)
		return NULL;
	fa->magic = SV_FA_MAGIC;
	fa->action.context = context;
	fa->ctx = sv_ctx(context);
	fa->kind = kind;
	fa->ft_type = ft_type;
	atomic_init(&fa->usecnt, 0);
	atomic_fetch_add(&fa->ctx->nobjs, 1);
	return fa;
}

/* An action's content: 0, or the errno the firmware gives. */
static int
sv_mod_decode(uint64_t raw, struct sv_mod_cmd *c)
{
	uint8_t b[VSTEER_PRM_MOD_ACTION_BYTES];
	uint32_t type, field, width, off, len;

	/* "device spec format (i.e. be64)": the bytes as they sit. */
	memcpy(b, &raw, sizeof(b));
	type = vsteer_prm_get(b, VSTEER_PRM_MOD_TYPE_OFF,
			      VSTEER_PRM_MOD_TYPE_LEN);
	field = vsteer_prm_get(b, VSTEER_PRM_MOD_FIELD_OFF,
			       VSTEER_PRM_MOD_FIELD_LEN);
	if (type != VSTEER_PRM_MOD_SET && type != VSTEER_PRM_MOD_ADD)
		return EINVAL;
	width = sv_mod_field_width(field);
	if (width == 0) {
		/* Inner headers and metadata registers exist on the device
		 * but are not modelled; anything else is no field. */
		if ((field >= VSTEER_PRM_MODI_IN_SMAC_47_16 &&
		     field <= VSTEER_PRM_MODI_IN_DIPV4) ||
		    field == VSTEER_PRM_MODI_META_DATA_REG_A ||
		    field == VSTEER_PRM_MODI_META_DATA_REG_B ||
		    (field >= VSTEER_PRM_MODI_META_REG_C_0 &&
		     field <= VSTEER_PRM_MODI_META_REG_C_7))
			return EOPNOTSUPP;
		return EINVAL;
	}
	c->op = (uint8_t)type;
	c->field = (uint8_t)field;
	c->data = vsteer_prm_get(b, VSTEER_PRM_MOD_DATA_OFF,
				 VSTEER_PRM_MOD_DATA_LEN);
	if (type == VSTEER_PRM_MOD_ADD) {
		/* DPDK writes offset and length into ADD too (the TTL's 8):
		 * reserved bits for ADD, which adds to the whole field. */
		if (!sv_mod_field_addable(field))
			return EINVAL;
		c->off = 0;
		c->len = (uint8_t)width;
		return 0;
	}
	off = vsteer_prm_get(b, VSTEER_PRM_MOD_OFFSET_OFF,
			     VSTEER_PRM_MOD_OFFSET_LEN);
	len = vsteer_prm_get(b, VSTEER_PRM_MOD_LENGTH_OFF,
			     VSTEER_PRM_MOD_LENGTH_LEN);
	/* "Based on device specification value of 0 means 32"
	 * (dr_action_modify_sw_to_hw()). */
	if (len == 0)
		len = 32;
	if (off + len > width)
		return EINVAL;
	c->off = (uint8_t)off;
	c->len = (uint8_t)len;
	return 0;
}

struct ibv_flow_action *
sv_mlx5dv_create_flow_action_modify_header(struct ibv_context *context,
					   size_t actions_sz,
					   uint64_t actions[],
					   enum mlx5dv_flow_table_type ft_type)
{
	struct sv_flow_action *fa;
	struct sv_mod_cmd *cmds;
	unsigned int fam = 0, l4 = 0;
	size_t n, i;
	int rc;

	if (context == NULL)
		return sv_fa_fail(EINVAL);
	if (sv_ctx(context)->dev->caps.profile != SV_PROFILE_MLX5)
		return sv_fa_fail(EOPNOTSUPP);
	if (actions_sz < VSTEER_PRM_MOD_ACTION_BYTES)
		return sv_fa_fail(EINVAL);
	/* The kernel copies the buffer in. */
	if (actions == NULL)
		return sv_fa_fail(EFAULT);
	if (actions_sz % VSTEER_PRM_MOD_ACTION_BYTES != 0)
		return sv_fa_fail(EINVAL);
	switch (ft_type) {
	case MLX5DV_FLOW_TABLE_TYPE_NIC_RX:
	case MLX5DV_FLOW_TABLE_TYPE_NIC_TX:
		break;
	case MLX5DV_FLOW_TABLE_TYPE_FDB:
	case MLX5DV_FLOW_TABLE_TYPE_RDMA_RX:
	case MLX5DV_FLOW_TABLE_TYPE_RDMA_TX:
		return sv_fa_fail(EOPNOTSUPP);
	default:
		return sv_fa_fail(EINVAL);
	}
	n = actions_sz / VSTEER_PRM_MOD_ACTION_BYTES;
	/* num_actions is a u8 from here on (mlx5_ib_create_modify_header()). */
	if ((n & 0xff) > sv_ctx(context)->dev->caps.max_modify_actions)
		return sv_fa_fail(EOPNOTSUPP);
	if ((n & 0xff) == 0)
		return sv_fa_fail(EINVAL);
	n &= 0xff;
	fa = sv_fa_new(context, SV_FA_MODIFY, (uint8_t)ft_type,
		       n * sizeof(*cmds));
	if (fa == NULL)
		return sv_fa_fail(ENOMEM);
	cmds = (struct sv_mod_cmd *)(void *)fa->buf;
	for (i = 0; i < n; i++) {
		unsigned int f, p;
		uint64_t raw;

		/* The list is read as the kernel copies it, byte by byte:
		 * libmlx5 does not ask for it to be aligned. */
		memcpy(&raw, (const uint8_t *)actions + i * sizeof(raw),
		       sizeof(raw));
		rc = sv_mod_decode(raw, &cmds[i]);
		if (rc != 0)
			goto fail;
		/* One L3 family and one L4 protocol per list. */
		f = sv_mod_field_family(cmds[i].field);
		p = sv_mod_field_l4(cmds[i].field);
		if ((f != 0 && fam != 0 && f != fam) ||
		    (p != 0 && l4 != 0 && p != l4)) {
			rc = EINVAL;
			goto fail;
		}
		fam = f != 0 ? f : fam;
		l4 = p != 0 ? p : l4;
	}
	fa->n = (uint32_t)n;
	return &fa->action;
fail:
	sv_destroy_flow_action(&fa->action);
	return sv_fa_fail(rc);
}

struct ibv_flow_action *
sv_mlx5dv_create_flow_action_packet_reformat(
	struct ibv_context *context, size_t data_sz, void *data,
	enum mlx5dv_flow_action_packet_reformat_type reformat_type,
	enum mlx5dv_flow_table_type ft_type)
{
	struct sv_flow_action *fa;
	uint8_t kind;
	size_t keep;

	if (context == NULL)
		return sv_fa_fail(EINVAL);
	if (sv_ctx(context)->dev->caps.profile != SV_PROFILE_MLX5)
		return sv_fa_fail(EOPNOTSUPP);
	if ((data == NULL) != (data_sz == 0))
		return sv_fa_fail(EINVAL);
	switch (reformat_type) {
	case MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TUNNEL_TO_L2:
		kind = SV_REFORMAT_DECAP_L2;
		break;
	case MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L3_TUNNEL_TO_L2:
		kind = SV_REFORMAT_DECAP_L3;
		break;
	case MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L2_TUNNEL:
		kind = SV_REFORMAT_ENCAP_L2;
		break;
	case MLX5DV_FLOW_ACTION_PACKET_REFORMAT_TYPE_L2_TO_L3_TUNNEL:
		kind = SV_REFORMAT_ENCAP_L3;
		break;
	default:
		return sv_fa_fail(EOPNOTSUPP);
	}
	if (ft_type !=
	    ((kind == SV_REFORMAT_DECAP_L2 || kind == SV_REFORMAT_DECAP_L3) ?
		     MLX5DV_FLOW_TABLE_TYPE_NIC_RX :
		     MLX5DV_FLOW_TABLE_TYPE_NIC_TX))
		return sv_fa_fail(EOPNOTSUPP);
	keep = 0;
	if (kind != SV_REFORMAT_DECAP_L2) {
		if (data == NULL)
			return sv_fa_fail(ENOENT);
		if (data_sz > sv_ctx(context)->dev->caps.max_encap_size)
			return sv_fa_fail(EINVAL);
		if (kind == SV_REFORMAT_DECAP_L3 && data_sz != 14 &&
		    data_sz != 18)
			return sv_fa_fail(EINVAL);
		keep = data_sz;
	}
	fa = sv_fa_new(context, SV_FA_REFORMAT, (uint8_t)ft_type, keep);
	if (fa == NULL)
		return sv_fa_fail(ENOMEM);
	fa->reformat = kind;
	fa->n = (uint32_t)keep;
	if (keep != 0)
		memcpy(fa->buf, data, keep);
	return &fa->action;
}

int
sv_destroy_flow_action(struct ibv_flow_action *action)
{
	struct sv_flow_action *fa = sv_flow_action_of(action);

	if (fa == NULL)
		return EINVAL;
	if (atomic_load(&fa->usecnt) > 0)
		return EBUSY;
	atomic_fetch_sub(&fa->ctx->nobjs, 1);
	fa->magic = 0;
	free(fa);
	return 0;
}
