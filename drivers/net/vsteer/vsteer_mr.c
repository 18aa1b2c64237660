/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * Memory registration. Every buffer the device touches must lie in a
 * memory region of the port's PD: mempools are registered chunk by chunk
 * (Rx pools at queue setup, Tx pools on first use) into a table sorted by
 * address, searched under a read lock when a queue's last-hit entry
 * misses. Registrations live until the pool is destroyed or the port is
 * closed.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_mempool.h>

#include "vsteer.h"

/* Index of the first entry whose start is > addr. */
static uint32_t
vsteer_mr_upper(const struct vsteer_mr_cache *c, uintptr_t addr)
{
	uint32_t lo = 0, hi = c->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (c->tbl[mid].start <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Entry covering [addr, addr + len), or NULL. Lock held. */
static const struct vsteer_mr *
vsteer_mr_find(const struct vsteer_mr_cache *c, uintptr_t addr, size_t len)
{
	uint32_t i = vsteer_mr_upper(c, addr);
	const struct vsteer_mr *e;

	if (i == 0)
		return NULL;
	e = &c->tbl[i - 1];
	if (addr >= e->start && addr + len <= e->end)
		return e;
	return NULL;
}

/* Insert an entry, keeping the order. Write lock held. */
static int
vsteer_mr_insert(struct vsteer_mr_cache *c, const struct vsteer_mr *e)
{
	uint32_t i;

	if (c->n == c->cap) {
		uint32_t cap = c->cap ? c->cap * 2 : 16;
		struct vsteer_mr *tbl;

		tbl = rte_realloc(c->tbl, cap * sizeof(*tbl), 0);
		if (tbl == NULL)
			return -ENOMEM;
		c->tbl = tbl;
		c->cap = cap;
	}
	i = vsteer_mr_upper(c, e->start);
	memmove(&c->tbl[i + 1], &c->tbl[i], (c->n - i) * sizeof(*e));
	c->tbl[i] = *e;
	c->n++;
	return 0;
}

struct vsteer_mr_walk {
	struct vsteer_priv *priv;
	int err;
};

static void
vsteer_mr_chunk_cb(struct rte_mempool *mp, void *opaque,
		   struct rte_mempool_memhdr *memhdr, unsigned int idx)
{
	struct vsteer_mr_walk *w = opaque;
	struct vsteer_priv *priv = w->priv;
	struct vsteer_mr e;
	struct ibv_mr *mr;
	int ret;

	RTE_SET_USED(idx);
	if (w->err != 0 || memhdr->len == 0)
		return;
	/* Chunks of a pool never overlap another registration. */
	if (vsteer_mr_find(&priv->mr, (uintptr_t)memhdr->addr, 1) != NULL)
		return;
	mr = priv->glue->reg_mr(priv->pd, memhdr->addr, memhdr->len,
				IBV_ACCESS_LOCAL_WRITE);
	if (mr == NULL) {
		w->err = -(errno ? errno : ENOMEM);
		DRV_LOG(ERR,
			"port %u: cannot register %zu bytes of mempool %s: %s",
			priv->data->port_id, memhdr->len, mp->name,
			strerror(-w->err));
		return;
	}
	e.start = (uintptr_t)memhdr->addr;
	e.end = e.start + memhdr->len;
	e.lkey = mr->lkey;
	e.mr = mr;
	e.mp = mp;
	ret = vsteer_mr_insert(&priv->mr, &e);
	if (ret != 0) {
		priv->glue->dereg_mr(mr);
		w->err = ret;
		return;
	}
	DRV_LOG(DEBUG, "port %u: mempool %s chunk %p+%zu lkey 0x%x",
		priv->data->port_id, mp->name, memhdr->addr, memhdr->len,
		mr->lkey);
}

int
vsteer_mr_register_mempool(struct vsteer_priv *priv, struct rte_mempool *mp)
{
	struct vsteer_mr_walk w = { .priv = priv, .err = 0 };

	/* Chunks already registered are skipped, so a walk that failed
	 * half-way is completed by the next one. */
	rte_rwlock_write_lock(&priv->mr.lock);
	rte_mempool_mem_iter(mp, vsteer_mr_chunk_cb, &w);
	rte_rwlock_write_unlock(&priv->mr.lock);
	return w.err;
}

/* Drop the registrations of one pool (or all with mp NULL). Lock held. */
static int
vsteer_mr_drop(struct vsteer_priv *priv, const struct rte_mempool *mp)
{
	struct vsteer_mr_cache *c = &priv->mr;
	uint32_t i, j;
	int failed = 0;

	for (i = 0, j = 0; i < c->n; i++) {
		struct vsteer_mr *e = &c->tbl[i];
		int ret;

		if (mp != NULL && e->mp != mp) {
			c->tbl[j++] = *e;
			continue;
		}
		ret = priv->glue->dereg_mr(e->mr);
		if (ret != 0) {
			failed++;
			DRV_LOG(ERR, "port %u: dereg_mr(lkey 0x%x): %s",
				priv->data->port_id, e->lkey, strerror(ret));
		}
	}
	if (j != c->n)
		__atomic_add_fetch(&c->gen, 1, __ATOMIC_RELEASE);
	c->n = j;
	return failed;
}

/* A pool going away must not leave a registration of its memory. */
static void
vsteer_mr_mempool_event(enum rte_mempool_event event, struct rte_mempool *mp,
			void *arg)
{
	struct vsteer_priv *priv = arg;

	if (event != RTE_MEMPOOL_EVENT_DESTROY)
		return;
	rte_rwlock_write_lock(&priv->mr.lock);
	vsteer_mr_drop(priv, mp);
	rte_rwlock_write_unlock(&priv->mr.lock);
}

int
vsteer_mr_init(struct vsteer_priv *priv)
{
	rte_rwlock_init(&priv->mr.lock);
	priv->mr.tbl = NULL;
	priv->mr.n = 0;
	priv->mr.cap = 0;
	if (rte_mempool_event_callback_register(vsteer_mr_mempool_event,
						priv) == 0)
		priv->mr.event_cb = 1;
	else
		DRV_LOG(WARNING,
			"mempool events unavailable: registrations of destroyed pools stay until close");
	return 0;
}

int
vsteer_mr_fini(struct vsteer_priv *priv)
{
	int failed;

	if (priv->mr.event_cb) {
		rte_mempool_event_callback_unregister(vsteer_mr_mempool_event,
						      priv);
		priv->mr.event_cb = 0;
	}
	rte_rwlock_write_lock(&priv->mr.lock);
	failed = vsteer_mr_drop(priv, NULL);
	rte_free(priv->mr.tbl);
	priv->mr.tbl = NULL;
	priv->mr.cap = 0;
	rte_rwlock_write_unlock(&priv->mr.lock);
	return failed;
}

int
vsteer_mr_lookup(struct vsteer_priv *priv, struct vsteer_mr_hit *hit,
		 uintptr_t addr, size_t len, struct rte_mempool *mp,
		 uint32_t *lkey)
{
	const struct vsteer_mr *e;
	int tries;

	for (tries = 0; tries < 2; tries++) {
		rte_rwlock_read_lock(&priv->mr.lock);
		e = vsteer_mr_find(&priv->mr, addr, len);
		if (e != NULL) {
			hit->start = e->start;
			hit->end = e->end;
			hit->lkey = e->lkey;
			hit->gen = priv->mr.gen;
			*lkey = e->lkey;
			rte_rwlock_read_unlock(&priv->mr.lock);
			return 0;
		}
		rte_rwlock_read_unlock(&priv->mr.lock);
		/* Memory of a pool not seen yet: register it once. */
		if (mp == NULL || tries > 0 ||
		    vsteer_mr_register_mempool(priv, mp) != 0)
			break;
	}
	return -ENOENT;
}
