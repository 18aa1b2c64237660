/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * vsteer-bench: rules and traffic benchmark of net_vsteer on the softverbs
 * in-memory link. Two ports are the two ends of one link: port 1 sends,
 * port 0 receives and holds the rules. Everything runs on the main lcore,
 * so that the cycles counted are the driver's and the device's only.
 * Sections, in the order they run:
 *
 *  flows     rte_flow_create / rte_flow_destroy rate for N rules, all of
 *            one mask (IPv4 dst /32 -> queue) or spread over many masks,
 *            and the resident memory they hold; then the same rules as
 *            verbs rules straight into softverbs (a device of its own):
 *            its share of the time, and its bytes per rule.
 *  classify  Rx cycles per packet with 0..N rules installed, all of one
 *            mask or spread over M masks, each frame matching one rule;
 *            the ratio is against the 1-rule run of the same invocation.
 *  datapath  Rx and Tx cycles per packet with no user rule (the driver's
 *            default flows only), for a few frame sizes; Rx also with
 *            packet type parsing turned off (rte_eth_dev_set_ptypes()
 *            with RTE_PTYPE_UNKNOWN), which is its cost, and with the
 *            CHECKSUM Rx offload, whose verdicts the driver computes in
 *            software where the device gives none (on a ConnectX work
 *            queue, never): the frames carry UDP checksums for it.
 *
 * Only the burst calls are timed (rte_rdtsc around rte_eth_rx_burst and
 * rte_eth_tx_burst): frame building and mbuf freeing are left out. Tx
 * sends reference-counted template frames, so nothing is rebuilt.
 * Each traffic figure is the best (fewest cycles) of the repeats, with the
 * median alongside: other processes on the machine only ever add cycles.
 * Flow rates are medians.
 *
 * Rules go to rte_flow priority i / RULES_PER_PRIO: one priority up to
 * 25000 rules (every default run), 4 for 100 000. mlx5's kernel holds
 * 65536 entries per priority (6 groups of 9362 for the first six masks,
 * then one entry per group: fewer rules when there are more masks), so
 * 100 000 rules fit with up to 8 masks; 32 masks fit up to 11 520 rules
 * per priority. A frame to a rule at priority p looks into the
 * levels before it too: classify runs of more than 25000 rules cost more
 * per frame for that.
 */

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_flow.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_udp.h>

#include "softverbs.h"

#define BURST 32u
#define ROUND 512u /* frames in flight per tx/rx round */
#define NB_RXD 1024
#define NB_TXD 1024
#define MAX_LIST 16
#define MAX_RULES 100000
#define MAX_MASKS 32 /* IPv4 src prefix lengths 0..31 */
#define MAX_REPEATS 15
#define IDLE_POLLS 64 /* empty rx polls before a round gives up */
#define SRC_IP RTE_IPV4(192, 0, 2, 1)
#define DST_BASE RTE_IPV4(10, 0, 0, 0)
#define RULES_PER_PRIO 25000 /* rte_flow priorities 0 to 3: MAX_RULES */

struct bench_opts {
	unsigned int dur_ms;
	unsigned int repeats;
	unsigned int size;
	unsigned int nqueues;
	const char *engine;
	unsigned int rules[MAX_LIST];
	unsigned int nrules;
	unsigned int masks[MAX_LIST];
	unsigned int nmasks;
	unsigned int flows[MAX_LIST];
	unsigned int nflows;
	unsigned int flow_masks; /* "many masks" of the flows section */
	bool flow_reverse;	 /* flows: destroyed last first */
	unsigned int hot;	 /* classify: frames hit this many rules */
	unsigned int lcore;
	bool do_flows, do_classify, do_datapath;
};

static struct bench_opts opt = {
	.dur_ms = 200,
	.repeats = 3,
	.size = 64,
	.nqueues = 1,
	.engine = "auto",
	.rules = { 0, 1, 100, 1000, 10000 },
	.nrules = 5,
	.masks = { 1, 8, 32 },
	.nmasks = 3,
	.flows = { 1000, 10000 },
	.nflows = 2,
	.flow_masks = 32,
};

static uint16_t rx_port, tx_port;
static struct rte_mempool *rx_pool, *tpl_pool;
static struct rte_ether_addr rx_mac, tx_mac;
static struct rte_flow **flows;
static struct rte_mbuf **tpl; /* template frames */
static unsigned int ntpl;
static double tsc_mhz;

static void
usage(const char *prog)
{
	printf("usage: %s [options] [-- EAL options]\n"
	       "  -t LIST   sections: flows,classify,datapath (default: all)\n"
	       "  -d MS     duration of one traffic window (default %u)\n"
	       "  -r N      repeats: best and median of traffic windows,\n"
	       "            median of flow rates (default %u)\n"
	       "  -s BYTES  classify frame size (default %u)\n"
	       "  -n LIST   classify rule counts (default 0,1,100,1000,10000)\n"
	       "  -m LIST   classify distinct mask counts, 1..%u (default 1,8,32)\n"
	       "  -w N      classify traffic to the first N rules only\n"
	       "            (default: to all)\n"
	       "  -f LIST   flows rule counts (default 1000,10000)\n"
	       "  -M N      flows: masks of the many-mask run (default %u)\n"
	       "  -R        flows: destroy the rules last first (default: in\n"
	       "            creation order)\n"
	       "  -q N      Rx queues of the receiving port (default %u)\n"
	       "  -e NAME   flow_engine devarg: auto, verbs, dv (default auto)\n"
	       "  -c CPU    the one lcore (EAL -l) to run on (default 0)\n",
	       prog, opt.dur_ms, opt.repeats, opt.size, MAX_MASKS,
	       opt.flow_masks, opt.nqueues);
}

static int
parse_uint(const char *s, unsigned int lo, unsigned int hi, unsigned int *v)
{
	char *end;
	unsigned long x;

	errno = 0;
	x = strtoul(s, &end, 10);
	if (errno != 0 || end == s || *end != '\0' || x < lo || x > hi)
		return -EINVAL;
	*v = (unsigned int)x;
	return 0;
}

static int
parse_list(const char *s, unsigned int lo, unsigned int hi, unsigned int *out,
	   unsigned int *n)
{
	char buf[256], *tok, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	*n = 0;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (*n == MAX_LIST || parse_uint(tok, lo, hi, &out[*n]) != 0)
			return -EINVAL;
		(*n)++;
	}
	return *n > 0 ? 0 : -EINVAL;
}

static int
parse_sections(const char *s)
{
	char buf[64], *tok, *save = NULL;

	if (strlen(s) >= sizeof(buf))
		return -EINVAL;
	strcpy(buf, s);
	opt.do_flows = opt.do_classify = opt.do_datapath = false;
	for (tok = strtok_r(buf, ",", &save); tok != NULL;
	     tok = strtok_r(NULL, ",", &save)) {
		if (strcmp(tok, "flows") == 0)
			opt.do_flows = true;
		else if (strcmp(tok, "classify") == 0)
			opt.do_classify = true;
		else if (strcmp(tok, "datapath") == 0)
			opt.do_datapath = true;
		else
			return -EINVAL;
	}
	return 0;
}

static int
parse_args(int argc, char **argv)
{
	int c;

	opt.do_flows = opt.do_classify = opt.do_datapath = true;
	while ((c = getopt(argc, argv, "d:r:s:n:m:f:M:Rw:q:e:c:t:h")) != -1) {
		int ret = 0;

		switch (c) {
		case 'd':
			ret = parse_uint(optarg, 10, 10000, &opt.dur_ms);
			break;
		case 'r':
			ret = parse_uint(optarg, 1, MAX_REPEATS, &opt.repeats);
			break;
		case 's':
			ret = parse_uint(optarg, 60, 1514, &opt.size);
			break;
		case 'n':
			ret = parse_list(optarg, 0, MAX_RULES, opt.rules,
					 &opt.nrules);
			break;
		case 'm':
			ret = parse_list(optarg, 1, MAX_MASKS, opt.masks,
					 &opt.nmasks);
			break;
		case 'f':
			ret = parse_list(optarg, 1, MAX_RULES, opt.flows,
					 &opt.nflows);
			break;
		case 'M':
			ret = parse_uint(optarg, 1, MAX_MASKS, &opt.flow_masks);
			break;
		case 'R':
			opt.flow_reverse = true;
			break;
		case 'w':
			ret = parse_uint(optarg, 1, MAX_RULES, &opt.hot);
			break;
		case 'q':
			ret = parse_uint(optarg, 1, 64, &opt.nqueues);
			break;
		case 'e':
			if (strcmp(optarg, "auto") != 0 &&
			    strcmp(optarg, "verbs") != 0 &&
			    strcmp(optarg, "dv") != 0)
				ret = -EINVAL;
			opt.engine = optarg;
			break;
		case 'c':
			ret = parse_uint(optarg, 0, RTE_MAX_LCORE - 1,
					 &opt.lcore);
			break;
		case 't':
			ret = parse_sections(optarg);
			break;
		case 'h':
			usage(argv[0]);
			exit(0);
		default:
			usage(argv[0]);
			return -EINVAL;
		}
		if (ret != 0) {
			fprintf(stderr, "vsteer-bench: bad value for -%c: %s\n",
				c, optarg);
			return ret;
		}
	}
	return 0;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, unsigned int n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Rx offloads port_setup() asks for; templates with UDP checksums. */
static uint64_t rx_offloads;
static bool tpl_udp_csum;

static int
port_setup(uint16_t port, uint16_t nrxq)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	uint16_t q, nb_rxd = NB_RXD, nb_txd = NB_TXD;
	int ret;

	memset(&conf, 0, sizeof(conf));
	conf.rxmode.offloads = rx_offloads;
	ret = rte_eth_dev_info_get(port, &info);
	if (ret != 0)
		return ret;
	if (nrxq > 1) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf = RTE_ETH_RSS_IP &
						   info.flow_type_rss_offloads;
	}
	ret = rte_eth_dev_configure(port, nrxq, 1, &conf);
	if (ret != 0)
		return ret;
	ret = rte_eth_dev_adjust_nb_rx_tx_desc(port, &nb_rxd, &nb_txd);
	if (ret != 0)
		return ret;
	for (q = 0; q < nrxq; q++) {
		ret = rte_eth_rx_queue_setup(port, q, nb_rxd, 0, NULL, rx_pool);
		if (ret != 0)
			return ret;
	}
	ret = rte_eth_tx_queue_setup(port, 0, nb_txd, 0, NULL);
	if (ret != 0)
		return ret;
	ret = rte_eth_dev_start(port);
	if (ret != 0)
		return ret;
	/* Only frames for the port's own address: the default flows are the
	 * unicast MAC, broadcast and multicast entries. */
	return rte_eth_promiscuous_disable(port);
}

static uint32_t
rule_dst(unsigned int i)
{
	return DST_BASE + i + 1;
}

/* A UDP frame of size bytes from the tx port to the rx port's MAC. */
static struct rte_mbuf *
make_frame(uint32_t dst, unsigned int size)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(tpl_pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)size);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0, size);
	eth = (struct rte_ether_hdr *)p;
	eth->dst_addr = rx_mac;
	eth->src_addr = tx_mac;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(size - sizeof(*eth)));
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_UDP;
	ip->src_addr = rte_cpu_to_be_32(SRC_IP);
	ip->dst_addr = rte_cpu_to_be_32(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	udp = (struct rte_udp_hdr *)(ip + 1);
	udp->src_port = rte_cpu_to_be_16(1234);
	udp->dst_port = rte_cpu_to_be_16(5678);
	udp->dgram_len =
		rte_cpu_to_be_16((uint16_t)(size - sizeof(*eth) - sizeof(*ip)));
	if (tpl_udp_csum)
		udp->dgram_cksum = rte_ipv4_udptcp_cksum(ip, udp);
	return m;
}

static void
free_templates(void)
{
	unsigned int i;

	for (i = 0; i < ntpl; i++)
		rte_pktmbuf_free(tpl[i]);
	ntpl = 0;
}

/* Frames to the destinations of rules 0..n-1 (rule 0's alone when n is 0). */
static int
make_templates(unsigned int n, unsigned int size)
{
	unsigned int i;

	free_templates();
	if (n == 0)
		n = 1;
	for (i = 0; i < n; i++) {
		tpl[i] = make_frame(rule_dst(i), size);
		if (tpl[i] == NULL) {
			ntpl = i;
			return -ENOMEM;
		}
	}
	ntpl = n;
	return 0;
}

/*
 * Rule i: IPv4 dst rule_dst(i)/32 and, for mask class k = i % nmasks > 0,
 * IPv4 src SRC_IP/k too: nmasks distinct masks, every rule a distinct
 * match, every template frame matching exactly its rule. Action: queue
 * i % nqueues. Priority i / RULES_PER_PRIO.
 */
static struct rte_flow *
rule_create(uint16_t port, unsigned int i, unsigned int nmasks,
	    struct rte_flow_error *err)
{
	struct rte_flow_attr attr = { .ingress = 1,
				      .priority = i / RULES_PER_PRIO };
	struct rte_flow_item_ipv4 spec, mask;
	struct rte_flow_action_queue queue = {
		.index = (uint16_t)(i % opt.nqueues)
	};
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4,
		  .spec = &spec,
		  .mask = &mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	unsigned int k = i % nmasks;

	memset(&spec, 0, sizeof(spec));
	memset(&mask, 0, sizeof(mask));
	spec.hdr.dst_addr = rte_cpu_to_be_32(rule_dst(i));
	mask.hdr.dst_addr = RTE_BE32(0xffffffff);
	if (k > 0) {
		uint32_t m = ~0u << (32 - k);

		spec.hdr.src_addr = rte_cpu_to_be_32(SRC_IP & m);
		mask.hdr.src_addr = rte_cpu_to_be_32(m);
	}
	return rte_flow_create(port, &attr, pattern, actions, err);
}

/* Create rules 0..n-1 spread over nmasks masks; cycles spent in *cyc. */
static int
rules_install(unsigned int n, unsigned int nmasks, uint64_t *cyc)
{
	struct rte_flow_error err;
	uint64_t t0 = rte_rdtsc();
	unsigned int i;

	for (i = 0; i < n; i++) {
		flows[i] = rule_create(rx_port, i, nmasks, &err);
		if (flows[i] == NULL) {
			fprintf(stderr,
				"vsteer-bench: rule %u of %u (%u masks): %s (%s)\n",
				i, n, nmasks,
				err.message ? err.message : "no message",
				rte_strerror(rte_errno));
			while (i-- > 0)
				rte_flow_destroy(rx_port, flows[i], &err);
			return -1;
		}
	}
	if (cyc != NULL)
		*cyc = rte_rdtsc() - t0;
	return 0;
}

/* Destroy rules 0..n-1 in creation order, or last first (-R); cycles
 * spent in *cyc. */
static int
rules_remove(unsigned int n, uint64_t *cyc)
{
	struct rte_flow_error err;
	uint64_t t0 = rte_rdtsc();
	unsigned int k;
	int ret = 0;

	for (k = 0; k < n; k++) {
		unsigned int i = opt.flow_reverse ? n - 1 - k : k;

		if (rte_flow_destroy(rx_port, flows[i], &err) != 0) {
			fprintf(stderr, "vsteer-bench: destroy rule %u: %s\n",
				i, err.message ? err.message : "no message");
			ret = -1;
		}
		flows[i] = NULL;
	}
	if (cyc != NULL)
		*cyc = rte_rdtsc() - t0;
	return ret;
}

struct traffic {
	uint64_t sent, received, tx_cyc, rx_cyc;
	uint64_t rx_timed; /* frames whose rx cycles are in rx_cyc */
};

/*
 * classify, datapath: time each rx burst and leave out those during which the
 * thread lost the CPU (a burst of 32 frames takes tens of microseconds;
 * one that took over SKIP_US had the CPU taken from it). On a machine
 * shared with other work this keeps the figures the device's rather
 * than the scheduler's; the bursts left out are counted and printed.
 */
#define SKIP_US 250
static bool skip_preempted;
static uint64_t bursts_timed, bursts_skipped;

/*
 * Rounds of ROUND frames for dur_ms: tx bursts of the templates in turn
 * on the tx port, then rx bursts on every queue of the rx port until the
 * round is back (or IDLE_POLLS empty polls in a row).
 */
static void
traffic_run(unsigned int dur_ms, struct traffic *t)
{
	struct rte_mbuf *burst[BURST], *got[ROUND];
	uint64_t end = rte_get_tsc_cycles() + rte_get_tsc_hz() * dur_ms / 1000;
	unsigned int cursor = 0;

	memset(t, 0, sizeof(*t));
	while (rte_get_tsc_cycles() < end) {
		unsigned int sent = 0, n = 0, idle = 0, q = 0, j;
		uint64_t t0;

		while (sent < ROUND) {
			uint16_t k;

			for (j = 0; j < BURST; j++) {
				burst[j] = tpl[cursor];
				rte_mbuf_refcnt_update(burst[j], 1);
				if (++cursor == ntpl)
					cursor = 0;
			}
			t0 = rte_rdtsc();
			k = rte_eth_tx_burst(tx_port, 0, burst, BURST);
			t->tx_cyc += rte_rdtsc() - t0;
			for (j = k; j < BURST; j++)
				rte_mbuf_refcnt_update(burst[j], -1);
			sent += k;
			if (k < BURST)
				break;
		}
		t0 = rte_rdtsc();
		while (n < sent && idle < IDLE_POLLS) {
			uint64_t t1 = skip_preempted ? rte_rdtsc() : 0;
			uint16_t k =
				rte_eth_rx_burst(rx_port, (uint16_t)q, got + n,
						 RTE_MIN(BURST, ROUND - n));

			if (skip_preempted) {
				uint64_t dt = rte_rdtsc() - t1;

				bursts_timed++;
				if (dt > rte_get_tsc_hz() / 1000000 * SKIP_US) {
					bursts_skipped++;
				} else {
					t->rx_cyc += dt;
					t->rx_timed += k;
				}
			}
			n += k;
			idle = k ? 0 : idle + 1;
			if (++q == opt.nqueues)
				q = 0;
		}
		if (!skip_preempted) {
			t->rx_cyc += rte_rdtsc() - t0;
			t->rx_timed += n;
		}
		rte_pktmbuf_free_bulk(got, n);
		t->sent += sent;
		t->received += n;
	}
}

/* Drop whatever is still queued on the rx port. */
static void
drain(void)
{
	struct rte_mbuf *m[BURST];
	unsigned int round, q;

	for (round = 0; round < IDLE_POLLS; round++)
		for (q = 0; q < opt.nqueues; q++)
			rte_pktmbuf_free_bulk(m, rte_eth_rx_burst(rx_port,
								  (uint16_t)q,
								  m, BURST));
}

struct rx_result {
	double rx_cpp, tx_cpp; /* cycles per packet, best window */
	double rx_med, tx_med; /* cycles per packet, median window */
	uint64_t lost;	       /* over all repeats */
};

static void
traffic_measure(struct rx_result *r)
{
	double rx[MAX_REPEATS], tx[MAX_REPEATS];
	unsigned int i;

	r->lost = 0;
	traffic_run(opt.dur_ms / 4 + 1, &(struct traffic){ 0 }); /* warm-up */
	drain();
	for (i = 0; i < opt.repeats; i++) {
		struct traffic t;

		traffic_run(opt.dur_ms, &t);
		rx[i] = t.rx_timed ? (double)t.rx_cyc / t.rx_timed : 0;
		tx[i] = t.sent ? (double)t.tx_cyc / t.sent : 0;
		r->lost += t.sent - t.received;
		drain();
	}
	/* median() sorts: the best is first. */
	r->rx_med = median(rx, opt.repeats);
	r->tx_med = median(tx, opt.repeats);
	r->rx_cpp = rx[0];
	r->tx_cpp = tx[0];
}

static double
mpps(double cpp)
{
	return cpp > 0 ? tsc_mhz / cpp : 0;
}

/* Resident memory of the process, in bytes (0 if unknown). */
static uint64_t
rss_bytes(void)
{
	unsigned long size, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &resident) != 2)
		resident = 0;
	fclose(f);
	return (uint64_t)resident * (uint64_t)sysconf(_SC_PAGESIZE);
}

/*
 * softverbs alone: a device of its own (mlx5 profile, one end of an
 * in-memory link) with one hash QP, and the verbs rules the driver makes
 * of the rte_flow rules above (ETH with nothing matched, IPV4 dst /32
 * [+ src /k], verbs priority 1, 4, 7 or 10), created with ibv_create_flow()
 * and destroyed with ibv_destroy_flow(): the device's share of a rule.
 */
struct svb {
	char name[64];
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_wq *wq;
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *qp;
	struct ibv_flow **fl;
};

/* The attribute and its specs, back to back as ibv_create_flow(3) wants. */
struct svb_rule {
	union {
		struct ibv_flow_attr attr;
		uint8_t b[sizeof(struct ibv_flow_attr) +
			  sizeof(struct ibv_flow_spec_eth) +
			  sizeof(struct ibv_flow_spec_ipv4)];
	} u;
};

static void
svb_down(struct svb *b)
{
	if (b->qp != NULL)
		sv_destroy_qp(b->qp);
	if (b->ind != NULL)
		ibv_destroy_rwq_ind_table(b->ind);
	if (b->wq != NULL)
		ibv_destroy_wq(b->wq);
	if (b->cq != NULL)
		sv_destroy_cq(b->cq);
	if (b->pd != NULL)
		sv_dealloc_pd(b->pd);
	if (b->ctx != NULL)
		sv_close_device(b->ctx);
	if (b->name[0] != '\0')
		softverbs_device_remove(b->name);
	free(b->fl);
	memset(b, 0, sizeof(*b));
}

static int
svb_up(struct svb *b, unsigned int maxn)
{
	static uint8_t key[40] = { 0x2c, 0xc6, 0x81, 0xd1, 0x5b, 0xdb };
	struct sv_device_opts o = { .profile = SV_PROFILE_MLX5 };
	struct ibv_device **list;
	struct ibv_wq_init_attr wa = { .wq_type = IBV_WQT_RQ,
				       .max_wr = 16,
				       .max_sge = 1 };
	struct ibv_rwq_ind_table_init_attr ia = { .log_ind_tbl_size = 0 };
	struct ibv_qp_init_attr_ex qa = {
		.qp_type = IBV_QPT_RAW_PACKET,
		.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_RX_HASH |
			     IBV_QP_INIT_ATTR_IND_TABLE,
		.rx_hash_conf = { .rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ,
				  .rx_hash_key_len = sizeof(key),
				  .rx_hash_key = key },
	};
	char link[64];
	int n, i;

	memset(b, 0, sizeof(*b));
	snprintf(link, sizeof(link), "mem:vsteer-bench-sv-%d", (int)getpid());
	if (softverbs_device_add(link, &o, b->name, sizeof(b->name)) != 0)
		goto fail;
	list = sv_get_device_list(&n);
	for (i = 0; list != NULL && i < n; i++)
		if (strcmp(sv_get_device_name(list[i]), b->name) == 0)
			b->ctx = sv_open_device(list[i]);
	sv_free_device_list(list);
	if (b->ctx == NULL)
		goto fail;
	b->pd = sv_alloc_pd(b->ctx);
	b->cq = b->pd ? sv_create_cq(b->ctx, 16, NULL, NULL, 0) : NULL;
	if (b->cq == NULL)
		goto fail;
	wa.pd = b->pd;
	wa.cq = b->cq;
	b->wq = ibv_create_wq(b->ctx, &wa);
	if (b->wq == NULL)
		goto fail;
	ia.ind_tbl = &b->wq;
	b->ind = ibv_create_rwq_ind_table(b->ctx, &ia);
	if (b->ind == NULL)
		goto fail;
	qa.pd = b->pd;
	qa.rwq_ind_tbl = b->ind;
	b->qp = ibv_create_qp_ex(b->ctx, &qa);
	b->fl = calloc(maxn, sizeof(*b->fl));
	if (b->qp == NULL || b->fl == NULL)
		goto fail;
	return 0;
fail:
	fprintf(stderr, "vsteer-bench: softverbs device set-up failed (%s)\n",
		strerror(errno));
	svb_down(b);
	return -1;
}

static void
svb_rule(struct svb_rule *r, unsigned int i, unsigned int nmasks)
{
	struct ibv_flow_spec_eth eth;
	struct ibv_flow_spec_ipv4 ip;
	unsigned int k = i % nmasks;

	memset(r, 0, sizeof(*r));
	memset(&eth, 0, sizeof(eth));
	memset(&ip, 0, sizeof(ip));
	r->u.attr.type = IBV_FLOW_ATTR_NORMAL;
	r->u.attr.size = sizeof(r->u.b);
	/* The driver's: 3 x rte_flow priority + 1 (an L3 rule). */
	r->u.attr.priority = (uint16_t)(1 + 3 * (i / RULES_PER_PRIO));
	r->u.attr.num_of_specs = 2;
	r->u.attr.port = 1;
	eth.type = IBV_FLOW_SPEC_ETH;
	eth.size = sizeof(eth);
	ip.type = IBV_FLOW_SPEC_IPV4;
	ip.size = sizeof(ip);
	ip.val.dst_ip = rte_cpu_to_be_32(rule_dst(i));
	ip.mask.dst_ip = RTE_BE32(0xffffffff);
	if (k > 0) {
		uint32_t m = ~0u << (32 - k);

		ip.val.src_ip = rte_cpu_to_be_32(SRC_IP & m);
		ip.mask.src_ip = rte_cpu_to_be_32(m);
	}
	memcpy(r->u.b + sizeof(r->u.attr), &eth, sizeof(eth));
	memcpy(r->u.b + sizeof(r->u.attr) + sizeof(eth), &ip, sizeof(ip));
}

/* Bytes softverbs' rule tables hold on the device of b. */
static uint64_t
svb_table_bytes(const struct svb *b)
{
	struct sv_rule_mem m;

	return softverbs_port_rule_mem(b->ctx, 1, &m) == 0 ? m.bytes : 0;
}

/* CPU time of the calling thread, in ns: unlike the TSC, it leaves out
 * the time other processes had the CPU. */
static double
thread_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* Create then destroy n verbs rules: cycles of each phase, CPU time of
 * both in *cpu_ns; with mem, the growth of resident memory and of
 * softverbs' own count of bytes while the n rules exist. */
static int
svb_pass(struct svb *b, unsigned int n, unsigned int nmasks, uint64_t *c_cyc,
	 uint64_t *d_cyc, double *cpu_ns, uint64_t mem[2])
{
	struct svb_rule r;
	uint64_t t0, rss0 = rss_bytes(), tb0 = svb_table_bytes(b);
	double c0 = thread_ns(), c1;
	unsigned int i;

	t0 = rte_rdtsc();
	for (i = 0; i < n; i++) {
		svb_rule(&r, i, nmasks);
		b->fl[i] = ibv_create_flow(b->qp, &r.u.attr);
		if (b->fl[i] == NULL) {
			fprintf(stderr, "vsteer-bench: verbs rule %u: %s\n", i,
				strerror(errno));
			while (i-- > 0)
				ibv_destroy_flow(b->fl[i]);
			return -1;
		}
	}
	*c_cyc = rte_rdtsc() - t0;
	c1 = thread_ns();
	if (mem != NULL) {
		mem[0] = rss_bytes() - rss0;
		mem[1] = svb_table_bytes(b) - tb0;
	}
	c0 -= thread_ns() - c1; /* the memory reading is not the rules' */
	t0 = rte_rdtsc();
	for (i = 0; i < n; i++)
		ibv_destroy_flow(b->fl[opt.flow_reverse ? n - 1 - i : i]);
	*d_cyc = rte_rdtsc() - t0;
	*cpu_ns = thread_ns() - c0;
	return 0;
}

/* The softverbs rows of the flows section. */
static int
section_flows_softverbs(unsigned int maxn)
{
	uint64_t c_cyc, d_cyc, mem[2];
	struct svb b;
	unsigned int i, r, v, nm = RTE_MIN(opt.flow_masks, maxn);
	double cpu;

	if (svb_up(&b, maxn) != 0)
		return -1;
	printf("softverbs alone: ibv_create_flow / ibv_destroy_flow of the "
	       "verbs rules above, on a device of its own\n");
	printf("%8s %6s %14s %14s %14s %10s\n", "rules", "masks", "create/s",
	       "destroy/s", "create+del ns", "cpu ns");
	if (svb_pass(&b, maxn, 1, &c_cyc, &d_cyc, &cpu, mem) != 0)
		goto fail;
	printf("%8u %6u %14.0f %14.0f %14.0f %10.0f  (first pass, cold "
	       "memory)\n",
	       maxn, 1u, maxn * tsc_mhz * 1e6 / (double)c_cyc,
	       maxn * tsc_mhz * 1e6 / (double)d_cyc,
	       (double)(c_cyc + d_cyc) * 1e3 / tsc_mhz / maxn, cpu / maxn);
	for (i = 0; i < opt.nflows; i++) {
		unsigned int n = opt.flows[i];
		unsigned int variants[2] = { 1, RTE_MIN(opt.flow_masks, n) };

		for (v = 0; v < (variants[1] > 1 ? 2u : 1u); v++) {
			double cr[MAX_REPEATS], de[MAX_REPEATS],
				ns[MAX_REPEATS], cp[MAX_REPEATS];

			for (r = 0; r < opt.repeats; r++) {
				if (svb_pass(&b, n, variants[v], &c_cyc, &d_cyc,
					     &cpu, NULL) != 0)
					goto fail;
				cr[r] = n * (tsc_mhz * 1e6) / (double)c_cyc;
				de[r] = n * (tsc_mhz * 1e6) / (double)d_cyc;
				ns[r] = (double)(c_cyc + d_cyc) * 1e3 /
					tsc_mhz / n;
				cp[r] = cpu / n;
			}
			printf("%8u %6u %14.0f %14.0f %14.0f %10.0f\n", n,
			       variants[v], median(cr, opt.repeats),
			       median(de, opt.repeats), median(ns, opt.repeats),
			       median(cp, opt.repeats));
			fflush(stdout);
		}
	}
	/* Memory of maxn rules: the first pass (1 mask, cold) gave the
	 * resident growth; softverbs' own count for both mask counts. */
	printf("softverbs memory with %u rules: %.0f bytes/rule resident "
	       "(first pass), %.0f bytes/rule counted by softverbs",
	       maxn, (double)mem[0] / maxn, (double)mem[1] / maxn);
	if (nm > 1) {
		if (svb_pass(&b, maxn, nm, &c_cyc, &d_cyc, &cpu, mem) != 0)
			goto fail;
		printf(" (%.0f with %u masks)", (double)mem[1] / maxn, nm);
	}
	printf("\n");
	printf("(create/s, destroy/s, create+del ns: TSC time, median of the "
	       "repeats; cpu ns: the thread's CPU time for a create and a "
	       "destroy, median, which leaves out time other processes had "
	       "the CPU)\n");
	svb_down(&b);
	return 0;
fail:
	svb_down(&b);
	return -1;
}

/* The driver's rows: rte_flow rules through the driver and softverbs. */
static int
section_flows_rte(unsigned int maxn)
{
	unsigned int i, r, v;
	uint64_t c_cyc, d_cyc, rss0, rss1;

	printf("\n== flows: rte_flow_create / rte_flow_destroy rate, "
	       "pattern eth / ipv4 dst /32 [+ src /k] -> queue, "
	       "destroyed %s ==\n",
	       opt.flow_reverse ? "last first" : "in creation order");
	printf("%8s %6s %14s %14s %14s\n", "rules", "masks", "create/s",
	       "destroy/s", "create us");
	/* The first pass also pays for first-touch page faults of the
	 * driver's and the device's memory: shown apart, not in the medians.
	 * Its resident memory growth is what the rules hold, driver and
	 * device together. */
	rss0 = rss_bytes();
	if (rules_install(maxn, 1, &c_cyc) != 0)
		return -1;
	rss1 = rss_bytes();
	if (rules_remove(maxn, &d_cyc) != 0)
		return -1;
	printf("%8u %6u %14.0f %14.0f %14.2f  (first pass, cold memory)\n",
	       maxn, 1u, maxn * tsc_mhz * 1e6 / (double)c_cyc,
	       maxn * tsc_mhz * 1e6 / (double)d_cyc,
	       (double)c_cyc / tsc_mhz / maxn);
	for (i = 0; i < opt.nflows; i++) {
		unsigned int n = opt.flows[i];
		unsigned int variants[2] = { 1, RTE_MIN(opt.flow_masks, n) };

		for (v = 0; v < (variants[1] > 1 ? 2u : 1u); v++) {
			double cr[MAX_REPEATS], de[MAX_REPEATS];

			for (r = 0; r < opt.repeats; r++) {
				if (rules_install(n, variants[v], &c_cyc) != 0)
					return -1;
				if (rules_remove(n, &d_cyc) != 0)
					return -1;
				cr[r] = n * (tsc_mhz * 1e6) / (double)c_cyc;
				de[r] = n * (tsc_mhz * 1e6) / (double)d_cyc;
			}
			cr[0] = median(cr, opt.repeats);
			de[0] = median(de, opt.repeats);
			printf("%8u %6u %14.0f %14.0f %14.2f\n", n, variants[v],
			       cr[0], de[0], 1e6 / cr[0]);
			fflush(stdout);
		}
	}
	printf("driver + device memory with %u rules: %.0f bytes/rule "
	       "resident (first pass)\n",
	       maxn, (double)(rss1 - rss0) / maxn);
	return 0;
}

/* The driver's rows, then the device's alone (even if the driver's
 * failed: a limit of the driver's must not hide the device's figures). */
static int
section_flows(void)
{
	unsigned int i, maxn = 0;
	int ret;

	for (i = 0; i < opt.nflows; i++)
		maxn = RTE_MAX(maxn, opt.flows[i]);
	ret = section_flows_rte(maxn);
	if (section_flows_softverbs(maxn) != 0)
		ret = -1;
	return ret;
}

/* The reference: 1 rule, 1 mask, every frame matching it. */
static int
baseline(struct rx_result *r)
{
	if (make_templates(1, opt.size) != 0)
		return -1;
	if (rules_install(1, 1, NULL) != 0)
		return -1;
	traffic_measure(r);
	if (rules_remove(1, NULL) != 0)
		return -1;
	if (r->rx_cpp <= 0) {
		fprintf(stderr,
			"vsteer-bench: no frame came through with 1 rule\n");
		return -1;
	}
	return 0;
}

static int
section_classify(void)
{
	struct {
		unsigned int n, m;
		struct rx_result res;
	} row[MAX_LIST * MAX_LIST];
	struct rx_result base, last;
	unsigned int i, j, nrow = 0;
	double b;

	printf("\n== classify: Rx through the softverbs rule table, %u-byte "
	       "frames, each matching one installed rule ==\n",
	       opt.size);
	if (opt.hot)
		printf("(frames go to the first %u rules only)\n", opt.hot);
	skip_preempted = true;
	bursts_timed = bursts_skipped = 0;
	if (baseline(&base) != 0)
		return -1;
	for (j = 0; j < opt.nmasks; j++) {
		unsigned int m = opt.masks[j];

		for (i = 0; i < opt.nrules; i++) {
			unsigned int n = opt.rules[i];

			/* No rule: shown once; fewer rules than masks: none. */
			if ((n == 0 && j > 0) || (n > 0 && n < m))
				continue;
			if (make_templates(opt.hot ? RTE_MIN(n, opt.hot) : n,
					   opt.size) != 0) {
				fprintf(stderr,
					"vsteer-bench: no memory for %u frames\n",
					n);
				return -1;
			}
			if (rules_install(n, m, NULL) != 0)
				return -1;
			row[nrow].n = n;
			row[nrow].m = m;
			traffic_measure(&row[nrow].res);
			nrow++;
			if (rules_remove(n, NULL) != 0)
				return -1;
		}
	}
	/* Measured again at the end: a busy moment at the start must not
	 * skew every ratio. */
	if (baseline(&last) != 0)
		return -1;
	skip_preempted = false;
	b = RTE_MIN(base.rx_cpp, last.rx_cpp);
	printf("%8s %6s %10s %10s %10s %12s %8s\n", "rules", "masks", "rx Mpps",
	       "cyc/pkt", "median", "vs 1 rule", "lost");
	for (i = 0; i < nrow; i++) {
		const struct rx_result *r = &row[i].res;
		char mstr[16] = "-";

		if (row[i].n > 0)
			snprintf(mstr, sizeof(mstr), "%u", row[i].m);
		printf("%8u %6s %10.3f %10.0f %10.0f %11.2fx %8" PRIu64 "\n",
		       row[i].n, mstr, mpps(r->rx_cpp), r->rx_cpp, r->rx_med,
		       b / r->rx_cpp, r->lost);
	}
	printf("(cyc/pkt: TSC cycles per packet inside rte_eth_rx_burst, best "
	       "window, median alongside; vs 1 rule: Rx rate relative to 1 rule "
	       "of 1 mask, %.0f cyc/pkt, the better of the runs at the start "
	       "(%.0f) and at the end (%.0f); lost: frames sent but not "
	       "received)\n",
	       b, base.rx_cpp, last.rx_cpp);
	printf("(%" PRIu64 " of %" PRIu64 " rx bursts left out of the figures: "
	       "the thread lost the CPU during them, over %u us)\n",
	       bursts_skipped, bursts_timed, SKIP_US);
	free_templates();
	return 0;
}

/* Rx packet type parsing on (every layer) or off. */
static int
set_ptypes(bool on)
{
	int ret = rte_eth_dev_set_ptypes(rx_port,
					 on ? RTE_PTYPE_ALL_MASK :
					      RTE_PTYPE_UNKNOWN,
					 NULL, 0);

	if (ret < 0)
		fprintf(stderr, "vsteer-bench: set_ptypes: %s\n",
			strerror(-ret));
	return ret < 0 ? ret : 0;
}

/* The Rx port set up again with or without the CHECKSUM offload. */
static int
set_rx_checksum(bool on)
{
	int ret = rte_eth_dev_stop(rx_port);

	rx_offloads = on ? RTE_ETH_RX_OFFLOAD_CHECKSUM : 0;
	if (ret == 0)
		ret = port_setup(rx_port, (uint16_t)opt.nqueues);
	if (ret != 0)
		fprintf(stderr, "vsteer-bench: Rx checksum %s: %s\n",
			on ? "on" : "off", strerror(-ret));
	return ret;
}

/* The better of two results (fewer Rx cycles); losses add up. */
static void
keep_best(struct rx_result *best, const struct rx_result *r, bool first)
{
	uint64_t lost = first ? 0 : best->lost;

	if (first || r->rx_cpp < best->rx_cpp)
		*best = *r;
	best->lost = lost + r->lost;
}

/* Rx without and with the CHECKSUM offload, in turn three times, the
 * best of each: a busy moment on the machine skews both, not one. */
static int
measure_csum(struct rx_result *plain, struct rx_result *csum)
{
	struct rx_result r;
	unsigned int i;
	int ret = 0;

	for (i = 0; i < 3 && ret == 0; i++) {
		traffic_measure(&r);
		keep_best(plain, &r, i == 0);
		ret = set_rx_checksum(true);
		if (ret != 0)
			break;
		traffic_measure(&r);
		keep_best(csum, &r, i == 0);
		ret = set_rx_checksum(false);
	}
	return ret;
}

static int
section_datapath(void)
{
	static const unsigned int sizes[] = { 64, 512, 1514 };
	struct rx_result res, nopt, csum;
	unsigned int i;
	int ret = 0;

	printf("\n== datapath: no user rule (default flows only), "
	       "1 Tx queue, %u Rx queue(s), bursts of %u, UDP/IPv4 frames "
	       "with checksums ==\n",
	       opt.nqueues, BURST);
	printf("%8s %10s %10s %10s %10s %10s %10s %10s %7s %10s %10s %10s "
	       "%8s\n",
	       "bytes", "rx Mpps", "rx cyc", "median", "no-ptype", "median",
	       "csum", "median", "ratio", "tx Mpps", "tx cyc", "median",
	       "lost");
	tpl_udp_csum = true;
	skip_preempted = true;
	bursts_timed = bursts_skipped = 0;
	for (i = 0; i < RTE_DIM(sizes) && ret == 0; i++) {
		ret = make_templates(1, sizes[i]);
		if (ret != 0)
			break;
		ret = set_ptypes(false);
		if (ret != 0)
			break;
		traffic_measure(&nopt);
		ret = set_ptypes(true);
		if (ret == 0)
			ret = measure_csum(&res, &csum);
		if (ret != 0)
			break;
		printf("%8u %10.3f %10.0f %10.0f %10.0f %10.0f %10.0f %10.0f "
		       "%7.2f %10.3f %10.0f %10.0f %8" PRIu64 "\n",
		       sizes[i], mpps(res.rx_cpp), res.rx_cpp, res.rx_med,
		       nopt.rx_cpp, nopt.rx_med, csum.rx_cpp, csum.rx_med,
		       res.rx_cpp > 0 ? csum.rx_cpp / res.rx_cpp : 0,
		       mpps(res.tx_cpp), res.tx_cpp, res.tx_med,
		       res.lost + nopt.lost + csum.lost);
		fflush(stdout);
	}
	tpl_udp_csum = false;
	skip_preempted = false;
	printf("(cyc: TSC cycles per packet inside rte_eth_rx_burst / "
	       "rte_eth_tx_burst, best window, median alongside; no-ptype: Rx "
	       "with packet type parsing off; csum: Rx with the CHECKSUM "
	       "offload, measured in turn with rx cyc, three times each, the "
	       "best; ratio: csum / rx cyc; Mpps: what one core would do at "
	       "the best window's cost)\n");
	printf("(%" PRIu64 " of %" PRIu64 " rx bursts left out of the figures: "
	       "the thread lost the CPU during them, over %u us)\n",
	       bursts_skipped, bursts_timed, SKIP_US);
	free_templates();
	return ret == 0 ? 0 : -1;
}

/* Other processes' load skews every figure: say what it was. */
static void
print_load(const char *when)
{
	char buf[64] = "", *p;
	FILE *f = fopen("/proc/loadavg", "r");
	int i;

	if (f != NULL) {
		if (fgets(buf, sizeof(buf), f) == NULL)
			buf[0] = '\0';
		fclose(f);
	}
	/* The three averages; the run queue and last pid are not load. */
	p = buf;
	for (i = 0; i < 3 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p != NULL)
		*p = '\0';
	printf("load average %s: %s\n", when, buf[0] ? buf : "unknown");
}

int
main(int argc, char **argv)
{
	char link_arg[2][96], lcore_arg[16];
	char *eal_argv[64];
	int eal_argc = 0, own_argc = argc, i, ret;
	unsigned int maxn = 1;
	uint16_t port;

	/* Our options, then "--" and extra EAL options. */
	for (i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0) {
			own_argc = i;
			break;
		}
	if (parse_args(own_argc, argv) != 0)
		return 2;

	for (i = 0; i < 2; i++)
		snprintf(link_arg[i], sizeof(link_arg[i]),
			 "net_vsteer%d,dev=mem:vsteer-bench-%d,flow_engine=%s",
			 i, (int)getpid(), opt.engine);
	eal_argv[eal_argc++] = argv[0];
	eal_argv[eal_argc++] = (char *)(uintptr_t) "-l";
	snprintf(lcore_arg, sizeof(lcore_arg), "%u", opt.lcore);
	eal_argv[eal_argc++] = lcore_arg;
	eal_argv[eal_argc++] = (char *)(uintptr_t) "--no-huge";
	eal_argv[eal_argc++] = (char *)(uintptr_t) "-m";
	eal_argv[eal_argc++] = (char *)(uintptr_t) "512";
	eal_argv[eal_argc++] = (char *)(uintptr_t) "--no-pci";
	eal_argv[eal_argc++] = (char *)(uintptr_t) "--no-shconf";
	eal_argv[eal_argc++] =
		(char *)(uintptr_t) "--log-level=lib.eal:warning";
	eal_argv[eal_argc++] = (char *)(uintptr_t) "--vdev";
	eal_argv[eal_argc++] = link_arg[0];
	eal_argv[eal_argc++] = (char *)(uintptr_t) "--vdev";
	eal_argv[eal_argc++] = link_arg[1];
	for (i = own_argc + 1;
	     i < argc && eal_argc < (int)RTE_DIM(eal_argv) - 1; i++)
		eal_argv[eal_argc++] = argv[i];
	eal_argv[eal_argc] = NULL;

	ret = rte_eal_init(eal_argc, eal_argv);
	if (ret < 0) {
		fprintf(stderr, "vsteer-bench: EAL: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	tsc_mhz = rte_get_tsc_hz() / 1e6;

	/* The two ports of the link, in probe order: 0 receives, 1 sends. */
	i = 0;
	RTE_ETH_FOREACH_DEV(port) {
		char name[RTE_ETH_NAME_MAX_LEN];

		if (rte_eth_dev_get_name_by_port(port, name) != 0 ||
		    strncmp(name, "net_vsteer", 10) != 0)
			continue;
		if (i == 0)
			rx_port = port;
		else if (i == 1)
			tx_port = port;
		i++;
	}
	if (i < 2) {
		fprintf(stderr,
			"vsteer-bench: the two net_vsteer ports did not probe\n");
		ret = 1;
		goto out;
	}

	for (i = 0; i < (int)opt.nrules; i++)
		maxn = RTE_MAX(maxn, opt.rules[i]);
	for (i = 0; i < (int)opt.nflows; i++)
		maxn = RTE_MAX(maxn, opt.flows[i]);
	flows = calloc(maxn, sizeof(*flows));
	tpl = calloc(maxn, sizeof(*tpl));
	rx_pool =
		rte_pktmbuf_pool_create("bench_rx",
					opt.nqueues * NB_RXD + 2 * ROUND + 1024,
					256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					rte_socket_id());
	tpl_pool = rte_pktmbuf_pool_create("bench_tpl", maxn + 1024, 0, 0,
					   RTE_MBUF_DEFAULT_BUF_SIZE,
					   rte_socket_id());
	if (flows == NULL || tpl == NULL || rx_pool == NULL ||
	    tpl_pool == NULL) {
		fprintf(stderr, "vsteer-bench: out of memory\n");
		ret = 1;
		goto out;
	}
	ret = port_setup(rx_port, (uint16_t)opt.nqueues);
	if (ret == 0)
		ret = port_setup(tx_port, 1);
	if (ret != 0) {
		fprintf(stderr, "vsteer-bench: port setup: %s\n",
			strerror(-ret));
		ret = 1;
		goto out;
	}
	rte_eth_macaddr_get(rx_port, &rx_mac);
	rte_eth_macaddr_get(tx_port, &tx_mac);

	printf("vsteer-bench: net_vsteer on a softverbs in-memory link, "
	       "flow_engine=%s, TSC %.0f MHz, %u ms x %u repeats\n",
	       opt.engine, tsc_mhz, opt.dur_ms, opt.repeats);
	print_load("at the start");
	/* flows first: its first pass is the only one on cold memory. */
	ret = 0;
	if (ret == 0 && opt.do_flows)
		ret = section_flows();
	if (ret == 0 && opt.do_datapath)
		ret = section_datapath();
	if (ret == 0 && opt.do_classify)
		ret = section_classify();
	print_load("at the end");
	ret = ret == 0 ? 0 : 1;
out:
	free_templates();
	RTE_ETH_FOREACH_DEV(port) {
		rte_eth_dev_stop(port);
		rte_eth_dev_close(port);
	}
	free(flows);
	free(tpl);
	rte_mempool_free(rx_pool);
	rte_mempool_free(tpl_pool);
	rte_eal_cleanup();
	return ret;
}
