/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VSTEER_FLOW_XLATE_H
#define VSTEER_FLOW_XLATE_H

/*
 * What the two rte_flow translators share: the port context, the plan
 * (attributes, fate and the other actions, RSS expansion), the one
 * description of what each engine can match (vsteer_flow_engines.c) and
 * the steps both engines take the same way (vsteer_flow_xlate.c):
 *
 *   vsteer_flow_verbs.c  pattern -> ibv_flow_attr + ibv_flow_spec_* chains
 *   vsteer_flow_dv.c     pattern -> PRM fte_match_param for mlx5dv matchers
 *
 * Pure: no device call, so validate and create share one walk and unit
 * tests check the bytes. A translator that refuses a rule because its
 * engine cannot express something (a field, an action, an attribute the
 * other engine might take) says so in plan->limit, which the flow layer
 * uses to route flow_engine=auto and to word its message.
 */

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <infiniband/verbs.h>
#include <rte_common.h>
#include <rte_flow.h>

#define VSTEER_RSS_KEY_LEN 40
#define VSTEER_MAX_EXPAND 8	  /* device rules per rte_flow */
#define VSTEER_MAX_SPEC_BYTES 512 /* attr + specs of one verbs rule */
#define VSTEER_MAX_ACTIONS 32	  /* actions of a rule, END included */

enum vsteer_flow_engine {
	VSTEER_FLOW_ENGINE_VERBS = 0, /* ibv_create_flow spec chains */
	VSTEER_FLOW_ENGINE_DV,	      /* mlx5dv matchers */
	VSTEER_FLOW_ENGINE_N,
};

/* Sub-priority inside one rte_flow priority level: L4 rules first. */
enum vsteer_subprio {
	VSTEER_SUBPRIO_L4 = 0,
	VSTEER_SUBPRIO_L3 = 1,
	VSTEER_SUBPRIO_L2 = 2,
	VSTEER_SUBPRIO_N = 3,
};

/*
 * Verbs flow priorities the driver needs: one level for applications and
 * one for its default flows, VSTEER_SUBPRIO_N each, on the 8 of older
 * mlx5 kernels (16 today). The probe refuses a device with fewer and the
 * translators refuse every rule for one (vsteer_flow_attr()), so that no
 * rule is ever made at a priority the device does not have.
 */
#define VSTEER_VERBS_PRIOS_MIN 8

/* What the translators need to know about the port and device. */
struct vsteer_xlate_ctx {
	uint16_t nb_rx_queues;
	uint8_t port_num;	 /* ibv_flow_attr.port */
	uint32_t max_verbs_prio; /* highest verbs priority the device has */
	bool egress_ok;		 /* device accepts IBV_FLOW_ATTR_FLAGS_EGRESS */
	bool tag_ok;		 /* flow tags in completions */
	bool inner_rss_ok;	 /* IBV_RX_HASH_INNER */
	bool count_ok;		 /* ibv_counters */
	bool dv_ok;		 /* mlx5dv matchers */
	bool devx_ok;		 /* DevX flow counters for matcher rules */
	bool verbs_esp_ok;	 /* IBV_FLOW_SPEC_ESP accepted */
	bool mpls_ok;		 /* MPLS over GRE / UDP parsed */
	bool ihl_ok;		 /* the IPv4 IHL match field, outer */
	bool ihl_inner_ok;	 /* ... and inner */
	bool internal;		 /* driver's own default flows: may use the
				     * reserved lowest level */
	uint64_t rss_hf_supported; /* RTE_ETH_RSS_* the device can hash */
	uint64_t rss_hf_default;   /* types of an RSS action with types 0 */
	const uint8_t *rss_key_default; /* VSTEER_RSS_KEY_LEN bytes; NULL:
					 * the usual 40-byte default key */
	uint16_t max_spec_bytes;	/* bytes of attr + specs the provider
				     * takes per rule; 0 or more than
				     * VSTEER_MAX_SPEC_BYTES: that value */
	/* Header rewrite and reformat (matcher rules): the header modify
	 * actions the receive and transmit tables take, the bytes of a
	 * reformat's header. */
	uint16_t max_modify_rx;
	uint16_t max_modify_tx;
	uint16_t max_encap;
	/* The RSS action comes from an indirect action, whose queues and
	 * types may change under the rule: expand for every type the device
	 * hashes (vsteer_flow_variants()), so that a change of types only
	 * changes each device rule's hash fields. */
	bool rss_shared;
};

/*
 * The description: how each engine takes a field, a pattern feature, an
 * action or an attribute (struct vsteer_flow_row.sup[engine]).
 */
#define VSTEER_SUP_OUTER (1u << 0) /* in the outer headers (or: at all) */
#define VSTEER_SUP_INNER (1u << 1) /* after a tunnel item */
#define VSTEER_SUP_YES (VSTEER_SUP_OUTER | VSTEER_SUP_INNER)
#define VSTEER_SUP_RANGE (1u << 2) /* the translator takes a range */
/* ... only when the device offers what the bit names (the context): */
#define VSTEER_SUP_IF_VERBS_ESP (1u << 3) /* verbs_esp_ok */
#define VSTEER_SUP_IF_COUNT (1u << 4)	  /* count_ok */
#define VSTEER_SUP_IF_DEVX (1u << 5)	  /* devx_ok */
#define VSTEER_SUP_IF_TAG (1u << 6)	  /* tag_ok */
#define VSTEER_SUP_IF_EGRESS (1u << 7)	  /* egress_ok */
#define VSTEER_SUP_IF_MPLS (1u << 8)	  /* mpls_ok */
#define VSTEER_SUP_IF_IHL (1u << 9)	  /* ihl_ok / ihl_inner_ok */
#define VSTEER_SUP_IF_ALL                                                     \
	(VSTEER_SUP_IF_VERBS_ESP | VSTEER_SUP_IF_COUNT | VSTEER_SUP_IF_DEVX | \
	 VSTEER_SUP_IF_TAG | VSTEER_SUP_IF_EGRESS | VSTEER_SUP_IF_MPLS |      \
	 VSTEER_SUP_IF_IHL)

enum vsteer_row_kind {
	VSTEER_ROW_FIELD,   /* bits of an item struct */
	VSTEER_ROW_FEATURE, /* something a pattern says by its shape */
	VSTEER_ROW_ACTION,
	VSTEER_ROW_ATTR,
};

struct vsteer_flow_row {
	uint8_t kind;	   /* enum vsteer_row_kind */
	uint8_t item;	   /* VSTEER_ITEM_* of a field or feature */
	int action;	   /* enum rte_flow_action_type of an action */
	const char *name;  /* rte_flow field name, or what the row is */
	uint16_t off, len; /* bytes of the item struct (fields) */
	const void *bits;  /* an item struct with the row's bits set;
			    * NULL: every bit of off..off+len */
	uint16_t sup[VSTEER_FLOW_ENGINE_N];    /* VSTEER_SUP_* */
	const char *how[VSTEER_FLOW_ENGINE_N]; /* the guide's words */
};

/* The items the driver knows (vsteer_flow_item_desc() by rte_flow type). */
enum vsteer_item {
	VSTEER_ITEM_ETH,
	VSTEER_ITEM_VLAN,
	VSTEER_ITEM_IPV4,
	VSTEER_ITEM_IPV6,
	VSTEER_ITEM_TCP,
	VSTEER_ITEM_UDP,
	VSTEER_ITEM_VXLAN,
	VSTEER_ITEM_GRE,
	VSTEER_ITEM_GRE_KEY,
	VSTEER_ITEM_NVGRE,
	VSTEER_ITEM_MPLS,
	VSTEER_ITEM_ESP,
	VSTEER_ITEM_N,
};

/* Pattern features and the rows translators name directly. */
enum vsteer_row_id {
	VSTEER_ROW_ETH_TPID_C,	    /* ETH type 0x8100 without a VLAN item */
	VSTEER_ROW_ETH_TPID_S,	    /* ETH type 0x88a8: an 802.1ad tag */
	VSTEER_ROW_VLAN_PRESENCE,   /* VLAN item with an empty TCI mask */
	VSTEER_ROW_VLAN_SECOND_TAG, /* inner_type naming a second tag */
	VSTEER_ROW_VLAN_TWO_ITEMS,  /* a second VLAN item */
	VSTEER_ROW_ESP_HEADER,	    /* an ESP item at all */
	VSTEER_ROW_MPLS_HEADER,	    /* an MPLS item at all */
	VSTEER_ROW_ETH_MCAST,	    /* outer ETH dst multicast, spec and mask */
	VSTEER_ROW_IPV4_MCAST,	    /* outer IPv4 dst multicast, ditto */
	VSTEER_ROW_NAMED_N,
};

/* An item the driver knows. */
struct vsteer_flow_item_desc {
	enum rte_flow_item_type type;
	uint8_t id;			     /* enum vsteer_item */
	const char *name;		     /* "IPv4" (messages) */
	const char *keyword;		     /* "ipv4" (testpmd, the guide) */
	uint16_t size;			     /* bytes of the spec struct */
	const void *def_mask;		     /* rte_flow_item_X_mask */
	bool tunnel;			     /* items after it are inner */
	const enum rte_flow_item_type *next; /* may follow, END-terminated */
	const struct vsteer_flow_row *rows;  /* its fields, covering the
					     * struct's members */
	uint16_t n_rows;
};

const struct vsteer_flow_item_desc *
vsteer_flow_item_desc(enum rte_flow_item_type type);
/* Item i of enum vsteer_item, NULL past the end. */
const struct vsteer_flow_item_desc *vsteer_flow_item_desc_at(unsigned int i);
/* The first items of a pattern (also after a tunnel item). */
extern const enum rte_flow_item_type vsteer_flow_item_roots[];
bool vsteer_flow_item_may_follow(const enum rte_flow_item_type *next,
				 enum rte_flow_item_type type);

extern const struct vsteer_flow_row vsteer_flow_named[VSTEER_ROW_NAMED_N];
extern const struct vsteer_flow_row vsteer_flow_action_rows[];
extern const unsigned int vsteer_flow_action_rows_n;
extern const struct vsteer_flow_row vsteer_flow_attr_rows[];
extern const unsigned int vsteer_flow_attr_rows_n;

/* The row of an action type, NULL when the driver has none. */
const struct vsteer_flow_row *
vsteer_flow_action_row(enum rte_flow_action_type type);
/* The row of an attribute by name ("egress", ...). */
const struct vsteer_flow_row *vsteer_flow_attr_row(const char *name);

/* The engine's name in messages: "verbs", "the mlx5dv matcher". */
const char *vsteer_flow_engine_name(enum vsteer_flow_engine eng);
/* Why a device lacks what a row's VSTEER_SUP_IF_* bits ask for (inner:
 * after a tunnel item); NULL: it has all of it. */
const char *
vsteer_flow_cap_missing(uint16_t sup, const struct vsteer_xlate_ctx *ctx,
			bool inner);
/* Does eng take row on this device (inner: after a tunnel item)? */
bool vsteer_flow_row_ok(const struct vsteer_flow_row *row,
			enum vsteer_flow_engine eng,
			const struct vsteer_xlate_ctx *ctx, bool inner);

/*
 * The guide's engine table, from the rows: one RST list-table row per
 * item field, feature, action and attribute, columns verbs (mlx5 kernel),
 * mlx5dv matcher, softverbs profile=generic.
 */
void vsteer_flow_engines_print_rst(FILE *f);

enum vsteer_fate {
	VSTEER_FATE_NONE = 0,
	VSTEER_FATE_QUEUE,    /* hash QP over a 1-entry table */
	VSTEER_FATE_RSS,      /* hash QP over the queue subset */
	VSTEER_FATE_DROP,     /* IBV_FLOW_SPEC_ACTION_DROP / DV DROP */
	VSTEER_FATE_PASSTHRU, /* DONT_TRAP: copy, keep going */
};

/* Verbs action specs, in the order the actions came. */
enum vsteer_aspec {
	VSTEER_ASPEC_TAG = 1,
	VSTEER_ASPEC_DROP,
	VSTEER_ASPEC_COUNT,
};

/*
 * Packet actions: header rewrites (one PRM header modify list) and one
 * packet reformat, which the matcher engine attaches to its rules as
 * mlx5dv flow actions (vsteer_flow_edit.c).
 */
#define VSTEER_EDIT_MAX_MOD 32	 /* header modify actions a plan holds */
#define VSTEER_EDIT_MAX_DATA 256 /* bytes of reformat data a plan holds */

/* The packet reformat of a plan. */
enum vsteer_reformat {
	VSTEER_REFORMAT_NONE = 0,
	VSTEER_REFORMAT_DECAP_L2, /* L2_TUNNEL_TO_L2 (NIC_RX) */
	VSTEER_REFORMAT_DECAP_L3, /* L3_TUNNEL_TO_L2 (NIC_RX), data: L2 */
	VSTEER_REFORMAT_ENCAP_L2, /* L2_TO_L2_TUNNEL (NIC_TX), data: header */
	VSTEER_REFORMAT_ENCAP_L3, /* L2_TO_L3_TUNNEL (NIC_TX), data: header */
};

/* What a pattern says that packet actions depend on. */
struct vsteer_flow_pat {
	uint8_t fam[2];	 /* L3 family of the outer / inner headers: 0, 4, 6 */
	uint8_t l4p[2];	 /* their L4 protocol: 0, TCP, UDP, ESP */
	bool eth[2];	 /* an ETH item */
	uint8_t tunnel;	 /* VSTEER_ITEM_* of the tunnel item, VSTEER_ITEM_N:
			 * none */
	bool l2_tunnel;	 /* the tunnel carries Ethernet (VXLAN, GRE 0x6558) */
	bool vxlan_port; /* VXLAN on UDP port 4789, the one the device parses */
};

struct vsteer_flow_edit {
	uint16_t n_mod;	   /* header modify actions in mod[] */
	uint8_t reformat;  /* enum vsteer_reformat */
	uint8_t fam, l4;   /* the L3 family and L4 protocol rewritten */
	uint16_t data_len; /* bytes in data[] */
	/* The actions, for order checks and errors: the first rewrite, the
	 * decap, the encap, RAW_DECAP and RAW_ENCAP (resolved at the end). */
	const struct rte_flow_action *mod_act, *decap_act, *encap_act;
	const struct rte_flow_action *raw_decap, *raw_encap;
	uint64_t mod[VSTEER_EDIT_MAX_MOD]; /* PRM actions, as sent (be64) */
	uint8_t data[VSTEER_EDIT_MAX_DATA];
};

/* One device rule of a flow: the pattern, or an RSS expansion of it. */
struct vsteer_flow_variant {
	uint8_t fam;	     /* L3 family of the hashed stack: 0, 4, 6 */
	uint8_t l4p;	     /* its L4 protocol: 0, TCP, UDP, ESP */
	bool add_l3, add_l4; /* headers the expansion adds */
	enum vsteer_subprio sub;
	uint64_t hash_fields; /* IBV_RX_HASH_* of the destination */
};

/* What a translator found about one header stack, for the expansion. */
struct vsteer_flow_stack {
	uint8_t fam;	 /* 0, 4, 6 */
	uint8_t l4p;	 /* 0, IPPROTO_TCP, IPPROTO_UDP, IPPROTO_ESP */
	bool l4;	 /* an L4 item */
	uint16_t type_m; /* L2 ethertype constraint (host order) */
	uint16_t type_v;
	uint8_t proto_m; /* L3 protocol constraint */
	uint8_t proto_v;
};

/* An engine limitation behind a refusal (the flow layer routes on it). */
struct vsteer_flow_limit {
	bool set;
	char subject[64]; /* "IPv4 item: time_to_live" */
	char what[128];	  /* "match it": "<engine> cannot <what>" */
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

/*
 * A translated flow. The queue list points into the action's own
 * configuration (or at queue_one): valid while the caller's rule is.
 */
struct vsteer_flow_plan {
	enum vsteer_flow_engine engine;
	enum vsteer_fate fate;
	bool ingress, egress;
	bool tunnel; /* a tunnel item: hash QPs need tunnel offloads */
	uint32_t rte_priority;
	const uint16_t *queues; /* QUEUE: &queue_one; RSS: the subset */
	uint16_t queue_one;
	uint32_t queue_num;
	uint8_t rss_key[VSTEER_RSS_KEY_LEN];
	uint32_t rss_level; /* 0/1 outer, 2 inner */
	uint64_t rss_types; /* RTE_ETH_RSS_* after defaults */
	/* The types the expansion makes device rules for: rss_types, or
	 * every type the device hashes for a shared RSS action. */
	uint64_t rss_expand_types;
	bool mark, flag;
	uint32_t mark_id;
	bool count; /* COUNT action: a counters object */
	uint32_t count_id;
	/* INDIRECT COUNT: the handle given by the application (count stays
	 * false: the counters object belongs to the handle). */
	const struct rte_flow_action_handle *count_handle;
	/* AGE: seconds without a hit, the application's context (NULL: the
	 * flow's handle). It sets count: the flow ages on its counter. */
	bool age;
	uint32_t age_timeout;
	void *age_context;
	uint32_t flags;	   /* IBV_FLOW_ATTR_FLAGS_* (verbs) */
	uint8_t aspecs[3]; /* enum vsteer_aspec, action order */
	uint8_t n_aspecs;
	const struct rte_flow_action *aspec_act[3]; /* their actions */
	const struct rte_flow_action *rss_act;
	struct vsteer_flow_limit limit;
	/* Set by the translator before the actions (matcher engine). */
	struct vsteer_flow_pat pat;
	/* A decap: the RSS hashes the decapsulated headers, the former
	 * inner ones (the steering actions run before the TIR). */
	bool decap;
	/* The device rules: n_rules variants; verbs fills rules[] too. */
	uint32_t n_rules;
	struct vsteer_flow_variant var[VSTEER_MAX_EXPAND];
	struct vsteer_verbs_rule rules[VSTEER_MAX_EXPAND];
	/* Packet actions (vsteer_flow_edit.c); only its head is reset. */
	struct vsteer_flow_edit edit;
};

/* Flow tag values (24 bits): 0 none (a completion's "no tag"), FLAG, else
 * MARK id + 1. */
#define VSTEER_TAG_FLAG 0xffffffu

/* The flow tag a plan's MARK or FLAG asks for. */
static inline uint32_t
vsteer_flow_plan_tag(const struct vsteer_flow_plan *plan)
{
	if (plan->flag)
		return VSTEER_TAG_FLAG;
	return plan->mark ? plan->mark_id + 1 : 0;
}

/* --- common steps (vsteer_flow_xlate.c) --- */

/* Start a plan: what every translation resets. */
void vsteer_flow_plan_init(struct vsteer_flow_plan *plan,
			   const struct vsteer_xlate_ctx *ctx,
			   enum vsteer_flow_engine eng);

/* Attributes for engine plan->engine. */
int
vsteer_flow_attr(const struct vsteer_xlate_ctx *ctx,
		 const struct rte_flow_attr *attr,
		 struct vsteer_flow_plan *plan, struct rte_flow_error *error);

/* Actions for engine plan->engine (after the attributes). */
int vsteer_flow_actions(const struct vsteer_xlate_ctx *ctx,
			const struct rte_flow_action actions[],
			struct vsteer_flow_plan *plan,
			struct rte_flow_error *error);

/* --- packet actions (vsteer_flow_edit.c) --- */

/* The actions that rewrite, decap or encap. */
bool vsteer_flow_edit_type(enum rte_flow_action_type type);
/* Forget the previous translation's packet actions. */
void vsteer_flow_edit_reset(struct vsteer_flow_edit *e);
/* One such action, in the order the rule gives them (the pattern's facts
 * in plan->pat). */
int vsteer_flow_edit_action(const struct vsteer_xlate_ctx *ctx,
			    struct vsteer_flow_plan *plan,
			    const struct rte_flow_action *act,
			    struct rte_flow_error *error);
/* After every action: RAW_DECAP / RAW_ENCAP made into a decap or an encap,
 * the device's limits, what the fate allows. end is the END action. */
int vsteer_flow_edit_finish(const struct vsteer_xlate_ctx *ctx,
			    struct vsteer_flow_plan *plan,
			    const struct rte_flow_action *end,
			    struct rte_flow_error *error);
/* The mlx5dv reformat type of a plan's reformat (-1: none), and the
 * flow table its actions are made for. */
int vsteer_flow_edit_reformat_type(uint8_t reformat);
int vsteer_flow_edit_ft_type(bool egress);
/* Decode header modify actions and a reformat for a dump. */
void vsteer_flow_edit_dump_mod(FILE *f, const uint64_t *mod, unsigned int n);
void vsteer_flow_edit_dump_reformat(FILE *f, uint8_t reformat,
				    const uint8_t *data, unsigned int len);

/* An item's spec, mask and last after the generic checks. */
union vsteer_item_buf {
	struct rte_flow_item_eth eth;
	struct rte_flow_item_vlan vlan;
	struct rte_flow_item_ipv4 ipv4;
	struct rte_flow_item_ipv6 ipv6;
	struct rte_flow_item_tcp tcp;
	struct rte_flow_item_udp udp;
	struct rte_flow_item_vxlan vxlan;
	struct rte_flow_item_gre gre;
	rte_be32_t gre_key;
	struct rte_flow_item_nvgre nvgre;
	struct rte_flow_item_mpls mpls;
	struct rte_flow_item_esp esp;
	uint8_t raw[64];
};

struct vsteer_item_vals {
	union vsteer_item_buf val;  /* spec & mask (zero without spec) */
	union vsteer_item_buf mask; /* effective mask (zero without spec) */
	union vsteer_item_buf last; /* last & mask of range fields, else 0 */
	bool spec;		    /* the item has a spec */
	bool range;		    /* last holds a real range */
};

/*
 * Generic checks of one item for engine plan->engine: mask or last
 * without spec, every masked field within what the engine matches there
 * (inner: after a tunnel item), ranges (last) only on fields the engine
 * takes them for; last fields equal to spec or zero are ignored, as
 * rte_flow.rst says. Fills v.
 */
int vsteer_flow_item_check(const struct vsteer_xlate_ctx *ctx,
			   const struct vsteer_flow_item_desc *d,
			   const struct rte_flow_item *item, bool inner,
			   struct vsteer_item_vals *v,
			   struct vsteer_flow_plan *plan,
			   struct rte_flow_error *error);

/*
 * What the device itself lacks for an item, whichever engine takes it
 * (not an engine's limit: the other engine is no way out): the firmware's
 * MPLS parser (VSTEER_ROW_MPLS_HEADER). 0, or ENOTSUP with error set.
 */
int vsteer_flow_item_device_check(const struct vsteer_xlate_ctx *ctx,
				  const struct vsteer_flow_item_desc *d,
				  const struct rte_flow_item *item,
				  struct rte_flow_error *error);

/*
 * Refuse a rule for what the engine cannot express: records the limit in
 * plan and sets error to "<subject>: <engine> cannot <reason>", ENOTSUP.
 */
int
vsteer_flow_limit(struct vsteer_flow_plan *plan, struct rte_flow_error *error,
		  enum rte_flow_error_type type, const void *cause,
		  const char *subject, const char *fmt, ...)
	__rte_format_printf(6, 7);

/* The same for a row the engine lacks on this device. */
int vsteer_flow_row_limit(struct vsteer_flow_plan *plan,
			  const struct vsteer_xlate_ctx *ctx,
			  const struct vsteer_flow_row *row, bool inner,
			  struct rte_flow_error *error,
			  enum rte_flow_error_type type, const void *cause);

/* The rule's device rules: the RSS expansion of the hashed stack. */
unsigned int
vsteer_flow_variants(const struct vsteer_flow_plan *plan,
		     const struct vsteer_flow_stack *hashed,
		     bool hashed_is_last, bool tunnel,
		     struct vsteer_flow_variant vs[VSTEER_MAX_EXPAND]);

/* IBV_RX_HASH_* of a device rule of the expansion: the headers its
 * pattern has (fam 0/4/6, l4p 0/TCP/UDP/ESP), the action's types; inner:
 * RSS level 2. 0: not hashed (the first queue). */
uint64_t
vsteer_flow_rss_fields(uint64_t types, uint8_t fam, uint8_t l4p, bool inner);

/* Number of rte_flow priority levels open to applications. */
uint32_t vsteer_flow_user_levels(const struct vsteer_xlate_ctx *ctx);

/* Verbs (and matcher) priority for (rte priority, sub-priority); the
 * driver's default flows use level vsteer_flow_user_levels(ctx). */
uint32_t vsteer_flow_verbs_prio(const struct vsteer_xlate_ctx *ctx,
				uint32_t rte_prio, enum vsteer_subprio sub);

/* The historical default Toeplitz key of mlx4/mlx5 (and of the Linux
 * drivers): a port's key until the application sets one, so that default
 * traffic spreads as it would on those drivers. */
extern const uint8_t vsteer_flow_rss_key_default[VSTEER_RSS_KEY_LEN];

/* rte_flow_error_set() with a printf-formatted message, for every flow
 * file of the driver: the message lives in one thread-local buffer and
 * stays valid until the next error of the thread. Returns -code. */
int vsteer_flow_err(struct rte_flow_error *error, int code,
		    enum rte_flow_error_type type, const void *cause,
		    const char *fmt, ...) __rte_format_printf(5, 6);

/* rte_flow's name of an item / action type ("unknown" when none). */
const char *vsteer_flow_item_type_name(enum rte_flow_item_type type);
const char *vsteer_flow_action_type_name(enum rte_flow_action_type type);

#endif /* VSTEER_FLOW_XLATE_H */
