/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * ibv_counters: ibv_create_counters(3), ibv_attach_counters_point_flow(3),
 * ibv_read_counters(3). Only static attach to flows is supported, as on
 * mlx5: points are described first (flow == NULL), then the object is bound
 * by ibv_create_flow() with an IBV_FLOW_SPEC_ACTION_COUNT spec.
 */

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sv_internal.h"

static struct sv_counters *
sv_counters_of(struct ibv_counters *c)
{
	return sv_container_of(c, struct sv_counters, c);
}

struct ibv_counters *
sv_create_counters(struct ibv_context *context,
		   struct ibv_counters_init_attr *attr)
{
	struct sv_context *ctx;
	struct sv_counters *c;

	if (context == NULL || attr == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* No comp_mask bit is defined: unknown ones are unsupported. */
	if (attr->comp_mask != 0) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	ctx = sv_ctx(context);
	c = calloc(1, sizeof(*c));
	if (c == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	c->c.context = context;
	c->ctx = ctx;
	/* "Counters are cleared upon creation". */
	atomic_init(&c->packets, 0);
	atomic_init(&c->bytes, 0);
	atomic_init(&c->bound, 0);
	pthread_mutex_init(&c->lock, NULL);
	atomic_fetch_add(&ctx->nobjs, 1);
	return &c->c;
}

int
sv_destroy_counters(struct ibv_counters *counters)
{
	struct sv_counters *c;

	if (counters == NULL)
		return EINVAL;
	c = sv_counters_of(counters);
	/* The man page asks the user to detach first; a flow still
	 * referencing the object keeps it alive. */
	if (atomic_load(&c->bound) > 0)
		return EBUSY;
	atomic_fetch_sub(&c->ctx->nobjs, 1);
	pthread_mutex_destroy(&c->lock);
	free(c);
	return 0;
}

int
sv_attach_counters_point_flow(struct ibv_counters *counters,
			      struct ibv_counter_attach_attr *attr,
			      struct ibv_flow *flow)
{
	struct sv_counters *c;
	int rc = 0;

	if (counters == NULL || attr == NULL)
		return EINVAL;
	if (attr->comp_mask != 0)
		return EOPNOTSUPP;
	/* Dynamic attach (to an existing flow) is not supported: ENOTSUP,
	 * "counter_desc is not supported on the requested object". */
	if (flow != NULL)
		return ENOTSUP;
	if (attr->counter_desc != IBV_COUNTER_PACKETS &&
	    attr->counter_desc != IBV_COUNTER_BYTES)
		return ENOTSUP;
	if (attr->index > SV_MAX_COUNTER_INDEX)
		return EINVAL;
	c = sv_counters_of(counters);
	pthread_mutex_lock(&c->lock);
	/* "Once an ibv_counters is bound statically to a verbs resource, no
	 * additional attach is allowed till the counter object is not bound
	 * to any verb object." */
	if (atomic_load(&c->bound) > 0) {
		rc = EBUSY;
	} else if (c->npoints == SV_MAX_COUNTER_POINTS) {
		rc = ENOMEM;
	} else {
		/* Several points may share an index: their values add up
		 * ("setting the index more than once with different or same
		 * counter_desc will aggregate the values"). */
		c->points[c->npoints].desc = attr->counter_desc;
		c->points[c->npoints].index = attr->index;
		c->npoints++;
	}
	pthread_mutex_unlock(&c->lock);
	return rc;
}

int
sv_read_counters(struct ibv_counters *counters, uint64_t *values,
		 uint32_t ncounters, uint32_t flags)
{
	struct sv_counters *c;
	uint64_t packets, bytes;
	uint32_t need = 0;
	unsigned int i;

	if (counters == NULL)
		return EINVAL;
	if (flags & ~(uint32_t)IBV_READ_COUNTERS_ATTR_PREFER_CACHED)
		return EOPNOTSUPP;
	c = sv_counters_of(counters);
	/* The kernel reads an object only while a flow uses it (Linux 6.1,
	 * UVERBS_METHOD_COUNTERS_READ: "if (!atomic_read(&counters->usecnt))
	 * return -EINVAL"), on every device. */
	if (atomic_load(&c->bound) == 0)
		return EINVAL;
	pthread_mutex_lock(&c->lock);
	for (i = 0; i < c->npoints; i++)
		if (c->points[i].index + 1 > need)
			need = c->points[i].index + 1;
	/* The mlx5 kernel refuses a buffer that cannot hold the highest
	 * attached index. */
	if (ncounters < need || (ncounters > 0 && values == NULL)) {
		pthread_mutex_unlock(&c->lock);
		return EINVAL;
	}
	/* There is no cache: every read is exact. */
	packets = atomic_load_explicit(&c->packets, memory_order_relaxed);
	bytes = atomic_load_explicit(&c->bytes, memory_order_relaxed);
	if (ncounters > 0)
		memset(values, 0, sizeof(*values) * ncounters);
	for (i = 0; i < c->npoints; i++)
		values[c->points[i].index] +=
			c->points[i].desc == IBV_COUNTER_PACKETS ? packets :
								   bytes;
	pthread_mutex_unlock(&c->lock);
	return 0;
}

void
sv_counters_add(struct sv_counters *c, uint32_t bytes)
{
	/* Values only start moving once a flow is bound. */
	atomic_fetch_add_explicit(&c->packets, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_relaxed);
}

int
sv_counters_bind(struct sv_counters *c)
{
	int rc = 0;

	pthread_mutex_lock(&c->lock);
	/* mlx5 provider: a counters object without attach points cannot be
	 * bound (allocate_flow_counters_descriptions -> EINVAL). */
	if (c->npoints == 0)
		rc = EINVAL;
	else
		atomic_fetch_add(&c->bound, 1);
	pthread_mutex_unlock(&c->lock);
	return rc;
}

/* The values stay: mlx5_ib makes the object's hardware counter at the
 * first bind and frees it only with the object (Linux 6.1,
 * mlx5_ib_flow_counters_set_data(), mlx5_ib_destroy_counters()); the last
 * flow to go clears the attach description alone
 * (mlx5_ib_counters_clear_description()), so a flow that binds again
 * counts on from where they were. */
void
sv_counters_unbind(struct sv_counters *c)
{
	atomic_fetch_sub(&c->bound, 1);
}
