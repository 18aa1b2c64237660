/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The one description of what each flow engine matches
 * (drivers/net/vsteer/vsteer_flow_engines.c): its rows cover every bit of
 * every item struct exactly once, default masks stay on the default
 * engine, capability conditions follow the device, and the guide's engine
 * table is exactly what the rows print.
 *
 *   test_flow_fields --print   prints the table (paste it into the guide)
 *   test_flow_fields [filter]  runs the checks; the guide's path comes from
 *                              VSTEER_GUIDE (set by meson)
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_flow.h>

#include "vsteer_flow_xlate.h"
#include "vt_test.h"

#define TABLE_BEGIN ".. BEGIN engine table"
#define TABLE_END ".. END engine table"
#define MAX_ITEM_BYTES 64

/*
 * The bits of each item struct that belong to a member, set through the
 * members themselves (independently of the rows): the header, then the
 * bit-fields after it; the rest is padding. Items without bit-fields are
 * their header alone.
 */
static void
item_members(enum rte_flow_item_type type, uint8_t *out, size_t size)
{
	memset(out, 0, MAX_ITEM_BYTES);
	switch (type) {
	case RTE_FLOW_ITEM_TYPE_ETH: {
		struct rte_flow_item_eth e;

		memset(&e, 0, sizeof(e));
		memset(&e.hdr, 0xff, sizeof(e.hdr));
		e.has_vlan = 1;
		e.reserved = 0x7fffffff;
		memcpy(out, &e, sizeof(e));
		return;
	}
	case RTE_FLOW_ITEM_TYPE_VLAN: {
		struct rte_flow_item_vlan v;

		memset(&v, 0, sizeof(v));
		memset(&v.hdr, 0xff, sizeof(v.hdr));
		v.has_more_vlan = 1;
		v.reserved = 0x7fffffff;
		memcpy(out, &v, sizeof(v));
		return;
	}
	case RTE_FLOW_ITEM_TYPE_IPV6: {
		struct rte_flow_item_ipv6 v;

		memset(&v, 0, sizeof(v));
		memset(&v.hdr, 0xff, sizeof(v.hdr));
		v.has_hop_ext = v.has_route_ext = v.has_frag_ext = 1;
		v.has_auth_ext = v.has_esp_ext = v.has_dest_ext = 1;
		v.has_mobil_ext = v.has_hip_ext = v.has_shim6_ext = 1;
		v.reserved = 0x7fffff;
		memcpy(out, &v, sizeof(v));
		return;
	}
	default:
		memset(out, 0xff, size);
		return;
	}
}

/* The bits a field row covers, in an item-sized buffer. */
static int
row_bits(const struct vsteer_flow_item_desc *d, const struct vsteer_flow_row *r,
	 uint8_t *bits)
{
	const uint8_t *b = r->bits;
	unsigned int i;

	memset(bits, 0, MAX_ITEM_BYTES);
	VT_CHECK(r->off + r->len <= d->size, "%s %s: bytes %u+%u past %u",
		 d->name, r->name, r->off, r->len, d->size);
	for (i = 0; i < d->size; i++) {
		bool in = i >= r->off && i < r->off + r->len;

		if (b == NULL) {
			bits[i] = in ? 0xff : 0;
			continue;
		}
		VT_CHECK(in || b[i] == 0,
			 "%s %s: bit pattern outside its member (byte %u)",
			 d->name, r->name, i);
		bits[i] = b[i];
	}
	return VT_OK;
}

/* Every member bit of every item struct in exactly one row, padding in
 * none. */
static int
test_rows_cover(void)
{
	uint8_t seen[MAX_ITEM_BYTES], bits[MAX_ITEM_BYTES];
	uint8_t members[MAX_ITEM_BYTES];
	unsigned int i, j, k;

	for (i = 0; vsteer_flow_item_desc_at(i) != NULL; i++) {
		const struct vsteer_flow_item_desc *d =
			vsteer_flow_item_desc_at(i);

		VT_CHECK(d->size <= MAX_ITEM_BYTES, "%s: size", d->name);
		VT_CHECK(vsteer_flow_item_desc(d->type) == d, "%s: lookup",
			 d->name);
		memset(seen, 0, sizeof(seen));
		for (j = 0; j < d->n_rows; j++) {
			const struct vsteer_flow_row *r = &d->rows[j];

			VT_CHECK_EQ(r->kind, VSTEER_ROW_FIELD, "%s %s: kind",
				    d->name, r->name);
			VT_CHECK_EQ(r->item, i, "%s %s: item", d->name,
				    r->name);
			if (row_bits(d, r, bits) != VT_OK)
				return VT_FAIL;
			for (k = 0; k < d->size; k++) {
				VT_CHECK((seen[k] & bits[k]) == 0,
					 "%s %s: byte %u bits 0x%02x in two rows",
					 d->name, r->name, k,
					 seen[k] & bits[k]);
				seen[k] |= bits[k];
			}
		}
		item_members(d->type, members, d->size);
		for (k = 0; k < d->size; k++)
			VT_CHECK_EQ(seen[k], members[k],
				    "%s: byte %u: rows cover 0x%02x, members 0x%02x",
				    d->name, k, seen[k], members[k]);
	}
	VT_CHECK_EQ(i, VSTEER_ITEM_N, "items");
	return VT_OK;
}

/*
 * An item given without a mask (its rte_flow default mask) stays on verbs,
 * the engine auto tries first: every default-mask bit lies in a row verbs
 * takes (on a device offering what the row's conditions ask).
 */
static int
test_default_masks_verbs(void)
{
	const struct vsteer_xlate_ctx all = {
		.egress_ok = true,
		.tag_ok = true,
		.count_ok = true,
		.devx_ok = true,
		.dv_ok = true,
		.verbs_esp_ok = true,
		.mpls_ok = true,
		.ihl_ok = true,
		.ihl_inner_ok = true,
	};
	uint8_t bits[MAX_ITEM_BYTES];
	unsigned int i, j, k;

	for (i = 0; vsteer_flow_item_desc_at(i) != NULL; i++) {
		const struct vsteer_flow_item_desc *d =
			vsteer_flow_item_desc_at(i);
		const uint8_t *m = d->def_mask;
		uint8_t left[MAX_ITEM_BYTES];

		memcpy(left, m, d->size);
		for (j = 0; j < d->n_rows; j++) {
			const struct vsteer_flow_row *r = &d->rows[j];

			if (row_bits(d, r, bits) != VT_OK)
				return VT_FAIL;
			for (k = 0; k < d->size; k++) {
				if (!(m[k] & bits[k]))
					continue;
				VT_CHECK(vsteer_flow_row_ok(r,
							    VSTEER_FLOW_ENGINE_VERBS,
							    &all, false),
					 "%s: default mask on %s, which verbs cannot match",
					 d->name, r->name);
				left[k] &= (uint8_t)~bits[k];
			}
		}
		for (k = 0; k < d->size; k++)
			VT_CHECK_EQ(left[k], 0,
				    "%s: default mask byte %u in no row",
				    d->name, k);
	}
	return VT_OK;
}

/* A row's VSTEER_SUP_IF_* condition follows the context bit it names. */
static int
test_row_conditions(void)
{
	static const struct {
		uint16_t bit;
		size_t off; /* the bool in the context */
	} conds[] = {
		{ VSTEER_SUP_IF_VERBS_ESP,
		  offsetof(struct vsteer_xlate_ctx, verbs_esp_ok) },
		{ VSTEER_SUP_IF_COUNT,
		  offsetof(struct vsteer_xlate_ctx, count_ok) },
		{ VSTEER_SUP_IF_DEVX,
		  offsetof(struct vsteer_xlate_ctx, devx_ok) },
		{ VSTEER_SUP_IF_TAG,
		  offsetof(struct vsteer_xlate_ctx, tag_ok) },
		{ VSTEER_SUP_IF_EGRESS,
		  offsetof(struct vsteer_xlate_ctx, egress_ok) },
		{ VSTEER_SUP_IF_MPLS,
		  offsetof(struct vsteer_xlate_ctx, mpls_ok) },
		{ VSTEER_SUP_IF_IHL,
		  offsetof(struct vsteer_xlate_ctx, ihl_ok) },
	};
	const struct vsteer_flow_row *rows[3] = { vsteer_flow_action_rows,
						  vsteer_flow_attr_rows,
						  vsteer_flow_named };
	const unsigned int n[3] = { vsteer_flow_action_rows_n,
				    vsteer_flow_attr_rows_n,
				    VSTEER_ROW_NAMED_N };
	unsigned int t, i, c, e, checked = 0;

	for (t = 0; t < 3; t++) {
		for (i = 0; i < n[t]; i++) {
			const struct vsteer_flow_row *r = &rows[t][i];

			for (e = 0; e < VSTEER_FLOW_ENGINE_N; e++) {
				for (c = 0; c < RTE_DIM(conds); c++) {
					struct vsteer_xlate_ctx ctx;
					bool yes, no;

					if (!(r->sup[e] & conds[c].bit))
						continue;
					memset(&ctx, 0, sizeof(ctx));
					ctx.egress_ok = ctx.tag_ok = true;
					ctx.count_ok = ctx.devx_ok = true;
					ctx.dv_ok = ctx.verbs_esp_ok = true;
					ctx.mpls_ok = ctx.ihl_ok = true;
					ctx.ihl_inner_ok = true;
					yes = vsteer_flow_row_ok(
						r, (enum vsteer_flow_engine)e,
						&ctx, false);
					*((bool *)((char *)&ctx +
						   conds[c].off)) = false;
					no = vsteer_flow_row_ok(
						r, (enum vsteer_flow_engine)e,
						&ctx, false);
					VT_CHECK(yes && !no,
						 "%s, engine %u: condition 0x%x: %d with, %d without",
						 r->name, e, conds[c].bit, yes,
						 no);
					checked++;
				}
			}
		}
	}
	/* COUNT (both engines), ESP, MARK, FLAG, egress at least. */
	VT_CHECK(checked >= 6, "only %u conditions", checked);
	return VT_OK;
}

/* vsteer_flow_item_check() of an item whose spec and mask are bits. */
static int
check_item(const struct vsteer_xlate_ctx *ctx,
	   const struct vsteer_flow_item_desc *d, enum vsteer_flow_engine e,
	   bool inner, const uint8_t *bits, struct vsteer_flow_plan *plan,
	   struct rte_flow_error *err, struct vsteer_item_vals *v)
{
	struct rte_flow_item item = {
		.type = d->type,
		.spec = bits,
		.mask = bits,
	};

	vsteer_flow_plan_init(plan, ctx, e);
	memset(err, 0, sizeof(*err));
	return vsteer_flow_item_check(ctx, d, &item, inner, v, plan, err);
}

/* One field alone: taken iff the row says so, with its values. */
static int
check_row(const struct vsteer_xlate_ctx *ctx,
	  const struct vsteer_flow_item_desc *d,
	  const struct vsteer_flow_row *r, enum vsteer_flow_engine e,
	  bool inner, uint8_t *bits, bool *ok)
{
	static struct vsteer_flow_plan plan;
	struct vsteer_item_vals v;
	struct rte_flow_error err;
	int ret;

	*ok = vsteer_flow_row_ok(r, e, ctx, inner);
	if (row_bits(d, r, bits) != VT_OK)
		return VT_FAIL;
	ret = check_item(ctx, d, e, inner, bits, &plan, &err, &v);
	VT_CHECK_EQ(ret == 0, *ok, "%s %s, engine %u, inner %u: %s", d->name,
		    r->name, e, inner, err.message ? err.message : "taken");
	if (!*ok) {
		VT_CHECK(err.type == RTE_FLOW_ERROR_TYPE_ITEM_MASK &&
				 plan.limit.set &&
				 strstr(plan.limit.subject, r->name) != NULL,
			 "%s %s: the refusal names %s", d->name, r->name,
			 plan.limit.subject);
		return VT_OK;
	}
	VT_CHECK(v.spec && !v.range, "%s %s: flags", d->name, r->name);
	VT_CHECK(memcmp(v.mask.raw, bits, d->size) == 0 &&
			 memcmp(v.val.raw, bits, d->size) == 0,
		 "%s %s: values", d->name, r->name);
	return VT_OK;
}

/* Every field of an item one way (engine, device, outer or inner): each
 * alone, all those taken at once, and those with one more refused. */
static int
check_rows(const struct vsteer_xlate_ctx *ctx,
	   const struct vsteer_flow_item_desc *d, enum vsteer_flow_engine e,
	   bool inner, unsigned int *taken, unsigned int *refused)
{
	uint8_t bits[MAX_ITEM_BYTES], all[MAX_ITEM_BYTES];
	static struct vsteer_flow_plan plan;
	const struct vsteer_flow_row *no = NULL;
	struct vsteer_item_vals v;
	struct rte_flow_error err;
	unsigned int j, k;
	bool ok;
	int ret;

	memset(all, 0, sizeof(all));
	for (j = 0; j < d->n_rows; j++) {
		if (check_row(ctx, d, &d->rows[j], e, inner, bits, &ok) !=
		    VT_OK)
			return VT_FAIL;
		if (!ok) {
			no = &d->rows[j];
			(*refused)++;
			continue;
		}
		for (k = 0; k < d->size; k++)
			all[k] |= bits[k];
		(*taken)++;
	}
	ret = check_item(ctx, d, e, inner, all, &plan, &err, &v);
	VT_CHECK_EQ(ret, 0, "%s: every field engine %u takes (inner %u): %s",
		    d->name, e, inner, err.message ? err.message : "");
	VT_CHECK(memcmp(v.val.raw, all, d->size) == 0,
		 "%s: values of every field", d->name);
	if (no == NULL)
		return VT_OK;
	if (row_bits(d, no, bits) != VT_OK)
		return VT_FAIL;
	for (k = 0; k < d->size; k++)
		all[k] |= bits[k];
	ret = check_item(ctx, d, e, inner, all, &plan, &err, &v);
	VT_CHECK(ret < 0 && plan.limit.set &&
			 strstr(plan.limit.subject, no->name) != NULL,
		 "%s: every field and %s, engine %u: %s", d->name, no->name, e,
		 err.message ? err.message : "taken");
	return VT_OK;
}

/*
 * The generic item check follows the rows: a mask on one field is taken
 * exactly where the row says the engine takes it (outer, inner, with and
 * without the device's capabilities), with its values as given, and
 * refused naming the field otherwise; a mask on every field an engine
 * takes at once is taken, and one more field it lacks is refused naming
 * that field.
 */
static int
test_item_check_rows(void)
{
	const struct vsteer_xlate_ctx caps[2] = {
		{ .egress_ok = true,
		  .tag_ok = true,
		  .count_ok = true,
		  .devx_ok = true,
		  .dv_ok = true,
		  .verbs_esp_ok = true,
		  .mpls_ok = true,
		  .ihl_ok = true,
		  .ihl_inner_ok = true },
		{ .dv_ok = true },
	};
	unsigned int i, e, c, in, taken = 0, refused = 0;

	for (i = 0; vsteer_flow_item_desc_at(i) != NULL; i++)
		for (e = 0; e < VSTEER_FLOW_ENGINE_N; e++)
			for (c = 0; c < RTE_DIM(caps); c++)
				for (in = 0; in < 2; in++)
					if (check_rows(&caps[c],
						       vsteer_flow_item_desc_at(
							       i),
						       (enum vsteer_flow_engine)
							       e,
						       in, &taken,
						       &refused) != VT_OK)
						return VT_FAIL;
	VT_CHECK(taken > 100 && refused > 50, "%u taken, %u refused", taken,
		 refused);
	return VT_OK;
}

/* Every row the guide prints says how, or why not. */
static int
test_rows_words(void)
{
	unsigned int i, j, e;

	for (i = 0; vsteer_flow_item_desc_at(i) != NULL; i++) {
		const struct vsteer_flow_item_desc *d =
			vsteer_flow_item_desc_at(i);

		for (j = 0; j < d->n_rows; j++)
			for (e = 0; e < VSTEER_FLOW_ENGINE_N; e++)
				VT_CHECK(!(d->rows[j].sup[e] &
					   VSTEER_SUP_YES) ||
						 d->rows[j].how[e] != NULL,
					 "%s %s: engine %u takes it, says not how",
					 d->name, d->rows[j].name, e);
	}
	for (i = 0; i < VSTEER_ROW_NAMED_N; i++)
		VT_CHECK(vsteer_flow_named[i].name != NULL &&
				 vsteer_flow_named[i].kind ==
					 VSTEER_ROW_FEATURE,
			 "named row %u", i);
	return VT_OK;
}

static char *
table_text(void)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	vsteer_flow_engines_print_rst(f);
	fclose(f);
	return buf;
}

static char *
read_file(const char *path)
{
	char *buf = NULL;
	long n;
	FILE *f = fopen(path, "r");

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 &&
	    fseek(f, 0, SEEK_SET) == 0) {
		buf = malloc((size_t)n + 1);
		if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else if (buf != NULL) {
			buf[n] = '\0';
		}
	}
	fclose(f);
	return buf;
}

/* The guide holds the table the rows print, between its two markers. */
static int
test_guide_table(void)
{
	const char *path = getenv("VSTEER_GUIDE");
	char *guide, *table, *b, *e, *p, *q;
	unsigned int line = 1;
	int ok;

	VT_CHECK(path != NULL, "VSTEER_GUIDE not set");
	guide = read_file(path);
	VT_CHECK(guide != NULL, "cannot read %s", path);
	table = table_text();
	b = strstr(guide, TABLE_BEGIN);
	e = b != NULL ? strstr(b, TABLE_END) : NULL;
	ok = table != NULL && b != NULL && e != NULL;
	if (ok) {
		/* After the marker line and one blank line, up to the end
		 * marker after one blank line. */
		b = strchr(b, '\n');
		ok = b != NULL && b[1] == '\n' && e - b >= 2 && e[-1] == '\n' &&
		     e[-2] == '\n';
	}
	if (!ok) {
		fprintf(stderr,
			"  %s: no '%s' ... '%s' block (blank line after and before the markers)\n",
			path, TABLE_BEGIN, TABLE_END);
		free(guide);
		free(table);
		return VT_FAIL;
	}
	b += 2;
	e -= 1;
	for (p = b, q = table; p < e && *q != '\0' && *p == *q; p++, q++)
		if (*q == '\n')
			line++;
	ok = p == e && *q == '\0';
	if (!ok)
		fprintf(stderr,
			"  %s: the engine table differs from the rows at its line %u:\n"
			"  guide: %.80s\n  rows:  %.80s\n"
			"  regenerate it with: build/test/test_flow_fields --print\n",
			path, line, p < e ? p : "(end)",
			*q != '\0' ? q : "(end)");
	free(guide);
	free(table);
	return ok ? VT_OK : VT_FAIL;
}

static const struct vt_case cases[] = {
	VT_CASE(test_rows_cover),
	VT_CASE(test_default_masks_verbs),
	VT_CASE(test_row_conditions),
	VT_CASE(test_rows_words),
	VT_CASE(test_item_check_rows),
	VT_CASE(test_guide_table),
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "--print") == 0) {
		vsteer_flow_engines_print_rst(stdout);
		return 0;
	}
	return vt_main(argc, argv, cases);
}
