/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Indexed object pool (vsteer_pool.h): the flows of a port.
 *
 * Why not rte_malloc() per object: it takes the heap's lock, adds a
 * 64-byte header and rounds to a cache line, and its memory counts
 * against EAL's -m; flows are process-local control state that no device
 * reads, so they come from memory mapped here, with an 8-byte header.
 * And why handles rather than pointers: rte_flow_destroy() must refuse a
 * handle that is not a live flow of the port without walking the flows
 * (DPDK's mlx5 likewise returns the index of its flow pool entry as the
 * rte_flow pointer: mlx5_flow_list_create()); the generation also
 * refuses a stale handle whose slot now holds another flow.
 *
 * A slab's entries are handed out in address order first (so rules made
 * one after the other sit one after the other and a fresh slab's pages
 * are touched as they are used), then from the slab's list of given back
 * entries. Slabs with a free entry are on the pool's partial list.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_common.h>
#include <rte_errno.h>

#include "vsteer_pool.h"

/* Under AddressSanitizer an object is poisoned while not handed out, so
 * that a flow used after it was destroyed is caught as with malloc. */
#if defined(__SANITIZE_ADDRESS__)
#define VSTEER_POOL_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define VSTEER_POOL_ASAN 1
#endif
#endif
#ifdef VSTEER_POOL_ASAN
#include <sanitizer/asan_interface.h>
#define POOL_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define POOL_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define POOL_POISON(p, n) ((void)(p), (void)(n))
#define POOL_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define POOL_NONE UINT32_MAX

/* Generations come from one counter for every pool of the process, so
 * that a handle of one port's pool is no handle of another's either. */
static uint32_t pool_gen;

/* In front of each object. */
struct vsteer_pool_hdr {
	uint32_t gen;  /* 0 while not handed out */
	uint32_t next; /* free list: next given back entry of the slab */
};

struct vsteer_pool_slab {
	LIST_ENTRY(vsteer_pool_slab) next; /* on the partial list */
	uint8_t *mem;			   /* the entries */
	uint32_t num;	/* slab number: indexes num << log.. */
	uint32_t used;	/* entries handed out */
	uint32_t fresh; /* entries from here never were */
	uint32_t free;	/* first given back entry */
	bool listed;	/* on the partial list */
};

static inline struct vsteer_pool_hdr *
pool_hdr(const struct vsteer_pool *p, const struct vsteer_pool_slab *s,
	 uint32_t i)
{
	return (struct vsteer_pool_hdr *)(s->mem + (size_t)i * p->entry_size);
}

int
vsteer_pool_init(struct vsteer_pool *p, uint32_t obj_size, uint32_t slab_log)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);

	if (obj_size == 0 || obj_size > VSTEER_POOL_OBJ_MAX || slab_log == 0 ||
	    slab_log > VSTEER_POOL_SLAB_LOG_MAX)
		return -EINVAL;
	memset(p, 0, sizeof(*p));
	p->obj_size = obj_size;
	p->entry_size = (uint32_t)
		RTE_ALIGN_CEIL(sizeof(struct vsteer_pool_hdr) + obj_size, 8);
	p->slab_log = slab_log;
	p->slab_bytes = RTE_ALIGN_CEIL((size_t)p->entry_size << slab_log, page);
	LIST_INIT(&p->partial);
	return 0;
}

static void
pool_unmap(struct vsteer_pool *p, struct vsteer_pool_slab *s)
{
	if (s->listed)
		LIST_REMOVE(s, next);
	if (p->empty == s)
		p->empty = NULL;
	p->slabs[s->num] = NULL;
	if (s->num < p->slot_hint)
		p->slot_hint = s->num;
	/* The shadow of memory unmapped must not stay poisoned. */
	POOL_UNPOISON(s->mem, p->slab_bytes);
	munmap(s->mem, p->slab_bytes);
	free(s);
	p->n_slabs--;
}

void
vsteer_pool_fini(struct vsteer_pool *p)
{
	uint32_t i;

	for (i = 0; i < p->n_slots; i++)
		if (p->slabs[i] != NULL)
			pool_unmap(p, p->slabs[i]);
	free(p->slabs);
	p->slabs = NULL;
	p->n_slots = 0;
	p->used = 0;
}

/* A free slab number, growing slabs[] when every one is taken. */
static int
pool_slot(struct vsteer_pool *p, uint32_t *num)
{
	const uint32_t max = UINT32_C(1) << (32 - p->slab_log);
	struct vsteer_pool_slab **slabs;
	uint32_t i, n;

	for (i = p->slot_hint; i < p->n_slots; i++)
		if (p->slabs[i] == NULL) {
			*num = i;
			p->slot_hint = i + 1;
			return 0;
		}
	if (p->n_slots >= max)
		return -ENOSPC;
	n = p->n_slots != 0 ? RTE_MIN(p->n_slots * 2, max) : 16;
	slabs = realloc(p->slabs, n * sizeof(*slabs));
	if (slabs == NULL)
		return -ENOMEM;
	memset(slabs + p->n_slots, 0, (n - p->n_slots) * sizeof(*slabs));
	p->slabs = slabs;
	*num = p->n_slots;
	p->slot_hint = p->n_slots + 1;
	p->n_slots = n;
	return 0;
}

static struct vsteer_pool_slab *
pool_map(struct vsteer_pool *p)
{
	struct vsteer_pool_slab *s;
	uint32_t num;
	void *mem;

	if (pool_slot(p, &num) != 0)
		return NULL;
	s = calloc(1, sizeof(*s));
	if (s == NULL)
		goto fail;
	/* The pool's first slab is touched as objects come (a port with a
	 * few rules holds a few pages); a further one is populated: many
	 * objects are coming, and one call costs less than a page fault per
	 * page. */
	mem = mmap(NULL, p->slab_bytes, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS |
			   (p->n_slabs > 0 ? MAP_POPULATE : 0),
		   -1, 0);
	if (mem == MAP_FAILED) {
		free(s);
		goto fail;
	}
	POOL_POISON(mem, p->slab_bytes);
	s->mem = mem;
	s->num = num;
	s->free = POOL_NONE;
	p->slabs[num] = s;
	LIST_INSERT_HEAD(&p->partial, s, next);
	s->listed = true;
	p->n_slabs++;
	return s;
fail:
	/* The slab number stays free for the next try. */
	p->slot_hint = RTE_MIN(p->slot_hint, num);
	return NULL;
}

void *
vsteer_pool_alloc(struct vsteer_pool *p, uint64_t *handle)
{
	struct vsteer_pool_slab *s = LIST_FIRST(&p->partial);
	struct vsteer_pool_hdr *h;
	uint32_t i;

	/* Fill slabs in use before the empty one kept in reserve. */
	if (s != NULL && s == p->empty && LIST_NEXT(s, next) != NULL)
		s = LIST_NEXT(s, next);
	if (s == NULL) {
		s = pool_map(p);
		if (s == NULL) {
			rte_errno = ENOMEM;
			return NULL;
		}
	}
	if (s->free != POOL_NONE) {
		i = s->free;
		h = pool_hdr(p, s, i);
		s->free = h->next;
		POOL_UNPOISON(h + 1, p->obj_size);
		memset(h + 1, 0, p->obj_size);
	} else {
		/* Never handed out: still the kernel's zeroes. */
		i = s->fresh++;
		h = pool_hdr(p, s, i);
		POOL_UNPOISON(h, p->entry_size);
	}
	if (s == p->empty)
		p->empty = NULL;
	s->used++;
	if (s->free == POOL_NONE && s->fresh == (UINT32_C(1) << p->slab_log)) {
		LIST_REMOVE(s, next);
		s->listed = false;
	}
	do
		h->gen = __atomic_add_fetch(&pool_gen, 1, __ATOMIC_RELAXED);
	while (h->gen == 0);
	h->next = POOL_NONE;
	p->used++;
	*handle = (uint64_t)h->gen << 32 | (s->num << p->slab_log | i);
	return h + 1;
}

/* The slab and entry of a live handle. */
static inline struct vsteer_pool_hdr *
pool_find(const struct vsteer_pool *p, uint64_t handle,
	  struct vsteer_pool_slab **slab, uint32_t *entry)
{
	uint32_t gen = (uint32_t)(handle >> 32), idx = (uint32_t)handle;
	uint32_t num = idx >> p->slab_log;
	uint32_t i = idx & ((UINT32_C(1) << p->slab_log) - 1);
	struct vsteer_pool_slab *s;
	struct vsteer_pool_hdr *h;

	if (gen == 0 || num >= p->n_slots)
		return NULL;
	s = p->slabs[num];
	if (s == NULL || i >= s->fresh)
		return NULL;
	h = pool_hdr(p, s, i);
	if (h->gen != gen)
		return NULL;
	*slab = s;
	*entry = i;
	return h;
}

void *
vsteer_pool_get(const struct vsteer_pool *p, uint64_t handle)
{
	struct vsteer_pool_slab *s;
	struct vsteer_pool_hdr *h;
	uint32_t i;

	h = pool_find(p, handle, &s, &i);
	return h != NULL ? h + 1 : NULL;
}

bool
vsteer_pool_free(struct vsteer_pool *p, uint64_t handle)
{
	struct vsteer_pool_slab *s;
	struct vsteer_pool_hdr *h;
	uint32_t i;

	h = pool_find(p, handle, &s, &i);
	if (h == NULL)
		return false;
	h->gen = 0;
	h->next = s->free;
	s->free = i;
	POOL_POISON(h + 1, p->obj_size);
	p->used--;
	if (!s->listed) {
		LIST_INSERT_HEAD(&p->partial, s, next);
		s->listed = true;
	}
	if (--s->used == 0) {
		/* One empty slab stays, so that a create/destroy loop at a
		 * slab's edge does not map and unmap each time. */
		if (p->empty == NULL)
			p->empty = s;
		else
			pool_unmap(p, s);
	}
	return true;
}

size_t
vsteer_pool_bytes(const struct vsteer_pool *p)
{
	return (size_t)p->n_slabs *
		       (p->slab_bytes + sizeof(struct vsteer_pool_slab)) +
	       (size_t)p->n_slots * sizeof(p->slabs[0]);
}
