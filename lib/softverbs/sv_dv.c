/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The libmlx5 entry points the driver uses: mlx5dv matchers and flows
 * (mlx5dv_create_flow_matcher(3), mlx5dv_create_flow(3)) and DevX flow
 * counters (mlx5dv_devx_obj_create(3)). Only devices with the mlx5
 * profile have them; on others every call fails with EOPNOTSUPP, as
 * libmlx5 does for a device that is not its own.
 *
 * What is checked, and where rdma-core 44 and the mlx5 kernel check it:
 *   open     mlx5dv_open_device(): not an mlx5 device EOPNOTSUPP; a
 *            comp_mask or a flag other than MLX5DV_CONTEXT_FLAGS_DEVX
 *            EINVAL (mlx5_alloc_context()); DEVX on a device without
 *            DevX EINVAL (the kernel's mlx5_ib_devx_create(): "0 means
 *            not supported"). Without the flag libmlx5 asks for DevX
 *            anyway and falls back, so only the device decides.
 *   matcher  type NORMAL only, else EOPNOTSUPP; comp_mask within
 *            MLX5DV_FLOW_MATCHER_MASK_FT_TYPE, else EOPNOTSUPP (libmlx5);
 *            ft_type together with flags, flags other than EGRESS, an
 *            unknown ft_type: EINVAL; FDB / RDMA tables: EOPNOTSUPP (no
 *            such table here); the mask goes through sv_fte_compile()
 *            (EINVAL bad size or criteria, EOPNOTSUPP unmatchable fields)
 *   flow     DEST_IBV_QP, DEST_DEVX, DROP and DEFAULT_MISS are mutually
 *            exclusive, a second COUNTERS_DEVX is refused (EOPNOTSUPP);
 *            a second TAG is EINVAL; IBV_COUNTER is not handled by
 *            rdma-core 44 (EOPNOTSUPP), nor is DEST_DEVX here (no TIR
 *            objects); IBV_FLOW_ACTION: a 9th is EOPNOTSUPP (libmlx5), a
 *            3rd EINVAL (the kernel), see sv_dv_flow_actions(); priority
 *            above the device's highest is ENOMEM and is found here, at
 *            rule creation (raw_fs_rule_add); a value with bits outside
 *            the matcher mask is EINVAL (mlx5 core check_valid_spec); a
 *            tag of 2^24 or more is EINVAL; an ingress rule needs a
 *            destination QP, DROP or DEFAULT_MISS (EINVAL); a matcher
 *            mask on a field the device lacks (MPLS over GRE / UDP
 *            without the flex parser profile, the IPv4 IHL) is EINVAL
 *            here, where the firmware first sees it (sv_dv_fields_ok())
 *   DevX     a context without a DevX uid exists only on a device
 *            without DevX, where the kernel registers no DevX method
 *            (devx_is_supported()) and the ioctl finds none:
 *            EPROTONOSUPPORT (ib_uverbs_cmd_verbs()). (On a DevX device
 *            such a context would get EINVAL from devx_get_uid(); libmlx5
 *            44 never makes one.) Matchers and flows need no DevX, a
 *            COUNTERS_DEVX action needs a DevX counter.
 *            ALLOC_FLOW_COUNTER through obj_create, QUERY_FLOW_COUNTER
 *            through obj_query; DEALLOC by obj_destroy, EBUSY while a flow
 *            counts in it. QUERY_HCA_CAP (NIC flow table page) through
 *            general_cmd. Commands of the wrong class for the entry point
 *            are EINVAL (the kernel's devx_is_obj_*_cmd checks: so
 *            general_cmd refuses QUERY_FLOW_COUNTER); opcodes softverbs
 *            does not model are EOPNOTSUPP.
 *
 * Rules join the port's table (sv_steer.c) as NORMAL rules at the matcher
 * priority, so verbs and mlx5dv rules interleave by priority as in the
 * kernel's BYPASS tables; a rule raw_fs_is_multicast() finds multicast goes
 * to the multicast table instead, as a verbs rule would. DEFAULT_MISS
 * traps the frame without delivering it (the kernel's own tables, which
 * would take it, do not exist here).
 */

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sv_internal.h"
#include "sv_pktedit.h"
#include "vsteer_prm.h"

/* Flow actions a rule takes: libmlx5 44 sends up to 8
 * (CREATE_FLOW_MAX_FLOW_ACTIONS_SUPPORTED), the kernel's method declares
 * the array with at most 2 (MLX5_IB_CREATE_FLOW_MAX_FLOW_ACTIONS). */
#define SV_DV_LIBMLX5_FLOW_ACTIONS 8
#define SV_DV_MAX_FLOW_ACTIONS 2

struct sv_dv_matcher {
	struct sv_context *ctx;
	uint16_t priority;
	uint32_t flags; /* IBV_FLOW_ATTR_FLAGS_EGRESS or 0 */
	uint8_t criteria;
	/* The mask as given, zero-extended to the full PRM size. */
	uint8_t mask[VSTEER_PRM_MATCH_PARAM_BYTES];
	struct sv_key kmask;
	atomic_int usecnt; /* flows: destroy -> EBUSY */
};

/* A DevX flow counter: an sv_counters, so steering counts in it. */
struct sv_dv_counter {
	struct sv_counters cnt;
	uint32_t id;
};

/* Its rule's QP (NULL: none) and flow actions hold a use count. */
struct sv_dv_flow {
	struct ibv_flow flow;
	struct sv_dv_matcher *matcher;
	struct sv_dv_counter *counter; /* NULL: none */
	struct sv_flow_action *fa[SV_DV_MAX_FLOW_ACTIONS];
	struct sv_edit *edit; /* what they do, NULL: nothing */
	struct sv_rule rule;  /* last: its value words follow */
};

_Static_assert(offsetof(struct sv_dv_flow, rule) + sizeof(struct sv_rule) ==
		       sizeof(struct sv_dv_flow),
	       "the rule ends the flow");

/* Counter ids are device-wide in hardware; one space per process here. */
static atomic_uint sv_dv_counter_ids;
static atomic_uint sv_dv_flow_handles;

static inline struct sv_dv_matcher *
sv_dv_matcher(struct mlx5dv_flow_matcher *m)
{
	return (struct sv_dv_matcher *)(void *)m;
}

static inline struct sv_dv_counter *
sv_dv_counter(struct mlx5dv_devx_obj *obj)
{
	return (struct sv_dv_counter *)(void *)obj;
}

static bool
sv_dv_ctx_ok(struct ibv_context *context)
{
	return sv_ctx(context)->dev->caps.profile == SV_PROFILE_MLX5;
}

bool
sv_mlx5dv_is_supported(struct ibv_device *device)
{
	if (device == NULL)
		return false;
	return sv_container_of(device, struct sv_device, ibdev)->caps.profile ==
	       SV_PROFILE_MLX5;
}

struct ibv_context *
sv_mlx5dv_open_device(struct ibv_device *device,
		      struct mlx5dv_context_attr *attr)
{
	const struct sv_device *dev;
	bool devx;

	if (!sv_mlx5dv_is_supported(device)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	dev = sv_container_of(device, struct sv_device, ibdev);
	devx = sv_dev_has(dev, SV_DEV_NO_DEVX);
	if (attr != NULL) {
		if (attr->comp_mask != 0 ||
		    (attr->flags & ~(uint32_t)MLX5DV_CONTEXT_FLAGS_DEVX)) {
			errno = EINVAL;
			return NULL;
		}
		if ((attr->flags & MLX5DV_CONTEXT_FLAGS_DEVX) && !devx) {
			errno = EINVAL;
			return NULL;
		}
	}
	return sv_open(device, devx);
}

/* 0 when the context may issue DevX commands (see the file comment). */
static int
sv_dv_devx_ok(struct ibv_context *context)
{
	return sv_ctx(context)->devx ? 0 : EPROTONOSUPPORT;
}

/* raw_fs_is_multicast(): an outer dmac whose value and mask both have the
 * group bit, or an outer IPv4 destination whose value and mask are both in
 * 224.0.0.0/4 (sic: a /32 mask is not), puts the rule in the multicast
 * table. value is the rule's buffer, len its bytes. */
static bool
sv_dv_is_multicast(const struct sv_dv_matcher *m, const void *value, size_t len)
{
	uint8_t v[VSTEER_PRM_SECT_BYTES];
	const uint8_t *mk = m->mask;
	uint32_t ipv, ipm;

	if (!(m->criteria & (1u << VSTEER_PRM_CRIT_OUTER_BIT)))
		return false;
	memset(v, 0, sizeof(v));
	memcpy(v, value, len < sizeof(v) ? len : sizeof(v));
	if ((vsteer_prm_cbytes(v, VSTEER_PRM_L24_DMAC_OFF)[0] & 1) &&
	    (vsteer_prm_cbytes(mk, VSTEER_PRM_L24_DMAC_OFF)[0] & 1))
		return true;
	ipv = VSTEER_PRM_GET(v, VSTEER_PRM_OUTER, VSTEER_PRM_L24_DST_IPV4);
	ipm = VSTEER_PRM_GET(mk, VSTEER_PRM_OUTER, VSTEER_PRM_L24_DST_IPV4);
	return (ipv & 0xf0000000) == 0xe0000000 &&
	       (ipm & 0xf0000000) == 0xe0000000;
}

int
sv_mlx5dv_query_device(struct ibv_context *ctx,
		       struct mlx5dv_context *attrs_out)
{
	const struct sv_device *dev;
	uint64_t out = 0;

	if (ctx == NULL || attrs_out == NULL)
		return EINVAL;
	if (!sv_dv_ctx_ok(ctx))
		return EOPNOTSUPP;
	dev = sv_ctx(ctx)->dev;
	/* No direct (ring) access: no flags. Of the optional fields asked
	 * for in comp_mask, libmlx5 44 (_mlx5dv_query_device()) fills those
	 * it has and says which in comp_mask; softverbs has the tunnel
	 * offloads, as mlx5_ib_query_device() (Linux 6.1) reports them from
	 * the Ethernet capabilities tunnel_stateless_*. */
	attrs_out->version = 0;
	attrs_out->flags = 0;
	if (attrs_out->comp_mask & MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS) {
		attrs_out->tunnel_offloads_caps = 0;
		if (sv_dev_has(dev, SV_DEV_NO_TUNNEL_OFFLOADS))
			attrs_out->tunnel_offloads_caps |=
				MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_VXLAN |
				MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GRE |
				MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_GENEVE;
		/* tunnel_stateless_mpls_over_gre / _udp: the flex parser
		 * profile that parses them. */
		if (dev->caps.mpls_over_l4)
			attrs_out->tunnel_offloads_caps |=
				MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_GRE |
				MLX5DV_RAW_PACKET_CAP_TUNNELED_OFFLOAD_CW_MPLS_OVER_UDP;
		out |= MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS;
	}
	attrs_out->comp_mask = out;
	return 0;
}

/*
 * Match fields the device has no parser or match field for: mlx5_ib
 * stores a matcher's mask as it is (the flow matcher's create handler),
 * and the firmware sees it only when the first rule under it makes its
 * flow group (fs_core's create_auto_flow_group(), CREATE_FLOW_GROUP),
 * which a mask the device cannot match fails (a bad-parameter status:
 * EINVAL, the mlx5 command interface's status-to-errno mapping). So
 * mlx5dv_create_flow() is where it shows, for every rule of the matcher.
 */
static bool
sv_dv_fields_ok(const struct sv_dv_matcher *m, const struct sv_caps *caps)
{
	const uint8_t *mk = m->mask;

	if (!caps->mpls_over_l4 &&
	    (m->criteria & (1u << VSTEER_PRM_CRIT_MISC2_BIT)) &&
	    (vsteer_prm_get(mk,
			    VSTEER_PRM_MISC2 +
				    VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_GRE_OFF,
			    VSTEER_PRM_MISC2_MPLS_LEN) ||
	     vsteer_prm_get(mk,
			    VSTEER_PRM_MISC2 +
				    VSTEER_PRM_MISC2_OUTER_FIRST_MPLS_OVER_UDP_OFF,
			    VSTEER_PRM_MISC2_MPLS_LEN)))
		return false;
	if (!caps->ipv4_ihl &&
	    (((m->criteria & (1u << VSTEER_PRM_CRIT_OUTER_BIT)) &&
	      VSTEER_PRM_GET(mk, VSTEER_PRM_OUTER, VSTEER_PRM_L24_IPV4_IHL)) ||
	     ((m->criteria & (1u << VSTEER_PRM_CRIT_INNER_BIT)) &&
	      VSTEER_PRM_GET(mk, VSTEER_PRM_INNER, VSTEER_PRM_L24_IPV4_IHL))))
		return false;
	return true;
}

struct mlx5dv_flow_matcher *
sv_mlx5dv_create_flow_matcher(struct ibv_context *context,
			      struct mlx5dv_flow_matcher_attr *attr)
{
	struct mlx5dv_flow_match_parameters *mp;
	struct sv_dv_matcher *m;
	uint32_t flags;
	int rc;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (!sv_dv_ctx_ok(context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* libmlx5 first, then the kernel. */
	if (attr->type != IBV_FLOW_ATTR_NORMAL ||
	    (attr->comp_mask & ~(uint64_t)MLX5DV_FLOW_MATCHER_MASK_FT_TYPE)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	flags = attr->flags;
	if (flags & ~(uint32_t)IBV_FLOW_ATTR_FLAGS_EGRESS) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & MLX5DV_FLOW_MATCHER_MASK_FT_TYPE) {
		if (flags != 0) {
			errno = EINVAL;
			return NULL;
		}
		switch (attr->ft_type) {
		case MLX5DV_FLOW_TABLE_TYPE_NIC_RX:
			break;
		case MLX5DV_FLOW_TABLE_TYPE_NIC_TX:
			flags = IBV_FLOW_ATTR_FLAGS_EGRESS;
			break;
		case MLX5DV_FLOW_TABLE_TYPE_FDB:
		case MLX5DV_FLOW_TABLE_TYPE_RDMA_RX:
		case MLX5DV_FLOW_TABLE_TYPE_RDMA_TX:
			errno = EOPNOTSUPP;
			return NULL;
		default:
			errno = EINVAL;
			return NULL;
		}
	}
	mp = attr->match_mask;
	if (mp == NULL) {
		errno = EINVAL;
		return NULL;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	rc = sv_fte_compile(&sv_ctx(context)->dev->caps,
			    attr->match_criteria_enable, mp->match_buf,
			    mp->match_sz, NULL, &m->kmask);
	if (rc != 0) {
		free(m);
		errno = rc;
		return NULL;
	}
	memcpy(m->mask, mp->match_buf, mp->match_sz);
	m->ctx = sv_ctx(context);
	m->priority = attr->priority;
	m->flags = flags;
	m->criteria = attr->match_criteria_enable;
	atomic_init(&m->usecnt, 0);
	atomic_fetch_add(&m->ctx->nobjs, 1);
	return (struct mlx5dv_flow_matcher *)(void *)m;
}

int
sv_mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher)
{
	struct sv_dv_matcher *m;

	if (matcher == NULL)
		return EINVAL;
	m = sv_dv_matcher(matcher);
	if (atomic_load(&m->usecnt) > 0)
		return EBUSY;
	atomic_fetch_sub(&m->ctx->nobjs, 1);
	free(m);
	return 0;
}

/* What the action list asks for, checked in libmlx5's order. */
struct sv_dv_acts {
	struct sv_qp *qp;
	bool dest; /* a destination-kind action seen */
	bool drop;
	bool miss;
	bool has_tag;
	uint32_t tag;
	struct sv_dv_counter *counter;
	unsigned int n_fa;
	struct ibv_flow_action *fa[SV_DV_LIBMLX5_FLOW_ACTIONS];
};

static int
sv_dv_parse_actions(size_t n, const struct mlx5dv_flow_action_attr *a,
		    struct sv_dv_acts *out)
{
	size_t i;

	memset(out, 0, sizeof(*out));
	if (n > 0 && a == NULL)
		return EINVAL;
	for (i = 0; i < n; i++) {
		switch (a[i].type) {
		case MLX5DV_FLOW_ACTION_DEST_IBV_QP:
		case MLX5DV_FLOW_ACTION_DEST_DEVX:
		case MLX5DV_FLOW_ACTION_DROP:
		case MLX5DV_FLOW_ACTION_DEFAULT_MISS:
			if (out->dest)
				return EOPNOTSUPP;
			out->dest = true;
			if (a[i].type == MLX5DV_FLOW_ACTION_DEST_DEVX)
				return EOPNOTSUPP;
			if (a[i].type == MLX5DV_FLOW_ACTION_DROP)
				out->drop = true;
			else if (a[i].type == MLX5DV_FLOW_ACTION_DEFAULT_MISS)
				out->miss = true;
			else if (a[i].qp == NULL)
				return EINVAL;
			else
				out->qp = sv_qp(a[i].qp);
			break;
		case MLX5DV_FLOW_ACTION_TAG:
			if (out->has_tag)
				return EINVAL;
			out->has_tag = true;
			out->tag = a[i].tag_value;
			break;
		case MLX5DV_FLOW_ACTION_COUNTERS_DEVX:
			if (out->counter != NULL)
				return EOPNOTSUPP;
			if (a[i].obj == NULL)
				return EINVAL;
			out->counter = sv_dv_counter(a[i].obj);
			break;
		case MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION:
			if (out->n_fa == SV_DV_LIBMLX5_FLOW_ACTIONS)
				return EOPNOTSUPP;
			if (a[i].action == NULL)
				return EINVAL;
			out->fa[out->n_fa++] = a[i].action;
			break;
		case MLX5DV_FLOW_ACTION_IBV_COUNTER:
		default:
			return EOPNOTSUPP;
		}
	}
	return 0;
}

/*
 * The flow actions of a rule (sv_flow_action.c), into fa[] (modify header
 * first) and what they do, *edit (NULL: none). The uverbs array takes 1
 * to 2 (uverbs_process_idrs_array(): EINVAL), objects of this device
 * only (an id the context does not hold: EINVAL); parse_flow_flow_action()
 * takes one action of each kind, header modify, decap (L2_TUNNEL_TO_L2)
 * and packet reformat (the other types), EINVAL for a second. What the
 * kernel passes on and the firmware refuses (EINVAL when it makes the
 * FTE): an action made for another table than the matcher's (the FTE's
 * modify header or reformat context must be of its table type; DECAP on
 * the transmit table, whose action records none), and a decap with an L3
 * decap in one FTE (nothing says the device does both; DPDK's mlx5 never
 * asks).
 */
static int
sv_dv_flow_actions(const struct sv_dv_acts *acts, const struct sv_dv_matcher *m,
		   struct sv_flow_action *fa[SV_DV_MAX_FLOW_ACTIONS],
		   struct sv_edit **edit)
{
	struct sv_flow_action *mod = NULL, *decap = NULL, *reformat = NULL;
	uint8_t table = (m->flags & IBV_FLOW_ATTR_FLAGS_EGRESS) ?
				MLX5DV_FLOW_TABLE_TYPE_NIC_TX :
				MLX5DV_FLOW_TABLE_TYPE_NIC_RX;
	struct sv_flow_action **slot;
	struct sv_edit *e;
	unsigned int i;

	*edit = NULL;
	fa[0] = fa[1] = NULL;
	if (acts->n_fa == 0)
		return 0;
	if (acts->n_fa > SV_DV_MAX_FLOW_ACTIONS)
		return EINVAL;
	for (i = 0; i < acts->n_fa; i++) {
		struct sv_flow_action *a = sv_flow_action_of(acts->fa[i]);

		if (a == NULL || a->ctx->dev != m->ctx->dev)
			return EINVAL;
		if (a->kind == SV_FA_MODIFY)
			slot = &mod;
		else if (a->reformat == SV_REFORMAT_DECAP_L2)
			slot = &decap;
		else
			slot = &reformat;
		if (*slot != NULL)
			return EINVAL;
		*slot = a;
	}
	for (i = 0; i < acts->n_fa; i++)
		if (sv_flow_action_of(acts->fa[i])->ft_type != table)
			return EINVAL;
	if (decap != NULL && reformat != NULL)
		return EINVAL;
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		return ENOMEM;
	if (reformat == NULL)
		reformat = decap;
	if (mod != NULL) {
		e->mod = (const struct sv_mod_cmd *)(const void *)mod->buf;
		e->n_mod = mod->n;
		e->mod_obj = mod;
	}
	if (reformat != NULL) {
		e->reformat = reformat->reformat;
		e->data = reformat->buf;
		e->data_len = reformat->n;
		e->reformat_obj = reformat;
	}
	fa[0] = mod != NULL ? mod : reformat;
	fa[1] = mod != NULL ? reformat : NULL;
	*edit = e;
	return 0;
}

/* True when v has no bit that mask lacks. */
static bool
sv_dv_within_mask(const uint8_t *v, const uint8_t *mask, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (v[i] & ~mask[i])
			return false;
	return true;
}

static struct ibv_flow *
sv_dv_fail(int rc)
{
	errno = rc;
	return NULL;
}

struct ibv_flow *
sv_mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
		      struct mlx5dv_flow_match_parameters *match_value,
		      size_t num_actions,
		      struct mlx5dv_flow_action_attr actions_attr[])
{
	struct sv_dv_matcher *m;
	struct sv_device *dev;
	struct sv_dv_flow *flow;
	struct sv_flow_action *fa[SV_DV_MAX_FLOW_ACTIONS];
	struct sv_edit *edit = NULL;
	struct sv_dv_acts acts;
	struct sv_key value;
	struct sv_rule tmpl, *r;
	unsigned int i;
	bool egress;
	int rc;

	if (matcher == NULL || match_value == NULL)
		return sv_dv_fail(EINVAL);
	m = sv_dv_matcher(matcher);
	dev = m->ctx->dev;
	egress = m->flags & IBV_FLOW_ATTR_FLAGS_EGRESS;
	rc = sv_dv_parse_actions(num_actions, actions_attr, &acts);
	if (rc != 0)
		return sv_dv_fail(rc);
	/* The uverbs attribute array is checked before the handler runs. */
	if (acts.n_fa > SV_DV_MAX_FLOW_ACTIONS)
		return sv_dv_fail(EINVAL);
	/* The kernel finds no flow table for the priority. */
	if (m->priority > dev->caps.max_priority)
		return sv_dv_fail(ENOMEM);
	/* A value bit the matcher's mask (zero-extended) lacks: mlx5 core's
	 * check_valid_spec(), before anything looks at the fields. */
	if (match_value->match_sz > sizeof(m->mask))
		return sv_dv_fail(EINVAL);
	if (!sv_dv_within_mask((const uint8_t *)match_value->match_buf, m->mask,
			       match_value->match_sz))
		return sv_dv_fail(EINVAL);
	rc = sv_fte_compile(&dev->caps, m->criteria, match_value->match_buf,
			    match_value->match_sz, &m->kmask, &value);
	if (rc != 0)
		return sv_dv_fail(rc);
	if (!sv_dv_fields_ok(m, &dev->caps))
		return sv_dv_fail(EINVAL);
	/* A value whose fields land outside the compiled mask was read in
	 * another layout than the mask (IPv4 vs IPv6 addresses). */
	if (!sv_dv_within_mask((const uint8_t *)&value,
			       (const uint8_t *)&m->kmask, sizeof(value)))
		return sv_dv_fail(EOPNOTSUPP);
	if (acts.has_tag && (acts.tag >= (UINT32_C(1) << 24) || egress))
		return sv_dv_fail(EINVAL);
	if (egress && acts.qp != NULL)
		return sv_dv_fail(EINVAL);
	if (!egress && !acts.dest)
		return sv_dv_fail(EINVAL);
	/* Frames reach a QP through its indirection table (sv_steer.c). */
	if (acts.qp != NULL &&
	    (acts.qp->ctx->dev != dev || acts.qp->kind != SV_QP_HASH ||
	     acts.qp->ind == NULL))
		return sv_dv_fail(EINVAL);
	if (acts.counter != NULL && acts.counter->cnt.ctx->dev != dev)
		return sv_dv_fail(EINVAL);
	rc = sv_dv_flow_actions(&acts, m, fa, &edit);
	if (rc != 0)
		return sv_dv_fail(rc);

	tmpl = (struct sv_rule){
		.act = {
			.drop = acts.drop,
			.has_tag = acts.has_tag,
			.tag = acts.tag,
			.counters = acts.counter ? &acts.counter->cnt : NULL,
			.edit = edit,
		},
		.qp = acts.qp,
		.priority = m->priority,
		.type = IBV_FLOW_ATTR_NORMAL,
		.flags = (uint8_t)m->flags,
		.mcast = sv_dv_is_multicast(m, match_value->match_buf,
					    match_value->match_sz),
	};
	if (acts.counter != NULL)
		atomic_fetch_add(&acts.counter->cnt.bound, 1);
	r = sv_steer_add(&dev->port, &tmpl, &m->kmask, &value,
			 offsetof(struct sv_dv_flow, rule));
	if (r == NULL) {
		rc = errno;
		if (acts.counter != NULL)
			sv_counters_unbind(&acts.counter->cnt);
		free(edit);
		return sv_dv_fail(rc);
	}
	flow = sv_container_of(r, struct sv_dv_flow, rule);
	flow->matcher = m;
	flow->counter = acts.counter;
	flow->edit = edit;
	for (i = 0; i < SV_DV_MAX_FLOW_ACTIONS; i++) {
		flow->fa[i] = fa[i];
		if (fa[i] != NULL)
			atomic_fetch_add(&fa[i]->usecnt, 1);
	}
	if (acts.qp != NULL)
		atomic_fetch_add(&acts.qp->usecnt, 1);
	atomic_fetch_add(&m->usecnt, 1);
	atomic_fetch_add(&m->ctx->nobjs, 1);
	flow->flow.comp_mask = 0;
	flow->flow.context = &m->ctx->vctx.context;
	flow->flow.handle =
		SV_FLOW_HANDLE_DV |
		(atomic_fetch_add(&sv_dv_flow_handles, 1) & ~SV_FLOW_HANDLE_DV);
	return &flow->flow;
}

int
sv_dv_destroy_flow(struct ibv_flow *ibflow)
{
	struct sv_flow_action *fa[SV_DV_MAX_FLOW_ACTIONS];
	struct sv_dv_counter *counter;
	struct sv_dv_matcher *m;
	struct sv_dv_flow *flow;
	struct sv_edit *edit;
	struct sv_qp *qp;
	unsigned int i;

	if (ibflow == NULL || !(ibflow->handle & SV_FLOW_HANDLE_DV))
		return EINVAL;
	flow = sv_container_of(ibflow, struct sv_dv_flow, flow);
	m = flow->matcher;
	counter = flow->counter;
	qp = flow->rule.qp;
	edit = flow->edit;
	memcpy(fa, flow->fa, sizeof(fa));
	/* Frees the flow; no frame reads its edit after. */
	sv_steer_del(&m->ctx->dev->port, &flow->rule);
	free(edit);
	for (i = 0; i < SV_DV_MAX_FLOW_ACTIONS; i++)
		if (fa[i] != NULL)
			atomic_fetch_sub(&fa[i]->usecnt, 1);
	if (counter != NULL)
		sv_counters_unbind(&counter->cnt);
	if (qp != NULL)
		atomic_fetch_sub(&qp->usecnt, 1);
	atomic_fetch_sub(&m->usecnt, 1);
	atomic_fetch_sub(&m->ctx->nobjs, 1);
	return 0;
}

/* --- DevX --- */

static uint32_t
sv_dv_opcode(const void *in, size_t inlen)
{
	if (in == NULL || inlen < VSTEER_PRM_OUT_HDR_BYTES)
		return 0;
	return vsteer_prm_get(in, VSTEER_PRM_IN_OPCODE_OFF,
			      VSTEER_PRM_IN_OPCODE_LEN);
}

static bool
sv_dv_counter_opcode(uint32_t op)
{
	return op == VSTEER_PRM_CMD_ALLOC_FLOW_COUNTER ||
	       op == VSTEER_PRM_CMD_DEALLOC_FLOW_COUNTER ||
	       op == VSTEER_PRM_CMD_QUERY_FLOW_COUNTER;
}

/* Known but not of this entry point's class: EINVAL; unknown: not
 * modelled. */
static int
sv_dv_wrong_cmd(uint32_t op)
{
	return sv_dv_counter_opcode(op) ? EINVAL : EOPNOTSUPP;
}

static void
sv_dv_out_ok(void *out, size_t outlen)
{
	memset(out, 0, outlen);
	vsteer_prm_set(out, VSTEER_PRM_OUT_STATUS_OFF,
		       VSTEER_PRM_OUT_STATUS_LEN, VSTEER_PRM_STATUS_OK);
}

struct mlx5dv_devx_obj *
sv_mlx5dv_devx_obj_create(struct ibv_context *context, const void *in,
			  size_t inlen, void *out, size_t outlen)
{
	struct sv_dv_counter *c;
	uint32_t op;
	int rc;

	if (context == NULL || in == NULL || out == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (!sv_dv_ctx_ok(context)) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	/* devx_get_uid() comes before the command's class. */
	rc = sv_dv_devx_ok(context);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	op = sv_dv_opcode(in, inlen);
	if (op != VSTEER_PRM_CMD_ALLOC_FLOW_COUNTER) {
		errno = op == 0 ? EINVAL : sv_dv_wrong_cmd(op);
		return NULL;
	}
	if (inlen < VSTEER_PRM_ALLOC_FC_IN_BYTES ||
	    outlen < VSTEER_PRM_ALLOC_FC_OUT_BYTES) {
		errno = EINVAL;
		return NULL;
	}
	/* Bulk allocation hands out ranges of ids: not modelled. */
	if (vsteer_prm_get(in, VSTEER_PRM_ALLOC_FC_IN_BULK_OFF,
			   VSTEER_PRM_ALLOC_FC_IN_BULK_LEN) != 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->cnt.c.context = context;
	c->cnt.ctx = sv_ctx(context);
	atomic_init(&c->cnt.packets, 0);
	atomic_init(&c->cnt.bytes, 0);
	atomic_init(&c->cnt.bound, 0);
	pthread_mutex_init(&c->cnt.lock, NULL);
	c->id = atomic_fetch_add(&sv_dv_counter_ids, 1) + 1;
	atomic_fetch_add(&c->cnt.ctx->nobjs, 1);
	sv_dv_out_ok(out, outlen);
	vsteer_prm_set(out, VSTEER_PRM_ALLOC_FC_OUT_ID_OFF,
		       VSTEER_PRM_ALLOC_FC_OUT_ID_LEN, c->id);
	return (struct mlx5dv_devx_obj *)(void *)c;
}

static int
sv_dv_query_counter(struct sv_dv_counter *c, const void *in, size_t inlen,
		    void *out, size_t outlen)
{
	uint64_t packets, bytes;
	bool clear;

	if (inlen < VSTEER_PRM_QUERY_FC_IN_BYTES || out == NULL ||
	    outlen < VSTEER_PRM_QUERY_FC_OUT_BYTES)
		return EINVAL;
	/* The kernel checks that the command names the object. */
	if (vsteer_prm_get(in, VSTEER_PRM_QUERY_FC_IN_ID_OFF,
			   VSTEER_PRM_QUERY_FC_IN_ID_LEN) != c->id)
		return EINVAL;
	if (vsteer_prm_get(in, VSTEER_PRM_QUERY_FC_IN_DUMP_TO_MEMORY_OFF,
			   VSTEER_PRM_QUERY_FC_IN_DUMP_TO_MEMORY_LEN))
		return EOPNOTSUPP;
	if (vsteer_prm_get(in, VSTEER_PRM_QUERY_FC_IN_NUM_OF_COUNTERS_OFF,
			   VSTEER_PRM_QUERY_FC_IN_NUM_OF_COUNTERS_LEN) > 1)
		return EOPNOTSUPP;
	clear = vsteer_prm_get(in, VSTEER_PRM_QUERY_FC_IN_CLEAR_OFF,
			       VSTEER_PRM_QUERY_FC_IN_CLEAR_LEN);
	/* clear: read and reset, so no frame is counted twice or lost. */
	if (clear) {
		packets = atomic_exchange(&c->cnt.packets, 0);
		bytes = atomic_exchange(&c->cnt.bytes, 0);
	} else {
		packets = atomic_load(&c->cnt.packets);
		bytes = atomic_load(&c->cnt.bytes);
	}
	sv_dv_out_ok(out, outlen);
	vsteer_prm_set64(out,
			 VSTEER_PRM_QUERY_FC_OUT_STATS_OFF +
				 VSTEER_PRM_TRAFFIC_PACKETS_OFF,
			 packets);
	vsteer_prm_set64(out,
			 VSTEER_PRM_QUERY_FC_OUT_STATS_OFF +
				 VSTEER_PRM_TRAFFIC_OCTETS_OFF,
			 bytes);
	return 0;
}

int
sv_mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in,
			 size_t inlen, void *out, size_t outlen)
{
	uint32_t op;

	if (obj == NULL || in == NULL)
		return EINVAL;
	op = sv_dv_opcode(in, inlen);
	if (op != VSTEER_PRM_CMD_QUERY_FLOW_COUNTER)
		return op == 0 ? EINVAL : sv_dv_wrong_cmd(op);
	return sv_dv_query_counter(sv_dv_counter(obj), in, inlen, out, outlen);
}

int
sv_mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	struct sv_dv_counter *c;

	if (obj == NULL)
		return EINVAL;
	c = sv_dv_counter(obj);
	/* DEALLOC_FLOW_COUNTER while a rule still counts in it. */
	if (atomic_load(&c->cnt.bound) > 0)
		return EBUSY;
	atomic_fetch_sub(&c->cnt.ctx->nobjs, 1);
	pthread_mutex_destroy(&c->cnt.lock);
	free(c);
	return 0;
}

/* QUERY_HCA_CAP of the NIC flow table capabilities: the match fields
 * softverbs takes that some devices lack (the IPv4 IHL), the header
 * rewrite and encap limits, the rest zero. */
static int
sv_dv_query_hca_cap(const struct sv_device *dev, const void *in, size_t inlen,
		    void *out, size_t outlen)
{
	uint32_t op_mod, f2;

	if (inlen < VSTEER_PRM_QUERY_HCA_CAP_IN_BYTES || out == NULL ||
	    outlen < VSTEER_PRM_QUERY_HCA_CAP_OUT_BYTES)
		return EINVAL;
	op_mod = vsteer_prm_get(in, VSTEER_PRM_IN_OP_MOD_OFF,
				VSTEER_PRM_IN_OP_MOD_LEN);
	if ((op_mod & ~(uint32_t)VSTEER_PRM_HCA_CAP_OPMOD_GET_CUR) !=
	    VSTEER_PRM_HCA_CAP_OP_MOD_NIC_FLOW_TABLE)
		return EOPNOTSUPP;
	sv_dv_out_ok(out, outlen);
	f2 = VSTEER_PRM_QUERY_HCA_CAP_OUT_CAPABILITY_OFF +
	     VSTEER_PRM_FT_NIC_FIELD_SUPPORT_2_RX_OFF;
	/* What the root tables rewrite and push (sv_flow_action.c). */
	vsteer_prm_set(out,
		       VSTEER_PRM_QUERY_HCA_CAP_OUT_CAPABILITY_OFF +
			       VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_OFF,
		       VSTEER_PRM_FT_NIC_MAX_ENCAP_HEADER_SIZE_LEN,
		       dev->caps.max_encap_size);
	vsteer_prm_set(out,
		       VSTEER_PRM_QUERY_HCA_CAP_OUT_CAPABILITY_OFF +
			       VSTEER_PRM_FT_NIC_RX_PROPS_OFF +
			       VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_OFF,
		       VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_LEN,
		       dev->caps.max_modify_actions);
	vsteer_prm_set(out,
		       VSTEER_PRM_QUERY_HCA_CAP_OUT_CAPABILITY_OFF +
			       VSTEER_PRM_FT_NIC_TX_PROPS_OFF +
			       VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_OFF,
		       VSTEER_PRM_FT_PROP_MAX_MODIFY_HEADER_ACTIONS_LEN,
		       dev->caps.max_modify_actions);
	if (dev->caps.ipv4_ihl) {
		vsteer_prm_set(out,
			       f2 + VSTEER_PRM_FT_FIELDS_2_OUTER_IPV4_IHL_OFF,
			       VSTEER_PRM_FT_FIELDS_2_OUTER_IPV4_IHL_LEN, 1);
		vsteer_prm_set(out,
			       f2 + VSTEER_PRM_FT_FIELDS_2_INNER_IPV4_IHL_OFF,
			       VSTEER_PRM_FT_FIELDS_2_INNER_IPV4_IHL_LEN, 1);
	}
	return 0;
}

int
sv_mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in,
			   size_t inlen, void *out, size_t outlen)
{
	uint32_t op;
	int rc;

	if (context == NULL || in == NULL)
		return EINVAL;
	if (!sv_dv_ctx_ok(context))
		return EOPNOTSUPP;
	rc = sv_dv_devx_ok(context);
	if (rc != 0)
		return rc;
	op = sv_dv_opcode(in, inlen);
	if (op == 0)
		return EINVAL;
	if (op == VSTEER_PRM_CMD_QUERY_HCA_CAP)
		return sv_dv_query_hca_cap(sv_ctx(context)->dev, in, inlen, out,
					   outlen);
	/* Flow counter commands are object commands: the kernel refuses
	 * them here. No other general command is modelled. */
	return sv_dv_wrong_cmd(op);
}
