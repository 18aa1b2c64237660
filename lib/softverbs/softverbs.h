/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef SOFTVERBS_H
#define SOFTVERBS_H

/*
 * softverbs: a user-space verbs device.
 *
 * Objects handed out are real verbs objects (struct ibv_context inside a
 * struct verbs_context, struct ibv_cq_ex, struct ibv_wq, ...) with their
 * function pointers filled, so the inline verbs calls of <infiniband/verbs.h>
 * (ibv_create_flow, ibv_create_wq, ibv_post_wq_recv, ibv_start_poll, ...)
 * dispatch into softverbs exactly as into an rdma-core provider.
 *
 * The entry points below are the ones rdma-core exports from libibverbs and
 * libmlx5 (which inline verbs cannot reach); each has the signature and the
 * errno semantics of its rdma-core namesake. Functions returning int return 0
 * or a positive errno, like rdma-core; functions returning a pointer return
 * NULL and set errno.
 */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Restrictions a device enforces on top of the man pages. */
enum sv_profile {
	/* The man pages alone. */
	SV_PROFILE_GENERIC = 0,
	/* Also what rdma-core 44 + the mlx5 kernel driver refuse. */
	SV_PROFILE_MLX5 = 1,
};

/*
 * What a modelled mlx5 device or kernel lacks (sv_device_opts.lacks); every
 * bit is a configuration that exists in the field, so that a test can show
 * the driver adapting to it.
 */
/* No DevX: firmware without user contexts (log_max_uctx = 0). */
#define SV_DEV_NO_DEVX (1u << 0)
/* No stateless tunnel offloads (tunnel_stateless_vxlan/gre/geneve_rx). */
#define SV_DEV_NO_TUNNEL_OFFLOADS (1u << 1)
/* Kernels that refused verbs egress rules without an IPsec flow action
 * (the first is_valid_esp_aes_gcm(); briefly again in 2022, until
 * "RDMA/mlx5: Fix flow steering egress flow"). */
#define SV_DEV_NO_VERBS_EGRESS (1u << 2)
/* No IPv4 IHL match field (flow table capabilities:
 * ft_field_support_2_nic_receive.outer_ipv4_ihl / inner_ipv4_ihl 0). */
#define SV_DEV_NO_IPV4_IHL (1u << 3)
#define SV_DEV_LACKS_ALL                                                       \
	(SV_DEV_NO_DEVX | SV_DEV_NO_TUNNEL_OFFLOADS | SV_DEV_NO_VERBS_EGRESS | \
	 SV_DEV_NO_IPV4_IHL)

struct sv_device_opts {
	enum sv_profile profile;
	/*
	 * Verbs flow priorities (ibv_flow_attr.priority 0 .. n - 1); 0 takes
	 * the profile's: 16 on mlx5 (current kernels), 4096 on generic. mlx5
	 * accepts 1 to 16 (8 models kernels with 8 bypass priorities).
	 */
	uint32_t flow_prios;
	uint32_t lacks; /* SV_DEV_NO_*, mlx5 profile only */
	/*
	 * Largest RSS indirection table, log2 of its entries: 0 takes
	 * softverbs' own (9: 512 entries); at most 11 (2048 entries, what a
	 * ConnectX-5 reports).
	 */
	uint32_t log_ind_tbl;
	/*
	 * The firmware's FLEX_PARSER_PROFILE_ENABLE, mlx5 profile only: 0
	 * (the default firmware), or 1, whose parser finds the MPLS label
	 * over GRE and over UDP (tunnel_stateless_mpls_over_gre / _udp,
	 * ft_field_support outer_first_mpls_over_gre / _udp). Without it
	 * the device cannot match those labels. Other profiles are not
	 * modelled (EINVAL).
	 */
	uint32_t flex_parser;
	/*
	 * mlx5 profile only: the flow tables' max_modify_header_actions, the
	 * header modify actions one mlx5dv_create_flow_action_modify_header()
	 * may hold, 1 to 255 (the capability is 8 bits); 0 takes 16, what
	 * DPDK's mlx5 assumes for the root tables (MLX5_ROOT_TBL_MODIFY_NUM),
	 * as no source gives a ConnectX's value.
	 */
	uint32_t modify_actions;
};

/*
 * Create a device on a wire, or return the existing one.
 *   "if:<ifname>"  a Linux interface, through AF_PACKET (needs CAP_NET_RAW);
 *   "xdp:<ifname>" a Linux interface, through AF_XDP (needs CAP_NET_RAW,
 *                  CAP_NET_ADMIN and CAP_BPF);
 *   "mem:<link>"   one end of an in-memory link; the first device created on
 *                  a link is end 0, the second end 1, a third fails (EBUSY).
 *                  Frames sent on one end arrive on the other.
 * The device name (as ibv_get_device_name() gives it) is written to name
 * ("soft:<ifname>", "xdp:<ifname>" or "mem:<link>.<end>").
 * Returns 0 or a positive errno (ENODEV: no such interface).
 */
int softverbs_device_add(const char *wire, const struct sv_device_opts *opts,
			 char *name, size_t name_len);

/* Remove a device created by softverbs_device_add(); EBUSY while open. */
int softverbs_device_remove(const char *name);

/* Ethernet address of a port (1-based) of an open device. */
int softverbs_port_mac(struct ibv_context *ctx, uint8_t port, uint8_t mac[6]);

/*
 * MTU of a port's wire (L3 bytes): the interface's for "if:", the link
 * end's for "mem:"; max_mtu is the largest the wire takes (the
 * interface's own maximum, within what the device's rings hold: 9978, as an mlx5 netdev).
 */
int softverbs_port_mtu(struct ibv_context *ctx, uint8_t port, unsigned int *mtu,
		       unsigned int *max_mtu);
/* Set it: EINVAL outside [68, max_mtu], EPERM when the interface may not
 * be changed (CAP_NET_ADMIN). Frames sent from then on follow it. */
int
softverbs_port_set_mtu(struct ibv_context *ctx, uint8_t port, unsigned int mtu);

/* Link of a port's wire: the interface's speed and duplex (ethtool), or
 * unknown speed for an in-memory link. */
struct sv_port_link {
	uint32_t speed_mbps; /* 0: unknown */
	bool full_duplex;
	bool autoneg;
	bool up;
};
int softverbs_port_link(struct ibv_context *ctx, uint8_t port,
			struct sv_port_link *link);

/*
 * Take a device's end of its wire administratively down or up, as `ip
 * link set <end> down` would: an in-memory link is up when both ends are
 * open and up, and both ends see each change (query_port, and an
 * IBV_EVENT_PORT_ERR / IBV_EVENT_PORT_ACTIVE async event on every open
 * context). Returns 0, ENODEV (no such device) or ENOTSUP (a device on a
 * Linux interface: change the interface itself).
 */
int softverbs_device_set_link(const char *name, bool up);

/* Wire-level counters of a port, for xstats. */
struct sv_port_stats {
	uint64_t rx_frames;    /* frames taken from the wire */
	uint64_t rx_no_buffer; /* steered to a WQ with no posted buffer */
	uint64_t rx_not_ready; /* steered to a WQ not ready (discarded) */
	uint64_t rx_unsteered; /* matched no rule */
	uint64_t rx_dropped;   /* dropped by a DROP rule */
	uint64_t tx_frames;    /* frames put on the wire */
	uint64_t tx_errors;    /* frames the wire refused */
	/* Frames a local sender's kernel left to offload (packet wire):
	 * checksums completed, super-frames cut into frames. */
	uint64_t rx_csum_completed;
	uint64_t rx_gso_frames;
};
int softverbs_port_stats(struct ibv_context *ctx, uint8_t port,
			 struct sv_port_stats *stats);

/*
 * What a port's flow rules (ingress and egress, verbs and mlx5dv) hold in
 * softverbs: the rules, and the bytes their tables have taken (rule
 * objects, hash tables, mask groups), which go back as rules go.
 */
struct sv_rule_mem {
	uint64_t rules;
	uint64_t bytes;
};
int softverbs_port_rule_mem(struct ibv_context *ctx, uint8_t port,
			    struct sv_rule_mem *mem);

/* libibverbs exported entry points. */
struct ibv_device **sv_get_device_list(int *num_devices);
void sv_free_device_list(struct ibv_device **list);
const char *sv_get_device_name(struct ibv_device *device);
struct ibv_context *sv_open_device(struct ibv_device *device);
int sv_close_device(struct ibv_context *context);
int sv_query_device(struct ibv_context *context,
		    struct ibv_device_attr *device_attr);
int sv_query_port(struct ibv_context *context, uint8_t port_num,
		  struct ibv_port_attr *port_attr);
struct ibv_pd *sv_alloc_pd(struct ibv_context *context);
int sv_dealloc_pd(struct ibv_pd *pd);
struct ibv_mr *
sv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access);
int sv_dereg_mr(struct ibv_mr *mr);
struct ibv_cq *
sv_create_cq(struct ibv_context *context, int cqe, void *cq_context,
	     struct ibv_comp_channel *channel, int comp_vector);
int sv_destroy_cq(struct ibv_cq *cq);
struct ibv_qp *
sv_create_qp(struct ibv_pd *pd, struct ibv_qp_init_attr *qp_init_attr);
int sv_modify_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask);
int sv_query_qp(struct ibv_qp *qp, struct ibv_qp_attr *attr, int attr_mask,
		struct ibv_qp_init_attr *init_attr);
int sv_destroy_qp(struct ibv_qp *qp);

/*
 * Completion channels and async events. The fds (comp_channel.fd,
 * ibv_context.async_fd) poll readable when an event may be had: events
 * queued, frames waiting on the wire while one of the channel's CQs is
 * armed, a link change. They are blocking until the caller sets
 * O_NONBLOCK; read them with these calls only, which do the device's work
 * first (pump the port, read the link). A device whose wire gives nothing
 * to wait on has no channels (EOPNOTSUPP) and an async_fd of -1.
 */
struct ibv_comp_channel *sv_create_comp_channel(struct ibv_context *context);
int sv_destroy_comp_channel(struct ibv_comp_channel *channel);
int sv_get_cq_event(struct ibv_comp_channel *channel, struct ibv_cq **cq,
		    void **cq_context);
void sv_ack_cq_events(struct ibv_cq *cq, unsigned int nevents);
int
sv_get_async_event(struct ibv_context *context, struct ibv_async_event *event);
void sv_ack_async_event(struct ibv_async_event *event);

/*
 * libmlx5 exported entry points (devices with the mlx5 profile).
 *
 * DevX: as libmlx5 44 (mlx5_alloc_context()), every context of a device
 * that offers DevX is a DevX context, whether opened with
 * sv_open_device() or sv_mlx5dv_open_device(), with or without
 * MLX5DV_CONTEXT_FLAGS_DEVX; on a device without DevX
 * (SV_DEV_NO_DEVX), asking for the flag fails (EINVAL, the kernel's
 * mlx5_ib_devx_create()) and the DevX calls fail with EPROTONOSUPPORT.
 */
bool sv_mlx5dv_is_supported(struct ibv_device *device);
struct ibv_context *sv_mlx5dv_open_device(struct ibv_device *device,
					  struct mlx5dv_context_attr *attr);
/* Hash QPs hashing inner headers need MLX5DV_QP_CREATE_TUNNEL_OFFLOADS
 * (EOPNOTSUPP through ibv_create_qp_ex() on the mlx5 profile). */
struct ibv_qp *sv_mlx5dv_create_qp(struct ibv_context *context,
				   struct ibv_qp_init_attr_ex *qp_attr,
				   struct mlx5dv_qp_init_attr *mlx5_qp_attr);
/* Of the optional fields (attrs_out->comp_mask) only the tunnel offload
 * capabilities are filled (MLX5DV_CONTEXT_MASK_TUNNEL_OFFLOADS): the
 * stateless VXLAN, GRE and GENEVE offloads unless SV_DEV_NO_TUNNEL_OFFLOADS,
 * MPLS over GRE and over UDP with flex_parser 1, as the mlx5 kernel
 * reports them (mlx5_ib_query_device()). */
int sv_mlx5dv_query_device(struct ibv_context *ctx,
			   struct mlx5dv_context *attrs_out);
struct mlx5dv_flow_matcher *
sv_mlx5dv_create_flow_matcher(struct ibv_context *context,
			      struct mlx5dv_flow_matcher_attr *matcher_attr);
int sv_mlx5dv_destroy_flow_matcher(struct mlx5dv_flow_matcher *matcher);
struct ibv_flow *
sv_mlx5dv_create_flow(struct mlx5dv_flow_matcher *matcher,
		      struct mlx5dv_flow_match_parameters *match_value,
		      size_t num_actions,
		      struct mlx5dv_flow_action_attr actions_attr[]);
/*
 * Flow actions for mlx5dv_create_flow() (MLX5DV_FLOW_ACTION_IBV_FLOW_ACTION):
 * a list of PRM header modify actions (set and add on the L2, L3 and L4
 * fields) and a packet reformat (decap on the NIC receive table, encap on
 * the transmit table), which the device then applies to the frames the
 * flow takes (decap, rewrite with checksums updated, encap with the outer
 * lengths and IPv4 checksum filled). Destroy them with
 * ibv_destroy_flow_action() (EBUSY while a flow uses them). Errors as
 * rdma-core 44 and the mlx5 kernel give them (sv_flow_action.c).
 */
struct ibv_flow_action *
sv_mlx5dv_create_flow_action_modify_header(struct ibv_context *context,
					   size_t actions_sz,
					   uint64_t actions[],
					   enum mlx5dv_flow_table_type ft_type);
struct ibv_flow_action *sv_mlx5dv_create_flow_action_packet_reformat(
	struct ibv_context *context, size_t data_sz, void *data,
	enum mlx5dv_flow_action_packet_reformat_type reformat_type,
	enum mlx5dv_flow_table_type ft_type);
struct mlx5dv_devx_obj *
sv_mlx5dv_devx_obj_create(struct ibv_context *context, const void *in,
			  size_t inlen, void *out, size_t outlen);
int sv_mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in,
			     size_t inlen, void *out, size_t outlen);
int sv_mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj);
/* General commands: QUERY_HCA_CAP of the NIC flow table capabilities
 * (op_mod MLX5_GET_HCA_CAP_OP_MOD_NIC_FLOW_TABLE, current or maximum),
 * which softverbs fills with the match fields it lacks or has (the IPv4
 * IHL bits of ft_field_support_2_nic_receive) and the header rewrite and
 * encap limits (max_modify_header_actions of the receive and transmit
 * tables, max_encap_header_size); other capability pages and other
 * commands are not modelled (EOPNOTSUPP). */
int sv_mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in,
			       size_t inlen, void *out, size_t outlen);

#ifdef __cplusplus
}
#endif

#endif /* SOFTVERBS_H */
