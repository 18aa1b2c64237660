/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VSTEER_FLOW_VERBS_H
#define VSTEER_FLOW_VERBS_H

/*
 * rte_flow -> verbs translation. Pure: no device call is made here, so the
 * same walk serves validate and create, and unit tests check its bytes.
 *
 * A translated flow is a plan (vsteer_flow_xlate.h): the fate (queue, RSS,
 * drop), the marks and counters, and one or more verbs rules, each an
 * ibv_flow_attr followed by its specs exactly as <infiniband/verbs.h> lays
 * them out. RSS whose types span more than one L3 family or L4 protocol
 * expands into one rule per type (one hash QP hashes one L3 family and one
 * L4 protocol).
 *
 * Decisions (details in vsteer_flow_verbs.c and vsteer_flow_xlate.c):
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
 * - What a verbs chain cannot express (vsteer_flow_engines.c) is refused
 *   with plan->limit set, so that the flow layer can try the matcher.
 * - Error messages live in thread-local storage until the next error.
 */

#include "vsteer_flow_xlate.h"

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

/* Write a human-readable decode of one verbs rule (spec by spec, with hex)
 * to f, for rte_flow_dev_dump. */
void vsteer_flow_verbs_dump(FILE *f, const struct vsteer_verbs_rule *rule);

#endif /* VSTEER_FLOW_VERBS_H */
