/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SV_INTERNAL_H
#define SV_INTERNAL_H

/*
 * softverbs internals: the device model's objects and the calls between its
 * files. Each verbs object embeds the rdma-core struct it stands for, so a
 * pointer handed to the application is a pointer to that member and
 * container_of() gets back here.
 *
 * Files and what they own:
 *   sv_device.c   device list, softverbs_device_add/remove, open/close,
 *                 query_device(_ex)/query_port, PD, MR (lkey table), the
 *                 verbs_context ops table, port MAC, MTU, link and stats
 *   sv_cq.c       CQ and CQ-ex (start/next/end_poll, wc_read_*), sv_cq_push,
 *                 arming (req_notify_cq)
 *   sv_event.c    completion channels and CQ events, async events (port
 *                 link changes), the descriptors a waiter sleeps on
 *   sv_wq.c       WQ (post_wq_recv), RWQ indirection tables, sv_wq_deliver
 *   sv_qp.c       QPs (hash QPs, raw-packet send QPs), state machine,
 *                 post_send, mlx5dv_create_qp
 *   sv_steer.c    a port's rules per direction, ibv_create_flow /
 *                 ibv_destroy_flow, the rx pump and the tx egress hook
 *   sv_table.c    the NORMAL rules of a direction and their lookup
 *                 (sv_table.h)
 *   sv_ftspace.c  the entries and autogroups of one mlx5 flow table
 *                 (sv_ftspace.h)
 *   sv_slab.c     the memory of the rule tables (struct sv_arena)
 *   sv_counters.c ibv_counters objects
 *   sv_toeplitz.c Toeplitz hash and the rx_hash_fields input
 *   sv_dv.c       mlx5dv_open_device, mlx5dv matchers, flows and DevX
 *                 flow counters
 *   sv_flow_action.c  mlx5dv flow actions: header modify, packet reformat
 *   sv_pktedit.c  what those actions do to frames (sv_pktedit.h)
 *   sv_parse.c, sv_spec.c, sv_fte.c: see sv_key.h
 *   sv_wire_*.c   see sv_wire.h
 *   sv_offload.c  checksum fill and segmentation (sv_offload.h), for the
 *                 send offload and the packet wire
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/queue.h>
#include <time.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "softverbs.h"
#include "sv_key.h"
#include "sv_wire.h"

#define sv_container_of(ptr, type, member) \
	((type *)(void *)((char *)(ptr)-offsetof(type, member)))
#define sv_likely(x) __builtin_expect(!!(x), 1)
#define sv_unlikely(x) __builtin_expect(!!(x), 0)

/* Device limits (reported by query_device / query_device_ex). */
#define SV_MAX_QP 1024
#define SV_MAX_QP_WR 8192
#define SV_MAX_SGE 32
/* mlx5 profile: TSO of up to 256 KiB (the kernel reports 1 <<
 * max_lso_cap, 18 on ConnectX-4 and later), and a completion clock of
 * 1 GHz (hca_core_clock in kHz, as a ConnectX-6 Dx's real-time clock):
 * ticks are CLOCK_MONOTONIC nanoseconds. */
#define SV_MAX_TSO (256u * 1024)
#define SV_CORE_CLOCK_KHZ 1000000u
/* The kernel's timestamp_mask (mlx5_ib_query_device(), Linux 6.1). */
#define SV_TIMESTAMP_MASK 0x7fffffffffffffffull
#define SV_MAX_CQE 65536
#define SV_MAX_CQ 2048
#define SV_MAX_MR 4096
#define SV_MAX_PD 64
#define SV_MAX_WQ 1024
#define SV_MAX_IND_LOG 9      /* 512-entry indirection tables */
#define SV_MAX_IND_LOG_OPT 11 /* sv_device_opts.log_ind_tbl's ceiling */
#define SV_RSS_KEY_LEN 40
#define SV_MAX_PRIO_MLX5 15 /* kernel: priority > 15 -> ENOMEM */
#define SV_MAX_PRIO 0xfff   /* generic profile */
/* Steering level of the mlx5 multicast table: after every priority
 * (MLX5_IB_FLOW_MCAST_PRIO is the last bypass priority). */
#define SV_LEVEL_MCAST (((uint64_t)SV_MAX_PRIO + 1) << 1)
#define SV_RX_BATCH 32	  /* frames pulled per pump and ready WQ */
#define SV_RX_BATCH_WQS 4 /* ... up to this many WQs */
#define SV_ASYNC_QLEN 64  /* async events queued per context */
/* Flow table capabilities no source gives a ConnectX's value of:
 * max_modify_header_actions (DPDK's mlx5 assumes 16 on the root tables,
 * MLX5_ROOT_TBL_MODIFY_NUM) and max_encap_header_size (DPDK sends at most
 * 132 bytes, MLX5_ENCAP_MAX_LEN; 128 holds every header it builds: VXLAN
 * over IPv6 with a VLAN tag is 74). */
#define SV_MODIFY_ACTIONS_DEFAULT 16
#define SV_ENCAP_SIZE_DEFAULT 128
/* IBV_RX_HASH_* fields a hash QP may select (rss_caps). */
#define SV_RX_HASH_FIELDS                                                     \
	(IBV_RX_HASH_SRC_IPV4 | IBV_RX_HASH_DST_IPV4 | IBV_RX_HASH_SRC_IPV6 | \
	 IBV_RX_HASH_DST_IPV6 | IBV_RX_HASH_SRC_PORT_TCP |                    \
	 IBV_RX_HASH_DST_PORT_TCP | IBV_RX_HASH_SRC_PORT_UDP |                \
	 IBV_RX_HASH_DST_PORT_UDP | IBV_RX_HASH_INNER)

struct sv_context;
struct sv_port;
struct sv_qp;
struct sv_wq;

/* Largest Toeplitz input: two IPv6 addresses and two ports. */
#define SV_TOEPLITZ_MAX_IN (16 + 16 + 2 + 2)
/* A key's hash of each byte value at each byte of an input of up to n
 * bytes (1 KiB a byte: 12 KiB for IPv4 and ports). */
struct sv_toeplitz_tbl {
	uint32_t n;
	uint32_t byte[][256];
};

/*
 * A rule in a port's table: a verbs flow or an mlx5dv flow. The object
 * its creator hands out (struct sv_flow, struct sv_dv_flow) ends with it,
 * and the value words the rule's group selects follow it: sv_steer_add()
 * makes the whole object. The match itself (mask and value) is not kept:
 * the rule's group holds the mask.
 */
struct sv_rule {
	struct sv_actions act;
	/* The QP the rule was made on: the destination of an ingress rule
	 * (a hash QP) unless it drops; it holds a use count. */
	struct sv_qp *qp;
	uint16_t priority;
	uint8_t type;  /* enum ibv_flow_attr_type */
	uint8_t flags; /* IBV_FLOW_ATTR_FLAGS_* */
	/* In the mlx5 multicast table, whatever its priority (the kernel's
	 * flow_is_multicast_only() / raw_fs_is_multicast()). */
	bool mcast;
	/* Owned by sv_steer.c and sv_table.c. */
	uint8_t hdr_;  /* bytes of the creator's object before the rule */
	uint16_t fte_; /* its entry's index in the level's flow table */
	uint64_t seq_; /* creation order in its direction, from 1 */
	void *grp_;    /* its group (NORMAL rules) */
	struct sv_rule *next_; /* next rule of the same entry */
};

_Static_assert(sizeof(struct sv_rule) % 8 == 0, "value words follow");

/*
 * Memory of a port's rule tables (sv_slab.c): slabs for the rule objects,
 * malloc or mmap for the tables' arrays; bytes is what the port holds.
 * Callers hold the port's rules_lock for writing.
 */
#define SV_ARENA_OBJ_MAX 1024 /* largest rule object */
struct sv_slab;
struct sv_arena {
	struct sv_slab *room[SV_ARENA_OBJ_MAX / 8 + 1]; /* by size / 8 */
	struct sv_slab *all;				/* slabs in use */
	struct sv_slab *spare; /* one empty slab kept */
	size_t bytes;	       /* slabs and arrays held */
};
void sv_arena_init(struct sv_arena *a);
/* Unmaps every slab, objects still handed out included. */
void sv_arena_fini(struct sv_arena *a);
/* An object of size bytes (not zeroed), 8-byte aligned. */
void *sv_arena_obj_alloc(struct sv_arena *a, size_t size);
void sv_arena_obj_free(struct sv_arena *a, void *o);
/* Zeroed arrays; sv_arena_zfree() wants the size they were made with. */
void *sv_arena_zalloc(struct sv_arena *a, size_t bytes);
void sv_arena_zfree(struct sv_arena *a, void *p, size_t bytes);

struct sv_port {
	struct sv_device *dev;
	uint8_t port_num; /* 1 */
	struct sv_wire *wire;
	int wire_end;
	uint8_t mac[6];
	/* One pump at a time; try-locked by pollers that find their CQ
	 * empty. Everything the device does to receive queues (deliveries,
	 * sniffer copies, flushes, resets) happens under it, so receive
	 * rings and their CQs have one producer at a time. A spinlock: held
	 * for one batch at most. */
	pthread_spinlock_t pump_lock;
	/* Receive WQs in IBV_WQS_RDY (under pump_lock): the pump pulls
	 * SV_RX_BATCH frames per queue, so that frames spread by RSS over
	 * several queues still reach each in bursts of about SV_RX_BATCH. */
	unsigned int rx_wqs_ready;
	/* Rule tables: classification readers vs flow create/destroy. */
	pthread_rwlock_t rules_lock;
	void *steer; /* rule tables and their memory, sv_steer.c */
	atomic_uint_fast64_t rx_frames;
	atomic_uint_fast64_t rx_no_buffer;
	atomic_uint_fast64_t rx_not_ready;
	atomic_uint_fast64_t rx_unsteered;
	atomic_uint_fast64_t rx_dropped;
	atomic_uint_fast64_t tx_frames;
	atomic_uint_fast64_t tx_errors;
	/* Port state last reported by an async event (sv_device.ev_lock),
	 * as the mlx5 kernel's roce.last_port_state. */
	bool link_reported;
};

struct sv_context;
TAILQ_HEAD(sv_context_list, sv_context);

struct sv_device {
	struct ibv_device ibdev; /* "soft:<if>", "xdp:<if>", "mem:<l>.<e>" */
	TAILQ_ENTRY(sv_device) next;
	struct sv_caps caps;
	uint32_t lacks;	      /* SV_DEV_NO_* */
	uint32_t log_ind_tbl; /* largest indirection table (log2) */
	int open_count;
	struct sv_port port; /* one physical port, number 1 */
	/* Open contexts (async event queues) and link polling. */
	pthread_mutex_t ev_lock;
	struct sv_context_list ctxs;
};

/* A thread domain (ibv_alloc_td(3)): objects made on a parent domain
 * holding one are used by one thread at a time, so softverbs takes no
 * lock on them. */
struct sv_td {
	struct ibv_td td;
	atomic_int usecnt; /* parent domains: dealloc_td -> EBUSY */
};

/*
 * A protection domain, or a parent domain (ibv_alloc_parent_domain(3)),
 * which stands for the protection domain it wraps (prot) everywhere and
 * adds a thread domain and custom allocators. The accounting is libmlx5's
 * (mlx5_alloc_parent_domain, mlx5_dealloc_parent_domain): a parent domain
 * holds a use of the domain it was made over, and is held by the send
 * QPs and the CQs made on it; MRs, WQs and hash QPs hold the protection
 * domain only, as the kernel objects they stand for do.
 */
struct sv_pd {
	struct ibv_pd pd;
	/* Plain PD: MRs, QPs, WQs, parent domains over it; parent domain:
	 * send QPs, CQs, parent domains over it. dealloc_pd -> EBUSY. */
	atomic_int usecnt;
	struct sv_pd *prot; /* the protection domain (itself when plain) */
	struct sv_pd *over; /* parent domain: the domain it was made over;
			     * NULL for a plain PD */
	struct sv_td *td;   /* parent domain: its thread domain, or NULL */
	/* IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS / _PD_CONTEXT */
	void *(*alloc)(struct ibv_pd *pd, void *pd_context, size_t size,
		       size_t alignment, uint64_t resource_type);
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type);
	void *pd_context;
};

static inline struct sv_pd *
sv_pd_of(struct ibv_pd *pd)
{
	return sv_container_of(pd, struct sv_pd, pd);
}

/* Objects made on pd need no lock against other threads of the
 * application: a parent domain with a thread domain
 * (mlx5_spinlock_init_pd()); only a parent domain has one. */
static inline bool
sv_pd_single_threaded(const struct sv_pd *pd)
{
	return pd->td != NULL;
}

/* A queue's buffer, and how to give it back. */
struct sv_buf {
	void *p;
	void (*free)(struct ibv_pd *pd, void *pd_context, void *ptr,
		     uint64_t resource_type); /* NULL: free() */
	struct ibv_pd *pd;
	void *pd_context;
	uint64_t type;
};

/* Zeroed memory for a queue's buffer through the parent domain's
 * allocator when it has one (resource_type MLX5DV_RES_TYPE_*), else
 * calloc(). 0, or ENOMEM. */
int sv_buf_alloc(struct sv_pd *pd, size_t size, uint64_t resource_type,
		 struct sv_buf *b);
void sv_buf_free(struct sv_buf *b);

struct sv_mr {
	struct ibv_mr mr;
	uintptr_t start;
	size_t len;
	int access;
	struct sv_pd *prot; /* the protection domain it belongs to */
};

struct sv_context {
	struct sv_device *dev;
	pthread_mutex_t lock;
	/* lkey = index << 8 | generation: O(1) lookup on the data path. */
	struct sv_mr *mrs[SV_MAX_MR];
	uint8_t mr_gen[SV_MAX_MR];
	atomic_int nobjs;  /* live objects: close_device -> EBUSY */
	bool devx;	   /* has a DevX uid (mlx5_ib_ucontext.devx_uid) */
	uint32_t next_qpn; /* QP, WQ and table numbers (lock) */
	/* Live objects per kind, against the SV_MAX_* limits (lock). */
	int n_pd, n_cq, n_wq, n_qp;
	/* Async events (sv_event.c): context.async_fd is an epoll set of
	 * async_efd (readable while the queue holds events) and the wire's
	 * link fd; -1 when the wire cannot say when its link changes. */
	int async_efd;
	pthread_mutex_t async_lock;
	struct ibv_async_event async_q[SV_ASYNC_QLEN];
	unsigned int async_head, async_n;
	TAILQ_ENTRY(sv_context) dev_next; /* on sv_device.ctxs (ev_lock) */
	struct verbs_context vctx; /* must be last: ibv_context ends it */
};

static inline struct sv_context *
sv_ctx(struct ibv_context *c)
{
	return sv_container_of(c, struct sv_context, vctx.context);
}

/* A completion as the device writes it. */
struct sv_cqe {
	uint64_t wr_id;
	enum ibv_wc_status status;
	enum ibv_wc_opcode opcode;
	uint32_t byte_len;
	uint32_t flow_tag;
	unsigned int wc_flags; /* IBV_WC_IP_CSUM_OK, ... */
	uint32_t qp_num;
	uint16_t cvlan;
	uint64_t ts; /* completion time (sv_clock_ticks()) */
	/* Send completions: reading this one frees sq_retire send queue
	 * slots of the QP owning sq_retired (NULL for receives). */
	atomic_uint *sq_retired;
	uint32_t sq_retire;
} __attribute__((aligned(64))); /* one cache line each, none straddles two */

/*
 * A completion queue. Consumers: the application's pollers, serialised by
 * poll_lock unless the CQ was made IBV_CREATE_CQ_ATTR_SINGLE_THREADED
 * (libmlx5 then polls without its lock too). Producers: the receive side
 * (deliveries and flushes of the WQs, always under the port's pump lock)
 * and the send QPs completing here (each under its own send queue), which
 * serialise on lock; the receive side takes lock only while send QPs
 * complete here too (n_sq).
 */
struct sv_cq {
	struct ibv_cq_ex cqx; /* ibv_cq_ex begins like ibv_cq */
	struct sv_context *ctx;
	uint64_t wc_flags; /* IBV_WC_EX_WITH_* asked for */
	struct sv_cqe *ring;
	uint32_t size;	    /* power of two */
	uint32_t head;	    /* consumer */
	struct sv_cqe *cur; /* completion being read */
	bool single;	    /* IBV_CREATE_CQ_ATTR_SINGLE_THREADED */
	pthread_spinlock_t poll_lock;
	pthread_spinlock_t lock; /* producers */
	uint32_t tail;		 /* producer */
	bool rx_locked;		 /* the receive side holds lock (pump lock) */
	atomic_uint n_sq;	 /* send QPs completing here (pump lock) */
	atomic_int usecnt;	 /* WQs, QPs: destroy_cq -> EBUSY */
	struct sv_pd *parent;	 /* IBV_CQ_INIT_ATTR_MASK_PD, holds a use */
	bool ts; /* IBV_WC_EX_WITH_COMPLETION_TIMESTAMP: stamp completions */
	uint64_t overruns;
	/* Completion events (sv_event.c). armed: SV_CQ_ARM_* under lock;
	 * ev_*: under the channel's lock; events_got: events handed out by
	 * get_cq_event, which destroy_cq waits to see acknowledged. */
	struct sv_channel *channel; /* NULL: none */
	uint8_t armed;
	unsigned int ev_pending; /* events queued on the channel */
	TAILQ_ENTRY(sv_cq) ev_next;
	unsigned int events_got; /* cqx.mutex */
};

#define SV_CQ_ARM_NEXT 1u /* ibv_req_notify_cq(cq, 0) */
#define SV_CQ_ARM_SOL 2u  /* ibv_req_notify_cq(cq, 1) */

/* A completion channel: ch.fd is an epoll set that polls readable while
 * events are queued (efd), or while one of its CQs is armed and the wire
 * has frames to pump (wire_fd in the set then) (sv_event.c). */
struct sv_channel {
	struct ibv_comp_channel ch;
	struct sv_context *ctx;
	int efd;
	int wire_fd;
	pthread_mutex_t lock;
	TAILQ_HEAD(, sv_cq) events; /* CQs with ev_pending > 0, in order */
	int armed_n;  /* CQs armed, as counted by sv_channel_armed() */
	bool wire_in; /* wire_fd in the set */
};

/* A CQ of the channel was armed (+1) or its arming ended (-1). */
void sv_channel_armed(struct sv_channel *ch, int delta);
/* An armed CQ raised its event (its arming ended): queue it on its
 * channel. */
void sv_channel_post(struct sv_cq *cq);
/* A CQ going away: drop its events not yet read. */
void sv_channel_forget(struct sv_cq *cq);
/* Async events of a context: set up context.async_fd, join the device's
 * list / leave it and close the fds. */
int sv_async_open(struct sv_context *ctx);
void sv_async_close(struct sv_context *ctx);
int sv_req_notify_cq(struct ibv_cq *cq, int solicited_only);

/* Push a completion; false when the CQ is full (counted as overrun). Any
 * producer. */
bool sv_cq_push(struct sv_cq *cq, const struct sv_cqe *cqe);
/* The same for n completions in order, under one lock. Returns how many
 * fitted. */
uint32_t sv_cq_push_n(struct sv_cq *cq, const struct sv_cqe *cqe, uint32_t n);
/* The receive side's push: the caller holds the port's pump lock. */
bool sv_cq_push_rx(struct sv_cq *cq, const struct sv_cqe *cqe);

/* The same in place: the next slot to fill (NULL when the CQ is full,
 * counted as overrun), published by sv_cq_rx_commit(). */
static inline struct sv_cqe *
sv_cq_rx_reserve(struct sv_cq *cq)
{
	uint32_t head;

	/* Every receive-side producer holds the pump lock; send QPs are
	 * counted in n_sq under it before they can complete here. A CQ on a
	 * channel takes the producers' lock too: arming and producing must
	 * see each other (sv_cq.c). */
	cq->rx_locked = cq->channel != NULL ||
			atomic_load_explicit(&cq->n_sq, memory_order_relaxed) !=
				0;
	if (sv_unlikely(cq->rx_locked))
		pthread_spin_lock(&cq->lock);
	head = __atomic_load_n(&cq->head, __ATOMIC_ACQUIRE);
	if (sv_unlikely(cq->tail - head >= cq->size)) {
		cq->overruns++;
		if (cq->rx_locked)
			pthread_spin_unlock(&cq->lock);
		return NULL;
	}
	return &cq->ring[cq->tail & (cq->size - 1)];
}

/* Release the producers' lock after a locked receive completion, raising
 * the CQ's event when it was armed for it (sv_cq.c). */
void sv_cq_rx_unlock(struct sv_cq *cq);

static inline void
sv_cq_rx_commit(struct sv_cq *cq)
{
	__atomic_store_n(&cq->tail, cq->tail + 1, __ATOMIC_RELEASE);
	if (sv_unlikely(cq->rx_locked))
		sv_cq_rx_unlock(cq);
}
/* Drop the send-queue references of completions still in cq (QP going
 * away). */
void sv_cq_forget_sq(struct sv_cq *cq, const atomic_uint *sq_retired);
int sv_poll_cq(struct ibv_cq *cq, int num_entries, struct ibv_wc *wc);
struct sv_cq *sv_cq_from_ibv(struct ibv_cq *cq);
struct ibv_cq_ex *
sv_create_cq_ex(struct ibv_context *context, struct ibv_cq_init_attr_ex *attr);

/* A posted receive WQE: its SGEs follow it in the ring (one cache line
 * holds two one-SGE WQEs). */
struct sv_rwqe {
	uint64_t wr_id;
	uint32_t num_sge;
	uint32_t pad_;
	struct ibv_sge sge[]; /* max_sge */
};

/* A frame the steering core hands a receive WQ, and what it knows of it. */
struct sv_rx_frame {
	const uint8_t *data;
	uint32_t len;
	const struct sv_key *key;
	const struct sv_pkt_info *info;
	const struct sv_qp *qp; /* the hash QP that chose the WQ */
	const struct sv_actions *act;
};

/*
 * Another face of a receive WQ: its buffers and completions live outside
 * softverbs (the mlx5 model keeps them in the rings libmlx5 writes). The
 * steering core then calls deliver instead of sv_wq_deliver(), under the
 * port's pump lock, and counts its answer as sv_wq_deliver()'s: 0,
 * ENOBUFS (nothing posted) or EAGAIN (the WQ is not ready). The WQ's own
 * ring stays empty.
 */
struct sv_wq_face {
	int (*deliver)(struct sv_wq *wq, const struct sv_rx_frame *f);
	void *priv;
};

/*
 * A receive work queue: a ring of posted WQEs with one producer side, the
 * application's ibv_post_wq_recv() (serialised by lock unless the WQ was
 * made on a parent domain with a thread domain), and one consumer side,
 * the device (deliveries and flushes, under the port's pump lock). head
 * and tail are published with release stores, so neither side locks the
 * other out.
 */
struct sv_wq {
	struct ibv_wq wq;
	struct sv_context *ctx;
	struct sv_cq *cq;
	struct sv_pd *pd; /* the protection domain */
	uint8_t *ring;	  /* size WQEs of stride bytes */
	uint32_t stride;  /* sizeof(struct sv_rwqe) + max_sge SGEs */
	uint32_t size, max_sge;
	uint32_t head;	/* consumer (device, pump lock) */
	uint32_t flags; /* IBV_WQ_FLAGS_* in effect (pump lock) */
	/* mlx5: a receive error put the WQ in error on the device, whatever
	 * wq.state (what software set last) says; until a reset it takes
	 * no frame and flushes what is posted (pump lock). */
	bool dev_err;
	bool single;		       /* posts need no lock (thread domain) */
	struct sv_buf buf;	       /* ring and SGEs */
	pthread_spinlock_t lock;       /* posts, state changes */
	uint32_t tail;		       /* producer (post) */
	atomic_int usecnt;	       /* indirection tables */
	const struct sv_wq_face *face; /* NULL: softverbs' own */
};

/* Copy frame into the buffers sge[0..n), leaving out the skip bytes at
 * skip_at (a stripped VLAN tag): every buffer must lie in memory
 * registered in the WQ's PD with local write access
 * (IBV_WC_LOC_PROT_ERR) and hold the frame (IBV_WC_LOC_LEN_ERR). */
enum ibv_wc_status sv_wq_scatter(struct sv_wq *wq, const struct ibv_sge *sge,
				 uint32_t n, const uint8_t *frame, uint32_t len,
				 uint32_t skip_at, uint32_t skip);
/* The 802.1Q tag VLAN stripping takes out of a frame: true with its TCI
 * when there is one; it is SV_WQ_STRIP_LEN bytes at SV_WQ_STRIP_AT. */
#define SV_WQ_STRIP_AT 12u
#define SV_WQ_STRIP_LEN 4u
bool sv_wq_strip(const uint8_t *frame, uint32_t len, uint16_t *tci);

/* Give a WQ another face (before it is made ready): see sv_wq_face. */
static inline void
sv_wq_set_face(struct ibv_wq *ibwq, const struct sv_wq_face *face)
{
	sv_container_of(ibwq, struct sv_wq, wq)->face = face;
}

/*
 * Deliver one frame into the next posted buffer of wq and complete it on
 * the WQ's CQ; the caller holds the port's pump lock. Returns 0, ENOBUFS
 * when nothing is posted (the caller counts rx_no_buffer) or EAGAIN when
 * the WQ is not in IBV_WQS_RDY (a queue that was never made ready
 * discards, as an RQ in RESET does; the caller counts rx_not_ready). An
 * SGE outside memory registered with local write access in the WQ's PD
 * completes with IBV_WC_LOC_PROT_ERR, a frame longer than the buffers
 * with IBV_WC_LOC_LEN_ERR; on mlx5 either puts the WQ in error (dev_err:
 * the WQEs posted behind it are flushed, later frames find no buffer,
 * ENOBUFS) until it is reset. A WQ with IBV_WQ_FLAGS_CVLAN_STRIPPING receives
 * an 802.1Q-tagged frame without its tag, whose TCI ibv_wc_read_cvlan()
 * gives.
 */
int sv_wq_deliver(struct sv_wq *wq, const uint8_t *frame, uint32_t len,
		  const struct sv_actions *act, unsigned int wc_flags);
struct ibv_wq *
sv_create_wq(struct ibv_context *context, struct ibv_wq_init_attr *attr);
int sv_modify_wq(struct ibv_wq *wq, struct ibv_wq_attr *attr);
int sv_destroy_wq(struct ibv_wq *wq);
struct ibv_rwq_ind_table *
sv_create_rwq_ind_table(struct ibv_context *context,
			struct ibv_rwq_ind_table_init_attr *attr);
int sv_destroy_rwq_ind_table(struct ibv_rwq_ind_table *tbl);

struct sv_ind {
	struct ibv_rwq_ind_table ind;
	struct sv_context *ctx;
	uint32_t log_size;
	struct sv_wq **wqs; /* 1 << log_size entries */
	atomic_int usecnt;  /* hash QPs */
};

enum sv_qp_kind {
	SV_QP_HASH, /* RX: hash over an indirection table */
	SV_QP_RAW,  /* raw packet QP (send side) */
};

struct sv_qp {
	struct ibv_qp qp; /* qp.state is the QP state */
	struct sv_context *ctx;
	struct sv_pd *pd;     /* the protection domain */
	struct sv_pd *parent; /* send QP made on a parent domain: held */
	bool single;	      /* posts need no lock (thread domain) */
	enum sv_qp_kind kind;
	uint8_t port_num;
	bool tunnel; /* MLX5DV_QP_CREATE_TUNNEL_OFFLOADS */
	/* hash QP */
	struct sv_ind *ind;
	uint64_t hash_fields;		  /* IBV_RX_HASH_* */
	struct sv_toeplitz_tbl *toeplitz; /* from the RSS key */
	/* send side */
	struct sv_cq *scq;
	uint32_t max_send_wr, max_send_sge, max_inline;
	/* IBV_WR_TSO: IBV_QP_INIT_ATTR_MAX_TSO_HEADER's header bytes, and
	 * the payload bytes a WR may carry (the device's max_tso; 0: no
	 * TSO), as libmlx5 keeps them (qp->max_tso_header, qp->max_tso). */
	uint32_t max_tso_header, max_tso;
	int sq_sig_all;
	/* Send queue slots in use: sq_posted - sq_retired. Each counter has
	 * one writer, so neither needs an atomic read-modify-write: the
	 * poster (send queue lock, or thread domain) and the reader of the
	 * send CQ (poll lock, or single-threaded CQ). */
	uint32_t sq_posted;	/* WRs taken */
	atomic_uint sq_retired; /* WRs whose completion was read */
	atomic_int usecnt;	/* flows attached: destroy -> EBUSY */
	void *sq_priv_;		/* sv_qp.c: send queue scratch */
};

static inline struct sv_qp *
sv_qp(struct ibv_qp *qp)
{
	return sv_container_of(qp, struct sv_qp, qp);
}

struct ibv_qp *
sv_create_qp_ex(struct ibv_context *context, struct ibv_qp_init_attr_ex *attr);
/* The device clock (hca_core_clock ticks: nanoseconds). */
static inline uint64_t
sv_clock_ticks(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* True when the device offers what the bit names (SV_DEV_NO_*). */
static inline bool
sv_dev_has(const struct sv_device *dev, uint32_t no_bit)
{
	return !(dev->lacks & no_bit);
}
/* Open a context; devx: with a DevX uid. */
struct ibv_context *sv_open(struct ibv_device *device, bool devx);
int sv_post_send(struct ibv_qp *qp, struct ibv_send_wr *wr,
		 struct ibv_send_wr **bad_wr);

#define SV_MR_LKEY(idx, gen) ((uint32_t)(idx) << 8 | (gen))
#define SV_MR_IDX(lkey) ((lkey) >> 8)

/* Look up the MR covering [addr, addr + len) under lkey, or NULL. */
static inline const struct sv_mr *
sv_mr_lookup(struct sv_context *ctx, uint32_t lkey, uint64_t addr, uint64_t len)
{
	const struct sv_mr *mr;
	uint32_t idx = SV_MR_IDX(lkey);

	if (sv_unlikely(idx >= SV_MAX_MR))
		return NULL;
	mr = __atomic_load_n(&ctx->mrs[idx], __ATOMIC_ACQUIRE);
	if (sv_unlikely(mr == NULL || mr->mr.lkey != lkey))
		return NULL;
	if (sv_unlikely(addr < mr->start || len > mr->len ||
			addr - mr->start > mr->len - len))
		return NULL;
	return mr;
}

/* Toeplitz (sv_toeplitz.c). */
uint32_t sv_toeplitz(const uint8_t *key, size_t key_len, const uint8_t *in,
		     size_t in_len);
/* Hash of a parsed frame under IBV_RX_HASH_* fields (0 when the frame
 * lacks the fields' layers, as hardware does). */
uint32_t sv_rx_hash(const uint8_t key[SV_RSS_KEY_LEN], uint64_t fields,
		    const struct sv_key *k);
/* The same hash from a key's table: sv_toeplitz() of in (up to the
 * table's n bytes), one lookup per input byte. The table is made for
 * inputs of up to n bytes (malloc()ed; NULL with errno set). */
struct sv_toeplitz_tbl *
sv_toeplitz_prepare(const uint8_t key[SV_RSS_KEY_LEN], size_t n);
uint32_t sv_toeplitz_tbl(const struct sv_toeplitz_tbl *t, const uint8_t *in,
			 size_t in_len);
/* The longest input a hash QP's fields make. */
size_t sv_rx_hash_max_input(uint64_t fields);
/* sv_rx_hash() under the hash QP's key and fields, through its table. */
uint32_t sv_qp_rx_hash(const struct sv_qp *qp, const struct sv_key *k);

/* Steering (sv_steer.c). */
int sv_steer_init(struct sv_port *port);
void sv_steer_fini(struct sv_port *port);
/*
 * Make a rule object and insert its rule, under the port's write lock:
 * hdr bytes (a multiple of 8, zeroed) that are the caller's, then a copy
 * of tmpl (act, qp, priority, type, flags, mcast), then the value words.
 * mask and value are the match of a NORMAL rule (ignored otherwise).
 * Returns the rule, or NULL with errno: EEXIST for the same match at the
 * same level with another fate, ENOSPC for a full level (mlx5 profile:
 * the kernel's flow table of the priority), ENOMEM, EINVAL.
 */
struct sv_rule *
sv_steer_add(struct sv_port *port, const struct sv_rule *tmpl,
	     const struct sv_key *mask, const struct sv_key *value, size_t hdr);
/* Remove the rule and free its object (the caller's bytes included). */
void sv_steer_del(struct sv_port *port, struct sv_rule *rule);
/* For tests: the entries (head rules) of NORMAL rules a frame of key k
 * meets, in the order the receive path (or the egress path) acts on
 * them: DONT_TRAP copies, then the rule that traps or drops it. Returns
 * how many were written to out, at most max; *probes (if not NULL): the
 * hash tables (level filters, mask groups) the walk looked into. */
unsigned int sv_steer_walk(struct sv_port *port, bool egress,
			   const struct sv_key *k, const struct sv_rule **out,
			   unsigned int max, unsigned int *probes);
/* Pull up to SV_RX_BATCH frames from the wire and dispatch them; no-op if
 * another thread is pumping. Returns the number of frames taken. */
unsigned int sv_port_pump(struct sv_port *port);
/* Run a frame about to be sent through the egress rules: false = drop. A
 * rule's flow actions (rewrite, encap) write the frame to send into buf
 * (cap bytes, sv_port_egress_room() of the frame's length), and *frame and
 * *len then name it. */
bool sv_port_egress(struct sv_port *port, const uint8_t **frame, uint32_t *len,
		    uint8_t *buf, uint32_t cap);
/* The room sv_port_egress() needs for a frame of len bytes. */
static inline uint32_t
sv_port_egress_room(const struct sv_port *port, uint32_t len)
{
	return len + port->dev->caps.max_encap_size;
}
/* No egress rule and no sniffer: sv_port_egress() would pass every frame
 * untouched (read once per send call). */
bool sv_port_egress_idle(const struct sv_port *port);
struct ibv_flow *sv_create_flow(struct ibv_qp *qp, struct ibv_flow_attr *attr);
int sv_destroy_flow(struct ibv_flow *flow);
/* mlx5dv flows (sv_dv.c) are destroyed with ibv_destroy_flow() too: their
 * ibv_flow.handle has SV_FLOW_HANDLE_DV set (verbs flow handles never do)
 * and sv_destroy_flow() hands them to sv_dv_destroy_flow(). */
#define SV_FLOW_HANDLE_DV (UINT32_C(1) << 31)
int sv_dv_destroy_flow(struct ibv_flow *flow);

/* mlx5dv flow actions (sv_flow_action.c): a header modify list or a
 * packet reformat, used by mlx5dv flows (sv_dv.c). */
enum sv_fa_kind {
	SV_FA_MODIFY = 1,
	SV_FA_REFORMAT,
};
struct sv_flow_action {
	struct ibv_flow_action
		action; /* its context: ibv_destroy_flow_action() */
	uint32_t magic;
	uint8_t kind;	  /* enum sv_fa_kind */
	uint8_t ft_type;  /* MLX5DV_FLOW_TABLE_TYPE_NIC_RX / _NIC_TX */
	uint8_t reformat; /* enum sv_reformat (sv_pktedit.h) */
	struct sv_context *ctx;
	atomic_int usecnt; /* flows: destroy -> EBUSY */
	uint32_t n;	   /* modify: struct sv_mod_cmd in buf; reformat:
			    * bytes of data in buf */
	uint8_t buf[] __attribute__((aligned(8)));
};
/* The softverbs action behind a (softverbs) ibv_flow_action, or NULL. */
struct sv_flow_action *sv_flow_action_of(struct ibv_flow_action *a);
int sv_destroy_flow_action(struct ibv_flow_action *action);

/* Counters (sv_counters.c). */
#define SV_MAX_COUNTER_POINTS 16 /* attach points per object */
#define SV_MAX_COUNTER_INDEX 255 /* highest attach index */
struct sv_counter_point {
	enum ibv_counter_description desc;
	uint32_t index;
};
struct sv_counters {
	struct ibv_counters c;
	struct sv_context *ctx;
	atomic_uint_fast64_t packets;
	atomic_uint_fast64_t bytes;
	/* Static attach points; several may share an index (their values
	 * add up, ibv_attach_counters_point_flow(3)). */
	pthread_mutex_t lock;
	unsigned int npoints;
	struct sv_counter_point points[SV_MAX_COUNTER_POINTS];
	atomic_int bound; /* flows using it: attach EBUSY, read only if > 0 */
};
void sv_counters_add(struct sv_counters *c, uint32_t bytes);
/* A flow starts / stops using c (ibv_create_flow with an
 * IBV_FLOW_SPEC_ACTION_COUNT spec). bind fails with EINVAL when no point
 * was attached, as the mlx5 provider does. */
int sv_counters_bind(struct sv_counters *c);
void sv_counters_unbind(struct sv_counters *c);
struct ibv_counters *sv_create_counters(struct ibv_context *context,
					struct ibv_counters_init_attr *attr);
int sv_destroy_counters(struct ibv_counters *counters);
int sv_attach_counters_point_flow(struct ibv_counters *counters,
				  struct ibv_counter_attach_attr *attr,
				  struct ibv_flow *flow);
int sv_read_counters(struct ibv_counters *counters, uint64_t *values,
		     uint32_t ncounters, uint32_t flags);

#endif /* SV_INTERNAL_H */
