/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

/*
 * The mlx5 model: a ConnectX-5 and the Linux 6.1 mlx5_ib driver behind the
 * uverbs kernel ABI, in user space, so that rdma-core's own libibverbs and
 * libmlx5 run unmodified on it. A preloaded library (libmlx5model.so)
 * takes the calls they make on /dev/infiniband/uverbsN (open, fstat,
 * ioctl, write, mmap, close) and answers them as the kernel would; the
 * device behind is a softverbs device (lib/softverbs): its rule tables,
 * spec and PRM compilers, Toeplitz hash, counters and wires, with the
 * rings libmlx5 writes in process memory as the face it shows the
 * application (a receive WQ face, see sv_wq_face).
 *
 * Files:
 *   mm_preload.c  the libc calls interposed, the descriptors of the model
 *   mm_uverbs.c   ioctl and write dispatch: method and attribute tables,
 *                 the kernel's attribute checks, object handles
 *   mm_device.c   configuration, devices, files and contexts, the DEVICE
 *                 methods (context, queries, GIDs, async events), UARs
 *                 and mmap, the modelled netdev of in-memory links
 *   mm_caps.c     what the device is: identity, HCA capabilities (the
 *                 QUERY_HCA_CAP pages) and the query_device answers
 *   mm_verbs.c    PD, MR, CQ, WQ, indirection tables, QPs, completion
 *                 channels
 *   mm_flow.c     verbs flows, counters objects, the mlx5 flow matcher
 *                 and flow methods, flow actions (header modify, packet
 *                 reformat)
 *   mm_devx.c     DevX objects and general commands
 *   mm_engine.c   the device thread: receive face, send queues, CQEs,
 *                 completion events
 *
 * Every refusal that mirrors the kernel names the Linux 6.1 function (and
 * the firmware's, where it is the firmware that answers) in a comment.
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/mlx5dv.h>
#include <infiniband/verbs.h>
#include <rdma/ib_user_ioctl_cmds.h>
#include <rdma/ib_user_verbs.h>
#include <rdma/rdma_user_ioctl_cmds.h>

#include "sv_internal.h"

#define MM_MAX_DEVS 8
#define MM_UVERBS_MAJOR 231 /* IB_UVERBS_MAJOR */
#define MM_UVERBS_BASE_MINOR 192
#define MM_PAGE 4096u

#define mm_likely(x) __builtin_expect(!!(x), 1)
#define mm_unlikely(x) __builtin_expect(!!(x), 0)
#define MM_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct mm_file;
struct mm_dev;
struct mm_uobj;

/* Log a line to stderr when MLX5MODEL_TRACE is set (commands, refusals). */
extern int mm_trace_on;
void mm_trace(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A refusal: traced with the kernel function it mirrors, returns -err. */
#define MM_REFUSE(err, why)                                                    \
	(mm_trace_on ? mm_trace("refused %s: %s (%s:%d)", #err, why, __func__, \
				__LINE__) :                                    \
		       (void)0,                                                \
	 -(err))

/* ---- libc (mm_preload.c): the real functions behind the interposed ones */
int mm_real_open(const char *path, int flags, mode_t mode);
int mm_real_close(int fd);
int mm_real_ioctl(int fd, unsigned long req, void *arg);
void *
mm_real_mmap(void *addr, size_t len, int prot, int flags, int fd, off_t off);
ssize_t mm_real_write(int fd, const void *buf, size_t n);
ssize_t mm_real_read(int fd, void *buf, size_t n);

/* What a descriptor the model handed out stands for. */
enum mm_fd_kind {
	MM_FD_NONE = 0,
	MM_FD_CMD,   /* /dev/infiniband/uverbsN: a struct mm_file */
	MM_FD_EVENT, /* a completion channel or async event file (a pipe) */
	MM_FD_RTNL,  /* a route netlink socket: a struct mm_rtnl */
};
void mm_fd_set(int fd, enum mm_fd_kind kind, void *obj);
void *mm_fd_get(int fd, enum mm_fd_kind kind);
void mm_fd_clear(int fd);

/* ---- devices (mm_device.c) ---- */

/* The identity and limits of the modelled device (mm_caps.c). */
struct mm_caps {
	/* cmd_hca_cap (general device capabilities) */
	uint8_t log_max_qp, log_max_qp_sz, log_max_srq, log_max_srq_sz;
	uint8_t log_max_cq, log_max_cq_sz, log_max_mkey, log_max_pd;
	uint8_t log_max_ra_req_qp, log_max_ra_res_qp, log_max_mcg;
	uint8_t log_max_rq, log_max_sq, log_max_rqt, log_max_rqt_size;
	uint8_t log_max_tir, log_max_tis, log_max_klm_list_size;
	uint8_t log_max_msg, log_bf_reg_size, log_pg_sz, cqe_version;
	uint8_t local_ca_ack_delay, log_max_flow_counter_bulk;
	uint16_t max_wqe_sz_sq, max_wqe_sz_rq, max_qp_mcg;
	uint16_t log_max_uctx; /* DevX user contexts (0: no DevX) */
	uint32_t device_frequency_khz;
	/* per_protocol_networking_offload_capabilities (ETH caps) */
	bool csum_cap, vlan_cap, scatter_fcs, lro_cap, swp;
	bool tunnel_stateless_vxlan, tunnel_stateless_gre;
	bool tunnel_stateless_geneve_rx;
	bool tunnel_stateless_mpls_over_gre, tunnel_stateless_mpls_over_udp;
	uint8_t max_lso_cap, min_inline; /* wqe_inline_mode's min_wqe_inline */
	/* flow table: log_max_ft_size of the NIC receive and transmit
	 * tables; the header modify actions one list holds on either
	 * (max_modify_header_actions) and the longest encap header
	 * (max_encap_header_size), which softverbs' device takes too */
	uint8_t log_max_ft_size, max_ft_level;
	uint8_t max_modify_header_actions;
	uint16_t max_encap_header_size;
	/* identity */
	uint16_t pci_vendor, pci_device; /* 0x15b3, 0x1017 */
	/* the mlx5e netdev's max_mtu: the port's largest frame less the
	 * Ethernet header, a VLAN tag and the FCS (MLX5E_HW2SW_MTU()) */
	uint16_t netdev_max_mtu;
	uint16_t fw_major, fw_minor, fw_sub;
};
extern const struct mm_caps mm_cx5;
#define MM_DATA_SEG_SIZE 16 /* struct mlx5_wqe_data_seg */

struct ib_uverbs_ex_query_device_resp;
struct mlx5_ib_query_device_resp;
/* The answers of mlx5_ib_query_device() from the capabilities: the core
 * attributes, and the driver's response for a buffer of outlen bytes
 * (returns its response_length). */
void mm_query_device(const struct mm_dev *dev,
		     struct ib_uverbs_ex_query_device_resp *r);
size_t mm_query_device_mlx5(const struct mm_dev *dev, size_t outlen,
			    struct mlx5_ib_query_device_resp *r);

struct mm_dev {
	int index;	      /* N of uverbsN and mlx5_N */
	char ibdev[32];	      /* mlx5_N */
	char wire[128];	      /* softverbs wire: if:<ifname>, mem:<link> */
	char netdev[16];      /* the port's netdev name (sysfs) */
	bool netdev_modelled; /* an in-memory link: the model is the netdev */
	_Atomic(int) ifindex; /* a Linux netdev's, once asked */
	const struct mm_caps *caps; /* caps_fw */
	struct mm_caps caps_fw;	    /* mm_cx5 with the firmware's settings */
	/* The free-running clock (device_frequency_khz) as the core clock
	 * page shows it: a page of its own (memfd) the engine keeps
	 * current, internal_timer_h and _l big endian at its start. */
	int clock_fd;
	volatile uint64_t *clock_page;
	uint32_t flex_parser; /* FLEX_PARSER_PROFILE_ENABLE */
	uint8_t mac[6];
	/* The softverbs device and the model's own context on it (the
	 * kernel's): port queries, and the objects of every file. */
	pthread_mutex_t lock;
	bool up;		  /* softverbs device made */
	char svname[64];	  /* its softverbs name */
	struct ibv_device *svdev; /* from sv_get_device_list() */
	struct ibv_context *kctx; /* the kernel's own context */
	/* The engine (mm_engine.c): lists under lock. */
	struct mm_engine *eng;
	int nfiles;
	struct mm_file *files; /* open files (lock) */
};

struct mm_dev *mm_dev_by_index(int index);
/* The node GUID, an EUI-64 from the port MAC (network order). */
void mm_dev_guid(const struct mm_dev *dev, uint8_t guid[8]);
/* Make the softverbs device and start the engine (first open). */
int mm_dev_up(struct mm_dev *dev);
/* The device clock now, in ticks; mm_dev_clock_publish() also writes it
 * into the core clock page. */
uint64_t mm_dev_clock(const struct mm_dev *dev);
uint64_t mm_dev_clock_publish(struct mm_dev *dev);
void mm_config_load(void);
int mm_ndevs(void);

/* The device whose port netdev is ifname (a Linux interface, or the
 * model's own on an in-memory link), or NULL. */
struct mm_dev *mm_dev_by_netdev(const char *ifname);
/* The device whose port netdev has this interface index, or NULL. */
struct mm_dev *mm_dev_by_ifindex(int ifindex);
/* The interface index of a device's netdev; the model's own netdevs take
 * indexes no kernel interface has. */
int mm_dev_ifindex(struct mm_dev *dev);
#define MM_IFINDEX_BASE 0x7fff0000
/* An interface request (SIOC*) about a device's netdev: answered for an
 * in-memory link's, checked for a Linux interface's. 1: the caller
 * passes it on to the kernel; 0 or a negative errno: answered. */
int mm_netdev_ioctl(struct mm_dev *dev, unsigned long req, void *arg);
/* The netdev's MTU and largest MTU (the port's: softverbs' wire). */
int mm_netdev_mtu(struct mm_dev *dev, unsigned int *mtu, unsigned int *max);

/* ---- route netlink (mm_rtnl.c) ---- */

struct mm_rtnl;
struct msghdr;
void mm_rtnl_open(int fd);
void mm_rtnl_close(int fd);
/* A request sent on a route socket: true when the model answers it
 * (the answer waits for the next receive), false to send it. */
bool mm_rtnl_request(struct mm_rtnl *r, const void *buf, size_t len);
/* The model's waiting answer into buf (recv() flags): its length, or -1
 * when none waits. */
ssize_t mm_rtnl_answer(struct mm_rtnl *r, void *buf, size_t len, int flags);
/* What the kernel answered, as the netdev of a modelled port says it. */
void mm_rtnl_received(void *buf, size_t len);

/* ---- objects and files (mm_uverbs.c) ---- */

/* An object of a file: the kernel's ib_uobject. */
struct mm_uobj {
	uint16_t type; /* UVERBS_OBJECT_* or MLX5_IB_OBJECT_* */
	uint32_t id;
	struct mm_file *file;
	uint64_t user_handle;
	/* Uses by other objects (an MR of a PD, a QP of a CQ, ...): destroy
	 * refuses EBUSY while > 0, as ib_destroy_usecnt(). */
	int usecnt;
	/* Type specific; destroy returns 0 or a negative errno (then the
	 * object stays). */
	void *priv;
	int (*destroy)(struct mm_uobj *u);
};

/* An open /dev/infiniband/uverbsN: the kernel's ib_uverbs_file and, after
 * GET_CONTEXT, its ib_ucontext. */
struct mm_file {
	struct mm_file *next; /* on the device's list */
	int fd;
	struct mm_dev *dev;
	pthread_mutex_t lock; /* one command at a time */
	bool has_ctx;
	struct ibv_context *sv; /* softverbs context of the ucontext */
	bool devx;		/* a DevX uid (mlx5_ib_devx_create) */
	uint16_t devx_uid;
	uint32_t tdn; /* the context's transport domain */
	uint8_t cqe_version;
	uint64_t lib_caps;
	/* The context's async event file (the first one made), its
	 * application descriptor or -1. */
	int async_rd;
	struct mm_uobj *async_obj;
	/* Objects by id (xa_alloc ids start at 0). */
	struct mm_uobj **objs;
	uint32_t nobjs, capobjs;
	/* UARs and mmap entries (mm_device.c). */
	struct mm_mmap_entry *mmaps;
	uint32_t next_uar_index;
	uint32_t next_pdn, next_dbr; /* handed out numbers */
};

struct mm_uobj *mm_uobj_new(struct mm_file *f, uint16_t type);
void mm_uobj_free(struct mm_uobj *u);
/* Look up a handle: -ENOENT when there is none, -EINVAL when it is of
 * another type (rdma_lookup_get_uobject). */
int mm_uobj_get(struct mm_file *f, uint16_t type, uint64_t id,
		struct mm_uobj **out);
/* Destroy one object (its destroy callback), then drop it. */
int mm_uobj_destroy(struct mm_uobj *u);
/* The file is going: every object, in an order that works. */
void mm_file_release(struct mm_file *f);

/*
 * One command being run: the ioctl bundle (uattrs) or a write command
 * (core in/out), with the driver's udata either way.
 */
#define MM_MAX_ATTRS 32
struct mm_attr_spec;
struct mm_bundle {
	struct mm_file *file;
	/* ioctl: the user's attributes (written back: VALID_OUTPUT, new
	 * object ids) and, per spec index, the one given. */
	struct ib_uverbs_attr *uattrs;
	unsigned int nuattrs;
	const struct mm_method *method;
	struct ib_uverbs_attr *attr[MM_MAX_ATTRS];
	struct mm_uobj *obj[MM_MAX_ATTRS];
	/* write commands and INVOKE_WRITE: the core request / response */
	const void *core_in;
	size_t core_inlen;
	void *core_out;
	size_t core_outlen;
	/* driver data (UVERBS_ATTR_UHW_IN / _OUT, or the udata of a write) */
	const void *uhw_in;
	size_t uhw_inlen;
	void *uhw_out;
	size_t uhw_outlen;
	/* A write command's new object, finalized with its result. */
	struct mm_uobj *new_obj;
};

/* Attribute types, as the kernel's UVERBS_ATTR_TYPE_*. */
enum mm_attr_type {
	MM_AT_PTR_IN,
	MM_AT_PTR_OUT,
	MM_AT_CONST_IN, /* a PTR_IN of at most 8 bytes, inline */
	MM_AT_ENUM_IN,
	MM_AT_IDR,
	MM_AT_FD,
	MM_AT_RAW_FD,
	MM_AT_IDRS_ARRAY,
};
enum mm_access {
	MM_ACC_NONE,
	MM_ACC_READ,
	MM_ACC_WRITE,
	MM_ACC_NEW,
	MM_ACC_DESTROY,
};
#define MM_OBJ_ANY 0xffff /* UVERBS_IDR_ANY_OBJECT */

struct mm_attr_spec {
	uint16_t id;
	uint8_t type;	   /* enum mm_attr_type */
	uint8_t mandatory; /* UA_MANDATORY */
	uint8_t access;	   /* enum mm_access (IDR, FD, IDRS_ARRAY) */
	uint16_t obj;	   /* object type of IDR/FD attributes */
	uint16_t min_len;  /* PTR: UVERBS_ATTR_MIN_SIZE / size */
	uint16_t max_len;  /* PTR: the struct's size; 0: no limit */
	bool zero_trailing;
	uint8_t enum_n;		   /* ENUM_IN: number of elements */
	uint16_t arr_min, arr_max; /* IDRS_ARRAY */
};

/* Attribute specifications as the kernel's UVERBS_ATTR_*() declare them:
 * sizes of a PTR attribute, a struct that may grow (UVERBS_ATTR_STRUCT:
 * up to its last known member, zeros beyond), CONST and FLAGS inputs,
 * object handles, file descriptors and the driver's UHW buffers. */
#define MM_TYPE(t) .min_len = sizeof(t), .max_len = sizeof(t)
#define MM_STRUCT(t, last)                                     \
	.zero_trailing = true,                                 \
	.min_len = offsetof(t, last) + sizeof(((t *)0)->last), \
	.max_len = sizeof(t)
#define MM_CONST(i, m)                                               \
	{                                                            \
		.id = (i), .type = MM_AT_CONST_IN, .mandatory = (m), \
		.min_len = 8, .max_len = 8                           \
	}
#define MM_FLAGS(i, m)                                               \
	{                                                            \
		.id = (i), .type = MM_AT_CONST_IN, .mandatory = (m), \
		.min_len = 4, .max_len = 8                           \
	}
#define MM_IDR(i, o, acc, m)                                    \
	{                                                       \
		.id = (i), .type = MM_AT_IDR, .mandatory = (m), \
		.access = (acc), .obj = (o)                     \
	}
#define MM_FD(i, o, acc, m)                                    \
	{                                                      \
		.id = (i), .type = MM_AT_FD, .mandatory = (m), \
		.access = (acc), .obj = (o)                    \
	}
#define MM_UHW                                                   \
	{ .id = UVERBS_ATTR_UHW_IN, .type = MM_AT_PTR_IN },      \
	{                                                        \
		.id = UVERBS_ATTR_UHW_OUT, .type = MM_AT_PTR_OUT \
	}

struct mm_method {
	uint16_t obj, id;
	const char *name;
	const struct mm_attr_spec *attrs;
	unsigned int nattrs;
	bool udata; /* UVERBS_ATTR_UHW() */
	int (*handler)(struct mm_bundle *b);
};

/* Write commands (ib_uverbs_write / UVERBS_METHOD_INVOKE_WRITE). */
struct mm_write_method {
	uint32_t cmd; /* with IB_USER_VERBS_CMD_FLAG_EXTENDED for _ex */
	const char *name;
	uint16_t req_size, resp_size;
	bool has_resp, udata;
	int (*handler)(struct mm_bundle *b);
};

/* The method tables of each file (mm_device.c, mm_verbs.c, ...). */
struct mm_method_table {
	const struct mm_method *methods;
	unsigned int n;
};
extern const struct mm_method_table mm_device_methods, mm_verbs_methods,
	mm_flow_methods, mm_devx_methods;
struct mm_write_table {
	const struct mm_write_method *methods;
	unsigned int n;
};
extern const struct mm_write_table mm_device_writes, mm_verbs_writes,
	mm_flow_writes;

/* Entry points from mm_preload.c. */
int mm_uverbs_ioctl(struct mm_file *f, struct ib_uverbs_ioctl_hdr *hdr);
ssize_t mm_uverbs_write(struct mm_file *f, const void *buf, size_t count);
/* Run a write command through INVOKE_WRITE's path. */
int mm_uverbs_invoke_write(struct mm_bundle *b, uint32_t cmd);

/* Attribute access inside handlers (the kernel's uverbs_* helpers). */
struct ib_uverbs_attr *mm_attr(struct mm_bundle *b, uint16_t id);
bool mm_attr_present(struct mm_bundle *b, uint16_t id);
struct mm_uobj *mm_attr_obj(struct mm_bundle *b, uint16_t id);
/* PTR_IN / CONST_IN: copy in (inline or pointed to), len exactly. */
int mm_attr_copy_in(struct mm_bundle *b, uint16_t id, void *dst, size_t len);
const void *mm_attr_in_ptr(struct mm_bundle *b, uint16_t id, size_t *len);
/* uverbs_get_const / _default: up to 8 bytes. */
int mm_attr_const(struct mm_bundle *b, uint16_t id, uint64_t *v);
uint64_t mm_attr_const_default(struct mm_bundle *b, uint16_t id, uint64_t d);
/* uverbs_get_flags64/32: every bit within allowed (-EINVAL). */
int
mm_attr_flags(struct mm_bundle *b, uint16_t id, uint64_t allowed, uint64_t *v);
/* uverbs_copy_to: min(len, attribute len) bytes, VALID_OUTPUT set;
 * -ENOENT when the attribute is absent (not an error for optional). */
int
mm_attr_copy_out(struct mm_bundle *b, uint16_t id, const void *src, size_t len);
/* The driver's response (UHW_OUT or the write udata): min(len, outlen). */
int mm_uhw_out(struct mm_bundle *b, const void *src, size_t len);
/* ib_copy_from_udata of the driver's request: min(len, inlen) bytes, the
 * rest zeroed. */
void mm_uhw_in(struct mm_bundle *b, void *dst, size_t len);
/* ib_is_udata_cleared(udata, off, inlen - off) */
bool mm_uhw_cleared(struct mm_bundle *b, size_t off);
/* The enum element of an ENUM_IN attribute. */
int mm_attr_enum(struct mm_bundle *b, uint16_t id);
/* A new object of an IDR NEW attribute (made by the dispatcher). */
struct mm_uobj *mm_attr_new(struct mm_bundle *b, uint16_t id);
/* The objects of an IDRS_ARRAY attribute. */
int mm_attr_objs(struct mm_bundle *b, uint16_t id, struct mm_uobj ***objs,
		 unsigned int *n);

/* ---- contexts and mmap (mm_device.c) ---- */
struct mm_mmap_entry {
	struct mm_mmap_entry *next;
	uint64_t pgoff; /* offset / page size */
	void *page;	/* what it maps: anonymous memory of the model */
	size_t len;
	uint32_t uar_index;
	bool uar; /* a UAR object's page */
};
void *mm_mmap(struct mm_file *f, void *addr, size_t len, int prot, int flags,
	      off_t off);
struct mm_file *mm_file_open(struct mm_dev *dev, int flags);
void mm_file_close(struct mm_file *f);
/* Event files (completion channels, async events): a socket pair whose
 * application end is the descriptor (mm_device.c). */
struct mm_evfile;
int mm_evfile_make(struct mm_uobj *u, uint16_t type);
/* Queue an event; owner (a CQ) and counter (counted when read) may be
 * NULL. */
void mm_evfile_post(struct mm_evfile *e, const void *ev, size_t len,
		    const void *owner, uint32_t *counter);
/* Drop the events of owner not read yet. */
void mm_evfile_forget(struct mm_evfile *e, const void *owner);
ssize_t mm_evfile_read(int fd, void *buf, size_t count);
void mm_evfile_app_close(int fd);
struct mm_uobj *mm_event_fd_uobj(struct mm_file *f, int fd, uint16_t type);
/* -EINVAL before the file has its context (GET_CONTEXT). */
int mm_need_ctx(struct mm_bundle *b);
/* uverbs_request() / uverbs_response() of a write command. */
int mm_request(struct mm_bundle *b, void *req, size_t len);
int mm_response(struct mm_bundle *b, const void *resp, size_t len);
/* Queue an async event (ib_uverbs_async_event_desc) on the file, or on
 * every file of the device. */
void mm_async_event(struct mm_file *f, uint64_t element, uint32_t type);
void mm_dev_async_event(struct mm_dev *dev, uint64_t element, uint32_t type);
/* The sysfs tree of the devices (MLX5MODEL_SYSFS). */
const char *mm_sysfs_root(void);
/* The softverbs context of the file (GET_CONTEXT done), or NULL. */
static inline struct ibv_context *
mm_sv(struct mm_file *f)
{
	return f->has_ctx ? f->sv : NULL;
}

/* ---- verbs objects (mm_verbs.c) ---- */

/* ib_umem_get(): the range must be mapped memory (-EFAULT). */
int mm_umem_check(uint64_t addr, uint64_t len);

struct mm_pd {
	struct ibv_pd *sv;
	uint32_t pdn;
};

struct mm_mr {
	struct ibv_mr *sv;
	struct mm_uobj *pd;
};

/* A CQ: libmlx5's ring and doorbell record in process memory; the send
 * QPs' completions pass through a softverbs CQ of its own (sv). */
struct mm_cq {
	struct mm_file *f;
	struct mm_uobj *u;
	uint8_t *buf;
	uint32_t ncqe;		  /* power of two */
	uint32_t cqe_size;	  /* 64 or 128 */
	volatile uint32_t *dbrec; /* [0] consumer index, [1] arm */
	uint32_t cqn;
	struct ibv_cq_ex *sv;
	struct mm_uobj *channel; /* completion channel, or NULL */
	uint32_t comp_events_reported;
	uint32_t async_events_reported;
	/* Engine state (engine lock). */
	uint32_t pi;	    /* CQEs written */
	uint32_t arm_last;  /* the arm doorbell record last acted on */
	uint64_t *uar_db;   /* the CQ doorbell of its UAR page */
	bool armed;	    /* an arming waits for its CQE */
	bool overrun;	    /* a CQE found no room (counted once) */
	struct mm_cq *next; /* engine list */
};

/* A receive WQ: libmlx5's ring of data segments and its doorbell record;
 * softverbs' WQ (sv) is what the steering core sees, with this as its
 * face. */
struct mm_wq {
	struct mm_file *f;
	struct mm_uobj *u;
	struct mm_uobj *pd, *cq;
	struct ibv_wq *sv;
	struct sv_wq_face face;
	uint8_t *buf;
	uint32_t wqe_cnt, wqe_shift;
	volatile uint32_t *dbrec;
	uint32_t user_index;
	uint32_t wqn;
	bool sig;    /* MLX5_WQ_FLAG_SIGNATURE: a signature segment first */
	uint32_t ci; /* WQEs the device consumed (pump lock) */
};

struct mm_ind {
	struct ibv_rwq_ind_table *sv;
	struct mm_uobj **wqs;
	uint32_t n;
	uint32_t num;
};

/* A QP: a hash QP (a TIR over an indirection table) or a raw packet QP
 * whose send queue is libmlx5's ring (the device's own QP, sv, puts the
 * frames on the wire). */
struct mm_qp {
	struct mm_file *f;
	struct mm_uobj *u;
	bool rss;
	struct ibv_qp *sv;
	uint32_t qpn;
	uint32_t uidx;
	struct mm_uobj *pd, *scq, *rcq, *ind;
	/* raw packet QP: the send queue */
	uint8_t *sq_buf;
	uint32_t sq_wqe_cnt; /* 64-byte blocks */
	uint32_t tisn;	     /* its TIS, in the context's domain */
	volatile uint32_t *dbrec;
	struct mm_cq *send_cq;
	struct ibv_mr *scratch_mr; /* inline data and headers */
	uint8_t *scratch;
	struct ibv_mr *linear_mr; /* WQEs of many pieces, copied */
	uint8_t *linear;
	struct ibv_mr *tso_mr; /* a TSO payload of many pieces, copied */
	uint8_t *tso_buf;
	enum ibv_qp_state state;
	uint32_t sq_ci;	    /* blocks the device consumed (engine lock) */
	struct mm_qp *next; /* engine list */
};

/* ---- DevX (mm_devx.c) ---- */
/* A DevX flow counter object, and the softverbs object behind one. */
bool mm_devx_is_flow_counter(const struct mm_uobj *u);
/* A number for a transport domain or TIS (24 bits, never 0). */
uint32_t mm_devx_number(void);
struct mlx5dv_devx_obj *mm_devx_sv(const struct mm_uobj *u);

/* ---- the engine (mm_engine.c) ---- */
struct mm_cq;
struct mm_wq;
struct mm_qp;
/* The engine's send batches on a QP's device send QP: WRs per post and
 * SGEs per WR (a WQE of more pieces is copied into one). */
#define MM_TX_BATCH 32
#define MM_TX_SGE 8
/* TSO: the longest header the engine takes, and the payload of one WR
 * (the device's max_tso). */
#define MM_TSO_HDR_MAX 256
#define MM_TSO_PAYLOAD_MAX (1u << 18)
int mm_engine_start(struct mm_dev *dev);
void mm_engine_stop(struct mm_dev *dev);
/* Take / release the engine's lock: the rings of the device's objects
 * are read by its thread under it. */
void mm_engine_lock(struct mm_dev *dev);
void mm_engine_unlock(struct mm_dev *dev);
/* Kick the engine out of its sleep (a new object, a doorbell). */
void mm_engine_kick(struct mm_dev *dev);
void mm_engine_add_cq(struct mm_dev *dev, struct mm_cq *cq);
void mm_engine_del_cq(struct mm_dev *dev, struct mm_cq *cq);
void mm_engine_add_qp(struct mm_dev *dev, struct mm_qp *qp);
void mm_engine_del_qp(struct mm_dev *dev, struct mm_qp *qp);
/* The receive face of the model's WQs (sv_wq_face.deliver). */
int mm_wq_deliver(struct sv_wq *wq, const struct sv_rx_frame *f);
/* The scratch memory of a raw packet QP's inline headers and data. */
int mm_qp_scratch_setup(struct mm_qp *qp);
/* Counters the kernel exposes (sysfs hw_counters/out_of_buffer). */
uint64_t mm_engine_out_of_buffer(struct mm_dev *dev);

#endif /* MM_INTERNAL_H */
