/* SPDX-License-Identifier: BSD-3-Clause
 * Copyright(c) 2026 The vsteer authors
 */

#ifndef VT_RDMA_H
#define VT_RDMA_H

/*
 * The rdma-core glue (vsteer_glue_rdma.c) against softverbs, for tests built
 * with vt_rdma_shim.c: the shim defines the libibverbs and libmlx5 entry
 * points the glue calls (ibv_get_device_list, ibv_open_device,
 * mlx5dv_open_device, mlx5dv_create_qp, mlx5dv_devx_obj_create, ...), each
 * forwarding to its softverbs namesake; definitions in the executable win
 * over the shared libraries', so the glue's calls land in softverbs exactly
 * as they would land in rdma-core.
 *
 * A softverbs device is shown to the glue under an rdma-like name (the
 * driver picks the rdma-core glue for any name without a soft:/mem:
 * prefix), with a sysfs directory of its own as ibv_device.ibdev_path:
 *   device/net/<if>/address, device/net/<if>/dev_port   the port's MAC;
 *   ports/1/hw_counters/out_of_buffer                   read live from the
 *                                                       device's counters.
 */

#include <stddef.h>
#include <stdint.h>

/* What the glue asked for, counted by the shim. */
struct vt_rdma_calls {
	unsigned int open_device;      /* ibv_open_device() */
	unsigned int dv_open_devx;     /* mlx5dv_open_device(), DEVX flag */
	unsigned int dv_open_other;    /* mlx5dv_open_device(), without it */
	unsigned int dv_create_qp;     /* mlx5dv_create_qp() */
	unsigned int dv_qp_tunnel;     /* ... with TUNNEL_OFFLOADS */
	unsigned int dv_query_device;  /* mlx5dv_query_device() */
	unsigned int devx_general_cmd; /* mlx5dv_devx_general_cmd() */
	unsigned int devx_obj_create;  /* mlx5dv_devx_obj_create() */
	unsigned int matcher_create;   /* mlx5dv_create_flow_matcher() */
	/* mlx5dv_create_flow_action_modify_header(), _packet_reformat() */
	unsigned int modify_header_create;
	unsigned int packet_reformat_create;
	unsigned int reg_mr;	      /* ibv_reg_mr*() */
	unsigned int comp_channel;    /* ibv_create_comp_channel() */
	unsigned int get_cq_event;    /* ibv_get_cq_event() */
	unsigned int get_async_event; /* ibv_get_async_event() */
};
extern struct vt_rdma_calls vt_rdma_calls;

/*
 * Show softverbs device sv_name as rdma-core device alias, its sysfs under
 * a new directory in base (which must exist). Returns 0 or an errno.
 */
int vt_rdma_present(const char *sv_name, const char *alias, const char *base);
/* Stop showing it and remove its sysfs directory. */
int vt_rdma_forget(const char *alias);

/*
 * Make the two ends of in-memory link link (mlx5 profile, or generic,
 * flow_prios, lacks and flex_parser as struct sv_device_opts) and show
 * them as <alias>a and <alias>b. Returns 0 or an errno;
 * vt_rdma_pair_remove() undoes it once the ports are closed.
 */
int
vt_rdma_pair(const char *link, int generic, uint32_t flow_prios, uint32_t lacks,
	     uint32_t flex_parser, const char *alias, const char *base);
int vt_rdma_pair_remove(const char *link, const char *alias);

/* A directory for the sysfs trees, removed by vt_rdma_base_remove(). */
int vt_rdma_base(char *out, size_t len);
void vt_rdma_base_remove(const char *base);

#endif /* VT_RDMA_H */
