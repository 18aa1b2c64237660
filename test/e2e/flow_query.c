/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * A minimal rte_flow application for the end-to-end tests: what testpmd
 * 22.11 cannot do (its "flow query" never asks for a counter reset). It
 * starts port 0 with one Rx and one Tx queue and takes commands on stdin,
 * one a line, answering each with one line on stdout:
 *
 *   count <ipv4 dst>   ETH / IPV4 dst / END, COUNT / QUEUE 0: "flow <n>"
 *   query <n> [reset]  rte_flow_query COUNT: "hits <h> bytes <b>"
 *   drain              frees what queue 0 received: "rx <frames>"
 *   quit               "bye", then closes the port
 *
 * Errors answer "error <message>". Usage:
 *   flow_query <EAL arguments, with -d <PMD> and --vdev>
 * It prints "ready <port MAC>" once the port runs.
 */

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_mbuf.h>

#define MAX_FLOWS 16

static struct rte_flow *flows[MAX_FLOWS];
static unsigned int n_flows;

static int
port_start(uint16_t port, struct rte_mempool *pool)
{
	struct rte_eth_conf conf;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, 1, 1, &conf) != 0 ||
	    rte_eth_rx_queue_setup(port, 0, 256, 0, NULL, pool) != 0 ||
	    rte_eth_tx_queue_setup(port, 0, 256, 0, NULL) != 0)
		return -1;
	return rte_eth_dev_start(port);
}

static void
cmd_count(uint16_t port, const char *arg)
{
	struct rte_flow_item_ipv4 spec, mask;
	struct rte_flow_action_queue q = { .index = 0 };
	struct rte_flow_action_count cnt = { .id = 0 };
	const struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &spec,
		  .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT, .conf = &cnt },
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;
	struct in_addr a;

	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	if (n_flows == MAX_FLOWS || inet_pton(AF_INET, arg, &a) != 1) {
		printf("error bad address or too many flows\n");
		return;
	}
	spec.hdr.dst_addr = a.s_addr;
	mask.hdr.dst_addr = RTE_BE32(0xffffffff);
	memset(&err, 0, sizeof(err));
	flows[n_flows] = rte_flow_create(port, &attr, pattern, actions, &err);
	if (flows[n_flows] == NULL) {
		printf("error %s\n", err.message ? err.message : "flow create");
		return;
	}
	printf("flow %u\n", n_flows++);
}

static void
cmd_query(uint16_t port, unsigned int n, int reset)
{
	const struct rte_flow_action count[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_query_count qc;
	struct rte_flow_error err;

	if (n >= n_flows) {
		printf("error no flow %u\n", n);
		return;
	}
	memset(&qc, 0, sizeof(qc));
	memset(&err, 0, sizeof(err));
	qc.reset = reset;
	if (rte_flow_query(port, flows[n], count, &qc, &err) != 0) {
		printf("error %s\n", err.message ? err.message : "flow query");
		return;
	}
	if (!qc.hits_set || !qc.bytes_set) {
		printf("error hits or bytes not set\n");
		return;
	}
	printf("hits %" PRIu64 " bytes %" PRIu64 "\n", qc.hits, qc.bytes);
}

static void
cmd_drain(uint16_t port)
{
	struct rte_mbuf *m[32];
	unsigned int total = 0, round;
	uint16_t k;

	for (round = 0; round < 64; round++) {
		k = rte_eth_rx_burst(port, 0, m, RTE_DIM(m));
		rte_pktmbuf_free_bulk(m, k);
		total += k;
	}
	printf("rx %u\n", total);
}

int
main(int argc, char **argv)
{
	struct rte_ether_addr mac;
	struct rte_mempool *pool;
	char line[256], word[16], arg[64];
	uint16_t port = 0;
	int ret, n;

	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		fprintf(stderr, "EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	pool = rte_pktmbuf_pool_create("flow_query", 2047, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL || rte_eth_dev_count_avail() < 1 ||
	    port_start(port, pool) != 0) {
		fprintf(stderr, "cannot start port 0\n");
		return 1;
	}
	rte_eth_macaddr_get(port, &mac);
	printf("ready " RTE_ETHER_ADDR_PRT_FMT "\n",
	       RTE_ETHER_ADDR_BYTES(&mac));
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL) {
		arg[0] = '\0';
		n = sscanf(line, "%15s %63s", word, arg);
		if (n < 1)
			continue;
		if (strcmp(word, "count") == 0 && n == 2) {
			cmd_count(port, arg);
		} else if (strcmp(word, "query") == 0 && n == 2) {
			cmd_query(port, (unsigned int)strtoul(arg, NULL, 10),
				  strstr(line, "reset") != NULL);
		} else if (strcmp(word, "drain") == 0) {
			cmd_drain(port);
		} else if (strcmp(word, "quit") == 0) {
			printf("bye\n");
			fflush(stdout);
			break;
		} else {
			printf("error unknown command\n");
		}
		fflush(stdout);
	}
	rte_flow_flush(port, NULL);
	rte_eth_dev_stop(port);
	rte_eth_dev_close(port);
	rte_mempool_free(pool);
	rte_eal_cleanup();
	return 0;
}
