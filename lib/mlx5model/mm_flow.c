/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Flow steering through the kernel ABI: verbs flows
 * (IB_USER_VERBS_EX_CMD_CREATE_FLOW with its spec chain, Linux 6.1
 * ib_uverbs_ex_create_flow() and mlx5_ib_create_flow()), counters
 * objects (uverbs_std_types_counters.c, hw/mlx5/counters.c), and the
 * mlx5 flow matcher and flow methods (hw/mlx5/fs.c), and the mlx5 flow
 * actions (header modify and packet reformat, fs.c, destroyed through
 * uverbs_std_types_flow_action.c). The kernel's spec chain goes back into
 * the verbs layout softverbs' compiler reads; the rule tables, the spec
 * and PRM compilers, the actions' checks and what the actions do to the
 * frames are softverbs' (mlx5 profile, sv_flow_action.c, sv_pktedit.c).
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/mlx5dv.h>
#include <rdma/ib_user_ioctl_verbs.h>
#include <rdma/mlx5-abi.h>
#include <rdma/mlx5_user_ioctl_cmds.h>
#include <rdma/mlx5_user_ioctl_verbs.h>

#include "mm_internal.h"
#include "sv_pktedit.h"

/* ---- counters objects ---- */

/*
 * A counters object: softverbs' counters of packets (index 0) and bytes
 * (index 1), and the description the first flow gave, which stays
 * (mlx5_ib_flow_counters_set_data(): "counters data will be set only
 * once").
 */
struct mm_counters {
	struct ibv_counters *sv;
	struct mlx5_ib_flow_counters_desc desc[8];
	uint32_t ndesc;
	uint32_t max_index; /* cntrs_max_index: 0 until described */
	int flows;	    /* usecnt: flows counting in it */
};

#define MM_MAX_COUNTERS_NUM 8 /* MAX_COUNTERS_NUM */

static int
mm_counters_destroy(struct mm_uobj *u)
{
	struct mm_counters *c = u->priv;
	int rc;

	rc = sv_destroy_counters(c->sv);
	if (rc != 0)
		return -rc;
	free(c);
	u->priv = NULL;
	return 0;
}

static int
mm_m_counters_create(struct mm_bundle *b)
{
	struct mm_uobj *u = mm_attr_new(b, UVERBS_ATTR_CREATE_COUNTERS_HANDLE);
	struct ibv_counters_init_attr ia = { 0 };
	struct ibv_counter_attach_attr pa = { 0 };
	struct mm_counters *c;
	int rc;

	c = calloc(1, sizeof(*c));
	if (c == NULL)
		return -ENOMEM;
	c->sv = sv_create_counters(mm_sv(b->file), &ia);
	if (c->sv == NULL) {
		rc = -errno;
		free(c);
		return rc;
	}
	pa.counter_desc = IBV_COUNTER_PACKETS;
	pa.index = 0;
	rc = sv_attach_counters_point_flow(c->sv, &pa, NULL);
	if (rc == 0) {
		pa.counter_desc = IBV_COUNTER_BYTES;
		pa.index = 1;
		rc = sv_attach_counters_point_flow(c->sv, &pa, NULL);
	}
	if (rc != 0) {
		sv_destroy_counters(c->sv);
		free(c);
		return -rc;
	}
	u->priv = c;
	u->destroy = mm_counters_destroy;
	return 0;
}

static int
mm_m_counters_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(
		mm_attr_obj(b, UVERBS_ATTR_DESTROY_COUNTERS_HANDLE));
}

/* UVERBS_METHOD_COUNTERS_READ and mlx5_ib_read_counters(). */
static int
mm_m_counters_read(struct mm_bundle *b)
{
	struct mm_counters *c =
		mm_attr_obj(b, UVERBS_ATTR_READ_COUNTERS_HANDLE)->priv;
	struct ib_uverbs_attr *a = mm_attr(b, UVERBS_ATTR_READ_COUNTERS_BUFF);
	uint64_t flags, raw[2], *out;
	uint32_t n, i;
	int rc;

	/* Read only while a flow counts in it. */
	if (c->flows == 0)
		return MM_REFUSE(EINVAL,
				 "COUNTERS_READ: not bound to a flow (usecnt 0)");
	rc = mm_attr_flags(b, UVERBS_ATTR_READ_COUNTERS_FLAGS,
			   IB_UVERBS_READ_COUNTERS_PREFER_CACHED, &flags);
	if (rc != 0)
		return rc;
	n = a->len / sizeof(uint64_t);
	if (c->max_index > n)
		return MM_REFUSE(EINVAL, "mlx5_ib_read_counters: buffer size");
	rc = sv_read_counters(c->sv, raw, 2, 0);
	if (rc != 0)
		return -rc;
	out = calloc(n ? n : 1, sizeof(*out));
	if (out == NULL)
		return -ENOMEM;
	for (i = 0; i < c->ndesc; i++)
		out[c->desc[i].index] += raw[c->desc[i].description];
	rc = mm_attr_copy_out(b, UVERBS_ATTR_READ_COUNTERS_BUFF, out,
			      n * sizeof(uint64_t));
	free(out);
	return rc;
}

/* mlx5_ib_flow_counters_set_data(): the description from the driver
 * data, once. */
static int
mm_counters_bind(struct mm_counters *c, const struct mlx5_ib_create_flow *uc)
{
	const struct mlx5_ib_flow_counters_desc *d;
	uint32_t i, max = 0, n;

	if (uc == NULL || uc->ncounters_data == 0) {
		/* counters not bound yet, must have udata passed */
		if (c->max_index == 0)
			return MM_REFUSE(EINVAL,
					 "flow counters: no description");
		return 0;
	}
	n = uc->data[0].ncounters;
	if (n > MM_MAX_COUNTERS_NUM)
		return MM_REFUSE(EINVAL, "flow counters: too many");
	/* counters already bound to at least one flow */
	if (c->max_index != 0)
		return MM_REFUSE(EINVAL,
				 "flow counters: already described by a flow");
	d = (const struct mlx5_ib_flow_counters_desc *)(uintptr_t)uc->data[0]
		    .counters_data;
	for (i = 0; i < n; i++) {
		if (d[i].description > IBV_COUNTER_BYTES)
			return MM_REFUSE(EINVAL,
					 "counters_set_description: description");
		if (max <= d[i].index)
			max = d[i].index + 1;
	}
	memcpy(c->desc, d, n * sizeof(*d));
	c->ndesc = n;
	c->max_index = max;
	return 0;
}

/* mlx5_ib_counters_clear_description(): when the last flow using the
 * object goes (or the first fails), its description goes with it; the
 * next flow describes it again, as libmlx5 does when no flow of its own
 * holds it (mlx5_create_flow(): "if (!mflow->mcounters->refcount)"). The
 * values stay: the hardware counter is the object's. */
static void
mm_counters_unbind(struct mm_counters *c)
{
	if (c->flows != 0)
		return;
	c->ndesc = 0;
	c->max_index = 0;
}

/* ---- verbs flows ---- */

/* Flow actions one mlx5 flow takes (MLX5_IB_CREATE_FLOW_MAX_FLOW_ACTIONS:
 * the method's array attribute holds 1 or 2). */
#define MM_FLOW_ACTIONS 2

struct mm_flow {
	struct ibv_flow *sv;
	struct mm_uobj *qp;	  /* holds a use */
	struct mm_uobj *counters; /* a counters object, or NULL */
	struct mm_uobj *devx;	  /* a DevX counter, or NULL */
	struct mm_uobj *matcher;  /* an mlx5 flow's matcher, or NULL */
	struct mm_uobj *actions[MM_FLOW_ACTIONS]; /* flow actions, or NULL */
};

static int
mm_flow_destroy(struct mm_uobj *u)
{
	struct mm_flow *fl = u->priv;
	struct mm_dev *dev = u->file->dev;
	unsigned int i;
	int rc;

	mm_engine_lock(dev);
	rc = sv_destroy_flow(fl->sv);
	mm_engine_unlock(dev);
	if (rc != 0)
		return -rc;
	if (fl->qp != NULL)
		fl->qp->usecnt--;
	if (fl->counters != NULL) {
		fl->counters->usecnt--;
		((struct mm_counters *)fl->counters->priv)->flows--;
		mm_counters_unbind(fl->counters->priv);
	}
	if (fl->devx != NULL)
		fl->devx->usecnt--;
	if (fl->matcher != NULL)
		fl->matcher->usecnt--;
	for (i = 0; i < MM_FLOW_ACTIONS; i++)
		if (fl->actions[i] != NULL)
			fl->actions[i]->usecnt--;
	free(fl);
	u->priv = NULL;
	return 0;
}

/*
 * The kernel's filter specs: their type, the size the kernel knows of
 * the filter (offsetof(..., real_sz) in ib_verbs.h), and the verbs spec
 * softverbs reads (IPv4 always in its extended form, as the kernel
 * keeps one IPv4 spec).
 */
struct mm_spec_map {
	uint32_t ktype;
	uint32_t vtype;
	uint16_t real_sz;
	uint16_t vsize, voff, moff, vfilter;
};

#define MM_SPEC(k, v, real, T, fld)                              \
	{                                                        \
		(k), (v), (real), sizeof(T), offsetof(T, val),   \
			offsetof(T, mask), sizeof(((T *)0)->fld) \
	}

static const struct mm_spec_map mm_specs[] = {
	MM_SPEC(IBV_FLOW_SPEC_ETH, IBV_FLOW_SPEC_ETH, 16,
		struct ibv_flow_spec_eth, val),
	MM_SPEC(IBV_FLOW_SPEC_IPV4, IBV_FLOW_SPEC_IPV4_EXT, 12,
		struct ibv_flow_spec_ipv4_ext, val),
	MM_SPEC(IBV_FLOW_SPEC_IPV6, IBV_FLOW_SPEC_IPV6, 39,
		struct ibv_flow_spec_ipv6, val),
	MM_SPEC(IBV_FLOW_SPEC_TCP, IBV_FLOW_SPEC_TCP, 4,
		struct ibv_flow_spec_tcp_udp, val),
	MM_SPEC(IBV_FLOW_SPEC_UDP, IBV_FLOW_SPEC_UDP, 4,
		struct ibv_flow_spec_tcp_udp, val),
	MM_SPEC(IBV_FLOW_SPEC_VXLAN_TUNNEL, IBV_FLOW_SPEC_VXLAN_TUNNEL, 4,
		struct ibv_flow_spec_tunnel, val),
	MM_SPEC(IBV_FLOW_SPEC_ESP, IBV_FLOW_SPEC_ESP, 8,
		struct ibv_flow_spec_esp, val),
	MM_SPEC(IBV_FLOW_SPEC_GRE, IBV_FLOW_SPEC_GRE, 8,
		struct ibv_flow_spec_gre, val),
	MM_SPEC(IBV_FLOW_SPEC_MPLS, IBV_FLOW_SPEC_MPLS, 4,
		struct ibv_flow_spec_mpls, val),
};

#define MM_FLOW_SPEC_LAYERS 10 /* IB_FLOW_SPEC_SUPPORT_LAYERS */
/* sizeof(struct ib_uverbs_flow_spec), the kernel's union of the specs:
 * its largest is the IPv6 one. */
#define MM_UVERBS_FLOW_SPEC_SIZE sizeof(struct ib_uverbs_flow_spec_ipv6)

/* One filter spec: kern_spec_to_ib_spec_filter() and
 * ib_uverbs_kern_spec_to_ib_spec_filter(). Writes the verbs spec to out
 * (room enough) and returns its size, or a negative errno. */
static int
mm_filter_spec(const uint8_t *ks, uint16_t ksize, uint32_t type, uint8_t *out)
{
	const struct mm_spec_map *m = NULL;
	uint32_t base = type & ~(uint32_t)IBV_FLOW_SPEC_INNER;
	size_t fsz, actual, i;
	const uint8_t *val, *mask;

	if (ksize < sizeof(struct ib_uverbs_flow_spec_hdr))
		return MM_REFUSE(EINVAL, "flow spec: size");
	fsz = (ksize - sizeof(struct ib_uverbs_flow_spec_hdr)) / 2;
	/* User flow spec size must be aligned to 4 bytes. */
	if (fsz & 3)
		return MM_REFUSE(EINVAL, "flow spec: filter size alignment");
	if (type == (IBV_FLOW_SPEC_INNER | IBV_FLOW_SPEC_VXLAN_TUNNEL))
		return MM_REFUSE(EINVAL, "flow spec: inner VXLAN");
	for (i = 0; i < MM_ARRAY_SIZE(mm_specs); i++)
		if (mm_specs[i].ktype == base)
			m = &mm_specs[i];
	if (m == NULL)
		return MM_REFUSE(EINVAL, "flow spec: unknown type");
	val = ks + sizeof(struct ib_uverbs_flow_spec_hdr);
	mask = val + fsz;
	/* spec_filter_size(): bytes past what the kernel knows must be
	 * zero in the mask; nothing at all is a bad spec. */
	actual = fsz;
	if (fsz > m->real_sz) {
		for (i = m->real_sz; i < fsz; i++)
			if (mask[i] != 0)
				return MM_REFUSE(EINVAL,
						 "flow spec: unknown mask bits");
		actual = m->real_sz;
	}
	if (actual == 0)
		return MM_REFUSE(EINVAL, "flow spec: empty filter");
	if (actual > m->vfilter)
		actual = m->vfilter;
	memset(out, 0, m->vsize);
	memcpy(out, &(uint32_t){ m->vtype | (type & IBV_FLOW_SPEC_INNER) }, 4);
	memcpy(out + 4, &(uint16_t){ m->vsize }, 2);
	memcpy(out + m->voff, val, actual);
	memcpy(out + m->moff, mask, actual);
	if (base == IBV_FLOW_SPEC_IPV6) {
		const struct ibv_flow_spec_ipv6 *s = (const void *)out;

		if (__builtin_bswap32(s->val.flow_label) >= (1u << 20) ||
		    __builtin_bswap32(s->mask.flow_label) >= (1u << 20))
			return MM_REFUSE(EINVAL, "flow spec: IPv6 flow label");
	}
	if (base == IBV_FLOW_SPEC_VXLAN_TUNNEL) {
		const struct ibv_flow_spec_tunnel *s = (const void *)out;

		if (__builtin_bswap32(s->val.tunnel_id) >= (1u << 24) ||
		    __builtin_bswap32(s->mask.tunnel_id) >= (1u << 24))
			return MM_REFUSE(EINVAL, "flow spec: VNI");
	}
	return m->vsize;
}

static int
mm_w_ex_create_flow(struct mm_bundle *b)
{
	struct ib_uverbs_create_flow_resp resp = { 0 };
	struct ib_uverbs_create_flow cmd;
	const struct mlx5_ib_create_flow *uc = NULL;
	/* The driver data: the header and at most one counters entry. */
	uint64_t ucraw[(sizeof(struct mlx5_ib_create_flow) +
			sizeof(struct mlx5_ib_flow_counters_data) + 7) /
		       8];
	struct mlx5_ib_create_flow *ucbuf = (void *)ucraw;
	struct mm_uobj *qpu, *u, *cu = NULL;
	struct ibv_flow_attr *attr;
	struct mm_flow *fl;
	const uint8_t *ks;
	uint8_t *vs, *chain;
	size_t left;
	uint32_t i;
	int rc;

	if (b->core_inlen < sizeof(cmd))
		return -EINVAL;
	memcpy(&cmd, b->core_in, sizeof(cmd));
	/* ib_uverbs_ex_create_flow() */
	if (cmd.comp_mask)
		return MM_REFUSE(EINVAL, "create_flow: comp_mask");
	if (cmd.flow_attr.flags >=
	    (IBV_FLOW_ATTR_FLAGS_EGRESS << 1)) /* IB_FLOW_ATTR_FLAGS_RESERVED */
		return MM_REFUSE(EINVAL, "create_flow: flags");
	if ((cmd.flow_attr.flags & IBV_FLOW_ATTR_FLAGS_DONT_TRAP) &&
	    (cmd.flow_attr.type == IBV_FLOW_ATTR_ALL_DEFAULT ||
	     cmd.flow_attr.type == IBV_FLOW_ATTR_MC_DEFAULT))
		return MM_REFUSE(EINVAL, "create_flow: DONT_TRAP on a default");
	if (cmd.flow_attr.num_of_specs > MM_FLOW_SPEC_LAYERS)
		return MM_REFUSE(EINVAL, "create_flow: too many specs");
	if (cmd.flow_attr.size > b->core_inlen - sizeof(cmd) ||
	    cmd.flow_attr.size >
		    cmd.flow_attr.num_of_specs * MM_UVERBS_FLOW_SPEC_SIZE)
		return MM_REFUSE(EINVAL, "create_flow: attr size");
	if (cmd.flow_attr.reserved[0] || cmd.flow_attr.reserved[1])
		return MM_REFUSE(EINVAL, "create_flow: reserved");
	rc = mm_need_ctx(b);
	if (rc != 0)
		return rc;
	rc = mm_uobj_get(b->file, UVERBS_OBJECT_QP, cmd.qp_handle, &qpu);
	if (rc != 0)
		return rc;
	/* mlx5_ib_create_flow(): the driver data (counters) */
	if (b->uhw_inlen) {
		size_t min = offsetof(struct mlx5_ib_create_flow, reserved) + 4;
		size_t req;

		if (b->uhw_inlen < min)
			return MM_REFUSE(EOPNOTSUPP,
					 "mlx5_ib_create_flow: udata");
		memset(ucraw, 0, sizeof(ucraw));
		memcpy(ucbuf, b->uhw_in, min);
		if (ucbuf->ncounters_data > 1)
			return MM_REFUSE(EINVAL,
					 "mlx5_ib_create_flow: counters data");
		req = min + sizeof(struct mlx5_ib_flow_counters_data) *
				    ucbuf->ncounters_data;
		if (b->uhw_inlen > req && !mm_uhw_cleared(b, req))
			return MM_REFUSE(EOPNOTSUPP,
					 "mlx5_ib_create_flow: udata tail");
		if (b->uhw_inlen < req)
			return -EFAULT;
		memcpy(ucbuf, b->uhw_in, req);
		uc = ucbuf;
	}
	chain = calloc(1, sizeof(*attr) + MM_FLOW_SPEC_LAYERS * 128);
	if (chain == NULL)
		return -ENOMEM;
	attr = (struct ibv_flow_attr *)(void *)chain;
	attr->type = cmd.flow_attr.type;
	attr->priority = cmd.flow_attr.priority;
	attr->num_of_specs = cmd.flow_attr.num_of_specs;
	attr->port = cmd.flow_attr.port;
	attr->flags = cmd.flow_attr.flags;
	attr->size = sizeof(*attr);
	ks = (const uint8_t *)b->core_in + sizeof(cmd);
	left = cmd.flow_attr.size;
	vs = chain + sizeof(*attr);
	for (i = 0, rc = 0; i < cmd.flow_attr.num_of_specs && left > 0; i++) {
		struct ib_uverbs_flow_spec_hdr h;
		int n = 0;

		if (left < sizeof(h)) {
			rc = MM_REFUSE(EINVAL, "create_flow: spec header");
			break;
		}
		memcpy(&h, ks, sizeof(h));
		if (h.size > left || h.size == 0) {
			rc = MM_REFUSE(EINVAL, "create_flow: spec size");
			break;
		}
		if (h.reserved) {
			rc = MM_REFUSE(EINVAL,
				       "kern_spec_to_ib_spec: reserved");
			break;
		}
		switch (h.type) {
		case IBV_FLOW_SPEC_ACTION_TAG: {
			struct ib_uverbs_flow_spec_action_tag t;
			struct ibv_flow_spec_action_tag *v = (void *)vs;

			if (h.size != sizeof(t)) {
				rc = MM_REFUSE(EINVAL, "tag spec size");
				break;
			}
			memcpy(&t, ks, sizeof(t));
			v->type = IBV_FLOW_SPEC_ACTION_TAG;
			v->size = sizeof(*v);
			v->tag_id = t.tag_id;
			n = sizeof(*v);
			break;
		}
		case IBV_FLOW_SPEC_ACTION_DROP: {
			struct ibv_flow_spec_action_drop *v = (void *)vs;

			if (h.size !=
			    sizeof(struct ib_uverbs_flow_spec_action_drop)) {
				rc = MM_REFUSE(EINVAL, "drop spec size");
				break;
			}
			v->type = IBV_FLOW_SPEC_ACTION_DROP;
			v->size = sizeof(*v);
			n = sizeof(*v);
			break;
		}
		case IBV_FLOW_SPEC_ACTION_COUNT: {
			struct ib_uverbs_flow_spec_action_count c;
			struct ibv_flow_spec_counter_action *v = (void *)vs;

			if (h.size != sizeof(c)) {
				rc = MM_REFUSE(EINVAL, "count spec size");
				break;
			}
			memcpy(&c, ks, sizeof(c));
			rc = mm_uobj_get(b->file, UVERBS_OBJECT_COUNTERS,
					 c.handle, &cu);
			if (rc != 0)
				break;
			v->type = IBV_FLOW_SPEC_ACTION_COUNT;
			v->size = sizeof(*v);
			v->counters = ((struct mm_counters *)cu->priv)->sv;
			n = sizeof(*v);
			break;
		}
		case IBV_FLOW_SPEC_ACTION_HANDLE: {
			struct ib_uverbs_flow_spec_action_handle ah;
			struct mm_uobj *au;

			if (h.size != sizeof(ah)) {
				rc = MM_REFUSE(EOPNOTSUPP, "handle spec size");
				break;
			}
			/* kern_spec_to_ib_spec_action(): the object first
			 * (ENOENT none, EINVAL another type); the kernel then
			 * takes a header modify or reformat on a verbs flow
			 * (parse_flow_flow_action()), which softverbs' verbs
			 * rules do not carry: not modelled. */
			memcpy(&ah, ks, sizeof(ah));
			rc = mm_uobj_get(b->file, UVERBS_OBJECT_FLOW_ACTION,
					 ah.handle, &au);
			if (rc == 0)
				rc = MM_REFUSE(EOPNOTSUPP,
					       "flow actions on verbs flows "
					       "are not modelled");
			break;
		}
		default:
			if (h.type >= IBV_FLOW_SPEC_ACTION_TAG) {
				rc = MM_REFUSE(EINVAL, "unknown action spec");
				break;
			}
			n = mm_filter_spec(ks, h.size, h.type, vs);
			if (n < 0)
				rc = n;
			break;
		}
		if (rc != 0)
			break;
		vs += n;
		attr->size += (uint16_t)n;
		ks += h.size;
		left -= h.size;
	}
	if (rc == 0 && (left != 0 || i != cmd.flow_attr.num_of_specs))
		rc = MM_REFUSE(EINVAL, "create_flow: specs do not fill size");
	if (rc == 0 && cu != NULL)
		rc = mm_counters_bind(cu->priv, uc);
	fl = rc == 0 ? calloc(1, sizeof(*fl)) : NULL;
	if (rc == 0 && fl == NULL)
		rc = -ENOMEM;
	u = rc == 0 ? mm_uobj_new(b->file, UVERBS_OBJECT_FLOW) : NULL;
	if (rc == 0 && u == NULL)
		rc = -ENOMEM;
	if (rc != 0) {
		if (cu != NULL)
			mm_counters_unbind(cu->priv);
		free(fl);
		free(chain);
		return rc;
	}
	b->new_obj = u;
	mm_engine_lock(b->file->dev);
	fl->sv = sv_create_flow(((struct mm_qp *)qpu->priv)->sv, attr);
	rc = fl->sv == NULL ? -errno : 0;
	mm_engine_unlock(b->file->dev);
	free(chain);
	if (rc != 0) {
		if (cu != NULL)
			mm_counters_unbind(cu->priv);
		free(fl);
		return rc;
	}
	fl->qp = qpu;
	qpu->usecnt++;
	if (cu != NULL) {
		fl->counters = cu;
		cu->usecnt++;
		((struct mm_counters *)cu->priv)->flows++;
	}
	u->priv = fl;
	u->destroy = mm_flow_destroy;
	resp.flow_handle = u->id;
	return mm_response(b, &resp, sizeof(resp));
}

static int
mm_w_ex_destroy_flow(struct mm_bundle *b)
{
	struct ib_uverbs_destroy_flow cmd;
	struct mm_uobj *u;
	int rc;

	rc = mm_request(b, &cmd, sizeof(cmd));
	if (rc != 0)
		return rc;
	if (cmd.comp_mask)
		return -EINVAL;
	rc = mm_uobj_get(b->file, UVERBS_OBJECT_FLOW, cmd.flow_handle, &u);
	return rc != 0 ? rc : mm_uobj_destroy(u);
}

static int
mm_m_flow_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(mm_attr_obj(b, UVERBS_ATTR_DESTROY_FLOW_HANDLE));
}

/* ---- the mlx5 flow matcher ---- */

struct mm_matcher {
	struct mlx5dv_flow_matcher *sv;
};

static int
mm_matcher_destroy(struct mm_uobj *u)
{
	struct mm_matcher *m = u->priv;
	int rc;

	rc = sv_mlx5dv_destroy_flow_matcher(m->sv);
	if (rc != 0)
		return -rc;
	free(m);
	u->priv = NULL;
	return 0;
}

#define MM_MATCH_PARAM_BYTES 512 /* struct mlx5_ib_match_params */

static int
mm_m_matcher_create(struct mm_bundle *b)
{
	struct mm_uobj *u =
		mm_attr_new(b, MLX5_IB_ATTR_FLOW_MATCHER_CREATE_HANDLE);
	/* match_sz, then the match parameters (a flexible array). */
	uint64_t mask_raw[(sizeof(struct mlx5dv_flow_match_parameters) +
			   MM_MATCH_PARAM_BYTES + 7) /
			  8];
	struct mlx5dv_flow_match_parameters *mask = (void *)mask_raw;
	struct mlx5dv_flow_matcher_attr ma = { 0 };
	struct mm_matcher *m;
	const void *p;
	uint64_t flags, ft;
	uint16_t prio = 0;
	uint8_t crit;
	size_t len;
	int type, rc;

	p = mm_attr_in_ptr(b, MLX5_IB_ATTR_FLOW_MATCHER_MATCH_MASK, &len);
	memset(mask_raw, 0, sizeof(mask_raw));
	memcpy(mask->match_buf, p, len);
	mask->match_sz = len;
	type = mm_attr_enum(b, MLX5_IB_ATTR_FLOW_MATCHER_FLOW_TYPE);
	if (type == MLX5_IB_FLOW_TYPE_NORMAL) {
		rc = mm_attr_copy_in(b, MLX5_IB_ATTR_FLOW_MATCHER_FLOW_TYPE,
				     &prio, sizeof(prio));
		if (rc != 0)
			return rc;
	}
	rc = mm_attr_copy_in(b, MLX5_IB_ATTR_FLOW_MATCHER_MATCH_CRITERIA, &crit,
			     sizeof(crit));
	if (rc != 0)
		return rc;
	/* mlx5_ib_matcher_ns(): the table, by type or by flags, not both */
	if (mm_attr_present(b, MLX5_IB_ATTR_FLOW_MATCHER_FT_TYPE) &&
	    mm_attr_present(b, MLX5_IB_ATTR_FLOW_MATCHER_FLOW_FLAGS))
		return MM_REFUSE(EINVAL, "mlx5_ib_matcher_ns: type and flags");
	if (mm_attr_present(b, MLX5_IB_ATTR_FLOW_MATCHER_FT_TYPE)) {
		rc = mm_attr_const(b, MLX5_IB_ATTR_FLOW_MATCHER_FT_TYPE, &ft);
		if (rc != 0)
			return rc;
		ma.comp_mask = MLX5DV_FLOW_MATCHER_MASK_FT_TYPE;
		ma.ft_type = (enum mlx5dv_flow_table_type)ft;
	} else {
		rc = mm_attr_flags(b, MLX5_IB_ATTR_FLOW_MATCHER_FLOW_FLAGS,
				   IBV_FLOW_ATTR_FLAGS_EGRESS, &flags);
		if (rc != 0)
			return rc;
		ma.flags = (uint32_t)flags;
	}
	m = calloc(1, sizeof(*m));
	if (m == NULL)
		return -ENOMEM;
	ma.type = type == MLX5_IB_FLOW_TYPE_SNIFFER ?
			  IBV_FLOW_ATTR_SNIFFER :
		  type == MLX5_IB_FLOW_TYPE_ALL_DEFAULT ?
			  IBV_FLOW_ATTR_ALL_DEFAULT :
		  type == MLX5_IB_FLOW_TYPE_MC_DEFAULT ?
			  IBV_FLOW_ATTR_MC_DEFAULT :
			  IBV_FLOW_ATTR_NORMAL;
	ma.priority = prio;
	ma.match_criteria_enable = crit;
	ma.match_mask = mask;
	m->sv = sv_mlx5dv_create_flow_matcher(mm_sv(b->file), &ma);
	if (m->sv == NULL) {
		rc = -errno;
		free(m);
		return rc;
	}
	u->priv = m;
	u->destroy = mm_matcher_destroy;
	return 0;
}

static int
mm_m_matcher_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(
		mm_attr_obj(b, MLX5_IB_ATTR_FLOW_MATCHER_DESTROY_HANDLE));
}

/*
 * parse_flow_flow_action(): one header modify, one decap (the
 * L2_TUNNEL_TO_L2 reformat, which keeps no context) and one other packet
 * reformat at most, a second of a kind EINVAL. The actions then go to
 * softverbs' rule as they are; what the table type and the FTE refuse
 * (an action made for the other table, decap with another reformat) is
 * softverbs' (sv_dv_flow_actions()).
 */
static int
mm_flow_actions(struct mm_uobj **fas, unsigned int n,
		struct mlx5dv_flow_action_attr *act, unsigned int *na)
{
	bool seen[3] = { false, false, false };
	unsigned int i, kind;

	for (i = 0; i < n; i++) {
		const struct sv_flow_action *fa =
			sv_flow_action_of(fas[i]->priv);

		if (fa == NULL)
			return -EINVAL;
		kind = fa->kind == SV_FA_MODIFY		    ? 0 :
		       fa->reformat == SV_REFORMAT_DECAP_L2 ? 1 :
							      2;
		if (seen[kind])
			return MM_REFUSE(EINVAL,
					 "parse_flow_flow_action: a second "
					 "action of a kind");
		seen[kind] = true;
		act[*na].type = MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION;
		act[*na].action = fas[i]->priv;
		(*na)++;
	}
	return 0;
}

/* MLX5_IB_METHOD_CREATE_FLOW: get_dests(), counters, flow actions, tag,
 * then the rule on the matcher (softverbs' raw_fs_rule_add()). */
static int
mm_m_flow_create(struct mm_bundle *b)
{
	struct mm_uobj *u = mm_attr_new(b, MLX5_IB_ATTR_CREATE_FLOW_HANDLE);
	struct mm_uobj *mu = mm_attr_obj(b, MLX5_IB_ATTR_CREATE_FLOW_MATCHER);
	struct mm_uobj *qpu = mm_attr_obj(b, MLX5_IB_ATTR_CREATE_FLOW_DEST_QP);
	struct mlx5dv_flow_action_attr act[4 + MM_FLOW_ACTIONS];
	uint64_t value_raw[(sizeof(struct mlx5dv_flow_match_parameters) +
			    MM_MATCH_PARAM_BYTES + 7) /
			   8];
	struct mlx5dv_flow_match_parameters *value = (void *)value_raw;
	struct mm_uobj **cnt = NULL, **fas = NULL;
	unsigned int ncnt = 0, nfa = 0, na = 0, i;
	struct mm_flow *fl = NULL;
	uint64_t flags;
	uint32_t tag;
	const void *p;
	size_t len;
	int rc;

	/* uverbs_process_idrs_array(): the core looks the actions up before
	 * the handler runs (ENOENT none, EINVAL another type). */
	if (mm_attr_present(b, MLX5_IB_ATTR_CREATE_FLOW_ARR_FLOW_ACTIONS)) {
		rc = mm_attr_objs(b, MLX5_IB_ATTR_CREATE_FLOW_ARR_FLOW_ACTIONS,
				  &fas, &nfa);
		if (rc != 0)
			return rc;
	}
	rc = mm_attr_flags(b, MLX5_IB_ATTR_CREATE_FLOW_FLAGS,
			   MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DEFAULT_MISS |
				   MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DROP,
			   &flags);
	if (rc != 0)
		goto out;
	/* get_dests() */
	if ((flags & MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DEFAULT_MISS) &&
	    (flags & MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DROP)) {
		rc = MM_REFUSE(EINVAL, "get_dests: miss and drop");
		goto out;
	}
	if (mm_attr_present(b, MLX5_IB_ATTR_CREATE_FLOW_DEST_DEVX)) {
		rc = MM_REFUSE(EINVAL,
			       "get_dests: no DevX flow destination exists");
		goto out;
	}
	if (qpu != NULL && flags) {
		rc = MM_REFUSE(EINVAL, "get_dests: QP and flags");
		goto out;
	}
	if (qpu != NULL) {
		act[na].type = MLX5DV_FLOW_ACTION_DEST_IBV_QP;
		act[na].qp = ((struct mm_qp *)qpu->priv)->sv;
		na++;
	}
	if (flags & MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DROP) {
		act[na].type = MLX5DV_FLOW_ACTION_DROP;
		na++;
	}
	if (flags & MLX5_IB_ATTR_CREATE_FLOW_FLAGS_DEFAULT_MISS) {
		act[na].type = MLX5DV_FLOW_ACTION_DEFAULT_MISS;
		na++;
	}
	if (mm_attr_present(b, MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX)) {
		rc = mm_attr_objs(b, MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX,
				  &cnt, &ncnt);
		if (rc != 0)
			goto out;
		if (mm_attr_present(
			    b,
			    MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX_OFFSET)) {
			uint32_t off;

			p = mm_attr_in_ptr(
				b,
				MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX_OFFSET,
				&len);
			memcpy(&off, p, 4);
			if (len / 4 != 1 || off != 0) {
				rc = MM_REFUSE(EINVAL,
					       "is_flow_counter: offset");
				goto out;
			}
		}
		/* is_flow_counter(): a flow counter object only */
		if (ncnt == 0 || !mm_devx_is_flow_counter(cnt[0])) {
			rc = MM_REFUSE(EINVAL, "is_flow_counter");
			goto out;
		}
		act[na].type = MLX5DV_FLOW_ACTION_COUNTERS_DEVX;
		act[na].obj = mm_devx_sv(cnt[0]);
		na++;
	}
	rc = mm_flow_actions(fas, nfa, act, &na);
	if (rc != 0)
		goto out;
	if (mm_attr_present(b, MLX5_IB_ATTR_CREATE_FLOW_TAG)) {
		rc = mm_attr_copy_in(b, MLX5_IB_ATTR_CREATE_FLOW_TAG, &tag,
				     sizeof(tag));
		if (rc == 0 && tag >= (1u << 24))
			rc = MM_REFUSE(EINVAL, "flow tag of more than 24 bits");
		if (rc != 0)
			goto out;
		act[na].type = MLX5DV_FLOW_ACTION_TAG;
		act[na].tag_value = tag;
		na++;
	}
	p = mm_attr_in_ptr(b, MLX5_IB_ATTR_CREATE_FLOW_MATCH_VALUE, &len);
	memset(value_raw, 0, sizeof(value_raw));
	memcpy(value->match_buf, p, len);
	value->match_sz = len;
	fl = calloc(1, sizeof(*fl));
	if (fl == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	mm_engine_lock(b->file->dev);
	fl->sv = sv_mlx5dv_create_flow(((struct mm_matcher *)mu->priv)->sv,
				       value, na, act);
	rc = fl->sv == NULL ? -errno : 0;
	mm_engine_unlock(b->file->dev);
	if (rc != 0)
		goto out;
	fl->matcher = mu;
	mu->usecnt++;
	if (qpu != NULL) {
		fl->qp = qpu;
		qpu->usecnt++;
	}
	if (ncnt > 0) {
		fl->devx = cnt[0];
		cnt[0]->usecnt++;
	}
	/* ib_set_flow(): the flow holds its actions (uverbs_free_flow_action()
	 * refuses EBUSY while it does). */
	for (i = 0; i < nfa; i++) {
		fl->actions[i] = fas[i];
		fas[i]->usecnt++;
	}
	u->priv = fl;
	u->destroy = mm_flow_destroy;
	fl = NULL;
out:
	free(fl);
	free(cnt);
	free(fas);
	return rc;
}

static int
mm_m_mlx5_flow_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(mm_attr_obj(b, MLX5_IB_ATTR_CREATE_FLOW_HANDLE));
}

/* ---- flow actions ---- */

/*
 * A flow action object: softverbs' header modify list or packet reformat
 * (its ibv_flow_action, in priv), which softverbs checks as the kernel
 * and the firmware do (sv_flow_action.c) and applies to the frames of
 * the rules that name it.
 */
static int
mm_flow_action_destroy(struct mm_uobj *u)
{
	int rc = sv_destroy_flow_action(u->priv);

	if (rc != 0)
		return -rc;
	u->priv = NULL;
	return 0;
}

/* uverbs_get_const() into an enum: a value past its type is EINVAL. */
static int
mm_attr_enum_const(struct mm_bundle *b, uint16_t id, uint32_t *v)
{
	uint64_t c;
	int rc = mm_attr_const(b, id, &c);

	if (rc != 0)
		return rc;
	if (c > UINT32_MAX)
		return MM_REFUSE(EINVAL, "uverbs_get_const: out of range");
	*v = (uint32_t)c;
	return 0;
}

/* The new action, or the errno softverbs set. */
static int
mm_flow_action_new(struct mm_bundle *b, uint16_t handle,
		   struct ibv_flow_action *sv)
{
	struct mm_uobj *u = mm_attr_new(b, handle);

	if (sv == NULL)
		return -errno;
	u->priv = sv;
	u->destroy = mm_flow_action_destroy;
	return 0;
}

/*
 * MLX5_IB_METHOD_FLOW_ACTION_CREATE_MODIFY_HEADER (Linux 6.1 fs.c): the
 * PRM actions (8 bytes each, the attribute's UVERBS_ATTR_MIN_SIZE; a
 * size that is no multiple EINVAL, uverbs_attr_ptr_get_array_size()),
 * the table type, then mlx5_ib_create_modify_header(): the namespace
 * (EINVAL an unknown type), max_modify_header_actions (EOPNOTSUPP), the
 * firmware's check of each action; all softverbs'. The device has the
 * capability (mlx5_ib_modify_header_supported(): the model's is never 0).
 */
static int
mm_m_modify_header_create(struct mm_bundle *b)
{
	uint64_t *acts;
	uint32_t ft;
	const void *p;
	size_t len;
	int rc;

	p = mm_attr_in_ptr(b, MLX5_IB_ATTR_CREATE_MODIFY_HEADER_ACTIONS_PRM,
			   &len);
	if (len % sizeof(uint64_t) != 0)
		return MM_REFUSE(EINVAL,
				 "uverbs_attr_ptr_get_array_size: actions");
	rc = mm_attr_enum_const(b, MLX5_IB_ATTR_CREATE_MODIFY_HEADER_FT_TYPE,
				&ft);
	if (rc != 0)
		return rc;
	/* UA_ALLOC_AND_COPY: the kernel's own copy, aligned. */
	acts = malloc(len);
	if (acts == NULL)
		return -ENOMEM;
	memcpy(acts, p, len);
	rc = mm_flow_action_new(b, MLX5_IB_ATTR_CREATE_MODIFY_HEADER_HANDLE,
				sv_mlx5dv_create_flow_action_modify_header(
					mm_sv(b->file), len, acts,
					(enum mlx5dv_flow_table_type)ft));
	free(acts);
	return rc;
}

/*
 * MLX5_IB_METHOD_FLOW_ACTION_CREATE_PACKET_REFORMAT (Linux 6.1 fs.c): the
 * table type and reformat type, then
 * mlx5_ib_flow_action_packet_reformat_valid() (decap types on the
 * receive table, encap types on the transmit table, as the capability
 * page says the device takes them: else EOPNOTSUPP), the data (ENOENT
 * without it, but for L2_TUNNEL_TO_L2, which keeps none) and
 * mlx5_packet_reformat_alloc() (max_encap_header_size, the firmware's
 * size check of an L3 decap's header); all softverbs'.
 */
static int
mm_m_packet_reformat_create(struct mm_bundle *b)
{
	uint32_t ft, type;
	const void *p = NULL;
	void *data = NULL;
	size_t len = 0;
	int rc;

	rc = mm_attr_enum_const(b, MLX5_IB_ATTR_CREATE_PACKET_REFORMAT_FT_TYPE,
				&ft);
	if (rc == 0)
		rc = mm_attr_enum_const(b,
					MLX5_IB_ATTR_CREATE_PACKET_REFORMAT_TYPE,
					&type);
	if (rc != 0)
		return rc;
	if (mm_attr_present(b, MLX5_IB_ATTR_CREATE_PACKET_REFORMAT_DATA_BUF))
		p = mm_attr_in_ptr(b,
				   MLX5_IB_ATTR_CREATE_PACKET_REFORMAT_DATA_BUF,
				   &len);
	if (p != NULL) {
		data = malloc(len);
		if (data == NULL)
			return -ENOMEM;
		memcpy(data, p, len);
	}
	rc = mm_flow_action_new(
		b, MLX5_IB_ATTR_CREATE_PACKET_REFORMAT_HANDLE,
		sv_mlx5dv_create_flow_action_packet_reformat(
			mm_sv(b->file), len, data,
			(enum mlx5dv_flow_action_packet_reformat_type)type,
			(enum mlx5dv_flow_table_type)ft));
	free(data);
	return rc;
}

/* UVERBS_METHOD_FLOW_ACTION_DESTROY: EBUSY while a flow holds it
 * (uverbs_free_flow_action()). */
static int
mm_m_flow_action_destroy(struct mm_bundle *b)
{
	return mm_uobj_destroy(
		mm_attr_obj(b, UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE));
}

/* ---- tables ---- */

static const struct mm_attr_spec mm_a_counters_create[] = {
	MM_IDR(UVERBS_ATTR_CREATE_COUNTERS_HANDLE, UVERBS_OBJECT_COUNTERS,
	       MM_ACC_NEW, 1),
};

static const struct mm_attr_spec mm_a_counters_destroy[] = {
	MM_IDR(UVERBS_ATTR_DESTROY_COUNTERS_HANDLE, UVERBS_OBJECT_COUNTERS,
	       MM_ACC_DESTROY, 1),
};

static const struct mm_attr_spec mm_a_counters_read[] = {
	MM_IDR(UVERBS_ATTR_READ_COUNTERS_HANDLE, UVERBS_OBJECT_COUNTERS,
	       MM_ACC_WRITE, 1),
	{ .id = UVERBS_ATTR_READ_COUNTERS_BUFF,
	  .type = MM_AT_PTR_OUT,
	  .mandatory = 1 },
	MM_FLAGS(UVERBS_ATTR_READ_COUNTERS_FLAGS, 0),
};

static const struct mm_attr_spec mm_a_flow_destroy[] = {
	MM_IDR(UVERBS_ATTR_DESTROY_FLOW_HANDLE, UVERBS_OBJECT_FLOW,
	       MM_ACC_DESTROY, 1),
};

static const struct mm_attr_spec mm_a_matcher_create[] = {
	MM_IDR(MLX5_IB_ATTR_FLOW_MATCHER_CREATE_HANDLE,
	       MLX5_IB_OBJECT_FLOW_MATCHER, MM_ACC_NEW, 1),
	{ .id = MLX5_IB_ATTR_FLOW_MATCHER_MATCH_MASK,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  .min_len = 1,
	  .max_len = MM_MATCH_PARAM_BYTES },
	/* NORMAL carries the priority (u16), the others nothing */
	{ .id = MLX5_IB_ATTR_FLOW_MATCHER_FLOW_TYPE,
	  .type = MM_AT_ENUM_IN,
	  .mandatory = 1,
	  .enum_n = 4,
	  .max_len = sizeof(uint16_t) },
	{ .id = MLX5_IB_ATTR_FLOW_MATCHER_MATCH_CRITERIA,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  MM_TYPE(uint8_t) },
	MM_FLAGS(MLX5_IB_ATTR_FLOW_MATCHER_FLOW_FLAGS, 0),
	MM_CONST(MLX5_IB_ATTR_FLOW_MATCHER_FT_TYPE, 0),
};

static const struct mm_attr_spec mm_a_matcher_destroy[] = {
	MM_IDR(MLX5_IB_ATTR_FLOW_MATCHER_DESTROY_HANDLE,
	       MLX5_IB_OBJECT_FLOW_MATCHER, MM_ACC_DESTROY, 1),
};

static const struct mm_attr_spec mm_a_flow_create[] = {
	MM_IDR(MLX5_IB_ATTR_CREATE_FLOW_HANDLE, UVERBS_OBJECT_FLOW, MM_ACC_NEW,
	       1),
	{ .id = MLX5_IB_ATTR_CREATE_FLOW_MATCH_VALUE,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  .min_len = 1,
	  .max_len = MM_MATCH_PARAM_BYTES },
	MM_IDR(MLX5_IB_ATTR_CREATE_FLOW_MATCHER, MLX5_IB_OBJECT_FLOW_MATCHER,
	       MM_ACC_READ, 1),
	MM_IDR(MLX5_IB_ATTR_CREATE_FLOW_DEST_QP, UVERBS_OBJECT_QP, MM_ACC_READ,
	       0),
	MM_IDR(MLX5_IB_ATTR_CREATE_FLOW_DEST_DEVX, MLX5_IB_OBJECT_DEVX_OBJ,
	       MM_ACC_READ, 0),
	{ .id = MLX5_IB_ATTR_CREATE_FLOW_ARR_FLOW_ACTIONS,
	  .type = MM_AT_IDRS_ARRAY,
	  .access = MM_ACC_READ,
	  .obj = UVERBS_OBJECT_FLOW_ACTION,
	  .arr_min = 1,
	  .arr_max = MM_FLOW_ACTIONS },
	{ .id = MLX5_IB_ATTR_CREATE_FLOW_TAG,
	  .type = MM_AT_PTR_IN,
	  MM_TYPE(uint32_t) },
	{ .id = MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX,
	  .type = MM_AT_IDRS_ARRAY,
	  .access = MM_ACC_READ,
	  .obj = MLX5_IB_OBJECT_DEVX_OBJ,
	  .arr_min = 1,
	  .arr_max = 1 },
	{ .id = MLX5_IB_ATTR_CREATE_FLOW_ARR_COUNTERS_DEVX_OFFSET,
	  .type = MM_AT_PTR_IN,
	  .min_len = sizeof(uint32_t) },
	MM_FLAGS(MLX5_IB_ATTR_CREATE_FLOW_FLAGS, 0),
};

static const struct mm_attr_spec mm_a_modify_header_create[] = {
	MM_IDR(MLX5_IB_ATTR_CREATE_MODIFY_HEADER_HANDLE,
	       UVERBS_OBJECT_FLOW_ACTION, MM_ACC_NEW, 1),
	/* MLX5_UN_SZ_BYTES(set_add_copy_action_in_auto), no upper bound */
	{ .id = MLX5_IB_ATTR_CREATE_MODIFY_HEADER_ACTIONS_PRM,
	  .type = MM_AT_PTR_IN,
	  .mandatory = 1,
	  .min_len = sizeof(uint64_t) },
	MM_CONST(MLX5_IB_ATTR_CREATE_MODIFY_HEADER_FT_TYPE, 1),
};

static const struct mm_attr_spec mm_a_packet_reformat_create[] = {
	MM_IDR(MLX5_IB_ATTR_CREATE_PACKET_REFORMAT_HANDLE,
	       UVERBS_OBJECT_FLOW_ACTION, MM_ACC_NEW, 1),
	{ .id = MLX5_IB_ATTR_CREATE_PACKET_REFORMAT_DATA_BUF,
	  .type = MM_AT_PTR_IN,
	  .min_len = 1 },
	MM_CONST(MLX5_IB_ATTR_CREATE_PACKET_REFORMAT_TYPE, 1),
	MM_CONST(MLX5_IB_ATTR_CREATE_PACKET_REFORMAT_FT_TYPE, 1),
};

static const struct mm_attr_spec mm_a_flow_action_destroy[] = {
	MM_IDR(UVERBS_ATTR_DESTROY_FLOW_ACTION_HANDLE,
	       UVERBS_OBJECT_FLOW_ACTION, MM_ACC_DESTROY, 1),
};

static const struct mm_attr_spec mm_a_mlx5_flow_destroy[] = {
	MM_IDR(MLX5_IB_ATTR_CREATE_FLOW_HANDLE, UVERBS_OBJECT_FLOW,
	       MM_ACC_DESTROY, 1),
};

#define MM_METHOD(o, m, a, u, h)                                         \
	{                                                                \
		.obj = (o), .id = (m), .name = #m, .attrs = (a),         \
		.nattrs = MM_ARRAY_SIZE(a), .udata = (u), .handler = (h) \
	}

static const struct mm_method mm_flow_m[] = {
	MM_METHOD(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_CREATE,
		  mm_a_counters_create, false, mm_m_counters_create),
	MM_METHOD(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_DESTROY,
		  mm_a_counters_destroy, false, mm_m_counters_destroy),
	MM_METHOD(UVERBS_OBJECT_COUNTERS, UVERBS_METHOD_COUNTERS_READ,
		  mm_a_counters_read, false, mm_m_counters_read),
	MM_METHOD(UVERBS_OBJECT_FLOW, UVERBS_METHOD_FLOW_DESTROY,
		  mm_a_flow_destroy, false, mm_m_flow_destroy),
	MM_METHOD(MLX5_IB_OBJECT_FLOW_MATCHER,
		  MLX5_IB_METHOD_FLOW_MATCHER_CREATE, mm_a_matcher_create, true,
		  mm_m_matcher_create),
	MM_METHOD(MLX5_IB_OBJECT_FLOW_MATCHER,
		  MLX5_IB_METHOD_FLOW_MATCHER_DESTROY, mm_a_matcher_destroy,
		  false, mm_m_matcher_destroy),
	MM_METHOD(UVERBS_OBJECT_FLOW, MLX5_IB_METHOD_CREATE_FLOW,
		  mm_a_flow_create, true, mm_m_flow_create),
	MM_METHOD(UVERBS_OBJECT_FLOW, MLX5_IB_METHOD_DESTROY_FLOW,
		  mm_a_mlx5_flow_destroy, false, mm_m_mlx5_flow_destroy),
	MM_METHOD(UVERBS_OBJECT_FLOW_ACTION,
		  MLX5_IB_METHOD_FLOW_ACTION_CREATE_MODIFY_HEADER,
		  mm_a_modify_header_create, true, mm_m_modify_header_create),
	MM_METHOD(UVERBS_OBJECT_FLOW_ACTION,
		  MLX5_IB_METHOD_FLOW_ACTION_CREATE_PACKET_REFORMAT,
		  mm_a_packet_reformat_create, true,
		  mm_m_packet_reformat_create),
	MM_METHOD(UVERBS_OBJECT_FLOW_ACTION, UVERBS_METHOD_FLOW_ACTION_DESTROY,
		  mm_a_flow_action_destroy, false, mm_m_flow_action_destroy),
};

const struct mm_method_table mm_flow_methods = {
	mm_flow_m,
	MM_ARRAY_SIZE(mm_flow_m),
};

#define MM_EX(c) (IB_USER_VERBS_CMD_FLAG_EXTENDED | (c))

static const struct mm_write_method mm_flow_w[] = {
	{ .cmd = MM_EX(IB_USER_VERBS_EX_CMD_CREATE_FLOW),
	  .name = "IB_USER_VERBS_EX_CMD_CREATE_FLOW",
	  .req_size = sizeof(struct ib_uverbs_create_flow),
	  .resp_size = sizeof(struct ib_uverbs_create_flow_resp),
	  .has_resp = true,
	  .udata = true,
	  .handler = mm_w_ex_create_flow },
	{ .cmd = MM_EX(IB_USER_VERBS_EX_CMD_DESTROY_FLOW),
	  .name = "IB_USER_VERBS_EX_CMD_DESTROY_FLOW",
	  .req_size = sizeof(struct ib_uverbs_destroy_flow),
	  .handler = mm_w_ex_destroy_flow },
};

const struct mm_write_table mm_flow_writes = {
	mm_flow_w,
	MM_ARRAY_SIZE(mm_flow_w),
};
