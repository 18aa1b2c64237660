/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VSTEER_FLOW_DV_H
#define VSTEER_FLOW_DV_H

/*
 * rte_flow -> mlx5dv matcher entries (PRM fte_match_param mask and value).
 * Pure: no device call is made here, so validate and create share the walk
 * and unit tests check the bytes. The translation validates attributes,
 * pattern and actions on its own (the steps shared with the verbs engine
 * in vsteer_flow_xlate.c, the matcher column of vsteer_flow_engines.c):
 * a flow becomes one matcher entry per device rule of the plan (an RSS
 * expansion gives several, each to the hash QP of its hashed type). The
 * flow ops map the actions (MLX5DV_FLOW_ACTION_DEST_IBV_QP, DROP, TAG,
 * COUNTERS_DEVX); this file also builds and parses the DevX flow-counter
 * commands those need.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/mlx5dv.h>
#include <rte_flow.h>

#include "vsteer_flow_xlate.h"
#include "vsteer_prm.h"

/* Layers seen in a pattern (also tells the flow ops what was matched). */
#define VSTEER_DV_L_OUTER_L2 (1u << 0)
#define VSTEER_DV_L_OUTER_VLAN (1u << 1)
#define VSTEER_DV_L_OUTER_IPV4 (1u << 2)
#define VSTEER_DV_L_OUTER_IPV6 (1u << 3)
#define VSTEER_DV_L_OUTER_TCP (1u << 4)
#define VSTEER_DV_L_OUTER_UDP (1u << 5)
#define VSTEER_DV_L_OUTER_ESP (1u << 6)
#define VSTEER_DV_L_INNER_SHIFT 7
#define VSTEER_DV_L_INNER_L2 (VSTEER_DV_L_OUTER_L2 << VSTEER_DV_L_INNER_SHIFT)
#define VSTEER_DV_L_INNER_VLAN \
	(VSTEER_DV_L_OUTER_VLAN << VSTEER_DV_L_INNER_SHIFT)
#define VSTEER_DV_L_INNER_IPV4 \
	(VSTEER_DV_L_OUTER_IPV4 << VSTEER_DV_L_INNER_SHIFT)
#define VSTEER_DV_L_INNER_IPV6 \
	(VSTEER_DV_L_OUTER_IPV6 << VSTEER_DV_L_INNER_SHIFT)
#define VSTEER_DV_L_INNER_TCP (VSTEER_DV_L_OUTER_TCP << VSTEER_DV_L_INNER_SHIFT)
#define VSTEER_DV_L_INNER_UDP (VSTEER_DV_L_OUTER_UDP << VSTEER_DV_L_INNER_SHIFT)
#define VSTEER_DV_L_INNER_ESP (VSTEER_DV_L_OUTER_ESP << VSTEER_DV_L_INNER_SHIFT)
#define VSTEER_DV_L_VXLAN (1u << 14)
#define VSTEER_DV_L_GRE (1u << 15)
#define VSTEER_DV_L_GRE_KEY (1u << 16)
#define VSTEER_DV_L_MPLS (1u << 17)
#define VSTEER_DV_L_NVGRE (1u << 18) /* with VSTEER_DV_L_GRE */
#define VSTEER_DV_L_TUNNEL \
	(VSTEER_DV_L_VXLAN | VSTEER_DV_L_GRE | VSTEER_DV_L_MPLS)

/*
 * Laid out like struct mlx5dv_flow_match_parameters (size_t match_sz, then
 * the 64-bit aligned buffer), so a pointer to it can be handed to
 * mlx5dv_create_flow_matcher() / mlx5dv_create_flow() as is; see
 * vsteer_dv_params().
 */
struct vsteer_dv_params {
	size_t size; /* match_sz: bytes of buf in use */
	uint64_t buf[VSTEER_PRM_MATCH_PARAM_BYTES / sizeof(uint64_t)];
};

struct vsteer_dv_match {
	struct vsteer_dv_params mask;
	struct vsteer_dv_params value; /* always value & mask */
	uint8_t criteria;	       /* match_criteria_enable */
	uint32_t layers;	       /* VSTEER_DV_L_* */
};

static inline struct mlx5dv_flow_match_parameters *
vsteer_dv_params(struct vsteer_dv_params *p)
{
	return (struct mlx5dv_flow_match_parameters *)(void *)p;
}

/*
 * Translate (and so validate) a flow for the matcher engine. Returns 0 with
 * plan filled (plan->n_rules matcher entries, plan->var[]) and base the
 * match of the pattern itself; or a negative errno with error set (and
 * rte_errno): type and cause name the attribute, item or action, the
 * message the field; plan->limit says when the matcher cannot express it.
 */
int vsteer_flow_dv_translate(const struct vsteer_xlate_ctx *ctx,
			     const struct rte_flow_attr *attr,
			     const struct rte_flow_item pattern[],
			     const struct rte_flow_action actions[],
			     struct vsteer_flow_plan *plan,
			     struct vsteer_dv_match *base,
			     struct rte_flow_error *error);

/*
 * The match of matcher entry i of a translated flow: base plus the headers
 * its RSS expansion adds (ip_version, ip_protocol, the GRE protocol).
 */
void vsteer_flow_dv_rule_match(const struct vsteer_dv_match *base,
			       const struct vsteer_flow_plan *plan,
			       unsigned int i, struct vsteer_dv_match *out);

/* Criteria and match size from the mask; value ANDed with the mask. */
void vsteer_flow_dv_finish(struct vsteer_dv_match *m);

/*
 * Matcher cache key: two translations can share one mlx5dv matcher when
 * their masks, criteria and priorities are equal.
 */
uint32_t
vsteer_flow_dv_matcher_hash(const struct vsteer_dv_match *m, uint16_t priority);
bool
vsteer_flow_dv_matcher_equal(const struct vsteer_dv_match *a, uint16_t prio_a,
			     const struct vsteer_dv_match *b, uint16_t prio_b);

/* Print the non-zero mask fields by PRM name with mask and value (hex). */
void vsteer_flow_dv_dump(FILE *f, const struct vsteer_dv_match *m);

/*
 * DevX flow counters. Builders write a complete command input of the
 * stated size (VSTEER_PRM_*_IN_BYTES); parsers read the output and return
 * 0, -EINVAL (short buffer) or -EIO (command status not OK).
 */
void vsteer_dv_cmd_alloc_counter(void *in);
int
vsteer_dv_cmd_alloc_counter_parse(const void *out, size_t outlen, uint32_t *id);
void vsteer_dv_cmd_query_counter(void *in, uint32_t id, bool clear);
int vsteer_dv_cmd_query_counter_parse(const void *out, size_t outlen,
				      uint64_t *packets, uint64_t *bytes);
void vsteer_dv_cmd_dealloc_counter(void *in, uint32_t id);

/*
 * The current NIC flow table capabilities (QUERY_HCA_CAP, a DevX general
 * command; output VSTEER_PRM_QUERY_HCA_CAP_OUT_BYTES): which match fields
 * the receive tables take of those some devices lack, the IPv4 IHL
 * (ft_field_support_2_nic_receive.outer_ipv4_ihl / inner_ipv4_ihl), as
 * DPDK's mlx5 reads them (mlx5_devx_cmd_query_hca_attr()), and how many
 * header modify actions and how large a reformat header the tables take.
 */
void vsteer_dv_cmd_query_ft_caps(void *in);
struct vsteer_dv_ft_caps {
	bool ihl_outer, ihl_inner;
	/* flow_table_properties_nic_receive / _transmit
	 * .max_modify_header_actions, max_encap_header_size */
	uint16_t max_modify_rx, max_modify_tx, max_encap;
};
int vsteer_dv_cmd_query_ft_caps_parse(const void *out, size_t outlen,
				      struct vsteer_dv_ft_caps *caps);

#endif /* VSTEER_FLOW_DV_H */
