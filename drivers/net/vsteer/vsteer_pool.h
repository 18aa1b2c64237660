/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VSTEER_POOL_H
#define VSTEER_POOL_H

/*
 * An indexed pool of fixed-size objects (vsteer_pool.c): the flows of a
 * port. Each object handed out gets a 64-bit handle, its index in the
 * pool and a generation that no other object of the pool had before:
 *
 *	handle = generation << 32 | index	(never 0)
 *
 * so that a lookup checks a handle in constant time without reading
 * anything the handle points at: an unknown value, a destroyed object's
 * handle, one whose slot holds a newer object or one of another pool
 * finds nothing (the generation counter is the process's, 32 bits: a
 * stale handle could only match again after 2^32 allocations).
 *
 * Objects live in slabs of 2^slab_log entries mapped from the kernel,
 * each object after an 8-byte header (its generation, the free list);
 * a slab whose last object goes is unmapped (one empty slab is kept), so
 * the memory goes back as objects do. Objects never move.
 *
 * Not thread-safe: the caller serializes (the port's flow operations).
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>

struct vsteer_pool_slab;

LIST_HEAD(vsteer_pool_slab_list, vsteer_pool_slab);

struct vsteer_pool {
	uint32_t obj_size;		 /* bytes of an object */
	uint32_t entry_size;		 /* header + object, a multiple of 8 */
	uint32_t slab_log;		 /* log2 of the entries of a slab */
	uint32_t n_slots;		 /* length of slabs[] */
	uint32_t slot_hint;		 /* no free slot below it */
	uint32_t used;			 /* objects handed out */
	uint32_t n_slabs;		 /* slabs mapped */
	size_t slab_bytes;		 /* mapped bytes of a slab */
	struct vsteer_pool_slab **slabs; /* by slab number, or NULL */
	struct vsteer_pool_slab_list partial; /* slabs with a free entry */
	struct vsteer_pool_slab *empty;	      /* the one empty slab kept */
};

/* Largest object and slab: indexes stay below 2^32. */
#define VSTEER_POOL_OBJ_MAX 4096u
#define VSTEER_POOL_SLAB_LOG_MAX 16u

/* Set up an empty pool (maps nothing yet). Returns 0 or -EINVAL. */
int
vsteer_pool_init(struct vsteer_pool *p, uint32_t obj_size, uint32_t slab_log);
/* Unmap every slab, objects still handed out included. */
void vsteer_pool_fini(struct vsteer_pool *p);
/* A zeroed object and its handle; NULL with rte_errno ENOMEM. */
void *vsteer_pool_alloc(struct vsteer_pool *p, uint64_t *handle);
/* The object of a live handle, NULL for any other value. */
void *vsteer_pool_get(const struct vsteer_pool *p, uint64_t handle);
/* Give back the object of a live handle; false (nothing done) for any
 * other value. */
bool vsteer_pool_free(struct vsteer_pool *p, uint64_t handle);
/* Bytes the pool has mapped, and the slabs' bookkeeping. */
size_t vsteer_pool_bytes(const struct vsteer_pool *p);

#endif /* VSTEER_POOL_H */
