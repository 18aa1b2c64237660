/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The translation steps both engines take the same way: attributes,
 * actions (fate, MARK/FLAG, COUNT), the generic checks of an item against
 * the engine's rows (vsteer_flow_engines.c), ranges, the RSS expansion and
 * the priority mapping. Each step checks what the engine the plan is made
 * for can express, and says so in plan->limit when that is why it refuses.
 *
 * Priority mapping. Each rte_flow priority level owns three consecutive
 * verbs priorities, one per sub-priority, so that inside a level a rule
 * matching deeper headers is tested first (rules overlapping at one
 * verbs priority have no defined order):
 *	verbs priority = 3 * rte priority + sub-priority
 *	sub-priority = 0 (L4: TCP, UDP, ESP), 1 (L3: IPv4, IPv6), 2 (L2)
 * taken from the deepest layer the rule matches. A pattern holding a
 * tunnel item counts as L4, except when RSS hashes the inner headers
 * (level >= 2): the inner stack decides, as every expanded rule differs
 * there. The device has max_verbs_prio + 1 priorities, so
 * (max_verbs_prio + 1) / 3 levels; the last is reserved for the driver's
 * default flows (ctx->internal), leaving levels - 1 to applications:
 * 16 verbs priorities -> 5 levels -> rte priorities 0..3, defaults at 4.
 * mlx5dv matchers live in the same kernel tables and use the same numbers.
 *
 * RSS expansion. One hash QP hashes one L3 family and one L4 protocol (the
 * mlx5 kernel's create_rss_raw_qp_tir() refuses more), so a pattern that
 * ends above L4 in the hashed stack becomes one device rule per family and
 * protocol the types ask for, more specific first; the pattern itself stays
 * as the least specific rule. Both engines expand the same way.
 */

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <netinet/in.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_debug.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_flow.h>

#include "vsteer_flow_xlate.h"

#define XL_MARK_MAX 0xfffff0u /* MARK ids above are reserved */

const uint8_t vsteer_flow_rss_key_default[VSTEER_RSS_KEY_LEN] = {
	0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb, 0xf4, 0xf7, 0xfc, 0xa2,
	0x83, 0x19, 0xdb, 0x1a, 0x3e, 0x94, 0x6b, 0x9e, 0x38, 0xd9,
	0x2c, 0x9c, 0x03, 0xd1, 0xad, 0x99, 0x44, 0xa7, 0xd9, 0x56,
	0x3d, 0x59, 0x06, 0x3c, 0x25, 0xf3, 0xfc, 0x1f, 0xdc, 0x2a,
};

/* RSS types per family and protocol (RTE_ETH_RSS_*). */
#define XL_RSS_IPV4_L3                              \
	(RTE_ETH_RSS_IPV4 | RTE_ETH_RSS_FRAG_IPV4 | \
	 RTE_ETH_RSS_NONFRAG_IPV4_OTHER)
#define XL_RSS_IPV4_TCP RTE_ETH_RSS_NONFRAG_IPV4_TCP
#define XL_RSS_IPV4_UDP RTE_ETH_RSS_NONFRAG_IPV4_UDP
#define XL_RSS_IPV6_L3                              \
	(RTE_ETH_RSS_IPV6 | RTE_ETH_RSS_FRAG_IPV6 | \
	 RTE_ETH_RSS_NONFRAG_IPV6_OTHER | RTE_ETH_RSS_IPV6_EX)
#define XL_RSS_IPV6_TCP (RTE_ETH_RSS_NONFRAG_IPV6_TCP | RTE_ETH_RSS_IPV6_TCP_EX)
#define XL_RSS_IPV6_UDP (RTE_ETH_RSS_NONFRAG_IPV6_UDP | RTE_ETH_RSS_IPV6_UDP_EX)
#define XL_RSS_L3 (XL_RSS_IPV4_L3 | XL_RSS_IPV6_L3)
#define XL_RSS_L4 \
	(XL_RSS_IPV4_TCP | XL_RSS_IPV4_UDP | XL_RSS_IPV6_TCP | XL_RSS_IPV6_UDP)
#define XL_RSS_L3_L4 (XL_RSS_L3 | XL_RSS_L4)
#define XL_RSS_MODS                                          \
	(RTE_ETH_RSS_L3_SRC_ONLY | RTE_ETH_RSS_L3_DST_ONLY | \
	 RTE_ETH_RSS_L4_SRC_ONLY | RTE_ETH_RSS_L4_DST_ONLY)
#define XL_RSS_ALL (XL_RSS_L3 | XL_RSS_L4 | RTE_ETH_RSS_ESP | XL_RSS_MODS)

/* Error messages name fields and limits, so they are formatted. */
static __thread char vsteer_flow_errmsg[256];

int
vsteer_flow_err(struct rte_flow_error *error, int code,
		enum rte_flow_error_type type, const void *cause,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(vsteer_flow_errmsg, sizeof(vsteer_flow_errmsg), fmt, ap);
	va_end(ap);
	return rte_flow_error_set(error, code, type, cause, vsteer_flow_errmsg);
}

int
vsteer_flow_limit(struct vsteer_flow_plan *plan, struct rte_flow_error *error,
		  enum rte_flow_error_type type, const void *cause,
		  const char *subject, const char *fmt, ...)
{
	struct vsteer_flow_limit *l = &plan->limit;
	va_list ap;

	l->set = true;
	snprintf(l->subject, sizeof(l->subject), "%s", subject);
	va_start(ap, fmt);
	vsnprintf(l->what, sizeof(l->what), fmt, ap);
	va_end(ap);
	return vsteer_flow_err(error, ENOTSUP, type, cause, "%s: %s cannot %s",
			       l->subject,
			       vsteer_flow_engine_name(plan->engine), l->what);
}

const char *
vsteer_flow_cap_missing(uint16_t sup, const struct vsteer_xlate_ctx *ctx,
			bool inner)
{
	if ((sup & VSTEER_SUP_IF_VERBS_ESP) && !ctx->verbs_esp_ok)
		return "the device refuses IBV_FLOW_SPEC_ESP";
	if ((sup & VSTEER_SUP_IF_COUNT) && !ctx->count_ok)
		return "the device has no flow counters";
	if ((sup & VSTEER_SUP_IF_DEVX) && !ctx->devx_ok)
		return "the device offers no DevX flow counters";
	if ((sup & VSTEER_SUP_IF_TAG) && !ctx->tag_ok)
		return "the device has no flow tags";
	if ((sup & VSTEER_SUP_IF_EGRESS) && !ctx->egress_ok)
		return "the device takes no egress rules";
	/* DPDK's mlx5 words it the same way: the firmware's configuration
	 * decides (mlx5_flow_validate_item_mpls()). */
	if ((sup & VSTEER_SUP_IF_MPLS) && !ctx->mpls_ok)
		return "the device's firmware does not parse MPLS over GRE and UDP: set FLEX_PARSER_PROFILE_ENABLE=1 (mlxconfig)";
	if ((sup & VSTEER_SUP_IF_IHL) &&
	    !(inner ? ctx->ihl_inner_ok : ctx->ihl_ok))
		return "the device has no IPv4 IHL match field (flow table capability ft_field_support_2 outer_ipv4_ihl / inner_ipv4_ihl)";
	return NULL;
}

int
vsteer_flow_row_limit(struct vsteer_flow_plan *plan,
		      const struct vsteer_xlate_ctx *ctx,
		      const struct vsteer_flow_row *row, bool inner,
		      struct rte_flow_error *error,
		      enum rte_flow_error_type type, const void *cause)
{
	const struct vsteer_flow_item_desc *d;
	uint16_t sup = row->sup[plan->engine];
	const char *verb, *cap;
	char subject[64];

	switch (row->kind) {
	case VSTEER_ROW_ACTION:
		snprintf(subject, sizeof(subject), "%s action", row->name);
		verb = "take it";
		break;
	case VSTEER_ROW_ATTR:
		snprintf(subject, sizeof(subject), "attribute %s", row->name);
		verb = "take it";
		break;
	default:
		d = vsteer_flow_item_desc_at(row->item);
		snprintf(subject, sizeof(subject), "%s item: %s",
			 d != NULL ? d->name : "?", row->name);
		verb = row->kind == VSTEER_ROW_FIELD ? "match it" :
						       "express it";
		break;
	}
	if (!(sup & VSTEER_SUP_YES))
		return vsteer_flow_limit(plan, error, type, cause, subject,
					 "%s", verb);
	if (!(sup & (inner ? VSTEER_SUP_INNER : VSTEER_SUP_OUTER)))
		return vsteer_flow_limit(plan, error, type, cause, subject,
					 "%s %s", verb,
					 inner ? "after a tunnel item" :
						 "in the outer headers");
	cap = vsteer_flow_cap_missing(sup, ctx, inner);
	return vsteer_flow_limit(plan, error, type, cause, subject, "%s: %s",
				 verb, cap != NULL ? cap : "not offered");
}

int
vsteer_flow_item_device_check(const struct vsteer_xlate_ctx *ctx,
			      const struct vsteer_flow_item_desc *d,
			      const struct rte_flow_item *item,
			      struct rte_flow_error *error)
{
	uint16_t sup = vsteer_flow_named[VSTEER_ROW_MPLS_HEADER]
			       .sup[VSTEER_FLOW_ENGINE_VERBS];
	const char *why;

	if (d->id != VSTEER_ITEM_MPLS)
		return 0;
	/* As DPDK's mlx5_flow_validate_item_mpls(): ENOTSUP on the item. */
	why = vsteer_flow_cap_missing(sup, ctx, false);
	if (why == NULL)
		return 0;
	return vsteer_flow_err(error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM, item,
			       "MPLS item: %s", why);
}

const char *
vsteer_flow_item_type_name(enum rte_flow_item_type type)
{
	const char *name = NULL;

	if ((int)type < 0 ||
	    rte_flow_conv(RTE_FLOW_CONV_OP_ITEM_NAME_PTR, &name, sizeof(name),
			  (void *)(uintptr_t)type, NULL) <= 0 ||
	    name == NULL)
		return "unknown";
	return name;
}

const char *
vsteer_flow_action_type_name(enum rte_flow_action_type type)
{
	const char *name = NULL;

	if ((int)type < 0 ||
	    rte_flow_conv(RTE_FLOW_CONV_OP_ACTION_NAME_PTR, &name, sizeof(name),
			  (void *)(uintptr_t)type, NULL) <= 0 ||
	    name == NULL)
		return "unknown";
	return name;
}

void
vsteer_flow_plan_init(struct vsteer_flow_plan *plan,
		      const struct vsteer_xlate_ctx *ctx,
		      enum vsteer_flow_engine eng)
{
	/* Only the heads: the arrays are written as rules are made. */
	memset(plan, 0, offsetof(struct vsteer_flow_plan, var));
	vsteer_flow_edit_reset(&plan->edit);
	plan->engine = eng;
	/* QUEUE and DROP still go through a hash QP, which needs a key. */
	memcpy(plan->rss_key,
	       ctx->rss_key_default != NULL ? ctx->rss_key_default :
					      vsteer_flow_rss_key_default,
	       VSTEER_RSS_KEY_LEN);
}

/*
 * Attributes and priorities.
 */

uint32_t
vsteer_flow_user_levels(const struct vsteer_xlate_ctx *ctx)
{
	uint32_t levels = (ctx->max_verbs_prio + 1) / VSTEER_SUBPRIO_N;

	/* The last level holds the driver's default flows. */
	return levels > 0 ? levels - 1 : 0;
}

uint32_t
vsteer_flow_verbs_prio(const struct vsteer_xlate_ctx *ctx, uint32_t rte_prio,
		       enum vsteer_subprio sub)
{
	RTE_SET_USED(ctx);
	return rte_prio * VSTEER_SUBPRIO_N + (uint32_t)sub;
}

int
vsteer_flow_attr(const struct vsteer_xlate_ctx *ctx,
		 const struct rte_flow_attr *attr,
		 struct vsteer_flow_plan *plan, struct rte_flow_error *error)
{
	uint32_t levels = vsteer_flow_user_levels(ctx);

	if (attr == NULL)
		return vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR,
				       NULL, "no attributes");
	/* The probe refuses such a device: so do the translators. */
	if (ctx->max_verbs_prio < VSTEER_VERBS_PRIOS_MIN - 1)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, attr,
			"the device has %u verbs flow priorities, the driver needs at least %u",
			ctx->max_verbs_prio + 1, VSTEER_VERBS_PRIOS_MIN);
	/* Transfer first: such a rule (an OVS full offload) names no
	 * direction, and what it lacks is the E-Switch. */
	if (attr->transfer)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER, attr,
			"transfer not supported: the port has no E-Switch");
	if (attr->group != 0)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_GROUP, attr,
			"group %u not supported: rules live in one table (group 0)",
			attr->group);
	if (attr->ingress && attr->egress)
		return vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_ATTR,
				       attr,
				       "ingress and egress are exclusive");
	if (!attr->ingress && !attr->egress)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ATTR_INGRESS, attr,
				       "one of ingress or egress is required");
	if (attr->egress) {
		const struct vsteer_flow_row *row =
			vsteer_flow_attr_row("egress");

		if (!vsteer_flow_row_ok(row, plan->engine, ctx, false))
			return vsteer_flow_row_limit(plan, ctx, row, false,
						     error,
						     RTE_FLOW_ERROR_TYPE_ATTR_EGRESS,
						     attr);
	}
	/* levels >= 1: the device has VSTEER_VERBS_PRIOS_MIN priorities. */
	if (attr->priority > levels ||
	    (attr->priority == levels && !ctx->internal))
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, attr,
			"priority %u out of range: %u levels available (0 to %u)",
			attr->priority, levels, levels - 1);
	plan->ingress = attr->ingress;
	plan->egress = attr->egress;
	plan->rte_priority = attr->priority;
	if (attr->egress)
		plan->flags |= IBV_FLOW_ATTR_FLAGS_EGRESS;
	return 0;
}

/*
 * Actions.
 */

struct xl_act_state {
	const struct rte_flow_action *fate_act;
	const struct rte_flow_action *tag_act;
	const struct rte_flow_action *count_act;
	const struct rte_flow_action *age_act;
};

typedef int(xl_action_fn)(const struct vsteer_xlate_ctx *ctx,
			  struct vsteer_flow_plan *plan,
			  struct xl_act_state *as,
			  const struct rte_flow_action *act,
			  struct rte_flow_error *error);

static const char *
xl_fate_name(enum vsteer_fate fate)
{
	switch (fate) {
	case VSTEER_FATE_QUEUE:
		return "QUEUE";
	case VSTEER_FATE_RSS:
		return "RSS";
	case VSTEER_FATE_DROP:
		return "DROP";
	case VSTEER_FATE_PASSTHRU:
		return "PASSTHRU";
	default:
		return "none";
	}
}

static int
xl_set_fate(struct vsteer_flow_plan *plan, struct xl_act_state *as,
	    const struct rte_flow_action *act, enum vsteer_fate fate,
	    struct rte_flow_error *error)
{
	if (plan->fate != VSTEER_FATE_NONE)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: a flow takes one fate action, %s already given",
			xl_fate_name(fate), xl_fate_name(plan->fate));
	plan->fate = fate;
	as->fate_act = act;
	return 0;
}

static void
xl_aspec(struct vsteer_flow_plan *plan, enum vsteer_aspec a,
	 const struct rte_flow_action *act)
{
	/* Bounded: one TAG, one DROP and one COUNT at most. */
	RTE_VERIFY(plan->n_aspecs < RTE_DIM(plan->aspecs));
	plan->aspec_act[plan->n_aspecs] = act;
	plan->aspecs[plan->n_aspecs++] = (uint8_t)a;
}

static int
xl_act_queue(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	     struct xl_act_state *as, const struct rte_flow_action *act,
	     struct rte_flow_error *error)
{
	const struct rte_flow_action_queue *q = act->conf;
	int ret;

	ret = xl_set_fate(plan, as, act, VSTEER_FATE_QUEUE, error);
	if (ret < 0)
		return ret;
	if (q == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "QUEUE action: no configuration");
	if (q->index >= ctx->nb_rx_queues)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"QUEUE action: queue index %u out of range (%u Rx queues configured)",
			q->index, ctx->nb_rx_queues);
	plan->queue_one = (uint16_t)q->index;
	plan->queues = &plan->queue_one;
	plan->queue_num = 1;
	return 0;
}

static int
xl_rss_types(const struct vsteer_xlate_ctx *ctx,
	     const struct rte_flow_action *act, uint64_t types,
	     struct rte_flow_error *error)
{
	uint64_t bad = types & ~XL_RSS_ALL;

	if (bad != 0)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: types 0x%" PRIx64
			" not supported (IPv4/IPv6, TCP, UDP, ESP, L3/L4 SRC/DST_ONLY)",
			bad);
	bad = types & ~XL_RSS_MODS & ~ctx->rss_hf_supported;
	if (bad != 0)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: types 0x%" PRIx64
			" not supported by the device (supported 0x%" PRIx64
			")",
			bad, ctx->rss_hf_supported);
	if ((types & RTE_ETH_RSS_L3_SRC_ONLY) &&
	    (types & RTE_ETH_RSS_L3_DST_ONLY))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: L3_SRC_ONLY and L3_DST_ONLY are exclusive");
	if ((types & RTE_ETH_RSS_L4_SRC_ONLY) &&
	    (types & RTE_ETH_RSS_L4_DST_ONLY))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: L4_SRC_ONLY and L4_DST_ONLY are exclusive");
	if ((types & (RTE_ETH_RSS_L3_SRC_ONLY | RTE_ETH_RSS_L3_DST_ONLY)) &&
	    !(types & (XL_RSS_L3 | XL_RSS_L4)))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: L3_SRC_ONLY/L3_DST_ONLY without an IPv4 or IPv6 type");
	if ((types & (RTE_ETH_RSS_L4_SRC_ONLY | RTE_ETH_RSS_L4_DST_ONLY)) &&
	    !(types & XL_RSS_L4))
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: L4_SRC_ONLY/L4_DST_ONLY without a TCP or UDP type");
	return 0;
}

static int
xl_act_rss(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	   struct xl_act_state *as, const struct rte_flow_action *act,
	   struct rte_flow_error *error)
{
	const struct rte_flow_action_rss *rss = act->conf;
	uint64_t types;
	uint32_t i;
	int ret;

	ret = xl_set_fate(plan, as, act, VSTEER_FATE_RSS, error);
	if (ret < 0)
		return ret;
	if (rss == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "RSS action: no configuration");
	if (rss->func != RTE_ETH_HASH_FUNCTION_DEFAULT &&
	    rss->func != RTE_ETH_HASH_FUNCTION_TOEPLITZ)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: hash function %d not supported, only Toeplitz",
			(int)rss->func);
	if (rss->level > 2)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: level %u not supported (0 or 1 outer, 2 inner)",
			rss->level);
	if (rss->level == 2 && !ctx->inner_rss_ok)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"RSS action: level 2 (inner) not supported by the device");
	/* key_len 0: the port's default key, which vsteer_flow_plan_init()
	 * put in the plan. */
	if (rss->key_len != 0) {
		if (rss->key_len != VSTEER_RSS_KEY_LEN)
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				act,
				"RSS action: key length %u not supported, must be 0 (default key) or %u",
				rss->key_len, VSTEER_RSS_KEY_LEN);
		if (rss->key == NULL)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				act, "RSS action: key length %u with no key",
				rss->key_len);
		memcpy(plan->rss_key, rss->key, VSTEER_RSS_KEY_LEN);
	}
	if (rss->queue_num == 0 || rss->queue == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "RSS action: no queue given");
	if (rss->queue_num > RTE_MAX_QUEUES_PER_PORT)
		return vsteer_flow_err(error, ENOTSUP,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "RSS action: %u queues, at most %u",
				       rss->queue_num,
				       (unsigned int)RTE_MAX_QUEUES_PER_PORT);
	/* Repeated queues are kept: they weigh the indirection table. */
	for (i = 0; i < rss->queue_num; i++)
		if (rss->queue[i] >= ctx->nb_rx_queues)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF,
				act,
				"RSS action: queue[%u] index %u out of range (%u Rx queues configured)",
				i, rss->queue[i], ctx->nb_rx_queues);
	plan->queues = rss->queue;
	plan->queue_num = rss->queue_num;
	types = rss->types != 0 ? rss->types : ctx->rss_hf_default;
	ret = xl_rss_types(ctx, act, types, error);
	if (ret < 0)
		return ret;
	plan->rss_types = types;
	plan->rss_expand_types =
		ctx->rss_shared ? ctx->rss_hf_supported & XL_RSS_L3_L4 : types;
	plan->rss_level = rss->level;
	plan->rss_act = act;
	return 0;
}

static int
xl_act_drop(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	    struct xl_act_state *as, const struct rte_flow_action *act,
	    struct rte_flow_error *error)
{
	int ret;

	RTE_SET_USED(ctx);
	ret = xl_set_fate(plan, as, act, VSTEER_FATE_DROP, error);
	if (ret < 0)
		return ret;
	if (as->tag_act != NULL)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"DROP action: cannot be combined with MARK or FLAG");
	xl_aspec(plan, VSTEER_ASPEC_DROP, act);
	return 0;
}

static int
xl_act_passthru(const struct vsteer_xlate_ctx *ctx,
		struct vsteer_flow_plan *plan, struct xl_act_state *as,
		const struct rte_flow_action *act, struct rte_flow_error *error)
{
	int ret;

	RTE_SET_USED(ctx);
	ret = xl_set_fate(plan, as, act, VSTEER_FATE_PASSTHRU, error);
	if (ret < 0)
		return ret;
	if (as->tag_act != NULL)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"PASSTHRU action: cannot be combined with MARK or FLAG (the frame that goes on is not tagged)");
	plan->flags |= IBV_FLOW_ATTR_FLAGS_DONT_TRAP;
	return 0;
}

static int
xl_tag(struct vsteer_flow_plan *plan, struct xl_act_state *as,
       const struct rte_flow_action *act, const char *what,
       struct rte_flow_error *error)
{
	if (as->tag_act != NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION, act,
				       "%s action: only one MARK or FLAG per flow",
				       what);
	if (plan->fate == VSTEER_FATE_DROP)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION, act,
				       "%s action: cannot be combined with DROP",
				       what);
	if (plan->fate == VSTEER_FATE_PASSTHRU)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"%s action: cannot be combined with PASSTHRU (the frame that goes on is not tagged)",
			what);
	as->tag_act = act;
	xl_aspec(plan, VSTEER_ASPEC_TAG, act);
	return 0;
}

static int
xl_act_mark(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	    struct xl_act_state *as, const struct rte_flow_action *act,
	    struct rte_flow_error *error)
{
	const struct rte_flow_action_mark *mark = act->conf;
	int ret;

	RTE_SET_USED(ctx);
	if (mark == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "MARK action: no configuration");
	if (mark->id >= XL_MARK_MAX)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"MARK action: id %u out of range, must be below 0x%x",
			mark->id, XL_MARK_MAX);
	ret = xl_tag(plan, as, act, "MARK", error);
	if (ret < 0)
		return ret;
	plan->mark = true;
	plan->mark_id = mark->id;
	return 0;
}

static int
xl_act_flag(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	    struct xl_act_state *as, const struct rte_flow_action *act,
	    struct rte_flow_error *error)
{
	int ret;

	RTE_SET_USED(ctx);
	ret = xl_tag(plan, as, act, "FLAG", error);
	if (ret < 0)
		return ret;
	plan->flag = true;
	return 0;
}

static int
xl_count(struct vsteer_flow_plan *plan, struct xl_act_state *as,
	 const struct rte_flow_action *act, const char *what,
	 struct rte_flow_error *error)
{
	if (as->count_act != NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION, act,
				       "%s action: only one COUNT per flow",
				       what);
	as->count_act = act;
	xl_aspec(plan, VSTEER_ASPEC_COUNT, act);
	return 0;
}

static int
xl_act_count(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	     struct xl_act_state *as, const struct rte_flow_action *act,
	     struct rte_flow_error *error)
{
	const struct rte_flow_action_count *c = act->conf;
	int ret;

	RTE_SET_USED(ctx);
	ret = xl_count(plan, as, act, "COUNT", error);
	if (ret < 0)
		return ret;
	plan->count = true;
	plan->count_id = c != NULL ? c->id : 0;
	return 0;
}

static int
xl_act_indirect(const struct vsteer_xlate_ctx *ctx,
		struct vsteer_flow_plan *plan, struct xl_act_state *as,
		const struct rte_flow_action *act, struct rte_flow_error *error)
{
	int ret;

	RTE_SET_USED(ctx);
	/* The flow layer checks that the handle is one of its COUNTs. */
	if (act->conf == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "INDIRECT action: no handle");
	ret = xl_count(plan, as, act, "INDIRECT", error);
	if (ret < 0)
		return ret;
	plan->count_handle = act->conf;
	return 0;
}

/* Header rewrites, decap and encap (vsteer_flow_edit.c, which says where
 * each may stand). */
static int
xl_act_edit(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	    struct xl_act_state *as, const struct rte_flow_action *act,
	    struct rte_flow_error *error)
{
	RTE_SET_USED(as);
	return vsteer_flow_edit_action(ctx, plan, act, error);
}

/*
 * AGE: the flow ages on its own counter, as DPDK's mlx5 ages the rules of
 * its root table (flow_dv_translate_create_counter()): the flow layer
 * reads it every second and reports the flow once it saw no hit for more
 * than timeout seconds. A COUNT action of the flow gives that counter,
 * else one is made for AGE (the COUNT spec or DevX counter is the same);
 * an indirect COUNT, shared, cannot say whether this flow was hit.
 */
static int
xl_act_age(const struct vsteer_xlate_ctx *ctx, struct vsteer_flow_plan *plan,
	   struct xl_act_state *as, const struct rte_flow_action *act,
	   struct rte_flow_error *error)
{
	const struct rte_flow_action_age *age = act->conf;

	RTE_SET_USED(ctx);
	if (age == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "AGE action: no configuration");
	if (as->age_act != NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION, act,
				       "AGE action: only one AGE per flow");
	if (age->timeout == 0)
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
			"AGE action: timeout 0; give the seconds without a hit after which the flow is aged");
	if (age->reserved != 0)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_CONF, act,
				       "AGE action: reserved bits must be 0");
	as->age_act = act;
	plan->age = true;
	plan->age_timeout = age->timeout;
	plan->age_context = age->context;
	return 0;
}

/* After the actions: the counter AGE reads. */
static int
xl_age_counter(struct vsteer_flow_plan *plan, const struct xl_act_state *as,
	       struct rte_flow_error *error)
{
	if (!plan->age)
		return 0;
	if (plan->count_handle != NULL)
		return vsteer_flow_err(
			error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, as->age_act,
			"AGE action: a flow ages on a counter of its own, not with an indirect COUNT shared with others");
	if (!plan->count) {
		plan->count = true;
		plan->count_id = 0;
		xl_aspec(plan, VSTEER_ASPEC_COUNT, as->age_act);
	}
	return 0;
}

struct xl_action {
	bool egress; /* allowed on egress rules */
	xl_action_fn *fn;
};

#define XL_EDIT(t) [RTE_FLOW_ACTION_TYPE_##t] = { true, xl_act_edit }

/* Adding an action is adding a row here and in vsteer_flow_engines.c. */
static const struct xl_action xl_actions[] = {
	[RTE_FLOW_ACTION_TYPE_QUEUE] = { false, xl_act_queue },
	[RTE_FLOW_ACTION_TYPE_RSS] = { false, xl_act_rss },
	[RTE_FLOW_ACTION_TYPE_DROP] = { true, xl_act_drop },
	[RTE_FLOW_ACTION_TYPE_PASSTHRU] = { false, xl_act_passthru },
	[RTE_FLOW_ACTION_TYPE_MARK] = { false, xl_act_mark },
	[RTE_FLOW_ACTION_TYPE_FLAG] = { false, xl_act_flag },
	[RTE_FLOW_ACTION_TYPE_COUNT] = { true, xl_act_count },
	[RTE_FLOW_ACTION_TYPE_INDIRECT] = { true, xl_act_indirect },
	XL_EDIT(SET_MAC_SRC),
	XL_EDIT(SET_MAC_DST),
	XL_EDIT(SET_IPV4_SRC),
	XL_EDIT(SET_IPV4_DST),
	XL_EDIT(SET_IPV6_SRC),
	XL_EDIT(SET_IPV6_DST),
	XL_EDIT(SET_TP_SRC),
	XL_EDIT(SET_TP_DST),
	XL_EDIT(SET_TTL),
	XL_EDIT(DEC_TTL),
	XL_EDIT(SET_IPV4_DSCP),
	XL_EDIT(SET_IPV6_DSCP),
	XL_EDIT(INC_TCP_SEQ),
	XL_EDIT(DEC_TCP_SEQ),
	XL_EDIT(INC_TCP_ACK),
	XL_EDIT(DEC_TCP_ACK),
	XL_EDIT(MODIFY_FIELD),
	XL_EDIT(VXLAN_DECAP),
	XL_EDIT(NVGRE_DECAP),
	XL_EDIT(RAW_DECAP),
	XL_EDIT(VXLAN_ENCAP),
	XL_EDIT(NVGRE_ENCAP),
	XL_EDIT(RAW_ENCAP),
	[RTE_FLOW_ACTION_TYPE_AGE] = { true, xl_act_age },
};

int
vsteer_flow_actions(const struct vsteer_xlate_ctx *ctx,
		    const struct rte_flow_action actions[],
		    struct vsteer_flow_plan *plan, struct rte_flow_error *error)
{
	const struct rte_flow_action *act;
	struct xl_act_state as;
	int ret;

	if (actions == NULL)
		return vsteer_flow_err(error, EINVAL,
				       RTE_FLOW_ERROR_TYPE_ACTION_NUM, NULL,
				       "no actions");
	memset(&as, 0, sizeof(as));
	for (act = actions; act->type != RTE_FLOW_ACTION_TYPE_END; act++) {
		const struct vsteer_flow_row *row;
		const struct xl_action *xa;

		if (act->type == RTE_FLOW_ACTION_TYPE_VOID)
			continue;
		row = vsteer_flow_action_row(act->type);
		if (row == NULL ||
		    (unsigned int)act->type >= RTE_DIM(xl_actions) ||
		    xl_actions[act->type].fn == NULL)
			return vsteer_flow_err(error, ENOTSUP,
					       RTE_FLOW_ERROR_TYPE_ACTION, act,
					       "action type %d (%s) not supported",
					       (int)act->type,
					       vsteer_flow_action_type_name(
						       act->type));
		xa = &xl_actions[act->type];
		if (plan->egress && !xa->egress)
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ACTION, act,
				"%s action: not supported on egress rules (DROP, COUNT, header rewrites and encap)",
				row->name);
		if (!vsteer_flow_row_ok(row, plan->engine, ctx, false))
			return vsteer_flow_row_limit(plan, ctx, row, false,
						     error,
						     RTE_FLOW_ERROR_TYPE_ACTION,
						     act);
		ret = xa->fn(ctx, plan, &as, act, error);
		if (ret < 0)
			return ret;
	}
	ret = xl_age_counter(plan, &as, error);
	if (ret < 0)
		return ret;
	ret = vsteer_flow_edit_finish(ctx, plan, act, error);
	if (ret < 0)
		return ret;
	if (plan->egress) {
		if (plan->fate == VSTEER_FATE_NONE && as.count_act == NULL &&
		    plan->edit.n_mod == 0 &&
		    plan->edit.reformat == VSTEER_REFORMAT_NONE)
			return vsteer_flow_err(
				error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
				"egress rule without DROP, COUNT, header rewrite or encap: it would change nothing");
	} else if (plan->fate == VSTEER_FATE_NONE) {
		return vsteer_flow_err(
			error, EINVAL, RTE_FLOW_ERROR_TYPE_ACTION, act,
			"no fate action: give QUEUE, RSS, DROP or PASSTHRU");
	}
	return 0;
}

/*
 * Items.
 */

static bool
xl_zero(const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (p[i] != 0)
			return false;
	return true;
}

/*
 * The bits of each item an engine takes whatever the device (rows without
 * a VSTEER_SUP_IF_* condition), outer and inner: an item whose mask has
 * no other bit and no range needs no walk of its rows. The rows of an
 * item share no bit (test_flow_fields checks it); an item whose rows did
 * would always take the walk.
 */
static uint8_t xl_plain[VSTEER_ITEM_N][VSTEER_FLOW_ENGINE_N][2]
		       [sizeof(union vsteer_item_buf)];
static bool xl_plain_ok[VSTEER_ITEM_N];

RTE_INIT(xl_plain_init)
{
	uint8_t seen[sizeof(union vsteer_item_buf)];
	unsigned int it, r, e, in, i;

	for (it = 0; it < VSTEER_ITEM_N; it++) {
		const struct vsteer_flow_item_desc *d =
			vsteer_flow_item_desc_at(it);
		bool ok = d != NULL && d->size <= sizeof(seen);

		memset(seen, 0, sizeof(seen));
		for (r = 0; ok && r < d->n_rows; r++) {
			const struct vsteer_flow_row *row = &d->rows[r];
			const uint8_t *bits = row->bits;

			if (row->off + row->len > d->size) {
				ok = false;
				break;
			}
			for (i = 0; i < row->len; i++) {
				uint8_t b = bits != NULL ? bits[row->off + i] :
							   0xff;

				if (seen[row->off + i] & b)
					ok = false;
				seen[row->off + i] |= b;
				for (e = 0; e < VSTEER_FLOW_ENGINE_N; e++) {
					uint16_t sup = row->sup[e];

					if (sup & VSTEER_SUP_IF_ALL)
						continue;
					for (in = 0; in < 2; in++)
						if (sup &
						    (in ? VSTEER_SUP_INNER :
							  VSTEER_SUP_OUTER))
							xl_plain[it][e][in]
								[row->off + i] |=
								b;
				}
			}
		}
		xl_plain_ok[it] = ok;
	}
}

int
vsteer_flow_item_check(const struct vsteer_xlate_ctx *ctx,
		       const struct vsteer_flow_item_desc *d,
		       const struct rte_flow_item *item, bool inner,
		       struct vsteer_item_vals *v,
		       struct vsteer_flow_plan *plan,
		       struct rte_flow_error *error)
{
	const uint8_t *spec = item->spec, *last = item->last, *mask;
	uint8_t rest[sizeof(v->mask.raw)];
	unsigned int r;
	size_t i;

	RTE_BUILD_BUG_ON(sizeof(struct rte_flow_item_ipv6) >
			 sizeof(v->val.raw));
	memset(v, 0, sizeof(*v));
	if (spec == NULL && (item->mask != NULL || last != NULL))
		return vsteer_flow_err(error, EINVAL, RTE_FLOW_ERROR_TYPE_ITEM,
				       item,
				       "%s item: mask or last given without spec",
				       d->name);
	if (spec == NULL)
		return 0; /* any header of this type, whatever its fields */
	v->spec = true;
	mask = item->mask != NULL ? item->mask : d->def_mask;
	/* Every masked bit in a field the engine takes, no range: what the
	 * walk below would conclude, without it (a word at a time). */
	if (last == NULL && xl_plain_ok[d->id]) {
		const uint8_t *plain = xl_plain[d->id][plan->engine][inner];
		uint64_t other = 0, m, sp, pl;

		for (i = 0; i + sizeof(m) <= d->size; i += sizeof(m)) {
			memcpy(&m, mask + i, sizeof(m));
			memcpy(&sp, spec + i, sizeof(sp));
			memcpy(&pl, plain + i, sizeof(pl));
			other |= m & ~pl;
			memcpy(v->mask.raw + i, &m, sizeof(m));
			m &= sp;
			memcpy(v->val.raw + i, &m, sizeof(m));
		}
		if (i + sizeof(uint32_t) <= d->size) {
			uint32_t m4, s4, p4;

			memcpy(&m4, mask + i, sizeof(m4));
			memcpy(&s4, spec + i, sizeof(s4));
			memcpy(&p4, plain + i, sizeof(p4));
			other |= m4 & ~p4;
			memcpy(v->mask.raw + i, &m4, sizeof(m4));
			m4 &= s4;
			memcpy(v->val.raw + i, &m4, sizeof(m4));
			i += sizeof(m4);
		}
		for (; i < d->size; i++) {
			other |= mask[i] & (uint8_t)~plain[i];
			v->mask.raw[i] = mask[i];
			v->val.raw[i] = spec[i] & mask[i];
		}
		if (other == 0)
			return 0;
		memset(v->val.raw, 0, d->size);
	}
	memcpy(v->mask.raw, mask, d->size);
	memcpy(rest, mask, d->size);
	for (r = 0; r < d->n_rows; r++) {
		const struct vsteer_flow_row *row = &d->rows[r];
		const uint8_t *bits = row->bits;
		uint8_t rm[sizeof(v->mask.raw)];
		bool lzero = true, leq = true;

		for (i = 0; i < row->len; i++) {
			uint8_t b = bits != NULL ? bits[row->off + i] : 0xff;

			rm[i] = mask[row->off + i] & b;
			rest[row->off + i] &= (uint8_t)~b;
		}
		if (xl_zero(rm, row->len))
			continue;
		if (!vsteer_flow_row_ok(row, plan->engine, ctx, inner))
			return vsteer_flow_row_limit(plan, ctx, row, inner,
						     error,
						     RTE_FLOW_ERROR_TYPE_ITEM_MASK,
						     item);
		if (last == NULL)
			continue;
		/* A zero last, or one equal to spec, is no range. */
		for (i = 0; i < row->len; i++) {
			uint8_t l = last[row->off + i] & rm[i];

			lzero &= l == 0;
			leq &= l == (spec[row->off + i] & rm[i]);
		}
		if (lzero || leq)
			continue;
		if (!(row->sup[plan->engine] & VSTEER_SUP_RANGE)) {
			char subject[64];

			snprintf(subject, sizeof(subject), "%s item: %s",
				 d->name, row->name);
			return vsteer_flow_limit(plan, error,
						 RTE_FLOW_ERROR_TYPE_ITEM_LAST,
						 item, subject,
						 "match a range (last)");
		}
		v->range = true;
		for (i = 0; i < row->len; i++)
			v->last.raw[row->off + i] |= last[row->off + i] & rm[i];
	}
	for (i = 0; i < d->size; i++)
		if (rest[i] != 0)
			return vsteer_flow_err(
				error, ENOTSUP, RTE_FLOW_ERROR_TYPE_ITEM_MASK,
				item,
				"%s item: mask 0x%02x on byte %zu, which no field has",
				d->name, rest[i], i);
	/* Values are written ANDed with their masks. */
	for (i = 0; i < d->size; i++)
		v->val.raw[i] = spec[i] & mask[i];
	return 0;
}

/*
 * RSS expansion.
 */

uint64_t
vsteer_flow_rss_fields(uint64_t types, uint8_t fam, uint8_t l4p, bool inner)
{
	uint64_t l3t, tcpt, udpt, l3f, h = 0;

	if (fam == 4) {
		l3t = XL_RSS_IPV4_L3;
		tcpt = XL_RSS_IPV4_TCP;
		udpt = XL_RSS_IPV4_UDP;
		l3f = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4;
		if (types & RTE_ETH_RSS_L3_SRC_ONLY)
			l3f = IBV_RX_HASH_SRC_IPV4;
		else if (types & RTE_ETH_RSS_L3_DST_ONLY)
			l3f = IBV_RX_HASH_DST_IPV4;
	} else if (fam == 6) {
		l3t = XL_RSS_IPV6_L3;
		tcpt = XL_RSS_IPV6_TCP;
		udpt = XL_RSS_IPV6_UDP;
		l3f = IBV_RX_HASH_SRC_IPV6 | IBV_RX_HASH_DST_IPV6;
		if (types & RTE_ETH_RSS_L3_SRC_ONLY)
			l3f = IBV_RX_HASH_SRC_IPV6;
		else if (types & RTE_ETH_RSS_L3_DST_ONLY)
			l3f = IBV_RX_HASH_DST_IPV6;
	} else {
		return 0;
	}
	if (l4p == IPPROTO_TCP && (types & tcpt)) {
		h = l3f | IBV_RX_HASH_SRC_PORT_TCP | IBV_RX_HASH_DST_PORT_TCP;
		if (types & RTE_ETH_RSS_L4_SRC_ONLY)
			h &= ~(uint64_t)IBV_RX_HASH_DST_PORT_TCP;
		else if (types & RTE_ETH_RSS_L4_DST_ONLY)
			h &= ~(uint64_t)IBV_RX_HASH_SRC_PORT_TCP;
	} else if (l4p == IPPROTO_UDP && (types & udpt)) {
		h = l3f | IBV_RX_HASH_SRC_PORT_UDP | IBV_RX_HASH_DST_PORT_UDP;
		if (types & RTE_ETH_RSS_L4_SRC_ONLY)
			h &= ~(uint64_t)IBV_RX_HASH_DST_PORT_UDP;
		else if (types & RTE_ETH_RSS_L4_DST_ONLY)
			h &= ~(uint64_t)IBV_RX_HASH_SRC_PORT_UDP;
	} else if (types & l3t) {
		h = l3f;
	}
	if (l4p == IPPROTO_ESP && (types & RTE_ETH_RSS_ESP))
		h |= IBV_RX_HASH_IPSEC_SPI;
	if (h != 0 && inner)
		h |= IBV_RX_HASH_INNER;
	return h;
}

static void
xl_variant_add(struct vsteer_flow_variant *vs, unsigned int *n, uint8_t fam,
	       uint8_t l4p, bool add_l3, bool add_l4)
{
	struct vsteer_flow_variant *v = &vs[(*n)++];

	memset(v, 0, sizeof(*v));
	v->fam = fam;
	v->l4p = l4p;
	v->add_l3 = add_l3;
	v->add_l4 = add_l4;
}

unsigned int
vsteer_flow_variants(const struct vsteer_flow_plan *plan,
		     const struct vsteer_flow_stack *hashed,
		     bool hashed_is_last, bool tunnel,
		     struct vsteer_flow_variant vs[VSTEER_MAX_EXPAND])
{
	bool rss = plan->fate == VSTEER_FATE_RSS;
	bool inner = rss && plan->rss_level >= 2;
	/* The hashed stack is the tunnel's inner one: with level 2, or
	 * after a decap (hashed as the outer headers then). */
	bool deep = inner || (rss && plan->decap);
	uint64_t t = plan->rss_expand_types;
	unsigned int n = 0, i, j;
	static const uint8_t fams[] = { 4, 6 };

	xl_variant_add(vs, &n, hashed->fam, hashed->l4p, false, false);
	/* The hashed stack must be the last one and still open above. */
	if (rss && hashed_is_last && !hashed->l4) {
		for (i = 0; i < RTE_DIM(fams); i++) {
			uint8_t f = fams[i];
			uint16_t et = f == 4 ? RTE_ETHER_TYPE_IPV4 :
					       RTE_ETHER_TYPE_IPV6;
			uint64_t l3t = f == 4 ? XL_RSS_IPV4_L3 : XL_RSS_IPV6_L3;
			uint64_t tcpt = f == 4 ? XL_RSS_IPV4_TCP :
						 XL_RSS_IPV6_TCP;
			uint64_t udpt = f == 4 ? XL_RSS_IPV4_UDP :
						 XL_RSS_IPV6_UDP;
			bool fam_ok = hashed->fam == 0 ?
					      (et & hashed->type_m) ==
						      hashed->type_v :
					      hashed->fam == f;

			if (!fam_ok)
				continue;
			if ((t & udpt) &&
			    (IPPROTO_UDP & hashed->proto_m) == hashed->proto_v)
				xl_variant_add(vs, &n, f, IPPROTO_UDP,
					       hashed->fam == 0, true);
			if ((t & tcpt) &&
			    (IPPROTO_TCP & hashed->proto_m) == hashed->proto_v)
				xl_variant_add(vs, &n, f, IPPROTO_TCP,
					       hashed->fam == 0, true);
			if (hashed->fam == 0 && (t & l3t))
				xl_variant_add(vs, &n, f, 0, true, false);
		}
	}
	RTE_VERIFY(n <= VSTEER_MAX_EXPAND);
	for (i = 0; i < n; i++) {
		struct vsteer_flow_variant *v = &vs[i];

		if (tunnel && !deep)
			v->sub = VSTEER_SUBPRIO_L4;
		else if (v->l4p != 0)
			v->sub = VSTEER_SUBPRIO_L4;
		else if (v->fam != 0)
			v->sub = VSTEER_SUBPRIO_L3;
		else
			v->sub = VSTEER_SUBPRIO_L2;
		v->hash_fields = rss ? vsteer_flow_rss_fields(plan->rss_types,
							      v->fam, v->l4p,
							      inner) :
				       0;
	}
	/* Most specific rules first (stable). */
	for (i = 1; i < n; i++) {
		struct vsteer_flow_variant tmp = vs[i];

		for (j = i; j > 0 && vs[j - 1].sub > tmp.sub; j--)
			vs[j] = vs[j - 1];
		vs[j] = tmp;
	}
	return n;
}
