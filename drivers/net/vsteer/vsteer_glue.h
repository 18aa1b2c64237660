/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VSTEER_GLUE_H
#define VSTEER_GLUE_H

/*
 * Every non-inline verbs / mlx5dv call the driver makes goes through one of
 * these tables: vsteer_glue_rdma (libibverbs + libmlx5) or vsteer_glue_soft
 * (lib/softverbs). Inline verbs calls (ibv_create_flow, ibv_create_wq,
 * ibv_post_wq_recv, ibv_start_poll, ...) dispatch through the objects' own
 * function pointers and need no entry here.
 *
 * Semantics and errno are those of the rdma-core function of the same name;
 * port_mac and port_counters are the driver's own (sysfs on rdma-core).
 */

#include <stdbool.h>
#include <stdint.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

struct vsteer_port_counters;

/* Link of a port's netdev. */
struct vsteer_glue_link {
	uint32_t speed_mbps; /* 0: unknown */
	bool full_duplex;
	bool autoneg;
};

struct vsteer_glue {
	const char *name; /* "rdma-core" or "softverbs" */
	struct ibv_device **(*get_device_list)(int *num_devices);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *device);
	struct ibv_context *(*open_device)(struct ibv_device *device);
	int (*close_device)(struct ibv_context *context);
	int (*query_device)(struct ibv_context *context,
			    struct ibv_device_attr *attr);
	int (*query_device_ex)(struct ibv_context *context,
			       const struct ibv_query_device_ex_input *input,
			       struct ibv_device_attr_ex *attr);
	int (*query_port)(struct ibv_context *context, uint8_t port_num,
			  struct ibv_port_attr *port_attr);
	struct ibv_pd *(*alloc_pd)(struct ibv_context *context);
	int (*dealloc_pd)(struct ibv_pd *pd);
	struct ibv_mr *(*reg_mr)(struct ibv_pd *pd, void *addr, size_t length,
				 int access);
	int (*dereg_mr)(struct ibv_mr *mr);
	int (*destroy_cq)(struct ibv_cq *cq);
	int (*modify_qp)(struct ibv_qp *qp, struct ibv_qp_attr *attr,
			 int attr_mask);
	int (*destroy_qp)(struct ibv_qp *qp);
	/* Port's Ethernet address (rdma-core: from the bound netdev). */
	int (*port_mac)(struct ibv_context *context, uint8_t port,
			uint8_t mac[6]);
	/* Device-level counters of a port; 0 or a negative errno. */
	int (*port_counters)(struct ibv_context *context, uint8_t port,
			     struct vsteer_port_counters *c);
	/* Port's MTU (L3 bytes) and the largest it takes (0: not known),
	 * from the netdev bound to it (softverbs: its wire). */
	int (*port_mtu)(struct ibv_context *context, uint8_t port,
			unsigned int *mtu, unsigned int *max_mtu);
	/* Set the port's MTU on that netdev (SIOCSIFMTU, as mlx4/mlx5 do):
	 * EINVAL beyond what it takes, EPERM without CAP_NET_ADMIN. */
	int (*port_set_mtu)(struct ibv_context *context, uint8_t port,
			    unsigned int mtu);
	/* Speed and duplex of that netdev's link (ethtool). */
	int (*port_link)(struct ibv_context *context, uint8_t port,
			 struct vsteer_glue_link *link);
	/* mlx5dv */
	bool (*dv_is_supported)(struct ibv_device *device);
	struct ibv_context *(*dv_open_device)(struct ibv_device *device,
					      struct mlx5dv_context_attr *attr);
	int (*dv_query_device)(struct ibv_context *context,
			       struct mlx5dv_context *attrs_out);
	struct ibv_qp *(*dv_create_qp)(struct ibv_context *context,
				       struct ibv_qp_init_attr_ex *qp_attr,
				       struct mlx5dv_qp_init_attr *mlx5_qp_attr);
	struct mlx5dv_flow_matcher *(*dv_create_flow_matcher)(
		struct ibv_context *context,
		struct mlx5dv_flow_matcher_attr *attr);
	int (*dv_destroy_flow_matcher)(struct mlx5dv_flow_matcher *matcher);
	struct ibv_flow *(*dv_create_flow)(
		struct mlx5dv_flow_matcher *matcher,
		struct mlx5dv_flow_match_parameters *value, size_t num_actions,
		struct mlx5dv_flow_action_attr actions[]);
	/* Flow actions for dv_create_flow (header rewrite, decap, encap),
	 * and their destroy: ibv_destroy_flow_action() is an inline verb,
	 * here so that both sides of an action go through the table. */
	struct ibv_flow_action *(*dv_create_flow_action_modify_header)(
		struct ibv_context *context, size_t actions_sz,
		uint64_t actions[], enum mlx5dv_flow_table_type ft_type);
	struct ibv_flow_action *(*dv_create_flow_action_packet_reformat)(
		struct ibv_context *context, size_t data_sz, void *data,
		enum mlx5dv_flow_action_packet_reformat_type reformat_type,
		enum mlx5dv_flow_table_type ft_type);
	int (*destroy_flow_action)(struct ibv_flow_action *action);
	struct mlx5dv_devx_obj *(*devx_obj_create)(struct ibv_context *context,
						   const void *in, size_t inlen,
						   void *out, size_t outlen);
	int (*devx_obj_query)(struct mlx5dv_devx_obj *obj, const void *in,
			      size_t inlen, void *out, size_t outlen);
	int (*devx_obj_destroy)(struct mlx5dv_devx_obj *obj);
	int (*devx_general_cmd)(struct ibv_context *context, const void *in,
				size_t inlen, void *out, size_t outlen);
	/* Completion channels and events: Rx interrupts, link changes. */
	struct ibv_comp_channel *(*create_comp_channel)(
		struct ibv_context *context);
	int (*destroy_comp_channel)(struct ibv_comp_channel *channel);
	int (*get_cq_event)(struct ibv_comp_channel *channel,
			    struct ibv_cq **cq, void **cq_context);
	void (*ack_cq_events)(struct ibv_cq *cq, unsigned int nevents);
	int (*get_async_event)(struct ibv_context *context,
			       struct ibv_async_event *event);
	void (*ack_async_event)(struct ibv_async_event *event);
};

extern const struct vsteer_glue vsteer_glue_rdma;
extern const struct vsteer_glue vsteer_glue_soft;

#endif /* VSTEER_GLUE_H */
