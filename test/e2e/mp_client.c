/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * A secondary process for the end-to-end tests: it attaches to the
 * primary's port 0 (--proc-type=secondary, the same --file-prefix and
 * the PMD with -d) and reports, one "key value..." line each, what a
 * secondary may do and what it is refused:
 *
 *   port <id> <name> <driver>
 *   stats <rc> ipackets <n> opackets <n> ibytes <n> obytes <n> imissed <n>
 *         ierrors <n> oerrors <n>
 *   xstat <name> <value>                   (every xstat, rc in "xstats <rc>")
 *   link <status>                          (rte_eth_link_get_nowait)
 *   flow_validate <rc> <rte_errno> <message>
 *   flow_create <NULL|made> <rte_errno> <message>
 *   dev_stop <rc>                          (the primary's port goes on)
 *   promiscuous_disable <rc>
 *   mtu_set <rc>
 *   rx_queue_count <rc>
 *   rx_burst <n>                           (frames a secondary receives)
 *   tx_burst <n>                           (frames a secondary sends)
 *   done
 *
 * Usage: mp_client <EAL arguments>; exit status 0 once "done" is printed.
 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_mbuf.h>

static void
report_flow(const char *what, int rc, const struct rte_flow_error *err)
{
	printf("%s %d %d %s\n", what, rc, rte_errno,
	       err->message != NULL ? err->message : "(none)");
}

int
main(int argc, char **argv)
{
	static const struct rte_flow_attr attr = { .ingress = 1 };
	static const struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	static const struct rte_flow_action_queue q0 = { .index = 0 };
	static const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q0 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_eth_xstat_name *names = NULL;
	struct rte_eth_xstat *xs = NULL;
	struct rte_eth_dev_info info;
	struct rte_eth_stats st;
	struct rte_flow_error err;
	struct rte_eth_link link;
	struct rte_mbuf *pkts[32];
	struct rte_mempool *pool;
	struct rte_flow *flow;
	char name[RTE_ETH_NAME_MAX_LEN];
	const uint16_t port = 0;
	int ret, n, i;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (rte_eal_process_type() != RTE_PROC_SECONDARY ||
	    !rte_eth_dev_is_valid_port(port) ||
	    rte_eth_dev_get_name_by_port(port, name) != 0 ||
	    rte_eth_dev_info_get(port, &info) != 0) {
		fprintf(stderr, "no port %u in a secondary process\n", port);
		rte_eal_cleanup();
		return 1;
	}
	printf("port %u %s %s\n", port, name, info.driver_name);

	memset(&st, 0, sizeof(st));
	ret = rte_eth_stats_get(port, &st);
	printf("stats %d ipackets %" PRIu64 " opackets %" PRIu64
	       " ibytes %" PRIu64 " obytes %" PRIu64 " imissed %" PRIu64
	       " ierrors %" PRIu64 " oerrors %" PRIu64 "\n",
	       ret, st.ipackets, st.opackets, st.ibytes, st.obytes, st.imissed,
	       st.ierrors, st.oerrors);

	n = rte_eth_xstats_get_names(port, NULL, 0);
	if (n > 0) {
		names = calloc(n, sizeof(*names));
		xs = calloc(n, sizeof(*xs));
	}
	if (names != NULL && xs != NULL &&
	    rte_eth_xstats_get_names(port, names, n) == n) {
		ret = rte_eth_xstats_get(port, xs, n);
		printf("xstats %d\n", ret == n ? 0 : ret);
		for (i = 0; ret == n && i < n; i++)
			printf("xstat %s %" PRIu64 "\n", names[xs[i].id].name,
			       xs[i].value);
	} else {
		printf("xstats %d\n", n < 0 ? n : -1);
	}
	free(names);
	free(xs);

	memset(&link, 0, sizeof(link));
	ret = rte_eth_link_get_nowait(port, &link);
	printf("link %s\n", ret != 0	     ? "error" :
			    link.link_status ? "up" :
					       "down");

	memset(&err, 0, sizeof(err));
	rte_errno = 0;
	ret = rte_flow_validate(port, &attr, pattern, actions, &err);
	report_flow("flow_validate", ret, &err);
	memset(&err, 0, sizeof(err));
	rte_errno = 0;
	flow = rte_flow_create(port, &attr, pattern, actions, &err);
	printf("flow_create %s %d %s\n", flow != NULL ? "made" : "NULL",
	       rte_errno, err.message != NULL ? err.message : "(none)");

	printf("dev_stop %d\n", rte_eth_dev_stop(port));
	printf("promiscuous_disable %d\n", rte_eth_promiscuous_disable(port));
	printf("mtu_set %d\n", rte_eth_dev_set_mtu(port, 1400));
	printf("rx_queue_count %d\n", rte_eth_rx_queue_count(port, 0));
	printf("rx_burst %u\n", rte_eth_rx_burst(port, 0, pkts, RTE_DIM(pkts)));
	pool = rte_pktmbuf_pool_create("mp_client", 63, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	n = 0;
	if (pool != NULL && rte_pktmbuf_alloc_bulk(pool, pkts, 1) == 0) {
		char *p = rte_pktmbuf_append(pkts[0], 60);

		if (p != NULL)
			memset(p, 0xff, 60);
		n = rte_eth_tx_burst(port, 0, pkts, 1);
		if (n == 0)
			rte_pktmbuf_free(pkts[0]);
	}
	printf("tx_burst %d\n", n);
	rte_mempool_free(pool);
	printf("done\n");
	fflush(stdout);
	rte_eth_dev_close(port);
	rte_eal_cleanup();
	return 0;
}
