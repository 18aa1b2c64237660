/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * vsteer-flowmem: the resident memory an unmodified DPDK application's
 * rte_flow rules hold, and the CPU time their creation and deletion
 * took, whatever the driver, for benchmarks such as
 * dpdk-test-flow-perf. Preloaded (LD_PRELOAD), it stands in front of
 * rte_flow_create() and rte_flow_destroy() and takes four marks (the
 * process's resident set from /proc/self/statm, CLOCK_MONOTONIC and the
 * calling thread's CPU time):
 *
 *   start     before the first rule is created;
 *   created   after VSTEER_FLOWMEM_RULES rules were created, or without
 *             it, before the first rule is destroyed (all the rules an
 *             insert-then-delete benchmark makes are live then);
 *   deleting  before the first rule is destroyed;
 *   emptied   after the last live rule was destroyed.
 *
 * At exit it prints on stderr:
 *
 *   vsteer-flowmem: 100000 rules: resident 159500 kB before, 192656 kB
 *   with them (340 bytes/rule), 160540 kB after they were destroyed
 *   vsteer-flowmem: create 0.062 s, 0.061 s CPU (1639344 rules per CPU
 *   second); destroy 0.021 s, 0.020 s CPU (5000000 rules per CPU second)
 *   vsteer-flowmem: CLOCK_MONOTONIC s: start 8515.210282, created
 *   8515.272885, deleting 8515.290001, emptied 8515.310864
 *
 * (each on one line). The memory is everything the process touched for
 * the first time while creating the rules: the driver's and the device's
 * state, and the application's own (dpdk-test-flow-perf writes an 8-byte
 * handle per rule into an array it allocated before). The rates per CPU
 * second leave out the time other processes had the CPU, which a shared
 * machine's wall-clock rates do not; they are given when one thread took
 * the marks of each phase. The times let a profile taken with "perf
 * record -k CLOCK_MONOTONIC" be cut to a phase ("perf report --time
 * <start>,<created>"). What it adds to each call is a counter; the marks
 * cost a file read each, four times per run.
 */

#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <rte_flow.h>

typedef struct rte_flow *(create_fn)(uint16_t, const struct rte_flow_attr *,
				     const struct rte_flow_item[],
				     const struct rte_flow_action[],
				     struct rte_flow_error *);
typedef int(destroy_fn)(uint16_t, struct rte_flow *, struct rte_flow_error *);

struct flowmem_mark {
	int taken;
	uint64_t rss; /* bytes */
	double mono;  /* s */
	double cpu;   /* s of the thread */
	pthread_t thread;
};

enum {
	M_START,
	M_CREATED,
	M_DELETING,
	M_EMPTIED,
	M_N
};

static create_fn *real_create;
static destroy_fn *real_destroy;
static uint64_t target;	 /* VSTEER_FLOWMEM_RULES, 0: at the first destroy */
static uint64_t live;	 /* rules created and not destroyed */
static uint64_t counted; /* live rules at the "created" mark */
static struct flowmem_mark marks[M_N];

static double
flowmem_clock(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
flowmem_mark(int m)
{
	struct flowmem_mark *k = &marks[m];
	unsigned long size, resident = 0;
	FILE *f;

	k->taken = 1;
	k->thread = pthread_self();
	k->mono = flowmem_clock(CLOCK_MONOTONIC);
	k->cpu = flowmem_clock(CLOCK_THREAD_CPUTIME_ID);
	f = fopen("/proc/self/statm", "r");
	if (f != NULL) {
		if (fscanf(f, "%lu %lu", &size, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	k->rss = (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

static void
flowmem_resolve(void)
{
	const char *n;

	if (real_create != NULL)
		return;
	real_create = (create_fn *)dlsym(RTLD_NEXT, "rte_flow_create");
	real_destroy = (destroy_fn *)dlsym(RTLD_NEXT, "rte_flow_destroy");
	n = getenv("VSTEER_FLOWMEM_RULES");
	target = n != NULL ? strtoull(n, NULL, 0) : 0;
	if (real_create == NULL || real_destroy == NULL) {
		fprintf(stderr, "vsteer-flowmem: rte_flow_create or "
				"rte_flow_destroy not found\n");
		abort();
	}
}

struct rte_flow *
rte_flow_create(uint16_t port_id, const struct rte_flow_attr *attr,
		const struct rte_flow_item pattern[],
		const struct rte_flow_action actions[],
		struct rte_flow_error *error)
{
	struct rte_flow *flow;

	flowmem_resolve();
	if (!marks[M_START].taken)
		flowmem_mark(M_START);
	flow = real_create(port_id, attr, pattern, actions, error);
	if (flow == NULL)
		return NULL;
	live++;
	if (target != 0 && live == target && !marks[M_CREATED].taken) {
		flowmem_mark(M_CREATED);
		counted = live;
	}
	return flow;
}

int
rte_flow_destroy(uint16_t port_id, struct rte_flow *flow,
		 struct rte_flow_error *error)
{
	int ret;

	flowmem_resolve();
	if (live > 0 && !marks[M_DELETING].taken) {
		if (!marks[M_CREATED].taken) {
			flowmem_mark(M_CREATED);
			counted = live;
		}
		flowmem_mark(M_DELETING);
	}
	ret = real_destroy(port_id, flow, error);
	if (ret == 0 && live > 0 && --live == 0 && marks[M_DELETING].taken &&
	    !marks[M_EMPTIED].taken)
		flowmem_mark(M_EMPTIED);
	return ret;
}

/* Seconds and CPU seconds from mark a to mark b, 0 CPU when two threads
 * took them. */
static void
flowmem_phase(const char *what, int a, int b, uint64_t rules)
{
	const struct flowmem_mark *x = &marks[a], *y = &marks[b];

	fprintf(stderr, "%s %.3f s", what, y->mono - x->mono);
	if (pthread_equal(x->thread, y->thread) && y->cpu > x->cpu)
		fprintf(stderr, ", %.3f s CPU (%.0f rules per CPU second)",
			y->cpu - x->cpu, (double)rules / (y->cpu - x->cpu));
}

static void __attribute__((destructor)) flowmem_report(void)
{
	const struct flowmem_mark *m = marks;

	if (!m[M_CREATED].taken || counted == 0)
		return;
	fprintf(stderr,
		"vsteer-flowmem: %" PRIu64 " rules: resident %" PRIu64
		" kB before, %" PRIu64 " kB with them (%.0f bytes/rule)",
		counted, m[M_START].rss >> 10, m[M_CREATED].rss >> 10,
		((double)m[M_CREATED].rss - (double)m[M_START].rss) /
			(double)counted);
	if (m[M_EMPTIED].taken)
		fprintf(stderr, ", %" PRIu64 " kB after they were destroyed",
			m[M_EMPTIED].rss >> 10);
	fprintf(stderr, "\nvsteer-flowmem: ");
	flowmem_phase("create", M_START, M_CREATED, counted);
	if (m[M_EMPTIED].taken) {
		fprintf(stderr, "; ");
		flowmem_phase("destroy", M_DELETING, M_EMPTIED, counted);
	}
	fprintf(stderr,
		"\nvsteer-flowmem: CLOCK_MONOTONIC s: start %.6f, created "
		"%.6f",
		m[M_START].mono, m[M_CREATED].mono);
	if (m[M_EMPTIED].taken)
		fprintf(stderr, ", deleting %.6f, emptied %.6f",
			m[M_DELETING].mono, m[M_EMPTIED].mono);
	fprintf(stderr, "\n");
}
