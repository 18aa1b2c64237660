/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VSTEER_H
#define VSTEER_H

/*
 * Private structures of the net_vsteer PMD, shared by its files.
 *
 *   vsteer.c            log types, devargs, probe/remove
 *   vsteer_ethdev.c     ethdev ops
 *   vsteer_rxq.c        Rx queues (CQ-ex + WQ, posted mbufs), queue start/stop
 *   vsteer_txq.c        Tx queues (CQ + RAW_PACKET send QP), queue start/stop
 *   vsteer_intr.c       Rx interrupts (completion channels), link state
 *                       interrupts (async events)
 *   vsteer_rxtx.c       bursts
 *   vsteer_mr.c         mempool registration, lkey lookup
 *   vsteer_rss.c        shared RSS contexts (indirection table + hash QP)
 *   vsteer_defflow.c    default flows (promiscuous, all-multicast, MACs)
 *   vsteer_flow*.c      rte_flow ops and translators, flow aging
 *   vsteer_mp.c         secondary processes: the primary's answers
 *   vsteer_pool.c       indexed object pool: the flows, their handles
 *   vsteer_glue_*.c     the device tables (rdma-core, softverbs)
 */

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_rwlock.h>
#include <ethdev_driver.h>

#include "vsteer_glue.h"
#include "vsteer_flow_verbs.h"

/* Log types: pmd.net.vsteer and pmd.net.vsteer.{init,flow,rx,tx}. */
extern int vsteer_logtype;
extern int vsteer_logtype_init;
extern int vsteer_logtype_flow;
extern int vsteer_logtype_rx;
extern int vsteer_logtype_tx;

#define VSTEER_LOG(type, level, ...)                                         \
	rte_log(RTE_LOG_##level, type,                                       \
		RTE_FMT("%s(): " RTE_FMT_HEAD(__VA_ARGS__, ) "\n", __func__, \
			RTE_FMT_TAIL(__VA_ARGS__, )))

#define DRV_LOG(level, ...) VSTEER_LOG(vsteer_logtype, level, __VA_ARGS__)
#define INIT_LOG(level, ...) VSTEER_LOG(vsteer_logtype_init, level, __VA_ARGS__)
#define FLOW_LOG(level, ...) VSTEER_LOG(vsteer_logtype_flow, level, __VA_ARGS__)
#define RX_LOG(level, ...) VSTEER_LOG(vsteer_logtype_rx, level, __VA_ARGS__)
#define TX_LOG(level, ...) VSTEER_LOG(vsteer_logtype_tx, level, __VA_ARGS__)

#define VSTEER_MAX_MAC 128	 /* unicast MAC filters (mac_addrs[]) */
#define VSTEER_MAX_MC 128	 /* set_mc_addr_list entries */
#define VSTEER_MAX_VLAN 128	 /* VLAN filters, as mlx5 (MLX5_MAX_VLAN_IDS) */
#define VSTEER_RETA_MAX 512	 /* RETA entries (a power of two) */
#define VSTEER_RX_MAX_SGE 16	 /* SGEs per Rx WQE with scatter */
#define VSTEER_TX_MAX_SGE 16	 /* segments per Tx packet */
#define VSTEER_TX_COMP_THRESH 32 /* signal every N-th WR of a burst */
/* Headers (L2 to L4) of a TSO packet, copied into the send WQE (DPDK
 * mlx5's MLX5_MAX_TSO_HEADER). */
#define VSTEER_TSO_HDR_MAX 192
#define VSTEER_DESC_MIN 16
/* Flow table limits assumed where no DevX query says them (DPDK mlx5's
 * MLX5_ROOT_TBL_MODIFY_NUM and MLX5_ENCAP_MAX_LEN). */
#define VSTEER_MODIFY_ACTIONS_ASSUMED 16
#define VSTEER_ENCAP_BYTES_ASSUMED 132
/* Frame bytes beyond the MTU a port receives: Ethernet header and two
 * VLAN tags. */
#define VSTEER_FRAME_OVERHEAD (RTE_ETHER_HDR_LEN + 2 * RTE_VLAN_HLEN)
/* ... and sends: the Ethernet header and one VLAN tag, what the device
 * and a veth peer take (softverbs' SV_WIRE_FRAME_MAX, mlx5's port MTU). */
#define VSTEER_TX_OVERHEAD (RTE_ETHER_HDR_LEN + RTE_VLAN_HLEN)

/* One registered memory chunk. */
struct vsteer_mr {
	uintptr_t start;
	uintptr_t end;
	uint32_t lkey;
	struct ibv_mr *mr;
	const struct rte_mempool *mp; /* owner, NULL for external memory */
};

/* Address range -> lkey table, sorted by start. */
struct vsteer_mr_cache {
	rte_rwlock_t lock;
	struct vsteer_mr *tbl;
	uint32_t n;
	uint32_t cap;
	/* Bumped when registrations go away: queues' hits of an older
	 * generation may name a deregistered lkey. */
	uint32_t gen;
	int event_cb; /* mempool destroy callback registered */
};

/* A queue's last lookup: most packets of a burst share one chunk. */
struct vsteer_mr_hit {
	uintptr_t start;
	uintptr_t end;
	uint32_t lkey;
	uint32_t gen; /* vsteer_mr_cache.gen it was found in */
};

/* A shared RSS context: the hash QP that flows attach to. */
struct vsteer_rss {
	TAILQ_ENTRY(vsteer_rss) next;
	uint32_t refcnt;
	uint64_t hash_fields; /* IBV_RX_HASH_* */
	uint32_t flags;	      /* VSTEER_RSS_* */
	uint8_t key[VSTEER_RSS_KEY_LEN];
	struct ibv_rwq_ind_table *ind;
	struct ibv_qp *qp;
	uint32_t queues_n;
	uint16_t queues[]; /* as requested (after normalisation) */
};

TAILQ_HEAD(vsteer_rss_list, vsteer_rss);

/* One installed default flow. */
struct vsteer_defflow {
	TAILQ_ENTRY(vsteer_defflow) next;
	struct vsteer_rss *rss;
	struct ibv_flow *flow;
	uint16_t size;		    /* bytes of attr */
	uint16_t keep;		    /* sync scratch */
	struct ibv_flow_attr *attr; /* attr + specs, size bytes */
};

TAILQ_HEAD(vsteer_defflow_list, vsteer_defflow);

/* Queue counters: they outlive the queue (priv->rxq_saved, rxq_gone), so
 * that port statistics only grow until stats_reset. */
struct vsteer_rxq_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;      /* error completions */
	uint64_t nombuf;      /* dropped: no replacement mbuf */
	uint64_t post_errors; /* WQEs the device refused */
	uint64_t resets;      /* WQ reset after the device stopped it */
};

/* A completion read ahead of the burst (rx_queue_count, descriptor
 * status): what the burst would have read from the CQ. */
struct vsteer_rx_cqe {
	uint32_t idx; /* WQE, the wr_id */
	uint32_t len;
	uint32_t wc_flags;
	uint32_t tag;
	uint16_t cvlan;
	uint8_t ok;   /* IBV_WC_SUCCESS */
	uint8_t fail; /* VSTEER_RX_FAIL_*, when not ok */
	uint64_t ts;  /* completion timestamp (Rx timestamp offload) */
};

/* What an error completion says of the queue: a frame the device could
 * not take (counted in errors), or, after a protection or operation error
 * or for a flushed WQE, a WQ the device stopped (vsteer_rxq_recover()). */
#define VSTEER_RX_FAIL_FRAME 1 /* the frame is lost, the WQ may run on */
#define VSTEER_RX_FAIL_STOP 2  /* a frame is lost and the WQ stopped */
#define VSTEER_RX_FAIL_FLUSH 3 /* no frame: the WQ stopped earlier */

/*
 * A queue used by one thread says so to the device, as verbs allows: its
 * CQ is IBV_CREATE_CQ_ATTR_SINGLE_THREADED and its WQ or QP is made on a
 * parent domain holding a thread domain of its own, so that the provider
 * takes no lock on them (libmlx5: mlx5_spinlock_init_pd(), the lock-free
 * pollers of a single-threaded CQ). Where the device offers no thread
 * domain (ibv_alloc_td() fails), the queue uses the port's PD and the
 * device's locks.
 */
struct vsteer_qdomain {
	struct ibv_td *td;
	struct ibv_pd *pd; /* the parent domain, or NULL */
};

struct vsteer_rxq {
	struct vsteer_priv *priv;
	struct rte_mempool *mp;
	struct ibv_cq_ex *cq; /* what the burst reads; NULL while stopped */
	struct ibv_wq *wq;
	/* rearm_data of a received mbuf: data_off, refcnt, nb_segs, port */
	uint64_t mbuf_init;
	struct vsteer_qdomain dom;
	struct rte_mbuf **elts;	 /* wqe_n * sges_n, WQE i owns i*sges_n.. */
	struct ibv_recv_wr *wrs; /* wqe_n */
	struct ibv_sge *sges;	 /* wqe_n * sges_n */
	uint32_t wqe_n;		 /* a power of two */
	uint32_t sges_n;
	uint32_t seg_room; /* bytes one segment receives */
	uint16_t port_id;
	uint16_t queue_id;
	uint16_t nb_desc;
	unsigned int socket;
	uint64_t offloads;
	uint32_t csum : 1; /* report checksum flags */
	uint32_t tag : 1;  /* CQ reads flow tags */
	/* VLAN stripping (WQ flag); only where the device strips, whose CQs
	 * then read the stripped TCI. */
	uint32_t strip : 1;
	uint32_t ptype : 1; /* set mbuf packet types */
	/* Rx timestamp offload: the completion's device clock value in the
	 * mbuf's timestamp dynamic field, its flag in ol_flags. */
	uint32_t ts : 1;
	int ts_off;
	uint64_t ts_flag;
	uint32_t unposted; /* WQEs the device refused, not posted since */
	uint32_t stopped;  /* the device stopped the WQ: reset it */
	struct vsteer_rx_cqe *ahead; /* wqe_n, a ring of read-ahead CQEs */
	uint32_t ahead_head;
	uint32_t ahead_n;
	struct vsteer_mr_hit mr_hit;
	struct vsteer_rxq_stats stats;
	/* While the port is started, whether the queue runs or not. */
	struct ibv_cq_ex *cq_obj;
	struct ibv_comp_channel *channel; /* Rx interrupts (intr_conf.rxq) */
	uint32_t deferred : 1;		  /* rx_deferred_start */
};

/*
 * packets/bytes count what the device completed as sent: a WR counts
 * when its completion (or a later one, selective signalling) arrives
 * without error, so that every frame counted went out.
 */
struct vsteer_txq_stats {
	uint64_t packets;
	uint64_t bytes;
	uint64_t errors;      /* dropped, never posted: longer than the MTU,
			       * unregistered memory, too many segments,
			       * refused by the device */
	uint64_t comp_errors; /* posted, not sent: completed in error,
			       * flushed, or discarded by a queue reset */
};

struct vsteer_txq {
	struct vsteer_priv *priv;
	struct ibv_cq_ex *cq; /* what the burst uses; NULL while stopped */
	struct ibv_qp *qp;
	struct vsteer_qdomain dom;
	struct rte_mbuf **elts;	 /* elts_n, slot = counter & mask */
	struct ibv_send_wr *wrs; /* elts_n scratch WRs */
	struct ibv_sge *sges;	 /* elts_n * max_sge scratch SGEs */
	uint32_t elts_n;
	uint32_t elts_mask;
	uint32_t head;	    /* next WR to post (free running) */
	uint32_t tail;	    /* oldest WR not completed (free running) */
	uint32_t max_frame; /* longest frame the port sends: MTU + overhead */
	uint32_t max_sge;
	uint16_t port_id;
	uint16_t queue_id;
	uint16_t nb_desc;
	unsigned int socket;
	uint64_t offloads;
	uint32_t csum : 1;   /* IBV_SEND_IP_CSUM allowed */
	uint32_t tso : 1;    /* TCP_TSO offload: IBV_WR_TSO */
	uint32_t qp_err : 1; /* an error completion: QP to recover */
	uint32_t warned : 1; /* an error was logged at WARNING */
	uint64_t recoveries; /* QP resets after errors */
	struct vsteer_mr_hit mr_hit;
	struct vsteer_txq_stats stats;
	struct ibv_cq_ex *cq_obj; /* while the port is started */
	uint32_t deferred : 1;	  /* tx_deferred_start */
};

/*
 * Flow aging (vsteer_flow_age.c): the record of a flow with an AGE action,
 * on the port's list of flows that may age, then on its list of aged
 * flows until the flow is destroyed.
 */
struct vsteer_age {
	TAILQ_ENTRY(vsteer_age) next;
	void *context;	  /* what rte_flow_get_aged_flows() reports */
	void *flow;	  /* the flow the record belongs to */
	uint64_t hits;	  /* its counter at the last check */
	uint32_t timeout; /* seconds without a hit */
	uint32_t idle;	  /* seconds since the last hit seen */
	uint32_t aged : 1;
};

TAILQ_HEAD(vsteer_age_list, vsteer_age);

struct vsteer_age_port {
	struct vsteer_age_list aging; /* not aged yet, checked each second */
	struct vsteer_age_list aged;  /* in the order they aged */
	uint32_t n_aged;
	uint64_t last_check_s; /* when the last check ran, in seconds */
	/* RTE_ETH_EVENT_FLOW_AGED goes out for new aged flows when set;
	 * cleared by the event, set again by rte_flow_get_aged_flows(), as
	 * DPDK's mlx5 does (MLX5_AGE_TRIGGER). */
	uint32_t trigger : 1;
	uint32_t armed : 1;   /* the check's alarm is set */
	uint32_t closing : 1; /* the port closes: no alarm any more */
};

/* Device-level counters (softverbs wire counters, rdma-core hw_counters). */
struct vsteer_port_counters {
	uint64_t rx_frames;
	uint64_t rx_no_buffer;
	uint64_t rx_unsteered;
	uint64_t rx_dropped;
	uint64_t rx_sink; /* copies PASSTHRU rules took: discarded */
	uint64_t tx_frames;
	uint64_t tx_errors;
	uint64_t rx_csum_completed; /* softverbs packet wire offloads */
	uint64_t rx_gso_split;
};

struct vsteer_priv {
	struct rte_eth_dev_data *data;
	/*
	 * The port's control lock (vsteer_ctl_lock()): the flow ops and
	 * every control path that walks or changes the flow list, the
	 * default flows, the RSS contexts, the matcher templates and the
	 * device objects behind them (start, stop, close, configure, Rx
	 * modes, MAC and multicast lists, VLAN filters and stripping, RSS
	 * key and RETA, MTU) hold it, so that the flow ops are thread safe
	 * (RTE_ETH_DEV_FLOW_OPS_THREAD_SAFE) against each other and against
	 * those paths. Never taken on the data path; taken once per op: an
	 * op named *_op takes it around the function of the same name
	 * without the suffix, which checks that it is held and may call
	 * other such functions. Never held while the application is called
	 * back. Primary process only.
	 */
	pthread_mutex_t ctl_lock;
	int ctl_owner; /* rte_gettid() of the holder, 0: free */
	const struct vsteer_glue *glue;
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	uint8_t port_num;    /* 1-based */
	char ibdev_name[64]; /* ibv_get_device_name() */
	char soft_name[64];  /* softverbs device to remove, or "" */
	enum vsteer_flow_engine flow_engine;
	/* flow_engine=auto: rules the matcher path cannot express fall back
	 * to verbs instead of failing. */
	uint32_t flow_engine_auto : 1;
	struct ibv_device_attr_ex dev_attr;
	struct ibv_port_attr port_attr;
	/* Capabilities, from queries and probes at start-up (vsteer.c:
	 * vsteer_probe_caps(); none from which glue is linked). */
	uint32_t max_verbs_prio;    /* highest verbs flow priority: 7 or 15 */
	uint32_t tx_csum : 1;	    /* IBV_RAW_PACKET_CAP_IP_CSUM */
	uint32_t tag_ok : 1;	    /* CQ-ex with IBV_WC_EX_WITH_FLOW_TAG */
	uint32_t count_ok : 1;	    /* ibv_counters */
	uint32_t egress_ok : 1;	    /* verbs rules with FLAGS_EGRESS */
	uint32_t inner_rss_ok : 1;  /* hash QPs over IBV_RX_HASH_INNER */
	uint32_t dv_ok : 1;	    /* mlx5dv matchers (an mlx5dv device) */
	uint32_t devx_ok : 1;	    /* DevX objects: context opened for it */
	uint32_t verbs_esp_ok : 1;  /* IBV_FLOW_SPEC_ESP accepted */
	uint32_t tunnel_qp_ok : 1;  /* hash QPs with tunnel offloads */
	uint32_t vlan_strip_ok : 1; /* IBV_RAW_PACKET_CAP_CVLAN_STRIPPING */
	uint32_t mpls_ok : 1;	    /* MPLS over GRE / UDP parsed */
	uint32_t ihl_ok : 1;	    /* IPv4 IHL match field, outer */
	uint32_t ihl_inner_ok : 1;  /* ... inner */
	/* Header rewrite and reformat of matcher rules (flow table
	 * capabilities): modify actions a list may hold on the receive and
	 * transmit tables, bytes of a reformat header. */
	uint16_t max_modify_rx;
	uint16_t max_modify_tx;
	uint16_t max_encap;
	/* tso_caps list raw packet QPs (max_tso payload bytes per WR). */
	uint32_t tso_ok : 1;
	/* completion timestamps: a timestamp mask and a clock frequency. */
	uint32_t ts_ok : 1;
	/* Hash QPs go INIT -> RTR before use (mlx4); 0: the provider
	 * refuses any modify of one and it works as created (mlx5). */
	uint32_t hash_qp_rtr : 1;
	/* State. */
	uint32_t started : 1;
	uint32_t isolated : 1; /* set by the flow ops (flow isolate) */
	uint32_t promisc : 1;  /* what the default flows implement */
	uint32_t allmulti : 1;
	uint32_t ptypes_off : 1; /* dev_ptypes_set(RTE_PTYPE_UNKNOWN) */
	uint32_t mp_closed : 1;	 /* closing: secondaries get no answer */
	uint16_t min_mtu;
	uint16_t max_mtu;
	uint32_t max_sge;
	uint32_t max_wr;
	/* Send queues (vsteer_tx_probe()): the largest ring of one SGE per
	 * WR, the most SGEs a multi-segment queue gets and its largest
	 * ring, and the largest rings with room for TSO headers, as the
	 * device took them (powers of two). */
	uint32_t tx_wr_max;
	uint32_t tx_sge_max;
	uint32_t tx_wr_max_sges;
	uint32_t tx_wr_max_tso;
	uint32_t tx_wr_max_tso_sges;
	uint32_t max_tso;
	uint32_t ind_tbl_max;	   /* entries of an indirection table */
	uint64_t rss_hf_supported; /* RTE_ETH_RSS_* */
	uint64_t rss_hf;	   /* port RSS types, 0: no hashing */
	uint8_t rss_key[VSTEER_RSS_KEY_LEN];
	uint16_t reta_size;
	uint16_t reta_nb_rxq; /* queue count the RETA was built for */
	uint16_t reta[VSTEER_RETA_MAX];
	uint32_t mc_n;
	struct rte_ether_addr mc[VSTEER_MAX_MC];
	uint16_t vlan_n; /* VLAN filters, ascending */
	uint16_t vlans[VSTEER_MAX_VLAN];
	/* Counters of queues that are gone: per index, for a queue set up
	 * again at that index (RTE_MAX_QUEUES_PER_PORT entries, made on
	 * first use), and for indexes configured away. */
	struct vsteer_rxq_stats *rxq_saved;
	struct vsteer_txq_stats *txq_saved;
	struct vsteer_rxq_stats rxq_gone;
	struct vsteer_txq_stats txq_gone;
	struct vsteer_mr_cache mr;
	struct vsteer_rss_list rss_list;
	struct vsteer_defflow_list defflows;
	struct vsteer_port_counters cnt_base; /* at the last stats reset */
	/* For the flow ops (vsteer_flow.c): its own state hangs here. */
	void *flow_priv;
	struct vsteer_age_port age; /* flows with an AGE action */
	/* Interrupts (vsteer_intr.c), from probes: completion channels for
	 * Rx interrupts, the context's async fd for link changes. */
	uint32_t rxq_intr_ok : 1;
	uint32_t lsc_ok : 1;
	struct rte_intr_handle *intr_async; /* async_fd, for EAL's thread */
};

static inline struct vsteer_priv *
vsteer_priv(const struct rte_eth_dev *dev)
{
	return dev->data->dev_private;
}

/* vsteer.c: the lock is error-checking, so that taking it twice or
 * releasing it unheld stops the process instead of deadlocking or
 * corrupting the lists. */
void vsteer_ctl_lock_init(struct vsteer_priv *priv);

static inline void
vsteer_ctl_lock(struct vsteer_priv *priv)
{
	RTE_VERIFY(pthread_mutex_lock(&priv->ctl_lock) == 0);
	__atomic_store_n(&priv->ctl_owner, rte_gettid(), __ATOMIC_RELAXED);
}

static inline void
vsteer_ctl_unlock(struct vsteer_priv *priv)
{
	__atomic_store_n(&priv->ctl_owner, 0, __ATOMIC_RELAXED);
	RTE_VERIFY(pthread_mutex_unlock(&priv->ctl_lock) == 0);
}

/*
 * The helpers that walk the lists check that their caller holds the
 * lock, the mutex itself and not only the owner the lock functions note:
 * a path that forgets it, or a lock that does not lock, stops the process
 * with the helper's name (vsteer_ctl_unheld()) in every test that takes
 * it. Tests may set vsteer_ctl_unheld_hook to be told instead.
 */
bool vsteer_ctl_held(struct vsteer_priv *priv);
void vsteer_ctl_unheld(const struct vsteer_priv *priv, const char *func);
extern void (*vsteer_ctl_unheld_hook)(const char *func);

#define VSTEER_CTL_HELD(priv)                                \
	do {                                                 \
		if (unlikely(!vsteer_ctl_held(priv)))        \
			vsteer_ctl_unheld((priv), __func__); \
	} while (0)

/* softverbs device model: the devargs of soft: and mem: devices. */
struct vsteer_soft_opts {
	uint32_t generic : 1;	  /* profile=generic, else mlx5 */
	uint32_t no_devx : 1;	  /* sv_devx=0 */
	uint32_t no_tunnel : 1;	  /* sv_tunnel_offloads=0 */
	uint32_t no_egress : 1;	  /* sv_verbs_egress=0 */
	uint32_t no_ihl : 1;	  /* sv_ipv4_ihl=0 */
	uint32_t flex_parser : 1; /* sv_flex_parser=1 */
	uint32_t flow_prios;	  /* sv_flow_prios=, 0: the profile's */
	uint32_t modify_actions;  /* sv_modify_actions=, 0: softverbs' */
};

/* vsteer_ethdev.c */
/* Queue counters across queue setups: keep those of a queue released at
 * idx, give them back to the queue set up there next. */
void vsteer_rxq_stats_keep(struct rte_eth_dev *dev, uint16_t idx,
			   const struct vsteer_rxq_stats *st);
void vsteer_rxq_stats_restore(struct rte_eth_dev *dev, uint16_t idx,
			      struct vsteer_rxq_stats *st);
void vsteer_txq_stats_keep(struct rte_eth_dev *dev, uint16_t idx,
			   const struct vsteer_txq_stats *st);
void vsteer_txq_stats_restore(struct rte_eth_dev *dev, uint16_t idx,
			      struct vsteer_txq_stats *st);
extern const struct eth_dev_ops vsteer_dev_ops;
/* The ops of a port in a secondary process: statistics, information. */
extern const struct eth_dev_ops vsteer_dev_ops_secondary;
/* At probe, after the device queries: MTU limits and the current MTU from
 * the device, port capabilities, the fast-path helpers. */
void vsteer_ethdev_init(struct rte_eth_dev *dev);
int vsteer_dev_close(struct rte_eth_dev *dev);
/* Read the link from the device into dev_link; 0 when its status changed
 * (rte_eth_linkstatus_set()). */
int vsteer_link_update(struct rte_eth_dev *dev, int wait_to_complete);
/* The device's counters as it reads them (primary only). */
int vsteer_port_counters_read(struct vsteer_priv *priv,
			      struct vsteer_port_counters *c);
/* ... since the last statistics reset (from the primary, in a secondary
 * process: 0 or a negative errno). */
int vsteer_port_counters_get(struct rte_eth_dev *dev,
			     struct vsteer_port_counters *d);
/* Queue and port counters restart from 0 (the primary does it). */
int vsteer_stats_reset(struct rte_eth_dev *dev);

/* vsteer_rxq.c */
int
vsteer_rx_queue_setup(struct rte_eth_dev *dev, uint16_t idx, uint16_t desc,
		      unsigned int socket, const struct rte_eth_rxconf *conf,
		      struct rte_mempool *mp);
void vsteer_rx_queue_release(struct rte_eth_dev *dev, uint16_t idx);
int vsteer_rxq_start(struct vsteer_rxq *rxq);
/* After an error completion that stopped the WQ (a ConnectX moves it to
 * error): drop what the CQ still holds, WQ to RESET then RDY, every WQE
 * posted again with the buffers it has. From the queue's burst. */
int vsteer_rxq_recover(struct vsteer_rxq *rxq);
void vsteer_rxq_stop(struct vsteer_rxq *rxq);
/* VLAN stripping on or off; applied to the WQ when the queue runs. */
int vsteer_rxq_vlan_strip(struct vsteer_rxq *rxq, int on);
/* Largest frame a queue of the port must receive (MTU + overhead). */
uint32_t vsteer_rx_frame_max(const struct rte_eth_dev *dev, uint16_t mtu);

/* Queue start/stop (ethdev ops): a stopped Rx queue keeps its WQ in the
 * indirection tables, ready and with no buffer posted. */
int vsteer_rx_queue_start(struct rte_eth_dev *dev, uint16_t idx);
int vsteer_rx_queue_stop(struct rte_eth_dev *dev, uint16_t idx);

/* A thread domain and a parent domain over the port's PD for one queue;
 * the PD to make the queue's WQ or QP on (the port's when the device has
 * no thread domains). */
struct ibv_pd *
vsteer_qdomain_get(struct vsteer_priv *priv, struct vsteer_qdomain *dom);
void vsteer_qdomain_put(struct vsteer_priv *priv, struct vsteer_qdomain *dom);
/* A CQ-ex for one polling thread (IBV_CREATE_CQ_ATTR_SINGLE_THREADED where
 * the device takes it); NULL with errno set. */
struct ibv_cq_ex *
vsteer_cq_create(struct vsteer_priv *priv, struct ibv_cq_init_attr_ex *attr);

/* vsteer_txq.c */
int
vsteer_tx_queue_setup(struct rte_eth_dev *dev, uint16_t idx, uint16_t desc,
		      unsigned int socket, const struct rte_eth_txconf *conf);
void vsteer_tx_queue_release(struct rte_eth_dev *dev, uint16_t idx);
/* At probe: the send queues the device takes (priv->tx_*); 0 or a
 * negative errno when it takes none. */
int vsteer_tx_probe(struct vsteer_priv *priv);
int vsteer_txq_start(struct vsteer_txq *txq);
void vsteer_txq_stop(struct vsteer_txq *txq);
/* Reset a QP that failed a WR and bring it back to RTS: the WRs it still
 * held are discarded (counted as completion errors). */
int vsteer_txq_recover(struct vsteer_txq *txq);
int vsteer_tx_queue_start(struct rte_eth_dev *dev, uint16_t idx);
int vsteer_tx_queue_stop(struct rte_eth_dev *dev, uint16_t idx);

/* vsteer_intr.c */
/* At probe: the interrupt handle, what the device offers (completion
 * channels, async events: RTE_ETH_DEV_INTR_LSC) and the link change
 * handler on EAL's interrupt thread; undone at close. */
int vsteer_intr_init(struct rte_eth_dev *dev);
void vsteer_intr_fini(struct rte_eth_dev *dev);
/* At configure: what intr_conf asks for is there. */
int vsteer_intr_configure(struct rte_eth_dev *dev);
/* At start, after the queues / at stop, before them: the Rx queues'
 * channel fds in the interrupt handle (rte_eth_dev_rx_intr_ctl_q()). */
int vsteer_rx_intr_vec_enable(struct rte_eth_dev *dev);
void vsteer_rx_intr_vec_disable(struct rte_eth_dev *dev);
int vsteer_rx_queue_intr_enable(struct rte_eth_dev *dev, uint16_t idx);
int vsteer_rx_queue_intr_disable(struct rte_eth_dev *dev, uint16_t idx);

/* vsteer_rxtx.c */
uint16_t vsteer_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n);
uint16_t vsteer_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n);
/* Reap Tx completions: count what went out or failed, free what they
 * cover; returns WRs reclaimed. */
uint32_t vsteer_tx_complete(struct vsteer_txq *txq);
/* Free the mbufs of the next n WRs in flight, counting them as sent or
 * as not sent (completion errors). */
void vsteer_tx_retire(struct vsteer_txq *txq, uint32_t n, int sent);
/* Fast-path queue status (rte_eth_rx_queue_count, descriptor status):
 * same thread as the bursts. */
uint32_t vsteer_rx_queue_count(void *rxq);
int vsteer_rx_descriptor_status(void *rxq, uint16_t offset);
int vsteer_tx_descriptor_status(void *txq, uint16_t offset);
/* Packet types the Rx burst sets (RTE_PTYPE_UNKNOWN-terminated). */
extern const uint32_t vsteer_ptypes[];

/* vsteer_mr.c */
int vsteer_mr_init(struct vsteer_priv *priv);
/* Deregister everything; returns how many deregistrations failed. */
int vsteer_mr_fini(struct vsteer_priv *priv);
/* Register every memory chunk of mp (no-op when already registered). */
int
vsteer_mr_register_mempool(struct vsteer_priv *priv, struct rte_mempool *mp);
/* Slow path of vsteer_mr_lkey(): table lookup, then registration of mp
 * (when not NULL) on a miss. Returns 0 or -ENOENT. */
int vsteer_mr_lookup(struct vsteer_priv *priv, struct vsteer_mr_hit *hit,
		     uintptr_t addr, size_t len, struct rte_mempool *mp,
		     uint32_t *lkey);

static inline int
vsteer_mr_lkey(struct vsteer_priv *priv, struct vsteer_mr_hit *hit,
	       uintptr_t addr, size_t len, struct rte_mempool *mp,
	       uint32_t *lkey)
{
	if (likely(addr >= hit->start && addr + len <= hit->end &&
		   hit->gen ==
			   __atomic_load_n(&priv->mr.gen, __ATOMIC_ACQUIRE))) {
		*lkey = hit->lkey;
		return 0;
	}
	return vsteer_mr_lookup(priv, hit, addr, len, mp, lkey);
}

/* vsteer_rss.c */
/* vsteer_rss_get() / vsteer_hash_qp_create() flags. A context that
 * receives tunnel rules or hashes inner headers needs tunnel offloads:
 * such hash QPs are made with mlx5dv_create_qp() and
 * MLX5DV_QP_CREATE_TUNNEL_OFFLOADS where the device offers it
 * (priv->tunnel_qp_ok). Hash fields with IBV_RX_HASH_INNER imply it. */
#define VSTEER_RSS_TUNNEL (1u << 0)
/*
 * Get (create or share) the RSS context hashing hash_fields with key over
 * queues[0..queues_n-1]; the indirection table repeats the list up to a
 * power of two. hash_fields 0 keeps only queues[0] (the kernel refuses
 * fields 0 over more than one queue). Needs a started port (the queues'
 * WQs). Returns NULL with rte_errno set.
 */
struct vsteer_rss *
vsteer_rss_get(struct rte_eth_dev *dev, const uint8_t key[VSTEER_RSS_KEY_LEN],
	       uint64_t hash_fields, const uint16_t *queues, uint32_t queues_n,
	       uint32_t flags);
void vsteer_rss_put(struct rte_eth_dev *dev, struct vsteer_rss *rss);
/* The RAW_PACKET hash QP over ind that RSS contexts and the flow ops' sink
 * attach flows to. Returns NULL with errno set. */
struct ibv_qp *
vsteer_hash_qp_create(struct vsteer_priv *priv, struct ibv_rwq_ind_table *ind,
		      uint8_t key[VSTEER_RSS_KEY_LEN], uint64_t hash_fields,
		      uint32_t flags);
/* Make a new hash QP ready to receive: INIT -> RTR where the device has
 * hash QP states (priv->hash_qp_rtr), nothing where it refuses them.
 * 0 or the device's errno. */
int vsteer_hash_qp_ready(struct vsteer_priv *priv, struct ibv_qp *qp);
/* Destroy contexts still referenced (a leak in the caller): logged. */
void vsteer_rss_flush(struct rte_eth_dev *dev);
/* RETA = queues round-robin. */
void vsteer_reta_default(struct rte_eth_dev *dev);
/* RTE_ETH_RSS_* types the device can hash, from its rx_hash_fields_mask. */
uint64_t vsteer_rss_hf_supported(uint64_t rx_hash_fields_mask);
/* Fill a translator context for the port (internal = false). */
void vsteer_xlate_ctx_init(const struct rte_eth_dev *dev,
			   struct vsteer_xlate_ctx *ctx);

/* vsteer_defflow.c */
/*
 * The helpers of vsteer_rss.c, vsteer_defflow.c and the flow hooks below
 * run with the port's control lock held (priv->ctl_lock): the ops that
 * call them take it.
 */

/*
 * Bring the default flows in line with the port state: promiscuous,
 * all-multicast, MAC addresses, multicast list, VLAN filters, RSS
 * key/types and RETA.
 * Nothing while stopped; everything removed in isolated mode. Flows that
 * stay the same are kept, so repeated calls are cheap. Returns 0 or a
 * negative errno (the flows that could be made stay installed).
 */
int vsteer_defflow_sync(struct rte_eth_dev *dev);
void vsteer_defflow_remove(struct rte_eth_dev *dev);

/*
 * vsteer_flow.c (rte_flow ops). The ethdev code calls these hooks:
 *   vsteer_flow_start()  at dev_start, after the queues and default flows:
 *                        (re)apply the flows kept while stopped;
 *   vsteer_flow_stop()   at dev_stop, before the queues go: remove every
 *                        ibv_flow and drop every RSS context reference;
 *   vsteer_flow_close()  at dev_close: free every flow and shared object.
 * The ops set priv->isolated and call vsteer_defflow_sync() on isolate.
 */
extern const struct rte_flow_ops vsteer_flow_ops;
/* A secondary process's: every op refused with E_RTE_SECONDARY. */
extern const struct rte_flow_ops vsteer_flow_ops_secondary;
int vsteer_flow_start(struct rte_eth_dev *dev);
void vsteer_flow_stop(struct rte_eth_dev *dev);
void vsteer_flow_close(struct rte_eth_dev *dev);
/* How rules are made, in the words of the probe log and the dump: "auto
 * (verbs, else mlx5dv)", "auto (verbs)", "verbs" or "mlx5dv". */
const char *vsteer_flow_engine_desc(const struct vsteer_priv *priv);

/*
 * vsteer_flow_age.c: flow aging, as DPDK's mlx5 ages its root table's
 * rules: each flow with an AGE action has a counter, read every second
 * (an EAL alarm, under the port's control lock); a flow whose counter did
 * not move for more than its timeout is aged, reported by
 * rte_flow_get_aged_flows() and announced with RTE_ETH_EVENT_FLOW_AGED.
 * The flow code gives the counter: vsteer_flow_age_hits() reads it, or
 * says it cannot (the flow is not on the device: nothing hits it).
 */
void vsteer_age_init(struct vsteer_priv *priv);
/* A new flow's record (on the aging list; the alarm set). */
void vsteer_age_add(struct rte_eth_dev *dev, struct vsteer_age *a,
		    uint32_t timeout, void *context, void *flow);
/* The flow goes: off its list. */
void vsteer_age_del(struct vsteer_priv *priv, struct vsteer_age *a);
/* rte_flow_get_aged_flows(): how many are aged, the first n contexts
 * into contexts when n > 0. */
int vsteer_age_get(struct vsteer_priv *priv, void **contexts, uint32_t n);
void vsteer_age_query(const struct vsteer_age *a, struct rte_flow_query_age *q);
/* At close, without the control lock (the alarm takes it): no check
 * runs or will run. */
void vsteer_age_stop(struct rte_eth_dev *dev);
/* One check, as the alarm runs it (the lock held); returns whether a flow
 * aged. */
bool vsteer_age_check(struct rte_eth_dev *dev, uint64_t now_s);
/* vsteer_flow.c: the raw hits of the flow's counter; false when it is not
 * on the device or the read failed. */
bool vsteer_flow_age_hits(struct rte_eth_dev *dev, void *flow, uint64_t *hits);

/*
 * vsteer_mp.c: what a secondary process asks the primary (rte_mp IPC).
 * The primary answers from the time its first port is probed
 * (vsteer_mp_primary_init()) until its last port is closed; a port stops
 * answering when its close begins (vsteer_mp_port_close()).
 */
int vsteer_mp_primary_init(void);
void vsteer_mp_port_close(struct rte_eth_dev *dev);
int vsteer_mp_port_counters(struct rte_eth_dev *dev,
			    struct vsteer_port_counters *c);
int vsteer_mp_stats_reset(struct rte_eth_dev *dev);

/* vsteer_glue_soft.c: softverbs-only entry points. */
/* Create the softverbs device on wire ("if:", "xdp:" or "mem:"). */
int vsteer_soft_device_add(const char *wire, const struct vsteer_soft_opts *o,
			   char *name, size_t name_len);
int vsteer_soft_device_remove(const char *name);

#endif /* VSTEER_H */
