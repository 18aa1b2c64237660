/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VSTEER_FLOW_VERBS_H
#define VSTEER_FLOW_VERBS_H

/*
 * rte_flow -> verbs translation. Pure: no device call is made here, so the
 * same walk serves validate and create, and unit tests check its bytes.
 *
 * A translated flow is a plan: the fate (queue, RSS, drop), the marks and
 * counters, and one or more verbs rules, each an ibv_flow_attr followed by
 * its specs exactly as <infiniband/verbs.h> lays them out. RSS whose types
 * span more than one L3 family or L4 protocol expands into one rule per
 * type (one hash QP hashes one L3 family and one L4 protocol).
 *
 * Decisions (details in vsteer_flow_verbs.c):
 * - Priority: verbs priority = 3 * rte priority + sub-priority, the
 *   sub-priority being the deepest layer the rule matches (L4 0, L3 1,
 *   L2 2; a tunnel pattern counts as L4 unless RSS hashes the inner
 *   headers, level >= 2). (max_verbs_prio + 1) / 3 levels exist; the last
 *   one is reserved for the driver's default flows (ctx->internal).
 * - Implied fields follow the mlx5 verbs engine: the device infers the L2
 *   ether_type and the L3 protocol from the presence of an L3/L4 spec, so
 *   they are not written; what it cannot infer is: IP protocol 47/50 under
 *   GRE/ESP, UDP port 4789/6635 under VXLAN/MPLS, GRE protocol from what
 *   the GRE carries. Conflicting user values are refused.
 * - IPv4 is written as IBV_FLOW_SPEC_IPV4 when only addresses are matched,
 *   as IBV_FLOW_SPEC_IPV4_EXT when protocol or TOS is (the man page's own
 *   example is then reproduced byte for byte).
 * - PASSTHRU: IBV_FLOW_ATTR_FLAGS_DONT_TRAP; the rule must be attached to a
 *   QP that discards what it receives (the drop/sink QP), so that the frame
 *   is only counted and goes on to lower priorities, never delivered twice.
 * - Egress: needs ctx->egress_ok; only DROP and COUNT are accepted (no Rx
 *   queue or tag exists on transmit); a COUNT-only egress rule has fate
 *   NONE: frames are counted and sent.
 * - Error messages live in thread-local storage until the next error.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <rte_common.h>
#include <rte_flow.h>

#define VSTEER_RSS_KEY_LEN 40
#define VSTEER_MAX_EXPAND 8	  /* verbs rules per rte_flow */
#define VSTEER_MAX_SPEC_BYTES 512 /* attr + specs of one verbs rule */

/* Sub-priority inside one rte_flow priority level: L4 rules first. */
enum vsteer_subprio {
	VSTEER_SUBPRIO_L4 = 0,
	VSTEER_SUBPRIO_L3 = 1,
	VSTEER_SUBPRIO_L2 = 2,
	VSTEER_SUBPRIO_N = 3,
};

/* What the translator needs to know about the port and device. */
struct vsteer_xlate_ctx {
	uint16_t nb_rx_queues;
	uint8_t port_num;	 /* ibv_flow_attr.port */
	uint32_t max_verbs_prio; /* highest verbs priority the device has */
	bool egress_ok;		 /* device accepts IBV_FLOW_ATTR_FLAGS_EGRESS */
	bool tag_ok;		 /* flow tags in completions */
	bool inner_rss_ok;	 /* IBV_RX_HASH_INNER */
	bool count_ok;		 /* ibv_counters */
	bool internal;		 /* driver's own default flows: may use the
				     * reserved lowest level */
	uint64_t rss_hf_supported; /* RTE_ETH_RSS_* the device can hash */
	uint64_t rss_hf_default;   /* types of an RSS action with types 0 */
	const uint8_t *rss_key_default; /* VSTEER_RSS_KEY_LEN bytes; NULL:
					 * the usual 40-byte default key */
	uint16_t max_spec_bytes;	/* bytes of attr + specs the provider
				     * takes per rule; 0 or more than
				     * VSTEER_MAX_SPEC_BYTES: that value */
};

enum vsteer_fate {
	VSTEER_FATE_NONE = 0,
	VSTEER_FATE_QUEUE,    /* hash QP over a 1-entry table */
	VSTEER_FATE_RSS,      /* hash QP over the queue subset */
	VSTEER_FATE_DROP,     /* IBV_FLOW_SPEC_ACTION_DROP */
	VSTEER_FATE_PASSTHRU, /* DONT_TRAP: copy, keep going */
};

struct vsteer_verbs_rule {
	/* attr + specs, attr->size = total bytes, attr->num_of_specs set. */
	union {
		struct ibv_flow_attr attr;
		uint8_t buf[VSTEER_MAX_SPEC_BYTES];
	};
	uint16_t size; /* bytes used in buf */
	/* Offset in buf of the IBV_FLOW_SPEC_ACTION_COUNT spec whose counters
	 * pointer is filled when the rule is applied; 0 when none. */
	uint16_t count_off;
	/* IBV_RX_HASH_* of the destination hash QP. 0 on an RSS rule means
	 * "not hashed": attach it to a one-entry table of queues[0] (the
	 * kernel refuses fields 0 over a larger table). */
	uint64_t hash_fields;
	enum vsteer_subprio subprio;
};

struct vsteer_flow_plan {
	enum vsteer_fate fate;
	bool ingress, egress;
	uint32_t rte_priority;
	/* QUEUE: queues[0]; RSS: the subset, in the action's order. */
	uint16_t queues[RTE_MAX_QUEUES_PER_PORT];
	uint32_t queue_num;
	uint8_t rss_key[VSTEER_RSS_KEY_LEN];
	uint32_t rss_level; /* 0/1 outer, 2 inner */
	uint64_t rss_types; /* RTE_ETH_RSS_* after defaults */
	bool mark, flag;
	uint32_t mark_id;
	bool count; /* COUNT action: a counters object */
	uint32_t count_id;
	/* INDIRECT COUNT: the handle given by the application (count stays
	 * false: the counters object belongs to the handle). */
	const struct rte_flow_action_handle *count_handle;
	uint32_t n_rules;
	struct vsteer_verbs_rule rules[VSTEER_MAX_EXPAND];
};

/*
 * Translate (and so validate) one rte_flow. Returns 0, or a negative errno
 * with error set: type and cause name the offending attr/item/action and
 * the message names the field and the limit.
 */
int vsteer_flow_verbs_translate(const struct vsteer_xlate_ctx *ctx,
				const struct rte_flow_attr *attr,
				const struct rte_flow_item pattern[],
				const struct rte_flow_action actions[],
				struct vsteer_flow_plan *plan,
				struct rte_flow_error *error);

/* Number of rte_flow priority levels open to applications. */
uint32_t vsteer_flow_user_levels(const struct vsteer_xlate_ctx *ctx);

/* Verbs priority for (rte priority, sub-priority); the driver's default
 * flows use level vsteer_flow_user_levels(ctx). */
uint32_t vsteer_flow_verbs_prio(const struct vsteer_xlate_ctx *ctx,
				uint32_t rte_prio, enum vsteer_subprio sub);

/* Write a human-readable decode of one verbs rule (spec by spec, with hex)
 * to f, for rte_flow_dev_dump. */
void vsteer_flow_verbs_dump(FILE *f, const struct vsteer_verbs_rule *rule);

/* rte_flow_error_set() with a printf-formatted message, for every flow
 * file of the driver: the message lives in one thread-local buffer and
 * stays valid until the next error of the thread. Returns -code. */
int vsteer_flow_err(struct rte_flow_error *error, int code,
		    enum rte_flow_error_type type, const void *cause,
		    const char *fmt, ...) __rte_format_printf(5, 6);

#endif /* VSTEER_FLOW_VERBS_H */
