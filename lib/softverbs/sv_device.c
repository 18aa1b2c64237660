/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

/*
 * The device registry and the device-level verbs: device list, open and
 * close (with the verbs_context ops table that the inline verbs of
 * <infiniband/verbs.h> dispatch through), query_device(_ex), query_port,
 * protection domains and memory regions; the administrative link state.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sv_internal.h"

/* A registered device. refs counts the device lists that still hold it: a
 * removed device is freed when the last of them is released. */
struct sv_dev_node {
	struct sv_device dev;
	int refs;
	bool removed;
};

static TAILQ_HEAD(, sv_device) sv_devices = TAILQ_HEAD_INITIALIZER(sv_devices);
static pthread_mutex_t sv_devices_lock = PTHREAD_MUTEX_INITIALIZER;

static inline struct sv_dev_node *
sv_node(struct sv_device *dev)
{
	return sv_container_of(dev, struct sv_dev_node, dev);
}

static struct sv_device *
sv_find_by_name(const char *name)
{
	struct sv_device *dev;

	TAILQ_FOREACH(dev, &sv_devices, next)
		if (strcmp(dev->ibdev.name, name) == 0)
			return dev;
	return NULL;
}

static struct sv_device *
sv_find_by_ibdev(const struct ibv_device *ibdev)
{
	struct sv_device *dev;

	TAILQ_FOREACH(dev, &sv_devices, next)
		if (&dev->ibdev == ibdev)
			return dev;
	return NULL;
}

static int
sv_put_name(char *out, size_t out_len, const char *name)
{
	if (out == NULL || out_len == 0)
		return 0;
	if (strlen(name) >= out_len)
		return ENAMETOOLONG;
	strcpy(out, name);
	return 0;
}

int
softverbs_device_add(const char *wire, const struct sv_device_opts *opts,
		     char *name, size_t name_len)
{
	enum sv_profile profile = SV_PROFILE_GENERIC;
	uint32_t prios = 0, lacks = 0, log_ind = 0, flex = 0, modify = 0;
	char devname[IBV_SYSFS_NAME_MAX];
	struct sv_dev_node *node;
	struct sv_device *dev;
	struct sv_wire *w;
	uint8_t mac[6];
	int end, rc, n;

	if (wire == NULL)
		return EINVAL;
	if (opts != NULL) {
		if (opts->profile != SV_PROFILE_GENERIC &&
		    opts->profile != SV_PROFILE_MLX5)
			return EINVAL;
		profile = opts->profile;
		prios = opts->flow_prios;
		lacks = opts->lacks;
		log_ind = opts->log_ind_tbl;
		flex = opts->flex_parser;
		modify = opts->modify_actions;
	}
	/* mlx5_ib has at most 16 bypass priorities; the lacks bits name
	 * mlx5 features. */
	if (prios > (profile == SV_PROFILE_MLX5 ? SV_MAX_PRIO_MLX5 + 1u :
						  SV_MAX_PRIO + 1u) ||
	    (lacks & ~SV_DEV_LACKS_ALL) ||
	    (lacks != 0 && profile != SV_PROFILE_MLX5) || flex > 1 ||
	    (flex != 0 && profile != SV_PROFILE_MLX5) || modify > UINT8_MAX ||
	    (modify != 0 && profile != SV_PROFILE_MLX5) ||
	    log_ind > SV_MAX_IND_LOG_OPT)
		return EINVAL;
	if (log_ind == 0)
		log_ind = SV_MAX_IND_LOG;
	if (prios == 0)
		prios = profile == SV_PROFILE_MLX5 ? SV_MAX_PRIO_MLX5 + 1 :
						     SV_MAX_PRIO + 1;
	if (strncmp(wire, "if:", 3) == 0 && wire[3] != '\0') {
		n = snprintf(devname, sizeof(devname), "soft:%s", wire + 3);
	} else if (strncmp(wire, "xdp:", 4) == 0 && wire[4] != '\0') {
		n = snprintf(devname, sizeof(devname), "%s", wire);
	} else if (strncmp(wire, "mem:", 4) == 0 && wire[4] != '\0') {
		/* The end number is not known yet: room for one digit. */
		n = snprintf(devname, sizeof(devname), "%s.0", wire);
	} else {
		return EINVAL;
	}
	if (n < 0 || (size_t)n >= sizeof(devname))
		return ENAMETOOLONG;
	if (name != NULL && name_len > 0 && (size_t)n >= name_len)
		return ENAMETOOLONG;

	pthread_mutex_lock(&sv_devices_lock);
	/* One device per interface (and wire type). */
	if (wire[0] != 'm') {
		dev = sv_find_by_name(devname);
		if (dev != NULL) {
			rc = sv_put_name(name, name_len, devname);
			pthread_mutex_unlock(&sv_devices_lock);
			return rc;
		}
	}
	rc = sv_wire_open(wire, &w, &end, mac);
	if (rc != 0) {
		pthread_mutex_unlock(&sv_devices_lock);
		return rc;
	}
	if (wire[0] == 'm')
		snprintf(devname, sizeof(devname), "%s.%d", wire, end);
	node = calloc(1, sizeof(*node));
	if (node == NULL) {
		rc = ENOMEM;
		goto err_alloc;
	}
	dev = &node->dev;
	snprintf(dev->ibdev.name, sizeof(dev->ibdev.name), "%s", devname);
	snprintf(dev->ibdev.dev_name, sizeof(dev->ibdev.dev_name), "%s",
		 devname);
	dev->ibdev.node_type = IBV_NODE_CA;
	dev->ibdev.transport_type = IBV_TRANSPORT_IB;
	dev->caps.profile = profile;
	dev->caps.max_priority = prios - 1;
	dev->caps.mpls_over_l4 = flex == 1;
	dev->caps.ipv4_ihl = !(lacks & SV_DEV_NO_IPV4_IHL);
	dev->caps.max_modify_actions = modify != 0 ? modify :
						     SV_MODIFY_ACTIONS_DEFAULT;
	dev->caps.max_encap_size = SV_ENCAP_SIZE_DEFAULT;
	dev->lacks = lacks;
	dev->log_ind_tbl = log_ind;
	dev->port.dev = dev;
	dev->port.port_num = 1;
	dev->port.wire = w;
	dev->port.wire_end = end;
	memcpy(dev->port.mac, mac, sizeof(mac));
	pthread_spin_init(&dev->port.pump_lock, PTHREAD_PROCESS_PRIVATE);
	pthread_rwlock_init(&dev->port.rules_lock, NULL);
	pthread_mutex_init(&dev->ev_lock, NULL);
	TAILQ_INIT(&dev->ctxs);
	/* Changes from now on are events (sv_event.c). */
	dev->port.link_reported = sv_wire_link_up(w);
	atomic_init(&dev->port.rx_frames, 0);
	atomic_init(&dev->port.rx_no_buffer, 0);
	atomic_init(&dev->port.rx_not_ready, 0);
	atomic_init(&dev->port.rx_unsteered, 0);
	atomic_init(&dev->port.rx_dropped, 0);
	atomic_init(&dev->port.tx_frames, 0);
	atomic_init(&dev->port.tx_errors, 0);
	rc = sv_steer_init(&dev->port);
	if (rc != 0)
		goto err_steer;
	TAILQ_INSERT_TAIL(&sv_devices, dev, next);
	rc = sv_put_name(name, name_len, devname);
	pthread_mutex_unlock(&sv_devices_lock);
	return rc;

err_steer:
	pthread_mutex_destroy(&dev->ev_lock);
	pthread_rwlock_destroy(&dev->port.rules_lock);
	pthread_spin_destroy(&dev->port.pump_lock);
	free(node);
err_alloc:
	sv_wire_close(w);
	pthread_mutex_unlock(&sv_devices_lock);
	return rc;
}

static void
sv_device_free(struct sv_device *dev)
{
	sv_steer_fini(&dev->port);
	sv_wire_close(dev->port.wire);
	pthread_mutex_destroy(&dev->ev_lock);
	pthread_rwlock_destroy(&dev->port.rules_lock);
	pthread_spin_destroy(&dev->port.pump_lock);
	free(sv_node(dev));
}

int
softverbs_device_remove(const char *name)
{
	struct sv_device *dev;
	struct sv_dev_node *node;

	if (name == NULL)
		return EINVAL;
	pthread_mutex_lock(&sv_devices_lock);
	dev = sv_find_by_name(name);
	if (dev == NULL) {
		pthread_mutex_unlock(&sv_devices_lock);
		return ENODEV;
	}
	if (dev->open_count > 0) {
		pthread_mutex_unlock(&sv_devices_lock);
		return EBUSY;
	}
	TAILQ_REMOVE(&sv_devices, dev, next);
	node = sv_node(dev);
	node->removed = true;
	if (node->refs == 0)
		sv_device_free(dev);
	pthread_mutex_unlock(&sv_devices_lock);
	return 0;
}

int
softverbs_device_set_link(const char *name, bool up)
{
	struct sv_device *dev;
	int rc;

	if (name == NULL)
		return EINVAL;
	pthread_mutex_lock(&sv_devices_lock);
	dev = sv_find_by_name(name);
	rc = dev == NULL ? ENODEV : sv_wire_set_link(dev->port.wire, up);
	pthread_mutex_unlock(&sv_devices_lock);
	return rc;
}

struct ibv_device **
sv_get_device_list(int *num_devices)
{
	struct ibv_device **list;
	struct sv_device *dev;
	int n = 0;

	pthread_mutex_lock(&sv_devices_lock);
	TAILQ_FOREACH(dev, &sv_devices, next)
		n++;
	list = calloc((size_t)n + 1, sizeof(*list));
	if (list == NULL) {
		pthread_mutex_unlock(&sv_devices_lock);
		errno = ENOMEM;
		return NULL;
	}
	n = 0;
	TAILQ_FOREACH(dev, &sv_devices, next) {
		sv_node(dev)->refs++;
		list[n++] = &dev->ibdev;
	}
	pthread_mutex_unlock(&sv_devices_lock);
	if (num_devices != NULL)
		*num_devices = n;
	return list;
}

void
sv_free_device_list(struct ibv_device **list)
{
	struct ibv_device **p;

	if (list == NULL)
		return;
	pthread_mutex_lock(&sv_devices_lock);
	for (p = list; *p != NULL; p++) {
		struct sv_device *dev =
			sv_container_of(*p, struct sv_device, ibdev);
		struct sv_dev_node *node = sv_node(dev);

		if (--node->refs == 0 && node->removed)
			sv_device_free(dev);
	}
	pthread_mutex_unlock(&sv_devices_lock);
	free(list);
}

const char *
sv_get_device_name(struct ibv_device *device)
{
	if (device == NULL) {
		errno = EINVAL;
		return NULL;
	}
	return device->name;
}

/* ---- queries ---- */

/* EUI-64 from the port MAC, as RoCE devices derive their GUID. */
static uint64_t
sv_guid(const uint8_t mac[6])
{
	uint8_t g[8] = { mac[0] ^ 2, mac[1], mac[2], 0xff,
			 0xfe,	     mac[3], mac[4], mac[5] };
	uint64_t v;

	memcpy(&v, g, sizeof(v));
	return v; /* __be64: bytes in network order */
}

int
sv_query_device(struct ibv_context *context, struct ibv_device_attr *a)
{
	struct sv_device *dev;

	if (context == NULL || a == NULL)
		return EINVAL;
	dev = sv_ctx(context)->dev;
	memset(a, 0, sizeof(*a));
	snprintf(a->fw_ver, sizeof(a->fw_ver), "softverbs-1");
	a->node_guid = sv_guid(dev->port.mac);
	a->sys_image_guid = a->node_guid;
	a->max_mr_size = UINT64_MAX;
	a->page_size_cap = (uint64_t)sysconf(_SC_PAGESIZE);
	a->max_qp = SV_MAX_QP;
	a->max_qp_wr = SV_MAX_QP_WR;
	a->device_cap_flags = IBV_DEVICE_RAW_IP_CSUM;
	a->max_sge = SV_MAX_SGE;
	a->max_cq = SV_MAX_CQ;
	a->max_cqe = SV_MAX_CQE;
	a->max_mr = SV_MAX_MR;
	a->max_pd = SV_MAX_PD;
	a->atomic_cap = IBV_ATOMIC_NONE;
	a->max_raw_ethy_qp = SV_MAX_QP;
	a->phys_port_cnt = 1;
	return 0;
}

static int
sv_query_device_ex(struct ibv_context *context,
		   const struct ibv_query_device_ex_input *input,
		   struct ibv_device_attr_ex *attr, size_t attr_size)
{
	struct ibv_device_attr_ex a;
	int rc;

	if (attr == NULL)
		return EINVAL;
	if (input != NULL && input->comp_mask != 0)
		return EINVAL;
	/* An older caller passes a shorter structure: fill what it has. */
	if (attr_size < sizeof(a.orig_attr))
		return EINVAL;
	memset(&a, 0, sizeof(a));
	rc = sv_query_device(context, &a.orig_attr);
	if (rc != 0)
		return rc;
	a.device_cap_flags_ex = a.orig_attr.device_cap_flags;
	a.rss_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
	a.rss_caps.max_rwq_indirection_tables = SV_MAX_QP;
	a.rss_caps.max_rwq_indirection_table_size =
		1u << sv_ctx(context)->dev->log_ind_tbl;
	a.rss_caps.rx_hash_fields_mask = SV_RX_HASH_FIELDS;
	a.rss_caps.rx_hash_function = IBV_RX_HASH_FUNC_TOEPLITZ;
	a.max_wq_type_rq = SV_MAX_WQ;
	/* Checksums both ways, and VLAN stripping on receive WQs. */
	a.raw_packet_caps = IBV_RAW_PACKET_CAP_IP_CSUM |
			    IBV_RAW_PACKET_CAP_CVLAN_STRIPPING;
	a.phys_port_cnt_ex = 1;
	/* What the mlx5 kernel reports (mlx5_ib_query_device(), Linux 6.1)
	 * and libmlx5 44 passes on: TSO on raw packet QPs, completion
	 * timestamps in the device clock. The man pages make both
	 * optional: the generic profile has neither. */
	if (sv_ctx(context)->dev->caps.profile == SV_PROFILE_MLX5) {
		a.tso_caps.max_tso = SV_MAX_TSO;
		a.tso_caps.supported_qpts = 1u << IBV_QPT_RAW_PACKET;
		a.completion_timestamp_mask = SV_TIMESTAMP_MASK;
		a.hca_core_clock = SV_CORE_CLOCK_KHZ;
	}
	memcpy(attr, &a, attr_size < sizeof(a) ? attr_size : sizeof(a));
	if (attr_size > sizeof(a))
		memset((char *)attr + sizeof(a), 0, attr_size - sizeof(a));
	return 0;
}

/* The largest verbs MTU that fits the wire's MTU, as RoCE devices report
 * the netdev MTU. */
static enum ibv_mtu
sv_ibv_mtu(unsigned int mtu)
{
	if (mtu >= 4096)
		return IBV_MTU_4096;
	if (mtu >= 2048)
		return IBV_MTU_2048;
	if (mtu >= 1024)
		return IBV_MTU_1024;
	if (mtu >= 512)
		return IBV_MTU_512;
	return IBV_MTU_256;
}

/*
 * Ethernet speed as IB speed and width, as the mlx5 kernel reports a RoCE
 * port (translate_eth_ext_proto_oper): 4X QDR when it has no better
 * answer (mlx5_query_port_roce's default).
 */
static void
sv_ib_speed(uint32_t mbps, uint8_t *speed, uint8_t *width)
{
	static const struct {
		uint32_t mbps;
		uint8_t speed; /* IBV_SPEED_* encodings of ibv_query_port(3) */
		uint8_t width; /* 1 = 1X, 2 = 4X, 16 = 2X, 4 = 8X */
	} map[] = {
		{ 100, 1, 1 },	     { 1000, 1, 1 },	 { 5000, 2, 1 },
		{ 10000, 4, 1 },     { 25000, 32, 1 },	 { 40000, 4, 2 },
		{ 50000, 64, 1 },    { 56000, 16, 2 },	 { 100000, 128, 1 },
		{ 200000, 128, 16 }, { 400000, 128, 2 }, { 800000, 128, 4 },
	};
	size_t i;

	*speed = 4;
	*width = 2;
	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		if (map[i].mbps == mbps) {
			*speed = map[i].speed;
			*width = map[i].width;
			return;
		}
	}
}

int
sv_query_port(struct ibv_context *context, uint8_t port_num,
	      struct ibv_port_attr *pa)
{
	struct sv_wire_link link;
	struct sv_port *port;
	bool up;

	if (context == NULL || pa == NULL)
		return EINVAL;
	port = &sv_ctx(context)->dev->port;
	if (port_num != port->port_num)
		return EINVAL;
	up = sv_wire_link_up(port->wire);
	memset(pa, 0, sizeof(*pa));
	pa->state = up ? IBV_PORT_ACTIVE : IBV_PORT_DOWN;
	pa->max_mtu = IBV_MTU_4096;
	pa->active_mtu = sv_ibv_mtu(sv_wire_mtu(port->wire));
	pa->max_msg_sz = 1u << 30;
	pa->pkey_tbl_len = 1;
	sv_wire_link_info(port->wire, &link);
	sv_ib_speed(link.speed_mbps, &pa->active_speed, &pa->active_width);
	pa->phys_state = up ? 5 : 3; /* LinkUp : Disabled */
	pa->link_layer = IBV_LINK_LAYER_ETHERNET;
	return 0;
}

static int
sv_query_port_ex(struct ibv_context *context, uint8_t port_num,
		 struct ibv_port_attr *port_attr, size_t port_attr_len)
{
	struct ibv_port_attr pa;
	int rc;

	if (port_attr == NULL)
		return EINVAL;
	rc = sv_query_port(context, port_num, &pa);
	if (rc != 0)
		return rc;
	memcpy(port_attr, &pa,
	       port_attr_len < sizeof(pa) ? port_attr_len : sizeof(pa));
	return 0;
}

int
softverbs_port_mac(struct ibv_context *ctx, uint8_t port, uint8_t mac[6])
{
	struct sv_port *p;

	if (ctx == NULL || mac == NULL)
		return EINVAL;
	p = &sv_ctx(ctx)->dev->port;
	if (port != p->port_num)
		return EINVAL;
	memcpy(mac, p->mac, 6);
	return 0;
}

static struct sv_port *
sv_port_of(struct ibv_context *ctx, uint8_t port)
{
	struct sv_port *p;

	if (ctx == NULL)
		return NULL;
	p = &sv_ctx(ctx)->dev->port;
	return port == p->port_num ? p : NULL;
}

int
softverbs_port_mtu(struct ibv_context *ctx, uint8_t port, unsigned int *mtu,
		   unsigned int *max_mtu)
{
	struct sv_port *p = sv_port_of(ctx, port);

	if (p == NULL)
		return EINVAL;
	if (mtu != NULL)
		*mtu = sv_wire_mtu(p->wire);
	if (max_mtu != NULL)
		*max_mtu = sv_wire_max_mtu(p->wire);
	return 0;
}

int
softverbs_port_set_mtu(struct ibv_context *ctx, uint8_t port, unsigned int mtu)
{
	struct sv_port *p = sv_port_of(ctx, port);

	if (p == NULL)
		return EINVAL;
	return sv_wire_set_mtu(p->wire, mtu);
}

int
softverbs_port_link(struct ibv_context *ctx, uint8_t port,
		    struct sv_port_link *link)
{
	struct sv_port *p = sv_port_of(ctx, port);
	struct sv_wire_link wl;

	if (p == NULL || link == NULL)
		return EINVAL;
	sv_wire_link_info(p->wire, &wl);
	link->speed_mbps = wl.speed_mbps;
	link->full_duplex = wl.full_duplex;
	link->autoneg = wl.autoneg;
	link->up = sv_wire_link_up(p->wire);
	return 0;
}

int
softverbs_port_stats(struct ibv_context *ctx, uint8_t port,
		     struct sv_port_stats *st)
{
	struct sv_wire_stats ws;
	struct sv_port *p;

	if (ctx == NULL || st == NULL)
		return EINVAL;
	p = &sv_ctx(ctx)->dev->port;
	if (port != p->port_num)
		return EINVAL;
	sv_wire_get_stats(p->wire, &ws);
	st->rx_frames = atomic_load(&p->rx_frames);
	/* Frames the kernel lost before the pump could read them missed a
	 * buffer too. */
	st->rx_no_buffer = atomic_load(&p->rx_no_buffer) + ws.rx_kernel_drops;
	st->rx_not_ready = atomic_load(&p->rx_not_ready);
	st->rx_unsteered = atomic_load(&p->rx_unsteered);
	st->rx_dropped = atomic_load(&p->rx_dropped);
	st->tx_frames = atomic_load(&p->tx_frames);
	st->tx_errors = atomic_load(&p->tx_errors);
	st->rx_csum_completed = ws.rx_csum_completed;
	st->rx_gso_frames = ws.rx_gso_frames;
	return 0;
}

/* ---- open / close ---- */

static int
sv_post_recv(struct ibv_qp *qp, struct ibv_recv_wr *wr,
	     struct ibv_recv_wr **bad_wr)
{
	/* QPs have no receive queue of their own: receive through WQs. */
	if (bad_wr != NULL)
		*bad_wr = wr;
	return EOPNOTSUPP;
}

static struct ibv_td *
sv_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *attr);
static int sv_dealloc_td(struct ibv_td *ibtd);
static struct ibv_pd *
sv_alloc_parent_domain(struct ibv_context *context,
		       struct ibv_parent_domain_init_attr *attr);

/*
 * ibv_query_rt_values_ex(): the device clock now, in the units of
 * completion timestamps, as libmlx5 44's mlx5_query_rt_values() reads it
 * (raw_clock.tv_nsec holds the ticks, tv_sec 0; other comp_mask bits:
 * EINVAL). A device without a clock (the generic profile; libmlx5 without
 * the kernel's clock page): EOPNOTSUPP.
 */
static int
sv_query_rt_values(struct ibv_context *context, struct ibv_values_ex *values)
{
	if (values->comp_mask & ~(uint32_t)IBV_VALUES_MASK_RAW_CLOCK)
		return EINVAL;
	if (sv_ctx(context)->dev->caps.profile != SV_PROFILE_MLX5) {
		values->comp_mask = 0;
		return EOPNOTSUPP;
	}
	if (values->comp_mask & IBV_VALUES_MASK_RAW_CLOCK) {
		values->raw_clock.tv_sec = 0;
		values->raw_clock.tv_nsec = (long)sv_clock_ticks();
	}
	return 0;
}

struct ibv_context *
sv_open(struct ibv_device *device, bool devx)
{
	struct sv_context *ctx;
	struct sv_device *dev;
	struct verbs_context *v;
	int rc;

	pthread_mutex_lock(&sv_devices_lock);
	dev = sv_find_by_ibdev(device);
	if (dev == NULL) {
		pthread_mutex_unlock(&sv_devices_lock);
		errno = ENODEV;
		return NULL;
	}
	ctx = calloc(1, sizeof(*ctx));
	if (ctx == NULL) {
		pthread_mutex_unlock(&sv_devices_lock);
		errno = ENOMEM;
		return NULL;
	}
	ctx->dev = dev;
	rc = sv_async_open(ctx);
	if (rc != 0) {
		pthread_mutex_unlock(&sv_devices_lock);
		free(ctx);
		errno = rc;
		return NULL;
	}
	dev->open_count++;
	pthread_mutex_unlock(&sv_devices_lock);

	ctx->devx = devx;
	pthread_mutex_init(&ctx->lock, NULL);
	atomic_init(&ctx->nobjs, 0);
	ctx->next_qpn = 1;
	v = &ctx->vctx;
	/* What verbs_get_ctx_op() checks before any inline verb calls an
	 * op: the extended ABI marker, a size covering every op, the op. */
	v->sz = sizeof(*v);
	v->context.abi_compat = __VERBS_ABI_IS_EXTENDED;
	v->context.device = device;
	v->context.cmd_fd = -1;
	/* async_fd: set by sv_async_open(). */
	v->context.num_comp_vectors = 1;
	pthread_mutex_init(&v->context.mutex, NULL);
	v->context.ops.poll_cq = sv_poll_cq;
	v->context.ops.req_notify_cq = sv_req_notify_cq;
	v->context.ops.post_send = sv_post_send;
	v->context.ops.post_recv = sv_post_recv;
	v->query_port = sv_query_port_ex;
	v->query_device_ex = sv_query_device_ex;
	v->query_rt_values = sv_query_rt_values;
	v->create_cq_ex = sv_create_cq_ex;
	v->create_wq = sv_create_wq;
	v->modify_wq = sv_modify_wq;
	v->destroy_wq = sv_destroy_wq;
	v->create_rwq_ind_table = sv_create_rwq_ind_table;
	v->destroy_rwq_ind_table = sv_destroy_rwq_ind_table;
	v->create_qp_ex = sv_create_qp_ex;
	v->ibv_create_flow = sv_create_flow;
	v->ibv_destroy_flow = sv_destroy_flow;
	v->destroy_flow_action = sv_destroy_flow_action;
	v->create_counters = sv_create_counters;
	v->destroy_counters = sv_destroy_counters;
	v->attach_counters_point_flow = sv_attach_counters_point_flow;
	v->read_counters = sv_read_counters;
	v->alloc_td = sv_alloc_td;
	v->dealloc_td = sv_dealloc_td;
	v->alloc_parent_domain = sv_alloc_parent_domain;
	return &v->context;
}

/*
 * ibv_open_device() through libmlx5 44: mlx5_alloc_context() asks the
 * kernel for a DevX context even when the caller did not, and falls back
 * to a plain one when the kernel refuses (a device without DevX).
 */
struct ibv_context *
sv_open_device(struct ibv_device *device)
{
	struct sv_device *dev;
	bool devx = false;

	pthread_mutex_lock(&sv_devices_lock);
	dev = sv_find_by_ibdev(device);
	if (dev != NULL)
		devx = dev->caps.profile == SV_PROFILE_MLX5 &&
		       sv_dev_has(dev, SV_DEV_NO_DEVX);
	pthread_mutex_unlock(&sv_devices_lock);
	return sv_open(device, devx);
}

int
sv_close_device(struct ibv_context *context)
{
	struct sv_context *ctx;

	if (context == NULL)
		return EINVAL;
	ctx = sv_ctx(context);
	/* Every object of the context must be gone first. */
	if (atomic_load(&ctx->nobjs) > 0)
		return EBUSY;
	pthread_mutex_lock(&sv_devices_lock);
	sv_async_close(ctx);
	ctx->dev->open_count--;
	pthread_mutex_unlock(&sv_devices_lock);
	pthread_mutex_destroy(&context->mutex);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
	return 0;
}

/* ---- protection domains ---- */

struct ibv_pd *
sv_alloc_pd(struct ibv_context *context)
{
	struct sv_context *ctx;
	struct sv_pd *pd;

	if (context == NULL) {
		errno = EINVAL;
		return NULL;
	}
	ctx = sv_ctx(context);
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pthread_mutex_lock(&ctx->lock);
	if (ctx->n_pd >= SV_MAX_PD) {
		pthread_mutex_unlock(&ctx->lock);
		free(pd);
		errno = ENOMEM;
		return NULL;
	}
	ctx->n_pd++;
	pd->pd.handle = ctx->next_qpn++;
	pthread_mutex_unlock(&ctx->lock);
	pd->pd.context = context;
	pd->prot = pd;
	atomic_init(&pd->usecnt, 0);
	atomic_fetch_add(&ctx->nobjs, 1);
	return &pd->pd;
}

int
sv_dealloc_pd(struct ibv_pd *ibpd)
{
	struct sv_context *ctx;
	struct sv_pd *pd;

	if (ibpd == NULL)
		return EINVAL;
	pd = sv_pd_of(ibpd);
	ctx = sv_ctx(ibpd->context);
	/* MRs, QPs, WQs or parent domains still in the domain; for a parent
	 * domain, send QPs, CQs or parent domains made on it
	 * (mlx5_dealloc_parent_domain(): refcount > 1 is EBUSY). */
	if (atomic_load(&pd->usecnt) > 0)
		return EBUSY;
	if (pd->over != NULL) {
		atomic_fetch_sub(&pd->over->usecnt, 1);
		if (pd->td != NULL)
			atomic_fetch_sub(&pd->td->usecnt, 1);
		atomic_fetch_sub(&ctx->nobjs, 1);
		free(pd);
		return 0;
	}
	pthread_mutex_lock(&ctx->lock);
	ctx->n_pd--;
	pthread_mutex_unlock(&ctx->lock);
	atomic_fetch_sub(&ctx->nobjs, 1);
	free(pd);
	return 0;
}

/* ---- thread and parent domains ---- */

static inline struct sv_td *
sv_td_of(struct ibv_td *td)
{
	return sv_container_of(td, struct sv_td, td);
}

static struct ibv_td *
sv_alloc_td(struct ibv_context *context, struct ibv_td_init_attr *attr)
{
	struct sv_td *td;

	/* mlx5_alloc_td(): no comp_mask bit is defined (EINVAL). */
	if (context == NULL || attr == NULL || attr->comp_mask != 0) {
		errno = EINVAL;
		return NULL;
	}
	td = calloc(1, sizeof(*td));
	if (td == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	td->td.context = context;
	atomic_init(&td->usecnt, 0);
	atomic_fetch_add(&sv_ctx(context)->nobjs, 1);
	return &td->td;
}

static int
sv_dealloc_td(struct ibv_td *ibtd)
{
	struct sv_td *td;

	if (ibtd == NULL)
		return EINVAL;
	td = sv_td_of(ibtd);
	/* mlx5_dealloc_td(): a parent domain still holds it. */
	if (atomic_load(&td->usecnt) > 0)
		return EBUSY;
	atomic_fetch_sub(&sv_ctx(ibtd->context)->nobjs, 1);
	free(td);
	return 0;
}

#define SV_PARENT_DOMAIN_MASK                     \
	(IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS | \
	 IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)

/*
 * ibv_alloc_parent_domain(3) as libmlx5 makes it
 * (mlx5_alloc_parent_domain()): a protection domain is required
 * (ibv_check_alloc_parent_domain(): EINVAL), the thread domain is
 * optional, the allocators and a context are the only optional fields
 * (EINVAL for another comp_mask bit). The parent domain takes the context
 * and handle of the domain it wraps (ibv_initialize_parent_domain()); it
 * may wrap another parent domain, whose protection domain it then stands
 * for, with its own thread domain.
 */
static struct ibv_pd *
sv_alloc_parent_domain(struct ibv_context *context,
		       struct ibv_parent_domain_init_attr *attr)
{
	struct sv_pd *pd, *over;

	if (context == NULL || attr == NULL || attr->pd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	if (attr->comp_mask & ~(uint32_t)SV_PARENT_DOMAIN_MASK) {
		errno = EINVAL;
		return NULL;
	}
	over = sv_pd_of(attr->pd);
	pd = calloc(1, sizeof(*pd));
	if (pd == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	pd->over = over;
	pd->prot = over->prot;
	pd->pd.context = attr->pd->context;
	pd->pd.handle = attr->pd->handle;
	atomic_init(&pd->usecnt, 0);
	if (attr->td != NULL) {
		pd->td = sv_td_of(attr->td);
		atomic_fetch_add(&pd->td->usecnt, 1);
	}
	/* libmlx5 uses the allocators only when both are given
	 * (mlx5_get_alloc_type()). */
	if ((attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_ALLOCATORS) &&
	    attr->alloc != NULL && attr->free != NULL) {
		pd->alloc = attr->alloc;
		pd->free = attr->free;
	}
	if (attr->comp_mask & IBV_PARENT_DOMAIN_INIT_ATTR_PD_CONTEXT)
		pd->pd_context = attr->pd_context;
	atomic_fetch_add(&over->usecnt, 1);
	atomic_fetch_add(&sv_ctx(pd->pd.context)->nobjs, 1);
	return &pd->pd;
}

int
sv_buf_alloc(struct sv_pd *pd, size_t size, uint64_t resource_type,
	     struct sv_buf *b)
{
	memset(b, 0, sizeof(*b));
	b->type = resource_type;
	if (pd != NULL && pd->alloc != NULL) {
		b->p = pd->alloc(&pd->pd, pd->pd_context, size,
				 (size_t)sysconf(_SC_PAGESIZE), resource_type);
		if (b->p == NULL)
			return ENOMEM;
		/* The allocator's buffer comes zeroed
		 * (ibv_alloc_parent_domain(3)). */
		if (b->p != IBV_ALLOCATOR_USE_DEFAULT) {
			b->free = pd->free;
			b->pd = &pd->pd;
			b->pd_context = pd->pd_context;
			return 0;
		}
	}
	/* Cache-line aligned, as queue entries are. */
	size = (size + 63) & ~(size_t)63;
	b->p = aligned_alloc(64, size);
	if (b->p == NULL)
		return ENOMEM;
	memset(b->p, 0, size);
	return 0;
}

void
sv_buf_free(struct sv_buf *b)
{
	if (b->free != NULL)
		b->free(b->pd, b->pd_context, b->p, b->type);
	else
		free(b->p);
	b->p = NULL;
}

/* ---- memory regions ---- */

/* Access flags the device implements; REMOTE_* are accepted (a raw
 * packet device never uses them). */
#define SV_MR_ACCESS                                        \
	(IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | \
	 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC)
#define SV_MR_ACCESS_KNOWN                                           \
	(SV_MR_ACCESS | IBV_ACCESS_MW_BIND | IBV_ACCESS_ZERO_BASED | \
	 IBV_ACCESS_ON_DEMAND | IBV_ACCESS_HUGETLB)

/* The kernel pins the pages of an MR and fails with EFAULT when the range
 * is not mapped: check the same with mincore(). */
static int
sv_mr_check_mapped(uintptr_t start, size_t len)
{
	size_t pg = (size_t)sysconf(_SC_PAGESIZE);
	uintptr_t first = start & ~(uintptr_t)(pg - 1);
	size_t span = (start - first) + len;
	size_t npages = (span + pg - 1) / pg;
	unsigned char *vec;
	int rc = 0;

	vec = malloc(npages);
	if (vec == NULL)
		return ENOMEM;
	if (mincore((void *)first, npages * pg, vec) != 0)
		rc = errno == ENOMEM ? EFAULT : errno;
	free(vec);
	return rc;
}

struct ibv_mr *
sv_reg_mr(struct ibv_pd *ibpd, void *addr, size_t length, int access)
{
	struct sv_context *ctx;
	struct sv_pd *pd;
	struct sv_mr *mr;
	unsigned int acc;
	uint32_t idx;
	int rc;

	if (ibpd == NULL) {
		errno = EINVAL;
		return NULL;
	}
	/* Through a parent domain, the MR belongs to the protection domain
	 * it wraps (the kernel sees that domain's handle). */
	pd = sv_pd_of(ibpd)->prot;
	ctx = sv_ctx(ibpd->context);
	/* Optional access bits are hints a device may ignore (libibverbs
	 * masks the ones the kernel lacks). */
	acc = (unsigned int)access & ~(unsigned int)IBV_ACCESS_OPTIONAL_RANGE;
	if (acc & ~(unsigned int)SV_MR_ACCESS_KNOWN) {
		errno = EINVAL;
		return NULL;
	}
	/* "If IBV_ACCESS_REMOTE_WRITE or IBV_ACCESS_REMOTE_ATOMIC is set,
	 * then IBV_ACCESS_LOCAL_WRITE must be set too." */
	if ((acc & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
	    !(acc & IBV_ACCESS_LOCAL_WRITE)) {
		errno = EINVAL;
		return NULL;
	}
	/* No memory windows, zero-based or on-demand MRs on this device. */
	if (acc & ~(unsigned int)SV_MR_ACCESS) {
		errno = EOPNOTSUPP;
		return NULL;
	}
	if (addr == NULL || length == 0 ||
	    (uintptr_t)addr + length < (uintptr_t)addr) {
		errno = EINVAL;
		return NULL;
	}
	rc = sv_mr_check_mapped((uintptr_t)addr, length);
	if (rc != 0) {
		errno = rc;
		return NULL;
	}
	mr = calloc(1, sizeof(*mr));
	if (mr == NULL) {
		errno = ENOMEM;
		return NULL;
	}
	mr->start = (uintptr_t)addr;
	mr->len = length;
	mr->access = (int)acc;
	mr->prot = pd;
	mr->mr.context = ibpd->context;
	mr->mr.pd = ibpd;
	mr->mr.addr = addr;
	mr->mr.length = length;
	pthread_mutex_lock(&ctx->lock);
	for (idx = 0; idx < SV_MAX_MR; idx++)
		if (ctx->mrs[idx] == NULL)
			break;
	if (idx == SV_MAX_MR) {
		pthread_mutex_unlock(&ctx->lock);
		free(mr);
		errno = ENOMEM;
		return NULL;
	}
	/* A new generation per slot: a stale lkey of a deregistered MR does
	 * not find its successor. */
	ctx->mr_gen[idx]++;
	mr->mr.handle = idx;
	mr->mr.lkey = SV_MR_LKEY(idx, ctx->mr_gen[idx]);
	mr->mr.rkey = mr->mr.lkey;
	__atomic_store_n(&ctx->mrs[idx], mr, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->lock);
	atomic_fetch_add(&pd->usecnt, 1);
	atomic_fetch_add(&ctx->nobjs, 1);
	return &mr->mr;
}

int
sv_dereg_mr(struct ibv_mr *ibmr)
{
	struct sv_context *ctx;
	struct sv_mr *mr;
	uint32_t idx;

	if (ibmr == NULL)
		return EINVAL;
	mr = sv_container_of(ibmr, struct sv_mr, mr);
	ctx = sv_ctx(ibmr->context);
	idx = SV_MR_IDX(ibmr->lkey);
	pthread_mutex_lock(&ctx->lock);
	if (idx >= SV_MAX_MR || ctx->mrs[idx] != mr) {
		pthread_mutex_unlock(&ctx->lock);
		return EINVAL;
	}
	__atomic_store_n(&ctx->mrs[idx], NULL, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ctx->lock);
	atomic_fetch_sub(&mr->prot->usecnt, 1);
	atomic_fetch_sub(&ctx->nobjs, 1);
	free(mr);
	return 0;
}
