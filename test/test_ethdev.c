/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * In-process ethdev tests of net_vsteer: two ports on the two ends of an
 * in-memory softverbs link (no privileges needed), driven through the
 * ethdev API as an application would.
 *
 * Built twice: with the softverbs glue (dev=mem:...), and with
 * VT_RDMA_GLUE, where the same softverbs devices are shown to the driver as
 * rdma-core devices and driven through the rdma-core glue, whose libibverbs
 * and libmlx5 calls vt_rdma_shim.c forwards to softverbs.
 */

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_bus_vdev.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_epoll.h>
#include <rte_ethdev.h>
#include <rte_flow.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mbuf_dyn.h>
#include <rte_mempool.h>
#include <rte_random.h>
#include <rte_thash.h>
#include <rte_tcp.h>
#include <rte_udp.h>

#include "softverbs.h"
#include "sv_internal.h"
#include "vsteer.h"
#include "vt_test.h"
#ifdef VT_RDMA_GLUE
#include "vt_rdma.h"
#endif

#define NB_MBUF 4095
#define POLL_ROUNDS 16 /* rx_burst rounds before "nothing came" */
#define BURST 32

static char link_a[32];
static uint16_t p0, p1;
#ifdef VT_RDMA_GLUE
static char rdma_base[PATH_MAX];
#endif
static struct rte_mempool *pool;
static struct rte_ether_addr mac0, mac1;

static const struct rte_ether_addr other_mac = {
	.addr_bytes = { 0x02, 0xaa, 0xbb, 0xcc, 0xdd, 0xee }
};

/* The MTU port_up() configures (rxmode.mtu); 0: ethdev's default. */
static uint16_t port_up_mtu;
/* Interrupts port_up() asks for, and the queues it sets up with deferred
 * start (bit q: Rx / Tx queue q). */
static struct rte_eth_intr_conf port_up_intr;
static uint32_t port_up_rx_deferred, port_up_tx_deferred;

static struct vsteer_priv *
priv_of(uint16_t port)
{
	return rte_eth_devices[port].data->dev_private;
}

/* (Re)configure and start a port: n queues each way, RSS when rss_hf. */
static int
port_up(uint16_t port, uint16_t nq, uint64_t rss_hf, uint16_t nb_rxd,
	struct rte_mempool *rx_pool, uint64_t rx_off, uint64_t tx_off)
{
	struct rte_eth_conf conf;
	struct rte_eth_rxconf rxc;
	struct rte_eth_txconf txc;
	uint16_t q;
	int ret;

	if (rte_eth_devices[port].data->dev_started)
		rte_eth_dev_stop(port);
	memset(&conf, 0, sizeof(conf));
	conf.rxmode.mq_mode = rss_hf ? RTE_ETH_MQ_RX_RSS : RTE_ETH_MQ_RX_NONE;
	conf.rx_adv_conf.rss_conf.rss_hf = rss_hf;
	conf.rxmode.offloads = rx_off;
	conf.rxmode.mtu = port_up_mtu;
	conf.txmode.offloads = tx_off;
	conf.intr_conf = port_up_intr;
	ret = rte_eth_dev_configure(port, nq, nq, &conf);
	if (ret != 0)
		return ret;
	memset(&rxc, 0, sizeof(rxc));
	memset(&txc, 0, sizeof(txc));
	for (q = 0; q < nq; q++) {
		rxc.rx_deferred_start = (port_up_rx_deferred >> q) & 1;
		txc.tx_deferred_start = (port_up_tx_deferred >> q) & 1;
		ret = rte_eth_rx_queue_setup(port, q, nb_rxd, 0, &rxc,
					     rx_pool ? rx_pool : pool);
		if (ret != 0)
			return ret;
		ret = rte_eth_tx_queue_setup(port, q, 256, 0, &txc);
		if (ret != 0)
			return ret;
	}
	return rte_eth_dev_start(port);
}

static int
ports_default(void)
{
	int ret;

	ret = port_up(p0, 1, 0, 256, NULL, 0, 0);
	if (ret == 0)
		ret = port_up(p1, 1, 0, 256, NULL, 0, 0);
	if (ret == 0)
		ret = rte_eth_promiscuous_disable(p1);
	return ret;
}

/* An Ethernet/IPv4/UDP or TCP frame of len bytes, recognisable payload. */
static struct rte_mbuf *
l4_frame(struct rte_mempool *mp, const struct rte_ether_addr *dst,
	 uint8_t proto, uint32_t sip, uint32_t dip, uint16_t sport,
	 uint16_t dport, uint16_t len, uint8_t seed)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	struct rte_tcp_hdr *tcp;
	uint16_t i, l4len;
	uint8_t *p;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eth = (struct rte_ether_hdr *)p;
	eth->dst_addr = *dst;
	eth->src_addr = mac0;
	eth->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eth + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(len - sizeof(*eth));
	ip->time_to_live = 64;
	ip->next_proto_id = proto;
	ip->src_addr = rte_cpu_to_be_32(sip);
	ip->dst_addr = rte_cpu_to_be_32(dip);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (proto == IPPROTO_TCP) {
		tcp = (struct rte_tcp_hdr *)(ip + 1);
		memset(tcp, 0, sizeof(*tcp));
		tcp->src_port = rte_cpu_to_be_16(sport);
		tcp->dst_port = rte_cpu_to_be_16(dport);
		tcp->data_off = (sizeof(*tcp) / 4) << 4;
		tcp->tcp_flags = RTE_TCP_ACK_FLAG;
		l4len = sizeof(*tcp);
	} else {
		udp = (struct rte_udp_hdr *)(ip + 1);
		udp->src_port = rte_cpu_to_be_16(sport);
		udp->dst_port = rte_cpu_to_be_16(dport);
		udp->dgram_len =
			rte_cpu_to_be_16(len - sizeof(*eth) - sizeof(*ip));
		udp->dgram_cksum = 0;
		l4len = sizeof(*udp);
	}
	for (i = sizeof(*eth) + sizeof(*ip) + l4len; i < len; i++)
		p[i] = (uint8_t)(seed + i);
	if (proto == IPPROTO_TCP)
		tcp->cksum = rte_ipv4_udptcp_cksum(ip, tcp);
	return m;
}

static struct rte_mbuf *
udp_frame(struct rte_mempool *mp, const struct rte_ether_addr *dst,
	  uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport,
	  uint16_t len, uint8_t seed)
{
	return l4_frame(mp, dst, IPPROTO_UDP, sip, dip, sport, dport, len,
			seed);
}

static struct rte_mbuf *
simple_frame(const struct rte_ether_addr *dst, uint16_t len, uint8_t seed)
{
	return udp_frame(pool, dst, 0x0a000001, 0x0a000002, 1000, 2000, len,
			 seed);
}

/* Send every mbuf (bounded retries); returns how many were taken. */
static uint16_t
send_all(uint16_t port, uint16_t q, struct rte_mbuf **m, uint16_t n)
{
	uint16_t sent = 0;
	int tries;

	for (tries = 0; tries < 1000 && sent < n; tries++)
		sent += rte_eth_tx_burst(port, q, m + sent, n - sent);
	if (sent < n)
		rte_pktmbuf_free_bulk(m + sent, n - sent);
	return sent;
}

static int
send_one(uint16_t port, struct rte_mbuf *m)
{
	if (m == NULL)
		return -ENOMEM;
	return send_all(port, 0, &m, 1) == 1 ? 0 : -EIO;
}

/* Poll queue q until n packets or POLL_ROUNDS empty rounds. */
static uint16_t
recv_n(uint16_t port, uint16_t q, struct rte_mbuf **out, uint16_t n)
{
	uint16_t got = 0;
	int idle = 0;

	while (got < n && idle < POLL_ROUNDS) {
		uint16_t k = rte_eth_rx_burst(port, q, out + got,
					      RTE_MIN(n - got, BURST));

		got += k;
		idle = k ? 0 : idle + 1;
	}
	return got;
}

/* Drain every queue of a port; returns packets freed. */
static unsigned int
drain(uint16_t port, uint16_t nq)
{
	struct rte_mbuf *m[BURST];
	unsigned int total = 0;
	uint16_t q, k;
	int round;

	for (round = 0; round < POLL_ROUNDS; round++) {
		unsigned int got = 0;

		for (q = 0; q < nq; q++) {
			k = rte_eth_rx_burst(port, q, m, BURST);
			rte_pktmbuf_free_bulk(m, k);
			got += k;
		}
		total += got;
	}
	return total;
}

/* Was a frame to dst received on port p1 (queue 0)? */
static int
delivered(const struct rte_ether_addr *dst)
{
	struct rte_mbuf *m;
	uint16_t k;

	if (send_one(p0, simple_frame(dst, 64, 1)) != 0)
		return -1;
	k = recv_n(p1, 0, &m, 1);
	if (k == 1) {
		const struct rte_ether_hdr *eth =
			rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		int same = rte_is_same_ether_addr(&eth->dst_addr, dst);

		rte_pktmbuf_free(m);
		return same ? 1 : -1;
	}
	return 0;
}

static uint64_t
xstat(uint16_t port, const char *name)
{
	uint64_t id, v = UINT64_MAX;

	if (rte_eth_xstats_get_id_by_name(port, name, &id) != 0)
		return UINT64_MAX;
	if (rte_eth_xstats_get_by_id(port, &id, &v, 1) != 1)
		return UINT64_MAX;
	return v;
}

static int
sv_device_exists(const char *name)
{
	struct ibv_device **list;
	int n = 0, i, found = 0;

	list = sv_get_device_list(&n);
	for (i = 0; list != NULL && i < n; i++)
		if (strcmp(sv_get_device_name(list[i]), name) == 0)
			found = 1;
	if (list != NULL)
		sv_free_device_list(list);
	return found;
}

/* What is logged between log_capture_begin() and log_capture_end(). */
static FILE *log_saved, *log_stream;
static char *log_buf;
static size_t log_len;

static void
log_capture_begin(void)
{
	log_saved = rte_log_get_stream();
	log_stream = open_memstream(&log_buf, &log_len);
	if (log_stream != NULL)
		rte_openlog_stream(log_stream);
}

static void
log_capture_end(char *log, size_t len)
{
	snprintf(log, len, "(log not captured)");
	if (log_stream == NULL)
		return;
	fflush(log_stream);
	rte_openlog_stream(log_saved);
	fclose(log_stream);
	log_stream = NULL;
	snprintf(log, len, "%s", log_buf != NULL ? log_buf : "");
	free(log_buf);
	log_buf = NULL;
}

/* Capture what the PMD logs while probing args; returns probe's result. */
static int
probe_capture(const char *name, const char *args, char *log, size_t len)
{
	int ret;

	log_capture_begin();
	ret = rte_vdev_init(name, args);
	log_capture_end(log, len);
	return ret;
}

static unsigned int
count_lines(const char *s, const char *needle)
{
	unsigned int n = 0;
	const char *line = s;

	while (line != NULL && *line != '\0') {
		const char *eol = strchr(line, '\n');
		size_t l = eol ? (size_t)(eol - line) : strlen(line);
		char tmp[512];

		snprintf(tmp, sizeof(tmp), "%.*s",
			 (int)RTE_MIN(l, sizeof(tmp) - 1), line);
		if (strstr(tmp, needle) != NULL)
			n++;
		line = eol ? eol + 1 : NULL;
	}
	return n;
}

static int
test_bad_devargs(void)
{
	static const struct {
		const char *args;
		const char *msg;
	} cases[] = {
		{ "dev=nosuch", "no rdma-core device nosuch; found:" },
		{ "dev=soft:nosuchif9", "no interface nosuchif9; found:" },
		{ "dev=mem:x,bogus=1",
		  "unknown devarg 'bogus'; valid: dev, port" },
		{ "dev=mem:x,port=0", "port=0" },
		{ "dev=mem:x,port=2", "has 1 port(s)" },
		{ "dev=mem:x,profile=fast",
		  "profile=fast: expected generic or mlx5" },
		{ "dev=nosuch,profile=generic",
		  "profile= applies to softverbs" },
		{ "dev=mem:x,flow_engine=turbo", "flow_engine=turbo" },
		{ "dev=mem:x,mac=01:00:00:00:00:01", "mac=01:00:00:00:00:01" },
		{ "dev=mem:x,sv_flow_prios=4",
		  "the driver needs at least 8 verbs priorities" },
		{ "dev=mem:x,sv_flow_prios=17",
		  "sv_flow_prios=17: expected 1 to 16 on the mlx5 profile" },
		{ "dev=mem:x,sv_flow_prios=0",
		  "expected a number of priorities from 1 to 4096" },
		{ "dev=mem:x,profile=generic,sv_devx=0",
		  "sv_devx= models an mlx5 device" },
		{ "dev=mem:x,sv_tunnel_offloads=2",
		  "sv_tunnel_offloads=2: expected 0 or 1" },
		{ "dev=nosuch,sv_verbs_egress=0",
		  "sv_verbs_egress= applies to softverbs devices" },
		{ "dev=mem:x,sv_modify_actions=0",
		  "sv_modify_actions=0: expected a number of header modify actions from 1 to 255" },
		{ "dev=mem:x,sv_modify_actions=256",
		  "sv_modify_actions=256: expected a number" },
		{ "dev=mem:x,profile=generic,sv_modify_actions=8",
		  "sv_modify_actions= models an mlx5 device" },
		{ "port=1", "dev= is required" },
	};
	char log[4096];
	unsigned int i;

	for (i = 0; i < RTE_DIM(cases); i++) {
		int ret = probe_capture("net_vsteer9", cases[i].args, log,
					sizeof(log));

		VT_CHECK(ret < 0, "probe with '%s' succeeded", cases[i].args);
		VT_CHECK(strstr(log, cases[i].msg) != NULL,
			 "'%s': log lacks '%s': %s", cases[i].args,
			 cases[i].msg, log);
		VT_CHECK_EQ(count_lines(log, "net_vsteer9"), 1,
			    "'%s': one line: %s", cases[i].args, log);
		VT_CHECK(rte_eth_dev_get_port_by_name("net_vsteer9",
						      &(uint16_t){ 0 }) != 0,
			 "'%s': port left behind", cases[i].args);
	}
	/* Nothing half-made: the failed mem: probes left no device. */
	VT_CHECK(!sv_device_exists("mem:x.0"), "device mem:x.0 left behind");
	return VT_OK;
}

#ifndef VT_RDMA_GLUE
/* The probe's line names the engine choice as it is in force: auto is
 * auto (verbs first), whatever the device offers. */
static int
test_probe_log_engine(void)
{
	static const struct {
		const char *args;
		const char *engine;
	} c[] = {
		{ "", "flow engine auto (verbs, else mlx5dv)" },
		{ ",profile=generic", "flow engine auto (verbs)" },
		{ ",flow_engine=verbs", "flow engine verbs" },
		{ ",flow_engine=dv", "flow engine mlx5dv" },
	};
	char args[128], log[4096];
	unsigned int i;
	uint16_t port;
	int ret;

	for (i = 0; i < RTE_DIM(c); i++) {
		snprintf(args, sizeof(args), "dev=mem:%s-eng%u%s", link_a, i,
			 c[i].args);
		rte_log_set_level_pattern("pmd.net.vsteer.init", RTE_LOG_INFO);
		ret = probe_capture("net_vsteer9", args, log, sizeof(log));
		rte_log_set_level_pattern("pmd.net.vsteer.init",
					  RTE_LOG_NOTICE);
		VT_CHECK_EQ(ret, 0, "probe '%s'", args);
		VT_CHECK(strstr(log, c[i].engine) != NULL &&
				 strstr(log, "net_vsteer9: port") != NULL,
			 "'%s': the probe's line lacks '%s': %s", args,
			 c[i].engine, log);
		VT_CHECK_EQ(rte_eth_dev_get_port_by_name("net_vsteer9", &port),
			    0, "port");
		VT_CHECK_EQ(rte_eth_dev_close(port), 0, "close");
		VT_CHECK_EQ(rte_vdev_uninit("net_vsteer9"), 0, "uninit");
	}
	return VT_OK;
}
#endif

static int
test_lifecycle_repeatable(void)
{
	char args[64], devname[64];
	uint16_t port;
	int round, ret;
#ifdef VT_RDMA_GLUE
	char link[48];

	/* rdma-core devices exist before the port and outlive it. */
	snprintf(link, sizeof(link), "%s-life", link_a);
	snprintf(args, sizeof(args), "dev=%sa", link);
	snprintf(devname, sizeof(devname), "mem:%s.0", link);
#else
	snprintf(args, sizeof(args), "dev=mem:%s-life", link_a);
	snprintf(devname, sizeof(devname), "mem:%s-life.0", link_a);
#endif
	for (round = 0; round < 2; round++) {
		int i;

#ifdef VT_RDMA_GLUE
		VT_CHECK_EQ(vt_rdma_pair(link, 0, 0, 0, 0, link, rdma_base), 0,
			    "devices");
#endif
		VT_CHECK_EQ(rte_vdev_init("net_vsteer2", args), 0, "probe");
		VT_CHECK(sv_device_exists(devname), "no %s", devname);
		VT_CHECK_EQ(rte_eth_dev_get_port_by_name("net_vsteer2", &port),
			    0, "port");
		for (i = 0; i < 3; i++) {
			ret = port_up(port, (uint16_t)(1 + i),
				      i ? RTE_ETH_RSS_IP : 0, 64, NULL, 0, 0);
			VT_CHECK_EQ(ret, 0, "configure/start %d", i);
			VT_CHECK_EQ(rte_eth_dev_stop(port), 0, "stop %d", i);
			VT_CHECK_EQ(rte_eth_dev_start(port), 0, "restart %d",
				    i);
			VT_CHECK_EQ(rte_eth_dev_stop(port), 0, "stop again %d",
				    i);
		}
		VT_CHECK_EQ(rte_mempool_avail_count(pool), NB_MBUF,
			    "mbufs held by a stopped port");
		VT_CHECK_EQ(rte_eth_dev_close(port), 0, "close");
		/* The device closes only with every object gone (EBUSY
		 * otherwise), and only then can it be removed. */
#ifdef VT_RDMA_GLUE
		VT_CHECK_EQ(vt_rdma_pair_remove(link, link), 0,
			    "%s not removable after close: objects leaked",
			    devname);
#endif
		VT_CHECK(!sv_device_exists(devname),
			 "%s still exists after close: objects leaked",
			 devname);
		VT_CHECK_EQ(rte_vdev_uninit("net_vsteer2"), 0, "uninit");
	}
	return VT_OK;
}

static int
test_tx_rx_exact(void)
{
	static const uint16_t lens[] = { 60, 64, 65, 128, 511, 1000, 1514 };
	struct rte_mbuf *m, *r;
	unsigned int i;

	VT_CHECK_EQ(ports_default(), 0, "ports up");
	for (i = 0; i < RTE_DIM(lens); i++) {
		uint8_t ref[2048];

		m = simple_frame(&mac1, lens[i], (uint8_t)i);
		VT_CHECK(m != NULL, "alloc");
		memcpy(ref, rte_pktmbuf_mtod(m, void *), lens[i]);
		VT_CHECK_EQ(send_one(p0, m), 0, "send %u", lens[i]);
		VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "receive %u", lens[i]);
		VT_CHECK_EQ(r->pkt_len, lens[i], "pkt_len");
		VT_CHECK_EQ(r->data_len, lens[i], "data_len");
		VT_CHECK_EQ(r->nb_segs, 1, "segments");
		VT_CHECK_EQ(r->port, p1, "mbuf port");
		VT_CHECK(memcmp(rte_pktmbuf_mtod(r, void *), ref, lens[i]) == 0,
			 "bytes of a %u-byte frame differ", lens[i]);
		VT_CHECK((r->ol_flags & RTE_MBUF_F_RX_FDIR) == 0,
			 "FDIR flag without a MARK/FLAG rule");
		rte_pktmbuf_free(r);
	}
	VT_CHECK_EQ(drain(p1, 1), 0, "extra packets");
	return VT_OK;
}

/* extmem belongs to the test, which frees it. */
static void
ext_free_noop(void *addr, void *opaque)
{
	RTE_SET_USED(addr);
	RTE_SET_USED(opaque);
}

static int
test_multiseg_tx(void)
{
	struct rte_mempool *other;
	struct rte_mbuf *h, *s1, *s2, *r, *ext;
	struct rte_mbuf_ext_shared_info *shinfo;
	struct rte_eth_stats st;
	uint8_t ref[1200], *extmem;
	uint16_t ext_len = 256;
	int ret;

	ret = port_up(p0, 1, 0, 256, NULL, 0, RTE_ETH_TX_OFFLOAD_MULTI_SEGS);
	VT_CHECK_EQ(ret, 0, "p0 with MULTI_SEGS");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, 0, 0), 0, "p1");
	/* Segments from a pool the port has never seen: registered on
	 * first use. */
	other = rte_pktmbuf_pool_create("tx_other", 63, 0, 0,
					RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	VT_CHECK(other != NULL, "second pool");
	h = udp_frame(pool, &mac1, 1, 2, 3, 4, 100, 7);
	s1 = rte_pktmbuf_alloc(other);
	s2 = rte_pktmbuf_alloc(pool);
	VT_CHECK(h != NULL && s1 != NULL && s2 != NULL, "alloc");
	memset(rte_pktmbuf_append(s1, 700), 0x5a, 700);
	memset(rte_pktmbuf_append(s2, 300), 0xa5, 300);
	memcpy(ref, rte_pktmbuf_mtod(h, void *), 100);
	memset(ref + 100, 0x5a, 700);
	memset(ref + 800, 0xa5, 300);
	VT_CHECK_EQ(rte_pktmbuf_chain(h, s1), 0, "chain");
	VT_CHECK_EQ(rte_pktmbuf_chain(h, s2), 0, "chain");
	VT_CHECK_EQ(h->nb_segs, 3, "3 segments");
	VT_CHECK_EQ(rte_eth_stats_reset(p0), 0, "reset");
	VT_CHECK_EQ(rte_eth_stats_reset(p1), 0, "reset");
	VT_CHECK_EQ(send_one(p0, h), 0, "send chain");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "receive");
	VT_CHECK_EQ(r->pkt_len, 1100, "pkt_len");
	VT_CHECK(memcmp(rte_pktmbuf_mtod(r, void *), ref, 1100) == 0,
		 "gathered bytes differ");
	rte_pktmbuf_free(r);
	/* Bytes are the whole frame, every segment, on both sides, and in
	 * the queue's counter as in the port's. */
	VT_CHECK_EQ(rte_eth_stats_get(p0, &st), 0, "stats");
	VT_CHECK_EQ(st.obytes, 1100, "obytes of a 3-segment frame");
	VT_CHECK_EQ(st.q_obytes[0], 1100, "queue 0 obytes");
	VT_CHECK_EQ(xstat(p0, "tx_q0_bytes"), 1100, "tx_q0_bytes");
	VT_CHECK_EQ(rte_eth_stats_get(p1, &st), 0, "stats");
	VT_CHECK_EQ(st.ibytes, 1100, "ibytes at the far end");

	/* Memory of no pool and no registration is never posted. */
	extmem = malloc(ext_len + sizeof(*shinfo) + 64);
	VT_CHECK(extmem != NULL, "malloc");
	ext = rte_pktmbuf_alloc(pool);
	VT_CHECK(ext != NULL, "alloc");
	shinfo = rte_pktmbuf_ext_shinfo_init_helper(extmem, &ext_len,
						    ext_free_noop, NULL);
	VT_CHECK(shinfo != NULL, "shinfo");
	rte_pktmbuf_attach_extbuf(ext, extmem, 0, ext_len, shinfo);
	rte_pktmbuf_reset_headroom(ext);
	ext->data_off = 0;
	memcpy(rte_pktmbuf_append(ext, 64), ref, 64);
	VT_CHECK(RTE_MBUF_HAS_EXTBUF(ext), "extbuf");
	rte_mbuf_ext_refcnt_set(shinfo, 2); /* keep extmem ours */
	VT_CHECK_EQ(send_one(p0, ext), 0, "tx takes the packet");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 0, "unregistered memory was sent");
	VT_CHECK_EQ(rte_eth_stats_get(p0, &st), 0, "stats");
	VT_CHECK_EQ(st.opackets, 1, "opackets");
	VT_CHECK_EQ(st.obytes, 1100, "the dropped packet's bytes not counted");
	VT_CHECK_EQ(st.oerrors, 1, "the dropped packet is an error");
	free(extmem);

	VT_CHECK_EQ(rte_eth_dev_stop(p0), 0, "stop");
	rte_mempool_free(other);
	return VT_OK;
}

#ifndef VT_RDMA_GLUE
/*
 * A receive error stops the work queue on a ConnectX (the RQ goes to
 * error and every WQE behind it is flushed; softverbs' mlx5 profile does
 * the same): the driver resets it and posts its buffers again, as mlx5e
 * and DPDK's mlx5 do, so that traffic goes on. The error: a frame longer
 * than p1's buffers, which the in-memory link hands over when the sender's
 * MTU is larger (MTUs are set through the device, not in the rdma build).
 */
static int
test_rx_error_recovery(void)
{
	struct rte_mempool *big;
	struct rte_mbuf *m[BURST];
	struct rte_eth_stats st;
	unsigned int i, got = 0;
	uint16_t k;
	int round;

	big = rte_pktmbuf_pool_create("rx_err_big", 63, 0, 0,
				      4096 + RTE_PKTMBUF_HEADROOM, 0);
	VT_CHECK(big != NULL, "pool of 4 KiB buffers");
	port_up_mtu = 3000;
	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, RTE_ETH_RX_OFFLOAD_SCATTER, 0),
		    0, "p0 at MTU 3000");
	port_up_mtu = 0;
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, 0, 0), 0, "p1, 2 KiB buffers");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	VT_CHECK_EQ(rte_eth_stats_reset(p1), 0, "reset");
	for (round = 0; round < 2; round++) {
		VT_CHECK_EQ(send_one(p0, udp_frame(big, &mac1, 1, 2, 3, 4, 2500,
						   1)),
			    0, "a frame longer than the buffers");
		VT_CHECK_EQ(drain(p1, 1), 0, "not received");
		VT_CHECK_EQ(xstat(p1, "rx_q0_work_queue_resets"),
			    (uint64_t)round + 1, "the queue was reset");
		got = 0;
		for (i = 0; i < 40; i++)
			VT_CHECK_EQ(send_one(p0, simple_frame(&mac1, 100,
							      (uint8_t)i)),
				    0, "send %u", i);
		for (i = 0; i < POLL_ROUNDS && got < 40; i++) {
			k = rte_eth_rx_burst(p1, 0, m, BURST);
			rte_pktmbuf_free_bulk(m, k);
			got += k;
		}
		VT_CHECK_EQ(got, 40, "round %d: traffic goes on", round);
	}
	VT_CHECK_EQ(rte_eth_stats_get(p1, &st), 0, "stats");
	/* The frames lost, not the flushed buffers. */
	VT_CHECK_EQ(st.ierrors, 2, "ierrors");
	VT_CHECK_EQ(st.ipackets, 80, "ipackets");
	VT_CHECK_EQ(st.imissed, 0, "nothing missed after the resets");
	VT_CHECK_EQ(ports_default(), 0, "ports back");
	rte_mempool_free(big);
	return VT_OK;
}
#endif

/*
 * Every Tx descriptor count the port advertises makes a queue that
 * starts and sends, with one segment per frame and with as many as it
 * advertises: a ConnectX sizes its send queue in 64-byte blocks, 16 bytes
 * per SGE a WR may carry (libmlx5's mlx5_calc_sq_size()), which the mlx5
 * profile models. One more descriptor is refused.
 */
static int
test_tx_ring_limits(void)
{
	const struct vsteer_priv *pv = priv_of(p0);
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_txq_info qi;
	struct rte_mbuf *h, *seg, *r;
	uint16_t nb_max, nseg, i;
	unsigned int k, ms, tso;

	VT_CHECK_EQ(rte_eth_dev_info_get(p0, &info), 0, "info");
	nb_max = info.tx_desc_lim.nb_max;
	/* The model's device: 8192 blocks, a 1-SGE WQE is one block. */
	VT_CHECK_EQ(nb_max, pv->max_wr, "one-SGE rings up to max_qp_wr");
	VT_CHECK_EQ(info.tx_desc_lim.nb_seg_max, VSTEER_TX_MAX_SGE,
		    "segments per frame");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, 0, 0), 0, "p1");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	VT_CHECK(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO, "TSO");
	/* Room for TSO headers makes every WQE larger (48 + 192 + 16 bytes
	 * per SGE): 4 blocks with one SGE, 8 with 16. */
	VT_CHECK_EQ(pv->tx_wr_max_tso, 2048, "probed, TSO");
	VT_CHECK_EQ(pv->tx_wr_max_tso_sges, 1024, "probed, TSO and 16 SGEs");
	for (k = 0; k < 4; k++) {
		ms = k & 1;
		tso = k >> 1;
		nseg = ms ? info.tx_desc_lim.nb_seg_max : 1;
		VT_CHECK_EQ(rte_eth_dev_stop(p0), 0, "stop");
		memset(&conf, 0, sizeof(conf));
		conf.txmode.offloads = ms ? RTE_ETH_TX_OFFLOAD_MULTI_SEGS : 0;
		if (tso)
			conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_TCP_TSO |
						RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
						RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
		VT_CHECK_EQ(rte_eth_dev_configure(p0, 1, 1, &conf), 0,
			    "configure");
		VT_CHECK_EQ(rte_eth_rx_queue_setup(p0, 0, 256, 0, NULL, pool),
			    0, "rx queue");
		VT_CHECK_EQ(rte_eth_tx_queue_setup(p0, 0, nb_max + 1, 0, NULL),
			    -EINVAL, "one descriptor too many");
		VT_CHECK_EQ(rte_eth_tx_queue_setup(p0, 0, nb_max, 0, NULL), 0,
			    "%u descriptors, %u segments", nb_max, nseg);
		VT_CHECK_EQ(rte_eth_dev_start(p0), 0,
			    "start with %u descriptors of %u segments, TSO %u",
			    nb_max, nseg, tso);
		/* 16 SGEs are 5 blocks a WQE: 1024 WRs fill the 8192. */
		VT_CHECK_EQ(rte_eth_tx_queue_info_get(p0, 0, &qi), 0, "qinfo");
		VT_CHECK_EQ(qi.nb_desc,
			    ms	? 1024 :
			    tso ? 2048 :
				  nb_max,
			    "ring held, %u segments, TSO %u", nseg, tso);
		VT_CHECK_EQ(pv->tx_wr_max_sges, 1024, "probed");
		h = udp_frame(pool, &mac1, 1, 2, 3, 4, 100, 9);
		VT_CHECK(h != NULL, "alloc");
		for (i = 1; i < nseg; i++) {
			seg = rte_pktmbuf_alloc(pool);
			VT_CHECK(seg != NULL, "alloc");
			memset(rte_pktmbuf_append(seg, 10), (int)i, 10);
			VT_CHECK_EQ(rte_pktmbuf_chain(h, seg), 0, "chain");
		}
		VT_CHECK_EQ(send_one(p0, h), 0, "send");
		VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "%u segments arrive",
			    nseg);
		VT_CHECK_EQ(r->pkt_len, 100 + 10 * (nseg - 1), "length");
		rte_pktmbuf_free(r);
	}
	VT_CHECK_EQ(ports_default(), 0, "ports back");
	return VT_OK;
}

/* Memory range of a pool's (single) chunk. */
static void
chunk_range(struct rte_mempool *mp, void *opaque,
	    struct rte_mempool_memhdr *memhdr, unsigned int idx)
{
	uintptr_t *r = opaque;

	RTE_SET_USED(mp);
	if (idx == 0) {
		r[0] = (uintptr_t)memhdr->addr;
		r[1] = (uintptr_t)memhdr->addr + memhdr->len;
	}
}

/*
 * A pool the port registered on first use is freed and a new one takes
 * its place, often at the same address: the Tx queue's cached lkey must
 * not outlive the registration, or the new pool's frames go out with a
 * dead lkey (a protection error on the device).
 */
static int
test_tx_pool_recycled(void)
{
	struct rte_mempool *a, *b;
	uintptr_t ra[2] = { 0, 0 };
	struct rte_mbuf *m, *r;
	int i, reused = 0;

	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, 0, 0), 0, "p1");
	a = rte_pktmbuf_pool_create("tx_recycle", 63, 0, 0,
				    RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	VT_CHECK(a != NULL, "pool a");
	rte_mempool_mem_iter(a, chunk_range, ra);
	m = udp_frame(a, &mac1, 1, 2, 3, 4, 100, 1);
	VT_CHECK(m != NULL, "alloc from a");
	VT_CHECK_EQ(send_one(p0, m), 0, "send from a");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "frame from a arrives");
	rte_pktmbuf_free(r);
	/* Stopping returns every Tx mbuf; the queue keeps its cache. */
	VT_CHECK_EQ(rte_eth_dev_stop(p0), 0, "stop");
	VT_CHECK_EQ(rte_mempool_avail_count(a), 63, "pool a whole again");
	rte_mempool_free(a);
	b = rte_pktmbuf_pool_create("tx_recycle", 63, 0, 0,
				    RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	VT_CHECK(b != NULL, "pool b");
	VT_CHECK_EQ(rte_eth_dev_start(p0), 0, "start");
	for (i = 0; i < 8; i++) {
		m = udp_frame(b, &mac1, 1, 2, 3, 4, 100, (uint8_t)i);
		VT_CHECK(m != NULL, "alloc from b");
		if ((uintptr_t)m->buf_addr >= ra[0] &&
		    (uintptr_t)m->buf_addr < ra[1])
			reused++;
		VT_CHECK_EQ(send_one(p0, m), 0, "send from b");
		VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1,
			    "frame %d from the new pool arrives", i);
		rte_pktmbuf_free(r);
	}
	if (reused == 0)
		printf("  note: pool b did not reuse pool a's memory\n");
	VT_CHECK_EQ(rte_eth_dev_stop(p0), 0, "stop");
	rte_mempool_free(b);
	return VT_OK;
}

static int
test_scatter_rx(void)
{
	struct rte_mempool *small;
	struct rte_mbuf *m, *r, *seg;
	uint8_t ref[1514];
	uint32_t off = 0;
	int ret;

	small = rte_pktmbuf_pool_create("rx_small", 1023, 0, 0,
					512 + RTE_PKTMBUF_HEADROOM, 0);
	VT_CHECK(small != NULL, "pool");
	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	/* 1514-byte frames in 512-byte buffers need the scatter offload. */
	ret = port_up(p1, 1, 0, 64, small, 0, 0);
	VT_CHECK(ret == -EINVAL, "no scatter accepted: %d", ret);
	ret = port_up(p1, 1, 0, 64, small, RTE_ETH_RX_OFFLOAD_SCATTER, 0);
	VT_CHECK_EQ(ret, 0, "with scatter");
	m = simple_frame(&mac1, 1514, 9);
	VT_CHECK(m != NULL, "alloc");
	memcpy(ref, rte_pktmbuf_mtod(m, void *), 1514);
	VT_CHECK_EQ(send_one(p0, m), 0, "send");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "receive");
	VT_CHECK_EQ(r->pkt_len, 1514, "pkt_len");
	VT_CHECK_EQ(r->nb_segs, 3, "segments");
	for (seg = r; seg != NULL; seg = seg->next) {
		VT_CHECK(off + seg->data_len <= 1514, "overrun");
		VT_CHECK(memcmp(rte_pktmbuf_mtod(seg, void *), ref + off,
				seg->data_len) == 0,
			 "segment at %u differs", off);
		off += seg->data_len;
	}
	VT_CHECK_EQ(off, 1514, "segment lengths");
	rte_pktmbuf_free(r);
	/* A small frame still takes one segment. */
	VT_CHECK_EQ(send_one(p0, simple_frame(&mac1, 80, 1)), 0, "send");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "receive");
	VT_CHECK_EQ(r->nb_segs, 1, "one segment");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_mempool_avail_count(small), 1023, "small pool leak");
	/* Queues must not keep using the pool once set up again. */
	VT_CHECK_EQ(ports_default(), 0, "default");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	rte_mempool_free(small);
	return VT_OK;
}

static uint32_t
predict_queue(const uint8_t *key, const uint16_t *reta, uint16_t reta_size,
	      uint32_t sip, uint32_t dip, uint16_t sport, uint16_t dport)
{
	union rte_thash_tuple t;
	uint32_t h;

	memset(&t, 0, sizeof(t));
	t.v4.src_addr = sip;
	t.v4.dst_addr = dip;
	t.v4.sport = sport;
	t.v4.dport = dport;
	h = rte_softrss((uint32_t *)&t, RTE_THASH_V4_L4_LEN, key);
	return reta[h % reta_size];
}

static int
rss_check(uint16_t nq, const uint8_t *key, const uint16_t *reta,
	  uint16_t reta_size, unsigned int npkts, uint32_t seed,
	  unsigned int *per_q)
{
	unsigned int i;

	rte_srand(seed);
	for (i = 0; i < npkts; i++) {
		uint32_t sip = 0x0a000000 + (rte_rand() & 0xffffff);
		uint32_t dip = 0xc0a80000 + (rte_rand() & 0xffff);
		uint16_t sport = (uint16_t)rte_rand();
		uint16_t dport = (uint16_t)rte_rand();
		uint32_t want = predict_queue(key, reta, reta_size, sip, dip,
					      sport, dport);
		uint8_t proto = (i & 1) ? IPPROTO_TCP : IPPROTO_UDP;
		struct rte_mbuf *r = NULL;
		int found = -1, round;
		uint16_t q;

		VT_CHECK_EQ(send_one(p0, l4_frame(pool, &mac1, proto, sip, dip,
						  sport, dport, 80, 0)),
			    0, "send");
		for (round = 0; round < POLL_ROUNDS && found < 0; round++) {
			for (q = 0; q < nq && found < 0; q++) {
				if (rte_eth_rx_burst(p1, q, &r, 1) == 1)
					found = q;
			}
		}
		VT_CHECK(found >= 0, "packet %u not received", i);
		rte_pktmbuf_free(r);
		VT_CHECK_EQ(found, want,
			    "packet %u (proto %u %08x:%u -> %08x:%u) on the wrong queue",
			    i, proto, sip, sport, dip, dport);
		per_q[found]++;
	}
	return VT_OK;
}

static int
test_rss_default_traffic(void)
{
	const uint64_t hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP | RTE_ETH_RSS_TCP;
	struct rte_eth_rss_reta_entry64 conf[8];
	struct rte_eth_rss_conf rc;
	struct rte_eth_dev_info info;
	uint8_t key[40];
	uint16_t reta[512];
	unsigned int per_q[4] = { 0 }, i;
	struct rte_mbuf *m, *r;
	int ret;

	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 4, hf, 128, NULL, 0, 0), 0, "p1 with RSS");
	VT_CHECK_EQ(rte_eth_dev_info_get(p1, &info), 0, "info");
	VT_CHECK(info.reta_size > 0 && info.reta_size <= 512, "reta size");
	VT_CHECK_EQ(info.hash_key_size, 40, "key size");
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = key;
	rc.rss_key_len = sizeof(key);
	VT_CHECK_EQ(rte_eth_dev_rss_hash_conf_get(p1, &rc), 0, "key");
	VT_CHECK_EQ(rc.rss_hf, hf, "types");
	memset(conf, 0, sizeof(conf));
	for (i = 0; i < info.reta_size / RTE_ETH_RETA_GROUP_SIZE; i++)
		conf[i].mask = UINT64_MAX;
	VT_CHECK_EQ(rte_eth_dev_rss_reta_query(p1, conf, info.reta_size), 0,
		    "reta");
	for (i = 0; i < info.reta_size; i++) {
		reta[i] = conf[i / 64].reta[i % 64];
		VT_CHECK_EQ(reta[i], i % 4, "default RETA is round-robin");
	}
	/* The first entries alone, as testpmd's `show port 1 rss reta 4
	 * (0xf)` asks; beyond the table or none: refused. */
	memset(conf, 0, sizeof(conf));
	conf[0].mask = 0xf;
	VT_CHECK_EQ(rte_eth_dev_rss_reta_query(p1, conf, 4), 0,
		    "query of 4 entries");
	for (i = 0; i < 4; i++)
		VT_CHECK_EQ(conf[0].reta[i], reta[i], "entry %u of 4", i);
	conf[0].mask = UINT64_MAX;
	VT_CHECK_EQ(rte_eth_dev_rss_reta_query(p1, conf, 64), 0,
		    "query of 64 entries");
	VT_CHECK_EQ(conf[0].reta[63], reta[63], "entry 63 of 64");
	for (i = 0; i < RTE_DIM(conf); i++)
		conf[i].mask = UINT64_MAX;
	VT_CHECK_EQ(rte_eth_dev_rss_reta_query(p1, conf, info.reta_size + 64),
		    -EINVAL, "beyond the table");
	/* An update of the first 4 entries leaves the others. */
	memset(conf, 0, sizeof(conf));
	conf[0].mask = 0xf;
	for (i = 0; i < 4; i++)
		conf[0].reta[i] = 3 - i;
	VT_CHECK_EQ(rte_eth_dev_rss_reta_update(p1, conf, 4), 0,
		    "update of 4 entries");
	for (i = 0; i < RTE_DIM(conf); i++)
		conf[i].mask = UINT64_MAX;
	VT_CHECK_EQ(rte_eth_dev_rss_reta_query(p1, conf, info.reta_size), 0,
		    "reta");
	for (i = 0; i < info.reta_size; i++)
		VT_CHECK_EQ(conf[i / 64].reta[i % 64], i < 4 ? 3 - i : i % 4,
			    "entry %u after a partial update", i);
	for (i = 0; i < 4; i++)
		conf[0].reta[i] = (uint16_t)(i % 4);
	VT_CHECK_EQ(rte_eth_dev_rss_reta_update(p1, conf, 4), 0,
		    "round-robin again");
	ret = rss_check(4, key, reta, info.reta_size, 64, 1, per_q);
	if (ret != VT_OK)
		return ret;
	for (i = 0; i < 4; i++)
		VT_CHECK(per_q[i] > 0, "queue %u got nothing of 64", i);

	/* Non-IP traffic is not hashed: the first RETA queue. */
	m = simple_frame(&mac1, 64, 0);
	VT_CHECK(m != NULL, "alloc");
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
		rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	VT_CHECK_EQ(send_one(p0, m), 0, "send");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "ARP on queue %u", reta[0]);
	rte_pktmbuf_free(r);

	/* A new RETA (queues 3, 2 only) and a new key take effect. */
	for (i = 0; i < info.reta_size; i++)
		conf[i / 64].reta[i % 64] = reta[i] = (i & 1) ? 2 : 3;
	VT_CHECK_EQ(rte_eth_dev_rss_reta_update(p1, conf, info.reta_size), 0,
		    "reta update");
	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0x6d + 13 * i);
	rc.rss_key = key;
	rc.rss_key_len = sizeof(key);
	rc.rss_hf = hf;
	VT_CHECK_EQ(rte_eth_dev_rss_hash_update(p1, &rc), 0, "key update");
	memset(per_q, 0, sizeof(per_q));
	ret = rss_check(4, key, reta, info.reta_size, 32, 2, per_q);
	if (ret != VT_OK)
		return ret;
	VT_CHECK(per_q[0] == 0 && per_q[1] == 0 && per_q[2] > 0 && per_q[3] > 0,
		 "RETA not followed: %u %u %u %u", per_q[0], per_q[1], per_q[2],
		 per_q[3]);
	/* Non-IP now goes to the new first RETA queue (3). */
	m = simple_frame(&mac1, 64, 0);
	VT_CHECK(m != NULL, "alloc");
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
		rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP);
	VT_CHECK_EQ(send_one(p0, m), 0, "send");
	VT_CHECK_EQ(recv_n(p1, 3, &r, 1), 1, "ARP on queue 3");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(drain(p1, 4), 0, "extra packets");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	return VT_OK;
}

/* The driver's RSS contexts, taken as its flow ops take them: under the
 * port's control lock (the helpers check it is held). */
static struct vsteer_rss *
rss_get(struct rte_eth_dev *dev, const uint8_t key[VSTEER_RSS_KEY_LEN],
	uint64_t hash_fields, const uint16_t *queues, uint32_t queues_n,
	uint32_t flags)
{
	struct vsteer_rss *rss;
	int err;

	vsteer_ctl_lock(dev->data->dev_private);
	rss = vsteer_rss_get(dev, key, hash_fields, queues, queues_n, flags);
	err = rte_errno;
	vsteer_ctl_unlock(dev->data->dev_private);
	rte_errno = err;
	return rss;
}

static void
rss_put(struct rte_eth_dev *dev, struct vsteer_rss *rss)
{
	vsteer_ctl_lock(dev->data->dev_private);
	vsteer_rss_put(dev, rss);
	vsteer_ctl_unlock(dev->data->dev_private);
}

/* Flow tags of completions become MARK (FDIR_ID) and FLAG (FDIR). The
 * rule is made with verbs directly, as the flow ops would make it. */
static int
flow_tag_case(uint32_t tag, uint64_t want_flags, uint32_t want_id)
{
	struct rte_eth_dev *dev = &rte_eth_devices[p1];
	struct {
		struct ibv_flow_attr attr;
		struct ibv_flow_spec_eth eth;
		struct ibv_flow_spec_action_tag tag;
	} rule; /* no padding: every spec is a multiple of 4 bytes */
	const uint8_t key[40] = { 1 };
	const uint16_t q0 = 0;
	struct vsteer_rss *rss;
	struct ibv_flow *flow;
	struct rte_mbuf *r;
	uint64_t fl;

	rss = rss_get(dev, key, 0, &q0, 1, 0);
	VT_CHECK(rss != NULL, "RSS context: %s", rte_strerror(rte_errno));
	RTE_BUILD_BUG_ON(sizeof(rule) != 20 + 40 + 12);
	memset(&rule, 0, sizeof(rule));
	rule.attr.type = IBV_FLOW_ATTR_NORMAL;
	rule.attr.size = sizeof(rule);
	rule.attr.priority = 0;
	rule.attr.num_of_specs = 2;
	rule.attr.port = 1;
	rule.eth.type = IBV_FLOW_SPEC_ETH;
	rule.eth.size = sizeof(rule.eth);
	memcpy(rule.eth.val.dst_mac, mac1.addr_bytes, 6);
	memset(rule.eth.mask.dst_mac, 0xff, 6);
	rule.tag.type = IBV_FLOW_SPEC_ACTION_TAG;
	rule.tag.size = sizeof(rule.tag);
	rule.tag.tag_id = tag;
	flow = ibv_create_flow(rss->qp, &rule.attr);
	VT_CHECK(flow != NULL, "tagged flow: %s", strerror(errno));
	VT_CHECK_EQ(send_one(p0, simple_frame(&mac1, 64, 0)), 0, "send");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "receive");
	fl = r->ol_flags & (RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID);
	VT_CHECK_EQ(fl, want_flags, "flags for tag 0x%x", tag);
	if (want_flags & RTE_MBUF_F_RX_FDIR_ID)
		VT_CHECK_EQ(r->hash.fdir.hi, want_id, "MARK id");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(ibv_destroy_flow(flow), 0, "destroy");
	rss_put(dev, rss);
	return VT_OK;
}

static int
test_flow_tag_to_mbuf(void)
{
	int ret;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	ret = flow_tag_case(0x42 + 1,
			    RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID, 0x42);
	if (ret == VT_OK)
		ret = flow_tag_case(0xffffff, RTE_MBUF_F_RX_FDIR, 0);
	if (ret == VT_OK)
		ret = flow_tag_case(1,
				    RTE_MBUF_F_RX_FDIR | RTE_MBUF_F_RX_FDIR_ID,
				    0);
	if (ret != VT_OK)
		return ret;
	/* The rule is gone: no tag any more. */
	return flow_tag_case(0, 0, 0);
}

static int
test_checksum_offload(void)
{
	const uint64_t tx_off = RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
				RTE_ETH_TX_OFFLOAD_TCP_CKSUM;
	const uint64_t good = RTE_MBUF_F_RX_IP_CKSUM_GOOD |
			      RTE_MBUF_F_RX_L4_CKSUM_GOOD;
	struct rte_eth_dev_info info;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *tcp;
	struct rte_mbuf *m, *r;
	uint16_t want_ip;

	VT_CHECK_EQ(rte_eth_dev_info_get(p0, &info), 0, "info");
	/* Tx: softverbs offers IBV_RAW_PACKET_CAP_IP_CSUM; Rx: the
	 * burst's verdicts, on every device. A port without them is a bug. */
	VT_CHECK((info.tx_offload_capa & tx_off) == tx_off &&
			 (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_CHECKSUM),
		 "checksum offloads: Tx 0x%" PRIx64 " Rx 0x%" PRIx64,
		 info.tx_offload_capa, info.rx_offload_capa);
	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, tx_off), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, RTE_ETH_RX_OFFLOAD_CHECKSUM,
			    0),
		    0, "p1");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	/* Correct checksums are reported good. */
	m = l4_frame(pool, &mac1, IPPROTO_TCP, 1, 2, 3, 4, 200, 0);
	VT_CHECK(m != NULL, "alloc");
	VT_CHECK_EQ(send_one(p0, m), 0, "send");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "receive");
	VT_CHECK_EQ(r->ol_flags & good, good, "checksums not reported good");
	rte_pktmbuf_free(r);
	/* Checksums left to the device are filled in. */
	m = l4_frame(pool, &mac1, IPPROTO_TCP, 5, 6, 7, 8, 200, 0);
	VT_CHECK(m != NULL, "alloc");
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
				     sizeof(struct rte_ether_hdr));
	tcp = (struct rte_tcp_hdr *)(ip + 1);
	want_ip = ip->hdr_checksum;
	ip->hdr_checksum = 0;
	tcp->cksum = 0;
	m->l2_len = sizeof(struct rte_ether_hdr);
	m->l3_len = sizeof(*ip);
	m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM |
		       RTE_MBUF_F_TX_TCP_CKSUM;
	VT_CHECK_EQ(send_one(p0, m), 0, "send");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "receive");
	ip = rte_pktmbuf_mtod_offset(r, struct rte_ipv4_hdr *,
				     sizeof(struct rte_ether_hdr));
	VT_CHECK_EQ(ip->hdr_checksum, want_ip, "IPv4 checksum not filled");
	VT_CHECK_EQ(rte_ipv4_udptcp_cksum_verify(ip, ip + 1), 0,
		    "TCP checksum not filled");
	VT_CHECK_EQ(r->ol_flags & good, good, "filled checksums not good");
	rte_pktmbuf_free(r);
	/* A bad IPv4 checksum is not reported good. */
	m = l4_frame(pool, &mac1, IPPROTO_TCP, 1, 2, 3, 4, 200, 0);
	VT_CHECK(m != NULL, "alloc");
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *,
				     sizeof(struct rte_ether_hdr));
	ip->hdr_checksum ^= 0x5555;
	VT_CHECK_EQ(send_one(p0, m), 0, "send");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 1, "receive");
	VT_CHECK_EQ(r->ol_flags & good, 0, "bad checksum reported good");
	rte_pktmbuf_free(r);
	return VT_OK;
}

static int
test_promisc_allmulti(void)
{
	const struct rte_ether_addr mc = { .addr_bytes = { 0x01, 0x00, 0x5e,
							   0x01, 0x02, 0x03 } };
	const struct rte_ether_addr v6mc = {
		.addr_bytes = { 0x33, 0x33, 0x00, 0x00, 0x00, 0x01 }
	};
	const struct rte_ether_addr bcast = {
		.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
	};
	struct rte_ether_addr mc_list[1] = { mc };
	uint64_t unsteered;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	VT_CHECK_EQ(rte_eth_promiscuous_get(p1), 0, "promisc off");
	VT_CHECK_EQ(delivered(&mac1), 1, "own MAC");
	unsteered = xstat(p1, "rx_unsteered_packets");
	VT_CHECK_EQ(delivered(&other_mac), 0, "other MAC without promisc");
#ifndef VT_RDMA_GLUE
	/* rdma-core has no such counter: 0 through its glue. */
	VT_CHECK_EQ(xstat(p1, "rx_unsteered_packets"), unsteered + 1,
		    "the drop is counted as unsteered");
#else
	VT_CHECK_EQ(xstat(p1, "rx_unsteered_packets"), 0, "no such counter");
	RTE_SET_USED(unsteered);
#endif
	VT_CHECK_EQ(delivered(&bcast), 1, "broadcast");
	VT_CHECK_EQ(delivered(&v6mc), 1, "IPv6 multicast");
	VT_CHECK_EQ(delivered(&mc), 0, "multicast without all-multicast");

	VT_CHECK_EQ(rte_eth_promiscuous_enable(p1), 0, "promisc on");
	VT_CHECK_EQ(delivered(&other_mac), 1, "other MAC in promisc");
	VT_CHECK_EQ(delivered(&mc), 1, "multicast in promisc");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc off");
	VT_CHECK_EQ(delivered(&other_mac), 0, "other MAC after promisc off");

	VT_CHECK_EQ(rte_eth_allmulticast_enable(p1), 0, "allmulti on");
	VT_CHECK_EQ(delivered(&mc), 1, "multicast in all-multicast");
	VT_CHECK_EQ(delivered(&other_mac), 0, "unicast in all-multicast");
	VT_CHECK_EQ(delivered(&mac1), 1, "own MAC in all-multicast");
	VT_CHECK_EQ(rte_eth_allmulticast_disable(p1), 0, "allmulti off");
	VT_CHECK_EQ(delivered(&mc), 0, "multicast after all-multicast");

	VT_CHECK_EQ(rte_eth_dev_set_mc_addr_list(p1, mc_list, 1), 0, "mc list");
	VT_CHECK_EQ(delivered(&mc), 1, "listed multicast");
	VT_CHECK_EQ(rte_eth_dev_set_mc_addr_list(p1, NULL, 0), 0, "mc flush");
	VT_CHECK_EQ(delivered(&mc), 0, "multicast after the list is flushed");
	VT_CHECK_EQ(drain(p1, 1), 0, "extra packets");
	return VT_OK;
}

static int
test_mac_filters(void)
{
	struct rte_ether_addr extra = { .addr_bytes = { 0x02, 0x11, 0x22, 0x33,
							0x44, 0x55 } };
	struct rte_ether_addr newdef = { .addr_bytes = { 0x02, 0x66, 0x77, 0x88,
							 0x99, 0x00 } };
	struct rte_ether_addr cur;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	VT_CHECK_EQ(delivered(&extra), 0, "unknown MAC");
	VT_CHECK_EQ(rte_eth_dev_mac_addr_add(p1, &extra, 0), 0, "mac add");
	VT_CHECK_EQ(delivered(&extra), 1, "added MAC");
	VT_CHECK_EQ(delivered(&mac1), 1, "default MAC still");
	VT_CHECK_EQ(rte_eth_dev_mac_addr_remove(p1, &extra), 0, "mac remove");
	VT_CHECK_EQ(delivered(&extra), 0, "removed MAC");

	VT_CHECK_EQ(rte_eth_dev_default_mac_addr_set(p1, &newdef), 0, "set");
	VT_CHECK_EQ(delivered(&newdef), 1, "new default MAC");
	VT_CHECK_EQ(delivered(&mac1), 0, "old default MAC");
	/* Filters survive stop/start. */
	VT_CHECK_EQ(rte_eth_dev_mac_addr_add(p1, &extra, 0), 0, "mac add");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_start(p1), 0, "start");
	VT_CHECK_EQ(delivered(&extra), 1, "added MAC after restart");
	VT_CHECK_EQ(delivered(&newdef), 1, "default MAC after restart");
	VT_CHECK_EQ(rte_eth_dev_mac_addr_remove(p1, &extra), 0, "mac remove");
	VT_CHECK_EQ(rte_eth_dev_default_mac_addr_set(p1, &mac1), 0, "restore");
	VT_CHECK_EQ(rte_eth_macaddr_get(p1, &cur), 0, "get");
	VT_CHECK(rte_is_same_ether_addr(&cur, &mac1), "default MAC restored");
	VT_CHECK_EQ(delivered(&mac1), 1, "restored MAC");
	return VT_OK;
}

static int
test_stats_xstats(void)
{
	struct rte_mbuf *m[BURST];
	struct rte_eth_stats s0, s1;
	struct rte_eth_xstat_name *names;
	unsigned int i;
	int n, k, has_q, has_nobuf;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	VT_CHECK_EQ(rte_eth_stats_reset(p0), 0, "reset p0");
	VT_CHECK_EQ(rte_eth_xstats_reset(p1), 0, "reset p1");
	for (i = 0; i < 20; i++)
		m[i] = simple_frame(&mac1, (uint16_t)(100 + i), 0);
	VT_CHECK_EQ(send_all(p0, 0, m, 20), 20, "send");
	VT_CHECK_EQ(recv_n(p1, 0, m, 20), 20, "receive");
	rte_pktmbuf_free_bulk(m, 20);
	VT_CHECK_EQ(rte_eth_stats_get(p0, &s0), 0, "stats p0");
	VT_CHECK_EQ(rte_eth_stats_get(p1, &s1), 0, "stats p1");
	VT_CHECK_EQ(s0.opackets, 20, "opackets");
	VT_CHECK_EQ(s0.obytes, 20 * 100 + 190, "obytes");
	VT_CHECK_EQ(s1.ipackets, 20, "ipackets");
	VT_CHECK_EQ(s1.ibytes, 20 * 100 + 190, "ibytes");
	VT_CHECK_EQ(s1.q_ipackets[0], 20, "q0 ipackets");
	VT_CHECK_EQ(s1.imissed, 0, "imissed");
	VT_CHECK_EQ(xstat(p1, "rx_q0_packets"), 20, "per-queue xstat");
	VT_CHECK_EQ(xstat(p1, "rx_good_bytes"), 20 * 100 + 190,
		    "rx_good_bytes");
	n = rte_eth_xstats_get_names(p1, NULL, 0);
	VT_CHECK(n > 0, "xstats count");
	names = calloc(n, sizeof(*names));
	VT_CHECK(names != NULL, "calloc");
	k = rte_eth_xstats_get_names(p1, names, n);
	has_q = has_nobuf = 0;
	for (i = 0; i < (unsigned int)k; i++) {
		has_q |= strcmp(names[i].name,
				"rx_q0_mbuf_allocation_errors") == 0;
		has_nobuf |= strcmp(names[i].name, "rx_no_buffer_packets") == 0;
	}
	free(names);
	VT_CHECK(has_q && has_nobuf, "driver xstats missing");
	VT_CHECK_EQ(rte_eth_stats_reset(p1), 0, "reset");
	VT_CHECK_EQ(rte_eth_stats_get(p1, &s1), 0, "stats");
	VT_CHECK_EQ(s1.ipackets, 0, "reset ipackets");
	VT_CHECK_EQ(xstat(p1, "rx_q0_packets"), 0, "reset xstat");
	return VT_OK;
}

/* A ring smaller than what arrives at once: drops for lack of buffers. */
static int
test_no_buffer_drops(void)
{
	struct rte_mbuf *m[64];
	struct rte_eth_stats st;
	unsigned int i, got;

	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 1, 0, 16, NULL, 0, 0), 0, "p1, 16 buffers");
	VT_CHECK_EQ(rte_eth_stats_reset(p1), 0, "reset");
	/* Nothing polls p1 while 48 frames reach it. */
	for (i = 0; i < 48; i++)
		m[i] = simple_frame(&mac1, 64, 0);
	VT_CHECK_EQ(send_all(p0, 0, m, 48), 48, "send");
	got = drain(p1, 1);
	VT_CHECK_EQ(rte_eth_stats_get(p1, &st), 0, "stats");
	VT_CHECK(got < 48, "all 48 frames fit in 16 buffers?");
	VT_CHECK_EQ(st.ipackets, got, "ipackets");
	VT_CHECK_EQ(st.imissed, 48 - got, "imissed counts the drops");
	VT_CHECK_EQ(xstat(p1, "rx_no_buffer_packets"), 48 - got, "xstat");
	VT_CHECK(st.imissed >= 16, "at least 16 drops: %" PRIu64, st.imissed);
	return VT_OK;
}

/* An exhausted pool: packets dropped for want of a replacement mbuf. */
static int
test_rx_nombuf(void)
{
	struct rte_mempool *tiny;
	struct rte_mbuf *held[8], *m[16];
	struct rte_eth_stats st;
	unsigned int i, got;

	tiny = rte_pktmbuf_pool_create("rx_tiny", 20, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	VT_CHECK(tiny != NULL, "pool");
	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	/* 16 buffers posted, 4 left in the pool. */
	VT_CHECK_EQ(port_up(p1, 1, 0, 16, tiny, 0, 0), 0, "p1");
	VT_CHECK_EQ(rte_mempool_avail_count(tiny), 4, "4 spare mbufs");
	VT_CHECK_EQ(rte_eth_stats_reset(p1), 0, "reset");
	for (i = 0; i < 10; i++)
		m[i] = simple_frame(&mac1, 64, 0);
	VT_CHECK_EQ(send_all(p0, 0, m, 10), 10, "send");
	got = recv_n(p1, 0, held, 8);
	VT_CHECK_EQ(got, 4, "only 4 replacements exist");
	VT_CHECK_EQ(rte_eth_stats_get(p1, &st), 0, "stats");
	VT_CHECK_EQ(st.ipackets, 4, "ipackets");
	VT_CHECK_EQ(st.rx_nombuf, 6, "rx_nombuf");
	VT_CHECK_EQ(xstat(p1, "rx_q0_mbuf_allocation_errors"), 6, "xstat");
	rte_pktmbuf_free_bulk(held, got);
	/* With mbufs back the queue works again. */
	VT_CHECK_EQ(delivered(&mac1), 1, "after the pool refilled");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_mempool_avail_count(tiny), 20, "tiny pool leak");
	VT_CHECK_EQ(ports_default(), 0, "default");
	rte_mempool_free(tiny);
	return VT_OK;
}

/* Many bursts both ways: completions, ring wrap, restart, no leaks. */
static int
test_volume_restart(void)
{
	struct rte_mbuf *m[BURST];
	unsigned int round, sent = 0, got = 0;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	for (round = 0; round < 2; round++) {
		unsigned int b;

		sent = got = 0;
		for (b = 0; b < 200; b++) {
			unsigned int i;
			uint16_t k;

			for (i = 0; i < BURST; i++)
				m[i] = simple_frame(&mac1, 60, 0);
			sent += send_all(p0, 0, m, BURST);
			do {
				k = rte_eth_rx_burst(p1, 0, m, BURST);
				rte_pktmbuf_free_bulk(m, k);
				got += k;
			} while (k > 0);
		}
		got += drain(p1, 1);
		VT_CHECK_EQ(sent, 200 * BURST, "sent");
		VT_CHECK_EQ(got, sent, "round %u: received", round);
		VT_CHECK_EQ(rte_eth_dev_stop(p0), 0, "stop");
		VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
		VT_CHECK_EQ(rte_mempool_avail_count(pool), NB_MBUF,
			    "mbufs leaked: %u in use",
			    rte_mempool_in_use_count(pool));
		VT_CHECK_EQ(rte_eth_dev_start(p0), 0, "start");
		VT_CHECK_EQ(rte_eth_dev_start(p1), 0, "start");
		VT_CHECK_EQ(rte_eth_promiscuous_get(p1), 0, "promisc kept off");
	}
	return VT_OK;
}

/* testpmd's io forwarding right after start: a burst each way, then
 * every received packet is sent back out of the other port. */
static int
test_forward_pingpong(void)
{
	struct rte_mbuf *m[BURST];
	uint64_t moved = 0;
	unsigned int i, iter;
	uint16_t k, t;

	VT_CHECK_EQ(port_up(p0, 1, 0, 512, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 1, 0, 512, NULL, 0, 0), 0, "p1");
	VT_CHECK_EQ(rte_eth_promiscuous_enable(p1), 0, "promisc");
	VT_CHECK_EQ(rte_eth_promiscuous_enable(p0), 0, "promisc");
	for (i = 0; i < BURST; i++)
		m[i] = simple_frame(&other_mac, 64, 0);
	VT_CHECK_EQ(send_all(p0, 0, m, BURST), BURST, "first burst p0");
	for (i = 0; i < BURST; i++)
		m[i] = simple_frame(&other_mac, 64, 0);
	VT_CHECK_EQ(send_all(p1, 0, m, BURST), BURST, "first burst p1");
	for (iter = 0; iter < 2000; iter++) {
		k = rte_eth_rx_burst(p0, 0, m, BURST);
		t = rte_eth_tx_burst(p1, 0, m, k);
		rte_pktmbuf_free_bulk(m + t, k - t);
		moved += t;
		k = rte_eth_rx_burst(p1, 0, m, BURST);
		t = rte_eth_tx_burst(p0, 0, m, k);
		rte_pktmbuf_free_bulk(m + t, k - t);
		moved += t;
	}
	VT_CHECK(moved >= 2000 * 2 * BURST / 2,
		 "forwarding stalled after %" PRIu64 " packets", moved);
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p0), 0, "promisc");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	drain(p0, 1);
	drain(p1, 1);
	return VT_OK;
}

/* ---- the port as a NIC: MTU, Tx accounting, statistics, offloads ---- */

static struct vsteer_priv *
port_priv(uint16_t port)
{
	return rte_eth_devices[port].data->dev_private;
}

#ifndef VT_RDMA_GLUE
/* MTU of the port's device (the in-memory link end). */
static unsigned int
dev_mtu(uint16_t port)
{
	unsigned int mtu = 0, max = 0;

	if (softverbs_port_mtu(port_priv(port)->ctx, 1, &mtu, &max) != 0)
		return 0;
	return mtu;
}
#endif

/* What a test frame is made of. */
struct fspec {
	const struct rte_ether_addr *dst;
	uint16_t tpid; /* outer tag, 0: untagged */
	uint16_t tci;
	bool v6;
	uint8_t ihl; /* IPv4 header in words; 0: 5 */
	uint8_t proto;
	uint16_t frag; /* IPv4 fragment_offset field */
	uint16_t payload;
	bool bad_ip;   /* IPv4 header checksum wrong */
	bool bad_l4;   /* TCP/UDP checksum wrong */
	bool udp_zero; /* UDP checksum 0: none */
};

/* A frame as fspec says, its checksums computed by DPDK's helpers (the
 * oracle) and then broken where asked. */
static struct rte_mbuf *
build(struct rte_mempool *mp, const struct fspec *f)
{
	uint16_t l2 = RTE_ETHER_HDR_LEN + (f->tpid ? RTE_VLAN_HLEN : 0);
	uint16_t ihl = f->ihl ? f->ihl : 5, l3, l4h, len, i;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eth;
	uint8_t *p, *l4;

	if (m == NULL)
		return NULL;
	l3 = f->v6 ? sizeof(struct rte_ipv6_hdr) : ihl * 4;
	l4h = f->proto == IPPROTO_TCP ? sizeof(struct rte_tcp_hdr) :
	      f->proto == IPPROTO_UDP ? sizeof(struct rte_udp_hdr) :
					8;
	len = l2 + l3 + l4h + f->payload;
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0, len);
	eth = (struct rte_ether_hdr *)p;
	eth->dst_addr = *f->dst;
	eth->src_addr = mac0;
	if (f->tpid) {
		struct rte_vlan_hdr *vh = (struct rte_vlan_hdr *)(eth + 1);

		eth->ether_type = rte_cpu_to_be_16(f->tpid);
		vh->vlan_tci = rte_cpu_to_be_16(f->tci);
		vh->eth_proto = rte_cpu_to_be_16(f->v6 ? RTE_ETHER_TYPE_IPV6 :
							 RTE_ETHER_TYPE_IPV4);
	} else {
		eth->ether_type = rte_cpu_to_be_16(f->v6 ? RTE_ETHER_TYPE_IPV6 :
							   RTE_ETHER_TYPE_IPV4);
	}
	l4 = p + l2 + l3;
	for (i = l2 + l3 + l4h; i < len; i++)
		p[i] = (uint8_t)(i * 7);
	if (f->proto == IPPROTO_TCP) {
		struct rte_tcp_hdr *t = (struct rte_tcp_hdr *)l4;

		t->src_port = RTE_BE16(1234);
		t->dst_port = RTE_BE16(80);
		t->data_off = (sizeof(*t) / 4) << 4;
		t->tcp_flags = RTE_TCP_ACK_FLAG;
	} else if (f->proto == IPPROTO_UDP) {
		struct rte_udp_hdr *u = (struct rte_udp_hdr *)l4;

		u->src_port = RTE_BE16(1234);
		u->dst_port = RTE_BE16(53);
		u->dgram_len = rte_cpu_to_be_16(l4h + f->payload);
	} else {
		l4[0] = 8; /* ICMP echo request */
	}
	if (f->v6) {
		struct rte_ipv6_hdr *ip = (struct rte_ipv6_hdr *)(p + l2);

		ip->vtc_flow = RTE_BE32(6u << 28);
		ip->payload_len = rte_cpu_to_be_16(l4h + f->payload);
		ip->proto = f->proto;
		ip->hop_limits = 64;
		ip->src_addr[0] = 0x20;
		ip->src_addr[15] = 1;
		ip->dst_addr[0] = 0x20;
		ip->dst_addr[15] = 2;
		if (f->proto == IPPROTO_TCP)
			((struct rte_tcp_hdr *)l4)->cksum =
				rte_ipv6_udptcp_cksum(ip, l4);
		else if (f->proto == IPPROTO_UDP && !f->udp_zero)
			((struct rte_udp_hdr *)l4)->dgram_cksum =
				rte_ipv6_udptcp_cksum(ip, l4);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(p + l2);

		ip->version_ihl = (uint8_t)(0x40 | ihl);
		ip->total_length = rte_cpu_to_be_16(l3 + l4h + f->payload);
		ip->fragment_offset = rte_cpu_to_be_16(f->frag);
		ip->time_to_live = 64;
		ip->next_proto_id = f->proto;
		ip->src_addr = RTE_BE32(0xc0000201); /* 192.0.2.1 */
		ip->dst_addr = RTE_BE32(0xc6336402); /* 198.51.100.2 */
		/* Options: no-operation. */
		memset(ip + 1, 1, l3 - sizeof(*ip));
		if (f->proto == IPPROTO_TCP)
			((struct rte_tcp_hdr *)l4)->cksum =
				rte_ipv4_udptcp_cksum(ip, l4);
		else if (f->proto == IPPROTO_UDP && !f->udp_zero)
			((struct rte_udp_hdr *)l4)->dgram_cksum =
				rte_ipv4_udptcp_cksum(ip, l4);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		if (f->bad_ip)
			ip->hdr_checksum ^= RTE_BE16(0x0101);
	}
	if (f->bad_l4 && f->proto == IPPROTO_TCP)
		((struct rte_tcp_hdr *)l4)->cksum ^= RTE_BE16(0x0404);
	if (f->bad_l4 && f->proto == IPPROTO_UDP)
		((struct rte_udp_hdr *)l4)->dgram_cksum ^= RTE_BE16(0x0404);
	return m;
}

/* Send one frame from p0, return what p1 got (NULL if nothing). */
static struct rte_mbuf *
through_on(uint16_t tx, uint16_t rx, struct rte_mbuf *m)
{
	struct rte_mbuf *r = NULL;

	if (m == NULL || send_one(tx, m) != 0)
		return NULL;
	if (recv_n(rx, 0, &r, 1) != 1)
		return NULL;
	return r;
}

static struct rte_mbuf *
through(struct rte_mbuf *m)
{
	return through_on(p0, p1, m);
}

#ifndef VT_RDMA_GLUE
/*
 * The MTU is the device's: applied when set (started or not) and at start
 * (the configured one), limited by what the device takes, refused cleanly
 * beyond; frames up to it go through, jumbo ones included.
 */
/* The largest MTU softverbs' links take (an mlx5 netdev's) and its frame. */
#define JUMBO_MTU 9978
#define JUMBO_FRAME (JUMBO_MTU + RTE_ETHER_HDR_LEN)
static uint8_t jumbo_scratch[JUMBO_FRAME];

/* Take every mbuf pool still has (up to n) into out: how many. */
static int
drain_pool(struct rte_mempool *mp, struct rte_mbuf **out, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		out[i] = rte_pktmbuf_alloc(mp);
		if (out[i] == NULL)
			break;
	}
	return (int)i;
}

static int
test_mtu_on_device(void)
{
	static struct rte_mbuf *drained[NB_MBUF];
	struct rte_mempool *jumbo;
	struct rte_eth_dev_info info;
	struct rte_mbuf *m, *r;
	uint16_t mtu = 0;
	uint8_t ref[JUMBO_FRAME];
	char log[4096];
	int ret;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	VT_CHECK_EQ(rte_eth_dev_info_get(p0, &info), 0, "info");
	VT_CHECK_EQ(info.max_mtu, JUMBO_MTU, "the link's largest MTU");
	VT_CHECK_EQ(info.max_rx_pktlen, JUMBO_MTU + VSTEER_FRAME_OVERHEAD,
		    "max_rx_pktlen");
	VT_CHECK_EQ(dev_mtu(p0), RTE_ETHER_MTU, "configured 1500 applied");

	/* Set on a started port: on the device at once. */
	VT_CHECK_EQ(rte_eth_dev_set_mtu(p0, 1600), 0, "MTU 1600");
	VT_CHECK_EQ(dev_mtu(p0), 1600, "on the device");
	VT_CHECK_EQ(rte_eth_dev_get_mtu(p0, &mtu), 0, "get");
	VT_CHECK_EQ(mtu, 1600, "ethdev MTU");
	VT_CHECK_EQ(rte_eth_dev_set_mtu(p1, 1600), 0, "MTU 1600 on p1");
	m = simple_frame(&mac1, 1600 + RTE_ETHER_HDR_LEN, 3);
	VT_CHECK(m != NULL, "alloc");
	memcpy(ref, rte_pktmbuf_mtod(m, void *), 1614);
	r = through(m);
	VT_CHECK(r != NULL, "a 1614-byte frame at MTU 1600");
	VT_CHECK(r->pkt_len == 1614 &&
			 memcmp(rte_pktmbuf_mtod(r, void *), ref, 1614) == 0,
		 "intact");
	rte_pktmbuf_free(r);
	/* Beyond the device: refused, nothing changed. */
	VT_CHECK(rte_eth_dev_set_mtu(p0, JUMBO_MTU + 1) < 0, "beyond refused");
	VT_CHECK_EQ(dev_mtu(p0), 1600, "device unchanged");
	/* Beyond the Rx buffers (no scatter): refused before the device,
	 * saying that scatter is the way. */
	log_capture_begin();
	ret = rte_eth_dev_set_mtu(p1, 3000);
	log_capture_end(log, sizeof(log));
	VT_CHECK_EQ(ret, -EINVAL, "Rx buffers");
	VT_CHECK(strstr(log, "enable the Rx scatter offload") != NULL,
		 "the refusal names scatter: %s", log);
	VT_CHECK_EQ(dev_mtu(p1), 1600, "device unchanged");
	/* Stopped, the port takes it (the queues may be set up again before
	 * the start, as Open vSwitch does) and refuses to start until they
	 * are; the device gets it at the start, so the failed start leaves
	 * it as it was. */
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_set_mtu(p1, 3000), 0, "MTU 3000, stopped");
	VT_CHECK_EQ(dev_mtu(p1), 1600, "on the device at the start only");
	VT_CHECK_EQ(rte_eth_dev_start(p1), -EINVAL, "start, Rx buffers");
	VT_CHECK_EQ(dev_mtu(p1), 1600, "a failed start leaves the device");
	/* A start that fails after the device took the MTU (no mbuf left
	 * to post) gives the device its MTU back. */
	VT_CHECK_EQ(rte_eth_dev_set_mtu(p1, 1500), 0, "MTU 1500, stopped");
	ret = drain_pool(pool, drained, RTE_DIM(drained));
	VT_CHECK(ret > 0, "pool drained");
	VT_CHECK(rte_eth_dev_start(p1) < 0, "start without mbufs");
	rte_pktmbuf_free_bulk(drained, (unsigned int)ret);
	VT_CHECK_EQ(dev_mtu(p1), 1600, "MTU back after the failed start");
	VT_CHECK_EQ(rte_eth_dev_start(p1), 0, "start with mbufs");
	VT_CHECK_EQ(dev_mtu(p1), 1500, "now on the device");

	/* The configured MTU goes to the device at start. */
	port_up_mtu = 1400;
	ret = port_up(p0, 1, 0, 256, NULL, 0, 0);
	port_up_mtu = 0;
	VT_CHECK_EQ(ret, 0, "MTU 1400 configured");
	VT_CHECK_EQ(dev_mtu(p0), 1400, "applied at start");

	/* Jumbo frames: the largest MTU on both ends, scattered on receive. */
	jumbo = rte_pktmbuf_pool_create("jumbo", 63, 0, 0,
					JUMBO_FRAME + RTE_PKTMBUF_HEADROOM, 0);
	VT_CHECK(jumbo != NULL, "jumbo pool");
	port_up_mtu = JUMBO_MTU;
	ret = port_up(p0, 1, 0, 64, NULL, RTE_ETH_RX_OFFLOAD_SCATTER, 0);
	if (ret == 0)
		ret = port_up(p1, 1, 0, 64, NULL, RTE_ETH_RX_OFFLOAD_SCATTER,
			      0);
	port_up_mtu = 0;
	VT_CHECK_EQ(ret, 0, "jumbo ports, scatter");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	VT_CHECK_EQ(dev_mtu(p0), JUMBO_MTU, "jumbo on the device");
	m = udp_frame(jumbo, &mac1, 1, 2, 3, 4, JUMBO_FRAME, 5);
	VT_CHECK(m != NULL, "alloc");
	memcpy(ref, rte_pktmbuf_mtod(m, void *), JUMBO_FRAME);
	r = through(m);
	VT_CHECK(r != NULL, "a %u-byte frame", JUMBO_FRAME);
	VT_CHECK_EQ(r->pkt_len, JUMBO_FRAME, "length");
	VT_CHECK(rte_pktmbuf_read(r, 0, JUMBO_FRAME, jumbo_scratch) != NULL &&
			 memcmp(rte_pktmbuf_read(r, 0, JUMBO_FRAME,
						 jumbo_scratch),
				ref, JUMBO_FRAME) == 0,
		 "intact");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(ports_default(), 0, "back to 1500");
	VT_CHECK_EQ(dev_mtu(p0), RTE_ETHER_MTU, "1500 again");
	rte_mempool_free(jumbo);
	return VT_OK;
}
#endif

/* Frames longer than the MTU never reach the device: dropped, counted as
 * errors, and the frames around them go out and count as sent. */
static int
test_tx_oversize_dropped(void)
{
	static const uint16_t lens[] = { 64, 2000, 64, 1519, 100, 1518, 64 };
	struct rte_mbuf *m[RTE_DIM(lens)], *r[RTE_DIM(lens) + 1];
	struct rte_eth_stats st0, st1;
	uint64_t bytes = 0;
	unsigned int i, k = 0;
	uint16_t got;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	VT_CHECK_EQ(rte_eth_stats_reset(p0), 0, "reset");
	VT_CHECK_EQ(rte_eth_stats_reset(p1), 0, "reset");
	for (i = 0; i < RTE_DIM(lens); i++) {
		m[i] = simple_frame(&mac1, lens[i], (uint8_t)i);
		VT_CHECK(m[i] != NULL, "alloc");
		if (lens[i] <=
		    RTE_ETHER_MTU + RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)
			bytes += lens[i];
	}
	VT_CHECK_EQ(send_all(p0, 0, m, RTE_DIM(lens)), RTE_DIM(lens),
		    "every frame taken");
	got = recv_n(p1, 0, r, RTE_DIM(lens) + 1);
	VT_CHECK_EQ(got, 5, "the 5 frames within MTU + 18 arrive");
	for (i = 0; i < RTE_DIM(lens); i++) {
		if (lens[i] > 1518)
			continue;
		VT_CHECK_EQ(r[k]->pkt_len, lens[i], "frame %u in order", k);
		k++;
	}
	rte_pktmbuf_free_bulk(r, got);
	VT_CHECK_EQ(rte_eth_stats_get(p0, &st0), 0, "stats");
	VT_CHECK_EQ(rte_eth_stats_get(p1, &st1), 0, "stats");
	VT_CHECK_EQ(st0.opackets, st1.ipackets, "sent == received");
	VT_CHECK_EQ(st0.opackets, 5, "opackets");
	VT_CHECK_EQ(st0.obytes, bytes, "obytes");
	VT_CHECK_EQ(st0.oerrors, 2, "the two long frames are errors");
	VT_CHECK_EQ(xstat(p0, "tx_q0_dropped_packets"), 2, "dropped");
	VT_CHECK_EQ(xstat(p0, "tx_q0_completion_errors"), 0,
		    "none reached the device");
	VT_CHECK_EQ(xstat(p0, "tx_q0_send_queue_resets"), 0, "no reset");
	return VT_OK;
}

/*
 * The device fails a frame the driver let through (its MTU changed behind
 * the port's back): the send queue goes to error and flushes the frames
 * after it. The next burst notices, counts them as errors, and the queue
 * works again at once. Every frame counted as sent arrived.
 */
static int
test_tx_device_error_recovery(void)
{
	static const uint16_t lens[] = { 64, 1200, 80, 90 };
	struct rte_mbuf *m[8], *r[8];
	struct rte_eth_stats st0, st1;
	unsigned int i;
	uint16_t got;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	VT_CHECK_EQ(rte_eth_stats_reset(p0), 0, "reset");
	VT_CHECK_EQ(rte_eth_stats_reset(p1), 0, "reset");
	VT_CHECK_EQ(softverbs_port_set_mtu(port_priv(p0)->ctx, 1, 1000), 0,
		    "the link end's MTU drops to 1000 under the driver");
	for (i = 0; i < RTE_DIM(lens); i++)
		m[i] = simple_frame(&mac1, lens[i], (uint8_t)i);
	VT_CHECK_EQ(send_all(p0, 0, m, RTE_DIM(lens)), RTE_DIM(lens), "burst");
	got = recv_n(p1, 0, r, 8);
	VT_CHECK_EQ(got, 1, "only the frame before the failed one went out");
	VT_CHECK_EQ(r[0]->pkt_len, 64, "that one");
	rte_pktmbuf_free_bulk(r, got);
	VT_CHECK_EQ(rte_eth_stats_get(p0, &st0), 0, "stats");
	VT_CHECK_EQ(st0.opackets, 1, "one sent");
	VT_CHECK_EQ(st0.obytes, 64, "its bytes");
	VT_CHECK_EQ(st0.oerrors, 3, "the failed frame and the two flushed");
	VT_CHECK_EQ(xstat(p0, "tx_q0_completion_errors"), 3, "completions");
	/* The very next burst works. */
	for (i = 0; i < 4; i++)
		m[i] = simple_frame(&mac1, 70, (uint8_t)(10 + i));
	VT_CHECK_EQ(send_all(p0, 0, m, 4), 4, "burst after the error");
	got = recv_n(p1, 0, r, 8);
	VT_CHECK_EQ(got, 4, "all four arrive: the queue recovered at once");
	rte_pktmbuf_free_bulk(r, got);
	VT_CHECK_EQ(xstat(p0, "tx_q0_send_queue_resets"), 1, "one reset");
	VT_CHECK_EQ(rte_eth_stats_get(p0, &st0), 0, "stats");
	VT_CHECK_EQ(rte_eth_stats_get(p1, &st1), 0, "stats");
	VT_CHECK_EQ(st0.opackets, st1.ipackets, "sent == received");
	VT_CHECK_EQ(st0.opackets, 5, "opackets");
	VT_CHECK_EQ(st0.oerrors, 3, "oerrors");
	VT_CHECK_EQ(softverbs_port_set_mtu(port_priv(p0)->ctx, 1,
					   RTE_ETHER_MTU),
		    0, "restore");
	VT_CHECK_EQ(rte_eth_dev_stop(p0), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_mempool_avail_count(pool), NB_MBUF,
		    "mbufs leaked: %u in use", rte_mempool_in_use_count(pool));
	return VT_OK;
}

/* ---- What the device can do: the probes, and their consequences ---- */

#ifdef VT_RDMA_GLUE
/* What the rdma-core glue took from sysfs and libmlx5: the MAC address of
 * the bound netdev, a DevX context, memory registered through it. */
static int
test_rdma_glue_sysfs(void)
{
	struct vsteer_priv *pv = priv_of(p0);
	uint8_t mac[6];

	VT_CHECK(pv->glue == &vsteer_glue_rdma, "the rdma-core glue");
	VT_CHECK_EQ(softverbs_port_mac(pv->ctx, 1, mac), 0, "device MAC");
	VT_CHECK(memcmp(mac, mac0.addr_bytes, 6) == 0,
		 "port MAC from <ibdev_path>/device/net/*/address");
	VT_CHECK(sv_ctx(pv->ctx)->devx, "opened for DevX");
	VT_CHECK(vt_rdma_calls.dv_open_devx >= 2, "mlx5dv_open_device(DEVX)");
	VT_CHECK_EQ(port_up(p0, 1, 0, 64, NULL, 0, 0), 0, "p0");
	VT_CHECK(vt_rdma_calls.reg_mr > 0, "mempools registered through it");
	return VT_OK;
}
#endif

/* Two ports (a sends, b receives) on a link of their own, the device made
 * with softverbs options: through the softverbs glue (devargs), or in the
 * rdma build as rdma-core devices (the options set on the device). */
struct vt_pair {
	char link[48];
	uint16_t a, b;
};

static int
vt_pair_open(struct vt_pair *pp, const char *tag, int generic, uint32_t prios,
	     uint32_t lacks, uint32_t flex)
{
	char args[2][192];
	unsigned int i;

	/* What a failed case left behind must not fail the next one. */
	rte_vdev_uninit("net_vsteer_pa");
	rte_vdev_uninit("net_vsteer_pb");
	snprintf(pp->link, sizeof(pp->link), "%s-%s", link_a, tag);
#ifdef VT_RDMA_GLUE
	if (vt_rdma_pair(pp->link, generic, prios, lacks, flex, pp->link,
			 rdma_base) != 0)
		return -1;
	for (i = 0; i < 2; i++)
		snprintf(args[i], sizeof(args[i]), "dev=%s%c", pp->link,
			 'a' + i);
#else
	for (i = 0; i < 2; i++) {
		char prio[32] = "";

		if (prios != 0)
			snprintf(prio, sizeof(prio), ",sv_flow_prios=%u",
				 prios);
		snprintf(args[i], sizeof(args[i]), "dev=mem:%s%s%s%s%s%s%s%s",
			 pp->link, generic ? ",profile=generic" : "", prio,
			 (lacks & SV_DEV_NO_DEVX) ? ",sv_devx=0" : "",
			 (lacks & SV_DEV_NO_TUNNEL_OFFLOADS) ?
				 ",sv_tunnel_offloads=0" :
				 "",
			 (lacks & SV_DEV_NO_VERBS_EGRESS) ?
				 ",sv_verbs_egress=0" :
				 "",
			 (lacks & SV_DEV_NO_IPV4_IHL) ? ",sv_ipv4_ihl=0" : "",
			 flex ? ",sv_flex_parser=1" : "");
	}
#endif
	if (rte_vdev_init("net_vsteer_pa", args[0]) != 0 ||
	    rte_vdev_init("net_vsteer_pb", args[1]) != 0 ||
	    rte_eth_dev_get_port_by_name("net_vsteer_pa", &pp->a) != 0 ||
	    rte_eth_dev_get_port_by_name("net_vsteer_pb", &pp->b) != 0)
		return -1;
	return 0;
}

/* Close both ports; the devices go only if nothing was left in them. */
static int
vt_pair_close(struct vt_pair *pp)
{
	int ret = 0;

	rte_eth_dev_stop(pp->a);
	rte_eth_dev_stop(pp->b);
	if (rte_eth_dev_close(pp->a) != 0 || rte_eth_dev_close(pp->b) != 0)
		ret = -1;
	rte_vdev_uninit("net_vsteer_pa");
	rte_vdev_uninit("net_vsteer_pb");
#ifdef VT_RDMA_GLUE
	if (vt_rdma_pair_remove(pp->link, pp->link) != 0)
		ret = -1;
#endif
	return ret;
}

/* ---- port offloads from the device's capabilities ---- */

/* An Ethernet/IPv4/TCP packet for segmentation into mss-byte frames. */
static void
tso_mark(struct rte_mbuf *m, uint16_t mss)
{
	m->l2_len = RTE_ETHER_HDR_LEN;
	m->l3_len = sizeof(struct rte_ipv4_hdr);
	m->l4_len = sizeof(struct rte_tcp_hdr);
	m->tso_segsz = mss;
	m->ol_flags |= RTE_MBUF_F_TX_TCP_SEG | RTE_MBUF_F_TX_IPV4 |
		       RTE_MBUF_F_TX_IP_CKSUM;
}

/*
 * TCP segmentation (RTE_ETH_TX_OFFLOAD_TCP_TSO, from the device's
 * tso_caps): a 3946-byte TCP payload in two mbufs goes out as one
 * IBV_WR_TSO and arrives as frames of tso_segsz bytes with their
 * sequence numbers, IPv4 lengths and checksums right, the payload in
 * order. A device without tso_caps (the generic profile) does not offer
 * it.
 */
static int
test_tso(void)
{
	const uint64_t tx_off =
		RTE_ETH_TX_OFFLOAD_TCP_TSO | RTE_ETH_TX_OFFLOAD_IPV4_CKSUM |
		RTE_ETH_TX_OFFLOAD_TCP_CKSUM | RTE_ETH_TX_OFFLOAD_MULTI_SEGS;
	static uint8_t sent[4096];
	struct rte_eth_dev_info info;
	struct rte_mbuf *m, *m2, *r[8];
	struct rte_eth_stats st0, st1;
	struct rte_tcp_hdr *tcp;
	struct vt_pair pp;
	uint32_t seq, i, off = 0;
	uint8_t *p;

	VT_CHECK_EQ(rte_eth_dev_info_get(p0, &info), 0, "info");
	VT_CHECK(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO,
		 "TSO offered");
	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, tx_off), 0, "p0 TSO");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, RTE_ETH_RX_OFFLOAD_CHECKSUM,
			    0),
		    0, "p1");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	m = l4_frame(pool, &mac1, IPPROTO_TCP, 0x0a000001, 0x0a000002, 4000, 80,
		     2000, 7);
	m2 = rte_pktmbuf_alloc(pool);
	VT_CHECK(m != NULL && m2 != NULL, "alloc");
	p = (uint8_t *)rte_pktmbuf_append(m2, 2000);
	for (i = 0; i < 2000; i++)
		p[i] = (uint8_t)(i * 13 + 5);
	VT_CHECK_EQ(rte_pktmbuf_chain(m, m2), 0, "chain");
	tso_mark(m, 1000);
	tcp = rte_pktmbuf_mtod_offset(m, struct rte_tcp_hdr *, 34);
	seq = rte_be_to_cpu_32(tcp->sent_seq);
	{
		const void *pl = rte_pktmbuf_read(m, 54, 3946, sent);

		VT_CHECK(pl != NULL, "payload");
		if (pl != sent)
			memcpy(sent, pl, 3946);
	}
	VT_CHECK_EQ(rte_eth_stats_get(p0, &st0), 0, "stats");
	VT_CHECK_EQ(send_one(p0, m), 0, "send the TSO packet");
	VT_CHECK_EQ(recv_n(p1, 0, r, 8), 4, "four frames");
	for (i = 0; i < 4; i++) {
		uint32_t pay = i < 3 ? 1000 : 946;
		const struct rte_ipv4_hdr *ip;

		VT_CHECK_EQ(r[i]->pkt_len, 54 + pay, "frame %u length", i);
		ip = rte_pktmbuf_mtod_offset(r[i], const struct rte_ipv4_hdr *,
					     14);
		tcp = rte_pktmbuf_mtod_offset(r[i], struct rte_tcp_hdr *, 34);
		VT_CHECK_EQ(rte_be_to_cpu_16(ip->total_length), 40 + pay,
			    "frame %u IPv4 length", i);
		VT_CHECK_EQ(rte_be_to_cpu_32(tcp->sent_seq), seq + off,
			    "frame %u sequence number", i);
		VT_CHECK(rte_ipv4_cksum(ip) == 0 &&
				 rte_ipv4_udptcp_cksum_verify(ip, tcp) == 0,
			 "frame %u checksums", i);
		VT_CHECK((r[i]->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK) ==
				 RTE_MBUF_F_RX_L4_CKSUM_GOOD,
			 "frame %u: the port's checksum verdict", i);
		VT_CHECK(memcmp(rte_pktmbuf_mtod_offset(r[i], uint8_t *, 54),
				sent + off, pay) == 0,
			 "frame %u payload", i);
		off += pay;
	}
	rte_pktmbuf_free_bulk(r, 4);
	VT_CHECK_EQ(rte_eth_stats_get(p0, &st1), 0, "stats");
	VT_CHECK_EQ(st1.opackets - st0.opackets, 1, "one packet sent");
	VT_CHECK_EQ(st1.oerrors - st0.oerrors, 0, "no error");
	/* Headers past the first segment: not for the device. */
	m = l4_frame(pool, &mac1, IPPROTO_TCP, 0x0a000001, 0x0a000002, 4000, 80,
		     40, 7);
	m2 = l4_frame(pool, &mac1, IPPROTO_TCP, 0x0a000001, 0x0a000002, 4000,
		      80, 1500, 8);
	VT_CHECK(m != NULL && m2 != NULL && rte_pktmbuf_chain(m, m2) == 0,
		 "frame");
	tso_mark(m, 1000);
	VT_CHECK_EQ(send_one(p0, m), 0, "taken");
	VT_CHECK_EQ(recv_n(p1, 0, r, 8), 0, "nothing sent");
	VT_CHECK_EQ(rte_eth_stats_get(p0, &st0), 0, "stats");
	VT_CHECK_EQ(st0.oerrors - st1.oerrors, 1, "dropped, counted");
	VT_CHECK_EQ(ports_default(), 0, "ports back");

	VT_CHECK_EQ(vt_pair_open(&pp, "notso", 1, 0, 0, 0), 0, "generic pair");
	VT_CHECK_EQ(rte_eth_dev_info_get(pp.a, &info), 0, "info");
	VT_CHECK(!(info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_TCP_TSO),
		 "TSO offered without tso_caps");
	VT_CHECK_EQ(vt_pair_close(&pp), 0, "close");
	return VT_OK;
}

/*
 * Rx timestamps (RTE_ETH_RX_OFFLOAD_TIMESTAMP, from a device clock): the
 * completion's timestamp in the mbuf's timestamp dynamic field with its
 * flag, in the units of rte_eth_read_clock(), between the clock read
 * before the frame was sent and after it was received. A queue without
 * the offload leaves the flag; a device without a clock offers neither.
 */
static int
test_rx_timestamp(void)
{
	struct rte_eth_dev_info info;
	struct rte_mbuf *r;
	struct vt_pair pp;
	uint64_t c0, c1, ts, flag;
	int off, bit;

	VT_CHECK_EQ(rte_eth_dev_info_get(p1, &info), 0, "info");
	VT_CHECK(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP,
		 "timestamps offered");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, RTE_ETH_RX_OFFLOAD_TIMESTAMP,
			    0),
		    0, "p1 with timestamps");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	off = rte_mbuf_dynfield_lookup(RTE_MBUF_DYNFIELD_TIMESTAMP_NAME, NULL);
	bit = rte_mbuf_dynflag_lookup(RTE_MBUF_DYNFLAG_RX_TIMESTAMP_NAME, NULL);
	VT_CHECK(off >= 0 && bit >= 0, "timestamp field and flag registered");
	flag = RTE_BIT64(bit);
	VT_CHECK_EQ(rte_eth_read_clock(p1, &c0), 0, "clock");
	r = through(simple_frame(&mac1, 100, 1));
	VT_CHECK(r != NULL, "received");
	VT_CHECK_EQ(rte_eth_read_clock(p1, &c1), 0, "clock");
	ts = *RTE_MBUF_DYNFIELD(r, off, rte_mbuf_timestamp_t *);
	VT_CHECK(r->ol_flags & flag, "timestamp flag");
	VT_CHECK(c0 <= ts && ts <= c1,
		 "timestamp %" PRIu64 " not within %" PRIu64 "..%" PRIu64, ts,
		 c0, c1);
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(ports_default(), 0, "ports back");
	r = through(simple_frame(&mac1, 100, 2));
	VT_CHECK(r != NULL && !(r->ol_flags & flag),
		 "no timestamp without the offload");
	rte_pktmbuf_free(r);

	VT_CHECK_EQ(vt_pair_open(&pp, "nots", 1, 0, 0, 0), 0, "generic pair");
	VT_CHECK_EQ(rte_eth_dev_info_get(pp.a, &info), 0, "info");
	VT_CHECK(!(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_TIMESTAMP),
		 "timestamps offered without a clock");
	VT_CHECK_EQ(rte_eth_read_clock(pp.a, &c0), -ENOTSUP, "no clock");
	VT_CHECK_EQ(vt_pair_close(&pp), 0, "close");
	return VT_OK;
}

/*
 * The probes answer what the device does, whatever glue drives it: each
 * modelled device against the bits the driver found, and the context it
 * opened (DevX or not). MPLS over GRE/UDP comes from the tunnel offload
 * capabilities (mlx5dv_query_device()), the IPv4 IHL field from the flow
 * table capabilities (QUERY_HCA_CAP through DevX: none without DevX); a
 * device that is no mlx5dv device leaves MPLS to its verbs provider.
 */
static int
test_probe_caps(void)
{
	static const struct {
		const char *tag;
		int generic;
		uint32_t prios, lacks, flex;
		int dv, devx, tunnel, inner, esp, egress, mpls, ihl;
		uint32_t max_prio;
		int hash_rtr;
	} c[] = {
		{ "mlx5", 0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 15, 0 },
		{ "gen", 1, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 15, 1 },
		{ "nodevx", 0, 0, SV_DEV_NO_DEVX, 0, 1, 0, 1, 1, 0, 1, 0, 0, 15,
		  0 },
		{ "notun", 0, 0, SV_DEV_NO_TUNNEL_OFFLOADS, 0, 1, 1, 0, 0, 0, 1,
		  0, 1, 15, 0 },
		{ "noegr", 0, 0, SV_DEV_NO_VERBS_EGRESS, 0, 1, 1, 1, 1, 0, 0, 0,
		  1, 15, 0 },
		{ "p8", 0, 8, 0, 0, 1, 1, 1, 1, 0, 1, 0, 1, 7, 0 },
		{ "g12", 1, 12, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 7, 1 },
		{ "flex", 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 15, 0 },
		{ "noihl", 0, 0, SV_DEV_NO_IPV4_IHL, 1, 1, 1, 1, 1, 0, 1, 1, 0,
		  15, 0 },
	};
	unsigned int i;

	for (i = 0; i < RTE_DIM(c); i++) {
		struct vsteer_priv *pv;
		struct vt_pair pp;
#ifdef VT_RDMA_GLUE
		struct vt_rdma_calls before = vt_rdma_calls;
#endif

		VT_CHECK_EQ(vt_pair_open(&pp, c[i].tag, c[i].generic,
					 c[i].prios, c[i].lacks, c[i].flex),
			    0, "%s: probe", c[i].tag);
		pv = priv_of(pp.a);
		VT_CHECK_EQ(pv->dv_ok, c[i].dv, "%s: dv_ok", c[i].tag);
		VT_CHECK_EQ(pv->devx_ok, c[i].devx, "%s: devx_ok", c[i].tag);
		VT_CHECK_EQ(sv_ctx(pv->ctx)->devx, c[i].devx,
			    "%s: the context's DevX uid", c[i].tag);
		VT_CHECK_EQ(pv->tunnel_qp_ok, c[i].tunnel, "%s: tunnel_qp_ok",
			    c[i].tag);
		VT_CHECK_EQ(pv->inner_rss_ok, c[i].inner, "%s: inner_rss_ok",
			    c[i].tag);
		VT_CHECK_EQ(pv->verbs_esp_ok, c[i].esp, "%s: verbs_esp_ok",
			    c[i].tag);
		VT_CHECK_EQ(pv->egress_ok, c[i].egress, "%s: egress_ok",
			    c[i].tag);
		VT_CHECK_EQ(pv->max_verbs_prio, c[i].max_prio,
			    "%s: max_verbs_prio", c[i].tag);
		VT_CHECK_EQ(pv->mpls_ok, c[i].mpls, "%s: mpls_ok", c[i].tag);
		VT_CHECK(pv->ihl_ok == c[i].ihl && pv->ihl_inner_ok == c[i].ihl,
			 "%s: ihl_ok %u / %u", c[i].tag, pv->ihl_ok,
			 pv->ihl_inner_ok);
		VT_CHECK_EQ(pv->hash_qp_rtr, c[i].hash_rtr, "%s: hash_qp_rtr",
			    c[i].tag);
#ifdef VT_RDMA_GLUE
		/* Through libmlx5 as DPDK mlx5 does: DevX asked for on
		 * mlx5dv devices, a plain open where it is refused. */
		VT_CHECK_EQ(vt_rdma_calls.dv_open_devx - before.dv_open_devx,
			    c[i].dv ? 2 : 0, "%s: mlx5dv_open_device(DEVX)",
			    c[i].tag);
		VT_CHECK_EQ(vt_rdma_calls.open_device - before.open_device,
			    c[i].devx ? 0 : 2, "%s: ibv_open_device()",
			    c[i].tag);
		VT_CHECK(!c[i].tunnel || vt_rdma_calls.dv_qp_tunnel >
						 before.dv_qp_tunnel,
			 "%s: tunnel QP through mlx5dv_create_qp()", c[i].tag);
		/* The parser's capabilities through libmlx5 as well. */
		VT_CHECK_EQ(vt_rdma_calls.dv_query_device -
				    before.dv_query_device,
			    c[i].dv ? 2 : 0, "%s: mlx5dv_query_device()",
			    c[i].tag);
		VT_CHECK_EQ(vt_rdma_calls.devx_general_cmd -
				    before.devx_general_cmd,
			    c[i].devx ? 2 : 0, "%s: QUERY_HCA_CAP", c[i].tag);
#endif
		VT_CHECK_EQ(vt_pair_close(&pp), 0, "%s: close", c[i].tag);
	}
	return VT_OK;
}

/* A rule of the tests below: UDP destination port 53 to queue 1. */
static const struct rte_flow_item_udp udp53 = { .hdr.dst_port = RTE_BE16(53) };
static const struct rte_flow_item_udp udp_dport_m = { .hdr.dst_port = RTE_BE16(
							      0xffff) };
static const struct rte_flow_item udp53_pat[] = {
	{ .type = RTE_FLOW_ITEM_TYPE_ETH },
	{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
	{ .type = RTE_FLOW_ITEM_TYPE_UDP, .spec = &udp53, .mask = &udp_dport_m },
	{ .type = RTE_FLOW_ITEM_TYPE_END },
};
static const struct rte_flow_action_queue queue1 = { .index = 1 };
static const struct rte_flow_action queue1_act[] = {
	{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue1 },
	{ .type = RTE_FLOW_ACTION_TYPE_END },
};

/* The control lock's check, told to the test instead of stopping it. */
static unsigned int unheld_n;
static char unheld_fn[64];

static void
unheld_hook(const char *func)
{
	if (unheld_n++ == 0)
		snprintf(unheld_fn, sizeof(unheld_fn), "%s", func);
}

/* A thread that holds a port's lock from held to go. */
struct lock_holder {
	struct vsteer_priv *pv;
	sem_t held, go;
};

static void *
hold_ctl_lock(void *arg)
{
	struct lock_holder *h = arg;

	vsteer_ctl_lock(h->pv);
	sem_post(&h->held);
	while (sem_wait(&h->go) != 0)
		;
	vsteer_ctl_unlock(h->pv);
	return h;
}

/*
 * The port's control lock is held where the helpers need it: the control
 * paths (configure, start, stop, Rx modes, MAC and VLAN filters, MTU,
 * RSS, flows) never reach one without it, which a lock that does not
 * lock (or is not taken) would; and a helper called without it, or while
 * another thread holds it, says so with its name.
 */
static int
test_ctl_lock_checked(void)
{
	struct rte_eth_dev *dev = &rte_eth_devices[p1];
	struct vsteer_priv *pv = priv_of(p1);
	struct rte_eth_rss_reta_entry64
		reta[VSTEER_RETA_MAX / RTE_ETH_RETA_GROUP_SIZE];
	struct rte_ether_addr extra = other_mac;
	struct rte_eth_dev_info info;
	struct rte_flow_error err;
	struct lock_holder holder;
	struct rte_flow *fl;
	pthread_t th;
	void *ret;

	unheld_n = 0;
	unheld_fn[0] = '\0';
	vsteer_ctl_unheld_hook = unheld_hook;
	VT_CHECK_EQ(port_up(p1, 2, RTE_ETH_RSS_IP, 64, NULL, 0, 0), 0, "p1");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc off");
	VT_CHECK_EQ(rte_eth_allmulticast_enable(p1), 0, "allmulti on");
	VT_CHECK_EQ(rte_eth_dev_mac_addr_add(p1, &extra, 0), 0, "MAC add");
	VT_CHECK_EQ(rte_eth_dev_mac_addr_remove(p1, &extra), 0, "MAC remove");
	VT_CHECK_EQ(rte_eth_dev_set_mc_addr_list(p1, &extra, 0), 0, "mc list");
	/* Through the lock whatever the device answers (the rdma build's
	 * cannot change its MTU). */
	rte_eth_dev_set_mtu(p1, 1400);
	VT_CHECK_EQ(rte_eth_dev_info_get(p1, &info), 0, "info");
	VT_CHECK(info.reta_size <= RTE_DIM(reta) * RTE_ETH_RETA_GROUP_SIZE,
		 "RETA of %u", info.reta_size);
	memset(reta, 0, sizeof(reta));
	reta[0].mask = 1;
	reta[0].reta[0] = 1;
	VT_CHECK_EQ(rte_eth_dev_rss_reta_update(p1, reta, info.reta_size), 0,
		    "RETA");
	memset(&err, 0, sizeof(err));
	fl = rte_flow_create(p1, &(struct rte_flow_attr){ .ingress = 1 },
			     udp53_pat, queue1_act, &err);
	VT_CHECK(fl != NULL, "flow: %s", err.message ? err.message : "");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_start(p1), 0, "start");
	VT_CHECK_EQ(rte_flow_destroy(p1, fl, &err), 0, "flow destroy");
	VT_CHECK_EQ(rte_flow_flush(p1, &err), 0, "flush");
	rte_eth_dev_set_mtu(p1, RTE_ETHER_MTU);
	VT_CHECK_EQ(unheld_n, 0, "a control path without the lock (first: %s)",
		    unheld_fn);
	/* Without it: the check names the helper (and the helpers it
	 * calls say so too). */
	vsteer_defflow_sync(dev);
	VT_CHECK(unheld_n > 0, "a helper called without the lock");
	VT_CHECK(strcmp(unheld_fn, "vsteer_defflow_sync") == 0, "named: %s",
		 unheld_fn);
	/* With it: nothing to say. */
	unheld_n = 0;
	vsteer_ctl_lock(pv);
	vsteer_defflow_sync(dev);
	vsteer_ctl_unlock(pv);
	VT_CHECK_EQ(unheld_n, 0, "held by the caller");
	/* Held, but by another thread: not the caller's. */
	holder.pv = pv;
	VT_CHECK_EQ(sem_init(&holder.held, 0, 0), 0, "sem");
	VT_CHECK_EQ(sem_init(&holder.go, 0, 0), 0, "sem");
	VT_CHECK_EQ(pthread_create(&th, NULL, hold_ctl_lock, &holder), 0,
		    "thread");
	while (sem_wait(&holder.held) != 0)
		;
	vsteer_defflow_sync(dev);
	sem_post(&holder.go);
	VT_CHECK_EQ(pthread_join(th, &ret), 0, "join");
	sem_destroy(&holder.held);
	sem_destroy(&holder.go);
	VT_CHECK(unheld_n > 0 && strcmp(unheld_fn, "vsteer_defflow_sync") == 0,
		 "held by another thread: %u, %s", unheld_n, unheld_fn);
	vsteer_ctl_unheld_hook = NULL;
	VT_CHECK_EQ(ports_default(), 0, "ports back");
	return VT_OK;
}

/* The glue of the port under test, with modify_qp counting hash QPs. */
static struct vsteer_glue hq_glue;
static const struct vsteer_glue *hq_real;
static unsigned int hq_modified;

static int
hq_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int mask)
{
	if (sv_qp(qp)->kind == SV_QP_HASH)
		hq_modified++;
	return hq_real->modify_qp(qp, attr, mask);
}

/*
 * Hash QPs are modified only where the device takes it: never on mlx5,
 * whose provider refuses any modify of one (libmlx5 44: EOPNOTSUPP), and
 * INIT -> RTR where it has states (the generic profile, as mlx4). Either
 * way RSS and rules deliver.
 */
static int
test_hash_qp_states(void)
{
	const struct rte_flow_attr attr = { .ingress = 1 };
	const struct rte_flow_item *pat = udp53_pat;
	const struct rte_flow_action *act = queue1_act;
	const uint64_t hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP;
	unsigned int gen, n_rss, sent, got;
	struct rte_flow_error err;
	struct vsteer_priv *pv;
	struct rte_ether_addr mb;
	struct rte_flow *fl;
	struct vsteer_rss *rss;
	struct rte_mbuf *m[BURST];
	struct vt_pair pp;
	uint16_t k;

	for (gen = 0; gen < 2; gen++) {
		const char *tag = gen ? "gen" : "mlx5";

		VT_CHECK_EQ(vt_pair_open(&pp, gen ? "hqg" : "hqm", (int)gen, 0,
					 0, 0),
			    0, "%s: probe", tag);
		pv = priv_of(pp.b);
		VT_CHECK_EQ(pv->hash_qp_rtr, gen, "%s: hash QP states", tag);
		hq_real = pv->glue;
		hq_glue = *hq_real;
		hq_glue.modify_qp = hq_modify_qp;
		pv->glue = &hq_glue;
		hq_modified = 0;
		VT_CHECK_EQ(port_up(pp.a, 1, 0, 64, NULL, 0, 0), 0, "%s: a",
			    tag);
		VT_CHECK_EQ(port_up(pp.b, 2, hf, 64, NULL, 0, 0), 0,
			    "%s: b starts", tag);
		fl = rte_flow_create(pp.b, &attr, pat, act, &err);
		VT_CHECK(fl != NULL, "%s: rule: %s", tag,
			 err.message ? err.message : "(none)");
		n_rss = 0;
		TAILQ_FOREACH(rss, &pv->rss_list, next) {
			VT_CHECK_EQ(rss->qp->state,
				    gen ? IBV_QPS_RTR : IBV_QPS_RESET,
				    "%s: hash QP state", tag);
			n_rss++;
		}
		VT_CHECK(n_rss >= 2, "%s: RSS contexts: %u", tag, n_rss);
		VT_CHECK_EQ(hq_modified, gen ? 2 * n_rss : 0,
			    "%s: hash QP modifies", tag);
		/* RSS of the default flows, then the rule's queue. */
		VT_CHECK_EQ(rte_eth_macaddr_get(pp.b, &mb), 0, "mac");
		for (sent = 0; sent < 16; sent++)
			VT_CHECK_EQ(send_one(pp.a,
					     udp_frame(pool, &mb,
						       0x0a000001 + sent,
						       0x0a000002, 1000 + sent,
						       2000, 64, 1)),
				    0, "%s: send", tag);
		VT_CHECK_EQ(drain(pp.b, 2), sent, "%s: RSS delivers", tag);
		VT_CHECK_EQ(send_one(pp.a,
				     udp_frame(pool, &mb, 0x0a000001,
					       0x0a000002, 1000, 53, 64, 1)),
			    0, "%s: send", tag);
		got = 0;
		for (k = 0; k < POLL_ROUNDS && got == 0; k++)
			got = rte_eth_rx_burst(pp.b, 1, m, BURST);
		rte_pktmbuf_free_bulk(m, got);
		VT_CHECK_EQ(got, 1, "%s: the rule's queue", tag);
		VT_CHECK_EQ(rte_flow_destroy(pp.b, fl, &err), 0, "destroy");
		pv->glue = hq_real;
		VT_CHECK_EQ(vt_pair_close(&pp), 0, "%s: close", tag);
	}
	return VT_OK;
}

/*
 * 8 verbs priorities (older mlx5 kernels): 2 levels of 3 sub-priorities,
 * one for applications, the last for the default flows, which still work
 * and still lose to every application rule.
 */
static int
test_eight_priorities(void)
{
	const struct rte_flow_attr at0 = { .ingress = 1, .priority = 0 };
	const struct rte_flow_attr at1 = { .ingress = 1, .priority = 1 };
	const struct rte_flow_item *pat = udp53_pat;
	const struct rte_flow_action *act = queue1_act;
	struct rte_ether_addr mb;
	struct rte_flow_error err;
	struct vsteer_defflow *df;
	struct rte_flow *fl;
	struct rte_mbuf *r;
	struct vt_pair pp;
	unsigned int n = 0;

	VT_CHECK_EQ(vt_pair_open(&pp, "eight", 0, 8, 0, 0), 0, "probe");
	VT_CHECK_EQ(priv_of(pp.b)->max_verbs_prio, 7, "8 priorities found");
	VT_CHECK_EQ(port_up(pp.a, 1, 0, 64, NULL, 0, 0), 0, "a");
	VT_CHECK_EQ(port_up(pp.b, 2, 0, 64, NULL, 0, 0), 0, "b");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(pp.b), 0, "promisc off");
	VT_CHECK_EQ(rte_eth_macaddr_get(pp.b, &mb), 0, "mac");
	memset(&err, 0, sizeof(err));
	VT_CHECK_EQ(rte_flow_validate(pp.b, &at1, pat, act, &err), -ENOTSUP,
		    "priority 1 of one level");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ATTR_PRIORITY, "type");
	VT_CHECK(err.message != NULL &&
			 strstr(err.message, "1 levels available (0 to 0)"),
		 "message: %s", err.message ? err.message : "(none)");
	TAILQ_FOREACH(df, &priv_of(pp.b)->defflows, next) {
		VT_CHECK(df->attr->priority >= 3 && df->attr->priority <= 5,
			 "default flow at verbs priority %u, not level 1",
			 df->attr->priority);
		n++;
	}
	VT_CHECK(n > 0, "default flows installed");
	fl = rte_flow_create(pp.b, &at0, pat, act, &err);
	VT_CHECK(fl != NULL, "priority 0: %s",
		 err.message ? err.message : "(none)");
	/* The rule beats the default flows; the rest still arrives. */
	VT_CHECK_EQ(send_one(pp.a, udp_frame(pool, &mb, 0x0a000001, 0x0a000002,
					     1000, 53, 80, 1)),
		    0, "send to UDP 53");
	VT_CHECK_EQ(recv_n(pp.b, 1, &r, 1), 1, "queue 1 by the rule");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(send_one(pp.a, udp_frame(pool, &mb, 0x0a000001, 0x0a000002,
					     1000, 54, 80, 2)),
		    0, "send to UDP 54");
	VT_CHECK_EQ(recv_n(pp.b, 0, &r, 1), 1, "queue 0 by the default flow");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(rte_flow_destroy(pp.b, fl, &err), 0, "destroy");
	VT_CHECK_EQ(vt_pair_close(&pp), 0, "close");
	return VT_OK;
}

/* Egress rules where the device takes them (probed: verbs; matchers on
 * the transmit table), refused with the attribute named where it does
 * not. */
static int
test_egress_probe(void)
{
	const struct rte_flow_attr out = { .egress = 1 };
	const struct rte_flow_item_eth eth = { .hdr.dst_addr = mac1 };
	const struct rte_flow_item_eth eth_m = { .hdr.dst_addr.addr_bytes = {
							 0xff, 0xff, 0xff, 0xff,
							 0xff, 0xff } };
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_DROP },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_action qact[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_COUNT },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_query_count qc;
	struct rte_flow_error err;
	struct rte_flow *fl;
	struct rte_mbuf *r;
	struct vt_pair pp;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	VT_CHECK(priv_of(p0)->egress_ok, "mlx5 kernels take egress rules");
	memset(&err, 0, sizeof(err));
	fl = rte_flow_create(p0, &out, pat, act, &err);
	VT_CHECK(fl != NULL, "egress drop: %s",
		 err.message ? err.message : "(none)");
	VT_CHECK_EQ(send_one(p0, simple_frame(&mac1, 64, 1)), 0, "send");
	VT_CHECK_EQ(recv_n(p1, 0, &r, 1), 0, "dropped on the way out");
	memset(&qc, 0, sizeof(qc));
	VT_CHECK_EQ(rte_flow_query(p0, fl, qact, &qc, &err), 0, "query");
	VT_CHECK_EQ(qc.hits, 1, "counted");
	VT_CHECK_EQ(rte_flow_destroy(p0, fl, &err), 0, "destroy");
	VT_CHECK_EQ(delivered(&mac1), 1, "sent once the rule is gone");

	/* Without verbs egress the transmit table's matchers take it
	 * (flow_engine=auto), as long as they can count. */
	VT_CHECK_EQ(vt_pair_open(&pp, "noegr", 0, 0, SV_DEV_NO_VERBS_EGRESS, 0),
		    0, "probe");
	VT_CHECK_EQ(port_up(pp.a, 1, 0, 64, NULL, 0, 0), 0, "a");
	memset(&err, 0, sizeof(err));
	VT_CHECK_EQ(rte_flow_validate(pp.a, &out, pat, act, &err), 0,
		    "egress on the matcher: %s",
		    err.message ? err.message : "(none)");
	VT_CHECK_EQ(vt_pair_close(&pp), 0, "close");
	VT_CHECK_EQ(vt_pair_open(&pp, "noegr2", 0, 0,
				 SV_DEV_NO_VERBS_EGRESS | SV_DEV_NO_DEVX, 0),
		    0, "probe");
	VT_CHECK_EQ(port_up(pp.a, 1, 0, 64, NULL, 0, 0), 0, "a");
	memset(&err, 0, sizeof(err));
	VT_CHECK_EQ(rte_flow_validate(pp.a, &out, pat, act, &err), -ENOTSUP,
		    "egress COUNT on a kernel without verbs egress nor DevX");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ATTR_EGRESS, "type");
	VT_CHECK(err.message != NULL &&
			 strstr(err.message, "takes no egress rules") &&
			 strstr(err.message, "no DevX flow counters"),
		 "message: %s", err.message ? err.message : "(none)");
	VT_CHECK_EQ(vt_pair_close(&pp), 0, "close");
	return VT_OK;
}

#ifndef VT_RDMA_GLUE
/*
 * sv_modify_actions= models a device whose flow tables take n header
 * modify actions in one modify header: the probe reads n back through
 * QUERY_HCA_CAP, and a rule needing n + 1 is refused at validation with
 * the table and the limit named (the default device: 16).
 */
static int
test_modify_actions_devarg(void)
{
	const struct rte_flow_attr out = { .egress = 1 };
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action_set_mac sm = { { 2, 0, 0, 0, 0, 1 } };
	const struct rte_flow_action_set_ipv4 si = { RTE_BE32(0x0a000001) };
	/* 2 + 1 modify actions, then 1 more */
	struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_SET_MAC_SRC, .conf = &sm },
		{ .type = RTE_FLOW_ACTION_TYPE_DEC_TTL },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;
	char args[96];
	uint16_t port;

	snprintf(args, sizeof(args), "dev=mem:%s-mod,sv_modify_actions=3",
		 link_a);
	VT_CHECK_EQ(rte_vdev_init("net_vsteer_mod", args), 0, "probe");
	VT_CHECK_EQ(rte_eth_dev_get_port_by_name("net_vsteer_mod", &port), 0,
		    "port");
	VT_CHECK(port_priv(port)->max_modify_rx == 3 &&
			 port_priv(port)->max_modify_tx == 3,
		 "limits read back: %u / %u", port_priv(port)->max_modify_rx,
		 port_priv(port)->max_modify_tx);
	VT_CHECK_EQ(port_up(port, 1, 0, 64, NULL, 0, 0), 0, "up");
	memset(&err, 0, sizeof(err));
	VT_CHECK_EQ(rte_flow_validate(port, &out, pat, act, &err), 0,
		    "3 modify actions: %s",
		    err.message ? err.message : "(none)");
	act[2] = (struct rte_flow_action){
		.type = RTE_FLOW_ACTION_TYPE_SET_IPV4_SRC, .conf = &si
	};
	memset(&err, 0, sizeof(err));
	VT_CHECK_EQ(rte_flow_validate(port, &out, pat, act, &err), -ENOTSUP,
		    "4 modify actions");
	VT_CHECK(err.message != NULL &&
			 strcmp(err.message,
				"header rewrites: 4 header modify actions, the device's transmit table takes at most 3 (max_modify_header_actions)") ==
				 0,
		 "message: %s", err.message ? err.message : "(none)");
	VT_CHECK_EQ(rte_eth_dev_stop(port), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_close(port), 0, "close");
	VT_CHECK_EQ(rte_vdev_uninit("net_vsteer_mod"), 0, "uninit");
	VT_CHECK_EQ(priv_of(p0)->max_modify_rx, 16, "the default device");
	return VT_OK;
}
#endif

/* The first RSS context whose fields include want (NULL if none). */
static struct vsteer_rss *
rss_with(uint16_t port, uint64_t want)
{
	struct vsteer_rss *rss;

	TAILQ_FOREACH(rss, &priv_of(port)->rss_list, next)
		if ((rss->hash_fields & want) == want)
			return rss;
	return NULL;
}

/*
 * Hash QPs that receive tunnel rules or hash inner headers are made with
 * mlx5dv_create_qp() and MLX5DV_QP_CREATE_TUNNEL_OFFLOADS where the device
 * has them: what softverbs records on the QP it made. Without the flag,
 * mlx5 refuses inner hashing.
 */
static int
test_tunnel_hash_qp(void)
{
	const uint64_t v4 = IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4;
	const uint8_t key[40] = { 7 };
	const uint16_t q0 = 0;
	struct rte_eth_dev *dev;
	struct vsteer_rss *rss;
	struct vt_pair pp;

	VT_CHECK_EQ(port_up(p1, 2, 0, 64, NULL, 0, 0), 0, "p1");
	dev = &rte_eth_devices[p1];
	rss = rss_get(dev, key, v4, &q0, 1, VSTEER_RSS_TUNNEL);
	VT_CHECK(rss != NULL, "tunnel context: %s", rte_strerror(rte_errno));
	VT_CHECK(sv_qp(rss->qp)->tunnel, "tunnel rules: a tunnel QP");
	rss_put(dev, rss);
	rss = rss_get(dev, key, v4 | IBV_RX_HASH_INNER, &q0, 1, 0);
	VT_CHECK(rss != NULL, "inner context: %s", rte_strerror(rte_errno));
	VT_CHECK(sv_qp(rss->qp)->tunnel, "inner fields imply tunnel offloads");
	rss_put(dev, rss);
	rss = rss_get(dev, key, v4, &q0, 1, 0);
	VT_CHECK(rss != NULL, "plain context: %s", rte_strerror(rte_errno));
	VT_CHECK(!sv_qp(rss->qp)->tunnel, "no tunnel: a plain QP");
	rss_put(dev, rss);
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");

	/* A device without tunnel offloads: tunnel rules on a plain QP,
	 * inner hashing refused by the device. */
	VT_CHECK_EQ(vt_pair_open(&pp, "notun", 0, 0, SV_DEV_NO_TUNNEL_OFFLOADS,
				 0),
		    0, "probe");
	VT_CHECK_EQ(port_up(pp.b, 1, 0, 64, NULL, 0, 0), 0, "b");
	dev = &rte_eth_devices[pp.b];
	rss = rss_get(dev, key, v4, &q0, 1, VSTEER_RSS_TUNNEL);
	VT_CHECK(rss != NULL && !sv_qp(rss->qp)->tunnel,
		 "tunnel rules without the offloads: a plain QP");
	rss_put(dev, rss);
	rte_log_set_level_pattern("pmd.net.vsteer*", RTE_LOG_CRIT);
	rss = rss_get(dev, key, v4 | IBV_RX_HASH_INNER, &q0, 1, 0);
	rte_log_set_level_pattern("pmd.net.vsteer*", RTE_LOG_NOTICE);
	VT_CHECK(rss == NULL && rte_errno == EOPNOTSUPP,
		 "inner hashing refused: %s", rte_strerror(rte_errno));
	VT_CHECK_EQ(vt_pair_close(&pp), 0, "close");
	return VT_OK;
}

/* Outer Ethernet/IPv4/UDP 4789/VXLAN, inner Ethernet/IPv4 isip -> idip/UDP. */
static struct rte_mbuf *
vxlan_frame(const struct rte_ether_addr *dst, uint32_t isip, uint32_t idip)
{
	const uint16_t len = 14 + 20 + 8 + 8 + 14 + 20 + 8 + 10;
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);
	struct rte_ether_hdr *eth;
	struct rte_ipv4_hdr *ip;
	struct rte_udp_hdr *udp;
	uint8_t *p, *vx;
	int layer;

	if (m == NULL)
		return NULL;
	p = (uint8_t *)rte_pktmbuf_append(m, len);
	if (p == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	memset(p, 0, len);
	for (layer = 0; layer < 2; layer++) {
		uint16_t left =
			(uint16_t)(len - (p - rte_pktmbuf_mtod(m, uint8_t *)));

		eth = (struct rte_ether_hdr *)p;
		eth->dst_addr = *dst;
		eth->src_addr = mac0;
		eth->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
		ip = (struct rte_ipv4_hdr *)(eth + 1);
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(left - sizeof(*eth));
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_UDP;
		ip->src_addr = rte_cpu_to_be_32(layer ? isip : 0x0a010001);
		ip->dst_addr = rte_cpu_to_be_32(layer ? idip : 0x0a010002);
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		udp = (struct rte_udp_hdr *)(ip + 1);
		udp->src_port = RTE_BE16(1111);
		udp->dst_port = layer ? RTE_BE16(2222) : RTE_BE16(4789);
		udp->dgram_len =
			rte_cpu_to_be_16(left - sizeof(*eth) - sizeof(*ip));
		vx = (uint8_t *)(udp + 1);
		if (layer == 0)
			vx[0] = 0x08; /* VNI 0, valid */
		p = vx + 8;
	}
	return m;
}

/*
 * Inner RSS through rte_flow (VXLAN, RSS level 2): each frame on the queue
 * the Toeplitz hash of its inner addresses picks (rte_softrss), through a
 * hash QP with tunnel offloads; refused at validation where the device
 * cannot hash inner headers.
 */
static int
test_inner_rss_flow(void)
{
	static const uint16_t queues[4] = { 0, 1, 2, 3 };
	uint8_t key[40];
	const struct rte_flow_attr at = { .ingress = 1 };
	const struct rte_flow_item pat[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP },
		{ .type = RTE_FLOW_ITEM_TYPE_VXLAN },
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_rss rss = {
		.level = 2,
		.types = RTE_ETH_RSS_IPV4,
		.key_len = sizeof(key),
		.key = key,
		.queue_num = 4,
		.queue = queues,
	};
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_RSS, .conf = &rss },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	unsigned int per_q[4] = { 0 }, i;
	struct rte_flow_error err;
	struct vsteer_rss *ctx;
	struct rte_flow *fl;
	struct vt_pair pp;

	for (i = 0; i < sizeof(key); i++)
		key[i] = (uint8_t)(0x6d + 29 * i);
	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 4, 0, 128, NULL, 0, 0), 0, "p1");
	memset(&err, 0, sizeof(err));
	fl = rte_flow_create(p1, &at, pat, act, &err);
	VT_CHECK(fl != NULL, "inner RSS rule: %s",
		 err.message ? err.message : "(none)");
	ctx = rss_with(p1, IBV_RX_HASH_INNER);
	VT_CHECK(ctx != NULL && sv_qp(ctx->qp)->tunnel,
		 "the rule's hash QP has tunnel offloads");
	for (i = 0; i < 32; i++) {
		uint32_t isip = 0xc0a80000 + i * 7919, idip = 0xc0a90001;
		union rte_thash_tuple t;
		struct rte_mbuf *r = NULL;
		int found = -1, round;
		uint16_t q;

		memset(&t, 0, sizeof(t));
		t.v4.src_addr = isip;
		t.v4.dst_addr = idip;
		q = queues[rte_softrss((uint32_t *)&t, RTE_THASH_V4_L3_LEN, key) %
			   4];
		VT_CHECK_EQ(send_one(p0, vxlan_frame(&mac1, isip, idip)), 0,
			    "send");
		for (round = 0; round < POLL_ROUNDS && found < 0; round++) {
			uint16_t k;

			for (k = 0; k < 4 && found < 0; k++)
				if (rte_eth_rx_burst(p1, k, &r, 1) == 1)
					found = k;
		}
		VT_CHECK(found >= 0, "frame %u not received", i);
		rte_pktmbuf_free(r);
		VT_CHECK_EQ(found, q, "frame %u (inner %08x) on its queue", i,
			    isip);
		per_q[found]++;
	}
	for (i = 0; i < 4; i++)
		VT_CHECK(per_q[i] > 0, "queue %u got none of 32", i);
	VT_CHECK_EQ(rte_flow_destroy(p1, fl, &err), 0, "destroy");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");

	VT_CHECK_EQ(vt_pair_open(&pp, "notun2", 0, 0, SV_DEV_NO_TUNNEL_OFFLOADS,
				 0),
		    0, "probe");
	VT_CHECK_EQ(port_up(pp.b, 4, 0, 64, NULL, 0, 0), 0, "b");
	memset(&err, 0, sizeof(err));
	VT_CHECK_EQ(rte_flow_validate(pp.b, &at, pat, act, &err), -ENOTSUP,
		    "inner RSS without tunnel offloads");
	VT_CHECK_EQ(err.type, RTE_FLOW_ERROR_TYPE_ACTION_CONF, "type");
	VT_CHECK(err.message != NULL &&
			 strstr(err.message, "level 2 (inner) not supported"),
		 "message: %s", err.message ? err.message : "(none)");
	VT_CHECK_EQ(vt_pair_close(&pp), 0, "close");
	return VT_OK;
}

/*
 * The mlx5 multicast table and rte_flow (the guide's "Multicast rules"):
 * a verbs chain whose first spec is an ETH with a multicast destination,
 * or an IPv4 with a multicast destination (a pattern that starts with
 * IPV4), would be matched after every priority level, so after the
 * default flows of promiscuous and all-multicast modes and of the
 * multicast list. The driver keeps an application's rule out of that
 * table: each rule takes its frames in every mode, and its chain starts
 * with an empty ETH spec where it would have gone there.
 */
static int
test_mcast_user_rules(void)
{
	const struct rte_ether_addr mdns = {
		.addr_bytes = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb }
	};
	const struct rte_flow_attr at = { .ingress = 1 };
	const struct rte_flow_item_eth eth = { .hdr.dst_addr = mdns };
	const struct rte_flow_item_eth eth_m = { .hdr.dst_addr.addr_bytes = {
							 0xff, 0xff, 0xff, 0xff,
							 0xff, 0xff } };
	const struct rte_flow_item_ipv4 ip = { .hdr.dst_addr =
						       RTE_BE32(0xe00000fb) };
	const struct rte_flow_item_ipv4 ip_m = { .hdr.dst_addr =
							 RTE_BE32(0xffffffff) };
	const struct rte_flow_item p_eth[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH, .spec = &eth, .mask = &eth_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item p_eth_ip[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_item p_ip[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4, .spec = &ip, .mask = &ip_m },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	const struct rte_flow_action_queue q1 = { .index = 1 };
	const struct rte_flow_action act[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &q1 },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	const struct rte_flow_item *pats[] = { p_eth, p_eth_ip, p_ip };
	struct rte_flow_error err;
	struct rte_flow *fl;
	struct rte_mbuf *r;
	unsigned int i, mode, seq = 0;
	char *dump = NULL;
	size_t dlen = 0;
	FILE *f;

	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 2, 0, 64, NULL, 0, 0), 0, "p1");
	VT_CHECK_EQ(rte_eth_dev_set_mc_addr_list(p1,
						 (struct rte_ether_addr
							  *)(uintptr_t)&mdns,
						 1),
		    0, "mdns in the multicast list");
	for (i = 0; i < RTE_DIM(pats); i++) {
		fl = rte_flow_create(p1, &at, pats[i], act, &err);
		VT_CHECK(fl != NULL, "rule %u: %s", i,
			 err.message ? err.message : "(none)");
		f = open_memstream(&dump, &dlen);
		VT_CHECK(f != NULL, "memstream");
		VT_CHECK_EQ(rte_flow_dev_dump(p1, fl, f, &err), 0, "dump");
		fclose(f);
		/* Every chain starts with an ETH spec that matches any
		 * frame: the pattern's own (rule 1), or one the driver put
		 * first (rules 0 and 2). */
		VT_CHECK(strstr(dump, "spec[0] @20 ETH (0x20) size 40: dst "
				      "00:00:00:00:00:00/00:00:00:00:00:00 "
				      "src 00:00:00:00:00:00/00:00:00:00:00:00 "
				      "ether_type 0x0000/0x0000") != NULL,
			 "rule %u: chain:\n%s", i, dump);
		free(dump);
		dump = NULL;
		/* Promiscuous, all-multicast, then the multicast list: each
		 * a default flow that takes the frame when nothing else
		 * does; the rule first, at its own priority. */
		for (mode = 0; mode < 3; mode++) {
			if (mode == 0) {
				VT_CHECK_EQ(rte_eth_promiscuous_enable(p1), 0,
					    "promisc on");
			} else if (mode == 1) {
				VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0,
					    "promisc off");
				VT_CHECK_EQ(rte_eth_allmulticast_enable(p1), 0,
					    "allmulti on");
			} else {
				VT_CHECK_EQ(rte_eth_allmulticast_disable(p1), 0,
					    "allmulti off");
			}
			VT_CHECK_EQ(send_one(p0,
					     udp_frame(pool, &mdns, 0x0a000001,
						       0xe00000fb, 5353, 5353,
						       80, (uint8_t)seq++)),
				    0, "send");
			VT_CHECK_EQ(recv_n(p1, 1, &r, 1), 1,
				    "rule %u, mode %u: queue 1", i, mode);
			rte_pktmbuf_free(r);
			VT_CHECK_EQ(drain(p1, 2), 0, "delivered once");
		}
		VT_CHECK_EQ(rte_flow_destroy(p1, fl, &err), 0, "destroy");
		/* Without the rule, the multicast list's default flow. */
		VT_CHECK_EQ(send_one(p0, udp_frame(pool, &mdns, 0x0a000001,
						   0xe00000fb, 5353, 5353, 80,
						   (uint8_t)seq++)),
			    0, "send");
		VT_CHECK_EQ(recv_n(p1, 0, &r, 1) + recv_n(p1, 1, &r, 1), 1,
			    "rule %u gone: the default flow", i);
		rte_pktmbuf_free(r);
	}
	VT_CHECK_EQ(rte_eth_dev_set_mc_addr_list(p1, NULL, 0), 0, "list");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	return VT_OK;
}

/* n frames p0 -> p1, all received. */
static int
traffic(unsigned int n)
{
	struct rte_mbuf *m[BURST];
	unsigned int i;

	for (i = 0; i < n; i++)
		m[i] = simple_frame(&mac1, 100, (uint8_t)i);
	VT_CHECK_EQ(send_all(p0, 0, m, n), n, "send");
	VT_CHECK_EQ(recv_n(p1, 0, m, n), n, "receive");
	rte_pktmbuf_free_bulk(m, n);
	return VT_OK;
}

static int
stats_are(uint64_t rx, uint64_t tx, const char *when)
{
	struct rte_eth_stats s0, s1;

	VT_CHECK_EQ(rte_eth_stats_get(p0, &s0), 0, "stats");
	VT_CHECK_EQ(rte_eth_stats_get(p1, &s1), 0, "stats");
	VT_CHECK_EQ(s1.ipackets, rx, "ipackets %s", when);
	VT_CHECK_EQ(s1.ibytes, rx * 100, "ibytes %s", when);
	VT_CHECK_EQ(s1.q_ipackets[0], rx, "q0 ipackets %s", when);
	VT_CHECK_EQ(xstat(p1, "rx_q0_packets"), rx, "rx_q0_packets %s", when);
	VT_CHECK_EQ(s0.opackets, tx, "opackets %s", when);
	VT_CHECK_EQ(s0.obytes, tx * 100, "obytes %s", when);
	VT_CHECK_EQ(xstat(p0, "tx_q0_packets"), tx, "tx_q0_packets %s", when);
	return VT_OK;
}

/* Counters only grow until stats_reset: queue setup again, queue count
 * changes, stop/start and MTU changes keep them. */
static int
test_stats_survive_reconfig(void)
{
	struct rte_eth_rxconf rxc;
	struct rte_eth_txconf txc;
	struct rte_eth_stats s1;
	int ret;

	memset(&rxc, 0, sizeof(rxc));
	memset(&txc, 0, sizeof(txc));
	VT_CHECK_EQ(ports_default(), 0, "ports");
	VT_CHECK_EQ(rte_eth_stats_reset(p0), 0, "reset");
	VT_CHECK_EQ(rte_eth_stats_reset(p1), 0, "reset");
	ret = traffic(10);
	if (ret == VT_OK)
		ret = stats_are(10, 10, "after traffic");
	if (ret != VT_OK)
		return ret;

	/* Queues set up again on stopped ports. */
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_eth_rx_queue_setup(p1, 0, 128, 0, &rxc, pool), 0,
		    "Rx queue again");
	VT_CHECK_EQ(rte_eth_dev_stop(p0), 0, "stop");
	VT_CHECK_EQ(rte_eth_tx_queue_setup(p0, 0, 128, 0, &txc), 0,
		    "Tx queue again");
	VT_CHECK_EQ(rte_eth_dev_start(p0), 0, "start");
	VT_CHECK_EQ(rte_eth_dev_start(p1), 0, "start");
	ret = stats_are(10, 10, "after queue setup");
	if (ret != VT_OK)
		return ret;

	/* Two queues, then one again: the second's counts stay the
	 * port's. */
	VT_CHECK_EQ(port_up(p1, 2, 0, 256, NULL, 0, 0), 0, "p1 2 queues");
	VT_CHECK_EQ(port_up(p0, 2, 0, 256, NULL, 0, 0), 0, "p0 2 queues");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	ret = stats_are(10, 10, "with two queues");
	if (ret == VT_OK)
		ret = traffic(5);
	if (ret != VT_OK)
		return ret;
	/* Send 3 more from queue 1 of p0. */
	{
		struct rte_mbuf *m[3];
		unsigned int i;

		for (i = 0; i < 3; i++)
			m[i] = simple_frame(&mac1, 100, (uint8_t)i);
		VT_CHECK_EQ(send_all(p0, 1, m, 3), 3, "send on queue 1");
		VT_CHECK_EQ(recv_n(p1, 0, m, 3), 3, "receive");
		rte_pktmbuf_free_bulk(m, 3);
	}
	VT_CHECK_EQ(xstat(p0, "tx_q1_packets"), 3, "tx_q1_packets");
	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0 1 queue");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, 0, 0), 0, "p1 1 queue");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	{
		struct rte_eth_stats s0;

		VT_CHECK_EQ(rte_eth_stats_get(p0, &s0), 0, "stats");
		VT_CHECK_EQ(s0.opackets, 18, "queue 1's packets kept");
		VT_CHECK_EQ(s0.q_opackets[0], 15, "queue 0 counts on");
		VT_CHECK_EQ(s0.q_opackets[1], 0, "queue 1 is gone");
	}
	VT_CHECK_EQ(rte_eth_stats_get(p1, &s1), 0, "stats");
	VT_CHECK_EQ(s1.ipackets, 18, "ipackets after 2 -> 1 queues");

	/* Stop/start and an MTU change. */
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_start(p1), 0, "start");
#ifndef VT_RDMA_GLUE
	VT_CHECK_EQ(rte_eth_dev_set_mtu(p1, 1400), 0, "MTU");
#else
	/* The rdma-core glue sets the MTU of the port's netdev; a link in
	 * memory has none. */
	VT_CHECK_EQ(rte_eth_dev_set_mtu(p1, 1400), -ENODEV, "no netdev");
#endif
	VT_CHECK_EQ(rte_eth_stats_get(p1, &s1), 0, "stats");
	VT_CHECK_EQ(s1.ipackets, 18, "ipackets after stop/start and MTU");

	/* Only a reset starts over, and what it cleared stays cleared
	 * when queues are set up again. */
	VT_CHECK_EQ(rte_eth_stats_reset(p0), 0, "reset");
	VT_CHECK_EQ(rte_eth_xstats_reset(p1), 0, "reset");
	ret = stats_are(0, 0, "after reset");
	if (ret != VT_OK)
		return ret;
	VT_CHECK_EQ(ports_default(), 0, "set up again");
	ret = stats_are(0, 0, "after reset and setup");
	if (ret == VT_OK)
		ret = traffic(4);
	if (ret == VT_OK)
		ret = stats_are(4, 4, "after new traffic");
	return ret;
}

/* Packet types set on every received mbuf, and advertised. */
static int
test_ptypes(void)
{
	static const struct {
		struct fspec f;
		uint32_t ptype;
	} cases[] = {
		{ { .proto = IPPROTO_UDP, .payload = 30 },
		  RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_UDP },
		{ { .proto = IPPROTO_TCP, .payload = 30 },
		  RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_TCP },
		{ { .proto = IPPROTO_UDP, .ihl = 7, .payload = 30 },
		  RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4_EXT |
			  RTE_PTYPE_L4_UDP },
		{ { .v6 = true, .proto = IPPROTO_UDP, .payload = 30 },
		  RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_UDP },
		{ { .v6 = true, .proto = IPPROTO_TCP, .payload = 30 },
		  RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV6 | RTE_PTYPE_L4_TCP },
		{ { .tpid = RTE_ETHER_TYPE_VLAN,
		    .tci = 7,
		    .proto = IPPROTO_TCP,
		    .payload = 30 },
		  RTE_PTYPE_L2_ETHER_VLAN | RTE_PTYPE_L3_IPV4 |
			  RTE_PTYPE_L4_TCP },
		{ { .proto = IPPROTO_UDP, .frag = 0x2000, .payload = 30 },
		  RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 | RTE_PTYPE_L4_FRAG },
		{ { .proto = IPPROTO_ICMP, .payload = 30 },
		  RTE_PTYPE_L2_ETHER | RTE_PTYPE_L3_IPV4 },
	};
	uint32_t sup[32], mask_seen = 0;
	struct rte_mbuf *m, *r;
	unsigned int i;
	int n, j;

	VT_CHECK_EQ(ports_default(), 0, "ports");
	n = rte_eth_dev_get_supported_ptypes(p1, RTE_PTYPE_ALL_MASK, sup,
					     RTE_DIM(sup));
	VT_CHECK(n > 0 && n <= (int)RTE_DIM(sup), "supported ptypes: %d", n);
	for (i = 0; i < RTE_DIM(cases); i++) {
		struct fspec f = cases[i].f;

		f.dst = &mac1;
		r = through(build(pool, &f));
		VT_CHECK(r != NULL, "case %u received", i);
		VT_CHECK_EQ(r->packet_type, cases[i].ptype, "case %u ptype", i);
		rte_pktmbuf_free(r);
		/* Every layer the port sets is one it advertises. */
		for (j = 0; j < n; j++)
			if ((cases[i].ptype & RTE_PTYPE_L2_MASK) == sup[j] ||
			    (cases[i].ptype & RTE_PTYPE_L3_MASK) == sup[j] ||
			    (cases[i].ptype & RTE_PTYPE_L4_MASK) == sup[j])
				mask_seen |= 1u << i;
	}
	VT_CHECK_EQ(mask_seen, (1u << RTE_DIM(cases)) - 1,
		    "a ptype set but not advertised");
	/* ARP: Ethernet only. */
	m = simple_frame(&mac1, 64, 0);
	VT_CHECK(m != NULL, "alloc");
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type =
		RTE_BE16(RTE_ETHER_TYPE_ARP);
	r = through(m);
	VT_CHECK(r != NULL, "ARP received");
	VT_CHECK_EQ(r->packet_type, RTE_PTYPE_L2_ETHER, "ARP ptype");
	rte_pktmbuf_free(r);
	/* An application that needs none: not parsed. */
	VT_CHECK_EQ(rte_eth_dev_set_ptypes(p1, RTE_PTYPE_UNKNOWN, NULL, 0), 0,
		    "set_ptypes none");
	r = through(build(pool, &(struct fspec){ .dst = &mac1,
						 .proto = IPPROTO_UDP,
						 .payload = 30 }));
	VT_CHECK(r != NULL, "received");
	VT_CHECK_EQ(r->packet_type, RTE_PTYPE_UNKNOWN,
		    "no ptype when unwanted");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(rte_eth_dev_set_ptypes(p1, RTE_PTYPE_L3_MASK, sup,
					   RTE_DIM(sup)) >= 0,
		    1, "set_ptypes L3");
	r = through(build(pool, &(struct fspec){ .dst = &mac1,
						 .proto = IPPROTO_UDP,
						 .payload = 30 }));
	VT_CHECK(r != NULL, "received");
	VT_CHECK_EQ(r->packet_type & RTE_PTYPE_L3_MASK, RTE_PTYPE_L3_IPV4,
		    "ptypes back");
	rte_pktmbuf_free(r);
	return VT_OK;
}

#define CKSUM_MASK (RTE_MBUF_F_RX_IP_CKSUM_MASK | RTE_MBUF_F_RX_L4_CKSUM_MASK)
#define IP_GOOD RTE_MBUF_F_RX_IP_CKSUM_GOOD
#define IP_BAD RTE_MBUF_F_RX_IP_CKSUM_BAD
#define IP_UNK RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN
#define L4_GOOD RTE_MBUF_F_RX_L4_CKSUM_GOOD
#define L4_BAD RTE_MBUF_F_RX_L4_CKSUM_BAD
#define L4_UNK RTE_MBUF_F_RX_L4_CKSUM_UNKNOWN

/*
 * Checksum flags say GOOD, BAD or UNKNOWN for what was really in the
 * frame, with and without packet type parsing, from port tx to port rx:
 * whether the device vouches for good IPv4 frames (the generic profile)
 * or for none (mlx5: no IBV_WC_IP_CSUM_OK on a work queue), the verdicts
 * are the same.
 */
static int
rx_checksum_cases(uint16_t tx, uint16_t rx, const char *tag)
{
	static const struct {
		struct fspec f;
		uint64_t flags;
	} cases[] = {
		{ { .proto = IPPROTO_TCP, .payload = 40 }, IP_GOOD | L4_GOOD },
		{ { .proto = IPPROTO_UDP, .payload = 41 }, IP_GOOD | L4_GOOD },
		{ { .proto = IPPROTO_UDP, .payload = 41, .udp_zero = true },
		  IP_GOOD | L4_GOOD },
		{ { .proto = IPPROTO_TCP, .payload = 40, .bad_ip = true },
		  IP_BAD | L4_UNK },
		{ { .proto = IPPROTO_TCP, .payload = 40, .bad_l4 = true },
		  IP_GOOD | L4_BAD },
		{ { .proto = IPPROTO_UDP, .payload = 33, .bad_l4 = true },
		  IP_GOOD | L4_BAD },
		{ { .proto = IPPROTO_UDP,
		    .payload = 33,
		    .bad_ip = true,
		    .bad_l4 = true },
		  IP_BAD | L4_UNK },
		{ { .tpid = RTE_ETHER_TYPE_VLAN,
		    .tci = 9,
		    .proto = IPPROTO_TCP,
		    .payload = 40,
		    .bad_l4 = true },
		  IP_GOOD | L4_BAD },
		{ { .proto = IPPROTO_TCP, .ihl = 6, .payload = 40 },
		  IP_GOOD | L4_GOOD },
		{ { .proto = IPPROTO_ICMP, .payload = 20 }, IP_GOOD | L4_UNK },
		{ { .proto = IPPROTO_ICMP, .payload = 20, .bad_ip = true },
		  IP_BAD | L4_UNK },
		{ { .proto = IPPROTO_UDP, .frag = 0x2000, .payload = 20 },
		  IP_GOOD | L4_UNK },
		/* IPv6: no header checksum; TCP and UDP are checked, and a
		 * UDP checksum of 0 is not allowed (RFC 8200 8.1). */
		{ { .v6 = true, .proto = IPPROTO_UDP, .payload = 20 },
		  IP_UNK | L4_GOOD },
		{ { .v6 = true, .proto = IPPROTO_TCP, .payload = 21 },
		  IP_UNK | L4_GOOD },
		{ { .v6 = true,
		    .proto = IPPROTO_TCP,
		    .payload = 20,
		    .bad_l4 = true },
		  IP_UNK | L4_BAD },
		{ { .v6 = true,
		    .proto = IPPROTO_UDP,
		    .payload = 19,
		    .bad_l4 = true },
		  IP_UNK | L4_BAD },
		{ { .v6 = true,
		    .proto = IPPROTO_UDP,
		    .payload = 20,
		    .udp_zero = true },
		  IP_UNK | L4_BAD },
		{ { .v6 = true,
		    .tpid = RTE_ETHER_TYPE_VLAN,
		    .tci = 3,
		    .proto = IPPROTO_UDP,
		    .payload = 30 },
		  IP_UNK | L4_GOOD },
		{ { .v6 = true, .proto = IPPROTO_ICMPV6, .payload = 20 },
		  IP_UNK | L4_UNK },
	};
	struct rte_ether_addr dst;
	struct rte_mbuf *r;
	unsigned int i, pass;

	VT_CHECK_EQ(rte_eth_macaddr_get(rx, &dst), 0, "%s: mac", tag);
	VT_CHECK_EQ(port_up(tx, 1, 0, 256, NULL, 0, 0), 0, "%s: tx port", tag);
	VT_CHECK_EQ(port_up(rx, 1, 0, 256, NULL, RTE_ETH_RX_OFFLOAD_CHECKSUM,
			    0),
		    0, "%s: rx port with checksum flags", tag);
	VT_CHECK_EQ(rte_eth_promiscuous_disable(rx), 0, "promisc");
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1)
			VT_CHECK_EQ(rte_eth_dev_set_ptypes(rx,
							   RTE_PTYPE_UNKNOWN,
							   NULL, 0),
				    0, "no ptypes");
		for (i = 0; i < RTE_DIM(cases); i++) {
			struct fspec f = cases[i].f;

			f.dst = &dst;
			r = through_on(tx, rx, build(pool, &f));
			VT_CHECK(r != NULL, "%s: case %u received", tag, i);
			VT_CHECK_EQ(r->ol_flags & CKSUM_MASK, cases[i].flags,
				    "%s: case %u, pass %u: flags", tag, i,
				    pass);
			rte_pktmbuf_free(r);
		}
	}
	VT_CHECK_EQ(rte_eth_dev_set_ptypes(rx, RTE_PTYPE_ALL_MASK, NULL, 0), 0,
		    "ptypes back");
	/* Without the offload, no verdict at all. */
	VT_CHECK_EQ(port_up(rx, 1, 0, 256, NULL, 0, 0), 0, "%s: plain", tag);
	VT_CHECK_EQ(rte_eth_promiscuous_disable(rx), 0, "promisc");
	r = through_on(tx, rx,
		       build(pool, &(struct fspec){ .dst = &dst,
						    .proto = IPPROTO_TCP,
						    .payload = 40,
						    .bad_l4 = true }));
	VT_CHECK(r != NULL, "received");
	VT_CHECK_EQ(r->ol_flags & CKSUM_MASK, 0, "UNKNOWN without the offload");
	rte_pktmbuf_free(r);
	return VT_OK;
}

static int
test_rx_checksum_flags(void)
{
	struct rte_eth_dev_info info;
	struct vt_pair pp;
	int ret;

	/* What the port delivers on any device: the burst's verdicts. */
	VT_CHECK_EQ(rte_eth_dev_info_get(p1, &info), 0, "info");
	VT_CHECK_EQ(info.rx_queue_offload_capa & RTE_ETH_RX_OFFLOAD_CHECKSUM,
		    RTE_ETH_RX_OFFLOAD_CHECKSUM, "offered");
	ret = rx_checksum_cases(p0, p1, "mlx5");
	if (ret != VT_OK)
		return ret;
	VT_CHECK_EQ(vt_pair_open(&pp, "csg", 1, 0, 0, 0), 0, "generic pair");
	ret = rx_checksum_cases(pp.a, pp.b, "generic");
	VT_CHECK_EQ(vt_pair_close(&pp), 0, "close");
	return ret;
}

/* A tagged frame to p1; the received packet (NULL if none). */
static struct rte_mbuf *
tagged(uint16_t tpid, uint16_t tci, const struct rte_ether_addr *dst)
{
	return through(build(pool, &(struct fspec){ .dst = dst,
						    .tpid = tpid,
						    .tci = tci,
						    .proto = IPPROTO_UDP,
						    .payload = 50 }));
}

static int
test_vlan_strip(void)
{
	const uint64_t fl = RTE_MBUF_F_RX_VLAN | RTE_MBUF_F_RX_VLAN_STRIPPED;
	struct rte_eth_dev_info info;
	struct rte_mbuf *r;
	uint16_t type;

	VT_CHECK_EQ(rte_eth_dev_info_get(p1, &info), 0, "info");
	VT_CHECK(info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_STRIP,
		 "VLAN strip offered");
	VT_CHECK(info.rx_queue_offload_capa & RTE_ETH_RX_OFFLOAD_VLAN_STRIP,
		 "per queue");
	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, RTE_ETH_RX_OFFLOAD_VLAN_STRIP,
			    0),
		    0, "p1 stripping");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	/* PCP 5, VID 100. */
	r = tagged(RTE_ETHER_TYPE_VLAN, 0xa064, &mac1);
	VT_CHECK(r != NULL, "tagged frame received");
	VT_CHECK_EQ(r->ol_flags & fl, fl, "stripped flags");
	VT_CHECK_EQ(r->vlan_tci, 0xa064, "TCI");
	VT_CHECK_EQ(r->pkt_len, 14 + 20 + 8 + 50, "tag gone from the data");
	type = rte_pktmbuf_mtod(r, struct rte_ether_hdr *)->ether_type;
	VT_CHECK_EQ(rte_be_to_cpu_16(type), RTE_ETHER_TYPE_IPV4, "IPv4 next");
	VT_CHECK_EQ(r->packet_type & RTE_PTYPE_L3_MASK, RTE_PTYPE_L3_IPV4,
		    "ptype of the stripped frame");
	rte_pktmbuf_free(r);
	r = through(build(pool, &(struct fspec){ .dst = &mac1,
						 .proto = IPPROTO_UDP,
						 .payload = 50 }));
	VT_CHECK(r != NULL && !(r->ol_flags & fl), "untagged: no flags");
	rte_pktmbuf_free(r);
	/* 802.1ad outer tags are not C-VLAN tags: left in place. */
	r = tagged(RTE_ETHER_TYPE_QINQ, 0x0033, &mac1);
	VT_CHECK(r != NULL && !(r->ol_flags & fl) &&
			 r->pkt_len == 14 + 4 + 20 + 8 + 50,
		 "S-tag kept");
	rte_pktmbuf_free(r);
	/* Off while running (ibv_modify_wq), then on for the queue. */
	VT_CHECK_EQ(rte_eth_dev_set_vlan_offload(p1, 0), 0, "strip off");
	r = tagged(RTE_ETHER_TYPE_VLAN, 0x0064, &mac1);
	VT_CHECK(r != NULL && !(r->ol_flags & fl) &&
			 r->pkt_len == 14 + 4 + 20 + 8 + 50,
		 "tag kept with stripping off");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(rte_eth_dev_set_vlan_strip_on_queue(p1, 0, 1), 0,
		    "strip on queue 0");
	r = tagged(RTE_ETHER_TYPE_VLAN, 0x0065, &mac1);
	VT_CHECK(r != NULL && (r->ol_flags & fl) == fl && r->vlan_tci == 0x0065,
		 "stripped again");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(ports_default(), 0, "ports");
	return VT_OK;
}

static int
test_vlan_filter(void)
{
	const struct rte_ether_addr bcast = {
		.addr_bytes = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff }
	};
	struct rte_mbuf *r;
	unsigned int i;
	int ret;

	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, RTE_ETH_RX_OFFLOAD_VLAN_FILTER,
			    0),
		    0, "p1 filtering");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	/* No VLAN allowed: nothing, untagged included. */
	VT_CHECK_EQ(delivered(&mac1), 0, "untagged dropped");
	r = tagged(RTE_ETHER_TYPE_VLAN, 10, &mac1);
	VT_CHECK(r == NULL, "VLAN 10 dropped");
	VT_CHECK_EQ(rte_eth_dev_vlan_filter(p1, 10, 1), 0, "allow 10");
	r = tagged(RTE_ETHER_TYPE_VLAN, 10, &mac1);
	VT_CHECK(r != NULL, "VLAN 10 to our MAC");
	rte_pktmbuf_free(r);
	r = tagged(RTE_ETHER_TYPE_VLAN, 0xe00a, &mac1);
	VT_CHECK(r != NULL, "VLAN 10 with priority 7");
	rte_pktmbuf_free(r);
	r = tagged(RTE_ETHER_TYPE_VLAN, 10, &bcast);
	VT_CHECK(r != NULL, "VLAN 10 broadcast");
	rte_pktmbuf_free(r);
	r = tagged(RTE_ETHER_TYPE_VLAN, 11, &mac1);
	VT_CHECK(r == NULL, "VLAN 11 dropped");
	VT_CHECK_EQ(delivered(&mac1), 0, "untagged still dropped");
	r = tagged(RTE_ETHER_TYPE_VLAN, 10, &other_mac);
	VT_CHECK(r == NULL, "VLAN 10 to another MAC dropped");
	/* Promiscuous: everything, whatever the VLAN. */
	VT_CHECK_EQ(rte_eth_promiscuous_enable(p1), 0, "promisc on");
	r = tagged(RTE_ETHER_TYPE_VLAN, 11, &other_mac);
	VT_CHECK(r != NULL, "promiscuous takes VLAN 11");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc off");
	VT_CHECK_EQ(rte_eth_dev_vlan_filter(p1, 10, 0), 0, "remove 10");
	r = tagged(RTE_ETHER_TYPE_VLAN, 10, &mac1);
	VT_CHECK(r == NULL, "VLAN 10 dropped again");
	/* A limit, named. */
	for (i = 0, ret = 0; i < VSTEER_MAX_VLAN && ret == 0; i++)
		ret = rte_eth_dev_vlan_filter(p1, (uint16_t)(100 + i), 1);
	VT_CHECK_EQ(ret, 0, "%u VLANs", VSTEER_MAX_VLAN);
	VT_CHECK_EQ(rte_eth_dev_vlan_filter(p1, 4000, 1), -ENOSPC,
		    "one VLAN more");
	r = tagged(RTE_ETHER_TYPE_VLAN, 100 + VSTEER_MAX_VLAN - 1, &mac1);
	VT_CHECK(r != NULL, "the last VLAN allowed");
	rte_pktmbuf_free(r);
	/* Filtering off while running: untagged frames again. */
	VT_CHECK_EQ(rte_eth_dev_set_vlan_offload(p1, 0), 0, "filter off");
	VT_CHECK_EQ(delivered(&mac1), 1, "untagged delivered");
	r = tagged(RTE_ETHER_TYPE_VLAN, 11, &mac1);
	VT_CHECK(r != NULL, "any VLAN delivered");
	rte_pktmbuf_free(r);
	VT_CHECK_EQ(ports_default(), 0, "ports");
	return VT_OK;
}

/* rx_queue_count and descriptor status, from the burst's thread. */
static int
test_queue_status(void)
{
	struct rte_mbuf *m[8], *r[8];
	unsigned int i;
	int cnt;

	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 1, 0, 64, NULL, 0, 0), 0, "p1, 64 buffers");
	VT_CHECK_EQ(rte_eth_promiscuous_disable(p1), 0, "promisc");
	VT_CHECK_EQ(rte_eth_rx_queue_count(p1, 0), 0, "nothing yet");
	VT_CHECK_EQ(rte_eth_rx_descriptor_status(p1, 0, 0),
		    RTE_ETH_RX_DESC_AVAIL, "waiting for a frame");
	for (i = 0; i < 5; i++)
		m[i] = simple_frame(&mac1, (uint16_t)(80 + i), (uint8_t)i);
	VT_CHECK_EQ(send_all(p0, 0, m, 5), 5, "send");
	cnt = rte_eth_rx_queue_count(p1, 0);
	VT_CHECK_EQ(cnt, 5, "5 filled");
	VT_CHECK_EQ(rte_eth_rx_descriptor_status(p1, 0, 4),
		    RTE_ETH_RX_DESC_DONE, "the fifth is done");
	VT_CHECK_EQ(rte_eth_rx_descriptor_status(p1, 0, 5),
		    RTE_ETH_RX_DESC_AVAIL, "the sixth waits");
	VT_CHECK_EQ(rte_eth_rx_descriptor_status(p1, 0, 64), -EINVAL,
		    "beyond the ring");
	/* The burst takes what the query read first, in order. */
	VT_CHECK_EQ(rte_eth_rx_burst(p1, 0, r, 2), 2, "two");
	VT_CHECK(r[0]->pkt_len == 80 && r[1]->pkt_len == 81, "first two");
	VT_CHECK_EQ(rte_eth_rx_queue_count(p1, 0), 3, "3 left");
	VT_CHECK_EQ(rte_eth_rx_burst(p1, 0, r + 2, 8), 3, "the rest");
	for (i = 0; i < 5; i++)
		VT_CHECK_EQ(r[i]->pkt_len, 80 + i, "frame %u in order", i);
	rte_pktmbuf_free_bulk(r, 5);
	VT_CHECK_EQ(rte_eth_rx_queue_count(p1, 0), 0, "empty");
	/* Tx: sent frames free their descriptors. */
	VT_CHECK_EQ(rte_eth_tx_descriptor_status(p0, 0, 0),
		    RTE_ETH_TX_DESC_DONE, "next descriptor free");
	VT_CHECK_EQ(rte_eth_tx_descriptor_status(p0, 0, 255),
		    RTE_ETH_TX_DESC_UNAVAIL, "the one kept free");
	VT_CHECK_EQ(rte_eth_tx_descriptor_status(p0, 0, 256), -EINVAL,
		    "beyond the ring");
	drain(p1, 1);
	return VT_OK;
}

/* Each queue tells the device that one thread uses it: a single-threaded
 * CQ, its WQ or send QP on a parent domain over the port's PD with a
 * thread domain of its own, so that softverbs (as libmlx5) locks none of
 * them; the domains go with the queues at stop. */
static int
test_queue_domains(void)
{
	struct vsteer_priv *priv = rte_eth_devices[p1].data->dev_private;
	struct rte_mbuf *m[4], *r[8];
	unsigned int i, got, q;

	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 4, RTE_ETH_RSS_IP, 256, NULL, 0, 0), 0, "p1");
	for (q = 0; q < 4; q++) {
		struct vsteer_rxq *rxq = rte_eth_devices[p1].data->rx_queues[q];
		struct vsteer_txq *txq = rte_eth_devices[p1].data->tx_queues[q];
		struct sv_wq *wq = sv_container_of(rxq->wq, struct sv_wq, wq);

		VT_CHECK(rxq->dom.td != NULL && rxq->dom.pd != NULL,
			 "rx queue %u: thread and parent domains", q);
		VT_CHECK(txq->dom.td != NULL && txq->dom.pd != NULL &&
				 txq->dom.td != rxq->dom.td,
			 "tx queue %u: domains of its own", q);
		VT_CHECK(sv_cq_from_ibv(ibv_cq_ex_to_cq(rxq->cq))->single &&
				 sv_cq_from_ibv(ibv_cq_ex_to_cq(txq->cq))
					 ->single,
			 "queue %u: single-threaded CQs", q);
		VT_CHECK(wq->single && wq->pd == sv_pd_of(priv->pd),
			 "rx queue %u: WQ without a lock, in the port's PD", q);
		VT_CHECK(sv_qp(txq->qp)->single &&
				 sv_qp(txq->qp)->parent ==
					 sv_pd_of(txq->dom.pd),
			 "tx queue %u: QP without a lock on its domain", q);
	}
	/* Traffic through them, in the port's registered memory. */
	for (i = 0; i < 4; i++)
		m[i] = simple_frame(&mac1, (uint16_t)(100 + i), (uint8_t)i);
	VT_CHECK_EQ(send_all(p0, 0, m, 4), 4, "send");
	for (got = 0, q = 0; q < 4; q++) {
		unsigned int n = rte_eth_rx_burst(p1, (uint16_t)q, r, 8);

		got += n;
		rte_pktmbuf_free_bulk(r, n);
	}
	VT_CHECK_EQ(got, 4, "received on the queues");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	for (q = 0; q < 4; q++) {
		struct vsteer_rxq *rxq = rte_eth_devices[p1].data->rx_queues[q];
		struct vsteer_txq *txq = rte_eth_devices[p1].data->tx_queues[q];

		VT_CHECK(rxq->dom.td == NULL && rxq->dom.pd == NULL &&
				 txq->dom.td == NULL && txq->dom.pd == NULL,
			 "queue %u: domains released at stop", q);
	}
	VT_CHECK_EQ(ports_default(), 0, "back to one queue");
	return VT_OK;
}

#ifndef VT_RDMA_GLUE
/* Firmware version, burst modes, link speed/duplex/status. */
static int
test_port_info(void)
{
	struct rte_eth_burst_mode bm;
	struct rte_eth_link link;
	char fw[64];

	VT_CHECK_EQ(ports_default(), 0, "ports");
	VT_CHECK_EQ(rte_eth_dev_fw_version_get(p0, fw, sizeof(fw)), 0, "fw");
	VT_CHECK(strcmp(fw, "softverbs-1") == 0, "fw_ver of the device: %s",
		 fw);
	VT_CHECK_EQ(rte_eth_dev_fw_version_get(p0, fw, 4),
		    (int)strlen("softverbs-1") + 1, "too small: size needed");
	VT_CHECK_EQ(rte_eth_rx_burst_mode_get(p0, 0, &bm), 0, "rx mode");
	VT_CHECK(strstr(bm.info, "verbs CQ-ex") != NULL &&
			 strstr(bm.info, "software packet types") != NULL,
		 "rx mode: %s", bm.info);
	VT_CHECK_EQ(rte_eth_tx_burst_mode_get(p0, 0, &bm), 0, "tx mode");
	VT_CHECK(strstr(bm.info, "post_send") != NULL, "tx mode: %s", bm.info);
	VT_CHECK_EQ(rte_eth_link_get_nowait(p0, &link), 0, "link");
	VT_CHECK_EQ(link.link_status, RTE_ETH_LINK_UP, "up");
	VT_CHECK_EQ(link.link_duplex, RTE_ETH_LINK_FULL_DUPLEX, "full duplex");
	/* A link in memory has no speed to tell. */
	VT_CHECK_EQ(link.link_speed, RTE_ETH_SPEED_NUM_UNKNOWN, "speed");
	VT_CHECK_EQ(rte_eth_dev_stop(p0), 0, "stop");
	VT_CHECK_EQ(rte_eth_link_get_nowait(p0, &link), 0, "link");
	VT_CHECK_EQ(link.link_status, RTE_ETH_LINK_DOWN, "down when stopped");
	VT_CHECK_EQ(rte_eth_dev_start(p0), 0, "start");
	return VT_OK;
}
#endif

#ifdef VT_RDMA_GLUE
/* On rdma-core the MTU and the link come from the netdev bound to the
 * port: without one the port keeps the device's MTU, refuses a change with
 * ENODEV, and reports no speed. */
static int
test_rdma_no_netdev(void)
{
	struct rte_eth_dev_info info;
	struct rte_eth_link link;

	VT_CHECK_EQ(rte_eth_dev_info_get(p0, &info), 0, "info");
	VT_CHECK_EQ(info.max_mtu, 4096, "max MTU from the IB MTU enum");
	VT_CHECK_EQ(rte_eth_dev_set_mtu(p0, 1400), -ENODEV, "MTU change");
	VT_CHECK_EQ(rte_eth_link_get_nowait(p0, &link), 0, "link");
	VT_CHECK(link.link_speed != 0, "speed from query_port");
	return VT_OK;
}
#endif

/* ---- interrupts, queue start/stop ---- */

/* Wait on the calling thread's epoll set for at most ms: events, or -1. */
static int
epoll_events(int ms, void **data)
{
	struct rte_epoll_event ev[4];
	int n;

	n = rte_epoll_wait(RTE_EPOLL_PER_THREAD, ev, RTE_DIM(ev), ms);
	if (n > 0 && data != NULL)
		*data = ev[0].epdata.data;
	return n;
}

/* One frame of len bytes from p0, received on p1 queue 0 after a wake-up
 * on the queue's interrupt, which then is disabled. */
static int
intr_round(void *tag, uint16_t len)
{
	struct rte_mbuf *m[4];
	void *data = NULL;

	VT_CHECK_EQ(rte_eth_dev_rx_intr_enable(p1, 0), 0, "enable");
	VT_CHECK_EQ(epoll_events(150, NULL), 0, "no wake-up without traffic");
	VT_CHECK_EQ(send_one(p0, simple_frame(&mac1, len, 3)), 0, "send");
	/* Nobody polls the queue meanwhile: the fd wakes the sleeper. */
	VT_CHECK_EQ(epoll_events(2000, &data), 1, "woken by the frame");
	VT_CHECK(data == tag, "the queue's event data");
	VT_CHECK_EQ(rte_eth_dev_rx_intr_disable(p1, 0), 0, "disable");
	VT_CHECK_EQ(rte_eth_rx_burst(p1, 0, m, RTE_DIM(m)), 1, "the frame");
	VT_CHECK_EQ(m[0]->pkt_len, len, "its length");
	rte_pktmbuf_free(m[0]);
	return VT_OK;
}

/*
 * Rx interrupts as l3fwd-power uses them: the queue's fd in the thread's
 * epoll set (rte_eth_dev_rx_intr_ctl_q), enable, sleep with a timeout, a
 * frame from the other port wakes it, disable, the burst returns the
 * frame. Disabled, a frame wakes nobody; after a port restart the queue
 * has a new fd, added again.
 */
static int
test_rx_intr(void)
{
	void *tag = (void *)(uintptr_t)0x5eed;
	struct rte_mbuf *m[4];
	int ret, fd;

	port_up_intr.rxq = 1;
	ret = ports_default();
	port_up_intr.rxq = 0;
	VT_CHECK_EQ(ret, 0, "ports, p1 with Rx interrupts");
	fd = rte_eth_dev_rx_intr_ctl_q_get_fd(p1, 0);
	VT_CHECK(fd >= 0, "queue 0 has an event fd");
	VT_CHECK_EQ(rte_eth_dev_rx_intr_ctl_q(p1, 0, RTE_EPOLL_PER_THREAD,
					      RTE_INTR_EVENT_ADD, tag),
		    0, "fd in the thread's epoll set");
	ret = intr_round(tag, 70);
	if (ret != VT_OK)
		return ret;
	/* Disabled: the next frame wakes nothing, and is there to take. */
	VT_CHECK_EQ(send_one(p0, simple_frame(&mac1, 71, 3)), 0, "send");
	VT_CHECK_EQ(epoll_events(150, NULL), 0, "no event while disabled");
	VT_CHECK_EQ(recv_n(p1, 0, m, 1), 1, "the frame");
	rte_pktmbuf_free(m[0]);
	ret = intr_round(tag, 72);
	if (ret != VT_OK)
		return ret;
	/* A restart makes new channels: the old fd left the set. */
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_start(p1), 0, "start");
	VT_CHECK_EQ(rte_eth_dev_rx_intr_ctl_q(p1, 0, RTE_EPOLL_PER_THREAD,
					      RTE_INTR_EVENT_ADD, tag),
		    0, "added again");
	ret = intr_round(tag, 73);
	if (ret != VT_OK)
		return ret;
	VT_CHECK_EQ(rte_eth_dev_rx_intr_ctl_q(p1, 0, RTE_EPOLL_PER_THREAD,
					      RTE_INTR_EVENT_DEL, NULL),
		    0, "out of the set");
#ifdef VT_RDMA_GLUE
	VT_CHECK(vt_rdma_calls.comp_channel > 0 &&
			 vt_rdma_calls.get_cq_event > 0,
		 "through ibv_create_comp_channel and ibv_get_cq_event");
#endif
	/* Without intr_conf.rxq there is nothing to enable. */
	VT_CHECK_EQ(ports_default(), 0, "ports without interrupts");
	VT_CHECK(rte_eth_dev_rx_intr_enable(p1, 0) < 0, "refused");
	VT_CHECK(rte_eth_dev_rx_intr_ctl_q_get_fd(p1, 0) < 0, "no fd");
	return VT_OK;
}

static unsigned int lsc_calls[RTE_MAX_ETHPORTS];
static uint8_t lsc_status[RTE_MAX_ETHPORTS];

static int
lsc_cb(uint16_t port, enum rte_eth_event_type type, void *arg, void *ret)
{
	struct rte_eth_link link;

	RTE_SET_USED(arg);
	RTE_SET_USED(ret);
	if (type != RTE_ETH_EVENT_INTR_LSC)
		return 0;
	/* What an application reads in its callback. */
	if (rte_eth_link_get_nowait(port, &link) == 0)
		__atomic_store_n(&lsc_status[port], link.link_status,
				 __ATOMIC_RELAXED);
	__atomic_fetch_add(&lsc_calls[port], 1, __ATOMIC_RELEASE);
	return 0;
}

/* Wait up to 2 s for port's LSC callback count to reach n. */
static bool
lsc_wait(uint16_t port, unsigned int n)
{
	uint64_t end = rte_get_timer_cycles() + 2 * rte_get_timer_hz();

	while (__atomic_load_n(&lsc_calls[port], __ATOMIC_ACQUIRE) < n) {
		if (rte_get_timer_cycles() > end)
			return false;
		rte_delay_us_sleep(1000);
	}
	return true;
}

static uint8_t
link_status(uint16_t port)
{
	struct rte_eth_link link;

	memset(&link, 0, sizeof(link));
	rte_eth_link_get_nowait(port, &link);
	return link.link_status;
}

/*
 * Link state interrupts: the port says it has them (RTE_ETH_DEV_INTR_LSC);
 * with intr_conf.lsc, taking the far end of the in-memory link down and up
 * calls the application's RTE_ETH_EVENT_INTR_LSC callback from EAL's
 * interrupt thread, and the link it reads there agrees. The port without
 * intr_conf.lsc calls nothing, and reads the link when asked.
 */
static int
test_lsc(void)
{
	struct rte_eth_dev_info info;
	char far_end[64];
	unsigned int c0, c1;
	int ret;

	VT_CHECK_EQ(rte_eth_dev_info_get(p0, &info), 0, "info");
	VT_CHECK(*info.dev_flags & RTE_ETH_DEV_INTR_LSC, "LSC offered");
	VT_CHECK_EQ(rte_eth_dev_callback_register(p0, RTE_ETH_EVENT_INTR_LSC,
						  lsc_cb, NULL),
		    0, "p0 callback");
	VT_CHECK_EQ(rte_eth_dev_callback_register(p1, RTE_ETH_EVENT_INTR_LSC,
						  lsc_cb, NULL),
		    0, "p1 callback");
	port_up_intr.lsc = 1;
	ret = port_up(p0, 1, 0, 256, NULL, 0, 0);
	port_up_intr.lsc = 0;
	VT_CHECK_EQ(ret, 0, "p0 with intr_conf.lsc");
	VT_CHECK_EQ(port_up(p1, 1, 0, 256, NULL, 0, 0), 0, "p1 without");
	VT_CHECK_EQ(link_status(p0), RTE_ETH_LINK_UP, "p0 up");
	c0 = __atomic_load_n(&lsc_calls[p0], __ATOMIC_ACQUIRE);
	c1 = __atomic_load_n(&lsc_calls[p1], __ATOMIC_ACQUIRE);
	/* p1's end of the link (the second device made on it). */
	snprintf(far_end, sizeof(far_end), "mem:%s.1", link_a);
	VT_CHECK_EQ(softverbs_device_set_link(far_end, false), 0, "far down");
	VT_CHECK(lsc_wait(p0, c0 + 1), "p0's callback for the link down");
	VT_CHECK_EQ(lsc_status[p0], RTE_ETH_LINK_DOWN, "down in the callback");
	VT_CHECK_EQ(link_status(p0), RTE_ETH_LINK_DOWN, "p0 down");
	VT_CHECK_EQ(link_status(p1), RTE_ETH_LINK_DOWN, "p1 down too");
	VT_CHECK_EQ(softverbs_device_set_link(far_end, true), 0, "far up");
	VT_CHECK(lsc_wait(p0, c0 + 2), "p0's callback for the link up");
	VT_CHECK_EQ(lsc_status[p0], RTE_ETH_LINK_UP, "up in the callback");
	VT_CHECK_EQ(link_status(p0), RTE_ETH_LINK_UP, "p0 up");
	VT_CHECK_EQ(link_status(p1), RTE_ETH_LINK_UP, "p1 up");
	/* The port's own stop and start are no link events. */
	VT_CHECK_EQ(rte_eth_dev_stop(p0), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_start(p0), 0, "start");
	VT_CHECK_EQ(link_status(p0), RTE_ETH_LINK_UP, "up again");
	rte_delay_us_sleep(100 * 1000);
	VT_CHECK_EQ(__atomic_load_n(&lsc_calls[p0], __ATOMIC_ACQUIRE), c0 + 2,
		    "no callback for stop/start");
	VT_CHECK_EQ(__atomic_load_n(&lsc_calls[p1], __ATOMIC_ACQUIRE), c1,
		    "none on p1 (no intr_conf.lsc)");
	VT_CHECK_EQ(rte_eth_dev_callback_unregister(p0, RTE_ETH_EVENT_INTR_LSC,
						    lsc_cb, NULL),
		    0, "unregister");
	VT_CHECK_EQ(rte_eth_dev_callback_unregister(p1, RTE_ETH_EVENT_INTR_LSC,
						    lsc_cb, NULL),
		    0, "unregister");
	VT_CHECK_EQ(ports_default(), 0, "ports back");
	return VT_OK;
}

/* A rule on p1: UDP to dport goes to queue q. */
static struct rte_flow *
udp_rule(uint16_t dport, uint16_t q)
{
	struct rte_flow_attr attr = { .ingress = 1 };
	struct rte_flow_item_udp udp = { .hdr.dst_port = RTE_BE16(0) };
	struct rte_flow_item_udp udp_mask = { .hdr.dst_port =
						      RTE_BE16(0xffff) };
	struct rte_flow_item pattern[] = {
		{ .type = RTE_FLOW_ITEM_TYPE_ETH },
		{ .type = RTE_FLOW_ITEM_TYPE_IPV4 },
		{ .type = RTE_FLOW_ITEM_TYPE_UDP,
		  .spec = &udp,
		  .mask = &udp_mask },
		{ .type = RTE_FLOW_ITEM_TYPE_END },
	};
	struct rte_flow_action_queue queue = { .index = q };
	struct rte_flow_action actions[] = {
		{ .type = RTE_FLOW_ACTION_TYPE_QUEUE, .conf = &queue },
		{ .type = RTE_FLOW_ACTION_TYPE_END },
	};
	struct rte_flow_error err;

	udp.hdr.dst_port = rte_cpu_to_be_16(dport);
	return rte_flow_create(p1, &attr, pattern, actions, &err);
}

/* Send n UDP frames to dport from varied sources; counts[q] gets how many
 * p1's RSS (key, reta of nq queues) sends to each queue, the rules
 * aside. */
static int
send_udp(uint16_t n, uint16_t dport, const uint8_t *key, const uint16_t *reta,
	 uint16_t reta_size, unsigned int *counts)
{
	uint16_t i;

	for (i = 0; i < n; i++) {
		uint32_t sip = 0x0a000000 + (rte_rand() & 0xffffff);
		uint32_t dip = 0xc0a80001;
		uint16_t sport = 1024 + (uint16_t)(rte_rand() & 0x7fff);

		if (counts != NULL)
			counts[predict_queue(key, reta, reta_size, sip, dip,
					     sport, dport)]++;
		VT_CHECK_EQ(send_one(p0, udp_frame(pool, &mac1, sip, dip, sport,
						   dport, 80, 0)),
			    0, "send");
	}
	return VT_OK;
}

static uint64_t
imissed(uint16_t port)
{
	struct rte_eth_stats st;

	memset(&st, 0, sizeof(st));
	rte_eth_stats_get(port, &st);
	return st.imissed;
}

static int
rxq_state(uint16_t port, uint16_t q)
{
	struct rte_eth_rxq_info qi;

	memset(&qi, 0xff, sizeof(qi));
	if (rte_eth_rx_queue_info_get(port, q, &qi) != 0)
		return -1;
	if (qi.queue_state != rte_eth_devices[port].data->rx_queue_state[q])
		return -2; /* the two must agree */
	return qi.queue_state;
}

static int
txq_state(uint16_t port, uint16_t q)
{
	struct rte_eth_txq_info qi;

	memset(&qi, 0xff, sizeof(qi));
	if (rte_eth_tx_queue_info_get(port, q, &qi) != 0)
		return -1;
	if (qi.queue_state != rte_eth_devices[port].data->tx_queue_state[q])
		return -2;
	return qi.queue_state;
}

/* What p1's RSS does: its key and RETA (nq queues round-robin). */
static int
rss_of_p1(uint8_t *key, uint16_t *reta, uint16_t *reta_size)
{
	struct rte_eth_rss_reta_entry64 conf[8];
	struct rte_eth_rss_conf rc;
	struct rte_eth_dev_info info;
	unsigned int i;

	VT_CHECK_EQ(rte_eth_dev_info_get(p1, &info), 0, "info");
	memset(&rc, 0, sizeof(rc));
	rc.rss_key = key;
	rc.rss_key_len = 40;
	VT_CHECK_EQ(rte_eth_dev_rss_hash_conf_get(p1, &rc), 0, "key");
	memset(conf, 0, sizeof(conf));
	for (i = 0; i < info.reta_size / RTE_ETH_RETA_GROUP_SIZE; i++)
		conf[i].mask = UINT64_MAX;
	VT_CHECK_EQ(rte_eth_dev_rss_reta_query(p1, conf, info.reta_size), 0,
		    "reta");
	for (i = 0; i < info.reta_size; i++)
		reta[i] = conf[i / 64].reta[i % 64];
	*reta_size = info.reta_size;
	return VT_OK;
}

/*
 * A stopped Rx queue receives nothing: what RSS hashes to it and what a
 * rule steers to it is dropped and counted (imissed, rx_no_buffer_packets)
 * while the other queue gets exactly its share; the rule stays and steers
 * to the queue again once it is started. queue_state follows, in
 * rte_eth_rx_queue_info_get() and dev->data alike.
 */
static int
test_rx_queue_stop_start(void)
{
	const uint64_t hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP;
	unsigned int want[2] = { 0 }, got0, dropped;
	uint16_t reta[512], reta_size = 0;
	struct rte_mbuf *m[64];
	struct rte_flow_error err;
	struct rte_flow *rule;
	uint64_t miss, nobuf;
	uint8_t key[40];
	int ret;

	VT_CHECK_EQ(port_up(p0, 1, 0, 256, NULL, 0, 0), 0, "p0");
	VT_CHECK_EQ(port_up(p1, 2, hf, 128, NULL, 0, 0), 0, "p1, 2 queues");
	ret = rss_of_p1(key, reta, &reta_size);
	if (ret != VT_OK)
		return ret;
	rule = udp_rule(7777, 1);
	VT_CHECK(rule != NULL, "UDP 7777 to queue 1");
	VT_CHECK_EQ(rte_eth_dev_rx_queue_stop(p1, 1), 0, "stop queue 1");
	VT_CHECK_EQ(rxq_state(p1, 1), RTE_ETH_QUEUE_STATE_STOPPED, "stopped");
	VT_CHECK_EQ(rxq_state(p1, 0), RTE_ETH_QUEUE_STATE_STARTED, "q0 runs");
	VT_CHECK_EQ(rte_eth_rx_descriptor_status(p1, 1, 0),
		    RTE_ETH_RX_DESC_UNAVAIL, "no buffer posted");
	miss = imissed(p1);
	nobuf = xstat(p1, "rx_no_buffer_packets");
	rte_srand(77);
	ret = send_udp(40, 4000, key, reta, reta_size, want);
	if (ret != VT_OK)
		return ret;
	ret = send_udp(5, 7777, NULL, NULL, 0, NULL);
	if (ret != VT_OK)
		return ret;
	VT_CHECK(want[0] > 0 && want[1] > 0, "both queues hashed to: %u %u",
		 want[0], want[1]);
	got0 = recv_n(p1, 0, m, RTE_DIM(m));
	rte_pktmbuf_free_bulk(m, got0);
	VT_CHECK_EQ(got0, want[0], "queue 0 gets its share");
	VT_CHECK_EQ(rte_eth_rx_burst(p1, 1, m, RTE_DIM(m)), 0,
		    "nothing from the stopped queue");
	VT_CHECK_EQ(imissed(p1) - miss, want[1] + 5,
		    "the stopped queue's frames counted as missed");
	VT_CHECK_EQ(xstat(p1, "rx_no_buffer_packets") - nobuf, want[1] + 5,
		    "and as rx_no_buffer_packets");
	dropped = want[1] + 5;
	/* Started again: fresh buffers, the rule steers there again. */
	VT_CHECK_EQ(rte_eth_dev_rx_queue_start(p1, 1), 0, "start queue 1");
	VT_CHECK_EQ(rxq_state(p1, 1), RTE_ETH_QUEUE_STATE_STARTED, "started");
	VT_CHECK_EQ(rte_eth_rx_descriptor_status(p1, 1, 0),
		    RTE_ETH_RX_DESC_AVAIL, "buffers posted");
	ret = send_udp(5, 7777, NULL, NULL, 0, NULL);
	if (ret != VT_OK)
		return ret;
	VT_CHECK_EQ(recv_n(p1, 1, m, RTE_DIM(m)), 5, "the rule's frames");
	rte_pktmbuf_free_bulk(m, 5);
	memset(want, 0, sizeof(want));
	ret = send_udp(20, 4001, key, reta, reta_size, want);
	if (ret != VT_OK)
		return ret;
	VT_CHECK_EQ(recv_n(p1, 1, m, RTE_DIM(m)), want[1], "q1's share");
	rte_pktmbuf_free_bulk(m, want[1]);
	VT_CHECK_EQ(recv_n(p1, 0, m, RTE_DIM(m)), want[0], "q0's share");
	rte_pktmbuf_free_bulk(m, want[0]);
	VT_CHECK_EQ(imissed(p1) - miss, dropped, "nothing missed since");
	VT_CHECK_EQ(rte_flow_destroy(p1, rule, &err), 0, "rule");
	VT_CHECK_EQ(rte_eth_dev_rx_queue_stop(p1, 1), 0, "stop again");
	VT_CHECK_EQ(rte_eth_dev_rx_queue_stop(p1, 1), 0, "stopping twice");
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "port stop");
	VT_CHECK_EQ(rxq_state(p1, 0), RTE_ETH_QUEUE_STATE_STOPPED, "q0 too");
	VT_CHECK_EQ(rte_eth_dev_rx_queue_start(p1, 1), -EINVAL,
		    "no queue start on a stopped port");
	VT_CHECK_EQ(rte_eth_dev_start(p1), 0, "port start");
	VT_CHECK_EQ(rxq_state(p1, 1), RTE_ETH_QUEUE_STATE_STARTED,
		    "a port start starts every queue");
	return VT_OK;
}

/*
 * Deferred start: dev_start leaves the queues marked so stopped (an Rx
 * queue's share of the traffic dropped and counted, a Tx queue sending
 * nothing) until rte_eth_dev_{rx,tx}_queue_start; and again at the next
 * port start. A Tx queue stopped at run time sends nothing either.
 */
static int
test_deferred_start(void)
{
	const uint64_t hf = RTE_ETH_RSS_IP | RTE_ETH_RSS_UDP;
	unsigned int want[2] = { 0 };
	uint16_t reta[512], reta_size = 0;
	struct rte_eth_rxq_info rqi;
	struct rte_eth_txq_info tqi;
	struct rte_mbuf *m[64], *f;
	uint64_t miss;
	uint8_t key[40];
	int ret, round;

	port_up_tx_deferred = 1;
	ret = port_up(p0, 1, 0, 256, NULL, 0, 0);
	port_up_tx_deferred = 0;
	VT_CHECK_EQ(ret, 0, "p0, Tx queue 0 deferred");
	port_up_rx_deferred = 2;
	ret = port_up(p1, 2, hf, 128, NULL, 0, 0);
	port_up_rx_deferred = 0;
	VT_CHECK_EQ(ret, 0, "p1, Rx queue 1 deferred");
	VT_CHECK_EQ(txq_state(p0, 0), RTE_ETH_QUEUE_STATE_STOPPED, "Tx q0");
	VT_CHECK_EQ(rxq_state(p1, 0), RTE_ETH_QUEUE_STATE_STARTED, "Rx q0");
	VT_CHECK_EQ(rxq_state(p1, 1), RTE_ETH_QUEUE_STATE_STOPPED, "Rx q1");
	VT_CHECK_EQ(rte_eth_rx_queue_info_get(p1, 1, &rqi), 0, "rxq info");
	VT_CHECK(rqi.conf.rx_deferred_start, "reported deferred");
	VT_CHECK_EQ(rte_eth_tx_queue_info_get(p0, 0, &tqi), 0, "txq info");
	VT_CHECK(tqi.conf.tx_deferred_start, "reported deferred");
	/* The Tx queue takes nothing before it is started. */
	f = simple_frame(&mac1, 64, 9);
	VT_CHECK(f != NULL, "alloc");
	VT_CHECK_EQ(rte_eth_tx_burst(p0, 0, &f, 1), 0, "not sent");
	rte_pktmbuf_free(f);
	VT_CHECK_EQ(drain(p1, 2), 0, "nothing arrived");
	VT_CHECK_EQ(rte_eth_dev_tx_queue_start(p0, 0), 0, "start Tx q0");
	VT_CHECK_EQ(txq_state(p0, 0), RTE_ETH_QUEUE_STATE_STARTED, "Tx q0");
	ret = rss_of_p1(key, reta, &reta_size);
	if (ret != VT_OK)
		return ret;
	miss = imissed(p1);
	rte_srand(78);
	ret = send_udp(40, 5000, key, reta, reta_size, want);
	if (ret != VT_OK)
		return ret;
	VT_CHECK(want[0] > 0 && want[1] > 0, "both hashed to: %u %u", want[0],
		 want[1]);
	VT_CHECK_EQ(recv_n(p1, 0, m, RTE_DIM(m)), want[0], "q0's share");
	rte_pktmbuf_free_bulk(m, want[0]);
	VT_CHECK_EQ(rte_eth_rx_burst(p1, 1, m, RTE_DIM(m)), 0, "q1 waits");
	VT_CHECK_EQ(imissed(p1) - miss, want[1], "q1's share missed");
	VT_CHECK_EQ(rte_eth_dev_rx_queue_start(p1, 1), 0, "start Rx q1");
	VT_CHECK_EQ(rxq_state(p1, 1), RTE_ETH_QUEUE_STATE_STARTED, "Rx q1");
	memset(want, 0, sizeof(want));
	ret = send_udp(40, 5001, key, reta, reta_size, want);
	if (ret != VT_OK)
		return ret;
	VT_CHECK_EQ(recv_n(p1, 1, m, RTE_DIM(m)), want[1], "q1's share");
	rte_pktmbuf_free_bulk(m, want[1]);
	VT_CHECK_EQ(recv_n(p1, 0, m, RTE_DIM(m)), want[0], "q0's share");
	rte_pktmbuf_free_bulk(m, want[0]);
	/* Tx stopped at run time: nothing goes out until it starts. */
	VT_CHECK_EQ(rte_eth_dev_tx_queue_stop(p0, 0), 0, "stop Tx q0");
	VT_CHECK_EQ(txq_state(p0, 0), RTE_ETH_QUEUE_STATE_STOPPED, "stopped");
	f = simple_frame(&mac1, 64, 9);
	VT_CHECK(f != NULL, "alloc");
	VT_CHECK_EQ(rte_eth_tx_burst(p0, 0, &f, 1), 0, "not sent");
	rte_pktmbuf_free(f);
	VT_CHECK_EQ(drain(p1, 2), 0, "nothing arrived");
	VT_CHECK_EQ(rte_eth_dev_tx_queue_start(p0, 0), 0, "start Tx q0");
	VT_CHECK_EQ(send_one(p0, simple_frame(&mac1, 64, 9)), 0, "sends");
	VT_CHECK_EQ(drain(p1, 2), 1, "arrived");
	/* Deferred again at the next port start. */
	VT_CHECK_EQ(rte_eth_dev_stop(p1), 0, "stop");
	VT_CHECK_EQ(rte_eth_dev_start(p1), 0, "start");
	VT_CHECK_EQ(rxq_state(p1, 1), RTE_ETH_QUEUE_STATE_STOPPED, "q1 waits");
	VT_CHECK_EQ(rxq_state(p1, 0), RTE_ETH_QUEUE_STATE_STARTED, "q0 runs");
	for (round = 0; round < 2; round++)
		VT_CHECK_EQ(rte_eth_dev_rx_queue_start(p1, 1), 0,
			    "start q1 (twice: no-op)");
	VT_CHECK_EQ(ports_default(), 0, "ports back");
	return VT_OK;
}

static const struct vt_case cases[] = {
	/* clang-format off */
	VT_CASE(test_bad_devargs),
#ifndef VT_RDMA_GLUE
	VT_CASE(test_probe_log_engine),
#endif
	VT_CASE(test_lifecycle_repeatable),
	VT_CASE(test_tx_rx_exact),
	VT_CASE(test_tx_pool_recycled),
	VT_CASE(test_multiseg_tx),
	VT_CASE(test_tx_ring_limits),
#ifndef VT_RDMA_GLUE
	VT_CASE(test_rx_error_recovery),
#endif
	VT_CASE(test_scatter_rx),
	VT_CASE(test_rss_default_traffic),
	VT_CASE(test_flow_tag_to_mbuf),
	VT_CASE(test_checksum_offload),
	VT_CASE(test_promisc_allmulti),
	VT_CASE(test_mac_filters),
	VT_CASE(test_stats_xstats),
	VT_CASE(test_no_buffer_drops),
	VT_CASE(test_rx_nombuf),
	VT_CASE(test_volume_restart),
	VT_CASE(test_forward_pingpong),
#ifdef VT_RDMA_GLUE
	VT_CASE(test_rdma_glue_sysfs),
#endif
	VT_CASE(test_probe_caps),
	VT_CASE(test_hash_qp_states),
	VT_CASE(test_ctl_lock_checked),
	VT_CASE(test_eight_priorities),
	VT_CASE(test_egress_probe),
#ifndef VT_RDMA_GLUE
	VT_CASE(test_modify_actions_devarg),
#endif
	VT_CASE(test_tunnel_hash_qp),
	VT_CASE(test_inner_rss_flow),
	VT_CASE(test_mcast_user_rules),
#ifndef VT_RDMA_GLUE
	/* MTU and link come from the port's netdev on rdma-core: an
	 * in-memory link has none (test_rdma_no_netdev). */
	VT_CASE(test_mtu_on_device),
#endif
	VT_CASE(test_tx_oversize_dropped),
	VT_CASE(test_tso),
	VT_CASE(test_rx_timestamp),
	VT_CASE(test_tx_device_error_recovery),
	VT_CASE(test_stats_survive_reconfig),
	VT_CASE(test_ptypes),
	VT_CASE(test_rx_checksum_flags),
	VT_CASE(test_vlan_strip),
	VT_CASE(test_vlan_filter),
	VT_CASE(test_queue_status),
	VT_CASE(test_rx_intr),
	VT_CASE(test_lsc),
	VT_CASE(test_rx_queue_stop_start),
	VT_CASE(test_deferred_start),
	VT_CASE(test_queue_domains),
#ifndef VT_RDMA_GLUE
	VT_CASE(test_port_info),
#else
	VT_CASE(test_rdma_no_netdev),
#endif
	{ NULL, NULL },
	/* clang-format on */
};

int
main(int argc, char **argv)
{
	char prefix[64], args[64], rundir[PATH_MAX];
	char *eal[] = {
		argv[0],
		"--no-huge",
		"-m",
		"256",
		"--no-pci",
		"--no-shconf",
		"--no-telemetry",
		"-l",
		"0",
		prefix,
		"--log-level=pmd.net.vsteer*:notice",
		NULL,
	};
	int ret;

	snprintf(prefix, sizeof(prefix), "--file-prefix=vsteer_ethdev_%d",
		 (int)getpid());
	snprintf(link_a, sizeof(link_a), "t%d", (int)getpid());
	ret = rte_eal_init((int)RTE_DIM(eal) - 1, eal);
	if (ret < 0) {
		/* Nothing here needs privileges: a failure is a failure. */
		fprintf(stderr, "EAL init failed: %s\n",
			rte_strerror(rte_errno));
		return 1;
	}
	pool = rte_pktmbuf_pool_create("test_pool", NB_MBUF, 0, 0,
				       RTE_MBUF_DEFAULT_BUF_SIZE, 0);
	if (pool == NULL) {
		fprintf(stderr, "mempool: %s\n", rte_strerror(rte_errno));
		return 1;
	}
#ifdef VT_RDMA_GLUE
	/* The two ends, shown as rdma-core devices <link_a>a and b: the
	 * ports take their MAC addresses from the devices' sysfs. */
	ret = vt_rdma_base(rdma_base, sizeof(rdma_base));
	if (ret == 0)
		ret = vt_rdma_pair(link_a, 0, 0, 0, 0, link_a, rdma_base);
	if (ret != 0) {
		fprintf(stderr, "rdma-core devices: %s\n", strerror(ret));
		return 1;
	}
	snprintf(args, sizeof(args), "dev=%sa", link_a);
	ret = rte_vdev_init("net_vsteer0", args);
	snprintf(args, sizeof(args), "dev=%sb", link_a);
	if (ret == 0)
		ret = rte_vdev_init("net_vsteer1", args);
#else
	snprintf(args, sizeof(args), "dev=mem:%s", link_a);
	ret = rte_vdev_init("net_vsteer0", args);
	if (ret == 0)
		ret = rte_vdev_init("net_vsteer1", args);
#endif
	if (ret != 0 || rte_eth_dev_get_port_by_name("net_vsteer0", &p0) != 0 ||
	    rte_eth_dev_get_port_by_name("net_vsteer1", &p1) != 0) {
		fprintf(stderr, "cannot probe net_vsteer on %s\n", link_a);
		return 1;
	}
	rte_eth_macaddr_get(p0, &mac0);
	rte_eth_macaddr_get(p1, &mac1);
	ret = vt_main(argc, argv, cases);
	rte_eth_dev_stop(p0);
	rte_eth_dev_stop(p1);
	if (rte_eth_dev_close(p0) != 0 || rte_eth_dev_close(p1) != 0) {
		fprintf(stderr, "close failed\n");
		ret = 1;
	}
	rte_vdev_uninit("net_vsteer0");
	rte_vdev_uninit("net_vsteer1");
#ifdef VT_RDMA_GLUE
	if (vt_rdma_pair_remove(link_a, link_a) != 0) {
		fprintf(stderr, "devices not removable: objects leaked\n");
		ret = 1;
	}
	vt_rdma_base_remove(rdma_base);
#endif
	rte_mempool_free(pool);
	snprintf(rundir, sizeof(rundir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	/* EAL leaves the (empty, with --no-shconf) runtime directory. */
	rmdir(rundir);
	return ret;
}
