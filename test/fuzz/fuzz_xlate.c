/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Fuzz target: the rte_flow translators, vsteer_flow_verbs_translate()
 * and vsteer_flow_dv_translate(), on flows decoded from the input, and
 * their agreement with the softverbs rule compilers.
 *
 * Input (every read past the end gives zeros, so any input decodes):
 *   context    flags (egress_ok, tag_ok, inner_rss_ok, count_ok, internal,
 *              default key, raw supported RSS types, NULL error struct),
 *              more flags (dv_ok, devx_ok, verbs_esp_ok, and what the
 *              device lacks: the MPLS parser, the IPv4 IHL field),
 *              Rx queue count, port, max verbs priority and spec bytes
 *              (from small tables), with a flag the header modify and
 *              reformat limits (tables too), supported RSS types
 *   attributes ingress/egress/transfer bits, group, priority
 *   items      count, then per item: type (a table of the supported types,
 *              VOID, END and unsupported ones, or a raw 32-bit value),
 *              presence of spec/mask/last and how mask and last are made
 *              (raw, default mask, all ones, raw & default; last raw, equal
 *              to spec, a real range, zero), then their bytes
 *   actions    count, then per action: type (same idea), flags, and the
 *              configuration (QUEUE index, MARK id, COUNT id, RSS function,
 *              level, types, key length and key, queue count and queues;
 *              queue counts are bounded; RAW_ENCAP / RAW_DECAP data and
 *              size, VXLAN / NVGRE_ENCAP definitions decoded as items,
 *              MODIFY_FIELD raw with a pointer that points; other
 *              actions 64 raw bytes)
 * Every spec, mask, last and configuration lives in its own buffer of
 * exactly its struct's size, so a translator reading past one is caught.
 *
 * Invariants, verbs translation:
 * - success: 1 to VSTEER_MAX_EXPAND rules; each rule's attr.size equals
 *   its size, the specs (each at least a header, none past the end) add up
 *   to it and number attr.num_of_specs; size within the context's limit
 *   and VSTEER_MAX_SPEC_BYTES; count_off names the COUNT spec exactly when
 *   the plan counts; type NORMAL, port, flags and priority
 *   (3 * rte priority + sub-priority, within the device's range) as the
 *   plan says; queues in range; and sv_spec_compile() accepts every rule
 *   under both profiles (the COUNT placeholder given a counters object),
 *   with the drop / tag / counters actions the plan asks for. Translating
 *   again gives the same plan.
 * - failure: a negative errno, rte_errno set to it, n_rules 0, and the
 *   error's type names what its cause points at (the attributes, an item
 *   of the pattern or an action of the list), with a message; a refusal
 *   for what the engine cannot express (plan->limit) is ENOTSUP and its
 *   message starts with the limit's subject.
 * DV translation (attributes, pattern and actions on its own):
 * - success: the plan as above (but no PASSTHRU, counters only with
 *   DevX; packet actions within the device's limits, decap on ingress
 *   only, encap on egress only, none with DROP); for the pattern and
 *   for each matcher entry of the plan (RSS expansion) the value has no
 *   bit outside the mask, criteria and match size follow from the mask,
 *   sv_fte_compile() accepts mask and value (both profiles), the value's
 *   key stays inside the mask's key,
 *   and ip_version masks are 0 or 0xf; entries are most specific first,
 *   at priorities within the device's range; the matcher hash/equal are
 *   reflexive. Translating twice gives the same plan and matches.
 * - failure: as for verbs.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>

#include "fuzz.h"
#include "fuzz_xlate.h"
#include "softverbs.h"
#include "sv_key.h"
#include "vsteer_flow_dv.h"
#include "vsteer_flow_verbs.h"
#include "vsteer_prm.h"

/* An encap definition: items as a pattern's, at most this many. */
#define FZ_MAX_DEF_ITEMS 6
#define FZ_MAX_ALLOCS \
	(FZ_MAX_ITEMS * 3 + FZ_MAX_ACTIONS * (3 + 1 + FZ_MAX_DEF_ITEMS * 3) + 4)
#define FZ_RAW_CONF 64
#define FZ_POISON 0xa5

/* An indirect action handle is opaque to the translator. */
static const uint8_t fz_handle;
/* What the flow layer would put into the COUNT placeholder. */
static struct ibv_counters fz_counters;

struct fz_flow {
	struct vsteer_xlate_ctx ctx;
	uint8_t rss_key_default[VSTEER_RSS_KEY_LEN];
	bool null_error;
	struct rte_flow_attr attr;
	struct rte_flow_item items[FZ_MAX_ITEMS + 1];
	struct rte_flow_action actions[FZ_MAX_ACTIONS + 1];
	void *allocs[FZ_MAX_ALLOCS];
	unsigned int nallocs;
};

/* A buffer of exactly n bytes (1 when n is 0), freed with the flow. */
static void *
fz_alloc(struct fz_flow *f, size_t n)
{
	void *p;

	if (f->nallocs >= FZ_MAX_ALLOCS)
		abort();
	p = calloc(1, n > 0 ? n : 1);
	if (p == NULL)
		abort();
	f->allocs[f->nallocs++] = p;
	return p;
}

static void
fz_flow_free(struct fz_flow *f)
{
	unsigned int i;

	for (i = 0; i < f->nallocs; i++)
		free(f->allocs[i]);
	f->nallocs = 0;
}

static void
fz_decode_ctx(struct fz_flow *f, struct fz_in *in)
{
	struct vsteer_xlate_ctx *c = &f->ctx;
	uint8_t fl = fz_u8(in), fl2 = fz_u8(in), nq = fz_u8(in);

	memset(c, 0, sizeof(*c));
	c->dv_ok = fl2 & FZ_CTX2_DV_OK;
	c->devx_ok = fl2 & FZ_CTX2_DEVX_OK;
	c->verbs_esp_ok = fl2 & FZ_CTX2_VERBS_ESP;
	c->mpls_ok = !(fl2 & FZ_CTX2_NO_MPLS);
	c->ihl_ok = !(fl2 & FZ_CTX2_NO_IHL);
	c->ihl_inner_ok = c->ihl_ok;
	c->egress_ok = fl & FZ_CTX_EGRESS_OK;
	c->tag_ok = fl & FZ_CTX_TAG_OK;
	c->inner_rss_ok = fl & FZ_CTX_INNER_RSS;
	c->count_ok = fl & FZ_CTX_COUNT_OK;
	c->internal = fl & FZ_CTX_INTERNAL;
	f->null_error = (fl & FZ_CTX_NULL_ERROR) != 0;
	c->nb_rx_queues = nq == 0xff ? 0 : 1 + nq % 16;
	c->port_num = fz_u8(in);
	c->max_verbs_prio = FZ_PICK(in, fz_max_prios);
	c->max_spec_bytes = FZ_PICK(in, fz_max_bytes);
	c->max_modify_rx = 16;
	c->max_modify_tx = 16;
	c->max_encap = 128;
	if (fl2 & FZ_CTX2_LIMITS) {
		c->max_modify_rx = FZ_PICK(in, fz_max_modify);
		c->max_modify_tx = FZ_PICK(in, fz_max_modify);
		c->max_encap = FZ_PICK(in, fz_max_encap);
	}
	c->rss_hf_supported = (fl & FZ_CTX_RAW_TYPES) ? fz_u64(in) :
							FZ_RSS_DEVICE;
	c->rss_hf_default = RTE_ETH_RSS_IP & c->rss_hf_supported;
	if (fl & FZ_CTX_KEY) {
		fz_bytes(in, f->rss_key_default, sizeof(f->rss_key_default));
		c->rss_key_default = f->rss_key_default;
	}
}

static void
fz_decode_attr(struct fz_flow *f, struct fz_in *in)
{
	uint8_t fl = fz_u8(in);

	memset(&f->attr, 0, sizeof(f->attr));
	f->attr.ingress = fl & 0x01;
	f->attr.egress = (fl >> 1) & 0x01;
	f->attr.transfer = (fl >> 2) & 0x01;
	if (fl & 0x08)
		f->attr.group = fz_u32(in);
	f->attr.priority = (fl & 0x10) ? fz_u32(in) : fz_u8(in) % 8;
}

static void
fz_decode_item(struct fz_flow *f, struct fz_in *in, struct rte_flow_item *item)
{
	uint8_t sel = fz_u8(in), fl;
	const struct fz_item_type *t;
	struct fz_item_type raw;
	uint8_t *spec = NULL, *mask = NULL, *last = NULL;
	const uint8_t *def;
	size_t n, i;

	if (sel >= FZ_SEL_RAW) {
		/* Any value of the enum, PMD-specific (negative) ones too. */
		raw.type = (enum rte_flow_item_type)fz_u32(in);
		raw.size = FZ_RAW_CONF;
		raw.def_mask = NULL;
		t = &raw;
	} else {
		t = &fz_item_types[sel % RTE_DIM(fz_item_types)];
	}
	n = t->size;
	def = t->def_mask;
	fl = fz_u8(in);
	item->type = t->type;
	if (fl & 0x01) {
		spec = fz_alloc(f, n);
		fz_bytes(in, spec, n);
	}
	if (fl & 0x02) {
		mask = fz_alloc(f, n);
		switch ((fl >> 3) & 3) {
		case 0:
			fz_bytes(in, mask, n);
			break;
		case 1:
			if (def != NULL)
				memcpy(mask, def, n);
			else
				memset(mask, 0xff, n);
			break;
		case 2:
			memset(mask, 0xff, n);
			break;
		default:
			fz_bytes(in, mask, n);
			for (i = 0; def != NULL && i < n; i++)
				mask[i] &= def[i];
			break;
		}
	}
	if (fl & 0x04) {
		last = fz_alloc(f, n);
		switch ((fl >> 5) & 3) {
		case 0:
			fz_bytes(in, last, n);
			break;
		case 1:
			if (spec != NULL)
				memcpy(last, spec, n);
			break;
		case 2:
			if (spec != NULL)
				memcpy(last, spec, n);
			if (n > 0)
				last[fz_u8(in) % n]++;
			break;
		default:
			break;
		}
	}
	item->spec = spec;
	item->mask = mask;
	item->last = last;
}

static const void *
fz_decode_rss(struct fz_flow *f, struct fz_in *in, uint8_t fl)
{
	struct rte_flow_action_rss *rss = fz_alloc(f, sizeof(*rss));
	uint8_t sel, qsel;
	uint16_t *q;
	uint32_t i;

	rss->func = (enum rte_eth_hash_function)(
		fz_u8(in) % (RTE_ETH_HASH_FUNCTION_MAX + 1));
	rss->level = fz_u8(in) % 4;
	sel = fz_u8(in);
	switch (sel % 4) {
	case 0:
		rss->types = 0; /* the context's default */
		break;
	case 1:
		rss->types = FZ_PICK(in, fz_rss_types);
		break;
	case 2:
		rss->types = FZ_PICK(in, fz_rss_types) |
			     FZ_PICK(in, fz_rss_types) |
			     FZ_PICK(in, fz_rss_types);
		break;
	default:
		rss->types = fz_u64(in);
		break;
	}
	rss->key_len = FZ_PICK(in, fz_key_lens);
	if (!(fl & 0x02) && rss->key_len > 0) {
		uint8_t *key = fz_alloc(f, rss->key_len);

		fz_bytes(in, key, rss->key_len);
		rss->key = key;
	}
	qsel = fz_u8(in);
	/* Bounded; now and then just past what a port can have. */
	rss->queue_num = qsel >= 0xfe ? RTE_MAX_QUEUES_PER_PORT + (qsel & 1) :
					qsel % 17;
	if (!(fl & 0x04)) {
		q = fz_alloc(f, sizeof(*q) * rss->queue_num);
		for (i = 0; i < rss->queue_num; i++)
			q[i] = (fl & 0x08) ? fz_u16(in) : fz_u8(in) % 20;
		rss->queue = q;
	}
	return rss;
}

static void
fz_decode_action(struct fz_flow *f, struct fz_in *in,
		 struct rte_flow_action *act)
{
	uint8_t sel = fz_u8(in), fl = fz_u8(in);
	const void *conf = NULL;

	if (sel >= FZ_SEL_RAW)
		act->type = (enum rte_flow_action_type)fz_u32(in);
	else
		act->type = fz_action_types[sel % RTE_DIM(fz_action_types)];
	if (!(fl & 0x01)) {
		act->conf = NULL;
		return;
	}
	switch (act->type) {
	case RTE_FLOW_ACTION_TYPE_QUEUE: {
		struct rte_flow_action_queue *q = fz_alloc(f, sizeof(*q));

		q->index = (fl & 0x02) ? fz_u16(in) : fz_u8(in) % 20;
		conf = q;
		break;
	}
	case RTE_FLOW_ACTION_TYPE_MARK: {
		struct rte_flow_action_mark *m = fz_alloc(f, sizeof(*m));

		switch ((fl >> 1) & 3) {
		case 0:
			m->id = fz_u8(in);
			break;
		case 1:
			m->id = fz_u32(in);
			break;
		case 2: /* around the largest id */
			m->id = 0xfffff0u - 2 + fz_u8(in) % 5;
			break;
		default:
			m->id = 0;
			break;
		}
		conf = m;
		break;
	}
	case RTE_FLOW_ACTION_TYPE_COUNT: {
		struct rte_flow_action_count *c = fz_alloc(f, sizeof(*c));

		c->id = fz_u32(in);
		conf = c;
		break;
	}
	case RTE_FLOW_ACTION_TYPE_INDIRECT:
		conf = &fz_handle;
		break;
	case RTE_FLOW_ACTION_TYPE_RSS:
		conf = fz_decode_rss(f, in, fl);
		break;
	case RTE_FLOW_ACTION_TYPE_RAW_ENCAP:
	case RTE_FLOW_ACTION_TYPE_RAW_DECAP: {
		/* Sizes around the L3 reformat's 34 bytes and the limits. */
		size_t n = (fl & 0x02) ? fz_u16(in) % 300 : fz_u8(in) % 64;
		uint8_t *data = fz_alloc(f, n);

		fz_bytes(in, data, n);
		if (act->type == RTE_FLOW_ACTION_TYPE_RAW_DECAP) {
			struct rte_flow_action_raw_decap *d =
				fz_alloc(f, sizeof(*d));

			d->data = (fl & 0x04) ? NULL : data;
			d->size = n;
			conf = d;
		} else {
			struct rte_flow_action_raw_encap *e =
				fz_alloc(f, sizeof(*e));

			e->data = (fl & 0x04) ? NULL : data;
			e->preserve = (fl & 0x08) ? data : NULL;
			e->size = n;
			conf = e;
		}
		break;
	}
	case RTE_FLOW_ACTION_TYPE_VXLAN_ENCAP:
	case RTE_FLOW_ACTION_TYPE_NVGRE_ENCAP: {
		/* Both confs are a definition pointer. */
		struct rte_flow_action_vxlan_encap *v = fz_alloc(f, sizeof(*v));
		struct rte_flow_item *def =
			fz_alloc(f, (FZ_MAX_DEF_ITEMS + 1) * sizeof(*def));
		unsigned int i, n = fz_u8(in) % (FZ_MAX_DEF_ITEMS + 1);

		for (i = 0; i < n; i++)
			fz_decode_item(f, in, &def[i]);
		def[n].type = RTE_FLOW_ITEM_TYPE_END;
		v->definition = (fl & 0x02) ? NULL : def;
		conf = v;
		break;
	}
	case RTE_FLOW_ACTION_TYPE_MODIFY_FIELD: {
		struct rte_flow_action_modify_field *m =
			fz_alloc(f, sizeof(*m));
		uint8_t *v = fz_alloc(f, sizeof(m->src.value));

		fz_bytes(in, m, sizeof(*m));
		/* Fields from the enum mostly, a pointer that points. */
		m->operation = (enum rte_flow_modify_op)(m->operation % 4);
		if (!(fl & 0x02)) {
			m->dst.field =
				(enum rte_flow_field_id)(m->dst.field % 40);
			m->src.field =
				(enum rte_flow_field_id)(m->src.field % 40);
		}
		if (m->src.field == RTE_FLOW_FIELD_POINTER) {
			fz_bytes(in, v, sizeof(m->src.value));
			m->src.pvalue = (fl & 0x04) ? NULL : v;
		}
		if ((fl & 0x08) && m->width > 128)
			m->width %= 129;
		conf = m;
		break;
	}
	default: {
		uint8_t *raw = fz_alloc(f, FZ_RAW_CONF);

		fz_bytes(in, raw, FZ_RAW_CONF);
		conf = raw;
		break;
	}
	}
	act->conf = conf;
}

static void
fz_decode(struct fz_flow *f, struct fz_in *in)
{
	unsigned int i, n;

	memset(f->items, 0, sizeof(f->items));
	memset(f->actions, 0, sizeof(f->actions));
	fz_decode_ctx(f, in);
	fz_decode_attr(f, in);
	n = fz_u8(in) % (FZ_MAX_ITEMS + 1);
	for (i = 0; i < n; i++)
		fz_decode_item(f, in, &f->items[i]);
	n = fz_u8(in) % (FZ_MAX_ACTIONS + 1);
	for (i = 0; i < n; i++)
		fz_decode_action(f, in, &f->actions[i]);
}

/* Where an error's cause points: 1 attr, 2 item, 3 action, 0 elsewhere. */
static int
fz_cause_kind(const struct fz_flow *f, const void *cause)
{
	const uint8_t *c = cause;
	const uint8_t *ib = (const uint8_t *)f->items;
	const uint8_t *ab = (const uint8_t *)f->actions;

	if (cause == &f->attr)
		return 1;
	if (c >= ib && c < ib + sizeof(f->items) &&
	    (size_t)(c - ib) % sizeof(f->items[0]) == 0)
		return 2;
	if (c >= ab && c < ab + sizeof(f->actions) &&
	    (size_t)(c - ab) % sizeof(f->actions[0]) == 0)
		return 3;
	return 0;
}

static int
fz_type_kind(enum rte_flow_error_type t)
{
	switch (t) {
	case RTE_FLOW_ERROR_TYPE_ATTR_GROUP:
	case RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY:
	case RTE_FLOW_ERROR_TYPE_ATTR_INGRESS:
	case RTE_FLOW_ERROR_TYPE_ATTR_EGRESS:
	case RTE_FLOW_ERROR_TYPE_ATTR_TRANSFER:
	case RTE_FLOW_ERROR_TYPE_ATTR:
		return 1;
	case RTE_FLOW_ERROR_TYPE_ITEM_SPEC:
	case RTE_FLOW_ERROR_TYPE_ITEM_LAST:
	case RTE_FLOW_ERROR_TYPE_ITEM_MASK:
	case RTE_FLOW_ERROR_TYPE_ITEM:
		return 2;
	case RTE_FLOW_ERROR_TYPE_ACTION_CONF:
	case RTE_FLOW_ERROR_TYPE_ACTION:
		return 3;
	default:
		return 0;
	}
}

static void
fz_check_error(const struct fz_flow *f, const char *who, int ret,
	       const struct rte_flow_error *err, int err_rte_errno,
	       const struct vsteer_flow_plan *plan)
{
	FZ_CHECK(ret == -EINVAL || ret == -ENOTSUP || ret == -E2BIG,
		 "%s: ret %d", who, ret);
	FZ_CHECK(err_rte_errno == -ret, "%s: rte_errno %d, ret %d", who,
		 err_rte_errno, ret);
	FZ_CHECK(!plan->limit.set || ret == -ENOTSUP,
		 "%s: an engine limitation with ret %d", who, ret);
	if (f->null_error)
		return;
	FZ_CHECK(!plan->limit.set ||
			 (err->message != NULL &&
			  strncmp(err->message, plan->limit.subject,
				  strlen(plan->limit.subject)) == 0),
		 "%s: limit \"%s\", message \"%s\"", who, plan->limit.subject,
		 err->message != NULL ? err->message : "(null)");
	FZ_CHECK(fz_type_kind(err->type) != 0 &&
			 fz_type_kind(err->type) ==
				 fz_cause_kind(f, err->cause),
		 "%s: error type %d, cause %p (kind %d), message \"%s\"", who,
		 (int)err->type, err->cause, fz_cause_kind(f, err->cause),
		 err->message != NULL ? err->message : "(null)");
	FZ_CHECK(err->message != NULL && err->message[0] != '\0',
		 "%s: no message", who);
}

static FILE *
fz_devnull(void)
{
	static FILE *fp;

	if (fp == NULL)
		fp = fopen("/dev/null", "w");
	return fp;
}

/* Walk a rule's specs; returns false (and reports) when malformed. */
static bool
fz_check_rule_layout(unsigned int r, const struct vsteer_verbs_rule *rule,
		     uint16_t limit, bool counts)
{
	size_t off = sizeof(struct ibv_flow_attr), count_at = 0;
	unsigned int i, ncount = 0;

	FZ_CHECK(rule->attr.size == rule->size,
		 "rule %u: attr.size %u, size %u", r, rule->attr.size,
		 rule->size);
	FZ_CHECK(rule->size <= limit && rule->size <= VSTEER_MAX_SPEC_BYTES,
		 "rule %u: %u bytes, limit %u", r, rule->size, limit);
	if (rule->size > VSTEER_MAX_SPEC_BYTES || rule->size < off)
		return false;
	for (i = 0; i < rule->attr.num_of_specs; i++) {
		uint32_t type;
		uint16_t size;

		FZ_CHECK(rule->size - off >= 8, "rule %u: spec %u past the end",
			 r, i);
		if (rule->size - off < 8)
			return false;
		memcpy(&type, rule->buf + off, 4);
		memcpy(&size, rule->buf + off + 4, 2);
		FZ_CHECK(size >= 8 && size <= rule->size - off,
			 "rule %u: spec %u type 0x%x size %u at %zu of %u", r,
			 i, type, size, off, rule->size);
		if (size < 8 || size > rule->size - off)
			return false;
		if (type == IBV_FLOW_SPEC_ACTION_COUNT) {
			ncount++;
			count_at = off;
		}
		off += size;
	}
	FZ_CHECK(off == rule->size,
		 "rule %u: %u specs add up to %zu bytes, size %u", r,
		 rule->attr.num_of_specs, off, rule->size);
	FZ_CHECK(ncount == (counts ? 1u : 0u) && rule->count_off == count_at,
		 "rule %u: %u COUNT specs (at %zu), count_off %u, plan counts %d",
		 r, ncount, count_at, rule->count_off, counts);
	return off == rule->size && ncount == (counts ? 1u : 0u) &&
	       rule->count_off == count_at;
}

/* Does the rule carry an IBV_FLOW_SPEC_ESP (outer or inner)? */
static bool
fz_rule_has_esp(const struct vsteer_verbs_rule *rule)
{
	const uint8_t *p = rule->buf + sizeof(struct ibv_flow_attr);
	unsigned int i;

	for (i = 0; i < rule->attr.num_of_specs; i++) {
		struct ibv_flow_spec spec;

		memcpy(&spec, p, sizeof(spec.hdr));
		if ((spec.hdr.type & ~IBV_FLOW_SPEC_INNER) == IBV_FLOW_SPEC_ESP)
			return true;
		p += spec.hdr.size;
	}
	return false;
}

static void
fz_check_rule_compiles(const struct vsteer_flow_plan *plan, unsigned int r,
		       const struct vsteer_verbs_rule *rule,
		       const struct vsteer_xlate_ctx *ctx)
{
	static const int profiles[] = { SV_PROFILE_GENERIC, SV_PROFILE_MLX5 };
	union {
		struct ibv_flow_attr attr;
		uint8_t buf[VSTEER_MAX_SPEC_BYTES];
	} copy;
	bool counts = plan->count || plan->count_handle != NULL;
	unsigned int p;

	memcpy(copy.buf, rule->buf, rule->size);
	if (rule->count_off != 0) {
		struct ibv_counters *c = &fz_counters;

		memcpy(copy.buf + rule->count_off +
			       offsetof(struct ibv_flow_spec_counter_action,
					counters),
		       &c, sizeof(c));
	}
	for (p = 0; p < RTE_DIM(profiles); p++) {
		struct sv_caps caps = {
			.profile = profiles[p],
			.max_priority = ctx->max_verbs_prio,
			.mpls_over_l4 = true,
		};
		struct sv_match m;
		struct sv_actions act;
		int rc;

		memset(&act, 0, sizeof(act));
		rc = sv_spec_compile(&caps, &copy.attr, &m, &act);
		/* mlx5 kernels refuse the verbs ESP spec (the driver probes
		 * it: priv->verbs_esp_ok); the man page's device takes it. */
		if (profiles[p] == SV_PROFILE_MLX5 && fz_rule_has_esp(rule)) {
			FZ_CHECK(rc == EOPNOTSUPP,
				 "rule %u of %u: mlx5 profile answers %d to ESP",
				 r, plan->n_rules, rc);
			continue;
		}
		FZ_CHECK(rc == 0,
			 "rule %u of %u: %s profile refuses it (rc %d)", r,
			 plan->n_rules, p == 0 ? "generic" : "mlx5", rc);
		if (rc != 0) {
			vsteer_flow_verbs_dump(stderr, rule);
			continue;
		}
		FZ_CHECK(act.drop == (plan->fate == VSTEER_FATE_DROP),
			 "rule %u: drop %d, fate %d", r, act.drop,
			 (int)plan->fate);
		FZ_CHECK(act.has_tag == (plan->mark || plan->flag),
			 "rule %u: tag %d, mark %d flag %d", r, act.has_tag,
			 plan->mark, plan->flag);
		if (plan->mark)
			FZ_CHECK(act.tag == plan->mark_id + 1,
				 "rule %u: tag 0x%x for mark 0x%x", r, act.tag,
				 plan->mark_id);
		FZ_CHECK((act.counters != NULL) == counts,
			 "rule %u: counters %p, plan counts %d", r,
			 (void *)act.counters, counts);
	}
}

/* What a plan of either engine must say. */
static void
fz_check_plan_common(const struct fz_flow *f,
		     const struct vsteer_flow_plan *plan)
{
	const struct vsteer_xlate_ctx *ctx = &f->ctx;
	bool counts = plan->count || plan->count_handle != NULL;
	bool dv = plan->engine == VSTEER_FLOW_ENGINE_DV;
	unsigned int r;

	FZ_CHECK(plan->n_rules >= 1 && plan->n_rules <= VSTEER_MAX_EXPAND,
		 "%u rules", plan->n_rules);
	/* What the probe refuses, the translators refuse too. */
	FZ_CHECK(ctx->max_verbs_prio >= VSTEER_VERBS_PRIOS_MIN - 1,
		 "a plan for a device with %u verbs priorities",
		 ctx->max_verbs_prio + 1);
	FZ_CHECK(plan->ingress == f->attr.ingress &&
			 plan->egress == f->attr.egress,
		 "direction");
	FZ_CHECK(!f->attr.egress || dv || ctx->egress_ok,
		 "verbs egress without egress_ok");
	/* Packet actions: matcher rules only, within the device's limits,
	 * decap on ingress, encap on egress, never with DROP. */
	FZ_CHECK(dv || (plan->edit.n_mod == 0 &&
			plan->edit.reformat == VSTEER_REFORMAT_NONE),
		 "packet actions on verbs");
	FZ_CHECK(plan->edit.n_mod <= (plan->egress ? ctx->max_modify_tx :
						     ctx->max_modify_rx),
		 "%u modify actions", plan->edit.n_mod);
	FZ_CHECK(plan->edit.data_len <= ctx->max_encap &&
			 plan->edit.data_len <= VSTEER_EDIT_MAX_DATA,
		 "%u bytes of reformat data", plan->edit.data_len);
	FZ_CHECK(plan->edit.reformat == VSTEER_REFORMAT_NONE ||
			 (plan->egress ==
			  (plan->edit.reformat == VSTEER_REFORMAT_ENCAP_L2 ||
			   plan->edit.reformat == VSTEER_REFORMAT_ENCAP_L3)),
		 "reformat %u on %s", plan->edit.reformat,
		 plan->egress ? "egress" : "ingress");
	FZ_CHECK(plan->fate != VSTEER_FATE_DROP ||
			 (plan->edit.n_mod == 0 &&
			  plan->edit.reformat == VSTEER_REFORMAT_NONE),
		 "DROP with packet actions");
	FZ_CHECK(plan->edit.reformat != VSTEER_REFORMAT_DECAP_L3 ||
			 plan->edit.data_len == 14 || plan->edit.data_len == 18,
		 "L3 decap with %u bytes of L2", plan->edit.data_len);
	FZ_CHECK(plan->egress || plan->fate != VSTEER_FATE_NONE,
		 "ingress flow without fate");
	FZ_CHECK(!dv || plan->fate != VSTEER_FATE_PASSTHRU,
		 "PASSTHRU on the matcher");
	FZ_CHECK(!(plan->mark || plan->flag) || ctx->tag_ok,
		 "mark without tag_ok");
	FZ_CHECK(!counts || (dv ? ctx->devx_ok : ctx->count_ok),
		 "count without the engine's counters");
	FZ_CHECK(!(plan->count && plan->count_handle != NULL),
		 "COUNT and INDIRECT COUNT together");
	for (r = 0; r < plan->n_rules && r < VSTEER_MAX_EXPAND; r++) {
		const struct vsteer_flow_variant *v = &plan->var[r];
		uint32_t prio =
			vsteer_flow_verbs_prio(ctx, plan->rte_priority, v->sub);

		FZ_CHECK(v->sub < VSTEER_SUBPRIO_N, "rule %u: sub-priority %d",
			 r, (int)v->sub);
		FZ_CHECK(prio <= ctx->max_verbs_prio,
			 "rule %u: priority %u, device max %u", r, prio,
			 ctx->max_verbs_prio);
		if (r > 0)
			FZ_CHECK(plan->var[r - 1].sub <= v->sub,
				 "rule %u: sub-priority order", r);
		if (plan->fate != VSTEER_FATE_RSS)
			FZ_CHECK(v->hash_fields == 0,
				 "rule %u: hash fields without RSS", r);
	}
}

static void
fz_check_plan(const struct fz_flow *f, const struct vsteer_flow_plan *plan)
{
	const struct vsteer_xlate_ctx *ctx = &f->ctx;
	uint16_t limit = ctx->max_spec_bytes != 0 &&
					 ctx->max_spec_bytes <
						 VSTEER_MAX_SPEC_BYTES ?
				 ctx->max_spec_bytes :
				 VSTEER_MAX_SPEC_BYTES;
	bool counts = plan->count || plan->count_handle != NULL;
	uint32_t flags = 0;
	unsigned int r, i;

	fz_check_plan_common(f, plan);
	switch (plan->fate) {
	case VSTEER_FATE_QUEUE:
		FZ_CHECK(plan->queue_num == 1 &&
				 plan->queues[0] < ctx->nb_rx_queues,
			 "queue %u of %u (num %u)", plan->queues[0],
			 ctx->nb_rx_queues, plan->queue_num);
		break;
	case VSTEER_FATE_RSS:
		FZ_CHECK(plan->queue_num >= 1 &&
				 plan->queue_num <= RTE_MAX_QUEUES_PER_PORT,
			 "RSS over %u queues", plan->queue_num);
		for (i = 0; i < plan->queue_num && i < RTE_MAX_QUEUES_PER_PORT;
		     i++)
			FZ_CHECK(plan->queues[i] < ctx->nb_rx_queues,
				 "RSS queue[%u] %u of %u", i, plan->queues[i],
				 ctx->nb_rx_queues);
		FZ_CHECK(plan->rss_level <= 2 &&
				 (plan->rss_level < 2 || ctx->inner_rss_ok),
			 "RSS level %u", plan->rss_level);
		break;
	default:
		break;
	}
	if (plan->egress)
		flags |= IBV_FLOW_ATTR_FLAGS_EGRESS;
	if (plan->fate == VSTEER_FATE_PASSTHRU)
		flags |= IBV_FLOW_ATTR_FLAGS_DONT_TRAP;
	for (r = 0; r < plan->n_rules && r < VSTEER_MAX_EXPAND; r++) {
		const struct vsteer_verbs_rule *rule = &plan->rules[r];
		uint32_t prio = plan->rte_priority * VSTEER_SUBPRIO_N +
				(uint32_t)rule->subprio;

		if (!fz_check_rule_layout(r, rule, limit, counts))
			continue;
		FZ_CHECK(rule->attr.type == IBV_FLOW_ATTR_NORMAL &&
				 rule->attr.comp_mask == 0 &&
				 rule->attr.port == ctx->port_num &&
				 rule->attr.flags == flags,
			 "rule %u: type %d comp_mask 0x%x port %u flags 0x%x (want 0x%x)",
			 r, (int)rule->attr.type, rule->attr.comp_mask,
			 rule->attr.port, rule->attr.flags, flags);
		FZ_CHECK(rule->subprio < VSTEER_SUBPRIO_N,
			 "rule %u: sub-priority %d", r, (int)rule->subprio);
		FZ_CHECK(rule->attr.priority == prio &&
				 prio <= ctx->max_verbs_prio,
			 "rule %u: verbs priority %u, want %u (rte %u sub %d), device max %u",
			 r, rule->attr.priority, prio, plan->rte_priority,
			 (int)rule->subprio, ctx->max_verbs_prio);
		/* Most specific first. */
		if (r > 0)
			FZ_CHECK(plan->rules[r - 1].subprio <= rule->subprio,
				 "rule %u: sub-priority order", r);
		if (plan->fate != VSTEER_FATE_RSS)
			FZ_CHECK(rule->hash_fields == 0,
				 "rule %u: hash fields without RSS", r);
		fz_check_rule_compiles(plan, r, rule, ctx);
		vsteer_flow_verbs_dump(fz_devnull(), rule);
	}
}

/* The same plan from two translations: what a translation writes. */
static bool
fz_plan_same(const struct vsteer_flow_plan *a, const struct vsteer_flow_plan *b)
{
	unsigned int r;

	const size_t q = offsetof(struct vsteer_flow_plan, queues);
	const size_t q1 = offsetof(struct vsteer_flow_plan, queue_one);

	/* queues may point into the plan itself (QUEUE): compare what it
	 * points to. */
	if (memcmp(a, b, q) != 0 ||
	    memcmp((const uint8_t *)a + q1, (const uint8_t *)b + q1,
		   offsetof(struct vsteer_flow_plan, var) - q1) != 0 ||
	    (a->queues == NULL) != (b->queues == NULL) ||
	    (a->queues != NULL &&
	     memcmp(a->queues, b->queues,
		    a->queue_num * sizeof(a->queues[0])) != 0))
		return false;
	/* Packet actions: the head, then what is used of the arrays. */
	if (memcmp(&a->edit, &b->edit,
		   offsetof(struct vsteer_flow_edit, mod)) != 0 ||
	    memcmp(a->edit.mod, b->edit.mod,
		   RTE_MIN(a->edit.n_mod, (uint16_t)VSTEER_EDIT_MAX_MOD) *
			   sizeof(a->edit.mod[0])) != 0 ||
	    memcmp(a->edit.data, b->edit.data,
		   RTE_MIN(a->edit.data_len, (uint16_t)VSTEER_EDIT_MAX_DATA)) !=
		    0)
		return false;
	for (r = 0; r < a->n_rules && r < VSTEER_MAX_EXPAND; r++) {
		if (memcmp(&a->var[r], &b->var[r], sizeof(a->var[r])) != 0)
			return false;
		if (a->engine != VSTEER_FLOW_ENGINE_VERBS)
			continue;
		if (a->rules[r].size != b->rules[r].size ||
		    a->rules[r].count_off != b->rules[r].count_off ||
		    a->rules[r].hash_fields != b->rules[r].hash_fields ||
		    a->rules[r].subprio != b->rules[r].subprio ||
		    memcmp(a->rules[r].buf, b->rules[r].buf,
			   RTE_MIN(a->rules[r].size,
				   (uint16_t)VSTEER_MAX_SPEC_BYTES)) != 0)
			return false;
	}
	return true;
}

static void
fz_run_verbs(const struct fz_flow *f)
{
	static struct vsteer_flow_plan plan, plan2;
	struct rte_flow_error err, err2;
	int ret, ret2, e;

	memset(&plan, FZ_POISON, sizeof(plan));
	memset(&err, FZ_POISON, sizeof(err));
	rte_errno = 0;
	ret = vsteer_flow_verbs_translate(&f->ctx, &f->attr, f->items,
					  f->actions, &plan,
					  f->null_error ? NULL : &err);
	e = rte_errno;
	memset(&plan2, 0x5a, sizeof(plan2));
	ret2 = vsteer_flow_verbs_translate(&f->ctx, &f->attr, f->items,
					   f->actions, &plan2, &err2);
	FZ_CHECK(ret == ret2, "verbs: ret %d then %d", ret, ret2);
	if (ret == 0) {
		FZ_CHECK(ret2 != 0 || fz_plan_same(&plan, &plan2),
			 "verbs: second translation differs");
		fz_check_plan(f, &plan);
		fz_accepted++;
	} else {
		fz_check_error(f, "verbs", ret, &err, e, &plan);
		FZ_CHECK(plan.n_rules == 0, "verbs: %u rules after an error",
			 plan.n_rules);
		fz_refused++;
	}
}

static void
fz_check_dv_keys(const struct vsteer_dv_match *m)
{
	static const int profiles[] = { SV_PROFILE_GENERIC, SV_PROFILE_MLX5 };
	const uint8_t *mk = (const uint8_t *)m->mask.buf;
	unsigned int p, s;
	size_t i;

	for (i = 0; i < RTE_DIM(m->mask.buf); i++)
		FZ_CHECK((m->value.buf[i] & ~m->mask.buf[i]) == 0,
			 "dv: value word %zu outside the mask", i);
	FZ_CHECK(m->criteria ==
			 vsteer_prm_criteria(m->mask.buf,
					     VSTEER_PRM_MATCH_PARAM_BYTES),
		 "dv: criteria 0x%02x", m->criteria);
	FZ_CHECK(m->mask.size == vsteer_prm_match_size(m->criteria) &&
			 m->value.size == m->mask.size,
		 "dv: sizes %zu / %zu", m->mask.size, m->value.size);
	for (s = 0; s < 2; s++) {
		uint32_t sect = s == 0 ? VSTEER_PRM_OUTER : VSTEER_PRM_INNER;
		uint32_t ipv = vsteer_prm_get(mk + sect / 8,
					      VSTEER_PRM_L24_IP_VERSION_OFF,
					      VSTEER_PRM_L24_IP_VERSION_LEN);

		FZ_CHECK(ipv == 0 || ipv == 0xf, "dv: %s ip_version mask 0x%x",
			 s == 0 ? "outer" : "inner", ipv);
	}
	for (p = 0; p < RTE_DIM(profiles); p++) {
		struct sv_caps caps = {
			.profile = profiles[p],
			.max_priority = 15,
			.mpls_over_l4 = true,
			.ipv4_ihl = true,
		};
		struct sv_key km, kv;
		const uint8_t *bm = (const uint8_t *)&km;
		const uint8_t *bv = (const uint8_t *)&kv;
		int rm, rv;

		rm = sv_fte_compile(&caps, m->criteria, m->mask.buf,
				    m->mask.size, NULL, &km);
		rv = rm != 0 ? rm :
			       sv_fte_compile(&caps, m->criteria, m->value.buf,
					      m->value.size, &km, &kv);
		FZ_CHECK(rm == 0 && rv == 0,
			 "dv: %s profile refuses mask (%d) or value (%d), criteria 0x%02x",
			 p == 0 ? "generic" : "mlx5", rm, rv, m->criteria);
		if (rm != 0 || rv != 0) {
			vsteer_flow_dv_dump(stderr, m);
			continue;
		}
		for (i = 0; i < sizeof(km); i++)
			if ((bv[i] & ~bm[i]) != 0)
				break;
		FZ_CHECK(i == sizeof(km),
			 "dv: value key byte %zu 0x%02x outside mask 0x%02x (%s profile)",
			 i, i < sizeof(km) ? bv[i] : 0,
			 i < sizeof(km) ? bm[i] : 0,
			 p == 0 ? "generic" : "mlx5");
		if (i != sizeof(km))
			vsteer_flow_dv_dump(stderr, m);
	}
	FZ_CHECK(vsteer_flow_dv_matcher_equal(m, 3, m, 3) &&
			 !vsteer_flow_dv_matcher_equal(m, 3, m, 4) &&
			 vsteer_flow_dv_matcher_hash(m, 3) ==
				 vsteer_flow_dv_matcher_hash(m, 3),
		 "dv: matcher key not reflexive");
	vsteer_flow_dv_dump(fz_devnull(), m);
}

static void
fz_run_dv(const struct fz_flow *f)
{
	static struct vsteer_flow_plan plan, plan2;
	static struct vsteer_dv_match base, base2, m, m2;
	struct rte_flow_error err, err2;
	unsigned int r;
	int ret, ret2, e;

	memset(&plan, FZ_POISON, sizeof(plan));
	memset(&base, FZ_POISON, sizeof(base));
	memset(&err, FZ_POISON, sizeof(err));
	rte_errno = 0;
	ret = vsteer_flow_dv_translate(&f->ctx, &f->attr, f->items, f->actions,
				       &plan, &base,
				       f->null_error ? NULL : &err);
	e = rte_errno;
	memset(&plan2, 0x5a, sizeof(plan2));
	ret2 = vsteer_flow_dv_translate(&f->ctx, &f->attr, f->items, f->actions,
					&plan2, &base2, &err2);
	FZ_CHECK(ret == ret2, "dv: ret %d then %d", ret, ret2);
	if (ret != 0) {
		fz_check_error(f, "dv", ret, &err, e, &plan);
		FZ_CHECK(plan.n_rules == 0, "dv: %u rules after an error",
			 plan.n_rules);
		return;
	}
	FZ_CHECK(ret2 != 0 || (fz_plan_same(&plan, &plan2) &&
			       memcmp(&base, &base2, sizeof(base)) == 0),
		 "dv: second translation differs");
	fz_check_plan_common(f, &plan);
	fz_check_dv_keys(&base);
	for (r = 0; r < plan.n_rules && r < VSTEER_MAX_EXPAND; r++) {
		vsteer_flow_dv_rule_match(&base, &plan, r, &m);
		vsteer_flow_dv_rule_match(&base, &plan, r, &m2);
		FZ_CHECK(memcmp(&m, &m2, sizeof(m)) == 0,
			 "dv: entry %u differs", r);
		fz_check_dv_keys(&m);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fz_flow f;
	struct fz_in in = { data, size };

	fz_decode(&f, &in);
	fz_run_verbs(&f);
	fz_run_dv(&f);
	fz_flow_free(&f);
	return 0;
}
