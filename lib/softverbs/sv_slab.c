/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The memory of a port's rule tables: slabs for rule objects and the
 * tables' own arrays, with a count of the bytes held, so that a port's
 * footprint can be read (softverbs_port_rule_mem()) and seen to shrink.
 *
 * Rule objects (a flow handle, its rule and the rule's value words: about
 * a hundred bytes) come from 64 KiB slabs, one chain of slabs per object
 * size rounded up to 8 bytes. A rule then costs its own bytes and no
 * allocator header, and rules made one after the other sit one after the
 * other, as the classifier meets them. A slab whose last object goes is
 * unmapped, so that a port that had many rules and keeps a few gives the
 * memory back (the C library would keep it in its heap); one empty slab
 * is kept in reserve, so that creating and destroying one rule in a loop
 * does not map and unmap each time. Arrays of 64 KiB or more are mapped
 * directly for the same reason, smaller ones come from malloc.
 *
 * Not thread-safe: the port's rules_lock, held for writing, covers every
 * call.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sv_internal.h"

/* Under AddressSanitizer, objects not handed out are poisoned, so that a
 * flow used after ibv_destroy_flow() is caught as it would be with
 * malloc. */
#if defined(__SANITIZE_ADDRESS__)
#define SV_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SV_ASAN 1
#endif
#endif
#ifdef SV_ASAN
#include <sanitizer/asan_interface.h>
#define SV_POISON(p, n) ASAN_POISON_MEMORY_REGION(p, n)
#define SV_UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION(p, n)
#else
#define SV_POISON(p, n) ((void)(p), (void)(n))
#define SV_UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define SV_SLAB_BYTES (UINT32_C(64) * 1024)
#define SV_SLAB_FIRST 64 /* offset of the first object: after the header */
#define SV_BIG_BYTES (UINT32_C(64) * 1024)

struct sv_slab {
	struct sv_slab *next, *prev;	     /* slabs of its class with room */
	struct sv_slab *all_next, *all_prev; /* every slab of the arena */
	void *free;			     /* objects given back */
	uint32_t size;			     /* object bytes */
	uint32_t live;			     /* objects handed out */
	uint32_t bump;			     /* first never used offset */
	bool listed;			     /* on its class's list */
};

_Static_assert(sizeof(struct sv_slab) <= SV_SLAB_FIRST, "slab header");

static void
sv_slab_list(struct sv_arena *a, struct sv_slab *s)
{
	struct sv_slab **head = &a->room[s->size / 8];

	s->prev = NULL;
	s->next = *head;
	if (*head != NULL)
		(*head)->prev = s;
	*head = s;
	s->listed = true;
}

static void
sv_slab_unlist(struct sv_arena *a, struct sv_slab *s)
{
	if (s->prev != NULL)
		s->prev->next = s->next;
	else
		a->room[s->size / 8] = s->next;
	if (s->next != NULL)
		s->next->prev = s->prev;
	s->listed = false;
}

/* 64 KiB, aligned on 64 KiB: an object finds its slab by masking. */
static void *
sv_map_aligned(void)
{
	size_t len = 2 * (size_t)SV_SLAB_BYTES;
	uintptr_t p, a, end;
	void *m;

	m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0);
	if (m == MAP_FAILED)
		return NULL;
	p = (uintptr_t)m;
	a = (p + SV_SLAB_BYTES - 1) & ~(uintptr_t)(SV_SLAB_BYTES - 1);
	end = p + len;
	if (a > p)
		munmap(m, a - p);
	if (end > a + SV_SLAB_BYTES)
		munmap((void *)(a + SV_SLAB_BYTES), end - (a + SV_SLAB_BYTES));
	return (void *)a;
}

static struct sv_slab *
sv_slab_new(struct sv_arena *a, uint32_t size)
{
	struct sv_slab *s = a->spare;

	if (s != NULL) {
		a->spare = NULL;
	} else {
		s = sv_map_aligned();
		if (s == NULL)
			return NULL;
		a->bytes += SV_SLAB_BYTES;
	}
	memset(s, 0, sizeof(*s));
	s->size = size;
	s->bump = SV_SLAB_FIRST;
	SV_POISON((uint8_t *)s + SV_SLAB_FIRST, SV_SLAB_BYTES - SV_SLAB_FIRST);
	s->all_next = a->all;
	if (a->all != NULL)
		a->all->all_prev = s;
	a->all = s;
	sv_slab_list(a, s);
	return s;
}

/* An empty slab: kept as the spare or unmapped. */
static void
sv_slab_release(struct sv_arena *a, struct sv_slab *s)
{
	if (s->listed)
		sv_slab_unlist(a, s);
	if (s->all_prev != NULL)
		s->all_prev->all_next = s->all_next;
	else
		a->all = s->all_next;
	if (s->all_next != NULL)
		s->all_next->all_prev = s->all_prev;
	if (a->spare == NULL) {
		a->spare = s;
		return;
	}
	SV_UNPOISON(s, SV_SLAB_BYTES);
	munmap(s, SV_SLAB_BYTES);
	a->bytes -= SV_SLAB_BYTES;
}

void *
sv_arena_obj_alloc(struct sv_arena *a, size_t size)
{
	struct sv_slab *s;
	uint32_t sz;
	void *o;

	if (size == 0 || size > SV_ARENA_OBJ_MAX) {
		errno = EINVAL;
		return NULL;
	}
	sz = (uint32_t)((size + 7) & ~(size_t)7);
	s = a->room[sz / 8];
	if (s == NULL) {
		s = sv_slab_new(a, sz);
		if (s == NULL) {
			errno = ENOMEM;
			return NULL;
		}
	}
	if (s->free != NULL) {
		o = s->free;
		SV_UNPOISON(o, sz);
		memcpy(&s->free, o, sizeof(void *));
	} else {
		o = (uint8_t *)s + s->bump;
		s->bump += sz;
		SV_UNPOISON(o, sz);
	}
	s->live++;
	if (s->free == NULL && s->bump + sz > SV_SLAB_BYTES)
		sv_slab_unlist(a, s);
	return o;
}

void
sv_arena_obj_free(struct sv_arena *a, void *o)
{
	struct sv_slab *s;

	if (o == NULL)
		return;
	s = (struct sv_slab *)((uintptr_t)o & ~(uintptr_t)(SV_SLAB_BYTES - 1));
	memcpy(o, &s->free, sizeof(void *));
	s->free = o;
	SV_POISON(o, s->size);
	if (--s->live == 0)
		sv_slab_release(a, s);
	else if (!s->listed)
		sv_slab_list(a, s);
}

static size_t
sv_big_len(size_t bytes)
{
	return (bytes + 4095) & ~(size_t)4095;
}

void *
sv_arena_zalloc(struct sv_arena *a, size_t bytes)
{
	void *p;

	if (bytes >= SV_BIG_BYTES) {
		/* Filled right away (a hash table being resized): one
		 * populating call rather than a fault per page. */
		p = mmap(NULL, sv_big_len(bytes), PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		a->bytes += sv_big_len(bytes);
		return p;
	}
	p = calloc(1, bytes);
	if (p != NULL)
		a->bytes += bytes;
	return p;
}

void
sv_arena_zfree(struct sv_arena *a, void *p, size_t bytes)
{
	if (p == NULL)
		return;
	if (bytes >= SV_BIG_BYTES) {
		munmap(p, sv_big_len(bytes));
		a->bytes -= sv_big_len(bytes);
		return;
	}
	free(p);
	a->bytes -= bytes;
}

void
sv_arena_init(struct sv_arena *a)
{
	memset(a, 0, sizeof(*a));
}

/* Unmaps every slab, objects still in use included. */
void
sv_arena_fini(struct sv_arena *a)
{
	struct sv_slab *s;

	while ((s = a->all) != NULL) {
		a->all = s->all_next;
		SV_UNPOISON(s, SV_SLAB_BYTES);
		munmap(s, SV_SLAB_BYTES);
		a->bytes -= SV_SLAB_BYTES;
	}
	if (a->spare != NULL) {
		SV_UNPOISON(a->spare, SV_SLAB_BYTES);
		munmap(a->spare, SV_SLAB_BYTES);
		a->bytes -= SV_SLAB_BYTES;
	}
	memset(a->room, 0, sizeof(a->room));
	a->spare = NULL;
}
