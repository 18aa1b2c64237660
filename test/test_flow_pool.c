/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The indexed pool the driver keeps its flows in
 * (drivers/net/vsteer/vsteer_pool.c): handles name live objects only
 * (not 0, not a freed one, not a stale one whose slot was handed out
 * again, not another pool's), objects are zeroed and stay where they are,
 * the pool grows by slabs and gives them back as objects go.
 */

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vsteer_pool.h"
#include "vt_test.h"

#define OBJ 184
#define LOG 4 /* 16 objects per slab: growth and shrink in few objects */
#define PER_SLAB (1u << LOG)
#define MANY (40 * PER_SLAB)

/* Object i carries a pattern of its own, checked after other changes. */
static void
fill(uint8_t *o, uint32_t i)
{
	uint32_t k;

	for (k = 0; k < OBJ; k++)
		o[k] = (uint8_t)(i * 7 + k);
}

static int
intact(const uint8_t *o, uint32_t i)
{
	uint32_t k;

	for (k = 0; k < OBJ; k++)
		if (o[k] != (uint8_t)(i * 7 + k))
			return 0;
	return 1;
}

static int
zeroed(const uint8_t *o)
{
	uint32_t k;

	for (k = 0; k < OBJ; k++)
		if (o[k] != 0)
			return 0;
	return 1;
}

static int
test_init_limits(void)
{
	struct vsteer_pool p;

	VT_CHECK_EQ(vsteer_pool_init(&p, 0, LOG), -EINVAL, "empty objects");
	VT_CHECK_EQ(vsteer_pool_init(&p, VSTEER_POOL_OBJ_MAX + 1, LOG), -EINVAL,
		    "objects too large");
	VT_CHECK_EQ(vsteer_pool_init(&p, OBJ, 0), -EINVAL, "no slab size");
	VT_CHECK_EQ(vsteer_pool_init(&p, OBJ, VSTEER_POOL_SLAB_LOG_MAX + 1),
		    -EINVAL, "slabs too large");
	VT_CHECK_EQ(vsteer_pool_init(&p, OBJ, LOG), 0, "init");
	VT_CHECK_EQ(p.entry_size % 8, 0, "entries are 8-byte aligned");
	VT_CHECK(p.entry_size >= OBJ + 8, "room for the header");
	VT_CHECK_EQ(p.n_slabs, 0, "nothing mapped before the first object");
	VT_CHECK(vsteer_pool_get(&p, 1) == NULL, "lookup in an empty pool");
	VT_CHECK(!vsteer_pool_free(&p, (uint64_t)1 << 32), "free in empty");
	vsteer_pool_fini(&p);
	return VT_OK;
}

/* Handles name live objects, and only them. */
static int
test_handles(void)
{
	struct vsteer_pool p, q;
	uint64_t ha, hb, hc, hq;
	uint8_t *a, *b, *c, *x;

	VT_CHECK_EQ(vsteer_pool_init(&p, OBJ, LOG), 0, "init");
	VT_CHECK_EQ(vsteer_pool_init(&q, OBJ, LOG), 0, "init");
	a = vsteer_pool_alloc(&p, &ha);
	b = vsteer_pool_alloc(&p, &hb);
	VT_CHECK(a != NULL && b != NULL && a != b, "two objects");
	VT_CHECK(ha != 0 && hb != 0 && ha != hb, "distinct non-zero handles");
	VT_CHECK(zeroed(a) && zeroed(b), "fresh objects are zeroed");
	VT_CHECK(vsteer_pool_get(&p, ha) == a, "a by its handle");
	VT_CHECK(vsteer_pool_get(&p, hb) == b, "b by its handle");
	VT_CHECK(vsteer_pool_get(&p, 0) == NULL, "handle 0");
	VT_CHECK(vsteer_pool_get(&p, (uint32_t)ha) == NULL, "no generation");
	VT_CHECK(vsteer_pool_get(&p, ha + ((uint64_t)1 << 32)) == NULL,
		 "another generation");
	VT_CHECK(vsteer_pool_get(&p, ha ^ 0xffffff) == NULL,
		 "an index never handed out");
	VT_CHECK(vsteer_pool_get(&p, (uintptr_t)a) == NULL,
		 "the object's address is no handle");
	VT_CHECK(vsteer_pool_get(&p, UINT64_MAX) == NULL, "all ones");
	/* Another pool: same indexes, other generations. */
	x = vsteer_pool_alloc(&q, &hq);
	VT_CHECK(x != NULL, "object of the other pool");
	VT_CHECK((uint32_t)hq == (uint32_t)ha, "same first index");
	VT_CHECK(vsteer_pool_get(&q, ha) == NULL, "p's handle in q");
	VT_CHECK(vsteer_pool_get(&p, hq) == NULL, "q's handle in p");
	VT_CHECK(!vsteer_pool_free(&q, ha), "p's handle freed in q");
	VT_CHECK(vsteer_pool_get(&p, ha) == a, "a still there");
	/* Freed: refused, once and again. */
	fill(a, 1);
	VT_CHECK(vsteer_pool_free(&p, ha), "free a");
	VT_CHECK(vsteer_pool_get(&p, ha) == NULL, "freed handle");
	VT_CHECK(!vsteer_pool_free(&p, ha), "double free refused");
	VT_CHECK_EQ(p.used, 1, "one object left");
	/* The slot handed out again: a new handle, the old one refused. */
	c = vsteer_pool_alloc(&p, &hc);
	VT_CHECK(c == a, "the freed entry is reused first");
	VT_CHECK(zeroed(c), "a reused object is zeroed");
	VT_CHECK((uint32_t)hc == (uint32_t)ha && hc != ha,
		 "same index, new generation");
	VT_CHECK(vsteer_pool_get(&p, ha) == NULL, "stale handle refused");
	VT_CHECK(!vsteer_pool_free(&p, ha), "stale handle not freed");
	VT_CHECK(vsteer_pool_get(&p, hc) == c, "the new object is live");
	VT_CHECK_EQ(p.used, 2, "two objects");
	vsteer_pool_fini(&p);
	vsteer_pool_fini(&q);
	return VT_OK;
}

/* Growth by slabs, objects that stay put, shrink as they go. */
static int
test_grow_shrink(void)
{
	static uint64_t h[MANY];
	static uint8_t *o[MANY];
	struct vsteer_pool p;
	size_t one, bytes;
	uint32_t i, j, n, slots;

	VT_CHECK_EQ(vsteer_pool_init(&p, OBJ, LOG), 0, "init");
	o[0] = vsteer_pool_alloc(&p, &h[0]);
	VT_CHECK(o[0] != NULL, "first");
	one = vsteer_pool_bytes(&p);
	VT_CHECK_EQ(p.n_slabs, 1, "one slab");
	VT_CHECK(one >= (size_t)PER_SLAB * p.entry_size, "a slab's bytes");
	fill(o[0], 0);
	for (i = 1; i < MANY; i++) {
		o[i] = vsteer_pool_alloc(&p, &h[i]);
		VT_CHECK(o[i] != NULL, "object %u", i);
		fill(o[i], i);
	}
	VT_CHECK_EQ(p.used, MANY, "all live");
	VT_CHECK_EQ(p.n_slabs, MANY / PER_SLAB, "full slabs, no more");
	VT_CHECK(p.n_slots >= MANY / PER_SLAB, "the slab table grew");
	bytes = vsteer_pool_bytes(&p);
	VT_CHECK(bytes >= (size_t)(MANY / PER_SLAB) * PER_SLAB * p.entry_size,
		 "%zu bytes for %u objects", bytes, MANY);
	for (i = 0; i < MANY; i++) {
		VT_CHECK(vsteer_pool_get(&p, h[i]) == o[i], "handle %u", i);
		VT_CHECK(intact(o[i], i), "object %u overwritten", i);
		for (j = i + 1; j < MANY && j < i + 4; j++)
			VT_CHECK(h[i] != h[j], "handles %u and %u", i, j);
	}
	/* Every other object goes: no slab is empty, none goes. */
	for (i = 0; i < MANY; i += 2)
		VT_CHECK(vsteer_pool_free(&p, h[i]), "free %u", i);
	VT_CHECK_EQ(p.n_slabs, MANY / PER_SLAB, "half-used slabs stay");
	for (i = 1; i < MANY; i += 2)
		VT_CHECK(intact(o[i], i), "survivor %u", i);
	/* The rest but the last slab's: their slabs go, one is kept. */
	for (i = 1; i < MANY - PER_SLAB; i += 2)
		VT_CHECK(vsteer_pool_free(&p, h[i]), "free %u", i);
	VT_CHECK_EQ(p.n_slabs, 2, "the last slab in use and one spare");
	VT_CHECK(vsteer_pool_bytes(&p) < bytes / 8, "memory given back");
	for (i = MANY - PER_SLAB + 1; i < MANY; i += 2)
		VT_CHECK(intact(o[i], i) && vsteer_pool_get(&p, h[i]) == o[i],
			 "last slab's object %u", i);
	/* Handles of objects whose slab went are refused, not read. */
	for (i = 0; i < MANY - PER_SLAB; i++)
		VT_CHECK(vsteer_pool_get(&p, h[i]) == NULL, "gone %u", i);
	/* Growing again reuses the slab numbers given back. */
	slots = p.n_slots;
	for (i = 0, n = 0; i < MANY - PER_SLAB; i++, n++) {
		o[i] = vsteer_pool_alloc(&p, &h[i]);
		VT_CHECK(o[i] != NULL, "again %u", i);
		fill(o[i], i);
	}
	VT_CHECK_EQ(p.n_slots, slots, "no new slab numbers");
	VT_CHECK_EQ(p.used, n + PER_SLAB / 2, "live objects");
	/* Create and destroy one object, many times: no slab churn. */
	for (i = 0; i < 4 * MANY; i++) {
		uint64_t t;
		uint8_t *x = vsteer_pool_alloc(&p, &t);

		VT_CHECK(x != NULL && zeroed(x), "loop object %u", i);
		VT_CHECK(vsteer_pool_free(&p, t), "loop free %u", i);
	}
	VT_CHECK(p.n_slots == slots, "the loop took no slab number");
	/* Everything goes: one spare slab is left. */
	for (i = 0; i < MANY; i++)
		vsteer_pool_free(&p, h[i]);
	VT_CHECK_EQ(p.used, 0, "empty");
	VT_CHECK_EQ(p.n_slabs, 1, "one spare slab");
	vsteer_pool_fini(&p);
	VT_CHECK_EQ(p.n_slots, 0, "fini");
	return VT_OK;
}

/* Random order of allocations and frees against a model. */
static int
test_random(void)
{
	static uint64_t h[MANY];
	static uint8_t *o[MANY];
	static uint8_t live[MANY];
	struct vsteer_pool p;
	uint32_t seed = 12345, i, step, n = 0;

	VT_CHECK_EQ(vsteer_pool_init(&p, OBJ, LOG), 0, "init");
	memset(live, 0, sizeof(live));
	for (step = 0; step < 20 * MANY; step++) {
		seed = seed * 1103515245u + 12345u;
		i = (seed >> 8) % MANY;
		if (live[i]) {
			VT_CHECK(intact(o[i], i), "object %u at step %u", i,
				 step);
			VT_CHECK(vsteer_pool_free(&p, h[i]), "free %u", i);
			VT_CHECK(vsteer_pool_get(&p, h[i]) == NULL, "gone %u",
				 i);
			live[i] = 0;
			n--;
		} else {
			o[i] = vsteer_pool_alloc(&p, &h[i]);
			VT_CHECK(o[i] != NULL && zeroed(o[i]), "alloc %u", i);
			fill(o[i], i);
			live[i] = 1;
			n++;
		}
		VT_CHECK_EQ(p.used, n, "live count at step %u", step);
		/* Never more slabs than needed, but for one spare and the
		 * partly used ones. */
		VT_CHECK(p.n_slabs <= n + 1, "%u slabs for %u objects",
			 p.n_slabs, n);
	}
	for (i = 0; i < MANY; i++)
		if (live[i])
			VT_CHECK(vsteer_pool_get(&p, h[i]) == o[i] &&
					 intact(o[i], i),
				 "survivor %u", i);
	vsteer_pool_fini(&p);
	return VT_OK;
}

static const struct vt_case cases[] = {
	VT_CASE(test_init_limits),
	VT_CASE(test_handles),
	VT_CASE(test_grow_shrink),
	VT_CASE(test_random),
	{ NULL, NULL },
};

int
main(int argc, char **argv)
{
	return vt_main(argc, argv, cases);
}
